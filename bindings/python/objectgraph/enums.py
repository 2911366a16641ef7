"""The enumerations of the C interface, with Core Data's numbers, and the
parsing of the names people write (``"integer64"``, ``"cascade"``)."""

from __future__ import annotations

from enum import IntEnum
from typing import Dict, Type, TypeVar, Union

from .errors import ErrorCode, make_error

__all__ = ["AttributeType", "DeleteRule", "MergePolicy", "PropertyKind", "ValueType"]


class AttributeType(IntEnum):
    """NSAttributeType's numbers."""

    UNDEFINED = 0
    INTEGER16 = 100
    INTEGER32 = 200
    INTEGER64 = 300
    DECIMAL = 400
    DOUBLE = 500
    FLOAT = 600
    STRING = 700
    BOOLEAN = 800
    DATE = 900
    BINARY = 1000
    UUID = 1100
    URI = 1200
    TRANSFORMABLE = 1800
    OBJECT_ID = 2000

    @classmethod
    def parse(cls, value: Union["AttributeType", int, str]) -> "AttributeType":
        """Accepts a member, its number, or the model-format name ("integer64",
        "binary", "uri"; case does not matter)."""
        return _parse(cls, value, _TYPE_ALIASES, "attribute type")

    @property
    def json_name(self) -> str:
        """The name the JSON model format uses (docs/model-format.md)."""
        return _TYPE_JSON_NAMES.get(self, self.name.lower())


class DeleteRule(IntEnum):
    """NSDeleteRule's numbers."""

    NO_ACTION = 0
    NULLIFY = 1
    CASCADE = 2
    DENY = 3

    @classmethod
    def parse(cls, value: Union["DeleteRule", int, str]) -> "DeleteRule":
        """Accepts a member, its number, or a name ("cascade", "noAction", "no_action")."""
        return _parse(cls, value, {"noaction": DeleteRule.NO_ACTION}, "delete rule")


class MergePolicy(IntEnum):
    """NSMergePolicyType's numbers: how a save resolves objects whose rows
    changed since they were read (``ctx.merge_policy``)."""

    ERROR = 0
    MERGE_BY_PROPERTY_STORE_TRUMP = 1
    MERGE_BY_PROPERTY_OBJECT_TRUMP = 2
    OVERWRITE = 3
    ROLLBACK = 4

    @classmethod
    def parse(cls, value: Union["MergePolicy", int, str]) -> "MergePolicy":
        """Accepts a member, its number, or a name ("overwrite",
        "merge_by_property_store_trump", "mergeByPropertyObjectTrump", Apple's
        "NSRollbackMergePolicyType"; case does not matter)."""
        return _parse(cls, value, _POLICY_ALIASES, "merge policy")


class PropertyKind(IntEnum):
    ATTRIBUTE = 0
    RELATIONSHIP = 1
    FETCHED = 2


class ValueType(IntEnum):
    """What an og_value holds."""

    NULL = 0
    INT64 = 1
    DOUBLE = 2
    BOOL = 3
    STRING = 4
    DATE = 5
    DATA = 6
    DECIMAL = 7
    UUID = 8
    URI = 9
    ARRAY = 10
    DICTIONARY = 11
    OBJECT = 12
    OBJECT_ID = 13
    ENTITY = 14
    ARCHIVED_OBJECT = 15


_TYPE_ALIASES = {
    "int16": AttributeType.INTEGER16,
    "int32": AttributeType.INTEGER32,
    "int64": AttributeType.INTEGER64,
    "bool": AttributeType.BOOLEAN,
    "data": AttributeType.BINARY,
    "objectid": AttributeType.OBJECT_ID,
}
# Apple's spellings: NSOverwriteMergePolicy, NSOverwriteMergePolicyType, overwriteMergePolicy.
_POLICY_ALIASES = {
    prefix + member.name.replace("_", "").lower() + suffix: member
    for member in MergePolicy
    for prefix in ("", "ns")
    for suffix in ("mergepolicy", "mergepolicytype")
}
_TYPE_JSON_NAMES = {AttributeType.OBJECT_ID: "objectID"}


E = TypeVar("E", bound=IntEnum)


def _parse(enum: Type[E], value: object, aliases: Dict[str, E], what: str) -> E:
    if isinstance(value, enum):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return enum(value)
        except ValueError:
            pass
    elif isinstance(value, str):
        key = value.replace("_", "").replace("-", "").lower()
        if key in aliases:
            return aliases[key]
        for member in enum:
            if member.name.replace("_", "").lower() == key:
                return member
    choices = ", ".join(m.name.lower() for m in enum)
    raise make_error(f"unknown {what} {value!r} (one of: {choices})", ErrorCode.INVALID_ARGUMENT)
