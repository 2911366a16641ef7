#!/bin/sh
# Installs the build into a temporary prefix with `cmake --install --strip`,
# checks that the installed library is stripped, exports only the og_
# functions, needs no Swift library and names its licence, then builds the C
# quickstart against it with pkg-config and runs it with the toolchain hidden.
# Usage: install_without_toolchain.sh CMAKE BUILD_DIR SOURCE_DIR CC PKG_CONFIG TOOLCHAIN_USR STATIC
set -eu
cmake=$1 build=$2 source=$3 cc=$4 pkg_config=$5 toolchain=$6 static=$7
here=$(cd "$(dirname "$0")" && pwd)
case $static in
  ON|on|1|TRUE|true|YES|yes) ;;
  *) echo "SKIPPED: built with OBJECTGRAPH_STATIC_STDLIB=$static (the toolchain's shared runtime)"; exit 77 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/og-no-swift-XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "FAILED: $*"; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" --strip >/dev/null
pc=$(find "$prefix" -name objectgraph.pc | head -n 1)
libdir=$(dirname "$(dirname "$pc")")
lib=$libdir/libobjectgraph.so.0

echo "== stripped, exporting the C ABI only"
built=$build/swiftpm/release/libobjectgraph.so
! LC_ALL=C readelf -S --wide "$lib" | grep -q ' \.symtab ' || fail "the installed library has a symbol table (not stripped)"
echo "built $(wc -c < "$built") bytes, installed $(wc -c < "$lib") bytes"
[ "$(wc -c < "$lib")" -lt "$(wc -c < "$built")" ] || fail "the installed library is not smaller than the built one"
sh "$source/Tests/c/check_exports.sh" "$cc" nm "$source/include/objectgraph.h" "$lib" ||
  fail "the installed library exports other symbols than the header's functions"

echo "== what the installed library needs"
LC_ALL=C readelf -d "$lib" | grep -E 'NEEDED|RPATH|RUNPATH'
! LC_ALL=C readelf -d "$lib" | grep -E 'NEEDED.*\[(libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime)' ||
  fail "the installed library needs a library of the Swift runtime"
! LC_ALL=C readelf -d "$lib" | grep -E 'R(UN)?PATH' | grep -q "$toolchain" ||
  fail "the installed library looks for libraries in the toolchain ($toolchain)"

echo "== licence"
grep -q '^MIT License' "$prefix/share/doc/objectgraph/LICENSE" || fail "LICENSE not installed"
grep -q 'MIT' "$pc" || fail "objectgraph.pc does not name the licence"
grep 'MIT' "$pc"

echo "== quickstart, built with pkg-config, run with the toolchain hidden"
export PKG_CONFIG_PATH="$(dirname "$pc")"
# shellcheck disable=SC2046 # the flags are words
"$cc" -std=c11 -o "$work/quickstart" "$source/examples/c/quickstart.c" \
  $("$pkg_config" --cflags --libs objectgraph) -Wl,-rpath,"$libdir"
set +e
output=$(sh "$here/without_toolchain.sh" "$toolchain" sh -c '
  ldd "$1" | grep "not found" && exit 1
  exec "$2" "$3"' check "$lib" "$work/quickstart" "$work/books.sqlite" 2>&1)
status=$?
set -e
printf '%s\n' "$output"
[ "$status" -ne 77 ] || exit 77
[ "$status" -eq 0 ] || fail "the quickstart did not run without the toolchain (status $status)"
printf '%s\n' "$output" | grep -q '^1968  A Wizard of Earthsea' || fail "unexpected output"
echo "the installed library ran without the Swift toolchain"
