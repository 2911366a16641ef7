#!/usr/bin/env bash
# The benchmark (Benchmarks/README.md): builds the library with CMake, the C
# contender against it, and the Benchmarks package, then runs every contender
# and prints one table per workload. Arguments go to the runner, e.g.
# `scripts/bench.sh --quick`, `scripts/bench.sh --runs 9 --only raw-sqlite,og-swift`
# or `scripts/bench.sh --workload all --quick` (every workload, small sizes). Builds take the
# shared build lock; BENCH_LOCK=1 holds it during the measurements as well, so
# that no build on this machine runs meanwhile.
#
# The postgres workload (`--workload postgres`, or `all`) runs on the PostgreSQL server of
# OBJECTGRAPH_BENCH_POSTGRES_URL; without it, this script starts a throwaway server
# (scripts/lib/postgres.sh) and stops it on exit. It also builds the raw libpq contender
# (libpq-dev) and installs psycopg for SQLAlchemy's row, only when that workload is chosen.
#
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh
source scripts/lib/postgres.sh

# Whether the postgres workload is chosen: the last --workload (else BENCH_WORKLOAD)
# names it or `all`.
workloads=${BENCH_WORKLOAD:-main}
previous=""
for argument in "$@"; do
  [ "$previous" = --workload ] && workloads=$argument
  previous=$argument
done
postgres=0
case ",$workloads," in *,postgres,* | *,all,*) postgres=1 ;; esac

lock=/tmp/objectgraph-build.lock
og_ensure_swift
og_ensure_tools cc pkg-config sqlite cmake python3

build=${OBJECTGRAPH_BUILD_DIR:-build}
[[ $build = /* ]] || build="$PWD/$build"
library_dir="$build/swiftpm/release"

echo "bench: building libobjectgraph.so (CMake, $build)" >&2
flock "$lock" cmake -S . -B "$build" >/dev/null
flock "$lock" cmake --build "$build" --target objectgraph_swift >&2

echo "bench: building the C contenders" >&2
mkdir -p Benchmarks/.build/c
for program in og_bench og_phase_bench; do
  flock "$lock" cc -O2 -std=c11 -Wall -Wextra -Iinclude "Benchmarks/c/$program.c" \
    -L"$library_dir" -lobjectgraph -Wl,-rpath,"$library_dir" -o "Benchmarks/.build/c/$program"
done
libpq_program=()
if [ "$postgres" = 1 ]; then
  # The raw libpq contender of the postgres workload; without libpq's headers its row is skipped.
  pkg-config --exists libpq 2>/dev/null || og_apt_install libpq-dev >&2 || true
  if pkg-config --exists libpq 2>/dev/null; then
    # shellcheck disable=SC2046 # pkg-config's flags are separate words
    flock "$lock" cc -O2 -std=c11 -Wall -Wextra $(pkg-config --cflags libpq) Benchmarks/c/raw_libpq_bench.c \
      $(pkg-config --libs libpq) -o Benchmarks/.build/c/raw_libpq_bench
    libpq_program=(--libpq-program "$PWD/Benchmarks/.build/c/raw_libpq_bench")
  else
    echo "bench: libpq's headers (libpq-dev) are missing: no raw libpq row" >&2
  fi
fi

# SQLAlchemy for its row; without it the row says "skipped".
if ! python3 -c 'import sqlalchemy, sys; sys.exit(int(sqlalchemy.__version__.split(".")[0]) < 2)' 2>/dev/null; then
  echo "bench: pip install 'sqlalchemy>=2,<3'" >&2
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  python3 -m pip install -q 'sqlalchemy>=2,<3' >&2 ||
    python3 -m pip install -q --break-system-packages 'sqlalchemy>=2,<3' >&2 ||
    echo "bench: SQLAlchemy could not be installed" >&2
fi
# psycopg 3 for SQLAlchemy's row of the postgres workload; without it the row says "skipped".
if [ "$postgres" = 1 ] && ! python3 -c 'import psycopg' 2>/dev/null; then
  echo "bench: pip install 'psycopg[binary]'" >&2
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  python3 -m pip install -q 'psycopg[binary]' >&2 ||
    python3 -m pip install -q --break-system-packages 'psycopg[binary]' >&2 ||
    echo "bench: psycopg could not be installed" >&2
fi

# The postgres workload's server: the one given, else a throwaway one until this script exits.
if [ "$postgres" = 1 ] && [ -z "${OBJECTGRAPH_BENCH_POSTGRES_URL:-}" ]; then
  if og_ensure_postgres >&2 && og_pg_start >&2; then
    trap og_pg_stop EXIT
    export OBJECTGRAPH_BENCH_POSTGRES_URL=$OBJECTGRAPH_TEST_POSTGRES_URL
  else
    echo "bench: no PostgreSQL server could be started: the postgres workload's rows are skipped" >&2
  fi
fi

echo "bench: building Benchmarks (swift build -c release)" >&2
# The build plan lists ObjectGraph's source files; dropped, it is rebuilt and sees new ones.
rm -f Benchmarks/.build/release.yaml
# The release configuration the library ships with (CMakeLists.txt): no run-time exclusivity checks.
release=(-c release --package-path Benchmarks -Xswiftc -enforce-exclusivity=unchecked)
flock "$lock" swift build "${release[@]}" >&2
bench="$(swift build "${release[@]}" --show-bin-path)/bench"

run=("$bench" --c-program "$PWD/Benchmarks/.build/c/og_bench" --c-phase-program "$PWD/Benchmarks/.build/c/og_phase_bench"
     ${libpq_program[@]+"${libpq_program[@]}"} --python python3 --python-dir "$PWD/Benchmarks/python" "$@")
export OBJECTGRAPH_LIBRARY="$library_dir/libobjectgraph.so"
export PYTHONPATH="$PWD/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
if [ "${BENCH_LOCK:-0}" = 1 ]; then
  flock "$lock" "${run[@]}"
else
  "${run[@]}"
fi
