"""An existing SQLite store is checked without changing it: a store refused
because of a foreign -wal beside it stays byte for byte, -wal and -shm too."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3

import pytest

import objectgraph as og


def digests(path) -> list:
    """SHA-256 of the store file, its -wal and its -shm (None for a missing one)."""
    out = []
    for suffix in ("", "-wal", "-shm"):
        p = path.parent / (path.name + suffix)
        out.append(hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None)
    return out


def test_a_foreign_wal_is_refused_and_nothing_changes(tmp_path, books_model) -> None:
    path = tmp_path / "books.sqlite"
    with og.Coordinator(books_model) as coordinator:
        coordinator.add_store("SQLite", path)
        with og.Context(coordinator) as ctx:
            ctx.insert("Book", title="Mort")
            ctx.save()
    assert not (tmp_path / "books.sqlite-wal").exists()
    # Another database's WAL, copied while its writer holds it open.
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.executescript("CREATE TABLE u (y); CREATE TABLE v (z); INSERT INTO u VALUES (randomblob(5000)), (randomblob(5000));")
    for suffix in ("-wal", "-shm"):
        shutil.copyfile(str(other) + suffix, str(path) + suffix)
    db.close()
    before = digests(path)
    assert None not in before
    for _ in range(2):
        with og.Coordinator(og.Model.from_json(books_model.to_json())) as coordinator:
            with pytest.raises(og.StoreError) as info:
                coordinator.add_store("SQLite", path)
            assert info.value.code == og.ErrorCode.STORE_INVALID_TYPE == 134000
        assert digests(path) == before
    # The metadata read without a stack leaves it alone as well (it is not a Core Data store now).
    with pytest.raises(og.StoreError):
        og.Coordinator.metadata_value(path, "NSStoreUUID")
    assert digests(path) == before
    # Without the foreign files the store is whole.
    (tmp_path / "books.sqlite-wal").unlink()
    (tmp_path / "books.sqlite-shm").unlink()
    with og.Coordinator(og.Model.from_json(books_model.to_json())) as coordinator:
        coordinator.add_store("SQLite", path)
        with og.Context(coordinator) as ctx:
            assert [b.title for b in ctx.fetch("Book")] == ["Mort"]
