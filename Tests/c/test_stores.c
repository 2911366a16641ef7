/* The store types beyond SQLite, one ctest per case: the in-memory store. */
#include "library_model.h"
#include "og_test_cases.h"

static og_object *insert_book(og_context *context, const char *title, int64_t medium, og_object *author) {
    og_object *book = NN(og_context_insert(context, "Book", &err));
    OK(og_object_set_string(book, "title", title, &err));
    OK(og_object_set_int64(book, "medium", medium, &err));
    if (author) OK(og_object_set_object(book, "author", author, &err));
    return book;
}

static og_coordinator *open_with(const char *type, const char *path, og_store **store) {
    og_model *model = library_model_new(false);
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    *store = NN(og_coordinator_add_store(coordinator, type, path, &err));
    return coordinator;
}

/* Titles of `entity` matching `format` (NULL: all), sorted by title, joined by ','. */
static void titles(og_context *context, const char *format, char *out, size_t size) {
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    if (format) {
        og_predicate *p = NN(og_predicate_parse(format, NULL, 0, &err));
        OK(og_fetch_request_set_predicate(request, p, &err));
        og_predicate_release(p);
    }
    OK(og_fetch_request_add_sort(request, "title", true, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    out[0] = '\0';
    for (size_t i = 0; i < og_results_count(results); i++) {
        char *title = NULL;
        OK(og_object_get_string(NN(og_results_object_at(results, i, &err)), "title", &title, &err));
        if (i) strncat(out, ",", size - strlen(out) - 1);
        strncat(out, title, size - strlen(out) - 1);
        og_free(title);
    }
    og_results_release(results);
    og_fetch_request_release(request);
}

static void in_memory(void) {
    og_store *store;
    og_coordinator *coordinator = open_with("InMemory", NULL, &store);
    STREQ(og_store_type(store), "InMemory");
    STREQ(og_store_path(store), "");
    INTEQ(strlen(NN(og_store_uuid(store))), 36);

    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *pratchett = NN(og_context_insert(context, "Author", &err));
    OK(og_object_set_string(pratchett, "name", "Terry Pratchett", &err));
    insert_book(context, "Mort", 1987, pratchett);
    insert_book(context, "Sourcery", 1988, pratchett);
    insert_book(context, "Coraline", 2002, NULL);
    OK(og_context_save(context, &err));

    /* A second context reads what the store keeps, filtered and sorted in memory. */
    og_context *fresh = NN(og_context_new(coordinator, &err));
    char buffer[256];
    titles(fresh, NULL, buffer, sizeof buffer);
    STREQ(buffer, "Coraline,Mort,Sourcery");
    titles(fresh, "medium < 2000 AND author.name BEGINSWITH 'Terry'", buffer, sizeof buffer);
    STREQ(buffer, "Mort,Sourcery");
    og_fetch_request *all = NN(og_fetch_request_new("Author", &err));
    og_results *authors = NN(og_context_fetch(fresh, all, &err));
    INTEQ(og_results_count(authors), 1);
    og_results *books = NN(og_object_get_related(NN(og_results_object_at(authors, 0, &err)), "books", &err));
    INTEQ(og_results_count(books), 2);
    og_results_release(books);

    /* Deleting the author cascades to its books; the save lands whole. */
    OK(og_context_delete(fresh, NN(og_results_object_at(authors, 0, &err)), &err));
    OK(og_context_save(fresh, &err));
    og_results_release(authors);
    size_t count = 0;
    OK(og_context_count(context, all, &count, &err));
    INTEQ(count, 0);
    og_fetch_request_release(all);
    og_context_release(fresh);
    og_context_release(context);

    /* An unknown type names the known ones; a file store needs a path. */
    FAILS_NULL(og_coordinator_add_store(coordinator, "SQLite", NULL, &err), OG_ERROR_INVALID_ARGUMENT, "path");
    FAILS_NULL(og_coordinator_add_store(coordinator, "Nope", NULL, &err), OG_ERROR_STORE_INVALID_TYPE, "InMemory");
    og_coordinator_release(coordinator);
}

static const og_t_case cases[] = {
    {"in_memory", in_memory},
};

int main(int argc, char **argv) { return OG_T_RUN(cases, argc, argv); }
