"""Migration (api/python.md, section C): mapping models and their inference,
the migration manager with policies written in Python, progress and
cancellation, and automatic migration when a store is added.

Two versions of one model:
  v1  Publisher: name; books       Book: title, pages, isbn; publisher      Obsolete: note
  v2  Publisher: unchanged         Book: title, pageCount (was pages), year  Fresh: label
"""

from __future__ import annotations

import copy
import threading

import pytest

import objectgraph as og

TITLES = ["Dune", "Hyperion", "Solaris"]


def version(n: int) -> og.Model:
    model = og.Model()
    publisher = model.add_entity("Publisher")
    book = model.add_entity("Book")
    publisher.add_attribute("name", "string")
    books = publisher.add_relationship("books", book, to_many=True)
    book.add_attribute("title", "string")
    if n == 1:
        book.add_attribute("pages", "integer64")
        book.add_attribute("isbn", "string")
        model.add_entity("Obsolete").add_attribute("note", "string")
    else:
        book.add_attribute("pageCount", "integer64").renaming_identifier = "pages"
        book.add_attribute("year", "integer64")
        model.add_entity("Fresh").add_attribute("label", "string")
    book.add_relationship("publisher", publisher, inverse=books)
    return model


def write_v1(path, type: str = "SQLite") -> str:
    """A v1 store with one publisher and three books; returns its UUID."""
    with og.Coordinator(version(1)) as coordinator:
        store = coordinator.add_store(type, path)
        with og.Context(coordinator) as ctx:
            tor = ctx.insert("Publisher", name="Tor")
            for i, title in enumerate(TITLES):
                ctx.insert("Book", title=title, pages=100 * (i + 1), isbn="x", publisher=tor)
            ctx.insert("Obsolete", note="gone")
            ctx.save()
        return store.uuid


def read_v2(path, type: str = "SQLite"):
    """(uuid, [(title, pageCount, year, publisher name)]) of a v2 store."""
    with og.Coordinator(version(2)) as coordinator:
        store = coordinator.add_store(type, path)
        with og.Context(coordinator) as ctx:
            rows = [(b.title, b.pageCount, b.year, b.publisher.name) for b in ctx.fetch("Book", sort="pageCount")]
            assert ctx.count("Publisher") == 1
        return store.uuid, rows


def fetch_all(entity: str) -> str:
    return (f'FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "{entity}", '
            '"TRUEPREDICATE"), $manager.sourceContext, NO)')


def follow(name: str) -> str:
    return f'FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "{name}", $source.{name})'


def manual_mapping(policy=None) -> og.MappingModel:
    publishers = og.EntityMapping(
        "PublisherToPublisher", "Publisher", "Publisher", kind="copy", source_expression=fetch_all("Publisher"),
        attribute_mappings=[og.PropertyMapping("name", "$source.name")],
        relationship_mappings=[og.PropertyMapping("books", follow("books"))])
    books = og.EntityMapping(
        "BookToBook", source_entity="Book", destination_entity="Book", kind="custom" if policy else "transform",
        source_expression=fetch_all("Book"), policy=policy,
        attribute_mappings=[og.PropertyMapping("title", "$source.title"), og.PropertyMapping("pageCount", "$source.pages"),
                            og.PropertyMapping("year")],
        relationship_mappings=[og.PropertyMapping("publisher", follow("publisher"))])
    return og.MappingModel([publishers, books])


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "v1.sqlite"
    return path, write_v1(path)


@pytest.fixture
def manager():
    mgr = og.MigrationManager(version(1), version(2))
    yield mgr
    mgr.close()


# ---- inference -------------------------------------------------------------


def test_inference_names_kinds_and_expressions() -> None:
    v1, v2 = version(1), version(2)
    mm = og.MappingModel.infer(v1, v2)
    assert isinstance(mm, og.MappingModel)
    assert [m.name for m in mm.entity_mappings] == [
        "IEM_Transform_Book", "IEM_Add_Fresh", "IEM_Copy_Publisher", "IEM_Remove_Obsolete"]
    assert [m.kind for m in mm.entity_mappings] == ["transform", "add", "copy", "remove"]
    book, fresh, publisher, obsolete = mm.entity_mappings
    assert (fresh.source_entity, fresh.destination_entity) == (None, "Fresh")
    assert (obsolete.source_entity, obsolete.destination_entity) == ("Obsolete", None)
    assert book.source_entity_version_hash == v1["Book"].version_hash
    assert book.destination_entity_version_hash == v2["Book"].version_hash
    assert publisher.source_entity_version_hash == publisher.destination_entity_version_hash
    assert fresh.source_entity_version_hash is None and obsolete.destination_entity_version_hash is None
    values = {p.name: p.value_expression for p in book.attribute_mappings}
    assert values == {"title": 'FUNCTION($source, "valueForKey:", "title")',
                      "pageCount": 'FUNCTION($source, "valueForKey:", "pages")', "year": None}
    [relationship] = book.relationship_mappings
    assert relationship.name == "publisher"
    assert relationship.value_expression == (
        'FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "publisher", '
        'FUNCTION($source, "valueForKey:", "publisher"))')
    assert book.source_expression == fetch_all("Book")
    assert book.policy is None and book.user_info == {}


def test_inference_that_fails_is_134190() -> None:
    v3 = version(2)
    v3["Book"].add_attribute("code", "string", optional=False)
    with pytest.raises(og.MigrationError) as caught:
        og.MappingModel.infer(version(1), v3)
    assert caught.value.code == og.INFERRED_MAPPING_MODEL == 134190
    assert "code" in caught.value.message


# ---- mapping model files ---------------------------------------------------


@pytest.mark.parametrize("name", ["mapping.json", "Mapping.xcmappingmodel"])
def test_save_and_load_keep_every_field(tmp_path, name) -> None:
    mm = manual_mapping()
    mm.entity_mappings[0].user_info = {"note": "kept"}
    mm.entity_mappings[1].source_entity_version_hash = version(1)["Book"].version_hash
    path = tmp_path / name
    mm.save(path)
    again = og.MappingModel.load(str(path))
    assert [m.name for m in again.entity_mappings] == ["PublisherToPublisher", "BookToBook"]
    first, second = again.entity_mappings
    assert first.user_info == {"note": "kept"} and first.kind == "copy"
    assert second.source_entity_version_hash == version(1)["Book"].version_hash
    assert [(p.name, p.value_expression) for p in second.attribute_mappings] == [
        ("title", "$source.title"), ("pageCount", "$source.pages"), ("year", None)]
    assert og.Predicate(f"x == {second.relationship_mappings[0].value_expression}") == \
        og.Predicate(f"x == {follow('publisher')}")


def test_loading_errors(tmp_path) -> None:
    with pytest.raises(og.StoreError) as missing:
        og.MappingModel.load(tmp_path / "missing.json")
    assert missing.value.code == 134080
    with pytest.raises(og.UsageError):
        og.MappingModel.load(tmp_path / "mapping.txt")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "objectgraph-mapping-model", "formatVersion": 1, "entityMappings": [{"kind": "copy"}]}')
    with pytest.raises(og.ModelError) as malformed:
        og.MappingModel.load(bad)
    assert "bad.json" in str(malformed.value)
    with pytest.raises(og.UsageError):
        manual_mapping().save(tmp_path / "out.cdm")


# ---- mapping models as values ---------------------------------------------


def test_entity_mapping_arguments_are_attributes() -> None:
    attribute = og.PropertyMapping("title", "$source.title", user_info={"k": "v"})
    hash_a, hash_b = bytes(range(32)), bytes(32)
    em = og.EntityMapping("M", source_entity="A", destination_entity="B", kind="transform",
                          attribute_mappings=(attribute,), relationship_mappings=(), source_expression="$x",
                          user_info={"note": "hi"}, source_entity_version_hash=hash_a,
                          destination_entity_version_hash=hash_b, policy="P")
    assert (em.name, em.source_entity, em.destination_entity, em.kind) == ("M", "A", "B", "transform")
    assert em.attribute_mappings == [attribute] and em.relationship_mappings == []
    assert (em.source_expression, em.policy) == ("$x", "P")
    assert em.user_info == {"note": "hi"}
    assert (em.source_entity_version_hash, em.destination_entity_version_hash) == (hash_a, hash_b)
    assert attribute.user_info == {"k": "v"}

    em.name, em.source_entity, em.destination_entity = "N", None, "C"
    em.kind = 4  # Core Data's number
    assert em.kind == "copy"
    em.kind = "add"
    em.source_expression, em.policy = None, None
    em.source_entity_version_hash = None
    em.user_info = {"a": "1"}
    em.user_info["b"] = "2"
    del em.user_info["a"]
    assert (em.name, em.source_entity, em.destination_entity, em.kind) == ("N", None, "C", "add")
    assert (em.source_expression, em.policy, em.source_entity_version_hash) == (None, None, None)
    assert dict(em.user_info) == {"b": "2"}

    attribute.name, attribute.value_expression = "heading", None
    attribute.user_info = {}
    assert (em.attribute_mappings[0].name, em.attribute_mappings[0].value_expression) == ("heading", None)
    assert og.PropertyMapping("p").value_expression is None


def test_kinds_and_hashes_are_checked() -> None:
    for kind in ["undefined", "custom", "add", "remove", "copy", "transform"]:
        assert og.EntityMapping("M", kind=kind).kind == kind
    with pytest.raises(og.UsageError) as caught:
        og.EntityMapping("M", kind="sideways")
    assert caught.value.code == og.INVALID_ARGUMENT == 140002
    em = og.EntityMapping("M")
    assert em.kind == "undefined"
    for bad in ("sideways", 9, True, None):
        with pytest.raises(og.UsageError) as caught:
            em.kind = bad
        assert caught.value.code == 140002
    for bad in (b"short", bytes(33), "x" * 32):
        with pytest.raises(og.UsageError) as caught:
            em.source_entity_version_hash = bad
        assert caught.value.code == 140002
    with pytest.raises(og.UsageError):
        og.EntityMapping("M", destination_entity_version_hash=bytes(31))


def test_lists_change_the_library_mapping() -> None:
    mm = og.MappingModel()
    assert mm.entity_mappings == []
    a, b, c = og.EntityMapping("A"), og.EntityMapping("B"), og.EntityMapping("C")
    mm.entity_mappings.append(a)
    mm.entity_mappings.insert(0, b)
    mm.entity_mappings.extend([c])
    assert [m.name for m in mm.entity_mappings] == ["B", "A", "C"]
    del mm.entity_mappings[0]
    mm.entity_mappings[1] = b
    assert mm.entity_mappings == [a, b]
    # The library's list is the same: a deep copy reads it from the library.
    assert [m.name for m in copy.deepcopy(mm).entity_mappings] == ["A", "B"]
    # Shared, not copied: renaming through the wrapper renames the model's mapping.
    a.name = "A2"
    assert [m.name for m in copy.deepcopy(mm).entity_mappings] == ["A2", "B"]
    # A deep copy is independent; a shallow one shares the mappings.
    deep, shallow = copy.deepcopy(mm), copy.copy(mm)
    a.name = "A3"
    assert [m.name for m in deep.entity_mappings] == ["A2", "B"]
    assert shallow.entity_mappings[0] is a
    mm.entity_mappings = [c]
    assert [m.name for m in mm.entity_mappings] == ["C"]
    with pytest.raises(og.TypeMismatchError):
        mm.entity_mappings.append("not a mapping")
    assert og.MappingModel(entity_mappings=[a, b]).entity_mappings == [a, b]

    p, q = og.PropertyMapping("p"), og.PropertyMapping("q")
    a.attribute_mappings = [p]
    a.attribute_mappings.insert(0, q)
    a.relationship_mappings.append(p)
    assert [x.name for x in copy.deepcopy(og.MappingModel([a])).entity_mappings[0].attribute_mappings] == ["q", "p"]
    a.attribute_mappings.pop()
    assert [x.name for x in a.attribute_mappings] == ["q"]
    assert [x.name for x in a.relationship_mappings] == ["p"]
    with pytest.raises(og.TypeMismatchError):
        a.relationship_mappings.append(a)


# ---- manual migration ------------------------------------------------------

calls: list = []


class Upcase(og.EntityMigrationPolicy):
    """Upper-cases titles, sets the year, and checks the manager's lookups."""

    def begin_entity_mapping(self, entity_mapping, manager):
        calls.append(("begin", entity_mapping.name))
        assert isinstance(manager.source_context, og.Context)
        assert isinstance(manager.destination_context, og.Context)
        assert manager.source_context.count("Book") == 3

    def create_destination_instances(self, source, entity_mapping, manager):
        calls.append(("create", source.title))
        book = manager.destination_context.insert("Book", title=source.title.upper(), pageCount=source.pages,
                                                  year=2000)
        manager.associate(source, book, entity_mapping)
        assert manager.destination_instances(entity_mapping.name, [source]) == [book]
        assert manager.source_instances(entity_mapping.name, [book]) == [source]

    def end_instance_creation(self, entity_mapping, manager):
        calls.append(("end_creation", len(manager.destination_instances(entity_mapping.name, None))))

    def create_relationships(self, destination, entity_mapping, manager):
        super().create_relationships(destination, entity_mapping, manager)
        calls.append(("relate", destination.publisher.name))

    def end_relationship_creation(self, entity_mapping, manager):
        calls.append(("end_relationships",))

    def perform_custom_validation(self, entity_mapping, manager):
        calls.append(("validate",))

    def end_entity_mapping(self, entity_mapping, manager):
        calls.append(("end",))


@pytest.fixture
def upcase():
    calls.clear()
    og.register_migration_policy("Upcase", Upcase)
    yield
    og.unregister_migration_policy("Upcase")


def test_manual_migration_through_a_python_policy(tmp_path, source, manager, upcase) -> None:
    path, uuid = source
    destination = tmp_path / "v2.sqlite"
    mapping = manual_mapping("Upcase")
    fractions: list = []
    assert manager.source_context is None and manager.destination_context is None
    manager.migrate(path, destination, mapping=mapping, progress=fractions.append)
    assert calls == [("begin", "BookToBook"), ("create", "Dune"), ("create", "Hyperion"), ("create", "Solaris"),
                     ("end_creation", 3), ("relate", "Tor"), ("relate", "Tor"), ("relate", "Tor"),
                     ("end_relationships",), ("validate",), ("end",)]
    assert read_v2(destination) == (uuid, [("DUNE", 100, 2000, "Tor"), ("HYPERION", 200, 2000, "Tor"),
                                           ("SOLARIS", 300, 2000, "Tor")])
    # Progress rises to 1.0; afterwards the manager reads 0.0 and lends no contexts.
    assert fractions and fractions == sorted(fractions) and fractions[-1] == 1.0
    assert len(set(fractions)) == len(fractions)
    assert manager.migration_progress == 0.0
    assert manager.source_context is None and manager.destination_context is None
    assert manager.source_model is not None and manager.destination_model is not None


def test_inferred_migration_with_the_default_policy(tmp_path, source, manager) -> None:
    path, uuid = source
    destination = tmp_path / "v2.sqlite"
    manager.migrate(path, destination)  # mapping=None: inferred
    assert read_v2(destination) == (uuid, [("Dune", 100, None, "Tor"), ("Hyperion", 200, None, "Tor"),
                                           ("Solaris", 300, None, "Tor")])
    # The hand-made mapping, to another store type with options.
    binary = tmp_path / "v2.binary"
    manager.migrate(path, binary, manual_mapping(), source_type="SQLite", destination_type="Binary",
                    source_options={og.READ_ONLY_OPTION: True}, destination_options={})
    assert read_v2(binary, "Binary")[0] == uuid


def test_progress_can_cancel(tmp_path, source, manager) -> None:
    path, _ = source
    destination = tmp_path / "v2.sqlite"
    seen: list = []

    def progress(fraction):
        seen.append(fraction)
        assert manager.migration_progress == fraction
        manager.cancel()

    with pytest.raises(og.MigrationError) as caught:
        manager.migrate(path, destination, manual_mapping(), progress=progress)
    assert caught.value.code == og.MIGRATION_CANCELLED == 134120
    assert len(seen) == 1
    assert not destination.exists()
    assert manager.migration_progress == 0.0
    # The manager is ready for the next migration.
    manager.migrate(path, destination, manual_mapping())
    assert destination.exists()


def test_an_exception_in_progress_reaches_the_caller(tmp_path, source, manager) -> None:
    path, _ = source
    destination = tmp_path / "v2.sqlite"

    class Stop(Exception):
        pass

    def progress(fraction):
        raise Stop(fraction)

    with pytest.raises(Stop):
        manager.migrate(path, destination, manual_mapping(), progress=progress)
    assert not destination.exists()


class Refuses(og.EntityMigrationPolicy):
    error = og.ValidationError("the policy refuses", og.VALIDATION, og.DOMAIN_COCOA)

    def begin_entity_mapping(self, entity_mapping, manager):
        raise self.error


class Breaks(og.EntityMigrationPolicy):
    def create_destination_instances(self, source, entity_mapping, manager):
        raise ValueError("broken policy")


def test_policy_errors(tmp_path, source, manager) -> None:
    path, _ = source
    destination = tmp_path / "v2.sqlite"
    og.register_migration_policy("Refuses", Refuses)
    og.register_migration_policy("Breaks", Breaks)
    try:
        # An og.Error ends the migration unchanged.
        with pytest.raises(og.ValidationError) as refused:
            manager.migrate(path, destination, manual_mapping("Refuses"))
        assert refused.value is Refuses.error
        assert not destination.exists()
        # Any other exception becomes MigrationError 134170, caused by it.
        with pytest.raises(og.MigrationError) as broke:
            manager.migrate(path, destination, manual_mapping("Breaks"))
        assert broke.value.code == og.MIGRATION_POLICY == 134170
        assert isinstance(broke.value.__cause__, ValueError)
        assert "broken policy" in broke.value.message
        assert not destination.exists()
    finally:
        og.unregister_migration_policy("Refuses")
        og.unregister_migration_policy("Breaks")
    # A policy nobody registered: 134170.
    with pytest.raises(og.MigrationError) as missing:
        manager.migrate(path, destination, manual_mapping("Refuses"))
    assert missing.value.code == 134170


def test_registration_needs_a_policy_class() -> None:
    class NotAPolicy:
        pass

    for bad in (NotAPolicy, Upcase(), "Upcase", None):
        with pytest.raises(og.TypeMismatchError) as caught:
            og.register_migration_policy("Bad", bad)  # type: ignore[arg-type]
        assert caught.value.code == og.TYPE_MISMATCH == 140006
    with pytest.raises(og.UsageError) as caught:
        og.unregister_migration_policy("never registered")
    assert caught.value.code == 140002


def test_a_mapping_that_does_not_fit_is_134110(tmp_path, source, manager) -> None:
    path, _ = source
    destination = tmp_path / "v2.sqlite"
    mapping = manual_mapping()
    mapping.entity_mappings[1].source_entity_version_hash = b"\xab" * 32
    with pytest.raises(og.MigrationError) as caught:
        manager.migrate(path, destination, mapping)
    assert caught.value.code == og.MIGRATION == 134110
    assert "Book" in caught.value.message
    assert not destination.exists()


def test_misuse(tmp_path, source, manager) -> None:
    path, _ = source
    with pytest.raises(og.UsageError):
        og.MigrationManager("v1", version(2))  # type: ignore[arg-type]
    with pytest.raises(og.UsageError):
        og.MappingModel.infer(version(1), None)  # type: ignore[arg-type]
    with pytest.raises(og.UsageError):
        manager.migrate(path, tmp_path / "x.sqlite", mapping="inferred")  # type: ignore[arg-type]
    with pytest.raises(og.MigrationError) as caught:
        manager.migrate(tmp_path / "missing.sqlite", tmp_path / "x.sqlite")
    assert caught.value.code == og.MIGRATION_SOURCE_STORE == 134150
    # The lookups for policies work only while a migration runs.
    with pytest.raises(og.UsageError):
        manager.destination_instances("BookToBook", None)
    manager.close()
    with pytest.raises(og.InvalidHandleError):
        manager.migrate(path, tmp_path / "x.sqlite")


class FromAnotherThread(og.EntityMigrationPolicy):
    seen: list = []

    def begin_entity_mapping(self, entity_mapping, manager):
        def probe():
            try:
                manager.destination_instances(entity_mapping.name, None)
            except og.Error as exc:
                self.seen.append(type(exc))
        thread = threading.Thread(target=probe)
        thread.start()
        thread.join()


def test_the_manager_belongs_to_the_migrating_thread(tmp_path, source, manager) -> None:
    path, _ = source
    og.register_migration_policy("Threads", FromAnotherThread)
    try:
        manager.migrate(path, tmp_path / "v2.sqlite", manual_mapping("Threads"))
    finally:
        og.unregister_migration_policy("Threads")
    assert FromAnotherThread.seen == [og.WrongThreadError]


# ---- automatic migration ---------------------------------------------------


def test_option_constants() -> None:
    assert og.MIGRATE_AUTOMATICALLY_OPTION == "NSMigratePersistentStoresAutomaticallyOption"
    assert og.INFER_MAPPING_OPTION == "NSInferMappingModelAutomaticallyOption"


def test_automatic_migration_on_add_store(source) -> None:
    path, uuid = source
    v1, v2 = version(1), version(2)
    with og.Coordinator(v2, models=[v1]) as coordinator:
        with pytest.raises(og.IncompatibleStoreError) as caught:
            coordinator.add_store("SQLite", path)
        assert caught.value.code == og.STORE_INCOMPATIBLE_VERSION == 134100
        with pytest.raises(og.MigrationError) as caught:
            coordinator.add_store("SQLite", path, migrate_automatically=True)
        assert caught.value.code == og.MIGRATION_MISSING_MAPPING_MODEL == 134140
        store = coordinator.add_store("SQLite", path, migrate_automatically=True, infer_mapping_automatically=True)
        assert store.uuid == uuid
    assert read_v2(path) == (uuid, [("Dune", 100, None, "Tor"), ("Hyperion", 200, None, "Tor"),
                                    ("Solaris", 300, None, "Tor")])


def test_automatic_migration_by_the_option_keys(source) -> None:
    path, uuid = source
    with og.Coordinator(version(2), models=(version(1),)) as coordinator:
        store = coordinator.add_store("SQLite", path, options={og.MIGRATE_AUTOMATICALLY_OPTION: True,
                                                              og.INFER_MAPPING_OPTION: True})
        assert store.uuid == uuid


def test_without_a_source_model_it_is_134130(tmp_path) -> None:
    path = tmp_path / "v1.binary"
    write_v1(path, "Binary")
    before = path.read_bytes()
    with og.Coordinator(version(2)) as coordinator:
        with pytest.raises(og.MigrationError) as caught:
            coordinator.add_store("Binary", path, migrate_automatically=True, infer_mapping_automatically=True)
        assert caught.value.code == og.MIGRATION_MISSING_SOURCE_MODEL == 134130
    assert path.read_bytes() == before


def test_automatic_migration_through_given_mappings_and_a_policy(source, upcase) -> None:
    path, uuid = source
    v1, v2 = version(1), version(2)
    mapping = og.MappingModel.infer(v1, v2)
    book = mapping.entity_mappings[0]
    book.kind, book.policy = "custom", "Upcase"
    with pytest.raises(og.UsageError):
        og.Coordinator(v2, mappings=["not a mapping"])  # type: ignore[list-item]
    with og.Coordinator(v2, models=[v1], mappings=[mapping]) as coordinator:
        store = coordinator.add_store("SQLite", path, migrate_automatically=True)
        assert store.uuid == uuid
    assert [c[0] for c in calls].count("create") == 3
    assert read_v2(path) == (uuid, [("DUNE", 100, 2000, "Tor"), ("HYPERION", 200, 2000, "Tor"),
                                    ("SOLARIS", 300, 2000, "Tor")])


def test_a_failing_policy_in_automatic_migration_leaves_the_file(source) -> None:
    path, _ = source
    before = path.read_bytes()
    v1, v2 = version(1), version(2)
    mapping = og.MappingModel.infer(v1, v2)
    mapping.entity_mappings[0].kind = "custom"
    mapping.entity_mappings[0].policy = "Breaks"
    og.register_migration_policy("Breaks", Breaks)
    try:
        with og.Coordinator(v2, models=[v1], mappings=[mapping]) as coordinator:
            with pytest.raises(og.MigrationError) as caught:
                coordinator.add_store("SQLite", path, migrate_automatically=True)
            assert caught.value.code == 134170
            assert isinstance(caught.value.__cause__, ValueError)
    finally:
        og.unregister_migration_policy("Breaks")
    assert path.read_bytes() == before
