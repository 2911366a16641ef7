/* Fetch result types through the C ABI: object IDs, dictionaries (properties,
 * to-ones as object IDs, expressions, distinct, group by, having), counts, and
 * the errors of each call. */
#include "library_model.h"
#include "og_test_cases.h"

/* Two authors and five books; Ann wrote three. Returns the stack's context. */
static og_context *filled(char **dir_out, og_coordinator **coordinator_out) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "results.sqlite");
    og_coordinator *coordinator = library_open(path, false, NULL);
    free(path);
    og_context *ctx = NN(og_context_new(coordinator, &err));
    og_object *ann = NN(og_context_insert(ctx, "Author", &err));
    OK(og_object_set_string(ann, "name", "Ann", &err));
    og_object *bob = NN(og_context_insert(ctx, "Author", &err));
    OK(og_object_set_string(bob, "name", "Bob", &err));
    const char *titles[] = {"Alpha", "Beta", "Gamma", "Delta", "Epsilon"};
    const int64_t pages[] = {100, 200, 300, 50, 150};
    for (int i = 0; i < 5; i++) {
        og_object *book = NN(og_context_insert(ctx, "Book", &err));
        OK(og_object_set_string(book, "title", titles[i], &err));
        OK(og_object_set_int64(book, "large", pages[i], &err));
        OK(og_object_set_double(book, "ratio", 0.5 * (i + 1), &err));
        OK(og_object_set_object(book, "author", i < 3 ? ann : bob, &err));
    }
    OK(og_context_save(ctx, &err));
    *dir_out = dir;
    *coordinator_out = coordinator;
    return ctx;
}

static void close_stack(og_context *ctx, og_coordinator *coordinator, char *dir) {
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

static og_fetch_request *books_where(const char *format) {
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    if (format) {
        og_predicate *p = NN(og_predicate_parse(format, NULL, 0, &err));
        OK(og_fetch_request_set_predicate(r, p, &err));
        og_predicate_release(p);
    }
    return r;
}

static int64_t row_int(og_rows *rows, size_t row, const char *key) {
    og_value *v = NN(og_rows_value_for_key(rows, row, key, &err));
    int64_t out;
    OK(og_value_get_int64(v, &out, &err));
    og_value_release(v);
    return out;
}

static void object_ids(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_where("large >= 150");
    OK(og_fetch_request_add_sort(r, "large", true, &err));
    OK(og_fetch_request_set_result_type(r, OG_RESULT_OBJECT_IDS, &err));
    INTEQ(og_fetch_request_result_type(r), OG_RESULT_OBJECT_IDS);
    og_object_ids *ids = NN(og_context_fetch_object_ids(ctx, r, &err));
    INTEQ(og_object_ids_count(ids), 3);
    const char *first = NN(og_object_ids_uri_at(ids, 0, &err));
    CHECK(strstr(first, "/Book/p5") != NULL); /* Epsilon, 150 pages */
    og_object *epsilon = NN(og_context_object_with_uri(ctx, first, &err));
    char *title;
    OK(og_object_get_string(epsilon, "title", &title, &err));
    STREQ(title, "Epsilon");
    og_free(title);
    FAILS_NULL(og_object_ids_uri_at(ids, 3, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    size_t n;
    OK(og_context_count(ctx, r, &n, &err));
    INTEQ(n, 3);
    /* A pending insert counts, with its temporary ID. */
    og_object *extra = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_int64(extra, "large", 999, &err));
    og_object_ids *merged = NN(og_context_fetch_object_ids(ctx, r, &err));
    INTEQ(og_object_ids_count(merged), 4);
    CHECK(strstr(NN(og_object_ids_uri_at(merged, 3, &err)), "x-coredata:///Book/t") != NULL);
    OK(og_context_count(ctx, r, &n, &err));
    INTEQ(n, 4);
    /* og_context_fetch runs object requests only. */
    FAILS_NULL(og_context_fetch(ctx, r, &err), OG_ERROR_INVALID_ARGUMENT, "execute|result type");
    og_object_ids_release(merged);
    og_object_ids_release(ids);
    og_fetch_request_release(r);
    close_stack(ctx, coordinator, dir);
}

static void dictionaries(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_where(NULL);
    OK(og_fetch_request_set_result_type(r, OG_RESULT_DICTIONARIES, &err));
    OK(og_fetch_request_add_property_to_fetch(r, "title", &err));
    OK(og_fetch_request_add_property_to_fetch(r, "author", &err));
    OK(og_fetch_request_add_property_to_fetch(r, "author.name", &err));
    OK(og_fetch_request_add_expression_to_fetch(r, "double", "large * 2", OG_ATTRIBUTE_INTEGER64, &err));
    INTEQ(og_fetch_request_properties_to_fetch_count(r), 4);
    OK(og_fetch_request_add_sort(r, "title", false, &err));
    og_rows *rows = NN(og_context_fetch_dictionaries(ctx, r, &err));
    INTEQ(og_rows_count(rows), 5);
    INTEQ(og_rows_column_count(rows), 4);
    STREQ(og_rows_column_name(rows, 2, &err), "author.name");
    STREQ(og_rows_column_name(rows, 3, &err), "double");
    FAILS_NULL(og_rows_column_name(rows, 4, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    /* Row 0 is Gamma (titles descending): Ann's, 300 pages. */
    og_value *title = NN(og_rows_value(rows, 0, 0, &err));
    const char *text;
    OK(og_value_get_string(title, &text, &err));
    STREQ(text, "Gamma");
    og_value_release(title);
    og_value *author = NN(og_rows_value(rows, 0, 1, &err));
    INTEQ(og_value_type_of(author), OG_VALUE_OBJECT_ID);
    const char *uri;
    OK(og_value_get_object_id(author, &uri, &err));
    CHECK(strstr(uri, "/Author/p1") != NULL);
    og_object *ann = NN(og_context_object_with_uri(ctx, uri, &err));
    char *name;
    OK(og_object_get_string(ann, "name", &name, &err));
    STREQ(name, "Ann");
    og_free(name);
    og_value_release(author);
    INTEQ(row_int(rows, 0, "double"), 600);
    og_value *v = NN(og_rows_value_for_key(rows, 0, "author.name", &err));
    FAILS(og_value_get_object_id(v, &uri, &err), OG_ERROR_TYPE_MISMATCH, "object ID");
    og_value_release(v);
    FAILS_NULL(og_rows_value_for_key(rows, 0, "nope", &err), OG_ERROR_UNKNOWN_KEY, "nope");
    FAILS_NULL(og_rows_value(rows, 5, 0, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    size_t n;
    OK(og_context_count(ctx, r, &n, &err));
    INTEQ(n, 5);
    og_rows_release(rows);
    og_fetch_request_release(r);

    /* Distinct authors. */
    og_fetch_request *d = books_where(NULL);
    OK(og_fetch_request_set_result_type(d, OG_RESULT_DICTIONARIES, &err));
    OK(og_fetch_request_add_property_to_fetch(d, "author.name", &err));
    OK(og_fetch_request_set_distinct(d, true, &err));
    bool distinct = false;
    OK(og_fetch_request_distinct(d, &distinct, &err));
    CHECK(distinct);
    og_rows *authors = NN(og_context_fetch_dictionaries(ctx, d, &err));
    INTEQ(og_rows_count(authors), 2);
    og_rows_release(authors);
    og_fetch_request_release(d);
    close_stack(ctx, coordinator, dir);
}

static void group_by(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_where(NULL);
    OK(og_fetch_request_set_result_type(r, OG_RESULT_DICTIONARIES, &err));
    OK(og_fetch_request_add_property_to_fetch(r, "author.name", &err));
    OK(og_fetch_request_add_expression_to_fetch(r, "total", "sum:(large)", OG_ATTRIBUTE_INTEGER64, &err));
    OK(og_fetch_request_add_expression_to_fetch(r, "mean", "average:(ratio)", OG_ATTRIBUTE_DOUBLE, &err));
    OK(og_fetch_request_add_expression_to_fetch(r, "books", "count:(title)", OG_ATTRIBUTE_UNDEFINED, &err));
    OK(og_fetch_request_add_group_by(r, "author.name", &err));
    OK(og_fetch_request_add_sort(r, "author.name", true, &err));
    og_rows *rows = NN(og_context_fetch_dictionaries(ctx, r, &err));
    INTEQ(og_rows_count(rows), 2);
    INTEQ(row_int(rows, 0, "total"), 600);
    INTEQ(row_int(rows, 1, "total"), 200);
    INTEQ(row_int(rows, 0, "books"), 3);
    og_value *mean = NN(og_rows_value_for_key(rows, 1, "mean", &err));
    double m;
    OK(og_value_get_double(mean, &m, &err));
    DBLEQ(m, 2.25); /* (2.0 + 2.5) / 2 */
    og_value_release(mean);
    og_rows_release(rows);
    og_predicate *having = NN(og_predicate_parse("total > 300", NULL, 0, &err));
    OK(og_fetch_request_set_having(r, having, &err));
    og_predicate_release(having);
    rows = NN(og_context_fetch_dictionaries(ctx, r, &err));
    INTEQ(og_rows_count(rows), 1);
    og_value *who = NN(og_rows_value(rows, 0, 0, &err));
    const char *text;
    OK(og_value_get_string(who, &text, &err));
    STREQ(text, "Ann");
    og_value_release(who);
    og_rows_release(rows);
    size_t n;
    OK(og_context_count(ctx, r, &n, &err));
    INTEQ(n, 1);
    OK(og_fetch_request_set_having(r, NULL, &err));
    OK(og_fetch_request_set_result_type(r, OG_RESULT_COUNT, &err));
    FAILS(og_context_count(ctx, r, &n, &err), OG_ERROR_INVALID_ARGUMENT, "dictionary");
    og_fetch_request_release(r);
    close_stack(ctx, coordinator, dir);
}

/* A grouped fetch sorts by a fetched expression's name. */
static void sort_by_expression(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_where(NULL);
    OK(og_fetch_request_set_result_type(r, OG_RESULT_DICTIONARIES, &err));
    OK(og_fetch_request_add_property_to_fetch(r, "author.name", &err));
    OK(og_fetch_request_add_expression_to_fetch(r, "headcount", "count:(title)", OG_ATTRIBUTE_UNDEFINED, &err));
    OK(og_fetch_request_add_group_by(r, "author.name", &err));
    OK(og_fetch_request_add_sort(r, "headcount", true, &err));
    og_rows *rows = NN(og_context_fetch_dictionaries(ctx, r, &err));
    INTEQ(og_rows_count(rows), 2);
    INTEQ(row_int(rows, 0, "headcount"), 2);
    INTEQ(row_int(rows, 1, "headcount"), 3);
    og_rows_release(rows);
    og_fetch_request_release(r);
    close_stack(ctx, coordinator, dir);
}

static void errors(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_where(NULL);
    FAILS(og_fetch_request_set_result_type(r, 3, &err), OG_ERROR_INVALID_ARGUMENT, "og_result_type");
    FAILS(og_fetch_request_add_expression_to_fetch(r, "x", "sum:(large", OG_ATTRIBUTE_INTEGER64, &err), 140020, "position");
    FAILS(og_fetch_request_add_expression_to_fetch(r, "x", "large", 123, &err), OG_ERROR_INVALID_ARGUMENT, "og_attribute_type");
    FAILS(og_fetch_request_add_expression_to_fetch(r, "", "large", 0, &err), OG_ERROR_INVALID_ARGUMENT, "name");
    OK(og_fetch_request_add_property_to_fetch(r, "titel", &err));
    FAILS_NULL(og_context_fetch_dictionaries(ctx, r, &err), OG_ERROR_UNKNOWN_KEY, "titel");
    og_fetch_request_release(r);
    og_fetch_request *many = NN(og_fetch_request_new("Author", &err));
    OK(og_fetch_request_add_property_to_fetch(many, "books", &err));
    FAILS_NULL(og_context_fetch_dictionaries(ctx, many, &err), OG_ERROR_INVALID_ARGUMENT, "to-many");
    og_fetch_request_release(many);
    og_fetch_request *grouped = books_where(NULL);
    OK(og_fetch_request_add_property_to_fetch(grouped, "title", &err));
    OK(og_fetch_request_add_group_by(grouped, "large", &err));
    FAILS_NULL(og_context_fetch_dictionaries(ctx, grouped, &err), OG_ERROR_INVALID_ARGUMENT, "group");
    FAILS_NULL(og_context_fetch_object_ids(ctx, grouped, &err), OG_ERROR_INVALID_ARGUMENT, "dictionary");
    og_fetch_request_release(grouped);
    /* NULL and released handles. */
    FAILS(og_fetch_request_set_result_type(NULL, 1, &err), OG_ERROR_INVALID_HANDLE, "og_fetch_request|handle");
    FAILS(og_fetch_request_add_group_by(NULL, "x", &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_having(NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_distinct(NULL, true, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_add_property_to_fetch(NULL, "x", &err), OG_ERROR_INVALID_HANDLE, "handle");
    INTEQ(og_fetch_request_result_type(NULL), -1);
    INTEQ(og_fetch_request_properties_to_fetch_count(NULL), 0);
    FAILS_NULL(og_context_fetch_object_ids(ctx, NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS_NULL(og_context_fetch_dictionaries(NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    INTEQ(og_object_ids_count(NULL), 0);
    INTEQ(og_rows_count(NULL), 0);
    INTEQ(og_rows_column_count(NULL), 0);
    FAILS_NULL(og_rows_value(NULL, 0, 0, &err), OG_ERROR_INVALID_HANDLE, "handle");
    og_rows_release(NULL);
    og_object_ids_release(NULL);
    og_fetch_request *released = books_where(NULL);
    og_fetch_request_release(released);
    FAILS_NULL(og_context_fetch_dictionaries(ctx, released, &err), OG_ERROR_INVALID_HANDLE, "handle|released");
    close_stack(ctx, coordinator, dir);
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"object_ids", object_ids},
        {"dictionaries", dictionaries},
        {"group_by", group_by},
        {"sort_by_expression", sort_by_expression},
        {"errors", errors},
    };
    return OG_T_RUN(cases, argc, argv);
}
