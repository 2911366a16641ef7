#!/usr/bin/env bash
# The many-contexts soak (Tests/c/soak_contexts.c): threads and processes
# increment the same counters, retrying after conflicts, and every
# acknowledged save must be in the store at the end. Not part of the tests'
# timing: the tests run a 20-second version (and a 5-second PostgreSQL one).
#
#   scripts/soak.sh [SECONDS] [extra soak_contexts options]
#   e.g. scripts/soak.sh 60 --threads 8 --processes 4 --rows 16
#
#   scripts/soak.sh --postgres [SECONDS] [extra soak_contexts options]
#   e.g. scripts/soak.sh --postgres 60 --threads 4 --processes 4 --rows 16
#
# --postgres soaks a PostgreSQL store instead: 4 processes of 4 threads (each
# with a connection of its own) increment counters and insert rows, and the
# store must hold every acknowledged increment and insert. The server is the
# one at OBJECTGRAPH_TEST_POSTGRES_URL when that is set; otherwise a throwaway
# one (scripts/lib/postgres.sh), stopped and removed at the end. Each run works
# in a schema of its own (soak_<pid>), dropped at the end.
#
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
og_ensure_tools cc pkg-config sqlite cmake

seconds=${1:-60}
shift || true
build=${OBJECTGRAPH_BUILD_DIR:-build}
lock=/tmp/objectgraph-build.lock
flock "$lock" cmake -S . -B "$build" -DOBJECTGRAPH_BUILD_TESTS=ON >/dev/null
flock "$lock" cmake --build "$build" --target soak_contexts --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
if [ "$postgres" -eq 0 ]; then
  exec "$build/Tests/c/soak_contexts" --seconds "$seconds" "$@"
fi

source scripts/lib/postgres.sh
if [ -z "${OBJECTGRAPH_TEST_POSTGRES_URL:-}" ]; then
  og_ensure_postgres || { echo "soak: PostgreSQL could not be installed" >&2; exit 1; }
  trap og_pg_stop EXIT
  og_pg_start || { echo "soak: the throwaway PostgreSQL server did not start" >&2; exit 1; }
fi
status=0
"$build/Tests/c/soak_contexts" --postgres "$OBJECTGRAPH_TEST_POSTGRES_URL" --seconds "$seconds" "$@" || status=$?
exit "$status"
