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


def test_binary_store_round_trip(tmp_path, books_model) -> None:
    path = tmp_path / "books.binary"
    with og.Coordinator(books_model) as coordinator:
        store = coordinator.add_store("Binary", path)
        assert store.type == "Binary"
        uuid = store.uuid
        with og.Context(coordinator) as ctx:
            ctx.insert("Book", title="Mort", year=1987, rating=4.5, author=ctx.insert("Author", name="Terry"))
            ctx.save()
    assert path.read_bytes()[:12] == b"OGBINARY\x00\x00\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["books.binary"]
    with og.Coordinator(books_model) as coordinator:
        assert coordinator.add_store("Binary", path).uuid == uuid
        with og.Context(coordinator) as ctx:
            (book,) = ctx.fetch("Book")
            assert (book.title, book.year, book.rating, book.author.name) == ("Mort", 1987, 4.5, "Terry")
    (tmp_path / "bad.binary").write_bytes(b"nothing of the kind")
    with og.Coordinator(books_model) as coordinator:
        with pytest.raises(og.Error) as info:
            coordinator.add_store("Binary", tmp_path / "bad.binary")
        assert info.value.code == og.ErrorCode.STORE_INVALID_TYPE


def test_an_atomic_store_written_in_python(books_model) -> None:
    documents = {}
    calls = []

    def load(path):
        calls.append(("load", path))
        return documents.get(path)

    def save(path, document):
        if path == "refuse":
            raise OSError("disk full")
        calls.append(("save", path))
        documents[path] = document

    og.register_atomic_store_type("Notebook", load, save)
    try:
        with pytest.raises(og.Error):
            og.register_atomic_store_type("SQLite", load, save)
        with og.Coordinator(books_model) as coordinator:
            coordinator.add_store("Notebook", "shelf")
            with og.Context(coordinator) as ctx:
                ctx.insert("Book", title="Mort", author=ctx.insert("Author", name="Terry"))
                ctx.save()
        assert calls == [("load", "shelf"), ("save", "shelf")]
        assert documents["shelf"].startswith(b"OGBINARY")
        with og.Coordinator(books_model) as coordinator:
            coordinator.add_store("Notebook", "shelf")
            with og.Context(coordinator) as ctx:
                assert [b.author.name for b in ctx.fetch("Book")] == ["Terry"]
        with og.Coordinator(books_model) as coordinator:
            coordinator.add_store("Notebook", "refuse")
            with og.Context(coordinator) as ctx:
                ctx.insert("Book", title="Lost")
                # The callback's own exception, with the library's failed save as its context.
                with pytest.raises(OSError, match="disk full") as info:
                    ctx.save()
                assert isinstance(info.value.__context__, og.Error)
                assert info.value.__context__.code == og.ErrorCode.STORE_SAVE
                assert "refuse" not in documents
    finally:
        og.unregister_store_type("Notebook")
    with pytest.raises(og.Error) as info:
        og.unregister_store_type("Notebook")
    assert info.value.code == og.ErrorCode.STORE_INVALID_TYPE


@pytest.mark.parametrize("kind", ["SQLite", "Binary"])
def test_metadata_without_a_stack(tmp_path, books_model, kind) -> None:
    path = tmp_path / f"meta.{kind.lower()}"
    with og.Coordinator(books_model) as coordinator:
        uuid = coordinator.add_store(kind, path).uuid
        with og.Context(coordinator) as ctx:
            ctx.insert("Author", name="Terry")
            ctx.save()
    assert og.Coordinator.metadata_value(path, "NSStoreUUID") == uuid
    assert og.Coordinator.metadata_value(path, "NSStoreType", type=kind) == kind
    assert og.Coordinator.metadata_value(path, "Owner") is None
    og.Coordinator.set_metadata_value(path, "Owner", "library")
    assert og.Coordinator.metadata_value(path, "Owner") == "library"
    og.Coordinator.set_metadata_value(path, "Owner", None, type=kind)
    assert og.Coordinator.metadata_value(path, "Owner") is None
    assert og.Coordinator.metadata_value(path, "NSStoreUUID") == uuid
    other = "Binary" if kind == "SQLite" else "SQLite"
    with pytest.raises(og.Error) as info:
        og.Coordinator.metadata_value(path, "NSStoreUUID", type=other)
    assert info.value.code == og.ErrorCode.STORE_TYPE_MISMATCH
    with og.Coordinator(books_model) as coordinator:
        coordinator.add_store(kind, path)
        with og.Context(coordinator) as ctx:
            assert [a.name for a in ctx.fetch("Author")] == ["Terry"]


def test_uris_read_only_and_removal(stack) -> None:
    coordinator, store = stack
    with og.Context(coordinator) as ctx:
        author = ctx.insert("Author", name="Ursula")
        ctx.save()
        uri = author.object_id
    with og.Context(coordinator) as ctx:
        found = ctx.object_for_uri(uri)
        assert found is not None and found.name == "Ursula"
        assert ctx.object_for_uri("x-coredata://NOSUCHSTORE/Author/p1") is None
        assert not coordinator.is_read_only(store)
        coordinator.set_read_only(store)
        assert coordinator.is_read_only(store)
        found.name = "Le Guin"
        with pytest.raises(og.Error) as info:
            ctx.save()
        assert info.value.code == og.ErrorCode.STORE_OPERATION
        coordinator.set_read_only(store, False)
        ctx.save()
    coordinator.remove_store(store)
    assert coordinator.stores == [] and coordinator.store_count == 0
    with og.Context(coordinator) as ctx:
        assert ctx.object_for_uri(uri) is None
