/* Uniqueness constraints through the C ABI: a save that breaks one fails with
 * OG_ERROR_CONSTRAINT_MERGE and its conflicts (og_error_constraint_conflict_*),
 * writing nothing; under a merge-by-property policy it upserts, the new object
 * taking over the stored row and its ID; batch inserts upsert the same way. */
#include "og_test_cases.h"

#include "og_test_sqlite.h"

static og_model *model;
static og_coordinator *coordinator;
static og_context *ctx;
static char *dir, *path;

/* Author: name (unique), born. */
static void setup(void) {
    model = NN(og_model_new());
    og_entity *author = NN(og_model_add_entity(model, "Author", &err));
    NN(og_entity_add_attribute(author, "name", OG_ATTRIBUTE_STRING, &err));
    NN(og_entity_add_attribute(author, "born", OG_ATTRIBUTE_INTEGER64, &err));
    const char *constraints[] = {"name"};
    OK(og_entity_set_uniqueness_constraints(author, constraints, 1, &err));
    dir = og_t_tempdir();
    path = og_t_path(dir, "constraints.sqlite");
    coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    ctx = NN(og_context_new(coordinator, &err));
}

static void teardown(void) {
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    og_model_release(model);
    free(path);
    og_t_remove_tree(dir);
}

static og_object *author(og_context *x, const char *name, int64_t born) {
    og_object *o = NN(og_context_insert(x, "Author", &err));
    OK(og_object_set_string(o, "name", name, &err));
    OK(og_object_set_int64(o, "born", born, &err));
    return o;
}

static void error_policy(void) {
    setup();
    author(ctx, "Pratchett", 1948);
    OK(og_context_save(ctx, &err));
    og_object *again = author(ctx, "Pratchett", 1900);
    author(ctx, "Gaiman", 1);
    author(ctx, "Gaiman", 2);
    CHECK(og_context_save(ctx, &err) == OG_ERROR);
    INTEQ(og_error_code(err), OG_ERROR_CONSTRAINT_MERGE);
    INTEQ(og_error_constraint_conflict_count(err), 2);
    INTEQ(og_error_conflict_count(err), 0); /* no optimistic-locking conflicts */
    for (size_t i = 0; i < 2; i++) {
        INTEQ(og_error_constraint_conflict_property_count(err, i), 1);
        STREQ(og_error_constraint_conflict_property_at(err, i, 0), "name");
        CHECK(og_error_constraint_conflict_property_at(err, i, 1) == NULL);
        og_error *e2 = NULL;
        og_value *v = og_error_constraint_conflict_value(err, i, "name", &e2);
        CHECK(v != NULL && e2 == NULL);
        const char *name = NULL;
        CHECK(og_value_get_string(v, &name, &e2) == OG_OK);
        og_object *stored = og_error_constraint_conflict_database_object(err, i, ctx, &e2);
        CHECK(e2 == NULL);
        if (strcmp(name, "Pratchett") == 0) {
            /* Against the stored row: the new object, and the stored row's object. */
            INTEQ(og_error_constraint_conflict_object_count(err, i), 1);
            CHECK(og_error_constraint_conflict_object(err, i, 0, ctx, &e2) == again);
            CHECK(stored != NULL);
            int64_t born = 0;
            CHECK(og_object_get_int64(stored, "born", &born, &e2) == OG_OK);
            INTEQ(born, 1948);
        } else {
            /* Between two new objects: no stored row. */
            STREQ(name, "Gaiman");
            INTEQ(og_error_constraint_conflict_object_count(err, i), 2);
            CHECK(stored == NULL);
        }
        og_value_release(v);
        CHECK(og_error_constraint_conflict_value(err, i, "born", &e2) == NULL);
        INTEQ(og_error_code(e2), OG_ERROR_UNKNOWN_KEY);
        og_error_release(e2);
        e2 = NULL;
        CHECK(og_error_constraint_conflict_object(err, i, 7, ctx, &e2) == NULL);
        INTEQ(og_error_code(e2), OG_ERROR_INVALID_ARGUMENT);
        og_error_release(e2);
    }
    /* Out of range and NULL: nothing to read, nothing crashes. */
    INTEQ(og_error_constraint_conflict_property_count(err, 9), 0);
    INTEQ(og_error_constraint_conflict_object_count(NULL, 0), 0);
    INTEQ(og_error_constraint_conflict_count(NULL), 0);
    og_t_clear();
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZAUTHOR"), 1);
    teardown();
}

static void upsert(void) {
    setup();
    og_object *first = author(ctx, "Pratchett", 1948);
    OK(og_context_save(ctx, &err));
    char *uri = NN(og_object_id_uri(first, &err));
    og_context *other = NN(og_context_new(coordinator, &err));
    OK(og_context_set_merge_policy(other, OG_MERGE_POLICY_MERGE_BY_PROPERTY_OBJECT_TRUMP, &err));
    og_object *newer = author(other, "Pratchett", 1949);
    OK(og_context_save(other, &err));
    char *taken = NN(og_object_id_uri(newer, &err));
    STREQ(taken, uri);
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZAUTHOR"), 1);
    INTEQ(og_t_sql_int(path, "SELECT ZBORN FROM ZAUTHOR"), 1949);
    og_free(taken);
    og_free(uri);

    /* A batch insert upserts under the policy too; under the error policy it writes nothing. */
    const char *keys[] = {"name", "born"};
    og_value *values[] = {NN(og_value_new_string("Pratchett", &err)), og_value_new_int64(2000)};
    og_value *row = NN(og_value_new_dictionary(keys, values, 2, &err));
    og_value *rows = NN(og_value_new_array(&row, 1, &err));
    size_t n = 0;
    FAILS(og_context_batch_insert(ctx, "Author", rows, OG_BATCH_RESULT_COUNT, &n, NULL, &err), OG_ERROR_CONSTRAINT_MERGE, "Pratchett");
    OK(og_context_batch_insert(other, "Author", rows, OG_BATCH_RESULT_COUNT, &n, NULL, &err));
    INTEQ(n, 1);
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZAUTHOR"), 1);
    INTEQ(og_t_sql_int(path, "SELECT ZBORN FROM ZAUTHOR"), 2000);
    og_value_release(rows);
    og_value_release(row);
    og_value_release(values[0]);
    og_value_release(values[1]);
    og_context_release(other);
    teardown();
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {{"error_policy", error_policy}, {"upsert", upsert}};
    return OG_T_RUN(cases, argc, argv);
}
