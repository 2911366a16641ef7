"""Reading store files without changing them, and naming why a file cannot be written.

The store tool is pointed at an app's live data and at files that must stay as
they are, so nothing it reads may change a byte of them or leave a file beside
them. SQLite writes beside a database even when it only reads: a WAL database
is read through a ``-shm`` (and a ``-wal``) that SQLite creates when there is
none, and a rollback journal left by an interrupted save is rolled back into the
database before anything is read. The tool reads such stores from a
private copy instead (:func:`readable`); every other store is read where it is,
and SQLite files the tool reads itself are opened as :func:`connect_read_only`
says."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
import tempfile
import urllib.parse
from typing import Iterator, Optional

from ..errors import Error
from ._errors import ToolError

__all__ = ["readable", "connect_read_only", "reason_to_copy", "require_writable_folder", "is_address", "redact"]

_ADDRESS_SCHEMES = ("postgresql://", "postgres://")


def is_address(path: str) -> bool:
    """Whether ``path`` names a store on a database server (a PostgreSQL URL)
    rather than a file: it is read where it is, and no folder is written."""
    return path.startswith(_ADDRESS_SCHEMES)


def redact(text: str, addresses: "list[str]") -> str:
    """``text`` with each of ``addresses`` shown without its password (the
    ``user:password@`` of a URL), so the tool never prints one."""
    for address in addresses:
        parts = urllib.parse.urlsplit(address)
        if not is_address(address) or parts.password is None:
            continue
        netloc = parts.netloc.replace(":" + parts.password + "@", "@", 1)
        text = text.replace(address, urllib.parse.urlunsplit(parts._replace(netloc=netloc)))
        text = text.replace(parts.password, "***")
    return text

_SQLITE_MAGIC = b"SQLite format 3\x00"
# The first bytes of a rollback journal whose save did not finish (a "hot" journal);
# a journal that was committed is deleted, truncated or has these bytes zeroed.
_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def _head(path: str, size: int) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read(size)
    except OSError:
        return b""


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _is_sqlite(path: str) -> bool:
    return _head(path, len(_SQLITE_MAGIC)) == _SQLITE_MAGIC


def _in_wal_mode(path: str) -> bool:
    """Whether the database's header says WAL (file format versions 2 at bytes 18 and 19)."""
    header = _head(path, 20)
    return len(header) == 20 and header[18] == 2 and header[19] == 2


def reason_to_copy(path: str) -> Optional[str]:
    """Why SQLite could read the store at ``path`` only by writing beside it, or None."""
    if not _is_sqlite(path):
        return None
    if _size(path + "-wal") > 0 and not os.path.exists(path + "-shm"):
        return "its -wal holds commits and it has no -shm, which SQLite would create to read them"
    if _in_wal_mode(path) and not os.path.exists(path + "-shm"):
        return "it is in WAL mode and has no -shm, which SQLite would create to take its read locks"
    if _head(path + "-journal", len(_JOURNAL_MAGIC)) == _JOURNAL_MAGIC:
        return "its -journal holds a save that did not finish, which SQLite would roll back into it"
    return None


def _copy(path: str, folder: str) -> str:
    """Copies the store and the files SQLite reads with it into ``folder``; an
    interrupted save is rolled back in the copy, as opening the store would."""
    copy = os.path.join(folder, os.path.basename(path))
    for suffix in ("", "-wal", "-journal"):
        if os.path.exists(path + suffix):
            shutil.copyfile(path + suffix, copy + suffix)  # not the mode: the copy must be writable
    if os.path.exists(copy + "-journal"):
        db = sqlite3.connect(copy)
        try:
            db.execute("PRAGMA schema_version").fetchone()  # the first read rolls the journal back
        finally:
            db.close()
    return copy


@contextlib.contextmanager
def readable(path: str) -> Iterator[str]:
    """The path to read the store at ``path`` from: ``path`` itself, or, when
    SQLite could read it only by writing beside it (:func:`reason_to_copy`), a
    copy in a temporary folder that is removed afterwards. Errors raised inside
    name ``path``, never the copy. A store on a server is read where it is."""
    if is_address(path) or reason_to_copy(path) is None:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="objectgraph-") as folder:
        try:
            copy = _copy(path, folder)
        except (OSError, sqlite3.Error) as exc:
            raise ToolError(f"{path}: {reason_to_copy(path)}; reading a copy instead failed: {exc}") from None
        try:
            yield copy
        except (Error, ToolError, OSError, sqlite3.Error) as exc:
            text = str(exc)
            if copy not in text and folder not in text:
                raise
            raise ToolError(text.replace(copy, path).replace(folder, os.path.dirname(path) or ".")) from None


def connect_read_only(path: str) -> sqlite3.Connection:
    """An ``sqlite3`` connection that reads the database at ``path`` and writes
    nothing to it or beside it, even when it closes. (A plain ``sqlite3.connect``
    checkpoints a WAL database's ``-wal`` into it and deletes it on closing, and
    creates ``-wal`` and ``-shm`` files.) A ``-shm`` that exists is read but not
    written (``readonly_shm``); a WAL database without one, and without commits in
    its ``-wal``, is read as it is on disk (``immutable``); other databases only
    take SQLite's read locks. Stores whose reading needs a writer come through
    :func:`readable` first."""
    if os.path.exists(path + "-shm"):
        query = "mode=ro&readonly_shm=1"
    elif _in_wal_mode(path) and _size(path + "-wal") == 0:
        query = "mode=ro&immutable=1"
    else:
        query = "mode=ro"
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?" + query
    try:
        return sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise ToolError(f"{path}: {exc}") from None


def require_writable_folder(path: str) -> None:
    """Raises a ToolError naming the cause when the folder ``path`` would be
    written in cannot be written (a read-only file system, or permissions), so
    the error says so instead of what SQLite reports when it cannot create a file."""
    if is_address(path):
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.access(folder, os.W_OK):
        return
    if not os.path.isdir(folder):
        cause = os.strerror(errno.ENOENT)
    elif os.statvfs(folder).f_flag & os.ST_RDONLY:
        cause = os.strerror(errno.EROFS)
    else:
        cause = os.strerror(errno.EACCES)
    raise ToolError(f"cannot write {path}: {folder}: {cause}")
