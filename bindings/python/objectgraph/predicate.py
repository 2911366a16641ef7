"""Predicates: Core Data's NSPredicate language, parsed and evaluated by the
library. The same text means the same thing in a fetch (translated to SQL
where it can be) and in memory.

    adults = og.Predicate("age >= %@ AND name BEGINSWITH[c] %@", 18, "a")
    adults.format                         # 'age >= 18 AND name BEGINSWITH[c] "a"'
    adults.evaluate({"age": 31, "name": "Ann"})   # True
    ctx.fetch("Person", where=adults)
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ._call import call, call_borrowed, call_handle
from ._handle import OwnedHandle
from ._lib import lib
from ._util import encode
from .errors import ErrorCode, make_error
from .values import to_value

__all__ = ["Predicate"]

# NSPredicateOperatorType numbers, by the spellings the format language uses.
_OPERATORS = {
    "<": 0, "<=": 1, ">": 2, ">=": 3, "==": 4, "=": 4, "!=": 5, "MATCHES": 6, "LIKE": 7,
    "BEGINSWITH": 8, "ENDSWITH": 9, "IN": 10, "CONTAINS": 99, "BETWEEN": 100,
}
_QUANTIFIERS = {"": 0, "ALL": 1, "ANY": 2, "SOME": 2}


class _Values:
    """Boxed values for one call, released together."""

    def __init__(self, values: Sequence[Any]) -> None:
        self.handles: List[int] = []
        try:
            for v in values:
                self.handles.append(to_value(v))
        except BaseException:
            self.release()
            raise
        self.array = (ctypes.c_void_p * max(1, len(self.handles)))(*self.handles)

    def release(self) -> None:
        for h in self.handles:
            lib.og_value_release(h)
        self.handles = []

    def __enter__(self) -> "_Values":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _variables(variables: Optional[Mapping[str, Any]]) -> Tuple[Any, _Values, int]:
    names = [encode(k) for k in (variables or {})]
    values = _Values(list((variables or {}).values()))
    return (ctypes.c_char_p * max(1, len(names)))(*names), values, len(names)


class Predicate(OwnedHandle):
    """A predicate parsed from a format string. Arguments fill ``%@`` (any
    value: numbers, strings, dates, lists, managed objects), ``%K`` (a key
    path string) and the printf-style specifiers, in order.

    Raises PredicateSyntaxError (with the position and token) or
    PredicateArgumentError."""

    def __init__(self, format: str, *args: Any) -> None:
        with _Values(args) as values:
            self._h = call_handle(lib.og_predicate_parse, encode(format), values.array, len(values.handles))
        self._closed = False

    @classmethod
    def _adopt(cls, handle: int) -> "Predicate":
        p = cls.__new__(cls)
        p._h = handle
        p._closed = False
        return p

    @classmethod
    def compare(cls, key_path: str, operator: str, value: Any, *, case_insensitive: bool = False,
                diacritic_insensitive: bool = False, quantifier: str = "") -> "Predicate":
        """Builds ``key_path operator value`` without parsing: ``operator`` is a
        comparison of the format language ("==", "<", "BEGINSWITH", "IN", …),
        ``quantifier`` "", "ANY" or "ALL"."""
        op = _OPERATORS.get(operator.upper())
        if op is None:
            raise make_error(f"unknown comparison operator {operator!r}", ErrorCode.INVALID_ARGUMENT)
        q = _QUANTIFIERS.get(quantifier.upper())
        if q is None:
            raise make_error(f"unknown quantifier {quantifier!r} (use '', 'ANY' or 'ALL')", ErrorCode.INVALID_ARGUMENT)
        options = (1 if case_insensitive else 0) | (2 if diacritic_insensitive else 0)
        with _Values([value]) as values:
            return cls._adopt(call_handle(lib.og_predicate_new_comparison, encode(key_path), op, values.handles[0],
                                          options, q))

    def _compound(self, kind: int, others: Sequence["Predicate"]) -> "Predicate":
        parts = [self, *others]
        array = (ctypes.c_void_p * len(parts))(*[p._h for p in parts])
        return Predicate._adopt(call_handle(lib.og_predicate_new_compound, kind, array, len(parts)))

    def __and__(self, other: "Predicate") -> "Predicate":
        return self._compound(1, [other])

    def __or__(self, other: "Predicate") -> "Predicate":
        return self._compound(2, [other])

    def __invert__(self) -> "Predicate":
        return self._compound(0, [])

    @property
    def format(self) -> str:
        """The canonical text (NSPredicate's predicateFormat); it parses back to an equal predicate."""
        return call_borrowed(lib.og_predicate_format, self._h).decode()

    def evaluate(self, obj: Any, variables: Optional[Mapping[str, Any]] = None) -> bool:
        """Whether ``obj`` (a dict, list, value or ManagedObject) satisfies the
        predicate; ``$variables`` come from ``variables``. Raises
        PredicateVariableError for a variable without a value and
        PredicateEvaluationError for incompatible operands."""
        names, values, count = _variables(variables)
        out = ctypes.c_bool()
        try:
            with _Values([obj]) as target:
                call(lib.og_predicate_evaluate, self._h, target.handles[0], names, values.array, count, ctypes.byref(out))
        finally:
            values.release()
        return out.value

    def substitute(self, variables: Optional[Mapping[str, Any]] = None, **more: Any) -> "Predicate":
        """A new predicate with every ``$variable`` replaced by its value."""
        merged: Dict[str, Any] = dict(variables or {})
        merged.update(more)
        names, values, count = _variables(merged)
        try:
            return Predicate._adopt(call_handle(lib.og_predicate_substitute, self._h, names, values.array, count))
        finally:
            values.release()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Predicate):
            return NotImplemented
        return bool(lib.og_predicate_equal(self._h, other._h))

    def __hash__(self) -> int:
        return hash(self.format)

    def __str__(self) -> str:
        return self.format

    def __repr__(self) -> str:
        return "<objectgraph.Predicate closed>" if self._closed else f"<objectgraph.Predicate {self.format}>"

    def _release(self) -> None:
        lib.og_predicate_release(self._h)
