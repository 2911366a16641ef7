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
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _archive
from ._archive import archived_name, build, fields_of, foreign  # noqa: F401  (where they were defined before)
from ._call import call
from ._lib import lib
from ._util import encode, keep
from .errors import ErrorCode, make_error
from .values import from_value, to_transformable

__all__ = [
    "register_archivable_class",
    "unregister_archivable_class",
    "register_value_transformer",
    "unregister_value_transformer",
]

_lock = threading.Lock()
# The ctypes callbacks of each registered transformer, kept alive while it is registered.
_transformers: Dict[str, Tuple[Any, Any]] = {}
# Those of transformers unregistered, kept for the life of the process: a save on another
# thread may still be inside one when unregistering returns, and a freed ctypes callback
# would crash it.
_retired: List[Tuple[Any, Any]] = []

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
    call(lib.og_archivable_class_register, encode(name, "the class name"))
    _archive.allow(cls, name)


def unregister_archivable_class(cls: type) -> None:
    """Withdraws a class registered with ``register_archivable_class``; values of
    it can no longer be set or read. UsageError 140002 when it is not registered."""
    name = _archive.withdraw(cls)
    if name is None:
        raise make_error(f"{getattr(cls, '__qualname__', cls)!r} is not a registered archivable class", ErrorCode.INVALID_ARGUMENT)
    call(lib.og_archivable_class_unregister, encode(name, "the class name"))


def register_value_transformer(name: str, forward: Callable[[Any], bytes], reverse: Callable[[bytes], Any]) -> None:
    """Stores the attributes whose ``value_transformer_name`` is ``name`` with
    ``forward(value) -> bytes`` on writes and ``reverse(bytes) -> value`` on
    reads. Core Data: +[NSValueTransformer setValueTransformer:forName:].
    UsageError 140002 when ``name`` is registered already."""
    if not callable(forward) or not callable(reverse):
        raise make_error("a value transformer needs callable forward and reverse functions", ErrorCode.INVALID_ARGUMENT)

    def run_forward(value: int, error: Any, user: Any) -> Optional[int]:
        try:
            data = forward(from_value(value))
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise make_error(f"value transformer {name!r}: forward returned {type(data).__name__}, not bytes",
                                 ErrorCode.CORE_DATA, "NSCocoaErrorDomain")
            data = bytes(data)
            made: Optional[int] = lib.og_value_new_data(data, len(data), None)
            return made
        except BaseException as exc:  # noqa: BLE001 - nothing may unwind through C
            keep(exc)
            return None

    def run_reverse(data: int, length: int, error: Any, user: Any) -> Optional[int]:
        try:
            value = reverse(ctypes.string_at(data, length) if length else b"")
            return to_transformable(value, foreign=True)
        except BaseException as exc:  # noqa: BLE001
            keep(exc)
            return None

    callbacks = (_FORWARD(run_forward), _REVERSE(run_reverse))
    forward_fn = ctypes.cast(callbacks[0], ctypes.c_void_p)
    reverse_fn = ctypes.cast(callbacks[1], ctypes.c_void_p)
    call(lib.og_value_transformer_register, encode(name, "the transformer name"), forward_fn, reverse_fn, None)
    with _lock:
        previous = _transformers.get(name)
        if previous is not None:
            _retired.append(previous)
        _transformers[name] = callbacks


def unregister_value_transformer(name: str) -> None:
    """Removes a transformer registered with ``register_value_transformer``.
    UsageError 140002 for an unknown name."""
    call(lib.og_value_transformer_unregister, encode(name, "the transformer name"))
    with _lock:
        gone = _transformers.pop(name, None)
        if gone is not None:
            _retired.append(gone)
