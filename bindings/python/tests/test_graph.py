"""The object graph from Python: uniquing, inverses, delete rules, pending-change
sets, validation, rollback, reset and refresh, notifications, hooks, key paths,
queue contexts and threads, and a library scenario edited over several saves and
reopened.

Tags are to-many with a to-one inverse: the SQLite store does not keep
many-to-many relationships yet."""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from typing import Any, List

import pytest

import objectgraph as og


def library_model() -> og.Model:
    model = og.Model()
    author = model.add_entity("Author")
    book = model.add_entity("Book")
    loan = model.add_entity("Loan")
    tag = model.add_entity("Tag")
    name = author.add_attribute("name", "string", optional=False)
    name.min_length = 1
    name.max_length = 40
    book.add_attribute("title", "string", optional=False)
    pages = book.add_attribute("pages", "integer32")
    pages.min_value = 1
    pages.max_value = 5000
    loan.add_attribute("borrower", "string", optional=False)
    tag.add_attribute("name", "string")
    books = author.add_relationship("books", book, to_many=True, delete_rule="cascade")
    book.add_relationship("author", author, inverse=books)
    loans = book.add_relationship("loans", loan, to_many=True, delete_rule="deny")
    loan.add_relationship("book", book, inverse=loans, optional=False)
    tags = book.add_relationship("tags", tag, to_many=True)
    tag.add_relationship("book", book, inverse=tags)
    return model


class Library:
    def __init__(self, path: Path, concurrency: str = "confinement") -> None:
        self.path = path
        self.coordinator = og.Coordinator(library_model())
        self.coordinator.add_store("SQLite", str(path))
        self.ctx = og.Context(self.coordinator, concurrency=concurrency)

    def close(self) -> None:
        self.ctx.close()
        self.coordinator.close()
        gc.collect()


@pytest.fixture
def lib(tmp_path: Path) -> Any:
    library = Library(tmp_path / "graph.sqlite")
    yield library
    library.close()


def test_uniquing(lib: Library) -> None:
    ctx = lib.ctx
    a = ctx.insert("Author", name="Ursula")
    assert ctx.object_registered(a.object_id) is a
    ctx.save()
    assert ctx.fetch("Author")[0] is a
    assert ctx.object_with_id(a.object_id) is a
    assert ctx.existing_object(a.object_id) is a
    other = og.Context(lib.coordinator)
    assert other.object_registered(a.object_id) is None
    fault = other.object_with_id(a.object_id)
    assert fault is not a and fault.is_fault
    assert fault.name == "Ursula" and not fault.is_fault
    assert fault.faulting_state == 0
    ctx.delete(a)
    ctx.save()
    third = og.Context(lib.coordinator)
    with pytest.raises(og.Error) as info:
        third.existing_object(a.object_id)
    assert info.value.code == 133000
    for c in (other, third):
        c.close()


def test_inverses(lib: Library) -> None:
    ctx = lib.ctx
    terry, neil = ctx.insert("Author", name="Terry"), ctx.insert("Author", name="Neil")
    book = ctx.insert("Book", title="Good Omens", author=terry)
    assert book in terry.books
    book.author = neil
    assert len(terry.books) == 0 and book in neil.books
    terry.books.add(book)
    assert book.author is terry and len(neil.books) == 0
    terry.books.discard(book)
    assert book.author is None
    book.author = terry
    ctx.save()
    other = og.Context(lib.coordinator)
    t2 = other.existing_object(terry.object_id)
    assert t2.has_fault_for_relationship("books")
    assert len(t2.books) == 1
    assert not t2.has_fault_for_relationship("books")
    other.close()


def test_delete_rules(lib: Library) -> None:
    ctx = lib.ctx
    a = ctx.insert("Author", name="Iain")
    b1 = ctx.insert("Book", title="Excession", author=a)
    b2 = ctx.insert("Book", title="Matter", author=a)
    tag = ctx.insert("Tag", name="sf", book=b2)
    loan = ctx.insert("Loan", borrower="Ann", book=b1)
    ctx.save()
    ctx.delete(a)
    assert b1.is_deleted and b2.is_deleted
    with pytest.raises(og.ValidationError) as info:
        ctx.save()
    assert info.value.code == 1600
    ctx.rollback()
    ctx.delete(loan)
    ctx.delete(a)
    ctx.save()
    assert not a.is_deleted and not loan.is_deleted  # a saved delete: gone, no longer "deleted"
    assert tag.book is None
    assert ctx.count("Book") == 0
    # Deferred propagation: rules wait for the save.
    assert ctx.propagates_deletes_at_end_of_event
    ctx.propagates_deletes_at_end_of_event = False
    a2 = ctx.insert("Author", name="Ann")
    b3 = ctx.insert("Book", title="Later", author=a2)
    ctx.save()
    ctx.delete(a2)
    ctx.process_pending_changes()
    assert not b3.is_deleted
    ctx.save()
    assert ctx.count("Book") == 0


def test_pending_sets(lib: Library) -> None:
    ctx = lib.ctx
    a = ctx.insert("Author", name="Kim")
    b = ctx.insert("Book", title="Aurora", author=a)
    assert set(map(id, ctx.inserted_objects)) == {id(a), id(b)}
    ctx.save()
    assert ctx.inserted_objects == [] and not ctx.has_changes
    b.pages = 500
    assert ctx.updated_objects == [b]
    c = ctx.insert("Book", title="Red Mars", author=a)
    ctx.delete(b)
    assert ctx.deleted_objects == [b]
    assert all(o is not b and o is not c for o in ctx.updated_objects)
    fresh = ctx.insert("Author", name="Gone")
    ctx.delete(fresh)
    ctx.process_pending_changes()
    assert fresh not in ctx.inserted_objects and fresh not in ctx.deleted_objects
    assert not ctx.retains_registered_objects
    ctx.retains_registered_objects = True
    assert ctx.retains_registered_objects
    assert ctx.registered_count == len(ctx.registered_objects) >= 2
    assert c.has_temporary_id
    ctx.obtain_permanent_ids([c])
    uri = c.object_id
    assert not c.has_temporary_id and c.is_inserted
    ctx.save()
    assert c.object_id == uri
    ctx.user_info["who"] = "tests"
    assert ctx.user_info["who"] == "tests" and "who" in ctx.user_info
    del ctx.user_info["who"]
    assert ctx.user_info.get("who") is None


def test_validation_errors(lib: Library) -> None:
    ctx = lib.ctx
    a = ctx.insert("Author")
    assert a.has_changes
    with pytest.raises(og.ValidationError) as early:
        a.validate_for_insert()  # the checks a save runs, without saving
    assert early.value.code == 1570 and early.value.key == "name"
    a.validate_for_delete()
    with pytest.raises(og.ValidationError) as info:
        ctx.save()
    assert info.value.code == 1570 and info.value.key == "name"
    a.name = ""
    b = ctx.insert("Book", title="Ok", author=a, pages=9000)
    with pytest.raises(og.ValidationError) as info:
        ctx.save()
    assert info.value.code == 1560
    details = {d.key: d for d in info.value.details}
    assert details["pages"].code == 1610 and details["pages"].value == "9000"
    assert details["name"].code == 1670 and details["name"].object_id == a.object_id
    assert ctx.has_changes
    with pytest.raises(og.ValidationError) as info:
        b.validate_value("pages", 0)
    assert info.value.code == 1620
    b.validate_value("pages", 10)


def test_validation_hooks(lib: Library) -> None:
    ctx = lib.ctx

    def title_rule(book: og.ManagedObject) -> None:
        if len(book.title) < 2:
            raise ValueError("a title needs two letters")

    def pages_rule(book: og.ManagedObject, key: str, value: Any) -> bool:
        return not (key == "pages" and value == 13)

    ctx.set_hooks("Book", validate_for_insert=title_rule, validate_value=pages_rule)
    a = ctx.insert("Author", name="Ada")
    b = ctx.insert("Book", title="X", author=a, pages=13)
    with pytest.raises(og.ValidationError) as info:
        ctx.save()
    assert info.value.code == 1550 and info.value.key == "pages"
    b.pages = 12
    with pytest.raises(og.ValidationError, match="two letters") as info:
        ctx.save()
    assert info.value.object_id == b.object_id
    b.title = "Xy"
    ctx.save()
    assert not b.has_changes
    b.validate_for_update()

    # A hook's own og.Error keeps its domain and code, in validate_for_* and at save.
    def own_rule(book: og.ManagedObject) -> None:
        raise og.Error("shelf is full", code=4242, domain="com.example.library")

    ctx.set_hooks("Book", validate_for_update=own_rule)
    b.pages = 20
    assert b.has_changes
    for call in (b.validate_for_update, ctx.save):
        with pytest.raises(og.Error) as own:
            call()
        assert (own.value.code, own.value.domain) == (4242, "com.example.library")
    ctx.set_hooks("Book", validate_for_update=None)
    with pytest.raises(og.Error):
        ctx.set_hooks("Book", not_a_hook=title_rule)


def test_rollback(lib: Library) -> None:
    ctx = lib.ctx
    restored: List[str] = []
    a = ctx.insert("Author", name="Octavia")
    b = ctx.insert("Book", title="Kindred", author=a)
    ctx.save()
    ctx.set_hooks("Book", awake_from_snapshot_events=lambda o: restored.append(o.title))
    b.title = "Dawn"
    c = ctx.insert("Book", title="Wild Seed", author=a)
    ctx.delete(a)
    ctx.rollback()
    assert b.title == "Kindred" and not a.is_deleted and not b.is_deleted
    assert list(a.books) == [b]
    assert restored == ["Kindred"]
    with pytest.raises(og.Error) as info:
        c.title
    assert info.value.code == og.ErrorCode.OBJECT_INACCESSIBLE
    assert not ctx.has_changes


def test_refresh_and_reset(lib: Library) -> None:
    ctx = lib.ctx
    a = ctx.insert("Author", name="Octavia")
    b = ctx.insert("Book", title="Kindred", author=a)
    ctx.save()
    b.title = "Dawn"
    ctx.refresh(b)
    assert b.is_fault and b.title == "Kindred"
    other = og.Context(lib.coordinator)
    other.existing_object(b.object_id).pages = 321
    other.save()
    other.close()
    b.title = "Mine"
    ctx.refresh(b, merge=True)
    assert b.title == "Mine" and b.pages == 321
    seen: List[og.Notification] = []
    ctx.observe("objects_did_change", seen.append)
    ctx.reset()
    assert seen[-1].invalidated_all
    with pytest.raises(og.Error):
        b.title
    assert ctx.registered_count == 0


def test_objects_did_change_reports_changes_of_pending_inserts(lib: Library) -> None:
    ctx = lib.ctx
    a = ctx.insert("Author", name="Jo")
    ctx.process_pending_changes()
    changes: List[og.Notification] = []
    observer = ctx.observe("objects_did_change", changes.append)
    a.name = "Jon"
    ctx.process_pending_changes()
    assert len(changes) == 1 and changes[0].updated == [a] and changes[0].inserted == []
    ctx.delete(a)
    ctx.process_pending_changes()
    assert len(changes) == 2 and changes[1].deleted == [a]
    # Inserted and deleted in one event: the two cancel out.
    b = ctx.insert("Author", name="Brief")
    ctx.delete(b)
    ctx.process_pending_changes()
    assert len(changes) == 2
    observer.remove()


def test_notifications(lib: Library) -> None:
    ctx = lib.ctx
    changes: List[og.Notification] = []
    saves: List[og.Notification] = []
    will: List[og.Notification] = []
    changed = ctx.observe("objects_did_change", changes.append)
    saved = ctx.observe("did_save", saves.append)
    ctx.observe("will_save", will.append)
    a = ctx.insert("Author", name="Jo")
    ctx.process_pending_changes()
    assert len(changes) == 1 and changes[0].inserted == [a] and changes[0].name == "objects_did_change"
    ctx.process_pending_changes()
    assert len(changes) == 1
    b = ctx.insert("Book", title="Lud", author=a)
    ctx.save()
    assert len(will) == 1 and len(saves) == 1 and set(map(id, saves[0].inserted)) == {id(a), id(b)}
    b.pages = 3
    ctx.save()
    assert saves[-1].updated == [b]
    ctx.refresh(a)
    ctx.process_pending_changes()
    assert changes[-1].refreshed == [a]
    changed.remove()
    saved.remove()
    count, save_count = len(changes), len(saves)
    ctx.insert("Author", name="Later")
    ctx.save()
    assert len(changes) == count and len(saves) == save_count
    with pytest.raises(og.Error):
        ctx.observe("nonsense", print)


def test_hooks_and_callback_errors(lib: Library) -> None:
    ctx = lib.ctx
    calls: List[str] = []

    def awake(book: og.ManagedObject) -> None:
        calls.append("insert")
        book.title = "Untitled"

    def will_save(book: og.ManagedObject) -> None:
        calls.append("will_save")
        if book.pages is None:
            book.pages = 1

    ctx.set_hooks("Book", awake_from_insert=awake, will_save=will_save, did_save=lambda o: calls.append("did_save"),
                  prepare_for_deletion=lambda o: calls.append("delete"),
                  awake_from_fetch=lambda o: calls.append("fetch"))
    b = ctx.insert("Book")
    assert b.title == "Untitled"
    ctx.save()
    assert b.pages == 1 and not b.is_updated
    assert "did_save" in calls and calls.count("will_save") >= 1
    ctx.refresh(b)
    ctx.fetch("Book")
    assert "fetch" not in calls  # the fetch gave the fault its row; it awakes when it fires
    assert b.pages == 1 and "fetch" in calls
    ctx.delete(b)
    assert calls[-1] == "delete"
    ctx.delete(b)  # again: prepare_for_deletion runs again, as on Core Data
    assert calls[-2:] == ["delete", "delete"]
    ctx.rollback()

    # An exception in a hook does not crash: the call that ran it raises it.
    def broken(book: og.ManagedObject) -> None:
        raise RuntimeError("hook failed")

    ctx.set_hooks("Book", will_save=broken, awake_from_insert=None)
    b.pages = 2
    with pytest.raises(RuntimeError, match="hook failed"):
        ctx.save()
    # The save failed before anything was written: another context reads the old value.
    with og.Context(ctx.coordinator) as other:
        assert [book.pages for book in other.fetch("Book") if book.title == b.title] == [1]
    assert ctx.has_changes  # the change stays pending
    ctx.set_hooks("Book", will_save=None)
    assert ctx.insert("Book", title="T").title == "T"


def test_key_paths_and_values(lib: Library) -> None:
    ctx = lib.ctx
    a = ctx.insert("Author", name="Mary")
    b = ctx.insert("Book", title="Frankenstein", author=a)
    ctx.insert("Book", title="Mathilda", author=a)
    ctx.save()
    assert b.value_for_key_path("author.name") == "Mary"
    assert b.value_for_key_path("author") is a
    assert a.value_for_key_path("books.@count") == 2
    assert sorted(a.value_for_key_path("books.title")) == ["Frankenstein", "Mathilda"]
    with pytest.raises(og.UnknownKeyError):
        b.value_for_key_path("nope.name")
    assert b.changed_values() == {}
    b.title = "The Modern Prometheus"
    assert b.changed_values() == {"title": "The Modern Prometheus"}
    assert b.committed_values(["title", "author"]) == {"title": "Frankenstein", "author": a}
    assert b.committed_values()["title"] == "Frankenstein"
    ctx.rollback()
    b.set_primitive("pages", 77)
    assert b.primitive("pages") == 77 and not b.is_updated


def test_private_queue_context(tmp_path: Path) -> None:
    library = Library(tmp_path / "queue.sqlite", concurrency="private")
    ctx = library.ctx
    assert ctx.concurrency == "private"
    with pytest.raises(og.WrongThreadError):
        ctx.insert("Author", name="outside")

    def work() -> str:
        a = ctx.insert("Author", name="Queued")
        # Re-entrant: a nested perform_and_wait runs at once.
        ctx.perform_and_wait(lambda: ctx.insert("Book", title="Nested", author=a))
        return a.name

    assert ctx.perform_and_wait(work) == "Queued"
    # From another thread.
    errors: List[BaseException] = []

    def other_thread() -> None:
        try:
            ctx.perform_and_wait(ctx.save)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    t = threading.Thread(target=other_thread)
    t.start()
    t.join()
    assert errors == []
    assert ctx.perform_and_wait(lambda: ctx.count("Book")) == 1
    # perform is asynchronous; an exception in it surfaces at the next call.
    done = threading.Event()
    ctx.perform(lambda: (ctx.insert("Tag", name="async"), ctx.save(), done.set()))
    ctx.perform(lambda: 1 / 0)
    assert done.wait(10)
    with pytest.raises(ZeroDivisionError):
        ctx.perform_and_wait(lambda: None)
    with pytest.raises(ValueError):
        ctx.perform_and_wait(lambda: int("x"))
    # Closing waits for queued blocks.
    landed: List[int] = []
    ctx.perform(lambda: (ctx.insert("Tag", name="late"), ctx.save(), landed.append(1)))
    library.close()
    assert landed == [1]
    check = Library(tmp_path / "queue.sqlite")
    assert check.ctx.count("Tag") == 2
    check.close()


def test_wrong_thread(lib: Library) -> None:
    ctx = lib.ctx
    b = ctx.insert("Author", name="Here")
    caught: List[BaseException] = []

    ran: List[int] = []

    def elsewhere() -> None:
        for call in (ctx.rollback, ctx.process_pending_changes, lambda: b.name,
                     lambda: ctx.observe("did_save", print), lambda: ctx.perform_and_wait(lambda: ran.append(1))):
            try:
                call()
            except BaseException as exc:  # noqa: BLE001
                caught.append(exc)

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert len(caught) == 5 and all(isinstance(e, og.WrongThreadError) for e in caught[:4])
    # A confinement context has no queue: perform_and_wait is refused from any thread.
    assert isinstance(caught[4], og.UsageError) and caught[4].code == og.INVALID_ARGUMENT and ran == []
    assert b.name == "Here"


def test_library_scenario(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    library = Library(path)
    ctx = library.ctx
    le_guin = ctx.insert("Author", name="Ursula K. Le Guin")
    pratchett = ctx.insert("Author", name="Terry Pratchett")
    earthsea = ctx.insert("Book", title="A Wizard of Earthsea", author=le_guin)
    dispossessed = ctx.insert("Book", title="The Dispossessed", author=le_guin)
    mort = ctx.insert("Book", title="Mort", author=pratchett, pages=272)
    fantasy, classic, sf = (ctx.insert("Tag", name=n) for n in ("fantasy", "classic", "sf"))
    earthsea.tags.update([fantasy, classic])
    dispossessed.tags.add(sf)
    ctx.save()

    # A save that fails validation, then is fixed.
    loan = ctx.insert("Loan", book=mort)
    dispossessed.pages = 0
    with pytest.raises(og.ValidationError) as info:
        ctx.save()
    assert info.value.code == 1560
    assert {d.key for d in info.value.details} == {"borrower", "pages"}
    loan.borrower = "Sam"
    dispossessed.pages = 387
    ctx.save()

    # A delete denied by the loan, rolled back; the loan returned; the delete saved.
    ctx.delete(pratchett)
    with pytest.raises(og.ValidationError) as info:
        ctx.save()
    assert info.value.code == 1600
    ctx.rollback()
    ctx.delete(loan)
    ctx.delete(pratchett)
    ctx.save()

    # A tag deleted (nullify), a book moved to a new author.
    anon = ctx.insert("Author", name="Anon")
    ctx.delete(classic)
    dispossessed.author = anon
    ctx.save()
    library.close()

    reopened = Library(path)
    ctx = reopened.ctx
    assert ctx.count("Author") == 2 and ctx.count("Book") == 2
    assert ctx.count("Loan") == 0 and ctx.count("Tag") == 2
    (e,) = ctx.fetch("Book", "title == %@", "A Wizard of Earthsea")
    assert e.value_for_key_path("author.name") == "Ursula K. Le Guin"
    assert [t.name for t in e.tags] == ["fantasy"]
    (d,) = ctx.fetch("Book", "title == %@", "The Dispossessed")
    assert d.value_for_key_path("author.name") == "Anon" and d.pages == 387
    (lg,) = ctx.fetch("Author", "name BEGINSWITH %@", "Ursula")
    assert list(lg.books) == [e]
    assert ctx.fetch("Book", "title == %@", "Mort") == []
    (sf2,) = ctx.fetch("Tag", "name == %@", "sf")
    assert sf2.book is d
    reopened.close()


def test_reset_releases_the_forgotten_objects(lib: Library) -> None:
    ctx = lib.ctx
    book = ctx.insert("Book", title="Gone")
    ctx.save()
    ctx.reset()
    with pytest.raises(og.InvalidHandleError):
        book.title
    # The context goes on: new objects get handles of their own.
    again = ctx.insert("Book", title="Again")
    assert again.title == "Again"


def test_collected_wrappers_give_their_handles_back(lib: Library) -> None:
    import gc

    ctx = lib.ctx
    for i in range(300):  # more than the binding gives back at once
        ctx.insert("Book", title=f"B{i}")
    ctx.save()
    fresh = og.Context(lib.coordinator)
    first = fresh.fetch("Book")
    handles = {b._h for b in first}
    del first
    gc.collect()
    # Every handle went back to the library: fetching again lends new ones, and the
    # objects read the same.
    second = fresh.fetch("Book", sort=["title"])
    assert not handles & {b._h for b in second}
    assert [b.title for b in second][:2] == ["B0", "B1"]
    # A few wrappers gone wait to be given back with others; handed out again before
    # that, their handles are taken off the list and keep working.
    few = second[:3]
    few_handles = [b._h for b in few]
    del few
    keep = second[3:]
    del second
    gc.collect()
    again = fresh.fetch("Book", sort=["title"])
    assert [b._h for b in again[:3]] == few_handles
    assert [b.title for b in again[:3]] == ["B0", "B1", "B10"]
    gc.collect()
    assert [b.title for b in fresh.fetch("Book", sort=["title"])[:3]] == ["B0", "B1", "B10"]
    del again
    second = keep
    # A changed object stays in the context even when its wrapper goes.
    second[0].title = "Changed"
    del second
    gc.collect()
    assert fresh.has_changes
    fresh.save()
    check = og.Context(lib.coordinator)
    assert [b.title for b in check.fetch("Book", sort=["title"]) if b.title == "Changed"] == ["Changed"]
    check.close()
    fresh.close()
