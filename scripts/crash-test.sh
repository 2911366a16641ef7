#!/usr/bin/env bash
# The crash-safety test (Tests/robustness/og_crash.c, docs/testing.md): writers
# saving self-checking batches into SQLite and Binary stores are killed with
# SIGKILL at random moments; after each kill the store is checked (integrity,
# every acknowledged save present, nothing partial, it reopens and saves).
#
#   scripts/crash-test.sh [KILLS] [og_crash options...]     default 300 kills
#   e.g. scripts/crash-test.sh 1000 --type SQLite --seed 42
#
# The stores of a failed check are kept under Fuzz/findings/crash/.
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh
og_ensure_swift
og_ensure_tools cc pkg-config sqlite cmake python3
kills=${1:-300}
shift || true
build=${OBJECTGRAPH_BUILD_DIR:-build}
[[ $build = /* ]] || build=$PWD/$build
cmake -S . -B "$build" -DOBJECTGRAPH_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target og_crash --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
mkdir -p Fuzz/findings/crash
exec "$build/Tests/robustness/og_crash" kills --type both --kills "$kills" --dir "$PWD/Fuzz/findings/crash" "$@"
