"""Conversion between Python values and og_value handles.

None, bool, int, float, str, bytes, datetime, Decimal and UUID map to the
og_value types of the same meaning. A str becomes a URI value when the target
attribute is a URI attribute. Dates cross as seconds since 1970 UTC: naive
datetimes are taken as UTC, and dates read back are timezone-aware UTC.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import decimal
import uuid
from typing import Any, Dict, Optional, Union

from . import _archive
from ._call import call, call_handle, call_out, call_quietly, check, check_handle
from ._lib import NULL, lib
from ._object_id import ObjectID
from ._util import encode, encode_value
from .enums import AttributeType, ValueType
from .errors import ErrorCode, make_error

__all__ = ["Value", "Boxable", "to_value", "to_transformable", "to_double", "from_value", "take_value", "to_seconds",
           "from_seconds", "check_int64"]

Value = Union[None, bool, int, float, str, bytes, _dt.datetime, decimal.Decimal, uuid.UUID]

EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def to_seconds(moment: _dt.datetime) -> float:
    """Seconds since 1970 UTC; a naive datetime is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return (moment - EPOCH).total_seconds()


def from_seconds(seconds: float) -> _dt.datetime:
    # Adding a timedelta works for dates before 1970 and far ahead as well.
    return EPOCH + _dt.timedelta(seconds=seconds)


def check_int64(number: int) -> int:
    """ctypes would silently wrap an integer that does not fit in 64 bits."""
    if not isinstance(number, int):
        raise make_error(f"an integer is an int, not {type(number).__name__}", ErrorCode.TYPE_MISMATCH)
    if number > INT64_MAX:
        raise make_error(
            f"{number} is larger than the largest 64-bit integer", ErrorCode.VALIDATION_NUMBER_TOO_LARGE,
            "NSCocoaErrorDomain",
        )
    if number < INT64_MIN:
        raise make_error(
            f"{number} is smaller than the smallest 64-bit integer", ErrorCode.VALIDATION_NUMBER_TOO_SMALL,
            "NSCocoaErrorDomain",
        )
    return number


def to_double(number: Any) -> float:
    """A number as a double; an int too large for one is a validation error (1610),
    and anything that is not a number a type mismatch, not a raw Python error."""
    if isinstance(number, float):
        return number
    try:
        return float(number)
    except OverflowError:
        raise make_error(f"{number} is too large for a double", ErrorCode.VALIDATION_NUMBER_TOO_LARGE,
                         "NSCocoaErrorDomain") from None
    except (TypeError, ValueError):
        raise make_error(f"a double is a number, not {type(number).__name__}", ErrorCode.TYPE_MISMATCH) from None


class Boxable:
    """A wrapper that stands for itself as a predicate argument or a value
    evaluated on: an entity (``entity == %@``) or a managed object. Entities
    (entity.py) and managed objects (objects.py) subclass it, so that this
    module, below both, boxes them without importing them."""

    __slots__ = ()

    def _box(self) -> int:
        """A NEW og_value for this wrapper."""
        raise NotImplementedError


def to_value(value: Any, attribute_type: Optional[int] = None, foreign: bool = False) -> int:
    """A NEW og_value for ``value``; the caller releases it with og_value_release.
    A transformable attribute takes lists, dicts and registered classes too, and
    with ``foreign`` (its transformer is a named one) any value."""
    if attribute_type == AttributeType.TRANSFORMABLE:
        return to_transformable(value, foreign)
    handle = _new_value(value, attribute_type)
    if not handle:  # only the constructors that cannot fail get here without raising
        raise make_error(f"the library could not box {value!r}", ErrorCode.INVALID_ARGUMENT)
    return int(handle)


def _new_value(value: Any, attribute_type: Optional[int]) -> Any:
    if value is None:
        return lib.og_value_new_null()
    if isinstance(value, bool):
        return lib.og_value_new_bool(value)
    if isinstance(value, int):
        if attribute_type in (AttributeType.DOUBLE, AttributeType.FLOAT):
            return lib.og_value_new_double(to_double(value))
        if attribute_type == AttributeType.DECIMAL:
            return call_handle(lib.og_value_new_decimal, str(value).encode())
        return lib.og_value_new_int64(check_int64(value))
    if isinstance(value, float):
        return lib.og_value_new_double(value)
    if attribute_type is None:
        # Object IDs, entities and objects are predicate constants, never attribute values.
        if isinstance(value, ObjectID):  # a str: tested before strings
            return call_handle(lib.og_value_new_object_id_uri, encode(value, "an object ID"))
        if isinstance(value, Boxable):
            return value._box()
    if isinstance(value, str):
        if attribute_type == AttributeType.URI:
            return call_handle(lib.og_value_new_uri, encode(value, "a URI"))
        # With its length: a string value keeps the NULs it holds. A direct call: strings are
        # the common case of attribute writes, a hot path (_call.py).
        raw = encode_value(value)
        err = ctypes.c_void_p()
        return check_handle(lib.og_value_new_string_n(raw, len(raw), ctypes.byref(err)), err)
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        return call_handle(lib.og_value_new_data, data, len(data))
    if isinstance(value, _dt.datetime):
        return lib.og_value_new_date(to_seconds(value))
    if isinstance(value, decimal.Decimal):
        # Fixed-point text: the C side reads "1000", not Python's "1E+3".
        text = format(value, "f") if value.is_finite() else str(value)
        return call_handle(lib.og_value_new_decimal, text.encode())
    if isinstance(value, uuid.UUID):
        return call_handle(lib.og_value_new_uuid, value.bytes)
    if attribute_type is None:
        composite = _new_composite(value)
        if composite is not None:
            return composite
    raise make_error(
        f"a {type(value).__name__} cannot be stored in an attribute", ErrorCode.TYPE_MISMATCH
    )


def to_transformable(value: Any, foreign: bool = False) -> int:
    """A NEW og_value for the value of a transformable attribute: plist values,
    lists and dicts of them, instances of registered archivable classes, and
    with ``foreign`` any other value (kept here, for a named transformer)."""
    if value is None or isinstance(value, (bool, int, float, str, bytes, bytearray, memoryview, _dt.datetime, uuid.UUID)):
        return to_value(value)
    if isinstance(value, (list, tuple)):
        items = [to_transformable(v, foreign) for v in value]
        try:
            array = (ctypes.c_void_p * max(1, len(items)))(*items)
            return call_handle(lib.og_value_new_array, array, len(items))
        finally:
            for item in items:
                lib.og_value_release(item)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return _dictionary(value, foreign)
    name = _archive.archived_name(value)
    if name is not None:
        return _archived(name, _archive.fields_of(value), foreign)
    if foreign:
        name, key = _archive.foreign(value)
        return _archived(name, {"id": key}, False)
    raise make_error(
        f"a {type(value).__name__} is not a property-list value: register its class with og.register_archivable_class, "
        "or store it through a transformer registered with og.register_value_transformer",
        ErrorCode.TYPE_MISMATCH,
    )


def _dictionary(value: Dict[str, Any], foreign: bool) -> int:
    keys = [encode(k, "a dictionary key") for k in value]
    items = [to_transformable(v, foreign) for v in value.values()]
    try:
        key_array = (ctypes.c_char_p * max(1, len(keys)))(*keys)
        value_array = (ctypes.c_void_p * max(1, len(items)))(*items)
        return call_handle(lib.og_value_new_dictionary, key_array, value_array, len(items))
    finally:
        for item in items:
            lib.og_value_release(item)


def _archived(name: str, fields: Dict[str, Any], foreign: bool) -> int:
    if not all(isinstance(k, str) for k in fields):
        raise make_error(f"the fields of an archived {name!r} are named by strings", ErrorCode.TYPE_MISMATCH)
    boxed = _dictionary(fields, foreign)
    try:
        return call_handle(lib.og_value_new_archived_object, encode(name, "a class name"), boxed)
    finally:
        lib.og_value_release(boxed)


def _new_composite(value: Any) -> Any:
    """Arrays and dictionaries: predicate arguments and the things predicates
    are evaluated on (never attribute values)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [to_value(v) for v in value]
        try:
            array = (ctypes.c_void_p * max(1, len(items)))(*items)
            return call_handle(lib.og_value_new_array, array, len(items))
        finally:
            for item in items:
                lib.og_value_release(item)
    if isinstance(value, dict):
        keys = [encode(str(k), "a dictionary key") for k in value]
        items = [to_value(v) for v in value.values()]
        try:
            key_array = (ctypes.c_char_p * max(1, len(keys)))(*keys)
            value_array = (ctypes.c_void_p * max(1, len(items)))(*items)
            return call_handle(lib.og_value_new_dictionary, key_array, value_array, len(items))
        finally:
            for item in items:
                lib.og_value_release(item)
    return None


def _borrowed_text(getter: Any, handle: int) -> Optional[str]:
    raw: Optional[bytes] = call_out(getter, ctypes.c_char_p, handle)
    return None if raw is None else raw.decode("utf-8", "replace")


def from_value(handle: int, context: Any = None) -> Value:
    """The Python value an og_value holds (the handle is not released). Managed
    objects inside it are wrapped by ``context``."""
    kind = lib.og_value_type_of(handle)
    if kind == ValueType.NULL:
        return None
    # The common scalars call the library directly: reading values is a hot path (_call.py).
    err = ctypes.c_void_p()
    if kind == ValueType.INT64:
        i64 = ctypes.c_int64()
        check(lib.og_value_get_int64(handle, ctypes.byref(i64), ctypes.byref(err)), err)
        return i64.value
    if kind == ValueType.DOUBLE:
        d = ctypes.c_double()
        check(lib.og_value_get_double(handle, ctypes.byref(d), ctypes.byref(err)), err)
        return d.value
    if kind == ValueType.BOOL:
        b = ctypes.c_bool()
        check(lib.og_value_get_bool(handle, ctypes.byref(b), ctypes.byref(err)), err)
        return b.value
    if kind == ValueType.STRING:
        pointer = ctypes.c_void_p()
        length = ctypes.c_size_t()
        if check(lib.og_value_get_string_n(handle, ctypes.byref(pointer), ctypes.byref(length), ctypes.byref(err)),
                 err) == NULL:
            return None
        return ctypes.string_at(pointer.value, length.value).decode("utf-8", "replace") if pointer.value else ""
    if kind == ValueType.DATE:
        seconds = ctypes.c_double()
        check(lib.og_value_get_date(handle, ctypes.byref(seconds), ctypes.byref(err)), err)
        return from_seconds(seconds.value)
    if kind == ValueType.DATA:
        pointer = ctypes.c_void_p()
        length = ctypes.c_size_t()
        call(lib.og_value_get_data, handle, ctypes.byref(pointer), ctypes.byref(length))
        return ctypes.string_at(pointer.value, length.value) if pointer.value and length.value else b""
    if kind == ValueType.DECIMAL:
        text = _borrowed_text(lib.og_value_get_decimal, handle)
        return None if text is None else decimal.Decimal(text)
    if kind == ValueType.UUID:
        raw = (ctypes.c_uint8 * 16)()
        call(lib.og_value_get_uuid, handle, raw)
        return uuid.UUID(bytes=bytes(raw))
    if kind == ValueType.URI:
        return _borrowed_text(lib.og_value_get_uri, handle)
    if kind == ValueType.OBJECT_ID:
        text = _borrowed_text(lib.og_value_get_object_id, handle)
        return None if text is None else ObjectID(text)
    if kind == ValueType.ARRAY:
        return [take_value(_item(handle, i), context) for i in range(lib.og_value_count(handle))]  # type: ignore[return-value]
    if kind == ValueType.DICTIONARY:
        result = {}
        for i in range(lib.og_value_count(handle)):
            result[_key(handle, i)] = take_value(_item(handle, i), context)
        return result  # type: ignore[return-value]
    if kind == ValueType.ARCHIVED_OBJECT:
        name = _borrowed_text(lib.og_value_class_name, handle) or ""
        fields: Dict[str, Any] = {}
        for i in range(lib.og_value_count(handle)):
            fields[_key(handle, i)] = take_value(_item(handle, i), context)
        built: Value = _archive.build(name, fields)
        return built
    if kind == ValueType.ENTITY:
        raise make_error("an entity value is a predicate argument; it is not read back", ErrorCode.TYPE_MISMATCH)
    if kind == ValueType.OBJECT and context is not None:
        lent = call_out(lib.og_value_get_object, ctypes.c_void_p, handle)
        return None if lent is None else context._wrap(lent)
    raise make_error(f"the library returned a value of unknown type {kind}", ErrorCode.TYPE_MISMATCH)


def _item(handle: int, index: int) -> int:
    return call_handle(lib.og_value_item_at, handle, index)


def _key(handle: int, index: int) -> str:
    """The key of a dictionary's or archived object's item (as it was: "" when unreadable)."""
    key, _ = call_quietly(lib.og_value_key_at, handle, index)
    return (key or b"").decode()


def take_value(handle: Optional[int], context: Any = None) -> Value:
    """Converts a NEW og_value and releases it."""
    if not handle:
        return None
    try:
        return from_value(handle, context)
    finally:
        lib.og_value_release(handle)
