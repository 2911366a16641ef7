/*
 * The batch workloads from C (Benchmarks/README.md, "Other workloads"):
 * batch-insert (og_context_batch_insert_columns: the rows by column), batch-update (og_context_batch_update), batch-delete
 * (og_context_batch_delete) and upsert (a batch insert into an entity with a
 * uniqueness constraint on a0, under OG_MERGE_POLICY_MERGE_BY_PROPERTY_OBJECT_TRUMP).
 * Static functions: included once, by og_phase_bench.c.
 */
#ifndef OG_PHASE_BATCH_H
#define OG_PHASE_BATCH_H

#include "phase_stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One batch insert of the items first … end-1, given by column (og_batch_column: the
 * columns are filled inside the timing, as raw SQLite makes its values while binding);
 * returns the rows it wrote. */
static size_t batch_insert(og_context *context, long first, long end) {
    static const char *const names[ATTRIBUTES] = {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"};
    size_t rows = (size_t)(end - first);
    int64_t *values = malloc(sizeof(int64_t) * ATTRIBUTES * (rows ? rows : 1));
    if (!values) fail("batch insert: out of memory", NULL);
    og_batch_column columns[ATTRIBUTES];
    for (int k = 0; k < ATTRIBUTES; k++) {
        int64_t *column = values + (size_t)k * rows;
        for (size_t i = 0; i < rows; i++) column[i] = (int64_t)(first + (long)i) * 10 + k;
        columns[k] = (og_batch_column){names[k], OG_COLUMN_INT64, column, NULL};
    }
    og_error *error = NULL;
    size_t count = 0;
    if (og_context_batch_insert_columns(context, "Item", columns, ATTRIBUTES, rows, OG_BATCH_RESULT_COUNT, &count, NULL, &error) != OG_OK)
        fail("batch insert", error);
    free(values);
    return count;
}

/* `a0 >= %@` with 0: every item. */
static og_predicate *every_item(void) {
    og_error *error = NULL;
    og_value *zero = og_value_new_int64(0);
    og_predicate *predicate = og_predicate_parse("a0 >= %@", &zero, 1, &error);
    og_value_release(zero);
    if (!predicate) fail("predicate", error);
    return predicate;
}

/* The template a store is copied from before every run of batch-update, batch-delete and upsert,
 * which change it for good: `…-template.sqlite` beside it. */
static void template_path(const char *path, char *out, size_t size) {
    size_t length = strlen(path);
    if (length > 7 && !strcmp(path + length - 7, ".sqlite")) length -= 7;
    snprintf(out, size, "%.*s-template.sqlite", (int)length, path);
}

static void copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    if (!in) return; /* no write-ahead log left: nothing to copy */
    FILE *out = fopen(to, "wb");
    if (!out) fail("copy the template", NULL);
    static char buffer[1 << 16];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
        if (fwrite(buffer, 1, n, out) != n) fail("copy the template", NULL);
    fclose(in);
    if (fclose(out) != 0) fail("copy the template", NULL);
}

/* Replaces the store with a copy of its template (closed: its file and any log left). */
static void restore_store(const char *path) {
    char template[4096], from[4200], to[4200];
    template_path(path, template, sizeof template);
    remove_store(path);
    copy_file(template, path);
    snprintf(from, sizeof from, "%s-wal", template);
    snprintf(to, sizeof to, "%s-wal", path);
    copy_file(from, to);
}

/* A store of `rows` items written by one batch insert (preparation, not timed). */
static void prepare_batch_items(const char *path, long rows, int unique_a0) {
    size_t slots[ATTRIBUTES];
    stack s;
    open_stack(&s, item_model(0, unique_a0, slots), path);
    batch_insert(s.context, 0, rows);
    close_stack(&s);
}

/* batch-insert: a new, empty store (not timed), then the batch insert. */
static double run_batch_insert(const char *path, const sizes *z, size_t *count, int64_t *sum) {
    size_t slots[ATTRIBUTES];
    stack s;
    remove_store(path);
    open_stack(&s, item_model(0, 0, slots), path);
    double start = now();
    *count = batch_insert(s.context, 0, z->batch_insert_rows);
    double elapsed = now() - start;
    close_stack(&s);
    *sum = 0;
    return elapsed;
}

/* batch-update: the store copied from its template (not timed), then a9 = -1
 * (Sizes.batchUpdateValue) on every item. */
static double run_batch_update(const char *path, const sizes *z, size_t *count, int64_t *sum) {
    (void)z;
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    restore_store(path);
    open_stack(&s, item_model(0, 0, slots), path);
    double start = now();
    og_predicate *predicate = every_item();
    const char *key = "a9";
    og_value *value = og_value_new_int64(-1);
    og_value *values = og_value_new_dictionary(&key, &value, 1, &error);
    if (!values) fail("values", error);
    if (og_context_batch_update(s.context, "Item", predicate, values, OG_BATCH_RESULT_COUNT, count, NULL, &error) != OG_OK)
        fail("batch update", error);
    double elapsed = now() - start;
    og_value_release(values), og_value_release(value), og_predicate_release(predicate);
    close_stack(&s);
    *sum = 0;
    return elapsed;
}

/* batch-delete: the store copied from its template (not timed), then every item deleted. */
static double run_batch_delete(const char *path, const sizes *z, size_t *count, int64_t *sum) {
    (void)z;
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    restore_store(path);
    open_stack(&s, item_model(0, 0, slots), path);
    double start = now();
    og_fetch_request *request = og_fetch_request_new("Item", &error);
    og_predicate *predicate = every_item();
    if (!request || og_fetch_request_set_predicate(request, predicate, &error) != OG_OK) fail("fetch request", error);
    if (og_context_batch_delete(s.context, request, OG_BATCH_RESULT_COUNT, count, NULL, &error) != OG_OK)
        fail("batch delete", error);
    double elapsed = now() - start;
    og_predicate_release(predicate), og_fetch_request_release(request);
    close_stack(&s);
    *sum = 0;
    return elapsed;
}

/* upsert: the store copied from its template (not timed), the merge policy set, then one
 * batch insert whose first half finds its a0 stored. */
static double run_upsert(const char *path, const sizes *z, size_t *count, int64_t *sum) {
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    restore_store(path);
    open_stack(&s, item_model(0, 1, slots), path);
    if (og_context_set_merge_policy(s.context, OG_MERGE_POLICY_MERGE_BY_PROPERTY_OBJECT_TRUMP, &error) != OG_OK)
        fail("merge policy", error);
    double start = now();
    *count = batch_insert(s.context, z->upsert_start, z->upsert_start + z->batch_insert_rows);
    double elapsed = now() - start;
    close_stack(&s);
    *sum = 0;
    return elapsed;
}

#endif
