"""The store tool: ``objectgraph COMMAND ...`` or ``python -m objectgraph COMMAND ...``.

Looks inside ObjectGraph and Core Data stores. Works on stores written by
Apple's Core Data without their model file: an SQLite store keeps the model
that wrote it (Z_MODELCACHE), and every command that needs a model uses it
unless ``--model`` names one (of a versioned folder, the version that wrote
the store), and a store that keeps no model is read from its own tables where
that is enough. The tool changes no byte of a store it reads, nor adds a file
beside it: stores are opened read-only, and one SQLite could read only by
writing (a -wal without its -shm, an interrupted save's journal) is read from
a copy. ``convert`` and ``migrate`` write a new file. Wherever a store file is
taken, a PostgreSQL store's URL is taken too (its default schema); its
password is never printed."""

from __future__ import annotations

import argparse
import io
import sqlite3
import sys
from typing import Callable, Dict, List, Optional, TextIO, cast

from ..errors import Error
from ._errors import ToolError
from ._files import is_address, redact

__all__ = ["main"]

Command = Callable[[argparse.Namespace, TextIO], int]

_MODEL_HELP = ("the store's model file (default: the one the store keeps); of an .xcdatamodeld or .momd, "
               "the version that wrote the store")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="objectgraph",
        description="Look inside ObjectGraph and Core Data stores without changing them; without --model, an "
                    "SQLite store's own cached model (Z_MODELCACHE) is used.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, help: str, store: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        if store:
            sub.add_argument("store", help="the store file, or a PostgreSQL store's URL")
            sub.add_argument("--type", help="the store type (default: found from the file)")
        return sub

    command("info", "the store's type, UUID, metadata and entity version hashes")

    sub = command("entities", "the entities of the store's model with their row counts")
    sub.add_argument("--model", help=_MODEL_HELP)

    def fetch_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("entity", help="the entity to fetch (subentities included)")
        sub.add_argument("--model", help=_MODEL_HELP)
        sub.add_argument("--where", help="a predicate, e.g. \"pages > 300 AND title BEGINSWITH 'S'\"")
        sub.add_argument("--sort", action="append", metavar="KEY",
                         help="a sort key; --sort=-KEY sorts descending; repeat for more keys")
        sub.add_argument("--limit", type=int, help="at most this many rows")

    sub = command("dump", "an entity's rows as JSON or CSV")
    fetch_options(sub)
    sub.add_argument("--format", choices=["json", "csv"], default="json")
    sub.add_argument("--relationships", action="store_true", help="include to-many relationships (as URI lists)")

    sub = command("check", "whether a model opens a store, and what differs when it does not", store=False)
    sub.add_argument("model", help="the model file (.json, .xcdatamodel, .xcdatamodeld, .mom, .momd)")
    sub.add_argument("store", help="the store file, or a PostgreSQL store's URL")
    sub.add_argument("--type", help="the store type (default: found from the file)")
    sub.add_argument("--configuration", help="check only this configuration of the model")

    sub = commands.add_parser("schema", help="the SQL schema of an SQLite store, or of the store a model makes",
                              description="The SQL schema of an SQLite store (STORE), or of the store a model "
                                          "makes (--model alone).")
    sub.add_argument("store", nargs="?", help="the store file, or a PostgreSQL store's URL")
    sub.add_argument("--model", help="a model file: its schema, when no store is given")
    sub.add_argument("--type", help="the store type (default: found from the file)")

    sub = command("explain", "the SQL a fetch runs, and whether rows are filtered or sorted in memory")
    fetch_options(sub)

    sub = command("convert", "copy a store into a store of another type (same model, a new UUID)")
    sub.add_argument("destination", help="the new store file, or a PostgreSQL URL")
    sub.add_argument("--to", required=True, help="the new store's type: SQLite, Binary or XML")
    sub.add_argument("--model", help=_MODEL_HELP)
    sub.add_argument("--force", action="store_true", help="replace the destination when it exists")

    sub = command("migrate", "migrate a store to another version of its model")
    sub.add_argument("--to-model", required=True, help="the model to migrate to")
    sub.add_argument("--model", help=_MODEL_HELP)
    sub.add_argument("--mapping", help="a mapping model file (default: the inferred mapping)")
    sub.add_argument("--output", help="write the migrated store here (default: replace the store)")
    sub.add_argument("--to", help="the migrated store's type (default: the store's)")
    sub.add_argument("--force", action="store_true", help="replace --output when it exists")

    for name in ("codegen", "stubs"):  # stubs: the command's first name
        sub = commands.add_parser(
            name, help="a Python module with one typed class per entity of a model, for run time and mypy",
            description="Writes a Python module with one class per entity of a model, declared for its entity: "
                        "import it, then ctx.fetch(Book, ...) returns Book objects, typed for mypy --strict. "
                        "The file is also a valid .pyi stub.")
        sub.add_argument("model", help="the model file")
        sub.add_argument("-o", "--output", help="the .py (or .pyi) file (default: standard output)")
    return parser


def _commands() -> Dict[str, Command]:
    from .check import check
    from .convert import convert, migrate
    from .dump import dump
    from .inspect import entities, explain, info, schema
    from .codegen import codegen

    return {"info": info, "entities": entities, "dump": dump, "check": check, "schema": schema,
            "explain": explain, "convert": convert, "migrate": migrate, "codegen": codegen, "stubs": codegen}


def main(argv: Optional[List[str]] = None, out: Optional[TextIO] = None) -> int:
    """Runs one command; returns the exit status (0 done, 1 an incompatible
    store for ``check``, 2 an error)."""
    args = _parser().parse_args(argv)
    target = out if out is not None else sys.stdout
    # Server URLs given on the command line are printed without their passwords.
    addresses = [value for value in vars(args).values() if isinstance(value, str) and is_address(value)]
    stream: TextIO = cast(TextIO, _Redacting(target, addresses)) if addresses else target
    try:
        return _commands()[args.command](args, stream)
    except BrokenPipeError:  # `objectgraph dump ... | head`
        return 0
    except (ToolError, Error, OSError, sqlite3.Error) as exc:
        stream.flush()
        print(redact(f"objectgraph {args.command}: {exc}", addresses), file=sys.stderr)
        return 2


class _Redacting(io.TextIOBase):
    """Writes to ``target`` with the passwords of ``addresses`` removed."""

    def __init__(self, target: TextIO, addresses: List[str]) -> None:
        self._target = target
        self._addresses = addresses

    def write(self, text: str) -> int:
        self._target.write(redact(text, self._addresses))
        return len(text)

    def flush(self) -> None:
        self._target.flush()


def run() -> None:
    """The console script's entry point."""
    sys.exit(main())
