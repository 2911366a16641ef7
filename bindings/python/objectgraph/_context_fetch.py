"""Fetching, as every context does it: ``fetch``, ``fetch_ids``, ``fetch_dicts``,
``fetch_values``, ``explain`` and ``count``, and the temporary requests they build
from their arguments. Context (context.py) inherits them from FetchingContext.
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, Iterable, List, Literal, Optional, Tuple, Type, TypeVar, Union, overload

from ._call import call_handle, call_out
from ._context_base import ContextBase
from ._lib import lib
from ._object_id import ObjectID
from ._util import take_string
from .errors import ErrorCode, make_error, suggest
from .fetch import FetchRequest, Property, SortSpec, Where
from .objects import ManagedObject
from .predicate import Predicate
from .results import take_column, take_object_ids, take_rows

__all__ = ["FetchingContext"]

_O = TypeVar("_O", bound=ManagedObject)
# What names the entity of a fetch: its name, a FetchRequest, or the class declared for it.
Entity = Union[str, FetchRequest, Type[ManagedObject]]


class FetchingContext(ContextBase):
    """The fetching methods of a context."""

    # Fetching. Every method takes the entity (its name, the class declared for it, or a
    # FetchRequest), then the predicate and its %@ arguments, then keyword-only options:
    # ctx.fetch("Book", "pages > %@", 300, sort=["title"], limit=10).

    @overload
    def fetch(self, entity: Type[_O], where: Where = None, *args: Any, sort: SortSpec = None,
              limit: Optional[int] = None, offset: Optional[int] = None, batch_size: Optional[int] = None,
              include_subentities: Optional[bool] = None, include_pending_changes: Optional[bool] = None,
              include_property_values: Optional[bool] = None, as_faults: Optional[bool] = None,
              prefetch: Optional[Iterable[str]] = None, refresh_refetched_objects: Optional[bool] = None,
              result_type: Literal["object", None] = None, properties: Optional[Iterable[Property]] = None,
              distinct: bool = False, group_by: Optional[Iterable[str]] = None, having: Where = None,
              stores: Optional[Iterable[Any]] = None) -> List[_O]: ...

    @overload
    def fetch(self, entity: Union[str, FetchRequest], where: Where = None, *args: Any, sort: SortSpec = None,
              limit: Optional[int] = None, offset: Optional[int] = None, batch_size: Optional[int] = None,
              include_subentities: Optional[bool] = None, include_pending_changes: Optional[bool] = None,
              include_property_values: Optional[bool] = None, as_faults: Optional[bool] = None,
              prefetch: Optional[Iterable[str]] = None, refresh_refetched_objects: Optional[bool] = None,
              result_type: Literal["object", None] = None, properties: Optional[Iterable[Property]] = None,
              distinct: bool = False, group_by: Optional[Iterable[str]] = None, having: Where = None,
              stores: Optional[Iterable[Any]] = None) -> List[ManagedObject]: ...

    @overload
    def fetch(self, entity: Entity, where: Where = None, *args: Any, sort: SortSpec = None,
              limit: Optional[int] = None, offset: Optional[int] = None, batch_size: Optional[int] = None,
              include_subentities: Optional[bool] = None, include_pending_changes: Optional[bool] = None,
              include_property_values: Optional[bool] = None, as_faults: Optional[bool] = None,
              prefetch: Optional[Iterable[str]] = None, refresh_refetched_objects: Optional[bool] = None,
              result_type: Union[str, int], properties: Optional[Iterable[Property]] = None,
              distinct: bool = False, group_by: Optional[Iterable[str]] = None, having: Where = None,
              stores: Optional[Iterable[Any]] = None) -> Any: ...

    def fetch(self, entity: Entity, where: Where = None, *args: Any, sort: SortSpec = None,
              limit: Optional[int] = None, offset: Optional[int] = None, batch_size: Optional[int] = None,
              include_subentities: Optional[bool] = None, include_pending_changes: Optional[bool] = None,
              include_property_values: Optional[bool] = None, as_faults: Optional[bool] = None,
              prefetch: Optional[Iterable[str]] = None, refresh_refetched_objects: Optional[bool] = None,
              result_type: Union[str, int, None] = None, properties: Optional[Iterable[Property]] = None,
              distinct: bool = False, group_by: Optional[Iterable[str]] = None, having: Where = None,
              stores: Optional[Iterable[Any]] = None) -> Any:
        """The objects of ``entity`` (subentities included) that satisfy
        ``where``: a Predicate, or a format string whose ``%@`` arguments follow
        (``ctx.fetch("Book", "pages > %@", 300, sort=["title"], limit=10)``).
        ``entity`` is a name, a FetchRequest, or the class declared for the
        entity (``ctx.fetch(Book, ...)``, typed as a list of ``Book``).

        The options are keyword-only. ``sort`` is a key or a list of keys; a
        "-" prefix sorts that key descending. ``limit``, ``offset``,
        ``batch_size``, ``include_subentities``, ``include_pending_changes``,
        ``include_property_values``, ``as_faults``, ``prefetch`` and
        ``refresh_refetched_objects`` are the FetchRequest properties of the
        same names. ``result_type`` (with ``properties``, ``distinct``,
        ``group_by``, ``having``) chooses other results: a list of ObjectIDs
        ("object_id"), a list of dicts ("dictionary") or an int ("count").
        ``stores`` limits the fetch to some of the coordinator's stores."""
        options = _fetch_options(sort=sort, limit=limit, offset=offset, batch_size=batch_size,
                                 include_subentities=include_subentities,
                                 include_pending_changes=include_pending_changes,
                                 include_property_values=include_property_values, as_faults=as_faults,
                                 prefetch=prefetch, refresh_refetched_objects=refresh_refetched_objects,
                                 result_type=result_type, properties=properties, distinct=distinct,
                                 group_by=group_by, having=having, stores=stores)
        with _request(self, entity, sort, where, args, options) as request:
            kind = request.result_type
            if kind == "object_id":
                return self._fetch_ids(request)
            if kind == "dictionary":
                return self._fetch_dicts(request)
            if kind == "count":
                return self._count(request)
            return self._take_results(call_handle(lib.og_context_fetch, self._h, request._h, context=self))

    def fetch_ids(self, entity: Entity, where: Where = None, *args: Any, sort: SortSpec = None,
                  limit: Optional[int] = None, offset: Optional[int] = None,
                  include_subentities: Optional[bool] = None, include_pending_changes: Optional[bool] = None,
                  refresh_refetched_objects: Optional[bool] = None,
                  stores: Optional[Iterable[Any]] = None) -> List[ObjectID]:
        """The IDs of the objects ``fetch`` would return, whatever the request's
        result type: unsaved changes included (new objects have temporary IDs),
        and no object is loaded for them. Options as for ``fetch``."""
        options = _fetch_options(sort=sort, limit=limit, offset=offset, include_subentities=include_subentities,
                                 include_pending_changes=include_pending_changes,
                                 refresh_refetched_objects=refresh_refetched_objects, stores=stores)
        with _request(self, entity, sort, where, args, options) as request:
            return self._fetch_ids(request)

    def fetch_dicts(self, entity: Entity, where: Where = None, *args: Any, sort: SortSpec = None,
                    properties: Optional[Iterable[Property]] = None, distinct: bool = False,
                    group_by: Optional[Iterable[str]] = None, having: Where = None,
                    limit: Optional[int] = None, offset: Optional[int] = None,
                    include_subentities: Optional[bool] = None,
                    stores: Optional[Iterable[Any]] = None) -> List[Dict[str, Any]]:
        """One dict per row (or group), whatever the request's result type: keys
        in the order of ``properties``, Python values, to-ones as ObjectIDs.
        Computed from saved data: unsaved changes are not reflected."""
        options = _fetch_options(sort=sort, properties=properties, distinct=distinct, group_by=group_by,
                                 having=having, limit=limit, offset=offset,
                                 include_subentities=include_subentities, stores=stores)
        with _request(self, entity, sort, where, args, options) as request:
            return self._fetch_dicts(request)

    def fetch_values(self, entity: Union[str, Type[ManagedObject]], key: str, where: Where = None, *args: Any, sort: SortSpec = None,
                     distinct: bool = False) -> List[Any]:
        """The values of one property (a key path, or a to-one as ObjectIDs) of
        the saved objects ``fetch`` would match: ``ctx.fetch_values("Book",
        "title", sort="title")``. With ``distinct`` each value once."""
        with _request(self, entity, sort, where, args, {"result_type": "dictionary", "properties": [key],
                                                  "distinct": distinct}) as request:
            rows = call_handle(lib.og_context_fetch_dictionaries, self._h, request._h, context=self)
            return take_column(rows, key, self)

    def explain(self, entity: Entity, where: Where = None, *args: Any, sort: SortSpec = None,
                limit: Optional[int] = None, offset: Optional[int] = None,
                include_subentities: Optional[bool] = None, include_pending_changes: Optional[bool] = None,
                result_type: Union[str, int, None] = None, properties: Optional[Iterable[Property]] = None,
                distinct: bool = False, group_by: Optional[Iterable[str]] = None, having: Where = None,
                stores: Optional[Iterable[Any]] = None) -> str:
        """How ``fetch`` would run this request, as text, without running it: per
        store the SQL, its bound values, SQLite's query plan, whether rows are
        filtered or sorted in memory, and whether unsaved changes are laid over
        them (lines ``key: value``; stores separated by an empty line)."""
        options = _fetch_options(sort=sort, limit=limit, offset=offset, include_subentities=include_subentities,
                                 include_pending_changes=include_pending_changes, result_type=result_type,
                                 properties=properties, distinct=distinct, group_by=group_by, having=having,
                                 stores=stores)
        with _request(self, entity, sort, where, args, options) as request:
            return take_string(call_handle(lib.og_context_explain, self._h, request._h)) or ""

    def _fetch_ids(self, request: FetchRequest) -> List[ObjectID]:
        return take_object_ids(call_handle(lib.og_context_fetch_object_ids, self._h, request._h, context=self))

    def _fetch_dicts(self, request: FetchRequest) -> List[Dict[str, Any]]:
        return take_rows(call_handle(lib.og_context_fetch_dictionaries, self._h, request._h, context=self), self)

    def _count(self, request: FetchRequest) -> int:
        count: int = call_out(lib.og_context_count, ctypes.c_size_t, self._h, request._h, context=self)
        return count

    def count(self, entity: Entity, where: Where = None, *args: Any,
              limit: Optional[int] = None, offset: Optional[int] = None,
              include_subentities: Optional[bool] = None, include_pending_changes: Optional[bool] = None,
              refresh_refetched_objects: Optional[bool] = None, result_type: Union[str, int, None] = None,
              properties: Optional[Iterable[Property]] = None, distinct: bool = False,
              group_by: Optional[Iterable[str]] = None, having: Where = None,
              stores: Optional[Iterable[Any]] = None) -> int:
        """How many results ``fetch`` would return: objects (unsaved changes
        included), or dictionaries for a "dictionary" request. Options as for
        ``fetch``."""
        options = _fetch_options(limit=limit, offset=offset, include_subentities=include_subentities,
                                 include_pending_changes=include_pending_changes,
                                 refresh_refetched_objects=refresh_refetched_objects, result_type=result_type,
                                 properties=properties, distinct=distinct, group_by=group_by, having=having,
                                 stores=stores)
        with _request(self, entity, None, where, args, options) as request:
            return self._count(request)


class _request:
    """A FetchRequest to run: the caller's own, or a temporary one released after use."""

    def __init__(self, context: ContextBase, entity: Entity, sort: SortSpec, where: Where,
                 args: Tuple[Any, ...], options: Optional[Dict[str, Any]] = None) -> None:
        self.context = context
        target: Union[str, FetchRequest] = context._entity_name(entity)
        if isinstance(target, FetchRequest):
            if sort is not None or where is not None or options:
                raise make_error("give the sort order, predicate and options to the FetchRequest, not to fetch()",
                                 ErrorCode.INVALID_ARGUMENT)
            self.request, self.owned = target, False
        else:
            if args and not isinstance(where, str):
                raise make_error("format arguments need a format string in `where`", ErrorCode.INVALID_ARGUMENT)
            predicate = Predicate(where, *args) if isinstance(where, str) else where
            request = FetchRequest(target, sort, predicate)
            self.request, self.owned = request, True
            try:
                _apply_options(request, options or {})
            except BaseException:
                request.close()
                raise

    def __enter__(self) -> FetchRequest:
        return self.request

    def __exit__(self, kind: object, error: Optional[BaseException], trace: object) -> None:
        if self.owned:
            self.request.close()
        if error is not None:
            suggest(error, self.context._coordinator.model)  # an unknown entity or key: the closest name


def _fetch_options(**options: Any) -> Dict[str, Any]:
    """The options given to fetch() and friends: those not left at their default."""
    return {name: value for name, value in options.items()
            if value is not None and name != "sort" and not (name == "distinct" and value is False)}


def _apply_options(request: FetchRequest, options: Dict[str, Any]) -> None:
    """Applies FetchRequest keywords given to fetch(), count() and friends."""
    known = {"result_type", "properties", "distinct", "group_by", "having", "stores"} | set(_SIMPLE_OPTIONS)
    unknown = set(options) - known
    if unknown:
        raise make_error(f"unknown fetch option(s): {', '.join(sorted(unknown))}", ErrorCode.INVALID_ARGUMENT)
    if "result_type" in options:
        request.result_type = options["result_type"]
    for p in options.get("properties") or []:
        request.add_property(p)
    if options.get("distinct"):
        request.distinct = True
    for name in options.get("group_by") or []:
        request.add_group_by(name)
    if options.get("having") is not None:
        request.having = options["having"]
    if options.get("stores") is not None:
        request.affected_stores = options["stores"]
    for name in _SIMPLE_OPTIONS:
        if name in options:
            setattr(request, name, options[name])


# fetch() keywords that are FetchRequest properties of the same name.
_SIMPLE_OPTIONS = ("limit", "offset", "batch_size", "include_subentities", "include_pending_changes",
                   "include_property_values", "as_faults", "prefetch", "refresh_refetched_objects")
