/* Results controllers through the C ABI (og_results_controller_*): sections,
 * lookups, and the callback table as the context changes. Books are shelved by
 * `small` (the section) and ordered by title within a shelf. */
#include "library_model.h"
#include "og_test_cases.h"

static og_coordinator *coordinator;
static og_context *ctx;
static og_fetch_request *request;
static char *dir;

static og_object *book(const char *title, int64_t shelf) {
    og_object *b = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string(b, "title", title, &err));
    OK(og_object_set_int64(b, "small", shelf, &err));
    return b;
}

/* Shelf 1: Antic, Cairn; shelf 2: Brume, Dune. */
static void setup(void) {
    dir = og_t_tempdir();
    char *path = og_t_path(dir, "shelves.sqlite");
    coordinator = library_open(path, false, NULL);
    free(path);
    ctx = NN(og_context_new(coordinator, &err));
    book("Cairn", 1);
    book("Dune", 2);
    book("Antic", 1);
    book("Brume", 2);
    OK(og_context_save(ctx, &err));
    request = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(request, "small", true, &err));
    OK(og_fetch_request_add_sort(request, "title", true, &err));
}

static void teardown(void) {
    og_fetch_request_release(request);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

static char *title_of(og_object *o) {
    char *t = NULL;
    OK(og_object_get_string(o, "title", &t, &err));
    return t;
}

static void sections_and_lookups(void) {
    setup();
    og_results_controller *c = NN(og_results_controller_new(ctx, request, "small", &err));
    size_t n = 99;
    INTEQ(og_results_controller_section_count(c, &n, &err), OG_NULL); /* before the fetch */
    CHECK(og_results_controller_fetched_objects(c, &err) == NULL && err == NULL);
    OK(og_results_controller_perform_fetch(c, &err));
    OK(og_results_controller_section_count(c, &n, &err));
    INTEQ(n, 2);
    char *name = NN(og_results_controller_section_name(c, 1, &err));
    STREQ(name, "2");
    og_free(name);
    char *title = NN(og_results_controller_section_index_title(c, 0, &err));
    STREQ(title, "1");
    og_free(title);
    og_results *shelf = NN(og_results_controller_section_objects(c, 0, &err));
    INTEQ(og_results_count(shelf), 2);
    og_results_release(shelf);
    og_results *all = NN(og_results_controller_fetched_objects(c, &err));
    INTEQ(og_results_count(all), 4);
    og_object *brume = NN(og_results_controller_object_at(c, 1, 0, &err));
    char *t = title_of(brume);
    STREQ(t, "Brume");
    og_free(t);
    size_t s = 9, r = 9;
    OK(og_results_controller_index_of(c, brume, &s, &r, &err));
    INTEQ(s, 1);
    INTEQ(r, 0);
    og_object *author = NN(og_context_insert(ctx, "Author", &err));
    INTEQ(og_results_controller_index_of(c, author, &s, &r, &err), OG_NULL);
    og_value *titles = NN(og_results_controller_section_index_titles(c, &err));
    INTEQ(og_value_count(titles), 2);
    og_value_release(titles);
    OK(og_results_controller_section_for_index_title(c, "2", 1, &n, &err));
    INTEQ(n, 1);
    FAILS(og_results_controller_section_for_index_title(c, "9", 0, &n, &err), OG_ERROR_INVALID_ARGUMENT, "title");
    FAILS_NULL(og_results_controller_object_at(c, 1, 2, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS_NULL(og_results_controller_section_name(c, 2, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    og_results_release(all);
    og_results_controller_release(c);
    teardown();
}

static void bad_requests(void) {
    setup();
    og_fetch_request *unsorted = NN(og_fetch_request_new("Book", &err));
    FAILS_NULL(og_results_controller_new(ctx, unsorted, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "sort");
    og_fetch_request_release(unsorted);
    /* Shelves interleave when the titles come first: the fetch says so. */
    og_fetch_request *by_title = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(by_title, "title", true, &err));
    og_results_controller *c = NN(og_results_controller_new(ctx, by_title, "small", &err));
    FAILS(og_results_controller_perform_fetch(c, &err), OG_ERROR_CORE_DATA, "order");
    og_results_controller_release(c);
    og_fetch_request_release(by_title);
    FAILS(og_results_controller_perform_fetch(NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    og_results_controller_release(NULL);
    teardown();
}

/* What the callbacks saw, one line per call. */
static char seen[2048];
static int released;
static og_results_controller *releasing; /* released by will_change when set */

static void note(const char *line) {
    strncat(seen, line, sizeof(seen) - strlen(seen) - 1);
    strncat(seen, "\n", sizeof(seen) - strlen(seen) - 1);
}

static void will_change(og_results_controller *c, void *user) {
    (void)c;
    (void)user;
    note("will");
    if (releasing) og_results_controller_release(releasing);
}

static void did_change(og_results_controller *c, void *user) {
    (void)c;
    (void)user;
    note("did");
}

static const char *kind(og_results_change change) {
    switch (change) {
    case OG_RESULTS_INSERT: return "insert";
    case OG_RESULTS_DELETE: return "delete";
    case OG_RESULTS_MOVE: return "move";
    case OG_RESULTS_UPDATE: return "update";
    }
    return "?";
}

static void section_changed(og_results_controller *c, og_results_change change, const char *name,
                            const og_results *objects, size_t index, void *user) {
    (void)c;
    (void)user;
    char line[128];
    snprintf(line, sizeof line, "section %s %zu %s (%zu)", kind(change), index, name, og_results_count(objects));
    note(line);
}

static void object_changed(og_results_controller *c, og_results_change change, og_object *object, int64_t old_section,
                           int64_t old_row, int64_t new_section, int64_t new_row, void *user) {
    (void)user;
    char *t = title_of(object);
    char line[160];
    snprintf(line, sizeof line, "%s %lld,%lld %lld,%lld %s", kind(change), (long long)old_section, (long long)old_row,
             (long long)new_section, (long long)new_row, t);
    og_free(t);
    note(line);
    /* The controller already holds the new results. */
    if (new_section >= 0) CHECK(og_results_controller_object_at(c, (size_t)new_section, (size_t)new_row, &err) == object);
}

static void release_user(void *user) { released += user == (void *)&released; }

static og_results_controller_callbacks table(void) {
    og_results_controller_callbacks t = {OG_RESULTS_CONTROLLER_CALLBACKS_VERSION, &released, will_change,
                                         section_changed, object_changed, did_change, release_user};
    return t;
}

static void callbacks(void) {
    setup();
    og_results_controller *c = NN(og_results_controller_new(ctx, request, "small", &err));
    og_results_controller_callbacks t = table();
    OK(og_results_controller_set_callbacks(c, &t, &err));
    OK(og_results_controller_perform_fetch(c, &err));
    seen[0] = 0;
    /* A new shelf and a book on it; an author touches no book: nothing for it. */
    book("Eon", 3);
    NN(og_context_insert(ctx, "Author", &err));
    OK(og_context_process_pending_changes(ctx, &err));
    STREQ(seen, "will\nsection insert 2 3 (1)\ninsert -1,-1 2,0 Eon\ndid\n");
    seen[0] = 0;
    og_object *antic = NN(og_results_controller_object_at(c, 0, 0, &err));
    OK(og_object_set_string(antic, "title", "Zenith", &err)); /* last on its shelf now */
    og_object *dune = NN(og_results_controller_object_at(c, 1, 1, &err));
    OK(og_context_delete(ctx, dune, &err));
    OK(og_context_save(ctx, &err)); /* the save processes the changes */
    STREQ(seen, "will\ndelete 1,1 -1,-1 Dune\nmove 0,0 0,1 Zenith\ndid\n");
    seen[0] = 0;
    OK(og_context_process_pending_changes(ctx, &err));
    STREQ(seen, "");
    /* A table of another version is refused; replacing the table releases the old one. */
    og_results_controller_callbacks future = table();
    future.version = 2;
    FAILS(og_results_controller_set_callbacks(c, &future, &err), OG_ERROR_INVALID_ARGUMENT, "version");
    released = 0;
    OK(og_results_controller_set_callbacks(c, NULL, &err));
    INTEQ(released, 1);
    og_results_controller_release(c);
    teardown();
}

static void released_in_a_callback(void) {
    setup();
    og_results_controller *c = NN(og_results_controller_new(ctx, request, "small", &err));
    og_results_controller_callbacks t = table();
    OK(og_results_controller_set_callbacks(c, &t, &err));
    OK(og_results_controller_perform_fetch(c, &err));
    seen[0] = 0;
    released = 0;
    releasing = c;
    book("Fable", 1);
    book("Gale", 4);
    OK(og_context_process_pending_changes(ctx, &err));
    releasing = NULL;
    /* will_change released it: nothing more of the batch ran, and the handle is gone. */
    STREQ(seen, "will\n");
    INTEQ(released, 1);
    FAILS(og_results_controller_perform_fetch(c, &err), OG_ERROR_INVALID_HANDLE, "handle");
    book("Haze", 1);
    OK(og_context_save(ctx, &err));
    STREQ(seen, "will\n");
    teardown();
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {{"sections_and_lookups", sections_and_lookups},
                                      {"bad_requests", bad_requests},
                                      {"callbacks", callbacks},
                                      {"released_in_a_callback", released_in_a_callback}};
    return OG_T_RUN(cases, argc, argv);
}
