"""The exception hierarchy, the error codes, and the conversion of an og_error
into a Python exception.

Every og_error the library hands back is read completely (domain, code,
message, user info, detailed errors) and released at once, so an exception
never holds a C handle.
"""

from __future__ import annotations

import ctypes
from enum import IntEnum
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ._lib import lib

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
]

DOMAIN_COCOA = "NSCocoaErrorDomain"
DOMAIN_SQLITE = "NSSQLiteErrorDomain"
DOMAIN_OBJECTGRAPH = "ObjectGraphErrorDomain"


class ErrorCode(IntEnum):
    """The codes of og_error_code (Core Data's numbers, then ObjectGraph's own)."""

    VALIDATION = 1550
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
    STORE_INCOMPATIBLE_VERSION = 134100
    SQLITE = 134180
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


class UnknownKeyError(UsageError):
    """The entity has no property of that name (140005)."""


class TypeMismatchError(UsageError, TypeError):
    """A value of the wrong type for a property (140006)."""


class WrongThreadError(UsageError):
    """A context or its objects used from a thread that does not own it (140007)."""


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


def _read(handle: int) -> Error:
    """Reads a lent or owned og_error without releasing it."""
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
            details.append(_read(detail))  # lent by `handle`: never released here
    return error_class(domain, code)(message, code, domain, user_info, details)


def take_error(slot: ctypes.c_void_p) -> Error:
    """Converts the og_error in ``slot`` (an og_error * filled by a failed
    call), releases it, and clears the slot."""
    handle = slot.value
    if not handle:
        # A failure that set no error is itself a library fault; say so.
        return Error("the call failed without reporting an error", 0, DOMAIN_OBJECTGRAPH)
    try:
        return _read(handle)
    finally:
        lib.og_error_release(handle)
        slot.value = None
