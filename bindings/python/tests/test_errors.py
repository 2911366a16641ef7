"""Misuse gives an og.Error with the documented code and a message naming what
failed, and never crashes the interpreter."""

from __future__ import annotations

import threading

import pytest

import objectgraph as og
from objectgraph import _lib

from conftest import low_level_error


def test_object_used_after_its_context_closed(books_model, open_stack) -> None:
    stack = open_stack(books_model)
    book = stack.context.insert("Book", title="T", pages=1)
    author = stack.context.insert("Author", name="A", books=[book])
    stack.context.close()
    for use in (
        lambda: book.title,
        lambda: book.pages,
        lambda: book.author,
        lambda: len(author.books),
        lambda: setattr(book, "title", "x"),
        lambda: book.object_id,
        lambda: book.is_inserted,
        lambda: book.get_string("title"),
    ):
        with pytest.raises(og.Error) as info:
            use()
        error = info.value
        assert error.code in (og.INVALID_HANDLE, og.OBJECT_INACCESSIBLE)
        assert isinstance(error, og.UsageError)
        if error.code == og.INVALID_HANDLE:
            assert "handle" in error.message and "released" in error.message
        else:
            assert "context" in error.message
    assert "inaccessible" in repr(book)


def test_object_deleted_and_saved(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="Gone")
    ctx.save()
    ctx.delete(book)
    assert book.is_deleted and book.title == "Gone"  # readable until the save
    ctx.save()
    with pytest.raises(og.UsageError) as info:
        book.title
    assert info.value.code == og.OBJECT_INACCESSIBLE == 140010
    assert "Book" in info.value.message and "deleted" in info.value.message


def test_closed_context_and_model(books_model, open_stack) -> None:
    stack = open_stack(books_model)
    stack.context.close()
    stack.context.close()  # closing twice is harmless
    with pytest.raises(og.InvalidHandleError) as info:
        stack.context.insert("Book")
    assert info.value.code == og.INVALID_HANDLE == 140001
    assert info.value.domain == og.DOMAIN_OBJECTGRAPH
    assert "og_context handle" in info.value.message and "released" in info.value.message

    model = og.Model()
    entity = model.add_entity("Thing")
    model.close()
    with pytest.raises(og.InvalidHandleError) as info:
        model.entity("Thing")
    assert info.value.code == og.INVALID_HANDLE and "og_model handle" in info.value.message
    assert "released" in info.value.message
    with pytest.raises(og.InvalidHandleError) as info:
        entity.add_attribute("x", "string")  # lent by the model: released with it
    assert info.value.code == og.INVALID_HANDLE and "released" in info.value.message
    with pytest.raises(og.InvalidHandleError) as info:
        entity.name
    assert info.value.code == og.INVALID_HANDLE and "released" in info.value.message


def test_null_handle_through_the_low_level_api() -> None:
    status, error = low_level_error("og_context_save", None)
    assert status == _lib.ERROR
    assert error.code == og.INVALID_HANDLE == 140001
    assert isinstance(error, og.InvalidHandleError)
    assert "NULL" in error.message and "handle" in error.message
    handle, error = low_level_error("og_model_entity", None, b"Book")
    assert handle is None and error.code == og.INVALID_HANDLE
    # Functions without an error slot answer with a neutral value.
    assert _lib.lib.og_model_entity_count(None) == 0
    assert _lib.lib.og_entity_name(None) is None
    assert _lib.lib.og_value_type_of(None) == og.ValueType.NULL


def test_unknown_entity(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    with pytest.raises(og.UnknownEntityError) as info:
        ctx.insert("Spaceship")
    assert info.value.code == og.UNKNOWN_ENTITY == 140004
    assert "Spaceship" in info.value.message
    with pytest.raises(og.UnknownEntityError) as info:
        ctx.fetch("Spaceship")
    assert info.value.code == og.UNKNOWN_ENTITY and "Spaceship" in info.value.message
    with pytest.raises(og.UnknownEntityError) as info:
        books_model["Spaceship"]
    assert info.value.code == og.UNKNOWN_ENTITY and "Spaceship" in info.value.message


def test_unknown_key(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    with pytest.raises(og.UnknownKeyError) as info:
        ctx.insert("Book", title="T", colour="red")
    assert info.value.code == og.UNKNOWN_KEY == 140005
    assert "colour" in info.value.message
    assert ctx.count("Book") == 0  # the failed insert left nothing behind
    book = ctx.insert("Book", title="T")
    with pytest.raises(og.UnknownKeyError) as info:
        book["colour"]
    assert info.value.code == og.UNKNOWN_KEY and "colour" in info.value.message
    with pytest.raises(og.UnknownKeyError) as info:
        books_model["Book"].slot("colour")
    assert info.value.code == og.UNKNOWN_KEY and "colour" in info.value.message
    with pytest.raises(AttributeError):
        book.colour  # attribute syntax keeps Python's own protocol
    assert not hasattr(book, "colour")


def test_wrong_type(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="T")
    with pytest.raises(og.TypeMismatchError) as info:
        book.pages = "many"
    assert info.value.code == og.TYPE_MISMATCH == 140006
    assert "pages" in info.value.message
    assert isinstance(info.value, TypeError)
    with pytest.raises(og.TypeMismatchError) as info:
        book.title = 42
    assert info.value.code == og.TYPE_MISMATCH and "title" in info.value.message
    with pytest.raises(og.TypeMismatchError) as info:
        book.title = object()
    assert info.value.code == og.TYPE_MISMATCH


def test_integer16_out_of_range(books_model, open_stack) -> None:
    book = open_stack(books_model).context.insert("Book", title="T")
    book.year = 32767
    with pytest.raises(og.ValidationError) as info:
        book.year = 32768
    assert info.value.code == og.VALIDATION_NUMBER_TOO_LARGE == 1610
    assert "year" in info.value.message
    with pytest.raises(og.ValidationError) as info:
        book.year = -32769
    assert info.value.code == og.VALIDATION_NUMBER_TOO_SMALL == 1620
    assert "year" in info.value.message
    assert book.year == 32767


def test_invalid_utf8_through_the_low_level_api() -> None:
    model = og.Model()
    handle, error = low_level_error("og_model_add_entity", model._h, b"\xff\xfe")
    assert handle is None
    assert error.code == og.INVALID_UTF8 == 140003
    assert "utf" in error.message.lower()
    value, error = low_level_error("og_value_new_string", b"ok \xc3")
    assert value is None and error.code == og.INVALID_UTF8


def test_store_path_that_cannot_be_opened(tmp_path, books_model) -> None:
    path = tmp_path / "missing" / "deeper" / "x.sqlite"
    with og.Coordinator(books_model) as coordinator:
        with pytest.raises(og.StoreError) as info:
            coordinator.add_store("SQLite", path)
    assert info.value.code == og.STORE_OPEN == 134080
    assert str(path) in info.value.message
    # The underlying SQLite error comes along as a detail.
    assert [(d.domain, type(d)) for d in info.value.details] == [(og.DOMAIN_SQLITE, og.StoreError)]


def test_file_that_is_not_a_store(tmp_path, books_model) -> None:
    path = tmp_path / "x.sqlite"
    path.write_bytes(b"this is not a database, just some garbage bytes\x00\x01\x02" * 100)
    with og.Coordinator(books_model) as coordinator:
        with pytest.raises(og.StoreError) as info:
            coordinator.add_store("SQLite", path)
    assert info.value.code == og.STORE_INVALID_TYPE == 134000
    assert str(path) in info.value.message
    assert [d.domain for d in info.value.details] == [og.DOMAIN_SQLITE]


def test_unknown_store_type(tmp_path, books_model) -> None:
    with og.Coordinator(books_model) as coordinator:
        with pytest.raises(og.StoreError) as info:
            coordinator.add_store("Parchment", tmp_path / "x.store")
    assert info.value.code == og.STORE_INVALID_TYPE and "Parchment" in info.value.message


def test_validation_on_save_carries_object_key_and_details(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book")
    book.title = None  # title is mandatory
    with pytest.raises(og.ValidationError) as info:
        ctx.save()
    error = info.value
    assert error.code == og.VALIDATION_MISSING_MANDATORY == 1570
    assert error.key == "title" and error.user_info_value("NSValidationErrorKey") == "title"
    assert error.object_id == book.object_id
    assert "title" in error.message
    assert ctx.has_changes  # nothing was written

    author = ctx.insert("Author")
    author.name = None
    with pytest.raises(og.ValidationError) as info:
        ctx.save()
    error = info.value
    assert error.code == og.VALIDATION_MULTIPLE == 1560
    assert sorted(str(d.key) for d in error.details) == ["name", "title"]
    assert all(isinstance(d, og.ValidationError) and d.code == 1570 for d in error.details)


def test_wrong_thread(books_model, open_stack) -> None:
    ctx = open_stack(books_model).context
    book = ctx.insert("Book", title="T")
    caught = []

    def elsewhere() -> None:
        for use in (lambda: ctx.insert("Book"), lambda: book.title, ctx.save):
            try:
                use()
            except og.Error as error:
                caught.append(error)

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert len(caught) == 3
    for error in caught:
        assert isinstance(error, og.WrongThreadError) and error.code == og.WRONG_THREAD == 140007
        assert "thread" in error.message.lower()
    assert book.title == "T"  # the owning thread is unaffected


def test_errors_are_plain_python_objects() -> None:
    _, error = low_level_error("og_context_save", None)
    assert str(error).endswith(f"({og.DOMAIN_OBJECTGRAPH} 140001)")
    assert error.user_info == {} or isinstance(error.user_info, dict)
    assert error.details == [] or all(isinstance(d, og.Error) for d in error.details)
    import pickle

    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error) and again.code == error.code and again.message == error.message
