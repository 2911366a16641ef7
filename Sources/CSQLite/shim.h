#include <sqlite3.h>

/* sqlite3_db_config is variadic, which Swift cannot call: the settings the engine uses,
   as plain functions. */

/* A connection that never checkpoints its database when it closes (a read-only check of
   a store must leave the WAL as it found it). */
static inline int og_sqlite3_set_no_checkpoint_on_close(sqlite3 *db) {
    int set = 0;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &set);
}

/* glibc keeps memory freed by a large graph in its arenas; malloc_trim gives it back
   (ManagedObjectContext.reset after dropping many objects). Elsewhere: nothing to do. */
#include <stdlib.h> /* defines __GLIBC__ on glibc */
#if defined(__GLIBC__)
#include <malloc.h>
static inline void og_return_free_memory(void) { malloc_trim(0); }
#else
static inline void og_return_free_memory(void) {}
#endif
