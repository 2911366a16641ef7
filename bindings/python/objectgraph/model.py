"""Managed object models: Model, Entity, Attribute and Relationship.

Entities and properties are lent by their model: their wrappers keep the Model
alive, and the Model hands out one wrapper per handle, so ``model["Book"] is
model["Book"]``. Closing the model invalidates every wrapper it handed out; a
later call passes NULL and the library reports OG_ERROR_INVALID_HANDLE.
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, Iterator, List, Optional, Union

from ._handle import OwnedHandle
from ._lib import lib
from ._util import PathLike, check, check_handle, decode, encode, take_string
from .enums import AttributeType, DeleteRule, PropertyKind
from .errors import ErrorCode, make_error
from .values import Value, take_value, to_value

__all__ = ["Model", "Entity", "Property", "Attribute", "Relationship", "FetchedProperty"]


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
        """Reads a model file (``.json``, in ObjectGraph's model format)."""
        err = ctypes.c_void_p()
        return cls._new(check_handle(lib.og_model_load(encode(path), ctypes.byref(err)), err))

    @classmethod
    def load_version(cls, path: PathLike, version: Optional[str] = None) -> "Model":
        """Reads version ``version`` of an ``.xcdatamodeld`` or ``.momd`` folder
        (None: the current one)."""
        err = ctypes.c_void_p()
        name = encode(version) if version is not None else None
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

    @property
    def configurations(self) -> List[str]:
        return _texts(lib.og_model_configuration_count, lib.og_model_configuration_at, self._h)

    def entities_for_configuration(self, name: Optional[str]) -> List["Entity"]:
        """The entities of configuration ``name`` (None: every entity)."""
        result = []
        for entity in self.entities:
            out = ctypes.c_bool()
            err = ctypes.c_void_p()
            config = encode(name) if name is not None else None
            check(lib.og_model_configuration_contains(self._h, config, encode(entity.name), ctypes.byref(out), ctypes.byref(err)), err)
            if out.value:
                result.append(entity)
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
        """The entity ``name``; UnknownEntityError when there is none."""
        err = ctypes.c_void_p()
        return self._entity(check_handle(lib.og_model_entity(self._h, encode(name), ctypes.byref(err)), err))

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
            cls = {PropertyKind.RELATIONSHIP: Relationship, PropertyKind.FETCHED: FetchedProperty}.get(kind, Attribute)
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
        return _text(lib.og_entity_class_name, self._h) or ""

    @property
    def renaming_identifier(self) -> str:
        return _text(lib.og_entity_renaming_identifier, self._h) or ""

    def user_info(self, key: str) -> Optional[str]:
        return _text(lib.og_entity_user_info, self._h, encode(key))

    @property
    def subentities(self) -> List["Entity"]:
        result = []
        for index in range(lib.og_entity_subentity_count(self._h)):
            err = ctypes.c_void_p()
            result.append(self._model._entity(check_handle(lib.og_entity_subentity_at(self._h, index, ctypes.byref(err)), err)))
        return result

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

    @property
    def renaming_identifier(self) -> str:
        return _text(lib.og_property_renaming_identifier, self._h) or ""

    def user_info(self, key: str) -> Optional[str]:
        return _text(lib.og_property_user_info, self._h, encode(key))

    def __repr__(self) -> str:
        try:
            return f"<objectgraph.{type(self).__name__} {self.entity.name}.{self.name}>"
        except Exception:
            return f"<objectgraph.{type(self).__name__} (invalid)>"


class Attribute(Property):
    __slots__ = ()

    @property
    def type(self) -> AttributeType:
        return AttributeType(_get_enum(lib.og_attribute_type_of, self._h))

    @property
    def default(self) -> Value:
        """The value new objects get; None when there is none."""
        err = ctypes.c_void_p()
        handle = lib.og_attribute_default(self._h, ctypes.byref(err))
        return take_value(check_handle(handle, err))

    @property
    def value_transformer_name(self) -> Optional[str]:
        return _text(lib.og_attribute_value_transformer_name, self._h)

    @default.setter
    def default(self, value: Value) -> None:
        handle = to_value(value, self.type)
        try:
            _set(lib.og_attribute_set_default, self._h, handle)
        finally:
            lib.og_value_release(handle)


class FetchedProperty(Property):
    """A fetched property: a lazily fetched, one-way list defined by a request."""

    __slots__ = ()

    @property
    def entity_name(self) -> str:
        """The entity the request fetches."""
        return _text(lib.og_fetched_property_entity, self._h) or ""

    @property
    def predicate(self) -> Optional[str]:
        """The request's predicate format string."""
        return _text(lib.og_fetched_property_predicate, self._h)


class Relationship(Property):
    __slots__ = ()

    @property
    def min_count(self) -> int:
        lo, hi = ctypes.c_int64(), ctypes.c_int64()
        _set(lib.og_relationship_counts, self._h, ctypes.byref(lo), ctypes.byref(hi))
        return lo.value

    @property
    def max_count(self) -> int:
        """0 (or -1) means unbounded."""
        lo, hi = ctypes.c_int64(), ctypes.c_int64()
        _set(lib.og_relationship_counts, self._h, ctypes.byref(lo), ctypes.byref(hi))
        return hi.value

    @property
    def ordered(self) -> bool:
        return _get_bool(lib.og_relationship_is_ordered, self._h)

    @property
    def destination(self) -> Entity:
        handle = lib.og_relationship_destination(self._h)
        if not handle:
            raise _invalid("relationship")
        return self._model._entity(handle)

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
