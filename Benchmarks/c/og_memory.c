/* Memory per live fetched object, from C: fills a store with N objects of ten
 * Int64 attributes, then measures the process's resident set before and after
 * fetching them all and taking every object's handle (og_results_object_at), and
 * after releasing the result. Prints bytes per object. Also runs the import loop
 * of issue 15: N objects inserted in saves of 1,000 with og_context_reset between,
 * printing how far the resident set ends above where it started.
 *
 *   cc -O2 -Iinclude Benchmarks/c/og_memory.c -Lbuild/swiftpm/release -lobjectgraph -o og_memory
 *   ./og_memory [N] [DIR]
 */
#include <objectgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <malloc.h>

static long resident_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kib = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kib;
}

static void check(og_status status, og_error *error, const char *what) {
    if (status == OG_OK) return;
    fprintf(stderr, "%s: %s\n", what, error ? og_error_message(error) : "failed");
    exit(1);
}

struct stack { og_model *model; og_coordinator *coordinator; og_context *context; size_t slots[10]; };

static struct stack open_stack(const char *path) {
    struct stack s;
    og_error *error = NULL;
    s.model = og_model_new();
    og_entity *item = og_model_add_entity(s.model, "Item", &error);
    for (int k = 0; k < 10; k++) {
        char name[8];
        snprintf(name, sizeof name, "a%d", k);
        if (!og_entity_add_attribute(item, name, OG_ATTRIBUTE_INTEGER64, &error)) check(OG_ERROR, error, "attribute");
    }
    s.coordinator = og_coordinator_new(s.model, &error);
    if (!s.coordinator) check(OG_ERROR, error, "coordinator");
    if (!og_coordinator_add_store(s.coordinator, "SQLite", path, &error)) check(OG_ERROR, error, "store");
    s.context = og_context_new(s.coordinator, &error);
    for (int k = 0; k < 10; k++) {
        char name[8];
        snprintf(name, sizeof name, "a%d", k);
        s.slots[k] = (size_t)og_entity_slot(item, name, &error);
    }
    return s;
}

static void insert(struct stack *s, long first, long count) {
    og_error *error = NULL;
    for (long i = first; i < first + count; i++) {
        og_object *o = og_context_insert(s->context, "Item", &error);
        if (!o) check(OG_ERROR, error, "insert");
        for (int k = 0; k < 10; k++) check(og_object_set_int64_at(o, s->slots[k], i * 10 + k, &error), error, "set");
    }
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    char path[1024];
    snprintf(path, sizeof path, "%s/og-memory-%d.sqlite", dir, (int)getpid());
    og_error *error = NULL;

    struct stack s = open_stack(path);
    long before_import = resident_kib();
    for (long done = 0; done < n; done += 1000) {
        insert(&s, done, n - done < 1000 ? n - done : 1000);
        check(og_context_save(s.context, &error), error, "save");
        check(og_context_reset(s.context, &error), error, "reset");
    }
    long after_import = resident_kib();

    og_fetch_request *request = og_fetch_request_new("Item", &error);
    long before = resident_kib();
    og_results *results = og_context_fetch(s.context, request, &error);
    if (!results) check(OG_ERROR, error, "fetch");
    size_t count = og_results_count(results);
    int64_t sum = 0, v = 0;
    for (size_t i = 0; i < count; i++) {
        og_object *o = og_results_object_at(results, i, &error);
        check(og_object_get_int64_at(o, s.slots[0], &v, &error), error, "get");  /* fires the fault */
        sum += v;
    }
    long live = resident_kib();
    og_results_release(results);
    check(og_context_reset(s.context, &error), error, "reset");
    long released = resident_kib();
    malloc_trim(0);
    long trimmed = resident_kib();

    printf("objects %zu (sum %lld)\n", count, (long long)sum);
    printf("import of %ld in saves of 1000 with reset: resident set %+.1f MB\n", n, (after_import - before_import) / 1024.0);
    printf("live fetched objects: %.0f bytes each (values included: ten Int64 attributes)\n",
           (live - before) * 1024.0 / (double)count);
    printf("after release and reset: %+.1f MB above before the fetch\n", (released - before) / 1024.0);
    printf("after malloc_trim: %+.1f MB above before the fetch\n", (trimmed - before) / 1024.0);
    og_fetch_request_release(request);
    og_context_release(s.context);
    og_coordinator_release(s.coordinator);
    og_model_release(s.model);
    for (const char *suffix = ""; ; suffix = suffix[0] ? NULL : "-wal") {
        char p[1100];
        if (!suffix) break;
        snprintf(p, sizeof p, "%s%s", path, suffix);
        unlink(p);
    }
    return 0;
}
