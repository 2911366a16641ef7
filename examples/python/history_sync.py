"""Keeping processes in step through persistent history (docs/history.md).

Every process adds the store with history tracking and remote-change
notifications. A process that wants to know what the others wrote keeps the
token of the last transaction it has seen (here in a file beside the store);
when "remote_change" arrives it reads the history after that token, merges each
transaction written by someone else into its context, and keeps the new token.

    python3 history_sync.py                     # two writers and a follower
    python3 history_sync.py follow STORE COUNT  # until COUNT notes by others
    python3 history_sync.py write STORE NAME COUNT
"""

import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import objectgraph as og


def open_store(path):
    model = og.Model()
    note = model.add_entity("Note")
    note.add_attribute("title", "string")
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", path, history_tracking=True, remote_change_notifications=True)
    return coordinator, og.Context(coordinator)


def write(path, name, count):
    coordinator, ctx = open_store(path)
    ctx.transaction_author = name
    for i in range(count):
        ctx.insert("Note").title = f"{name} {i}"
        ctx.save()


def follow(path, count):
    coordinator, ctx = open_store(path)
    ctx.transaction_author = "follower"
    token_file = Path(path + ".token")
    token = og.HistoryToken.from_bytes(token_file.read_bytes()) if token_file.exists() else None
    changed = threading.Event()
    coordinator.observe("remote_change", lambda notification: changed.set())
    print("ready", flush=True)
    seen = []
    while len(seen) < count:
        if not changed.wait(timeout=10):
            raise SystemExit(f"no change for 10 s after {len(seen)} notes")
        changed.clear()
        for transaction in ctx.history(after=token):
            if transaction.author != ctx.transaction_author:
                ctx.merge_changes(transaction.object_id_notification())
                seen += [ctx.object_with_id(oid).title for oid in transaction.object_id_notification().inserted]
            token = transaction.token
        if token is not None:
            token_file.write_bytes(bytes(token))
    print(json.dumps(sorted(seen)))


def demo():
    store = str(Path(tempfile.mkdtemp()) / "notes.sqlite")
    open_store(store)  # create it before anyone watches
    follower = subprocess.Popen([sys.executable, __file__, "follow", store, "6"], stdout=subprocess.PIPE, text=True)
    assert follower.stdout.readline().strip() == "ready"
    writers = [subprocess.Popen([sys.executable, __file__, "write", store, name, "3"]) for name in ("ann", "bob")]
    for w in writers:
        w.wait()
    out, _ = follower.communicate(timeout=60)
    print("the follower saw:", ", ".join(json.loads(out)))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "follow":
        follow(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) > 1 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        demo()
