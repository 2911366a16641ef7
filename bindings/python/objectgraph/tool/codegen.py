"""codegen MODEL: a Python module with one typed class per entity (also ``stubs``).

    objectgraph codegen Books.json -o books_model.py

Each class is declared for its entity (``class Book(og.TypedObject,
entity="Book")``), so importing the module makes the entity's objects instances
of it: ``ctx.fetch(Book, "pages > %@", 300)`` is a ``List[Book]`` to mypy, and a
misspelt property or a value of the wrong type fails ``mypy --strict``. The file
is also a valid stub (.pyi) for editors."""

from __future__ import annotations

import argparse
import keyword
from typing import Dict, List, Set, TextIO, Tuple

from ..enums import AttributeType
from ..model import Entity, Model
from ..typed import TypedObject
from ._store import load_model

__all__ = ["codegen", "write_module"]

# The type each attribute type reads as, and the import it needs ("" for builtins).
_PYTHON_TYPES: Dict[AttributeType, Tuple[str, str]] = {
    AttributeType.INTEGER16: ("int", ""),
    AttributeType.INTEGER32: ("int", ""),
    AttributeType.INTEGER64: ("int", ""),
    AttributeType.DECIMAL: ("Decimal", "from decimal import Decimal"),
    AttributeType.DOUBLE: ("float", ""),
    AttributeType.FLOAT: ("float", ""),
    AttributeType.STRING: ("str", ""),
    AttributeType.BOOLEAN: ("bool", ""),
    AttributeType.DATE: ("datetime", "from datetime import datetime"),
    AttributeType.BINARY: ("bytes", ""),
    AttributeType.UUID: ("UUID", "from uuid import UUID"),
    AttributeType.URI: ("str", ""),
    AttributeType.OBJECT_ID: ("og.ObjectID", ""),
}
_ANY = ("Any", "typing.Any")
_OPTIONAL = "typing.Optional"

# Names the module's annotations use besides the classes: an entity class takes a
# trailing "_" rather than hide one, and a property named like one is left untyped.
_IMPORTED = {"Any", "Optional", "Decimal", "datetime", "UUID", "og", "annotations"}


def _class_name(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) or name in _IMPORTED else name


class _Writer:
    """The classes of one model, and the imports they need."""

    def __init__(self, model: Model) -> None:
        self.imports: Set[str] = set()
        self.classes = {_class_name(e.name) for e in model.entities}

    def members(self, entity: Entity) -> List[str]:
        """One line per property the entity adds to its superentity."""
        inherited: Set[str] = set()
        if entity.superentity is not None:
            inherited = set(entity.superentity.attributes) | set(entity.superentity.relationships)
        lines: List[str] = []
        for name, attribute in entity.attributes.items():
            if name in inherited or self._skipped(name, lines):
                continue
            kind, module = _PYTHON_TYPES.get(attribute.type, _ANY)
            self.imports.add(module)
            if attribute.optional and kind != "Any":
                kind = f"Optional[{kind}]"
                self.imports.add(_OPTIONAL)
            lines.append(f"    {name}: {kind}")
        for name, relationship in entity.relationships.items():
            if name in inherited or self._skipped(name, lines):
                continue
            destination = _class_name(relationship.destination.name)
            if relationship.to_many:
                kind = f"og.{'OrderedToMany' if relationship.ordered else 'ToMany'}[{destination}]"
            else:
                kind = f"Optional[{destination}]"
                self.imports.add(_OPTIONAL)
            lines.append(f"    {name}: {kind}")
        return lines

    def _skipped(self, name: str, lines: List[str]) -> bool:
        """Whether property ``name`` cannot be declared; a comment says so and how to read it."""
        if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_") \
                and not hasattr(TypedObject, name) and name not in _IMPORTED and name not in self.classes:
            return False
        lines.append(f"    # {name!r} is read and written as obj[{name!r}] (its name is taken here)")
        return True


def write_module(model: Model, source: str, out: TextIO) -> None:
    """Writes the module of ``model``'s entities, superentities first."""
    writer = _Writer(model)
    done: Set[str] = set()
    blocks: List[str] = []

    def emit(entity: Entity) -> None:
        if entity.name in done:
            return
        done.add(entity.name)
        base = "og.TypedObject"
        if entity.superentity is not None:
            emit(entity.superentity)
            base = _class_name(entity.superentity.name)
        header = [f'class {_class_name(entity.name)}({base}, entity="{entity.name}"):', "    __slots__ = ()"]
        members = writer.members(entity)
        blocks.append("\n".join(header + ([""] + members if members else [])))

    for entity in model.entities:
        emit(entity)
    names = [_class_name(e.name) for e in model.entities]
    example = names[0] if names else "Entity"
    out.write(f'"""Typed classes of the entities of {source}, written by `objectgraph codegen`.\n\n'
              "Importing this module declares each class for its entity: import it before the\n"
              f"first object of these entities is used; then ctx.fetch({example}, ...) gives\n"
              f'{example} objects and ctx.insert({example}, ...) makes one, to mypy and at run time."""\n\n'
              "from __future__ import annotations\n\n")
    # Names from typing on one line, sorted with the other imports.
    typing = sorted(i.split(".")[1] for i in writer.imports if i.startswith("typing."))
    imports = sorted([i for i in writer.imports if i and not i.startswith("typing.")]
                     + ([f"from typing import {', '.join(typing)}"] if typing else []))
    out.write("".join(f"{line}\n" for line in imports) + ("\n" if imports else ""))
    out.write("import objectgraph as og\n\n")
    out.write("__all__ = [" + ", ".join(f'"{n}"' for n in sorted(names)) + "]\n")
    for block in blocks:
        out.write("\n\n" + block + "\n")


def codegen(args: argparse.Namespace, out: TextIO) -> int:
    model = load_model(args.model)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            write_module(model, args.model, f)
    else:
        write_module(model, args.model, out)
    return 0
