/*
 * ObjectGraph from C: the benchmark's workload through include/objectgraph.h,
 * attributes by slot (og_object_*_int64_at). Takes the runner's flags and prints
 * the JSON report on its last line of standard output (Benchmarks/README.md), by
 * main_workload.h's loop: on SQLite files (main, scaling), or with `--workload
 * postgres` on a PostgreSQL store (the same code, the store added as "PostgreSQL"
 * with the URL and OG_OPTION_POSTGRESQL_SCHEMA).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_support.h"
#include "main_workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    og_model *model;
    og_coordinator *coordinator;
    og_context *context;
    size_t slots[ATTRIBUTES];
} stack;

/* Adds the store: a file, or a schema (OG_OPTION_POSTGRESQL_SCHEMA) of a PostgreSQL database. */
static void add_store(og_coordinator *coordinator, const bench_store *store) {
    og_error *error = NULL;
    if (!store->schema[0]) {
        if (!og_coordinator_add_store(coordinator, store->type, store->path, &error)) fail("add store", error);
        return;
    }
    const char *key = OG_OPTION_POSTGRESQL_SCHEMA;
    og_value *schema = og_value_new_string(store->schema, &error);
    og_value *options = schema ? og_value_new_dictionary(&key, &schema, 1, &error) : NULL;
    if (!options) fail("store options", error);
    if (!og_coordinator_add_store_with_options(coordinator, store->type, NULL, store->path, options, &error))
        fail("add store", error);
    og_value_release(options);
    og_value_release(schema);
}

static void open_stack(stack *s, const bench_store *store) {
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
    add_store(s->coordinator, store);
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

/* Creates the store, then (timed) inserts count objects and saves. */
static double insert(const bench_store *store, long count) {
    og_error *error = NULL;
    stack s;
    open_stack(&s, store);
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

/* Opens the store, then (timed) fetches every object and sums every attribute. */
static double fetch(const bench_store *store, int64_t *sum, size_t *count) {
    og_error *error = NULL;
    stack s;
    open_stack(&s, store);
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

int main(int argc, char **argv) {
    char about[128];
    snprintf(about, sizeof about, "libobjectgraph %s", og_version());
    const bench_contender contender = {
        .name = "og-c",
        .table = "ZITEM",
        .columns = {"ZA0", "ZA1", "ZA2", "ZA3", "ZA4", "ZA5", "ZA6", "ZA7", "ZA8", "ZA9"},
        .files = 1,
        .postgres = 1,
        .insert = insert,
        .fetch = fetch,
        .about = about,
    };
    return bench_main(&contender, argc, argv);
}
