/*
 * ObjectGraph from C: the benchmark's workload through include/objectgraph.h,
 * attributes by slot (og_object_*_int64_at). Takes the runner's flags and prints
 * the JSON report on its last line of standard output (Benchmarks/README.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { ATTRIBUTES = 10 };

typedef struct {
    og_model *model;
    og_coordinator *coordinator;
    og_context *context;
    size_t slots[ATTRIBUTES];
} stack;

/* The value of attribute k of object i, as in Workload.swift. */
static int64_t value(long i, int k) { return (int64_t)i * 10 + k; }

static void open_stack(stack *s, const char *path) {
    og_error *error = NULL;
    char name[8];
    s->model = og_model_new();
    og_entity *item = og_model_add_entity(s->model, "Item", &error);
    if (!item) fail("add entity", error);
    for (int k = 0; k < ATTRIBUTES; k++) {
        snprintf(name, sizeof name, "a%d", k);
        if (!og_entity_add_attribute(item, name, OG_ATTRIBUTE_INTEGER64, &error)) fail("add attribute", error);
    }
    s->coordinator = og_coordinator_new(s->model, &error);
    if (!s->coordinator) fail("new coordinator", error);
    if (!og_coordinator_add_store(s->coordinator, "SQLite", path, &error)) fail("add store", error);
    s->context = og_context_new(s->coordinator, &error);
    if (!s->context) fail("new context", error);
    for (int k = 0; k < ATTRIBUTES; k++) {
        snprintf(name, sizeof name, "a%d", k);
        int64_t slot = og_entity_slot(item, name, &error);
        if (slot < 0) fail("slot", error);
        s->slots[k] = (size_t)slot;
    }
}

static void close_stack(stack *s) {
    og_context_release(s->context);
    og_coordinator_release(s->coordinator);
    og_model_release(s->model);
}

/* Creates a store at path, then (timed) inserts count objects and saves. */
static double insert(const char *path, long count) {
    og_error *error = NULL;
    stack s;
    open_stack(&s, path);
    double start = now();
    for (long i = 0; i < count; i++) {
        og_object *object = og_context_insert(s.context, "Item", &error);
        if (!object) fail("insert", error);
        for (int k = 0; k < ATTRIBUTES; k++)
            if (og_object_set_int64_at(object, s.slots[k], value(i, k), &error) != OG_OK) fail("set", error);
    }
    if (og_context_save(s.context, &error) != OG_OK) fail("save", error);
    double elapsed = now() - start;
    close_stack(&s);
    return elapsed;
}

/* Opens the store at path, then (timed) fetches every object and sums every attribute. */
static double fetch(const char *path, int64_t *sum, size_t *count) {
    og_error *error = NULL;
    stack s;
    open_stack(&s, path);
    double start = now();
    og_fetch_request *request = og_fetch_request_new("Item", &error);
    if (!request) fail("fetch request", error);
    og_results *results = og_context_fetch(s.context, request, &error);
    if (!results) fail("fetch", error);
    uint64_t total = 0; /* unsigned: wraps like the other contenders' &+ */
    size_t n = og_results_count(results);
    for (size_t i = 0; i < n; i++) {
        og_object *object = og_results_object_at(results, i, &error);
        if (!object) fail("object", error);
        for (int k = 0; k < ATTRIBUTES; k++) {
            int64_t v;
            if (og_object_get_int64_at(object, s.slots[k], &v, &error) != OG_OK) fail("get", error);
            total += (uint64_t)v;
        }
    }
    double elapsed = now() - start;
    og_results_release(results);
    og_fetch_request_release(request);
    close_stack(&s);
    *sum = (int64_t)total;
    *count = n;
    return elapsed;
}

static void print_list(const char *key, const double *values, long n, const char *end) {
    printf("\"%s\":[", key);
    for (long i = 0; i < n; i++) printf("%s%.9f", i ? "," : "", values[i]);
    printf("]%s", end);
}

int main(int argc, char **argv) {
    long n = 50000, rows = 200000, runs = 5, warmup = 1;
    const char *dir = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *flag = argv[i], *arg = argv[i + 1];
        if (!strcmp(flag, "--n")) n = number(flag, arg);
        else if (!strcmp(flag, "--fetch-rows")) rows = number(flag, arg);
        else if (!strcmp(flag, "--runs")) runs = number(flag, arg);
        else if (!strcmp(flag, "--warmup")) warmup = number(flag, arg);
        else if (!strcmp(flag, "--dir")) dir = arg;
        else { fprintf(stderr, "og-c: unknown option '%s'\n", flag); return 2; }
    }
    if (!dir || runs < 1) { fprintf(stderr, "og-c: needs --dir and --runs >= 1\n"); return 2; }

    char fetch_path[4096], insert_path[4096];
    snprintf(fetch_path, sizeof fetch_path, "%s/og-c-fetch.sqlite", dir);
    snprintf(insert_path, sizeof insert_path, "%s/og-c-insert.sqlite", dir);
    remove_store(fetch_path);
    insert(fetch_path, rows); /* preparation, not timed */

    double *insert_s = calloc((size_t)runs, sizeof *insert_s), *fetch_s = calloc((size_t)runs, sizeof *fetch_s);
    int64_t *sums = calloc((size_t)runs, sizeof *sums);
    size_t *counts = calloc((size_t)runs, sizeof *counts);
    if (!insert_s || !fetch_s || !sums || !counts) fail("out of memory", NULL);
    for (long run = 0; run < warmup + runs; run++) {
        remove_store(insert_path);
        double ti = insert(insert_path, n);
        int64_t sum;
        size_t count;
        double tf = fetch(fetch_path, &sum, &count);
        if (run < warmup) {
            fprintf(stderr, "og-c: warm-up: insert %.1f ms, fetch %.1f ms\n", ti * 1e3, tf * 1e3);
            continue;
        }
        long r = run - warmup;
        fprintf(stderr, "og-c: run %ld/%ld: insert %.1f ms, fetch %.1f ms\n", r + 1, runs, ti * 1e3, tf * 1e3);
        insert_s[r] = ti, fetch_s[r] = tf, sums[r] = sum, counts[r] = count;
    }
    remove_store(fetch_path); /* the insert file stays for the runner's check */

    printf("{");
    print_list("insert_seconds", insert_s, runs, ",");
    print_list("fetch_seconds", fetch_s, runs, ",");
    printf("\"fetch_sums\":[");
    for (long i = 0; i < runs; i++) printf("%s%lld", i ? "," : "", (long long)sums[i]);
    printf("],\"fetch_counts\":[");
    for (long i = 0; i < runs; i++) printf("%s%zu", i ? "," : "", counts[i]);
    printf("],\"insert_file\":");
    print_string(insert_path);
    printf(",\"insert_table\":\"ZITEM\",\"insert_columns\":[");
    for (int k = 0; k < ATTRIBUTES; k++) printf("%s\"ZA%d\"", k ? "," : "", k);
    printf("],\"about\":\"libobjectgraph %s\"}\n", og_version());
    free(insert_s), free(fetch_s), free(sums), free(counts);
    return 0;
}
