# Installs what the test and demo commands need when it is missing.
# Sourced by scripts/test.sh and scripts/demo.sh (bash). Debian/Ubuntu: apt for
# system packages, pip for Python packages. Nothing is installed that is
# already present, and `apt-get update` runs at most once.

og_apt_updated=0

# Runs a command as root: directly when we are root, else through sudo.
og_as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "deps: need root to run: $*" >&2
    return 1
  fi
}

og_apt_install() {
  [ "$#" -gt 0 ] || return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing $*; install them with your package manager" >&2
    return 1
  fi
  if [ "$og_apt_updated" -eq 0 ]; then
    echo "deps: apt-get update"
    og_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q || return 1
    og_apt_updated=1
  fi
  echo "deps: apt-get install $*"
  og_as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "$@"
}

og_have() { command -v "$1" >/dev/null 2>&1; }

og_deb_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# Puts the Swift toolchain on PATH (/opt/swift is where this kind of machine has it).
og_ensure_swift() {
  if ! og_have swift && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
  fi
  og_have swift || { echo "deps: swift not found (expected on PATH or in /opt/swift)" >&2; return 1; }
}

# og_ensure_tools NEED...: cc, pkg-config, sqlite (headers and libsqlite3.a), zlib
# (headers, for the XCTests), cmake, valgrind, patchelf (the wheel), python3.
og_ensure_tools() {
  local need missing=()
  for need in "$@"; do
    case $need in
      cc) og_have cc || og_have gcc || og_have clang || missing+=(gcc libc6-dev) ;;
      pkg-config) og_have pkg-config || missing+=(pkg-config) ;;
      sqlite)
        og_deb_installed libsqlite3-dev || [ -f /usr/include/sqlite3.h ] ||
          missing+=(libsqlite3-dev) ;;
      cmake) og_have cmake || missing+=(cmake) ;;
      valgrind) og_have valgrind || missing+=(valgrind) ;;
      patchelf) og_have patchelf || missing+=(patchelf) ;;
      zlib)  # the XCTest target checks the DEFLATE decoder against zlib
        og_deb_installed zlib1g-dev || [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev) ;;
      python3) og_have python3 || missing+=(python3 python3-pip) ;;
      *) echo "deps: unknown need '$need'" >&2; return 1 ;;
    esac
  done
  og_apt_install "${missing[@]}"
}

# pytest for the binding's tests: pip first; a system Python that refuses pip
# installs (PEP 668) gets it with --break-system-packages, else from apt.
og_ensure_pytest() {
  python3 -m pytest --version >/dev/null 2>&1 && return 0
  python3 -m pip --version >/dev/null 2>&1 || og_apt_install python3-pip || true
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  echo "deps: pip install pytest"
  python3 -m pip install -q pytest ||
    python3 -m pip install -q --break-system-packages pytest ||
    og_apt_install python3-pytest
  python3 -m pytest --version >/dev/null 2>&1 || { echo "deps: pytest unavailable" >&2; return 1; }
}

# og_ensure_pip_package MODULE REQUIREMENT [CHECK]: a Python package the tests
# or scripts use (mypy for the typing test; setuptools and wheel for the
# wheel), installed by pip when `import MODULE` fails or the Python
# expression CHECK (about MODULE) is false.
og_ensure_pip_package() {
  local check="import $1${3:+; assert $3}"
  python3 -c "$check" >/dev/null 2>&1 && return 0
  python3 -m pip --version >/dev/null 2>&1 || og_apt_install python3-pip || true
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  echo "deps: pip install $2"
  python3 -m pip install -q "$2" || python3 -m pip install -q --break-system-packages "$2"
  python3 -c "$check" >/dev/null 2>&1 || { echo "deps: $2 unavailable" >&2; return 1; }
}

# mypy, pinned: bindings/python/tests/test_typing.py names the same version.
og_ensure_mypy() { og_ensure_pip_package mypy "mypy==2.4.1"; }

# What scripts/wheel.sh builds with: setuptools that reads SPDX licence
# expressions (77), and wheel for the platform tag.
og_ensure_wheel_tools() {
  og_ensure_pip_package setuptools "setuptools>=77" "int(setuptools.__version__.split('.')[0]) >= 77" &&
    og_ensure_pip_package wheel wheel
}

