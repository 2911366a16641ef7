/*
 * The loop of the C programs of main's two phases (og_bench.c, raw_libpq_bench.c), as
 * Worker.swift and python/bench_common.py: takes the runner's flags, fills the fetch
 * store (not timed), runs the warm-up and timed runs (an insert into a new, empty store,
 * then the fetch), and prints the report (Benchmarks/README.md, "The report") as the
 * last line of standard output.
 *
 * main keeps its stores in files in --dir. `--workload postgres` keeps them in schemas of
 * the database at $OBJECTGRAPH_BENCH_POSTGRES_URL, named as Workloads/PostgresWorkload.swift
 * names them: ogbench_<name>_fetch, and ogbench_<name>_insert_<run> for each run's insert
 * (run from 1, warm-up first; '-' in the name spelled '_'). The runner drops them before
 * and after the program.
 *
 * Static functions: included once, by one program, which defines its contender.
 */
#ifndef OG_MAIN_WORKLOAD_H
#define OG_MAIN_WORKLOAD_H

#include "bench_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ATTRIBUTES = 10 };

#define POSTGRES_URL_VARIABLE "OBJECTGRAPH_BENCH_POSTGRES_URL"

/* Where a store is: an SQLite file, or a schema of a PostgreSQL database. */
typedef struct {
    const char *type; /* ObjectGraph's store type: "SQLite" or "PostgreSQL" */
    char path[4096];  /* the file, or the server's libpq URL */
    char schema[96];  /* PostgreSQL: the schema holding the tables; "" for a file */
} bench_store;

/* One contender: its two timed phases, and where its inserted rows are. */
typedef struct {
    const char *name;  /* its id (naming its files and schemas) and its messages' prefix */
    const char *table; /* the table and columns of its inserted rows, for the runner's check */
    const char *columns[ATTRIBUTES];
    int files;    /* runs main (SQLite files) */
    int postgres; /* runs the postgres workload */
    /* Creates the store (not timed), then times inserting `count` items and committing. */
    double (*insert)(const bench_store *store, long count);
    /* Opens the store (not timed), then times fetching every item and summing every value. */
    double (*fetch)(const bench_store *store, int64_t *sum, size_t *count);
    const char *about; /* versions, printed under the table; may be NULL */
} bench_contender;

/* The value of attribute k of object i, as in Workload.swift. */
static int64_t value(long i, int k) { return (int64_t)i * 10 + k; }

/* The store of `role` ("fetch", or "insert" of the run `run`, from 0). */
static void bench_store_at(bench_store *s, const bench_contender *c, const char *dir, const char *url, const char *role, long run) {
    if (!url) {
        s->type = "SQLite";
        snprintf(s->path, sizeof s->path, "%s/%s-%s.sqlite", dir, c->name, role);
        s->schema[0] = '\0';
        return;
    }
    s->type = "PostgreSQL";
    if ((size_t)snprintf(s->path, sizeof s->path, "%s", url) >= sizeof s->path) {
        fprintf(stderr, "%s: the PostgreSQL URL is too long\n", c->name);
        exit(2);
    }
    char name[32];
    snprintf(name, sizeof name, "%s", c->name);
    for (char *p = name; *p; p++)
        if (*p == '-') *p = '_';
    if (!strcmp(role, "insert")) snprintf(s->schema, sizeof s->schema, "ogbench_%s_insert_%ld", name, run + 1);
    else snprintf(s->schema, sizeof s->schema, "ogbench_%s_%s", name, role);
}

/* A file is removed before it is made again; a schema is new (the runner drops them). */
static void bench_store_clear(const bench_store *s) {
    if (!s->schema[0]) remove_store(s->path);
}

static void print_seconds(const char *key, const double *values, long n, const char *end) {
    printf("\"%s\":[", key);
    for (long i = 0; i < n; i++) printf("%s%.9f", i ? "," : "", values[i]);
    printf("]%s", end);
}

static int bench_skip(const char *reason) {
    printf("{\"skipped\":");
    print_string(reason);
    printf("}\n");
    return 0;
}

static int bench_main(const bench_contender *c, int argc, char **argv) {
    long n = 50000, rows = 200000, runs = 5, warmup = 1;
    const char *dir = NULL, *workload = "main";
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *flag = argv[i], *arg = argv[i + 1];
        if (!strcmp(flag, "--n")) n = number(flag, arg);
        else if (!strcmp(flag, "--fetch-rows")) rows = number(flag, arg);
        else if (!strcmp(flag, "--runs")) runs = number(flag, arg);
        else if (!strcmp(flag, "--warmup")) warmup = number(flag, arg);
        else if (!strcmp(flag, "--dir")) dir = arg;
        else if (!strcmp(flag, "--workload")) workload = arg;
        else { fprintf(stderr, "%s: unknown option '%s'\n", c->name, flag); return 2; }
    }
    if (!dir || runs < 1) { fprintf(stderr, "%s: needs --dir and --runs >= 1\n", c->name); return 2; }
    const char *url = NULL;
    if (!strcmp(workload, "postgres")) {
        if (!c->postgres) return bench_skip("no postgres workload");
        url = getenv(POSTGRES_URL_VARIABLE);
        if (!url || !*url) return bench_skip("no PostgreSQL server: " POSTGRES_URL_VARIABLE " is not set");
    } else if (strcmp(workload, "main") || !c->files) {
        char reason[128];
        snprintf(reason, sizeof reason, "no %s workload", workload);
        return bench_skip(reason);
    }

    bench_store fetch_store, insert_store;
    bench_store_at(&fetch_store, c, dir, url, "fetch", 0);
    bench_store_clear(&fetch_store);
    c->insert(&fetch_store, rows); /* preparation, not timed */

    double *insert_s = calloc((size_t)runs, sizeof *insert_s), *fetch_s = calloc((size_t)runs, sizeof *fetch_s);
    int64_t *sums = calloc((size_t)runs, sizeof *sums);
    size_t *counts = calloc((size_t)runs, sizeof *counts);
    if (!insert_s || !fetch_s || !sums || !counts) { fprintf(stderr, "%s: out of memory\n", c->name); return 1; }
    for (long run = 0; run < warmup + runs; run++) {
        bench_store_at(&insert_store, c, dir, url, "insert", run);
        bench_store_clear(&insert_store);
        double ti = c->insert(&insert_store, n);
        int64_t sum;
        size_t count;
        double tf = c->fetch(&fetch_store, &sum, &count);
        if (run < warmup) {
            fprintf(stderr, "%s: warm-up: insert %.1f ms, fetch %.1f ms\n", c->name, ti * 1e3, tf * 1e3);
            continue;
        }
        long r = run - warmup;
        fprintf(stderr, "%s: run %ld/%ld: insert %.1f ms, fetch %.1f ms\n", c->name, r + 1, runs, ti * 1e3, tf * 1e3);
        insert_s[r] = ti, fetch_s[r] = tf, sums[r] = sum, counts[r] = count;
    }
    bench_store_clear(&fetch_store); /* the last insert's store stays for the runner's check */

    printf("{");
    print_seconds("insert_seconds", insert_s, runs, ",");
    print_seconds("fetch_seconds", fetch_s, runs, ",");
    printf("\"fetch_sums\":[");
    for (long i = 0; i < runs; i++) printf("%s%lld", i ? "," : "", (long long)sums[i]);
    printf("],\"fetch_counts\":[");
    for (long i = 0; i < runs; i++) printf("%s%zu", i ? "," : "", counts[i]);
    printf("],");
    if (insert_store.schema[0]) {
        printf("\"insert_schema\":");
        print_string(insert_store.schema);
    } else {
        printf("\"insert_file\":");
        print_string(insert_store.path);
    }
    printf(",\"insert_table\":");
    print_string(c->table);
    printf(",\"insert_columns\":[");
    for (int k = 0; k < ATTRIBUTES; k++) {
        if (k) putchar(',');
        print_string(c->columns[k]);
    }
    printf("]");
    if (c->about) {
        printf(",\"about\":");
        print_string(c->about);
    }
    printf("}\n");
    free(insert_s), free(fetch_s), free(sums), free(counts);
    return 0;
}

#endif
