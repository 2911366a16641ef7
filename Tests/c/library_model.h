/*
 * library_model.h — the model most C tests share, built in code:
 *
 *   Author: name (string), books (to-many Book, inverse author, cascade)
 *   Book:   one attribute of every type, author (to-one Author, inverse books)
 *
 * Defaults: title "Untitled", small 7, ratio 0.5, available true, price "9.99".
 * The other Book attributes have none, so a new Book reads them as nil.
 * With `changed`, Book gains an attribute "edition": the same model in a later
 * version, whose hashes differ from the first.
 */
#ifndef LIBRARY_MODEL_H
#define LIBRARY_MODEL_H

#include "og_test.h"

static inline og_property *library_add_attribute(og_entity *entity, const char *name,
                                                 og_attribute_type type) {
    return NN(og_entity_add_attribute(entity, name, type, &err));
}

/* Returns a NEW model (og_model_release). */
static inline og_model *library_model_new(bool changed) {
    og_model *model = NN(og_model_new());
    og_entity *author = NN(og_model_add_entity(model, "Author", &err));
    og_entity *book = NN(og_model_add_entity(model, "Book", &err));

    library_add_attribute(author, "name", OG_ATTRIBUTE_STRING);

    og_property *title = library_add_attribute(book, "title", OG_ATTRIBUTE_STRING);
    og_property *small = library_add_attribute(book, "small", OG_ATTRIBUTE_INTEGER16);
    library_add_attribute(book, "medium", OG_ATTRIBUTE_INTEGER32);
    library_add_attribute(book, "large", OG_ATTRIBUTE_INTEGER64);
    og_property *ratio = library_add_attribute(book, "ratio", OG_ATTRIBUTE_DOUBLE);
    library_add_attribute(book, "weight", OG_ATTRIBUTE_FLOAT);
    og_property *available = library_add_attribute(book, "available", OG_ATTRIBUTE_BOOLEAN);
    library_add_attribute(book, "published", OG_ATTRIBUTE_DATE);
    library_add_attribute(book, "cover", OG_ATTRIBUTE_BINARY);
    og_property *price = library_add_attribute(book, "price", OG_ATTRIBUTE_DECIMAL);
    library_add_attribute(book, "code", OG_ATTRIBUTE_UUID);
    library_add_attribute(book, "link", OG_ATTRIBUTE_URI);
    if (changed) library_add_attribute(book, "edition", OG_ATTRIBUTE_INTEGER32);

    og_value *v;
    v = NN(og_value_new_string("Untitled", &err));
    OK(og_attribute_set_default(title, v, &err));
    og_value_release(v);
    v = NN(og_value_new_int64(7));
    OK(og_attribute_set_default(small, v, &err));
    og_value_release(v);
    v = NN(og_value_new_double(0.5));
    OK(og_attribute_set_default(ratio, v, &err));
    og_value_release(v);
    v = NN(og_value_new_bool(true));
    OK(og_attribute_set_default(available, v, &err));
    og_value_release(v);
    v = NN(og_value_new_decimal("9.99", &err));
    OK(og_attribute_set_default(price, v, &err));
    og_value_release(v);

    og_property *books = NN(og_entity_add_relationship(author, "books", book, &err));
    OK(og_relationship_set_to_many(books, true, &err));
    OK(og_relationship_set_delete_rule(books, OG_DELETE_RULE_CASCADE, &err));
    og_property *written_by = NN(og_entity_add_relationship(book, "author", author, &err));
    OK(og_relationship_set_inverse(books, written_by, &err));
    return model;
}

/* A coordinator over a NEW library model with an SQLite store at `path`;
 * the caller releases the coordinator. The model is released here: the
 * coordinator keeps its own reference. */
static inline og_coordinator *library_open(const char *path, bool changed, og_store **store) {
    og_model *model = library_model_new(changed);
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    og_store *s = NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    if (store) *store = s;
    return coordinator;
}

#endif /* LIBRARY_MODEL_H */
