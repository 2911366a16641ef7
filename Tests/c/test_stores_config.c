/* Several stores on one coordinator, one ctest per case: configurations,
 * routing and assignment, store options, copying a store to another type,
 * moving a store and its metadata. The Shop fixture model has the
 * configurations "Sales" (Customer, Order) and "Audit" (AuditEntry); the tests
 * add "Everything" to overlap both. */
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#include "og_test_cases.h"

static og_model *shop_model(void) {
    og_model *model = NN(og_model_load(OG_FIXTURES "/Shop.xcdatamodeld", &err));
    og_entity *all[3];
    const char *names[3] = {"Customer", "Order", "AuditEntry"};
    for (int i = 0; i < 3; i++) all[i] = NN(og_model_entity(model, names[i], &err));
    OK(og_model_set_configuration_entities(model, "Everything", all, 3, &err));
    return model;
}

static og_coordinator *shop_coordinator(void) {
    og_model *model = shop_model();
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    return coordinator;
}

/* A dictionary value of `count` keys and values (the values are released). */
static og_value *dictionary(size_t count, const char *const *keys, og_value **values) {
    og_value *d = NN(og_value_new_dictionary(keys, values, count, &err));
    for (size_t i = 0; i < count; i++) og_value_release(values[i]);
    return d;
}

/* The string under `key` in a dictionary value, or NULL; copied into one of a
 * few static buffers (the item's text lives only as long as the item). */
static const char *dictionary_string(const og_value *d, const char *key) {
    static char buffers[4][256];
    static int next = 0;
    for (size_t i = 0; i < og_value_count(d); i++) {
        if (strcmp(NN(og_value_key_at(d, i, &err)), key) != 0) continue;
        og_value *item = NN(og_value_item_at(d, i, &err));
        const char *text = NULL;
        char *out = NULL;
        if (og_value_get_string(item, &text, &err) == OG_OK) {
            out = buffers[next++ % 4];
            snprintf(out, 256, "%s", text);
        }
        og_value_release(item);
        return out;
    }
    return NULL;
}

static og_object *customer(og_context *context, const char *name) {
    og_object *c = NN(og_context_insert(context, "Customer", &err));
    OK(og_object_set_string(c, "name", name, &err));
    return c;
}

static og_object *order(og_context *context, double total, og_object *buyer) {
    og_object *o = NN(og_context_insert(context, "Order", &err));
    OK(og_object_set_double(o, "total", total, &err));
    OK(og_object_set_date(o, "placed", 1.7e9, &err));
    if (buyer) OK(og_object_set_object(o, "customer", buyer, &err));
    return o;
}

static size_t count_of(og_context *context, const char *entity) {
    og_fetch_request *request = NN(og_fetch_request_new(entity, &err));
    size_t n = 0;
    OK(og_context_count(context, request, &n, &err));
    og_fetch_request_release(request);
    return n;
}

static void configurations(void) {
    char *dir = og_t_tempdir();
    char *sales = og_t_path(dir, "sales.sqlite"), *audit = og_t_path(dir, "audit.binary");
    char uri[2][256];
    {
        og_coordinator *coordinator = shop_coordinator();
        og_store *s = NN(og_coordinator_add_store_with_options(coordinator, "SQLite", "Sales", sales, NULL, &err));
        const char *keys[] = {"AppKey"};
        og_value *values[] = {NN(og_value_new_string("kept", &err))};
        og_value *options = dictionary(1, keys, values);
        og_store *a = NN(og_coordinator_add_store_with_options(coordinator, "Binary", "Audit", audit, options, &err));
        og_value_release(options);
        STREQ(og_store_configuration(s), "Sales");
        STREQ(og_store_configuration(a), "Audit");
        og_value *kept = NN(og_store_options(a, &err));
        STREQ(dictionary_string(kept, "AppKey"), "kept");
        og_value_release(kept);
        /* §2.19 rule 2: no default-configuration store beside named ones; unknown names refused. */
        FAILS_NULL(og_coordinator_add_store_with_options(coordinator, "InMemory", NULL, NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "default configuration");
        FAILS_NULL(og_coordinator_add_store_with_options(coordinator, "InMemory", "Nope", NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "no configuration");
        INTEQ(og_coordinator_store_count(coordinator), 2);

        og_context *context = NN(og_context_new(coordinator, &err));
        og_object *ada = customer(context, "Ada");
        order(context, 10, ada);
        og_object *entry = NN(og_context_insert(context, "AuditEntry", &err));
        OK(og_object_set_string(entry, "message", "created Ada", &err));
        OK(og_context_save(context, &err));
        char *u = NN(og_object_id_uri(ada, &err));
        CHECK(strstr(u, og_store_uuid(s)) != NULL);
        snprintf(uri[0], sizeof uri[0], "%s", u);
        og_free(u);
        u = NN(og_object_id_uri(entry, &err));
        CHECK(strstr(u, og_store_uuid(a)) != NULL);
        snprintf(uri[1], sizeof uri[1], "%s", u);
        og_free(u);
        og_context_release(context);
        og_coordinator_release(coordinator);
    }
    /* A new coordinator reads both files back; URIs resolve to the right store. */
    og_coordinator *coordinator = shop_coordinator();
    og_store *s = NN(og_coordinator_add_store_with_options(coordinator, "SQLite", "Sales", sales, NULL, &err));
    og_store *a = NN(og_coordinator_add_store_with_options(coordinator, "Binary", "Audit", audit, NULL, &err));
    CHECK(og_coordinator_store_for_path(coordinator, audit, &err) == a);
    CHECK(og_coordinator_store_for_path(coordinator, sales, &err) == s);
    CHECK(og_coordinator_store_for_path(coordinator, "/nowhere", &err) == NULL && err == NULL);
    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *ada = NN(og_context_existing_object(context, uri[0], &err));
    char *name = NULL;
    OK(og_object_get_string(ada, "name", &name, &err));
    STREQ(name, "Ada");
    og_free(name);
    og_object *entry = NN(og_context_existing_object(context, uri[1], &err));
    OK(og_object_get_string(entry, "message", &name, &err));
    STREQ(name, "created Ada");
    og_free(name);
    INTEQ(count_of(context, "Order"), 1);
    INTEQ(count_of(context, "AuditEntry"), 1);
    og_context_release(context);
    og_coordinator_release(coordinator);
    free(sales);
    free(audit);
    og_t_remove_tree(dir);
}

static void routing(void) {
    og_coordinator *coordinator = shop_coordinator();
    og_store *sales = NN(og_coordinator_add_store_with_options(coordinator, "InMemory", "Sales", NULL, NULL, &err));
    og_store *everything = NN(og_coordinator_add_store_with_options(coordinator, "InMemory", "Everything", NULL, NULL, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    /* Customers in both stores; both get row 1. */
    const char *names[] = {"Cy", "Bo", "Al", "Di"};
    for (int i = 0; i < 4; i++) {
        og_object *c = customer(context, names[i]);
        OK(og_context_assign_object(context, c, i % 2 ? everything : sales, &err));
    }
    og_object *entry = NN(og_context_insert(context, "AuditEntry", &err));
    OK(og_object_set_string(entry, "message", "m", &err));
    FAILS(og_context_assign_object(context, entry, sales, &err), OG_ERROR_INVALID_ARGUMENT, "does not hold");
    OK(og_context_save(context, &err));
    FAILS(og_context_assign_object(context, entry, everything, &err), OG_ERROR_INVALID_ARGUMENT, "new object");

    og_context *fresh = NN(og_context_new(coordinator, &err));
    og_fetch_request *request = NN(og_fetch_request_new("Customer", &err));
    OK(og_fetch_request_add_sort(request, "name", true, &err));
    og_results *all = NN(og_context_fetch(fresh, request, &err));
    INTEQ(og_results_count(all), 4);
    const char *sorted[] = {"Al", "Bo", "Cy", "Di"};
    for (size_t i = 0; i < 4; i++) {
        char *name = NULL;
        OK(og_object_get_string(NN(og_results_object_at(all, i, &err)), "name", &name, &err));
        STREQ(name, sorted[i]);
        og_free(name);
    }
    og_results_release(all);
    og_store *only[] = {everything};
    OK(og_fetch_request_set_affected_stores(request, only, 1, &err));
    og_results *some = NN(og_context_fetch(fresh, request, &err));
    INTEQ(og_results_count(some), 2);
    og_results_release(some);
    OK(og_fetch_request_set_affected_stores(request, NULL, 0, &err));
    size_t n = 0;
    OK(og_context_count(fresh, request, &n, &err));
    INTEQ(n, 4);
    og_fetch_request_release(request);

    /* A relationship across stores fails the save (133010) naming both objects. */
    og_object *buyer = customer(fresh, "Ed");
    OK(og_context_assign_object(fresh, buyer, everything, &err));
    og_object *o = order(fresh, 5, buyer);
    OK(og_context_assign_object(fresh, o, sales, &err));
    FAILS(og_context_save(fresh, &err), OG_ERROR_EXTERNAL_RELATIONSHIP, "different stores");
    OK(og_context_assign_object(fresh, o, everything, &err));
    OK(og_context_save(fresh, &err));
    og_context_release(fresh);
    og_context_release(context);
    og_coordinator_release(coordinator);
}

static void options(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "busy.sqlite");
    og_coordinator *coordinator = shop_coordinator();
    const char *pragma_keys[] = {"journal_mode", "synchronous"};
    og_value *pragma_values[] = {NN(og_value_new_string("DELETE", &err)), NN(og_value_new_string("NORMAL", &err))};
    og_value *pragmas = dictionary(2, pragma_keys, pragma_values);
    const char *keys[] = {"NSPersistentStoreTimeoutOption", "NSSQLitePragmasOption", "NSSQLiteAnalyzeOption"};
    og_value *values[] = {og_value_new_double(0.3), pragmas, og_value_new_bool(true)};
    og_value *opts = dictionary(3, keys, values);
    NN(og_coordinator_add_store_with_options(coordinator, "SQLite", NULL, path, opts, &err));
    og_value_release(opts);

    /* Another connection holds the write lock: the save waits 0.3 s, then 134090. */
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
    og_context *context = NN(og_context_new(coordinator, &err));
    customer(context, "Waiting");
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    FAILS(og_context_save(context, &err), OG_ERROR_STORE_TIMEOUT, "locked");
    clock_gettime(CLOCK_MONOTONIC, &end);
    CHECK((end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9 >= 0.25);
    CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
    OK(og_context_save(context, &err));
    sqlite3_close(db);

    /* An unsafe pragma and an option of the wrong kind are refused before anything opens. */
    const char *bad_keys[] = {"journal_mode"};
    og_value *bad_values[] = {NN(og_value_new_string("WAL; DROP TABLE ZCUSTOMER", &err))};
    og_value *bad_pragmas = dictionary(1, bad_keys, bad_values);
    const char *bad_option_keys[] = {"NSSQLitePragmasOption"};
    og_value *bad_option_values[] = {bad_pragmas};
    og_value *bad = dictionary(1, bad_option_keys, bad_option_values);
    og_coordinator *other = shop_coordinator();
    FAILS_NULL(og_coordinator_add_store_with_options(other, "SQLite", NULL, path, bad, &err), OG_ERROR_INVALID_ARGUMENT, "plain value");
    og_value_release(bad);
    const char *ro_keys[] = {"NSReadOnlyPersistentStoreOption"};
    og_value *ro_values[] = {NN(og_value_new_string("yes", &err))};
    og_value *ro = dictionary(1, ro_keys, ro_values);
    FAILS_NULL(og_coordinator_add_store_with_options(other, "SQLite", NULL, path, ro, &err), OG_ERROR_INVALID_ARGUMENT, "boolean");
    og_value_release(ro);
    ro_values[0] = og_value_new_bool(true);
    ro = dictionary(1, ro_keys, ro_values);
    og_store *read_only = NN(og_coordinator_add_store_with_options(other, "SQLite", NULL, path, ro, &err));
    og_value_release(ro);
    bool flag = false;
    OK(og_coordinator_is_store_read_only(other, read_only, &flag, &err));
    CHECK(flag);
    og_context *reader = NN(og_context_new(other, &err));
    INTEQ(count_of(reader, "Customer"), 1);
    og_context_release(reader);
    og_coordinator_release(other);
    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

/* The bytes of `path` (empty when missing) in a buffer the caller frees; `*size` its length. */
static unsigned char *file_bytes(const char *path, size_t *size) {
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(n > 0 ? (size_t)n : 1);
    *size = fread(bytes, 1, (size_t)n, f);
    fclose(f);
    return bytes;
}

/* A read-only store writes nothing: a copy whose -wal holds commits (taken while
 * its writer had it open) is read with them, and its three files keep every byte. */
static void read_only_leaves_files(void) {
    char *dir = og_t_tempdir();
    char *live = og_t_path(dir, "live.sqlite");
    og_coordinator *writer = shop_coordinator();
    NN(og_coordinator_add_store(writer, "SQLite", live, &err));
    og_context *context = NN(og_context_new(writer, &err));
    customer(context, "In the WAL");
    OK(og_context_save(context, &err));
    char *copy = og_t_path(dir, "copy.sqlite");
    const char *suffixes[] = {"", "-wal", "-shm"};
    unsigned char *before[3];
    size_t sizes[3];
    for (int i = 0; i < 3; i++) {
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s%s", live, suffixes[i]);
        snprintf(to, sizeof to, "%s%s", copy, suffixes[i]);
        before[i] = file_bytes(from, &sizes[i]);
        CHECK(before[i] != NULL);
        FILE *out = fopen(to, "wb");
        CHECK(fwrite(before[i], 1, sizes[i], out) == sizes[i]);
        fclose(out);
    }
    CHECK(sizes[1] > 0); /* the commit is in the -wal */

    og_coordinator *reader = shop_coordinator();
    const char *keys[] = {"NSReadOnlyPersistentStoreOption", "NSSQLiteManualVacuumOption"};
    og_value *values[] = {og_value_new_bool(true), og_value_new_bool(true)};
    og_value *opts = dictionary(2, keys, values);
    NN(og_coordinator_add_store_with_options(reader, "SQLite", NULL, copy, opts, &err));
    og_context *looking = NN(og_context_new(reader, &err));
    INTEQ(count_of(looking, "Customer"), 1);
    og_context_release(looking);
    og_coordinator_release(reader);
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s%s", copy, suffixes[i]);
        size_t size;
        unsigned char *after = file_bytes(path, &size);
        CHECK(after != NULL && size == sizes[i] && memcmp(after, before[i], size) == 0);
        free(after);
        free(before[i]);
    }
    /* A read-only store is opened, never made. */
    og_coordinator *nothing = shop_coordinator();
    char *missing = og_t_path(dir, "missing.sqlite");
    FAILS_NULL(og_coordinator_add_store_with_options(nothing, "SQLite", NULL, missing, opts, &err), OG_ERROR_STORE_OPEN, "no store");
    struct stat st;
    CHECK(stat(missing, &st) != 0);
    og_value_release(opts);
    og_coordinator_release(nothing);
    og_context_release(context);
    og_coordinator_release(writer);
    free(missing);
    free(copy);
    free(live);
    og_t_remove_tree(dir);
}

/* Copies `from` to `to` byte for byte. */
static void copy_file(const char *from, const char *to) {
    size_t size;
    unsigned char *bytes = file_bytes(from, &size);
    CHECK(bytes != NULL);
    FILE *out = fopen(to, "wb");
    CHECK(out != NULL && fwrite(bytes, 1, size, out) == size);
    fclose(out);
    free(bytes);
}

/* A store whose creation was killed as it began its WAL (Tests/Fixtures/Stores/
 * KilledCreation: no tables, a -wal of its header only, a -shm of an earlier WAL)
 * opens, is created and takes saves. */
static void killed_creation_opens(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "killed.sqlite");
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/../Stores/KilledCreation/store.sqlite%s", OG_FIXTURES, suffixes[i]);
        snprintf(to, sizeof to, "%s%s", path, suffixes[i]);
        copy_file(from, to);
    }
    og_coordinator *coordinator = shop_coordinator();
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    customer(context, "After the kill");
    OK(og_context_save(context, &err));
    INTEQ(count_of(context, "Customer"), 1);
    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

/* A copy taken while a save was spilling into the main file, with its hot -journal:
 * reading its metadata (a read-only connection, which cannot roll the journal back) is
 * refused naming the unfinished save, and the files stay as they were; a writer then
 * rolls it back and the store is as last saved. */
static void unfinished_save_refused(void) {
    char *dir = og_t_tempdir();
    char *live = og_t_path(dir, "live.sqlite");
    og_coordinator *writer = shop_coordinator();
    const char *pragma_keys[] = {"journal_mode"};
    og_value *pragma_values[] = {NN(og_value_new_string("DELETE", &err))};
    const char *keys[] = {"NSSQLitePragmasOption"};
    og_value *values[] = {dictionary(1, pragma_keys, pragma_values)};
    og_value *opts = dictionary(1, keys, values);
    NN(og_coordinator_add_store_with_options(writer, "SQLite", NULL, live, opts, &err));
    og_context *context = NN(og_context_new(writer, &err));
    customer(context, "Saved");
    OK(og_context_save(context, &err));
    og_context_release(context);
    og_coordinator_release(writer);

    sqlite3 *db = NULL;
    CHECK(sqlite3_open(live, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN; UPDATE ZCUSTOMER SET ZNAME = 'unsaved'; CREATE TABLE ZSPILL (ZDATA BLOB); "
                           "INSERT INTO ZSPILL SELECT randomblob(4000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i FROM n)",
                       NULL, NULL, NULL) == SQLITE_OK);
    char *copy = og_t_path(dir, "copy.sqlite");
    char from[1024], to[1024];
    copy_file(live, copy);
    snprintf(from, sizeof from, "%s-journal", live);
    snprintf(to, sizeof to, "%s-journal", copy);
    copy_file(from, to);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);

    size_t sizes[2];
    unsigned char *before[2] = {file_bytes(copy, &sizes[0]), file_bytes(to, &sizes[1])};
    FAILS_NULL(og_store_file_metadata("SQLite", copy, NULL, &err), OG_ERROR_STORE_OPEN, "rolled back");
    size_t size;
    unsigned char *after = file_bytes(copy, &size);
    CHECK(after && size == sizes[0] && memcmp(after, before[0], size) == 0);
    free(after);
    after = file_bytes(to, &size);
    CHECK(after && size == sizes[1] && memcmp(after, before[1], size) == 0);
    free(after);

    og_coordinator *reopened = shop_coordinator();
    NN(og_coordinator_add_store_with_options(reopened, "SQLite", NULL, copy, opts, &err));
    og_context *looking = NN(og_context_new(reopened, &err));
    INTEQ(count_of(looking, "Customer"), 1);
    og_context_release(looking);
    og_coordinator_release(reopened);
    og_value_release(opts);
    free(before[0]);
    free(before[1]);
    free(copy);
    free(live);
    og_t_remove_tree(dir);
}

/* Join tables come from the file: a store whose reflexive pair's table is named after
 * the other side (Z_8BLOCKEDBY) and whose collision suffix differs (Z_4PARENTGROUPS2)
 * opens, reads its pairs and saves new ones into those tables. */
static void join_tables_from_file(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "joins.sqlite");
    og_model *model = NN(og_model_load(OG_FIXTURES "/JoinTables.xcdatamodel", &err));
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *ann = NN(og_context_insert(context, "User", &err));
    og_object *bob = NN(og_context_insert(context, "User", &err));
    OK(og_object_add_related(ann, "blocking", bob, &err));
    OK(og_context_save(context, &err));
    og_context_release(context);
    og_coordinator_release(coordinator);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "ALTER TABLE Z_8BLOCKING RENAME TO Z_8BLOCKEDBY", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "ALTER TABLE Z_6PARENTGROUPS RENAME COLUMN Z_4PARENTGROUPS1 TO Z_4PARENTGROUPS2", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);

    coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    context = NN(og_context_new(coordinator, &err));
    og_fetch_request *blocked = NN(og_fetch_request_new("User", &err));
    og_predicate *p = NN(og_predicate_parse("blockedBy.@count > 0", NULL, 0, &err));
    OK(og_fetch_request_set_predicate(blocked, p, &err));
    size_t n = 0;
    OK(og_context_count(context, blocked, &n, &err));
    INTEQ(n, 1);
    og_object *contact = NN(og_context_insert(context, "Contact", &err));
    og_object *group = NN(og_context_insert(context, "Group", &err));
    OK(og_object_add_related(contact, "parentGroups", group, &err));
    OK(og_context_save(context, &err));
    og_predicate_release(p);
    og_fetch_request_release(blocked);
    og_context_release(context);
    og_coordinator_release(coordinator);
    og_model_release(model);
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sqlite3_stmt *s = NULL;
    CHECK(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM Z_6PARENTGROUPS WHERE Z_4PARENTGROUPS2 IS NOT NULL", -1, &s, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(s) == SQLITE_ROW);
    INTEQ(sqlite3_column_int(s, 0), 1);
    sqlite3_finalize(s);
    sqlite3_close(db);
    free(path);
    og_t_remove_tree(dir);
}

/* Versioning ignored: a column the file lacks is added when the store opens for
 * writing and reads as null; read-only, the store is refused (134020). */
static void ignore_versioning(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "shop.sqlite");
    og_coordinator *coordinator = shop_coordinator();
    NN(og_coordinator_add_store_with_options(coordinator, "SQLite", NULL, path, NULL, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    customer(context, "Ada");
    OK(og_context_save(context, &err));
    og_context_release(context);
    og_coordinator_release(coordinator);

    og_model *wider = shop_model();
    NN(og_entity_add_attribute(NN(og_model_entity(wider, "Customer", &err)), "level", OG_ATTRIBUTE_INTEGER16, &err));
    og_coordinator *other = NN(og_coordinator_new(wider, &err));
    og_model_release(wider);
    const char *keys[] = {"NSIgnorePersistentStoreVersioningOption", "NSReadOnlyPersistentStoreOption"};
    og_value *values[] = {og_value_new_bool(true), og_value_new_bool(true)};
    og_value *read_only = dictionary(2, keys, values);
    FAILS_NULL(og_coordinator_add_store_with_options(other, "SQLite", NULL, path, read_only, &err), OG_ERROR_STORE_INCOMPATIBLE_SCHEMA, "no column");
    og_value_release(read_only);
    og_value *ignore_values[] = {og_value_new_bool(true)};
    og_value *ignore = dictionary(1, keys, ignore_values);
    NN(og_coordinator_add_store_with_options(other, "SQLite", NULL, path, ignore, &err));
    og_value_release(ignore);
    og_context *reader = NN(og_context_new(other, &err));
    og_fetch_request *request = NN(og_fetch_request_new("Customer", &err));
    og_results *found = NN(og_context_fetch(reader, request, &err));
    INTEQ(og_results_count(found), 1);
    og_value *level = NULL;
    OK(og_object_get_value(NN(og_results_object_at(found, 0, &err)), "level", &level, &err));
    INTEQ(og_value_type_of(level), OG_VALUE_NULL);
    og_value_release(level);
    og_results_release(found);
    og_fetch_request_release(request);
    og_context_release(reader);
    og_coordinator_release(other);
    free(path);
    og_t_remove_tree(dir);
}

static void migrate(void) {
    char *dir = og_t_tempdir();
    char *source = og_t_path(dir, "shop.sqlite"), *target = og_t_path(dir, "shop.binary");
    og_coordinator *coordinator = shop_coordinator();
    og_store *old = NN(og_coordinator_add_store_with_options(coordinator, "SQLite", "Sales", source, NULL, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *ada = customer(context, "Ada");
    order(context, 1, ada);
    order(context, 2, ada);
    OK(og_context_save(context, &err));
    char *uuid = strdup(og_store_uuid(old));

    og_t_write_file(target, "occupied");
    FAILS_NULL(og_coordinator_migrate_store(coordinator, old, target, "Binary", NULL, &err), OG_ERROR_STORE_OPERATION, "already");
    remove(target);
    og_store *copy = NN(og_coordinator_migrate_store(coordinator, old, target, "Binary", NULL, &err));
    STREQ(og_store_type(copy), "Binary");
    CHECK(strcmp(og_store_uuid(copy), uuid) != 0); /* a UUID of its own, as on Core Data */
    STREQ(og_store_configuration(copy), "Sales");
    INTEQ(og_coordinator_store_count(coordinator), 1);
    FAILS(og_coordinator_remove_store(coordinator, old, &err), OG_ERROR_INVALID_ARGUMENT, "not attached");
    /* The registered object keeps working, reading from the copy. */
    OK(og_context_refresh_object(context, ada, false, &err));
    og_results *orders = NN(og_object_get_related(ada, "orders", &err));
    INTEQ(og_results_count(orders), 2);
    og_results_release(orders);
    order(context, 3, ada);
    OK(og_context_save(context, &err));
    og_context_release(context);
    og_coordinator_release(coordinator);

    og_coordinator *reopened = shop_coordinator();
    NN(og_coordinator_add_store_with_options(reopened, "Binary", "Sales", target, NULL, &err));
    og_context *reader = NN(og_context_new(reopened, &err));
    INTEQ(count_of(reader, "Order"), 3);
    og_context_release(reader);
    og_coordinator_release(reopened);
    free(uuid);
    free(source);
    free(target);
    og_t_remove_tree(dir);
}

static void move_and_metadata(void) {
    char *dir = og_t_tempdir();
    char *first = og_t_path(dir, "a.binary"), *second = og_t_path(dir, "b.binary");
    og_coordinator *coordinator = shop_coordinator();
    og_store *store = NN(og_coordinator_add_store_with_options(coordinator, "Binary", NULL, first, NULL, &err));
    og_value *metadata = NN(og_coordinator_store_metadata(coordinator, store, &err));
    STREQ(dictionary_string(metadata, "NSStoreUUID"), og_store_uuid(store));
    og_value_release(metadata);
    const char *keys[] = {"Owner"};
    og_value *values[] = {NN(og_value_new_string("shop", &err))};
    og_value *mine = dictionary(1, keys, values);
    OK(og_coordinator_set_store_metadata(coordinator, store, mine, &err));
    og_value_release(mine);
    metadata = NN(og_coordinator_store_metadata(coordinator, store, &err));
    STREQ(dictionary_string(metadata, "Owner"), "shop");
    STREQ(dictionary_string(metadata, "NSStoreUUID"), og_store_uuid(store));
    og_value_release(metadata);

    OK(og_coordinator_set_store_path(coordinator, store, second, &err));
    STREQ(og_store_path(store), second);
    og_context *context = NN(og_context_new(coordinator, &err));
    customer(context, "Moved");
    OK(og_context_save(context, &err));
    struct stat info;
    CHECK(stat(second, &info) == 0);
    CHECK(stat(first, &info) != 0);
    char *owner = NN(og_store_file_metadata_string(NULL, second, "Owner", &err));
    STREQ(owner, "shop");
    og_free(owner);
    FAILS(og_coordinator_set_store_path(coordinator, store, "", &err), OG_ERROR_INVALID_ARGUMENT, "empty");
    og_context_release(context);
    og_coordinator_release(coordinator);
    free(first);
    free(second);
    og_t_remove_tree(dir);
}

static void invalid_handles(void) {
    FAILS_NULL(og_coordinator_add_store_with_options(NULL, "InMemory", NULL, NULL, NULL, &err), 140001, "handle");
    CHECK(og_store_configuration(NULL) == NULL);
    FAILS_NULL(og_store_options(NULL, &err), 140001, "handle");
    FAILS_NULL(og_coordinator_migrate_store(NULL, NULL, "x", "Binary", NULL, &err), 140001, "handle");
    FAILS_NULL(og_coordinator_store_for_path(NULL, "x", &err), 140001, "handle");
    FAILS(og_coordinator_set_store_path(NULL, NULL, "x", &err), 140001, "handle");
    FAILS_NULL(og_coordinator_store_metadata(NULL, NULL, &err), 140001, "handle");
    FAILS(og_coordinator_set_store_metadata(NULL, NULL, NULL, &err), 140001, "handle");
    FAILS(og_context_assign_object(NULL, NULL, NULL, &err), 140001, "handle");
    FAILS(og_fetch_request_set_affected_stores(NULL, NULL, 0, &err), 140001, "handle");
    /* A released store handle, and options that are not a dictionary. */
    og_coordinator *coordinator = shop_coordinator();
    og_value *number = og_value_new_int64(3);
    FAILS_NULL(og_coordinator_add_store_with_options(coordinator, "InMemory", NULL, NULL, number, &err), OG_ERROR_INVALID_ARGUMENT, "dictionary");
    og_value_release(number);
    og_store *store = NN(og_coordinator_add_store_with_options(coordinator, "InMemory", NULL, NULL, NULL, &err));
    og_fetch_request *request = NN(og_fetch_request_new("Customer", &err));
    og_store *stores[] = {store, NULL};
    FAILS(og_fetch_request_set_affected_stores(request, stores, 2, &err), 140001, "handle");
    og_fetch_request_release(request);
    og_coordinator_release(coordinator);
    FAILS_NULL(og_store_options(store, &err), 140001, "handle");
}

static const og_t_case cases[] = {
    {"configurations", configurations}, {"routing", routing}, {"options", options},
    {"migrate", migrate}, {"move_and_metadata", move_and_metadata}, {"invalid_handles", invalid_handles},
    {"ignore_versioning", ignore_versioning}, {"read_only_leaves_files", read_only_leaves_files},
    {"killed_creation_opens", killed_creation_opens},
    {"join_tables_from_file", join_tables_from_file}, {"unfinished_save_refused", unfinished_save_refused},
};

int main(int argc, char **argv) { return OG_T_RUN(cases, argc, argv); }
