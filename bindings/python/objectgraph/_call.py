"""Calling into the library and raising its error, written once.

Every fallible C function takes a last ``og_error **`` argument. The ``call``
family makes that error slot, calls, and raises what the call reports, as one
of the shapes below; call sites pass the function and its other arguments:

    call(lib.og_model_save, model, path)                    # og_status: OK or NULL
    call_handle(lib.og_model_load, path)                    # a handle; NULL raises
    call_optional(lib.og_coordinator_store_for_path, ...)   # NULL without an error: None
    call_string(lib.og_entity_class_name, entity)           # an owned string, freed: str or None
    call_borrowed(lib.og_predicate_format, predicate)       # a borrowed string; NULL raises
    call_out(lib.og_context_merge_policy, ctypes.c_int, ctx)  # the value of one out-parameter
    call_flag(lib.og_entity_is_abstract, entity)            # ... a bool one
    call_owned(lib.og_object_get_value, take_value, obj, key)  # an owned out-parameter, taken
    call_index(lib.og_entity_slot, entity, key)             # a number; negative raises
    call_quietly(lib.og_context_has_changes, ...)           # (result, error): nothing raised

A few hot paths (a managed object's slot reads and writes, inserting, value
conversion) call the library directly with an error slot of their own, as a
helper's argument forwarding would cost them a few percent, and raise through
``check`` or ``check_handle``, which raise as the helpers do.

How a failure is raised, in order: an exception a callback raised during the
call (kept by ``context``, the Context the call is made for, or else for this
thread) comes first, with the library's error as its context; then the
library's error (an og.Error subclass, converted and released). A call that
succeeds still raises a callback's exception. With ``context``, a merge
error's conflicts lend that context's objects.

The hottest paths (the per-entity accessors of integers, doubles and strings,
_accessors.py) call the library without an error slot at all and come here only
when a call fails.

(The helpers pass ``args + (error slot,)`` as one tuple: cheaper in CPython than
``fn(*args, slot)``.)
"""

from __future__ import annotations

import ctypes
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Mapping, NoReturn, Optional, Sequence, Tuple, TypeVar,
                    Union)

from ._lib import ERROR, NULL
from ._util import _kept, encode, raise_kept, take_string
from .errors import Error, take_error

if TYPE_CHECKING:
    from ._context_base import ContextBase

__all__ = ["call", "call_handle", "call_optional", "call_string", "call_borrowed", "call_out", "call_flag",
           "call_owned", "call_index", "call_quietly", "check", "check_handle", "c_strings", "c_handles",
           "optional_text", "read_strings", "read_string_dict", "write_string_dict"]

_T = TypeVar("_T")
_c_void_p = ctypes.c_void_p
_byref = ctypes.byref


def _fail(err: ctypes.c_void_p, context: Optional["ContextBase"]) -> NoReturn:
    """Raises for a failed call: a callback's exception first, else the library's error."""
    error = take_error(err, context)
    if context is not None and context._pending:
        context._raise_pending(error)
    if _kept:
        raise_kept(error)
    raise error


def _settle(context: Optional["ContextBase"]) -> None:
    """After a call that succeeded: raises what a callback raised during it."""
    if context is not None and context._pending:
        context._raise_pending()
    if _kept:
        raise_kept()


def call(fn: Any, *args: Any, context: Optional["ContextBase"] = None) -> int:
    """``fn(*args, &error)`` for a function returning og_status: OK or NULL
    (nothing there); ERROR raises."""
    err = _c_void_p()
    status: int = fn(*(args + (_byref(err),)))
    if status == ERROR:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return status


def call_handle(fn: Any, *args: Any, context: Optional["ContextBase"] = None) -> int:
    """``fn(*args, &error)`` for a function returning a handle or an owned
    pointer: the pointer; NULL raises."""
    err = _c_void_p()
    handle: Optional[int] = fn(*(args + (_byref(err),)))
    if not handle:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return handle


def call_optional(fn: Any, *args: Any, context: Optional["ContextBase"] = None) -> Optional[int]:
    """As call_handle, for a function that returns NULL without an error when
    there is nothing to return: None then."""
    err = _c_void_p()
    handle: Optional[int] = fn(*(args + (_byref(err),)))
    if not handle and err.value:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return handle or None


def call_string(fn: Any, *args: Any, context: Optional["ContextBase"] = None) -> Optional[str]:
    """An owned string a function returns, copied and freed; None when it
    returns NULL without an error."""
    err = _c_void_p()
    pointer: Optional[int] = fn(*(args + (_byref(err),)))
    if not pointer and err.value:
        _fail(err, context)
    text = take_string(pointer)  # before anything is raised: freed either way
    if _kept or (context is not None and context._pending):
        _settle(context)
    return text


def call_borrowed(fn: Any, *args: Any, context: Optional["ContextBase"] = None) -> bytes:
    """A borrowed string (``const char *``, declared c_char_p) a function returns,
    as bytes; NULL raises (an empty string does not)."""
    err = _c_void_p()
    text: Optional[bytes] = fn(*(args + (_byref(err),)))
    if text is None:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return text


def call_out(fn: Any, kind: Any, *args: Any, context: Optional["ContextBase"] = None) -> Any:
    """``fn(*args, &out, &error)`` with one out-parameter of the ctypes type
    ``kind``: its value, or None when the call answers NULL (nothing there)."""
    out = kind()
    err = _c_void_p()
    status: int = fn(*(args + (_byref(out), _byref(err))))
    if status == ERROR:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return None if status == NULL else out.value


def call_flag(fn: Any, *args: Any, context: Optional["ContextBase"] = None) -> bool:
    """``fn(*args, &out, &error)`` with a bool out-parameter: its value."""
    out = ctypes.c_bool()
    err = _c_void_p()
    if fn(*(args + (_byref(out), _byref(err)))) == ERROR:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return out.value


def call_owned(fn: Any, take: Callable[[Optional[int]], _T], *args: Any,
               context: Optional["ContextBase"] = None) -> Optional[_T]:
    """``fn(*args, &out, &error)`` whose out-parameter is a NEW pointer (an
    og_value, an owned string): ``take(pointer)`` converts and releases it
    before anything is raised, so that nothing leaks. None when the call fails
    or answers NULL (then ``take`` gets None)."""
    out = _c_void_p()
    err = _c_void_p()
    status: int = fn(*(args + (_byref(out), _byref(err))))
    value = take(out.value) if status != ERROR else None
    if status == ERROR:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return value


def call_index(fn: Any, *args: Any, context: Optional["ContextBase"] = None) -> int:
    """A number a function returns, negative when it fails."""
    err = _c_void_p()
    number: int = fn(*(args + (_byref(err),)))
    if number < 0:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return number


def call_quietly(fn: Any, *args: Any) -> Tuple[Any, Optional[Error]]:
    """``fn(*args, &error)`` for a caller that must not raise (a callback, a
    probe, an error being read): what ``fn`` returned, and the error it set
    (converted and released) or None. Exceptions kept for this thread stay
    kept for the next call."""
    err = _c_void_p()
    result = fn(*(args + (_byref(err),)))
    return result, (take_error(err) if err.value else None)


def check(status: int, err: ctypes.c_void_p, context: Optional["ContextBase"] = None) -> int:
    """The end of ``call`` for a hot path that called ``fn(..., &err)`` itself:
    raises as ``call`` does, or returns the status."""
    if status == ERROR:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return status


def check_handle(handle: Optional[int], err: ctypes.c_void_p, context: Optional["ContextBase"] = None) -> int:
    """The end of ``call_handle`` for a hot path that called ``fn(..., &err)``
    itself: raises as ``call_handle`` does, or returns the handle."""
    if not handle:
        _fail(err, context)
    if _kept or (context is not None and context._pending):
        _settle(context)
    return handle


# Arguments and results the C functions share.

def c_strings(items: Sequence[Union[str, bytes]]) -> "ctypes.Array[ctypes.c_char_p]":
    """A `const char **` array of ``items`` (at least one element, so never NULL)."""
    return (ctypes.c_char_p * max(len(items), 1))(*[encode(i) for i in items])


def c_handles(handles: Sequence[Optional[int]]) -> "ctypes.Array[ctypes.c_void_p]":
    """A handle array of ``handles`` (at least one element, so never NULL)."""
    return (ctypes.c_void_p * max(len(handles), 1))(*handles)


def optional_text(text: Optional[str]) -> Optional[bytes]:
    """A `const char *` that may be NULL."""
    return encode(text) if text is not None else None


def read_strings(count: Any, at: Any, handle: Optional[int]) -> List[str]:
    """A list the library keeps as ``count(handle)`` and owned strings ``at(handle, i)``."""
    return [call_string(at, handle, i) or "" for i in range(count(handle))]


def read_string_dict(count: Any, key_at: Any, value: Any, handle: Optional[int]) -> Dict[str, str]:
    """A user-info dictionary: keys by index, values by key, owned strings."""
    return {k: call_string(value, handle, encode(k)) or "" for k in read_strings(count, key_at, handle)}


def write_string_dict(setter: Any, handle: Optional[int], mapping: Mapping[str, str]) -> None:
    """Calls a setter taking (keys, values, count)."""
    keys = list(mapping)
    call(setter, handle, c_strings(keys), c_strings([mapping[k] for k in keys]), len(keys))
