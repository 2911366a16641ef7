"""Persistent store coordinators and their stores."""

from __future__ import annotations

import ctypes
from typing import Dict, List, Optional

from ._layout import Layout, Layouts
from ._handle import OwnedHandle
from ._lib import lib
from ._util import PathLike, check_handle, decode, encode, take_string
from .errors import ErrorCode, make_error
from .model import Model

__all__ = ["Coordinator", "Store"]


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
        (a file) or "InMemory" (kept in memory only; no path needed)."""
        err = ctypes.c_void_p()
        raw_path = None if path is None else encode(path)
        handle = lib.og_coordinator_add_store(self._h, encode(type), raw_path, ctypes.byref(err))
        store = Store(self, check_handle(handle, err))
        self._stores.append(store)
        return store

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
