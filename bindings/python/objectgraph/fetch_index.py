"""Fetch indexes: FetchIndex and FetchIndexElement (Core Data's NSFetchIndexDescription
and NSFetchIndexElementDescription), and how an Entity reads and sets them.

They are plain values: an entity's ``fetch_indexes`` builds new ones from the model on
every read, and assigning copies them into the model.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Iterable, List, Optional, Union

from ._call import call, call_handle, call_string
from ._lib import lib
from ._util import encode, take_string
from .enums import AttributeType
from .errors import ErrorCode, make_error
from .properties import Property

if TYPE_CHECKING:
    from .entity import Entity

__all__ = ["FetchIndex", "FetchIndexElement"]

# og_index_collation: NSFetchIndexElementType's numbers.
_COLLATIONS = {"binary": 0, "rtree": 1}
_NUMERIC = {
    AttributeType.INTEGER16, AttributeType.INTEGER32, AttributeType.INTEGER64,
    AttributeType.DECIMAL, AttributeType.DOUBLE, AttributeType.FLOAT,
}


def _collation(value: Union[str, int]) -> str:
    """A collation name from its name or Apple's number."""
    if isinstance(value, str) and value in _COLLATIONS:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        for name, number in _COLLATIONS.items():
            if number == value:
                return name
    raise make_error(f"{value!r} is not an index collation (\"binary\" or \"rtree\")", ErrorCode.INVALID_ARGUMENT)


class FetchIndexElement:
    """One property of a fetch index: binary (a B-tree) or R-tree (numbers only),
    ascending or descending."""

    __slots__ = ("_property", "_collation", "ascending", "index")

    def __init__(self, property: "Property", collation: Union[str, int] = "binary", ascending: bool = True) -> None:
        if not isinstance(property, Property):
            raise make_error(f"a fetch index element needs an og.Property, not {type(property).__name__}", ErrorCode.TYPE_MISMATCH)
        self._property = property
        self._collation = "binary"
        self.collation = collation
        self.ascending = bool(ascending)
        #: The FetchIndex holding this element, or None.
        self.index: Optional[FetchIndex] = None

    @property
    def property_name(self) -> str:
        return self._property.name

    @property
    def collation(self) -> str:
        """``"binary"`` or ``"rtree"``; setting also takes Apple's number (0, 1)."""
        return self._collation

    @collation.setter
    def collation(self, value: Union[str, int]) -> None:
        name = _collation(value)
        if name == "rtree" and getattr(self._property, "type", None) not in _NUMERIC:
            raise make_error(
                f"an R-tree element indexes numbers, and '{self._property.name}' is not a number", ErrorCode.INVALID_MODEL)
        self._collation = name

    def __repr__(self) -> str:
        order = "ascending" if self.ascending else "descending"
        return f"<objectgraph.FetchIndexElement {self.property_name} {self._collation} {order}>"

    # Last: once defined, the name `property` no longer means the builtin in this class body.
    @property
    def property(self) -> "Property":
        """The og.Property indexed."""
        return self._property


class FetchIndex:
    """A named fetch index of an entity, with an optional partial-index predicate (a
    predicate format string: only the objects it holds for are indexed)."""

    __slots__ = ("name", "_elements", "entity", "partial_predicate")

    def __init__(self, name: str, elements: Iterable[FetchIndexElement], partial_predicate: Optional[str] = None) -> None:
        self.name = name
        self._elements: List[FetchIndexElement] = []
        for element in elements:
            if not isinstance(element, FetchIndexElement):
                raise make_error(f"a fetch index holds FetchIndexElement objects, not {type(element).__name__}",
                                 ErrorCode.TYPE_MISMATCH)
            element.index = self
            self._elements.append(element)
        #: The Entity whose index this is, or None.
        self.entity: Optional["Entity"] = None
        self.partial_predicate = partial_predicate

    @property
    def elements(self) -> List[FetchIndexElement]:
        return list(self._elements)

    def copy(self) -> "FetchIndex":
        """A new index with copies of the elements, of the same entity."""
        twin = FetchIndex(self.name, [FetchIndexElement(e.property, e.collation, e.ascending) for e in self._elements],
                          self.partial_predicate)
        twin.entity = self.entity
        return twin

    def __repr__(self) -> str:
        return f"<objectgraph.FetchIndex {self.name} {[e.property_name for e in self._elements]}>"


class _Element(ctypes.Structure):
    """og_fetch_index_element."""

    _fields_ = [("property", ctypes.c_char_p), ("collation", ctypes.c_int), ("ascending", ctypes.c_bool)]


class _Index(ctypes.Structure):
    """og_fetch_index."""

    _fields_ = [("name", ctypes.c_char_p), ("elements", ctypes.POINTER(_Element)), ("element_count", ctypes.c_size_t),
                ("partial_predicate", ctypes.c_char_p)]


def read_indexes(entity: "Entity") -> List[FetchIndex]:
    """The entity's fetch indexes, as new values."""
    out = []
    for i in range(lib.og_entity_fetch_index_count(entity._h)):
        name = take_string(call_handle(lib.og_entity_fetch_index_name, entity._h, i)) or ""
        predicate = call_string(lib.og_entity_fetch_index_partial_predicate, entity._h, i)
        elements = []
        for j in range(lib.og_entity_fetch_index_element_count(entity._h, i)):
            prop, collation, ascending = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_bool()
            call(lib.og_entity_fetch_index_element_at, entity._h, i, j, ctypes.byref(prop), ctypes.byref(collation),
                 ctypes.byref(ascending))
            property_name = take_string(prop.value) or ""
            element = FetchIndexElement.__new__(FetchIndexElement)
            element._property = entity.property_named(property_name)
            element._collation = _collation(collation.value)
            element.ascending = ascending.value
            element.index = None
            elements.append(element)
        index = FetchIndex(name, elements, predicate)
        index.entity = entity
        out.append(index)
    return out


def write_indexes(entity: "Entity", indexes: Iterable[FetchIndex]) -> None:
    """Makes `indexes` the entity's fetch indexes (copied), and their entity `entity`."""
    indexes = list(indexes)
    structures: List[Any] = []  # keeps every array alive for the call
    array = (_Index * max(len(indexes), 1))()
    for i, index in enumerate(indexes):
        if not isinstance(index, FetchIndex):
            raise make_error(f"fetch_indexes holds FetchIndex objects, not {type(index).__name__}", ErrorCode.TYPE_MISMATCH)
        for element in index.elements:
            owner = element.property.entity
            if not entity.is_kind_of(owner):
                raise make_error(f"fetch index '{index.name}' names '{owner.name}.{element.property_name}', "
                                 f"a property of another entity than '{entity.name}'", ErrorCode.INVALID_MODEL)
        elements = (_Element * max(len(index.elements), 1))(
            *[_Element(encode(e.property_name), _COLLATIONS[e.collation], e.ascending) for e in index.elements])
        structures.append(elements)
        array[i] = _Index(encode(index.name), ctypes.cast(elements, ctypes.POINTER(_Element)), len(index.elements),
                          None if index.partial_predicate is None else encode(index.partial_predicate))
    call(lib.og_entity_set_fetch_indexes, entity._h, array, len(indexes))
    for index in indexes:
        index.entity = entity
