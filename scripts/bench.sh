#!/usr/bin/env bash
# The benchmark (Benchmarks/README.md): builds the library with CMake, the C
# contender against it, and the Benchmarks package, then runs every contender
# and prints one table per workload. Arguments go to the runner, e.g.
# `scripts/bench.sh --quick`, `scripts/bench.sh --runs 9 --only raw-sqlite,og-swift`
# or `scripts/bench.sh --workload all --quick` (every workload, small sizes). Builds take the
# shared build lock; BENCH_LOCK=1 holds it during the measurements as well, so
# that no build on this machine runs meanwhile.
#
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh

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

# SQLAlchemy for its row; without it the row says "skipped".
if ! python3 -c 'import sqlalchemy, sys; sys.exit(int(sqlalchemy.__version__.split(".")[0]) < 2)' 2>/dev/null; then
  echo "bench: pip install 'sqlalchemy>=2,<3'" >&2
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  python3 -m pip install -q 'sqlalchemy>=2,<3' >&2 ||
    python3 -m pip install -q --break-system-packages 'sqlalchemy>=2,<3' >&2 ||
    echo "bench: SQLAlchemy could not be installed" >&2
fi

echo "bench: building Benchmarks (swift build -c release)" >&2
# The build plan lists ObjectGraph's source files; dropped, it is rebuilt and sees new ones.
rm -f Benchmarks/.build/release.yaml
# The release configuration the library ships with (CMakeLists.txt): no run-time exclusivity checks.
release=(-c release --package-path Benchmarks -Xswiftc -enforce-exclusivity=unchecked)
flock "$lock" swift build "${release[@]}" >&2
bench="$(swift build "${release[@]}" --show-bin-path)/bench"

run=("$bench" --c-program "$PWD/Benchmarks/.build/c/og_bench" --c-phase-program "$PWD/Benchmarks/.build/c/og_phase_bench"
     --python python3 --python-dir "$PWD/Benchmarks/python" "$@")
export OBJECTGRAPH_LIBRARY="$library_dir/libobjectgraph.so"
export PYTHONPATH="$PWD/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
if [ "${BENCH_LOCK:-0}" = 1 ]; then
  flock "$lock" "${run[@]}"
else
  "${run[@]}"
fi
