/* Xcode model files and the model details behind them: the hand-written
 * fixtures in Tests/Fixtures/Models, versions, templates, configurations,
 * fetched properties, malformed files and writing back; Xcode 3's binary
 * `elements` folders (../shared/fixtures/xcode3-models, read in place; that
 * case reports itself skipped when they are absent) and damaged ones. */
#include "og_test_cases.h"
#include <sys/stat.h>

#ifndef OG_FIXTURES
#define OG_FIXTURES "Tests/Fixtures/Models"
#endif
#ifndef OG_XCODE3_MODELS
#define OG_XCODE3_MODELS "../shared/fixtures/xcode3-models"
#endif

static void text_is(char *s, const char *expected) {
    CHECK(s != NULL);
    if (strcmp(s, expected) != 0) {
        fprintf(stderr, "got '%s', expected '%s'\n", s, expected);
        CHECK(0);
    }
    og_free(s);
}

static void fixtures(void) {
    bool b;
    int64_t lo, hi;
    og_property_kind kind;

    og_model *m = NN(og_model_load(OG_FIXTURES "/Inheritance.xcdatamodeld", &err));
    og_entity *vehicle = NN(og_model_entity(m, "Vehicle", &err));
    og_entity *car = NN(og_model_entity(m, "Car", &err));
    og_entity *sports = NN(og_model_entity(m, "SportsCar", &err));
    OK(og_entity_is_kind_of(sports, vehicle, &b, &err));
    CHECK(b);
    OK(og_entity_is_kind_of(vehicle, sports, &b, &err));
    CHECK(!b);
    CHECK(og_entity_subentity_count(vehicle) == 1);
    CHECK(strcmp(og_entity_name(NN(og_entity_subentity_at(vehicle, 0, &err))), "Car") == 0);
    CHECK(og_entity_subentity_at(vehicle, 5, &err) == NULL);
    og_t_clear();
    text_is(og_entity_class_name(car, &err), "Car");
    text_is(og_entity_renaming_identifier(car, &err), "Automobile");
    text_is(og_entity_user_info(vehicle, "table", &err), "vehicles");
    CHECK(og_entity_user_info(vehicle, "none", &err) == NULL && err == NULL);
    og_property *plate = NN(og_entity_property(car, "plate", &err));
    text_is(og_property_renaming_identifier(plate, &err), "registration");
    text_is(og_property_user_info(plate, "format", &err), "upper");
    OK(og_property_is_transient(plate, &b, &err));
    CHECK(!b);
    og_property *fast = NN(og_entity_property(NN(og_model_entity(m, "Person", &err)), "fastCars", &err));
    OK(og_property_kind_of(fast, &kind, &err));
    INTEQ(kind, OG_PROPERTY_FETCHED);
    text_is(og_fetched_property_entity(fast, &err), "SportsCar");
    text_is(og_fetched_property_predicate(fast, &err), "owner == $FETCH_SOURCE AND topSpeed > 200");
    CHECK(og_fetched_property_entity(plate, &err) == NULL);
    og_t_clear();
    CHECK(og_model_version_identifier_count(m) == 1);
    text_is(og_model_version_identifier_at(m, 0, &err), "1");
    CHECK(og_model_warning_count(m) == 0);
    CHECK(og_model_warning_at(m, 0, &err) == NULL);
    og_t_clear();
    OK(og_model_validate(m, &err));

    /* Write it back as Xcode XML and as JSON; both read back. */
    char dir[] = "/tmp/og-model-files-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/Copy.xcdatamodeld", dir);
    OK(og_model_write(m, path, &err));
    og_model *again = NN(og_model_load(path, &err));
    CHECK(og_model_entity_count(again) == og_model_entity_count(m));
    og_model_release(again);
    snprintf(path, sizeof path, "%s/copy.mom", dir);
    CHECK(og_model_write(m, path, &err) == OG_ERROR);
    og_t_clear();
    og_model *copy = NN(og_model_copy(m, &err));
    CHECK(og_model_entity_count(copy) == 4);
    og_model_release(copy);
    og_model_release(m);

    /* Relationships: many-to-many, counts, ordered. */
    m = NN(og_model_load(OG_FIXTURES "/Library.xcdatamodeld", &err));
    og_property *authors = NN(og_entity_property(NN(og_model_entity(m, "Book", &err)), "authors", &err));
    OK(og_relationship_counts(authors, &lo, &hi, &err));
    CHECK(lo == 1 && hi == 10);
    og_property *books = NN(og_entity_property(NN(og_model_entity(m, "Shelf", &err)), "books", &err));
    OK(og_relationship_is_ordered(books, &b, &err));
    CHECK(b);
    og_model_release(m);

    /* Every attribute type; the transformer name. */
    m = NN(og_model_load(OG_FIXTURES "/AllTypes.xcdatamodeld", &err));
    og_entity *sample = NN(og_model_entity(m, "Sample", &err));
    text_is(og_attribute_value_transformer_name(NN(og_entity_property(sample, "colour", &err)), &err), "ColourTransformer");
    CHECK(og_attribute_value_transformer_name(NN(og_entity_property(sample, "code", &err)), &err) == NULL && err == NULL);
    og_model_release(m);

    /* Templates with variables, two configurations. */
    m = NN(og_model_load(OG_FIXTURES "/Shop.xcdatamodeld", &err));
    CHECK(og_model_configuration_count(m) == 2);
    text_is(og_model_configuration_at(m, 0, &err), "Sales");
    OK(og_model_configuration_contains(m, "Audit", "AuditEntry", &b, &err));
    CHECK(b);
    OK(og_model_configuration_contains(m, "Sales", "AuditEntry", &b, &err));
    CHECK(!b);
    OK(og_model_configuration_contains(m, NULL, "AuditEntry", &b, &err));
    CHECK(b);
    CHECK(og_model_configuration_contains(m, "Nope", "AuditEntry", &b, &err) == OG_ERROR);
    og_t_clear();
    CHECK(og_model_template_count(m) == 3);
    text_is(og_model_template_at(m, 1, &err), "CustomersInCity");
    text_is(og_model_template_entity(m, "LargeOrders", &err), "Order");
    const char *keys[] = {"CITY"};
    og_value *city = og_value_new_string("Paris", &err);
    const og_value *values[] = {city};
    text_is(og_model_template_substitute(m, "CustomersInCity", keys, values, 1, &err), "city == \"Paris\"");
    CHECK(og_model_template_substitute(m, "LargeOrders", keys, values, 1, &err) == NULL);
    CHECK(err != NULL && strstr(og_error_message(err), "$MINIMUM") != NULL);
    og_t_clear();
    og_value_release(city);
    og_model_release(m);

    /* Versions: the current one and a named one. */
    m = NN(og_model_load_version(OG_FIXTURES "/Versions.xcdatamodeld", "Versions", &err));
    CHECK(og_model_entity(m, "Tag", &err) == NULL);
    og_t_clear();
    og_model_release(m);
    m = NN(og_model_load_version(OG_FIXTURES "/Versions.xcdatamodeld", NULL, &err));
    NN(og_model_entity(m, "Tag", &err));
    og_model_release(m);

    /* A malformed model names the file, entity and property. */
    CHECK(og_model_load(OG_FIXTURES "/Invalid/unknown-destination.xcdatamodel", &err) == NULL);
    INTEQ(og_error_code(err), OG_ERROR_INVALID_MODEL);
    CHECK(strstr(og_error_message(err), "entity 'A', property 'r'") != NULL);
    og_t_clear();
    og_t_remove_tree(strdup(dir));
}

/* Xcode 3 models load through og_model_load and og_model_load_version like any
 * Xcode folder: a single `.xcdatamodel` and a version of an `.xcdatamodeld`. */
static void xcode3_models(void) {
    struct stat st;
    if (stat(OG_XCODE3_MODELS, &st) != 0) {
        printf("skipped: no Xcode 3 fixtures at %s\n", OG_XCODE3_MODELS);
        exit(77);
    }
    og_model *m = NN(og_model_load(OG_XCODE3_MODELS "/mogenerator-test/test.xcdatamodel", &err));
    INTEQ(og_model_entity_count(m), 8);
    og_entity *parent = NN(og_model_entity(m, "Parent", &err));
    CHECK(strcmp(og_entity_name(NN(og_entity_superentity(parent))), "Human") == 0);
    /* Human's 6 properties and Parent's own 16 (15 attributes, 1 relationship). */
    INTEQ(og_entity_property_count(parent), 22);
    INTEQ(og_entity_property_count(NN(og_model_entity(m, "Human", &err))), 6);
    og_property *children = NN(og_entity_property(parent, "children", &err));
    bool b;
    OK(og_relationship_is_to_many(children, &b, &err));
    CHECK(b);
    OK(og_relationship_is_ordered(children, &b, &err));
    CHECK(b);
    og_delete_rule rule;
    OK(og_relationship_delete_rule(children, &rule, &err));
    INTEQ(rule, OG_DELETE_RULE_CASCADE);
    CHECK(strcmp(og_property_name(NN(og_relationship_inverse(children))), "parent") == 0);
    CHECK(strcmp(og_entity_name(NN(og_relationship_destination(children))), "Child") == 0);
    og_attribute_type type;
    OK(og_attribute_type_of(NN(og_entity_property(parent, "age", &err)), &type, &err));
    INTEQ(type, OG_ATTRIBUTE_INTEGER16);
    INTEQ(og_model_template_count(m), 5);
    INTEQ(og_model_warning_count(m), 0);
    OK(og_model_validate(m, &err));
    og_model_release(m);

    /* A versioned folder whose only version is an Xcode 3 folder (linked, so the
     * fixture is read in place); its name has a space, as in the original. */
    char *dir = og_t_tempdir();
    char *bundle = og_t_path(dir, "WordPress.xcdatamodeld");
    CHECK(mkdir(bundle, 0755) == 0);
    char *version = og_t_path(bundle, "WordPress 13.xcdatamodel");
    CHECK(symlink(OG_XCODE3_MODELS "/wordpress-ios-13/WordPress 13.xcdatamodel", version) == 0);
    m = NN(og_model_load_version(bundle, "WordPress 13", &err));
    INTEQ(og_model_entity_count(m), 13);
    og_model_release(m);
    m = NN(og_model_load(bundle, &err));
    og_entity *post = NN(og_model_entity(m, "Post", &err));
    CHECK(strcmp(og_entity_name(NN(og_entity_superentity(post))), "AbstractPost") == 0);
    OK(og_entity_is_abstract(NN(og_model_entity(m, "AbstractPost", &err)), &b, &err));
    CHECK(b);
    og_model_release(m);
    free(version);
    free(bundle);
    og_t_remove_tree(dir);
}

/* A damaged `elements` archive is OG_ERROR_INVALID_MODEL naming the file. */
static void xcode3_damaged(void) {
    char *dir = og_t_tempdir();
    char *folder = og_t_path(dir, "Damaged.xcdatamodel");
    CHECK(mkdir(folder, 0755) == 0);
    char *elements = og_t_path(folder, "elements");
    og_t_write_file(elements, "bplist00 cut short");
    CHECK(og_model_load(folder, &err) == NULL);
    INTEQ(og_error_code(err), OG_ERROR_INVALID_MODEL);
    CHECK(strstr(og_error_message(err), elements) != NULL);
    CHECK(strstr(og_error_message(err), "not an Xcode 3 model archive") != NULL);
    og_t_clear();
    free(elements);
    free(folder);
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"fixtures", fixtures},
    {"xcode3_models", xcode3_models},
    {"xcode3_damaged", xcode3_damaged},
};

int main(int argc, char **argv) {
    return OG_T_RUN(cases, argc, argv);
}
