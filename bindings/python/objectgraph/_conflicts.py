"""The conflicts of a merge error (NSMergeConflict), read from its og_error.

errors.py turns every og_error into an exception, below the conversion of values;
a merge error's conflicts hold values (snapshots), so this module, above values,
reads them, and installs itself as errors.py's conflict reader when the package
loads. A failed read of one part leaves that part empty: the error being raised
matters more.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ._call import call_quietly
from ._lib import lib
from ._object_id import ObjectID
from .errors import ConstraintConflict, MergeConflict, set_conflict_reader
from .values import take_value

if TYPE_CHECKING:
    from ._context_base import ContextBase

__all__ = ["read_conflicts", "read_constraint_conflicts"]

# og_conflict_snapshot
_SNAPSHOT_OBJECT, _SNAPSHOT_CACHED, _SNAPSHOT_PERSISTED = 0, 1, 2


def _text(raw: Optional[bytes]) -> str:
    return raw.decode("utf-8", "replace") if raw is not None else ""


def read_conflicts(handle: int, context: Optional["ContextBase"]) -> List[MergeConflict]:
    """Every conflict of the merge error ``handle``; ``context`` lends their objects."""
    return [_conflict(handle, index, context) for index in range(lib.og_error_conflict_count(handle))]


def _conflict(handle: int, index: int, context: Optional["ContextBase"]) -> MergeConflict:
    """Conflict ``index`` of a merge error (NSMergeConflict)."""
    obj = None
    if context is not None:
        lent, _ = call_quietly(lib.og_error_conflict_object, handle, index, context._h)
        if lent:
            obj = context._wrap(lent)

    def snapshot(which: int) -> Optional[Dict[str, Any]]:
        if which != _SNAPSHOT_OBJECT and not lib.og_error_conflict_has_snapshot(handle, index, which):
            return None
        values: Dict[str, Any] = {}
        for k in range(lib.og_error_conflict_key_count(handle, index)):
            key = lib.og_error_conflict_key_at(handle, index, k)
            if key is None:
                continue
            value, _ = call_quietly(lib.og_error_conflict_value, handle, index, which, key)
            if value:
                values[_text(key)] = take_value(value, context)
        return values

    old, new = ctypes.c_int64(), ctypes.c_int64()
    call_quietly(lib.og_error_conflict_versions, handle, index, ctypes.byref(old), ctypes.byref(new))
    uri, _ = call_quietly(lib.og_error_conflict_object_uri, handle, index)
    object_id = None
    if uri:
        try:
            object_id = ObjectID(ctypes.string_at(uri).decode("utf-8", "replace"))
        finally:
            lib.og_free(uri)
    return MergeConflict(obj, snapshot(_SNAPSHOT_OBJECT) or {}, snapshot(_SNAPSHOT_CACHED),
                         snapshot(_SNAPSHOT_PERSISTED), int(old.value), int(new.value), object_id)


def read_constraint_conflicts(handle: int, context: Optional["ContextBase"]) -> List[ConstraintConflict]:
    """Every conflict of the uniqueness-constraint error ``handle`` (NSConstraintConflict);
    ``context`` lends their objects (without it the object lists are empty)."""
    out = []
    for index in range(lib.og_error_constraint_conflict_count(handle)):
        names = []
        for k in range(lib.og_error_constraint_conflict_property_count(handle, index)):
            name = lib.og_error_constraint_conflict_property_at(handle, index, k)
            if name is not None:
                names.append(_text(name))
        values: Dict[str, Any] = {}
        for name in names:
            value, _ = call_quietly(lib.og_error_constraint_conflict_value, handle, index, name.encode())
            if value:
                values[name] = take_value(value, context)
        objects = []
        database = None
        if context is not None:
            for k in range(lib.og_error_constraint_conflict_object_count(handle, index)):
                lent, _ = call_quietly(lib.og_error_constraint_conflict_object, handle, index, k, context._h)
                if lent:
                    objects.append(context._wrap(lent))
            lent, _ = call_quietly(lib.og_error_constraint_conflict_database_object, handle, index, context._h)
            if lent:
                database = context._wrap(lent)
        out.append(ConstraintConflict(names, values, objects, database))
    return out


set_conflict_reader(read_conflicts, read_constraint_conflicts)
