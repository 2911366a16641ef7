"""Fetch requests: which entity, which objects (a predicate), and in what order."""

from __future__ import annotations

import ctypes
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from ._call import call, call_handle, call_out
from ._handle import OwnedHandle
from ._lib import lib
from ._util import encode
from .errors import ErrorCode, make_error
from .predicate import Predicate, _variables
from .results import RESULT_TYPE_NAMES, Expression, result_type_code

__all__ = ["FetchRequest", "SortSpec", "Expression"]

Property = Union[str, Expression]

SortSpec = Union[str, Iterable[str], None]
Where = Union[str, Predicate, None]

# og_sort_comparison, by name.
_COMPARISONS = {"compare": 0, "case_insensitive": 1, "localized_standard": 2}


def parse_sort(sort: SortSpec) -> List[Tuple[str, bool]]:
    """``"title"`` or ``["title", "-year"]`` -> [(key, ascending)]; a "-" prefix
    sorts descending, a "+" prefix ascending."""
    if sort is None:
        return []
    if isinstance(sort, str):
        keys: List[Any] = [sort]
    else:
        try:
            keys = list(sort)
        except TypeError:
            raise make_error(f"sort must be a key or a list of keys, not {type(sort).__name__}",
                             ErrorCode.INVALID_ARGUMENT) from None
    result = []
    for key in keys:
        if not isinstance(key, str):
            raise make_error(f"a sort key must be a string (\"title\", \"-year\"), not {key!r}", ErrorCode.INVALID_ARGUMENT)
        if key.startswith("-"):
            result.append((key[1:], False))
        else:
            result.append((key[1:] if key.startswith("+") else key, True))
    return result


class FetchRequest(OwnedHandle):
    """A request for the objects of ``entity`` (subentities included) that
    satisfy ``where`` (a Predicate, or a format string without arguments),
    sorted by ``sort``. The entity and key paths are checked when the request
    runs.

    ``result_type`` says what fetching returns: "object" (managed objects, the
    default), "object_id" (ObjectIDs), "dictionary" (one dict per row over
    ``properties``: attribute and to-one names, key paths such as
    "author.name", and Expressions; all attributes when omitted) or "count".
    Dictionaries may be ``distinct``, grouped by ``group_by`` (property names or
    expression names) and filtered by ``having`` (a predicate over the column
    names, e.g. "total > 100")."""

    def __init__(self, entity: str, sort: SortSpec = None, where: Where = None, *,
                 result_type: Union[str, int] = "object", properties: Optional[Iterable[Property]] = None,
                 distinct: bool = False, group_by: Optional[Iterable[str]] = None, having: Where = None,
                 affected_stores: Optional[Iterable[Any]] = None) -> None:
        self._h = call_handle(lib.og_fetch_request_new, encode(entity))
        self._closed = False
        self.entity = entity
        self.sort: List[Tuple[str, bool]] = []
        self._predicate: Optional[Predicate] = None
        self._having: Optional[Predicate] = None
        self._properties: List[Property] = []
        self._group_by: List[str] = []
        self._stores: List[Any] = []
        self._prefetch: List[str] = []
        for key, ascending in parse_sort(sort):
            self.add_sort(key, ascending)
        if where is not None:
            self.predicate = where if isinstance(where, Predicate) else Predicate(where)
        self.result_type = result_type
        for p in properties or []:
            self.add_property(p)
        if distinct:
            self.distinct = True
        for name in group_by or []:
            self.add_group_by(name)
        if having is not None:
            self.having = having
        if affected_stores is not None:
            self.affected_stores = list(affected_stores)

    # Result types

    @property
    def result_type(self) -> str:
        """"object", "object_id", "dictionary" or "count"."""
        return RESULT_TYPE_NAMES.get(lib.og_fetch_request_result_type(self._h), "object")

    @result_type.setter
    def result_type(self, value: Union[str, int]) -> None:
        call(lib.og_fetch_request_set_result_type, self._h, result_type_code(value))

    @property
    def properties(self) -> List[Property]:
        """The columns of dictionary results, in order (empty: every attribute)."""
        return list(self._properties)

    def add_property(self, prop: Property) -> "FetchRequest":
        """Appends a column: a property name or key path, or an Expression."""
        if isinstance(prop, Expression):
            call(lib.og_fetch_request_add_expression_to_fetch, self._h, encode(prop.name), encode(prop.format),
                 int(prop.type))
        elif isinstance(prop, str):
            call(lib.og_fetch_request_add_property_to_fetch, self._h, encode(prop))
        else:
            raise make_error(f"a property to fetch is a name or an Expression, not {type(prop).__name__}",
                             ErrorCode.TYPE_MISMATCH)
        self._properties.append(prop)
        return self

    @property
    def distinct(self) -> bool:
        """returnsDistinctResults: repeated dictionaries are dropped (with ``properties`` only)."""
        return self._get_flag(lib.og_fetch_request_distinct)

    @distinct.setter
    def distinct(self, on: bool) -> None:
        self._set_flag(lib.og_fetch_request_set_distinct, on)

    @property
    def group_by(self) -> List[str]:
        return list(self._group_by)

    def add_group_by(self, name: str) -> "FetchRequest":
        """Groups dictionary results by a property (key path) or an Expression's name."""
        if isinstance(name, Expression):
            name = name.name
        call(lib.og_fetch_request_add_group_by, self._h, encode(name))
        self._group_by.append(name)
        return self

    @property
    def having(self) -> Optional[Predicate]:
        return self._having

    @having.setter
    def having(self, value: Where) -> None:
        if isinstance(value, str):
            value = Predicate(value)
        if value is not None and not isinstance(value, Predicate):
            raise make_error(f"having must be a Predicate or a string, not {type(value).__name__}",
                             ErrorCode.TYPE_MISMATCH)
        call(lib.og_fetch_request_set_having, self._h, value._h if value else None)
        self._having = value

    # Options of object fetches.

    def _get_count(self, getter: Any) -> int:
        count: int = call_out(getter, ctypes.c_size_t, self._h)
        return count

    def _set_count(self, setter: Any, value: int, what: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise make_error(f"{what} must be an int, not {type(value).__name__}", ErrorCode.TYPE_MISMATCH)
        if value < 0:
            raise make_error(f"{what} cannot be negative", ErrorCode.INVALID_ARGUMENT)
        call(setter, self._h, value)

    def _get_flag(self, getter: Any) -> bool:
        on: bool = call_out(getter, ctypes.c_bool, self._h)
        return on

    def _set_flag(self, setter: Any, on: bool) -> None:
        call(setter, self._h, bool(on))

    @property
    def limit(self) -> int:
        """fetchLimit: at most this many results (0, the default: no limit)."""
        return self._get_count(lib.og_fetch_request_limit)

    @limit.setter
    def limit(self, value: int) -> None:
        self._set_count(lib.og_fetch_request_set_limit, value, "limit")

    @property
    def offset(self) -> int:
        """fetchOffset: skips this many of the sorted results (default 0)."""
        return self._get_count(lib.og_fetch_request_offset)

    @offset.setter
    def offset(self, value: int) -> None:
        self._set_count(lib.og_fetch_request_set_offset, value, "offset")

    @property
    def batch_size(self) -> int:
        """fetchBatchSize: with N > 0 objects come back as faults whose values
        load N at a time, when the first of a batch is read (default 0)."""
        return self._get_count(lib.og_fetch_request_batch_size)

    @batch_size.setter
    def batch_size(self, value: int) -> None:
        self._set_count(lib.og_fetch_request_set_batch_size, value, "batch_size")

    @property
    def include_subentities(self) -> bool:
        """includesSubentities (default True)."""
        return self._get_flag(lib.og_fetch_request_includes_subentities)

    @include_subentities.setter
    def include_subentities(self, on: bool) -> None:
        self._set_flag(lib.og_fetch_request_set_includes_subentities, on)

    @property
    def include_pending_changes(self) -> bool:
        """includesPendingChanges (default True): False returns what the store
        holds, ignoring unsaved inserts, updates and deletes."""
        return self._get_flag(lib.og_fetch_request_includes_pending_changes)

    @include_pending_changes.setter
    def include_pending_changes(self, on: bool) -> None:
        self._set_flag(lib.og_fetch_request_set_includes_pending_changes, on)

    @property
    def include_property_values(self) -> bool:
        """includesPropertyValues (default True): False reads only identities;
        objects not in memory read their row when first used."""
        return self._get_flag(lib.og_fetch_request_includes_property_values)

    @include_property_values.setter
    def include_property_values(self, on: bool) -> None:
        self._set_flag(lib.og_fetch_request_set_includes_property_values, on)

    @property
    def as_faults(self) -> bool:
        """returnsObjectsAsFaults (default True): new objects are faults whose row
        is already read; False returns them loaded."""
        return self._get_flag(lib.og_fetch_request_returns_objects_as_faults)

    @as_faults.setter
    def as_faults(self, on: bool) -> None:
        self._set_flag(lib.og_fetch_request_set_returns_objects_as_faults, on)

    @property
    def refresh_refetched_objects(self) -> bool:
        """shouldRefreshRefetchedObjects (default False): True makes objects
        already registered take the fetched values, as ``refresh(obj,
        merge=True)`` would; their own unsaved changes stay."""
        return self._get_flag(lib.og_fetch_request_refreshes_refetched_objects)

    @refresh_refetched_objects.setter
    def refresh_refetched_objects(self, on: bool) -> None:
        self._set_flag(lib.og_fetch_request_set_refreshes_refetched_objects, on)

    @property
    def request_type(self) -> str:
        """NSPersistentStoreRequest requestType: always "fetch"."""
        return "fetch"

    def copy(self) -> "FetchRequest":
        """A new, independent request with the same settings (NSFetchRequest
        copy). It shares the same Predicate objects; changing or closing this
        request leaves the copy alone."""
        twin = type(self).__new__(type(self))
        twin._h = call_handle(lib.og_fetch_request_copy, self._h)
        twin._closed = False
        twin.entity = self.entity
        twin.sort = list(self.sort)
        twin._predicate = self._predicate
        twin._having = self._having
        twin._properties = list(self._properties)
        twin._group_by = list(self._group_by)
        twin._stores = list(self._stores)
        twin._prefetch = list(getattr(self, "_prefetch", []))
        return twin

    def __copy__(self) -> "FetchRequest":
        return self.copy()

    @property
    def prefetch(self) -> List[str]:
        """relationshipKeyPathsForPrefetching: relationship key paths read with
        the fetch, one store read per relationship, not one per object."""
        return self._prefetch[:lib.og_fetch_request_prefetch_key_path_count(self._h)]

    @prefetch.setter
    def prefetch(self, paths: Iterable[str]) -> None:
        if isinstance(paths, str):
            paths = [paths]
        for path in paths:
            call(lib.og_fetch_request_add_prefetch_key_path, self._h, encode(path))
            self._prefetch.append(path)

    @property
    def affected_stores(self) -> List[Any]:
        """The stores the request reads (affectedStores); empty: every store
        whose configuration holds the entity."""
        return list(self._stores)

    @affected_stores.setter
    def affected_stores(self, stores: Optional[Iterable[Any]]) -> None:
        chosen = list(stores or [])
        handles = [s._h for s in chosen]
        array = (ctypes.c_void_p * max(1, len(handles)))(*handles)
        call(lib.og_fetch_request_set_affected_stores, self._h, array, len(handles))
        self._stores = chosen  # the Store objects keep their coordinator alive

    @property
    def predicate(self) -> Optional[Predicate]:
        return self._predicate

    @predicate.setter
    def predicate(self, value: Where) -> None:
        if isinstance(value, str):
            value = Predicate(value)
        if value is not None and not isinstance(value, Predicate):
            raise make_error(f"a predicate must be a Predicate or a string, not {type(value).__name__}",
                             ErrorCode.TYPE_MISMATCH)
        call(lib.og_fetch_request_set_predicate, self._h, value._h if value else None)
        self._predicate = value

    def add_sort(self, key: str, ascending: bool = True, comparison: str = "compare") -> "FetchRequest":
        """Appends a sort key (a key path through to-one relationships); earlier
        keys take precedence. ``comparison`` is "compare", "case_insensitive" or
        "localized_standard" (case- and diacritic-blind, digits by value)."""
        code = _COMPARISONS.get(comparison)
        if code is None:
            raise make_error(f"unknown comparison {comparison!r}; use one of {', '.join(_COMPARISONS)}",
                             ErrorCode.INVALID_ARGUMENT)
        if code == 0:
            call(lib.og_fetch_request_add_sort, self._h, encode(key), ascending)
        else:
            call(lib.og_fetch_request_add_sort_comparison, self._h, encode(key), ascending, code)
        self.sort.append((key, ascending))
        return self

    @classmethod
    def from_template(cls, model: Any, name: str, variables: Optional[Dict[str, Any]] = None,
                      **more: Any) -> "FetchRequest":
        """A new request from the model's fetch request template ``name``, its
        predicate parsed with every ``$VARIABLE`` replaced
        (fetchRequestFromTemplateWithName:substitutionVariables:). Every variable
        must be given (None tests against nil); a missing one raises
        PredicateVariableError."""
        merged: Dict[str, Any] = dict(variables or {})
        merged.update(more)
        names, values, count = _variables(merged)
        try:
            request = cls.__new__(cls)
            request._h = call_handle(lib.og_model_fetch_request_from_template, model._h, encode(name), names,
                                     values.array, count)
        finally:
            values.release()
        request._closed = False
        request._stores = []
        request.entity = name
        request.sort = []
        request._predicate = None
        request._having = None
        request._properties = []
        request._group_by = []
        request._prefetch = []
        return request

    def _release(self) -> None:
        lib.og_fetch_request_release(self._h)

    def __repr__(self) -> str:
        order = ", ".join(("" if asc else "-") + key for key, asc in self.sort)
        where = f" where {self._predicate.format}" if self._predicate else ""
        kind = "" if self.result_type == "object" else f" result_type={self.result_type}"
        columns = lib.og_fetch_request_properties_to_fetch_count(self._h)
        if columns:
            kind += f" properties={columns}"
        return f"<objectgraph.FetchRequest {self.entity}{where} sort=[{order}]{kind}>"
