/*
 * og_test.h — the checks the C tests share.
 *
 * Every call under test passes &err as its error argument. A failed check
 * prints the file, line, expression and, when there is one, the og_error's
 * domain, code and message, then exits with status 1 (ctest reports it).
 * Temporary files stay behind on failure, for a look; their directory is
 * printed.
 */
#ifndef OG_TEST_H
#define OG_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, nftw, strncasecmp */
#endif
#include "objectgraph.h"

#include <ctype.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The error slot of the calls under test; each check leaves it NULL again. */
static og_error *err;

static inline void og_t_print_error(const og_error *e, const char *indent) {
    if (e == NULL) {
        fprintf(stderr, "%s(no og_error was set)\n", indent);
        return;
    }
    const char *domain = og_error_domain(e);
    const char *message = og_error_message(e);
    fprintf(stderr, "%sog_error %s %lld: %s\n", indent, domain ? domain : "(null domain)",
            (long long)og_error_code(e), message ? message : "(null message)");
    for (size_t i = 0; i < og_error_detail_count(e); i++)
        og_t_print_error(og_error_detail_at(e, i), "    detail: ");
}

static inline void og_t_fail(const char *file, int line, const char *what) {
    fflush(stdout); /* keep the report in order when both streams go to one log */
    fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
    og_t_print_error(err, "  ");
    exit(1);
}

static inline void og_t_clear(void) {
    og_error_release(err);
    err = NULL;
}

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) og_t_fail(__FILE__, __LINE__, #cond);                     \
    } while (0)

/* A call that must return OG_OK. */
#define OK(call)                                                               \
    do {                                                                       \
        og_status og_t_s = (call);                                             \
        if (og_t_s != OG_OK) og_t_fail(__FILE__, __LINE__, #call " != OG_OK"); \
        if (err != NULL) og_t_fail(__FILE__, __LINE__, #call " set an error on success"); \
    } while (0)

/* A typed getter that must report a nil value. */
#define IS_NULL(call)                                                          \
    do {                                                                       \
        og_status og_t_s = (call);                                             \
        if (og_t_s != OG_NULL) og_t_fail(__FILE__, __LINE__, #call " != OG_NULL"); \
    } while (0)

static inline void *og_t_nn(const void *p, const char *file, int line, const char *what) {
    if (p == NULL) og_t_fail(file, line, what);
    return (void *)p;
}

/* A call that must return a non-NULL pointer; evaluates to it. */
#define NN(call) og_t_nn((call), __FILE__, __LINE__, #call " returned NULL")

static inline int og_t_contains_word(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *p = text; *p; p++)
        if (strncasecmp(p, word, n) == 0) return 1;
    return 0;
}

/* Checks that the last call set err with `code` and a message containing one
 * of the '|'-separated `words` (case-insensitive); prints both and clears err. */
static inline void og_t_expect_error(int64_t code, const char *words, const char *file, int line,
                              const char *what) {
    if (err == NULL) og_t_fail(file, line, what);
    const char *message = og_error_message(err);
    if (og_error_code(err) != code) {
        fflush(stdout);
        fprintf(stderr, "%s:%d: expected error code %lld\n", file, line, (long long)code);
        og_t_fail(file, line, what);
    }
    if (message == NULL || *message == '\0') og_t_fail(file, line, "error without a message");
    int found = 0;
    char buffer[256];
    snprintf(buffer, sizeof buffer, "%s", words);
    for (char *w = strtok(buffer, "|"); w && !found; w = strtok(NULL, "|"))
        found = og_t_contains_word(message, w);
    if (!found) {
        fflush(stdout);
        fprintf(stderr, "%s:%d: message does not mention any of: %s\n", file, line, words);
        og_t_fail(file, line, what);
    }
    printf("  ok: %s\n      -> %s %lld: %s\n", what, og_error_domain(err),
           (long long)og_error_code(err), message);
    og_t_clear();
}

/* A status call that must fail with `code` and a telling message. */
#define FAILS(call, code, words)                                               \
    do {                                                                       \
        og_status og_t_s = (call);                                             \
        if (og_t_s != OG_ERROR) og_t_fail(__FILE__, __LINE__, #call " did not fail"); \
        og_t_expect_error((code), (words), __FILE__, __LINE__, #call);         \
    } while (0)

/* A pointer-returning call that must return NULL with `code`. */
#define FAILS_NULL(call, code, words)                                          \
    do {                                                                       \
        if ((call) != NULL) og_t_fail(__FILE__, __LINE__, #call " did not return NULL"); \
        og_t_expect_error((code), (words), __FILE__, __LINE__, #call);         \
    } while (0)

#define STREQ(a, b)                                                            \
    do {                                                                       \
        const char *og_t_a = (a), *og_t_b = (b);                               \
        if (og_t_a == NULL || og_t_b == NULL || strcmp(og_t_a, og_t_b) != 0) { \
            fflush(stdout);                                                    \
            fprintf(stderr, "  got \"%s\", expected \"%s\"\n",                 \
                    og_t_a ? og_t_a : "(NULL)", og_t_b ? og_t_b : "(NULL)");    \
            og_t_fail(__FILE__, __LINE__, #a " == " #b);                       \
        }                                                                      \
    } while (0)

#define INTEQ(a, b)                                                            \
    do {                                                                       \
        long long og_t_a = (long long)(a), og_t_b = (long long)(b);            \
        if (og_t_a != og_t_b) {                                                \
            fflush(stdout);                                                    \
            fprintf(stderr, "  got %lld, expected %lld\n", og_t_a, og_t_b);    \
            og_t_fail(__FILE__, __LINE__, #a " == " #b);                       \
        }                                                                      \
    } while (0)

#define DBLEQ(a, b)                                                            \
    do {                                                                       \
        double og_t_a = (a), og_t_b = (b);                                     \
        if (!(fabs(og_t_a - og_t_b) <= 1e-9 * fmax(1.0, fabs(og_t_b)))) {      \
            fflush(stdout);                                                    \
            fprintf(stderr, "  got %.17g, expected %.17g\n", og_t_a, og_t_b);  \
            og_t_fail(__FILE__, __LINE__, #a " == " #b);                       \
        }                                                                      \
    } while (0)

/* A fresh directory under $TMPDIR (or /tmp). The caller frees it. */
static inline char *og_t_tempdir(void) {
    const char *base = getenv("TMPDIR");
    char *dir = malloc(4096);
    snprintf(dir, 4096, "%s/og-c-test-XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    return dir;
}

/* dir + "/" + name, freshly allocated. */
static inline char *og_t_path(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    snprintf(path, n, "%s/%s", dir, name);
    return path;
}

static inline void og_t_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static inline int og_t_remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

/* Removes a temporary directory and everything in it, then frees `dir`. */
static inline void og_t_remove_tree(char *dir) {
    nftw(dir, og_t_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

#endif /* OG_TEST_H */
