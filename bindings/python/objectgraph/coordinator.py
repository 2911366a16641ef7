"""Persistent store coordinators and their stores."""

from __future__ import annotations

import ctypes
from typing import Callable, Dict, List, Optional

from ._layout import Layout, Layouts
from ._handle import OwnedHandle
from ._lib import lib
from ._util import PathLike, check, check_handle, decode, encode, take_string
from .errors import ErrorCode, make_error
from .model import Model

__all__ = ["Coordinator", "Store", "register_atomic_store_type", "unregister_store_type"]

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
_tables: Dict[int, tuple] = {}
_serial = [0]


def register_atomic_store_type(type: str, load: Callable[[str], Optional[bytes]],
                               save: Callable[[str, bytes], None]) -> None:
    """Registers an atomic store type implemented in Python. ``load(path)``
    returns the store's document (bytes in the Binary store format) or None
    when there is no store yet; ``save(path, document)`` keeps the whole
    document. An exception in either fails the open or the save. Afterwards
    ``coordinator.add_store(type, path)`` adds stores of it."""

    def on_load(_userdata, path, out_bytes, out_length):  # type: ignore[no-untyped-def]
        try:
            document = load(path.decode("utf-8"))
        except Exception:
            return -1
        if document is None:
            return 1
        buffer = _libc.malloc(max(len(document), 1))
        if not buffer:
            return -1
        ctypes.memmove(buffer, document, len(document))
        out_bytes[0] = buffer
        out_length[0] = len(document)
        return 0

    def on_save(_userdata, path, data, length):  # type: ignore[no-untyped-def]
        try:
            save(path.decode("utf-8"), ctypes.string_at(data, length) if length else b"")
        except Exception:
            return -1
        return 0

    _serial[0] += 1
    key = _serial[0]

    def on_release(_userdata):  # type: ignore[no-untyped-def]
        _tables.pop(key, None)

    table = _AtomicStoreCallbacks(key, _LOAD(on_load), _SAVE(on_save), _RELEASE(on_release))
    _tables[key] = (table, on_load, on_save, on_release)
    err = ctypes.c_void_p()
    try:
        check(lib.og_register_atomic_store_type(encode(type), ctypes.addressof(table), ctypes.byref(err)), err)
    except BaseException:
        _tables.pop(key, None)
        raise


def unregister_store_type(type: str) -> None:
    """Unregisters a type registered with register_atomic_store_type; stores of
    it already added stay usable."""
    err = ctypes.c_void_p()
    check(lib.og_unregister_store_type(encode(type), ctypes.byref(err)), err)


class Store:
    """A persistent store added to a coordinator. Its type, path and UUID are
    read once when it is added: they never change."""

    __slots__ = ("_coordinator", "_h", "type", "path", "uuid")

    def __init__(self, coordinator: "Coordinator", handle: int) -> None:
        self._coordinator = coordinator
        self._h: int = handle
        self.type: str = decode(lib.og_store_type(handle)) or ""
        self.path: str = decode(lib.og_store_path(handle)) or ""
        self.uuid: str = decode(lib.og_store_uuid(handle)) or ""

    @property
    def coordinator(self) -> "Coordinator":
        return self._coordinator

    @property
    def version_hashes(self) -> Dict[str, bytes]:
        """The entity version hashes the store's metadata records
        (NSStoreModelVersionHashes): entity name -> 32 bytes."""
        result: Dict[str, bytes] = {}
        for index in range(lib.og_store_version_hash_count(self._h)):
            out = (ctypes.c_uint8 * 32)()
            err = ctypes.c_void_p()
            name = take_string(check_handle(lib.og_store_version_hash_at(self._h, index, out, ctypes.byref(err)), err))
            result[name or ""] = bytes(out)
        return result

    def __repr__(self) -> str:
        return f"<objectgraph.Store {self.type} {self.path!r} uuid={self.uuid}>"


class Coordinator(OwnedHandle):
    """Connects a model to persistent stores. Creating one validates the model
    and makes it immutable."""

    def __init__(self, model: Model) -> None:
        err = ctypes.c_void_p()
        handle = check_handle(lib.og_coordinator_new(model._h, ctypes.byref(err)), err)
        self._model = model
        self._stores: List[Store] = []
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

    def add_store(self, type: str, path: Optional[PathLike] = None) -> Store:
        """Adds a store of ``type`` at ``path``, created when missing: "SQLite"
        (a file), "Binary" (an atomic store in one file), "InMemory" (kept in
        memory only; no path needed), or a type registered with
        register_atomic_store_type."""
        err = ctypes.c_void_p()
        raw_path = None if path is None else encode(path)
        handle = lib.og_coordinator_add_store(self._h, encode(type), raw_path, ctypes.byref(err))
        store = Store(self, check_handle(handle, err))
        self._stores.append(store)
        return store

    def remove_store(self, store: Store) -> None:
        """Detaches ``store`` and closes it (removePersistentStore:)."""
        err = ctypes.c_void_p()
        check(lib.og_coordinator_remove_store(self._h, store._h, ctypes.byref(err)), err)
        self._stores.remove(store)

    def is_read_only(self, store: Store) -> bool:
        """Whether saves to ``store`` are refused."""
        err = ctypes.c_void_p()
        out = ctypes.c_bool()
        check(lib.og_coordinator_is_store_read_only(self._h, store._h, ctypes.byref(out), ctypes.byref(err)), err)
        return bool(out.value)

    def set_read_only(self, store: Store, read_only: bool = True) -> None:
        """Makes ``store`` read-only (a save that would write to it fails with
        134070 and writes nothing) or writable again."""
        err = ctypes.c_void_p()
        check(lib.og_coordinator_set_store_read_only(self._h, store._h, bool(read_only), ctypes.byref(err)), err)

    @staticmethod
    def metadata_value(path: PathLike, key: str, type: Optional[str] = None) -> Optional[str]:
        """The string (or integer, as text) under ``key`` in the metadata of
        the SQLite or Binary store file at ``path``, read without a stack; None
        when absent. ``type`` None: found from the file."""
        err = ctypes.c_void_p()
        raw = lib.og_store_file_metadata_string(None if type is None else encode(type), encode(path), encode(key),
                                                ctypes.byref(err))
        if not raw and err.value:
            check_handle(raw, err)
        return take_string(raw)

    @staticmethod
    def set_metadata_value(path: PathLike, key: str, value: Optional[str], type: Optional[str] = None) -> None:
        """Sets (None: removes) ``key`` in the metadata of the store file at
        ``path`` now, without a stack; the store type and UUID are kept."""
        err = ctypes.c_void_p()
        check(lib.og_store_file_set_metadata_string(None if type is None else encode(type), encode(path), encode(key),
                                                    None if value is None else encode(value), ctypes.byref(err)), err)

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

    def _release(self) -> None:
        """Releases the coordinator. Contexts using it keep it alive; its
        stores close when the last user is gone. Closing twice is harmless."""
        lib.og_coordinator_release(self._h)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"stores={len(self._stores)}"
        return f"<objectgraph.Coordinator {state}>"
