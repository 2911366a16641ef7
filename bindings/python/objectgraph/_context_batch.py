"""Running batch requests (batch.py) and ``execute``, as every context does it.
Context (context.py) inherits them from BatchingContext."""

from __future__ import annotations

import ctypes
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union

from ._batch_columns import pack_columns
from ._call import call, call_handle
from ._context_fetch import FetchingContext
from ._lib import ASYNC_FETCH_FN, lib
from ._object_id import ObjectID
from ._util import encode, keep
from .async_fetch import AsynchronousFetchRequest, AsynchronousFetchResult, pending, pending_lock
from .batch import BatchDeleteRequest, BatchInsertRequest, BatchRequest, BatchUpdateRequest, batch_result_code, predicate_of
from .errors import ErrorCode, make_error, take_error
from .fetch import FetchRequest, Where
from .history import HistoryChangeRequest, delete_history, read_history
from .results import take_object_ids
from .values import to_value

__all__ = ["BatchingContext"]

BatchResult = Union[bool, int, List[ObjectID]]


class BatchingContext(FetchingContext):
    """The batch methods of a context."""

    def execute(self, request: Union[BatchRequest, AsynchronousFetchRequest, HistoryChangeRequest]) -> Any:
        """Runs a batch request and returns its result by its ``result_type``:
        True for "status_only", an int for "count", a list of ObjectID for
        "object_ids"; starts an asynchronous fetch and returns its
        AsynchronousFetchResult at once; or runs a HistoryChangeRequest as
        ``history`` or ``delete_history`` does. Core Data: executeRequest:error:. Any
        other request raises UsageError 140002."""
        if isinstance(request, AsynchronousFetchRequest):
            return self._fetch_async(request)
        if isinstance(request, HistoryChangeRequest):
            if request.before is not None:
                return delete_history(self, request.before)
            return read_history(self, request.after, request.fetch_request, request._result_type)
        return self._execute_batch(request)

    def _execute_batch(self, request: BatchRequest) -> BatchResult:
        if isinstance(request, BatchInsertRequest):
            return self._batch_insert(request)
        if isinstance(request, BatchUpdateRequest):
            values = _Boxed(request.values)  # kept alive until the call returns
            return self._run(request.result_type, lambda count, ids, code: call(
                lib.og_context_batch_update, self._h, encode(request.entity_name),
                request.predicate._h if request.predicate is not None else None, values.handle,
                code, count, ids, context=self))
        if isinstance(request, BatchDeleteRequest):
            if request.fetch_request is not None:
                fetch = request.fetch_request
                return self._run(request.result_type, lambda count, ids, code: call(
                    lib.og_context_batch_delete, self._h, fetch._h, code, count, ids, context=self))
            uris = [encode(str(i), "an object ID") for i in request.object_ids or []]
            array = (ctypes.c_char_p * max(1, len(uris)))(*uris)
            return self._run(request.result_type, lambda count, ids, code: call(
                lib.og_context_batch_delete_objects, self._h, array, len(uris), code, count, ids, context=self))
        raise make_error(f"execute() runs batch requests, not {type(request).__name__}", ErrorCode.INVALID_ARGUMENT)

    def batch_insert(self, entity: str, rows: Iterable[Mapping[str, Any]], result_type: str = "count") -> BatchResult:
        """Inserts ``rows`` (dicts; a generator feeds rows until it is
        exhausted) in one transaction; model defaults fill what a row leaves out."""
        return self._execute_batch(BatchInsertRequest(entity, rows, result_type=result_type))

    def batch_update(self, entity: str, where: Where = None, *args: Any, values: Mapping[str, Any],
                     result_type: str = "count") -> BatchResult:
        """Sets ``values`` on the rows of ``entity`` that ``where`` matches."""
        return self._execute_batch(BatchUpdateRequest(entity, where, *args, values=values, result_type=result_type))

    def batch_delete(self, entity: str, where: Where = None, *args: Any, object_ids: Optional[Iterable[str]] = None,
                     result_type: str = "count") -> BatchResult:
        """Deletes the rows of ``entity`` that ``where`` matches, or those of
        ``object_ids`` (then ``where`` must be None). No delete rule runs."""
        if object_ids is not None:
            if where is not None or args:
                raise make_error("batch_delete takes `where` or `object_ids`, not both", ErrorCode.INVALID_ARGUMENT)
            return self._execute_batch(BatchDeleteRequest(object_ids=object_ids, result_type=result_type))
        fetch = FetchRequest(entity, None, predicate_of(where, args))
        try:
            return self._execute_batch(BatchDeleteRequest(fetch, result_type=result_type))
        finally:
            fetch.close()

    # Parts

    def _batch_insert(self, request: BatchInsertRequest) -> BatchResult:
        # Every row is read before anything is written (a generator that raises writes
        # nothing); columns of plain numbers and strings then go in bulk, anything else
        # row by row.
        rows = request.rows if isinstance(request.rows, Sequence) else list(request.rows)
        packed = pack_columns(rows)
        if packed is not None:
            return self._run(request.result_type, lambda count, ids, code: call(
                lib.og_context_batch_insert_columns, self._h, encode(request.entity_name), packed.array, packed.count,
                packed.row_count, code, count, ids, context=self))
        boxed = _Boxed([dict(row) for row in rows])
        return self._run(request.result_type, lambda count, ids, code: call(
            lib.og_context_batch_insert, self._h, encode(request.entity_name), boxed.handle, code, count, ids, context=self))

    def _fetch_async(self, request: AsynchronousFetchRequest) -> AsynchronousFetchResult:
        result = AsynchronousFetchResult(self, request)

        def done(handle: Any, user: Any) -> None:
            # On the context's queue, where its objects may be used.
            try:
                err = ctypes.c_void_p()
                results = lib.og_async_fetch_results(handle, ctypes.byref(err))
                if results:
                    result.final_result = self._take_results(results)
                else:
                    result.operation_error = take_error(err)
                request.completion(result)
            except BaseException as exc:  # kept for this thread's next call into the library
                keep(exc)
            finally:
                with pending_lock:
                    pending.discard(result)

        result._callback = ASYNC_FETCH_FN(done)
        with pending_lock:
            pending.add(result)
        try:
            result._handle = call_handle(lib.og_context_fetch_async, self._h, request.fetch_request._h,
                                         int(request.estimated_result_count), result._callback, None, context=self)
        except BaseException:
            with pending_lock:
                pending.discard(result)
            raise
        return result

    @staticmethod
    def _run(result_type: str, run: Any) -> BatchResult:
        code = batch_result_code(result_type)
        count = ctypes.c_size_t(0)
        ids = ctypes.c_void_p()
        run(ctypes.byref(count), ctypes.byref(ids) if code == 1 else None, code)
        if code == 1:
            return take_object_ids(ids.value) if ids.value else []
        return int(count.value) if code == 2 else True


class _Boxed:
    """A NEW og_value for a Python list or dict, released when this goes away."""

    handle = 0  # until to_value returns (it raises for a value it cannot box)

    def __init__(self, value: Any) -> None:
        self.handle = to_value(value)

    def __del__(self) -> None:
        if self.handle:
            lib.og_value_release(self.handle)
            self.handle = 0
