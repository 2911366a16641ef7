"""Incremental stores written in Python (og.IncrementalStore, Core Data's
NSIncrementalStore): a small store over dicts, whose hook calls are counted."""

from __future__ import annotations

import gc
import itertools
import os
import re
import subprocess
import sys
import uuid
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import objectgraph as og
from objectgraph import incremental
from conftest import BINDING, REPO

_names = itertools.count(1)

# The "databases" of the dict store, by path: {"uuid": ..., "rows": {reference: row}}.
# A row: {"entity": name, "values": {attribute: value}, "department": reference or None}.
DATABASES: Dict[str, Dict[str, Any]] = {}


def build_model() -> og.Model:
    """Person (name, age) with its subentity Employee (salary); Department
    (title) <->> Person (employees / department)."""
    model = og.Model()
    person = model.add_entity("Person")
    person.add_attribute("name", "string", optional=False)
    person.add_attribute("age", "integer64")
    employee = model.add_entity("Employee")
    employee.superentity = person
    employee.add_attribute("salary", "double")
    department = model.add_entity("Department")
    department.add_attribute("title", "string")
    department.add_relationship("employees", person, to_many=True)
    person.add_relationship("department", department, inverse="employees")
    return model


class DictStore(og.IncrementalStore):
    """Rows in a dict. Options: "ToOneInNode" (default True) puts a Person's
    department in its node; without it the library asks
    new_value_for_relationship. ``calls`` records every hook call;
    ``failures`` maps a hook's name to the exception it raises; ``answers``
    maps it to what it returns instead of its own answer."""

    def __init__(self, coordinator: og.Coordinator, configuration: Optional[str], path: str,
                 options: Dict[str, Any]) -> None:
        super().__init__(coordinator, configuration, path, options)
        self.made_with = (coordinator, configuration, path, dict(options))
        self.calls: List[Tuple[Any, ...]] = []
        self.failures: Dict[str, BaseException] = {}
        self.answers: Dict[str, Any] = {}
        self.to_one_in_node = bool(options.get("ToOneInNode", True))

    def _hook(self, name: str, *details: Any) -> None:
        self.calls.append((name, *details))
        if name in self.failures:
            raise self.failures[name]

    def count(self, name: str) -> int:
        return sum(1 for call in self.calls if call[0] == name)

    def load_metadata(self) -> None:
        self._hook("load_metadata")
        db = DATABASES.setdefault(self.path, {"uuid": str(uuid.uuid4()).upper(), "rows": {}})
        self.db = db
        self.metadata = {"NSStoreType": self.type, "NSStoreUUID": db["uuid"], "Rows": len(db["rows"])}

    # Fetches and saves.

    def _entities(self, request: og.FetchRequest) -> set:
        names = {request.entity}
        if request.include_subentities:
            for entity in self.coordinator.model.entities:
                parent = entity.superentity
                while parent is not None:
                    if parent.name == request.entity:
                        names.add(entity.name)
                    parent = parent.superentity
        return names

    def execute_request(self, request: Any, context: Optional[og.Context]) -> Any:
        self._hook("execute_request", request.request_type, request, context)
        if "execute_request" in self.answers:
            return self.answers["execute_request"]
        if request.request_type == "save":
            self.save_request(request)
            return []
        names = self._entities(request)
        found = [(ref, row) for ref, row in self.db["rows"].items()
                 if row["entity"] in names and (request.predicate is None or request.predicate.evaluate(row["values"]))]
        for key, ascending in reversed(request.sort):
            found.sort(key=lambda item: (item[1]["values"].get(key) is not None, item[1]["values"].get(key)),
                       reverse=not ascending)
        # The window is the store's to apply too (the library gives none when it merges pending changes).
        found = found[request.offset:request.offset + request.limit if request.limit else None]
        if request.result_type == "count":
            return [len(found)]
        if request.result_type == "dictionary":
            return [dict(row["values"]) for _, row in found]
        ids = [self.new_object_id(row["entity"], ref) for ref, row in found]
        if request.result_type == "object" and context is not None and self.options.get("ReturnObjects"):
            return [context.object_with_id(i) for i in ids]
        return ids

    def save_request(self, request: og.SaveChangesRequest) -> None:
        rows = dict(self.db["rows"])  # all or nothing
        for obj in (request.inserted_objects or []) + (request.updated_objects or []):
            department = obj["department"] if obj.entity_name != "Department" else None
            rows[self.reference_object(obj.object_id)] = {
                "entity": obj.entity_name,
                "values": obj.to_dict(),
                "department": None if department is None else self.reference_object(department.object_id),
            }
        for obj in request.deleted_objects or []:
            rows.pop(self.reference_object(obj.object_id), None)
        self.db["rows"] = rows

    # Faults.

    def new_values_for_object(self, object_id: og.ObjectID, context: Optional[og.Context]) -> Any:
        self._hook("new_values_for_object", object_id, context)
        if "new_values_for_object" in self.answers:
            return self.answers["new_values_for_object"]
        row = self.db["rows"][self.reference_object(object_id)]
        values = dict(row["values"])
        if self.to_one_in_node and row["entity"] != "Department":
            department = row["department"]
            values["department"] = None if department is None else self.new_object_id("Department", department)
        return og.IncrementalStoreNode(object_id, values, 1)

    def new_value_for_relationship(self, relationship: og.Relationship, object_id: og.ObjectID,
                                   context: Optional[og.Context]) -> Any:
        self._hook("new_value_for_relationship", relationship, object_id, context)
        if "new_value_for_relationship" in self.answers:
            return self.answers["new_value_for_relationship"]
        reference = self.reference_object(object_id)
        if relationship.name == "employees":
            return [self.new_object_id(row["entity"], ref) for ref, row in sorted(self.db["rows"].items())
                    if row.get("department") == reference]
        department = self.db["rows"][reference]["department"]
        return None if department is None else self.new_object_id("Department", department)

    def obtain_permanent_ids(self, objects: List[og.ManagedObject]) -> Any:
        self._hook("obtain_permanent_ids", list(objects))
        if "obtain_permanent_ids" in self.answers:
            return self.answers["obtain_permanent_ids"]
        return [self.new_object_id(obj.entity, obj["title"] if obj.entity_name == "Department" else obj["name"])
                for obj in objects]


@pytest.fixture
def store_type() -> Iterator[str]:
    """A type name registered for DictStore, unregistered at the end."""
    name = f"Dict{next(_names)}"
    og.register_incremental_store_type(name, DictStore)
    yield name
    gc.collect()
    try:
        og.unregister_store_type(name)
    except og.Error:
        pass  # a store of it outlived the test


class Stack:
    def __init__(self, store_type: str, path: str, **options: Any) -> None:
        self.coordinator = og.Coordinator(build_model())
        self.store: DictStore = self.coordinator.add_store(store_type, path, options=options or None)  # type: ignore[assignment]
        self.context = og.Context(self.coordinator)

    def close(self) -> None:
        self.context.close()
        self.coordinator.close()


@pytest.fixture
def open_stack(store_type: str) -> Iterator[Any]:
    opened: List[Stack] = []

    def opener(path: Optional[str] = None, **options: Any) -> Stack:
        stack = Stack(store_type, path or f"db-{uuid.uuid4()}", **options)
        opened.append(stack)
        return stack

    yield opener
    for stack in opened:
        stack.close()


def seed(stack: Stack) -> Dict[str, og.ManagedObject]:
    """Saves R&D with Ann (Person) and Bob (Employee), and Ops without anyone."""
    ctx = stack.context
    rd = ctx.insert("Department", title="R&D")
    ops = ctx.insert("Department", title="Ops")
    ann = ctx.insert("Person", name="Ann", age=30, department=rd)
    bob = ctx.insert("Employee", name="Bob", age=40, salary=2.5, department=rd)
    ctx.save()
    stack.store.calls.clear()
    return {"rd": rd, "ops": ops, "ann": ann, "bob": bob}


def reader(stack: Stack) -> og.Context:
    """A new context on the stack's coordinator: its objects are faults."""
    ctx = og.Context(stack.coordinator)
    stack.store.calls.clear()
    return ctx


# Adding a store.

def test_add_store_returns_the_instance_made_with_the_coordinator_configuration_path_and_options(open_stack,
                                                                                               store_type) -> None:
    stack = open_stack("people", Extra="yes")
    store = stack.store
    assert type(store) is DictStore and isinstance(store, og.Store) and isinstance(store, og.IncrementalStore)
    coordinator, configuration, path, options = store.made_with
    assert coordinator is stack.coordinator and configuration is None and path == "people"
    assert options == {"Extra": "yes"}
    assert store.coordinator is stack.coordinator and stack.coordinator.stores == [store]
    assert store.type == store_type and store.path == "people" and store.configuration is None
    assert store.options["Extra"] == "yes"
    assert store.count("load_metadata") == 1
    assert store.metadata["NSStoreType"] == store_type
    assert store.uuid == store.metadata["NSStoreUUID"] == DATABASES["people"]["uuid"]
    assert stack.coordinator.store_count == 1
    assert stack.coordinator.metadata(store)["NSStoreUUID"] == store.uuid
    assert repr(store).startswith("<objectgraph.IncrementalStore DictStore")


def test_metadata_is_a_dict_read_and_written(open_stack) -> None:
    store = open_stack().store
    store.metadata["Owner"] = "tests"
    assert store.metadata["Owner"] == "tests"
    store.metadata = {**store.metadata, "Rows": 7}
    assert store.metadata["Rows"] == 7 and store.uuid == store.metadata["NSStoreUUID"]


def test_registered_store_types_lists_the_built_in_and_the_registered_ones(store_type) -> None:
    names = og.registered_store_types()
    assert {"SQLite", "Binary", "InMemory", store_type} <= set(names)
    assert all(isinstance(n, str) for n in names)
    og.register_atomic_store_type(f"Atomic{store_type}", lambda path: None, lambda path, data: None)
    try:
        assert f"Atomic{store_type}" in og.registered_store_types()
    finally:
        og.unregister_store_type(f"Atomic{store_type}")
    assert f"Atomic{store_type}" not in og.registered_store_types()


def test_registering_a_name_twice_is_a_usage_error(store_type) -> None:
    with pytest.raises(og.UsageError) as raised:
        og.register_incremental_store_type(store_type, DictStore)
    assert raised.value.code == 140002
    for built_in in ("SQLite", "Binary", "InMemory", ""):
        with pytest.raises(og.UsageError):
            og.register_incremental_store_type(built_in, DictStore)


@pytest.mark.parametrize("cls", [object, og.Store, "DictStore", None, og.Coordinator])
def test_registering_what_is_not_an_incremental_store_subclass_is_a_type_mismatch(cls) -> None:
    name = f"NotAStore{next(_names)}"
    with pytest.raises(og.TypeMismatchError) as raised:
        og.register_incremental_store_type(name, cls)
    assert raised.value.code == 140006
    assert name not in og.registered_store_types()


class OtherTypeInMetadata(DictStore):
    def load_metadata(self) -> None:
        super().load_metadata()
        self.metadata["NSStoreType"] = "SQLite"


class OtherTypeProperty(DictStore):
    @property
    def type(self) -> str:
        return "SomethingElse"


@pytest.mark.parametrize("cls", [OtherTypeInMetadata, OtherTypeProperty])
def test_a_type_that_differs_from_the_registered_one_is_134010_and_adds_no_store(cls) -> None:
    name = f"Mismatch{next(_names)}"
    og.register_incremental_store_type(name, cls)
    coord = og.Coordinator(build_model())
    try:
        with pytest.raises(og.StoreError) as raised:
            coord.add_store(name, f"db-{uuid.uuid4()}")
        assert raised.value.code == og.STORE_TYPE_MISMATCH == 134010
        assert coord.store_count == 0 and coord.stores == []
    finally:
        coord.close()
        gc.collect()
        og.unregister_store_type(name)


def test_an_exception_in_load_metadata_or_init_comes_out_of_add_store(store_type) -> None:
    class Broken(DictStore):
        def load_metadata(self) -> None:
            raise KeyError("no such database")

    class BadInit(DictStore):
        def __init__(self, *args: Any) -> None:
            raise ValueError("cannot open")

    for cls, kind in ((Broken, KeyError), (BadInit, ValueError)):
        name = f"Broken{next(_names)}"
        og.register_incremental_store_type(name, cls)
        coord = og.Coordinator(build_model())
        try:
            with pytest.raises(kind):
                coord.add_store(name, "x")
            assert coord.store_count == 0
        finally:
            coord.close()
            gc.collect()
            og.unregister_store_type(name)


def test_a_metadata_without_a_uuid_is_refused(store_type) -> None:
    class NoUUID(DictStore):
        def load_metadata(self) -> None:
            self.metadata = {"NSStoreType": self.type}

    name = f"NoUUID{next(_names)}"
    og.register_incremental_store_type(name, NoUUID)
    coord = og.Coordinator(build_model())
    try:
        with pytest.raises(og.StoreError):
            coord.add_store(name, "x")
        assert coord.store_count == 0
    finally:
        coord.close()
        gc.collect()
        og.unregister_store_type(name)


def test_the_default_load_metadata_gives_the_type_and_a_new_uuid() -> None:
    class Plain(og.IncrementalStore):
        pass

    name = f"Plain{next(_names)}"
    og.register_incremental_store_type(name, Plain)
    coord = og.Coordinator(build_model())
    try:
        store = coord.add_store(name)
        assert isinstance(store, Plain)
        assert store.metadata["NSStoreType"] == name and uuid.UUID(store.uuid)
        ctx = og.Context(coord)
        with pytest.raises(og.StoreError) as raised:  # no execute_request
            ctx.fetch("Person")
        assert raised.value.code == 134070 and "execute_request" in raised.value.message
        ctx.close()
    finally:
        coord.close()
        gc.collect()
        og.unregister_store_type(name)


def test_unregistering_while_a_store_is_open_is_refused_then_works_once_the_coordinator_is_closed() -> None:
    name = f"Open{next(_names)}"
    og.register_incremental_store_type(name, DictStore)
    coord = og.Coordinator(build_model())
    coord.add_store(name, "x")
    ctx = og.Context(coord)
    with pytest.raises(og.UsageError) as raised:
        og.unregister_store_type(name)
    assert raised.value.code == 140002
    assert name in og.registered_store_types()
    ctx.close()
    coord.close()
    og.unregister_store_type(name)
    assert name not in og.registered_store_types()
    og.register_incremental_store_type(name, DictStore)  # the name is free again
    og.unregister_store_type(name)


def test_unregistering_works_once_the_coordinator_is_gone() -> None:
    name = f"Gone{next(_names)}"
    og.register_incremental_store_type(name, DictStore)
    coord = og.Coordinator(build_model())
    store = coord.add_store(name, "x")
    ctx = og.Context(coord)
    ctx.fetch("Person")
    del coord, store, ctx
    gc.collect()
    og.unregister_store_type(name)
    assert name not in og.registered_store_types()


def test_a_store_can_be_removed_from_its_coordinator(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    stack.coordinator.remove_store(stack.store)
    assert stack.coordinator.stores == [] and stack.coordinator.store_count == 0


# Fetching.

def test_every_fetch_and_count_goes_through_execute_request_even_with_unsaved_changes(open_stack) -> None:
    stack = open_stack()
    people = seed(stack)
    ctx, store = stack.context, stack.store
    assert {p.name for p in ctx.fetch("Person")} == {"Ann", "Bob"}
    assert ctx.count("Person") == 2
    assert store.count("execute_request") == 2
    carl = ctx.insert("Person", name="Carl")
    ctx.delete(people["ann"])
    store.calls.clear()
    assert {p.name for p in ctx.fetch("Person")} == {"Bob", "Carl"}  # merged with the pending insert and delete
    assert ctx.count("Person") == 2
    assert ctx.fetch_ids("Person") and len(ctx.fetch_ids("Person")) == 2
    assert store.count("execute_request") == 4
    assert carl in ctx.fetch("Person", "name BEGINSWITH %@", "C")
    people["bob"].name = "Bobby"
    assert [p.name for p in ctx.fetch("Person", "name == %@", "Bobby")] == ["Bobby"]  # a pending update


def test_the_fetch_request_the_hook_gets(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = stack.context
    request = og.FetchRequest("Person", ["-age", "name"], og.Predicate("age > %@", 1))
    request.limit, request.offset = 5, 0
    request.include_subentities = True
    ctx.fetch(request)
    seen = stack.store.calls[-1][2]
    assert isinstance(seen, og.FetchRequest) and seen is not request
    assert seen.request_type == "fetch" and seen.result_type == "object"
    assert seen.entity == "Person" and seen.sort == [("age", False), ("name", True)]
    assert seen.predicate is not None and seen.predicate.format == "age > 1"
    assert seen.limit == 5 and seen.offset == 0 and seen.include_subentities
    assert stack.store.calls[-1][3] is ctx  # the context fetching
    ctx.count("Person", include_subentities=False)
    seen = stack.store.calls[-1][2]
    assert seen.result_type == "count" and not seen.include_subentities and seen.predicate is None
    ctx.fetch_dicts("Person")
    assert stack.store.calls[-1][2].result_type == "dictionary"


def test_the_store_sorts_and_windows_and_the_library_does_over_pending_changes(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx, store = stack.context, stack.store
    assert [p.name for p in ctx.fetch("Person", sort="-age")] == ["Bob", "Ann"]
    assert [p.name for p in ctx.fetch("Person", sort="name", limit=1)] == ["Ann"]
    assert [p.name for p in ctx.fetch("Person", sort="name", offset=1)] == ["Bob"]
    assert store.calls[-1][2].offset == 1
    ctx.insert("Person", name="Aaron", age=50)
    assert [p.name for p in ctx.fetch("Person", sort="name", limit=2)] == ["Aaron", "Ann"]
    assert store.calls[-1][2].limit == 0  # with changes pending, the library windows the merged result
    assert [p.name for p in ctx.fetch("Person", sort="-age", offset=1, limit=1)] == ["Bob"]


def test_a_fetch_of_a_superentity_includes_its_subentities_unless_told_not_to(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    everyone = ctx.fetch("Person", sort="name")
    assert [(p.entity_name, p.name) for p in everyone] == [("Person", "Ann"), ("Employee", "Bob")]
    assert [p.name for p in ctx.fetch("Person", include_subentities=False)] == ["Ann"]
    assert [p.name for p in ctx.fetch("Employee")] == ["Bob"]
    assert ctx.count("Person") == 2 and ctx.count("Person", include_subentities=False) == 1
    ctx.close()


def test_a_hook_may_answer_with_managed_objects(open_stack) -> None:
    stack = open_stack(ReturnObjects=True)
    seed(stack)
    ctx = reader(stack)
    assert sorted(p.name for p in ctx.fetch("Person")) == ["Ann", "Bob"]
    ctx.close()


def test_dictionary_and_object_id_fetches(open_stack) -> None:
    stack = open_stack()
    people = seed(stack)
    ctx = stack.context
    rows = ctx.fetch_dicts("Person", properties=["name", "age"], sort="name")
    assert rows == [{"name": "Ann", "age": 30}, {"name": "Bob", "age": 40}]
    ids = ctx.fetch_ids("Person", sort="name")
    assert ids == [people["ann"].object_id, people["bob"].object_id]
    assert all(isinstance(i, og.ObjectID) for i in ids)


# Saving.

def test_each_save_sends_exactly_one_save_request_after_obtaining_permanent_ids(open_stack) -> None:
    stack = open_stack()
    ctx, store = stack.context, stack.store
    rd = ctx.insert("Department", title="R&D")
    ann = ctx.insert("Person", name="Ann", department=rd)
    assert ann.has_temporary_id
    ctx.save()
    assert [c[0] for c in store.calls if c[0] != "load_metadata"] == ["obtain_permanent_ids", "execute_request"]
    assert set(store.calls[1][1]) == {rd, ann}
    request = store.calls[2][2]
    assert isinstance(request, og.SaveChangesRequest) and request.request_type == "save"
    assert set(request.inserted_objects) == {rd, ann} and request.updated_objects == [] == request.deleted_objects
    assert store.calls[2][3] is ctx
    assert not ann.has_temporary_id and ann.object_id == store.new_object_id("Person", "Ann")
    store.calls.clear()
    ctx.save()  # nothing to save: still one request
    assert [c[0] for c in store.calls] == ["execute_request"]
    request = store.calls[0][2]
    assert request.inserted_objects == request.updated_objects == request.deleted_objects == []
    store.calls.clear()
    ann.age = 31
    ctx.delete(rd)  # its delete rule reads its employees
    store.calls.clear()
    ctx.save()
    assert [c[0] for c in store.calls] == ["execute_request"]
    request = store.calls[0][2]
    assert request.updated_objects == [ann] and request.deleted_objects == [rd] and request.inserted_objects == []
    assert store.db["rows"]["Ann"]["values"]["age"] == 31 and "R&D" not in store.db["rows"]


def test_obtain_permanent_ids_before_a_save(open_stack) -> None:
    stack = open_stack()
    ctx, store = stack.context, stack.store
    ann = ctx.insert("Person", name="Ann")
    ctx.obtain_permanent_ids([ann])
    assert [c[0] for c in store.calls if c[0] != "load_metadata"] == ["obtain_permanent_ids"]
    assert store.calls[-1][1] == [ann]
    assert ann.object_id == store.new_object_id("Person", "Ann") and ann.is_inserted
    ctx.save()
    assert store.count("obtain_permanent_ids") == 1 and store.db["rows"]["Ann"]["entity"] == "Person"


def test_saved_objects_are_read_back_by_another_coordinator(open_stack) -> None:
    stack = open_stack("shared")
    seed(stack)
    other = open_stack("shared")
    assert other.store.uuid == stack.store.uuid
    ctx = other.context
    assert sorted(p.name for p in ctx.fetch("Person")) == ["Ann", "Bob"]
    bob = ctx.fetch("Employee")[0]
    assert bob.salary == 2.5 and bob.department.title == "R&D"


def test_a_failed_save_keeps_the_contexts_changes(open_stack) -> None:
    stack = open_stack()
    ctx, store = stack.context, stack.store
    ann = ctx.insert("Person", name="Ann")
    failure = og.StoreError("the disk is full", 134030, og.DOMAIN_COCOA)
    store.failures["execute_request"] = failure
    with pytest.raises(og.StoreError) as raised:
        ctx.save()
    assert raised.value is failure
    assert ctx.has_changes and ann.is_inserted and ctx.inserted_objects == [ann]
    assert store.db["rows"] == {}
    del store.failures["execute_request"]
    store.calls.clear()
    ctx.save()
    assert not ctx.has_changes and store.db["rows"]["Ann"]["values"]["name"] == "Ann"


def test_saving_again_from_inside_the_save_hook_is_a_clear_error(open_stack) -> None:
    stack = open_stack()
    ctx, store = stack.context, stack.store
    ctx.insert("Person", name="Ann")
    original = store.save_request
    inner: List[BaseException] = []

    def save_again(request: og.SaveChangesRequest) -> None:
        try:
            ctx.save()
        except og.Error as error:
            inner.append(error)
            raise
        original(request)

    store.save_request = save_again  # type: ignore[method-assign]
    with pytest.raises(og.UsageError) as raised:
        ctx.save()
    assert inner and raised.value is inner[0] and raised.value.code == 140002
    assert "save" in raised.value.message
    assert ctx.has_changes
    store.save_request = original  # type: ignore[method-assign]
    ctx.save()
    assert not ctx.has_changes


# Faults and relationships.

def test_new_values_for_object_runs_only_when_a_fault_fires(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    store = stack.store
    people = ctx.fetch("Person", sort="name")
    assert store.count("new_values_for_object") == 0 and all(p.is_fault for p in people)
    assert people[0].name == "Ann"
    assert store.count("new_values_for_object") == 1
    assert store.calls[-1][1] == people[0].object_id and store.calls[-1][2] is ctx
    assert people[0].age == 30 and people[0].name == "Ann"
    assert store.count("new_values_for_object") == 1
    assert people[1].salary == 2.5
    assert store.count("new_values_for_object") == 2
    ctx.close()


def test_a_to_many_is_read_once_then_kept(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    store = stack.store
    rd = ctx.fetch("Department", "title == %@", "R&D")[0]
    assert store.count("new_value_for_relationship") == 0
    assert sorted(p.name for p in rd.employees) == ["Ann", "Bob"]
    calls = [c for c in store.calls if c[0] == "new_value_for_relationship"]
    assert len(calls) == 1
    relationship, object_id, context = calls[0][1:]
    assert isinstance(relationship, og.Relationship) and relationship.name == "employees" and relationship.to_many
    assert relationship is stack.coordinator.model["Department"].relationships["employees"]
    assert object_id == rd.object_id and context is ctx
    assert len(rd.employees) == 2 and sorted(p.name for p in rd.employees) == ["Ann", "Bob"]
    assert store.count("new_value_for_relationship") == 1
    ops = ctx.fetch("Department", "title == %@", "Ops")[0]
    assert len(ops.employees) == 0
    assert store.count("new_value_for_relationship") == 2
    ctx.close()


def test_prefetching_reads_relationships_with_the_fetch(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    store = stack.store
    departments = ctx.fetch("Department", prefetch=["employees"], sort="title")
    assert store.count("execute_request") == 1 and store.count("new_value_for_relationship") == 2
    store.calls.clear()
    assert [sorted(p.name for p in d.employees) for d in departments] == [[], ["Ann", "Bob"]]
    assert store.calls == []  # read with the fetch
    ctx.close()


def test_a_to_one_comes_from_the_node_when_it_holds_it(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    ann = ctx.fetch("Person", "name == %@", "Ann")[0]
    assert ann.department.title == "R&D"
    assert stack.store.count("new_value_for_relationship") == 0
    ctx.close()


def test_a_to_one_the_node_leaves_out_is_read_when_the_row_loads(open_stack) -> None:
    stack = open_stack(ToOneInNode=False)
    seed(stack)
    ctx = reader(stack)
    store = stack.store
    ann = ctx.fetch("Person", "name == %@", "Ann")[0]
    assert store.count("new_value_for_relationship") == 0
    assert ann.name == "Ann"  # the row loads: its to-one is read with it
    calls = [c for c in store.calls if c[0] == "new_value_for_relationship"]
    assert len(calls) == 1 and calls[0][1].name == "department" and not calls[0][1].to_many
    assert ann.department.title == "R&D"
    assert store.count("new_value_for_relationship") == 1
    ctx.close()


# Object IDs and references.

def test_object_id_uris_carry_the_reference_as_apple_writes_it(open_stack) -> None:
    store = open_stack().store
    prefix = f"x-coredata://{store.uuid}/Person/p"
    slash = store.new_object_id("Person", "key with/slash")
    assert slash == prefix + "key%20with/slash" and isinstance(slash, og.ObjectID)
    assert store.new_object_id("Person", 42) == prefix + "42"
    assert store.new_object_id("Person", b"\x01\xab\xff") == prefix + "%3C01abff%3E"
    assert store.new_object_id("Person", b"\x01\x02\x03\x04\x05") == prefix + "%3C01020304%2005%3E"
    ref = uuid.UUID("12345678-9abc-def0-1234-56789abcdef0")
    assert store.new_object_id("Person", ref) == prefix + str(ref).upper()
    assert store.new_object_id(store.coordinator.model["Person"], "key with/slash") == slash  # the same, again
    assert store.new_object_id("Department", "a") != store.new_object_id("Person", "a")


def test_reference_object_gives_back_the_reference(open_stack) -> None:
    store = open_stack().store
    ref = uuid.uuid4()
    for reference in ("key with/slash", 42, -7, b"\x01\xab\xff", b"", ref, "ünï cödé"):
        assert store.reference_object(store.new_object_id("Employee", reference)) == reference
    with pytest.raises(og.TypeMismatchError):
        store.new_object_id("Person", 1.5)  # type: ignore[arg-type]
    with pytest.raises(og.TypeMismatchError):
        store.new_object_id("Person", True)
    with pytest.raises(og.UnknownEntityError):
        store.new_object_id("Nobody", "x")
    with pytest.raises(og.UsageError):
        store.reference_object("x-coredata://SOMEWHERE-ELSE/Person/p1")


def test_the_helpers_need_a_store_that_was_added() -> None:
    loose = DictStore(og.Coordinator(build_model()), None, "", {})
    with pytest.raises(og.UsageError):
        loose.new_object_id("Person", "x")
    with pytest.raises(og.UsageError):
        loose.reference_object("x-coredata://A/Person/px")


def test_object_id_parsing_of_references(open_stack) -> None:
    store = open_stack().store
    slash = store.new_object_id("Employee", "key with/slash")
    assert slash.entity == "Employee" and slash.store_uuid == store.uuid
    assert slash.primary_key is None and not slash.is_temporary
    number = store.new_object_id("Person", 42)
    assert number.entity == "Person" and number.primary_key == 42 and number.store_uuid == store.uuid
    temporary = og.ObjectID("x-coredata:///Person/tABC-1/2")
    assert temporary.is_temporary and temporary.entity == "Person" and temporary.primary_key is None
    assert temporary.store_uuid == ""
    sqlite = og.ObjectID("x-coredata://ABC/Book/p7")
    assert (sqlite.entity, sqlite.primary_key, sqlite.store_uuid, sqlite.is_temporary) == ("Book", 7, "ABC", False)


def test_object_id_for_uri_round_trips(open_stack) -> None:
    stack = open_stack()
    people = seed(stack)
    coord, store = stack.coordinator, stack.store
    for obj in people.values():
        found = coord.object_id_for_uri(obj.object_id)
        assert found == obj.object_id and isinstance(found, og.ObjectID)
    made = coord.object_id_for_uri(f"x-coredata://{store.uuid}/Person/pnot%20seen/yet")
    assert made == f"x-coredata://{store.uuid}/Person/pnot%20seen/yet"
    assert store.reference_object(made) == "not seen/yet"  # a str, even for digits:
    digits = coord.object_id_for_uri(f"x-coredata://{store.uuid}/Person/p9999")
    assert store.reference_object(digits) == "9999"
    assert coord.object_id_for_uri(f"x-coredata://{uuid.uuid4()}/Person/p1") is None
    assert coord.object_id_for_uri("not a uri") is None
    assert stack.context.object_with_id(people["bob"].object_id) is people["bob"]


# Errors from hooks.

class Refused(og.Error):
    """An application's own error class."""


@pytest.mark.parametrize("hook,action", [
    ("execute_request", lambda ctx: ctx.fetch("Person")),
    ("execute_request", lambda ctx: ctx.count("Person")),
    ("execute_request", lambda ctx: ctx.fetch_dicts("Person")),
    ("new_values_for_object", lambda ctx: ctx.fetch("Person", "name == %@", "Ann")[0].name),
    ("new_values_for_object", lambda ctx: ctx.existing_object(ctx.fetch_ids("Person", sort="name")[0])),
    ("new_value_for_relationship", lambda ctx: len(ctx.fetch("Department", "title == %@", "R&D")[0].employees)),
])
def test_an_og_error_from_a_hook_reaches_the_caller_unchanged(open_stack, hook, action) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    failure = Refused("the service said no", 4242, "com.example.Service")
    stack.store.failures[hook] = failure
    with pytest.raises(Refused) as raised:
        action(ctx)
    assert raised.value is failure
    assert (raised.value.domain, raised.value.code, raised.value.message) == ("com.example.Service", 4242,
                                                                              "the service said no")
    del stack.store.failures[hook]
    action(ctx)  # works again, and nothing was left pending
    ctx.close()


def test_other_exceptions_from_hooks_reach_the_caller_as_themselves(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    store = stack.store
    failure = ValueError("bad row")
    store.failures["new_values_for_object"] = failure
    ann = ctx.fetch("Person", "name == %@", "Ann")[0]
    with pytest.raises(ValueError) as raised:
        ann.name
    assert raised.value is failure
    del store.failures["new_values_for_object"]
    assert ann.name == "Ann"
    store.failures["obtain_permanent_ids"] = interrupt = KeyboardInterrupt()
    ctx.insert("Person", name="Dora")
    with pytest.raises(KeyboardInterrupt) as stopped:
        ctx.save()
    assert stopped.value is interrupt and ctx.has_changes
    assert store.count("execute_request") == 1  # the fetch above; no save request was sent
    del store.failures["obtain_permanent_ids"]
    ctx.save()
    ctx.close()


@pytest.mark.parametrize("hook,answer,action,error", [
    ("execute_request", "Ann", lambda ctx: ctx.fetch("Person"), og.TypeMismatchError),
    ("execute_request", {"a": 1}, lambda ctx: ctx.fetch("Person"), og.TypeMismatchError),
    ("execute_request", [1, 2], lambda ctx: ctx.fetch("Person"), og.TypeMismatchError),
    ("execute_request", None, lambda ctx: ctx.fetch("Person"), og.TypeMismatchError),
    ("execute_request", ["not an id"], lambda ctx: ctx.fetch("Person"), og.UsageError),
    ("execute_request", ["x"], lambda ctx: ctx.count("Person"), og.UsageError),
    ("execute_request", [1.5], lambda ctx: ctx.count("Person"), og.TypeMismatchError),
    ("execute_request", [{"name": "A"}, 3], lambda ctx: ctx.fetch_dicts("Person"), og.TypeMismatchError),
    ("execute_request", ["x"], lambda ctx: ctx.save(), og.TypeMismatchError),
    ("new_values_for_object", {"name": "Ann"}, lambda ctx: ctx.fetch("Person", sort="name")[0].name,
     og.TypeMismatchError),
    ("new_values_for_object", None, lambda ctx: ctx.fetch("Person", sort="name")[0].name, og.TypeMismatchError),
    ("new_values_for_object", og.IncrementalStoreNode("x-coredata://A/Person/pZ", {"name": "Z"}, 1),
     lambda ctx: ctx.fetch("Person", sort="name")[0].name, og.UsageError),
    ("new_value_for_relationship", None, lambda ctx: len(ctx.fetch("Department", sort="title")[0].employees),
     og.TypeMismatchError),
    ("new_value_for_relationship", "x", lambda ctx: len(ctx.fetch("Department", sort="title")[0].employees),
     og.TypeMismatchError),
    ("new_value_for_relationship", [3], lambda ctx: len(ctx.fetch("Department", sort="title")[0].employees),
     og.TypeMismatchError),
    ("obtain_permanent_ids", [], lambda ctx: (ctx.insert("Person", name=str(uuid.uuid4())), ctx.save()),
     og.UsageError),
    ("obtain_permanent_ids", "x", lambda ctx: (ctx.insert("Person", name=str(uuid.uuid4())), ctx.save()),
     og.TypeMismatchError),
])
def test_a_hook_answering_the_wrong_thing_is_a_clear_error(open_stack, hook, answer, action, error) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    stack.store.answers[hook] = answer
    with pytest.raises(error) as raised:
        action(ctx)
    assert raised.value.message
    del stack.store.answers[hook]
    action(ctx)  # the store answers properly again
    ctx.close()


def test_a_wrong_entity_or_a_missing_attribute_is_refused(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    store = stack.store
    store.answers["execute_request"] = [store.new_object_id("Department", "R&D")]
    with pytest.raises(og.UsageError):
        ctx.fetch("Person")
    ann = store.new_object_id("Person", "Ann")
    store.answers = {"execute_request": [ann], "new_values_for_object": og.IncrementalStoreNode(ann, {"age": 3}, 1)}
    with pytest.raises(og.UsageError) as raised:
        ctx.fetch("Person")[0].age
    assert "name" in raised.value.message
    store.answers = {}
    ctx.close()


# Nodes and save requests.

def test_incremental_store_node(open_stack) -> None:
    stack = open_stack()
    model = stack.coordinator.model
    oid = stack.store.new_object_id("Person", "Ann")
    node = og.IncrementalStoreNode(oid, {"name": "Ann", "department": None}, 3)
    assert node.object_id == oid and isinstance(node.object_id, og.ObjectID) and node.version == 3
    assert node.value_for_property("name") == "Ann"
    assert node.value_for_property(model["Person"].attributes["name"]) == "Ann"
    assert node.value_for_property("age") is None and node.value_for_property("department") is None
    node.update({"name": "Anna", "age": 31}, 4)
    assert node.version == 4 and node.value_for_property("name") == "Anna" and node.value_for_property("age") == 31
    with pytest.raises(og.TypeMismatchError):
        og.IncrementalStoreNode(oid, {"name": "Ann"}, "1")  # type: ignore[arg-type]
    with pytest.raises(og.TypeMismatchError):
        og.IncrementalStoreNode(oid, ["name"], 1)  # type: ignore[arg-type]
    with pytest.raises(og.TypeMismatchError):
        og.IncrementalStoreNode(42, {}, 1)  # type: ignore[arg-type]


def test_save_changes_request() -> None:
    request = og.SaveChangesRequest()
    assert request.request_type == "save"
    assert request.inserted_objects is request.updated_objects is request.deleted_objects is None
    assert request.locked_objects is None
    full = og.SaveChangesRequest(inserted=(), updated=[], deleted=iter([]), locked=[])
    assert full.inserted_objects == full.updated_objects == full.deleted_objects == full.locked_objects == []


def test_the_store_instance_goes_with_its_coordinator() -> None:
    name = f"Weak{next(_names)}"
    og.register_incremental_store_type(name, DictStore)
    try:
        coord = og.Coordinator(build_model())
        coord.add_store(name, "x")
        before = len(incremental._instances)
        del coord
        gc.collect()
        assert len(incremental._instances) == before - 1
    finally:
        og.unregister_store_type(name)


# The example.

def run_csv_example(*args: str) -> List[str]:
    env = dict(os.environ, PYTHONPATH=str(BINDING) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "incremental_csv.py"), *args], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def test_the_csv_example_runs(tmp_path) -> None:
    lines = run_csv_example(str(tmp_path))
    path = tmp_path / "people.csv"
    assert lines[0] == f"store CSV at {path}"
    assert lines[1] == "saved 3 people"
    assert lines[2:6] == ["  id,name,city", "  1,Ada Lovelace,London", "  2,Grace Hopper,New York",
                          "  3,Margaret Hamilton,Boston"]
    assert re.fullmatch(r"Ada Lovelace: x-coredata://[0-9A-F-]{36}/Person/p1", lines[6])
    assert lines[7] == "in London: Ada Lovelace"
    assert lines[8] == "before saving: Grace Hopper, Katherine Johnson, Margaret Hamilton"
    assert lines[9] == "deleted Ada, moved Grace, added Katherine: 3 people"
    assert lines[10:14] == ["  id,name,city", "  2,Grace Hopper,Arlington", "  3,Margaret Hamilton,Boston",
                            "  4,Katherine Johnson,Hampton"]
    assert lines[14] == "after a new start: Grace Hopper (Arlington), Katherine Johnson (Hampton), Margaret Hamilton (Boston)"
    assert len(lines) == 15
    assert path.read_text().splitlines() == [line.strip() for line in lines[10:14]]
    # A second run starts over from an empty file.
    assert run_csv_example(str(tmp_path))[1:6] == lines[1:6]


def test_the_csv_example_runs_without_arguments() -> None:
    assert run_csv_example()[-1].startswith("after a new start: Grace Hopper (Arlington)")


# Other kinds of contexts.

def test_a_queue_context_uses_the_store_on_its_queue(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = og.Context(stack.coordinator, "private")
    try:
        names = ctx.perform_and_wait(lambda: sorted(p.name for p in ctx.fetch("Person")))
        assert names == ["Ann", "Bob"]
        assert [c[3] for c in stack.store.calls if c[0] == "execute_request"][-1] is ctx
        failure = og.StoreError("offline", 134080, og.DOMAIN_COCOA)
        stack.store.failures["execute_request"] = failure
        with pytest.raises(og.StoreError) as raised:
            ctx.perform_and_wait(lambda: ctx.fetch("Person"))
        assert raised.value is failure
        del stack.store.failures["execute_request"]

        def add() -> None:
            ctx.insert("Person", name="Queued")
            ctx.save()

        ctx.perform_and_wait(add)
        assert "Queued" in stack.store.db["rows"]
    finally:
        ctx.close()


def test_a_child_context_reads_and_saves_through_its_parent(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    child = og.Context(parent=stack.context)
    try:
        assert sorted(p.name for p in child.fetch("Person")) == ["Ann", "Bob"]
        child.insert("Person", name="Kid")
        stack.store.calls.clear()
        child.save()  # into the parent only
        assert stack.store.count("execute_request") == 0
        stack.context.save()
        assert [c[1] for c in stack.store.calls if c[0] == "execute_request"] == ["save"]
        assert "Kid" in stack.store.db["rows"]
    finally:
        child.close()


def test_a_hook_may_use_the_context_it_is_given(open_stack) -> None:
    stack = open_stack()
    seed(stack)
    ctx = reader(stack)
    store = stack.store
    seen: List[int] = []
    original = DictStore.new_values_for_object

    def looking_around(self: DictStore, object_id: og.ObjectID, context: Optional[og.Context]) -> Any:
        assert context is ctx
        seen.append(context.count("Department"))  # a nested request to the same store
        return original(self, object_id, context)

    store.new_values_for_object = looking_around.__get__(store)  # type: ignore[method-assign]
    ann = ctx.fetch("Person", "name == %@", "Ann")[0]
    assert ann.name == "Ann" and seen == [2]
    ctx.close()
