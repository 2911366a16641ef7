"""A Binary store's save writes a temporary file beside the store and renames it
over the store. A writer killed in between leaves that file behind: the next
open of the store removes it, and the store holds the last save that finished."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import objectgraph as og

from conftest import BINDING

WRITER = textwrap.dedent(
    """
    import sys
    import objectgraph as og

    m = og.Model()
    m.add_entity("Book").add_attribute("title", "string")
    with og.Coordinator(m) as coordinator:
        coordinator.add_store("Binary", sys.argv[1])
        with og.Context(coordinator) as ctx:
            round = 0
            while True:
                round += 1
                for _ in range(200):
                    ctx.insert("Book", title=str(round) * 4000)
                ctx.save()
                print(round, flush=True)
    """
)


def leftovers(directory) -> list:
    return sorted(name for name in os.listdir(directory) if ".tmp-" in name)


def test_temporary_files_of_a_killed_save_are_removed_at_the_next_open(tmp_path) -> None:
    path = tmp_path / "books.binary"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(BINDING)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    left = []
    for _ in range(20):  # each try kills the writer while a temporary file is there
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], env=env, stdout=subprocess.PIPE, text=True)
        try:
            assert writer.stdout is not None
            assert writer.stdout.readline().strip() == "1"  # one save finished
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not leftovers(tmp_path):
                time.sleep(0.0005)
            writer.send_signal(signal.SIGKILL)
        finally:
            writer.wait()
        left = leftovers(tmp_path)
        if left:
            break
    assert left, "no kill caught a save between its write and its rename"
    assert left == [f"books.binary.tmp-{writer.pid}"]
    model = og.Model()
    model.add_entity("Book").add_attribute("title", "string")
    with og.Coordinator(model) as coordinator:
        coordinator.add_store("Binary", path)
        assert leftovers(tmp_path) == []
        with og.Context(coordinator) as ctx:
            count = ctx.count("Book")
            assert count > 0 and count % 200 == 0  # whole saves only
            ctx.insert("Book", title="after")
            ctx.save()
    assert leftovers(tmp_path) == []
