/* A context belongs to the thread that created it: calls from another thread
 * fail with OG_ERROR_WRONG_THREAD and leave the context intact. */
#include "library_model.h"

#include <pthread.h>

static og_context *context;
static og_object *book;

/* Each check runs on the other thread; failures exit the process, which
 * ctest reports like any other. */
static void *use_from_other_thread(void *unused) {
    (void)unused;
    FAILS_NULL(og_context_insert(context, "Book", &err), OG_ERROR_WRONG_THREAD, "thread");
    bool b;
    FAILS(og_context_has_changes(context, &b, &err), OG_ERROR_WRONG_THREAD, "thread");
    FAILS(og_context_save(context, &err), OG_ERROR_WRONG_THREAD, "thread");
    FAILS(og_object_set_int64(book, "small", 1, &err), OG_ERROR_WRONG_THREAD, "thread");
    int64_t i;
    FAILS(og_object_get_int64(book, "small", &i, &err), OG_ERROR_WRONG_THREAD, "thread");
    /* Models and values may be used from any thread. */
    og_value *v = NN(og_value_new_int64(3));
    og_value_release(v);
    return NULL;
}

int main(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "thread.sqlite");
    og_coordinator *coordinator = library_open(path, false, NULL);
    context = NN(og_context_new(coordinator, &err));
    book = NN(og_context_insert(context, "Book", &err));

    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, use_from_other_thread, NULL) == 0);
    CHECK(pthread_join(thread, NULL) == 0);

    /* The owning thread carries on as if nothing happened. */
    int64_t i;
    OK(og_object_get_int64(book, "small", &i, &err));
    INTEQ(i, 7);
    size_t count;
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    OK(og_context_count(context, request, &count, &err));
    INTEQ(count, 1);
    OK(og_context_save(context, &err));
    og_fetch_request_release(request);

    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
    puts("thread: all checks passed");
    return 0;
}
