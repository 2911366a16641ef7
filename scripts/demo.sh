#!/usr/bin/env bash
# The demo: builds the library with CMake, then runs the C and the Python
# quickstart, each against an SQLite file in a temporary directory.
# Installs what is missing first.
#
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh

og_ensure_swift
og_ensure_tools cc pkg-config sqlite cmake python3

build=${OBJECTGRAPH_BUILD_DIR:-build}
cmake -S . -B "$build"
cmake --build "$build" --target quickstart --parallel "$(nproc 2>/dev/null || echo 2)"

library="$PWD/$build/swiftpm/release/libobjectgraph.so"
[[ $build = /* ]] && library="$build/swiftpm/release/libobjectgraph.so"
work=$(mktemp -d "${TMPDIR:-/tmp}/objectgraph-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT

printf '\n=== C: examples/c/quickstart.c\n'
"$build/examples/c/quickstart" "$work/books-c.sqlite"

# The binding is used from the source tree: no pip install needed.
printf '\n=== Python: examples/python/quickstart.py\n'
OBJECTGRAPH_LIBRARY="$library" PYTHONPATH="$PWD/bindings/python${PYTHONPATH:+:$PYTHONPATH}" \
  python3 examples/python/quickstart.py "$work/books-py.sqlite"

printf '\ndemo: done\n'
