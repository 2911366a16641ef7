#!/bin/sh
# without_toolchain.sh TOOLCHAIN_USR COMMAND...: runs COMMAND where the Swift
# toolchain's usr/ directory is an empty tmpfs (a private mount namespace) and
# the environment holds only PATH, HOME and LANG. Exits 77 when no mount
# namespace can be made here.
set -eu
toolchain=$1
shift
if ! unshare --mount --propagation private true 2>/dev/null; then
  echo "SKIPPED: cannot make a mount namespace here (unshare --mount failed)"
  exit 77
fi
exec unshare --mount --propagation private sh -c '
  toolchain=$1; shift
  mount -t tmpfs objectgraph-no-swift "$toolchain"
  [ -z "$(ls -A "$toolchain")" ] || { echo "the toolchain is still visible at $toolchain"; exit 1; }
  ! command -v swift >/dev/null 2>&1 || [ "$(command -v swift)" != "$toolchain/bin/swift" ] ||
    { echo "swift still runs"; exit 1; }
  exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="${HOME:-/root}" LANG=C.UTF-8 "$@"
' without-toolchain "$toolchain" "$@"
