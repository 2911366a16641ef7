/*
 * objectgraph.h — the C interface of ObjectGraph, an object-graph manager with
 * persistence modelled on Apple's Core Data.
 *
 * This header is the contract and its documentation. Conventions that hold for
 * every function (docs/c-api.md explains them at length):
 *
 *  - Handles (og_model, og_context, ...) are opaque. A function documented as
 *    returning a NEW handle gives the caller one reference, released with the
 *    matching og_<type>_release. A function documented as LENDING a handle
 *    returns one that stays valid as long as its stated owner; never release it.
 *  - A NULL, released or wrong-kind handle passed to any function is reported as
 *    OG_ERROR_INVALID_HANDLE; it never crashes the process.
 *  - Fallible functions return an og_status, OG_OK on success, or a pointer that is
 *    NULL on failure, and take a last argument `og_error **error`. When it is not
 *    NULL and the call fails, *error receives a NEW og_error the caller releases
 *    with og_error_release. On success *error is left untouched.
 *  - Strings passed in are NUL-terminated UTF-8; invalid UTF-8 is reported as
 *    OG_ERROR_INVALID_UTF8. Strings returned as `char *` are owned by the caller
 *    and freed with og_free; strings returned as `const char *` are borrowed, and
 *    the function says for how long they stay valid.
 *  - Strings with their length: an `_n` variant takes a pointer and a byte
 *    length instead of a NUL-terminated string (NULL is allowed with length 0),
 *    or gives back a length with the string (which is still followed by a NUL).
 *    Values (og_value_new_string_n, og_object_set_string_n) keep the NULs they
 *    hold, as Core Data and SQLite keep them, and so do predicate arguments made
 *    from such values; the getters without _n show such a string only up to its
 *    first NUL. A name or a path given with its length (og_coordinator_add_store_n)
 *    that holds a NUL is OG_ERROR_INVALID_ARGUMENT: no name or file can.
 *  - Dates cross the interface as double seconds since 1970-01-01 00:00:00 UTC.
 *    Decimals cross as their decimal string ("12.50"); UUIDs as 16 bytes.
 *  - Threads: a context and the objects it lends belong to the thread that
 *    created the context. A call from another thread fails with
 *    OG_ERROR_WRONG_THREAD. Models, coordinators, values and errors may be used
 *    from any thread, but not from two threads at once unless stated.
 *  - Layout: the handles, the constants (every enum; a parameter that takes an
 *    enum's values is declared with the enum's type), then one section per
 *    kind of object, in the order a program meets them: library, errors,
 *    values, models, entities, properties, transformable values,
 *    coordinators, stores, store files, store types (stores written in C)
 *    with incremental results, incremental nodes and save changes requests,
 *    contexts, notifications, changes, undo managers, objects, fetch requests,
 *    predicates, results, results controllers, rows, object IDs, mapping
 *    models, entity mappings, property mappings, migration managers,
 *    migration policies.
 *  - Tags: as sqlite3.h's "METHOD:" lines, each group of declarations (a
 *    comment and the functions after it, up to a blank line) opens with a
 *    comment whose first line names the object the functions belong to:
 *        METHOD: og_context     a handle type: the og_context_* functions
 *                               (og_attribute_*, og_relationship_* and
 *                               og_fetched_property_* are og_property's)
 *        METHOD: store type     an object without a handle: library, store
 *                               type, store file, archivable class, value
 *                               transformer, migration policy
 *  - Names: functions are named og_<object>_<verb>. A function renamed to
 *    follow that rule keeps its former name for one release, declared with
 *    OG_DEPRECATED: both names run the same code, and compilers that know the
 *    attribute warn where the former one is used.
 */
#ifndef OBJECTGRAPH_H
#define OBJECTGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OG_VERSION_MAJOR 0
#define OG_VERSION_MINOR 1
#define OG_VERSION_PATCH 0

/* OG_DEPRECATED(message): a declaration kept for compatibility. Where the
 * compiler supports it, using it gives a warning with `message`. Define
 * OG_DEPRECATED(message) as nothing before including this header to silence
 * the warnings. */
#ifndef OG_DEPRECATED
#if defined(__GNUC__) || defined(__clang__)
#define OG_DEPRECATED(message) __attribute__((deprecated(message)))
#elif defined(_MSC_VER)
#define OG_DEPRECATED(message) __declspec(deprecated(message))
#else
#define OG_DEPRECATED(message)
#endif
#endif

/* ------------------------------------------------------------------------ */
/* Handles                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct og_error og_error;                 /* an error: domain, code, message, details */
typedef struct og_value og_value;                 /* one boxed attribute value */
typedef struct og_model og_model;                 /* a managed object model */
typedef struct og_entity og_entity;               /* an entity of a model */
typedef struct og_property og_property;           /* an attribute or relationship of an entity */
typedef struct og_coordinator og_coordinator;     /* a persistent store coordinator */
typedef struct og_store og_store;                 /* a persistent store added to a coordinator */
typedef struct og_context og_context;             /* a managed object context */
typedef struct og_object og_object;               /* a managed object */
typedef struct og_fetch_request og_fetch_request; /* a fetch request */
typedef struct og_results og_results;             /* the objects a fetch or to-many returned */
typedef struct og_predicate og_predicate;         /* a parsed predicate (NSPredicate) */
typedef struct og_notification og_notification;   /* a context notification, lent to an observer */
typedef struct og_async_fetch og_async_fetch;     /* an asynchronous fetch under way, then done */
typedef struct og_results_controller og_results_controller; /* a fetch's results kept up to date (NSFetchedResultsController) */
typedef struct og_object_ids og_object_ids;       /* the object IDs an object-ID fetch returned */
typedef struct og_rows og_rows;                   /* the dictionaries a dictionary fetch returned */
typedef struct og_changes og_changes;             /* the object IDs a save inserted, updated and deleted */
typedef struct og_undo_manager og_undo_manager;   /* an undo manager (NSUndoManager as a context uses it) */
typedef struct og_mapping_model og_mapping_model;       /* how one model version maps to another (NSMappingModel) */
typedef struct og_entity_mapping og_entity_mapping;     /* one entity's part of a mapping model (NSEntityMapping) */
typedef struct og_property_mapping og_property_mapping; /* one property's value in an entity mapping (NSPropertyMapping) */
typedef struct og_migration_manager og_migration_manager; /* migrates a store between model versions (NSMigrationManager) */
typedef struct og_incremental_result og_incremental_result; /* IDs, dictionaries or a count a callback answers */
typedef struct og_incremental_node og_incremental_node;     /* one object's values, filled by new_values */
typedef struct og_save_changes_request og_save_changes_request; /* a save's objects (NSSaveChangesRequest) */
typedef struct og_store_description og_store_description; /* a recipe for adding a store (NSPersistentStoreDescription) */
typedef struct og_container og_container;                 /* a model, coordinator and contexts (NSPersistentContainer) */
typedef struct og_history og_history;                     /* transactions read from persistent history */
typedef struct og_history_token og_history_token;         /* where the history stands in each store (NSPersistentHistoryToken) */

/* ------------------------------------------------------------------------ */
/* Constants                                                                */
/* ------------------------------------------------------------------------ */

/* Status returned by fallible functions. OG_NULL is not an error: a typed
 * getter returns it when the value is nil (and stores 0 or NULL in *out). */
typedef enum og_status {
    OG_OK = 0,
    OG_NULL = 1,
    OG_ERROR = -1
} og_status;

/* Attribute types, with Core Data's numbers (NSAttributeType). */
typedef enum og_attribute_type {
    OG_ATTRIBUTE_UNDEFINED = 0,
    OG_ATTRIBUTE_INTEGER16 = 100,
    OG_ATTRIBUTE_INTEGER32 = 200,
    OG_ATTRIBUTE_INTEGER64 = 300,
    OG_ATTRIBUTE_DECIMAL = 400,
    OG_ATTRIBUTE_DOUBLE = 500,
    OG_ATTRIBUTE_FLOAT = 600,
    OG_ATTRIBUTE_STRING = 700,
    OG_ATTRIBUTE_BOOLEAN = 800,
    OG_ATTRIBUTE_DATE = 900,
    OG_ATTRIBUTE_BINARY = 1000,
    OG_ATTRIBUTE_UUID = 1100,
    OG_ATTRIBUTE_URI = 1200,
    OG_ATTRIBUTE_TRANSFORMABLE = 1800,
    OG_ATTRIBUTE_OBJECT_ID = 2000
} og_attribute_type;

/* Delete rules, with Core Data's numbers (NSDeleteRule). */
typedef enum og_delete_rule {
    OG_DELETE_RULE_NO_ACTION = 0,
    OG_DELETE_RULE_NULLIFY = 1,
    OG_DELETE_RULE_CASCADE = 2,
    OG_DELETE_RULE_DENY = 3
} og_delete_rule;

/* What kind of property an og_property is. */
typedef enum og_property_kind {
    OG_PROPERTY_ATTRIBUTE = 0,
    OG_PROPERTY_RELATIONSHIP = 1,
    OG_PROPERTY_FETCHED = 2 /* a fetched property: no slot, read its request */
} og_property_kind;

/* How an element of a fetch index orders its property (og_fetch_index_element). */
typedef enum og_index_collation {
    OG_INDEX_BINARY = 0, /* NSFetchIndexElementTypeBinary */
    OG_INDEX_RTREE = 1,  /* NSFetchIndexElementTypeRTree */
} og_index_collation;

/* The type held by an og_value. */
typedef enum og_value_type {
    OG_VALUE_NULL = 0,
    OG_VALUE_INT64 = 1,
    OG_VALUE_DOUBLE = 2,
    OG_VALUE_BOOL = 3,
    OG_VALUE_STRING = 4,
    OG_VALUE_DATE = 5,
    OG_VALUE_DATA = 6,
    OG_VALUE_DECIMAL = 7,
    OG_VALUE_UUID = 8,
    OG_VALUE_URI = 9,
    OG_VALUE_ARRAY = 10,       /* a collection, for predicate arguments and objects */
    OG_VALUE_DICTIONARY = 11,  /* string keys to values, to evaluate predicates on */
    OG_VALUE_OBJECT = 12,      /* a managed object, for predicate arguments and evaluation */
    OG_VALUE_OBJECT_ID = 13,   /* an object ID (a to-one of a dictionary result, og_value_new_object_id): og_value_get_object_id */
    OG_VALUE_ENTITY = 14,      /* an entity, for predicate arguments (og_value_new_entity) */
    OG_VALUE_ARCHIVED_OBJECT = 15 /* an instance of an archivable class in a transformable value: og_value_class_name, fields as a dictionary */
} og_value_type;

/* Comparison operators, with NSPredicateOperatorType's numbers. */
typedef enum og_comparison_operator {
    OG_COMPARE_LESS_THAN = 0,
    OG_COMPARE_LESS_THAN_OR_EQUAL = 1,
    OG_COMPARE_GREATER_THAN = 2,
    OG_COMPARE_GREATER_THAN_OR_EQUAL = 3,
    OG_COMPARE_EQUAL = 4,
    OG_COMPARE_NOT_EQUAL = 5,
    OG_COMPARE_MATCHES = 6,
    OG_COMPARE_LIKE = 7,
    OG_COMPARE_BEGINS_WITH = 8,
    OG_COMPARE_ENDS_WITH = 9,
    OG_COMPARE_IN = 10,
    OG_COMPARE_CONTAINS = 99,
    OG_COMPARE_BETWEEN = 100
} og_comparison_operator;

/* String comparison options ([c], [d], [n]), bits with Foundation's values. */
typedef enum og_comparison_options {
    OG_COMPARE_CASE_INSENSITIVE = 1,
    OG_COMPARE_DIACRITIC_INSENSITIVE = 2,
    OG_COMPARE_NORMALIZED = 4
} og_comparison_options;

/* How a comparison applies to a to-many key path (NSComparisonPredicateModifier). */
typedef enum og_quantifier {
    OG_QUANTIFIER_DIRECT = 0,
    OG_QUANTIFIER_ALL = 1,
    OG_QUANTIFIER_ANY = 2
} og_quantifier;

/* Compound predicates (NSCompoundPredicateType). */
typedef enum og_compound_type {
    OG_COMPOUND_NOT = 0,
    OG_COMPOUND_AND = 1,
    OG_COMPOUND_OR = 2
} og_compound_type;

/* How a sort key compares strings. LOCALIZED_STANDARD ignores case and
 * diacritics and orders runs of digits by value ("file2" before "file10"). */
typedef enum og_sort_comparison {
    OG_SORT_COMPARE = 0,
    OG_SORT_CASE_INSENSITIVE = 1,
    OG_SORT_LOCALIZED_STANDARD = 2
} og_sort_comparison;

/* What a request returns (NSFetchRequestResultType, Core Data's numbers). */
typedef enum og_result_type {
    OG_RESULT_OBJECTS = 0,      /* og_context_fetch */
    OG_RESULT_OBJECT_IDS = 1,   /* og_context_fetch_object_ids */
    OG_RESULT_DICTIONARIES = 2, /* og_context_fetch_dictionaries */
    OG_RESULT_COUNT = 4         /* og_context_count */
} og_result_type;

/* How a context is confined (NSManagedObjectContextConcurrencyType). */
typedef enum og_concurrency_type {
    OG_CONCURRENCY_CONFINEMENT = 0,   /* the creating thread only */
    OG_CONCURRENCY_PRIVATE_QUEUE = 1, /* its own serial queue: work inside og_context_perform[_and_wait] */
    OG_CONCURRENCY_MAIN_QUEUE = 2     /* the library's one shared "main" queue (see og_context_new_with_type) */
} og_concurrency_type;

/* Life-cycle hooks of managed objects (og_context_set_hook). */
typedef enum og_hook_kind {
    OG_HOOK_AWAKE_FROM_INSERT = 0,
    OG_HOOK_AWAKE_FROM_FETCH = 1,          /* changes made here do not dirty the object */
    OG_HOOK_AWAKE_FROM_SNAPSHOT_EVENTS = 2,/* after a rollback or refresh restored values */
    OG_HOOK_WILL_SAVE = 3,                 /* runs again on objects changed since, at most 16 rounds */
    OG_HOOK_DID_SAVE = 4,
    OG_HOOK_PREPARE_FOR_DELETION = 5,
    OG_HOOK_WILL_TURN_INTO_FAULT = 6,
    OG_HOOK_DID_TURN_INTO_FAULT = 7
} og_hook_kind;

/* Whole-object validation hooks (og_context_set_validation_hook). */
typedef enum og_validation_kind {
    OG_VALIDATE_FOR_INSERT = 0,
    OG_VALIDATE_FOR_UPDATE = 1,
    OG_VALIDATE_FOR_DELETE = 2,
    OG_VALIDATE_WILL_SAVE = 3   /* willSave that may refuse: OG_ERROR fails the save before anything is written */
} og_validation_kind;

/* Context notifications (og_context_add_observer). */
typedef enum og_notification_kind {
    OG_NOTIFICATION_OBJECTS_DID_CHANGE = 0, /* at og_context_process_pending_changes and before save, fetch, rollback */
    OG_NOTIFICATION_WILL_SAVE = 1,          /* no objects */
    OG_NOTIFICATION_DID_SAVE = 2            /* inserted, updated, deleted */
} og_notification_kind;

/* The object lists of a notification (Core Data's userInfo keys). */
typedef enum og_notification_key {
    OG_NOTIFICATION_INSERTED = 0,    /* NSInsertedObjectsKey */
    OG_NOTIFICATION_UPDATED = 1,     /* NSUpdatedObjectsKey */
    OG_NOTIFICATION_DELETED = 2,     /* NSDeletedObjectsKey */
    OG_NOTIFICATION_REFRESHED = 3,   /* NSRefreshedObjectsKey */
    OG_NOTIFICATION_INVALIDATED = 4  /* NSInvalidatedObjectsKey */
} og_notification_key;

/* The object sets of a context (og_context_objects). */
typedef enum og_object_set {
    OG_OBJECTS_REGISTERED = 0, /* registeredObjects: every object still alive, new ones included */
    OG_OBJECTS_INSERTED = 1,   /* insertedObjects */
    OG_OBJECTS_UPDATED = 2,    /* updatedObjects (never an inserted or deleted object) */
    OG_OBJECTS_DELETED = 3,    /* deletedObjects (never an unsaved insert that was deleted) */
    OG_OBJECTS_LOCKED = 4      /* a save request's lockedObjects (og_save_changes_request_count) */
} og_object_set;

/* Merge policies (NSMergePolicyType, with Core Data's numbers): how a save
 * resolves optimistic-locking conflicts (og_context_set_merge_policy). */
typedef enum og_merge_policy {
    OG_MERGE_POLICY_ERROR = 0,                          /* the save fails with 133020 and its conflicts */
    OG_MERGE_POLICY_MERGE_BY_PROPERTY_STORE_TRUMP = 1,  /* properties changed on both sides take the store's values */
    OG_MERGE_POLICY_MERGE_BY_PROPERTY_OBJECT_TRUMP = 2, /* the object's changed properties win, the rest are the store's */
    OG_MERGE_POLICY_OVERWRITE = 3,                      /* the whole object is written over the store's row */
    OG_MERGE_POLICY_ROLLBACK = 4                        /* the object's changes give way to the store's values */
} og_merge_policy;

/* What a batch request returns (NSBatchInsertRequestResultType and the others). */
typedef enum og_batch_result_type {
    OG_BATCH_RESULT_STATUS_ONLY = 0, /* whether it succeeded */
    OG_BATCH_RESULT_OBJECT_IDS = 1,  /* the permanent IDs of the rows it wrote or deleted */
    OG_BATCH_RESULT_COUNT = 2        /* how many rows it wrote or deleted */
} og_batch_result_type;

/* A batch insert's row source (Apple's dictionary handler): returns the next row as
 * a NEW OG_VALUE_DICTIONARY value (the library releases it), or NULL when there are
 * no more rows; NULL with *error set fails the batch. */
typedef og_value *(*og_batch_row_fn)(void *userdata, og_error **error);

/* How og_context_batch_insert_columns reads a column's values. */
typedef enum og_column_type {
    OG_COLUMN_INT64 = 1,  /* values: const int64_t * (integers, booleans 0/1) */
    OG_COLUMN_DOUBLE = 2, /* values: const double * (doubles, floats, dates in seconds since 2001) */
    OG_COLUMN_TEXT = 3    /* values: const char *const * (UTF-8, NUL-terminated; NULL: nil) */
} og_column_type;

/* What a row holds in a column of og_context_batch_insert_columns. */
typedef enum og_column_state {
    OG_COLUMN_VALUE = 0,  /* the value in `values` */
    OG_COLUMN_NIL = 1,    /* nil */
    OG_COLUMN_ABSENT = 2  /* the row leaves the attribute out: the model's default */
} og_column_state;

/* One attribute's values for every row of og_context_batch_insert_columns:
 * `values` holds row_count values of `type`; `states` (NULL: every row holds
 * a value) holds row_count og_column_state bytes. */
typedef struct og_batch_column {
    const char *name;
    og_column_type type;
    const void *values;
    const uint8_t *states;
} og_batch_column;

/* An asynchronous fetch's completion: runs once on the context's queue with the
 * fetch (LENT for the call; the caller's own handle stays valid until released). */
typedef void (*og_async_fetch_fn)(og_async_fetch *fetch, void *userdata);

/* A remote-change notification (NSPersistentStoreRemoteChangeNotification), on a
 * library thread: the store's UUID, and the history token after the change,
 * LENT for the call (NULL when the store keeps no history). */
typedef void (*og_remote_change_fn)(const char *store_uuid, const og_history_token *token, void *userdata);

/* The snapshots of a merge conflict (NSMergeConflict). */
typedef enum og_conflict_snapshot {
    OG_SNAPSHOT_OBJECT = 0,   /* objectSnapshot: the committed values the object last read */
    OG_SNAPSHOT_CACHED = 1,   /* cachedSnapshot: the newer row the coordinator holds, if any */
    OG_SNAPSHOT_PERSISTED = 2 /* persistedSnapshot: the store's row when it differs from the coordinator's */
} og_conflict_snapshot;

/* The lists of an og_changes record (a save's object IDs). */
typedef enum og_change_kind {
    OG_CHANGE_INSERTED = 0, /* NSInsertedObjectsKey */
    OG_CHANGE_UPDATED = 1,  /* NSUpdatedObjectsKey */
    OG_CHANGE_DELETED = 2   /* NSDeletedObjectsKey */
} og_change_kind;

/* What a persistent-history change did (NSPersistentHistoryChangeType, with
 * Core Data's numbers). */
typedef enum og_history_change_kind {
    OG_HISTORY_CHANGE_INSERT = 0,
    OG_HISTORY_CHANGE_UPDATE = 1,
    OG_HISTORY_CHANGE_DELETE = 2
} og_history_change_kind;

/* The strings of a persistent-history transaction (og_history_transaction_string). */
typedef enum og_history_field {
    OG_HISTORY_AUTHOR = 0,       /* the saving context's transaction author */
    OG_HISTORY_CONTEXT_NAME = 1, /* the saving context's name */
    OG_HISTORY_PROCESS_ID = 2,   /* the saving process's name */
    OG_HISTORY_BUNDLE_ID = 3,    /* Apple's bundle identifier (stores written by Core Data) */
    OG_HISTORY_STORE_UUID = 4    /* the UUID of the store the transaction is in */
} og_history_field;

/* What happened to an object or a section of a results controller
 * (NSFetchedResultsChangeType, with Core Data's numbers). */
typedef enum og_results_change {
    OG_RESULTS_INSERT = 1, /* new index path only */
    OG_RESULTS_DELETE = 2, /* old index path only */
    OG_RESULTS_MOVE = 3,   /* both */
    OG_RESULTS_UPDATE = 4  /* old index path only */
} og_results_change;

/* What an entity mapping does (NSEntityMappingType, with Core Data's numbers). */
typedef enum og_entity_mapping_kind {
    OG_ENTITY_MAPPING_UNDEFINED = 0, /* a policy makes the destination objects */
    OG_ENTITY_MAPPING_CUSTOM = 1,    /* a named custom policy does the work */
    OG_ENTITY_MAPPING_ADD = 2,       /* the entity is new in the destination: nothing is read */
    OG_ENTITY_MAPPING_REMOVE = 3,    /* the entity is gone from the destination: nothing is migrated */
    OG_ENTITY_MAPPING_COPY = 4,      /* the entity is unchanged: objects are copied */
    OG_ENTITY_MAPPING_TRANSFORM = 5  /* the entity changed: objects go through the property mappings */
} og_entity_mapping_kind;

/* Callbacks. Each takes the `userdata` given at registration, is called on the
 * thread that runs the context (its owning thread, or its queue inside a
 * perform block), and is never called after its registration is removed or
 * its context released. Objects and notifications passed in are LENT: objects
 * by the context (valid until the context is released), notifications for the
 * duration of the call. Callbacks may call back into the library on the same
 * context. */
typedef void (*og_block_fn)(void *userdata);
typedef void (*og_hook_fn)(og_object *object, void *userdata);
/* Return OG_OK to accept. To refuse, return OG_ERROR and optionally store an
 * error made with og_error_new in *error (the library takes it over); without
 * one the failure is code 1550. The object's URI is added as
 * NSValidationErrorObject when the error does not carry one. */
typedef og_status (*og_validation_fn)(og_object *object, og_error **error, void *userdata);
/* As og_validation_fn, for one property: `key` and `value` are lent for the call. */
typedef og_status (*og_value_validation_fn)(og_object *object, const char *key, const og_value *value, og_error **error,
                                            void *userdata);
typedef void (*og_notification_fn)(const og_notification *notification, void *userdata);

/* Error domains, as returned by og_error_domain. */
#define OG_ERROR_DOMAIN_COCOA "NSCocoaErrorDomain"          /* Core Data's own codes */
#define OG_ERROR_DOMAIN_SQLITE "NSSQLiteErrorDomain"        /* SQLite's result codes */
#define OG_ERROR_DOMAIN_OBJECTGRAPH "ObjectGraphErrorDomain" /* misuse of the API */

/* Error codes. Core Data's codes (NSCocoaErrorDomain) keep their numbers; the
 * codes for misuse of the API (ObjectGraphErrorDomain) start at 140001. */
enum {
    OG_ERROR_VALIDATION = 1550,                  /* NSManagedObjectValidationError */
    OG_ERROR_VALIDATION_MULTIPLE = 1560,         /* NSValidationMultipleErrorsError */
    OG_ERROR_VALIDATION_MISSING_MANDATORY = 1570,
    OG_ERROR_VALIDATION_RELATIONSHIP_TOO_FEW = 1580,
    OG_ERROR_VALIDATION_RELATIONSHIP_TOO_MANY = 1590,
    OG_ERROR_VALIDATION_DENIED_DELETE = 1600,
    OG_ERROR_VALIDATION_NUMBER_TOO_LARGE = 1610,
    OG_ERROR_VALIDATION_NUMBER_TOO_SMALL = 1620,
    OG_ERROR_VALIDATION_DATE_TOO_LATE = 1630,
    OG_ERROR_VALIDATION_DATE_TOO_SOON = 1640,
    OG_ERROR_VALIDATION_INVALID_DATE = 1650,
    OG_ERROR_VALIDATION_STRING_TOO_LONG = 1660,
    OG_ERROR_VALIDATION_STRING_TOO_SHORT = 1670,
    OG_ERROR_VALIDATION_STRING_PATTERN = 1680,
    OG_ERROR_CONTEXT_LOCKING = 132000,
    OG_ERROR_COORDINATOR_LOCKING = 132010,
    OG_ERROR_REFERENTIAL_INTEGRITY = 133000,     /* a fault fired for a row that is gone */
    OG_ERROR_EXTERNAL_RELATIONSHIP = 133010,
    OG_ERROR_MERGE = 133020,
    OG_ERROR_CONSTRAINT_MERGE = 133021,          /* a save broke a uniqueness constraint; nothing
                                                    was written */
    OG_ERROR_STORE_INVALID_TYPE = 134000,        /* unknown store type, or not a store */
    OG_ERROR_STORE_TYPE_MISMATCH = 134010,
    OG_ERROR_STORE_INCOMPATIBLE_SCHEMA = 134020,
    OG_ERROR_STORE_SAVE = 134030,
    OG_ERROR_STORE_INCOMPLETE_SAVE = 134040,
    OG_ERROR_STORE_SAVE_CONFLICTS = 134050,      /* another writer saved the atomic store's file
                                                    since it was read; nothing was written */
    OG_ERROR_CORE_DATA = 134060,
    OG_ERROR_STORE_OPERATION = 134070,
    OG_ERROR_STORE_OPEN = 134080,                /* the file could not be opened */
    OG_ERROR_STORE_TIMEOUT = 134090,
    OG_ERROR_STORE_UNSUPPORTED_REQUEST = 134091, /* the store cannot run the request (a batch on a store other than SQLite) */
    OG_ERROR_STORE_INCOMPATIBLE_VERSION = 134100,/* the store's version hashes differ */
    OG_ERROR_MIGRATION = 134110,                 /* NSMigrationError */
    OG_ERROR_MIGRATION_CONSTRAINT_VIOLATION = 134111,
    OG_ERROR_MIGRATION_CANCELLED = 134120,
    OG_ERROR_MIGRATION_MISSING_SOURCE_MODEL = 134130, /* no model for a store's version hashes */
    OG_ERROR_MIGRATION_MISSING_MAPPING_MODEL = 134140,
    OG_ERROR_MIGRATION_MANAGER_SOURCE_STORE = 134150,
    OG_ERROR_MIGRATION_MANAGER_DESTINATION_STORE = 134160,
    OG_ERROR_ENTITY_MIGRATION_POLICY = 134170,
    OG_ERROR_SQLITE = 134180,
    OG_ERROR_INFERRED_MAPPING_MODEL = 134190,
    OG_ERROR_HISTORY_TOKEN_EXPIRED = 134301,     /* the history after a token was purged (NSPersistentHistoryTokenExpiredError) */
    OG_ERROR_INVALID_HANDLE = 140001,            /* NULL, released or wrong-kind handle */
    OG_ERROR_INVALID_ARGUMENT = 140002,          /* NULL pointer, bad enum value, bad index */
    OG_ERROR_INVALID_UTF8 = 140003,
    OG_ERROR_UNKNOWN_ENTITY = 140004,
    OG_ERROR_UNKNOWN_KEY = 140005,               /* the entity has no such property */
    OG_ERROR_TYPE_MISMATCH = 140006,             /* a value of the wrong type for a property */
    OG_ERROR_WRONG_THREAD = 140007,              /* a context used off its owning thread */
    OG_ERROR_MODEL_IMMUTABLE = 140008,           /* the model is in use by a coordinator */
    OG_ERROR_INVALID_MODEL = 140009,             /* a model or model file that is not valid */
    OG_ERROR_OBJECT_INACCESSIBLE = 140010,       /* an object deleted and saved, or forgotten */
    OG_ERROR_PREDICATE_SYNTAX = 140020,          /* a format string that does not parse */
    OG_ERROR_PREDICATE_ARGUMENT = 140021,        /* a missing or mistyped format argument */
    OG_ERROR_PREDICATE_VARIABLE = 140022,        /* a $variable with no value */
    OG_ERROR_PREDICATE_EVALUATION = 140023       /* operands of incompatible types, division by zero */
};

/* ------------------------------------------------------------------------ */
/* Library                                                                  */
/* ------------------------------------------------------------------------ */

/* METHOD: library
 * The library's version, "MAJOR.MINOR.PATCH". Static storage; never free it. */
const char *og_version(void);

/* METHOD: library
 * Frees a string or buffer the library returned as owned (char *, void *).
 * NULL is ignored. Any thread. */
void og_free(void *pointer);

/* ---- SQL logging (Core Data's -com.apple.CoreData.SQLDebug) ------------ */
/* Every statement the SQLite stores run, at a level: 1, each statement as
 * prepared; 2, with its bound values in place; 3, then its time and rows. At
 * every level each fetch and save of a context also logs one summary line, as
 * Core Data's "total fetch execution time" does:
 *   ObjectGraph: annotation: total fetch execution time: 0.0004s for 2 rows, 2 objects (Book)
 *   ObjectGraph: annotation: total save execution time: 0.0021s for 3 rows, 3 objects (1 inserted, 1 updated, 1 deleted)
 * (rows read from or written to the stores; the objects, object IDs or
 * dictionaries returned, or the objects saved; counting logs none, nor does a
 * save that reaches no store, such as a child context's). Blobs longer
 * than 64 bytes are shown abbreviated: x'abab…' (1000 bytes). The environment
 * variable OBJECTGRAPH_SQL_DEBUG=1..3 sets the level when the library first
 * runs SQL. Messages go to the callback when one is set, else to standard
 * error as lines starting "ObjectGraph: sql:" (and "ObjectGraph:
 * annotation:" for times and summaries). */

/* Called for each message with its level and text (lent for the call), on the
 * thread that runs the statement (any thread): it must be thread-safe and must
 * not call the library. The level is 1 or 2 for a statement, 3 for its time,
 * and 1 for a summary line, whose text starts "ObjectGraph: annotation: total ". */
typedef void (*og_sql_log_fn)(int level, const char *message, void *userdata);

/* METHOD: library
 * Sets the level (0 turns logging off). OG_ERROR_INVALID_ARGUMENT outside 0-3. */
og_status og_set_sql_debug(int level, og_error **error);

/* METHOD: library
 * The current level (0-3). */
int og_sql_debug_level(void);

/* METHOD: library
 * Sends messages to `callback` (NULL: standard error again). The callback is
 * not called after it is replaced and this call returned. */
og_status og_set_sql_log_callback(og_sql_log_fn callback, void *userdata, og_error **error);

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

/* METHOD: og_error
 * The error's domain (one of OG_ERROR_DOMAIN_*). Borrowed: valid until the
 * error is released. Returns NULL for an invalid handle. */
const char *og_error_domain(const og_error *error);

/* METHOD: og_error
 * The error's code (one of OG_ERROR_*, or an SQLite result code in the SQLite
 * domain). Returns 0 for an invalid handle. */
int64_t og_error_code(const og_error *error);

/* METHOD: og_error
 * A message for people, naming what failed (entity, key, path, position).
 * Borrowed: valid until the error is released. NULL for an invalid handle. */
const char *og_error_message(const og_error *error);

/* METHOD: og_error
 * Number of user-info entries (Core Data's keys such as "NSValidationErrorKey",
 * "NSValidationErrorObject" — an object ID URI — and "NSValidationErrorValue"). */
size_t og_error_user_info_count(const og_error *error);

/* METHOD: og_error
 * The key and the value, as text, of user-info entry `index` (0-based). Both
 * borrowed: valid until the error is released. NULL when out of range. */
const char *og_error_user_info_key(const og_error *error, size_t index);
const char *og_error_user_info_value(const og_error *error, size_t index);

/* METHOD: og_error
 * Looks up a user-info entry by key. Borrowed; NULL when absent. */
const char *og_error_user_info(const og_error *error, const char *key);

/* METHOD: og_error
 * Number of detailed errors (NSDetailedErrorsKey): the individual failures of
 * an error that collects several (code 1560), or the underlying error (for
 * example the SQLite error under a store error). */
size_t og_error_detail_count(const og_error *error);

/* METHOD: og_error
 * Detailed error `index`. LENT by `error`: valid until it is released; never
 * release it yourself. NULL when out of range. */
const og_error *og_error_detail_at(const og_error *error, size_t index);

/* METHOD: og_error
 * Releases an error. NULL is ignored; releasing twice is harmless. */
void og_error_release(og_error *error);

/* METHOD: og_error
 * A NEW error, for a validation callback to report a failure: `code` (for
 * example OG_ERROR_VALIDATION, 1550, or any of 1560-1680), a message for people
 * (NULL: a generic one) and the key that failed (NULL: none; recorded as
 * NSValidationErrorKey). The domain is OG_ERROR_DOMAIN_COCOA for codes below
 * 140000, OG_ERROR_DOMAIN_OBJECTGRAPH otherwise. Any thread. */
og_error *og_error_new(int64_t code, const char *message, const char *key);

/* METHOD: og_error
 * As og_error_new, in the application's own `domain` (NULL or empty: as
 * og_error_new chooses). A hook's error keeps its domain and code through the
 * save that ran the hook. Any thread. */
og_error *og_error_new_in_domain(const char *domain, int64_t code, const char *message, const char *key);

/* ---- Merge conflicts: a save that failed with OG_ERROR_MERGE ----------- */

/* METHOD: og_error
 * The conflicts of a save that failed with OG_ERROR_MERGE (133020): one per
 * object (NSMergeConflict); 0 for any other error. Any thread. */
size_t og_error_conflict_count(const og_error *error);

/* METHOD: og_error
 * Conflict `index`'s object, LENT by `context`, which must be the context
 * whose save failed (OG_ERROR_INVALID_ARGUMENT otherwise). */
og_object *og_error_conflict_object(const og_error *error, size_t index, og_context *context, og_error **err);

/* METHOD: og_error
 * Conflict `index`'s object ID URI: an owned string (og_free). Any thread. */
char *og_error_conflict_object_uri(const og_error *error, size_t index, og_error **err);

/* METHOD: og_error
 * The row version the object last read (oldVersionNumber) and the row's
 * version now (newVersionNumber, 0 when the row is gone). Any thread. */
og_status og_error_conflict_versions(const og_error *error, size_t index, int64_t *old_version, int64_t *new_version,
                                     og_error **err);

/* METHOD: og_error
 * Whether conflict `index` has the snapshot `which` (the object snapshot is
 * always there; the cached and persisted ones only when they are newer). */
bool og_error_conflict_has_snapshot(const og_error *error, size_t index, og_conflict_snapshot which);

/* METHOD: og_error
 * The keys of conflict `index`'s snapshots (its entity's stored attributes and
 * to-one relationships), borrowed for the error's lifetime. */
size_t og_error_conflict_key_count(const og_error *error, size_t index);
const char *og_error_conflict_key_at(const og_error *error, size_t index, size_t key_index);

/* METHOD: og_error
 * One value of one snapshot, NEW (og_value_release): an attribute's value, or
 * for a to-one an OG_VALUE_OBJECT_ID (OG_VALUE_NULL when empty).
 * OG_ERROR_INVALID_ARGUMENT when the conflict has no such snapshot,
 * OG_ERROR_UNKNOWN_KEY for a key that is not one of og_error_conflict_key_at. */
og_value *og_error_conflict_value(const og_error *error, size_t index, og_conflict_snapshot which, const char *key,
                                  og_error **err);

/* ---- Uniqueness constraints: a save that failed with OG_ERROR_CONSTRAINT_MERGE */

/* METHOD: og_error
 * The uniqueness-constraint conflicts of a save that failed with
 * OG_ERROR_CONSTRAINT_MERGE (133021), one per broken constraint and set of
 * values (NSConstraintConflict); 0 for any other error. Any thread. */
size_t og_error_constraint_conflict_count(const og_error *error);

/* METHOD: og_error
 * The property names of conflict `index`'s constraint, borrowed for the
 * error's lifetime (NULL out of range). Any thread. */
size_t og_error_constraint_conflict_property_count(const og_error *error, size_t index);
const char *og_error_constraint_conflict_property_at(const og_error *error, size_t index, size_t property_index);

/* METHOD: og_error
 * The value the conflicting objects hold in `property`, NEW (og_value_release):
 * an attribute's value, or for a to-one an OG_VALUE_OBJECT_ID.
 * OG_ERROR_UNKNOWN_KEY for a property not in the constraint. Any thread. */
og_value *og_error_constraint_conflict_value(const og_error *error, size_t index, const char *property, og_error **err);

/* METHOD: og_error
 * The save's objects holding those values, each LENT by `context`, which must
 * be the context whose save failed (OG_ERROR_INVALID_ARGUMENT otherwise). */
size_t og_error_constraint_conflict_object_count(const og_error *error, size_t index);
og_object *og_error_constraint_conflict_object(const og_error *error, size_t index, size_t object_index, og_context *context,
                                               og_error **err);

/* METHOD: og_error
 * The object of the row already stored with those values, LENT by `context`;
 * NULL with no error when the conflict is between the save's own objects. */
og_object *og_error_constraint_conflict_database_object(const og_error *error, size_t index, og_context *context,
                                                        og_error **err);

/* ------------------------------------------------------------------------ */
/* Values                                                                   */
/* ------------------------------------------------------------------------ */

/* METHOD: og_value
 * Each og_value_new_* returns a NEW value, released with og_value_release.
 * Values are immutable and may be shared between threads. */
og_value *og_value_new_null(void);
og_value *og_value_new_int64(int64_t value);
og_value *og_value_new_double(double value);
og_value *og_value_new_bool(bool value);
og_value *og_value_new_date(double seconds_since_1970);
/* Copies `length` bytes; (NULL, 0) makes empty data. */
og_value *og_value_new_data(const void *bytes, size_t length, og_error **error);
og_value *og_value_new_uuid(const uint8_t bytes[16], og_error **error);
/* Strings must be valid UTF-8; decimals are decimal strings ("-12.5");
 * URIs must parse as URIs. NULL and an error otherwise. */
og_value *og_value_new_string(const char *utf8, og_error **error);
og_value *og_value_new_decimal(const char *text, og_error **error);
/* A URI keeps its text exactly (a space is not percent-encoded); it must be an
 * absolute URI, with a scheme. */
og_value *og_value_new_uri(const char *text, og_error **error);
/* A string of `length` bytes of UTF-8 at `utf8`, embedded NULs kept (NULL is
 * allowed when `length` is 0). OG_ERROR_INVALID_UTF8 for invalid UTF-8. */
og_value *og_value_new_string_n(const char *utf8, size_t length, og_error **error);

/* METHOD: og_value
 * A NEW array of copies of `count` values (an argument for IN, BETWEEN, or
 * an object to evaluate against). */
og_value *og_value_new_array(og_value *const *items, size_t count, og_error **error);

/* METHOD: og_value
 * A NEW dictionary of `count` string keys and copies of their values; a
 * repeated key keeps the last value. */
og_value *og_value_new_dictionary(const char *const *keys, og_value *const *values, size_t count, og_error **error);

/* METHOD: og_value
 * A NEW value referring to a managed object (it keeps the object alive, not
 * its context): an argument (`author == %@`) or an object to evaluate. */
og_value *og_value_new_object(og_object *object, og_error **error);

/* METHOD: og_value
 * A NEW OG_VALUE_OBJECT_ID value holding the object's current ID (temporary
 * until its first save). As a predicate argument (`author == %@`,
 * `SELF IN %@` with an array of them) it matches the object with that ID, on
 * every store and among pending changes. */
og_value *og_value_new_object_id(const og_object *object, og_error **error);

/* METHOD: og_value
 * A NEW OG_VALUE_OBJECT_ID value from an ID's URI (og_object_id_uri's form),
 * no coordinator needed: it matches the object with that store, entity and
 * key (a temporary URI, the pending object with that ID). A string that is
 * not such a URI is OG_ERROR_INVALID_ARGUMENT. */
og_value *og_value_new_object_id_uri(const char *uri, og_error **error);

/* METHOD: og_value
 * A NEW OG_VALUE_ENTITY value: as a predicate argument, `entity == %@` and
 * `entity IN %@` compare an object's own entity exactly (an instance of a
 * subentity does not equal its superentity). Entities match by name, so an
 * entity of another copy of the model may be given. */
og_value *og_value_new_entity(const og_entity *entity, og_error **error);

/* METHOD: og_value
 * A NEW OG_VALUE_ARCHIVED_OBJECT value: an instance of the class `class_name`
 * with the fields of `fields` (an OG_VALUE_DICTIONARY whose values are
 * transformable values, copied; NULL for none). A transformable attribute
 * takes it when the class is registered (og_archivable_class_register) or the
 * attribute has a named transformer. OG_ERROR_INVALID_ARGUMENT for an empty
 * name or fields that are not a dictionary; OG_ERROR_TYPE_MISMATCH for a
 * field value that is no transformable value (an object, an entity). */
og_value *og_value_new_archived_object(const char *class_name, const og_value *fields, og_error **error);

/* METHOD: og_value
 * The class name of an OG_VALUE_ARCHIVED_OBJECT value. BORROWED: valid until
 * the value is released. OG_ERROR_TYPE_MISMATCH for other types. Its fields
 * read as a dictionary's: og_value_count, og_value_key_at, og_value_item_at. */
og_status og_value_class_name(const og_value *value, const char **out, og_error **error);

/* METHOD: og_value
 * The number of items of an array or dictionary value (fields of an archived
 * object); 0 for anything else. */
size_t og_value_count(const og_value *value);

/* METHOD: og_value
 * Item `index` of an array, or the value of key `index` of a dictionary (keys
 * in sorted order): a NEW value. */
og_value *og_value_item_at(const og_value *value, size_t index, og_error **error);

/* METHOD: og_value
 * Key `index` of a dictionary, in sorted order. BORROWED: valid until the
 * value is released. */
const char *og_value_key_at(const og_value *value, size_t index, og_error **error);

/* METHOD: og_value
 * The managed object an OG_VALUE_OBJECT value refers to (as read by
 * og_object_get_value_for_key_path, og_object_committed_values or an item of
 * them, or made by og_value_new_object): *out is LENT by the object's context.
 * OG_NULL with *out NULL for a null value; OG_ERROR_TYPE_MISMATCH for other
 * types. */
og_status og_value_get_object(const og_value *value, og_object **out, og_error **error);

/* METHOD: og_value
 * The type the value holds; OG_VALUE_NULL for an invalid handle too. */
og_value_type og_value_type_of(const og_value *value);

/* METHOD: og_value
 * Typed reads. A NULL value gives OG_NULL (and 0 or NULL in *out); a value of
 * another type OG_ERROR_TYPE_MISMATCH (integers and doubles convert to each
 * other, booleans read as 0/1). */
og_status og_value_get_int64(const og_value *value, int64_t *out, og_error **error);
og_status og_value_get_double(const og_value *value, double *out, og_error **error);
og_status og_value_get_bool(const og_value *value, bool *out, og_error **error);
og_status og_value_get_date(const og_value *value, double *out, og_error **error);
og_status og_value_get_uuid(const og_value *value, uint8_t out[16], og_error **error);
/* Borrowed results: valid until the value is released. */
og_status og_value_get_string(const og_value *value, const char **out, og_error **error);
og_status og_value_get_decimal(const og_value *value, const char **out, og_error **error);
og_status og_value_get_uri(const og_value *value, const char **out, og_error **error);
og_status og_value_get_data(const og_value *value, const void **bytes, size_t *length, og_error **error);
/* A string value and its length in bytes, embedded NULs included (a NUL
 * follows it). BORROWED: valid until the value is released. OG_NULL with
 * *out NULL and *length 0 for a null value. */
og_status og_value_get_string_n(const og_value *value, const char **out, size_t *length, og_error **error);

/* METHOD: og_value
 * The object ID of an OG_VALUE_OBJECT_ID value, as its URI (og_object_id_uri's
 * form; the value also reads as that URI with og_value_get_uri). BORROWED:
 * valid until the value is released. OG_NULL for a null value. */
og_status og_value_get_object_id(const og_value *value, const char **out, og_error **error);

/* METHOD: og_value
 * Releases a value. NULL is ignored. */
void og_value_release(og_value *value);

/* ------------------------------------------------------------------------ */
/* Models                                                                   */
/* ------------------------------------------------------------------------ */

/* METHOD: og_model
 * A NEW, empty, editable model. */
og_model *og_model_new(void);

/* METHOD: og_model
 * Loads a model file; the format is chosen from the path: `.json` (ObjectGraph's
 * model format, docs/model-format.md), `.xcdatamodel` and `.xcdatamodeld`
 * (Xcode's folders, with Xcode 4's `contents` or Xcode 3's binary `elements`;
 * the current version of a versioned one), `.mom` and `.momd` (compiled
 * models). Returns a NEW model, or NULL with OG_ERROR_INVALID_MODEL
 * (naming the file, entity and property) or OG_ERROR_INVALID_ARGUMENT for a
 * path that cannot be read or has an unknown extension.
 * Names: entity, property, configuration, fetch index and constraint names are
 * letters, digits and underscores, not starting with a digit (what Xcode
 * accepts; docs/model-format.md). Any other name, from any file format or made
 * in code, is OG_ERROR_INVALID_MODEL naming it (user info key "invalidName")
 * when the model is loaded, validated or given to a coordinator. */
og_model *og_model_load(const char *path, og_error **error);

/* METHOD: og_model
 * The model the store file at `path` keeps of itself, as a NEW model: SQLite
 * stores (Apple's, and those ObjectGraph creates) cache the compiled model that
 * last wrote them (Z_MODELCACHE), so a store can be opened or inspected without
 * its model file. The file is read without a stack and not changed.
 * OG_ERROR_MIGRATION_MISSING_SOURCE_MODEL (134130) when the store keeps no
 * model (Binary stores, stores written by an older Core Data or an older
 * ObjectGraph) or its cache cannot be read;
 * OG_ERROR_STORE_OPEN for a missing file, OG_ERROR_STORE_INVALID_TYPE for a
 * file that is not a store. */
og_model *og_model_load_from_store(const char *path, og_error **error);

/* METHOD: og_model
 * Parses a model from JSON text. Returns a NEW model, or NULL. */
og_model *og_model_from_json(const char *json, og_error **error);

/* METHOD: og_model
 * The model as JSON text. Owned: free with og_free. */
char *og_model_to_json(const og_model *model, og_error **error);

/* METHOD: og_model
 * Writes the model as JSON to `path` (replacing the file). */
og_status og_model_save(const og_model *model, const char *path, og_error **error);

/* METHOD: og_model
 * Whether the model can still be changed: false once a coordinator uses it.
 * Changing a model that is not editable fails with OG_ERROR_MODEL_IMMUTABLE. */
og_status og_model_is_editable(const og_model *model, bool *out, og_error **error);

/* METHOD: og_model
 * Number of entities, and entity `index` in name order. The entity is LENT by
 * the model: valid while the model is alive. */
size_t og_model_entity_count(const og_model *model);
og_entity *og_model_entity_at(const og_model *model, size_t index, og_error **error);

/* METHOD: og_model
 * The entity named `name`, LENT by the model; NULL and OG_ERROR_UNKNOWN_ENTITY
 * when there is none. */
og_entity *og_model_entity(const og_model *model, const char *name, og_error **error);

/* METHOD: og_model
 * Adds an entity. Returns it, LENT by the model. Fails for a duplicate or
 * empty name, or a model that is not editable. */
og_entity *og_model_add_entity(og_model *model, const char *name, og_error **error);

/* METHOD: og_model
 * Loads version `version` (the name without extension; NULL for the current
 * one) of an `.xcdatamodeld` or `.momd` folder. Returns a NEW model or NULL. */
og_model *og_model_load_version(const char *path, const char *version, og_error **error);

/* METHOD: og_model
 * Writes the model in the format the path's extension names: `.json`,
 * `.xcdatamodel` (a folder with `contents`) or `.xcdatamodeld` (the model
 * becomes the folder's current version, named after the folder; other versions
 * are kept). Compiled models are never written (OG_ERROR_INVALID_ARGUMENT). */
og_status og_model_write(const og_model *model, const char *path, og_error **error);

/* METHOD: og_model
 * A NEW, editable deep copy of the model: the way to change a model in use. */
og_model *og_model_copy(const og_model *model, og_error **error);

/* METHOD: og_model
 * Checks the model as a coordinator would (OG_ERROR_INVALID_MODEL naming the
 * entity and property) without freezing it. */
og_status og_model_validate(const og_model *model, og_error **error);

/* METHOD: og_model
 * The model's version identifiers. Each string is owned: free with og_free. */
size_t og_model_version_identifier_count(const og_model *model);
char *og_model_version_identifier_at(const og_model *model, size_t index, og_error **error);

/* METHOD: og_model
 * Configuration names, in definition order (owned strings), and whether
 * configuration `name` (NULL: the default, every entity) holds entity `entity`.
 * An unknown configuration is OG_ERROR_INVALID_ARGUMENT. */
size_t og_model_configuration_count(const og_model *model);
char *og_model_configuration_at(const og_model *model, size_t index, og_error **error);
og_status og_model_configuration_contains(const og_model *model, const char *name, const char *entity, bool *out, og_error **error);

/* METHOD: og_model
 * Fetch request templates: their names in name order and the entity each
 * fetches (owned strings). */
size_t og_model_template_count(const og_model *model);
char *og_model_template_at(const og_model *model, size_t index, og_error **error);
char *og_model_template_entity(const og_model *model, const char *name, og_error **error);

/* METHOD: og_model
 * The predicate of template `name` with every $VARIABLE replaced by the value
 * of the same key: keys[i] names values[i] (count pairs; values are borrowed).
 * Every variable must be supplied (an OG_VALUE_NULL value tests against nil);
 * a missing one is OG_ERROR_INVALID_ARGUMENT naming it. Owned: og_free. */
char *og_model_template_substitute(const og_model *model, const char *name, const char *const *keys,
                                   const og_value *const *values, size_t count, og_error **error);

/* METHOD: og_model
 * What loading the model skipped or kept without understanding (unknown
 * elements of newer Xcode versions): owned strings naming file and element. */
size_t og_model_warning_count(const og_model *model);
char *og_model_warning_at(const og_model *model, size_t index, og_error **error);

/* METHOD: og_model
 * Removes entity `name`: its subentities lose their parent, relationships
 * pointing at it are removed, configurations forget it. Handles lent for it
 * stay valid but belong to no model. OG_ERROR_UNKNOWN_ENTITY when absent. */
og_status og_model_remove_entity(og_model *model, const char *name, og_error **error);

/* METHOD: og_model
 * Replaces the version identifiers with `count` strings (copied). */
og_status og_model_set_version_identifiers(og_model *model, const char *const *identifiers, size_t count,
                                           og_error **error);

/* METHOD: og_model
 * Defines or replaces configuration `name` (setEntities:forConfiguration:):
 * `count` entities of this model, borrowed. Configurations may overlap. */
og_status og_model_set_configuration_entities(og_model *model, const char *name, og_entity *const *entities,
                                              size_t count, og_error **error);

/* METHOD: og_model
 * The entities of configuration `name` (NULL: the default configuration,
 * every entity, in name order; otherwise in the configuration's order):
 * *out receives the count, og_model_configuration_entity_at lends entity
 * `index` (LENT by the model). An unknown configuration is
 * OG_ERROR_INVALID_ARGUMENT. */
og_status og_model_configuration_entity_count(const og_model *model, const char *name, size_t *out, og_error **error);
og_entity *og_model_configuration_entity_at(const og_model *model, const char *name, size_t index, og_error **error);

/* METHOD: og_model
 * Stores fetch request template `name` (setFetchRequestTemplate:forName:),
 * replacing one of the same name: it fetches `entity_name` (an entity of the
 * model), filtered by `predicate` (a format string whose $NAME tokens are
 * substitution variables; NULL for none), sorted by `sort_count` keys
 * (sort_keys[i], ascending[i]), at most `fetch_limit` objects (0: no limit).
 * Everything is copied. */
og_status og_model_set_template(og_model *model, const char *name, const char *entity_name, const char *predicate,
                                const char *const *sort_keys, const bool *ascending, size_t sort_count,
                                int64_t fetch_limit, og_error **error);

/* METHOD: og_model
 * Removes template `name`; OG_ERROR_INVALID_ARGUMENT when there is none. */
og_status og_model_remove_template(og_model *model, const char *name, og_error **error);

/* METHOD: og_model
 * Template `name`'s predicate format string (owned; NULL without an error
 * when it has none) and fetch limit (0: none). Every template getter fails
 * with OG_ERROR_INVALID_ARGUMENT for an unknown template. */
char *og_model_template_predicate(const og_model *model, const char *name, og_error **error);
og_status og_model_template_fetch_limit(const og_model *model, const char *name, int64_t *out, og_error **error);

/* METHOD: og_model
 * Template `name`'s sort keys: *out receives their number; sort key `index`
 * is returned owned, and *ascending receives its direction. */
og_status og_model_template_sort_count(const og_model *model, const char *name, size_t *out, og_error **error);
char *og_model_template_sort_at(const og_model *model, const char *name, size_t index, bool *ascending,
                                og_error **error);

/* METHOD: og_model
 * Template `name`'s substitution variables (without `$`), in order of first
 * use: *out receives their number; variable `index` is returned owned. */
og_status og_model_template_variable_count(const og_model *model, const char *name, size_t *out, og_error **error);
char *og_model_template_variable_at(const og_model *model, const char *name, size_t index, og_error **error);

/* METHOD: og_model
 * A NEW fetch request from the model's template `name`
 * (fetchRequestFromTemplateWithName:substitutionVariables:): its entity, sort
 * keys and limit, and its predicate parsed with every $VARIABLE replaced by the
 * value of the same name among the `count` pairs (an OG_VALUE_NULL value tests
 * against nil). Errors: 140002 for an unknown template, 140022 naming a missing
 * variable, 140020 when the template's predicate does not parse. */
og_fetch_request *og_model_fetch_request_from_template(const og_model *model, const char *name, const char *const *names,
                                                       og_value *const *values, size_t count, og_error **error);

/* METHOD: og_model
 * Replaces the localization dictionary with `count` pairs (copied). Keys:
 * "Entity/<Entity>", "Property/<property>",
 * "Property/<property>/Entity/<Entity>", "ErrorString/<text>". */
og_status og_model_set_localization(og_model *model, const char *const *keys, const char *const *values,
                                    size_t count, og_error **error);

/* METHOD: og_model
 * Number of localization entries, key `index` in key order (owned), and the
 * value for `key` (owned; NULL without an error when there is none). */
size_t og_model_localization_count(const og_model *model);
char *og_model_localization_key_at(const og_model *model, size_t index, og_error **error);
char *og_model_localization(const og_model *model, const char *key, og_error **error);

/* METHOD: og_model
 * The localized name of an entity, and of a property of an entity (the
 * per-entity key first, then the general one). Owned; NULL without an error
 * when the dictionary has none. */
char *og_model_localized_entity_name(const og_model *model, const char *entity, og_error **error);
char *og_model_localized_property_name(const og_model *model, const char *property, const char *entity,
                                       og_error **error);

/* METHOD: og_model
 * entityVersionHashesByName: for `index` below og_model_entity_count, the
 * name of entity `index` in name order (owned) and its 32-byte version hash
 * in `out`. */
char *og_model_version_hash_at(const og_model *model, size_t index, uint8_t out[32], og_error **error);

/* METHOD: og_model
 * isConfiguration:compatibleWithStoreMetadata:. *out is true when the store
 * recorded exactly the entities of configuration `configuration` (NULL: the
 * default, every entity), each with the hash this model gives it. The
 * metadata is either `count` entity names with their hashes (`hashes` holds
 * count × 32 bytes, back to back), or the metadata of a store. An unknown
 * configuration gives false. */
og_status og_model_is_configuration_compatible(const og_model *model, const char *configuration,
                                               const char *const *names, const uint8_t *hashes, size_t count,
                                               bool *out, og_error **error);
og_status og_model_is_configuration_compatible_with_store(const og_model *model, const char *configuration,
                                                          const og_store *store, bool *out, og_error **error);

/* METHOD: og_model
 * A NEW model merging `count` models (modelByMergingModels:): their entities
 * (copied), configurations of the same name joined, templates, localization
 * and version identifiers. A repeated entity or template name is
 * OG_ERROR_INVALID_MODEL. The parts are borrowed and stay unchanged. */
og_model *og_model_merge(og_model *const *models, size_t count, og_error **error);

/* METHOD: og_model
 * modelByMergingModels:forStoreMetadata:: the merged model when its hashes
 * match the metadata (`hash_count` names and hashes, as for
 * og_model_is_configuration_compatible; og_store_version_hash_at reads a
 * store's), NEW. NULL WITHOUT an error (*error untouched) when nothing
 * matches; NULL with an error only for bad arguments. */
og_model *og_model_merge_for_metadata(og_model *const *models, size_t count, const char *const *names,
                                      const uint8_t *hashes, size_t hash_count, og_error **error);

/* METHOD: og_model
 * Loads and merges every model file directly inside the folder `path`
 * (.json, .xcdatamodel, .xcdatamodeld, .mom, .momd; current versions): the
 * Linux form of mergedModelFromBundles:. Other files are ignored. Returns a
 * NEW model, or NULL with OG_ERROR_INVALID_MODEL (not a folder, a bad file,
 * entities repeated across files). */
og_model *og_model_load_directory(const char *path, og_error **error);

/* METHOD: og_model
 * mergedModelFromBundles:forStoreMetadata:: like og_model_load_directory, but
 * every version of each versioned folder is tried and only parts whose hashes
 * the metadata records are merged. A NEW model, or NULL WITHOUT an error when
 * the result does not match the metadata exactly. */
og_model *og_model_load_directory_for_metadata(const char *path, const char *const *names, const uint8_t *hashes,
                                               size_t count, og_error **error);

/* METHOD: og_model
 * Releases a model. Entities and properties it lent become invalid. Coordinators
 * using it keep their own reference. NULL is ignored. */
void og_model_release(og_model *model);

/* ------------------------------------------------------------------------ */
/* Entities                                                                 */
/* ------------------------------------------------------------------------ */

/* METHOD: og_entity
 * The entity's name. Borrowed: valid while the model is alive (a rename gives
 * a new string; earlier ones stay valid). */
const char *og_entity_name(const og_entity *entity);

/* METHOD: og_entity
 * Renames the entity (setName:) before the model is used. The model is
 * re-keyed and every reference follows: relationship destinations and
 * inverses, configurations, fetch request templates, fetched properties,
 * localization keys, version hashes. Errors: OG_ERROR_MODEL_IMMUTABLE when the
 * model is in use; OG_ERROR_INVALID_ARGUMENT when `name` is empty or another
 * entity has it; OG_ERROR_INVALID_MODEL for a name that is not valid. */
og_status og_entity_set_name(og_entity *entity, const char *name, og_error **error);

/* METHOD: og_entity
 * The superentity, LENT by the model, or NULL (none, or invalid handle). */
og_entity *og_entity_superentity(const og_entity *entity);

/* METHOD: og_entity
 * Makes `superentity` (NULL for none) the parent of `entity`: it inherits the
 * parent's properties, and shares its table in an SQLite store. */
og_status og_entity_set_superentity(og_entity *entity, og_entity *superentity, og_error **error);

/* METHOD: og_entity */
og_status og_entity_is_abstract(const og_entity *entity, bool *out, og_error **error);
og_status og_entity_set_abstract(og_entity *entity, bool abstract, og_error **error);

/* METHOD: og_entity
 * Number of properties, inherited ones included. Property `index` is the
 * property in slot `index`: the superentity's slots come first. LENT by the
 * model. Slots are fixed once the model is in use by a coordinator. */
size_t og_entity_property_count(const og_entity *entity);
og_property *og_entity_property_at(const og_entity *entity, size_t index, og_error **error);

/* METHOD: og_entity
 * The property named `name` (inherited ones included), LENT by the model;
 * NULL and OG_ERROR_UNKNOWN_KEY when there is none. */
og_property *og_entity_property(const og_entity *entity, const char *name, og_error **error);

/* METHOD: og_entity
 * The slot index of property `key`, for the og_object_*_at accessors; -1 and
 * OG_ERROR_UNKNOWN_KEY when there is none. */
int64_t og_entity_slot(const og_entity *entity, const char *key, og_error **error);

/* METHOD: og_entity
 * The entity's version hash (32 bytes, SHA-256): equal entities give equal
 * hashes on every machine. The store records it and refuses a model whose
 * hashes differ (OG_ERROR_STORE_INCOMPATIBLE_VERSION). */
og_status og_entity_version_hash(const og_entity *entity, uint8_t out[32], og_error **error);

/* METHOD: og_entity
 * The entity's class name ("ManagedObject" unless set), its renaming
 * identifier (its name unless set), and its user-info value for `key` (NULL
 * without an error when there is none). Owned strings: free with og_free. */
char *og_entity_class_name(const og_entity *entity, og_error **error);
char *og_entity_renaming_identifier(const og_entity *entity, og_error **error);
char *og_entity_user_info(const og_entity *entity, const char *key, og_error **error);

/* METHOD: og_entity
 * Direct subentities, in name order, LENT like the entity. */
size_t og_entity_subentity_count(const og_entity *entity);
og_entity *og_entity_subentity_at(const og_entity *entity, size_t index, og_error **error);

/* METHOD: og_entity
 * Whether `entity` is `other` or inherits from it (isKindOfEntity:). */
og_status og_entity_is_kind_of(const og_entity *entity, const og_entity *other, bool *out, og_error **error);

/* METHOD: og_entity
 * Adds an attribute of `type` (optional by default). Returns it, LENT by the
 * model. Fails for a duplicate or reserved name or a model not editable. */
og_property *og_entity_add_attribute(og_entity *entity, const char *name, og_attribute_type type, og_error **error);

/* METHOD: og_entity
 * Adds a to-one relationship to `destination` (optional, nullify). Make it
 * to-many with og_relationship_set_to_many; pair it with its inverse with
 * og_relationship_set_inverse. Returns it, LENT by the model. */
og_property *og_entity_add_relationship(og_entity *entity, const char *name, og_entity *destination, og_error **error);

/* METHOD: og_entity
 * Makes exactly `count` entities (borrowed) the subentities of `entity`
 * (setSubentities:): each becomes a child, former children lose their parent. */
og_status og_entity_set_subentities(og_entity *entity, og_entity *const *subentities, size_t count, og_error **error);

/* METHOD: og_entity
 * Sets the class name (NULL: "ManagedObject"), the renaming identifier (NULL
 * or the entity's name: none) and the version hash modifier (NULL: none).
 * Strings are copied. */
og_status og_entity_set_class_name(og_entity *entity, const char *class_name, og_error **error);
og_status og_entity_set_renaming_identifier(og_entity *entity, const char *identifier, og_error **error);
og_status og_entity_set_version_hash_modifier(og_entity *entity, const char *modifier, og_error **error);

/* METHOD: og_entity
 * The version hash modifier: owned, NULL without an error when there is none. */
char *og_entity_version_hash_modifier(const og_entity *entity, og_error **error);

/* METHOD: og_entity
 * User info: the number of entries, key `index` in key order (owned), and
 * replacing every entry with `count` pairs (copied). */
size_t og_entity_user_info_count(const og_entity *entity);
char *og_entity_user_info_key_at(const og_entity *entity, size_t index, og_error **error);
og_status og_entity_set_user_info(og_entity *entity, const char *const *keys, const char *const *values, size_t count,
                                  og_error **error);

/* METHOD: og_entity
 * Uniqueness constraints: each is a list of property names, which crosses the
 * interface as one string joined with commas ("firstName,lastName"). Number,
 * constraint `index` (owned), and replacing them all with `count` strings. */
size_t og_entity_uniqueness_constraint_count(const og_entity *entity);
char *og_entity_uniqueness_constraint_at(const og_entity *entity, size_t index, og_error **error);
og_status og_entity_set_uniqueness_constraints(og_entity *entity, const char *const *constraints, size_t count,
                                               og_error **error);

/* Fetch indexes (NSFetchIndexDescription): named lists of properties a store
 * indexes together. Each element is binary (a B-tree, NSFetchIndexElementTypeBinary)
 * or R-tree (numbers only), ascending or descending; an index may have a
 * partial-index predicate (a format string: only the rows it holds for are
 * indexed). An index of one property alone, binary and ascending, makes that
 * property indexed (og_property_is_indexed). Indexes never change a version
 * hash, and a store that exists keeps the indexes it was created with. */

typedef struct og_fetch_index_element {
    const char *property; /* a property of the entity (inherited ones included) */
    og_index_collation collation;
    bool ascending;
} og_fetch_index_element;

typedef struct og_fetch_index {
    const char *name;
    const og_fetch_index_element *elements;
    size_t element_count; /* at least 1 */
    const char *partial_predicate; /* NULL for none */
} og_fetch_index;

/* METHOD: og_entity
 * The number of fetch indexes (0 for an invalid handle); index `index`'s name
 * and partial predicate (owned; the predicate is NULL, with no error, when the
 * index has none); its number of elements (0 when out of range), and element
 * `element`: its property's name (owned, in *property), collation and order. */
size_t og_entity_fetch_index_count(const og_entity *entity);
char *og_entity_fetch_index_name(const og_entity *entity, size_t index, og_error **error);
char *og_entity_fetch_index_partial_predicate(const og_entity *entity, size_t index, og_error **error);
size_t og_entity_fetch_index_element_count(const og_entity *entity, size_t index);
og_status og_entity_fetch_index_element_at(const og_entity *entity, size_t index, size_t element, char **property,
                                           og_index_collation *collation, bool *ascending, og_error **error);

/* METHOD: og_entity
 * Replaces every fetch index of `entity` with `count` indexes (copied).
 * OG_ERROR_INVALID_ARGUMENT for a NULL name or property, an index without
 * elements or an unknown collation; OG_ERROR_MODEL_IMMUTABLE once the model is
 * in use. The model's validation (og_model_validate, and adding it to a
 * coordinator) refuses, with OG_ERROR_INVALID_MODEL, an element naming no
 * property of the entity, a to-many or fetched property, and an R-tree element
 * that is not a number. */
og_status og_entity_set_fetch_indexes(og_entity *entity, const og_fetch_index *indexes, size_t count, og_error **error);

/* METHOD: og_entity
 * The relationships of `entity` (inherited ones included, in slot order)
 * whose destination is `destination` (relationshipsWithDestinationEntity:):
 * their number (0 for invalid handles) and relationship `index`, LENT like
 * the entity. */
size_t og_entity_relationship_with_destination_count(const og_entity *entity, const og_entity *destination);
og_property *og_entity_relationship_with_destination_at(const og_entity *entity, const og_entity *destination,
                                                        size_t index, og_error **error);

/* METHOD: og_entity
 * Fetched properties (inherited ones first): their number and property
 * `index`, LENT like the entity. They have no slot. */
size_t og_entity_fetched_property_count(const og_entity *entity);
og_property *og_entity_fetched_property_at(const og_entity *entity, size_t index, og_error **error);

/* METHOD: og_entity
 * Adds a fetched property fetching `entity_name` with `predicate` (a format
 * string that may use $FETCH_SOURCE and $FETCHED_PROPERTY; NULL for none).
 * Returns it, LENT by the model. */
og_property *og_entity_add_fetched_property(og_entity *entity, const char *name, const char *entity_name,
                                            const char *predicate, og_error **error);

/* METHOD: og_entity
 * Removes a property the entity declares (OG_ERROR_UNKNOWN_KEY otherwise); a
 * relationship's inverse forgets it. Its handle stays valid but belongs to no
 * entity. */
og_status og_entity_remove_property(og_entity *entity, const char *name, og_error **error);

/* ------------------------------------------------------------------------ */
/* Properties: attributes and relationships                                 */
/* ------------------------------------------------------------------------ */

/* METHOD: og_property
 * The property's name. Borrowed: valid while the model is alive (a rename gives
 * a new string; earlier ones stay valid). */
const char *og_property_name(const og_property *property);

/* METHOD: og_property
 * Renames the property (setName:) before the model is used. The entity is
 * re-keyed and every reference follows: its inverse, uniqueness constraints
 * and fetch indexes (of the entity and its subentities), localization keys,
 * version hashes. Errors: OG_ERROR_MODEL_IMMUTABLE when the model is in use;
 * OG_ERROR_INVALID_ARGUMENT when `name` is empty, reserved, or already a
 * property of the entity (own or inherited) or of a subentity;
 * OG_ERROR_INVALID_MODEL for a name that is not valid. */
og_status og_property_set_name(og_property *property, const char *name, og_error **error);

/* METHOD: og_property
 * Attribute or relationship; OG_ERROR with an invalid handle. */
og_status og_property_kind_of(const og_property *property, og_property_kind *out, og_error **error);

/* METHOD: og_property
 * The entity that declares the property, LENT by the model. */
og_entity *og_property_entity(const og_property *property);

/* METHOD: og_property */
og_status og_property_is_optional(const og_property *property, bool *out, og_error **error);
og_status og_property_set_optional(og_property *property, bool optional, og_error **error);

/* METHOD: og_property
 * The attribute's type. Fails with OG_ERROR_TYPE_MISMATCH for a relationship. */
og_status og_attribute_type_of(const og_property *attribute, og_attribute_type *out, og_error **error);

/* METHOD: og_property
 * The attribute's default value: a NEW value (OG_VALUE_NULL when there is
 * none), released with og_value_release. */
og_value *og_attribute_default(const og_property *attribute, og_error **error);

/* METHOD: og_property
 * Sets the default value given to new objects; it must suit the type. */
og_status og_attribute_set_default(og_property *attribute, const og_value *value, og_error **error);

/* METHOD: og_property
 * The destination entity, LENT by the model; NULL for an attribute. */
og_entity *og_relationship_destination(const og_property *relationship);

/* METHOD: og_property
 * The inverse relationship, LENT by the model, or NULL. */
og_property *og_relationship_inverse(const og_property *relationship);

/* METHOD: og_property
 * Pairs two relationships as each other's inverse (both sides are set). The
 * inverse must belong to the destination and point back at the entity. */
og_status og_relationship_set_inverse(og_property *relationship, og_property *inverse, og_error **error);

/* METHOD: og_property */
og_status og_relationship_is_to_many(const og_property *relationship, bool *out, og_error **error);
og_status og_relationship_set_to_many(og_property *relationship, bool to_many, og_error **error);

/* METHOD: og_property */
og_status og_relationship_delete_rule(const og_property *relationship, og_delete_rule *out, og_error **error);
og_status og_relationship_set_delete_rule(og_property *relationship, og_delete_rule rule, og_error **error);

/* METHOD: og_property
 * Minimum and maximum count (0 or -1: unbounded); whether a to-many keeps order. */
og_status og_relationship_counts(const og_property *relationship, int64_t *min, int64_t *max, og_error **error);
og_status og_relationship_is_ordered(const og_property *relationship, bool *out, og_error **error);

/* METHOD: og_property */
og_status og_property_is_transient(const og_property *property, bool *out, og_error **error);

/* METHOD: og_property
 * The property's renaming identifier (its name unless set) and its user-info
 * value for `key` (NULL without an error when there is none). Owned strings. */
char *og_property_renaming_identifier(const og_property *property, og_error **error);
char *og_property_user_info(const og_property *property, const char *key, og_error **error);

/* METHOD: og_property
 * A transformable attribute's value transformer name, or NULL (the default
 * transformer). Owned string. */
char *og_attribute_value_transformer_name(const og_property *attribute, og_error **error);

/* METHOD: og_property
 * A fetched property's request: the entity it fetches and its predicate format
 * (NULL when it has none). Owned strings. OG_ERROR_TYPE_MISMATCH for other kinds. */
char *og_fetched_property_entity(const og_property *fetched, og_error **error);
char *og_fetched_property_predicate(const og_property *fetched, og_error **error);

/* METHOD: og_property
 * Flags of every property: transient (never stored), indexed, and the
 * Spotlight flags (kept as data, no effect on Linux). Indexed is Core Data's:
 * an attribute is indexed exactly when its entity has a fetch index of it
 * alone, binary and ascending (partial or not); setting true adds one named
 * after the attribute, false removes those. A relationship is always indexed
 * (its foreign key or join table is), and setting its flag changes nothing. */
og_status og_property_set_transient(og_property *property, bool transient, og_error **error);
og_status og_property_is_indexed(const og_property *property, bool *out, og_error **error);
og_status og_property_set_indexed(og_property *property, bool indexed, og_error **error);
og_status og_property_is_indexed_by_spotlight(const og_property *property, bool *out, og_error **error);
og_status og_property_set_indexed_by_spotlight(og_property *property, bool flag, og_error **error);
og_status og_property_is_stored_in_external_record(const og_property *property, bool *out, og_error **error);
og_status og_property_set_stored_in_external_record(og_property *property, bool flag, og_error **error);

/* METHOD: og_property
 * Sets the renaming identifier (NULL or the property's name: none) and the
 * version hash modifier (NULL: none); reads the modifier (owned, NULL without
 * an error when none). */
og_status og_property_set_renaming_identifier(og_property *property, const char *identifier, og_error **error);
og_status og_property_set_version_hash_modifier(og_property *property, const char *modifier, og_error **error);
char *og_property_version_hash_modifier(const og_property *property, og_error **error);

/* METHOD: og_property
 * The property's own version hash (32 bytes), as its entity's hash uses it. */
og_status og_property_version_hash(const og_property *property, uint8_t out[32], og_error **error);

/* METHOD: og_property
 * User info: number of entries, key `index` in key order (owned), and
 * replacing every entry with `count` pairs (copied). */
size_t og_property_user_info_count(const og_property *property);
char *og_property_user_info_key_at(const og_property *property, size_t index, og_error **error);
og_status og_property_set_user_info(og_property *property, const char *const *keys, const char *const *values,
                                    size_t count, og_error **error);

/* METHOD: og_property
 * Validation predicates (format strings a value must satisfy, with `self`
 * the value) and the warning each failure reports: their number, predicate
 * and warning `index` (owned), and replacing them with `count` pairs. */
size_t og_property_validation_count(const og_property *property);
char *og_property_validation_predicate_at(const og_property *property, size_t index, og_error **error);
char *og_property_validation_warning_at(const og_property *property, size_t index, og_error **error);
og_status og_property_set_validation(og_property *property, const char *const *predicates,
                                     const char *const *warnings, size_t count, og_error **error);

/* METHOD: og_property
 * Changes the attribute's type; its default value and value bounds are cleared. */
og_status og_attribute_set_type(og_property *attribute, og_attribute_type type, og_error **error);

/* METHOD: og_property
 * Value bounds (numbers and dates): NEW values, OG_VALUE_NULL when unbounded.
 * Setting takes values of the attribute's type, NULL or OG_VALUE_NULL for no
 * bound (borrowed); other attribute types give OG_ERROR_INVALID_MODEL. */
og_value *og_attribute_min_value(const og_property *attribute, og_error **error);
og_value *og_attribute_max_value(const og_property *attribute, og_error **error);
og_status og_attribute_set_value_bounds(og_property *attribute, const og_value *min, const og_value *max,
                                        og_error **error);

/* METHOD: og_property
 * Length bounds (strings in characters, binary data in bytes); -1 means no
 * bound, in and out. Other attribute types give OG_ERROR_INVALID_MODEL. */
og_status og_attribute_length_bounds(const og_property *attribute, int64_t *min, int64_t *max, og_error **error);
og_status og_attribute_set_length_bounds(og_property *attribute, int64_t min, int64_t max, og_error **error);

/* METHOD: og_property
 * The regular expression string values must match (owned; NULL without an
 * error when none), and setting it (NULL: none). */
char *og_attribute_regular_expression(const og_property *attribute, og_error **error);
og_status og_attribute_set_regular_expression(og_property *attribute, const char *pattern, og_error **error);

/* METHOD: og_property
 * Sets the value transformer name of a transformable attribute (NULL: the
 * default transformer). */
og_status og_attribute_set_value_transformer_name(og_property *attribute, const char *name, og_error **error);

/* METHOD: og_property
 * The class name of the values (attributeValueClassName; Xcode's
 * customClassName, the class of a transformable's values) and a derived
 * attribute's expression: owned, NULL without an error when none; setting
 * them (NULL: none). Kept as data. */
char *og_attribute_value_class_name(const og_property *attribute, og_error **error);
og_status og_attribute_set_value_class_name(og_property *attribute, const char *name, og_error **error);
char *og_attribute_derivation_expression(const og_property *attribute, og_error **error);
og_status og_attribute_set_derivation_expression(og_property *attribute, const char *expression, og_error **error);

/* METHOD: og_property
 * allowsExternalBinaryDataStorage and preservesValueInHistoryOnDeletion. */
og_status og_attribute_allows_external_storage(const og_property *attribute, bool *out, og_error **error);
og_status og_attribute_set_allows_external_storage(og_property *attribute, bool flag, og_error **error);
og_status og_attribute_preserves_value_in_history(const og_property *attribute, bool *out, og_error **error);
og_status og_attribute_set_preserves_value_in_history(og_property *attribute, bool flag, og_error **error);

/* METHOD: og_property
 * Sets minimum and maximum count (max 1: to-one; 0 or -1: unbounded to-many;
 * min at most max). OG_ERROR_INVALID_MODEL for impossible counts. */
og_status og_relationship_set_counts(og_property *relationship, int64_t min, int64_t max, og_error **error);

/* METHOD: og_property
 * Makes a to-many keep its order; a to-one cannot be ordered
 * (OG_ERROR_INVALID_MODEL). */
og_status og_relationship_set_ordered(og_property *relationship, bool ordered, og_error **error);

/* METHOD: og_property
 * Points the relationship at `destination`, an entity of the same model. */
og_status og_relationship_set_destination(og_property *relationship, og_entity *destination, og_error **error);

/* METHOD: og_property
 * Replaces a fetched property's request: the entity it fetches and its
 * predicate format string (NULL: none). Copied. */
og_status og_fetched_property_set_request(og_property *fetched, const char *entity_name, const char *predicate,
                                          og_error **error);

/* ------------------------------------------------------------------------ */
/* Transformable values: archivable classes and value transformers          */
/* ------------------------------------------------------------------------ */

/* A transformable attribute holds a value: null, bool, int64, double,
 * string, data, date, UUID, URI, arrays and dictionaries of these, and
 * archived objects (OG_VALUE_ARCHIVED_OBJECT); og_object_set_value takes
 * OG_VALUE_ARRAY and OG_VALUE_DICTIONARY values for it. Its value transformer
 * turns the value into the bytes the store keeps when a save writes it, and
 * back when the value is read. Without a transformer name (or with
 * "NSSecureUnarchiveFromData") the value is kept as Apple's secure keyed
 * archive, which Apple's Core Data reads and writes; reading an archive with
 * a class that is neither a plist class nor registered fails with
 * OG_ERROR_TYPE_MISMATCH, and nothing is instantiated. Setting an archived
 * object of a class not registered fails the same way. "NSKeyedUnarchiveFromData"
 * reads the same archives and writes plist values only. A name no transformer
 * is registered under fails the save with 134060 (NSCoreDataError), writing
 * nothing. */

/* METHOD: archivable class
 * Allows instances of `class_name` under the default transformer (the allowed
 * classes of NSSecureUnarchiveFromDataTransformer), process-wide. Registering a
 * name again does nothing. OG_ERROR_INVALID_ARGUMENT for an empty name or a
 * plist class name ("NSArray"). Any thread. */
og_status og_archivable_class_register(const char *class_name, og_error **error);
/* Deprecated: the former name of og_archivable_class_register, kept for one release. */
OG_DEPRECATED("use og_archivable_class_register")
og_status og_register_archivable_class(const char *class_name, og_error **error);

/* METHOD: archivable class
 * Withdraws an archivable class. OG_ERROR_INVALID_ARGUMENT when it is not
 * registered. Any thread. */
og_status og_archivable_class_unregister(const char *class_name, og_error **error);
/* Deprecated: the former name of og_archivable_class_unregister, kept for one release. */
OG_DEPRECATED("use og_archivable_class_unregister")
og_status og_unregister_archivable_class(const char *class_name, og_error **error);

/* Forward: turns `value` (LENT for the call) into bytes; return a NEW
 * OG_VALUE_DATA value (og_value_new_data) holding them, which the library
 * releases. Reverse: turns `length` bytes at `bytes` (LENT for the call) into
 * a NEW value (any value a transformable takes), which the library releases.
 * To fail, return NULL and optionally store an error made with og_error_new in
 * *error (the library takes it over; the save or read fails with it, else
 * with 134060). Called on the thread that saves (forward) or reads the
 * attribute (reverse). */
typedef og_value *(*og_transform_forward_fn)(const og_value *value, og_error **error, void *userdata);
typedef og_value *(*og_transform_reverse_fn)(const void *bytes, size_t length, og_error **error, void *userdata);

/* METHOD: value transformer
 * Registers a value transformer under `name` (+[NSValueTransformer
 * setValueTransformer:forName:]) for the attributes whose transformer name it
 * is, process-wide. OG_ERROR_INVALID_ARGUMENT for an empty or built-in name, a
 * name already registered, or a NULL callback. Any thread. */
og_status og_value_transformer_register(const char *name, og_transform_forward_fn forward, og_transform_reverse_fn reverse,
                                        void *userdata, og_error **error);
/* Deprecated: the former name of og_value_transformer_register, kept for one release. */
OG_DEPRECATED("use og_value_transformer_register")
og_status og_register_value_transformer(const char *name, og_transform_forward_fn forward, og_transform_reverse_fn reverse,
                                        void *userdata, og_error **error);

/* METHOD: value transformer
 * Unregisters a value transformer; its callbacks are not called afterwards:
 * calls that other threads are making when it is called are waited for, so
 * the userdata may be freed once it returns (a callback may unregister its own
 * transformer; its own call ends after). OG_ERROR_INVALID_ARGUMENT when no
 * transformer has that name. Any thread. */
og_status og_value_transformer_unregister(const char *name, og_error **error);
/* Deprecated: the former name of og_value_transformer_unregister, kept for one release. */
OG_DEPRECATED("use og_value_transformer_unregister")
og_status og_unregister_value_transformer(const char *name, og_error **error);

/* ------------------------------------------------------------------------ */
/* Coordinators                                                             */
/* ------------------------------------------------------------------------ */

/* Threads. A coordinator does its work under one lock of its own, so every
 * function of this section may be called on one coordinator from several
 * threads at once, and while contexts over it fetch, save and fire faults on
 * other threads: each call waits for the others. og_coordinator_new and
 * og_coordinator_new_with_versions may be called from several threads at
 * once, over the same model too. The exception is og_coordinator_release, as
 * for every release: call it once the other calls on the handle have
 * returned. Adding a store (migrating it when it must be),
 * og_coordinator_migrate_store and og_coordinator_set_store_path hold the lock
 * until they are done, so the contexts over the coordinator wait for them.
 * Callbacks run while the coordinator holds its lock (an incremental store's;
 * a migration policy's hooks and the progress callback of a migration made
 * when a store is added) may call the coordinator from their own thread, but
 * must not wait for another thread that calls it. */

/* METHOD: og_coordinator
 * A NEW coordinator over `model`. The model is validated (OG_ERROR_INVALID_MODEL
 * naming the entity and property) and becomes immutable. */
og_coordinator *og_coordinator_new(og_model *model, og_error **error);

/* METHOD: og_coordinator
 * Adds a store of `type` at `path`: created when missing, opened when present.
 * Types: "SQLite" (a file), "Binary" (an atomic store in one file, rewritten
 * whole at each save), "XML" (Apple's XML store format, NSXMLStoreType, also
 * rewritten whole; a file that declares a DTD other than Core Data's, or an
 * entity, is OG_ERROR_STORE_INVALID_TYPE naming the line; saved by two
 * processes, as "Binary"), "InMemory" (rows kept in memory only, lost when the
 * coordinator goes; `path` may be NULL and is only a name), "PostgreSQL" (`path`
 * is a libpq connection string; coordinators on many machines share the store;
 * OG_OPTION_POSTGRESQL_SCHEMA; docs/postgres.md), and the types
 * registered with og_atomic_store_type_register. Returns the
 * store, LENT by the coordinator.
 * Several processes may use one store file. SQLite: processes opening the same
 * new file at once all get the one store the first of them creates, and a
 * lock held by another process is waited for (NSPersistentStoreTimeoutOption,
 * 240 seconds by default, as in Core Data) before OG_ERROR_STORE_TIMEOUT.
 * Binary: each store keeps the records it read; a save checks, under a lock on
 * the file, that no other writer saved since this store read or wrote the
 * file, else og_context_save fails with OG_ERROR_STORE_SAVE_CONFLICTS, writes
 * nothing and keeps the store's records and the context's changes as they
 * were (to retry: add the store again or use a new coordinator, then redo the
 * changes). Errors:
 * OG_ERROR_STORE_INVALID_TYPE (unknown type, or a file that is not a store),
 * OG_ERROR_STORE_OPEN (a path that cannot be opened),
 * OG_ERROR_STORE_INCOMPATIBLE_VERSION (a store written with a model whose
 * version hashes differ; the message names the entity).
 * An existing SQLite store is checked (metadata, version hashes, integrity,
 * tables) through a read-only connection that never checkpoints: a store that
 * is refused stays byte for byte as it was, with its -wal and -shm, even when
 * the -wal beside it belongs to another database. */
og_store *og_coordinator_add_store(og_coordinator *coordinator, const char *type, const char *path, og_error **error);

/* METHOD: og_coordinator
 * og_coordinator_add_store with the path given as `length` bytes: a path
 * holding a NUL is OG_ERROR_INVALID_ARGUMENT, never cut short at it (NULL with
 * length 0: no path, as for an InMemory store). */
og_store *og_coordinator_add_store_n(og_coordinator *coordinator, const char *type, const char *path, size_t length,
                                     og_error **error);

/* METHOD: og_coordinator
 * Number of stores added. */
size_t og_coordinator_store_count(const og_coordinator *coordinator);

/* METHOD: og_coordinator
 * The store at `index` in the order the stores were added (0 to
 * og_coordinator_store_count - 1), LENT by the coordinator; NULL with
 * OG_ERROR_INVALID_ARGUMENT for an index out of range. */
og_store *og_coordinator_store_at(og_coordinator *coordinator, size_t index, og_error **error);

/* METHOD: og_coordinator
 * The object ID a URI names (managedObjectIDForURIRepresentation:), as an OWNED
 * URI, when a store of the coordinator has the URI's store UUID; NULL without
 * an error otherwise. */
char *og_coordinator_object_id_for_uri(og_coordinator *coordinator, const char *uri, og_error **error);

/* METHOD: og_coordinator
 * Detaches `store` (removePersistentStore:) and closes it; its handle stays
 * valid (type, path, UUID) until the coordinator is released. Objects fetched
 * from it can no longer load or save. OG_ERROR_INVALID_ARGUMENT when it is not
 * attached. */
og_status og_coordinator_remove_store(og_coordinator *coordinator, og_store *store, og_error **error);

/* METHOD: og_coordinator
 * Read-only stores (setReadOnly:): a save that would write to a read-only store
 * fails with OG_ERROR_STORE_OPERATION and writes nothing. */
og_status og_coordinator_set_store_read_only(og_coordinator *coordinator, og_store *store, bool read_only,
                                             og_error **error);
og_status og_coordinator_is_store_read_only(og_coordinator *coordinator, og_store *store, bool *out, og_error **error);

/* ---- Several stores: configurations, options, moving and copying ------- */

/* METHOD: og_coordinator
 * Adds a store (addPersistentStoreWithType:configuration:URL:options:) holding
 * the entities of `configuration`, or every entity when it is NULL (the
 * default configuration). `path` as for og_coordinator_add_store. `options` is
 * NULL or an OG_VALUE_DICTIONARY (og_value_new_dictionary) with Core Data's
 * keys:
 *   "NSReadOnlyPersistentStoreOption"          bool: saves are refused
 *   "NSPersistentStoreTimeoutOption"           number of seconds: SQLite waits
 *       that long for another connection's lock, then OG_ERROR_STORE_TIMEOUT;
 *       without the option 240 seconds (Core Data's default), 0 for no wait
 *   "NSSQLitePragmasOption"                    dictionary name -> string value,
 *       e.g. journal_mode (WAL by default; DELETE, TRUNCATE, MEMORY...),
 *       synchronous; names must be identifiers and values plain words or
 *       numbers, so nothing can inject SQL
 *   "NSSQLiteAnalyzeOption", "NSSQLiteManualVacuumOption"   bool: run ANALYZE
 *       or VACUUM when the store is added
 *   "NSIgnorePersistentStoreVersioningOption"  bool: open a store whose version
 *       hashes differ (the tables must still fit); the hashes are rewritten
 *       at the next save
 * Other keys are ignored but kept in og_store_options. The store is LENT by the
 * coordinator. Errors: those of og_coordinator_add_store, and
 * OG_ERROR_INVALID_ARGUMENT for a configuration the model lacks, for a named
 * configuration beside a default-configuration store (or the reverse), or
 * for an option of the wrong kind or an unsafe pragma; OG_ERROR_STORE_OPEN
 * when a store with the same UUID is attached already. */
og_store *og_coordinator_add_store_with_options(og_coordinator *coordinator, const char *type, const char *configuration,
                                                const char *path, const og_value *options, og_error **error);

/* METHOD: og_coordinator
 * Copies `store` into a new store of `type` at `path`
 * (migratePersistentStore:toURL:options:withType:): every row of its
 * configuration, relationships with their order, and primary-key counters.
 * The copy keeps the store's UUID and configuration, takes `options` (NULL:
 * the old store's), replaces the old store on the coordinator, and is
 * returned, LENT by the coordinator. Objects already fetched keep working and
 * now read from the copy. The old handle stays valid but detached. On failure
 * the old store stays attached and untouched and no new file is left.
 * Errors: OG_ERROR_STORE_OPERATION (a file is already at `path`, or the copy
 * failed: the detail says why), OG_ERROR_STORE_INVALID_TYPE,
 * OG_ERROR_INVALID_ARGUMENT (a store not attached). */
og_store *og_coordinator_migrate_store(og_coordinator *coordinator, og_store *store, const char *path, const char *type,
                                       const og_value *options, og_error **error);

/* METHOD: og_coordinator
 * The attached store at `path` (persistentStoreForURL:), LENT; NULL without an
 * error when there is none. */
og_store *og_coordinator_store_for_path(og_coordinator *coordinator, const char *path, og_error **error);

/* METHOD: og_coordinator
 * Moves a store (setURL:forPersistentStore:). A Binary or custom atomic store
 * writes its next save at `path`. An SQLite store closes and reopens at `path`,
 * where the same store (same UUID) must already be: a missing file is
 * OG_ERROR_STORE_OPEN, another store OG_ERROR_STORE_OPERATION, and it stays
 * where it was. og_store_path then returns the new path (earlier pointers stay
 * valid while the coordinator is alive). */
og_status og_coordinator_set_store_path(og_coordinator *coordinator, og_store *store, const char *path, og_error **error);

/* METHOD: og_coordinator
 * The metadata of an attached store as it is or will be after the next save
 * (metadataForPersistentStore:): a NEW OG_VALUE_DICTIONARY value. The setter
 * (setMetadata:forPersistentStore:) takes an OG_VALUE_DICTIONARY and writes it
 * at the store's next save; NSStoreType and NSStoreUUID are kept, and a
 * different NSStoreUUID is OG_ERROR_INVALID_ARGUMENT. */
og_value *og_coordinator_store_metadata(og_coordinator *coordinator, og_store *store, og_error **error);
og_status og_coordinator_set_store_metadata(og_coordinator *coordinator, og_store *store, const og_value *metadata,
                                            og_error **error);

/* ---- Automatic migration when a store is added ------------------------- */

/* Store option keys for og_coordinator_add_store_with_options (bool values):
 * migrate a store written with another version of the model before it opens,
 * and infer the mapping when no mapping model fits. */
#define OG_OPTION_MIGRATE_AUTOMATICALLY "NSMigratePersistentStoresAutomaticallyOption"
#define OG_OPTION_INFER_MAPPING_MODEL "NSInferMappingModelAutomaticallyOption"

/* Store option keys (bool values): keep persistent history in an SQLite store
 * (og_context_history), and post remote-change notifications
 * (og_coordinator_add_remote_change_observer). */
#define OG_OPTION_HISTORY_TRACKING "NSPersistentHistoryTrackingKey"
#define OG_OPTION_REMOTE_CHANGE_NOTIFICATIONS "NSPersistentStoreRemoteChangeNotificationPostOptionKey"

/* Store option key (string value) of a "PostgreSQL" store: the schema holding
 * its tables, "public" when absent; created when missing. Letters, digits and
 * underscores only (OG_ERROR_INVALID_ARGUMENT otherwise). A "PostgreSQL"
 * store's `path` is a libpq connection string (postgresql://user@host/db or
 * key=value pairs); og_store_path gives it without its password. libpq
 * (libpq.so.5) is loaded when the first such store is added: without it,
 * OG_ERROR_STORE_OPEN naming libpq.so.5 (docs/postgres.md). */
#define OG_OPTION_POSTGRESQL_SCHEMA "ObjectGraphPostgreSQLSchema"

/* METHOD: og_coordinator
 * Remote-change notifications: `callback` runs on a library thread after each
 * write to a store added with OG_OPTION_REMOTE_CHANGE_NOTIFICATIONS, by any
 * coordinator of any process (this one included), within a second. Commits
 * close together may be reported once. *token receives the registration.
 * og_coordinator_remove_remote_change_observer returns once the callback is
 * not running (unless called from inside it), and it never runs again;
 * OG_ERROR_INVALID_ARGUMENT for an unknown token. Safe from any thread. */
og_status og_coordinator_add_remote_change_observer(og_coordinator *coordinator, og_remote_change_fn callback, void *userdata,
                                                    uint64_t *token, og_error **error);
og_status og_coordinator_remove_remote_change_observer(og_coordinator *coordinator, uint64_t token, og_error **error);

/* METHOD: og_coordinator
 * currentPersistentHistoryTokenFromStores:: *out receives a NEW token of the
 * newest transaction in each store that keeps history
 * (og_history_token_release), or NULL with OG_NULL when none has one. */
og_status og_coordinator_current_history_token(og_coordinator *coordinator, og_history_token **out, og_error **error);

/* METHOD: og_coordinator
 * A NEW coordinator over `model`, as og_coordinator_new, that knows other
 * versions of the model and mapping models between versions (they play the
 * part of Core Data's bundle search). When a store is added with
 * OG_OPTION_MIGRATE_AUTOMATICALLY and its version hashes differ from the
 * model's, its source model is the one the store keeps, else the one of
 * `models` whose hashes match (else OG_ERROR_MIGRATION_MISSING_SOURCE_MODEL);
 * the mapping is one of `mappings` made for the two models (naming every
 * entity of both, with matching version hashes where it records them), else
 * the inferred one with OG_OPTION_INFER_MAPPING_MODEL (else
 * OG_ERROR_MIGRATION_MISSING_MAPPING_MODEL, or OG_ERROR_INFERRED_MAPPING_MODEL
 * when inference fails). Several steps through the versions are taken when
 * needed. The store is migrated in place and keeps its UUID; on failure its
 * file is left as it was. Without the option such a store is
 * OG_ERROR_STORE_INCOMPATIBLE_VERSION. The coordinator shares `mappings`
 * (it does not copy them); the handles stay the caller's. */
og_coordinator *og_coordinator_new_with_versions(og_model *model, og_model *const *models, size_t model_count,
                                                 og_mapping_model *const *mappings, size_t mapping_count,
                                                 og_error **error);

/* METHOD: og_coordinator
 * Releases a coordinator. Contexts using it keep it alive; its stores close
 * when the last user is gone. NULL is ignored. */
void og_coordinator_release(og_coordinator *coordinator);

/* ------------------------------------------------------------------------ */
/* Stores                                                                   */
/* ------------------------------------------------------------------------ */

/* Threads. og_store_type, og_store_uuid, og_store_configuration and
 * og_store_options give what the store was added with: they may be called
 * from several threads at once, and at once with the coordinator's functions.
 * So may og_store_path, but not at once with og_coordinator_set_store_path for
 * the same store. og_store_version_hash_count and og_store_version_hash_at
 * read the store's metadata without the coordinator's lock: not at once with
 * og_coordinator_set_store_metadata for the same store. */

/* METHOD: og_store
 * The store's type, path and UUID (NSStoreUUID). Borrowed: valid while the
 * coordinator is alive. */
const char *og_store_type(const og_store *store);
const char *og_store_path(const og_store *store);
const char *og_store_uuid(const og_store *store);

/* METHOD: og_store
 * The store's configuration name, borrowed (valid while the coordinator is
 * alive); NULL for the default configuration or an invalid handle. */
const char *og_store_configuration(const og_store *store);

/* METHOD: og_store
 * The options the store was added with, unknown keys included: a NEW
 * OG_VALUE_DICTIONARY value. */
og_value *og_store_options(const og_store *store, og_error **error);

/* METHOD: og_store
 * The version hashes the store's metadata records (NSStoreModelVersionHashes):
 * their number (0 for an invalid handle), and for `index`, the entity name in
 * name order (owned) with its 32-byte hash in `out`. */
size_t og_store_version_hash_count(const og_store *store);
char *og_store_version_hash_at(const og_store *store, size_t index, uint8_t out[32], og_error **error);

/* ---- Object IDs of incremental stores ---------------------------------- */

/* METHOD: og_store
 * The permanent ID, as an OWNED URI (og_free), of the object of `entity` that
 * `reference` names in the incremental store `store`
 * (newObjectIDForEntity:referenceObject:): the same ID for the same reference.
 * `reference` is a string, integer, data or UUID value. */
char *og_store_new_object_id(og_store *store, const og_entity *entity, const og_value *reference, og_error **error);

/* METHOD: og_store
 * The reference the ID `object_id` (a URI) was made with
 * (referenceObjectForObjectID:), as a NEW value; an ID made from a URI alone
 * has its text after "p" as a string. OG_ERROR_INVALID_ARGUMENT for an ID of
 * another store. */
og_value *og_store_reference_object(og_store *store, const char *object_id, og_error **error);

/* ------------------------------------------------------------------------ */
/* Store files, without a coordinator                                       */
/* ------------------------------------------------------------------------ */

/* METHOD: store file
 * Store metadata without a stack (metadataForPersistentStoreOfType:URL: and
 * setMetadata:forPersistentStoreOfType:URL:) for SQLite and Binary files.
 * `type` NULL: found from the file's first bytes; a type that does not match
 * the file is OG_ERROR_STORE_TYPE_MISMATCH. The getter returns the value of
 * `key` (a string, or an integer as text), OWNED; NULL WITHOUT an error when
 * the key is absent. The setter sets `key` to `value` (NULL removes it) and
 * writes the metadata now; NSStoreType and NSStoreUUID are always kept. A
 * missing file is OG_ERROR_STORE_OPEN, another kind of file
 * OG_ERROR_STORE_INVALID_TYPE. */
char *og_store_file_metadata_string(const char *type, const char *path, const char *key, og_error **error);
og_status og_store_file_set_metadata_string(const char *type, const char *path, const char *key, const char *value,
                                            og_error **error);

/* METHOD: store file
 * A store file's whole metadata without adding the store
 * (metadataForPersistentStoreOfType:URL:options:): a NEW OG_VALUE_DICTIONARY
 * value; NSStoreModelVersionHashes maps entity names to 32-byte data. `type`
 * NULL: found from the file. `options` (NULL or an OG_VALUE_DICTIONARY) are
 * those the store would be opened with. The setter
 * (setMetadata:forPersistentStoreOfType:URL:options:) writes the whole
 * dictionary now; NSStoreType and NSStoreUUID are kept. Errors:
 * OG_ERROR_STORE_OPEN when there is no readable store at `path`,
 * OG_ERROR_STORE_TYPE_MISMATCH for a store of another type, and for the setter
 * OG_ERROR_STORE_OPERATION when the file is read-only or the options say
 * NSReadOnlyPersistentStoreOption. */
og_value *og_store_file_metadata(const char *type, const char *path, const og_value *options, og_error **error);
og_status og_store_file_set_metadata(const char *type, const char *path, const og_value *metadata, const og_value *options,
                                     og_error **error);

/* ------------------------------------------------------------------------ */
/* Store types: stores written in C                                         */
/* ------------------------------------------------------------------------ */

/* ---- Atomic stores (NSAtomicStore) ------------------------------------- */

/* An atomic store implemented in C: the library keeps the store's records in
 * memory and hands the callbacks the whole store as one document in the Binary
 * store format (docs/store-format.md), to keep wherever they like.
 *  - load: put the document for `path` in *bytes (allocated with malloc; the
 *    library frees it) and *length, and return 0; return 1 when there is no
 *    store yet (a new, empty one); anything else fails (OG_ERROR_STORE_OPEN).
 *  - save: keep the `length` bytes as the whole document for `path`; return 0;
 *    2 when another writer saved the document since this store loaded it (the
 *    save fails with OG_ERROR_STORE_SAVE_CONFLICTS, nothing changes); anything
 *    else fails the save (OG_ERROR_STORE_SAVE, nothing changes). The library
 *    does not know where the callbacks keep the document, so detecting another
 *    writer is theirs to do.
 *  - release (may be NULL): called with `userdata` once the type is
 *    unregistered and no store of it is open.
 * Callbacks run on the thread that adds the store or saves a context. */
typedef struct og_atomic_store_callbacks {
    void *userdata;
    int (*load)(void *userdata, const char *path, uint8_t **bytes, size_t *length);
    int (*save)(void *userdata, const char *path, const uint8_t *bytes, size_t length);
    void (*release)(void *userdata);
} og_atomic_store_callbacks;

/* METHOD: store type
 * Registers `type` (registerStoreClass:forStoreType:) so og_coordinator_add_store
 * can add stores of it; the table is copied. Registering a type again replaces
 * its table. Errors: OG_ERROR_INVALID_ARGUMENT for a built-in type name
 * ("SQLite", "InMemory", "Binary", "XML"), an empty name, or a table without load or save. */
og_status og_atomic_store_type_register(const char *type, const og_atomic_store_callbacks *callbacks, og_error **error);
/* Deprecated: the former name of og_atomic_store_type_register, kept for one release. */
OG_DEPRECATED("use og_atomic_store_type_register")
og_status og_register_atomic_store_type(const char *type, const og_atomic_store_callbacks *callbacks, og_error **error);

/* METHOD: store type
 * Unregisters a type registered with og_atomic_store_type_register; stores of
 * it already added stay usable. OG_ERROR_STORE_INVALID_TYPE when it is not
 * registered, OG_ERROR_INVALID_ARGUMENT for a built-in type. */
og_status og_store_type_unregister(const char *type, og_error **error);
/* Deprecated: the former name of og_store_type_unregister, kept for one release. */
OG_DEPRECATED("use og_store_type_unregister")
og_status og_unregister_store_type(const char *type, og_error **error);

/* ---- Incremental stores (NSIncrementalStore) ---------------------------- */

/* An incremental store keeps its data wherever its callbacks like (another
 * database, a web service, a file format of its own) and answers the library's
 * requests itself. The library does the rest as for any store: a fetch's
 * result is merged with the context's unsaved changes and prefetched; objects
 * come back as faults that fire through new_values; a to-many is read once
 * through new_value_for_relationship, then kept; a save gives new objects
 * permanent IDs through obtain_permanent_ids, then calls execute_save exactly
 * once (also for a save that changes nothing).
 *
 * Objects are named by references (strings, integers, bytes or UUIDs):
 * og_store_new_object_id makes the ID of a reference, the same every time, and
 * its URI carries the reference as Core Data's does
 * (x-coredata://<UUID>/<Entity>/p<reference>, escaped: "key with/slash" gives
 * pkey%20with/slash). Object IDs pass as their URIs.
 *
 * Every callback but create and destroy gets the store's own state (what
 * create returned) and `store`, the store's handle, LENT for the store's life.
 * A callback that fails returns OG_ERROR and sets *error (og_error_new); one
 * that fails without setting it gets a generic error naming the callback.
 * `context` is the context making the request (LENT; NULL when it has no C
 * handle). Callbacks run on that context's thread, with the coordinator locked
 * for it: they may use the context, not wait for another thread that uses the
 * coordinator. Handles they are given are valid only during the call. */

#define OG_INCREMENTAL_STORE_CALLBACKS_VERSION 1

typedef struct og_incremental_store_callbacks {
    /* OG_INCREMENTAL_STORE_CALLBACKS_VERSION: members are only ever added at the
     * end, and the library reads as many as the version has. */
    int version;
    /* Passed to create and release. */
    void *userdata;
    /* Makes the state of a store added at `path` (`configuration` NULL for the
     * default one); returns it (NULL is a valid state). Fails by setting *error. */
    void *(*create)(void *userdata, const char *path, const char *configuration, og_error **error);
    /* loadMetadata: returns a NEW dictionary value (og_value_new_dictionary)
     * with "NSStoreType" (the registered type) and "NSStoreUUID"; another type
     * is OG_ERROR_STORE_TYPE_MISMATCH and the store is not added. */
    og_value *(*load_metadata)(void *state, og_error **error);
    /* A fetch request (og_fetch_request_result_type): add the matching objects'
     * IDs to `result` for objects and object IDs, one dictionary per row for
     * dictionaries, or set the count for a count request. The predicate, sort and
     * window are the callback's to apply. */
    og_status (*execute_fetch)(void *state, og_store *store, const og_fetch_request *request, og_context *context,
                               og_incremental_result *result, og_error **error);
    /* A save: og_save_changes_request_count and _object_at give its objects.
     * Writes everything or, failing, nothing: the context keeps its changes. */
    og_status (*execute_save)(void *state, og_store *store, const og_save_changes_request *request, og_context *context,
                              og_error **error);
    /* The values of the object `object_id` (a URI), set on `node` by property
     * name; a to-one as an OG_VALUE_OBJECT_ID value (og_value_new_object_id_uri)
     * or null. Each non-optional attribute needs a value; a to-one left out is
     * read through new_value_for_relationship. */
    og_status (*new_values)(void *state, og_store *store, const char *object_id, og_context *context,
                            og_incremental_node *node, og_error **error);
    /* The destinations of `relationship` of `object_id`: add their IDs to
     * `result`, in order (none or one for a to-one). */
    og_status (*new_value_for_relationship)(void *state, og_store *store, const og_property *relationship,
                                            const char *object_id, og_context *context, og_incremental_result *result,
                                            og_error **error);
    /* One permanent ID per new object (og_store_new_object_id), added to
     * `result` in the order of `objects`. NULL: each gets a new UUID reference. */
    og_status (*obtain_permanent_ids)(void *state, og_store *store, og_object *const *objects, size_t count,
                                      og_incremental_result *result, og_error **error);
    /* The store is gone (may be NULL). */
    void (*destroy)(void *state);
    /* The type is unregistered (may be NULL): called with `userdata`. */
    void (*release)(void *userdata);
} og_incremental_store_callbacks;

/* METHOD: store type
 * Registers `type` (registerStoreClass:forStoreType:) so
 * og_coordinator_add_store makes its stores through `callbacks` (copied).
 * Errors: OG_ERROR_INVALID_ARGUMENT for a name registered already, an empty or
 * built-in name, a table of an unknown version, or one without create,
 * load_metadata, execute_fetch, execute_save or new_values. Unregister with
 * og_store_type_unregister, which refuses (OG_ERROR_INVALID_ARGUMENT) while a
 * store of the type is open. */
og_status og_incremental_store_type_register(const char *type, const og_incremental_store_callbacks *callbacks,
                                             og_error **error);

/* METHOD: store type
 * The registered store type names, sorted, as a NEW array value of strings
 * (registeredStoreTypes). */
og_value *og_store_types_registered(og_error **error);

/* ------------------------------------------------------------------------ */
/* Incremental results (an incremental store's answers)                     */
/* ------------------------------------------------------------------------ */

/* METHOD: og_incremental_result
 * Adds an object ID (a URI) to a fetch's, relationship's or permanent IDs'
 * answer. */
og_status og_incremental_result_add_object_id(og_incremental_result *result, const char *object_id, og_error **error);

/* METHOD: og_incremental_result
 * Adds one dictionary row (a dictionary value: property name -> value, to-ones
 * as object IDs) to a dictionary fetch's answer. */
og_status og_incremental_result_add_row(og_incremental_result *result, const og_value *dictionary, og_error **error);

/* METHOD: og_incremental_result
 * Sets a count request's answer. */
og_status og_incremental_result_set_count(og_incremental_result *result, int64_t count, og_error **error);

/* ------------------------------------------------------------------------ */
/* Incremental nodes (an object's values, from new_values)                  */
/* ------------------------------------------------------------------------ */

/* METHOD: og_incremental_node
 * Sets the value of property `key` (copied). */
og_status og_incremental_node_set_value(og_incremental_node *node, const char *key, const og_value *value,
                                        og_error **error);

/* METHOD: og_incremental_node
 * Sets the version the store holds the object at. */
og_status og_incremental_node_set_version(og_incremental_node *node, int64_t version, og_error **error);

/* ------------------------------------------------------------------------ */
/* Save changes requests (a save, given to execute_save)                    */
/* ------------------------------------------------------------------------ */

/* METHOD: og_save_changes_request
 * The number of objects in `set` (OG_OBJECTS_INSERTED, _UPDATED, _DELETED or
 * _LOCKED); 0 for a bad handle. */
size_t og_save_changes_request_count(const og_save_changes_request *request, og_object_set set);

/* METHOD: og_save_changes_request
 * Object `index` of `set`, LENT by the context. */
og_object *og_save_changes_request_object_at(const og_save_changes_request *request, og_object_set set, size_t index,
                                             og_error **error);

/* ------------------------------------------------------------------------ */
/* Contexts                                                                 */
/* ------------------------------------------------------------------------ */

/* METHOD: og_context
 * A NEW context over `coordinator`, confined to the calling thread: every
 * later call on it or its objects must come from this thread. */
og_context *og_context_new(og_coordinator *coordinator, og_error **error);

/* METHOD: og_context
 * Inserts a new object of `entity_name` with the attributes' default values
 * and a temporary ID. Returns it, LENT by the context: the handle stays valid
 * until the context is released (the same object always has the same handle).
 * OG_ERROR_UNKNOWN_ENTITY for an unknown or abstract entity. */
og_object *og_context_insert(og_context *context, const char *entity_name, og_error **error);

/* METHOD: og_context
 * og_context_insert, then og_object_set_int64s_at(object, slots, values,
 * count) in the same call: one call per new object where a loop would make
 * two. When a value is refused (a slot out of range or not an attribute, a
 * number out of an attribute's range), nothing is inserted and the error is
 * the one og_object_set_int64s_at reports. */
og_object *og_context_insert_int64s(og_context *context, const char *entity_name, const size_t *slots,
                                    const int64_t *values, size_t count, og_error **error);

/* METHOD: og_context
 * Marks `object` deleted; applying delete rules. Deleting an object inserted
 * since the last save simply forgets it. Written at the next save. */
og_status og_context_delete(og_context *context, og_object *object, og_error **error);

/* METHOD: og_context
 * Whether the context has unsaved inserts, updates or deletes. */
og_status og_context_has_changes(og_context *context, bool *out, og_error **error);

/* METHOD: og_context
 * Validates and writes every change in one transaction. On success temporary
 * IDs become permanent. On failure nothing is written and the changes stay
 * pending: validation errors carry the object, key and value (code 1560 with
 * details when several fail). A store whose primary-key counter or a row's
 * version (Z_OPT) would pass 2^63-1 fails the save with OG_ERROR_STORE_SAVE
 * naming the entity. */
og_status og_context_save(og_context *context, og_error **error);

/* METHOD: og_context
 * Executes a fetch request. Returns NEW results, released with
 * og_results_release; the objects in them are LENT by the context. */
og_results *og_context_fetch(og_context *context, const og_fetch_request *request, og_error **error);

/* METHOD: og_context
 * Counts what the request would return: objects (with pending changes), or
 * dictionary rows for an OG_RESULT_DICTIONARIES request. */
og_status og_context_count(og_context *context, const og_fetch_request *request, size_t *out, og_error **error);

/* METHOD: og_context
 * The IDs of the objects the request matches, whatever its result type: with
 * pending changes (new objects' temporary IDs, deleted objects left out), but
 * without registering objects. Returns NEW og_object_ids
 * (og_object_ids_release). */
og_object_ids *og_context_fetch_object_ids(og_context *context, const og_fetch_request *request, og_error **error);

/* METHOD: og_context
 * One dictionary per result row, or per group, whatever the request's result
 * type. Computed by the store (in SQL on SQLite stores) from saved data:
 * unsaved changes are not reflected. Returns NEW og_rows (og_rows_release). */
og_rows *og_context_fetch_dictionaries(og_context *context, const og_fetch_request *request, og_error **error);

/* METHOD: og_context
 * The object an object ID URI (og_object_id_uri: x-coredata://<store UUID>/
 * <Entity>/p<key>) names (managedObjectIDForURIRepresentation: then
 * existingObjectWithID:), LENT by the context. NULL WITHOUT an error when no
 * attached store has that UUID or the URI is not of that form; an error when
 * the object no longer exists. */
og_object *og_context_object_for_uri(og_context *context, const char *uri, og_error **error);

/* METHOD: og_context
 * How the request would be fetched, as an owned text (og_free): per store that
 * answers it, lines "store: <path> (<type>)", "sql: <SELECT>", "bindings: ...",
 * "plan: <EXPLAIN QUERY PLAN step>", "filtered in memory: yes|no" (rows the
 * store cannot select exactly in SQL are filtered and sorted in memory) and
 * "pending changes merged in memory: yes|no"; stores are separated by an empty
 * line. Nothing is registered and no row is read. */
char *og_context_explain(og_context *context, const og_fetch_request *request, og_error **error);

/* METHOD: og_context
 * Gives back an object handle the context lent, so that the context stops
 * holding the object for C: the handle becomes invalid, and the object's
 * memory comes back once the context no longer needs it (an object with unsaved
 * changes stays until saved or rolled back). Handing the object out again (a
 * fetch, a relationship, og_results_object_at) lends a new handle. For
 * bindings that know when their last reference to a handle goes (the Python
 * package calls it when a wrapper is collected). Any thread.
 * OG_ERROR_INVALID_HANDLE for a handle this context did not lend or already
 * gave back. */
og_status og_context_release_object(og_context *context, og_object *object, og_error **error);

/* METHOD: og_context
 * og_context_release_object for `count` handles in one call (a binding letting go
 * of a large result). Every handle that is a live handle this context lent is
 * given back; if any is not, the others are still given back and the call
 * fails with OG_ERROR_INVALID_HANDLE, saying how many were not. Any thread. */
og_status og_context_release_objects(og_context *context, og_object *const *objects, size_t count, og_error **error);

/* METHOD: og_context
 * The address of a counter that changes whenever any value of the context's
 * objects may have changed (a set, a rollback, a refresh, a reset, a hook that
 * changes an object...): values read in bulk stay valid while it is unchanged.
 * Valid while the context handle lives; NULL for an invalid handle. */
const uint64_t *og_context_change_counter(const og_context *context);

/* METHOD: og_context
 * Calls `callback(userdata)` once, at the next change og_context_change_counter
 * counts, on the thread that makes it and before the call that makes it
 * returns; then forgets it. One is kept per context: a second call (or one with
 * a NULL callback) replaces it and calls the one replaced at once, so each is
 * called exactly once unless the context is released first (then never). The
 * callback runs in the middle of a change, so it must not call the library: it
 * is for a binding to note that values it read in bulk no longer hold, without
 * reading the counter before each use of them. Follows the context's thread
 * rule. */
og_status og_context_on_next_value_change(og_context *context, og_block_fn callback, void *userdata, og_error **error);

/* METHOD: og_context
 * Releases a context. Objects it lent become invalid. A queue context first
 * waits for the blocks queued with og_context_perform (do not release it
 * from inside one of its own blocks). NULL is ignored. */
void og_context_release(og_context *context);

/* ---- The context's life cycle ------------------------------------------ */
/* Every function below follows the context's thread rule (og_context_new,
 * og_context_new_with_type): from another thread it fails with
 * OG_ERROR_WRONG_THREAD and changes nothing. */

/* METHOD: og_context
 * A NEW context of the given og_concurrency_type over `coordinator`.
 * CONFINEMENT is og_context_new. A PRIVATE_QUEUE context has its own serial
 * queue: use it, and the objects it lends, only inside og_context_perform or
 * og_context_perform_and_wait blocks. MAIN_QUEUE contexts share one serial
 * queue of the library's (Linux programs need not run a main loop; nothing has
 * to be drained by hand). OG_ERROR_INVALID_ARGUMENT for another number. */
og_context *og_context_new_with_type(og_coordinator *coordinator, og_concurrency_type concurrency_type,
                                     og_error **error);

/* METHOD: og_context
 * The context's og_concurrency_type; -1 for an invalid handle. Any thread. */
int og_context_concurrency_type(const og_context *context);

/* METHOD: og_context
 * Queues `block(userdata)` on the context's queue and returns at once
 * (performBlock:). The block is one user event: when it returns, pending
 * changes are processed (OBJECTS_DID_CHANGE posted, the undo group closed). A
 * confinement context has no queue: OG_ERROR_INVALID_ARGUMENT and the block
 * does not run (Core Data raises).
 * The block runs on a library thread: `userdata` must stay valid until it
 * has run. og_context_release waits for queued blocks, so none runs after
 * it. Any thread (for a queue context). */
og_status og_context_perform(og_context *context, og_block_fn block, void *userdata, og_error **error);

/* METHOD: og_context
 * Runs `block(userdata)` on the context's queue and waits for it
 * (performBlockAndWait:). Re-entrant: called from inside a block of the same
 * context it runs the block at once. Not an event: its changes are processed
 * at the end of the next og_context_perform block, at
 * og_context_process_pending_changes or at og_context_save. A confinement
 * context: OG_ERROR_INVALID_ARGUMENT and the block does not run. Any thread. */
og_status og_context_perform_and_wait(og_context *context, og_block_fn block, void *userdata, og_error **error);

/* METHOD: og_context
 * Coalesces the changes since the last call into one event: applies delete
 * rules still pending and posts OBJECTS_DID_CHANGE. Also runs before a save,
 * fetch, count and rollback, and at the end of every perform block. */
og_status og_context_process_pending_changes(og_context *context, og_error **error);

/* METHOD: og_context
 * Discards every unsaved change: inserted objects leave the context (their
 * handles then give OG_ERROR_OBJECT_INACCESSIBLE), deleted ones come back,
 * changed ones return to their committed values (AWAKE_FROM_SNAPSHOT_EVENTS). */
og_status og_context_rollback(og_context *context, og_error **error);

/* METHOD: og_context
 * Forgets every object: unsaved changes are lost, OBJECTS_DID_CHANGE reports
 * og_notification_invalidated_all, and every object handle the context lent
 * is released (OG_ERROR_INVALID_HANDLE from then on), so that the memory of
 * the forgotten objects comes back. Results and notifications that still hold
 * such objects give invalid handles too. */
og_status og_context_reset(og_context *context, og_error **error);

/* METHOD: og_context
 * refreshObject:mergeChanges:. Without `merge` the object turns into a fault,
 * dropping its unsaved changes (WILL/DID_TURN_INTO_FAULT). With `merge` its
 * unchanged properties take the store's current values and its own changes
 * stay; 133000 when its row is gone. New objects are left alone. */
og_status og_context_refresh_object(og_context *context, og_object *object, bool merge, og_error **error);

/* METHOD: og_context
 * Gives the `count` new objects their permanent IDs now (they stay inserted
 * until saved; objects with permanent IDs are skipped).
 * OG_ERROR_INVALID_ARGUMENT for an object that is not a new object of this
 * context. */
og_status og_context_obtain_permanent_ids(og_context *context, og_object *const *objects, size_t count, og_error **error);

/* METHOD: og_context
 * assignObject:toPersistentStore:: saves the new object `object` to `store`
 * instead of the first writable store whose configuration holds its entity.
 * OG_ERROR_INVALID_ARGUMENT when the object is not new in this context or
 * already has a permanent ID, or the store is not attached to the context's
 * coordinator or does not hold the entity. A relationship between objects of
 * two stores fails the save with OG_ERROR_EXTERNAL_RELATIONSHIP (133010). */
og_status og_context_assign_object(og_context *context, og_object *object, og_store *store, og_error **error);

/* ---- Registration (objects by their ID URI, og_object_id_uri) ---------- */

/* METHOD: og_context
 * objectRegisteredForID: *out is the object registered under `uri` (temporary
 * or permanent), LENT by the context, or NULL with OG_NULL when there is none.
 * Never touches the store. */
og_status og_context_object_registered(og_context *context, const char *uri, og_object **out, og_error **error);

/* METHOD: og_context
 * objectWithID: the registered object, or a fault for it, LENT by the
 * context. Reading a fault whose row is gone fails with 133000.
 * OG_ERROR_INVALID_ARGUMENT for a URI that names no saved object of the
 * coordinator's stores (or an unregistered temporary ID). */
og_object *og_context_object_with_uri(og_context *context, const char *uri, og_error **error);

/* METHOD: og_context
 * existingObjectWithID: the object with its values loaded, LENT by the
 * context; NULL and 133000 (OG_ERROR_REFERENTIAL_INTEGRITY) when its row is
 * gone, OG_ERROR_INVALID_ARGUMENT for a URI that is not an object ID. */
og_object *og_context_existing_object(og_context *context, const char *uri, og_error **error);

/* METHOD: og_context
 * The number of registered objects (registeredObjects.count): new ones and
 * fetched ones still alive. Unchanged objects are not kept alive by the context
 * unless og_context_set_retains_registered_objects is on; an object whose
 * handle was lent to C stays alive until the context is released. */
og_status og_context_registered_count(og_context *context, size_t *out, og_error **error);

/* METHOD: og_context
 * The objects of one og_object_set, as NEW results (og_results_release); the
 * objects are LENT by the context. */
og_results *og_context_objects(og_context *context, og_object_set which, og_error **error);

/* ---- Settings ---------------------------------------------------------- */

/* METHOD: og_context
 * retainsRegisteredObjects (default false). */
og_status og_context_retains_registered_objects(og_context *context, bool *out, og_error **error);
og_status og_context_set_retains_registered_objects(og_context *context, bool on, og_error **error);

/* METHOD: og_context
 * propagatesDeletesAtEndOfEvent (default true): whether delete rules apply at
 * the end of the event (og_context_process_pending_changes) or only at save. */
og_status og_context_propagates_deletes(og_context *context, bool *out, og_error **error);
og_status og_context_set_propagates_deletes(og_context *context, bool on, og_error **error);

/* METHOD: og_context
 * The context's userInfo, as text. og_context_user_info gives an owned copy
 * (og_free), or NULL with OG_NULL when the key is absent; setting NULL removes
 * the key. */
og_status og_context_user_info(og_context *context, const char *key, char **out, og_error **error);
og_status og_context_set_user_info(og_context *context, const char *key, const char *value, og_error **error);

/* ---- Hooks: what a subclass of NSManagedObject overrides, per entity ---- */
/* METHOD: og_context
 * Hooks of an entity apply to its subentities unless they have their own.
 * Each call replaces one hook of one entity; a NULL callback removes it. The
 * callbacks run on the context's thread while the library works (insert,
 * fetch, save, delete, rollback, refresh); the object passed in is LENT by
 * the context. OG_ERROR_UNKNOWN_ENTITY for an unknown entity,
 * OG_ERROR_INVALID_ARGUMENT for an unknown kind. */
og_status og_context_set_hook(og_context *context, const char *entity_name, og_hook_kind kind, og_hook_fn callback,
                              void *userdata, og_error **error);

/* METHOD: og_context
 * validateForInsert/Update/Delete (og_validation_kind): called at save after
 * the model's own rules passed for the object. A refusal fails the save
 * with the callback's error (several failures: 1560 with details); nothing is
 * written. */
og_status og_context_set_validation_hook(og_context *context, const char *entity_name, og_validation_kind kind,
                                         og_validation_fn callback, void *userdata, og_error **error);

/* METHOD: og_context
 * validateValue:forKey: for every property of the entity, after the model's
 * rules for that property passed: at save and in og_object_validate_value.
 * The value cannot be replaced (coercion is Swift-only). */
og_status og_context_set_value_validator(og_context *context, const char *entity_name, og_value_validation_fn callback,
                                         void *userdata, og_error **error);

/* ---- Notifications ----------------------------------------------------- */

/* METHOD: og_context
 * Calls `callback` for every notification of og_notification_kind `kind` the
 * context posts, synchronously on the context's thread, until removed. *token
 * receives the registration, for og_context_remove_observer. */
og_status og_context_add_observer(og_context *context, og_notification_kind kind, og_notification_fn callback,
                                  void *userdata, uint64_t *token, og_error **error);

/* METHOD: og_context
 * Removes an observer: its callback is never called again, even by a
 * notification being delivered right now. OG_ERROR_INVALID_ARGUMENT for an
 * unknown or already removed token. */
og_status og_context_remove_observer(og_context *context, uint64_t token, og_error **error);

/* ---- Conflicts and merge policies -------------------------------------- */
/* Every object remembers the row version (Z_OPT) it last read. A save checks
 * each updated and deleted object against the coordinator's newest row and,
 * inside the store's write transaction, against the store, so a change made
 * by another context, coordinator or process is caught. The context's merge
 * policy decides what happens to each conflicting object. */

/* METHOD: og_context
 * mergePolicy (default OG_MERGE_POLICY_ERROR). OG_ERROR_INVALID_ARGUMENT for a
 * number that is not an og_merge_policy. */
og_status og_context_merge_policy(og_context *context, og_merge_policy *out, og_error **error);
og_status og_context_set_merge_policy(og_context *context, og_merge_policy policy, og_error **error);

/* ---- Merging saves between contexts ----------------------------------- */

/* METHOD: og_context
 * Merges another context's save into `context`, on the context's thread (in
 * a perform block for a queue context): registered objects it updated are
 * refreshed keeping this context's own changes; objects it deleted become
 * deleted here (fetches no longer return them); inserted ones become
 * fetchable. OBJECTS_DID_CHANGE is posted. OG_ERROR_INVALID_ARGUMENT for a
 * record from a notification of another coordinator (merge such changes
 * with og_context_merge_remote_changes). */
og_status og_context_merge_changes(og_context *context, const og_changes *changes, og_error **error);

/* METHOD: og_context
 * mergeChangesFromRemoteContextSave:intoContexts:: merges the IDs of `changes`
 * into each of the `count` contexts, each on its own queue (a queue context
 * through perform-and-wait; a confinement context must belong to the calling
 * thread). IDs whose store is not attached to a context's coordinator are
 * skipped for that context. Stops at the first failing context. */
og_status og_context_merge_remote_changes(const og_changes *changes, og_context *const *contexts, size_t count,
                                          og_error **error);

/* METHOD: og_context
 * automaticallyMergesChangesFromParent (default false): a child context then
 * merges each save of its parent, and a root context each save of the other
 * contexts of its coordinator, on its own queue (a confinement context at its
 * next call from its own thread). */
og_status og_context_automatically_merges_changes_from_parent(og_context *context, bool *out, og_error **error);
og_status og_context_set_automatically_merges_changes_from_parent(og_context *context, bool on, og_error **error);

/* ---- Staleness and faults ---------------------------------------------- */

/* METHOD: og_context
 * stalenessInterval in seconds (default -1): how old a cached row may be when
 * a fault fires or an object is refreshed. Negative: any age (the cached row
 * is used); 0: the store is always read; positive: rows older than that are
 * read again. NaN is OG_ERROR_INVALID_ARGUMENT. */
og_status og_context_staleness_interval(og_context *context, double *out, og_error **error);
og_status og_context_set_staleness_interval(og_context *context, double seconds, og_error **error);

/* METHOD: og_context
 * shouldDeleteInaccessibleFaults (default true): a fault whose row is gone
 * becomes a deleted object with empty values instead of failing with 133000. */
og_status og_context_should_delete_inaccessible_faults(og_context *context, bool *out, og_error **error);
og_status og_context_set_should_delete_inaccessible_faults(og_context *context, bool on, og_error **error);

/* METHOD: og_context
 * refreshAllObjects: refreshes every registered object, keeping unsaved
 * changes (as og_context_refresh_object with merge). */
og_status og_context_refresh_all_objects(og_context *context, og_error **error);

/* ---- Nested contexts --------------------------------------------------- */
/* A child context's store is its parent: its save pushes its changes into the
 * parent only (the store is written when the root context saves), its fetches
 * see the parent's unsaved changes with its own over them, and its faults
 * fire through the parent. New objects keep temporary IDs until the root
 * saves. Conflicts are raised when the root saves. */

/* METHOD: og_context
 * A NEW child context of `parent`, of any og_concurrency_type, over any kind of
 * parent. The child keeps its parent alive (the parent's handle may be
 * released first; the parent's lent objects then become invalid). Any thread
 * for the call itself; the child then follows its own thread rule. */
og_context *og_context_new_child(og_context *parent, og_concurrency_type concurrency_type, og_error **error);

/* METHOD: og_context
 * Whether the context is a child (has a parent context). Any thread. */
bool og_context_has_parent(const og_context *context);

/* ---- Events, undo and redo --------------------------------------------- */
/* A context records its changes with its undo manager when it processes
 * pending changes: at og_context_process_pending_changes, at the end of every
 * og_context_perform block (one user event), and at og_context_save;
 * og_context_perform_and_wait is not an event boundary. Inserts, deletes,
 * attribute and relationship changes (both sides, to-many and ordered edits)
 * are recorded; firing a fault records nothing. Undoing an insert removes the
 * object (its handle gives OG_ERROR_OBJECT_INACCESSIBLE until a redo brings the
 * same object back); undoing a delete, saved or not, brings the object back
 * with its values; undoing a saved change leaves the object updated, to be
 * saved again. og_context_rollback and og_context_reset empty the stacks;
 * og_context_save does not. Undo and redo post OBJECTS_DID_CHANGE. */

/* METHOD: og_context
 * The context's undo manager, LENT (the handle given to
 * og_context_set_undo_manager, valid while that handle is), or NULL: a
 * context has none until one is set. */
og_undo_manager *og_context_undo_manager(og_context *context, og_error **error);

/* METHOD: og_context
 * Sets the context's undo manager; NULL stops recording. The context keeps
 * the manager alive; one manager may serve several contexts. */
og_status og_context_set_undo_manager(og_context *context, og_undo_manager *manager, og_error **error);

/* METHOD: og_context
 * undo / redo: processes pending changes (closing the event's group), then asks
 * the manager to undo or redo its newest group. Nothing happens without a
 * manager or with nothing to undo. Errors as og_undo_manager_undo. */
og_status og_context_undo(og_context *context, og_error **error);
og_status og_context_redo(og_context *context, og_error **error);

/* METHOD: og_context
 * The context's name (NULL: none): owned copy (og_free) or OG_NULL; setting
 * NULL removes it. */
og_status og_context_name(og_context *context, char **out, og_error **error);
og_status og_context_set_name(og_context *context, const char *name, og_error **error);

/* METHOD: og_context
 * Batch requests (NSBatchInsertRequest, NSBatchUpdateRequest,
 * NSBatchDeleteRequest): each writes to the one SQLite store holding the entity
 * in one transaction, without objects. The context gets no pending changes, and
 * its registered objects keep their values until refreshed or until the
 * returned IDs are merged (og_context_merge_remote_changes). `count` (may be
 * NULL) receives how many rows were written or deleted; with
 * OG_BATCH_RESULT_OBJECT_IDS, `ids` receives their IDs, NEW
 * (og_object_ids_release), and must not be NULL. Errors:
 * OG_ERROR_STORE_UNSUPPORTED_REQUEST for a store of another type, and the
 * others named below; on any error nothing is written.
 *
 * og_context_batch_insert: `rows` is an OG_VALUE_ARRAY of OG_VALUE_DICTIONARY
 * values, attribute name to value; attributes left out take the model's
 * defaults. A row with an unknown key (OG_ERROR_UNKNOWN_KEY), a relationship
 * (OG_ERROR_INVALID_ARGUMENT), a value of the wrong type or a required attribute
 * without a value or default (OG_ERROR_VALIDATION_MISSING_MANDATORY) fails the
 * batch, naming the row. og_context_batch_insert_rows takes its rows from
 * `next` until it returns NULL.
 *
 * og_context_batch_update: sets the attributes of `values` (an
 * OG_VALUE_DICTIONARY) on every row of `entity` (and its subentities) that
 * `predicate` matches (NULL: every row); each row's version moves on.
 *
 * og_context_batch_delete: deletes the rows `request` matches (its predicate,
 * entity and subentities; its window is ignored); og_context_batch_delete_objects
 * the rows of the `uri_count` object-ID URIs `uris`, which must all name objects
 * of one store (gone ones are skipped).
 * No delete rule runs: many-to-many pairs go with their rows, but a to-one
 * pointing at a deleted row keeps its key (docs/batch.md). */
og_status og_context_batch_insert(og_context *context, const char *entity, const og_value *rows, og_batch_result_type result_type,
                                  size_t *count, og_object_ids **ids, og_error **error);
og_status og_context_batch_insert_rows(og_context *context, const char *entity, og_batch_row_fn next, void *userdata,
                                       og_batch_result_type result_type, size_t *count, og_object_ids **ids, og_error **error);
/* METHOD: og_context
 * A batch insert of `row_count` rows given column by column, the bulk form of
 * og_context_batch_insert (no value per row and key): one og_batch_column per
 * attribute. Values are converted and checked as og_context_batch_insert's are
 * (a double column into an integer attribute is OG_ERROR_TYPE_MISMATCH naming
 * the row); OG_ERROR_INVALID_ARGUMENT for a NULL `values`, an unknown
 * og_column_type or a column named twice. */
og_status og_context_batch_insert_columns(og_context *context, const char *entity, const og_batch_column *columns, size_t column_count,
                                          size_t row_count, og_batch_result_type result_type, size_t *count, og_object_ids **ids,
                                          og_error **error);
og_status og_context_batch_update(og_context *context, const char *entity, const og_predicate *predicate, const og_value *values,
                                  og_batch_result_type result_type, size_t *count, og_object_ids **ids, og_error **error);
og_status og_context_batch_delete(og_context *context, const og_fetch_request *request, og_batch_result_type result_type,
                                  size_t *count, og_object_ids **ids, og_error **error);
og_status og_context_batch_delete_objects(og_context *context, const char *const *uris, size_t uri_count,
                                          og_batch_result_type result_type, size_t *count, og_object_ids **ids, og_error **error);

/* METHOD: og_context
 * Persistent history (NSPersistentHistoryChangeRequest) of every store of the
 * coordinator that keeps it (OG_OPTION_HISTORY_TRACKING; docs/history.md).
 * og_context_history returns a NEW og_history (og_history_release) of the
 * transactions after `after` (exclusive; NULL: the whole history), oldest
 * first, with their changes; og_context_history_after_date those after a
 * date. `filter` (may be NULL) is a fetch request on the entity "Transaction"
 * (keys author, contextName, processID, bundleID, storeID, timestamp,
 * transactionNumber) or "Change" (changeID, changeType, changedObjectID,
 * entityName), without sort descriptors; a Change filter keeps the matching
 * changes and the transactions that hold them. Errors:
 * OG_ERROR_HISTORY_TOKEN_EXPIRED for a token whose transaction was purged;
 * OG_ERROR_INVALID_ARGUMENT for a token of no attached store or one past what
 * the store wrote, and for a filter with a sort order or of another entity;
 * OG_ERROR_STORE_UNSUPPORTED_REQUEST when no attached store keeps history. */
og_history *og_context_history(og_context *context, const og_history_token *after, const og_fetch_request *filter, og_error **error);
og_history *og_context_history_after_date(og_context *context, double seconds_since_1970, const og_fetch_request *filter,
                                          og_error **error);

/* METHOD: og_context
 * deleteHistoryBeforeToken: / Date:: purges the transactions before `before`
 * (the token's own transaction is kept) or before the date, with their
 * changes. Transaction numbers are never reused; a token older than the purge
 * then gives OG_ERROR_HISTORY_TOKEN_EXPIRED. */
og_status og_context_delete_history(og_context *context, const og_history_token *before, og_error **error);
og_status og_context_delete_history_before_date(og_context *context, double seconds_since_1970, og_error **error);

/* METHOD: og_context
 * transactionAuthor: recorded as the author of the history transaction of each
 * save and batch. Owned copy (og_free) or OG_NULL; setting NULL removes it. */
og_status og_context_transaction_author(og_context *context, char **out, og_error **error);
og_status og_context_set_transaction_author(og_context *context, const char *author, og_error **error);

/* METHOD: og_context
 * Starts an asynchronous fetch (NSAsynchronousFetchRequest) and returns at once:
 * the fetch, then `completion` (may be NULL), run later on the context's queue.
 * Returns a NEW og_async_fetch (og_async_fetch_release). Errors:
 * OG_ERROR_INVALID_ARGUMENT on a confinement context, which has no queue.
 * `estimated_count` is the caller's guess at the number of results (0: none). */
og_async_fetch *og_context_fetch_async(og_context *context, const og_fetch_request *request, size_t estimated_count,
                                       og_async_fetch_fn completion, void *userdata, og_error **error);

/* ------------------------------------------------------------------------ */
/* Asynchronous fetches                                                     */
/* ------------------------------------------------------------------------ */

/* METHOD: og_async_fetch
 * Asks the fetch not to run (cancel). The completion still runs, and the fetch
 * then finishes with no objects and no error; one already running completes. */
og_status og_async_fetch_cancel(og_async_fetch *fetch, og_error **error);

/* METHOD: og_async_fetch
 * How far the fetch got, 0 to 1 (1 once it is done), and whether it is done.
 * Any thread. */
og_status og_async_fetch_progress(const og_async_fetch *fetch, double *out, og_error **error);
og_status og_async_fetch_is_finished(const og_async_fetch *fetch, bool *out, og_error **error);

/* METHOD: og_async_fetch
 * The objects of a finished fetch, as NEW og_results whose objects the context
 * lends (use them on its queue, e.g. in the completion or og_context_perform_and_wait).
 * NULL with the fetch's own error when it failed, or OG_ERROR_INVALID_ARGUMENT
 * while it has not finished. */
og_results *og_async_fetch_results(og_async_fetch *fetch, og_error **error);

/* METHOD: og_async_fetch
 * Releases the caller's handle; NULL does nothing. A fetch not yet run still
 * runs and calls its completion. */
void og_async_fetch_release(og_async_fetch *fetch);

/* ------------------------------------------------------------------------ */
/* Notifications                                                            */
/* ------------------------------------------------------------------------ */

/* METHOD: og_notification
 * The notification's og_notification_kind; -1 for an invalid handle. */
int og_notification_kind_of(const og_notification *notification);

/* METHOD: og_notification
 * The number of objects under og_notification_key `key` (0 for an unknown key). */
size_t og_notification_count(const og_notification *notification, og_notification_key key);

/* METHOD: og_notification
 * Object `index` under `key`, LENT by the context. Objects of a did-save's
 * deleted list, and those invalidated by a reset, are inaccessible
 * (OG_ERROR_OBJECT_INACCESSIBLE) except for og_object_id_uri. */
og_object *og_notification_object_at(const og_notification *notification, og_notification_key key, size_t index,
                                     og_error **error);

/* METHOD: og_notification
 * NSInvalidatedAllObjectsKey: whether the context was reset. */
bool og_notification_invalidated_all(const og_notification *notification);

/* METHOD: og_notification
 * The object IDs of a DID_SAVE or OBJECTS_DID_CHANGE notification, as a NEW
 * record (og_changes_release), remembering the coordinator they belong to.
 * Call it inside the observer callback. OG_ERROR_INVALID_ARGUMENT for a
 * WILL_SAVE notification. */
og_changes *og_notification_changes(const og_notification *notification, og_error **error);

/* ------------------------------------------------------------------------ */
/* Changes: the object IDs of a save                                        */
/* ------------------------------------------------------------------------ */

/* An og_changes record holds object IDs only, so it may be handed to another
 * thread and merged into a context there (mergeChangesFromContextDidSave-
 * Notification:). Records are immutable once made, except by og_changes_add;
 * reading and merging them is safe from any thread. */

/* METHOD: og_changes
 * A NEW empty record for og_changes_add (changes made elsewhere: another
 * coordinator, another process, a batch request). */
og_changes *og_changes_new(og_error **error);

/* METHOD: og_changes
 * Adds an object ID URI (og_object_id_uri's form) under `kind`.
 * OG_ERROR_INVALID_ARGUMENT for a URI that is not an object ID or a record
 * made by og_notification_changes. */
og_status og_changes_add(og_changes *changes, og_change_kind kind, const char *uri, og_error **error);

/* METHOD: og_changes
 * The number of IDs under `kind` (0 for an invalid handle or kind). */
size_t og_changes_count(const og_changes *changes, og_change_kind kind);

/* METHOD: og_changes
 * ID `index` under `kind` as a URI: an owned string (og_free). */
char *og_changes_uri_at(const og_changes *changes, og_change_kind kind, size_t index, og_error **error);

/* METHOD: og_changes
 * Releases a record. NULL is ignored. */
void og_changes_release(og_changes *changes);

/* ------------------------------------------------------------------------ */
/* History: persistent history transactions and tokens                      */
/* ------------------------------------------------------------------------ */
/* An og_history is what og_context_history read: transactions `t` (0 to
 * og_history_count - 1), each with changes `c` (0 to og_history_change_count - 1).
 * It holds no objects, so it may be read from any thread, but not from two at
 * once. Strings it lends stay valid until og_history_release. */

/* METHOD: og_history
 * The number of transactions (0 for an invalid handle). */
size_t og_history_count(const og_history *history);

/* METHOD: og_history
 * Transaction `t`: its number (increasing, above 0) and its timestamp. */
og_status og_history_transaction_number(const og_history *history, size_t t, int64_t *out, og_error **error);
og_status og_history_transaction_timestamp(const og_history *history, size_t t, double *seconds_since_1970, og_error **error);

/* METHOD: og_history
 * One of transaction `t`'s strings, LENT until og_history_release; NULL with
 * OG_NULL when it has none. */
og_status og_history_transaction_string(const og_history *history, size_t t, og_history_field field, const char **out,
                                        og_error **error);

/* METHOD: og_history
 * A NEW token of the history up to transaction `t` (og_history_token_release):
 * read after it next time. */
og_history_token *og_history_transaction_token(const og_history *history, size_t t, og_error **error);

/* METHOD: og_history
 * objectIDNotification: a NEW og_changes (og_changes_release) of transaction
 * `t`'s object IDs, to merge with og_context_merge_remote_changes. */
og_changes *og_history_transaction_changes(const og_history *history, size_t t, og_error **error);

/* METHOD: og_history
 * The number of changes of transaction `t` (0 for an invalid handle or index). */
size_t og_history_change_count(const og_history *history, size_t t);

/* METHOD: og_history
 * Change `c` of transaction `t`: what it did, its number, and the object's ID
 * as a URI, an owned string (og_free). */
og_status og_history_change_type(const og_history *history, size_t t, size_t c, og_history_change_kind *out, og_error **error);
og_status og_history_change_id(const og_history *history, size_t t, size_t c, int64_t *out, og_error **error);
char *og_history_change_object_uri(const og_history *history, size_t t, size_t c, og_error **error);

/* METHOD: og_history
 * Changes `first` to `first + count - 1` of transaction `t` at once (the bulk
 * form of the calls below), each into an array of `count` that may be NULL:
 * what each did, its change ID, the changed object's primary key, and the index
 * of its entity's name for og_history_entity_name. OG_ERROR_INVALID_ARGUMENT
 * when the range passes the transaction's changes. */
og_status og_history_changes(const og_history *history, size_t t, size_t first, size_t count, og_history_change_kind *kinds,
                             int64_t *change_ids, int64_t *primary_keys, size_t *entities, og_error **error);

/* METHOD: og_history
 * The name of the entity at `index` of og_history_changes' `entities`, LENT
 * until og_history_release; NULL for an index out of range. */
const char *og_history_entity_name(const og_history *history, size_t index);

/* METHOD: og_history
 * The changed object without a URI: its entity's name, LENT until
 * og_history_release, and its primary key in the store the transaction is in. */
og_status og_history_change_object(const og_history *history, size_t t, size_t c, const char **entity, int64_t *primary_key,
                                   og_error **error);

/* METHOD: og_history
 * An update's changed property names, in name order: how many (0 for another
 * kind of change), and name `i`, LENT until og_history_release. */
size_t og_history_change_updated_count(const og_history *history, size_t t, size_t c);
const char *og_history_change_updated_at(const og_history *history, size_t t, size_t c, size_t i, og_error **error);

/* METHOD: og_history
 * A delete's tombstone: *out receives a NEW OG_VALUE_DICTIONARY
 * (og_value_release) of the attributes kept in history after deletion, or NULL
 * with OG_NULL for an insert or update. */
og_status og_history_change_tombstone(const og_history *history, size_t t, size_t c, og_value **out, og_error **error);

/* METHOD: og_history
 * Releases the history. NULL is ignored. */
void og_history_release(og_history *history);

/* METHOD: og_history_token
 * The token as bytes to keep (a binary property list): *bytes receives an
 * owned buffer (og_free) of *length bytes. og_history_token_from_archive reads
 * such bytes back into a NEW token; OG_ERROR_INVALID_ARGUMENT for anything
 * else (truncated, forged). */
og_status og_history_token_archive(const og_history_token *token, void **bytes, size_t *length, og_error **error);
og_history_token *og_history_token_from_archive(const void *bytes, size_t length, og_error **error);

/* METHOD: og_history_token
 * Whether two tokens name the same transactions of the same stores (false
 * when either handle is invalid). */
bool og_history_token_equal(const og_history_token *a, const og_history_token *b);

/* METHOD: og_history_token
 * Releases a token. NULL is ignored. */
void og_history_token_release(og_history_token *token);

/* ------------------------------------------------------------------------ */
/* Undo managers                                                            */
/* ------------------------------------------------------------------------ */
/* NSUndoManager with Core Data's semantics: a stack of undo groups and one of
 * redo groups. With groups-by-event (the default) the first change of an event
 * opens a group and the end of the event closes it; otherwise changes go into
 * the group og_undo_manager_begin_grouping opened (and are not recorded when
 * none is open). A manager may be used from any thread; undoing a group whose
 * context belongs to another thread fails with OG_ERROR_WRONG_THREAD and
 * changes nothing. */

/* METHOD: og_undo_manager
 * A NEW undo manager (og_undo_manager_release). */
og_undo_manager *og_undo_manager_new(og_error **error);

/* METHOD: og_undo_manager
 * Releases a manager; contexts using it keep it alive. NULL is ignored. */
void og_undo_manager_release(og_undo_manager *manager);

/* METHOD: og_undo_manager
 * Undoes the newest group (with groups-by-event an open event group is closed
 * first) / redoes the newest undone group. Nothing to undo or redo: OG_OK and
 * nothing happens. OG_ERROR_INVALID_ARGUMENT while a group other than the
 * event's is open or an undo is already running; OG_ERROR_WRONG_THREAD when a
 * context of the group belongs to another thread. */
og_status og_undo_manager_undo(og_undo_manager *manager, og_error **error);
og_status og_undo_manager_redo(og_undo_manager *manager, og_error **error);

/* METHOD: og_undo_manager
 * canUndo / canRedo (false for an invalid handle). */
bool og_undo_manager_can_undo(const og_undo_manager *manager);
bool og_undo_manager_can_redo(const og_undo_manager *manager);

/* METHOD: og_undo_manager
 * Empties both stacks (removeAllActions). */
og_status og_undo_manager_remove_all_actions(og_undo_manager *manager, og_error **error);

/* METHOD: og_undo_manager
 * beginUndoGrouping / endUndoGrouping: groups nest, an inner group folding
 * into its outer one. Ending with none open is OG_ERROR_INVALID_ARGUMENT. */
og_status og_undo_manager_begin_grouping(og_undo_manager *manager, og_error **error);
og_status og_undo_manager_end_grouping(og_undo_manager *manager, og_error **error);

/* METHOD: og_undo_manager
 * How many groups are open (0 for an invalid handle). */
size_t og_undo_manager_grouping_level(const og_undo_manager *manager);

/* METHOD: og_undo_manager
 * levelsOfUndo (default 0: unlimited): older groups beyond it are dropped. */
size_t og_undo_manager_levels_of_undo(const og_undo_manager *manager);
og_status og_undo_manager_set_levels_of_undo(og_undo_manager *manager, size_t levels, og_error **error);

/* METHOD: og_undo_manager
 * groupsByEvent (default true). */
bool og_undo_manager_groups_by_event(const og_undo_manager *manager);
og_status og_undo_manager_set_groups_by_event(og_undo_manager *manager, bool on, og_error **error);

/* METHOD: og_undo_manager
 * The action name of the group undo (or redo) would act on, an owned string
 * (og_free; "" when unnamed); setting names the open group, or else the
 * newest one. */
char *og_undo_manager_undo_action_name(const og_undo_manager *manager, og_error **error);
char *og_undo_manager_redo_action_name(const og_undo_manager *manager, og_error **error);
og_status og_undo_manager_set_action_name(og_undo_manager *manager, const char *name, og_error **error);

/* METHOD: og_undo_manager
 * disableUndoRegistration / enableUndoRegistration: they nest, each disable
 * needing its enable; enabling what is not disabled is
 * OG_ERROR_INVALID_ARGUMENT. */
og_status og_undo_manager_disable_registration(og_undo_manager *manager, og_error **error);
og_status og_undo_manager_enable_registration(og_undo_manager *manager, og_error **error);
bool og_undo_manager_is_registration_enabled(const og_undo_manager *manager);

/* ------------------------------------------------------------------------ */
/* Managed objects                                                          */
/* ------------------------------------------------------------------------ */
/* Every call below must come from the thread of the object's context. Once
 * that context is released the object's handle is invalid (OG_ERROR_INVALID_HANDLE);
 * an object deleted and saved, or an unsaved insert that was deleted, gives
 * OG_ERROR_OBJECT_INACCESSIBLE.
 * Unknown keys give OG_ERROR_UNKNOWN_KEY; a value of the wrong type for the
 * attribute OG_ERROR_TYPE_MISMATCH; an integer outside an Integer16/32
 * attribute's range OG_ERROR_VALIDATION_NUMBER_TOO_LARGE or _TOO_SMALL, and so
 * is a double no decimal can hold (infinity, NaN) written to a Decimal
 * attribute (minus infinity: _TOO_SMALL). Typed getters return OG_NULL for a
 * nil value. */

/* METHOD: og_object
 * The object's entity, LENT by the object's context (valid until it is released). */
og_entity *og_object_entity(const og_object *object);

/* METHOD: og_object
 * The object ID as a URI: x-coredata://<store UUID>/<Entity>/p<key> once
 * saved, x-coredata:///<Entity>/t<UUID> while temporary. Owned: og_free. On
 * the context's thread, as every read of an object (OG_ERROR_WRONG_THREAD
 * elsewhere): pass the URI, not the object, to another thread. */
char *og_object_id_uri(const og_object *object, og_error **error);

/* METHOD: og_object */
og_status og_object_has_temporary_id(const og_object *object, bool *out, og_error **error);
og_status og_object_is_inserted(const og_object *object, bool *out, og_error **error);
og_status og_object_is_updated(const og_object *object, bool *out, og_error **error);
og_status og_object_is_deleted(const og_object *object, bool *out, og_error **error);
/* hasChanges: inserted, updated (a transient's change counts) or deleted. */
og_status og_object_has_changes(const og_object *object, bool *out, og_error **error);

/* METHOD: og_object
 * validateForInsert: / validateForUpdate: / validateForDelete:: the checks a
 * save runs for this object (OG_VALIDATE_FOR_INSERT, _UPDATE or _DELETE; not
 * OG_VALIDATE_WILL_SAVE), without saving. Insert and update: every property's
 * rules, relationship counts, validation predicates and the entity's value and
 * object validators; delete: deny rules and the delete validator. Fails with
 * the validation error (several: 1560 with details); a validator's own error
 * keeps its domain and code. */
og_status og_object_validate(og_object *object, og_validation_kind kind, og_error **error);

/* METHOD: og_object
 * Typed access by key. Integers read from any integer or boolean attribute;
 * doubles from double, float and integer attributes. */
og_status og_object_get_int64(og_object *object, const char *key, int64_t *out, og_error **error);
og_status og_object_set_int64(og_object *object, const char *key, int64_t value, og_error **error);
og_status og_object_get_double(og_object *object, const char *key, double *out, og_error **error);
og_status og_object_set_double(og_object *object, const char *key, double value, og_error **error);
og_status og_object_get_bool(og_object *object, const char *key, bool *out, og_error **error);
og_status og_object_set_bool(og_object *object, const char *key, bool value, og_error **error);
og_status og_object_get_date(og_object *object, const char *key, double *out, og_error **error);
og_status og_object_set_date(og_object *object, const char *key, double seconds_since_1970, og_error **error);
/* *out is owned: free with og_free. */
og_status og_object_get_string(og_object *object, const char *key, char **out, og_error **error);
og_status og_object_set_string(og_object *object, const char *key, const char *utf8, og_error **error);
/* The same with lengths: the string's bytes, embedded NULs included. The getter's
 * *out is owned (og_free) and followed by a NUL; *length excludes it. The setter
 * takes `length` bytes of UTF-8 at `utf8` (NULL with length 0 is ""). */
og_status og_object_get_string_n(og_object *object, const char *key, char **out, size_t *length, og_error **error);
og_status og_object_set_string_n(og_object *object, const char *key, const char *utf8, size_t length, og_error **error);
/* *bytes is owned: free with og_free (NULL for empty data). */
og_status og_object_get_data(og_object *object, const char *key, void **bytes, size_t *length, og_error **error);
og_status og_object_set_data(og_object *object, const char *key, const void *bytes, size_t length, og_error **error);
og_status og_object_set_null(og_object *object, const char *key, og_error **error);

/* METHOD: og_object
 * Any attribute as a boxed value: *out is a NEW value (og_value_release). */
og_status og_object_get_value(og_object *object, const char *key, og_value **out, og_error **error);
og_status og_object_set_value(og_object *object, const char *key, const og_value *value, og_error **error);

/* METHOD: og_object
 * The same by slot index (og_entity_slot), for loops that read many objects:
 * no name lookup per call. OG_ERROR_INVALID_ARGUMENT for a slot out of range. */
og_status og_object_get_int64_at(og_object *object, size_t slot, int64_t *out, og_error **error);
og_status og_object_set_int64_at(og_object *object, size_t slot, int64_t value, og_error **error);
/* Sets `count` integer attributes as one change: `values[i]` into slot
 * `slots[i]`, as og_object_set_int64_at would. Every slot and value is checked
 * first: on an error nothing is set, and the error names the slot refused. */
og_status og_object_set_int64s_at(og_object *object, const size_t *slots, const int64_t *values, size_t count,
                                  og_error **error);
og_status og_object_get_double_at(og_object *object, size_t slot, double *out, og_error **error);
og_status og_object_set_double_at(og_object *object, size_t slot, double value, og_error **error);
/* A string attribute (or a URI, or a decimal's text) copied into the caller's
 * `buffer` of `capacity` bytes, with a NUL after it: no allocation and no
 * og_free. *length receives the text's byte count (embedded NULs included,
 * the NUL after it not). The text is copied only when it fits with its NUL
 * (*length < capacity); otherwise `buffer` is left alone and OG_OK still
 * returns, so the caller retries with *length + 1 bytes. OG_NULL for a nil
 * value; `buffer` may be NULL when `capacity` is 0. */
og_status og_object_copy_string_at(og_object *object, size_t slot, char *buffer, size_t capacity, size_t *length,
                                   og_error **error);
og_status og_object_get_value_at(og_object *object, size_t slot, og_value **out, og_error **error);
og_status og_object_set_value_at(og_object *object, size_t slot, const og_value *value, og_error **error);

/* METHOD: og_object
 * To-one relationships: *out is the destination LENT by the context, or NULL
 * with OG_NULL. Setting updates the inverse on the other side; NULL clears. */
og_status og_object_get_object(og_object *object, const char *key, og_object **out, og_error **error);
og_status og_object_set_object(og_object *object, const char *key, og_object *destination, og_error **error);

/* METHOD: og_object
 * To-many relationships: NEW results holding the destinations (in no
 * particular order), and adding or removing one destination; inverses follow. */
og_results *og_object_get_related(og_object *object, const char *key, og_error **error);
og_status og_object_add_related(og_object *object, const char *key, og_object *destination, og_error **error);
og_status og_object_remove_related(og_object *object, const char *key, og_object *destination, og_error **error);
/* Ordered to-many relationships (mutableOrderedSetValueForKey:): the results of
 * og_object_get_related are then in order. Insert puts `destination` at
 * `index` (0...count), moving it there when it is a member already; remove takes
 * out the member at `index`. On an unordered relationship insert adds and the
 * index is only checked. An index out of range: OG_ERROR_INVALID_ARGUMENT. */
og_status og_object_insert_related_at(og_object *object, const char *key, og_object *destination, size_t index,
                                      og_error **error);
og_status og_object_remove_related_at(og_object *object, const char *key, size_t index, og_error **error);
/* Makes `destinations` the whole contents of a to-many relationship, in this
 * order when it is ordered (assigning the same members in a new order reorders
 * them); members left out lose their inverse. */
og_status og_object_set_related(og_object *object, const char *key, og_object *const *destinations, size_t count,
                                og_error **error);

/* METHOD: og_object
 * isFault: whether the object's values are not loaded yet. */
og_status og_object_is_fault(const og_object *object, bool *out, og_error **error);

/* METHOD: og_object
 * faultingState: 0 (the object is not turning into or out of a fault). */
og_status og_object_faulting_state(const og_object *object, int64_t *out, og_error **error);

/* METHOD: og_object
 * hasFaultForRelationshipNamed: whether relationship `key`'s contents are not
 * loaded yet; never loads them. OG_ERROR_TYPE_MISMATCH for an attribute. */
og_status og_object_has_fault_for_relationship(og_object *object, const char *key, bool *out, og_error **error);

/* METHOD: og_object
 * valueForKeyPath: the value at a dotted key path through relationships
 * ("author.name", "books.@count", "books.title"): *out is a NEW value — a
 * scalar, an OG_VALUE_OBJECT for a to-one (og_value_get_object), or an
 * OG_VALUE_ARRAY for a to-many (og_value_count, og_value_item_at). */
og_status og_object_get_value_for_key_path(og_object *object, const char *key_path, og_value **out, og_error **error);

/* METHOD: og_object
 * Primitive accessors: read or write an attribute without change tracking,
 * inverse maintenance or validation (the object is not marked updated).
 * *out is a NEW value. OG_ERROR_TYPE_MISMATCH for a relationship. */
og_status og_object_get_primitive_value(og_object *object, const char *key, og_value **out, og_error **error);
og_status og_object_set_primitive_value(og_object *object, const char *key, const og_value *value, og_error **error);

/* METHOD: og_object
 * changedValues: a NEW OG_VALUE_DICTIONARY of the persistent properties
 * changed since the last fetch or save, with their new values (to-ones as
 * objects, to-manys as arrays of objects). */
og_status og_object_changed_values(og_object *object, og_value **out, og_error **error);

/* METHOD: og_object
 * committedValuesForKeys: a NEW OG_VALUE_DICTIONARY of the last fetched or
 * saved values of the `count` keys (keys NULL: every persistent attribute and
 * to-one). New objects give an empty dictionary. OG_ERROR_UNKNOWN_KEY names
 * an unknown key. */
og_status og_object_committed_values(og_object *object, const char *const *keys, size_t count, og_value **out,
                                     og_error **error);

/* METHOD: og_object
 * validateValue:forKey:error:: checks `value` against the model's rules for
 * `key` and the entity's value validator, without changing the object.
 * Fails with the validation error (code 1570-1680 or 1550, with
 * NSValidationErrorKey). */
og_status og_object_validate_value(og_object *object, const char *key, const og_value *value, og_error **error);

/* ------------------------------------------------------------------------ */
/* Fetch requests                                                           */
/* ------------------------------------------------------------------------ */

/* METHOD: og_fetch_request
 * A NEW request for every object of `entity_name` (subentities included). The
 * entity is checked when the request is executed. */
og_fetch_request *og_fetch_request_new(const char *entity_name, og_error **error);

/* METHOD: og_fetch_request
 * What a request holds, read back (an incremental store's execute_fetch reads
 * the request it is given): the entity name, LENT by the request; its predicate
 * as a NEW predicate, released with og_predicate_release, NULL without an error
 * when it has none; its sort keys, each LENT by the request, with *ascending
 * set. */
const char *og_fetch_request_entity_name(const og_fetch_request *request);
og_predicate *og_fetch_request_predicate(const og_fetch_request *request, og_error **error);
size_t og_fetch_request_sort_count(const og_fetch_request *request);
const char *og_fetch_request_sort_key_at(const og_fetch_request *request, size_t index, bool *ascending, og_error **error);

/* METHOD: og_fetch_request
 * Appends a sort key: the attribute `key`, ascending or descending. Earlier
 * keys take precedence. Nil sorts before every value ascending. */
og_status og_fetch_request_add_sort(og_fetch_request *request, const char *key, bool ascending, og_error **error);

/* METHOD: og_fetch_request
 * Appends a sort key with a string comparison (og_sort_comparison). The key
 * may be a key path through to-one relationships ("author.name"). The SQLite
 * store sorts with collations that run the same comparison as memory. */
og_status og_fetch_request_add_sort_comparison(og_fetch_request *request, const char *key, bool ascending,
                                               og_sort_comparison comparison, og_error **error);

/* METHOD: og_fetch_request
 * Sets the request's predicate (NULL removes it). The request keeps its own
 * reference: the caller may release `predicate` afterwards. Key paths are
 * checked against the entity when the request is executed (error 140005). */
og_status og_fetch_request_set_predicate(og_fetch_request *request, const og_predicate *predicate, og_error **error);

/* METHOD: og_fetch_request
 * fetchLimit (default 0: no limit) and fetchOffset (default 0): the window of
 * the sorted, merged result. The SQLite store applies them in SQL when nothing
 * is pending and one store answers. */
og_status og_fetch_request_set_limit(og_fetch_request *request, size_t limit, og_error **error);
og_status og_fetch_request_limit(const og_fetch_request *request, size_t *out, og_error **error);
og_status og_fetch_request_set_offset(og_fetch_request *request, size_t offset, og_error **error);
og_status og_fetch_request_offset(const og_fetch_request *request, size_t *out, og_error **error);

/* METHOD: og_fetch_request
 * fetchBatchSize (default 0: load every result at once). With N > 0 every match
 * is identified up front, and the objects come back as faults whose values load
 * N at a time: the first object of a batch to fire loads its whole batch in one
 * store read. */
og_status og_fetch_request_set_batch_size(og_fetch_request *request, size_t batch_size, og_error **error);
og_status og_fetch_request_batch_size(const og_fetch_request *request, size_t *out, og_error **error);

/* METHOD: og_fetch_request
 * includesSubentities (default true): false fetches instances of exactly the
 * request's entity. */
og_status og_fetch_request_set_includes_subentities(og_fetch_request *request, bool on, og_error **error);
og_status og_fetch_request_includes_subentities(const og_fetch_request *request, bool *out, og_error **error);

/* METHOD: og_fetch_request
 * includesPendingChanges (default true): false ignores the context's unsaved
 * inserts, updates and deletes and returns what the store holds (an object
 * deleted but not saved may then appear). */
og_status og_fetch_request_set_includes_pending_changes(og_fetch_request *request, bool on, og_error **error);
og_status og_fetch_request_includes_pending_changes(const og_fetch_request *request, bool *out, og_error **error);

/* METHOD: og_fetch_request
 * includesPropertyValues (default true): false reads only the rows' identities;
 * objects not yet in memory come back as faults that read their row when they
 * fire. */
og_status og_fetch_request_set_includes_property_values(og_fetch_request *request, bool on, og_error **error);
og_status og_fetch_request_includes_property_values(const og_fetch_request *request, bool *out, og_error **error);

/* METHOD: og_fetch_request
 * returnsObjectsAsFaults (default true): new objects come back as faults with
 * their row already read (firing reads nothing; awakeFromFetch runs then). False
 * returns them loaded (og_object_is_fault false, awakeFromFetch already run). */
og_status og_fetch_request_set_returns_objects_as_faults(og_fetch_request *request, bool on, og_error **error);
og_status og_fetch_request_returns_objects_as_faults(const og_fetch_request *request, bool *out, og_error **error);

/* METHOD: og_fetch_request
 * relationshipKeyPathsForPrefetching: appends a key path of relationships
 * ("author", "author.publisher", "books"). The destinations are read with the
 * fetch, one store read per relationship of the path, not one per object, and
 * following the relationship later reads nothing. Every step must name a
 * relationship: 140005 for an unknown one, 140006 for an attribute (checked when
 * the request runs). */
og_status og_fetch_request_add_prefetch_key_path(og_fetch_request *request, const char *key_path, og_error **error);
/* The number of prefetching key paths added. 0 for an invalid handle. */
size_t og_fetch_request_prefetch_key_path_count(const og_fetch_request *request);

/* METHOD: og_fetch_request
 * affectedStores: the fetch reads only these `count` stores (count 0: every
 * store whose configuration holds the entity). A store not attached to the
 * coordinator of the context that runs the request is OG_ERROR_INVALID_ARGUMENT
 * then. The stores are borrowed: keep their coordinator alive. */
og_status og_fetch_request_set_affected_stores(og_fetch_request *request, og_store *const *stores, size_t count,
                                               og_error **error);

/* METHOD: og_fetch_request
 * Sets the og_result_type (default OG_RESULT_OBJECTS). og_context_fetch runs
 * only OG_RESULT_OBJECTS requests (OG_ERROR_INVALID_ARGUMENT otherwise);
 * og_context_count counts what the request's result type returns (rows for
 * dictionaries, objects otherwise). */
og_status og_fetch_request_set_result_type(og_fetch_request *request, og_result_type type, og_error **error);

/* METHOD: og_fetch_request
 * The request's og_result_type; -1 for an invalid handle. */
int og_fetch_request_result_type(const og_fetch_request *request);

/* METHOD: og_fetch_request
 * Appends a column of dictionary results: an attribute or to-one relationship
 * of the entity, or a key path through to-ones ("department.name"). Its key is
 * the key path; a to-one's value is the destination's object ID
 * (OG_VALUE_OBJECT_ID). Without any, dictionaries hold every attribute.
 * Checked when the request runs: 140005 for an unknown key, 140002 for a
 * to-many or transient property. */
og_status og_fetch_request_add_property_to_fetch(og_fetch_request *request, const char *key_path, og_error **error);

/* METHOD: og_fetch_request
 * Appends a computed column (NSExpressionDescription) named `name`:
 * `expression_format` in the predicate language's expression syntax (key
 * paths, constants, + - * /, functions; the aggregates "sum:(salary)",
 * "count:(name)", "average:(x)", "min:(x)", "max:(x)" over a group or the whole
 * result). `result_type` (og_attribute_type) types the value; 0 (UNDEFINED)
 * keeps the type the expression yields. A syntax error fails now (140020). */
og_status og_fetch_request_add_expression_to_fetch(og_fetch_request *request, const char *name, const char *expression_format,
                                                   og_attribute_type result_type, og_error **error);

/* METHOD: og_fetch_request
 * The number of columns added with the two calls above. 0 for an invalid handle. */
size_t og_fetch_request_properties_to_fetch_count(const og_fetch_request *request);

/* METHOD: og_fetch_request
 * returnsDistinctResults (default false): repeated dictionaries are dropped.
 * Only used when properties to fetch were added. */
og_status og_fetch_request_set_distinct(og_fetch_request *request, bool distinct, og_error **error);
og_status og_fetch_request_distinct(const og_fetch_request *request, bool *out, og_error **error);

/* METHOD: og_fetch_request
 * Groups dictionary results by `name`: a property key path, or the name of an
 * expression added with og_fetch_request_add_expression_to_fetch. Every other
 * column must then be an aggregate (or grouped), else the fetch fails with
 * OG_ERROR_INVALID_ARGUMENT; so does a group-by on another result type. */
og_status og_fetch_request_add_group_by(og_fetch_request *request, const char *name, og_error **error);

/* METHOD: og_fetch_request
 * Filters groups (havingPredicate): its key paths are column names, e.g.
 * "total > 100" for an expression named total. NULL removes it. The request
 * keeps its own reference. */
og_status og_fetch_request_set_having(og_fetch_request *request, const og_predicate *predicate, og_error **error);

/* METHOD: og_fetch_request
 * A NEW request with every setting of `request` (NSFetchRequest copy). The copy
 * is independent: changing or releasing either leaves the other alone. It
 * shares the (immutable) predicates. */
og_fetch_request *og_fetch_request_copy(const og_fetch_request *request, og_error **error);

/* METHOD: og_fetch_request
 * shouldRefreshRefetchedObjects (default false): true makes objects already
 * registered take the fetched values, as og_context_refresh_object with merging
 * would give them; their own unsaved changes stay. */
og_status og_fetch_request_set_refreshes_refetched_objects(og_fetch_request *request, bool on, og_error **error);
og_status og_fetch_request_refreshes_refetched_objects(const og_fetch_request *request, bool *out, og_error **error);

/* METHOD: og_fetch_request
 * Releases a request. NULL is ignored. */
void og_fetch_request_release(og_fetch_request *request);

/* ------------------------------------------------------------------------ */
/* Predicates (docs/predicates.md)                                          */
/* ------------------------------------------------------------------------ */

/* METHOD: og_predicate
 * Parses a predicate format string ("age > %@ AND name BEGINSWITH[c] %@").
 * `%@`, `%K` and the printf-style specifiers (%d %i %ld %lld %u %f %g %s)
 * take their values from `args` in order; %K takes an OG_VALUE_STRING key
 * path. The arguments are copied: release them whenever you like. Returns a
 * NEW predicate (og_predicate_release), or NULL with error 140020 (syntax:
 * the message names the position and the token) or 140021 (a missing or
 * mistyped argument). Any thread. */
og_predicate *og_predicate_parse(const char *format, og_value *const *args, size_t count, og_error **error);

/* METHOD: og_predicate
 * A NEW comparison `key_path op value`: `options` is a mask of
 * og_comparison_options, `quantifier` an og_quantifier for to-many key paths.
 * The value is copied. */
og_predicate *og_predicate_new_comparison(const char *key_path, og_comparison_operator op, const og_value *value,
                                          int options, og_quantifier quantifier, og_error **error);

/* METHOD: og_predicate
 * A NEW compound of `count` predicates (og_compound_type; NOT takes exactly
 * one). AND of none is TRUEPREDICATE, OR of none FALSEPREDICATE. */
og_predicate *og_predicate_new_compound(og_compound_type type, og_predicate *const *predicates, size_t count,
                                        og_error **error);

/* METHOD: og_predicate
 * The canonical text (NSPredicate's predicateFormat), which parses back to an
 * equal predicate. BORROWED: valid until the predicate is released. */
const char *og_predicate_format(const og_predicate *predicate, og_error **error);

/* METHOD: og_predicate
 * Whether two predicates are structurally equal (false for invalid handles). */
bool og_predicate_equal(const og_predicate *a, const og_predicate *b);

/* METHOD: og_predicate
 * Evaluates the predicate against `object`: a dictionary, an array, a scalar,
 * or a managed object (og_value_new_object; evaluate it on its context's
 * thread, faults fire as needed). `$variables` take their values from the
 * `count` pairs of `names` and `values`. *out receives the result. Errors:
 * 140022 for a variable without a value, 140023 for operands of incompatible
 * types (the message names the key path and the types). */
og_status og_predicate_evaluate(const og_predicate *predicate, const og_value *object, const char *const *names,
                                og_value *const *values, size_t count, bool *out, og_error **error);

/* METHOD: og_predicate
 * A NEW predicate with every free `$variable` replaced by its value; error
 * 140022 names a variable missing from `names`. */
og_predicate *og_predicate_substitute(const og_predicate *predicate, const char *const *names,
                                      og_value *const *values, size_t count, og_error **error);

/* METHOD: og_predicate
 * Releases a predicate. NULL is ignored. */
void og_predicate_release(og_predicate *predicate);

/* ------------------------------------------------------------------------ */
/* Results: the objects a fetch or a to-many returned                       */
/* ------------------------------------------------------------------------ */

/* METHOD: og_results
 * Number of objects in the results. */
size_t og_results_count(const og_results *results);

/* METHOD: og_results
 * Object `index`, LENT by its context (valid until the context is released). */
og_object *og_results_object_at(const og_results *results, size_t index, og_error **error);

/* METHOD: og_results
 * Every object of the results at once: `objects[i]` gets what
 * og_results_object_at(results, i) gives, and `entities[i]` (unless `entities`
 * is NULL) what og_object_entity gives for it. `count` must equal
 * og_results_count(results). */
og_status og_results_objects(const og_results *results, og_object **objects, og_entity **entities, size_t count,
                             og_error **error);

/* METHOD: og_results
 * Bulk reading: attribute `slot` of every object of the results in one call.
 * `states[i]` is 1 when `values[i]` holds the value, 0 for nil, and 2 when the
 * object was not read: it is not loaded (a fault without its row), its class or
 * hooks run code when it fires, it was deleted and saved, or the slot is not
 * such an attribute of its entity (an int64 read takes integer attributes, a
 * double read double and float ones; booleans are not read). Read those one by one with
 * og_object_get_*_at. Objects read are fired as a property read fires them.
 * `count` must equal og_results_count(results). Runs on the context's thread. */
og_status og_results_read_int64s(const og_results *results, size_t slot, int64_t *values, uint8_t *states, size_t count,
                                 og_error **error);
og_status og_results_read_doubles(const og_results *results, size_t slot, double *values, uint8_t *states, size_t count,
                                  og_error **error);

/* METHOD: og_results
 * Several attributes in one pass over the objects: the same reads for each of
 * `slots[0..slot_count)`, column after column. Slot `slots[k]` of object i lands
 * in `values[k * count + i]` and `states[k * count + i]`, so both arrays hold
 * `slot_count * count` elements. Reading slot by slot visits every object once
 * per slot; this visits each once. */
og_status og_results_read_int64_columns(const og_results *results, const size_t *slots, size_t slot_count, int64_t *values,
                                        uint8_t *states, size_t count, og_error **error);
og_status og_results_read_double_columns(const og_results *results, const size_t *slots, size_t slot_count, double *values,
                                         uint8_t *states, size_t count, og_error **error);

/* METHOD: og_results
 * Releases results (not the objects). NULL is ignored. */
void og_results_release(og_results *results);

/* ------------------------------------------------------------------------ */
/* Results controllers: a fetch's results kept up to date                   */
/* ------------------------------------------------------------------------ */

/* A results controller (NSFetchedResultsController, without a cache) holds the
 * objects a fetch request matches, in the request's order, grouped in sections
 * by a key path, and keeps them up to date as its context changes: whenever
 * the context processes its pending changes (og_context_process_pending_changes,
 * the end of a perform block, a save) and when it merges a save. An object that
 * comes to match is inserted, one that stops matching or is deleted is deleted,
 * one whose section or place among the others changes is moved, and any other
 * change to a tracked object is an update. Changes that touch no tracked object
 * call nothing.
 *
 * Index paths are (section, row). Callbacks get the old one for a delete, a
 * move and an update, the new one for an insert and a move; an index path a
 * change does not have is (-1, -1). For each batch: will_change, the section
 * deletes and inserts, the object deletes, inserts, moves and updates, then
 * did_change. When the callbacks run, the controller's objects and sections are
 * already the new ones. The callbacks run on the context's thread; they may use
 * the controller and the context (a save they make is reported after the
 * current batch), and may release the controller: the release then happens
 * when the callback returns, and no further callback of the batch runs. Objects
 * and results passed in are LENT for the call (objects by the context handle,
 * as everywhere); `name` is borrowed for the call. */

#define OG_RESULTS_CONTROLLER_CALLBACKS_VERSION 1

typedef struct og_results_controller_callbacks {
    /* OG_RESULTS_CONTROLLER_CALLBACKS_VERSION: members are only ever added at
     * the end, and the library reads as many as the version has. */
    int version;
    /* Passed to every callback. */
    void *userdata;
    /* Each may be NULL. */
    void (*will_change)(og_results_controller *controller, void *userdata);
    /* A section came or went: `index` is its new index for an insert, its old
     * one for a delete; `objects` are its objects (the old ones for a delete). */
    void (*did_change_section)(og_results_controller *controller, og_results_change change, const char *name,
                               const og_results *objects, size_t index, void *userdata);
    void (*did_change_object)(og_results_controller *controller, og_results_change change, og_object *object,
                              int64_t old_section, int64_t old_row, int64_t new_section, int64_t new_row,
                              void *userdata);
    void (*did_change)(og_results_controller *controller, void *userdata);
    /* Called with `userdata` once the table is replaced or the controller is
     * released. */
    void (*release)(void *userdata);
} og_results_controller_callbacks;

/* METHOD: og_results_controller
 * A controller of `request`'s results in `context`: NEW, released with
 * og_results_controller_release. `section_key_path` (NULL: one section, named
 * "") names each object's section; a section's name is the value there as
 * text ("" for nil). The controller keeps `request`: change it only before
 * og_results_controller_perform_fetch. Errors: OG_ERROR_INVALID_ARGUMENT for a
 * request without sort keys (Core Data requires them) or for results other
 * than objects. The first sort key must group the sections together: see
 * og_results_controller_perform_fetch. */
og_results_controller *og_results_controller_new(og_context *context, og_fetch_request *request,
                                                 const char *section_key_path, og_error **error);

/* METHOD: og_results_controller
 * Sets the callbacks (the delegate); the table is copied, and replaces the
 * previous one. NULL clears them. OG_ERROR_INVALID_ARGUMENT for a table of an
 * unknown version. */
og_status og_results_controller_set_callbacks(og_results_controller *controller,
                                              const og_results_controller_callbacks *callbacks, og_error **error);

/* METHOD: og_results_controller
 * Fetches and starts tracking the context (performFetch:); again after the
 * request changed, it fetches again, calling nothing. Errors: the fetch's;
 * OG_ERROR_CORE_DATA when the fetched objects are not grouped by section (the
 * first sort key does not order as the section key path does), naming the
 * first object out of order. Context's thread. */
og_status og_results_controller_perform_fetch(og_results_controller *controller, og_error **error);

/* METHOD: og_results_controller
 * The fetched objects in order (fetchedObjects), as NEW og_results whose
 * objects the context lends; NULL without an error before
 * og_results_controller_perform_fetch. Context's thread. */
og_results *og_results_controller_fetched_objects(const og_results_controller *controller, og_error **error);

/* METHOD: og_results_controller
 * The number of sections; OG_NULL (and 0) before
 * og_results_controller_perform_fetch. Context's thread. */
og_status og_results_controller_section_count(const og_results_controller *controller, size_t *out, og_error **error);

/* METHOD: og_results_controller
 * Section `section`: its name, as an owned string (og_free); its index title
 * (by default the name's first letter, capitalised), owned, or NULL without an
 * error when it has none (an empty name); its objects, as NEW og_results.
 * OG_ERROR_INVALID_ARGUMENT for a section out of range. Context's thread. */
char *og_results_controller_section_name(const og_results_controller *controller, size_t section, og_error **error);
char *og_results_controller_section_index_title(const og_results_controller *controller, size_t section,
                                                og_error **error);
og_results *og_results_controller_section_objects(const og_results_controller *controller, size_t section,
                                                  og_error **error);

/* METHOD: og_results_controller
 * The object at (section, row) (objectAtIndexPath:), LENT by the context.
 * OG_ERROR_INVALID_ARGUMENT when there is none. Context's thread. */
og_object *og_results_controller_object_at(const og_results_controller *controller, size_t section, size_t row,
                                           og_error **error);

/* METHOD: og_results_controller
 * Where `object` is (indexPathForObject:): OG_OK with *section and *row, or
 * OG_NULL when it is not in the results. Context's thread. */
og_status og_results_controller_index_of(const og_results_controller *controller, const og_object *object,
                                         size_t *section, size_t *row, og_error **error);

/* METHOD: og_results_controller
 * The sections' index titles, each once, in section order
 * (sectionIndexTitles), as a NEW array value of strings; and the first section
 * with index title `title` (sectionForSectionIndexTitle:atIndex:, `index` being
 * the title's place in that array). OG_ERROR_INVALID_ARGUMENT when no section
 * has that title or `index` is out of range. Context's thread. */
og_value *og_results_controller_section_index_titles(const og_results_controller *controller, og_error **error);
og_status og_results_controller_section_for_index_title(const og_results_controller *controller, const char *title,
                                                        size_t index, size_t *out, og_error **error);

/* METHOD: og_results_controller
 * Releases the controller, which stops tracking; NULL does nothing. Called
 * from one of its own callbacks, it takes effect when that callback returns. */
void og_results_controller_release(og_results_controller *controller);

/* ------------------------------------------------------------------------ */
/* Rows: the dictionaries a dictionary fetch returned                       */
/* ------------------------------------------------------------------------ */

/* METHOD: og_rows
 * Number of dictionaries, and of columns (every row has every column; a nil
 * value is OG_VALUE_NULL). 0 for an invalid handle. */
size_t og_rows_count(const og_rows *rows);
size_t og_rows_column_count(const og_rows *rows);

/* METHOD: og_rows
 * Column `column`'s key: the property's key path or the expression's name.
 * BORROWED: valid until the rows are released. */
const char *og_rows_column_name(const og_rows *rows, size_t column, og_error **error);

/* METHOD: og_rows
 * The value of `column` in row `row`, as a NEW og_value (og_value_release):
 * a scalar, or OG_VALUE_OBJECT_ID for a to-one. OG_ERROR_INVALID_ARGUMENT when
 * out of range. */
og_value *og_rows_value(const og_rows *rows, size_t row, size_t column, og_error **error);

/* METHOD: og_rows
 * The same by key; OG_ERROR_UNKNOWN_KEY for a key that is not a column. */
og_value *og_rows_value_for_key(const og_rows *rows, size_t row, const char *key, og_error **error);

/* METHOD: og_rows
 * Releases rows. NULL is ignored. */
void og_rows_release(og_rows *rows);

/* ------------------------------------------------------------------------ */
/* Object IDs: the IDs an object-ID fetch returned                          */
/* ------------------------------------------------------------------------ */

/* METHOD: og_object_ids
 * Number of IDs (0 for an invalid handle). */
size_t og_object_ids_count(const og_object_ids *ids);

/* METHOD: og_object_ids
 * ID `index` as a URI (og_object_id_uri's form; og_context_object_with_uri
 * gives its object). BORROWED: valid until the IDs are released. */
const char *og_object_ids_uri_at(const og_object_ids *ids, size_t index, og_error **error);

/* METHOD: og_object_ids
 * Releases IDs. NULL is ignored. */
void og_object_ids_release(og_object_ids *ids);

/* ------------------------------------------------------------------------ */
/* Mapping models                                                           */
/* ------------------------------------------------------------------------ */
/* How the objects of one model version become objects of another
 * (NSMappingModel): an ordered list of entity mappings, each naming a source
 * and a destination entity (by name, and by version hash when one is set)
 * and holding two ordered lists of property mappings. Expressions are the
 * predicate language's expression text, kept as given and parsed when a
 * migration runs (docs/c-api.md, "Migration", lists the variables and the
 * FUNCTION selectors they may use).
 *
 * Mapping models, entity mappings and property mappings are shared, never
 * copied: a mapping appended to a list, or got back from one, is the same
 * mapping, and a change made through any handle shows through all of them.
 * Every handle these functions return is NEW: release it with the matching
 * _release (the mapping lives on in the lists that hold it). String getters
 * return OWNED strings (og_free), NULL WITHOUT an error for a field that is
 * not set. Any thread, but not from two threads at once. */

/* METHOD: og_mapping_model
 * A NEW, empty mapping model. */
og_mapping_model *og_mapping_model_new(void);

/* METHOD: og_mapping_model
 * The mapping Core Data infers between two versions of a model
 * (inferredMappingModelForSourceModel:destinationModel:error:), NEW.
 * Entities and properties match by name or renaming identifier. Each
 * destination entity gets a mapping named IEM_Copy_<source entity> (version
 * hash unchanged, OG_ENTITY_MAPPING_COPY), IEM_Transform_<source entity>
 * (changed, OG_ENTITY_MAPPING_TRANSFORM) or IEM_Add_<entity> (new,
 * OG_ENTITY_MAPPING_ADD, no source); each source entity left over gets
 * IEM_Remove_<entity> (OG_ENTITY_MAPPING_REMOVE, no destination). A mapping
 * has one attribute mapping per destination attribute, valued
 * FUNCTION($source, "valueForKey:", "<source attribute>") or NULL for a new
 * one, and one relationship mapping per destination relationship. Errors:
 * OG_ERROR_INFERRED_MAPPING_MODEL when a change cannot be inferred (a new
 * required attribute without a default, a type its values cannot become),
 * with user info "reason", "entity" and "property". */
og_mapping_model *og_mapping_model_infer(const og_model *source, const og_model *destination, og_error **error);

/* METHOD: og_mapping_model
 * A NEW deep copy: its entity and property mappings are new ones. */
og_mapping_model *og_mapping_model_copy(const og_mapping_model *mapping, og_error **error);

/* METHOD: og_mapping_model
 * NSMappingModel initWithContentsOfURL:: a NEW mapping model read from `path`:
 * a .json file (docs/mapping-format.md), an Xcode .xcmappingmodel folder or a
 * compiled .cdm. Errors: OG_ERROR_STORE_OPEN (134080) when the file cannot be
 * read, OG_ERROR_INVALID_ARGUMENT for another extension, OG_ERROR_INVALID_MODEL
 * for a malformed file (the message names the file and the entity mapping). */
og_mapping_model *og_mapping_model_load(const char *path, og_error **error);

/* METHOD: og_mapping_model
 * Writes `mapping` to `path`: JSON, or an .xcmappingmodel folder when the path
 * ends so; every field is kept. OG_ERROR_INVALID_ARGUMENT for another
 * extension (a .cdm is read, never written). */
og_status og_mapping_model_save(const og_mapping_model *mapping, const char *path, og_error **error);

/* METHOD: og_mapping_model
 * The entity mappings, in the order a migration processes them: their number
 * (0 for an invalid handle), mapping `index` (NEW handle), appending one,
 * inserting one before `index` (0 to the count), and removing mapping
 * `index`. OG_ERROR_INVALID_ARGUMENT for an index out of range. */
size_t og_mapping_model_entity_mapping_count(const og_mapping_model *mapping);
og_entity_mapping *og_mapping_model_entity_mapping_at(const og_mapping_model *mapping, size_t index, og_error **error);
og_status og_mapping_model_append_entity_mapping(og_mapping_model *mapping, og_entity_mapping *entity_mapping,
                                                 og_error **error);
og_status og_mapping_model_insert_entity_mapping(og_mapping_model *mapping, size_t index, og_entity_mapping *entity_mapping,
                                                 og_error **error);
og_status og_mapping_model_remove_entity_mapping_at(og_mapping_model *mapping, size_t index, og_error **error);

/* METHOD: og_mapping_model
 * Releases a mapping model handle. NULL is ignored. */
void og_mapping_model_release(og_mapping_model *mapping);

/* ------------------------------------------------------------------------ */
/* Entity mappings                                                          */
/* ------------------------------------------------------------------------ */

/* METHOD: og_entity_mapping
 * A NEW entity mapping named `name`, of kind OG_ENTITY_MAPPING_UNDEFINED,
 * with no entities, no expressions and no property mappings. */
og_entity_mapping *og_entity_mapping_new(const char *name, og_error **error);

/* METHOD: og_entity_mapping
 * Releases an entity mapping handle. NULL is ignored. */
void og_entity_mapping_release(og_entity_mapping *mapping);

/* METHOD: og_entity_mapping
 * The name (destinationInstancesForEntityMappingNamed: looks it up). */
char *og_entity_mapping_name(const og_entity_mapping *mapping, og_error **error);
og_status og_entity_mapping_set_name(og_entity_mapping *mapping, const char *name, og_error **error);

/* METHOD: og_entity_mapping
 * The kind. OG_ERROR_INVALID_ARGUMENT for a value that is not an
 * og_entity_mapping_kind. */
og_status og_entity_mapping_kind_of(const og_entity_mapping *mapping, og_entity_mapping_kind *out, og_error **error);
og_status og_entity_mapping_set_kind(og_entity_mapping *mapping, og_entity_mapping_kind kind, og_error **error);

/* METHOD: og_entity_mapping
 * The source and destination entity names; setting NULL clears them. */
char *og_entity_mapping_source_entity(const og_entity_mapping *mapping, og_error **error);
og_status og_entity_mapping_set_source_entity(og_entity_mapping *mapping, const char *name, og_error **error);
char *og_entity_mapping_destination_entity(const og_entity_mapping *mapping, og_error **error);
og_status og_entity_mapping_set_destination_entity(og_entity_mapping *mapping, const char *name, og_error **error);

/* METHOD: og_entity_mapping
 * The entities' version hashes the mapping was made for (32 bytes each; see
 * og_entity_version_hash). When one is set, a migration checks it and fails
 * with OG_ERROR_MIGRATION naming the entity when the model's differs. The
 * getters return OG_NULL (and 32 zero bytes) when none is set; setting NULL
 * clears it. */
og_status og_entity_mapping_source_version_hash(const og_entity_mapping *mapping, uint8_t out[32], og_error **error);
og_status og_entity_mapping_set_source_version_hash(og_entity_mapping *mapping, const uint8_t hash[32], og_error **error);
og_status og_entity_mapping_destination_version_hash(const og_entity_mapping *mapping, uint8_t out[32], og_error **error);
og_status og_entity_mapping_set_destination_version_hash(og_entity_mapping *mapping, const uint8_t hash[32],
                                                         og_error **error);

/* METHOD: og_entity_mapping
 * The expression that yields the source objects, usually
 *   FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:",
 *         "<entity>", "TRUEPREDICATE"), $manager.sourceContext, NO)
 * Without one the mapping migrates nothing, as in Core Data. NULL clears. */
char *og_entity_mapping_source_expression(const og_entity_mapping *mapping, og_error **error);
og_status og_entity_mapping_set_source_expression(og_entity_mapping *mapping, const char *expression, og_error **error);

/* METHOD: og_entity_mapping
 * The name of the registered migration policy (og_migration_policy_register)
 * that runs the mapping; NULL (or "NSEntityMigrationPolicy") for the default
 * policy. A mapping of kind OG_ENTITY_MAPPING_CUSTOM must name one. */
char *og_entity_mapping_policy(const og_entity_mapping *mapping, og_error **error);
og_status og_entity_mapping_set_policy(og_entity_mapping *mapping, const char *name, og_error **error);

/* METHOD: og_entity_mapping
 * User info: the number of entries, key `index` in key order, the value of
 * `key`, and replacing every entry with `count` pairs (copied). */
size_t og_entity_mapping_user_info_count(const og_entity_mapping *mapping);
char *og_entity_mapping_user_info_key_at(const og_entity_mapping *mapping, size_t index, og_error **error);
char *og_entity_mapping_user_info(const og_entity_mapping *mapping, const char *key, og_error **error);
og_status og_entity_mapping_set_user_info(og_entity_mapping *mapping, const char *const *keys, const char *const *values,
                                          size_t count, og_error **error);

/* METHOD: og_entity_mapping
 * The attribute mappings, processed in order when a destination object is
 * made, and the relationship mappings, processed once every object exists:
 * their number (0 for an invalid handle), mapping `index` (NEW handle),
 * appending, inserting before `index` (0 to the count) and removing.
 * OG_ERROR_INVALID_ARGUMENT for an index out of range. */
size_t og_entity_mapping_attribute_mapping_count(const og_entity_mapping *mapping);
og_property_mapping *og_entity_mapping_attribute_mapping_at(const og_entity_mapping *mapping, size_t index,
                                                            og_error **error);
og_status og_entity_mapping_append_attribute_mapping(og_entity_mapping *mapping, og_property_mapping *property_mapping,
                                                     og_error **error);
og_status og_entity_mapping_insert_attribute_mapping(og_entity_mapping *mapping, size_t index,
                                                     og_property_mapping *property_mapping, og_error **error);
og_status og_entity_mapping_remove_attribute_mapping_at(og_entity_mapping *mapping, size_t index, og_error **error);
size_t og_entity_mapping_relationship_mapping_count(const og_entity_mapping *mapping);
og_property_mapping *og_entity_mapping_relationship_mapping_at(const og_entity_mapping *mapping, size_t index,
                                                               og_error **error);
og_status og_entity_mapping_append_relationship_mapping(og_entity_mapping *mapping, og_property_mapping *property_mapping,
                                                        og_error **error);
og_status og_entity_mapping_insert_relationship_mapping(og_entity_mapping *mapping, size_t index,
                                                        og_property_mapping *property_mapping, og_error **error);
og_status og_entity_mapping_remove_relationship_mapping_at(og_entity_mapping *mapping, size_t index, og_error **error);

/* ------------------------------------------------------------------------ */
/* Property mappings                                                        */
/* ------------------------------------------------------------------------ */

/* METHOD: og_property_mapping
 * A NEW property mapping for the destination property `name`, computed by
 * `value_expression` (NULL: the property keeps its default value). */
og_property_mapping *og_property_mapping_new(const char *name, const char *value_expression, og_error **error);

/* METHOD: og_property_mapping
 * Releases a property mapping handle. NULL is ignored. */
void og_property_mapping_release(og_property_mapping *mapping);

/* METHOD: og_property_mapping
 * The destination property's name, and the value expression (NULL clears). */
char *og_property_mapping_name(const og_property_mapping *mapping, og_error **error);
og_status og_property_mapping_set_name(og_property_mapping *mapping, const char *name, og_error **error);
char *og_property_mapping_value_expression(const og_property_mapping *mapping, og_error **error);
og_status og_property_mapping_set_value_expression(og_property_mapping *mapping, const char *expression,
                                                   og_error **error);

/* METHOD: og_property_mapping
 * User info, as for entity mappings. */
size_t og_property_mapping_user_info_count(const og_property_mapping *mapping);
char *og_property_mapping_user_info_key_at(const og_property_mapping *mapping, size_t index, og_error **error);
char *og_property_mapping_user_info(const og_property_mapping *mapping, const char *key, og_error **error);
og_status og_property_mapping_set_user_info(og_property_mapping *mapping, const char *const *keys,
                                            const char *const *values, size_t count, og_error **error);

/* ------------------------------------------------------------------------ */
/* Migration managers                                                       */
/* ------------------------------------------------------------------------ */
/* A migration manager (NSMigrationManager) migrates a store written with its
 * source model into a store of its destination model, through a mapping
 * model: it opens the source read-only, runs each entity mapping's policy in
 * three stages (create the destination objects, then their relationships,
 * then custom validation), and saves the destination once. A failed or
 * cancelled migration leaves the source untouched and nothing at the
 * destination. Errors of a migration: OG_ERROR_MIGRATION (a mapping that
 * does not fit the models, naming the mapping and the entity; an expression
 * that fails; objects that fail validation), OG_ERROR_MIGRATION_CANCELLED,
 * OG_ERROR_MIGRATION_MANAGER_SOURCE_STORE, OG_ERROR_MIGRATION_MANAGER_
 * DESTINATION_STORE, OG_ERROR_ENTITY_MIGRATION_POLICY (a policy that is not
 * registered, or a hook that failed without an error),
 * OG_ERROR_INFERRED_MAPPING_MODEL; an error a policy hook reports comes
 * through unchanged. */

/* Progress of a migration, from 0 to 1: called on the migrating thread as the
 * fraction done rises (never with a lower value than before), last with 1 on
 * success. It may call og_migration_manager_cancel. */
typedef void (*og_migration_progress_fn)(double fraction, void *userdata);

/* METHOD: og_migration_manager
 * A NEW migration manager from `source` to `destination`. Both models are
 * validated (OG_ERROR_INVALID_MODEL) and become immutable. */
og_migration_manager *og_migration_manager_new(og_model *source, og_model *destination, og_error **error);

/* METHOD: og_migration_manager
 * Releases a manager. NULL is ignored. Releasing it from its own policy or
 * progress callback is safe: the running migration goes on, what the handle
 * lent becomes invalid, and a later hook of a policy written in C fails the
 * migration with OG_ERROR_INVALID_HANDLE. */
void og_migration_manager_release(og_migration_manager *manager);

/* METHOD: og_migration_manager
 * The manager's source and destination models, LENT by the manager (valid
 * until it is released); NULL for an invalid handle. */
og_model *og_migration_manager_source_model(const og_migration_manager *manager);
og_model *og_migration_manager_destination_model(const og_migration_manager *manager);

/* METHOD: og_migration_manager
 * Sets (NULL: removes) the progress callback of the manager's migrations. */
og_status og_migration_manager_set_progress_callback(og_migration_manager *manager, og_migration_progress_fn callback,
                                                     void *userdata, og_error **error);

/* METHOD: og_migration_manager
 * migrationProgress: from 0 to 1 while a migration runs, 0 when none does.
 * 0 for an invalid handle. Any thread. */
double og_migration_manager_progress(const og_migration_manager *manager);

/* METHOD: og_migration_manager
 * Migrates the store of `source_type` at `source_path` into a store of
 * `destination_type` at `destination_path`
 * (migrateStoreFromURL:type:options:withMappingModel:toDestinationURL:
 * destinationType:destinationOptions:error:). A type NULL is "SQLite"; the
 * options are NULL or OG_VALUE_DICTIONARY values with the keys of
 * og_coordinator_add_store_with_options. `mapping` NULL: the inferred one
 * (og_mapping_model_infer). A new destination keeps the source's metadata
 * (its NSStoreUUID and custom keys) with the destination model's version
 * hashes; it is built beside `destination_path` and moved there only when
 * complete. An existing destination receives the new objects in one save.
 * Runs on the calling thread, which policy hooks and the progress callback
 * run on too; one migration per manager at a time (OG_ERROR_INVALID_ARGUMENT
 * for a second). Errors: those listed above. */
og_status og_migration_manager_migrate(og_migration_manager *manager, const char *source_path, const char *source_type,
                                       const og_value *source_options, og_mapping_model *mapping,
                                       const char *destination_path, const char *destination_type,
                                       const og_value *destination_options, og_error **error);

/* METHOD: og_migration_manager
 * cancelMigrationWithError: makes the running migration stop at its next step
 * and fail with a copy of `reason`, or OG_ERROR_MIGRATION_CANCELLED when
 * `reason` is NULL; nothing is left at the destination. Any thread; without
 * a running migration it does nothing. */
og_status og_migration_manager_cancel(og_migration_manager *manager, const og_error *reason, og_error **error);

/* The calls below serve policy hooks: they work only while
 * og_migration_manager_migrate runs, from its thread (else
 * OG_ERROR_INVALID_ARGUMENT, or OG_ERROR_WRONG_THREAD from another thread).
 * Contexts, entity mappings and objects they lend, and those lent to hooks,
 * stay valid until og_migration_manager_migrate returns. */

/* METHOD: og_migration_manager
 * The contexts the migration reads the source from and writes the
 * destination into (sourceContext, destinationContext), LENT by the manager.
 * Their objects are lent by them as by any context. */
og_context *og_migration_manager_source_context(og_migration_manager *manager, og_error **error);
og_context *og_migration_manager_destination_context(og_migration_manager *manager, og_error **error);

/* METHOD: og_migration_manager
 * associateSourceInstance:withDestinationInstance:forEntityMapping: records
 * that `destination` was made from `source` by `mapping` (the relationship
 * stage and the lookups below read these records). A hook that makes
 * destination objects itself must associate them. */
og_status og_migration_manager_associate(og_migration_manager *manager, og_object *source, og_object *destination,
                                         const og_entity_mapping *mapping, og_error **error);

/* METHOD: og_migration_manager
 * destinationInstancesForEntityMappingNamed:sourceInstances: the destination
 * objects the mapping named `mapping_name` made from the `count` source
 * objects in `sources` (NULL with count 0: every one it made), as NEW
 * results whose objects the destination context lends; and
 * sourceInstancesForEntityMappingNamed:destinationInstances: the reverse,
 * objects of the source context. OG_ERROR_INVALID_ARGUMENT for a name the
 * mapping model lacks. */
og_results *og_migration_manager_destination_instances(og_migration_manager *manager, const char *mapping_name,
                                                       og_object *const *sources, size_t count, og_error **error);
og_results *og_migration_manager_source_instances(og_migration_manager *manager, const char *mapping_name,
                                                  og_object *const *destinations, size_t count, og_error **error);

/* METHOD: og_migration_manager
 * What the default policy does, for a hook that adds to it: one destination
 * object made from `source` through the attribute mappings and associated
 * with it; and the relationships of `destination` set from the relationship
 * mappings. */
og_status og_migration_manager_create_default_destination(og_migration_manager *manager, og_object *source,
                                                          const og_entity_mapping *mapping, og_error **error);
og_status og_migration_manager_create_default_relationships(og_migration_manager *manager, og_object *destination,
                                                            const og_entity_mapping *mapping, og_error **error);

/* ------------------------------------------------------------------------ */
/* Migration policies written in C                                          */
/* ------------------------------------------------------------------------ */

/* The hooks of an entity migration policy (NSEntityMigrationPolicy). Each gets
 * the manager and the entity mapping (LENT until the migration ends), and
 * create_destination_instances a source object, create_relationships a
 * destination object (each LENT by its context). Return OG_OK to go on. To
 * stop the migration, return OG_ERROR and optionally store an error made with
 * og_error_new in *error (the library takes it over): the migration fails
 * with that error unchanged, or with OG_ERROR_ENTITY_MIGRATION_POLICY
 * without one. Hooks run on the migrating thread and may call back into the
 * library (the og_migration_manager_ calls above, the contexts, objects). */
typedef og_status (*og_migration_stage_fn)(og_migration_manager *manager, og_entity_mapping *mapping, og_error **error,
                                           void *userdata);
typedef og_status (*og_migration_object_fn)(og_migration_manager *manager, og_object *object, og_entity_mapping *mapping,
                                            og_error **error, void *userdata);

/* A policy as a table of hooks; a NULL hook does what the default policy
 * does. In the order a migration calls them, per entity mapping: begin, then
 * create_destination_instances per source object (default: one object from
 * the attribute mappings, associated with its source), end_instance_creation;
 * once every mapping made its objects, create_relationships per destination
 * object (default: the relationship mappings), end_relationship_creation; last
 * perform_custom_validation and end_entity_mapping. `release` (may be NULL)
 * is called with `userdata` once the policy is unregistered or replaced and
 * no migration uses it. */
typedef struct og_migration_policy_callbacks {
    void *userdata;
    og_migration_stage_fn begin_entity_mapping;
    og_migration_object_fn create_destination_instances;
    og_migration_stage_fn end_instance_creation;
    og_migration_object_fn create_relationships;
    og_migration_stage_fn end_relationship_creation;
    og_migration_stage_fn perform_custom_validation;
    og_migration_stage_fn end_entity_mapping;
    void (*release)(void *userdata);
} og_migration_policy_callbacks;

/* METHOD: migration policy
 * Registers the policy that entity mappings name with
 * og_entity_mapping_set_policy; the table is copied. Registering a name again
 * replaces its table. Policies serve every migration of the process, the
 * automatic ones of og_coordinator_add_store_with_options included.
 * OG_ERROR_INVALID_ARGUMENT for an empty name, "NSEntityMigrationPolicy" or
 * a NULL table. Any thread. */
og_status og_migration_policy_register(const char *name, const og_migration_policy_callbacks *callbacks,
                                       og_error **error);
/* Deprecated: the former name of og_migration_policy_register, kept for one release. */
OG_DEPRECATED("use og_migration_policy_register")
og_status og_register_migration_policy(const char *name, const og_migration_policy_callbacks *callbacks,
                                       og_error **error);

/* METHOD: migration policy
 * Unregisters a policy; a mapping that names it then fails with
 * OG_ERROR_ENTITY_MIGRATION_POLICY. OG_ERROR_INVALID_ARGUMENT when no policy
 * of that name is registered. */
og_status og_migration_policy_unregister(const char *name, og_error **error);
/* Deprecated: the former name of og_migration_policy_unregister, kept for one release. */
OG_DEPRECATED("use og_migration_policy_unregister")
og_status og_unregister_migration_policy(const char *name, og_error **error);

/* ---- Persistent containers (NSPersistentContainer) -------------------- */

/* METHOD: og_store_description
 * A NEW description of a store to add (NSPersistentStoreDescription): `type`
 * (NULL: "SQLite") at `path` (may be NULL: set it before loading a file
 * store). It starts with OG_OPTION_MIGRATE_AUTOMATICALLY and
 * OG_OPTION_INFER_MAPPING_MODEL set to true, as Apple's does (an
 * og_coordinator_add_store_with_options without them does neither). Release
 * with og_store_description_release. Errors: OG_ERROR_INVALID_UTF8. */
og_store_description *og_store_description_new(const char *path, const char *type, og_error **error);
void og_store_description_release(og_store_description *description);

/* METHOD: og_store_description
 * The description's type, path and configuration (NULL when none), BORROWED:
 * valid while the description lives, also after a setter changed them. */
const char *og_store_description_type(const og_store_description *description);
const char *og_store_description_path(const og_store_description *description);
const char *og_store_description_configuration(const og_store_description *description);

/* METHOD: og_store_description
 * Sets the type (not empty), the path and the configuration (NULL: none).
 * Errors: OG_ERROR_INVALID_ARGUMENT (a NULL or empty type), OG_ERROR_INVALID_UTF8. */
og_status og_store_description_set_type(og_store_description *description, const char *type, og_error **error);
og_status og_store_description_set_path(og_store_description *description, const char *path, og_error **error);
og_status og_store_description_set_configuration(og_store_description *description, const char *configuration,
                                                 og_error **error);

/* METHOD: og_store_description
 * Whether og_container_load_stores adds this store on a library thread and
 * returns at once (shouldAddStoreAsynchronously; default false). */
og_status og_store_description_adds_asynchronously(const og_store_description *description, bool *out, og_error **error);
og_status og_store_description_set_adds_asynchronously(og_store_description *description, bool value, og_error **error);

/* METHOD: og_store_description
 * The options, by Core Data's keys ("NSReadOnlyPersistentStoreOption",
 * "NSPersistentStoreTimeoutOption", OG_OPTION_MIGRATE_AUTOMATICALLY,
 * OG_OPTION_INFER_MAPPING_MODEL, "NSPersistentHistoryTrackingKey", any other):
 * og_store_description_option returns a NEW value, or NULL without an error
 * when the key is not set; og_store_description_set_option sets it (a NULL
 * value removes it); og_store_description_options returns a NEW
 * OG_VALUE_DICTIONARY of them all. The store is added with these options.
 * Errors: OG_ERROR_INVALID_ARGUMENT (an empty key, a value that is no
 * property-list value). */
og_value *og_store_description_option(const og_store_description *description, const char *key, og_error **error);
og_status og_store_description_set_option(og_store_description *description, const char *key, const og_value *value,
                                          og_error **error);
og_value *og_store_description_options(const og_store_description *description, og_error **error);

/* The handler og_container_load_stores calls once per description: `error`
 * is NULL when its store was added, else the store's error, LENT for the call.
 * `description` is the handle og_container_description_at lends. Called on
 * the calling thread, or on a library thread for descriptions that add
 * asynchronously. */
typedef void (*og_container_load_fn)(og_store_description *description, const og_error *error, void *userdata);
/* A background task: `context` is a private-queue context, LENT for the call;
 * the function runs on that context's queue. */
typedef void (*og_context_task_fn)(og_context *context, void *userdata);

/* METHOD: og_container
 * A NEW container named `name` over `model` (NSPersistentContainer): a
 * coordinator made at once, a main-queue view context on it, and one SQLite
 * description at <og_container_default_directory()>/<name>.sqlite. Nothing is
 * added until og_container_load_stores. Release with og_container_release;
 * its coordinator, contexts and descriptions then go unless handles of their
 * own hold them. Errors: OG_ERROR_INVALID_ARGUMENT (a name that is empty or
 * holds '/'), the model's errors as og_coordinator_new gives them. */
og_container *og_container_new(const char *name, og_model *model, og_error **error);
void og_container_release(og_container *container);

/* METHOD: og_container
 * The container's name (BORROWED, valid while it lives), its coordinator,
 * and its view context: a main-queue context (OG_CONCURRENCY_MAIN_QUEUE) with
 * no parent. The handles are LENT by the container. (Its model is the one
 * og_container_new was given.) */
const char *og_container_name(const og_container *container);
og_coordinator *og_container_coordinator(og_container *container, og_error **error);
og_context *og_container_view_context(og_container *container, og_error **error);

/* METHOD: og_container
 * A NEW private-queue context on the container's coordinator
 * (newBackgroundContext); release with og_context_release. */
og_context *og_container_new_background_context(og_container *container, og_error **error);

/* METHOD: og_container
 * Runs `task` with a new private-queue context on that context's queue and
 * returns at once (performBackgroundTask:); the context is released after
 * the task. Errors: OG_ERROR_INVALID_ARGUMENT (a NULL task). */
og_status og_container_perform_background_task(og_container *container, og_context_task_fn task, void *userdata,
                                               og_error **error);

/* METHOD: og_container
 * The descriptions og_container_load_stores adds, in order: their count, one
 * LENT by the container, and a new list (the container keeps the
 * descriptions themselves: a change made through a handle after this call
 * is seen by the next load). Errors: OG_ERROR_INVALID_ARGUMENT (an index out
 * of range, a NULL list with a count). */
size_t og_container_description_count(const og_container *container);
og_store_description *og_container_description_at(og_container *container, size_t index, og_error **error);
og_status og_container_set_descriptions(og_container *container, og_store_description *const *descriptions, size_t count,
                                        og_error **error);

/* METHOD: og_container
 * Adds a store for each description, in order (loadPersistentStores:), and
 * calls `handler` once per description with NULL or the error its store
 * gave; a store's error goes only to the handler, and the call still
 * succeeds. Descriptions that add asynchronously are added after the others
 * on a library thread, their handler called there; the call does not wait
 * for them. Errors: OG_ERROR_INVALID_ARGUMENT (a NULL handler). */
og_status og_container_load_stores(og_container *container, og_container_load_fn handler, void *userdata, og_error **error);

/* METHOD: og_container
 * The folder new containers keep their stores in, NEW (free with og_free):
 * $XDG_DATA_HOME/objectgraph when XDG_DATA_HOME is an absolute path, else
 * ~/.local/share/objectgraph; created when missing (defaultDirectoryURL). */
char *og_container_default_directory(void);

#ifdef __cplusplus
}
#endif

#endif /* OBJECTGRAPH_H */
