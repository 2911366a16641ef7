"""ObjectID: a managed object's ID as its URI. Plain Python, below everything that
reads IDs from the library (values, results, objects); ``objectgraph.results`` and the
package export it."""

from __future__ import annotations

import re
from typing import List, Optional

__all__ = ["ObjectID"]


class ObjectID(str):
    """A managed object's ID, as its URI (``x-coredata://<store>/<Entity>/p<key>``,
    or ``x-coredata:///<Entity>/t<UUID>`` while temporary). It is a ``str``, so it
    works wherever an ID URI is accepted (``ctx.object_with_id(oid)``).

    The text after ``p`` is the store's key: a number for SQLite and Binary
    stores, the reference an incremental store named the object by for its
    stores, escaped as a URL path (it may hold slashes: ``pkey%20with/slash``).
    The URI is read from the front: the store UUID, the entity, then the rest."""

    __slots__ = ()

    def _parts(self) -> List[str]:
        """[store UUID, entity, "p..." or "t..."]: what follows ``x-coredata://``,
        split at its first two slashes."""
        text = self[len(_SCHEME):] if self.startswith(_SCHEME) else self
        return text.split("/", 2)

    @property
    def entity(self) -> str:
        """The entity's name."""
        parts = self._parts()
        return parts[1] if len(parts) > 1 else ""

    @property
    def is_temporary(self) -> bool:
        parts = self._parts()
        return len(parts) > 2 and parts[2].startswith("t")

    @property
    def primary_key(self) -> Optional[int]:
        """The store's key of the object when the text after ``p`` is a number;
        None while the ID is temporary, or when the text is an incremental
        store's reference that is not a number."""
        parts = self._parts()
        if len(parts) < 3 or not parts[2].startswith("p"):
            return None
        key = parts[2][1:]
        return int(key) if _INTEGER.fullmatch(key) else None

    @property
    def store_uuid(self) -> str:
        """The UUID of the store, "" while the ID is temporary."""
        return self._parts()[0]

    def __repr__(self) -> str:
        return f"ObjectID({str.__repr__(self)})"


_SCHEME = "x-coredata://"
_INTEGER = re.compile(r"-?[0-9]+")
