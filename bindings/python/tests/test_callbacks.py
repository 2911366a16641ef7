"""Every Python callback the library calls (atomic store load and save, hooks,
validation, observers, perform blocks) turns any exception, KeyboardInterrupt
included, into a failure of the call that ran it: the user's own exception,
raised by that call and no later one."""

from __future__ import annotations

import ctypes
import types

import pytest

import objectgraph as og
from objectgraph import graph as _graph


class Interrupt(KeyboardInterrupt):
    """A KeyboardInterrupt the test can tell from a real one."""


def test_an_interrupt_in_a_python_store_save_fails_the_save(books_model) -> None:
    documents = {}
    raise_in_save = []

    def load(path):
        return documents.get(path)

    def save(path, document):
        if raise_in_save:
            raise raise_in_save[0]
        documents[path] = document

    og.register_atomic_store_type("Shelf", load, save)
    try:
        with og.Coordinator(books_model) as coordinator:
            coordinator.add_store("Shelf", "s")
            with og.Context(coordinator) as ctx:
                ctx.insert("Book", title="Kept")
                ctx.save()
                kept = documents["s"]
                for exc in (Interrupt(), SystemExit(3), ValueError("no room")):
                    raise_in_save[:] = [exc]
                    ctx.insert("Book", title="Lost")
                    with pytest.raises(type(exc)) as info:
                        ctx.save()
                    assert info.value is exc
                    assert documents["s"] == kept  # nothing stored
                    assert ctx.has_changes  # and the changes are still pending
                    ctx.rollback()
                raise_in_save.clear()
                ctx.insert("Book", title="Later")
                ctx.save()
        with og.Coordinator(books_model) as coordinator:
            coordinator.add_store("Shelf", "s")
            with og.Context(coordinator) as ctx:
                assert sorted(b.title for b in ctx.fetch("Book")) == ["Kept", "Later"]
    finally:
        og.unregister_store_type("Shelf")


def test_an_exception_in_a_python_store_load_comes_out_of_add_store(books_model) -> None:
    def load(path):
        raise Interrupt()

    og.register_atomic_store_type("Broken", load, lambda path, document: None)
    try:
        with og.Coordinator(books_model) as coordinator:
            with pytest.raises(Interrupt) as info:
                coordinator.add_store("Broken", "b")
            assert isinstance(info.value.__context__, og.Error)
            assert coordinator.store_count == 0
            # Nothing is left over for a later call.
            assert coordinator.add_store("InMemory") is not None
    finally:
        og.unregister_store_type("Broken")


def saved(open_stack) -> "object":
    from conftest import build_books_model

    stack = open_stack(build_books_model())
    ctx = stack.context
    ctx.insert("Book", title="Mort", pages=300, author=ctx.insert("Author", name="Terry"))
    ctx.save()
    return stack


def test_awake_from_fetch_raising_in_a_read_comes_out_of_that_read(open_stack) -> None:
    stack = saved(open_stack)
    with og.Context(stack.coordinator) as ctx:
        def awake(obj):
            raise ValueError("awake failed")

        ctx.set_hooks("Book", awake_from_fetch=awake)
        for read in (lambda b: b.title, lambda b: b.pages, lambda b: b["title"], lambda b: b.get_value("title"),
                     lambda b: b.get_int64("pages"), lambda b: b.author):
            ctx.reset()
            (book,) = ctx.fetch("Book")
            if not book.is_fault:
                ctx.refresh(book)
            assert book.is_fault
            with pytest.raises(ValueError, match="awake failed"):
                read(book)
        ctx.set_hooks("Book", awake_from_fetch=None)
        ctx.save()  # nothing left over for the save


def test_unbounded_recursion_in_a_hook_is_a_recursion_error(open_stack) -> None:
    stack = saved(open_stack)
    with og.Context(stack.coordinator) as ctx:
        def awake(obj):
            ctx.refresh(obj)  # turns it back into a fault,
            return obj.title  # which this read fires again, which runs the hook again...

        ctx.set_hooks("Book", awake_from_fetch=awake)
        (book,) = ctx.fetch("Book")
        ctx.refresh(book)
        with pytest.raises(RecursionError) as info:
            book.title
        assert not isinstance(info.value, ctypes.ArgumentError)
        ctx.set_hooks("Book", awake_from_fetch=None)
        assert book.title == "Mort"


def test_a_recursion_error_inside_a_ctypes_call_is_reported_as_one() -> None:
    wrapped = ctypes.ArgumentError("argument 1: RecursionError: maximum recursion depth exceeded")
    normal = og._util.normalize(wrapped)
    assert isinstance(normal, RecursionError) and normal.__cause__ is wrapped
    other = ctypes.ArgumentError("argument 2: TypeError: wrong type")
    assert og._util.normalize(other) is other


def test_an_interrupt_in_a_validation_hook_comes_out_of_the_save(open_stack) -> None:
    stack = saved(open_stack)
    ctx = stack.context

    def validate(obj):
        raise Interrupt()

    ctx.set_hooks("Book", validate_for_insert=validate)
    ctx.insert("Book", title="New")
    with pytest.raises(Interrupt):
        ctx.save()
    ctx.set_hooks("Book", validate_for_insert=None)
    ctx.save()
    assert ctx.count("Book") == 2


def test_observer_and_hook_exceptions_come_out_of_the_call_that_ran_them(open_stack) -> None:
    stack = saved(open_stack)
    ctx = stack.context
    observer = ctx.observe("objects_did_change", lambda n: (_ for _ in ()).throw(Interrupt()))
    ctx.insert("Book", title="New")
    with pytest.raises(Interrupt):
        ctx.process_pending_changes()
    observer.remove()
    ctx.set_hooks("Author", awake_from_insert=lambda obj: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        ctx.insert("Author", name="x")
    ctx.set_hooks("Author", awake_from_insert=None)
    ctx.rollback()
    assert ctx.count("Book") == 1


def test_perform_blocks_report_their_exceptions() -> None:
    model = og.Model()
    model.add_entity("Book").add_attribute("title", "string")
    with og.Coordinator(model) as coordinator:
        coordinator.add_store("InMemory")
        with og.Context(coordinator, concurrency="private") as ctx:
            with pytest.raises(Interrupt):
                ctx.perform_and_wait(lambda: (_ for _ in ()).throw(Interrupt()))
            assert ctx.perform_and_wait(lambda: 7) == 7


def test_an_exception_the_interpreter_could_not_hand_to_a_callback_is_not_lost(open_stack) -> None:
    # ctypes prints and drops an exception raised as a callback is entered (a
    # KeyboardInterrupt that lands right then) and returns garbage to the library;
    # the binding's unraisable hook keeps it for the call that ran the callback.
    stack = saved(open_stack)
    exc = Interrupt()
    _graph._unraisable(types.SimpleNamespace(object=_graph._hook_fn, exc_value=exc, exc_type=Interrupt,
                                             exc_traceback=None, err_msg="Exception ignored on calling ctypes callback function"))
    with pytest.raises(Interrupt) as info:
        stack.context.fetch("Book")
    assert info.value is exc
    assert len(stack.context.fetch("Book")) == 1  # raised once
    others = []
    previous, _graph._previous_unraisablehook = _graph._previous_unraisablehook, others.append
    try:
        _graph._unraisable(types.SimpleNamespace(object=print, exc_value=ValueError(), exc_type=ValueError,
                                                 exc_traceback=None, err_msg=None))
    finally:
        _graph._previous_unraisablehook = previous
    assert len(others) == 1  # not ours: handed to the hook installed before


def test_a_sort_key_that_is_not_a_string_is_a_usage_error(open_stack) -> None:
    ctx = saved(open_stack).context
    for sort in ([None], [3], 3, [("title", True, 1)]):
        with pytest.raises(og.UsageError) as info:
            ctx.fetch("Book", sort=sort)
        assert info.value.code == og.ErrorCode.INVALID_ARGUMENT == 140002
