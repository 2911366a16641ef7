"""Fetch requests: which entity, and in what order."""

from __future__ import annotations

import ctypes
from typing import Iterable, List, Tuple, Union

from ._handle import OwnedHandle
from ._lib import lib
from ._util import check, check_handle, encode

__all__ = ["FetchRequest", "SortSpec"]

SortSpec = Union[str, Iterable[str], None]


def parse_sort(sort: SortSpec) -> List[Tuple[str, bool]]:
    """``"title"`` or ``["title", "-year"]`` -> [(key, ascending)]; a "-" prefix
    sorts descending, a "+" prefix ascending."""
    if sort is None:
        return []
    keys = [sort] if isinstance(sort, str) else list(sort)
    result = []
    for key in keys:
        if key.startswith("-"):
            result.append((key[1:], False))
        else:
            result.append((key[1:] if key.startswith("+") else key, True))
    return result


class FetchRequest(OwnedHandle):
    """A request for every object of ``entity`` (subentities included), sorted
    by ``sort``. The entity is checked when the request runs."""

    def __init__(self, entity: str, sort: SortSpec = None) -> None:
        err = ctypes.c_void_p()
        self._h = check_handle(lib.og_fetch_request_new(encode(entity), ctypes.byref(err)), err)
        self._closed = False
        self.entity = entity
        self.sort: List[Tuple[str, bool]] = []
        for key, ascending in parse_sort(sort):
            self.add_sort(key, ascending)

    def add_sort(self, key: str, ascending: bool = True) -> "FetchRequest":
        """Appends a sort key; earlier keys take precedence."""
        err = ctypes.c_void_p()
        check(lib.og_fetch_request_add_sort(self._h, encode(key), ascending, ctypes.byref(err)), err)
        self.sort.append((key, ascending))
        return self

    def _release(self) -> None:
        lib.og_fetch_request_release(self._h)

    def __repr__(self) -> str:
        order = ", ".join(("" if asc else "-") + key for key, asc in self.sort)
        return f"<objectgraph.FetchRequest {self.entity} sort=[{order}]>"
