/* Input the library must survive, from C, one ctest per case:
 *  - model_names: names from model files and from code are letters, digits and
 *    underscores; a fetch index name that would drop a table is refused
 *    (OG_ERROR_INVALID_MODEL naming it) and no store is created.
 *  - key_counter_at_its_largest / row_version_at_its_largest: a store whose
 *    Z_PRIMARYKEY.Z_MAX or a row's Z_OPT is 2^63-1 opens; the save that would
 *    pass it fails with OG_ERROR_STORE_SAVE and writes nothing.
 *  - decimal_not_finite: infinity and NaN written to a Decimal attribute
 *    (og_object_set_double, _at, og_object_set_value) are validation errors.
 *  - object_id_fetch_sorted_by_a_to_one: on InMemory and Binary stores.
 *  - transient_to_many: of an object fetched from SQLite.
 *  - foreign_wal: a store with another database's -wal beside it is refused
 *    and it, its -wal and its -shm stay byte for byte.
 *  - strings_with_nul: the _n functions keep embedded NULs in values and
 *    predicate arguments, and refuse a path holding one.
 *  - uri_exact: a URI with a space comes back exactly as set.
 *  - binary_leftovers: the temporary file of a Binary save killed before its
 *    rename is removed when the store is next opened. */
#include "library_model.h"
#include "og_test_cases.h"

#include <errno.h>
#include <signal.h>
#include <dirent.h>
#include "og_test_sqlite.h"
#include <sys/wait.h>

/* ---- Helpers --------------------------------------------------------------- */

static void sql(const char *path, const char *statement) {
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    char *message = NULL;
    if (sqlite3_exec(db, statement, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "  %s: %s\n", statement, message);
        CHECK(!"SQL failed");
    }
    sqlite3_close(db);
}

/* A whole file, or NULL (length 0) when there is none. */
static char *slurp(const char *path, size_t *length) {
    *length = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t capacity = 1 << 16;
    char *bytes = malloc(capacity);
    size_t n;
    while ((n = fread(bytes + *length, 1, capacity - *length, f)) > 0) {
        *length += n;
        if (*length == capacity) bytes = realloc(bytes, capacity *= 2);
    }
    fclose(f);
    return bytes;
}

static void copy_file(const char *from, const char *to) {
    size_t n;
    char *bytes = slurp(from, &n);
    CHECK(bytes != NULL);
    FILE *f = fopen(to, "wb");
    CHECK(f != NULL && fwrite(bytes, 1, n, f) == n && fclose(f) == 0);
    free(bytes);
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* A library store at dir/name with one author and one book; closed again. */
static char *saved_store(const char *dir, const char *name) {
    char *path = og_t_path(dir, name);
    og_coordinator *c = library_open(path, false, NULL);
    og_context *ctx = NN(og_context_new(c, &err));
    og_object *author = NN(og_context_insert(ctx, "Author", &err));
    OK(og_object_set_string(author, "name", "Ann", &err));
    og_object *book = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_object(book, "author", author, &err));
    OK(og_context_save(ctx, &err));
    og_context_release(ctx);
    og_coordinator_release(c);
    return path;
}

/* The first object of `entity` in a context. */
static og_object *first(og_context *ctx, const char *entity) {
    og_fetch_request *r = NN(og_fetch_request_new(entity, &err));
    og_results *results = NN(og_context_fetch(ctx, r, &err));
    CHECK(og_results_count(results) > 0);
    og_object *o = NN(og_results_object_at(results, 0, &err));
    og_results_release(results);
    og_fetch_request_release(r);
    return o;
}

/* ---- Cases ------------------------------------------------------------------ */

static void model_names(void) {
    FAILS_NULL(og_model_load(OG_FIXTURES "/Invalid/json-injected-fetch-index.json", &err), OG_ERROR_INVALID_MODEL,
               "not a valid name for a fetch index");
    og_model *loaded = og_model_load(OG_FIXTURES "/Invalid/injected-fetch-index.xcdatamodel", &err);
    CHECK(loaded == NULL);
    STREQ(og_error_user_info(err, "invalidName"), "byTitle ON ZBOOK (ZTITLE); DROP TABLE ZAUTHOR; CREATE INDEX x");
    og_t_expect_error(OG_ERROR_INVALID_MODEL, "DROP TABLE", __FILE__, __LINE__, "xcdatamodel fetch index");
    FAILS_NULL(og_model_from_json("{\"format\": \"objectgraph-model\", \"formatVersion\": 1, \"entities\": ["
                                  "{\"name\": \"Book\", \"attributes\": [{\"name\": \"title\", \"type\": \"string\"}],"
                                  " \"fetchIndexes\": [{\"name\": \"x ON ZBOOK (ZTITLE); DROP TABLE ZBOOK; --\","
                                  " \"elements\": [{\"property\": \"title\"}]}]}]}", &err),
               OG_ERROR_INVALID_MODEL, "fetch index");
    og_model *model = NN(og_model_new());
    FAILS_NULL(og_model_add_entity(model, "Book; DROP TABLE ZBOOK", &err), OG_ERROR_INVALID_MODEL, "not a valid name");
    og_entity *book = NN(og_model_add_entity(model, "Book", &err));
    FAILS_NULL(og_entity_add_attribute(book, "1st", OG_ATTRIBUTE_STRING, &err), OG_ERROR_INVALID_MODEL, "digit");
    NN(og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &err));
    const char *constraint = "title\"); DROP TABLE ZBOOK; --";
    OK(og_entity_set_uniqueness_constraints(book, &constraint, 1, &err));
    FAILS(og_model_validate(model, &err), OG_ERROR_INVALID_MODEL, "uniqueness constraint");
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "books.sqlite");
    FAILS_NULL(og_coordinator_new(model, &err), OG_ERROR_INVALID_MODEL, "not a valid name");
    CHECK(!exists(path));
    og_model_release(model);
    free(path);
    og_t_remove_tree(dir);
}

static void key_counter_at_its_largest(void) {
    char *dir = og_t_tempdir();
    char *path = saved_store(dir, "books.sqlite");
    sql(path, "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_NAME = 'Author'");
    og_coordinator *c = library_open(path, false, NULL);
    og_context *ctx = NN(og_context_new(c, &err));
    og_object *author = NN(og_context_insert(ctx, "Author", &err));
    OK(og_object_set_string(author, "name", "Bob", &err));
    FAILS(og_context_save(ctx, &err), OG_ERROR_STORE_SAVE, "no primary keys left");
    INTEQ(og_t_sql_int(path, "SELECT COUNT(*) FROM ZAUTHOR"), 1);
    og_context_release(ctx);
    og_coordinator_release(c);
    free(path);
    og_t_remove_tree(dir);
}

static void row_version_at_its_largest(void) {
    char *dir = og_t_tempdir();
    char *path = saved_store(dir, "books.sqlite");
    sql(path, "UPDATE ZAUTHOR SET Z_OPT = 9223372036854775807");
    og_coordinator *c = library_open(path, false, NULL);
    og_context *ctx = NN(og_context_new(c, &err));
    og_object *author = first(ctx, "Author");
    OK(og_object_set_string(author, "name", "Anne", &err));
    FAILS(og_context_save(ctx, &err), OG_ERROR_STORE_SAVE, "Z_OPT");
    INTEQ(og_t_sql_int(path, "SELECT Z_OPT FROM ZAUTHOR"), 9223372036854775807LL);
    og_context_release(ctx);
    og_coordinator_release(c);
    free(path);
    og_t_remove_tree(dir);
}

static void decimal_not_finite(void) {
    og_model *model = library_model_new(false);
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(c, "InMemory", NULL, &err));
    og_context *ctx = NN(og_context_new(c, &err));
    og_object *book = NN(og_context_insert(ctx, "Book", &err));
    og_entity *entity = NN(og_model_entity(model, "Book", &err));
    int64_t slot = og_entity_slot(entity, "price", &err);
    CHECK(slot >= 0);
    FAILS(og_object_set_double(book, "price", INFINITY, &err), OG_ERROR_VALIDATION_NUMBER_TOO_LARGE, "decimal");
    FAILS(og_object_set_double(book, "price", -INFINITY, &err), OG_ERROR_VALIDATION_NUMBER_TOO_SMALL, "decimal");
    FAILS(og_object_set_double_at(book, (size_t)slot, NAN, &err), OG_ERROR_VALIDATION_NUMBER_TOO_LARGE, "decimal");
    og_value *v = NN(og_value_new_double(NAN));
    FAILS(og_object_set_value(book, "price", v, &err), OG_ERROR_VALIDATION_NUMBER_TOO_LARGE, "decimal");
    og_value_release(v);
    char *price = NULL;
    OK(og_object_get_string(book, "price", &price, &err));
    STREQ(price, "9.99");
    og_free(price);
    OK(og_object_set_double(book, "price", 2.5, &err));
    OK(og_context_save(ctx, &err));
    og_context_release(ctx);
    og_coordinator_release(c);
    og_model_release(model);
}

static void object_id_fetch_sorted_by_a_to_one(void) {
    char *dir = og_t_tempdir();
    const char *types[] = {"InMemory", "Binary"};
    for (int t = 0; t < 2; t++) {
        og_model *model = library_model_new(false);
        og_coordinator *c = NN(og_coordinator_new(model, &err));
        char *path = og_t_path(dir, "books.binary");
        NN(og_coordinator_add_store(c, types[t], path, &err));
        og_context *ctx = NN(og_context_new(c, &err));
        const char *names[] = {"Zed", "Amy", "Kim"}, *titles[] = {"A", "B", "C"};
        for (int i = 0; i < 3; i++) {
            og_object *author = NN(og_context_insert(ctx, "Author", &err));
            OK(og_object_set_string(author, "name", names[i], &err));
            og_object *book = NN(og_context_insert(ctx, "Book", &err));
            OK(og_object_set_string(book, "title", titles[i], &err));
            OK(og_object_set_object(book, "author", author, &err));
        }
        OK(og_context_save(ctx, &err));
        og_context_release(ctx);
        ctx = NN(og_context_new(c, &err));
        og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
        OK(og_fetch_request_add_sort(r, "author.name", true, &err));
        OK(og_fetch_request_set_result_type(r, OG_RESULT_OBJECT_IDS, &err));
        og_object_ids *ids = NN(og_context_fetch_object_ids(ctx, r, &err));
        INTEQ(og_object_ids_count(ids), 3);
        const char *expected[] = {"B", "C", "A"};
        for (size_t i = 0; i < 3; i++) {
            og_object *o = NN(og_context_object_with_uri(ctx, NN(og_object_ids_uri_at(ids, i, &err)), &err));
            char *title = NULL;
            OK(og_object_get_string(o, "title", &title, &err));
            STREQ(title, expected[i]);
            og_free(title);
        }
        og_object_ids_release(ids);
        og_fetch_request_release(r);
        og_context_release(ctx);
        og_coordinator_release(c);
        og_model_release(model);
        free(path);
    }
    og_t_remove_tree(dir);
}

static void transient_to_many(void) {
    og_model *model = library_model_new(false);
    og_entity *author = NN(og_model_entity(model, "Author", &err));
    og_entity *book = NN(og_model_entity(model, "Book", &err));
    og_property *fans = NN(og_entity_add_relationship(author, "fans", book, &err));
    OK(og_relationship_set_to_many(fans, true, &err));
    og_property *idol = NN(og_entity_add_relationship(book, "idol", author, &err));
    OK(og_relationship_set_inverse(fans, idol, &err));
    OK(og_property_set_transient(fans, true, &err));
    OK(og_property_set_transient(idol, true, &err));
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "books.sqlite");
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(c, "SQLite", path, &err));
    og_context *ctx = NN(og_context_new(c, &err));
    OK(og_object_set_string(NN(og_context_insert(ctx, "Author", &err)), "name", "Ann", &err));
    NN(og_context_insert(ctx, "Book", &err));
    OK(og_context_save(ctx, &err));
    og_context_release(ctx);
    ctx = NN(og_context_new(c, &err));
    og_object *a = first(ctx, "Author");
    og_results *members = NN(og_object_get_related(a, "fans", &err));
    INTEQ(og_results_count(members), 0);
    og_results_release(members);
    OK(og_object_set_object(first(ctx, "Book"), "idol", a, &err));
    members = NN(og_object_get_related(a, "fans", &err));
    INTEQ(og_results_count(members), 1);
    og_results_release(members);
    og_context_release(ctx);
    og_coordinator_release(c);
    og_model_release(model);
    free(path);
    og_t_remove_tree(dir);
}

static void foreign_wal(void) {
    char *dir = og_t_tempdir();
    char *path = saved_store(dir, "books.sqlite");
    char *wal = og_t_path(dir, "books.sqlite-wal"), *shm = og_t_path(dir, "books.sqlite-shm");
    CHECK(!exists(wal));
    /* Another database's -wal and -shm, copied while its writer holds them. */
    char *other = og_t_path(dir, "other.sqlite");
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(other, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE u (y); CREATE TABLE v (z);"
                           "INSERT INTO u VALUES (randomblob(5000)), (randomblob(5000));", NULL, NULL, NULL) == SQLITE_OK);
    char *other_wal = og_t_path(dir, "other.sqlite-wal"), *other_shm = og_t_path(dir, "other.sqlite-shm");
    copy_file(other_wal, wal);
    copy_file(other_shm, shm);
    sqlite3_close(db);

    const char *files[] = {path, wal, shm};
    char *before[3];
    size_t before_n[3];
    for (int i = 0; i < 3; i++) CHECK((before[i] = slurp(files[i], &before_n[i])) != NULL);
    for (int round = 0; round < 2; round++) {
        og_model *model = library_model_new(false);
        og_coordinator *c = NN(og_coordinator_new(model, &err));
        og_model_release(model);
        FAILS_NULL(og_coordinator_add_store(c, "SQLite", path, &err), OG_ERROR_STORE_INVALID_TYPE, "not a Core Data store");
        og_coordinator_release(c);
        for (int i = 0; i < 3; i++) {
            size_t n;
            char *after = slurp(files[i], &n);
            CHECK(after != NULL && n == before_n[i] && memcmp(after, before[i], n) == 0);
            free(after);
        }
    }
    for (int i = 0; i < 3; i++) free(before[i]);
    free(wal), free(shm), free(other), free(other_wal), free(other_shm), free(path);
    og_t_remove_tree(dir);
}

static void strings_with_nul(void) {
    static const char text[] = {'a', '\0', 'b'};
    og_value *v = NN(og_value_new_string_n(text, sizeof text, &err));
    const char *out = NULL;
    size_t length = 0;
    OK(og_value_get_string_n(v, &out, &length, &err));
    CHECK(length == 3 && memcmp(out, text, 3) == 0 && out[3] == '\0');
    OK(og_value_get_string(v, &out, &err));
    STREQ(out, "a"); /* the NUL-terminated getter shows it up to its NUL */
    og_value *nothing = og_value_new_null();
    CHECK(og_value_get_string_n(nothing, &out, &length, &err) == OG_NULL && out == NULL && length == 0);
    og_value_release(nothing);
    og_value *empty = NN(og_value_new_string_n(NULL, 0, &err));
    OK(og_value_get_string_n(empty, &out, &length, &err));
    INTEQ(length, 0);
    og_value_release(empty);
    FAILS_NULL(og_value_new_string_n(NULL, 2, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS_NULL(og_value_new_string_n("\xff\xfe", 2, &err), OG_ERROR_INVALID_UTF8, "UTF-8");

    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "books.sqlite");
    og_model *model = library_model_new(false);
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    /* A path with a NUL in it is refused, not cut short at it. */
    char with_nul[4096];
    int n = snprintf(with_nul, sizeof with_nul, "%s", path);
    memcpy(with_nul + n, "\0.bak", 5);
    FAILS_NULL(og_coordinator_add_store_n(c, "SQLite", with_nul, (size_t)n + 5, &err), OG_ERROR_INVALID_ARGUMENT, "NUL");
    CHECK(!exists(path));
    /* The path as a buffer and its length, not NUL-terminated there. */
    snprintf(with_nul, sizeof with_nul, "%s-and-more", path);
    NN(og_coordinator_add_store_n(c, "SQLite", with_nul, (size_t)n, &err));
    CHECK(exists(path));
    og_context *ctx = NN(og_context_new(c, &err));
    og_object *book = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_value(book, "title", v, &err));
    og_object *other = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string_n(other, "title", "a\0c", 3, &err));
    og_object *plain = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string_n(plain, "title", "a", 1, &err));
    OK(og_context_save(ctx, &err));
    og_context_release(ctx);

    ctx = NN(og_context_new(c, &err));
    og_predicate *p = NN(og_predicate_parse("title == %@", &v, 1, &err));
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_set_predicate(r, p, &err));
    og_results *found = NN(og_context_fetch(ctx, r, &err));
    INTEQ(og_results_count(found), 1);
    char *title = NULL;
    OK(og_object_get_string_n(NN(og_results_object_at(found, 0, &err)), "title", &title, &length, &err));
    CHECK(length == 3 && memcmp(title, text, 3) == 0);
    og_free(title);
    og_results_release(found);
    og_fetch_request_release(r);
    og_predicate_release(p);
    og_context_release(ctx);
    og_coordinator_release(c);
    og_value_release(v);
    free(path);
    og_t_remove_tree(dir);
}

static void uri_exact(void) {
    const char *link = "https://example.org/a b?q=1 2#f g";
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "books.sqlite");
    og_coordinator *c = library_open(path, false, NULL);
    og_context *ctx = NN(og_context_new(c, &err));
    og_object *book = NN(og_context_insert(ctx, "Book", &err));
    og_value *v = NN(og_value_new_uri(link, &err));
    const char *text = NULL;
    OK(og_value_get_uri(v, &text, &err));
    STREQ(text, link);
    OK(og_object_set_value(book, "link", v, &err));
    og_value_release(v);
    OK(og_context_save(ctx, &err));
    og_context_release(ctx);
    og_coordinator_release(c);
    c = library_open(path, false, NULL);
    ctx = NN(og_context_new(c, &err));
    char *out = NULL;
    OK(og_object_get_string(first(ctx, "Book"), "link", &out, &err));
    STREQ(out, link);
    og_free(out);
    FAILS_NULL(og_value_new_uri("no scheme here", &err), OG_ERROR_INVALID_ARGUMENT, "URI");
    og_context_release(ctx);
    og_coordinator_release(c);
    free(path);
    og_t_remove_tree(dir);
}

/* The names in `dir` that hold ".tmp-". */
static int leftovers(const char *dir, char *name, size_t size) {
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strstr(e->d_name, ".tmp-") == NULL) continue;
        if (count++ == 0 && name) snprintf(name, size, "%s", e->d_name);
    }
    closedir(d);
    return count;
}

/* A writer that saves ever larger Binary documents until it is killed. */
static void binary_writer(const char *path) {
    og_model *model = library_model_new(false);
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(c, "Binary", path, &err));
    og_context *ctx = NN(og_context_new(c, &err));
    char title[4001];
    memset(title, 'x', 4000);
    title[4000] = '\0';
    for (;;) {
        for (int i = 0; i < 200; i++) OK(og_object_set_string(NN(og_context_insert(ctx, "Book", &err)), "title", title, &err));
        OK(og_context_save(ctx, &err));
    }
}

static void binary_leftovers(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "books.binary");
    /* Writers are forked before this process uses the library (Dispatch does not
     * survive a fork); each is killed once a temporary file is there. */
    char name[512] = "";
    for (int attempt = 0; attempt < 20 && leftovers(dir, name, sizeof name) == 0; attempt++) {
        fflush(stdout);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            binary_writer(path);
            _exit(0);
        }
        /* After a first save, wait for a temporary file (at most 20 s). */
        for (int i = 0; i < 40000 && !(exists(path) && leftovers(dir, NULL, 0) > 0); i++) usleep(500);
        kill(pid, SIGKILL);
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    CHECK(leftovers(dir, name, sizeof name) == 1);
    printf("  left by the kill: %s\n", name);
    /* One more that is not a save's (no pid after .tmp-) stays. */
    char *notes = og_t_path(dir, "books.binary.tmp-notes");
    og_t_write_file(notes, "not ours");
    og_model *model = library_model_new(false);
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    NN(og_coordinator_add_store(c, "Binary", path, &err));
    CHECK(leftovers(dir, name, sizeof name) == 1);
    STREQ(name, "books.binary.tmp-notes");
    og_context *ctx = NN(og_context_new(c, &err));
    og_fetch_request *r = NN(og_fetch_request_new("Book", &err));
    size_t count = 0;
    OK(og_context_count(ctx, r, &count, &err));
    CHECK(count % 200 == 0); /* whole saves only */
    og_fetch_request_release(r);
    og_context_release(ctx);
    og_coordinator_release(c);
    free(notes);
    free(path);
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"model_names", model_names},
    {"key_counter_at_its_largest", key_counter_at_its_largest},
    {"row_version_at_its_largest", row_version_at_its_largest},
    {"decimal_not_finite", decimal_not_finite},
    {"object_id_fetch_sorted_by_a_to_one", object_id_fetch_sorted_by_a_to_one},
    {"transient_to_many", transient_to_many},
    {"foreign_wal", foreign_wal},
    {"strings_with_nul", strings_with_nul},
    {"uri_exact", uri_exact},
    {"binary_leftovers", binary_leftovers},
};

int main(int argc, char **argv) { return OG_T_RUN(cases, argc, argv); }
