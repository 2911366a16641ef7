"""`dump` (objectgraph.tool.dump) of values whose value transformer nobody
registered: it writes the stored bytes, in base64 and marked as such, notes it on
standard error, and carries on (it stopped with status 2 after `[`). The stand-in
it reads them through is gone afterwards, and a registered transformer decodes."""

from __future__ import annotations

import base64
import csv
import io
import json
from pathlib import Path
from typing import Tuple

import pytest

import objectgraph as og
from objectgraph.tool import main


def run(*argv: str) -> Tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def reverse_text(value: object) -> bytes:
    return str(value)[::-1].encode()


def unreverse(data: bytes) -> str:
    return data.decode()[::-1]


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    """A store of notes whose `body` went through the "Reversed" transformer."""
    model = og.Model()
    note = model.add_entity("Note")
    note.add_attribute("title", "string")
    note.add_attribute("body", og.AttributeType.TRANSFORMABLE).value_transformer_name = "Reversed"
    path = tmp_path / "notes.sqlite"
    og.register_value_transformer("Reversed", reverse_text, unreverse)
    try:
        coordinator = og.Coordinator(model)
        coordinator.add_store("SQLite", str(path))
        with og.Context(coordinator) as ctx:
            ctx.insert("Note", title="a", body="first")
            ctx.insert("Note", title="b", body=None)
            ctx.insert("Note", title="c", body="third")
            ctx.save()
        coordinator.close()
    finally:
        og.unregister_value_transformer("Reversed")
    return path


def marked(text: str) -> dict:
    return {"base64": base64.b64encode(text[::-1].encode()).decode(), "transformer": "Reversed"}


def test_unregistered_transformer_values_are_written_as_their_bytes(notes: Path, capsys) -> None:
    status, text = run("dump", str(notes), "Note", "--sort", "title")
    assert status == 0
    assert [(row["title"], row["body"]) for row in json.loads(text)] == [
        ("a", marked("first")), ("b", None), ("c", marked("third"))]
    assert "Note.body: no value transformer named 'Reversed' is registered" in capsys.readouterr().err
    status, text = run("dump", str(notes), "Note", "--sort", "title", "--format", "csv")
    assert status == 0
    assert json.loads(next(csv.DictReader(io.StringIO(text)))["body"]) == marked("first")


def test_the_stand_in_is_gone_and_a_registered_transformer_decodes(notes: Path) -> None:
    assert run("dump", str(notes), "Note")[0] == 0
    og.register_value_transformer("Reversed", reverse_text, unreverse)  # free again: no UsageError
    try:
        status, text = run("dump", str(notes), "Note", "--sort", "title")
    finally:
        og.unregister_value_transformer("Reversed")
    assert status == 0 and [row["body"] for row in json.loads(text)] == ["first", None, "third"]
