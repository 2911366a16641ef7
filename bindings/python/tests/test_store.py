"""Saving to SQLite: object IDs, the file's layout, fetching, and opening a
store with a different model."""

from __future__ import annotations

import re
import sqlite3
import uuid

import pytest

import objectgraph as og

from conftest import build_books_model


def primary_key_max(path, entity: str) -> int:
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?", (entity,)).fetchone()
    return row[0] if row else 0


def test_store_properties(tmp_path, books_model, open_stack) -> None:
    path = tmp_path / "books.sqlite"
    stack = open_stack(books_model, path)
    store = stack.store
    assert store.type == "SQLite" and store.path == str(path)
    assert uuid.UUID(store.uuid)
    assert stack.coordinator.store_count == 1 and stack.coordinator.stores == [store]
    assert path.exists()


def test_save_makes_ids_permanent_and_advances_z_max(tmp_path, books_model, open_stack) -> None:
    path = tmp_path / "ids.sqlite"
    stack = open_stack(books_model, path)
    ctx = stack.context
    book = ctx.insert("Book", title="Strata")
    temporary = book.object_id
    assert re.fullmatch(r"x-coredata:///Book/t[0-9A-Fa-f-]+", temporary), temporary
    assert book.has_temporary_id and book.is_inserted and not book.is_updated and ctx.has_changes
    ctx.save()

    assert not book.has_temporary_id and not book.is_inserted and not ctx.has_changes
    assert book.object_id == f"x-coredata://{stack.store.uuid}/Book/p1"
    assert primary_key_max(path, "Book") == 1

    second = ctx.insert("Book", title="Eric")
    ctx.save()
    assert second.object_id == f"x-coredata://{stack.store.uuid}/Book/p2"
    assert primary_key_max(path, "Book") == 2

    book.pages = 300
    assert book.is_updated and ctx.has_changes
    ctx.save()
    assert not book.is_updated


def test_file_layout(tmp_path, books_model, open_stack) -> None:
    path = tmp_path / "layout.sqlite"
    stack = open_stack(books_model, path)
    author = stack.context.insert("Author", name="A")
    stack.context.insert("Book", title="T", pages=10, author=author)
    stack.context.save()
    stack.close()

    with sqlite3.connect(path) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"ZBOOK", "ZAUTHOR", "Z_PRIMARYKEY", "Z_METADATA"} <= tables
        columns = [row[1] for row in db.execute("PRAGMA table_info(ZBOOK)")]
        assert columns[:3] == ["Z_PK", "Z_ENT", "Z_OPT"]
        assert {"ZTITLE", "ZPAGES", "ZYEAR", "ZRATING", "ZAUTHOR"} <= set(columns)
        assert [row[1] for row in db.execute("PRAGMA table_info(Z_PRIMARYKEY)")] == ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"]
        assert [row[1] for row in db.execute("PRAGMA table_info(Z_METADATA)")] == ["Z_VERSION", "Z_UUID", "Z_PLIST"]
        entities = dict(db.execute("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY"))
        title, pages, ent, author_pk = db.execute("SELECT ZTITLE, ZPAGES, Z_ENT, ZAUTHOR FROM ZBOOK").fetchone()
        assert (title, pages, ent) == ("T", 10, entities["Book"])
        assert author_pk == db.execute("SELECT Z_PK FROM ZAUTHOR").fetchone()[0]
        (plist,) = db.execute("SELECT Z_PLIST FROM Z_METADATA").fetchone()
        assert bytes(plist).startswith(b"bplist00")


def test_fetch_sorted_and_count(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    rows = [("Mort", 1987), ("Guards! Guards!", 1989), ("Eric", 1990), ("Pyramids", 1989)]
    for title, year in rows:
        ctx.insert("Book", title=title, year=year)
    ctx.save()

    assert [b.title for b in ctx.fetch("Book", sort="title")] == sorted(t for t, _ in rows)
    assert [b.title for b in ctx.fetch("Book", sort="-title")] == sorted((t for t, _ in rows), reverse=True)
    by_year = ctx.fetch("Book", sort=["-year", "title"])
    assert [(b.year, b.title) for b in by_year] == [
        (1990, "Eric"), (1989, "Guards! Guards!"), (1989, "Pyramids"), (1987, "Mort")
    ]
    request = og.FetchRequest("Book").add_sort("year").add_sort("title", ascending=False)
    assert [b.title for b in ctx.fetch(request)] == ["Mort", "Pyramids", "Guards! Guards!", "Eric"]
    assert ctx.count("Book") == 4 and ctx.count(request) == 4 and ctx.count("Author") == 0


def test_objects_keep_their_identity(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="Only")
    assert ctx.fetch("Book")[0] is book
    ctx.save()
    assert ctx.fetch("Book")[0] is book
    author = ctx.insert("Author", books=[book])
    assert next(iter(author.books)) is book and book.author is author
    assert book.entity is books_model["Book"] and book.entity_name == "Book"


def test_a_changed_model_cannot_open_the_store(tmp_path, open_stack) -> None:
    path = tmp_path / "versioned.sqlite"
    stack = open_stack(build_books_model(), path)
    stack.context.insert("Book", title="T")
    stack.context.save()
    stack.close()

    changed = build_books_model()
    changed["Book"].add_attribute("isbn", "string")
    coordinator = og.Coordinator(changed)
    try:
        with pytest.raises(og.IncompatibleStoreError) as info:
            coordinator.add_store("SQLite", path)
    finally:
        coordinator.close()
    error = info.value
    assert isinstance(error, og.StoreError)
    assert error.code == og.INCOMPATIBLE_VERSION_HASH == 134100
    assert error.domain == og.DOMAIN_COCOA
    assert "Book" in error.message

    # The unchanged model still opens it.
    again = open_stack(build_books_model(), path)
    assert again.context.count("Book") == 1


def test_context_and_coordinator_are_context_managers(tmp_path, books_model) -> None:
    with og.Coordinator(books_model) as coordinator:
        coordinator.add_store("SQLite", tmp_path / "cm.sqlite")
        with og.Context(coordinator) as ctx:
            ctx.insert("Book", title="T")
            ctx.save()
        assert ctx.closed
    assert coordinator.closed
