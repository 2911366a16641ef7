#!/usr/bin/env bash
# The crash-safety test (Tests/robustness/og_crash.c, docs/testing.md): writers
# saving self-checking batches into SQLite and Binary stores are killed with
# SIGKILL at random moments; after each kill the store is checked (integrity,
# every acknowledged save present, nothing partial, it reopens and saves).
#
#   scripts/crash-test.sh [KILLS] [og_crash options...]     default 300 kills
#   e.g. scripts/crash-test.sh 1000 --type SQLite --seed 42
#
#   scripts/crash-test.sh --postgres [KILLS] [og_crash options...]   default 30 kills
#   e.g. scripts/crash-test.sh --postgres 100 --items 50000 --max-delay 10000
#
# --postgres kills a writer of large saves (10,000 to 20,000 items, most with an
# update of every object of an earlier batch) into a PostgreSQL store, one run in
# five cutting its server connection first, and checks the store after each
# kill with plain SQL and through the library. The server is the one at
# OBJECTGRAPH_TEST_POSTGRES_URL when that is set; otherwise a throwaway one
# (scripts/lib/postgres.sh), stopped and removed at the end (after a failed
# check the kept schemas are dumped to Fuzz/findings/crash/postgres-failed.sql).
#
# The stores of a failed check are kept under Fuzz/findings/crash/.
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
# Builds take the shared build lock (/tmp/objectgraph-build.lock).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh
postgres=0
if [ "${1:-}" = --postgres ]; then
  postgres=1
  shift
fi
og_ensure_swift
og_ensure_tools cc pkg-config sqlite cmake python3
kills=${1:-$([ "$postgres" -eq 1 ] && echo 30 || echo 300)}
shift || true
build=${OBJECTGRAPH_BUILD_DIR:-build}
[[ $build = /* ]] || build=$PWD/$build
lock=/tmp/objectgraph-build.lock
flock "$lock" cmake -S . -B "$build" -DOBJECTGRAPH_BUILD_TESTS=ON >/dev/null
flock "$lock" cmake --build "$build" --target og_crash --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
mkdir -p Fuzz/findings/crash
if [ "$postgres" -eq 0 ]; then
  exec "$build/Tests/robustness/og_crash" kills --type both --kills "$kills" --dir "$PWD/Fuzz/findings/crash" "$@"
fi

source scripts/lib/postgres.sh
started=0
if [ -z "${OBJECTGRAPH_TEST_POSTGRES_URL:-}" ]; then
  og_ensure_postgres || { echo "crash-test: PostgreSQL could not be installed" >&2; exit 1; }
  trap og_pg_stop EXIT
  og_pg_start || { echo "crash-test: the throwaway PostgreSQL server did not start" >&2; exit 1; }
  started=1
fi
status=0
"$build/Tests/robustness/og_crash" kills --type PostgreSQL --url "$OBJECTGRAPH_TEST_POSTGRES_URL" --kills "$kills" \
  --terminate 20 --dir "$PWD/Fuzz/findings/crash/postgres" "$@" || status=$?
if [ "$status" -ne 0 ] && [ "$started" -eq 1 ]; then
  # The throwaway server goes with this script: keep the schemas of failed checks.
  "$OBJECTGRAPH_TEST_POSTGRES_BIN/pg_dump" -d "$OBJECTGRAPH_TEST_POSTGRES_URL" -n 'og_crash_*' \
    -f Fuzz/findings/crash/postgres-failed.sql &&
    echo "crash-test: the kept schemas are in Fuzz/findings/crash/postgres-failed.sql"
fi
exit "$status"
