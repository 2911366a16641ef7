/* og_test_sqlite.h — a C test's look into a store file with SQLite itself (tests that
 * include it link sqlite3). */
#ifndef OG_TEST_SQLITE_H
#define OG_TEST_SQLITE_H

#include "og_test.h"

#include <sqlite3.h>

/* The first column of the first row of `sql` on the database at `path`. */
static inline int64_t og_t_sql_int(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(s) == SQLITE_ROW);
    int64_t n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return n;
}

#endif /* OG_TEST_SQLITE_H */
