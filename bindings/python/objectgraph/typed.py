"""Typed entity classes: what ``objectgraph codegen`` writes classes with.

    class Book(og.TypedObject, entity="Book"):
        __slots__ = ()
        title: str
        pages: Optional[int]
        author: Optional[Author]
        chapters: og.OrderedToMany[Chapter]

Declaring the class registers it for the entity (ManagedObject.__init_subclass__):
the entity's objects are instances of it, ``ctx.fetch(Book)`` returns
``List[Book]`` and ``ctx.insert(Book)`` a ``Book``. The declarations are for the
type checker only; at run time the entity's own properties (_accessors.py) read
and write the values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Iterable, TypeVar, overload

from .objects import ManagedObject, RelatedOrderedSet, RelatedSet

__all__ = ["OrderedToMany", "ToMany", "TypedObject"]

_O = TypeVar("_O", bound=ManagedObject)


class TypedObject(ManagedObject):
    """A managed object whose class declares its entity's properties: to mypy,
    a name the class does not declare is an error (``book.titel``), where on a
    plain ``og.ManagedObject`` every name reads as ``Any``."""

    __slots__ = ()

    if TYPE_CHECKING:
        # mypy reads an undeclared name through __getattr__ and writes one through
        # __setattr__ when a class has them (ManagedObject does, so that untyped code
        # type-checks). Declared here as plain names, not methods, they are not used:
        # an undeclared name is then an error.
        __getattr__: None  # type: ignore[misc, assignment]
        __setattr__: None  # type: ignore[misc, assignment]


class ToMany(Generic[_O]):
    """The annotation of a to-many relationship in a typed class
    (``books: og.ToMany[Book]``): it reads as an ``og.RelatedSet[Book]`` and takes
    any iterable of ``Book`` when assigned. Only the type checker uses it."""

    if TYPE_CHECKING:
        @overload
        def __get__(self, obj: None, owner: Any) -> "ToMany[_O]": ...

        @overload
        def __get__(self, obj: object, owner: Any) -> RelatedSet[_O]: ...

        def __get__(self, obj: Any, owner: Any) -> Any: ...

        def __set__(self, obj: object, value: Iterable[_O]) -> None: ...


class OrderedToMany(Generic[_O]):
    """The annotation of an ordered to-many relationship in a typed class
    (``chapters: og.OrderedToMany[Chapter]``): it reads as an
    ``og.RelatedOrderedSet[Chapter]`` and takes any iterable of ``Chapter``, in
    order, when assigned. Only the type checker uses it."""

    if TYPE_CHECKING:
        @overload
        def __get__(self, obj: None, owner: Any) -> "OrderedToMany[_O]": ...

        @overload
        def __get__(self, obj: object, owner: Any) -> RelatedOrderedSet[_O]: ...

        def __get__(self, obj: Any, owner: Any) -> Any: ...

        def __set__(self, obj: object, value: Iterable[_O]) -> None: ...
