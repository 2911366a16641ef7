"""Store types beyond SQLite: the in-memory store behaves like the SQLite one."""

from __future__ import annotations

import gc

import pytest

import objectgraph as og


@pytest.fixture(params=["SQLite", "InMemory"])
def stack(request, tmp_path, books_model):
    coordinator = og.Coordinator(books_model)
    path = str(tmp_path / "books.sqlite") if request.param == "SQLite" else None
    store = coordinator.add_store(request.param, path)
    yield coordinator, store
    coordinator.close()
    gc.collect()


def test_in_memory_store_properties(books_model) -> None:
    with og.Coordinator(books_model) as coordinator:
        store = coordinator.add_store("InMemory")
        assert store.type == "InMemory" and store.path == "" and len(store.uuid) == 36
        assert coordinator.store_count == 1
        with pytest.raises(og.Error) as info:
            coordinator.add_store("Nope")
        assert info.value.code == og.ErrorCode.STORE_INVALID_TYPE and "InMemory" in str(info.value)


def test_both_stores_fetch_filter_and_relate_alike(stack) -> None:
    coordinator, store = stack
    with og.Context(coordinator) as ctx:
        terry = ctx.insert("Author", name="Terry")
        for title, year in [("Mort", 1987), ("Eric", 1990), ("Pyramids", 1989)]:
            ctx.insert("Book", title=title, year=year, author=terry)
        ctx.insert("Book", title="Coraline", year=2002)
        ctx.save()
    with og.Context(coordinator) as ctx:
        assert [b.title for b in ctx.fetch("Book", sort="title")] == ["Coraline", "Eric", "Mort", "Pyramids"]
        assert [b.title for b in ctx.fetch("Book", sort="-year", where="author.name == 'Terry'")] == [
            "Eric", "Pyramids", "Mort"]
        assert ctx.count("Book", "year < 1990") == 2
        author = ctx.fetch("Author")[0]
        assert sorted(b.title for b in author.books) == ["Eric", "Mort", "Pyramids"]
        ctx.delete(author)
        ctx.save()
    with og.Context(coordinator) as ctx:
        assert [b.title for b in ctx.fetch("Book")] == ["Coraline"], store.type


def test_a_failed_save_changes_nothing(stack) -> None:
    coordinator, store = stack
    with og.Context(coordinator) as ctx:
        ctx.insert("Book", title="Kept")
        ctx.save()
        ctx.insert("Book", title="Lost")
        ctx.insert("Author", name=None)  # a mandatory name missing
        with pytest.raises(og.Error):
            ctx.save()
    with og.Context(coordinator) as ctx:
        assert [b.title for b in ctx.fetch("Book")] == ["Kept"], store.type
