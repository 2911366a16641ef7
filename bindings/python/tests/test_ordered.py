"""Ordered to-many relationships edited by index (og.RelatedOrderedSet)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, List

import pytest

import objectgraph as og


def shelf_model() -> og.Model:
    model = og.Model()
    shelf = model.add_entity("Shelf")
    shelf.add_attribute("label", "string")
    book = model.add_entity("Book")
    book.add_attribute("title", "string")
    shelved = shelf.add_relationship("books", book, to_many=True)
    shelved.ordered = True
    book.add_relationship("shelf", shelf, inverse=shelved)
    return model


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[og.Context]:
    with og.Coordinator(shelf_model()) as coordinator:
        coordinator.add_store("SQLite", str(tmp_path / "ordered.sqlite"))
        with og.Context(coordinator) as context:
            yield context


def titles(objects: object) -> List[str]:
    return [o.title for o in objects]  # type: ignore[attr-defined]


def test_reading_by_index(ctx: og.Context) -> None:
    shelf = ctx.insert("Shelf", label="SF")
    books = [ctx.insert("Book", title=t) for t in ("A", "B", "C")]
    shelf.books = books
    view = shelf.books
    assert isinstance(view, og.RelatedOrderedSet)
    assert len(view) == 3 and titles(view) == ["A", "B", "C"]
    assert view[0] is books[0] and view[-1] is books[2]
    assert titles(view[1:]) == ["B", "C"]
    assert view.index(books[1]) == 1 and books[2] in view
    with pytest.raises(IndexError):
        view[3]
    with pytest.raises(og.TypeMismatchError):
        view["x"]  # type: ignore[index]


def test_reordering_by_assignment_is_saved(ctx: og.Context) -> None:
    shelf = ctx.insert("Shelf", label="SF")
    books = [ctx.insert("Book", title=t) for t in ("A", "B", "C")]
    shelf.books = books
    ctx.save()
    shelf.books = list(reversed(books))  # the same members in a new order
    assert shelf.is_updated
    ctx.save()
    with og.Context(ctx.coordinator) as other:
        (again,) = other.fetch("Shelf")
        assert titles(again.books) == ["C", "B", "A"]


def test_editing_by_index(ctx: og.Context) -> None:
    shelf = ctx.insert("Shelf", label="SF")
    a, b, c, d = [ctx.insert("Book", title=t) for t in ("A", "B", "C", "D")]
    view = shelf.books
    view.append(a)
    view.extend([b, c])
    view.insert(0, d)
    assert titles(view) == ["D", "A", "B", "C"] and d.shelf is shelf
    view.insert(3, a)  # already a member: it stays where it is
    assert titles(view) == ["D", "A", "B", "C"]
    del view[0]
    assert titles(view) == ["A", "B", "C"] and d.shelf is None
    view[1] = d  # replaces B
    assert titles(view) == ["A", "D", "C"] and b.shelf is None and d.shelf is shelf
    view.remove(a)
    assert titles(view) == ["D", "C"]
    ctx.save()
    with og.Context(ctx.coordinator) as other:
        (again,) = other.fetch("Shelf")
        assert titles(again.books) == ["D", "C"]
    with pytest.raises(IndexError):
        del view[5]
    with pytest.raises(og.TypeMismatchError):
        view.append("not an object")  # type: ignore[arg-type]
