/* Persistent containers and store descriptions (NSPersistentContainer,
 * NSPersistentStoreDescription) through the C ABI, one ctest per case. */
#include <pthread.h>
#include <unistd.h>

#include "library_model.h"
#include "og_test_cases.h"

/* What load handlers and background tasks saw, guarded for other threads. */
struct seen {
    pthread_mutex_t lock;
    pthread_cond_t done;
    int calls;
    int64_t codes[4];
    char paths[4][512];
    pthread_t thread;
};

static void seen_init(struct seen *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->done, NULL);
}

static void seen_wait(struct seen *s, int calls) {
    pthread_mutex_lock(&s->lock);
    while (s->calls < calls) pthread_cond_wait(&s->done, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

static void on_load(og_store_description *description, const og_error *error, void *userdata) {
    struct seen *s = userdata;
    pthread_mutex_lock(&s->lock);
    int n = s->calls;
    if (n < 4) {
        s->codes[n] = error ? og_error_code(error) : 0;
        const char *path = og_store_description_path(description);
        snprintf(s->paths[n], sizeof s->paths[n], "%s", path ? path : "");
    }
    s->thread = pthread_self();
    s->calls++;
    pthread_cond_broadcast(&s->done);
    pthread_mutex_unlock(&s->lock);
}

static og_container *make_container(const char *name) {
    og_model *model = library_model_new(false);
    og_container *container = NN(og_container_new(name, model, &err));
    og_model_release(model);
    return container;
}

static void defaults(void) {
    char *dir = og_t_tempdir();
    setenv("XDG_DATA_HOME", dir, 1);
    char *folder = NN(og_container_default_directory());
    char expected[1024];
    snprintf(expected, sizeof expected, "%s/objectgraph", dir);
    STREQ(folder, expected);
    CHECK(access(folder, F_OK) == 0);

    og_container *container = make_container("Library");
    STREQ(og_container_name(container), "Library");
    INTEQ(og_container_description_count(container), 1);
    og_store_description *d = NN(og_container_description_at(container, 0, &err));
    STREQ(og_store_description_type(d), "SQLite");
    snprintf(expected, sizeof expected, "%s/objectgraph/Library.sqlite", dir);
    STREQ(og_store_description_path(d), expected);
    CHECK(og_store_description_configuration(d) == NULL);
    OK(og_store_description_set_configuration(d, "Audit", &err));
    STREQ(og_store_description_configuration(d), "Audit");
    OK(og_store_description_set_configuration(d, NULL, &err));
    CHECK(og_store_description_configuration(d) == NULL);
    bool later = true;
    OK(og_store_description_adds_asynchronously(d, &later, &err));
    CHECK(!later);
    /* Apple's defaults: migrate and infer automatically. */
    og_value *migrate = NN(og_store_description_option(d, OG_OPTION_MIGRATE_AUTOMATICALLY, &err));
    bool yes = false;
    OK(og_value_get_bool(migrate, &yes, &err));
    CHECK(yes);
    og_value_release(migrate);
    CHECK(og_store_description_option(d, "NSReadOnlyPersistentStoreOption", &err) == NULL && err == NULL);
    og_value *all = NN(og_store_description_options(d, &err));
    INTEQ(og_value_count(all), 2);
    og_value_release(all);
    INTEQ(og_context_concurrency_type(NN(og_container_view_context(container, &err))), OG_CONCURRENCY_MAIN_QUEUE);
    FAILS_NULL(og_container_description_at(container, 1, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    og_container_release(container);

    og_model *model = library_model_new(false);
    FAILS_NULL(og_container_new("a/b", model, &err), OG_ERROR_INVALID_ARGUMENT, "name");
    og_model_release(model);
    og_free(folder);
    unsetenv("XDG_DATA_HOME");
    og_t_remove_tree(dir);
}

static void task_insert(og_context *context, void *userdata) {
    struct seen *s = userdata;
    og_object *author = og_context_insert(context, "Author", NULL);
    og_object_set_string(author, "name", "Background", NULL);
    og_status status = og_context_save(context, NULL);
    pthread_mutex_lock(&s->lock);
    s->codes[0] = status;
    s->thread = pthread_self();
    s->calls++;
    pthread_cond_broadcast(&s->done);
    pthread_mutex_unlock(&s->lock);
}

struct counting {
    og_context *context;
    size_t count;
};

/* Runs on the view context's queue. */
static void count_authors(void *userdata) {
    struct counting *c = userdata;
    og_fetch_request *request = og_fetch_request_new("Author", NULL);
    og_context_count(c->context, request, &c->count, NULL);
    og_fetch_request_release(request);
}

static void load_and_contexts(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "books.sqlite");
    char *xml = og_t_path(dir, "books.xml");
    og_container *container = make_container("Books");
    og_store_description *sqlite = NN(og_store_description_new(path, NULL, &err));
    og_store_description *bad = NN(og_store_description_new(xml, "Nope", &err));
    og_store_description *list[] = {sqlite, bad};
    OK(og_container_set_descriptions(container, list, 2, &err));
    og_store_description_release(sqlite);
    og_store_description_release(bad);

    struct seen s;
    seen_init(&s);
    OK(og_container_load_stores(container, on_load, &s, &err));
    INTEQ(s.calls, 2);
    INTEQ(s.codes[0], 0);
    STREQ(s.paths[0], path);
    INTEQ(s.codes[1], OG_ERROR_STORE_INVALID_TYPE);
    og_coordinator *coordinator = NN(og_container_coordinator(container, &err));
    INTEQ(og_coordinator_store_count(coordinator), 1);
    og_store *added = NN(og_coordinator_store_at(coordinator, 0, &err));
    CHECK(added == og_coordinator_store_at(coordinator, 0, &err)); /* lent: the same handle each time */
    FAILS_NULL(og_coordinator_store_at(coordinator, 1, &err), OG_ERROR_INVALID_ARGUMENT, "range");

    /* A background task saves; the view context (main queue) sees it. */
    seen_init(&s);
    OK(og_container_perform_background_task(container, task_insert, &s, &err));
    seen_wait(&s, 1);
    INTEQ(s.codes[0], OG_OK);
    CHECK(!pthread_equal(s.thread, pthread_self()));
    struct counting counting = {NN(og_container_view_context(container, &err)), 0};
    OK(og_context_perform_and_wait(counting.context, count_authors, &counting, &err));
    INTEQ(counting.count, 1);

    og_context *background = NN(og_container_new_background_context(container, &err));
    INTEQ(og_context_concurrency_type(background), OG_CONCURRENCY_PRIVATE_QUEUE);
    og_context_release(background);
    FAILS(og_container_perform_background_task(container, NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS(og_container_load_stores(container, NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    og_container_release(container);
    free(xml);
    free(path);
    og_t_remove_tree(dir);
}

static void asynchronous(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "later.xml");
    og_container *container = make_container("Later");
    og_store_description *d = NN(og_container_description_at(container, 0, &err));
    OK(og_store_description_set_path(d, path, &err));
    OK(og_store_description_set_type(d, "XML", &err));
    OK(og_store_description_set_adds_asynchronously(d, true, &err));
    og_value *yes = og_value_new_bool(true);
    OK(og_store_description_set_option(d, "NSReadOnlyPersistentStoreOption", yes, &err));
    OK(og_store_description_set_option(d, "NSReadOnlyPersistentStoreOption", NULL, &err));
    og_value_release(yes);
    FAILS(og_store_description_set_type(d, "", &err), OG_ERROR_INVALID_ARGUMENT, "empty");
    STREQ(og_store_description_type(d), "XML");

    struct seen s;
    seen_init(&s);
    OK(og_container_load_stores(container, on_load, &s, &err));
    seen_wait(&s, 1);
    INTEQ(s.codes[0], 0);
    STREQ(s.paths[0], path);
    CHECK(!pthread_equal(s.thread, pthread_self()));
    og_coordinator *coordinator = NN(og_container_coordinator(container, &err));
    INTEQ(og_coordinator_store_count(coordinator), 1);
    og_container_release(container);
    free(path);
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"defaults", defaults},
    {"load_and_contexts", load_and_contexts},
    {"asynchronous", asynchronous},
};

int main(int argc, char **argv) { return OG_T_RUN(cases, argc, argv); }
