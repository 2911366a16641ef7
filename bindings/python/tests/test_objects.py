"""How managed objects look from Python: classes per entity, names that
collide with methods, inheritance, and identity across garbage collection."""

from __future__ import annotations

import gc

import pytest

import objectgraph as og


def clash_model() -> og.Model:
    model = og.Model()
    item = model.add_entity("Item")
    item.abstract = True
    item.add_attribute("label", "string")
    item.add_attribute("object_id", "string")  # hidden by ManagedObject.object_id
    item.add_attribute("context", "integer32")  # hidden by ManagedObject.context
    book = model.add_entity("Book")
    book.superentity = item
    book.add_attribute("pages", "integer32")
    magazine = model.add_entity("Magazine")
    magazine.superentity = item
    magazine.add_attribute("issue", "integer16")
    return model


def test_each_entity_has_its_own_class(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="T")
    author = ctx.insert("Author")
    assert type(book).__name__ == "Book" and type(author).__name__ == "Author"
    assert isinstance(book, og.ManagedObject) and type(book) is type(ctx.insert("Book"))
    assert "title" in dir(book) and "books" in dir(author)
    assert author.name == "Anonymous"  # the default value
    with pytest.raises(AttributeError):
        book.colour = "red"  # type: ignore[attr-defined]  # no new Python attributes
    assert getattr(type(book), "pages").__doc__ == "The integer32 attribute 'pages'."


def test_names_hidden_by_methods_are_items(tmp_path, open_stack) -> None:
    ctx = open_stack(clash_model(), tmp_path / "clash.sqlite").context
    book = ctx.insert("Book", label="L", object_id="an attribute", context=7, pages=3)
    assert book["object_id"] == "an attribute" and book["context"] == 7
    assert book.object_id.startswith("x-coredata:///Book/t")
    assert book.context is ctx
    book["context"] = 8
    assert book["context"] == 8
    with pytest.raises(AttributeError):
        book.object_id = "x"  # the read-only member, not the attribute
    assert book.to_dict()["object_id"] == "an attribute"


def test_subentities_share_the_parents_slots(tmp_path, open_stack) -> None:
    path = tmp_path / "items.sqlite"
    stack = open_stack(clash_model(), path)
    ctx = stack.context
    ctx.insert("Book", label="b", pages=100)
    ctx.insert("Magazine", label="m", issue=12)
    ctx.save()
    stack.close()

    ctx = open_stack(clash_model(), path).context
    items = ctx.fetch("Item", sort="label")
    assert [type(i).__name__ for i in items] == ["Book", "Magazine"]
    assert items[0].pages == 100 and items[1].issue == 12
    assert ctx.count("Item") == 2 and ctx.count("Book") == 1
    assert not hasattr(items[0], "issue")


def test_an_abstract_entity_cannot_be_inserted(tmp_path, open_stack) -> None:
    ctx = open_stack(clash_model(), tmp_path / "abstract.sqlite").context
    with pytest.raises(og.UnknownEntityError) as info:  # the header: unknown or abstract
        ctx.insert("Item")
    assert info.value.code == og.UNKNOWN_ENTITY and "Item" in info.value.message


def test_identity_holds_while_referenced_and_comes_back_after_gc(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="Kept")
    ctx.save()
    handle = book._h
    assert ctx.fetch("Book")[0] is book
    del book
    gc.collect()
    again = ctx.fetch("Book")[0]
    # The collected wrapper's handle waits to be given back with others (a batch at a time);
    # handed out again first, it is taken off that list: a new wrapper on the same handle.
    assert again._h == handle and again.title == "Kept"
    assert ctx.fetch("Book")[0] is again
    assert handle not in ctx._released


def test_inserts_whose_wrappers_are_dropped_keep_their_objects_and_give_handles_back(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    # Integer values only: the one-call way of inserting. No wrapper is kept.
    first = [ctx.insert("Book", pages=i, year=2000 + i % 20)._h for i in range(300)]
    for i in range(300, 700):  # more than the binding gives back at once
        ctx.insert("Book", pages=i, year=2000 + i % 20)
    gc.collect()
    assert len(ctx.inserted_objects) == 700
    ctx.save()
    books = ctx.fetch("Book", sort=["pages"])
    assert [(b.pages, b.year) for b in books] == [(i, 2000 + i % 20) for i in range(700)]
    # The first wrappers' handles went back to the library: their objects have new ones.
    assert not set(first) & {b._h for b in books[:300]}


def test_repr_and_to_dict(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="T", pages=5)
    assert repr(book).startswith("<Book x-coredata:///Book/t")
    assert book.to_dict() == {"title": "T", "pages": 5, "year": None, "rating": None}
    assert "Book" in repr(books_model) and repr(books_model["Book"]) == "<objectgraph.Entity Book>"
    assert repr(books_model["Book"]["title"]) == "<objectgraph.Attribute Book.title>"


def test_model_load_errors(tmp_path) -> None:
    with pytest.raises(og.UsageError) as missing:
        og.Model.load(tmp_path / "absent.json")
    assert missing.value.code == og.INVALID_ARGUMENT and "absent.json" in missing.value.message
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    with pytest.raises(og.ModelError) as invalid:
        og.Model.load(broken)
    assert invalid.value.code == og.INVALID_MODEL and "broken.json" in invalid.value.message


def test_keyword_integers_insert_as_one_by_one_would(tmp_path, open_stack) -> None:
    """Several integers are inserted and set in one call (og_context_insert_int64s); what
    that call refuses is refused as setting them one by one would be, and inserts nothing."""
    model = og.Model()
    item = model.add_entity("Item")
    item.add_attribute("small", "integer16")
    item.add_attribute("large", "integer64")
    ctx = open_stack(model).context
    made = ctx.insert("Item", small=3, large=2**63 - 1)
    assert (made.small, made.large) == (3, 2**63 - 1)
    assert (lambda o: (o.small, o.large))(ctx.insert("Item", small=True, large=False)) == (1, 0)
    with pytest.raises(og.ValidationError, match="integer16"):
        ctx.insert("Item", small=100_000, large=1)
    with pytest.raises(og.ValidationError, match="64-bit"):
        ctx.insert("Item", small=1, large=2**64)
    with pytest.raises(og.TypeMismatchError):
        ctx.insert("Item", small=1.5, large=1)
    assert len(ctx.inserted_objects) == 2
    ctx.save()
    assert sorted(o.small for o in ctx.fetch("Item")) == [1, 3]


def test_keyword_integers_from_another_thread_insert_nothing(tmp_path, open_stack) -> None:
    import threading

    model = og.Model()
    item = model.add_entity("Item")
    item.add_attribute("a", "integer64")
    item.add_attribute("b", "integer64")
    ctx = open_stack(model).context
    refused = []

    def intruder() -> None:
        try:
            ctx.insert("Item", a=1, b=2)
        except og.WrongThreadError as error:
            refused.append(error)

    thread = threading.Thread(target=intruder)
    thread.start()
    thread.join()
    assert len(refused) == 1 and not ctx.has_changes
