/* A soak of many contexts changing the same rows, through the C ABI.
 *
 *   soak_contexts [--seconds N] [--threads N] [--processes N] [--rows N] [--dir PATH]
 *   soak_contexts --postgres [URL] [--schema NAME] [--keep-schema] [--seconds N]
 *                 [--threads N] [--processes N] [--rows N]
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
 * With --postgres the store is a PostgreSQL store at URL (without one, at
 * OBJECTGRAPH_TEST_POSTGRES_URL; when that is unset too it reports itself
 * skipped, exit 77), in the schema NAME (default soak_<pid>, dropped at the end
 * unless --keep-schema). Then only child processes write (--processes, default
 * 4), each with --threads threads (default 4), every thread with a coordinator
 * and so a server connection of its own. A thread that meets a conflict
 * refreshes the counter and tries the same increment again. In about half of its
 * saves a thread also inserts an Entry (writer, serial) and records whether the
 * save returned OG_OK; at the end every acknowledged insert must be in the store
 * once (missing inserts 0), and none whose save was refused (phantom inserts 0).
 * The totals are also read with plain SQL over a connection of their own.
 *
 * Prints one line of counts and exits 1 when an update or insert was lost, a
 * phantom appeared, or a writer met an error other than a conflict. Not a timed
 * test: the duration only bounds how long it runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "objectgraph.h"
#include "pg_client.h"

#include <errno.h>
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
    long inserts;   /* acknowledged inserts (PostgreSQL mode) */
    long unknown;   /* inserts whose save failed otherwise: in the store or not */
    long abandoned; /* increments given up after a conflict when the time was up */
};

/* PostgreSQL mode: the server's URL (NULL in SQLite mode) and the schema. */
static const char *pg_url;
static char pg_schema[64];

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

/* The model: one entity, Counter(slot: Integer 64, value: Integer 64); in
 * PostgreSQL mode also Entry(writer: Integer 64, serial: Integer 64). */
static og_model *counter_model(void) {
    og_error *e = NULL;
    og_model *model = og_model_new();
    og_entity *counter = og_model_add_entity(model, "Counter", &e);
    if (!counter || !og_entity_add_attribute(counter, "slot", OG_ATTRIBUTE_INTEGER64, &e) ||
        !og_entity_add_attribute(counter, "value", OG_ATTRIBUTE_INTEGER64, &e)) {
        report_error("model", e);
        exit(2);
    }
    if (pg_url) {
        og_entity *entry = og_model_add_entity(model, "Entry", &e);
        if (!entry || !og_entity_add_attribute(entry, "writer", OG_ATTRIBUTE_INTEGER64, &e) ||
            !og_entity_add_attribute(entry, "serial", OG_ATTRIBUTE_INTEGER64, &e)) {
            report_error("model", e);
            exit(2);
        }
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
    bool added = false;
    if (coordinator && pg_url) {
        const char *keys[] = {OG_OPTION_POSTGRESQL_SCHEMA};
        og_value *values[] = {og_value_new_string(pg_schema, &e)};
        og_value *options = values[0] ? og_value_new_dictionary(keys, values, 1, &e) : NULL;
        added = options && og_coordinator_add_store_with_options(coordinator, "PostgreSQL", NULL, pg_url, options, &e);
        og_value_release(options);
        og_value_release(values[0]);
    } else if (coordinator) {
        added = og_coordinator_add_store(coordinator, "SQLite", path, &e);
    }
    if (!added) {
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
    /* PostgreSQL mode: the Entry.writer of this thread's inserts and, per serial,
     * what became of the insert. */
    int writer;
    unsigned char *states;
    long serials, capacity;
};

enum { INSERT_REFUSED = 0, INSERT_ACKNOWLEDGED = 1, INSERT_UNKNOWN = 2 };

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

/* PostgreSQL mode: increments random counters until the time is up, retrying an
 * increment refused by a conflict after refreshing the counter; about half the
 * saves also insert an Entry, whose fate is recorded in w->states. */
static void work_postgres(struct worker *w) {
    og_error *e = NULL;
    og_context *ctx = og_context_new(w->coordinator, &e);
    if (!ctx) {
        report_error("context", e);
        w->counts.failures++;
        return;
    }
    og_context_set_staleness_interval(ctx, 0, NULL);
    while (seconds_now() < w->until) {
        const char *uri = w->uris[rand_r(&w->seed) % (unsigned)w->rows];
        long serial = -1;
        if (rand_r(&w->seed) % 2 == 0) {
            if (w->serials == w->capacity) {
                w->capacity = w->capacity ? 2 * w->capacity : 1024;
                w->states = realloc(w->states, (size_t)w->capacity);
                if (!w->states) exit(2);
            }
            serial = w->serials++;
            w->states[serial] = INSERT_REFUSED;
            og_object *entry = og_context_insert(ctx, "Entry", &e);
            if (!entry || og_object_set_int64(entry, "writer", w->writer, &e) != OG_OK ||
                og_object_set_int64(entry, "serial", serial, &e) != OG_OK) {
                report_error("insert", e);
                og_error_release(e);
                e = NULL;
                w->counts.failures++;
                og_context_rollback(ctx, NULL);
                og_context_reset(ctx, NULL);
                continue;
            }
        }
        og_object *o = og_context_existing_object(ctx, uri, &e);
        for (int attempt = 0; o; attempt++) {
            int64_t value = 0;
            if (og_object_get_int64(o, "value", &value, &e) == OG_ERROR || og_object_set_int64(o, "value", value + 1, &e) != OG_OK) {
                o = NULL;
                break;
            }
            if (og_context_save(ctx, &e) == OG_OK) {
                w->counts.saves++;
                if (serial >= 0) {
                    w->states[serial] = INSERT_ACKNOWLEDGED;
                    w->counts.inserts++;
                }
                break;
            }
            if (e && og_error_code(e) == OG_ERROR_MERGE) {
                /* Another writer changed the counter since it was read: read it again
                 * (dropping this change) and try the same increment again. */
                w->counts.conflicts++;
                og_error_release(e);
                e = NULL;
                if (seconds_now() >= w->until) {
                    w->counts.abandoned++;
                    break;
                }
                if (og_context_refresh_object(ctx, o, false, &e) != OG_OK) o = NULL;
                continue;
            }
            /* Neither saved nor refused for certain: a lost connection may have
             * gone with the commit. */
            report_error("save", e);
            og_error_release(e);
            e = NULL;
            w->counts.failures++;
            if (serial >= 0) {
                w->states[serial] = INSERT_UNKNOWN;
                w->counts.unknown++;
            }
            break;
        }
        if (!o) {
            report_error("read", e);
            og_error_release(e);
            e = NULL;
            w->counts.failures++;
        }
        /* Start the next round from the store's values. */
        og_context_rollback(ctx, NULL);
        og_context_reset(ctx, NULL);
    }
    og_context_release(ctx);
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

/* The counters, all 0, in slots 0..rows-1. */
static void seed_counters(og_coordinator *coordinator, int rows) {
    og_error *e = NULL;
    og_context *seed = og_context_new(coordinator, &e);
    for (int i = 0; i < rows; i++) {
        og_object *o = og_context_insert(seed, "Counter", &e);
        og_object_set_int64(o, "slot", i, &e);
        og_object_set_int64(o, "value", 0, &e);
    }
    if (og_context_save(seed, &e) != OG_OK) {
        report_error("seed", e);
        exit(2);
    }
    og_context_release(seed);
}

static void write_all(int fd, const void *data, size_t n) {
    const char *p = data;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) _exit(2);
        p += k;
        n -= (size_t)k;
    }
}

static bool read_all(int fd, void *data, size_t n) {
    char *p = data;
    while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/* A PostgreSQL-mode thread: a coordinator (a connection) of its own. */
static void *postgres_thread_main(void *arg) {
    struct worker *w = arg;
    w->coordinator = open_store(NULL);
    w->uris = row_uris(w->coordinator, w->rows);
    work_postgres(w);
    for (int i = 0; i < w->rows; i++) og_free(w->uris[i]);
    free(w->uris);
    og_coordinator_release(w->coordinator);
    return NULL;
}

/* The PostgreSQL soak: `processes` children of `threads` writers each; the parent
 * creates the store, waits, and checks what the store holds against what the
 * writers were told. */
static int run_postgres(double seconds, int threads, int processes, int rows, bool keep) {
    if (processes < 1) processes = 1;
    int writers = processes * threads;
    int pipes[64][2], start[64][2];
    pid_t children[64];
    /* Children are forked before this process touches the library. */
    for (int p = 0; p < processes; p++) {
        if (pipe(pipes[p]) != 0 || pipe(start[p]) != 0) return 2;
        children[p] = fork();
        if (children[p] == 0) {
            close(start[p][1]);
            close(pipes[p][0]);
            double until;
            if (!read_all(start[p][0], &until, sizeof until)) _exit(2);
            struct worker *ws = calloc((size_t)threads, sizeof *ws);
            pthread_t *ids = calloc((size_t)threads, sizeof *ids);
            for (int t = 0; t < threads; t++) {
                ws[t] = (struct worker){.rows = rows, .until = until, .seed = (unsigned)getpid() * 7919u + (unsigned)t * 104729u,
                                        .writer = p * threads + t};
                pthread_create(&ids[t], NULL, postgres_thread_main, &ws[t]);
            }
            struct counts sum = {0};
            for (int t = 0; t < threads; t++) {
                pthread_join(ids[t], NULL);
                sum.saves += ws[t].counts.saves;
                sum.conflicts += ws[t].counts.conflicts;
                sum.failures += ws[t].counts.failures;
                sum.inserts += ws[t].counts.inserts;
                sum.unknown += ws[t].counts.unknown;
                sum.abandoned += ws[t].counts.abandoned;
            }
            write_all(pipes[p][1], &sum, sizeof sum);
            for (int t = 0; t < threads; t++) {
                write_all(pipes[p][1], &ws[t].writer, sizeof ws[t].writer);
                write_all(pipes[p][1], &ws[t].serials, sizeof ws[t].serials);
                write_all(pipes[p][1], ws[t].states, (size_t)ws[t].serials);
            }
            _exit(0);
        }
        close(pipes[p][1]);
        close(start[p][0]);
    }

    og_coordinator *first = open_store(NULL);
    seed_counters(first, rows);
    og_coordinator_release(first);
    double began = seconds_now(), until = began + seconds;
    for (int p = 0; p < processes; p++) {
        if (write(start[p][1], &until, sizeof until) != sizeof until) return 2;
        close(start[p][1]);
    }

    /* What each writer was told, by writer and serial. */
    unsigned char **states = calloc((size_t)writers, sizeof *states);
    long *serials = calloc((size_t)writers, sizeof *serials);
    struct counts all = {0};
    for (int p = 0; p < processes; p++) {
        struct counts c = {0};
        bool ok = read_all(pipes[p][0], &c, sizeof c);
        for (int t = 0; ok && t < threads; t++) {
            int writer = -1;
            long n = 0;
            ok = read_all(pipes[p][0], &writer, sizeof writer) && read_all(pipes[p][0], &n, sizeof n) && writer >= 0 &&
                 writer < writers && n >= 0 && !states[writer];
            if (!ok) break;
            states[writer] = malloc((size_t)n + 1);
            serials[writer] = n;
            ok = read_all(pipes[p][0], states[writer], (size_t)n);
        }
        close(pipes[p][0]);
        int status = 0;
        waitpid(children[p], &status, 0);
        if (!ok) c.failures++;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "soak: writer process %d ended with status %d\n", p, status);
            c.failures++;
        }
        all.saves += c.saves;
        all.conflicts += c.conflicts;
        all.failures += c.failures;
        all.inserts += c.inserts;
        all.unknown += c.unknown;
        all.abandoned += c.abandoned;
    }
    double elapsed = seconds_now() - began;

    /* The store as a new coordinator (a new connection) reads it. */
    og_coordinator *check = open_store(NULL);
    long total = total_value(check);
    og_error *e = NULL;
    og_context *ctx = og_context_new(check, &e);
    og_fetch_request *r = og_fetch_request_new("Entry", &e);
    og_results *entries = og_context_fetch(ctx, r, &e);
    if (!entries) {
        report_error("fetch entries", e);
        return 2;
    }
    unsigned char **seen = calloc((size_t)writers, sizeof *seen);
    for (int w = 0; w < writers; w++) seen[w] = calloc((size_t)serials[w] + 1, 1);
    long stray = 0, duplicated = 0, phantom_inserts = 0, missing = 0, unknown_present = 0;
    size_t entry_count = og_results_count(entries);
    for (size_t i = 0; i < entry_count; i++) {
        og_object *o = og_results_object_at(entries, i, &e);
        int64_t writer = -1, serial = -1;
        og_object_get_int64(o, "writer", &writer, NULL);
        og_object_get_int64(o, "serial", &serial, NULL);
        if (writer < 0 || writer >= writers || serial < 0 || serial >= serials[writer]) {
            stray++;
            continue;
        }
        if (seen[writer][serial]++) duplicated++;
    }
    for (int w = 0; w < writers; w++)
        for (long k = 0; k < serials[w]; k++) {
            if (states[w][k] == INSERT_ACKNOWLEDGED && !seen[w][k]) {
                if (missing++ < 5) fprintf(stderr, "soak: the acknowledged insert %d/%ld is missing\n", w, k);
            } else if (states[w][k] == INSERT_REFUSED && seen[w][k]) {
                if (phantom_inserts++ < 5) fprintf(stderr, "soak: the refused insert %d/%ld is in the store\n", w, k);
            } else if (states[w][k] == INSERT_UNKNOWN && seen[w][k]) {
                unknown_present++;
            }
        }
    og_results_release(entries);
    og_fetch_request_release(r);
    og_context_release(ctx);
    og_coordinator_release(check);

    /* The same totals with plain SQL, over a connection the library does not own. */
    long sql_mismatch = 0;
    char why[512] = "";
    pgc_conn *sql = pgc_connect(pg_url, why, sizeof why);
    if (sql) {
        char q1[256], q2[256];
        snprintf(q1, sizeof q1, "SELECT COALESCE(SUM(\"ZVALUE\"), 0) FROM \"%s\".\"ZCOUNTER\"", pg_schema);
        snprintf(q2, sizeof q2, "SELECT COUNT(*) FROM \"%s\".\"ZENTRY\"", pg_schema);
        long long sql_total = pgc_scalar(sql, q1, 0, NULL, why, sizeof why);
        long long sql_entries = sql_total < 0 ? -1 : pgc_scalar(sql, q2, 0, NULL, why, sizeof why);
        if (sql_total != total || sql_entries != (long long)entry_count) {
            fprintf(stderr, "soak: SQL reads %lld as the counters' sum and %lld entries, the library %ld and %zu%s%s\n", sql_total,
                    sql_entries, total, entry_count, sql_entries < 0 ? ": " : "", sql_entries < 0 ? why : "");
            sql_mismatch = 1;
        }
        pgc_close(sql);
    } else {
        fprintf(stderr, "soak: no SQL cross-check (%s)\n", why);
    }

    long lost = all.saves > total ? all.saves - total : 0;
    long phantom = total > all.saves ? total - all.saves : 0;
    printf("soak: PostgreSQL schema %s, %.0f s, %d processes x %d threads (a connection each), %d rows: "
           "%ld acknowledged saves, %ld conflicts raised (retried after a refresh; %ld given up at the end), "
           "%ld other failures, %ld lost updates, %ld phantom updates; "
           "%ld acknowledged inserts, %ld acknowledged inserts missing, %ld refused inserts present, %ld duplicated, %ld stray, "
           "%ld of unknown outcome (%ld present)%s\n",
           pg_schema, elapsed, processes, threads, rows, all.saves, all.conflicts, all.abandoned, all.failures, lost, phantom,
           all.inserts, missing, phantom_inserts, duplicated, stray, all.unknown, unknown_present,
           sql_mismatch ? "; SQL DISAGREES with the library" : "");
    if (!keep && !pgc_drop_schema(pg_url, pg_schema, why, sizeof why)) fprintf(stderr, "soak: schema %s left behind: %s\n", pg_schema, why);
    bool clean = lost == 0 && phantom == 0 && missing == 0 && phantom_inserts == 0 && duplicated == 0 && stray == 0 &&
                 all.failures == 0 && sql_mismatch == 0;
    return clean ? 0 : 1;
}

static int usage(void) {
    fprintf(stderr, "usage: soak_contexts [--seconds N] [--threads N] [--processes N] [--rows N] [--dir PATH]\n"
                    "       soak_contexts --postgres [URL] [--schema NAME] [--keep-schema] [--seconds N] [--threads N]\n"
                    "                     [--processes N] [--rows N]\n");
    return 2;
}

int main(int argc, char **argv) {
    double seconds = 20;
    int threads = -1, processes = 4, rows = 16;
    const char *dir = NULL, *schema = NULL;
    bool postgres = false, keep = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--postgres")) {
            postgres = true;
            if (v && strncmp(v, "--", 2) != 0) {
                pg_url = v;
                i++;
            }
            continue;
        }
        if (!strcmp(a, "--keep-schema")) {
            keep = true;
            continue;
        }
        if (!v) return usage();
        i++;
        if (!strcmp(a, "--seconds")) seconds = atof(v);
        else if (!strcmp(a, "--threads")) threads = atoi(v);
        else if (!strcmp(a, "--processes")) processes = atoi(v);
        else if (!strcmp(a, "--rows")) rows = atoi(v);
        else if (!strcmp(a, "--dir")) dir = v;
        else if (!strcmp(a, "--schema")) schema = v;
        else return usage();
    }
    if (threads < 0) threads = postgres ? 4 : 8;
    if (threads < 1 || processes < 0 || rows < 1 || threads > 256 || processes > 64) return 2;
    if (postgres) {
        if (!pg_url) pg_url = getenv("OBJECTGRAPH_TEST_POSTGRES_URL");
        if (!pg_url || !*pg_url) {
            printf("skipped: no PostgreSQL server (no URL given and OBJECTGRAPH_TEST_POSTGRES_URL is unset)\n");
            return 77;
        }
        if (schema) snprintf(pg_schema, sizeof pg_schema, "%s", schema);
        else snprintf(pg_schema, sizeof pg_schema, "soak_%ld", (long)getpid());
        return run_postgres(seconds, threads, processes, rows, keep);
    }
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
            struct worker w = {.coordinator = coordinator, .uris = row_uris(coordinator, rows), .rows = rows, .until = until,
                               .seed = (unsigned)getpid()};
            work(&w);
            if (write(pipes[p][1], &w.counts, sizeof w.counts) != sizeof w.counts) _exit(2);
            og_coordinator_release(coordinator);
            _exit(0);
        }
        close(pipes[p][1]);
        close(start[p][0]);
    }

    og_coordinator *first = open_store(path);
    seed_counters(first, rows);
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
        workers[t] = (struct worker){.coordinator = t % 2 ? second : first, .uris = uris, .rows = rows, .until = until,
                                     .seed = (unsigned)(t * 7919 + 17)};
        pthread_create(&ids[t], NULL, thread_main, &workers[t]);
    }
    struct counts all = {0};
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        all.saves += workers[t].counts.saves;
        all.conflicts += workers[t].counts.conflicts;
        all.failures += workers[t].counts.failures;
    }
    long process_saves = 0;
    for (int p = 0; p < processes; p++) {
        struct counts c = {.failures = 1};
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
