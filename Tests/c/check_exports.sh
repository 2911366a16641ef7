#!/bin/sh
# The functions declared in objectgraph.h and the og_ symbols the library
# exports must be the same set. Prints the differences both ways.
# Usage: check_exports.sh CC NM HEADER LIBRARY
set -eu
cc=$1 nm=$2 header=$3 library=$4
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sh "$here/header_functions.sh" "$cc" "$header" > "$tmp/declared"
"$nm" -D --defined-only "$library" | awk '{ print $NF }' | grep '^og_' |
  LC_ALL=C sort -u > "$tmp/exported" || true

LC_ALL=C comm -23 "$tmp/declared" "$tmp/exported" > "$tmp/missing"
LC_ALL=C comm -13 "$tmp/declared" "$tmp/exported" > "$tmp/extra"

echo "declared in $(basename "$header"): $(wc -l < "$tmp/declared")"
echo "og_ symbols exported by $(basename "$library"): $(wc -l < "$tmp/exported")"
status=0
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
