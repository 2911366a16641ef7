"""Mapping models: how the objects of one model version become objects of another
(NSMappingModel, NSEntityMapping, NSPropertyMapping). migration.py runs them.

Mapping models, entity mappings and property mappings wrap the library's own
objects: a change made through a wrapper changes the mapping the library
migrates with, and the lists ``entity_mappings``, ``attribute_mappings`` and
``relationship_mappings`` change in step with the library's. An entity
mapping put in two lists is one mapping, not two copies.
"""

from __future__ import annotations

import ctypes
from collections.abc import MutableMapping, MutableSequence
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

from ._call import call, call_handle, call_out, call_string
from ._handle import OwnedHandle
from ._lib import NULL, lib
from ._util import PathLike, encode
from .errors import Error, ErrorCode, make_error
from .model import Model

__all__ = ["MappingModel", "EntityMapping", "PropertyMapping"]

# Entity-mapping kinds by name, with Core Data's NSEntityMappingType numbers.
_KINDS = {"undefined": 0, "custom": 1, "add": 2, "remove": 3, "copy": 4, "transform": 5}
_KIND_NAMES = {number: name for name, number in _KINDS.items()}


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
    return None if call(getter, handle, out) == NULL else bytes(out)


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
        keys = [call_string(self._key_at, h, i) or "" for i in range(self._count(h))]
        return {k: call_string(self._value, h, encode(k)) or "" for k in keys}

    def _write(self, entries: Mapping[str, str]) -> None:
        keys, values, count = _user_info_in(entries)
        call(self._setter, self._handle(), keys, values, count)

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

    def __init__(self, items: List[Any], kind: type, what: str, insert: Callable[[int, Any], object],
                 remove: Callable[[int], object], append: Callable[[Any], object]) -> None:
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
    return [call_handle(at, handle, index) for index in range(count(handle))]


class PropertyMapping(OwnedHandle):
    """How to compute one destination property (NSPropertyMapping): ``name``
    is the destination property; ``value_expression`` is the expression text
    that computes its value (``"$source.title"``,
    ``'FUNCTION($source, "valueForKey:", "title")'``), or None to leave the
    property's default value."""

    def __init__(self, name: str, value_expression: Optional[str] = None,
                 user_info: Optional[Mapping[str, str]] = None) -> None:
        self._adopt(call_handle(lib.og_property_mapping_new, encode(_str(name, "a property mapping's name")),
                                _optional_text(value_expression, "value_expression")))
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
        return call_string(lib.og_property_mapping_name, self._h) or ""

    @name.setter
    def name(self, name: str) -> None:
        call(lib.og_property_mapping_set_name, self._h, encode(_str(name, "a property mapping's name")))

    @property
    def value_expression(self) -> Optional[str]:
        return call_string(lib.og_property_mapping_value_expression, self._h)

    @value_expression.setter
    def value_expression(self, expression: Optional[str]) -> None:
        call(lib.og_property_mapping_set_value_expression, self._h, _optional_text(expression, "value_expression"))

    @property
    def user_info(self) -> MutableMapping:  # type: ignore[type-arg]
        """A dict of str, read and written through the mapping; assigning replaces it."""
        return _UserInfo(lambda: self._h, lib.og_property_mapping_user_info_count, lib.og_property_mapping_user_info_key_at,
                         lib.og_property_mapping_user_info, lib.og_property_mapping_set_user_info)

    @user_info.setter
    def user_info(self, entries: Optional[Mapping[str, str]]) -> None:
        keys, values, count = _user_info_in(entries or {})
        call(lib.og_property_mapping_set_user_info, self._h, keys, values, count)

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
        self._adopt(call_handle(lib.og_entity_mapping_new, encode(_str(name, "an entity mapping's name"))))
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
                           lambda i, p: call(insert, self._h, i, p._h),
                           lambda i: call(remove, self._h, i),
                           lambda p: call(append, self._h, p._h))

    @classmethod
    def _wrap(cls, handle: int, lent: bool = False) -> "EntityMapping":
        mapping = cls.__new__(cls)
        mapping._adopt(handle, lent)
        return mapping

    @property
    def name(self) -> str:
        return call_string(lib.og_entity_mapping_name, self._h) or ""

    @name.setter
    def name(self, name: str) -> None:
        call(lib.og_entity_mapping_set_name, self._h, encode(_str(name, "an entity mapping's name")))

    @property
    def kind(self) -> str:
        return _KIND_NAMES.get(call_out(lib.og_entity_mapping_kind_of, ctypes.c_int, self._h), "undefined")

    @kind.setter
    def kind(self, kind: Union[str, int]) -> None:
        call(lib.og_entity_mapping_set_kind, self._h, _kind(kind))

    @property
    def source_entity(self) -> Optional[str]:
        return call_string(lib.og_entity_mapping_source_entity, self._h)

    @source_entity.setter
    def source_entity(self, name: Optional[str]) -> None:
        call(lib.og_entity_mapping_set_source_entity, self._h, _optional_text(name, "source_entity"))

    @property
    def destination_entity(self) -> Optional[str]:
        return call_string(lib.og_entity_mapping_destination_entity, self._h)

    @destination_entity.setter
    def destination_entity(self, name: Optional[str]) -> None:
        call(lib.og_entity_mapping_set_destination_entity, self._h, _optional_text(name, "destination_entity"))

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
        return call_string(lib.og_entity_mapping_source_expression, self._h)

    @source_expression.setter
    def source_expression(self, expression: Optional[str]) -> None:
        call(lib.og_entity_mapping_set_source_expression, self._h, _optional_text(expression, "source_expression"))

    @property
    def user_info(self) -> MutableMapping:  # type: ignore[type-arg]
        """A dict of str, read and written through the mapping; assigning replaces it."""
        return _UserInfo(lambda: self._h, lib.og_entity_mapping_user_info_count, lib.og_entity_mapping_user_info_key_at,
                         lib.og_entity_mapping_user_info, lib.og_entity_mapping_set_user_info)

    @user_info.setter
    def user_info(self, entries: Optional[Mapping[str, str]]) -> None:
        keys, values, count = _user_info_in(entries or {})
        call(lib.og_entity_mapping_set_user_info, self._h, keys, values, count)

    @property
    def source_entity_version_hash(self) -> Optional[bytes]:
        return _hash_out(lib.og_entity_mapping_source_version_hash, self._h)

    @source_entity_version_hash.setter
    def source_entity_version_hash(self, value: Optional[bytes]) -> None:
        call(lib.og_entity_mapping_set_source_version_hash, self._h, _hash_in(value, "source_entity_version_hash"))

    @property
    def destination_entity_version_hash(self) -> Optional[bytes]:
        return _hash_out(lib.og_entity_mapping_destination_version_hash, self._h)

    @destination_entity_version_hash.setter
    def destination_entity_version_hash(self, value: Optional[bytes]) -> None:
        call(lib.og_entity_mapping_set_destination_version_hash, self._h,
             _hash_in(value, "destination_entity_version_hash"))

    @property
    def policy(self) -> Optional[str]:
        return call_string(lib.og_entity_mapping_policy, self._h)

    @policy.setter
    def policy(self, name: Optional[str]) -> None:
        call(lib.og_entity_mapping_set_policy, self._h, _optional_text(name, "policy"))

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
            lambda i, m: call(lib.og_mapping_model_insert_entity_mapping, self._h, i, m._h),
            lambda i: call(lib.og_mapping_model_remove_entity_mapping_at, self._h, i),
            lambda m: call(lib.og_mapping_model_append_entity_mapping, self._h, m._h))

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
        return cls._wrap(call_handle(lib.og_mapping_model_infer, source_model._h, destination_model._h))

    @classmethod
    def load(cls, path: PathLike) -> "MappingModel":
        """Reads a mapping model (NSMappingModel initWithContentsOfURL:): a
        ``.json`` file written by ``save``, an Xcode ``.xcmappingmodel`` folder
        or a compiled ``.cdm``. Raises StoreError 134080 when the file cannot
        be read, UsageError 140002 for another extension, ModelError 140009 for
        a malformed file (the message names the file and the entity mapping)."""
        return cls._wrap(call_handle(lib.og_mapping_model_load, encode(path, "the path")))

    def save(self, path: PathLike) -> None:
        """Writes JSON, or an ``.xcmappingmodel`` folder when the path ends so;
        both keep every field. Raises UsageError 140002 for another extension."""
        call(lib.og_mapping_model_save, self._h, encode(path, "the path"))

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
        return MappingModel._wrap(call_handle(lib.og_mapping_model_copy, self._h))

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
