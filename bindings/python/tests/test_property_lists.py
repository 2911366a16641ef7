"""Damaged binary property lists in store files raise og.Error, never crash:
a UID whose value has the top bit set (which once aborted the process), in a
Binary store file and in an SQLite store's Z_METADATA."""

from __future__ import annotations

import sqlite3
import struct

import pytest

import objectgraph as og

# "bplist00", one 8-byte UID with every bit set, the offset table, the trailer.
HUGE_UID_PLIST = (b"bplist00" + b"\x87" + b"\xff" * 8 + b"\x08"
                  + bytes(6) + bytes([1, 1]) + struct.pack(">QQQ", 1, 0, 17))


def test_binary_store_file_with_a_huge_uid_is_refused(tmp_path, books_model) -> None:
    path = tmp_path / "huge-uid.binary"
    path.write_bytes(b"OGBINARY" + struct.pack(">I", 1) + HUGE_UID_PLIST)
    with og.Coordinator(books_model) as coordinator:
        with pytest.raises(og.Error) as info:
            coordinator.add_store("Binary", str(path))
        assert info.value.code == og.ErrorCode.STORE_INVALID_TYPE and "UID" in str(info.value)
        assert coordinator.store_count == 0
    with pytest.raises(og.Error):
        og.Coordinator.metadata_value(path, "NSStoreType", "Binary")
    assert path.read_bytes()[12:] == HUGE_UID_PLIST  # left as it was


def test_sqlite_metadata_with_a_huge_uid_is_refused(tmp_path, books_model) -> None:
    path = tmp_path / "huge-uid.sqlite"
    with og.Coordinator(books_model) as coordinator:
        coordinator.add_store("SQLite", str(path))
    db = sqlite3.connect(path)
    db.execute("UPDATE Z_METADATA SET Z_PLIST = ?", (HUGE_UID_PLIST,))
    db.commit()
    db.close()
    with og.Coordinator(books_model) as coordinator:
        with pytest.raises(og.Error) as info:
            coordinator.add_store("SQLite", str(path))
        assert info.value.code == og.ErrorCode.STORE_INVALID_TYPE and "metadata" in str(info.value)
    with pytest.raises(og.Error):
        og.Coordinator.metadata_value(path, "NSStoreType", "SQLite")
