"""Xcode model files from Python: Model.load picks the format from the path,
model.write writes it back, and the model's details mirror the Swift API."""

import os

import pytest

import objectgraph as og

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "Fixtures", "Models")


def fixture(name):
    return os.path.join(FIXTURES, name)


def test_inheritance_fixture():
    m = og.Model.load(fixture("Inheritance.xcdatamodeld"))
    vehicle, car, sports = m["Vehicle"], m["Car"], m["SportsCar"]
    assert vehicle.abstract and sports.superentity is car
    assert sports.is_kind_of(vehicle) and not vehicle.is_kind_of(sports)
    assert [e.name for e in vehicle.subentities] == ["Car"]
    assert car.class_name == "Car" and car.renaming_identifier == "Automobile"
    assert vehicle.user_info("table") == "vehicles" and vehicle.user_info("none") is None
    plate = car["plate"]
    assert plate.renaming_identifier == "registration" and plate.user_info("format") == "upper"
    assert not plate.transient
    fast = m["Person"]["fastCars"]
    assert isinstance(fast, og.FetchedProperty)
    assert fast.entity_name == "SportsCar"
    assert fast.predicate == "owner == $FETCH_SOURCE AND topSpeed > 200"
    assert m.version_identifiers == ["1"] and m.warnings == []
    m.validate()


def test_relationships_types_templates_configurations():
    lib = og.Model.load(fixture("Library.xcdatamodeld"))
    authors = lib["Book"]["authors"]
    assert (authors.min_count, authors.max_count) == (1, 10)
    assert lib["Shelf"]["books"].ordered
    types = og.Model.load(fixture("AllTypes.xcdatamodeld"))
    assert types["Sample"]["colour"].value_transformer_name == "ColourTransformer"
    assert types["Sample"]["code"].value_transformer_name is None
    shop = og.Model.load(fixture("Shop.xcdatamodeld"))
    assert shop.configurations == ["Sales", "Audit"]
    assert [e.name for e in shop.entities_for_configuration("Sales")] == ["Customer", "Order"]
    assert len(shop.entities_for_configuration(None)) == 3
    assert shop.fetch_request_templates == {"AllAudit": "AuditEntry", "CustomersInCity": "Customer", "LargeOrders": "Order"}
    assert shop.fetch_request_from_template("CustomersInCity", CITY="Paris") == 'city == "Paris"'
    with pytest.raises(og.Error, match=r"\$MINIMUM"):
        shop.fetch_request_from_template("LargeOrders", PREFIX="a")


def test_versions_write_copy_and_errors(tmp_path):
    old = og.Model.load_version(fixture("Versions.xcdatamodeld"), "Versions")
    assert "Tag" not in old
    current = og.Model.load(fixture("Versions.xcdatamodeld"))
    assert "Tag" in current and current.version_identifiers == ["2"]
    for name in ("Copy.xcdatamodeld", "Copy.xcdatamodel", "copy.json"):
        current.write(tmp_path / name)
        again = og.Model.load(tmp_path / name)
        assert [e.name for e in again.entities] == ["Note", "Tag"]
        assert again["Note"].version_hash == current["Note"].version_hash
    copy = current.copy()
    assert copy.editable and len(copy) == 2
    with pytest.raises(og.Error) as info:
        og.Model.load(fixture("Invalid/unknown-destination.xcdatamodel"))
    assert "entity 'A', property 'r'" in str(info.value)
    with pytest.raises(og.Error):
        current.write(tmp_path / "x.mom")


def test_a_new_store_keeps_its_model(tmp_path) -> None:
    """A store ObjectGraph creates caches its compiled model as Core Data does: raw
    DEFLATE (what zlib inflates with -15 window bits) of an NSKeyedArchiver binary plist."""
    import plistlib
    import sqlite3
    import zlib

    import objectgraph as og
    from conftest import build_books_model

    path = tmp_path / "ours.sqlite"
    coordinator = og.Coordinator(build_books_model())
    store = coordinator.add_store("SQLite", str(path))
    model = og.Model.from_store(path)
    assert [e.name for e in model.entities] == ["Author", "Book"]
    assert model.entity_version_hashes == store.version_hashes
    again = og.Coordinator(model)
    again.add_store("SQLite", str(path))
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT sql FROM sqlite_master WHERE name = 'Z_MODELCACHE'").fetchall() == [
            ("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",)]
        (blob,), = db.execute("SELECT Z_CONTENT FROM Z_MODELCACHE").fetchall()
    archive = plistlib.loads(zlib.decompress(blob, -15))
    assert archive["$archiver"] == "NSKeyedArchiver" and archive["$version"] == 100000
    objects = archive["$objects"]
    root = objects[archive["$top"]["root"].data]
    assert objects[root["$class"].data]["$classname"] == "NSManagedObjectModel"
    classes = {o["$classname"] for o in objects if isinstance(o, dict) and "$classname" in o}
    assert {"NSEntityDescription", "NSAttributeDescription", "NSRelationshipDescription"} <= classes


def test_a_store_without_a_cached_model(tmp_path) -> None:
    import sqlite3

    import objectgraph as og
    from conftest import build_books_model

    coordinator = og.Coordinator(build_books_model())
    coordinator.add_store("SQLite", str(tmp_path / "ours.sqlite"))
    # As a store written before stores kept their model.
    with sqlite3.connect(tmp_path / "ours.sqlite") as db:
        db.execute("DROP TABLE Z_MODELCACHE")
    with pytest.raises(og.MigrationError) as info:
        og.Model.from_store(tmp_path / "ours.sqlite")
    assert info.value.code == og.MIGRATION_MISSING_SOURCE_MODEL == 134130
    with pytest.raises(og.StoreError):
        og.Model.from_store(tmp_path / "missing.sqlite")
