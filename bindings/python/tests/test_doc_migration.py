"""The examples of docs/python-api.md's section on migration run as one program
and print what the text says."""

from __future__ import annotations

from conftest import run_doc_section

SECTION = "## Migration"


def test_section_examples_run(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    printed, namespace = run_doc_section(SECTION)
    assert printed == [
        "[('Dune', 412), ('Mort', 243)]",
        "[('IEM_Transform_Book', 'transform'), ('IEM_Add_Shelf', 'add')]",
        "{'title': 'FUNCTION($source, \"valueForKey:\", \"title\")', "
        "'pageCount': 'FUNCTION($source, \"valueForKey:\", \"pages\")', 'year': None}",
        "1.0 [('DUNE', 412), ('MORT', 243)]",
        "134120 False",
    ]
