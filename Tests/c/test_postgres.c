/* The PostgreSQL store through the C ABI, against the server the test command
 * starts (OBJECTGRAPH_TEST_POSTGRES_URL; each case reports itself skipped, 77,
 * without one). Each case works in a schema of its own
 * (OG_OPTION_POSTGRESQL_SCHEMA): values round-trip between coordinators,
 * conflicts are reported, remote changes are heard, and bad input gets clear
 * errors that never show the password. */
#include "og_test_cases.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static og_model *model;
static const char *url;
static char schema[64];

static void setup(const char *name) {
    url = getenv("OBJECTGRAPH_TEST_POSTGRES_URL");
    if (url == NULL || *url == '\0') {
        printf("skipped: no PostgreSQL test server (OBJECTGRAPH_TEST_POSTGRES_URL is unset)\n");
        exit(77);
    }
    snprintf(schema, sizeof schema, "c_%s_%ld", name, (long)getpid());
    model = NN(og_model_new());
    og_entity *note = NN(og_model_add_entity(model, "Note", &err));
    NN(og_entity_add_attribute(note, "title", OG_ATTRIBUTE_STRING, &err));
    NN(og_entity_add_attribute(note, "stars", OG_ATTRIBUTE_INTEGER64, &err));
    NN(og_entity_add_attribute(note, "written", OG_ATTRIBUTE_DATE, &err));
    og_property *search = NN(og_entity_add_attribute(note, "search", OG_ATTRIBUTE_STRING, &err));
    OK(og_attribute_set_derivation_expression(search, "canonical:(title)", &err));
}

/* A coordinator over this case's schema, `extra` (a bool option key) on when given. */
static og_coordinator *open_store(const char *extra, og_store **store_out) {
    const char *keys[] = {OG_OPTION_POSTGRESQL_SCHEMA, extra};
    og_value *values[] = {NN(og_value_new_string(schema, &err)), og_value_new_bool(true)};
    og_value *options = NN(og_value_new_dictionary(keys, values, extra ? 2 : 1, &err));
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    og_store *store = NN(og_coordinator_add_store_with_options(c, "PostgreSQL", NULL, url, options, &err));
    if (store_out) *store_out = store;
    og_value_release(options);
    og_value_release(values[0]);
    og_value_release(values[1]);
    return c;
}

static og_object *note(og_context *x, const char *title, int64_t stars) {
    og_object *o = NN(og_context_insert(x, "Note", &err));
    OK(og_object_set_string(o, "title", title, &err));
    OK(og_object_set_int64(o, "stars", stars, &err));
    OK(og_object_set_date(o, "written", 123456.5, &err));
    return o;
}

static size_t count_notes(og_context *x, const char *format) {
    og_fetch_request *r = NN(og_fetch_request_new("Note", &err));
    if (format) {
        og_predicate *p = NN(og_predicate_parse(format, NULL, 0, &err));
        OK(og_fetch_request_set_predicate(r, p, &err));
        og_predicate_release(p);
    }
    size_t n = 0;
    OK(og_context_count(x, r, &n, &err));
    og_fetch_request_release(r);
    return n;
}

static void round_trip(void) {
    setup("round_trip");
    og_store *store;
    og_coordinator *writer = open_store(NULL, &store);
    STREQ(og_store_type(store), "PostgreSQL");
    CHECK(strstr(og_store_path(store), "postgresql://") == og_store_path(store));
    const char *at = strchr(url + strlen("postgresql://"), ':');
    const char *end = strchr(url, '@');
    CHECK(at && end && at < end);
    char password[128];
    snprintf(password, sizeof password, "%.*s", (int)(end - at - 1), at + 1);
    CHECK(strstr(og_store_path(store), password) == NULL);
    og_context *x = NN(og_context_new(writer, &err));
    note(x, "Alpha", 3);
    note(x, "Beta", 5);
    note(x, "gamma", 1);
    OK(og_context_save(x, &err));

    og_coordinator *reader = open_store(NULL, NULL);
    og_context *y = NN(og_context_new(reader, &err));
    INTEQ(count_notes(y, NULL), 3);
    INTEQ(count_notes(y, "stars >= 3 AND title BEGINSWITH 'A'"), 1);
    INTEQ(count_notes(y, "title BEGINSWITH[c] 'g'"), 1);
    /* [c] against a constant narrows on the server (ASCII titles decided there), and
       memory decides what remains. */
    og_fetch_request *folded = NN(og_fetch_request_new("Note", &err));
    og_predicate *beginsWithG = NN(og_predicate_parse("title BEGINSWITH[c] 'g'", NULL, 0, &err));
    OK(og_fetch_request_set_predicate(folded, beginsWithG, &err));
    char *plan = NN(og_context_explain(y, folded, &err));
    CHECK(strstr(plan, "octet_length") != NULL && strstr(plan, "filtered in memory: yes") != NULL);
    og_free(plan);
    og_predicate_release(beginsWithG);
    og_fetch_request_release(folded);
    /* MATCHES narrows by its pattern's literal prefix; memory decides. */
    INTEQ(count_notes(y, "title MATCHES 'Be.a'"), 1);
    og_fetch_request *matching = NN(og_fetch_request_new("Note", &err));
    og_predicate *pattern = NN(og_predicate_parse("title MATCHES 'Be.a'", NULL, 0, &err));
    OK(og_fetch_request_set_predicate(matching, pattern, &err));
    plan = NN(og_context_explain(y, matching, &err));
    CHECK(strstr(plan, "starts_with") != NULL);
    og_free(plan);
    og_predicate_release(pattern);
    og_fetch_request_release(matching);
    /* Groups are folded on the server: one row per group, in the sort's order. */
    og_fetch_request *grouped = NN(og_fetch_request_new("Note", &err));
    OK(og_fetch_request_set_result_type(grouped, OG_RESULT_DICTIONARIES, &err));
    OK(og_fetch_request_add_expression_to_fetch(grouped, "many", "count:(SELF)", OG_ATTRIBUTE_UNDEFINED, &err));
    OK(og_fetch_request_add_expression_to_fetch(grouped, "first", "min:(title)", OG_ATTRIBUTE_UNDEFINED, &err));
    OK(og_fetch_request_add_property_to_fetch(grouped, "written", &err));
    OK(og_fetch_request_add_group_by(grouped, "written", &err));
    og_rows *rows = NN(og_context_fetch_dictionaries(y, grouped, &err));
    INTEQ(og_rows_count(rows), 1);
    og_value *many = NN(og_rows_value_for_key(rows, 0, "many", &err));
    int64_t n = 0;
    OK(og_value_get_int64(many, &n, &err));
    INTEQ(n, 3);
    og_value_release(many);
    og_value *first = NN(og_rows_value_for_key(rows, 0, "first", &err));
    const char *text = NULL;
    OK(og_value_get_string(first, &text, &err));
    STREQ(text, "Alpha");
    og_value_release(first);
    og_rows_release(rows);
    og_fetch_request_release(grouped);
    og_fetch_request *r = NN(og_fetch_request_new("Note", &err));
    OK(og_fetch_request_add_sort(r, "stars", false, &err));
    og_results *results = NN(og_context_fetch(y, r, &err));
    INTEQ(og_results_count(results), 3);
    char *title = NULL;
    OK(og_object_get_string(NN(og_results_object_at(results, 0, &err)), "title", &title, &err));
    STREQ(title, "Beta");
    og_free(title);
    double when = 0;
    OK(og_object_get_date(NN(og_results_object_at(results, 0, &err)), "written", &when, &err));
    DBLEQ(when, 123456.5);
    og_results_release(results);
    og_fetch_request_release(r);
    /* canonical: is the engine's: lower case without diacritics, "ß" as "ss". */
    note(x, "Gro\xc3\x9f\xc3\xa9", 2);
    OK(og_context_save(x, &err));
    INTEQ(count_notes(y, "search == 'grosse'"), 1);
    og_context_release(y);
    og_context_release(x);
    og_coordinator_release(reader);
    og_coordinator_release(writer);
    og_model_release(model);
}

static void conflict(void) {
    setup("conflict");
    og_coordinator *a = open_store(NULL, NULL), *b = open_store(NULL, NULL);
    og_context *x = NN(og_context_new(a, &err)), *y = NN(og_context_new(b, &err));
    og_object *mine = note(x, "Shared", 1);
    OK(og_context_save(x, &err));
    og_fetch_request *r = NN(og_fetch_request_new("Note", &err));
    og_results *results = NN(og_context_fetch(y, r, &err));
    og_object *theirs = NN(og_results_object_at(results, 0, &err));
    OK(og_object_set_int64(theirs, "stars", 2, &err));
    OK(og_context_save(y, &err));
    OK(og_object_set_int64(mine, "stars", 3, &err));
    FAILS(og_context_save(x, &err), OG_ERROR_MERGE, "conflict");
    bool changed = false;
    OK(og_context_has_changes(x, &changed, &err));
    CHECK(changed);
    OK(og_context_set_merge_policy(x, OG_MERGE_POLICY_MERGE_BY_PROPERTY_OBJECT_TRUMP, &err));
    OK(og_context_save(x, &err));
    INTEQ(count_notes(y, "stars == 3"), 1);
    og_results_release(results);
    og_fetch_request_release(r);
    og_context_release(y);
    og_context_release(x);
    og_coordinator_release(b);
    og_coordinator_release(a);
    og_model_release(model);
}

typedef struct {
    pthread_mutex_t lock;
    int count;
} inbox;

static void on_remote_change(const char *store_uuid, const og_history_token *token, void *userdata) {
    (void)store_uuid;
    (void)token;
    inbox *in = userdata;
    pthread_mutex_lock(&in->lock);
    in->count++;
    pthread_mutex_unlock(&in->lock);
}

static int received(inbox *in) {
    pthread_mutex_lock(&in->lock);
    int n = in->count;
    pthread_mutex_unlock(&in->lock);
    return n;
}

static void remote_change(void) {
    setup("remote_change");
    og_coordinator *watcher = open_store(OG_OPTION_REMOTE_CHANGE_NOTIFICATIONS, NULL);
    inbox in = {PTHREAD_MUTEX_INITIALIZER, 0};
    uint64_t token = 0;
    OK(og_coordinator_add_remote_change_observer(watcher, on_remote_change, &in, &token, &err));
    og_coordinator *writer = open_store(NULL, NULL);
    og_context *x = NN(og_context_new(writer, &err));
    note(x, "Heard", 1);
    OK(og_context_save(x, &err));
    for (int i = 0; i < 200 && received(&in) == 0; i++) usleep(5000);
    INTEQ(received(&in), 1);
    OK(og_coordinator_remove_remote_change_observer(watcher, token, &err));
    og_context_release(x);
    og_coordinator_release(writer);
    og_coordinator_release(watcher);
    og_model_release(model);
}

static void bad_input(void) {
    setup("bad_input");
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    /* A wrong password: refused, and the message shows neither password. */
    char wrong[512];
    const char *at = strchr(url, '@');
    const char *colon = strchr(url + strlen("postgresql://"), ':');
    snprintf(wrong, sizeof wrong, "%.*s:not-the-password%s", (int)(colon - url), url, at);
    FAILS_NULL(og_coordinator_add_store(c, "PostgreSQL", wrong, &err), OG_ERROR_STORE_OPEN, "password");
    /* A schema that is not an identifier. */
    const char *keys[] = {OG_OPTION_POSTGRESQL_SCHEMA};
    og_value *values[] = {NN(og_value_new_string("x\"; DROP SCHEMA public; --", &err))};
    og_value *options = NN(og_value_new_dictionary(keys, values, 1, &err));
    FAILS_NULL(og_coordinator_add_store_with_options(c, "PostgreSQL", NULL, url, options, &err), OG_ERROR_INVALID_ARGUMENT, "schema");
    og_value_release(options);
    og_value_release(values[0]);
    /* No connection string at all. */
    FAILS_NULL(og_coordinator_add_store(c, "PostgreSQL", "", &err), OG_ERROR_INVALID_ARGUMENT, "connection");
    og_coordinator_release(c);
    og_model_release(model);
}

/* Version n of a one-entity model: 1 Entry(title), 2 Entry(name <- title),
   3 Entry(label <- name, stars). */
static og_model *entry_model(int version) {
    og_model *m = NN(og_model_new());
    og_entity *entry = NN(og_model_add_entity(m, "Entry", &err));
    if (version == 1) {
        NN(og_entity_add_attribute(entry, "title", OG_ATTRIBUTE_STRING, &err));
    } else {
        og_property *renamed = NN(og_entity_add_attribute(entry, version == 2 ? "name" : "label", OG_ATTRIBUTE_STRING, &err));
        OK(og_property_set_renaming_identifier(renamed, version == 2 ? "title" : "name", &err));
    }
    if (version == 3) NN(og_entity_add_attribute(entry, "stars", OG_ATTRIBUTE_INTEGER64, &err));
    return m;
}

/* Mapping models 1 -> 2 and 2 -> 3 migrate a version-1 store in place, both steps in
   one transaction on the server. */
static void migration_chain(void) {
    setup("migration_chain");
    og_model *v[3] = {entry_model(1), entry_model(2), entry_model(3)};
    const char *keys[] = {OG_OPTION_POSTGRESQL_SCHEMA, OG_OPTION_MIGRATE_AUTOMATICALLY};
    og_value *values[] = {NN(og_value_new_string(schema, &err)), og_value_new_bool(true)};
    og_value *options = NN(og_value_new_dictionary(keys, values, 2, &err));
    og_coordinator *old = NN(og_coordinator_new(v[0], &err));
    NN(og_coordinator_add_store_with_options(old, "PostgreSQL", NULL, url, options, &err));
    og_context *x = NN(og_context_new(old, &err));
    OK(og_object_set_string(NN(og_context_insert(x, "Entry", &err)), "title", "kept", &err));
    OK(og_context_save(x, &err));
    og_context_release(x);
    og_coordinator_release(old);

    og_mapping_model *steps[2] = {NN(og_mapping_model_infer(v[0], v[1], &err)), NN(og_mapping_model_infer(v[1], v[2], &err))};
    og_coordinator *c = NN(og_coordinator_new_with_versions(v[2], v, 2, steps, 2, &err));
    NN(og_coordinator_add_store_with_options(c, "PostgreSQL", NULL, url, options, &err));
    og_context *y = NN(og_context_new(c, &err));
    og_fetch_request *r = NN(og_fetch_request_new("Entry", &err));
    og_results *results = NN(og_context_fetch(y, r, &err));
    INTEQ(og_results_count(results), 1);
    char *label = NULL;
    OK(og_object_get_string(NN(og_results_object_at(results, 0, &err)), "label", &label, &err));
    STREQ(label, "kept");
    og_free(label);
    og_results_release(results);
    og_fetch_request_release(r);
    og_context_release(y);
    og_coordinator_release(c);
    og_mapping_model_release(steps[0]);
    og_mapping_model_release(steps[1]);
    og_value_release(options);
    og_value_release(values[0]);
    og_value_release(values[1]);
    for (int i = 0; i < 3; i++) og_model_release(v[i]);
    og_model_release(model);
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"round_trip", round_trip}, {"conflict", conflict}, {"remote_change", remote_change}, {"bad_input", bad_input},
        {"migration_chain", migration_chain}};
    return OG_T_RUN(cases, argc, argv);
}
