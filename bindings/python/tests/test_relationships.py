"""Relationships from either side, inverses following, and deletion."""

from __future__ import annotations

import pytest

import objectgraph as og


def test_to_one_side_updates_the_to_many_side(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    pratchett = ctx.insert("Author", name="Terry Pratchett")
    gaiman = ctx.insert("Author", name="Neil Gaiman")
    strata = ctx.insert("Book", title="Strata", author=pratchett)
    assert strata.author is pratchett
    assert strata in pratchett.books and len(pratchett.books) == 1
    assert set(pratchett.books) == {strata}

    strata.author = gaiman  # moving it removes it from the old author
    assert strata not in pratchett.books and strata in gaiman.books
    strata.author = None
    assert strata.author is None and len(gaiman.books) == 0


def test_to_many_side_updates_the_to_one_side(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    author = ctx.insert("Author", name="Ursula K. Le Guin")
    first = ctx.insert("Book", title="A Wizard of Earthsea")
    second = ctx.insert("Book", title="The Dispossessed")
    author.books.add(first)
    author.books |= {second}
    assert first.author is author and second.author is author
    assert author.books == {first, second}

    author.books.remove(first)
    assert first.author is None and author.books == {second}
    author.books.discard(first)  # not a member: nothing happens
    with pytest.raises(KeyError):
        author.books.remove(first)

    author.books = [first]  # assignment replaces the members
    assert author.books == {first} and second.author is None and first.author is author

    other = ctx.insert("Author", name="Other", books=[second])
    assert second.author is other


def test_relationships_survive_a_reopen(tmp_path, books_model, open_stack) -> None:
    path = tmp_path / "rel.sqlite"
    stack = open_stack(books_model, path)
    author = stack.context.insert("Author", name="Iain M. Banks")
    for title in ("Excession", "Use of Weapons"):
        stack.context.insert("Book", title=title, author=author)
    stack.context.save()
    stack.close()

    again = open_stack(og.Model.from_json(books_model.to_json()), path).context
    (author,) = again.fetch("Author")
    assert sorted(b.title for b in author.books) == ["Excession", "Use of Weapons"]
    for book in author.books:
        assert book.author is author


def test_delete_with_nullify_and_cascade(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    author = ctx.insert("Author", name="A")
    kept = ctx.insert("Book", title="Kept", author=author)
    gone = ctx.insert("Book", title="Gone", author=author)
    ctx.save()

    ctx.delete(kept)  # Book.author is nullify: the author forgets the book
    assert kept.is_deleted is True
    assert kept not in author.books and gone in author.books
    ctx.save()
    assert ctx.count("Book") == 1

    ctx.delete(author)  # Author.books is cascade: its books go too
    ctx.save()
    assert ctx.count("Author") == 0 and ctx.count("Book") == 0
    assert ctx.fetch("Book") == []


def test_deleting_an_unsaved_object_forgets_it(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="Draft")
    assert ctx.has_changes is True
    ctx.delete(book)
    assert ctx.has_changes is False
    assert ctx.count("Book") == 0


def test_a_relationship_only_holds_managed_objects(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="T")
    with pytest.raises(og.TypeMismatchError) as info:
        book.author = "Terry"
    assert info.value.code == og.TYPE_MISMATCH
    with pytest.raises(og.TypeMismatchError):
        ctx.insert("Author").books.add("not an object")
