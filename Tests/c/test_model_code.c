/* Models built in code: entities, attributes of every type, relationships and
 * their inverses, inheritance, version hashes, JSON round trips, and the model
 * turning immutable once a coordinator uses it. */
#include "library_model.h"

static const struct {
    const char *name;
    og_attribute_type type;
} book_attributes[] = {
    {"title", OG_ATTRIBUTE_STRING},     {"small", OG_ATTRIBUTE_INTEGER16},
    {"medium", OG_ATTRIBUTE_INTEGER32}, {"large", OG_ATTRIBUTE_INTEGER64},
    {"ratio", OG_ATTRIBUTE_DOUBLE},     {"weight", OG_ATTRIBUTE_FLOAT},
    {"available", OG_ATTRIBUTE_BOOLEAN}, {"published", OG_ATTRIBUTE_DATE},
    {"cover", OG_ATTRIBUTE_BINARY},     {"price", OG_ATTRIBUTE_DECIMAL},
    {"code", OG_ATTRIBUTE_UUID},        {"link", OG_ATTRIBUTE_URI},
};
#define BOOK_ATTRIBUTE_COUNT (sizeof book_attributes / sizeof book_attributes[0])

static void test_entities(og_model *model) {
    INTEQ(og_model_entity_count(model), 2);
    /* Entities come in name order. */
    STREQ(og_entity_name(NN(og_model_entity_at(model, 0, &err))), "Author");
    STREQ(og_entity_name(NN(og_model_entity_at(model, 1, &err))), "Book");
    FAILS_NULL(og_model_entity_at(model, 2, &err), OG_ERROR_INVALID_ARGUMENT, "index|range|2");

    og_entity *book = NN(og_model_entity(model, "Book", &err));
    STREQ(og_entity_name(book), "Book");
    CHECK(og_entity_superentity(book) == NULL);
    bool abstract = true;
    OK(og_entity_is_abstract(book, &abstract, &err));
    CHECK(!abstract);
}

static void test_attributes(og_model *model) {
    og_entity *book = NN(og_model_entity(model, "Book", &err));
    INTEQ(og_entity_property_count(book), BOOK_ATTRIBUTE_COUNT + 1);
    for (size_t i = 0; i < BOOK_ATTRIBUTE_COUNT; i++) {
        og_property *p = NN(og_entity_property(book, book_attributes[i].name, &err));
        STREQ(og_property_name(p), book_attributes[i].name);
        og_property_kind kind;
        OK(og_property_kind_of(p, &kind, &err));
        INTEQ(kind, OG_PROPERTY_ATTRIBUTE);
        og_attribute_type type;
        OK(og_attribute_type_of(p, &type, &err));
        INTEQ(type, book_attributes[i].type);
        STREQ(og_entity_name(NN(og_property_entity(p))), "Book");
        CHECK(og_relationship_destination(p) == NULL);

        /* Slots follow the order the properties were added in. */
        int64_t slot = og_entity_slot(book, book_attributes[i].name, &err);
        CHECK(err == NULL);
        INTEQ(slot, i);
        STREQ(og_property_name(NN(og_entity_property_at(book, (size_t)slot, &err))),
              book_attributes[i].name);
    }
    FAILS_NULL(og_entity_property_at(book, 99, &err), OG_ERROR_INVALID_ARGUMENT, "index|range|99");

    /* Attributes are optional until told otherwise. */
    og_property *title = NN(og_entity_property(book, "title", &err));
    bool optional = false;
    OK(og_property_is_optional(title, &optional, &err));
    CHECK(optional);
    OK(og_property_set_optional(title, false, &err));
    OK(og_property_is_optional(title, &optional, &err));
    CHECK(!optional);
    OK(og_property_set_optional(title, true, &err));

    /* Defaults: set ones read back, others are a null value. */
    int64_t i;
    og_value *v = NN(og_attribute_default(NN(og_entity_property(book, "small", &err)), &err));
    OK(og_value_get_int64(v, &i, &err));
    INTEQ(i, 7);
    og_value_release(v);
    v = NN(og_attribute_default(NN(og_entity_property(book, "medium", &err)), &err));
    INTEQ(og_value_type_of(v), OG_VALUE_NULL);
    og_value_release(v);

    /* A default must suit the attribute's type. */
    v = NN(og_value_new_string("seven", &err));
    FAILS(og_attribute_set_default(NN(og_entity_property(book, "small", &err)), v, &err),
          OG_ERROR_TYPE_MISMATCH, "small|type");
    og_value_release(v);
}

static void test_relationships(og_model *model) {
    og_entity *author = NN(og_model_entity(model, "Author", &err));
    og_entity *book = NN(og_model_entity(model, "Book", &err));
    og_property *books = NN(og_entity_property(author, "books", &err));
    og_property *written_by = NN(og_entity_property(book, "author", &err));

    og_property_kind kind;
    OK(og_property_kind_of(books, &kind, &err));
    INTEQ(kind, OG_PROPERTY_RELATIONSHIP);
    STREQ(og_entity_name(NN(og_relationship_destination(books))), "Book");
    STREQ(og_entity_name(NN(og_relationship_destination(written_by))), "Author");
    /* Setting one side's inverse set both. */
    STREQ(og_property_name(NN(og_relationship_inverse(books))), "author");
    STREQ(og_property_name(NN(og_relationship_inverse(written_by))), "books");

    bool to_many;
    OK(og_relationship_is_to_many(books, &to_many, &err));
    CHECK(to_many);
    OK(og_relationship_is_to_many(written_by, &to_many, &err));
    CHECK(!to_many);

    og_delete_rule rule;
    OK(og_relationship_delete_rule(books, &rule, &err));
    INTEQ(rule, OG_DELETE_RULE_CASCADE);
    OK(og_relationship_delete_rule(written_by, &rule, &err));
    INTEQ(rule, OG_DELETE_RULE_NULLIFY); /* the default */

    og_attribute_type type;
    FAILS(og_attribute_type_of(books, &type, &err), OG_ERROR_TYPE_MISMATCH, "books|relationship|attribute");
    /* An inverse must point back at the entity. */
    og_property *title = NN(og_entity_property(book, "title", &err));
    CHECK(og_relationship_set_inverse(books, title, &err) == OG_ERROR);
    CHECK(err != NULL);
    og_t_clear();
}

static void hash_of(og_model *model, const char *entity, uint8_t out[32]) {
    OK(og_entity_version_hash(NN(og_model_entity(model, entity, &err)), out, &err));
}

static void test_version_hashes(og_model *model) {
    uint8_t a[32], b[32];
    og_model *same = library_model_new(false);
    og_model *changed = library_model_new(true);
    hash_of(model, "Book", a);
    hash_of(same, "Book", b);
    CHECK(memcmp(a, b, 32) == 0);
    hash_of(changed, "Book", b);
    CHECK(memcmp(a, b, 32) != 0);
    hash_of(model, "Author", a);
    hash_of(changed, "Author", b);
    CHECK(memcmp(a, b, 32) == 0);
    og_model_release(same);
    og_model_release(changed);
}

static void test_json_round_trip(og_model *model) {
    uint8_t a[32], b[32];
    char *json = NN(og_model_to_json(model, &err));
    CHECK(strstr(json, "\"objectgraph-model\"") != NULL);
    og_model *parsed = NN(og_model_from_json(json, &err));
    og_free(json);
    INTEQ(og_model_entity_count(parsed), 2);
    hash_of(model, "Book", a);
    hash_of(parsed, "Book", b);
    CHECK(memcmp(a, b, 32) == 0);
    og_model_release(parsed);

    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "Library.json");
    OK(og_model_save(model, path, &err));
    og_model *loaded = NN(og_model_load(path, &err));
    hash_of(loaded, "Book", b);
    CHECK(memcmp(a, b, 32) == 0);
    hash_of(model, "Author", a);
    hash_of(loaded, "Author", b);
    CHECK(memcmp(a, b, 32) == 0);
    og_model_release(loaded);
    free(path);
    og_t_remove_tree(dir);
}

static void test_inheritance(void) {
    og_model *model = NN(og_model_new());
    og_entity *item = NN(og_model_add_entity(model, "Item", &err));
    og_entity *novel = NN(og_model_add_entity(model, "Novel", &err));
    NN(og_entity_add_attribute(item, "created", OG_ATTRIBUTE_DATE, &err));
    NN(og_entity_add_attribute(novel, "genre", OG_ATTRIBUTE_STRING, &err));
    OK(og_entity_set_abstract(item, true, &err));
    OK(og_entity_set_superentity(novel, item, &err));

    bool abstract;
    OK(og_entity_is_abstract(item, &abstract, &err));
    CHECK(abstract);
    STREQ(og_entity_name(NN(og_entity_superentity(novel))), "Item");
    /* Inherited properties come first and belong to the superentity. */
    INTEQ(og_entity_property_count(novel), 2);
    og_property *first = NN(og_entity_property_at(novel, 0, &err));
    STREQ(og_property_name(first), "created");
    STREQ(og_entity_name(NN(og_property_entity(first))), "Item");
    INTEQ(og_entity_slot(novel, "genre", &err), 1);
    CHECK(err == NULL);

    OK(og_entity_set_superentity(novel, NULL, &err));
    CHECK(og_entity_superentity(novel) == NULL);
    INTEQ(og_entity_property_count(novel), 1);
    og_model_release(model);
}

static void test_immutable_once_used(og_model *model) {
    bool editable = false;
    OK(og_model_is_editable(model, &editable, &err));
    CHECK(editable);
    og_model *extra = library_model_new(false);
    og_coordinator *coordinator = NN(og_coordinator_new(extra, &err));
    OK(og_model_is_editable(extra, &editable, &err));
    CHECK(!editable);
    FAILS_NULL(og_model_add_entity(extra, "Shelf", &err), OG_ERROR_MODEL_IMMUTABLE, "model|immutable|editable");
    og_entity *book = NN(og_model_entity(extra, "Book", &err));
    FAILS_NULL(og_entity_add_attribute(book, "isbn", OG_ATTRIBUTE_STRING, &err),
               OG_ERROR_MODEL_IMMUTABLE, "model|immutable|editable");
    INTEQ(og_coordinator_store_count(coordinator), 0);
    og_coordinator_release(coordinator);
    og_model_release(extra);
}

static void test_building_errors(og_model *model) {
    og_entity *book = NN(og_model_entity(model, "Book", &err));
    CHECK(og_model_add_entity(model, "Book", &err) == NULL); /* duplicate */
    CHECK(err != NULL);
    og_t_clear();
    CHECK(og_model_add_entity(model, "", &err) == NULL);
    CHECK(err != NULL);
    og_t_clear();
    CHECK(og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &err) == NULL);
    CHECK(err != NULL);
    og_t_clear();
    FAILS_NULL(og_model_entity(model, "Shelf", &err), OG_ERROR_UNKNOWN_ENTITY, "Shelf");
    FAILS_NULL(og_entity_property(book, "isbn", &err), OG_ERROR_UNKNOWN_KEY, "isbn");
    INTEQ(og_entity_slot(book, "isbn", &err), -1);
    og_t_expect_error(OG_ERROR_UNKNOWN_KEY, "isbn", __FILE__, __LINE__, "og_entity_slot(book, \"isbn\")");
}

int main(void) {
    og_model *model = library_model_new(false);
    test_entities(model);
    test_attributes(model);
    test_relationships(model);
    test_version_hashes(model);
    test_json_round_trip(model);
    test_inheritance();
    test_immutable_once_used(model);
    test_building_errors(model);
    og_model_release(model);
    puts("model_code: all checks passed");
    return 0;
}
