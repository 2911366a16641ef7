/* Asynchronous fetches through the C ABI (og_context_fetch_async, og_async_fetch_*):
 * the fetch and its completion run on the context's queue. */
#include "library_model.h"
#include "og_test_cases.h"

#include <stdatomic.h>
#include <unistd.h>

static og_coordinator *coordinator;
static og_context *ctx;
static char *dir;

static void setup(void) {
    dir = og_t_tempdir();
    char *path = og_t_path(dir, "async.sqlite");
    coordinator = library_open(path, false, NULL);
    free(path);
    og_context *seed = NN(og_context_new(coordinator, &err));
    for (int i = 0; i < 3; i++) NN(og_context_insert(seed, "Book", &err));
    OK(og_context_save(seed, &err));
    og_context_release(seed);
    ctx = NN(og_context_new_with_type(coordinator, OG_CONCURRENCY_PRIVATE_QUEUE, &err));
}

static void teardown(void) {
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

static atomic_int completions;
static atomic_size_t seen;

/* On the context's queue: counts the completion and the objects it sees. */
static void completed(og_async_fetch *fetch, void *user) {
    (void)user;
    og_results *r = og_async_fetch_results(fetch, NULL);
    atomic_store(&seen, r ? og_results_count(r) : (size_t)-1);
    if (r) og_results_release(r);
    atomic_fetch_add(&completions, 1);
}

static void nothing(void *user) { (void)user; }
static void nap(void *user) { (void)user; usleep(100000); }

static void fetches(void) {
    setup();
    atomic_store(&completions, 0);
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    og_async_fetch *fetch = NN(og_context_fetch_async(ctx, r, 3, completed, NULL, &err));
    OK(og_context_perform_and_wait(ctx, nothing, NULL, &err)); /* the queue has run the fetch */
    INTEQ(atomic_load(&completions), 1);
    INTEQ(atomic_load(&seen), 3);
    bool done = false;
    OK(og_async_fetch_is_finished(fetch, &done, &err));
    CHECK(done);
    double progress = 0;
    OK(og_async_fetch_progress(fetch, &progress, &err));
    CHECK(progress == 1.0);
    og_results *results = NN(og_async_fetch_results(fetch, &err));
    INTEQ(og_results_count(results), 3);
    og_results_release(results);
    og_async_fetch_release(fetch);
    og_fetch_request_release(r);
    teardown();
}

static void cancelled_and_failed(void) {
    setup();
    atomic_store(&completions, 0);
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    OK(og_context_perform(ctx, nap, NULL, &err)); /* the queue is busy: the fetch waits */
    og_async_fetch *fetch = NN(og_context_fetch_async(ctx, r, 0, completed, NULL, &err));
    OK(og_async_fetch_cancel(fetch, &err));
    OK(og_context_perform_and_wait(ctx, nothing, NULL, &err));
    INTEQ(atomic_load(&completions), 1);
    INTEQ(atomic_load(&seen), 0); /* cancelled before it ran: no objects, no error */
    og_async_fetch_release(fetch);
    og_predicate *p = NN(og_predicate_parse("colour == 'red'", NULL, 0, &err));
    OK(og_fetch_request_set_predicate(r, p, &err));
    fetch = NN(og_context_fetch_async(ctx, r, 0, NULL, NULL, &err));
    OK(og_context_perform_and_wait(ctx, nothing, NULL, &err));
    FAILS_NULL(og_async_fetch_results(fetch, &err), OG_ERROR_UNKNOWN_KEY, "colour");
    og_async_fetch_release(fetch);
    og_predicate_release(p);
    /* A confinement context has no queue. */
    og_context *plain = NN(og_context_new(coordinator, &err));
    FAILS_NULL(og_context_fetch_async(plain, r, 0, NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "queue");
    FAILS(og_async_fetch_cancel(NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    og_async_fetch_release(NULL);
    og_context_release(plain);
    og_fetch_request_release(r);
    teardown();
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {{"fetches", fetches}, {"cancelled_and_failed", cancelled_and_failed}};
    return OG_T_RUN(cases, argc, argv);
}
