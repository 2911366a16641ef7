/*
 * og_test_cases.h — one executable, several named cases, so that ctest can
 * list each case as its own test (`test_misuse wrong_type`). Without an
 * argument every case runs.
 */
#ifndef OG_TEST_CASES_H
#define OG_TEST_CASES_H

#include "og_test.h"

typedef struct {
    const char *name;
    void (*run)(void);
} og_t_case;

static inline int og_t_run_cases(const og_t_case *cases, size_t count, int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [case]\n", argv[0]);
        return 2;
    }
    int ran = 0;
    for (size_t i = 0; i < count; i++) {
        if (argc == 2 && strcmp(argv[1], cases[i].name) != 0) continue;
        printf("%s\n", cases[i].name);
        cases[i].run();
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "no case named %s\n", argv[1]);
        return 2;
    }
    printf("%d case(s) passed\n", ran);
    return 0;
}

#define OG_T_RUN(cases, argc, argv) \
    og_t_run_cases((cases), sizeof(cases) / sizeof((cases)[0]), (argc), (argv))

#endif /* OG_TEST_CASES_H */
