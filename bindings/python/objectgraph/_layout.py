"""Per-entity slot layouts: what a managed object's attribute access needs to
call the slot accessors without asking the library for names or types again.

A layout is built once per entity when a Coordinator is created (its model is
then immutable, so slots are fixed) and holds only Python data, so it keeps
working whatever happens to the Model wrapper afterwards.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from .enums import AttributeType
from .entity import Entity
from .model import Model
from .properties import Attribute, Relationship

# How a slot is read and written.
INT = 0  # og_object_get/set_int64_at
DOUBLE = 1  # og_object_get/set_double_at
VALUE = 2  # og_object_get/set_value_at (booleans, strings, dates, ...)
TO_ONE = 3  # og_object_get/set_object
TO_MANY = 4  # og_object_get_related / add / remove
ORDERED = 5  # an ordered to-many: the same calls, and by index

_INTEGERS = (AttributeType.INTEGER16, AttributeType.INTEGER32, AttributeType.INTEGER64)
_REALS = (AttributeType.DOUBLE, AttributeType.FLOAT)
_BUILT_IN_TRANSFORMERS = (None, "NSSecureUnarchiveFromData", "NSKeyedUnarchiveFromData")


class Slot:
    __slots__ = ("name", "key", "index", "access", "type", "named")

    def __init__(self, name: str, index: int, access: int, type: Optional[AttributeType]) -> None:
        self.name = name
        self.key = name.encode("utf-8")  # encoded once for the by-key calls
        self.index = index
        self.access = access
        self.type = type  # the attribute type; None for a relationship
        self.named = False  # a transformable whose transformer is a named one: it takes any value


class Layout:
    __slots__ = ("name", "key", "slots", "entity", "cls", "accessors", "integer_keys")

    def __init__(self, entity: Entity) -> None:
        self.name = entity.name
        self.key = entity.name.encode("utf-8")  # encoded once for the by-name calls (insert)
        self.entity = entity
        self.cls: Optional[type] = None  # the ManagedObject subclass, made on first use
        self.accessors: Dict[str, Tuple[Any, Any]] = {}  # name -> (read, write), made with it
        self.slots: Dict[str, Slot] = {}
        # insert()'s keyword names -> the C array of their slots and a struct packing their
        # values, when every one is an integer attribute (None otherwise): built once per set
        # of names, and never changed afterwards, since every thread's contexts share it.
        self.integer_keys: Dict[Tuple[str, ...], Any] = {}
        for index, prop in enumerate(entity.properties):
            if isinstance(prop, Attribute):
                kind = prop.type
                access = INT if kind in _INTEGERS else DOUBLE if kind in _REALS else VALUE
                slot = self.slots[prop.name] = Slot(prop.name, index, access, kind)
                if kind == AttributeType.TRANSFORMABLE:
                    slot.named = prop.value_transformer_name not in _BUILT_IN_TRANSFORMERS
            elif isinstance(prop, Relationship):
                access = (ORDERED if prop.ordered else TO_MANY) if prop.to_many else TO_ONE
                self.slots[prop.name] = Slot(prop.name, index, access, None)


class Layouts:
    """Every entity's layout, by name."""

    def __init__(self, model: Model) -> None:
        self.by_name: Dict[str, Layout] = {}
        for entity in model.entities:
            self.by_name[entity.name] = Layout(entity)
