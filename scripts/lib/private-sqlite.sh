#!/usr/bin/env bash
# Builds the SQLite library the wheel carries, under a name of its own, and
# prints that name (libsqlite3-<hash>.so.0, also its SONAME).
#
#   scripts/lib/private-sqlite.sh DIR
#
# A process that loaded the system's libsqlite3.so.0 first (Python's sqlite3
# module does) would otherwise have the loader reuse that one for our library,
# which asks for a library by SONAME: a private name keeps the tested SQLite.
# It is linked from the distribution's static libsqlite3.a (the same SQLite the
# library was built against) with cmake/link/glibc_compat.c, so that it too
# loads on glibc 2.28, and exports SQLite's API only.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$1
link=$root/cmake/link
cc=${CC:-cc}

archive=$("$cc" -print-file-name=libsqlite3.a)
[ -f "$archive" ] || { echo "private-sqlite: libsqlite3.a not found (libsqlite3-dev)" >&2; exit 1; }
hash=$(cat "$archive" "$link/glibc_compat.c" "$link/glibc_compat.wrap" "$link/sqlite_exports.map" |
  sha256sum | cut -c1-8)
name=libsqlite3-$hash.so.0

work=$(mktemp -d "${TMPDIR:-/tmp}/objectgraph-sqlite-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$cc" -O2 -fPIC -c "$link/glibc_compat.c" -o "$work/glibc_compat.o"
wraps=()
while read -r symbol; do wraps+=("-Wl,--wrap=$symbol"); done < "$link/glibc_compat.wrap"
# ld.bfd: it leaves the wrappers' own versioned calls alone (gold would not).
# -Bsymbolic: the archive is compiled as position-independent executable code,
# which a shared library can hold only when its own symbols bind locally.
"$cc" -shared -fuse-ld=bfd -o "$out/$name" -Wl,-soname,"$name" -Wl,-Bsymbolic \
  -Wl,--version-script="$link/sqlite_exports.map" \
  -Wl,--whole-archive "$archive" -Wl,--no-whole-archive "$work/glibc_compat.o" "${wraps[@]}" \
  -Wl,--no-undefined -Wl,--no-as-needed -lm -l:libpthread.so.0 -l:libdl.so.2
strip --strip-unneeded "$out/$name"
echo "$name"
