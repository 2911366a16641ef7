/* A soak of many contexts changing the same rows, through the C ABI.
 *
 *   soak_contexts [--seconds N] [--threads N] [--processes N] [--rows N] [--dir PATH]
 *
 * Writers increment counters: each reads a random row's counter, writes it plus
 * one, and saves. A save that returns OG_OK is an acknowledged increment; one
 * that fails with OG_ERROR_MERGE (133020) is a conflict the writer saw, after
 * which it rolls back and goes on. Threads of this process share one of two
 * coordinators (so conflicts come both from the coordinator's row cache and
 * from the store); each child process has its own coordinator over the same
 * file. At the end the counters are read back: every acknowledged increment
 * must be there (lost updates 0) and no other (phantom updates 0).
 *
 * Prints one line of counts and exits 1 when an update was lost, a phantom
 * appeared, or a writer met an error other than a conflict. Not a timed test:
 * the duration only bounds how long it runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "objectgraph.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct counts {
    long saves;     /* acknowledged increments */
    long conflicts; /* saves refused with 133020 */
    long failures;  /* any other failed call */
};

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Only the first few errors are printed; the rest are counted. */
static atomic_int printed;

static void report_error(const char *what, og_error *e) {
    if (atomic_fetch_add(&printed, 1) >= 5) return;
    fprintf(stderr, "soak: %s: %s %lld: %s\n", what, e ? og_error_domain(e) : "?", e ? (long long)og_error_code(e) : 0LL,
            e ? og_error_message(e) : "(no error)");
}

/* The model: one entity, Counter(slot: Integer 64, value: Integer 64). */
static og_model *counter_model(void) {
    og_error *e = NULL;
    og_model *model = og_model_new();
    og_entity *counter = og_model_add_entity(model, "Counter", &e);
    if (!counter || !og_entity_add_attribute(counter, "slot", OG_ATTRIBUTE_INTEGER64, &e) ||
        !og_entity_add_attribute(counter, "value", OG_ATTRIBUTE_INTEGER64, &e)) {
        report_error("model", e);
        exit(2);
    }
    return model;
}

#define open_store(p) open_store_labeled((p), "open " #p " at line " OG_STR(__LINE__))
#define OG_STR2(x) #x
#define OG_STR(x) OG_STR2(x)
static og_coordinator *open_store_labeled(const char *path, const char *label) {
    og_error *e = NULL;
    og_model *model = counter_model();
    og_coordinator *coordinator = og_coordinator_new(model, &e);
    og_model_release(model);
    if (!coordinator || !og_coordinator_add_store(coordinator, "SQLite", path, &e)) {
        report_error(label, e);
        exit(2);
    }
    return coordinator;
}

struct worker {
    og_coordinator *coordinator;
    char **uris;
    int rows;
    double until;
    unsigned seed;
    struct counts counts;
};

/* Increments random counters until the time is up. */
static void work(struct worker *w) {
    og_error *e = NULL;
    og_context *ctx = og_context_new(w->coordinator, &e);
    if (!ctx) {
        report_error("context", e);
        w->counts.failures++;
        return;
    }
    /* Read the store each time, as a writer that must see others' saves does. */
    og_context_set_staleness_interval(ctx, 0, NULL);
    while (seconds_now() < w->until) {
        const char *uri = w->uris[rand_r(&w->seed) % (unsigned)w->rows];
        og_object *o = og_context_existing_object(ctx, uri, &e);
        int64_t value = 0;
        if (!o || og_object_get_int64(o, "value", &value, &e) == OG_ERROR ||
            og_object_set_int64(o, "value", value + 1, &e) != OG_OK) {
            report_error("read", e);
            og_error_release(e);
            e = NULL;
            w->counts.failures++;
            og_context_rollback(ctx, NULL);
            continue;
        }
        if (og_context_save(ctx, &e) == OG_OK) {
            w->counts.saves++;
        } else if (e && og_error_code(e) == OG_ERROR_MERGE) {
            w->counts.conflicts++;
        } else {
            report_error("save", e);
            w->counts.failures++;
        }
        og_error_release(e);
        e = NULL;
        /* Start the next round from the store's values. */
        og_context_reset(ctx, NULL);
    }
    og_context_release(ctx);
}

static void *thread_main(void *arg) {
    work(arg);
    return NULL;
}

static char **row_uris(og_coordinator *coordinator, int rows) {
    og_error *e = NULL;
    og_context *ctx = og_context_new(coordinator, &e);
    og_fetch_request *r = og_fetch_request_new("Counter", &e);
    og_fetch_request_add_sort(r, "slot", true, &e);
    og_results *results = og_context_fetch(ctx, r, &e);
    if (!results || og_results_count(results) != (size_t)rows) {
        report_error("rows", e);
        exit(2);
    }
    char **uris = calloc((size_t)rows, sizeof *uris);
    for (int i = 0; i < rows; i++) uris[i] = og_object_id_uri(og_results_object_at(results, (size_t)i, &e), &e);
    og_results_release(results);
    og_fetch_request_release(r);
    og_context_release(ctx);
    return uris;
}

static long total_value(og_coordinator *coordinator) {
    og_error *e = NULL;
    og_context *ctx = og_context_new(coordinator, &e);
    og_fetch_request *r = og_fetch_request_new("Counter", &e);
    og_results *results = og_context_fetch(ctx, r, &e);
    long sum = 0;
    for (size_t i = 0; results && i < og_results_count(results); i++) {
        int64_t v = 0;
        og_object_get_int64(og_results_object_at(results, i, &e), "value", &v, &e);
        sum += (long)v;
    }
    og_results_release(results);
    og_fetch_request_release(r);
    og_context_release(ctx);
    return sum;
}

int main(int argc, char **argv) {
    double seconds = 20;
    int threads = 8, processes = 4, rows = 16;
    const char *dir = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--processes")) processes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rows")) rows = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--dir")) dir = argv[i + 1];
        else {
            fprintf(stderr, "usage: soak_contexts [--seconds N] [--threads N] [--processes N] [--rows N] [--dir PATH]\n");
            return 2;
        }
    }
    if (threads < 1 || processes < 0 || rows < 1 || threads > 256 || processes > 64) return 2;
    char template[] = "/tmp/og-soak-XXXXXX";
    char path[4096];
    snprintf(path, sizeof path, "%s/soak.sqlite", dir ? dir : mkdtemp(template));

    /* Processes are forked before this one touches the library (no fork after
     * its queues exist); each waits for the store the parent creates. */
    int pipes[64][2];
    pid_t children[64];
    /* One start pipe per child: several readers of one pipe could split a message. */
    int start[64][2];
    for (int p = 0; p < processes; p++) {
        if (pipe(pipes[p]) != 0 || pipe(start[p]) != 0) return 2;
        children[p] = fork();
        if (children[p] == 0) {
            close(start[p][1]);
            double until;
            if (read(start[p][0], &until, sizeof until) != sizeof until) _exit(2);
            og_coordinator *coordinator = open_store(path);
            struct worker w = {coordinator, row_uris(coordinator, rows), rows, until, (unsigned)getpid(), {0, 0, 0}};
            work(&w);
            if (write(pipes[p][1], &w.counts, sizeof w.counts) != sizeof w.counts) _exit(2);
            og_coordinator_release(coordinator);
            _exit(0);
        }
        close(pipes[p][1]);
        close(start[p][0]);
    }

    og_coordinator *first = open_store(path);
    {
        og_error *e = NULL;
        og_context *seed = og_context_new(first, &e);
        for (int i = 0; i < rows; i++) {
            og_object *o = og_context_insert(seed, "Counter", &e);
            og_object_set_int64(o, "slot", i, &e);
            og_object_set_int64(o, "value", 0, &e);
        }
        if (og_context_save(seed, &e) != OG_OK) {
            report_error("seed", e);
            return 2;
        }
        og_context_release(seed);
    }
    og_coordinator *second = open_store(path);
    char **uris = row_uris(first, rows);
    double until = seconds_now() + seconds;
    for (int p = 0; p < processes; p++) {
        if (write(start[p][1], &until, sizeof until) != sizeof until) return 2;
        close(start[p][1]);
    }

    struct worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    for (int t = 0; t < threads; t++) {
        workers[t] = (struct worker){t % 2 ? second : first, uris, rows, until, (unsigned)(t * 7919 + 17), {0, 0, 0}};
        pthread_create(&ids[t], NULL, thread_main, &workers[t]);
    }
    struct counts all = {0, 0, 0};
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        all.saves += workers[t].counts.saves;
        all.conflicts += workers[t].counts.conflicts;
        all.failures += workers[t].counts.failures;
    }
    long process_saves = 0;
    for (int p = 0; p < processes; p++) {
        struct counts c = {0, 0, 1};
        if (read(pipes[p][0], &c, sizeof c) != sizeof c) c.failures = 1;
        int status = 0;
        waitpid(children[p], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) c.failures++;
        all.saves += c.saves;
        process_saves += c.saves;
        all.conflicts += c.conflicts;
        all.failures += c.failures;
    }
    og_coordinator *check = open_store(path);
    long total = total_value(check);
    long lost = all.saves > total ? all.saves - total : 0;
    long phantom = total > all.saves ? total - all.saves : 0;
    printf("soak: %.0f s, %d threads, %d processes, %d rows: %ld acknowledged saves (%ld from other processes), "
           "%ld conflicts raised, %ld other failures, %ld lost updates, %ld phantom updates\n",
           seconds, threads, processes, rows, all.saves, process_saves, all.conflicts, all.failures, lost, phantom);
    og_coordinator_release(check);
    og_coordinator_release(second);
    og_coordinator_release(first);
    return lost == 0 && phantom == 0 && all.failures == 0 ? 0 : 1;
}
