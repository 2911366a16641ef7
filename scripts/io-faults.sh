#!/usr/bin/env bash
# The I/O-fault test (Tests/robustness/og_crash.c and iofault.c, docs/testing.md):
# writers run with an LD_PRELOAD shim that fails the Nth write, pwrite, fsync,
# fdatasync, ftruncate or rename on the store's files (EIO or ENOSPC, once or
# from then on); then the store is checked without the shim: every failed save
# was reported, nothing acknowledged is lost, nothing is partial, it reopens.
#
#   scripts/io-faults.sh [RUNS] [og_crash options...]     default 300 runs
#
# The stores of a failed check are kept under Fuzz/findings/faults/.
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh
og_ensure_swift
og_ensure_tools cc pkg-config sqlite cmake python3
runs=${1:-300}
shift || true
build=${OBJECTGRAPH_BUILD_DIR:-build}
[[ $build = /* ]] || build=$PWD/$build
cmake -S . -B "$build" -DOBJECTGRAPH_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target og_crash og_iofault --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
mkdir -p Fuzz/findings/faults
exec "$build/Tests/robustness/og_crash" faults --type both --runs "$runs" --dir "$PWD/Fuzz/findings/faults" \
  --shim "$build/Tests/robustness/libog_iofault.so" "$@"
