#!/usr/bin/env bash
# The many-contexts soak (Tests/c/soak_contexts.c): threads and processes
# increment the same counters, retrying after conflicts, and every
# acknowledged save must be in the store at the end. Not part of the tests'
# timing: the tests run a 20-second version.
#
#   scripts/soak.sh [SECONDS] [extra soak_contexts options]
#   e.g. scripts/soak.sh 60 --threads 8 --processes 4 --rows 16
#
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh

og_ensure_swift
og_ensure_tools cc pkg-config sqlite cmake

seconds=${1:-60}
shift || true
build=${OBJECTGRAPH_BUILD_DIR:-build}
cmake -S . -B "$build" -DOBJECTGRAPH_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target soak_contexts --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
exec "$build/Tests/c/soak_contexts" --seconds "$seconds" "$@"
