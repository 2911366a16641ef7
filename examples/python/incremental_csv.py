"""An incremental store (Core Data's NSIncrementalStore) over a CSV file: the
store reads the file's rows as objects when asked and writes every save back by
rewriting the file; the library does the rest (faults, unsaved changes merged
into fetches, permanent IDs). Each row's "id" column is the reference that
names its object.

    OBJECTGRAPH_LIBRARY=build/swiftpm/release/libobjectgraph.so \
        PYTHONPATH=bindings/python python3 examples/python/incremental_csv.py [folder]
"""

import csv
import os
import sys
import tempfile
import uuid
from typing import Any, Dict, List, Optional

import objectgraph as og

COLUMNS = ["id", "name", "city"]


class CSVStore(og.IncrementalStore):
    """People in a CSV file, one row each."""

    def load_metadata(self) -> None:
        # The UUID lives beside the file: object IDs stay the same from one run to the next.
        uuid_path = self.path + ".uuid"
        if not os.path.exists(uuid_path):
            with open(uuid_path, "w") as f:
                f.write(str(uuid.uuid4()).upper())
        with open(uuid_path) as f:
            self.metadata = {"NSStoreType": self.type, "NSStoreUUID": f.read().strip()}

    def rows(self) -> Dict[int, Dict[str, str]]:
        """The file's rows by id ({} when there is no file yet)."""
        if not os.path.exists(self.path):
            return {}
        with open(self.path, newline="") as f:
            return {int(row["id"]): row for row in csv.DictReader(f)}

    def execute_request(self, request: Any, context: Optional[og.Context]) -> List[Any]:
        if request.request_type == "save":
            rows = self.rows()
            for person in request.inserted_objects + request.updated_objects:
                key = int(self.reference_object(person.object_id))  # the id this store gave it
                rows[key] = {"id": str(key), "name": person.name, "city": person.city or ""}
            for person in request.deleted_objects:
                rows.pop(int(self.reference_object(person.object_id)), None)
            # All or nothing: a new file replaces the old one.
            with open(self.path + ".new", "w", newline="") as f:
                writer = csv.DictWriter(f, COLUMNS)
                writer.writeheader()
                writer.writerows(rows[key] for key in sorted(rows))
            os.replace(self.path + ".new", self.path)
            return []
        # A fetch: this store applies the predicate, the sort and the window.
        found = [(key, row) for key, row in self.rows().items()
                 if request.predicate is None or request.predicate.evaluate(row)]
        for key_path, ascending in reversed(request.sort):
            found.sort(key=lambda item: item[1][key_path], reverse=not ascending)
        found = found[request.offset:request.offset + request.limit if request.limit else None]
        if request.result_type == "count":
            return [len(found)]
        if request.result_type == "dictionary":
            return [{"name": row["name"], "city": row["city"]} for _, row in found]
        return [self.new_object_id("Person", key) for key, _ in found]

    def new_values_for_object(self, object_id: og.ObjectID, context: Optional[og.Context]) -> og.IncrementalStoreNode:
        row = self.rows()[int(self.reference_object(object_id))]
        return og.IncrementalStoreNode(object_id, {"name": row["name"], "city": row["city"] or None}, 1)

    def obtain_permanent_ids(self, objects: List[og.ManagedObject]) -> List[og.ObjectID]:
        first = max(self.rows(), default=0) + 1
        return [self.new_object_id(person.entity, first + n) for n, person in enumerate(objects)]


def build_model() -> og.Model:
    model = og.Model()
    person = model.add_entity("Person")
    person.add_attribute("name", "string", optional=False)
    person.add_attribute("city", "string")
    return model


def show(path: str) -> None:
    with open(path) as f:
        for line in f.read().splitlines():
            print("  " + line)


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "people.csv")
    for old in (path, path + ".uuid"):  # start from an empty file
        if os.path.exists(old):
            os.remove(old)
    og.register_incremental_store_type("CSV", CSVStore)

    with og.Coordinator(build_model()) as coordinator:
        store = coordinator.add_store("CSV", path)  # a CSVStore
        print(f"store {store.type} at {store.path}")
        with og.Context(coordinator) as ctx:
            ada = ctx.insert("Person", name="Ada Lovelace", city="London")
            grace = ctx.insert("Person", name="Grace Hopper", city="New York")
            ctx.insert("Person", name="Margaret Hamilton", city="Boston")
            ctx.save()  # one save request, after obtain_permanent_ids named each new row
            print(f"saved {ctx.count('Person')} people")
            show(path)
            print(f"{ada.name}: {ada.object_id}")
            print("in London:", ", ".join(p.name for p in ctx.fetch("Person", "city == %@", "London")))
            ctx.delete(ada)
            grace.city = "Arlington"
            ctx.insert("Person", name="Katherine Johnson", city="Hampton")
            # Unsaved changes are merged into what the store answers.
            print("before saving:", ", ".join(p.name for p in ctx.fetch("Person", sort="name")))
            ctx.save()  # the file is rewritten once: one row deleted, one changed, one added
            print(f"deleted Ada, moved Grace, added Katherine: {ctx.count('Person')} people")
            show(path)

    # A new stack reads the file again: its objects are faults, filled from their rows when read.
    with og.Coordinator(build_model()) as coordinator:
        coordinator.add_store("CSV", path)
        with og.Context(coordinator) as ctx:
            people = ctx.fetch("Person", sort="name")
            print("after a new start: " + ", ".join(f"{p.name} ({p.city})" for p in people))
    og.unregister_store_type("CSV")


if __name__ == "__main__":
    main()
