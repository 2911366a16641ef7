"""The read-only commands: info, entities, schema, explain. Each reads the
store through ``readable`` and opens it read-only, so no byte of it, or of the
files beside it, changes."""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
from typing import Any, Dict, List, TextIO

from ..context import Context
from ..coordinator import Coordinator
from ._files import connect_read_only, is_address, readable
from ._store import (ToolError, load_model, model_for, needs_model, read_only_context, store_metadata, store_model,
                     store_type)
from ._tables import count_rows, family, stored_entities

__all__ = ["info", "entities", "schema", "explain"]

_VERSION_HASHES = "NSStoreModelVersionHashes"


def _plain(value: Any) -> str:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value)
    return str(value)


def info(args: argparse.Namespace, out: TextIO) -> int:
    """Type, UUID, metadata and the entity version hashes of a store file."""
    with readable(args.store) as source:
        metadata: Dict[str, Any] = store_metadata(source, args.type)
        kind = store_type(source, args.type)
    out.write(f"store:   {args.store}\n")
    out.write(f"type:    {metadata.get('NSStoreType', kind)}\n")
    out.write(f"uuid:    {metadata.get('NSStoreUUID', '')}\n")
    if not is_address(args.store):
        out.write(f"size:    {os.path.getsize(args.store)} bytes\n")
    out.write("metadata:\n")
    for key in sorted(metadata):
        if key in ("NSStoreType", "NSStoreUUID", _VERSION_HASHES):
            continue
        out.write(f"  {key}: {_plain(metadata[key])}\n")
    hashes = metadata.get(_VERSION_HASHES) or {}
    out.write(f"version hashes ({len(hashes)} entities):\n")
    width = max((len(name) for name in hashes), default=0)
    for name in sorted(hashes):
        out.write(f"  {name:<{width}}  {_plain(hashes[name])}\n")
    return 0


def _write_table(rows: List[List[str]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() + "\n")


def _counted(own: int, total: int) -> str:
    return str(own) if own == total else f"{own} ({total} with subentities)"


def _model_rows(ctx: Context) -> List[List[str]]:
    """Each entity of the context's model: name, rows, superentity."""
    rows = []
    for entity in sorted(ctx.coordinator.model.entities, key=lambda e: e.name):
        count = _counted(ctx.count(entity.name, include_subentities=False), ctx.count(entity.name))
        if entity.abstract:
            count += " abstract"
        superentity = entity.superentity.name if entity.superentity is not None else ""
        rows.append([entity.name, count, superentity])
    return rows


def _table_rows(path: str) -> List[List[str]]:
    """Each entity as the store's Z_PRIMARYKEY names it, for a store that keeps
    no model: whether an entity is abstract only a model says."""
    db = connect_read_only(path)
    try:
        found = stored_entities(db, path)
    finally:
        db.close()
    names = {entity.number: entity.name for entity in found.values()}
    return [[name, _counted(found[name].rows, count_rows(family(found, name))), names.get(found[name].superentity, "")]
            for name in sorted(found)]


def entities(args: argparse.Namespace, out: TextIO) -> int:
    """Each entity of the store's model with its number of rows; for an SQLite
    store that keeps no model, each entity its Z_PRIMARYKEY records."""
    with readable(args.store) as source:
        kind = store_type(source, args.type)
        model = model_for(source, args.model, kind)
        if model is not None:
            with read_only_context(source, model, kind) as ctx:
                rows = _model_rows(ctx)
        elif kind == "SQLite":
            rows = _table_rows(source)
        else:
            raise needs_model(source, kind)
    _write_table([["entity", "rows", "superentity"]] + rows, out)
    return 0


def _schema_of(path: str) -> List[str]:
    """The SQL statements that make the tables and indexes of the SQLite file at ``path``."""
    db = connect_read_only(path)
    try:
        rows = db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
                          "ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, tbl_name, name").fetchall()
    except sqlite3.Error as exc:
        raise ToolError(f"{path}: {exc}") from None
    finally:
        db.close()
    return [row[0] for row in rows]


def schema(args: argparse.Namespace, out: TextIO) -> int:
    """The SQL of an SQLite store, or of the store a model would make (--model alone)."""
    if args.store:
        with readable(args.store) as source:
            if store_type(source, args.type) != "SQLite":
                raise ToolError(f"{args.store}: only SQLite stores have an SQL schema")
            statements = _schema_of(source)
    elif args.model:
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "schema.sqlite")
            coordinator = Coordinator(load_model(args.model))
            coordinator.add_store("SQLite", path, pragmas={"journal_mode": "DELETE"})
            coordinator.close()
            statements = _schema_of(path)
    else:
        raise ToolError("schema needs a store file or --model")
    for statement in statements:
        out.write(statement.strip() + ";\n")
    return 0


def explain(args: argparse.Namespace, out: TextIO) -> int:
    """The SQL a fetch runs, its bound values and query plan, and whether rows
    are filtered or sorted in memory. Needs the store's model (a fetch is planned
    from it): a store that keeps none needs --model."""
    with readable(args.store) as source:
        kind = store_type(source, args.type)
        with read_only_context(source, store_model(source, args.model, kind), kind) as ctx:
            text = ctx.explain(args.entity, args.where, sort=args.sort or None, limit=args.limit)
    out.write(text.replace(source, args.store).rstrip("\n") + "\n")
    return 0
