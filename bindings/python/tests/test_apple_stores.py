"""Stores written by Apple's Core Data (../shared/fixtures/apple-stores, read on
copies; skipped when absent): they open with the model that wrote them, read back
the facts their MANIFEST.md states, save in place, and refuse another model version.
Damaged files are refused with Core Data's codes and left as they were."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import APPLE_STORES, copy_apple_store

import objectgraph as og

ROOT = APPLE_STORES

pytestmark = pytest.mark.skipif(not ROOT.exists(), reason="no Apple fixtures")


def open_store(tmp_path: Path, store: str, model: str, version: "str | None"):
    m = og.Model.load_version(ROOT / model, version)
    coordinator = og.Coordinator(m)
    path = copy_apple_store(tmp_path, store)
    coordinator.add_store("SQLite", path)
    return og.Context(coordinator), path


def test_sample_model_inheritance_and_relationships(tmp_path) -> None:
    ctx, _ = open_store(tmp_path, "coredataplus/SampleModel/SampleModel_V1.sqlite",
                        "coredataplus/SampleModel/SampleModel.xcdatamodeld", "SampleModel")
    assert len(ctx.fetch("Car")) == 125
    assert len(ctx.fetch("SportCar")) == 10
    assert len(ctx.fetch("ExpensiveSportCar")) == 5
    assert ctx.count("Car") == 125
    people = ctx.fetch("Person", sort=["lastName", "firstName"])
    assert (people[0].firstName, people[0].lastName) == ("Mark", "Alves")
    assert people[0].updatedAt == datetime(2021, 4, 7, 15, 52, 49, 638781, tzinfo=timezone.utc)
    most = max(people, key=lambda p: len(p.cars))
    assert (most.firstName, most.lastName, len(most.cars)) == ("Theodora", "Stone", 100)


def test_decimal_uuid_and_polymorphic_to_one(tmp_path) -> None:
    ctx, path = open_store(tmp_path, "coredataplus/SampleModel2-programmatic/SampleModel2_V1.sqlite",
                           "coredataplus/SampleModel2-programmatic/model-from-Z_MODELCACHE/SampleModel2_V1.mom", None)
    first = ctx.fetch("Book", sort=["title"])[0]
    assert first.title == "title 1 - author 1" and first.price == Decimal("10.11")
    assert str(first.uniqueID).upper().replace("-", "") == "7F95A578650D49D2BFCFEA4ED1D5984C"
    assert len(ctx.fetch("Page")) == 4970
    assert len(ctx.fetch("GraphicNovel")[0].pages) == 19
    # A new page of the graphic novel: the destination-entity column says GraphicNovel (2).
    # Its content's transformer is the app's: saving needs one registered under that name.
    og.register_value_transformer("ContentTransformer", lambda value: value, lambda data: data)
    try:
        page = ctx.insert("Page", number=5000, isBookmarked=False, content=b"x")
        page.book = ctx.fetch("GraphicNovel")[0]
        ctx.save()
    finally:
        og.unregister_value_transformer("ContentTransformer")
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT Z1_BOOK FROM ZPAGE WHERE ZNUMBER = 5000").fetchone() == (2,)


def test_wal_only_rows_and_one_to_one(tmp_path) -> None:
    ctx, _ = open_store(tmp_path, "wibosco-migration/CoreDataMigration_Example_WAL.sqlite",
                        "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 4")
    posts = ctx.fetch("Post", sort=["date"])
    assert len(posts) == 84
    assert posts[0].postID == "22F82B9B-304B-4A1E-B870-A86C1AA9BA7F"
    assert posts[0].color.hex == "BFEA01" and posts[0].color.post is posts[0]


def test_other_model_version_is_refused_and_file_untouched(tmp_path) -> None:
    path = copy_apple_store(tmp_path, "coredataplus/SampleModel3/SampleModel3_V1.sqlite")
    before = path.read_bytes()
    coordinator = og.Coordinator(og.Model.load_version(ROOT / "coredataplus/SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3_v3"))
    with pytest.raises(og.IncompatibleStoreError) as info:
        coordinator.add_store("SQLite", path)
    assert info.value.code == 134100
    assert path.read_bytes() == before


@pytest.mark.parametrize("damage", ["truncate", "corrupt"])
def test_damaged_files_are_refused_and_left_as_they_were(tmp_path, damage) -> None:
    path = copy_apple_store(tmp_path, "wibosco-migration/CoreDataMigration_Example_2.sqlite")
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    else:
        data[8192:12288] = bytes((i * 31) & 0xFF for i in range(4096))
    path.write_bytes(bytes(data))
    coordinator = og.Coordinator(og.Model.load_version(
        ROOT / "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 2"))
    with pytest.raises(og.StoreError) as info:
        coordinator.add_store("SQLite", path)
        og.Context(coordinator).fetch("Post")
    assert info.value.code == 134000
    assert path.read_bytes() == bytes(data)


def test_a_store_opens_with_the_model_it_keeps(tmp_path: Path) -> None:
    path = copy_apple_store(tmp_path, "wibosco-migration/CoreDataMigration_Example_1.sqlite")
    model = og.Model.from_store(path)
    assert [e.name for e in model.entities] == ["Post"]
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", path)
    assert og.Context(coordinator).count("Post") == 1001
