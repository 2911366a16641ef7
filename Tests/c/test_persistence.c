/* What a store keeps: save, release every handle, reopen with a fresh model,
 * fetch sorted both ways, and read values and relationships back. */
#include "library_model.h"

static const struct {
    const char *title;
    int64_t medium;
    double published;
    const char *author;
} books[] = {
    {"Mort", 1987, 567993600.5, "Terry Pratchett"},
    {"Good Omens", 1990, 641347200.0, "Neil Gaiman"},
    {"Sourcery", 1988, 567993600.5, "Terry Pratchett"},
    {"Coraline", 2002, 1012521600.0, "Neil Gaiman"},
};
#define BOOK_COUNT 4
static const uint8_t code[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static char store_uuid[128];

static void write_store(const char *path) {
    og_store *store;
    og_coordinator *coordinator = library_open(path, false, &store);
    INTEQ(og_coordinator_store_count(coordinator), 1);
    STREQ(og_store_type(store), "SQLite");
    CHECK(strstr(NN(og_store_path(store)), "persistence.sqlite") != NULL);
    snprintf(store_uuid, sizeof store_uuid, "%s", (const char *)NN(og_store_uuid(store)));
    CHECK(strlen(store_uuid) == 36); /* a UUID in text form */

    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *pratchett = NN(og_context_insert(context, "Author", &err));
    OK(og_object_set_string(pratchett, "name", "Terry Pratchett", &err));
    og_object *gaiman = NN(og_context_insert(context, "Author", &err));
    OK(og_object_set_string(gaiman, "name", "Neil Gaiman", &err));
    for (size_t i = 0; i < BOOK_COUNT; i++) {
        og_object *book = NN(og_context_insert(context, "Book", &err));
        OK(og_object_set_string(book, "title", books[i].title, &err));
        OK(og_object_set_int64(book, "medium", books[i].medium, &err));
        OK(og_object_set_date(book, "published", books[i].published, &err));
        OK(og_object_set_object(book, "author",
                                books[i].author[0] == 'T' ? pratchett : gaiman, &err));
        if (i == 0) {
            og_value *v = NN(og_value_new_uuid(code, &err));
            OK(og_object_set_value(book, "code", v, &err));
            og_value_release(v);
            v = NN(og_value_new_decimal("12345.678", &err));
            OK(og_object_set_value(book, "price", v, &err));
            og_value_release(v);
            v = NN(og_value_new_uri("https://example.org/mort", &err));
            OK(og_object_set_value(book, "link", v, &err));
            og_value_release(v);
            OK(og_object_set_data(book, "cover", "\x89PNG\x00", 5, &err));
            OK(og_object_set_double(book, "weight", 0.25, &err));
            OK(og_object_set_bool(book, "available", false, &err));
            OK(og_object_set_int64(book, "small", -12, &err));
            OK(og_object_set_int64(book, "large", 9007199254740993LL, &err));
            OK(og_object_set_double(book, "ratio", 1.0 / 3.0, &err));
        }
    }
    OK(og_context_save(context, &err));
    og_context_release(context);
    og_coordinator_release(coordinator);
}

static char *title_at(og_results *results, size_t index) {
    char *title;
    OK(og_object_get_string(NN(og_results_object_at(results, index, &err)), "title", &title, &err));
    return title;
}

static void check_sorted(og_context *context) {
    static const char *ascending[BOOK_COUNT] = {"Coraline", "Good Omens", "Mort", "Sourcery"};
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(request, "title", true, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    INTEQ(og_results_count(results), BOOK_COUNT);
    for (size_t i = 0; i < BOOK_COUNT; i++) {
        char *title = title_at(results, i);
        STREQ(title, ascending[i]);
        og_free(title);
    }
    FAILS_NULL(og_results_object_at(results, BOOK_COUNT, &err), OG_ERROR_INVALID_ARGUMENT, "index|range|4");
    og_results_release(results);
    og_fetch_request_release(request);

    /* Descending by year; an earlier key takes precedence over a later one. */
    static const char *by_year[BOOK_COUNT] = {"Coraline", "Good Omens", "Sourcery", "Mort"};
    request = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(request, "published", false, &err));
    OK(og_fetch_request_add_sort(request, "medium", false, &err));
    results = NN(og_context_fetch(context, request, &err));
    INTEQ(og_results_count(results), BOOK_COUNT);
    for (size_t i = 0; i < BOOK_COUNT; i++) {
        char *title = title_at(results, i);
        STREQ(title, by_year[i]);
        og_free(title);
    }
    og_results_release(results);
    og_fetch_request_release(request);
}

static og_object *fetch_first(og_context *context, const char *entity, const char *sort_key) {
    og_fetch_request *request = NN(og_fetch_request_new(entity, &err));
    OK(og_fetch_request_add_sort(request, sort_key, true, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    og_object *object = NN(og_results_object_at(results, 0, &err));
    og_results_release(results); /* the object stays: the context lends it */
    og_fetch_request_release(request);
    return object;
}

static void check_values(og_context *context) {
    /* "Mort" is the earliest, first by date then title. */
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(request, "published", true, &err));
    OK(og_fetch_request_add_sort(request, "title", true, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    og_object *mort = NN(og_results_object_at(results, 0, &err));
    og_results_release(results);
    og_fetch_request_release(request);

    char *s;
    int64_t i;
    double d;
    bool b;
    void *bytes;
    size_t length;
    const char *text;
    uint8_t id[16];
    og_value *v;

    OK(og_object_get_string(mort, "title", &s, &err));
    STREQ(s, "Mort");
    og_free(s);
    OK(og_object_get_int64(mort, "small", &i, &err));
    INTEQ(i, -12);
    OK(og_object_get_int64(mort, "medium", &i, &err));
    INTEQ(i, 1987);
    OK(og_object_get_int64(mort, "large", &i, &err));
    INTEQ(i, 9007199254740993LL);
    OK(og_object_get_double(mort, "ratio", &d, &err));
    CHECK(d == 1.0 / 3.0); /* bit for bit */
    OK(og_object_get_double(mort, "weight", &d, &err));
    DBLEQ(d, 0.25);
    OK(og_object_get_bool(mort, "available", &b, &err));
    CHECK(!b);
    OK(og_object_get_date(mort, "published", &d, &err));
    DBLEQ(d, 567993600.5);
    OK(og_object_get_data(mort, "cover", &bytes, &length, &err));
    INTEQ(length, 5);
    CHECK(memcmp(bytes, "\x89PNG\x00", 5) == 0);
    og_free(bytes);
    OK(og_object_get_value(mort, "price", &v, &err));
    OK(og_value_get_decimal(v, &text, &err));
    STREQ(text, "12345.678");
    og_value_release(v);
    OK(og_object_get_value(mort, "code", &v, &err));
    OK(og_value_get_uuid(v, id, &err));
    CHECK(memcmp(id, code, 16) == 0);
    og_value_release(v);
    OK(og_object_get_value(mort, "link", &v, &err));
    OK(og_value_get_uri(v, &text, &err));
    STREQ(text, "https://example.org/mort");
    og_value_release(v);

    /* Saved objects have permanent IDs naming the store. */
    char prefix[256];
    snprintf(prefix, sizeof prefix, "x-coredata://%s/Book/p", store_uuid);
    s = NN(og_object_id_uri(mort, &err));
    CHECK(strncmp(s, prefix, strlen(prefix)) == 0);
    og_free(s);
    OK(og_object_has_temporary_id(mort, &b, &err));
    CHECK(!b);

    /* Nil values stay nil: only the first book got a cover. */
    og_object *coraline = fetch_first(context, "Book", "title");
    IS_NULL(og_object_get_data(coraline, "cover", &bytes, &length, &err));
    IS_NULL(og_object_get_double(coraline, "weight", &d, &err));
    /* Defaults were stored with the object. */
    OK(og_object_get_int64(coraline, "small", &i, &err));
    INTEQ(i, 7);
}

static void check_relationships(og_context *context) {
    og_object *gaiman = fetch_first(context, "Author", "name"); /* Neil before Terry */
    char *name;
    OK(og_object_get_string(gaiman, "name", &name, &err));
    STREQ(name, "Neil Gaiman");
    og_free(name);

    og_results *related = NN(og_object_get_related(gaiman, "books", &err));
    INTEQ(og_results_count(related), 2);
    for (size_t i = 0; i < 2; i++) {
        og_object *book = NN(og_results_object_at(related, i, &err));
        og_object *author = NULL;
        OK(og_object_get_object(book, "author", &author, &err));
        CHECK(author == gaiman); /* one handle per object and context */
        char *title;
        OK(og_object_get_string(book, "title", &title, &err));
        CHECK(strcmp(title, "Good Omens") == 0 || strcmp(title, "Coraline") == 0);
        og_free(title);
    }
    og_results_release(related);
}

int main(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "persistence.sqlite");
    write_store(path);

    og_store *store;
    og_coordinator *coordinator = library_open(path, false, &store);
    STREQ(og_store_uuid(store), store_uuid); /* the store keeps its identity */
    og_context *context = NN(og_context_new(coordinator, &err));
    og_fetch_request *all = NN(og_fetch_request_new("Book", &err));
    size_t count;
    OK(og_context_count(context, all, &count, &err));
    INTEQ(count, BOOK_COUNT);
    og_fetch_request_release(all);

    check_sorted(context);
    check_values(context);
    check_relationships(context);

    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
    puts("persistence: all checks passed");
    return 0;
}
