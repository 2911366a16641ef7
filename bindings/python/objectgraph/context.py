"""Managed object contexts: the scratch pad where objects are inserted,
changed, deleted, fetched and saved.

A context belongs to the thread that created it; calls from another thread
raise WrongThreadError. It hands out one Python object per managed object, so
``ctx.fetch("Book")[0] is book`` holds for as long as ``book`` is referenced.
"""

from __future__ import annotations

import ctypes
import weakref
from typing import Any, Dict, List, Optional, Tuple, Union

from ._layout import Layout
from ._handle import OwnedHandle
from ._lib import lib
from ._util import check, check_handle, encode
from .coordinator import Coordinator
from .errors import ErrorCode, make_error
from .fetch import FetchRequest, SortSpec, Where
from .predicate import Predicate
from .objects import ManagedObject, _target, class_for

__all__ = ["Context"]


class Context(OwnedHandle):
    """A managed object context over a coordinator: insert, change, delete,
    fetch and save objects. Close it (or use ``with``) to release it."""

    def __init__(self, coordinator: Coordinator) -> None:
        err = ctypes.c_void_p()
        handle = check_handle(lib.og_context_new(coordinator._h, ctypes.byref(err)), err)
        self._coordinator = coordinator
        # og_object handle -> its wrapper; weak, so unused wrappers go away.
        self._objects: "weakref.WeakValueDictionary[int, ManagedObject]" = weakref.WeakValueDictionary()
        # Entity handle (lent by this context) -> slot layout: one name lookup per entity.
        self._layouts: Dict[int, Layout] = {}
        # Out-buffers for the typed slot getters. Sharing them is safe because only
        # this context's thread can succeed, and a failed call writes nothing.
        self._int64_out = _buffer(ctypes.c_int64)
        self._double_out = _buffer(ctypes.c_double)
        self._h = handle
        self._closed = False

    @property
    def coordinator(self) -> Coordinator:
        return self._coordinator

    def _wrap(self, handle: int) -> ManagedObject:
        wrapper = self._objects.get(handle)
        if wrapper is None:
            entity = lib.og_object_entity(handle)
            if not entity:
                raise make_error("the library lent an object without an entity", ErrorCode.OBJECT_INACCESSIBLE)
            layout = self._layouts.get(entity)
            if layout is None:
                layout = self._layouts[entity] = self._coordinator._layout(entity)
            wrapper = class_for(layout)(self, handle, layout)
            self._objects[handle] = wrapper
        return wrapper

    def _take_results(self, results: int) -> List[ManagedObject]:
        """Wraps the objects of NEW og_results and releases the results."""
        try:
            objects = []
            for index in range(lib.og_results_count(results)):
                err = ctypes.c_void_p()
                objects.append(self._wrap(check_handle(lib.og_results_object_at(results, index, ctypes.byref(err)), err)))
            return objects
        finally:
            lib.og_results_release(results)

    def insert(self, entity: str, **values: Any) -> ManagedObject:
        """Inserts a new object of ``entity`` with its default values, then
        sets the attributes and relationships given as keywords."""
        err = ctypes.c_void_p()
        obj = self._wrap(check_handle(lib.og_context_insert(self._h, encode(entity), ctypes.byref(err)), err))
        try:
            for key, value in values.items():
                obj[key] = value
        except BaseException:
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
        handle = lib.og_context_object_for_uri(self._h, encode(uri), ctypes.byref(err))
        if not handle:
            if err.value:
                check_handle(handle, err)
            return None
        return self._wrap(handle)

    def delete(self, obj: ManagedObject) -> None:
        """Marks ``obj`` deleted (delete rules apply); written at the next save."""
        err = ctypes.c_void_p()
        check(lib.og_context_delete(self._h, _target(obj), ctypes.byref(err)), err)

    @property
    def has_changes(self) -> bool:
        out = ctypes.c_bool()
        err = ctypes.c_void_p()
        check(lib.og_context_has_changes(self._h, ctypes.byref(out), ctypes.byref(err)), err)
        return out.value

    def save(self) -> None:
        """Validates and writes every change in one transaction. On failure
        nothing is written and the changes stay pending."""
        err = ctypes.c_void_p()
        check(lib.og_context_save(self._h, ctypes.byref(err)), err)

    def fetch(self, entity: Union[str, FetchRequest], sort: SortSpec = None, where: Where = None,
              *args: Any) -> List[ManagedObject]:
        """The objects of ``entity`` (subentities included) that satisfy
        ``where``: a Predicate, or a format string whose ``%@`` arguments follow
        (``ctx.fetch("Book", None, "pages > %@", 300)``). ``sort`` is a key or a
        list of keys; a "-" prefix sorts that key descending."""
        with _request(entity, sort, where, args) as request:
            err = ctypes.c_void_p()
            results = check_handle(lib.og_context_fetch(self._h, request._h, ctypes.byref(err)), err)
            return self._take_results(results)

    def count(self, entity: Union[str, FetchRequest], where: Where = None, *args: Any) -> int:
        """How many objects ``fetch`` would return."""
        with _request(entity, None, where, args) as request:
            out = ctypes.c_size_t()
            err = ctypes.c_void_p()
            check(lib.og_context_count(self._h, request._h, ctypes.byref(out), ctypes.byref(err)), err)
            return out.value

    def _release(self) -> None:
        """Releases the context. The objects it lent become unusable: the
        library reports their released handles (InvalidHandleError) instead of
        touching freed memory. Closing twice is harmless."""
        self._objects.clear()
        lib.og_context_release(self._h)

    def __repr__(self) -> str:
        return "<objectgraph.Context closed>" if self._closed else f"<objectgraph.Context objects={len(self._objects)}>"


def _buffer(kind: Any) -> Tuple[Any, Any]:
    value = kind()
    return value, ctypes.byref(value)


class _request:
    """A FetchRequest to run: the caller's own, or a temporary one released after use."""

    def __init__(self, entity: Union[str, FetchRequest], sort: SortSpec, where: Where, args: Tuple[Any, ...]) -> None:
        if isinstance(entity, FetchRequest):
            if sort is not None or where is not None:
                raise make_error("give the sort order and predicate to the FetchRequest, not to fetch()",
                                 ErrorCode.INVALID_ARGUMENT)
            self.request, self.owned = entity, False
        else:
            if args and not isinstance(where, str):
                raise make_error("format arguments need a format string in `where`", ErrorCode.INVALID_ARGUMENT)
            predicate = Predicate(where, *args) if isinstance(where, str) else where
            self.request, self.owned = FetchRequest(entity, sort, predicate), True

    def __enter__(self) -> FetchRequest:
        return self.request

    def __exit__(self, *exc: object) -> None:
        if self.owned:
            self.request.close()
