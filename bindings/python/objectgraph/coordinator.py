"""Persistent store coordinators and their stores."""

from __future__ import annotations

import atexit
import ctypes
import itertools
import sys
import threading
import weakref
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from ._adding import Adding, forget_automatic
from ._call import call, call_flag, call_handle, call_optional, call_string
from ._handle import OwnedHandle
from ._layout import Layout, Layouts
from ._lib import REMOTE_CHANGE_FN, lib
from ._object_id import ObjectID
from ._util import PathLike, decode, encode, keep, take_string
from .errors import Error, ErrorCode, make_error
from .graph import Notification, Observer
from .history import HISTORY_TRACKING_OPTION, REMOTE_CHANGE_OPTION, HistoryToken

#: The schema holding a "PostgreSQL" store's tables (default "public"); also
#: add_store(schema=).
POSTGRESQL_SCHEMA_OPTION = "ObjectGraphPostgreSQLSchema"
from .mapping import MappingModel
from .model import Model
from .values import take_value, to_value

__all__ = ["Coordinator", "Store", "register_atomic_store_type", "unregister_store_type", "READ_ONLY_OPTION",
           "TIMEOUT_OPTION", "SQLITE_PRAGMAS_OPTION", "SQLITE_ANALYZE_OPTION", "SQLITE_MANUAL_VACUUM_OPTION",
           "IGNORE_VERSIONING_OPTION", "MIGRATE_AUTOMATICALLY_OPTION", "INFER_MAPPING_OPTION"]

_LOAD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                         ctypes.POINTER(ctypes.c_size_t))
_SAVE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t)
_RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _AtomicStoreCallbacks(ctypes.Structure):
    """og_atomic_store_callbacks."""
    _fields_ = [("userdata", ctypes.c_void_p), ("load", _LOAD), ("save", _SAVE), ("release", _RELEASE)]


_libc = ctypes.CDLL(None)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]

# Registered tables by serial number: the ctypes callbacks must outlive the library's use of them.
_tables: Dict[int, Tuple[Any, ...]] = {}
# Tables the library released, kept for the life of the process: a table's release
# callback runs through the table's own ctypes thunk, which must not be freed under it.
_retired: List[Tuple[Any, ...]] = []
_serial = itertools.count(1)  # next() is atomic: two threads registering at once get two keys


def register_atomic_store_type(type: str, load: Callable[[str], Optional[bytes]],
                               save: Callable[[str, bytes], None]) -> None:
    """Registers an atomic store type implemented in Python. ``load(path)``
    returns the store's document (bytes in the Binary store format) or None
    when there is no store yet; ``save(path, document)`` keeps the whole
    document. Any exception in either (any BaseException: a KeyboardInterrupt
    too) fails the open or the save, nothing is stored, and ``add_store`` or the
    context's ``save`` re-raises it; a StoreError with code STORE_SAVE_CONFLICTS
    (134050) raised by ``save`` (another writer saved the document since it was
    loaded) makes the context's save fail with that code. Afterwards
    ``coordinator.add_store(type, path)`` adds stores of it."""

    def on_load(_userdata, path, out_bytes, out_length):  # type: ignore[no-untyped-def]
        try:
            document = load(path.decode("utf-8", "surrogateescape"))
            if document is None:
                return 1
            document = bytes(document)
            buffer = _libc.malloc(max(len(document), 1))
            if not buffer:
                raise MemoryError(f"cannot allocate {len(document)} bytes for the store document")
            ctypes.memmove(buffer, document, len(document))
            out_bytes[0] = buffer
            out_length[0] = len(document)
            return 0
        except BaseException as exc:  # noqa: BLE001 - re-raised by the call that opened the store
            keep(exc)
            return -1

    def on_save(_userdata, path, data, length):  # type: ignore[no-untyped-def]
        try:
            save(path.decode("utf-8", "surrogateescape"), ctypes.string_at(data, length) if length else b"")
            return 0
        except BaseException as exc:  # noqa: BLE001 - re-raised by the save that ran the callback
            conflict = isinstance(exc, Error) and exc.code == ErrorCode.STORE_SAVE_CONFLICTS
            if not conflict:
                keep(exc)
            return 2 if conflict else -1

    key = next(_serial)

    def on_release(_userdata):  # type: ignore[no-untyped-def]
        try:
            table = _tables.pop(key, None)
            if table is not None:
                _retired.append(table)
        except BaseException:  # noqa: BLE001 - nothing waits for a release
            pass

    for fn in (on_load, on_save, on_release):
        setattr(fn, "_og_callback", True)

    table = _AtomicStoreCallbacks(key, _LOAD(on_load), _SAVE(on_save), _RELEASE(on_release))
    _tables[key] = (table, on_load, on_save, on_release)
    try:
        call(lib.og_atomic_store_type_register, encode(type), ctypes.addressof(table))
    except BaseException:
        _tables.pop(key, None)
        raise


def unregister_store_type(type: str) -> None:
    """Unregisters a type registered with register_atomic_store_type (stores of
    it already added stay usable) or register_incremental_store_type (refused,
    UsageError 140002, while a store of it is open: close its coordinator
    first)."""
    call(lib.og_store_type_unregister, encode(type))


# Core Data's option keys (NSPersistentStore options), for ``options=`` dictionaries.
READ_ONLY_OPTION = "NSReadOnlyPersistentStoreOption"
TIMEOUT_OPTION = "NSPersistentStoreTimeoutOption"
SQLITE_PRAGMAS_OPTION = "NSSQLitePragmasOption"
SQLITE_ANALYZE_OPTION = "NSSQLiteAnalyzeOption"
SQLITE_MANUAL_VACUUM_OPTION = "NSSQLiteManualVacuumOption"
IGNORE_VERSIONING_OPTION = "NSIgnorePersistentStoreVersioningOption"
MIGRATE_AUTOMATICALLY_OPTION = "NSMigratePersistentStoresAutomaticallyOption"
INFER_MAPPING_OPTION = "NSInferMappingModelAutomaticallyOption"


def _store_options(options: Optional[Mapping[str, Any]], read_only: Optional[bool], timeout: Optional[float],
                   pragmas: Optional[Mapping[str, Any]], analyze: Optional[bool], vacuum: Optional[bool],
                   ignore_versioning: Optional[bool], migrate: Optional[bool] = None,
                   infer: Optional[bool] = None) -> Optional[Dict[str, Any]]:
    """The options dictionary the library takes: ``options`` (Core Data's key
    names) with the keyword arguments that were given laid over it; None when
    nothing was given."""
    result: Dict[str, Any] = dict(options or {})
    for key, value in ((READ_ONLY_OPTION, read_only), (SQLITE_ANALYZE_OPTION, analyze),
                       (SQLITE_MANUAL_VACUUM_OPTION, vacuum), (IGNORE_VERSIONING_OPTION, ignore_versioning),
                       (MIGRATE_AUTOMATICALLY_OPTION, migrate), (INFER_MAPPING_OPTION, infer)):
        if value is not None:
            result[key] = bool(value)
    if timeout is not None:
        result[TIMEOUT_OPTION] = float(timeout)
    if pragmas is not None:
        result[SQLITE_PRAGMAS_OPTION] = {str(k): str(v) for k, v in pragmas.items()}
    return result if (result or options is not None) else None


def _boxed(options: Optional[Mapping[str, Any]]) -> Optional[int]:
    return None if options is None else to_value(dict(options))


class Store:
    """A persistent store added to a coordinator. Its type, UUID and
    configuration never change; its path changes when the coordinator moves it
    (``Coordinator.set_store_path``)."""

    __slots__ = ("_coordinator", "_h", "type", "uuid", "configuration")

    def __init__(self, coordinator: "Coordinator", handle: int) -> None:
        self._coordinator = coordinator
        self._h: int = handle
        self.type: str = decode(lib.og_store_type(handle)) or ""
        self.uuid: str = decode(lib.og_store_uuid(handle)) or ""
        #: The configuration the store holds; None for the default (every entity).
        self.configuration: Optional[str] = decode(lib.og_store_configuration(handle))

    @property
    def coordinator(self) -> "Coordinator":
        return self._coordinator

    @property
    def path(self) -> str:
        return decode(lib.og_store_path(self._h)) or ""

    @property
    def options(self) -> Dict[str, Any]:
        """The options the store was added with (Core Data's key names), unknown
        keys included."""
        return take_value(call_handle(lib.og_store_options, self._h))  # type: ignore[return-value]

    @property
    def version_hashes(self) -> Dict[str, bytes]:
        """The entity version hashes the store's metadata records
        (NSStoreModelVersionHashes): entity name -> 32 bytes."""
        result: Dict[str, bytes] = {}
        for index in range(lib.og_store_version_hash_count(self._h)):
            out = (ctypes.c_uint8 * 32)()
            name = take_string(call_handle(lib.og_store_version_hash_at, self._h, index, out))
            result[name or ""] = bytes(out)
        return result

    def __repr__(self) -> str:
        return f"<objectgraph.Store {self.type} {self.path!r} uuid={self.uuid}>"


class RemoteChangeObserver(Observer):
    """A "remote_change" observer of a coordinator; ``remove()`` returns once
    its function is not running, and it is never called again."""

    def __init__(self, coordinator: "Coordinator", fn: Callable[[Notification], None]) -> None:
        self._coordinator = coordinator
        self._fn = fn
        self.removed = False

        def deliver(store_uuid: Optional[bytes], token: Optional[int], _user: Optional[int]) -> None:
            try:
                notification = Notification("remote_change", store_uuid=decode(store_uuid),
                                            history_token=HistoryToken._of_lent(token) if token else None)
                fn(notification)
            except BaseException as exc:  # a library thread: nothing to raise into
                sys.unraisablehook(_Unraisable(exc, fn))  # type: ignore[arg-type]

        self._callback = REMOTE_CHANGE_FN(deliver)  # referenced for as long as the library may call it
        token = ctypes.c_uint64()
        call(lib.og_coordinator_add_remote_change_observer, coordinator._h, self._callback, None, ctypes.byref(token))
        self._token = token.value
        with _remote_lock:
            _remote_observers.add(self)

    def remove(self) -> None:
        if self.removed:
            return
        self.removed = True
        with _remote_lock:
            _remote_observers.discard(self)
        if not self._coordinator.closed:
            call(lib.og_coordinator_remove_remote_change_observer, self._coordinator._h, self._token)


class _Unraisable:
    """What sys.unraisablehook takes: an observer's exception, on a library thread."""

    def __init__(self, exc: BaseException, fn: Any) -> None:
        self.exc_type = type(exc)
        self.exc_value = exc
        self.exc_traceback = exc.__traceback__
        self.err_msg = "Exception in a remote_change observer"
        self.object = fn


# Observers still registered at exit are removed first: no library thread may call
# into a finalising interpreter.
_remote_observers: "weakref.WeakSet[RemoteChangeObserver]" = weakref.WeakSet()
_remote_lock = threading.Lock()


@atexit.register
def _remove_remote_observers() -> None:
    with _remote_lock:
        observers = list(_remote_observers)
    for observer in observers:
        try:
            observer.remove()
        except Exception:
            pass


class Coordinator(OwnedHandle):
    """Connects a model to persistent stores. Creating one validates the model
    and makes it immutable."""

    def __init__(self, model: Model, models: Iterable[Model] = (), mappings: Iterable["MappingModel"] = ()) -> None:
        """``models`` lists other versions of the model and ``mappings`` mapping
        models between versions: where automatic migration (``add_store(...,
        migrate_automatically=True)``) looks for a store's source model and its
        mapping, as Core Data searches the app's bundle. The mapping models are
        shared: a later change to one shows here."""
        versions = list(models)
        maps = list(mappings)
        for m in versions:
            if not isinstance(m, Model):
                raise make_error(f"models must hold Model objects, not {type(m).__name__}", ErrorCode.INVALID_ARGUMENT)
        for mm in maps:
            if not isinstance(mm, MappingModel):
                raise make_error(f"mappings must hold MappingModel objects, not {type(mm).__name__}",
                                 ErrorCode.INVALID_ARGUMENT)
        if versions or maps:
            model_array = (ctypes.c_void_p * max(1, len(versions)))(*[m._h for m in versions])
            mapping_array = (ctypes.c_void_p * max(1, len(maps)))(*[mm._h for mm in maps])
            handle = call_handle(lib.og_coordinator_new_with_versions, model._h, model_array, len(versions),
                                 mapping_array, len(maps))
        else:
            handle = call_handle(lib.og_coordinator_new, model._h)
        self._model = model
        # Kept alive with the coordinator, which uses them when a store is added.
        self._versions = versions
        self._mappings = maps
        self._stores: List[Store] = []
        self._remote_observers: List[RemoteChangeObserver] = []
        self._h = handle
        self._closed = False
        try:
            self._layouts = Layouts(model)
        except BaseException:
            self.close()
            raise

    @property
    def model(self) -> Model:
        return self._model

    def add_store(self, type: str, path: Optional[PathLike] = None, configuration: Optional[str] = None,
                  read_only: bool = False, timeout: Optional[float] = None, pragmas: Optional[Mapping[str, Any]] = None,
                  analyze: bool = False, vacuum: bool = False, ignore_versioning: bool = False,
                  options: Optional[Mapping[str, Any]] = None, *, migrate_automatically: bool = False,
                  infer_mapping_automatically: bool = False, history_tracking: bool = False,
                  remote_change_notifications: bool = False, schema: Optional[str] = None) -> Store:
        """Adds a store of ``type`` at ``path``, created when missing: "SQLite"
        (a file), "Binary" (an atomic store in one file), "InMemory" (kept in
        memory only; no path needed), "XML", "PostgreSQL" (``path`` is a libpq
        URL such as ``postgresql://user@host/db`` or key=value string, and
        ``schema`` the schema holding the tables, POSTGRESQL_SCHEMA_OPTION,
        "public" by default; docs/postgres.md), or a type registered with
        register_atomic_store_type.

        ``configuration`` names one of the model's configurations: the store
        holds only its entities (None: every entity; then no store of a named
        configuration may join, and the reverse). The store options:
        ``read_only`` (saves refused), ``timeout`` (seconds SQLite waits for a
        lock before raising a timeout error, 134090; 240 when not given, as in
        Core Data, 0 for no wait), ``pragmas`` (SQLite
        pragma name -> value, e.g. ``{"journal_mode": "DELETE"}``), ``analyze``
        and ``vacuum`` (run when the store is added), ``ignore_versioning``
        (open a store whose version hashes differ, while its tables fit), and
        ``options`` for any option by Core Data's key name.

        ``migrate_automatically`` migrates a store written with another version
        of the model before it opens (MIGRATE_AUTOMATICALLY_OPTION): its source
        model is the one the store keeps, else one of the coordinator's
        ``models``; its mapping one of the coordinator's ``mappings``, else the
        inferred one with ``infer_mapping_automatically`` (INFER_MAPPING_OPTION).
        The store is migrated in place and keeps its UUID. Raises
        MigrationError 134130 (no source model), 134140 (no mapping) or 134190
        (inference failed), leaving the file as it was; without the option
        such a store raises IncompatibleStoreError 134100.

        ``history_tracking`` keeps persistent history in an SQLite store
        (HISTORY_TRACKING_OPTION; ``ctx.history``), and
        ``remote_change_notifications`` posts "remote_change" to ``observe``rs
        when any coordinator writes to the store (REMOTE_CHANGE_OPTION)."""
        raw_path = None if path is None else encode(path, "a store path")
        merged = _store_options(options, read_only or None, timeout, pragmas, analyze or None, vacuum or None,
                                ignore_versioning or None, migrate_automatically or None,
                                infer_mapping_automatically or None)
        for key, on in ((HISTORY_TRACKING_OPTION, history_tracking), (REMOTE_CHANGE_OPTION, remote_change_notifications)):
            if on:
                merged = dict(merged or {})
                merged[key] = True
        if schema is not None:
            merged = dict(merged or {})
            merged[POSTGRESQL_SCHEMA_OPTION] = schema
        boxed = _boxed(merged)
        # An incremental store type's create callback makes its instance with these.
        adding = Adding(self, merged)
        try:
            with adding:
                if configuration is None and boxed is None:
                    # With its length: the library, too, refuses a path cut short by a NUL.
                    handle = call_handle(lib.og_coordinator_add_store_n, self._h, encode(type), raw_path,
                                         len(raw_path or b""))
                else:
                    handle = call_handle(lib.og_coordinator_add_store_with_options, self._h, encode(type),
                                         None if configuration is None else encode(configuration), raw_path, boxed)
        finally:
            if boxed:
                lib.og_value_release(boxed)
            # Policies of an automatic migration saw its manager and contexts: done with them now.
            forget_automatic()
        store = adding.adopt(handle) or Store(self, handle)
        self._stores.append(store)
        return store

    def observe(self, name: str, fn: Callable[[Notification], None]) -> Observer:
        """Calls ``fn(notification)`` on a library thread after each write, by
        any coordinator of any process (this one included), to a store added
        with ``remote_change_notifications=True``; ``notification.store_uuid``
        names the store and ``notification.history_token`` is where its history
        stands (None without history tracking). The only name is
        "remote_change". Returns an Observer (``remove()``, ``with``). Core
        Data: NSPersistentStoreRemoteChangeNotification."""
        if name != "remote_change":
            raise make_error(f"a coordinator posts only 'remote_change', not {name!r}", ErrorCode.INVALID_ARGUMENT)
        if not callable(fn):
            raise make_error(f"fn must be callable, not {type(fn).__name__}", ErrorCode.TYPE_MISMATCH)
        observer = RemoteChangeObserver(self, fn)
        self._remote_observers.append(observer)
        return observer

    def current_history_token(self) -> Optional[HistoryToken]:
        """The token of the newest transaction across the stores that keep
        history, or None. Core Data: currentPersistentHistoryTokenFromStores:."""
        out = ctypes.c_void_p()
        call(lib.og_coordinator_current_history_token, self._h, ctypes.byref(out))
        return None if not out.value else HistoryToken._take(out.value)

    def migrate_store(self, store: Store, path: Optional[PathLike], type: str, options: Optional[Mapping[str, Any]] = None,
                      read_only: Optional[bool] = None, timeout: Optional[float] = None,
                      pragmas: Optional[Mapping[str, Any]] = None) -> Store:
        """Copies ``store`` into a new store of ``type`` at ``path``
        (migratePersistentStore): every row, relationship and key counter. The
        copy keeps the store's UUID and configuration and replaces it on the
        coordinator; objects already fetched keep working. Options given here
        (as for add_store) replace the old store's; none given keeps them. On
        failure the old store stays attached and no new file is left."""
        merged = _store_options(options, read_only, timeout, pragmas, None, None, None)
        boxed = _boxed(merged)
        adding = Adding(self, merged)
        try:
            with adding:
                handle = call_handle(lib.og_coordinator_migrate_store, self._h, store._h,
                                     None if path is None else encode(path), encode(type), boxed)
        finally:
            if boxed:
                lib.og_value_release(boxed)
        copy = adding.adopt(handle) or Store(self, handle)
        self._stores = [copy if s is store else s for s in self._stores]
        return copy

    def object_id_for_uri(self, uri: str) -> Optional[ObjectID]:
        """The og.ObjectID a URI names (managedObjectIDForURIRepresentation:),
        when a store of this coordinator has the URI's store UUID; None
        otherwise. For an incremental store, a URI of an object it never named
        names the one whose reference is the text after "p", as a str."""
        text = call_string(lib.og_coordinator_object_id_for_uri, self._h, encode(uri, "a URI"))
        return None if text is None else ObjectID(text)

    def store_for_path(self, path: PathLike) -> Optional[Store]:
        """The attached store at ``path`` (persistentStoreForURL:), or None."""
        handle = call_optional(lib.og_coordinator_store_for_path, self._h, encode(path))
        if handle is None:
            return None
        return next((s for s in self._stores if s._h == handle), None)

    def set_store_path(self, store: Store, path: PathLike) -> None:
        """Moves ``store`` (setURL:forPersistentStore:): a Binary store writes
        its next save at ``path``; an SQLite store reopens there, where the
        same store must already be."""
        call(lib.og_coordinator_set_store_path, self._h, store._h, encode(path))

    def metadata(self, store: Store) -> Dict[str, Any]:
        """The metadata of an attached store, as it is or will be written at
        its next save."""
        return take_value(call_handle(lib.og_coordinator_store_metadata, self._h, store._h))  # type: ignore[return-value]

    def set_metadata(self, store: Store, metadata: Mapping[str, Any]) -> None:
        """Sets the metadata written at the store's next save; NSStoreType and
        NSStoreUUID are kept (a different UUID raises)."""
        boxed = to_value(dict(metadata))
        try:
            call(lib.og_coordinator_set_store_metadata, self._h, store._h, boxed)
        finally:
            lib.og_value_release(boxed)

    def remove_store(self, store: Store) -> None:
        """Detaches ``store`` and closes it (removePersistentStore:)."""
        call(lib.og_coordinator_remove_store, self._h, store._h)
        self._stores.remove(store)

    def is_read_only(self, store: Store) -> bool:
        """Whether saves to ``store`` are refused."""
        return call_flag(lib.og_coordinator_is_store_read_only, self._h, store._h)

    def set_read_only(self, store: Store, read_only: bool = True) -> None:
        """Makes ``store`` read-only (a save that would write to it fails with
        134070 and writes nothing) or writable again."""
        call(lib.og_coordinator_set_store_read_only, self._h, store._h, bool(read_only))

    @staticmethod
    def metadata_value(path: PathLike, key: str, type: Optional[str] = None) -> Optional[str]:
        """The string (or integer, as text) under ``key`` in the metadata of
        the SQLite or Binary store file at ``path``, read without a stack; None
        when absent. ``type`` None: found from the file."""
        return call_string(lib.og_store_file_metadata_string, None if type is None else encode(type), encode(path),
                           encode(key))

    @staticmethod
    def set_metadata_value(path: PathLike, key: str, value: Optional[str], type: Optional[str] = None) -> None:
        """Sets (None: removes) ``key`` in the metadata of the store file at
        ``path`` now, without a stack; the store type and UUID are kept."""
        call(lib.og_store_file_set_metadata_string, None if type is None else encode(type), encode(path), encode(key),
             None if value is None else encode(value))

    @staticmethod
    def metadata_for_store(path: PathLike, type: Optional[str] = None,
                           options: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """The whole metadata dict of the store file at ``path``, read without
        adding the store (metadataForPersistentStoreOfType:URL:options:).
        NSStoreModelVersionHashes maps entity names to 32 bytes. ``type`` None:
        found from the file; ``options``: those the store would be opened with.
        Raises StoreError 134080 when there is no readable store, 134010 for a
        store of another type."""
        boxed = to_value(dict(options)) if options is not None else None
        try:
            raw = call_handle(lib.og_store_file_metadata, None if type is None else encode(type), encode(path), boxed)
        finally:
            if boxed is not None:
                lib.og_value_release(boxed)
        return take_value(raw)  # type: ignore[return-value]

    @staticmethod
    def set_metadata_for_store(path: PathLike, metadata: Mapping[str, Any], type: Optional[str] = None,
                               options: Optional[Mapping[str, Any]] = None) -> None:
        """Writes the whole metadata dict of the store file at ``path`` now,
        without adding the store (setMetadata:forPersistentStoreOfType:URL:options:);
        NSStoreType and NSStoreUUID are kept. Raises as metadata_for_store, or
        StoreError 134070 when the file is read-only."""
        boxed = to_value(dict(metadata))
        opts = to_value(dict(options)) if options is not None else None
        try:
            call(lib.og_store_file_set_metadata, None if type is None else encode(type), encode(path), boxed, opts)
        finally:
            lib.og_value_release(boxed)
            if opts is not None:
                lib.og_value_release(opts)

    @property
    def stores(self) -> List[Store]:
        return list(self._stores)

    @property
    def store_count(self) -> int:
        return int(lib.og_coordinator_store_count(self._h))

    def _layout(self, entity_handle: int) -> Layout:
        """The slot layout of the entity behind ``entity_handle``, found by name
        (an object's entity handle is lent by its context, not by the model)."""
        name = decode(lib.og_entity_name(entity_handle))
        layout = self._layouts.by_name.get(name or "")
        if layout is None:
            raise make_error(f"the library returned an object of unknown entity {name!r}", ErrorCode.UNKNOWN_ENTITY)
        return layout

    # True for a coordinator the library lends (a container's), which is never released here.
    _lent = False

    @classmethod
    def _borrow(cls, handle: int, model: Model) -> "Coordinator":
        """A wrapper for a coordinator the library lends (a persistent
        container's): never released from here."""
        coordinator = cls.__new__(cls)
        coordinator._model = model
        coordinator._versions = []
        coordinator._mappings = []
        coordinator._stores = []
        coordinator._remote_observers = []
        coordinator._h = handle
        coordinator._closed = False
        coordinator._lent = True
        coordinator._layouts = Layouts(model)
        return coordinator

    def _adopt_store(self, handle: int) -> Store:
        """The Store for a store handle the coordinator lends, listed once in
        ``stores`` (stores a container added)."""
        for store in self._stores:
            if store._h == handle:
                return store
        store = Store(self, handle)
        self._stores.append(store)
        return store

    def _release(self) -> None:
        """Releases the coordinator. Contexts using it keep it alive; its
        stores close when the last user is gone. Closing twice is harmless."""
        for observer in getattr(self, "_remote_observers", []):
            if not observer.removed:
                observer.removed = True
                call(lib.og_coordinator_remove_remote_change_observer, self._h, observer._token)
        if not self._lent:
            lib.og_coordinator_release(self._h)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"stores={len(self._stores)}"
        return f"<objectgraph.Coordinator {state}>"
