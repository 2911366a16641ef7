"""The store tool changes no byte of a store it reads (objectgraph.tool._files,
_store): info, entities, dump, schema, check and explain, and the Python API's
read_only option they open stores with, leave every file in the store's folder
as it was and add none. Each store kind is tried: a copy whose -wal holds the
commits (copied with its -shm while the store was open), the same without its
-shm, a cleanly closed WAL store, a store whose rollback journal holds a save
that did not finish, a Binary store, an XML store, and an atomic store type registered from
Python. What the commands print includes the commits the -wal holds. Errors on
read-only media name the real cause."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import objectgraph as og
from objectgraph.tool import main
from objectgraph.tool._errors import ToolError
from objectgraph.tool._files import reason_to_copy, require_writable_folder
from conftest import BINDING, build_books_model

TITLES = ["A Wizard of Earthsea", "Lathe", "The Dispossessed"]
NOTEBOOK = "ToolNotebook"  # an atomic store type written in Python


def snapshot(folder: Path) -> Dict[str, str]:
    """Every file under ``folder`` (relative path -> SHA-256 of its bytes)."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def run(*argv: str) -> Tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def insert_books(ctx: og.Context) -> None:
    author = ctx.insert("Author", name="Ursula K. Le Guin")
    for title, pages in (("The Dispossessed", 387), ("A Wizard of Earthsea", 183), ("Lathe", 184)):
        ctx.insert("Book", title=title, pages=pages, author=author)
    ctx.save()


@dataclass(frozen=True)
class Case:
    """A store to read: its file, the model file, and whether it keeps its model."""

    path: Path
    model: Path
    keeps_model: bool

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def sqlite(self) -> bool:
        return self.path.suffix == ".sqlite"


def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "Books.json"
    build_books_model().save(str(path))
    return path


def main_file_alone(path: Path, tmp_path: Path, sql: str) -> List[Tuple[object, ...]]:
    """What ``sql`` finds in the store's main file read alone, without its -wal
    or -journal: what differs from the commands' results came from those."""
    alone = tmp_path / "alone" / path.name
    alone.parent.mkdir(exist_ok=True)
    shutil.copyfile(path, alone)
    db = sqlite3.connect(f"file:{alone}?mode=ro&immutable=1", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()
        alone.unlink()


def wal_copy(tmp_path: Path, *, with_shm: bool = True) -> Case:
    """A copy of a store taken while it was open: its commits are in the -wal."""
    model = model_file(tmp_path)
    live = tmp_path / "live" / "books.sqlite"
    live.parent.mkdir()
    copy = tmp_path / "store" / "books.sqlite"
    copy.parent.mkdir()
    coordinator = og.Coordinator(og.Model.load(str(model)))
    coordinator.add_store("SQLite", str(live))
    with og.Context(coordinator) as ctx:
        insert_books(ctx)
        for suffix in ("", "-wal") + (("-shm",) if with_shm else ()):
            shutil.copyfile(str(live) + suffix, str(copy) + suffix)
    coordinator.close()
    assert os.path.getsize(str(copy) + "-wal") > 0
    assert main_file_alone(copy, tmp_path, "SELECT name FROM sqlite_master WHERE name = 'ZBOOK'") == []
    return Case(copy, model, True)


def closed_store(tmp_path: Path, kind: str, name: str) -> Case:
    model = model_file(tmp_path)
    path = tmp_path / "store" / name
    path.parent.mkdir()
    coordinator = og.Coordinator(og.Model.load(str(model)))
    coordinator.add_store(kind, str(path))
    with og.Context(coordinator) as ctx:
        insert_books(ctx)
    coordinator.close()
    return Case(path, model, kind == "SQLite")


def interrupted_save(tmp_path: Path) -> Case:
    """A store in rollback-journal mode copied with its -journal while a save was
    under way: the main file holds part of that save, the journal what it replaced."""
    model = model_file(tmp_path)
    live = tmp_path / "live" / "books.sqlite"
    live.parent.mkdir()
    coordinator = og.Coordinator(og.Model.load(str(model)))
    coordinator.add_store("SQLite", str(live), pragmas={"journal_mode": "DELETE"})
    with og.Context(coordinator) as ctx:
        insert_books(ctx)
    coordinator.close()
    copy = tmp_path / "store" / "books.sqlite"
    copy.parent.mkdir()
    writer = sqlite3.connect(str(live), isolation_level=None)
    writer.execute("PRAGMA cache_size = 1")  # the save spills into the main file before it commits
    writer.execute("BEGIN")
    writer.execute("UPDATE ZBOOK SET ZTITLE = 'unsaved'")
    writer.execute("CREATE TABLE ZSPILL (ZDATA BLOB)")
    writer.execute("INSERT INTO ZSPILL SELECT randomblob(4000) FROM (WITH RECURSIVE n(i) AS "
                   "(SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i FROM n)")
    for suffix in ("", "-journal"):
        shutil.copyfile(str(live) + suffix, str(copy) + suffix)
    writer.execute("ROLLBACK")
    writer.close()
    assert reason_to_copy(str(copy)) is not None
    assert main_file_alone(copy, tmp_path, "SELECT DISTINCT ZTITLE FROM ZBOOK") == [("unsaved",)]
    return Case(copy, model, True)


@pytest.fixture
def notebook_type() -> Iterator[List[str]]:
    """An atomic store type whose documents are files; yields the paths it saved."""
    saved: List[str] = []

    def load(path: str) -> Optional[bytes]:
        return Path(path).read_bytes() if os.path.exists(path) else None

    def save(path: str, document: bytes) -> None:
        saved.append(path)
        Path(path).write_bytes(document)

    og.register_atomic_store_type(NOTEBOOK, load, save)
    yield saved
    og.unregister_store_type(NOTEBOOK)


STORES: Dict[str, Callable[[Path], Case]] = {
    "wal-copy": wal_copy,
    "wal-copy-without-shm": lambda tmp_path: wal_copy(tmp_path, with_shm=False),
    "closed-wal-store": lambda tmp_path: closed_store(tmp_path, "SQLite", "books.sqlite"),
    "interrupted-save": interrupted_save,
    "binary": lambda tmp_path: closed_store(tmp_path, "Binary", "books.binary"),
    "xml": lambda tmp_path: closed_store(tmp_path, "XML", "books.xml"),
    "python-atomic-type": lambda tmp_path: closed_store(tmp_path, NOTEBOOK, "books.notebook"),
}


@pytest.fixture(params=sorted(STORES))
def case(request: pytest.FixtureRequest, tmp_path: Path, notebook_type: List[str]) -> Iterator[Case]:
    made = STORES[request.param](tmp_path)
    del notebook_type[:]
    yield made
    assert notebook_type == [], "a read saved the atomic store"


def commands(case: Case) -> Dict[str, List[str]]:
    store, model = str(case.path), str(case.model)
    given = [] if case.keeps_model else ["--model", model]
    return {
        "info": ["info", store],
        "entities": ["entities", store, *given],
        "dump": ["dump", store, "Book", "--sort", "title", *given],
        "schema": ["schema", store],
        "check": ["check", model, store],
        "explain": ["explain", store, "Book", "--where", "pages > 180", "--sort", "title", *given],
    }


def assert_shows_the_books(command: str, status: int, text: str, case: Case) -> None:
    if command == "info":
        assert status == 0 and "version hashes (2 entities)" in text
    elif command == "entities":
        assert status == 0 and text.splitlines()[1:] == ["Author  1", "Book    3"]
    elif command == "dump":
        assert status == 0 and [row["title"] for row in json.loads(text)] == TITLES
    elif command == "schema" and case.sqlite:
        assert status == 0 and "CREATE TABLE ZBOOK (" in text and "ZSPILL" not in text
    elif command == "schema":
        assert status == 2
    elif command == "check":
        assert status == 0 and text.startswith("compatible:")
    else:
        assert status == 0 and f"store: {case.path} (" in text


@pytest.mark.parametrize("command", ["info", "entities", "dump", "schema", "check", "explain"])
def test_reading_commands_change_no_file(case: Case, command: str) -> None:
    before = snapshot(case.folder)
    status, text = run(*commands(case)[command])
    assert snapshot(case.folder) == before
    assert_shows_the_books(command, status, text, case)


def read_titles(case: Case) -> List[str]:
    """The books' titles read through the Python API's read_only option."""
    kind = og.Coordinator.metadata_for_store(str(case.path))["NSStoreType"]
    coordinator = og.Coordinator(og.Model.load(str(case.model)))
    try:
        coordinator.add_store(kind, str(case.path), read_only=True)
        with og.Context(coordinator) as ctx:
            assert ctx.count("Author") == 1
            return [book.title for book in ctx.fetch("Book", sort=["title"])]
    finally:
        coordinator.close()


def test_the_python_read_only_option_changes_no_file(case: Case) -> None:
    if reason_to_copy(str(case.path)):
        pytest.skip("SQLite reads this store only by writing beside it (the tool reads a copy): "
                    "test_the_python_read_only_option_never_reads_an_unfinished_save")
    before = snapshot(case.folder)
    assert read_titles(case) == TITLES
    if case.keeps_model:
        assert sorted(e.name for e in og.Model.from_store(str(case.path)).entities) == ["Author", "Book"]
    assert snapshot(case.folder) == before


def test_the_python_read_only_option_never_reads_an_unfinished_save(tmp_path: Path) -> None:
    case = interrupted_save(tmp_path)
    before = snapshot(case.folder)
    try:
        titles = read_titles(case)
    except og.StoreError as error:  # refused, naming what must happen first
        assert "rolled back" in str(error)
    else:
        assert titles == TITLES
    assert snapshot(case.folder) == before


def test_a_closed_wal_store_gets_no_wal_or_shm(tmp_path: Path) -> None:
    case = closed_store(tmp_path, "SQLite", "books.sqlite")
    assert sorted(os.listdir(case.folder)) == ["books.sqlite"]
    for argv in commands(case).values():
        assert run(*argv)[0] == 0
    assert sorted(os.listdir(case.folder)) == ["books.sqlite"]


def test_errors_name_the_store_not_the_copy_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = wal_copy(tmp_path, with_shm=False)
    assert run("dump", str(case.path), "Shelf")[0] == 2
    error = capsys.readouterr().err
    assert "Shelf" in error and "objectgraph-" not in error
    status, text = run("explain", str(case.path), "Book")
    assert status == 0 and f"store: {case.path} (SQLite)" in text


def test_an_unwritable_folder_is_named_with_its_cause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class ReadOnlyFileSystem:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(os, "access", lambda path, mode: False)
    monkeypatch.setattr(os, "statvfs", lambda path: ReadOnlyFileSystem())
    with pytest.raises(ToolError, match="Read-only file system"):
        require_writable_folder(str(tmp_path / "out.sqlite"))


def _can_mount() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True)
    return probe.returncode == 0


READ_ONLY_MEDIA = r"""
import io, json, sys
from objectgraph.tool import main
results = {}
for name, argv in json.loads(sys.argv[1]).items():
    out, err = io.StringIO(), io.StringIO()
    sys.stderr = err
    status = main(argv, out)
    sys.stderr = sys.__stderr__
    results[name] = [status, out.getvalue(), err.getvalue()]
print(json.dumps(results))
"""


@pytest.mark.skipif(not _can_mount(), reason="needs root and mount namespaces (unshare) to make read-only media")
def test_on_read_only_media_reads_work_and_errors_name_the_cause(tmp_path: Path) -> None:
    wal = wal_copy(tmp_path, with_shm=False)  # SQLite could only read it by making a -shm
    clean = tmp_path / "store" / "clean.sqlite"
    coordinator = og.Coordinator(og.Model.load(str(wal.model)))
    coordinator.add_store("SQLite", str(clean))
    coordinator.close()
    media = tmp_path / "media"
    media.mkdir()
    store, empty = media / "books.sqlite", media / "clean.sqlite"
    argv = {
        "entities": ["entities", str(store)],
        "dump": ["dump", str(store), "Book", "--sort", "title"],
        "schema": ["schema", str(empty)],
        "migrate": ["migrate", str(store), "--to-model", str(wal.model)],
        "convert": ["convert", str(store), str(media / "books.binary"), "--to", "Binary"],
    }
    script = (f"mount -t tmpfs tmpfs '{media}' && cp '{wal.path}' '{wal.path}-wal' '{clean}' '{media}/' && "
              f"mount -o remount,ro '{media}' && exec '{sys.executable}' -c \"$0\" \"$1\"")
    env = dict(os.environ, PYTHONPATH=str(BINDING))
    result = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                             READ_ONLY_MEDIA, json.dumps(argv)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    results = json.loads(result.stdout)
    assert results["entities"][:2] == [0, "entity  rows  superentity\nAuthor  1\nBook    3\n"]
    assert [row["title"] for row in json.loads(results["dump"][1])] == TITLES
    assert results["schema"][0] == 0 and "CREATE TABLE ZBOOK (" in results["schema"][1]
    for name in ("migrate", "convert"):
        status, _, error = results[name]
        assert status == 2 and "Read-only file system" in error, error
    assert not os.listdir(media)  # the media was this namespace's only
