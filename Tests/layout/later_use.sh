#!/bin/sh
# A tree where Values uses a type of Graph: check-layers.py must report it and fail;
# without that use it must pass.
set -u
python=$1 script=$2
root=$(mktemp -d) || exit 1
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/Values" "$root/Graph"
printf 'final class Context {}\n' > "$root/Graph/Context.swift"
printf '// Context in a comment is no use\nstruct Value { let s = "Context" }\n' > "$root/Values/Value.swift"
"$python" "$script" --root "$root" >/dev/null 2>&1 || { echo "a tree without later uses failed"; exit 1; }
printf 'struct Value { weak var owner: Context? }\n' > "$root/Values/Value.swift"
out=$("$python" "$script" --root "$root" 2>&1) && { echo "the later use was not found"; exit 1; }
echo "$out" | grep -q "Values/Value.swift:1: Values uses Context of Graph" || { echo "unexpected report: $out"; exit 1; }
echo "ok"
