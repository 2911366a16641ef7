"""The loop shared by the Python contenders: takes the runner's flags, prepares the
fetch store, runs the warm-up and timed runs, and prints the JSON report
(Benchmarks/README.md, "The report") as the last line of standard output.

A contender is a module-level object with ``name``, ``insert_table``,
``insert_columns``, ``insert(path, count) -> seconds`` and
``fetch(path) -> (seconds, sum, count)``; each times only its own work. An
optional ``about`` string (versions) is printed under the table.
"""

import argparse
import gc
import json
import os
import platform
import sys
import time

ATTRIBUTES = [f"a{k}" for k in range(10)]
PYTHON = f"Python {platform.python_version()}"


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


def main(contender):
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--fetch-rows", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()

    name = contender.name
    fetch_path = os.path.join(args.dir, f"{name}-fetch.sqlite")
    insert_path = os.path.join(args.dir, f"{name}-insert.sqlite")
    remove_store(fetch_path)
    contender.insert(fetch_path, args.fetch_rows)  # preparation, not timed

    report = {"insert_seconds": [], "fetch_seconds": [], "fetch_sums": [], "fetch_counts": [],
              "insert_file": insert_path, "insert_table": contender.insert_table,
              "insert_columns": contender.insert_columns}
    if getattr(contender, "about", None):
        report["about"] = contender.about
    for run in range(args.warmup + args.runs):
        remove_store(insert_path)
        t_insert = contender.insert(insert_path, args.n)
        t_fetch, total, count = contender.fetch(fetch_path)
        label = "warm-up" if run < args.warmup else f"run {run - args.warmup + 1}/{args.runs}"
        print(f"{name}: {label}: insert {t_insert * 1e3:.1f} ms, fetch {t_fetch * 1e3:.1f} ms",
              file=sys.stderr, flush=True)
        if run >= args.warmup:
            report["insert_seconds"].append(t_insert)
            report["fetch_seconds"].append(t_fetch)
            report["fetch_sums"].append(total)
            report["fetch_counts"].append(count)
    remove_store(fetch_path)  # the insert file stays for the runner's check
    print(json.dumps(report))
