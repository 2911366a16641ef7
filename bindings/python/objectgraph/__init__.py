"""ObjectGraph for Python: Core Data's object graph and persistence, through
libobjectgraph's C interface.

    import objectgraph as og
    model = og.Model.load("Books.json")
    coord = og.Coordinator(model)
    coord.add_store("SQLite", "books.sqlite")
    with og.Context(coord) as ctx:
        book = ctx.insert("Book", title="Strata", pages=300)
        ctx.save()
        for b in ctx.fetch("Book", "pages > %@", 200, sort=["title", "-year"]):
            print(b.title)

The library is found through $OBJECTGRAPH_LIBRARY, then a libobjectgraph.so*
next to this package, then the system loader.

The modules stand in layers (_layers.py lists them), lowest first: the library
and its errors (_loader, _lib, errors); calling into it (_util, _call); values
(values, results, predicate, transformable); the model (properties, entity,
model, mapping); objects and coordinators (objects, coordinator); contexts
(_context_base, _context_fetch, context); incremental stores and migration; then
this module. A module imports only from lower layers.
"""

from . import _conflicts  # noqa: F401  (installs the reader of merge errors' conflicts in errors.py)
from ._lib import LibraryNotFoundError, lib as _c, library_path
from .codes import (  # og.UNKNOWN_KEY, og.INCOMPATIBLE_VERSION_HASH, ...
    CONSTRAINT_MERGE, CONTEXT_LOCKING, COORDINATOR_LOCKING, CORE_DATA, EXTERNAL_RELATIONSHIP, HISTORY_TOKEN_EXPIRED,
    INCOMPATIBLE_VERSION_HASH, INFERRED_MAPPING_MODEL, INVALID_ARGUMENT, INVALID_HANDLE, INVALID_MODEL, INVALID_UTF8,
    MERGE, MIGRATION, MIGRATION_CANCELLED, MIGRATION_CONSTRAINT_VIOLATION, MIGRATION_DESTINATION_STORE,
    MIGRATION_MISSING_MAPPING_MODEL, MIGRATION_MISSING_SOURCE_MODEL, MIGRATION_POLICY, MIGRATION_SOURCE_STORE,
    MISSING_MANDATORY_PROPERTY, MODEL_IMMUTABLE, OBJECT_INACCESSIBLE, PERSISTENT_STORE_INVALID_TYPE,
    PERSISTENT_STORE_OPEN, PREDICATE_ARGUMENT, PREDICATE_EVALUATION, PREDICATE_SYNTAX, PREDICATE_VARIABLE,
    REFERENTIAL_INTEGRITY, SQLITE, STORE_INCOMPATIBLE_SCHEMA, STORE_INCOMPATIBLE_VERSION, STORE_INCOMPLETE_SAVE,
    STORE_INVALID_TYPE, STORE_OPEN, STORE_OPERATION, STORE_SAVE, STORE_SAVE_CONFLICTS, STORE_TIMEOUT,
    STORE_TYPE_MISMATCH, STORE_UNSUPPORTED_REQUEST, TYPE_MISMATCH, UNKNOWN_ENTITY, UNKNOWN_KEY, VALIDATION,
    VALIDATION_CONSTRAINT, VALIDATION_DATE_TOO_LATE, VALIDATION_DATE_TOO_SOON, VALIDATION_DENIED_DELETE,
    VALIDATION_INVALID_DATE, VALIDATION_MISSING_MANDATORY, VALIDATION_MULTIPLE, VALIDATION_MULTIPLE_ERRORS,
    VALIDATION_NUMBER_TOO_LARGE, VALIDATION_NUMBER_TOO_SMALL, VALIDATION_RELATIONSHIP_TOO_FEW,
    VALIDATION_RELATIONSHIP_TOO_MANY, VALIDATION_STRING_PATTERN, VALIDATION_STRING_TOO_LONG,
    VALIDATION_STRING_TOO_SHORT, WRONG_THREAD,
)
from .context import Context, Notification, Observer
from .coordinator import (
    IGNORE_VERSIONING_OPTION,
    INFER_MAPPING_OPTION,
    MIGRATE_AUTOMATICALLY_OPTION,
    POSTGRESQL_SCHEMA_OPTION,
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
from .history import HISTORY_TRACKING_OPTION, REMOTE_CHANGE_OPTION, Change, HistoryChangeRequest, HistoryToken, Transaction
from .errors import (
    DOMAIN_COCOA,
    DOMAIN_OBJECTGRAPH,
    DOMAIN_SQLITE,
    ConstraintConflict,
    ConstraintConflictError,
    Error,
    ErrorCode,
    IncompatibleStoreError,
    InvalidHandleError,
    MergeConflict,
    MergeConflictError,
    MigrationError,
    ModelError,
    ModelFileNotFoundError,
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
from .async_fetch import AsynchronousFetchRequest, AsynchronousFetchResult
from .batch import BatchDeleteRequest, BatchInsertRequest, BatchUpdateRequest
from .container import PersistentContainer, PersistentStoreDescription
from .fetch import FetchRequest
from .fetch_index import FetchIndex, FetchIndexElement
from .incremental import (
    IncrementalStore,
    IncrementalStoreNode,
    SaveChangesRequest,
    register_incremental_store_type,
    registered_store_types,
)
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
from .results_controller import FetchedResultsController, Section
from .sqldebug import set_sql_debug, sql_debug_level
from .typed import OrderedToMany, ToMany, TypedObject
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



# Static, so that type checkers see every exported name; a test keeps the codes in step with
# objectgraph.codes.
__all__ = [
    "Attribute",
    "AttributeType",
    "ConstraintConflict",
    "ConstraintConflictError",
    "Context",
    "Coordinator",
    "DOMAIN_COCOA",
    "DOMAIN_OBJECTGRAPH",
    "DOMAIN_SQLITE",
    "DeleteRule",
    "Entity",
    "EntityMapping",
    "EntityMigrationPolicy",
    "Error",
    "ErrorCode",
    "Expression",
    "FetchIndex",
    "FetchIndexElement",
    "FetchRequest",
    "BatchInsertRequest",
    "BatchUpdateRequest",
    "BatchDeleteRequest",
    "AsynchronousFetchRequest",
    "AsynchronousFetchResult",
    "FetchedResultsController",
    "Section",
    "FetchRequestTemplate",
    "FetchedProperty",
    "INFER_MAPPING_OPTION",
    "IncompatibleStoreError",
    "IncrementalStore",
    "IncrementalStoreNode",
    "InvalidHandleError",
    "PersistentContainer",
    "PersistentStoreDescription",
    "LibraryNotFoundError",
    "MIGRATE_AUTOMATICALLY_OPTION",
    "HISTORY_TRACKING_OPTION",
    "REMOTE_CHANGE_OPTION",
    "POSTGRESQL_SCHEMA_OPTION",
    "HistoryToken",
    "Transaction",
    "Change",
    "HistoryChangeRequest",
    "ManagedObject",
    "MappingModel",
    "MergeConflict",
    "MergeConflictError",
    "MergePolicy",
    "MigrationError",
    "MigrationManager",
    "Model",
    "ModelError",
    "ModelFileNotFoundError",
    "Notification",
    "ObjectID",
    "Observer",
    "OrderedToMany",
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
    "SaveChangesRequest",
    "Store",
    "StoreError",
    "ToMany",
    "TypeMismatchError",
    "TypedObject",
    "UndoManager",
    "UnknownEntityError",
    "UnknownKeyError",
    "UsageError",
    "ValidationError",
    "ValueType",
    "WrongThreadError",
    "library_path",
    "library_version",
    "register_archivable_class",
    "register_atomic_store_type",
    "register_incremental_store_type",
    "registered_store_types",
    "register_value_transformer",
    "unregister_archivable_class",
    "unregister_value_transformer",
    "register_migration_policy",
    "set_sql_debug",
    "sql_debug_level",
    "unregister_migration_policy",
    "unregister_store_type",
    # Error codes (objectgraph.codes)
    "CONSTRAINT_MERGE",
    "CONTEXT_LOCKING",
    "COORDINATOR_LOCKING",
    "CORE_DATA",
    "EXTERNAL_RELATIONSHIP",
    "HISTORY_TOKEN_EXPIRED",
    "INCOMPATIBLE_VERSION_HASH",
    "INFERRED_MAPPING_MODEL",
    "INVALID_ARGUMENT",
    "INVALID_HANDLE",
    "INVALID_MODEL",
    "INVALID_UTF8",
    "MERGE",
    "MIGRATION",
    "MIGRATION_CANCELLED",
    "MIGRATION_CONSTRAINT_VIOLATION",
    "MIGRATION_DESTINATION_STORE",
    "MIGRATION_MISSING_MAPPING_MODEL",
    "MIGRATION_MISSING_SOURCE_MODEL",
    "MIGRATION_POLICY",
    "MIGRATION_SOURCE_STORE",
    "MISSING_MANDATORY_PROPERTY",
    "MODEL_IMMUTABLE",
    "OBJECT_INACCESSIBLE",
    "PERSISTENT_STORE_INVALID_TYPE",
    "PERSISTENT_STORE_OPEN",
    "PREDICATE_ARGUMENT",
    "PREDICATE_EVALUATION",
    "PREDICATE_SYNTAX",
    "PREDICATE_VARIABLE",
    "REFERENTIAL_INTEGRITY",
    "SQLITE",
    "STORE_INCOMPATIBLE_SCHEMA",
    "STORE_INCOMPATIBLE_VERSION",
    "STORE_INCOMPLETE_SAVE",
    "STORE_INVALID_TYPE",
    "STORE_OPEN",
    "STORE_OPERATION",
    "STORE_SAVE",
    "STORE_SAVE_CONFLICTS",
    "STORE_TIMEOUT",
    "STORE_TYPE_MISMATCH",
    "STORE_UNSUPPORTED_REQUEST",
    "TYPE_MISMATCH",
    "UNKNOWN_ENTITY",
    "UNKNOWN_KEY",
    "VALIDATION",
    "VALIDATION_CONSTRAINT",
    "VALIDATION_DATE_TOO_LATE",
    "VALIDATION_DATE_TOO_SOON",
    "VALIDATION_DENIED_DELETE",
    "VALIDATION_INVALID_DATE",
    "VALIDATION_MISSING_MANDATORY",
    "VALIDATION_MULTIPLE",
    "VALIDATION_MULTIPLE_ERRORS",
    "VALIDATION_NUMBER_TOO_LARGE",
    "VALIDATION_NUMBER_TOO_SMALL",
    "VALIDATION_RELATIONSHIP_TOO_FEW",
    "VALIDATION_RELATIONSHIP_TOO_MANY",
    "VALIDATION_STRING_PATTERN",
    "VALIDATION_STRING_TOO_LONG",
    "VALIDATION_STRING_TOO_SHORT",
    "WRONG_THREAD",
]
