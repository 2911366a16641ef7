"""Uniqueness constraints (Entity.uniqueness_constraints) kept by saves and batch
inserts: ConstraintConflictError 133021 with its ConstraintConflicts under
MergePolicy.ERROR, nothing written; upserts under the other policies."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import objectgraph as og


@pytest.fixture
def authors(tmp_path: Path, request: Any) -> Any:
    model = og.Model()
    author = model.add_entity("Author")
    author.add_attribute("name", "string")
    author.add_attribute("born", "integer64")
    author.add_attribute("country", "string")
    author.uniqueness_constraints = [["name"]]
    store_type = getattr(request, "param", "SQLite")
    path = tmp_path / "authors.store"
    coordinator = og.Coordinator(model)
    coordinator.add_store(store_type, "" if store_type == "InMemory" else str(path))
    ctx = og.Context(coordinator)
    yield ctx, coordinator, path
    ctx.close()
    coordinator.close()


def stored(coordinator: og.Coordinator) -> dict:
    ctx = og.Context(coordinator)
    try:
        return {a.name: (a.born, a.country) for a in ctx.fetch("Author")}
    finally:
        ctx.close()


@pytest.mark.parametrize("authors", ["SQLite", "InMemory", "Binary"], indirect=True)
def test_the_error_policy_reports_the_conflicts_and_writes_nothing(authors) -> None:
    ctx, coordinator, _ = authors
    ctx.insert("Author", name="Pratchett", born=1948)
    ctx.save()
    again = ctx.insert("Author", name="Pratchett", born=1900)
    a, b = ctx.insert("Author", name="Gaiman"), ctx.insert("Author", name="Gaiman")
    with pytest.raises(og.ConstraintConflictError) as caught:
        ctx.save()
    error = caught.value
    assert error.code == 133021 and "Gaiman" in str(error)
    by_name = {c.constraint_values["name"]: c for c in error.conflicts}
    assert set(by_name) == {"Pratchett", "Gaiman"}
    stored_conflict = by_name["Pratchett"]
    assert stored_conflict.constraint == ["name"]
    assert stored_conflict.conflicting_objects == [again]
    assert stored_conflict.database_object is not None and stored_conflict.database_object.born == 1948
    pending = by_name["Gaiman"]
    assert pending.database_object is None and set(map(id, pending.conflicting_objects)) == {id(a), id(b)}
    assert isinstance(pending, og.ConstraintConflict)
    assert ctx.has_changes
    assert stored(coordinator) == {"Pratchett": (1948, None)}


@pytest.mark.parametrize("policy,expected", [
    (og.MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP, (2000, "UK")),
    (og.MergePolicy.MERGE_BY_PROPERTY_STORE_TRUMP, (1948, "UK")),
    (og.MergePolicy.OVERWRITE, (2000, None)),
    (og.MergePolicy.ROLLBACK, (1948, "UK")),
], ids=lambda p: getattr(p, "name", ""))
def test_the_merge_policies_upsert_and_the_new_object_takes_the_rows_id(authors, policy, expected) -> None:
    ctx, coordinator, _ = authors
    first = ctx.insert("Author", name="Pratchett", born=1948, country="UK")
    ctx.save()
    other = og.Context(coordinator)
    other.merge_policy = policy
    newer = other.insert("Author", name="Pratchett", born=2000)
    other.save()
    assert newer.object_id == first.object_id
    assert (newer.born, newer.country) == expected
    assert stored(coordinator) == {"Pratchett": expected}
    other.close()


def test_of_new_objects_with_the_same_values_the_one_changed_last_is_saved(authors) -> None:
    ctx, coordinator, _ = authors
    ctx.merge_policy = og.MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP
    a = ctx.insert("Author", name="Gaiman", born=1)
    ctx.insert("Author", name="Gaiman", born=2)
    a.born = 3
    ctx.save()
    assert stored(coordinator) == {"Gaiman": (3, None)}
    assert not ctx.has_changes


def test_batch_insert_upserts_under_the_policy_and_refuses_under_error(authors) -> None:
    ctx, coordinator, path = authors
    ctx.batch_insert("Author", [{"name": "Pratchett", "born": 1948, "country": "UK"}])
    with pytest.raises(og.ConstraintConflictError, match="rows 0, 1 of the batch"):
        ctx.batch_insert("Author", [{"name": "Gaiman"}, {"name": "Gaiman"}])
    with pytest.raises(og.ConstraintConflictError, match="Pratchett"):
        ctx.batch_insert("Author", [{"name": "Pratchett"}])
    ctx.merge_policy = og.MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP

    def rows() -> Any:
        yield {"name": "Pratchett", "born": 1949}
        yield {"name": "Gaiman", "born": 1960}
        yield {"name": "Gaiman", "born": 1961}

    ids = ctx.batch_insert("Author", rows(), result_type="object_ids")
    assert len(ids) == 2
    assert stored(coordinator) == {"Pratchett": (1949, "UK"), "Gaiman": (1961, None)}
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM ZAUTHOR").fetchone() == (2,)
