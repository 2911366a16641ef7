"""The binding type-checks: mypy --strict passes on the package, on the Python
quickstart and on the README's Python example, and the documented
`book.title = "Mort"` is a typed write. mypy is installed with pip when
missing (scripts/lib/deps.sh installs the same version for scripts/test.sh)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import objectgraph as og
from objectgraph import codes
from conftest import BINDING, REPO

MYPY = "mypy==2.4.1"  # the version scripts/lib/deps.sh installs


def mypy(*paths: str, cwd: Path) -> subprocess.CompletedProcess:
    try:
        import mypy  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", MYPY], check=True)
    env = dict(os.environ, MYPYPATH=str(BINDING))
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *paths],
                          cwd=cwd, capture_output=True, text=True, env=env)


def test_package_passes_mypy_strict() -> None:
    result = mypy("objectgraph", cwd=BINDING)
    assert result.returncode == 0, result.stdout + result.stderr


def test_quickstart_and_readme_pass_mypy_strict(tmp_path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks
    for index, block in enumerate(blocks):
        (tmp_path / f"readme_{index}.py").write_text(block)
    typed_write = tmp_path / "typed_write.py"
    typed_write.write_text(
        "import objectgraph as og\n"
        "def rename(book: og.ManagedObject) -> str:\n"
        "    book.title = 'Mort'\n"
        "    return str(book.title)\n")
    result = mypy(str(REPO / "examples" / "python" / "quickstart.py"), *map(str, sorted(tmp_path.glob("*.py"))),
                  cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_all_is_static_and_complete() -> None:
    source = (BINDING / "objectgraph" / "__init__.py").read_text()
    assert "__all__ = [" in source and "dir(" not in source.split("__all__ = [", 1)[1]
    assert {n for n in dir(codes) if n.isupper()} <= set(og.__all__)
    assert all(hasattr(og, name) for name in og.__all__)
    assert len(og.__all__) == len(set(og.__all__))
