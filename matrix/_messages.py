"""Every sentence ``matrix`` says to a person, in one place.

Wording rules (STYLE.md): a capital first letter, no final period, offending values in
``repr``, allowed values sorted, "did you mean 'x'" for near misses.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence


def quoted(values: Iterable[object]) -> str:
    """``'a', 'b', 'c'``: the allowed values, sorted, as the user would write them."""
    return ", ".join(repr(v) for v in sorted(values, key=lambda v: (str(type(v)), v)))


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``", did you mean 'x'"`` when a candidate is close to *word*, else ``""``."""
    import difflib

    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f", did you mean {close[0]!r}" if close else ""


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def place(path: Sequence[object]) -> str:
    """``$.features.fp8.support.v2[1]``; keys that are not plain names are quoted."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.match(part):
            out += f".{part}"
        else:
            import json

            out += "[" + json.dumps(part, ensure_ascii=False) + "]"
    return out


def listing(names: Sequence[str]) -> str:
    return ", ".join(names)


# --- predicates: syntax -------------------------------------------------------------------

def expected(what: str, found: str) -> str:
    return f"Expected {what}, found {found}"


def unclosed(opener: str, closer: str) -> str:
    return f"Expected {closer!r} to close the {opener!r} opened here"


def too_long(length: int, limit: int) -> str:
    return f"Predicate is {length} characters long, more than the limit of {limit}"


def too_deep(limit: int) -> str:
    return f"Predicate nests deeper than the limit of {limit} levels"


def list_too_long(limit: int) -> str:
    return f"List literal has more than the limit of {limit} items"


def chained(op: str) -> str:
    return f"Chained comparisons are not supported: join the two tests with 'and' before {op!r}"


MISSPELT_OPERATORS = {
    "=": "'==' (a single '=' assigns; predicates compare)",
    "&&": "'and'",
    "||": "'or'",
    "!": "'not' or '!='",
    "===": "'=='",
    "<>": "'!='",
}


def misspelt_operator(text: str) -> str:
    return f"Unknown operator {text!r}: use {MISSPELT_OPERATORS[text]}"


def bad_escape(sequence: str) -> str:
    return f"Unknown escape {sequence!r} in string (known: \\\\ \\' \\\" \\n \\r \\t \\xHH \\uHHHH \\UHHHHHHHH)"


def float_out_of_range(text: str) -> str:
    return f"Number {text!r} is out of range for a float"


def underscore_segment(segment: str) -> str:
    return f"Path segment {segment!r} starts with an underscore; private attributes cannot be read"


# --- predicates: types ---------------------------------------------------------------------

def unknown_path(path: str, known: Iterable[str]) -> str:
    return f"Unknown config path {path!r}{did_you_mean(path, known)}"


def not_a_choice(value: object, path: str, choices: Iterable[object]) -> str:
    choices = list(choices)
    hint = did_you_mean(value, [str(c) for c in choices]) if isinstance(value, str) else ""
    return f"{value!r} is not a choice of {path!r} (expected one of {quoted(choices)}){hint}"


def type_mismatch(left: str, op: str, right: str) -> str:
    return f"Cannot compare {left} with {right} using {op!r}"


def cannot_order(what: str, op: str) -> str:
    return f"Cannot order {what} with {op!r}: only int, float and version values are ordered"


def out_of_bounds(value: object, path: str, bound: str, limit: object) -> str:
    return f"{value!r} is outside the range of {path!r} ({bound} {limit!r}), so this test is constant"


def not_nullable(path: str) -> str:
    return f"{path!r} is never None: declare it nullable to test it with 'is None'"


def is_none_operand(found: str) -> str:
    return f"Only a config path can be tested with 'is None', not {found}"


def in_needs_list(found: str) -> str:
    return f"The right side of 'in' must be a list literal or a list field, not {found}"


def bare_operand(what: str) -> str:
    return (
        f"{what} cannot stand alone as a condition: compare it "
        "(only bool fields, nullable sections and lists may stand alone)"
    )


def invalid_version_literal(value: str, path: str) -> str:
    return f"{value!r} is not a valid PEP 440 version, so it cannot be compared with {path!r}"


def path_is_section(path: str) -> str:
    return f"{path!r} is a section; compare one of its fields, or test it with 'is None'"


# --- configs -------------------------------------------------------------------------------

def config_error(reason: str, path: str, feature: Optional[str]) -> str:
    where = f" (read by feature {feature!r})" if feature else ""
    return f"Config {path!r}{where}: {reason}"


def missing_value() -> str:
    return "Missing, and the schema gives no default"


def wrong_type(expected: str, value: object) -> str:
    return f"Expected {expected}, got {type(value).__name__} {_short_repr(value)}"


def not_in_choices(value: object, choices: Iterable[object]) -> str:
    choices = list(choices)
    hint = did_you_mean(value, [str(c) for c in choices]) if isinstance(value, str) else ""
    return f"{value!r} is not one of {quoted(choices)}{hint}"


def below_min(value: object, minimum: object) -> str:
    return f"{value!r} is less than the minimum {minimum!r}"


def above_max(value: object, maximum: object) -> str:
    return f"{value!r} is more than the maximum {maximum!r}"


def not_nullable_value() -> str:
    return "Is None, but the schema does not declare it nullable"


def comparing_raised(a: object, b: object, exc: BaseException) -> str:
    return (f"Comparing {type(a).__name__} {_short_repr(a)} with {type(b).__name__} {_short_repr(b)} "
            f"raised {type(exc).__name__}: {exc}")


def reading_raised(exc: BaseException) -> str:
    return f"Reading it raised {type(exc).__name__}: {exc}"


def _short_repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not hide the real problem
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


# --- resolution -----------------------------------------------------------------------------

def does_not_support(runner: str, features: Sequence[str]) -> str:
    return f"{runner} does not support: {listing(features)}"


def fallback(skipped: Sequence[str], chosen: str) -> str:
    return f"{'; '.join(skipped)}; using {chosen} instead"


def no_runner(blockers: Sequence[str]) -> str:
    return f"No runner can serve this config: {'; '.join(blockers)}"


def deprecated(name: str, since: str, remove_in: Optional[str], replacement: Optional[str],
               message: Optional[str]) -> str:
    text = f"{name} is deprecated since {since}"
    if remove_in:
        text += f" and will be removed in {remove_in}"
    if replacement:
        text += f"; use {replacement} instead"
    if message:
        text += f" ({message})"
    return text


def removed(name: str, remove_in: str, replacement: Optional[str], message: Optional[str]) -> str:
    text = f"{name} was removed in {remove_in}"
    if replacement:
        text += f"; use {replacement} instead"
    if message:
        text += f" ({message})"
    return text


def opt_in(name: str, runner: str, note: Optional[str]) -> str:
    text = f"{name} is opt-in on {runner}: used because {runner} was asked for explicitly"
    return f"{text} ({note})" if note else text


def partial(name: str, runner: str, note: Optional[str]) -> str:
    return f"{name} is only partly supported on {runner}: {note}"


def unknown_runner(runner: object, known: Sequence[str]) -> str:
    hint = did_you_mean(runner, known) if isinstance(runner, str) else ""
    return f"Unknown runner {runner!r} (expected one of {quoted(known)}){hint}"


def invalid_version(value: object) -> str:
    return f"Invalid version {value!r}: expected a PEP 440 version such as '0.31.0'"
