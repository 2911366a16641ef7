// The system SQLite, for the raw C API contender and the runner's checks.
#include <sqlite3.h>
