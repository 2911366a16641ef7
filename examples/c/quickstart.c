/* quickstart.c: a model of authors and books built in code, three books saved in
 * SQLite, the store reopened, the books printed by year. Usage: quickstart [file] */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <objectgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static og_error *err; /* a failing call leaves its error here */

static void fail(const char *call) { /* print what failed and why, then stop */
    fprintf(stderr, "%s failed: %s (code %lld)\n", call, err ? og_error_message(err) : "",
            (long long)og_error_code(err));
    exit(1);
}
static void *need(const void *handle, const char *call) {
    if (handle == NULL) fail(call);
    return (void *)handle;
}
#define NEED(call) need((call), #call) /* for calls that return a handle or NULL */
#define TRY(call) do { if ((call) != OG_OK) fail(#call); } while (0) /* og_status */

static og_context *open_library(const char *path, og_coordinator **coordinator) {
    og_model *model = NEED(og_model_new());
    og_entity *author = NEED(og_model_add_entity(model, "Author", &err));
    og_entity *book = NEED(og_model_add_entity(model, "Book", &err));
    NEED(og_entity_add_attribute(author, "name", OG_ATTRIBUTE_STRING, &err));
    NEED(og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &err));
    NEED(og_entity_add_attribute(book, "year", OG_ATTRIBUTE_INTEGER16, &err));
    og_property *books = NEED(og_entity_add_relationship(author, "books", book, &err));
    og_property *written_by = NEED(og_entity_add_relationship(book, "author", author, &err));
    TRY(og_relationship_set_to_many(books, true, &err));
    TRY(og_relationship_set_inverse(books, written_by, &err));
    *coordinator = NEED(og_coordinator_new(model, &err));
    og_model_release(model); /* the coordinator keeps its own reference */
    NEED(og_coordinator_add_store(*coordinator, "SQLite", path, &err));
    return NEED(og_context_new(*coordinator, &err));
}

int main(int argc, char **argv) {
    char dir[] = "/tmp/og-quickstart-XXXXXX", path[4096];
    if (argc > 1) snprintf(path, sizeof path, "%s", argv[1]);
    else snprintf(path, sizeof path, "%s/books.sqlite", (char *)NEED(mkdtemp(dir)));

    og_coordinator *coordinator;
    og_context *context = open_library(path, &coordinator);
    og_object *author = NEED(og_context_insert(context, "Author", &err));
    TRY(og_object_set_string(author, "name", "Ursula K. Le Guin", &err));
    const char *titles[] = {"The Dispossessed", "A Wizard of Earthsea", "The Lathe of Heaven"};
    const int years[] = {1974, 1968, 1971};
    for (int i = 0; i < 3; i++) {
        og_object *book = NEED(og_context_insert(context, "Book", &err));
        TRY(og_object_set_string(book, "title", titles[i], &err));
        TRY(og_object_set_int64(book, "year", years[i], &err));
        TRY(og_object_set_object(book, "author", author, &err)); /* author's books follow */
    }
    TRY(og_context_save(context, &err));
    og_context_release(context); og_coordinator_release(coordinator); /* and its objects */

    context = open_library(path, &coordinator);
    og_fetch_request *request = NEED(og_fetch_request_new("Book", &err));
    og_value *before = og_value_new_int64(1972); /* %d's argument: an array, not varargs */
    og_predicate *early = NEED(og_predicate_parse("year < %d", &before, 1, &err));
    TRY(og_fetch_request_set_predicate(request, early, &err));
    og_predicate_release(early); og_value_release(before);
    TRY(og_fetch_request_add_sort(request, "year", true, &err));
    og_results *results = NEED(og_context_fetch(context, request, &err));
    for (size_t i = 0; i < og_results_count(results); i++) {
        og_object *book = NEED(og_results_object_at(results, i, &err)), *writer;
        char *title, *name; /* owned copies: og_free them */
        int64_t year;
        TRY(og_object_get_string(book, "title", &title, &err));
        TRY(og_object_get_int64(book, "year", &year, &err));
        TRY(og_object_get_object(book, "author", &writer, &err));
        TRY(og_object_get_string(writer, "name", &name, &err));
        printf("%lld  %s (%s)\n", (long long)year, title, name);
        og_free(title); og_free(name);
    }
    og_results_release(results); og_fetch_request_release(request);
    og_context_release(context); og_coordinator_release(coordinator);
    if (argc == 1 && (unlink(path) != 0 || rmdir(dir) != 0)) perror(dir);
    return 0;
}
