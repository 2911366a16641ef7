/* Migration from C, one ctest per case: inferred mapping models, editing
 * mapping models, a manual migration through a policy written in C, progress
 * and cancellation, policy errors, mappings that do not fit, automatic
 * migration when a store is added, and misuse.
 *
 * Two versions of a small model, built in code:
 *   v1  Publisher: name; books (to-many Book)
 *       Book:      title, pages, isbn; publisher (to-one Publisher)
 *       Obsolete:  note
 *   v2  Publisher: unchanged
 *       Book:      title, pageCount (renamed from pages), year (new); isbn dropped
 *       Fresh:     label (new entity; Obsolete is gone)
 */
#include <ctype.h>
#include <pthread.h>
#include <sys/stat.h>

#include "og_test_cases.h"

static og_model *model_version(int version) {
    og_model *model = NN(og_model_new());
    og_entity *publisher = NN(og_model_add_entity(model, "Publisher", &err));
    og_entity *book = NN(og_model_add_entity(model, "Book", &err));
    NN(og_entity_add_attribute(publisher, "name", OG_ATTRIBUTE_STRING, &err));
    NN(og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &err));
    if (version == 1) {
        NN(og_entity_add_attribute(book, "pages", OG_ATTRIBUTE_INTEGER64, &err));
        NN(og_entity_add_attribute(book, "isbn", OG_ATTRIBUTE_STRING, &err));
        og_entity *obsolete = NN(og_model_add_entity(model, "Obsolete", &err));
        NN(og_entity_add_attribute(obsolete, "note", OG_ATTRIBUTE_STRING, &err));
    } else {
        og_property *count = NN(og_entity_add_attribute(book, "pageCount", OG_ATTRIBUTE_INTEGER64, &err));
        OK(og_property_set_renaming_identifier(count, "pages", &err));
        NN(og_entity_add_attribute(book, "year", OG_ATTRIBUTE_INTEGER64, &err));
        og_entity *fresh = NN(og_model_add_entity(model, "Fresh", &err));
        NN(og_entity_add_attribute(fresh, "label", OG_ATTRIBUTE_STRING, &err));
    }
    og_property *books = NN(og_entity_add_relationship(publisher, "books", book, &err));
    OK(og_relationship_set_to_many(books, true, &err));
    og_property *of = NN(og_entity_add_relationship(book, "publisher", publisher, &err));
    OK(og_relationship_set_inverse(books, of, &err));
    return model;
}

/* A v1 SQLite store at `path` with one publisher and three books; its UUID in `uuid`. */
static void write_v1_store(const char *path, char uuid[64]) {
    og_model *v1 = model_version(1);
    og_coordinator *coordinator = NN(og_coordinator_new(v1, &err));
    og_store *store = NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    snprintf(uuid, 64, "%s", og_store_uuid(store));
    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *tor = NN(og_context_insert(context, "Publisher", &err));
    OK(og_object_set_string(tor, "name", "Tor", &err));
    const char *titles[3] = {"Dune", "Hyperion", "Solaris"};
    for (int i = 0; i < 3; i++) {
        og_object *book = NN(og_context_insert(context, "Book", &err));
        OK(og_object_set_string(book, "title", titles[i], &err));
        OK(og_object_set_int64(book, "pages", 100 * (i + 1), &err));
        OK(og_object_set_string(book, "isbn", "isbn", &err));
        OK(og_object_set_object(book, "publisher", tor, &err));
    }
    og_object *old = NN(og_context_insert(context, "Obsolete", &err));
    OK(og_object_set_string(old, "note", "gone", &err));
    OK(og_context_save(context, &err));
    og_context_release(context);
    og_coordinator_release(coordinator);
    og_model_release(v1);
}

static size_t count_of(og_context *context, const char *entity) {
    og_fetch_request *request = NN(og_fetch_request_new(entity, &err));
    size_t n = 0;
    OK(og_context_count(context, request, &n, &err));
    og_fetch_request_release(request);
    return n;
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* The default source expression: every instance of exactly `entity`. */
static const char *fetch_all(const char *entity) {
    static char text[4][256];
    static int next = 0;
    char *out = text[next++ & 3];
    snprintf(out, 256,
             "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"%s\", \"TRUEPREDICATE\"), "
             "$manager.sourceContext, NO)",
             entity);
    return out;
}

/* The mapping named `name` in `mapping` (NEW handle), or NULL. */
static og_entity_mapping *mapping_named(og_mapping_model *mapping, const char *name) {
    for (size_t i = 0; i < og_mapping_model_entity_mapping_count(mapping); i++) {
        og_entity_mapping *m = NN(og_mapping_model_entity_mapping_at(mapping, i, &err));
        char *n = NN(og_entity_mapping_name(m, &err));
        int same = strcmp(n, name) == 0;
        og_free(n);
        if (same) return m;
        og_entity_mapping_release(m);
    }
    return NULL;
}

/* The value expression of attribute mapping `name` (owned), "" when it has none. */
static char *attribute_expression(og_entity_mapping *m, const char *name) {
    for (size_t i = 0; i < og_entity_mapping_attribute_mapping_count(m); i++) {
        og_property_mapping *p = NN(og_entity_mapping_attribute_mapping_at(m, i, &err));
        char *n = NN(og_property_mapping_name(p, &err));
        int same = strcmp(n, name) == 0;
        og_free(n);
        char *e = same ? og_property_mapping_value_expression(p, &err) : NULL;
        CHECK(err == NULL);
        og_property_mapping_release(p);
        if (same) {
            if (e) return e;
            char *empty = malloc(1);
            empty[0] = 0;
            return empty;
        }
    }
    return NULL;
}

static og_property_mapping *property_mapping(const char *name, const char *expression) {
    return NN(og_property_mapping_new(name, expression, &err));
}

static void add_attribute(og_entity_mapping *m, const char *name, const char *expression) {
    og_property_mapping *p = property_mapping(name, expression);
    OK(og_entity_mapping_append_attribute_mapping(m, p, &err));
    og_property_mapping_release(p);
}

static void add_relationship(og_entity_mapping *m, const char *name) {
    char text[256];
    snprintf(text, sizeof text,
             "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"%s\", $source.%s)", name,
             name);
    og_property_mapping *p = property_mapping(name, text);
    OK(og_entity_mapping_append_relationship_mapping(m, p, &err));
    og_property_mapping_release(p);
}

/* A hand-made mapping from v1 to v2: publishers copied, books through `policy`
 * (NULL: the default policy). */
static og_mapping_model *manual_mapping(const char *policy) {
    og_mapping_model *mapping = NN(og_mapping_model_new());
    og_entity_mapping *publishers = NN(og_entity_mapping_new("PublisherToPublisher", &err));
    OK(og_entity_mapping_set_kind(publishers, OG_ENTITY_MAPPING_COPY, &err));
    OK(og_entity_mapping_set_source_entity(publishers, "Publisher", &err));
    OK(og_entity_mapping_set_destination_entity(publishers, "Publisher", &err));
    OK(og_entity_mapping_set_source_expression(publishers, fetch_all("Publisher"), &err));
    add_attribute(publishers, "name", "$source.name");
    add_relationship(publishers, "books");
    OK(og_mapping_model_append_entity_mapping(mapping, publishers, &err));
    og_entity_mapping_release(publishers);

    og_entity_mapping *books = NN(og_entity_mapping_new("BookToBook", &err));
    OK(og_entity_mapping_set_kind(books, policy ? OG_ENTITY_MAPPING_CUSTOM : OG_ENTITY_MAPPING_TRANSFORM, &err));
    OK(og_entity_mapping_set_policy(books, policy, &err));
    OK(og_entity_mapping_set_source_entity(books, "Book", &err));
    OK(og_entity_mapping_set_destination_entity(books, "Book", &err));
    OK(og_entity_mapping_set_source_expression(books, fetch_all("Book"), &err));
    add_attribute(books, "title", "$source.title");
    add_attribute(books, "pageCount", "$source.pages");
    add_attribute(books, "year", NULL);
    add_relationship(books, "publisher");
    OK(og_mapping_model_append_entity_mapping(mapping, books, &err));
    og_entity_mapping_release(books);
    return mapping;
}

/* ---- a policy written in C: upper-cases titles, sets the year ---------- */

typedef struct {
    int begins, creates, ends_of_creation, relationships, validations, ends;
    int reentry_checked;
} policy_log;

static policy_log upcase_log;

static og_status upcase_begin(og_migration_manager *manager, og_entity_mapping *mapping, og_error **error, void *user) {
    (void)error;
    policy_log *log = user;
    log->begins++;
    char *name = NN(og_entity_mapping_name(mapping, &err));
    STREQ(name, "BookToBook");
    og_free(name);
    og_context *source = NN(og_migration_manager_source_context(manager, &err));
    og_context *destination = NN(og_migration_manager_destination_context(manager, &err));
    CHECK(source != destination);
    INTEQ(count_of(source, "Book"), 3);
    if (!log->reentry_checked) {
        /* One migration per manager at a time. */
        FAILS(og_migration_manager_migrate(manager, "x.sqlite", NULL, NULL, NULL, "y.sqlite", NULL, NULL, &err),
              OG_ERROR_INVALID_ARGUMENT, "already");
        log->reentry_checked = 1;
    }
    return OG_OK;
}

static og_status upcase_create(og_migration_manager *manager, og_object *source, og_entity_mapping *mapping, og_error **error,
                               void *user) {
    (void)error;
    policy_log *log = user;
    log->creates++;
    OK(og_migration_manager_create_default_destination(manager, source, mapping, &err));
    char *name = NN(og_entity_mapping_name(mapping, &err));
    og_results *made = NN(og_migration_manager_destination_instances(manager, name, &source, 1, &err));
    INTEQ(og_results_count(made), 1);
    og_object *destination = NN(og_results_object_at(made, 0, &err));
    og_results_release(made);
    /* The reverse lookup gives the same source object (the same handle). */
    og_results *back = NN(og_migration_manager_source_instances(manager, name, &destination, 1, &err));
    INTEQ(og_results_count(back), 1);
    CHECK(NN(og_results_object_at(back, 0, &err)) == source);
    og_results_release(back);
    og_free(name);

    char *title = NULL;
    OK(og_object_get_string(source, "title", &title, &err));
    for (char *c = title; *c; c++) *c = (char)toupper((unsigned char)*c);
    OK(og_object_set_string(destination, "title", title, &err));
    og_free(title);
    OK(og_object_set_int64(destination, "year", 2000, &err));
    return OG_OK;
}

static og_status upcase_end_creation(og_migration_manager *manager, og_entity_mapping *mapping, og_error **error, void *user) {
    (void)manager; (void)mapping; (void)error;
    ((policy_log *)user)->ends_of_creation++;
    return OG_OK;
}

static og_status upcase_relationships(og_migration_manager *manager, og_object *destination, og_entity_mapping *mapping,
                                      og_error **error, void *user) {
    (void)error;
    ((policy_log *)user)->relationships++;
    OK(og_migration_manager_create_default_relationships(manager, destination, mapping, &err));
    og_object *publisher = NULL;
    OK(og_object_get_object(destination, "publisher", &publisher, &err));
    CHECK(publisher != NULL);
    return OG_OK;
}

static og_status upcase_validate(og_migration_manager *manager, og_entity_mapping *mapping, og_error **error, void *user) {
    (void)manager; (void)mapping; (void)error;
    ((policy_log *)user)->validations++;
    return OG_OK;
}

static og_status upcase_end(og_migration_manager *manager, og_entity_mapping *mapping, og_error **error, void *user) {
    (void)manager; (void)mapping; (void)error;
    ((policy_log *)user)->ends++;
    return OG_OK;
}

static int released_tables;
static void count_release(void *user) {
    (void)user;
    released_tables++;
}

static void register_upcase(void) {
    og_migration_policy_callbacks table = {0};
    table.userdata = &upcase_log;
    table.begin_entity_mapping = upcase_begin;
    table.create_destination_instances = upcase_create;
    table.end_instance_creation = upcase_end_creation;
    table.create_relationships = upcase_relationships;
    table.perform_custom_validation = upcase_validate;
    table.end_entity_mapping = upcase_end;
    table.release = count_release;
    OK(og_migration_policy_register("Upcase", &table, &err));
}

/* Checks a migrated v2 store: three upper-cased books of one publisher. */
static void check_migrated(const char *path, const char *uuid, bool upcased) {
    og_model *v2 = model_version(2);
    og_coordinator *coordinator = NN(og_coordinator_new(v2, &err));
    og_store *store = NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    STREQ(og_store_uuid(store), uuid);
    og_context *context = NN(og_context_new(coordinator, &err));
    INTEQ(count_of(context, "Book"), 3);
    INTEQ(count_of(context, "Publisher"), 1);
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(request, "pageCount", true, &err));
    og_results *books = NN(og_context_fetch(context, request, &err));
    const char *titles[3] = {"Dune", "Hyperion", "Solaris"};
    const char *upper[3] = {"DUNE", "HYPERION", "SOLARIS"};
    for (size_t i = 0; i < 3; i++) {
        og_object *book = NN(og_results_object_at(books, i, &err));
        char *title = NULL;
        OK(og_object_get_string(book, "title", &title, &err));
        STREQ(title, upcased ? upper[i] : titles[i]);
        og_free(title);
        int64_t pages = 0;
        OK(og_object_get_int64(book, "pageCount", &pages, &err));
        INTEQ(pages, 100 * (int64_t)(i + 1));
        int64_t year = 0;
        if (upcased) {
            OK(og_object_get_int64(book, "year", &year, &err));
            INTEQ(year, 2000);
        } else {
            IS_NULL(og_object_get_int64(book, "year", &year, &err));
        }
        og_object *publisher = NULL;
        OK(og_object_get_object(book, "publisher", &publisher, &err));
        char *name = NULL;
        OK(og_object_get_string(publisher, "name", &name, &err));
        STREQ(name, "Tor");
        og_free(name);
    }
    og_results_release(books);
    og_fetch_request_release(request);
    og_context_release(context);
    og_coordinator_release(coordinator);
    og_model_release(v2);
}

/* ---- progress ----------------------------------------------------------- */

typedef struct {
    og_migration_manager *manager;
    double values[512];
    int count;
    int cancel_at; /* cancel at this call (1-based); 0: never */
    og_error *reason;
} progress_log;

static void record_progress(double fraction, void *user) {
    progress_log *log = user;
    if (log->count < 512) log->values[log->count] = fraction;
    log->count++;
    if (log->cancel_at && log->count == log->cancel_at) OK(og_migration_manager_cancel(log->manager, log->reason, &err));
}

/* ---- cases -------------------------------------------------------------- */

static void infer(void) {
    og_model *v1 = model_version(1), *v2 = model_version(2);
    og_mapping_model *mapping = NN(og_mapping_model_infer(v1, v2, &err));
    INTEQ(og_mapping_model_entity_mapping_count(mapping), 4);
    const char *names[4] = {"IEM_Transform_Book", "IEM_Add_Fresh", "IEM_Copy_Publisher", "IEM_Remove_Obsolete"};
    const og_entity_mapping_kind kinds[4] = {OG_ENTITY_MAPPING_TRANSFORM, OG_ENTITY_MAPPING_ADD, OG_ENTITY_MAPPING_COPY,
                                             OG_ENTITY_MAPPING_REMOVE};
    const char *sources[4] = {"Book", NULL, "Publisher", "Obsolete"};
    const char *destinations[4] = {"Book", "Fresh", "Publisher", NULL};
    for (size_t i = 0; i < 4; i++) {
        og_entity_mapping *m = NN(og_mapping_model_entity_mapping_at(mapping, i, &err));
        char *name = NN(og_entity_mapping_name(m, &err));
        STREQ(name, names[i]);
        og_free(name);
        og_entity_mapping_kind kind;
        OK(og_entity_mapping_kind_of(m, &kind, &err));
        INTEQ(kind, kinds[i]);
        char *source = og_entity_mapping_source_entity(m, &err);
        CHECK(err == NULL);
        char *destination = og_entity_mapping_destination_entity(m, &err);
        CHECK(err == NULL);
        if (sources[i]) STREQ(source, sources[i]); else CHECK(source == NULL);
        if (destinations[i]) STREQ(destination, destinations[i]); else CHECK(destination == NULL);
        og_free(source);
        og_free(destination);
        /* The recorded version hashes are the entities'. */
        uint8_t hash[32], expected[32];
        if (sources[i]) {
            OK(og_entity_mapping_source_version_hash(m, hash, &err));
            OK(og_entity_version_hash(NN(og_model_entity(v1, sources[i], &err)), expected, &err));
            CHECK(memcmp(hash, expected, 32) == 0);
        } else {
            IS_NULL(og_entity_mapping_source_version_hash(m, hash, &err));
        }
        if (destinations[i]) {
            OK(og_entity_mapping_destination_version_hash(m, hash, &err));
            OK(og_entity_version_hash(NN(og_model_entity(v2, destinations[i], &err)), expected, &err));
            CHECK(memcmp(hash, expected, 32) == 0);
        } else {
            IS_NULL(og_entity_mapping_destination_version_hash(m, hash, &err));
        }
        og_entity_mapping_release(m);
    }

    /* Attribute mappings: one per destination attribute; the renamed one reads the old name, the new one has none. */
    og_entity_mapping *book = NN(mapping_named(mapping, "IEM_Transform_Book"));
    INTEQ(og_entity_mapping_attribute_mapping_count(book), 3);
    char *e = NN(attribute_expression(book, "title"));
    STREQ(e, "FUNCTION($source, \"valueForKey:\", \"title\")");
    og_free(e);
    e = NN(attribute_expression(book, "pageCount"));
    STREQ(e, "FUNCTION($source, \"valueForKey:\", \"pages\")");
    og_free(e);
    e = NN(attribute_expression(book, "year"));
    STREQ(e, "");
    free(e);
    CHECK(attribute_expression(book, "isbn") == NULL);
    INTEQ(og_entity_mapping_relationship_mapping_count(book), 1);
    og_property_mapping *publisher = NN(og_entity_mapping_relationship_mapping_at(book, 0, &err));
    char *text = NN(og_property_mapping_value_expression(publisher, &err));
    CHECK(strstr(text, "destinationInstancesForSourceRelationshipNamed:sourceInstances:") != NULL);
    CHECK(strstr(text, "\"publisher\"") != NULL);
    og_free(text);
    og_property_mapping_release(publisher);
    char *expression = NN(og_entity_mapping_source_expression(book, &err));
    STREQ(expression, fetch_all("Book"));
    og_free(expression);
    char *policy = og_entity_mapping_policy(book, &err);
    CHECK(policy == NULL && err == NULL);
    og_entity_mapping_release(book);

    /* A change that cannot be inferred: a new required attribute without a default. */
    og_model *v3 = model_version(2);
    og_property *isbn = NN(og_entity_add_attribute(NN(og_model_entity(v3, "Book", &err)), "code", OG_ATTRIBUTE_STRING, &err));
    OK(og_property_set_optional(isbn, false, &err));
    FAILS_NULL(og_mapping_model_infer(v1, v3, &err), OG_ERROR_INFERRED_MAPPING_MODEL, "code|default");

    og_mapping_model_release(mapping);
    og_model_release(v1);
    og_model_release(v2);
    og_model_release(v3);
}

static void mapping_edit(void) {
    og_mapping_model *mapping = manual_mapping("Upcase");
    INTEQ(og_mapping_model_entity_mapping_count(mapping), 2);

    /* Shared, not copied: a change through one handle shows through another. */
    og_entity_mapping *books = NN(mapping_named(mapping, "BookToBook"));
    OK(og_entity_mapping_set_name(books, "Books", &err));
    og_entity_mapping *again = NN(mapping_named(mapping, "Books"));
    og_entity_mapping_release(again);
    char *policy = NN(og_entity_mapping_policy(books, &err));
    STREQ(policy, "Upcase");
    og_free(policy);
    OK(og_entity_mapping_set_policy(books, NULL, &err));
    policy = og_entity_mapping_policy(books, &err);
    CHECK(policy == NULL && err == NULL);
    OK(og_entity_mapping_set_source_entity(books, NULL, &err));
    CHECK(og_entity_mapping_source_entity(books, &err) == NULL && err == NULL);
    OK(og_entity_mapping_set_destination_entity(books, "Volume", &err));
    char *destination = NN(og_entity_mapping_destination_entity(books, &err));
    STREQ(destination, "Volume");
    og_free(destination);
    OK(og_entity_mapping_set_source_expression(books, NULL, &err));
    CHECK(og_entity_mapping_source_expression(books, &err) == NULL && err == NULL);
    og_entity_mapping_kind kind;
    OK(og_entity_mapping_set_kind(books, OG_ENTITY_MAPPING_UNDEFINED, &err));
    OK(og_entity_mapping_kind_of(books, &kind, &err));
    INTEQ(kind, OG_ENTITY_MAPPING_UNDEFINED);

    /* Version hashes: set, read back, cleared. */
    uint8_t hash[32], back[32];
    for (int i = 0; i < 32; i++) hash[i] = (uint8_t)(i * 7);
    OK(og_entity_mapping_set_source_version_hash(books, hash, &err));
    OK(og_entity_mapping_source_version_hash(books, back, &err));
    CHECK(memcmp(hash, back, 32) == 0);
    OK(og_entity_mapping_set_destination_version_hash(books, hash, &err));
    OK(og_entity_mapping_destination_version_hash(books, back, &err));
    CHECK(memcmp(hash, back, 32) == 0);
    OK(og_entity_mapping_set_source_version_hash(books, NULL, &err));
    IS_NULL(og_entity_mapping_source_version_hash(books, back, &err));

    /* User info of entity and property mappings. */
    const char *keys[2] = {"b", "a"}, *values[2] = {"2", "1"};
    OK(og_entity_mapping_set_user_info(books, keys, values, 2, &err));
    INTEQ(og_entity_mapping_user_info_count(books), 2);
    char *key = NN(og_entity_mapping_user_info_key_at(books, 0, &err));
    STREQ(key, "a");
    og_free(key);
    char *value = NN(og_entity_mapping_user_info(books, "b", &err));
    STREQ(value, "2");
    og_free(value);
    CHECK(og_entity_mapping_user_info(books, "zz", &err) == NULL && err == NULL);

    /* Property mapping lists: insert, remove, edit. */
    INTEQ(og_entity_mapping_attribute_mapping_count(books), 3);
    og_property_mapping *first = property_mapping("first", NULL);
    OK(og_entity_mapping_insert_attribute_mapping(books, 0, first, &err));
    OK(og_property_mapping_set_name(first, "renamed", &err));
    OK(og_property_mapping_set_value_expression(first, "42", &err));
    OK(og_property_mapping_set_user_info(first, keys, values, 1, &err));
    og_property_mapping *at0 = NN(og_entity_mapping_attribute_mapping_at(books, 0, &err));
    char *name = NN(og_property_mapping_name(at0, &err));
    STREQ(name, "renamed");
    og_free(name);
    char *expression = NN(og_property_mapping_value_expression(at0, &err));
    STREQ(expression, "42");
    og_free(expression);
    INTEQ(og_property_mapping_user_info_count(at0), 1);
    key = NN(og_property_mapping_user_info_key_at(at0, 0, &err));
    STREQ(key, "b");
    og_free(key);
    value = NN(og_property_mapping_user_info(at0, "b", &err));
    STREQ(value, "2");
    og_free(value);
    OK(og_property_mapping_set_value_expression(at0, NULL, &err));
    CHECK(og_property_mapping_value_expression(first, &err) == NULL && err == NULL);
    og_property_mapping_release(at0);
    INTEQ(og_entity_mapping_attribute_mapping_count(books), 4);
    OK(og_entity_mapping_remove_attribute_mapping_at(books, 0, &err));
    INTEQ(og_entity_mapping_attribute_mapping_count(books), 3);
    FAILS(og_entity_mapping_insert_attribute_mapping(books, 9, first, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS(og_entity_mapping_remove_attribute_mapping_at(books, 3, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS_NULL(og_entity_mapping_attribute_mapping_at(books, 3, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    OK(og_entity_mapping_insert_relationship_mapping(books, 1, first, &err));
    INTEQ(og_entity_mapping_relationship_mapping_count(books), 2);
    OK(og_entity_mapping_remove_relationship_mapping_at(books, 0, &err));
    og_property_mapping *rel = NN(og_entity_mapping_relationship_mapping_at(books, 0, &err));
    name = NN(og_property_mapping_name(rel, &err));
    STREQ(name, "renamed");
    og_free(name);
    og_property_mapping_release(rel);
    og_property_mapping_release(first);

    /* The model's list: insert, remove, and a deep copy that edits leave alone. */
    og_entity_mapping *extra = NN(og_entity_mapping_new("Extra", &err));
    OK(og_mapping_model_insert_entity_mapping(mapping, 0, extra, &err));
    FAILS(og_mapping_model_insert_entity_mapping(mapping, 4, extra, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    og_mapping_model *copy = NN(og_mapping_model_copy(mapping, &err));
    OK(og_entity_mapping_set_name(extra, "Changed", &err));
    og_entity_mapping *copied = NN(og_mapping_model_entity_mapping_at(copy, 0, &err));
    name = NN(og_entity_mapping_name(copied, &err));
    STREQ(name, "Extra");
    og_free(name);
    og_entity_mapping_release(copied);
    OK(og_mapping_model_remove_entity_mapping_at(mapping, 0, &err));
    INTEQ(og_mapping_model_entity_mapping_count(mapping), 2);
    INTEQ(og_mapping_model_entity_mapping_count(copy), 3);
    FAILS(og_mapping_model_remove_entity_mapping_at(mapping, 2, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS_NULL(og_mapping_model_entity_mapping_at(mapping, 2, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    /* The handle outlives its place in the list. */
    name = NN(og_entity_mapping_name(extra, &err));
    STREQ(name, "Changed");
    og_free(name);
    og_entity_mapping_release(extra);
    og_entity_mapping_release(books);
    og_mapping_model_release(copy);
    og_mapping_model_release(mapping);
}

static void manual_policy(void) {
    char *dir = og_t_tempdir();
    char *source = og_t_path(dir, "v1.sqlite"), *destination = og_t_path(dir, "v2.sqlite");
    char uuid[64];
    write_v1_store(source, uuid);
    register_upcase();
    memset(&upcase_log, 0, sizeof upcase_log);

    og_model *v1 = model_version(1), *v2 = model_version(2);
    og_migration_manager *manager = NN(og_migration_manager_new(v1, v2, &err));
    CHECK(og_migration_manager_source_model(manager) != NULL);
    CHECK(og_migration_manager_destination_model(manager) != NULL);
    CHECK(og_migration_manager_source_model(manager) == og_migration_manager_source_model(manager));
    INTEQ(og_model_entity_count(og_migration_manager_destination_model(manager)), 3);
    progress_log progress = {.manager = manager};
    OK(og_migration_manager_set_progress_callback(manager, record_progress, &progress, &err));
    og_mapping_model *mapping = manual_mapping("Upcase");
    OK(og_migration_manager_migrate(manager, source, "SQLite", NULL, mapping, destination, "SQLite", NULL, &err));

    INTEQ(upcase_log.begins, 1);
    INTEQ(upcase_log.creates, 3);
    INTEQ(upcase_log.ends_of_creation, 1);
    INTEQ(upcase_log.relationships, 3);
    INTEQ(upcase_log.validations, 1);
    INTEQ(upcase_log.ends, 1);
    CHECK(progress.count >= 2);
    for (int i = 1; i < progress.count; i++) CHECK(progress.values[i] > progress.values[i - 1]);
    DBLEQ(progress.values[progress.count - 1], 1.0);
    DBLEQ(og_migration_manager_progress(manager), 0.0);
    check_migrated(destination, uuid, true);

    /* The contexts exist only while a migration runs. */
    FAILS_NULL(og_migration_manager_source_context(manager, &err), OG_ERROR_INVALID_ARGUMENT, "running");
    FAILS_NULL(og_migration_manager_destination_context(manager, &err), OG_ERROR_INVALID_ARGUMENT, "running");

    /* The default policy and an inferred mapping (mapping NULL) into a second file. */
    char *inferred = og_t_path(dir, "inferred.sqlite");
    OK(og_migration_manager_set_progress_callback(manager, NULL, NULL, &err));
    OK(og_migration_manager_migrate(manager, source, NULL, NULL, NULL, inferred, NULL, NULL, &err));
    check_migrated(inferred, uuid, false);

    /* Unregistering a policy releases its table once no migration uses it. */
    OK(og_migration_policy_unregister("Upcase", &err));
    INTEQ(released_tables, 1);
    og_mapping_model_release(mapping);
    og_migration_manager_release(manager);
    og_model_release(v1);
    og_model_release(v2);
    free(source);
    free(destination);
    free(inferred);
    og_t_remove_tree(dir);
}

static void progress_and_cancel(void) {
    char *dir = og_t_tempdir();
    char *source = og_t_path(dir, "v1.sqlite"), *destination = og_t_path(dir, "v2.sqlite");
    char uuid[64];
    write_v1_store(source, uuid);
    og_model *v1 = model_version(1), *v2 = model_version(2);
    og_migration_manager *manager = NN(og_migration_manager_new(v1, v2, &err));
    og_mapping_model *mapping = manual_mapping(NULL);

    /* Cancelled from the progress callback: 134120, nothing at the destination. */
    progress_log progress = {.manager = manager, .cancel_at = 1};
    OK(og_migration_manager_set_progress_callback(manager, record_progress, &progress, &err));
    FAILS(og_migration_manager_migrate(manager, source, "SQLite", NULL, mapping, destination, "SQLite", NULL, &err),
          OG_ERROR_MIGRATION_CANCELLED, "cancel");
    CHECK(!exists(destination));
    DBLEQ(og_migration_manager_progress(manager), 0.0);

    /* Cancelled with a reason: the migration fails with it. */
    memset(&progress, 0, sizeof progress);
    progress.manager = manager;
    progress.cancel_at = 2;
    progress.reason = og_error_new(OG_ERROR_MIGRATION_CONSTRAINT_VIOLATION, "stopped for a reason", NULL);
    FAILS(og_migration_manager_migrate(manager, source, "SQLite", NULL, mapping, destination, "SQLite", NULL, &err),
          OG_ERROR_MIGRATION_CONSTRAINT_VIOLATION, "reason");
    og_error_release(progress.reason);
    CHECK(!exists(destination));

    /* A cancel before a migration does not carry over into it. */
    OK(og_migration_manager_cancel(manager, NULL, &err));
    memset(&progress, 0, sizeof progress);
    progress.manager = manager;
    OK(og_migration_manager_migrate(manager, source, "SQLite", NULL, mapping, destination, "SQLite", NULL, &err));
    CHECK(exists(destination));
    DBLEQ(progress.values[progress.count - 1], 1.0);

    og_mapping_model_release(mapping);
    og_migration_manager_release(manager);
    og_model_release(v1);
    og_model_release(v2);
    free(source);
    free(destination);
    og_t_remove_tree(dir);
}

static og_status refuse_with_error(og_migration_manager *manager, og_entity_mapping *mapping, og_error **error, void *user) {
    (void)manager; (void)mapping; (void)user;
    *error = og_error_new(7777, "the policy refused this mapping", NULL);
    return OG_ERROR;
}

static og_status refuse_silently(og_migration_manager *manager, og_object *object, og_entity_mapping *mapping, og_error **error,
                                 void *user) {
    (void)manager; (void)object; (void)mapping; (void)error; (void)user;
    return OG_ERROR;
}

static void policy_errors(void) {
    char *dir = og_t_tempdir();
    char *source = og_t_path(dir, "v1.sqlite"), *destination = og_t_path(dir, "v2.sqlite");
    char uuid[64];
    write_v1_store(source, uuid);
    og_model *v1 = model_version(1), *v2 = model_version(2);
    og_migration_manager *manager = NN(og_migration_manager_new(v1, v2, &err));

    /* An error a hook reports ends the migration unchanged. */
    og_migration_policy_callbacks table = {0};
    table.begin_entity_mapping = refuse_with_error;
    OK(og_migration_policy_register("Refuse", &table, &err));
    og_mapping_model *mapping = manual_mapping("Refuse");
    FAILS(og_migration_manager_migrate(manager, source, NULL, NULL, mapping, destination, NULL, NULL, &err), 7777, "refused");
    CHECK(!exists(destination));
    og_mapping_model_release(mapping);

    /* A hook that fails without an error: 134170. */
    memset(&table, 0, sizeof table);
    table.create_destination_instances = refuse_silently;
    OK(og_migration_policy_register("Silent", &table, &err));
    mapping = manual_mapping("Silent");
    FAILS(og_migration_manager_migrate(manager, source, NULL, NULL, mapping, destination, NULL, NULL, &err),
          OG_ERROR_ENTITY_MIGRATION_POLICY, "create_destination_instances");
    CHECK(!exists(destination));
    og_mapping_model_release(mapping);

    /* A policy nobody registered: 134170. */
    mapping = manual_mapping("Nobody");
    FAILS(og_migration_manager_migrate(manager, source, NULL, NULL, mapping, destination, NULL, NULL, &err),
          OG_ERROR_ENTITY_MIGRATION_POLICY, "registered");
    CHECK(!exists(destination));
    og_mapping_model_release(mapping);

    OK(og_migration_policy_unregister("Refuse", &err));
    OK(og_migration_policy_unregister("Silent", &err));
    FAILS(og_migration_policy_unregister("Silent", &err), OG_ERROR_INVALID_ARGUMENT, "registered");
    og_migration_manager_release(manager);
    og_model_release(v1);
    og_model_release(v2);
    free(source);
    free(destination);
    og_t_remove_tree(dir);
}

static void hash_mismatch(void) {
    char *dir = og_t_tempdir();
    char *source = og_t_path(dir, "v1.sqlite"), *destination = og_t_path(dir, "v2.sqlite");
    char uuid[64];
    write_v1_store(source, uuid);
    og_model *v1 = model_version(1), *v2 = model_version(2);
    og_migration_manager *manager = NN(og_migration_manager_new(v1, v2, &err));
    og_mapping_model *mapping = manual_mapping(NULL);
    og_entity_mapping *books = NN(mapping_named(mapping, "BookToBook"));
    uint8_t wrong[32];
    memset(wrong, 0xAB, sizeof wrong);
    OK(og_entity_mapping_set_source_version_hash(books, wrong, &err));
    FAILS(og_migration_manager_migrate(manager, source, NULL, NULL, mapping, destination, NULL, NULL, &err), OG_ERROR_MIGRATION,
          "Book");
    CHECK(!exists(destination));

    /* The right hash passes; an entity the model lacks does not. */
    OK(og_entity_version_hash(NN(og_model_entity(v1, "Book", &err)), wrong, &err));
    OK(og_entity_mapping_set_source_version_hash(books, wrong, &err));
    OK(og_entity_mapping_set_destination_entity(books, "Volume", &err));
    FAILS(og_migration_manager_migrate(manager, source, NULL, NULL, mapping, destination, NULL, NULL, &err), OG_ERROR_MIGRATION,
          "Volume");
    OK(og_entity_mapping_set_destination_entity(books, "Book", &err));
    OK(og_migration_manager_migrate(manager, source, NULL, NULL, mapping, destination, NULL, NULL, &err));
    check_migrated(destination, uuid, false);

    og_entity_mapping_release(books);
    og_mapping_model_release(mapping);
    og_migration_manager_release(manager);
    og_model_release(v1);
    og_model_release(v2);
    free(source);
    free(destination);
    og_t_remove_tree(dir);
}

static og_value *options(bool migrate, bool infer) {
    const char *keys[2] = {OG_OPTION_MIGRATE_AUTOMATICALLY, OG_OPTION_INFER_MAPPING_MODEL};
    og_value *values[2] = {og_value_new_bool(migrate), og_value_new_bool(infer)};
    og_value *d = NN(og_value_new_dictionary(keys, values, 2, &err));
    og_value_release(values[0]);
    og_value_release(values[1]);
    return d;
}

static void automatic(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "store.sqlite");
    char uuid[64];
    write_v1_store(path, uuid);
    og_model *v1 = model_version(1), *v2 = model_version(2);

    /* Without the options the store is refused. */
    og_coordinator *plain = NN(og_coordinator_new_with_versions(v2, &v1, 1, NULL, 0, &err));
    FAILS_NULL(og_coordinator_add_store(plain, "SQLite", path, &err), OG_ERROR_STORE_INCOMPATIBLE_VERSION, "Book|version");
    og_coordinator_release(plain);

    /* Migrate, but no inference and no mapping: 134140. */
    og_value *migrate_only = options(true, false);
    og_coordinator *coordinator = NN(og_coordinator_new_with_versions(v2, &v1, 1, NULL, 0, &err));
    FAILS_NULL(og_coordinator_add_store_with_options(coordinator, "SQLite", NULL, path, migrate_only, &err),
               OG_ERROR_MIGRATION_MISSING_MAPPING_MODEL, "mapping");
    og_coordinator_release(coordinator);

    /* Migrate and infer: rows, renamed values and the UUID kept. */
    og_value *both = options(true, true);
    coordinator = NN(og_coordinator_new_with_versions(v2, &v1, 1, NULL, 0, &err));
    og_store *store = NN(og_coordinator_add_store_with_options(coordinator, "SQLite", NULL, path, both, &err));
    STREQ(og_store_uuid(store), uuid);
    og_coordinator_release(coordinator);
    check_migrated(path, uuid, false);

    /* A Binary store keeps no model: without the versions there is no source model. */
    char *binary = og_t_path(dir, "store.binary");
    og_coordinator *writer = NN(og_coordinator_new(v1, &err));
    og_context *context = NN(og_context_new(writer, &err));
    NN(og_coordinator_add_store(writer, "Binary", binary, &err));
    NN(og_context_insert(context, "Book", &err));
    OK(og_context_save(context, &err));
    og_context_release(context);
    og_coordinator_release(writer);
    coordinator = NN(og_coordinator_new(v2, &err));
    FAILS_NULL(og_coordinator_add_store_with_options(coordinator, "Binary", NULL, binary, both, &err),
               OG_ERROR_MIGRATION_MISSING_SOURCE_MODEL, "model");
    og_coordinator_release(coordinator);

    og_value_release(migrate_only);
    og_value_release(both);
    og_model_release(v1);
    og_model_release(v2);
    free(path);
    free(binary);
    og_t_remove_tree(dir);
}

/* Automatic migration through a mapping the coordinator was given, whose book
 * mapping runs the C policy: the policy's manager is one the library made. */
static void automatic_with_policy(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "store.sqlite");
    char uuid[64];
    write_v1_store(path, uuid);
    register_upcase();
    memset(&upcase_log, 0, sizeof upcase_log);
    upcase_log.reentry_checked = 1;
    og_model *v1 = model_version(1), *v2 = model_version(2);
    og_mapping_model *mapping = NN(og_mapping_model_infer(v1, v2, &err));
    og_entity_mapping *books = NN(mapping_named(mapping, "IEM_Transform_Book"));
    OK(og_entity_mapping_set_name(books, "BookToBook", &err));
    OK(og_entity_mapping_set_kind(books, OG_ENTITY_MAPPING_CUSTOM, &err));
    OK(og_entity_mapping_set_policy(books, "Upcase", &err));
    og_entity_mapping_release(books);

    og_value *migrate_only = options(true, false);
    og_coordinator *coordinator = NN(og_coordinator_new_with_versions(v2, &v1, 1, &mapping, 1, &err));
    og_store *store = NN(og_coordinator_add_store_with_options(coordinator, "SQLite", NULL, path, migrate_only, &err));
    STREQ(og_store_uuid(store), uuid);
    og_coordinator_release(coordinator);
    INTEQ(upcase_log.creates, 3);
    INTEQ(upcase_log.relationships, 3);
    check_migrated(path, uuid, true);

    OK(og_migration_policy_unregister("Upcase", &err));
    og_value_release(migrate_only);
    og_mapping_model_release(mapping);
    og_model_release(v1);
    og_model_release(v2);
    free(path);
    og_t_remove_tree(dir);
}

/* ---- misuse ------------------------------------------------------------- */

typedef struct {
    og_migration_manager *manager;
    int64_t code;
} thread_probe;

static void *probe_from_another_thread(void *arg) {
    thread_probe *probe = arg;
    og_error *e = NULL;
    og_context *context = og_migration_manager_source_context(probe->manager, &e);
    probe->code = context == NULL && e != NULL ? og_error_code(e) : 0;
    og_error_release(e);
    return NULL;
}

static og_status probe_threads(og_migration_manager *manager, og_entity_mapping *mapping, og_error **error, void *user) {
    (void)mapping; (void)error;
    thread_probe *probe = user;
    probe->manager = manager;
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, probe_from_another_thread, probe) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    return OG_OK;
}

static void release_manager(double fraction, void *user) {
    (void)fraction;
    og_migration_manager_release(*(og_migration_manager **)user); /* a second release is harmless */
}

static void misuse(void) {
    /* NULL handles. */
    INTEQ(og_mapping_model_entity_mapping_count(NULL), 0);
    INTEQ(og_entity_mapping_attribute_mapping_count(NULL), 0);
    INTEQ(og_entity_mapping_relationship_mapping_count(NULL), 0);
    INTEQ(og_entity_mapping_user_info_count(NULL), 0);
    INTEQ(og_property_mapping_user_info_count(NULL), 0);
    CHECK(og_migration_manager_source_model(NULL) == NULL);
    DBLEQ(og_migration_manager_progress(NULL), 0.0);
    FAILS_NULL(og_entity_mapping_name(NULL, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    FAILS_NULL(og_mapping_model_entity_mapping_at(NULL, 0, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    FAILS_NULL(og_mapping_model_infer(NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    FAILS_NULL(og_migration_manager_new(NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    FAILS(og_migration_manager_migrate(NULL, "a", NULL, NULL, NULL, "b", NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    FAILS(og_migration_manager_cancel(NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    FAILS(og_property_mapping_set_name(NULL, "x", &err), OG_ERROR_INVALID_HANDLE, "NULL");
    FAILS_NULL(og_coordinator_new_with_versions(NULL, NULL, 0, NULL, 0, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    og_mapping_model_release(NULL);
    og_entity_mapping_release(NULL);
    og_property_mapping_release(NULL);
    og_migration_manager_release(NULL);

    /* Released and wrong-kind handles. */
    og_entity_mapping *gone = NN(og_entity_mapping_new("gone", &err));
    og_entity_mapping_release(gone);
    FAILS_NULL(og_entity_mapping_name(gone, &err), OG_ERROR_INVALID_HANDLE, "released");
    og_entity_mapping_release(gone); /* a second release is harmless */
    og_model *v1 = model_version(1), *v2 = model_version(2);
    FAILS(og_mapping_model_append_entity_mapping((og_mapping_model *)v1, NULL, &err), OG_ERROR_INVALID_HANDLE, "kind");
    og_model *models[1] = {v1};
    FAILS_NULL(og_coordinator_new_with_versions(v2, models, 1, (og_mapping_model *const *)models, 1, &err),
               OG_ERROR_INVALID_HANDLE, "kind");
    FAILS_NULL(og_coordinator_new_with_versions(v2, NULL, 2, NULL, 0, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");

    /* Bad arguments. */
    og_entity_mapping *m = NN(og_entity_mapping_new("m", &err));
    FAILS(og_entity_mapping_set_kind(m, (og_entity_mapping_kind)99, &err), OG_ERROR_INVALID_ARGUMENT, "kind");
    FAILS(og_entity_mapping_set_name(m, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS(og_entity_mapping_set_source_entity(m, "\xff", &err), OG_ERROR_INVALID_UTF8, "UTF-8");
    FAILS(og_entity_mapping_kind_of(m, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "out");
    FAILS(og_entity_mapping_source_version_hash(m, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "out");
    FAILS_NULL(og_entity_mapping_new(NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS_NULL(og_property_mapping_new(NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS(og_migration_policy_register("p", NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    og_migration_policy_callbacks empty = {0};
    FAILS(og_migration_policy_register("", &empty, &err), OG_ERROR_INVALID_ARGUMENT, "empty");
    FAILS(og_migration_policy_register("NSEntityMigrationPolicy", &empty, &err), OG_ERROR_INVALID_ARGUMENT, "default");
    FAILS(og_migration_policy_unregister("never", &err), OG_ERROR_INVALID_ARGUMENT, "registered");

    /* The calls for policies outside a migration. */
    og_migration_manager *manager = NN(og_migration_manager_new(v1, v2, &err));
    og_context *none = og_migration_manager_source_context(manager, &err);
    CHECK(none == NULL);
    og_t_expect_error(OG_ERROR_INVALID_ARGUMENT, "running", __FILE__, __LINE__, "source context outside a migration");
    FAILS(og_migration_manager_associate(manager, NULL, NULL, m, &err), OG_ERROR_INVALID_ARGUMENT, "running");
    FAILS_NULL(og_migration_manager_destination_instances(manager, "m", NULL, 0, &err), OG_ERROR_INVALID_ARGUMENT, "running");
    FAILS_NULL(og_migration_manager_source_instances(manager, "m", NULL, 0, &err), OG_ERROR_INVALID_ARGUMENT, "running");
    FAILS(og_migration_manager_create_default_destination(manager, NULL, m, &err), OG_ERROR_INVALID_ARGUMENT, "running");
    FAILS(og_migration_manager_create_default_relationships(manager, NULL, m, &err), OG_ERROR_INVALID_ARGUMENT, "running");

    /* A missing source store: 134150; a mapping that is not one: invalid handle. */
    char *dir = og_t_tempdir();
    char *missing = og_t_path(dir, "missing.sqlite"), *destination = og_t_path(dir, "out.sqlite");
    FAILS(og_migration_manager_migrate(manager, missing, NULL, NULL, NULL, destination, NULL, NULL, &err),
          OG_ERROR_MIGRATION_MANAGER_SOURCE_STORE, "missing");
    FAILS(og_migration_manager_migrate(manager, missing, NULL, NULL, (og_mapping_model *)m, destination, NULL, NULL, &err),
          OG_ERROR_INVALID_HANDLE, "kind");
    CHECK(!exists(destination));

    /* From another thread during a migration: wrong thread. */
    char *source = og_t_path(dir, "v1.sqlite");
    char uuid[64];
    write_v1_store(source, uuid);
    thread_probe probe = {0};
    og_migration_policy_callbacks table = {0};
    table.userdata = &probe;
    table.begin_entity_mapping = probe_threads;
    OK(og_migration_policy_register("Probe", &table, &err));
    og_mapping_model *mapping = manual_mapping("Probe");
    OK(og_migration_manager_migrate(manager, source, NULL, NULL, mapping, destination, NULL, NULL, &err));
    INTEQ(probe.code, OG_ERROR_WRONG_THREAD);

    /* Released from its own progress callback: the migration goes on, and fails
     * at the next hook of a policy written in C. */
    char *released = og_t_path(dir, "released.sqlite");
    og_mapping_model *plain = manual_mapping(NULL);
    og_migration_manager *doomed = NN(og_migration_manager_new(v1, v2, &err));
    OK(og_migration_manager_set_progress_callback(doomed, release_manager, &doomed, &err));
    OK(og_migration_manager_migrate(doomed, source, NULL, NULL, plain, released, NULL, NULL, &err));
    CHECK(exists(released));
    remove(released);
    doomed = NN(og_migration_manager_new(v1, v2, &err));
    OK(og_migration_manager_set_progress_callback(doomed, release_manager, &doomed, &err));
    FAILS(og_migration_manager_migrate(doomed, source, NULL, NULL, mapping, released, NULL, NULL, &err), OG_ERROR_INVALID_HANDLE,
          "released");
    CHECK(!exists(released));
    og_mapping_model_release(plain);
    free(released);
    OK(og_migration_policy_unregister("Probe", &err));

    /* A released manager. */
    og_migration_manager_release(manager);
    FAILS(og_migration_manager_migrate(manager, source, NULL, NULL, NULL, destination, NULL, NULL, &err), OG_ERROR_INVALID_HANDLE,
          "released");
    FAILS(og_migration_manager_set_progress_callback(manager, NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "released");

    og_mapping_model_release(mapping);
    og_entity_mapping_release(m);
    og_model_release(v1);
    og_model_release(v2);
    free(missing);
    free(destination);
    free(source);
    og_t_remove_tree(dir);
}

/* Mapping model files: saved as JSON and as an Xcode folder, read back with every
 * field; unreadable and unknown files are refused with their codes. */
static void files(void) {
    char *dir = og_t_tempdir();
    og_model *v1 = model_version(1), *v2 = model_version(2);
    og_mapping_model *mapping = NN(og_mapping_model_infer(v1, v2, &err));
    const char *names[2] = {"mapping.json", "Mapping.xcmappingmodel"};
    for (int i = 0; i < 2; i++) {
        char *path = og_t_path(dir, names[i]);
        OK(og_mapping_model_save(mapping, path, &err));
        og_mapping_model *again = NN(og_mapping_model_load(path, &err));
        INTEQ(og_mapping_model_entity_mapping_count(again), 4);
        og_entity_mapping *m = NN(og_mapping_model_entity_mapping_at(again, 0, &err));
        char *name = NN(og_entity_mapping_name(m, &err));
        STREQ(name, "IEM_Transform_Book");
        og_free(name);
        og_entity_mapping_release(m);
        og_mapping_model_release(again);
        free(path);
    }
    char *missing = og_t_path(dir, "missing.json");
    FAILS_NULL(og_mapping_model_load(missing, &err), OG_ERROR_STORE_OPEN, "cannot read");
    char *text = og_t_path(dir, "mapping.txt");
    FAILS_NULL(og_mapping_model_load(text, &err), OG_ERROR_INVALID_ARGUMENT, "format");
    char *compiled = og_t_path(dir, "out.cdm");
    FAILS(og_mapping_model_save(mapping, compiled, &err), OG_ERROR_INVALID_ARGUMENT, "never written");
    FAILS_NULL(og_mapping_model_load(NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    free(missing);
    free(text);
    free(compiled);
    og_mapping_model_release(mapping);
    og_model_release(v1);
    og_model_release(v2);
    og_t_remove_tree(dir);
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"files", files},
        {"infer", infer},
        {"mapping_edit", mapping_edit},
        {"manual_policy", manual_policy},
        {"progress_and_cancel", progress_and_cancel},
        {"policy_errors", policy_errors},
        {"hash_mismatch", hash_mismatch},
        {"automatic", automatic},
        {"automatic_with_policy", automatic_with_policy},
        {"misuse", misuse},
    };
    return OG_T_RUN(cases, argc, argv);
}
