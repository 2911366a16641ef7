"""What lives while ``Coordinator.add_store`` (or ``migrate_store``) runs, for the
callbacks the library makes during it: the frame that tells an incremental store
type's create callback which coordinator and options its store is added with
(incremental.py), and the wrappers migration.py makes for the managers of automatic
migrations, which end when add_store returns. Below the coordinator, which opens the
frames; the modules that fill them sit above it."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple

from ._lib import lib
from ._util import decode

if TYPE_CHECKING:
    from ._incremental_store import IncrementalStore
    from .coordinator import Coordinator
    from .migration import MigrationManager

__all__ = ["Adding", "frame", "automatic", "forget_automatic"]

_frames = threading.local()  # per thread: the add_store calls running, innermost last


class Adding:
    """Coordinator.add_store around its library call: tells the create callback
    which coordinator and options the store is added with, and keeps the
    instance it makes, which ``adopt`` hands back with the store's handle."""

    def __init__(self, coordinator: "Coordinator", options: Optional[Mapping[str, Any]]) -> None:
        self.coordinator = coordinator
        self.options: Dict[str, Any] = dict(options or {})
        self.made: List["IncrementalStore"] = []

    def __enter__(self) -> "Adding":
        stack: Optional[List[Adding]] = getattr(_frames, "stack", None)
        if stack is None:
            stack = _frames.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _frames.stack.pop()

    def adopt(self, handle: int) -> Optional["IncrementalStore"]:
        """The instance made for the store ``handle`` (found by its UUID), now
        holding the handle; None for a store of another kind."""
        if not self.made:
            return None
        uuid = decode(lib.og_store_uuid(handle)) or ""
        for instance in reversed(self.made):
            if instance.uuid == uuid:
                instance._h = handle
                return instance
        return None


def frame() -> Optional[Adding]:
    """The innermost add_store running on this thread, or None."""
    stack: Optional[List[Adding]] = getattr(_frames, "stack", None)
    return stack[-1] if stack else None


# Wrappers of the managers of automatic migrations (made by migration.py for their
# policies), by (thread, handle), until their add_store returns.
automatic: Dict[Tuple[int, int], "MigrationManager"] = {}


def forget_automatic() -> None:
    """Ends the wrappers of the automatic migrations this thread's add_store ran."""
    if not automatic:
        return
    me = threading.get_ident()
    for key in [k for k in list(automatic) if k[0] == me]:
        manager = automatic.pop(key, None)
        if manager is not None:
            manager._end()
