"""The "PostgreSQL" store type (docs/postgres.md) against the server the test
command starts (OBJECTGRAPH_TEST_POSTGRES_URL; skipped without one): add_store
with a URL and a schema, values and relationships, fetches, conflicts between
coordinators, remote changes, metadata without a stack, migration to and from
SQLite, and clear errors that never show the password."""

from __future__ import annotations

import datetime
import decimal
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Iterator, Tuple

import pytest

import objectgraph as og

URL = os.environ.get("OBJECTGRAPH_TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.skipif(not URL, reason="no PostgreSQL test server (OBJECTGRAPH_TEST_POSTGRES_URL is unset)")


def password() -> str:
    match = re.match(r"postgresql://[^:@/]+:([^@]+)@", URL)
    assert match, "the test server's URL carries a password"
    return match.group(1)


@pytest.fixture
def schema() -> str:
    """A schema of its own for each test: the store creates it."""
    return "py_" + uuid.uuid4().hex[:16]


def library_model() -> og.Model:
    model = og.Model()
    author = model.add_entity("Author")
    author.add_attribute("name", "string", optional=False)
    book = model.add_entity("Book")
    book.add_attribute("title", "string", optional=False)
    book.add_attribute("pages", "integer32", default=0)
    book.add_attribute("price", "decimal")
    book.add_attribute("published", "date")
    book.add_attribute("cover", "binary")
    book.add_attribute("isbn", "uuid")
    book.add_attribute("rating", "double")
    books = author.add_relationship("books", book, to_many=True, delete_rule="cascade")
    books.inverse = book.add_relationship("author", author)
    return model


def open_store(model: og.Model, schema: str, **options: Any) -> Tuple[og.Coordinator, og.Context]:
    coordinator = og.Coordinator(model)
    coordinator.add_store("PostgreSQL", URL, schema=schema, **options)
    return coordinator, og.Context(coordinator)


def test_values_and_relationships_round_trip(schema: str) -> None:
    model = library_model()
    coordinator, ctx = open_store(model, schema)
    store = coordinator.stores[0]
    assert store.type == "PostgreSQL" and "PostgreSQL" in og.registered_store_types()
    assert store.path.startswith("postgresql://") and password() not in store.path
    author = ctx.insert("Author", name="Ursula")
    when = datetime.datetime(2001, 9, 9, 1, 46, 40, 123456, tzinfo=datetime.timezone.utc)
    isbn = uuid.uuid4()
    ctx.insert("Book", title="Earthsea 'one' \u00e9", pages=205, price=decimal.Decimal("12.50"), published=when,
               cover=b"\x00\x01\xff", isbn=isbn, rating=0.1 + 0.2, author=author)
    ctx.insert("Book", title="Lathe", pages=184, author=author)
    ctx.save()
    ctx.close()
    coordinator.close()

    coordinator, ctx = open_store(model, schema)
    (book,) = ctx.fetch("Book", "pages > %@ AND title BEGINSWITH 'E'", 200)
    assert book.title == "Earthsea 'one' \u00e9" and book.pages == 205
    assert book.price == decimal.Decimal("12.50") and book.published == when
    assert book.cover == b"\x00\x01\xff" and book.isbn == isbn and book.rating == 0.1 + 0.2
    assert sorted(b.title for b in book.author.books) == ["Earthsea 'one' \u00e9", "Lathe"]
    assert [b.title for b in ctx.fetch("Book", sort=["-pages"])] == ["Earthsea 'one' \u00e9", "Lathe"]
    assert ctx.count("Book", "title CONTAINS[cd] 'earthsea'") == 1
    # [cd] against a constant narrows on the server; memory decides what remains.
    plan = ctx.explain("Book", "title CONTAINS[cd] 'earthsea'")
    assert "octet_length" in plan and "filtered in memory: yes" in plan
    assert [b.title for b in ctx.fetch("Book", "title BEGINSWITH[c] 'LATH'")] == ["Lathe"]
    # MATCHES narrows by its pattern's literal prefix; memory decides.
    assert "starts_with" in ctx.explain("Book", "title MATCHES 'Lat.e'")
    assert [b.title for b in ctx.fetch("Book", "title MATCHES 'Lat.e'")] == ["Lathe"]
    ctx.close()
    coordinator.close()


def test_conflicts_between_coordinators(schema: str) -> None:
    model = library_model()
    c1, first = open_store(model, schema)
    first.insert("Book", title="Shared", pages=1)
    first.save()
    c2, second = open_store(model, schema)
    (theirs,) = second.fetch("Book")
    (mine,) = first.fetch("Book")
    theirs.pages = 2
    second.save()
    mine.pages = 3
    with pytest.raises(og.MergeConflictError) as caught:
        first.save()
    assert caught.value.code == 133020 and caught.value.conflicts
    assert first.has_changes
    first.merge_policy = og.MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP
    first.save()
    second.refresh_all_objects()
    assert theirs.pages == 3
    for ctx, coordinator in ((first, c1), (second, c2)):
        ctx.close()
        coordinator.close()


def test_remote_change_reaches_every_coordinator(schema: str) -> None:
    model = library_model()
    watcher, _ = open_store(model, schema, remote_change_notifications=True)
    arrived = threading.Event()
    observer = watcher.observe("remote_change", lambda n: arrived.set())
    writer_coordinator, writer = open_store(model, schema)
    writer.insert("Author", name="Heard")
    started = time.monotonic()
    writer.save()
    assert arrived.wait(2) and time.monotonic() - started < 1
    observer.remove()
    writer.close()
    writer_coordinator.close()
    watcher.close()


def test_metadata_without_a_stack_and_migration_both_ways(schema: str, tmp_path: Path) -> None:
    model = library_model()
    coordinator = og.Coordinator(model)
    sqlite_store = coordinator.add_store("SQLite", str(tmp_path / "books.sqlite"))
    ctx = og.Context(coordinator)
    author = ctx.insert("Author", name="Octavia")
    for n in range(5):
        ctx.insert("Book", title=f"Book {n}", pages=n * 10, author=author)
    ctx.save()
    postgres = coordinator.migrate_store(sqlite_store, URL, "PostgreSQL", options={og.POSTGRESQL_SCHEMA_OPTION: schema})
    assert postgres.type == "PostgreSQL"
    metadata = og.Coordinator.metadata_for_store(URL, type="PostgreSQL", options={og.POSTGRESQL_SCHEMA_OPTION: schema})
    assert metadata["NSStoreUUID"] == postgres.uuid and metadata["NSStoreType"] == "PostgreSQL"
    og.Coordinator.set_metadata_for_store(URL, dict(metadata, colour="blue"), type="PostgreSQL",
                                          options={og.POSTGRESQL_SCHEMA_OPTION: schema})
    assert og.Coordinator.metadata_for_store(URL, type="PostgreSQL", options={og.POSTGRESQL_SCHEMA_OPTION: schema})["colour"] == "blue"
    fresh = og.Context(coordinator)
    assert [b.pages for b in fresh.fetch("Book", sort=["title"])] == [0, 10, 20, 30, 40]
    back = coordinator.migrate_store(postgres, str(tmp_path / "back.sqlite"), "SQLite")
    assert back.type == "SQLite"
    assert sorted(b.title for b in og.Context(coordinator).fetch("Book")) == [f"Book {n}" for n in range(5)]
    coordinator.close()


def test_errors_are_clear_and_never_show_the_password(schema: str) -> None:
    model = library_model()
    coordinator = og.Coordinator(model)
    wrong = URL.replace(":" + password() + "@", ":not-the-password@")
    with pytest.raises(og.StoreError) as caught:
        coordinator.add_store("PostgreSQL", wrong, schema=schema)
    assert caught.value.code == 134080
    assert "127.0.0.1" in str(caught.value) and password() not in str(caught.value) and "not-the-password" not in str(caught.value)
    with pytest.raises(og.UsageError):
        coordinator.add_store("PostgreSQL", URL, schema="bad name; DROP")
    # A model whose hashes differ from the one that wrote the store.
    open_store(model, schema)[0].close()
    other = og.Model()
    other.add_entity("Author").add_attribute("nickname", "string")
    with pytest.raises(og.IncompatibleStoreError):
        og.Coordinator(other).add_store("PostgreSQL", URL, schema=schema)
    # Text PostgreSQL cannot hold: the save fails naming the object and key; nothing is written.
    coordinator, ctx = open_store(model, schema)
    ctx.insert("Author", name="fine")
    ctx.insert("Author", name="bad\x00name")
    with pytest.raises(og.ValidationError, match="Author.name"):
        ctx.save()
    assert og.Context(coordinator).count("Author") == 0 and ctx.has_changes
    coordinator.close()


def test_a_machine_without_libpq_gets_a_clear_error() -> None:
    program = (
        "import objectgraph as og\n"
        "m = og.Model(); m.add_entity('A').add_attribute('x', 'string')\n"
        "c = og.Coordinator(m)\n"
        "try:\n"
        "    c.add_store('PostgreSQL', 'postgresql://nobody@127.0.0.1/none')\n"
        "except og.StoreError as e:\n"
        "    print(e.code, e)\n"
        "c.add_store('SQLite', None) if False else None\n"
        "print('sqlite', og.Context(c) is not None)\n"
    )
    env = dict(os.environ, OBJECTGRAPH_LIBPQ="libpq-missing-for-test.so.5")
    out = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("134080 ") and "libpq.so.5" in out.stdout, out.stdout


def fresh_database() -> str:
    """A new empty database on the test server (psql comes with the server): its URL."""
    import shutil

    psql = shutil.which("psql")
    if psql is None:
        pytest.skip("psql is not installed")
    name = "py_tool_" + uuid.uuid4().hex[:12]
    subprocess.run([psql, URL, "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True, timeout=60)
    return URL.rsplit("/", 1)[0] + "/" + name


def test_the_store_tool_takes_a_url_wherever_it_takes_a_file(tmp_path: Path) -> None:
    from objectgraph.tool import main

    model = library_model()
    model_file = tmp_path / "library.json"
    model.save(str(model_file))
    source = tmp_path / "books.sqlite"
    coordinator = og.Coordinator(model)
    coordinator.add_store("SQLite", str(source))
    ctx = og.Context(coordinator)
    ctx.insert("Book", title="Kindred", pages=264, author=ctx.insert("Author", name="Butler"))
    ctx.save()
    coordinator.close()
    url = fresh_database()

    def run(*argv: str) -> Tuple[int, str, str]:
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(list(argv), out)
        assert password() not in out.getvalue() + err.getvalue()
        return status, out.getvalue(), err.getvalue()

    assert run("convert", str(source), url, "--to", "PostgreSQL")[0] == 0
    status, out, _ = run("info", url)
    assert status == 0 and "type:    PostgreSQL" in out and url.replace(":" + password() + "@", "@") in out
    status, out, _ = run("entities", url)
    assert status == 0 and re.search(r"Book\s+1", out)
    assert run("check", str(model_file), url)[0] == 0
    status, out, _ = run("dump", url, "Book", "--format", "csv")
    assert status == 0 and "Kindred" in out
    back = tmp_path / "back.sqlite"
    assert run("convert", url, str(back), "--to", "SQLite")[0] == 0
    status, _, err = run("migrate", url, "--to-model", str(model_file))
    assert status == 2 and "--output" in err
    status, _, err = run("info", url.replace(":" + password() + "@", ":wrong@"))
    assert status == 2 and "password authentication failed" in err


def test_one_coordinator_holds_several_postgresql_stores_beside_a_file(schema: str, tmp_path: Path) -> None:
    model = og.Model()
    for name in ("Order", "Customer", "Note"):
        model.add_entity(name).add_attribute("label", "string")
    model.set_entities_for_configuration("Sales", ["Order"])
    model.set_entities_for_configuration("People", ["Customer"])
    model.set_entities_for_configuration("Local", ["Note"])
    coordinator = og.Coordinator(model)
    sales = coordinator.add_store("PostgreSQL", URL, configuration="Sales", schema=schema + "_sales")
    people = coordinator.add_store("PostgreSQL", URL, configuration="People", schema=schema + "_people")
    local = coordinator.add_store("SQLite", str(tmp_path / "local.sqlite"), configuration="Local")
    ctx = og.Context(coordinator)
    for entity in ("Order", "Customer", "Note"):
        ctx.insert(entity, label=entity.lower())
    ctx.save()
    assert {s.uuid for s in (sales, people, local)} == {s.uuid for s in coordinator.stores}
    fresh = og.Context(coordinator)
    assert [o.label for o in fresh.fetch("Order")] == ["order"]
    assert [o.label for o in fresh.fetch("Customer")] == ["customer"]
    assert [o.label for o in fresh.fetch("Note")] == ["note"]
    coordinator.close()


def test_grouped_and_distinct_dictionaries_match_an_sqlite_store(schema: str, tmp_path: Path) -> None:
    # The server groups and folds; the rows must be the ones an SQLite store gives.
    model = library_model()
    books = [("Wizard", 183, "Ursula"), ("Tombs", 163, "Ursula"), ("Shore", 259, "Ursula"), ("Mort", 243, "Terry"),
             ("Guards", 288, "Terry"), ("ADA", 10, None), ("Ada", 10, None), ("\u00e9t\u00e9", 5, None)]
    stacks = [open_store(model, schema)]
    sqlite = og.Coordinator(model)
    sqlite.add_store("SQLite", str(tmp_path / "same.sqlite"))
    stacks.append((sqlite, og.Context(sqlite)))
    for _, ctx in stacks:
        authors = {name: ctx.insert("Author", name=name) for name in ("Ursula", "Terry")}
        for title, pages, author in books:
            ctx.insert("Book", title=title, pages=pages, author=authors.get(author))
        ctx.save()
    requests = [
        dict(properties=["author.name", og.Expression("sum:(pages)", name="total"), og.Expression("count:(title)", name="n"),
                         og.Expression("max:(title)", name="last")], group_by=["author.name"], sort="author.name"),
        dict(properties=["author.name", og.Expression("sum:(pages)", name="total")], group_by=["author.name"],
             sort="-total", having="total > 100", limit=1),
        dict(properties=["pages"], distinct=True, sort="-pages"),
        dict(properties=["title"], distinct=True, where="pages < 100"),
    ]
    for keywords in requests:
        on_server, in_file = (ctx.fetch_dicts("Book", **keywords) for _, ctx in stacks)
        assert on_server == in_file, keywords
        assert on_server
    for coordinator, ctx in stacks:
        ctx.close()
        coordinator.close()


def test_string_derivations_are_the_engines(schema: str) -> None:
    # canonical:, uppercase: and lowercase: of the entity's own attribute hold what the
    # SQLite store computes, whatever the database's collation.
    model = og.Model()
    place = model.add_entity("Place")
    place.add_attribute("name", "string")
    for name, expression in (("search", "canonical:(name)"), ("loud", "uppercase:(name)")):
        place.add_attribute(name, "string").derivation_expression = expression
    coordinator, ctx = open_store(model, schema)
    ctx.insert("Place", name="Stra\u00dfe M\u00fcnchen")
    ctx.save()
    coordinator.close()
    coordinator, ctx = open_store(model, schema)
    (stored,) = ctx.fetch("Place")
    assert stored.search == "strasse munchen" and stored.loud == "STRASSE M\u00dcNCHEN"
    assert [p.name for p in ctx.fetch("Place", "search == 'strasse munchen'")] == ["Stra\u00dfe M\u00fcnchen"]
    ctx.close()
    coordinator.close()


def note_model(version: int) -> og.Model:
    # 1: Note(title); 2: Note(name <- title); 3: Note(label <- name, stars).
    model = og.Model()
    note = model.add_entity("Note")
    if version == 1:
        note.add_attribute("title", "string")
    else:
        renamed = note.add_attribute("name" if version == 2 else "label", "string")
        renamed.renaming_identifier = "title" if version == 2 else "name"
    if version == 3:
        note.add_attribute("stars", "integer64", default=3)
    return model


def test_a_chain_of_lightweight_migrations_runs_in_place(schema: str) -> None:
    # Mapping models 1 -> 2 and 2 -> 3, no inference: both steps run on the server in one
    # transaction, and the rows keep their keys.
    v1, v2, v3 = note_model(1), note_model(2), note_model(3)
    coordinator, ctx = open_store(v1, schema)
    ctx.insert("Note", title="first")
    ctx.save()
    coordinator.close()
    mappings = [og.MappingModel.infer(v1, v2), og.MappingModel.infer(v2, v3)]
    coordinator = og.Coordinator(v3, models=[v1, v2], mappings=mappings)
    coordinator.add_store("PostgreSQL", URL, schema=schema, migrate_automatically=True)
    (note,) = og.Context(coordinator).fetch("Note")
    assert (note.label, note.stars) == ("first", 3)
    coordinator.close()
