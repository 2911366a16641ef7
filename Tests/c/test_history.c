/* Persistent history through the C ABI (og_context_history, og_history_*,
 * og_history_token_*): one transaction per save and per batch, read after a
 * token or a date, filtered, purged, merged into another coordinator's
 * context, and tokens archived and compared. */
#include "og_test_cases.h"

#include "og_test_sqlite.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static og_model *model;
static char *dir, *path;

/* Note: title, body (kept in history after deletion), stars. */
static void setup(void) {
    model = NN(og_model_new());
    og_entity *note = NN(og_model_add_entity(model, "Note", &err));
    NN(og_entity_add_attribute(note, "title", OG_ATTRIBUTE_STRING, &err));
    og_property *body = NN(og_entity_add_attribute(note, "body", OG_ATTRIBUTE_STRING, &err));
    OK(og_attribute_set_preserves_value_in_history(body, true, &err));
    NN(og_entity_add_attribute(note, "stars", OG_ATTRIBUTE_INTEGER64, &err));
    dir = og_t_tempdir();
    path = og_t_path(dir, "history.sqlite");
}

static void teardown(void) {
    og_model_release(model);
    free(path);
    og_t_remove_tree(dir);
}

/* A coordinator over the store with history tracking, and a context on it. */
static og_context *open_tracked(og_coordinator **coordinator) {
    const char *keys[] = {OG_OPTION_HISTORY_TRACKING};
    og_value *on[] = {og_value_new_bool(true)};
    og_value *options = NN(og_value_new_dictionary(keys, on, 1, &err));
    *coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store_with_options(*coordinator, "SQLite", NULL, path, options, &err));
    og_value_release(options);
    og_value_release(on[0]);
    return NN(og_context_new(*coordinator, &err));
}

static og_object *note(og_context *x, const char *title) {
    og_object *o = NN(og_context_insert(x, "Note", &err));
    OK(og_object_set_string(o, "title", title, &err));
    OK(og_object_set_string(o, "body", "text", &err));
    return o;
}

static int64_t number(og_history *h, size_t t) {
    int64_t n = 0;
    OK(og_history_transaction_number(h, t, &n, &err));
    return n;
}

static void saves(void) {
    setup();
    og_coordinator *coordinator;
    og_context *ctx = open_tracked(&coordinator);
    OK(og_context_set_transaction_author(ctx, "importer", &err));
    char *author = NULL;
    OK(og_context_transaction_author(ctx, &author, &err));
    STREQ(author, "importer");
    og_free(author);
    og_object *a = note(ctx, "a"), *b = note(ctx, "b");
    OK(og_context_save(ctx, &err));
    OK(og_object_set_int64(a, "stars", 3, &err));
    OK(og_context_delete(ctx, b, &err));
    OK(og_context_save(ctx, &err));

    og_history *h = NN(og_context_history(ctx, NULL, NULL, &err));
    INTEQ(og_history_count(h), 2);
    INTEQ(number(h, 0), 1);
    INTEQ(number(h, 1), 2);
    const char *text = NULL;
    OK(og_history_transaction_string(h, 0, OG_HISTORY_AUTHOR, &text, &err));
    STREQ(text, "importer");
    IS_NULL(og_history_transaction_string(h, 0, OG_HISTORY_CONTEXT_NAME, &text, &err));
    OK(og_history_transaction_string(h, 0, OG_HISTORY_STORE_UUID, &text, &err));
    CHECK(strlen(text) == 36);
    double when = 0;
    OK(og_history_transaction_timestamp(h, 0, &when, &err));
    CHECK(when > 1.7e9);
    INTEQ(og_history_change_count(h, 0), 2);
    INTEQ(og_history_change_count(h, 1), 2);
    og_history_change_kind kind;
    OK(og_history_change_type(h, 1, 0, &kind, &err));
    INTEQ(kind, OG_HISTORY_CHANGE_UPDATE);
    INTEQ(og_history_change_updated_count(h, 1, 0), 1);
    STREQ(og_history_change_updated_at(h, 1, 0, 0, &err), "stars");
    og_value *tombstone = NULL;
    IS_NULL(og_history_change_tombstone(h, 1, 0, &tombstone, &err));
    OK(og_history_change_type(h, 1, 1, &kind, &err));
    INTEQ(kind, OG_HISTORY_CHANGE_DELETE);
    OK(og_history_change_tombstone(h, 1, 1, &tombstone, &err));
    INTEQ(og_value_count(tombstone), 1);
    STREQ(og_value_key_at(tombstone, 0, &err), "body");
    og_value_release(tombstone);
    int64_t id = 0;
    OK(og_history_change_id(h, 1, 1, &id, &err));
    INTEQ(id, 4);
    const char *entity = NULL;
    int64_t key = 0;
    OK(og_history_change_object(h, 0, 0, &entity, &key, &err));
    STREQ(entity, "Note");
    INTEQ(key, 1);
    /* Both changes of the second transaction at once. */
    og_history_change_kind kinds[2];
    int64_t ids[2], keys[2];
    size_t entities[2];
    OK(og_history_changes(h, 1, 0, 2, kinds, ids, keys, entities, &err));
    INTEQ(kinds[0], OG_HISTORY_CHANGE_UPDATE);
    INTEQ(kinds[1], OG_HISTORY_CHANGE_DELETE);
    INTEQ(ids[1], 4);
    INTEQ(keys[0], 1);
    INTEQ(keys[1], 2);
    STREQ(og_history_entity_name(h, entities[1]), "Note");
    CHECK(og_history_entity_name(h, 5) == NULL);
    OK(og_history_changes(h, 1, 1, 1, NULL, NULL, keys, NULL, &err));
    INTEQ(keys[0], 2);
    FAILS(og_history_changes(h, 1, 1, 2, kinds, NULL, NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    char *uri = NN(og_history_change_object_uri(h, 0, 0, &err));
    char *a_uri = NN(og_object_id_uri(a, &err));
    STREQ(uri, a_uri);
    og_free(uri);
    og_free(a_uri);

    /* Out of range and bad field: clear errors. */
    int64_t n = 0;
    FAILS(og_history_transaction_number(h, 9, &n, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS(og_history_transaction_string(h, 0, (og_history_field)9, &text, &err), OG_ERROR_INVALID_ARGUMENT, "og_history_field");
    FAILS_NULL(og_history_change_updated_at(h, 1, 0, 5, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    INTEQ(og_history_change_count(h, 7), 0);
    og_history_release(h);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    teardown();
}

static void tokens_and_purges(void) {
    setup();
    og_coordinator *coordinator;
    og_context *ctx = open_tracked(&coordinator);
    og_history_token *none = NULL;
    IS_NULL(og_coordinator_current_history_token(coordinator, &none, &err));
    og_history_token *tokens[3];
    for (int i = 0; i < 3; i++) {
        note(ctx, "n");
        OK(og_context_save(ctx, &err));
        OK(og_coordinator_current_history_token(coordinator, &tokens[i], &err));
    }
    og_history *after = NN(og_context_history(ctx, tokens[0], NULL, &err));
    INTEQ(og_history_count(after), 2);
    og_history_token *last = NN(og_history_transaction_token(after, 1, &err));
    CHECK(og_history_token_equal(last, tokens[2]));
    CHECK(!og_history_token_equal(last, tokens[1]));
    og_history_release(after);

    /* Archived and read back; a truncated archive is refused. */
    void *bytes = NULL;
    size_t length = 0;
    OK(og_history_token_archive(tokens[1], &bytes, &length, &err));
    og_history_token *back = NN(og_history_token_from_archive(bytes, length, &err));
    CHECK(og_history_token_equal(back, tokens[1]));
    FAILS_NULL(og_history_token_from_archive(bytes, length / 2, &err), OG_ERROR_INVALID_ARGUMENT, "token");
    og_free(bytes);
    og_history_token_release(back);

    /* After a date: nothing is newer than a minute from now. */
    og_history *later = NN(og_context_history_after_date(ctx, (double)time(NULL) + 60, NULL, &err));
    INTEQ(og_history_count(later), 0);
    og_history_release(later);

    OK(og_context_delete_history(ctx, tokens[1], &err));
    og_history *left = NN(og_context_history(ctx, NULL, NULL, &err));
    INTEQ(og_history_count(left), 2);
    INTEQ(number(left, 0), 2);
    og_history_release(left);
    FAILS_NULL(og_context_history(ctx, tokens[0], NULL, &err), OG_ERROR_HISTORY_TOKEN_EXPIRED, "purged");
    OK(og_context_delete_history_before_date(ctx, (double)time(NULL) + 60, &err));
    left = NN(og_context_history(ctx, NULL, NULL, &err));
    INTEQ(og_history_count(left), 0);
    og_history_release(left);
    FAILS(og_context_delete_history_before_date(ctx, 0.0 / 0.0, &err), OG_ERROR_INVALID_ARGUMENT, "finite");
    for (int i = 0; i < 3; i++) og_history_token_release(tokens[i]);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    teardown();
}

static void filters_and_batches(void) {
    setup();
    og_coordinator *coordinator;
    og_context *ctx = open_tracked(&coordinator);
    OK(og_context_set_transaction_author(ctx, "alice", &err));
    note(ctx, "a");
    OK(og_context_save(ctx, &err));
    OK(og_context_set_transaction_author(ctx, "batch", &err));
    const char *keys[] = {"title"};
    og_value *values[] = {NN(og_value_new_string("b", &err))};
    og_value *row = NN(og_value_new_dictionary(keys, values, 1, &err));
    og_value *rows = NN(og_value_new_array(&row, 1, &err));
    size_t n = 0;
    OK(og_context_batch_insert(ctx, "Note", rows, OG_BATCH_RESULT_COUNT, &n, NULL, &err));
    og_value_release(rows);
    og_value_release(row);
    og_value_release(values[0]);

    og_value *who = NN(og_value_new_string("batch", &err));
    og_predicate *by_batch = NN(og_predicate_parse("author == %@", &who, 1, &err));
    og_fetch_request *transactions = NN(og_fetch_request_new("Transaction", &err));
    OK(og_fetch_request_set_predicate(transactions, by_batch, &err));
    og_history *h = NN(og_context_history(ctx, NULL, transactions, &err));
    INTEQ(og_history_count(h), 1);
    INTEQ(number(h, 0), 2);
    og_history_release(h);

    og_predicate *inserts = NN(og_predicate_parse("changeType == 0", NULL, 0, &err));
    og_fetch_request *changes = NN(og_fetch_request_new("Change", &err));
    OK(og_fetch_request_set_predicate(changes, inserts, &err));
    h = NN(og_context_history(ctx, NULL, changes, &err));
    INTEQ(og_history_count(h), 2);
    og_history_release(h);

    OK(og_fetch_request_add_sort(transactions, "timestamp", true, &err));
    FAILS_NULL(og_context_history(ctx, NULL, transactions, &err), OG_ERROR_INVALID_ARGUMENT, "sort");
    og_fetch_request *wrong = NN(og_fetch_request_new("Note", &err));
    FAILS_NULL(og_context_history(ctx, NULL, wrong, &err), OG_ERROR_INVALID_ARGUMENT, "Transaction");
    og_fetch_request_release(wrong);
    og_fetch_request_release(changes);
    og_fetch_request_release(transactions);
    og_predicate_release(inserts);
    og_predicate_release(by_batch);
    og_value_release(who);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    teardown();
}

/* Another coordinator saves; this one reads the history after its token and
 * merges the transaction's object IDs. */
static void merge_from_history(void) {
    setup();
    og_coordinator *mine, *theirs;
    og_context *reader = open_tracked(&mine);
    og_object *seen = note(reader, "shared");
    OK(og_context_save(reader, &err));
    og_history_token *last = NULL;
    OK(og_coordinator_current_history_token(mine, &last, &err));

    og_context *writer = open_tracked(&theirs);
    char *uri = NN(og_object_id_uri(seen, &err));
    og_object *other = NN(og_context_existing_object(writer, uri, &err));
    OK(og_object_set_string(other, "title", "changed elsewhere", &err));
    OK(og_context_save(writer, &err));

    og_history *news = NN(og_context_history(reader, last, NULL, &err));
    INTEQ(og_history_count(news), 1);
    og_changes *changes = NN(og_history_transaction_changes(news, 0, &err));
    INTEQ(og_changes_count(changes, OG_CHANGE_UPDATED), 1);
    OK(og_context_merge_remote_changes(changes, &reader, 1, &err));
    char *title = NULL;
    OK(og_object_get_string(seen, "title", &title, &err));
    STREQ(title, "changed elsewhere");
    og_free(title);
    og_changes_release(changes);
    og_history_release(news);
    og_history_token_release(last);
    og_free(uri);
    og_context_release(writer);
    og_context_release(reader);
    og_coordinator_release(theirs);
    og_coordinator_release(mine);
    teardown();
}

/* Remote-change notifications: a save by another coordinator reaches the
 * observer with the store's UUID and the history token after it. */
typedef struct {
    pthread_mutex_t lock;
    int count;
    char uuid[64];
    bool had_token;
} inbox;

static void on_remote_change(const char *store_uuid, const og_history_token *token, void *userdata) {
    inbox *in = userdata;
    pthread_mutex_lock(&in->lock);
    in->count++;
    snprintf(in->uuid, sizeof in->uuid, "%s", store_uuid);
    in->had_token = token != NULL;
    pthread_mutex_unlock(&in->lock);
}

static int received(inbox *in) {
    pthread_mutex_lock(&in->lock);
    int n = in->count;
    pthread_mutex_unlock(&in->lock);
    return n;
}

static void remote_change(void) {
    setup();
    const char *keys[] = {OG_OPTION_HISTORY_TRACKING, OG_OPTION_REMOTE_CHANGE_NOTIFICATIONS};
    og_value *on[] = {og_value_new_bool(true), og_value_new_bool(true)};
    og_value *options = NN(og_value_new_dictionary(keys, on, 2, &err));
    og_coordinator *watcher = NN(og_coordinator_new(model, &err));
    og_store *store = NN(og_coordinator_add_store_with_options(watcher, "SQLite", NULL, path, options, &err));
    inbox in = {PTHREAD_MUTEX_INITIALIZER, 0, "", false};
    uint64_t token = 0;
    OK(og_coordinator_add_remote_change_observer(watcher, on_remote_change, &in, &token, &err));

    og_coordinator *writer;
    og_context *ctx = open_tracked(&writer);
    note(ctx, "elsewhere");
    OK(og_context_save(ctx, &err));
    for (int i = 0; i < 200 && received(&in) == 0; i++) usleep(5000);
    INTEQ(received(&in), 1);
    STREQ(in.uuid, og_store_uuid(store));
    CHECK(in.had_token);

    OK(og_coordinator_remove_remote_change_observer(watcher, token, &err));
    FAILS(og_coordinator_remove_remote_change_observer(watcher, token, &err), OG_ERROR_INVALID_ARGUMENT, "token");
    FAILS(og_coordinator_add_remote_change_observer(watcher, NULL, NULL, &token, &err), OG_ERROR_INVALID_ARGUMENT, "callback");
    note(ctx, "after");
    OK(og_context_save(ctx, &err));
    usleep(200000);
    INTEQ(received(&in), 1);
    og_context_release(ctx);
    og_coordinator_release(writer);
    og_coordinator_release(watcher);
    og_value_release(options);
    og_value_release(on[0]);
    og_value_release(on[1]);
    teardown();
}

static void misuse(void) {
    setup();
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(coordinator, "InMemory", NULL, &err));
    og_context *ctx = NN(og_context_new(coordinator, &err));
    FAILS_NULL(og_context_history(ctx, NULL, NULL, &err), OG_ERROR_STORE_UNSUPPORTED_REQUEST, "history");
    FAILS_NULL(og_context_history(NULL, NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_context_delete_history(ctx, NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS_NULL(og_history_transaction_token(NULL, 0, &err), OG_ERROR_INVALID_HANDLE, "handle");
    INTEQ(og_history_count(NULL), 0);
    CHECK(!og_history_token_equal(NULL, NULL));
    og_history_release(NULL);
    og_history_token_release(NULL);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    teardown();
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {{"saves", saves}, {"tokens_and_purges", tokens_and_purges},
                                      {"filters_and_batches", filters_and_batches},
                                      {"merge_from_history", merge_from_history}, {"remote_change", remote_change},
                                      {"misuse", misuse}};
    return OG_T_RUN(cases, argc, argv);
}
