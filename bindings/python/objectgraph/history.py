"""Persistent history (NSPersistentHistoryTransaction, NSPersistentHistoryChange,
NSPersistentHistoryToken, NSPersistentHistoryChangeRequest): what ``ctx.history``
returns and takes. docs/history.md explains the sync pattern.

A read keeps the library's og_history until its last Transaction is gone; a
transaction's changes are read from it on first use, so skimming transactions
costs nothing per change.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as _dt
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Set, Tuple, Union

from ._call import call, call_handle, call_optional, call_out
from ._handle import OwnedHandle
from ._lib import lib
from ._object_id import ObjectID
from .errors import ErrorCode, make_error
from .fetch import FetchRequest
from .graph import Changes, Notification
from .model import Model
from .predicate import Predicate
from .values import Value, from_seconds, take_value, to_seconds

if TYPE_CHECKING:
    from .entity import Entity

__all__ = ["HISTORY_TRACKING_OPTION", "REMOTE_CHANGE_OPTION", "HISTORY_RESULT_TYPES", "HistoryToken", "Transaction",
           "Change", "HistoryChangeRequest", "read_history"]

HISTORY_TRACKING_OPTION = "NSPersistentHistoryTrackingKey"
REMOTE_CHANGE_OPTION = "NSPersistentStoreRemoteChangeNotificationPostOptionKey"

# NSPersistentHistoryResultType, by name.
HISTORY_RESULT_TYPES = {"status_only": 0, "object_ids": 1, "count": 2, "transactions_only": 3, "changes_only": 4,
                        "transactions_and_changes": 5}
_RESULT_NAMES = {number: name for name, number in HISTORY_RESULT_TYPES.items()}
_CHANGE_KINDS = ("insert", "update", "delete")
# og_history_field
_AUTHOR, _CONTEXT_NAME, _PROCESS_ID, _BUNDLE_ID, _STORE_UUID = range(5)


def history_result_type(value: Union[str, int]) -> int:
    """A history result type's number, from its name or Apple's number."""
    if isinstance(value, str) and value in HISTORY_RESULT_TYPES:
        return HISTORY_RESULT_TYPES[value]
    if isinstance(value, int) and not isinstance(value, bool) and value in _RESULT_NAMES:
        return value
    raise make_error(f"unknown history result type {value!r}; use one of " + ", ".join(HISTORY_RESULT_TYPES),
                     ErrorCode.INVALID_ARGUMENT)


class _TokenHandle(OwnedHandle):
    def __init__(self, handle: int) -> None:
        self._h = handle
        self._closed = False

    def _release(self) -> None:
        lib.og_history_token_release(self._h)


class HistoryToken:
    """Where the history stands in each store (NSPersistentHistoryToken). Tokens
    compare equal by value, are hashable, and can be pickled; ``bytes(token)``
    and ``HistoryToken.from_bytes`` keep one anywhere."""

    __slots__ = ("_archive",)

    def __init__(self, archive: bytes) -> None:
        # Checked by the library: a forged or truncated archive raises UsageError 140002.
        with _TokenHandle(_token_from_archive(archive)):
            pass
        self._archive = bytes(archive)

    @classmethod
    def from_bytes(cls, archive: bytes) -> "HistoryToken":
        return cls(archive)

    @classmethod
    def _take(cls, handle: int) -> "HistoryToken":
        """The token of a NEW og_history_token handle, which is released."""
        with _TokenHandle(handle) as owned:
            return cls._of_lent(owned._h or 0)

    @classmethod
    def _of_lent(cls, handle: int) -> "HistoryToken":
        """The token of a LENT og_history_token handle (not released)."""
        bytes_out, length = ctypes.c_void_p(), ctypes.c_size_t()
        call(lib.og_history_token_archive, handle, ctypes.byref(bytes_out), ctypes.byref(length))
        try:
            archive = ctypes.string_at(bytes_out.value or 0, length.value) if length.value else b""
        finally:
            lib.og_free(bytes_out)
        token = cls.__new__(cls)
        token._archive = archive
        return token

    def _handle(self) -> _TokenHandle:
        return _TokenHandle(_token_from_archive(self._archive))

    def __bytes__(self) -> bytes:
        return self._archive

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HistoryToken):
            return NotImplemented
        if self._archive == other._archive:
            return True
        with self._handle() as a, other._handle() as b:
            return bool(lib.og_history_token_equal(a._h, b._h))

    def __hash__(self) -> int:
        # Archives list stores in order, so equal tokens archive alike.
        return hash(self._archive)

    def __reduce__(self) -> Any:
        return (HistoryToken.from_bytes, (self._archive,))

    def __repr__(self) -> str:
        return f"<HistoryToken {self._archive.hex()[:16]}…>"


def _token_from_archive(archive: bytes) -> int:
    if not isinstance(archive, (bytes, bytearray, memoryview)):
        raise make_error(f"a history token is read from bytes, not {type(archive).__name__}", ErrorCode.INVALID_ARGUMENT)
    raw = bytes(archive)
    return call_handle(lib.og_history_token_from_archive, raw, len(raw))


class _HistoryHandle(OwnedHandle):
    """The library's og_history, shared by the transactions read from it."""

    def __init__(self, handle: int) -> None:
        self._h = handle
        self._closed = False

    def _release(self) -> None:
        lib.og_history_release(self._h)


def _text(history: _HistoryHandle, index: int, field: int) -> Optional[str]:
    out = ctypes.c_char_p()
    call(lib.og_history_transaction_string, history._h, index, field, ctypes.byref(out))
    return None if out.value is None else out.value.decode("utf-8", "replace")


class Transaction:
    """One saved transaction (NSPersistentHistoryTransaction): its
    ``transaction_number`` (increasing, above 0), ``timestamp`` (an aware UTC
    datetime), ``author`` (the saving context's ``transaction_author``),
    ``context_name``, ``process_id``, ``bundle_id``, ``store_uuid``, ``token``,
    and ``changes`` (a list of Change, or None when they were not fetched)."""

    __slots__ = ("_history", "_index", "transaction_number", "timestamp", "author", "context_name", "process_id",
                 "bundle_id", "store_uuid", "_token", "_changes", "_has_changes")

    def __init__(self, history: _HistoryHandle, index: int, with_changes: bool) -> None:
        self._history = history
        self._index = index
        self.transaction_number = int(call_out(lib.og_history_transaction_number, ctypes.c_int64, history._h, index))
        self.timestamp = from_seconds(call_out(lib.og_history_transaction_timestamp, ctypes.c_double, history._h, index))
        self.author = _text(history, index, _AUTHOR)
        self.context_name = _text(history, index, _CONTEXT_NAME)
        self.process_id = _text(history, index, _PROCESS_ID)
        self.bundle_id = _text(history, index, _BUNDLE_ID)
        self.store_uuid = _text(history, index, _STORE_UUID) or ""
        self._token: Optional[HistoryToken] = None
        self._changes: Optional[List["Change"]] = None
        self._has_changes = with_changes

    @property
    def token(self) -> HistoryToken:
        """The token of the history up to and including this transaction."""
        if self._token is None:
            self._token = HistoryToken._take(call_handle(lib.og_history_transaction_token, self._history._h, self._index))
        return self._token

    @property
    def changes(self) -> Optional[List["Change"]]:
        if not self._has_changes:
            return None
        if self._changes is None:
            self._changes = Change._read_all(self, self._history._h or 0, self._index)
        return self._changes

    def _keep_changes(self, changes: List["Change"]) -> None:
        self._changes = changes

    def object_id_notification(self) -> Notification:
        """A "did_save" Notification whose ``inserted``, ``updated`` and
        ``deleted`` hold this transaction's ObjectIDs, for ``ctx.merge_changes``."""
        record = Changes(call_handle(lib.og_history_transaction_changes, self._history._h, self._index))
        # The lists hold ObjectIDs here, not the context's objects.
        ids: Dict[str, Any] = {key: [ObjectID(u) for u in record.uris(key)] for key in ("inserted", "updated", "deleted")}
        return Notification("did_save", _changes=record, **ids)

    @classmethod
    def entity_description(cls, ctx: Any) -> "Entity":
        """An Entity named "Transaction" whose attributes are the keys a
        ``Transaction.fetch_request`` predicate may use."""
        return _entity("Transaction", {"author": "string", "bundleID": "string", "contextName": "string",
                                       "processID": "string", "storeID": "string", "timestamp": "date",
                                       "transactionNumber": "integer64"})

    @classmethod
    def fetch_request(cls, where: Optional[str] = None, *args: Any, sort: Any = None) -> FetchRequest:
        """A fetch request for ``ctx.history`` that keeps the transactions
        ``where`` matches. A sort order is refused when the history is read."""
        return FetchRequest("Transaction", sort, _where(where, args))

    def __repr__(self) -> str:
        return f"<Transaction {self.transaction_number} of {self.store_uuid} by {self.author!r} at {self.timestamp.isoformat()}>"


class Change:
    """One changed object (NSPersistentHistoryChange): ``change_id``, ``kind``
    ("insert", "update" or "delete"), ``object_id`` (a permanent ObjectID),
    ``updated_properties`` (a set of names for an update, else None),
    ``tombstone`` (for a delete, a dict of the attributes kept in history,
    else None) and ``transaction``."""

    __slots__ = ("change_id", "kind", "object_id", "updated_properties", "tombstone", "transaction")

    def __init__(self, change_id: int, kind: str, object_id: ObjectID, updated_properties: Optional[Set[str]],
                 tombstone: Optional[Dict[str, Value]], transaction: Transaction) -> None:
        self.change_id = change_id
        self.kind = kind
        self.object_id = object_id
        self.updated_properties = updated_properties
        self.tombstone = tombstone
        self.transaction = transaction

    @classmethod
    def _read_all(cls, transaction: Transaction, h: int, t: int) -> List["Change"]:
        """Every change of transaction ``t``, read in one call (og_history_changes); only
        updates and deletes ask for more (their properties, their tombstones)."""
        n = lib.og_history_change_count(h, t)
        if n == 0:
            return []
        kinds, ids = (ctypes.c_int * n)(), (ctypes.c_int64 * n)()
        keys, entities = (ctypes.c_int64 * n)(), (ctypes.c_size_t * n)()
        call(lib.og_history_changes, h, t, 0, n, kinds, ids, keys, entities)
        # A history is an SQLite store's: its objects' references are integers, and the
        # URI is written here rather than asked for once per change.
        prefixes: Dict[int, str] = {}
        out: List[Change] = []
        append = out.append
        store = transaction.store_uuid
        for c, (kind_number, change_id, key, entity) in enumerate(zip(kinds, ids, keys, entities)):
            prefix = prefixes.get(entity)
            if prefix is None:
                name = (lib.og_history_entity_name(h, entity) or b"").decode("utf-8")
                prefix = prefixes[entity] = f"x-coredata://{store}/{name}/p"
            kind = _CHANGE_KINDS[kind_number]
            updated: Optional[Set[str]] = None
            tombstone: Optional[Dict[str, Value]] = None
            if kind == "update":
                updated = {lib.og_history_change_updated_at(h, t, c, i, None).decode("utf-8")
                           for i in range(lib.og_history_change_updated_count(h, t, c))}
            elif kind == "delete":
                found = ctypes.c_void_p()
                call(lib.og_history_change_tombstone, h, t, c, ctypes.byref(found))
                taken: Any = take_value(found.value) if found.value else {}
                tombstone = taken if isinstance(taken, dict) else {}
            append(cls(change_id, kind, ObjectID(prefix + str(key)), updated, tombstone, transaction))
        return out

    @classmethod
    def entity_description(cls, ctx: Any) -> "Entity":
        """An Entity named "Change" whose attributes are the keys a
        ``Change.fetch_request`` predicate may use."""
        return _entity("Change", {"changeID": "integer64", "changeType": "integer16", "changedObjectID": "object_id",
                                  "entityName": "string"})

    @classmethod
    def fetch_request(cls, where: Optional[str] = None, *args: Any, sort: Any = None) -> FetchRequest:
        """A fetch request for ``ctx.history`` that keeps the changes ``where``
        matches (``changedObjectID`` compares with an ObjectID or URI)."""
        return FetchRequest("Change", sort, _where(where, args))

    def __repr__(self) -> str:
        return f"<Change {self.change_id} {self.kind} {self.object_id}>"


def _where(where: Optional[str], args: Any) -> Any:
    return Predicate(where, *args) if where is not None and args else where


def _entity(name: str, attributes: Dict[str, str]) -> "Entity":
    model = Model()
    entity = model.add_entity(name)
    for key, kind in attributes.items():
        entity.add_attribute(key, kind)
    return entity


Point = Union[HistoryToken, _dt.datetime, Transaction, None]


class HistoryChangeRequest:
    """A history request for ``ctx.execute`` (NSPersistentHistoryChangeRequest):
    it reads the history after ``after``, or with ``before`` deletes the history
    before it."""

    request_type = "history"

    def __init__(self, *, after: Point = None, before: Point = None, fetch_request: Optional[FetchRequest] = None,
                 result_type: Union[str, int] = "transactions_and_changes") -> None:
        if after is not None and before is not None:
            raise make_error("a history request reads after a point or deletes before one, not both",
                             ErrorCode.INVALID_ARGUMENT)
        self.after = after
        self.before = before
        self.fetch_request = fetch_request
        self._result_type = history_result_type(result_type)

    @property
    def result_type(self) -> str:
        return _RESULT_NAMES[self._result_type]

    @result_type.setter
    def result_type(self, value: Union[str, int]) -> None:
        self._result_type = history_result_type(value)


@contextlib.contextmanager
def _point(point: Point, by_token: Any, by_date: Any) -> Iterator[Tuple[Any, Any]]:
    """The form of a history function that takes ``point``, and the argument naming it
    (a token's handle, alive for the ``with``; seconds since 1970; None)."""
    if point is None:
        yield by_token, None
    elif isinstance(point, (HistoryToken, Transaction)):
        token = point.token if isinstance(point, Transaction) else point
        with token._handle() as owned:
            yield by_token, owned._h
    elif isinstance(point, _dt.datetime):
        yield by_date, to_seconds(point)
    else:
        raise make_error(f"a history point is a HistoryToken, a datetime or a Transaction, not {type(point).__name__}",
                         ErrorCode.TYPE_MISMATCH)


def read_history(ctx: Any, after: Point, fetch_request: Optional[FetchRequest], result_type: int) -> Any:
    """``ctx.history``: the transactions after ``after`` as ``result_type`` asks."""
    if fetch_request is not None and not isinstance(fetch_request, FetchRequest):
        raise make_error(f"fetch_request is a FetchRequest (Transaction.fetch_request or Change.fetch_request), not "
                         f"{type(fetch_request).__name__}", ErrorCode.TYPE_MISMATCH)
    with _point(after, lib.og_context_history, lib.og_context_history_after_date) as (fn, at):
        handle = call_optional(fn, ctx._h, at, None if fetch_request is None else fetch_request._h, context=ctx)
    history = _HistoryHandle(handle or 0)
    on_changes = fetch_request is not None and fetch_request.entity == "Change"
    with_changes = result_type != HISTORY_RESULT_TYPES["transactions_only"] or on_changes
    transactions = [Transaction(history, i, with_changes) for i in range(lib.og_history_count(history._h))]
    if result_type == HISTORY_RESULT_TYPES["status_only"]:
        return True
    if result_type == HISTORY_RESULT_TYPES["count"]:
        return sum(len(t.changes or []) for t in transactions) if on_changes else len(transactions)
    if result_type == HISTORY_RESULT_TYPES["object_ids"]:
        return [c.object_id for t in transactions for c in t.changes or []]
    if result_type == HISTORY_RESULT_TYPES["changes_only"]:
        return [c for t in transactions for c in t.changes or []]
    if result_type == HISTORY_RESULT_TYPES["transactions_only"]:
        for t in transactions:
            t._has_changes = False
    return transactions


def delete_history(ctx: Any, before: Point) -> None:
    """``ctx.delete_history``: purges the transactions before ``before``."""
    if before is None:
        raise make_error("delete_history needs a token, a datetime or a transaction to delete before",
                         ErrorCode.INVALID_ARGUMENT)
    with _point(before, lib.og_context_delete_history, lib.og_context_delete_history_before_date) as (fn, at):
        call(fn, ctx._h, at, context=ctx)
