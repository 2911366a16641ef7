"""The classes allowed in transformable attributes, and the values only a named
transformer can store: registries that value conversion (values.py) reads and the
registration functions (transformable.py) fill. Plain Python."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from typing import Any, Dict, Optional, Tuple

from .errors import ErrorCode, make_error

__all__ = ["allow", "withdraw", "archived_name", "fields_of", "build", "foreign"]

_lock = threading.Lock()
_classes: Dict[str, type] = {}
_names: Dict[type, str] = {}
# Values only a named transformer can store cross the library as a placeholder
# object naming an entry here; the entry lives as long as the process.
_FOREIGN = "$python."
_foreign: Dict[int, Any] = {}
_foreign_ids = itertools.count(1)


def allow(cls: type, name: str) -> None:
    """Allows instances of ``cls``, archived under ``name`` (replacing an earlier name)."""
    with _lock:
        old = _names.pop(cls, None)
        if old is not None and old != name:
            _classes.pop(old, None)
        _classes[name] = cls
        _names[cls] = name


def withdraw(cls: type) -> Optional[str]:
    """Withdraws ``cls``; the name it was allowed under, or None when it was not."""
    with _lock:
        name = _names.pop(cls, None)
        if name is not None:
            _classes.pop(name, None)
    return name


def archived_name(value: Any) -> Optional[str]:
    """The registered name of ``value``'s class, or None."""
    with _lock:
        return _names.get(type(value))


def fields_of(value: Any) -> Dict[str, Any]:
    """The fields an instance is archived with."""
    if dataclasses.is_dataclass(value):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    getstate = getattr(type(value), "__getstate__", None)
    if getstate is not None and getstate is not getattr(object, "__getstate__", None):
        state = value.__getstate__()
        if not isinstance(state, dict):
            raise make_error(f"{type(value).__qualname__}.__getstate__ returned {type(state).__name__}, not a dict",
                             ErrorCode.TYPE_MISMATCH)
        return state
    try:
        return dict(vars(value))
    except TypeError:
        raise make_error(f"a {type(value).__qualname__} has no fields to archive (no __dict__ or __getstate__)",
                         ErrorCode.TYPE_MISMATCH) from None


def build(name: str, fields: Dict[str, Any]) -> Any:
    """An instance of the class registered under ``name`` with ``fields``; any
    other name is refused (nothing is built)."""
    if name.startswith(_FOREIGN):
        with _lock:
            kept = _foreign.get(fields.get("id", 0), _foreign)
        if kept is not _foreign:
            return kept
    with _lock:
        cls = _classes.get(name)
    if cls is None:
        raise make_error(
            f"the value is an archived {name!r}, which is not a class registered with og.register_archivable_class",
            ErrorCode.TYPE_MISMATCH)
    made_class: Any = cls
    instance: Any = made_class.__new__(made_class)
    setstate = getattr(instance, "__setstate__", None)
    if setstate is not None:
        setstate(fields)
    else:
        for key, item in fields.items():
            object.__setattr__(instance, key, item)
    return instance


def foreign(value: Any) -> Tuple[str, int]:
    """A placeholder for a value only a named transformer can store."""
    with _lock:
        key = next(_foreign_ids)
        _foreign[key] = value
    return _FOREIGN + type(value).__qualname__, key
