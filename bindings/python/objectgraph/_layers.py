"""The package's modules in layers, lowest first.

A module imports only modules of lower layers, never one of its own layer or a
higher one, wherever the import stands (at the top of the module or inside a
function), so the imports make no cycle; tests/test_package_layers.py checks it.
Imports under ``if TYPE_CHECKING:`` only name types for annotations and never run:
they are not counted. Where a lower module must reach a higher one, the lower one
defines what it needs and the higher one provides it (values.Boxable, which
entities and managed objects subclass; errors.set_conflict_reader, which
_conflicts.py calls), as the engine's layers do (DESIGN §1).

A new module goes into the lowest layer above everything it imports.
"""

LAYERS = (
    # Plain Python: finding the library, owned handles, object IDs, batch rows by column, this list.
    ("_layers", "_loader", "_handle", "_object_id", "_batch_columns"),
    # The library, every C function of include/objectgraph.h declared.
    ("_lib",),
    # The exceptions, and an og_error turned into one.
    ("errors",),
    # Error codes and enumerations; text in and out, callback exceptions kept for the next call.
    ("codes", "enums", "_util"),
    # Calling into the library and raising its error: the one helper family.
    ("_call",),
    # What needs no values: allowed archivable classes, result columns, undo managers, SQL
    # logging, the frame add_store runs in.
    ("_archive", "_columns", "undo", "sqldebug", "_adding"),
    # Python values and og_value.
    ("values",),
    # What holds values: fetch results, merge conflicts, value transformers, predicates, the
    # callbacks of contexts, properties.
    ("results", "_conflicts", "transformable", "predicate", "graph", "properties"),
    # Fetch requests; fetch indexes (of properties).
    ("fetch", "fetch_index"),
    # Batch requests and asynchronous fetches (built from fetch requests and predicates);
    # fetched results controllers (fetch requests and the callbacks of contexts).
    ("batch", "async_fetch", "results_controller"),
    # Entities, then the model that holds them.
    ("entity",),
    ("model",),
    # Slot layouts of a model's entities; mapping models between two models; persistent
    # history (its entity descriptions are entities of a model of their own).
    ("_layout", "mapping", "history"),
    # Managed objects; coordinators and their stores.
    ("objects", "coordinator"),
    # The per-entity classes of managed objects and their accessors (the hot path); the
    # bases and annotations of typed entity classes.
    ("_accessors", "typed"),
    # Contexts, in three steps: objects, fetching, the rest.
    ("_context_base",),
    ("_context_fetch",),
    # Running batch requests.
    ("_context_batch",),
    ("context",),
    # What runs through contexts: the classes of incremental stores, migration; then the
    # registration of incremental store types and their callbacks; persistent containers.
    ("_incremental_store", "migration"),
    ("incremental", "container"),
    # The package's names; the store tool (objectgraph.tool, a client of the package); its
    # command line (python -m objectgraph).
    ("__init__",),
    ("tool",),
    ("__main__",),
)
