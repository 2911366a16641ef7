"""The read-only commands: info, entities, schema, explain."""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
from typing import Any, Dict, List, TextIO

from ..coordinator import Coordinator
from ._store import ToolError, close, load_model, open_store, store_type

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
    kind = store_type(args.store, args.type)
    metadata: Dict[str, Any] = Coordinator.metadata_for_store(args.store, kind)
    out.write(f"store:   {args.store}\n")
    out.write(f"type:    {metadata.get('NSStoreType', kind)}\n")
    out.write(f"uuid:    {metadata.get('NSStoreUUID', '')}\n")
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


def entities(args: argparse.Namespace, out: TextIO) -> int:
    """Each entity of the store's model with its number of rows."""
    ctx, _ = open_store(args.store, args.model, args.type)
    try:
        rows: List[List[str]] = [["entity", "rows", "superentity"]]
        for entity in sorted(ctx.coordinator.model.entities, key=lambda e: e.name):
            own = ctx.count(entity.name, include_subentities=False)
            total = ctx.count(entity.name)
            count = str(own) if own == total else f"{own} ({total} with subentities)"
            if entity.abstract:
                count += " abstract"
            superentity = entity.superentity.name if entity.superentity is not None else ""
            rows.append([entity.name, count, superentity])
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() + "\n")
    finally:
        close(ctx)
    return 0


def _schema_of(path: str) -> List[str]:
    """The SQL statements that make the tables and indexes of the SQLite file at ``path``."""
    uri = "file:" + os.path.abspath(path) + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise ToolError(f"{path}: {exc}") from None
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
        if store_type(args.store, args.type) != "SQLite":
            raise ToolError(f"{args.store}: only SQLite stores have an SQL schema")
        statements = _schema_of(args.store)
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
    are filtered or sorted in memory."""
    ctx, _ = open_store(args.store, args.model, args.type)
    try:
        out.write(ctx.explain(args.entity, args.where, sort=args.sort or None, limit=args.limit).rstrip("\n") + "\n")
    finally:
        close(ctx)
    return 0
