"""The tool's own error: a mistake in what it was asked to do, or a file it cannot use."""

from __future__ import annotations

__all__ = ["ToolError"]


class ToolError(Exception):
    """A mistake in what the tool was asked to do; printed without a traceback."""
