/* Batch insert, update and delete through the C ABI (og_context_batch_*): one
 * transaction each, straight to the SQLite store, without objects. */
#include "library_model.h"
#include "og_test_cases.h"

#include "og_test_sqlite.h"

static og_coordinator *coordinator;
static og_context *ctx;
static char *dir, *path;

static void setup(void) {
    dir = og_t_tempdir();
    path = og_t_path(dir, "batch.sqlite");
    coordinator = library_open(path, false, NULL);
    ctx = NN(og_context_new(coordinator, &err));
}

static void teardown(void) {
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

/* A row {"title": title, "medium": medium}. */
static og_value *row(const char *title, int64_t medium) {
    const char *keys[] = {"title", "medium"};
    og_value *values[] = {NN(og_value_new_string(title, &err)), og_value_new_int64(medium)};
    og_value *d = NN(og_value_new_dictionary(keys, values, 2, &err));
    og_value_release(values[0]);
    og_value_release(values[1]);
    return d;
}

static void insert(void) {
    setup();
    og_value *rows[] = {row("Mort", 1), row("Eric", 2)};
    og_value *array = NN(og_value_new_array(rows, 2, &err));
    size_t n = 0;
    og_object_ids *ids = NULL;
    OK(og_context_batch_insert(ctx, "Book", array, OG_BATCH_RESULT_OBJECT_IDS, &n, &ids, &err));
    INTEQ(n, 2);
    INTEQ(og_object_ids_count(ids), 2);
    bool changes = true;
    OK(og_context_has_changes(ctx, &changes, &err));
    CHECK(!changes);
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK WHERE ZSMALL = 7"), 2); /* the model's default */
    og_object_ids_release(ids);
    /* Status only: no IDs asked for. */
    OK(og_context_batch_insert(ctx, "Book", array, OG_BATCH_RESULT_STATUS_ONLY, NULL, NULL, &err));
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK"), 4);
    /* A bad row fails the batch, naming it, and nothing is written. */
    const char *bad_keys[] = {"colour"};
    og_value *bad_values[] = {NN(og_value_new_string("red", &err))};
    og_value *bad = NN(og_value_new_dictionary(bad_keys, bad_values, 1, &err));
    og_value *mixed_rows[] = {rows[0], bad};
    og_value *mixed = NN(og_value_new_array(mixed_rows, 2, &err));
    FAILS(og_context_batch_insert(ctx, "Book", mixed, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_UNKNOWN_KEY, "row 1");
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK"), 4);
    FAILS(og_context_batch_insert(ctx, "Book", array, OG_BATCH_RESULT_OBJECT_IDS, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "ids");
    FAILS(og_context_batch_insert(ctx, "Book", array, (og_batch_result_type)9, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "og_batch_result_type");
    FAILS(og_context_batch_insert(ctx, "Book", rows[0], OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_TYPE_MISMATCH, "ARRAY");
    og_value_release(mixed);
    og_value_release(bad);
    og_value_release(bad_values[0]);
    og_value_release(array);
    og_value_release(rows[0]);
    og_value_release(rows[1]);
    teardown();
}

static int produced;
static og_value *next_row(void *user, og_error **error) {
    (void)error;
    int limit = *(int *)user;
    if (produced >= limit) return NULL;
    produced++;
    return row("Generated", produced);
}

static og_value *failing_row(void *user, og_error **error) {
    (void)user;
    *error = og_error_new(OG_ERROR_INVALID_ARGUMENT, "the source ran dry", NULL);
    return NULL;
}

static void insert_rows(void) {
    setup();
    int limit = 500;
    produced = 0;
    size_t n = 0;
    OK(og_context_batch_insert_rows(ctx, "Book", next_row, &limit, OG_BATCH_RESULT_COUNT, &n, NULL, &err));
    INTEQ(n, 500);
    INTEQ(og_t_sql_int(path, "SELECT SUM(ZMEDIUM) FROM ZBOOK"), 500 * 501 / 2);
    FAILS(og_context_batch_insert_rows(ctx, "Book", failing_row, NULL, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "ran dry");
    FAILS(og_context_batch_insert_rows(ctx, "Book", NULL, NULL, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK"), 500);
    teardown();
}

/* Rows by column: no og_value per row; ABSENT takes the default, NIL sets nil. */
static void insert_columns(void) {
    setup();
    const char *titles[] = {"Mort", "Eric", "Jingo"};
    int64_t mediums[] = {1, 2, 3};
    uint8_t states[] = {OG_COLUMN_VALUE, OG_COLUMN_ABSENT, OG_COLUMN_NIL};
    double ratios[] = {0.25, 0.75, 1.5};
    og_batch_column columns[] = {
        {"title", OG_COLUMN_TEXT, titles, NULL},
        {"medium", OG_COLUMN_INT64, mediums, states},
        {"ratio", OG_COLUMN_DOUBLE, ratios, NULL},
    };
    size_t n = 0;
    og_object_ids *ids = NULL;
    OK(og_context_batch_insert_columns(ctx, "Book", columns, 3, 3, OG_BATCH_RESULT_OBJECT_IDS, &n, &ids, &err));
    INTEQ(n, 3);
    INTEQ(og_object_ids_count(ids), 3);
    og_object_ids_release(ids);
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK WHERE ZMEDIUM IS NULL"), 2); /* absent (no default) and nil */
    INTEQ(og_t_sql_int(path, "SELECT SUM(ZMEDIUM) FROM ZBOOK"), 1);
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK WHERE ZRATIO = 1.5 AND ZTITLE = 'Jingo'"), 1);
    /* Numbers in every row: bound straight from the arrays. */
    int64_t more_mediums[] = {10, 20, 30};
    og_batch_column numbers[] = {{"title", OG_COLUMN_TEXT, titles, NULL}, {"medium", OG_COLUMN_INT64, more_mediums, NULL},
                                 {"ratio", OG_COLUMN_DOUBLE, ratios, NULL}};
    OK(og_context_batch_insert_columns(ctx, "Book", numbers + 1, 2, 3, OG_BATCH_RESULT_COUNT, &n, NULL, &err));
    INTEQ(n, 3);
    INTEQ(og_t_sql_int(path, "SELECT SUM(ZMEDIUM) FROM ZBOOK WHERE ZTITLE = 'Untitled' AND ZSMALL = 7"), 60); /* defaults bound once */
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK WHERE ZRATIO = 1.5"), 2);
    INTEQ(og_t_sql_int(path, "DELETE FROM ZBOOK WHERE ZTITLE = 'Untitled' RETURNING 0"), 0);
    /* A double column into an integer attribute, an unknown attribute, a bad type: nothing written. */
    og_batch_column wrong[] = {{"medium", OG_COLUMN_DOUBLE, ratios, NULL}};
    FAILS(og_context_batch_insert_columns(ctx, "Book", wrong, 1, 3, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_TYPE_MISMATCH, "row 0");
    og_batch_column unknown[] = {{"colour", OG_COLUMN_TEXT, titles, NULL}};
    FAILS(og_context_batch_insert_columns(ctx, "Book", unknown, 1, 3, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_UNKNOWN_KEY, "colour");
    og_batch_column odd[] = {{"title", (og_column_type)7, titles, NULL}};
    FAILS(og_context_batch_insert_columns(ctx, "Book", odd, 1, 3, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "og_column_type");
    og_batch_column twice[] = {{"title", OG_COLUMN_TEXT, titles, NULL}, {"title", OG_COLUMN_TEXT, titles, NULL}};
    FAILS(og_context_batch_insert_columns(ctx, "Book", twice, 2, 3, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "twice");
    og_batch_column empty[] = {{"title", OG_COLUMN_TEXT, NULL, NULL}};
    FAILS(og_context_batch_insert_columns(ctx, "Book", empty, 1, 3, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS(og_context_batch_insert_columns(ctx, "Book", NULL, 1, 3, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK"), 3);
    teardown();
}

static void update_and_delete(void) {
    setup();
    og_value *rows[] = {row("Mort", 10), row("Eric", 20), row("Jingo", 30)};
    og_value *array = NN(og_value_new_array(rows, 3, &err));
    OK(og_context_batch_insert(ctx, "Book", array, OG_BATCH_RESULT_STATUS_ONLY, NULL, NULL, &err));
    og_predicate *p = NN(og_predicate_parse("medium >= 20", NULL, 0, &err));
    og_value *changed = row("Renamed", 99);
    size_t n = 0;
    og_object_ids *ids = NULL;
    OK(og_context_batch_update(ctx, "Book", p, changed, OG_BATCH_RESULT_OBJECT_IDS, &n, &ids, &err));
    INTEQ(n, 2);
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK WHERE ZTITLE = 'Renamed' AND ZMEDIUM = 99 AND Z_OPT = 2"), 2);
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    og_predicate *mort = NN(og_predicate_parse("title == 'Mort'", NULL, 0, &err));
    OK(og_fetch_request_set_predicate(r, mort, &err));
    OK(og_context_batch_delete(ctx, r, OG_BATCH_RESULT_COUNT, &n, NULL, &err));
    INTEQ(n, 1);
    const char *uris[2] = {NN(og_object_ids_uri_at(ids, 0, &err)), NN(og_object_ids_uri_at(ids, 1, &err))};
    OK(og_context_batch_delete_objects(ctx, uris, 2, OG_BATCH_RESULT_COUNT, &n, NULL, &err));
    INTEQ(n, 2);
    const char *stranger[1] = {"x-coredata://no-such-store/Book/p1"};
    FAILS(og_context_batch_delete_objects(ctx, stranger, 1, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "names no object");
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZBOOK"), 0);
    og_object_ids_release(ids);
    og_fetch_request_release(r);
    og_predicate_release(mort);
    og_predicate_release(p);
    og_value_release(changed);
    og_value_release(array);
    for (int i = 0; i < 3; i++) og_value_release(rows[i]);
    teardown();
}

static void other_stores(void) {
    og_model *model = library_model_new(false);
    og_coordinator *memory = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(memory, "InMemory", "", &err));
    og_context *c = NN(og_context_new(memory, &err));
    og_value *one = row("Mort", 1);
    og_value *array = NN(og_value_new_array(&one, 1, &err));
    FAILS(og_context_batch_insert(c, "Book", array, OG_BATCH_RESULT_COUNT, NULL, NULL, &err), OG_ERROR_STORE_UNSUPPORTED_REQUEST, "SQLite");
    FAILS(og_context_batch_insert(NULL, "Book", array, OG_BATCH_RESULT_COUNT, NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    og_value_release(array);
    og_value_release(one);
    og_context_release(c);
    og_coordinator_release(memory);
    og_model_release(model);
}

/* Derived attributes: the SQLite store computes them when it writes a row (a batch
 * insert too); models with them are refused by the in-memory store. */
static void derived_attributes(void) {
    og_model *model = library_model_new(false);
    og_entity *book = NN(og_model_entity(model, "Book", &err));
    og_property *loud = NN(og_entity_add_attribute(book, "loudTitle", OG_ATTRIBUTE_STRING, &err));
    OK(og_attribute_set_derivation_expression(loud, "uppercase:(title)", &err));
    char *d = og_t_tempdir();
    char *p = og_t_path(d, "derived.sqlite");
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(c, "SQLite", p, &err));
    og_context *x = NN(og_context_new(c, &err));
    og_value *one = row("Mort", 1);
    og_value *array = NN(og_value_new_array(&one, 1, &err));
    OK(og_context_batch_insert(x, "Book", array, OG_BATCH_RESULT_STATUS_ONLY, NULL, NULL, &err));
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    og_predicate *pred = NN(og_predicate_parse("loudTitle == 'MORT'", NULL, 0, &err));
    OK(og_fetch_request_set_predicate(r, pred, &err));
    size_t n = 0;
    OK(og_context_count(x, r, &n, &err));
    INTEQ(n, 1);
    og_coordinator *memory = NN(og_coordinator_new(model, &err));
    FAILS_NULL(og_coordinator_add_store(memory, "InMemory", "", &err), OG_ERROR_INVALID_ARGUMENT, "derived");
    og_predicate_release(pred);
    og_fetch_request_release(r);
    og_value_release(array);
    og_value_release(one);
    og_context_release(x);
    og_coordinator_release(memory);
    og_coordinator_release(c);
    og_model_release(model);
    free(p);
    og_t_remove_tree(d);
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"insert", insert}, {"insert_rows", insert_rows}, {"insert_columns", insert_columns}, {"update_and_delete", update_and_delete}, {"other_stores", other_stores},
        {"derived_attributes", derived_attributes},
    };
    return OG_T_RUN(cases, argc, argv);
}
