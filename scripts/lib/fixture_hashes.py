#!/usr/bin/env python3
"""Every file under the fixture folders beside the repository, one line each:
"<sha256>  <relative path>". scripts/test.sh records this before the run and
compares after it: tests and tools read fixtures in place or on copies, and
must leave them byte for byte as they were (no file changed, none added)."""
import hashlib
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
if root.is_dir():
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        print(f"{digest}  {path.relative_to(root)}")
