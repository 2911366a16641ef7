"""Entities: Entity, an entity of a model, with its properties, subentities,
fetch indexes and constraints.

An entity is lent by its model: the Model hands out one wrapper per handle, so
``model["Book"] is model["Book"]``, and each wrapper keeps the Model alive.
Closing the model invalidates them; a later call passes NULL and the library
reports OG_ERROR_INVALID_HANDLE.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ._call import (c_handles, c_strings, call, call_flag, call_handle, call_index, call_string, optional_text,
                    read_string_dict, read_strings, write_string_dict)
from ._lib import lib
from ._util import decode, encode
from .enums import AttributeType, DeleteRule
from .fetch_index import FetchIndex, read_indexes, write_indexes
from .properties import Attribute, FetchedProperty, Property, Relationship, _invalid
from .values import Boxable, Value

if TYPE_CHECKING:
    from .model import Model

__all__ = ["Entity"]


class Entity(Boxable):
    """An entity of a model. Lent by the model; keeps it alive."""

    __slots__ = ("_model", "_h", "__weakref__")

    def __init__(self, model: "Model", handle: int) -> None:
        self._model = model
        self._h: int = handle

    def _box(self) -> int:
        """The entity as a predicate argument (``entity == %@``)."""
        return call_handle(lib.og_value_new_entity, self._h)

    @property
    def model(self) -> "Model":
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
        call(lib.og_entity_set_name, self._h, encode(value))

    @property
    def superentity(self) -> Optional["Entity"]:
        return self._model._entity_or_none(lib.og_entity_superentity(self._h))

    @superentity.setter
    def superentity(self, parent: Optional["Entity"]) -> None:
        call(lib.og_entity_set_superentity, self._h, parent._h if parent is not None else None)

    @property
    def abstract(self) -> bool:
        return call_flag(lib.og_entity_is_abstract, self._h)

    @abstract.setter
    def abstract(self, value: bool) -> None:
        call(lib.og_entity_set_abstract, self._h, bool(value))

    @property
    def class_name(self) -> str:
        """The managed object class name ("ManagedObject" unless set; None resets it)."""
        return call_string(lib.og_entity_class_name, self._h) or ""

    @class_name.setter
    def class_name(self, name: Optional[str]) -> None:
        call(lib.og_entity_set_class_name, self._h, optional_text(name))

    @property
    def renaming_identifier(self) -> str:
        """The name in an earlier model version (the entity's name unless set)."""
        return call_string(lib.og_entity_renaming_identifier, self._h) or ""

    @renaming_identifier.setter
    def renaming_identifier(self, identifier: Optional[str]) -> None:
        call(lib.og_entity_set_renaming_identifier, self._h, optional_text(identifier))

    @property
    def version_hash_modifier(self) -> Optional[str]:
        return call_string(lib.og_entity_version_hash_modifier, self._h)

    @version_hash_modifier.setter
    def version_hash_modifier(self, modifier: Optional[str]) -> None:
        call(lib.og_entity_set_version_hash_modifier, self._h, optional_text(modifier))

    def user_info(self, key: str) -> Optional[str]:
        return call_string(lib.og_entity_user_info, self._h, encode(key))

    @property
    def user_info_dict(self) -> Dict[str, str]:
        """Every user-info entry; assigning replaces them all."""
        return read_string_dict(lib.og_entity_user_info_count, lib.og_entity_user_info_key_at, lib.og_entity_user_info, self._h)

    @user_info_dict.setter
    def user_info_dict(self, mapping: Mapping[str, str]) -> None:
        write_string_dict(lib.og_entity_set_user_info, self._h, mapping)

    @property
    def uniqueness_constraints(self) -> List[List[str]]:
        """Lists of property names whose values must be unique together."""
        joined = read_strings(lib.og_entity_uniqueness_constraint_count, lib.og_entity_uniqueness_constraint_at, self._h)
        return [c.split(",") for c in joined]

    @uniqueness_constraints.setter
    def uniqueness_constraints(self, constraints: Iterable[Sequence[str]]) -> None:
        joined = [",".join(c) for c in constraints]
        call(lib.og_entity_set_uniqueness_constraints, self._h, c_strings(joined), len(joined))

    @property
    def fetch_indexes(self) -> List["FetchIndex"]:
        """The entity's fetch indexes (Core Data's ``indexes``), new values on each read;
        assigning replaces them all and makes this entity theirs."""
        return read_indexes(self)

    @fetch_indexes.setter
    def fetch_indexes(self, indexes: Iterable["FetchIndex"]) -> None:
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
            result.append(self._model._entity(call_handle(lib.og_entity_subentity_at, self._h, index)))
        return result

    @subentities.setter
    def subentities(self, children: Iterable["Entity"]) -> None:
        handles = [c._h for c in children]
        call(lib.og_entity_set_subentities, self._h, c_handles(handles), len(handles))

    def relationships_with_destination(self, destination: Union["Entity", str]) -> List["Relationship"]:
        """The relationships (inherited ones included) pointing at ``destination``."""
        target = destination if isinstance(destination, Entity) else self._model.entity(destination)
        result = []
        for index in range(lib.og_entity_relationship_with_destination_count(self._h, target._h)):
            handle = call_handle(lib.og_entity_relationship_with_destination_at, self._h, target._h, index)
            result.append(self._model._property(handle))
        return result  # type: ignore[return-value]

    @property
    def fetched_properties(self) -> Dict[str, "FetchedProperty"]:
        """Fetched properties by name, inherited ones included."""
        result = {}
        for index in range(lib.og_entity_fetched_property_count(self._h)):
            prop = self._model._property(call_handle(lib.og_entity_fetched_property_at, self._h, index))
            result[prop.name] = prop
        return result  # type: ignore[return-value]

    def add_fetched_property(self, name: str, entity: Union["Entity", str], predicate: Optional[str] = None) -> "FetchedProperty":
        """Adds a fetched property: the objects of ``entity`` matching
        ``predicate`` (which may use $FETCH_SOURCE and $FETCHED_PROPERTY)."""
        entity_name = entity.name if isinstance(entity, Entity) else entity
        handle = call_handle(lib.og_entity_add_fetched_property, self._h, encode(name), encode(entity_name),
                             optional_text(predicate))
        return self._model._property(handle)  # type: ignore[return-value]

    def remove_property(self, name: str) -> None:
        """Removes a property this entity declares."""
        call(lib.og_entity_remove_property, self._h, encode(name))

    def is_kind_of(self, other: "Entity") -> bool:
        return call_flag(lib.og_entity_is_kind_of, self._h, other._h)

    @property
    def properties(self) -> List["Property"]:
        """Every attribute and relationship, inherited ones first, in slot order
        (fetched properties have no slot: reach them by name)."""
        result = []
        for index in range(lib.og_entity_property_count(self._h)):
            result.append(self._model._property(call_handle(lib.og_entity_property_at, self._h, index)))
        return result

    @property
    def attributes(self) -> Dict[str, "Attribute"]:
        return {p.name: p for p in self.properties if isinstance(p, Attribute)}

    @property
    def relationships(self) -> Dict[str, "Relationship"]:
        return {p.name: p for p in self.properties if isinstance(p, Relationship)}

    def property_named(self, name: str) -> "Property":
        """The property ``name`` (inherited ones included); UnknownKeyError otherwise."""
        return self._model._property(call_handle(lib.og_entity_property, self._h, encode(name)))

    __getitem__ = property_named

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(p.name == name for p in self.properties)

    def slot(self, key: str) -> int:
        """The slot index of property ``key`` in the objects' value array."""
        return int(call_index(lib.og_entity_slot, self._h, encode(key)))

    @property
    def version_hash(self) -> bytes:
        """SHA-256 over the entity's definition (32 bytes); stores record it."""
        out = (ctypes.c_uint8 * 32)()
        call(lib.og_entity_version_hash, self._h, out)
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
        kind = AttributeType.parse(type)
        handle = call_handle(lib.og_entity_add_attribute, self._h, encode(name), int(kind))
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
        handle = call_handle(lib.og_entity_add_relationship, self._h, encode(name), target._h)
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
