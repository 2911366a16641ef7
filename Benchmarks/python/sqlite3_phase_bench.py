"""Python's own sqlite3 module on the batch-insert, upsert and history workloads:
the reference of the Python binding's rows there. batch-insert: ``executemany`` of
an INSERT in one BEGIN…COMMIT into a new, empty table; upsert: ``executemany`` of
``INSERT … ON CONFLICT(a0) DO UPDATE`` on a table with a unique index of a0;
history: raw SQLite's query of the changes after the token (RawHistory.swift),
every column of every row read, on a store the binding built (not timed)."""

import sqlite3
import time

import bench_common as common
import bench_phase as phase
from sqlite3_bench import CREATE, INSERT

UPSERT = INSERT + " ON CONFLICT(a0) DO UPDATE SET " + ", ".join(f"{a} = excluded.{a}" for a in common.ATTRIBUTES[1:])
HISTORY_READ = ("SELECT c.Z_PK, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZTRANSACTIONID FROM ACHANGE c "
                "JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID WHERE t.Z_PK > ? ORDER BY c.Z_PK")


def _connect(path):
    # Transactions by hand (isolation_level=None): BEGIN and COMMIT below.
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")  # as ObjectGraph's stores
    return connection


def _write(connection, sql, rows):
    """One executemany in one transaction, timed; returns (seconds, rows changed)."""
    start = common.clock()
    connection.execute("BEGIN")
    cursor = connection.executemany(sql, rows)
    connection.execute("COMMIT")
    return time.perf_counter() - start, cursor.rowcount


class PythonSQLite3Phases:
    name = "python-sqlite3"
    table = "item"
    columns = common.ATTRIBUTES
    about = f"{common.PYTHON}, sqlite3 module on SQLite {sqlite3.sqlite_version}"

    def prepare_batch_insert(self, path, sizes):
        pass  # every run makes its own empty table

    def run_batch_insert(self, path, sizes):
        common.remove_store(path)
        connection = _connect(path)
        connection.execute(CREATE)
        elapsed, count = _write(connection, INSERT, phase.items(range(sizes.batch_insert_rows)))
        connection.close()
        return elapsed, count, 0

    def prepare_upsert(self, path, sizes):
        connection = _connect(phase.template_path(path))
        connection.execute(CREATE)
        connection.execute("BEGIN")
        connection.execute(f"INSERT INTO item (id, {', '.join(common.ATTRIBUTES)}) {phase.item_source(sizes.batch_rows)}")
        connection.execute("COMMIT")
        connection.execute("CREATE UNIQUE INDEX item_a0 ON item(a0)")
        connection.close()

    def run_upsert(self, path, sizes):
        phase.restore(path)
        connection = _connect(path)
        elapsed, count = _write(connection, UPSERT, phase.items(sizes.upsert_range))
        connection.close()
        return elapsed, count, 0

    def prepare_history(self, path, sizes):
        try:
            from og_phase_bench import prepare_history_store  # the binding builds the store
        except ImportError as error:
            common.skip(f"history needs the ObjectGraph binding to build its store ({error})")
        _, self._after = prepare_history_store(path, sizes)

    def run_history(self, path, sizes):
        connection = sqlite3.connect(path, isolation_level=None)
        start = common.clock()
        inserts = keys = 0
        # The module makes every column of a row a Python int; the row is unpacked whole.
        for change, kind, entity, key, transaction in connection.execute(HISTORY_READ, (self._after,)):
            if kind == 0:
                inserts += 1
            keys += key
        elapsed = time.perf_counter() - start
        connection.close()
        return elapsed, inserts, keys


if __name__ == "__main__":
    phase.main(PythonSQLite3Phases())
