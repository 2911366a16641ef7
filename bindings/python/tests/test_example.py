"""The quickstart a newcomer reads first runs and prints what it promises."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import BINDING, REPO

QUICKSTART = REPO / "examples" / "python" / "quickstart.py"


def run_quickstart(*args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(BINDING) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run(
        [sys.executable, str(QUICKSTART), *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_quickstart(tmp_path) -> None:
    path = tmp_path / "books.sqlite"
    lines = run_quickstart(str(path)).splitlines()
    assert lines[0] == f"store SQLite at {path}"
    assert re.fullmatch(r"temporary ID: x-coredata:///Book/t\S+", lines[1])
    assert re.fullmatch(r"permanent ID: x-coredata://[0-9A-Fa-f-]{36}/Book/p\d+", lines[2])
    assert lines[3] == lines[0]
    assert [line.split() for line in lines[4:7]] == [
        "1987 Mort by Terry Pratchett".split(),
        "1981 Strata by Terry Pratchett".split(),
        "1974 The Dispossessed by Ursula K. Le Guin".split(),
    ]
    assert lines[7] == "Terry Pratchett: 2 book(s): Mort, Strata"
    assert lines[8] == "Ursula K. Le Guin: 1 book(s): The Dispossessed"
    assert lines[9] == "before 1985 by Terry: Strata"
    assert lines[10].startswith("error 140005: ") and "colour" in lines[10]
    assert len(lines) == 11
    assert path.exists()

    # A second run starts over from an empty store.
    assert run_quickstart(str(path)).splitlines()[4:9] == lines[4:9]


def test_quickstart_without_arguments_uses_a_temporary_file() -> None:
    assert "Terry Pratchett: 2 book(s)" in run_quickstart()


def test_quickstart_is_short() -> None:
    assert len(QUICKSTART.read_text().splitlines()) < 80
