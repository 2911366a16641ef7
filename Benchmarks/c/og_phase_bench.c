/*
 * ObjectGraph from C on the one-phase workloads (Benchmarks/README.md, "Other
 * workloads"): update (a predicate fetch, og_object_set_int64_at, save), indexed
 * (a predicate fetch on an attribute the model indexes), traversal (authors
 * fetched with their books prefetched, og_object_get_related, every title read),
 * the batch workloads and upsert (phase_batch.h), and history (phase_history.h: the
 * history read after a token, and main's insert with history tracking off and on).
 * Takes the runner's flags and prints the one-phase report on its last line of
 * standard output.
 */
#define _POSIX_C_SOURCE 200809L
#include "phase_batch.h"
#include "phase_history.h"
#include "phase_stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Author (name, to-many books) and Book (title, to-one author), inverses. */
static og_model *library_model(void) {
    og_error *error = NULL;
    og_model *model = og_model_new();
    og_entity *author = og_model_add_entity(model, "Author", &error);
    og_entity *book = author ? og_model_add_entity(model, "Book", &error) : NULL;
    if (!book) fail("add entity", error);
    if (!og_entity_add_attribute(author, "name", OG_ATTRIBUTE_STRING, &error)) fail("add attribute", error);
    if (!og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &error)) fail("add attribute", error);
    og_property *books = og_entity_add_relationship(author, "books", book, &error);
    og_property *writer = books ? og_entity_add_relationship(book, "author", author, &error) : NULL;
    if (!writer) fail("add relationship", error);
    if (og_relationship_set_to_many(books, true, &error) != OG_OK) fail("to-many", error);
    if (og_relationship_set_inverse(books, writer, &error) != OG_OK) fail("inverse", error);
    return model;
}

/* The objects of `entity` matching `format` (no arguments), or all when NULL. */
static og_results *fetch(stack *s, const char *entity, const char *format, const char *prefetch) {
    og_error *error = NULL;
    og_fetch_request *request = og_fetch_request_new(entity, &error);
    if (!request) fail("fetch request", error);
    if (format) {
        og_predicate *predicate = og_predicate_parse(format, NULL, 0, &error);
        if (!predicate || og_fetch_request_set_predicate(request, predicate, &error) != OG_OK) fail("predicate", error);
        og_predicate_release(predicate);
    }
    if (prefetch && og_fetch_request_add_prefetch_key_path(request, prefetch, &error) != OG_OK) fail("prefetch", error);
    og_results *results = og_context_fetch(s->context, request, &error);
    if (!results) fail("fetch", error);
    og_fetch_request_release(request);
    return results;
}

/* update: fetch a0 < count*10, a9 += 1 on each, save. Returns the objects changed. */
static double run_update(const char *path, const sizes *z, size_t *count, int64_t *sum) {
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    open_stack(&s, item_model(0, 0, slots), path);
    char format[64];
    snprintf(format, sizeof format, "a0 < %ld", z->update_count * 10);
    double start = now();
    og_results *results = fetch(&s, "Item", format, NULL);
    size_t n = og_results_count(results);
    for (size_t i = 0; i < n; i++) {
        og_object *object = og_results_object_at(results, i, &error);
        int64_t v;
        if (!object || og_object_get_int64_at(object, slots[9], &v, &error) != OG_OK) fail("get", error);
        if (og_object_set_int64_at(object, slots[9], v + 1, &error) != OG_OK) fail("set", error);
    }
    if (og_context_save(s.context, &error) != OG_OK) fail("save", error);
    double elapsed = now() - start;
    og_results_release(results);
    close_stack(&s);
    *count = n, *sum = 0;
    return elapsed;
}

/* indexed: fetch a range of a0 and sum every attribute of the results. */
static double run_indexed(const char *path, const sizes *z, size_t *count, int64_t *sum) {
    og_error *error = NULL;
    size_t slots[ATTRIBUTES];
    stack s;
    open_stack(&s, item_model(1, 0, slots), path);
    char format[96];
    snprintf(format, sizeof format, "a0 >= %ld AND a0 < %ld", z->indexed_start * 10,
             (z->indexed_start + z->indexed_count) * 10);
    double start = now();
    og_results *results = fetch(&s, "Item", format, NULL);
    uint64_t total = 0; /* unsigned: wraps like the other contenders' &+ */
    size_t n = og_results_count(results);
    for (size_t i = 0; i < n; i++) {
        og_object *object = og_results_object_at(results, i, &error);
        if (!object) fail("object", error);
        for (int k = 0; k < ATTRIBUTES; k++) {
            int64_t v;
            if (og_object_get_int64_at(object, slots[k], &v, &error) != OG_OK) fail("get", error);
            total += (uint64_t)v;
        }
    }
    double elapsed = now() - start;
    og_results_release(results);
    close_stack(&s);
    *count = n, *sum = (int64_t)total;
    return elapsed;
}

static void prepare_library(const char *path, const sizes *z) {
    og_error *error = NULL;
    char text[96];
    stack s;
    open_stack(&s, library_model(), path);
    for (long a = 0; a < z->authors; a++) {
        og_object *author = og_context_insert(s.context, "Author", &error);
        snprintf(text, sizeof text, "Author %ld", a);
        if (!author || og_object_set_string(author, "name", text, &error) != OG_OK) fail("author", error);
        for (long b = 0; b < z->books_per_author; b++) {
            og_object *book = og_context_insert(s.context, "Book", &error);
            snprintf(text, sizeof text, "Book %ld of author %ld", b, a); /* as Library.swift */
            if (!book || og_object_set_string(book, "title", text, &error) != OG_OK) fail("book", error);
            if (og_object_set_object(book, "author", author, &error) != OG_OK) fail("book's author", error);
        }
    }
    if (og_context_save(s.context, &error) != OG_OK) fail("save", error);
    close_stack(&s);
}

/* traversal: every author with its books prefetched; the UTF-8 bytes of every title,
 * read by slot into a buffer of the loop's own (longer titles would take an owned copy). */
static double run_traversal(const char *path, const sizes *z, size_t *count, int64_t *sum) {
    (void)z;
    og_error *error = NULL;
    stack s;
    open_stack(&s, library_model(), path);
    og_entity *book_entity = og_model_entity(s.model, "Book", &error);
    int64_t title_slot = book_entity ? og_entity_slot(book_entity, "title", &error) : -1;
    if (title_slot < 0) fail("title slot", error);
    char title[256];
    double start = now();
    og_results *authors = fetch(&s, "Author", NULL, "books");
    size_t n = og_results_count(authors), titles = 0;
    int64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        og_object *author = og_results_object_at(authors, i, &error);
        og_results *books = author ? og_object_get_related(author, "books", &error) : NULL;
        if (!books) fail("books", error);
        size_t m = og_results_count(books);
        for (size_t j = 0; j < m; j++) {
            og_object *book = og_results_object_at(books, j, &error);
            size_t length;
            if (!book || og_object_copy_string_at(book, (size_t)title_slot, title, sizeof title, &length, &error) != OG_OK)
                fail("title", error);
            if (length >= sizeof title) fail("a title longer than the buffer", NULL);
            bytes += (int64_t)length;
        }
        titles += m;
        og_results_release(books);
    }
    double elapsed = now() - start;
    og_results_release(authors);
    close_stack(&s);
    *count = titles, *sum = bytes;
    return elapsed;
}

int main(int argc, char **argv) {
    long runs = 5, warmup = 1, update_percent = 10, indexed_percent = 1, n = 50000;
    sizes z = {.update_rows = 200000, .indexed_rows = 1000000, .authors = 10000, .books_per_author = 20,
               .batch_rows = 200000, .batch_insert_rows = 50000, .history_changes = 100000};
    const char *dir = NULL, *workload = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *flag = argv[i], *arg = argv[i + 1];
        if (!strcmp(flag, "--workload")) workload = arg;
        else if (!strcmp(flag, "--dir")) dir = arg;
        else if (!strcmp(flag, "--runs")) runs = number(flag, arg);
        else if (!strcmp(flag, "--warmup")) warmup = number(flag, arg);
        else if (!strcmp(flag, "--update-rows")) z.update_rows = number(flag, arg);
        else if (!strcmp(flag, "--update-percent")) update_percent = number(flag, arg);
        else if (!strcmp(flag, "--indexed-rows")) z.indexed_rows = number(flag, arg);
        else if (!strcmp(flag, "--indexed-percent")) indexed_percent = number(flag, arg);
        else if (!strcmp(flag, "--authors")) z.authors = number(flag, arg);
        else if (!strcmp(flag, "--books-per-author")) z.books_per_author = number(flag, arg);
        else if (!strcmp(flag, "--batch-rows")) z.batch_rows = number(flag, arg);
        else if (!strcmp(flag, "--batch-insert-rows")) z.batch_insert_rows = number(flag, arg);
        else if (!strcmp(flag, "--history-changes")) z.history_changes = number(flag, arg);
        else if (!strcmp(flag, "--n")) n = number(flag, arg);
        else if (strcmp(flag, "--fetch-rows")) {
            fprintf(stderr, "og-c: unknown option '%s'\n", flag);
            return 2;
        }
    }
    if (!dir || !workload || runs < 1) { fprintf(stderr, "og-c: needs --workload, --dir and --runs >= 1\n"); return 2; }
    /* As Sizes in Workloads/WorkloadKind.swift. */
    z.update_count = z.update_rows * update_percent / 100;
    if (z.update_count < 1) z.update_count = 1;
    z.indexed_count = z.indexed_rows * indexed_percent / 100;
    if (z.indexed_count < 1) z.indexed_count = 1;
    z.indexed_start = (z.indexed_rows - z.indexed_count) / 2;
    z.upsert_start = z.batch_rows - z.batch_insert_rows / 2;
    if (z.upsert_start < 0) z.upsert_start = 0;

    char path[4096], template[4096];
    snprintf(path, sizeof path, "%s/og-c-%s.sqlite", dir, workload);
    template_path(path, template, sizeof template);
    remove_store(path);
    remove_store(template);
    double (*run)(const char *, const sizes *, size_t *, int64_t *);
    if (!strcmp(workload, "update")) prepare_items(path, z.update_rows, 0), run = run_update;
    else if (!strcmp(workload, "indexed")) prepare_items(path, z.indexed_rows, 1), run = run_indexed;
    else if (!strcmp(workload, "traversal")) prepare_library(path, &z), run = run_traversal;
    else if (!strcmp(workload, "batch-insert")) run = run_batch_insert;
    else if (!strcmp(workload, "batch-update")) prepare_batch_items(template, z.batch_rows, 0), run = run_batch_update;
    else if (!strcmp(workload, "batch-delete")) prepare_batch_items(template, z.batch_rows, 0), run = run_batch_delete;
    else if (!strcmp(workload, "upsert")) prepare_batch_items(template, z.batch_rows, 1), run = run_upsert;
    else if (!strcmp(workload, "history")) prepare_history(path, z.history_changes), run = run_history;
    else { printf("{\"skipped\":\"no %s workload\"}\n", workload); return 0; }
    /* The workloads that write leave their store for the runner's check (StoreCheck.swift);
     * history leaves the stores of its last inserts (HistoryChecks.swift). */
    int history = !strcmp(workload, "history");
    int checks_store = strcmp(workload, "indexed") && strcmp(workload, "traversal") && !history;
    char off_path[4096], on_path[4096];
    snprintf(off_path, sizeof off_path, "%s/og-c-history-off.sqlite", dir);
    snprintf(on_path, sizeof on_path, "%s/og-c-history-on.sqlite", dir);

    double *seconds = calloc((size_t)runs, sizeof *seconds);
    double *off_seconds = calloc((size_t)runs, sizeof *off_seconds), *on_seconds = calloc((size_t)runs, sizeof *on_seconds);
    int64_t *sums = calloc((size_t)runs, sizeof *sums);
    size_t *counts = calloc((size_t)runs, sizeof *counts);
    if (!seconds || !off_seconds || !on_seconds || !sums || !counts) fail("out of memory", NULL);
    for (long i = 0; i < warmup + runs; i++) {
        size_t count;
        int64_t sum;
        double off = 0, on = 0;
        if (history) {
            /* main's insert without and with history, into new stores; which goes first
             * alternates from run to run (as HistoryInserts in PhaseWorker.swift). */
            if (i % 2 == 0) off = history_insert(off_path, n, 0), on = history_insert(on_path, n, 1);
            else on = history_insert(on_path, n, 1), off = history_insert(off_path, n, 0);
        }
        double t = run(path, &z, &count, &sum);
        char inserts[96] = "";
        if (history) snprintf(inserts, sizeof inserts, "; insert, history off %.1f ms, on %.1f ms", off * 1e3, on * 1e3);
        if (i < warmup) {
            fprintf(stderr, "og-c: %s: warm-up: %.1f ms, %zu objects%s\n", workload, t * 1e3, count, inserts);
            continue;
        }
        long r = i - warmup;
        fprintf(stderr, "og-c: %s: run %ld/%ld: %.1f ms, %zu objects%s\n", workload, r + 1, runs, t * 1e3, count, inserts);
        seconds[r] = t, sums[r] = sum, counts[r] = count, off_seconds[r] = off, on_seconds[r] = on;
    }

    printf("{\"seconds\":[");
    for (long i = 0; i < runs; i++) printf("%s%.9f", i ? "," : "", seconds[i]);
    printf("],\"counts\":[");
    for (long i = 0; i < runs; i++) printf("%s%zu", i ? "," : "", counts[i]);
    printf("],\"sums\":[");
    for (long i = 0; i < runs; i++) printf("%s%lld", i ? "," : "", (long long)sums[i]);
    printf("],\"total_runs\":%ld,", warmup + runs);
    remove_store(template);
    if (history) {
        printf("\"insert_seconds\":[");
        for (long i = 0; i < runs; i++) printf("%s%.9f", i ? "," : "", off_seconds[i]);
        printf("],\"history_insert_seconds\":[");
        for (long i = 0; i < runs; i++) printf("%s%.9f", i ? "," : "", on_seconds[i]);
        printf("],\"insert_file\":");
        print_string(off_path);
        printf(",\"history_insert_file\":");
        print_string(on_path);
        printf(",\"table\":\"ZITEM\",\"columns\":[");
        for (int k = 0; k < ATTRIBUTES; k++) printf("%s\"ZA%d\"", k ? "," : "", k);
        printf("],");
        og_history_token_release(history_token);
    }
    if (checks_store) {
        printf("\"file\":");
        print_string(path);
        printf(",\"table\":\"ZITEM\",\"columns\":[");
        for (int k = 0; k < ATTRIBUTES; k++) printf("%s\"ZA%d\"", k ? "," : "", k);
        printf("],");
    } else {
        remove_store(path);
    }
    printf("\"about\":\"libobjectgraph %s\"}\n", og_version());
    free(seconds), free(off_seconds), free(on_seconds), free(sums), free(counts);
    return 0;
}
