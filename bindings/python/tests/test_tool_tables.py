"""An SQLite store that keeps no model (objectgraph.tool._tables): written
before Core Data kept Z_MODELCACHE, or with the cache removed. `info`, `entities`
with row counts and `dump` work from Z_PRIMARYKEY and the tables alone, naming
entities as the file does and columns as the file names them; what truly needs
a model (`explain`, `dump --where`, `dump --relationships`) asks for --model."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Tuple

import pytest

import objectgraph as og
from objectgraph.tool import main


def run(*argv: str) -> Tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def garage_model() -> og.Model:
    model = og.Model()
    car = model.add_entity("Car")
    car.add_attribute("name", "string")
    sports = model.add_entity("SportsCar")
    sports.superentity = car
    sports.add_attribute("topSpeed", "integer32")
    person = model.add_entity("Person")
    person.add_attribute("name", "string")
    cars = person.add_relationship("cars", car, to_many=True)
    car.add_relationship("owner", person, inverse=cars)
    return model


@pytest.fixture
def garage(tmp_path: Path) -> Tuple[Path, Path]:
    """A store of two cars and a sports car, whose model cache was removed; and its model file."""
    model = garage_model()
    model_path = tmp_path / "Garage.json"
    model.save(str(model_path))
    path = tmp_path / "garage.sqlite"
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(path))
    with og.Context(coordinator) as ctx:
        ada = ctx.insert("Person", name="Ada")
        for name in ("Beetle", "Clio"):
            ctx.insert("Car", name=name, owner=ada)
        ctx.insert("SportsCar", name="Alpine", topSpeed=250)
        ctx.save()
    coordinator.close()
    db = sqlite3.connect(str(path))
    db.execute("DROP TABLE Z_MODELCACHE")
    db.commit()
    db.close()
    with pytest.raises(og.MigrationError):
        og.Model.from_store(str(path))
    return path, model_path


def test_info_and_entities_without_a_model(garage) -> None:
    store, _ = garage
    status, text = run("info", str(store))
    assert status == 0 and "version hashes (3 entities)" in text
    status, text = run("entities", str(store))
    assert status == 0
    assert text.splitlines() == [
        "entity     rows                    superentity",
        "Car        2 (3 with subentities)",
        "Person     1",
        "SportsCar  1                       Car",
    ]


def test_dump_reads_the_tables(garage) -> None:
    store, _ = garage
    uuid = og.Coordinator.metadata_for_store(str(store))["NSStoreUUID"]
    status, text = run("dump", str(store), "Car", "--sort", "name")
    assert status == 0
    rows = json.loads(text)
    assert [(row["ZNAME"], row["ZTOPSPEED"]) for row in rows] == [("Alpine", 250), ("Beetle", None), ("Clio", None)]
    assert rows[0]["objectID"].startswith(f"x-coredata://{uuid}/SportsCar/p")
    assert rows[1]["objectID"].startswith(f"x-coredata://{uuid}/Car/p")
    assert set(rows[0]) == {"objectID", "ZNAME", "ZTOPSPEED", "ZOWNER"}
    status, text = run("dump", str(store), "Car", "--sort=-ZNAME", "--limit", "1", "--format", "csv")
    assert status == 0
    assert [row["ZNAME"] for row in csv.DictReader(io.StringIO(text))] == ["Clio"]
    status, text = run("dump", str(store), "SportsCar")
    assert [row["ZNAME"] for row in json.loads(text)] == ["Alpine"]


def test_entities_are_named_as_the_file_names_them(garage) -> None:
    store, _ = garage
    db = sqlite3.connect(str(store))
    db.execute("UPDATE Z_PRIMARYKEY SET Z_NAME = 'Automobile' WHERE Z_NAME = 'Car'")
    db.commit()
    db.close()
    status, text = run("entities", str(store))
    assert status == 0 and "Automobile  2 (3 with subentities)" in text and "SportsCar   1" in text
    status, text = run("dump", str(store), "Automobile", "--sort", "name")
    assert status == 0 and "/Automobile/p" in text and "/SportsCar/p" in text


def test_what_needs_a_model_asks_for_it(garage, capsys) -> None:
    store, model = garage
    for argv in (["explain", str(store), "Car"], ["dump", str(store), "Car", "--where", "name == 'Clio'"],
                 ["dump", str(store), "Person", "--relationships"]):
        assert run(*argv)[0] == 2
        assert "give its model with --model" in capsys.readouterr().err
    assert run("dump", str(store), "Truck")[0] == 2
    assert "its entities: Car, Person, SportsCar" in capsys.readouterr().err
    assert run("dump", str(store), "Car", "--sort", "colour")[0] == 2
    assert "no column 'colour'" in capsys.readouterr().err
    status, text = run("dump", str(store), "Car", "--where", "name == 'Clio'", "--model", str(model))
    assert status == 0 and [row["name"] for row in json.loads(text)] == ["Clio"]
