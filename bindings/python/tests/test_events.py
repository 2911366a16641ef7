"""What an event is: a perform block is one user event (its changes are
processed when it returns: objects_did_change posted, the undo group closed);
perform_and_wait is not an event boundary; a confinement context has no queue,
so perform and perform_and_wait refuse and do not run the block."""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from typing import Any, Iterator, List

import pytest

import objectgraph as og

from conftest import build_books_model


class Queue:
    """A coordinator over one SQLite file and a private-queue context."""

    def __init__(self, path: Path) -> None:
        self.coordinator = og.Coordinator(build_books_model())
        self.coordinator.add_store("SQLite", str(path))
        self.ctx = og.Context(self.coordinator, "private")
        self.seen: List[og.Notification] = []
        self.posted = threading.Event()

        def observed(n: og.Notification) -> None:
            self.seen.append(n)
            self.posted.set()

        self.ctx.perform_and_wait(lambda: self.ctx.observe("objects_did_change", observed))

    def close(self) -> None:
        self.ctx.close()
        self.coordinator.close()
        gc.collect()

    def run(self, fn: Any) -> None:
        """perform(fn), then waits for the block (and what it posts) to be done."""
        done = threading.Event()

        def block() -> None:
            try:
                fn()
            finally:
                done.set()

        self.posted.clear()
        self.ctx.perform(block)
        assert done.wait(10)
        self.ctx.perform_and_wait(lambda: None)  # the block's end has run; re-raises its exception


@pytest.fixture
def queue(tmp_path: Path) -> Iterator[Queue]:
    q = Queue(tmp_path / "events.sqlite")
    yield q
    q.close()


@pytest.mark.parametrize("child", [False, True])
def test_confinement_contexts_refuse_perform(open_stack, books_model, child: bool) -> None:
    stack = open_stack(books_model)
    ctx = og.Context(parent=stack.context) if child else stack.context
    assert ctx.concurrency == "confinement"
    ran: List[int] = []
    with pytest.raises(og.UsageError) as info:
        ctx.perform(lambda: ran.append(1))
    assert info.value.code == og.INVALID_ARGUMENT == 140002
    with pytest.raises(og.UsageError) as info:
        ctx.perform_and_wait(lambda: ran.append(2))
    assert info.value.code == 140002
    assert not isinstance(info.value, og.WrongThreadError)
    assert ran == []
    # The context still works, and nothing is left queued.
    ctx.insert("Book", title="After")
    assert ctx.count("Book") == 1
    if child:
        ctx.close()


def test_a_perform_block_is_an_event(queue: Queue) -> None:
    ctx = queue.ctx
    books: List[og.ManagedObject] = []
    queue.run(lambda: books.append(ctx.insert("Book", title="Queued")))
    assert queue.posted.wait(10)
    assert len(queue.seen) == 1 and queue.seen[0].inserted == books
    ctx.perform_and_wait(ctx.save)
    # Two blocks, two events.
    queue.run(lambda: setattr(books[0], "title", "Renamed"))
    assert len(queue.seen) == 2 and queue.seen[1].updated == books


def test_perform_and_wait_is_not_an_event(queue: Queue) -> None:
    ctx = queue.ctx
    book = ctx.perform_and_wait(lambda: ctx.insert("Book", title="Waited"))
    assert queue.seen == []
    # Nested and repeated calls are no boundary either.
    ctx.perform_and_wait(lambda: ctx.perform_and_wait(lambda: setattr(book, "pages", 3)))
    assert queue.seen == []
    ctx.perform_and_wait(ctx.process_pending_changes)
    assert len(queue.seen) == 1 and queue.seen[0].inserted == [book]


def test_perform_and_wait_changes_end_with_the_next_perform_block(queue: Queue) -> None:
    ctx = queue.ctx
    first = ctx.perform_and_wait(lambda: ctx.insert("Book", title="First"))
    second: List[og.ManagedObject] = []
    queue.run(lambda: second.append(ctx.insert("Book", title="Second")))
    assert len(queue.seen) == 1
    assert ctx.perform_and_wait(lambda: sorted(o.title for o in queue.seen[0].inserted)) == ["First", "Second"]
    assert first in queue.seen[0].inserted


def test_a_perform_block_closes_the_undo_group(queue: Queue) -> None:
    ctx = queue.ctx
    m = og.UndoManager()
    ctx.perform_and_wait(lambda: setattr(ctx, "undo_manager", m))
    books: List[og.ManagedObject] = []
    queue.run(lambda: books.append(ctx.insert("Book", title="One")))
    queue.run(lambda: setattr(books[0], "title", "Two"))
    # perform_and_wait leaves the event open: its change joins the next block's group.
    ctx.perform_and_wait(lambda: setattr(books[0], "pages", 9))
    queue.run(lambda: setattr(books[0], "title", "Three"))
    book = books[0]
    assert ctx.perform_and_wait(lambda: (book.title, book.pages)) == ("Three", 9)
    ctx.perform_and_wait(ctx.undo)
    assert ctx.perform_and_wait(lambda: (book.title, book.pages)) == ("Two", 0)
    ctx.perform_and_wait(ctx.undo)
    assert ctx.perform_and_wait(lambda: book.title) == "One"
    ctx.perform_and_wait(ctx.undo)
    assert ctx.perform_and_wait(lambda: ctx.count("Book")) == 0
    assert not m.can_undo and m.can_redo


def test_an_undo_inside_a_perform_block(queue: Queue) -> None:
    ctx = queue.ctx
    m = og.UndoManager()
    ctx.perform_and_wait(lambda: setattr(ctx, "undo_manager", m))
    queue.run(lambda: ctx.insert("Book", title="Gone"))
    queue.run(ctx.undo)
    assert ctx.perform_and_wait(lambda: ctx.count("Book")) == 0 and m.can_redo
