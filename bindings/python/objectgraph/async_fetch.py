"""Asynchronous fetches (Core Data's NSAsynchronousFetchRequest and
NSAsynchronousFetchResult): ``ctx.execute(og.AsynchronousFetchRequest(request,
completion))`` returns at once; the fetch, then ``completion(result)``, run later
on the context's queue (docs/fetching.md)."""

from __future__ import annotations

import ctypes
import threading
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Set

from ._lib import lib
from .errors import Error
from .fetch import FetchRequest

if TYPE_CHECKING:
    from .objects import ManagedObject

__all__ = ["AsynchronousFetchRequest", "AsynchronousFetchResult"]


class AsynchronousFetchRequest:
    """A fetch to run on a context's queue, and the function its result goes to."""

    request_type = "fetch"

    def __init__(self, fetch_request: FetchRequest, completion: Callable[["AsynchronousFetchResult"], Any]) -> None:
        self.fetch_request = fetch_request
        self.completion = completion
        self.estimated_result_count = 0

    def __repr__(self) -> str:
        return f"AsynchronousFetchRequest({self.fetch_request!r})"


class AsynchronousFetchResult:
    """An asynchronous fetch under way, then done. ``final_result`` is the list of
    objects once it is done (empty when it was cancelled before it ran), None
    before or when it failed; ``operation_error`` says why it failed."""

    def __init__(self, context: Any, request: AsynchronousFetchRequest) -> None:
        self.context = context
        self.fetch_request = request
        self.final_result: Optional[List["ManagedObject"]] = None
        self.operation_error: Optional[Error] = None
        self._handle: Optional[int] = None
        self._callback: Any = None

    @property
    def progress(self) -> float:
        """How far the fetch got, 0 to 1 (1 once it is done). Any thread."""
        if self._handle is None:
            return 1.0 if self.final_result is not None or self.operation_error is not None else 0.0
        value = ctypes.c_double(0)
        lib.og_async_fetch_progress(self._handle, ctypes.byref(value), None)
        return float(value.value)

    @property
    def is_finished(self) -> bool:
        """Whether the fetch is done (it may still be handing its result to the
        completion). Any thread."""
        if self._handle is None:
            return self.final_result is not None or self.operation_error is not None
        value = ctypes.c_bool(False)
        lib.og_async_fetch_is_finished(self._handle, ctypes.byref(value), None)
        return bool(value.value)

    def cancel(self) -> None:
        """Asks the fetch not to run: the completion still runs, with
        ``final_result == []`` and no error. One already running completes."""
        if self._handle is not None:
            lib.og_async_fetch_cancel(self._handle, None)

    def __del__(self) -> None:
        handle, self._handle = self._handle, None
        if handle:
            lib.og_async_fetch_release(handle)

    def __repr__(self) -> str:
        state = "failed" if self.operation_error else "done" if self.final_result is not None else "running"
        return f"<AsynchronousFetchResult {state}>"


# Results whose completion has not run yet: their C callback must outlive the caller's reference.
pending: Set[AsynchronousFetchResult] = set()
pending_lock = threading.Lock()
