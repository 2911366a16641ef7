"""Transformable attributes hold Python values: plist values as Apple's secure
keyed archive, registered classes, and named transformers written in Python."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import sqlite3
import uuid

import pytest

import objectgraph as og

UTC = dt.timezone.utc


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Badge:
    def __init__(self, label: str) -> None:
        self.label = label

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Badge) and other.label == self.label


def notes_model(transformer=None, default=None) -> og.Model:
    model = og.Model()
    note = model.add_entity("Note")
    note.add_attribute("title", "string")
    extra = note.add_attribute("extra", "transformable")
    if transformer is not None:
        extra.value_transformer_name = transformer
    if default is not None:
        extra.default = default
    return model


def open_context(path, transformer=None, default=None) -> og.Context:
    coordinator = og.Coordinator(notes_model(transformer, default))
    coordinator.add_store("SQLite", str(path))
    return og.Context(coordinator)


SAMPLE = {
    "tags": ["a", "b"],
    "count": 3,
    "ratio": 0.25,
    "on": True,
    "when": dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC),
    "id": uuid.UUID("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
    "raw": b"\x00\xff",
    "nothing": None,
}


def test_plist_values_round_trip_across_a_reopen(tmp_path) -> None:
    path = tmp_path / "notes.sqlite"
    ctx = open_context(path)
    ctx.insert("Note", title="n", extra=SAMPLE)
    ctx.save()
    ctx.close()
    with sqlite3.connect(path) as db:
        (blob,) = db.execute("SELECT ZEXTRA FROM ZNOTE").fetchone()
    assert blob.startswith(b"bplist00") and b"NSKeyedArchiver" in blob
    ctx = open_context(path)
    (note,) = ctx.fetch("Note")
    assert note.extra == SAMPLE
    # Setting an equal value is no change.
    note.extra = dict(SAMPLE)
    assert not note.is_updated and not ctx.has_changes
    note.extra = [1, 2]
    assert note.is_updated


def test_registered_classes_and_refusals(tmp_path) -> None:
    path = tmp_path / "notes.sqlite"
    ctx = open_context(path)
    note = ctx.insert("Note")
    with pytest.raises(og.TypeMismatchError, match="og.register_value_transformer") as caught:
        note.extra = Point(1.0, 2.0)
    assert caught.value.code == og.TYPE_MISMATCH
    og.register_archivable_class(Point)
    og.register_archivable_class(Badge, name="TestBadge")
    try:
        note.extra = {"at": Point(1.0, 2.0), "badges": [Badge("gold")]}
        ctx.save()
        ctx.close()
        ctx = open_context(path)
        (read,) = ctx.fetch("Note")
        assert read.extra == {"at": Point(1.0, 2.0), "badges": [Badge("gold")]}
        ctx.close()
    finally:
        og.unregister_archivable_class(Badge)
    # Withdrawn, the class is refused on read; nothing is built.
    ctx = open_context(path)
    (unread,) = ctx.fetch("Note")
    with pytest.raises(og.TypeMismatchError):
        _ = unread.extra
    og.unregister_archivable_class(Point)
    with pytest.raises(og.UsageError):
        og.unregister_archivable_class(Point)


def test_a_python_transformer_stores_any_value(tmp_path) -> None:
    path = tmp_path / "notes.sqlite"
    calls = []

    def forward(value):
        calls.append("forward")
        return json.dumps(sorted(value)).encode()

    def reverse(data):
        calls.append("reverse")
        return frozenset(json.loads(data))

    og.register_value_transformer("TestJSONSet", forward, reverse)
    try:
        with pytest.raises(og.UsageError) as caught:
            og.register_value_transformer("TestJSONSet", forward, reverse)
        assert caught.value.code == og.INVALID_ARGUMENT
        ctx = open_context(path, "TestJSONSet")
        ctx.insert("Note", extra=frozenset({"b", "a"}))
        ctx.save()
        assert calls == ["forward"]
        ctx.close()
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT ZEXTRA FROM ZNOTE").fetchone() == (b'["a", "b"]',)
        ctx = open_context(path, "TestJSONSet")
        (note,) = ctx.fetch("Note")
        assert note.extra == frozenset({"a", "b"})
        ctx.close()
    finally:
        og.unregister_value_transformer("TestJSONSet")
    with pytest.raises(og.UsageError):
        og.unregister_value_transformer("TestJSONSet")


def test_an_exception_in_a_transformer_reaches_the_caller(tmp_path) -> None:
    class Refused(Exception):
        pass

    def forward(value):
        raise Refused("no")

    og.register_value_transformer("TestRefusing", forward, lambda data: data)
    try:
        ctx = open_context(tmp_path / "notes.sqlite", "TestRefusing")
        ctx.insert("Note", extra="x")
        with pytest.raises(Refused):
            ctx.save()
        assert ctx.has_changes
    finally:
        og.unregister_value_transformer("TestRefusing")


def test_an_unregistered_transformer_fails_the_save(tmp_path) -> None:
    path = tmp_path / "notes.sqlite"
    ctx = open_context(path, "NoSuchTransformer")
    ctx.insert("Note", title="kept back", extra=[1])
    with pytest.raises(og.Error) as caught:
        ctx.save()
    assert caught.value.code == og.CORE_DATA
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM ZNOTE").fetchone() == (0,)


def test_a_default_value(tmp_path) -> None:
    ctx = open_context(tmp_path / "notes.sqlite", default={"level": 2, "names": ["x"]})
    note = ctx.insert("Note")
    assert note.extra == {"level": 2, "names": ["x"]}
    model = notes_model(default=[1, "two"])
    assert model["Note"].attributes["extra"].default == [1, "two"]


def test_the_guide_examples_run(tmp_path, monkeypatch) -> None:
    """The blocks of docs/python-api.md's "Transformable values" run and print what they say."""
    import contextlib
    import io
    import re
    import sys
    import types
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "python-api.md").read_text(encoding="utf-8")
    start = text.index("### Transformable values")
    section = text[start:text.index("\n## ", start)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 3
    monkeypatch.chdir(tmp_path)
    # A dataclass looks its module up in sys.modules.
    module = types.ModuleType("doc_example")
    monkeypatch.setitem(sys.modules, "doc_example", module)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("\n".join(blocks), "python-api.md", "exec"), module.__dict__)
    assert out.getvalue().splitlines() == ["['a', 'b']", "Point(x=1.0, y=2.0)", "['a', 'b']"]
