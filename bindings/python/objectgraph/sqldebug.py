"""SQL logging, like Core Data's ``-com.apple.CoreData.SQLDebug``.

``set_sql_debug(level)`` turns it on: 1 logs each statement as prepared, 2 with
its bound values in place, 3 also the time each took and the rows it returned.
At every level each fetch and save also logs one summary line (its time, rows and
objects: "ObjectGraph: annotation: total fetch execution time: 0.0004s for 2 rows,
2 objects (Book)"), and blobs longer than 64 bytes are abbreviated.
Summary lines become INFO records of the logger ``objectgraph.sql``, statements and
their times DEBUG records; configure ``logging`` to see them. Without a call here,
the environment variable ``OBJECTGRAPH_SQL_DEBUG`` (1-3) makes the library print
them to standard error.
"""

from __future__ import annotations

import atexit
import logging
from typing import Optional

from ._call import call
from ._lib import SQL_LOG_FN, lib
from .errors import ErrorCode, make_error

__all__ = ["logger", "set_sql_debug", "sql_debug_level"]

logger = logging.getLogger("objectgraph.sql")


# How the library's summary lines start (include/objectgraph.h, og_sql_log_fn).
_SUMMARY = b"ObjectGraph: annotation: total "


def _log(level: int, message: Optional[bytes], user: Optional[int]) -> None:
    # Called on whatever thread runs the SQL; logging is thread-safe.
    try:
        text = message or b""
        severity = logging.INFO if text.startswith(_SUMMARY) else logging.DEBUG
        if logger.isEnabledFor(severity):
            logger.log(severity, "%s", text.decode("utf-8", "replace"), extra={"sql_level": level})
    except BaseException:  # a logging failure must not unwind through C
        pass


_callback = SQL_LOG_FN(_log)
_installed = False


def _uninstall() -> None:
    # At exit no message may reach Python while the interpreter goes away.
    if _installed:
        lib.og_set_sql_log_callback(SQL_LOG_FN(), None, None)


def set_sql_debug(level: int) -> None:
    """Sets the SQL logging level (0 off, 1-3) and sends the messages to the
    logger ``objectgraph.sql``. A level outside 0-3 raises og.UsageError."""
    global _installed
    if isinstance(level, bool) or not isinstance(level, int):
        raise make_error(f"the SQL debug level must be an int from 0 to 3, not {level!r}", ErrorCode.TYPE_MISMATCH)
    call(lib.og_set_sql_debug, level)
    if not _installed:
        call(lib.og_set_sql_log_callback, _callback, None)
        _installed = True
        atexit.register(_uninstall)


def sql_debug_level() -> int:
    """The current SQL logging level (0-3)."""
    return int(lib.og_sql_debug_level())
