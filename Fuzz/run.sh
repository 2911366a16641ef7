#!/usr/bin/env bash
# Fuzzes the predicate parser with libFuzzer: builds the fuzz target with coverage
# and AddressSanitizer, seeds a corpus from the case table, and runs for
# $1 seconds (default 600). Findings land in Fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
corpus=.build/corpus
mkdir -p "$corpus" findings
python3 - "$corpus" <<'PY'
import json, pathlib, sys
cases = json.loads(pathlib.Path("../Tests/Predicates/cases.json").read_text(encoding="utf-8"))["cases"]
for i, case in enumerate(cases):
    pathlib.Path(sys.argv[1], f"seed-{i:03d}").write_text(case["format"], encoding="utf-8")
PY
# Leak detection is off: the only leaks seen are inside the toolchain's regular-expression
# parser (_RegexParser), reached through MATCHES, not in ObjectGraph.
exec .build/release/fuzz-predicate "$corpus" -max_total_time="$seconds" -detect_leaks=0 -artifact_prefix=findings/ -print_final_stats=1
