"""Undo managers: stacks of undo groups that contexts register their changes
with (NSUndoManager as Core Data uses it).

    manager = og.UndoManager()
    ctx.undo_manager = manager
    book.title = "Dune Messiah"
    ctx.process_pending_changes()      # the end of an event closes its group
    ctx.undo()                         # book.title is back
    ctx.redo()

A context registers the changes of an event (everything between two ends of
an event: ``process_pending_changes()``, the end of a ``perform`` block, a
``save()``) as one action. With ``groups_by_event`` (the default) each event's
actions make one group; otherwise they go into the group ``begin_grouping()``
opened. One manager may serve several contexts, on several threads: undoing a
group whose context belongs to another thread raises WrongThreadError (140007)
and changes nothing.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Optional

from ._call import call, call_handle
from ._handle import OwnedHandle
from ._lib import lib
from ._util import encode, take_string
from .errors import ErrorCode, make_error

if TYPE_CHECKING:
    from .context import Context

__all__ = ["UndoManager"]


class UndoManager(OwnedHandle):
    """A stack of undo groups and one of redo groups (NSUndoManager).

    Assign it to ``ctx.undo_manager``; the contexts using it keep it alive.
    ``levels_of_undo`` (0: unlimited) and ``groups_by_event`` (True) may be
    given as keywords. Any thread may use it; its state is locked by the
    library."""

    def __init__(self, *, levels_of_undo: int = 0, groups_by_event: bool = True) -> None:
        self._h = call_handle(lib.og_undo_manager_new)
        self._closed = False
        # The contexts that use this manager: an undo or redo re-raises what their
        # callbacks (observers, hooks) raised while it ran.
        # Changed and read under _contexts_lock: contexts of several threads may share it.
        self._contexts: "weakref.WeakSet[Context]" = weakref.WeakSet()
        self._contexts_lock = threading.Lock()
        if levels_of_undo != 0:
            self.levels_of_undo = levels_of_undo
        if groups_by_event is not True:
            self.groups_by_event = groups_by_event

    def _handle(self) -> int:
        """The handle; InvalidHandleError once closed (for the calls without an error slot)."""
        if self._closed:
            raise make_error("this UndoManager is closed", ErrorCode.INVALID_HANDLE)
        assert self._h is not None
        return self._h

    def _call(self, function: Any, *args: Any) -> int:
        return call(function, self._h, *args)

    # Undo and redo.

    @property
    def can_undo(self) -> bool:
        """Whether there is a group to undo (an open event group with changes counts)."""
        return bool(lib.og_undo_manager_can_undo(self._handle()))

    @property
    def can_redo(self) -> bool:
        """Whether there is an undone group to redo."""
        return bool(lib.og_undo_manager_can_redo(self._handle()))

    def undo(self) -> None:
        """Undoes the newest group (with ``groups_by_event``, an open event group
        is closed first); nothing happens when there is nothing to undo.
        UsageError while a group of ``begin_grouping()`` is open or from inside
        an undo; WrongThreadError when a context of the group belongs to
        another thread (nothing is changed then). Unlike ``ctx.undo()``, it does
        not process a context's pending changes first."""
        try:
            self._call(lib.og_undo_manager_undo)
        finally:
            self._raise_pending()

    def redo(self) -> None:
        """Redoes the newest undone group; errors as ``undo()``."""
        try:
            self._call(lib.og_undo_manager_redo)
        finally:
            self._raise_pending()

    def remove_all_actions(self) -> None:
        """Empties both stacks (open groups stay open, emptied)."""
        self._call(lib.og_undo_manager_remove_all_actions)

    def _raise_pending(self) -> None:
        """Re-raises what callbacks of this thread's contexts raised during an undo or redo."""
        with self._contexts_lock:
            contexts = list(self._contexts)
        for context in contexts:
            if context._pending and context._owned_here():
                context._raise_pending()

    def _attach(self, context: "Context") -> None:
        with self._contexts_lock:
            self._contexts.add(context)

    def _detach(self, context: "Context") -> None:
        with self._contexts_lock:
            self._contexts.discard(context)

    # Settings.

    @property
    def levels_of_undo(self) -> int:
        """How many groups are kept (default 0: all); older groups are dropped."""
        return int(lib.og_undo_manager_levels_of_undo(self._handle()))

    @levels_of_undo.setter
    def levels_of_undo(self, levels: int) -> None:
        if isinstance(levels, bool) or not isinstance(levels, int):
            raise make_error(f"levels_of_undo is an int, not {type(levels).__name__}", ErrorCode.TYPE_MISMATCH)
        if levels < 0:
            raise make_error(f"levels_of_undo cannot be negative ({levels})", ErrorCode.INVALID_ARGUMENT)
        self._call(lib.og_undo_manager_set_levels_of_undo, levels)

    @property
    def groups_by_event(self) -> bool:
        """Whether each event's changes make one group (default True); when
        False they go into the group ``begin_grouping()`` opened, and are not
        recorded while none is open."""
        return bool(lib.og_undo_manager_groups_by_event(self._handle()))

    @groups_by_event.setter
    def groups_by_event(self, on: bool) -> None:
        self._call(lib.og_undo_manager_set_groups_by_event, bool(on))

    # Groups.

    def begin_grouping(self) -> None:
        """Opens a group; groups nest, an inner one folding into its outer one."""
        self._call(lib.og_undo_manager_begin_grouping)

    def end_grouping(self) -> None:
        """Closes the innermost open group; UsageError (140002) when none is open."""
        self._call(lib.og_undo_manager_end_grouping)

    @property
    def grouping_level(self) -> int:
        """How many groups are open."""
        return int(lib.og_undo_manager_grouping_level(self._handle()))

    # Action names.

    @property
    def undo_action_name(self) -> str:
        """The name of the group ``undo()`` would undo ("" when unnamed).
        Setting it names the open group, or else the newest one."""
        return take_string(call_handle(lib.og_undo_manager_undo_action_name, self._h)) or ""

    @undo_action_name.setter
    def undo_action_name(self, name: str) -> None:
        if not isinstance(name, str):
            raise make_error(f"undo_action_name is a str, not {type(name).__name__}", ErrorCode.TYPE_MISMATCH)
        self._call(lib.og_undo_manager_set_action_name, encode(name))

    @property
    def redo_action_name(self) -> str:
        """The name of the group ``redo()`` would redo ("" when unnamed)."""
        return take_string(call_handle(lib.og_undo_manager_redo_action_name, self._h)) or ""

    # Registration.

    def disable_undo_registration(self) -> None:
        """Stops recording; calls nest, each needing its ``enable_undo_registration()``."""
        self._call(lib.og_undo_manager_disable_registration)

    def enable_undo_registration(self) -> None:
        """Undoes one ``disable_undo_registration()``; UsageError (140002) when
        registration is not disabled."""
        self._call(lib.og_undo_manager_enable_registration)

    @property
    def is_undo_registration_enabled(self) -> bool:
        return bool(lib.og_undo_manager_is_registration_enabled(self._handle()))

    # Life cycle.

    def _release(self) -> None:
        """Releases this handle; contexts using the manager keep it alive
        (``ctx.undo()`` still works), but this object can no longer be used."""
        lib.og_undo_manager_release(self._h)

    def __repr__(self) -> str:
        if self._closed:
            return "<objectgraph.UndoManager closed>"
        return (f"<objectgraph.UndoManager can_undo={self.can_undo} can_redo={self.can_redo} "
                f"grouping_level={self.grouping_level}>")


def _check_manager(value: Optional[object]) -> Optional[UndoManager]:
    """The manager ``ctx.undo_manager = value`` sets; TypeMismatchError for anything else."""
    if value is None or isinstance(value, UndoManager):
        return value
    raise make_error(f"undo_manager is an og.UndoManager or None, not {type(value).__name__}",
                     ErrorCode.TYPE_MISMATCH)
