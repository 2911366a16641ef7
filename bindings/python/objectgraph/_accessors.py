"""The per-entity subclasses of ManagedObject and their property accessors: the hot
path of attribute access.

``class_for(layout)`` makes an entity's class once, with one property per attribute
and relationship, derived from the class declared for the entity (or for its nearest
superentity that has one) when that class fits the entity. Integers and doubles are read and written, and strings read,
through the slot calls without an error slot (numbers through the fetch result's
columns too, _columns.py): a failed call goes the general way
(ManagedObject._read/_write), which repeats it through the _call.py helpers and
raises. Everything else goes the general way.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable, Dict, List, Tuple

from . import _layout
from ._columns import NOT_READ
from ._lib import NULL, OK, lib
from .enums import AttributeType
from .objects import ManagedObject, declared_class
from .values import INT64_MAX, INT64_MIN

__all__ = ["class_for", "undeclared"]


def class_for(layout: _layout.Layout) -> type:
    """The ManagedObject subclass for an entity: one property per attribute or
    relationship whose name does not hide a member of its base (ManagedObject, or
    the class declared for the entity, whose own properties and methods win)."""
    cls = layout.cls
    if cls is None:
        # Made once, under a lock: contexts of several threads may wrap their first object
        # of the entity at once, and their objects must share one class.
        with _classes_lock:
            if layout.cls is None:
                base = _declared_base(layout)
                # The module ManagedObject names, as the classes always have.
                namespace: Dict[str, Any] = {"__slots__": (), "__module__": ManagedObject.__module__}
                for name, slot in layout.slots.items():
                    read, write = layout.accessors[name] = _accessors(slot, layout)
                    if not hasattr(base, name):
                        kind = "relationship" if slot.type is None else slot.type.name.lower() + " attribute"
                        namespace[name] = property(read, write, doc=f"The {kind} {name!r}.")
                layout.cls = type(layout.name, (base,), namespace)
            cls = layout.cls
    return cls


def _declared_base(layout: _layout.Layout) -> type:
    """The class declared for the entity, else for its nearest superentity, that fits
    it; ManagedObject when there is none. A class declared for an entity of the same
    name in another model, with properties this one lacks, does not fit."""
    entity: Any = layout.entity
    while entity is not None:
        declared = declared_class(entity.name)
        if declared is not None and not undeclared(declared, layout):
            return declared
        entity = entity.superentity
    return ManagedObject


def undeclared(cls: type, layout: _layout.Layout) -> List[str]:
    """The properties ``cls`` declares (annotated names without a value, its bases'
    included) that the entity of ``layout`` does not have."""
    missing: List[str] = []
    for klass in cls.__mro__:
        if klass is ManagedObject:
            break
        for name in vars(klass).get("__annotations__", {}):
            if name not in layout.slots and name not in vars(klass) and name not in missing:
                missing.append(name)
    return missing


_classes_lock = threading.Lock()


def _accessors(slot: _layout.Slot, layout: _layout.Layout) -> Tuple[Callable[[Any], Any], Callable[[Any, Any], None]]:
    """A reader and a writer for one slot. Integers and doubles, the common case
    of bulk work, get their own: they use the context's out-buffer and pass no
    error slot. A call that fails (or a value they do not handle) goes the
    general way, which repeats the call with an error slot and raises. Failed
    calls change nothing, so repeating one is harmless. (They call the library
    directly, not through _call.py: an error slot made and checked on every read
    would cost the hot path its share of a large fetch's time.)"""
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
        if columns.live[0]:  # nothing in the context changed since the values were read
            # The common case first, in one step: the column is read already. It is returned
            # as it is: an object whose values the bulk read could not serve no longer reads
            # through this cache (Columns.load), so no check of the value is needed here.
            try:
                return columns.by_slot[index][obj._row]  # type: ignore[index]
            except (IndexError, TypeError):  # no column read that far, or not this one
                pass
            column = columns.load(index, doubles, kin)
            if column is not None:
                value = column[obj._row]
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
