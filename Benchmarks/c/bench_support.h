/*
 * What the ObjectGraph C contenders (og_bench.c, og_phase_bench.c) share: bench_common.h
 * (the clock, removing a store's files, reading a numeric flag, printing a JSON string)
 * and failing with the library's message. Static functions: each program includes this
 * once.
 */
#ifndef OG_BENCH_SUPPORT_H
#define OG_BENCH_SUPPORT_H

#include "bench_common.h"
#include "objectgraph.h"

#include <stdio.h>
#include <stdlib.h>

static void fail(const char *what, og_error *error) {
    fprintf(stderr, BENCH_PROGRAM ": %s: %s\n", what, error ? og_error_message(error) : "failed");
    exit(1);
}

#endif
