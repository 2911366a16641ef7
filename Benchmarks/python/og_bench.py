"""ObjectGraph from Python (bindings/python): objects inserted with keyword values,
attributes read as Python attributes. The same code runs main on an SQLite file and
the postgres workload on a PostgreSQL store (``add_store("PostgreSQL", url,
schema=…)``). Needs OBJECTGRAPH_LIBRARY (or an installed library) and
bindings/python on PYTHONPATH; bench.sh sets both."""

import time

import bench_common as common
import objectgraph as og


class ObjectGraphPython:
    name = "og-python"
    insert_table = "ZITEM"
    insert_columns = [f"ZA{k}" for k in range(10)]
    about = f"{common.PYTHON}, libobjectgraph {og.library_version()}"
    postgres = True

    @staticmethod
    def _open(store):
        model = og.Model()
        item = model.add_entity("Item")
        for name in common.ATTRIBUTES:
            item.add_attribute(name, "integer64")
        coordinator = og.Coordinator(model)
        coordinator.add_store(store.type, store.path, schema=store.schema)
        return model, coordinator, og.Context(coordinator)

    @staticmethod
    def _close(model, coordinator, context):
        context.close()
        coordinator.close()
        model.close()

    def insert(self, store, count):
        stack = self._open(store)
        context = stack[2]
        start = common.clock()
        for i in range(count):
            b = i * 10
            context.insert("Item", a0=b, a1=b + 1, a2=b + 2, a3=b + 3, a4=b + 4,
                           a5=b + 5, a6=b + 6, a7=b + 7, a8=b + 8, a9=b + 9)
        context.save()
        elapsed = time.perf_counter() - start
        self._close(*stack)
        return elapsed

    def fetch(self, store):
        stack = self._open(store)
        context = stack[2]
        start = common.clock()
        objects = context.fetch("Item")
        total = 0
        for o in objects:
            total += o.a0 + o.a1 + o.a2 + o.a3 + o.a4 + o.a5 + o.a6 + o.a7 + o.a8 + o.a9
        elapsed = time.perf_counter() - start
        count = len(objects)
        del objects  # released outside the timed block
        self._close(*stack)
        return elapsed, total, count


if __name__ == "__main__":
    common.main(ObjectGraphPython())
