"""ObjectGraph from Python (bindings/python) on the one-phase workloads: update
(a predicate fetch, attributes set, save), indexed (a predicate fetch on an
indexed attribute), traversal (authors fetched with their books prefetched),
and the batch requests: batch-insert (``ctx.batch_insert`` fed by a generator of
dicts), batch-update, batch-delete, and upsert (a batch insert into an entity
with a uniqueness constraint, under MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP);
history (``ctx.history(after=token)``, every change's ``kind`` and ``object_id``
read, and main's insert into a store added with and without
``history_tracking=True``). Fetches use keyword arguments only (``where=``,
``prefetch=``)."""

import sqlite3
import time

import bench_common as common
import bench_phase as phase
import objectgraph as og

COLUMNS = [f"ZA{k}" for k in range(10)]


def _item_stack(path, indexed, unique_a0=False, history_tracking=False):
    model = og.Model()
    item = model.add_entity("Item")
    for name in common.ATTRIBUTES:
        attribute = item.add_attribute(name, "integer64")
        if indexed and name == "a0":
            attribute.indexed = True
    if unique_a0:
        item.uniqueness_constraints = [["a0"]]
    return _open(model, path, history_tracking)


def _item_dicts(numbers):
    """The rows of a batch insert: main's items ``i`` in ``numbers`` as dicts."""
    for i in numbers:
        b = i * 10
        yield {"a0": b, "a1": b + 1, "a2": b + 2, "a3": b + 3, "a4": b + 4,
               "a5": b + 5, "a6": b + 6, "a7": b + 7, "a8": b + 8, "a9": b + 9}


def _library_stack(path):
    model = og.Model()
    author = model.add_entity("Author")
    book = model.add_entity("Book")
    author.add_attribute("name", "string")
    book.add_attribute("title", "string")
    author.add_relationship("books", book, to_many=True, delete_rule="cascade")
    book.add_relationship("author", author, inverse="books")
    return _open(model, path)


def _open(model, path, history_tracking=False):
    coordinator = og.Coordinator(model)
    if history_tracking:
        coordinator.add_store("SQLite", path, history_tracking=True)
    else:
        coordinator.add_store("SQLite", path)
    return model, coordinator, og.Context(coordinator)


def _insert_items(context, numbers):
    """Main's insert (og_bench.py): the items ``i`` in ``numbers`` with keyword values."""
    for i in numbers:
        b = i * 10
        context.insert("Item", a0=b, a1=b + 1, a2=b + 2, a3=b + 3, a4=b + 4,
                       a5=b + 5, a6=b + 6, a7=b + 7, a8=b + 8, a9=b + 9)


def prepare_history_store(path, sizes):
    """history's read store (preparation, not timed; the Python sqlite3 contender uses it
    too): 1,000 items saved in one transaction, whose token is kept, then
    ``sizes.history_changes`` items saved in transactions of 1,000, the context reset
    after each save. Returns the token and its transaction number."""
    stack = _item_stack(path, indexed=False, history_tracking=True)
    coordinator, context = stack[1], stack[2]
    step, end = phase.HISTORY_TRANSACTION, phase.HISTORY_TRANSACTION + sizes.history_changes
    token = None
    for first in range(0, end, step):
        _insert_items(context, range(first, min(first + step, end)))
        context.save()
        context.reset()
        if token is None:
            token = coordinator.current_history_token()
    _close(*stack)
    connection = sqlite3.connect(path)
    number = connection.execute("SELECT MIN(Z_PK) FROM ATRANSACTION").fetchone()[0]
    connection.close()
    return token, number


def _close(model, coordinator, context):
    context.close()
    coordinator.close()
    model.close()


def _fill(path, rows):
    """Fills ZITEM of a store ObjectGraph has just created with SQL (as ItemFill.swift)."""
    connection = sqlite3.connect(path, isolation_level=None)
    entity = connection.execute("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'").fetchone()[0]
    values = ", ".join(f"(value - 1) * 10 + {k}" for k in range(10))
    connection.execute("BEGIN")
    connection.execute(
        f"WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < {rows}) "
        f"INSERT INTO ZITEM (Z_PK, {', '.join(COLUMNS)}, Z_ENT, Z_OPT) SELECT value, {values}, {entity}, 1 FROM n")
    connection.execute(f"UPDATE Z_PRIMARYKEY SET Z_MAX = {rows} WHERE Z_NAME = 'Item'")
    connection.execute("COMMIT")
    connection.close()


class ObjectGraphPhases:
    name = "og-python"
    table = "ZITEM"
    columns = COLUMNS
    about = f"{common.PYTHON}, libobjectgraph {og.library_version()}"

    def prepare_update(self, path, sizes):
        _close(*_item_stack(path, indexed=False))
        _fill(path, sizes.update_rows)

    def run_update(self, path, sizes):
        stack = _item_stack(path, indexed=False)
        context = stack[2]
        start = common.clock()
        objects = context.fetch("Item", where=f"a0 < {sizes.update_count * 10}")
        for o in objects:
            o.a9 = o.a9 + 1
        context.save()
        elapsed = time.perf_counter() - start
        count = len(objects)
        del objects  # released outside the timed block
        _close(*stack)
        return elapsed, count, 0

    def prepare_indexed(self, path, sizes):
        _close(*_item_stack(path, indexed=True))
        _fill(path, sizes.indexed_rows)

    def run_indexed(self, path, sizes):
        stack = _item_stack(path, indexed=True)
        context = stack[2]
        low, high = sizes.indexed_range.start * 10, sizes.indexed_range.stop * 10
        start = common.clock()
        objects = context.fetch("Item", where=f"a0 >= {low} AND a0 < {high}")
        total = 0
        for o in objects:
            total += o.a0 + o.a1 + o.a2 + o.a3 + o.a4 + o.a5 + o.a6 + o.a7 + o.a8 + o.a9
        elapsed = time.perf_counter() - start
        count = len(objects)
        del objects  # released outside the timed block
        _close(*stack)
        return elapsed, count, total

    def prepare_traversal(self, path, sizes):
        stack = _library_stack(path)
        context = stack[2]
        for a in range(sizes.authors):
            author = context.insert("Author", name=phase.author_name(a))
            for b in range(sizes.books_per_author):
                context.insert("Book", title=phase.title(a, b), author=author)
        context.save()
        _close(*stack)

    def run_traversal(self, path, sizes):
        stack = _library_stack(path)
        context = stack[2]
        start = common.clock()
        authors = context.fetch("Author", prefetch=["books"])
        count = total = 0
        for author in authors:
            for book in author.books:
                total += len(book.title.encode())
                count += 1
        elapsed = time.perf_counter() - start
        del authors  # released outside the timed block
        _close(*stack)
        return elapsed, count, total

    def prepare_batch_insert(self, path, sizes):
        pass  # every run makes its own empty store

    def run_batch_insert(self, path, sizes):
        common.remove_store(path)
        stack = _item_stack(path, indexed=False)
        start = common.clock()
        count = stack[2].batch_insert("Item", _item_dicts(range(sizes.batch_insert_rows)))
        elapsed = time.perf_counter() - start
        _close(*stack)
        return elapsed, count, 0

    def prepare_batch_update(self, path, sizes):
        template = phase.template_path(path)
        _close(*_item_stack(template, indexed=False))
        _fill(template, sizes.batch_rows)

    def run_batch_update(self, path, sizes):
        phase.restore(path)
        stack = _item_stack(path, indexed=False)
        start = common.clock()
        count = stack[2].batch_update("Item", "a0 >= %@", 0, values={"a9": phase.BATCH_UPDATE_VALUE})
        elapsed = time.perf_counter() - start
        _close(*stack)
        return elapsed, count, 0

    def prepare_batch_delete(self, path, sizes):
        template = phase.template_path(path)
        _close(*_item_stack(template, indexed=False))
        _fill(template, sizes.batch_rows)

    def run_batch_delete(self, path, sizes):
        phase.restore(path)
        stack = _item_stack(path, indexed=False)
        start = common.clock()
        count = stack[2].batch_delete("Item", "a0 >= %@", 0)
        elapsed = time.perf_counter() - start
        _close(*stack)
        return elapsed, count, 0

    def prepare_upsert(self, path, sizes):
        template = phase.template_path(path)
        _close(*_item_stack(template, indexed=False, unique_a0=True))
        _fill(template, sizes.batch_rows)

    def run_upsert(self, path, sizes):
        phase.restore(path)
        stack = _item_stack(path, indexed=False, unique_a0=True)
        context = stack[2]
        context.merge_policy = og.MergePolicy.MERGE_BY_PROPERTY_OBJECT_TRUMP
        start = common.clock()
        count = context.batch_insert("Item", _item_dicts(sizes.upsert_range))
        elapsed = time.perf_counter() - start
        _close(*stack)
        return elapsed, count, 0

    def prepare_history(self, path, sizes):
        self._token, _ = prepare_history_store(path, sizes)

    def run_history(self, path, sizes):
        stack = _item_stack(path, indexed=False, history_tracking=True)
        context = stack[2]
        start = common.clock()
        transactions = context.history(after=self._token)
        inserts = keys = 0
        for transaction in transactions:
            for change in transaction.changes:
                if change.kind == "insert":
                    inserts += 1
                keys += change.object_id.primary_key
        elapsed = time.perf_counter() - start
        del transactions  # released outside the timed block
        _close(*stack)
        return elapsed, inserts, keys

    def history_insert(self, path, count, tracking):
        """Main's insert (og_bench.py) into a new store, history tracking on or off."""
        common.remove_store(path)
        stack = _item_stack(path, indexed=False, history_tracking=tracking)
        start = common.clock()
        _insert_items(stack[2], range(count))
        stack[2].save()
        elapsed = time.perf_counter() - start
        _close(*stack)
        return elapsed


if __name__ == "__main__":
    phase.main(ObjectGraphPhases())
