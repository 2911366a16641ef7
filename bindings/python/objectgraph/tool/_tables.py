"""An SQLite store read from its own tables, for stores that keep no model.

Core Data kept no model in its stores (Z_MODELCACHE) before macOS 10.13 and
iOS 11, and a cache can be removed; such a store still names its entities, their
numbers and superentities in Z_PRIMARYKEY, and its tables hold the rows (every
row's entity number in Z_ENT, its key in Z_PK). That is enough to count rows and
to write them out with their columns as the file names them, without a model
file. Entities are named as Z_PRIMARYKEY names them, which is the file's own
record even where a model later renamed them."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ._errors import ToolError

__all__ = ["StoredEntity", "stored_entities", "family", "dump_columns", "count_rows", "read_rows"]

# Bookkeeping columns: the key and the entity number make the object's URI, Z_OPT
# counts its saves; none of them is a property.
_BOOKKEEPING = ("Z_PK", "Z_ENT", "Z_OPT")


@dataclass(frozen=True)
class StoredEntity:
    """One row of Z_PRIMARYKEY, with the table that holds its rows."""

    name: str
    number: int
    superentity: int  # Z_SUPER: 0 for an entity without one
    table: Optional[str]  # None when no table holds its rows (it has none)
    rows: int  # rows of this entity itself, subentities not counted


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _columns(db: sqlite3.Connection, table: str) -> List[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({_quoted(table)})")]


def _rows_by_number(db: sqlite3.Connection) -> Dict[int, Tuple[str, int]]:
    """Entity number -> (the table holding its rows, their number), from every
    table with Z_PK and Z_ENT columns (entity tables; join tables have neither)."""
    found: Dict[int, Tuple[str, int]] = {}
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for table in tables:
        columns = {column.upper() for column in _columns(db, table)}
        if not {"Z_PK", "Z_ENT"} <= columns:
            continue
        for number, count in db.execute(f"SELECT Z_ENT, COUNT(*) FROM {_quoted(table)} GROUP BY Z_ENT"):
            if isinstance(number, int):
                found[number] = (table, count)
    return found


def stored_entities(db: sqlite3.Connection, path: str) -> Dict[str, StoredEntity]:
    """The entities of the store, by name, as its Z_PRIMARYKEY records them."""
    try:
        keys = db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").fetchall()
        rows = _rows_by_number(db)
        tables = {row[0].upper(): row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise ToolError(f"{path}: cannot read its entities from Z_PRIMARYKEY: {exc}") from None
    supers = {number: (superentity or 0) for number, _, superentity in keys}
    names = {number: str(name) for number, name, _ in keys}
    roots = {number: _lineage(number, supers)[-1] for number in supers}
    # Subentities share their root's table: the one holding any of their rows, else
    # (no rows yet) the one Core Data names after the root entity.
    table_by_root: Dict[int, str] = {}
    for number, (table, _) in rows.items():
        table_by_root.setdefault(roots.get(number, number), table)

    def table_of(number: int) -> Optional[str]:
        root = roots[number]
        return table_by_root.get(root) or tables.get("Z" + names.get(root, "").upper())

    return {names[number]: StoredEntity(names[number], number, supers[number], table_of(number),
                                        rows.get(number, ("", 0))[1])
            for number in supers}


def _lineage(number: int, supers: Dict[int, int]) -> List[int]:
    """The entity numbered ``number`` and its superentities, up to its root."""
    line = [number]
    while supers.get(line[-1], 0) and supers[line[-1]] not in line:
        line.append(supers[line[-1]])
    return line


def family(entities: Dict[str, StoredEntity], name: str) -> List[StoredEntity]:
    """The entity named ``name`` and every entity below it."""
    if name not in entities:
        known = ", ".join(sorted(entities)) or "none"
        raise ToolError(f"no entity {name!r} in the store (its entities: {known})")
    supers = {entity.number: entity.superentity for entity in entities.values()}
    top = entities[name].number
    return sorted((entity for entity in entities.values() if top in _lineage(entity.number, supers)),
                  key=lambda entity: entity.number)


def dump_columns(db: sqlite3.Connection, entities: Sequence[StoredEntity]) -> List[str]:
    """The columns written for ``entities`` (one table): all but the bookkeeping ones."""
    table = next((entity.table for entity in entities if entity.table), None)
    if table is None:
        return []
    return [column for column in _columns(db, table) if column.upper() not in _BOOKKEEPING]


def _order(db: sqlite3.Connection, table: str, sort: Sequence[str]) -> str:
    """ORDER BY for ``--sort`` keys naming columns as the file does, in any case,
    or as properties (``name`` for ZNAME, Core Data's column for it); ``-KEY``
    descends. The key comes last, so the order is total."""
    columns = {column.upper(): column for column in _columns(db, table)}
    terms = []
    for key in sort:
        descending = key.startswith("-")
        name = key.lstrip("-").upper()
        column = columns.get(name) or columns.get("Z" + name)
        if column is None:
            names = ", ".join(c for c in columns.values() if c.upper() not in ("Z_ENT", "Z_OPT"))
            raise ToolError(f"no column {key.lstrip('-')!r} to sort by in {table} (its columns: {names}); "
                            "without a model, sort keys are column names")
        terms.append(_quoted(column) + (" DESC" if descending else ""))
    return " ORDER BY " + ", ".join(terms + ["Z_PK"])


def _where(entities: Sequence[StoredEntity]) -> Tuple[str, List[int]]:
    numbers = [entity.number for entity in entities]
    return f" WHERE Z_ENT IN ({', '.join('?' for _ in numbers)})", numbers


def count_rows(entities: Sequence[StoredEntity], limit: Optional[int] = None) -> int:
    """The rows of ``entities``, at most ``limit``."""
    total = sum(entity.rows for entity in entities)
    return total if limit is None else min(total, max(limit, 0))


def read_rows(db: sqlite3.Connection, entities: Sequence[StoredEntity], *, sort: Sequence[str] = (),
              limit: Optional[int] = None) -> Iterator[Tuple[StoredEntity, int, Dict[str, Any]]]:
    """The rows of ``entities`` (an entity and its subentities, one table): each
    with its entity, its key (Z_PK) and its columns as :func:`dump_columns` lists them."""
    table = next((entity.table for entity in entities if entity.table), None)
    if table is None:
        return
    columns = dump_columns(db, entities)
    where, numbers = _where(entities)
    sql = (f"SELECT Z_ENT, Z_PK{''.join(', ' + _quoted(c) for c in columns)} FROM {_quoted(table)}"
           f"{where}{_order(db, table, sort)}")
    arguments: List[Any] = list(numbers)
    if limit is not None:
        sql += " LIMIT ?"
        arguments.append(max(limit, 0))
    by_number = {entity.number: entity for entity in entities}
    for row in db.execute(sql, arguments):
        yield by_number[row[0]], row[1], dict(zip(columns, row[2:]))
