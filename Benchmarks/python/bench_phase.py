"""The loop shared by the Python contenders of the one-phase workloads (update,
indexed, traversal; Benchmarks/README.md): takes the runner's flags, prepares the
store, runs the warm-up and timed runs, and prints the JSON report as the last
line of standard output.

A contender is an object with ``name``, ``about``, and for each workload it runs
a ``prepare_<workload>(path, sizes)`` and a ``run_<workload>(path, sizes) ->
(seconds, count, sum)``; the update's also has ``table`` and ``columns``.
"""

import argparse
import json
import os
import sys

import bench_common as common


class Sizes:
    """The sizes of the workloads, and what each one must find (as Sizes in Swift)."""

    def __init__(self, args):
        self.update_rows = args.update_rows
        self.update_count = max(1, args.update_rows * args.update_percent // 100)
        self.indexed_rows = args.indexed_rows
        count = max(1, args.indexed_rows * args.indexed_percent // 100)
        start = (args.indexed_rows - count) // 2
        self.indexed_range = range(start, start + count)
        self.authors = args.authors
        self.books_per_author = args.books_per_author


def title(author, book):
    """The title of book ``book`` of author ``author``, as Library.swift."""
    return f"Book {book} of author {author}"


def author_name(author):
    return f"Author {author}"


def main(contender):
    parser = argparse.ArgumentParser()
    parser.add_argument("--workload", required=True)
    for flag, default in (("--update-rows", 200_000), ("--update-percent", 10), ("--indexed-rows", 1_000_000),
                          ("--indexed-percent", 1), ("--authors", 10_000), ("--books-per-author", 20),
                          ("--n", 0), ("--fetch-rows", 0), ("--runs", 5), ("--warmup", 1)):
        parser.add_argument(flag, type=int, default=default)
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    workload, sizes = args.workload, Sizes(args)
    prepare = getattr(contender, f"prepare_{workload}", None)
    run = getattr(contender, f"run_{workload}", None)
    if prepare is None or run is None:
        common.skip(f"no {workload} workload")

    path = os.path.join(args.dir, f"{contender.name}-{workload}.sqlite")
    common.remove_store(path)
    prepare(path, sizes)
    report = {"seconds": [], "counts": [], "sums": [], "total_runs": args.warmup + args.runs}
    if getattr(contender, "about", None):
        report["about"] = contender.about
    for i in range(args.warmup + args.runs):
        seconds, count, total = run(path, sizes)
        label = "warm-up" if i < args.warmup else f"run {i - args.warmup + 1}/{args.runs}"
        print(f"{contender.name}: {workload}: {label}: {seconds * 1e3:.1f} ms, {count} objects",
              file=sys.stderr, flush=True)
        if i >= args.warmup:
            report["seconds"].append(seconds)
            report["counts"].append(count)
            report["sums"].append(total)
    if workload == "update":
        report.update(file=path, table=contender.table, columns=contender.columns)
    else:
        common.remove_store(path)
    print(json.dumps(report))
