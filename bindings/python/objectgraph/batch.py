"""Batch requests (Core Data's NSBatchInsertRequest, NSBatchUpdateRequest and
NSBatchDeleteRequest): rows written straight to an SQLite store in one
transaction, without objects. A context runs them with ``execute`` or its
``batch_insert``, ``batch_update`` and ``batch_delete`` shortcuts (docs/batch.md).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from .errors import ErrorCode, make_error
from .fetch import FetchRequest, Where
from .predicate import Predicate

__all__ = ["BatchInsertRequest", "BatchUpdateRequest", "BatchDeleteRequest", "BATCH_RESULT_TYPES", "batch_result_code", "predicate_of"]

# Result types by name, with the C enum's values (og_batch_result_type).
BATCH_RESULT_TYPES = {"status_only": 0, "object_ids": 1, "count": 2}


def batch_result_code(result_type: str) -> int:
    """The og_batch_result_type of a result type's name; UsageError 140002 for another name."""
    if result_type not in BATCH_RESULT_TYPES:
        raise make_error(f"{result_type!r} is not a batch result type (one of {', '.join(BATCH_RESULT_TYPES)})",
                         ErrorCode.INVALID_ARGUMENT)
    return BATCH_RESULT_TYPES[result_type]


def predicate_of(where: Where, args: Sequence[Any]) -> Optional[Predicate]:
    """The predicate of a `where` and its format arguments, as fetch() takes them."""
    if args and not isinstance(where, str):
        raise make_error("format arguments need a format string in `where`", ErrorCode.INVALID_ARGUMENT)
    return Predicate(where, *args) if isinstance(where, str) else where


class BatchInsertRequest:
    """Inserts ``rows`` (dicts of attribute names to values; attributes left
    out take the model's defaults) into ``entity``. A generator is Apple's
    dictionary handler: the batch takes rows until it is exhausted."""

    request_type = "batch_insert"

    def __init__(self, entity: str, rows: Iterable[Mapping[str, Any]], result_type: str = "status_only") -> None:
        batch_result_code(result_type)
        self.entity_name = entity
        self.rows = rows
        self.result_type = result_type

    def __repr__(self) -> str:
        return f"BatchInsertRequest({self.entity_name!r}, result_type={self.result_type!r})"


class BatchUpdateRequest:
    """Sets ``values`` (attribute names to constants) on every row of
    ``entity`` that ``where`` matches (None: every row)."""

    request_type = "batch_update"

    def __init__(self, entity: str, where: Where = None, *args: Any, values: Mapping[str, Any],
                 result_type: str = "status_only") -> None:
        batch_result_code(result_type)
        self.entity_name = entity
        self.predicate = predicate_of(where, args)
        self.values: Dict[str, Any] = dict(values)
        self.result_type = result_type

    def __repr__(self) -> str:
        return f"BatchUpdateRequest({self.entity_name!r}, {self.predicate!r}, values={self.values!r})"


class BatchDeleteRequest:
    """Deletes the rows ``fetch_request`` matches, or those of ``object_ids``
    (give exactly one). No delete rule runs (docs/batch.md)."""

    request_type = "batch_delete"

    def __init__(self, fetch_request: Optional[FetchRequest] = None, object_ids: Optional[Iterable[str]] = None,
                 result_type: str = "status_only") -> None:
        batch_result_code(result_type)
        if (fetch_request is None) == (object_ids is None):
            raise make_error("a BatchDeleteRequest needs exactly one of fetch_request and object_ids", ErrorCode.INVALID_ARGUMENT)
        self.fetch_request = fetch_request
        self.object_ids: Optional[List[str]] = None if object_ids is None else [str(i) for i in object_ids]
        self.result_type = result_type

    @property
    def entity_name(self) -> Optional[str]:
        if self.fetch_request is not None:
            return self.fetch_request.entity
        if self.object_ids:
            return self.object_ids[0].rstrip("/").split("/")[-2]
        return None

    def __repr__(self) -> str:
        return f"BatchDeleteRequest({self.fetch_request!r}, object_ids={self.object_ids!r})"


BatchRequest = Union[BatchInsertRequest, BatchUpdateRequest, BatchDeleteRequest]
