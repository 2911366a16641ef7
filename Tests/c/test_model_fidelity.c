/* Real Xcode models and Apple's store layout from C: what Xcode leaves out of a
 * model file, defaults in another type's spelling, redeclared properties, value
 * classes, fetch indexes and the indexed flag, join-table and column names, and
 * the indexes and auto-vacuum of new stores. The fixtures are
 * Tests/Fixtures/Models/XcodeDefaults.xcdatamodel and JoinTables.xcdatamodel
 * (Tests/Fixtures/README.md). */
#include "og_test_cases.h"

#include "og_test_sqlite.h"

#ifndef OG_FIXTURES
#define OG_FIXTURES "Tests/Fixtures/Models"
#endif

static void text_is(char *s, const char *expected) {
    CHECK(s != NULL);
    if (strcmp(s, expected) != 0) {
        fprintf(stderr, "got '%s', expected '%s'\n", s, expected);
        CHECK(0);
    }
    og_free(s);
}

static og_property *attribute(og_model *m, const char *entity, const char *name) {
    return NN(og_entity_property(NN(og_model_entity(m, entity, &err)), name, &err));
}

static int64_t default_int(og_model *m, const char *entity, const char *name) {
    og_value *v = NN(og_attribute_default(attribute(m, entity, name), &err));
    int64_t i = 0;
    OK(og_value_get_int64(v, &i, &err));
    og_value_release(v);
    return i;
}

/* The sql of schema object `name` in the SQLite file at `path` (free it), or NULL. */
static char *schema_sql(const char *path, const char *name) {
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sqlite3_stmt *s = NULL;
    CHECK(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE name = ?", -1, &s, NULL) == SQLITE_OK);
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    char *out = NULL;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) out = strdup((const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
}

static void sql_is(const char *path, const char *name, const char *expected) {
    char *sql = schema_sql(path, name);
    if (expected == NULL) {
        if (sql) fprintf(stderr, "%s should not exist: %s\n", name, sql);
        CHECK(sql == NULL);
        return;
    }
    if (sql == NULL) fprintf(stderr, "%s is missing\n", name);
    text_is(sql, expected);
}

/* Creates a store from the fixture `model` in a new directory; returns its path. */
static char *new_store(const char *dir, og_model *model) {
    char *path = og_t_path(dir, "store.sqlite");
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_coordinator_release(coordinator);
    return path;
}

/* Item 1: no attributeType is Undefined; left-out flags take Xcode's defaults. */
static void omitted_attributes(void) {
    og_model *m = NN(og_model_load(OG_FIXTURES "/XcodeDefaults.xcdatamodel", &err));
    og_attribute_type type;
    bool b;
    OK(og_attribute_type_of(attribute(m, "Place", "scratch"), &type, &err));
    INTEQ(type, OG_ATTRIBUTE_UNDEFINED);
    OK(og_property_is_transient(attribute(m, "Place", "scratch"), &b, &err));
    CHECK(b);
    OK(og_property_is_optional(attribute(m, "Note", "title"), &b, &err));
    CHECK(!b);
    og_property *place = attribute(m, "Note", "place");
    og_delete_rule rule;
    int64_t lo, hi;
    OK(og_relationship_delete_rule(place, &rule, &err));
    INTEQ(rule, OG_DELETE_RULE_NULLIFY);
    OK(og_relationship_counts(place, &lo, &hi, &err));
    INTEQ(lo, 0);
    INTEQ(hi, 1);
    /* A transformable of a custom class needs no transformer name; customClassName is its class. */
    text_is(og_attribute_value_class_name(attribute(m, "Note", "colour"), &err), "Colour");
    CHECK(og_attribute_value_transformer_name(attribute(m, "Note", "colour"), &err) == NULL && err == NULL);
    og_model_release(m);
}

/* Item 3: defaults in another type's spelling, read as Core Data's compiler reads them. */
static void lenient_defaults(void) {
    og_model *m = NN(og_model_load(OG_FIXTURES "/XcodeDefaults.xcdatamodel", &err));
    INTEQ(default_int(m, "Note", "pinned"), 0);  /* "NO" */
    INTEQ(default_int(m, "Note", "starred"), 1); /* "YES" */
    INTEQ(default_int(m, "Note", "words"), 12);  /* "12 words" */
    og_value *v = NN(og_attribute_default(attribute(m, "Note", "archived"), &err));
    bool b = false;
    OK(og_value_get_bool(v, &b, &err));
    CHECK(b);
    og_value_release(v);
    v = NN(og_attribute_default(attribute(m, "Note", "token"), &err));
    INTEQ(og_value_type_of(v), OG_VALUE_NULL);
    og_value_release(v);
    /* Each lenient reading is a load warning. */
    CHECK(og_model_warning_count(m) >= 8);
    og_model_release(m);
}

/* Item 7: redeclared properties, relationships always indexed, fetch indexes. */
static void fetch_indexes(void) {
    og_model *m = NN(og_model_load(OG_FIXTURES "/XcodeDefaults.xcdatamodel", &err));
    og_entity *cafe = NN(og_model_entity(m, "Cafe", &err)), *place = NN(og_model_entity(m, "Place", &err));
    og_entity *note = NN(og_model_entity(m, "Note", &err));
    INTEQ(og_entity_property_count(cafe), og_entity_property_count(place) + 1); /* label once, plus roast */
    INTEQ(og_entity_slot(cafe, "label", &err), og_entity_slot(place, "label", &err));
    bool b;
    OK(og_property_is_indexed(attribute(m, "Note", "place"), &b, &err));
    CHECK(b);
    OK(og_property_is_indexed(attribute(m, "Note", "words"), &b, &err));
    CHECK(b);
    OK(og_property_is_indexed(attribute(m, "Note", "stamp"), &b, &err));
    CHECK(!b);

    INTEQ(og_entity_fetch_index_count(note), 5);
    text_is(og_entity_fetch_index_name(note, 0, &err), "words");
    text_is(og_entity_fetch_index_name(note, 4, &err), "byTitledOnly");
    text_is(og_entity_fetch_index_partial_predicate(note, 4, &err), "title != nil");
    CHECK(og_entity_fetch_index_partial_predicate(note, 0, &err) == NULL && err == NULL);
    INTEQ(og_entity_fetch_index_element_count(note, 3), 2);
    char *property = NULL;
    og_index_collation collation;
    bool ascending;
    OK(og_entity_fetch_index_element_at(note, 3, 0, &property, &collation, &ascending, &err));
    text_is(property, "stamp");
    INTEQ(collation, OG_INDEX_BINARY);
    CHECK(!ascending);
    OK(og_entity_fetch_index_element_at(place, 0, 1, &property, &collation, &ascending, &err));
    text_is(property, "longitude");
    INTEQ(collation, OG_INDEX_RTREE);
    FAILS(og_entity_fetch_index_element_at(note, 3, 2, &property, &collation, &ascending, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    FAILS_NULL(og_entity_fetch_index_name(note, 9, &err), OG_ERROR_INVALID_ARGUMENT, "range");
    INTEQ(og_entity_fetch_index_element_count(note, 99), 0);

    /* Setting them all at once; an R-tree over a string fails validation. */
    og_fetch_index_element elements[] = {{"title", OG_INDEX_BINARY, false}, {"stamp", OG_INDEX_BINARY, true}};
    og_fetch_index indexes[] = {{"byTitleDown", elements, 1, NULL}, {"recent", elements, 2, "stamp > 0"}};
    OK(og_entity_set_fetch_indexes(note, indexes, 2, &err));
    INTEQ(og_entity_fetch_index_count(note), 2);
    text_is(og_entity_fetch_index_partial_predicate(note, 1, &err), "stamp > 0");
    OK(og_property_is_indexed(attribute(m, "Note", "title"), &b, &err));
    CHECK(!b); /* descending */
    OK(og_property_set_indexed(attribute(m, "Note", "title"), true, &err));
    INTEQ(og_entity_fetch_index_count(note), 3);
    text_is(og_entity_fetch_index_name(note, 2, &err), "title");
    og_fetch_index none[] = {{"empty", elements, 0, NULL}};
    FAILS(og_entity_set_fetch_indexes(note, none, 1, &err), OG_ERROR_INVALID_ARGUMENT, "no elements");
    og_fetch_index_element bad[] = {{"title", (og_index_collation)7, true}};
    og_fetch_index odd[] = {{"odd", bad, 1, NULL}};
    FAILS(og_entity_set_fetch_indexes(note, odd, 1, &err), OG_ERROR_INVALID_ARGUMENT, "collation");
    og_fetch_index_element word[] = {{"title", OG_INDEX_RTREE, true}};
    og_fetch_index spatial[] = {{"spatial", word, 1, NULL}};
    OK(og_entity_set_fetch_indexes(note, spatial, 1, &err));
    FAILS(og_model_validate(m, &err), OG_ERROR_INVALID_MODEL, "R-tree");
    og_model_release(m);
}

/* Items 4, 5 and 7: the tables, columns and indexes of a new store, as Apple names them. */
static void store_layout(void) {
    char *dir = og_t_tempdir();
    og_model *joins = NN(og_model_load(OG_FIXTURES "/JoinTables.xcdatamodel", &err));
    char *path = new_store(dir, joins);
    sql_is(path, "Z_8BLOCKING", "CREATE TABLE Z_8BLOCKING ( Z_8BLOCKEDBY INTEGER, Z_8BLOCKING INTEGER, PRIMARY KEY (Z_8BLOCKEDBY, Z_8BLOCKING) )");
    sql_is(path, "Z_8BLOCKING_Z_8BLOCKING_INDEX", "CREATE INDEX Z_8BLOCKING_Z_8BLOCKING_INDEX ON Z_8BLOCKING (Z_8BLOCKING, Z_8BLOCKEDBY)");
    sql_is(path, "Z_8BLOCKEDBY", NULL);
    sql_is(path, "Z_6PARENTGROUPS",
           "CREATE TABLE Z_6PARENTGROUPS ( Z_6CONTACTS INTEGER, Z_4PARENTGROUPS1 INTEGER, PRIMARY KEY (Z_6CONTACTS, Z_4PARENTGROUPS1) )");
    sql_is(path, "Z_7USERS", "CREATE TABLE Z_7USERS ( Z_7CONTAINERS INTEGER, Z_8USERS1 INTEGER, PRIMARY KEY (Z_7CONTAINERS, Z_8USERS1) )");
    sql_is(path, "ZRECORD", "CREATE TABLE ZRECORD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCONTAINER INTEGER, "
                            "ZCONTAINER1 INTEGER, ZCREATED TIMESTAMP, ZNAME VARCHAR, ZQUERY VARCHAR, ZFIRSTNAME VARCHAR, ZNAME1 VARCHAR )");
    INTEQ(og_t_sql_int(path, "PRAGMA auto_vacuum"), 2);
    og_model_release(joins);
    free(path);

    char *other = og_t_tempdir();
    og_model *defaults = NN(og_model_load(OG_FIXTURES "/XcodeDefaults.xcdatamodel", &err));
    path = new_store(other, defaults);
    sql_is(path, "Z_Note_byTitledOnly", "CREATE INDEX Z_Note_byTitledOnly ON ZNOTE (ZTITLE COLLATE BINARY ASC) WHERE ZTITLE IS NOT NULL");
    sql_is(path, "Z_Note_words", "CREATE INDEX Z_Note_words ON ZNOTE (ZWORDS COLLATE BINARY ASC)");
    sql_is(path, "Z_Note_byPlace", NULL);    /* a to-one alone: its foreign key's index serves */
    sql_is(path, "Z_Place_byLocation", NULL); /* an R-tree */
    sql_is(path, "ZNOTE_ZPLACE_INDEX", "CREATE INDEX ZNOTE_ZPLACE_INDEX ON ZNOTE (ZPLACE)");
    text_is(og_store_file_metadata_string("SQLite", path, "_NSAutoVacuumLevel", &err), "2");
    og_model_release(defaults);
    free(path);
    og_t_remove_tree(dir);
    og_t_remove_tree(other);
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"omitted_attributes", omitted_attributes},
        {"lenient_defaults", lenient_defaults},
        {"fetch_indexes", fetch_indexes},
        {"store_layout", store_layout},
    };
    return OG_T_RUN(cases, argc, argv);
}
