"""Managed object contexts: the scratch pad where objects are inserted,
changed, deleted, fetched and saved.

A context belongs to the thread that created it; calls from another thread
raise WrongThreadError. It hands out one Python object per managed object, so
``ctx.fetch("Book")[0] is book`` holds for as long as ``book`` is referenced.

Context is built in layers: ContextBase (_context_base.py: the handle, the
exceptions callbacks raised, the objects it hands out, insert and delete), then
FetchingContext (_context_fetch.py: fetch, count, explain and the like), then
everything here: saving, the life cycle, settings, undo, merging, queues, hooks.
"""

from __future__ import annotations

import ctypes
import datetime
import threading
import weakref
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from . import graph as _graph
from ._call import call, call_flag, call_handle, call_optional, call_out, call_owned
from ._context_batch import BatchingContext
from ._lib import HOOK_FN, VALIDATION_FN, VALUE_VALIDATION_FN, lib
from ._util import encode, take_string
from .coordinator import Coordinator
from .enums import MergePolicy
from .errors import ErrorCode, make_error
from .fetch import FetchRequest
from .graph import Changes, Notification, Observer
from .history import (HISTORY_RESULT_TYPES, HistoryToken, Transaction, delete_history, history_result_type,
                      read_history)
from .objects import ManagedObject, _target
from .undo import UndoManager, _check_manager

__all__ = ["Context", "Notification", "Observer"]

_T = TypeVar("_T")
_CONCURRENCY = {"confinement": 0, "private": 1, "main": 2}
_CONCURRENCY_NAMES = {v: k for k, v in _CONCURRENCY.items()}

# Context wrappers by handle, for store callbacks that are handed an og_context (an
# incremental store's hooks): weak, so that a wrapper still goes when nobody holds it.
# Single lookups, stores and removals need no lock (a lock here could be re-entered by a
# wrapper collected, and closed, during a lookup).
_by_handle: "weakref.WeakValueDictionary[int, Context]" = weakref.WeakValueDictionary()
# Per thread: the contexts whose save() or obtain_permanent_ids() is running, innermost
# last. An incremental store's obtain_permanent_ids callback is handed objects, not their
# context: they are this one's.
_saving = threading.local()


def context_for_handle(handle: Optional[int]) -> Optional["Context"]:
    """The wrapper of an og_context handle, or None when Python made none for it."""
    return _by_handle.get(handle) if handle else None


def saving_context() -> Optional["Context"]:
    """The context whose save (or obtain_permanent_ids) runs on this thread, innermost."""
    stack: Optional[List["Context"]] = getattr(_saving, "stack", None)
    return stack[-1] if stack else None


class _Saving:
    """Marks ``context`` as saving on this thread for the length of a ``with``."""

    __slots__ = ("context",)

    def __init__(self, context: "Context") -> None:
        self.context = context

    def __enter__(self) -> None:
        stack = getattr(_saving, "stack", None)
        if stack is None:
            stack = _saving.stack = []
        stack.append(self.context)

    def __exit__(self, *exc: object) -> None:
        _saving.stack.pop()


class Context(BatchingContext):
    """A managed object context over a coordinator: insert, change, delete,
    fetch and save objects. Close it (or use ``with``) to release it."""

    # True for a context the library lends (a migration's), which is never released here.
    _lent = False

    def __init__(self, coordinator: Optional[Coordinator] = None, concurrency: str = "confinement", *,
                 parent: Optional["Context"] = None) -> None:
        """Give exactly one of ``coordinator`` (a root context) and ``parent``
        (a child context, whose store is its parent: its saves go into the
        parent, and reach the store when the root saves).

        ``concurrency`` is "confinement" (the creating thread), "private"
        (its own queue: work inside ``perform``/``perform_and_wait``) or
        "main" (the library's shared main queue)."""
        if concurrency not in _CONCURRENCY:
            raise make_error(f"concurrency must be one of {sorted(_CONCURRENCY)}, not {concurrency!r}",
                             ErrorCode.INVALID_ARGUMENT)
        if (coordinator is None) == (parent is None):
            raise make_error("give a Context either a coordinator or a parent context, not "
                             + ("both" if parent is not None else "neither"), ErrorCode.INVALID_ARGUMENT)
        if parent is not None:
            if not isinstance(parent, Context):
                raise make_error(f"parent must be a Context, not {type(parent).__name__}", ErrorCode.INVALID_ARGUMENT)
            handle = call_handle(lib.og_context_new_child, parent._h, _CONCURRENCY[concurrency])
            coordinator = parent._coordinator
        else:
            assert coordinator is not None
            if not isinstance(coordinator, Coordinator):
                raise make_error(f"coordinator must be a Coordinator, not {type(coordinator).__name__}",
                                 ErrorCode.INVALID_ARGUMENT)
            if concurrency == "confinement":
                handle = call_handle(lib.og_context_new, coordinator._h)
            else:
                handle = call_handle(lib.og_context_new_with_type, coordinator._h, _CONCURRENCY[concurrency])
        self._setup(handle, coordinator, parent)
        if concurrency != "confinement":
            _graph.track_queue_context(self)

    @classmethod
    def _adopt(cls, handle: int, coordinator: Coordinator) -> "Context":
        """A wrapper that owns a queue context the library made (a container's
        background context)."""
        context = cls.__new__(cls)
        context._setup(handle, coordinator, None)
        _graph.track_queue_context(context)
        return context

    @classmethod
    def _borrow(cls, handle: int, coordinator: Coordinator) -> "Context":
        """A wrapper for a context the library lends (a migration's): never
        released from here. ``coordinator`` gives the layouts of its model."""
        context = cls.__new__(cls)
        context._lent = True
        context._setup(handle, coordinator, None)
        return context

    def _setup(self, handle: int, coordinator: Coordinator, parent: Optional["Context"]) -> None:
        # A child keeps its parent's wrapper (and so its hooks and observers) alive.
        self._parent = parent
        # (entity, hook name) -> registry number, so that replacing a hook frees the old one.
        self._hook_numbers: Dict[Tuple[str, str], int] = {}
        # The undo manager set here, kept alive while the context uses it.
        self._undo_manager: Optional[UndoManager] = None
        self._setup_objects(handle, coordinator)
        _by_handle[handle] = self

    @property
    def coordinator(self) -> Coordinator:
        """The coordinator; for a child context, its root context's."""
        return self._coordinator

    @property
    def parent(self) -> Optional["Context"]:
        """The parent context of a child context, None for a root context."""
        return self._parent

    @property
    def concurrency(self) -> str:
        """"confinement", "private" or "main"."""
        return _CONCURRENCY_NAMES.get(lib.og_context_concurrency_type(self._h), "confinement")

    def object_for_uri(self, uri: str) -> Optional[ManagedObject]:
        """The object an object ID URI (``obj.object_id_uri``) names, or None
        when no store of the coordinator has that UUID
        (managedObjectIDForURIRepresentation: then existingObjectWithID:)."""
        handle = call_optional(lib.og_context_object_for_uri, self._h, encode(uri), context=self)
        return None if handle is None else self._wrap(handle)

    @property
    def has_changes(self) -> bool:
        return call_flag(lib.og_context_has_changes, self._h)

    def save(self) -> None:
        """Validates and writes every change in one transaction (a child
        context's save writes into its parent). On failure nothing is written
        and the changes stay pending. Rows changed since they were read are
        resolved by ``merge_policy``; under MergePolicy.ERROR the save raises
        MergeConflictError, whose ``conflicts`` name them. An exception raised
        by a hook during the save is re-raised here."""
        with _Saving(self):
            self._call(lib.og_context_save)  # a merge error's conflicts lend this context's objects

    def assign(self, obj: ManagedObject, store: Any) -> None:
        """Saves the new object ``obj`` to ``store`` (assignObject:toPersistentStore:)
        instead of the first writable store whose configuration holds its
        entity. Only a new object without a permanent ID can be assigned, to
        an attached store that holds its entity."""
        self._call(lib.og_context_assign_object, _target(obj), store._h)

    # The context's life cycle.

    def process_pending_changes(self) -> None:
        """Coalesces the changes so far into one event: applies pending delete
        rules and posts "objects_did_change"."""
        self._call(lib.og_context_process_pending_changes)

    def rollback(self) -> None:
        """Discards every unsaved change: new objects leave the context, deleted
        ones come back, changed ones return to their saved values."""
        self._call(lib.og_context_rollback)

    def reset(self) -> None:
        """Forgets every object and unsaved change. The forgotten objects'
        wrappers become invalid (og.InvalidHandleError): their memory comes back."""
        self._call(lib.og_context_reset)
        self._objects.clear()

    def refresh(self, obj: ManagedObject, merge: bool = False) -> None:
        """Without ``merge`` the object turns into a fault, dropping its unsaved
        changes; with it, unchanged properties take the store's values."""
        self._call(lib.og_context_refresh_object, _target(obj), bool(merge))

    def obtain_permanent_ids(self, objects: Iterable[ManagedObject]) -> None:
        """Gives new objects their permanent IDs before they are saved."""
        handles = [_target(o) for o in objects]
        array = (ctypes.c_void_p * max(1, len(handles)))(*handles)
        with _Saving(self):
            self._call(lib.og_context_obtain_permanent_ids, array, len(handles))

    # Registration, by object ID URI (ManagedObject.object_id).

    def object_registered(self, object_id: str) -> Optional[ManagedObject]:
        """The object registered under ``object_id``, or None; never reads the store."""
        lent = call_out(lib.og_context_object_registered, ctypes.c_void_p, self._h, encode(object_id), context=self)
        return self._wrap(lent) if lent else None

    def object_with_id(self, object_id: str) -> ManagedObject:
        """The registered object, or a fault for it (objectWithID:)."""
        return self._wrap(call_handle(lib.og_context_object_with_uri, self._h, encode(object_id), context=self))

    def existing_object(self, object_id: str) -> ManagedObject:
        """The object with its values loaded; ReferentialIntegrity error (133000)
        when its row is gone."""
        return self._wrap(call_handle(lib.og_context_existing_object, self._h, encode(object_id), context=self))

    def _objects_of(self, which: int) -> List[ManagedObject]:
        return self._take_results(call_handle(lib.og_context_objects, self._h, which, context=self))

    @property
    def registered_objects(self) -> List[ManagedObject]:
        return self._objects_of(0)

    @property
    def inserted_objects(self) -> List[ManagedObject]:
        return self._objects_of(1)

    @property
    def updated_objects(self) -> List[ManagedObject]:
        return self._objects_of(2)

    @property
    def deleted_objects(self) -> List[ManagedObject]:
        return self._objects_of(3)

    @property
    def registered_count(self) -> int:
        count: int = call_out(lib.og_context_registered_count, ctypes.c_size_t, self._h, context=self)
        return count

    # Settings.

    def _get_flag(self, function: Any) -> bool:
        return call_flag(function, self._h, context=self)

    @property
    def retains_registered_objects(self) -> bool:
        """Whether unchanged registered objects are kept alive (default False)."""
        return self._get_flag(lib.og_context_retains_registered_objects)

    @retains_registered_objects.setter
    def retains_registered_objects(self, on: bool) -> None:
        self._call(lib.og_context_set_retains_registered_objects, bool(on))

    @property
    def propagates_deletes_at_end_of_event(self) -> bool:
        """Whether delete rules apply at the end of the event (default True) or
        only at save."""
        return self._get_flag(lib.og_context_propagates_deletes)

    @propagates_deletes_at_end_of_event.setter
    def propagates_deletes_at_end_of_event(self, on: bool) -> None:
        self._call(lib.og_context_set_propagates_deletes, bool(on))

    @property
    def merge_policy(self) -> MergePolicy:
        """How a save resolves objects whose rows changed since they were read
        (default MergePolicy.ERROR); accepts what ``MergePolicy.parse`` does."""
        return MergePolicy(call_out(lib.og_context_merge_policy, ctypes.c_int, self._h, context=self))

    @merge_policy.setter
    def merge_policy(self, policy: Union[MergePolicy, int, str]) -> None:
        self._call(lib.og_context_set_merge_policy, int(MergePolicy.parse(policy)))

    @property
    def stale_interval(self) -> float:
        """How old, in seconds, a cached row may be when a fault fires or an
        object is refreshed (default -1.0): negative, any age; 0, the store is
        always read; positive, older rows are read again (stalenessInterval)."""
        seconds: float = call_out(lib.og_context_staleness_interval, ctypes.c_double, self._h, context=self)
        return seconds

    @stale_interval.setter
    def stale_interval(self, seconds: float) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise make_error(f"stale_interval is a number of seconds, not {seconds!r}", ErrorCode.INVALID_ARGUMENT)
        self._call(lib.og_context_set_staleness_interval, float(seconds))

    @property
    def should_delete_inaccessible_faults(self) -> bool:
        """Whether a fault whose row is gone becomes a deleted object with empty
        values (default True) instead of raising 133000."""
        return self._get_flag(lib.og_context_should_delete_inaccessible_faults)

    @should_delete_inaccessible_faults.setter
    def should_delete_inaccessible_faults(self, on: bool) -> None:
        self._call(lib.og_context_set_should_delete_inaccessible_faults, bool(on))

    @property
    def automatically_merges_changes_from_parent(self) -> bool:
        """Whether this context merges each save of its parent (a child) or of
        the other contexts of its coordinator (a root), posting
        "objects_did_change" on its own queue (default False)."""
        return self._get_flag(lib.og_context_automatically_merges_changes_from_parent)

    @automatically_merges_changes_from_parent.setter
    def automatically_merges_changes_from_parent(self, on: bool) -> None:
        self._call(lib.og_context_set_automatically_merges_changes_from_parent, bool(on))

    @property
    def name(self) -> Optional[str]:
        """The context's name (default None); a save records it as the history
        transaction's context name."""
        return call_owned(lib.og_context_name, take_string, self._h, context=self)  # None: OG_NULL

    @name.setter
    def name(self, name: Optional[str]) -> None:
        if name is not None and not isinstance(name, str):
            raise make_error(f"name is a str or None, not {type(name).__name__}", ErrorCode.TYPE_MISMATCH)
        self._call(lib.og_context_set_name, None if name is None else encode(name))

    # Persistent history.

    @property
    def transaction_author(self) -> Optional[str]:
        """Recorded as the author of the history transaction of each save and
        batch (default None). Core Data: transactionAuthor."""
        return call_owned(lib.og_context_transaction_author, take_string, self._h, context=self)

    @transaction_author.setter
    def transaction_author(self, author: Optional[str]) -> None:
        if author is not None and not isinstance(author, str):
            raise make_error(f"transaction_author is a str or None, not {type(author).__name__}", ErrorCode.TYPE_MISMATCH)
        self._call(lib.og_context_set_transaction_author, None if author is None else encode(author))

    def history(self, after: Union[HistoryToken, datetime.datetime, Transaction, None] = None,
                fetch_request: Optional[FetchRequest] = None, result_type: Union[str, int] = "transactions_and_changes") -> Any:
        """The persistent history of the coordinator's stores that keep it
        (``history_tracking=True``): the transactions after ``after`` (a
        HistoryToken, a datetime or a Transaction; exclusive; None: all),
        oldest first, with their changes. ``fetch_request`` comes from
        ``Transaction.fetch_request`` or ``Change.fetch_request``; the latter
        gives a list of Change. ``result_type`` "count" gives an int,
        "transactions_only" transactions whose ``changes`` is None,
        "changes_only" the changes, "object_ids" their ObjectIDs. Raises
        StoreError 134301 for a token whose transaction was purged, UsageError
        140002 for a fetch request with a sort order, StoreError 134091 when no
        store keeps history."""
        kind = history_result_type(result_type)
        if fetch_request is not None and getattr(fetch_request, "entity", None) == "Change" and kind == 5:
            kind = HISTORY_RESULT_TYPES["changes_only"]
        return read_history(self, after, fetch_request, kind)

    def delete_history(self, before: Union[HistoryToken, datetime.datetime, Transaction]) -> None:
        """Purges the transactions before ``before`` (a HistoryToken, a
        datetime or a Transaction; the token's own transaction is kept).
        Transaction numbers are never reused."""
        delete_history(self, before)

    # Undo and redo.

    @property
    def undo_manager(self) -> Optional[UndoManager]:
        """The og.UndoManager the context registers its changes with, or None
        (the default: nothing is recorded). Set it to a manager, or to None
        to stop recording; anything else raises TypeMismatchError (140006)."""
        call_optional(lib.og_context_undo_manager, self._h)  # raises for a released context, the wrong thread
        return self._undo_manager

    @undo_manager.setter
    def undo_manager(self, manager: Optional[UndoManager]) -> None:
        manager = _check_manager(manager)
        self._call(lib.og_context_set_undo_manager, None if manager is None else manager._h)
        previous, self._undo_manager = self._undo_manager, manager
        if previous is not None and previous is not manager:
            previous._detach(self)
        if manager is not None:
            manager._attach(self)

    def undo(self) -> None:
        """Processes pending changes (closing the event's undo group), then
        undoes the newest group of the undo manager; nothing happens without
        a manager or with nothing to undo. Posts "objects_did_change"."""
        self._call(lib.og_context_undo)

    def redo(self) -> None:
        """Redoes the newest undone group of the undo manager; as ``undo()``."""
        self._call(lib.og_context_redo)

    def refresh_all_objects(self) -> None:
        """Refreshes every registered object, keeping unsaved changes (as
        ``refresh(obj, merge=True)``)."""
        self._call(lib.og_context_refresh_all_objects)

    # Merging other contexts' saves.

    def merge_changes(self, notification: Notification) -> None:
        """Applies another context's save, given by its "did_save"
        notification: updated objects registered here are refreshed keeping
        this context's unsaved changes, deleted ones are marked deleted, and
        inserted ones become fetchable; "objects_did_change" is then posted.
        Call it on this context's thread (inside ``perform_and_wait`` for a
        queue context); the notification may come from any thread."""
        if not isinstance(notification, Notification) or notification.name != "did_save":
            what = notification.name if isinstance(notification, Notification) else type(notification).__name__
            raise make_error(f"merge_changes takes a did_save notification, not {what!r}",
                             ErrorCode.INVALID_ARGUMENT)
        if notification._changes is None:
            if notification._changes_error is not None:
                raise notification._changes_error
            raise make_error("this did_save notification was not posted by a context: it carries no saved changes",
                             ErrorCode.INVALID_ARGUMENT)
        self._call(lib.og_context_merge_changes, notification._changes._h)

    @staticmethod
    def merge_remote_changes(changes: Mapping[str, Iterable[str]], contexts: Sequence["Context"]) -> None:
        """Merges changes made elsewhere (another coordinator or process, a
        batch request) into each of ``contexts``, as ``merge_changes`` does.
        ``changes`` maps "inserted", "updated" and "deleted" to ObjectIDs or
        URI strings. IDs of stores a context's coordinator does not have are
        skipped for that context."""
        if not isinstance(changes, Mapping):
            raise make_error(f"changes is a mapping of 'inserted', 'updated' and 'deleted' to object IDs, not "
                             f"{type(changes).__name__}", ErrorCode.INVALID_ARGUMENT)
        unknown = [key for key in changes if key not in Changes.KINDS]
        if unknown:
            raise make_error(f"unknown change key(s) {', '.join(map(repr, unknown))}; use "
                             + ", ".join(map(repr, Changes.KINDS)), ErrorCode.INVALID_ARGUMENT)
        targets = list(contexts)
        for context in targets:
            if not isinstance(context, Context):
                raise make_error(f"contexts holds a {type(context).__name__}, not a Context", ErrorCode.INVALID_ARGUMENT)
        with Changes(call_handle(lib.og_changes_new)) as record:
            for key, ids in changes.items():
                if isinstance(ids, (str, bytes)):
                    raise make_error(f"changes[{key!r}] is an iterable of object IDs, not one ID",
                                     ErrorCode.INVALID_ARGUMENT)
                for object_id in ids:
                    if not isinstance(object_id, str):
                        raise make_error(f"changes[{key!r}] holds a {type(object_id).__name__}, not an object ID",
                                         ErrorCode.INVALID_ARGUMENT)
                    call(lib.og_changes_add, record._h, Changes.KINDS[key], encode(object_id))
            handles = (ctypes.c_void_p * max(1, len(targets)))(*[c._h for c in targets])
            try:
                call(lib.og_context_merge_remote_changes, record._h, handles, len(targets))
            finally:
                for context in targets:
                    context._raise_pending()

    @property
    def user_info(self) -> "UserInfo":
        """The context's userInfo: a mapping of strings to strings."""
        return UserInfo(self)

    # Queues.

    def perform(self, fn: Callable[[], Any]) -> None:
        """Queues ``fn`` on the context's queue and returns at once. The block
        is one user event: when it returns, pending changes are processed
        ("objects_did_change" posted, the undo group closed). An exception it
        raises is re-raised by the next call on this context. Closing the
        context waits for queued blocks. A "confinement" context has no queue:
        UsageError (140002), and ``fn`` does not run."""
        number = _graph.register(self, fn)
        try:
            call(lib.og_context_perform, self._h, _graph._block, number)
        except BaseException:
            _graph.unregister(number)
            raise

    def perform_and_wait(self, fn: Callable[[], _T]) -> _T:
        """Runs ``fn`` on the context's queue, waits, and returns its result or
        raises its exception. Re-entrant: inside a block it runs at once. Not
        an event: its changes are processed at the end of the next ``perform``
        block, at ``process_pending_changes()`` or at ``save()``. A
        "confinement" context has no queue: UsageError (140002), and ``fn``
        does not run."""
        outcome: List[Any] = []

        def run() -> None:
            try:
                outcome.append((True, fn()))
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                outcome.append((False, exc))

        number = _graph.register(self, run)
        try:
            call(lib.og_context_perform_and_wait, self._h, _graph._block, number)
        finally:
            _graph.unregister(number)
        self._raise_pending()
        if not outcome:
            raise make_error("the block did not run", ErrorCode.INVALID_ARGUMENT)
        ok, value = outcome[0]
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    # Hooks and notifications.

    def set_hooks(self, entity: str, **hooks: Optional[Callable[..., Any]]) -> None:
        """Sets (or with None removes) life-cycle and validation hooks of
        ``entity`` and its subentities in this context: ``awake_from_insert``,
        ``awake_from_fetch``, ``awake_from_snapshot_events``, ``will_save``,
        ``did_save``, ``prepare_for_deletion``, ``will_turn_into_fault``,
        ``did_turn_into_fault`` take ``fn(obj)``; ``validate_for_insert``,
        ``validate_for_update``, ``validate_for_delete`` take ``fn(obj)`` and
        refuse by raising (or returning False); ``validate_value`` takes
        ``fn(obj, key, value)`` likewise. A validation hook's og.Error fails the
        save with its own domain and code; another exception becomes a
        ValidationError 1550; an exception from ``will_save`` fails the save before
        anything is written and the save re-raises it; other hooks' exceptions
        are re-raised by the call that ran them."""
        for name, fn in hooks.items():
            if name not in _graph.HOOKS and name not in _graph.VALIDATION_HOOKS and name != "validate_value":
                raise make_error(f"{name!r} is not a hook; hooks: "
                                 + ", ".join([*_graph.HOOKS, *_graph.VALIDATION_HOOKS, "validate_value"]),
                                 ErrorCode.INVALID_ARGUMENT)
        for name, fn in hooks.items():
            number = None if fn is None else _graph.register(self, fn)
            try:
                if name == "will_save":
                    # Through the refusable kind: an exception fails the save before it writes.
                    callback = _graph._will_save if fn is not None else VALIDATION_FN()
                    call(lib.og_context_set_validation_hook, self._h, encode(entity), _graph.WILL_SAVE_KIND, callback,
                         number)
                elif name in _graph.HOOKS:
                    callback = _graph._hook if fn is not None else HOOK_FN()
                    call(lib.og_context_set_hook, self._h, encode(entity), _graph.HOOKS[name], callback, number)
                elif name in _graph.VALIDATION_HOOKS:
                    callback = _graph._validation if fn is not None else VALIDATION_FN()
                    call(lib.og_context_set_validation_hook, self._h, encode(entity), _graph.VALIDATION_HOOKS[name],
                         callback, number)
                else:
                    callback = _graph._value_validation if fn is not None else VALUE_VALIDATION_FN()
                    call(lib.og_context_set_value_validator, self._h, encode(entity), callback, number)
            except BaseException:
                _graph.unregister(number)
                raise
            _graph.unregister(self._hook_numbers.pop((entity, name), None))
            if number is not None:
                self._hook_numbers[(entity, name)] = number

    def observe(self, name: str, callback: Callable[[Notification], Any]) -> Observer:
        """Calls ``callback(notification)`` for every "objects_did_change",
        "will_save" or "did_save" notification, on the context's thread, until
        the returned Observer's ``remove()``."""
        if name not in _graph.NOTIFICATIONS:
            raise make_error(f"{name!r} is not a notification; use one of {sorted(_graph.NOTIFICATIONS)}",
                             ErrorCode.INVALID_ARGUMENT)
        number = _graph.register(self, callback)
        try:
            token = call_out(lib.og_context_add_observer, ctypes.c_uint64, self._h, _graph.NOTIFICATIONS[name],
                             _graph._notification, number)
        except BaseException:
            _graph.unregister(number)
            raise
        return Observer(self, token, number)

    def _release(self) -> None:
        """Releases the context. The objects it lent become unusable: the
        library reports their released handles (InvalidHandleError) instead of
        touching freed memory. Closing twice is harmless."""
        # Column caches must stop reading the counter, which goes away with the context.
        self._detach_columns()
        self._counter = None
        if self._h is not None and _by_handle.get(self._h) is self:
            _by_handle.pop(self._h, None)
        if not self._lent:
            lib.og_context_release(self._h)  # waits for blocks queued with perform
        # A block still running above may have made a column cache since.
        self._detach_columns()
        self._objects.clear()
        self._dead.clear()
        self._released.clear()  # given back with the context
        if self._undo_manager is not None:
            self._undo_manager._detach(self)
            self._undo_manager = None
        for number in self._hook_numbers.values():
            _graph.unregister(number)
        self._hook_numbers.clear()

    def __repr__(self) -> str:
        if self._closed:
            return "<objectgraph.Context closed>"
        kind = " child" if lib.og_context_has_parent(self._h) else ""
        return f"<objectgraph.Context{kind} objects={len(self._objects)}>"


class UserInfo:
    """A context's userInfo, read and written through the library."""

    def __init__(self, context: Context) -> None:
        self._context = context

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        context = self._context
        text = call_owned(lib.og_context_user_info, take_string, context._h, encode(key), context=context)
        return default if text is None else text  # None: OG_NULL, the key is absent

    def __getitem__(self, key: str) -> str:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __setitem__(self, key: str, value: str) -> None:
        self._context._call(lib.og_context_set_user_info, encode(key), encode(str(value)))

    def __delitem__(self, key: str) -> None:
        self._context._call(lib.og_context_set_user_info, encode(key), None)
