"""What makes the binding read like Python: the predicate-first fetch with
keyword-only options, "did you mean" hints, a missing model file that is a
FileNotFoundError, reprs that show values, and load errors that say why."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import objectgraph as og
from conftest import BINDING, assert_suggests, build_books_model


@pytest.fixture
def ctx():
    coordinator = og.Coordinator(build_books_model())
    coordinator.add_store("InMemory")
    context = og.Context(coordinator)
    for title, pages in (("Mort", 243), ("Dune", 412), ("Strata", 287), ("Emma", 474)):
        context.insert("Book", title=title, pages=pages)
    context.save()
    yield context
    context.close()
    coordinator.close()


def test_fetch_takes_the_predicate_first_and_keyword_options(ctx) -> None:
    books = ctx.fetch("Book", "pages > %@", 280, sort=["title"], limit=2)
    assert [b.title for b in books] == ["Dune", "Emma"]
    assert ctx.count("Book", "pages > %@", 280) == 3
    assert ctx.fetch_dicts("Book", "title == %@", "Mort", properties=["pages"]) == [{"pages": 243}]
    assert len(ctx.fetch_ids("Book", og.Predicate("pages < 300"), sort="-pages")) == 2
    assert ctx.fetch_values("Book", "title", "pages < 300", sort="title") == ["Mort", "Strata"]
    assert "filtered in memory: yes" in ctx.explain("Book", "pages > 1", sort="title")  # InMemory: no SQL
    with pytest.raises(TypeError):
        ctx.fetch("Book", limit=2, sorting=["title"])  # type: ignore[call-overload]


def test_unknown_names_suggest_the_closest(ctx) -> None:
    with pytest.raises(og.UnknownEntityError, match="did you mean 'Book'"):
        ctx.insert("Bok")
    with pytest.raises(og.UnknownEntityError, match="did you mean 'Book'"):
        ctx.fetch("book")
    with pytest.raises(og.UnknownEntityError, match="did you mean 'Author'"):
        ctx.coordinator.model["Autor"]
    with pytest.raises(og.UnknownKeyError, match="did you mean 'title'"):
        ctx.insert("Book", titel="Mort")
    with pytest.raises(og.UnknownKeyError, match="did you mean 'pages'"):
        ctx.fetch("Book", "pgaes > 3")
    with pytest.raises(og.UnknownKeyError, match="did you mean 'title'"):
        ctx.fetch("Book", sort="titl")
    book = ctx.fetch("Book")[0]
    with pytest.raises(AttributeError) as raised:
        book.titel  # noqa: B018
    assert_suggests(raised.value, "title")
    if sys.version_info >= (3, 10):
        assert raised.value.name == "titel"
    with pytest.raises(og.UnknownKeyError, match="did you mean 'pages'"):
        book["page"]
    with pytest.raises(og.UnknownKeyError) as info:
        ctx.insert("Book", zzzz=1)
    assert "did you mean" not in str(info.value)


def test_a_missing_model_file_is_a_file_not_found_error(tmp_path) -> None:
    missing = tmp_path / "Books.json"
    with pytest.raises(FileNotFoundError) as info:
        og.Model.load(missing)
    error = info.value
    assert isinstance(error, og.Error) and isinstance(error, og.ModelFileNotFoundError)
    assert error.errno == errno.ENOENT and error.filename == str(missing)
    assert os.strerror(errno.ENOENT) in str(error)
    with pytest.raises(FileNotFoundError):
        og.Model.load_version(tmp_path / "Books.xcdatamodeld")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(og.Error) as info:
        og.Model.load(tmp_path / "bad.json")
    assert not isinstance(info.value, FileNotFoundError)


def test_repr_shows_the_values(ctx) -> None:
    book = ctx.fetch("Book", "title == 'Dune'")[0]
    text = repr(book)
    assert text.startswith("<Book x-coredata://") and "title='Dune'" in text and "pages=412" in text
    book.title = "D" * 100
    assert "..." in repr(book) and len(repr(book)) < 200


def test_library_not_found_error_says_why_a_found_file_did_not_load(tmp_path) -> None:
    package = tmp_path / "objectgraph"
    shutil.copytree(BINDING / "objectgraph", package, ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
    (package / "libobjectgraph.so").write_bytes(b"not a shared library" * 100)
    env = {k: v for k, v in os.environ.items() if k != "OBJECTGRAPH_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path)
    result = subprocess.run([sys.executable, "-c", "import objectgraph"], capture_output=True, text=True, env=env)
    assert result.returncode != 0
    assert "LibraryNotFoundError: libobjectgraph was found but could not be loaded" in result.stderr
    assert str(package / "libobjectgraph.so") in result.stderr and "ELF" in result.stderr
    env["OBJECTGRAPH_LIBRARY"] = str(tmp_path / "nowhere.so")
    result = subprocess.run([sys.executable, "-c", "import objectgraph"], capture_output=True, text=True, env=env)
    assert "the file does not exist" in result.stderr
