"""Python's own sqlite3 module, one execute per row: the loop a Python program writes
when it has no batch of rows at hand, in one transaction. The anchor of
ObjectGraph's ctx.insert, which makes one object per call. The fetch is the
module's fetchall, as in sqlite3_bench.py."""

import time

import bench_common as common
from sqlite3_bench import CREATE, INSERT, PythonSQLite3, _connect


class PythonSQLite3Loop(PythonSQLite3):
    name = "python-sqlite3-loop"

    def insert(self, store, count):
        connection = _connect(store.path)
        connection.execute(CREATE)
        execute = connection.execute
        start = common.clock()
        execute("BEGIN")
        for i in range(count):
            b = i * 10
            execute(INSERT, (b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9))
        execute("COMMIT")
        elapsed = time.perf_counter() - start
        connection.close()
        return elapsed


if __name__ == "__main__":
    common.main(PythonSQLite3Loop())
