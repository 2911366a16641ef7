"""The rows of a batch insert packed column by column (og_batch_column), so that
the library reads them in bulk instead of one boxed value per row and key. Rows
whose columns are not each all integers, all floats or all strings (nil and
absent keys allowed) are left to the row-by-row path, which converts anything."""

from __future__ import annotations

import ctypes
from array import array
from itertools import chain
from operator import itemgetter
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Tuple

__all__ = ["BatchColumn", "PackedColumns", "pack_columns"]

# A packed column: its og_column_type, its values' buffer, and its states (or None).
Packed = Tuple[int, Any, Optional[array]]  # type: ignore[type-arg]

# og_column_type and og_column_state
_INT64, _DOUBLE, _TEXT = 1, 2, 3
_VALUE, _NIL, _ABSENT = 0, 1, 2


class _Absent:
    """A key a row leaves out: the attribute takes its default."""


_MISSING = _Absent()


class BatchColumn(ctypes.Structure):
    """og_batch_column."""

    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("values", ctypes.c_void_p), ("states", ctypes.c_void_p)]


class PackedColumns:
    """Columns ready for og_context_batch_insert_columns; holds the buffers they point into."""

    def __init__(self, columns: List[BatchColumn], buffers: List[Any], row_count: int) -> None:
        self.array = (BatchColumn * len(columns))(*columns)
        self.count = len(columns)
        self.row_count = row_count
        self._buffers = buffers


def pack_columns(rows: Sequence[Mapping[str, Any]]) -> Optional[PackedColumns]:
    """``rows`` by column, or None when some column needs the row-by-row path."""
    if not rows or set(map(type, rows)) != {dict}:
        return None
    names = list(rows[0])
    # Every row with the first row's keys (the common case): each column is read with
    # C-level calls only. Otherwise a key a row leaves out is marked absent.
    same = bool(names) and set(map(len, rows)) == {len(names)}
    if not same:
        names = list(dict.fromkeys(chain.from_iterable(rows)))
    columns: List[BatchColumn] = []
    buffers: List[Any] = []
    for name in names:
        if not isinstance(name, str):
            return None
        try:
            packed = _pack_present(map(itemgetter(name), rows), rows, name) if same else None
        except KeyError:  # as many keys, other names
            return pack_columns_general(rows)
        if packed is None:
            packed = _pack([row.get(name, _MISSING) for row in rows])
        if packed is None:
            return None
        kind, data, states = packed
        encoded = name.encode("utf-8")
        buffers += [encoded, data, states]
        columns.append(BatchColumn(encoded, kind, _address(data), _address(states) if states is not None else None))
    return PackedColumns(columns, buffers, len(rows))


def pack_columns_general(rows: Sequence[Mapping[str, Any]]) -> Optional[PackedColumns]:
    """As pack_columns, for rows whose keys differ."""
    names = list(dict.fromkeys(chain.from_iterable(rows)))
    columns: List[BatchColumn] = []
    buffers: List[Any] = []
    for name in names:
        packed = _pack([row.get(name, _MISSING) for row in rows]) if isinstance(name, str) else None
        if packed is None:
            return None
        kind, data, states = packed
        encoded = name.encode("utf-8")
        buffers += [encoded, data, states]
        columns.append(BatchColumn(encoded, kind, _address(data), _address(states) if states is not None else None))
    return PackedColumns(columns, buffers, len(rows))


def _pack_present(values: Iterator[Any], rows: Sequence[Mapping[str, Any]], name: str) -> Optional[Packed]:
    """A column every row has, when all integers or all floats (array reads them in C);
    None for anything else, which _pack sorts out."""
    try:
        return _INT64, array("q", values), None
    except (TypeError, OverflowError):
        pass
    getter = itemgetter(name)
    if set(map(type, map(getter, rows))) == {float}:
        return _DOUBLE, array("d", map(getter, rows)), None
    return None


def _pack(values: List[Any]) -> Optional[Packed]:
    kinds = set(map(type, values))
    states = None
    if kinds & {type(None), _Absent}:
        states = array("B", [_NIL if v is None else _ABSENT if v is _MISSING else _VALUE for v in values])
        kinds -= {type(None), _Absent}
        values = [0 if v is None or v is _MISSING else v for v in values]
    try:
        if kinds <= {int, bool}:
            return _INT64, array("q", values), states
        if kinds == {float}:
            return _DOUBLE, array("d", [0.0 if v == 0 and type(v) is int else v for v in values]) if states else array("d", values), states
    except OverflowError:  # an integer beyond 64 bits: the row path reports it
        return None
    if kinds == {str}:
        texts = [v.encode("utf-8") if type(v) is str else None for v in values]
        return _TEXT, (ctypes.c_char_p * len(texts))(*texts), states
    return None


def _address(buffer: Any) -> int:
    if isinstance(buffer, array):
        return buffer.buffer_info()[0] if len(buffer) else 0
    return ctypes.addressof(buffer)
