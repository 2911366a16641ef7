"""Opening what the store tool works on: model files, store files and the
model a store keeps of itself (Z_MODELCACHE)."""

from __future__ import annotations

import os
from typing import Optional, Tuple

from ..context import Context
from ..coordinator import Coordinator, Store
from ..errors import ErrorCode, MigrationError
from ..model import Model

__all__ = ["load_model", "store_type", "open_store", "ToolError"]

class ToolError(Exception):
    """A mistake in what the tool was asked to do; printed without a traceback."""


def load_model(path: str) -> Model:
    """A model file: ObjectGraph's JSON, Xcode's .xcdatamodel, or the current
    version of an .xcdatamodeld or compiled .momd folder; also a compiled .mom."""
    if not os.path.exists(path):
        raise ToolError(f"{path}: no such model file or folder")
    stripped = path.rstrip("/")
    if stripped.endswith((".xcdatamodeld", ".momd")):
        return Model.load_version(stripped)
    return Model.load(stripped)


def store_type(path: str, given: Optional[str] = None) -> str:
    """The store type of ``path``: ``given`` when set, else the type its metadata
    names, read by the registered type that recognises the file (without changing it)."""
    if given:
        return given
    if not os.path.exists(path):
        raise ToolError(f"{path}: no such store file")
    kind = Coordinator.metadata_for_store(path).get("NSStoreType")
    if not isinstance(kind, str):
        raise ToolError(f"{path}: not a store ObjectGraph can read")
    return kind


def store_model(path: str, model: Optional[str], type: str) -> Model:
    """``model``'s file when given, else the model the store keeps of itself."""
    if model:
        return load_model(model)
    kept = model_kept_by(path)
    if kept is None:
        raise ToolError(f"{path}: the {type} store keeps no model of itself; give its model with --model")
    return kept


def model_kept_by(path: str) -> Optional[Model]:
    """The model the store at ``path`` keeps of itself (SQLite's Z_MODELCACHE),
    or None when its type keeps none or this store has none."""
    try:
        return Model.from_store(path)
    except MigrationError as error:
        if error.code != ErrorCode.MIGRATION_MISSING_SOURCE_MODEL:
            raise
        return None


def open_store(path: str, model: Optional[str] = None, type: Optional[str] = None,
               read_only: bool = True) -> Tuple[Context, Store]:
    """A context over the store at ``path``, opened read-only unless asked
    otherwise. Close the context's coordinator when done."""
    kind = store_type(path, type)
    coordinator = Coordinator(store_model(path, model, kind))
    store = coordinator.add_store(kind, path, read_only=read_only)
    return Context(coordinator), store


def close(context: Context) -> None:
    coordinator = context.coordinator
    context.close()
    coordinator.close()
