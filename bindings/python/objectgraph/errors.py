"""The exception hierarchy, the error codes, and the conversion of an og_error
into a Python exception.

Every og_error the library hands back is read completely (domain, code,
message, user info, detailed errors) and released at once, so an exception
never holds a C handle.
"""

from __future__ import annotations

import ctypes
import difflib
import errno as _errno
import os
from enum import IntEnum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence

from ._lib import lib

if TYPE_CHECKING:
    from ._context_base import ContextBase
    from .objects import ManagedObject

__all__ = [
    "DOMAIN_COCOA",
    "DOMAIN_SQLITE",
    "DOMAIN_OBJECTGRAPH",
    "ErrorCode",
    "Error",
    "ValidationError",
    "StoreError",
    "IncompatibleStoreError",
    "ModelError",
    "UsageError",
    "InvalidHandleError",
    "UnknownEntityError",
    "UnknownKeyError",
    "TypeMismatchError",
    "WrongThreadError",
    "MergeConflictError",
    "MergeConflict",
    "ConstraintConflict",
    "ConstraintConflictError",
    "MigrationError",
]

DOMAIN_COCOA = "NSCocoaErrorDomain"
DOMAIN_SQLITE = "NSSQLiteErrorDomain"
DOMAIN_OBJECTGRAPH = "ObjectGraphErrorDomain"


class ErrorCode(IntEnum):
    """The codes of og_error_code (Core Data's numbers, then ObjectGraph's own)."""

    VALIDATION = 1550
    VALIDATION_CONSTRAINT = 1551
    VALIDATION_MULTIPLE = 1560
    VALIDATION_MISSING_MANDATORY = 1570
    VALIDATION_RELATIONSHIP_TOO_FEW = 1580
    VALIDATION_RELATIONSHIP_TOO_MANY = 1590
    VALIDATION_DENIED_DELETE = 1600
    VALIDATION_NUMBER_TOO_LARGE = 1610
    VALIDATION_NUMBER_TOO_SMALL = 1620
    VALIDATION_DATE_TOO_LATE = 1630
    VALIDATION_DATE_TOO_SOON = 1640
    VALIDATION_INVALID_DATE = 1650
    VALIDATION_STRING_TOO_LONG = 1660
    VALIDATION_STRING_TOO_SHORT = 1670
    VALIDATION_STRING_PATTERN = 1680
    CONTEXT_LOCKING = 132000
    COORDINATOR_LOCKING = 132010
    REFERENTIAL_INTEGRITY = 133000
    EXTERNAL_RELATIONSHIP = 133010
    MERGE = 133020
    CONSTRAINT_MERGE = 133021
    STORE_INVALID_TYPE = 134000
    STORE_TYPE_MISMATCH = 134010
    STORE_INCOMPATIBLE_SCHEMA = 134020
    STORE_SAVE = 134030
    STORE_INCOMPLETE_SAVE = 134040
    STORE_SAVE_CONFLICTS = 134050
    CORE_DATA = 134060
    STORE_OPERATION = 134070
    STORE_OPEN = 134080
    STORE_TIMEOUT = 134090
    STORE_UNSUPPORTED_REQUEST = 134091
    STORE_INCOMPATIBLE_VERSION = 134100
    MIGRATION = 134110
    MIGRATION_CONSTRAINT_VIOLATION = 134111
    MIGRATION_CANCELLED = 134120
    MIGRATION_MISSING_SOURCE_MODEL = 134130
    MIGRATION_MISSING_MAPPING_MODEL = 134140
    MIGRATION_SOURCE_STORE = 134150
    MIGRATION_DESTINATION_STORE = 134160
    MIGRATION_POLICY = 134170
    SQLITE = 134180
    INFERRED_MAPPING_MODEL = 134190
    HISTORY_TOKEN_EXPIRED = 134301
    INVALID_HANDLE = 140001
    INVALID_ARGUMENT = 140002
    INVALID_UTF8 = 140003
    UNKNOWN_ENTITY = 140004
    UNKNOWN_KEY = 140005
    TYPE_MISMATCH = 140006
    WRONG_THREAD = 140007
    MODEL_IMMUTABLE = 140008
    INVALID_MODEL = 140009
    OBJECT_INACCESSIBLE = 140010
    PREDICATE_SYNTAX = 140020
    PREDICATE_ARGUMENT = 140021
    PREDICATE_VARIABLE = 140022
    PREDICATE_EVALUATION = 140023


# Core Data's user-info keys that the engine fills for validation errors.
_KEY_PROPERTY = "NSValidationErrorKey"
_KEY_OBJECT = "NSValidationErrorObject"
_KEY_VALUE = "NSValidationErrorValue"


class Error(Exception):
    """An error reported by ObjectGraph.

    ``code`` and ``domain`` are Core Data's (``NSCocoaErrorDomain``), SQLite's
    result codes (``NSSQLiteErrorDomain``) or ObjectGraph's codes for misuse of
    the API (``ObjectGraphErrorDomain``, 140001 and up). ``details`` holds the
    individual errors of a multiple-validation error, or the underlying error.
    """

    def __init__(
        self,
        message: str,
        code: int = 0,
        domain: str = DOMAIN_OBJECTGRAPH,
        user_info: Optional[Mapping[str, str]] = None,
        details: Sequence["Error"] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = int(code)
        self.domain = domain
        self.user_info: Dict[str, str] = dict(user_info or {})
        self.details: List[Error] = list(details)

    def user_info_value(self, key: str) -> Optional[str]:
        """The user-info entry ``key`` as text, or None when absent."""
        return self.user_info.get(key)

    @property
    def key(self) -> Optional[str]:
        """The property a validation error is about (NSValidationErrorKey)."""
        return self.user_info.get(_KEY_PROPERTY)

    @property
    def object_id(self) -> Optional[str]:
        """The URI of the object a validation error is about (NSValidationErrorObject)."""
        return self.user_info.get(_KEY_OBJECT)

    @property
    def value(self) -> Optional[str]:
        """The offending value, as text (NSValidationErrorValue)."""
        return self.user_info.get(_KEY_VALUE)

    def __str__(self) -> str:
        return f"{self.message} ({self.domain} {self.code})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, domain={self.domain!r}, message={self.message!r})"

    def __reduce__(self) -> Any:
        # Exceptions with extra constructor arguments do not pickle by default.
        return (type(self), (self.message, self.code, self.domain, self.user_info, self.details))


class ValidationError(Error):
    """A value or object failed validation (codes 1550-1680)."""


class StoreError(Error):
    """A persistent store failed (codes 134000-134180, or SQLite's domain)."""


class IncompatibleStoreError(StoreError):
    """The store was written with a model whose version hashes differ (134100)."""


class ModelError(Error):
    """A model that is not valid (140009) or no longer editable (140008)."""


class UsageError(Error):
    """The API was used wrongly: a released handle, an unknown name, a bad argument."""


class InvalidHandleError(UsageError):
    """A NULL, released or wrong-kind handle (140001)."""


class UnknownEntityError(UsageError):
    """No entity of that name, or an abstract one (140004)."""


class ModelFileNotFoundError(UsageError, FileNotFoundError):
    """A model file or folder that does not exist (140002). Also a
    FileNotFoundError: ``errno``, ``strerror`` and ``filename`` give the
    operating system's reason."""

    def __init__(self, message: str, code: int = ErrorCode.INVALID_ARGUMENT, domain: str = DOMAIN_OBJECTGRAPH,
                 user_info: Optional[Mapping[str, str]] = None, details: Sequence["Error"] = ()) -> None:
        UsageError.__init__(self, message, code, domain, user_info, details)
        self.filename = self.user_info.get("NSFilePath")
        self.errno = _errno.ENOENT
        self.strerror = os.strerror(_errno.ENOENT)

    def __str__(self) -> str:
        return Error.__str__(self)


class UnknownKeyError(UsageError):
    """The entity has no property of that name (140005)."""


class TypeMismatchError(UsageError, TypeError):
    """A value of the wrong type for a property (140006)."""


class WrongThreadError(UsageError):
    """A context or its objects used from a thread that does not own it (140007)."""


class MigrationError(StoreError):
    """A store could not be migrated to another model version (134110-134170, 134190)."""


@dataclass(frozen=True)
class MergeConflict:
    """One object whose save met a newer row (NSMergeConflict).

    The snapshots map attribute names to values and to-one names to
    ObjectIDs (None when empty). ``object_snapshot`` holds the committed values
    the object last read; ``cached_snapshot`` the newer row the coordinator
    holds, or None; ``persisted_snapshot`` the store's row when it differs from
    the coordinator's, or None. ``old_version`` is the row version the object
    last read, ``new_version`` the row's version now (0 when the row is gone).
    ``object_id`` is the object's ID URI.
    """

    obj: Optional["ManagedObject"]
    object_snapshot: Dict[str, Any]
    cached_snapshot: Optional[Dict[str, Any]]
    persisted_snapshot: Optional[Dict[str, Any]]
    old_version: int
    new_version: int
    object_id: Optional[str] = None


class MergeConflictError(Error):
    """A save under MergePolicy.ERROR met rows changed since its objects read
    them (133020, NSManagedObjectMergeError). ``conflicts`` holds one
    MergeConflict per object; nothing was written and every change is still
    pending."""

    def __init__(
        self,
        message: str,
        code: int = 133020,
        domain: str = DOMAIN_COCOA,
        user_info: Optional[Mapping[str, str]] = None,
        details: Sequence["Error"] = (),
        conflicts: Sequence[MergeConflict] = (),
    ) -> None:
        super().__init__(message, code, domain, user_info, details)
        self.conflicts: List[MergeConflict] = list(conflicts)


@dataclass(frozen=True)
class ConstraintConflict:
    """One broken uniqueness constraint of a save (NSConstraintConflict).

    ``constraint`` lists the constraint's property names and
    ``constraint_values`` the values the conflicting objects share (a to-one's
    as the destination's ObjectID). ``conflicting_objects`` are the save's
    objects holding them; ``database_object`` is the object of the row already
    stored with them, or None when the conflict is between the save's objects.
    """

    constraint: List[str]
    constraint_values: Dict[str, Any]
    conflicting_objects: List["ManagedObject"]
    database_object: Optional["ManagedObject"]


class ConstraintConflictError(Error):
    """A save broke a uniqueness constraint under MergePolicy.ERROR, or in a
    way no policy resolves (133021, NSManagedObjectConstraintMergeError).
    ``conflicts`` holds one ConstraintConflict per constraint and values;
    nothing was written and every change is still pending."""

    def __init__(
        self,
        message: str,
        code: int = 133021,
        domain: str = DOMAIN_COCOA,
        user_info: Optional[Mapping[str, str]] = None,
        details: Sequence["Error"] = (),
        conflicts: Sequence[ConstraintConflict] = (),
    ) -> None:
        super().__init__(message, code, domain, user_info, details)
        self.conflicts: List[ConstraintConflict] = list(conflicts)


class PredicateError(UsageError):
    """A predicate that cannot be parsed or evaluated (140020-140023)."""


class PredicateSyntaxError(PredicateError, ValueError):
    """A format string that does not parse; the message names the position and token (140020)."""


class PredicateArgumentError(PredicateError, TypeError):
    """A missing or mistyped format argument (140021)."""


class PredicateVariableError(PredicateError, KeyError):
    """A ``$variable`` with no value (140022)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return Error.__str__(self)


class PredicateEvaluationError(PredicateError):
    """Operands of incompatible types, division by zero and the like (140023)."""


_BY_CODE: "Dict[int, type[Error]]" = {
    ErrorCode.STORE_INCOMPATIBLE_VERSION: IncompatibleStoreError,
    ErrorCode.MERGE: MergeConflictError,
    ErrorCode.CONSTRAINT_MERGE: ConstraintConflictError,
    ErrorCode.INFERRED_MAPPING_MODEL: MigrationError,
    ErrorCode.HISTORY_TOKEN_EXPIRED: StoreError,
    ErrorCode.INVALID_MODEL: ModelError,
    ErrorCode.MODEL_IMMUTABLE: ModelError,
    ErrorCode.INVALID_HANDLE: InvalidHandleError,
    ErrorCode.UNKNOWN_ENTITY: UnknownEntityError,
    ErrorCode.UNKNOWN_KEY: UnknownKeyError,
    ErrorCode.TYPE_MISMATCH: TypeMismatchError,
    ErrorCode.WRONG_THREAD: WrongThreadError,
    ErrorCode.PREDICATE_SYNTAX: PredicateSyntaxError,
    ErrorCode.PREDICATE_ARGUMENT: PredicateArgumentError,
    ErrorCode.PREDICATE_VARIABLE: PredicateVariableError,
    ErrorCode.PREDICATE_EVALUATION: PredicateEvaluationError,
}


def error_class(domain: str, code: int) -> "type[Error]":
    """The Error subclass for an error of ``domain`` and ``code``."""
    if domain == DOMAIN_SQLITE:
        return StoreError
    exact = _BY_CODE.get(code)
    if exact is not None:
        return exact
    if 1550 <= code <= 1680:
        return ValidationError
    if ErrorCode.MIGRATION <= code <= ErrorCode.MIGRATION_POLICY:
        return MigrationError
    if 134000 <= code <= 134180:
        return StoreError
    if 140001 <= code <= 140099:
        return UsageError
    return Error


def make_error(message: str, code: int, domain: str = DOMAIN_OBJECTGRAPH, **extra: Any) -> Error:
    """An error raised by the binding itself, classed like the library's."""
    return error_class(domain, code)(message, code, domain, **extra)


def _text(raw: Optional[bytes]) -> str:
    return raw.decode("utf-8", "replace") if raw is not None else ""


def _read(handle: int, context: Optional["ContextBase"] = None) -> Error:
    """Reads a lent or owned og_error without releasing it. The objects of a
    merge error's conflicts are lent by ``context``, the context whose save
    failed."""
    domain = _text(lib.og_error_domain(handle))
    code = int(lib.og_error_code(handle))
    message = _text(lib.og_error_message(handle))
    user_info: Dict[str, str] = {}
    for index in range(lib.og_error_user_info_count(handle)):
        key = lib.og_error_user_info_key(handle, index)
        if key is not None:
            user_info[_text(key)] = _text(lib.og_error_user_info_value(handle, index))
    # The validation keys are looked up by name as well: an engine that keeps
    # them out of the indexed entries still reports them.
    for wanted in (_KEY_PROPERTY, _KEY_OBJECT, _KEY_VALUE):
        if wanted not in user_info:
            found = lib.og_error_user_info(handle, wanted.encode())
            if found is not None:
                user_info[wanted] = _text(found)
    details = []
    for index in range(lib.og_error_detail_count(handle)):
        detail = lib.og_error_detail_at(handle, index)
        if detail:
            details.append(_read(detail, context))  # lent by `handle`: never released here
    error = error_class(domain, code)(message, code, domain, user_info, details)
    if isinstance(error, MergeConflictError) and _conflict_reader is not None:
        error.conflicts = _conflict_reader(handle, context)
    if isinstance(error, ConstraintConflictError) and _constraint_conflict_reader is not None:
        error.conflicts = _constraint_conflict_reader(handle, context)
    return error


# Reads the conflicts of a merge error: (og_error handle, the context that lends their
# objects, or None) -> one MergeConflict per object. Their snapshots hold values, which
# only a higher layer converts: _conflicts.py installs the reader when the package loads.
ConflictReader = Callable[[int, Optional["ContextBase"]], List[MergeConflict]]
ConstraintConflictReader = Callable[[int, Optional["ContextBase"]], List[ConstraintConflict]]
_conflict_reader: Optional[ConflictReader] = None
_constraint_conflict_reader: Optional[ConstraintConflictReader] = None


def set_conflict_reader(reader: ConflictReader, constraint_reader: Optional[ConstraintConflictReader] = None) -> None:
    """Installs the functions that read a merge error's conflicts and a
    constraint error's (_conflicts.py)."""
    global _conflict_reader, _constraint_conflict_reader
    _conflict_reader = reader
    _constraint_conflict_reader = constraint_reader


def unreported() -> Error:
    """The error of a call that failed without setting its error slot: itself a
    library fault, said so."""
    return Error("the call failed without reporting an error", 0, DOMAIN_OBJECTGRAPH)


def take_error(slot: ctypes.c_void_p, context: Optional["ContextBase"] = None) -> Error:
    """Converts the og_error in ``slot`` (an og_error * filled by a failed
    call), releases it, and clears the slot. ``context`` lends the objects of
    a merge error's conflicts (the context whose save failed)."""
    handle = slot.value
    if not handle:
        return unreported()
    try:
        return _read(handle, context)
    finally:
        lib.og_error_release(handle)
        slot.value = None


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """"; did you mean 'title'?" for the candidate closest to ``name``, or ""."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in candidates}
        close = [lowered[name.lower()]] if name.lower() in lowered else []
    return f"; did you mean {close[0]!r}?" if close else ""


def suggest(error: BaseException, model: Any) -> None:
    """Adds a "did you mean" hint to an unknown entity or key ``error``, from
    the names of ``model``'s entities and properties."""
    if not isinstance(error, (UnknownEntityError, UnknownKeyError)) or "did you mean" in error.message:
        return
    try:
        entity = error.user_info.get("entity")
        if isinstance(error, UnknownEntityError):
            hint = did_you_mean(entity or "", [e.name for e in model.entities if not e.abstract])
        else:
            key = error.user_info.get(_KEY_PROPERTY) or ""
            names = [p.name for p in model[entity].properties] if entity else []
            hint = did_you_mean(key.split(".")[-1], names)
    except Exception:  # a hint is a courtesy: never an error of its own
        return
    if hint:
        error.message += hint
        error.args = (error.message,)

