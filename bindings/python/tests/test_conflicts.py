"""Optimistic locking from Python: og.MergeConflictError and its conflicts,
the five merge policies, and the names and codes that come with them."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any, Callable, Tuple

import pytest

import objectgraph as og
from objectgraph import errors

from conftest import Stack, build_books_model

SNAPSHOT_KEYS = {"title", "pages", "year", "rating", "author"}


def stored_books(path: Path) -> list:
    """(title, pages, year, Z_OPT) of every Book row, read with sqlite3."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT ZTITLE, ZPAGES, ZYEAR, Z_OPT FROM ZBOOK ORDER BY Z_PK").fetchall()


def two_contexts(open_stack: Callable[..., Stack], books_model: og.Model) -> Tuple[Stack, og.Context, Any, Any]:
    """A saved book read by a second context of the same coordinator:
    (stack, the second context, the first context's book, the second's)."""
    stack = open_stack(books_model)
    ctx = stack.context
    author = ctx.insert("Author", name="Frank Herbert")
    book = ctx.insert("Book", title="Dune", pages=100, year=1965, author=author)
    ctx.save()
    other = og.Context(stack.coordinator)
    mine = other.existing_object(book.object_id)
    assert mine is not book and mine.title == "Dune"
    return stack, other, book, mine


def test_conflict_on_one_coordinator(open_stack, books_model, tmp_path) -> None:
    stack, other, book, mine = two_contexts(open_stack, books_model)
    book.pages = 200
    stack.context.save()
    mine.title = "Dune Messiah"
    with pytest.raises(og.MergeConflictError) as info:
        other.save()
    error = info.value
    assert isinstance(error, og.Error)
    assert error.code == og.MERGE == 133020 and error.domain == og.DOMAIN_COCOA
    assert len(error.conflicts) == 1
    conflict = error.conflicts[0]
    assert isinstance(conflict, og.MergeConflict)
    assert conflict.obj is mine and conflict.object_id == mine.object_id
    assert set(conflict.object_snapshot) == SNAPSHOT_KEYS
    assert conflict.object_snapshot["title"] == "Dune" and conflict.object_snapshot["pages"] == 100
    assert conflict.object_snapshot["year"] == 1965 and conflict.object_snapshot["rating"] is None
    author_id = conflict.object_snapshot["author"]
    assert isinstance(author_id, og.ObjectID) and author_id == book.author.object_id
    assert conflict.cached_snapshot is not None
    assert conflict.cached_snapshot["pages"] == 200 and conflict.cached_snapshot["title"] == "Dune"
    assert conflict.cached_snapshot["author"] == author_id
    assert conflict.persisted_snapshot is None
    assert (conflict.old_version, conflict.new_version) == (1, 2)
    with pytest.raises(Exception):
        conflict.old_version = 5  # type: ignore[misc]  # a read-only record
    # Nothing was written, and the change is still pending.
    assert stored_books(tmp_path / "books.sqlite") == [("Dune", 200, 1965, 2)]
    assert other.has_changes and mine.is_updated and mine.title == "Dune Messiah"
    assert mine.changed_values() == {"title": "Dune Messiah"}
    # Taking the newer row in (keeping the change) lets the save through.
    other.refresh(mine, merge=True)
    assert mine.pages == 200 and mine.title == "Dune Messiah"
    other.save()
    assert stored_books(tmp_path / "books.sqlite") == [("Dune Messiah", 200, 1965, 3)]
    other.close()


def test_conflict_on_two_coordinators(books_model, open_stack, tmp_path) -> None:
    path = tmp_path / "shared.sqlite"
    first = open_stack(books_model, path)
    second = open_stack(build_books_model(), path)
    book = first.context.insert("Book", title="Solaris", pages=10)
    first.context.save()
    mine = second.context.object_with_id(book.object_id)
    assert mine.title == "Solaris"  # the fault fires in the second coordinator
    book.pages = 11
    first.context.save()
    mine.year = 1961
    with pytest.raises(og.MergeConflictError) as info:
        second.context.save()
    (conflict,) = info.value.conflicts
    assert conflict.obj is mine
    assert conflict.object_snapshot["pages"] == 10
    assert conflict.persisted_snapshot is not None
    assert conflict.persisted_snapshot["pages"] == 11 and conflict.persisted_snapshot["title"] == "Solaris"
    assert conflict.persisted_snapshot["author"] is None
    assert (conflict.old_version, conflict.new_version) == (1, 2)
    assert stored_books(path) == [("Solaris", 11, None, 2)]
    assert second.context.has_changes and mine.year == 1961


def test_delete_after_update_conflicts(open_stack, books_model, tmp_path) -> None:
    stack, other, book, mine = two_contexts(open_stack, books_model)
    book.pages = 300
    stack.context.save()
    other.delete(mine)
    with pytest.raises(og.MergeConflictError) as info:
        other.save()
    (conflict,) = info.value.conflicts
    assert conflict.obj is mine and (conflict.old_version, conflict.new_version) == (1, 2)
    assert stored_books(tmp_path / "books.sqlite") == [("Dune", 300, 1965, 2)]
    assert mine.is_deleted and mine in other.deleted_objects
    other.close()


def test_update_after_delete_fails(open_stack, books_model, tmp_path) -> None:
    stack, other, book, mine = two_contexts(open_stack, books_model)
    stack.context.delete(book)
    stack.context.save()
    mine.pages = 5
    with pytest.raises(og.Error) as info:
        other.save()
    if isinstance(info.value, og.MergeConflictError):
        (conflict,) = info.value.conflicts
        assert conflict.obj is mine and conflict.old_version == 1 and conflict.new_version == 0
    # The row is not recreated.
    assert stored_books(tmp_path / "books.sqlite") == []
    assert og.Context(stack.coordinator).count("Book") == 0
    other.close()


def test_racing_saves_on_one_coordinator(open_stack, books_model, tmp_path) -> None:
    stack = open_stack(books_model)
    book = stack.context.insert("Book", title="Race", pages=0)
    stack.context.save()
    contexts = [og.Context(stack.coordinator, "private") for _ in range(2)]
    copies = [c.perform_and_wait(lambda c=c: c.existing_object(book.object_id)) for c in contexts]
    start = threading.Barrier(2)
    outcomes: list = [None, None]

    def race(i: int) -> None:
        def work() -> None:
            copies[i].pages = i + 1
            start.wait(5)
            contexts[i].save()

        try:
            contexts[i].perform_and_wait(work)
            outcomes[i] = "saved"
        except BaseException as exc:  # noqa: BLE001
            outcomes[i] = exc

    threads = [threading.Thread(target=race, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert outcomes.count("saved") == 1, outcomes
    loser = outcomes[1 - outcomes.index("saved")]
    assert isinstance(loser, og.MergeConflictError) and len(loser.conflicts) == 1
    winner_pages = outcomes.index("saved") + 1
    assert stored_books(tmp_path / "books.sqlite") == [("Race", winner_pages, None, 2)]
    for c in contexts:
        c.close()


def test_saving_twice_from_one_context_is_no_conflict(open_stack, books_model, tmp_path) -> None:
    stack = open_stack(books_model)
    ctx = stack.context
    book = ctx.insert("Book", title="Kindred", pages=1)
    ctx.save()
    for pages in (2, 3, 4):
        book.pages = pages
        ctx.save()
    ctx.delete(book)
    ctx.rollback()
    book.title = "Kindred (2nd ed.)"
    ctx.save()
    assert stored_books(tmp_path / "books.sqlite") == [("Kindred (2nd ed.)", 4, None, 5)]
    # A context that read the newest row saves without conflict too.
    other = og.Context(stack.coordinator)
    other.fetch("Book")[0].pages = 5
    other.save()
    book.year = 1979  # this context's row is now older
    with pytest.raises(og.MergeConflictError):
        ctx.save()
    other.close()


# (policy, expected (title, pages, year) in the store and in the saving context)
POLICY_RESULTS = [
    (og.MergePolicy.MERGE_BY_PROPERTY_STORE_TRUMP, ("Theirs", 2, 2001)),
    (og.MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP, ("Mine", 2, 2001)),
    (og.MergePolicy.OVERWRITE, ("Mine", 1, 2001)),
    (og.MergePolicy.ROLLBACK, ("Theirs", 2, 2000)),
]


@pytest.mark.parametrize("policy,expected", POLICY_RESULTS, ids=[p.name for p, _ in POLICY_RESULTS])
def test_merge_policies(policy: og.MergePolicy, expected: tuple, open_stack, books_model, tmp_path) -> None:
    stack = open_stack(books_model)
    ctx = stack.context
    book = ctx.insert("Book", title="Original", pages=1, year=2000)
    ctx.save()
    other = og.Context(stack.coordinator)
    mine = other.existing_object(book.object_id)
    # Their save changes title and pages; ours changes title and year.
    book.title, book.pages = "Theirs", 2
    ctx.save()
    mine.title, mine.year = "Mine", 2001
    other.merge_policy = policy
    assert other.merge_policy is policy
    other.save()
    assert not other.has_changes
    assert (mine.title, mine.pages, mine.year) == expected
    title, pages, year, version = stored_books(tmp_path / "books.sqlite")[0]
    assert (title, pages, year) == expected
    if policy == og.MergePolicy.ROLLBACK:
        assert mine.changed_values() == {} and version == 2
    else:
        assert version == 3
    # The saved state is the newest: the first context's next change conflicts only with it.
    fresh = og.Context(stack.coordinator)
    assert [(b.title, b.pages, b.year) for b in fresh.fetch("Book")] == [expected]
    fresh.close()
    other.close()


def test_merge_policy_names(open_stack, books_model) -> None:
    ctx = open_stack(books_model).context
    assert ctx.merge_policy is og.MergePolicy.ERROR
    assert [int(p) for p in og.MergePolicy] == [0, 1, 2, 3, 4]
    ctx.merge_policy = "overwrite"
    assert ctx.merge_policy is og.MergePolicy.OVERWRITE
    ctx.merge_policy = 4
    assert ctx.merge_policy is og.MergePolicy.ROLLBACK
    ctx.merge_policy = "mergeByPropertyObjectTrump"
    assert ctx.merge_policy is og.MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP
    ctx.merge_policy = og.MergePolicy.ERROR
    assert ctx.merge_policy == 0
    parse = og.MergePolicy.parse
    assert parse("MERGE_BY_PROPERTY_STORE_TRUMP") is og.MergePolicy.MERGE_BY_PROPERTY_STORE_TRUMP
    assert parse("NSRollbackMergePolicy") is og.MergePolicy.ROLLBACK
    assert parse("NSErrorMergePolicyType") is og.MergePolicy.ERROR
    assert parse(og.MergePolicy.OVERWRITE) is og.MergePolicy.OVERWRITE
    assert parse(1) is og.MergePolicy.MERGE_BY_PROPERTY_STORE_TRUMP
    for bad in (99, -1, "bogus", True, None, 1.0):
        with pytest.raises(og.UsageError) as info:
            parse(bad)  # type: ignore[arg-type]
        assert info.value.code == og.INVALID_ARGUMENT == 140002
    with pytest.raises(og.UsageError) as info:
        ctx.merge_policy = "bogus"
    assert info.value.code == og.INVALID_ARGUMENT and "merge policy" in info.value.message
    with pytest.raises(og.UsageError):
        ctx.merge_policy = 99
    assert ctx.merge_policy is og.MergePolicy.ERROR


def test_new_error_classes_and_codes() -> None:
    cocoa = og.DOMAIN_COCOA
    assert issubclass(og.MergeConflictError, og.Error)
    assert issubclass(og.ConstraintConflictError, og.Error)
    assert issubclass(og.MigrationError, og.StoreError)
    assert errors.error_class(cocoa, 133020) is og.MergeConflictError
    assert errors.error_class(cocoa, 133021) is og.ConstraintConflictError
    for code in (134110, 134111, 134120, 134130, 134140, 134150, 134160, 134170, 134190):
        assert errors.error_class(cocoa, code) is og.MigrationError
    assert errors.error_class(cocoa, 134301) is og.StoreError
    assert errors.error_class(cocoa, 134050) is og.StoreError
    assert errors.error_class(cocoa, 134091) is og.StoreError
    assert errors.error_class(cocoa, 134180) is og.StoreError
    assert errors.error_class(cocoa, 1551) is og.ValidationError
    table = {
        "VALIDATION_CONSTRAINT": 1551, "CONSTRAINT_MERGE": 133021, "STORE_SAVE_CONFLICTS": 134050,
        "STORE_UNSUPPORTED_REQUEST": 134091, "MIGRATION": 134110, "MIGRATION_CONSTRAINT_VIOLATION": 134111,
        "MIGRATION_CANCELLED": 134120, "MIGRATION_MISSING_SOURCE_MODEL": 134130,
        "MIGRATION_MISSING_MAPPING_MODEL": 134140, "MIGRATION_SOURCE_STORE": 134150,
        "MIGRATION_DESTINATION_STORE": 134160, "MIGRATION_POLICY": 134170, "INFERRED_MAPPING_MODEL": 134190,
        "HISTORY_TOKEN_EXPIRED": 134301, "MERGE": 133020,
    }
    for name, code in table.items():
        assert getattr(og, name) == code == og.ErrorCode[name]
        assert name in og.__all__
    made = errors.make_error("conflict", og.MERGE, og.DOMAIN_COCOA)
    assert isinstance(made, og.MergeConflictError) and made.conflicts == []


CHILD_UPDATE = """
import sys
import objectgraph as og
from conftest import build_books_model

coordinator = og.Coordinator(build_books_model())
coordinator.add_store("SQLite", sys.argv[1])
ctx = og.Context(coordinator)
book = ctx.existing_object(sys.argv[2])
book.pages = 4242
ctx.save()
"""


def test_conflict_with_another_process(open_stack, books_model, tmp_path) -> None:
    import os
    import subprocess
    import sys

    stack = open_stack(books_model)
    ctx = stack.context
    book = ctx.insert("Book", title="Dune", pages=100)
    ctx.save()
    book.title = "This process"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    subprocess.run([sys.executable, "-c", CHILD_UPDATE, str(tmp_path / "books.sqlite"), book.object_id],
                   check=True, env=env, timeout=120)
    with pytest.raises(og.MergeConflictError) as info:
        ctx.save()
    conflict = info.value.conflicts[0]
    assert conflict.obj is book
    assert conflict.cached_snapshot is None
    assert conflict.persisted_snapshot is not None and conflict.persisted_snapshot["pages"] == 4242
    assert (conflict.old_version, conflict.new_version) == (1, 2)
    assert stored_books(tmp_path / "books.sqlite") == [("Dune", 4242, None, 2)]
    ctx.refresh(book, merge=True)
    ctx.save()
    assert stored_books(tmp_path / "books.sqlite") == [("This process", 4242, None, 3)]
