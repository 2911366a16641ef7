"""The store tool (objectgraph.tool; `objectgraph` and `python -m objectgraph`)
on stores the tests make: every command, and its exit statuses."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

import objectgraph as og
from objectgraph.tool import main
from conftest import BINDING, build_books_model


def run(*argv: str) -> Tuple[int, str]:
    out = io.StringIO()
    status = main(list(argv), out)
    return status, out.getvalue()


@pytest.fixture
def books(tmp_path: Path) -> Tuple[Path, Path]:
    """A books store and its model file."""
    model = build_books_model()
    model_path = tmp_path / "Books.json"
    model.save(str(model_path))
    store = tmp_path / "books.sqlite"
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(store))
    with og.Context(coordinator) as ctx:
        le_guin = ctx.insert("Author", name="Ursula K. Le Guin")
        for title, pages in (("The Dispossessed", 387), ("A Wizard of Earthsea", 183), ("Lathe", 184)):
            ctx.insert("Book", title=title, pages=pages, author=le_guin)
        ctx.save()
    coordinator.close()
    return model_path, store


def test_info_names_type_uuid_and_hashes(books) -> None:
    model_path, store = books
    status, text = run("info", str(store))
    assert status == 0
    uuid = og.Coordinator.metadata_for_store(str(store))["NSStoreUUID"]
    assert "type:    SQLite" in text and f"uuid:    {uuid}" in text
    hashes = og.Model.load(str(model_path)).entity_version_hashes
    assert f"Book    {hashes['Book'].hex()}" in text


def test_entities_count_rows_with_the_stores_own_model(books) -> None:
    _, store = books
    status, text = run("entities", str(store))
    assert status == 0
    assert text.splitlines()[1:] == ["Author  1", "Book    3"]


def test_dump_json_and_csv_with_where_and_sort(books) -> None:
    _, store = books
    status, text = run("dump", str(store), "Book", "--where", "pages < %d" % 300, "--sort", "title")
    assert status == 0
    rows = json.loads(text)
    assert [r["title"] for r in rows] == ["A Wizard of Earthsea", "Lathe"]
    assert rows[0]["author"].startswith("x-coredata://") and rows[0]["objectID"].endswith("/Book/p2")
    status, text = run("dump", str(store), "Book", "--format", "csv", "--sort=-pages", "--limit", "2")
    assert status == 0
    table = list(csv.DictReader(io.StringIO(text)))
    assert [r["pages"] for r in table] == ["387", "184"]
    status, text = run("dump", str(store), "Author", "--relationships")
    assert len(json.loads(text)[0]["books"]) == 3


def test_check_names_what_differs(books, tmp_path) -> None:
    model_path, store = books
    assert run("check", str(model_path), str(store)) == (0, f"compatible: {model_path} opens {store}\n")
    changed = build_books_model()
    changed["Book"].add_attribute("isbn", "string")
    changed.add_entity("Shelf")
    changed_path = tmp_path / "Books2.json"
    changed.save(str(changed_path))
    status, text = run("check", str(changed_path), str(store))
    assert status == 1
    assert "incompatible" in text
    assert "entity Shelf: in the model, not in the store" in text
    assert "entity Book: version hash differs (+isbn)" in text


def test_schema_of_a_store_and_of_a_model(books) -> None:
    model_path, store = books
    status, text = run("schema", str(store))
    assert status == 0 and "CREATE TABLE ZBOOK (" in text and "CREATE TABLE Z_METADATA" in text
    status, from_model = run("schema", "--model", str(model_path))
    assert status == 0
    tables = lambda sql: sorted(s for s in sql.split(";\n") if s.startswith("CREATE TABLE"))
    assert tables(from_model) == tables(text)


def test_explain_shows_sql_and_memory_filtering(books) -> None:
    _, store = books
    status, text = run("explain", str(store), "Book", "--where", "pages > 200", "--sort", "title")
    assert status == 0
    assert "sql: SELECT" in text and "ORDER BY" in text and "filtered in memory: no" in text


def test_convert_and_migrate(books, tmp_path) -> None:
    model_path, store = books
    binary = tmp_path / "books.binary"
    assert run("convert", str(store), str(binary), "--to", "Binary")[0] == 0
    status, text = run("entities", str(binary), "--model", str(model_path))
    assert status == 0 and "Book    3" in text
    assert run("convert", str(store), str(binary), "--to", "Binary")[0] == 2  # exists: --force needed
    xml = tmp_path / "books.xml"
    assert run("convert", str(store), str(xml), "--to", "XML")[0] == 0
    assert xml.read_text(encoding="utf-8").count('<object type="BOOK"') == 3
    back = tmp_path / "back.sqlite"
    assert run("convert", str(xml), str(back), "--model", str(model_path), "--to", "SQLite")[0] == 0
    status, text = run("entities", str(back), "--model", str(model_path))
    assert status == 0 and "Book    3" in text

    changed = build_books_model()
    changed["Book"].add_attribute("isbn", "string")
    changed_path = tmp_path / "Books2.json"
    changed.save(str(changed_path))
    migrated = tmp_path / "migrated.sqlite"
    status, _ = run("migrate", str(store), "--to-model", str(changed_path), "--output", str(migrated))
    assert status == 0
    assert run("check", str(changed_path), str(migrated))[0] == 0
    assert run("check", str(model_path), str(store))[0] == 0  # the source is untouched
    status, _ = run("migrate", str(store), "--to-model", str(changed_path))  # in place
    assert status == 0 and run("check", str(changed_path), str(store))[0] == 0


def test_codegen_types_each_entity(books, tmp_path) -> None:
    model_path, _ = books
    out = tmp_path / "books_model.py"
    assert run("codegen", str(model_path), "-o", str(out))[0] == 0
    text = out.read_text()
    assert 'class Book(og.TypedObject, entity="Book"):' in text
    assert "    title: str\n" in text and "    pages: Optional[int]\n" in text
    assert "    author: Optional[Author]\n" in text and "    books: og.ToMany[Book]\n" in text


def test_errors_are_one_line_and_status_2(tmp_path, capsys) -> None:
    assert run("info", str(tmp_path / "missing.sqlite"))[0] == 2
    assert "missing.sqlite" in capsys.readouterr().err
    bare = tmp_path / "bare.binary"
    coordinator = og.Coordinator(build_books_model())
    coordinator.add_store("Binary", str(bare))
    with og.Context(coordinator) as ctx:
        ctx.insert("Author", name="Anonymous")
        ctx.save()
    coordinator.close()
    assert run("entities", str(bare))[0] == 2
    assert "--model" in capsys.readouterr().err


def test_python_dash_m_runs_the_tool(books) -> None:
    _, store = books
    env = dict(os.environ, PYTHONPATH=str(BINDING))
    result = subprocess.run([sys.executable, "-m", "objectgraph", "entities", str(store)],
                            capture_output=True, text=True, env=env, check=True)
    assert "Book    3" in result.stdout


def test_progress_shows_on_a_terminal_only() -> None:
    from objectgraph.tool._progress import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = Terminal()
    progress = Progress("dump Book", 3, shown)
    for done in (1, 2, 3):
        progress.update(done)
    progress.finish()
    assert "dump Book: 3/3 (100%)" in shown.getvalue() and shown.getvalue().endswith("\r\x1b[K")
    piped = io.StringIO()
    quiet = Progress("dump Book", 3, piped)
    quiet.update(3)
    quiet.fraction(1.0)
    quiet.finish()
    assert piped.getvalue() == ""
