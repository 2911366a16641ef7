"""Migration between versions of a model: mapping models (NSMappingModel,
NSEntityMapping, NSPropertyMapping), the migration manager
(NSMigrationManager) and entity migration policies written in Python
(NSEntityMigrationPolicy).

Mapping models, entity mappings and property mappings wrap the library's own
objects: a change made through a wrapper changes the mapping the library
migrates with, and the lists ``entity_mappings``, ``attribute_mappings`` and
``relationship_mappings`` change in step with the library's. An entity
mapping put in two lists is one mapping, not two copies.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from collections.abc import MutableMapping, MutableSequence
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Type, TypeVar, Union

from ._handle import OwnedHandle
from ._layout import Layouts
from ._lib import ERROR, MIGRATION_OBJECT_FN, MIGRATION_PROGRESS_FN, MIGRATION_STAGE_FN, NULL, OK, lib
from ._util import PathLike, check, check_handle, encode, keep, normalize, raise_kept, _kept
from .context import Context
from .coordinator import Coordinator, _boxed
from .errors import DOMAIN_COCOA, Error, ErrorCode, make_error, take_error
from .graph import _callback, _nested
from .model import Model, _set, _text
from .objects import ManagedObject, _target

__all__ = ["MappingModel", "EntityMapping", "PropertyMapping", "MigrationManager", "EntityMigrationPolicy",
           "register_migration_policy", "unregister_migration_policy"]

# Entity-mapping kinds by name, with Core Data's NSEntityMappingType numbers.
_KINDS = {"undefined": 0, "custom": 1, "add": 2, "remove": 3, "copy": 4, "transform": 5}
_KIND_NAMES = {number: name for name, number in _KINDS.items()}

_T = TypeVar("_T")


def _kind(kind: Union[str, int]) -> int:
    """The number of a kind given by name or by Core Data's number."""
    if isinstance(kind, str) and kind in _KINDS:
        return _KINDS[kind]
    if isinstance(kind, int) and not isinstance(kind, bool) and kind in _KIND_NAMES:
        return int(kind)
    raise make_error(f"an entity mapping's kind is one of {', '.join(_KINDS)} (or Core Data's number), not {kind!r}",
                     ErrorCode.INVALID_ARGUMENT)


def _optional_text(value: Optional[str], what: str) -> Optional[bytes]:
    return None if value is None else encode(_str(value, what), what)


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise make_error(f"{what} must be a str, not {type(value).__name__}", ErrorCode.INVALID_ARGUMENT)
    return value


def _hash_in(value: Optional[bytes], what: str) -> Optional["ctypes.Array[ctypes.c_uint8]"]:
    """A version hash for the library: 32 bytes, or None."""
    if value is None:
        return None
    if not isinstance(value, (bytes, bytearray, memoryview)) or len(bytes(value)) != 32:
        shown = f"{len(bytes(value))} bytes" if isinstance(value, (bytes, bytearray, memoryview)) else type(value).__name__
        raise make_error(f"{what} must be 32 bytes or None, not {shown}", ErrorCode.INVALID_ARGUMENT)
    return (ctypes.c_uint8 * 32).from_buffer_copy(bytes(value))


def _hash_out(getter: Any, handle: Optional[int]) -> Optional[bytes]:
    out = (ctypes.c_uint8 * 32)()
    err = ctypes.c_void_p()
    return None if check(getter(handle, out, ctypes.byref(err)), err) == NULL else bytes(out)


def _user_info_in(mapping: Mapping[str, str]) -> Tuple[Any, Any, int]:
    """(keys, values, count) for the user-info setters."""
    if not isinstance(mapping, Mapping):
        raise make_error(f"user_info must be a dict of str, not {type(mapping).__name__}", ErrorCode.INVALID_ARGUMENT)
    keys = [_str(k, "a user_info key") for k in mapping]
    values = [_str(mapping[k], "a user_info value") for k in keys]
    array = ctypes.c_char_p * max(1, len(keys))
    return array(*[encode(k, "a user_info key") for k in keys]), array(*[encode(v, "a user_info value") for v in values]), len(keys)


class _UserInfo(MutableMapping):  # type: ignore[type-arg]
    """A mapping's user info, read and written through the library."""

    def __init__(self, handle: Callable[[], Optional[int]], count: Any, key_at: Any, value: Any, setter: Any) -> None:
        self._handle = handle
        self._count, self._key_at, self._value, self._setter = count, key_at, value, setter

    def _read(self) -> Dict[str, str]:
        h = self._handle()
        keys = [_text(self._key_at, h, i) or "" for i in range(self._count(h))]
        return {k: _text(self._value, h, encode(k)) or "" for k in keys}

    def _write(self, entries: Mapping[str, str]) -> None:
        keys, values, count = _user_info_in(entries)
        _set(self._setter, self._handle(), keys, values, count)

    def __getitem__(self, key: str) -> str:
        return self._read()[key]

    def __setitem__(self, key: str, value: str) -> None:
        entries = self._read()
        entries[_str(key, "a user_info key")] = _str(value, "a user_info value")
        self._write(entries)

    def __delitem__(self, key: str) -> None:
        entries = self._read()
        del entries[key]
        self._write(entries)

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return int(self._count(self._handle()))

    def __repr__(self) -> str:
        return repr(self._read())


class _SyncedList(MutableSequence):  # type: ignore[type-arg]
    """A list the library holds too: every change is made in both, so the two
    stay the same."""

    def __init__(self, items: List[Any], kind: type, what: str, insert: Callable[[int, Any], None],
                 remove: Callable[[int], None], append: Callable[[Any], None]) -> None:
        self._items = items
        self._kind = kind
        self._what = what
        self._insert, self._remove, self._append = insert, remove, append

    def _check(self, value: Any) -> Any:
        if not isinstance(value, self._kind):
            raise make_error(f"{self._what} holds {self._kind.__name__} objects, not {type(value).__name__}",
                             ErrorCode.TYPE_MISMATCH)
        return value

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: Any) -> Any:
        return self._items[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            items = list(self._items)
            items[index] = list(value)
            self._replace(items)
            return
        i = range(len(self._items))[index]
        self._check(value)
        self._remove(i)
        del self._items[i]
        self._insert(i, value)
        self._items.insert(i, value)

    def __delitem__(self, index: Any) -> None:
        if isinstance(index, slice):
            items = list(self._items)
            del items[index]
            self._replace(items)
            return
        i = range(len(self._items))[index]
        self._remove(i)
        del self._items[i]

    def insert(self, index: int, value: Any) -> None:
        self._check(value)
        n = len(self._items)
        i = max(0, n + index) if index < 0 else min(index, n)
        self._insert(i, value)
        self._items.insert(i, value)

    def append(self, value: Any) -> None:
        self._check(value)
        self._append(value)
        self._items.append(value)

    def _replace(self, items: Iterable[Any]) -> None:
        new = [self._check(v) for v in items]
        while self._items:
            self._remove(len(self._items) - 1)
            self._items.pop()
        for v in new:
            self.append(v)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, _SyncedList)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._items)


def _handles(count: Any, at: Any, handle: Optional[int]) -> List[int]:
    """NEW handles of every item of a library list."""
    out = []
    for index in range(count(handle)):
        err = ctypes.c_void_p()
        out.append(check_handle(at(handle, index, ctypes.byref(err)), err))
    return out


class PropertyMapping(OwnedHandle):
    """How to compute one destination property (NSPropertyMapping): ``name``
    is the destination property; ``value_expression`` is the expression text
    that computes its value (``"$source.title"``,
    ``'FUNCTION($source, "valueForKey:", "title")'``), or None to leave the
    property's default value."""

    def __init__(self, name: str, value_expression: Optional[str] = None,
                 user_info: Optional[Mapping[str, str]] = None) -> None:
        err = ctypes.c_void_p()
        self._adopt(check_handle(lib.og_property_mapping_new(encode(_str(name, "a property mapping's name")),
                                                             _optional_text(value_expression, "value_expression"),
                                                             ctypes.byref(err)), err))
        if user_info:
            try:
                self.user_info = user_info
            except BaseException:
                self.close()
                raise

    def _adopt(self, handle: int) -> None:
        self._h = handle
        self._closed = False

    @classmethod
    def _wrap(cls, handle: int) -> "PropertyMapping":
        mapping = cls.__new__(cls)
        mapping._adopt(handle)
        return mapping

    @property
    def name(self) -> str:
        return _text(lib.og_property_mapping_name, self._h) or ""

    @name.setter
    def name(self, name: str) -> None:
        _set(lib.og_property_mapping_set_name, self._h, encode(_str(name, "a property mapping's name")))

    @property
    def value_expression(self) -> Optional[str]:
        return _text(lib.og_property_mapping_value_expression, self._h)

    @value_expression.setter
    def value_expression(self, expression: Optional[str]) -> None:
        _set(lib.og_property_mapping_set_value_expression, self._h, _optional_text(expression, "value_expression"))

    @property
    def user_info(self) -> MutableMapping:  # type: ignore[type-arg]
        """A dict of str, read and written through the mapping; assigning replaces it."""
        return _UserInfo(lambda: self._h, lib.og_property_mapping_user_info_count, lib.og_property_mapping_user_info_key_at,
                         lib.og_property_mapping_user_info, lib.og_property_mapping_set_user_info)

    @user_info.setter
    def user_info(self, entries: Optional[Mapping[str, str]]) -> None:
        keys, values, count = _user_info_in(entries or {})
        _set(lib.og_property_mapping_set_user_info, self._h, keys, values, count)

    def _release(self) -> None:
        lib.og_property_mapping_release(self._h)

    def __repr__(self) -> str:
        try:
            return f"<objectgraph.PropertyMapping {self.name!r} = {self.value_expression!r}>"
        except Error:
            return "<objectgraph.PropertyMapping released>"


class EntityMapping(OwnedHandle):
    """How one source entity maps to one destination entity (NSEntityMapping).
    Every argument is also an attribute, read and write: ``source_entity`` and
    ``destination_entity`` (entity names or None), ``kind`` ("undefined",
    "custom", "add", "remove", "copy", "transform"; setting also takes Core
    Data's number), ``attribute_mappings`` and ``relationship_mappings``
    (lists of PropertyMapping, processed in order), ``source_expression`` (the
    expression text that yields the source objects; without one the mapping
    migrates nothing, as in Core Data), ``user_info`` (a dict of str), the two
    version hashes (32 bytes each, or None: when set, a migration checks them)
    and ``policy`` (the name of a registered EntityMigrationPolicy, or None)."""

    def __init__(self, name: str, source_entity: Optional[str] = None, destination_entity: Optional[str] = None,
                 kind: Union[str, int] = "undefined", attribute_mappings: Iterable[PropertyMapping] = (),
                 relationship_mappings: Iterable[PropertyMapping] = (), source_expression: Optional[str] = None,
                 user_info: Optional[Mapping[str, str]] = None, source_entity_version_hash: Optional[bytes] = None,
                 destination_entity_version_hash: Optional[bytes] = None, policy: Optional[str] = None) -> None:
        number = _kind(kind)
        err = ctypes.c_void_p()
        self._adopt(check_handle(lib.og_entity_mapping_new(encode(_str(name, "an entity mapping's name")),
                                                           ctypes.byref(err)), err))
        try:
            if number:
                self.kind = number
            if source_entity is not None:
                self.source_entity = source_entity
            if destination_entity is not None:
                self.destination_entity = destination_entity
            self.attribute_mappings = attribute_mappings
            self.relationship_mappings = relationship_mappings
            if source_expression is not None:
                self.source_expression = source_expression
            if user_info:
                self.user_info = user_info
            if source_entity_version_hash is not None:
                self.source_entity_version_hash = source_entity_version_hash
            if destination_entity_version_hash is not None:
                self.destination_entity_version_hash = destination_entity_version_hash
            if policy is not None:
                self.policy = policy
        except BaseException:
            self.close()
            raise

    def _adopt(self, handle: int, lent: bool = False) -> None:
        self._h = handle
        # A handle lent to a policy for one migration is never released from here.
        self._closed = lent
        self._attributes = self._list("attribute_mappings", lib.og_entity_mapping_attribute_mapping_count,
                                      lib.og_entity_mapping_attribute_mapping_at,
                                      lib.og_entity_mapping_insert_attribute_mapping,
                                      lib.og_entity_mapping_remove_attribute_mapping_at,
                                      lib.og_entity_mapping_append_attribute_mapping)
        self._relationships = self._list("relationship_mappings", lib.og_entity_mapping_relationship_mapping_count,
                                         lib.og_entity_mapping_relationship_mapping_at,
                                         lib.og_entity_mapping_insert_relationship_mapping,
                                         lib.og_entity_mapping_remove_relationship_mapping_at,
                                         lib.og_entity_mapping_append_relationship_mapping)

    def _list(self, what: str, count: Any, at: Any, insert: Any, remove: Any, append: Any) -> _SyncedList:
        items = [PropertyMapping._wrap(h) for h in _handles(count, at, self._h)]
        return _SyncedList(items, PropertyMapping, what,
                           lambda i, p: _set(insert, self._h, i, p._h),
                           lambda i: _set(remove, self._h, i),
                           lambda p: _set(append, self._h, p._h))

    @classmethod
    def _wrap(cls, handle: int, lent: bool = False) -> "EntityMapping":
        mapping = cls.__new__(cls)
        mapping._adopt(handle, lent)
        return mapping

    @property
    def name(self) -> str:
        return _text(lib.og_entity_mapping_name, self._h) or ""

    @name.setter
    def name(self, name: str) -> None:
        _set(lib.og_entity_mapping_set_name, self._h, encode(_str(name, "an entity mapping's name")))

    @property
    def kind(self) -> str:
        out = ctypes.c_int()
        _set(lib.og_entity_mapping_kind_of, self._h, ctypes.byref(out))
        return _KIND_NAMES.get(out.value, "undefined")

    @kind.setter
    def kind(self, kind: Union[str, int]) -> None:
        _set(lib.og_entity_mapping_set_kind, self._h, _kind(kind))

    @property
    def source_entity(self) -> Optional[str]:
        return _text(lib.og_entity_mapping_source_entity, self._h)

    @source_entity.setter
    def source_entity(self, name: Optional[str]) -> None:
        _set(lib.og_entity_mapping_set_source_entity, self._h, _optional_text(name, "source_entity"))

    @property
    def destination_entity(self) -> Optional[str]:
        return _text(lib.og_entity_mapping_destination_entity, self._h)

    @destination_entity.setter
    def destination_entity(self, name: Optional[str]) -> None:
        _set(lib.og_entity_mapping_set_destination_entity, self._h, _optional_text(name, "destination_entity"))

    @property
    def attribute_mappings(self) -> MutableSequence:  # type: ignore[type-arg]
        """The attribute mappings, in order (a list that changes the mapping)."""
        return self._attributes

    @attribute_mappings.setter
    def attribute_mappings(self, mappings: Iterable[PropertyMapping]) -> None:
        self._attributes._replace(list(mappings))

    @property
    def relationship_mappings(self) -> MutableSequence:  # type: ignore[type-arg]
        """The relationship mappings, in order (a list that changes the mapping)."""
        return self._relationships

    @relationship_mappings.setter
    def relationship_mappings(self, mappings: Iterable[PropertyMapping]) -> None:
        self._relationships._replace(list(mappings))

    @property
    def source_expression(self) -> Optional[str]:
        return _text(lib.og_entity_mapping_source_expression, self._h)

    @source_expression.setter
    def source_expression(self, expression: Optional[str]) -> None:
        _set(lib.og_entity_mapping_set_source_expression, self._h, _optional_text(expression, "source_expression"))

    @property
    def user_info(self) -> MutableMapping:  # type: ignore[type-arg]
        """A dict of str, read and written through the mapping; assigning replaces it."""
        return _UserInfo(lambda: self._h, lib.og_entity_mapping_user_info_count, lib.og_entity_mapping_user_info_key_at,
                         lib.og_entity_mapping_user_info, lib.og_entity_mapping_set_user_info)

    @user_info.setter
    def user_info(self, entries: Optional[Mapping[str, str]]) -> None:
        keys, values, count = _user_info_in(entries or {})
        _set(lib.og_entity_mapping_set_user_info, self._h, keys, values, count)

    @property
    def source_entity_version_hash(self) -> Optional[bytes]:
        return _hash_out(lib.og_entity_mapping_source_version_hash, self._h)

    @source_entity_version_hash.setter
    def source_entity_version_hash(self, value: Optional[bytes]) -> None:
        _set(lib.og_entity_mapping_set_source_version_hash, self._h, _hash_in(value, "source_entity_version_hash"))

    @property
    def destination_entity_version_hash(self) -> Optional[bytes]:
        return _hash_out(lib.og_entity_mapping_destination_version_hash, self._h)

    @destination_entity_version_hash.setter
    def destination_entity_version_hash(self, value: Optional[bytes]) -> None:
        _set(lib.og_entity_mapping_set_destination_version_hash, self._h,
             _hash_in(value, "destination_entity_version_hash"))

    @property
    def policy(self) -> Optional[str]:
        return _text(lib.og_entity_mapping_policy, self._h)

    @policy.setter
    def policy(self, name: Optional[str]) -> None:
        _set(lib.og_entity_mapping_set_policy, self._h, _optional_text(name, "policy"))

    def _release(self) -> None:
        lib.og_entity_mapping_release(self._h)

    def __repr__(self) -> str:
        try:
            return (f"<objectgraph.EntityMapping {self.name!r} {self.kind} "
                    f"{self.source_entity!r} -> {self.destination_entity!r}>")
        except Error:
            return "<objectgraph.EntityMapping released>"


class MappingModel(OwnedHandle):
    """How the objects of one model version become objects of another
    (NSMappingModel): ``entity_mappings``, a list of EntityMapping processed
    in order. ``MappingModel.infer(source, destination)`` gives the mapping
    Core Data infers."""

    def __init__(self, entity_mappings: Optional[Iterable[EntityMapping]] = None) -> None:
        self._adopt(lib.og_mapping_model_new())
        if entity_mappings is not None:
            try:
                self.entity_mappings = entity_mappings
            except BaseException:
                self.close()
                raise

    def _adopt(self, handle: int) -> None:
        self._h = handle
        self._closed = False
        items = [EntityMapping._wrap(h) for h in _handles(lib.og_mapping_model_entity_mapping_count,
                                                          lib.og_mapping_model_entity_mapping_at, handle)]
        self._entity_mappings = _SyncedList(
            items, EntityMapping, "entity_mappings",
            lambda i, m: _set(lib.og_mapping_model_insert_entity_mapping, self._h, i, m._h),
            lambda i: _set(lib.og_mapping_model_remove_entity_mapping_at, self._h, i),
            lambda m: _set(lib.og_mapping_model_append_entity_mapping, self._h, m._h))

    @classmethod
    def _wrap(cls, handle: int) -> "MappingModel":
        mapping = cls.__new__(cls)
        mapping._adopt(handle)
        return mapping

    @classmethod
    def infer(cls, source_model: Model, destination_model: Model) -> "MappingModel":
        """The mapping Core Data infers from ``source_model`` to
        ``destination_model`` (inferredMappingModelForSourceModel:...):
        entities and properties matched by name or renaming identifier; one
        mapping named ``IEM_<Kind>_<Entity>`` per entity, of kind "copy"
        (version hash unchanged), "transform" (changed), "add" (new: no source)
        or "remove" (gone: no destination). Raises MigrationError 134190 when
        a change cannot be inferred."""
        _check_model(source_model, "source_model")
        _check_model(destination_model, "destination_model")
        err = ctypes.c_void_p()
        return cls._wrap(check_handle(lib.og_mapping_model_infer(source_model._h, destination_model._h,
                                                                 ctypes.byref(err)), err))

    @classmethod
    def load(cls, path: PathLike) -> "MappingModel":
        """Reads a mapping model (NSMappingModel initWithContentsOfURL:): a
        ``.json`` file written by ``save``, an Xcode ``.xcmappingmodel`` folder
        or a compiled ``.cdm``. Raises StoreError 134080 when the file cannot
        be read, UsageError 140002 for another extension, ModelError 140009 for
        a malformed file (the message names the file and the entity mapping)."""
        err = ctypes.c_void_p()
        return cls._wrap(check_handle(lib.og_mapping_model_load(encode(path, "the path"), ctypes.byref(err)), err))

    def save(self, path: PathLike) -> None:
        """Writes JSON, or an ``.xcmappingmodel`` folder when the path ends so;
        both keep every field. Raises UsageError 140002 for another extension."""
        err = ctypes.c_void_p()
        check(lib.og_mapping_model_save(self._h, encode(path, "the path"), ctypes.byref(err)), err)

    @property
    def entity_mappings(self) -> MutableSequence:  # type: ignore[type-arg]
        """The entity mappings, in order (a list that changes the mapping model)."""
        return self._entity_mappings

    @entity_mappings.setter
    def entity_mappings(self, mappings: Iterable[EntityMapping]) -> None:
        self._entity_mappings._replace(list(mappings))

    def __copy__(self) -> "MappingModel":
        """A new mapping model holding the same entity mappings."""
        return MappingModel(list(self.entity_mappings))

    def __deepcopy__(self, memo: Dict[int, Any]) -> "MappingModel":
        """A new mapping model with new entity and property mappings."""
        err = ctypes.c_void_p()
        return MappingModel._wrap(check_handle(lib.og_mapping_model_copy(self._h, ctypes.byref(err)), err))

    def _release(self) -> None:
        lib.og_mapping_model_release(self._h)

    def __repr__(self) -> str:
        if self._closed:
            return "<objectgraph.MappingModel closed>"
        try:
            return f"<objectgraph.MappingModel {[m.name for m in self.entity_mappings]}>"
        except Error:
            return "<objectgraph.MappingModel>"


def _check_model(model: Any, what: str) -> None:
    if not isinstance(model, Model):
        raise make_error(f"{what} must be a Model, not {type(model).__name__}", ErrorCode.INVALID_ARGUMENT)


class EntityMigrationPolicy:
    """Customizes the migration of the entity mappings that name it
    (NSEntityMigrationPolicy). Subclass it, override the stages you need and
    register the subclass with ``register_migration_policy(name, cls)``; an
    EntityMapping whose ``policy`` is ``name`` then runs through it. A
    migration makes one instance per entity mapping.

    Per mapping, in order: ``begin_entity_mapping``, then
    ``create_destination_instances`` per source object and
    ``end_instance_creation``; once every mapping made its objects,
    ``create_relationships`` per destination object and
    ``end_relationship_creation``; last ``perform_custom_validation`` and
    ``end_entity_mapping``. An ``og.Error`` a method raises ends the migration
    with that error; any other exception ends it with MigrationError 134170,
    whose ``__cause__`` is the exception."""

    def begin_entity_mapping(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass

    def create_destination_instances(self, source: ManagedObject, entity_mapping: EntityMapping,
                                     manager: "MigrationManager") -> None:
        """By default: one object of the destination entity, its attributes set
        from the attribute mappings, associated with ``source``. An override
        that makes objects itself must ``manager.associate`` them."""
        manager._create_default_destination(source, entity_mapping)

    def end_instance_creation(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass

    def create_relationships(self, destination: ManagedObject, entity_mapping: EntityMapping,
                             manager: "MigrationManager") -> None:
        """By default: the relationships of ``destination`` set from the
        relationship mappings."""
        manager._create_default_relationships(destination, entity_mapping)

    def end_relationship_creation(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass

    def perform_custom_validation(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass

    def end_entity_mapping(self, entity_mapping: EntityMapping, manager: "MigrationManager") -> None:
        pass


def _stand_in(model: Model) -> Coordinator:
    """A coordinator wrapper that only gives the object layouts of ``model``:
    a migration's contexts belong to coordinators the library made itself."""
    stand_in = Coordinator.__new__(Coordinator)  # closed: never releases anything
    stand_in._model = model
    stand_in._stores = []
    stand_in._versions = []
    stand_in._mappings = []
    stand_in._layouts = Layouts(model)
    return stand_in


class MigrationManager(OwnedHandle):
    """Migrates stores written with ``source_model`` to ``destination_model``
    (NSMigrationManager). Both models are validated and become immutable."""

    # A wrapper of a manager the library made for an automatic migration.
    _automatic = False
    _running = False

    def __init__(self, source_model: Model, destination_model: Model) -> None:
        _check_model(source_model, "source_model")
        _check_model(destination_model, "destination_model")
        err = ctypes.c_void_p()
        handle = check_handle(lib.og_migration_manager_new(source_model._h, destination_model._h, ctypes.byref(err)), err)
        self._source_model = source_model
        self._destination_model = destination_model
        self._reset()
        self._h = handle
        self._closed = False

    @classmethod
    def _lent(cls, handle: int) -> "MigrationManager":
        """A wrapper for the manager of an automatic migration, lent to its policies."""
        manager = cls.__new__(cls)
        manager._h = handle  # closed: the library releases it
        manager._automatic = True
        manager._running = True
        manager._source_model = Model._new(lib.og_migration_manager_source_model(handle))
        manager._destination_model = Model._new(lib.og_migration_manager_destination_model(handle))
        manager._reset()
        return manager

    def _reset(self) -> None:
        # Exceptions of the running migration's callbacks, the first of which its migrate raises.
        self._pending: List[BaseException] = []
        self._contexts: Dict[str, Context] = {}
        self._stand_ins: Dict[str, Coordinator] = {}
        # Policy instances by (registration, entity mapping handle): one per mapping.
        self._policies: Dict[Tuple[int, int], EntityMigrationPolicy] = {}
        # The caller's entity mappings by name, and the wrappers of lent mapping handles.
        self._by_name: Dict[str, EntityMapping] = {}
        self._lent_mappings: Dict[int, EntityMapping] = {}

    @property
    def source_model(self) -> Model:
        return self._source_model

    @property
    def destination_model(self) -> Model:
        return self._destination_model

    @property
    def migration_progress(self) -> float:
        """From 0.0 to 1.0 while a migration runs; 0.0 when none does."""
        return float(lib.og_migration_manager_progress(self._h))

    def migrate(self, source_path: PathLike, destination_path: PathLike, mapping: Optional[MappingModel] = None,
                source_type: str = "SQLite", destination_type: str = "SQLite",
                source_options: Optional[Mapping[str, Any]] = None,
                destination_options: Optional[Mapping[str, Any]] = None,
                progress: Optional[Callable[[float], Any]] = None) -> None:
        """Writes a store of ``destination_type`` at ``destination_path`` from
        the store at ``source_path`` (migrateStoreFromURL:...), through
        ``mapping`` (None: ``MappingModel.infer(...)``). The new store keeps
        the source's UUID and metadata. ``progress(fraction)`` is called as the
        work advances, last with 1.0. The options are store options by Core
        Data's key names. Raises MigrationError (134110-134190); a failure
        leaves the source untouched and nothing at the destination."""
        if mapping is not None and not isinstance(mapping, MappingModel):
            raise make_error(f"mapping must be a MappingModel or None, not {type(mapping).__name__}",
                             ErrorCode.INVALID_ARGUMENT)
        if progress is not None and not callable(progress):
            raise make_error("progress must be callable", ErrorCode.INVALID_ARGUMENT)
        if self._running:
            raise make_error("this MigrationManager is migrating already; one migration at a time",
                             ErrorCode.INVALID_ARGUMENT)
        source, destination = encode(source_path, "a store path"), encode(destination_path, "a store path")
        types = encode(source_type, "a store type"), encode(destination_type, "a store type")
        callback = MIGRATION_PROGRESS_FN(self._progress_callback(progress)) if progress else MIGRATION_PROGRESS_FN()
        boxed: List[Optional[int]] = []
        error: Optional[Error] = None
        try:
            boxed.append(_boxed(source_options))
            boxed.append(_boxed(destination_options))
            _set(lib.og_migration_manager_set_progress_callback, self._h, callback, None)
            self._reset()
            for m in reversed(list(mapping.entity_mappings) if mapping is not None else []):
                self._by_name[m.name] = m  # the first of a name wins, as in Core Data
            self._running = True
            _managers[self._h or 0] = self
            err = ctypes.c_void_p()
            if lib.og_migration_manager_migrate(self._h, source, types[0], boxed[0],
                                                mapping._h if mapping is not None else None, destination, types[1],
                                                boxed[1], ctypes.byref(err)) == ERROR:
                error = take_error(err)
        finally:
            _managers.pop(self._h or 0, None)
            self._end()
            lib.og_migration_manager_set_progress_callback(self._h, MIGRATION_PROGRESS_FN(), None, None)
            for value in boxed:
                if value:
                    lib.og_value_release(value)
        pending, self._pending = self._pending, []
        if pending:
            raise pending[0]
        if _kept:
            raise_kept(error)
        if error is not None:
            raise error

    def _progress_callback(self, progress: Callable[[float], Any]) -> Callable[[float, Optional[int]], None]:
        @_callback
        def on_progress(fraction: float, _user: Optional[int]) -> None:
            try:
                with _nested:
                    progress(fraction)
            except BaseException as exc:  # noqa: BLE001 - raised by migrate, unchanged
                self._pending.append(normalize(exc))
                lib.og_migration_manager_cancel(self._h, None, None)

        return on_progress

    def _end(self) -> None:
        """Closes what the finished migration lent: its contexts, policies and mappings."""
        self._running = False
        for context in self._contexts.values():
            context.close()
        self._contexts.clear()
        self._policies.clear()
        self._by_name.clear()
        self._lent_mappings.clear()

    def cancel(self) -> None:
        """Makes the running ``migrate`` stop at its next step and raise
        MigrationError 134120 (cancelMigrationWithError:); nothing is left at
        the destination. Callable from any thread, and from a policy or the
        progress callback."""
        err = ctypes.c_void_p()
        check(lib.og_migration_manager_cancel(self._h, None, ctypes.byref(err)), err)

    @property
    def source_context(self) -> Optional[Context]:
        """The context the running migration reads the source from; None when
        no migration runs."""
        return self._context("source")

    @property
    def destination_context(self) -> Optional[Context]:
        """The context the running migration writes the destination into; None
        when no migration runs."""
        return self._context("destination")

    def _context(self, which: str) -> Optional[Context]:
        if not self._running:
            return None
        context = self._contexts.get(which)
        if context is None:
            getter = lib.og_migration_manager_source_context if which == "source" else \
                lib.og_migration_manager_destination_context
            err = ctypes.c_void_p()
            handle = check_handle(getter(self._h, ctypes.byref(err)), err)
            stand_in = self._stand_ins.get(which)
            if stand_in is None:
                model = self._source_model if which == "source" else self._destination_model
                stand_in = self._stand_ins[which] = _stand_in(model)
            context = self._contexts[which] = Context._borrow(handle, stand_in)
        return context

    def associate(self, source: ManagedObject, destination: ManagedObject, entity_mapping: EntityMapping) -> None:
        """Records that ``destination`` was made from ``source`` by
        ``entity_mapping`` (associateSourceInstance:...). A policy that makes
        destination objects itself must associate them."""
        _set(lib.og_migration_manager_associate, self._h, _target(source), _target(destination),
             _mapping_handle(entity_mapping))

    def destination_instances(self, entity_mapping_name: str,
                              sources: Optional[Iterable[ManagedObject]] = None) -> List[ManagedObject]:
        """The destination objects the mapping named ``entity_mapping_name``
        made from ``sources`` (None: every one it made)."""
        return self._instances(lib.og_migration_manager_destination_instances, "destination", entity_mapping_name,
                               sources)

    def source_instances(self, entity_mapping_name: str,
                         destinations: Optional[Iterable[ManagedObject]] = None) -> List[ManagedObject]:
        """The source objects the mapping named ``entity_mapping_name`` made
        ``destinations`` from (None: every one)."""
        return self._instances(lib.og_migration_manager_source_instances, "source", entity_mapping_name, destinations)

    def _instances(self, function: Any, which: str, name: str, objects: Any) -> List[ManagedObject]:
        array, count = None, 0
        if objects is not None:
            handles = [_target(o) for o in ([objects] if isinstance(objects, ManagedObject) else objects)]
            count = len(handles)
            array = (ctypes.c_void_p * max(1, count))(*handles)
        err = ctypes.c_void_p()
        results = check_handle(function(self._h, encode(_str(name, "an entity mapping name")), array, count,
                                        ctypes.byref(err)), err)
        context = self._context(which)
        if context is None:
            lib.og_results_release(results)
            return []
        return context._take_results(results)

    def _create_default_destination(self, source: ManagedObject, entity_mapping: EntityMapping) -> None:
        _set(lib.og_migration_manager_create_default_destination, self._h, _target(source),
             _mapping_handle(entity_mapping))

    def _create_default_relationships(self, destination: ManagedObject, entity_mapping: EntityMapping) -> None:
        _set(lib.og_migration_manager_create_default_relationships, self._h, _target(destination),
             _mapping_handle(entity_mapping))

    def _mapping_for(self, handle: int) -> EntityMapping:
        """The EntityMapping a policy gets for a lent mapping handle: the
        caller's own wrapper of that name, else one made for the migration."""
        found = self._lent_mappings.get(handle)
        if found is None:
            name = _text(lib.og_entity_mapping_name, handle) or ""
            found = self._by_name.get(name) or EntityMapping._wrap(handle, lent=True)
            self._lent_mappings[handle] = found
        return found

    def _policy(self, key: Optional[int], mapping: int) -> EntityMigrationPolicy:
        policy = self._policies.get((key or 0, mapping))
        if policy is None:
            cls = _policy_classes.get(key or 0)
            if cls is None:
                raise make_error("the migration policy was unregistered during the migration",
                                 ErrorCode.MIGRATION_POLICY, DOMAIN_COCOA)
            policy = self._policies[(key or 0, mapping)] = cls()
        return policy

    def _release(self) -> None:
        lib.og_migration_manager_release(self._h)

    def __repr__(self) -> str:
        state = "closed" if self._closed and not self._automatic else ("migrating" if self._running else "idle")
        return f"<objectgraph.MigrationManager {state}>"


def _mapping_handle(mapping: Any) -> Optional[int]:
    if not isinstance(mapping, EntityMapping):
        raise make_error(f"entity_mapping must be an EntityMapping, not {type(mapping).__name__}", ErrorCode.TYPE_MISMATCH)
    return mapping._h


# ---- policies written in Python ------------------------------------------

# Managers migrating through ``migrate``, by handle; wrappers of the managers of
# automatic migrations, by (thread, handle), until their add_store returns.
_managers: Dict[int, MigrationManager] = {}
_automatic: Dict[Tuple[int, int], MigrationManager] = {}
# Registered policy classes and their callback tables, by registration number.
_policy_classes: Dict[int, Type[EntityMigrationPolicy]] = {}
_tables: Dict[int, Any] = {}
_numbers = itertools.count(1)


def _manager_for(handle: Optional[int]) -> MigrationManager:
    manager = _managers.get(handle or 0)
    if manager is not None:
        return manager
    key = (threading.get_ident(), handle or 0)
    manager = _automatic.get(key)
    if manager is None:
        manager = _automatic[key] = MigrationManager._lent(handle or 0)
    return manager


def _forget_automatic() -> None:
    """Ends the wrappers of the automatic migrations this thread's add_store ran."""
    if not _automatic:
        return
    me = threading.get_ident()
    for key in [k for k in list(_automatic) if k[0] == me]:
        manager = _automatic.pop(key, None)
        if manager is not None:
            manager._end()


def _failed(manager: Optional[MigrationManager], exc: BaseException, error: Any, stage: str, key: Optional[int]) -> int:
    """A policy method's exception: an og.Error goes on as it is; another
    Exception becomes MigrationError 134170 caused by it. The library gets it
    as the hook's error; the caller of migrate (or add_store) raises it."""
    exc = normalize(exc)
    try:
        outcome: BaseException = exc
        if isinstance(exc, Error):
            code, message = exc.code, exc.message
        else:
            cls = _policy_classes.get(key or 0)
            name = cls.__name__ if cls is not None else "migration policy"
            message = f"{name}.{stage} raised {type(exc).__name__}: {exc}"
            code = ErrorCode.MIGRATION_POLICY
            if isinstance(exc, Exception):
                outcome = make_error(message, ErrorCode.MIGRATION_POLICY, DOMAIN_COCOA)
                outcome.__cause__ = exc
        error[0] = lib.og_error_new(int(code), message.encode("utf-8", "replace"), None)
        if manager is not None and not manager._automatic:
            manager._pending.append(outcome)
        else:
            keep(outcome)
    except BaseException:  # noqa: BLE001 - the migration still fails, with the library's error
        pass
    return ERROR


def _stage(stage: str) -> Any:
    @_callback
    def call(manager: Optional[int], mapping: Optional[int], error: Any, key: Optional[int]) -> int:
        owner = None
        try:
            owner = _manager_for(manager)
            entity_mapping = owner._mapping_for(mapping or 0)
            policy = owner._policy(key, mapping or 0)
            with _nested:
                getattr(policy, stage)(entity_mapping, owner)
            return OK
        except BaseException as exc:  # noqa: BLE001 - handed to the library, raised by the caller
            return _failed(owner, exc, error, stage, key)

    return MIGRATION_STAGE_FN(call)


def _object_stage(stage: str, which: str) -> Any:
    @_callback
    def call(manager: Optional[int], obj: Optional[int], mapping: Optional[int], error: Any, key: Optional[int]) -> int:
        owner = None
        try:
            owner = _manager_for(manager)
            entity_mapping = owner._mapping_for(mapping or 0)
            policy = owner._policy(key, mapping or 0)
            context = owner._context(which)
            if context is None or not obj:
                raise make_error("the migration lent no object", ErrorCode.MIGRATION_POLICY, DOMAIN_COCOA)
            with _nested:
                getattr(policy, stage)(context._wrap(obj), entity_mapping, owner)
            return OK
        except BaseException as exc:  # noqa: BLE001
            return _failed(owner, exc, error, stage, key)

    return MIGRATION_OBJECT_FN(call)


@_callback
def _release_table(key: Optional[int]) -> None:
    _policy_classes.pop(key or 0, None)
    _tables.pop(key or 0, None)


_RELEASE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_TRAMPOLINES = {
    "begin_entity_mapping": _stage("begin_entity_mapping"),
    "create_destination_instances": _object_stage("create_destination_instances", "source"),
    "end_instance_creation": _stage("end_instance_creation"),
    "create_relationships": _object_stage("create_relationships", "destination"),
    "end_relationship_creation": _stage("end_relationship_creation"),
    "perform_custom_validation": _stage("perform_custom_validation"),
    "end_entity_mapping": _stage("end_entity_mapping"),
}
_RELEASE = _RELEASE_FN(_release_table)


class _PolicyCallbacks(ctypes.Structure):
    """og_migration_policy_callbacks."""
    _fields_ = [("userdata", ctypes.c_void_p),
                ("begin_entity_mapping", MIGRATION_STAGE_FN),
                ("create_destination_instances", MIGRATION_OBJECT_FN),
                ("end_instance_creation", MIGRATION_STAGE_FN),
                ("create_relationships", MIGRATION_OBJECT_FN),
                ("end_relationship_creation", MIGRATION_STAGE_FN),
                ("perform_custom_validation", MIGRATION_STAGE_FN),
                ("end_entity_mapping", MIGRATION_STAGE_FN),
                ("release", _RELEASE_FN)]


def register_migration_policy(name: str, cls: Type[EntityMigrationPolicy]) -> None:
    """Registers ``cls``, a subclass of EntityMigrationPolicy, as the policy
    entity mappings name ``name`` (EntityMapping.policy); registering a name
    again replaces its class. It serves every migration, automatic ones
    included. Raises TypeMismatchError (140006) for a class that does not
    subclass EntityMigrationPolicy."""
    if not (isinstance(cls, type) and issubclass(cls, EntityMigrationPolicy)):
        raise make_error(f"a migration policy must be a subclass of EntityMigrationPolicy, not {cls!r}",
                         ErrorCode.TYPE_MISMATCH)
    raw = encode(_str(name, "a policy name"), "a policy name")
    key = next(_numbers)
    table = _PolicyCallbacks()
    table.userdata = key
    # Stages the class leaves alone run the library's default, without a call into Python.
    for stage, trampoline in _TRAMPOLINES.items():
        if getattr(cls, stage) is not getattr(EntityMigrationPolicy, stage):
            setattr(table, stage, trampoline)
    table.release = _RELEASE
    _policy_classes[key] = cls
    _tables[key] = table
    err = ctypes.c_void_p()
    try:
        check(lib.og_register_migration_policy(raw, ctypes.addressof(table), ctypes.byref(err)), err)
    except BaseException:
        _policy_classes.pop(key, None)
        _tables.pop(key, None)
        raise


def unregister_migration_policy(name: str) -> None:
    """Unregisters a policy; mappings that name it then fail with
    MigrationError 134170. Raises UsageError when none of that name is
    registered."""
    err = ctypes.c_void_p()
    check(lib.og_unregister_migration_policy(encode(_str(name, "a policy name"), "a policy name"), ctypes.byref(err)), err)
