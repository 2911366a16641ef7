/* The store types beyond SQLite, one ctest per case: the in-memory store, the
 * Binary store, and an atomic store implemented through the callback table. */
#include "library_model.h"
#include "og_test_cases.h"

static og_object *insert_book(og_context *context, const char *title, int64_t medium, og_object *author) {
    og_object *book = NN(og_context_insert(context, "Book", &err));
    OK(og_object_set_string(book, "title", title, &err));
    OK(og_object_set_int64(book, "medium", medium, &err));
    if (author) OK(og_object_set_object(book, "author", author, &err));
    return book;
}

static og_coordinator *open_with(const char *type, const char *path, og_store **store) {
    og_model *model = library_model_new(false);
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    *store = NN(og_coordinator_add_store(coordinator, type, path, &err));
    return coordinator;
}

/* Titles of `entity` matching `format` (NULL: all), sorted by title, joined by ','. */
static void titles(og_context *context, const char *format, char *out, size_t size) {
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    if (format) {
        og_predicate *p = NN(og_predicate_parse(format, NULL, 0, &err));
        OK(og_fetch_request_set_predicate(request, p, &err));
        og_predicate_release(p);
    }
    OK(og_fetch_request_add_sort(request, "title", true, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    out[0] = '\0';
    for (size_t i = 0; i < og_results_count(results); i++) {
        char *title = NULL;
        OK(og_object_get_string(NN(og_results_object_at(results, i, &err)), "title", &title, &err));
        if (i) strncat(out, ",", size - strlen(out) - 1);
        strncat(out, title, size - strlen(out) - 1);
        og_free(title);
    }
    og_results_release(results);
    og_fetch_request_release(request);
}

static void in_memory(void) {
    og_store *store;
    og_coordinator *coordinator = open_with("InMemory", NULL, &store);
    STREQ(og_store_type(store), "InMemory");
    STREQ(og_store_path(store), "");
    INTEQ(strlen(NN(og_store_uuid(store))), 36);

    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *pratchett = NN(og_context_insert(context, "Author", &err));
    OK(og_object_set_string(pratchett, "name", "Terry Pratchett", &err));
    insert_book(context, "Mort", 1987, pratchett);
    insert_book(context, "Sourcery", 1988, pratchett);
    insert_book(context, "Coraline", 2002, NULL);
    OK(og_context_save(context, &err));

    /* A second context reads what the store keeps, filtered and sorted in memory. */
    og_context *fresh = NN(og_context_new(coordinator, &err));
    char buffer[256];
    titles(fresh, NULL, buffer, sizeof buffer);
    STREQ(buffer, "Coraline,Mort,Sourcery");
    titles(fresh, "medium < 2000 AND author.name BEGINSWITH 'Terry'", buffer, sizeof buffer);
    STREQ(buffer, "Mort,Sourcery");
    og_fetch_request *all = NN(og_fetch_request_new("Author", &err));
    og_results *authors = NN(og_context_fetch(fresh, all, &err));
    INTEQ(og_results_count(authors), 1);
    og_results *books = NN(og_object_get_related(NN(og_results_object_at(authors, 0, &err)), "books", &err));
    INTEQ(og_results_count(books), 2);
    og_results_release(books);

    /* Deleting the author cascades to its books; the save lands whole. */
    OK(og_context_delete(fresh, NN(og_results_object_at(authors, 0, &err)), &err));
    OK(og_context_save(fresh, &err));
    og_results_release(authors);
    size_t count = 0;
    OK(og_context_count(context, all, &count, &err));
    INTEQ(count, 0);
    og_fetch_request_release(all);
    og_context_release(fresh);
    og_context_release(context);

    /* An unknown type names the known ones; a file store needs a path. */
    FAILS_NULL(og_coordinator_add_store(coordinator, "SQLite", NULL, &err), OG_ERROR_INVALID_ARGUMENT, "path");
    FAILS_NULL(og_coordinator_add_store(coordinator, "Nope", NULL, &err), OG_ERROR_STORE_INVALID_TYPE, "InMemory");
    og_coordinator_release(coordinator);
}

/* Writes two authors' books, saves; returns the coordinator. */
static void fill(og_coordinator *coordinator) {
    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *pratchett = NN(og_context_insert(context, "Author", &err));
    OK(og_object_set_string(pratchett, "name", "Terry Pratchett", &err));
    og_object *mort = insert_book(context, "Mort", 1987, pratchett);
    og_value *v = NN(og_value_new_decimal("12345.678", &err));
    OK(og_object_set_value(mort, "price", v, &err));
    og_value_release(v);
    OK(og_object_set_date(mort, "published", 567993600.5, &err));
    OK(og_object_set_data(mort, "cover", "\x89PNG\x00", 5, &err));
    insert_book(context, "Sourcery", 1988, pratchett);
    OK(og_context_save(context, &err));
    og_context_release(context);
}

/* Reads back what fill wrote, through a fresh context. */
static void check_filled(og_coordinator *coordinator) {
    og_context *context = NN(og_context_new(coordinator, &err));
    char buffer[256];
    titles(context, "author.name == 'Terry Pratchett'", buffer, sizeof buffer);
    STREQ(buffer, "Mort,Sourcery");
    titles(context, "price > 100 AND medium < 1988", buffer, sizeof buffer);
    STREQ(buffer, "Mort");
    og_context_release(context);
}

static void binary(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "books.binary");
    og_store *store;
    og_coordinator *coordinator = open_with("Binary", path, &store);
    STREQ(og_store_type(store), "Binary");
    char uuid[64];
    snprintf(uuid, sizeof uuid, "%s", NN(og_store_uuid(store)));
    fill(coordinator);
    check_filled(coordinator);
    og_coordinator_release(coordinator);

    /* The file starts with its signature and format version. */
    FILE *f = fopen(path, "rb");
    unsigned char head[12];
    CHECK(f && fread(head, 1, 12, f) == 12);
    fclose(f);
    CHECK(memcmp(head, "OGBINARY\0\0\0\1", 12) == 0);

    /* Reopened by a new coordinator: same UUID, same records. */
    coordinator = open_with("Binary", path, &store);
    STREQ(og_store_uuid(store), uuid);
    check_filled(coordinator);
    og_coordinator_release(coordinator);

    /* A file that is not a Binary store is refused. */
    char *bad = og_t_path(dir, "bad.binary");
    og_t_write_file(bad, "SQLite format 3 or anything else");
    og_model *model = library_model_new(false);
    coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    FAILS_NULL(og_coordinator_add_store(coordinator, "Binary", bad, &err), OG_ERROR_STORE_INVALID_TYPE, "OGBINARY");
    og_coordinator_release(coordinator);
    free(bad);
    free(path);
    og_t_remove_tree(dir);
}

/* A C atomic store that keeps its document in memory. */
struct notebook {
    uint8_t *bytes;
    size_t length;
    int loads, saves, released;
    bool fail_save;
};

static int notebook_load(void *userdata, const char *path, uint8_t **bytes, size_t *length) {
    struct notebook *n = userdata;
    CHECK(strcmp(path, "shelf") == 0);
    n->loads++;
    if (n->bytes == NULL) return 1;
    *bytes = malloc(n->length);
    memcpy(*bytes, n->bytes, n->length);
    *length = n->length;
    return 0;
}

static int notebook_save(void *userdata, const char *path, const uint8_t *bytes, size_t length) {
    struct notebook *n = userdata;
    (void)path;
    if (n->fail_save) return 28;
    free(n->bytes);
    n->bytes = malloc(length);
    memcpy(n->bytes, bytes, length);
    n->length = length;
    n->saves++;
    return 0;
}

static void notebook_release(void *userdata) { ((struct notebook *)userdata)->released++; }

static void atomic_callbacks(void) {
    struct notebook n = {0};
    og_atomic_store_callbacks callbacks = {&n, notebook_load, notebook_save, notebook_release};
    OK(og_atomic_store_type_register("Notebook", &callbacks, &err));
    FAILS(og_atomic_store_type_register("SQLite", &callbacks, &err), OG_ERROR_INVALID_ARGUMENT, "built-in");
    og_atomic_store_callbacks half = {&n, notebook_load, NULL, NULL};
    FAILS(og_atomic_store_type_register("Half", &half, &err), OG_ERROR_INVALID_ARGUMENT, "save");

    og_store *store;
    og_coordinator *coordinator = open_with("Notebook", "shelf", &store);
    STREQ(og_store_type(store), "Notebook");
    INTEQ(n.loads, 1);
    fill(coordinator);
    INTEQ(n.saves, 1);
    CHECK(n.length > 12 && memcmp(n.bytes, "OGBINARY", 8) == 0);

    /* A save the callback refuses changes nothing. */
    n.fail_save = true;
    og_context *context = NN(og_context_new(coordinator, &err));
    insert_book(context, "Lost", 2000, NULL);
    FAILS(og_context_save(context, &err), OG_ERROR_STORE_SAVE, "Notebook");
    og_context_release(context);
    n.fail_save = false;
    og_coordinator_release(coordinator);

    /* Another coordinator loads the document back. */
    coordinator = open_with("Notebook", "shelf", &store);
    INTEQ(n.loads, 2);
    check_filled(coordinator);
    og_context *fresh = NN(og_context_new(coordinator, &err));
    char buffer[256];
    titles(fresh, NULL, buffer, sizeof buffer);
    STREQ(buffer, "Mort,Sourcery");
    og_context_release(fresh);

    /* Unregistered: no new stores; the table is released once none is open. */
    OK(og_store_type_unregister("Notebook", &err));
    FAILS(og_store_type_unregister("Notebook", &err), OG_ERROR_STORE_INVALID_TYPE, "Notebook");
    FAILS(og_store_type_unregister("Binary", &err), OG_ERROR_INVALID_ARGUMENT, "built-in");
    FAILS_NULL(og_coordinator_add_store(coordinator, "Notebook", "shelf", &err), OG_ERROR_STORE_INVALID_TYPE, "Notebook");
    INTEQ(n.released, 0);
    og_coordinator_release(coordinator);
    INTEQ(n.released, 1);
    free(n.bytes);
}

/* Removing stores, read-only stores, URIs back to objects, metadata without a stack. */
static void coordinator(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "meta.sqlite");
    og_store *store;
    og_coordinator *c = open_with("SQLite", path, &store);
    char uuid[64];
    snprintf(uuid, sizeof uuid, "%s", NN(og_store_uuid(store)));
    og_context *context = NN(og_context_new(c, &err));
    og_object *mort = insert_book(context, "Mort", 1987, NULL);
    OK(og_context_save(context, &err));
    char *uri = NN(og_object_id_uri(mort, &err));

    /* A URI finds its object in another context; an unknown store gives NULL without an error. */
    og_context *fresh = NN(og_context_new(c, &err));
    og_object *found = NN(og_context_object_for_uri(fresh, uri, &err));
    char *title = NULL;
    OK(og_object_get_string(found, "title", &title, &err));
    STREQ(title, "Mort");
    og_free(title);
    CHECK(og_context_object_for_uri(fresh, "x-coredata://NOSUCHSTORE/Book/p1", &err) == NULL);
    CHECK(err == NULL);

    /* Read-only: the save is refused and nothing is written. */
    bool read_only = true;
    OK(og_coordinator_is_store_read_only(c, store, &read_only, &err));
    CHECK(!read_only);
    OK(og_coordinator_set_store_read_only(c, store, true, &err));
    OK(og_coordinator_is_store_read_only(c, store, &read_only, &err));
    CHECK(read_only);
    OK(og_object_set_string(found, "title", "Reaper Man", &err));
    FAILS(og_context_save(fresh, &err), OG_ERROR_STORE_OPERATION, "read-only");
    OK(og_coordinator_set_store_read_only(c, store, false, &err));
    OK(og_context_save(fresh, &err));
    og_context_release(fresh);
    og_context_release(context);

    /* Removed: no store left, the URI resolves to nothing. */
    OK(og_coordinator_remove_store(c, store, &err));
    INTEQ(og_coordinator_store_count(c), 0);
    FAILS(og_coordinator_remove_store(c, store, &err), OG_ERROR_INVALID_ARGUMENT, "attached");
    context = NN(og_context_new(c, &err));
    CHECK(og_context_object_for_uri(context, uri, &err) == NULL);
    og_context_release(context);
    og_coordinator_release(c);
    og_free(uri);

    /* Metadata without a stack. */
    char *value = NN(og_store_file_metadata_string(NULL, path, "NSStoreUUID", &err));
    STREQ(value, uuid);
    og_free(value);
    value = NN(og_store_file_metadata_string("SQLite", path, "NSStoreType", &err));
    STREQ(value, "SQLite");
    og_free(value);
    CHECK(og_store_file_metadata_string(NULL, path, "Owner", &err) == NULL);
    CHECK(err == NULL);
    OK(og_store_file_set_metadata_string(NULL, path, "Owner", "library", &err));
    value = NN(og_store_file_metadata_string(NULL, path, "Owner", &err));
    STREQ(value, "library");
    og_free(value);
    FAILS_NULL(og_store_file_metadata_string("Binary", path, "Owner", &err), OG_ERROR_STORE_TYPE_MISMATCH, "SQLite");
    char *missing = og_t_path(dir, "missing.sqlite");
    FAILS(og_store_file_set_metadata_string(NULL, missing, "Owner", "x", &err), OG_ERROR_STORE_OPEN, "store");
    free(missing);

    /* The store still opens with its data and its new metadata. */
    c = open_with("SQLite", path, &store);
    STREQ(og_store_uuid(store), uuid);
    context = NN(og_context_new(c, &err));
    char buffer[64];
    titles(context, NULL, buffer, sizeof buffer);
    STREQ(buffer, "Reaper Man");
    og_context_release(context);
    og_coordinator_release(c);
    free(path);
    og_t_remove_tree(dir);
}

/* The value of `key` in a dictionary value: NEW, or NULL when absent. */
static og_value *dict_get(const og_value *d, const char *key) {
    for (size_t i = 0; i < og_value_count(d); i++) {
        const char *k = og_value_key_at(d, i, &err);
        if (k && strcmp(k, key) == 0) return NN(og_value_item_at(d, i, &err));
    }
    return NULL;
}

/* A store file's whole metadata, read and written without adding the store. */
static void file_metadata(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "meta.sqlite");
    og_store *store;
    og_coordinator *c = open_with("SQLite", path, &store);
    char *uuid = strdup(og_store_uuid(store));
    og_coordinator_release(c);

    og_value *m = NN(og_store_file_metadata(NULL, path, NULL, &err));
    og_value *type = NN(dict_get(m, "NSStoreType"));
    const char *text;
    OK(og_value_get_string(type, &text, &err));
    STREQ(text, "SQLite");
    og_value_release(type);
    og_value *hashes = NN(dict_get(m, "NSStoreModelVersionHashes"));
    CHECK(og_value_count(hashes) > 0);
    og_value *first = NN(og_value_item_at(hashes, 0, &err));
    INTEQ(og_value_type_of(first), OG_VALUE_DATA);
    og_value_release(first);
    og_value_release(hashes);
    og_value_release(m);

    /* The whole dictionary is replaced; the type and UUID stay. */
    og_value *owner = NN(og_value_new_string("library", &err));
    const char *keys[] = {"Owner"};
    og_value *dict = NN(og_value_new_dictionary(keys, &owner, 1, &err));
    og_value_release(owner);
    OK(og_store_file_set_metadata("SQLite", path, dict, NULL, &err));
    char *value = NN(og_store_file_metadata_string(NULL, path, "Owner", &err));
    STREQ(value, "library");
    og_free(value);
    value = NN(og_store_file_metadata_string(NULL, path, "NSStoreUUID", &err));
    STREQ(value, uuid);
    og_free(value);
    CHECK(og_store_file_metadata_string(NULL, path, "_NSAutoVacuumLevel", &err) == NULL);

    /* Errors: read-only (by option), another type, no store, no metadata. */
    og_value *yes = og_value_new_bool(true);
    const char *option_keys[] = {"NSReadOnlyPersistentStoreOption"};
    og_value *options = NN(og_value_new_dictionary(option_keys, &yes, 1, &err));
    og_value_release(yes);
    FAILS(og_store_file_set_metadata(NULL, path, dict, options, &err), OG_ERROR_STORE_OPERATION, "read-only");
    m = NN(og_store_file_metadata(NULL, path, options, &err));
    og_value_release(m);
    FAILS_NULL(og_store_file_metadata("Binary", path, NULL, &err), OG_ERROR_STORE_TYPE_MISMATCH, "SQLite");
    char *missing = og_t_path(dir, "missing.sqlite");
    FAILS_NULL(og_store_file_metadata(NULL, missing, NULL, &err), OG_ERROR_STORE_OPEN, "store");
    FAILS(og_store_file_set_metadata(NULL, missing, dict, NULL, &err), OG_ERROR_STORE_OPEN, "store");
    free(missing);
    FAILS(og_store_file_set_metadata(NULL, path, NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    og_value_release(options);
    og_value_release(dict);
    free(uuid);
    free(path);
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"coordinator", coordinator},
    {"in_memory", in_memory},
    {"binary", binary},
    {"atomic_callbacks", atomic_callbacks},
    {"file_metadata", file_metadata},
};

int main(int argc, char **argv) { return OG_T_RUN(cases, argc, argv); }
