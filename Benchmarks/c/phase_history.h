/*
 * The history workload from C (Benchmarks/README.md, "Persistent history"): main's
 * insert (og_bench.c) into a store added with and without OG_OPTION_HISTORY_TRACKING,
 * and reading the history after a token: og_context_history, then og_history_changes,
 * a transaction's changes at a time (their primary keys summed). Static functions:
 * included once, by og_phase_bench.c.
 */
#ifndef OG_PHASE_HISTORY_H
#define OG_PHASE_HISTORY_H

#include "phase_stack.h"

#include <stdlib.h>
#include <string.h>

/* The items of each saved transaction of the read store (Sizes.historyTransaction). */
enum { HISTORY_TRANSACTION = 1000 };

/* The token after the read store's first transaction, kept by prepare_history for the runs. */
static og_history_token *history_token;

/* Inserts the items first … end-1 with main's values (a<k> = i*10 + k). */
static void insert_items(og_context *context, const size_t slots[ATTRIBUTES], long first, long end) {
    og_error *error = NULL;
    for (long i = first; i < end; i++) {
        og_object *object = og_context_insert(context, "Item", &error);
        if (!object) fail("insert", error);
        for (int k = 0; k < ATTRIBUTES; k++)
            if (og_object_set_int64_at(object, slots[k], (int64_t)i * 10 + k, &error) != OG_OK) fail("set", error);
    }
}

/* The read store (preparation, not timed): 1,000 items saved in one transaction, whose
 * token is kept, then `changes` items saved in transactions of 1,000, the context reset
 * after each save. */
static void prepare_history(const char *path, long changes) {
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    open_stack_tracking(&s, item_model(0, 0, slots), path, 1);
    long end = HISTORY_TRANSACTION + changes;
    for (long first = 0; first < end; first += HISTORY_TRANSACTION) {
        insert_items(s.context, slots, first, first + HISTORY_TRANSACTION < end ? first + HISTORY_TRANSACTION : end);
        if (og_context_save(s.context, &error) != OG_OK) fail("save", error);
        if (og_context_reset(s.context, &error) != OG_OK) fail("reset", error);
        if (first == 0 && og_coordinator_current_history_token(s.coordinator, &history_token, &error) != OG_OK)
            fail("history token", error);
    }
    if (!history_token) fail("no history token after the first save", NULL);
    close_stack(&s);
}

/* history, insert: a new store (not timed), history tracking on or off, then main's
 * insert of n items and one save (timed). */
static double history_insert(const char *path, long n, int tracking) {
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    remove_store(path);
    open_stack_tracking(&s, item_model(0, 0, slots), path, tracking);
    double start = now();
    insert_items(s.context, slots, 0, n);
    if (og_context_save(s.context, &error) != OG_OK) fail("save", error);
    double elapsed = now() - start;
    close_stack(&s);
    return elapsed;
}

/* history, read: the store opened again (not timed), then the history after the token,
 * every change's type and object ID read (timed). Counts the inserts, sums their keys. */
static double run_history(const char *path, const sizes *z, size_t *count, int64_t *sum) {
    (void)z;
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    open_stack_tracking(&s, item_model(0, 0, slots), path, 1);
    double start = now();
    og_history *history = og_context_history(s.context, history_token, NULL, &error);
    if (!history) fail("history", error);
    size_t inserts = 0;
    uint64_t keys = 0; /* unsigned: wraps like the other contenders' &+ */
    size_t transactions = og_history_count(history);
    og_history_change_kind *kinds = NULL;
    int64_t *pks = NULL;
    size_t capacity = 0;
    for (size_t t = 0; t < transactions; t++) {
        size_t changes = og_history_change_count(history, t);
        if (changes > capacity) {
            capacity = changes;
            kinds = realloc(kinds, capacity * sizeof *kinds);
            pks = realloc(pks, capacity * sizeof *pks);
            if (!kinds || !pks) fail("out of memory", NULL);
        }
        if (og_history_changes(history, t, 0, changes, kinds, NULL, pks, NULL, &error) != OG_OK) fail("changes", error);
        for (size_t c = 0; c < changes; c++) {
            if (kinds[c] == OG_HISTORY_CHANGE_INSERT) inserts++;
            keys += (uint64_t)pks[c];
        }
    }
    free(kinds);
    free(pks);
    double elapsed = now() - start;
    og_history_release(history); /* released outside the timing, as fetched objects are */
    close_stack(&s);
    *count = inserts, *sum = (int64_t)keys;
    return elapsed;
}

#endif
