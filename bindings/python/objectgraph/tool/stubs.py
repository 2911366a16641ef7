"""stubs MODEL: a .pyi file with one typed class per entity, for mypy and editors.

    objectgraph stubs Books.json -o books_model.pyi

Each class is an ``og.ManagedObject`` whose attributes and relationships carry
their Python types; use it with ``typing.cast``:
``book = cast(Book, ctx.insert("Book"))``."""

from __future__ import annotations

import argparse
import keyword
from typing import Dict, List, Set, TextIO

from ..enums import AttributeType
from ..model import Entity, Model
from ._store import load_model

__all__ = ["stubs", "write_stubs"]

_PYTHON_TYPES: Dict[AttributeType, str] = {
    AttributeType.INTEGER16: "int",
    AttributeType.INTEGER32: "int",
    AttributeType.INTEGER64: "int",
    AttributeType.DECIMAL: "Decimal",
    AttributeType.DOUBLE: "float",
    AttributeType.FLOAT: "float",
    AttributeType.STRING: "str",
    AttributeType.BOOLEAN: "bool",
    AttributeType.DATE: "datetime",
    AttributeType.BINARY: "bytes",
    AttributeType.UUID: "UUID",
    AttributeType.URI: "str",
    AttributeType.OBJECT_ID: "og.ObjectID",
}


def _class_name(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _entity_lines(entity: Entity) -> List[str]:
    base = _class_name(entity.superentity.name) if entity.superentity is not None else "og.ManagedObject"
    lines = [f"class {_class_name(entity.name)}({base}):"]
    inherited = set(entity.superentity.attributes) | set(entity.superentity.relationships) \
        if entity.superentity is not None else set()
    members: List[str] = []
    for name, attribute in entity.attributes.items():
        if name in inherited or keyword.iskeyword(name):
            continue
        kind = _PYTHON_TYPES.get(attribute.type, "Any")
        if attribute.optional and kind != "Any":
            kind = f"Optional[{kind}]"
        members.append(f"    {name}: {kind}")
    for name, relationship in entity.relationships.items():
        if name in inherited or keyword.iskeyword(name):
            continue
        if relationship.to_many:
            kind = "og.RelatedOrderedSet" if relationship.ordered else "og.RelatedSet"
        else:
            kind = f"Optional[{_class_name(relationship.destination.name)}]"
        members.append(f"    {name}: {kind}")
    return lines + (members or ["    pass"])


def write_stubs(model: Model, source: str, out: TextIO) -> None:
    """Writes the stub of every entity of ``model``, superentities first."""
    out.write(f'"""Typed classes of the entities of {source}; written by `objectgraph stubs`."""\n\n')
    out.write("from datetime import datetime\nfrom decimal import Decimal\n"
              "from typing import Any, Optional\nfrom uuid import UUID\n\nimport objectgraph as og\n")
    done: Set[str] = set()

    def emit(entity: Entity) -> None:
        if entity.name in done:
            return
        if entity.superentity is not None:
            emit(entity.superentity)
        done.add(entity.name)
        out.write("\n\n" + "\n".join(_entity_lines(entity)) + "\n")

    for entity in model.entities:
        emit(entity)


def stubs(args: argparse.Namespace, out: TextIO) -> int:
    model = load_model(args.model)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            write_stubs(model, args.model, f)
    else:
        write_stubs(model, args.model, out)
    return 0
