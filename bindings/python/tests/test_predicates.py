"""Predicates from Python: the shared case table, construction, evaluation on
dicts and managed objects, substitution, fetches, and errors."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, Dict

import pytest

import objectgraph as og

TABLE = Path(__file__).resolve().parents[3] / "Tests" / "Predicates" / "cases.json"
CASES = json.loads(TABLE.read_text(encoding="utf-8"))["cases"]
ERRORS = {
    "parse": og.PredicateSyntaxError,
    "argument": og.PredicateArgumentError,
    "variable": og.PredicateVariableError,
    "evaluate": og.PredicateEvaluationError,
}
REFERENCE = dt.datetime(2001, 1, 1, tzinfo=dt.timezone.utc)


def typed(arg: Dict[str, Any]) -> Any:
    (kind, value), = arg.items()
    if kind in ("int", "string", "key", "bool"):
        return value
    if kind == "double":
        return float(value)
    if kind == "null":
        return None
    if kind == "date":
        return REFERENCE + dt.timedelta(seconds=value)
    if kind == "array":
        return [typed(v) for v in value]
    raise ValueError(kind)


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$date"}:
            return REFERENCE + dt.timedelta(seconds=value["$date"])
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


# A sample of the table through the ABI: every third case.
@pytest.mark.parametrize("case", CASES[::3], ids=lambda c: c["id"])
def test_case_table(case: Dict[str, Any]) -> None:
    args = [typed(a) for a in case.get("args", [])]
    error = ERRORS.get(case.get("error", ""))
    if error is not None and case["error"] in ("parse", "argument"):
        with pytest.raises(error):
            og.Predicate(case["format"], *args)
        return
    predicate = og.Predicate(case["format"], *args)
    if "canonical" in case:
        assert predicate.format == case["canonical"]
    assert og.Predicate(predicate.format) == predicate
    obj = plain(case.get("object", {}))
    variables = plain(case.get("variables", {}))
    if error is not None:
        with pytest.raises(error):
            predicate.evaluate(obj, variables)
    else:
        assert predicate.evaluate(obj, variables) is case["result"]


def test_arguments_and_canonical_text() -> None:
    p = og.Predicate("age > %@ AND name BEGINSWITH[cd] %@ AND %K IN %@", 30, "zo", "tag", ["a", "b"])
    assert p.format == 'age > 30 AND name BEGINSWITH[cd] "zo" AND tag IN {"a", "b"}'
    assert p.evaluate({"age": 31, "name": "Zoë", "tag": "b"}) is True
    assert p.evaluate({"age": 31, "name": "Zoë", "tag": "c"}) is False
    assert str(p) == p.format and "Predicate" in repr(p)


def test_construction_and_operators() -> None:
    adult = og.Predicate.compare("age", ">=", 18)
    named = og.Predicate.compare("name", "BEGINSWITH", "a", case_insensitive=True)
    both = adult & named
    assert both.format == 'age >= 18 AND name BEGINSWITH[c] "a"'
    assert (adult | named).format == 'age >= 18 OR name BEGINSWITH[c] "a"'
    assert (~adult).format == "NOT age >= 18"
    assert both.evaluate({"age": 20, "name": "Ann"})
    any_pet = og.Predicate.compare("pets.age", ">", 10, quantifier="ANY")
    assert any_pet.format == "ANY pets.age > 10"
    assert any_pet.evaluate({"pets": [{"age": 3}, {"age": 12}]})
    with pytest.raises(og.UsageError):
        og.Predicate.compare("age", "≈", 1)
    with pytest.raises(og.UsageError):
        og.Predicate.compare("age", ">", 1, quantifier="MOST")


def test_variables_and_substitution() -> None:
    template = og.Predicate("age > $minimum")
    assert template.evaluate({"age": 40}, {"minimum": 30})
    with pytest.raises(og.PredicateVariableError) as caught:
        template.evaluate({"age": 40})
    assert caught.value.code == og.PREDICATE_VARIABLE and "minimum" in str(caught.value)
    concrete = template.substitute(minimum=50)
    assert concrete.format == "age > 50"
    assert not concrete.evaluate({"age": 40})
    with pytest.raises(og.PredicateVariableError):
        template.substitute({})


def test_syntax_errors_name_position_and_token() -> None:
    with pytest.raises(og.PredicateSyntaxError) as caught:
        og.Predicate("age > ")
    assert caught.value.code == og.PREDICATE_SYNTAX
    assert "position 6" in str(caught.value)
    with pytest.raises(og.PredicateArgumentError):
        og.Predicate("age > %d")
    with pytest.raises(og.PredicateArgumentError):
        og.Predicate("age > %d", "thirty")
    unknown_method = og.Predicate("FUNCTION(name, 'dealloc') == 1")
    assert "dealloc" in unknown_method.format
    with pytest.raises(og.PredicateEvaluationError, match="not allowed"):
        unknown_method.evaluate({"name": "Ann"})
    three_bounds = og.Predicate("age BETWEEN {1, 2, 3}")
    with pytest.raises(og.PredicateEvaluationError, match="got 3 bounds"):
        three_bounds.evaluate({"age": 2})
    with pytest.raises(og.PredicateEvaluationError) as evaluation:
        og.Predicate("name > 3").evaluate({"name": "Ann"})
    assert "string" in str(evaluation.value)
    with pytest.raises(og.TypeMismatchError):
        og.Predicate("x == %@", object())


def test_fetch_with_predicates(books_model: og.Model, open_stack: Any) -> None:
    ctx = open_stack(books_model).context
    pratchett = ctx.insert("Author", name="Terry Pratchett")
    gaiman = ctx.insert("Author", name="Neil Gaiman")
    for title, pages, author in [("mort", 250, pratchett), ("Guards! Guards!", 300, pratchett),
                                 ("Sourcery", 270, pratchett), ("Coraline", 160, gaiman), ("file10", 10, gaiman),
                                 ("file2", 2, gaiman)]:
        ctx.insert("Book", title=title, pages=pages, author=author)
    ctx.save()

    long_ones = ctx.fetch("Book", "pages > %@", 200, sort=["title"])
    assert [b.title for b in long_ones] == ["Guards! Guards!", "Sourcery", "mort"]
    by_author = ctx.fetch("Book", og.Predicate("author == %@", gaiman), sort="-pages")
    assert [b.title for b in by_author] == ["Coraline", "file10", "file2"]
    assert ctx.count("Book", "author.name BEGINSWITH[c] 'terry'") == 3
    assert ctx.count("Author", "ANY books.pages < 5") == 1
    assert ctx.count("Author", "books.@sum.pages > 800") == 1

    request = og.FetchRequest("Book", where="author.name CONTAINS 'Gaiman'")
    request.add_sort("title", comparison="localized_standard")
    assert [b.title for b in ctx.fetch(request)] == ["Coraline", "file2", "file10"]
    assert "where" in repr(request)
    insensitive = og.FetchRequest("Book").add_sort("title", comparison="case_insensitive")
    assert [b.title for b in ctx.fetch(insensitive)][:3] == ["Coraline", "file10", "file2"]
    with pytest.raises(og.UsageError):
        og.FetchRequest("Book").add_sort("title", comparison="alphabetical")

    # Pending changes are matched on their in-memory values.
    coraline = by_author[0]
    coraline.pages = 999
    assert coraline in ctx.fetch("Book", "pages > %@", 900)
    assert og.Predicate("pages > 900 AND author.name == 'Neil Gaiman'").evaluate(coraline)

    with pytest.raises(og.UnknownKeyError) as unknown:
        ctx.fetch("Book", "autor.name == 'x'")
    assert "autor" in str(unknown.value)
    with pytest.raises(og.UsageError):
        ctx.fetch(og.FetchRequest("Book"), "pages > 1")


def test_fetch_request_from_template(tmp_path: Path) -> None:
    shop = Path(__file__).resolve().parents[3] / "Tests" / "Fixtures" / "Models" / "Shop.xcdatamodeld"
    model = og.Model.load(str(shop))
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(tmp_path / "shop.sqlite"))
    with og.Context(coordinator) as ctx:
        for name, city in [("Ann", "Paris"), ("Bo", "Lyon"), ("Zoé", "Paris")]:
            ctx.insert("Customer", name=name, city=city)
        ctx.save()
        request = og.FetchRequest.from_template(model, "CustomersInCity", CITY="Paris")
        assert sorted(c.name for c in ctx.fetch(request)) == ["Ann", "Zoé"]
        nobody = og.FetchRequest.from_template(model, "CustomersInCity", {"CITY": None})
        assert ctx.fetch(nobody) == []
        with pytest.raises(og.PredicateVariableError) as caught:
            og.FetchRequest.from_template(model, "CustomersInCity")
        assert "CITY" in str(caught.value)
        with pytest.raises(og.UsageError):
            og.FetchRequest.from_template(model, "NoSuchTemplate")
    coordinator.close()
