"""Merging saves between contexts (merge_changes, merge_remote_changes,
automatically_merges_changes_from_parent), staleness, inaccessible faults and
refresh_all_objects."""

from __future__ import annotations

import gc
import math
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import objectgraph as og

from conftest import build_books_model


def titles(objects: Any) -> List[str]:
    return sorted(o.title for o in objects)


@pytest.fixture
def saved(open_stack, books_model) -> Dict[str, Any]:
    """Two contexts of one coordinator; the first has saved an author and two
    books and records its did_save notifications; the second has fetched them."""
    stack = open_stack(books_model)
    ctx = stack.context
    author = ctx.insert("Author", name="Ann Leckie")
    x = ctx.insert("Book", title="Ancillary Justice", pages=386, author=author)
    y = ctx.insert("Book", title="Ancillary Sword", pages=356, author=author)
    ctx.save()
    saves: List[og.Notification] = []
    ctx.observe("did_save", saves.append)
    other = og.Context(stack.coordinator)
    books = {b.title: b for b in other.fetch("Book")}
    yield {"stack": stack, "ctx": ctx, "other": other, "x": x, "y": y, "author": author, "saves": saves,
           "x2": books["Ancillary Justice"], "y2": books["Ancillary Sword"]}
    other.close()


def test_merge_changes(saved) -> None:
    ctx, other, x, y, x2, y2 = (saved[k] for k in ("ctx", "other", "x", "y", "x2", "y2"))
    x2.year = 2013  # a local unsaved change, kept through the merge
    x.title = "Ancillary Justice (Orbit)"
    ctx.delete(y)
    z = ctx.insert("Book", title="Ancillary Mercy", author=saved["author"])
    ctx.save()
    (notification,) = saved["saves"]
    assert notification.name == "did_save"
    changes: List[og.Notification] = []
    other.observe("objects_did_change", changes.append)
    assert other.merge_changes(notification) is None
    # Updated objects are refreshed, keeping this context's unsaved changes.
    assert x2.title == "Ancillary Justice (Orbit)" and x2.year == 2013 and x2.pages == 386
    assert x2.is_updated and x2.changed_values() == {"year": 2013}
    # Deleted objects stay registered and realized, with their last values, marked deleted.
    assert y2.is_deleted and not y2.is_fault and y2.title == "Ancillary Sword"
    assert other.object_registered(y.object_id) is y2
    # Inserted objects are registered as faults, and fetches see the merged state.
    z2 = other.object_registered(z.object_id)
    assert z2 is not None and z2.is_fault and z2.title == "Ancillary Mercy"
    assert titles(other.fetch("Book")) == ["Ancillary Justice (Orbit)", "Ancillary Mercy"]
    assert other.count("Book") == 2
    # objects_did_change was posted with the merged objects.
    assert changes
    merged = changes[-1]
    assert x2 in merged.updated + merged.refreshed
    assert y2 in merged.deleted
    assert z.object_id in [o.object_id for o in merged.inserted]
    other.save()  # this context's own change still goes through
    assert og.Context(saved["stack"].coordinator).existing_object(x.object_id).year == 2013


def test_merge_changes_rejects_other_notifications(saved, tmp_path) -> None:
    ctx, other = saved["ctx"], saved["other"]
    seen: List[og.Notification] = []
    ctx.observe("objects_did_change", seen.append)
    ctx.observe("will_save", seen.append)
    saved["x"].pages = 1
    ctx.process_pending_changes()
    ctx.save()
    assert {n.name for n in seen} == {"objects_did_change", "will_save"}
    for notification in seen + [og.Notification("did_save"), og.Notification("objects_did_change")]:
        with pytest.raises(og.UsageError) as info:
            other.merge_changes(notification)
        assert info.value.code == og.INVALID_ARGUMENT == 140002
    with pytest.raises(og.UsageError):
        other.merge_changes("did_save")  # type: ignore[arg-type]
    # A did_save of another coordinator (here over the same file) is refused:
    # merge_remote_changes is for changes made elsewhere.
    path = saved["stack"].store.path
    coordinator = og.Coordinator(build_books_model())
    coordinator.add_store("SQLite", path)
    stranger = og.Context(coordinator)
    theirs: List[og.Notification] = []
    stranger.observe("did_save", theirs.append)
    stranger.insert("Book", title="Provenance")
    stranger.save()
    with pytest.raises(og.UsageError) as info:
        other.merge_changes(theirs[0])
    assert info.value.code == og.INVALID_ARGUMENT
    stranger.close()
    coordinator.close()


def test_notification_outlives_its_context(saved) -> None:
    ctx, other = saved["ctx"], saved["other"]
    saved["x"].pages = 400
    ctx.save()
    notification = saved["saves"][-1]
    ctx.close()
    gc.collect()
    other.merge_changes(notification)
    assert saved["x2"].pages == 400
    del notification
    saved["saves"].clear()
    gc.collect()  # the notification's record of IDs is released with it


def test_merge_changes_across_threads(tmp_path: Path) -> None:
    coordinator = og.Coordinator(build_books_model())
    coordinator.add_store("SQLite", str(tmp_path / "threads.sqlite"))
    main = og.Context(coordinator)
    queue = og.Context(coordinator, "private")
    book = main.insert("Book", title="The Left Hand of Darkness", pages=300)
    main.save()
    on_main: List[og.Notification] = []
    main.observe("did_save", on_main.append)
    mine = queue.perform_and_wait(lambda: queue.existing_object(book.object_id))
    # Main thread saves; the queue context merges inside a block on its own queue.
    book.pages = 304
    main.save()
    assert len(on_main) == 1
    queue.perform_and_wait(lambda: queue.merge_changes(on_main[0]))
    assert queue.perform_and_wait(lambda: mine.pages) == 304
    # The queue context saves; its observer runs on its queue and the
    # notification is merged on the main thread.
    on_queue: List[og.Notification] = []
    threads: List[Any] = []

    def observed(n: og.Notification) -> None:
        threads.append(threading.current_thread())
        on_queue.append(n)

    queue.perform_and_wait(lambda: queue.observe("did_save", observed))

    def change() -> None:
        mine.title = "The Dispossessed"
        queue.insert("Book", title="The Lathe of Heaven")
        queue.save()

    done = threading.Event()
    queue.perform(lambda: (change(), done.set()))  # on the queue's own thread
    assert done.wait(10)
    queue.perform_and_wait(lambda: None)  # re-raises what the block may have raised
    assert len(on_queue) == 1 and len(threads) == 1
    with pytest.raises(og.WrongThreadError):
        queue.merge_changes(on_main[0])  # outside a block
    main.merge_changes(on_queue[0])
    assert book.title == "The Dispossessed" and book.pages == 304
    assert titles(main.fetch("Book")) == ["The Dispossessed", "The Lathe of Heaven"]
    queue.close()
    main.close()
    coordinator.close()


def test_merge_remote_changes(books_model, open_stack, tmp_path) -> None:
    path = tmp_path / "remote.sqlite"
    writer = open_stack(books_model, path)
    reader = open_stack(build_books_model(), path)
    ctx = writer.context
    keep = ctx.insert("Book", title="Piranesi", pages=272)
    gone = ctx.insert("Book", title="Jonathan Strange", pages=782)
    ctx.save()
    other = reader.context
    books = {b.title: b for b in other.fetch("Book")}
    keep2, gone2 = books["Piranesi"], books["Jonathan Strange"]
    keep.pages = 245
    ctx.delete(gone)
    new = ctx.insert("Book", title="The Ladies of Grace Adieu")
    ctx.save()
    changed: List[og.Notification] = []
    other.observe("objects_did_change", changed.append)
    og.Context.merge_remote_changes(
        {"updated": [keep.object_id], "deleted": (og.ObjectID(gone.object_id),),
         "inserted": iter([str(new.object_id)])},
        [other])
    assert keep2.pages == 245
    assert gone2.is_deleted and gone2.title == "Jonathan Strange"
    assert other.object_registered(new.object_id) is not None
    assert titles(other.fetch("Book")) == ["Piranesi", "The Ladies of Grace Adieu"]
    assert changed and gone2 in changed[-1].deleted
    # A queue context is merged on its own queue.
    queue = og.Context(reader.coordinator, "private")
    keep3 = queue.perform_and_wait(lambda: queue.existing_object(keep.object_id))
    keep.pages = 246
    ctx.save()
    og.Context.merge_remote_changes({"updated": [keep.object_id]}, [other, queue])
    assert keep2.pages == 246 and queue.perform_and_wait(lambda: keep3.pages) == 246
    og.Context.merge_remote_changes({}, [other])
    og.Context.merge_remote_changes({"updated": []}, [])
    queue.close()
    # Errors.
    for bad in ({"changed": [keep.object_id]}, {"updated": [keep.object_id], "refreshed": []}):
        with pytest.raises(og.UsageError) as info:
            og.Context.merge_remote_changes(bad, [other])
        assert info.value.code == og.INVALID_ARGUMENT == 140002
    with pytest.raises(og.UsageError):
        og.Context.merge_remote_changes([keep.object_id], [other])  # type: ignore[arg-type]
    with pytest.raises(og.UsageError):
        og.Context.merge_remote_changes({"updated": keep.object_id}, [other])
    with pytest.raises(og.UsageError):
        og.Context.merge_remote_changes({"updated": [keep2]}, [other])  # type: ignore[list-item]
    with pytest.raises(og.UsageError) as info:
        og.Context.merge_remote_changes({"updated": ["not a URI"]}, [other])
    assert info.value.code == og.INVALID_ARGUMENT


def test_automatic_merges(saved) -> None:
    ctx, other, x, x2 = saved["ctx"], saved["other"], saved["x"], saved["x2"]
    assert other.automatically_merges_changes_from_parent is False
    other.automatically_merges_changes_from_parent = True
    assert other.automatically_merges_changes_from_parent is True
    changes: List[og.Notification] = []
    other.observe("objects_did_change", changes.append)
    x.pages = 999
    ctx.save()
    other.process_pending_changes()  # a confinement context merges at its next call
    assert x2.pages == 999
    assert any(x2 in n.updated + n.refreshed for n in changes)
    other.automatically_merges_changes_from_parent = False
    x.pages = 1000
    ctx.save()
    other.process_pending_changes()
    assert x2.pages == 999


def test_stale_interval(books_model, open_stack, tmp_path) -> None:
    path = tmp_path / "stale.sqlite"
    writer = open_stack(books_model, path)
    reader = open_stack(build_books_model(), path)
    book = writer.context.insert("Book", title="Hyperion", pages=1)
    writer.context.save()
    ctx = reader.context
    assert ctx.stale_interval == -1.0
    mine = ctx.object_with_id(book.object_id)
    assert mine.pages == 1  # the fault's row is now the reader's coordinator's cached row

    def reread() -> int:
        ctx.refresh(mine)
        return mine.pages

    book.pages = 2
    writer.context.save()
    assert reread() == 1  # negative: the cached row, whatever its age
    ctx.stale_interval = 0
    assert ctx.stale_interval == 0.0
    assert reread() == 2  # 0: always the store
    ctx.stale_interval = 3600
    book.pages = 3
    writer.context.save()
    assert reread() == 2  # a cached row younger than an hour
    ctx.stale_interval = 0.05
    time.sleep(0.2)
    assert reread() == 3
    assert ctx.stale_interval == 0.05
    with pytest.raises(og.UsageError) as info:
        ctx.stale_interval = math.nan
    assert info.value.code == og.INVALID_ARGUMENT
    with pytest.raises(og.UsageError):
        ctx.stale_interval = "soon"  # type: ignore[assignment]
    ctx.stale_interval = -1
    assert ctx.stale_interval == -1.0


def test_inaccessible_faults(open_stack, books_model) -> None:
    stack = open_stack(books_model)
    ctx = stack.context
    first = ctx.insert("Book", title="Gone Soon")
    second = ctx.insert("Book", title="Gone Too")
    ctx.save()
    other = og.Context(stack.coordinator)
    assert other.should_delete_inaccessible_faults is True
    fault1 = other.object_with_id(first.object_id)
    fault2 = other.object_with_id(second.object_id)
    assert fault1.is_fault and fault2.is_fault
    ctx.delete(first)
    ctx.delete(second)
    ctx.save()
    # Default: the fault becomes a deleted object with empty values.
    assert fault1.title is None
    assert fault1.is_deleted
    other.should_delete_inaccessible_faults = False
    assert other.should_delete_inaccessible_faults is False
    with pytest.raises(og.Error) as info:
        fault2.title
    assert info.value.code == og.REFERENTIAL_INTEGRITY == 133000
    other.close()


def test_refresh_all_objects(saved) -> None:
    ctx, other, x, y, x2, y2 = (saved[k] for k in ("ctx", "other", "x", "y", "x2", "y2"))
    y2.year = 2014  # kept
    x.pages, y.pages = 1, 2
    ctx.save()
    assert (x2.pages, y2.pages) == (386, 356)
    other.refresh_all_objects()
    assert (x2.pages, y2.pages) == (1, 2)
    assert y2.year == 2014 and y2.is_updated and not x2.is_updated
