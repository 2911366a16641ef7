"""Every Python block of README.md and docs/*.md runs: each file's blocks in
order, as one program, in a new folder holding the example model
(examples/Books.json). The README's example prints what it says."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import sys
import types
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from conftest import REPO
from objectgraph import objects

DOCS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def python_blocks(path: Path) -> List[Tuple[int, str]]:
    """(line, code) of each ```python block."""
    text = path.read_text(encoding="utf-8")
    return [(text[:m.start()].count("\n") + 2, m.group(1)) for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def run_blocks(path: Path, folder: Path) -> Tuple[List[str], Dict[str, object]]:
    shutil.copy(REPO / "examples" / "Books.json", folder / "Books.json")
    # A module in sys.modules, as a script's would be: a dataclass looks its module up there.
    module = types.ModuleType("doc_example")
    namespace: Dict[str, object] = module.__dict__
    out = io.StringIO()
    saved = sys.modules.get("doc_example")
    sys.modules["doc_example"] = module
    # Classes a doc declares for entities (og.TypedObject) are forgotten after it.
    declared = dict(objects._declared)
    try:
        with contextlib.redirect_stdout(out):
            for line, code in python_blocks(path):
                # Padding keeps the file's line numbers in tracebacks.
                exec(compile("\n" * (line - 1) + code, str(path), "exec"), namespace)
    finally:
        objects._declared.clear()
        objects._declared.update(declared)
        if saved is None:
            del sys.modules["doc_example"]
        else:
            sys.modules["doc_example"] = saved
    return out.getvalue().splitlines(), namespace


@pytest.mark.parametrize("path", [p for p in DOCS if python_blocks(p)], ids=lambda p: p.name)
def test_python_blocks_run(path: Path, tmp_path, monkeypatch) -> None:
    # The PostgreSQL page's examples run against the test command's server.
    if "OBJECTGRAPH_TEST_POSTGRES_URL" in path.read_text(encoding="utf-8") and not os.environ.get("OBJECTGRAPH_TEST_POSTGRES_URL"):
        pytest.skip("no PostgreSQL test server (OBJECTGRAPH_TEST_POSTGRES_URL is unset)")
    monkeypatch.chdir(tmp_path)
    run_blocks(path, tmp_path)


def test_readme_example_prints_its_result(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    printed, _ = run_blocks(REPO / "README.md", tmp_path)
    assert printed[:2] == ["Small Gods", "Strata"]
    assert re.fullmatch(r"<Book x-coredata://[0-9A-F-]+/Book/p3 title='Mort \(1987\)' pages=243 year=None>",
                        printed[2])


def test_every_doc_with_code_is_covered() -> None:
    """The C and Swift blocks have their own runners (test_docs_c.py, test_docs_swift.py)."""
    langs = set()
    for path in DOCS:
        langs |= set(re.findall(r"^```(\w+)\n", path.read_text(encoding="utf-8"), re.M))
    assert langs <= {"python", "c", "swift", "sh", "sql", "json", "cmake"}, langs


def test_readme_swiftpm_lines_name_this_package() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    manifest = (REPO / "Package.swift").read_text(encoding="utf-8")
    assert '.product(name: "ObjectGraph", package: "ObjectGraph")' in readme
    assert 'name: "ObjectGraph"' in manifest and '.library(name: "ObjectGraph", targets: ["ObjectGraph"])' in manifest
