"""convert (another store type, same model) and migrate (another model).

Both read the store as the read-only commands do (``readable``) and write a new
file; ``migrate`` without ``--output`` then puts it in the store's place."""

from __future__ import annotations

import argparse
import os
from typing import Optional, TextIO

from ..migration import MappingModel, MigrationManager
from ..model import Model
from ._progress import Progress
from ._files import is_address, readable, require_writable_folder
from ._store import ToolError, load_model, read_only_context, store_model, store_type

__all__ = ["convert", "migrate"]


def _fresh(path: str, force: bool) -> None:
    if is_address(path):
        return  # a store already on the server is refused by the copy, never replaced
    if os.path.exists(path):
        if not force:
            raise ToolError(f"{path} exists; give --force to replace it")
        for old in (path, path + "-wal", path + "-shm", path + "-journal"):
            if os.path.exists(old):
                os.remove(old)


def convert(args: argparse.Namespace, out: TextIO) -> int:
    """Copies every row, relationship and key counter into a store of another
    type; the copy gets a new UUID, as Core Data gives it."""
    require_writable_folder(args.destination)
    _fresh(args.destination, args.force)
    with readable(args.store) as source:
        kind = store_type(source, args.type)
        with read_only_context(source, store_model(source, args.model, kind), kind) as ctx:
            copy = ctx.coordinator.migrate_store(ctx.coordinator.stores[0], args.destination, args.to, read_only=False)
            out.write(f"{args.store} ({kind}) -> {copy.path} ({copy.type})\n")
    return 0


def migrate(args: argparse.Namespace, out: TextIO) -> int:
    """Migrates the store to ``--to-model`` through a mapping model file, or the
    inferred mapping; writes ``--output`` (default: in place). The store is read
    without being changed; in place, it is replaced only once the migration is done."""
    if is_address(args.store) and not args.output:
        raise ToolError("a store on a server is not migrated in place; give --output (a file or a URL)")
    output = args.output or args.store + ".migrating"
    require_writable_folder(output)
    _fresh(output, args.force or not args.output)
    with readable(args.store) as store:
        kind = store_type(store, args.type)
        source: Model = store_model(store, args.model, kind)
        destination = load_model(args.to_model)
        mapping: Optional[MappingModel] = MappingModel.load(args.mapping) if args.mapping else None
        progress = Progress("migrate")
        manager = MigrationManager(source, destination)
        try:
            manager.migrate(store, output, mapping, source_type=kind, destination_type=args.to or kind,
                            progress=progress.fraction)
        finally:
            progress.finish()
            manager.close()
    if not args.output:
        # The old store's -wal, -shm and -journal belong to it: beside the new file
        # SQLite would read them as its own.
        for suffix in ("-wal", "-shm", "-journal"):
            if os.path.exists(args.store + suffix):
                os.remove(args.store + suffix)
            if os.path.exists(output + suffix):
                os.replace(output + suffix, args.store + suffix)
        os.replace(output, args.store)
        output = args.store
    out.write(f"migrated {args.store} -> {output}\n")
    return 0
