"""Small helpers shared by the wrappers: text in and out, the exceptions of callbacks
that ran without a context to keep them (raised by the next call, _call.py), and a
pause of the cycle collector for bulk wrapping."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import threading
from typing import Dict, Iterator, List, Optional, Tuple, Union

from ._lib import lib
from .errors import ErrorCode, make_error

PathLike = Union[str, "os.PathLike[str]"]


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Pauses CPython's cycle collector around a loop that makes many objects it tracks
    and no cycles, then lets it run again. A collector already off stays off.

    The objects made are moved to the oldest generation as the collector resumes, in
    one step (gc.freeze, then gc.unfreeze): otherwise its next allocation would set off
    a collection of the youngest generation over all of them, a tenth of a 200,000-object
    fetch, and a second one later in the middle generation, to find no garbage. Skipped
    while the program keeps objects frozen itself: unfreeze would release them."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def encode(text: Union[str, bytes, "os.PathLike[str]"], what: str = "a name or path") -> bytes:
    """Text for a `const char *` parameter: a name, key, path or format string.
    Bytes pass through unchanged, so the library, not Python, judges whether they
    are valid UTF-8. A NUL would end the C string early (a store created at
    another path, a predicate cut short), so text holding one is refused, as is
    anything that is not text (UsageError, 140002)."""
    if isinstance(text, bytes):
        raw = text
    elif isinstance(text, str):
        raw = text.encode("utf-8", "surrogatepass")
    else:
        try:
            path = os.fspath(text)
        except TypeError:
            raise make_error(f"{what} must be text, not {type(text).__name__}", ErrorCode.INVALID_ARGUMENT) from None
        raw = path if isinstance(path, bytes) else path.encode("utf-8", "surrogatepass")
    if b"\0" in raw:
        raise make_error(f"{what} cannot hold a NUL character: {text!r}", ErrorCode.INVALID_ARGUMENT)
    return raw


def encode_value(text: str) -> bytes:
    """A string value's UTF-8, embedded NULs kept: passed with its length (the
    `_n` functions), as Core Data and SQLite keep such strings."""
    return text.encode("utf-8", "surrogatepass")


def decode(raw: Optional[bytes]) -> Optional[str]:
    return None if raw is None else raw.decode("utf-8", "replace")


def take_string(pointer: Optional[int], length: Optional[int] = None) -> Optional[str]:
    """Copies an owned `char *` (``length`` bytes when given, embedded NULs
    included; up to its NUL otherwise) and frees it with og_free."""
    if not pointer:
        return None
    try:
        raw = ctypes.string_at(pointer) if length is None else ctypes.string_at(pointer, length)
        return raw.decode("utf-8", "replace")
    finally:
        lib.og_free(pointer)


# Exceptions of callbacks that ran on a thread without a context to hold them (a
# Python atomic store's load and save, a callback the interpreter could not even
# start), by thread: the next check on that thread re-raises them, so the call that
# ran the callback fails with the user's own exception.
_kept: Dict[int, List[BaseException]] = {}
_kept_lock = threading.Lock()


def normalize(exc: BaseException) -> BaseException:
    """The exception a caller should see for one a callback raised. Unbounded
    recursion that ran out of stack inside a ctypes call shows up as
    ``ctypes.ArgumentError("argument 1: RecursionError: ...")``: it is reported
    as the RecursionError it is."""
    if isinstance(exc, ctypes.ArgumentError) and "RecursionError" in str(exc):
        recursion = RecursionError(str(exc).split("RecursionError: ", 1)[-1])
        recursion.__cause__ = exc
        return recursion
    return exc


def keep(exc: BaseException) -> None:
    """Keeps a callback's exception for the current thread's next check."""
    with _kept_lock:
        _kept.setdefault(threading.get_ident(), []).append(normalize(exc))


def raise_kept(error: Optional[BaseException] = None) -> None:
    """Re-raises the first exception kept for this thread (the library's
    ``error`` for the same call, and further kept ones, as its context). Does
    nothing when there is none."""
    with _kept_lock:
        kept = _kept.pop(threading.get_ident(), None)
    if not kept:
        return
    first = kept[0]
    chain: Tuple[Optional[BaseException], ...] = (*kept[1:], error)
    for extra in chain:
        if extra is not None and first.__context__ is None and extra is not first:
            first.__context__ = extra
            break
    raise first


__all__ = ["PathLike", "collection_paused", "encode", "encode_value", "decode", "take_string", "keep", "raise_kept",
           "normalize"]
