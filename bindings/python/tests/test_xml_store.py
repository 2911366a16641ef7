"""The XML store ("XML", NSXMLStoreType): Apple's XML store format, read and written."""

from __future__ import annotations

import datetime
import decimal
import gc
import re
import shutil
import uuid
from pathlib import Path
from typing import Any, List

import pytest

import objectgraph as og

FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "Fixtures" / "Stores" / "XML"


def library_model() -> og.Model:
    model = og.Model()
    author = model.add_entity("Author")
    author.add_attribute("name", "string")
    book = model.add_entity("Book")
    for name, kind in [("title", "string"), ("pages", "integer16"), ("copies", "integer64"), ("price", "decimal"),
                       ("weight", "double"), ("width", "float"), ("in_print", "boolean"), ("published", "date"),
                       ("cover", "binary"), ("uid", "uuid"), ("link", "uri")]:
        book.add_attribute(name, kind)
    books = author.add_relationship("books", book, to_many=True)
    book.add_relationship("author", author, inverse=books)
    tag = model.add_entity("Tag")
    tag.add_attribute("label", "string")
    tags = book.add_relationship("tags", tag, to_many=True)
    tag.add_relationship("books", book, to_many=True, inverse=tags)
    chapter = model.add_entity("Chapter")
    chapter.add_attribute("heading", "string")
    chapters = book.add_relationship("chapters", chapter, to_many=True)
    chapters.ordered = True
    chapter.add_relationship("book", book, inverse=chapters)
    return model


def fill(ctx: og.Context) -> None:
    author = ctx.insert("Author", name="Terry <Pratchett> & co\r\n")
    tags = [ctx.insert("Tag", label=f"tag {n}") for n in range(3)]
    for n in range(3):
        book = ctx.insert("Book", title=f"Book {n} — ünïcødé", pages=n * 100, copies=2**62 + n,
                          price=decimal.Decimal("1234.25"), weight=0.1 + n, width=2.5, in_print=n % 2 == 0,
                          published=datetime.datetime(2009, 3, 23, 10, 8, 40, 564060, tzinfo=datetime.timezone.utc),
                          cover=bytes([0, 1, 255, n]), uid=uuid.UUID(int=n + 1), link=f"https://example.com/{n}?a&b",
                          author=author)
        book.tags = tags[:n]
        book.chapters = [ctx.insert("Chapter", heading=f"{c} of {n}") for c in (2, 0, 1)]
    ctx.save()


def snapshot(coordinator: og.Coordinator) -> List[Any]:
    out: List[Any] = []
    with og.Context(coordinator) as ctx:
        for a in ctx.fetch("Author"):
            out.append(("Author", a.name, sorted(b.title for b in a.books)))
        for b in ctx.fetch("Book", sort="title"):
            out.append(("Book", b.title, b.pages, b.copies, b.price, b.weight, b.width, b.in_print, b.published,
                        b.cover, b.uid, b.link, b.author.name, sorted(t.label for t in b.tags),
                        [c.heading for c in b.chapters]))
        for t in ctx.fetch("Tag", sort="label"):
            out.append(("Tag", t.label, sorted(b.title for b in t.books)))
    return out


def test_xml_is_a_registered_store_type() -> None:
    assert "XML" in og.registered_store_types()
    with pytest.raises(og.UsageError):
        og.unregister_store_type("XML")


def test_an_xml_store_read_back_holds_what_an_sqlite_store_holds(tmp_path: Path) -> None:
    results = []
    for kind, name in [("SQLite", "same.sqlite"), ("XML", "same.xml")]:
        with og.Coordinator(library_model()) as coordinator:
            store = coordinator.add_store(kind, str(tmp_path / name))
            assert store.type == kind
            with og.Context(coordinator) as ctx:
                fill(ctx)
        gc.collect()
        with og.Coordinator(library_model()) as coordinator:
            coordinator.add_store(kind, str(tmp_path / name))
            results.append(snapshot(coordinator))
        gc.collect()
    assert results[0] == results[1]
    assert results[1][1][-1] == ["2 of 0", "0 of 0", "1 of 0"], "ordered to-many keeps its order"
    text = (tmp_path / "same.xml").read_text(encoding="utf-8")
    assert '<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">' in text
    assert '<object type="BOOK" id="z' in text and 'name="in_print" type="bool"' in text
    # Seconds since 2001 with Apple's 20 decimals.
    assert re.search(r'<attribute name="published" type="date">259495720\.5640\d{16}</attribute>', text)


def test_apples_things_store_loads_with_its_facts(tmp_path: Path) -> None:
    path = tmp_path / "Things.xml"
    shutil.copy(FIXTURES / "Things-Database.xml", path)
    meta = og.Coordinator.metadata_for_store(str(path))
    assert meta["NSStoreType"] == "XML" and meta["NSPersistenceFrameworkVersion"] == 186
    assert meta["NSStoreUUID"] == "B4FC79D0-E654-43EF-9020-A5273B3F104A"
    model = og.Model.load(str(FIXTURES / "Things.json"))
    with og.Coordinator(model) as coordinator:
        with pytest.raises(og.IncompatibleStoreError) as info:
            coordinator.add_store("XML", str(path))
        assert info.value.code == 134100
        coordinator.add_store("XML", str(path), ignore_versioning=True)
        with og.Context(coordinator) as ctx:
            assert ctx.count("ToDo") == 40 and ctx.count("Focus") == 18 and ctx.count("Thing") == 63
            dinner = ctx.fetch("ToDo", "title == 'Make dinner'")[0]
            assert len(dinner.children) == 9 and [t.title for t in dinner.tags] == ["Home"]
            assert dinner.dateCreated == datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc) + \
                datetime.timedelta(seconds=259257733.72509700059890747070)
            globals_ = ctx.fetch("Globals")[0]
            assert sorted(t.title for t in globals_.scheduledTodos) == ["Make dinner", "a scheduled item"]
    gc.collect()


@pytest.mark.parametrize("prolog, word", [
    ('<!DOCTYPE database [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n', "DOCTYPE"),
    ('<!DOCTYPE database SYSTEM "http://example.com/evil.dtd">\n', "DOCTYPE"),
    ('<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">\n', "&xxe;"),
])
def test_only_core_datas_doctype_is_accepted_and_no_entity_is_expanded(tmp_path: Path, prolog: str, word: str) -> None:
    path = tmp_path / "hostile.xml"
    path.write_text('<?xml version="1.0"?>\n' + prolog + '<database><databaseInfo><version>134481920</version>'
                    '<UUID>U</UUID><nextObjectID>1</nextObjectID><metadata></metadata></databaseInfo>\n'
                    '<object type="TAG" id="z1"><attribute name="label" type="string">&xxe;</attribute></object>'
                    '</database>\n', encoding="utf-8")
    with og.Coordinator(library_model()) as coordinator:
        with pytest.raises(og.Error) as info:
            coordinator.add_store("XML", str(path), ignore_versioning=True)
        assert info.value.code == og.ErrorCode.STORE_INVALID_TYPE
        assert word in str(info.value) and "line " in str(info.value)


def test_a_malformed_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.xml"
    path.write_text('<?xml version="1.0"?>\n<database>\n<databaseInfo><version>1</version><UUID>U</UUID>'
                    '<nextObjectID>1</nextObjectID><metadata></metadata></databaseInfo>\n'
                    '<object type="BOOK" id="z1">\n<attribute name="pages" type="int16">many</attribute>\n'
                    '</object></database>', encoding="utf-8")
    with og.Coordinator(library_model()) as coordinator:
        with pytest.raises(og.Error) as info:
            coordinator.add_store("XML", str(path), ignore_versioning=True)
        assert "line 5" in str(info.value)


def test_two_writers_of_one_xml_store_get_134050(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.xml")
    with og.Coordinator(library_model()) as first, og.Coordinator(library_model()) as second:
        first.add_store("XML", path)
        with og.Context(first) as a:
            a.insert("Tag", label="first")
            a.save()
            second.add_store("XML", path)
            with og.Context(second) as b:
                b.insert("Tag", label="second")
                b.save()
            a.insert("Tag", label="third")
            with pytest.raises(og.StoreError) as info:
                a.save()
            assert info.value.code == og.STORE_SAVE_CONFLICTS
    gc.collect()
    with og.Coordinator(library_model()) as reader:
        reader.add_store("XML", path)
        with og.Context(reader) as ctx:
            assert sorted(t.label for t in ctx.fetch("Tag")) == ["first", "second"]


def test_migrate_store_to_xml_and_back_loses_nothing(tmp_path: Path) -> None:
    with og.Coordinator(library_model()) as coordinator:
        store = coordinator.add_store("SQLite", str(tmp_path / "from.sqlite"))
        with og.Context(coordinator) as ctx:
            fill(ctx)
        expected = snapshot(coordinator)
        xml = coordinator.migrate_store(store, str(tmp_path / "to.xml"), type="XML")
        assert xml.type == "XML"
        assert snapshot(coordinator) == expected
        back = coordinator.migrate_store(xml, str(tmp_path / "back.sqlite"), type="SQLite")
        assert back.type == "SQLite" and snapshot(coordinator) == expected
    gc.collect()
    with og.Coordinator(library_model()) as coordinator:
        coordinator.add_store("XML", str(tmp_path / "to.xml"))
        assert snapshot(coordinator) == expected


def test_a_file_without_version_hashes_opens_only_when_versioning_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "nohashes.xml"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">\n'
                    '<database><databaseInfo><version>134481920</version><UUID>343C8D7F-A000-42C4-8463-43FA1E5EF3FB</UUID>'
                    '<nextObjectID>102</nextObjectID><metadata></metadata></databaseInfo>\n'
                    '<object type="TAG" id="z102"><attribute name="label" type="string">kept</attribute>'
                    '<relationship name="books" type="0/0" destination="BOOK"></relationship></object></database>\n',
                    encoding="utf-8")
    with og.Coordinator(library_model()) as coordinator:
        with pytest.raises(og.IncompatibleStoreError) as info:
            coordinator.add_store("XML", str(path))
        assert info.value.code == 134100
        store = coordinator.add_store("XML", str(path), ignore_versioning=True)
        assert store.uuid == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB"
        with og.Context(coordinator) as ctx:
            [tag] = ctx.fetch("Tag")
            assert tag.label == "kept"
            ctx.insert("Tag", label="new")
            ctx.save()
    gc.collect()
    # Saved, the file records the model's hashes and opens without the option.
    text = path.read_text(encoding="utf-8")
    assert "<key>NSStoreModelVersionHashes</key>" in text and 'id="z103"' in text
    with og.Coordinator(library_model()) as coordinator:
        coordinator.add_store("XML", str(path))
        with og.Context(coordinator) as ctx:
            assert sorted(t.label for t in ctx.fetch("Tag")) == ["kept", "new"]
