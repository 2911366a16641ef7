"""What every context is built on: its handle, the exceptions its callbacks raised,
and the table of the managed objects it hands out (one wrapper per object, made once
and given back to the library when it goes), with results taken and objects inserted.
Context (context.py) adds everything else, through FetchingContext (_context_fetch.py).
"""

from __future__ import annotations

import collections
import ctypes
import struct
import weakref
from typing import Any, Callable, Deque, Dict, List, Optional, Set, Tuple, Type, TypeVar, Union, overload

from ._accessors import class_for, undeclared
from ._call import call, call_handle, call_quietly, check, check_handle
from ._columns import MIN_OBJECTS, NO_COLUMNS, Columns, ValueWatch
from ._handle import OwnedHandle
from ._layout import INT as INT_ACCESS, Layout
from ._lib import ERROR, lib
from ._util import _kept, collection_paused, encode, raise_kept
from .coordinator import Coordinator
from .errors import ErrorCode, UnknownEntityError, make_error, suggest
from .objects import ManagedObject, _target
from .values import INT64_MAX, INT64_MIN

__all__ = ["ContextBase"]

_T = TypeVar("_T")
_O = TypeVar("_O", bound=ManagedObject)


class ContextBase(OwnedHandle):
    """A context's handle, the exceptions its callbacks raised, and its objects."""

    _coordinator: Coordinator

    def _setup_objects(self, handle: int, coordinator: Coordinator) -> None:
        """Sets up everything here for the context ``handle``; the context is open after."""
        # Exceptions raised by callbacks, re-raised by the next context call. A deque: a queue
        # context's blocks and observers append on the queue's thread while another thread
        # may be taking them (appends and pops of a deque are atomic).
        self._pending: Deque[BaseException] = collections.deque()
        self._coordinator = coordinator
        # The coordinator's layouts by entity name (made once with it): read per insert.
        self._layout_by_name: Dict[str, Layout] = coordinator._layouts.by_name
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
        # The callback of the wrappers' references: notes the reference of a wrapper gone, on
        # whatever thread collected it (an atomic append), for _collect_dead. The deque's own
        # method rather than a Python function: no frame per wrapper gone, and no reference
        # to the context (a late callback after close appends to a list nobody reads).
        self._gone = self._dead.append
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
        # The flag of the column caches made since the context's last change (_columns.py).
        self._value_watch = ValueWatch()
        self._h = handle
        # The handle as a C value, for the one-call insert (_insert_int64s).
        self._h_arg = ctypes.c_void_p(handle)
        self._closed = False

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
        status, _ = call_quietly(lib.og_context_has_changes, self._h, ctypes.byref(ctypes.c_bool()))
        return bool(status != ERROR)

    def _call(self, function: Any, *args: Any) -> int:
        """``function(handle, *args, &error)`` for this context (_call.py's ``call``): an
        exception a callback raised during the call comes first."""
        return call(function, self._h, *args, context=self)

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
            if count == 1:  # no arrays to make
                return [self._wrap(call_handle(lib.og_results_object_at, results, 0))]
            handles, entities = _objects_of(results, count)
            out: List[ManagedObject] = []
            self._wrap_all(handles, entities, NO_COLUMNS, out)
            return out
        finally:
            lib.og_results_release(results)

    def _take_bulk(self, results: int, count: int, counter: ctypes.c_uint64) -> List[ManagedObject]:
        """Every object and entity in one call; the wrappers share a Columns."""
        try:
            handles, entities = _objects_of(results, count)
            live = self._value_watch.current(self._h)
        except BaseException:
            lib.og_results_release(results)
            raise
        columns = Columns(results, counter, count, live, handles, self._objects)
        self._columns.add(columns)
        out: List[ManagedObject] = []
        # Each wrapper holds references, so CPython's cycle collector tracks it, and making
        # a large result's wrappers set off dozens of collections over everything alive: a
        # third of a 200,000-object fetch. The loop makes no cycles; collection resumes after.
        with collection_paused():
            self._wrap_all(handles, entities, columns, out)
        return out

    def _wrap_all(self, handles: List[int], entities: List[int], columns: Columns,
                  out: List[ManagedObject]) -> None:
        """Appends to `out` the wrapper of each object of a result (made when the object
        has none alive), given its handle and its entity's. With `columns` (a large result)
        its numbers are read through them; otherwise one by one."""
        # Dead references go before, not after: the wrappers made here are alive, and the
        # scan after a large result would visit every one of them for nothing.
        self._prune()
        known = self._objects
        released = self._released
        make_ref = _HandleRef
        new = object.__new__
        gone = self._gone
        append = out.append
        last_entity, cls, layout = None, None, None  # type: Any, Any, Any
        # The entity is read by index, and only for a new wrapper: pairing the lists with
        # zip would make and unpack a tuple for every object.
        for row, handle in enumerate(handles):
            found = known.get(handle)
            if found is None or (wrapper := found()) is None:
                if released:
                    released.discard(handle)
                entity = entities[row]
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
            elif columns is not NO_COLUMNS:  # a small result leaves a wrapper's large one in place
                wrapper._columns = columns
                wrapper._row = row
            append(wrapper)
        # The next scan waits until the table doubles past them.
        self._prune_at = max(self._prune_at, 2 * len(known))

    def _entity_name(self, entity: Any) -> Any:
        """The entity a class declared for one stands for (``ctx.fetch(Book)``); any
        other argument as it is. Raises UsageError for a class declared for no entity,
        or one whose objects here are not its instances."""
        if not isinstance(entity, type):
            return entity
        name = entity._declared_entity if issubclass(entity, ManagedObject) else None
        if name is None:
            raise make_error(f"{entity.__qualname__} is not declared for an entity: declare it as "
                             f"class {entity.__name__}(og.TypedObject, entity=\"...\")", ErrorCode.INVALID_ARGUMENT)
        layout = self._coordinator._layouts.by_name.get(name)
        if layout is not None and not issubclass(class_for(layout), entity):
            missing = undeclared(entity, layout)
            why = (f"it declares {', '.join(map(repr, missing))}, which entity {name!r} of this model does not have"
                   if missing else f"objects of {name!r} were used before the class was declared: import "
                                   f"{entity.__module__} before the coordinator's first object of {name!r}")
            raise make_error(f"{entity.__qualname__} is not the class of entity {name!r} here: {why}",
                             ErrorCode.INVALID_ARGUMENT)
        return name

    @overload
    def insert(self, entity: Type[_O], **values: Any) -> _O: ...

    @overload
    def insert(self, entity: str, **values: Any) -> ManagedObject: ...

    def insert(self, entity: Union[str, Type[ManagedObject]], **values: Any) -> ManagedObject:
        """Inserts a new object of ``entity`` (its name, or the class declared for
        it) with its default values, then sets the attributes and relationships
        given as keywords."""
        # A new object's entity is the one named: no need to ask the library for it.
        if type(entity) is str:  # (one check on the hot path)
            name: Any = entity
            layout = self._layout_by_name.get(entity)
        else:
            name = self._entity_name(entity)
            layout = self._layout_by_name.get(name) if type(name) is str else None
        if layout is not None and len(values) > 1:
            # Plain ints for integer attributes (the common case of bulk work): inserted and
            # set in one call, without an error slot. A refused call inserted nothing; the
            # general way below repeats it and raises. Written out here, without the helpers'
            # call frames: they cost as much as the call into the library.
            plan = layout.integer_keys.get(tuple(values), False)
            if plan is False:
                plan = _integer_plan(layout, values)
            if plan is not None:
                # Integers only: anything else (a float, text, a number past 64 bits) fails the
                # pack. A bool packs as 1 or 0, which is what setting it stores.
                try:
                    packed = plan[1](*values.values())
                except struct.error:
                    packed = None
                handle = packed and _insert_int64s(self._h_arg, layout.key, plan[0], packed, plan[2], None)
                if handle:
                    # A new object's handle is new: no wrapper gone held it, so it is in neither
                    # list, and the handles of wrappers gone are given back only once a batch
                    # of them waits (in a loop whose objects are dropped, one goes per insert).
                    if len(self._dead) + len(self._released) >= _RELEASE_BATCH:
                        self._give_back_released(keep=handle)
                    obj = _new_object(layout.cls or class_for(layout))
                    obj._h, obj._context, obj._layout, obj._columns = handle, self, layout, NO_COLUMNS  # type: ignore[assignment]
                    # _remember, written out.
                    ref = _HandleRef(obj, self._gone)
                    ref.handle = handle
                    objects = self._objects
                    objects[handle] = ref
                    if len(objects) >= self._prune_at:
                        self._prune()
                    return obj
        err = ctypes.c_void_p()
        try:
            # A direct call, not call_handle: inserting is a hot path (_call.py).
            handle = check_handle(lib.og_context_insert(self._h, layout.key if layout is not None else encode(name),
                                                        ctypes.byref(err)), err, self)
        except UnknownEntityError as error:
            suggest(error, self._coordinator.model)
            raise
        # Handles are given back only once the library has accepted a call on this thread.
        if self._released or self._dead:
            self._give_back_released(keep=handle)
        if layout is None:
            obj = self._wrap(handle)
        else:
            # ManagedObject.__init__'s fields, set here without its call frame (as _take_bulk does).
            obj = _new_object(class_for(layout))
            # (Every ContextBase is a Context.)
            obj._h, obj._context, obj._layout, obj._columns = handle, self, layout, NO_COLUMNS  # type: ignore[assignment]
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

    def delete(self, obj: ManagedObject) -> None:
        """Marks ``obj`` deleted (delete rules apply); written at the next save."""
        self._call(lib.og_context_delete, _target(obj))

    def _detach_columns(self) -> None:
        self._value_watch.end()
        for columns in list(self._columns):
            columns.detach()


_new_object: Callable[[type], ManagedObject] = object.__new__  # a wrapper without its __init__
# og_context_insert_int64s without ctypes' conversion of each argument, for the one-call
# insert only: every argument is the binding's own and already a C value ctypes passes as
# it is (the context handle as a c_void_p, the entity's name as bytes, the plan's slot
# array and count, the packed values as bytes, None for no error slot). The conversions
# cost a tenth of an insert. The declared function (lib.og_context_insert_int64s) keeps
# its argument checks for every other caller.
_insert_int64s = lib._FuncPtr(("og_context_insert_int64s", lib))
_insert_int64s.restype = ctypes.c_void_p

# How many handles of wrappers gone are given back together.
_RELEASE_BATCH = 256


def _objects_of(results: int, count: int) -> Tuple[List[int], List[int]]:
    """Every object handle of `results` and its entity handle, in one call (og_results_objects),
    as lists of ints: memoryview converts them in C, where indexing the ctypes arrays would
    make each int in Python (a third of a large fetch's wrapping)."""
    handles = (ctypes.c_void_p * count)()
    entities = (ctypes.c_void_p * count)()
    call(lib.og_results_objects, results, ctypes.addressof(handles), ctypes.addressof(entities), count)
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


def _take_all(items: "Deque[_T]") -> List[_T]:
    """Empties a deque that other threads may append to (each pop is atomic): what it
    holds now; what is appended meanwhile waits for the next call. Raising IndexError at
    the end of every call cost more than the rest of it."""
    taken: List[_T] = []
    try:
        for _ in range(len(items)):
            taken.append(items.popleft())
    except IndexError:  # another thread took some first
        pass
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


def _integer_plan(layout: Layout, values: Dict[str, Any]) -> Optional[Tuple[Any, Callable[..., bytes], Any]]:
    """The slots, the packing function and the count of keyword values that name integer
    attributes only, made once per set of names; None when a name is not an integer
    attribute."""
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
            struct.Struct(f"={len(names)}q").pack,
            ctypes.c_size_t(len(names)),  # the count, as og_context_insert_int64s takes it
        ) if every else None
    return plan  # type: ignore[no-any-return]


def _set_integers(obj: ManagedObject, values: Dict[str, Any]) -> Dict[str, Any]:
    """Sets the plain-int values of integer attributes in one call
    (og_object_set_int64s_at); returns the values left to set one by one."""
    plan = _integer_plan(obj._layout, values)
    if plan is not None:
        slots, pack, _ = plan
        numbers = list(values.values())
        # Plain ints only (not bools), packed in one call; one out of range fails the pack.
        if list(map(type, numbers)).count(int) == len(numbers):
            try:
                packed = pack(*numbers)
            except struct.error:
                return _set_some_integers(obj, values)
            err = ctypes.c_void_p()  # a direct call: inserting is a hot path (_call.py)
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
        err = ctypes.c_void_p()  # a direct call: inserting is a hot path (_call.py)
        check(lib.og_object_set_int64s_at(obj._h, (ctypes.c_size_t * n)(*indexes), (ctypes.c_int64 * n)(*numbers), n,
                                          ctypes.byref(err)), err)
    elif n == 1:
        rest = values  # one value: the ordinary path
    return rest
