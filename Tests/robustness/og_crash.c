/*
 * og_crash — crash-safety and I/O-fault tests of saves (docs/testing.md).
 *
 *   og_crash write  --type T --dir D --seed S [--saves N]
 *       A writer: saves self-checking batches in a loop into the store D/store.<t>
 *       (SQLite or Binary) until killed or N saves were tried. Each save makes
 *       batch k: a Group (batch k, count n, payload size s, version k) and n Items
 *       (batch k, count n, index i, version k, a payload of s bytes computed from
 *       batch, index and size) linked to it; it may also delete an earlier batch
 *       (the group cascades to its items) and update another (every item and the
 *       group get version k). Before the save the writer appends the intent
 *       "TRY k n s del upd" to D/log and fsyncs it; AFTER og_context_save returns
 *       it appends "ACK k" (or "FAIL k code") and fsyncs again, so an ACK line
 *       means the caller was told the save succeeded.
 *
 *   og_crash verify --type T --dir D
 *       Checks the store against the log: SQLite's integrity check passes; every
 *       batch is whole (group and items agree on count, size, version, payload,
 *       no orphan items); every acknowledged batch that no acknowledged save
 *       deleted is present with the version the acknowledged saves gave it; no
 *       deleted batch is back; the save in flight at the kill is all or nothing;
 *       a failed save left nothing (one that did is counted as a "ghost"); the
 *       store reopens and saves (a probe object is saved and deleted). Exit 0 when
 *       all hold, 1 when one does not (each printed as "VIOLATION ..."), 2 when
 *       the store does not open.
 *
 *   og_crash kills  --type T|both --dir D [--kills N] [--seconds S] [--seed S]
 *       The crash-safety test: runs writers and SIGKILLs them at random moments
 *       (often during saves, sometimes while the store is created), verifying
 *       after each kill. Starts a fresh store now and then.
 *
 *   og_crash kills  --type PostgreSQL --dir D [--url URL] [--schema S] [--items N]
 *                   [--max-delay MS] [--terminate PERCENT] [--kills N] [--seconds S] [--seed S]
 *       The same against a PostgreSQL store: the server at URL (default
 *       OBJECTGRAPH_TEST_POSTGRES_URL; without either it reports itself skipped,
 *       77), the store in the schema S_<n> (default og_crash_<pid>_<n>; n counts
 *       fresh stores; the last is dropped at the end unless a check failed), the
 *       log and outputs in D. Saves are large: most insert N/2 to N items (default
 *       20,000) and update every object of an earlier batch (up to N more rows),
 *       and kills land up to MS milliseconds (default 6,000) after the writer
 *       starts. In PERCENT of the runs (default 0) the writer's server connection
 *       is also cut (pg_terminate_backend) before the kill: the save under way
 *       must fail with 134030 and leave nothing, and the writer must save again
 *       on a new connection. The verifier first waits for the killed writer's
 *       server backend to end (a COMMIT sent before the kill may still land), then
 *       checks the store with plain SQL over a connection of its own (per batch:
 *       the group and as many items as its count, all of its version, indexes 0
 *       to count-1, all linked to the group; the key counters above every key)
 *       as well as through the library as above. Writers and verifiers take
 *       --type PostgreSQL --url URL --schema S_<n> [--items N]. The writer also
 *       logs "SAVE k" as it calls og_context_save, and the driver prints one line
 *       per kill: where it landed (between saves, while a batch's objects were
 *       made, inside og_context_save) and whether the batch in flight was found
 *       whole or absent.
 *
 *   og_crash creation --type T|both --dir D [--runs N] [--seconds S] [--seed S]
 *       Kills while a store is created: each run starts a writer on a new folder and
 *       SIGKILLs it within 30 ms of the moment it starts adding the store (it marks
 *       that moment with the file D/opening), then checks that the store opens and
 *       takes a save (the verifier). A store its creation left half made must open.
 *
 *   og_crash faults --type T|both --dir D --shim LIB [--runs N] [--seconds S] [--seed S]
 *       The I/O-fault test: runs writers under LIB (libog_iofault.so, LD_PRELOAD)
 *       with the Nth write/pwrite/fsync/fdatasync/ftruncate/rename on the store's
 *       files failing (EIO or ENOSPC, once or from then on), then verifies without
 *       the shim. A writer that crashes instead of reporting the error is a finding.
 *
 * The drivers (kills, faults) never call the library: they spawn writers and
 * verifiers (this program again) and read their exit status and output.
 * Each driver prints one line per problem and ends with a summary line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "objectgraph.h"
#include "pg_client.h"

extern char **environ;

/* --type PostgreSQL: the server, the schema holding the store, and the size of a
 * large save. A writer's connections carry the application name ogw_<schema>, so
 * that the verifier can wait for a killed writer's backend to end, and the driver
 * can cut its connection. */
static const char *pg_url;
static char pg_schema[64];
static long large_items = 20000;

static bool is_postgres(const char *type) { return strcmp(type, "PostgreSQL") == 0; }

static void writer_application(char *out, size_t n) { snprintf(out, n, "ogw_%s", pg_schema); }

/* pg_url with the writer's application name. */
static void writer_url(char *out, size_t n) {
    char app[96];
    writer_application(app, sizeof app);
    if (!strncmp(pg_url, "postgresql://", 13) || !strncmp(pg_url, "postgres://", 11))
        snprintf(out, n, "%s%sapplication_name=%s", pg_url, strchr(pg_url, '?') ? "&" : "?", app);
    else
        snprintf(out, n, "%s application_name=%s", pg_url, app);
}

static const char model_json[] =
    "{\"format\":\"objectgraph-model\",\"formatVersion\":1,\"versionIdentifiers\":[\"crash\"],\"entities\":["
    "{\"name\":\"Group\",\"attributes\":["
    "{\"name\":\"batch\",\"type\":\"integer64\",\"optional\":false,\"default\":0},"
    "{\"name\":\"count\",\"type\":\"integer64\",\"optional\":false,\"default\":0},"
    "{\"name\":\"size\",\"type\":\"integer64\",\"optional\":false,\"default\":0},"
    "{\"name\":\"version\",\"type\":\"integer64\",\"optional\":false,\"default\":0}],"
    "\"relationships\":[{\"name\":\"items\",\"destination\":\"Item\",\"toMany\":true,\"inverse\":\"group\",\"deleteRule\":\"cascade\"}]},"
    "{\"name\":\"Item\",\"attributes\":["
    "{\"name\":\"batch\",\"type\":\"integer64\",\"optional\":false,\"default\":0},"
    "{\"name\":\"count\",\"type\":\"integer64\",\"optional\":false,\"default\":0},"
    "{\"name\":\"index\",\"type\":\"integer64\",\"optional\":false,\"default\":0},"
    "{\"name\":\"version\",\"type\":\"integer64\",\"optional\":false,\"default\":0},"
    "{\"name\":\"name\",\"type\":\"string\"},"
    "{\"name\":\"payload\",\"type\":\"binary\"}],"
    "\"relationships\":[{\"name\":\"group\",\"destination\":\"Group\",\"inverse\":\"items\",\"deleteRule\":\"nullify\"}]},"
    "{\"name\":\"Probe\",\"attributes\":[{\"name\":\"note\",\"type\":\"string\"}]}]}";

/* ---- small helpers ------------------------------------------------------ */

static void die(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(3);
}

static uint64_t rng_state;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *store_name(const char *type) { return strcmp(type, "SQLite") == 0 ? "store.sqlite" : "store.binary"; }

static void store_path(char *out, size_t n, const char *dir, const char *type) { snprintf(out, n, "%s/%s", dir, store_name(type)); }

static uint8_t payload_byte(int64_t batch, int64_t index, size_t i) {
    return (uint8_t)(batch * 131 + index * 29 + (int64_t)i * 7 + (int64_t)(i >> 8));
}

/* ---- the log -------------------------------------------------------------- */

#define MAX_BATCHES 200000
typedef struct {
    bool tried, acked, failed;
    bool saving; /* a PostgreSQL writer's "SAVE k": og_context_save was called */
    int64_t n, size, del, upd;
} entry;
static entry *log_entries;
static int64_t log_max;

static void log_append(const char *dir, const char *format, ...) {
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/log", dir);
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) die("cannot open %s: %s", path, strerror(errno));
    if (write(fd, line, (size_t)n) != n || fsync(fd) != 0) die("cannot write %s: %s", path, strerror(errno));
    close(fd);
}

/* Reads D/log; a last line without its newline (a kill while writing it) is ignored. */
static void log_read(const char *dir) {
    if (!log_entries) log_entries = calloc(MAX_BATCHES, sizeof *log_entries);
    memset(log_entries, 0, MAX_BATCHES * sizeof *log_entries);
    log_max = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/log", dir);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strchr(line, '\n')) break;
        long long k, n, s, d, u;
        if (sscanf(line, "TRY %lld %lld %lld %lld %lld", &k, &n, &s, &d, &u) == 5 && k > 0 && k < MAX_BATCHES) {
            log_entries[k] = (entry){.tried = true, .n = n, .size = s, .del = d, .upd = u};
            if (k > log_max) log_max = k;
        } else if (sscanf(line, "ACK %lld", &k) == 1 && k > 0 && k < MAX_BATCHES) {
            log_entries[k].acked = true;
        } else if (sscanf(line, "FAIL %lld", &k) == 1 && k > 0 && k < MAX_BATCHES) {
            log_entries[k].failed = true;
        } else if (sscanf(line, "SAVE %lld", &k) == 1 && k > 0 && k < MAX_BATCHES) {
            log_entries[k].saving = true;
        }
    }
    fclose(f);
}

/* ---- the library side ------------------------------------------------------ */

static og_model *model;

static og_coordinator *open_store(const char *type, const char *path, og_error **error) {
    if (!model) {
        og_error *e = NULL;
        model = og_model_from_json(model_json, &e);
        if (!model) die("the model does not load: %s", og_error_message(e));
    }
    og_coordinator *c = og_coordinator_new(model, error);
    if (!c) return NULL;
    bool added;
    if (is_postgres(type)) {
        const char *keys[] = {OG_OPTION_POSTGRESQL_SCHEMA};
        og_value *values[] = {og_value_new_string(pg_schema, error)};
        og_value *options = values[0] ? og_value_new_dictionary(keys, values, 1, error) : NULL;
        added = options && og_coordinator_add_store_with_options(c, type, NULL, path, options, error);
        og_value_release(options);
        og_value_release(values[0]);
    } else {
        added = og_coordinator_add_store(c, type, path, error) != NULL;
    }
    if (!added) {
        og_coordinator_release(c);
        return NULL;
    }
    return c;
}

static og_results *fetch(og_context *ctx, const char *entity, const char *format, int64_t arg, og_error **error) {
    og_fetch_request *r = og_fetch_request_new(entity, error);
    if (!r) return NULL;
    if (format) {
        og_value *v = og_value_new_int64(arg);
        og_predicate *p = og_predicate_parse(format, &v, 1, error);
        og_value_release(v);
        if (!p || og_fetch_request_set_predicate(r, p, error) != OG_OK) {
            og_predicate_release(p);
            og_fetch_request_release(r);
            return NULL;
        }
        og_predicate_release(p);
    }
    og_results *res = og_context_fetch(ctx, r, error);
    og_fetch_request_release(r);
    return res;
}

static int64_t get(og_object *o, const char *key) {
    int64_t v = -1;
    og_error *e = NULL;
    if (og_object_get_int64(o, key, &v, &e) != OG_OK) {
        fprintf(stderr, "reading %s: %s\n", key, og_error_message(e));
        og_error_release(e);
        return INT64_MIN;
    }
    return v;
}

/* ---- write ----------------------------------------------------------------- */

static int cmd_write(const char *type, const char *dir, uint64_t seed, long saves) {
    rng_state = seed;
    char path[4096];
    bool pg = is_postgres(type);
    if (pg) writer_url(path, sizeof path);
    else store_path(path, sizeof path, dir, type);
    og_error *e = NULL;
    /* The creation test kills the writer soon after this mark. */
    char mark[4300];
    snprintf(mark, sizeof mark, "%s/opening", dir);
    int fd = open(mark, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) close(fd);
    og_coordinator *c = open_store(type, path, &e);
    if (!c) die("writer: cannot open the store: %lld %s", (long long)og_error_code(e), og_error_message(e));
    og_context *ctx = og_context_new(c, &e);
    if (!ctx) die("writer: no context: %s", og_error_message(e));
    /* The live batches and the next batch number, from the store and the log. */
    log_read(dir);
    static int64_t live[MAX_BATCHES];
    size_t live_n = 0;
    int64_t next = log_max + 1;
    og_results *groups = fetch(ctx, "Group", NULL, 0, &e);
    if (!groups) die("writer: cannot fetch: %s", og_error_message(e));
    for (size_t i = 0; i < og_results_count(groups); i++) {
        int64_t b = get(og_results_object_at(groups, i, NULL), "batch");
        if (b >= next) next = b + 1;
        if (live_n < MAX_BATCHES) live[live_n++] = b;
    }
    og_results_release(groups);
    og_context_reset(ctx, NULL);
    int failures = 0;
    static uint8_t payload[1 << 16];
    for (long attempt = 0; saves <= 0 || attempt < saves; attempt++) {
        int64_t k = next++;
        if (k >= MAX_BATCHES) break;
        int64_t n, size;
        uint64_t r = below(100);
        if (pg) {
            /* Mostly large saves: half to all of --items items. */
            if (r < 15) n = 1 + (int64_t)below(4);
            else if (r < 30) n = 20 + (int64_t)below(80);
            else n = large_items / 2 + (int64_t)below((uint64_t)(large_items - large_items / 2) + 1);
            if (n < 1) n = 1;
        }
        else if (r < 70) n = 1 + (int64_t)below(4);
        else if (r < 95) n = 20 + (int64_t)below(80);
        else n = 500 + (int64_t)below(1500);
        r = below(100);
        size = r < 70 ? (int64_t)below(64) : (r < 95 || n > 4) ? (int64_t)below(4096) : (int64_t)below(1 << 16);
        if (pg && n > 100) size = (int64_t)below(64);
        int64_t del = 0, upd = 0;
        size_t del_at = 0;
        /* A PostgreSQL writer mostly updates an earlier batch too, and keeps at most
         * four batches, so that each check reads a bounded store. */
        if (live_n > 2 && (below(100) < 25 || (pg && live_n > 3))) { del_at = (size_t)below(live_n); del = live[del_at]; }
        if (live_n > 2 && below(100) < (pg ? 70 : 25)) { upd = live[below(live_n)]; if (upd == del) upd = 0; }
        log_append(dir, "TRY %lld %lld %lld %lld %lld\n", (long long)k, (long long)n, (long long)size, (long long)del, (long long)upd);

        og_object *g = og_context_insert(ctx, "Group", &e);
        if (!g) die("writer: insert: %s", og_error_message(e));
        og_object_set_int64(g, "batch", k, NULL);
        og_object_set_int64(g, "count", n, NULL);
        og_object_set_int64(g, "size", size, NULL);
        og_object_set_int64(g, "version", k, NULL);
        for (int64_t i = 0; i < n; i++) {
            og_object *it = og_context_insert(ctx, "Item", &e);
            if (!it) die("writer: insert: %s", og_error_message(e));
            og_object_set_int64(it, "batch", k, NULL);
            og_object_set_int64(it, "count", n, NULL);
            og_object_set_int64(it, "index", i, NULL);
            og_object_set_int64(it, "version", k, NULL);
            char name[64];
            snprintf(name, sizeof name, "item %lld of batch %lld", (long long)i, (long long)k);
            og_object_set_string(it, "name", name, NULL);
            for (int64_t b = 0; b < size; b++) payload[b] = payload_byte(k, i, (size_t)b);
            og_object_set_data(it, "payload", payload, (size_t)size, NULL);
            if (og_object_set_object(it, "group", g, &e) != OG_OK) die("writer: link: %s", og_error_message(e));
        }
        /* A fetch that fails (a lost connection) fails the attempt: the save would
         * not do what the log says. */
        bool fetched = true;
        if (del) {
            og_results *victims = fetch(ctx, "Group", "batch == %@", del, &e);
            if (!victims) fetched = false;
            for (size_t i = 0; victims && i < og_results_count(victims); i++) og_context_delete(ctx, og_results_object_at(victims, i, NULL), NULL);
            og_results_release(victims);
        }
        if (upd && fetched) {
            const char *entities[] = {"Group", "Item"};
            for (int w = 0; w < 2 && fetched; w++) {
                og_results *rs = fetch(ctx, entities[w], "batch == %@", upd, &e);
                if (!rs) fetched = false;
                for (size_t i = 0; rs && i < og_results_count(rs); i++) og_object_set_int64(og_results_object_at(rs, i, NULL), "version", k, NULL);
                og_results_release(rs);
            }
        }
        if (!fetched) {
            log_append(dir, "FAIL %lld %lld\n", (long long)k, (long long)og_error_code(e));
            fprintf(stderr, "writer: a fetch before the save of batch %lld failed: %lld %s\n", (long long)k, (long long)og_error_code(e), og_error_message(e));
            og_error_release(e);
            e = NULL;
            og_context_rollback(ctx, NULL);
            if (++failures >= 3) break;
            continue;
        }
        /* For the driver's account of where a kill landed: the objects are made, the save begins. */
        if (pg) log_append(dir, "SAVE %lld\n", (long long)k);
        if (og_context_save(ctx, &e) == OG_OK) {
            log_append(dir, "ACK %lld\n", (long long)k);
            failures = 0;
            if (del) live[del_at] = live[--live_n];
            if (live_n < MAX_BATCHES) live[live_n++] = k;
        } else {
            log_append(dir, "FAIL %lld %lld\n", (long long)k, (long long)og_error_code(e));
            fprintf(stderr, "writer: save of batch %lld failed: %lld %s\n", (long long)k, (long long)og_error_code(e), og_error_message(e));
            og_error_release(e);
            e = NULL;
            og_context_rollback(ctx, NULL);
            if (++failures >= 3) break;
        }
        if (attempt % 16 == 15) og_context_reset(ctx, NULL);
    }
    og_context_release(ctx);
    og_coordinator_release(c);
    return 0;
}

/* ---- verify ---------------------------------------------------------------- */

static int violations;
static void violation(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    printf("VIOLATION ");
    vprintf(format, ap);
    printf("\n");
    va_end(ap);
    violations++;
}

typedef struct {
    bool present;
    int64_t count, size, version, items;
    bool bad;
} seen;

/* ---- verify: the PostgreSQL store through SQL ------------------------------ */

/* What plain SQL sees of one batch: its group row, and its item rows aggregated. */
typedef struct {
    bool group;
    long long pk, count, size, version;
    long long items, min_count, max_count, min_version, max_version, indexes, min_index, max_index, min_length, max_length, linked, min_group, max_group;
} sql_batch;

/* Waits (at most a minute) until no backend of the writer's connections is left: a
 * killed writer's backend runs its last statement to the end, and a COMMIT sent
 * just before the kill lands then. */
static bool wait_for_writer_backends(pgc_conn *sql, char *why, size_t n) {
    char app[96];
    writer_application(app, sizeof app);
    const char *params[] = {app};
    for (int i = 0; i < 6000; i++) {
        long long left = pgc_scalar(sql, "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1", 1, params, why, n);
        if (left == 0) return true;
        if (left < 0) return false;
        usleep(10000);
    }
    snprintf(why, n, "a killed writer's backend is still there after 60 s");
    return false;
}

/* Reads the groups and the items per batch with SQL, and checks what SQL alone can:
 * every batch whole, the key counters above every key. */
static void sql_read(pgc_conn *sql, sql_batch *out) {
    char why[512];
    pgc_result *r = pgc_query(sql, "SELECT \"Z_PK\", \"ZBATCH\", \"ZCOUNT\", \"ZSIZE\", \"ZVERSION\" FROM \"ZGROUP\"", 0, NULL, why, sizeof why);
    if (!r) { violation("SQL cannot read the groups: %s", why); return; }
    for (int i = 0; i < pgc_rows(r); i++) {
        long long b = pgc_int(r, i, 1);
        if (b <= 0 || b >= MAX_BATCHES) { violation("SQL: a group with batch %lld", b); continue; }
        if (out[b].group) violation("SQL: batch %lld has two groups", b);
        out[b].group = true;
        out[b].pk = pgc_int(r, i, 0);
        out[b].count = pgc_int(r, i, 2);
        out[b].size = pgc_int(r, i, 3);
        out[b].version = pgc_int(r, i, 4);
    }
    pgc_clear(r);
    r = pgc_query(sql,
                  "SELECT \"ZBATCH\", COUNT(*), MIN(\"ZCOUNT\"), MAX(\"ZCOUNT\"), MIN(\"ZVERSION\"), MAX(\"ZVERSION\"), "
                  "COUNT(DISTINCT \"ZINDEX\"), MIN(\"ZINDEX\"), MAX(\"ZINDEX\"), MIN(COALESCE(LENGTH(\"ZPAYLOAD\"), 0)), "
                  "MAX(COALESCE(LENGTH(\"ZPAYLOAD\"), 0)), COUNT(\"ZGROUP\"), MIN(\"ZGROUP\"), MAX(\"ZGROUP\") FROM \"ZITEM\" GROUP BY \"ZBATCH\"",
                  0, NULL, why, sizeof why);
    if (!r) { violation("SQL cannot read the items: %s", why); return; }
    for (int i = 0; i < pgc_rows(r); i++) {
        long long b = pgc_is_null(r, i, 0) ? 0 : pgc_int(r, i, 0);
        if (b <= 0 || b >= MAX_BATCHES) { violation("SQL: %lld items with batch %lld", pgc_int(r, i, 1), b); continue; }
        sql_batch *x = &out[b];
        long long *fields[] = {&x->items, &x->min_count, &x->max_count, &x->min_version, &x->max_version, &x->indexes, &x->min_index,
                               &x->max_index, &x->min_length, &x->max_length, &x->linked, &x->min_group, &x->max_group};
        for (int f = 0; f < 13; f++) *fields[f] = pgc_int(r, i, f + 1);
    }
    pgc_clear(r);
    for (long long b = 1; b < MAX_BATCHES; b++) {
        sql_batch *x = &out[b];
        if (!x->group) {
            if (x->items) violation("SQL: %lld items of batch %lld and no group (a partial save)", x->items, b);
            continue;
        }
        if (x->items != x->count || x->indexes != x->count || (x->count > 0 && (x->min_index != 0 || x->max_index != x->count - 1)))
            violation("SQL: batch %lld has %lld items (%lld indexes, %lld to %lld) of its %lld (a partial save)", b, x->items, x->indexes, x->min_index,
                      x->max_index, x->count);
        if (x->items && (x->min_count != x->count || x->max_count != x->count))
            violation("SQL: items of batch %lld say count %lld to %lld, the group %lld", b, x->min_count, x->max_count, x->count);
        if (x->items && (x->min_version != x->version || x->max_version != x->version))
            violation("SQL: items of batch %lld have versions %lld to %lld, the group %lld (a partial update)", b, x->min_version, x->max_version, x->version);
        if (x->items && (x->min_length != x->size || x->max_length != x->size))
            violation("SQL: payloads of batch %lld have %lld to %lld bytes, not %lld", b, x->min_length, x->max_length, x->size);
        if (x->linked != x->items || (x->items && (x->min_group != x->pk || x->max_group != x->pk)))
            violation("SQL: %lld of the %lld items of batch %lld are linked to its group", x->linked, x->items, b);
    }
    /* Each table's largest key is below its entity's key counter. */
    static const char *tables[][2] = {{"ZGROUP", "Group"}, {"ZITEM", "Item"}, {"ZPROBE", "Probe"}};
    for (int t = 0; t < 3; t++) {
        char q[512];
        snprintf(q, sizeof q,
                 "SELECT (SELECT COALESCE(MAX(\"Z_PK\"), 0) FROM \"%s\") - (SELECT COALESCE(MAX(\"Z_MAX\"), 0) FROM \"Z_PRIMARYKEY\" WHERE \"Z_NAME\" = '%s')",
                 tables[t][0], tables[t][1]);
        long long over = pgc_scalar(sql, q, 0, NULL, why, sizeof why);
        if (over > 0) violation("SQL: %s has a key %lld above its key counter", tables[t][0], over);
    }
}

static int cmd_verify(const char *type, const char *dir) {
    char path[4096];
    bool pg = is_postgres(type);
    pgc_conn *sql = NULL;
    sql_batch *sql_batches = NULL;
    log_read(dir);
    if (pg) {
        snprintf(path, sizeof path, "%s", pg_url);
        char why[512];
        sql = pgc_connect(pg_url, why, sizeof why);
        if (!sql) {
            printf("VIOLATION cannot connect to check the store: %s\n", why);
            return 2;
        }
        if (!wait_for_writer_backends(sql, why, sizeof why)) violation("%s", why);
        const char *params[] = {pg_schema};
        long long tables = pgc_scalar(sql, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1", 1, params, why, sizeof why);
        long long metadata = pgc_scalar(
            sql, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'Z_METADATA'", 1, params, why, sizeof why);
        if (tables < 0 || metadata < 0) {
            printf("VIOLATION cannot read the schema %s: %s\n", pg_schema, why);
            return 2;
        }
        if (metadata == 0) {
            /* Killed before the store's creation committed: nothing of it, nothing acknowledged. */
            if (tables > 0) violation("the schema %s holds %lld tables but no Z_METADATA (a half-made store)", pg_schema, tables);
            for (int64_t k = 1; k <= log_max; k++)
                if (log_entries[k].acked) violation("there is no store but batch %lld was acknowledged", (long long)k);
            pgc_close(sql);
            printf("verify: no store yet\n");
            return violations ? 1 : 0;
        }
        char set[128];
        snprintf(set, sizeof set, "SET search_path TO \"%s\"", pg_schema);
        pgc_clear(pgc_query(sql, set, 0, NULL, why, sizeof why));
        sql_batches = calloc(MAX_BATCHES, sizeof *sql_batches);
        sql_read(sql, sql_batches);
    } else {
        store_path(path, sizeof path, dir, type);
        struct stat st;
        if (stat(path, &st) != 0) {
            /* Killed before the store was created: nothing may have been acknowledged. */
            for (int64_t k = 1; k <= log_max; k++)
                if (log_entries[k].acked) violation("the store file is missing but batch %lld was acknowledged", (long long)k);
            printf("verify: no store yet\n");
            return violations ? 1 : 0;
        }
    }
    /* The library opens the store first, as the crash left it: SQLite's own connection
     * below would recover a WAL the library must be able to recover itself. */
    og_error *e = NULL;
    og_coordinator *c = open_store(type, path, &e);
    if (!c) {
        printf("VIOLATION the store does not reopen: %lld %s\n", (long long)og_error_code(e), og_error_message(e));
        return 2;
    }
    if (strcmp(type, "SQLite") == 0) {
        sqlite3 *db;
        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
            violation("sqlite cannot open the store: %s", sqlite3_errmsg(db));
        } else {
            sqlite3_stmt *s;
            if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK) {
                while (sqlite3_step(s) == SQLITE_ROW) {
                    const char *r = (const char *)sqlite3_column_text(s, 0);
                    if (strcmp(r, "ok") != 0) violation("integrity check: %s", r);
                }
                sqlite3_finalize(s);
            } else {
                violation("integrity check did not run: %s", sqlite3_errmsg(db));
            }
        }
        sqlite3_close(db);
    }
    og_context *ctx = og_context_new(c, &e);
    seen *batches = calloc(MAX_BATCHES, sizeof *batches);
    og_results *groups = fetch(ctx, "Group", NULL, 0, &e);
    if (!groups) { printf("VIOLATION cannot fetch groups: %s\n", og_error_message(e)); return 2; }
    size_t group_count = og_results_count(groups);
    for (size_t i = 0; i < group_count; i++) {
        og_object *g = og_results_object_at(groups, i, NULL);
        int64_t b = get(g, "batch");
        if (b <= 0 || b >= MAX_BATCHES) { violation("a group with batch %lld", (long long)b); continue; }
        if (batches[b].present) violation("batch %lld has two groups", (long long)b);
        batches[b].present = true;
        batches[b].count = get(g, "count");
        batches[b].size = get(g, "size");
        batches[b].version = get(g, "version");
    }
    og_results *items = fetch(ctx, "Item", NULL, 0, &e);
    if (!items) { printf("VIOLATION cannot fetch items: %s\n", og_error_message(e)); return 2; }
    size_t item_count = og_results_count(items);
    for (size_t i = 0; i < item_count; i++) {
        og_object *it = og_results_object_at(items, i, NULL);
        int64_t b = get(it, "batch"), n = get(it, "count"), index = get(it, "index"), v = get(it, "version");
        if (b <= 0 || b >= MAX_BATCHES || !batches[b].present) {
            violation("item %lld of batch %lld has no group (a partial save)", (long long)index, (long long)b);
            continue;
        }
        seen *s = &batches[b];
        s->items++;
        og_object *g = NULL;
        og_object_get_object(it, "group", &g, NULL);
        if (!g || get(g, "batch") != b) { violation("item %lld of batch %lld is not linked to its group", (long long)index, (long long)b); s->bad = true; }
        if (n != s->count || index < 0 || index >= n) { violation("item %lld of batch %lld says count %lld, the group %lld", (long long)index, (long long)b, (long long)n, (long long)s->count); s->bad = true; }
        if (v != s->version) { violation("item %lld of batch %lld has version %lld, its group %lld (a partial update)", (long long)index, (long long)b, (long long)v, (long long)s->version); s->bad = true; }
        void *bytes = NULL;
        size_t length = 0;
        if (og_object_get_data(it, "payload", &bytes, &length, &e) != OG_OK) {
            violation("item %lld of batch %lld: payload unreadable: %s", (long long)index, (long long)b, og_error_message(e));
            og_error_release(e);
            e = NULL;
        } else {
            if ((int64_t)length != s->size) { violation("item %lld of batch %lld: payload of %zu bytes, not %lld", (long long)index, (long long)b, length, (long long)s->size); s->bad = true; }
            for (size_t k = 0; k < length && (int64_t)k < s->size; k++)
                if (((uint8_t *)bytes)[k] != payload_byte(b, index, k)) { violation("item %lld of batch %lld: payload byte %zu differs", (long long)index, (long long)b, k); s->bad = true; break; }
            og_free(bytes);
        }
    }
    for (int64_t b = 1; b < MAX_BATCHES; b++)
        if (batches[b].present && batches[b].items != batches[b].count)
            violation("batch %lld has %lld of its %lld items (a partial save)", (long long)b, (long long)batches[b].items, (long long)batches[b].count);
    /* Plain SQL and the library see the same store. */
    for (int64_t b = 1; sql_batches && b < MAX_BATCHES; b++) {
        sql_batch *x = &sql_batches[b];
        if (x->group != batches[b].present || (x->group && (x->count != batches[b].count || x->version != batches[b].version)) ||
            x->items != batches[b].items)
            violation("batch %lld: SQL reads %s with %lld items, version %lld; the library %s with %lld items, version %lld", (long long)b,
                      x->group ? "a group" : "no group", x->items, x->version, batches[b].present ? "a group" : "no group",
                      (long long)batches[b].items, (long long)batches[b].version);
    }

    /* What the saves leave, replayed in order. An acknowledged save happened; an
     * unacknowledged one (in flight at the kill, or reported failed) happened when
     * its batch is in the store or a later acknowledged save deleted or updated
     * that batch (the writer only touches batches it found in the store), and then
     * all of it happened: any effect missing shows below as a lost or resurrected
     * batch or a wrong version. A failed save that happened is a "ghost". */
    static int64_t version[MAX_BATCHES];
    static bool live[MAX_BATCHES], referenced[MAX_BATCHES];
    memset(live, 0, sizeof live);
    memset(version, 0, sizeof version);
    memset(referenced, 0, sizeof referenced);
    /* Newest first, as a save only touches earlier batches: a save that happened
     * (acknowledged, its batch present, or itself touched by a later save that
     * happened, in flight or not) vouches for the batches it deleted or updated. */
    for (int64_t k = log_max; k >= 1; k--) {
        entry *en = &log_entries[k];
        if (en->tried && (en->acked || batches[k].present || referenced[k])) {
            if (en->del > 0 && en->del < k) referenced[en->del] = true;
            if (en->upd > 0 && en->upd < k) referenced[en->upd] = true;
        }
    }
    int64_t inflight = 0, inflight_applied = 0, acked = 0, ghosts = 0;
    for (int64_t k = 1; k <= log_max; k++) {
        entry *en = &log_entries[k];
        if (!en->tried) continue;
        bool happened = en->acked || batches[k].present || referenced[k];
        if (en->acked) acked++;
        else if (!en->failed) { inflight++; inflight_applied += happened; }
        else if (happened) {
            ghosts++;
            printf("GHOST the failed save of batch %lld is in the store\n", (long long)k);
        }
        if (!happened) continue;
        live[k] = true;
        version[k] = k;
        if (en->del > 0 && en->del < MAX_BATCHES) live[en->del] = false;
        if (en->upd > 0 && en->upd < MAX_BATCHES && live[en->upd]) version[en->upd] = k;
    }
    int64_t present = 0;
    for (int64_t b = 1; b < MAX_BATCHES; b++) {
        if (batches[b].present) present++;
        if (live[b] && !batches[b].present) violation("batch %lld was acknowledged and is missing (a lost save)", (long long)b);
        if (!live[b] && batches[b].present) {
            if (b > log_max || !log_entries[b].tried) violation("batch %lld is in the store but was never tried", (long long)b);
            else violation("batch %lld is in the store though a save deleted it", (long long)b);
        }
        if (live[b] && batches[b].present && batches[b].version != version[b])
            violation("batch %lld has version %lld, the acknowledged saves gave it %lld", (long long)b, (long long)batches[b].version, (long long)version[b]);
    }
    /* The store saves again. */
    og_object *probe = og_context_insert(ctx, "Probe", &e);
    if (!probe || og_object_set_string(probe, "note", "probe", &e) != OG_OK || og_context_save(ctx, &e) != OG_OK) {
        violation("the reopened store does not save: %s", og_error_message(e));
    } else if (og_context_delete(ctx, probe, &e) != OG_OK || og_context_save(ctx, &e) != OG_OK) {
        violation("the reopened store does not save a delete: %s", og_error_message(e));
    }
    og_results_release(groups);
    og_results_release(items);
    og_context_release(ctx);
    og_coordinator_release(c);
    pgc_close(sql);
    free(sql_batches);
    printf("verify: %lld batches (%zu items) present, %lld acknowledged, %lld unacknowledged (%lld applied), %lld ghost(s), %d violation(s)\n",
           (long long)present, item_count, (long long)acked, (long long)inflight, (long long)inflight_applied, (long long)ghosts, violations);
    return violations ? 1 : 0;
}

/* ---- drivers (no library calls) ------------------------------------------ */

static const char *self;

static pid_t spawn(char *const argv[], char *const env[], const char *output) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (output) {
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
    }
    pid_t pid;
    int rc = posix_spawn(&pid, self, &actions, NULL, argv, env ? env : environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) die("cannot run %s: %s", self, strerror(rc));
    return pid;
}

static int wait_for(pid_t pid) {
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) die("waitpid: %s", strerror(errno));
    return status;
}

static void print_file(const char *path, const char *prefix, int lines) {
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f) && n++ < lines) printf("%s%s", prefix, line);
    fclose(f);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}
/* mkdir -p */
static void make_dirs(const char *path) {
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') { *s = 0; mkdir(p, 0755); *s = '/'; }
    mkdir(p, 0755);
}

/* Ghost batches already reported, per store directory (a ghost stays in the store). */
static bool *ghost_seen[3];
static const char *const slot_types[3] = {"SQLite", "Binary", "PostgreSQL"};
static int slot_of(const char *type) { return !strcmp(type, "SQLite") ? 0 : !strcmp(type, "Binary") ? 1 : 2; }

static void fresh_dir(const char *dir) {
    for (int i = 0; i < 3; i++)
        if (ghost_seen[i] && strstr(dir, slot_types[i])) memset(ghost_seen[i], 0, MAX_BATCHES * sizeof(bool));
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) die("cannot make %s: %s", dir, strerror(errno));
}

/* The driver's PostgreSQL schemas: <base>_<generation>, a new one for each fresh store. */
static char pg_base[48];
static long pg_generation;

/* A fresh store in dir: an empty folder and, for PostgreSQL, the schema of the next
 * generation (dropped first should it exist); the current schema is dropped unless
 * `keep` (the evidence of a failed check). */
static void fresh_store(const char *type, const char *dir, bool keep) {
    fresh_dir(dir);
    if (!is_postgres(type)) return;
    char why[512];
    if (pg_generation > 0 && !keep && !pgc_drop_schema(pg_url, pg_schema, why, sizeof why))
        printf("kills: the schema %s is left: %s\n", pg_schema, why);
    snprintf(pg_schema, sizeof pg_schema, "%s_%ld", pg_base, ++pg_generation);
    if (!pgc_drop_schema(pg_url, pg_schema, why, sizeof why)) die("cannot drop the schema %s: %s", pg_schema, why);
}

/* The writer's and verifier's arguments after the common ones: where a PostgreSQL store is. */
static char items_text[32];
static void add_store_arguments(const char *type, char **argv, int at) {
    argv[at] = NULL;
    if (!is_postgres(type)) return;
    snprintf(items_text, sizeof items_text, "%ld", large_items);
    char *extra[] = {"--url", (char *)pg_url, "--schema", pg_schema, "--items", items_text, NULL};
    for (int i = 0; i < 7; i++) argv[at + i] = extra[i];
}

/* Runs the verifier on dir; returns its exit status; counts the ghosts not seen before. */
static int verify(const char *type, const char *dir, const char *label, long *ghosts) {
    int slot = slot_of(type);
    if (!ghost_seen[slot]) ghost_seen[slot] = calloc(MAX_BATCHES, sizeof(bool));
    char out[4300];
    snprintf(out, sizeof out, "%s/verify.txt", dir);
    char *argv[16] = {(char *)self, "verify", "--type", (char *)type, "--dir", (char *)dir};
    add_store_arguments(type, argv, 6);
    int status = wait_for(spawn(argv, NULL, out));
    FILE *f = fopen(out, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "GHOST", 5)) {
            long long k = 0;
            if (sscanf(line, "GHOST the failed save of batch %lld", &k) != 1 || k <= 0 || k >= MAX_BATCHES || ghost_seen[slot][k]) continue;
            ghost_seen[slot][k] = true;
            (*ghosts)++;
            printf("%s after %s", strtok(line, "\n"), label);
            printf("\n");
        }
    if (f) fclose(f);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("FAILED verification after %s (%s):\n", label,
               WIFEXITED(status) ? (WEXITSTATUS(status) == 2 ? "the store does not reopen" : "violations") : strsignal(WTERMSIG(status)));
        print_file(out, "    ", 40);
        fflush(stdout);
        return 1;
    }
    return 0;
}

/* The "N acknowledged" count of the last verification of dir (0 when none). */
static long verified_acks(const char *dir) {
    char path[4300], line[1024];
    snprintf(path, sizeof path, "%s/verify.txt", dir);
    FILE *f = fopen(path, "r");
    long n = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, " acknowledged");
        if (!strncmp(line, "verify:", 7) && p) {
            while (p > line && p[-1] >= '0' && p[-1] <= '9') p--;
            n = atol(p);
        }
    }
    if (f) fclose(f);
    return n;
}

/* Cuts the writer's server connections (pg_terminate_backend); how many it cut. */
static long long cut_writer_connections(void) {
    char why[512], app[96];
    writer_application(app, sizeof app);
    pgc_conn *sql = pgc_connect(pg_url, why, sizeof why);
    if (!sql) die("cannot connect to cut the writer's connection: %s", why);
    const char *params[] = {app};
    long long n = pgc_scalar(sql, "SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t", 1,
                             params, why, sizeof why);
    pgc_close(sql);
    return n < 0 ? 0 : n;
}

static off_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : 0;
}

/* The FAIL lines written to dir/log from `offset` on, and how many of them have an
 * ACK after them. */
static void failures_since(const char *dir, off_t offset, long *fails, long *acked_after, long *lost_connection) {
    char path[4300], line[512];
    snprintf(path, sizeof path, "%s/log", dir);
    FILE *f = fopen(path, "r");
    *fails = *acked_after = *lost_connection = 0;
    if (!f) return;
    fseeko(f, offset, SEEK_SET);
    bool failed = false;
    long long k, code;
    while (fgets(line, sizeof line, f)) {
        if (!strchr(line, '\n')) break;
        if (sscanf(line, "FAIL %lld %lld", &k, &code) == 2) {
            (*fails)++;
            if (code == 134030 || code == 134080) (*lost_connection)++;
            failed = true;
        } else if (failed && sscanf(line, "ACK %lld", &k) == 1) {
            (*acked_after)++;
            failed = false;
        }
    }
    fclose(f);
}

static int cmd_kills(const char *types, const char *root, long kills, double seconds, uint64_t seed, long max_delay_ms, int terminate_percent) {
    rng_state = seed;
    const char *list[2];
    int ntypes = 0;
    if (!strcmp(types, "both") || !strcmp(types, "SQLite")) list[ntypes++] = "SQLite";
    if (!strcmp(types, "both") || !strcmp(types, "Binary")) list[ntypes++] = "Binary";
    if (!strcmp(types, "PostgreSQL")) list[ntypes++] = "PostgreSQL";
    if (!ntypes) die("unknown type %s", types);
    bool pg = is_postgres(list[0]);
    make_dirs(root);
    char dirs[2][4096];
    for (int t = 0; t < ntypes; t++) {
        snprintf(dirs[t], sizeof dirs[t], "%s/kills-%s", root, list[t]);
        fresh_store(list[t], dirs[t], false);
    }
    if (pg)
        printf("kills: PostgreSQL (schemas %s_<n>, large saves of %ld to %ld items, kills within %ld ms, %d%% of runs cut the connection first), seed %llu, in %s\n",
               pg_base, large_items / 2, large_items, max_delay_ms, terminate_percent, (unsigned long long)seed, root);
    else
        printf("kills: %s, seed %llu, in %s\n", types, (unsigned long long)seed, root);
    fflush(stdout);
    long done = 0, failed = 0, fresh = 0, ghosts = 0, inflight_applied = 0, applied_seen[2] = {0, 0};
    long acked_total = 0, acked_seen[2] = {0, 0};
    long inflight_kills = 0, inside_save = 0, cut_runs = 0, cut_fails = 0, cut_lost = 0, cut_recovered = 0;
    double start = now();
    while ((kills > 0 && done < kills) || (kills <= 0 && now() - start < seconds)) {
        int t = (int)(done % ntypes);
        const char *dir = dirs[t];
        /* Now and then a fresh store, so kills also land while one is created. */
        if (below(100) < 4) { fresh_store(list[t], dir, false); fresh++; applied_seen[t] = 0; acked_seen[t] = 0; }
        char seedtext[32];
        snprintf(seedtext, sizeof seedtext, "%llu", (unsigned long long)rnd());
        char out[4300], logpath[4300];
        snprintf(out, sizeof out, "%s/writer.txt", dir);
        snprintf(logpath, sizeof logpath, "%s/log", dir);
        off_t log_start = file_size(logpath);
        log_read(dir);
        int64_t before = log_max;
        char *argv[16] = {(char *)self, "write", "--type", (char *)list[t], "--dir", (char *)dir, "--seed", seedtext};
        add_store_arguments(list[t], argv, 8);
        double began = now();
        pid_t pid = spawn(argv, NULL, out);
        /* Most kills within a few saves; some almost at once (opening, creating). */
        uint64_t r = below(100);
        useconds_t delay;
        if (pg) delay = r < 15 ? (useconds_t)below(300000) : (useconds_t)(300000 + below((uint64_t)max_delay_ms * 1000));
        else delay = r < 15 ? (useconds_t)below(20000) : (useconds_t)(20000 + below(600000));
        bool cut = pg && (int)below(100) < terminate_percent;
        if (cut) {
            /* Cut the connection once the writer has begun its saves (its first line in
             * the log), then give it time to save again on a new one before the kill. */
            useconds_t at = (useconds_t)below(delay + 1);
            while (now() - began < 10 && file_size(logpath) == log_start) usleep(1000);
            usleep(at);
            if (cut_writer_connections() > 0) cut_runs++;
            else cut = false;
            usleep(delay - at + 500000 + (useconds_t)below(1500000));
        } else {
            usleep(delay);
        }
        kill(pid, SIGKILL);
        int status = wait_for(pid);
        double lived = now() - began;
        done++;
        char label[200];
        snprintf(label, sizeof label, "kill %ld (%s, %u ms, writer seed %s)", done, list[t], (unsigned)(lived * 1000), seedtext);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
            printf("FAILED the writer ended before the kill (%s): %s\n", label,
                   WIFEXITED(status) ? "exit" : strsignal(WTERMSIG(status)));
            print_file(out, "    ", 20);
            failed++;
        }
        /* The save in flight at the kill, from what this writer added to the log. */
        log_read(dir);
        int64_t last = log_max;
        bool inflight = last > before && log_entries[last].tried && !log_entries[last].acked && !log_entries[last].failed;
        entry in = inflight ? log_entries[last] : (entry){0};
        inflight_kills += inflight;
        inside_save += inflight && in.saving;
        long cut_failed = 0, cut_acked = 0, cut_lost_here = 0;
        if (cut) {
            failures_since(dir, log_start, &cut_failed, &cut_acked, &cut_lost_here);
            cut_fails += cut_failed;
            cut_lost += cut_lost_here;
            cut_recovered += cut_acked > 0;
        }
        long g = 0;
        bool bad = verify(list[t], dir, label, &g) != 0;
        if (bad) {
            failed++;
            /* Keep the evidence, start over. */
            char keep[4300];
            snprintf(keep, sizeof keep, "%s-failed-%ld", dir, done);
            rename(dir, keep);
            if (pg) printf("    kept in %s and the schema %s\n", keep, pg_schema);
            else printf("    kept in %s\n", keep);
            fresh_store(list[t], dir, true);
            applied_seen[t] = 0;
            acked_seen[t] = 0;
        }
        ghosts += g;
        long last_applied = 0;
        char vout[4300], summary[1024] = "";
        snprintf(vout, sizeof vout, "%s/verify.txt", dir);
        FILE *f = bad ? NULL : fopen(vout, "r");
        char line[1024];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "verify:", 7)) {
                last_applied = atol(strstr(line, "unacknowledged (") ? strstr(line, "unacknowledged (") + 16 : "0");
                snprintf(summary, sizeof summary, "%s", strtok(line + 8, "\n"));
            }
        if (f) fclose(f);
        bool applied = last_applied > applied_seen[t];
        if (applied) inflight_applied += last_applied - applied_seen[t];
        applied_seen[t] = last_applied;
        long acks = bad ? 0 : verified_acks(dir);
        if (acks > acked_seen[t]) acked_total += acks - acked_seen[t];
        acked_seen[t] = acks;
        if (pg && !bad) {
            /* One line per kill: where it landed and what the check found. */
            char where[256], updating[48] = "", cutting[160] = "";
            if (inflight && in.upd) snprintf(updating, sizeof updating, ", updating batch %lld", (long long)in.upd);
            if (inflight)
                snprintf(where, sizeof where, "batch %lld in flight (%lld items%s%s), %s: %s", (long long)last, (long long)in.n, updating,
                         in.del ? ", deleting another" : "", in.saving ? "inside og_context_save" : "its objects being made",
                         applied ? "found whole in the store" : "found absent");
            else
                snprintf(where, sizeof where, "%s", last > before ? "between saves" : "before its first save (opening the store)");
            if (cut)
                snprintf(cutting, sizeof cutting, "; connection cut first: %ld save(s) failed (%ld with a lost connection), %s", cut_failed, cut_lost_here,
                         cut_acked ? "then saved again" : "no save after it before the kill");
            printf("  kill %ld after %.1f s, %s%s; %s\n", done, lived, where, cutting, summary);
        }
        if (done % 25 == 0) { printf("  %ld kills, %ld failed\n", done, failed); fflush(stdout); }
        fflush(stdout);
    }
    if (pg) {
        printf("kills: %ld kills (%ld fresh stores, %ld with a save in flight, %ld of them inside og_context_save), %ld acknowledged saves checked, "
               "%ld in-flight saves found applied, %ld ghost(s), %ld failed, %.0f s; %ld connections cut: %ld saves failed after a cut "
               "(%ld with a lost connection), %ld writers saved again after\n",
               done, fresh, inflight_kills, inside_save, acked_total, inflight_applied, ghosts, failed, now() - start, cut_runs, cut_fails, cut_lost,
               cut_recovered);
        char why[512];
        if (!pgc_drop_schema(pg_url, pg_schema, why, sizeof why)) printf("kills: the schema %s is left: %s\n", pg_schema, why);
    } else {
        printf("kills: %ld kills (%ld fresh stores), %ld acknowledged saves checked, %ld in-flight saves found applied, %ld ghost(s), %ld failed, %.0f s\n",
               done, fresh, acked_total, inflight_applied, ghosts, failed, now() - start);
    }
    return failed ? 1 : 0;
}

static int cmd_creation(const char *types, const char *root, long runs, double seconds, uint64_t seed) {
    rng_state = seed;
    const char *list[2];
    int ntypes = 0;
    if (!strcmp(types, "both") || !strcmp(types, "SQLite")) list[ntypes++] = "SQLite";
    if (!strcmp(types, "both") || !strcmp(types, "Binary")) list[ntypes++] = "Binary";
    if (!ntypes) die("unknown type %s", types);
    make_dirs(root);
    printf("creation: %s, seed %llu, in %s\n", types, (unsigned long long)seed, root);
    fflush(stdout);
    long done = 0, failed = 0, early = 0;
    double start = now();
    while ((runs > 0 && done < runs) || (runs <= 0 && now() - start < seconds)) {
        int t = (int)(done % ntypes);
        char dir[4096], mark[4300], out[4300];
        snprintf(dir, sizeof dir, "%s/creation-%s", root, list[t]);
        fresh_dir(dir);
        snprintf(mark, sizeof mark, "%s/opening", dir);
        snprintf(out, sizeof out, "%s/writer.txt", dir);
        char seedtext[32];
        snprintf(seedtext, sizeof seedtext, "%llu", (unsigned long long)rnd());
        char *argv[] = {(char *)self, "write", "--type", (char *)list[t], "--dir", dir, "--seed", seedtext, NULL};
        pid_t pid = spawn(argv, NULL, out);
        /* Wait for the mark (at most 2 s), then kill within 30 ms of it. */
        struct stat st;
        for (int i = 0; i < 20000 && stat(mark, &st) != 0; i++) usleep(100);
        useconds_t delay = (useconds_t)below(30000);
        usleep(delay);
        kill(pid, SIGKILL);
        int status = wait_for(pid);
        done++;
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) early++;
        char label[200];
        snprintf(label, sizeof label, "run %ld (%s, killed %u us after it began adding the store)", done, list[t], delay);
        long ghosts = 0;
        if (verify(list[t], dir, label, &ghosts)) {
            failed++;
            char keep[4300];
            snprintf(keep, sizeof keep, "%s-failed-%ld", dir, done);
            rename(dir, keep);
            printf("    kept in %s\n", keep);
        }
    }
    printf("creation: %ld runs, %ld ended before the kill, %ld failed, %.0f s\n", done, early, failed, now() - start);
    return failed ? 1 : 0;
}

static int cmd_faults(const char *types, const char *root, const char *shim, long runs, double seconds, uint64_t seed) {
    rng_state = seed;
    const char *list[2];
    int ntypes = 0;
    if (!strcmp(types, "both") || !strcmp(types, "SQLite")) list[ntypes++] = "SQLite";
    if (!strcmp(types, "both") || !strcmp(types, "Binary")) list[ntypes++] = "Binary";
    if (!ntypes) die("unknown type %s", types);
    if (access(shim, R_OK) != 0) die("no shim at %s", shim);
    make_dirs(root);
    char dirs[2][4096];
    for (int t = 0; t < ntypes; t++) {
        snprintf(dirs[t], sizeof dirs[t], "%s/faults-%s", root, list[t]);
        fresh_dir(dirs[t]);
    }
    printf("faults: %s, seed %llu, in %s\n", types, (unsigned long long)seed, root);
    fflush(stdout);
    /* The operations a writer's six saves make on the store's files, and about how many
     * (measured with OG_FAULT_COUNT): the failing call is picked among them. */
    static const struct { const char *type, *ops; int calls; } plans[] = {
        {"SQLite", "write", 110}, {"SQLite", "fsync", 16}, {"SQLite", "ftruncate", 3}, {"SQLite", "write,fsync,ftruncate,rename", 125},
        {"Binary", "write", 7}, {"Binary", "fsync", 7}, {"Binary", "rename", 7}, {"Binary", "write,fsync,ftruncate,rename", 20},
    };
    long done = 0, failed = 0, injected = 0, failed_saves = 0, ghosts = 0, crashes = 0, acked_total = 0, acked_seen[2] = {0, 0};
    double start = now();
    while ((runs > 0 && done < runs) || (runs <= 0 && now() - start < seconds)) {
        int t = (int)(done % ntypes);
        const char *dir = dirs[t];
        if (below(100) < 5) { fresh_dir(dir); acked_seen[t] = 0; }
        char report[4300], out[4300];
        snprintf(report, sizeof report, "%s/faults.txt", dir);
        snprintf(out, sizeof out, "%s/writer.txt", dir);
        unlink(report);
        char preload[4400], nth[64], opsenv[128], errnoenv[64], sticky[64], dirv[4400], rep[4400], seedtext[32];
        snprintf(preload, sizeof preload, "LD_PRELOAD=%s", shim);
        int plan;
        do plan = (int)below(sizeof plans / sizeof *plans); while (strcmp(plans[plan].type, list[t]));
        snprintf(opsenv, sizeof opsenv, "OG_FAULT_OPS=%s", plans[plan].ops);
        snprintf(nth, sizeof nth, "OG_FAULT_NTH=%llu", (unsigned long long)(1 + below(below(100) < 20 ? 3 : (uint64_t)plans[plan].calls)));
        snprintf(errnoenv, sizeof errnoenv, "OG_FAULT_ERRNO=%s", below(100) < 70 ? "EIO" : "ENOSPC");
        snprintf(sticky, sizeof sticky, "OG_FAULT_STICKY=%d", below(100) < 30);
        snprintf(dirv, sizeof dirv, "OG_FAULT_DIR=%s", dir);
        snprintf(rep, sizeof rep, "OG_FAULT_REPORT=%s", report);
        snprintf(seedtext, sizeof seedtext, "%llu", (unsigned long long)rnd());
        /* The environment of this process, plus the shim's settings. */
        size_t n = 0;
        while (environ[n]) n++;
        char **env = calloc(n + 8, sizeof *env);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "OG_FAULT_", 9)) env[m++] = environ[i];
        char *extra[] = {preload, opsenv, nth, errnoenv, sticky, dirv, rep};
        for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) env[m++] = extra[i];
        env[m] = NULL;
        char *argv[] = {(char *)self, "write", "--type", (char *)list[t], "--dir", (char *)dir, "--seed", seedtext, "--saves", "6", NULL};
        int status = wait_for(spawn(argv, env, out));
        free(env);
        done++;
        char label[400];
        snprintf(label, sizeof label, "run %ld (%s, %s %s %s %s, writer seed %s)", done, list[t], opsenv + 13, nth + 9, errnoenv + 15,
                 sticky[16] == '1' ? "sticky" : "once", seedtext);
        struct stat st;
        bool hit = stat(report, &st) == 0 && st.st_size > 0;
        injected += hit;
        FILE *wf = fopen(out, "r");
        char line[1024];
        while (wf && fgets(line, sizeof line, wf))
            if (strstr(line, "failed:")) failed_saves++;
        if (wf) fclose(wf);
        if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3)) {
            printf("FAILED the writer crashed on an I/O error (%s): %s\n", label,
                   WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "abnormal exit");
            print_file(report, "    fault: ", 5);
            print_file(out, "    ", 30);
            crashes++;
            failed++;
        }
        long g = 0;
        int bad = verify(list[t], dir, label, &g);
        if (g) print_file(report, "    fault: ", 5);
        if (bad) {
            print_file(report, "    fault: ", 5);
            failed++;
            char keep[4300];
            snprintf(keep, sizeof keep, "%s-failed-%ld", dir, done);
            rename(dir, keep);
            printf("    kept in %s\n", keep);
            fresh_dir(dir);
        }
        ghosts += g;
        long acks = bad ? 0 : verified_acks(dir);
        if (acks > acked_seen[t]) acked_total += acks - acked_seen[t];
        acked_seen[t] = acks;
        if (done % 25 == 0) { printf("  %ld runs, %ld faults injected, %ld failed\n", done, injected, failed); fflush(stdout); }
    }
    printf("faults: %ld runs, %ld faults injected, %ld saves reported failed, %ld acknowledged saves checked, %ld ghost(s), %ld crash(es), %ld failed, %.0f s\n",
           done, injected, failed_saves, acked_total, ghosts, crashes, failed, now() - start);
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    self = "/proc/self/exe";
    static char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) { exe[len] = 0; self = exe; }
    if (argc < 2) goto usage;
    const char *cmd = argv[1], *type = "SQLite", *dir = NULL, *shim = NULL, *schema = NULL;
    long saves = 0, count = 0, max_delay_ms = 6000;
    int terminate_percent = 0;
    double seconds = 0;
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) goto usage;
        const char *v = argv[++i];
        if (!strcmp(a, "--type")) type = v;
        else if (!strcmp(a, "--dir")) dir = v;
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--saves")) saves = atol(v);
        else if (!strcmp(a, "--kills") || !strcmp(a, "--runs")) count = atol(v);
        else if (!strcmp(a, "--seconds")) seconds = atof(v);
        else if (!strcmp(a, "--shim")) shim = v;
        else if (!strcmp(a, "--url")) pg_url = v;
        else if (!strcmp(a, "--schema")) schema = v;
        else if (!strcmp(a, "--items")) large_items = atol(v);
        else if (!strcmp(a, "--max-delay")) max_delay_ms = atol(v);
        else if (!strcmp(a, "--terminate")) terminate_percent = atoi(v);
        else goto usage;
    }
    if (!dir) goto usage;
    if (is_postgres(type)) {
        if (!pg_url) pg_url = getenv("OBJECTGRAPH_TEST_POSTGRES_URL");
        if (!pg_url || !*pg_url) {
            printf("skipped: no PostgreSQL server (no --url and OBJECTGRAPH_TEST_POSTGRES_URL is unset)\n");
            return 77;
        }
        if (large_items < 1 || max_delay_ms < 1 || terminate_percent < 0 || terminate_percent > 100) goto usage;
        /* Writers and verifiers get the schema itself; the driver a base for its own. */
        if (!strcmp(cmd, "kills")) {
            if (schema) snprintf(pg_base, sizeof pg_base, "%s", schema);
            else snprintf(pg_base, sizeof pg_base, "og_crash_%ld", (long)getpid());
        } else if (schema) {
            snprintf(pg_schema, sizeof pg_schema, "%s", schema);
        } else {
            goto usage;
        }
    }
    if (!strcmp(cmd, "write")) return cmd_write(type, dir, seed, saves);
    if (!strcmp(cmd, "verify")) return cmd_verify(type, dir);
    if (count <= 0 && seconds <= 0) count = 20;
    if (!strcmp(cmd, "kills")) return cmd_kills(type, dir, count, seconds, seed, max_delay_ms, terminate_percent);
    if (!strcmp(cmd, "creation")) return cmd_creation(type, dir, count, seconds, seed);
    if (!strcmp(cmd, "faults") && shim) return cmd_faults(type, dir, shim, count, seconds, seed);
usage:
    fprintf(stderr,
            "usage: og_crash write  --type SQLite|Binary --dir D [--seed S] [--saves N]\n"
            "       og_crash verify --type SQLite|Binary --dir D\n"
            "       og_crash kills  --type SQLite|Binary|both --dir D [--kills N | --seconds S] [--seed S]\n"
            "       og_crash write|verify --type PostgreSQL --dir D [--url URL] --schema S [--items N] [--seed S] [--saves N]\n"
            "       og_crash kills  --type PostgreSQL --dir D [--url URL] [--schema BASE] [--items N] [--max-delay MS]\n"
            "                       [--terminate PERCENT] [--kills N | --seconds S] [--seed S]\n"
            "       og_crash creation --type SQLite|Binary|both --dir D [--runs N | --seconds S] [--seed S]\n"
            "       og_crash faults --type SQLite|Binary|both --dir D --shim libog_iofault.so [--runs N | --seconds S] [--seed S]\n");
    return 2;
}
