"""Strings cross the C interface with their length: values and predicate
arguments keep embedded NULs (as Core Data and SQLite do); names and paths
holding a NUL are refused before the call; a URI comes back exactly as set."""

from __future__ import annotations

import pytest

import objectgraph as og


def model() -> og.Model:
    m = og.Model()
    book = m.add_entity("Book")
    book.add_attribute("title", "string")
    book.add_attribute("link", "uri")
    return m


@pytest.mark.parametrize("store_type", ["SQLite", "Binary", "InMemory"])
def test_values_keep_embedded_nuls(tmp_path, store_type) -> None:
    path = None if store_type == "InMemory" else tmp_path / "books.store"
    titles = ["a\0b", "a", "a\0c", "\0", "zoë\0"]
    with og.Coordinator(model()) as coordinator:
        coordinator.add_store(store_type, path)
        with og.Context(coordinator) as ctx:
            for t in titles:
                ctx.insert("Book", title=t)
            typed = ctx.insert("Book")
            typed.set_string("title", "x\0y")
            assert typed.get_string("title") == "x\0y"
            assert typed.get_value("title") == "x\0y"
            ctx.save()
        with og.Context(coordinator) as ctx:
            assert sorted(b.title for b in ctx.fetch("Book")) == sorted(titles + ["x\0y"])
            assert [b.title for b in ctx.fetch("Book", "title == %@", "a\0b")] == ["a\0b"]
            assert sorted(b.title for b in ctx.fetch("Book", "title BEGINSWITH %@", "a\0")) == ["a\0b", "a\0c"]
            assert og.Predicate("title == %@", "a\0b").evaluate({"title": "a\0b"})
            assert not og.Predicate("title == %@", "a\0b").evaluate({"title": "a"})


def test_text_of_every_length_reads_back_whole(tmp_path) -> None:
    # Attribute reads copy text into a buffer of 256 bytes; longer text takes another way.
    # Lengths on both sides of that edge, multi-byte characters across it, and nil.
    texts = ["", "é" * 127 + "x", "x" * 255, "x" * 256, "é" * 128, "x" * 10_000, "\0" * 300]
    with og.Coordinator(model()) as coordinator:
        coordinator.add_store("SQLite", tmp_path / "lengths.sqlite")
        with og.Context(coordinator) as ctx:
            books = [ctx.insert("Book", title=t) for t in texts]
            blank = ctx.insert("Book")
            assert [b.title for b in books] == texts and blank.title is None
            ctx.save()
        with og.Context(coordinator) as ctx:
            assert sorted(b.title or "" for b in ctx.fetch("Book")) == sorted(texts + [""])
            for b in ctx.fetch("Book", "title != nil"):
                assert b.title == b.get_string("title")
            assert ctx.fetch("Book", "title == nil")[0].title is None


def test_names_and_paths_with_a_nul_are_refused_before_the_call(tmp_path) -> None:
    with og.Coordinator(model()) as coordinator:
        target = tmp_path / "books.sqlite"
        with pytest.raises(og.UsageError) as info:
            coordinator.add_store("SQLite", str(target) + "\0.backup")
        assert info.value.code == og.ErrorCode.INVALID_ARGUMENT
        assert "NUL" in info.value.message
        assert list(tmp_path.iterdir()) == []  # nothing created at the path cut short
        coordinator.add_store("SQLite", target)
        with og.Context(coordinator) as ctx:
            for call in (lambda: ctx.insert("Book\0Author"), lambda: ctx.fetch("Book", sort="title\0"),
                         lambda: ctx.fetch("Book", "title == 'x'\0 OR TRUEPREDICATE"),
                         lambda: ctx.insert("Book").get_value("title\0x"), lambda: og.Predicate("a == 1\0")):
                with pytest.raises(og.UsageError):
                    call()
            with pytest.raises(og.UsageError):
                ctx.insert(None)  # type: ignore[arg-type]


def test_a_uri_comes_back_exactly_as_set(tmp_path) -> None:
    links = ["https://example.org/a b?q=1 2#f g", "https://example.org/a%20b", "mailto:ann@example.org"]
    for store_type, path in [("SQLite", tmp_path / "a.sqlite"), ("Binary", tmp_path / "a.binary"), ("InMemory", None)]:
        with og.Coordinator(model()) as coordinator:
            coordinator.add_store(store_type, path)
            with og.Context(coordinator) as ctx:
                for link in links:
                    ctx.insert("Book", title=link, link=link)
                ctx.save()
            with og.Context(coordinator) as ctx:
                for book in ctx.fetch("Book"):
                    assert book.link == book.title, store_type
                    assert book.get_string("link") == book.title
            with og.Context(coordinator) as ctx:
                with pytest.raises(og.Error):
                    ctx.insert("Book", link="not a uri")
