/*
 * test_incremental.c — incremental stores implemented in C: fetches, counts
 * and dictionaries through execute_fetch, faults through new_values, to-manys
 * through new_value_for_relationship, saves through obtain_permanent_ids and
 * execute_save, references and URIs, and bad tables and answers.
 */
#include "og_test.h"

#include <stdint.h>

/* Folders and notes, kept here by reference ("f1", "n1", ...). */
struct row {
    char ref[32];
    char entity[16];
    char title[64]; /* a note's title, a folder's name */
    int64_t rank;
    char folder[32]; /* a note's folder reference, "" for none */
    bool live;
};

static struct shelf {
    struct row rows[32];
    int count;
    int fetches, counts, dictionaries, values, relationships, ids, saves, destroyed, released;
    int next;
    bool fail_save, omit_title;
} shelf;

static struct row *find(const char *ref) {
    for (int i = 0; i < shelf.count; i++)
        if (shelf.rows[i].live && strcmp(shelf.rows[i].ref, ref) == 0) return &shelf.rows[i];
    return NULL;
}

static void add_row(const char *ref, const char *entity, const char *title, int64_t rank, const char *folder) {
    struct row *r = &shelf.rows[shelf.count++];
    snprintf(r->ref, sizeof r->ref, "%s", ref);
    snprintf(r->entity, sizeof r->entity, "%s", entity);
    snprintf(r->title, sizeof r->title, "%s", title);
    r->rank = rank;
    snprintf(r->folder, sizeof r->folder, "%s", folder ? folder : "");
    r->live = true;
}

/* The reference an ID URI names in this store. */
static void reference_of(og_store *store, const char *uri, char *out, size_t size) {
    og_error *e = NULL;
    og_value *ref = og_store_reference_object(store, uri, &e);
    CHECK(ref != NULL && e == NULL);
    const char *text = NULL;
    CHECK(og_value_get_string(ref, &text, &e) == OG_OK);
    snprintf(out, size, "%s", text);
    og_value_release(ref);
}

static og_entity *entity_named(og_context *context, const char *name) {
    (void)context;
    extern og_model *shelf_model;
    for (size_t i = 0; i < og_model_entity_count(shelf_model); i++) {
        og_entity *e = og_model_entity_at(shelf_model, i, NULL);
        if (strcmp(og_entity_name(e), name) == 0) return e;
    }
    return NULL;
}
og_model *shelf_model;

static char *id_of(og_store *store, const struct row *r) {
    og_error *e = NULL;
    og_value *ref = og_value_new_string(r->ref, &e);
    char *uri = og_store_new_object_id(store, entity_named(NULL, r->entity), ref, &e);
    og_value_release(ref);
    CHECK(uri != NULL && e == NULL);
    return uri;
}

static void *create(void *userdata, const char *path, const char *configuration, og_error **error) {
    (void)error;
    CHECK(userdata == &shelf);
    CHECK(strcmp(path, "shelf://notes") == 0);
    CHECK(configuration == NULL);
    return &shelf;
}

static og_value *load_metadata(void *state, og_error **error) {
    CHECK(state == &shelf);
    const char *keys[] = {"NSStoreType", "NSStoreUUID"};
    og_value *values[] = {og_value_new_string("Shelf", error), og_value_new_string("0C0FFEE0-0000-4000-8000-000000000002", error)};
    og_value *metadata = og_value_new_dictionary(keys, values, 2, error);
    og_value_release(values[0]);
    og_value_release(values[1]);
    return metadata;
}

static og_status execute_fetch(void *state, og_store *store, const og_fetch_request *request, og_context *context,
                               og_incremental_result *result, og_error **error) {
    (void)state;
    (void)context;
    const char *entity = og_fetch_request_entity_name(request);
    og_predicate *predicate = og_fetch_request_predicate(request, error);
    int type = og_fetch_request_result_type(request);
    if (type == OG_RESULT_COUNT) shelf.counts++; else if (type == OG_RESULT_DICTIONARIES) shelf.dictionaries++; else shelf.fetches++;
    int64_t matched = 0;
    for (int i = 0; i < shelf.count; i++) {
        struct row *r = &shelf.rows[i];
        if (!r->live || strcmp(r->entity, entity) != 0) continue;
        if (predicate) {
            const char *keys[] = {"title", "rank"};
            og_value *values[] = {og_value_new_string(r->title, error), og_value_new_int64(r->rank)};
            og_value *row = og_value_new_dictionary(keys, values, 2, error);
            bool match = false;
            og_status s = og_predicate_evaluate(predicate, row, NULL, NULL, 0, &match, error);
            og_value_release(values[0]);
            og_value_release(values[1]);
            og_value_release(row);
            if (s != OG_OK) return OG_ERROR;
            if (!match) continue;
        }
        matched++;
        if (type == OG_RESULT_DICTIONARIES) {
            const char *keys[] = {"title"};
            og_value *values[] = {og_value_new_string(r->title, error)};
            og_value *row = og_value_new_dictionary(keys, values, 1, error);
            og_status s = og_incremental_result_add_row(result, row, error);
            og_value_release(values[0]);
            og_value_release(row);
            if (s != OG_OK) return OG_ERROR;
        } else if (type != OG_RESULT_COUNT) {
            char *uri = id_of(store, r);
            og_status s = og_incremental_result_add_object_id(result, uri, error);
            og_free(uri);
            if (s != OG_OK) return OG_ERROR;
        }
    }
    og_predicate_release(predicate);
    if (type == OG_RESULT_COUNT) return og_incremental_result_set_count(result, matched, error);
    return OG_OK;
}

static og_status new_values(void *state, og_store *store, const char *object_id, og_context *context,
                            og_incremental_node *node, og_error **error) {
    (void)state;
    (void)context;
    shelf.values++;
    char ref[64];
    reference_of(store, object_id, ref, sizeof ref);
    struct row *r = find(ref);
    if (r == NULL) {
        *error = og_error_new(133000, "the note is gone", NULL);
        return OG_ERROR;
    }
    bool note = strcmp(r->entity, "Note") == 0;
    if (!(note && shelf.omit_title)) {
        og_value *v = og_value_new_string(r->title, error);
        og_status s = og_incremental_node_set_value(node, note ? "title" : "name", v, error);
        og_value_release(v);
        if (s != OG_OK) return OG_ERROR;
    }
    if (note) {
        og_value *rank = og_value_new_int64(r->rank);
        og_status s = og_incremental_node_set_value(node, "rank", rank, error);
        og_value_release(rank);
        if (s != OG_OK) return OG_ERROR;
    }
    return og_incremental_node_set_version(node, 3, error);
}

static og_status new_value_for_relationship(void *state, og_store *store, const og_property *relationship,
                                            const char *object_id, og_context *context, og_incremental_result *result,
                                            og_error **error) {
    (void)state;
    (void)context;
    shelf.relationships++;
    char ref[64];
    reference_of(store, object_id, ref, sizeof ref);
    bool to_folder = strcmp(og_property_name(relationship), "folder") == 0;
    for (int i = 0; i < shelf.count; i++) {
        struct row *r = &shelf.rows[i];
        if (!r->live) continue;
        bool wanted = to_folder ? strcmp(r->ref, find(ref)->folder) == 0 : strcmp(r->folder, ref) == 0;
        if (!wanted) continue;
        char *uri = id_of(store, r);
        og_status s = og_incremental_result_add_object_id(result, uri, error);
        og_free(uri);
        if (s != OG_OK) return OG_ERROR;
    }
    return OG_OK;
}

static og_status obtain_permanent_ids(void *state, og_store *store, og_object *const *objects, size_t count,
                                      og_incremental_result *result, og_error **error) {
    (void)state;
    shelf.ids++;
    for (size_t i = 0; i < count; i++) {
        char ref[32];
        snprintf(ref, sizeof ref, "new%d", ++shelf.next);
        og_value *v = og_value_new_string(ref, error);
        og_entity *entity = og_object_entity(objects[i]);
        char *uri = og_store_new_object_id(store, entity_named(NULL, og_entity_name(entity)), v, error);
        og_value_release(v);
        if (uri == NULL) return OG_ERROR;
        og_status s = og_incremental_result_add_object_id(result, uri, error);
        og_free(uri);
        if (s != OG_OK) return OG_ERROR;
    }
    return OG_OK;
}

static og_status execute_save(void *state, og_store *store, const og_save_changes_request *request, og_context *context,
                              og_error **error) {
    (void)state;
    CHECK(context != NULL);
    shelf.saves++;
    if (shelf.fail_save) {
        *error = og_error_new(4242, "the shelf is full", NULL);
        return OG_ERROR;
    }
    CHECK(og_save_changes_request_count(request, OG_OBJECTS_LOCKED) == 0);
    og_object_set sets[] = {OG_OBJECTS_INSERTED, OG_OBJECTS_UPDATED};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < og_save_changes_request_count(request, sets[k]); i++) {
            og_object *o = og_save_changes_request_object_at(request, sets[k], i, error);
            if (o == NULL) return OG_ERROR;
            char *uri = og_object_id_uri(o, error);
            char ref[64];
            reference_of(store, uri, ref, sizeof ref);
            og_free(uri);
            if (strcmp(og_entity_name(og_object_entity(o)), "Note") != 0) continue;
            struct row *r = find(ref);
            if (r == NULL) {
                add_row(ref, "Note", "", 0, NULL);
                r = &shelf.rows[shelf.count - 1];
            }
            char *title = NULL;
            if (og_object_get_string(o, "title", &title, error) == OG_ERROR) return OG_ERROR;
            snprintf(r->title, sizeof r->title, "%s", title ? title : "");
            og_free(title);
        }
    }
    for (size_t i = 0; i < og_save_changes_request_count(request, OG_OBJECTS_DELETED); i++) {
        og_object *o = og_save_changes_request_object_at(request, OG_OBJECTS_DELETED, i, error);
        char *uri = og_object_id_uri(o, error);
        char ref[64];
        reference_of(store, uri, ref, sizeof ref);
        og_free(uri);
        struct row *r = find(ref);
        if (r) r->live = false;
    }
    return OG_OK;
}

static void destroy(void *state) { ((struct shelf *)state)->destroyed++; }
static void release_table(void *userdata) { ((struct shelf *)userdata)->released++; }

static og_incremental_store_callbacks shelf_callbacks(void) {
    og_incremental_store_callbacks c = {OG_INCREMENTAL_STORE_CALLBACKS_VERSION, &shelf, create, load_metadata, execute_fetch,
                                        execute_save, new_values, new_value_for_relationship, obtain_permanent_ids,
                                        destroy, release_table};
    return c;
}

static og_coordinator *open_shelf(og_store **store) {
    memset(&shelf, 0, sizeof shelf);
    add_row("f1", "Folder", "Inbox", 0, NULL);
    add_row("n1", "Note", "Milk", 2, "f1");
    add_row("n2", "Note", "Bread", 5, "f1");
    add_row("n3", "Note", "Eggs", 9, NULL);
    shelf_model = NN(og_model_new());
    og_entity *folder = NN(og_model_add_entity(shelf_model, "Folder", &err));
    og_entity *note = NN(og_model_add_entity(shelf_model, "Note", &err));
    NN(og_entity_add_attribute(folder, "name", OG_ATTRIBUTE_STRING, &err));
    og_property *title = NN(og_entity_add_attribute(note, "title", OG_ATTRIBUTE_STRING, &err));
    OK(og_property_set_optional(title, false, &err));
    NN(og_entity_add_attribute(note, "rank", OG_ATTRIBUTE_INTEGER64, &err));
    og_property *notes = NN(og_entity_add_relationship(folder, "notes", note, &err));
    OK(og_relationship_set_to_many(notes, true, &err));
    og_property *in = NN(og_entity_add_relationship(note, "folder", folder, &err));
    OK(og_relationship_set_inverse(notes, in, &err));
    og_coordinator *coordinator = NN(og_coordinator_new(shelf_model, &err));
    og_incremental_store_callbacks c = shelf_callbacks();
    OK(og_incremental_store_type_register("Shelf", &c, &err));
    *store = NN(og_coordinator_add_store(coordinator, "Shelf", "shelf://notes", &err));
    return coordinator;
}

static og_fetch_request *notes_request(const char *format, int result_type) {
    og_fetch_request *request = NN(og_fetch_request_new("Note", &err));
    OK(og_fetch_request_add_sort(request, "rank", true, &err));
    if (format) {
        og_predicate *p = NN(og_predicate_parse(format, NULL, 0, &err));
        OK(og_fetch_request_set_predicate(request, p, &err));
        og_predicate_release(p);
    }
    OK(og_fetch_request_set_result_type(request, result_type, &err));
    return request;
}

/* Fetches, counts and dictionaries go through execute_fetch; objects are faults until read. */
static void fetches(void) {
    og_store *store;
    og_coordinator *coordinator = open_shelf(&store);
    STREQ(og_store_type(store), "Shelf");
    STREQ(og_store_uuid(store), "0C0FFEE0-0000-4000-8000-000000000002");
    og_value *types = NN(og_store_types_registered(&err));
    bool found = false;
    for (size_t i = 0; i < og_value_count(types); i++) {
        og_value *item = NN(og_value_item_at(types, i, &err));
        const char *name = NULL;
        OK(og_value_get_string(item, &name, &err));
        found = found || strcmp(name, "Shelf") == 0;
    }
    og_value_release(types);
    CHECK(found);

    og_context *context = NN(og_context_new(coordinator, &err));
    og_fetch_request *request = notes_request("rank > 1", OG_RESULT_OBJECTS);
    /* The request reads back as it was made. */
    STREQ(og_fetch_request_entity_name(request), "Note");
    CHECK(og_fetch_request_sort_count(request) == 1);
    bool ascending = false;
    STREQ(og_fetch_request_sort_key_at(request, 0, &ascending, &err), "rank");
    CHECK(ascending);
    FAILS_NULL(og_fetch_request_sort_key_at(request, 1, &ascending, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    og_results *results = NN(og_context_fetch(context, request, &err));
    CHECK(og_results_count(results) == 3);
    CHECK(shelf.fetches == 1 && shelf.values == 0);
    char *title = NULL;
    OK(og_object_get_string(NN(og_results_object_at(results, 0, &err)), "title", &title, &err));
    STREQ(title, "Milk");
    og_free(title);
    CHECK(shelf.values == 1);
    og_results_release(results);

    size_t n = 0;
    og_fetch_request *count = notes_request("rank > 4", OG_RESULT_COUNT);
    OK(og_context_count(context, count, &n, &err));
    CHECK(n == 2 && shelf.counts == 1);
    og_fetch_request *dictionaries = notes_request(NULL, OG_RESULT_DICTIONARIES);
    og_rows *rows = NN(og_context_fetch_dictionaries(context, dictionaries, &err));
    CHECK(og_rows_count(rows) == 3 && shelf.dictionaries == 1);
    og_rows_release(rows);

    /* An ID's URI carries its reference; the coordinator reads it back. */
    char *uri = id_of(store, find("n2"));
    char expected[128];
    snprintf(expected, sizeof expected, "x-coredata://%s/Note/pn2", og_store_uuid(store));
    STREQ(uri, expected);
    char *again = NN(og_coordinator_object_id_for_uri(coordinator, uri, &err));
    STREQ(again, uri);
    og_free(again);
    CHECK(og_coordinator_object_id_for_uri(coordinator, "x-coredata://ELSEWHERE/Note/pn2", &err) == NULL && err == NULL);
    og_value *odd = NN(og_value_new_string("a key/with space", &err));
    char *spaced = NN(og_store_new_object_id(store, entity_named(context, "Note"), odd, &err));
    og_value_release(odd);
    CHECK(strstr(spaced, "/Note/pa%20key/with%20space") != NULL);
    og_free(spaced);
    og_free(uri);

    og_fetch_request_release(request);
    og_fetch_request_release(count);
    og_fetch_request_release(dictionaries);
    og_context_release(context);
    og_coordinator_release(coordinator);
    OK(og_store_type_unregister("Shelf", &err));
    CHECK(shelf.destroyed == 1 && shelf.released == 1);
    og_model_release(shelf_model);
}

/* To-manys are read once through new_value_for_relationship; to-ones come with the row when a node lacks them. */
static void relationships(void) {
    og_store *store;
    og_coordinator *coordinator = open_shelf(&store);
    og_context *context = NN(og_context_new(coordinator, &err));
    char *uri = id_of(store, find("f1"));
    og_object *folder = NN(og_context_object_for_uri(context, uri, &err));
    og_free(uri);
    og_results *notes = NN(og_object_get_related(folder, "notes", &err));
    CHECK(og_results_count(notes) == 2);
    og_results_release(notes);
    notes = NN(og_object_get_related(folder, "notes", &err));
    og_results_release(notes);
    CHECK(shelf.relationships == 1);
    uri = id_of(store, find("n3"));
    og_object *eggs = NN(og_context_object_for_uri(context, uri, &err));
    og_free(uri);
    og_object *none = folder;
    IS_NULL(og_object_get_object(eggs, "folder", &none, &err));
    CHECK(shelf.relationships == 2);
    og_context_release(context);
    og_coordinator_release(coordinator);
    OK(og_store_type_unregister("Shelf", &err));
    og_model_release(shelf_model);
}

/* A save obtains permanent IDs, then sends one request; a failed save keeps the changes. */
static void saves(void) {
    og_store *store;
    og_coordinator *coordinator = open_shelf(&store);
    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *note = NN(og_context_insert(context, "Note", &err));
    OK(og_object_set_string(note, "title", "Tea", &err));
    shelf.fail_save = true;
    FAILS(og_context_save(context, &err), 4242, "full");
    bool changed = false;
    OK(og_context_has_changes(context, &changed, &err));
    CHECK(changed);
    shelf.fail_save = false;
    OK(og_context_save(context, &err));
    CHECK(shelf.ids == 1 && shelf.saves == 2);
    char *uri = NN(og_object_id_uri(note, &err));
    CHECK(strstr(uri, "/Note/pnew1") != NULL);
    og_free(uri);
    CHECK(find("new1") != NULL && strcmp(find("new1")->title, "Tea") == 0);
    /* Nothing to save: one request all the same. */
    OK(og_context_save(context, &err));
    CHECK(shelf.saves == 3);
    OK(og_context_delete(context, note, &err));
    OK(og_context_save(context, &err));
    CHECK(find("new1") == NULL);
    og_context_release(context);
    og_coordinator_release(coordinator);
    OK(og_store_type_unregister("Shelf", &err));
    og_model_release(shelf_model);
}

/* Bad tables, names and answers are clear errors. */
static void bad_input(void) {
    og_store *store;
    og_coordinator *coordinator = open_shelf(&store);
    og_incremental_store_callbacks c = shelf_callbacks();
    FAILS(og_incremental_store_type_register("Shelf", &c, &err), OG_ERROR_INVALID_ARGUMENT, "registered");
    FAILS(og_incremental_store_type_register("SQLite", &c, &err), OG_ERROR_INVALID_ARGUMENT, "built");
    FAILS(og_store_type_unregister("Shelf", &err), OG_ERROR_INVALID_ARGUMENT, "open");
    og_incremental_store_callbacks future = c;
    future.version = 99;
    FAILS(og_incremental_store_type_register("Future", &future, &err), OG_ERROR_INVALID_ARGUMENT, "version");
    og_incremental_store_callbacks half = c;
    half.new_values = NULL;
    FAILS(og_incremental_store_type_register("Half", &half, &err), OG_ERROR_INVALID_ARGUMENT, "new_values");
    FAILS(og_incremental_store_type_register("Nothing", NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");

    /* A node without the non-optional title. */
    og_context *context = NN(og_context_new(coordinator, &err));
    shelf.omit_title = true;
    char *uri = id_of(store, find("n1"));
    FAILS_NULL(og_context_object_for_uri(context, uri, &err), OG_ERROR_INVALID_ARGUMENT, "title");
    FAILS_NULL(og_store_reference_object(store, "x-coredata://ELSEWHERE/Note/pn1", &err), OG_ERROR_INVALID_ARGUMENT, "not an object");
    og_value *wrong = og_value_new_double(1.5);
    FAILS_NULL(og_store_new_object_id(store, entity_named(context, "Note"), wrong, &err), OG_ERROR_TYPE_MISMATCH, "reference");
    og_value_release(wrong);
    og_free(uri);
    og_context_release(context);
    og_coordinator_release(coordinator);
    OK(og_store_type_unregister("Shelf", &err));
    og_model_release(shelf_model);
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : NULL;
    if (!only || strcmp(only, "fetches") == 0) fetches();
    if (!only || strcmp(only, "relationships") == 0) relationships();
    if (!only || strcmp(only, "saves") == 0) saves();
    if (!only || strcmp(only, "bad_input") == 0) bad_input();
    printf("ok\n");
    return 0;
}
