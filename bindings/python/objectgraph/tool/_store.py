"""Opening what the store tool works on: model files, store files and the
model a store keeps of itself (Z_MODELCACHE).

Stores are read through :func:`._files.readable` and opened read-only, so the
tool changes nothing it only reads; ``convert`` and ``migrate`` write new files."""

from __future__ import annotations

import contextlib
import os
import plistlib
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional

from ..context import Context
from ..coordinator import Coordinator
from ..errors import Error, ErrorCode, MigrationError
from ..model import Model
from ._errors import ToolError
from ._files import is_address

__all__ = ["ToolError", "ModelFile", "load_model", "model_matching", "model_versions", "store_type",
           "store_metadata", "stored_hashes", "model_for", "store_model", "model_kept_by", "needs_model", "read_only_context"]

# A versioned model folder's suffix -> the suffix of each version in it.
_VERSION_SUFFIX = {".xcdatamodeld": ".xcdatamodel", ".momd": ".mom"}
# A versioned model folder's suffix -> the file naming its current version, and the key.
_CURRENT_VERSION = {".xcdatamodeld": (".xccurrentversion", "_XCCurrentVersionName"),
                    ".momd": ("VersionInfo.plist", "NSManagedObjectModel_CurrentVersionName")}


class ModelFile(NamedTuple):
    """A model read from a file, and the version of a versioned folder it is."""

    model: Model
    version: Optional[str]


def load_model(path: str) -> Model:
    """A model file: ObjectGraph's JSON, Xcode's .xcdatamodel, or the current
    version of an .xcdatamodeld or compiled .momd folder; also a compiled .mom."""
    if not os.path.exists(path):
        raise ToolError(f"{path}: no such model file or folder")
    stripped = path.rstrip("/")
    if _versioned_suffix(stripped):
        return Model.load_version(stripped)
    return Model.load(stripped)


def _versioned_suffix(path: str) -> Optional[str]:
    suffix = os.path.splitext(path.rstrip("/"))[1]
    return suffix if suffix in _VERSION_SUFFIX and os.path.isdir(path) else None


def _current_version(folder: str, suffix: str) -> Optional[str]:
    """The current version's name as the folder records it, or None when it records none."""
    name, key = _CURRENT_VERSION[suffix]
    try:
        with open(os.path.join(folder, name), "rb") as file:
            value = plistlib.load(file).get(key)
    except (OSError, plistlib.InvalidFileException, AttributeError, ValueError):
        return None
    if not isinstance(value, str):
        return None
    return value[: -len(_VERSION_SUFFIX[suffix])] if value.endswith(_VERSION_SUFFIX[suffix]) else value


def model_versions(folder: str) -> List[str]:
    """The version names in an .xcdatamodeld or .momd folder, the current one first."""
    stripped = folder.rstrip("/")
    suffix = _versioned_suffix(stripped)
    if suffix is None:
        return []
    ending = _VERSION_SUFFIX[suffix]
    names = sorted(entry[: -len(ending)] for entry in os.listdir(stripped) if entry.endswith(ending))
    current = _current_version(stripped, suffix)
    if current in names:
        names.remove(current)
        names.insert(0, current)
    return names


def _opens(model: Model, hashes: Mapping[str, bytes], configuration: Optional[str]) -> bool:
    try:
        return model.is_configuration_compatible(dict(hashes), configuration)
    except Error:  # e.g. a configuration this version lacks
        return False


def model_matching(path: str, hashes: Mapping[str, bytes], *, configuration: Optional[str] = None) -> ModelFile:
    """The model in the file at ``path`` for a store that recorded ``hashes``.
    A versioned folder (.xcdatamodeld, .momd) holds every version its app shipped,
    and Core Data opens a store with the version that wrote it: the one whose
    entity version hashes match the store's (the current one first), else the
    current version, so what differs can be named."""
    current = load_model(path)
    stripped = path.rstrip("/")
    versions = model_versions(stripped)
    if not versions:
        return ModelFile(current, None)
    current_name = _current_version(stripped, _versioned_suffix(stripped) or "")
    if not hashes or _opens(current, hashes, configuration):
        return ModelFile(current, current_name)
    for name in versions:
        if name == current_name:
            continue
        try:
            candidate = Model.load_version(stripped, name)
        except Error:  # a version that does not load cannot open the store either
            continue
        if _opens(candidate, hashes, configuration):
            return ModelFile(candidate, name)
    return ModelFile(current, current_name)


def store_metadata(path: str, type: Optional[str] = None) -> Dict[str, Any]:
    """The store's metadata, read without changing the file by the registered type
    that recognises it (its own record is the one to trust); ``type`` reads it when
    no type recognises the file."""
    if not is_address(path) and not os.path.exists(path):
        raise ToolError(f"{path}: no such store file")
    try:
        return Coordinator.metadata_for_store(path)
    except Error:
        if not type:
            raise
        return Coordinator.metadata_for_store(path, type)


def store_type(path: str, given: Optional[str] = None) -> str:
    """The store type of ``path``: ``given`` when set, else the type its metadata names."""
    if given:
        return given
    kind = store_metadata(path).get("NSStoreType")
    if not isinstance(kind, str):
        raise ToolError(f"{path}: not a store ObjectGraph can read")
    return kind


def stored_hashes(path: str, type: Optional[str] = None) -> Dict[str, bytes]:
    """The entity version hashes the store at ``path`` recorded when it was written."""
    hashes = store_metadata(path, type).get("NSStoreModelVersionHashes") or {}
    return {name: value for name, value in hashes.items() if isinstance(value, bytes)}


def model_for(path: str, model: Optional[str], type: str) -> Optional[Model]:
    """The model to open the store at ``path`` with: ``model``'s file (the version
    that matches the store), else the model the store keeps of itself, else None."""
    if model:
        return model_matching(model, stored_hashes(path, type)).model
    return model_kept_by(path)


def needs_model(path: str, type: str, what: str = "") -> ToolError:
    """The error for work that needs a model when the store keeps none."""
    doing = f" {what}" if what else ""
    return ToolError(f"{path}: the {type} store keeps no model of itself; give its model with --model{doing}")


def store_model(path: str, model: Optional[str], type: str) -> Model:
    """``model``'s file when given (the version that matches the store), else the
    model the store keeps of itself."""
    found = model_for(path, model, type)
    if found is None:
        raise needs_model(path, type)
    return found


def model_kept_by(path: str) -> Optional[Model]:
    """The model the store at ``path`` keeps of itself (SQLite's Z_MODELCACHE),
    or None when its type keeps none or this store has none."""
    try:
        return Model.from_store(path)
    except MigrationError as error:
        if error.code != ErrorCode.MIGRATION_MISSING_SOURCE_MODEL:
            raise
        return None


@contextlib.contextmanager
def read_only_context(path: str, model: Model, type: str) -> Iterator[Context]:
    """A context over the store at ``path`` added read-only (nothing is written to
    it or beside it), closed with its coordinator afterwards. ``path`` comes from
    :func:`._files.readable`."""
    coordinator = Coordinator(model)
    try:
        coordinator.add_store(type, path, read_only=True)
        context = Context(coordinator)
        try:
            yield context
        finally:
            context.close()
    finally:
        coordinator.close()
