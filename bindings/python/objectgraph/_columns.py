"""Values of a fetch result read a column at a time.

Reading ``obj.pages`` costs one foreign call per object. A fetch of many objects
keeps its og_results here instead; the first read of an integer or double slot
asks the library for that slot of every object of the result in one call
(og_results_read_int64s / _doubles), and later reads of that slot are list
lookups. The values hold while the context's change counter
(og_context_change_counter) is what it was when the result was fetched: any
change to any object of the context (a set, a rollback, a refresh, a hook...)
sends every read back to the per-object calls, which are always right.
"""

from __future__ import annotations

import ctypes
from typing import Any, List, Optional

from ._handle import OwnedHandle
from ._lib import lib
from ._util import check

# A value the bulk read left out (the object is a fault without its row, or has hooks).
NOT_READ = object()
# Smaller results are read object by object: the bulk set-up would not pay off.
MIN_OBJECTS = 32

_STATE_VALUE, _STATE_NIL = 1, 0


# What a Columns reads once its context is gone: a counter its epoch never equals.
_DEAD = ctypes.c_uint64(0)


class Columns(OwnedHandle):
    """One fetch result's og_results, and the columns read from it so far."""

    def __init__(self, results: int, counter: ctypes.c_uint64, count: int) -> None:
        self._h = results
        self._closed = False
        self.counter = counter  # the context's change counter
        # The same counter read through a memoryview: indexing it costs less than ctypes' .value,
        # and every bulk read checks it.
        self.now = _view(counter)
        self.epoch = counter.value
        self.count = count
        # Slot -> one value per result (None: not read yet). A list, not a dict: reads index it.
        self.by_slot: List[Optional[List[Any]]] = []

    def _release(self) -> None:
        lib.og_results_release(self._h)

    def detach(self) -> None:
        """The context is closing: nothing read here holds any longer."""
        self.counter = _DEAD
        self.now = _view(_DEAD)
        self.epoch = -1
        self.close()

    @property
    def valid(self) -> bool:
        return not self._closed and self.counter.value == self.epoch

    def load(self, slot: int, doubles: bool) -> Optional[List[Any]]:
        """Reads column ``slot`` (None when the values no longer hold or the read fails)."""
        if not self.valid:
            return None
        n = self.count
        values = (ctypes.c_double * n)() if doubles else (ctypes.c_int64 * n)()
        states = (ctypes.c_uint8 * n)()
        err = ctypes.c_void_p()
        read = lib.og_results_read_doubles if doubles else lib.og_results_read_int64s
        check(read(self._h, slot, ctypes.addressof(values), ctypes.addressof(states), n, ctypes.byref(err)), err)
        raw = bytes(states)
        # memoryview's tolist converts in C; list() of a ctypes array goes item by item.
        column: List[Any] = memoryview(values).cast("B").cast("d" if doubles else "q").tolist()
        if raw.count(_STATE_VALUE) != n:
            column = [v if s == _STATE_VALUE else (None if s == _STATE_NIL else NOT_READ) for v, s in zip(column, raw)]
        # Reading fired objects: a change the read caused (none: only hook-free objects
        # are read) would show in the counter.
        if self.counter.value != self.epoch:
            return None
        if len(self.by_slot) <= slot:
            self.by_slot.extend([None] * (slot + 1 - len(self.by_slot)))
        self.by_slot[slot] = column
        return column


def _view(counter: ctypes.c_uint64) -> memoryview:
    """The counter as a one-element memoryview of unsigned 64-bit integers."""
    return memoryview(counter).cast("B").cast("Q")
