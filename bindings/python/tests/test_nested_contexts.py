"""Nested contexts: og.Context(parent=...), saves that push into the parent,
fetches through the chain, temporary IDs, rollback, conflicts at the root."""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path
from typing import Any, Dict, List

import pytest

import objectgraph as og


def stored(path: Path, table: str = "ZBOOK", columns: str = "ZTITLE, ZPAGES") -> list:
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT {columns} FROM {table} ORDER BY Z_PK").fetchall()


def titles(objects: Any) -> List[str]:
    return sorted(o.title for o in objects)


@pytest.fixture
def shelf(open_stack, books_model, tmp_path) -> Dict[str, Any]:
    """A root context with an author and two saved books, and its store's path."""
    stack = open_stack(books_model)
    root = stack.context
    author = root.insert("Author", name="Iain M. Banks")
    a = root.insert("Book", title="Excession", pages=451, author=author)
    b = root.insert("Book", title="Inversions", pages=345)
    root.save()
    return {"stack": stack, "root": root, "author": author, "a": a, "b": b, "path": tmp_path / "books.sqlite"}


def test_parent_and_coordinator(open_stack, books_model) -> None:
    stack = open_stack(books_model)
    root = stack.context
    child = og.Context(parent=root)
    assert child.parent is root and root.parent is None
    assert child.coordinator is stack.coordinator is root.coordinator
    assert child.concurrency == "confinement"
    assert "child" in repr(child) and "child" not in repr(root)
    grandchild = og.Context(parent=child, concurrency="private")
    assert grandchild.parent is child and grandchild.coordinator is stack.coordinator
    assert grandchild.concurrency == "private"
    # Exactly one of coordinator and parent.
    for make in (lambda: og.Context(stack.coordinator, parent=root),
                 lambda: og.Context(),
                 lambda: og.Context(None, "private"),
                 lambda: og.Context(parent=stack.coordinator),  # type: ignore[arg-type]
                 lambda: og.Context(root),  # type: ignore[arg-type]
                 lambda: og.Context(parent=root, concurrency="bogus")):
        with pytest.raises(og.UsageError) as info:
            make()
        assert info.value.code == og.INVALID_ARGUMENT == 140002
    grandchild.close()
    # A child keeps its parent alive.
    orphan = og.Context(parent=og.Context(stack.coordinator))
    gc.collect()
    assert orphan.parent is not None and not orphan.parent.closed
    orphan.insert("Author", name="Kept")
    orphan.save()
    assert orphan.parent.has_changes
    orphan.close()


def test_child_save_pushes_into_the_parent_only(shelf) -> None:
    root, path = shelf["root"], shelf["path"]
    child = og.Context(parent=root)
    author = child.insert("Author", name="Ada Palmer")
    book = child.insert("Book", title="Too Like the Lightning", pages=432, author=author)
    assert book.has_temporary_id
    child.save()
    assert not child.has_changes and root.has_changes
    assert titles(o for o in root.inserted_objects if o.entity_name == "Book") == ["Too Like the Lightning"]
    # The store is untouched until the root saves.
    assert stored(path) == [("Excession", 451), ("Inversions", 345)]
    assert og.Context(shelf["stack"].coordinator).count("Book") == 2
    # New objects keep their temporary IDs until then.
    assert book.has_temporary_id
    pushed = root.object_registered(book.object_id)
    assert pushed is not None and pushed.has_temporary_id and pushed.title == "Too Like the Lightning"
    assert pushed.author.name == "Ada Palmer" and pushed.author in root.inserted_objects
    root.save()
    assert not pushed.has_temporary_id and not root.has_changes
    assert stored(path)[-1] == ("Too Like the Lightning", 432)
    assert stored(path, "ZAUTHOR", "ZNAME")[-1] == ("Ada Palmer",)
    child.close()


def test_child_sees_the_parent_s_unsaved_changes(shelf) -> None:
    root, a, b = shelf["root"], shelf["a"], shelf["b"]
    a.pages = 500
    root.delete(b)
    root.insert("Book", title="Matter", pages=593, author=shelf["author"])
    child = og.Context(parent=root)
    assert titles(child.fetch("Book")) == ["Excession", "Matter"]
    assert child.count("Book") == 2
    a2 = child.existing_object(a.object_id)
    assert a2 is not a and a2.pages == 500 and not a2.is_updated
    assert a2.author.name == "Iain M. Banks"
    # The child's own pending changes lie over the parent's.
    a2.title = "Excession (revised)"
    child.insert("Book", title="Surface Detail")
    assert titles(child.fetch("Book")) == ["Excession (revised)", "Matter", "Surface Detail"]
    assert titles(child.fetch("Book", where=og.Predicate("pages > %@", 499))) == ["Excession (revised)", "Matter"]
    assert a.title == "Excession"  # the parent does not see them
    assert titles(root.fetch("Book")) == ["Excession", "Matter"]
    child.close()


def test_updates_deletes_and_relationships_flow_up(shelf) -> None:
    root, a, b, path = shelf["root"], shelf["a"], shelf["b"], shelf["path"]
    child = og.Context(parent=root)
    a2 = child.existing_object(a.object_id)
    b2 = child.existing_object(b.object_id)
    other_author = child.insert("Author", name="Ken MacLeod")
    a2.pages = 452
    a2.author = other_author
    child.delete(b2)
    child.save()
    assert not child.has_changes
    assert a.pages == 452 and a.is_updated and a.author.name == "Ken MacLeod"
    assert b.is_deleted and b in root.deleted_objects
    assert a not in shelf["author"].books
    assert stored(path) == [("Excession", 451), ("Inversions", 345)]
    root.save()
    assert stored(path) == [("Excession", 452)]
    assert stored(path, "ZAUTHOR", "ZNAME") == [("Iain M. Banks",), ("Ken MacLeod",)]
    child.close()


def test_rollback_in_the_child_leaves_the_parent_alone(shelf) -> None:
    root, a = shelf["root"], shelf["a"]
    a.pages = 5
    child = og.Context(parent=root)
    a2 = child.existing_object(a.object_id)
    assert a2.pages == 5
    a2.pages = 7
    child.insert("Book", title="Dropped")
    child.rollback()
    assert not child.has_changes and a2.pages == 5
    assert titles(child.fetch("Book")) == ["Excession", "Inversions"]
    assert root.has_changes and a.pages == 5 and a.changed_values() == {"pages": 5}
    child.close()


def test_a_conflict_is_raised_when_the_root_saves(shelf) -> None:
    root, a, path = shelf["root"], shelf["a"], shelf["path"]
    elsewhere = og.Context(shelf["stack"].coordinator)
    child = og.Context(parent=root)
    a2 = child.existing_object(a.object_id)
    elsewhere.existing_object(a.object_id).pages = 1000
    elsewhere.save()
    a2.title = "Excession!"
    child.save()  # no conflict between child and parent
    assert a.title == "Excession!"
    with pytest.raises(og.MergeConflictError) as info:
        root.save()
    (conflict,) = info.value.conflicts
    assert conflict.obj is a
    assert conflict.object_snapshot["pages"] == 451 and conflict.cached_snapshot["pages"] == 1000
    assert stored(path)[0] == ("Excession", 1000)
    assert root.has_changes
    root.merge_policy = og.MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP
    root.save()
    assert stored(path)[0] == ("Excession!", 1000)
    elsewhere.close()
    child.close()


def test_children_of_a_queue_context(open_stack, books_model, tmp_path) -> None:
    stack = open_stack(books_model)
    writer = og.Context(stack.coordinator, "private")
    child = og.Context(parent=writer)  # confinement, on this thread
    child.insert("Book", title="Use of Weapons", pages=411)
    child.save()
    assert writer.perform_and_wait(lambda: writer.has_changes)
    assert stored(tmp_path / "books.sqlite") == []
    writer.perform_and_wait(writer.save)
    assert stored(tmp_path / "books.sqlite") == [("Use of Weapons", 411)]
    worker = og.Context(parent=writer, concurrency="private")

    def work() -> int:
        worker.insert("Book", title="Feersum Endjinn", pages=279)
        worker.save()
        return worker.count("Book")

    assert worker.perform_and_wait(work) == 2
    assert writer.perform_and_wait(lambda: len(writer.inserted_objects)) == 1
    writer.perform_and_wait(writer.save)
    assert len(stored(tmp_path / "books.sqlite")) == 2
    worker.close()
    child.close()
    writer.close()


def test_a_child_merges_its_parent_s_saves(shelf) -> None:
    root, a = shelf["root"], shelf["a"]
    child = og.Context(parent=root)
    a2 = child.existing_object(a.object_id)
    child.automatically_merges_changes_from_parent = True
    assert child.automatically_merges_changes_from_parent
    seen: List[og.Notification] = []
    child.observe("objects_did_change", seen.append)
    a.pages = 999
    root.save()
    child.process_pending_changes()
    assert a2.pages == 999 and seen
    child.close()


def test_a_child_orders_its_parents_unsaved_objects_as_the_parent_does(shelf) -> None:
    """Ties go to stored rows by key, then to objects not saved yet in the order they
    were made: the same in a child as in its parent, for objects, IDs and windows."""
    root = shelf["root"]
    root.insert("Book", title="Parent new")
    child = og.Context(parent=root)
    child.insert("Book", title="Child new")
    # The saved books have 451 and 345 pages; the new ones tie on none.
    for sort, expected in ((None, ["Excession", "Inversions", "Parent new", "Child new"]),
                           (["pages"], ["Parent new", "Child new", "Inversions", "Excession"])):
        assert [b.title for b in child.fetch("Book", sort=sort)] == expected
        ids = child.fetch("Book", sort=sort, result_type="object_id")
        assert ids == [b.object_id for b in child.fetch("Book", sort=sort)]
        assert [b.title for b in child.fetch("Book", sort=sort, offset=1, limit=2)] == expected[1:3]
    assert [b.title for b in root.fetch("Book")] == ["Excession", "Inversions", "Parent new"]
    assert child.count("Book", offset=1, limit=2) == 2
