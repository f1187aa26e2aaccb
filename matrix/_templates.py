"""Templates of sentences a matrix says in its host's words (``[messages]`` of features.toml).

A template is text with placeholders: ``{name}`` is a named part of the sentence (the runner,
the features, …), ``{dotted.path}`` a config value, and ``{{`` and ``}}`` are a brace. A
placeholder may end with Python's conversion and format spec, as `str.format` reads them
(``{path!r}``, ``{path:.3f}``, ``{path!s:>8}``; issue 30, F7). Which names and paths a template
may use is said by whoever reads it (`parse`); an unknown one, a brace left open, a conversion
other than ``!r``, ``!s`` and ``!a``, or a format spec the field's type refuses, is a problem
with "did you mean" for a near miss. ``[messages]`` allows named parts only; an adjustment's
``message``, a requirement's ``reason`` and a former id's ``message`` config paths only
(`paths_only`), each filled with the value of the config it speaks of (`Part.said`).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Callable, Iterable, List, Mapping, Optional, Tuple, Union

import attrs

from . import _messages
from ._given import PREFIX as GIVEN

if TYPE_CHECKING:  # pragma: no cover
    from .schema import Schema

_TOKEN = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|\{|\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
#: What a placeholder holds: a name, then perhaps ``!conversion``, then perhaps ``:spec``.
_FIELD = re.compile(r"(?P<name>[^!:]*)(?:!(?P<conversion>[^:]*))?(?::(?P<spec>.*))?\Z", re.S)
#: Python's conversions (`str.format`), by their letter.
CONVERSIONS: Mapping[str, Callable[[object], str]] = {"a": ascii, "r": repr, "s": str}
#: A value of each field type (and of a named part, text): a format spec is checked on it at
#: load, so that a spec the type refuses (``{flag:.3f}`` on a str) is a load error.
_SAMPLES: Mapping[str, Callable[[], object]] = {
    "int": lambda: 0, "float": lambda: 0.0, "bool": lambda: False, "str": lambda: "",
    "list[str]": list, "list[int]": list, "section": object, "version": lambda: _version(),
}


def _version() -> object:
    from packaging.version import Version

    return Version("0")


@attrs.frozen
class Part:
    """A placeholder: a named part of the sentence, or (``path``) a config value, with its
    conversion (``r``, ``s``, ``a``, or None) and format spec (``""``: none)."""

    name: str
    path: bool = False
    conversion: Optional[str] = None
    spec: str = ""

    def said(self, value: object) -> str:
        """*value* as this placeholder says it: converted and formatted as `str.format` would;
        without either, text as it is and any other value as its ``repr``. A None is said
        ``None`` whatever the spec (the spec is for a value of the field's type), and so is a
        value the spec cannot format (an int past the largest float under ``:.3f``) said as
        without the spec: a message never fails a resolution. A list field's value is said as
        a list, whichever sequence the config held it in (the readers differ)."""
        if isinstance(value, tuple):
            value = list(value)
        if self.conversion is not None:
            value = CONVERSIONS[self.conversion](value)
        if self.spec and value is not None:
            try:
                return format(value, self.spec)
            except (ValueError, TypeError, OverflowError):
                pass
        return value if isinstance(value, str) else repr(value)


@attrs.frozen
class Template:
    """A parsed template: literal text and `Part` s, in order, and the text it was read from."""

    text: str
    pieces: Tuple[Union[str, Part], ...]

    @property
    def names(self) -> Tuple[str, ...]:
        """The named parts it uses, in order."""
        return tuple(p.name for p in self.pieces if isinstance(p, Part) and not p.path)

    @property
    def paths(self) -> Tuple[str, ...]:
        """The config paths it names, in order."""
        return tuple(p.name for p in self.pieces if isinstance(p, Part) and p.path)

    def fill(self, parts: Mapping[str, str], values: Optional[Mapping[str, object]] = None) -> str:
        """The sentence: each part by its name in *parts*, each path by its value in *values*
        (text as it is, any other value as its ``repr``)."""
        out = []
        for piece in self.pieces:
            if isinstance(piece, str):
                out.append(piece)
            elif piece.path:
                out.append(piece.said((values or {})[piece.name]))
            elif piece.conversion is None and not piece.spec:
                out.append(parts[piece.name])
            else:
                out.append(piece.said(parts[piece.name]))
        return "".join(out)


def parse(text: str, names: Iterable[str], paths: Iterable[str] = (),
          broken: Iterable[str] = (),
          types: Optional[Mapping[str, str]] = None) -> Tuple[Optional[Template], Tuple[str, ...]]:
    """*text* as a `Template` whose parts are among *names* and whose paths among *paths*, and
    ``()``; or None and the problems found, each said once. A path at or below one of *broken*
    (a ``[config]`` entry that failed to load, said there) fails the template unsaid, and "did
    you mean" may offer them. A format spec is checked on a value of the path's type in
    *types* (path → field type; a named part is text)."""
    names, paths, broken = tuple(names), tuple(paths), tuple(broken)
    pieces: List[Union[str, Part]] = []
    problems: List[str] = []
    failed = False
    at = 0
    for match in _TOKEN.finditer(text):
        if match.start() > at:
            pieces.append(text[at:match.start()])
        at = match.end()
        token = match.group()
        if token in ("{{", "}}"):
            pieces.append(token[0])
            continue
        inside = match.group(1)
        if inside is None:
            problems.append(_messages.template_brace(text, token))
            continue
        field = _FIELD.match(inside)
        assert field is not None  # every text matches: the name stops at the first '!' or ':'
        name, conversion, spec = field.group("name"), field.group("conversion"), field.group("spec") or ""
        # given.PATH (issue 30, F8) says PATH's value as the config was given, typed as PATH.
        read = name[len(GIVEN):] if name.startswith(GIVEN) and name[len(GIVEN):] in paths else name
        if (conversion is not None or spec) and (name in names or read in paths):
            problem = _formatted(inside, conversion, spec, "str" if name in names else (types or {}).get(read))
            if problem is not None:
                problems.append(problem)
                continue
        if name in names:
            pieces.append(Part(name, False, conversion, spec))
        elif read in paths:
            pieces.append(Part(name, True, conversion, spec))
        elif any(name == b or name.startswith(b + ".") for b in broken):
            failed = True
        else:
            problems.append(_messages.template_unknown(name, names, (*paths, *broken), bool(_NAME.match(name))))
    if at < len(text):
        pieces.append(text[at:])
    if problems or failed:
        return None, tuple(dict.fromkeys(problems))
    merged: List[Union[str, Part]] = []
    for piece in pieces:  # "{{" gives a piece of its own: join literal text back together
        if merged and isinstance(piece, str) and isinstance(merged[-1], str):
            merged[-1] += piece
        else:
            merged.append(piece)
    return Template(text, tuple(merged)), ()


def _formatted(inside: str, conversion: Optional[str], spec: str, kind: Optional[str]) -> Optional[str]:
    """The problem with a placeholder's conversion or format spec (*kind*: the type of the
    value it says; None: not known, the spec is not checked), or None."""
    if conversion is not None and conversion not in CONVERSIONS:
        return _messages.template_conversion(inside, conversion, sorted(CONVERSIONS))
    if not spec or (kind is None and conversion is None):
        return None
    sample = CONVERSIONS[conversion](_SAMPLES[kind or "str"]()) if conversion is not None else _SAMPLES[kind or "str"]()
    try:
        format(sample, spec)
    except (ValueError, TypeError) as error:
        return _messages.template_spec(inside, spec, "text" if conversion is not None else kind or "text", str(error))
    return None


#: The sentences a matrix may say in its own words (``[messages]``), each with the named parts
#: its template may use. Each is about a runner, whose own table (``[messages.runners.ID]``)
#: overrides the matrix's: the runner blocked, the one chosen, the one the choice ends on, the
#: one an outright preference wants.
SENTENCES: Mapping[str, Tuple[str, ...]] = {
    "does_not_support": ("runner", "features"),
    "fallback": ("runner", "features", "skipped", "chosen"),
    "no_runner": ("runner", "features", "refusal", "blocked"),
    "preferred_blocked": ("feature", "refusal", "runner"),
    "order_refused": ("order", "refusal", "runner"),
}


def lookup(messages: Mapping[str, str], sentence: str, runner: Optional[str]) -> Optional[Template]:
    """The template of *sentence* about *runner* in a matrix's `messages`: the runner's own
    (``runners.ID.sentence``), else the matrix's, else None (the engine's own words)."""
    text = messages.get(f"runners.{runner}.{sentence}") if runner is not None else None
    text = text if text is not None else messages.get(sentence)
    return None if text is None else _parsed(text, sentence)


@functools.lru_cache(maxsize=256)
def _parsed(text: str, sentence: str) -> Template:
    template, problems = parse(text, SENTENCES[sentence])
    assert template is not None, problems  # checked when the matrix was loaded
    return template


@functools.lru_cache(maxsize=256)
def checked(text: str, names: Tuple[str, ...] = ()) -> Template:
    """A template the loader has checked already (its named parts *names*, its paths against
    the schema), parsed again at resolve time: every other part it holds is a config path. An
    adjustment's message has no named parts (`paths_only`)."""
    inside = (_FIELD.match(m.group(1)) for m in _TOKEN.finditer(text) if m.group(1))
    paths = tuple(n for n in (f.group("name") for f in inside if f is not None) if n not in names)
    template, problems = parse(text, names, paths)
    assert template is not None, problems
    return template


def paths_only(text: str) -> Template:
    """An adjustment's message, a requirement's reason or a former id's message as a template of
    config paths (`checked`, no named parts)."""
    return checked(text)


def has_paths(text: str) -> bool:
    """Whether *text* (a template checked at load) names a config path: what it says then
    depends on the config."""
    return "{" in text and bool(paths_only(text).paths)


def filled(text: str, read: Callable[[str], object]) -> str:
    """*text*, a template of config paths checked at load, filled with the values *read* gives
    by path (``{{`` and ``}}`` said as braces); text without a brace as it is."""
    if "{" not in text and "}" not in text:
        return text
    template = paths_only(text)
    return template.fill({}, {p: read(p) for p in template.paths})


def described(text: str) -> str:
    """*text*, a template of config paths checked at load, for a reader with no config at hand
    (a table of the docs, a change `matrix diff` says of many configs): each placeholder said as
    the slot of its path (`_messages.template_value`: ``‹exec.parallelism›``), ``{{`` and ``}}``
    as braces; text without a brace as it is."""
    if "{" not in text and "}" not in text:
        return text
    return "".join(p if isinstance(p, str) else _messages.template_value(p.name) for p in paths_only(text).pieces)


def types_of(schema: Schema) -> Mapping[str, str]:
    """Every path a template may name in *schema*, with its type: the fields and the derived
    fields (ints), and the runners that fill roles (strs)."""
    return {**{p: f.type for p, f in schema.fields.items()}, **{p: "int" for p in schema.derivations},
            **{p: "str" for p in schema.roles}}


# --- the sentences of a feature's ``prefers`` (issue 25: vLLM's ROCm notices name the
# architectures found) --------------------------------------------------------------------------

#: The sentences of a feature's ``prefers``, each with the named parts its template may use:
#: ``message`` when it puts its runner first, ``skipped`` when that runner is not free and the
#: preference is passed over (``features``: what keeps the runner, listed; ``refusal``: the
#: runner's refusal as a sentence). Both may name the config paths the feature's condition reads.
PREFERENCE: Mapping[str, Tuple[str, ...]] = {
    "message": ("feature", "runner"),
    "skipped": ("feature", "runner", "features", "refusal"),
}


def preference(text: str, sentence: str) -> Template:
    """A ``prefers`` sentence's template, checked when the matrix was loaded (paths are not
    checked again here: the loader held them to the feature's condition)."""
    return checked(text, PREFERENCE[sentence])


def looked_for(node: object, path: str) -> Tuple[object, ...]:
    """The literals a condition (a predicate's node) looks for in the list at *path*
    (``'x' in path``, ``'x' not in path``), in the order written, each once."""
    from ._nodes import And, Compare, Literal, Not, Or, Path

    found: List[object] = []

    def walk(n: object) -> None:
        if isinstance(n, (And, Or)):
            for operand in n.operands:
                walk(operand)
        elif isinstance(n, Not):
            walk(n.operand)
        elif isinstance(n, Compare) and isinstance(n.left, Literal) and isinstance(n.right, Path) \
                and n.right.name == path and n.op in ("in", "not in"):
            found.append(n.left.value)

    walk(node)
    return tuple(dict.fromkeys(found))


def said(value: object, wanted: Tuple[object, ...] = ()) -> str:
    """A config value as a sentence says it: a list as its entries joined by ", " (only those
    among *wanted*, when given: the entries a condition found), anything else as text."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value if not wanted or v in wanted)
    return str(value)
