"""Shared fixtures: the library, a Books model, and stacks over SQLite files.

The tests use the package from this checkout (not an installed copy) and the
library named by $OBJECTGRAPH_LIBRARY. Without it, the repository's CMake build
is tried; if nothing loads, the run stops with a message instead of skipping.
"""

from __future__ import annotations

import ctypes
import gc
import io
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Tuple

import pytest

HERE = Path(__file__).resolve().parent
BINDING = HERE.parent
REPO = BINDING.parent.parent
sys.path.insert(0, str(BINDING))

def run_doc_section(section: str) -> Tuple[list, dict]:
    """Runs the Python blocks of one section of docs/python-api.md as one program
    (in the current directory); returns the lines it printed and its namespace."""
    import contextlib
    import io
    import re

    text = (REPO / "docs" / "python-api.md").read_text(encoding="utf-8")
    start = text.index(section)
    end = text.find("\n## ", start + len(section))
    blocks = re.findall(r"```python\n(.*?)```", text[start:end if end >= 0 else None], re.S)
    assert len(blocks) >= 5
    out = io.StringIO()
    namespace: dict = {"__name__": "doc_example"}
    with contextlib.redirect_stdout(out):
        exec(compile("\n".join(blocks), "python-api.md", "exec"), namespace)
    return out.getvalue().splitlines(), namespace


if not os.environ.get("OBJECTGRAPH_LIBRARY"):
    built = REPO / "build" / "swiftpm" / "release" / "libobjectgraph.so"
    if built.exists():
        os.environ["OBJECTGRAPH_LIBRARY"] = str(built)

try:
    import objectgraph as og
    from objectgraph import _lib
    from objectgraph.errors import take_error
except ImportError as exc:  # LibraryNotFoundError is an ImportError
    pytest.exit(
        "objectgraph tests need libobjectgraph.so: set OBJECTGRAPH_LIBRARY to its path "
        f"(e.g. {REPO}/build/swiftpm/release/libobjectgraph.so). {exc}",
        returncode=1,
    )

DATA = HERE / "data"

# Stores written by Apple's Core Data, beside the repository; tests of them skip without it.
APPLE_STORES = (REPO / ".." / "shared" / "fixtures" / "apple-stores").resolve()

# Xcode 3 binary models (`elements`) with their decoded form, expected.json, beside the
# repository; tests of them skip without it.
XCODE3_MODELS = (REPO / ".." / "shared" / "fixtures" / "xcode3-models").resolve()


def copy_apple_store(tmp_path: Path, store: str) -> Path:
    """A copy of the Apple store `store` (a path under APPLE_STORES), with its WAL files."""
    source = APPLE_STORES / store
    target = tmp_path / source.name
    shutil.copy(source, target)
    for suffix in ("-wal", "-shm"):
        if Path(str(source) + suffix).exists():
            shutil.copy(str(source) + suffix, str(target) + suffix)
    return target


def build_books_model() -> "og.Model":
    """Author <->> Book, built through the Python API."""
    model = og.Model()
    author = model.add_entity("Author")
    book = model.add_entity("Book")
    author.add_attribute("name", "string", optional=False, default="Anonymous")
    author.add_attribute("born", og.AttributeType.DATE)
    books = author.add_relationship("books", book, to_many=True, delete_rule="cascade")
    book.add_attribute("title", "string", optional=False, default="Untitled")
    book.add_attribute("pages", "integer32", default=0)
    book.add_attribute("year", "integer16")
    book.add_attribute("rating", "double")
    book.add_relationship("author", author, inverse=books)
    return model


@pytest.fixture
def books_model() -> "og.Model":
    return build_books_model()


class Stack:
    """Model + coordinator + one SQLite store + context, closed together."""

    def __init__(self, model: "og.Model", path: Path) -> None:
        self.model = model
        self.coordinator = og.Coordinator(model)
        self.store = self.coordinator.add_store("SQLite", str(path))
        self.context = og.Context(self.coordinator)

    def close(self) -> None:
        self.context.close()
        self.coordinator.close()
        gc.collect()


@pytest.fixture
def open_stack(tmp_path: Path) -> Iterator[Callable[..., Stack]]:
    """Opens stacks on demand (default file: tmp_path/books.sqlite) and closes
    whatever is still open at the end of the test."""
    opened = []

    def opener(model: "og.Model", path: Any = None) -> Stack:
        stack = Stack(model, Path(path) if path else tmp_path / "books.sqlite")
        opened.append(stack)
        return stack

    yield opener
    for stack in opened:
        stack.close()


def low_level_error(function: str, *args: Any) -> Tuple[Any, "og.Error"]:
    """Calls a C function directly, with an error slot as its last argument,
    and returns (result, the converted error)."""
    err = ctypes.c_void_p()
    result = getattr(_lib.lib, function)(*args, ctypes.byref(err))
    assert err.value, f"{function} reported no error (returned {result!r})"
    return result, take_error(err)


def as_printed(error: BaseException) -> str:
    """What the interpreter prints for ``error`` when nothing catches it: from 3.10 its
    message about a missing attribute suggests the closest name itself."""
    printed = io.StringIO()
    kept, sys.stderr = sys.stderr, printed
    try:
        sys.__excepthook__(type(error), error, error.__traceback__)
    finally:
        sys.stderr = kept
    return printed.getvalue()


def assert_suggests(error: BaseException, name: str) -> None:
    """``error`` points the reader to ``name``: in its message (the library's errors, and
    attributes before 3.10) or in what the interpreter prints for it (attributes since)."""
    hint = f"did you mean '{name}'" if sys.version_info < (3, 10) or not isinstance(error, AttributeError) else f"Did you mean: '{name}'?"
    assert hint in str(error) + as_printed(error), (hint, str(error))
