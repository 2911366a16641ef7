#!/usr/bin/env bash
# ThreadSanitizer over the queue contexts (docs/testing.md, "ThreadSanitizer"):
#
#  1. the queue-context XCTests (private- and main-queue contexts, perform and
#     performAndWait, child contexts of queue parents, merging across threads,
#     wrong-thread detection, two threads creating one store) in a debug build
#     with -sanitize=thread (scratch path .build-tsan);
#  2. the C tests that drive queue contexts from threads (test_thread, test_graph
#     queue_contexts and wrong_thread, and soak_contexts for SOAK seconds) against
#     the library built with -sanitize=thread (scratch path .build-tsan-lib),
#     compiled with the toolchain's clang so both share one TSan runtime.
#
#   scripts/tsan.sh [SOAK_SECONDS]      default 30
#
# Reports go to Fuzz/findings/tsan/ (xctest.log, c-<test>.log); the last line counts
# the ThreadSanitizer warnings. Exits non-zero when there are any or a test failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh
og_ensure_swift || exit 1
og_ensure_tools cc pkg-config sqlite zlib || exit 1
soak=${1:-30}
out=Fuzz/findings/tsan
mkdir -p "$out"
rm -f "$out"/*.log
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0 second_deadlock_stack=1 history_size=5}
failed=0

filter='GraphRulesTests.test_2_12|ContextParentTests|ContextMergingTests|MergePolicyTests|QueueContextStressTests|StoreProcessSafetyTests|ContextTests.testAContextRefusesCallsFromAnotherThread'
echo "=== XCTest under ThreadSanitizer ($filter)"
if swift build --build-tests --sanitize=thread --scratch-path .build-tsan; then
  swift test --skip-build --sanitize=thread --scratch-path .build-tsan --filter "$filter" >"$out/xctest.log" 2>&1 || failed=1
  grep -E "Executed [0-9]+ tests" "$out/xctest.log" | tail -1
else
  echo "the ThreadSanitizer test build failed"
  failed=1
fi

echo "=== C tests against the library built with ThreadSanitizer"
lib=.build-tsan-lib
if swift build -c release --product objectgraph --sanitize=thread --scratch-path "$lib" \
     -Xlinker -soname=libobjectgraph.so.0; then
  bin=$(swift build -c release --product objectgraph --sanitize=thread --scratch-path "$lib" --show-bin-path)
  ln -sf libobjectgraph.so "$bin/libobjectgraph.so.0"
  toolchain=$(dirname "$(command -v swift)")
  clang=$toolchain/clang
  # The static TSan runtime intercepts libdispatch, so it needs it at link time.
  runtime=$toolchain/../lib/swift/linux
  for t in test_thread test_graph soak_contexts; do
    "$clang" -fsanitize=thread -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -ITests/c "Tests/c/$t.c" \
      -L"$bin" -lobjectgraph -Wl,-rpath,"$bin" -L"$runtime" -Wl,-rpath,"$runtime" -ldispatch -lBlocksRuntime \
      -lpthread -lm -o "$bin/$t" || { failed=1; continue; }
  done
  run() {
    local name=$1
    shift
    echo "--- $name"
    if ! "$@" >"$out/c-$name.log" 2>&1; then
      echo "    failed (see $out/c-$name.log)"
      failed=1
    fi
  }
  run test_thread "$bin/test_thread"
  run graph_queue_contexts "$bin/test_graph" queue_contexts
  run graph_wrong_thread "$bin/test_graph" wrong_thread
  run soak_contexts "$bin/soak_contexts" --seconds "$soak"
else
  echo "the ThreadSanitizer library build failed"
  failed=1
fi

warnings=$(cat "$out"/*.log 2>/dev/null | grep -c "WARNING: ThreadSanitizer" || true)
for f in "$out"/*.log; do
  n=$(grep -c "WARNING: ThreadSanitizer" "$f" || true)
  [ "$n" -gt 0 ] && echo "  $n warning(s) in $f: $(grep -A3 'WARNING: ThreadSanitizer' "$f" | grep -m1 -E '#0 ' | sed 's/^ *//')"
done
echo "tsan: $warnings ThreadSanitizer warning(s); tests $([ $failed -eq 0 ] && echo passed || echo FAILED)"
[ "$warnings" -eq 0 ] && [ $failed -eq 0 ]
