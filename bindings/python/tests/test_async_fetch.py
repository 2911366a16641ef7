"""Asynchronous fetches (objectgraph/async_fetch.py, _context_batch.py): execute
returns at once; the fetch and the completion run on the context's queue."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import objectgraph as og


@pytest.fixture
def stack(tmp_path: Path) -> Any:
    model = og.Model()
    model.add_entity("Book").add_attribute("title", "string")
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(tmp_path / "async.sqlite"))
    with og.Context(coordinator) as seed:
        for title in ("Mort", "Eric"):
            seed.insert("Book", title=title)
        seed.save()
    yield coordinator
    coordinator.close()


def run(ctx: og.Context, request: og.FetchRequest, before: Any = None) -> Dict[str, Any]:
    """Starts an asynchronous fetch; returns what the completion saw, once it ran."""
    seen: Dict[str, Any] = {}
    done = threading.Event()

    def completion(result: og.AsynchronousFetchResult) -> None:
        seen["thread"] = threading.get_ident()
        seen["titles"] = None if result.final_result is None else sorted(o.title for o in result.final_result)
        seen["error"] = result.operation_error
        seen["result"] = result
        done.set()

    async_request = og.AsynchronousFetchRequest(request, completion)
    assert async_request.request_type == "fetch" and async_request.estimated_result_count == 0
    async_request.estimated_result_count = 2
    result = ctx.execute(async_request)
    assert isinstance(result, og.AsynchronousFetchResult) and result.fetch_request is async_request
    if before:
        before(result)
    assert done.wait(10)
    assert seen["result"] is result
    return seen


def test_the_fetch_and_its_completion_run_on_the_queue(stack) -> None:
    with og.Context(stack, concurrency="private") as ctx:
        seen = run(ctx, og.FetchRequest("Book"))
        assert seen["titles"] == ["Eric", "Mort"] and seen["error"] is None
        assert seen["thread"] != threading.get_ident()
        assert seen["result"].progress == 1.0 and seen["result"].is_finished and seen["result"].context is ctx


def test_cancelled_before_it_runs_it_completes_empty(stack) -> None:
    with og.Context(stack, concurrency="private") as ctx:
        ctx.perform(lambda: time.sleep(0.2))  # the queue is busy: the fetch waits
        seen = run(ctx, og.FetchRequest("Book"), before=lambda result: result.cancel())
        assert seen["titles"] == [] and seen["error"] is None


def test_a_failing_fetch_sets_the_operation_error(stack) -> None:
    with og.Context(stack, concurrency="private") as ctx:
        seen = run(ctx, og.FetchRequest("Book", where="colour == 'red'"))
        assert seen["titles"] is None
        assert isinstance(seen["error"], og.UnknownKeyError)


def test_a_confinement_context_refuses(stack) -> None:
    with og.Context(stack) as ctx:
        with pytest.raises(og.UsageError):
            ctx.execute(og.AsynchronousFetchRequest(og.FetchRequest("Book"), lambda result: None))
