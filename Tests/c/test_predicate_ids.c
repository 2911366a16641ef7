/* Object IDs and entities as predicate arguments (og_value_new_object_id,
 * og_value_new_object_id_uri, og_value_new_entity): they match as the objects
 * would, on SQLite, InMemory and Binary stores and among pending changes. */
#include "library_model.h"
#include "og_test_cases.h"

static const char *const store_types[] = {"SQLite", "InMemory", "Binary"};

/* The number of `entity` objects matching `format` with its one argument. */
static size_t count_matching(og_context *context, const char *entity, const char *format, og_value *arg) {
    og_predicate *p = NN(og_predicate_parse(format, &arg, 1, &err));
    og_fetch_request *request = NN(og_fetch_request_new(entity, &err));
    OK(og_fetch_request_set_predicate(request, p, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    size_t n = og_results_count(results);
    og_results_release(results);
    og_fetch_request_release(request);
    og_predicate_release(p);
    return n;
}

static og_object *insert(og_context *context, const char *entity, const char *key, const char *text) {
    og_object *o = NN(og_context_insert(context, entity, &err));
    OK(og_object_set_string(o, key, text, &err));
    return o;
}

/* Pratchett wrote two books; Gaiman a book and a comic (a subentity of Book). */
static og_model *model_with_comics(void) {
    og_model *model = library_model_new(false);
    og_entity *comic = NN(og_model_add_entity(model, "Comic", &err));
    OK(og_entity_set_superentity(comic, NN(og_model_entity(model, "Book", &err)), &err));
    return model;
}

static void object_ids(void) {
    char *dir = og_t_tempdir();
    for (size_t t = 0; t < 3; t++) {
        og_model *model = model_with_comics();
        og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
        char *path = og_t_path(dir, store_types[t]);
        NN(og_coordinator_add_store(coordinator, store_types[t], t == 1 ? "" : path, &err));
        og_context *context = NN(og_context_new(coordinator, &err));
        og_object *pratchett = insert(context, "Author", "name", "Pratchett");
        og_object *gaiman = insert(context, "Author", "name", "Gaiman");
        og_object *mort = insert(context, "Book", "title", "Mort");
        OK(og_object_set_object(mort, "author", pratchett, &err));
        OK(og_object_set_object(insert(context, "Book", "title", "Sourcery"), "author", pratchett, &err));
        OK(og_object_set_object(insert(context, "Comic", "title", "Sandman"), "author", gaiman, &err));
        OK(og_object_set_object(insert(context, "Book", "title", "Coraline"), "author", gaiman, &err));
        OK(og_context_save(context, &err));

        og_value *id = NN(og_value_new_object_id(pratchett, &err));
        INTEQ(og_value_type_of(id), OG_VALUE_OBJECT_ID);
        const char *uri = NULL;
        OK(og_value_get_object_id(id, &uri, &err));
        char *expected = NN(og_object_id_uri(pratchett, &err));
        STREQ(uri, expected);
        /* It reads as its URI, and is no managed object. */
        OK(og_value_get_uri(id, &uri, &err));
        STREQ(uri, expected);
        og_object *none = NULL;
        FAILS(og_value_get_object(id, &none, &err), OG_ERROR_TYPE_MISMATCH, "ID");
        INTEQ(count_matching(context, "Book", "author == %@", id), 2);
        INTEQ(count_matching(context, "Book", "author != %@", id), 2);
        INTEQ(count_matching(context, "Author", "SELF == %@", id), 1);

        /* An ID from its URI alone, and a list of IDs for IN. */
        og_value *by_uri = NN(og_value_new_object_id_uri(expected, &err));
        INTEQ(og_value_type_of(by_uri), OG_VALUE_OBJECT_ID);
        INTEQ(count_matching(context, "Book", "author == %@", by_uri), 2);
        og_value *mort_id = NN(og_value_new_object_id(mort, &err));
        og_value *pair[2] = {mort_id, NN(og_value_new_object_id(gaiman, &err))};
        og_value *list = NN(og_value_new_array(pair, 2, &err));
        INTEQ(count_matching(context, "Book", "SELF IN %@", list), 1);
        INTEQ(count_matching(context, "Author", "SELF IN %@", list), 1);
        INTEQ(count_matching(context, "Book", "author IN %@", list), 2);
        og_value *item = NN(og_value_item_at(list, 0, &err));
        INTEQ(og_value_type_of(item), OG_VALUE_OBJECT_ID);

        /* A pending insert matches its temporary ID. */
        og_object *rincewind = insert(context, "Author", "name", "Rincewind");
        OK(og_object_set_object(mort, "author", rincewind, &err));
        og_value *temporary = NN(og_value_new_object_id(rincewind, &err));
        INTEQ(count_matching(context, "Book", "author == %@", temporary), 1);
        INTEQ(count_matching(context, "Book", "author == %@", id), 1);
        INTEQ(count_matching(context, "Author", "SELF == %@", temporary), 1);

        FAILS_NULL(og_value_new_object_id_uri("x-coredata://store/Book/q1", &err), OG_ERROR_INVALID_ARGUMENT, "object");
        FAILS_NULL(og_value_new_object_id(NULL, &err), OG_ERROR_INVALID_HANDLE, "og_object");

        og_value_release(temporary);
        og_value_release(item);
        og_value_release(list);
        og_value_release(pair[1]);
        og_value_release(mort_id);
        og_value_release(by_uri);
        og_free(expected);
        og_value_release(id);
        og_context_release(context);
        og_coordinator_release(coordinator);
        og_model_release(model);
        free(path);
    }
    og_t_remove_tree(dir);
}

static void entities(void) {
    char *dir = og_t_tempdir();
    for (size_t t = 0; t < 3; t++) {
        og_model *model = model_with_comics();
        og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
        char *path = og_t_path(dir, store_types[t]);
        NN(og_coordinator_add_store(coordinator, store_types[t], t == 1 ? "" : path, &err));
        og_context *context = NN(og_context_new(coordinator, &err));
        og_object *gaiman = insert(context, "Author", "name", "Gaiman");
        OK(og_object_set_object(insert(context, "Comic", "title", "Sandman"), "author", gaiman, &err));
        OK(og_object_set_object(insert(context, "Book", "title", "Coraline"), "author", gaiman, &err));
        OK(og_context_save(context, &err));

        og_value *book = NN(og_value_new_entity(NN(og_model_entity(model, "Book", &err)), &err));
        og_value *comic = NN(og_value_new_entity(NN(og_model_entity(model, "Comic", &err)), &err));
        og_value *author = NN(og_value_new_entity(NN(og_model_entity(model, "Author", &err)), &err));
        INTEQ(og_value_type_of(book), OG_VALUE_ENTITY);
        /* Exact entities: a comic is not a Book here. */
        INTEQ(count_matching(context, "Book", "entity == %@", book), 1);
        INTEQ(count_matching(context, "Book", "entity == %@", comic), 1);
        INTEQ(count_matching(context, "Book", "entity != %@", comic), 1);
        og_value *both = NN(og_value_new_array((og_value *[]){book, comic}, 2, &err));
        INTEQ(count_matching(context, "Book", "entity IN %@", both), 2);
        INTEQ(count_matching(context, "Book", "author.entity == %@", author), 2);
        INTEQ(count_matching(context, "Author", "ANY books.entity == %@", comic), 1);
        INTEQ(count_matching(context, "Author", "SUBQUERY(books, $b, $b.entity == %@).@count == 1", book), 1);
        /* A pending comic is matched in memory. */
        insert(context, "Comic", "title", "Death");
        INTEQ(count_matching(context, "Book", "entity == %@", comic), 2);
        FAILS_NULL(og_value_new_entity(NULL, &err), OG_ERROR_INVALID_HANDLE, "og_entity");

        og_value_release(both);
        og_value_release(author);
        og_value_release(comic);
        og_value_release(book);
        og_context_release(context);
        og_coordinator_release(coordinator);
        og_model_release(model);
        free(path);
    }
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"object_ids", object_ids},
    {"entities", entities},
};

int main(int argc, char **argv) { return OG_T_RUN(cases, argc, argv); }
