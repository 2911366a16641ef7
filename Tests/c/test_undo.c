/* Undo and redo through the C ABI: the undo manager's stacks, groups, levels,
 * names and registration switch; a context recording its events; undoing
 * inserts, deletes (saved or not), attribute and relationship changes; events
 * and perform blocks; and the errors of each call. */
#include "library_model.h"
#include "og_test_cases.h"

#include <pthread.h>

static char *dir;
static og_coordinator *coordinator;
static og_context *ctx;
static og_undo_manager *undo;

static void setup(void) {
    dir = og_t_tempdir();
    char *path = og_t_path(dir, "undo.sqlite");
    coordinator = library_open(path, false, NULL);
    free(path);
    ctx = NN(og_context_new(coordinator, &err));
    CHECK(og_context_undo_manager(ctx, &err) == NULL && err == NULL);
    undo = NN(og_undo_manager_new(&err));
    OK(og_context_set_undo_manager(ctx, undo, &err));
    CHECK(og_context_undo_manager(ctx, &err) == undo);
}

static void teardown(void) {
    og_context_release(ctx);
    og_undo_manager_release(undo);
    og_coordinator_release(coordinator);
    free(dir);
}

static void title_is(og_object *o, const char *expected) {
    char *title = NULL;
    OK(og_object_get_string(o, "title", &title, &err));
    STREQ(title, expected);
    og_free(title);
}

static size_t count(const char *entity) {
    og_fetch_request *r = NN(og_fetch_request_new(entity, &err));
    size_t n = 0;
    OK(og_context_count(ctx, r, &n, &err));
    og_fetch_request_release(r);
    return n;
}

static void manager(void) {
    og_undo_manager *m = NN(og_undo_manager_new(&err));
    CHECK(og_undo_manager_groups_by_event(m));
    INTEQ(og_undo_manager_levels_of_undo(m), 0);
    CHECK(!og_undo_manager_can_undo(m) && !og_undo_manager_can_redo(m));
    FAILS(og_undo_manager_end_grouping(m, &err), OG_ERROR_INVALID_ARGUMENT, "open");
    OK(og_undo_manager_begin_grouping(m, &err));
    OK(og_undo_manager_begin_grouping(m, &err));
    INTEQ(og_undo_manager_grouping_level(m), 2);
    FAILS(og_undo_manager_undo(m, &err), OG_ERROR_INVALID_ARGUMENT, "open");
    OK(og_undo_manager_end_grouping(m, &err));
    OK(og_undo_manager_end_grouping(m, &err));
    OK(og_undo_manager_undo(m, &err)); /* nothing to undo */
    OK(og_undo_manager_redo(m, &err));
    OK(og_undo_manager_set_levels_of_undo(m, 3, &err));
    INTEQ(og_undo_manager_levels_of_undo(m), 3);
    OK(og_undo_manager_set_groups_by_event(m, false, &err));
    CHECK(!og_undo_manager_groups_by_event(m));
    OK(og_undo_manager_disable_registration(m, &err));
    OK(og_undo_manager_disable_registration(m, &err));
    OK(og_undo_manager_enable_registration(m, &err));
    CHECK(!og_undo_manager_is_registration_enabled(m));
    OK(og_undo_manager_enable_registration(m, &err));
    CHECK(og_undo_manager_is_registration_enabled(m));
    FAILS(og_undo_manager_enable_registration(m, &err), OG_ERROR_INVALID_ARGUMENT, "disabled");
    char *name = NN(og_undo_manager_undo_action_name(m, &err));
    STREQ(name, "");
    og_free(name);
    OK(og_undo_manager_remove_all_actions(m, &err));
    og_undo_manager_release(m);
    /* A released manager is an invalid handle, never a crash. */
    FAILS(og_undo_manager_undo(m, &err), OG_ERROR_INVALID_HANDLE, "handle|released");
    CHECK(!og_undo_manager_can_undo(m));
    INTEQ(og_undo_manager_grouping_level(NULL), 0);
    CHECK(!og_undo_manager_is_registration_enabled(NULL));
    og_undo_manager_release(NULL);
}

static void undo_and_redo(void) {
    setup();
    og_object *book = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string(book, "title", "One", &err));
    OK(og_context_process_pending_changes(ctx, &err));
    OK(og_undo_manager_set_action_name(undo, "Insert", &err));
    OK(og_object_set_string(book, "title", "Two", &err));
    OK(og_context_process_pending_changes(ctx, &err));
    OK(og_undo_manager_set_action_name(undo, "Rename", &err));
    char *name = NN(og_undo_manager_undo_action_name(undo, &err));
    STREQ(name, "Rename");
    og_free(name);
    CHECK(og_undo_manager_can_undo(undo));
    OK(og_context_undo(ctx, &err));
    title_is(book, "One");
    name = NN(og_undo_manager_redo_action_name(undo, &err));
    STREQ(name, "Rename");
    og_free(name);
    OK(og_context_undo(ctx, &err));
    INTEQ(count("Book"), 0);
    char *title;
    FAILS(og_object_get_string(book, "title", &title, &err), OG_ERROR_OBJECT_INACCESSIBLE, "context");
    OK(og_context_redo(ctx, &err)); /* the same object, the same handle */
    title_is(book, "One");
    OK(og_undo_manager_redo(undo, &err));
    title_is(book, "Two");
    CHECK(!og_undo_manager_can_redo(undo));
    OK(og_context_save(ctx, &err));
    CHECK(og_undo_manager_can_undo(undo)); /* a save does not empty the stack */

    /* Undoing a saved change leaves the object updated, to be saved again. */
    OK(og_object_set_string(book, "title", "Three", &err));
    OK(og_context_save(ctx, &err));
    OK(og_context_undo(ctx, &err));
    title_is(book, "Two");
    bool changes;
    OK(og_context_has_changes(ctx, &changes, &err));
    CHECK(changes);
    OK(og_context_save(ctx, &err));

    /* A saved delete comes back with its values and is written again. */
    OK(og_context_delete(ctx, book, &err));
    OK(og_context_save(ctx, &err));
    INTEQ(count("Book"), 0);
    OK(og_context_undo(ctx, &err));
    title_is(book, "Two");
    OK(og_context_save(ctx, &err));
    INTEQ(count("Book"), 1);

    /* Rollback and reset empty the stacks. */
    OK(og_object_set_string(book, "title", "Four", &err));
    OK(og_context_rollback(ctx, &err));
    CHECK(!og_undo_manager_can_undo(undo) && !og_undo_manager_can_redo(undo));
    OK(og_object_set_string(book, "title", "Five", &err));
    OK(og_context_process_pending_changes(ctx, &err));
    OK(og_context_reset(ctx, &err));
    CHECK(!og_undo_manager_can_undo(undo));

    /* Without a manager, undo does nothing. */
    OK(og_context_set_undo_manager(ctx, NULL, &err));
    CHECK(og_context_undo_manager(ctx, &err) == NULL);
    OK(og_context_undo(ctx, &err));
    OK(og_context_redo(ctx, &err));
    teardown();
}

static void relationships(void) {
    setup();
    og_object *ann = NN(og_context_insert(ctx, "Author", &err));
    og_object *bob = NN(og_context_insert(ctx, "Author", &err));
    og_object *book = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_object(book, "author", ann, &err));
    OK(og_context_save(ctx, &err));
    OK(og_object_add_related(bob, "books", book, &err));
    OK(og_context_process_pending_changes(ctx, &err));
    OK(og_context_undo(ctx, &err));
    og_object *author = NULL;
    OK(og_object_get_object(book, "author", &author, &err));
    CHECK(author == ann);
    og_results *books = NN(og_object_get_related(bob, "books", &err));
    INTEQ(og_results_count(books), 0);
    og_results_release(books);
    OK(og_context_redo(ctx, &err));
    OK(og_object_get_object(book, "author", &author, &err));
    CHECK(author == bob);
    teardown();
}

struct block_state {
    og_context *context;
    int changes_seen;
};

static void count_changes(const og_notification *n, void *user) {
    (void)n;
    ((struct block_state *)user)->changes_seen++;
}

static void insert_book(void *user) {
    struct block_state *s = user;
    NN(og_context_insert(s->context, "Book", NULL));
}

static void observe(void *user) {
    struct block_state *s = user;
    uint64_t token;
    OK(og_context_add_observer(s->context, OG_NOTIFICATION_OBJECTS_DID_CHANGE, count_changes, s, &token, &err));
}

static void events(void) {
    setup();
    og_context *q = NN(og_context_new_with_type(coordinator, OG_CONCURRENCY_PRIVATE_QUEUE, &err));
    struct block_state s = {q, 0};
    OK(og_context_perform_and_wait(q, observe, &s, &err));
    OK(og_context_perform_and_wait(q, insert_book, &s, &err));
    INTEQ(s.changes_seen, 0); /* perform-and-wait is not an event */
    OK(og_context_perform(q, insert_book, &s, &err));
    og_context_release(q); /* waits for the queued block, which ends the event */
    INTEQ(s.changes_seen, 1);
    /* Names. */
    char *name = NULL;
    IS_NULL(og_context_name(ctx, &name, &err));
    CHECK(name == NULL);
    OK(og_context_set_name(ctx, "editor", &err));
    OK(og_context_name(ctx, &name, &err));
    STREQ(name, "editor");
    og_free(name);
    OK(og_context_set_name(ctx, NULL, &err));
    IS_NULL(og_context_name(ctx, &name, &err));
    teardown();
}

static void *undo_elsewhere(void *arg) {
    og_status *out = arg;
    *out = og_undo_manager_undo(undo, &err);
    return NULL;
}

static void wrong_thread(void) {
    setup();
    og_object *book = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string(book, "title", "Kept", &err));
    OK(og_context_process_pending_changes(ctx, &err));
    og_status s = OG_OK;
    pthread_t t;
    pthread_create(&t, NULL, undo_elsewhere, &s);
    pthread_join(t, NULL);
    CHECK(s == OG_ERROR);
    INTEQ(og_error_code(err), OG_ERROR_WRONG_THREAD);
    og_t_clear();
    title_is(book, "Kept");
    CHECK(og_undo_manager_can_undo(undo));
    FAILS(og_context_set_undo_manager(NULL, undo, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_context_undo(NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_context_set_name(NULL, "x", &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_undo_manager_set_action_name(undo, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    teardown();
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"manager", manager},
        {"undo_and_redo", undo_and_redo},
        {"relationships", relationships},
        {"events", events},
        {"wrong_thread", wrong_thread},
    };
    return OG_T_RUN(cases, argc, argv);
}
