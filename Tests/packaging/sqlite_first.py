"""Run by the wheel test with the dynamic loader's binding trace on
(LD_DEBUG=bindings): Python's sqlite3 module loads the system's SQLite first,
then ObjectGraph saves and fetches through an SQLite store. The test reads the
trace: every SQLite function ObjectGraph calls must come from the copy in the
wheel. Prints the two SQLite versions and the library files mapped.

    python sqlite_first.py DIR
"""

import sqlite3
import sys

connection = sqlite3.connect(":memory:")
system_version = connection.execute("select sqlite_version()").fetchone()[0]

import objectgraph as og  # noqa: E402  (after sqlite3 on purpose)

model = og.Model()
note = model.add_entity("Note")
note.add_attribute("text", "string")
coordinator = og.Coordinator(model)
coordinator.add_store("SQLite", f"{sys.argv[1]}/notes.sqlite")
context = og.Context(coordinator)
context.insert("Note", text="private")
context.save()
assert [n.text for n in context.fetch("Note")] == ["private"]

with open("/proc/self/maps") as maps:
    mapped = sorted({line.split()[-1] for line in maps if "libsqlite3" in line})
print(f"python's sqlite3: {system_version}")
print("sqlite libraries mapped:", ", ".join(mapped))
