"""Input the library must survive, not abort on: counters at the end of their
range in a store file, decimals that are not numbers, key paths read in memory,
transient relationships of fetched objects."""

from __future__ import annotations

import decimal
import math
import sqlite3

import pytest

import objectgraph as og

INT64_MAX = 2**63 - 1


def shop_model() -> og.Model:
    model = og.Model()
    author = model.add_entity("Author")
    author.add_attribute("name", "string")
    book = model.add_entity("Book")
    book.add_attribute("title", "string")
    book.add_attribute("price", "decimal")
    book.add_attribute("link", "uri")
    books = author.add_relationship("books", book, to_many=True)
    book.add_relationship("author", author, inverse=books)
    return model


def saved_store(path) -> None:
    with og.Coordinator(shop_model()) as coordinator:
        coordinator.add_store("SQLite", path)
        with og.Context(coordinator) as ctx:
            ctx.insert("Book", title="T", author=ctx.insert("Author", name="Ann"))
            ctx.save()


def test_a_key_counter_at_its_largest_fails_the_save(tmp_path) -> None:
    path = tmp_path / "shop.sqlite"
    saved_store(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'Author'", (INT64_MAX,))
    db.close()
    with og.Coordinator(shop_model()) as coordinator:
        coordinator.add_store("SQLite", path)
        with og.Context(coordinator) as ctx:
            ctx.insert("Author", name="Bob")
            with pytest.raises(og.StoreError) as info:
                ctx.save()
            assert info.value.code == og.ErrorCode.STORE_SAVE == 134030
            assert "no primary keys left" in info.value.message
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM ZAUTHOR").fetchone() == (1,)
    db.close()


def test_a_row_version_at_its_largest_fails_the_update(tmp_path) -> None:
    path = tmp_path / "shop.sqlite"
    saved_store(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE ZAUTHOR SET Z_OPT = ?", (INT64_MAX,))
    db.close()
    with og.Coordinator(shop_model()) as coordinator:
        coordinator.add_store("SQLite", path)
        with og.Context(coordinator) as ctx:
            (author,) = ctx.fetch("Author")
            author.name = "Anne"
            with pytest.raises(og.StoreError) as info:
                ctx.save()
            assert info.value.code == 134030 and "Z_OPT" in info.value.message


def test_a_decimal_refuses_infinity_and_nan(tmp_path) -> None:
    with og.Coordinator(shop_model()) as coordinator:
        coordinator.add_store("InMemory")
        with og.Context(coordinator) as ctx:
            book = ctx.insert("Book", title="T", price=decimal.Decimal("2.50"))
            for bad in (float("inf"), float("-inf"), float("nan"), 1e300):
                with pytest.raises(og.ValidationError):
                    book.price = bad
                with pytest.raises(og.ValidationError):
                    book.set_double("price", bad)
                with pytest.raises(og.ValidationError):
                    book.set_value("price", bad)
            for bad in (decimal.Decimal("Infinity"), decimal.Decimal("NaN")):
                with pytest.raises(og.Error):
                    book.price = bad
            assert book.price == decimal.Decimal("2.5")
            book.price = 1.25
            ctx.save()
            assert book.price == decimal.Decimal("1.25")
            assert not math.isnan(float(book.price))


@pytest.mark.parametrize("store_type", ["InMemory", "Binary"])
def test_an_object_id_fetch_sorted_by_a_to_one_key_path(tmp_path, store_type) -> None:
    with og.Coordinator(shop_model()) as coordinator:
        coordinator.add_store(store_type, tmp_path / "shop.binary" if store_type == "Binary" else None)
        with og.Context(coordinator) as ctx:
            for name, title in [("Zed", "A"), ("Amy", "B"), ("Kim", "C")]:
                ctx.insert("Book", title=title, author=ctx.insert("Author", name=name))
            ctx.save()
        with og.Context(coordinator) as ctx:
            ids = ctx.fetch_ids("Book", sort=["author.name"])
            assert [ctx.object_with_id(i).title for i in ids] == ["B", "C", "A"]
            assert [r["title"] for r in ctx.fetch_dicts("Book", sort=["-author.name"], properties=["title"])] == ["A", "C", "B"]


@pytest.mark.parametrize("store_type", ["SQLite", "Binary", "InMemory"])
def test_a_transient_to_many_of_a_fetched_object(tmp_path, store_type) -> None:
    model = og.Model.from_json("""{"format": "objectgraph-model", "formatVersion": 1, "entities": [
        {"name": "Author", "attributes": [{"name": "name", "type": "string"}],
         "relationships": [{"name": "fans", "destination": "Book", "inverse": "idol", "toMany": true, "transient": true}]},
        {"name": "Book", "attributes": [{"name": "title", "type": "string"}],
         "relationships": [{"name": "idol", "destination": "Author", "inverse": "fans", "transient": true}]}]}""")
    path = None if store_type == "InMemory" else tmp_path / f"shop.{store_type}"
    with og.Coordinator(model) as coordinator:
        coordinator.add_store(store_type, path)
        with og.Context(coordinator) as ctx:
            ctx.insert("Author", name="Ann")
            ctx.insert("Book", title="T")
            ctx.save()
        with og.Context(coordinator) as ctx:
            (author,) = ctx.fetch("Author")
            assert len(author.fans) == 0
            (book,) = ctx.fetch("Book")
            book.idol = author
            assert list(author.fans) == [book]


def test_numbers_python_cannot_convert_are_errors_of_the_library() -> None:
    model = og.Model()
    book = model.add_entity("Book")
    book.add_attribute("rating", "double")
    book.add_attribute("pages", "integer64")
    with og.Coordinator(model) as coordinator:
        coordinator.add_store("InMemory")
        with og.Context(coordinator) as ctx:
            b = ctx.insert("Book", rating=1.5, pages=3)
            with pytest.raises(og.ValidationError) as info:
                b.rating = 10**400
            assert info.value.code == og.ErrorCode.VALIDATION_NUMBER_TOO_LARGE
            with pytest.raises(og.ValidationError):
                b.set_double("rating", 10**400)
            with pytest.raises(og.ValidationError):
                b.pages = 2**64
            with pytest.raises(og.TypeMismatchError):
                b.set_int64("pages", "3")  # type: ignore[arg-type]
            with pytest.raises(og.TypeMismatchError):
                b.set_double("rating", "x")  # type: ignore[arg-type]
            assert (b.rating, b.pages) == (1.5, 3)
