"""The whole managed object model from Python: every setter and getter of
models, entities, attributes, relationships and fetched properties;
configurations, templates, localization, version hashes, compatibility with
store metadata, merging, folders of models; frozen models; released handles."""

import datetime as dt
import os

import pytest

import objectgraph as og

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "Fixtures", "Models")


def build():
    m = og.Model()
    author, book, item = m.add_entity("Author"), m.add_entity("Book"), m.add_entity("Item")
    author.add_attribute("name", "string")
    book.add_attribute("title", "string")
    book.add_attribute("pages", "integer32")
    item.add_attribute("label", "string")
    books = author.add_relationship("books", book, to_many=True)
    book.add_relationship("writer", author, inverse=books)
    return m


def test_model_level_setters():
    m = build()
    m.version_identifiers = ["2.0", "beta"]
    assert m.version_identifiers == ["2.0", "beta"]
    m.version_identifiers = []
    assert m.version_identifiers == []

    m.set_entities_for_configuration("Sales", [m["Book"], "Author"])
    m.set_entities_for_configuration("People", ["Author"])
    assert m.configurations == ["Sales", "People"]
    assert [e.name for e in m.entities_for_configuration("Sales")] == ["Book", "Author"]
    assert [e.name for e in m.entities_for_configuration(None)] == ["Author", "Book", "Item"]
    assert m.configuration_contains("People", "Author") and not m.configuration_contains("People", m["Book"])
    with pytest.raises(og.UsageError, match="Nope"):
        m.entities_for_configuration("Nope")
    with pytest.raises(og.ModelError, match="another model"):
        m.set_entities_for_configuration("X", [build()["Book"]])

    m.set_fetch_request_template("ByTitle", "Book", "title BEGINSWITH $PREFIX AND pages > $MIN", sort=["title", "-pages"], limit=25)
    m.set_fetch_request_template("All", m["Author"])
    t = m.fetch_request_template("ByTitle")
    assert t == og.FetchRequestTemplate("Book", "title BEGINSWITH $PREFIX AND pages > $MIN", [("title", True), ("pages", False)], 25, ["PREFIX", "MIN"])
    assert m.fetch_request_template("All") == og.FetchRequestTemplate("Author")
    assert m.fetch_request_templates == {"ByTitle": "Book", "All": "Author"}
    assert m.fetch_request_from_template("ByTitle", PREFIX="A", MIN=3) == 'title BEGINSWITH "A" AND pages > 3'
    m.set_fetch_request_template("Pairs", "Book", sort=[("title", False)])
    assert m.fetch_request_template("Pairs").sort == [("title", False)]
    with pytest.raises(og.ModelError, match="Nobody"):
        m.set_fetch_request_template("Bad", "Nobody")
    with pytest.raises(og.UsageError, match="negative"):
        m.set_fetch_request_template("Bad", "Book", limit=-1)
    m.remove_fetch_request_template("All")
    with pytest.raises(og.UsageError, match="All"):
        m.fetch_request_template("All")
    with pytest.raises(og.UsageError):
        m.remove_fetch_request_template("All")

    m.localization = {"Entity/Book": "Livre", "Property/title": "Titre", "Property/title/Entity/Book": "Titre du livre"}
    assert m.localization["Entity/Book"] == "Livre" and len(m.localization) == 3
    assert m.localized_entity_name("Book") == "Livre" and m.localized_entity_name("Author") is None
    assert m.localized_property_name("title", "Book") == "Titre du livre"
    assert m.localized_property_name("title", "Other") == "Titre"
    assert m.localized_property_name("name", "Author") is None

    hashes = m.entity_version_hashes
    assert sorted(hashes) == ["Author", "Book", "Item"]
    assert hashes["Book"] == m["Book"].version_hash and len(hashes["Book"]) == 32

    m.remove_entity("Item")
    assert "Item" not in m
    with pytest.raises(og.UnknownEntityError):
        m.remove_entity("Item")

    again = og.Model.from_json(m.to_json())
    assert again.localization == m.localization
    assert again.fetch_request_template("ByTitle") == m.fetch_request_template("ByTitle")
    assert sorted(again.configurations) == ["People", "Sales"]  # JSON keeps them as an object


def test_entity_setters():
    m = build()
    author, book, item = m["Author"], m["Book"], m["Item"]
    item.subentities = [book]
    assert book.superentity is item and item.subentities == [book]
    item.subentities = []
    assert book.superentity is None
    book.superentity = item
    with pytest.raises(og.ModelError, match="cycle"):
        book.subentities = [item]
    book.superentity = None

    book.class_name = "BookObject"
    assert book.class_name == "BookObject"
    book.class_name = None
    assert book.class_name == "ManagedObject"
    book.renaming_identifier = "Volume"
    assert book.renaming_identifier == "Volume"
    book.renaming_identifier = None
    assert book.renaming_identifier == "Book"
    before = book.version_hash
    assert book.version_hash_modifier is None
    book.version_hash_modifier = "v2"
    assert book.version_hash_modifier == "v2" and book.version_hash != before
    book.version_hash_modifier = None
    assert book.version_hash == before

    book.user_info_dict = {"table": "books", "owner": "library"}
    assert book.user_info_dict == {"owner": "library", "table": "books"}
    assert book.user_info("table") == "books"
    book.user_info_dict = {}
    assert book.user_info_dict == {}

    book.uniqueness_constraints = [["title", "pages"], ["title"]]
    assert book.uniqueness_constraints == [["title", "pages"], ["title"]]
    m.validate()

    assert author.relationships_with_destination(book) == [author["books"]]
    assert author.relationships_with_destination("Item") == []

    longer = author.add_fetched_property("longBooks", book, "writer == $FETCH_SOURCE AND pages > 500")
    assert isinstance(longer, og.FetchedProperty)
    assert author.fetched_properties == {"longBooks": longer}
    assert longer.entity_name == "Book" and longer.predicate == "writer == $FETCH_SOURCE AND pages > 500"
    longer.predicate = None
    longer.entity_name = "Item"
    assert (longer.entity_name, longer.predicate) == ("Item", None)
    with pytest.raises(og.ModelError, match="already"):
        author.add_fetched_property("longBooks", "Book")
    author.remove_property("longBooks")
    assert author.fetched_properties == {}
    with pytest.raises(og.UnknownKeyError):
        author.remove_property("longBooks")


def test_property_setters():
    m = build()
    book, author, item = m["Book"], m["Author"], m["Item"]
    title, pages = book["title"], book["pages"]
    books, writer = author["books"], book["writer"]

    title.transient = True
    assert title.transient
    title.transient = False
    title.indexed = True
    title.indexed_by_spotlight = True
    title.stored_in_external_record = True
    assert title.indexed and title.indexed_by_spotlight and title.stored_in_external_record
    title.renaming_identifier = "heading"
    assert title.renaming_identifier == "heading"
    title.renaming_identifier = None
    assert title.renaming_identifier == "title"
    h = title.version_hash
    title.version_hash_modifier = "x"
    assert title.version_hash_modifier == "x" and title.version_hash != h and len(h) == 32
    title.version_hash_modifier = None
    title.user_info_dict = {"format": "upper"}
    assert title.user_info_dict == {"format": "upper"} and title.user_info("format") == "upper"
    title.validation = [("length >= 2", "too short"), ("NOT self BEGINSWITH 'x'", "starts with x")]
    assert title.validation == [("length >= 2", "too short"), ("NOT self BEGINSWITH 'x'", "starts with x")]

    pages.min_value = 10
    pages.max_value = 2000
    assert (pages.min_value, pages.max_value) == (10, 2000)
    pages.min_value = None
    assert (pages.min_value, pages.max_value) == (None, 2000)
    with pytest.raises(og.ModelError, match="minimum"):
        title.min_value = 3
    title.min_length = 1
    title.max_length = 80
    assert (title.min_length, title.max_length) == (1, 80)
    title.min_length = None
    assert (title.min_length, title.max_length) == (None, 80)
    with pytest.raises(og.ModelError, match="length"):
        pages.max_length = 3
    assert title.regular_expression is None
    title.regular_expression = "[A-Z].*"
    assert title.regular_expression == "[A-Z].*"

    colour = item.add_attribute("colour", "transformable")
    colour.value_transformer_name = "ColourTransformer"
    colour.value_class_name = "Colour"
    assert (colour.value_transformer_name, colour.value_class_name) == ("ColourTransformer", "Colour")
    colour.value_class_name = None
    assert colour.value_class_name is None
    pages.derivation_expression = "title.length"
    assert pages.derivation_expression == "title.length"
    pages.derivation_expression = None
    cover = item.add_attribute("cover", "binary")
    assert not cover.allows_external_storage
    cover.allows_external_storage = True
    cover.preserves_value_in_history = True
    assert cover.allows_external_storage and cover.preserves_value_in_history
    cover.type = "string"
    assert cover.type == og.AttributeType.STRING
    with pytest.raises(og.TypeMismatchError):
        og.Attribute.type.fset(books, "string")  # a relationship has no attribute type

    books.min_count, books.max_count = 1, 5
    assert (books.min_count, books.max_count) == (1, 5)
    with pytest.raises(og.ModelError, match="counts"):
        books.set_counts(6, 5)
    books.ordered = True
    assert books.ordered
    with pytest.raises(og.ModelError, match="ordered"):
        writer.ordered = True
    favourite = item.add_relationship("favourite", book)
    favourite.destination = "Author"
    assert favourite.destination is author
    with pytest.raises(og.ModelError, match="another model"):
        favourite.destination = build()["Book"]
    m.validate()


def test_fixture_details():
    m = og.Model.load(os.path.join(FIXTURES, "AllTypes.xcdatamodeld"))
    s = m["Sample"]
    assert (s["small"].min_value, s["small"].max_value) == (-10, 10)
    assert (s["code"].min_length, s["code"].max_length) == (2, 8)
    assert s["code"].regular_expression == "[A-Z]+[0-9]*"
    assert s["published"].max_value == dt.datetime(2001, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=1e9)
    assert s["cover"].allows_external_storage
    assert s["searchText"].indexed_by_spotlight and s["searchText"].stored_in_external_record
    assert s["identifier"].preserves_value_in_history
    shop = og.Model.load(os.path.join(FIXTURES, "Shop.xcdatamodeld"))
    large = shop.fetch_request_template("LargeOrders")
    assert large.limit == 50 and large.variables == ["MINIMUM", "PREFIX", "SINCE"] and large.entity == "Order"
    inh = og.Model.load(os.path.join(FIXTURES, "Inheritance.xcdatamodeld"))
    assert list(inh["Person"].fetched_properties) == ["fastCars"]
    assert [r.name for r in inh["Car"].relationships_with_destination("Person")] == ["owner"]


def test_metadata_merging_and_folders(tmp_path):
    m = build()
    hashes = m.entity_version_hashes
    assert m.is_configuration_compatible(hashes)
    assert not m.is_configuration_compatible({k: v for k, v in hashes.items() if k != "Item"})
    m.set_entities_for_configuration("People", ["Author"])
    assert m.is_configuration_compatible({"Author": hashes["Author"]}, "People")
    assert not m.is_configuration_compatible(hashes, "Nope")
    with pytest.raises(og.UsageError, match="32"):
        m.is_configuration_compatible({"Author": b"short"})

    coordinator = og.Coordinator(m)
    store = coordinator.add_store("SQLite", str(tmp_path / "books.sqlite"))
    assert store.version_hashes == hashes
    assert m.is_configuration_compatible(store)
    changed = m.copy()
    changed["Book"].add_attribute("isbn", "string")
    assert not changed.is_configuration_compatible(store)

    a, b = og.Model(), og.Model()
    a.add_entity("Alpha").add_attribute("x", "integer64")
    b.add_entity("Beta").add_attribute("y", "string")
    a.version_identifiers, b.version_identifiers = ["a"], ["b"]
    merged = og.Model.merge([a, b])
    assert [e.name for e in merged] == ["Alpha", "Beta"] and merged.version_identifiers == ["a", "b"]
    with pytest.raises(og.ModelError, match="Alpha"):
        og.Model.merge([a, a])
    both = merged.entity_version_hashes
    assert [e.name for e in og.Model.merge([a, b], metadata=both)] == ["Alpha", "Beta"]
    assert og.Model.merge([a], metadata=both) is None
    assert og.Model.merge([a, b], metadata={"Alpha": both["Alpha"]}) is None

    folder = tmp_path / "models"
    folder.mkdir()
    a.write(folder / "Alpha.json")
    b.write(folder / "Beta.xcdatamodel")
    (folder / "notes.txt").write_text("not a model")
    assert [e.name for e in og.Model.load_directory(folder)] == ["Alpha", "Beta"]
    assert len(og.Model.load_directory(folder, metadata=both)) == 2
    assert [e.name for e in og.Model.load_directory(folder, metadata={"Alpha": both["Alpha"]})] == ["Alpha"]
    wrong = {k: bytes(32) for k in both}
    assert og.Model.load_directory(folder, metadata=wrong) is None
    with pytest.raises(og.ModelError, match="folder"):
        og.Model.load_directory(folder / "notes.txt")
    coordinator.close()


def test_frozen_model_raises_and_keeps_its_values(tmp_path):
    m = build()
    author, book, item = m["Author"], m["Book"], m["Item"]
    title, pages, books = book["title"], book["pages"], author["books"]
    fetched = author.add_fetched_property("all", "Book")
    m.set_fetch_request_template("T", "Book")
    coordinator = og.Coordinator(m)
    assert not m.editable
    changes = [
        lambda: m.remove_entity("Item"),
        lambda: setattr(m, "version_identifiers", ["x"]),
        lambda: m.set_entities_for_configuration("C", ["Book"]),
        lambda: m.set_fetch_request_template("T2", "Book"),
        lambda: m.remove_fetch_request_template("T"),
        lambda: setattr(m, "localization", {"a": "b"}),
        lambda: setattr(item, "subentities", [book]),
        lambda: setattr(book, "class_name", "X"),
        lambda: setattr(book, "renaming_identifier", "X"),
        lambda: setattr(book, "version_hash_modifier", "X"),
        lambda: setattr(book, "user_info_dict", {"a": "b"}),
        lambda: setattr(book, "uniqueness_constraints", [["title"]]),
        lambda: book.add_fetched_property("f", "Book"),
        lambda: book.remove_property("title"),
        lambda: setattr(title, "transient", True),
        lambda: setattr(title, "indexed", True),
        lambda: setattr(title, "indexed_by_spotlight", True),
        lambda: setattr(title, "stored_in_external_record", True),
        lambda: setattr(title, "renaming_identifier", "x"),
        lambda: setattr(title, "version_hash_modifier", "x"),
        lambda: setattr(title, "user_info_dict", {"a": "b"}),
        lambda: setattr(title, "validation", [("length > 1", "short")]),
        lambda: setattr(title, "type", "integer64"),
        lambda: setattr(pages, "min_value", 1),
        lambda: setattr(title, "max_length", 3),
        lambda: setattr(title, "regular_expression", "x"),
        lambda: setattr(title, "value_transformer_name", "x"),
        lambda: setattr(title, "value_class_name", "x"),
        lambda: setattr(title, "derivation_expression", "x"),
        lambda: setattr(title, "allows_external_storage", True),
        lambda: setattr(title, "preserves_value_in_history", True),
        lambda: setattr(books, "max_count", 3),
        lambda: setattr(books, "ordered", True),
        lambda: setattr(books, "destination", item),
        lambda: setattr(fetched, "predicate", "TRUEPREDICATE"),
    ]
    for change in changes:
        with pytest.raises(og.ModelError) as info:
            change()
        assert info.value.code == og.ErrorCode.MODEL_IMMUTABLE
    assert len(m) == 3 and m.version_identifiers == [] and book.class_name == "ManagedObject"
    assert title.validation == [] and books.max_count == 0
    copy = m.copy()
    copy["Book"].class_name = "Changed"
    assert copy["Book"].class_name == "Changed"
    coordinator.close()


def test_released_model_raises_invalid_handle():
    m = build()
    book = m["Book"]
    title, writer = book["title"], book["writer"]
    m.close()
    attempts = [
        lambda: setattr(m, "version_identifiers", ["x"]),
        lambda: m.entities_for_configuration(None),
        lambda: m.fetch_request_template("T"),
        lambda: m.set_fetch_request_template("T", "Book"),
        lambda: setattr(m, "localization", {}),
        lambda: m.localized_entity_name("Book"),
        lambda: m.localized_property_name("title", "Book"),
        lambda: m.is_configuration_compatible({}),
        lambda: og.Model.merge([m]),
        lambda: og.Model.merge([m], metadata={}),
        lambda: m.remove_entity("Book"),
        lambda: book.version_hash_modifier,
        lambda: setattr(book, "class_name", "X"),
        lambda: setattr(book, "user_info_dict", {}),
        lambda: setattr(book, "uniqueness_constraints", []),
        lambda: book.add_fetched_property("f", "Book"),
        lambda: book.remove_property("title"),
        lambda: setattr(book, "subentities", []),
        lambda: title.indexed,
        lambda: setattr(title, "validation", []),
        lambda: title.version_hash,
        lambda: title.min_value,
        lambda: title.min_length,
        lambda: title.regular_expression,
        lambda: title.allows_external_storage,
        lambda: setattr(title, "transient", True),
        lambda: writer.set_counts(0, 1),
        lambda: setattr(writer, "ordered", False),
    ]
    for attempt in attempts:
        with pytest.raises(og.InvalidHandleError):
            attempt()


def test_entities_and_properties_are_renamable_before_use(tmp_path):
    m = build()
    book, author = m["Book"], m["Author"]
    m.set_entities_for_configuration("Shelf", [book])
    book.uniqueness_constraints = [["title"]]
    book.fetch_indexes = [og.FetchIndex("byTitle", [og.FetchIndexElement(book["title"])])]
    before = book.version_hash
    book.name = "Volume"
    assert book.name == "Volume" and m["Volume"] == book and "Book" not in m
    with pytest.raises(og.UnknownEntityError):
        m["Book"]
    assert author["books"].destination == book
    assert [e.name for e in m.entities_for_configuration("Shelf")] == ["Volume"]
    assert book.version_hash != before and m.entity_version_hashes["Volume"] == book.version_hash
    title = book["title"]
    title.name = "heading"
    book["writer"].name = "author"
    assert book["heading"] == title and "title" not in book
    with pytest.raises(og.UnknownKeyError):
        book["title"]
    assert author["books"].inverse.name == "author"
    assert book.uniqueness_constraints == [["heading"]]
    assert book.fetch_indexes[0].elements[0].property_name == "heading" and title.indexed
    for bad in ("", "Author"):
        with pytest.raises(og.UsageError) as info:
            book.name = bad
        assert info.value.code == 140002
    for bad in ("", "pages"):
        with pytest.raises(og.UsageError) as info:
            title.name = bad
        assert info.value.code == 140002
    coordinator = og.Coordinator(m)
    coordinator.add_store("SQLite", str(tmp_path / "renamed.sqlite"))
    with og.Context(coordinator) as ctx:
        writer = ctx.insert("Author", name="Ann")
        ctx.insert("Volume", heading="Mort", author=writer)
        ctx.save()
        assert ctx.count("Volume", "author.name == 'Ann'") == 1
    with pytest.raises(og.ModelError) as info:
        book.name = "Tome"
    assert info.value.code == 140008
    with pytest.raises(og.ModelError) as info:
        title.name = "caption"
    assert info.value.code == 140008
    coordinator.close()


def test_renamed_xcode_model_writes_back_with_every_reference(tmp_path):
    m = og.Model.load(os.path.join(FIXTURES, "Library.xcdatamodeld"))
    m["Book"].name = "Volume"
    m["Volume"]["title"].name = "heading"
    m["Shelf"]["label"].name = "name"
    out = tmp_path / "Renamed.xcdatamodel"
    m.write(out)
    text = (out / "contents").read_text()
    assert 'destinationEntity="Volume"' in text and 'inverseEntity="Volume"' in text
    assert 'entity name="Book"' not in text and 'Entity="Book"' not in text  # the class name stays "Book"
    assert '<constraint value="heading"/>' in text and 'property="name"' in text
    back = og.Model.load(out)
    assert back["Author"]["books"].destination.name == "Volume"
    assert back["Volume"].uniqueness_constraints == [["heading"]]
    assert back["Shelf"].fetch_indexes[0].elements[0].property_name == "name"
