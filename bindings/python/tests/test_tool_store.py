"""The store tool's model files (objectgraph.tool._store): `--model` naming a
versioned folder (.xcdatamodeld) opens a store with the version whose hashes
match the store's, as Core Data does, not only with the current version; `check`
names the version it found, or says that none matches."""

from __future__ import annotations

import io
import plistlib
from pathlib import Path
from typing import Tuple

import pytest

import objectgraph as og
from objectgraph.tool import main
from objectgraph.tool._store import model_matching, model_versions
from conftest import build_books_model


def run(*argv: str) -> Tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def second_version() -> og.Model:
    model = build_books_model()
    model["Book"].add_attribute("isbn", "string")
    model.add_entity("Shelf").add_attribute("label", "string")
    return model


@pytest.fixture
def versions(tmp_path: Path) -> Path:
    """Books.xcdatamodeld with versions Books1 and Books2, Books2 current."""
    folder = tmp_path / "Books.xcdatamodeld"
    folder.mkdir()
    build_books_model().write(str(folder / "Books1.xcdatamodel"))
    second_version().write(str(folder / "Books2.xcdatamodel"))
    with open(folder / ".xccurrentversion", "wb") as file:
        plistlib.dump({"_XCCurrentVersionName": "Books2.xcdatamodel"}, file)
    return folder


def store_of(tmp_path: Path, folder: Path, version: str) -> Path:
    """A store written with one version of the folder, holding one book."""
    path = tmp_path / f"{version}.sqlite"
    coordinator = og.Coordinator(og.Model.load_version(str(folder), version))
    coordinator.add_store("SQLite", str(path))
    with og.Context(coordinator) as ctx:
        ctx.insert("Book", title="Mort", pages=243)
        ctx.save()
    coordinator.close()
    return path


def test_versions_are_listed_current_first(versions: Path) -> None:
    assert model_versions(str(versions)) == ["Books2", "Books1"]
    assert model_versions(str(versions / "Books1.xcdatamodel")) == []


def test_an_older_store_opens_with_the_version_that_wrote_it(tmp_path: Path, versions: Path) -> None:
    older = store_of(tmp_path, versions, "Books1")
    stored = og.Coordinator.metadata_for_store(str(older))["NSStoreModelVersionHashes"]
    assert model_matching(str(versions), stored).version == "Books1"
    status, text = run("entities", str(older), "--model", str(versions))
    assert status == 0 and text.splitlines()[1:] == ["Author  0", "Book    1"]
    status, text = run("dump", str(older), "Book", "--model", str(versions))
    assert status == 0 and "isbn" not in text and '"title": "Mort"' in text
    assert run("explain", str(older), "Book", "--model", str(versions))[0] == 0


def test_check_names_the_version_that_opens_the_store(tmp_path: Path, versions: Path) -> None:
    older, newer = store_of(tmp_path, versions, "Books1"), store_of(tmp_path, versions, "Books2")
    assert run("check", str(versions), str(older)) == (0, f"compatible: {versions} (version Books1) opens {older}\n")
    assert run("check", str(versions), str(newer)) == (0, f"compatible: {versions} (version Books2) opens {newer}\n")


def test_check_says_when_no_version_opens_the_store(tmp_path: Path, versions: Path) -> None:
    other = og.Model()
    other.add_entity("Shelf").add_attribute("label", "string")
    path = tmp_path / "shelves.sqlite"
    coordinator = og.Coordinator(other)
    coordinator.add_store("SQLite", str(path))
    coordinator.close()
    status, text = run("check", str(versions), str(path))
    assert status == 1
    assert text.splitlines()[0] == (f"incompatible: no version of {versions} opens {path}; "
                                    "its current version, Books2, differs")
    assert "  entity Book: in the model, not in the store" in text
