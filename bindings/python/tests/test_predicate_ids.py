"""Object IDs and entities as predicate arguments: they match as the objects
would, on every store type and among pending changes; a plain str stays a string."""

from __future__ import annotations

import gc

import pytest

import objectgraph as og


def build_model() -> og.Model:
    """Author <->> Book, with Comic a subentity of Book."""
    model = og.Model()
    author = model.add_entity("Author")
    book = model.add_entity("Book")
    comic = model.add_entity("Comic")
    comic.superentity = book
    author.add_attribute("name", "string")
    book.add_attribute("title", "string")
    books = author.add_relationship("books", book, to_many=True)
    book.add_relationship("author", author, inverse=books)
    return model


@pytest.fixture(params=["SQLite", "InMemory", "Binary"])
def library(request, tmp_path):
    model = build_model()
    coordinator = og.Coordinator(model)
    path = None if request.param == "InMemory" else str(tmp_path / "ids.store")
    coordinator.add_store(request.param, path)
    ctx = og.Context(coordinator)
    pratchett = ctx.insert("Author", name="Pratchett")
    gaiman = ctx.insert("Author", name="Gaiman")
    ctx.insert("Book", title="Mort", author=pratchett)
    ctx.insert("Book", title="Sourcery", author=pratchett)
    ctx.insert("Comic", title="Sandman", author=gaiman)
    ctx.insert("Book", title="Coraline", author=gaiman)
    ctx.save()
    yield model, ctx
    ctx.close()
    coordinator.close()
    gc.collect()


def titles(ctx: og.Context, where: str, *args) -> list:
    return sorted(b.title for b in ctx.fetch("Book", where, *args))


def names(ctx: og.Context, where: str, *args) -> list:
    return sorted(a.name for a in ctx.fetch("Author", where, *args))


def test_object_ids_match_their_objects(library) -> None:
    _, ctx = library
    pratchett = ctx.fetch("Author", "name == 'Pratchett'")[0]
    mort = ctx.fetch("Book", "title == 'Mort'")[0]
    oid = pratchett.object_id
    assert isinstance(oid, og.ObjectID) and isinstance(oid, str)
    assert titles(ctx, "author == %@", oid) == ["Mort", "Sourcery"]
    assert titles(ctx, "author != %@", oid) == ["Coraline", "Sandman"]
    assert titles(ctx, "SELF == %@", mort.object_id) == ["Mort"]
    assert titles(ctx, "SELF IN %@", [mort.object_id, og.ObjectID(oid)]) == ["Mort"]
    assert titles(ctx, "author IN %@", [oid]) == ["Mort", "Sourcery"]
    assert names(ctx, "ANY books == %@", mort.object_id) == ["Pratchett"]
    # A plain str stays a string: it matches no object.
    assert titles(ctx, "author == %@", str(oid)) == []
    # IDs read back from a fetch of IDs work too.
    ids = ctx.fetch("Book", "title BEGINSWITH 'S'", result_type="object_id")
    assert titles(ctx, "SELF IN %@", ids) == ["Sandman", "Sourcery"]


def test_pending_objects_match_their_temporary_ids(library) -> None:
    _, ctx = library
    mort = ctx.fetch("Book", "title == 'Mort'")[0]
    pratchett = mort.author
    rincewind = ctx.insert("Author", name="Rincewind")
    ctx.insert("Book", title="Wizzard", author=rincewind)
    mort.author = rincewind
    temporary = rincewind.object_id
    assert temporary.is_temporary
    assert titles(ctx, "author == %@", temporary) == ["Mort", "Wizzard"]
    assert titles(ctx, "author != %@", temporary) == ["Coraline", "Sandman", "Sourcery"]
    assert names(ctx, "SELF IN %@", [temporary]) == ["Rincewind"]
    assert titles(ctx, "author == %@", pratchett.object_id) == ["Sourcery"]


def test_entities_compare_exactly(library) -> None:
    model, ctx = library
    book, comic, author = model.entity("Book"), model.entity("Comic"), model.entity("Author")
    assert titles(ctx, "entity == %@", book) == ["Coraline", "Mort", "Sourcery"]
    assert titles(ctx, "entity == %@", comic) == ["Sandman"]
    assert titles(ctx, "entity IN %@", [comic, author]) == ["Sandman"]
    assert titles(ctx, "author.entity == %@", author) == ["Coraline", "Mort", "Sandman", "Sourcery"]
    assert names(ctx, "ANY books.entity == %@", comic) == ["Gaiman"]
    assert names(ctx, "SUBQUERY(books, $b, $b.entity == %@).@count == 2", book) == ["Pratchett"]
    ctx.insert("Comic", title="Death")
    assert titles(ctx, "entity == %@", comic) == ["Death", "Sandman"]
    # The entity's name is a string, not an entity.
    assert titles(ctx, "entity == %@", "Comic") == []


def test_a_malformed_object_id_is_refused() -> None:
    with pytest.raises(og.Error) as info:
        og.Predicate("SELF == %@", og.ObjectID("x-coredata://store/Book/q1"))
    assert info.value.code == og.ErrorCode.INVALID_ARGUMENT


def test_an_object_id_in_store_metadata_is_kept_as_its_uri(tmp_path) -> None:
    model = build_model()
    with og.Coordinator(model) as coordinator:
        store = coordinator.add_store("SQLite", str(tmp_path / "meta.sqlite"))
        with og.Context(coordinator) as ctx:
            author = ctx.insert("Author", name="Pratchett")
            ctx.save()
            coordinator.set_metadata(store, {"favourite": author.object_id, "all": [author.object_id]})
            kept = coordinator.metadata(store)
            assert kept["favourite"] == author.object_id and type(kept["favourite"]) is str
            assert kept["all"] == [author.object_id]
        with pytest.raises(og.Error) as info:
            coordinator.set_metadata(store, {"entity": model.entity("Book")})
        assert info.value.code == og.ErrorCode.INVALID_ARGUMENT
    gc.collect()
