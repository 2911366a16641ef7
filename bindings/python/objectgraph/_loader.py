"""Finds and loads libobjectgraph: $OBJECTGRAPH_LIBRARY, then a copy next to this
package, then the system loader. Plain Python: the library's functions are declared
in _lib.py."""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from typing import List, Optional

__all__ = ["ENV_VAR", "LibraryNotFoundError", "load"]

ENV_VAR = "OBJECTGRAPH_LIBRARY"


class LibraryNotFoundError(ImportError):
    """libobjectgraph could not be found or loaded."""


def load() -> "tuple[ctypes.CDLL, str]":
    """$OBJECTGRAPH_LIBRARY when set; else the library bundled in this package
    (a wheel's); else the system loader's. A file that exists but does not load
    is named with the loader's reason."""
    tried: List[str] = []
    broken: List[str] = []  # files that exist but did not load, with the loader's reason

    explicit = os.environ.get(ENV_VAR)
    if explicit:
        # An explicit choice that fails is an error, not a reason to pick another copy.
        try:
            return ctypes.CDLL(explicit), explicit
        except OSError as exc:
            why = "the file does not exist" if not os.path.exists(explicit) else f"it was found but did not load: {exc}"
            raise LibraryNotFoundError(f"{ENV_VAR}={explicit!r} could not be loaded: {why}") from exc
    tried.append(f"${ENV_VAR} (not set)")

    here = os.path.dirname(os.path.abspath(__file__))
    bundled = sorted(glob.glob(os.path.join(here, "libobjectgraph.so*")))
    for candidate in bundled:
        try:
            return ctypes.CDLL(candidate), candidate
        except OSError as exc:
            broken.append(str(exc) if candidate in str(exc) else f"{candidate}: {exc}")
    if not bundled:
        tried.append(f"{here}/libobjectgraph.so* (none)")

    names: List[Optional[str]] = [ctypes.util.find_library("objectgraph"), "libobjectgraph.so.0"]
    for name in names:
        if name is None:
            tried.append("ctypes.util.find_library('objectgraph') (nothing)")
            continue
        try:
            return ctypes.CDLL(name), name
        except OSError as exc:
            message = str(exc)
            if "cannot open shared object file" in message and name in message.split(":")[0]:
                tried.append(f"{name} (not found by the system loader)")
            else:
                broken.append(f"{name}: {exc}")

    if broken:
        hint = ""
        if any("libswift" in reason or "libFoundation" in reason for reason in broken):
            hint = (" (this library was built to use the Swift runtime's shared libraries; "
                    "build it with -DOBJECTGRAPH_STATIC_STDLIB=ON to carry the runtime inside)")
        raise LibraryNotFoundError("libobjectgraph was found but could not be loaded: " + "; ".join(broken) + hint)
    raise LibraryNotFoundError(
        "libobjectgraph.so was not found. Set OBJECTGRAPH_LIBRARY to its full path, "
        "put it next to the objectgraph package, or install it where the system "
        "loader looks (then run ldconfig). Tried: " + "; ".join(tried)
    )
