"""ObjectGraph for Python: Core Data's object graph and persistence, through
libobjectgraph's C interface.

    import objectgraph as og
    model = og.Model.load("Books.json")
    coord = og.Coordinator(model)
    coord.add_store("SQLite", "books.sqlite")
    with og.Context(coord) as ctx:
        book = ctx.insert("Book", title="Strata", pages=300)
        ctx.save()
        for b in ctx.fetch("Book", sort=["title", "-year"], where=og.Predicate("pages > %@", 200)):
            print(b.title)

The library is found through $OBJECTGRAPH_LIBRARY, then a libobjectgraph.so*
next to this package, then the system loader.
"""

from ._lib import LibraryNotFoundError, lib as _c, library_path
from . import codes as _codes
from .codes import *  # noqa: F401,F403  (og.UNKNOWN_KEY, og.INCOMPATIBLE_VERSION_HASH, ...)
from .context import Context, Notification, Observer
from .coordinator import (
    IGNORE_VERSIONING_OPTION,
    INFER_MAPPING_OPTION,
    MIGRATE_AUTOMATICALLY_OPTION,
    READ_ONLY_OPTION,
    SQLITE_ANALYZE_OPTION,
    SQLITE_MANUAL_VACUUM_OPTION,
    SQLITE_PRAGMAS_OPTION,
    TIMEOUT_OPTION,
    Coordinator,
    Store,
    register_atomic_store_type,
    unregister_store_type,
)
from .enums import AttributeType, DeleteRule, MergePolicy, PropertyKind, ValueType
from .errors import (
    DOMAIN_COCOA,
    DOMAIN_OBJECTGRAPH,
    DOMAIN_SQLITE,
    ConstraintConflictError,
    Error,
    ErrorCode,
    IncompatibleStoreError,
    InvalidHandleError,
    MergeConflict,
    MergeConflictError,
    MigrationError,
    ModelError,
    PredicateArgumentError,
    PredicateError,
    PredicateEvaluationError,
    PredicateSyntaxError,
    PredicateVariableError,
    StoreError,
    TypeMismatchError,
    UnknownEntityError,
    UnknownKeyError,
    UsageError,
    ValidationError,
    WrongThreadError,
)
from .fetch import FetchRequest
from .fetch_index import FetchIndex, FetchIndexElement
from .migration import (
    EntityMapping,
    EntityMigrationPolicy,
    MappingModel,
    MigrationManager,
    PropertyMapping,
    register_migration_policy,
    unregister_migration_policy,
)
from .results import Expression, ObjectID
from .model import Attribute, Entity, FetchedProperty, FetchRequestTemplate, Model, Property, Relationship
from .objects import ManagedObject, RelatedOrderedSet, RelatedSet
from .predicate import Predicate
from .sqldebug import set_sql_debug, sql_debug_level
from .transformable import (
    register_archivable_class,
    register_value_transformer,
    unregister_archivable_class,
    unregister_value_transformer,
)
from .undo import UndoManager

__version__ = "0.1.0"


def library_version() -> str:
    """The version of the loaded libobjectgraph ("MAJOR.MINOR.PATCH")."""
    return (_c.og_version() or b"").decode()



__all__ = [
    "Notification",
    "Observer",
    "Attribute",
    "AttributeType",
    "Context",
    "ConstraintConflictError",
    "Coordinator",
    "DeleteRule",
    "DOMAIN_COCOA",
    "DOMAIN_OBJECTGRAPH",
    "DOMAIN_SQLITE",
    "Entity",
    "EntityMapping",
    "EntityMigrationPolicy",
    "Error",
    "ErrorCode",
    "Expression",
    "FetchIndex",
    "FetchIndexElement",
    "FetchRequest",
    "FetchRequestTemplate",
    "INFER_MAPPING_OPTION",
    "IncompatibleStoreError",
    "InvalidHandleError",
    "LibraryNotFoundError",
    "MIGRATE_AUTOMATICALLY_OPTION",
    "ManagedObject",
    "MappingModel",
    "MergeConflict",
    "MergeConflictError",
    "MergePolicy",
    "MigrationError",
    "MigrationManager",
    "Model",
    "ModelError",
    "ObjectID",
    "Predicate",
    "PredicateArgumentError",
    "PredicateError",
    "PredicateEvaluationError",
    "PredicateSyntaxError",
    "PredicateVariableError",
    "Property",
    "PropertyKind",
    "PropertyMapping",
    "RelatedOrderedSet",
    "RelatedSet",
    "Relationship",
    "FetchedProperty",
    "Store",
    "StoreError",
    "TypeMismatchError",
    "UnknownEntityError",
    "UndoManager",
    "UnknownKeyError",
    "UsageError",
    "ValidationError",
    "ValueType",
    "WrongThreadError",
    "library_path",
    "register_archivable_class",
    "register_atomic_store_type",
    "register_value_transformer",
    "unregister_archivable_class",
    "unregister_value_transformer",
    "register_migration_policy",
    "unregister_store_type",
    "unregister_migration_policy",
    "library_version",
    "set_sql_debug",
    "sql_debug_level",
] + [_name for _name in dir(_codes) if _name.isupper()]
