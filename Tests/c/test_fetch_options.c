/* Options of object fetches through the C ABI: limit and offset, batch size,
 * subentities, pending changes, property values, faults, prefetching, and the
 * errors of each setter and getter. */
#include "library_model.h"
#include "og_test_cases.h"

/* Five books by two authors, saved; a fresh context on the same coordinator. */
static og_context *filled(char **dir_out, og_coordinator **coordinator_out) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "options.sqlite");
    og_coordinator *coordinator = library_open(path, false, NULL);
    free(path);
    og_context *seed = NN(og_context_new(coordinator, &err));
    og_object *ann = NN(og_context_insert(seed, "Author", &err));
    OK(og_object_set_string(ann, "name", "Ann", &err));
    og_object *bob = NN(og_context_insert(seed, "Author", &err));
    OK(og_object_set_string(bob, "name", "Bob", &err));
    const char *titles[] = {"Alpha", "Beta", "Gamma", "Delta", "Epsilon"};
    for (int i = 0; i < 5; i++) {
        og_object *book = NN(og_context_insert(seed, "Book", &err));
        OK(og_object_set_string(book, "title", titles[i], &err));
        OK(og_object_set_object(book, "author", i < 3 ? ann : bob, &err));
    }
    OK(og_context_save(seed, &err));
    og_context_release(seed);
    *dir_out = dir;
    *coordinator_out = coordinator;
    return NN(og_context_new(coordinator, &err));
}

static og_fetch_request *books_by_title(void) {
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(r, "title", true, &err));
    return r;
}

static bool is_fault(og_object *o) {
    bool out;
    OK(og_object_is_fault(o, &out, &err));
    return out;
}

static void title_is(og_results *results, size_t i, const char *expected) {
    og_object *o = NN(og_results_object_at(results, i, &err));
    char *title = NULL;
    OK(og_object_get_string(o, "title", &title, &err));
    STREQ(title, expected);
    og_free(title);
}

static void defaults_and_window(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_by_title();
    size_t n;
    bool on;
    OK(og_fetch_request_limit(r, &n, &err)); INTEQ(n, 0);
    OK(og_fetch_request_offset(r, &n, &err)); INTEQ(n, 0);
    OK(og_fetch_request_batch_size(r, &n, &err)); INTEQ(n, 0);
    OK(og_fetch_request_includes_subentities(r, &on, &err)); CHECK(on);
    OK(og_fetch_request_includes_pending_changes(r, &on, &err)); CHECK(on);
    OK(og_fetch_request_includes_property_values(r, &on, &err)); CHECK(on);
    OK(og_fetch_request_returns_objects_as_faults(r, &on, &err)); CHECK(on);
    INTEQ(og_fetch_request_prefetch_key_path_count(r), 0);

    OK(og_fetch_request_set_offset(r, 1, &err));
    OK(og_fetch_request_set_limit(r, 2, &err));
    OK(og_fetch_request_limit(r, &n, &err)); INTEQ(n, 2);
    OK(og_fetch_request_offset(r, &n, &err)); INTEQ(n, 1);
    og_results *window = NN(og_context_fetch(ctx, r, &err));
    INTEQ(og_results_count(window), 2);
    title_is(window, 0, "Beta");   /* Alpha | Beta, Delta | Epsilon, Gamma */
    title_is(window, 1, "Delta");
    og_results_release(window);
    size_t counted;
    OK(og_context_count(ctx, r, &counted, &err)); INTEQ(counted, 2);

    OK(og_fetch_request_set_includes_subentities(r, false, &err));
    OK(og_fetch_request_includes_subentities(r, &on, &err)); CHECK(!on);
    og_fetch_request_release(r);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

static void faults_and_batches(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_by_title();
    og_results *faults = NN(og_context_fetch(ctx, r, &err));
    og_object *first = NN(og_results_object_at(faults, 0, &err));
    CHECK(is_fault(first));             /* returnsObjectsAsFaults: row cached, still a fault */
    title_is(faults, 0, "Alpha");
    CHECK(!is_fault(first));
    og_results_release(faults);

    og_context *loaded_ctx = NN(og_context_new(coordinator, &err));
    OK(og_fetch_request_set_returns_objects_as_faults(r, false, &err));
    og_results *loaded = NN(og_context_fetch(loaded_ctx, r, &err));
    CHECK(!is_fault(NN(og_results_object_at(loaded, 4, &err))));
    og_results_release(loaded);
    og_context_release(loaded_ctx);

    og_context *batch_ctx = NN(og_context_new(coordinator, &err));
    OK(og_fetch_request_set_returns_objects_as_faults(r, true, &err));
    OK(og_fetch_request_set_batch_size(r, 2, &err));
    size_t n;
    OK(og_fetch_request_batch_size(r, &n, &err)); INTEQ(n, 2);
    og_results *batched = NN(og_context_fetch(batch_ctx, r, &err));
    INTEQ(og_results_count(batched), 5);
    for (size_t i = 0; i < 5; i++) CHECK(is_fault(NN(og_results_object_at(batched, i, &err))));
    const char *sorted[] = {"Alpha", "Beta", "Delta", "Epsilon", "Gamma"};
    for (size_t i = 0; i < 5; i++) title_is(batched, i, sorted[i]);
    og_results_release(batched);
    og_context_release(batch_ctx);

    og_context *ids_ctx = NN(og_context_new(coordinator, &err));
    OK(og_fetch_request_set_batch_size(r, 0, &err));
    OK(og_fetch_request_set_includes_property_values(r, false, &err));
    bool on;
    OK(og_fetch_request_includes_property_values(r, &on, &err)); CHECK(!on);
    og_results *ids = NN(og_context_fetch(ids_ctx, r, &err));
    CHECK(is_fault(NN(og_results_object_at(ids, 2, &err))));
    title_is(ids, 2, "Delta");          /* fired: read from the store */
    og_results_release(ids);
    og_context_release(ids_ctx);

    OK(og_fetch_request_returns_objects_as_faults(r, &on, &err)); CHECK(on);
    og_fetch_request_release(r);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

static void pending_changes(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_object *fresh = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string(fresh, "title", "Aardvark", &err));
    og_fetch_request *r = books_by_title();
    og_results *merged = NN(og_context_fetch(ctx, r, &err));
    INTEQ(og_results_count(merged), 6);
    title_is(merged, 0, "Aardvark");
    og_results_release(merged);
    OK(og_fetch_request_set_includes_pending_changes(r, false, &err));
    bool on;
    OK(og_fetch_request_includes_pending_changes(r, &on, &err)); CHECK(!on);
    og_results *stored = NN(og_context_fetch(ctx, r, &err));
    INTEQ(og_results_count(stored), 5);
    title_is(stored, 0, "Alpha");
    og_results_release(stored);
    size_t counted;
    OK(og_context_count(ctx, r, &counted, &err)); INTEQ(counted, 5);
    og_fetch_request_release(r);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

static void prefetching(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_by_title();
    OK(og_fetch_request_add_prefetch_key_path(r, "author", &err));
    OK(og_fetch_request_add_prefetch_key_path(r, "author.books", &err));
    INTEQ(og_fetch_request_prefetch_key_path_count(r), 2);
    og_results *books = NN(og_context_fetch(ctx, r, &err));
    og_object *gamma = NN(og_results_object_at(books, 4, &err));
    og_object *author = NULL;
    OK(og_object_get_object(gamma, "author", &author, &err));
    char *name = NULL;
    OK(og_object_get_string(author, "name", &name, &err));
    STREQ(name, "Ann");
    og_free(name);
    og_results_release(books);
    og_fetch_request_release(r);

    og_fetch_request *bad = books_by_title();
    OK(og_fetch_request_add_prefetch_key_path(bad, "writer", &err));
    FAILS_NULL(og_context_fetch(ctx, bad, &err), OG_ERROR_UNKNOWN_KEY, "writer");
    og_fetch_request_release(bad);
    og_fetch_request *attribute = books_by_title();
    OK(og_fetch_request_add_prefetch_key_path(attribute, "title", &err));
    FAILS_NULL(og_context_fetch(ctx, attribute, &err), OG_ERROR_TYPE_MISMATCH, "relationship");
    FAILS(og_fetch_request_add_prefetch_key_path(attribute, "", &err), OG_ERROR_INVALID_ARGUMENT, "empty");
    FAILS(og_fetch_request_add_prefetch_key_path(attribute, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "key_path");
    og_fetch_request_release(attribute);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

/* Bulk reading: every object and entity in one call, and a column of values. */
static void bulk_reads(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_by_title();
    og_results *books = NN(og_context_fetch(ctx, r, &err));
    size_t n = og_results_count(books);
    INTEQ(n, 5);
    og_object *objects[5];
    og_entity *entities[5];
    OK(og_results_objects(books, objects, entities, n, &err));
    for (size_t i = 0; i < n; i++) {
        CHECK(objects[i] == NN(og_results_object_at(books, i, &err)));
        STREQ(og_entity_name(entities[i]), "Book");
    }
    FAILS(og_results_objects(books, objects, NULL, 4, &err), OG_ERROR_INVALID_ARGUMENT, "5");
    const uint64_t *counter = og_context_change_counter(ctx);
    CHECK(counter != NULL);
    uint64_t before = *counter;
    /* "large" (int64) was never set: nil; give one book a value first. */
    OK(og_object_set_int64(objects[1], "large", 42, &err));
    CHECK(*counter != before);
    int64_t large = og_entity_slot(entities[0], "large", &err);
    CHECK(large >= 0);
    /* Several integers in one call; a bad slot fails and names it. */
    int64_t medium = og_entity_slot(entities[0], "medium", &err);
    size_t both[2] = {(size_t)large, (size_t)medium};
    int64_t numbers[2] = {7, 8};
    OK(og_object_set_int64s_at(objects[0], both, numbers, 2, &err));
    int64_t got;
    OK(og_object_get_int64_at(objects[0], (size_t)medium, &got, &err));
    INTEQ(got, 8);
    size_t bad[2] = {(size_t)large, 999};
    int64_t other[2] = {70, 80};
    FAILS(og_object_set_int64s_at(objects[0], bad, other, 2, &err), OG_ERROR_INVALID_ARGUMENT, "999");
    /* Checked first: the good slot before the bad one kept its value. */
    OK(og_object_get_int64_at(objects[0], (size_t)large, &got, &err));
    INTEQ(got, 7);
    FAILS(og_object_set_int64s_at(objects[0], NULL, numbers, 2, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    OK(og_object_set_int64s_at(objects[0], NULL, NULL, 0, &err));
    OK(og_object_set_null(objects[0], "large", &err));
    int64_t values[5];
    uint8_t states[5];
    OK(og_results_read_int64s(books, (size_t)large, values, states, n, &err));
    INTEQ(states[0], 0);
    INTEQ(states[1], 1);
    INTEQ(values[1], 42);
    double ratios[5];
    int64_t ratio = og_entity_slot(entities[0], "ratio", &err);
    OK(og_results_read_doubles(books, (size_t)ratio, ratios, states, n, &err));
    for (size_t i = 0; i < n; i++) {   /* the same as reading each object */
        double one = -1;
        og_status s = og_object_get_double_at(objects[i], (size_t)ratio, &one, &err);
        CHECK(s != OG_ERROR);
        INTEQ(states[i], s == OG_NULL ? 0 : 1);
        if (s == OG_OK) CHECK(ratios[i] == one);
    }
    int64_t title = og_entity_slot(entities[0], "title", &err);
    OK(og_results_read_int64s(books, (size_t)title, values, states, n, &err));
    for (size_t i = 0; i < n; i++) INTEQ(states[i], 2);   /* a string is not read as an integer */
    /* Several slots in one pass: each column is what its one-slot read gives. */
    size_t columns[3] = {(size_t)large, (size_t)medium, (size_t)title};
    int64_t grid[15];
    uint8_t grid_states[15];
    OK(og_results_read_int64_columns(books, columns, 3, grid, grid_states, n, &err));
    for (size_t k = 0; k < 3; k++) {
        int64_t one[5];
        uint8_t one_states[5];
        OK(og_results_read_int64s(books, columns[k], one, one_states, n, &err));
        for (size_t i = 0; i < n; i++) {
            INTEQ(grid_states[k * n + i], one_states[i]);
            if (one_states[i] == 1) INTEQ(grid[k * n + i], one[i]);
        }
    }
    INTEQ(grid_states[1], 1);          /* large of book 1 */
    INTEQ(grid[1], 42);
    INTEQ(grid[n], 8);                 /* medium of book 0 */
    INTEQ(grid_states[2 * n], 2);      /* a title is not an integer */
    size_t ratio_column[1] = {(size_t)ratio};
    double ratio_grid[5];
    OK(og_results_read_double_columns(books, ratio_column, 1, ratio_grid, grid_states, n, &err));
    for (size_t i = 0; i < n; i++) if (grid_states[i] == 1) CHECK(ratio_grid[i] == ratios[i]);
    OK(og_results_read_int64_columns(books, NULL, 0, NULL, NULL, n, &err));   /* no slots: nothing to read */
    FAILS(og_results_read_int64_columns(books, NULL, 2, grid, grid_states, n, &err), OG_ERROR_INVALID_ARGUMENT, "NULL slots");
    FAILS(og_results_read_int64_columns(books, columns, 3, grid, grid_states, 4, &err), OG_ERROR_INVALID_ARGUMENT, "5");
    FAILS(og_results_read_double_columns(NULL, ratio_column, 1, ratio_grid, grid_states, n, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_results_read_int64s(books, (size_t)large, NULL, states, n, &err), OG_ERROR_INVALID_ARGUMENT, "values");
    FAILS(og_results_read_doubles(NULL, 0, ratios, states, n, &err), OG_ERROR_INVALID_HANDLE, "handle");
    CHECK(og_context_change_counter(NULL) == NULL);
    og_results_release(books);
    og_fetch_request_release(r);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

/* The first Book matching `format`, LENT by the context; NULL when none. */
static og_object *fetch_first(og_context *context, const char *format) {
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    og_predicate *p = NN(og_predicate_parse(format, NULL, 0, &err));
    OK(og_fetch_request_set_predicate(r, p, &err));
    og_predicate_release(p);
    og_results *results = NN(og_context_fetch(context, r, &err));
    og_object *first = og_results_count(results) > 0 ? NN(og_results_object_at(results, 0, &err)) : NULL;
    og_results_release(results);
    og_fetch_request_release(r);
    return first;
}

/* A copy is independent; refreshing refetched objects gives registered ones the store's values. */
static void copy_and_refresh(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_by_title();
    OK(og_fetch_request_set_limit(r, 2, &err));
    og_fetch_request *c = NN(og_fetch_request_copy(r, &err));
    OK(og_fetch_request_set_limit(r, 0, &err));
    OK(og_fetch_request_add_sort(r, "author.name", false, &err));
    size_t n;
    OK(og_fetch_request_limit(c, &n, &err));
    INTEQ(n, 2);
    og_fetch_request_release(r);
    og_results *results = NN(og_context_fetch(ctx, c, &err));
    INTEQ(og_results_count(results), 2);
    title_is(results, 0, "Alpha");
    og_object *alpha = NN(og_results_object_at(results, 0, &err));
    og_results_release(results);

    /* Another context renames Alpha. */
    og_context *other = NN(og_context_new(coordinator, &err));
    og_object *same = NN(fetch_first(other, "title == 'Alpha'"));
    OK(og_object_set_string(same, "title", "Aleph", &err));
    OK(og_context_save(other, &err));
    og_context_release(other);

    bool on = true;
    OK(og_fetch_request_refreshes_refetched_objects(c, &on, &err));
    CHECK(!on);
    og_predicate *p = NN(og_predicate_parse("author.name == 'Ann'", NULL, 0, &err));
    OK(og_fetch_request_set_predicate(c, p, &err));
    og_predicate_release(p);
    results = NN(og_context_fetch(ctx, c, &err));
    title_is(results, 0, "Alpha"); /* registered objects keep their values */
    og_results_release(results);
    OK(og_fetch_request_set_refreshes_refetched_objects(c, true, &err));
    OK(og_fetch_request_refreshes_refetched_objects(c, &on, &err));
    CHECK(on);
    og_fetch_request *twin = NN(og_fetch_request_copy(c, &err));
    results = NN(og_context_fetch(ctx, twin, &err));
    CHECK(og_results_object_at(results, 0, &err) == alpha);
    title_is(results, 0, "Aleph");
    og_results_release(results);
    og_fetch_request_release(twin);
    og_fetch_request_release(c);
    FAILS_NULL(og_fetch_request_copy(NULL, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_refreshes_refetched_objects(NULL, true, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_refreshes_refetched_objects(NULL, &on, &err), OG_ERROR_INVALID_HANDLE, "handle");
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

/* Cars and sports cars (Tests/Fixtures/Models/Inheritance): a fetch of Car may use
 * topSpeed, which only SportsCar declares; cars without it do not match, and sort
 * first (nil). The same on an SQLite, a Binary and an in-memory store. */
static void subentity_keys(void) {
    og_model *model = NN(og_model_load(OG_FIXTURES "/Inheritance.xcdatamodeld", &err));
    char *dir = og_t_tempdir();
    const char *types[] = {"SQLite", "Binary", "InMemory"};
    for (int t = 0; t < 3; t++) {
        og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
        char *path = og_t_path(dir, t == 0 ? "cars.sqlite" : "cars.binary");
        NN(og_coordinator_add_store(coordinator, types[t], t == 2 ? "" : path, &err));
        og_context *ctx = NN(og_context_new(coordinator, &err));
        const char *plates[] = {"CAR1", "FAST1", "SLOW1"};
        double speeds[] = {0, 250, 90};
        for (int i = 0; i < 3; i++) {
            og_object *o = NN(og_context_insert(ctx, i == 0 ? "Car" : "SportsCar", &err));
            OK(og_object_set_string(o, "plate", plates[i], &err));
            if (i > 0) OK(og_object_set_double(o, "topSpeed", speeds[i], &err));
        }
        OK(og_context_save(ctx, &err));
        og_fetch_request *fast = NN(og_fetch_request_new("Car", &err));
        og_predicate *p = NN(og_predicate_parse("topSpeed > 100", NULL, 0, &err));
        OK(og_fetch_request_set_predicate(fast, p, &err));
        size_t n = 0;
        OK(og_context_count(ctx, fast, &n, &err));
        INTEQ(n, 1);
        og_results *r = NN(og_context_fetch(ctx, fast, &err));
        INTEQ(og_results_count(r), 1);
        og_results_release(r);
        og_fetch_request *sorted = NN(og_fetch_request_new("Car", &err));
        OK(og_fetch_request_add_sort(sorted, "topSpeed", true, &err));
        r = NN(og_context_fetch(ctx, sorted, &err));
        INTEQ(og_results_count(r), 3);
        char *plate = NULL;
        OK(og_object_get_string(NN(og_results_object_at(r, 0, &err)), "plate", &plate, &err));
        STREQ(plate, "CAR1");
        og_free(plate);
        og_results_release(r);
        og_predicate_release(p);
        og_fetch_request_release(sorted);
        og_fetch_request_release(fast);
        og_context_release(ctx);
        og_coordinator_release(coordinator);
        free(path);
    }
    og_model_release(model);
    og_t_remove_tree(dir);
}

static void invalid_handles(void) {
    size_t n;
    bool on;
    FAILS(og_fetch_request_set_limit(NULL, 1, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_limit(NULL, &n, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_offset(NULL, 1, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_offset(NULL, &n, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_batch_size(NULL, 1, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_batch_size(NULL, &n, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_includes_subentities(NULL, true, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_includes_subentities(NULL, &on, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_includes_pending_changes(NULL, true, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_includes_pending_changes(NULL, &on, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_includes_property_values(NULL, true, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_includes_property_values(NULL, &on, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_set_returns_objects_as_faults(NULL, true, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_returns_objects_as_faults(NULL, &on, &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_fetch_request_add_prefetch_key_path(NULL, "author", &err), OG_ERROR_INVALID_HANDLE, "handle");
    INTEQ(og_fetch_request_prefetch_key_path_count(NULL), 0);
    og_fetch_request *r = books_by_title();
    FAILS(og_fetch_request_limit(r, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "out");
    FAILS(og_fetch_request_includes_subentities(r, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "out");
    og_fetch_request_release(r);
    FAILS(og_fetch_request_set_limit(r, 1, &err), OG_ERROR_INVALID_HANDLE, "handle|released");
}

/* An insert with its integers in one call: the values are set; a refused value
 * (a bad slot, a number out of the attribute's range) inserts nothing. */
static void insert_with_integers(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_object *plain = NN(og_context_insert_int64s(ctx, "Book", NULL, NULL, 0, &err));  /* no values: a plain insert */
    og_entity *book = NN(og_object_entity(plain));
    size_t slots[3] = {(size_t)og_entity_slot(book, "small", &err), (size_t)og_entity_slot(book, "medium", &err),
                       (size_t)og_entity_slot(book, "large", &err)};
    int64_t values[3] = {5, 70000, INT64_MAX};
    og_object *made = NN(og_context_insert_int64s(ctx, "Book", slots, values, 3, &err));
    for (int k = 0; k < 3; k++) {
        int64_t got;
        OK(og_object_get_int64_at(made, slots[k], &got, &err));
        INTEQ(got, values[k]);
    }
    size_t before;
    OK(og_context_registered_count(ctx, &before, &err));
    int64_t too_large[3] = {100000, 1, 2};  /* "small" is a 16-bit integer */
    CHECK(og_context_insert_int64s(ctx, "Book", slots, too_large, 3, &err) == NULL);
    CHECK(err != NULL && og_error_code(err) != 0);
    og_error_release(err);
    err = NULL;
    size_t bad[1] = {999};
    FAILS_NULL(og_context_insert_int64s(ctx, "Book", bad, values, 1, &err), OG_ERROR_INVALID_ARGUMENT, "999");
    FAILS_NULL(og_context_insert_int64s(ctx, "Book", NULL, values, 1, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS_NULL(og_context_insert_int64s(ctx, "Nothing", slots, values, 3, &err), OG_ERROR_UNKNOWN_ENTITY, "Nothing");
    size_t after;
    OK(og_context_registered_count(ctx, &after, &err));
    INTEQ(after, before);
    OK(og_context_save(ctx, &err));
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

static void count_call(void *userdata) { (*(int *)userdata)++; }

/* og_context_on_next_value_change: called once, at the first change after it was set. */
static void value_change_watch(void) {
    char *dir; og_coordinator *coordinator;
    og_context *ctx = filled(&dir, &coordinator);
    og_fetch_request *r = books_by_title();
    og_results *books = NN(og_context_fetch(ctx, r, &err));
    og_object *book = NN(og_results_object_at(books, 0, &err));
    int calls = 0, other = 0;
    OK(og_context_on_next_value_change(ctx, count_call, &calls, &err));
    /* Reading and fetching change nothing. */
    int64_t medium;
    CHECK(og_object_get_int64(book, "medium", &medium, &err) != OG_ERROR);
    og_results_release(NN(og_context_fetch(ctx, r, &err)));
    INTEQ(calls, 0);
    const uint64_t *counter = og_context_change_counter(ctx);
    uint64_t before = *counter;
    OK(og_object_set_int64(book, "medium", 500, &err));
    INTEQ(calls, 1);
    CHECK(*counter != before);
    OK(og_object_set_int64(book, "medium", 501, &err));
    INTEQ(calls, 1);   /* once, then forgotten */
    /* A second one replaces the first, which is called then; a rollback counts as a change. */
    OK(og_context_on_next_value_change(ctx, count_call, &calls, &err));
    OK(og_context_on_next_value_change(ctx, count_call, &other, &err));
    INTEQ(calls, 2);
    INTEQ(other, 0);
    OK(og_context_rollback(ctx, &err));
    INTEQ(calls, 2);
    INTEQ(other, 1);
    /* NULL replaces it too. */
    OK(og_context_on_next_value_change(ctx, count_call, &calls, &err));
    OK(og_context_on_next_value_change(ctx, NULL, NULL, &err));
    INTEQ(calls, 3);
    OK(og_object_set_int64(book, "medium", 502, &err));
    INTEQ(calls, 3);
    FAILS(og_context_on_next_value_change(NULL, count_call, &calls, &err), OG_ERROR_INVALID_HANDLE, "handle");
    /* A queue context outside its blocks: refused, as every call of its thread rule. */
    og_context *q = NN(og_context_new_with_type(coordinator, OG_CONCURRENCY_PRIVATE_QUEUE, &err));
    FAILS(og_context_on_next_value_change(q, count_call, &calls, &err), OG_ERROR_WRONG_THREAD, "thread");
    og_context_release(q);
    /* Never called once the context is gone, though its objects' changes were pending. */
    OK(og_context_on_next_value_change(ctx, count_call, &calls, &err));
    og_results_release(books);
    og_fetch_request_release(r);
    og_context_release(ctx);
    INTEQ(calls, 3);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"defaults_and_window", defaults_and_window},
        {"faults_and_batches", faults_and_batches},
        {"pending_changes", pending_changes},
        {"prefetching", prefetching},
        {"bulk_reads", bulk_reads},
        {"copy_and_refresh", copy_and_refresh},
        {"subentity_keys", subentity_keys},
        {"invalid_handles", invalid_handles},
        {"insert_with_integers", insert_with_integers},
        {"value_change_watch", value_change_watch},
    };
    return OG_T_RUN(cases, argc, argv);
}
