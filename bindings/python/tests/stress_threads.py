"""Threads writing and reading through every fast path of the binding at once.

Each worker thread has its own contexts: private-queue contexts on the shared
coordinator, confinement contexts made on the thread, and (for some workers) a
coordinator of its own over the same file. A worker inserts objects whose every
value is a function of (worker, sequence number, version), through keyword
inserts (all-integer and mixed), attribute writes and typed setters; saves;
reads them back through bulk column reads, typed getters, string buffers and
relationships; updates some; and checks each value it reads against what it
wrote. At the end every stored row is checked against the function, so a value
another thread wrote shows as an exchange.

tests/test_threads.py runs a short version; scripts/stress-python-threads.sh a
long one (``python3 bindings/python/tests/stress_threads.py --help``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import decimal
import os
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

if __name__ == "__main__":  # run from a checkout: the package beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import objectgraph as og  # noqa: E402

EPOCH_2020 = _dt.datetime(2020, 1, 1, tzinfo=_dt.timezone.utc)
# Longer than the binding's string buffer (objects.py reads longer text another way).
LONG = 300


def build_model() -> og.Model:
    model = og.Model()
    item = model.add_entity("Item")
    for name, kind in (("tag", "integer64"), ("seq", "integer64"), ("version", "integer64"), ("i16", "integer16"),
                       ("i32", "integer32"), ("i64", "integer64"), ("dbl", "double"), ("flt", "float"),
                       ("text", "string"), ("long_text", "string"), ("flag", "boolean"), ("when", "date"),
                       ("amount", "decimal"), ("blob", "binary"), ("ident", "uuid"), ("link", "uri"),
                       ("extra", "transformable")):
        item.add_attribute(name, kind)
    owner = model.add_entity("Owner")
    owner.add_attribute("tag", "integer64")
    owner.add_attribute("first", "integer64")  # the seq of its first item
    item.add_relationship("owner", "Owner")
    owner.add_relationship("items", "Item", to_many=True, inverse="owner")
    return model


def integers(tag: int, seq: int, version: int) -> Dict[str, int]:
    """The integer attributes of one object: set by keyword inserts and bulk-read."""
    return {"tag": tag, "seq": seq, "version": version, "i16": (tag * 97 + seq + version) % 32_000 - 16_000,
            "i32": tag * 1_000_003 + seq * 7 + version, "i64": (tag << 40) + (seq << 8) + version}


def others(tag: int, seq: int, version: int) -> Dict[str, Any]:
    """Every other attribute of the object."""
    key = f"{tag}.{seq}.{version}"
    return {
        "dbl": tag + seq / 1024 + version / 8,
        "flt": float(tag * 4 + version),  # exact in a float
        "text": f"t{key}",
        "long_text": (key + "|") * (LONG // (len(key) + 1) + 1),
        "flag": (tag + seq + version) % 2 == 0,
        "when": EPOCH_2020 + _dt.timedelta(seconds=tag * 100_000 + seq * 10 + version),
        "amount": decimal.Decimal(f"{tag}.{seq:06d}{version}"),
        "blob": key.encode() * 3,
        "ident": uuid.UUID(int=(tag << 96) + (seq << 32) + version),
        "link": f"https://example.org/{key}",
        "extra": {"key": key, "list": [tag, seq, version]},
    }


def expected(tag: int, seq: int, version: int) -> Dict[str, Any]:
    return {**integers(tag, seq, version), **others(tag, seq, version)}


@dataclass
class Report:
    """What the run did and every difference it found."""

    inserted: int = 0
    updated: int = 0
    checked: int = 0
    exchanged: List[str] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def mismatch(self, where: str, tag: int, seq: int, key: str, got: Any, want: Any) -> None:
        with self.lock:
            if len(self.exchanged) < 20:
                self.exchanged.append(f"{where}: object {tag}.{seq} {key} = {got!r}, expected {want!r}")
            else:
                self.exchanged.append("")

    def add(self, **counts: int) -> None:
        with self.lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)


def compare(report: Report, where: str, obj: og.ManagedObject, version: int, tag: int) -> None:
    """Reads every attribute of ``obj`` by every reader and compares it with what
    ``tag`` wrote."""
    seq = obj.seq
    if obj.tag != tag:
        report.mismatch(where, tag, seq, "tag", obj.tag, tag)
        return
    want = expected(tag, seq, version)
    for key, value in want.items():
        got = obj[key]
        if got != value:
            report.mismatch(where, tag, seq, key, got, value)
    # The typed getters, each with its own buffer path.
    typed = (("i64", obj.get_int64), ("dbl", obj.get_double), ("flag", obj.get_bool), ("text", obj.get_string),
             ("long_text", obj.get_string), ("blob", obj.get_data), ("when", obj.get_date))
    for key, getter in typed:
        got = getter(key)
        if got != want[key]:
            report.mismatch(where + " (typed)", tag, seq, key, got, want[key])
    report.add(checked=1)


def insert_batch(ctx: og.Context, tag: int, start: int, count: int, version: int, style: int) -> List[og.ManagedObject]:
    """Inserts ``count`` objects; ``style`` picks the path their values take."""
    made = []
    for seq in range(start, start + count):
        ints, rest = integers(tag, seq, version), others(tag, seq, version)
        if style == 0:  # every integer by keyword (one packed call), the rest by attribute
            obj = ctx.insert("Item", **ints)
            for key, value in rest.items():
                obj[key] = value
        elif style == 1:  # every value by keyword: integers packed among other types
            obj = ctx.insert("Item", **ints, **rest)
        else:  # attribute writes and typed setters, one by one
            obj = ctx.insert("Item")
            for key, value in ints.items():
                setattr(obj, key, value)
            obj.set_double("dbl", rest.pop("dbl"))
            obj.set_string("text", rest.pop("text"))
            obj.set_bool("flag", rest.pop("flag"))
            obj.set_data("blob", rest.pop("blob"))
            obj.set_date("when", rest.pop("when"))
            for key, value in rest.items():
                obj[key] = value
        made.append(obj)
    return made


def check_stored(report: Report, ctx: og.Context, tag: int, versions: Dict[int, int], where: str) -> None:
    """Fetches ``tag``'s objects (bulk column reads for large results) and checks each,
    then the dictionaries and single values fetched for them."""
    objects = ctx.fetch("Item", "tag == %@", tag, sort=["seq"])
    if len(objects) != len(versions):
        report.mismatch(where, tag, -1, "count", len(objects), len(versions))
    for obj in objects:
        compare(report, where, obj, versions.get(obj.seq, -1), tag)
    for row in ctx.fetch_dicts("Item", "tag == %@", tag, properties=["seq", "i64", "text"]):
        want = expected(tag, row["seq"], versions.get(row["seq"], -1))
        for key in ("i64", "text"):
            if row[key] != want[key]:
                report.mismatch(where + " (dicts)", tag, row["seq"], key, row[key], want[key])


class Worker:
    """One thread's share of the work."""

    def __init__(self, report: Report, coordinator: og.Coordinator, tag: int, path: str, model: og.Model,
                 objects: int, batch: int, private: bool, own_coordinator: bool) -> None:
        self.report, self.tag, self.objects, self.batch = report, tag, objects, batch
        self.private, self.path, self.model = private, path, model
        self.coordinator = coordinator
        self.own_coordinator = own_coordinator
        self.versions: Dict[int, int] = {}

    def run(self) -> None:
        try:
            if self.own_coordinator:
                coordinator = og.Coordinator(self.model)
                coordinator.add_store("SQLite", self.path)
                with coordinator:
                    self.work(coordinator)
            else:
                self.work(self.coordinator)
        except BaseException as error:  # reported, so that the run fails with it
            with self.report.lock:
                self.report.errors.append(f"worker {self.tag}: {type(error).__name__}: {error}")

    def on_context(self, ctx: og.Context, fn: Callable[[], Any]) -> Any:
        return ctx.perform_and_wait(fn) if self.private else fn()

    def new_context(self, coordinator: og.Coordinator) -> og.Context:
        ctx = og.Context(coordinator, concurrency="private" if self.private else "confinement")
        self.on_context(ctx, lambda: setattr(ctx, "merge_policy", "overwrite"))
        return ctx

    def work(self, coordinator: og.Coordinator) -> None:
        tag, done, style = self.tag, 0, self.tag
        writer = self.new_context(coordinator)
        with writer:
            while done < self.objects:
                count = min(self.batch, self.objects - done)

                def insert() -> None:
                    # One owner per batch, so that its to-many stays small.
                    owner = writer.insert("Owner", tag=tag, first=done)
                    made = insert_batch(writer, tag, done, count, 0, style % 3)
                    owner.items.update(made)
                    # Read back at once, before the save: the values come from the context.
                    for obj in made[:: max(1, count // 16)]:
                        compare(self.report, "inserted", obj, 0, tag)
                    writer.save()

                self.on_context(writer, insert)
                self.versions.update((seq, 0) for seq in range(done, done + count))
                self.report.add(inserted=count)
                done += count
                style += 1
            self.update_some(coordinator)
        reader = self.new_context(coordinator)
        with reader:
            self.on_context(reader, lambda: self.check_all(reader))

    def update_some(self, coordinator: og.Coordinator) -> None:
        """Rewrites every third object with version 1, through a fresh context's fetch."""
        tag = self.tag
        updater = self.new_context(coordinator)
        with updater:
            def update() -> None:
                changed = 0
                for obj in updater.fetch("Item", "tag == %@", tag):
                    if obj.seq % 3:
                        continue
                    for key, value in expected(tag, obj.seq, 1).items():
                        if key not in ("tag", "seq"):
                            obj[key] = value
                    changed += 1
                updater.save()
                self.report.add(updated=changed)

            self.on_context(updater, update)
        self.versions.update((seq, 1) for seq in range(0, self.objects, 3))

    def check_all(self, ctx: og.Context) -> None:
        check_stored(self.report, ctx, self.tag, self.versions, "refetched")
        seen = 0
        for owner in ctx.fetch("Owner", "tag == %@", self.tag):
            members = sorted(obj.seq for obj in owner.items if obj.tag == self.tag)
            first = owner.first
            want = list(range(first, min(first + self.batch, self.objects)))
            if members != want:
                self.report.mismatch("relationship", self.tag, first, "items", members[:3], want[:3])
            seen += len(members)
        if seen != len(self.versions):
            self.report.mismatch("relationship", self.tag, -1, "items in all", seen, len(self.versions))


def run(path: str, threads: int = 4, objects: int = 500, batch: int = 100, separate: int = 1) -> Report:
    """Runs ``threads`` workers of ``objects`` objects each over the SQLite file ``path``
    (the last ``separate`` workers on coordinators of their own); checks every stored row
    at the end, from a new coordinator."""
    model = build_model()
    report = Report()
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", path)
    workers = [Worker(report, coordinator, tag, path, model, objects, batch, private=tag % 2 == 1,
                      own_coordinator=tag > threads - separate) for tag in range(1, threads + 1)]
    started = [threading.Thread(target=w.run, name=f"stress-{w.tag}") for w in workers]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    coordinator.close()
    final = og.Coordinator(model)
    final.add_store("SQLite", path)
    with final, og.Context(final) as ctx:
        for worker in workers:
            check_stored(report, ctx, worker.tag, worker.versions, "at the end")
        total = ctx.count("Item")
        if total != threads * objects:
            report.mismatch("at the end", 0, -1, "rows", total, threads * objects)
    return report


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--objects", type=int, default=125_000, help="objects each thread inserts")
    parser.add_argument("--batch", type=int, default=1000, help="objects per save")
    parser.add_argument("--separate", type=int, default=2, help="threads with a coordinator of their own")
    parser.add_argument("--path", help="the SQLite file (default: a new temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = args.path or os.path.join(folder, "stress.sqlite")
        began = time.monotonic()
        report = run(path, args.threads, args.objects, args.batch, args.separate)
        seconds = time.monotonic() - began
    for line in report.errors + [x for x in report.exchanged if x]:
        print(line)
    print(f"{report.inserted} inserted, {report.updated} updated, {report.checked} objects checked by "
          f"{args.threads} threads in {seconds:.0f} s: {len(report.exchanged)} exchanged values, "
          f"{len(report.errors)} errors")
    return 0 if not report.exchanged and not report.errors else 1


if __name__ == "__main__":
    sys.exit(main())
