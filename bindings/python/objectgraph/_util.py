"""Small helpers shared by the wrappers: text in and out, and status checks."""

from __future__ import annotations

import ctypes
import os
from typing import Optional, Union

from ._lib import ERROR, lib
from .errors import take_error

PathLike = Union[str, "os.PathLike[str]"]


def encode(text: Union[str, bytes, "os.PathLike[str]"]) -> bytes:
    """Text for a `const char *` parameter. Bytes pass through unchanged, so the
    library, not Python, judges whether they are valid UTF-8."""
    if isinstance(text, bytes):
        return text
    return os.fspath(text).encode("utf-8")


def decode(raw: Optional[bytes]) -> Optional[str]:
    return None if raw is None else raw.decode("utf-8", "replace")


def take_string(pointer: Optional[int]) -> Optional[str]:
    """Copies an owned `char *` and frees it with og_free."""
    if not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        lib.og_free(pointer)


def check(status: int, err: ctypes.c_void_p) -> int:
    """Raises the error of a failed call; returns OK or NULL otherwise."""
    if status == ERROR:
        raise take_error(err)
    return status


def check_handle(handle: Optional[int], err: ctypes.c_void_p) -> int:
    """Raises the error of a call that returned NULL; returns the handle otherwise."""
    if not handle:
        raise take_error(err)
    return handle
