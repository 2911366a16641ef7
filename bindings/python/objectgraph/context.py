"""Managed object contexts: the scratch pad where objects are inserted,
changed, deleted, fetched and saved.

A context belongs to the thread that created it; calls from another thread
raise WrongThreadError. It hands out one Python object per managed object, so
``ctx.fetch("Book")[0] is book`` holds for as long as ``book`` is referenced.
"""

from __future__ import annotations

import collections
import ctypes
import struct
import threading
import weakref
from typing import (Any, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, TypeVar, Union,
                    Literal, overload)

from ._columns import MIN_OBJECTS, Columns
from ._layout import INT as INT_ACCESS, Layout
from ._handle import OwnedHandle
from ._lib import lib
from ._util import _kept, check, check_handle, collection_paused, encode, raise_kept
from ._lib import ERROR, HOOK_FN, NULL, VALIDATION_FN, VALUE_VALIDATION_FN
from .coordinator import Coordinator
from .enums import MergePolicy
from .errors import ErrorCode, UnknownEntityError, make_error, suggest, take_error
from .fetch import FetchRequest, Property, SortSpec, Where
from .values import INT64_MAX, INT64_MIN
from .results import ObjectID, take_column, take_object_ids, take_rows
from .predicate import Predicate
from .objects import ManagedObject, _target, class_for
from .undo import UndoManager, _check_manager
from . import graph as _graph
from .graph import Changes, Notification, Observer
from ._util import take_string

__all__ = ["Context", "Notification", "Observer"]

_T = TypeVar("_T")
_CONCURRENCY = {"confinement": 0, "private": 1, "main": 2}
_CONCURRENCY_NAMES = {v: k for k, v in _CONCURRENCY.items()}

# Context wrappers by handle, for store callbacks that are handed an og_context (an
# incremental store's hooks): weak, so that a wrapper still goes when nobody holds it.
# Single lookups, stores and removals need no lock (a lock here could be re-entered by a
# wrapper collected, and closed, during a lookup).
_by_handle: "weakref.WeakValueDictionary[int, Context]" = weakref.WeakValueDictionary()
# Per thread: the contexts whose save() or obtain_permanent_ids() is running, innermost
# last. An incremental store's obtain_permanent_ids callback is handed objects, not their
# context: they are this one's.
_saving = threading.local()


def context_for_handle(handle: Optional[int]) -> Optional["Context"]:
    """The wrapper of an og_context handle, or None when Python made none for it."""
    return _by_handle.get(handle) if handle else None


def saving_context() -> Optional["Context"]:
    """The context whose save (or obtain_permanent_ids) runs on this thread, innermost."""
    stack: Optional[List["Context"]] = getattr(_saving, "stack", None)
    return stack[-1] if stack else None


class _Saving:
    """Marks ``context`` as saving on this thread for the length of a ``with``."""

    __slots__ = ("context",)

    def __init__(self, context: "Context") -> None:
        self.context = context

    def __enter__(self) -> None:
        stack = getattr(_saving, "stack", None)
        if stack is None:
            stack = _saving.stack = []
        stack.append(self.context)

    def __exit__(self, *exc: object) -> None:
        _saving.stack.pop()


class Context(OwnedHandle):
    """A managed object context over a coordinator: insert, change, delete,
    fetch and save objects. Close it (or use ``with``) to release it."""

    # True for a context the library lends (a migration's), which is never released here.
    _lent = False

    def __init__(self, coordinator: Optional[Coordinator] = None, concurrency: str = "confinement", *,
                 parent: Optional["Context"] = None) -> None:
        """Give exactly one of ``coordinator`` (a root context) and ``parent``
        (a child context, whose store is its parent: its saves go into the
        parent, and reach the store when the root saves).

        ``concurrency`` is "confinement" (the creating thread), "private"
        (its own queue: work inside ``perform``/``perform_and_wait``) or
        "main" (the library's shared main queue)."""
        if concurrency not in _CONCURRENCY:
            raise make_error(f"concurrency must be one of {sorted(_CONCURRENCY)}, not {concurrency!r}",
                             ErrorCode.INVALID_ARGUMENT)
        if (coordinator is None) == (parent is None):
            raise make_error("give a Context either a coordinator or a parent context, not "
                             + ("both" if parent is not None else "neither"), ErrorCode.INVALID_ARGUMENT)
        err = ctypes.c_void_p()
        if parent is not None:
            if not isinstance(parent, Context):
                raise make_error(f"parent must be a Context, not {type(parent).__name__}", ErrorCode.INVALID_ARGUMENT)
            handle = check_handle(lib.og_context_new_child(parent._h, _CONCURRENCY[concurrency], ctypes.byref(err)),
                                  err)
            coordinator = parent._coordinator
        else:
            assert coordinator is not None
            if not isinstance(coordinator, Coordinator):
                raise make_error(f"coordinator must be a Coordinator, not {type(coordinator).__name__}",
                                 ErrorCode.INVALID_ARGUMENT)
            if concurrency == "confinement":
                handle = check_handle(lib.og_context_new(coordinator._h, ctypes.byref(err)), err)
            else:
                handle = check_handle(
                    lib.og_context_new_with_type(coordinator._h, _CONCURRENCY[concurrency], ctypes.byref(err)), err)
        self._setup(handle, coordinator, parent)
        if concurrency != "confinement":
            _graph.track_queue_context(self)

    @classmethod
    def _borrow(cls, handle: int, coordinator: Coordinator) -> "Context":
        """A wrapper for a context the library lends (a migration's): never
        released from here. ``coordinator`` gives the layouts of its model."""
        context = cls.__new__(cls)
        context._lent = True
        context._setup(handle, coordinator, None)
        return context

    def _setup(self, handle: int, coordinator: Coordinator, parent: Optional["Context"]) -> None:
        # A child keeps its parent's wrapper (and so its hooks and observers) alive.
        self._parent = parent
        # Exceptions raised by callbacks, re-raised by the next context call. A deque: a queue
        # context's blocks and observers append on the queue's thread while another thread
        # may be taking them (appends and pops of a deque are atomic).
        self._pending: Deque[BaseException] = collections.deque()
        # (entity, hook name) -> registry number, so that replacing a hook frees the old one.
        self._hook_numbers: Dict[Tuple[str, str], int] = {}
        self._coordinator = coordinator
        # og_object handle -> its wrapper; weak, so unused wrappers go away. When one
        # goes, its handle is given back to the library, so that objects nobody holds any
        # more free their memory; dead entries are replaced on lookup and pruned as the
        # table grows. Only the context's own thread changes this table and the two below.
        self._objects: Dict[int, "weakref.ref[ManagedObject]"] = {}
        # The references of wrappers gone, appended by their weakref callback on whatever
        # thread collected them (so that callback touches nothing else), and taken into
        # _released by the context's thread (_collect_dead).
        self._dead: Deque[_HandleRef] = collections.deque()
        # Handles of wrappers gone, given back together (og_context_release_objects) at
        # the start of the next call that wraps objects, once there are enough: a large
        # result collected would otherwise make one foreign call per object. A handle
        # handed out again before then is taken off (the library lends it unchanged).
        self._released: Set[int] = set()
        self._prune_at = 1024
        self._gone = _handle_releaser(weakref.ref(self))
        # Entity handle (lent by this context) -> slot layout: one name lookup per entity.
        self._layouts: Dict[int, Layout] = {}
        # Out-buffers for the typed slot getters. Sharing them is safe because only
        # this context's thread can succeed, and a failed call writes nothing.
        self._int64_out = _buffer(ctypes.c_int64)
        self._double_out = _buffer(ctypes.c_double)
        self._string_out = _buffer(ctypes.c_void_p) + _buffer(ctypes.c_size_t)  # text and its length
        self._text_out = _text_buffer(_TEXT_CAPACITY)  # strings read by slot, copied in place
        # The library's count of value changes, read in place by the column cache (_columns.py).
        counter = lib.og_context_change_counter(handle)
        self._counter: Optional[ctypes.c_uint64] = ctypes.c_uint64.from_address(counter) if counter else None
        self._columns: "weakref.WeakSet[Columns]" = weakref.WeakSet()
        # The undo manager set here, kept alive while the context uses it.
        self._undo_manager: Optional[UndoManager] = None
        self._h = handle
        self._closed = False
        _by_handle[handle] = self

    @property
    def coordinator(self) -> Coordinator:
        """The coordinator; for a child context, its root context's."""
        return self._coordinator

    @property
    def parent(self) -> Optional["Context"]:
        """The parent context of a child context, None for a root context."""
        return self._parent

    @property
    def concurrency(self) -> str:
        """"confinement", "private" or "main"."""
        return _CONCURRENCY_NAMES.get(lib.og_context_concurrency_type(self._h), "confinement")

    def _raise_pending(self, error: Optional[BaseException] = None) -> None:
        """Re-raises the first exception a callback raised during the last call:
        a hook's or observer's (kept by this context), or a store callback's
        (kept for this thread). The library's ``error`` for the same call, or a
        further callback exception, becomes its context."""
        taken = _take_all(self._pending) if self._pending else None
        if taken:  # (empty when another thread took them first)
            first, rest = taken[0], taken[1:]
            extra = next((e for e in (*rest, error) if e is not None and e is not first), None)
            if extra is not None and first.__context__ is None:
                first.__context__ = extra
            raise first
        if _kept:
            raise_kept(error)

    def _owned_here(self) -> bool:
        """Whether the calling thread may use the context (a cheap call that
        fails with WrongThreadError elsewhere)."""
        if self._closed:
            return False
        out = ctypes.c_bool()
        err = ctypes.c_void_p()
        if lib.og_context_has_changes(self._h, ctypes.byref(out), ctypes.byref(err)) == ERROR:
            if err.value:
                lib.og_error_release(err.value)
            return False
        return True

    def _call(self, function: Any, *args: Any) -> int:
        """Calls a status function with an error slot; re-raises callback exceptions first."""
        err = ctypes.c_void_p()
        try:
            return check(function(self._h, *args, ctypes.byref(err)), err)
        finally:
            self._raise_pending()

    def _wrap(self, handle: int, entity: Optional[int] = None) -> ManagedObject:
        """The wrapper of a lent object handle; `entity`, when known, saves asking for it."""
        if self._released or self._dead:
            self._give_back_released(keep=handle)
        ref = self._objects.get(handle)
        wrapper = ref() if ref is not None else None
        if wrapper is None:
            if entity is None:
                entity = lib.og_object_entity(handle)
            if not entity:
                raise make_error("the library lent an object without an entity", ErrorCode.OBJECT_INACCESSIBLE)
            layout = self._layout_of(entity)
            wrapper = class_for(layout)(self, handle, layout)
            self._remember(handle, wrapper)
        return wrapper

    def _layout_of(self, entity: int) -> Layout:
        """The layout of an entity handle this context lent: one name lookup per entity."""
        layout = self._layouts.get(entity)
        if layout is None:
            layout = self._layouts[entity] = self._coordinator._layout(entity)
        return layout

    def _remember(self, handle: int, wrapper: ManagedObject) -> None:
        if self._released:
            self._released.discard(handle)
        self._objects[handle] = _handle_ref(wrapper, self._gone, handle)
        self._prune()

    def _prune(self) -> None:
        """Drops the references of wrappers gone, once the table has doubled since last time."""
        objects = self._objects
        if len(objects) >= self._prune_at:
            released = self._released
            # A reference whose callback has not run yet is handled here; when its callback
            # runs, _collect_dead finds the entry gone and skips it.
            for h in [h for h, r in objects.items() if r() is None]:
                del objects[h]
                released.add(h)
            self._prune_at = max(1024, 2 * len(objects))

    def _collect_dead(self) -> None:
        """Takes the handles of the wrappers gone since the last time into _released:
        each one whose entry is still its reference (a handle lent again since has a new
        wrapper, and stays lent)."""
        objects, released = self._objects, self._released
        for ref in _take_all(self._dead):
            if objects.get(ref.handle) is ref:
                del objects[ref.handle]
                released.add(ref.handle)

    def _give_back_released(self, keep: Optional[int] = None) -> None:
        """Gives back, in one call, the handles of the wrappers gone since the last time
        (but `keep`, a handle just handed out again), once there are enough of them.
        Called on the context's own thread, after a call that the library accepted."""
        if self._dead:
            self._collect_dead()
        if len(self._released) < _RELEASE_BATCH:
            return
        handles, self._released = self._released, set()
        if keep is not None:
            handles.discard(keep)
        if not handles or self._closed:
            return
        # A handle already invalid (the context reset) is skipped by the library: nothing to do.
        if len(handles) == 1:
            lib.og_context_release_object(self._h, handles.pop(), None)
            return
        array = (ctypes.c_void_p * len(handles))(*handles)
        lib.og_context_release_objects(self._h, array, len(handles), None)

    def _take_results(self, results: int) -> List[ManagedObject]:
        """Wraps the objects of NEW og_results and releases the results, or, for a
        large result, keeps them for reading its numeric attributes by column."""
        # Before the result's objects are lent: a handle given back now is not handed out.
        self._give_back_released()
        count = lib.og_results_count(results)
        # Read once: closing the context on another thread sets it to None (_release).
        counter = self._counter
        if count >= MIN_OBJECTS and counter is not None:
            return self._take_bulk(results, count, counter)
        try:
            if count == 0:
                return []
            err = ctypes.c_void_p()
            if count == 1:  # no arrays to make
                return [self._wrap(check_handle(lib.og_results_object_at(results, 0, ctypes.byref(err)), err))]
            handles, entities = _objects_of(results, count)
            out: List[ManagedObject] = []
            self._wrap_all(handles, entities, None, out)
            self._prune()
            return out
        finally:
            lib.og_results_release(results)

    def _take_bulk(self, results: int, count: int, counter: ctypes.c_uint64) -> List[ManagedObject]:
        """Every object and entity in one call; the wrappers share a Columns."""
        try:
            handles, entities = _objects_of(results, count)
        except BaseException:
            lib.og_results_release(results)
            raise
        columns = Columns(results, counter, count)
        self._columns.add(columns)
        out: List[ManagedObject] = []
        # Each wrapper holds references, so CPython's cycle collector tracks it, and making
        # a large result's wrappers set off dozens of collections over everything alive: a
        # third of a 200,000-object fetch. The loop makes no cycles; collection resumes after.
        with collection_paused():
            self._wrap_all(handles, entities, columns, out)
        self._prune()
        return out

    def _wrap_all(self, handles: List[int], entities: List[int], columns: Optional[Columns],
                  out: List[ManagedObject]) -> None:
        """Appends to `out` the wrapper of each object of a result (made when the object
        has none alive), given its handle and its entity's. With `columns` (a large result)
        its numbers are read through them; otherwise one by one."""
        known = self._objects
        released = self._released
        make_ref = _HandleRef
        new = object.__new__
        gone = self._gone
        append = out.append
        last_entity, cls, layout = None, None, None  # type: Any, Any, Any
        for row, (handle, entity) in enumerate(zip(handles, entities)):
            found = known.get(handle)
            wrapper = found() if found is not None else None
            if wrapper is None:
                if released:
                    released.discard(handle)
                if entity != last_entity:
                    if not entity:
                        raise make_error("the library lent an object without an entity", ErrorCode.OBJECT_INACCESSIBLE)
                    layout = self._layout_of(entity)
                    cls, last_entity = class_for(layout), entity
                # ManagedObject.__init__'s fields, set here without its call frame.
                wrapper = new(cls)
                wrapper._h = handle
                wrapper._context = self
                wrapper._layout = layout
                made = known[handle] = make_ref(wrapper, gone)
                made.handle = handle
                wrapper._columns = columns
                wrapper._row = row
            elif columns is not None:  # a small result leaves a wrapper's large one in place
                wrapper._columns = columns
                wrapper._row = row
            append(wrapper)

    def insert(self, entity: str, **values: Any) -> ManagedObject:
        """Inserts a new object of ``entity`` with its default values, then
        sets the attributes and relationships given as keywords."""
        err = ctypes.c_void_p()
        # A new object's entity is the one named: no need to ask the library for it.
        layout = self._coordinator._layouts.by_name.get(entity) if type(entity) is str else None
        try:
            name = layout.key if layout is not None else encode(entity)
            handle = check_handle(lib.og_context_insert(self._h, name, ctypes.byref(err)), err)
        except UnknownEntityError as error:
            suggest(error, self._coordinator.model)
            raise
        finally:
            if self._pending or _kept:
                self._raise_pending()
        # Handles are given back only once the library has accepted a call on this thread.
        if self._released or self._dead:
            self._give_back_released(keep=handle)
        if layout is None:
            obj = self._wrap(handle)
        else:
            # ManagedObject.__init__'s fields, set here without its call frame (as _take_bulk does).
            obj = _new_object(class_for(layout))
            obj._h, obj._context, obj._layout, obj._columns = handle, self, layout, None
            self._remember(handle, obj)
        try:
            rest = _set_integers(obj, values) if len(values) > 1 else values
            for key, value in rest.items():
                obj[key] = value
        except BaseException as error:
            suggest(error, self._coordinator.model)
            # A failed insert leaves nothing behind: an object inserted since
            # the last save is simply forgotten when deleted.
            try:
                self.delete(obj)
            except Exception:
                pass
            raise
        return obj

    def object_for_uri(self, uri: str) -> Optional[ManagedObject]:
        """The object an object ID URI (``obj.object_id_uri``) names, or None
        when no store of the coordinator has that UUID
        (managedObjectIDForURIRepresentation: then existingObjectWithID:)."""
        err = ctypes.c_void_p()
        try:
            handle = lib.og_context_object_for_uri(self._h, encode(uri), ctypes.byref(err))
            if not handle:
                if err.value:
                    check_handle(handle, err)
                return None
        finally:
            self._raise_pending()
        return self._wrap(handle)

    def delete(self, obj: ManagedObject) -> None:
        """Marks ``obj`` deleted (delete rules apply); written at the next save."""
        self._call(lib.og_context_delete, _target(obj))

    @property
    def has_changes(self) -> bool:
        out = ctypes.c_bool()
        err = ctypes.c_void_p()
        check(lib.og_context_has_changes(self._h, ctypes.byref(out), ctypes.byref(err)), err)
        return out.value

    def save(self) -> None:
        """Validates and writes every change in one transaction (a child
        context's save writes into its parent). On failure nothing is written
        and the changes stay pending. Rows changed since they were read are
        resolved by ``merge_policy``; under MergePolicy.ERROR the save raises
        MergeConflictError, whose ``conflicts`` name them. An exception raised
        by a hook during the save is re-raised here."""
        err = ctypes.c_void_p()
        try:
            with _Saving(self):
                if lib.og_context_save(self._h, ctypes.byref(err)) == ERROR:
                    raise take_error(err, self)  # a merge error's conflicts lend this context's objects
        finally:
            self._raise_pending()

    # Fetching. Every method takes the entity (or a FetchRequest), then the
    # predicate and its %@ arguments, then keyword-only options:
    # ctx.fetch("Book", "pages > %@", 300, sort=["title"], limit=10).

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
    def fetch(self, entity: Union[str, FetchRequest], where: Where = None, *args: Any, sort: SortSpec = None,
              limit: Optional[int] = None, offset: Optional[int] = None, batch_size: Optional[int] = None,
              include_subentities: Optional[bool] = None, include_pending_changes: Optional[bool] = None,
              include_property_values: Optional[bool] = None, as_faults: Optional[bool] = None,
              prefetch: Optional[Iterable[str]] = None, refresh_refetched_objects: Optional[bool] = None,
              result_type: Union[str, int], properties: Optional[Iterable[Property]] = None,
              distinct: bool = False, group_by: Optional[Iterable[str]] = None, having: Where = None,
              stores: Optional[Iterable[Any]] = None) -> Any: ...

    def fetch(self, entity: Union[str, FetchRequest], where: Where = None, *args: Any, sort: SortSpec = None,
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
            err = ctypes.c_void_p()
            try:
                results = check_handle(lib.og_context_fetch(self._h, request._h, ctypes.byref(err)), err)
            finally:
                self._raise_pending()
            return self._take_results(results)

    def fetch_ids(self, entity: Union[str, FetchRequest], where: Where = None, *args: Any, sort: SortSpec = None,
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

    def fetch_dicts(self, entity: Union[str, FetchRequest], where: Where = None, *args: Any, sort: SortSpec = None,
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

    def fetch_values(self, entity: str, key: str, where: Where = None, *args: Any, sort: SortSpec = None,
                     distinct: bool = False) -> List[Any]:
        """The values of one property (a key path, or a to-one as ObjectIDs) of
        the saved objects ``fetch`` would match: ``ctx.fetch_values("Book",
        "title", sort="title")``. With ``distinct`` each value once."""
        with _request(self, entity, sort, where, args, {"result_type": "dictionary", "properties": [key],
                                                  "distinct": distinct}) as request:
            err = ctypes.c_void_p()
            try:
                rows = check_handle(lib.og_context_fetch_dictionaries(self._h, request._h, ctypes.byref(err)), err)
            finally:
                self._raise_pending()
            return take_column(rows, key, self)

    def explain(self, entity: Union[str, FetchRequest], where: Where = None, *args: Any, sort: SortSpec = None,
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
            err = ctypes.c_void_p()
            text = take_string(check_handle(lib.og_context_explain(self._h, request._h, ctypes.byref(err)), err))
            return text or ""

    def _fetch_ids(self, request: FetchRequest) -> List[ObjectID]:
        err = ctypes.c_void_p()
        try:
            ids = check_handle(lib.og_context_fetch_object_ids(self._h, request._h, ctypes.byref(err)), err)
        finally:
            self._raise_pending()
        return take_object_ids(ids)

    def _fetch_dicts(self, request: FetchRequest) -> List[Dict[str, Any]]:
        err = ctypes.c_void_p()
        try:
            rows = check_handle(lib.og_context_fetch_dictionaries(self._h, request._h, ctypes.byref(err)), err)
        finally:
            self._raise_pending()
        return take_rows(rows, self)

    def _count(self, request: FetchRequest) -> int:
        out = ctypes.c_size_t()
        err = ctypes.c_void_p()
        try:
            check(lib.og_context_count(self._h, request._h, ctypes.byref(out), ctypes.byref(err)), err)
        finally:
            self._raise_pending()
        return out.value

    def count(self, entity: Union[str, FetchRequest], where: Where = None, *args: Any,
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

    def assign(self, obj: ManagedObject, store: Any) -> None:
        """Saves the new object ``obj`` to ``store`` (assignObject:toPersistentStore:)
        instead of the first writable store whose configuration holds its
        entity. Only a new object without a permanent ID can be assigned, to
        an attached store that holds its entity."""
        self._call(lib.og_context_assign_object, _target(obj), store._h)


    # The context's life cycle.

    def process_pending_changes(self) -> None:
        """Coalesces the changes so far into one event: applies pending delete
        rules and posts "objects_did_change"."""
        self._call(lib.og_context_process_pending_changes)

    def rollback(self) -> None:
        """Discards every unsaved change: new objects leave the context, deleted
        ones come back, changed ones return to their saved values."""
        self._call(lib.og_context_rollback)

    def reset(self) -> None:
        """Forgets every object and unsaved change. The forgotten objects'
        wrappers become invalid (og.InvalidHandleError): their memory comes back."""
        self._call(lib.og_context_reset)
        self._objects.clear()

    def refresh(self, obj: ManagedObject, merge: bool = False) -> None:
        """Without ``merge`` the object turns into a fault, dropping its unsaved
        changes; with it, unchanged properties take the store's values."""
        self._call(lib.og_context_refresh_object, _target(obj), bool(merge))

    def obtain_permanent_ids(self, objects: Iterable[ManagedObject]) -> None:
        """Gives new objects their permanent IDs before they are saved."""
        handles = [_target(o) for o in objects]
        array = (ctypes.c_void_p * max(1, len(handles)))(*handles)
        with _Saving(self):
            self._call(lib.og_context_obtain_permanent_ids, array, len(handles))

    # Registration, by object ID URI (ManagedObject.object_id).

    def object_registered(self, object_id: str) -> Optional[ManagedObject]:
        """The object registered under ``object_id``, or None; never reads the store."""
        out = ctypes.c_void_p()
        status = self._call(lib.og_context_object_registered, encode(object_id), ctypes.byref(out))
        return None if status == NULL or not out.value else self._wrap(out.value)

    def object_with_id(self, object_id: str) -> ManagedObject:
        """The registered object, or a fault for it (objectWithID:)."""
        err = ctypes.c_void_p()
        try:
            handle = check_handle(lib.og_context_object_with_uri(self._h, encode(object_id), ctypes.byref(err)), err)
        finally:
            self._raise_pending()
        return self._wrap(handle)

    def existing_object(self, object_id: str) -> ManagedObject:
        """The object with its values loaded; ReferentialIntegrity error (133000)
        when its row is gone."""
        err = ctypes.c_void_p()
        try:
            handle = check_handle(lib.og_context_existing_object(self._h, encode(object_id), ctypes.byref(err)), err)
        finally:
            self._raise_pending()
        return self._wrap(handle)

    def _objects_of(self, which: int) -> List[ManagedObject]:
        err = ctypes.c_void_p()
        try:
            results = check_handle(lib.og_context_objects(self._h, which, ctypes.byref(err)), err)
        finally:
            self._raise_pending()
        return self._take_results(results)

    @property
    def registered_objects(self) -> List[ManagedObject]:
        return self._objects_of(0)

    @property
    def inserted_objects(self) -> List[ManagedObject]:
        return self._objects_of(1)

    @property
    def updated_objects(self) -> List[ManagedObject]:
        return self._objects_of(2)

    @property
    def deleted_objects(self) -> List[ManagedObject]:
        return self._objects_of(3)

    @property
    def registered_count(self) -> int:
        out = ctypes.c_size_t()
        self._call(lib.og_context_registered_count, ctypes.byref(out))
        return out.value

    # Settings.

    def _get_flag(self, function: Any) -> bool:
        out = ctypes.c_bool()
        self._call(function, ctypes.byref(out))
        return out.value

    @property
    def retains_registered_objects(self) -> bool:
        """Whether unchanged registered objects are kept alive (default False)."""
        return self._get_flag(lib.og_context_retains_registered_objects)

    @retains_registered_objects.setter
    def retains_registered_objects(self, on: bool) -> None:
        self._call(lib.og_context_set_retains_registered_objects, bool(on))

    @property
    def propagates_deletes_at_end_of_event(self) -> bool:
        """Whether delete rules apply at the end of the event (default True) or
        only at save."""
        return self._get_flag(lib.og_context_propagates_deletes)

    @propagates_deletes_at_end_of_event.setter
    def propagates_deletes_at_end_of_event(self, on: bool) -> None:
        self._call(lib.og_context_set_propagates_deletes, bool(on))

    @property
    def merge_policy(self) -> MergePolicy:
        """How a save resolves objects whose rows changed since they were read
        (default MergePolicy.ERROR); accepts what ``MergePolicy.parse`` does."""
        out = ctypes.c_int()
        self._call(lib.og_context_merge_policy, ctypes.byref(out))
        return MergePolicy(out.value)

    @merge_policy.setter
    def merge_policy(self, policy: Union[MergePolicy, int, str]) -> None:
        self._call(lib.og_context_set_merge_policy, int(MergePolicy.parse(policy)))

    @property
    def stale_interval(self) -> float:
        """How old, in seconds, a cached row may be when a fault fires or an
        object is refreshed (default -1.0): negative, any age; 0, the store is
        always read; positive, older rows are read again (stalenessInterval)."""
        out = ctypes.c_double()
        self._call(lib.og_context_staleness_interval, ctypes.byref(out))
        return out.value

    @stale_interval.setter
    def stale_interval(self, seconds: float) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise make_error(f"stale_interval is a number of seconds, not {seconds!r}", ErrorCode.INVALID_ARGUMENT)
        self._call(lib.og_context_set_staleness_interval, float(seconds))

    @property
    def should_delete_inaccessible_faults(self) -> bool:
        """Whether a fault whose row is gone becomes a deleted object with empty
        values (default True) instead of raising 133000."""
        return self._get_flag(lib.og_context_should_delete_inaccessible_faults)

    @should_delete_inaccessible_faults.setter
    def should_delete_inaccessible_faults(self, on: bool) -> None:
        self._call(lib.og_context_set_should_delete_inaccessible_faults, bool(on))

    @property
    def automatically_merges_changes_from_parent(self) -> bool:
        """Whether this context merges each save of its parent (a child) or of
        the other contexts of its coordinator (a root), posting
        "objects_did_change" on its own queue (default False)."""
        return self._get_flag(lib.og_context_automatically_merges_changes_from_parent)

    @automatically_merges_changes_from_parent.setter
    def automatically_merges_changes_from_parent(self, on: bool) -> None:
        self._call(lib.og_context_set_automatically_merges_changes_from_parent, bool(on))

    @property
    def name(self) -> Optional[str]:
        """The context's name (default None); a save records it as the history
        transaction's context name."""
        out = ctypes.c_void_p()
        status = self._call(lib.og_context_name, ctypes.byref(out))
        text = take_string(out.value)
        return None if status == NULL else (text or "")

    @name.setter
    def name(self, name: Optional[str]) -> None:
        if name is not None and not isinstance(name, str):
            raise make_error(f"name is a str or None, not {type(name).__name__}", ErrorCode.TYPE_MISMATCH)
        self._call(lib.og_context_set_name, None if name is None else encode(name))

    # Undo and redo.

    @property
    def undo_manager(self) -> Optional[UndoManager]:
        """The og.UndoManager the context registers its changes with, or None
        (the default: nothing is recorded). Set it to a manager, or to None
        to stop recording; anything else raises TypeMismatchError (140006)."""
        err = ctypes.c_void_p()
        if not lib.og_context_undo_manager(self._h, ctypes.byref(err)) and err.value:
            raise take_error(err)  # a released context, the wrong thread
        return self._undo_manager

    @undo_manager.setter
    def undo_manager(self, manager: Optional[UndoManager]) -> None:
        manager = _check_manager(manager)
        self._call(lib.og_context_set_undo_manager, None if manager is None else manager._h)
        previous, self._undo_manager = self._undo_manager, manager
        if previous is not None and previous is not manager:
            previous._detach(self)
        if manager is not None:
            manager._attach(self)

    def undo(self) -> None:
        """Processes pending changes (closing the event's undo group), then
        undoes the newest group of the undo manager; nothing happens without
        a manager or with nothing to undo. Posts "objects_did_change"."""
        self._call(lib.og_context_undo)

    def redo(self) -> None:
        """Redoes the newest undone group of the undo manager; as ``undo()``."""
        self._call(lib.og_context_redo)

    def refresh_all_objects(self) -> None:
        """Refreshes every registered object, keeping unsaved changes (as
        ``refresh(obj, merge=True)``)."""
        self._call(lib.og_context_refresh_all_objects)

    # Merging other contexts' saves.

    def merge_changes(self, notification: Notification) -> None:
        """Applies another context's save, given by its "did_save"
        notification: updated objects registered here are refreshed keeping
        this context's unsaved changes, deleted ones are marked deleted, and
        inserted ones become fetchable; "objects_did_change" is then posted.
        Call it on this context's thread (inside ``perform_and_wait`` for a
        queue context); the notification may come from any thread."""
        if not isinstance(notification, Notification) or notification.name != "did_save":
            what = notification.name if isinstance(notification, Notification) else type(notification).__name__
            raise make_error(f"merge_changes takes a did_save notification, not {what!r}",
                             ErrorCode.INVALID_ARGUMENT)
        if notification._changes is None:
            if notification._changes_error is not None:
                raise notification._changes_error
            raise make_error("this did_save notification was not posted by a context: it carries no saved changes",
                             ErrorCode.INVALID_ARGUMENT)
        self._call(lib.og_context_merge_changes, notification._changes._h)

    @staticmethod
    def merge_remote_changes(changes: Mapping[str, Iterable[str]], contexts: Sequence["Context"]) -> None:
        """Merges changes made elsewhere (another coordinator or process, a
        batch request) into each of ``contexts``, as ``merge_changes`` does.
        ``changes`` maps "inserted", "updated" and "deleted" to ObjectIDs or
        URI strings. IDs of stores a context's coordinator does not have are
        skipped for that context."""
        if not isinstance(changes, Mapping):
            raise make_error(f"changes is a mapping of 'inserted', 'updated' and 'deleted' to object IDs, not "
                             f"{type(changes).__name__}", ErrorCode.INVALID_ARGUMENT)
        unknown = [key for key in changes if key not in Changes.KINDS]
        if unknown:
            raise make_error(f"unknown change key(s) {', '.join(map(repr, unknown))}; use "
                             + ", ".join(map(repr, Changes.KINDS)), ErrorCode.INVALID_ARGUMENT)
        targets = list(contexts)
        for context in targets:
            if not isinstance(context, Context):
                raise make_error(f"contexts holds a {type(context).__name__}, not a Context", ErrorCode.INVALID_ARGUMENT)
        err = ctypes.c_void_p()
        with Changes(check_handle(lib.og_changes_new(ctypes.byref(err)), err)) as record:
            for key, ids in changes.items():
                if isinstance(ids, (str, bytes)):
                    raise make_error(f"changes[{key!r}] is an iterable of object IDs, not one ID",
                                     ErrorCode.INVALID_ARGUMENT)
                for object_id in ids:
                    if not isinstance(object_id, str):
                        raise make_error(f"changes[{key!r}] holds a {type(object_id).__name__}, not an object ID",
                                         ErrorCode.INVALID_ARGUMENT)
                    check(lib.og_changes_add(record._h, Changes.KINDS[key], encode(object_id), ctypes.byref(err)), err)
            handles = (ctypes.c_void_p * max(1, len(targets)))(*[c._h for c in targets])
            try:
                check(lib.og_context_merge_remote_changes(record._h, handles, len(targets), ctypes.byref(err)), err)
            finally:
                for context in targets:
                    context._raise_pending()

    @property
    def user_info(self) -> "UserInfo":
        """The context's userInfo: a mapping of strings to strings."""
        return UserInfo(self)

    # Queues.

    def perform(self, fn: Callable[[], Any]) -> None:
        """Queues ``fn`` on the context's queue and returns at once. The block
        is one user event: when it returns, pending changes are processed
        ("objects_did_change" posted, the undo group closed). An exception it
        raises is re-raised by the next call on this context. Closing the
        context waits for queued blocks. A "confinement" context has no queue:
        UsageError (140002), and ``fn`` does not run."""
        number = _graph.register(self, fn)
        err = ctypes.c_void_p()
        try:
            check(lib.og_context_perform(self._h, _graph._block, number, ctypes.byref(err)), err)
        except BaseException:
            _graph.unregister(number)
            raise

    def perform_and_wait(self, fn: Callable[[], _T]) -> _T:
        """Runs ``fn`` on the context's queue, waits, and returns its result or
        raises its exception. Re-entrant: inside a block it runs at once. Not
        an event: its changes are processed at the end of the next ``perform``
        block, at ``process_pending_changes()`` or at ``save()``. A
        "confinement" context has no queue: UsageError (140002), and ``fn``
        does not run."""
        outcome: List[Any] = []

        def run() -> None:
            try:
                outcome.append((True, fn()))
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                outcome.append((False, exc))

        number = _graph.register(self, run)
        err = ctypes.c_void_p()
        try:
            check(lib.og_context_perform_and_wait(self._h, _graph._block, number, ctypes.byref(err)), err)
        finally:
            _graph.unregister(number)
        self._raise_pending()
        if not outcome:
            raise make_error("the block did not run", ErrorCode.INVALID_ARGUMENT)
        ok, value = outcome[0]
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    # Hooks and notifications.

    def set_hooks(self, entity: str, **hooks: Optional[Callable[..., Any]]) -> None:
        """Sets (or with None removes) life-cycle and validation hooks of
        ``entity`` and its subentities in this context: ``awake_from_insert``,
        ``awake_from_fetch``, ``awake_from_snapshot_events``, ``will_save``,
        ``did_save``, ``prepare_for_deletion``, ``will_turn_into_fault``,
        ``did_turn_into_fault`` take ``fn(obj)``; ``validate_for_insert``,
        ``validate_for_update``, ``validate_for_delete`` take ``fn(obj)`` and
        refuse by raising (or returning False); ``validate_value`` takes
        ``fn(obj, key, value)`` likewise. A validation hook's og.Error fails the
        save with its own domain and code; another exception becomes a
        ValidationError 1550; an exception from ``will_save`` fails the save before
        anything is written and the save re-raises it; other hooks' exceptions
        are re-raised by the call that ran them."""
        for name, fn in hooks.items():
            if name not in _graph.HOOKS and name not in _graph.VALIDATION_HOOKS and name != "validate_value":
                raise make_error(f"{name!r} is not a hook; hooks: "
                                 + ", ".join([*_graph.HOOKS, *_graph.VALIDATION_HOOKS, "validate_value"]),
                                 ErrorCode.INVALID_ARGUMENT)
        for name, fn in hooks.items():
            number = None if fn is None else _graph.register(self, fn)
            err = ctypes.c_void_p()
            try:
                if name == "will_save":
                    # Through the refusable kind: an exception fails the save before it writes.
                    callback = _graph._will_save if fn is not None else VALIDATION_FN()
                    status = lib.og_context_set_validation_hook(self._h, encode(entity), _graph.WILL_SAVE_KIND,
                                                                callback, number, ctypes.byref(err))
                elif name in _graph.HOOKS:
                    callback = _graph._hook if fn is not None else HOOK_FN()
                    status = lib.og_context_set_hook(self._h, encode(entity), _graph.HOOKS[name], callback, number,
                                                     ctypes.byref(err))
                elif name in _graph.VALIDATION_HOOKS:
                    callback = _graph._validation if fn is not None else VALIDATION_FN()
                    status = lib.og_context_set_validation_hook(self._h, encode(entity), _graph.VALIDATION_HOOKS[name],
                                                                callback, number, ctypes.byref(err))
                else:
                    callback = _graph._value_validation if fn is not None else VALUE_VALIDATION_FN()
                    status = lib.og_context_set_value_validator(self._h, encode(entity), callback, number, ctypes.byref(err))
                check(status, err)
            except BaseException:
                _graph.unregister(number)
                raise
            _graph.unregister(self._hook_numbers.pop((entity, name), None))
            if number is not None:
                self._hook_numbers[(entity, name)] = number

    def observe(self, name: str, callback: Callable[[Notification], Any]) -> Observer:
        """Calls ``callback(notification)`` for every "objects_did_change",
        "will_save" or "did_save" notification, on the context's thread, until
        the returned Observer's ``remove()``."""
        if name not in _graph.NOTIFICATIONS:
            raise make_error(f"{name!r} is not a notification; use one of {sorted(_graph.NOTIFICATIONS)}",
                             ErrorCode.INVALID_ARGUMENT)
        number = _graph.register(self, callback)
        token = ctypes.c_uint64()
        err = ctypes.c_void_p()
        try:
            check(lib.og_context_add_observer(self._h, _graph.NOTIFICATIONS[name], _graph._notification, number,
                                              ctypes.byref(token), ctypes.byref(err)), err)
        except BaseException:
            _graph.unregister(number)
            raise
        return Observer(self, token.value, number)

    def _release(self) -> None:
        """Releases the context. The objects it lent become unusable: the
        library reports their released handles (InvalidHandleError) instead of
        touching freed memory. Closing twice is harmless."""
        # Column caches must stop reading the counter, which goes away with the context.
        self._detach_columns()
        self._counter = None
        if self._h is not None and _by_handle.get(self._h) is self:
            _by_handle.pop(self._h, None)
        if not self._lent:
            lib.og_context_release(self._h)  # waits for blocks queued with perform
        # A block still running above may have made a column cache since.
        self._detach_columns()
        self._objects.clear()
        self._dead.clear()
        self._released.clear()  # given back with the context
        if self._undo_manager is not None:
            self._undo_manager._detach(self)
            self._undo_manager = None
        for number in self._hook_numbers.values():
            _graph.unregister(number)
        self._hook_numbers.clear()

    def _detach_columns(self) -> None:
        for columns in list(self._columns):
            columns.detach()

    def __repr__(self) -> str:
        if self._closed:
            return "<objectgraph.Context closed>"
        kind = " child" if lib.og_context_has_parent(self._h) else ""
        return f"<objectgraph.Context{kind} objects={len(self._objects)}>"


_new_object: Callable[[type], ManagedObject] = object.__new__  # a wrapper without its __init__

# How many handles of wrappers gone are given back together.
_RELEASE_BATCH = 256


def _objects_of(results: int, count: int) -> Tuple[List[int], List[int]]:
    """Every object handle of `results` and its entity handle, in one call (og_results_objects),
    as lists of ints: memoryview converts them in C, where indexing the ctypes arrays would
    make each int in Python (a third of a large fetch's wrapping)."""
    handles = (ctypes.c_void_p * count)()
    entities = (ctypes.c_void_p * count)()
    err = ctypes.c_void_p()
    check(lib.og_results_objects(results, ctypes.addressof(handles), ctypes.addressof(entities), count,
                                 ctypes.byref(err)), err)
    return _ints(handles), _ints(entities)


def _ints(pointers: Any) -> List[int]:
    """A ctypes array of pointers as a list of ints (0 for NULL, as handles never are)."""
    return memoryview(pointers).cast("B").cast("Q" if ctypes.sizeof(ctypes.c_void_p) == 8 else "I").tolist()


class _HandleRef(weakref.ref):  # type: ignore[type-arg]
    """A weak reference to a wrapper that remembers the handle it wraps. Made with
    weakref's own constructor and then given its handle (``_handle_ref``): a Python
    ``__new__``/``__init__`` would cost a third of a large fetch's wrapping."""

    __slots__ = ("handle",)
    handle: int


def _handle_ref(wrapper: Any, callback: Any, handle: int) -> _HandleRef:
    ref = _HandleRef(wrapper, callback)
    ref.handle = handle
    return ref


def _handle_releaser(context_ref: "weakref.ref[Context]") -> Callable[[_HandleRef], None]:
    """The callback of a context's wrapper references: gives the wrapper's handle back
    to the library once the wrapper is gone (on whatever thread collects it)."""

    def gone(ref: _HandleRef) -> None:
        context = context_ref()
        if context is None or context._closed:
            return
        # Only noted here (an atomic append): this may run on any thread, while the
        # context's thread uses its tables. Given back with others at the context's next
        # call that wraps objects (no foreign call here: a collected result would make one
        # per object).
        context._dead.append(ref)

    return gone


def _take_all(items: "Deque[_T]") -> List[_T]:
    """Empties a deque that other threads may append to (each pop is atomic)."""
    taken: List[_T] = []
    while True:
        try:
            taken.append(items.popleft())
        except IndexError:
            return taken


def _buffer(kind: Any) -> Tuple[Any, Any]:
    value = kind()
    return value, ctypes.byref(value)


# Room for the text of a string read by slot (og_object_copy_string_at); longer text is
# read into an owned copy instead.
_TEXT_CAPACITY = 256


def _text_buffer(capacity: int) -> Tuple[int, memoryview, int, Any, Any]:
    """The buffer's address, its bytes, its capacity, and a length out-buffer."""
    text = ctypes.create_string_buffer(capacity)
    length, length_ref = _buffer(ctypes.c_size_t)
    # The memoryview keeps `text` alive for as long as the tuple lives.
    return ctypes.addressof(text), memoryview(text).cast("B"), capacity, length, length_ref


class _request:
    """A FetchRequest to run: the caller's own, or a temporary one released after use."""

    def __init__(self, context: "Context", entity: Union[str, FetchRequest], sort: SortSpec, where: Where,
                 args: Tuple[Any, ...], options: Optional[Dict[str, Any]] = None) -> None:
        self.context = context
        if isinstance(entity, FetchRequest):
            if sort is not None or where is not None or options:
                raise make_error("give the sort order, predicate and options to the FetchRequest, not to fetch()",
                                 ErrorCode.INVALID_ARGUMENT)
            self.request, self.owned = entity, False
        else:
            if args and not isinstance(where, str):
                raise make_error("format arguments need a format string in `where`", ErrorCode.INVALID_ARGUMENT)
            predicate = Predicate(where, *args) if isinstance(where, str) else where
            request = FetchRequest(entity, sort, predicate)
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


def _set_integers(obj: ManagedObject, values: Dict[str, Any]) -> Dict[str, Any]:
    """Sets the plain-int values of integer attributes in one call
    (og_object_set_int64s_at); returns the values left to set one by one."""
    layout = obj._layout
    names = tuple(values)
    plan = layout.integer_keys.get(names, False)
    if plan is False:
        slots = [layout.slots.get(name) for name in names]
        every = all(slot is not None and slot.access == INT_ACCESS for slot in slots)
        # Every context of the coordinator shares this plan, on any thread: it holds only
        # what never changes (the slots, read by the library, and the packer). The values
        # are packed into bytes of their own at each call, since the GIL is released
        # during the call and another thread may pack its own meanwhile.
        plan = layout.integer_keys[names] = (
            (ctypes.c_size_t * len(names))(*(s.index for s in slots)),  # type: ignore[union-attr]
            struct.Struct(f"={len(names)}q"),
        ) if every else None
    if plan is not None:
        slots, packer = plan
        numbers = list(values.values())
        # Plain ints only (not bools), packed in one call; one out of range fails the pack.
        if list(map(type, numbers)).count(int) == len(numbers):
            try:
                packed = packer.pack(*numbers)
            except struct.error:
                return _set_some_integers(obj, values)
            err = ctypes.c_void_p()
            check(lib.og_object_set_int64s_at(obj._h, slots, packed, len(numbers), ctypes.byref(err)), err)
            return {}
    return _set_some_integers(obj, values)


def _set_some_integers(obj: ManagedObject, values: Dict[str, Any]) -> Dict[str, Any]:
    """The integers among mixed keywords in one call; returns the rest."""
    slots = obj._layout.slots
    indexes: List[int] = []
    numbers: List[int] = []
    rest: Dict[str, Any] = {}
    for key, value in values.items():
        slot = slots.get(key)
        if slot is not None and slot.access == INT_ACCESS and type(value) is int and INT64_MIN <= value <= INT64_MAX:
            indexes.append(slot.index)
            numbers.append(value)
        else:
            rest[key] = value
    n = len(indexes)
    if n > 1:
        err = ctypes.c_void_p()
        check(lib.og_object_set_int64s_at(obj._h, (ctypes.c_size_t * n)(*indexes), (ctypes.c_int64 * n)(*numbers), n,
                                          ctypes.byref(err)), err)
    elif n == 1:
        rest = values  # one value: the ordinary path
    return rest


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


class UserInfo:
    """A context's userInfo, read and written through the library."""

    def __init__(self, context: Context) -> None:
        self._context = context

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        out = ctypes.c_void_p()
        status = self._context._call(lib.og_context_user_info, encode(key), ctypes.byref(out))
        text = take_string(out.value)
        return default if status == NULL else text

    def __getitem__(self, key: str) -> str:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __setitem__(self, key: str, value: str) -> None:
        self._context._call(lib.og_context_set_user_info, encode(key), encode(str(value)))

    def __delitem__(self, key: str) -> None:
        self._context._call(lib.og_context_set_user_info, encode(key), None)
