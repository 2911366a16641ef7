"""The plumbing behind a context's callbacks: hooks, validation hooks,
notifications and perform blocks.

The library calls five C trampolines defined once here; each registration is
a number in a registry that names the Python callable and (weakly) its
context. A callback's exception never crosses into the library: a validation
hook's exception becomes the validation error the save reports (and one that is
not an Exception, such as KeyboardInterrupt, is re-raised by the save itself),
and any other exception is kept by the context and re-raised by the call that
ran the callback: a property read that fired a fault re-raises what
awake_from_fetch raised (a block queued with ``perform`` reports to the next
call). Callbacks nested too deeply fail with RecursionError.
"""

from __future__ import annotations

import atexit
import itertools
import sys
import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from ._call import call, call_handle, call_quietly
from ._handle import OwnedHandle
from ._lib import BLOCK_FN, ERROR, HOOK_FN, NOTIFICATION_FN, OK, VALIDATION_FN, VALUE_VALIDATION_FN, lib
from ._util import keep, normalize, take_string
from .errors import Error, ErrorCode, unreported
from .values import from_value

if TYPE_CHECKING:
    from .context import Context
    from .history import HistoryToken
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


class Changes(OwnedHandle):
    """An og_changes record: the object IDs a save inserted, updated and
    deleted. It holds IDs only, so it may be merged on any thread; the record
    is released with this object."""

    # og_change_kind by the keys of merge_remote_changes.
    KINDS = {"inserted": 0, "updated": 1, "deleted": 2}

    def __init__(self, handle: int) -> None:
        self._h = handle
        self._closed = False

    def uris(self, key: str) -> List[str]:
        """The IDs under "inserted", "updated" or "deleted", as URIs."""
        kind = self.KINDS[key]
        return [take_string(call_handle(lib.og_changes_uri_at, self._h, kind, index)) or ""
                for index in range(lib.og_changes_count(self._h, kind))]

    def _release(self) -> None:
        lib.og_changes_release(self._h)


@dataclass
class Notification:
    """What a context notification carries (Core Data's userInfo keys). A
    "did_save" notification also keeps the IDs of the save, for another
    context's ``merge_changes``."""

    name: str
    inserted: List["ManagedObject"] = field(default_factory=list)
    updated: List["ManagedObject"] = field(default_factory=list)
    deleted: List["ManagedObject"] = field(default_factory=list)
    refreshed: List["ManagedObject"] = field(default_factory=list)
    invalidated: List["ManagedObject"] = field(default_factory=list)
    invalidated_all: bool = False
    # Set for "remote_change" notifications: NSPersistentHistoryTokenKey and NSStoreUUIDKey.
    history_token: Optional["HistoryToken"] = None
    store_uuid: Optional[str] = None
    # The save's object IDs (og_notification_changes), taken while the
    # library's notification exists: it is lent to the observer only.
    _changes: Optional[Changes] = field(default=None, repr=False, compare=False)
    _changes_error: Optional[Error] = field(default=None, repr=False, compare=False)


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
            call(lib.og_context_remove_observer, self._context._h, self._token)

    def __enter__(self) -> "Observer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _error_for(exc: BaseException, key: Optional[bytes]) -> Optional[int]:
    """A NEW og_error for a validation hook's exception (None if even that fails)."""
    try:
        if isinstance(exc, Error) and exc.code:
            # An og.Error keeps its own domain and code through the save.
            message = exc.message or type(exc).__name__
            handle: Optional[int] = lib.og_error_new_in_domain(exc.domain.encode("utf-8", "replace"), int(exc.code),
                                                               message.encode("utf-8", "replace"), key)
            return handle
        message = str(exc) or type(exc).__name__
        made: Optional[int] = lib.og_error_new(int(ErrorCode.VALIDATION), message.encode("utf-8", "replace"), key)
        return made
    except BaseException:  # noqa: BLE001 - the save still fails, with the library's own error
        return None


# How deeply callbacks may nest on one thread (a hook whose work runs the hook
# again, and again): past this, the innermost one fails with RecursionError
# instead of letting the interpreter run out of stack inside a ctypes call, where
# the error would surface as ctypes.ArgumentError or, at the entry of a callback,
# be printed and dropped.
_nesting = threading.local()


def _nesting_limit() -> int:
    return max(8, sys.getrecursionlimit() // 25)


class _Nested:
    """Counts one callback level on this thread; refuses one too many."""

    __slots__ = ("depth",)

    def __enter__(self) -> None:
        depth = getattr(_nesting, "depth", 0)
        if depth >= _nesting_limit():
            raise RecursionError(f"callbacks nested {depth} deep: a hook, observer or block keeps running itself")
        _nesting.depth = depth + 1

    def __exit__(self, *exc: object) -> None:
        _nesting.depth = getattr(_nesting, "depth", 1) - 1


_nested = _Nested()


def _keep(context: Optional["Context"], exc: BaseException) -> None:
    """Keeps a callback's exception for the call that ran it: the context's, or
    this thread's when there is no context."""
    exc = normalize(exc)
    if context is not None:
        context._pending.append(exc)
    else:
        keep(exc)


def _callback(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a function the library calls, for the unraisable-exception hook below."""
    fn._og_callback = True  # type: ignore[attr-defined]
    return fn


@_callback
def _block_fn(user: Optional[int]) -> None:
    context = None
    try:
        context, fn = _lookup(user, pop=True)
        if context is None or fn is None:
            return
        with _nested:
            fn()
    except BaseException as exc:  # noqa: BLE001 - kept and re-raised by the context
        _keep(context, exc)


@_callback
def _hook_fn(obj: Optional[int], user: Optional[int]) -> None:
    context = None
    try:
        context, fn = _lookup(user)
        if context is None or fn is None or not obj:
            return
        with _nested:
            fn(context._wrap(obj))
    except BaseException as exc:  # noqa: BLE001
        _keep(context, exc)


def _refuse(context: Optional["Context"], exc: BaseException, error: Any, key: Optional[bytes]) -> int:
    """A validation hook's exception: the validation error of the save. An
    exception that is not an Exception (KeyboardInterrupt, SystemExit) is also
    kept, so the save re-raises it rather than a ValidationError."""
    exc = normalize(exc)
    try:
        error[0] = _error_for(exc, key)
    finally:
        if not isinstance(exc, Exception):
            _keep(context, exc)
    return ERROR


@_callback
def _validation_fn(obj: Optional[int], error: Any, user: Optional[int]) -> int:
    context = None
    try:
        context, fn = _lookup(user)
        if context is None or fn is None or not obj:
            return OK
        with _nested:
            accepted = fn(context._wrap(obj))
    except BaseException as exc:  # noqa: BLE001 - becomes the validation error
        return _refuse(context, exc, error, None)
    return ERROR if accepted is False else OK


@_callback
def _will_save_fn(obj: Optional[int], error: Any, user: Optional[int]) -> int:
    """A will_save hook: an exception fails the save before anything is
    written, and the save re-raises it as it was."""
    context = None
    try:
        context, fn = _lookup(user)
        if context is None or fn is None or not obj:
            return OK
        with _nested:
            fn(context._wrap(obj))
    except BaseException as exc:  # noqa: BLE001 - kept and re-raised by the save
        _keep(context, exc)
        error[0] = _error_for(normalize(exc), None)
        return ERROR
    return OK


@_callback
def _value_validation_fn(obj: Optional[int], key: Optional[bytes], value: Optional[int], error: Any,
                         user: Optional[int]) -> int:
    context = None
    try:
        context, fn = _lookup(user)
        if context is None or fn is None or not obj:
            return OK
        with _nested:
            accepted = fn(context._wrap(obj), (key or b"").decode(), from_value(value, context) if value else None)
    except BaseException as exc:  # noqa: BLE001
        return _refuse(context, exc, error, key)
    return ERROR if accepted is False else OK


@_callback
def _notification_fn(handle: Optional[int], user: Optional[int]) -> None:
    context = None
    try:
        context, fn = _lookup(user)
        if context is None or fn is None or not handle:
            return
        n = Notification(_NOTIFICATION_NAMES.get(lib.og_notification_kind_of(handle), "unknown"))
        for index, key in enumerate(_KEYS):
            objects = getattr(n, key)
            for i in range(lib.og_notification_count(handle, index)):
                obj = lib.og_notification_object_at(handle, index, i, None)
                if obj:
                    objects.append(context._wrap(obj))
        n.invalidated_all = bool(lib.og_notification_invalidated_all(handle))
        if n.name == "did_save":
            n._changes, n._changes_error = _take_changes(handle)
        with _nested:
            fn(n)
    except BaseException as exc:  # noqa: BLE001
        _keep(context, exc)


_block = BLOCK_FN(_block_fn)
_hook = HOOK_FN(_hook_fn)
_validation = VALIDATION_FN(_validation_fn)
_will_save = VALIDATION_FN(_will_save_fn)
# og_validation_kind of a will_save hook that may refuse.
WILL_SAVE_KIND = 3
_value_validation = VALUE_VALIDATION_FN(_value_validation_fn)
_notification = NOTIFICATION_FN(_notification_fn)


# An exception raised where a callback cannot catch it (a KeyboardInterrupt that
# arrives as the interpreter enters the callback) is printed and dropped by ctypes,
# which then returns whatever was in the result slot. Such an exception is kept for
# the thread instead, so the call that ran the callback raises it. Other unraisable
# exceptions go to the hook that was installed before.
_previous_unraisablehook = sys.unraisablehook


def _unraisable(args: Any) -> None:
    if getattr(args.object, "_og_callback", False) and args.exc_value is not None:
        keep(args.exc_value)
        return
    _previous_unraisablehook(args)


sys.unraisablehook = _unraisable


def _take_changes(handle: int) -> Tuple[Optional[Changes], Optional[Error]]:
    """The object IDs of a lent did_save notification, as an owned record, or
    the error that kept the library from giving them (raised by merge_changes)."""
    changes, error = call_quietly(lib.og_notification_changes, handle)
    if not changes:
        return None, error if error is not None else unreported()
    return Changes(changes), None


# Queue contexts still open at exit are closed first, which waits for their
# queued blocks: no callback may reach a finalising interpreter.
_queue_contexts: "weakref.WeakSet[Context]" = weakref.WeakSet()
_queue_contexts_lock = threading.Lock()  # contexts are made on any thread


def track_queue_context(context: "Context") -> None:
    with _queue_contexts_lock:
        _queue_contexts.add(context)


@atexit.register
def _drain_at_exit() -> None:
    with _queue_contexts_lock:
        contexts = list(_queue_contexts)
    for context in contexts:
        try:
            context.close()
        except Exception:
            pass
