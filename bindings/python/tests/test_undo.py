"""Undo and redo from Python: og.UndoManager (stacks, grouping, levels, action
names, registration on and off) and a context that registers each event's
changes with it (attributes, relationships on both sides, inserts, deletes,
saved changes), rollback and reset, notifications, and misuse."""

from __future__ import annotations

import gc
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterator, List

import pytest

import objectgraph as og


def shelf_model() -> og.Model:
    """Author <->> Book, and Shelf <->> Book kept in order."""
    model = og.Model()
    author = model.add_entity("Author")
    book = model.add_entity("Book")
    shelf = model.add_entity("Shelf")
    author.add_attribute("name", "string", optional=False, default="Anonymous")
    book.add_attribute("title", "string", optional=False, default="Untitled")
    book.add_attribute("pages", "integer32", default=0)
    book.add_attribute("rating", "double")
    shelf.add_attribute("label", "string")
    books = author.add_relationship("books", book, to_many=True)
    book.add_relationship("author", author, inverse=books)
    shelved = shelf.add_relationship("books", book, to_many=True)
    shelved.ordered = True
    book.add_relationship("shelf", shelf, inverse=shelved)
    return model


class Stack:
    def __init__(self, path: Path, concurrency: str = "confinement") -> None:
        self.path = path
        self.coordinator = og.Coordinator(shelf_model())
        self.coordinator.add_store("SQLite", str(path))
        self.ctx = og.Context(self.coordinator, concurrency=concurrency)

    def close(self) -> None:
        self.ctx.close()
        self.coordinator.close()
        gc.collect()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    s = Stack(tmp_path / "undo.sqlite")
    yield s
    s.close()


@pytest.fixture
def ctx(stack: Stack) -> og.Context:
    stack.ctx.undo_manager = og.UndoManager()
    return stack.ctx


def stored_titles(path: Path) -> List[str]:
    with sqlite3.connect(path) as db:
        return sorted(row[0] for row in db.execute("SELECT ZTITLE FROM ZBOOK"))


def titles(objects: Any) -> List[str]:
    return sorted(o.title for o in objects)


# The manager on its own.


def test_a_new_manager() -> None:
    m = og.UndoManager()
    assert not m.can_undo and not m.can_redo
    assert m.levels_of_undo == 0 and m.groups_by_event is True
    assert m.grouping_level == 0 and m.undo_action_name == "" and m.redo_action_name == ""
    assert m.is_undo_registration_enabled
    m.undo()  # nothing to undo: nothing happens
    m.redo()
    m.remove_all_actions()
    assert "UndoManager" in repr(m)
    configured = og.UndoManager(levels_of_undo=3, groups_by_event=False)
    assert configured.levels_of_undo == 3 and configured.groups_by_event is False
    with pytest.raises(TypeError):
        og.UndoManager(3)  # type: ignore[misc]  # options are keyword-only


def test_grouping_levels_and_nesting() -> None:
    m = og.UndoManager()
    m.begin_grouping()
    m.begin_grouping()
    assert m.grouping_level == 2
    m.end_grouping()
    assert m.grouping_level == 1
    m.end_grouping()
    assert m.grouping_level == 0
    with pytest.raises(og.UsageError) as info:
        m.end_grouping()
    assert info.value.code == og.INVALID_ARGUMENT == 140002
    assert m.grouping_level == 0


def test_settings_are_checked() -> None:
    m = og.UndoManager()
    m.levels_of_undo = 5
    assert m.levels_of_undo == 5
    with pytest.raises(og.UsageError) as info:
        m.levels_of_undo = -1
    assert info.value.code == 140002 and m.levels_of_undo == 5
    with pytest.raises(og.TypeMismatchError):
        m.levels_of_undo = "many"  # type: ignore[assignment]
    with pytest.raises(og.TypeMismatchError):
        m.undo_action_name = None  # type: ignore[assignment]
    m.groups_by_event = False
    assert m.groups_by_event is False


def test_disable_and_enable_nest() -> None:
    m = og.UndoManager()
    m.disable_undo_registration()
    m.disable_undo_registration()
    assert not m.is_undo_registration_enabled
    m.enable_undo_registration()
    assert not m.is_undo_registration_enabled
    m.enable_undo_registration()
    assert m.is_undo_registration_enabled
    with pytest.raises(og.UsageError) as info:
        m.enable_undo_registration()
    assert info.value.code == 140002


def test_a_closed_manager() -> None:
    m = og.UndoManager()
    m.close()
    m.close()  # twice is harmless
    assert "closed" in repr(m)
    for call in (m.undo, m.redo, m.begin_grouping, lambda: m.can_undo, lambda: m.grouping_level,
                 lambda: m.undo_action_name, lambda: m.is_undo_registration_enabled):
        with pytest.raises(og.InvalidHandleError):
            call()


# A context with a manager.


def test_no_manager_by_default(stack: Stack) -> None:
    ctx = stack.ctx
    assert ctx.undo_manager is None
    book = ctx.insert("Book", title="Dune")
    ctx.process_pending_changes()
    ctx.undo()  # no manager: nothing happens
    ctx.redo()
    assert book.title == "Dune" and not book.is_deleted and ctx.count("Book") == 1


def test_setting_the_manager(stack: Stack) -> None:
    ctx = stack.ctx
    m = og.UndoManager()
    ctx.undo_manager = m
    assert ctx.undo_manager is m
    for bad in (5, "manager", object()):
        with pytest.raises(og.TypeMismatchError) as info:
            ctx.undo_manager = bad  # type: ignore[assignment]
        assert info.value.code == og.TYPE_MISMATCH == 140006
    assert ctx.undo_manager is m
    ctx.undo_manager = None
    assert ctx.undo_manager is None
    book = ctx.insert("Book", title="Unrecorded")
    ctx.process_pending_changes()
    assert not m.can_undo and book.title == "Unrecorded"


def test_the_context_keeps_its_manager_alive(stack: Stack) -> None:
    ctx = stack.ctx
    ctx.undo_manager = og.UndoManager()
    gc.collect()
    m = ctx.undo_manager
    assert isinstance(m, og.UndoManager) and not m.closed
    ctx.insert("Book", title="Kept")
    ctx.process_pending_changes()
    assert m.can_undo
    # Closing the Python object leaves the context's manager working.
    m.close()
    ctx.undo()
    assert ctx.count("Book") == 0


def test_a_closed_manager_cannot_be_set(stack: Stack) -> None:
    m = og.UndoManager()
    m.close()
    with pytest.raises(og.InvalidHandleError):
        stack.ctx.undo_manager = m
    assert stack.ctx.undo_manager is None


def test_undo_after_the_context_is_gone(stack: Stack) -> None:
    m = og.UndoManager()
    other = og.Context(stack.coordinator)
    other.undo_manager = m
    other.insert("Book", title="Orphan")
    other.process_pending_changes()
    other.close()
    gc.collect()
    with pytest.raises(og.Error):
        m.undo()  # the group's context is gone: an error, never a crash
    assert not m.can_redo


def test_context_name(stack: Stack) -> None:
    ctx = stack.ctx
    assert ctx.name is None
    ctx.name = "editor"
    assert ctx.name == "editor"
    ctx.name = ""
    assert ctx.name == ""
    ctx.name = None
    assert ctx.name is None
    with pytest.raises(og.TypeMismatchError):
        ctx.name = 3  # type: ignore[assignment]


def test_undo_and_redo_an_attribute_change(ctx: og.Context) -> None:
    m = ctx.undo_manager
    assert m is not None
    book = ctx.insert("Book", title="Dune", pages=412)
    ctx.save()
    assert m.can_undo  # the insert, registered at the save
    m.remove_all_actions()
    book.title = "Dune Messiah"
    book.pages = 256
    book.rating = 4.5
    ctx.process_pending_changes()
    assert m.can_undo and not m.can_redo
    ctx.undo()
    assert (book.title, book.pages, book.rating) == ("Dune", 412, None)
    assert not book.is_updated and not ctx.has_changes
    assert m.can_redo and not m.can_undo
    ctx.redo()
    assert (book.title, book.pages, book.rating) == ("Dune Messiah", 256, 4.5)
    assert book.is_updated and m.can_undo and not m.can_redo


def test_undo_closes_the_open_event(ctx: og.Context) -> None:
    book = ctx.insert("Book", title="Open")
    ctx.process_pending_changes()
    book.title = "Changed"
    ctx.undo()  # processes pending changes first: the change is its own group
    assert book.title == "Open"
    ctx.undo()
    assert book.is_inserted is False and ctx.count("Book") == 0


def test_a_new_change_clears_redo(ctx: og.Context) -> None:
    m = ctx.undo_manager
    assert m is not None
    book = ctx.insert("Book", title="A")
    ctx.process_pending_changes()
    book.title = "B"
    ctx.process_pending_changes()
    ctx.undo()
    assert m.can_redo
    book.title = "C"
    ctx.process_pending_changes()
    assert not m.can_redo
    ctx.undo()
    assert book.title == "A"


def test_undo_a_to_one_change_on_both_sides(ctx: og.Context) -> None:
    le_guin = ctx.insert("Author", name="Le Guin")
    banks = ctx.insert("Author", name="Banks")
    book = ctx.insert("Book", title="The Dispossessed", author=le_guin)
    ctx.save()
    book.author = banks
    ctx.process_pending_changes()
    assert list(banks.books) == [book] and list(le_guin.books) == []
    ctx.undo()
    assert book.author is le_guin
    assert list(le_guin.books) == [book] and list(banks.books) == []
    ctx.redo()
    assert book.author is banks
    assert list(banks.books) == [book] and list(le_guin.books) == []
    ctx.save()
    ctx.undo()
    ctx.save()
    check = og.Context(ctx.coordinator)
    (stored,) = check.fetch("Book")
    assert stored.author.name == "Le Guin"
    check.close()


def test_undo_a_to_many_add_and_remove(ctx: og.Context) -> None:
    author = ctx.insert("Author", name="Banks")
    a = ctx.insert("Book", title="Excession")
    b = ctx.insert("Book", title="Inversions")
    ctx.save()
    author.books.add(a)
    ctx.process_pending_changes()
    author.books.add(b)
    ctx.process_pending_changes()
    assert b.author is author
    ctx.undo()
    assert b.author is None and a.author is author
    ctx.undo()
    assert a.author is None and b.author is None
    ctx.redo()
    assert a.author is author and b.author is None
    ctx.redo()
    assert titles(author.books) == ["Excession", "Inversions"] and b.author is author
    author.books.discard(a)
    ctx.process_pending_changes()
    assert a.author is None
    ctx.undo()
    assert a.author is author and titles(author.books) == ["Excession", "Inversions"]


@pytest.mark.parametrize("step", ["undo", "redo"])
def test_undo_after_reading_a_to_many_loaded_after_the_change(ctx: og.Context, step: str) -> None:
    author = ctx.insert("Author", name="Banks")
    a = ctx.insert("Book", title="Excession")
    b = ctx.insert("Book", title="Inversions")
    ctx.save()
    author.books.add(a)
    ctx.process_pending_changes()
    author.books.add(b)
    ctx.process_pending_changes()
    if step == "undo":
        assert titles(author.books) == ["Excession", "Inversions"]  # loads author.books
        ctx.undo()
        assert b.author is None
        assert titles(author.books) == ["Excession"]
    else:
        ctx.undo()
        ctx.undo()
        assert list(author.books) == []  # loads author.books
        ctx.redo()
        assert titles(author.books) == ["Excession"]
        ctx.redo()
        assert a.author is author and b.author is author
        assert titles(author.books) == ["Excession", "Inversions"]


def test_undo_ordered_edits(ctx: og.Context) -> None:
    shelf = ctx.insert("Shelf", label="SF")
    books = [ctx.insert("Book", title=t) for t in ("One", "Two", "Three")]
    for book in books[:2]:
        shelf.books.add(book)
    ctx.save()
    assert [b.title for b in shelf.books] == ["One", "Two"]
    shelf.books.add(books[2])
    shelf.books.discard(books[0])
    ctx.process_pending_changes()
    assert [b.title for b in shelf.books] == ["Two", "Three"]
    ctx.undo()
    assert [b.title for b in shelf.books] == ["One", "Two"]
    assert books[0].shelf is shelf and books[2].shelf is None
    ctx.redo()
    assert [b.title for b in shelf.books] == ["Two", "Three"]
    assert books[0].shelf is None and books[2].shelf is shelf
    ctx.undo()
    ctx.save()
    check = og.Context(ctx.coordinator)
    (again,) = check.fetch("Shelf")
    assert [b.title for b in again.books] == ["One", "Two"]
    check.close()


def test_undo_an_insert_and_redo_brings_the_same_object(stack: Stack, ctx: og.Context) -> None:
    book = ctx.insert("Book", title="Hyperion", pages=482)
    ctx.process_pending_changes()
    assert ctx.fetch("Book") == [book]
    ctx.undo()
    assert ctx.fetch("Book") == [] and ctx.count("Book") == 0
    assert ctx.inserted_objects == [] and not ctx.has_changes
    with pytest.raises(og.Error) as info:
        book.title
    assert info.value.code == og.OBJECT_INACCESSIBLE
    ctx.redo()
    (again,) = ctx.fetch("Book")
    assert again is book
    assert (book.title, book.pages) == ("Hyperion", 482) and book.is_inserted
    assert ctx.inserted_objects == [book]
    ctx.save()
    assert stored_titles(stack.path) == ["Hyperion"]


def test_undo_an_unsaved_delete(ctx: og.Context) -> None:
    author = ctx.insert("Author", name="Herbert")
    book = ctx.insert("Book", title="Dune", pages=412, author=author)
    ctx.process_pending_changes()
    ctx.delete(book)
    ctx.process_pending_changes()
    assert book.is_deleted and ctx.count("Book") == 0
    ctx.undo()
    assert not book.is_deleted and book.is_inserted
    assert (book.title, book.pages, book.author) == ("Dune", 412, author)
    assert list(author.books) == [book]
    assert ctx.fetch("Book") == [book]
    ctx.save()
    check = og.Context(ctx.coordinator)
    (stored,) = check.fetch("Book")
    assert stored.title == "Dune" and stored.author.name == "Herbert"
    check.close()


def test_undo_a_saved_delete(stack: Stack, ctx: og.Context) -> None:
    author = ctx.insert("Author", name="Simmons")
    book = ctx.insert("Book", title="Hyperion", pages=482, author=author)
    ctx.save()
    ctx.delete(book)
    ctx.save()
    assert stored_titles(stack.path) == [] and ctx.count("Book") == 0
    ctx.undo()
    assert not book.is_deleted
    assert (book.title, book.pages, book.author) == ("Hyperion", 482, author)
    assert ctx.fetch("Book") == [book]
    assert ctx.has_changes
    ctx.save()  # written again
    assert stored_titles(stack.path) == ["Hyperion"]
    check = og.Context(ctx.coordinator)
    (stored,) = check.fetch("Book")
    assert stored.pages == 482 and stored.author.name == "Simmons"
    check.close()


def test_undo_a_saved_change_leaves_it_updated(stack: Stack, ctx: og.Context) -> None:
    book = ctx.insert("Book", title="Anathem", pages=937)
    ctx.save()
    book.pages = 1000
    ctx.save()
    assert ctx.undo_manager is not None and ctx.undo_manager.can_undo  # save does not empty the stack
    ctx.undo()
    assert book.pages == 937
    assert ctx.updated_objects == [book] and book.is_updated
    ctx.save()
    with sqlite3.connect(stack.path) as db:
        assert db.execute("SELECT ZPAGES FROM ZBOOK").fetchall() == [(937,)]
    ctx.redo()
    assert book.pages == 1000 and ctx.updated_objects == [book]


def test_firing_a_fault_registers_nothing(stack: Stack) -> None:
    seed = stack.ctx
    author = seed.insert("Author", name="Wolfe")
    seed.insert("Book", title="Shadow", pages=300, author=author)
    seed.save()
    ctx = og.Context(stack.coordinator)
    m = og.UndoManager()
    ctx.undo_manager = m
    (book,) = ctx.fetch("Book", as_faults=True)
    assert book.is_fault
    assert book.title == "Shadow" and book.author.name == "Wolfe"
    assert [b.title for b in book.author.books] == ["Shadow"]
    ctx.refresh(book)
    assert book.pages == 300
    ctx.process_pending_changes()
    assert not m.can_undo
    ctx.close()


def test_rollback_and_reset_empty_the_stack_save_does_not(ctx: og.Context) -> None:
    m = ctx.undo_manager
    assert m is not None
    book = ctx.insert("Book", title="Kept")
    ctx.save()
    assert m.can_undo
    book.title = "Dropped"
    ctx.process_pending_changes()
    ctx.rollback()
    assert not m.can_undo and not m.can_redo and book.title == "Kept"
    book.title = "Again"
    ctx.process_pending_changes()
    ctx.undo()
    assert m.can_redo
    ctx.reset()
    assert not m.can_undo and not m.can_redo


def test_undo_and_redo_post_objects_did_change(ctx: og.Context) -> None:
    book = ctx.insert("Book", title="Saved")
    ctx.save()
    book.title = "Before"
    ctx.process_pending_changes()
    book.title = "After"
    ctx.process_pending_changes()
    seen: List[og.Notification] = []
    with ctx.observe("objects_did_change", seen.append):
        ctx.undo()  # back to "Before", still changed
        assert len(seen) == 1 and seen[0].updated == [book]
        ctx.redo()
        assert len(seen) == 2 and seen[1].updated == [book]
        ctx.delete(book)
        ctx.process_pending_changes()
        seen.clear()
        ctx.undo()  # an undone delete
        assert len(seen) == 1 and not book.is_deleted


@pytest.mark.parametrize("case", ["saved_values", "insert", "change_of_inserted"])
def test_every_undo_posts_objects_did_change(ctx: og.Context, case: str) -> None:
    book = ctx.insert("Book", title="Before")
    if case == "saved_values":
        ctx.save()
        book.title = "After"
    elif case == "change_of_inserted":
        ctx.process_pending_changes()
        book.title = "After"
    ctx.process_pending_changes()
    seen: List[og.Notification] = []
    with ctx.observe("objects_did_change", seen.append):
        ctx.undo()
    assert len(seen) == 1
    if case == "saved_values":
        assert seen[0].updated == [book] and book.title == "Before"


def test_an_observer_error_during_undo_reaches_the_caller(ctx: og.Context) -> None:
    m = ctx.undo_manager
    assert m is not None
    book = ctx.insert("Book", title="Saved")
    ctx.save()
    book.title = "Before"
    ctx.process_pending_changes()
    book.title = "After"
    ctx.process_pending_changes()

    def broken(_: og.Notification) -> None:
        raise RuntimeError("observer failed")

    with ctx.observe("objects_did_change", broken):
        with pytest.raises(RuntimeError, match="observer failed"):
            m.undo()
    assert book.title == "Before"


def test_two_process_pending_changes_make_two_groups(ctx: og.Context) -> None:
    book = ctx.insert("Book", title="One")
    ctx.process_pending_changes()
    book.title = "Two"
    book.pages = 2
    ctx.process_pending_changes()
    book.title = "Three"
    ctx.process_pending_changes()
    ctx.undo()
    assert (book.title, book.pages) == ("Two", 2)
    ctx.undo()
    assert (book.title, book.pages) == ("One", 0)
    ctx.undo()
    assert ctx.count("Book") == 0
    m = ctx.undo_manager
    assert m is not None and not m.can_undo
    for _ in range(3):
        ctx.redo()
    assert (book.title, book.pages) == ("Three", 2)


def test_explicit_groups_without_groups_by_event(ctx: og.Context) -> None:
    m = ctx.undo_manager
    assert m is not None
    book = ctx.insert("Book", title="Start")
    ctx.save()
    m.remove_all_actions()
    m.groups_by_event = False
    book.title = "Outside"
    ctx.process_pending_changes()
    assert not m.can_undo  # no group open: nothing recorded
    m.begin_grouping()
    book.title = "First"
    ctx.process_pending_changes()
    book.pages = 7
    ctx.process_pending_changes()
    m.begin_grouping()  # a nested group folds into the outer one
    book.rating = 1.5
    ctx.process_pending_changes()
    m.end_grouping()
    assert m.grouping_level == 1
    with pytest.raises(og.UsageError):
        ctx.undo()  # a group is still open
    m.undo_action_name = "Edit book"
    m.end_grouping()
    assert m.can_undo and m.undo_action_name == "Edit book"
    ctx.undo()
    assert (book.title, book.pages, book.rating) == ("Outside", 0, None)
    assert m.redo_action_name == "Edit book" and m.undo_action_name == ""
    ctx.redo()
    assert (book.title, book.pages, book.rating) == ("First", 7, 1.5)


def test_action_names(ctx: og.Context) -> None:
    m = ctx.undo_manager
    assert m is not None
    book = ctx.insert("Book", title="A")
    ctx.process_pending_changes()
    assert m.undo_action_name == ""
    m.undo_action_name = "Insert"  # no group open: names the newest one
    assert m.undo_action_name == "Insert"
    book.title = "B"
    ctx.process_pending_changes()
    assert m.undo_action_name == ""
    m.undo_action_name = "Rename"
    assert m.undo_action_name == "Rename"
    ctx.undo()
    assert m.undo_action_name == "Insert" and m.redo_action_name == "Rename"


def test_levels_of_undo_drop_old_groups(ctx: og.Context) -> None:
    m = ctx.undo_manager
    assert m is not None
    m.levels_of_undo = 2
    book = ctx.insert("Book", title="v0")
    ctx.save()
    for n in range(1, 5):
        book.title = f"v{n}"
        ctx.process_pending_changes()
    ctx.undo()
    ctx.undo()
    assert book.title == "v2" and not m.can_undo
    ctx.undo()  # the older groups were dropped
    assert book.title == "v2"


def test_disabled_registration_records_nothing(ctx: og.Context) -> None:
    m = ctx.undo_manager
    assert m is not None
    book = ctx.insert("Book", title="Recorded")
    ctx.process_pending_changes()
    m.disable_undo_registration()
    book.title = "Silent"
    ctx.process_pending_changes()
    m.enable_undo_registration()
    ctx.undo()  # undoes the insert, the only group
    assert ctx.count("Book") == 0 and not m.can_undo


def test_one_manager_for_two_contexts(stack: Stack, ctx: og.Context) -> None:
    m = ctx.undo_manager
    other = og.Context(stack.coordinator)
    other.undo_manager = m
    assert other.undo_manager is m
    a = ctx.insert("Book", title="Mine")
    ctx.process_pending_changes()
    b = other.insert("Book", title="Theirs")
    other.process_pending_changes()
    other.undo()
    assert other.count("Book") == 0 and ctx.count("Book") == 1
    ctx.undo()
    assert ctx.count("Book") == 0
    ctx.redo()
    ctx.redo()
    assert ctx.fetch("Book") == [a] and other.fetch("Book") == [b]
    other.close()


def test_undo_from_the_wrong_thread(stack: Stack) -> None:
    """A manager shared by contexts on two threads: undoing a group whose context
    belongs to the other thread raises WrongThreadError and changes nothing."""
    m = og.UndoManager()
    here = stack.ctx
    here.undo_manager = m
    mine = here.insert("Book", title="Here")
    here.save()
    queue = og.Context(stack.coordinator, "private")

    def edit() -> Any:
        queue.undo_manager = m
        book = queue.existing_object(mine.object_id)
        book.title = "There"
        queue.process_pending_changes()
        return book

    theirs = queue.perform_and_wait(edit)
    assert m.can_undo
    for call in (here.undo, m.undo):
        with pytest.raises(og.Error) as info:
            call()
        assert isinstance(info.value, og.WrongThreadError) and info.value.code == og.WRONG_THREAD == 140007
    assert queue.perform_and_wait(lambda: theirs.title) == "There"
    assert mine.title == "Here" and m.can_undo and not m.can_redo
    # Undone on its own queue, it works.
    queue.perform_and_wait(queue.undo)
    assert queue.perform_and_wait(lambda: theirs.title) == "Here"
    assert m.can_redo
    errors: List[BaseException] = []

    def elsewhere() -> None:
        try:
            m.redo()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert len(errors) == 1 and isinstance(errors[0], og.WrongThreadError)
    assert m.can_redo
    queue.close()


def test_the_context_and_manager_from_another_thread(ctx: og.Context) -> None:
    caught: List[BaseException] = []

    def elsewhere() -> None:
        for call in (lambda: ctx.undo_manager, lambda: setattr(ctx, "undo_manager", None), ctx.undo, ctx.redo,
                     lambda: ctx.name):
            try:
                call()
            except BaseException as exc:  # noqa: BLE001
                caught.append(exc)

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert len(caught) == 5 and all(isinstance(e, og.WrongThreadError) for e in caught)
    assert ctx.undo_manager is not None
