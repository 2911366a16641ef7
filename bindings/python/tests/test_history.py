"""Persistent history (objectgraph/history.py, ctx.history, ctx.delete_history,
coord.current_history_token): one transaction per save and per batch, read after a
token, a date or a transaction, filtered, purged, and merged into another context."""

from __future__ import annotations

import datetime
import pickle
import sqlite3
from pathlib import Path
from typing import Any, Tuple

import pytest

import objectgraph as og


def notes_model() -> og.Model:
    model = og.Model()
    note = model.add_entity("Note")
    note.add_attribute("title", "string")
    body = note.add_attribute("body", "string")
    body.preserves_value_in_history = True
    note.add_attribute("stars", "integer32", default=0)
    return model


def open_store(path: Path, model: og.Model, **options: Any) -> Tuple[og.Coordinator, og.Context]:
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(path), history_tracking=True, **options)
    return coordinator, og.Context(coordinator)


@pytest.fixture
def notes(tmp_path: Path) -> Any:
    model = notes_model()
    coordinator, ctx = open_store(tmp_path / "notes.sqlite", model)
    yield ctx, tmp_path / "notes.sqlite", model
    ctx.close()
    coordinator.close()


def add_note(ctx: og.Context, title: str, body: str = "text") -> og.ManagedObject:
    note = ctx.insert("Note")
    note.title = title
    note.body = body
    return note


def test_each_save_is_one_transaction_with_a_change_per_object(notes) -> None:
    ctx, path, _ = notes
    ctx.transaction_author = "importer"
    ctx.name = "main"
    a, b = add_note(ctx, "a"), add_note(ctx, "b")
    ctx.save()
    a.stars = 3
    ctx.delete(b)
    ctx.save()
    ctx.save()  # nothing to write: no transaction
    first, second = ctx.history()
    assert (first.transaction_number, second.transaction_number) == (1, 2)
    assert first.author == "importer" and first.context_name == "main" and first.process_id
    assert first.store_uuid == ctx.coordinator.stores[0].uuid
    assert first.timestamp.tzinfo is not None
    assert abs((datetime.datetime.now(datetime.timezone.utc) - first.timestamp).total_seconds()) < 60
    assert [c.kind for c in first.changes] == ["insert", "insert"]
    assert [c.object_id for c in first.changes] == [a.object_id, b.object_id]
    update, delete = second.changes
    assert update.updated_properties == {"stars"} and update.tombstone is None
    assert delete.tombstone == {"body": "text"} and delete.updated_properties is None
    assert delete.transaction is second
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM ACHANGE").fetchone() == (4,)
    assert ctx.transaction_author == "importer"


def test_after_a_token_a_date_or_a_transaction_is_exclusive(notes) -> None:
    ctx, _, _ = notes
    for i in range(3):
        add_note(ctx, f"n{i}")
        ctx.save()
    all_ = ctx.history()
    assert [t.transaction_number for t in ctx.history(after=all_[0].token)] == [2, 3]
    assert [t.transaction_number for t in ctx.history(after=all_[1])] == [3]
    assert [t.transaction_number for t in ctx.history(after=all_[1].timestamp)] == [3]
    assert ctx.coordinator.current_history_token() == all_[2].token
    assert ctx.history(result_type="count") == 3
    assert all(t.changes is None for t in ctx.history(result_type="transactions_only"))
    assert len(ctx.history(result_type="object_ids")) == 3


def test_tokens_pickle_compare_and_hash(notes) -> None:
    ctx, _, _ = notes
    assert ctx.coordinator.current_history_token() is None
    add_note(ctx, "x")
    ctx.save()
    token = ctx.coordinator.current_history_token()
    back = pickle.loads(pickle.dumps(token))
    assert back == token and hash(back) == hash(token) and len({token, back}) == 1
    assert og.HistoryToken.from_bytes(bytes(token)) == token
    with pytest.raises(og.UsageError):
        og.HistoryToken.from_bytes(bytes(token)[:10])
    with pytest.raises(og.UsageError):
        og.HistoryToken.from_bytes(b"not a token")


def test_purging_keeps_the_tokens_transaction_and_expires_older_tokens(notes) -> None:
    ctx, _, _ = notes
    tokens = []
    for i in range(4):
        add_note(ctx, f"n{i}")
        ctx.save()
        tokens.append(ctx.coordinator.current_history_token())
    assert ctx.delete_history(tokens[2]) is None
    assert [t.transaction_number for t in ctx.history()] == [3, 4]
    with pytest.raises(og.StoreError) as info:
        ctx.history(after=tokens[0])
    assert info.value.code == 134301
    ctx.execute(og.HistoryChangeRequest(before=datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=1)))
    assert ctx.history() == []
    add_note(ctx, "late")
    ctx.save()
    assert [t.transaction_number for t in ctx.history()] == [5]


def test_fetch_requests_filter_transactions_and_changes(notes) -> None:
    ctx, _, _ = notes
    ctx.transaction_author = "alice"
    a = add_note(ctx, "a")
    ctx.save()
    ctx.transaction_author = "bob"
    add_note(ctx, "b")
    a.title = "a2"
    ctx.save()
    by_bob = ctx.history(fetch_request=og.Transaction.fetch_request("author == %@", "bob"))
    assert [t.author for t in by_bob] == ["bob"]
    updates = ctx.history(fetch_request=og.Change.fetch_request("changeType == 1"))
    assert [c.object_id for c in updates] == [a.object_id]
    of_a = ctx.history(fetch_request=og.Change.fetch_request("changedObjectID == %@", a.object_id))
    assert [c.kind for c in of_a] == ["insert", "update"]
    request = og.HistoryChangeRequest(fetch_request=og.Transaction.fetch_request("transactionNumber > 1"),
                                      result_type="transactions_and_changes")
    assert [t.transaction_number for t in ctx.execute(request)] == [2]
    assert og.Transaction.entity_description(ctx).name == "Transaction"
    assert "changedObjectID" in og.Change.entity_description(ctx).attributes
    with pytest.raises(og.UsageError) as info:
        ctx.history(fetch_request=og.Transaction.fetch_request(sort="timestamp"))
    assert info.value.code == 140002
    with pytest.raises(og.UsageError):
        og.HistoryChangeRequest(after=datetime.datetime.now(), before=datetime.datetime.now())
    with pytest.raises(og.TypeMismatchError):
        ctx.history(after="yesterday")  # type: ignore[arg-type]


def test_batches_are_one_transaction_each(notes) -> None:
    ctx, _, _ = notes
    ctx.transaction_author = "batch"
    ctx.batch_insert("Note", [{"title": f"t{i}", "body": f"b{i}"} for i in range(5)])
    ctx.batch_update("Note", "title IN %@", ["t1", "t2"], values={"stars": 5})
    ctx.batch_delete("Note", "title == 't4'")
    history = ctx.history()
    assert [len(t.changes) for t in history] == [5, 2, 1]
    assert history[1].changes[0].updated_properties == {"stars"}
    assert history[2].changes[0].tombstone == {"body": "b4"}


def test_merging_from_history_brings_another_coordinators_save(tmp_path: Path) -> None:
    """The documented pattern: keep a token, read what came after it, merge."""
    model = notes_model()
    path = tmp_path / "shared.sqlite"
    reader_coordinator, reader = open_store(path, model)
    seen = add_note(reader, "shared")
    reader.save()
    last = reader.coordinator.current_history_token()
    writer_coordinator, writer = open_store(path, model)
    writer.transaction_author = "writer"
    writer.object_with_id(seen.object_id).title = "changed elsewhere"
    add_note(writer, "new")
    writer.save()
    news = reader.history(after=last)
    assert [t.author for t in news] == ["writer"]
    for transaction in news:
        notification = transaction.object_id_notification()
        assert notification.name == "did_save" and len(notification.inserted) == 1
        assert notification.updated == [seen.object_id]
        reader.merge_changes(notification)
    assert seen.title == "changed elsewhere"
    assert reader.history(after=news[-1].token) == []
    for c in (writer, reader):
        c.close()
    writer_coordinator.close()
    reader_coordinator.close()


def test_stores_without_history(tmp_path: Path) -> None:
    coordinator = og.Coordinator(notes_model())
    coordinator.add_store("InMemory")
    with og.Context(coordinator) as ctx:
        with pytest.raises(og.StoreError) as info:
            ctx.history()
        assert info.value.code == 134091
    coordinator.close()


def test_remote_change_reaches_observers_of_every_coordinator(tmp_path: Path) -> None:
    import threading
    import time

    model = notes_model()
    path = tmp_path / "remote.sqlite"
    watcher = og.Coordinator(model)
    watcher.add_store("SQLite", str(path), history_tracking=True, remote_change_notifications=True)
    received: list = []
    arrived = threading.Event()

    def on_change(notification: og.Notification) -> None:
        received.append(notification)
        arrived.set()

    observer = watcher.observe("remote_change", on_change)
    assert isinstance(observer, og.Observer)
    writer_coordinator, writer = open_store(path, model)
    started = time.monotonic()
    add_note(writer, "elsewhere")
    writer.save()
    assert arrived.wait(2) and time.monotonic() - started < 1
    first = received[0]
    assert first.name == "remote_change" and first.store_uuid == watcher.stores[0].uuid
    assert first.history_token == writer.coordinator.current_history_token()
    observer.remove()
    arrived.clear()
    add_note(writer, "after")
    writer.save()
    assert not arrived.wait(0.3), "a removed observer is never called again"
    with pytest.raises(og.UsageError):
        watcher.observe("did_save", on_change)
    writer.close()
    writer_coordinator.close()
    watcher.close()


def test_three_processes_stay_in_step_through_history(tmp_path: Path) -> None:
    """examples/python/history_sync.py: a follower process merges what two writer
    processes save, learning of each save by remote change and reading it from
    the history after its token."""
    import os
    import subprocess
    import sys

    from conftest import BINDING, REPO

    example = REPO / "examples" / "python" / "history_sync.py"
    env = dict(os.environ, PYTHONPATH=str(BINDING) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    store = str(tmp_path / "notes.sqlite")
    subprocess.run([sys.executable, str(example), "write", store, "setup", "0"], env=env, check=True, timeout=60)
    follower = subprocess.Popen([sys.executable, str(example), "follow", store, "8"], env=env,
                                stdout=subprocess.PIPE, text=True)
    try:
        assert follower.stdout is not None and follower.stdout.readline().strip() == "ready"
        writers = [subprocess.Popen([sys.executable, str(example), "write", store, name, "4"], env=env)
                   for name in ("ann", "bob")]
        assert [w.wait(timeout=60) for w in writers] == [0, 0]
        out, _ = follower.communicate(timeout=60)
    finally:
        follower.kill()
    assert follower.returncode == 0
    import json
    assert json.loads(out.splitlines()[-1]) == [f"{n} {i}" for n in ("ann", "bob") for i in range(4)]
    # The follower kept its token: a second run resumes after it and sees only new notes.
    assert (tmp_path / "notes.sqlite.token").exists()
    demo = subprocess.run([sys.executable, str(example)], env=env, capture_output=True, text=True, timeout=120)
    assert demo.returncode == 0, demo.stderr
    assert demo.stdout.strip() == "the follower saw: ann 0, ann 1, ann 2, bob 0, bob 1, bob 2"


def test_history_survives_migration(tmp_path: Path) -> None:
    """A store copied with history on both sides keeps its transactions and numbers;
    an automatic migration in place keeps them and their tokens. Both add the schema
    migrator's transaction."""
    model = notes_model()
    coordinator, ctx = open_store(tmp_path / "notes.sqlite", model)
    ctx.transaction_author = "me"
    add_note(ctx, "a")
    ctx.save()
    token = coordinator.current_history_token()
    copy = coordinator.migrate_store(coordinator.stores[0], str(tmp_path / "copy.sqlite"), "SQLite",
                                     options={og.HISTORY_TRACKING_OPTION: True})
    history = ctx.history()
    assert [(t.transaction_number, t.author) for t in history] == [
        (1, "me"), (2, "com.apple.coredata.schemamigrator.lightweight")]
    assert {t.store_uuid for t in history} == {copy.uuid}
    ctx.close()
    coordinator.close()

    v2 = notes_model()
    v2.add_entity("Aardvark").add_attribute("name", "string")
    migrated = og.Coordinator(v2)
    migrated.add_store("SQLite", str(tmp_path / "copy.sqlite"), history_tracking=True, migrate_automatically=True,
                       infer_mapping_automatically=True)
    with og.Context(migrated) as after:
        assert [t.transaction_number for t in after.history()] == [1, 2, 3]
        assert after.history()[0].changes[0].object_id.entity == "Note"
        assert [t.author for t in after.history(after=after.history()[1].token)] == [
            "com.apple.coredata.schemamigrator.lightweight"]
    migrated.close()
    del token
