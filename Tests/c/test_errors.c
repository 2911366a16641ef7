/* The og_error object: domain, code, message, user-info entries and detailed
 * errors, as a failed save reports them. A failed save writes nothing and
 * leaves the changes pending. */
#include "og_test.h"

static og_model *person_model(void) {
    og_model *model = NN(og_model_new());
    og_entity *person = NN(og_model_add_entity(model, "Person", &err));
    og_property *name = NN(og_entity_add_attribute(person, "name", OG_ATTRIBUTE_STRING, &err));
    og_property *age = NN(og_entity_add_attribute(person, "age", OG_ATTRIBUTE_INTEGER16, &err));
    OK(og_property_set_optional(name, false, &err));
    OK(og_property_set_optional(age, false, &err));
    return model;
}

/* The value of user-info `key`, found by walking the entries by index; it
 * must agree with og_error_user_info. */
static const char *user_info_by_index(const og_error *e, const char *key) {
    const char *found = NULL;
    size_t count = og_error_user_info_count(e);
    for (size_t i = 0; i < count; i++) {
        const char *k = NN(og_error_user_info_key(e, i));
        const char *v = NN(og_error_user_info_value(e, i));
        if (strcmp(k, key) == 0) found = v;
    }
    CHECK(og_error_user_info_key(e, count) == NULL);
    CHECK(og_error_user_info_value(e, count) == NULL);
    const char *direct = og_error_user_info(e, key);
    CHECK((found == NULL) == (direct == NULL));
    if (found) STREQ(found, direct);
    return found;
}

static void check_missing(const og_error *e, const char *key) {
    STREQ(og_error_domain(e), OG_ERROR_DOMAIN_COCOA);
    INTEQ(og_error_code(e), OG_ERROR_VALIDATION_MISSING_MANDATORY);
    CHECK(og_t_contains_word(NN(og_error_message(e)), key));
    STREQ(user_info_by_index(e, "NSValidationErrorKey"), key);
    /* The object is named by its ID URI. */
    const char *object = NN(user_info_by_index(e, "NSValidationErrorObject"));
    CHECK(strncmp(object, "x-coredata:", 11) == 0);
    CHECK(strstr(object, "/Person/") != NULL);
}

int main(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "errors.sqlite");
    og_model *model = person_model();
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *person = NN(og_context_insert(context, "Person", &err));

    /* Two failures: one error of code 1560 with one detail per failure. */
    CHECK(og_context_save(context, &err) == OG_ERROR);
    CHECK(err != NULL);
    printf("  save -> %s %lld: %s\n", og_error_domain(err), (long long)og_error_code(err),
           og_error_message(err));
    STREQ(og_error_domain(err), OG_ERROR_DOMAIN_COCOA);
    INTEQ(og_error_code(err), OG_ERROR_VALIDATION_MULTIPLE);
    INTEQ(og_error_detail_count(err), 2);
    const og_error *first = NN(og_error_detail_at(err, 0));
    const og_error *second = NN(og_error_detail_at(err, 1));
    CHECK(og_error_detail_at(err, 2) == NULL);
    const char *first_key = NN(og_error_user_info(first, "NSValidationErrorKey"));
    bool name_first = strcmp(first_key, "name") == 0;
    check_missing(name_first ? first : second, "name");
    check_missing(name_first ? second : first, "age");
    CHECK(og_error_user_info(err, "NoSuchKey") == NULL);
    og_t_clear();

    /* Nothing was written; the changes are still pending. */
    bool changes;
    OK(og_context_has_changes(context, &changes, &err));
    CHECK(changes);

    /* One failure: the error itself, no wrapper. */
    OK(og_object_set_string(person, "name", "Ada", &err));
    CHECK(og_context_save(context, &err) == OG_ERROR);
    CHECK(err != NULL);
    check_missing(err, "age");
    INTEQ(og_error_detail_count(err), 0);
    og_error_release(err);
    og_error_release(err); /* documented as harmless */
    err = NULL;

    OK(og_object_set_int64(person, "age", 36, &err));
    OK(og_context_save(context, &err));
    OK(og_context_has_changes(context, &changes, &err));
    CHECK(!changes);

    og_context_release(context);
    og_coordinator_release(coordinator);
    og_model_release(model);
    free(path);
    og_t_remove_tree(dir);
    puts("errors: all checks passed");
    return 0;
}
