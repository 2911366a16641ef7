"""Building models, reading them back, and the JSON round trip."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
from typing import Any, Dict, Tuple

import pytest

import objectgraph as og

from conftest import DATA, build_books_model


def test_built_model_reads_back(books_model: og.Model) -> None:
    model = books_model
    assert [e.name for e in model.entities] == ["Author", "Book"]
    assert "Book" in model and "Nope" not in model and len(model) == 2
    book = model["Book"]
    assert book is model["Book"] is model.entity("Book")
    assert book.name == "Book" and book.model is model
    assert book.superentity is None and book.abstract is False

    assert [p.name for p in book.properties] == ["title", "pages", "year", "rating", "author"]
    assert list(book.attributes) == ["title", "pages", "year", "rating"]
    assert list(book.relationships) == ["author"]
    assert book.slot("title") == 0 and book.slot("author") == 4
    assert "title" in book and "nope" not in book

    title = book.attributes["title"]
    assert isinstance(title, og.Attribute) and book["title"] is title
    assert title.name == "title" and title.entity is book
    assert title.type is og.AttributeType.STRING and title.type == 700
    assert title.optional is False and title.default == "Untitled"
    pages = book.attributes["pages"]
    assert pages.type == og.AttributeType.INTEGER32 and pages.optional is True and pages.default == 0
    assert book.attributes["year"].default is None
    assert title.kind is og.PropertyKind.ATTRIBUTE

    author_rel = book.relationships["author"]
    books_rel = model["Author"].relationships["books"]
    assert isinstance(author_rel, og.Relationship)
    assert author_rel.destination is model["Author"] and books_rel.destination is book
    assert author_rel.inverse is books_rel and books_rel.inverse is author_rel
    assert author_rel.to_many is False and books_rel.to_many is True
    assert author_rel.delete_rule is og.DeleteRule.NULLIFY
    assert books_rel.delete_rule is og.DeleteRule.CASCADE and books_rel.delete_rule == 2


def test_setters_change_the_model() -> None:
    model = og.Model()
    base = model.add_entity("Item")
    thing = model.add_entity("Thing")
    base.abstract = True
    thing.superentity = base
    base.add_attribute("label", og.AttributeType.STRING)
    thing.add_attribute("weight", "float")
    rel = thing.add_relationship("peer", thing)
    rel.optional = False
    rel.to_many = True
    rel.delete_rule = og.DeleteRule.DENY
    assert base.abstract is True and thing.superentity is base
    # The superentity's slots come first.
    assert [p.name for p in thing.properties] == ["label", "weight", "peer"]
    assert thing.slot("label") == 0
    assert rel.optional is False and rel.to_many is True and rel.delete_rule is og.DeleteRule.DENY
    thing.superentity = None
    assert thing.superentity is None and "label" not in thing


def test_attribute_types_accept_names_numbers_and_members() -> None:
    assert og.AttributeType.parse("integer64") is og.AttributeType.INTEGER64
    assert og.AttributeType.parse("Integer16") is og.AttributeType.INTEGER16
    assert og.AttributeType.parse(1100) is og.AttributeType.UUID
    assert og.AttributeType.parse("binary") is og.AttributeType.BINARY
    assert og.DeleteRule.parse("noAction") is og.DeleteRule.NO_ACTION
    with pytest.raises(og.UsageError) as info:
        og.AttributeType.parse("integer128")
    assert info.value.code == og.INVALID_ARGUMENT and "integer128" in info.value.message


def test_defaults_of_every_type_round_trip_through_json() -> None:
    model = og.Model()
    e = model.add_entity("Sample")
    defaults: Dict[str, Tuple[str, Any]] = {
        "i16": ("integer16", -7),
        "i32": ("integer32", 70000),
        "i64": ("integer64", 2**40),
        "dec": ("decimal", decimal.Decimal("12.50")),
        "dbl": ("double", 2.5),
        "flt": ("float", 0.5),
        "txt": ("string", "héllo"),
        "flag": ("boolean", True),
        "when": ("date", dt.datetime(2001, 1, 1, tzinfo=dt.timezone.utc)),
        "blob": ("binary", b"\x00\x01"),
        "uid": ("uuid", uuid.UUID("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
        "link": ("uri", "https://example.com/x"),
    }
    for name, (kind, value) in defaults.items():
        e.add_attribute(name, kind, default=value)
    again = og.Model.from_json(model.to_json())
    for name, (kind, value) in defaults.items():
        attribute = again["Sample"].attributes[name]
        assert attribute.type is og.AttributeType.parse(kind)
        assert attribute.default == value, name
    assert again["Sample"].attributes["flag"].default is True


def test_json_round_trip_and_files(tmp_path, books_model: og.Model) -> None:
    text = books_model.to_json()
    document = json.loads(text)
    assert document["format"] == "objectgraph-model" and document["formatVersion"] == 1
    names = [e["name"] for e in document["entities"]]
    assert names == ["Author", "Book"]

    path = tmp_path / "Books.json"
    books_model.save(path)
    loaded = og.Model.load(path)
    assert loaded.to_json() == text
    for entity in books_model.entities:
        assert loaded[entity.name].version_hash == entity.version_hash

    # The file written by hand in the documented format loads too.
    from_file = og.Model.load(DATA / "Books.json")
    book = from_file["Book"]
    assert list(book.attributes) == ["title", "pages", "year"]
    assert from_file["Author"].attributes["born"].default == dt.datetime(1948, 4, 28, tzinfo=dt.timezone.utc)
    assert from_file["Author"].relationships["books"].delete_rule is og.DeleteRule.CASCADE


def test_version_hashes_are_stable_and_sensitive() -> None:
    first, second = build_books_model(), build_books_model()
    digest = first["Book"].version_hash
    assert isinstance(digest, bytes) and len(digest) == 32
    assert digest == second["Book"].version_hash
    assert digest != first["Author"].version_hash
    second["Book"].add_attribute("isbn", "string")
    assert digest != second["Book"].version_hash


def test_a_model_in_use_is_immutable(books_model: og.Model) -> None:
    assert books_model.editable is True
    coordinator = og.Coordinator(books_model)
    try:
        assert books_model.editable is False
        with pytest.raises(og.ModelError) as info:
            books_model.add_entity("Late")
        assert info.value.code == og.MODEL_IMMUTABLE == 140008
        assert info.value.domain == og.DOMAIN_OBJECTGRAPH
    finally:
        coordinator.close()


def test_invalid_model_json_names_the_problem() -> None:
    bad = {"format": "objectgraph-model", "formatVersion": 1,
           "entities": [{"name": "Book", "attributes": [{"name": "title", "type": "strng"}]}]}
    with pytest.raises(og.ModelError) as info:
        og.Model.from_json(json.dumps(bad))
    assert info.value.code == og.INVALID_MODEL == 140009
    assert "Book" in info.value.message


def test_duplicate_names_are_refused(books_model: og.Model) -> None:
    with pytest.raises(og.Error) as info:
        books_model.add_entity("Book")
    assert "Book" in info.value.message
    with pytest.raises(og.Error) as info:
        books_model["Book"].add_attribute("title", "string")
    assert "title" in info.value.message
