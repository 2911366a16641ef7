/* Adding a store that cannot be used: a path that cannot be opened, a file
 * that is not a store, an unknown store type, and a store written with another
 * version of the model; and the model a store keeps of itself, or lacks. One
 * case each. */
#include <sqlite3.h>
#include <string.h>

#include "library_model.h"
#include "og_test_cases.h"

static og_coordinator *new_coordinator(bool changed) {
    og_model *model = library_model_new(changed);
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    return coordinator;
}

static void cannot_open(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "no-such-directory/library.sqlite");
    og_coordinator *coordinator = new_coordinator(false);
    FAILS_NULL(og_coordinator_add_store(coordinator, "SQLite", path, &err), OG_ERROR_STORE_OPEN,
               "no-such-directory");
    INTEQ(og_coordinator_store_count(coordinator), 0);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static void not_a_store(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "x.sqlite");
    /* More than a page of text, so SQLite reads a (wrong) header. */
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    for (int i = 0; i < 200; i++) fputs("this is not an SQLite store\n", f);
    fclose(f);
    og_coordinator *coordinator = new_coordinator(false);
    FAILS_NULL(og_coordinator_add_store(coordinator, "SQLite", path, &err),
               OG_ERROR_STORE_INVALID_TYPE, "x.sqlite|not a");
    INTEQ(og_coordinator_store_count(coordinator), 0);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

/* The model a new store keeps of itself (Z_MODELCACHE) has the hashes the store
 * records and opens it; a store that keeps none, or is not a store, is an error. */
static void cached_model(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "ours.sqlite");
    og_store *store = NULL;
    og_coordinator *coordinator = library_open(path, false, &store);
    og_model *model = NN(og_model_load_from_store(path, &err));
    INTEQ(og_model_entity_count(model), og_store_version_hash_count(store));
    for (size_t i = 0; i < og_store_version_hash_count(store); i++) {
        uint8_t stored[32], cached[32];
        char *name = NN(og_store_version_hash_at(store, i, stored, &err));
        og_entity *entity = NN(og_model_entity(model, name, &err));
        OK(og_entity_version_hash(entity, cached, &err));
        CHECK(memcmp(stored, cached, 32) == 0);
        og_free(name);
    }
    og_coordinator *again = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    NN(og_coordinator_add_store(again, "SQLite", path, &err));
    og_coordinator_release(again);
    og_coordinator_release(coordinator);

    /* As a store written before stores kept their model. */
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "DROP TABLE Z_MODELCACHE", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    FAILS_NULL(og_model_load_from_store(path, &err), OG_ERROR_MIGRATION_MISSING_SOURCE_MODEL, "Z_MODELCACHE");
    char *missing = og_t_path(dir, "missing.sqlite");
    FAILS_NULL(og_model_load_from_store(missing, &err), OG_ERROR_STORE_OPEN, "missing.sqlite");
    FAILS_NULL(og_model_load_from_store(NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    free(missing);
    free(path);
    og_t_remove_tree(dir);
}

static void unknown_store_type(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "library.store");
    og_coordinator *coordinator = new_coordinator(false);
    FAILS_NULL(og_coordinator_add_store(coordinator, "Parchment", path, &err),
               OG_ERROR_STORE_INVALID_TYPE, "Parchment");
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static void changed_model(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "library.sqlite");

    /* Written with the first version of the model... */
    og_coordinator *coordinator = library_open(path, false, NULL);
    og_context *context = NN(og_context_new(coordinator, &err));
    NN(og_context_insert(context, "Book", &err));
    OK(og_context_save(context, &err));
    og_context_release(context);
    og_coordinator_release(coordinator);

    /* ...opened with the next, where Book has one attribute more. */
    coordinator = new_coordinator(true);
    FAILS_NULL(og_coordinator_add_store(coordinator, "SQLite", path, &err),
               OG_ERROR_STORE_INCOMPATIBLE_VERSION, "Book");
    INTEQ(og_coordinator_store_count(coordinator), 0);
    og_coordinator_release(coordinator);

    /* The store is untouched: the first model still opens it. */
    coordinator = library_open(path, false, NULL);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"cannot_open", cannot_open},
    {"not_a_store", not_a_store},
    {"cached_model", cached_model},
    {"unknown_store_type", unknown_store_type},
    {"changed_model", changed_model},
};

int main(int argc, char **argv) {
    return OG_T_RUN(cases, argc, argv);
}
