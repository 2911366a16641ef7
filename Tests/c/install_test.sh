#!/bin/sh
# Installs the build into a temporary prefix, then builds and runs the
# quickstart against that copy twice: with pkg-config and with find_package.
# Usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR CC PKG_CONFIG GENERATOR
set -eu
cmake=$1 build=$2 source=$3 cc=$4 pkg_config=$5 generator=$6
work=$(mktemp -d "${TMPDIR:-/tmp}/og-install-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

step() { printf '\n== %s\n' "$*"; }
fail() { echo "FAILED: $*"; exit 1; }

step "cmake --install into $prefix"
"$cmake" --install "$build" --prefix "$prefix"

pc=$(find "$prefix" -name objectgraph.pc | head -n 1)
[ -n "$pc" ] || fail "objectgraph.pc was not installed"
libdir=$(dirname "$(dirname "$pc")")
[ -f "$libdir/libobjectgraph.so.0.1.0" ] && [ ! -L "$libdir/libobjectgraph.so.0.1.0" ] ||
  fail "$libdir/libobjectgraph.so.0.1.0 is not a file"
[ "$(readlink "$libdir/libobjectgraph.so.0")" = libobjectgraph.so.0.1.0 ] ||
  fail "libobjectgraph.so.0 does not link to libobjectgraph.so.0.1.0"
[ "$(readlink "$libdir/libobjectgraph.so")" = libobjectgraph.so.0.1.0 ] ||
  fail "libobjectgraph.so does not link to libobjectgraph.so.0.1.0"
[ -f "$prefix/include/objectgraph.h" ] || fail "objectgraph.h was not installed"
[ -f "$libdir/cmake/ObjectGraph/ObjectGraphConfig.cmake" ] &&
  [ -f "$libdir/cmake/ObjectGraph/ObjectGraphConfigVersion.cmake" ] ||
  fail "the CMake package was not installed"
echo "installed files are in place"

# The example must print the books before 1972 in year order, and no later one.
check_output() {
  printf '%s\n' "$1"
  printf '%s\n' "$1" | grep -q '^1968  A Wizard of Earthsea' || fail "unexpected output"
  printf '%s\n' "$1" | grep -q '^1971  ' || fail "unexpected output"
  ! printf '%s\n' "$1" | grep -q '^1974  ' || fail "the predicate let a later book through"
}

step "pkg-config"
[ -n "$pkg_config" ] || fail "pkg-config was not found when the build was configured"
export PKG_CONFIG_PATH="$(dirname "$pc")"
cat "$pc"
version=$("$pkg_config" --modversion objectgraph)
[ "$version" = 0.1.0 ] || fail "pkg-config version is $version"
flags=$("$pkg_config" --cflags --libs objectgraph)
pc_libdir=$("$pkg_config" --variable=libdir objectgraph)
echo "cc $flags"
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c11 -Wall -Wextra -o "$work/quickstart-pkg-config" \
  "$source/examples/c/quickstart.c" $flags -Wl,-rpath,"$pc_libdir"
LC_ALL=C readelf -d "$work/quickstart-pkg-config" | grep -q 'NEEDED.*\[libobjectgraph\.so\.0\]' ||
  fail "the program does not record libobjectgraph.so.0"
check_output "$("$work/quickstart-pkg-config" "$work/pkg-config.sqlite")"

step "find_package(ObjectGraph)"
"$cmake" -S "$source/Tests/c/consumer" -B "$work/consumer" -G "$generator" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  -DQUICKSTART_SOURCE="$source/examples/c/quickstart.c"
"$cmake" --build "$work/consumer"
check_output "$("$work/consumer/quickstart" "$work/find-package.sqlite")"

step "both consumers built and ran against the installed library"
