"""Managed objects and the set-like view of their to-many relationships.

A ManagedObject wraps an og_object lent by its Context. Each entity gets a
subclass with one property per attribute and relationship, made from the slot
layout once, so reading ``book.pages`` is one property call and one typed
foreign call. A class declared for an entity (``class Book(og.TypedObject,
entity="Book")``, typed.py) is registered here, and the entity's class derives
from it (_accessors.py).
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import sys
from collections.abc import MutableSet
from typing import TYPE_CHECKING, Any, ClassVar, Dict, Iterable, Iterator, List, Optional, TypeVar, Union, cast, overload

from . import _layout
from ._call import call, call_flag, call_handle, call_out, call_owned, check
from ._columns import NO_COLUMNS, Columns
from ._lib import ERROR, NULL, OK, lib
from ._object_id import ObjectID
from ._util import encode, encode_value, take_string
from .enums import AttributeType
from .errors import ErrorCode, did_you_mean, make_error, suggest
from .values import Boxable, Value, check_int64, from_seconds, take_value, to_double, to_seconds, to_value

if TYPE_CHECKING:
    from .context import Context
    from .entity import Entity

__all__ = ["ManagedObject", "RelatedSet", "RelatedOrderedSet", "declared_class"]

_byref = ctypes.byref
_c_int64 = ctypes.c_int64
_c_double = ctypes.c_double
_c_void_p = ctypes.c_void_p


class ManagedObject(Boxable):
    """An object of the graph. Its attributes and relationships read and write
    as Python attributes (``book.title``) or items (``book["title"]``); items
    always work, even for a property named like a method here.

    Objects are instances of a subclass named after their entity. A subclass
    declared with ``entity=`` (``class Book(og.TypedObject, entity="Book")``) is
    that entity's class: its objects are instances of it, in every coordinator
    whose entity of that name has the properties it declares."""

    __slots__ = ("_h", "_context", "_layout", "_columns", "_row", "__weakref__")

    # The entity a subclass was declared for (``entity=``); inherited by its subclasses.
    _declared_entity: ClassVar[Optional[str]] = None

    def __init_subclass__(cls, *, entity: Optional[str] = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if entity is None:
            return
        if not isinstance(entity, str) or not entity:
            raise make_error(f"entity= names an entity, not {entity!r}", ErrorCode.INVALID_ARGUMENT)
        cls._declared_entity = entity
        # The last class declared for a name wins, as a module imported again replaces its classes.
        _declared[entity] = cls

    def __init__(self, context: "Context", handle: int, layout: _layout.Layout) -> None:
        # Context._take_bulk sets these same fields without calling here: keep them in step.
        self._h: int = handle
        self._context = context
        self._layout = layout
        # The fetch result this object was last read from in bulk, and its row there.
        self._columns: Columns = NO_COLUMNS
        self._row = 0

    # Properties of the object itself.

    @property
    def context(self) -> "Context":
        return self._context

    @property
    def entity(self) -> "Entity":
        """The entity, as the model hands it out (``book.entity is model["Book"]``)."""
        handle = lib.og_object_entity(self._h)
        if not handle:
            raise make_error(f"the {self._layout.name} object is no longer accessible", ErrorCode.OBJECT_INACCESSIBLE)
        if not self._layout.entity.model.closed:
            return self._layout.entity
        # The Model wrapper was closed: the context's own handle still works.
        return self._context.coordinator.model._entity(handle)

    @property
    def entity_name(self) -> str:
        return self._layout.name

    @property
    def object_id(self) -> str:
        """The object ID as a URI: x-coredata:///Book/t... until saved,
        x-coredata://<store UUID>/Book/p<key> after. It is an og.ObjectID, so
        as a predicate argument it matches this object."""
        value = take_value(call_handle(lib.og_value_new_object_id, self._h))
        return value if isinstance(value, ObjectID) else ObjectID(value or "")

    def _box(self) -> int:
        """The object as a predicate argument, or a value a predicate is evaluated on."""
        return call_handle(lib.og_value_new_object, self._h)

    # Every call for an object passes its context: a call may run callbacks (a read that
    # fires a fault runs awake_from_fetch; a write runs observers of the change), and the
    # exception one raised is raised by the call, with the library's error as its context.

    def _flag(self, getter: Any) -> bool:
        return call_flag(getter, self._h, context=self._context)

    @property
    def has_temporary_id(self) -> bool:
        return self._flag(lib.og_object_has_temporary_id)

    @property
    def is_inserted(self) -> bool:
        return self._flag(lib.og_object_is_inserted)

    @property
    def is_updated(self) -> bool:
        return self._flag(lib.og_object_is_updated)

    @property
    def has_changes(self) -> bool:
        """True when the object is inserted, updated (a transient's change
        counts) or deleted. Core Data: ``hasChanges``."""
        return self._flag(lib.og_object_has_changes)

    def validate_for_insert(self) -> None:
        """Runs the checks a save runs for a new object, without saving: the
        property rules, relationship counts, validation predicates and the
        entity's validators. Raises ValidationError (1560 with ``details`` for
        several); a hook's og.Error keeps its domain and code."""
        self._validate(0)

    def validate_for_update(self) -> None:
        """As validate_for_insert, for a changed object."""
        self._validate(1)

    def validate_for_delete(self) -> None:
        """The checks a save runs for a deleted object: the deny delete rules
        and the validate_for_delete hook."""
        self._validate(2)

    def _validate(self, kind: int) -> None:
        call(lib.og_object_validate, self._h, kind, context=self._context)

    @property
    def is_deleted(self) -> bool:
        return self._flag(lib.og_object_is_deleted)

    def to_dict(self) -> Dict[str, Value]:
        """The attributes' values by name (relationships left out)."""
        return {
            name: self._read(slot)
            for name, slot in self._layout.slots.items()
            if slot.access not in (_layout.TO_ONE, _layout.TO_MANY)
        }

    # Access by slot, for every kind of property; the error path of the fast accessors.

    # Slot reads and writes are a hot path: they call the library directly, with
    # an error slot of their own, and raise through _call.check (_call.py).

    def _read(self, slot: _layout.Slot) -> Any:
        access = slot.access
        err = _c_void_p()
        if access == _layout.INT:
            i64 = _c_int64()
            status = lib.og_object_get_int64_at(self._h, slot.index, _byref(i64), _byref(err))
            return i64.value if check(status, err, self._context) == OK else None
        if access == _layout.DOUBLE:
            d = _c_double()
            status = lib.og_object_get_double_at(self._h, slot.index, _byref(d), _byref(err))
            return d.value if check(status, err, self._context) == OK else None
        if access == _layout.VALUE:
            out = _c_void_p()
            status = lib.og_object_get_value_at(self._h, slot.index, _byref(out), _byref(err))
            value = take_value(out.value) if status != ERROR else None  # taken before anything is raised
            check(status, err, self._context)
            if slot.type == AttributeType.BOOLEAN and value is not None:
                return bool(value)
            return value
        if access == _layout.TO_ONE:
            out = _c_void_p()
            status = lib.og_object_get_object(self._h, slot.key, _byref(out), _byref(err))
            if check(status, err, self._context) == OK and out.value:
                return self._context._wrap(out.value)
            return None
        if access == _layout.ORDERED:
            return RelatedOrderedSet(self, slot)
        return RelatedSet(self, slot)

    def _write(self, slot: _layout.Slot, value: Any) -> None:
        access = slot.access
        handle = self._h
        err = _c_void_p()
        if access == _layout.TO_MANY or access == _layout.ORDERED:
            # The members, and their order for an ordered relationship, in one call.
            self._set_related(slot.key, list(value or []))
            return
        if access == _layout.TO_ONE:
            status = lib.og_object_set_object(handle, slot.key, _target(value), _byref(err))
        elif value is None:
            status = lib.og_object_set_null(handle, slot.key, _byref(err))
        elif access == _layout.INT and type(value) is int:  # bools go the boxed way
            status = lib.og_object_set_int64_at(handle, slot.index, check_int64(value), _byref(err))
        elif access == _layout.DOUBLE and type(value) in (float, int):
            status = lib.og_object_set_double_at(handle, slot.index, to_double(value), _byref(err))
        else:
            boxed = to_value(value, slot.type, slot.named)
            try:
                status = lib.og_object_set_value_at(handle, slot.index, boxed, _byref(err))
            finally:
                lib.og_value_release(boxed)
        check(status, err, self._context)

    # Items and attributes.

    def __getitem__(self, key: str) -> Any:
        accessors = self._layout.accessors.get(key)
        if accessors is None:
            try:
                return self.get_value(key)  # a key path, or an unknown key the library names
            except Exception as error:
                suggest(error, self._context._coordinator.model)
                raise
        return accessors[0](self)

    def __setitem__(self, key: str, value: Any) -> None:
        accessors = self._layout.accessors.get(key)
        if accessors is None:
            try:
                self.set_value(key, value)  # the library names the unknown key
            except Exception as error:
                suggest(error, self._context._coordinator.model)
                raise
        else:
            accessors[1](self, value)

    if TYPE_CHECKING:
        # The entity's properties are typed Any, read and written, so `book.title = "Mort"`
        # passes mypy --strict; typed classes (og.TypedObject, written by `objectgraph
        # codegen`) type them exactly.
        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...
    elif sys.version_info < (3, 10):
        def __getattr__(self, name: str) -> Any:
            # Only reached for names that are not accessors of the entity's class. From 3.10
            # the interpreter's own message suggests the closest name (from __dir__): a
            # __getattr__ there would cost every attribute read its specialised lookup.
            raise AttributeError(f"{self._layout.name} has no attribute or relationship {name!r}"
                                 + did_you_mean(name, self._layout.slots))

    def __dir__(self) -> Iterable[str]:
        return list(super().__dir__()) + list(self._layout.slots)

    def __repr__(self) -> str:
        try:
            # The URI's text alone: one call, without the typed ID value.
            uri = take_string(call_handle(lib.og_object_id_uri, self._h))
            if self.is_deleted and not self.is_inserted:
                return f"<{self._layout.name} {uri} (deleted)>"
            values = " ".join(f"{k}={_short(v)}" for k, v in self.to_dict().items())
            return f"<{self._layout.name} {uri}{' ' if values else ''}{values}>"
        except Exception:
            return f"<{self._layout.name} (inaccessible)>"

    # Typed access by key: one call each, no boxing.

    def get_int64(self, key: str) -> int:
        value = call_out(lib.og_object_get_int64, _c_int64, self._h, encode(key), context=self._context)
        # As Core Data's scalar accessors: an unset value reads as 0 (the generic getter gives None).
        return 0 if value is None else int(value)

    def set_int64(self, key: str, value: int) -> None:
        call(lib.og_object_set_int64, self._h, encode(key), check_int64(value), context=self._context)

    def get_double(self, key: str) -> float:
        value = call_out(lib.og_object_get_double, _c_double, self._h, encode(key), context=self._context)
        # As Core Data's scalar accessors: an unset value reads as 0.0 (the generic getter gives None).
        return 0.0 if value is None else float(value)

    def set_double(self, key: str, value: float) -> None:
        call(lib.og_object_set_double, self._h, encode(key), to_double(value), context=self._context)

    def get_bool(self, key: str) -> bool:
        # As Core Data's scalar accessors: an unset value reads as False (the generic getter gives None).
        return bool(call_out(lib.og_object_get_bool, ctypes.c_bool, self._h, encode(key), context=self._context))

    def set_bool(self, key: str, value: bool) -> None:
        call(lib.og_object_set_bool, self._h, encode(key), bool(value), context=self._context)

    def get_date(self, key: str) -> Optional[_dt.datetime]:
        seconds = call_out(lib.og_object_get_date, _c_double, self._h, encode(key), context=self._context)
        return None if seconds is None else from_seconds(seconds)

    def set_date(self, key: str, value: Union[_dt.datetime, float]) -> None:
        """Sets a date from a datetime (naive = UTC) or seconds since 1970 UTC."""
        seconds = to_seconds(value) if isinstance(value, _dt.datetime) else to_double(value)
        call(lib.og_object_set_date, self._h, encode(key), seconds, context=self._context)

    def get_string(self, key: str) -> Optional[str]:
        out = _c_void_p()
        length = ctypes.c_size_t()
        try:
            status = call(lib.og_object_get_string_n, self._h, encode(key), _byref(out), _byref(length),
                          context=self._context)
        finally:
            text = take_string(out.value, length.value)  # freed whatever is raised
        return None if status == NULL else (text or "")

    def set_string(self, key: str, value: Union[str, bytes]) -> None:
        raw = value if isinstance(value, bytes) else encode_value(value)
        call(lib.og_object_set_string_n, self._h, encode(key), raw, len(raw), context=self._context)

    def get_data(self, key: str) -> Optional[bytes]:
        out = _c_void_p()
        length = ctypes.c_size_t()
        try:
            status = call(lib.og_object_get_data, self._h, encode(key), _byref(out), _byref(length),
                          context=self._context)
            if status == NULL:
                return None
            return ctypes.string_at(out.value, length.value) if out.value and length.value else b""
        finally:
            lib.og_free(out.value)

    def set_data(self, key: str, value: bytes) -> None:
        data = bytes(value)
        call(lib.og_object_set_data, self._h, encode(key), data, len(data), context=self._context)

    def set_null(self, key: str) -> None:
        call(lib.og_object_set_null, self._h, encode(key), context=self._context)

    def get_value(self, key: str) -> Value:
        """Any attribute by key, through the boxed og_value path."""
        return call_owned(lib.og_object_get_value, take_value, self._h, encode(key), context=self._context)

    def _set_boxed(self, setter: Any, key: str, value: Any) -> None:
        """Sets ``value`` by key as an og_value, typed as the attribute ``key`` takes it."""
        slot = self._layout.slots.get(key)
        boxed = to_value(value, slot.type if slot is not None else None, slot is not None and slot.named)
        try:
            call(setter, self._h, encode(key), boxed, context=self._context)
        finally:
            lib.og_value_release(boxed)

    def set_value(self, key: str, value: Value) -> None:
        self._set_boxed(lib.og_object_set_value, key, value)

    # The object graph: faults, key paths, primitive, changed and committed values.

    @property
    def is_fault(self) -> bool:
        """Whether the object's values are not loaded yet."""
        return self._flag(lib.og_object_is_fault)

    @property
    def faulting_state(self) -> int:
        state: int = call_out(lib.og_object_faulting_state, _c_int64, self._h, context=self._context)
        return state

    def has_fault_for_relationship(self, name: str) -> bool:
        """Whether relationship ``name`` is not loaded yet; never loads it."""
        return call_flag(lib.og_object_has_fault_for_relationship, self._h, encode(name), context=self._context)

    def _take(self, handle: Optional[int]) -> Any:
        """Takes a NEW og_value, its objects wrapped by this object's context."""
        return take_value(handle, self._context)

    def value_for_key_path(self, key_path: str) -> Any:
        """The value at a dotted key path ("author.name", "books.@count"): to-ones
        as objects, to-manys as lists."""
        return call_owned(lib.og_object_get_value_for_key_path, self._take, self._h, encode(key_path),
                          context=self._context)

    def primitive(self, key: str) -> Value:
        """An attribute read without change tracking (primitiveValueForKey:)."""
        return call_owned(lib.og_object_get_primitive_value, take_value, self._h, encode(key), context=self._context)

    def set_primitive(self, key: str, value: Value) -> None:
        """Writes an attribute without change tracking, inverse or validation:
        the object is not marked updated."""
        self._set_boxed(lib.og_object_set_primitive_value, key, value)

    def changed_values(self) -> Dict[str, Any]:
        """Persistent properties changed since the last fetch or save, with
        their new values."""
        return call_owned(lib.og_object_changed_values, self._take, self._h, context=self._context)  # type: ignore[return-value]

    def committed_values(self, keys: Optional[Iterable[str]] = None) -> Dict[str, Any]:
        """The last fetched or saved values of ``keys`` (every persistent
        attribute and to-one when None)."""
        if keys is None:
            array, count = None, 0
        else:
            names = [encode(k) for k in keys]
            array, count = (ctypes.c_char_p * max(1, len(names)))(*names), len(names)
        return call_owned(lib.og_object_committed_values, self._take, self._h, array, count,  # type: ignore[return-value]
                          context=self._context)

    def validate_value(self, key: str, value: Any) -> None:
        """Checks ``value`` against the model's rules for ``key`` and the
        entity's validate_value hook; raises ValidationError, changes nothing."""
        self._set_boxed(lib.og_object_validate_value, key, value)
        self._context._raise_pending()

    # Relationships by key.

    def _related(self, key: bytes) -> List["ManagedObject"]:
        results = call_handle(lib.og_object_get_related, self._h, key, context=self._context)
        return self._context._take_results(results)

    def _related_count(self, key: bytes) -> int:
        results = call_handle(lib.og_object_get_related, self._h, key, context=self._context)
        try:
            return int(lib.og_results_count(results))
        finally:
            lib.og_results_release(results)

    def _add_related(self, key: bytes, other: "ManagedObject") -> None:
        call(lib.og_object_add_related, self._h, key, _target(other), context=self._context)

    def _remove_related(self, key: bytes, other: "ManagedObject") -> None:
        call(lib.og_object_remove_related, self._h, key, _target(other), context=self._context)

    def _insert_related_at(self, key: bytes, other: "ManagedObject", index: int) -> None:
        call(lib.og_object_insert_related_at, self._h, key, _target(other), index, context=self._context)

    def _remove_related_at(self, key: bytes, index: int) -> None:
        call(lib.og_object_remove_related_at, self._h, key, index, context=self._context)

    def _set_related(self, key: bytes, others: List["ManagedObject"]) -> None:
        handles = (_c_void_p * max(len(others), 1))(*[_target(o) for o in others])
        call(lib.og_object_set_related, self._h, key, handles, len(others), context=self._context)


# Classes declared for entities, by entity name (ManagedObject.__init_subclass__).
_declared: Dict[str, type] = {}


def declared_class(entity: str) -> Optional[type]:
    """The class declared for entities named ``entity``, or None."""
    return _declared.get(entity)


_O = TypeVar("_O", bound=ManagedObject)


def _target(value: Any) -> Optional[int]:
    """The handle to pass for a managed object argument (None passes NULL)."""
    if value is None:
        return None
    if not isinstance(value, ManagedObject):
        raise make_error(
            f"a relationship holds managed objects, not {type(value).__name__}", ErrorCode.TYPE_MISMATCH
        )
    return value._h


class RelatedSet(MutableSet[_O]):
    """A live, set-like view of a to-many relationship. Adding and removing
    update the inverse relationship too. Generic in the destination's class:
    typed entity classes declare ``books: og.ToMany[Book]``, read as a
    ``RelatedSet[Book]``."""

    __slots__ = ("_owner", "_slot")

    def __init__(self, owner: ManagedObject, slot: _layout.Slot) -> None:
        self._owner = owner
        self._slot = slot

    def _members(self) -> List[_O]:
        return cast(List[_O], self._owner._related(self._slot.key))

    def __iter__(self) -> Iterator[_O]:
        return iter(self._members())

    def __len__(self) -> int:
        return self._owner._related_count(self._slot.key)

    def __contains__(self, item: object) -> bool:
        return any(member is item for member in self._members())

    def add(self, item: _O) -> None:
        self._owner._add_related(self._slot.key, item)

    def discard(self, item: _O) -> None:
        if item in self:
            self._owner._remove_related(self._slot.key, item)

    def update(self, items: Iterable[_O]) -> None:
        for item in items:
            self.add(item)

    def _replace(self, items: Optional[Iterable[ManagedObject]]) -> None:
        wanted = list(items or [])
        current = self._members()
        keep = {id(item) for item in wanted}
        have = {id(item) for item in current}
        for member in current:
            if id(member) not in keep:
                self._owner._remove_related(self._slot.key, member)
        for item in wanted:
            if id(item) not in have:
                self._owner._add_related(self._slot.key, item)

    def __repr__(self) -> str:
        try:
            return f"{type(self).__name__}({self._members()!r})"
        except Exception:
            return f"{type(self).__name__}(<inaccessible>)"


class RelatedOrderedSet(RelatedSet[_O]):
    """A live view of an ordered to-many relationship (NSOrderedSet): a set
    whose members keep their order, read and edited by index. Every edit keeps
    the inverse relationship and marks the owner updated. Adding or inserting an
    object that is already a member leaves it where it is; assigning the
    relationship a list sets both its members and their order."""

    __slots__ = ()

    @overload
    def __getitem__(self, index: int) -> _O: ...

    @overload
    def __getitem__(self, index: slice) -> List[_O]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[_O, List[_O]]:
        members = self._members()
        if isinstance(index, slice):
            return members[index]
        return members[_position(index, len(members))]

    def __setitem__(self, index: int, item: _O) -> None:
        members = self._members()
        i = _position(index, len(members))
        _target(item)
        if members[i] is item:
            return
        self._owner._remove_related_at(self._slot.key, i)
        self._owner._insert_related_at(self._slot.key, item, min(i, len(self._members())))

    def __delitem__(self, index: int) -> None:
        self._owner._remove_related_at(self._slot.key, _position(index, len(self)))

    def __reversed__(self) -> Iterator[_O]:
        return reversed(self._members())

    def index(self, item: _O) -> int:
        for i, member in enumerate(self._members()):
            if member is item:
                return i
        raise ValueError(f"{item!r} is not a member")

    def append(self, item: _O) -> None:
        self.add(item)

    def extend(self, items: Iterable[_O]) -> None:
        for item in items:
            self.add(item)

    def insert(self, index: int, item: _O) -> None:
        if item in self:
            return
        count = len(self)
        i = max(0, min(count, index + count if index < 0 else index))  # as list.insert clamps
        self._owner._insert_related_at(self._slot.key, item, i)

    def remove(self, item: _O) -> None:
        self.discard(item)


def _position(index: int, count: int) -> int:
    """`index` as a position in 0..<count (negative counts from the end), or IndexError."""
    if not isinstance(index, int) or isinstance(index, bool):
        raise make_error(f"an index is an int, not {type(index).__name__}", ErrorCode.TYPE_MISMATCH)
    i = index + count if index < 0 else index
    if not 0 <= i < count:
        raise IndexError(f"index {index} is out of range for {count} member{'' if count == 1 else 's'}")
    return i


def _short(value: Any) -> str:
    """A value in an object's repr: long text and data cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
