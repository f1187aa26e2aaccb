"""The operators of the predicate language: one record each, in one table every consumer reads.

An `Operator` says how it is spelt and how tightly it binds (the tokenizer, the parser and the
printing of nodes), which operand types it takes (the type rule of `matrix._typecheck`), how it
evaluates (the interpreter of `matrix.predicates`, the three-valued evaluation of
`matrix._space`), its Python form in the generated fast path (`matrix._compile`), the constants
a literal operand adds to the partition of `matrix._space`, the field types `matrix.strategies`
draws it for (its operand types), and its place in the editor's one-line description of the
language. Adding an operator is one entry of `TABLE` (and its tests); a comparison needs no
other change.

The plain types of a config value (what a bare operand's truth, and a section's check in the
fast path, tell apart from a section) are here too: `PLAIN_TYPES`.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Dict, FrozenSet, Optional, Tuple

from packaging.version import Version

from . import _messages
from ._record import Record, _set
from ._versions import to_version
from .errors import ConfigError

#: Binding strength, loosest first; a child looser than its parent needs parentheses.
#: (``+`` and ``-`` bind looser than ``*``, ``//`` and ``%``, as in Python.)
OR_LEVEL, AND_LEVEL, NOT_LEVEL, TEST_LEVEL, SUM_LEVEL, ARITH_LEVEL, ATOM_LEVEL = range(1, 8)

#: Types whose values Python's ``bool`` judges (a bare operand's truth); anything else a config
#: holds is a section.
PLAIN_TYPES = (bool, int, float, str, bytes, list, tuple, set, frozenset)

#: The field types the ordering operators take (a str literal counts as a version beside a
#: version field).
ORDERED = frozenset({"int", "float", "version"})


def _itself(value: object) -> Tuple[object, ...]:
    return (value,)


#: The kinds of operator (`Operator.kind`).
KINDS = ("logic", "comparison", "membership", "test", "arithmetic")


class Operator(Record):
    """One operator of the predicate language (a `matrix._record.Record`: attrs building it was
    0.5 ms of every ``import matrix``, issue 29)."""

    __slots__ = ("spelling", "kind", "strength", "evaluate", "python", "negates", "operands", "refused", "none_is_false",
                 "constants", "example")
    #: As written and printed; words separated by one space (``not in``).
    spelling: str
    #: ``logic`` (and, or, not), ``comparison`` (``left op right``, both sides values),
    #: ``membership`` (``left op list``), ``test`` (``operand is None``), ``arithmetic``
    #: (``a op b`` over ints: ``+ - * // %``): one of `KINDS`.
    kind: str
    strength: int
    #: The interpreter's function of the two operand values (a comparison's truth, an
    #: arithmetic operator's value); None for logic and tests, which the interpreter walks.
    evaluate: Optional[Callable[[Any, Any], Any]]
    #: Python source of the operator on ``{a}`` and ``{b}`` in the generated fast path, used
    #: where the schema checked both sides, so that Python's own operator gives the
    #: interpreter's answer; empty for logic (Python's own ``and``/``or``/``not``).
    python: str
    #: The spelling of the operator this one negates (``!=`` negates ``==``).
    negates: Optional[str]
    #: The type names each side may have (None: any, the two sides of a kind), and the message
    #: for a side that has another (``refused(described side, spelling)``).
    operands: Optional[FrozenSet[str]]
    refused: Optional[Callable[[str, str], str]]
    #: Where Python raises TypeError for a None operand, the interpreter says False: the fast
    #: path tests for None first.
    none_is_false: bool
    #: The constants a literal operand adds to the partition of a field it is compared with.
    constants: Callable[[object], Tuple[object, ...]]
    #: Shown in the editor's one-line description of the language ("" to leave it out).
    example: str

    def __init__(self, spelling: str, kind: str, strength: int, evaluate: Optional[Callable[[Any, Any], Any]] = None,
                 python: str = "", negates: Optional[str] = None, operands: Optional[FrozenSet[str]] = None,
                 refused: Optional[Callable[[str, str], str]] = None, none_is_false: bool = False,
                 constants: Callable[[object], Tuple[object, ...]] = _itself, example: str = "") -> None:
        if kind not in KINDS:
            raise ValueError(f"'kind' must be in {KINDS!r} (got {kind!r})")
        for name, value in (("spelling", spelling), ("kind", kind), ("strength", strength), ("evaluate", evaluate),
                            ("python", python), ("negates", negates), ("operands", operands), ("refused", refused),
                            ("none_is_false", none_is_false), ("constants", constants), ("example", example)):
            _set(self, name, value)

    @property
    def words(self) -> Tuple[str, ...]:
        return tuple(self.spelling.split())


def _host_error(a: object, b: object, exc: Exception) -> ConfigError:
    # Only a config without a schema can hold objects whose comparisons raise: with one,
    # every value is checked to be a plain value first.
    return ConfigError(_messages.comparing_raised(a, b, exc), path="(a compared value)")


def _align(a: object, b: object) -> Tuple[object, object]:
    """Version fields compare with version strings as versions, not as text."""
    if type(a) is Version and type(b) is str:
        return a, to_version(b)
    if type(b) is Version and type(a) is str:
        return to_version(a), b
    return a, b


def _ordered(compare: Callable[[Any, Any], Any]) -> Callable[[object, object], bool]:
    def apply(a: object, b: object) -> bool:
        a, b = _align(a, b)
        try:
            return bool(compare(a, b))
        except TypeError:  # None < 4, 'a' < 1: False, never an exception (README, "The predicate language")
            return False
        except Exception as exc:
            raise _host_error(a, b, exc) from None

    return apply


def _contains(a: object, b: object) -> bool:
    if b is None:
        return False
    if type(a) is Version and isinstance(b, tuple):
        b = tuple(to_version(x) if type(x) is str else x for x in b)
    try:
        return a in b  # type: ignore[operator]  # whatever the config holds; TypeError is False
    except TypeError:
        return False
    except Exception as exc:
        raise _host_error(a, b, exc) from None


def _negated(function: Callable[[object, object], bool]) -> Callable[[object, object], bool]:
    return lambda a, b: not function(a, b)


def remainder(number: object, divisor: int) -> object:
    """``number % divisor`` for an int (not a bool); None for anything else (None included):
    the remainder of what is not an integer is no number, so every test of it but ``!=`` and
    ``is None`` is False."""
    return int(number) % divisor if isinstance(number, int) and not isinstance(number, bool) else None


def _integer(function: Callable[[int, int], int]) -> Callable[[object, object], object]:
    """An arithmetic operator of the language: *function* of two ints (not bools); None when
    either side is not an int (None included) or the divisor is zero (README, "Arithmetic")."""
    def apply(a: object, b: object) -> object:
        if not isinstance(a, int) or isinstance(a, bool) or not isinstance(b, int) or isinstance(b, bool):
            return None
        try:
            return function(int(a), int(b))
        except ZeroDivisionError:
            return None

    return apply


def nearest_float(value: float) -> float:
    """The float nearest the number *value*; an int past the largest float, the infinity on its
    side (where ``float()`` raises OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def exact_float(value: float) -> float:
    """*value* as the float equal to it where one is, else itself: an int that no float equals
    (2**53 + 1, or one past the largest float) stays the int, a value of a float field compared
    exactly, as Python compares an int with a float. Never ``float(value)``, which rounds
    (2**53 + 1 became 2**53) or raises."""
    near = nearest_float(value)
    return near if near == value else value


def _product(a: object, b: object) -> object:
    """``a * b``: the language multiplies ints (its type check refuses any other operand), and
    `matrix._substitute` says an adjustment's ``{ from = …, times = 0.85 }`` with it, which
    multiplies a float as Python does. None where either side is not a number (None, a bool)."""
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return None
    return a * b


def integers(function: Callable[..., int], values: Tuple[object, ...]) -> object:
    """``min(…)`` / ``max(…)`` of ints (not bools); None when one of them is not an int."""
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
    return function([int(v) for v in values if isinstance(v, int)])


#: The functions of an arithmetic expression (``max(1, a // b)``), by name.
FUNCTIONS: Dict[str, Callable[..., int]] = {"min": min, "max": max}


def truthy(obj: object) -> bool:
    """A bare operand's truth: scalars and lists as Python says; None is False; anything else
    is a section, and a section that is there is True (even an empty dict: "is present")."""
    if obj is None:
        return False
    if isinstance(obj, PLAIN_TYPES):
        try:
            return bool(obj)
        except Exception as exc:  # a list subclass with a hostile __len__, in a schema-less config
            raise ConfigError(_messages.reading_raised(exc), path="(a tested value)") from None
    return True


def _not_an_int(described: str, spelling: str) -> str:
    return _messages.mod_needs_int(described)


def _unordered(described: str, spelling: str) -> str:
    return _messages.cannot_order(described, spelling)


def _not_ints(described: str, spelling: str) -> str:
    return _messages.arith_needs_int(described, spelling)


_equal = _ordered(operator.eq)

#: Every operator, in the order the editor's description names them.
TABLE: Tuple[Operator, ...] = (
    Operator("and", "logic", AND_LEVEL, example="and"),
    Operator("or", "logic", OR_LEVEL, example="or"),
    Operator("not", "logic", NOT_LEVEL, example="not"),
    Operator("==", "comparison", TEST_LEVEL, _equal, "{a} == {b}", example="=="),
    Operator("!=", "comparison", TEST_LEVEL, _negated(_equal), "{a} != {b}", negates="=="),
    *(Operator(spelling, "comparison", TEST_LEVEL, _ordered(function), "{a} " + spelling + " {b}",
               operands=ORDERED, refused=_unordered, none_is_false=True)
      for spelling, function in (("<", operator.lt), ("<=", operator.le), (">", operator.gt), (">=", operator.ge))),
    Operator("in", "membership", TEST_LEVEL, _contains, "{a} in {b}", example="in"),
    Operator("not in", "membership", TEST_LEVEL, _negated(_contains), "{a} not in {b}", negates="in"),
    Operator("is None", "test", TEST_LEVEL, python="{a} is None", example="is None"),
    Operator("is not None", "test", TEST_LEVEL, python="{a} is not None", negates="is None"),
    Operator("%", "arithmetic", ARITH_LEVEL, remainder, "{a} % {b}", operands=frozenset({"int"}),
             refused=_not_an_int, example="path % 16"),
    *(Operator(spelling, "arithmetic", level, function, "{a} " + spelling + " {b}",
               operands=frozenset({"int"}), refused=_not_ints,
               example="a * b // c" if spelling == "*" else "")
      for spelling, level, function in (("+", SUM_LEVEL, _integer(operator.add)),
                                        ("-", SUM_LEVEL, _integer(operator.sub)), ("*", ARITH_LEVEL, _product),
                                        ("//", ARITH_LEVEL, _integer(operator.floordiv)))),
)

BY_SPELLING: Dict[str, Operator] = {op.spelling: op for op in TABLE}
AND, OR, NOT = BY_SPELLING["and"], BY_SPELLING["or"], BY_SPELLING["not"]
IS_NONE, IS_NOT_NONE = BY_SPELLING["is None"], BY_SPELLING["is not None"]
MOD = BY_SPELLING["%"]
#: The arithmetic operators by spelling, each a function of two values (``%`` by any int,
#: not only ``path % INT``'s positive literal).
ARITHMETIC: Dict[str, Callable[[object, object], object]] = {
    **{op.spelling: op.evaluate for op in TABLE if op.kind == "arithmetic" and op.evaluate is not None},
    "%": _integer(operator.mod),
}
#: The arithmetic operators that divide (a literal 0 on their right is a load error).
DIVIDING = frozenset({"//", "%"})
EQUALS = BY_SPELLING["=="]

#: The operators of ``left op right`` (the parser's COMPARISON), in the table's order.
COMPARISONS: Tuple[Operator, ...] = tuple(op for op in TABLE if op.kind in ("comparison", "membership"))
#: The words of the language (they are not paths), the literals' included.
KEYWORDS = frozenset({word for op in TABLE for word in op.words if word.isidentifier()} | {"None", "True", "False"})


def symbols(*kinds: str, level: Optional[int] = None) -> Tuple[str, ...]:
    """The spellings of the operators of *kinds* made of symbols, longest first (the tokenizer
    tries them in this order: ``<=`` before ``<``)."""
    found = [op.spelling for op in TABLE if op.kind in kinds and not op.spelling[0].isalpha()
             and (level is None or op.strength == level)]
    return tuple(sorted(found, key=len, reverse=True))


def comparisons_for(type_name: str) -> Tuple[str, ...]:
    """The comparisons (not memberships) a field of *type_name* may be compared with a literal by."""
    return tuple(op.spelling for op in COMPARISONS
                 if op.kind == "comparison" and (op.operands is None or type_name in op.operands))


def production() -> str:
    """The parser's COMPARISON production, from the table."""
    return " | ".join(" ".join(f"'{word}'" for word in op.words) for op in COMPARISONS)


def description() -> str:
    """The editor's one-line description of the language."""
    examples = ", ".join(op.example for op in TABLE if op.example)
    return (f"A predicate over the config (Python-like: {examples}). "
            "Its syntax and types are checked by `matrix check`, not by this schema.")
