"""Values of transformable attributes, and the transformers that store them.

A transformable attribute holds a Python value. Under the default transformer
(``value_transformer_name`` None or ``"NSSecureUnarchiveFromData"``) that is a
plist value (None, bool, int, float, str, bytes, datetime, uuid.UUID, and
lists and dicts of these) or an instance of a class allowed with
``register_archivable_class``; the store keeps Apple's secure keyed archive.
Reading builds instances of registered classes only, and nothing is unpickled.
A transformer registered with ``register_value_transformer`` stores any value
its ``forward`` function turns into bytes.
"""

from __future__ import annotations

import ctypes
import dataclasses
import itertools
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._lib import lib
from ._util import check, encode, keep
from .errors import ErrorCode, make_error

__all__ = [
    "register_archivable_class",
    "unregister_archivable_class",
    "register_value_transformer",
    "unregister_value_transformer",
]

_lock = threading.Lock()
_classes: Dict[str, type] = {}
_names: Dict[type, str] = {}
# The ctypes callbacks of each registered transformer, kept alive while it is registered.
_transformers: Dict[str, Tuple[Any, Any]] = {}
# Those of transformers unregistered, kept for the life of the process: a save on another
# thread may still be inside one when unregistering returns, and a freed ctypes callback
# would crash it.
_retired: List[Tuple[Any, Any]] = []
# Values only a named transformer can store cross the library as a placeholder
# object naming an entry here; the entry lives as long as the process.
_FOREIGN = "$python."
_foreign: Dict[int, Any] = {}
_foreign_ids = itertools.count(1)

_FORWARD = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p)
_REVERSE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p)


def register_archivable_class(cls: type, name: Optional[str] = None) -> None:
    """Allows instances of ``cls`` under the default transformer, archived under
    ``name`` (default ``cls.__qualname__``) with their fields: a dataclass's
    fields, or what ``__getstate__``/``__dict__`` holds. Core Data: the allowed
    classes of NSSecureUnarchiveFromDataTransformer."""
    if not isinstance(cls, type):
        raise make_error(f"an archivable class is a class, not {type(cls).__name__}", ErrorCode.INVALID_ARGUMENT)
    name = cls.__qualname__ if name is None else name
    err = ctypes.c_void_p()
    check(lib.og_register_archivable_class(encode(name, "the class name"), ctypes.byref(err)), err)
    with _lock:
        old = _names.pop(cls, None)
        if old is not None and old != name:
            _classes.pop(old, None)
        _classes[name] = cls
        _names[cls] = name


def unregister_archivable_class(cls: type) -> None:
    """Withdraws a class registered with ``register_archivable_class``; values of
    it can no longer be set or read. UsageError 140002 when it is not registered."""
    with _lock:
        name = _names.pop(cls, None)
        if name is not None:
            _classes.pop(name, None)
    if name is None:
        raise make_error(f"{getattr(cls, '__qualname__', cls)!r} is not a registered archivable class", ErrorCode.INVALID_ARGUMENT)
    err = ctypes.c_void_p()
    check(lib.og_unregister_archivable_class(encode(name, "the class name"), ctypes.byref(err)), err)


def register_value_transformer(name: str, forward: Callable[[Any], bytes], reverse: Callable[[bytes], Any]) -> None:
    """Stores the attributes whose ``value_transformer_name`` is ``name`` with
    ``forward(value) -> bytes`` on writes and ``reverse(bytes) -> value`` on
    reads. Core Data: +[NSValueTransformer setValueTransformer:forName:].
    UsageError 140002 when ``name`` is registered already."""
    if not callable(forward) or not callable(reverse):
        raise make_error("a value transformer needs callable forward and reverse functions", ErrorCode.INVALID_ARGUMENT)

    def run_forward(value: int, error: Any, user: Any) -> Optional[int]:
        try:
            from .values import from_value  # values imports this module

            data = forward(from_value(value))
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise make_error(f"value transformer {name!r}: forward returned {type(data).__name__}, not bytes",
                                 ErrorCode.CORE_DATA, "NSCocoaErrorDomain")
            data = bytes(data)
            err = ctypes.c_void_p()
            made: Optional[int] = lib.og_value_new_data(data, len(data), ctypes.byref(err))
            return made
        except BaseException as exc:  # noqa: BLE001 - nothing may unwind through C
            keep(exc)
            return None

    def run_reverse(data: int, length: int, error: Any, user: Any) -> Optional[int]:
        try:
            from .values import to_transformable

            value = reverse(ctypes.string_at(data, length) if length else b"")
            return to_transformable(value, foreign=True)
        except BaseException as exc:  # noqa: BLE001
            keep(exc)
            return None

    callbacks = (_FORWARD(run_forward), _REVERSE(run_reverse))
    err = ctypes.c_void_p()
    forward_fn = ctypes.cast(callbacks[0], ctypes.c_void_p)
    reverse_fn = ctypes.cast(callbacks[1], ctypes.c_void_p)
    check(lib.og_register_value_transformer(encode(name, "the transformer name"), forward_fn, reverse_fn, None, ctypes.byref(err)), err)
    with _lock:
        previous = _transformers.get(name)
        if previous is not None:
            _retired.append(previous)
        _transformers[name] = callbacks


def unregister_value_transformer(name: str) -> None:
    """Removes a transformer registered with ``register_value_transformer``.
    UsageError 140002 for an unknown name."""
    err = ctypes.c_void_p()
    check(lib.og_unregister_value_transformer(encode(name, "the transformer name"), ctypes.byref(err)), err)
    with _lock:
        gone = _transformers.pop(name, None)
        if gone is not None:
            _retired.append(gone)


# Conversion helpers for values.py.

def archived_name(value: Any) -> Optional[str]:
    """The registered name of ``value``'s class, or None."""
    with _lock:
        return _names.get(type(value))


def fields_of(value: Any) -> Dict[str, Any]:
    """The fields an instance is archived with."""
    if dataclasses.is_dataclass(value):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    getstate = getattr(type(value), "__getstate__", None)
    if getstate is not None and getstate is not getattr(object, "__getstate__", None):
        state = value.__getstate__()
        if not isinstance(state, dict):
            raise make_error(f"{type(value).__qualname__}.__getstate__ returned {type(state).__name__}, not a dict",
                             ErrorCode.TYPE_MISMATCH)
        return state
    try:
        return dict(vars(value))
    except TypeError:
        raise make_error(f"a {type(value).__qualname__} has no fields to archive (no __dict__ or __getstate__)",
                         ErrorCode.TYPE_MISMATCH) from None


def build(name: str, fields: Dict[str, Any]) -> Any:
    """An instance of the class registered under ``name`` with ``fields``; any
    other name is refused (nothing is built)."""
    if name.startswith(_FOREIGN):
        with _lock:
            kept = _foreign.get(fields.get("id", 0), _foreign)
        if kept is not _foreign:
            return kept
    with _lock:
        cls = _classes.get(name)
    if cls is None:
        raise make_error(
            f"the value is an archived {name!r}, which is not a class registered with og.register_archivable_class",
            ErrorCode.TYPE_MISMATCH)
    made_class: Any = cls
    instance: Any = made_class.__new__(made_class)
    setstate = getattr(instance, "__setstate__", None)
    if setstate is not None:
        setstate(fields)
    else:
        for key, item in fields.items():
            object.__setattr__(instance, key, item)
    return instance


def foreign(value: Any) -> Tuple[str, int]:
    """A placeholder for a value only a named transformer can store."""
    with _lock:
        key = next(_foreign_ids)
        _foreign[key] = value
    return _FOREIGN + type(value).__qualname__, key
