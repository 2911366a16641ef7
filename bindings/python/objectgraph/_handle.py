"""The life cycle every owned library handle shares: close once, ``with``, and
release on garbage collection."""

from __future__ import annotations

from typing import Optional, TypeVar

_H = TypeVar("_H", bound="OwnedHandle")


class OwnedHandle:
    """Base of the wrappers that own a handle (models, coordinators, contexts,
    fetch requests). Subclasses set ``_h`` and ``_closed = False`` when the
    handle exists, and say how to release it in ``_release``."""

    # Class-level, so that __del__ works after a failed __init__.
    _h: Optional[int] = None
    _closed = True

    def _release(self) -> None:
        raise NotImplementedError

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Releases the handle. Closing twice is harmless. The handle value is
        kept: the library reports a released handle as such."""
        if not self._closed:
            self._closed = True
            self._release()

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # the library may already be unloaded at interpreter exit
            pass
