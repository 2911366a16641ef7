"""The examples of docs/python-api.md's section on migration run as one program
and print what the text says."""

from __future__ import annotations

import contextlib
import io
import re

from conftest import REPO

SECTION = "## Migration"


def section_code() -> str:
    text = (REPO / "docs" / "python-api.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    blocks = re.findall(r"```python\n(.*?)```", text[start:end if end >= 0 else None], re.S)
    assert len(blocks) >= 5
    return "\n".join(blocks)


def test_section_examples_run(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    namespace: dict = {"__name__": "doc_example"}
    with contextlib.redirect_stdout(out):
        exec(compile(section_code(), "python-api.md", "exec"), namespace)
    assert out.getvalue().splitlines() == [
        "[('Dune', 412), ('Mort', 243)]",
        "[('IEM_Transform_Book', 'transform'), ('IEM_Add_Shelf', 'add')]",
        "{'title': 'FUNCTION($source, \"valueForKey:\", \"title\")', "
        "'pageCount': 'FUNCTION($source, \"valueForKey:\", \"pages\")', 'year': None}",
        "1.0 [('DUNE', 412), ('MORT', 243)]",
        "134120 False",
    ]
