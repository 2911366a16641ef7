/*
 * What the C contenders (og_bench.c, og_phase_bench.c) share: the clock, failing
 * with the library's message, removing a store's files, reading a numeric flag, and
 * printing a JSON string. Static functions: each program includes this once.
 */
#ifndef OG_BENCH_SUPPORT_H
#define OG_BENCH_SUPPORT_H

#include "objectgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fail(const char *what, og_error *error) {
    fprintf(stderr, "og-c: %s: %s\n", what, error ? og_error_message(error) : "failed");
    exit(1);
}

/* Deletes an SQLite file and its companions. */
static void remove_store(const char *path) {
    const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
    char name[4096];
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        unlink(name);
    }
}

static long number(const char *flag, const char *text) {
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < 0) {
        fprintf(stderr, "og-c: %s needs a whole number, not '%s'\n", flag, text);
        exit(2);
    }
    return v;
}

/* A JSON string: the text with quotes and backslashes escaped. */
static void print_string(const char *text) {
    putchar('"');
    for (; *text; text++) {
        if (*text == '"' || *text == '\\') putchar('\\');
        putchar(*text);
    }
    putchar('"');
}

#endif
