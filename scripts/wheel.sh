#!/usr/bin/env bash
# Builds the Python wheel: the objectgraph package with the library inside,
# stripped, with the Swift runtime linked in (no Swift needed where it is
# installed) and SQLite beside it under a private name. Tagged manylinux for
# the newest glibc symbol version the bundled libraries use (2.28 for a library
# linked with cmake/link/glibc_compat.c, the CMake default on x86_64).
#
#   scripts/wheel.sh [--library PATH] [--out DIR]
#
# --library: a libobjectgraph.so built with OBJECTGRAPH_STATIC_STDLIB=ON (the
#   CMake default); without it, the CMake build in $OBJECTGRAPH_BUILD_DIR
#   (default: build) is built first. --out: where the wheel goes (default: dist).
# Prints the wheel's path last.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/deps.sh

library="" out=dist
while [ $# -gt 0 ]; do
  case $1 in
    --library) library=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: scripts/wheel.sh [--library PATH] [--out DIR]" >&2; exit 2 ;;
  esac
done

og_ensure_tools python3 >&2
og_ensure_wheel_tools >&2
command -v strip >/dev/null && command -v readelf >/dev/null || og_apt_install binutils >&2
og_ensure_tools cc sqlite patchelf >&2

if [ -z "$library" ]; then
  og_ensure_swift >&2
  og_ensure_tools cc pkg-config sqlite cmake >&2
  build=${OBJECTGRAPH_BUILD_DIR:-build}
  cmake -S . -B "$build" -DOBJECTGRAPH_STATIC_STDLIB=ON >&2
  cmake --build "$build" --target objectgraph_swift >&2
  library="$build/swiftpm/release/libobjectgraph.so"
fi
[ -f "$library" ] || { echo "wheel: no library at $library" >&2; exit 1; }

# The library must not need the Swift toolchain at run time.
if LC_ALL=C readelf -d "$library" | grep -E 'NEEDED.*\[(libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime)' >&2; then
  echo "wheel: $library needs the Swift runtime's shared libraries; build it with -DOBJECTGRAPH_STATIC_STDLIB=ON" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/objectgraph-wheel-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cp bindings/python/pyproject.toml bindings/python/README.md bindings/python/LICENSE "$work/src/"
cp -r bindings/python/objectgraph "$work/src/objectgraph"
find "$work/src" -name __pycache__ -prune -exec rm -rf {} +
rm -f "$work/src/objectgraph/"lib*.so*
package="$work/src/objectgraph"
strip --strip-unneeded -o "$package/libobjectgraph.so.0" "$library"

# SQLite is not on manylinux's list of libraries every system has: carry it,
# under a private name (scripts/lib/private-sqlite.sh says why), which the
# library then asks for; its RUNPATH ($ORIGIN) finds it there.
sqlite=$(scripts/lib/private-sqlite.sh "$package")
patchelf --replace-needed libsqlite3.so.0 "$sqlite" "$package/libobjectgraph.so.0"
LC_ALL=C readelf -d "$package/libobjectgraph.so.0" | grep -q "NEEDED.*\[$sqlite\]" ||
  { echo "wheel: the library does not ask for $sqlite" >&2; exit 1; }
LC_ALL=C readelf -d "$package/libobjectgraph.so.0" | grep -q 'R.*PATH.*\$ORIGIN' ||
  { echo "wheel: the library has no \$ORIGIN RUNPATH to find $sqlite beside it" >&2; exit 1; }

# The platform tag: the newest GLIBC_x.y any bundled library asks for.
glibc=$(for f in "$package"/*.so*; do LC_ALL=C readelf -V --wide "$f"; done |
  grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2,2n -u | tail -n 1)
platform="manylinux_2_${glibc#GLIBC_2.}_$(uname -m)"

export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
python3 -m pip wheel -q --no-deps --no-build-isolation -w "$work/dist" "$work/src" >&2
built=$(ls "$work/dist"/*.whl)
tagged=$(cd "$work/dist" && python3 -m wheel tags --remove --python-tag py3 --abi-tag none --platform-tag "$platform" "$(basename "$built")")
mkdir -p "$out"
mv "$work/dist/$tagged" "$out/"
echo "wheel: $(du -k "$out/$tagged" | cut -f1) KB, $platform" >&2
echo "$out/$tagged"
