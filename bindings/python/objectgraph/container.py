"""Persistent containers (NSPersistentContainer) and store descriptions
(NSPersistentStoreDescription), over the library's og_container and
og_store_description handles."""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from typing import Any, Callable, Dict, Iterator, List, MutableMapping, Optional, Tuple

from ._call import call, call_flag, call_handle, call_optional
from ._handle import OwnedHandle
from ._lib import CONTAINER_LOAD_FN, CONTEXT_TASK_FN, lib
from ._util import PathLike, decode, encode, take_string
from .context import Context
from .coordinator import (
    INFER_MAPPING_OPTION,
    MIGRATE_AUTOMATICALLY_OPTION,
    READ_ONLY_OPTION,
    TIMEOUT_OPTION,
    Coordinator,
)
from .errors import Error, ErrorCode, _read, make_error
from .history import HISTORY_TRACKING_OPTION
from .model import Model
from .values import take_value, to_value

HISTORY_TRACKING_KEY = HISTORY_TRACKING_OPTION
# The options that have attributes of their own; ``options`` holds the others.
_OWN_KEYS = {READ_ONLY_OPTION, TIMEOUT_OPTION, MIGRATE_AUTOMATICALLY_OPTION, INFER_MAPPING_OPTION, HISTORY_TRACKING_KEY}


class _Options(MutableMapping[str, Any]):
    """A description's other options, by Core Data's key, read and written in
    the library's description."""

    def __init__(self, description: "PersistentStoreDescription") -> None:
        self._description = description

    def __getitem__(self, key: str) -> Any:
        if key in _OWN_KEYS or key not in self._all():
            raise KeyError(key)
        return self._description._option(key)

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str) or not key:
            raise make_error(f"an option key must be a non-empty str, not {key!r}", ErrorCode.INVALID_ARGUMENT)
        self._description._set_option(key, value)

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        self._description._set_option(key, None)

    def _all(self) -> Dict[str, Any]:
        value = take_value(call_handle(lib.og_store_description_options, self._description._h))
        return value if isinstance(value, dict) else {}

    def __iter__(self) -> Iterator[str]:
        return iter([k for k in self._all() if k not in _OWN_KEYS])

    def __len__(self) -> int:
        return len([k for k in self._all() if k not in _OWN_KEYS])

    def __repr__(self) -> str:
        return repr(dict(self))


class PersistentStoreDescription(OwnedHandle):
    """A recipe for ``add_store`` (NSPersistentStoreDescription). Its attributes
    are ``add_store``'s keywords under the same names; ``migrate_automatically``
    and ``infer_mapping_automatically`` default to True, as Apple's description
    does (``add_store`` defaults them to False). ``add_asynchronously`` makes
    ``PersistentContainer.load_stores`` add the store on a library thread.
    ``history_tracking`` is passed as Core Data's ``NSPersistentHistoryTrackingKey``."""

    _lent = False

    def __init__(self, path: Optional[PathLike] = None, type: str = "SQLite") -> None:
        self._h = call_handle(lib.og_store_description_new, None if path is None else encode(path), encode(type))
        self._closed = False

    @classmethod
    def _borrow(cls, handle: int) -> "PersistentStoreDescription":
        """A wrapper for a description a container lends (its default one)."""
        description = cls.__new__(cls)
        description._h = handle
        description._closed = False
        description._lent = True
        return description

    def _release(self) -> None:
        if not self._lent:
            lib.og_store_description_release(self._h)

    def _option(self, key: str) -> Any:
        return take_value(call_optional(lib.og_store_description_option, self._h, encode(key)))

    def _set_option(self, key: str, value: Any) -> None:
        boxed = None if value is None else to_value(value)
        try:
            call(lib.og_store_description_set_option, self._h, encode(key), boxed)
        finally:
            if boxed:
                lib.og_value_release(boxed)

    @property
    def type(self) -> str:
        return decode(lib.og_store_description_type(self._h)) or ""

    @type.setter
    def type(self, value: str) -> None:
        call(lib.og_store_description_set_type, self._h, encode(value))

    @property
    def path(self) -> Optional[str]:
        return decode(lib.og_store_description_path(self._h))

    @path.setter
    def path(self, value: Optional[PathLike]) -> None:
        call(lib.og_store_description_set_path, self._h, None if value is None else encode(value))

    @property
    def configuration(self) -> Optional[str]:
        return decode(lib.og_store_description_configuration(self._h))

    @configuration.setter
    def configuration(self, value: Optional[str]) -> None:
        call(lib.og_store_description_set_configuration, self._h, None if value is None else encode(value))

    @property
    def add_asynchronously(self) -> bool:
        return call_flag(lib.og_store_description_adds_asynchronously, self._h)

    @add_asynchronously.setter
    def add_asynchronously(self, value: bool) -> None:
        call(lib.og_store_description_set_adds_asynchronously, self._h, bool(value))

    def _flag(self, key: str) -> bool:
        return bool(self._option(key))

    @property
    def read_only(self) -> bool:
        return self._flag(READ_ONLY_OPTION)

    @read_only.setter
    def read_only(self, value: bool) -> None:
        self._set_option(READ_ONLY_OPTION, True if value else None)

    @property
    def timeout(self) -> Optional[float]:
        value = self._option(TIMEOUT_OPTION)
        return None if value is None else float(value)

    @timeout.setter
    def timeout(self, value: Optional[float]) -> None:
        self._set_option(TIMEOUT_OPTION, None if value is None else float(value))

    @property
    def migrate_automatically(self) -> bool:
        return self._flag(MIGRATE_AUTOMATICALLY_OPTION)

    @migrate_automatically.setter
    def migrate_automatically(self, value: bool) -> None:
        self._set_option(MIGRATE_AUTOMATICALLY_OPTION, bool(value))

    @property
    def infer_mapping_automatically(self) -> bool:
        return self._flag(INFER_MAPPING_OPTION)

    @infer_mapping_automatically.setter
    def infer_mapping_automatically(self, value: bool) -> None:
        self._set_option(INFER_MAPPING_OPTION, bool(value))

    @property
    def history_tracking(self) -> bool:
        return self._flag(HISTORY_TRACKING_KEY)

    @history_tracking.setter
    def history_tracking(self, value: bool) -> None:
        self._set_option(HISTORY_TRACKING_KEY, True if value else None)

    @property
    def options(self) -> MutableMapping[str, Any]:
        """Any other option by Core Data's key name, read and write."""
        return _Options(self)

    @options.setter
    def options(self, value: Optional[Dict[str, Any]]) -> None:
        current = _Options(self)
        for key in list(current):
            del current[key]
        for key, item in (value or {}).items():
            current[key] = item

    def __repr__(self) -> str:
        return f"PersistentStoreDescription(path={self.path!r}, type={self.type!r})"


Handler = Callable[[PersistentStoreDescription, Optional[Error]], Any]

# Calls the library makes back, by number: (container, handler or task).
_calls: Dict[int, Tuple["PersistentContainer", Callable[..., Any]]] = {}
_calls_lock = threading.Lock()
_numbers = itertools.count(1)


def _register(container: "PersistentContainer", fn: Callable[..., Any]) -> int:
    with _calls_lock:
        number = next(_numbers)
        _calls[number] = (container, fn)
    return number


def _on_load(description: Optional[int], error: Optional[int], user: Optional[int]) -> None:
    with _calls_lock:
        entry = _calls.get(user or 0)
    if entry is None:
        return
    container, handler = entry
    try:
        container._loaded(description, error, handler)
    except BaseException as exc:  # noqa: BLE001  (kept for the container's next call)
        container._keep(exc)


def _on_task(context: Optional[int], user: Optional[int]) -> None:
    with _calls_lock:
        entry = _calls.pop(user or 0, None)
    if entry is None or not context:
        return
    container, fn = entry
    wrapper = Context._borrow(context, container.coordinator)
    try:
        fn(wrapper)
    except BaseException as exc:  # noqa: BLE001
        container._keep(exc)
    finally:
        wrapper.close()  # lent for the call: only the wrapper is let go


_load_fn = CONTAINER_LOAD_FN(_on_load)
_task_fn = CONTEXT_TASK_FN(_on_task)


class PersistentContainer(OwnedHandle):
    """A whole stack (NSPersistentContainer): ``coordinator`` over ``model``,
    made at once; ``view_context``, a "main" context on it with no parent; and
    ``store_descriptions``, by default one SQLite store at
    ``default_directory()/<name>.sqlite``. Nothing is added until
    ``load_stores``. Close it (or use ``with``) to release it; its coordinator
    and view context go with it. An exception a handler or background task
    raises on a library thread is re-raised by the container's next call."""

    def __init__(self, name: str, model: Model) -> None:
        if not isinstance(model, Model):
            raise make_error(f"model must be a Model, not {type(model).__name__}", ErrorCode.INVALID_ARGUMENT)
        self._h = call_handle(lib.og_container_new, encode(name), model._h)
        self._closed = False
        self.model = model
        self._kept: List[BaseException] = []
        self._lock = threading.Lock()
        self.coordinator = Coordinator._borrow(call_handle(lib.og_container_coordinator, self._h), model)
        self.view_context = Context._borrow(call_handle(lib.og_container_view_context, self._h), self.coordinator)
        self.store_descriptions: List[PersistentStoreDescription] = [
            PersistentStoreDescription._borrow(call_handle(lib.og_container_description_at, self._h, i))
            for i in range(lib.og_container_description_count(self._h))]
        self._by_handle: Dict[int, PersistentStoreDescription] = {}
        self._handlers: List[int] = []

    @property
    def name(self) -> str:
        return decode(lib.og_container_name(self._h)) or ""

    @classmethod
    def default_directory(cls) -> str:
        """The folder for new descriptions: $XDG_DATA_HOME (else ~/.local/share)
        plus /objectgraph, created on first use."""
        return take_string(lib.og_container_default_directory()) or ""

    def _keep(self, exc: BaseException) -> None:
        with self._lock:
            self._kept.append(exc)

    def _raise_kept(self) -> None:
        with self._lock:
            kept, self._kept = self._kept, []
        if kept:
            raise kept[0]

    def load_stores(self, handler: Handler) -> None:
        """Adds each description's store and calls ``handler(description, error)``
        once per description, ``error`` None or the og.Error the store raised:
        store errors go only to the handler. Descriptions with
        ``add_asynchronously`` are added after the others, in order, on a
        library thread where their handler runs; the call does not wait."""
        self._raise_kept()
        descriptions = list(self.store_descriptions)
        for d in descriptions:
            if not isinstance(d, PersistentStoreDescription):
                raise make_error(f"store_descriptions must hold PersistentStoreDescription objects, not "
                                 f"{type(d).__name__}", ErrorCode.INVALID_ARGUMENT)
        array = (ctypes.c_void_p * max(1, len(descriptions)))(*[d._h for d in descriptions])
        call(lib.og_container_set_descriptions, self._h, array, len(descriptions))
        # The handles the container lends for them, which the handler is given.
        with self._lock:
            for i, d in enumerate(descriptions):
                self._by_handle[call_handle(lib.og_container_description_at, self._h, i)] = d
        number = _register(self, handler)
        self._handlers.append(number)
        call(lib.og_container_load_stores, self._h, _load_fn, number)
        self._raise_kept()

    def _loaded(self, handle: Optional[int], error: Optional[int], handler: Handler) -> None:
        with self._lock:
            description = self._by_handle.get(handle or 0)
        if description is None:
            return
        failure = _read(error) if error else None
        if failure is None:
            # Every store the coordinator has, in order: in-memory stores have no path to find them by.
            with self._lock:
                for i in range(lib.og_coordinator_store_count(self.coordinator._h)):
                    self.coordinator._adopt_store(call_handle(lib.og_coordinator_store_at, self.coordinator._h, i))
        handler(description, failure)

    def new_background_context(self) -> Context:
        """A new "private" context on the coordinator (newBackgroundContext)."""
        self._raise_kept()
        return Context._adopt(call_handle(lib.og_container_new_background_context, self._h), self.coordinator)

    def perform_background_task(self, fn: Callable[[Context], Any]) -> None:
        """Runs ``fn(context)`` on a new private context's queue and returns at
        once; the context is closed after ``fn`` (performBackgroundTask:)."""
        self._raise_kept()
        number = _register(self, fn)
        try:
            call(lib.og_container_perform_background_task, self._h, _task_fn, number)
        except BaseException:
            with _calls_lock:
                _calls.pop(number, None)
            raise

    def _release(self) -> None:
        self.view_context.close()
        self.coordinator.close()
        for d in self.store_descriptions:
            if d._lent:
                d.close()
        lib.og_container_release(self._h)
        with _calls_lock:
            for number in self._handlers:
                _calls.pop(number, None)
