"""A store whose creation was killed opens again (Tests/Fixtures/Stores/KilledCreation):
a process SIGKILLed as it began the new store's WAL leaves a database in WAL mode with no
tables, a -wal holding only its header and a -shm of an earlier WAL."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import objectgraph as og

from conftest import REPO

FIXTURE = REPO / "Tests" / "Fixtures" / "Stores" / "KilledCreation" / "store.sqlite"


def leftovers(folder: Path, name: str) -> Path:
    path = folder / name
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(f"{FIXTURE}{suffix}", f"{path}{suffix}")
    return path


def item_model() -> og.Model:
    model = og.Model()
    model.add_entity("Item").add_attribute("name", "string")
    return model


def test_a_store_whose_creation_was_killed_opens_and_takes_saves(tmp_path) -> None:
    path = leftovers(tmp_path, "killed.sqlite")
    with og.Coordinator(item_model()) as coordinator:
        coordinator.add_store("SQLite", str(path))
        with og.Context(coordinator) as ctx:
            ctx.insert("Item", name="after the kill")
            ctx.save()
            assert ctx.count("Item") == 1


def test_read_only_the_same_leftovers_are_refused_and_kept(tmp_path) -> None:
    path = leftovers(tmp_path, "killed.sqlite")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with og.Coordinator(item_model()) as coordinator:
        with pytest.raises(og.StoreError) as info:
            coordinator.add_store("SQLite", str(path), read_only=True)
    assert info.value.code == og.ErrorCode.STORE_OPEN
    assert "open it once for writing" in str(info.value)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
