"""Several processes on one store file: children are ``python -c`` processes
running the binding against the same library (OBJECTGRAPH_LIBRARY, PYTHONPATH).

A child calls gate(), which says "ready" and blocks reading its stdin; the
parent closes the stdins once every child is ready, so the children of one
test pass it together; a child prints its result as JSON on its
last line of output and exits 0, or fails with a traceback."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, List

import objectgraph as og

from conftest import BINDING

# The model every child builds (the Books model of conftest, reduced to books).
PRELUDE = textwrap.dedent(
    """
    import json, sys
    import objectgraph as og

    def model():
        m = og.Model()
        book = m.add_entity("Book")
        book.add_attribute("title", "string", optional=False, default="Untitled")
        book.add_attribute("pages", "integer32", default=0)
        return m

    def done(result):
        print(json.dumps(result))

    def gate():
        print("ready", flush=True)
        sys.stdin.read()  # returns when the parent closes it
    """
)


def run_children(bodies: List[str]) -> List[Any]:
    """Starts one child per body at once and returns their results."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(BINDING)] + [p for p in [env.get("PYTHONPATH")] if p])
    children = [
        subprocess.Popen([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for body in bodies
    ]
    for child in children:  # every child at the gate (or dead: then its output tells)
        assert child.stdout is not None
        line = child.stdout.readline()
        while line and line.strip() != "ready":
            line = child.stdout.readline()
    for child in children:  # open the gate
        assert child.stdin is not None
        child.stdin.close()
    results = []
    for child in children:
        assert child.stdout is not None
        out = child.stdout.read()
        child.stdout.close()
        assert child.wait(timeout=120) == 0, out
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def books_model() -> og.Model:
    m = og.Model()
    book = m.add_entity("Book")
    book.add_attribute("title", "string", optional=False, default="Untitled")
    book.add_attribute("pages", "integer32", default=0)
    return m


def titles(type: str, path: Path) -> List[str]:
    with og.Coordinator(books_model()) as coordinator:
        coordinator.add_store(type, str(path))
        with og.Context(coordinator) as ctx:
            found = sorted(b.title for b in ctx.fetch("Book"))
    gc.collect()
    return found


def test_processes_opening_one_new_sqlite_file_at_once_get_one_store(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    body = f"""
        coordinator = og.Coordinator(model())
        gate()
        store = coordinator.add_store("SQLite", {str(path)!r})
        done(store.uuid)
    """
    uuids = run_children([body] * 8)
    assert len(uuids) == 8 and len(set(uuids)) == 1 and len(uuids[0]) == 36


def test_processes_saving_to_one_sqlite_file_without_a_timeout_all_succeed(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    saves = 15

    def body(index: int) -> str:
        return f"""
            coordinator = og.Coordinator(model())
            coordinator.add_store("SQLite", {str(path)!r})  # no timeout option
            ctx = og.Context(coordinator)
            gate()
            for k in range({saves}):
                ctx.insert("Book", title="p{index}-%d" % k)
                ctx.save()  # a failed save (134090) fails the child
            done({saves})
        """

    assert run_children([body(i) for i in range(3)]) == [saves] * 3
    assert titles("SQLite", path) == sorted(f"p{i}-{k}" for i in range(3) for k in range(saves))


def test_processes_saving_to_one_binary_file_lose_no_acknowledged_insert(tmp_path: Path) -> None:
    path = tmp_path / "shared.binary"
    saves = 12

    def body(index: int) -> str:
        return f"""
            def stack():
                coordinator = og.Coordinator(model())
                coordinator.add_store("Binary", {str(path)!r})
                return coordinator, og.Context(coordinator)

            coordinator, ctx = stack()  # both read the file before either saves
            gate()
            conflicts = 0
            for k in range({saves}):
                title = "p{index}-%d" % k
                ctx.insert("Book", title=title)
                while True:
                    try:
                        ctx.save()
                        break
                    except og.StoreError as error:
                        # The only acceptable failure: another process saved since this one read.
                        assert error.code == og.STORE_SAVE_CONFLICTS, error
                        conflicts += 1
                        ctx.close()
                        coordinator.close()
                        coordinator, ctx = stack()  # read the file anew, redo the insert
                        ctx.insert("Book", title=title)
            done(conflicts)
        """

    conflicts = run_children([body(i) for i in range(2)])
    assert all(isinstance(n, int) and n >= 0 for n in conflicts)
    assert sum(conflicts) >= 1, "both read the empty file, so the later first save conflicts"
    assert titles("Binary", path) == sorted(f"p{i}-{k}" for i in range(2) for k in range(saves))


def test_binary_save_over_another_writers_save_raises_store_save_conflicts(tmp_path: Path) -> None:
    path = str(tmp_path / "two.binary")
    assert og.STORE_SAVE_CONFLICTS == og.ErrorCode.STORE_SAVE_CONFLICTS == 134050
    with og.Coordinator(books_model()) as first, og.Coordinator(books_model()) as second:
        first.add_store("Binary", path)
        second.add_store("Binary", path)
        with og.Context(first) as a, og.Context(second) as b:
            b.insert("Book", title="Bob")
            b.save()
            written = Path(path).read_bytes()
            a.insert("Book", title="Ann")
            try:
                a.save()
                raise AssertionError("the save went through")
            except og.StoreError as error:
                assert error.code == og.STORE_SAVE_CONFLICTS and path in str(error)
            assert Path(path).read_bytes() == written and a.has_changes
    gc.collect()
    assert titles("Binary", Path(path)) == ["Bob"]


def test_a_python_store_save_can_report_a_conflict(tmp_path: Path) -> None:
    documents = {}
    refuse = [False]

    def save(path: str, data: bytes) -> None:
        if refuse[0]:
            raise og.StoreError("changed by someone else", og.STORE_SAVE_CONFLICTS)
        documents[path] = data

    og.register_atomic_store_type("Ledger", load=lambda path: documents.get(path), save=save)
    try:
        with og.Coordinator(books_model()) as coordinator:
            coordinator.add_store("Ledger", "ledger")
            with og.Context(coordinator) as ctx:
                ctx.insert("Book", title="kept")
                ctx.save()
                refuse[0] = True
                ctx.insert("Book", title="refused")
                try:
                    ctx.save()
                    raise AssertionError("the save went through")
                except og.StoreError as error:
                    assert error.code == og.STORE_SAVE_CONFLICTS
                assert ctx.has_changes
            with og.Context(coordinator) as fresh:
                assert fresh.count("Book") == 1
        gc.collect()
    finally:
        og.unregister_store_type("Ledger")


def test_temporary_files_of_an_interrupted_binary_save_are_removed_at_open(tmp_path: Path) -> None:
    path = tmp_path / "crashed.binary"
    with og.Coordinator(books_model()) as coordinator:
        coordinator.add_store("Binary", str(path))
        with og.Context(coordinator) as ctx:
            ctx.insert("Book", title="kept")
            ctx.save()
    gc.collect()
    leftover = tmp_path / "crashed.binary.tmp-31337"  # a save killed before its rename
    leftover.write_bytes(b"half a store")
    assert titles("Binary", path) == ["kept"]
    assert not leftover.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crashed.binary"]
