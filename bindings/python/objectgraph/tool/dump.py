"""dump: an entity's rows as JSON or CSV.

With a model (the store's own, or --model), rows are the entity's objects with
their properties. An SQLite store that keeps no model is dumped from its own
tables: entities as its Z_PRIMARYKEY names them, columns as the file names them."""

from __future__ import annotations

import argparse
import base64
import contextlib
import csv
import json
import sys
from datetime import datetime
from decimal import Decimal
from typing import Any, Dict, Iterator, List, Optional, Set, TextIO
from uuid import UUID

from ..enums import AttributeType
from ..errors import Error
from ..model import Entity, Model
from ..objects import ManagedObject
from ..transformable import register_value_transformer, unregister_value_transformer
from ._files import connect_read_only, readable
from ._progress import Progress
from ._store import ToolError, model_for, needs_model, read_only_context, store_metadata, store_type
from ._tables import count_rows, dump_columns, family, read_rows, stored_entities

__all__ = ["dump"]

_BATCH = 500


def _text(value: Any) -> Any:
    """A value as JSON can hold it: dates in ISO 8601, data in base64, related
    objects as their URIs."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (Decimal, UUID)):
        return str(value)
    if isinstance(value, ManagedObject):
        return str(value.object_id)
    if isinstance(value, (list, tuple, set, frozenset)) or hasattr(value, "__iter__"):
        return [_text(v) for v in value]
    return str(value)


def _stored_bytes(value: Any, transformer: str) -> Any:
    """A transformable's stored bytes, marked so they are not taken for its value."""
    if not isinstance(value, bytes):
        return _text(value)
    return {"base64": base64.b64encode(value).decode("ascii"), "transformer": transformer}


class _Writer:
    """Rows written as a JSON array or as CSV, one at a time, with the progress
    shown on a terminal."""

    def __init__(self, out: TextIO, *, format: str, keys: List[str], label: str, total: int) -> None:
        self.out = out
        self.index = 0
        self.progress = Progress(label, total)
        self.csv: Optional["csv.DictWriter[str]"] = None
        if format == "csv":
            self.csv = csv.DictWriter(out, fieldnames=keys, lineterminator="\n")
            self.csv.writeheader()
        else:
            out.write("[")

    def write(self, row: Dict[str, Any]) -> None:
        if self.csv is not None:
            self.csv.writerow({k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in row.items()})
        else:
            self.out.write(("," if self.index else "") + "\n  " + json.dumps(row, ensure_ascii=False))
        self.index += 1
        self.progress.update(self.index)

    def finish(self) -> None:
        if self.csv is None:
            self.out.write("\n]\n" if self.index else "]\n")
        self.progress.finish()


def _id_key(keys: List[str]) -> str:
    """The name each row's URI goes under: one no property or column has."""
    id_key = "objectID"
    while id_key in keys:
        id_key = "_" + id_key
    return id_key


def _refuse(value: Any) -> bytes:
    raise ToolError("the store tool writes nothing through a transformer it stands in for")


def _kept(data: bytes) -> bytes:
    return data


@contextlib.contextmanager
def _stored_bytes_for_unregistered(entity: Entity, keys: List[str]) -> Iterator[Dict[str, str]]:
    """Stands in, while the dump runs, for each value transformer the entity's
    attributes name that nobody registered: reading a value through it gives the
    bytes the store keeps, so the dump writes those and carries on instead of
    failing at the first such value. Yields attribute name -> transformer name.
    A stand-in refuses to write, and is unregistered afterwards."""
    standing: Dict[str, str] = {}
    registered: Set[str] = set()
    try:
        for name in keys:
            attribute = entity.attributes.get(name)
            if attribute is None or attribute.type != AttributeType.TRANSFORMABLE:
                continue
            transformer = attribute.value_transformer_name
            if not transformer:
                continue
            if transformer not in registered:
                try:
                    register_value_transformer(transformer, _refuse, _kept)
                except Error:  # registered already (by the app, or built in): values decode
                    continue
                registered.add(transformer)
            standing[name] = transformer
        for name, transformer in standing.items():
            print(f"objectgraph dump: {entity.name}.{name}: no value transformer named {transformer!r} is "
                  f"registered; its stored bytes are written as {{\"base64\": ..., \"transformer\": ...}}",
                  file=sys.stderr)
        yield standing
    finally:
        for transformer in registered:
            unregister_value_transformer(transformer)


def _row(obj: ManagedObject, id_key: str, keys: List[str], to_many: Set[str], undecoded: Dict[str, str]) -> Dict[str, Any]:
    row: Dict[str, Any] = {id_key: str(obj.object_id)}
    for key in keys:
        value = obj[key]
        if key in to_many:
            value = sorted(str(o.object_id) for o in value)
        row[key] = _stored_bytes(value, undecoded[key]) if key in undecoded else _text(value)
    return row


def _dump_objects(source: str, model: Model, kind: str, args: argparse.Namespace, out: TextIO) -> None:
    """The entity's objects, read through the model."""
    with read_only_context(source, model, kind) as ctx:
        try:
            entity = ctx.coordinator.model[args.entity]
        except KeyError as exc:
            raise ToolError(str(exc.args[0]) if exc.args else f"no entity {args.entity!r}") from None
        attributes = [name for name, a in entity.attributes.items() if not a.transient]
        to_ones = [name for name, r in entity.relationships.items() if not r.to_many and not r.transient]
        to_manys = [name for name, r in entity.relationships.items() if r.to_many and not r.transient]
        keys = attributes + to_ones + (to_manys if args.relationships else [])
        id_key = _id_key(keys)
        with _stored_bytes_for_unregistered(entity, attributes) as undecoded:
            total = ctx.count(args.entity, args.where, limit=args.limit)
            writer = _Writer(out, format=args.format, keys=[id_key] + keys, label=f"dump {args.entity}", total=total)
            objects = ctx.fetch(args.entity, args.where, sort=args.sort or None, limit=args.limit, batch_size=_BATCH)
            for index, obj in enumerate(objects):
                writer.write(_row(obj, id_key, keys, set(to_manys) if args.relationships else set(), undecoded))
                if index % _BATCH == _BATCH - 1:
                    # Objects already written are turned back into faults, so memory stays flat.
                    for done in objects[index - _BATCH + 1:index + 1]:
                        ctx.refresh(done, merge=False)
            writer.finish()


def _dump_tables(source: str, args: argparse.Namespace, out: TextIO) -> None:
    """The entity's rows read from the store's tables, for an SQLite store that
    keeps no model: what needs one (predicates, to-many relationships) asks for it."""
    if args.where:
        raise needs_model(source, "SQLite", "to filter with --where")
    if args.relationships:
        raise needs_model(source, "SQLite", "to list to-many relationships")
    uuid = store_metadata(source, "SQLite").get("NSStoreUUID", "")
    db = connect_read_only(source)
    try:
        entities = family(stored_entities(db, source), args.entity)
        columns = dump_columns(db, entities)
        id_key = _id_key(columns)
        writer = _Writer(out, format=args.format, keys=[id_key] + columns, label=f"dump {args.entity}",
                         total=count_rows(entities, args.limit))
        for entity, key, values in read_rows(db, entities, sort=args.sort or (), limit=args.limit):
            row: Dict[str, Any] = {id_key: f"x-coredata://{uuid}/{entity.name}/p{key}"}
            row.update((column, _text(value)) for column, value in values.items())
            writer.write(row)
        writer.finish()
    finally:
        db.close()


def dump(args: argparse.Namespace, out: TextIO) -> int:
    with readable(args.store) as source:
        kind = store_type(source, args.type)
        model = model_for(source, args.model, kind)
        if model is not None:
            _dump_objects(source, model, kind, args, out)
        elif kind == "SQLite":
            _dump_tables(source, args, out)
        else:
            raise needs_model(source, kind)
    return 0
