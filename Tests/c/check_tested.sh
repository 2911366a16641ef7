#!/bin/sh
# Every function declared in objectgraph.h is called by some C test.
# Usage: check_tested.sh CC HEADER TESTS_DIR
set -eu
cc=$1 header=$2 tests=$3
here=$(dirname "$0")
missing=""
for name in $(sh "$here/header_functions.sh" "$cc" "$header"); do
  grep -qw "$name" "$tests"/*.c "$tests"/*.h || missing="$missing $name"
done
if [ -n "$missing" ]; then
  echo "functions no C test calls:"
  for name in $missing; do echo "  $name"; done
  exit 1
fi
echo "every declared function is called by a C test"
