"""og.PersistentContainer and og.PersistentStoreDescription (NSPersistentContainer,
NSPersistentStoreDescription)."""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest

import objectgraph as og
from conftest import build_books_model


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def test_defaults(data_home: Path) -> None:
    folder = og.PersistentContainer.default_directory()
    assert folder == str(data_home / "objectgraph") and Path(folder).is_dir()
    with og.PersistentContainer("Books", build_books_model()) as container:
        assert container.name == "Books" and isinstance(container.model, og.Model)
        assert isinstance(container.coordinator, og.Coordinator)
        assert container.view_context.concurrency == "main" and container.view_context.parent is None
        [description] = container.store_descriptions
        assert description.type == "SQLite" and description.path == str(data_home / "objectgraph" / "Books.sqlite")
        assert description.migrate_automatically and description.infer_mapping_automatically
        assert not description.add_asynchronously and not description.read_only and not description.history_tracking
        assert description.configuration is None and description.timeout is None and description.options == {}
    with pytest.raises(og.UsageError):
        og.PersistentContainer("a/b", build_books_model())


def test_load_stores_calls_the_handler_per_description_and_never_raises(tmp_path: Path, data_home: Path) -> None:
    seen: List[Tuple[str, Optional[int]]] = []
    with og.PersistentContainer("Books", build_books_model()) as container:
        container.store_descriptions = [og.PersistentStoreDescription(tmp_path / "books.xml", type="XML"),
                                        og.PersistentStoreDescription(tmp_path / "x.nope", type="Nope")]
        container.load_stores(lambda d, error: seen.append((d.type, error and error.code)))
        assert seen == [("XML", None), ("Nope", og.ErrorCode.STORE_INVALID_TYPE)]
        assert [s.type for s in container.coordinator.stores] == ["XML"]
        # A store in the default directory: the folder is made when it is first added.
        assert not (data_home / "objectgraph").exists()
        container.store_descriptions = [og.PersistentStoreDescription(data_home / "objectgraph" / "other.sqlite")]
        container.load_stores(lambda d, error: seen.append((d.type, error)))
        assert seen[-1] == ("SQLite", None) and len(container.coordinator.stores) == 2
        container.store_descriptions = [og.PersistentStoreDescription(type="InMemory")]
        container.load_stores(lambda d, error: seen.append((d.type, error)))
        assert seen[-1] == ("InMemory", None)
        assert [s.type for s in container.coordinator.stores] == ["XML", "SQLite", "InMemory"]
        # In-memory stores have no path: each is listed all the same.
        container.store_descriptions = [og.PersistentStoreDescription(type="InMemory")]
        container.load_stores(lambda d, error: seen.append((d.type, error)))
        assert [s.type for s in container.coordinator.stores] == ["XML", "SQLite", "InMemory", "InMemory"]
        assert len({s.uuid for s in container.coordinator.stores}) == 4
        # The container's coordinator takes remote-change observers as any other does.
        with container.coordinator.observe("remote_change", lambda notification: None):
            pass


def test_asynchronous_loading_runs_the_handler_on_a_library_thread(tmp_path: Path, data_home: Path) -> None:
    done = threading.Event()
    seen: List[Any] = []
    with og.PersistentContainer("Later", build_books_model()) as container:
        description = og.PersistentStoreDescription(str(tmp_path / "later.sqlite"))
        description.add_asynchronously = True
        container.store_descriptions = [description]

        def handler(d: og.PersistentStoreDescription, error: Optional[og.Error]) -> None:
            seen.append((d, error, threading.get_ident()))
            done.set()

        container.load_stores(handler)
        assert done.wait(10)
        assert seen[0][0] is description and seen[0][1] is None and seen[0][2] != threading.get_ident()
        assert len(container.coordinator.stores) == 1


def test_background_contexts_and_tasks(tmp_path: Path, data_home: Path) -> None:
    done = threading.Event()
    with og.PersistentContainer("Books", build_books_model()) as container:
        container.store_descriptions = [og.PersistentStoreDescription(tmp_path / "books.sqlite")]
        container.load_stores(lambda d, error: None)
        background = container.new_background_context()
        assert background.concurrency == "private"
        background.close()

        def task(ctx: og.Context) -> None:
            ctx.insert("Author", name="Ann")
            ctx.save()
            done.set()

        container.perform_background_task(task)
        assert done.wait(10)
        assert container.view_context.perform_and_wait(lambda: container.view_context.count("Author")) == 1
    gc.collect()


def test_descriptions_migrate_automatically_by_default(tmp_path: Path, data_home: Path) -> None:
    path = tmp_path / "books.sqlite"
    with og.Coordinator(build_books_model()) as coordinator:
        coordinator.add_store("SQLite", str(path))
        with og.Context(coordinator) as ctx:
            ctx.insert("Book", title="Mort")
            ctx.save()
    gc.collect()
    changed = build_books_model()
    changed["Book"].add_attribute("isbn", "string")
    errors: List[Optional[og.Error]] = []
    with og.PersistentContainer("Books", changed) as container:
        container.store_descriptions = [og.PersistentStoreDescription(path)]
        container.load_stores(lambda d, error: errors.append(error))
        assert errors == [None]
        assert container.view_context.perform_and_wait(lambda: [b.title for b in container.view_context.fetch("Book")]) == ["Mort"]
    # Without the option (add_store's default), the same kind of store is refused.
    older = tmp_path / "older.sqlite"
    with og.Coordinator(build_books_model()) as coordinator:
        coordinator.add_store("SQLite", str(older))
    gc.collect()
    with og.PersistentContainer("Books", changed) as container:
        description = og.PersistentStoreDescription(older)
        description.migrate_automatically = False
        container.store_descriptions = [description]
        container.load_stores(lambda d, error: errors.append(error))
        assert isinstance(errors[-1], og.IncompatibleStoreError) and errors[-1].code == 134100


def test_description_attributes_are_the_add_store_keywords(tmp_path: Path) -> None:
    d = og.PersistentStoreDescription(tmp_path / "a.sqlite")
    d.read_only, d.timeout, d.history_tracking, d.configuration = True, 2.5, True, "Audit"
    d.options["NSSQLitePragmasOption"] = {"journal_mode": "DELETE"}
    assert (d.read_only, d.timeout, d.history_tracking, d.configuration) == (True, 2.5, True, "Audit")
    assert dict(d.options) == {"NSSQLitePragmasOption": {"journal_mode": "DELETE"}}
    d.options = {"Custom": 1}
    assert dict(d.options) == {"Custom": 1} and d.read_only
    d.type, d.path, d.configuration = "Binary", tmp_path / "b.binary", None
    assert (d.type, d.path, d.configuration) == ("Binary", str(tmp_path / "b.binary"), None)
    with pytest.raises(og.UsageError):
        d.type = ""
    d.close()


def test_a_handler_exception_reaches_the_caller(tmp_path: Path, data_home: Path) -> None:
    with og.PersistentContainer("Books", build_books_model()) as container:
        container.store_descriptions = [og.PersistentStoreDescription(tmp_path / "books.sqlite")]

        def handler(d: og.PersistentStoreDescription, error: Optional[og.Error]) -> None:
            raise KeyError("from the handler")

        with pytest.raises(KeyError):
            container.load_stores(handler)
        assert len(container.coordinator.stores) == 1
