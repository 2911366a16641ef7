#!/usr/bin/env bash
# Runs every test: XCTest (swift test), the C tests, ABI checks and short runs of the
# robustness tools (ctest), the Python binding's tests (pytest) against the library
# CMake built, and short runs of the libFuzzer targets (docs/testing.md).
# Installs what is missing first. Exits non-zero when any step fails, and ends
# with the steps' outcome, the counts by runner, and one line counting tests
# alone: "tests: N passed, N failed, N skipped" (tests that need fixtures
# outside the repository count as skipped when those are absent).
#
# OBJECTGRAPH_BUILD_DIR chooses the CMake build directory (default: build).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh
source scripts/lib/postgres.sh

og_ensure_swift &&
  og_ensure_tools cc pkg-config sqlite zlib cmake valgrind python3 &&
  og_ensure_pytest && og_ensure_mypy && og_ensure_postgres ||
  { echo "tests: 0 passed, 1 failed (could not install what the tests need)"; exit 1; }

build=${OBJECTGRAPH_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
report=()

# Each step's output is kept, so that the closing line can count tests.
logs=$(mktemp -d "${TMPDIR:-/tmp}/objectgraph-tests-XXXXXX")
trap 'og_pg_stop; rm -rf "$logs"' EXIT

# The PostgreSQL store's tests in every runner use a throwaway server on 127.0.0.1
# (scripts/lib/postgres.sh), stopped and removed when this script ends.
og_pg_start || { echo "tests: 0 passed, 1 failed (could not start the PostgreSQL test server)"; exit 1; }

# step NAME COMMAND...: runs one step and records whether it passed.
step() {
  local name=$1
  shift
  printf '\n=== %s\n' "$name"
  if "$@" 2>&1 | tee "$logs/${name//[^a-z]/_}.log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
    passed=$((passed + 1))
    report+=("passed   $name")
    return 0
  fi
  failed=$((failed + 1))
  report+=("FAILED   $name")
  return 1
}

# not_run NAME REASON: a step that could not run counts as failed.
not_run() {
  failed=$((failed + 1))
  report+=("FAILED   $1 (not run: $2)")
}

# The fixtures beside the repository are read in place or on copies, never changed:
# their files are hashed now and compared after every step.
fixtures="$PWD/../shared/fixtures"
python3 scripts/lib/fixture_hashes.py "$fixtures" > "$logs/fixtures-before.txt"

# swift test's last line comes from swift-testing and says "passed" even when
# XCTest failed: only the exit code counts.
if step "swift build --build-tests" swift build --build-tests; then
  step "swift test" swift test
else
  not_run "swift test" "the test build failed"
fi

library="$PWD/$build/swiftpm/release/libobjectgraph.so"
[[ $build = /* ]] && library="$build/swiftpm/release/libobjectgraph.so"
if ! step "cmake configure" cmake -S . -B "$build" -DOBJECTGRAPH_BUILD_TESTS=ON -DOBJECTGRAPH_BUILD_EXAMPLES=ON; then
  not_run "cmake build" "configure failed"
  not_run "ctest" "configure failed"
  not_run "pytest" "the library was not built"
elif ! step "cmake build" cmake --build "$build" --parallel "$jobs"; then
  not_run "ctest" "the CMake build failed"
  not_run "pytest" "the library was not built"
else
  step "ctest" ctest --test-dir "$build" --output-on-failure
  step "pytest" env OBJECTGRAPH_LIBRARY="$library" \
    PYTHONPATH="$PWD/bindings/python${PYTHONPATH:+:$PYTHONPATH}" \
    python3 -m pytest bindings/python/tests -q
fi

# Short runs of every libFuzzer target (Fuzz/run.sh, docs/testing.md): a few seconds
# each after their build. The C ABI fuzzer, crash-safety and I/O-fault tests ran above
# as ctest's robust.* tests. OBJECTGRAPH_SKIP_FUZZ=1 leaves this step out.
if [ "${OBJECTGRAPH_SKIP_FUZZ:-0}" != 1 ]; then
  step "fuzz (short)" Fuzz/run.sh all "${OBJECTGRAPH_FUZZ_SECONDS:-5}"
fi

# fixtures_unchanged: fails, naming the files, when any step changed or added a fixture file.
fixtures_unchanged() {
  python3 scripts/lib/fixture_hashes.py "$fixtures" > "$logs/fixtures-after.txt"
  if diff "$logs/fixtures-before.txt" "$logs/fixtures-after.txt"; then
    echo "the fixtures in $fixtures are as they were"
  else
    echo "a step changed the fixtures in $fixtures (lines above: < before, > after)"
    return 1
  fi
}
if [ -d "$fixtures" ]; then
  step "fixtures unchanged" fixtures_unchanged
fi

# Counts of tests, from each runner's own summary (XCTest's last "Executed" line,
# ctest's "out of N" and "(Skipped)" lines, pytest's closing line).
count_tests() {
  python3 - "$logs" "$1" <<'PY'
import pathlib, re, sys
logs = pathlib.Path(sys.argv[1])
def text(name):
    p = logs / name
    return p.read_text(errors="replace") if p.exists() else ""
passed = failed = skipped = 0
# A step that failed without a failing test of its own (a build, a runner that
# stopped early) still counts as a failure on the closing line.
step_failures = int(sys.argv[2])
parts = []
xc = re.findall(r"Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures?", text("swift_test.log"))
if xc:
    n, s, f = (int(x or 0) for x in xc[-1])
    passed += n - s - f; failed += f; skipped += s
    parts.append(f"XCTest {n - s - f}/{f}/{s}")
ct = text("ctest.log")
m = re.search(r"tests passed, (\d+) tests? failed out of (\d+)", ct)
if m:
    f, n = int(m.group(1)), int(m.group(2))
    s = len(re.findall(r"\(Skipped\)", ct))
    passed += n - f - s; failed += f; skipped += s
    parts.append(f"ctest {n - f - s}/{f}/{s}")
py = text("pytest.log").strip().splitlines()
if py:
    last = py[-1]
    get = lambda word: sum(int(x) for x in re.findall(r"(\d+) " + word, last))
    p_, f_, s_ = get("passed"), get("failed") + get("error"), get("skipped")
    passed += p_; failed += f_; skipped += s_
    parts.append(f"pytest {p_}/{f_}/{s_}")
print(f"by runner (passed/failed/skipped): {', '.join(parts) or 'none ran'}")
# The closing line, alone: the number of tests, not of steps.
print(f"tests: {passed} passed, {failed if failed else step_failures} failed, {skipped} skipped")
PY
}

printf '\n'
printf '%s\n' "${report[@]}"
echo "steps: $passed of $((passed + failed)) succeeded"
count_tests "$failed"
[ "$failed" -eq 0 ]
