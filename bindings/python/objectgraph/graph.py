"""The plumbing behind a context's callbacks: hooks, validation hooks,
notifications and perform blocks.

The library calls five C trampolines defined once here; each registration is
a number in a registry that names the Python callable and (weakly) its
context. A callback's exception never crosses into the library: a validation
hook's exception becomes the validation error the save reports, and any other
exception is kept by the context and re-raised by the context call that ran
the callback (or, for a block queued with ``perform``, by the next call).
"""

from __future__ import annotations

import atexit
import ctypes
import itertools
import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from ._lib import BLOCK_FN, ERROR, HOOK_FN, NOTIFICATION_FN, OK, VALIDATION_FN, VALUE_VALIDATION_FN, lib
from .errors import Error, ErrorCode

if TYPE_CHECKING:
    from .context import Context
    from .objects import ManagedObject

__all__ = ["Notification", "Observer", "HOOKS", "VALIDATION_HOOKS", "NOTIFICATIONS"]

# og_hook_kind, og_validation_kind and og_notification_kind by their Python names.
HOOKS = {
    "awake_from_insert": 0,
    "awake_from_fetch": 1,
    "awake_from_snapshot_events": 2,
    "will_save": 3,
    "did_save": 4,
    "prepare_for_deletion": 5,
    "will_turn_into_fault": 6,
    "did_turn_into_fault": 7,
}
VALIDATION_HOOKS = {"validate_for_insert": 0, "validate_for_update": 1, "validate_for_delete": 2}
NOTIFICATIONS = {"objects_did_change": 0, "will_save": 1, "did_save": 2}
_NOTIFICATION_NAMES = {v: k for k, v in NOTIFICATIONS.items()}
_KEYS = ("inserted", "updated", "deleted", "refreshed", "invalidated")

_ids = itertools.count(1)
_lock = threading.Lock()
# Registration number -> (weak reference to the context, callable).
_registry: Dict[int, Tuple["weakref.ref[Context]", Callable[..., Any]]] = {}


def register(context: "Context", fn: Callable[..., Any]) -> int:
    with _lock:
        number = next(_ids)
        _registry[number] = (weakref.ref(context), fn)
    return number


def unregister(number: Optional[int]) -> None:
    if number is not None:
        with _lock:
            _registry.pop(number, None)


def _lookup(user: Optional[int], pop: bool = False) -> Tuple[Optional["Context"], Optional[Callable[..., Any]]]:
    with _lock:
        entry = _registry.pop(user, None) if pop else _registry.get(user)  # type: ignore[arg-type]
    if entry is None:
        return None, None
    return entry[0](), entry[1]


@dataclass
class Notification:
    """What a context notification carries (Core Data's userInfo keys)."""

    name: str
    inserted: List["ManagedObject"] = field(default_factory=list)
    updated: List["ManagedObject"] = field(default_factory=list)
    deleted: List["ManagedObject"] = field(default_factory=list)
    refreshed: List["ManagedObject"] = field(default_factory=list)
    invalidated: List["ManagedObject"] = field(default_factory=list)
    invalidated_all: bool = False


class Observer:
    """A registered observer; ``remove()`` stops it for good (also usable as a
    context manager)."""

    def __init__(self, context: "Context", token: int, number: int) -> None:
        self._context = context
        self._token = token
        self._number = number
        self.removed = False

    def remove(self) -> None:
        if self.removed:
            return
        self.removed = True
        unregister(self._number)  # never called again, even if the library still held it
        if not self._context.closed:
            err = ctypes.c_void_p()
            from ._util import check

            check(lib.og_context_remove_observer(self._context._h, self._token, ctypes.byref(err)), err)

    def __enter__(self) -> "Observer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _error_for(exc: BaseException, key: Optional[bytes]) -> int:
    """A NEW og_error for a validation hook's exception."""
    code = exc.code if isinstance(exc, Error) and 1550 <= exc.code <= 1680 else ErrorCode.VALIDATION
    message = (exc.message if isinstance(exc, Error) else str(exc)) or type(exc).__name__
    return lib.og_error_new(int(code), message.encode("utf-8", "replace"), key)


@BLOCK_FN
def _block(user: Optional[int]) -> None:
    context, fn = _lookup(user, pop=True)
    if context is None or fn is None:
        return
    try:
        fn()
    except BaseException as exc:  # noqa: BLE001 - kept and re-raised by the context
        context._pending.append(exc)


@HOOK_FN
def _hook(obj: Optional[int], user: Optional[int]) -> None:
    context, fn = _lookup(user)
    if context is None or fn is None or not obj:
        return
    try:
        fn(context._wrap(obj))
    except BaseException as exc:  # noqa: BLE001
        context._pending.append(exc)


@VALIDATION_FN
def _validation(obj: Optional[int], error: Any, user: Optional[int]) -> int:
    context, fn = _lookup(user)
    if context is None or fn is None or not obj:
        return OK
    try:
        accepted = fn(context._wrap(obj))
    except BaseException as exc:  # noqa: BLE001 - becomes the validation error
        error[0] = _error_for(exc, None)
        return ERROR
    if accepted is False:
        return ERROR
    return OK


@VALUE_VALIDATION_FN
def _value_validation(obj: Optional[int], key: Optional[bytes], value: Optional[int], error: Any,
                      user: Optional[int]) -> int:
    context, fn = _lookup(user)
    if context is None or fn is None or not obj:
        return OK
    from .values import from_value

    try:
        accepted = fn(context._wrap(obj), (key or b"").decode(), from_value(value, context) if value else None)
    except BaseException as exc:  # noqa: BLE001
        error[0] = _error_for(exc, key)
        return ERROR
    return ERROR if accepted is False else OK


@NOTIFICATION_FN
def _notification(handle: Optional[int], user: Optional[int]) -> None:
    context, fn = _lookup(user)
    if context is None or fn is None or not handle:
        return
    try:
        n = Notification(_NOTIFICATION_NAMES.get(lib.og_notification_kind_of(handle), "unknown"))
        for index, key in enumerate(_KEYS):
            objects = getattr(n, key)
            for i in range(lib.og_notification_count(handle, index)):
                obj = lib.og_notification_object_at(handle, index, i, None)
                if obj:
                    objects.append(context._wrap(obj))
        n.invalidated_all = bool(lib.og_notification_invalidated_all(handle))
        fn(n)
    except BaseException as exc:  # noqa: BLE001
        context._pending.append(exc)


# Queue contexts still open at exit are closed first, which waits for their
# queued blocks: no callback may reach a finalising interpreter.
_queue_contexts: "weakref.WeakSet[Context]" = weakref.WeakSet()


@atexit.register
def _drain_at_exit() -> None:
    for context in list(_queue_contexts):
        try:
            context.close()
        except Exception:
            pass
