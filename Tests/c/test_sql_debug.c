/* SQL logging and explain through the C ABI: the level from
 * OBJECTGRAPH_SQL_DEBUG, levels 1-3 through a callback, standard error, and
 * og_context_explain's text. Each case runs in its own process (ctest), and
 * the environment case sets the variable before the library's first SQL. */
#include "library_model.h"
#include "og_test_cases.h"

struct captured {
    int count;
    int levels[8];
    char text[8][512];
};

static void capture(int level, const char *message, void *user) {
    struct captured *c = user;
    if (strstr(message, "ZBOOK") == NULL && strstr(message, "annotation") == NULL) return;
    int i = c->count++ % 8;
    c->levels[i] = level;
    snprintf(c->text[i], sizeof c->text[i], "%s", message);
}

static og_coordinator *filled(og_context **ctx) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "sql.sqlite");
    og_coordinator *coordinator = library_open(path, false, NULL);
    free(path);
    free(dir);
    *ctx = NN(og_context_new(coordinator, &err));
    og_object *b = NN(og_context_insert(*ctx, "Book", &err));
    OK(og_object_set_string(b, "title", "Mort", &err));
    OK(og_object_set_int64(b, "medium", 300, &err));
    OK(og_context_save(*ctx, &err));
    return coordinator;
}

static size_t fetch_long_books(og_context *ctx) {
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    og_value *arg = og_value_new_int64(150);
    og_predicate *p = NN(og_predicate_parse("medium > %@", &arg, 1, &err));
    OK(og_fetch_request_set_predicate(r, p, &err));
    og_results *results = NN(og_context_fetch(ctx, r, &err));
    size_t n = og_results_count(results);
    og_results_release(results);
    og_predicate_release(p);
    og_value_release(arg);
    og_fetch_request_release(r);
    return n;
}

static void environment(void) {
    /* Set before the library first reads it (this case runs in its own process). */
    setenv("OBJECTGRAPH_SQL_DEBUG", "2", 1);
    INTEQ(og_sql_debug_level(), 2);
    struct captured c = {0};
    OK(og_set_sql_log_callback(capture, &c, &err));
    og_context *ctx;
    og_coordinator *coordinator = filled(&ctx);
    c.count = 0;
    og_context *other = NN(og_context_new(coordinator, &err));
    INTEQ(fetch_long_books(other), 1);
    CHECK(c.count >= 1);
    CHECK(strstr(c.text[0], "ObjectGraph: sql: SELECT") == c.text[0]);
    CHECK(strstr(c.text[0], "150") != NULL); /* level 2: bound values in place */
    OK(og_set_sql_log_callback(NULL, NULL, &err));
    OK(og_set_sql_debug(0, &err));
    og_context_release(other);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
}

static void levels(void) {
    og_context *ctx;
    og_coordinator *coordinator = filled(&ctx);
    struct captured c = {0};
    OK(og_set_sql_log_callback(capture, &c, &err));
    OK(og_set_sql_debug(1, &err));
    INTEQ(og_sql_debug_level(), 1);
    og_context *a = NN(og_context_new(coordinator, &err));
    INTEQ(fetch_long_books(a), 1);
    CHECK(c.count >= 1 && c.levels[0] == 1);
    CHECK(strstr(c.text[0], "?") != NULL);
    c.count = 0;
    OK(og_set_sql_debug(3, &err));
    og_context *b = NN(og_context_new(coordinator, &err));
    INTEQ(fetch_long_books(b), 1);
    bool timed = false;
    for (int i = 0; i < c.count && i < 8; i++)
        timed |= c.levels[i] == 3 && strstr(c.text[i], "sql execution time") != NULL && strstr(c.text[i], "rows: 1") != NULL;
    CHECK(timed);
    c.count = 0;
    OK(og_set_sql_debug(0, &err));
    og_context *d = NN(og_context_new(coordinator, &err));
    INTEQ(fetch_long_books(d), 1);
    INTEQ(c.count, 0);
    FAILS(og_set_sql_debug(4, &err), OG_ERROR_INVALID_ARGUMENT, "level");
    FAILS(og_set_sql_debug(-1, &err), OG_ERROR_INVALID_ARGUMENT, "level");
    OK(og_set_sql_log_callback(NULL, NULL, &err));
    og_context_release(d);
    og_context_release(b);
    og_context_release(a);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
}

/* The index of the first captured line starting with `prefix`, or -1. */
static int find(const struct captured *c, const char *prefix) {
    for (int i = 0; i < c->count && i < 8; i++)
        if (strncmp(c->text[i], prefix, strlen(prefix)) == 0) return i;
    return -1;
}

/* At level 1 each fetch and save logs one summary line (level 1) with its time,
 * rows and objects; a 1000-byte blob is shown abbreviated at level 2. */
static void summaries(void) {
    og_context *ctx;
    og_coordinator *coordinator = filled(&ctx);
    struct captured c = {0};
    OK(og_set_sql_log_callback(capture, &c, &err));
    OK(og_set_sql_debug(1, &err));
    og_object *b = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string(b, "title", "Eric", &err));
    OK(og_object_set_int64(b, "medium", 200, &err));
    c.count = 0;
    OK(og_context_save(ctx, &err));
    int save = find(&c, "ObjectGraph: annotation: total save execution time: ");
    CHECK(save >= 0);
    CHECK(c.levels[save] == 1);
    CHECK(strstr(c.text[save], "s for 1 row, 1 object (1 inserted, 0 updated, 0 deleted)") != NULL);
    c.count = 0;
    og_context *other = NN(og_context_new(coordinator, &err));
    INTEQ(fetch_long_books(other), 2);
    int fetch = find(&c, "ObjectGraph: annotation: total fetch execution time: ");
    CHECK(fetch >= 0);
    CHECK(strstr(c.text[fetch], "s for 2 rows, 2 objects (Book)") != NULL);

    OK(og_set_sql_debug(2, &err));
    unsigned char cover[1000];
    memset(cover, 0xab, sizeof cover);
    OK(og_object_set_data(b, "cover", cover, sizeof cover, &err));
    c.count = 0;
    OK(og_context_save(ctx, &err));
    int update = find(&c, "ObjectGraph: sql: UPDATE ZBOOK");
    CHECK(update >= 0);
    CHECK(strstr(c.text[update], "x'abababababababababababababababab\xe2\x80\xa6' (1000 bytes)") != NULL);
    CHECK(strstr(c.text[update], "abababababababababababababababababab") == NULL);
    OK(og_set_sql_log_callback(NULL, NULL, &err));
    OK(og_set_sql_debug(0, &err));
    og_context_release(other);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
}

static void explain(void) {
    og_context *ctx;
    og_coordinator *coordinator = filled(&ctx);
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(r, "title", true, &err));
    char *text = NN(og_context_explain(ctx, r, &err));
    CHECK(strstr(text, "store: ") == text);
    CHECK(strstr(text, "(SQLite)") != NULL);
    CHECK(strstr(text, "sql: SELECT") != NULL);
    CHECK(strstr(text, "plan: ") != NULL);
    CHECK(strstr(text, "filtered in memory: no") != NULL);
    og_free(text);
    FAILS_NULL(og_context_explain(NULL, r, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS_NULL(og_context_explain(ctx, NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    og_fetch_request *unknown = NN(og_fetch_request_new("Nope", &err));
    FAILS_NULL(og_context_explain(ctx, unknown, &err), OG_ERROR_UNKNOWN_ENTITY, "Nope");
    og_fetch_request_release(unknown);
    og_fetch_request_release(r);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"environment", environment},
        {"levels", levels},
        {"summaries", summaries},
        {"explain", explain},
    };
    return OG_T_RUN(cases, argc, argv);
}
