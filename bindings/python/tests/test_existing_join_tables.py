"""Join tables come from an existing store's file: a store whose many-to-many tables
Core Data named otherwise (a reflexive pair's table after the other side, another
collision suffix) opens, reads its pairs, saves and migrates through those names."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import objectgraph as og

from conftest import REPO

MODEL = REPO / "Tests" / "Fixtures" / "Models" / "JoinTables.xcdatamodel"


def renamed_store(folder: Path) -> Path:
    path = folder / "joins.sqlite"
    with og.Coordinator(og.Model.load(str(MODEL))) as coordinator:
        coordinator.add_store("SQLite", str(path))
        with og.Context(coordinator) as ctx:
            ann, bob = ctx.insert("User"), ctx.insert("User")
            ann.blocking.add(bob)
            ctx.save()
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE Z_8BLOCKING RENAME TO Z_8BLOCKEDBY")
        db.execute("ALTER TABLE Z_6PARENTGROUPS RENAME COLUMN Z_4PARENTGROUPS1 TO Z_4PARENTGROUPS2")
    return path


def test_a_store_with_otherwise_named_join_tables_reads_and_saves(tmp_path) -> None:
    path = renamed_store(tmp_path)
    with og.Coordinator(og.Model.load(str(MODEL))) as coordinator:
        coordinator.add_store("SQLite", str(path))
        with og.Context(coordinator) as ctx:
            blocked = ctx.fetch("User", "blockedBy.@count > 0")
            assert len(blocked) == 1
            (blocker,) = blocked[0].blockedBy
            assert blocked[0] in blocker.blocking
            contact, group = ctx.insert("Contact"), ctx.insert("Group")
            contact.parentGroups.add(group)
            ctx.save()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM Z_6PARENTGROUPS WHERE Z_4PARENTGROUPS2 IS NOT NULL").fetchone() == (1,)
        assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'Z_8BLOCKING'").fetchone() == (0,)
