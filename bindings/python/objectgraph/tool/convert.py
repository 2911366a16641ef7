"""convert (another store type, same model) and migrate (another model)."""

from __future__ import annotations

import argparse
import os
from typing import Optional, TextIO

from ..migration import MappingModel, MigrationManager
from ..model import Model
from ._progress import Progress
from ._store import ToolError, close, load_model, open_store, store_model, store_type

__all__ = ["convert", "migrate"]


def _fresh(path: str, force: bool) -> None:
    if os.path.exists(path):
        if not force:
            raise ToolError(f"{path} exists; give --force to replace it")
        for old in (path, path + "-wal", path + "-shm"):
            if os.path.exists(old):
                os.remove(old)


def convert(args: argparse.Namespace, out: TextIO) -> int:
    """Copies every row, relationship and key counter into a store of another
    type; the copy keeps the store's UUID."""
    _fresh(args.destination, args.force)
    ctx, store = open_store(args.store, args.model, args.type, read_only=True)
    try:
        copy = ctx.coordinator.migrate_store(store, args.destination, args.to, read_only=False)
        out.write(f"{args.store} ({store_type(args.store, args.type)}) -> {copy.path} ({copy.type})\n")
    finally:
        close(ctx)
    return 0


def migrate(args: argparse.Namespace, out: TextIO) -> int:
    """Migrates the store to ``--to-model`` through a mapping model file, or the
    inferred mapping; writes ``--output`` (default: in place)."""
    kind = store_type(args.store, args.type)
    source: Model = store_model(args.store, args.model, kind)
    destination = load_model(args.to_model)
    mapping: Optional[MappingModel] = MappingModel.load(args.mapping) if args.mapping else None
    output = args.output or args.store + ".migrating"
    _fresh(output, args.force or not args.output)
    progress = Progress("migrate")
    manager = MigrationManager(source, destination)
    try:
        manager.migrate(args.store, output, mapping, source_type=kind, destination_type=args.to or kind,
                        progress=progress.fraction)
    finally:
        progress.finish()
        manager.close()
    if not args.output:
        for suffix in ("-wal", "-shm"):
            if os.path.exists(args.store + suffix):
                os.remove(args.store + suffix)
            if os.path.exists(output + suffix):
                os.replace(output + suffix, args.store + suffix)
        os.replace(output, args.store)
        output = args.store
    out.write(f"migrated {args.store} -> {output}\n")
    return 0
