/* incremental_csv.c: an incremental store whose objects live in a CSV file
 * ("id,title,year" per line). The library asks it for the books a fetch
 * matches, for one book's values when a fault fires, and writes each save
 * through it; the file is rewritten whole. Usage: incremental_csv [file] */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <objectgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static og_error *err; /* a failing call leaves its error here */

static void fail(const char *call) {
    fprintf(stderr, "%s failed: %s (code %lld)\n", call, err ? og_error_message(err) : "", (long long)og_error_code(err));
    exit(1);
}
static void *need(const void *handle, const char *call) {
    if (handle == NULL) fail(call);
    return (void *)handle;
}
#define NEED(call) need((call), #call)
#define TRY(call) do { if ((call) != OG_OK) fail(#call); } while (0)

/* The file's rows, read when the store is added. */
struct book { char id[32], title[96]; long year; };
struct csv { char path[512]; struct book books[64]; int count; og_entity *entity; };

static void *create(void *userdata, const char *path, const char *configuration, og_error **error) {
    (void)configuration;
    struct csv *csv = userdata;
    snprintf(csv->path, sizeof csv->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (f == NULL) { *error = og_error_new(134080, "cannot open the CSV file", NULL); return NULL; }
    struct book b;
    while (csv->count < 64 && fscanf(f, " %31[^,],%95[^,],%ld", b.id, b.title, &b.year) == 3) csv->books[csv->count++] = b;
    fclose(f);
    return csv;
}

static og_value *load_metadata(void *state, og_error **error) {
    (void)state;
    const char *keys[] = {"NSStoreType", "NSStoreUUID"};
    og_value *values[] = {og_value_new_string("CSV", error), og_value_new_string("C5F1E000-0000-4000-8000-00000000C5F1", error)};
    og_value *metadata = og_value_new_dictionary(keys, values, 2, error);
    og_value_release(values[0]);
    og_value_release(values[1]);
    return metadata;
}

static struct book *find(struct csv *csv, og_store *store, const char *object_id) {
    og_value *ref = og_store_reference_object(store, object_id, &err);
    const char *id = NULL;
    if (ref == NULL || og_value_get_string(ref, &id, &err) != OG_OK) fail("og_store_reference_object");
    struct book *found = NULL;
    for (int i = 0; i < csv->count && !found; i++) if (strcmp(csv->books[i].id, id) == 0) found = &csv->books[i];
    og_value_release(ref);
    return found;
}

static og_status add_id(og_store *store, struct csv *csv, const char *id, og_incremental_result *result, og_error **error) {
    og_value *ref = og_value_new_string(id, error);
    char *uri = og_store_new_object_id(store, csv->entity, ref, error);
    og_value_release(ref);
    if (uri == NULL) return OG_ERROR;
    og_status s = og_incremental_result_add_object_id(result, uri, error);
    og_free(uri);
    return s;
}

/* Every book the predicate matches (the order of the file). */
static og_status execute_fetch(void *state, og_store *store, const og_fetch_request *request, og_context *context,
                               og_incremental_result *result, og_error **error) {
    (void)context;
    struct csv *csv = state;
    og_predicate *predicate = og_fetch_request_predicate(request, error);
    int64_t matched = 0;
    for (int i = 0; i < csv->count; i++) {
        bool match = true;
        if (predicate) {
            const char *keys[] = {"title", "year"};
            og_value *values[] = {og_value_new_string(csv->books[i].title, error), og_value_new_int64(csv->books[i].year)};
            og_value *row = og_value_new_dictionary(keys, values, 2, error);
            og_status s = og_predicate_evaluate(predicate, row, NULL, NULL, 0, &match, error);
            og_value_release(values[0]);
            og_value_release(values[1]);
            og_value_release(row);
            if (s != OG_OK) { og_predicate_release(predicate); return OG_ERROR; }
        }
        if (!match) continue;
        matched++;
        if (og_fetch_request_result_type(request) != OG_RESULT_COUNT && add_id(store, csv, csv->books[i].id, result, error) != OG_OK) {
            og_predicate_release(predicate);
            return OG_ERROR;
        }
    }
    og_predicate_release(predicate);
    if (og_fetch_request_result_type(request) == OG_RESULT_COUNT) return og_incremental_result_set_count(result, matched, error);
    return OG_OK;
}

/* One book's values, when its fault fires. */
static og_status new_values(void *state, og_store *store, const char *object_id, og_context *context,
                            og_incremental_node *node, og_error **error) {
    (void)context;
    struct book *b = find(state, store, object_id);
    if (b == NULL) { *error = og_error_new(133000, "the book is no longer in the file", NULL); return OG_ERROR; }
    og_value *title = og_value_new_string(b->title, error), *year = og_value_new_int64(b->year);
    og_status s = og_incremental_node_set_value(node, "title", title, error);
    if (s == OG_OK) s = og_incremental_node_set_value(node, "year", year, error);
    og_value_release(title);
    og_value_release(year);
    return s;
}

/* New books are named by the next free id. */
static og_status obtain_permanent_ids(void *state, og_store *store, og_object *const *objects, size_t count,
                                      og_incremental_result *result, og_error **error) {
    (void)objects;
    struct csv *csv = state;
    for (size_t i = 0; i < count; i++) {
        char id[32];
        snprintf(id, sizeof id, "b%d", csv->count + (int)i + 1);
        if (add_id(store, csv, id, result, error) != OG_OK) return OG_ERROR;
    }
    return OG_OK;
}

/* Applies the save's inserts and updates, then rewrites the file. */
static og_status execute_save(void *state, og_store *store, const og_save_changes_request *request, og_context *context,
                              og_error **error) {
    (void)context;
    struct csv *csv = state;
    og_object_set sets[] = {OG_OBJECTS_INSERTED, OG_OBJECTS_UPDATED};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < og_save_changes_request_count(request, sets[k]); i++) {
            og_object *o = og_save_changes_request_object_at(request, sets[k], i, error);
            char *uri = o ? og_object_id_uri(o, error) : NULL;
            if (uri == NULL) return OG_ERROR;
            struct book *b = find(csv, store, uri);
            if (b == NULL) {
                b = &csv->books[csv->count++];
                og_value *ref = og_store_reference_object(store, uri, error);
                const char *id = NULL;
                og_value_get_string(ref, &id, error);
                snprintf(b->id, sizeof b->id, "%s", id);
                og_value_release(ref);
            }
            og_free(uri);
            char *title = NULL;
            int64_t year = 0;
            if (og_object_get_string(o, "title", &title, error) == OG_ERROR) return OG_ERROR;
            if (og_object_get_int64(o, "year", &year, error) == OG_ERROR) return OG_ERROR;
            snprintf(b->title, sizeof b->title, "%s", title ? title : "");
            b->year = (long)year;
            og_free(title);
        }
    }
    FILE *f = fopen(csv->path, "w");
    if (f == NULL) { *error = og_error_new(134030, "cannot write the CSV file", NULL); return OG_ERROR; }
    for (int i = 0; i < csv->count; i++) fprintf(f, "%s,%s,%ld\n", csv->books[i].id, csv->books[i].title, csv->books[i].year);
    fclose(f);
    return OG_OK;
}

int main(int argc, char **argv) {
    char dir[] = "/tmp/og-csv-XXXXXX", path[600];
    if (argc > 1) snprintf(path, sizeof path, "%s", argv[1]);
    else snprintf(path, sizeof path, "%s/books.csv", (char *)NEED(mkdtemp(dir)));
    FILE *f = fopen(path, "w");
    fputs("b1,A Wizard of Earthsea,1968\nb2,The Lathe of Heaven,1971\nb3,The Dispossessed,1974\n", f);
    fclose(f);

    og_model *model = NEED(og_model_new());
    og_entity *book = NEED(og_model_add_entity(model, "Book", &err));
    NEED(og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &err));
    NEED(og_entity_add_attribute(book, "year", OG_ATTRIBUTE_INTEGER64, &err));
    static struct csv csv;
    og_incremental_store_callbacks callbacks = {OG_INCREMENTAL_STORE_CALLBACKS_VERSION, &csv, create, load_metadata,
                                                execute_fetch, execute_save, new_values, NULL, obtain_permanent_ids,
                                                NULL, NULL};
    TRY(og_incremental_store_type_register("CSV", &callbacks, &err));
    og_coordinator *coordinator = NEED(og_coordinator_new(model, &err));
    csv.entity = book; /* lent by the model, which stays until the end */
    NEED(og_coordinator_add_store(coordinator, "CSV", path, &err));
    og_context *context = NEED(og_context_new(coordinator, &err));

    og_fetch_request *request = NEED(og_fetch_request_new("Book", &err));
    og_predicate *after = NEED(og_predicate_parse("year > 1970", NULL, 0, &err));
    TRY(og_fetch_request_set_predicate(request, after, &err));
    og_results *found = NEED(og_context_fetch(context, request, &err));
    for (size_t i = 0; i < og_results_count(found); i++) {
        og_object *o = NEED(og_results_object_at(found, i, &err));
        char *title = NULL;
        int64_t year = 0;
        TRY(og_object_get_string(o, "title", &title, &err));
        TRY(og_object_get_int64(o, "year", &year, &err));
        printf("%lld  %s\n", (long long)year, title);
        og_free(title);
    }

    og_object *new_book = NEED(og_context_insert(context, "Book", &err));
    TRY(og_object_set_string(new_book, "title", "Always Coming Home", &err));
    TRY(og_object_set_int64(new_book, "year", 1985, &err));
    TRY(og_context_save(context, &err));
    char line[160];
    f = fopen(path, "r");
    while (fgets(line, sizeof line, f)) printf("file: %s", line);
    fclose(f);

    og_results_release(found);
    og_predicate_release(after);
    og_fetch_request_release(request);
    og_context_release(context);
    og_coordinator_release(coordinator);
    og_model_release(model);
    TRY(og_store_type_unregister("CSV", &err));
    if (argc < 2) { unlink(path); rmdir(dir); }
    return 0;
}
