/* Models read from a JSON file (docs/model-format.md): every attribute type
 * with its default, a to-one/to-many pair with inverses, inheritance, and the
 * errors for files that are not valid models. */
#include "og_test.h"

static const char *model_json =
    "{\n"
    "  \"format\": \"objectgraph-model\",\n"
    "  \"formatVersion\": 1,\n"
    "  \"versionIdentifiers\": [\"1\"],\n"
    "  \"entities\": [\n"
    "    { \"name\": \"Shelf\", \"abstract\": true,\n"
    "      \"attributes\": [ { \"name\": \"label\", \"type\": \"string\" } ] },\n"
    "    { \"name\": \"Author\", \"superentity\": \"Shelf\",\n"
    "      \"attributes\": [\n"
    "        { \"name\": \"name\", \"type\": \"string\", \"optional\": false, \"default\": \"Anonymous\" }\n"
    "      ],\n"
    "      \"relationships\": [\n"
    "        { \"name\": \"books\", \"destination\": \"Book\", \"inverse\": \"author\",\n"
    "          \"toMany\": true, \"deleteRule\": \"cascade\" }\n"
    "      ] },\n"
    "    { \"name\": \"Book\",\n"
    "      \"attributes\": [\n"
    "        { \"name\": \"small\", \"type\": \"integer16\", \"default\": -5 },\n"
    "        { \"name\": \"medium\", \"type\": \"integer32\", \"default\": 100000 },\n"
    "        { \"name\": \"large\", \"type\": \"integer64\", \"default\": 9007199254740993 },\n"
    "        { \"name\": \"price\", \"type\": \"decimal\", \"default\": \"12.50\" },\n"
    "        { \"name\": \"ratio\", \"type\": \"double\", \"default\": 2.25 },\n"
    "        { \"name\": \"weight\", \"type\": \"float\", \"default\": 1.5 },\n"
    "        { \"name\": \"title\", \"type\": \"string\", \"default\": \"Untitled\" },\n"
    "        { \"name\": \"available\", \"type\": \"boolean\", \"default\": true },\n"
    "        { \"name\": \"published\", \"type\": \"date\", \"default\": \"2001-01-01T00:00:00Z\" },\n"
    "        { \"name\": \"cover\", \"type\": \"binary\", \"default\": \"AAEC/w==\" },\n"
    "        { \"name\": \"code\", \"type\": \"uuid\", \"default\": \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\" },\n"
    "        { \"name\": \"link\", \"type\": \"uri\", \"default\": \"https://example.org/b\" }\n"
    "      ],\n"
    "      \"relationships\": [\n"
    "        { \"name\": \"author\", \"destination\": \"Author\", \"inverse\": \"books\" }\n"
    "      ] }\n"
    "  ]\n"
    "}\n";

static og_value *default_of(og_entity *entity, const char *key, og_attribute_type type) {
    og_property *p = NN(og_entity_property(entity, key, &err));
    og_attribute_type t;
    OK(og_attribute_type_of(p, &t, &err));
    INTEQ(t, type);
    return NN(og_attribute_default(p, &err));
}

static void check_book(og_entity *book) {
    int64_t i;
    double d;
    bool b;
    const char *s;
    const void *bytes;
    size_t length;
    uint8_t id[16];
    static const uint8_t expected_id[16] = {0xe6, 0x21, 0xe1, 0xf8, 0xc3, 0x6c, 0x49, 0x5a,
                                            0x93, 0xfc, 0x0c, 0x24, 0x7a, 0x3e, 0x6e, 0x5f};
    og_value *v;

    v = default_of(book, "small", OG_ATTRIBUTE_INTEGER16);
    OK(og_value_get_int64(v, &i, &err));
    INTEQ(i, -5);
    og_value_release(v);
    v = default_of(book, "medium", OG_ATTRIBUTE_INTEGER32);
    OK(og_value_get_int64(v, &i, &err));
    INTEQ(i, 100000);
    og_value_release(v);
    v = default_of(book, "large", OG_ATTRIBUTE_INTEGER64); /* 2^53 + 1: no trip through double */
    OK(og_value_get_int64(v, &i, &err));
    INTEQ(i, 9007199254740993LL);
    og_value_release(v);
    v = default_of(book, "price", OG_ATTRIBUTE_DECIMAL);
    OK(og_value_get_decimal(v, &s, &err));
    DBLEQ(strtod(s, NULL), 12.5); /* "12.50" or "12.5": the same number */
    og_value_release(v);
    v = default_of(book, "ratio", OG_ATTRIBUTE_DOUBLE);
    OK(og_value_get_double(v, &d, &err));
    DBLEQ(d, 2.25);
    og_value_release(v);
    v = default_of(book, "weight", OG_ATTRIBUTE_FLOAT);
    OK(og_value_get_double(v, &d, &err));
    DBLEQ(d, 1.5);
    og_value_release(v);
    v = default_of(book, "title", OG_ATTRIBUTE_STRING);
    OK(og_value_get_string(v, &s, &err));
    STREQ(s, "Untitled");
    og_value_release(v);
    v = default_of(book, "available", OG_ATTRIBUTE_BOOLEAN);
    OK(og_value_get_bool(v, &b, &err));
    CHECK(b);
    og_value_release(v);
    v = default_of(book, "published", OG_ATTRIBUTE_DATE);
    OK(og_value_get_date(v, &d, &err));
    DBLEQ(d, 978307200.0); /* 2001-01-01 in seconds since 1970 */
    og_value_release(v);
    v = default_of(book, "cover", OG_ATTRIBUTE_BINARY);
    OK(og_value_get_data(v, &bytes, &length, &err));
    INTEQ(length, 4);
    CHECK(memcmp(bytes, "\x00\x01\x02\xff", 4) == 0);
    og_value_release(v);
    v = default_of(book, "code", OG_ATTRIBUTE_UUID);
    OK(og_value_get_uuid(v, id, &err));
    CHECK(memcmp(id, expected_id, 16) == 0);
    og_value_release(v);
    v = default_of(book, "link", OG_ATTRIBUTE_URI);
    OK(og_value_get_uri(v, &s, &err));
    STREQ(s, "https://example.org/b");
    og_value_release(v);

    /* Slots follow the file's order. */
    INTEQ(og_entity_slot(book, "small", &err), 0);
    INTEQ(og_entity_slot(book, "link", &err), 11);
    CHECK(err == NULL);
}

static void check_relationships(og_entity *author, og_entity *book) {
    og_property *books = NN(og_entity_property(author, "books", &err));
    og_property *written_by = NN(og_entity_property(book, "author", &err));
    bool to_many;
    og_delete_rule rule;
    OK(og_relationship_is_to_many(books, &to_many, &err));
    CHECK(to_many);
    OK(og_relationship_delete_rule(books, &rule, &err));
    INTEQ(rule, OG_DELETE_RULE_CASCADE);
    OK(og_relationship_is_to_many(written_by, &to_many, &err));
    CHECK(!to_many);
    OK(og_relationship_delete_rule(written_by, &rule, &err));
    INTEQ(rule, OG_DELETE_RULE_NULLIFY);
    STREQ(og_property_name(NN(og_relationship_inverse(books))), "author");
    STREQ(og_property_name(NN(og_relationship_inverse(written_by))), "books");
    STREQ(og_entity_name(NN(og_relationship_destination(written_by))), "Author");
}

static void check_inheritance(og_model *model, og_entity *author) {
    og_entity *shelf = NN(og_model_entity(model, "Shelf", &err));
    bool abstract;
    OK(og_entity_is_abstract(shelf, &abstract, &err));
    CHECK(abstract);
    STREQ(og_entity_name(NN(og_entity_superentity(author))), "Shelf");
    /* label (inherited), name, books */
    INTEQ(og_entity_property_count(author), 3);
    STREQ(og_property_name(NN(og_entity_property_at(author, 0, &err))), "label");
    og_property *name = NN(og_entity_property(author, "name", &err));
    bool optional;
    OK(og_property_is_optional(name, &optional, &err));
    CHECK(!optional);
}

static void test_invalid_files(const char *dir) {
    char *path = og_t_path(dir, "typo.json");
    og_t_write_file(path,
                    "{ \"format\": \"objectgraph-model\", \"formatVersion\": 1, \"entities\": [\n"
                    "  { \"name\": \"Magazine\", \"atributes\": [] } ] }\n");
    FAILS_NULL(og_model_load(path, &err), OG_ERROR_INVALID_MODEL, "Magazine");
    free(path);

    path = og_t_path(dir, "badtype.json");
    og_t_write_file(path,
                    "{ \"format\": \"objectgraph-model\", \"formatVersion\": 1, \"entities\": [\n"
                    "  { \"name\": \"Magazine\", \"attributes\": [\n"
                    "    { \"name\": \"issue\", \"type\": \"integer128\" } ] } ] }\n");
    FAILS_NULL(og_model_load(path, &err), OG_ERROR_INVALID_MODEL, "issue|integer128");
    free(path);

    FAILS_NULL(og_model_from_json("{ not json", &err), OG_ERROR_INVALID_MODEL, "JSON");

    path = og_t_path(dir, "missing.json");
    FAILS_NULL(og_model_load(path, &err), OG_ERROR_INVALID_ARGUMENT, "missing.json");
    free(path);
}

int main(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "Library.json");
    og_t_write_file(path, model_json);

    og_model *model = NN(og_model_load(path, &err));
    INTEQ(og_model_entity_count(model), 3);
    og_entity *author = NN(og_model_entity(model, "Author", &err));
    og_entity *book = NN(og_model_entity(model, "Book", &err));
    check_book(book);
    check_relationships(author, book);
    check_inheritance(model, author);
    og_model_release(model);

    /* The same text parsed in memory gives the same model. */
    og_model *parsed = NN(og_model_from_json(model_json, &err));
    check_book(NN(og_model_entity(parsed, "Book", &err)));
    og_model_release(parsed);

    test_invalid_files(dir);
    free(path);
    og_t_remove_tree(dir);
    puts("model_json: all checks passed");
    return 0;
}
