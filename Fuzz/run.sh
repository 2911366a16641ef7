#!/usr/bin/env bash
# Fuzzes the parsers of untrusted input with libFuzzer and AddressSanitizer
# (docs/testing.md, "Fuzzing the parsers").
#
#   Fuzz/run.sh <target> [seconds] [libFuzzer options...]   one target (default 600 s)
#   Fuzz/run.sh all [seconds] [libFuzzer options...]        every target, `seconds` each
#   Fuzz/run.sh list                                        the targets
#
# Builds the targets (Fuzz/.build; OG_FUZZ_NO_BUILD=1 skips the build), makes each
# target's seed corpus from the test fixtures (and ../shared/fixtures/apple-stores and
# ../shared/fixtures/xcode3-models when present) with the engine itself, then fuzzes. The corpus a run grows is kept in
# Fuzz/.build/corpus/<target> for the next run. Crashing, leaking-time and
# out-of-memory inputs land in Fuzz/findings/<target>/ (git-ignored); replay one with
#   Fuzz/.build/release/fuzz-<target> Fuzz/findings/<target>/crash-…
#
# Environment:
#   OG_FUZZ_KEEP_GOING=1   carry on after a crash (libFuzzer's fork mode), for long runs
# Exits non-zero when any target found a crash; the last line sums up the run.
set -euo pipefail
cd "$(dirname "$0")"
fuzz_dir=$PWD
root=$(cd .. && pwd)

targets=(predicate plist xcode-model json-model compiled-model mapping-model binary-store xml-store store-metadata sqlite-store model-cache)
# `run.sh SECONDS` (the older form) fuzzes the predicate parser.
if [[ ${1:-} =~ ^[0-9]+$ ]]; then set -- predicate "$@"; fi
what=${1:-}
seconds=${2:-600}
shift $(( $# < 2 ? $# : 2 ))
case $what in
  list) printf '%s\n' "${targets[@]}"; exit 0 ;;
  all) chosen=("${targets[@]}") ;;
  '') echo "usage: $0 <target|all|list> [seconds] [libFuzzer options...]" >&2; exit 2 ;;
  *)
    if [[ " ${targets[*]} " != *" $what "* ]]; then
      echo "unknown target '$what'; targets: ${targets[*]}" >&2
      exit 2
    fi
    chosen=("$what") ;;
esac

if [[ ${OG_FUZZ_NO_BUILD:-0} != 1 ]]; then
  swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
fi
bin=$(swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --show-bin-path)

export OG_FUZZ_ROOT=$root
# Leak detection is off: the only leaks seen are inside the toolchain's regular-expression
# parser (_RegexParser), reached through MATCHES, not in ObjectGraph.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}
# Swift's own crash reporter runs as a helper process that AddressSanitizer's memory
# layout confuses (it then hangs, holding the log's pipe): libFuzzer and AddressSanitizer
# print the stack themselves.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

# Removes the scratch directories of fuzzers that are gone (a crash skips their cleanup).
for d in /dev/shm/og-fuzz-*; do
  [[ -d $d ]] || continue
  pid=${d##*-}
  kill -0 "$pid" 2>/dev/null || rm -rf "$d"
done

failed=()
summary=()
for target in "${chosen[@]}"; do
  corpus=.build/corpus/$target
  seeds=.build/seeds/$target
  findings=findings/$target
  rm -rf "$seeds"
  mkdir -p "$corpus" "$seeds" "$findings"
  if [[ $target == predicate ]]; then
    python3 - "$seeds" <<'PY'
import json, pathlib, sys
cases = json.loads(pathlib.Path("../Tests/Predicates/cases.json").read_text(encoding="utf-8"))["cases"]
for i, case in enumerate(cases):
    pathlib.Path(sys.argv[1], f"seed-{i:03d}").write_text(case["format"], encoding="utf-8")
PY
  else
    "$bin/fuzz-$target" --make-seeds "$seeds"
  fi
  if [[ $target == compiled-model ]]; then
    # Foundation on Linux archives the generated model under its Swift class names;
    # give it Core Data's, as Xcode's model compiler writes them.
    python3 - "$seeds/mom-generated" <<'PY'
import plistlib, sys
core_data = {"ArchivedModel": "NSManagedObjectModel", "ArchivedEntity": "NSEntityDescription",
             "ArchivedAttribute": "NSAttributeDescription", "ArchivedRelationship": "NSRelationshipDescription",
             "ArchivedFetchedProperty": "NSFetchedPropertyDescription", "ArchivedFetchRequest": "NSFetchRequest",
             "ArchivedComparison": "NSComparisonPredicate", "ArchivedOperator": "NSPredicateOperator",
             "ArchivedExpression": "NSExpression", "Archived": "NSObject"}
path = sys.argv[1]
archive = plistlib.loads(open(path, "rb").read())
for o in archive["$objects"]:
    if isinstance(o, dict) and isinstance(o.get("$classname"), str):
        o["$classname"] = core_data.get(o["$classname"].split(".")[-1], o["$classname"])
        o["$classes"] = [core_data.get(c.split(".")[-1], c) for c in o.get("$classes", [])]
open(path, "wb").write(plistlib.dumps(archive, fmt=plistlib.FMT_BINARY))
PY
  fi
  options=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 -artifact_prefix="$findings/" -print_final_stats=1)
  [[ -f dictionaries/$target.dict ]] && options+=(-dict="dictionaries/$target.dict")
  if [[ ${OG_FUZZ_KEEP_GOING:-0} == 1 ]]; then
    options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  before=$(find "$findings" -type f ! -name 'slow-unit-*' | wc -l)
  log=.build/fuzz-$target.log
  printf '\n=== fuzz %s (%ss)\n' "$target" "$seconds"
  set +e
  "$bin/fuzz-$target" "$corpus" "$seeds" "${options[@]}" "$@" 2>&1 | tee "$log" |
    grep -E '^(#[0-9]+ +(INITED|DONE)|==[0-9]+==|SUMMARY|Done|Test unit written|stat::number_of_executed_units|Fatal error|\*\*\*)'
  status=${PIPESTATUS[0]}
  set -e
  after=$(find "$findings" -type f ! -name 'slow-unit-*' | wc -l)
  runs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+$' || true)
  if [[ -z $runs ]]; then runs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true); fi
  new=$((after - before))
  summary+=("$(printf '%-15s %10s runs  %3d new findings  exit %d' "$target" "${runs:-?}" "$new" "$status")")
  if [[ $status -ne 0 || $new -gt 0 ]]; then failed+=("$target"); fi
done

printf '\n'
printf '%s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: findings in ${failed[*]} (see Fuzz/findings/)"
  exit 1
fi
echo "fuzz: ${#chosen[@]} target(s), no findings"
