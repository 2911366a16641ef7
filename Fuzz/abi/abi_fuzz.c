/*
 * abi_fuzz — the C ABI misuse fuzzer (docs/testing.md, "C ABI misuse fuzzer").
 *
 * Calls random sequences of every function in include/objectgraph.h with valid,
 * NULL, released, wrong-kind and forged handles, garbage and invalid-UTF-8
 * strings, extreme numbers (±∞, NaN, INT64 limits, SIZE_MAX), NULL and real
 * out-parameters and callbacks that accept or refuse. The call table is
 * generated from the header (gen_abi_calls.py), so every function is covered
 * and a new one is picked up at the next build.
 *
 * Batches run in forked children: the parent forks BEFORE the library is used
 * in the child (the library runs Dispatch queues, which do not survive a fork)
 * and never calls the library itself. A child that dies from a signal, exits
 * abnormally or hangs is a finding: the parent prints its seed, the command
 * that replays it, and the last calls it made (kept in shared memory).
 *
 *   abi_fuzz [--seconds S | --batches N] [--seed SEED] [--calls C] [--jobs J]
 *            [--findings DIR]
 *   abi_fuzz --replay SEED [--calls C] [--trace]     one batch, in this process
 *
 * Exit status: 0 when no batch failed, 1 otherwise. The last line sums up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "objectgraph.h"

#define FZ_CAP 8       /* elements in an array argument */
#define FZ_BYTES 512   /* bytes in a buffer argument (>= FZ_CAP * 32) */
#define FZ_POOL 24     /* handles kept per kind */
#define FZ_TRACE 64    /* calls remembered for a crash report */
#define FZ_LINE 600

typedef struct fz_state fz_state;
static int fz_userdata;

static bool fz_chance(fz_state *f, int percent);
static void fz_arg(fz_state *f, const char *text);
static void *fz_handle(fz_state *f, int kind);
static void fz_keep(fz_state *f, int kind, void *handle);
static const char *fz_string(fz_state *f, int path);
static void fz_fill(fz_state *f, void *buffer, size_t size);
static size_t fz_count(fz_state *f, size_t limit);
static size_t fz_small(fz_state *f);
static size_t fz_size(fz_state *f);
static int64_t fz_int64(fz_state *f);
static double fz_double(fz_state *f);
static int fz_int(fz_state *f);
static void fz_touch(fz_state *f, const void *p, size_t n);
static void fz_pending_bytes(fz_state *f, const void *p);
static void fz_pending_free(fz_state *f, void *p);
static void fz_finish_bytes(fz_state *f, size_t length);
static void fz_result(fz_state *f, long long r);
static void fz_begin(fz_state *f, const char *name);
static void fz_commit(fz_state *f);
static void fz_end(fz_state *f);
static const og_atomic_store_callbacks *fz_callbacks(fz_state *f);
static const og_migration_policy_callbacks *fz_policy_callbacks(fz_state *f);
static const og_incremental_store_callbacks *fz_incremental_callbacks(fz_state *f);
static const og_results_controller_callbacks *fz_results_callbacks(fz_state *f);
static const og_fetch_index *fz_fetch_indexes(fz_state *f);
static const og_batch_column *fz_batch_columns(fz_state *f);

/* Callbacks: accept or refuse at random (fz_refuse), never call back in. */
static volatile int fz_refuse;
static void fz_stub_og_block_fn(void *user) { (void)user; }
static void fz_stub_og_hook_fn(og_object *object, void *user) { (void)object; (void)user; }
static og_status fz_stub_og_validation_fn(og_object *object, og_error **error, void *user) {
    (void)object; (void)error; (void)user;
    return fz_refuse ? OG_ERROR : OG_OK;
}
static og_status fz_stub_og_value_validation_fn(og_object *object, const char *key, const og_value *value,
                                                og_error **error, void *user) {
    (void)object; (void)key; (void)value; (void)error; (void)user;
    return fz_refuse ? OG_ERROR : OG_OK;
}
static void fz_stub_og_notification_fn(const og_notification *notification, void *user) {
    (void)notification; (void)user;
}
static void fz_stub_og_sql_log_fn(int level, const char *message, void *user) { (void)level; (void)message; (void)user; }
/* A batch insert's row source with no rows. */
static og_value *fz_stub_og_batch_row_fn(void *user, og_error **error) { (void)user; (void)error; return NULL; }
static void fz_stub_og_async_fetch_fn(og_async_fetch *fetch, void *user) { (void)fetch; (void)user; }
static void fz_stub_og_remote_change_fn(const char *store_uuid, const og_history_token *token, void *user) {
    (void)store_uuid;
    (void)token;
    (void)user;
}
static void fz_stub_og_container_load_fn(og_store_description *description, const og_error *error, void *user) {
    (void)description; (void)error; (void)user;
}
static void fz_stub_og_context_task_fn(og_context *context, void *user) { (void)context; (void)user; }
static void fz_stub_og_migration_progress_fn(double fraction, void *user) { (void)fraction; (void)user; }
static og_status fz_stub_og_migration_stage_fn(og_migration_manager *manager, og_entity_mapping *mapping, og_error **error,
                                               void *user) {
    (void)manager; (void)mapping; (void)error; (void)user;
    return fz_refuse ? OG_ERROR : OG_OK;
}
static og_status fz_stub_og_migration_object_fn(og_migration_manager *manager, og_object *object, og_entity_mapping *mapping,
                                                og_error **error, void *user) {
    (void)manager; (void)object; (void)mapping; (void)error; (void)user;
    return fz_refuse ? OG_ERROR : OG_OK;
}
/* Transformers: refuse, or give a value (data forward, null reverse). */
static og_value *fz_stub_og_transform_forward_fn(const og_value *value, og_error **error, void *user) {
    (void)value; (void)error; (void)user;
    return fz_refuse ? NULL : og_value_new_data("x", 1, NULL);
}
static og_value *fz_stub_og_transform_reverse_fn(const void *bytes, size_t length, og_error **error, void *user) {
    (void)bytes; (void)length; (void)error; (void)user;
    return fz_refuse ? NULL : og_value_new_null();
}

#include "abi_calls.h"

struct fz_state {
    uint64_t rng;
    void *pool[OG_ABI_KINDS][FZ_POOL];
    int pool_n[OG_ABI_KINDS];
    char line[FZ_LINE];
    size_t len;
    const void *pending_bytes;
    void *pending_free;
    bool trace;
};

/* Shared with the parent: the last calls of the batch, so a crash report can show them. */
typedef struct {
    unsigned long long calls;
    char lines[FZ_TRACE][FZ_LINE];
} fz_shared;
static fz_shared *fz_log;

static uint64_t fz_next(fz_state *f) {
    /* splitmix64 */
    uint64_t z = (f->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint64_t fz_below(fz_state *f, uint64_t n) { return n ? fz_next(f) % n : 0; }
static bool fz_chance(fz_state *f, int percent) { return (int)fz_below(f, 100) < percent; }

static void fz_arg(fz_state *f, const char *text) {
    int n = snprintf(f->line + f->len, sizeof f->line - f->len, "%s%s", f->line[f->len - 1] == '(' ? "" : ", ", text);
    if (n > 0) f->len = f->len + (size_t)n < sizeof f->line ? f->len + (size_t)n : sizeof f->line - 1;
}

static void fz_argf(fz_state *f, const char *format, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void fz_argf(fz_state *f, const char *format, ...) {
    char buffer[200];
    va_list ap;
    va_start(ap, format);
    vsnprintf(buffer, sizeof buffer, format, ap);
    va_end(ap);
    fz_arg(f, buffer);
}

static void fz_begin(fz_state *f, const char *name) {
    f->len = (size_t)snprintf(f->line, sizeof f->line, "%s(", name);
    f->pending_bytes = NULL;
    f->pending_free = NULL;
}

static void fz_commit(fz_state *f) {
    if (f->len < sizeof f->line - 2) { f->line[f->len++] = ')'; f->line[f->len] = 0; }
    if (fz_log) {
        snprintf(fz_log->lines[fz_log->calls % FZ_TRACE], FZ_LINE, "%s", f->line);
        fz_log->calls++;
    }
    if (f->trace) { fprintf(stderr, "%s\n", f->line); fflush(stderr); }
}

static void fz_end(fz_state *f) { (void)f; }
static void fz_result(fz_state *f, long long r) { (void)f; (void)r; }

/* Reads what the library returned, so a bad pointer or length shows as a crash here. */
static volatile unsigned char fz_sink;
static void fz_touch(fz_state *f, const void *p, size_t n) {
    (void)f;
    const unsigned char *b = p;
    unsigned char x = 0;
    for (size_t i = 0; i < n; i++) x ^= b[i];
    fz_sink ^= x;
}
static void fz_pending_bytes(fz_state *f, const void *p) { f->pending_bytes = p; }
static void fz_pending_free(fz_state *f, void *p) { f->pending_free = p; }
static void fz_finish_bytes(fz_state *f, size_t length) {
    if (f->pending_bytes && length) fz_touch(f, f->pending_bytes, length);
    if (f->pending_free) og_free(f->pending_free);
    f->pending_bytes = NULL;
    f->pending_free = NULL;
}

/* ---- handles ---------------------------------------------------------- */

static void fz_keep(fz_state *f, int kind, void *handle) {
    if (!handle) return;
    for (int i = 0; i < f->pool_n[kind]; i++)
        if (f->pool[kind][i] == handle) return;
    if (f->pool_n[kind] < FZ_POOL) f->pool[kind][f->pool_n[kind]++] = handle;
    else f->pool[kind][fz_below(f, FZ_POOL)] = handle;
}

static unsigned char fz_not_a_handle[64];

static void *fz_handle(fz_state *f, int kind) {
    int r = (int)fz_below(f, 100);
    if (r < 60 && f->pool_n[kind] > 0) {
        int i = (int)fz_below(f, (uint64_t)f->pool_n[kind]);
        fz_argf(f, "%s#%d", og_abi_kind_names[kind] + 3, i);
        return f->pool[kind][i];
    }
    if (r < 70) { fz_arg(f, "NULL"); return NULL; }
    if (r < 82) {
        int other = (int)fz_below(f, OG_ABI_KINDS);
        if (f->pool_n[other] > 0) {
            int i = (int)fz_below(f, (uint64_t)f->pool_n[other]);
            fz_argf(f, "%s#%d as %s", og_abi_kind_names[other] + 3, i, og_abi_kind_names[kind] + 3);
            return f->pool[other][i];
        }
    }
    /* forged */
    uintptr_t v;
    switch (fz_below(f, 6)) {
    case 0: v = (uintptr_t)fz_next(f); break;
    case 1: /* a real handle with another generation */
        v = f->pool_n[kind] ? (uintptr_t)f->pool[kind][0] + ((uintptr_t)1 << 32) : 1;
        break;
    case 2: v = (uintptr_t)(1 + fz_below(f, 64)) | ((uintptr_t)(1 + fz_below(f, 3)) << 32); break;
    case 3: v = (uintptr_t)fz_not_a_handle; break;
    case 4: v = UINTPTR_MAX - fz_below(f, 4); break;
    default: v = (uintptr_t)fz_below(f, 16); break;
    }
    fz_argf(f, "forged 0x%llx", (unsigned long long)v);
    return (void *)v;
}

/* ---- strings ---------------------------------------------------------- */

static const char *const fz_names[] = {
    "Person", "Pet", "Dog", "name", "age", "mid", "big", "score", "ratio", "salary", "flag", "born",
    "photo", "tag", "home", "pets", "owner", "friends", "visits", "favourite", "barks", "SQLite",
    "InMemory", "Binary", "Callback", "Default", "NSStoreType", "NSStoreUUID", "owner.name",
    "pets.name", "-name", "name.length", "@count", "pets.@count", "self", "Z_PK", "objectID",
    "Young", "Animals", "fuzz", "1", "x-coredata:///Person/t1", "x-coredata://00000000-0000-0000-0000-000000000000/Person/p1",
};
static const char *const fz_predicates[] = {
    "name == 'x'", "age > 3", "ANY pets.name BEGINSWITH[cd] $N", "name MATCHES '.*('", "SUBQUERY(pets, $p, $p.name == nil).@count > 0",
    "TRUEPREDICATE", "salary < 1e400", "born > CAST(0, 'NSDate')", "owner.owner.owner.name == nil", "%@ == %K",
    "age BETWEEN {1, 2}", "tag == nil AND home != nil", "FUNCTION(name, 'x')", "name IN $LIST", "(((((", "name ==",
};
static const char *const fz_odd[] = {
    "", "\xff\xfe", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "caf\xc3\xa9", "\xe2\x80\xae", "NaN", "inf",
    "-0", "1e400", "12.5", "-9223372036854775809", "0x10", "[]", "{}", "{\"format\":\"objectgraph-model\"}",
    "https://example.com/a%20b", "x-coredata://", "%@", "%K", "$VAR", "'", "\"", ";DROP TABLE Z_METADATA;--",
};
static const char *const fz_paths[] = {
    "s.sqlite", "b.binary", "m.json", "m.xcdatamodel", "m.xcdatamodeld", "m.mom", "world.sqlite", "world.binary",
    "world.json", "missing/x.sqlite", "", ".", "dir", "s.sqlite-wal", "c.callback", "caf\xc3\xa9.sqlite", "\xff.sqlite",
};
static char fz_strings[4][20000];
static int fz_string_next;

static const char *fz_string(fz_state *f, int path) {
    if (fz_chance(f, 7)) { fz_arg(f, "NULL"); return NULL; }
    const char *s;
    int r = (int)fz_below(f, 100);
    if (path) {
        s = r < 85 ? fz_paths[fz_below(f, sizeof fz_paths / sizeof *fz_paths)] : fz_odd[fz_below(f, sizeof fz_odd / sizeof *fz_odd)];
        if (s[0] == '/' || strstr(s, "..")) s = "x";
    } else if (r < 45) {
        s = fz_names[fz_below(f, sizeof fz_names / sizeof *fz_names)];
    } else if (r < 60) {
        s = fz_predicates[fz_below(f, sizeof fz_predicates / sizeof *fz_predicates)];
    } else if (r < 80) {
        s = fz_odd[fz_below(f, sizeof fz_odd / sizeof *fz_odd)];
    } else {
        /* garbage: random bytes, or a long run; never a '/' (no path outside the batch's directory) */
        char *b = fz_strings[fz_string_next++ & 3];
        size_t n = fz_chance(f, 20) ? 10000 + fz_below(f, 9000) : fz_below(f, 40);
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)(1 + fz_below(f, 255));
            b[i] = (char)(c == '/' ? 'a' : c);
        }
        b[n] = 0;
        fz_argf(f, "garbage[%zu]", n);
        return b;
    }
    char quoted[120];
    size_t q = 0;
    quoted[q++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p && q < sizeof quoted - 8; p++) {
        if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') quoted[q++] = (char)*p;
        else q += (size_t)snprintf(quoted + q, sizeof quoted - q, "\\x%02x", *p);
    }
    quoted[q++] = '"';
    quoted[q] = 0;
    fz_arg(f, quoted);
    return s;
}

/* ---- numbers and buffers ----------------------------------------------- */

static int64_t fz_int64(fz_state *f) {
    static const int64_t edges[] = {INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, -1, 0, 1, 2, 7, 32767, 32768, -32769,
                                    2147483647, 2147483648LL, -2147483649LL, 4294967296LL, 9007199254740993LL};
    int64_t v = fz_chance(f, 70) ? edges[fz_below(f, sizeof edges / sizeof *edges)] : (int64_t)fz_next(f);
    fz_argf(f, "%lld", (long long)v);
    return v;
}

static double fz_double(fz_state *f) {
    static const double edges[] = {0.0, -0.0, 1.0, -1.0, 2.5, 1e300, -1e300, DBL_MAX, -DBL_MAX, DBL_MIN, 5e-324,
                                   9.3e18, -9.3e18, 9223372036854775807.0, 3.4e38, 1e-7, 65536.5};
    double v;
    int r = (int)fz_below(f, 100);
    if (r < 12) v = INFINITY;
    else if (r < 20) v = -INFINITY;
    else if (r < 30) v = NAN;
    else if (r < 85) v = edges[fz_below(f, sizeof edges / sizeof *edges)];
    else {
        uint64_t bits = fz_next(f);
        memcpy(&v, &bits, sizeof v);
    }
    fz_argf(f, "%g", v);
    return v;
}

static int fz_int(fz_state *f) {
    static const int edges[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, -1, 100, 200, 300, 400, 500, 600, 700, 800, 900,
                                1000, 1100, 1200, 1800, 2000, INT_MAX, INT_MIN};
    int v = fz_chance(f, 85) ? edges[fz_below(f, sizeof edges / sizeof *edges)] : (int)fz_next(f);
    fz_argf(f, "%d", v);
    return v;
}

static size_t fz_size(fz_state *f) {
    static const size_t edges[] = {0, 1, 2, 3, 5, 7, 8, 11, 15, 16, 100, SIZE_MAX, SIZE_MAX - 1, SIZE_MAX / 2,
                                   (size_t)1 << 31, (size_t)1 << 32};
    size_t v = fz_chance(f, 90) ? edges[fz_below(f, sizeof edges / sizeof *edges)] : (size_t)fz_next(f);
    fz_argf(f, "%zu", v);
    return v;
}

static size_t fz_small(fz_state *f) { return fz_chance(f, 90) ? (size_t)fz_below(f, 20) : SIZE_MAX; }

static size_t fz_count(fz_state *f, size_t limit) {
    size_t v = fz_chance(f, 15) ? limit : (size_t)fz_below(f, limit < 4 ? limit + 1 : 4);
    fz_argf(f, "count %zu", v);
    return v;
}

static void fz_fill(fz_state *f, void *buffer, size_t size) {
    unsigned char *b = buffer;
    if (fz_chance(f, 50)) {
        for (size_t i = 0; i < size; i++) b[i] = (unsigned char)fz_next(f);
    } else {
        memset(b, fz_chance(f, 50) ? 0 : 0xFF, size);
    }
}

/* ---- atomic store callbacks ------------------------------------------- */

static int fz_callback_mode;
static int fz_load(void *user, const char *path, uint8_t **bytes, size_t *length) {
    (void)user; (void)path;
    switch (fz_callback_mode % 5) {
    case 0: return 1; /* no store yet */
    case 1: { /* garbage: the Binary-format parser sees it */
        size_t n = 13 + (size_t)(fz_callback_mode % 200);
        uint8_t *b = malloc(n);
        memcpy(b, "OGBINARY\0\0\0\1", 12);
        for (size_t i = 12; i < n; i++) b[i] = (uint8_t)(i * 131 + (size_t)fz_callback_mode);
        *bytes = b;
        *length = n;
        return 0;
    }
    case 2: *bytes = NULL; *length = 0; return 0;
    case 3: return 7;
    default: *bytes = malloc(1); (*bytes)[0] = 'X'; *length = 1; return 0;
    }
}
static int fz_save(void *user, const char *path, const uint8_t *bytes, size_t length) {
    (void)user; (void)path;
    if (length) fz_sink ^= bytes[length - 1];
    return fz_callback_mode % 3 == 0 ? 0 : (fz_callback_mode % 3 == 1 ? 2 : 5);
}
static void fz_release(void *user) { (void)user; }

static const og_atomic_store_callbacks *fz_callbacks(fz_state *f) {
    static og_atomic_store_callbacks table;
    fz_callback_mode = (int)fz_below(f, 1000);
    int r = (int)fz_below(f, 10);
    if (r == 0) { fz_arg(f, "NULL"); return NULL; }
    memset(&table, 0, sizeof table);
    if (r > 2) {
        table.load = fz_load;
        table.save = fz_save;
        table.release = r > 5 ? fz_release : NULL;
        table.userdata = &fz_userdata;
    }
    fz_argf(f, "callbacks(mode %d%s)", fz_callback_mode, r > 2 ? "" : ", empty");
    return &table;
}

/* ---- incremental store callbacks -------------------------------------- */

/* A table of some version with no hooks: registration must refuse it, whatever
 * the version says; the fuzzer never makes stores that would call back in. */
static const og_incremental_store_callbacks *fz_incremental_callbacks(fz_state *f) {
    static og_incremental_store_callbacks table;
    if (fz_chance(f, 20)) { fz_arg(f, "NULL"); return NULL; }
    memset(&table, 0, sizeof table);
    table.version = (int)fz_below(f, 3);
    table.userdata = &fz_userdata;
    fz_argf(f, "incremental callbacks(version %d, no hooks)", table.version);
    return &table;
}

/* ---- results controller callbacks ------------------------------------- */

static void fz_results_batch(og_results_controller *c, void *user) { (void)c; (void)user; }
static void fz_results_section(og_results_controller *c, og_results_change change, const char *name,
                               const og_results *objects, size_t index, void *user) {
    (void)c; (void)change; (void)name; (void)objects; (void)index; (void)user;
}
static void fz_results_object(og_results_controller *c, og_results_change change, og_object *object, int64_t old_section,
                              int64_t old_row, int64_t new_section, int64_t new_row, void *user) {
    (void)c; (void)change; (void)object; (void)old_section; (void)old_row; (void)new_section; (void)new_row; (void)user;
}

/* A table of a known or unknown version, each callback a stub or NULL. */
static const og_results_controller_callbacks *fz_results_callbacks(fz_state *f) {
    static og_results_controller_callbacks table;
    if (fz_chance(f, 15)) { fz_arg(f, "NULL"); return NULL; }
    memset(&table, 0, sizeof table);
    table.version = (int)fz_below(f, 3);
    table.userdata = &fz_userdata;
    if (fz_chance(f, 50)) table.will_change = fz_results_batch;
    if (fz_chance(f, 50)) table.did_change_section = fz_results_section;
    if (fz_chance(f, 50)) table.did_change_object = fz_results_object;
    if (fz_chance(f, 50)) table.did_change = fz_results_batch;
    table.release = fz_chance(f, 50) ? fz_release : NULL;
    fz_argf(f, "results controller callbacks(version %d)", table.version);
    return &table;
}

/* ---- migration policy callbacks --------------------------------------- */

/* A policy table with each hook a stub or NULL (the default behaviour). */
static const og_migration_policy_callbacks *fz_policy_callbacks(fz_state *f) {
    static og_migration_policy_callbacks table;
    if (fz_chance(f, 10)) { fz_arg(f, "NULL"); return NULL; }
    memset(&table, 0, sizeof table);
    table.userdata = &fz_userdata;
    if (fz_chance(f, 50)) table.begin_entity_mapping = fz_stub_og_migration_stage_fn;
    if (fz_chance(f, 50)) table.create_destination_instances = fz_stub_og_migration_object_fn;
    if (fz_chance(f, 50)) table.end_instance_creation = fz_stub_og_migration_stage_fn;
    if (fz_chance(f, 50)) table.create_relationships = fz_stub_og_migration_object_fn;
    if (fz_chance(f, 50)) table.end_relationship_creation = fz_stub_og_migration_stage_fn;
    if (fz_chance(f, 50)) table.perform_custom_validation = fz_stub_og_migration_stage_fn;
    if (fz_chance(f, 50)) table.end_entity_mapping = fz_stub_og_migration_stage_fn;
    table.release = fz_chance(f, 50) ? fz_release : NULL;
    fz_arg(f, "policy callbacks");
    return &table;
}

/* FZ_CAP batch columns of fuzzed names, types (valid or not) and states, each with
 * FZ_CAP values (row counts never exceed that: `row_count` is an FZ_CAP count). */
static const og_batch_column *fz_batch_columns(fz_state *f) {
    static og_batch_column columns[FZ_CAP];
    static int64_t numbers[FZ_CAP][FZ_CAP];
    static const char *texts[FZ_CAP][FZ_CAP];
    static uint8_t states[FZ_CAP][FZ_CAP];
    if (fz_chance(f, 8)) { fz_arg(f, "NULL"); return NULL; }
    for (int i = 0; i < FZ_CAP; i++) {
        for (int j = 0; j < FZ_CAP; j++) {
            numbers[i][j] = fz_int64(f);
            texts[i][j] = fz_chance(f, 10) ? NULL : fz_string(f, 0);
            states[i][j] = (uint8_t)fz_below(f, 4);
        }
        columns[i].name = fz_chance(f, 50) ? fz_string(f, 0) : (const char *[]){"title", "pages", "a0", "name"}[fz_below(f, 4)];
        columns[i].type = (og_column_type)fz_below(f, 5);
        columns[i].values = fz_chance(f, 8) ? NULL : (columns[i].type == OG_COLUMN_TEXT ? (const void *)texts[i] : (const void *)numbers[i]);
        columns[i].states = fz_chance(f, 50) ? NULL : states[i];
    }
    fz_arg(f, "[columns]");
    return columns;
}

/* FZ_CAP fetch indexes of fuzzed names, predicates and collations; element counts up to
 * the size of their arrays, which are NULL at times. */
static const og_fetch_index *fz_fetch_indexes(fz_state *f) {
    static og_fetch_index indexes[FZ_CAP];
    static og_fetch_index_element elements[FZ_CAP][FZ_CAP];
    if (fz_chance(f, 8)) { fz_arg(f, "NULL"); return NULL; }
    for (int i = 0; i < FZ_CAP; i++) {
        for (int j = 0; j < FZ_CAP; j++) {
            elements[i][j].property = fz_string(f, 0);
            elements[i][j].collation = (og_index_collation)fz_int(f);
            elements[i][j].ascending = fz_chance(f, 50);
        }
        indexes[i].name = fz_string(f, 0);
        indexes[i].elements = fz_chance(f, 8) ? NULL : elements[i];
        indexes[i].element_count = (size_t)fz_below(f, FZ_CAP + 1);
        indexes[i].partial_predicate = fz_chance(f, 50) ? NULL : fz_string(f, 0);
    }
    return indexes;
}

/* ---- the world a batch starts from ------------------------------------- */

static const char fz_model_json[] =
    "{\"format\":\"objectgraph-model\",\"formatVersion\":1,\"versionIdentifiers\":[\"fuzz\"],\"entities\":["
    "{\"name\":\"Person\",\"attributes\":["
    "{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"age\",\"type\":\"integer16\",\"default\":1},"
    "{\"name\":\"mid\",\"type\":\"integer32\"},{\"name\":\"big\",\"type\":\"integer64\"},"
    "{\"name\":\"score\",\"type\":\"double\"},{\"name\":\"ratio\",\"type\":\"float\"},"
    "{\"name\":\"salary\",\"type\":\"decimal\"},{\"name\":\"flag\",\"type\":\"boolean\"},"
    "{\"name\":\"born\",\"type\":\"date\"},{\"name\":\"photo\",\"type\":\"binary\"},"
    "{\"name\":\"tag\",\"type\":\"uuid\"},{\"name\":\"home\",\"type\":\"uri\"}],"
    "\"relationships\":[{\"name\":\"pets\",\"destination\":\"Pet\",\"toMany\":true,\"inverse\":\"owner\",\"deleteRule\":\"cascade\"},"
    "{\"name\":\"friends\",\"destination\":\"Person\",\"toMany\":true,\"inverse\":\"friends\"},"
    "{\"name\":\"favourite\",\"destination\":\"Pet\"}]},"
    "{\"name\":\"Pet\",\"attributes\":[{\"name\":\"name\",\"type\":\"string\",\"optional\":false,\"default\":\"pet\"}],"
    "\"relationships\":[{\"name\":\"owner\",\"destination\":\"Person\",\"inverse\":\"pets\"},"
    "{\"name\":\"visits\",\"destination\":\"Person\",\"toMany\":true,\"ordered\":true}]},"
    "{\"name\":\"Dog\",\"superentity\":\"Pet\",\"attributes\":[{\"name\":\"barks\",\"type\":\"boolean\",\"default\":true}]}]}";

/* Valid handles of every kind to start from: a model, stores of each built-in type,
 * contexts of each concurrency type, objects, a fetch, values, a predicate. */
static void fz_world(fz_state *f) {
    og_error *e = NULL;
    og_model *model = og_model_from_json(fz_model_json, &e);
    if (!model) {
        fprintf(stderr, "abi_fuzz: the world's model does not load: %s\n", og_error_message(e));
        exit(3);
    }
    fz_keep(f, OG_ABI_KIND_og_model, model);
    const char *names[] = {"Person", "Pet", "Dog"};
    for (int i = 0; i < 3; i++) {
        og_entity *entity = og_model_entity(model, names[i], NULL);
        fz_keep(f, OG_ABI_KIND_og_entity, entity);
        fz_keep(f, OG_ABI_KIND_og_property, og_entity_property(entity, "name", NULL));
    }
    fz_keep(f, OG_ABI_KIND_og_property, og_entity_property(og_model_entity(model, "Person", NULL), "pets", NULL));
    fz_keep(f, OG_ABI_KIND_og_property, og_entity_property(og_model_entity(model, "Person", NULL), "salary", NULL));
    og_coordinator *sqlite = og_coordinator_new(model, NULL), *memory = og_coordinator_new(model, NULL);
    fz_keep(f, OG_ABI_KIND_og_coordinator, sqlite);
    fz_keep(f, OG_ABI_KIND_og_coordinator, memory);
    fz_keep(f, OG_ABI_KIND_og_store, og_coordinator_add_store(sqlite, "SQLite", "world.sqlite", NULL));
    fz_keep(f, OG_ABI_KIND_og_store, og_coordinator_add_store(memory, "InMemory", NULL, NULL));
    fz_keep(f, OG_ABI_KIND_og_store, og_coordinator_add_store(memory, "Binary", "world.binary", NULL));
    og_context *contexts[4] = {
        og_context_new(sqlite, NULL), og_context_new(memory, NULL),
        og_context_new_with_type(sqlite, OG_CONCURRENCY_PRIVATE_QUEUE, NULL),
        og_context_new_with_type(memory, OG_CONCURRENCY_MAIN_QUEUE, NULL),
    };
    for (int i = 0; i < 4; i++) fz_keep(f, OG_ABI_KIND_og_context, contexts[i]);
    for (int c = 0; c < 2; c++) {
        og_object *person = og_context_insert(contexts[c], "Person", NULL);
        og_object *dog = og_context_insert(contexts[c], "Dog", NULL);
        og_object_set_string(person, "name", "Ann", NULL);
        og_object_set_int64(person, "age", 30, NULL);
        og_object_set_object(dog, "owner", person, NULL);
        og_context_save(contexts[c], NULL);
        fz_keep(f, OG_ABI_KIND_og_object, person);
        fz_keep(f, OG_ABI_KIND_og_object, dog);
        fz_keep(f, OG_ABI_KIND_og_object, og_context_insert(contexts[c], "Pet", NULL));
    }
    og_fetch_request *request = og_fetch_request_new("Person", NULL);
    fz_keep(f, OG_ABI_KIND_og_fetch_request, request);
    fz_keep(f, OG_ABI_KIND_og_results, og_context_fetch(contexts[0], request, NULL));
    fz_keep(f, OG_ABI_KIND_og_rows, og_context_fetch_dictionaries(contexts[0], request, NULL));
    fz_keep(f, OG_ABI_KIND_og_object_ids, og_context_fetch_object_ids(contexts[1], request, NULL));
    fz_keep(f, OG_ABI_KIND_og_predicate, og_predicate_parse("name != nil AND age > 1", NULL, 0, NULL));
    fz_keep(f, OG_ABI_KIND_og_value, og_value_new_int64(5));
    fz_keep(f, OG_ABI_KIND_og_value, og_value_new_string("x", NULL));
    fz_keep(f, OG_ABI_KIND_og_value, og_value_new_double(2.5));
    fz_keep(f, OG_ABI_KIND_og_value, og_value_new_null());
    fz_keep(f, OG_ABI_KIND_og_changes, og_changes_new(NULL));
    og_object_set_string(NULL, "name", "x", &e); /* an error to keep */
    fz_keep(f, OG_ABI_KIND_og_error, e);
}

/* ---- a batch ----------------------------------------------------------- */

/* Runs `calls` random calls from the world. */
static void fz_batch(uint64_t seed, long calls, bool trace) {
    static fz_state state;
    fz_state *f = &state;
    memset(f, 0, sizeof *f);
    f->rng = seed;
    f->trace = trace;
    fz_world(f);
    for (long i = 0; i < calls; i++) {
        fz_refuse = fz_chance(f, 30);
        int index = (int)fz_below(f, OG_ABI_FUNCTIONS);
        og_abi_calls[index](f);
    }
}

static char *fz_dir;
static int fz_remove(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

/* The child: a directory of its own, limits, then the batch; never returns. */
static void fz_child(uint64_t seed, long calls, unsigned seconds) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/batch-%llu", fz_dir, (unsigned long long)seed);
    mkdir(dir, 0700);
    if (chdir(dir) != 0) _exit(4);
    /* Containers keep their default stores under XDG_DATA_HOME: here, not in $HOME. */
    setenv("XDG_DATA_HOME", dir, 1);
    struct rlimit memory = {(rlim_t)4 << 30, (rlim_t)4 << 30};
    setrlimit(RLIMIT_AS, &memory);
    struct rlimit files = {0, 0};
    setrlimit(RLIMIT_CORE, &files);
    alarm(seconds);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) { dup2(null, 1); close(null); }
    fz_batch(seed, calls, false);
    _exit(0);
}

static double fz_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double seconds = 0;
    long batches = 0, calls = 2000, jobs = 1;
    uint64_t seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    bool replay = false, trace = false;
    const char *findings = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--seconds") && v) seconds = atof(argv[++i]);
        else if (!strcmp(a, "--batches") && v) batches = atol(argv[++i]);
        else if (!strcmp(a, "--calls") && v) calls = atol(argv[++i]);
        else if (!strcmp(a, "--jobs") && v) jobs = atol(argv[++i]);
        else if (!strcmp(a, "--seed") && v) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--replay") && v) { seed = strtoull(argv[++i], NULL, 0); replay = true; }
        else if (!strcmp(a, "--trace")) trace = true;
        else if (!strcmp(a, "--findings") && v) findings = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--seconds S | --batches N] [--seed SEED] [--calls C] [--jobs J] [--findings DIR]\n"
                            "       %s --replay SEED [--calls C] [--trace]\n", argv[0], argv[0]);
            return 2;
        }
    }
    char base[4096];
    snprintf(base, sizeof base, "%s/og-abi-fuzz-XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    fz_dir = mkdtemp(base);
    if (!fz_dir) { perror("mkdtemp"); return 2; }

    if (replay) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/replay", fz_dir);
        mkdir(dir, 0700);
        if (chdir(dir) != 0) return 2;
        setenv("XDG_DATA_HOME", dir, 1);
        fprintf(stderr, "abi_fuzz: replaying seed %llu, %ld calls, in %s\n", (unsigned long long)seed, calls, dir);
        fz_batch(seed, calls, trace);
        fprintf(stderr, "abi_fuzz: the batch finished without a crash\n");
        return 0;
    }
    if (seconds <= 0 && batches <= 0) seconds = 10;
    fz_log = mmap(NULL, sizeof(fz_shared) * (size_t)jobs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fz_log == MAP_FAILED) { perror("mmap"); return 2; }
    fz_shared *logs = fz_log;
    unsigned timeout = 120;
    double start = fz_now();
    long done = 0, failed = 0;
    unsigned long long total_calls = 0;
    pid_t running[64] = {0};
    uint64_t seeds[64];
    double started[64];
    if (jobs < 1) jobs = 1;
    if (jobs > 64) jobs = 64;
    uint64_t next = seed;
    printf("abi_fuzz: %ld calls per batch, %ld job(s), first seed %llu, %d functions\n", calls, jobs,
           (unsigned long long)seed, OG_ABI_FUNCTIONS);
    fflush(stdout);
    long launched = 0;
    for (;;) {
        for (int j = 0; j < jobs; j++) {
            bool more = batches > 0 ? launched < batches : fz_now() - start < seconds;
            if (running[j] || !more) continue;
            memset(&logs[j], 0, sizeof logs[j]);
            seeds[j] = next++;
            started[j] = fz_now();
            fflush(stdout);
            pid_t pid = fork();
            if (pid == 0) {
                fz_log = &logs[j];
                fz_child(seeds[j], calls, timeout);
            }
            running[j] = pid;
            launched++;
        }
        int active = 0;
        for (int j = 0; j < jobs; j++) active += running[j] != 0;
        if (active == 0) break;
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) { if (errno == EINTR) continue; break; }
        int j = 0;
        while (j < jobs && running[j] != pid) j++;
        if (j == jobs) continue;
        running[j] = 0;
        done++;
        total_calls += logs[j].calls;
        bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok) {
            failed++;
            char what[64];
            if (WIFSIGNALED(status)) snprintf(what, sizeof what, "%s", WTERMSIG(status) == SIGALRM ? "hang (timeout)" : strsignal(WTERMSIG(status)));
            else snprintf(what, sizeof what, "exit %d", WEXITSTATUS(status));
            printf("\nFAILED batch seed %llu: %s after %llu calls (%.1f s)\n", (unsigned long long)seeds[j], what,
                   logs[j].calls, fz_now() - started[j]);
            printf("  replay: %s --replay %llu --calls %llu --trace\n  last calls:\n", argv[0], (unsigned long long)seeds[j], logs[j].calls);
            unsigned long long n = logs[j].calls, from = n > 12 ? n - 12 : 0;
            for (unsigned long long k = from; k < n; k++) printf("    %s\n", logs[j].lines[k % FZ_TRACE]);
            if (findings) {
                mkdir(findings, 0755);
                char path[4300];
                snprintf(path, sizeof path, "%s/abi-seed-%llu.txt", findings, (unsigned long long)seeds[j]);
                FILE *out = fopen(path, "w");
                if (out) {
                    fprintf(out, "%s after %llu calls\nreplay: abi_fuzz --replay %llu --calls %llu --trace\n", what, logs[j].calls,
                            (unsigned long long)seeds[j], logs[j].calls);
                    unsigned long long from2 = n > FZ_TRACE ? n - FZ_TRACE : 0;
                    for (unsigned long long k = from2; k < n; k++) fprintf(out, "%s\n", logs[j].lines[k % FZ_TRACE]);
                    fclose(out);
                }
            }
            fflush(stdout);
        }
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/batch-%llu", fz_dir, (unsigned long long)seeds[j]);
        nftw(dir, fz_remove, 16, FTW_DEPTH | FTW_PHYS);
    }
    nftw(fz_dir, fz_remove, 16, FTW_DEPTH | FTW_PHYS);
    printf("abi_fuzz: %ld batches, %llu calls, %ld failed, %.0f s\n", done, total_calls, failed, fz_now() - start);
    return failed ? 1 : 0;
}
