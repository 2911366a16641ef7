"""Batch insert, update and delete (objectgraph/batch.py, _context_batch.py): one
transaction each, straight to the SQLite store, without objects."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import objectgraph as og


@pytest.fixture
def shelf(tmp_path: Path) -> Any:
    model = og.Model()
    book = model.add_entity("Book")
    book.add_attribute("title", "string", optional=False)
    book.add_attribute("pages", "integer64", default=100)
    path = tmp_path / "batch.sqlite"
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(path))
    ctx = og.Context(coordinator)
    yield ctx, path
    ctx.close()
    coordinator.close()


def rows(path: Path, sql: str) -> list:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def test_batch_insert_applies_defaults_and_returns_what_is_asked(shelf) -> None:
    ctx, path = shelf
    assert ctx.batch_insert("Book", [{"title": "Mort"}, {"title": "Eric", "pages": 160}]) == 2
    ids = ctx.batch_insert("Book", [{"title": "Jingo"}], result_type="object_ids")
    assert len(ids) == 1 and isinstance(ids[0], og.ObjectID) and "/Book/p" in ids[0]
    assert ctx.execute(og.BatchInsertRequest("Book", [{"title": "Sourcery"}])) is True
    assert not ctx.has_changes
    assert rows(path, "SELECT ZTITLE, ZPAGES FROM ZBOOK ORDER BY Z_PK") == [
        ("Mort", 100), ("Eric", 160), ("Jingo", 100), ("Sourcery", 100)]


def test_a_generator_is_the_dictionary_handler(shelf) -> None:
    ctx, path = shelf

    def books() -> Iterator[Dict[str, Any]]:
        for n in range(1, 1001):
            yield {"title": f"Book {n}", "pages": n}

    assert ctx.batch_insert("Book", books()) == 1000
    assert rows(path, "SELECT COUNT(*), SUM(ZPAGES) FROM ZBOOK") == [(1000, 500500)]


def test_a_bad_row_fails_the_batch_and_writes_nothing(shelf) -> None:
    ctx, path = shelf
    with pytest.raises(og.UnknownKeyError, match="row 1"):
        ctx.batch_insert("Book", [{"title": "ok"}, {"title": "x", "colour": "red"}])
    with pytest.raises(og.ValidationError):
        ctx.batch_insert("Book", [{"pages": 3}])

    def failing() -> Iterator[Dict[str, Any]]:
        yield {"title": "fine"}
        raise RuntimeError("the source ran dry")

    with pytest.raises(RuntimeError, match="ran dry"):
        ctx.batch_insert("Book", failing())
    assert rows(path, "SELECT COUNT(*) FROM ZBOOK") == [(0,)]
    with pytest.raises(og.UnknownEntityError):
        ctx.batch_insert("Nope", [])
    with pytest.raises(og.UsageError):
        ctx.batch_insert("Book", [], result_type="everything")


def test_batch_update_and_registered_objects(shelf) -> None:
    ctx, path = shelf
    ctx.batch_insert("Book", [{"title": "Mort", "pages": 300}, {"title": "Eric", "pages": 160}])
    (eric,) = ctx.fetch("Book", "title == %@", "Eric")
    ids = ctx.batch_update("Book", "pages < %@", 200, values={"pages": 200}, result_type="object_ids")
    assert ids == [eric.object_id]
    assert eric.pages == 160  # registered objects keep their values until merged
    og.Context.merge_remote_changes({"updated": ids}, [ctx])
    assert eric.pages == 200
    assert rows(path, "SELECT ZPAGES, Z_OPT FROM ZBOOK WHERE ZTITLE = 'Eric'") == [(200, 2)]
    request = og.BatchUpdateRequest("Book", values={"pages": 1})
    assert request.request_type == "batch_update" and request.predicate is None
    assert ctx.execute(request) is True
    assert rows(path, "SELECT DISTINCT ZPAGES FROM ZBOOK") == [(1,)]


def test_batch_delete_by_predicate_or_ids(shelf) -> None:
    ctx, path = shelf
    ids = ctx.batch_insert("Book", [{"title": t} for t in ("Mort", "Eric", "Jingo")], result_type="object_ids")
    assert ctx.batch_delete("Book", "title BEGINSWITH %@", "J") == 1
    assert ctx.batch_delete("Book", object_ids=ids[:1]) == 1
    assert rows(path, "SELECT ZTITLE FROM ZBOOK") == [("Eric",)]
    with pytest.raises(og.UsageError):
        ctx.batch_delete("Book", "title == 'Eric'", object_ids=ids)
    with pytest.raises(og.UsageError):
        og.BatchDeleteRequest()
    with pytest.raises(og.UsageError):
        ctx.execute(object())  # type: ignore[arg-type]


def test_other_stores_refuse_batches(tmp_path: Path) -> None:
    model = og.Model()
    model.add_entity("Book").add_attribute("title", "string")
    with og.Coordinator(model) as coordinator:
        coordinator.add_store("InMemory")
        with og.Context(coordinator) as ctx:
            with pytest.raises(og.StoreError) as info:
                ctx.batch_insert("Book", [{"title": "Mort"}])
            assert info.value.code == 134091


def test_derived_attributes_are_computed_when_rows_are_written(tmp_path: Path) -> None:
    model = og.Model()
    author = model.add_entity("Author")
    author.add_attribute("name", "string")
    book = model.add_entity("Book")
    book.add_attribute("title", "string")
    books = author.add_relationship("books", book, to_many=True)
    books.inverse = book.add_relationship("author", author)
    author.add_attribute("book_count", "integer64").derivation_expression = "books.@count"
    author.add_attribute("search_name", "string").derivation_expression = "canonical:(name)"
    with og.Coordinator(model) as coordinator:
        coordinator.add_store("SQLite", str(tmp_path / "derived.sqlite"))
        with og.Context(coordinator) as ctx:
            ann = ctx.insert("Author", name="Anné")
            ctx.insert("Book", title="Mort", author=ann)
            ctx.save()
            assert ann.book_count is None  # stale until refreshed
            ctx.refresh(ann)
            assert ann.book_count == 1 and ann.search_name == "anne"
            assert ctx.count("Author", "book_count == 1 AND search_name == 'anne'") == 1
    with og.Coordinator(model) as coordinator:
        with pytest.raises(og.UsageError, match="derived"):
            coordinator.add_store("InMemory")
    bad = og.Model()
    bad.add_entity("Item").add_attribute("x", "integer64").derivation_expression = "parts.@sum.size"
    with og.Coordinator(bad) as coordinator:
        with pytest.raises(og.ModelError) as info:
            coordinator.add_store("SQLite", str(tmp_path / "bad.sqlite"))
        assert info.value.code == 140009


def test_rows_of_plain_columns_go_in_bulk_and_others_row_by_row(shelf) -> None:
    """objectgraph/_batch_columns.py: integer, float and string columns (with None and
    absent keys) are packed; any other value sends the batch row by row, with the
    same outcome either way."""
    from objectgraph._batch_columns import pack_columns

    plain = [{"title": "Mort", "pages": 300}, {"title": "Eric"}, {"title": "Jingo", "pages": None}]
    assert pack_columns(plain) is not None
    assert pack_columns([{"title": "x", "pages": 1}, {"title": "y", "pages": 2.5}]) is None   # mixed
    assert pack_columns([{"title": "x", "pages": 2 ** 70}]) is None                             # beyond 64 bits
    assert pack_columns([{"title": b"bytes"}]) is None
    ctx, path = shelf
    assert ctx.batch_insert("Book", plain) == 3
    assert rows(path, "SELECT ZTITLE, ZPAGES FROM ZBOOK ORDER BY Z_PK") == [("Mort", 300), ("Eric", 100), ("Jingo", None)]
    with pytest.raises(og.UnknownKeyError, match="row 1"):
        ctx.batch_insert("Book", [{"title": "ok"}, {"title": "x", "colour": "red"}])
    with pytest.raises(og.ValidationError, match="row 0"):
        ctx.batch_insert("Book", [{"pages": 3}])
    with pytest.raises(og.Error):
        ctx.batch_insert("Book", [{"title": "big", "pages": 2 ** 70}])
    with pytest.raises(og.TypeMismatchError, match="row 0"):   # a float is not an integer, in bulk as row by row
        ctx.batch_insert("Book", ({"title": t, "pages": float(n)} for n, t in enumerate(["a", "b"])))
    assert ctx.batch_insert("Book", ({"title": t, "pages": n} for n, t in enumerate(["a", "b"]))) == 2
    assert rows(path, "SELECT COUNT(*) FROM ZBOOK") == [(5,)]


def test_rows_of_numbers_only_are_bound_from_their_arrays(tmp_path: Path) -> None:
    """Columns of integers and floats with a value in every row go to the store as arrays
    (og_context_batch_insert_columns without states); the outcome is a plain insert's."""
    model = og.Model()
    point = model.add_entity("Point")
    point.add_attribute("x", "integer64", optional=False)
    point.add_attribute("y", "double")
    point.add_attribute("tag", "integer16", default=7)
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(tmp_path / "points.sqlite"))
    ctx = og.Context(coordinator)
    try:
        assert ctx.batch_insert("Point", ({"x": n, "y": n / 2} for n in range(1000))) == 1000
        assert rows(tmp_path / "points.sqlite", "SELECT COUNT(*), SUM(ZX), SUM(ZY), MIN(ZTAG), MAX(Z_OPT) FROM ZPOINT") == [
            (1000, 499500, 249750.0, 7, 1)]
        with pytest.raises(og.ValidationError, match="row 0"):
            ctx.batch_insert("Point", [{"y": 1.0}])
    finally:
        ctx.close()
        coordinator.close()
