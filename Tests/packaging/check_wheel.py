"""Checks what a wheel from scripts/wheel.sh promises the machines it installs on.

    python3 check_wheel.py WHEEL

- its platform tag is manylinux_2_28 or older, so RHEL 8/9, Amazon Linux 2023,
  Debian 11 and Ubuntu 20.04 install it;
- every shared library in it asks for glibc, libstdc++ and libgcc symbol
  versions no newer than manylinux_2_28 allows (what that tag promises, read
  from the libraries themselves: objdump -T), and needs only libraries that
  policy lists or that the wheel carries;
- libobjectgraph.so.0 asks for SQLite under the private name of the copy beside
  it, never for libsqlite3.so.0, and exports only the og_ functions.

Prints the facts it measured; exits 1 naming each problem.
"""

import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, List, Tuple

# manylinux_2_28 (PEP 600; the versions of RHEL 8's glibc 2.28 and GCC 8).
NEWEST = {"GLIBC": (2, 28), "GLIBCXX": (3, 4, 25), "CXXABI": (1, 3, 11), "GCC": (7, 0, 0)}
SYSTEM_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
    "libutil.so.1", "libresolv.so.2", "libnsl.so.1", "libgcc_s.so.1",
    "libstdc++.so.6", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
VERSIONED = re.compile(r"\*UND\*\s+\S+\s+\(?([A-Z]+)_([0-9.]+)\)?\s+(\S+)$")


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout


def imported_versions(library: Path) -> List[Tuple[str, Tuple[int, ...], str]]:
    found = []
    for line in run("objdump", "-T", str(library)).splitlines():
        m = VERSIONED.search(line)
        if m and m.group(1) in NEWEST:
            found.append((m.group(1), tuple(int(p) for p in m.group(2).split(".")), m.group(3)))
    return found


def dynamic(library: Path, tag: str) -> List[str]:
    return re.findall(rf"\({tag}\).*\[(.*)\]", run("readelf", "-d", str(library)))


def exported(library: Path) -> List[str]:
    names = []
    for line in run("nm", "-D", "--defined-only", str(library)).splitlines():
        parts = line.split()
        if len(parts) >= 3 and re.fullmatch(r"[A-Z]|u", parts[-2]):
            names.append(parts[-1])
    return names


def main(wheel: Path) -> int:
    problems: List[str] = []
    tag = re.search(r"-manylinux_(\d+)_(\d+)_(\w+)\.whl$", wheel.name)
    if not tag:
        problems.append(f"{wheel.name} has no manylinux platform tag")
    else:
        print(f"platform tag: manylinux_{tag.group(1)}_{tag.group(2)}_{tag.group(3)}")
        if (int(tag.group(1)), int(tag.group(2))) > NEWEST["GLIBC"]:
            problems.append(f"{wheel.name}: the tag is newer than manylinux_2_28")

    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(tmp)
        package = Path(tmp) / "objectgraph"
        libraries = sorted(p for p in package.iterdir() if ".so" in p.name)
        carried = {p.name for p in libraries}
        print("libraries:", ", ".join(sorted(carried)))
        for library in libraries:
            newest: Dict[str, Tuple[Tuple[int, ...], str]] = {}
            for family, version, symbol in imported_versions(library):
                if family not in newest or version > newest[family][0]:
                    newest[family] = (version, symbol)
                if version > NEWEST[family]:
                    problems.append(f"{library.name}: {symbol} needs {family}_{'.'.join(map(str, version))}")
            print(f"{library.name}: newest " + ", ".join(
                f"{family}_{'.'.join(map(str, v))} ({s})" for family, (v, s) in sorted(newest.items())))
            for needed in dynamic(library, "NEEDED"):
                if needed not in SYSTEM_LIBRARIES and needed not in carried:
                    problems.append(f"{library.name} needs {needed}, which neither the wheel nor manylinux_2_28 provides")

        engine = package / "libobjectgraph.so.0"
        sqlite = [p for p in libraries if p.name.startswith("libsqlite3-")]
        if not engine.exists() or len(sqlite) != 1:
            problems.append("the wheel should carry libobjectgraph.so.0 and one libsqlite3-<hash>.so.0")
        else:
            needed = dynamic(engine, "NEEDED")
            print(f"libobjectgraph.so.0 needs {', '.join(needed)}")
            if sqlite[0].name not in needed or "libsqlite3.so.0" in needed:
                problems.append(f"libobjectgraph.so.0 does not ask for the private {sqlite[0].name} alone")
            if dynamic(sqlite[0], "SONAME") != [sqlite[0].name]:
                problems.append(f"{sqlite[0].name} has SONAME {dynamic(sqlite[0], 'SONAME')}")
            # pthread_create stays imported: a wrapper calling itself would drop it.
            if not any(s == "pthread_create" for _, _, s in imported_versions(engine)):
                problems.append("libobjectgraph.so.0 imports no versioned pthread_create")
            names = exported(engine)
            others = [n for n in names if not n.startswith("og_")]
            print(f"libobjectgraph.so.0 exports {len(names)} symbols, {len(others)} not og_")
            if others:
                problems.append(f"libobjectgraph.so.0 exports {len(others)} symbols other than og_ functions, "
                                f"such as {', '.join(others[:5])}")
    for problem in problems:
        print("FAILED:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
