"""Managed object models: Model, its configurations, fetch request templates,
localization and version hashes. Its entities (entity.py) and their properties
(properties.py) are exported here too.

Entities and properties are lent by their model: their wrappers keep the Model
alive, and the Model hands out one wrapper per handle, so ``model["Book"] is
model["Book"]``. Closing the model invalidates every wrapper it handed out; a
later call passes NULL and the library reports OG_ERROR_INVALID_HANDLE.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

from ._call import (c_handles, c_strings, call, call_flag, call_handle, call_optional, call_out, call_string,
                    optional_text, read_string_dict, read_strings, write_string_dict)
from ._handle import OwnedHandle
from ._lib import lib
from ._util import PathLike, encode, take_string
from .entity import Entity
from .enums import PropertyKind
from .errors import Error, ErrorCode, ModelFileNotFoundError, UnknownEntityError, make_error, suggest
from .properties import Attribute, FetchedProperty, Property, Relationship
from .values import Value, to_value


@contextlib.contextmanager
def _missing_file(path: PathLike) -> Iterator[None]:
    """A model file that does not exist raises ModelFileNotFoundError, which is
    also a FileNotFoundError, with the operating system's reason."""
    try:
        yield
    except Error as error:
        try:
            os.stat(path)
        except FileNotFoundError as missing:
            name = os.fsdecode(path)
            raise ModelFileNotFoundError(f"cannot read the model file {name!r}: {missing.strerror}", error.code,
                                         error.domain, {**error.user_info, "NSFilePath": name}) from error
        except (OSError, TypeError, ValueError):
            pass
        raise


__all__ = ["Model", "Entity", "Property", "Attribute", "Relationship", "FetchedProperty", "FetchRequestTemplate"]

#: Version hashes as a store's metadata records them: entity name -> 32 bytes.
VersionHashes = Mapping[str, bytes]


def _hash_args(hashes: VersionHashes) -> Tuple[Any, Any, int]:
    """(names, hashes, count) for the C functions that take store metadata."""
    names = list(hashes)
    blob = bytearray()
    for name in names:
        value = bytes(hashes[name])
        if len(value) != 32:
            raise make_error(f"the version hash of {name!r} has {len(value)} bytes, not 32", ErrorCode.INVALID_ARGUMENT)
        blob += value
    buffer = (ctypes.c_uint8 * max(len(blob), 1)).from_buffer_copy(bytes(blob) or b"\0")
    return c_strings(names), buffer, len(names)


def _metadata_hashes(metadata: Any) -> VersionHashes:
    """A Store's recorded hashes, or a mapping of them as given."""
    hashes = getattr(metadata, "version_hashes", metadata)
    return hashes  # type: ignore[no-any-return]


def _hashes(at: Any, handle: Optional[int], count: int) -> Dict[str, bytes]:
    result: Dict[str, bytes] = {}
    for index in range(count):
        out = (ctypes.c_uint8 * 32)()
        name = call_string(at, handle, index, out)
        result[name or ""] = bytes(out)
    return result


def _sort_key(item: Union[str, Tuple[str, bool]]) -> Tuple[str, bool]:
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        return item[0], bool(item[1])
    if not isinstance(item, str):
        raise make_error(f"a sort key is a string or a (key, ascending) pair, not {item!r}", ErrorCode.INVALID_ARGUMENT)
    return (item[1:], False) if item.startswith("-") else (item, True)


@dataclass(frozen=True)
class FetchRequestTemplate:
    """A model's named fetch request: the entity, the predicate format string
    (``$NAME`` tokens are its variables), sort keys as (key, ascending) and a
    limit (0: none)."""

    entity: str
    predicate: Optional[str] = None
    sort: List[Tuple[str, bool]] = field(default_factory=list)
    limit: int = 0
    variables: List[str] = field(default_factory=list)


class Model(OwnedHandle):
    """A managed object model: entities with attributes and relationships.

    Build one with ``Model()`` and ``add_entity``, or read a JSON model file
    with ``Model.load`` / ``Model.from_json``. Once a Coordinator uses it, the
    model can no longer be changed.
    """

    def __init__(self) -> None:
        self._adopt(lib.og_model_new())

    def _adopt(self, handle: int) -> None:
        self._h = handle
        self._closed = False
        self._entities: Dict[int, Entity] = {}
        self._properties: Dict[int, Property] = {}

    @classmethod
    def _new(cls, handle: int) -> "Model":
        model = cls.__new__(cls)
        model._adopt(handle)
        return model

    @classmethod
    def load(cls, path: PathLike) -> "Model":
        """Reads a model file, the format chosen from the path: ``.json``
        (ObjectGraph's model format), ``.xcdatamodel`` and ``.xcdatamodeld``
        (Xcode's folders, with ``contents`` or Xcode 3's binary ``elements``;
        the current version), ``.mom`` and ``.momd`` (compiled models)."""
        with _missing_file(path):
            return cls._new(call_handle(lib.og_model_load, encode(path)))

    @classmethod
    def from_store(cls, path: PathLike) -> "Model":
        """The model the store file at ``path`` keeps of itself: SQLite stores
        (Apple's, and those ObjectGraph creates) cache the compiled model that
        last wrote them (``Z_MODELCACHE``), so a store opens without its model
        file. Read without changing the file.
        Raises MigrationError (MIGRATION_MISSING_SOURCE_MODEL, 134130) when the
        store keeps no model, StoreError for a missing file or one that is not a
        store."""
        return cls._new(call_handle(lib.og_model_load_from_store, encode(path)))

    @classmethod
    def load_version(cls, path: PathLike, version: Optional[str] = None) -> "Model":
        """Reads version ``version`` of an ``.xcdatamodeld`` or ``.momd`` folder
        (None: the current one)."""
        name = encode(version) if version is not None else None
        with _missing_file(path):
            return cls._new(call_handle(lib.og_model_load_version, encode(path), name))

    def write(self, path: PathLike) -> None:
        """Writes the model in the format the extension names: ``.json``,
        ``.xcdatamodel`` or ``.xcdatamodeld``."""
        call(lib.og_model_write, self._h, encode(path))

    def copy(self) -> "Model":
        """An editable deep copy (the way to change a model in use)."""
        return Model._new(call_handle(lib.og_model_copy, self._h))

    def validate(self) -> None:
        """Raises InvalidModelError naming the entity and property of a problem."""
        call(lib.og_model_validate, self._h)

    @property
    def version_identifiers(self) -> List[str]:
        return read_strings(lib.og_model_version_identifier_count, lib.og_model_version_identifier_at, self._h)

    @version_identifiers.setter
    def version_identifiers(self, identifiers: Iterable[str]) -> None:
        items = list(identifiers)
        call(lib.og_model_set_version_identifiers, self._h, c_strings(items), len(items))

    @property
    def configurations(self) -> List[str]:
        return read_strings(lib.og_model_configuration_count, lib.og_model_configuration_at, self._h)

    def entities_for_configuration(self, name: Optional[str]) -> List["Entity"]:
        """The entities of configuration ``name`` in its order (None: every
        entity, in name order). UsageError for an unknown configuration."""
        config = optional_text(name)
        result = []
        for index in range(call_out(lib.og_model_configuration_entity_count, ctypes.c_size_t, self._h, config)):
            result.append(self._entity(call_handle(lib.og_model_configuration_entity_at, self._h, config, index)))
        return result

    @property
    def fetch_request_templates(self) -> Dict[str, str]:
        """Template name -> the entity it fetches."""
        names = read_strings(lib.og_model_template_count, lib.og_model_template_at, self._h)
        return {n: call_string(lib.og_model_template_entity, self._h, encode(n)) or "" for n in names}

    def fetch_request_from_template(self, name: str, **variables: Value) -> str:
        """The template's predicate with every $VARIABLE replaced; a missing one raises."""
        keys = (ctypes.c_char_p * max(len(variables), 1))(*[encode(k) for k in variables])
        handles = [to_value(v) for v in variables.values()]
        values = (ctypes.c_void_p * max(len(handles), 1))(*handles)
        try:
            return call_string(lib.og_model_template_substitute, self._h, encode(name), keys, values, len(handles)) or ""
        finally:
            for h in handles:
                lib.og_value_release(h)

    def set_entities_for_configuration(self, name: str, entities: Iterable[Union["Entity", str]]) -> None:
        """Defines or replaces configuration ``name`` (entities or their names)."""
        handles = [(e if isinstance(e, Entity) else self.entity(e))._h for e in entities]
        call(lib.og_model_set_configuration_entities, self._h, encode(name), c_handles(handles), len(handles))

    def configuration_contains(self, name: Optional[str], entity: Union["Entity", str]) -> bool:
        """Whether configuration ``name`` (None: the default) holds ``entity``."""
        entity_name = entity.name if isinstance(entity, Entity) else entity
        return call_flag(lib.og_model_configuration_contains, self._h, optional_text(name), encode(entity_name))

    def fetch_request_template(self, name: str) -> FetchRequestTemplate:
        """Template ``name`` in full; UsageError when there is none."""
        key = encode(name)
        entity = call_string(lib.og_model_template_entity, self._h, key) or ""
        limit = ctypes.c_int64()
        call(lib.og_model_template_fetch_limit, self._h, key, ctypes.byref(limit))
        sort = []
        for index in range(call_out(lib.og_model_template_sort_count, ctypes.c_size_t, self._h, key)):
            ascending = ctypes.c_bool()
            sort.append((call_string(lib.og_model_template_sort_at, self._h, key, index, ctypes.byref(ascending)) or "", ascending.value))
        variables = [
            call_string(lib.og_model_template_variable_at, self._h, key, i) or ""
            for i in range(call_out(lib.og_model_template_variable_count, ctypes.c_size_t, self._h, key))
        ]
        return FetchRequestTemplate(entity, call_string(lib.og_model_template_predicate, self._h, key), sort, limit.value, variables)

    def set_fetch_request_template(
        self,
        name: str,
        entity: Union["Entity", str],
        predicate: Optional[str] = None,
        sort: Iterable[Union[str, Tuple[str, bool]]] = (),
        limit: int = 0,
    ) -> None:
        """Stores template ``name`` (replacing one of that name). ``sort`` takes
        keys ("title", "-year" for descending) or (key, ascending) pairs."""
        entity_name = entity.name if isinstance(entity, Entity) else entity
        keys = [_sort_key(item) for item in sort]
        ascending = (ctypes.c_bool * max(len(keys), 1))(*[a for _, a in keys])
        call(lib.og_model_set_template, self._h, encode(name), encode(entity_name), optional_text(predicate),
             c_strings([k for k, _ in keys]), ascending, len(keys), int(limit))

    def remove_fetch_request_template(self, name: str) -> None:
        call(lib.og_model_remove_template, self._h, encode(name))

    @property
    def localization(self) -> Dict[str, str]:
        """The localization dictionary ("Entity/Book" -> "Livre", ...)."""
        return read_string_dict(lib.og_model_localization_count, lib.og_model_localization_key_at, lib.og_model_localization, self._h)

    @localization.setter
    def localization(self, mapping: Mapping[str, str]) -> None:
        write_string_dict(lib.og_model_set_localization, self._h, mapping)

    def localized_entity_name(self, entity: str) -> Optional[str]:
        return call_string(lib.og_model_localized_entity_name, self._h, encode(entity))

    def localized_property_name(self, property: str, entity: str) -> Optional[str]:
        """The per-entity name first, then the general one; None when neither."""
        return call_string(lib.og_model_localized_property_name, self._h, encode(property), encode(entity))

    @property
    def entity_version_hashes(self) -> Dict[str, bytes]:
        """entityVersionHashesByName: entity name -> 32-byte version hash."""
        return _hashes(lib.og_model_version_hash_at, self._h, int(lib.og_model_entity_count(self._h)))

    def is_configuration_compatible(self, metadata: Any, configuration: Optional[str] = None) -> bool:
        """isConfiguration:compatibleWithStoreMetadata:. ``metadata`` is a Store
        or its recorded hashes (entity name -> 32 bytes)."""
        store = getattr(metadata, "_h", None) if hasattr(metadata, "version_hashes") else None
        if store is not None:
            return call_flag(lib.og_model_is_configuration_compatible_with_store, self._h, optional_text(configuration),
                             store)
        names, hashes, count = _hash_args(metadata)
        return call_flag(lib.og_model_is_configuration_compatible, self._h, optional_text(configuration), names, hashes,
                         count)

    @classmethod
    def merge(cls, models: Iterable["Model"], metadata: Any = None) -> Optional["Model"]:
        """modelByMergingModels: a new model holding every part's entities,
        configurations, templates and localization. With ``metadata`` (a Store
        or its hashes), the merged model only when it matches: None otherwise."""
        parts = list(models)
        handles = c_handles([m._h for m in parts])
        if metadata is None:
            return cls._new(call_handle(lib.og_model_merge, handles, len(parts)))
        names, hashes, count = _hash_args(_metadata_hashes(metadata))
        handle = call_optional(lib.og_model_merge_for_metadata, handles, len(parts), names, hashes, count)
        return None if handle is None else cls._new(handle)

    @classmethod
    def load_directory(cls, path: PathLike, metadata: Any = None) -> Optional["Model"]:
        """Every model file in folder ``path``, merged (mergedModelFromBundles:).
        With ``metadata`` (a Store or its hashes), every version of versioned
        folders is tried and only the parts the store knows are merged; None
        when the result does not match."""
        if metadata is None:
            return cls._new(call_handle(lib.og_model_load_directory, encode(path)))
        names, hashes, count = _hash_args(_metadata_hashes(metadata))
        handle = call_optional(lib.og_model_load_directory_for_metadata, encode(path), names, hashes, count)
        return None if handle is None else cls._new(handle)

    def remove_entity(self, name: str) -> None:
        """Removes an entity; relationships to it and configurations forget it."""
        call(lib.og_model_remove_entity, self._h, encode(name))

    @property
    def warnings(self) -> List[str]:
        """What loading skipped or kept without understanding."""
        return read_strings(lib.og_model_warning_count, lib.og_model_warning_at, self._h)

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "Model":
        """Parses a model from JSON text."""
        return cls._new(call_handle(lib.og_model_from_json, encode(text)))

    def to_json(self) -> str:
        return take_string(call_handle(lib.og_model_to_json, self._h)) or ""

    def save(self, path: PathLike) -> None:
        """Writes the model as JSON to ``path``, replacing the file."""
        call(lib.og_model_save, self._h, encode(path))

    @property
    def editable(self) -> bool:
        """False once a coordinator uses the model."""
        return call_flag(lib.og_model_is_editable, self._h)

    def add_entity(self, name: str) -> "Entity":
        return self._entity(call_handle(lib.og_model_add_entity, self._h, encode(name)))

    @property
    def entities(self) -> List["Entity"]:
        """The entities, in name order."""
        result = []
        for index in range(lib.og_model_entity_count(self._h)):
            result.append(self._entity(call_handle(lib.og_model_entity_at, self._h, index)))
        return result

    def entity(self, name: str) -> "Entity":
        """The entity ``name``; UnknownEntityError when there is none (with the
        closest name as a hint)."""
        try:
            return self._entity(call_handle(lib.og_model_entity, self._h, encode(name)))
        except UnknownEntityError as error:
            suggest(error, self)
            raise

    __getitem__ = entity

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(e.name == name for e in self.entities)

    def __iter__(self) -> Iterator["Entity"]:
        return iter(self.entities)

    def __len__(self) -> int:
        return int(lib.og_model_entity_count(self._h))

    # Wrappers, one per handle.

    def _entity(self, handle: int) -> "Entity":
        wrapper = self._entities.get(handle)
        if wrapper is None:
            wrapper = self._entities[handle] = Entity(self, handle)
        return wrapper

    def _entity_or_none(self, handle: Optional[int]) -> Optional["Entity"]:
        return self._entity(handle) if handle else None

    def _as_entity(self, entity: Union["Entity", str]) -> "Entity":
        """An entity given as itself or by name (for the properties, below this module)."""
        return entity if isinstance(entity, Entity) else self.entity(entity)

    def _property(self, handle: int) -> "Property":
        wrapper = self._properties.get(handle)
        if wrapper is None:
            kind = call_out(lib.og_property_kind_of, ctypes.c_int, handle)
            classes: Dict[int, "type[Property]"] = {PropertyKind.RELATIONSHIP: Relationship, PropertyKind.FETCHED: FetchedProperty}
            cls = classes.get(kind, Attribute)
            wrapper = self._properties[handle] = cls(self, handle)
        return wrapper

    # Lifetime.

    def _release(self) -> None:
        """Releases the model. Coordinators using it keep their own reference,
        but the entities and properties it handed out become invalid: using
        them raises InvalidHandleError. Closing twice is harmless."""
        lib.og_model_release(self._h)

    def __repr__(self) -> str:
        if self._closed:
            return "<objectgraph.Model (closed)>"
        return f"<objectgraph.Model entities={[e.name for e in self.entities]}>"
