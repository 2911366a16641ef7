"""Names a model gives (entities, properties, configurations, fetch indexes,
constraints) are letters, digits and underscores, not starting with a digit:
anything else is refused with 140009 naming it, before any store sees it."""

from __future__ import annotations

import json

import pytest

import objectgraph as og

from conftest import REPO

INVALID = REPO / "Tests" / "Fixtures" / "Models" / "Invalid"

INJECTED_INDEX = "byTitle ON ZBOOK (ZTITLE); DROP TABLE ZAUTHOR; CREATE INDEX Z_Book_x"


def model_json(**book: object) -> str:
    entity = {"name": "Book", "attributes": [{"name": "title", "type": "string"}]}
    entity.update(book)
    return json.dumps({"format": "objectgraph-model", "formatVersion": 1,
                       "entities": [{"name": "Author", "attributes": [{"name": "name", "type": "string"}]}, entity]})


def test_the_issues_model_file_is_refused_naming_the_index() -> None:
    with pytest.raises(og.ModelError) as info:
        og.Model.load(INVALID / "json-injected-fetch-index.json")
    assert info.value.code == og.ErrorCode.INVALID_MODEL == 140009
    assert "is not a valid name for a fetch index" in info.value.message
    assert "DROP TABLE ZAUTHOR" in info.value.message
    assert info.value.user_info["invalidName"] == INJECTED_INDEX
    assert info.value.user_info["entity"] == "Book"


def test_every_format_refuses_invalid_names() -> None:
    for name, what in [("injected-fetch-index.xcdatamodel", "fetch index"),
                       ("injected-configuration.xcdatamodel", "configuration"),
                       ("injected-uniqueness.xcdatamodel", "property in a uniqueness constraint"),
                       ("json-injected-property.json", "property")]:
        with pytest.raises(og.ModelError) as info:
            og.Model.load(INVALID / name)
        assert f"is not a valid name for a {what}" in info.value.message, name


def test_no_store_is_created_for_a_model_with_an_injected_name(tmp_path) -> None:
    with pytest.raises(og.ModelError):
        og.Model.from_json(model_json(fetchIndexes=[{"name": INJECTED_INDEX, "elements": [{"property": "title"}]}]))
    for bad in [{"uniquenessConstraints": [["title); DROP TABLE ZBOOK; --"]]},
                {"fetchIndexes": [{"name": "ok", "elements": [{"property": "title\"x"}]}]}]:
        with pytest.raises(og.ModelError) as info:
            og.Model.from_json(model_json(**bad))
        assert info.value.code == 140009
    assert list(tmp_path.iterdir()) == []


def test_names_given_in_code_are_checked() -> None:
    model = og.Model()
    with pytest.raises(og.ModelError) as info:
        model.add_entity("Book; DROP TABLE ZBOOK")
    assert info.value.code == 140009
    book = model.add_entity("Book")
    for bad in ["9lives", "a b", "quote'", ""]:
        with pytest.raises(og.Error):
            book.add_attribute(bad, "string")
    book.add_attribute("fine_name2", "string")
    # A name holding a NUL never reaches the library cut short at it.
    with pytest.raises(og.UsageError) as info:
        model.add_entity("Author\0; DROP")
    assert info.value.code == og.ErrorCode.INVALID_ARGUMENT
    assert [e.name for e in model.entities] == ["Book"]


def test_ordinary_names_still_work(tmp_path) -> None:
    model = og.Model.from_json(model_json(fetchIndexes=[{"name": "byTitle", "elements": [{"property": "title"}]}],
                                          uniquenessConstraints=[["title"]]))
    with og.Coordinator(model) as coordinator:
        coordinator.add_store("SQLite", tmp_path / "books.sqlite")
        with og.Context(coordinator) as ctx:
            ctx.insert("Book", title="Mort")
            ctx.save()
            assert [b.title for b in ctx.fetch("Book")] == ["Mort"]
