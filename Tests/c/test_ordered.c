/* Ordered to-many relationships edited by index: Shelf.books (ordered) with
 * the to-one inverse Book.shelf. Reordering by assigning the same members in
 * a new order is saved. */
#include "og_test.h"

static og_model *shelf_model(void) {
    og_model *m = og_model_new();
    og_entity *shelf = NN(og_model_add_entity(m, "Shelf", &err));
    og_entity *book = NN(og_model_add_entity(m, "Book", &err));
    NN(og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &err));
    og_property *books = NN(og_entity_add_relationship(shelf, "books", book, &err));
    OK(og_relationship_set_to_many(books, true, &err));
    OK(og_relationship_set_ordered(books, true, &err));
    og_property *on = NN(og_entity_add_relationship(book, "shelf", shelf, &err));
    OK(og_relationship_set_inverse(books, on, &err));
    return m;
}

/* The titles of the shelf's books, in order, joined: "A,B,C". */
static const char *titles(og_object *shelf) {
    static char out[256];
    out[0] = '\0';
    og_results *r = NN(og_object_get_related(shelf, "books", &err));
    for (size_t i = 0; i < og_results_count(r); i++) {
        char *t = NULL;
        og_object *b = NN(og_results_object_at(r, i, &err));
        OK(og_object_get_string(b, "title", &t, &err));
        if (i) strcat(out, ",");
        strncat(out, t, sizeof out - strlen(out) - 2);
        og_free(t);
    }
    og_results_release(r);
    return out;
}

int main(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "ordered.sqlite");
    og_model *model = shelf_model();
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_context *ctx = NN(og_context_new(coordinator, &err));

    og_object *shelf = NN(og_context_insert(ctx, "Shelf", &err));
    og_object *b[4];
    const char *names[4] = {"A", "B", "C", "D"};
    for (int i = 0; i < 4; i++) {
        b[i] = NN(og_context_insert(ctx, "Book", &err));
        OK(og_object_set_string(b[i], "title", names[i], &err));
    }
    OK(og_object_set_related(shelf, "books", b, 3, &err));
    STREQ(titles(shelf), "A,B,C");
    OK(og_context_save(ctx, &err));

    /* The same members in a new order: saved. */
    og_object *reversed[3] = {b[2], b[1], b[0]};
    OK(og_object_set_related(shelf, "books", reversed, 3, &err));
    STREQ(titles(shelf), "C,B,A");
    bool updated = false;
    OK(og_object_is_updated(shelf, &updated, &err));
    CHECK(updated);

    /* By index: insert a new member, move an existing one, remove one. */
    OK(og_object_insert_related_at(shelf, "books", b[3], 1, &err));
    STREQ(titles(shelf), "C,D,B,A");
    og_object *on = NULL;
    OK(og_object_get_object(b[3], "shelf", &on, &err));
    CHECK(on == shelf);
    OK(og_object_insert_related_at(shelf, "books", b[0], 0, &err));
    STREQ(titles(shelf), "A,C,D,B");
    OK(og_object_remove_related_at(shelf, "books", 2, &err));
    STREQ(titles(shelf), "A,C,B");
    CHECK(og_object_get_object(b[3], "shelf", &on, &err) == OG_NULL);
    FAILS(og_object_insert_related_at(shelf, "books", b[3], 9, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS(og_object_remove_related_at(shelf, "books", 3, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS(og_object_set_related(shelf, "books", NULL, 2, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    OK(og_context_save(ctx, &err));

    og_context *other = NN(og_context_new(coordinator, &err));
    og_fetch_request *request = NN(og_fetch_request_new("Shelf", &err));
    og_results *found = NN(og_context_fetch(other, request, &err));
    STREQ(titles(NN(og_results_object_at(found, 0, &err))), "A,C,B");
    og_results_release(found);
    og_fetch_request_release(request);
    og_context_release(other);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
    return 0;
}
