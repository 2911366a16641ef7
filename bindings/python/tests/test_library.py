"""The library is found, and the binding declares every function of the header."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import objectgraph as og
from objectgraph import _lib

from conftest import BINDING, REPO

HEADER = REPO / "include" / "objectgraph.h"


def header_functions() -> set:
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    # Callback typedefs (`typedef og_status (*og_validation_fn)(...)`) declare no function,
    # nor do the members of a callback table (`og_status (*execute_fetch)(...);`).
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("typedef"))
    return set(re.findall(r"\b(og_[a-z0-9_]+)\s*\((?!\s*\*)", text))


def test_versions() -> None:
    assert og.__version__ == "0.1.0"
    assert re.fullmatch(r"\d+\.\d+\.\d+", og.library_version())
    assert og.library_version().startswith("0.1.")


def test_every_header_function_is_declared() -> None:
    declared = set(_lib._SIGNATURES)
    assert header_functions() == declared


# Functions the package leaves for their length-taking `_n` variant, which keeps
# the NULs a string value holds and refuses a path holding one.
SUPERSEDED = {
    "og_value_new_string": "og_value_new_string_n",
    "og_value_get_string": "og_value_get_string_n",
    "og_object_get_string": "og_object_get_string_n",
    "og_object_set_string": "og_object_set_string_n",
    "og_coordinator_add_store": "og_coordinator_add_store_n",
    # The binding reads a generator of rows whole, then sends them by column.
    "og_context_batch_insert_rows": "og_context_batch_insert_columns",
    # The binding reads a transaction's changes in one call and writes their URIs itself.
    "og_history_change_object_uri": "og_history_changes",
    "og_history_change_object": "og_history_changes",
    "og_history_change_type": "og_history_changes",
    "og_history_change_id": "og_history_changes",
    # The former register/unregister names, kept one release as deprecated aliases.
    "og_register_atomic_store_type": "og_atomic_store_type_register",
    "og_unregister_store_type": "og_store_type_unregister",
    "og_register_migration_policy": "og_migration_policy_register",
    "og_unregister_migration_policy": "og_migration_policy_unregister",
    "og_register_archivable_class": "og_archivable_class_register",
    "og_unregister_archivable_class": "og_archivable_class_unregister",
    "og_register_value_transformer": "og_value_transformer_register",
    "og_unregister_value_transformer": "og_value_transformer_unregister",
}


def test_every_header_function_is_used_by_the_package() -> None:
    sources = "".join(
        path.read_text()
        for path in (BINDING / "objectgraph").glob("*.py")
        if path.name != "_lib.py"  # declaring a function is not using it
    )
    used = {name for name in header_functions() if re.search(rf"\b{name}\b", sources)}
    unused = sorted(name for name in header_functions() - used if SUPERSEDED.get(name) not in used)
    assert unused == []


def test_library_path_is_the_one_asked_for() -> None:
    wanted = os.environ.get("OBJECTGRAPH_LIBRARY")
    if wanted:
        assert og.library_path == wanted


def test_a_bad_library_path_is_a_clear_import_error(tmp_path) -> None:
    env = dict(os.environ, OBJECTGRAPH_LIBRARY=str(tmp_path / "nowhere.so"), PYTHONPATH=str(BINDING))
    run = subprocess.run([sys.executable, "-c", "import objectgraph"], env=env, capture_output=True, text=True)
    assert run.returncode != 0
    assert "LibraryNotFoundError" in run.stderr
    assert "OBJECTGRAPH_LIBRARY" in run.stderr and "nowhere.so" in run.stderr


def test_error_codes_are_exported() -> None:
    assert og.INCOMPATIBLE_VERSION_HASH == 134100
    assert og.STORE_INCOMPATIBLE_VERSION == 134100
    assert og.UNKNOWN_KEY == 140005
    assert og.INVALID_HANDLE == 140001
    assert og.VALIDATION_NUMBER_TOO_LARGE == 1610
    assert issubclass(og.IncompatibleStoreError, og.StoreError)
    assert issubclass(og.TypeMismatchError, og.UsageError) and issubclass(og.TypeMismatchError, TypeError)
    assert issubclass(og.UnknownKeyError, og.UsageError) and not issubclass(og.UnknownKeyError, KeyError)
