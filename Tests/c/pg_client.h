/* A few libpq calls for the tests that check a PostgreSQL store from outside the
 * library: reading its tables with plain SQL, watching the server's backends and
 * dropping a test's schema. libpq.so.5 is loaded on first use (as the library
 * loads it), so nothing here needs libpq's headers or a link to it; when it cannot
 * be loaded, pgc_connect returns NULL and says why.
 *
 * Header-only; each program that includes it gets its own copy. Not thread-safe
 * while loading; use one connection per thread. */
#ifndef OG_TESTS_PG_CLIENT_H
#define OG_TESTS_PG_CLIENT_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pgc_conn pgc_conn; /* libpq's PGconn */
typedef struct pgc_result pgc_result; /* libpq's PGresult */

static struct {
    int loaded; /* 0 not tried, 1 loaded, -1 failed */
    pgc_conn *(*connectdb)(const char *);
    int (*status)(const pgc_conn *);
    char *(*error_message)(const pgc_conn *);
    void (*finish)(pgc_conn *);
    pgc_result *(*exec_params)(pgc_conn *, const char *, int, const unsigned *, const char *const *, const int *, const int *, int);
    int (*result_status)(const pgc_result *);
    char *(*result_error_message)(const pgc_result *);
    int (*ntuples)(const pgc_result *);
    char *(*getvalue)(const pgc_result *, int, int);
    int (*getisnull)(const pgc_result *, int, int);
    void (*clear)(pgc_result *);
    void *(*set_notice_processor)(pgc_conn *, void (*)(void *, const char *), void *);
} pgc;

static inline void pgc_quiet(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static inline int pgc_load(char *why, size_t n) {
    if (pgc.loaded) {
        if (pgc.loaded < 0) snprintf(why, n, "libpq.so.5 could not be loaded");
        return pgc.loaded > 0;
    }
    pgc.loaded = -1;
    void *h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, n, "cannot load libpq.so.5: %s", dlerror());
        return 0;
    }
#define PGC_SYM(field, name)                                                   \
    do {                                                                       \
        *(void **)&pgc.field = dlsym(h, name);                                 \
        if (!pgc.field) {                                                      \
            snprintf(why, n, "libpq.so.5 has no %s", name);                    \
            return 0;                                                          \
        }                                                                      \
    } while (0)
    PGC_SYM(connectdb, "PQconnectdb");
    PGC_SYM(status, "PQstatus");
    PGC_SYM(error_message, "PQerrorMessage");
    PGC_SYM(finish, "PQfinish");
    PGC_SYM(exec_params, "PQexecParams");
    PGC_SYM(result_status, "PQresultStatus");
    PGC_SYM(result_error_message, "PQresultErrorMessage");
    PGC_SYM(ntuples, "PQntuples");
    PGC_SYM(getvalue, "PQgetvalue");
    PGC_SYM(getisnull, "PQgetisnull");
    PGC_SYM(clear, "PQclear");
    PGC_SYM(set_notice_processor, "PQsetNoticeProcessor");
#undef PGC_SYM
    pgc.loaded = 1;
    return 1;
}

/* A connection to `url`, or NULL with the reason in `why`. */
static inline pgc_conn *pgc_connect(const char *url, char *why, size_t n) {
    if (!pgc_load(why, n)) return NULL;
    pgc_conn *c = pgc.connectdb(url);
    if (!c || pgc.status(c) != 0 /* CONNECTION_OK */) {
        snprintf(why, n, "cannot connect: %s", c ? pgc.error_message(c) : "out of memory");
        if (c) pgc.finish(c);
        return NULL;
    }
    pgc.set_notice_processor(c, pgc_quiet, NULL);
    return c;
}

static inline void pgc_close(pgc_conn *c) {
    if (c) pgc.finish(c);
}

/* Runs `sql` with `nparams` text parameters ($1…); the result, or NULL with the
 * server's message in `why` (a failed result is cleared). */
static inline pgc_result *pgc_query(pgc_conn *c, const char *sql, int nparams, const char *const *params, char *why, size_t n) {
    pgc_result *r = pgc.exec_params(c, sql, nparams, NULL, params, NULL, NULL, 0);
    int status = r ? pgc.result_status(r) : -1;
    if (status == 1 /* PGRES_COMMAND_OK */ || status == 2 /* PGRES_TUPLES_OK */) return r;
    snprintf(why, n, "%s", r ? pgc.result_error_message(r) : pgc.error_message(c));
    size_t len = strlen(why);
    while (len > 0 && (why[len - 1] == '\n' || why[len - 1] == ' ')) why[--len] = 0;
    if (r) pgc.clear(r);
    return NULL;
}

static inline int pgc_rows(const pgc_result *r) { return pgc.ntuples(r); }
static inline const char *pgc_text(const pgc_result *r, int row, int column) { return pgc.getvalue(r, row, column); }
static inline long long pgc_int(const pgc_result *r, int row, int column) {
    return pgc.getisnull(r, row, column) ? 0 : strtoll(pgc.getvalue(r, row, column), NULL, 10);
}
static inline int pgc_is_null(const pgc_result *r, int row, int column) { return pgc.getisnull(r, row, column); }
static inline void pgc_clear(pgc_result *r) {
    if (r) pgc.clear(r);
}

/* The first column of the first row of `sql` as an integer; -1 on failure. */
static inline long long pgc_scalar(pgc_conn *c, const char *sql, int nparams, const char *const *params, char *why, size_t n) {
    pgc_result *r = pgc_query(c, sql, nparams, params, why, n);
    if (!r) return -1;
    long long v = pgc_rows(r) > 0 ? pgc_int(r, 0, 0) : -1;
    pgc_clear(r);
    return v;
}

/* Drops the schema `name` (letters, digits and underscores) and all it holds. */
static inline int pgc_drop_schema(const char *url, const char *name, char *why, size_t n) {
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) {
            snprintf(why, n, "not a plain schema name: %s", name);
            return 0;
        }
    pgc_conn *c = pgc_connect(url, why, n);
    if (!c) return 0;
    char sql[256];
    snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS \"%s\" CASCADE", name);
    pgc_result *r = pgc_query(c, sql, 0, NULL, why, n);
    pgc_clear(r);
    pgc_close(c);
    return r != NULL;
}

#endif
