"""The fetched results controller (objectgraph/results_controller.py): sections,
lookups and the callbacks as the context changes."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, List

import pytest

import objectgraph as og


@pytest.fixture
def coordinator(tmp_path: Path) -> Any:
    """Tasks in lists: Home: Dishes (1), Laundry (2); Work: Email (1), Report (2), Slides (3)."""
    model = og.Model()
    task = model.add_entity("Task")
    task.add_attribute("title", "string")
    task.add_attribute("list", "string")
    task.add_attribute("rank", "integer64")
    task.add_attribute("done", "boolean", default=False)
    model.add_entity("Note").add_attribute("text", "string")
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(tmp_path / "tasks.sqlite"))
    with og.Context(coordinator) as seed:
        for title, list_, rank in [("Report", "Work", 2), ("Dishes", "Home", 1), ("Email", "Work", 1),
                                   ("Laundry", "Home", 2), ("Slides", "Work", 3)]:
            seed.insert("Task", title=title, list=list_, rank=rank)
        seed.save()
    yield coordinator
    coordinator.close()


@pytest.fixture
def ctx(coordinator: Any) -> Any:
    with og.Context(coordinator) as context:
        yield context


def by_list(ctx: og.Context, *where: Any) -> og.FetchedResultsController:
    return og.FetchedResultsController(ctx, "Task", ["list", "rank"], *where, section_key="list")


def titles(frc: og.FetchedResultsController) -> List[List[str]]:
    return [[o.title for o in s.objects] for s in frc.sections]


def record(frc: og.FetchedResultsController) -> List[Any]:
    calls: List[Any] = []
    frc.on_will_change(lambda: calls.append("will"))
    frc.on_did_change(lambda: calls.append("did"))
    frc.on_change(lambda kind, obj, old, new: calls.append((kind, obj.title, old, new)))
    frc.on_section_change(lambda kind, section, index: calls.append((kind, section.name, index,
                                                                     [o.title for o in section.objects])))
    return calls


def test_sections_objects_and_lookups(ctx: og.Context) -> None:
    with by_list(ctx) as frc:
        assert frc.objects is None and frc.sections is None
        frc.perform_fetch()
        assert [o.title for o in frc.objects] == ["Dishes", "Laundry", "Email", "Report", "Slides"]
        assert [s.name for s in frc.sections] == ["Home", "Work"]
        assert isinstance(frc.sections[0], og.Section)
        assert titles(frc) == [["Dishes", "Laundry"], ["Email", "Report", "Slides"]]
        report = frc.object_at(1, 1)
        assert report.title == "Report"
        assert frc.index_of(report) == (1, 1)
        assert frc.index_of(ctx.insert("Note", text="milk")) is None
        with pytest.raises(IndexError):
            frc.object_at(2, 0)
        with pytest.raises(IndexError):
            frc.object_at(0, 5)
        assert frc.section_index_titles == ["H", "W"]
        assert frc.section_index_title(1) == "W"
        assert frc.section_for_index_title("W", 1) == 1
        with pytest.raises(og.UsageError):
            frc.section_for_index_title("Q", 0)
        with pytest.raises(IndexError):
            frc.section_index_title(2)
        assert frc.context is ctx and frc.section_key == "list"
        assert frc.fetch_request.entity == "Task"


def test_one_section_without_a_section_key_and_a_request_object(ctx: og.Context) -> None:
    request = og.FetchRequest("Task", sort="-title", where="done == NO")
    with og.FetchedResultsController(ctx, request) as frc:
        frc.perform_fetch()
        assert len(frc.sections) == 1
        assert titles(frc) == [["Slides", "Report", "Laundry", "Email", "Dishes"]]
        assert frc.fetch_request is request


def test_where_takes_its_arguments(ctx: og.Context) -> None:
    with og.FetchedResultsController(ctx, "Task", "title", "rank > %@", 1) as frc:
        frc.perform_fetch()
        assert [o.title for o in frc.objects] == ["Laundry", "Report", "Slides"]


def test_a_request_without_a_sort_order_is_refused(ctx: og.Context) -> None:
    with pytest.raises(og.UsageError) as raised:
        og.FetchedResultsController(ctx, "Task")
    assert raised.value.code == 140002
    with pytest.raises(og.UsageError):
        og.FetchedResultsController(ctx, og.FetchRequest("Task"), section_key="list")


def test_sections_the_first_sort_key_does_not_group_fail_the_fetch(ctx: og.Context) -> None:
    with og.FetchedResultsController(ctx, "Task", "title", section_key="list") as frc:
        with pytest.raises(og.Error) as raised:
            frc.perform_fetch()
        assert raised.value.code == 134060
        assert "out of order section name" in raised.value.message


def test_inserts_moves_updates_and_a_new_section(ctx: og.Context) -> None:
    with by_list(ctx) as frc:
        calls = record(frc)
        frc.perform_fetch()
        ctx.insert("Task", title="Garden", list="Outside", rank=1)
        frc.object_at(1, 0).rank = 9          # Email goes last in Work
        frc.object_at(0, 0).title = "Dishes!"  # same place
        assert calls == []
        ctx.process_pending_changes()
        assert calls == ["will", ("insert", "Outside", 1, ["Garden"]),
                         ("insert", "Garden", None, (1, 0)),
                         ("move", "Email", (1, 0), (2, 2)),
                         ("update", "Dishes!", (0, 0), None), "did"]
        assert titles(frc) == [["Dishes!", "Laundry"], ["Garden"], ["Report", "Slides", "Email"]]


def test_objects_that_stop_matching_or_are_deleted_leave_at_the_save(ctx: og.Context) -> None:
    with by_list(ctx, "done == NO") as frc:
        calls = record(frc)
        frc.perform_fetch()
        frc.object_at(0, 0).done = True
        ctx.delete(frc.object_at(0, 1))
        ctx.save()
        assert calls == ["will", ("delete", "Home", 0, ["Dishes", "Laundry"]),
                         ("delete", "Dishes", (0, 0), None), ("delete", "Laundry", (0, 1), None), "did"]
        assert [s.name for s in frc.sections] == ["Work"]


def test_changes_that_touch_nothing_tracked_call_nothing(ctx: og.Context) -> None:
    with by_list(ctx, "done == NO") as frc:
        calls = record(frc)
        frc.perform_fetch()
        ctx.insert("Note", text="milk")
        ctx.insert("Task", title="Taxes", list="Home", rank=4, done=True)
        ctx.process_pending_changes()
        ctx.save()
        assert calls == []


def test_a_merged_save_and_a_perform_block(coordinator: Any, ctx: og.Context) -> None:
    with by_list(ctx) as frc:
        calls = record(frc)
        frc.perform_fetch()
        with og.Context(coordinator) as other:
            saves: List[Any] = []
            other.observe("did_save", saves.append)
            other.insert("Task", title="Fix bike", list="Home", rank=0)
            other.save()
        ctx.merge_changes(saves[0])
        assert calls == ["will", ("insert", "Fix bike", None, (0, 0)), "did"]
    worker = og.Context(coordinator, concurrency="private")
    try:
        seen: List[Any] = []
        done = threading.Event()

        def start() -> None:
            frc = by_list(worker)
            frc.on_change(lambda kind, obj, old, new: seen.append((kind, obj.title, new)))
            frc.perform_fetch()
            seen.append(frc)  # kept alive for the next block

        worker.perform_and_wait(start)
        worker.perform(lambda: (worker.insert("Task", title="Plan", list="Work", rank=4), None)[1])
        worker.perform(done.set)
        assert done.wait(10)
        worker.perform_and_wait(lambda: None)
        assert seen[1:] == [("insert", "Plan", (1, 3))]
        worker.perform_and_wait(seen[0].close)
    finally:
        worker.close()


def test_a_callback_that_raises_is_reported_by_the_call_that_ran_it(ctx: og.Context) -> None:
    with by_list(ctx) as frc:
        calls = record(frc)
        frc.perform_fetch()

        def broken(kind: str, obj: Any, old: Any, new: Any) -> None:
            raise ValueError(f"cannot show {obj.title}")

        frc.on_change(broken)
        ctx.insert("Task", title="Call", list="Work", rank=0)
        ctx.insert("Task", title="Bins", list="Home", rank=5)
        with pytest.raises(ValueError, match="cannot show"):
            ctx.process_pending_changes()
        # The rest of that batch was not delivered; the results are current all the same.
        assert calls == ["will"]
        assert titles(frc) == [["Dishes", "Laundry", "Bins"], ["Call", "Email", "Report", "Slides"]]
        frc.on_change(None)
        frc.object_at(0, 0).rank = 7
        ctx.process_pending_changes()
        assert calls[-1] == "did"


def test_closing_the_controller_in_its_own_callback(ctx: og.Context) -> None:
    frc = by_list(ctx)
    calls = record(frc)
    frc.on_will_change(lambda: (calls.append("will"), frc.close()))
    frc.perform_fetch()
    ctx.insert("Task", title="Call", list="Work", rank=0)
    ctx.process_pending_changes()
    assert calls == ["will"]
    assert frc.closed
    with pytest.raises(og.UsageError):
        frc.perform_fetch()
    ctx.insert("Task", title="Later", list="Work", rank=0)
    ctx.save()
    assert calls == ["will"]
