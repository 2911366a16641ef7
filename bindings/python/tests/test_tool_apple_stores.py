"""The store tool on stores written by Apple's Core Data, with no model file:
it reads the model each store keeps (Z_MODELCACHE), or the store's own tables
when it keeps none; `--model` of a versioned folder picks the version that wrote
the store. Works on copies, except where it checks that the tool leaves the
fixtures byte for byte as they are, and that they are as their MANIFEST.md files
list them. Skipped when ../shared/fixtures/apple-stores is absent."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import sqlite3
from pathlib import Path
from typing import Dict, Tuple

import pytest
from conftest import APPLE_STORES, copy_apple_store

from objectgraph.tool import main

ROOT = APPLE_STORES

pytestmark = pytest.mark.skipif(not ROOT.exists(), reason="no Apple fixtures (../shared/fixtures/apple-stores)")

SAMPLE = "coredataplus/SampleModel"


def run(*argv: str) -> Tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_info_entities_and_dump_without_a_model_file(tmp_path) -> None:
    store = copy_apple_store(tmp_path, f"{SAMPLE}/SampleModel_V1.sqlite")
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    status, text = run("info", str(store))
    assert status == 0
    assert "uuid:    753753D3-A961-4901-AB05-8CC48B1D3853" in text and "version hashes (4 entities)" in text
    status, text = run("entities", str(store))
    assert status == 0
    assert "Car                115 (125 with subentities)" in text and "Person             20" in text
    status, text = run("dump", str(store), "Person", "--sort", "lastName", "--sort", "firstName", "--limit", "1")
    row = json.loads(text)[0]
    assert (row["firstName"], row["lastName"]) == ("Mark", "Alves")
    assert row["updatedAt"] == "2021-04-07T15:52:49.638781+00:00"
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before  # read-only


def test_wal_store_and_explain(tmp_path) -> None:
    store = copy_apple_store(tmp_path, "wibosco-migration/CoreDataMigration_Example_WAL.sqlite")
    status, text = run("entities", str(store))
    assert status == 0 and text.splitlines()[1:] == ["Color   84", "Post    84"]
    status, text = run("explain", str(store), "Post", "--where", "postID BEGINSWITH '22'", "--sort", "date")
    assert status == 0 and "FROM ZPOST" in text


def test_check_against_each_model_version(tmp_path) -> None:
    store = copy_apple_store(tmp_path, f"{SAMPLE}/SampleModel_V1.sqlite")
    models = ROOT / SAMPLE / "SampleModel.xcdatamodeld"
    assert run("check", str(models / "SampleModel.xcdatamodel"), str(store))[0] == 0
    status, text = run("check", str(models / "SampleModel2.xcdatamodel"), str(store))
    assert status == 1
    assert "entity LuxuryCar: in the model, not in the store" in text
    assert "entity ExpensiveSportCar: in the store, not in the model" in text


def test_schema_is_apples(tmp_path) -> None:
    store = copy_apple_store(tmp_path, f"{SAMPLE}/SampleModel_V1.sqlite")
    status, text = run("schema", str(store))
    assert status == 0 and "CREATE TABLE ZCAR ( Z_PK INTEGER PRIMARY KEY" in text and "Z_MODELCACHE" in text


MWK = "mwkcoredata"
BOOKS = "bookmigration"
WAL = "wibosco-migration/CoreDataMigration_Example_WAL.sqlite"


def test_a_store_without_a_cached_model_is_read_from_its_tables(tmp_path, capsys) -> None:
    store = copy_apple_store(tmp_path, f"{MWK}/MWKCoreDataTests.sqlite")
    status, text = run("info", str(store))
    assert status == 0 and "uuid:    633F7797-BF6A-4F8D-AA89-002ACE5D62B5" in text
    status, text = run("entities", str(store))
    assert status == 0 and text.splitlines()[1:] == ["Employee  3"]
    status, text = run("dump", str(store), "Employee", "--sort", "name")
    assert status == 0
    assert [row["ZNAME"] for row in json.loads(text)] == ["Adam Smith", "Bob Johnson", "Carla Jones"]
    assert json.loads(text)[0]["objectID"].startswith("x-coredata://633F7797-BF6A-4F8D-AA89-002ACE5D62B5/Employee/p")
    assert run("explain", str(store), "Employee")[0] == 2
    assert "give its model with --model" in capsys.readouterr().err
    model = ROOT / MWK / "MWKCoreDataTests.xcdatamodeld"
    status, text = run("entities", str(store), "--model", str(model))
    assert status == 0 and text.splitlines()[1:] == ["Employee  3"]


def test_a_store_whose_cache_was_removed_names_entities_as_the_file_does(tmp_path) -> None:
    store = copy_apple_store(tmp_path, f"{SAMPLE}/SampleModel_V2.sqlite")
    assert "LuxuryCar  5" in run("entities", str(store))[1]  # the cached model renamed it
    db = sqlite3.connect(str(store))
    db.execute("DROP TABLE Z_MODELCACHE")
    db.commit()
    db.close()
    status, text = run("entities", str(store))
    assert status == 0
    assert text.splitlines()[1:] == [
        "Car                115 (125 with subentities)",
        "ExpensiveSportCar  5                           SportCar",
        "Person             20",
        "SportCar           5 (10 with subentities)     Car",
    ]
    status, text = run("dump", str(store), "ExpensiveSportCar", "--sort", "numberPlate", "--limit", "1")
    row = json.loads(text)[0]
    assert (row["ZMAKER"], row["ZMODEL"], row["ZNUMBERPLATE"]) == ("BMW", "M6 Coupe", "300")


def test_model_folders_open_older_stores_with_the_version_that_wrote_them(tmp_path) -> None:
    older = copy_apple_store(tmp_path, f"{BOOKS}/Model1.sqlite")  # Model1; the folder's current version is Model3
    folder = ROOT / BOOKS / "Model.xcdatamodeld"
    status, text = run("entities", str(older), "--model", str(folder))
    assert status == 0 and text.splitlines()[1:] == ["Book    4", "User    3"]
    assert run("check", str(folder), str(older)) == (0, f"compatible: {folder} (version Model1) opens {older}\n")
    mwk2 = copy_apple_store(tmp_path, f"{MWK}/MWKCoreDataTests2.sqlite")  # version 2; current is version 1
    status, text = run("dump", str(mwk2), "Employee", "--model", str(ROOT / MWK / "MWKCoreDataTests.xcdatamodeld"),
                       "--sort", "name")
    assert status == 0 and [row["name"] for row in json.loads(text)] == ["Adam Smith", "Bob Johnson", "Carla Jones"]
    momd = ROOT / SAMPLE / "SampleModel.momd"
    for name, version in (("SampleModel_V1", "SampleModel"), ("SampleModel_V2", "SampleModel2")):
        store = copy_apple_store(tmp_path, f"{SAMPLE}/{name}.sqlite")
        assert run("check", str(momd), str(store)) == (0, f"compatible: {momd} (version {version}) opens {store}\n")


def test_dump_writes_the_bytes_of_values_whose_transformer_is_not_registered(tmp_path) -> None:
    store = copy_apple_store(tmp_path, "coredataplus/SampleModel2-programmatic/SampleModel2_V1.sqlite")
    status, text = run("dump", str(store), "Page", "--sort", "number", "--limit", "3")
    assert status == 0
    rows = json.loads(text)
    db = sqlite3.connect(f"file:{store}?mode=ro&immutable=1", uri=True)
    stored = [row[0] for row in db.execute("SELECT ZCONTENT FROM ZPAGE ORDER BY ZNUMBER, Z_PK LIMIT 3")]
    db.close()
    assert len(rows) == 3
    for row, data in zip(rows, stored):
        assert row["content"]["transformer"] == "ContentTransformer"
        assert base64.b64decode(row["content"]["base64"]) == data


def snapshot(folder: Path) -> Dict[str, str]:
    """Every file under ``folder`` (relative path -> SHA-256 of its bytes)."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_the_tool_leaves_the_fixtures_as_they_are() -> None:
    """Read in place, as people point the tool at an app's data: nothing changes, no file appears."""
    before = snapshot(ROOT)
    wal, mwk, books = ROOT / WAL, ROOT / MWK / "MWKCoreDataTests2.sqlite", ROOT / BOOKS / "Model1.sqlite"
    sample, pages = ROOT / SAMPLE / "SampleModel_V1.sqlite", ROOT / "coredataplus/SampleModel2-programmatic/SampleModel2_V1.sqlite"
    runs = [
        ["info", str(wal)], ["entities", str(wal)], ["dump", str(wal), "Post", "--limit", "5"], ["schema", str(wal)],
        ["check", str(ROOT / "wibosco-migration/CoreDataMigration_Example.xcdatamodeld"), str(wal)],
        ["explain", str(wal), "Post", "--where", "postID BEGINSWITH '22'"],
        ["info", str(mwk)], ["entities", str(mwk)], ["dump", str(mwk), "Employee"], ["schema", str(mwk)],
        ["check", str(ROOT / MWK / "MWKCoreDataTests.xcdatamodeld"), str(mwk)],
        ["entities", str(books)], ["dump", str(books), "Book", "--format", "csv"],
        ["entities", str(sample)], ["dump", str(sample), "Car", "--limit", "3"], ["schema", str(sample)],
        ["check", str(ROOT / SAMPLE / "SampleModel.xcdatamodeld"), str(sample)],
        ["dump", str(pages), "Book", "--limit", "2"],
    ]
    for argv in runs:
        status, text = run(*argv)
        assert status == 0, argv
        assert text, argv
    assert run("entities", str(wal))[1].splitlines()[1:] == ["Color   84", "Post    84"]
    assert snapshot(ROOT) == before


def test_the_fixtures_are_as_their_manifests_list_them() -> None:
    """No file appeared beside the stores (no -wal, -shm or -journal made by a
    reader that wrote) and each listed file has the SHA-256 its MANIFEST.md gives."""
    listed: Dict[str, str] = {}
    for manifest in sorted(ROOT.glob("*/MANIFEST.md")):
        for name, prefix in re.findall(r"^\| `([^`]+)` \|.*\| `([0-9a-f]+)\.\.\.` \|$", manifest.read_text(), re.M):
            listed[str(manifest.parent.relative_to(ROOT) / name)] = prefix
    assert listed
    found = {name: digest for name, digest in snapshot(ROOT).items() if Path(name).name not in ("README.md", "MANIFEST.md")}
    assert sorted(found) == sorted(listed)
    assert {name: digest[: len(listed[name])] for name, digest in found.items()} == listed
