"""The examples of docs/python-api.md's section on conflicts, merging and
nested contexts run as one program and print what the text says."""

from __future__ import annotations

from conftest import run_doc_section

SECTION = "## Conflicts, merging and nested contexts"


def test_section_examples_run(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    printed, namespace = run_doc_section(SECTION)
    assert printed == ["412", "896", "None", "1 2"]
    for name in ("child", "worker", "other", "ctx"):
        namespace[name].close()
    namespace["coord"].close()
