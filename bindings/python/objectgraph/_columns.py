"""Values of a fetch result read a column at a time.

Reading ``obj.pages`` costs one foreign call per object. A fetch of many objects
keeps its og_results here instead; the first read of an integer or double slot
asks the library for that slot of every object of the result in one call
(og_results_read_int64_columns / _double_columns), and later reads of that slot
index the column: the buffer the library filled, seen through a typed memoryview,
or a list where some values are NULL. The first column is read alone (a loop may
read one attribute only); the second read of a new column reads every remaining
column of its kind at once, in one pass over the objects rather than one pass per
column.

Objects the bulk read leaves out (faults without their row, objects whose hooks
must run) stop reading through the cache when their column is read in: the
accessors return a cached value without checking it.

The values hold until anything in the context changes (a set, a rollback, a
refresh, a hook...). The library reports the first such change
(og_context_on_next_value_change) by calling back here, which clears the flag
the context's column caches share (``live``): a read checks that flag, a list
item, and every read after the change goes to the object itself. The library's
change counter (og_context_change_counter) is checked too when a column is read
in.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any, Dict, List, Optional, Sequence

from ._call import call
from ._handle import OwnedHandle
from ._lib import BLOCK_FN, lib

# A value the bulk read left out (the object is a fault without its row, or has hooks).
NOT_READ = object()
# Smaller results are read object by object: the bulk set-up would not pay off.
MIN_OBJECTS = 32

_STATE_VALUE, _STATE_NIL, _STATE_NOT_READ = 1, 0, 2


# What a Columns reads once its context is gone: a counter its epoch never equals.
_DEAD = ctypes.c_uint64(0)


class Columns(OwnedHandle):
    """One fetch result's og_results, and the columns read from it so far."""

    def __init__(self, results: Optional[int], counter: ctypes.c_uint64, count: int, live: List[bool],
                 handles: Sequence[int] = (), wrappers: Optional[Dict[int, Any]] = None) -> None:
        # Every attribute set in this order, so that all instances share one layout of
        # their __dict__ and the accessors' reads of `live` and `by_slot` stay specialised.
        self._h = results
        self._closed = results is None
        # The flag every column cache of the context made since its last change shares:
        # cleared at the next change (ValueWatch), never set again.
        self.live = live
        self.counter = counter  # the context's change counter
        self.epoch = counter.value
        self.count = count
        # The thread that fetched: only it reads new columns, so that any other thread's
        # first read of a column reaches the library, which refuses it (WrongThreadError) as
        # it refuses every call on a context from a thread that does not own it.
        self.thread = threading.get_ident()
        # Slot -> one value per result (None: not read yet). A list, not a dict: reads index it.
        # A column is a typed memoryview of the numbers read, or a list where some are NULL.
        self.by_slot: List[Optional[Sequence[Any]]] = []
        # Each result's object handle, and the context's weak references to its wrappers by
        # handle: to find the wrappers of objects the bulk read cannot serve (_stop_serving).
        self.handles = handles
        self.wrappers = wrappers

    def _release(self) -> None:
        lib.og_results_release(self._h)

    def detach(self) -> None:
        """The context is closing: nothing read here holds any longer."""
        self.live = [False]
        self.counter = _DEAD
        self.epoch = -1
        self.close()

    @property
    def valid(self) -> bool:
        return (not self._closed and self.live[0] and self.counter.value == self.epoch
                and self.thread == threading.get_ident())

    def load(self, slot: int, doubles: bool, kin: Sequence[int] = ()) -> Optional[Sequence[Any]]:
        """Reads column ``slot`` (None when the values no longer hold or the read fails).
        ``kin`` lists the other slots of the same kind: once one column has been read,
        the columns of ``kin`` not read yet are read with it."""
        if not self.valid:
            return None
        wanted = [slot]
        if any(c is not None for c in self.by_slot):
            wanted += [k for k in kin if k != slot and (k >= len(self.by_slot) or self.by_slot[k] is None)]
        n, width = self.count, len(wanted)
        values = (ctypes.c_double * (n * width))() if doubles else (ctypes.c_int64 * (n * width))()
        states = (ctypes.c_uint8 * (n * width))()
        if width == 1:
            read_one = lib.og_results_read_doubles if doubles else lib.og_results_read_int64s
            call(read_one, self._h, slot, ctypes.addressof(values), ctypes.addressof(states), n)
        else:
            slots = (ctypes.c_size_t * width)(*wanted)
            read = lib.og_results_read_double_columns if doubles else lib.og_results_read_int64_columns
            call(read, self._h, ctypes.addressof(slots), width, ctypes.addressof(values), ctypes.addressof(states), n)
        cells = memoryview(values).cast("B").cast("d" if doubles else "q")
        raw_all = bytes(states)
        columns: List[Sequence[Any]] = []
        unserved: List[int] = []
        for k in range(width):
            # A column without NULLs stays in the buffer the library filled, and a read makes
            # its Python number then: making them all up front costs more than the reads save,
            # and a number made and dropped at once is still in the processor's cache.
            numbers = cells[k * n:(k + 1) * n]
            column: Sequence[Any] = numbers
            raw = raw_all[k * n:(k + 1) * n]
            if raw.count(_STATE_VALUE) != n:
                # memoryview's tolist converts in C; list() of a ctypes array goes item by item.
                column = [v if s == _STATE_VALUE else (None if s == _STATE_NIL else NOT_READ)
                          for v, s in zip(numbers.tolist(), raw)]
                if _STATE_NOT_READ in raw:
                    unserved += [i for i, v in enumerate(column) if v is NOT_READ]
            columns.append(column)
        # Reading fired objects: a change the read caused (none: only hook-free objects
        # are read) would show in the counter.
        if not self.live[0] or self.counter.value != self.epoch:
            return None
        if unserved:
            self._stop_serving(unserved)
        top = max(wanted)
        if len(self.by_slot) <= top:
            self.by_slot.extend([None] * (top + 1 - len(self.by_slot)))
        for k, column in zip(wanted, columns):
            self.by_slot[k] = column
        return columns[0]

    def _stop_serving(self, rows: Sequence[int]) -> None:
        """Points the wrappers of the objects at ``rows``, whose values the bulk read left
        out, at no column cache: their reads go to the library from now on. The accessors
        return a cached cell without looking at it, so no wrapper may read such a cell."""
        wrappers = self.wrappers
        if wrappers is None:
            return
        for row in set(rows):
            ref = wrappers.get(self.handles[row])
            wrapper = ref() if ref is not None else None
            if wrapper is not None and wrapper._columns is self and wrapper._row == row:
                wrapper._columns = NO_COLUMNS


# The column cache of objects read from no large result: never live.
NO_COLUMNS = Columns(None, _DEAD, 0, [False])


class ValueWatch:
    """A context's flag for its column caches (``live``), and the library's report of the
    context's next change that clears it (og_context_on_next_value_change).

    The report goes through one callback for the whole process, with a number that
    names the flag: a context's wrapper may go while the library's context lives on (a
    context the library lent), and a callback made per context would be freed under it.
    The callback runs in the middle of the library's change, so it must not call the
    library, nor make objects the cycle collector tracks (a collection could run a
    finaliser that calls it): it takes the flag out of a dict and clears it, nothing else."""

    __slots__ = ("live", "number")

    def __init__(self) -> None:
        self.live: List[bool] = [False]
        self.number = 0

    def current(self, context: Optional[int]) -> List[bool]:
        """The flag for a new column cache of context handle ``context``: the one set since
        the last change, or a new one the library is asked to clear at the next."""
        if self.live[0]:
            return self.live
        live = [True]
        number = next(_numbers)
        _watched[number] = live
        try:
            call(lib.og_context_on_next_value_change, context, _on_value_change, number)
        except BaseException:
            del _watched[number]
            raise
        # (The flag set before was taken out of _watched when its report came.)
        self.live, self.number = live, number
        return live

    def end(self) -> None:
        """The context is closing: its caches no longer hold, and no report will come."""
        self.live[0] = False
        _watched.pop(self.number, None)


# Flags waiting for their context's next change, by number.
_watched: Dict[int, List[bool]] = {}
_numbers = itertools.count(1)


def _value_changed(number: Optional[int]) -> None:
    live = _watched.pop(number, None)  # type: ignore[arg-type]
    if live is not None:
        live[0] = False


_on_value_change = BLOCK_FN(_value_changed)
