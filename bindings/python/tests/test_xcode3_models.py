"""Xcode 3's binary data models (an `.xcdatamodel` folder with `elements`) from
Python: og.Model.load and og.Model.load_version read them through the same entry
points as Xcode 4's `contents`. The real models in ../shared/fixtures/xcode3-models
(read in place; skipped when absent) give what their expected.json says; a damaged
archive is a ModelError naming the file."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import XCODE3_MODELS

import objectgraph as og

ROOT = XCODE3_MODELS

needs_fixtures = pytest.mark.skipif(not (ROOT / "expected.json").exists(), reason="no Xcode 3 fixtures")


def expected() -> dict:
    return json.loads((ROOT / "expected.json").read_text(encoding="utf-8"))


def default_value(text, kind: og.AttributeType):
    """What an archived default's text means for the fixtures' types (a Date's text gives none)."""
    if text is None:
        return None
    if kind in (og.AttributeType.INTEGER16, og.AttributeType.INTEGER32, og.AttributeType.INTEGER64):
        return int(text)
    if kind in (og.AttributeType.DOUBLE, og.AttributeType.FLOAT):
        return float(text)
    if kind == og.AttributeType.DECIMAL:
        return Decimal(text)
    if kind == og.AttributeType.BOOLEAN:
        return {"YES": True, "NO": False}[text]
    if kind == og.AttributeType.STRING:
        return text
    return None


def own(entity: og.Entity) -> dict:
    """The properties an entity declares itself, by name."""
    props = {p.name: p for p in entity.properties if p.entity.name == entity.name}
    props.update({n: p for n, p in entity.fetched_properties.items() if p.entity.name == entity.name})
    return props


@needs_fixtures
@pytest.mark.parametrize("path", sorted(json.loads((ROOT / "expected.json").read_text(encoding="utf-8")))
                         if (ROOT / "expected.json").exists() else [])
def test_fixture_gives_its_expected_model(path: str) -> None:
    want = expected()[path]
    m = og.Model.load(ROOT / path)
    assert [e.name for e in m.entities] == [e["name"] for e in want["entities"]]
    assert m.version_identifiers == ([want["version_identifier"]] if want["version_identifier"] else [])
    assert m.configurations == []
    for e in want["entities"]:
        entity = m[e["name"]]
        assert entity.class_name == (e["class_name"] or "ManagedObject")
        assert (entity.superentity.name if entity.superentity else None) == e["parent"]
        assert entity.abstract == e["abstract"]
        props = own(entity)
        assert len(props) == len(e["attributes"]) + len(e["relationships"]) + len(e["fetched_properties"]), e["name"]
        for a in e["attributes"]:
            attr = props[a["name"]]
            assert isinstance(attr, og.Attribute)
            assert int(attr.type) == a["type_code"], a["name"]
            assert (attr.optional, attr.transient, attr.indexed) == (a["optional"], a["transient"], a["indexed"]), a["name"]
            assert attr.default == default_value(a["default"], attr.type), a["name"]
            strings = {k: v for k, v in (a.get("user_info") or {}).items() if isinstance(v, str)}
            assert attr.user_info_dict == strings
        for r in e["relationships"]:
            rel = props[r["name"]]
            assert isinstance(rel, og.Relationship)
            assert rel.destination.name == r["destination"]
            assert (rel.inverse.name if rel.inverse else None) == r["inverse"]
            assert (rel.to_many, rel.min_count, rel.max_count) == (r["to_many"], r["min"], r["max"]), r["name"]
            assert rel.delete_rule == {"No Action": og.DeleteRule.NO_ACTION, "Nullify": og.DeleteRule.NULLIFY,
                                       "Cascade": og.DeleteRule.CASCADE, "Deny": og.DeleteRule.DENY}[r["delete_rule"]]
            assert (rel.optional, rel.ordered) == (r["optional"], r["ordered"]), r["name"]
        for f in e["fetched_properties"]:
            fetched = props[f["name"]]
            assert isinstance(fetched, og.FetchedProperty)
            assert (fetched.entity_name, fetched.predicate, fetched.optional) == (f["destination"], f["predicate"], f["optional"])
    assert m.fetch_request_templates == {t["name"]: t["entity"] for t in want["fetch_requests"]}
    m.validate()


@needs_fixtures
def test_load_version_of_a_bundle_of_xcode3_versions(tmp_path: Path) -> None:
    bundle = tmp_path / "Mixed.xcdatamodeld"
    bundle.mkdir()
    # Links, so the fixtures are read in place; version names may have spaces.
    (bundle / "WordPress 13.xcdatamodel").symlink_to(ROOT / "wordpress-ios-13" / "WordPress 13.xcdatamodel")
    (bundle / "Locations.xcdatamodel").symlink_to(ROOT / "learn-coredata-locations" / "Locations.xcdatamodel")
    (bundle / ".xccurrentversion").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>_XCCurrentVersionName</key>'
        "<string>Locations.xcdatamodel</string></dict></plist>\n", encoding="utf-8")
    current = og.Model.load_version(bundle)
    assert [e.name for e in current.entities] == ["Event"]
    assert current["Event"]["latitude"].default == 0.0
    wordpress = og.Model.load_version(bundle, "WordPress 13")
    assert len(wordpress.entities) == 13
    assert wordpress["Page"].superentity.name == "AbstractPost"
    assert wordpress["AbstractPost"].abstract
    assert wordpress["Category"].class_name == "Cateogry"
    assert og.Model.load(bundle).entity_version_hashes == current.entity_version_hashes
    # The model reads the same from its Xcode 4 conversion: equal version hashes.
    converted = og.Model.load(ROOT / "wordpress-ios-13" / "ground-truth" / "WordPress 13.xcdatamodel")
    assert wordpress.entity_version_hashes == converted.entity_version_hashes


@needs_fixtures
def test_written_back_as_xcode4_contents(tmp_path: Path) -> None:
    m = og.Model.load(ROOT / "mogenerator-test" / "test.xcdatamodel")
    m.write(tmp_path / "Copy.xcdatamodel")
    assert (tmp_path / "Copy.xcdatamodel" / "contents").exists()
    again = og.Model.load(tmp_path / "Copy.xcdatamodel")
    assert again.entity_version_hashes == m.entity_version_hashes
    assert again["Parent"]["children"].ordered


def test_damaged_archive_is_a_model_error(tmp_path: Path) -> None:
    folder = tmp_path / "Damaged.xcdatamodel"
    folder.mkdir()
    (folder / "elements").write_bytes(b"bplist00 cut short")
    with pytest.raises(og.ModelError, match="not an Xcode 3 model archive") as info:
        og.Model.load(folder)
    assert str(folder / "elements") in str(info.value)
    empty = tmp_path / "Empty.xcdatamodel"
    empty.mkdir()
    with pytest.raises(og.ModelError, match="no 'elements' file"):
        og.Model.load(empty)
