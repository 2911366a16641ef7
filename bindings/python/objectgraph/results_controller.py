"""The fetched results controller (Core Data's NSFetchedResultsController, without
a cache): a fetch's objects in order, grouped in sections, kept up to date as the
context changes, with callbacks for each change (docs/fetching.md)."""

from __future__ import annotations

import ctypes
import itertools
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

from ._call import call, call_handle, call_optional, call_out, optional_text
from ._handle import OwnedHandle
from ._lib import RESULTS_BATCH_FN, RESULTS_OBJECT_FN, RESULTS_RELEASE_FN, RESULTS_SECTION_FN, NULL, lib
from ._util import encode, take_string
from .errors import ErrorCode, UsageError, make_error
from .fetch import FetchRequest, SortSpec, Where
from .graph import _keep, _nested
from .predicate import Predicate
from .values import take_value

if TYPE_CHECKING:
    from .context import Context
    from .objects import ManagedObject

__all__ = ["FetchedResultsController", "Section"]

# og_results_change by the names callbacks receive.
_CHANGES = {1: "insert", 2: "delete", 3: "move", 4: "update"}


class Section(NamedTuple):
    """One section (NSFetchedResultsSectionInfo): ``name`` is the section key's
    value as text ("" for None, and for the one section of a controller without
    a section key), ``objects`` its objects in order."""

    name: str
    objects: List["ManagedObject"]


class _Callbacks(ctypes.Structure):
    """og_results_controller_callbacks, version 1."""

    _fields_ = [("version", ctypes.c_int), ("userdata", ctypes.c_void_p), ("will_change", RESULTS_BATCH_FN),
                ("did_change_section", RESULTS_SECTION_FN), ("did_change_object", RESULTS_OBJECT_FN),
                ("did_change", RESULTS_BATCH_FN), ("release", RESULTS_RELEASE_FN)]


class FetchedResultsController(OwnedHandle):
    """The objects ``request`` matches in ``ctx``, in its order, grouped by
    ``section_key``. ``request`` is an og.FetchRequest, or an entity name with
    ``sort`` and ``where`` (and its ``%@`` arguments) as ``ctx.fetch`` takes
    them. A request without a sort order raises UsageError (140002).

    ``perform_fetch()`` fetches and starts tracking: from then on, whenever the
    context processes its pending changes (``process_pending_changes()``, the
    end of a ``perform`` block, a save) or merges a save, the results follow and
    the callbacks hear what changed. Use it with ``with``, or ``close()`` it."""

    def __init__(self, ctx: "Context", request: Union[FetchRequest, str], sort: SortSpec = None, where: Where = None,
                 *args: Any, section_key: Optional[str] = None) -> None:
        if isinstance(request, FetchRequest):
            if sort is not None or where is not None or args:
                raise make_error("give sort and where with an entity name, or set them on the FetchRequest",
                                 ErrorCode.INVALID_ARGUMENT)
        elif isinstance(request, str):
            if args and not isinstance(where, str):
                raise make_error("%@ arguments need a predicate format string", ErrorCode.INVALID_ARGUMENT)
            predicate = Predicate(where, *args) if args and isinstance(where, str) else where
            request = FetchRequest(request, sort, predicate)
        else:
            raise make_error(f"the request is a FetchRequest or an entity name, not {type(request).__name__}",
                             ErrorCode.INVALID_ARGUMENT)
        self._context = ctx
        self._request = request
        self._section_key = section_key
        self._h = call_handle(lib.og_results_controller_new, ctx._h, request._h, optional_text(section_key),
                              context=ctx)
        self._closed = False
        self._fns: Dict[str, Optional[Callable[..., Any]]] = {}
        # Set when a callback raised: the rest of that batch is not delivered.
        self._failed = False
        self._number = _register(self)
        table = _Callbacks(1, self._number, _will_change_fn, _section_changed_fn, _object_changed_fn, _did_change_fn,
                           _released_fn)
        call(lib.og_results_controller_set_callbacks, self._h, ctypes.byref(table), context=ctx)

    # Read-only properties.

    @property
    def fetch_request(self) -> FetchRequest:
        return self._request

    @property
    def context(self) -> "Context":
        return self._context

    @property
    def section_key(self) -> Optional[str]:
        return self._section_key

    # Fetching and reading.

    def _handle(self) -> int:
        if self._closed:
            raise make_error("the fetched results controller is closed", ErrorCode.INVALID_ARGUMENT)
        return self._h  # type: ignore[return-value]

    def perform_fetch(self) -> None:
        """Fetches and starts tracking the context (performFetch:). Again after
        the request changed, it fetches again and calls nothing. Sections the
        first sort key does not group together raise og.Error 134060."""
        call(lib.og_results_controller_perform_fetch, self._handle(), context=self._context)

    @property
    def objects(self) -> Optional[List["ManagedObject"]]:
        """The fetched objects in order (fetchedObjects); None before perform_fetch."""
        results = call_optional(lib.og_results_controller_fetched_objects, self._handle(), context=self._context)
        return None if results is None else self._context._take_results(results)

    @property
    def sections(self) -> Optional[List[Section]]:
        """The sections in order; one when there is no section key (none when
        nothing matches); None before perform_fetch."""
        h = self._handle()
        count = call_out(lib.og_results_controller_section_count, ctypes.c_size_t, h, context=self._context)
        if count is None:
            return None
        return [Section(take_string(call_handle(lib.og_results_controller_section_name, h, i,
                                                context=self._context)) or "",
                        self._context._take_results(call_handle(lib.og_results_controller_section_objects, h, i,
                                                                context=self._context)))
                for i in range(count)]

    def index_of(self, obj: "ManagedObject") -> Optional[Tuple[int, int]]:
        """``(section, row)`` of ``obj``, or None when it is not in the results
        (indexPathForObject:)."""
        section, row = ctypes.c_size_t(), ctypes.c_size_t()
        status = call(lib.og_results_controller_index_of, self._handle(), obj._h, ctypes.byref(section),
                      ctypes.byref(row), context=self._context)
        return None if status == NULL else (section.value, row.value)

    def object_at(self, section: int, row: int) -> "ManagedObject":
        """The object at ``(section, row)`` (objectAtIndexPath:). IndexError when
        there is none."""
        h = self._handle()
        if section < 0 or row < 0:
            raise IndexError(f"({section}, {row}) is not an index path of the results")
        try:
            obj = call_handle(lib.og_results_controller_object_at, h, section, row, context=self._context)
        except UsageError as error:
            if error.code != ErrorCode.INVALID_ARGUMENT:
                raise
            raise IndexError(error.message) from error
        return self._context._wrap(obj)

    # Index titles (sectionIndexTitles): beyond the names api/python.md fixes, so that
    # every behaviour of the controller is reachable from Python.

    @property
    def section_index_titles(self) -> List[str]:
        """The sections' index titles (each name's first letter, capitalised),
        each once, in section order (sectionIndexTitles)."""
        titles = take_value(call_handle(lib.og_results_controller_section_index_titles, self._handle(),
                                        context=self._context))
        return [str(t) for t in titles] if isinstance(titles, list) else []

    def section_index_title(self, section: int) -> Optional[str]:
        """The index title of section number ``section``; None for an empty name.
        IndexError when there is no such section."""
        if section < 0:
            raise IndexError(f"{section} is not a section of the results")
        try:
            pointer = call_optional(lib.og_results_controller_section_index_title, self._handle(), section,
                                    context=self._context)
        except UsageError as error:
            if error.code != ErrorCode.INVALID_ARGUMENT:
                raise
            raise IndexError(error.message) from error
        return take_string(pointer)

    def section_for_index_title(self, title: str, index: int) -> int:
        """The first section whose index title is ``title``, ``index`` being the
        title's place in ``section_index_titles`` (sectionForSectionIndexTitle:atIndex:).
        UsageError (140002) when no section has it."""
        return int(call_out(lib.og_results_controller_section_for_index_title, ctypes.c_size_t, self._handle(),
                            encode(title), index, context=self._context))

    # Callbacks (the delegate). Each setter replaces the previous function; None clears it.

    def on_will_change(self, fn: Optional[Callable[[], Any]]) -> None:
        """``fn()`` runs before a batch of changes."""
        self._fns["will"] = fn

    def on_did_change(self, fn: Optional[Callable[[], Any]]) -> None:
        """``fn()`` runs after the batch."""
        self._fns["did"] = fn

    def on_change(self, fn: Optional[Callable[[str, "ManagedObject", Optional[Tuple[int, int]],
                                               Optional[Tuple[int, int]]], Any]]) -> None:
        """``fn(kind, obj, old_index, new_index)``: kind "insert" (new index only),
        "delete" (old only), "move" (both) or "update" (old only)."""
        self._fns["change"] = fn

    def on_section_change(self, fn: Optional[Callable[[str, Section, int], Any]]) -> None:
        """``fn(kind, section, index)``: kind "insert" (index in the new
        sections) or "delete" (in the old ones)."""
        self._fns["section"] = fn

    def _release(self) -> None:
        # Inside one of its callbacks the library releases it once the callback returns.
        lib.og_results_controller_release(self._h)

    def __repr__(self) -> str:
        key = f", section_key={self._section_key!r}" if self._section_key else ""
        return f"<FetchedResultsController {self._request.entity!r}{key}{' closed' if self._closed else ''}>"


# Registration number -> controller (weakly): the C table's userdata.
_ids = itertools.count(1)
_lock = threading.Lock()
_controllers: Dict[int, "weakref.ref[FetchedResultsController]"] = {}


def _register(controller: FetchedResultsController) -> int:
    with _lock:
        number = next(_ids)
        _controllers[number] = weakref.ref(controller)
    return number


def _lookup(user: Optional[int]) -> Optional[FetchedResultsController]:
    with _lock:
        ref = _controllers.get(user)  # type: ignore[arg-type]
    return ref() if ref is not None else None


def _deliver(user: Optional[int], key: str, make_args: Callable[[FetchedResultsController], Tuple[Any, ...]],
             starts_batch: bool = False) -> None:
    """Calls the controller's function for ``key``. Its exception is kept by the
    context and raised by the call that processed the changes; the rest of that
    batch is not delivered."""
    controller = _lookup(user)
    if controller is None:
        return
    if starts_batch:
        controller._failed = False
    fn = controller._fns.get(key)
    if fn is None or controller._failed:
        return
    try:
        with _nested:
            fn(*make_args(controller))
    except BaseException as exc:  # noqa: BLE001 - kept and re-raised by the context's call
        controller._failed = True
        _keep(controller._context, exc)


def _lent_objects(controller: FetchedResultsController, results: Optional[int]) -> List["ManagedObject"]:
    if not results:
        return []
    wrap = controller._context._wrap
    return [wrap(lib.og_results_object_at(results, i, None)) for i in range(lib.og_results_count(results))]


def _index(section: int, row: int) -> Optional[Tuple[int, int]]:
    return None if section < 0 else (section, row)


def _will_change(handle: Optional[int], user: Optional[int]) -> None:
    _deliver(user, "will", lambda c: (), starts_batch=True)


def _did_change(handle: Optional[int], user: Optional[int]) -> None:
    _deliver(user, "did", lambda c: ())


def _section_changed(handle: Optional[int], change: int, name: Optional[bytes], objects: Optional[int], index: int,
                     user: Optional[int]) -> None:
    _deliver(user, "section", lambda c: (_CHANGES.get(change, "?"),
                                         Section((name or b"").decode("utf-8", "replace"), _lent_objects(c, objects)),
                                         index))


def _object_changed(handle: Optional[int], change: int, obj: Optional[int], old_section: int, old_row: int,
                    new_section: int, new_row: int, user: Optional[int]) -> None:
    _deliver(user, "change", lambda c: (_CHANGES.get(change, "?"), c._context._wrap(obj) if obj else None,
                                        _index(old_section, old_row), _index(new_section, new_row)))


def _released(user: Optional[int]) -> None:
    with _lock:
        _controllers.pop(user, None)  # type: ignore[arg-type]


# The C functions the table points at; module-level, so they live as long as the library may call them.
_will_change_fn = RESULTS_BATCH_FN(_will_change)
_did_change_fn = RESULTS_BATCH_FN(_did_change)
_section_changed_fn = RESULTS_SECTION_FN(_section_changed)
_object_changed_fn = RESULTS_OBJECT_FN(_object_changed)
_released_fn = RESULTS_RELEASE_FN(_released)
