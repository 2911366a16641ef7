"""Threads using the binding at once: no value one thread writes reaches another
thread's objects (docs/python-api.md, Threads). The long version of the stress
run is scripts/stress-python-threads.sh."""

from __future__ import annotations

import threading
from pathlib import Path

import objectgraph as og
import stress_threads


def test_keyword_inserts_on_two_private_contexts_keep_their_own_values(tmp_path: Path) -> None:
    model = og.Model()
    entity = model.add_entity("C")
    entity.add_attribute("a", "integer64")
    entity.add_attribute("b", "integer64")
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(tmp_path / "c.sqlite"))

    def work(tag: int) -> None:
        ctx = og.Context(coordinator, concurrency="private")

        def body() -> None:
            for _ in range(10_000):
                ctx.insert("C", a=tag, b=tag)
            ctx.save()

        ctx.perform_and_wait(body)
        ctx.close()

    threads = [threading.Thread(target=work, args=(tag,)) for tag in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with og.Context(coordinator) as ctx:
        assert ctx.count("C", "a != b") == 0
        assert ctx.count("C", "a == 1") == 10_000
        assert ctx.count("C", "a == 2") == 10_000
    coordinator.close()


def test_threads_on_shared_and_separate_coordinators_read_back_what_they_wrote(tmp_path: Path) -> None:
    report = stress_threads.run(str(tmp_path / "stress.sqlite"), threads=4, objects=1200, batch=300, separate=1)
    assert report.errors == []
    assert report.exchanged == []
    assert report.inserted == 4 * 1200
    assert report.updated == 4 * 400
    # Each object is compared when inserted (a sample), when refetched by its thread and at the end.
    assert report.checked >= 2 * 4 * 1200


def test_the_stress_script_reports_success(tmp_path: Path, capsys: object) -> None:
    assert stress_threads.main(["--threads", "2", "--objects", "100", "--batch", "50", "--separate", "1",
                                "--path", str(tmp_path / "s.sqlite")]) == 0


def _numbers_stack(path: Path, count: int) -> og.Coordinator:
    """A coordinator over a store of `count` Number objects (n = 0 … count-1)."""
    model = og.Model()
    entity = model.add_entity("Number")
    entity.add_attribute("n", "integer64")
    entity.add_attribute("half", "double")
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(path))
    with og.Context(coordinator) as ctx:
        for n in range(count):
            ctx.insert("Number", n=n, half=n / 2)
        ctx.save()
    return coordinator


def test_wrappers_collected_on_another_thread_leave_the_owners_objects_usable(tmp_path: Path) -> None:
    # Wrappers handed to another thread are collected there while their context's thread
    # keeps fetching the same objects: each fetch gets working wrappers with the right values.
    import queue

    coordinator = _numbers_stack(tmp_path / "n.sqlite", 400)
    handed: "queue.Queue[object]" = queue.Queue()
    stop = threading.Event()

    def collector() -> None:
        while not stop.is_set() or not handed.empty():
            try:
                handed.get(timeout=0.01)  # dropped here: the last reference goes on this thread
            except queue.Empty:
                pass

    thread = threading.Thread(target=collector)
    thread.start()
    try:
        with og.Context(coordinator) as ctx:
            for round in range(60):
                objects = ctx.fetch("Number", sort=["n"])
                assert [o.n for o in objects] == list(range(400))
                assert objects[7].half == 3.5
                same = ctx.fetch("Number", "n < 10", sort=["n"])
                assert all(a is b for a, b in zip(same, objects[:10]))
                handed.put(objects)
                del objects, same
    finally:
        stop.set()
        thread.join()
    coordinator.close()


def test_a_refused_insert_from_another_thread_changes_nothing_of_the_owners(tmp_path: Path) -> None:
    coordinator = _numbers_stack(tmp_path / "n.sqlite", 600)
    with og.Context(coordinator) as ctx:
        for _ in range(3):  # wrappers gone, their handles waiting to be given back
            ctx.fetch("Number")
        kept = ctx.fetch("Number", sort=["n"])[:5]
        refused = []

        def intruder() -> None:
            try:
                ctx.insert("Number", n=-1)
            except og.WrongThreadError as error:
                refused.append(error)

        thread = threading.Thread(target=intruder)
        thread.start()
        thread.join()
        assert len(refused) == 1
        assert [o.n for o in kept] == [0, 1, 2, 3, 4]
        assert len(ctx.fetch("Number")) == 600
        assert not ctx.has_changes
    coordinator.close()


def test_a_column_read_first_on_another_thread_is_refused(tmp_path: Path) -> None:
    coordinator = _numbers_stack(tmp_path / "n.sqlite", 100)
    with og.Context(coordinator) as ctx:
        objects = ctx.fetch("Number", sort=["n"])
        assert objects[3].n == 3  # the column of n is read in bulk, on this thread
        seen: list = []

        def other() -> None:
            # A value read in bulk already is a snapshot of the owner's: given as it is.
            seen.append(objects[4].n)
            try:
                seen.append(objects[4].half)  # a column not read yet: the library refuses
            except og.WrongThreadError:
                seen.append("refused")

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert seen == [4, "refused"]
        assert objects[4].half == 2.0
    coordinator.close()


def test_an_objects_id_is_read_on_its_contexts_thread_only(tmp_path: Path) -> None:
    coordinator = _numbers_stack(tmp_path / "n.sqlite", 10)
    with og.Context(coordinator) as ctx:
        first = ctx.fetch("Number", sort=["n"])[0]
        seen: list = []

        def other() -> None:
            # Making the ID reads the object's row, which its thread may be replacing.
            try:
                seen.append(first.object_id)
            except og.WrongThreadError:
                seen.append("refused")
            seen.append(repr(first))

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert seen == ["refused", "<Number (inaccessible)>"]
        assert first.object_id.endswith("/Number/p1")
    coordinator.close()


def test_closing_a_queue_context_while_its_block_fetches_waits_for_the_block(tmp_path: Path) -> None:
    coordinator = _numbers_stack(tmp_path / "n.sqlite", 200)
    problems: list = []
    for _ in range(20):
        ctx = og.Context(coordinator, concurrency="private")

        def block(ctx: og.Context = ctx) -> None:
            try:
                total = sum(o.n for o in ctx.fetch("Number"))
                assert total == sum(range(200))
            except og.Error:
                pass  # the context may be closing: an error of the library's is fine
            except BaseException as error:  # anything else is a fault of the binding
                problems.append(error)

        ctx.perform(block)
        ctx.close()  # waits for the block
    assert problems == []
    coordinator.close()


def test_objects_of_one_entity_wrapped_at_once_on_several_threads_share_one_class(tmp_path: Path) -> None:
    coordinator = _numbers_stack(tmp_path / "n.sqlite", 10)
    barrier = threading.Barrier(6)
    classes: list = []

    def wrap() -> None:
        with og.Context(coordinator) as ctx:
            barrier.wait()
            classes.append(type(ctx.fetch("Number", limit=1)[0]))

    threads = [threading.Thread(target=wrap) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(classes) == 6 and len(set(classes)) == 1
    coordinator.close()


def test_atomic_store_types_registered_at_once_on_several_threads_each_work(tmp_path: Path) -> None:
    documents: dict = {}
    barrier = threading.Barrier(8)
    names = [f"ThreadShelf{k}" for k in range(8)]

    def register(name: str) -> None:
        barrier.wait()
        og.register_atomic_store_type(name, load=lambda path: documents.get(path),
                                      save=lambda path, document: documents.__setitem__(path, document))

    threads = [threading.Thread(target=register, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        model = og.Model()
        model.add_entity("Thing").add_attribute("name", "string")
        for name in names:
            with og.Coordinator(model) as coordinator:
                coordinator.add_store(name, name)
                with og.Context(coordinator) as ctx:
                    ctx.insert("Thing", name=name)
                    ctx.save()
        assert sorted(documents) == sorted(names)
    finally:
        for name in names:
            og.unregister_store_type(name)


def test_unregistering_a_transformer_waits_for_a_call_on_another_thread(tmp_path: Path) -> None:
    inside, release = threading.Event(), threading.Event()

    def forward(value: object) -> bytes:
        inside.set()
        release.wait(10)
        return repr(value).encode()

    og.register_value_transformer("ThreadSlowRepr", forward, lambda data: data.decode())
    model = og.Model()
    attribute = model.add_entity("Note").add_attribute("extra", "transformable")
    attribute.value_transformer_name = "ThreadSlowRepr"
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(tmp_path / "notes.sqlite"))
    saved: list = []

    def save() -> None:
        with og.Context(coordinator) as ctx:
            ctx.insert("Note", extra=[1, 2])
            ctx.save()
            saved.append(True)

    saver = threading.Thread(target=save)
    saver.start()
    assert inside.wait(10)
    unregistering = threading.Thread(target=og.unregister_value_transformer, args=("ThreadSlowRepr",))
    unregistering.start()
    unregistering.join(0.3)
    assert unregistering.is_alive()  # waiting for the call under way
    release.set()
    saver.join()
    unregistering.join(10)
    assert not unregistering.is_alive() and saved == [True]
    coordinator.close()
