"""Fetch result types from Python: object IDs, dictionaries (properties,
expressions, distinct, group by, having) and counts, on SQLite and in memory."""

from __future__ import annotations

import datetime as dt
import gc

import pytest

import objectgraph as og


@pytest.fixture(params=["SQLite", "InMemory"])
def ctx(request, tmp_path, books_model):
    coordinator = og.Coordinator(books_model)
    coordinator.add_store(request.param, str(tmp_path / "books.sqlite") if request.param == "SQLite" else None)
    with og.Context(coordinator) as context:
        terry = context.insert("Author", name="Terry", born=dt.datetime(1948, 4, 28, tzinfo=dt.timezone.utc))
        neil = context.insert("Author", name="Neil")
        for title, pages, year, rating, author in [
            ("Mort", 240, 1987, 4.0, terry), ("Eric", 160, 1990, 3.5, terry), ("Pyramids", 320, 1989, 4.5, terry),
            ("Coraline", 160, 2002, 4.0, neil), ("Stardust", 250, 1999, None, neil), ("Nothing", 10, None, 1.0, None),
        ]:
            context.insert("Book", title=title, pages=pages, year=year, rating=rating, author=author)
        context.save()
        yield context
    coordinator.close()
    gc.collect()


def test_object_ids_include_pending_changes(ctx) -> None:
    ids = ctx.fetch_ids("Book", "pages >= 200", sort="title")
    assert [i.primary_key for i in ids] == [1, 3, 5]
    assert all(isinstance(i, og.ObjectID) and isinstance(i, str) and i.entity == "Book" for i in ids)
    assert not ids[0].is_temporary and ids[0].store_uuid
    assert ctx.object_with_id(ids[0]).title == "Mort"
    new = ctx.insert("Book", title="Sourcery", pages=300)
    ids = ctx.fetch("Book", "pages >= 200", result_type="object_id", sort="title")
    assert len(ids) == 4 and ids[2].is_temporary and ids[2] == new.object_id  # sorted by title
    request = og.FetchRequest("Book", where="pages >= 200", result_type="object_id")
    assert request.result_type == "object_id"
    assert ctx.fetch(request) == ctx.fetch_ids(request)
    assert ctx.count(request) == 4


def test_dictionaries_with_properties_to_ones_and_key_paths(ctx) -> None:
    rows = ctx.fetch("Book", "author != nil", result_type="dictionary",
                     properties=["title", "author", "author.name", "rating"], sort="title")
    assert [list(r) for r in rows][0] == ["title", "author", "author.name", "rating"]
    assert rows[0]["title"] == "Coraline" and rows[0]["author.name"] == "Neil"
    assert isinstance(rows[0]["author"], og.ObjectID) and rows[0]["author"].entity == "Author"
    assert ctx.object_with_id(rows[0]["author"]).name == "Neil"
    assert rows[-1] == {"title": "Stardust", "author": rows[-1]["author"], "author.name": "Neil", "rating": None}
    every = ctx.fetch_dicts("Author", sort="name")
    assert every[0] == {"name": "Neil", "born": None}
    assert every[1]["born"] == dt.datetime(1948, 4, 28, tzinfo=dt.timezone.utc)


def test_dictionaries_ignore_unsaved_changes(ctx) -> None:
    before = ctx.fetch_dicts("Book", properties=["title"], sort="title")
    ctx.insert("Book", title="Aardvark")
    assert ctx.fetch_dicts("Book", properties=["title"], sort="title") == before
    assert ctx.count("Book") == 7
    assert ctx.count("Book", result_type="dictionary") == 6


def test_expressions_distinct_group_by_and_having(ctx) -> None:
    totals = ctx.fetch_dicts("Book", properties=[
        og.Expression("sum:(pages)", name="pages", type="integer64"),
        og.Expression("average:(rating)", name="mean", type="double"),
        og.Expression("count:(year)", name="dated"),
        og.Expression("max:(year)", name="latest"),
    ])
    assert totals == [{"pages": 1140, "mean": 3.4, "dated": 5, "latest": 2002}]
    years = ctx.fetch_dicts("Book", "year != nil", properties=["title", og.Expression("year + 1", name="next")], sort="title")
    assert years[0] == {"title": "Coraline", "next": 2003}
    distinct = og.FetchRequest("Book", sort="-pages", result_type="dictionary", properties=["pages"], distinct=True)
    assert distinct.distinct and distinct.properties == ["pages"]
    assert [r["pages"] for r in ctx.fetch(distinct)] == [320, 250, 240, 160, 10]
    assert ctx.count(distinct) == 5
    request = og.FetchRequest(
        "Book", sort="author.name", where="author != nil", result_type="dictionary",
        properties=["author.name", og.Expression("sum:(pages)", name="total", type="integer64"),
                    og.Expression("count:(title)", name="books")],
        group_by=["author.name"], having="total > 500")
    assert request.group_by == ["author.name"] and request.having.format == "total > 500"
    assert ctx.fetch(request) == [{"author.name": "Terry", "total": 720, "books": 3}]
    assert ctx.count(request) == 1
    by_author = ctx.fetch_dicts("Book", properties=["author", og.Expression("count:(title)", name="n")], group_by=["author"])
    assert [r["n"] for r in by_author] == [1, 3, 2]
    assert by_author[0]["author"] is None
    assert ctx.fetch("Book", result_type="count") == 6


def test_grouped_fetch_sorts_by_an_expression_name(ctx) -> None:
    rows = ctx.fetch_dicts("Book", sort=["-headcount", "author.name"], where="author != nil",
                           properties=["author.name", og.Expression("count:(title)", name="headcount")],
                           group_by=["author.name"])
    assert rows == [{"author.name": "Terry", "headcount": 3}, {"author.name": "Neil", "headcount": 2}]


def test_errors(ctx) -> None:
    with pytest.raises(og.UnknownKeyError) as info:
        ctx.fetch_dicts("Book", properties=["titel"])
    assert "titel" in str(info.value)
    with pytest.raises(og.Error) as info:
        ctx.fetch_dicts("Author", properties=["books"])
    assert info.value.code == og.ErrorCode.INVALID_ARGUMENT and "to-many" in str(info.value)
    with pytest.raises(og.PredicateSyntaxError):
        og.FetchRequest("Book", properties=[og.Expression("sum:(pages", name="x")])
    with pytest.raises(og.Error) as info:
        ctx.fetch_dicts("Book", properties=["title", og.Expression("count:(title)", name="n")])
    assert info.value.code == og.ErrorCode.INVALID_ARGUMENT and "group" in str(info.value).lower()
    with pytest.raises(og.Error) as info:
        ctx.fetch("Book", group_by=["title"])
    assert info.value.code == og.ErrorCode.INVALID_ARGUMENT and "dictionary" in str(info.value)
    with pytest.raises(og.Error) as info:
        og.FetchRequest("Book", result_type="rows")
    assert info.value.code == og.ErrorCode.INVALID_ARGUMENT
    with pytest.raises(og.Error):
        og.Expression("pages", name="")
    with pytest.raises(og.Error):
        og.Expression("pages", name="p", type="nope")
    with pytest.raises(TypeError, match="colour"):  # options are keyword-only and named
        ctx.fetch("Book", colour="red")  # type: ignore[call-overload]
    request = og.FetchRequest("Book")
    with pytest.raises(og.Error):
        ctx.fetch(request, result_type="dictionary")
    request.close()


def test_values_of_one_property_and_repr(ctx) -> None:
    assert ctx.fetch_values("Book", "title", "pages > 200", sort="title") == ["Mort", "Pyramids", "Stardust"]
    assert ctx.fetch_values("Book", "pages", distinct=True, sort="pages") == [10, 160, 240, 250, 320]
    authors = ctx.fetch_values("Book", "author", "author != nil", distinct=True)
    assert sorted(a.primary_key for a in authors) == [1, 2]
    request = og.FetchRequest("Book", result_type="dictionary", properties=["title", og.Expression("pages * 2", name="p")])
    assert "result_type=dictionary properties=2" in repr(request)
    request.close()
