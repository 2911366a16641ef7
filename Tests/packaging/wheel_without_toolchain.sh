#!/bin/sh
# Builds the wheel from the build's library (scripts/wheel.sh), checks its
# platform tag, symbol versions and exports (check_wheel.py), installs it into
# a new virtual environment with the toolchain hidden and no environment
# variables, and runs the Python quickstart and the store tool from there, and
# a program that imported Python's sqlite3 first (sqlite_first.py), which must
# still use the SQLite the wheel carries.
# Prints the wheel's size and the time from `pip install` to the quickstart's end.
# Usage: wheel_without_toolchain.sh SOURCE_DIR LIBRARY TOOLCHAIN_USR STATIC PYTHON
set -eu
source=$1 library=$2 toolchain=$3 static=$4 python=$5
here=$(cd "$(dirname "$0")" && pwd)
case $static in
  ON|on|1|TRUE|true|YES|yes) ;;
  *) echo "SKIPPED: built with OBJECTGRAPH_STATIC_STDLIB=$static (the toolchain's shared runtime)"; exit 77 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/og-wheel-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

wheel=$("$source/scripts/wheel.sh" --library "$library" --out "$work/dist")
case $(basename "$wheel") in
  pyobjectgraph-*-py3-none-manylinux_2_*.whl) ;;
  *) fail "unexpected wheel name $wheel" ;;
esac
"$python" "$here/check_wheel.py" "$wheel" || fail "the wheel breaks a promise of its platform tag"
"$python" -m venv "$work/venv"
cp "$source/examples/python/quickstart.py" "$work/quickstart.py"
cp "$here/sqlite_first.py" "$work/sqlite_first.py"

set +e
output=$(sh "$here/without_toolchain.sh" "$toolchain" sh -c '
  cd "$1"
  start=$(date +%s.%N)
  venv/bin/python -m pip install -q --no-index --disable-pip-version-check "$2" || exit 1
  venv/bin/python quickstart.py books.sqlite || exit 1
  end=$(date +%s.%N)
  echo "pip install to quickstart: $(echo "$end - $start" | awk "{ split(\$0, t, \" - \"); printf \"%.1f\", t[1] - t[2] }") s"
  venv/bin/objectgraph entities books.sqlite || exit 1
  venv/bin/python -c "import objectgraph, os; print(\"loaded\", os.path.relpath(objectgraph.library_path, \"$1\"))"
  mkdir sqlite-first
  LD_DEBUG=bindings LD_DEBUG_OUTPUT="$1/sqlite-first/ld" venv/bin/python sqlite_first.py sqlite-first || exit 1
' check "$work" "$wheel" 2>&1)
status=$?
set -e
printf '%s\n' "$output"
[ "$status" -ne 77 ] || exit 77
[ "$status" -eq 0 ] || fail "the wheel did not run without the toolchain (status $status)"
printf '%s\n' "$output" | grep -q '^before 1985 by Terry: Strata$' || fail "unexpected quickstart output"
printf '%s\n' "$output" | grep -q '^Book    3$' || fail "unexpected store tool output"
printf '%s\n' "$output" | grep -q '^loaded venv/lib/python[0-9.]*/site-packages/objectgraph/libobjectgraph.so.0$' ||
  fail "the library was not the wheel's"

# Python's sqlite3 had loaded the system's libsqlite3.so.0; ObjectGraph's
# SQLite calls must all have been bound to the wheel's private copy.
bindings=$(cat "$work"/sqlite-first/ld.* | grep 'binding file .*/libobjectgraph\.so\.0 .* to .*: normal symbol `sqlite3_' || true)
[ -n "$bindings" ] || fail "no SQLite binding of the library was traced"
printf '%s\n' "$bindings" | grep -v ' to [^ ]*/site-packages/objectgraph/libsqlite3-[0-9a-f]*\.so\.0 ' | head -n 5 | grep . &&
  fail "the library's SQLite functions came from another SQLite than the wheel's (above)"
grep -q 'binding file .*_sqlite3.* to [^ ]*/libsqlite3\.so\.0 ' "$work"/sqlite-first/ld.* ||
  fail "Python's sqlite3 module did not load the system's libsqlite3.so.0: nothing was tested"
echo "sqlite3 imported first: $(printf '%s\n' "$bindings" | wc -l) SQLite functions of the library bound to the wheel's copy"
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KB"
