"""SQL logging through the logger objectgraph.sql, and the level's bounds."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import objectgraph as og


@pytest.fixture
def sql_records(caplog):
    caplog.set_level(logging.DEBUG, logger="objectgraph.sql")
    yield caplog
    og.set_sql_debug(0)


def test_levels_reach_the_logger(open_stack, books_model, sql_records) -> None:
    stack = open_stack(books_model)
    stack.context.insert("Book", title="Dune", pages=400)
    stack.context.insert("Book", title="Emma", pages=100)
    stack.context.save()
    og.set_sql_debug(1)
    assert og.sql_debug_level() == 1
    sql_records.clear()
    fresh = og.Context(stack.coordinator)
    assert len(fresh.fetch("Book", "pages > %@", 150)) == 1
    lines = [r.getMessage() for r in sql_records.records if r.name == "objectgraph.sql"]
    assert any(line.startswith("ObjectGraph: sql: SELECT") and "?" in line for line in lines)
    og.set_sql_debug(2)
    sql_records.clear()
    og.Context(stack.coordinator).fetch("Book", "pages > %@", 150)
    lines = [r.getMessage() for r in sql_records.records]
    assert any("150" in line for line in lines if "ZBOOK" in line)
    og.set_sql_debug(3)
    sql_records.clear()
    og.Context(stack.coordinator).fetch("Book", "pages > %@", 150)
    lines = [r.getMessage() for r in sql_records.records]
    assert any("sql execution time" in line and "rows: 1" in line for line in lines)
    og.set_sql_debug(0)
    sql_records.clear()
    og.Context(stack.coordinator).fetch("Book")
    assert not sql_records.records


SUMMARY = re.compile(r"^ObjectGraph: annotation: total (fetch|save) execution time: \d+\.\d{4}s for (.*)$")


def test_each_fetch_and_save_logs_one_info_line(open_stack, books_model, caplog) -> None:
    """At level 1 with the logger at INFO: one line per fetch and per save (time, rows,
    objects), and no statements (they are DEBUG records)."""
    stack = open_stack(books_model)
    caplog.set_level(logging.INFO, logger="objectgraph.sql")
    try:
        og.set_sql_debug(1)
        ctx = stack.context
        ctx.insert("Book", title="Dune", pages=400)
        ctx.insert("Book", title="Emma", pages=100)
        ctx.save()
        assert len(og.Context(stack.coordinator).fetch("Book", "pages > %@", 150)) == 1
        ctx.insert("Book", title="Ubik", pages=200)  # unsaved: an object without a row
        assert len(ctx.fetch("Book", "pages > %@", 150)) == 2
        assert len(ctx.fetch_ids("Author")) == 0 and ctx.count("Book") == 3  # counting logs nothing
        records = [r for r in caplog.records if r.name == "objectgraph.sql"]
        assert {r.levelno for r in records} == {logging.INFO}
        found = [SUMMARY.match(r.getMessage()) for r in records]
        assert all(found), [r.getMessage() for r in records]
        assert [(m.group(1), m.group(2)) for m in found if m] == [
            ("save", "2 rows, 2 objects (2 inserted, 0 updated, 0 deleted)"),
            ("fetch", "1 row, 1 object (Book)"),
            ("fetch", "1 row, 2 objects (Book)"),
            ("fetch", "0 rows, 0 object IDs (Author)"),
        ]
    finally:
        og.set_sql_debug(0)


def test_long_blobs_are_abbreviated(open_stack, sql_records) -> None:
    model = og.Model()
    model.add_entity("Photo").add_attribute("image", "binary")
    stack = open_stack(model)
    og.set_sql_debug(2)
    sql_records.clear()
    stack.context.insert("Photo", image=bytes(range(256)) * 4)
    stack.context.insert("Photo", image=b"\x07" * 64)
    stack.context.save()
    lines = [r.getMessage() for r in sql_records.records if "INSERT INTO ZPHOTO" in r.getMessage()]
    assert any("x'000102030405060708090a0b0c0d0e0f\u2026' (1024 bytes)" in line for line in lines), lines
    assert any("x'" + "07" * 64 + "'" in line for line in lines), "64 bytes are shown whole"
    assert not any("1011121314" in line for line in lines)


def test_bad_levels() -> None:
    with pytest.raises(og.UsageError):
        og.set_sql_debug(4)
    with pytest.raises(og.TypeMismatchError):
        og.set_sql_debug("2")  # type: ignore[arg-type]


def test_environment_variable_prints_to_stderr(tmp_path: Path) -> None:
    script = (
        "import objectgraph as og\n"
        "from conftest import build_books_model\n"
        "c = og.Coordinator(build_books_model())\n"
        f"c.add_store('SQLite', {str(tmp_path / 'env.sqlite')!r})\n"
        "ctx = og.Context(c)\n"
        "ctx.insert('Book', title='Dune')\n"
        "ctx.save()\n"
        "print(og.sql_debug_level())\n"
    )
    env = dict(os.environ, OBJECTGRAPH_SQL_DEBUG="1")
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    assert "ObjectGraph: sql: INSERT INTO ZBOOK" in done.stderr


def test_explain(open_stack, books_model) -> None:
    stack = open_stack(books_model)
    ctx = stack.context
    ctx.insert("Book", title="Dune", pages=400)
    ctx.save()
    text = ctx.explain("Book", "pages > %@", 150, sort=["title"])
    lines = text.splitlines()
    assert lines[0].startswith("store: ") and lines[0].endswith("(SQLite)")
    assert any(line.startswith("sql: SELECT") and "ZBOOK" in line for line in lines)
    assert "bindings: 150" in lines
    assert any(line.startswith("plan: ") for line in lines)
    assert "filtered in memory: no" in lines
    assert "pending changes merged in memory: no" in lines
    ctx.insert("Book", title="Emma")
    assert "pending changes merged in memory: yes" in ctx.explain("Book").splitlines()
    with pytest.raises(og.UnknownEntityError):
        ctx.explain("Nope")
