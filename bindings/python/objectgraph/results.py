"""Fetch results other than managed objects: object IDs, dictionaries and counts.

``FetchRequest(..., result_type=...)`` chooses one; ``Context.fetch`` returns
what it says (``Context.fetch_ids`` and ``Context.fetch_dicts`` ask directly).
"""

from __future__ import annotations

import ctypes
import re
from typing import Any, Dict, List, Optional, Union

from ._lib import lib
from ._util import check_handle
from .enums import AttributeType
from .errors import ErrorCode, make_error, take_error

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


class ObjectID(str):
    """A managed object's ID, as its URI (``x-coredata://<store>/<Entity>/p<key>``,
    or ``x-coredata:///<Entity>/t<UUID>`` while temporary). It is a ``str``, so it
    works wherever an ID URI is accepted (``ctx.object_with_id(oid)``).

    The text after ``p`` is the store's key: a number for SQLite and Binary
    stores, the reference an incremental store named the object by for its
    stores, escaped as a URL path (it may hold slashes: ``pkey%20with/slash``).
    The URI is read from the front: the store UUID, the entity, then the rest."""

    __slots__ = ()

    def _parts(self) -> List[str]:
        """[store UUID, entity, "p..." or "t..."]: what follows ``x-coredata://``,
        split at its first two slashes."""
        text = self[len(_SCHEME):] if self.startswith(_SCHEME) else self
        return text.split("/", 2)

    @property
    def entity(self) -> str:
        """The entity's name."""
        parts = self._parts()
        return parts[1] if len(parts) > 1 else ""

    @property
    def is_temporary(self) -> bool:
        parts = self._parts()
        return len(parts) > 2 and parts[2].startswith("t")

    @property
    def primary_key(self) -> Optional[int]:
        """The store's key of the object when the text after ``p`` is a number;
        None while the ID is temporary, or when the text is an incremental
        store's reference that is not a number."""
        parts = self._parts()
        if len(parts) < 3 or not parts[2].startswith("p"):
            return None
        key = parts[2][1:]
        return int(key) if _INTEGER.fullmatch(key) else None

    @property
    def store_uuid(self) -> str:
        """The UUID of the store, "" while the ID is temporary."""
        return self._parts()[0]

    def __repr__(self) -> str:
        return f"ObjectID({str.__repr__(self)})"


_SCHEME = "x-coredata://"
_INTEGER = re.compile(r"-?[0-9]+")


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
            err = ctypes.c_void_p()
            uri = lib.og_object_ids_uri_at(handle, index, ctypes.byref(err))
            if uri is None:
                raise take_error(err)
            ids.append(ObjectID(uri.decode("utf-8")))
        return ids
    finally:
        lib.og_object_ids_release(handle)


def take_rows(handle: int, context: Any) -> List[Dict[str, Any]]:
    """Reads NEW og_rows as a list of dicts (keys in column order) and releases them."""
    from .values import take_value

    try:
        keys = []
        for column in range(lib.og_rows_column_count(handle)):
            err = ctypes.c_void_p()
            name = lib.og_rows_column_name(handle, column, ctypes.byref(err))
            if name is None:
                raise take_error(err)
            keys.append(name.decode("utf-8"))
        rows = []
        for row in range(lib.og_rows_count(handle)):
            values = {}
            for column, key in enumerate(keys):
                err = ctypes.c_void_p()
                values[key] = take_value(check_handle(lib.og_rows_value(handle, row, column, ctypes.byref(err)), err), context)
            rows.append(values)
        return rows
    finally:
        lib.og_rows_release(handle)


def take_column(handle: int, key: str, context: Any) -> List[Any]:
    """Reads one column of NEW og_rows, by key, and releases them."""
    from .values import take_value

    try:
        values = []
        for row in range(lib.og_rows_count(handle)):
            err = ctypes.c_void_p()
            values.append(take_value(check_handle(lib.og_rows_value_for_key(handle, row, key.encode("utf-8"),
                                                                             ctypes.byref(err)), err), context))
        return values
    finally:
        lib.og_rows_release(handle)
