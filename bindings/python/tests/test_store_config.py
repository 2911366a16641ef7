"""Several stores on one coordinator: configurations, routing and assignment,
store options, copying a store to another type, moving stores, metadata."""

from __future__ import annotations

import gc
import sqlite3
import time

import pytest

import objectgraph as og


@pytest.fixture
def shop_model() -> og.Model:
    """Customer <->> Order, AuditEntry; configurations "Sales" (Customer,
    Order), "Audit" (AuditEntry) and "Everything" (all three, overlapping)."""
    model = og.Model()
    customer = model.add_entity("Customer")
    customer.add_attribute("name", "string")
    customer.add_attribute("rank", "integer64", default=0)
    order = model.add_entity("Order")
    order.add_attribute("total", "double", default=0.0)
    orders = customer.add_relationship("orders", order, to_many=True, delete_rule="cascade")
    order.add_relationship("customer", customer, inverse=orders)
    entry = model.add_entity("AuditEntry")
    entry.add_attribute("message", "string")
    model.set_entities_for_configuration("Sales", ["Customer", "Order"])
    model.set_entities_for_configuration("Audit", ["AuditEntry"])
    model.set_entities_for_configuration("Everything", ["Customer", "Order", "AuditEntry"])
    return model


@pytest.fixture
def coordinator(shop_model):
    c = og.Coordinator(shop_model)
    yield c
    c.close()
    gc.collect()


def names(objects) -> list:
    return [o.name for o in objects]


def test_configurations_hold_their_entities_and_files_read_back(tmp_path, shop_model) -> None:
    sales_path, audit_path = str(tmp_path / "sales.sqlite"), str(tmp_path / "audit.binary")
    with og.Coordinator(shop_model) as coordinator:
        sales = coordinator.add_store("SQLite", sales_path, configuration="Sales")
        audit = coordinator.add_store("Binary", audit_path, configuration="Audit")
        assert (sales.configuration, audit.configuration) == ("Sales", "Audit")
        with pytest.raises(og.UsageError) as info:
            coordinator.add_store("InMemory")
        assert info.value.code == og.ErrorCode.INVALID_ARGUMENT and "default configuration" in str(info.value)
        with pytest.raises(og.UsageError):
            coordinator.add_store("InMemory", configuration="Nope")
        with og.Context(coordinator) as ctx:
            ada = ctx.insert("Customer", name="Ada")
            ctx.insert("Order", total=3.5, customer=ada)
            entry = ctx.insert("AuditEntry", message="created Ada")
            ctx.save()
            uris = (ada.object_id, entry.object_id)
            assert sales.uuid in uris[0] and audit.uuid in uris[1]
    tables = {row[0] for row in sqlite3.connect(sales_path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"ZCUSTOMER", "ZORDER", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"}
    with og.Coordinator(shop_model) as coordinator:
        coordinator.add_store("SQLite", sales_path, configuration="Sales")
        audit = coordinator.add_store("Binary", audit_path, configuration="Audit")
        assert coordinator.store_for_path(audit_path) is audit
        assert coordinator.store_for_path(str(tmp_path / "nothing")) is None
        with og.Context(coordinator) as ctx:
            assert ctx.existing_object(uris[0]).name == "Ada"
            assert ctx.existing_object(uris[1]).message == "created Ada"
            assert ctx.count("Order") == 1


def test_fetches_merge_overlapping_stores_and_assignment_routes_new_objects(coordinator) -> None:
    sales = coordinator.add_store("InMemory", configuration="Sales")
    everything = coordinator.add_store("InMemory", configuration="Everything")
    with og.Context(coordinator) as ctx:
        for i, name in enumerate(["Cy", "Bo", "Al", "Di"]):
            ctx.assign(ctx.insert("Customer", name=name, rank=i), everything if i % 2 else sales)
        entry = ctx.insert("AuditEntry", message="m")
        with pytest.raises(og.UsageError):
            ctx.assign(entry, sales)
        ctx.save()
        assert everything.uuid in entry.object_id
        with pytest.raises(og.UsageError):
            ctx.assign(entry, everything)
    with og.Context(coordinator) as ctx:
        assert names(ctx.fetch("Customer", sort="name")) == ["Al", "Bo", "Cy", "Di"]
        assert names(ctx.fetch("Customer", stores=[everything], sort="-rank")) == ["Di", "Bo"]
        request = og.FetchRequest("Customer", "name", affected_stores=[sales])
        assert names(ctx.fetch(request)) == ["Al", "Cy"]
        assert request.affected_stores == [sales]
        assert ctx.count("Customer") == 4
        assert ctx.count("Customer", stores=[sales]) == 2


def test_a_relationship_across_stores_fails_the_save(coordinator) -> None:
    sales = coordinator.add_store("InMemory", configuration="Sales")
    everything = coordinator.add_store("InMemory", configuration="Everything")
    with og.Context(coordinator) as ctx:
        buyer = ctx.insert("Customer", name="Ed")
        ctx.assign(buyer, everything)
        order = ctx.insert("Order", total=5.0, customer=buyer)
        ctx.assign(order, sales)
        with pytest.raises(og.Error) as info:
            ctx.save()
        assert info.value.code == og.ErrorCode.EXTERNAL_RELATIONSHIP
        assert "Customer" in str(info.value) and "Order" in str(info.value)
        ctx.assign(order, everything)
        ctx.save()
        assert ctx.count("Order", stores=[everything]) == 1


def test_store_options(tmp_path, shop_model) -> None:
    path = str(tmp_path / "busy.sqlite")
    with og.Coordinator(shop_model) as coordinator:
        store = coordinator.add_store("SQLite", path, timeout=0.3, pragmas={"journal_mode": "DELETE", "synchronous": "NORMAL"},
                                      analyze=True, options={"AppKey": "kept"})
        assert store.options["AppKey"] == "kept"
        assert store.options[og.TIMEOUT_OPTION] == 0.3
        assert store.options[og.SQLITE_PRAGMAS_OPTION] == {"journal_mode": "DELETE", "synchronous": "NORMAL"}
        other = sqlite3.connect(path, isolation_level=None)
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        other.execute("BEGIN IMMEDIATE")
        with og.Context(coordinator) as ctx:
            ctx.insert("Customer", name="Waiting")
            start = time.monotonic()
            with pytest.raises(og.StoreError) as info:
                ctx.save()
            assert info.value.code == og.ErrorCode.STORE_TIMEOUT
            assert time.monotonic() - start >= 0.25
            other.execute("COMMIT")
            ctx.save()
        other.close()
    with og.Coordinator(shop_model) as coordinator:
        with pytest.raises(og.UsageError):
            coordinator.add_store("SQLite", path, pragmas={"journal_mode": "WAL; DROP TABLE ZCUSTOMER"})
        with pytest.raises(og.UsageError):
            coordinator.add_store("SQLite", path, pragmas={"synchronous = OFF; --": "1"})
        store = coordinator.add_store("SQLite", path, read_only=True, vacuum=True)
        assert coordinator.is_read_only(store)
        with og.Context(coordinator) as ctx:
            assert ctx.count("Customer") == 1
            ctx.insert("Customer", name="refused")
            with pytest.raises(og.StoreError) as info:
                ctx.save()
            assert info.value.code == og.ErrorCode.STORE_OPERATION


def test_ignore_versioning_opens_a_store_written_with_other_hashes(tmp_path, shop_model) -> None:
    path = str(tmp_path / "v.sqlite")
    with og.Coordinator(shop_model) as coordinator:
        coordinator.add_store("SQLite", path)
        with og.Context(coordinator) as ctx:
            ctx.insert("AuditEntry", message="old")
            ctx.save()
    changed = og.Model()
    entry = changed.add_entity("AuditEntry")
    entry.add_attribute("message", "string", optional=False)  # optionality changes the hash
    with og.Coordinator(changed) as coordinator:
        with pytest.raises(og.IncompatibleStoreError):
            coordinator.add_store("SQLite", path)
    changed = og.Model()
    entry = changed.add_entity("AuditEntry")
    entry.add_attribute("message", "string", optional=False)
    with og.Coordinator(changed) as coordinator:
        coordinator.add_store("SQLite", path, ignore_versioning=True)
        with og.Context(coordinator) as ctx:
            assert [e.message for e in ctx.fetch("AuditEntry")] == ["old"]
    # A column the file lacks: added when the store opens for writing, read as None.
    wider = og.Model()
    entry = wider.add_entity("AuditEntry")
    entry.add_attribute("message", "string", optional=False)
    entry.add_attribute("level", "integer16")
    with og.Coordinator(wider) as coordinator:
        with pytest.raises(og.StoreError):
            coordinator.add_store("SQLite", path, ignore_versioning=True, read_only=True)
        coordinator.add_store("SQLite", path, ignore_versioning=True)
        with og.Context(coordinator) as ctx:
            assert [e.level for e in ctx.fetch("AuditEntry")] == [None]


@pytest.mark.parametrize("source,target", [("SQLite", "Binary"), ("Binary", "SQLite"), ("SQLite", "SQLite"), ("InMemory", "SQLite")])
def test_migrate_store(tmp_path, shop_model, source, target) -> None:
    with og.Coordinator(shop_model) as coordinator:
        old = coordinator.add_store(source, None if source == "InMemory" else str(tmp_path / f"old.{source}"),
                                    configuration="Sales", options={"AppKey": 1})
        with og.Context(coordinator) as ctx:
            ada = ctx.insert("Customer", name="Ada")
            for total in (1.0, 2.0):
                ctx.insert("Order", total=total, customer=ada)
            ctx.save()
            new_path = str(tmp_path / f"new.{target}")
            copy = coordinator.migrate_store(old, new_path, target)
            assert (copy.type, copy.configuration, copy.path) == (target, "Sales", new_path)
            assert copy.uuid != old.uuid, "the copy gets a UUID of its own, as on Core Data"
            assert copy.options["AppKey"] == 1
            assert coordinator.stores == [copy]
            ctx.refresh(ada)
            assert sorted(o.total for o in ada.orders) == [1.0, 2.0]
            ctx.insert("Order", total=3.0, customer=ada)
            ctx.save()
    with og.Coordinator(shop_model) as coordinator:
        coordinator.add_store(target, new_path, configuration="Sales")
        with og.Context(coordinator) as ctx:
            assert ctx.count("Order") == 3


def test_a_failed_migration_keeps_the_old_store(tmp_path, coordinator) -> None:
    old = coordinator.add_store("SQLite", str(tmp_path / "old.sqlite"))
    taken = tmp_path / "taken.binary"
    taken.write_text("occupied")
    with pytest.raises(og.StoreError) as info:
        coordinator.migrate_store(old, str(taken), "Binary")
    assert info.value.code == og.ErrorCode.STORE_OPERATION
    assert taken.read_text() == "occupied"
    with pytest.raises(og.StoreError):
        coordinator.migrate_store(old, str(tmp_path / "missing" / "new.sqlite"), "SQLite")
    assert not (tmp_path / "missing").exists()
    assert coordinator.stores == [old]


def test_moving_a_store_and_its_metadata(tmp_path, coordinator) -> None:
    first, second = str(tmp_path / "a.binary"), str(tmp_path / "b.binary")
    store = coordinator.add_store("Binary", first)
    metadata = coordinator.metadata(store)
    assert metadata["NSStoreUUID"] == store.uuid and metadata["NSStoreType"] == "Binary"
    coordinator.set_metadata(store, {"Owner": "shop"})
    assert coordinator.metadata(store)["Owner"] == "shop"
    with pytest.raises(og.UsageError):
        coordinator.set_metadata(store, {"NSStoreUUID": "another"})
    coordinator.set_store_path(store, second)
    assert store.path == second
    with og.Context(coordinator) as ctx:
        ctx.insert("Customer", name="Moved")
        ctx.save()
    assert og.Coordinator.metadata_value(second, "Owner") == "shop"
    assert not (tmp_path / "a.binary").exists()


def test_metadata_for_store_without_adding_it(tmp_path, books_model) -> None:
    import os

    path = tmp_path / "meta.sqlite"
    coordinator = og.Coordinator(books_model)
    store = coordinator.add_store("SQLite", str(path))
    uuid = store.uuid
    coordinator.close()
    metadata = og.Coordinator.metadata_for_store(path)
    assert metadata["NSStoreType"] == "SQLite" and metadata["NSStoreUUID"] == uuid
    hashes = metadata["NSStoreModelVersionHashes"]
    assert "Book" in hashes
    assert all(isinstance(h, bytes) and len(h) == 32 for h in hashes.values())
    assert og.Coordinator.metadata_for_store(str(path), "SQLite", options={"NSReadOnlyPersistentStoreOption": True}) == metadata
    og.Coordinator.set_metadata_for_store(path, {"Owner": "shop", "NSStoreUUID": "other", "NSStoreType": "Binary"})
    again = og.Coordinator.metadata_for_store(path)
    assert again["Owner"] == "shop" and again["NSStoreUUID"] == uuid and again["NSStoreType"] == "SQLite"
    assert "NSStoreModelVersionHashes" not in again  # the whole dict was written
    with pytest.raises(og.StoreError) as info:
        og.Coordinator.metadata_for_store(path, "Binary")
    assert info.value.code == 134010
    with pytest.raises(og.StoreError) as info:
        og.Coordinator.metadata_for_store(tmp_path / "missing.sqlite")
    assert info.value.code == 134080
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"no store here")
    with pytest.raises(og.StoreError) as info:
        og.Coordinator.metadata_for_store(junk)
    assert info.value.code == 134080
    with pytest.raises(og.StoreError) as info:
        og.Coordinator.set_metadata_for_store(path, metadata, options={"NSReadOnlyPersistentStoreOption": True})
    assert info.value.code == 134070
    os.chmod(path, 0o444)
    try:
        with pytest.raises(og.StoreError) as info:
            og.Coordinator.set_metadata_for_store(path, metadata)
        assert info.value.code == 134070
    finally:
        os.chmod(path, 0o644)
    og.Coordinator.set_metadata_for_store(path, metadata, type="SQLite")
    reopened = og.Coordinator(books_model)
    assert reopened.add_store("SQLite", str(path)).uuid == uuid
    reopened.close()
