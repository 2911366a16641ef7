"""Real Xcode models and Apple's store layout from Python: what Xcode leaves out of a
model file, defaults in another type's spelling, redeclared properties, value classes,
fetch indexes and the indexed flag (og.FetchIndex, og.FetchIndexElement), join-table
and column names, and the indexes and auto-vacuum of new stores. The fixtures are
Tests/Fixtures/Models/XcodeDefaults.xcdatamodel and JoinTables.xcdatamodel."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

import objectgraph as og

from conftest import REPO

FIXTURES = REPO / "Tests" / "Fixtures" / "Models"


@pytest.fixture
def defaults() -> og.Model:
    return og.Model.load(FIXTURES / "XcodeDefaults.xcdatamodel")


def schema(path: Path) -> dict:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))


def new_store(tmp_path: Path, model: og.Model) -> Path:
    path = tmp_path / "store.sqlite"
    og.Coordinator(model).add_store("SQLite", path)
    return path


# Item 1: what Xcode leaves out.

def test_an_attribute_without_type_is_undefined(defaults: og.Model) -> None:
    scratch = defaults["Place"].attributes["scratch"]
    assert scratch.type == og.AttributeType.UNDEFINED
    assert scratch.transient


def test_omitted_attributes_take_xcodes_defaults(defaults: og.Model) -> None:
    note = defaults["Note"]
    assert not note.attributes["title"].optional
    place = note.relationships["place"]
    assert place.delete_rule == og.DeleteRule.NULLIFY
    assert (place.min_count, place.max_count, place.to_many) == (0, 1, False)
    colour = note.attributes["colour"]
    assert colour.value_class_name == "Colour"
    assert colour.value_transformer_name is None


# Item 3: defaults as Core Data's compiler reads them.

def test_defaults_in_another_spelling_are_read_as_core_data_reads_them(defaults: og.Model, tmp_path: Path) -> None:
    a = defaults["Note"].attributes
    assert a["pinned"].default == 0  # Integer 32 "NO"
    assert a["starred"].default == 1  # Integer 16 "YES"
    assert a["words"].default == 12  # "12 words"
    assert a["ratio"].default == 0.0  # "two"
    assert a["price"].default == Decimal("4.5")  # "4.50 EUR"
    assert a["archived"].default is True  # "true"
    assert a["token"].default is None  # not a UUID
    assert a["rank"].min_value == 1  # "1st"
    assert any("'pinned'" in w for w in defaults.warnings)
    context = og.Context(og.Coordinator(defaults))
    context.coordinator.add_store("InMemory")
    note = context.insert("Note", title="t")
    assert (note.pinned, note.starred) == (0, 1)


# Item 7: redeclared properties, value classes, indexes.

def test_a_subentity_may_redeclare_an_inherited_property(defaults: og.Model, tmp_path: Path) -> None:
    cafe, place = defaults["Cafe"], defaults["Place"]
    assert [p.name for p in cafe.properties].count("label") == 1
    assert cafe.attributes["label"].default == "Coffee"
    assert place.attributes["label"].default is None
    assert cafe.slot("label") == place.slot("label")
    coordinator = og.Coordinator(defaults)
    coordinator.add_store("SQLite", tmp_path / "cafe.sqlite")
    context = og.Context(coordinator)
    context.insert("Cafe")
    context.save()
    assert [c.label for c in context.fetch("Place", where="label == 'Coffee'")] == ["Coffee"]


def test_fetch_indexes_keep_partial_predicates_and_rtree_elements(defaults: og.Model) -> None:
    note, place = defaults["Note"], defaults["Place"]
    indexes = note.fetch_indexes
    assert [i.name for i in indexes] == ["words", "byPlace", "byPlaceAndTitle", "byStampAndTitle", "byTitledOnly"]
    assert indexes[-1].partial_predicate == "title != nil"
    assert all(i.entity is note for i in indexes)
    stamp_title = indexes[3]
    assert [(e.property_name, e.collation, e.ascending) for e in stamp_title.elements] == [
        ("stamp", "binary", False), ("title", "binary", True)]
    assert stamp_title.elements[0].property is note.attributes["stamp"]
    assert [e.collation for e in place.fetch_indexes[0].elements] == ["rtree", "rtree"]
    assert note.compound_indexes == []
    note.compound_indexes = [["title"]]  # accepted and ignored, as on Apple
    assert note.compound_indexes == []


def test_indexed_is_an_index_of_the_property_alone(defaults: og.Model) -> None:
    note = defaults["Note"]
    a = note.attributes
    assert a["words"].indexed  # indexed="YES": an index named after it
    assert a["title"].indexed  # byTitledOnly: partial ones count
    assert not a["stamp"].indexed  # one element of several
    assert note.relationships["place"].indexed  # relationships always are
    note.fetch_indexes = [og.FetchIndex("down", [og.FetchIndexElement(a["title"], ascending=False)])]
    assert not a["title"].indexed
    a["title"].indexed = True
    assert [i.name for i in note.fetch_indexes] == ["down", "title"]
    a["title"].indexed = False
    assert [i.name for i in note.fetch_indexes] == ["down"]


def test_fetch_index_values_and_their_errors(defaults: og.Model) -> None:
    note, place = defaults["Note"], defaults["Place"]
    lat = place.attributes["latitude"]
    element = og.FetchIndexElement(lat, "rtree")
    assert (element.property_name, element.collation, element.ascending, element.index) == ("latitude", "rtree", True, None)
    assert og.FetchIndexElement(lat, 1).collation == "rtree"  # Apple's number
    index = og.FetchIndex("byLat", [element], partial_predicate="latitude > 0")
    assert element.index is index and index.entity is None
    twin = index.copy()
    assert twin is not index and twin.elements[0] is not element and twin.elements[0].index is twin
    assert twin.partial_predicate == "latitude > 0"
    with pytest.raises(og.ModelError) as info:
        og.FetchIndexElement(note.attributes["title"], "rtree")
    assert info.value.code == og.ErrorCode.INVALID_MODEL
    with pytest.raises(og.TypeMismatchError) as info:
        og.FetchIndexElement("title")  # type: ignore[arg-type]
    assert info.value.code == og.ErrorCode.TYPE_MISMATCH
    with pytest.raises(og.TypeMismatchError):
        og.FetchIndexElement(None)  # type: ignore[arg-type]
    with pytest.raises(og.ModelError) as info:
        note.fetch_indexes = [index]  # latitude is Place's
    assert info.value.code == og.ErrorCode.INVALID_MODEL
    place.fetch_indexes = [index]
    assert index.entity is place
    back = place.fetch_indexes[0]
    assert (back.name, back.partial_predicate, back.elements[0].collation) == ("byLat", "latitude > 0", "rtree")
    og.Coordinator(defaults)  # the model is now in use
    with pytest.raises(og.ModelError) as info:
        place.fetch_indexes = []
    assert info.value.code == og.ErrorCode.MODEL_IMMUTABLE


# Items 4, 5 and 7: the store's names and indexes.

def test_join_tables_and_columns_are_named_as_apple_names_them(tmp_path: Path) -> None:
    s = schema(new_store(tmp_path, og.Model.load(FIXTURES / "JoinTables.xcdatamodel")))
    assert s["Z_8BLOCKING"] == "CREATE TABLE Z_8BLOCKING ( Z_8BLOCKEDBY INTEGER, Z_8BLOCKING INTEGER, PRIMARY KEY (Z_8BLOCKEDBY, Z_8BLOCKING) )"
    assert s["Z_8BLOCKING_Z_8BLOCKING_INDEX"] == "CREATE INDEX Z_8BLOCKING_Z_8BLOCKING_INDEX ON Z_8BLOCKING (Z_8BLOCKING, Z_8BLOCKEDBY)"
    assert "Z_8BLOCKEDBY" not in s
    assert s["Z_6PARENTGROUPS"] == (
        "CREATE TABLE Z_6PARENTGROUPS ( Z_6CONTACTS INTEGER, Z_4PARENTGROUPS1 INTEGER, PRIMARY KEY (Z_6CONTACTS, Z_4PARENTGROUPS1) )")
    assert s["Z_7USERS"] == "CREATE TABLE Z_7USERS ( Z_7CONTAINERS INTEGER, Z_8USERS1 INTEGER, PRIMARY KEY (Z_7CONTAINERS, Z_8USERS1) )"
    assert s["ZRECORD"] == ("CREATE TABLE ZRECORD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCONTAINER INTEGER, "
                            "ZCONTAINER1 INTEGER, ZCREATED TIMESTAMP, ZNAME VARCHAR, ZQUERY VARCHAR, ZFIRSTNAME VARCHAR, ZNAME1 VARCHAR )")


def test_a_reflexive_many_to_many_works_under_apples_names(tmp_path: Path) -> None:
    coordinator = og.Coordinator(og.Model.load(FIXTURES / "JoinTables.xcdatamodel"))
    coordinator.add_store("SQLite", tmp_path / "users.sqlite")
    context = og.Context(coordinator)
    ann, bob = context.insert("User", handle="ann"), context.insert("User", handle="bob")
    ann.blocking.add(bob)
    context.save()
    with sqlite3.connect(tmp_path / "users.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM Z_8BLOCKING").fetchone() == (1,)
    assert [u.handle for u in context.fetch("User", where="ANY blockedBy.handle == 'ann'")] == ["bob"]


def test_new_stores_get_apples_indexes_and_incremental_auto_vacuum(defaults: og.Model, tmp_path: Path) -> None:
    path = new_store(tmp_path, defaults)
    s = schema(path)
    assert s["Z_Note_byTitledOnly"] == "CREATE INDEX Z_Note_byTitledOnly ON ZNOTE (ZTITLE COLLATE BINARY ASC) WHERE ZTITLE IS NOT NULL"
    assert s["Z_Note_words"] == "CREATE INDEX Z_Note_words ON ZNOTE (ZWORDS COLLATE BINARY ASC)"
    assert "Z_Note_byPlace" not in s  # a to-one alone: its foreign key's index serves
    assert "Z_Place_byLocation" not in s  # an R-tree
    assert s["Z_Cafe_byRoast"] == "CREATE INDEX Z_Cafe_byRoast ON ZPLACE (ZROAST COLLATE BINARY ASC)"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA auto_vacuum").fetchone() == (2,)
    assert og.Coordinator.metadata_value(path, "_NSAutoVacuumLevel") == "2"
