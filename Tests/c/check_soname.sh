#!/bin/sh
# The library carries the SONAME that programs record (DT_NEEDED) and that
# the installed symlink is named after.
# Usage: check_soname.sh LIBRARY SONAME
set -eu
actual=$(LC_ALL=C readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ "$actual" != "$2" ]; then
  echo "SONAME of $1 is '${actual}', expected '$2'"
  exit 1
fi
echo "SONAME $actual"
