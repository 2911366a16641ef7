#!/bin/sh
# The functions declared in objectgraph.h and the symbols the library exports
# must be the same set: no og_ function missing or undeclared, and nothing else
# exported (the engine's Swift symbols and the Swift runtime stay inside, see
# cmake/link/exports.map). Prints the differences both ways.
# Usage: check_exports.sh CC NM HEADER LIBRARY
set -eu
cc=$1 nm=$2 header=$3 library=$4
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sh "$here/header_functions.sh" "$cc" "$header" > "$tmp/declared"
# Global, weak and unique symbols (upper-case types, and u); the lower-case ones
# are local entries some linkers leave in .dynsym, which no other object can see.
"$nm" -D --defined-only "$library" | awk '$(NF-1) ~ /^([A-Z]|u)$/ { print $NF }' |
  LC_ALL=C sort -u > "$tmp/all_exported"
grep '^og_' "$tmp/all_exported" > "$tmp/exported" || true
grep -v '^og_' "$tmp/all_exported" > "$tmp/internal" || true

LC_ALL=C comm -23 "$tmp/declared" "$tmp/exported" > "$tmp/missing"
LC_ALL=C comm -13 "$tmp/declared" "$tmp/exported" > "$tmp/extra"

echo "declared in $(basename "$header"): $(wc -l < "$tmp/declared")"
echo "og_ symbols exported by $(basename "$library"): $(wc -l < "$tmp/exported")"
echo "other symbols exported: $(wc -l < "$tmp/internal")"
status=0
if [ -s "$tmp/internal" ]; then
  echo "exported but not og_ functions (first 20):"
  head -n 20 "$tmp/internal" | sed 's/^/  /'
  status=1
fi
if [ -s "$tmp/missing" ]; then
  echo "declared but not exported:"
  sed 's/^/  /' "$tmp/missing"
  status=1
fi
if [ -s "$tmp/extra" ]; then
  echo "exported but not declared:"
  sed 's/^/  /' "$tmp/extra"
  status=1
fi
[ "$status" -eq 0 ] && echo "header and exports agree"
exit "$status"
