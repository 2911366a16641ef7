#!/usr/bin/env bash
# The Python binding's thread stress run (bindings/python/tests/stress_threads.py):
# threads, each with its own contexts on one coordinator (some on coordinators of
# their own over the same file), insert, update, fetch and read every attribute
# type through every fast path, and every stored value is checked against what
# its thread wrote. The tests run a short version (tests/test_threads.py).
#
#   scripts/stress-python-threads.sh [stress_threads.py options]
#   e.g. scripts/stress-python-threads.sh --threads 8 --objects 125000   (the default: 1,000,000 inserts)
#
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh

og_ensure_swift
og_ensure_tools cc pkg-config sqlite cmake python3

build=${OBJECTGRAPH_BUILD_DIR:-build}
cmake -S . -B "$build" >/dev/null
cmake --build "$build" --target objectgraph_swift --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
library="$PWD/$build/swiftpm/release/libobjectgraph.so"
[[ $build = /* ]] && library="$build/swiftpm/release/libobjectgraph.so"
exec env OBJECTGRAPH_LIBRARY="$library" python3 bindings/python/tests/stress_threads.py "$@"
