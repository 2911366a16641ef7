/* Damaged binary property lists in store files give errors, never a crash:
 * a Binary store file and an SQLite store's Z_METADATA holding a UID whose
 * value has the top bit set (which once aborted the process), opened through
 * og_coordinator_add_store and read through og_store_file_metadata_string. */
#include <sqlite3.h>

#include "library_model.h"
#include "og_test_cases.h"

/* "bplist00", one object (a UID of 8 bytes, all set), the offset table, the
 * trailer: 1-byte offsets and references, 1 object, top 0, table at 17. */
static const unsigned char huge_uid_plist[] = {
    'b', 'p', 'l', 'i', 's', 't', '0', '0',
    0x87, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0x08,
    0, 0, 0, 0, 0, 0, 1, 1,
    0, 0, 0, 0, 0, 0, 0, 1,
    0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 17,
};

static og_coordinator *new_coordinator(void) {
    og_model *model = library_model_new(false);
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    return coordinator;
}

static void binary_store_huge_uid(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "huge-uid.binary");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    static const unsigned char header[] = {'O', 'G', 'B', 'I', 'N', 'A', 'R', 'Y', 0, 0, 0, 1};
    CHECK(fwrite(header, 1, sizeof header, f) == sizeof header);
    CHECK(fwrite(huge_uid_plist, 1, sizeof huge_uid_plist, f) == sizeof huge_uid_plist);
    CHECK(fclose(f) == 0);

    og_coordinator *coordinator = new_coordinator();
    FAILS_NULL(og_coordinator_add_store(coordinator, "Binary", path, &err), OG_ERROR_STORE_INVALID_TYPE,
               "Binary|UID");
    INTEQ(og_coordinator_store_count(coordinator), 0);
    FAILS_NULL(og_store_file_metadata_string("Binary", path, "NSStoreType", &err), OG_ERROR_STORE_INVALID_TYPE,
               "Binary|UID");
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static void sqlite_metadata_huge_uid(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "huge-uid.sqlite");
    og_coordinator *coordinator = library_open(path, false, NULL);
    og_coordinator_release(coordinator);

    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sqlite3_stmt *s;
    CHECK(sqlite3_prepare_v2(db, "UPDATE Z_METADATA SET Z_PLIST = ?", -1, &s, NULL) == SQLITE_OK);
    CHECK(sqlite3_bind_blob(s, 1, huge_uid_plist, (int)sizeof huge_uid_plist, SQLITE_STATIC) == SQLITE_OK);
    CHECK(sqlite3_step(s) == SQLITE_DONE);
    sqlite3_finalize(s);
    CHECK(sqlite3_close(db) == SQLITE_OK);

    coordinator = new_coordinator();
    FAILS_NULL(og_coordinator_add_store(coordinator, "SQLite", path, &err), OG_ERROR_STORE_INVALID_TYPE,
               "metadata");
    INTEQ(og_coordinator_store_count(coordinator), 0);
    FAILS_NULL(og_store_file_metadata_string("SQLite", path, "NSStoreType", &err), OG_ERROR_STORE_INVALID_TYPE,
               "metadata");
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"binary_store_huge_uid", binary_store_huge_uid},
    {"sqlite_metadata_huge_uid", sqlite_metadata_huge_uid},
};

int main(int argc, char **argv) {
    return OG_T_RUN(cases, argc, argv);
}
