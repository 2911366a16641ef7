"""Python's own sqlite3 module: rows inserted with executemany in one transaction,
then selected back with fetchall and read as tuples. No objects: the floor of a
Python program on SQLite."""

import sqlite3
import time

import bench_common as common

CREATE = "CREATE TABLE item (id INTEGER PRIMARY KEY, " + ", ".join(f"{a} INTEGER" for a in common.ATTRIBUTES) + ")"
INSERT = f"INSERT INTO item ({', '.join(common.ATTRIBUTES)}) VALUES ({', '.join('?' * len(common.ATTRIBUTES))})"
SELECT = f"SELECT {', '.join(common.ATTRIBUTES)} FROM item"


def _connect(path):
    # Transactions by hand (isolation_level=None): BEGIN and COMMIT below.
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")  # as ObjectGraph's stores
    return connection


def _rows(count):
    for i in range(count):
        b = i * 10
        yield (b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9)


class PythonSQLite3:
    name = "python-sqlite3"
    insert_table = "item"
    insert_columns = common.ATTRIBUTES
    about = f"{common.PYTHON}, sqlite3 module on SQLite {sqlite3.sqlite_version}"

    def insert(self, store, count):
        connection = _connect(store.path)
        connection.execute(CREATE)
        start = common.clock()
        connection.execute("BEGIN")
        connection.executemany(INSERT, _rows(count))
        connection.execute("COMMIT")
        elapsed = time.perf_counter() - start
        connection.close()
        return elapsed

    def fetch(self, store):
        connection = _connect(store.path)
        start = common.clock()
        rows = connection.execute(SELECT).fetchall()
        total = 0
        for r in rows:
            total += r[0] + r[1] + r[2] + r[3] + r[4] + r[5] + r[6] + r[7] + r[8] + r[9]
        elapsed = time.perf_counter() - start
        count = len(rows)
        del rows  # released outside the timed block
        connection.close()
        return elapsed, total, count


if __name__ == "__main__":
    common.main(PythonSQLite3())
