/*
 * What the one-phase workloads of og_phase_bench.c share: their sizes, a model,
 * coordinator and context over one store, and the Item model. Static functions:
 * included once, by og_phase_bench.c (through phase_batch.h as well).
 */
#ifndef OG_PHASE_STACK_H
#define OG_PHASE_STACK_H

#include "bench_support.h"

#include <stdio.h>

enum { ATTRIBUTES = 10 };

/* As Sizes in Workloads/WorkloadKind.swift. */
typedef struct {
    long update_rows, update_count, indexed_rows, indexed_start, indexed_count, authors, books_per_author;
    long batch_rows, batch_insert_rows, upsert_start;
    long history_changes;
} sizes;

typedef struct {
    og_model *model;
    og_coordinator *coordinator;
    og_context *context;
} stack;

/* `history`: the store added with OG_OPTION_HISTORY_TRACKING on (the history workload). */
static void open_stack_tracking(stack *s, og_model *model, const char *path, int history) {
    og_error *error = NULL;
    s->model = model;
    s->coordinator = og_coordinator_new(model, &error);
    if (!s->coordinator) fail("new coordinator", error);
    if (history) {
        const char *key = OG_OPTION_HISTORY_TRACKING;
        og_value *on = og_value_new_bool(true);
        og_value *options = og_value_new_dictionary(&key, &on, 1, &error);
        if (!options) fail("store options", error);
        if (!og_coordinator_add_store_with_options(s->coordinator, "SQLite", NULL, path, options, &error))
            fail("add store with history tracking", error);
        og_value_release(options), og_value_release(on);
    } else if (!og_coordinator_add_store(s->coordinator, "SQLite", path, &error)) {
        fail("add store", error);
    }
    s->context = og_context_new(s->coordinator, &error);
    if (!s->context) fail("new context", error);
}

static void open_stack(stack *s, og_model *model, const char *path) { open_stack_tracking(s, model, path, 0); }

static void close_stack(stack *s) {
    og_context_release(s->context);
    og_coordinator_release(s->coordinator);
    og_model_release(s->model);
}

/* Item with a0…a9, a0 indexed when `indexed` and unique when `unique_a0` (a
 * uniqueness constraint); slots[k] is the slot of a<k>. */
static og_model *item_model(int indexed, int unique_a0, size_t slots[ATTRIBUTES]) {
    og_error *error = NULL;
    char name[8];
    og_model *model = og_model_new();
    og_entity *item = og_model_add_entity(model, "Item", &error);
    if (!item) fail("add entity", error);
    for (int k = 0; k < ATTRIBUTES; k++) {
        snprintf(name, sizeof name, "a%d", k);
        og_property *attribute = og_entity_add_attribute(item, name, OG_ATTRIBUTE_INTEGER64, &error);
        if (!attribute) fail("add attribute", error);
        if (indexed && k == 0 && og_property_set_indexed(attribute, true, &error) != OG_OK) fail("index", error);
    }
    const char *constraint = "a0";
    if (unique_a0 && og_entity_set_uniqueness_constraints(item, &constraint, 1, &error) != OG_OK) fail("unique a0", error);
    for (int k = 0; k < ATTRIBUTES; k++) {
        snprintf(name, sizeof name, "a%d", k);
        int64_t slot = og_entity_slot(item, name, &error);
        if (slot < 0) fail("slot", error);
        slots[k] = (size_t)slot;
    }
    return model;
}

/* A store of `rows` items (preparation, not timed): item i has a<k> = i*10 + k. */
static void prepare_items(const char *path, long rows, int indexed) {
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    open_stack(&s, item_model(indexed, 0, slots), path);
    for (long i = 0; i < rows; i++) {
        og_object *object = og_context_insert(s.context, "Item", &error);
        if (!object) fail("insert", error);
        for (int k = 0; k < ATTRIBUTES; k++)
            if (og_object_set_int64_at(object, slots[k], (int64_t)i * 10 + k, &error) != OG_OK) fail("set", error);
    }
    if (og_context_save(s.context, &error) != OG_OK) fail("save", error);
    close_stack(&s);
}

#endif
