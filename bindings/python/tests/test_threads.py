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
