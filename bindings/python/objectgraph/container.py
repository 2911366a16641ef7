"""Persistent containers (NSPersistentContainer) and store descriptions
(NSPersistentStoreDescription): a model, a coordinator, a view context and the
stores to add, in one object."""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Dict, List, Optional

from ._lib import lib
from ._util import PathLike, take_string
from .context import Context
from .coordinator import Coordinator
from .errors import Error, ErrorCode, make_error
from .model import Model

HISTORY_TRACKING_KEY = "NSPersistentHistoryTrackingKey"


class PersistentStoreDescription:
    """A recipe for ``add_store`` (NSPersistentStoreDescription). Its attributes
    are ``add_store``'s keywords under the same names; ``migrate_automatically``
    and ``infer_mapping_automatically`` default to True, as Apple's description
    does (``add_store`` defaults them to False). ``add_asynchronously`` makes
    ``PersistentContainer.load_stores`` add the store on a library thread."""

    def __init__(self, path: Optional[PathLike] = None, type: str = "SQLite") -> None:
        self.type = type
        self.path: Optional[str] = None if path is None else os.fspath(path)
        self.add_asynchronously = False
        self.configuration: Optional[str] = None
        self.read_only = False
        self.timeout: Optional[float] = None
        self.migrate_automatically = True
        self.infer_mapping_automatically = True
        self.history_tracking = False
        self.options: Dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"PersistentStoreDescription(path={self.path!r}, type={self.type!r})"

    def _add(self, coordinator: Coordinator) -> None:
        options = dict(self.options)
        if self.history_tracking:
            options[HISTORY_TRACKING_KEY] = True
        coordinator.add_store(self.type, self.path, configuration=self.configuration, read_only=self.read_only,
                              timeout=self.timeout, options=options or None,
                              migrate_automatically=self.migrate_automatically,
                              infer_mapping_automatically=self.infer_mapping_automatically)


def _default_directory_path() -> str:
    """default_directory() without creating it (the library's rule, read here)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not base.startswith("/"):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "objectgraph")


Handler = Callable[[PersistentStoreDescription, Optional[Error]], Any]


class PersistentContainer:
    """A whole stack (NSPersistentContainer): ``coordinator`` over ``model``,
    made at once; ``view_context``, a "main" context on it; and
    ``store_descriptions``, by default one SQLite store at
    ``default_directory()/<name>.sqlite``. Nothing is added until
    ``load_stores``. Close it (or use ``with``) to release its contexts and
    coordinator."""

    def __init__(self, name: str, model: Model) -> None:
        if not isinstance(name, str) or not name or "/" in name or "\0" in name:
            raise make_error(f"a container's name is the file name of its store: {name!r} is empty or holds '/'",
                             ErrorCode.INVALID_ARGUMENT)
        if not isinstance(model, Model):
            raise make_error(f"model must be a Model, not {type(model).__name__}", ErrorCode.INVALID_ARGUMENT)
        self.name = name
        self.model = model
        self.coordinator = Coordinator(model)
        self.view_context = Context(self.coordinator, "main")
        # The default store's folder is made when the store is first added (load_stores).
        self.store_descriptions: List[PersistentStoreDescription] = [
            PersistentStoreDescription(os.path.join(_default_directory_path(), name + ".sqlite"))]
        # A private context whose queue is the library thread that asynchronous loads and the
        # closing of background contexts run on.
        self._worker: Optional[Context] = None
        self._lock = threading.Lock()

    @classmethod
    def default_directory(cls) -> str:
        """The folder for new descriptions: $XDG_DATA_HOME (else ~/.local/share)
        plus /objectgraph, created on first use."""
        return take_string(lib.og_container_default_directory()) or ""

    def _queue(self) -> Context:
        with self._lock:
            if self._worker is None:
                self._worker = Context(self.coordinator, "private")
            return self._worker

    def load_stores(self, handler: Handler) -> None:
        """Adds each description's store and calls ``handler(description, error)``
        once per description, ``error`` None or the og.Error the store raised:
        store errors go only to the handler. Descriptions with
        ``add_asynchronously`` are added after the others, in order, on a
        library thread where their handler runs; the call does not wait."""
        later = []
        for description in list(self.store_descriptions):
            if description.add_asynchronously:
                later.append(description)
            else:
                handler(description, self._add(description))
        if later:
            self._queue().perform(lambda: [handler(d, self._add(d)) for d in later] and None)

    def _add(self, description: PersistentStoreDescription) -> Optional[Error]:
        if description.path is not None and os.path.dirname(description.path) == _default_directory_path():
            self.default_directory()
        try:
            description._add(self.coordinator)
        except Error as error:
            return error
        return None

    def new_background_context(self) -> Context:
        """A new "private" context on the coordinator (newBackgroundContext)."""
        return Context(self.coordinator, "private")

    def perform_background_task(self, fn: Callable[[Context], Any]) -> None:
        """Runs ``fn(context)`` on a new private context's queue and returns at
        once; the context is closed after ``fn`` (performBackgroundTask:). An
        exception ``fn`` raises is re-raised by the next call on the container's
        worker queue (its next asynchronous load or ``close``)."""
        context = self.new_background_context()
        worker = self._queue()

        def run() -> None:
            try:
                fn(context)
            finally:
                # A context cannot be closed from its own queue: the worker closes it.
                worker.perform(context.close)

        context.perform(run)

    def close(self) -> None:
        """Releases the worker queue (after what it queued), the view context and
        the coordinator."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()
        self.view_context.close()
        self.coordinator.close()

    def __enter__(self) -> "PersistentContainer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
