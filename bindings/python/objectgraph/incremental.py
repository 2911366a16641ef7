"""Incremental stores written in Python (Core Data's NSIncrementalStore).

A subclass of IncrementalStore keeps its data wherever it likes (another
database, a web service, a file format of its own) and answers the library's
requests through its hooks; the library does the rest as for any store: a
fetch's result is merged with the context's unsaved changes and prefetched,
objects come back as faults that fire through ``new_values_for_object``, a
to-many is read once through ``new_value_for_relationship``, and a save gives
new objects permanent IDs through ``obtain_permanent_ids``, then sends exactly
one SaveChangesRequest.

    class Notes(og.IncrementalStore):
        def load_metadata(self):
            self.metadata = {"NSStoreType": self.type, "NSStoreUUID": "..."}
        def execute_request(self, request, context): ...
        def new_values_for_object(self, object_id, context): ...

    og.register_incremental_store_type("Notes", Notes)
    store = coord.add_store("Notes", "notes.txt")     # a Notes instance

The classes (IncrementalStore, IncrementalStoreNode, SaveChangesRequest) are
_incremental_store.py's, exported here too; this module registers store types
and runs the library's callbacks into them. The library calls one C trampoline
per hook, defined once here; the state it keeps for a store is a number naming
the Python instance. A hook's exception never crosses into the library: it
fails the request with an og_error of the same domain and code, and the call
that ran the hook (``add_store``, ``fetch``, ``save``, a property read)
re-raises the exception itself.
"""

from __future__ import annotations

import builtins
import ctypes
import itertools
import threading
import weakref
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _layout
from ._adding import Adding, frame as _frame  # noqa: F401  (Adding: where it was defined before)
from ._call import call, call_borrowed, call_handle, call_optional
from ._incremental_store import IncrementalStore, IncrementalStoreNode, Reference, SaveChangesRequest, _prepare
from ._lib import (ERROR, INCREMENTAL_CREATE_FN, INCREMENTAL_DESTROY_FN, INCREMENTAL_FETCH_FN,
                   INCREMENTAL_LOAD_METADATA_FN, INCREMENTAL_NEW_VALUES_FN, INCREMENTAL_PERMANENT_IDS_FN,
                   INCREMENTAL_RELATIONSHIP_FN, INCREMENTAL_RELEASE_FN, INCREMENTAL_SAVE_FN, OK, lib)
from ._object_id import ObjectID
from ._util import decode, encode, keep, normalize
from .context import Context, _by_handle, context_for_handle, saving_context
from .errors import Error, ErrorCode, make_error
from .fetch import FetchRequest
from .graph import _nested
from .objects import ManagedObject
from .predicate import Predicate
from .properties import Relationship
from .values import take_value, to_value

__all__ = ["IncrementalStore", "IncrementalStoreNode", "SaveChangesRequest", "register_incremental_store_type",
           "registered_store_types"]

# og_object_set: the objects of a save request.
_INSERTED, _UPDATED, _DELETED, _LOCKED = 1, 2, 3, 4


# Registration.

class _Callbacks(ctypes.Structure):
    """og_incremental_store_callbacks, version 1."""
    _fields_ = [("version", ctypes.c_int), ("userdata", ctypes.c_void_p), ("create", INCREMENTAL_CREATE_FN),
                ("load_metadata", INCREMENTAL_LOAD_METADATA_FN), ("execute_fetch", INCREMENTAL_FETCH_FN),
                ("execute_save", INCREMENTAL_SAVE_FN), ("new_values", INCREMENTAL_NEW_VALUES_FN),
                ("new_value_for_relationship", INCREMENTAL_RELATIONSHIP_FN),
                ("obtain_permanent_ids", INCREMENTAL_PERMANENT_IDS_FN), ("destroy", INCREMENTAL_DESTROY_FN),
                ("release", INCREMENTAL_RELEASE_FN)]


_lock = threading.Lock()
# Registered types by key (the table's userdata): (type name, class).
_types: Dict[int, Tuple[str, "builtins.type[IncrementalStore]"]] = {}
# Instances by key (a store's state): weak, so that a store nobody holds (its coordinator
# gone) can go; the library's destroy drops the entry.
_instances: Dict[int, "weakref.ref[IncrementalStore]"] = {}
_keys = itertools.count(1)  # next() is atomic


def register_incremental_store_type(type: str, cls: "builtins.type[IncrementalStore]") -> None:
    """Registers ``cls``, a subclass of og.IncrementalStore, as the store type
    ``type`` (+registerStoreClass:forStoreType:): ``coord.add_store(type,
    path)`` then makes its stores. Unregister with og.unregister_store_type,
    which refuses while a store of the type is open. Raises TypeMismatchError
    (140006) for a class that is not such a subclass, UsageError (140002) for a
    name registered already, empty or built in."""
    if not (isinstance(cls, builtins.type) and issubclass(cls, IncrementalStore)):
        raise make_error(f"an incremental store type is a subclass of og.IncrementalStore, not {cls!r}",
                         ErrorCode.TYPE_MISMATCH)
    if not isinstance(type, str):
        raise make_error(f"a store type is named by a str, not {builtins.type(type).__name__}",
                         ErrorCode.INVALID_ARGUMENT)
    name = encode(type, "a store type")
    key = next(_keys)
    table = _Callbacks(1, key, *_TRAMPOLINES)
    with _lock:
        _types[key] = (type, cls)
    try:
        call(lib.og_incremental_store_type_register, name, ctypes.addressof(table))
    except BaseException:
        with _lock:
            _types.pop(key, None)
        raise


def registered_store_types() -> List[str]:
    """Every store type name, sorted (+registeredStoreTypes): "SQLite",
    "Binary", "InMemory" and the types registered from Python or C."""
    names = take_value(call_handle(lib.og_store_types_registered))
    return [str(n) for n in names] if isinstance(names, list) else []


# The callbacks. Each catches every exception: an og.Error becomes the og_error of the
# same domain and code the failed call reports, and the exception itself is kept (by the
# context that made the request, else for the thread) and re-raised by that call.

def _error_for(exc: BaseException, hook: str) -> Optional[int]:
    """A NEW og_error for a hook's exception (None if even that fails)."""
    try:
        if isinstance(exc, Error) and exc.code:
            made: Optional[int] = lib.og_error_new_in_domain(exc.domain.encode("utf-8", "replace"), int(exc.code),
                                                             (exc.message or builtins.type(exc).__name__).encode(
                                                                 "utf-8", "replace"), None)
            return made
        text = f"the incremental store's {hook} raised {builtins.type(exc).__name__}: {exc}"
        other: Optional[int] = lib.og_error_new(int(ErrorCode.STORE_OPERATION), text.encode("utf-8", "replace"), None)
        return other
    except BaseException:  # noqa: BLE001 - the call still fails, with the library's own error
        return None


def _fail(exc: BaseException, keeper: Optional["Context"], error: Any, hook: str) -> int:
    exc = normalize(exc)
    if keeper is not None:
        keeper._pending.append(exc)
    else:
        keep(exc)
    if error:
        error[0] = _error_for(exc, hook)
    return ERROR


def _instance(state: Optional[int], store: Optional[int] = None) -> IncrementalStore:
    with _lock:
        ref = _instances.get(state or 0)
    instance = ref() if ref is not None else None
    if instance is None:
        raise make_error("the Python object of this incremental store is gone (nothing holds it or its coordinator)",
                         ErrorCode.STORE_OPERATION, "NSCocoaErrorDomain")
    if store:
        instance._og_store = store
    return instance


def _context(handle: Optional[int], instance: IncrementalStore,
             store: Optional[int]) -> Tuple[Optional[Context], Optional[Context]]:
    """(the Context a hook is given, the one that keeps its exception) for an
    og_context handle: its wrapper; or, for a context Python did not make, one
    borrowed for the call, the exception then kept for the thread."""
    known = context_for_handle(handle)
    if known is not None:
        return known, known
    if not handle or handle == store:
        return None, None
    borrowed = Context._borrow(handle, instance._coordinator)
    if context_for_handle(handle) is borrowed:  # lent for this call only: not a wrapper to find again
        _by_handle.pop(handle, None)
    return borrowed, None


def _wrap_lent(context: Context, handles: Sequence[Optional[int]]) -> List[ManagedObject]:
    """The wrappers of objects the library lends for this call. A handle whose
    wrapper went, and that the context has not given back yet, may be among
    them: it is taken off the handles to give back first, so that wrapping
    one of them never gives back another."""
    if any(not h for h in handles):
        raise make_error("the library lent a NULL object", ErrorCode.OBJECT_INACCESSIBLE)
    if context._dead:
        context._collect_dead()
    context._released.difference_update(handles)
    return [context._wrap(h) for h in handles if h]


def _listed(answer: Any, hook: str, what: str) -> List[Any]:
    if isinstance(answer, (str, bytes, Mapping)) or not isinstance(answer, Iterable):
        raise make_error(f"{hook} must return a list for {what}, not {builtins.type(answer).__name__}",
                         ErrorCode.TYPE_MISMATCH)
    return list(answer)


def _uri(item: Any, hook: str, what: str) -> bytes:
    """An object ID a hook gave (an og.ObjectID, its URI, or the object), as the URI."""
    if isinstance(item, ManagedObject):
        item = item.object_id
    if not isinstance(item, str):
        raise make_error(f"{hook} returned a {builtins.type(item).__name__} for {what}: give og.ObjectIDs (or "
                         "managed objects)", ErrorCode.TYPE_MISMATCH)
    return encode(item, "an object ID")


def _add_ids(result: Optional[int], items: Iterable[Any], hook: str, what: str) -> None:
    for item in items:
        call(lib.og_incremental_result_add_object_id, result, _uri(item, hook, what))


def _row(row: Mapping[str, Any]) -> int:
    """A NEW dictionary value for a row of a dictionary fetch: to-ones as object IDs."""
    keys: List[bytes] = []
    values: List[int] = []
    try:
        for key, value in row.items():
            if not isinstance(key, str):
                raise make_error(f"a row's keys are property names, not {builtins.type(key).__name__}",
                                 ErrorCode.TYPE_MISMATCH)
            keys.append(encode(key, "a property name"))
            values.append(_object_id_value(value) if isinstance(value, (ObjectID, ManagedObject)) else to_value(value))
        key_array = (ctypes.c_char_p * max(1, len(keys)))(*keys)
        value_array = (ctypes.c_void_p * max(1, len(values)))(*values)
        return call_handle(lib.og_value_new_dictionary, key_array, value_array, len(values))
    finally:
        for handle in values:
            lib.og_value_release(handle)


def _object_id_value(value: Union[str, ManagedObject]) -> int:
    uri = value.object_id if isinstance(value, ManagedObject) else value
    return call_handle(lib.og_value_new_object_id_uri, encode(uri, "an object ID"))


def _node_value(value: Any, slot: Optional[_layout.Slot]) -> int:
    """A NEW og_value for a node's value: a to-one as an object ID, an attribute
    as the attribute's type takes it."""
    if isinstance(value, (ObjectID, ManagedObject)):
        return _object_id_value(value)
    if value is None:
        return int(lib.og_value_new_null())
    if slot is not None and slot.type is not None:
        return to_value(value, slot.type, slot.named)
    return to_value(value)


def _fetch_view(handle: Optional[int]) -> FetchRequest:
    """An og.FetchRequest holding what the lent request holds: a copy of it, its
    entity name, sort keys and predicate read back."""
    view = FetchRequest.__new__(FetchRequest)
    view._h = call_handle(lib.og_fetch_request_copy, handle)
    view._closed = False
    view.entity = decode(lib.og_fetch_request_entity_name(handle)) or ""
    view.sort = []
    view._predicate = None
    view._having = None
    view._properties = []
    view._group_by = []
    view._stores = []
    view._prefetch = []
    for index in range(lib.og_fetch_request_sort_count(handle)):
        ascending = ctypes.c_bool()
        key = call_borrowed(lib.og_fetch_request_sort_key_at, handle, index, ctypes.byref(ascending))
        view.sort.append((decode(key) or "", ascending.value))
    predicate = call_optional(lib.og_fetch_request_predicate, handle)
    view._predicate = Predicate._adopt(predicate) if predicate else None
    return view


def _on_create(userdata: Optional[int], path: Optional[bytes], configuration: Optional[bytes], error: Any) -> Optional[int]:
    try:
        with _lock:
            entry = _types.get(userdata or 0)
        if entry is None:
            raise make_error("this incremental store type is no longer registered", ErrorCode.STORE_INVALID_TYPE,
                             "NSCocoaErrorDomain")
        name, cls = entry
        frame = _frame()
        if frame is None:
            raise make_error(f"stores of the Python incremental store type {name!r} are added with "
                             "Coordinator.add_store", ErrorCode.INVALID_ARGUMENT)
        instance = cls.__new__(cls)
        if not isinstance(instance, IncrementalStore):
            raise make_error(f"{cls.__name__}.__new__ made a {builtins.type(instance).__name__}, not an "
                             "og.IncrementalStore", ErrorCode.TYPE_MISMATCH)
        instance.__dict__["_og_registered_type"] = name
        where, config = decode(path) or "", decode(configuration)
        _prepare(instance, frame.coordinator, config, where, frame.options)
        with _nested:
            instance.__init__(frame.coordinator, config, where, dict(frame.options))  # type: ignore[misc]
        key = next(_keys)
        with _lock:
            _instances[key] = weakref.ref(instance)
        frame.made.append(instance)
        return key
    except BaseException as exc:  # noqa: BLE001 - re-raised by add_store
        _fail(exc, None, error, "create")
        return None


def _on_load_metadata(state: Optional[int], error: Any) -> Optional[int]:
    try:
        instance = _instance(state)
        with _nested:
            instance.load_metadata()
        metadata = instance.metadata
        if not isinstance(metadata, Mapping) or not all(isinstance(k, str) for k in metadata):
            raise make_error(f"load_metadata must set metadata to a dict with str keys, not "
                             f"{builtins.type(metadata).__name__}", ErrorCode.TYPE_MISMATCH)
        registered = instance.__dict__.get("_og_registered_type", "")
        if instance.type != registered:
            raise make_error(f"the incremental store registered as {registered!r} says its type is {instance.type!r}; "
                             f"its type and NSStoreType must be {registered!r}", ErrorCode.STORE_TYPE_MISMATCH,
                             "NSCocoaErrorDomain")
        return to_value(dict(metadata))
    except BaseException as exc:  # noqa: BLE001 - re-raised by add_store
        _fail(exc, None, error, "load_metadata")
        return None


def _on_execute_fetch(state: Optional[int], store: Optional[int], request: Optional[int], context: Optional[int],
                      result: Optional[int], error: Any) -> int:
    keeper = None
    try:
        instance = _instance(state, store)
        hooked, keeper = _context(context, instance, store)
        view = _fetch_view(request)
        kind = view.result_type
        with _nested:
            answer = instance.execute_request(view, hooked)
        items = _listed(answer, "execute_request", f"a {kind!r} fetch of {view.entity}")
        if kind == "dictionary":
            for row in items:
                if not isinstance(row, Mapping):
                    raise make_error(f"execute_request answered a dictionary fetch with a "
                                     f"{builtins.type(row).__name__}: give one dict per row", ErrorCode.TYPE_MISMATCH)
                boxed = _row(row)
                try:
                    call(lib.og_incremental_result_add_row, result, boxed)
                finally:
                    lib.og_value_release(boxed)
        elif kind == "count" and len(items) == 1 and builtins.type(items[0]) is int:
            call(lib.og_incremental_result_set_count, result, items[0])
        else:
            what = "a count fetch (answer [n])" if kind == "count" else f"a fetch of {view.entity}"
            _add_ids(result, items, "execute_request", what)
        return OK
    except BaseException as exc:  # noqa: BLE001 - re-raised by the fetch
        return _fail(exc, keeper, error, "execute_request")


def _on_execute_save(state: Optional[int], store: Optional[int], request: Optional[int], context: Optional[int],
                     error: Any) -> int:
    keeper = None
    try:
        instance = _instance(state, store)
        hooked, keeper = _context(context, instance, store)
        if hooked is None:
            raise make_error("the library sent a save request without its context", ErrorCode.INVALID_ARGUMENT)
        handles: Dict[int, List[Optional[int]]] = {}
        for which in (_INSERTED, _UPDATED, _DELETED, _LOCKED):
            handles[which] = [call_handle(lib.og_save_changes_request_object_at, request, which, index)
                              for index in range(lib.og_save_changes_request_count(request, which))]
        objects = _wrap_lent(hooked, [h for which in handles for h in handles[which]])
        sets: Dict[int, List[ManagedObject]] = {}
        for which in handles:
            sets[which], objects = objects[:len(handles[which])], objects[len(handles[which]):]
        save = SaveChangesRequest(sets[_INSERTED], sets[_UPDATED], sets[_DELETED], sets[_LOCKED])
        with _nested:
            answer = instance.execute_request(save, hooked)
        if answer is not None and (not isinstance(answer, (list, tuple)) or len(answer)):
            raise make_error(f"execute_request answers a save request with [], not {answer!r}",
                             ErrorCode.TYPE_MISMATCH)
        return OK
    except BaseException as exc:  # noqa: BLE001 - re-raised by the save
        return _fail(exc, keeper, error, "execute_request")


def _on_new_values(state: Optional[int], store: Optional[int], object_id: Optional[bytes], context: Optional[int],
                   node: Optional[int], error: Any) -> int:
    keeper = None
    try:
        instance = _instance(state, store)
        hooked, keeper = _context(context, instance, store)
        oid = ObjectID(decode(object_id) or "")
        with _nested:
            answer = instance.new_values_for_object(oid, hooked)
        if not isinstance(answer, IncrementalStoreNode):
            raise make_error(f"new_values_for_object must return an og.IncrementalStoreNode, not "
                             f"{builtins.type(answer).__name__}", ErrorCode.TYPE_MISMATCH)
        if answer.object_id != oid:
            raise make_error(f"new_values_for_object returned the node of {answer.object_id} for {oid}",
                             ErrorCode.INVALID_ARGUMENT)
        layout = instance._coordinator._layouts.by_name.get(oid.entity)
        for key, value in answer.values.items():
            boxed = _node_value(value, layout.slots.get(key) if layout is not None else None)
            try:
                call(lib.og_incremental_node_set_value, node, encode(key, "a property name"), boxed)
            finally:
                lib.og_value_release(boxed)
        call(lib.og_incremental_node_set_version, node, answer.version)
        return OK
    except BaseException as exc:  # noqa: BLE001 - re-raised by the call that fired the fault
        return _fail(exc, keeper, error, "new_values_for_object")


def _relationship(instance: IncrementalStore, handle: Optional[int]) -> Tuple[Relationship, bool]:
    """The og.Relationship of a lent property handle, and whether it is a to-many."""
    name = decode(lib.og_property_name(handle)) or ""
    owner = decode(lib.og_entity_name(lib.og_property_entity(handle))) or ""
    layout = instance._coordinator._layouts.by_name.get(owner)
    if layout is None or name not in layout.slots:
        raise make_error(f"the library asked for the relationship {owner}.{name}, which the model lacks",
                         ErrorCode.UNKNOWN_KEY)
    relationship = layout.entity.property_named(name)
    assert isinstance(relationship, Relationship)
    return relationship, layout.slots[name].access in (_layout.TO_MANY, _layout.ORDERED)


def _on_new_value_for_relationship(state: Optional[int], store: Optional[int], prop: Optional[int],
                                   object_id: Optional[bytes], context: Optional[int], result: Optional[int],
                                   error: Any) -> int:
    keeper = None
    try:
        instance = _instance(state, store)
        hooked, keeper = _context(context, instance, store)
        relationship, to_many = _relationship(instance, prop)
        oid = ObjectID(decode(object_id) or "")
        with _nested:
            answer = instance.new_value_for_relationship(relationship, oid, hooked)
        what = f"the {'to-many' if to_many else 'to-one'} {relationship.name!r} of {oid}"
        if to_many:
            items = _listed(answer, "new_value_for_relationship", what)
        elif answer is None:
            items = []
        elif isinstance(answer, (str, ManagedObject)):
            items = [answer]
        else:
            raise make_error(f"new_value_for_relationship returns an og.ObjectID or None for {what}, not "
                             f"{builtins.type(answer).__name__}", ErrorCode.TYPE_MISMATCH)
        _add_ids(result, items, "new_value_for_relationship", what)
        return OK
    except BaseException as exc:  # noqa: BLE001 - re-raised by the call that read the relationship
        return _fail(exc, keeper, error, "new_value_for_relationship")


def _on_obtain_permanent_ids(state: Optional[int], store: Optional[int], objects: Any, count: int,
                             result: Optional[int], error: Any) -> int:
    keeper = saving_context()
    try:
        instance = _instance(state, store)
        if keeper is None:
            raise make_error("obtain_permanent_ids ran outside a save or obtain_permanent_ids of a Python context",
                             ErrorCode.INVALID_ARGUMENT)
        wrapped = _wrap_lent(keeper, [objects[index] for index in range(count)])
        with _nested:
            answer = instance.obtain_permanent_ids(wrapped)
        items = _listed(answer, "obtain_permanent_ids", f"{count} new objects")
        if len(items) != count:
            raise make_error(f"obtain_permanent_ids returned {len(items)} IDs for {count} objects: give one per object, "
                             "in order", ErrorCode.INVALID_ARGUMENT)
        _add_ids(result, items, "obtain_permanent_ids", "a new object")
        return OK
    except BaseException as exc:  # noqa: BLE001 - re-raised by the save
        return _fail(exc, keeper, error, "obtain_permanent_ids")


def _on_destroy(state: Optional[int]) -> None:
    try:
        with _lock:
            ref = _instances.pop(state or 0, None)
        instance = ref() if ref is not None else None
        if instance is not None:
            instance._og_store = 0  # released with the store
    except BaseException:  # noqa: BLE001 - nothing waits for a destroy
        pass


def _on_release(userdata: Optional[int]) -> None:
    try:
        with _lock:
            _types.pop(userdata or 0, None)
    except BaseException:  # noqa: BLE001 - nothing waits for a release
        pass


_FUNCTIONS = (_on_create, _on_load_metadata, _on_execute_fetch, _on_execute_save, _on_new_values,
              _on_new_value_for_relationship, _on_obtain_permanent_ids, _on_destroy, _on_release)
for _fn in _FUNCTIONS:
    setattr(_fn, "_og_callback", True)  # an exception raised as it is entered is kept (graph._unraisable)

# One set of trampolines for every registered type, kept for the life of the process:
# the registration's userdata names the type, a store's state its instance.
_TRAMPOLINES = (INCREMENTAL_CREATE_FN(_on_create), INCREMENTAL_LOAD_METADATA_FN(_on_load_metadata),
                INCREMENTAL_FETCH_FN(_on_execute_fetch), INCREMENTAL_SAVE_FN(_on_execute_save),
                INCREMENTAL_NEW_VALUES_FN(_on_new_values), INCREMENTAL_RELATIONSHIP_FN(_on_new_value_for_relationship),
                INCREMENTAL_PERMANENT_IDS_FN(_on_obtain_permanent_ids), INCREMENTAL_DESTROY_FN(_on_destroy),
                INCREMENTAL_RELEASE_FN(_on_release))
