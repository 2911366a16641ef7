/* Relationships set from either side, with the inverse following: Book.author
 * (to-one) and Author.books (to-many, cascade). */
#include "library_model.h"

/* Whether `object` is among the results of a to-many. Handles are stable per
 * context, so pointers compare. */
static bool related_contains(og_object *owner, const char *key, og_object *object, size_t *count) {
    og_results *related = NN(og_object_get_related(owner, key, &err));
    bool found = false;
    *count = og_results_count(related);
    for (size_t i = 0; i < *count; i++)
        if (NN(og_results_object_at(related, i, &err)) == object) found = true;
    og_results_release(related);
    return found;
}

static og_object *author_of(og_object *book) {
    og_object *author = NULL;
    og_status s = og_object_get_object(book, "author", &author, &err);
    CHECK(s == OG_OK || s == OG_NULL);
    CHECK((s == OG_NULL) == (author == NULL));
    return author;
}

static og_object *insert_named(og_context *context, const char *entity, const char *key,
                               const char *name) {
    og_object *object = NN(og_context_insert(context, entity, &err));
    OK(og_object_set_string(object, key, name, &err));
    return object;
}

int main(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "relationships.sqlite");
    og_coordinator *coordinator = library_open(path, false, NULL);
    og_context *context = NN(og_context_new(coordinator, &err));
    size_t count;

    og_object *pratchett = insert_named(context, "Author", "name", "Terry Pratchett");
    og_object *gaiman = insert_named(context, "Author", "name", "Neil Gaiman");
    og_object *mort = insert_named(context, "Book", "title", "Mort");
    og_object *omens = insert_named(context, "Book", "title", "Good Omens");
    og_object *sandman = insert_named(context, "Book", "title", "Sandman");

    /* A new to-one is nil. */
    CHECK(author_of(mort) == NULL);
    CHECK(!related_contains(pratchett, "books", mort, &count));
    INTEQ(count, 0);

    /* Set from the to-one side: the to-many follows. */
    OK(og_object_set_object(mort, "author", pratchett, &err));
    CHECK(author_of(mort) == pratchett);
    CHECK(related_contains(pratchett, "books", mort, &count));
    INTEQ(count, 1);

    /* Set from the to-many side: the to-one follows. */
    OK(og_object_add_related(pratchett, "books", omens, &err));
    CHECK(author_of(omens) == pratchett);
    CHECK(related_contains(pratchett, "books", omens, &count));
    INTEQ(count, 2);
    OK(og_object_add_related(gaiman, "books", sandman, &err));
    CHECK(author_of(sandman) == gaiman);

    /* Moving a book to another author removes it from the first. */
    OK(og_object_set_object(omens, "author", gaiman, &err));
    CHECK(author_of(omens) == gaiman);
    CHECK(!related_contains(pratchett, "books", omens, &count));
    INTEQ(count, 1);
    CHECK(related_contains(gaiman, "books", omens, &count));
    INTEQ(count, 2);

    /* Removing from the to-many clears the to-one; NULL clears a to-one. */
    OK(og_object_remove_related(gaiman, "books", sandman, &err));
    CHECK(author_of(sandman) == NULL);
    CHECK(!related_contains(gaiman, "books", sandman, &count));
    INTEQ(count, 1);
    OK(og_object_set_object(mort, "author", NULL, &err));
    CHECK(!related_contains(pratchett, "books", mort, &count));
    INTEQ(count, 0);
    OK(og_object_set_object(mort, "author", pratchett, &err));

    /* Relationship keys are checked like attribute keys. */
    FAILS(og_object_set_object(mort, "writer", pratchett, &err), OG_ERROR_UNKNOWN_KEY, "writer");
    FAILS(og_object_add_related(mort, "title", pratchett, &err), OG_ERROR_TYPE_MISMATCH, "title");
    /* An Author is no Book. */
    FAILS(og_object_add_related(gaiman, "books", pratchett, &err), OG_ERROR_TYPE_MISMATCH, "Author|Book|books");

    OK(og_context_save(context, &err));
    CHECK(author_of(mort) == pratchett);
    CHECK(related_contains(gaiman, "books", omens, &count));

    /* Deleting an author cascades to its books (Author.books is cascade). */
    og_fetch_request *books = NN(og_fetch_request_new("Book", &err));
    OK(og_context_delete(context, gaiman, &err));
    OK(og_context_save(context, &err));
    OK(og_context_count(context, books, &count, &err));
    INTEQ(count, 2); /* Mort and Sandman: Good Omens went with its author */

    /* Deleting a book nullifies it out of its author's books. */
    OK(og_context_delete(context, mort, &err));
    OK(og_context_save(context, &err));
    CHECK(!related_contains(pratchett, "books", mort, &count));
    INTEQ(count, 0);
    OK(og_context_count(context, books, &count, &err));
    INTEQ(count, 1);

    og_fetch_request_release(books);
    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
    puts("relationships: all checks passed");
    return 0;
}
