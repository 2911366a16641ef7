/* Many contexts through the C ABI: optimistic-locking conflicts and their
 * records, the five merge policies, merging saves between contexts (also
 * across threads and coordinators), staleness and inaccessible faults, child
 * contexts, and the errors of each call. */
#include "library_model.h"
#include "og_test_cases.h"

#include <pthread.h>
#include <sys/wait.h>

/* One saved book ("Mort", 300 pages) on a new store; *a holds it as `book`. */
static og_coordinator *saved_book(char **path_out, og_context **a, og_object **book) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "contexts.sqlite");
    og_coordinator *coordinator = library_open(path, false, NULL);
    *a = NN(og_context_new(coordinator, &err));
    *book = NN(og_context_insert(*a, "Book", &err));
    OK(og_object_set_string(*book, "title", "Mort", &err));
    OK(og_object_set_int64(*book, "medium", 300, &err));
    OK(og_context_save(*a, &err));
    *path_out = path;
    return coordinator;
}

static og_object *same_object(og_context *other, og_object *book) {
    char *uri = NN(og_object_id_uri(book, &err));
    og_object *o = NN(og_context_existing_object(other, uri, &err));
    og_free(uri);
    return o;
}

static void title_is(og_object *o, const char *expected) {
    char *title = NULL;
    OK(og_object_get_string(o, "title", &title, &err));
    STREQ(title, expected);
    og_free(title);
}

static int64_t medium(og_object *o) {
    int64_t n = 0;
    OK(og_object_get_int64(o, "medium", &n, &err));
    return n;
}

static void conflict_records(void) {
    char *path; og_context *a; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &a, &book);
    og_context *b = NN(og_context_new(coordinator, &err));
    og_object *other = same_object(b, book);
    og_merge_policy policy;
    OK(og_context_merge_policy(b, &policy, &err));
    INTEQ(policy, OG_MERGE_POLICY_ERROR);

    OK(og_object_set_string(book, "title", "Mort II", &err));
    OK(og_context_save(a, &err));
    OK(og_object_set_string(other, "title", "Sourcery", &err));
    CHECK(og_context_save(b, &err) == OG_ERROR);
    CHECK(err != NULL);
    INTEQ(og_error_code(err), OG_ERROR_MERGE);
    INTEQ(og_error_conflict_count(err), 1);
    CHECK(og_error_conflict_object(err, 0, b, NULL) == other);
    og_error *e = err;
    err = NULL;
    char *uri = NN(og_error_conflict_object_uri(e, 0, &err));
    CHECK(strncmp(uri, "x-coredata://", 13) == 0);
    og_free(uri);
    int64_t old_version, new_version;
    OK(og_error_conflict_versions(e, 0, &old_version, &new_version, &err));
    INTEQ(old_version, 1);
    INTEQ(new_version, 2);
    CHECK(og_error_conflict_has_snapshot(e, 0, OG_SNAPSHOT_OBJECT));
    CHECK(og_error_conflict_has_snapshot(e, 0, OG_SNAPSHOT_CACHED));
    CHECK(!og_error_conflict_has_snapshot(e, 0, OG_SNAPSHOT_PERSISTED));
    bool has_title = false, has_author = false;
    for (size_t i = 0; i < og_error_conflict_key_count(e, 0); i++) {
        const char *key = og_error_conflict_key_at(e, 0, i);
        has_title |= strcmp(key, "title") == 0;
        has_author |= strcmp(key, "author") == 0;
    }
    CHECK(has_title && has_author);
    CHECK(og_error_conflict_key_at(e, 0, 999) == NULL);
    og_value *v = NN(og_error_conflict_value(e, 0, OG_SNAPSHOT_CACHED, "title", &err));
    const char *text = NULL;
    OK(og_value_get_string(v, &text, &err));
    STREQ(text, "Mort II");
    og_value_release(v);
    v = NN(og_error_conflict_value(e, 0, OG_SNAPSHOT_OBJECT, "title", &err));
    OK(og_value_get_string(v, &text, &err));
    STREQ(text, "Mort");
    og_value_release(v);
    v = NN(og_error_conflict_value(e, 0, OG_SNAPSHOT_OBJECT, "author", &err));
    INTEQ(og_value_type_of(v), OG_VALUE_NULL);
    og_value_release(v);
    FAILS_NULL(og_error_conflict_value(e, 0, OG_SNAPSHOT_PERSISTED, "title", &err), OG_ERROR_INVALID_ARGUMENT, "snapshot");
    FAILS_NULL(og_error_conflict_value(e, 0, OG_SNAPSHOT_OBJECT, "nope", &err), OG_ERROR_UNKNOWN_KEY, "nope");
    FAILS_NULL(og_error_conflict_value(e, 5, OG_SNAPSHOT_OBJECT, "title", &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS_NULL(og_error_conflict_object(e, 0, a, &err), OG_ERROR_INVALID_ARGUMENT, "another");
    FAILS(og_error_conflict_versions(e, 0, NULL, &new_version, &err), OG_ERROR_INVALID_ARGUMENT, "old_version");
    og_error_release(e);

    /* Nothing was written; the change is still pending. */
    bool changes;
    OK(og_context_has_changes(b, &changes, &err));
    CHECK(changes);
    og_context *c = NN(og_context_new(coordinator, &err));
    title_is(same_object(c, book), "Mort II");

    /* Another coordinator over the file: the conflict has the persisted row. */
    og_coordinator *second = library_open(path, false, NULL);
    og_context *d = NN(og_context_new(second, &err));
    og_object *far = same_object(d, book);
    OK(og_object_set_int64(book, "medium", 301, &err));
    OK(og_context_save(a, &err));
    OK(og_object_set_int64(far, "medium", 302, &err));
    CHECK(og_context_save(d, &err) == OG_ERROR);
    INTEQ(og_error_code(err), OG_ERROR_MERGE);
    CHECK(og_error_conflict_has_snapshot(err, 0, OG_SNAPSHOT_PERSISTED));
    CHECK(!og_error_conflict_has_snapshot(err, 0, OG_SNAPSHOT_CACHED));
    og_t_clear();

    og_context_release(d);
    og_coordinator_release(second);
    og_context_release(c);
    og_context_release(b);
    og_context_release(a);
    og_coordinator_release(coordinator);
    free(path);
}

/* Each policy resolves a title changed on both sides and pages changed here. */
static void policies(void) {
    const struct { og_merge_policy policy; const char *title; int64_t pages; } cases[] = {
        {OG_MERGE_POLICY_MERGE_BY_PROPERTY_STORE_TRUMP, "Mort II", 999},
        {OG_MERGE_POLICY_MERGE_BY_PROPERTY_OBJECT_TRUMP, "Sourcery", 999},
        {OG_MERGE_POLICY_OVERWRITE, "Sourcery", 999},
        {OG_MERGE_POLICY_ROLLBACK, "Mort II", 300},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path; og_context *a; og_object *book;
        og_coordinator *coordinator = saved_book(&path, &a, &book);
        og_context *b = NN(og_context_new(coordinator, &err));
        og_object *other = same_object(b, book);
        OK(og_object_set_string(book, "title", "Mort II", &err));
        OK(og_context_save(a, &err));
        OK(og_context_set_merge_policy(b, cases[i].policy, &err));
        og_merge_policy got;
        OK(og_context_merge_policy(b, &got, &err));
        INTEQ(got, cases[i].policy);
        OK(og_object_set_string(other, "title", "Sourcery", &err));
        OK(og_object_set_int64(other, "medium", 999, &err));
        OK(og_context_save(b, &err));
        og_context *c = NN(og_context_new(coordinator, &err));
        og_object *fresh = same_object(c, book);
        title_is(fresh, cases[i].title);
        INTEQ(medium(fresh), cases[i].pages);
        og_context_release(c);
        og_context_release(b);
        og_context_release(a);
        og_coordinator_release(coordinator);
        free(path);
    }
}

struct merge_target {
    og_context *context;
    og_changes *changes;
    og_status status;
    int64_t seen_pages;
    og_object *held;
    const char *uri;
};

static void did_save(const og_notification *n, void *user) {
    og_changes **out = user;
    og_changes_release(*out);
    *out = NN(og_notification_changes(n, &err));
}

static void merge_in_block(void *user) {
    struct merge_target *t = user;
    t->status = og_context_merge_changes(t->context, t->changes, NULL);
    int64_t n = 0;
    if (og_object_get_int64(t->held, "medium", &n, NULL) == OG_OK) t->seen_pages = n;
}

static void hold_in_block(void *user) {
    struct merge_target *t = user;
    t->held = og_context_object_with_uri(t->context, t->uri, NULL);
}

static void merging(void) {
    char *path; og_context *a; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &a, &book);
    og_context *b = NN(og_context_new(coordinator, &err));
    og_object *other = same_object(b, book);
    OK(og_object_set_string(other, "title", "Local edit", &err)); /* kept by the merge */
    og_changes *changes = NULL;
    uint64_t token;
    OK(og_context_add_observer(a, OG_NOTIFICATION_DID_SAVE, did_save, &changes, &token, &err));
    OK(og_object_set_int64(book, "medium", 42, &err));
    og_object *fresh = NN(og_context_insert(a, "Book", &err));
    OK(og_object_set_string(fresh, "title", "Eric", &err));
    OK(og_context_save(a, &err));
    CHECK(changes != NULL);
    INTEQ(og_changes_count(changes, OG_CHANGE_UPDATED), 1);
    INTEQ(og_changes_count(changes, OG_CHANGE_INSERTED), 1);
    INTEQ(og_changes_count(changes, OG_CHANGE_DELETED), 0);
    char *uri = NN(og_changes_uri_at(changes, OG_CHANGE_INSERTED, 0, &err));
    CHECK(strstr(uri, "/Book/p") != NULL);
    og_free(uri);
    FAILS_NULL(og_changes_uri_at(changes, OG_CHANGE_DELETED, 0, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS(og_changes_add(changes, OG_CHANGE_UPDATED, "x-coredata://A/Book/p1", &err), OG_ERROR_INVALID_ARGUMENT, "notification");

    OK(og_context_merge_changes(b, changes, &err));
    INTEQ(medium(other), 42);
    title_is(other, "Local edit");
    og_fetch_request *all = NN(og_fetch_request_new("Book", &err));
    size_t n;
    OK(og_context_count(b, all, &n, &err));
    INTEQ(n, 2);

    /* A delete merged: the object is marked deleted and no longer fetched. */
    OK(og_context_delete(a, fresh, &err));
    OK(og_context_save(a, &err));
    OK(og_context_merge_changes(b, changes, &err));
    OK(og_context_count(b, all, &n, &err));
    INTEQ(n, 1);

    /* Into a private-queue context, on its queue. */
    og_context *q = NN(og_context_new_with_type(coordinator, OG_CONCURRENCY_PRIVATE_QUEUE, &err));
    char *book_uri = NN(og_object_id_uri(book, &err));
    struct merge_target t = {q, NULL, OG_ERROR, 0, NULL, book_uri};
    OK(og_context_perform_and_wait(q, hold_in_block, &t, &err));
    CHECK(t.held != NULL);
    OK(og_object_set_int64(book, "medium", 77, &err));
    OK(og_context_save(a, &err));
    t.changes = changes;
    OK(og_context_perform_and_wait(q, merge_in_block, &t, &err));
    INTEQ(t.status, OG_OK);
    INTEQ(t.seen_pages, 77);
    /* From the wrong thread: refused. */
    FAILS(og_context_merge_changes(q, changes, &err), OG_ERROR_WRONG_THREAD, "thread");
    og_free(book_uri);

    /* From another coordinator: refused; merged by URI instead. */
    og_coordinator *second = library_open(path, false, NULL);
    og_context *far = NN(og_context_new(second, &err));
    og_object *far_book = same_object(far, book);
    FAILS(og_context_merge_changes(far, changes, &err), OG_ERROR_INVALID_ARGUMENT, "coordinator");
    OK(og_object_set_int64(book, "medium", 88, &err));
    OK(og_context_save(a, &err));
    og_changes *remote = NN(og_changes_new(&err));
    book_uri = NN(og_object_id_uri(book, &err));
    OK(og_changes_add(remote, OG_CHANGE_UPDATED, book_uri, &err));
    OK(og_changes_add(remote, OG_CHANGE_UPDATED, "x-coredata://NO-SUCH-STORE/Book/p9", &err));
    FAILS(og_changes_add(remote, OG_CHANGE_UPDATED, "not a uri", &err), OG_ERROR_INVALID_ARGUMENT, "URI");
    FAILS(og_changes_add(remote, 7, book_uri, &err), OG_ERROR_INVALID_ARGUMENT, "og_change_kind");
    INTEQ(og_changes_count(remote, OG_CHANGE_UPDATED), 2);
    og_context *targets[] = {far};
    OK(og_context_merge_remote_changes(remote, targets, 1, &err));
    INTEQ(medium(far_book), 88);
    FAILS(og_context_merge_remote_changes(remote, NULL, 1, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    og_free(book_uri);
    og_changes_release(remote);

    og_fetch_request_release(all);
    og_changes_release(changes);
    og_context_release(far);
    og_coordinator_release(second);
    og_context_release(q);
    og_context_release(b);
    og_context_release(a);
    og_coordinator_release(coordinator);
    free(path);
}

static void automatic_merging(void) {
    char *path; og_context *a; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &a, &book);
    og_context *b = NN(og_context_new(coordinator, &err));
    bool on = true;
    OK(og_context_automatically_merges_changes_from_parent(b, &on, &err));
    CHECK(!on);
    OK(og_context_set_automatically_merges_changes_from_parent(b, true, &err));
    OK(og_context_automatically_merges_changes_from_parent(b, &on, &err));
    CHECK(on);
    og_object *other = same_object(b, book);
    OK(og_object_set_int64(book, "medium", 5, &err));
    OK(og_context_save(a, &err));
    INTEQ(medium(other), 5);
    og_context_release(b);
    og_context_release(a);
    og_coordinator_release(coordinator);
    free(path);
}

static void staleness_and_faults(void) {
    char *path; og_context *a; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &a, &book);
    og_context *b = NN(og_context_new(coordinator, &err));
    double seconds = 0;
    OK(og_context_staleness_interval(b, &seconds, &err));
    CHECK(seconds < 0);
    OK(og_context_set_staleness_interval(b, 0, &err));
    OK(og_context_staleness_interval(b, &seconds, &err));
    CHECK(seconds == 0);
    FAILS(og_context_set_staleness_interval(b, NAN, &err), OG_ERROR_INVALID_ARGUMENT, "NaN");
    bool on = false;
    OK(og_context_should_delete_inaccessible_faults(b, &on, &err));
    CHECK(on);

    /* Another coordinator changes the row; with staleness 0 a refresh reads it. */
    og_object *other = same_object(b, book);
    og_coordinator *second = library_open(path, false, NULL);
    og_context *far = NN(og_context_new(second, &err));
    og_object *far_book = same_object(far, book);
    OK(og_object_set_int64(far_book, "medium", 11, &err));
    OK(og_context_save(far, &err));
    OK(og_context_refresh_all_objects(b, &err));
    INTEQ(medium(other), 11);

    /* The row goes: the fault becomes a deleted object with empty values. */
    og_object *fault = same_object(b, book);
    OK(og_context_refresh_object(b, fault, false, &err));
    OK(og_context_delete(far, far_book, &err));
    OK(og_context_save(far, &err));
    int64_t n = -1;
    IS_NULL(og_object_get_int64(fault, "medium", &n, &err));
    OK(og_context_set_should_delete_inaccessible_faults(b, false, &err));
    OK(og_context_should_delete_inaccessible_faults(b, &on, &err));
    CHECK(!on);
    og_context_release(far);
    og_coordinator_release(second);
    og_context_release(b);
    og_context_release(a);
    og_coordinator_release(coordinator);
    free(path);
}

static void child_contexts(void) {
    char *path; og_context *root; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &root, &book);
    CHECK(!og_context_has_parent(root));
    og_context *child = NN(og_context_new_child(root, OG_CONCURRENCY_CONFINEMENT, &err));
    CHECK(og_context_has_parent(child));
    FAILS_NULL(og_context_new_child(root, 9, &err), OG_ERROR_INVALID_ARGUMENT, "og_concurrency_type");
    FAILS_NULL(og_context_new_child(NULL, OG_CONCURRENCY_CONFINEMENT, &err), OG_ERROR_INVALID_HANDLE, "handle");

    /* The child sees the parent's unsaved change. */
    OK(og_object_set_string(book, "title", "Parent edit", &err));
    og_object *mine = same_object(child, book);
    title_is(mine, "Parent edit");

    /* The child's save reaches the parent only. */
    OK(og_object_set_int64(mine, "medium", 123, &err));
    og_object *fresh = NN(og_context_insert(child, "Book", &err));
    OK(og_object_set_string(fresh, "title", "Child book", &err));
    OK(og_context_save(child, &err));
    bool changes;
    OK(og_context_has_changes(child, &changes, &err));
    CHECK(!changes);
    INTEQ(medium(book), 123);
    og_fetch_request *all = NN(og_fetch_request_new("Book", &err));
    size_t n;
    OK(og_context_count(root, all, &n, &err));
    INTEQ(n, 2);
    og_coordinator *second = library_open(path, false, NULL);
    og_context *outside = NN(og_context_new(second, &err));
    OK(og_context_count(outside, all, &n, &err));
    INTEQ(n, 1); /* the store is untouched until the root saves */
    OK(og_context_save(root, &err));
    OK(og_context_count(outside, all, &n, &err));
    INTEQ(n, 2);

    og_fetch_request_release(all);
    og_context_release(outside);
    og_coordinator_release(second);
    og_context_release(child);
    og_context_release(root);
    og_coordinator_release(coordinator);
    free(path);
}

/* Ties go to stored rows by key, then to objects not saved yet in the order
 * they were made: a child orders its parent's unsaved objects as the parent
 * does, for objects, object IDs and windows. */
static void child_orders_unsaved_objects_like_its_parent(void) {
    char *path; og_context *root; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &root, &book);
    og_object *parents = NN(og_context_insert(root, "Book", &err));
    OK(og_object_set_string(parents, "title", "Parent new", &err));
    og_context *child = NN(og_context_new_child(root, OG_CONCURRENCY_CONFINEMENT, &err));
    og_object *childs = NN(og_context_insert(child, "Book", &err));
    OK(og_object_set_string(childs, "title", "Child new", &err));

    og_fetch_request *all = NN(og_fetch_request_new("Book", &err));
    og_results *results = NN(og_context_fetch(child, all, &err));
    INTEQ(og_results_count(results), 3);
    title_is(NN(og_results_object_at(results, 0, &err)), "Mort");
    title_is(NN(og_results_object_at(results, 1, &err)), "Parent new");
    title_is(NN(og_results_object_at(results, 2, &err)), "Child new");
    og_object_ids *ids = NN(og_context_fetch_object_ids(child, all, &err));
    INTEQ(og_object_ids_count(ids), 3);
    for (size_t i = 0; i < 3; i++) {
        char *uri = NN(og_object_id_uri(NN(og_results_object_at(results, i, &err)), &err));
        STREQ(NN(og_object_ids_uri_at(ids, i, &err)), uri);
        og_free(uri);
    }
    og_object_ids_release(ids);
    og_results_release(results);

    OK(og_fetch_request_set_offset(all, 1, &err));
    OK(og_fetch_request_set_limit(all, 1, &err));
    results = NN(og_context_fetch(child, all, &err));
    INTEQ(og_results_count(results), 1);
    title_is(NN(og_results_object_at(results, 0, &err)), "Parent new");
    og_results_release(results);

    og_fetch_request_release(all);
    og_context_release(child);
    og_context_release(root);
    og_coordinator_release(coordinator);
    free(path);
}

/* The child side of conflict_across_processes, run as its own program (a fork
 * after the library started its queues is not safe; exec is). */
static int child_update(const char *path, const char *uri) {
    og_coordinator *coordinator = library_open(path, false, NULL);
    og_context *ctx = NN(og_context_new(coordinator, &err));
    og_object *o = NN(og_context_existing_object(ctx, uri, &err));
    OK(og_object_set_int64(o, "medium", 4242, &err));
    OK(og_context_save(ctx, &err));
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    return 0;
}

static void conflict_across_processes(void) {
    char *path; og_context *a; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &a, &book);
    char *uri = NN(og_object_id_uri(book, &err));
    OK(og_object_set_string(book, "title", "This process", &err));
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "test_contexts", "--child-update", path, uri, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(og_context_save(a, &err) == OG_ERROR);
    INTEQ(og_error_code(err), OG_ERROR_MERGE);
    CHECK(og_error_conflict_has_snapshot(err, 0, OG_SNAPSHOT_PERSISTED));
    og_value *v = NN(og_error_conflict_value(err, 0, OG_SNAPSHOT_PERSISTED, "medium", NULL));
    int64_t n = 0;
    CHECK(og_value_get_int64(v, &n, NULL) == OG_OK && n == 4242);
    og_value_release(v);
    og_t_clear();
    /* Catch up keeping the change, and save. */
    OK(og_context_refresh_object(a, book, true, &err));
    OK(og_context_save(a, &err));
    og_context *c = NN(og_context_new(coordinator, &err));
    og_object *fresh = same_object(c, book);
    title_is(fresh, "This process");
    INTEQ(medium(fresh), 4242);
    og_free(uri);
    og_context_release(c);
    og_context_release(a);
    og_coordinator_release(coordinator);
    free(path);
}

/* A handle given back is invalid; the object is lent again under a new handle. */
static void released_objects(void) {
    char *path; og_context *a; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &a, &book);
    og_context *b = NN(og_context_new(coordinator, &err));
    og_fetch_request *all = NN(og_fetch_request_new("Book", &err));
    og_results *results = NN(og_context_fetch(b, all, &err));
    og_object *first = NN(og_results_object_at(results, 0, &err));
    title_is(first, "Mort");
    OK(og_context_release_object(b, first, &err));
    char *title;
    FAILS(og_object_get_string(first, "title", &title, &err), OG_ERROR_INVALID_HANDLE, "released");
    FAILS(og_context_release_object(b, first, &err), OG_ERROR_INVALID_HANDLE, "lent");
    FAILS(og_context_release_object(a, NULL, &err), OG_ERROR_INVALID_HANDLE, "lent");
    og_object *again = NN(og_results_object_at(results, 0, &err));
    CHECK(again != first);
    title_is(again, "Mort");
    /* A handle lent by another context is not this context's to give back. */
    FAILS(og_context_release_object(a, again, &err), OG_ERROR_INVALID_HANDLE, "lent");
    og_results_release(results);
    og_fetch_request_release(all);
    og_context_release(b);
    og_context_release(a);
    og_coordinator_release(coordinator);
    free(path);
}

/* An object lent and given back thousands of times: every new handle works, the old ones
   do not, a handle asked for twice is the same, and releasing the context ends them all. */
static void lent_again_and_again(void) {
    char *path; og_context *a; og_object *book;
    og_coordinator *coordinator = saved_book(&path, &a, &book);
    og_context *b = NN(og_context_new(coordinator, &err));
    og_fetch_request *all = NN(og_fetch_request_new("Book", &err));
    og_results *results = NN(og_context_fetch(b, all, &err));
    og_object *previous = NULL;
    for (int i = 0; i < 3000; i++) {
        og_object *o = NN(og_results_object_at(results, 0, &err));
        CHECK(o != previous);
        CHECK(og_results_object_at(results, 0, &err) == o);
        if (previous) {
            char *title;
            FAILS(og_object_get_string(previous, "title", &title, &err), OG_ERROR_INVALID_HANDLE, "released");
        }
        if (i % 500 == 0) title_is(o, "Mort");
        OK(og_context_release_object(b, o, &err));
        previous = o;
    }
    /* Several at once: the live ones are given back even when one is not. */
    og_object *again = NN(og_results_object_at(results, 0, &err));
    og_object *both[2] = {again, previous};
    FAILS(og_context_release_objects(b, both, 2, &err), OG_ERROR_INVALID_HANDLE, "1 of the 2");
    char *gone_title;
    FAILS(og_object_get_string(again, "title", &gone_title, &err), OG_ERROR_INVALID_HANDLE, "released");
    OK(og_context_release_objects(b, NULL, 0, &err));
    FAILS(og_context_release_objects(b, NULL, 1, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS(og_context_release_objects(NULL, both, 2, &err), OG_ERROR_INVALID_HANDLE, "handle");
    og_object *one[1] = {NN(og_results_object_at(results, 0, &err))};
    OK(og_context_release_objects(b, one, 1, &err));
    og_object *kept = NN(og_results_object_at(results, 0, &err));
    CHECK(kept != one[0]);
    title_is(kept, "Mort");
    og_results_release(results);
    /* The context lent it, so it outlives the results, and ends with the context. */
    title_is(kept, "Mort");
    og_context_release(b);
    char *title;
    FAILS(og_object_get_string(kept, "title", &title, &err), OG_ERROR_INVALID_HANDLE, "released");
    og_fetch_request_release(all);
    og_context_release(a);
    og_coordinator_release(coordinator);
    free(path);
}

static void invalid_handles(void) {
    og_merge_policy policy;
    FAILS(og_context_merge_policy(NULL, &policy, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_context_set_merge_policy(NULL, OG_MERGE_POLICY_OVERWRITE, &err), OG_ERROR_INVALID_HANDLE, "handle");
    INTEQ(og_error_conflict_count(NULL), 0);
    INTEQ(og_error_conflict_key_count(NULL, 0), 0);
    CHECK(!og_error_conflict_has_snapshot(NULL, 0, OG_SNAPSHOT_OBJECT));
    INTEQ(og_changes_count(NULL, OG_CHANGE_INSERTED), 0);
    og_changes_release(NULL);
    FAILS(og_context_merge_changes(NULL, NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    double d;
    bool b;
    FAILS(og_context_staleness_interval(NULL, &d, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_context_should_delete_inaccessible_faults(NULL, &b, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_context_refresh_all_objects(NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_context_automatically_merges_changes_from_parent(NULL, &b, &err), OG_ERROR_INVALID_HANDLE, "handle");
    CHECK(!og_context_has_parent(NULL));

    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "bad.sqlite");
    og_coordinator *coordinator = library_open(path, false, NULL);
    og_context *ctx = NN(og_context_new(coordinator, &err));
    FAILS(og_context_set_merge_policy(ctx, (og_merge_policy)5, &err), OG_ERROR_INVALID_ARGUMENT, "og_merge_policy");
    FAILS(og_context_merge_policy(ctx, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "out");
    og_changes *released = NN(og_changes_new(&err));
    og_changes_release(released);
    FAILS(og_context_merge_changes(ctx, released, &err), OG_ERROR_INVALID_HANDLE, "handle|released");
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    free(path);
    free(dir);
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--child-update") == 0) return child_update(argv[2], argv[3]);
    static const og_t_case cases[] = {
        {"conflict_across_processes", conflict_across_processes},
        {"conflict_records", conflict_records},
        {"policies", policies},
        {"merging", merging},
        {"automatic_merging", automatic_merging},
        {"staleness_and_faults", staleness_and_faults},
        {"child_contexts", child_contexts},
        {"child_orders_unsaved_objects_like_its_parent", child_orders_unsaved_objects_like_its_parent},
        {"released_objects", released_objects},
        {"lent_again_and_again", lent_again_and_again},
        {"invalid_handles", invalid_handles},
    };
    return OG_T_RUN(cases, argc, argv);
}
