"""Fetch results other than managed objects: object IDs, dictionaries and counts.

``FetchRequest(..., result_type=...)`` chooses one; ``Context.fetch`` returns
what it says (``Context.fetch_ids`` and ``Context.fetch_dicts`` ask directly).
"""

from __future__ import annotations

from typing import Any, Dict, List, Union

from ._call import call_borrowed, call_handle
from ._lib import lib
from ._object_id import ObjectID
from .enums import AttributeType
from .errors import ErrorCode, make_error
from .values import take_value

__all__ = ["ObjectID", "Expression", "RESULT_TYPES"]

# og_result_type, by the names Python code uses.
RESULT_TYPES = {
    "object": 0, "objects": 0, "managed_object": 0,
    "object_id": 1, "object_ids": 1, "id": 1, "ids": 1,
    "dictionary": 2, "dictionaries": 2, "dict": 2,
    "count": 4,
}
RESULT_TYPE_NAMES = {0: "object", 1: "object_id", 2: "dictionary", 4: "count"}


def result_type_code(value: Union[str, int]) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in RESULT_TYPE_NAMES:
        return value
    if isinstance(value, str) and value.lower() in RESULT_TYPES:
        return RESULT_TYPES[value.lower()]
    raise make_error(f"unknown result type {value!r}; use one of: object, object_id, dictionary, count",
                     ErrorCode.INVALID_ARGUMENT)


class Expression:
    """A computed column of dictionary results (NSExpressionDescription): an
    expression in the predicate language (``"sum:(salary)"``, ``"price * 1.2"``,
    ``"count:(name)"``), the key ``name`` of its value, and the ``type`` its value
    is given (an AttributeType or its name; "undefined" keeps the expression's own)."""

    def __init__(self, format: str, name: str, type: Union[AttributeType, int, str] = AttributeType.UNDEFINED) -> None:
        if not name:
            raise make_error("an Expression needs a name: it is the key of its value", ErrorCode.INVALID_ARGUMENT)
        self.format = format
        self.name = name
        self.type = AttributeType.parse(type)

    def __repr__(self) -> str:
        return f"Expression({self.format!r}, name={self.name!r}, type={self.type.json_name!r})"


def take_object_ids(handle: int) -> List[ObjectID]:
    """Reads NEW og_object_ids and releases them."""
    try:
        ids = []
        for index in range(lib.og_object_ids_count(handle)):
            ids.append(ObjectID(call_borrowed(lib.og_object_ids_uri_at, handle, index).decode("utf-8")))
        return ids
    finally:
        lib.og_object_ids_release(handle)


def take_rows(handle: int, context: Any) -> List[Dict[str, Any]]:
    """Reads NEW og_rows as a list of dicts (keys in column order) and releases them."""
    try:
        keys = [call_borrowed(lib.og_rows_column_name, handle, column).decode("utf-8")
                for column in range(lib.og_rows_column_count(handle))]
        rows = []
        for row in range(lib.og_rows_count(handle)):
            values = {}
            for column, key in enumerate(keys):
                values[key] = take_value(call_handle(lib.og_rows_value, handle, row, column), context)
            rows.append(values)
        return rows
    finally:
        lib.og_rows_release(handle)


def take_column(handle: int, key: str, context: Any) -> List[Any]:
    """Reads one column of NEW og_rows, by key, and releases them."""
    try:
        values = []
        for row in range(lib.og_rows_count(handle)):
            values.append(take_value(call_handle(lib.og_rows_value_for_key, handle, row, key.encode("utf-8")), context))
        return values
    finally:
        lib.og_rows_release(handle)
