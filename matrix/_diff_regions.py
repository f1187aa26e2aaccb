"""The text of a region of ``matrix diff``: read back as a predicate (`region_predicate`), made
shorter (`_simplified`), said briefly (`brief`), and the small texts a region is built of."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import attrs

from . import _diff, _messages
from . import predicates as _predicates
from .errors import ConfigError, PredicateError
from .schema import Feature


def _simplified(region: str) -> str:
    """The text of a region, shorter where `matrix._simplify` finds it can be (as it is where not)."""
    from ._simplify import FALSE, TRUE, simplified

    if region in ("every config", "no config") or " set to any value" in region:
        return region
    try:
        node = region_predicate(region).node
    except PredicateError:
        return region
    shorter = simplified(node)
    if shorter == node or shorter == FALSE:
        return region
    if shorter == TRUE:
        return "every config"
    unset = {_diff.unset_path(m.group(1)): m.group(1) for m in _UNSET_TEXT.finditer(region)}
    return _said(shorter, unset)


def _said(node: Any, unset: Mapping[str, str]) -> str:
    """*node*'s text, each path that says a field is left out said ``PATH is unset``."""
    from ._nodes import And, Not, Or, Path

    if isinstance(node, (And, Or)):
        parts = [_said(o, unset) for o in node.operands]
        joiner = " and " if isinstance(node, And) else " or "
        return joiner.join(f"({t})" if isinstance(o, (Or, And)) and not isinstance(o, type(node)) else t
                           for o, t in zip(node.operands, parts))
    if isinstance(node, Not):
        inner = _said(node.operand, unset)
        return f"not ({inner})" if " " in inner else f"not {inner}"
    if isinstance(node, Path) and node.name in unset:
        return f"{unset[node.name]} is unset"
    return str(node)


def _unset_region(path: str, schema: Any) -> str:
    """``PATH is unset``, and each nullable section above it not None: a config without such a
    section reads None there, not the default (review of issue 28, D3)."""
    parts = path.split(".")
    above = [".".join(parts[:end]) for end in range(1, len(parts))]
    return " and ".join([f"{path} is unset", *(f"{s} is not None" for s in above
                                                 if (schema.fields.get(s) is None or schema.fields[s].nullable))])


def _config_region(path: str, a: Optional[Any], b: Optional[Any], values: List[object], rejected: bool) -> str:
    """The values of *path* one side accepts and the other refuses, as text: a field on one side
    only (any value), the bounds that moved (numbers: exactly), else the values found."""
    wide, narrow = (a, b) if rejected else (b, a)
    if narrow is None:  # the side that refuses them does not declare the field
        return f"{path} set to any value"
    # A side without the field at its version (a field's since or until) reads no value of it:
    # it refuses none, so the region is what the other refuses (not "any value": 0 of min 0).
    free = wide if wide is not None else attrs.evolve(narrow, choices=None, min=None, max=None)
    if free.type == narrow.type and narrow.type in ("int", "float") and free.choices is None and narrow.choices is None:
        parts = []
        if narrow.max is not None and (free.max is None or free.max > narrow.max):
            parts.append(f"{path} > {narrow.max}" + (f" and {path} <= {free.max}" if free.max is not None else ""))
        if narrow.min is not None and (free.min is None or free.min < narrow.min):
            parts.append(f"{path} < {narrow.min}" + (f" and {path} >= {free.min}" if free.min is not None else ""))
        parts += [f"{path} is None" for v in values if v is None]
        if parts:
            return " or ".join(f"({p})" if " and " in p and len(parts) > 1 else p for p in parts)
    if free.type == narrow.type == "str" and narrow.choices is not None and free.choices is None:
        # Choices where any string was accepted: every string but those (and None, if it flips).
        parts = [f"{path} not in {list(narrow.choices)!r}", *(f"{path} is None" for v in values if v is None)]
        return " or ".join(parts)
    texts = [f"{path} is None" if v is None else f"{path} == {v!r}" for v in values]
    # Whole: `brief` shortens it where a report says it (it said "and N more conditions (the
    # whole region: --format json)" in the JSON too, which `region_predicate` cannot read).
    return " or ".join(texts)


def _negated(text: str) -> str:
    """``not`` a condition's text (``not b`` said ``b``)."""
    if text.startswith("not ") and " " not in text[4:]:
        return text[4:]
    return f"not ({text})" if " " in text else f"not {text}"


def region_predicate(region: str) -> Any:
    """The `Predicate` a region's text says (``Difference.region``), however long: a region is the
    diff's own text, which may be longer than a condition of a matrix may be. ``PATH is unset``
    holds where a config leaves PATH out (a field whose default differs between the sides), and
    ``PATH set to any value`` where it does not (a field one side declares: any value, None
    included); ``every config`` and ``no config`` (a change of no config's answer: a name, a
    note) are True and False. Every region the diff says is read (a user trial: ``no config``
    and ``label set to any value`` raised `PredicateError`)."""
    from .predicates import _unchecked

    whole = _WHOLE.get(region)
    if whole is not None:
        return _unchecked(whole, text=region, kind=_Region)
    depths = _depths(region)
    texts: List[str] = []
    start = 0
    for found in _UNSET_TEXT.finditer(region):
        at = found.start()
        if depths[at] is None or at and (region[at - 1].isalnum() or region[at - 1] in "_."):
            continue  # inside quotes, or the tail of another word
        unset = _diff.unset_path(found.group(1))
        texts += [region[start:at], unset if found.group(2) == "is unset" else f"not {unset}"]
        start = found.end()
    texts.append(region[start:])
    return _unchecked("".join(texts), text=region, kind=_Region)


_UNSET_TEXT = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*) (is unset|set to any value)\b")

#: The regions said in words, as a predicate says them.
_WHOLE = {"every config": "True", "no config": "False"}


class _Region(_predicates.Predicate):
    """A region's predicate: ``PATH is unset`` read on the config as given (`region_predicate`)."""

    __slots__ = ()

    def evaluate(self, config: object, *, schema: Any = None) -> bool:
        names = [p for p in self.paths if p.startswith(_diff.UNSET)]
        if names and isinstance(config, dict):
            fields = list(schema.fields) if schema is not None else []
            extra = {}
            for name in names:
                path = next((p for p in fields if _diff.unset_path(p) == name), name[len(_diff.UNSET):].replace("__", "."))
                extra[name] = _diff.left_out(config, path, schema)
            config = {**config, **extra}
        return super().evaluate(config, schema=schema)


def _holding(groups: Sequence[Sequence[Any]], holds: Callable[[Any, Dict[str, Any]], bool]
             ) -> Callable[[Dict[str, Any]], bool]:
    """Whether a config meets each of *groups* (one of its conditions holds), as given (*holds*:
    `matrix._diff.Search.holds`)."""
    frozen = [list(group) for group in groups]
    return lambda config: all(any(holds(n, config) for n in group) for group in frozen)


def _union(texts: List[str]) -> str:
    """Regions said by *texts* as one (one that holds for every config: every config)."""
    if "every config" in texts:
        return "every config"
    return " or ".join(f"({t})" if " and " in t and len(texts) > 1 else t for t in texts)


def _inside(region: str, schema: Any) -> Callable[[Dict[str, Any]], bool]:
    """Whether a config lies in the region said by the text *region* (a config that leaves out a
    value the region reads and that has no default does not)."""
    if region == "every config":
        return lambda config: True
    predicate = region_predicate(region)

    def holds(config: Dict[str, Any]) -> bool:
        try:
            return bool(predicate.evaluate(config, schema=schema))
        except ConfigError:
            return False

    return holds


def _grouped(text: str, alone: bool = False) -> str:
    """A region's text as one operand of ``or`` (*alone*: as it stands)."""
    return text if alone or " and " not in text and " or " not in text else f"({text})"


def _region_text(gates: Sequence[Feature], excluded: Sequence[Feature] = ()) -> str:
    """The configs of a region as the matrix writes them: the conditions that hold there, then
    ``not (…)`` of those a deciding rule needs inactive."""
    parts = [f"({g.when})" if " or " in str(g.when) else str(g.when) for g in gates]
    parts += [f"not ({g.when})" if " " in str(g.when) else f"not {g.when}" for g in excluded]
    return " and ".join(parts) or "every config"


#: The most characters of a region said in a report's text (the rest counted: `brief`).
REGION_WIDTH = 320
#: The most options of one ``or`` said in a region's brief text.
REGION_OPTIONS = 4


def _depths(text: str) -> List[Optional[int]]:
    """For each character of *text*, how many parentheses and brackets are open before it, or
    None inside quotes (a backslash escapes the next character there)."""
    out: List[Optional[int]] = []
    depth, quote, escaped = 0, "", False
    for ch in text:
        if quote:
            out.append(None)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        out.append(depth)
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
    return out


def _top_level(text: str, word: str) -> List[str]:
    """*text* split at each `` word `` outside parentheses, brackets and quotes."""
    depths, sep = _depths(text), f" {word} "
    parts, start, i = [], 0, 0
    while i < len(text):
        if depths[i] == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            i = start = i + len(sep)
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _wrapped(text: str) -> bool:
    """Whether *text* is one parenthesised whole: ``(a or b)``, not ``(a) and (b)``."""
    return text.startswith("(") and text.endswith(")") and _closes(text) == len(text) - 1


def _closes(text: str) -> int:
    """The index of the parenthesis that closes the one *text* opens with (outside quotes)."""
    return next((i for i, depth in enumerate(_depths(text)) if depth == 1 and text[i] in ")]"), -1)


def _brief_or(part: str) -> str:
    """One conjunct of a region, an ``or`` of more than `REGION_OPTIONS` options said by its first
    ones and how many more."""
    inner, wrapped = part, False
    if _wrapped(part) and len(_top_level(part[1:-1], "or")) > 1:
        inner, wrapped = part[1:-1], True
    options = _top_level(inner, "or")
    if len(options) <= REGION_OPTIONS:
        return part
    said = " or ".join(options[:REGION_OPTIONS]) + f" or {len(options) - REGION_OPTIONS} more"
    return f"({said})" if wrapped else said


def brief(region: str, width: int = REGION_WIDTH) -> str:
    """A region's text as a report says it: whole where it is short, else its first conditions
    (each ``or`` of many options by its first `REGION_OPTIONS`) up to about *width* characters
    and ``and N more conditions`` (the whole text stays in `Difference.region` and
    ``--format json``)."""
    if len(region) <= width:
        return region
    options = _top_level(region, "or")
    if len(options) > 1:  # regions merged: each option said briefly
        said = [brief(o[1:-1] if _wrapped(o) else o, max(width // 3, 80))
                for o in options[:REGION_OPTIONS]]
        more = len(options) - REGION_OPTIONS
        return " or ".join(f"({o})" if " and " in o or " or " in o else o for o in said) + (f" or {more} more" if more > 0 else "")
    parts = [_brief_or(p) for p in _top_level(region, "and")]
    kept: List[str] = []
    for part in parts:
        if kept and len(" and ".join([*kept, part])) > width:
            break
        kept.append(part)
    rest = len(parts) - len(kept)
    text = " and ".join(kept)
    return text + _messages.diff_region_more(rest) if rest else text
