"""The loop shared by the Python contenders of the one-phase workloads (update,
indexed, traversal, batch-insert, batch-update, batch-delete, upsert, history;
Benchmarks/README.md): takes the runner's flags, prepares the store, runs the
warm-up and timed runs, and prints the JSON report as the last line of standard
output.

A contender is an object with ``name``, ``about``, and for each workload it runs
a ``prepare_<workload>(path, sizes)`` and a ``run_<workload>(path, sizes) ->
(seconds, count, sum)`` (``-`` in the workload's name spelled ``_``); one that
writes also has ``table`` and ``columns``, naming where its items are for the
runner's check of the store. In history, a contender with a
``history_insert(path, count, tracking) -> seconds`` (main's insert of ``--n``
objects into a new store, history tracking on or off) has both inserts timed in
every run before the read.
"""

import argparse
import json
import os
import shutil
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
        self.batch_rows = args.batch_rows
        self.batch_insert_rows = args.batch_insert_rows
        upsert_start = max(0, args.batch_rows - args.batch_insert_rows // 2)
        self.upsert_range = range(upsert_start, upsert_start + args.batch_insert_rows)
        self.history_changes = args.history_changes
        self.n = args.n


# history: the items of each saved transaction of the read store (Sizes.historyTransaction).
HISTORY_TRANSACTION = 1000


# The workloads that write: their store stays for the runner's check (StoreCheck.swift).
CHECKS_STORE = {"update", "batch-insert", "batch-update", "batch-delete", "upsert"}

# batch-update: the value every a9 is set to (Sizes.batchUpdateValue in Swift).
BATCH_UPDATE_VALUE = -1


def items(numbers):
    """Main's items ``i`` in ``numbers`` as rows of a0…a9 (a_k = i*10 + k)."""
    for i in numbers:
        b = i * 10
        yield (b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9)


def item_source(rows):
    """The SELECT producing ``rows`` items: the row number (1…rows), then a0…a9 (as ItemFill.swift)."""
    values = ", ".join(f"(value - 1) * 10 + {k}" for k in range(10))
    return (f"WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < {rows}) "
            f"SELECT value, {values} FROM n")


def template_path(path):
    """batch-delete and upsert change their store for good: every run starts from a
    copy of a template built once, ``…-template.sqlite`` beside the store."""
    return path[:-len(".sqlite")] + "-template.sqlite" if path.endswith(".sqlite") else path + "-template.sqlite"


def restore(path):
    """Replaces the store with a copy of its template (closed: its file and any log left)."""
    common.remove_store(path)
    template = template_path(path)
    for suffix in ("", "-wal"):
        if os.path.exists(template + suffix):
            shutil.copyfile(template + suffix, path + suffix)


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
                          ("--batch-rows", 200_000), ("--batch-insert-rows", 50_000), ("--history-changes", 100_000),
                          ("--n", 50_000), ("--fetch-rows", 0), ("--runs", 5), ("--warmup", 1)):
        parser.add_argument(flag, type=int, default=default)
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    workload, sizes = args.workload, Sizes(args)
    method = workload.replace("-", "_")
    prepare = getattr(contender, f"prepare_{method}", None)
    run = getattr(contender, f"run_{method}", None)
    if prepare is None or run is None:
        common.skip(f"no {workload} workload")

    path = os.path.join(args.dir, f"{contender.name}-{workload}.sqlite")
    common.remove_store(path)
    common.remove_store(template_path(path))
    prepare(path, sizes)
    report = {"seconds": [], "counts": [], "sums": [], "total_runs": args.warmup + args.runs}
    if getattr(contender, "about", None):
        report["about"] = contender.about
    inserts = getattr(contender, "history_insert", None) if workload == "history" else None
    off_path = os.path.join(args.dir, f"{contender.name}-history-off.sqlite")
    on_path = os.path.join(args.dir, f"{contender.name}-history-on.sqlite")
    if inserts:
        report.update(insert_seconds=[], history_insert_seconds=[])
    for i in range(args.warmup + args.runs):
        note = ""
        if inserts:
            # Main's insert without and with history, each into a new store; which goes
            # first alternates from run to run (as HistoryInserts in PhaseWorker.swift).
            if i % 2 == 0:
                off, on = inserts(off_path, args.n, False), inserts(on_path, args.n, True)
            else:
                on = inserts(on_path, args.n, True)
                off = inserts(off_path, args.n, False)
            note = f"; insert, history off {off * 1e3:.1f} ms, on {on * 1e3:.1f} ms"
        seconds, count, total = run(path, sizes)
        label = "warm-up" if i < args.warmup else f"run {i - args.warmup + 1}/{args.runs}"
        print(f"{contender.name}: {workload}: {label}: {seconds * 1e3:.1f} ms, {count} objects{note}",
              file=sys.stderr, flush=True)
        if i >= args.warmup:
            report["seconds"].append(seconds)
            report["counts"].append(count)
            report["sums"].append(total)
            if inserts:
                report["insert_seconds"].append(off)
                report["history_insert_seconds"].append(on)
    common.remove_store(template_path(path))
    if workload in CHECKS_STORE:
        report.update(file=path, table=contender.table, columns=contender.columns)
    else:
        common.remove_store(path)
    if inserts:
        # The stores of the last inserts stay for the runner's check (HistoryChecks.swift).
        report.update(insert_file=off_path, history_insert_file=on_path, table=contender.table,
                      columns=contender.columns)
    print(json.dumps(report))
