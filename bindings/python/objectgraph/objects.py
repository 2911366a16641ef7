"""Managed objects and the set-like view of their to-many relationships.

A ManagedObject wraps an og_object lent by its Context. Each entity gets a
subclass with one property per attribute and relationship, made from the slot
layout once, so reading ``book.pages`` is one property call and one typed
foreign call.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import threading
from collections.abc import MutableSet
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from . import _layout
from ._columns import NOT_READ, Columns
from ._lib import ERROR, NULL, OK, lib
from ._util import check, check_handle, encode, encode_value, take_string
from .enums import AttributeType
from .errors import ErrorCode, did_you_mean, make_error, suggest, take_error
from .results import ObjectID
from .values import INT64_MAX, INT64_MIN, Value, check_int64, from_seconds, take_value, to_double, to_seconds, to_value

if TYPE_CHECKING:
    from .context import Context
    from .model import Entity

__all__ = ["ManagedObject", "RelatedSet", "RelatedOrderedSet"]

_byref = ctypes.byref
_c_int64 = ctypes.c_int64
_c_double = ctypes.c_double
_c_void_p = ctypes.c_void_p


class ManagedObject:
    """An object of the graph. Its attributes and relationships read and write
    as Python attributes (``book.title``) or items (``book["title"]``); items
    always work, even for a property named like a method here.

    Objects are instances of a subclass named after their entity."""

    __slots__ = ("_h", "_context", "_layout", "_columns", "_row", "__weakref__")

    def __init__(self, context: "Context", handle: int, layout: _layout.Layout) -> None:
        # Context._take_bulk sets these same fields without calling here: keep them in step.
        self._h: int = handle
        self._context = context
        self._layout = layout
        # The fetch result this object was last read from in bulk, and its row there.
        self._columns: Optional[Columns] = None
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
        err = _c_void_p()
        value = take_value(check_handle(lib.og_value_new_object_id(self._h, _byref(err)), err))
        return value if isinstance(value, ObjectID) else ObjectID(value or "")

    def _flag(self, getter: Any) -> bool:
        out = ctypes.c_bool()
        err = _c_void_p()
        self._settle(getter(self._h, _byref(out), _byref(err)), err)
        return out.value

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
        err = _c_void_p()
        self._settle(lib.og_object_validate(self._h, kind, _byref(err)), err)

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

    def _settle(self, status: int, err: Any) -> int:
        """Ends a call that may have run callbacks (a read that fires a fault runs
        awake_from_fetch; a write runs observers of the change): a callback's
        exception is raised by this call, with the library's error, if any, as
        its context. Otherwise the library's error, or the status."""
        context = self._context
        if context._pending:
            context._raise_pending(take_error(err) if status == ERROR else None)
        return check(status, err)

    # Access by slot, for every kind of property; the error path of the fast accessors.

    def _read(self, slot: _layout.Slot) -> Any:
        access = slot.access
        err = _c_void_p()
        if access == _layout.INT:
            i64 = _c_int64()
            status = lib.og_object_get_int64_at(self._h, slot.index, _byref(i64), _byref(err))
            if self._settle(status, err) == OK:
                return i64.value
        elif access == _layout.DOUBLE:
            d = _c_double()
            status = lib.og_object_get_double_at(self._h, slot.index, _byref(d), _byref(err))
            if self._settle(status, err) == OK:
                return d.value
        elif access == _layout.VALUE:
            out = _c_void_p()
            status = lib.og_object_get_value_at(self._h, slot.index, _byref(out), _byref(err))
            value = take_value(out.value) if status != ERROR else None
            self._settle(status, err)
            if slot.type == AttributeType.BOOLEAN and value is not None:
                return bool(value)
            return value
        elif access == _layout.TO_ONE:
            out = _c_void_p()
            status = lib.og_object_get_object(self._h, slot.key, _byref(out), _byref(err))
            if self._settle(status, err) == OK and out.value:
                return self._context._wrap(out.value)
        elif access == _layout.ORDERED:
            return RelatedOrderedSet(self, slot)
        else:
            return RelatedSet(self, slot)
        self._settle(status, err)
        return None

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
        self._settle(status, err)

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

    def __getattr__(self, name: str) -> Any:
        # Only reached for names that are not accessors of the entity's class.
        raise AttributeError(f"{self._layout.name} has no attribute or relationship {name!r}"
                             + did_you_mean(name, self._layout.slots))

    if TYPE_CHECKING:
        # Writes of the entity's properties are typed as its reads are (Any), so
        # `book.title = "Mort"` passes mypy --strict; stubs (objectgraph stubs) type them exactly.
        def __setattr__(self, name: str, value: Any) -> None: ...

    def __dir__(self) -> Iterable[str]:
        return list(super().__dir__()) + list(self._layout.slots)

    def __repr__(self) -> str:
        try:
            err = _c_void_p()
            # The URI's text alone: one call, without the typed ID value.
            uri = take_string(check_handle(lib.og_object_id_uri(self._h, _byref(err)), err))
            if self.is_deleted and not self.is_inserted:
                return f"<{self._layout.name} {uri} (deleted)>"
            values = " ".join(f"{k}={_short(v)}" for k, v in self.to_dict().items())
            return f"<{self._layout.name} {uri}{' ' if values else ''}{values}>"
        except Exception:
            return f"<{self._layout.name} (inaccessible)>"

    # Typed access by key: one call each, no boxing.

    def get_int64(self, key: str) -> int:
        out = _c_int64()
        err = _c_void_p()
        status = self._settle(lib.og_object_get_int64(self._h, encode(key), _byref(out), _byref(err)), err)
        # As Core Data's scalar accessors: an unset value reads as 0 (the generic getter gives None).
        return 0 if status == NULL else out.value

    def set_int64(self, key: str, value: int) -> None:
        err = _c_void_p()
        self._settle(lib.og_object_set_int64(self._h, encode(key), check_int64(value), _byref(err)), err)

    def get_double(self, key: str) -> float:
        out = _c_double()
        err = _c_void_p()
        status = self._settle(lib.og_object_get_double(self._h, encode(key), _byref(out), _byref(err)), err)
        # As Core Data's scalar accessors: an unset value reads as 0.0 (the generic getter gives None).
        return 0.0 if status == NULL else out.value

    def set_double(self, key: str, value: float) -> None:
        err = _c_void_p()
        self._settle(lib.og_object_set_double(self._h, encode(key), to_double(value), _byref(err)), err)

    def get_bool(self, key: str) -> bool:
        out = ctypes.c_bool()
        err = _c_void_p()
        status = self._settle(lib.og_object_get_bool(self._h, encode(key), _byref(out), _byref(err)), err)
        # As Core Data's scalar accessors: an unset value reads as False (the generic getter gives None).
        return False if status == NULL else out.value

    def set_bool(self, key: str, value: bool) -> None:
        err = _c_void_p()
        self._settle(lib.og_object_set_bool(self._h, encode(key), bool(value), _byref(err)), err)

    def get_date(self, key: str) -> Optional[_dt.datetime]:
        out = _c_double()
        err = _c_void_p()
        status = self._settle(lib.og_object_get_date(self._h, encode(key), _byref(out), _byref(err)), err)
        return None if status == NULL else from_seconds(out.value)

    def set_date(self, key: str, value: Union[_dt.datetime, float]) -> None:
        """Sets a date from a datetime (naive = UTC) or seconds since 1970 UTC."""
        seconds = to_seconds(value) if isinstance(value, _dt.datetime) else to_double(value)
        err = _c_void_p()
        self._settle(lib.og_object_set_date(self._h, encode(key), seconds, _byref(err)), err)

    def get_string(self, key: str) -> Optional[str]:
        out = _c_void_p()
        length = ctypes.c_size_t()
        err = _c_void_p()
        status = lib.og_object_get_string_n(self._h, encode(key), _byref(out), _byref(length), _byref(err))
        text = take_string(out.value, length.value)
        self._settle(status, err)
        return None if status == NULL else (text or "")

    def set_string(self, key: str, value: Union[str, bytes]) -> None:
        raw = value if isinstance(value, bytes) else encode_value(value)
        err = _c_void_p()
        self._settle(lib.og_object_set_string_n(self._h, encode(key), raw, len(raw), _byref(err)), err)

    def get_data(self, key: str) -> Optional[bytes]:
        out = _c_void_p()
        length = ctypes.c_size_t()
        err = _c_void_p()
        status = self._settle(lib.og_object_get_data(self._h, encode(key), _byref(out), _byref(length), _byref(err)), err)
        try:
            if status == NULL:
                return None
            return ctypes.string_at(out.value, length.value) if out.value and length.value else b""
        finally:
            lib.og_free(out.value)

    def set_data(self, key: str, value: bytes) -> None:
        data = bytes(value)
        err = _c_void_p()
        self._settle(lib.og_object_set_data(self._h, encode(key), data, len(data), _byref(err)), err)

    def set_null(self, key: str) -> None:
        err = _c_void_p()
        self._settle(lib.og_object_set_null(self._h, encode(key), _byref(err)), err)

    def get_value(self, key: str) -> Value:
        """Any attribute by key, through the boxed og_value path."""
        out = _c_void_p()
        err = _c_void_p()
        status = lib.og_object_get_value(self._h, encode(key), _byref(out), _byref(err))
        value = take_value(out.value) if status != ERROR else None
        self._settle(status, err)
        return value

    def set_value(self, key: str, value: Value) -> None:
        slot = self._layout.slots.get(key)
        boxed = to_value(value, slot.type if slot is not None else None, slot is not None and slot.named)
        err = _c_void_p()
        try:
            self._settle(lib.og_object_set_value(self._h, encode(key), boxed, _byref(err)), err)
        finally:
            lib.og_value_release(boxed)

    # The object graph: faults, key paths, primitive, changed and committed values.

    @property
    def is_fault(self) -> bool:
        """Whether the object's values are not loaded yet."""
        return self._flag(lib.og_object_is_fault)

    @property
    def faulting_state(self) -> int:
        out = _c_int64()
        err = _c_void_p()
        self._settle(lib.og_object_faulting_state(self._h, _byref(out), _byref(err)), err)
        return out.value

    def has_fault_for_relationship(self, name: str) -> bool:
        """Whether relationship ``name`` is not loaded yet; never loads it."""
        out = ctypes.c_bool()
        err = _c_void_p()
        self._settle(lib.og_object_has_fault_for_relationship(self._h, encode(name), _byref(out), _byref(err)), err)
        return out.value

    def value_for_key_path(self, key_path: str) -> Any:
        """The value at a dotted key path ("author.name", "books.@count"): to-ones
        as objects, to-manys as lists."""
        out = _c_void_p()
        err = _c_void_p()
        status = lib.og_object_get_value_for_key_path(self._h, encode(key_path), _byref(out), _byref(err))
        value = take_value(out.value, self._context) if status != ERROR else None
        self._settle(status, err)
        return value

    def primitive(self, key: str) -> Value:
        """An attribute read without change tracking (primitiveValueForKey:)."""
        out = _c_void_p()
        err = _c_void_p()
        status = lib.og_object_get_primitive_value(self._h, encode(key), _byref(out), _byref(err))
        value = take_value(out.value) if status != ERROR else None
        self._settle(status, err)
        return value

    def set_primitive(self, key: str, value: Value) -> None:
        """Writes an attribute without change tracking, inverse or validation:
        the object is not marked updated."""
        slot = self._layout.slots.get(key)
        boxed = to_value(value, slot.type if slot is not None else None, slot is not None and slot.named)
        err = _c_void_p()
        try:
            self._settle(lib.og_object_set_primitive_value(self._h, encode(key), boxed, _byref(err)), err)
        finally:
            lib.og_value_release(boxed)

    def changed_values(self) -> Dict[str, Any]:
        """Persistent properties changed since the last fetch or save, with
        their new values."""
        out = _c_void_p()
        err = _c_void_p()
        status = lib.og_object_changed_values(self._h, _byref(out), _byref(err))
        value = take_value(out.value, self._context) if status != ERROR else None
        self._settle(status, err)
        return value  # type: ignore[return-value]

    def committed_values(self, keys: Optional[Iterable[str]] = None) -> Dict[str, Any]:
        """The last fetched or saved values of ``keys`` (every persistent
        attribute and to-one when None)."""
        out = _c_void_p()
        err = _c_void_p()
        if keys is None:
            status = lib.og_object_committed_values(self._h, None, 0, _byref(out), _byref(err))
        else:
            names = [encode(k) for k in keys]
            array = (ctypes.c_char_p * max(1, len(names)))(*names)
            status = lib.og_object_committed_values(self._h, array, len(names), _byref(out), _byref(err))
        value = take_value(out.value, self._context) if status != ERROR else None
        self._settle(status, err)
        return value  # type: ignore[return-value]

    def validate_value(self, key: str, value: Any) -> None:
        """Checks ``value`` against the model's rules for ``key`` and the
        entity's validate_value hook; raises ValidationError, changes nothing."""
        slot = self._layout.slots.get(key)
        boxed = to_value(value, slot.type if slot is not None and slot.type is not None else None, slot is not None and slot.named)
        err = _c_void_p()
        try:
            self._settle(lib.og_object_validate_value(self._h, encode(key), boxed, _byref(err)), err)
        finally:
            lib.og_value_release(boxed)
        self._context._raise_pending()

    # Relationships by key.

    def _related(self, key: bytes) -> List["ManagedObject"]:
        err = _c_void_p()
        results = lib.og_object_get_related(self._h, key, _byref(err))
        self._settle(ERROR if not results else OK, err)
        return self._context._take_results(results)

    def _related_count(self, key: bytes) -> int:
        err = _c_void_p()
        results = lib.og_object_get_related(self._h, key, _byref(err))
        self._settle(ERROR if not results else OK, err)
        try:
            return int(lib.og_results_count(results))
        finally:
            lib.og_results_release(results)

    def _add_related(self, key: bytes, other: "ManagedObject") -> None:
        err = _c_void_p()
        self._settle(lib.og_object_add_related(self._h, key, _target(other), _byref(err)), err)

    def _remove_related(self, key: bytes, other: "ManagedObject") -> None:
        err = _c_void_p()
        self._settle(lib.og_object_remove_related(self._h, key, _target(other), _byref(err)), err)

    def _insert_related_at(self, key: bytes, other: "ManagedObject", index: int) -> None:
        err = _c_void_p()
        self._settle(lib.og_object_insert_related_at(self._h, key, _target(other), index, _byref(err)), err)

    def _remove_related_at(self, key: bytes, index: int) -> None:
        err = _c_void_p()
        self._settle(lib.og_object_remove_related_at(self._h, key, index, _byref(err)), err)

    def _set_related(self, key: bytes, others: List["ManagedObject"]) -> None:
        handles = (_c_void_p * max(len(others), 1))(*[_target(o) for o in others])
        err = _c_void_p()
        self._settle(lib.og_object_set_related(self._h, key, handles, len(others), _byref(err)), err)


def class_for(layout: _layout.Layout) -> type:
    """The ManagedObject subclass for an entity: one property per attribute or
    relationship whose name does not hide a member of ManagedObject."""
    cls = layout.cls
    if cls is None:
        # Made once, under a lock: contexts of several threads may wrap their first object
        # of the entity at once, and their objects must share one class.
        with _classes_lock:
            if layout.cls is None:
                namespace: Dict[str, Any] = {"__slots__": (), "__module__": __name__}
                for name, slot in layout.slots.items():
                    read, write = layout.accessors[name] = _accessors(slot, layout)
                    if not hasattr(ManagedObject, name):
                        kind = "relationship" if slot.type is None else slot.type.name.lower() + " attribute"
                        namespace[name] = property(read, write, doc=f"The {kind} {name!r}.")
                layout.cls = type(layout.name, (ManagedObject,), namespace)
            cls = layout.cls
    return cls


_classes_lock = threading.Lock()


def _accessors(slot: _layout.Slot, layout: _layout.Layout) -> Tuple[Callable[[Any], Any], Callable[[Any, Any], None]]:
    """A reader and a writer for one slot. Integers and doubles, the common case
    of bulk work, get their own: they use the context's out-buffer and pass no
    error slot. A call that fails (or a value they do not handle) goes the
    general way, which repeats the call with an error slot and raises. Failed
    calls change nothing, so repeating one is harmless."""
    index = slot.index

    def read_any(obj: ManagedObject) -> Any:
        return obj._read(slot)

    def write_any(obj: ManagedObject, value: Any) -> None:
        obj._write(slot, value)

    def fits_int64(value: Any) -> bool:
        return type(value) is int and INT64_MIN <= value <= INT64_MAX

    def is_float(value: Any) -> bool:
        return type(value) is float

    if slot.access == _layout.VALUE and slot.type == AttributeType.STRING:
        return _string_reader(slot, read_any), write_any
    if slot.access == _layout.INT:
        get_at, set_at, buffer, fast = lib.og_object_get_int64_at, lib.og_object_set_int64_at, "_int64_out", fits_int64
    elif slot.access == _layout.DOUBLE:
        get_at, set_at, buffer, fast = lib.og_object_get_double_at, lib.og_object_set_double_at, "_double_out", is_float
    else:
        return read_any, write_any

    doubles = slot.access == _layout.DOUBLE
    # The entity's other slots read the same way: a result's columns after its first are
    # read together (Columns.load).
    kin = tuple(other.index for other in layout.slots.values() if other.access == slot.access and other.index != index)

    def read(obj: ManagedObject) -> Any:
        columns = obj._columns
        # No thread check on this path (it would cost an eighth of a large fetch's reading):
        # another thread may read a value its owner's thread has read in bulk already, as
        # it stands; the first read of a column and every other read reach the library,
        # which refuses a thread that does not own the context (docs/python-api.md, Threads).
        if columns is not None and columns.now[0] == columns.epoch:
            # The common case first, in one step: the column is read already.
            try:
                value = columns.by_slot[index][obj._row]  # type: ignore[index]
            except (IndexError, TypeError):  # no column read that far, or not this one
                column = columns.load(index, doubles, kin)
                value = NOT_READ if column is None else column[obj._row]
            if value is not NOT_READ:
                return value
        context = obj._context
        out, ref = getattr(context, buffer)
        status = get_at(obj._h, index, ref, None)
        if context._pending:  # a fault fired by this read ran a hook that raised
            context._raise_pending()
        if status == OK:
            return out.value
        if status == NULL:
            return None
        return obj._read(slot)

    def write(obj: ManagedObject, value: Any) -> None:
        if not (fast(value) and set_at(obj._h, index, value, None) == OK):
            obj._write(slot, value)
        elif obj._context._pending:
            obj._context._raise_pending()

    return read, write


def _string_reader(slot: _layout.Slot, read_any: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A reader of a string attribute in one call: the text is copied into the context's
    buffer (og_object_copy_string_at) and decoded from there, with no allocation or free
    in the library. Text too long for the buffer comes as an owned copy
    (og_object_get_string_n); a failed call goes the general way."""
    index, key = slot.index, slot.name.encode()
    copy, get, free, string_at = lib.og_object_copy_string_at, lib.og_object_get_string_n, lib.og_free, ctypes.string_at

    def read_owned(obj: ManagedObject) -> Any:
        context = obj._context
        out, out_ref, length, length_ref = context._string_out
        status = get(obj._h, key, out_ref, length_ref, None)
        if context._pending:
            context._raise_pending()
        if status == OK:
            pointer = out.value
            if not pointer:
                return ""
            try:
                return string_at(pointer, length.value).decode("utf-8")
            finally:
                free(pointer)
        if status == NULL:
            return None
        return read_any(obj)

    def read(obj: ManagedObject) -> Any:
        context = obj._context
        address, text, capacity, length, length_ref = context._text_out
        status = copy(obj._h, index, address, capacity, length_ref, None)
        if context._pending:  # a fault fired by this read ran a hook that raised
            context._raise_pending()
        if status == OK:
            n = length.value
            return str(text[:n], "utf-8") if n < capacity else read_owned(obj)
        if status == NULL:
            return None
        return read_any(obj)

    return read


def _target(value: Any) -> Optional[int]:
    """The handle to pass for a managed object argument (None passes NULL)."""
    if value is None:
        return None
    if not isinstance(value, ManagedObject):
        raise make_error(
            f"a relationship holds managed objects, not {type(value).__name__}", ErrorCode.TYPE_MISMATCH
        )
    return value._h


class RelatedSet(MutableSet):  # type: ignore[type-arg]
    """A live, set-like view of a to-many relationship. Adding and removing
    update the inverse relationship too."""

    __slots__ = ("_owner", "_slot")

    def __init__(self, owner: ManagedObject, slot: _layout.Slot) -> None:
        self._owner = owner
        self._slot = slot

    def _members(self) -> List[ManagedObject]:
        return self._owner._related(self._slot.key)

    def __iter__(self) -> Iterator[ManagedObject]:
        return iter(self._members())

    def __len__(self) -> int:
        return self._owner._related_count(self._slot.key)

    def __contains__(self, item: object) -> bool:
        return any(member is item for member in self._members())

    def add(self, item: ManagedObject) -> None:
        self._owner._add_related(self._slot.key, item)

    def discard(self, item: ManagedObject) -> None:
        if item in self:
            self._owner._remove_related(self._slot.key, item)

    def update(self, items: Iterable[ManagedObject]) -> None:
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


class RelatedOrderedSet(RelatedSet):
    """A live view of an ordered to-many relationship (NSOrderedSet): a set
    whose members keep their order, read and edited by index. Every edit keeps
    the inverse relationship and marks the owner updated. Adding or inserting an
    object that is already a member leaves it where it is; assigning the
    relationship a list sets both its members and their order."""

    __slots__ = ()

    def __getitem__(self, index: Union[int, slice]) -> Any:
        members = self._members()
        if isinstance(index, slice):
            return members[index]
        return members[_position(index, len(members))]

    def __setitem__(self, index: int, item: ManagedObject) -> None:
        members = self._members()
        i = _position(index, len(members))
        _target(item)
        if members[i] is item:
            return
        self._owner._remove_related_at(self._slot.key, i)
        self._owner._insert_related_at(self._slot.key, item, min(i, len(self._members())))

    def __delitem__(self, index: int) -> None:
        self._owner._remove_related_at(self._slot.key, _position(index, len(self)))

    def __reversed__(self) -> Iterator[ManagedObject]:
        return reversed(self._members())

    def index(self, item: ManagedObject) -> int:
        for i, member in enumerate(self._members()):
            if member is item:
                return i
        raise ValueError(f"{item!r} is not a member")

    def append(self, item: ManagedObject) -> None:
        self.add(item)

    def extend(self, items: Iterable[ManagedObject]) -> None:
        for item in items:
            self.add(item)

    def insert(self, index: int, item: ManagedObject) -> None:
        if item in self:
            return
        count = len(self)
        i = max(0, min(count, index + count if index < 0 else index))  # as list.insert clamps
        self._owner._insert_related_at(self._slot.key, item, i)

    def remove(self, item: ManagedObject) -> None:
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

