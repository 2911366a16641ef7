/*
 * What every C contender shares, with or without ObjectGraph: the clock, removing a
 * store's files, reading a numeric flag, and printing a JSON string. Messages start
 * with BENCH_PROGRAM (defined before the first include; "og-c" by default). Static
 * functions: each program includes this once.
 */
#ifndef OG_BENCH_COMMON_H
#define OG_BENCH_COMMON_H

#ifndef BENCH_PROGRAM
#define BENCH_PROGRAM "og-c"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
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
        fprintf(stderr, BENCH_PROGRAM ": %s needs a whole number, not '%s'\n", flag, text);
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
