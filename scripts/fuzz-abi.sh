#!/usr/bin/env bash
# The C ABI misuse fuzzer (Fuzz/abi/abi_fuzz.c, docs/testing.md): random calls of
# every function in include/objectgraph.h with valid, NULL, released, wrong-kind
# and forged handles, odd strings and extreme numbers, in forked batches.
#
#   scripts/fuzz-abi.sh [SECONDS] [abi_fuzz options...]     default 600 s
#   e.g. scripts/fuzz-abi.sh 1200 --jobs 2 --calls 5000
#
# A failed batch prints its seed, the replay command and its last calls, and is
# written to Fuzz/findings/abi/. OBJECTGRAPH_BUILD_DIR chooses the CMake build
# directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh
og_ensure_swift
og_ensure_tools cc pkg-config sqlite cmake python3
seconds=${1:-600}
shift || true
build=${OBJECTGRAPH_BUILD_DIR:-build}
[[ $build = /* ]] || build=$PWD/$build
cmake -S . -B "$build" -DOBJECTGRAPH_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target abi_fuzz --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
exec "$build/Tests/robustness/abi_fuzz" --seconds "$seconds" --findings Fuzz/findings/abi "$@"
