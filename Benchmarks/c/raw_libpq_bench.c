/*
 * The floor of the postgres workload: main's insert and fetch + read written
 * directly against libpq, no objects. The table is item (id bigint PRIMARY KEY,
 * a0 … a9 bigint) in the run's schema, made before the timing.
 *
 * insert (timed): PQprepare of INSERT INTO item (id, a0, …, a9) VALUES ($1, …, $11),
 *   BEGIN, one PQexecPrepared per row with the id and the ten values, COMMIT.
 * fetch + read (timed): PQprepare of SELECT a0, …, a9 FROM item, one PQexecPrepared
 *   returning every row, every value of every row read and summed. The result is
 *   freed after the timing, as the other contenders release their objects.
 *
 * Parameters and results are in libpq's binary format (8-byte big-endian integers,
 * parameter types int8): nothing is printed or parsed as text on either side. Built
 * with -DRAW_LIBPQ_TEXT_FORMAT it sends and reads decimal text instead, as
 * ObjectGraph's PostgreSQL store does (for comparison; scripts/bench.sh builds the
 * binary form).
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

static void prepare(PGconn *conn, const char *name, const char *sql, int count) {
    Oid types[ATTRIBUTES + 1];
    for (int k = 0; k < count; k++) types[k] = INT8_OID;
    PGresult *result = PQprepare(conn, name, sql, count, types);
    if (PQresultStatus(result) != PGRES_COMMAND_OK) fail_pq(conn, "prepare", result);
    PQclear(result);
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

    enum { PARAMETERS = ATTRIBUTES + 1 };
    const char *values[PARAMETERS];
    int lengths[PARAMETERS], formats[PARAMETERS];
#ifdef RAW_LIBPQ_TEXT_FORMAT
    char text[PARAMETERS][24];
    for (int k = 0; k < PARAMETERS; k++) values[k] = text[k], formats[k] = FORMAT, lengths[k] = 0;
#else
    uint64_t big[PARAMETERS]; /* big-endian int8s */
    for (int k = 0; k < PARAMETERS; k++) values[k] = (const char *)&big[k], formats[k] = FORMAT, lengths[k] = 8;
#endif

    double start = now();
    prepare(conn, "insert_item",
            "INSERT INTO item (id, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            PARAMETERS);
    run(conn, "BEGIN");
    for (long i = 0; i < count; i++) {
#ifdef RAW_LIBPQ_TEXT_FORMAT
        snprintf(text[0], sizeof text[0], "%ld", i + 1);
        for (int k = 0; k < ATTRIBUTES; k++) snprintf(text[k + 1], sizeof text[k + 1], "%lld", (long long)value(i, k));
#else
        big[0] = htobe64((uint64_t)(i + 1));
        for (int k = 0; k < ATTRIBUTES; k++) big[k + 1] = htobe64((uint64_t)value(i, k));
#endif
        PGresult *result = PQexecPrepared(conn, "insert_item", PARAMETERS, values, lengths, formats, FORMAT);
        if (PQresultStatus(result) != PGRES_COMMAND_OK) fail_pq(conn, "insert", result);
        PQclear(result);
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
    char about[64];
    int version = PQlibVersion();
    snprintf(about, sizeof about, "libpq %d.%d, " FORMAT_NAME " format", version / 10000, version % 10000);
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
