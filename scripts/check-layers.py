#!/usr/bin/env python3
"""Lists every use of a later layer in the engine (Sources/ObjectGraph): a type, or a
top-level function or constant, declared in a folder that comes later in the layer order
than the file that uses it. Exit status 1 when there is any; `--list` prints them all.

The order is DESIGN §1's, with the model's and mapping models' file formats as layers of
their own after Fetch: a layer uses only the layers before it. A folder's subfolders
belong to it (Stores/SQLite is Stores), but for Stores/Incremental (see `layer_of`).
Comments and string literals are not code."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent / "Sources" / "ObjectGraph"
if "--root" in sys.argv:  # another tree laid out the same way (the script's own test)
    ROOT = Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
LAYERS = ["Values", "Model", "Predicate", "Fetch", "ModelFiles", "Mapping", "Stores", "Coordinator", "Graph", "Stores/Incremental", "Migration"]

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|open|internal|fileprivate|private|final|indirect|static|class|override|mutating|convenience|required|lazy|weak|unowned|nonisolated(?:\(unsafe\))?)(?:\([a-z]+\))?\s+)*"
    r"(?:class|struct|enum|protocol|typealias|actor|func|let|var)\s+([A-Za-z_]\w*)")
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def code_lines(text: str) -> List[str]:
    """The file's lines with comments and string literals blanked (line numbers kept)."""
    out, i, n = [], 0, len(text)
    buffer: List[str] = []
    depth = 0  # nested block comments
    while i < n:
        c = text[i]
        if depth:
            if text.startswith("*/", i):
                depth -= 1
                i += 2
                continue
            if text.startswith("/*", i):
                depth += 1
                i += 2
                continue
            buffer.append("\n" if c == "\n" else " ")
            i += 1
            continue
        if text.startswith("/*", i):
            depth = 1
            i += 2
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith('"""', i):
            end = text.find('"""', i + 3)
            end = n if end < 0 else end + 3
            buffer.append("".join("\n" if ch == "\n" else " " for ch in text[i:end]))
            i = end
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            buffer.append(" " * (j + 1 - i))
            i = j + 1
            continue
        buffer.append(c)
        i += 1
    out = "".join(buffer).split("\n")
    return out


def layer_of(path: Path) -> str:
    """A file's layer: its top folder, except incremental stores, whose hooks Core Data
    defines over contexts and objects: that store type plugs in after the graph."""
    parts = path.relative_to(ROOT).parts
    return "Stores/Incremental" if parts[:2] == ("Stores", "Incremental") else parts[0]


def declarations() -> Dict[str, Tuple[str, Path]]:
    """Top-level names (indentation 0) and the layer declaring them."""
    found: Dict[str, Tuple[str, Path]] = {}
    for path in sorted(ROOT.rglob("*.swift")):
        for line in code_lines(path.read_text(encoding="utf-8")):
            if line[:1].isspace():
                continue
            m = DECLARATION.match(line)
            if m:
                found.setdefault(m.group(1), (layer_of(path), path))
    return found


def later_uses() -> List[str]:
    names = declarations()
    order = {layer: i for i, layer in enumerate(LAYERS)}
    uses: List[str] = []
    for path in sorted(ROOT.rglob("*.swift")):
        mine = layer_of(path)
        if mine not in order:
            uses.append(f"{path.relative_to(ROOT)}: folder {mine} is not in the layer order")
            continue
        lines = code_lines(path.read_text(encoding="utf-8"))
        # A name the file declares itself, at any depth (a nested type), is its own.
        own = {m.group(1) for m in (DECLARATION.match(line.strip()) for line in lines) if m}
        for number, line in enumerate(lines, 1):
            for word in sorted(set(IDENTIFIER.findall(line)) - own):
                declared = names.get(word)
                if declared and order.get(declared[0], -1) > order[mine]:
                    uses.append(f"{path.relative_to(ROOT)}:{number}: {mine} uses {word} of {declared[0]}")
    return uses


def main() -> int:
    uses = later_uses()
    if "--list" in sys.argv or uses:
        for use in uses:
            print(use)
    print(f"layers: {len(uses)} uses of a later layer", file=sys.stderr)
    return 1 if uses else 0


if __name__ == "__main__":
    sys.exit(main())
