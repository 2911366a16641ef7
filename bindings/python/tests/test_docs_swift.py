"""Every Swift block of README.md and docs/*.md builds and runs: each file's
blocks in order as one program (main.swift), compiled against the debug build
of the package (`swift build`, which scripts/test.sh runs first) and run in a
new folder holding the example model. The README's example prints its result."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from conftest import REPO

DEBUG = REPO / ".build" / "debug"
DOCS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def swift_blocks(path: Path) -> List[str]:
    return re.findall(r"```swift\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def swiftc() -> str:
    found = shutil.which("swiftc") or ("/opt/swift/usr/bin/swiftc" if os.path.exists("/opt/swift/usr/bin/swiftc") else None)
    if found is None:
        pytest.skip("no Swift toolchain")
    return found


def build_and_run(path: Path, folder: Path) -> str:
    compiler = swiftc()
    if not (DEBUG / "Modules" / "ObjectGraph.swiftmodule").exists() or not (DEBUG / "libobjectgraph.so").exists():
        pytest.fail("the Swift doc examples build against the package's debug build: run `swift build` first "
                    "(scripts/test.sh does)")
    shutil.copy(REPO / "examples" / "Books.json", folder / "Books.json")
    main = folder / "main.swift"
    main.write_text("\n".join(swift_blocks(path)), encoding="utf-8")
    subprocess.run([compiler, str(main), "-o", str(folder / "main"), "-I", str(DEBUG / "Modules"),
                    "-L", str(DEBUG), "-lobjectgraph", "-Xlinker", "-rpath", "-Xlinker", str(DEBUG),
                    "-Xcc", f"-fmodule-map-file={REPO / 'Sources' / 'CSQLite' / 'module.modulemap'}",
                    "-module-cache-path", str(folder / "module-cache")],
                   check=True, capture_output=True, text=True, cwd=folder)
    result = subprocess.run([str(folder / "main")], capture_output=True, text=True, cwd=folder, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.parametrize("path", [p for p in DOCS if swift_blocks(p)], ids=lambda p: p.name)
def test_swift_blocks_build_and_run(path: Path, tmp_path) -> None:
    try:
        output = build_and_run(path, tmp_path)
    except subprocess.CalledProcessError as error:
        pytest.fail(f"{path.name}: swiftc failed:\n{error.stdout}{error.stderr}")
    if path.name == "README.md":
        assert output.splitlines() == ["Small Gods", "Strata"]
    if path.name == "swift-api.md":
        assert "Small Gods\nStrata\n" in output and "ObjectGraphErrorDomain 140004" in output
