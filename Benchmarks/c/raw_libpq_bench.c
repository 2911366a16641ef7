/*
 * The floor of the postgres workload: main's insert and fetch + read written
 * directly against libpq, no objects. The table is item (id bigint PRIMARY KEY,
 * a0 … a9 bigint) in the run's schema, made before the timing.
 *
 * insert (timed): PQprepare of INSERT INTO item (id, a0, …, a9) VALUES of 256 rows
 *   ($1 … $2816), BEGIN, one PQexecPrepared per 256 rows (the rows' ids and values),
 *   the rows left at the end by one more prepared statement of their number, COMMIT.
 *   Many rows to a statement, as ObjectGraph's store sends them: one row per
 *   statement is a round trip per row, about 8 times as long here.
 * fetch + read (timed): PQprepare of SELECT a0, …, a9 FROM item, one PQexecPrepared
 *   returning every row, every value of every row read and summed. The result is
 *   freed after the timing, as the other contenders release their objects.
 *
 * Parameters and results are in libpq's binary format (8-byte big-endian integers,
 * parameter types int8): nothing is printed or parsed as text on either side.
 * Built with -DRAW_LIBPQ_TEXT_FORMAT it sends and reads decimal text instead, as
 * ObjectGraph's PostgreSQL store does, and with -DRAW_LIBPQ_ROWS=R it sends R rows
 * to a statement (for comparisons; scripts/bench.sh builds the defaults).
 *
 * Runs the postgres workload only (main_workload.h's loop, `--workload postgres`), on
 * the server of $OBJECTGRAPH_BENCH_POSTGRES_URL. Build:
 *   cc -O2 -I/usr/include/postgresql raw_libpq_bench.c -lpq -o raw_libpq_bench
 * (or `pkg-config --cflags --libs libpq`).
 */
#define _DEFAULT_SOURCE
#define BENCH_PROGRAM "raw-libpq"
#include "main_workload.h"

#include <endian.h>
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RAW_LIBPQ_TEXT_FORMAT
enum { FORMAT = 0 };
#define FORMAT_NAME "text"
#else
enum { FORMAT = 1 };
#define FORMAT_NAME "binary"
#endif

#ifndef RAW_LIBPQ_ROWS
#define RAW_LIBPQ_ROWS 256
#endif
/* Rows per INSERT: one prepared statement of that many rows, executed for each group of
 * rows, and one more for the rows left at the end. */
enum { ROWS_PER_STATEMENT = RAW_LIBPQ_ROWS, PER_ROW = ATTRIBUTES + 1 };

enum { INT8_OID = 20 };

static void fail_pq(PGconn *conn, const char *what, PGresult *result) {
    const char *message = result ? PQresultErrorMessage(result) : PQerrorMessage(conn);
    fprintf(stderr, BENCH_PROGRAM ": %s: %s", what, message && *message ? message : "failed\n");
    exit(1);
}

/* A connection to the store's database with the store's schema as its search path. */
static PGconn *connect_to(const bench_store *store) {
    PGconn *conn = PQconnectdb(store->path);
    if (!conn || PQstatus(conn) != CONNECTION_OK) fail_pq(conn, "connect", NULL);
    char sql[256];
    snprintf(sql, sizeof sql, "SET client_min_messages = warning; SET search_path TO \"%s\"", store->schema);
    PGresult *result = PQexec(conn, sql);
    if (PQresultStatus(result) != PGRES_COMMAND_OK) fail_pq(conn, "search_path", result);
    PQclear(result);
    return conn;
}

static void run(PGconn *conn, const char *sql) {
    PGresult *result = PQexec(conn, sql);
    if (PQresultStatus(result) != PGRES_COMMAND_OK) fail_pq(conn, sql, result);
    PQclear(result);
}

/* Prepares `sql` with `count` parameters, all int8. */
static void prepare(PGconn *conn, const char *name, const char *sql, int count) {
    static Oid types[ROWS_PER_STATEMENT * PER_ROW];
    for (int k = 0; k < count; k++) types[k] = INT8_OID;
    PGresult *result = PQprepare(conn, name, sql, count, count ? types : NULL);
    if (PQresultStatus(result) != PGRES_COMMAND_OK) fail_pq(conn, "prepare", result);
    PQclear(result);
}

/* Binds row i (its id and ten values) as the parameters from `first`. */
static void bind_row(long i, int first, uint64_t *big, char (*text)[24]) {
#ifdef RAW_LIBPQ_TEXT_FORMAT
    (void)big;
    snprintf(text[first], sizeof text[first], "%ld", i + 1);
    for (int k = 0; k < ATTRIBUTES; k++) snprintf(text[first + 1 + k], sizeof text[first + 1 + k], "%lld", (long long)value(i, k));
#else
    (void)text;
    big[first] = htobe64((uint64_t)(i + 1));
    for (int k = 0; k < ATTRIBUTES; k++) big[first + 1 + k] = htobe64((uint64_t)value(i, k));
#endif
}

/* Prepares `name`: INSERT INTO item (id, a0, …, a9) VALUES of `rows` rows. */
static void prepare_insert(PGconn *conn, const char *name, int rows) {
    size_t size = 128 + (size_t)rows * PER_ROW * 8;
    char *sql = malloc(size), *end = sql;
    if (!sql) { fprintf(stderr, BENCH_PROGRAM ": out of memory\n"); exit(1); }
    end += sprintf(end, "INSERT INTO item (id, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) VALUES ");
    for (int r = 0, p = 1; r < rows; r++) {
        *end++ = r ? ',' : ' ';
        *end++ = '(';
        for (int c = 0; c < PER_ROW; c++, p++) end += sprintf(end, c ? ", $%d" : "$%d", p);
        *end++ = ')';
    }
    *end = '\0';
    prepare(conn, name, sql, rows * PER_ROW);
    free(sql);
}

/* Creates the schema and the table (not timed), then times inserting `count` rows. */
static double insert(const bench_store *store, long count) {
    PGconn *conn = connect_to(store);
    char sql[512];
    snprintf(sql, sizeof sql,
             "CREATE SCHEMA IF NOT EXISTS \"%s\"; CREATE TABLE \"%s\".item (id bigint PRIMARY KEY, a0 bigint, "
             "a1 bigint, a2 bigint, a3 bigint, a4 bigint, a5 bigint, a6 bigint, a7 bigint, a8 bigint, a9 bigint)",
             store->schema, store->schema);
    run(conn, sql);

    enum { PARAMETERS = ROWS_PER_STATEMENT * PER_ROW };
    static const char *values[PARAMETERS];
    static int lengths[PARAMETERS], formats[PARAMETERS];
    static uint64_t big[PARAMETERS];  /* binary: big-endian int8s */
    static char text[PARAMETERS][24]; /* text: decimal digits */
    for (int p = 0; p < PARAMETERS; p++) {
        values[p] = FORMAT ? (const char *)&big[p] : text[p];
        lengths[p] = FORMAT ? 8 : 0;
        formats[p] = FORMAT;
    }

    double start = now();
    long full = count / ROWS_PER_STATEMENT, tail = count % ROWS_PER_STATEMENT;
    if (full) prepare_insert(conn, "insert_rows", ROWS_PER_STATEMENT);
    if (tail) prepare_insert(conn, "insert_tail", (int)tail);
    run(conn, "BEGIN");
    for (long i = 0; i < count;) {
        int rows = i + ROWS_PER_STATEMENT <= count ? ROWS_PER_STATEMENT : (int)tail;
        for (int r = 0; r < rows; r++) bind_row(i + r, r * PER_ROW, big, text);
        PGresult *result = PQexecPrepared(conn, rows == ROWS_PER_STATEMENT ? "insert_rows" : "insert_tail", rows * PER_ROW,
                                          values, lengths, formats, FORMAT);
        if (PQresultStatus(result) != PGRES_COMMAND_OK) fail_pq(conn, "insert", result);
        PQclear(result);
        i += rows;
    }
    run(conn, "COMMIT");
    double elapsed = now() - start;
    PQfinish(conn);
    return elapsed;
}

/* Connects (not timed), then times fetching every row and summing every value. */
static double fetch(const bench_store *store, int64_t *sum, size_t *count) {
    PGconn *conn = connect_to(store);
    double start = now();
    prepare(conn, "select_items", "SELECT a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 FROM item", 0);
    PGresult *result = PQexecPrepared(conn, "select_items", 0, NULL, NULL, NULL, FORMAT);
    if (PQresultStatus(result) != PGRES_TUPLES_OK) fail_pq(conn, "select", result);
    int rows = PQntuples(result);
    uint64_t total = 0; /* unsigned: wraps like the other contenders' &+ */
    for (int r = 0; r < rows; r++) {
        for (int k = 0; k < ATTRIBUTES; k++) {
#ifdef RAW_LIBPQ_TEXT_FORMAT
            total += (uint64_t)strtoll(PQgetvalue(result, r, k), NULL, 10);
#else
            uint64_t v;
            memcpy(&v, PQgetvalue(result, r, k), sizeof v);
            total += be64toh(v);
#endif
        }
    }
    double elapsed = now() - start;
    PQclear(result);
    PQfinish(conn);
    *sum = (int64_t)total;
    *count = (size_t)rows;
    return elapsed;
}

int main(int argc, char **argv) {
    char about[96];
    int version = PQlibVersion();
    snprintf(about, sizeof about, "libpq %d.%d, " FORMAT_NAME " format, %d rows per INSERT", version / 10000, version % 10000,
             ROWS_PER_STATEMENT);
    const bench_contender contender = {
        .name = "raw-libpq",
        .table = "item",
        .columns = {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"},
        .files = 0,
        .postgres = 1,
        .insert = insert,
        .fetch = fetch,
        .about = about,
    };
    return bench_main(&contender, argc, argv);
}
