"""Managed object models: Model, Entity, Attribute and Relationship.

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
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ._handle import OwnedHandle
from ._lib import lib
from ._util import PathLike, check, check_handle, decode, encode, take_string
from .enums import AttributeType, DeleteRule, PropertyKind
from .errors import Error, ErrorCode, ModelFileNotFoundError, UnknownEntityError, make_error, suggest
from .values import Value, take_value, to_value


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



if TYPE_CHECKING:
    from .fetch_index import FetchIndex

__all__ = ["Model", "Entity", "Property", "Attribute", "Relationship", "FetchedProperty", "FetchRequestTemplate"]

#: Version hashes as a store's metadata records them: entity name -> 32 bytes.
VersionHashes = Mapping[str, bytes]


def _invalid(what: str) -> Exception:
    # For the calls that have no error slot and answer NULL for a bad handle.
    return make_error(f"invalid handle: the {what} was released with its model", ErrorCode.INVALID_HANDLE)


def _get_bool(getter: Any, handle: Optional[int]) -> bool:
    out = ctypes.c_bool()
    err = ctypes.c_void_p()
    check(getter(handle, ctypes.byref(out), ctypes.byref(err)), err)
    return out.value


def _get_enum(getter: Any, handle: Optional[int]) -> int:
    out = ctypes.c_int()
    err = ctypes.c_void_p()
    check(getter(handle, ctypes.byref(out), ctypes.byref(err)), err)
    return out.value


def _set(setter: Any, handle: Optional[int], *args: Any) -> None:
    err = ctypes.c_void_p()
    check(setter(handle, *args, ctypes.byref(err)), err)


def _text(getter: Any, *args: Any) -> Optional[str]:
    """An owned string a getter returns; None when it returns NULL without an error."""
    err = ctypes.c_void_p()
    pointer = getter(*args, ctypes.byref(err))
    if not pointer and err.value:
        check_handle(pointer, err)
    return take_string(pointer)


def _texts(count: Any, at: Any, handle: Optional[int]) -> List[str]:
    return [_text(at, handle, i) or "" for i in range(count(handle))]


def _size(getter: Any, *args: Any) -> int:
    """A count a fallible getter writes to its `size_t *out`."""
    out = ctypes.c_size_t()
    err = ctypes.c_void_p()
    check(getter(*args, ctypes.byref(out), ctypes.byref(err)), err)
    return out.value


def _c_strings(items: Sequence[Union[str, bytes]]) -> "ctypes.Array[ctypes.c_char_p]":
    return (ctypes.c_char_p * max(len(items), 1))(*[encode(i) for i in items])


def _c_handles(handles: Sequence[Optional[int]]) -> "ctypes.Array[ctypes.c_void_p]":
    return (ctypes.c_void_p * max(len(handles), 1))(*handles)


def _opt(text: Optional[str]) -> Optional[bytes]:
    return encode(text) if text is not None else None


def _pairs(setter: Any, handle: Optional[int], mapping: Mapping[str, str]) -> None:
    """Calls a setter taking (keys, values, count)."""
    keys = list(mapping)
    _set(setter, handle, _c_strings(keys), _c_strings([mapping[k] for k in keys]), len(keys))


def _dict(count: Any, key_at: Any, value: Any, handle: Optional[int]) -> Dict[str, str]:
    return {k: _text(value, handle, encode(k)) or "" for k in _texts(count, key_at, handle)}


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
    return _c_strings(names), buffer, len(names)


def _metadata_hashes(metadata: Any) -> VersionHashes:
    """A Store's recorded hashes, or a mapping of them as given."""
    hashes = getattr(metadata, "version_hashes", metadata)
    return hashes  # type: ignore[no-any-return]


def _hashes(at: Any, handle: Optional[int], count: int) -> Dict[str, bytes]:
    result: Dict[str, bytes] = {}
    for index in range(count):
        out = (ctypes.c_uint8 * 32)()
        name = _text(at, handle, index, out)
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


def _none_or_raise(err: ctypes.c_void_p) -> None:
    """For the calls that return NULL without an error when nothing matches."""
    if err.value:
        check_handle(None, err)
    return None


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
        err = ctypes.c_void_p()
        with _missing_file(path):
            return cls._new(check_handle(lib.og_model_load(encode(path), ctypes.byref(err)), err))

    @classmethod
    def from_store(cls, path: PathLike) -> "Model":
        """The model the store file at ``path`` keeps of itself: SQLite stores
        (Apple's, and those ObjectGraph creates) cache the compiled model that
        last wrote them (``Z_MODELCACHE``), so a store opens without its model
        file. Read without changing the file.
        Raises MigrationError (MIGRATION_MISSING_SOURCE_MODEL, 134130) when the
        store keeps no model, StoreError for a missing file or one that is not a
        store."""
        err = ctypes.c_void_p()
        return cls._new(check_handle(lib.og_model_load_from_store(encode(path), ctypes.byref(err)), err))

    @classmethod
    def load_version(cls, path: PathLike, version: Optional[str] = None) -> "Model":
        """Reads version ``version`` of an ``.xcdatamodeld`` or ``.momd`` folder
        (None: the current one)."""
        err = ctypes.c_void_p()
        name = encode(version) if version is not None else None
        with _missing_file(path):
            return cls._new(check_handle(lib.og_model_load_version(encode(path), name, ctypes.byref(err)), err))

    def write(self, path: PathLike) -> None:
        """Writes the model in the format the extension names: ``.json``,
        ``.xcdatamodel`` or ``.xcdatamodeld``."""
        _set(lib.og_model_write, self._h, encode(path))

    def copy(self) -> "Model":
        """An editable deep copy (the way to change a model in use)."""
        err = ctypes.c_void_p()
        return Model._new(check_handle(lib.og_model_copy(self._h, ctypes.byref(err)), err))

    def validate(self) -> None:
        """Raises InvalidModelError naming the entity and property of a problem."""
        _set(lib.og_model_validate, self._h)

    @property
    def version_identifiers(self) -> List[str]:
        return _texts(lib.og_model_version_identifier_count, lib.og_model_version_identifier_at, self._h)

    @version_identifiers.setter
    def version_identifiers(self, identifiers: Iterable[str]) -> None:
        items = list(identifiers)
        _set(lib.og_model_set_version_identifiers, self._h, _c_strings(items), len(items))

    @property
    def configurations(self) -> List[str]:
        return _texts(lib.og_model_configuration_count, lib.og_model_configuration_at, self._h)

    def entities_for_configuration(self, name: Optional[str]) -> List["Entity"]:
        """The entities of configuration ``name`` in its order (None: every
        entity, in name order). UsageError for an unknown configuration."""
        config = _opt(name)
        result = []
        for index in range(_size(lib.og_model_configuration_entity_count, self._h, config)):
            err = ctypes.c_void_p()
            result.append(self._entity(check_handle(lib.og_model_configuration_entity_at(self._h, config, index, ctypes.byref(err)), err)))
        return result

    @property
    def fetch_request_templates(self) -> Dict[str, str]:
        """Template name -> the entity it fetches."""
        names = _texts(lib.og_model_template_count, lib.og_model_template_at, self._h)
        return {n: _text(lib.og_model_template_entity, self._h, encode(n)) or "" for n in names}

    def fetch_request_from_template(self, name: str, **variables: Value) -> str:
        """The template's predicate with every $VARIABLE replaced; a missing one raises."""
        keys = (ctypes.c_char_p * max(len(variables), 1))(*[encode(k) for k in variables])
        handles = [to_value(v) for v in variables.values()]
        values = (ctypes.c_void_p * max(len(handles), 1))(*handles)
        try:
            return _text(lib.og_model_template_substitute, self._h, encode(name), keys, values, len(handles)) or ""
        finally:
            for h in handles:
                lib.og_value_release(h)

    def set_entities_for_configuration(self, name: str, entities: Iterable[Union["Entity", str]]) -> None:
        """Defines or replaces configuration ``name`` (entities or their names)."""
        handles = [(e if isinstance(e, Entity) else self.entity(e))._h for e in entities]
        _set(lib.og_model_set_configuration_entities, self._h, encode(name), _c_handles(handles), len(handles))

    def configuration_contains(self, name: Optional[str], entity: Union["Entity", str]) -> bool:
        """Whether configuration ``name`` (None: the default) holds ``entity``."""
        out = ctypes.c_bool()
        err = ctypes.c_void_p()
        entity_name = entity.name if isinstance(entity, Entity) else entity
        check(lib.og_model_configuration_contains(self._h, _opt(name), encode(entity_name), ctypes.byref(out), ctypes.byref(err)), err)
        return out.value

    def fetch_request_template(self, name: str) -> FetchRequestTemplate:
        """Template ``name`` in full; UsageError when there is none."""
        key = encode(name)
        entity = _text(lib.og_model_template_entity, self._h, key) or ""
        limit = ctypes.c_int64()
        _set(lib.og_model_template_fetch_limit, self._h, key, ctypes.byref(limit))
        sort = []
        for index in range(_size(lib.og_model_template_sort_count, self._h, key)):
            ascending = ctypes.c_bool()
            sort.append((_text(lib.og_model_template_sort_at, self._h, key, index, ctypes.byref(ascending)) or "", ascending.value))
        variables = [
            _text(lib.og_model_template_variable_at, self._h, key, i) or ""
            for i in range(_size(lib.og_model_template_variable_count, self._h, key))
        ]
        return FetchRequestTemplate(entity, _text(lib.og_model_template_predicate, self._h, key), sort, limit.value, variables)

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
        _set(lib.og_model_set_template, self._h, encode(name), encode(entity_name), _opt(predicate),
             _c_strings([k for k, _ in keys]), ascending, len(keys), int(limit))

    def remove_fetch_request_template(self, name: str) -> None:
        _set(lib.og_model_remove_template, self._h, encode(name))

    @property
    def localization(self) -> Dict[str, str]:
        """The localization dictionary ("Entity/Book" -> "Livre", ...)."""
        return _dict(lib.og_model_localization_count, lib.og_model_localization_key_at, lib.og_model_localization, self._h)

    @localization.setter
    def localization(self, mapping: Mapping[str, str]) -> None:
        _pairs(lib.og_model_set_localization, self._h, mapping)

    def localized_entity_name(self, entity: str) -> Optional[str]:
        return _text(lib.og_model_localized_entity_name, self._h, encode(entity))

    def localized_property_name(self, property: str, entity: str) -> Optional[str]:
        """The per-entity name first, then the general one; None when neither."""
        return _text(lib.og_model_localized_property_name, self._h, encode(property), encode(entity))

    @property
    def entity_version_hashes(self) -> Dict[str, bytes]:
        """entityVersionHashesByName: entity name -> 32-byte version hash."""
        return _hashes(lib.og_model_version_hash_at, self._h, int(lib.og_model_entity_count(self._h)))

    def is_configuration_compatible(self, metadata: Any, configuration: Optional[str] = None) -> bool:
        """isConfiguration:compatibleWithStoreMetadata:. ``metadata`` is a Store
        or its recorded hashes (entity name -> 32 bytes)."""
        out = ctypes.c_bool()
        err = ctypes.c_void_p()
        store = getattr(metadata, "_h", None) if hasattr(metadata, "version_hashes") else None
        if store is not None:
            check(lib.og_model_is_configuration_compatible_with_store(
                self._h, _opt(configuration), store, ctypes.byref(out), ctypes.byref(err)), err)
        else:
            names, hashes, count = _hash_args(metadata)
            check(lib.og_model_is_configuration_compatible(
                self._h, _opt(configuration), names, hashes, count, ctypes.byref(out), ctypes.byref(err)), err)
        return out.value

    @classmethod
    def merge(cls, models: Iterable["Model"], metadata: Any = None) -> Optional["Model"]:
        """modelByMergingModels: a new model holding every part's entities,
        configurations, templates and localization. With ``metadata`` (a Store
        or its hashes), the merged model only when it matches: None otherwise."""
        parts = list(models)
        handles = _c_handles([m._h for m in parts])
        err = ctypes.c_void_p()
        if metadata is None:
            return cls._new(check_handle(lib.og_model_merge(handles, len(parts), ctypes.byref(err)), err))
        names, hashes, count = _hash_args(_metadata_hashes(metadata))
        handle = lib.og_model_merge_for_metadata(handles, len(parts), names, hashes, count, ctypes.byref(err))
        if handle:
            return cls._new(handle)
        _none_or_raise(err)
        return None

    @classmethod
    def load_directory(cls, path: PathLike, metadata: Any = None) -> Optional["Model"]:
        """Every model file in folder ``path``, merged (mergedModelFromBundles:).
        With ``metadata`` (a Store or its hashes), every version of versioned
        folders is tried and only the parts the store knows are merged; None
        when the result does not match."""
        err = ctypes.c_void_p()
        if metadata is None:
            return cls._new(check_handle(lib.og_model_load_directory(encode(path), ctypes.byref(err)), err))
        names, hashes, count = _hash_args(_metadata_hashes(metadata))
        handle = lib.og_model_load_directory_for_metadata(encode(path), names, hashes, count, ctypes.byref(err))
        if handle:
            return cls._new(handle)
        _none_or_raise(err)
        return None

    def remove_entity(self, name: str) -> None:
        """Removes an entity; relationships to it and configurations forget it."""
        _set(lib.og_model_remove_entity, self._h, encode(name))

    @property
    def warnings(self) -> List[str]:
        """What loading skipped or kept without understanding."""
        return _texts(lib.og_model_warning_count, lib.og_model_warning_at, self._h)

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "Model":
        """Parses a model from JSON text."""
        err = ctypes.c_void_p()
        return cls._new(check_handle(lib.og_model_from_json(encode(text), ctypes.byref(err)), err))

    def to_json(self) -> str:
        err = ctypes.c_void_p()
        pointer = lib.og_model_to_json(self._h, ctypes.byref(err))
        return take_string(check_handle(pointer, err)) or ""

    def save(self, path: PathLike) -> None:
        """Writes the model as JSON to ``path``, replacing the file."""
        _set(lib.og_model_save, self._h, encode(path))

    @property
    def editable(self) -> bool:
        """False once a coordinator uses the model."""
        return _get_bool(lib.og_model_is_editable, self._h)

    def add_entity(self, name: str) -> "Entity":
        err = ctypes.c_void_p()
        return self._entity(check_handle(lib.og_model_add_entity(self._h, encode(name), ctypes.byref(err)), err))

    @property
    def entities(self) -> List["Entity"]:
        """The entities, in name order."""
        result = []
        for index in range(lib.og_model_entity_count(self._h)):
            err = ctypes.c_void_p()
            result.append(self._entity(check_handle(lib.og_model_entity_at(self._h, index, ctypes.byref(err)), err)))
        return result

    def entity(self, name: str) -> "Entity":
        """The entity ``name``; UnknownEntityError when there is none (with the
        closest name as a hint)."""
        err = ctypes.c_void_p()
        try:
            return self._entity(check_handle(lib.og_model_entity(self._h, encode(name), ctypes.byref(err)), err))
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

    def _property(self, handle: int) -> "Property":
        wrapper = self._properties.get(handle)
        if wrapper is None:
            kind = _get_enum(lib.og_property_kind_of, handle)
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


class Entity:
    """An entity of a model. Lent by the model; keeps it alive."""

    __slots__ = ("_model", "_h", "__weakref__")

    def __init__(self, model: Model, handle: int) -> None:
        self._model = model
        self._h: int = handle

    @property
    def model(self) -> Model:
        return self._model

    @property
    def name(self) -> str:
        name = decode(lib.og_entity_name(self._h))
        if name is None:
            raise _invalid("entity")
        return name

    @name.setter
    def name(self, value: str) -> None:
        """Renames the entity before the model is used (setName:): ``model[new]``
        works and every reference follows. ModelError 140008 when the model is in
        use; UsageError 140002 when the name is empty or taken."""
        err = ctypes.c_void_p()
        check(lib.og_entity_set_name(self._h, encode(value), ctypes.byref(err)), err)

    @property
    def superentity(self) -> Optional["Entity"]:
        return self._model._entity_or_none(lib.og_entity_superentity(self._h))

    @superentity.setter
    def superentity(self, parent: Optional["Entity"]) -> None:
        _set(lib.og_entity_set_superentity, self._h, parent._h if parent is not None else None)

    @property
    def abstract(self) -> bool:
        return _get_bool(lib.og_entity_is_abstract, self._h)

    @abstract.setter
    def abstract(self, value: bool) -> None:
        _set(lib.og_entity_set_abstract, self._h, bool(value))

    @property
    def class_name(self) -> str:
        """The managed object class name ("ManagedObject" unless set; None resets it)."""
        return _text(lib.og_entity_class_name, self._h) or ""

    @class_name.setter
    def class_name(self, name: Optional[str]) -> None:
        _set(lib.og_entity_set_class_name, self._h, _opt(name))

    @property
    def renaming_identifier(self) -> str:
        """The name in an earlier model version (the entity's name unless set)."""
        return _text(lib.og_entity_renaming_identifier, self._h) or ""

    @renaming_identifier.setter
    def renaming_identifier(self, identifier: Optional[str]) -> None:
        _set(lib.og_entity_set_renaming_identifier, self._h, _opt(identifier))

    @property
    def version_hash_modifier(self) -> Optional[str]:
        return _text(lib.og_entity_version_hash_modifier, self._h)

    @version_hash_modifier.setter
    def version_hash_modifier(self, modifier: Optional[str]) -> None:
        _set(lib.og_entity_set_version_hash_modifier, self._h, _opt(modifier))

    def user_info(self, key: str) -> Optional[str]:
        return _text(lib.og_entity_user_info, self._h, encode(key))

    @property
    def user_info_dict(self) -> Dict[str, str]:
        """Every user-info entry; assigning replaces them all."""
        return _dict(lib.og_entity_user_info_count, lib.og_entity_user_info_key_at, lib.og_entity_user_info, self._h)

    @user_info_dict.setter
    def user_info_dict(self, mapping: Mapping[str, str]) -> None:
        _pairs(lib.og_entity_set_user_info, self._h, mapping)

    @property
    def uniqueness_constraints(self) -> List[List[str]]:
        """Lists of property names whose values must be unique together."""
        joined = _texts(lib.og_entity_uniqueness_constraint_count, lib.og_entity_uniqueness_constraint_at, self._h)
        return [c.split(",") for c in joined]

    @uniqueness_constraints.setter
    def uniqueness_constraints(self, constraints: Iterable[Sequence[str]]) -> None:
        joined = [",".join(c) for c in constraints]
        _set(lib.og_entity_set_uniqueness_constraints, self._h, _c_strings(joined), len(joined))

    @property
    def fetch_indexes(self) -> List["FetchIndex"]:
        """The entity's fetch indexes (Core Data's ``indexes``), new values on each read;
        assigning replaces them all and makes this entity theirs."""
        from .fetch_index import read_indexes

        return read_indexes(self)

    @fetch_indexes.setter
    def fetch_indexes(self, indexes: Iterable["FetchIndex"]) -> None:
        from .fetch_index import write_indexes

        write_indexes(self, indexes)

    @property
    def compound_indexes(self) -> List[Any]:
        """Deprecated, as on Apple: always ``[]``; assigning is accepted and ignored."""
        return []

    @compound_indexes.setter
    def compound_indexes(self, indexes: Any) -> None:
        pass

    @property
    def subentities(self) -> List["Entity"]:
        """Direct subentities in name order; assigning makes exactly these the children."""
        result = []
        for index in range(lib.og_entity_subentity_count(self._h)):
            err = ctypes.c_void_p()
            result.append(self._model._entity(check_handle(lib.og_entity_subentity_at(self._h, index, ctypes.byref(err)), err)))
        return result

    @subentities.setter
    def subentities(self, children: Iterable["Entity"]) -> None:
        handles = [c._h for c in children]
        _set(lib.og_entity_set_subentities, self._h, _c_handles(handles), len(handles))

    def relationships_with_destination(self, destination: Union["Entity", str]) -> List["Relationship"]:
        """The relationships (inherited ones included) pointing at ``destination``."""
        target = destination if isinstance(destination, Entity) else self._model.entity(destination)
        result = []
        for index in range(lib.og_entity_relationship_with_destination_count(self._h, target._h)):
            err = ctypes.c_void_p()
            handle = check_handle(lib.og_entity_relationship_with_destination_at(self._h, target._h, index, ctypes.byref(err)), err)
            result.append(self._model._property(handle))
        return result  # type: ignore[return-value]

    @property
    def fetched_properties(self) -> Dict[str, "FetchedProperty"]:
        """Fetched properties by name, inherited ones included."""
        result = {}
        for index in range(lib.og_entity_fetched_property_count(self._h)):
            err = ctypes.c_void_p()
            prop = self._model._property(check_handle(lib.og_entity_fetched_property_at(self._h, index, ctypes.byref(err)), err))
            result[prop.name] = prop
        return result  # type: ignore[return-value]

    def add_fetched_property(self, name: str, entity: Union["Entity", str], predicate: Optional[str] = None) -> "FetchedProperty":
        """Adds a fetched property: the objects of ``entity`` matching
        ``predicate`` (which may use $FETCH_SOURCE and $FETCHED_PROPERTY)."""
        entity_name = entity.name if isinstance(entity, Entity) else entity
        err = ctypes.c_void_p()
        handle = lib.og_entity_add_fetched_property(self._h, encode(name), encode(entity_name), _opt(predicate), ctypes.byref(err))
        return self._model._property(check_handle(handle, err))  # type: ignore[return-value]

    def remove_property(self, name: str) -> None:
        """Removes a property this entity declares."""
        _set(lib.og_entity_remove_property, self._h, encode(name))

    def is_kind_of(self, other: "Entity") -> bool:
        out = ctypes.c_bool()
        err = ctypes.c_void_p()
        check(lib.og_entity_is_kind_of(self._h, other._h, ctypes.byref(out), ctypes.byref(err)), err)
        return out.value

    @property
    def properties(self) -> List["Property"]:
        """Every attribute and relationship, inherited ones first, in slot order
        (fetched properties have no slot: reach them by name)."""
        result = []
        for index in range(lib.og_entity_property_count(self._h)):
            err = ctypes.c_void_p()
            result.append(self._model._property(check_handle(lib.og_entity_property_at(self._h, index, ctypes.byref(err)), err)))
        return result

    @property
    def attributes(self) -> Dict[str, "Attribute"]:
        return {p.name: p for p in self.properties if isinstance(p, Attribute)}

    @property
    def relationships(self) -> Dict[str, "Relationship"]:
        return {p.name: p for p in self.properties if isinstance(p, Relationship)}

    def property_named(self, name: str) -> "Property":
        """The property ``name`` (inherited ones included); UnknownKeyError otherwise."""
        err = ctypes.c_void_p()
        return self._model._property(check_handle(lib.og_entity_property(self._h, encode(name), ctypes.byref(err)), err))

    __getitem__ = property_named

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(p.name == name for p in self.properties)

    def slot(self, key: str) -> int:
        """The slot index of property ``key`` in the objects' value array."""
        err = ctypes.c_void_p()
        slot = lib.og_entity_slot(self._h, encode(key), ctypes.byref(err))
        if slot < 0:
            check(-1, err)
        return int(slot)

    @property
    def version_hash(self) -> bytes:
        """SHA-256 over the entity's definition (32 bytes); stores record it."""
        out = (ctypes.c_uint8 * 32)()
        _set(lib.og_entity_version_hash, self._h, out)
        return bytes(out)

    def add_attribute(
        self,
        name: str,
        type: Union[AttributeType, int, str],
        optional: bool = True,
        default: Value = None,
    ) -> "Attribute":
        """Adds an attribute. ``type`` is an AttributeType, its number, or its
        model-format name ("integer64", "string", ...)."""
        err = ctypes.c_void_p()
        kind = AttributeType.parse(type)
        handle = check_handle(lib.og_entity_add_attribute(self._h, encode(name), int(kind), ctypes.byref(err)), err)
        attribute = self._model._property(handle)
        assert isinstance(attribute, Attribute)
        if not optional:
            attribute.optional = False
        if default is not None:
            attribute.default = default
        return attribute

    def add_relationship(
        self,
        name: str,
        destination: Union["Entity", str],
        to_many: bool = False,
        inverse: Union["Relationship", str, None] = None,
        delete_rule: Union[DeleteRule, int, str] = DeleteRule.NULLIFY,
        optional: bool = True,
    ) -> "Relationship":
        """Adds a relationship to ``destination`` (an Entity or its name).
        ``inverse`` is the relationship on the destination that points back,
        or its name; both sides are paired."""
        target = destination if isinstance(destination, Entity) else self._model.entity(destination)
        err = ctypes.c_void_p()
        handle = check_handle(lib.og_entity_add_relationship(self._h, encode(name), target._h, ctypes.byref(err)), err)
        relationship = self._model._property(handle)
        assert isinstance(relationship, Relationship)
        if to_many:
            relationship.to_many = True
        rule = DeleteRule.parse(delete_rule)
        if rule != DeleteRule.NULLIFY:
            relationship.delete_rule = rule
        if not optional:
            relationship.optional = False
        if inverse is not None:
            relationship.inverse = inverse if isinstance(inverse, Relationship) else target.property_named(inverse)  # type: ignore[assignment]
        return relationship

    def __repr__(self) -> str:
        try:
            return f"<objectgraph.Entity {self.name}>"
        except Exception:
            return "<objectgraph.Entity (invalid)>"


class Property:
    """What attributes and relationships share."""

    __slots__ = ("_model", "_h", "__weakref__")

    def __init__(self, model: Model, handle: int) -> None:
        self._model = model
        self._h: int = handle

    @property
    def name(self) -> str:
        name = decode(lib.og_property_name(self._h))
        if name is None:
            raise _invalid("property")
        return name

    @name.setter
    def name(self, value: str) -> None:
        """Renames the property before the model is used (setName:): the entity
        is re-keyed and every reference follows. ModelError 140008 when the model
        is in use; UsageError 140002 when the name is empty or taken."""
        err = ctypes.c_void_p()
        check(lib.og_property_set_name(self._h, encode(value), ctypes.byref(err)), err)

    @property
    def entity(self) -> "Entity":
        """The entity that declares the property."""
        handle = lib.og_property_entity(self._h)
        if not handle:
            raise _invalid("property")
        return self._model._entity(handle)

    @property
    def kind(self) -> PropertyKind:
        return PropertyKind(_get_enum(lib.og_property_kind_of, self._h))

    @property
    def optional(self) -> bool:
        return _get_bool(lib.og_property_is_optional, self._h)

    @optional.setter
    def optional(self, value: bool) -> None:
        _set(lib.og_property_set_optional, self._h, bool(value))

    @property
    def transient(self) -> bool:
        return _get_bool(lib.og_property_is_transient, self._h)

    @transient.setter
    def transient(self, value: bool) -> None:
        _set(lib.og_property_set_transient, self._h, bool(value))

    @property
    def indexed(self) -> bool:
        """True exactly when the entity has a fetch index of this attribute alone (binary,
        ascending, partial or not); always True for a relationship. Setting True adds such
        an index named after the property; False removes those."""
        return _get_bool(lib.og_property_is_indexed, self._h)

    @indexed.setter
    def indexed(self, value: bool) -> None:
        _set(lib.og_property_set_indexed, self._h, bool(value))

    @property
    def indexed_by_spotlight(self) -> bool:
        """Kept as data; no effect on Linux."""
        return _get_bool(lib.og_property_is_indexed_by_spotlight, self._h)

    @indexed_by_spotlight.setter
    def indexed_by_spotlight(self, value: bool) -> None:
        _set(lib.og_property_set_indexed_by_spotlight, self._h, bool(value))

    @property
    def stored_in_external_record(self) -> bool:
        """Kept as data; no effect on Linux."""
        return _get_bool(lib.og_property_is_stored_in_external_record, self._h)

    @stored_in_external_record.setter
    def stored_in_external_record(self, value: bool) -> None:
        _set(lib.og_property_set_stored_in_external_record, self._h, bool(value))

    @property
    def renaming_identifier(self) -> str:
        return _text(lib.og_property_renaming_identifier, self._h) or ""

    @renaming_identifier.setter
    def renaming_identifier(self, identifier: Optional[str]) -> None:
        _set(lib.og_property_set_renaming_identifier, self._h, _opt(identifier))

    @property
    def version_hash_modifier(self) -> Optional[str]:
        return _text(lib.og_property_version_hash_modifier, self._h)

    @version_hash_modifier.setter
    def version_hash_modifier(self, modifier: Optional[str]) -> None:
        _set(lib.og_property_set_version_hash_modifier, self._h, _opt(modifier))

    @property
    def version_hash(self) -> bytes:
        """The property's own 32-byte hash, as its entity's hash uses it."""
        out = (ctypes.c_uint8 * 32)()
        _set(lib.og_property_version_hash, self._h, out)
        return bytes(out)

    def user_info(self, key: str) -> Optional[str]:
        return _text(lib.og_property_user_info, self._h, encode(key))

    @property
    def user_info_dict(self) -> Dict[str, str]:
        """Every user-info entry; assigning replaces them all."""
        return _dict(lib.og_property_user_info_count, lib.og_property_user_info_key_at, lib.og_property_user_info, self._h)

    @user_info_dict.setter
    def user_info_dict(self, mapping: Mapping[str, str]) -> None:
        _pairs(lib.og_property_set_user_info, self._h, mapping)

    @property
    def validation(self) -> List[Tuple[str, str]]:
        """Validation rules as (predicate format, warning) pairs; assigning replaces them."""
        count = int(lib.og_property_validation_count(self._h))
        return [
            (_text(lib.og_property_validation_predicate_at, self._h, i) or "", _text(lib.og_property_validation_warning_at, self._h, i) or "")
            for i in range(count)
        ]

    @validation.setter
    def validation(self, rules: Iterable[Tuple[str, str]]) -> None:
        pairs = list(rules)
        _set(lib.og_property_set_validation, self._h, _c_strings([p for p, _ in pairs]), _c_strings([w for _, w in pairs]), len(pairs))

    def __repr__(self) -> str:
        try:
            return f"<objectgraph.{type(self).__name__} {self.entity.name}.{self.name}>"
        except Exception:
            return f"<objectgraph.{type(self).__name__} (invalid)>"


class Attribute(Property):
    __slots__ = ()

    @property
    def type(self) -> AttributeType:
        """The attribute type; assigning one clears the default and the value bounds."""
        return AttributeType(_get_enum(lib.og_attribute_type_of, self._h))

    @type.setter
    def type(self, kind: Union[AttributeType, int, str]) -> None:
        _set(lib.og_attribute_set_type, self._h, int(AttributeType.parse(kind)))

    def _bound(self, getter: Any) -> Value:
        err = ctypes.c_void_p()
        return take_value(check_handle(getter(self._h, ctypes.byref(err)), err))

    def _set_bounds(self, low: Value, high: Value) -> None:
        kind = self.type
        handles = [to_value(low, kind), to_value(high, kind)]
        try:
            _set(lib.og_attribute_set_value_bounds, self._h, handles[0], handles[1])
        finally:
            for h in handles:
                lib.og_value_release(h)

    @property
    def min_value(self) -> Value:
        """The smallest value allowed (numbers and dates); None: no bound."""
        return self._bound(lib.og_attribute_min_value)

    @min_value.setter
    def min_value(self, value: Value) -> None:
        self._set_bounds(value, self.max_value)

    @property
    def max_value(self) -> Value:
        return self._bound(lib.og_attribute_max_value)

    @max_value.setter
    def max_value(self, value: Value) -> None:
        self._set_bounds(self.min_value, value)

    def _lengths(self) -> Tuple[Optional[int], Optional[int]]:
        lo, hi = ctypes.c_int64(), ctypes.c_int64()
        _set(lib.og_attribute_length_bounds, self._h, ctypes.byref(lo), ctypes.byref(hi))
        return (lo.value if lo.value >= 0 else None, hi.value if hi.value >= 0 else None)

    def _set_lengths(self, low: Optional[int], high: Optional[int]) -> None:
        _set(lib.og_attribute_set_length_bounds, self._h, -1 if low is None else int(low), -1 if high is None else int(high))

    @property
    def min_length(self) -> Optional[int]:
        """The shortest length allowed (strings, binary data); None: no bound."""
        return self._lengths()[0]

    @min_length.setter
    def min_length(self, value: Optional[int]) -> None:
        self._set_lengths(value, self._lengths()[1])

    @property
    def max_length(self) -> Optional[int]:
        return self._lengths()[1]

    @max_length.setter
    def max_length(self, value: Optional[int]) -> None:
        self._set_lengths(self._lengths()[0], value)

    @property
    def regular_expression(self) -> Optional[str]:
        return _text(lib.og_attribute_regular_expression, self._h)

    @regular_expression.setter
    def regular_expression(self, pattern: Optional[str]) -> None:
        _set(lib.og_attribute_set_regular_expression, self._h, _opt(pattern))

    @property
    def value_class_name(self) -> Optional[str]:
        return _text(lib.og_attribute_value_class_name, self._h)

    @value_class_name.setter
    def value_class_name(self, name: Optional[str]) -> None:
        _set(lib.og_attribute_set_value_class_name, self._h, _opt(name))

    @property
    def derivation_expression(self) -> Optional[str]:
        return _text(lib.og_attribute_derivation_expression, self._h)

    @derivation_expression.setter
    def derivation_expression(self, expression: Optional[str]) -> None:
        _set(lib.og_attribute_set_derivation_expression, self._h, _opt(expression))

    @property
    def allows_external_storage(self) -> bool:
        """allowsExternalBinaryDataStorage."""
        return _get_bool(lib.og_attribute_allows_external_storage, self._h)

    @allows_external_storage.setter
    def allows_external_storage(self, value: bool) -> None:
        _set(lib.og_attribute_set_allows_external_storage, self._h, bool(value))

    @property
    def preserves_value_in_history(self) -> bool:
        """preservesValueInHistoryOnDeletion."""
        return _get_bool(lib.og_attribute_preserves_value_in_history, self._h)

    @preserves_value_in_history.setter
    def preserves_value_in_history(self, value: bool) -> None:
        _set(lib.og_attribute_set_preserves_value_in_history, self._h, bool(value))

    @property
    def default(self) -> Value:
        """The value new objects get; None when there is none."""
        err = ctypes.c_void_p()
        handle = lib.og_attribute_default(self._h, ctypes.byref(err))
        return take_value(check_handle(handle, err))

    @default.setter
    def default(self, value: Value) -> None:
        handle = to_value(value, self.type)
        try:
            _set(lib.og_attribute_set_default, self._h, handle)
        finally:
            lib.og_value_release(handle)

    @property
    def value_transformer_name(self) -> Optional[str]:
        return _text(lib.og_attribute_value_transformer_name, self._h)

    @value_transformer_name.setter
    def value_transformer_name(self, name: Optional[str]) -> None:
        _set(lib.og_attribute_set_value_transformer_name, self._h, _opt(name))


class FetchedProperty(Property):
    """A fetched property: a lazily fetched, one-way list defined by a request."""

    __slots__ = ()

    @property
    def entity_name(self) -> str:
        """The entity the request fetches."""
        return _text(lib.og_fetched_property_entity, self._h) or ""

    @entity_name.setter
    def entity_name(self, name: str) -> None:
        _set(lib.og_fetched_property_set_request, self._h, encode(name), _opt(self.predicate))

    @property
    def predicate(self) -> Optional[str]:
        """The request's predicate format string."""
        return _text(lib.og_fetched_property_predicate, self._h)

    @predicate.setter
    def predicate(self, format: Optional[str]) -> None:
        _set(lib.og_fetched_property_set_request, self._h, encode(self.entity_name), _opt(format))


class Relationship(Property):
    __slots__ = ()

    def _counts(self) -> Tuple[int, int]:
        lo, hi = ctypes.c_int64(), ctypes.c_int64()
        _set(lib.og_relationship_counts, self._h, ctypes.byref(lo), ctypes.byref(hi))
        return lo.value, hi.value

    def set_counts(self, min_count: int, max_count: int) -> None:
        """Sets both counts at once (max 1: to-one; 0: unbounded to-many)."""
        _set(lib.og_relationship_set_counts, self._h, int(min_count), int(max_count))

    @property
    def min_count(self) -> int:
        return self._counts()[0]

    @min_count.setter
    def min_count(self, value: int) -> None:
        self.set_counts(value, self._counts()[1])

    @property
    def max_count(self) -> int:
        """0 (or -1) means unbounded."""
        return self._counts()[1]

    @max_count.setter
    def max_count(self, value: int) -> None:
        self.set_counts(self._counts()[0], value)

    @property
    def ordered(self) -> bool:
        return _get_bool(lib.og_relationship_is_ordered, self._h)

    @ordered.setter
    def ordered(self, value: bool) -> None:
        _set(lib.og_relationship_set_ordered, self._h, bool(value))

    @property
    def destination(self) -> Entity:
        handle = lib.og_relationship_destination(self._h)
        if not handle:
            raise _invalid("relationship")
        return self._model._entity(handle)

    @destination.setter
    def destination(self, entity: Union[Entity, str]) -> None:
        target = entity if isinstance(entity, Entity) else self._model.entity(entity)
        _set(lib.og_relationship_set_destination, self._h, target._h)

    @property
    def inverse(self) -> Optional["Relationship"]:
        handle = lib.og_relationship_inverse(self._h)
        return self._model._property(handle) if handle else None  # type: ignore[return-value]

    @inverse.setter
    def inverse(self, other: "Relationship") -> None:
        _set(lib.og_relationship_set_inverse, self._h, other._h if other is not None else None)

    @property
    def to_many(self) -> bool:
        return _get_bool(lib.og_relationship_is_to_many, self._h)

    @to_many.setter
    def to_many(self, value: bool) -> None:
        _set(lib.og_relationship_set_to_many, self._h, bool(value))

    @property
    def delete_rule(self) -> DeleteRule:
        return DeleteRule(_get_enum(lib.og_relationship_delete_rule, self._h))

    @delete_rule.setter
    def delete_rule(self, rule: Union[DeleteRule, int, str]) -> None:
        _set(lib.og_relationship_set_delete_rule, self._h, int(DeleteRule.parse(rule)))
