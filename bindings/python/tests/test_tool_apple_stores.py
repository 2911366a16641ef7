"""The store tool on stores written by Apple's Core Data, with no model file:
it reads the model each store keeps (Z_MODELCACHE). Works on copies; skipped
when ../shared/fixtures/apple-stores is absent."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Tuple

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


def test_a_store_without_a_cached_model_asks_for_one(tmp_path, capsys) -> None:
    store = copy_apple_store(tmp_path, "mwkcoredata/MWKCoreDataTests.sqlite")
    assert run("entities", str(store))[0] == 2
    assert "give its model with --model" in capsys.readouterr().err
    model = ROOT / "mwkcoredata" / "MWKCoreDataTests.xcdatamodeld"
    status, text = run("entities", str(store), "--model", str(model))
    assert status == 0 and text.splitlines()[1:] == ["Employee  3"]
