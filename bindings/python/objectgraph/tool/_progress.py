"""Progress of long work, shown on a terminal (stderr) and nowhere else."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

__all__ = ["Progress"]


class Progress:
    """``Progress("dump", total)``; ``update(done)`` redraws one status line at
    most ten times a second; ``finish()`` clears it. Silent when ``stream`` is
    not a terminal, so pipes and files get only the tool's output."""

    def __init__(self, label: str, total: Optional[float] = None, stream: Optional[TextIO] = None) -> None:
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = 0.0
        self._shown = False

    def update(self, done: float) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and (self.total is None or done < self.total):
            return
        self._last = now
        if self.total:
            text = f"{self.label}: {done:g}/{self.total:g} ({100.0 * done / self.total:.0f}%)"
        else:
            text = f"{self.label}: {done:g}"
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self._shown = True

    def fraction(self, value: float) -> None:
        """For work that reports a fraction (0.0 to 1.0), such as a migration."""
        if not self.enabled:
            return
        self.total = None
        now = time.monotonic()
        if now - self._last < 0.1 and value < 1.0:
            return
        self._last = now
        self.stream.write(f"\r\x1b[K{self.label}: {100.0 * value:.0f}%")
        self.stream.flush()
        self._shown = True

    def finish(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
