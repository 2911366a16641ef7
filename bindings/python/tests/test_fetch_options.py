"""Options of object fetches from Python: limit and offset, batch size,
pending changes, property values, faults and prefetching, on SQLite and in
memory. A second coordinator on the same SQLite file changes rows behind the
first one's back, which shows whether a read went to the store."""

from __future__ import annotations

import gc
from typing import Dict, List

import pytest

import objectgraph as og

TITLES = ["Dawn", "Earthsea", "Imago", "Kindred", "Lathe"]


@pytest.fixture(params=["SQLite", "InMemory"])
def stack(request, tmp_path, books_model):
    path = str(tmp_path / "options.sqlite") if request.param == "SQLite" else None
    coordinator = og.Coordinator(books_model)
    coordinator.add_store(request.param, path)
    with og.Context(coordinator) as seed:
        le_guin = seed.insert("Author", name="Le Guin")
        butler = seed.insert("Author", name="Butler")
        seed.insert("Author", name="Banks")
        for title in TITLES:
            seed.insert("Book", title=title, author=le_guin if title in ("Earthsea", "Lathe") else butler)
        seed.save()
    with og.Context(coordinator) as ctx:
        yield request.param, path, ctx
    coordinator.close()
    gc.collect()


def rename_behind_the_back(path, books_model, title, new_title):
    other = og.Coordinator(books_model)
    other.add_store("SQLite", path)
    with og.Context(other) as ctx:
        book = ctx.fetch("Book", "title == %@", title)[0]
        book.title = new_title
        ctx.save()
    other.close()


def test_request_options_have_core_datas_defaults() -> None:
    r = og.FetchRequest("Book")
    assert (r.limit, r.offset, r.batch_size) == (0, 0, 0)
    assert r.include_subentities and r.include_pending_changes and r.include_property_values and r.as_faults
    assert r.prefetch == []
    r.limit, r.offset, r.batch_size = 3, 1, 2
    r.as_faults = False
    r.prefetch = ["author"]
    assert (r.limit, r.offset, r.batch_size, r.as_faults, r.prefetch) == (3, 1, 2, False, ["author"])
    with pytest.raises(og.Error) as info:
        r.limit = -1
    assert info.value.code == og.ErrorCode.INVALID_ARGUMENT
    with pytest.raises(og.Error):
        r.offset = "two"
    r.close()


def test_limit_and_offset_apply_after_sorting_and_pending_changes(stack) -> None:
    _, _, ctx = stack
    ctx.insert("Book", title="Beta")
    assert [b.title for b in ctx.fetch("Book", offset=1, limit=2, sort="title")] == ["Dawn", "Earthsea"]
    assert ctx.fetch("Book", offset=10, sort="title") == []
    assert ctx.count("Book", limit=2) == 2


def test_pending_changes_can_be_left_out(stack) -> None:
    _, _, ctx = stack
    books = ctx.fetch("Book", sort="title")
    fresh = ctx.insert("Book", title="Aardvark")
    ctx.delete(books[0])
    assert [b.title for b in ctx.fetch("Book", sort="title")][:2] == ["Aardvark", "Earthsea"]
    stored = ctx.fetch("Book", include_pending_changes=False, sort="title")
    assert fresh not in stored and books[0] in stored and len(stored) == 5
    assert ctx.count("Book", include_pending_changes=False) == 5


def test_fetched_objects_are_faults_with_their_rows(stack, books_model) -> None:
    kind, path, ctx = stack
    books = ctx.fetch("Book", sort="title")
    assert all(b.is_fault for b in books)
    if kind == "SQLite":
        rename_behind_the_back(path, books_model, "Dawn", "Dusk")
    assert books[0].title == "Dawn"  # the row read with the fetch
    assert not books[0].is_fault and books[1].is_fault
    loaded = og.Context(ctx.coordinator).fetch("Book", as_faults=False)
    assert not any(b.is_fault for b in loaded)


def test_without_property_values_a_fault_reads_the_store(stack, books_model) -> None:
    kind, path, ctx = stack
    books = ctx.fetch("Book", include_property_values=False, sort="title")
    assert len(books) == 5 and all(b.is_fault for b in books)
    if kind == "SQLite":
        rename_behind_the_back(path, books_model, "Dawn", "Dusk")
        assert books[0].title == "Dusk"


def test_batches_load_together(stack, books_model) -> None:
    kind, path, ctx = stack
    books = ctx.fetch("Book", batch_size=2, sort="title")
    assert len(books) == 5 and all(b.is_fault for b in books)
    assert books[0].title == "Dawn"
    if kind == "SQLite":
        rename_behind_the_back(path, books_model, "Earthsea", "Earthsea 2")
        rename_behind_the_back(path, books_model, "Imago", "Imago 2")
        assert books[1].title == "Earthsea"  # loaded with Dawn's batch
        assert books[2].title == "Imago 2"   # its batch loaded only now
    else:
        assert [b.title for b in books] == TITLES


def test_prefetching(stack, books_model) -> None:
    kind, path, ctx = stack
    authors = ctx.fetch("Author", prefetch=["books"], sort="name")
    if kind == "SQLite":
        rename_behind_the_back(path, books_model, "Kindred", "Kindred 2")
    assert [a.name for a in authors] == ["Banks", "Butler", "Le Guin"]
    assert sorted(b.title for b in authors[1].books) == ["Dawn", "Imago", "Kindred"]
    lathe = og.Context(ctx.coordinator).fetch("Book", "title == 'Lathe'", prefetch=["author.books"])[0]
    assert lathe.author.name == "Le Guin" and len(lathe.author.books) == 2
    with pytest.raises(og.Error) as info:
        ctx.fetch("Book", prefetch=["writer"])
    assert info.value.code == og.ErrorCode.UNKNOWN_KEY
    with pytest.raises(og.Error) as info:
        ctx.fetch("Book", prefetch=["title"])
    assert info.value.code == og.ErrorCode.TYPE_MISMATCH
    with pytest.raises(TypeError, match="speed"):
        ctx.fetch("Book", speed="fast")  # type: ignore[call-overload]


def test_numbers_of_a_large_result_are_read_by_column_and_stay_right(tmp_path, books_model) -> None:
    coordinator = og.Coordinator(books_model)
    coordinator.add_store("SQLite", str(tmp_path / "many.sqlite"))
    with og.Context(coordinator) as seed:
        for i in range(100):
            seed.insert("Book", title=f"b{i:03}", pages=i, rating=None if i % 7 == 0 else i / 2)
        seed.save()
    ctx = og.Context(coordinator)
    books = ctx.fetch("Book", sort="title")
    assert [b.pages for b in books] == list(range(100))
    assert books[7].rating is None and books[8].rating == 4.0
    assert not books[50].is_fault  # read in bulk: fired like a property read
    books[3].pages = 333  # any change sends reads back to the per-object calls
    assert books[3].pages == 333 and books[4].pages == 4
    ctx.rollback()
    assert books[3].pages == 3
    other = og.Context(coordinator)
    changed = other.fetch("Book", "pages == 5")[0]
    changed.pages = 55
    other.save()
    again = ctx.fetch("Book", sort="title")
    ctx.refresh(again[5])
    assert again[5].pages == 55
    ctx.close()
    with pytest.raises(og.Error):
        books[1].pages  # the context is gone: no stale value from the cache
    other.close()
    coordinator.close()
    gc.collect()


def test_columns_after_the_first_are_read_together_and_stay_right(tmp_path, books_model) -> None:
    coordinator = og.Coordinator(books_model)
    coordinator.add_store("SQLite", str(tmp_path / "columns.sqlite"))
    with og.Context(coordinator) as seed:
        for i in range(60):
            seed.insert("Book", title=f"b{i:03}", pages=i, year=None if i % 5 == 0 else 1900 + i)
        seed.save()
    ctx = og.Context(coordinator)
    books = ctx.fetch("Book", sort="title")
    assert [b.pages for b in books] == list(range(60))  # the first column, alone
    # The second integer column read brings the entity's other integer columns with it.
    assert [b.year for b in books] == [None if i % 5 == 0 else 1900 + i for i in range(60)]
    assert [b.pages for b in books] == list(range(60))
    books[10].year = 1  # a change: every column read so far no longer holds
    assert [b.year for b in books][9:12] == [1909, 1, 1911]
    fresh = og.Context(coordinator).fetch("Book", sort="title")
    fresh[0].title  # a string first: the integer columns still come right
    assert [b.year for b in fresh][:3] == [None, 1901, 1902] and fresh[59].pages == 59
    ctx.close()
    coordinator.close()
    gc.collect()


def test_changes_the_library_makes_itself_end_the_column_values(tmp_path, books_model) -> None:
    # The column values stop at the library's report of the context's next change: a
    # child's save, an undo, a merge and a second wrapper of the context, none of them a
    # set made through these objects.
    coordinator = _numbered_books(tmp_path / "reported.sqlite", books_model, 50)

    def pages(objects: List[og.ManagedObject]) -> Dict[str, int]:
        return {b.title: b.pages for b in objects}  # the titles first: one column at a time

    ctx = og.Context(coordinator)
    ctx.undo_manager = og.UndoManager()
    books = ctx.fetch("Book")
    again = ctx.fetch("Book", "pages >= 0")  # a second large result, the same flag
    assert pages(books) == pages(again) == {f"b{i}": i for i in range(50)}
    child = og.Context(parent=ctx)
    child.fetch("Book", "pages == 4")[0].pages = 40
    child.save()  # into the parent: its objects change without a call on them
    assert pages(books)["b4"] == pages(again)["b4"] == 40
    books = ctx.fetch("Book")  # a new cache, told of the next change in turn
    assert pages(books)["b4"] == 40
    ctx.undo()  # the child's save, undone
    assert pages(books)["b4"] == 4
    books = ctx.fetch("Book")
    assert pages(books)["b6"] == 6
    other = og.Context(coordinator)
    other.fetch("Book", "pages == 6")[0].pages = 66
    saved: List[og.Notification] = []
    observer = other.observe("did_save", saved.append)
    other.save()
    observer.remove()
    ctx.merge_changes(saved[0])
    assert pages(books)["b6"] == 66
    # A second wrapper of the same library context takes the report over: the first one's
    # values stop then, and each sees the other's changes.
    twin = og.Context._borrow(ctx._h, coordinator)
    books = ctx.fetch("Book")
    assert pages(books)["b7"] == 7
    twins = twin.fetch("Book")
    assert pages(twins)["b7"] == 7
    next(b for b in twins if b.title == "b7").pages = 77
    assert pages(books)["b7"] == pages(twins)["b7"] == 77
    books = ctx.fetch("Book")
    assert pages(books)["b8"] == 8
    next(b for b in books if b.title == "b8").pages = 88
    assert pages(twins)["b8"] == 88
    twin.close()
    ctx.close()
    other.close()
    coordinator.close()
    gc.collect()


def _numbered_books(path, model: og.Model, count: int) -> og.Coordinator:
    """A coordinator over an SQLite store at `path` holding books b0... with pages 0..."""
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(path))
    with og.Context(coordinator) as seed:
        for i in range(count):
            seed.insert("Book", title=f"b{i}", pages=i)
        seed.save()
    return coordinator


def test_a_large_result_leaves_the_cycle_collector_as_it_was(tmp_path, books_model) -> None:
    # The wrappers of a large result are made with the collector paused; it must come back
    # as the caller had it, also when the caller had turned it off, and after an error.
    from objectgraph._util import collection_paused

    coordinator = _numbered_books(tmp_path / "collector.sqlite", books_model, 50)
    ctx = og.Context(coordinator)
    assert gc.isenabled()
    books = ctx.fetch("Book", sort="pages")
    assert gc.isenabled() and [b.pages for b in books] == list(range(50))
    assert gc.get_freeze_count() == 0, "nothing is left frozen"
    gc.disable()
    try:
        assert ctx.fetch("Book", sort="pages")[0] is books[0]  # one wrapper per object still
        assert not gc.isenabled(), "a collector the caller turned off stays off"
    finally:
        gc.enable()
    with pytest.raises(KeyError):
        with collection_paused():
            assert not gc.isenabled()
            raise KeyError("x")
    assert gc.isenabled()
    # Objects the program froze stay frozen: the wrappers then age as the collector finds them.
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert ctx.fetch("Book", "pages >= 0")[1].pages == 1
        assert gc.get_freeze_count() > frozen // 2  # (some may have been freed since)
    finally:
        gc.unfreeze()
    ctx.close()
    coordinator.close()


def test_objects_with_hooks_are_read_one_by_one(tmp_path, books_model) -> None:
    coordinator = _numbered_books(tmp_path / "hooks.sqlite", books_model, 40)
    ctx = og.Context(coordinator)
    awoken = []
    ctx.set_hooks("Book", awake_from_fetch=lambda o: awoken.append(1))
    books = ctx.fetch("Book", sort="pages")
    assert [b.pages for b in books] == list(range(40))
    assert len(awoken) == 40  # every object fired through its own read
    ctx.close()
    coordinator.close()
    gc.collect()


def test_a_result_read_partly_in_bulk_reads_the_rest_one_by_one(tmp_path, books_model) -> None:
    coordinator = _numbered_books(tmp_path / "partly.sqlite", books_model, 40)
    ctx = og.Context(coordinator)
    fired = ctx.fetch("Book", "pages < 10", sort="pages")  # these ten have their rows
    assert [b.pages for b in fired] == list(range(10))
    # The other thirty come as faults without rows: the bulk read leaves them out.
    books = ctx.fetch("Book", sort="pages", include_property_values=False)
    for _ in range(2):  # the first pass reads the columns in; the second reads the cache
        assert [b.pages for b in books] == list(range(40))
        assert [b.year for b in books] == [None] * 40
    assert not any(b.is_fault for b in books)
    books[25].pages = 2500  # a change: the cached columns no longer hold
    assert [b.pages for b in books][24:27] == [24, 2500, 26]
    ctx.close()
    coordinator.close()
    gc.collect()


def test_insert_sets_several_integers_in_one_call_and_still_checks_them(tmp_path, books_model) -> None:
    coordinator = og.Coordinator(books_model)
    coordinator.add_store("SQLite", str(tmp_path / "ints.sqlite"))
    ctx = og.Context(coordinator)
    book = ctx.insert("Book", title="T", pages=300, year=1999, rating=2.5)
    assert (book.pages, book.year, book.rating, book.title) == (300, 1999, 2.5, "T")
    with pytest.raises(og.Error) as info:
        ctx.insert("Book", title="Bad", pages=1, year=100_000)  # beyond integer16
    assert "year" in str(info.value) or info.value.code == og.ErrorCode.NUMBER_TOO_LARGE
    assert [b.title for b in ctx.fetch("Book")] == ["T"], "the failed insert left nothing"
    ctx.close()
    coordinator.close()
    gc.collect()


def test_copy_is_independent_and_shares_the_predicate() -> None:
    import copy

    where = og.Predicate("title BEGINSWITH %@", "E")
    r = og.FetchRequest("Book", sort=["title"], where=where)
    r.limit = 2
    r.refresh_refetched_objects = True
    assert r.request_type == "fetch"
    for twin in (copy.copy(r), r.copy()):
        assert isinstance(twin, og.FetchRequest) and twin is not r
        assert twin.predicate is where
        assert twin.sort == [("title", True)] and twin.limit == 2 and twin.refresh_refetched_objects
        assert twin.request_type == "fetch"
    kept = r.copy()
    r.limit = 0
    r.add_sort("author.name")
    r.predicate = None
    assert kept.limit == 2 and kept.sort == [("title", True)] and kept.predicate is where
    r.close()
    assert kept.limit == 2 and not kept.closed
    kept.close()


def test_refresh_refetched_objects(stack, books_model) -> None:
    kind, path, ctx = stack
    if kind != "SQLite":
        pytest.skip("another coordinator changes the file")
    dawn = ctx.fetch("Book", "title == 'Dawn'")[0]
    assert dawn.title == "Dawn"
    rename_behind_the_back(path, books_model, "Dawn", "Dusk")
    assert og.FetchRequest("Book").refresh_refetched_objects is False
    assert ctx.fetch("Book", sort="title")[0].title == "Dawn"  # registered objects keep their values
    assert ctx.count("Book", refresh_refetched_objects=True) == 5
    assert [i.primary_key for i in ctx.fetch_ids("Book", refresh_refetched_objects=True, sort="title")]
    refreshed = ctx.fetch("Book", "author.name == 'Butler'", refresh_refetched_objects=True, sort="title")
    assert dawn in refreshed and dawn.title == "Dusk"
    # Unsaved changes stay, as with refresh(obj, merge=True).
    dawn.title = "Mine"
    rename_behind_the_back(path, books_model, "Dusk", "Noon")
    request = og.FetchRequest("Book", sort="title")
    request.refresh_refetched_objects = True
    ctx.fetch(request)
    assert dawn.title == "Mine"
