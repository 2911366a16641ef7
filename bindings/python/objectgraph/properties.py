"""The properties of an entity: Property, and its kinds Attribute, Relationship and
FetchedProperty.

Properties are lent by their model: the Model hands out one wrapper per handle
(``Model._property``) and each wrapper keeps the Model alive. Closing the model
invalidates them; a later call passes NULL and the library reports
OG_ERROR_INVALID_HANDLE. An entity named by a property (a relationship's
destination) is resolved through the model (``Model._entity``, ``Model._as_entity``),
which sits above this module.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from ._call import (c_strings, call, call_flag, call_handle, call_out, call_string, optional_text, read_string_dict,
                    write_string_dict)
from ._lib import lib
from ._util import decode, encode
from .enums import AttributeType, DeleteRule, PropertyKind
from .errors import ErrorCode, make_error
from .values import Value, take_value, to_value

if TYPE_CHECKING:
    from .entity import Entity
    from .model import Model

__all__ = ["Property", "Attribute", "Relationship", "FetchedProperty"]


def _invalid(what: str) -> Exception:
    # For the calls that have no error slot and answer NULL for a bad handle.
    return make_error(f"invalid handle: the {what} was released with its model", ErrorCode.INVALID_HANDLE)


class Property:
    """What attributes and relationships share."""

    __slots__ = ("_model", "_h", "__weakref__")

    def __init__(self, model: "Model", handle: int) -> None:
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
        call(lib.og_property_set_name, self._h, encode(value))

    @property
    def entity(self) -> "Entity":
        """The entity that declares the property."""
        handle = lib.og_property_entity(self._h)
        if not handle:
            raise _invalid("property")
        return self._model._entity(handle)

    @property
    def kind(self) -> PropertyKind:
        return PropertyKind(call_out(lib.og_property_kind_of, ctypes.c_int, self._h))

    @property
    def optional(self) -> bool:
        return call_flag(lib.og_property_is_optional, self._h)

    @optional.setter
    def optional(self, value: bool) -> None:
        call(lib.og_property_set_optional, self._h, bool(value))

    @property
    def transient(self) -> bool:
        return call_flag(lib.og_property_is_transient, self._h)

    @transient.setter
    def transient(self, value: bool) -> None:
        call(lib.og_property_set_transient, self._h, bool(value))

    @property
    def indexed(self) -> bool:
        """True exactly when the entity has a fetch index of this attribute alone (binary,
        ascending, partial or not); always True for a relationship. Setting True adds such
        an index named after the property; False removes those."""
        return call_flag(lib.og_property_is_indexed, self._h)

    @indexed.setter
    def indexed(self, value: bool) -> None:
        call(lib.og_property_set_indexed, self._h, bool(value))

    @property
    def indexed_by_spotlight(self) -> bool:
        """Kept as data; no effect on Linux."""
        return call_flag(lib.og_property_is_indexed_by_spotlight, self._h)

    @indexed_by_spotlight.setter
    def indexed_by_spotlight(self, value: bool) -> None:
        call(lib.og_property_set_indexed_by_spotlight, self._h, bool(value))

    @property
    def stored_in_external_record(self) -> bool:
        """Kept as data; no effect on Linux."""
        return call_flag(lib.og_property_is_stored_in_external_record, self._h)

    @stored_in_external_record.setter
    def stored_in_external_record(self, value: bool) -> None:
        call(lib.og_property_set_stored_in_external_record, self._h, bool(value))

    @property
    def renaming_identifier(self) -> str:
        return call_string(lib.og_property_renaming_identifier, self._h) or ""

    @renaming_identifier.setter
    def renaming_identifier(self, identifier: Optional[str]) -> None:
        call(lib.og_property_set_renaming_identifier, self._h, optional_text(identifier))

    @property
    def version_hash_modifier(self) -> Optional[str]:
        return call_string(lib.og_property_version_hash_modifier, self._h)

    @version_hash_modifier.setter
    def version_hash_modifier(self, modifier: Optional[str]) -> None:
        call(lib.og_property_set_version_hash_modifier, self._h, optional_text(modifier))

    @property
    def version_hash(self) -> bytes:
        """The property's own 32-byte hash, as its entity's hash uses it."""
        out = (ctypes.c_uint8 * 32)()
        call(lib.og_property_version_hash, self._h, out)
        return bytes(out)

    def user_info(self, key: str) -> Optional[str]:
        return call_string(lib.og_property_user_info, self._h, encode(key))

    @property
    def user_info_dict(self) -> Dict[str, str]:
        """Every user-info entry; assigning replaces them all."""
        return read_string_dict(lib.og_property_user_info_count, lib.og_property_user_info_key_at, lib.og_property_user_info, self._h)

    @user_info_dict.setter
    def user_info_dict(self, mapping: Mapping[str, str]) -> None:
        write_string_dict(lib.og_property_set_user_info, self._h, mapping)

    @property
    def validation(self) -> List[Tuple[str, str]]:
        """Validation rules as (predicate format, warning) pairs; assigning replaces them."""
        count = int(lib.og_property_validation_count(self._h))
        return [
            (call_string(lib.og_property_validation_predicate_at, self._h, i) or "", call_string(lib.og_property_validation_warning_at, self._h, i) or "")
            for i in range(count)
        ]

    @validation.setter
    def validation(self, rules: Iterable[Tuple[str, str]]) -> None:
        pairs = list(rules)
        call(lib.og_property_set_validation, self._h, c_strings([p for p, _ in pairs]), c_strings([w for _, w in pairs]), len(pairs))

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
        return AttributeType(call_out(lib.og_attribute_type_of, ctypes.c_int, self._h))

    @type.setter
    def type(self, kind: Union[AttributeType, int, str]) -> None:
        call(lib.og_attribute_set_type, self._h, int(AttributeType.parse(kind)))

    def _bound(self, getter: Any) -> Value:
        return take_value(call_handle(getter, self._h))

    def _set_bounds(self, low: Value, high: Value) -> None:
        kind = self.type
        handles = [to_value(low, kind), to_value(high, kind)]
        try:
            call(lib.og_attribute_set_value_bounds, self._h, handles[0], handles[1])
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
        call(lib.og_attribute_length_bounds, self._h, ctypes.byref(lo), ctypes.byref(hi))
        return (lo.value if lo.value >= 0 else None, hi.value if hi.value >= 0 else None)

    def _set_lengths(self, low: Optional[int], high: Optional[int]) -> None:
        call(lib.og_attribute_set_length_bounds, self._h, -1 if low is None else int(low), -1 if high is None else int(high))

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
        return call_string(lib.og_attribute_regular_expression, self._h)

    @regular_expression.setter
    def regular_expression(self, pattern: Optional[str]) -> None:
        call(lib.og_attribute_set_regular_expression, self._h, optional_text(pattern))

    @property
    def value_class_name(self) -> Optional[str]:
        return call_string(lib.og_attribute_value_class_name, self._h)

    @value_class_name.setter
    def value_class_name(self, name: Optional[str]) -> None:
        call(lib.og_attribute_set_value_class_name, self._h, optional_text(name))

    @property
    def derivation_expression(self) -> Optional[str]:
        return call_string(lib.og_attribute_derivation_expression, self._h)

    @derivation_expression.setter
    def derivation_expression(self, expression: Optional[str]) -> None:
        call(lib.og_attribute_set_derivation_expression, self._h, optional_text(expression))

    @property
    def allows_external_storage(self) -> bool:
        """allowsExternalBinaryDataStorage."""
        return call_flag(lib.og_attribute_allows_external_storage, self._h)

    @allows_external_storage.setter
    def allows_external_storage(self, value: bool) -> None:
        call(lib.og_attribute_set_allows_external_storage, self._h, bool(value))

    @property
    def preserves_value_in_history(self) -> bool:
        """preservesValueInHistoryOnDeletion."""
        return call_flag(lib.og_attribute_preserves_value_in_history, self._h)

    @preserves_value_in_history.setter
    def preserves_value_in_history(self, value: bool) -> None:
        call(lib.og_attribute_set_preserves_value_in_history, self._h, bool(value))

    @property
    def default(self) -> Value:
        """The value new objects get; None when there is none."""
        return take_value(call_handle(lib.og_attribute_default, self._h))

    @default.setter
    def default(self, value: Value) -> None:
        handle = to_value(value, self.type)
        try:
            call(lib.og_attribute_set_default, self._h, handle)
        finally:
            lib.og_value_release(handle)

    @property
    def value_transformer_name(self) -> Optional[str]:
        return call_string(lib.og_attribute_value_transformer_name, self._h)

    @value_transformer_name.setter
    def value_transformer_name(self, name: Optional[str]) -> None:
        call(lib.og_attribute_set_value_transformer_name, self._h, optional_text(name))


class FetchedProperty(Property):
    """A fetched property: a lazily fetched, one-way list defined by a request."""

    __slots__ = ()

    @property
    def entity_name(self) -> str:
        """The entity the request fetches."""
        return call_string(lib.og_fetched_property_entity, self._h) or ""

    @entity_name.setter
    def entity_name(self, name: str) -> None:
        call(lib.og_fetched_property_set_request, self._h, encode(name), optional_text(self.predicate))

    @property
    def predicate(self) -> Optional[str]:
        """The request's predicate format string."""
        return call_string(lib.og_fetched_property_predicate, self._h)

    @predicate.setter
    def predicate(self, format: Optional[str]) -> None:
        call(lib.og_fetched_property_set_request, self._h, encode(self.entity_name), optional_text(format))


class Relationship(Property):
    __slots__ = ()

    def _counts(self) -> Tuple[int, int]:
        lo, hi = ctypes.c_int64(), ctypes.c_int64()
        call(lib.og_relationship_counts, self._h, ctypes.byref(lo), ctypes.byref(hi))
        return lo.value, hi.value

    def set_counts(self, min_count: int, max_count: int) -> None:
        """Sets both counts at once (max 1: to-one; 0: unbounded to-many)."""
        call(lib.og_relationship_set_counts, self._h, int(min_count), int(max_count))

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
        return call_flag(lib.og_relationship_is_ordered, self._h)

    @ordered.setter
    def ordered(self, value: bool) -> None:
        call(lib.og_relationship_set_ordered, self._h, bool(value))

    @property
    def destination(self) -> "Entity":
        handle = lib.og_relationship_destination(self._h)
        if not handle:
            raise _invalid("relationship")
        return self._model._entity(handle)

    @destination.setter
    def destination(self, entity: Union["Entity", str]) -> None:
        call(lib.og_relationship_set_destination, self._h, self._model._as_entity(entity)._h)

    @property
    def inverse(self) -> Optional["Relationship"]:
        handle = lib.og_relationship_inverse(self._h)
        return self._model._property(handle) if handle else None  # type: ignore[return-value]

    @inverse.setter
    def inverse(self, other: "Relationship") -> None:
        call(lib.og_relationship_set_inverse, self._h, other._h if other is not None else None)

    @property
    def to_many(self) -> bool:
        return call_flag(lib.og_relationship_is_to_many, self._h)

    @to_many.setter
    def to_many(self, value: bool) -> None:
        call(lib.og_relationship_set_to_many, self._h, bool(value))

    @property
    def delete_rule(self) -> DeleteRule:
        return DeleteRule(call_out(lib.og_relationship_delete_rule, ctypes.c_int, self._h))

    @delete_rule.setter
    def delete_rule(self, rule: Union[DeleteRule, int, str]) -> None:
        call(lib.og_relationship_set_delete_rule, self._h, int(DeleteRule.parse(rule)))
