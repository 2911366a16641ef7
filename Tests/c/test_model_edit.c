/* The whole managed object model from C: every setter and getter of models,
 * entities, attributes, relationships and fetched properties; configurations,
 * templates, localization, version hashes, compatibility with store metadata,
 * merging, loading a folder of models; frozen models and invalid handles.
 * Usage: test_model_edit CASE (one ctest per case). */
#include "og_test.h"

#include <sys/stat.h>

#ifndef OG_FIXTURES
#define OG_FIXTURES "Tests/Fixtures/Models"
#endif

static void text_is(char *s, const char *expected) {
    if (s == NULL) og_t_fail(__FILE__, __LINE__, "expected a string, got NULL");
    if (strcmp(s, expected) != 0) {
        fprintf(stderr, "got '%s', expected '%s'\n", s, expected);
        CHECK(0);
    }
    og_free(s);
}

/* A getter of an optional string that must report none: NULL and no error. */
#define NONE(call)                                                             \
    do {                                                                       \
        char *og_t_none = (call);                                              \
        CHECK(og_t_none == NULL);                                              \
        CHECK(err == NULL);                                                    \
    } while (0)

static bool get_flag(og_status (*getter)(const og_property *, bool *, og_error **), const og_property *p) {
    bool b = false;
    OK(getter(p, &b, &err));
    return b;
}

static int64_t int_value(og_value *v) {
    int64_t out = 0;
    CHECK(v != NULL);
    OK(og_value_get_int64(v, &out, &err));
    og_value_release(v);
    return out;
}

/* Author <->> Book, Person with a fetched property: everything set from C. */
static og_model *build(void) {
    og_model *m = og_model_new();
    og_entity *author = NN(og_model_add_entity(m, "Author", &err));
    og_entity *book = NN(og_model_add_entity(m, "Book", &err));
    og_entity *item = NN(og_model_add_entity(m, "Item", &err));
    NN(og_entity_add_attribute(author, "name", OG_ATTRIBUTE_STRING, &err));
    NN(og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &err));
    NN(og_entity_add_attribute(book, "pages", OG_ATTRIBUTE_INTEGER32, &err));
    NN(og_entity_add_attribute(item, "label", OG_ATTRIBUTE_STRING, &err));
    og_property *books = NN(og_entity_add_relationship(author, "books", book, &err));
    OK(og_relationship_set_to_many(books, true, &err));
    og_property *writer = NN(og_entity_add_relationship(book, "writer", author, &err));
    OK(og_relationship_set_inverse(books, writer, &err));
    return m;
}

static void case_model_level(void) {
    og_model *m = build();
    og_entity *author = NN(og_model_entity(m, "Author", &err));
    og_entity *book = NN(og_model_entity(m, "Book", &err));
    size_t n;
    bool b;
    int64_t limit;

    /* Version identifiers. */
    const char *ids[] = {"2.0", "beta"};
    OK(og_model_set_version_identifiers(m, ids, 2, &err));
    INTEQ(og_model_version_identifier_count(m), 2);
    text_is(og_model_version_identifier_at(m, 1, &err), "beta");
    OK(og_model_set_version_identifiers(m, NULL, 0, &err));
    INTEQ(og_model_version_identifier_count(m), 0);
    FAILS(og_model_set_version_identifiers(m, NULL, 1, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");

    /* Configurations. */
    og_entity *sales[] = {book, author};
    OK(og_model_set_configuration_entities(m, "Sales", sales, 2, &err));
    og_entity *only[] = {author};
    OK(og_model_set_configuration_entities(m, "People", only, 1, &err));
    INTEQ(og_model_configuration_count(m), 2);
    OK(og_model_configuration_entity_count(m, "Sales", &n, &err));
    INTEQ(n, 2);
    CHECK(NN(og_model_configuration_entity_at(m, "Sales", 0, &err)) == book);
    CHECK(NN(og_model_configuration_entity_at(m, "Sales", 1, &err)) == author);
    OK(og_model_configuration_entity_count(m, NULL, &n, &err));
    INTEQ(n, 3);
    STREQ(og_entity_name(NN(og_model_configuration_entity_at(m, NULL, 0, &err))), "Author");
    FAILS(og_model_configuration_entity_count(m, "Nope", &n, &err), OG_ERROR_INVALID_ARGUMENT, "Nope");
    FAILS_NULL(og_model_configuration_entity_at(m, "People", 1, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    OK(og_model_configuration_contains(m, "People", "Book", &b, &err));
    CHECK(!b);
    /* Replacing a configuration keeps its place. */
    OK(og_model_set_configuration_entities(m, "Sales", only, 1, &err));
    OK(og_model_configuration_entity_count(m, "Sales", &n, &err));
    INTEQ(n, 1);
    text_is(og_model_configuration_at(m, 0, &err), "Sales");
    og_model *other = build();
    og_entity *foreign[] = {NN(og_model_entity(other, "Book", &err))};
    FAILS(og_model_set_configuration_entities(m, "X", foreign, 1, &err), OG_ERROR_INVALID_MODEL, "another model");
    og_model_release(other);

    /* Fetch request templates. */
    const char *keys[] = {"title", "pages"};
    const bool asc[] = {true, false};
    OK(og_model_set_template(m, "ByTitle", "Book", "title BEGINSWITH $PREFIX AND pages > $MIN OR title == $PREFIX",
                             keys, asc, 2, 25, &err));
    OK(og_model_set_template(m, "All", "Author", NULL, NULL, NULL, 0, 0, &err));
    INTEQ(og_model_template_count(m), 2);
    text_is(og_model_template_entity(m, "ByTitle", &err), "Book");
    text_is(og_model_template_predicate(m, "ByTitle", &err), "title BEGINSWITH $PREFIX AND pages > $MIN OR title == $PREFIX");
    NONE(og_model_template_predicate(m, "All", &err));
    OK(og_model_template_fetch_limit(m, "ByTitle", &limit, &err));
    INTEQ(limit, 25);
    OK(og_model_template_sort_count(m, "ByTitle", &n, &err));
    INTEQ(n, 2);
    text_is(og_model_template_sort_at(m, "ByTitle", 1, &b, &err), "pages");
    CHECK(!b);
    text_is(og_model_template_sort_at(m, "ByTitle", 0, &b, &err), "title");
    CHECK(b);
    FAILS_NULL(og_model_template_sort_at(m, "ByTitle", 2, &b, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    OK(og_model_template_variable_count(m, "ByTitle", &n, &err));
    INTEQ(n, 2);
    text_is(og_model_template_variable_at(m, "ByTitle", 0, &err), "PREFIX");
    text_is(og_model_template_variable_at(m, "ByTitle", 1, &err), "MIN");
    OK(og_model_template_variable_count(m, "All", &n, &err));
    INTEQ(n, 0);
    FAILS(og_model_set_template(m, "Bad", "Nobody", NULL, NULL, NULL, 0, 0, &err), OG_ERROR_INVALID_MODEL, "Nobody");
    FAILS(og_model_set_template(m, "Bad", "Book", NULL, NULL, NULL, 0, -1, &err), OG_ERROR_INVALID_ARGUMENT, "negative");
    FAILS(og_model_template_fetch_limit(m, "Nope", &limit, &err), OG_ERROR_INVALID_ARGUMENT, "Nope");
    FAILS_NULL(og_model_template_predicate(m, "Nope", &err), OG_ERROR_INVALID_ARGUMENT, "Nope");
    OK(og_model_remove_template(m, "All", &err));
    INTEQ(og_model_template_count(m), 1);
    FAILS(og_model_remove_template(m, "All", &err), OG_ERROR_INVALID_ARGUMENT, "All");

    /* Localization. */
    const char *lk[] = {"Entity/Book", "Property/title", "Property/title/Entity/Book"};
    const char *lv[] = {"Livre", "Titre", "Titre du livre"};
    OK(og_model_set_localization(m, lk, lv, 3, &err));
    INTEQ(og_model_localization_count(m), 3);
    text_is(og_model_localization_key_at(m, 0, &err), "Entity/Book");
    text_is(og_model_localization(m, "Property/title", &err), "Titre");
    NONE(og_model_localization(m, "Entity/Author", &err));
    text_is(og_model_localized_entity_name(m, "Book", &err), "Livre");
    NONE(og_model_localized_entity_name(m, "Author", &err));
    text_is(og_model_localized_property_name(m, "title", "Book", &err), "Titre du livre");
    text_is(og_model_localized_property_name(m, "title", "Other", &err), "Titre");
    NONE(og_model_localized_property_name(m, "name", "Author", &err));
    FAILS_NULL(og_model_localization_key_at(m, 3, &err), OG_ERROR_INVALID_ARGUMENT, "range");

    /* Version hashes by name equal each entity's hash. */
    uint8_t h[32], e[32];
    INTEQ(og_model_entity_count(m), 3);
    text_is(og_model_version_hash_at(m, 1, h, &err), "Book");
    OK(og_entity_version_hash(book, e, &err));
    CHECK(memcmp(h, e, 32) == 0);
    FAILS_NULL(og_model_version_hash_at(m, 3, h, &err), OG_ERROR_INVALID_ARGUMENT, "range");

    /* Removing an entity: relationships to it and configurations forget it. */
    OK(og_model_remove_entity(m, "Item", &err));
    INTEQ(og_model_entity_count(m), 2);
    FAILS(og_model_remove_entity(m, "Item", &err), OG_ERROR_UNKNOWN_ENTITY, "Item");

    /* The localization, templates and configurations survive a JSON round trip. */
    char *json = NN(og_model_to_json(m, &err));
    og_model *again = NN(og_model_from_json(json, &err));
    og_free(json);
    text_is(og_model_localized_entity_name(again, "Book", &err), "Livre");
    OK(og_model_template_sort_count(again, "ByTitle", &n, &err));
    INTEQ(n, 2);
    INTEQ(og_model_configuration_count(again), 2);
    og_model_release(again);
    og_model_release(m);
}

static void case_entity_level(void) {
    og_model *m = build();
    og_entity *author = NN(og_model_entity(m, "Author", &err));
    og_entity *book = NN(og_model_entity(m, "Book", &err));
    og_entity *item = NN(og_model_entity(m, "Item", &err));
    uint8_t before[32], after[32];

    /* Subentities, top-down. */
    og_entity *subs[] = {book};
    OK(og_entity_set_subentities(item, subs, 1, &err));
    CHECK(og_entity_superentity(book) == item);
    INTEQ(og_entity_subentity_count(item), 1);
    OK(og_entity_set_subentities(item, NULL, 0, &err));
    CHECK(og_entity_superentity(book) == NULL);
    og_entity *cycle[] = {item};
    OK(og_entity_set_superentity(book, item, &err));
    FAILS(og_entity_set_subentities(book, cycle, 1, &err), OG_ERROR_INVALID_MODEL, "cycle");
    OK(og_entity_set_superentity(book, NULL, &err));

    /* Class name, renaming identifier, version hash modifier. */
    OK(og_entity_set_class_name(book, "BookObject", &err));
    text_is(og_entity_class_name(book, &err), "BookObject");
    OK(og_entity_set_class_name(book, NULL, &err));
    text_is(og_entity_class_name(book, &err), "ManagedObject");
    OK(og_entity_set_renaming_identifier(book, "Volume", &err));
    text_is(og_entity_renaming_identifier(book, &err), "Volume");
    OK(og_entity_set_renaming_identifier(book, NULL, &err));
    text_is(og_entity_renaming_identifier(book, &err), "Book");
    NONE(og_entity_version_hash_modifier(book, &err));
    OK(og_entity_version_hash(book, before, &err));
    OK(og_entity_set_version_hash_modifier(book, "v2", &err));
    text_is(og_entity_version_hash_modifier(book, &err), "v2");
    OK(og_entity_version_hash(book, after, &err));
    CHECK(memcmp(before, after, 32) != 0);
    OK(og_entity_set_version_hash_modifier(book, NULL, &err));
    OK(og_entity_version_hash(book, after, &err));
    CHECK(memcmp(before, after, 32) == 0);

    /* User info. */
    const char *uk[] = {"table", "owner"};
    const char *uv[] = {"books", "library"};
    OK(og_entity_set_user_info(book, uk, uv, 2, &err));
    INTEQ(og_entity_user_info_count(book), 2);
    text_is(og_entity_user_info_key_at(book, 0, &err), "owner");
    text_is(og_entity_user_info(book, "table", &err), "books");
    FAILS_NULL(og_entity_user_info_key_at(book, 2, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS(og_entity_set_user_info(book, uk, NULL, 2, &err), OG_ERROR_INVALID_ARGUMENT, "values");
    OK(og_entity_set_user_info(book, NULL, NULL, 0, &err));
    INTEQ(og_entity_user_info_count(book), 0);

    /* Uniqueness constraints. */
    const char *uc[] = {"title,pages", "title"};
    OK(og_entity_set_uniqueness_constraints(book, uc, 2, &err));
    INTEQ(og_entity_uniqueness_constraint_count(book), 2);
    text_is(og_entity_uniqueness_constraint_at(book, 0, &err), "title,pages");
    text_is(og_entity_uniqueness_constraint_at(book, 1, &err), "title");
    FAILS_NULL(og_entity_uniqueness_constraint_at(book, 2, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    const char *empty[] = {","};
    FAILS(og_entity_set_uniqueness_constraints(book, empty, 1, &err), OG_ERROR_INVALID_ARGUMENT, "no property");
    OK(og_model_validate(m, &err));

    /* Relationships with a destination. */
    INTEQ(og_entity_relationship_with_destination_count(author, book), 1);
    INTEQ(og_entity_relationship_with_destination_count(author, item), 0);
    STREQ(og_property_name(NN(og_entity_relationship_with_destination_at(author, book, 0, &err))), "books");
    FAILS_NULL(og_entity_relationship_with_destination_at(author, item, 0, &err), OG_ERROR_INVALID_ARGUMENT, "range");

    /* Fetched properties. */
    INTEQ(og_entity_fetched_property_count(author), 0);
    og_property *longer = NN(og_entity_add_fetched_property(author, "longBooks", "Book", "writer == $FETCH_SOURCE AND pages > 500", &err));
    og_property_kind kind;
    OK(og_property_kind_of(longer, &kind, &err));
    INTEQ(kind, OG_PROPERTY_FETCHED);
    INTEQ(og_entity_fetched_property_count(author), 1);
    CHECK(NN(og_entity_fetched_property_at(author, 0, &err)) == longer);
    FAILS_NULL(og_entity_fetched_property_at(author, 1, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    text_is(og_fetched_property_predicate(longer, &err), "writer == $FETCH_SOURCE AND pages > 500");
    OK(og_fetched_property_set_request(longer, "Item", NULL, &err));
    text_is(og_fetched_property_entity(longer, &err), "Item");
    NONE(og_fetched_property_predicate(longer, &err));
    FAILS(og_fetched_property_set_request(NN(og_entity_property(book, "title", &err)), "Item", NULL, &err),
          OG_ERROR_TYPE_MISMATCH, "fetched");
    CHECK(NN(og_entity_property(author, "longBooks", &err)) == longer);
    FAILS_NULL(og_entity_add_fetched_property(author, "longBooks", "Book", NULL, &err), OG_ERROR_INVALID_MODEL, "already");

    /* Removing properties. */
    OK(og_entity_remove_property(author, "longBooks", &err));
    INTEQ(og_entity_fetched_property_count(author), 0);
    FAILS(og_entity_remove_property(author, "longBooks", &err), OG_ERROR_UNKNOWN_KEY, "longBooks");
    og_property *label = NN(og_entity_property(item, "label", &err));
    OK(og_entity_remove_property(item, "label", &err));
    INTEQ(og_entity_property_count(item), 0);
    CHECK(og_property_name(label) != NULL); /* the handle stays valid */
    og_model_release(m);
}

static void case_property_level(void) {
    og_model *m = build();
    og_entity *book = NN(og_model_entity(m, "Book", &err));
    og_entity *author = NN(og_model_entity(m, "Author", &err));
    og_entity *item = NN(og_model_entity(m, "Item", &err));
    og_property *title = NN(og_entity_property(book, "title", &err));
    og_property *pages = NN(og_entity_property(book, "pages", &err));
    og_property *books = NN(og_entity_property(author, "books", &err));
    og_property *writer = NN(og_entity_property(book, "writer", &err));
    bool b;
    int64_t lo, hi;
    uint8_t h1[32], h2[32];

    /* Flags every property has. */
    OK(og_property_set_transient(title, true, &err));
    CHECK(get_flag(og_property_is_transient, title));
    OK(og_property_set_transient(title, false, &err));
    CHECK(!get_flag(og_property_is_indexed, title));
    OK(og_property_set_indexed(title, true, &err));
    CHECK(get_flag(og_property_is_indexed, title));
    OK(og_property_set_indexed_by_spotlight(title, true, &err));
    CHECK(get_flag(og_property_is_indexed_by_spotlight, title));
    OK(og_property_set_stored_in_external_record(title, true, &err));
    CHECK(get_flag(og_property_is_stored_in_external_record, title));

    /* Renaming identifier, version hash modifier, property hash. */
    OK(og_property_set_renaming_identifier(title, "heading", &err));
    text_is(og_property_renaming_identifier(title, &err), "heading");
    OK(og_property_set_renaming_identifier(title, NULL, &err));
    text_is(og_property_renaming_identifier(title, &err), "title");
    OK(og_property_version_hash(title, h1, &err));
    OK(og_property_set_version_hash_modifier(title, "x", &err));
    text_is(og_property_version_hash_modifier(title, &err), "x");
    OK(og_property_version_hash(title, h2, &err));
    CHECK(memcmp(h1, h2, 32) != 0);
    OK(og_property_set_version_hash_modifier(title, NULL, &err));
    NONE(og_property_version_hash_modifier(title, &err));

    /* User info. */
    const char *uk[] = {"format"};
    const char *uv[] = {"upper"};
    OK(og_property_set_user_info(title, uk, uv, 1, &err));
    INTEQ(og_property_user_info_count(title), 1);
    text_is(og_property_user_info_key_at(title, 0, &err), "format");
    text_is(og_property_user_info(title, "format", &err), "upper");
    FAILS_NULL(og_property_user_info_key_at(title, 1, &err), OG_ERROR_INVALID_ARGUMENT, "range");

    /* Validation predicates and warnings. */
    const char *preds[] = {"length >= 2", "NOT self BEGINSWITH 'x'"};
    const char *warns[] = {"too short", "starts with x"};
    OK(og_property_set_validation(title, preds, warns, 2, &err));
    INTEQ(og_property_validation_count(title), 2);
    text_is(og_property_validation_predicate_at(title, 1, &err), "NOT self BEGINSWITH 'x'");
    text_is(og_property_validation_warning_at(title, 0, &err), "too short");
    FAILS_NULL(og_property_validation_predicate_at(title, 2, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS_NULL(og_property_validation_warning_at(title, 2, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS(og_property_set_validation(title, preds, NULL, 2, &err), OG_ERROR_INVALID_ARGUMENT, "warnings");

    /* Attribute: value bounds on numbers, length bounds and pattern on strings. */
    og_value *min = og_value_new_int64(10), *max = og_value_new_int64(2000);
    OK(og_attribute_set_value_bounds(pages, min, max, &err));
    INTEQ(int_value(og_attribute_min_value(pages, &err)), 10);
    INTEQ(int_value(og_attribute_max_value(pages, &err)), 2000);
    OK(og_attribute_set_value_bounds(pages, NULL, max, &err));
    og_value *none = NN(og_attribute_min_value(pages, &err));
    INTEQ(og_value_type_of(none), OG_VALUE_NULL);
    og_value_release(none);
    FAILS(og_attribute_set_value_bounds(title, min, NULL, &err), OG_ERROR_INVALID_MODEL, "minimum");
    og_value *word = og_value_new_string("many", &err);
    FAILS(og_attribute_set_value_bounds(pages, word, NULL, &err), OG_ERROR_TYPE_MISMATCH, "pages");
    og_value_release(word);
    og_value_release(min);
    og_value_release(max);
    OK(og_attribute_set_length_bounds(title, 1, 80, &err));
    OK(og_attribute_length_bounds(title, &lo, &hi, &err));
    CHECK(lo == 1 && hi == 80);
    OK(og_attribute_set_length_bounds(title, -1, 80, &err));
    OK(og_attribute_length_bounds(title, &lo, &hi, &err));
    CHECK(lo == -1 && hi == 80);
    FAILS(og_attribute_set_length_bounds(pages, 1, 2, &err), OG_ERROR_INVALID_MODEL, "length");
    FAILS(og_attribute_set_length_bounds(title, -2, 2, &err), OG_ERROR_INVALID_ARGUMENT, "-1");
    NONE(og_attribute_regular_expression(title, &err));
    OK(og_attribute_set_regular_expression(title, "[A-Z].*", &err));
    text_is(og_attribute_regular_expression(title, &err), "[A-Z].*");

    /* Transformer, class name, derivation, external storage, history. */
    og_property *colour = NN(og_entity_add_attribute(item, "colour", OG_ATTRIBUTE_TRANSFORMABLE, &err));
    OK(og_attribute_set_value_transformer_name(colour, "ColourTransformer", &err));
    text_is(og_attribute_value_transformer_name(colour, &err), "ColourTransformer");
    OK(og_attribute_set_value_class_name(colour, "Colour", &err));
    text_is(og_attribute_value_class_name(colour, &err), "Colour");
    OK(og_attribute_set_value_class_name(colour, NULL, &err));
    NONE(og_attribute_value_class_name(colour, &err));
    OK(og_attribute_set_derivation_expression(pages, "title.length", &err));
    text_is(og_attribute_derivation_expression(pages, &err), "title.length");
    OK(og_attribute_set_derivation_expression(pages, NULL, &err));
    NONE(og_attribute_derivation_expression(pages, &err));
    og_property *cover = NN(og_entity_add_attribute(item, "cover", OG_ATTRIBUTE_BINARY, &err));
    CHECK(!get_flag(og_attribute_allows_external_storage, cover));
    OK(og_attribute_set_allows_external_storage(cover, true, &err));
    CHECK(get_flag(og_attribute_allows_external_storage, cover));
    OK(og_attribute_set_preserves_value_in_history(cover, true, &err));
    CHECK(get_flag(og_attribute_preserves_value_in_history, cover));
    og_attribute_type type;
    OK(og_attribute_set_type(cover, OG_ATTRIBUTE_STRING, &err));
    OK(og_attribute_type_of(cover, &type, &err));
    INTEQ(type, OG_ATTRIBUTE_STRING);
    FAILS(og_attribute_set_type(cover, (og_attribute_type)7, &err), OG_ERROR_INVALID_ARGUMENT, "attribute type");
    FAILS(og_attribute_set_type(books, OG_ATTRIBUTE_STRING, &err), OG_ERROR_TYPE_MISMATCH, "attribute");

    /* Relationship: counts, ordered, destination. */
    OK(og_relationship_set_counts(books, 1, 5, &err));
    OK(og_relationship_counts(books, &lo, &hi, &err));
    CHECK(lo == 1 && hi == 5);
    FAILS(og_relationship_set_counts(books, 6, 5, &err), OG_ERROR_INVALID_MODEL, "counts");
    OK(og_relationship_set_ordered(books, true, &err));
    OK(og_relationship_is_ordered(books, &b, &err));
    CHECK(b);
    FAILS(og_relationship_set_ordered(writer, true, &err), OG_ERROR_INVALID_MODEL, "ordered");
    og_property *favourite = NN(og_entity_add_relationship(item, "favourite", book, &err));
    OK(og_relationship_set_destination(favourite, author, &err));
    CHECK(og_relationship_destination(favourite) == author);
    og_model *other = build();
    FAILS(og_relationship_set_destination(favourite, NN(og_model_entity(other, "Book", &err)), &err),
          OG_ERROR_INVALID_MODEL, "another model");
    og_model_release(other);
    FAILS(og_relationship_set_counts(title, 0, 1, &err), OG_ERROR_TYPE_MISMATCH, "relationship");
    OK(og_model_validate(m, &err));
    og_model_release(m);
}

/* The details Xcode files carry, read back through the new getters. */
static void case_fixtures(void) {
    og_model *m = NN(og_model_load(OG_FIXTURES "/AllTypes.xcdatamodeld", &err));
    og_entity *sample = NN(og_model_entity(m, "Sample", &err));
    og_property *small = NN(og_entity_property(sample, "small", &err));
    og_property *code = NN(og_entity_property(sample, "code", &err));
    og_property *published = NN(og_entity_property(sample, "published", &err));
    og_property *cover = NN(og_entity_property(sample, "cover", &err));
    og_property *search = NN(og_entity_property(sample, "searchText", &err));
    og_property *identifier = NN(og_entity_property(sample, "identifier", &err));
    og_property *colour = NN(og_entity_property(sample, "colour", &err));
    int64_t lo, hi;
    double seconds;
    INTEQ(int_value(og_attribute_min_value(small, &err)), -10);
    INTEQ(int_value(og_attribute_max_value(small, &err)), 10);
    OK(og_attribute_length_bounds(code, &lo, &hi, &err));
    CHECK(lo == 2 && hi == 8);
    text_is(og_attribute_regular_expression(code, &err), "[A-Z]+[0-9]*");
    og_value *v = NN(og_attribute_max_value(published, &err));
    OK(og_value_get_date(v, &seconds, &err));
    DBLEQ(seconds, 978307200.0 + 1000000000.0);
    og_value_release(v);
    CHECK(get_flag(og_attribute_allows_external_storage, cover));
    CHECK(get_flag(og_property_is_indexed_by_spotlight, search));
    CHECK(get_flag(og_property_is_stored_in_external_record, search));
    CHECK(get_flag(og_attribute_preserves_value_in_history, identifier));
    /* Xcode's customClassName is the attribute's value class. */
    text_is(og_attribute_value_class_name(colour, &err), "Colour");
    og_model_release(m);

    m = NN(og_model_load(OG_FIXTURES "/Shop.xcdatamodeld", &err));
    size_t n;
    OK(og_model_configuration_entity_count(m, "Sales", &n, &err));
    INTEQ(n, 2);
    STREQ(og_entity_name(NN(og_model_configuration_entity_at(m, "Audit", 0, &err))), "AuditEntry");
    OK(og_model_template_fetch_limit(m, "LargeOrders", &lo, &err));
    INTEQ(lo, 50);
    OK(og_model_template_variable_count(m, "LargeOrders", &n, &err));
    INTEQ(n, 3);
    text_is(og_model_template_variable_at(m, "LargeOrders", 2, &err), "SINCE");
    text_is(og_model_template_predicate(m, "CustomersInCity", &err), "city == $CITY");
    og_model_release(m);

    m = NN(og_model_load(OG_FIXTURES "/Inheritance.xcdatamodeld", &err));
    og_entity *person = NN(og_model_entity(m, "Person", &err));
    INTEQ(og_entity_fetched_property_count(person), 1);
    STREQ(og_property_name(NN(og_entity_fetched_property_at(person, 0, &err))), "fastCars");
    og_entity *car = NN(og_model_entity(m, "Car", &err));
    INTEQ(og_entity_relationship_with_destination_count(car, person), 1); /* inherited: owner */
    STREQ(og_property_name(NN(og_entity_relationship_with_destination_at(car, person, 0, &err))), "owner");
    og_model_release(m);
}

/* Hashes against metadata: hashes passed in, a store's, merging, directories. */
static void case_metadata(void) {
    char *dir = og_t_tempdir();
    og_model *m = build();
    size_t count = og_model_entity_count(m);
    const char *names[3];
    char *owned[3];
    uint8_t hashes[3 * 32];
    for (size_t i = 0; i < count; i++) names[i] = owned[i] = NN(og_model_version_hash_at(m, i, hashes + 32 * i, &err));
    bool b;
    OK(og_model_is_configuration_compatible(m, NULL, names, hashes, count, &b, &err));
    CHECK(b);
    OK(og_model_is_configuration_compatible(m, NULL, names, hashes, count - 1, &b, &err));
    CHECK(!b);
    og_entity *people[] = {NN(og_model_entity(m, "Author", &err))};
    OK(og_model_set_configuration_entities(m, "People", people, 1, &err));
    OK(og_model_is_configuration_compatible(m, "People", names, hashes, 1, &b, &err));
    CHECK(b);
    OK(og_model_is_configuration_compatible(m, "Nope", names, hashes, 1, &b, &err));
    CHECK(!b);
    FAILS(og_model_is_configuration_compatible(m, NULL, names, NULL, 1, &b, &err), OG_ERROR_INVALID_ARGUMENT, "hashes");
    hashes[0] ^= 1;
    OK(og_model_is_configuration_compatible(m, NULL, names, hashes, count, &b, &err));
    CHECK(!b);
    hashes[0] ^= 1;

    /* A store records the hashes; the model is compatible with it, a changed copy is not. */
    char *path = og_t_path(dir, "books.sqlite");
    og_coordinator *c = NN(og_coordinator_new(m, &err));
    og_store *store = NN(og_coordinator_add_store(c, "SQLite", path, &err));
    INTEQ(og_store_version_hash_count(store), count);
    uint8_t sh[32];
    text_is(og_store_version_hash_at(store, 0, sh, &err), "Author");
    CHECK(memcmp(sh, hashes, 32) == 0);
    FAILS_NULL(og_store_version_hash_at(store, count, sh, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    OK(og_model_is_configuration_compatible_with_store(m, NULL, store, &b, &err));
    CHECK(b);
    og_model *changed = NN(og_model_copy(m, &err));
    NN(og_entity_add_attribute(NN(og_model_entity(changed, "Book", &err)), "isbn", OG_ATTRIBUTE_STRING, &err));
    OK(og_model_is_configuration_compatible_with_store(changed, NULL, store, &b, &err));
    CHECK(!b);

    /* Merging: plain, and for metadata (NULL without an error when nothing matches). */
    og_model *a = og_model_new(), *bm = og_model_new();
    NN(og_entity_add_attribute(NN(og_model_add_entity(a, "Alpha", &err)), "x", OG_ATTRIBUTE_INTEGER64, &err));
    NN(og_entity_add_attribute(NN(og_model_add_entity(bm, "Beta", &err)), "y", OG_ATTRIBUTE_STRING, &err));
    const char *ida[] = {"a"}, *idb[] = {"b"};
    OK(og_model_set_version_identifiers(a, ida, 1, &err));
    OK(og_model_set_version_identifiers(bm, idb, 1, &err));
    og_model *parts[] = {a, bm};
    og_model *merged = NN(og_model_merge(parts, 2, &err));
    INTEQ(og_model_entity_count(merged), 2);
    INTEQ(og_model_version_identifier_count(merged), 2);
    og_model *twice[] = {a, a};
    FAILS_NULL(og_model_merge(twice, 2, &err), OG_ERROR_INVALID_MODEL, "Alpha");
    const char *mn[2];
    char *mo[2];
    uint8_t mh[64];
    for (size_t i = 0; i < 2; i++) mn[i] = mo[i] = NN(og_model_version_hash_at(merged, i, mh + 32 * i, &err));
    og_model *matched = NN(og_model_merge_for_metadata(parts, 2, mn, mh, 2, &err));
    INTEQ(og_model_entity_count(matched), 2);
    og_model_release(matched);
    CHECK(og_model_merge_for_metadata(parts, 1, mn, mh, 2, &err) == NULL);
    CHECK(err == NULL);
    CHECK(og_model_merge_for_metadata(parts, 2, mn, mh, 1, &err) == NULL);
    CHECK(err == NULL);
    FAILS_NULL(og_model_merge_for_metadata(parts, 2, NULL, mh, 2, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS_NULL(og_model_merge(NULL, 2, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");

    /* A folder of model files. */
    char *models = og_t_path(dir, "models");
    CHECK(mkdir(models, 0700) == 0);
    char *pa = og_t_path(models, "Alpha.json"), *pb = og_t_path(models, "Beta.xcdatamodel"), *px = og_t_path(models, "notes.txt");
    OK(og_model_write(a, pa, &err));
    OK(og_model_write(bm, pb, &err));
    og_t_write_file(px, "not a model");
    og_model *loaded = NN(og_model_load_directory(models, &err));
    INTEQ(og_model_entity_count(loaded), 2);
    og_model_release(loaded);
    loaded = NN(og_model_load_directory_for_metadata(models, mn, mh, 2, &err));
    INTEQ(og_model_entity_count(loaded), 2);
    og_model_release(loaded);
    loaded = NN(og_model_load_directory_for_metadata(models, mn, mh, 1, &err)); /* the parts the store knows */
    INTEQ(og_model_entity_count(loaded), 1);
    og_model_release(loaded);
    mh[0] ^= 1;
    CHECK(og_model_load_directory_for_metadata(models, mn, mh, 2, &err) == NULL);
    CHECK(err == NULL);
    mh[0] ^= 1;
    FAILS_NULL(og_model_load_directory(px, &err), OG_ERROR_INVALID_MODEL, "folder");
    FAILS_NULL(og_model_load_directory_for_metadata(px, mn, mh, 2, &err), OG_ERROR_INVALID_MODEL, "folder");
    og_t_write_file(pa, "{");
    FAILS_NULL(og_model_load_directory(models, &err), OG_ERROR_INVALID_MODEL, "Alpha.json");

    for (size_t i = 0; i < 2; i++) og_free(mo[i]);
    for (size_t i = 0; i < count; i++) og_free(owned[i]);
    free(pa), free(pb), free(px), free(models), free(path);
    og_model_release(merged);
    og_model_release(a);
    og_model_release(bm);
    og_model_release(changed);
    og_coordinator_release(c);
    og_model_release(m);
    og_t_remove_tree(dir);
}

/* Once a coordinator uses the model, every setter fails with 140008 and
 * changes nothing; getters keep working. */
static void case_frozen(void) {
    og_model *m = build();
    og_entity *author = NN(og_model_entity(m, "Author", &err));
    og_entity *book = NN(og_model_entity(m, "Book", &err));
    og_entity *item = NN(og_model_entity(m, "Item", &err));
    og_property *title = NN(og_entity_property(book, "title", &err));
    og_property *books = NN(og_entity_property(author, "books", &err));
    og_property *fetched = NN(og_entity_add_fetched_property(author, "all", "Book", NULL, &err));
    OK(og_model_set_template(m, "T", "Book", NULL, NULL, NULL, 0, 0, &err));
    og_coordinator *c = NN(og_coordinator_new(m, &err));
    const int64_t F = OG_ERROR_MODEL_IMMUTABLE;
    const char *s[] = {"x"};
    og_entity *es[] = {book};
    og_value *v = og_value_new_int64(1);
    const char *w = "in use";
    FAILS(og_model_remove_entity(m, "Item", &err), F, w);
    FAILS(og_model_set_version_identifiers(m, s, 1, &err), F, w);
    FAILS(og_model_set_configuration_entities(m, "C", es, 1, &err), F, w);
    FAILS(og_model_set_template(m, "T2", "Book", NULL, NULL, NULL, 0, 0, &err), F, w);
    FAILS(og_model_remove_template(m, "T", &err), F, w);
    FAILS(og_model_set_localization(m, s, s, 1, &err), F, w);
    FAILS(og_entity_set_subentities(item, es, 1, &err), F, w);
    FAILS(og_entity_set_class_name(book, "X", &err), F, w);
    FAILS(og_entity_set_renaming_identifier(book, "X", &err), F, w);
    FAILS(og_entity_set_version_hash_modifier(book, "X", &err), F, w);
    FAILS(og_entity_set_user_info(book, s, s, 1, &err), F, w);
    FAILS(og_entity_set_uniqueness_constraints(book, s, 1, &err), F, w);
    FAILS_NULL(og_entity_add_fetched_property(book, "f", "Book", NULL, &err), F, w);
    FAILS(og_entity_remove_property(book, "title", &err), F, w);
    FAILS(og_property_set_transient(title, true, &err), F, w);
    FAILS(og_property_set_indexed(title, true, &err), F, w);
    FAILS(og_property_set_indexed_by_spotlight(title, true, &err), F, w);
    FAILS(og_property_set_stored_in_external_record(title, true, &err), F, w);
    FAILS(og_property_set_renaming_identifier(title, "x", &err), F, w);
    FAILS(og_property_set_version_hash_modifier(title, "x", &err), F, w);
    FAILS(og_property_set_user_info(title, s, s, 1, &err), F, w);
    FAILS(og_property_set_validation(title, s, s, 1, &err), F, w);
    FAILS(og_attribute_set_type(title, OG_ATTRIBUTE_INTEGER64, &err), F, w);
    FAILS(og_attribute_set_value_bounds(title, NULL, NULL, &err), F, w);
    FAILS(og_attribute_set_length_bounds(title, 1, 2, &err), F, w);
    FAILS(og_attribute_set_regular_expression(title, "x", &err), F, w);
    FAILS(og_attribute_set_value_transformer_name(title, "x", &err), F, w);
    FAILS(og_attribute_set_value_class_name(title, "x", &err), F, w);
    FAILS(og_attribute_set_derivation_expression(title, "x", &err), F, w);
    FAILS(og_attribute_set_allows_external_storage(title, true, &err), F, w);
    FAILS(og_attribute_set_preserves_value_in_history(title, true, &err), F, w);
    FAILS(og_relationship_set_counts(books, 0, 3, &err), F, w);
    FAILS(og_relationship_set_ordered(books, true, &err), F, w);
    FAILS(og_relationship_set_destination(books, item, &err), F, w);
    FAILS(og_fetched_property_set_request(fetched, "Item", NULL, &err), F, w);
    /* The older setters too. */
    FAILS_NULL(og_model_add_entity(m, "New", &err), F, w);
    FAILS(og_entity_set_abstract(book, true, &err), F, w);
    FAILS(og_attribute_set_default(title, v, &err), F, w);
    og_value_release(v);
    /* Nothing changed, and the getters still answer. */
    INTEQ(og_model_entity_count(m), 3);
    INTEQ(og_model_version_identifier_count(m), 0);
    INTEQ(og_entity_user_info_count(book), 0);
    text_is(og_entity_class_name(book, &err), "ManagedObject");
    og_model *copy = NN(og_model_copy(m, &err));
    OK(og_entity_set_class_name(NN(og_model_entity(copy, "Book", &err)), "Changed", &err));
    og_model_release(copy);
    og_coordinator_release(c);
    og_model_release(m);
}

/* NULL, released and wrong-kind handles are errors (140001), never crashes. */
/* Entities and properties renamed before use: the model is re-keyed, references follow. */
static void case_renaming(void) {
    og_model *m = build();
    og_entity *author = NN(og_model_entity(m, "Author", &err));
    og_entity *book = NN(og_model_entity(m, "Book", &err));
    og_property *title = NN(og_entity_property(book, "title", &err));
    og_property *books = NN(og_entity_property(author, "books", &err));
    og_property *writer = NN(og_entity_property(book, "writer", &err));
    og_entity *es[] = {book};
    OK(og_model_set_configuration_entities(m, "Shelf", es, 1, &err));
    OK(og_model_set_template(m, "T", "Book", NULL, NULL, NULL, 0, 0, &err));
    const char *constraint[] = {"title"};
    OK(og_entity_set_uniqueness_constraints(book, constraint, 1, &err));
    const char *old_name = og_entity_name(book);

    OK(og_entity_set_name(book, "Volume", &err));
    STREQ(og_entity_name(book), "Volume");
    STREQ(old_name, "Book"); /* an earlier borrowed name stays valid */
    CHECK(og_model_entity(m, "Volume", &err) == book);
    FAILS_NULL(og_model_entity(m, "Book", &err), OG_ERROR_UNKNOWN_ENTITY, "Book");
    CHECK(og_relationship_destination(books) == book);
    STREQ(og_entity_name(og_relationship_destination(books)), "Volume");
    CHECK(og_model_configuration_entity_at(m, "Shelf", 0, &err) == book);
    text_is(og_model_template_entity(m, "T", &err), "Volume");

    OK(og_property_set_name(title, "heading", &err));
    OK(og_property_set_name(writer, "author", &err));
    STREQ(og_property_name(title), "heading");
    CHECK(og_entity_property(book, "heading", &err) == title);
    FAILS_NULL(og_entity_property(book, "title", &err), OG_ERROR_UNKNOWN_KEY, "title");
    CHECK(og_relationship_inverse(books) == writer);
    STREQ(og_property_name(og_relationship_inverse(books)), "author");
    text_is(og_entity_uniqueness_constraint_at(book, 0, &err), "heading");

    FAILS(og_entity_set_name(book, "", &err), OG_ERROR_INVALID_ARGUMENT, "empty");
    FAILS(og_entity_set_name(book, "Author", &err), OG_ERROR_INVALID_ARGUMENT, "Author");
    FAILS(og_property_set_name(title, "", &err), OG_ERROR_INVALID_ARGUMENT, "empty");
    FAILS(og_property_set_name(title, "pages", &err), OG_ERROR_INVALID_ARGUMENT, "pages");
    FAILS(og_entity_set_name(NULL, "X", &err), OG_ERROR_INVALID_HANDLE, "handle");
    FAILS(og_property_set_name(NULL, "x", &err), OG_ERROR_INVALID_HANDLE, "handle");

    og_coordinator *c = NN(og_coordinator_new(m, &err));
    FAILS(og_entity_set_name(book, "Tome", &err), OG_ERROR_MODEL_IMMUTABLE, "in use");
    FAILS(og_property_set_name(title, "caption", &err), OG_ERROR_MODEL_IMMUTABLE, "in use");
    og_coordinator_release(c);
    og_model_release(m);
}

static void case_invalid_handles(void) {
    og_model *m = build();
    og_entity *e = NN(og_model_entity(m, "Book", &err));
    og_property *p = NN(og_entity_property(e, "title", &err));
    og_property *r = NN(og_entity_property(e, "writer", &err));
    og_model_release(m);
    const int64_t H = OG_ERROR_INVALID_HANDLE;
    const char *w = "handle";
    size_t n;
    bool b;
    int64_t lo, hi;
    uint8_t h[32];
    const char *s[] = {"x"};
    og_model *holder = og_model_new();
    for (int round = 0; round < 2; round++) {
        /* Round 0: released handles; round 1: NULL. */
        og_model *mm = round == 0 ? m : NULL;
        og_entity *ee = round == 0 ? e : NULL;
        og_property *pp = round == 0 ? p : NULL, *rr = round == 0 ? r : NULL;
        FAILS(og_model_remove_entity(mm, "Book", &err), H, w);
        FAILS(og_model_set_version_identifiers(mm, s, 1, &err), H, w);
        FAILS(og_model_set_configuration_entities(mm, "C", NULL, 0, &err), H, w);
        FAILS(og_model_configuration_entity_count(mm, NULL, &n, &err), H, w);
        FAILS_NULL(og_model_configuration_entity_at(mm, NULL, 0, &err), H, w);
        FAILS(og_model_set_template(mm, "T", "Book", NULL, NULL, NULL, 0, 0, &err), H, w);
        FAILS(og_model_remove_template(mm, "T", &err), H, w);
        FAILS_NULL(og_model_template_predicate(mm, "T", &err), H, w);
        FAILS(og_model_template_fetch_limit(mm, "T", &lo, &err), H, w);
        FAILS(og_model_template_sort_count(mm, "T", &n, &err), H, w);
        FAILS_NULL(og_model_template_sort_at(mm, "T", 0, &b, &err), H, w);
        FAILS(og_model_template_variable_count(mm, "T", &n, &err), H, w);
        FAILS_NULL(og_model_template_variable_at(mm, "T", 0, &err), H, w);
        FAILS(og_model_set_localization(mm, s, s, 1, &err), H, w);
        INTEQ(og_model_localization_count(mm), 0);
        FAILS_NULL(og_model_localization_key_at(mm, 0, &err), H, w);
        FAILS_NULL(og_model_localization(mm, "k", &err), H, w);
        FAILS_NULL(og_model_localized_entity_name(mm, "Book", &err), H, w);
        FAILS_NULL(og_model_localized_property_name(mm, "title", "Book", &err), H, w);
        FAILS_NULL(og_model_version_hash_at(mm, 0, h, &err), H, w);
        FAILS(og_model_is_configuration_compatible(mm, NULL, NULL, NULL, 0, &b, &err), H, w);
        FAILS(og_model_is_configuration_compatible_with_store(mm, NULL, NULL, &b, &err), H, w);
        og_model *parts[] = {mm};
        FAILS_NULL(og_model_merge(parts, 1, &err), H, w);
        FAILS_NULL(og_model_merge_for_metadata(parts, 1, NULL, NULL, 0, &err), H, w);
        INTEQ(og_store_version_hash_count(NULL), 0);
        FAILS_NULL(og_store_version_hash_at(NULL, 0, h, &err), H, w);
        og_entity *es[] = {ee};
        FAILS(og_entity_set_subentities(ee, NULL, 0, &err), H, w);
        FAILS(og_entity_set_class_name(ee, "X", &err), H, w);
        FAILS(og_entity_set_renaming_identifier(ee, "X", &err), H, w);
        FAILS(og_entity_set_version_hash_modifier(ee, "X", &err), H, w);
        FAILS_NULL(og_entity_version_hash_modifier(ee, &err), H, w);
        INTEQ(og_entity_user_info_count(ee), 0);
        FAILS_NULL(og_entity_user_info_key_at(ee, 0, &err), H, w);
        FAILS(og_entity_set_user_info(ee, s, s, 1, &err), H, w);
        INTEQ(og_entity_uniqueness_constraint_count(ee), 0);
        FAILS_NULL(og_entity_uniqueness_constraint_at(ee, 0, &err), H, w);
        FAILS(og_entity_set_uniqueness_constraints(ee, s, 1, &err), H, w);
        INTEQ(og_entity_relationship_with_destination_count(ee, ee), 0);
        FAILS_NULL(og_entity_relationship_with_destination_at(ee, ee, 0, &err), H, w);
        INTEQ(og_entity_fetched_property_count(ee), 0);
        FAILS_NULL(og_entity_fetched_property_at(ee, 0, &err), H, w);
        FAILS_NULL(og_entity_add_fetched_property(ee, "f", "Book", NULL, &err), H, w);
        FAILS(og_entity_remove_property(ee, "title", &err), H, w);
        FAILS(og_model_set_configuration_entities(holder, "C", es, 1, &err), H, w);
        FAILS(og_property_set_transient(pp, true, &err), H, w);
        FAILS(og_property_is_indexed(pp, &b, &err), H, w);
        FAILS(og_property_set_indexed(pp, true, &err), H, w);
        FAILS(og_property_is_indexed_by_spotlight(pp, &b, &err), H, w);
        FAILS(og_property_set_indexed_by_spotlight(pp, true, &err), H, w);
        FAILS(og_property_is_stored_in_external_record(pp, &b, &err), H, w);
        FAILS(og_property_set_stored_in_external_record(pp, true, &err), H, w);
        FAILS(og_property_set_renaming_identifier(pp, "x", &err), H, w);
        FAILS(og_property_set_version_hash_modifier(pp, "x", &err), H, w);
        FAILS_NULL(og_property_version_hash_modifier(pp, &err), H, w);
        FAILS(og_property_version_hash(pp, h, &err), H, w);
        INTEQ(og_property_user_info_count(pp), 0);
        FAILS_NULL(og_property_user_info_key_at(pp, 0, &err), H, w);
        FAILS(og_property_set_user_info(pp, s, s, 1, &err), H, w);
        INTEQ(og_property_validation_count(pp), 0);
        FAILS_NULL(og_property_validation_predicate_at(pp, 0, &err), H, w);
        FAILS_NULL(og_property_validation_warning_at(pp, 0, &err), H, w);
        FAILS(og_property_set_validation(pp, s, s, 1, &err), H, w);
        FAILS(og_attribute_set_type(pp, OG_ATTRIBUTE_STRING, &err), H, w);
        FAILS_NULL(og_attribute_min_value(pp, &err), H, w);
        FAILS_NULL(og_attribute_max_value(pp, &err), H, w);
        FAILS(og_attribute_set_value_bounds(pp, NULL, NULL, &err), H, w);
        FAILS(og_attribute_length_bounds(pp, &lo, &hi, &err), H, w);
        FAILS(og_attribute_set_length_bounds(pp, 1, 2, &err), H, w);
        FAILS_NULL(og_attribute_regular_expression(pp, &err), H, w);
        FAILS(og_attribute_set_regular_expression(pp, "x", &err), H, w);
        FAILS(og_attribute_set_value_transformer_name(pp, "x", &err), H, w);
        FAILS_NULL(og_attribute_value_class_name(pp, &err), H, w);
        FAILS(og_attribute_set_value_class_name(pp, "x", &err), H, w);
        FAILS_NULL(og_attribute_derivation_expression(pp, &err), H, w);
        FAILS(og_attribute_set_derivation_expression(pp, "x", &err), H, w);
        FAILS(og_attribute_allows_external_storage(pp, &b, &err), H, w);
        FAILS(og_attribute_set_allows_external_storage(pp, true, &err), H, w);
        FAILS(og_attribute_preserves_value_in_history(pp, &b, &err), H, w);
        FAILS(og_attribute_set_preserves_value_in_history(pp, true, &err), H, w);
        FAILS(og_relationship_set_counts(rr, 0, 1, &err), H, w);
        FAILS(og_relationship_set_ordered(rr, true, &err), H, w);
        FAILS(og_relationship_set_destination(rr, ee, &err), H, w);
        FAILS(og_fetched_property_set_request(pp, "Book", NULL, &err), H, w);
    }
    og_model_release(holder);
    /* A wrong-kind handle: an entity where a model is expected. */
    og_model *fresh = build();
    og_entity *fe = NN(og_model_entity(fresh, "Book", &err));
    FAILS(og_model_set_version_identifiers((og_model *)fe, NULL, 0, &err), H, "kind");
    FAILS(og_entity_set_class_name((og_entity *)NN(og_entity_property(fe, "title", &err)), "X", &err), H, "kind");
    og_model_release(fresh);
}

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"model_level", case_model_level},   {"entity_level", case_entity_level}, {"property_level", case_property_level},
        {"fixtures", case_fixtures},         {"metadata", case_metadata},         {"frozen", case_frozen},
        {"invalid_handles", case_invalid_handles}, {"renaming", case_renaming},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0) continue;
        printf("== %s\n", cases[i].name);
        cases[i].run();
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "unknown case %s\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    puts("model edit: ok");
    return 0;
}
