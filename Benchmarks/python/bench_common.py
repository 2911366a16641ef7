"""The loop shared by the Python contenders: takes the runner's flags, prepares the
fetch store, runs the warm-up and timed runs, and prints the JSON report
(Benchmarks/README.md, "The report") as the last line of standard output.

A contender is a module-level object with ``name``, ``insert_table``,
``insert_columns``, ``insert(store, count) -> seconds`` and
``fetch(store) -> (seconds, sum, count)``; each times only its own work. ``store``
is a Store: main's are SQLite files in ``--dir``; with ``--workload postgres`` (a
contender with ``postgres = True``) they are schemas of the database at
$OBJECTGRAPH_BENCH_POSTGRES_URL, named as Workloads/PostgresWorkload.swift names
them: ``ogbench_<name>_fetch``, and ``ogbench_<name>_insert_<run>`` for each run's
insert (run from 1, warm-up first; ``-`` in the name spelled ``_``), which the
runner drops before and after the program. ``postgres_name``, when set, is the
contender's name in that workload. An optional ``about`` string (versions) is
printed under the table, or ``describe(workload)`` gives it; an optional
``unavailable(workload)`` returns why the contender cannot run it here (its row
then says "skipped"), or None.
"""

import argparse
import gc
import json
import os
import platform
import sys
import time
from typing import NamedTuple, Optional

ATTRIBUTES = [f"a{k}" for k in range(10)]
PYTHON = f"Python {platform.python_version()}"
POSTGRES_URL_VARIABLE = "OBJECTGRAPH_BENCH_POSTGRES_URL"


class Store(NamedTuple):
    """Where a store is: ``type`` is ObjectGraph's store type ("SQLite" or
    "PostgreSQL"), ``path`` the file or the server's libpq URL, and ``schema``
    the PostgreSQL schema holding the tables (None for a file)."""
    type: str
    path: str
    schema: Optional[str] = None


def clock():
    """A clean start for a timed block: garbage from earlier runs collected first."""
    gc.collect()
    return time.perf_counter()


def remove_store(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass


def skip(reason):
    """Reports that this contender cannot run here (a missing optional package)."""
    print(json.dumps({"skipped": reason}))
    sys.exit(0)


def _stores(contender, workload, directory):
    """The fetch store and a function giving the store of each run's insert (run from 0)."""
    if workload == "postgres":
        url = os.environ.get(POSTGRES_URL_VARIABLE)
        if not url:
            skip(f"no PostgreSQL server: {POSTGRES_URL_VARIABLE} is not set")
        prefix = "ogbench_" + getattr(contender, "postgres_name", contender.name).replace("-", "_") + "_"
        return (Store("PostgreSQL", url, prefix + "fetch"),
                lambda run: Store("PostgreSQL", url, f"{prefix}insert_{run + 1}"))
    insert = Store("SQLite", os.path.join(directory, f"{contender.name}-insert.sqlite"))
    return Store("SQLite", os.path.join(directory, f"{contender.name}-fetch.sqlite")), lambda run: insert


def _clear(store):
    """A file is removed before it is made again; a schema is new (the runner drops them)."""
    if store.schema is None:
        remove_store(store.path)


def main(contender):
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--fetch-rows", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--workload", default="main", choices=("main", "postgres"))
    args = parser.parse_args()

    workload = args.workload
    if workload == "postgres" and not getattr(contender, "postgres", False):
        skip("no postgres workload")
    unavailable = getattr(contender, "unavailable", None)
    reason = unavailable(workload) if unavailable else None
    if reason:
        skip(reason)
    name = contender.name
    fetch_store, insert_store = _stores(contender, workload, args.dir)
    _clear(fetch_store)
    contender.insert(fetch_store, args.fetch_rows)  # preparation, not timed

    report = {"insert_seconds": [], "fetch_seconds": [], "fetch_sums": [], "fetch_counts": [],
              "insert_table": contender.insert_table, "insert_columns": contender.insert_columns}
    describe = getattr(contender, "describe", None)
    about = describe(workload) if describe else getattr(contender, "about", None)
    if about:
        report["about"] = about
    for run in range(args.warmup + args.runs):
        store = insert_store(run)
        _clear(store)
        t_insert = contender.insert(store, args.n)
        t_fetch, total, count = contender.fetch(fetch_store)
        label = "warm-up" if run < args.warmup else f"run {run - args.warmup + 1}/{args.runs}"
        print(f"{name}: {label}: insert {t_insert * 1e3:.1f} ms, fetch {t_fetch * 1e3:.1f} ms",
              file=sys.stderr, flush=True)
        if run >= args.warmup:
            report["insert_seconds"].append(t_insert)
            report["fetch_seconds"].append(t_fetch)
            report["fetch_sums"].append(total)
            report["fetch_counts"].append(count)
    _clear(fetch_store)  # the last insert's store stays for the runner's check
    last = insert_store(args.warmup + args.runs - 1)
    if last.schema is None:
        report["insert_file"] = last.path
    else:
        report["insert_schema"] = last.schema
    print(json.dumps(report))
