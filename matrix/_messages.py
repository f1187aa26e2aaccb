"""Every sentence ``matrix`` says to a person, in one place.

Wording rules: a capital first letter, no final period, offending values in
``repr``, allowed values sorted, "did you mean 'x'" for near misses.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Tuple

from packaging.version import Version

if TYPE_CHECKING:  # pragma: no cover
    import enum

    from ._templates import Template


def quoted(values: Iterable[object]) -> str:
    """``'a', 'b', 'c'``: the allowed values, sorted, as the user would write them."""
    return ", ".join(repr(v) for v in sorted(values, key=lambda v: (str(type(v)), v)))


def needs_hypothesis(module: str) -> str:
    """What `matrix.strategies` and `matrix.testing` say where hypothesis is not installed."""
    return (f"{module} needs hypothesis, which `pip install support-matrix` leaves out: "
            "pip install 'support-matrix[testing]'")


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``", did you mean 'x'"`` when a candidate is close to *word* (`near_miss`), else ``""``."""
    close = near_miss(word, candidates)
    return f", did you mean {close!r}" if close is not None else ""


# Compiled when first used (re keeps it): `import matrix` compiles no pattern (issue 29).
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_-]*\Z"


def place(path: Sequence[object]) -> str:
    """``$.features.fp8.support.v2[1]``; keys that are not plain names are quoted."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and re.match(_IDENTIFIER, part):
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


def mod_needs_int(described: str) -> str:
    return f"'%' takes an int field, not {described}"


def empty_requirement(kind: str) -> str:
    return f"Requirement {kind!r} is an empty array: give a condition, or delete the key"


def requirement_without_reason(kind: str) -> str:
    return (f"Requirement {kind!r} needs a reason, the text users read when it fails: give "
            f"{{ condition = \"…\", reason = \"…\" }} here, or reason = \"…\" in [requirements.{kind}]")


def not_everlasting(path: str, window: str) -> str:
    return (f"[config] {path!r} exists {window}, but runner requirements, candidacies and orders apply at "
            "every version: read a field that always exists")


def empty_order() -> str:
    return "An order needs at least one runner: runners = [\"…\"] lists the runners tried first, in order"


def listed_twice(runner: str) -> str:
    return f"Runner {runner!r} is listed twice"


def json_schema_paths() -> str:
    return "matrix schema --json-schema takes no PATH: it describes the whole file"


def json_schema_write_default() -> str:
    return ("--write needs a matrix read from a file (--matrix FILE): the default matrix ships its schemas in the "
            "package")


def json_schema_only(option: str) -> str:
    return f"{option} goes with --json-schema"


def chained(op: str) -> str:
    return f"Chained comparisons are not supported: join the two tests with 'and' before {op!r}"


MISSPELT_OPERATORS = {
    "=": "'==' (a single '=' assigns; predicates compare)",
    "&&": "'and'",
    "||": "'or'",
    "!": "'not' or '!='",
    "===": "'=='",
    "<>": "'!='",
    "/": "'//' (the integer quotient: there is no '/')",
    "&": "'and'",
    "|": "'or'",
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


def version_needs_quotes(path: str, op: str, kind: str, value: object, written: str) -> str:
    lost = f" (as a number, {written} is the {kind} {value!r})" if written != repr(value) else ""
    return (f"Cannot compare version {path!r} with {kind} {value!r} using {op!r}: "
            f"write the version in quotes, '{written}'{lost}")


def cannot_order(what: str, op: str) -> str:
    return f"Cannot order {what} with {op!r}: only int, float and version values are ordered"


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


# --- configs -------------------------------------------------------------------------------

def config_error(reason: str, path: str, feature: Optional[str]) -> str:
    where = f" (read by {read_by(feature)})" if feature else ""
    return f"Config {path!r}{where}: {reason}"


def former_id_named(alias: str) -> str:
    """A former runner id, as the changes by release name it (in the column of the features)."""
    return f"runner id {alias!r}"


def former_id_change(kind: str, runner: str, without_period: bool) -> str:
    """What a release did to a former runner id (*kind*: ``deprecated`` or ``removed``), as the
    changes by release say it."""
    if kind == "deprecated":
        return f"deprecated: use {runner!r}"
    return f"removed{' without a deprecation period' if without_period else ''}: use {runner!r}"


def runner_named(runner: str) -> str:
    """A runner deprecated, as the changes by release name it (in the column of the features)."""
    return f"runner {runner!r}"


def runner_deprecated_change(replacement: Optional[str]) -> str:
    """What a release did to a runner it deprecated (*replacement*: another runner's name, or words)."""
    return "deprecated" + (f": use {replacement}" if replacement else "")


def schema_stale(path: str, described: str) -> str:
    """``matrix check``'s ``schema-stale``: *path*, a JSON Schema for editors that differs from
    the one ``matrix schema --json-schema --write`` writes now for what it *described* (a user
    trial: "the file changed" said neither which file nor what to do about which)."""
    return (f"{path}, the JSON Schema editors check {described} with, is out of date (it is not what matrix "
            "generates now); regenerate it with matrix schema --json-schema --write")


def read_by(gate: str) -> str:
    """What read a config value, said by the id of its gate (`ConfigError.feature`): a feature's
    id, or a gate derived from another rule (``RUNNER:KIND`` a requirement, ``*:KIND`` a
    matrix-wide one, ``:N`` a clause of a chain, ``RUNNER:candidate``, ``RUNNER:redirect:N``,
    ``order:ID``, ``adjustment:ID``), which is no feature (a user trial: "read by feature
    'nvenc:candidate'"). Ids hold no colon, so the parts are the rule's."""
    head, *rest = gate.split(":")
    if not rest:
        return f"feature {gate!r}"
    if head in ("adjustment", "order") and len(rest) == 1:
        return f"{head} {rest[0]!r}"
    if rest == ["candidate"]:
        return f"the candidacy of runner {head!r}"
    if len(rest) == 2 and rest[0] == "redirect" and rest[1].isdigit():
        return f"redirect {rest[1]} of runner {head!r}"
    clause = f" (clause {rest[1]})" if len(rest) > 1 else ""
    return f"requirement {rest[0]!r}{clause}" + ("" if head == "*" else f" of runner {head!r}")


def config_errors(first: str, others: Sequence[str]) -> str:
    """A config's bad values, one a line: the first read, then the others in ``[config]`` order."""
    return "\n".join([first, *others])


def missing_value() -> str:
    return "Missing, and the schema gives no default"


def wrong_type(expected: str, value: object) -> str:
    return f"Expected {expected}, got {type(value).__name__} {short_repr(value)}"


def not_in_choices(value: object, choices: Iterable[object], member: Optional[enum.Enum] = None) -> str:
    """*member*: the enum member *value* was read from (by its name, or by its value for a
    ``str`` enum), which the message names."""
    choices = list(choices)
    hint = did_you_mean(value, [str(c) for c in choices]) if isinstance(value, str) else ""
    if member is not None:
        how = "value" if isinstance(member, str) else "name"
        return (f"{type(member).__name__}.{member.name} is read by its {how}, {value!r}, "
                f"which is not one of {quoted(choices)}{hint}")
    return f"{value!r} is not one of {quoted(choices)}{hint}"


def not_a_bool(value: object) -> str:
    """A bool field given something else; the spelling to use when it looks like a bool."""
    base = wrong_type("bool", value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
        return f"{base}: a boolean is written without quotes (true / false in JSON and TOML, True / False in Python)"
    if isinstance(value, int) and value in (0, 1):
        return f"{base}: write True or False (1 and 0 are not read as booleans)"
    return base


def below_min(value: object, minimum: object) -> str:
    return f"{value!r} is less than the minimum {minimum!r}"


def above_max(value: object, maximum: object) -> str:
    return f"{value!r} is more than the maximum {maximum!r}"


def missing_attribute(owner: str, name: str, known: Iterable[str]) -> str:
    return f"{owner} object has no attribute {name!r}{did_you_mean(name, known)}"


#: What `dotted_key` says of a key: `--allow-extra` does not let such a key through.
HAS_A_DOT = "has a dot in it"


def dotted_key(key: str) -> str:
    head, _, rest = key.partition(".")
    return (f"Key {key!r} {HAS_A_DOT}: configs are nested, so write "
            f"{{{head!r}: {{{rest!r}: ...}}}} instead")


def unknown_key(key: str, known: Iterable[str]) -> str:
    return f"Not declared in the schema{did_you_mean(key, known)}"


def derived_given(below: Sequence[str]) -> str:
    """A config key that names a derived field (*below* empty) or a part of paths that only derived
    fields have (*below*: those fields)."""
    if not below:
        return "A derived field: computed from other fields by its derive, never given in a config"
    return f"Derived fields only ({', '.join(below)}): computed from other fields by their derive, never given in a config"


def unknown_keys(count: int) -> str:
    return f" (and {count} more undeclared key{'s' if count != 1 else ''})"


def facts_not_a_mapping(facts: object) -> str:
    return f"facts must be a mapping of fact paths to values, not {type(facts).__name__}"


def not_a_fact(key: object, declared: Iterable[str]) -> str:
    declared = list(declared)
    if not declared:
        return "Not a fact: the schema declares none (mark a [config] field fact = true)"
    hint = did_you_mean(key, declared) if isinstance(key, str) else ""
    return f"Not a fact the schema declares{hint} (facts: {quoted(declared)})"


def nan_value() -> str:
    return "Is NaN, which no comparison can order: give a number (inf and -inf are numbers)"


def classes_for(kind: str) -> str:
    return f"Only str and list[str] fields read classes as names (classes = true), not {kind}"


def not_nullable_value() -> str:
    return "Is None, but the schema does not declare it nullable"


def comparing_raised(a: object, b: object, exc: BaseException) -> str:
    return (f"Comparing {type(a).__name__} {short_repr(a)} with {type(b).__name__} {short_repr(b)} "
            f"raised {type(exc).__name__}: {exc}")


def reading_raised(exc: BaseException) -> str:
    return f"Reading it raised {type(exc).__name__}: {exc}"


def candidacy(condition: object, asked_only: bool) -> str:
    """When a runner is a candidate for automatic choice, as explanations say it: one asked for
    only (`matrix.schema.asked_only`) is said so (a user trial read "a candidate when False" as odd)."""
    return "asked for only: candidate = False" if asked_only else f"a candidate when {condition}"


def asked_only_cell() -> str:
    """A runner asked for only, in the capabilities table's candidacy row."""
    return "never: asked for only"


def asked_only_sentence(runner: str) -> str:
    """A runner asked for only, said under the capabilities table."""
    return f"{runner} is asked for only: automatic choice never tries it."


def short_repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not hide the real problem
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


# --- resolution -----------------------------------------------------------------------------

def _in_words(template: Optional[Template], default: str, **parts: str) -> str:
    """A sentence a matrix may say in its own words: its *template* filled with *parts*, else
    the engine's *default* (a format string of the same parts)."""
    return default.format_map(parts) if template is None else template.fill(parts)


def does_not_support(runner: str, features: Sequence[str], reasons: Sequence[str] = (),
                     template: Optional[Template] = None, alone: Sequence[str] = ()) -> str:
    """What keeps *runner* from a config: the features it does not support, and the reasons of
    the requirements the config fails (vLLM's "is not valid for this configuration"). A
    *template* of the matrix's (parts ``runner``, ``features``) says the features. The reasons
    *alone* (of kinds with ``alone = true``: the host's own sentences) come first, as written."""
    if alone:
        rest = does_not_support(runner, features, reasons, template) if features or reasons else None
        return "; ".join([*alone, *([rest] if rest is not None else [])])
    said = []
    if features:
        said.append(_in_words(template, "{runner} does not support: {features}", runner=runner,
                              features=listing(features)))
    if reasons:
        invalid = f"is not valid for this config: {', '.join(reasons)}"
        said.append(invalid if said else f"{runner} {invalid}")
    return "; and ".join(said) if said else f"{runner} "


def no_candidate() -> str:
    return "No runner can serve this config: no runner is a candidate for it"


def fallback(skipped: Sequence[str], chosen: str, template: Optional[Template] = None,
             runner: str = "", features: Sequence[str] = ()) -> str:
    """The runners passed over (*skipped*: what keeps each), and the one *chosen*; a *template*
    of the matrix's may also name the passed-over *runner* (their names) and their *features*."""
    return _in_words(template, "{skipped}; using {chosen} instead", skipped="; ".join(skipped), chosen=chosen,
                     runner=runner, features=listing(features))


def no_runner(blockers: Sequence[str], template: Optional[Template] = None, refusal: str = "",
              runner: str = "", features: Sequence[str] = ()) -> str:
    """What keeps every candidate (*blockers*); a *template* of the matrix's may instead say the
    *refusal* of the runner the choice ends on, its name (*runner*) and its *features*."""
    return _in_words(template, "No runner can serve this config: {blocked}", blocked="; ".join(blockers),
                     refusal=refusal, runner=runner, features=listing(features))


def deprecated(name: str, since: str, remove_in: Optional[str], replacement: Optional[str],
               message: Optional[str], overdue: bool = False) -> str:
    """A ``deprecated`` warning (a feature's), or a ``deprecated-runner`` one (*name* the runner's,
    *replacement* another runner's name or words); *overdue*: *remove_in* has passed and the
    thing still serves (a runner: its removal is its file's)."""
    text = f"{name} is deprecated since {since}"
    if remove_in:
        text += f" and was due for removal in {remove_in}" if overdue else f" and will be removed in {remove_in}"
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


def opt_in(name: str, runner: str, note: Optional[str], forced_by: Optional[str] = None) -> str:
    why = f"{runner} was asked for explicitly" if forced_by is None else f"{forced_by} requires {runner}"
    text = f"{name} is opt-in on {runner}: used because {why}"
    return f"{text} ({note})" if note else text


def partial(name: str, runner: str, note: Optional[str]) -> str:
    return f"{name} is only partly supported on {runner}: {note}"


def unknown_runner(runner: object, known: Sequence[str]) -> str:
    hint = did_you_mean(runner, known) if isinstance(runner, str) else ""
    return f"Unknown runner {runner!r} (expected one of {quoted(known)}){hint}"


def invalid_version(value: object) -> str:
    return f"Invalid version {value!r}: expected a PEP 440 version such as '0.31.0'"


def misspelt_marker(word: str, marker: str) -> str:
    return f"Unknown marker {word!r}, did you mean {marker!r} (the comment is left as it is, with no table)"


def comment_not_directive(text: str) -> str:
    return (f"The comment {text!r} is no support-matrix directive, did you mean '.. support-matrix:: PATH' "
            "(with two colons; the comment is left as it is, with no table)")


# --- loading --------------------------------------------------------------------------------

def unknown_choice(what: str, value: str, known: Sequence[str], *, one_of: bool = False) -> str:
    expected = f"expected one of {quoted(known)}" if one_of else f"expected {quoted(known)}"
    return f"Unknown {what} {value!r}{did_you_mean(value, known)} ({expected})"


# What other schema languages call the field types, so that their names (or a slip of them)
# are answered with ours: difflib alone reads 'sting' as 'section'.
_TYPE_NAMES = {"string": "str", "text": "str", "integer": "int", "boolean": "bool", "number": "float",
               "double": "float", "list": "list[str]", "array": "list[str]", "table": "section",
               "dict": "section", "object": "section", "enum": "str"}


def unknown_type(value: str, known: Sequence[str]) -> str:
    import difflib

    names = {**{k: k for k in known}, **_TYPE_NAMES}
    close = difflib.get_close_matches(value, list(names), n=1, cutoff=0.6) if isinstance(value, str) else []
    hint = f", did you mean {names[close[0]]!r}" if close else ""
    if close and names[close[0]] == "str" and close[0] == "enum":
        hint = ", did you mean 'str' with choices = [...]"
    return f"Unknown type {value!r}{hint} (expected one of {quoted(known)})"


def column_when_or_declared(id: str) -> str:
    return (f"Column {id!r} needs either 'when' (the configs it asks about, derived from the rules) or "
            "'declared' (row id = true or false: a fact no rule reads), not both")


def missing_key(name: str) -> str:
    return f"Missing required key {name!r}"


def invalid_value(exc: BaseException) -> str:
    return f"Invalid value: {exc}"


def expected_toml(what: str, kind: str, value: object) -> str:
    return f"Expected {what}, got {kind} {short_repr(value)}"


def cannot_read(exc: BaseException) -> str:
    return f"Cannot read the file: {getattr(exc, 'strerror', None) or exc}"


def not_utf8(exc: UnicodeDecodeError) -> str:
    return f"The file is not UTF-8: {exc.reason} at byte {exc.start}"


def file_too_big(size: int, limit: int) -> str:
    return f"File is {size} bytes, more than the limit of {limit}"


def text_too_long(length: int, limit: int) -> str:
    return f"Text is {length} characters long, more than the limit of {limit}"


# TOML syntax errors that tomllib words without naming the key.

def levels_not_a_mapping(levels: object) -> str:
    return f"levels must map warning kinds to logging levels, such as {{'fallback': logging.INFO}}, not {short_repr(levels)}"


def not_a_bool_argument(name: str, value: object) -> str:
    return f"{name} must be True or False, not {short_repr(value)}"


def bad_log_level(kind: str, level: object) -> str:
    return f"The level for {kind!r} must be a logging level (an int such as logging.INFO), not {short_repr(level)}"


def toml_as_said(message: str) -> str:
    """A TOML error tomllib words well enough: its sentence, capitalised as ours are."""
    return message[:1].upper() + message[1:]


def toml_unterminated_string(*, at_end: bool = False) -> str:
    if at_end:
        return "Unterminated string: the file ends before its closing quote"
    return ("Unterminated string: the line ends before its closing quote "
            "(a string over several lines needs triple quotes)")


def toml_quote_inside(quote: str) -> str:
    other = "'" if quote == '"' else '"'
    return (f"The string ended at the {quote} before this: inside a {quote}…{quote} string, "
            f"write quotes as {other} (when = {quote}mode == {other}all{other}{quote}) or escape them")


def toml_set_twice(key: str, first_line: int) -> str:
    return f"Key {key!r} is set twice (first at line {first_line})"


def toml_set_below_value(key: str, parent: str, line: int) -> str:
    return f"Cannot set {key!r}: {parent!r} is already set to a value at line {line}"


def toml_table_twice(table: str, first_line: Optional[int]) -> str:
    where = f" (first at line {first_line})" if first_line is not None else ""
    return f"Table [{table}] is declared twice{where}"


def toml_inline_closed(key: str, table: str, line: int) -> str:
    return (f"Cannot add {key!r} to {table!r}: an inline table (line {line}) is complete as written; "
            f"add the key inside its braces")


def toml_unclosed(bracket: str, line: int, column: int) -> str:
    closer = {"[": "]", "{": "}"}[bracket]
    return f"The file ends before the {bracket!r} opened at line {line}, column {column} is closed by {closer!r}"


def toml_ends_early() -> str:
    return "The file ends where a value is expected"


def nested_too_deeply() -> str:
    return "Arrays or tables nest too deeply to read"


def missing_header() -> str:
    return "Missing the [matrix] table (name and version)"


def bad_config_path(path: str) -> str:
    return (f"Config path {path!r} must be names joined by dots "
            "(letters, digits and '_', not starting with '_' or a digit)")


def not_a_section(prefix: str, kind: str, path: str) -> str:
    return f"{prefix!r} is declared as {kind}, so it cannot hold {path!r}"


def refusal_shape() -> str:
    return ('Expected together = [["gate", …], ["other gate", …]]: lists of gate ids, any of each list '
            "active at once")


def bad_class_spec(text: str) -> str:
    return f"Expected 'MODULE:CLASS' (such as 'vllm.config:VllmConfig'), got {text!r}"


def forced_elsewhere(runner: str, target: str) -> str:
    return (f"The feature forces {target!r}, so {runner!r} must say \"no\" to it at every version "
            "(a config that uses it never runs there)")


def forced(feature: str, target: str, asked: str) -> str:
    return f"{feature} requires {target}; it cannot run on {asked}, which was asked for"


def overridden(feature: str, target: str, asked: str) -> str:
    return f"{feature} requires {target} and overrides the request for {asked}"


def preferred(feature: str, runner: str) -> str:
    return f"{feature}: using {runner}"


def preferred_blocked(feature: str, blockers: str, template: Optional[Template] = None, runner: str = "") -> str:
    """An outright preference whose *runner* is not free (*blockers*: why); a *template* of the
    matrix's names the ``feature``, the ``refusal`` and the ``runner``."""
    return _in_words(template, "No runner can serve this config: {feature} makes the choice, and {refusal}",
                     feature=feature, refusal=blockers, runner=runner)


def not_a_candidate(runner: str) -> str:
    return f"{runner} is not a candidate for this config"


def preference_skipped(feature: str, runner: str, blockers: str) -> str:
    return f"{feature} would prefer {runner}, but {blockers}; choosing in the usual order"


def choice_table(unknown: Optional[str]) -> str:
    what = f"Unknown key {unknown!r} in a choice" if unknown else "A choice given as a table"
    return f"{what}: write the value alone, or {{ value = …, since = \"V\", until = \"V\" }} (versions as strings)"


def outside_window(what: str, exists: str, reads: str) -> str:
    return (f"{what} exists {exists}, but this gate reads it {reads}: bound the gate with since/until "
            "(or deprecate it with remove_in), or widen the [config] entry")


def no_choices_for(kind: str) -> str:
    return f"Only str, int and float fields take choices, not {kind}"


def empty_choices() -> str:
    return "Choices must list at least one value"


def choice_misfit(choice: object, kind: str) -> str:
    return f"Choice {choice!r} does not fit type {kind}"


def repeated_choices() -> str:
    return "Choices are listed more than once"


def no_bound_for(bound: str, kind: str) -> str:
    return f"Only int and float fields take {bound}, not {kind}"


def not_a_number(value: object) -> str:
    return f"Expected a number, got {short_repr(value)}"


def max_below_min(maximum: object, minimum: object) -> str:
    return f"max {maximum!r} is less than min {minimum!r}"


def default_misfit(default: object, reason: str) -> str:
    return f"Default {default!r} does not fit: {reason}"


def section_default() -> str:
    return "A section takes no default: it is always present, or None when nullable"


def no_runner_folder(shown: str, beside: str) -> str:
    return f"Runner folder {shown!r} does not exist next to {beside}"


def empty_runner_folder(shown: str) -> str:
    return f"Runner folder {shown!r} holds no <id>.toml file"


def no_runners_given() -> str:
    return "No runners were given"


def bad_runner_id(runner: object) -> str:
    return f"Runner id {runner!r} must be letters, digits, '_', '.' or '-', and not 'default'"


def same_priority(runner: str, priority: int, other: str) -> str:
    return f"Runner {runner!r} has the same priority {priority} as {other!r}: automatic choice needs an order"


def too_many_features(count: int, limit: int) -> str:
    return f"{count} features, more than the limit of {limit}"


def name_taken(name: str, other: str) -> str:
    return (f"Display name {name!r} is already used by feature {other!r}, in force at the same versions "
            "(two gates may share a name only when since/until keep them apart)")


def bad_feature_id(feature: str, what: str = "Feature") -> str:
    return f"{what} id {feature!r} must be letters, digits, '_', '.' or '-'"


def not_after(later: str, later_value: object, earlier: str, earlier_value: object) -> str:
    return f"{later} {str(later_value)!r} must come after {earlier} {str(earlier_value)!r}"


def not_before(later: str, later_value: object, earlier: str, earlier_value: object) -> str:
    return f"{later} {str(later_value)!r} must not come before {earlier} {str(earlier_value)!r}"


def removed_without_version() -> str:
    return "removed = true records a removal: say when with remove_in (the release that removed it)"


def no_period_unrecorded(version: str) -> str:
    return (f"remove_in equals since ({version}): a removal without a deprecation period must be recorded "
            "as done with removed = true")


def missing_cell(runner: str) -> str:
    return f"No support cell for runner {runner!r}, and no support.default nor [matrix] default_support"


def empty_history() -> str:
    return "An empty history says nothing: give at least one status"


def bad_cell(statuses: Sequence[str], kind: str, value: object) -> str:
    return (f"Expected a status ({quoted(statuses)}), a table or an array of tables, "
            f"got {kind} {short_repr(value)}")


def since_left_out() -> str:
    return "Only the first statement of a history may leave out 'since'"


def history_order(since: object, previous: object) -> str:
    return f"History is out of order: since {str(since)!r} does not come after {str(previous)!r}"


def partial_without_note() -> str:
    return 'Status \'partial\' needs a note saying what is missing: { status = "partial", note = "…" }'


# --- the command line and the files it writes ------------------------------------------------

def cannot_read_config(name: str, exc: BaseException) -> str:
    return f"Cannot read config {name!r}: {getattr(exc, 'strerror', None) or exc}"


def config_not_a_table(shown: str, data: object) -> str:
    return f"Config {shown} must be a table (a JSON object), not {type(data).__name__}"


def config_not_json(shown: str, exc: BaseException) -> str:
    return f"Config {shown} is not valid JSON: {exc}"


def config_not_toml(shown: str, problem: object) -> str:
    indented = "\n".join("  " + line for line in str(problem).split("\n"))
    return f"Config {shown} is not valid TOML:\n{indented}"


def config_too_deep(shown: str) -> str:
    return f"Config {shown} nests too deeply"


def bad_assignment(assignment: str) -> str:
    return f"--set takes PATH=VALUE, such as cache_config.mamba_cache_mode=all, not {assignment!r}"


def set_undeclared(path: str, declared: Iterable[str]) -> str:
    return (f"Cannot set {path!r}: the matrix's [config] does not declare it"
            f"{did_you_mean(path, declared)}")


def set_derived(path: str) -> str:
    return f"Cannot set {path!r}: it is a derived field, computed from other fields by its derive, never given"


def set_expected(path: str, text: str, what: str) -> str:
    return f"Cannot set {path!r} to {text!r}: expected {what}"


def set_refused(path: str, text: str, reason: str) -> str:
    return f"Cannot set {path!r} to {text!r}: {reason}"


def cannot_set(path: str, where: str, value: object) -> str:
    return f"Cannot set {path!r}: {where!r} is already set to {value!r}"


def cannot_write(target: str, exc: BaseException) -> str:
    return f"Cannot write {target}: {getattr(exc, 'strerror', None) or exc}"


def cannot_read_page(path: str, exc: BaseException) -> str:
    return f"Cannot read {path}: {getattr(exc, 'strerror', None) or exc}"


def check_needs_target() -> str:
    return "--check compares with a file: give --output FILE or --inject FILE"


def inject_needs_page() -> str:
    return "--inject puts tables into a page: use --format markdown, rst or html"


def nothing_to_inject_into(target: str) -> str:
    return f"{target}: no such file to inject into"


def marker_missing(path: str, marker: str, begin: str, end: str) -> str:
    return f"{path}: no {marker!r} marker line: add one {begin!r} line and one {end!r} line"


def marker_repeated(path: str, marker: str, indexes: Sequence[int]) -> str:
    where = ", ".join(str(i + 1) for i in indexes)
    return f"{path}: {marker!r} stands {len(indexes)} times (lines {where}); keep one"


def markers_reversed(path: str, begin: str, first: int, end: str, last: int) -> str:
    return f"{path}: {end!r} (line {last + 1}) comes before {begin!r} (line {first + 1})"


def unknown_option(what: str, value: object, known: Sequence[str]) -> str:
    return f"Unknown {what} {value!r} (expected one of {quoted(known)}){did_you_mean(str(value), known)}"


def no_tables() -> str:
    return "Name at least one table"


# --- the host's config classes ----------------------------------------------------------------

def cannot_import(module: str, exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[-1] if str(exc).strip() else ""
    return f"Cannot import {module!r}: {type(exc).__name__}" + (f": {text}" if text else "")


def no_such_class(where: str, name: str, known: Iterable[str]) -> str:
    return f"{where} has no class {name!r}{did_you_mean(name, known)}"


def not_a_config_class(spec: str, found: object) -> str:
    kind = "class" if isinstance(found, type) else type(found).__name__
    return (f"{spec} is a {kind} that is not a dataclass, an attrs class or a pydantic model: "
            "matrix reads the fields of those")


def no_member(path: str, owner: str, name: str, known: Iterable[str]) -> str:
    return f"Cannot derive {path!r}: {owner} has no member {name!r}{did_you_mean(name, known)}"


def cannot_map(path: str, why: str) -> str:
    return f"Cannot derive {path!r}: {why}"


def class_unavailable(reason: str) -> str:
    return f"The config class was not compared with [config]: {reason}"


def class_missing(path: str, owner: str, name: str, known: Iterable[str]) -> str:
    return f"[config] declares {path!r}, but {owner} has no member {name!r}{did_you_mean(name, known)}"


def class_type(path: str, declared: str, member: str, annotation: str) -> str:
    return f"[config] declares {path!r} as {declared}, but {member} is {annotation}"


def class_type_unmapped(path: str, declared: str, member: str, annotation: str, why: str) -> str:
    return f"[config] declares {path!r} as {declared}, but {member} is {annotation} ({why})"


def class_also(path: str, member: str, others: Sequence[str]) -> str:
    return f"{member} also allows {', '.join(others)}, which [config] {path!r} refuses"


def class_takes_classes(path: str, member: str, annotation: str) -> str:
    return (f"{member} is {annotation}, which may hold classes, but [config] {path!r} refuses them: "
            "declare classes = true to read a class as its qualified name")


def class_nullable(path: str, nullable: bool, member: str, annotation: str) -> str:
    if nullable:
        return f"[config] declares {path!r} nullable, but {member} ({annotation}) is never None"
    return f"{member} is {annotation}, which may be None, but [config] {path!r} is not nullable"


def class_any_value(path: str, member: str, kind: str) -> str:
    return (f"{member} takes any {kind}, but [config] {path!r} allows only its choices: "
            "another value is a ConfigError at resolve time")


def class_cannot_hold(path: str, member: str, choices: Sequence[object]) -> str:
    return f"[config] {path!r} has choices {member} cannot hold: {quoted(choices)}"


def class_more_choices(path: str, member: str, choices: Sequence[object]) -> str:
    return f"{member} also allows {quoted(choices)}, which [config] {path!r} does not list"


def class_bound(path: str, member: str, bound: str, mine: object, theirs: object) -> str:
    if theirs is None:
        return f"[config] {path!r} has {bound} = {mine!r}, but {member} has no {bound}"
    return f"[config] {path!r} has {bound} = {mine!r}, but {member} allows {theirs!r}"


def class_default(path: str, member: str, mine: object, theirs: object, *, declared: bool = True) -> str:
    if not declared:
        return f"{member} defaults to {short_repr(theirs)}, but [config] {path!r} gives no default"
    return f"[config] {path!r} defaults to {short_repr(mine)}, but {member} defaults to {short_repr(theirs)}"


# --- finding the matrix (cli, _files) --------------------------------------------------------

def no_matrix_found(looked: Sequence[str]) -> str:
    where = repr(looked[0]) if len(looked) == 1 else f"{looked[0]!r} and the folders above it up to {looked[-1]!r}"
    return (f"No matrix found: no features.toml, and no pyproject.toml naming one in [tool.matrix] matrix, in "
            f"{where}; pass --matrix FILE, or --matrix default for the packaged vLLM matrix")


def using_matrix(shown: str) -> str:
    return f"Using the matrix {shown}"


def packaged_matrix(file: str) -> str:
    return f"{file} (the packaged default matrix)"


def cannot_read_pyproject(path: str, exc: BaseException) -> str:
    return f"Cannot read {path}: {getattr(exc, 'strerror', None) or exc}"


def pyproject_not_toml(path: str, exc: BaseException) -> str:
    return f"{path} is not valid TOML: {exc}"


def pyproject_matrix_not_a_path(path: str, value: object) -> str:
    return (f"{path}: [tool.matrix] matrix must be the path of a features.toml, or 'default' for the packaged "
            f"matrix, not {value!r}")


def check_files_and_matrix() -> str:
    return "Pass either --matrix or the changed files to check, not both"


def check_one_document(format: str) -> str:
    return f"--format {format} writes one document: check one matrix at a time"


def config_keys_undeclared(shown: str, problems: Sequence[str], ignorable: bool) -> str:
    """The keys of a config the schema refuses; the hint of `--allow-extra` only where it helps
    (*ignorable*: one of them is not a dotted key, which it refuses all the same)."""
    hint = " (--allow-extra ignores keys the matrix does not declare)" if ignorable else ""
    if len(problems) == 1:
        return f"{problems[0]}{hint}"
    lines = "".join(f"\n  {p}" for p in problems)
    return f"Config {shown}: {len(problems)} undeclared keys{hint}{lines}"


def removed_ahead(remove_in: str, version: str) -> str:
    return (f"removed = true records a removal that has happened, but remove_in {remove_in} is later than the "
            f"file's version {version}: drop removed = true until [matrix] version reaches {remove_in}")


def misnamed_runner_file(stem: str, wanted: str, count: int) -> str:
    features = f"{count} feature{'s' if count != 1 else ''} name"
    return (f"No feature names runner {stem!r}, this file's stem, while {features} {wanted!r}, which has no "
            f"runner file: rename this file {wanted}.toml (a runner's id is its file's stem)")


def version_as_number(kind: str, value: object, written: str) -> str:
    lost = f" (as a number, {written} is the {kind} {value!r})" if written != repr(value) else ""
    return f"Expected a version, got the {kind} {value!r}: write the version in quotes, \"{written}\"{lost}"


def preferred_summary(feature: str, passed_over: Sequence[str]) -> str:
    over = f", passing over {', '.join(passed_over)}, which automatic choice tries first" if passed_over else ""
    return f"Preferred because of {feature}{over}"


def at_every_release(versions: Sequence[str]) -> str:
    return f", at every release the file names ({', '.join(versions)})"


def ignore_without_reason() -> str:
    return "An ignored finding needs its reason: say why it is not a mistake"


def ignore_unused(code: str, gate: Optional[str]) -> str:
    about = f" about {gate!r}" if gate else ""
    return f"[check] ignores {code}{about}, but there is no such finding: remove the entry"


def ignored_count(count: int) -> str:
    return f"; {count} finding{'s' if count != 1 else ''} ignored by [check] ignore"


def unknown_finding_code(code: str, known: Sequence[str]) -> str:
    return f"Unknown finding code {code!r}{did_you_mean(code, known)} (matrix check's codes: see docs/reference/check.md)"


def init_would_overwrite(paths: Sequence[str]) -> str:
    return f"Nothing written: {', '.join(repr(p) for p in paths)} already exist (matrix init overwrites no file)"


def init_next(folder: str) -> str:
    where = "" if folder in (".", "") else f"cd {folder} && "
    return f"Next: {where}matrix check && python -m pytest test_matrix.py"


# --- matrix.testing -----------------------------------------------------------------------------

def harness_unsupported(runner: str, name: str, version: object, config: str, asked: Optional[str],
                        expected: Sequence[str], actual: Sequence[str]) -> str:
    lines = [f"The legacy function and the matrix disagree on what {runner} ({name}) cannot do at version {version}",
             f"  config: {config}"]
    if asked is not None:
        lines.append(f"  asked for: {asked}")
    only_legacy = [n for n in expected if n not in actual]
    only_matrix = [n for n in actual if n not in expected]
    lines += [f"  legacy: {list(expected)}", f"  matrix: {list(actual)}",
              f"  only the legacy function names: {only_legacy}", f"  only the matrix names: {only_matrix}"]
    return "\n".join(lines)


def harness_choice(version: object, config: str, asked: str, legacy: str, matrix: str) -> str:
    return "\n".join([f"The legacy function and the matrix choose differently at version {version}",
                      f"  config: {config}", f"  asked for: {asked}", f"  legacy: {legacy}", f"  matrix: {matrix}"])


def harness_bad_answer(answer: object) -> str:
    return ("legacy() must return the names of what a runner cannot do, a mapping from runner id to such "
            f"names, or a matrix.testing.Choice, not {short_repr(answer)}")


def harness_needs_runner() -> str:
    return "legacy() returned a list of names: pass runner= to say which runner's they are"


def harness_read_attribute(error: str) -> str:
    return (f"legacy() read an attribute of the config dict it was given ({error}): pass build= to make "
            "the host's objects from it, or as_objects=True for attribute objects")


def harness_reached(examples: int, lines: int, missed: int, never: Sequence[str], measured: bool) -> str:
    if not measured:
        return (f"{examples} examples; the lines of the legacy code they ran were not measured: another tracer "
                "(a coverage tool or a debugger) was running")
    if not lines:
        return f"{examples} examples; no Python source of the legacy code was found to measure"
    ran = lines - missed
    text = f"{examples} examples ran {ran} of {lines} lines of the legacy code ({100 * ran // lines}%)"
    return text + (f"; never run: {', '.join(never)}" if never else "")


def version_past(version: str, newest: str, file: Optional[str]) -> str:
    return (f"Version {version!r} is past {newest}, the newest release {_file_name(file)} knows of: "
            "what a later release does it cannot say")


def _file_name(file: Optional[str]) -> str:
    import os

    return os.path.basename(file) if file else "the matrix"


def default_entry(unknown: Optional[str]) -> str:
    what = f"Unknown key {unknown!r} in a default's history" if unknown else "A default's history holds tables"
    return f"{what}: write {{ value = …, since = \"V\" }} (since left out only on the first)"


# --- remedies (matrix._remedy) ------------------------------------------------------------------


def remedy_change(action: str, path: str, spelled: str, doc: Optional[str]) -> str:
    """One change of a remedy as the user would make it, or a condition on a fact (``where``)."""
    if action == "unset":
        return f"unset {path}"
    if action == "add":
        return f"add {path} (a section, its fields at their defaults)"
    if action == "where":  # a fact: the user does not set it, the host (or the model) gives it
        return f"only where {path} is {spelled}" + (f" (a fact: {doc})" if doc else " (a fact)")
    return f"set {path} to {spelled}"


def remedy_text(changes: Sequence[str], conditions: Sequence[str], ask: Optional[str] = None) -> str:
    """A remedy's changes, then its conditions; first, where it asks for the runner (*ask*, its
    id), the request as Python and the CLI make it."""
    said = " and ".join([*([remedy_ask(ask)] if ask is not None else []), *changes]) or "no setting"
    return said + (", " + " and ".join(conditions) if conditions else "")


def remedy_ask(runner: str) -> str:
    """A remedy's request for the runner, where the remedy is for automatic choice."""
    return f"ask for it by id (runner={runner!r}, --runner {runner})"


def columns_too_many(limit: int) -> str:
    return f"more than {limit} classes of configs, the most one cell resolves"


def columns_refused_after_redirect(to: str) -> str:
    return f"redirected to {to}, which refuses it"


def columns_inexact(causes: Sequence[str]) -> str:
    return f"(not exact: {', '.join(causes)})"


def column_term(path: str, spelled: str, action: str) -> str:
    """Where one answer of a columns-table cell holds, in the matrix's terms (from the values a
    remedy would spell: `remedy_one_of`, `remedy_range`)."""
    if action == "unset":
        return f"{path} is None"
    if action == "add":
        return f"{path} is not None"
    if spelled.startswith("one of "):
        return f"{path} in [{spelled[len('one of '):]}]"
    if spelled[:1] in "'\"-0123456789" or spelled in ("None", "True", "False") or spelled[:1] == "[":
        return f"{path} == {spelled}"
    return f"{path}: {spelled}"


def remedy_one_of(pieces: Sequence[str], ranges: bool = False) -> str:
    """Values that work (``one of 'a', 'b'``), or, where ranges are among them, each said in turn."""
    return " or ".join(pieces) if ranges else "one of " + ", ".join(pieces)


def remedy_among_tried(said: str) -> str:
    """Values of a field searched over some of its values only: those tried that work."""
    return f"{said} (among the values tried; others may work too)"


def remedy_other_string(named: Sequence[str]) -> str:
    return "a value other than " + ", ".join(repr(n) for n in named) if named else "any value"


def remedy_range(kind: str, low: Optional[Any], low_closed: bool, high: Optional[Any], high_closed: bool) -> str:
    """A range of values that work, from the classes it joins (None: unbounded on that side)."""
    import math  # an extension module `import matrix` does without (issue 29, cold start)

    if kind == "int":
        lo = None if low is None else low if low_closed else math.floor(low) + 1
        hi = None if high is None else high if high_closed else math.ceil(high) - 1
        if lo is not None and lo == hi:
            return repr(int(lo))
        if lo is None and hi is None:
            return "any value"
        if lo is None:
            return f"a value ≤ {int(hi or 0)}"
        if hi is None:
            return f"a value ≥ {int(lo)}"
        return f"a value from {int(lo)} to {int(hi)}"
    if low is not None and low_closed and high_closed and low == high:
        return remedy_value(low)
    parts = ([f"{'≥' if low_closed else '>'} {remedy_value(low)}"] if low is not None else []) + \
            ([f"{'≤' if high_closed else '<'} {remedy_value(high)}"] if high is not None else [])
    what = "a version " if kind == "version" else "a value "
    return what + " and ".join(parts) if parts else "any " + what.split()[1]


def remedy_progression(divisor: int, remainders: Sequence[int], low: int, high: int) -> str:
    """Every int from *low* to *high* whose remainder by *divisor* is one of *remainders* (the
    values that work, when they follow that rule: ``a multiple of 3 from 3 to 1020``)."""
    if list(remainders) == [0]:
        return f"a multiple of {divisor} from {low} to {high}"
    said = " or ".join([", ".join(str(r) for r in remainders[:-1]), str(remainders[-1])] if remainders[:-1] else
                       [str(remainders[-1])])
    return f"a value from {low} to {high} with remainder {said} when divided by {divisor}"


def remedy_value(value: object) -> str:
    """A value as a remedy writes it: a version as the text the user would give."""
    return repr(str(value)) if isinstance(value, Version) else repr(value)


def remedy_budget(budget: int, size: int) -> str:
    return f"it read {budget} candidate config{'s' if budget != 1 else ''} before it finished the changes of {size} path{'s' if size != 1 else ''}"


def remedies_line(name: str, options: Sequence[str], more: int, served: bool, size: int, exhausted: bool,
                  gave_up: Optional[str], inexact: Sequence[str], asking: bool = False) -> str:
    """One line: the remedies for a runner, or why there is none (*asking*: the search also
    asked for it by id, for automatic choice)."""
    caveat = f" (the search is not exact: {'; '.join(inexact)})" if inexact else ""
    request = ""
    if asking and not options and not served:
        request = ", asked for by id or not" if exhausted and not inexact and gave_up is None else \
            " (asking for it by id counted as one)"
    if served:
        return f"{name} serves this config as it is"
    if options:
        line = f"To use {name}, change: " + "; or ".join(options)
        if more:
            line += f"; or {more} more"
        if gave_up is not None:
            # Cut within a size: the sizes below were searched in full, this one was not.
            line += f" (the search was cut short: {gave_up}; other changes of {size} path{'s' if size != 1 else ''} " \
                    "may serve too)"
        return line + (f" (not proved the smallest: {'; '.join(inexact)})" if inexact else "")
    if gave_up is not None:
        return f"No remedy found for {name}: the search gave up: {gave_up}{caveat}{request}"
    if exhausted and not inexact:
        return f"No change of the config makes {name} serve it{request}"
    return f"No remedy found for {name} within {size} change{'s' if size != 1 else ''}{caveat}{request}"


# --- redirects and runner aliases (issue 27, item 3) ------------------------------------------


def former_id(alias: str, runner: str) -> str:
    return f"Unknown runner {alias!r}: {alias!r} is a former id of {runner!r}"


def redirect_name(runner: str, to: str, always: bool = False) -> str:
    if always:
        return f"{runner}, asked for or chosen, redirected to {to}"
    return f"A request for {runner} redirected to {to}"


def redirected(asked: str, to: str, because: str, chosen: bool = False) -> str:
    """*because*: the values the redirect read (``kv_cache_dtype = 'fp8_e5m2'``); *chosen*: the
    runner was chosen automatically (a redirect with ``applies = "always"``), not asked for."""
    if chosen:
        return f"Chose {asked!r} automatically, redirected to {to!r}: {because}"
    return f"Asked for {asked!r}, redirected to {to!r}: {because}"


def redirected_refused(asked: str, to: str, refusal: str, chosen: bool = False) -> str:
    if chosen:
        return f"No runner can serve this config: chose {asked!r} automatically, redirected to {to!r}; {refusal}"
    return f"Asked for {asked!r}, redirected to {to!r}; {refusal}"


def deprecated_alias(alias: str, runner: str, since: str, remove_in: Optional[str], message: Optional[str]) -> str:
    text = f"Runner id {alias!r} is deprecated since {since}"
    if remove_in:
        text += f" and will be removed in {remove_in}"
    text += f"; use {runner!r} instead"
    if message:
        text += f" ({message})"
    return text


def removed_alias(alias: str, runner: str, remove_in: str, message: Optional[str]) -> str:
    text = f"Runner id {alias!r} was removed in {remove_in}: use {runner!r} instead"
    return text + (f" ({message})" if message else "")


def alias_taken(alias: str, owner: Optional[str]) -> str:
    """*owner*: the runner whose alias *alias* is already (None: it is a runner's id)."""
    if owner is None:
        return f"Alias {alias!r} is the id of a runner: a request for it must mean one runner"
    return f"Alias {alias!r} is already an alias of {owner!r}: a request for it must mean one runner"


def bad_alias_id(alias: object) -> str:
    return f"Alias {alias!r} must be letters, digits, '_', '.' or '-', and not 'default'"


def redirect_to_self(runner: str) -> str:
    return f"A redirect of {runner!r} to itself: a request for it already goes there"


def redirect_to_alias(to: str, runner: str) -> str:
    return f"Redirect to {to!r}, {_former_id_of(runner)}"


def _former_id_of(runner: str) -> str:
    """A runner named by a former id where its id is wanted (a redirect's target, a replacement)."""
    return f"a former id of {runner!r}: name the runner by its id"


def reserved_root(path: str, root: str, reads: str) -> str:
    return f"{path!r}: {root!r} is reserved: {reads}"


def adjustment_sets_given(path: str) -> str:
    return (f"{path!r} is the value as given, which no adjustment changes: set "
            f"{path.split('.', 1)[1]!r}")


def alias_message_window(path: str, window: str) -> str:
    return (f"A former id's message says {path!r}, which exists only {window}: give the alias since/remove_in "
            "inside it")


def redirect_message_window(path: str, window: str) -> str:
    return f"A redirect's message says {path!r}, which exists only {window}: give the redirect since/until inside it"


def redirect_not_everlasting(path: str, window: str) -> str:
    return f"A redirect reads {path!r}, which exists only {window}: give the redirect since/until inside it"


def redirect_what(runner: str, number: int, to: str, when: str) -> str:
    return f"{runner}'s redirect {number} to {to} ({when})"


def redirect_never(what: str, why: str) -> str:
    """*why*: ``unsatisfiable``, ``removed`` (it holds only with a removed feature active) or
    ``shadowed`` (an earlier redirect of the runner holds wherever it does)."""
    reasons = {"unsatisfiable": "no config satisfies its condition",
               "removed": "every config it holds for uses a removed feature, which is refused first",
               "shadowed": "an earlier redirect of the same runner applies wherever it holds",
               "stage": "its condition never holds on the config its runner's steps leave at its stage, where that "
                        "runner serves"}
    return f"{what} never applies: {reasons[why]}"


def redirect_refused(what: str, to: str, gate: str, reason: Optional[str]) -> str:
    why = f"{to} fails a requirement ({reason})" if reason is not None else f"{to} does not support {gate}"
    return f"{what} can leave a request {to} refuses: where it applies, {why}"


# --- a runner deprecated (its own ``deprecated`` table) -----------------------------------------


def runner_removal_without_period(version: str) -> str:
    return (f"remove_in equals since ({version}): a runner removed without a deprecation period needs no "
            "deprecation: remove its file")


def runner_removed_key() -> str:
    return ("A runner's deprecation has no removed: its removal is its file's (remove the file; its id, a former "
            "id of its replacement with removed = true, then refuses a request naming the new id)")


def runner_replacement_alias(to: str, runner: str) -> str:
    return f"Replacement {to!r} is {_former_id_of(runner)}"


def runner_replaced_by_itself(runner: str) -> str:
    return f"Replacement {runner!r} is the runner deprecated: name another runner, or say what to use in words"


def runner_no_removal_version(runner: str, since: str) -> str:
    return f"Runner {runner!r} is deprecated since {since} without remove_in: users cannot plan for its removal"


def runner_overdue(runner: str, remove_in: str, version: str) -> str:
    return (f"Runner {runner!r} was due for removal in {remove_in}, and the matrix is checked as of {version}: "
            "remove its file (its id, a former id of its replacement recorded removed, then refuses a request "
            "with the new id), or move remove_in")


def runner_lifecycle(since: str, remove_in: Optional[str], replacement: Optional[str], state: str) -> str:
    """A deprecated runner's cell of the runners table (*state*, at the tables' version: ``not
    yet deprecated``, ``deprecated`` or ``overdue``; *replacement*: another runner's id, or words)."""
    if state == "not yet deprecated":
        text = f"deprecated from {since}" + (f", to be removed in {remove_in}" if remove_in else "")
    elif state == "overdue":
        text = f"deprecated since {since}, due for removal in {remove_in}"
    else:
        text = f"deprecated since {since}" + (f", to be removed in {remove_in}" if remove_in else "")
    return text + (f"; use {replacement} instead" if replacement else "")


#: Said after a runners table that shows a runner deprecated.
RUNNERS_DEPRECATED_AFTER = ("A deprecated runner still serves: from its deprecation on, a resolution that ends on it "
                            "warns (deprecated-runner).")


def alias_no_removal_version(alias: str, runner: str, since: str) -> str:
    return (f"Former id {alias!r} of {runner!r} is deprecated since {since} without remove_in: users cannot plan "
            "for its removal")


def alias_overdue(alias: str, remove_in: str, version: str) -> str:
    return (f"Former id {alias!r} was due for removal in {remove_in}, and the matrix is checked as of {version}: "
            "record the removal with removed = true (a request by it is then refused, naming the new id), or "
            "move remove_in")
# --- adjustments (issue 27) ------------------------------------------------------------------

def adjustment_value(path: str, reason: str) -> str:
    return f"The value set for {path!r}: {reason}"


def adjustment_section(path: str) -> str:
    return f"{path!r} is a section: an adjustment may only set a nullable section to None"


def adjustment_fact(path: str) -> str:
    return f"{path!r} is a fact the host computes: an adjustment cannot change it"


def adjustment_window(path: str, exists: str, applies: str) -> str:
    return (f"[config] {path!r} exists {exists}, but this adjustment sets it {applies}: bound the adjustment "
            "with since/until, or widen the [config] entry")


def adjustment_from_type(path: str, kind: str, source: str, source_kind: str) -> str:
    return f"{path!r} is {kind}, but {source!r}, which it copies, is {source_kind}"


def adjustment_from_table(unknown: Optional[str]) -> str:
    what = f"Unknown key {unknown!r} in a value" if unknown else "A value given as a table"
    return (f"{what}: write a value, {{ from = \"path\" }} to copy another field's value "
            "(with times = N to scale a number), or { none = true } for None")


def adjustment_times_not_a_number(times: object) -> str:
    return f"times scales the value copied: expected a number, got {times!r}"


def adjustment_times_finite(times: object) -> str:
    return f"times must be a finite number other than 0, got {times!r}: to set a constant, write it as the value"


def adjustment_times_type(path: str, kind: str) -> str:
    return f"times scales a number, but {path!r} is {kind}"


def adjustment_times_int(path: str, times: object) -> str:
    return (f"{path!r} is an int, and an int times {times!r} is a float: give an int times (the product of two "
            "ints is exact)")


def adjustment_fill_not_nullable(path: str) -> str:
    return (f"{path!r} is never None, so an adjustment that only fills unset values (override = false) "
            "could never set it")


def adjustment_empty_set() -> str:
    return ("An adjustment sets at least one path: set = { \"path\" = value } (or leave set out: a notice, its "
            "message said wherever its condition holds)")


def adjusted(name: str, path: str, before: object, after: object) -> str:
    return f"{name}: set {path} from {before!r} to {after!r}"


def adjustment_blocks(adjusted: Sequence[str], blockers: str) -> str:
    return f"An adjustment leaves a config the runner cannot serve: {'; '.join(adjusted)}; then {blockers}"


def adjusted_summary(path: str, before: object, after: object, id: str, when: str) -> str:
    return f"Adjusted {path}: {before!r} -> {after!r} (adjustment {id!r}, {when})"


def adjusted_when(runner: Optional[str], own: bool, stage: Optional[str]) -> str:
    """When an adjustment changed the config, as `explain()` and ``matrix resolve`` say it: before
    the choice; for the runner that serves where the adjustment is that runner's own; else at its
    stage after the choice, where it applies whatever runner serves (a user trial: "for nccl"
    said of one that applied because gloo filled another role)."""
    if runner is None:
        return "before the choice"
    if own:
        return f"for {runner}"
    return f"at stage {stage!r}" if stage is not None else "after the choice"


def adjustment_from_range(path: str, source: str) -> str:
    return (f"{path!r} does not take every value {source!r}, which it copies, may hold "
            "(its choices or bounds are narrower)")


# --- a matrix's own sentences ([messages] of features.toml, matrix._templates) ----------------

def template_value(path: str) -> str:
    """A placeholder of a template (``{exec.parallelism}``, ``{x!r:>5}``) where no config fills it
    (`matrix._templates.described`): its path in single guillemets, which no format reads as
    markup (``<path>`` is a tag to Markdown) and which read as a slot in a sentence
    ("--dcp-size ‹dcp_size› must divide --tp-size ‹tp_size›")."""
    return f"‹{path}›"


def template_brace(text: str, token: str) -> str:
    return f"A lone {token!r} in the template {text!r}: write '{token * 2}' for a brace"


def template_conversion(inside: str, conversion: str, conversions: Sequence[str]) -> str:
    return (f"Unknown conversion {'!' + conversion!r} in {'{' + inside + '}'!r} "
            f"(expected one of {', '.join('!' + c for c in conversions)})")


def template_spec(inside: str, spec: str, kind: str, error: str) -> str:
    return f"The format spec {spec!r} in {'{' + inside + '}'!r} does not format a {kind} value: {error}"


def template_unknown(name: str, names: Sequence[str], paths: Sequence[str], well_formed: bool) -> str:
    if not names:  # a template of config values only (an adjustment's message)
        if not well_formed:
            return f"Expected a config path between braces, got {'{' + name + '}'!r}"
        return unknown_path(name, paths)
    expected = f"one of {quoted(names)}" + (", or a config path" if paths else "")
    if not well_formed:
        return f"Expected a part's name between braces ({expected}), got {'{' + name + '}'!r}"
    what = "config path" if "." in name else "part"
    return f"Unknown {what} {name!r} (expected {expected}){did_you_mean(name, [*names, *paths])}"


def diff_kinds_differing(old: Mapping[str, Optional[str]], new: Mapping[str, Optional[str]]) -> str:
    """What `diff_not_compared` adds to the line of the exception kinds where a requirement's kind
    differs between the sides: ``; a kind differs: av1_bframes ValueError → RuntimeError`` (no
    kind said as the engine's own error), or nothing."""
    def said(kind: Optional[str]) -> str:
        return "ResolutionError (no kind)" if kind is None else kind

    changed = [f"{k} {said(old.get(k))} → {said(new.get(k))}" for k in sorted(old.keys() | new.keys())
               if old.get(k) != new.get(k)]
    return f"; a kind differs: {', '.join(changed)}" if changed else ""


def diff_not_compared(what: str, where: str) -> str:
    return f"Not compared: {what} (the answers for {where} may differ unseen)"


# --- assert_matches: effective values (matrix.testing) --------------------------------------

def harness_effective(version: object, config: str, asked: str, runner: str,
                      differences: Sequence[Any]) -> str:
    """The paths whose effective value the legacy function and the matrix disagree on:
    *differences* are (path, legacy's value, the matrix's)."""
    lines = [f"The legacy function and the matrix disagree on the effective config at version {version}",
             f"  config: {config}", f"  asked for: {asked}", f"  runner: {runner}"]
    lines += [f"  {path}: legacy {short_repr(theirs)}, matrix {short_repr(ours)}" for path, theirs, ours in differences]
    return "\n".join(lines)


def harness_bad_effective(effective: object) -> str:
    return f"Choice.effective must be a mapping from config path to value, not {short_repr(effective)}"


def harness_effective_path(path: str, version: object, known: Iterable[str]) -> str:
    return (f"legacy() returned the effective value of {path!r}, which is not a [config] field at version "
            f"{version}{did_you_mean(path, known)}")


# --- lane vllm (issue 25): the sentences of a feature's prefers ---------------------------------

def template_path_unread(path: str, read: Sequence[str]) -> str:
    return (f"The template names {path!r}, which the feature's condition does not read "
            f"(it reads {quoted(read)}){did_you_mean(path, read)}")


# --- matrix check on adjustments (lane adjcheck: matrix._check_adjust) ------------------------

def adjustment_refuses(runner: str, resolved: str) -> str:
    said = f"; resolve then says: {resolved}" if resolved else ""
    return (f"Automatic choice gives {runner} configs that its own adjustments leave it unable to serve "
            f"(an AdjustmentError){said}")


_NEVER_WHY = {
    "unsatisfiable": "its condition holds for no config",
    "shadowed": "the adjustments before it leave no config where its condition holds",
    "unchanged": "wherever it applies, every path it sets has that value already",
}


def adjustment_never(name: str, why: str) -> str:
    if why.startswith("unreached:"):
        runners = why.partition(":")[2]
        reason = (f"no config that automatic choice gives to {runners}, or that a request for it leaves with it, "
                  "makes it change a value")
    else:
        reason = _NEVER_WHY[why]
    return f"{name} never changes a value: {reason}; delete it, or check its condition"


def adjustment_undone(name: str) -> str:
    return (f"{name} has no effect: wherever it changes a value, the adjustments after it leave the config as "
            "they would without it (they undo it, or do the same); delete it, or check the ones after it")


def adjustment_undecided(within: str, runner: str) -> str:
    return f"Could not decide {within} whether {runner}'s own adjustments can leave a config it cannot serve"


def adjustment_inconclusive(within: str, name: str, notice: bool = False) -> str:
    if notice:  # a notice (no set) changes nothing: what is asked is whether it is ever said
        return f"Could not decide {within} whether {name} is ever said"
    return f"Could not decide {within} whether {name} ever changes a value, or is always undone"


def adjustment_too_large_to_decide() -> str:
    return "exactly (the conditions read through the adjustments grow too large to search)"


def adjustment_too_large(name: str, paths: Sequence[str]) -> str:
    return (f"{name} sets {', '.join(repr(p) for p in paths)}, which gates read, and the conditions read through "
            "the adjustments grow too large to search: the answers about choice read configs as given, before "
            "any adjustment, and are not exact where it applies")


# --- matrix diff --configs ----------------------------------------------------------------------

def diff_configs_unreadable(name: str, error: Exception) -> str:
    return f"--configs: cannot read {name!r}: {error}"


def diff_config_line(name: str, line: int, problem: str) -> str:
    return f"--configs: {name}:{line} is not a JSON config: {problem}"


# --- matrix diff: adjustments and redirects compared (diff lane) -----------------------------

def diff_effective(path: str, old: str, new: str) -> str:
    return f"Effective value of {path}: {old} → {new}"


def diff_given_value(at_witness: str) -> str:
    """A value no adjustment changes on one side, which varies over a region: the config's own."""
    return f"its value as given ({at_witness} at the witness)"


def diff_copied_value(source: str, times: object, at_witness: str) -> str:
    """A value an adjustment copies, which varies over a region: its source, and the witness's."""
    scaled = "" if times is None else f" times {times!r}"
    return f"the value of {source}{scaled} ({at_witness} at the witness)"


# --- sglang lane (#30): orders without fallback, validated defaults -------------------------


def in_roles(roles: Sequence[str]) -> str:
    """Said after a capability cell whose clauses apply in some roles only (issue 30, F1)."""
    return f" (in role{'s' if len(roles) != 1 else ''} {', '.join(roles)})"


def redirected_here(source: str) -> str:
    """Said of the runner a redirect that applies always sent automatic choice to (explain)."""
    return f"redirected here from {source!r}, validated as a runner asked for"


def redirected_there(target: str) -> str:
    """Said of the runner automatic choice reached whose redirect that applies always held (explain)."""
    return f"reached, and redirected to {target!r} before its blockers were read"


def not_tried(order: str) -> str:
    """Why a runner of an order without fallback after its first candidate is not tried (`matrix
    check`'s no-runner, `explain()`)."""
    return f"not tried: {order} does not fall back"


def order_refused(order: str, blockers: str, template: Optional[Template] = None, runner: str = "") -> str:
    """An order without fallback whose first candidate, *runner*, is not free (*blockers*:
    why); a *template* of the matrix's names the ``order``, the ``refusal`` and the ``runner``."""
    return _in_words(template, "No runner can serve this config: {order} chooses {runner}, and {refusal}",
                     order=order, refusal=blockers, runner=runner)


def order_never_tries(order: str, runner: str, before: str) -> str:
    return (f"Order {order!r} does not fall back, so {runner!r} is never tried: {before!r} before it is always a "
            "candidate")


# --- lane inputs: input checking (near misses said once, ended choices, former ids) ---------------


def near_miss(word: str, candidates: Iterable[str]) -> Optional[str]:
    """The candidate "did you mean" names for *word*: one that differs only in case ('FAST' for
    'fast'), else the closest that is close enough; None when none is."""
    import difflib

    candidates = list(candidates)
    same = [c for c in candidates if c.lower() == word.lower()]
    if same:
        return same[0]
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return close[0] if close else None


def choice_outside_window(value: object, choices: Sequence[object], version: str, window: str) -> str:
    """A choice the host has not got at *version*: said as any value not among the choices is,
    with when the choice exists (*window*: ``until 0.33.0``, ``from 0.33.0``)."""
    return f"{value!r} is not one of {quoted(choices)} at {version}: that choice exists {window} only"


# --- matrix check: a forced runner its own adjustments would free (forced lane) --------------

def forced_freed(runner: str, feature: str, blockers: Sequence[str], adjustments: Sequence[str]) -> str:
    which = (f"adjustment {adjustments[0]!r} removes" if len(adjustments) == 1
             else f"adjustments {', '.join(repr(a) for a in adjustments)} remove")
    return (f"{runner}, forced by {feature}, is refused on the config as given for {listing(blockers)} that its own "
            f"{which}: a host that validates the forced runner after adjusting would serve it")


def forced_freed_undecided(within: str, runner: str, feature: str) -> str:
    return (f"Could not decide {within} whether {runner}, forced by {feature}, is refused on some config that its own "
            "adjustments would free")


# --- matrix diff --configs: configs held to the schema, and the exit status (diff lane) ----------

def diff_fleet_rejected(problem: str) -> str:
    return f"config error: {problem}"


def diff_fleet_refused(removed: bool) -> str:
    """A config of a fleet no runner serves on a side: refused for a feature *removed* at its
    version, or another way (the refusal of automatic choice, as `matrix diff` says it)."""
    return "refused (removed)" if removed else diff_refused(())


def diff_fleet_unsaid(level: str) -> str:
    """A config of a fleet whose answer changes where no finding of the report says it."""
    return f"{level}: changed, no finding says it (see the report's undecided lines)"


def diff_fleet_rejected_once() -> str:
    """A config of a fleet one side's ``[config]`` rejects (accepted before, or accepted now)."""
    return "breaking: a config error on one side"


def diff_fleet_not_compared() -> str:
    return "not compared: both sides reject it"


def versions_compared(old: str, new: str) -> str:
    """The releases a diff compares, as its headlines say them: one, where both sides are read at
    the same (a user trial: "(1.2 → 1.2)" read as a release that changed nothing)."""
    return f"both at {old}" if old == new else f"{old} → {new}"


def diff_fleet_head(changed: int, total: int, old: str, new: str, rejected: int) -> str:
    head = f"{changed} of {total} config{'s' if total != 1 else ''} change ({versions_compared(old, new)})"
    if rejected:
        head += f"; {rejected} rejected by both sides, not compared"
    return head


def diff_fleet_exit(status: int, fail_on: str, failing: int, rejected: Sequence[str]) -> str:
    if status == 2:
        return (f"Exit status 2: {len(rejected)} config{'s' if len(rejected) != 1 else ''} rejected by both sides "
                f"({', '.join(rejected)}): fix or drop {'them' if len(rejected) != 1 else 'it'}")
    if status == 1:
        return (f"Exit status 1: {failing} config{'s change' if failing != 1 else ' changes'} at or above --fail-on "
                f"{fail_on} (not accepted)")
    return f"Exit status 0: no config changes at or above --fail-on {fail_on} (not accepted)"


# --- matrix diff: more than one region per pair of rules (diff lane) -----------------------------

def diff_regions_left(most: int, what: str) -> str:
    return f"Not compared: past the first {most} regions of other causes, {what}"


# --- overlays (issue 31: matrix._load_overlay, matrix._check_overlay) ------------------------

def overlay_provenance(overlay: str, why: str, link: Optional[str]) -> str:
    return f"set by {overlay}: {why}" + (f" ({link})" if link else "")


def overlay_not_a_table(value: object) -> str:
    return f"Expected a table, got {value!r}"


def overlay_expected_text(key: str, value: object) -> str:
    return f"Expected {key} to be a string, got {value!r}"


def overlay_expected_ids(key: str, value: object) -> str:
    return f"Expected {key} to be an array of ids, got {value!r}"


def overlay_no_extends(value: object) -> str:
    if value is None:
        return "An overlay names its upstream: extends = \"<matrix name>\" or the path of its features.toml"
    return f"Expected extends to be a matrix name or a path, got {value!r}"


def overlay_unknown_upstream(extends: str, packaged: str, overlay: str) -> str:
    """An ``extends`` that names no matrix the overlay can find alone: a slip of the packaged
    matrix's name, or (a user trial) the name of a host's matrix, which names it when the
    overlay is loaded over that matrix (a list, or installed) but not when it is loaded alone."""
    near = did_you_mean(extends, [packaged, "default"])
    if near:
        return (f"Unknown upstream matrix {extends!r}{near}: name the packaged matrix ({packaged!r}) or give the "
                "path of a features.toml")
    return (f"Unknown upstream matrix {extends!r}: loaded alone, an overlay finds by name only the packaged matrix "
            f"({packaged!r}); load it over the matrix named {extends!r} (--matrix PATH/features.toml --overlay "
            f"{overlay}, or matrix.load('PATH/features.toml', overlays=[{overlay!r}])), or give extends the path "
            "of that matrix's features.toml, relative to the overlay")


def overlay_upstream_missing(extends: str, name: str) -> str:
    return f"Upstream features.toml {extends!r} does not exist next to {name}"


def overlay_bad_specifier(text: str) -> str:
    return f"Invalid version specifier {text!r}: expected a PEP 440 specifier such as '>=0.33,<0.34'"


def overlay_off_target(targets: str, name: str, version: str) -> str:
    return f"The overlay targets upstream {targets!r}, and {name} is {version}"


def overlay_no_why(kind: str, target: str, why: object) -> str:
    if why is None:
        return f"Operation {kind} on {target!r} gives no reason: add why = \"…\""
    return f"Expected why to be a sentence, got {why!r}"


def overlay_unknown_id(what: str, id: str, known: Sequence[str]) -> str:
    return f"Upstream has no {what} {id!r}{did_you_mean(id, known)}"


def overlay_already_upstream(what: str, id: str, table: str) -> str:
    return f"Upstream has {what} {id!r} already: change it under [{table}.{id}]" if table != "config" else \
        f"Upstream has {what} {id!r} already: an overlay adds fields, it does not change them"


def overlay_refusal_upstream(id: str) -> str:
    return f"Upstream has refusal {id!r} already: an overlay adds refusals, it does not change them"


def overlay_cell_twice(runner: str) -> str:
    return f"The cell of {runner!r} is set twice in one operation"


def overlay_set_and_unset(key: str) -> str:
    return f"{key!r} is both set and unset"


def overlay_choice_false(value: object) -> str:
    return f"choice = false removes a runner from automatic choice; got {value!r}"


def overlay_add_choices(value: object) -> str:
    """``add_choices`` of ``[change.config."PATH"]`` that is not a non-empty array."""
    return f"Expected add_choices to be a non-empty array of choices, got {value!r}"


def overlay_field_without_choices(path: str) -> str:
    """``add_choices`` of an upstream field that has no choices (any value of its type is one)."""
    return f"[config] field {path!r} has no choices (any value of its type is accepted): add_choices extends a field's choices"


def overlay_choice_already(path: str, value: object) -> str:
    """A choice ``add_choices`` adds that the field has already (upstream's, or added twice)."""
    return f"{value!r} is a choice of {path!r} already"


def overlay_noop(kind: str, target: str) -> str:
    return f"Overlay operation {kind} on {target!r} changes nothing: upstream already says the same"


def overlay_ended_supported(kind: str, target: str) -> str:
    return (f"Overlay operation {kind} on {target!r} has ended (until upstream supports it): "
            "upstream says the same now; remove it")


def overlay_ended(kind: str, target: str, until: str, version: str) -> str:
    return f"Overlay operation {kind} on {target!r} has ended: until {until}, and upstream is {version}; remove it"


def overlay_dangling(kind: str, target: str, upstream: str, version: str) -> str:
    return (f"Overlay operation {kind} on {target!r} is dangling: upstream {version} has no such id, "
            f"and the operation is written for upstream {upstream!r}")


def overlay_unknown_runner(id: str, known: Sequence[str]) -> str:
    return f"Neither upstream nor the overlay has runner {id!r}{did_you_mean(id, known)}"


def overlay_bad_until(text: str) -> str:
    return f"Invalid until {text!r}: expected an upstream version such as '0.34.0', or 'upstream supports it'"


# --- lead: a default outside its choice's window --------------------------------------------


def default_outside_choice(value: object, choice: str, default: str) -> str:
    """A default that is a choice with a window, the default beyond it (*choice*, *default*:
    `matrix.schema.window_text` of each)."""
    return (f"Default {value!r} is a choice {choice} only, but it is the default {default}: give the default a history "
            "that moves off it where the choice ends")


# --- overlays in a chain (issue 31: matrix._load_overlay) -----------------------------------

def overlay_unknown_earlier(name: str, earlier: Sequence[str]) -> str:
    if not earlier:
        return f"after = [{name!r}] names no overlay: none applies before this one"
    return f"after names {name!r}, which does not apply before this overlay{did_you_mean(name, earlier)}"


def overlay_conflict(kind: str, target: str, keys: Sequence[str], this: Tuple[str, str],
                     earlier: Tuple[str, str]) -> str:
    return (f"Overlays {this[0]!r} ({this[1]}) and {earlier[0]!r} ({earlier[1]}) both change "
            f"{', '.join(keys)} of {target!r} ({kind}): say after = [{earlier[0]!r}] in [overlay] of "
            f"{this[0]!r} to apply it after {earlier[0]!r}")


def overlay_origin(verb: str, overlay: str, place: str, why: str, link: Optional[str]) -> str:
    return f"{verb} by overlay {overlay!r} ({place}): {why}" + (f" ({link})" if link else "")


# --- lane overlay ---------------------------------------------------------------------------

def overlay_not_over(extends: str, upstream: str) -> str:
    """An overlay of a list (``matrix.load(upstream, overlays=[…])``, ``--overlay``) whose
    ``extends`` names another matrix than the one it is loaded over."""
    return (f"The overlay extends {extends!r}, and it is loaded over {upstream!r}: an overlay of a list "
            "extends the upstream matrix, or an overlay before it in the list")


def installed_overlay_missing(exc: BaseException) -> str:
    """An entry point of ``matrix.overlays`` whose module or attribute cannot be found."""
    return f"The installed overlay cannot be found: {type(exc).__name__}: {exc}"


def installed_overlay_no_file(path: str) -> str:
    return f"The installed overlay names {path!r}, which is not a file"


def no_installed_overlays(matrix: str) -> str:
    return f"No installed package declares an overlay of {matrix!r} (entry points matrix.overlays)"


def installed_overlay_line(name: str, overlay: str, distribution: Optional[str], file: str, extends: str,
                           refused: bool) -> str:
    """One line of ``matrix overlays``."""
    source = f" from {distribution}" if distribution else ""
    if refused:  # not read: neither its file nor what it extends is known
        return f"{name}{source}: refused (MATRIX_REFUSE_OVERLAYS or refuse=), not read"
    return f"{name}: {overlay!r}{source}, {file}, extends {extends!r}"


def overlay_removed_from_choice(overlay: str, why: str) -> str:
    """A runner an overlay removed from automatic choice, as resolve, explain() and check say it."""
    return f"removed from choice by overlay {overlay!r}: {why}"


# --- lane diff ---------------------------------------------------------------------------------


DIFF_VERSIONS_ONE_MATRIX = "--from-version and --to-version compare one matrix (--matrix), not OLD and NEW"
DIFF_VERSIONS_TOGETHER = "--from-version and --to-version go together"
DIFF_BASE_PACKAGED = ("--base compares a file of this repository at REV with the working tree; [tool.matrix] "
                      "names the packaged matrix: give the file, matrix diff --base REV FILE")
DIFF_BASE_ONE_FILE = "--base compares one file at REV with the working tree: give OLD only"
DIFF_SIDES = "Give OLD and NEW, --base REV, or --from-version and --to-version"


def diff_configs_format(form: str) -> str:
    return (f"--configs prints a table of configs (--format text or markdown) or one JSON document (--format json): "
            f"--format {form} annotates the matrix's lines, which a fleet of configs has none of")


#: ``--installed-overlays`` with a matrix read from git: the installed overlays are this
#: environment's, not the revision's.
REVISION_NOT_INSTALLED = ("--installed-overlays applies the overlays installed here, not those of a revision: "
                          "give them with --overlay over --matrix REV:PATH")


def git_unreadable(spec: str, why: str) -> str:
    """A ``REV:PATH`` git cannot show (git's own words)."""
    return f"Cannot read {spec!r} from git: {why}"


def diff_runner_renamed(before: str, after: str, removed: bool = False) -> str:
    """A runner whose id the new side renamed, the former id an alias (`matrix diff`); *removed*:
    the alias is removed at the new side's version (a request by it is a usage error)."""
    if removed:
        return (f"Runner {before!r}: id {before!r} → {after!r} (the former id an alias removed: a request for it is a "
                "usage error)")
    return f"Runner {before!r}: id {before!r} → {after!r} (the former id an alias: a request for it is served by {after!r})"


def diff_by_former_id(name: str, former: str) -> str:
    """A runner named *name* asked for by its former id *former* (`matrix diff`)."""
    return f"{name} by its former id {former!r}"


def diff_base_outside(file: str, top: str) -> str:
    """``matrix diff --base REV FILE`` where FILE lies outside the repository, which git reads the
    base from."""
    return (f"--base reads {file!r} from git, but it is outside the repository at {top!r}: name a file "
            f"of the repository, or compare two files (matrix diff OLD NEW)")


def diff_no_revision(spec: str, revision: str, names: Sequence[str]) -> str:
    """A side read from git (``REV:PATH``, ``--base REV``) whose revision git does not know;
    *names*: the branches, tags and remote branches, for a near miss."""
    return f"Cannot read {spec!r} from git: no revision {revision!r}{did_you_mean(revision, names)}"


def diff_region_more(count: int) -> str:
    """What a region's brief text leaves out (`matrix.diff.brief`)."""
    return f" and {count} more condition{'s' if count != 1 else ''} (the whole region: --format json)"


# --- lead: diff of [config] ------------------------------------------------------------------------


def diff_config_value(path: str, rejected: bool, error: str) -> str:
    """A config-rejected or config-accepted change (`matrix.diff`): *error*, the refusing side's message."""
    if rejected:
        return f"Config {path!r}: a value that was accepted is now a config error ({error})"
    return f"Config {path!r}: a value that was a config error is now accepted (it was: {error})"


def diff_config_field(path: str, removed: bool) -> str:
    """A config-field-removed or config-field-added change (`matrix.diff`): what each mode of
    `resolve` does with a value given for a field only one side declares."""
    if removed:
        return (f"Config {path!r}: no longer declared: resolve() ignores a value given for it; "
                f"resolve(strict=True) and matrix resolve refuse it")
    return (f"Config {path!r}: now declared: a value given for it is read (resolve() ignored it; "
            f"resolve(strict=True) and matrix resolve refused it)")


def diff_config_default(path: str, before: object, after: object) -> str:
    return f"Config {path!r}: default {before!r} → {after!r} (configs that leave it unset read the new one)"


# --- lane arith ---
# Arithmetic across fields (issue 30, F3: matrix._parser, _typecheck, _load_derive) and error
# kinds (F5: matrix._load_kinds, binding.raise_as_host).

def arith_needs_int(described: str, spelling: str) -> str:
    return f"{spelling!r} takes ints (int fields, int literals, arithmetic), not {described}"


def divides_by_zero(expression: str) -> str:
    return f"Division by zero whatever the config: {expression} (the divisor is the literal 0)"


def unknown_function(name: str) -> str:
    return f"{name}(...) is not a function of the language: only min(...) and max(...) are"


def function_arity(name: str) -> str:
    return f"{name}(...) takes two or more arguments"


EXPECTED_ARITH_END = "',' or ')' to close the arguments"


def derive_not_int(described: str) -> str:
    return f"derive takes an int expression (int fields, int literals, + - * // %, min, max), not {described}"


def derive_cycle(cycle: Sequence[str]) -> str:
    return "Derived fields read each other in a cycle: " + " -> ".join(cycle)


def derive_type(kind: str) -> str:
    return f"derive makes an int field, not {kind}: write type = \"int\""


def derive_keys(keys: Sequence[str]) -> str:
    return ("A derived field takes only type, derive and doc, not " + ", ".join(keys)
            + ": its value is computed, never read from a config")


def adjustment_derived(path: str, copied: bool = False) -> str:
    if copied:
        return (f"{path!r} is a derived field: an adjustment copies (from) a declared field only; "
                "write the expression in the condition and set the values it gives")
    return f"{path!r} is a derived field: its value is computed from its expression, so no adjustment sets it"


def derived_never_none(path: str) -> str:
    return (f"{path!r} is never None: its expression reads no field that can be None and divides by nothing that "
            "can be zero")


def raise_as_host_needs(found: str) -> str:
    return f"raise_as_host() takes a matrix.ResolutionError, not {found}"


# --- lane overlay ---

def overlay_copied_from(runner: str) -> str:
    """The verb of the origin of a cell a runner made ``from`` *runner* copied from it."""
    return f"copied from {runner}"


def installed_overlay_extends_overlay(entry: str, extends: str) -> str:
    return (f"The installed overlay {entry!r} extends the overlay file {extends!r}: an installed overlay extends "
            "its upstream matrix (by name or by a path to its features.toml); give the chain with overlays=[…] "
            "or --overlay instead")


def refused_overlay_unknown(name: str, source: str, installed: Sequence[str]) -> str:
    return (f"{source} refuses {name!r}, which no installed package declares in matrix.overlays"
            f"{did_you_mean(name, installed)} (installed: {quoted(installed) if installed else 'none'})")


# The docs of a composed matrix (matrix._docs_overlay, matrix._docs_tables): the mark's word
# and meaning, each kind of operation as the overlay table says it, an operation's state, and
# the overlay table's title, headers and introduction.
OVERLAY_MARK_WORD = "overlay"
OVERLAY_MARK_MEANING = "set by an overlay (its reason is in the cell's note)"
#: The mark's meaning in the capability and adjustments tables, whose cells carry no notes.
OVERLAY_MARK_ELSEWHERE = "set by an overlay (its reason is in the table “What this platform changes”)"
OVERLAY_KINDS = {
    "add-field": "adds the field", "add-runner": "adds the runner", "add-feature": "adds the feature",
    "change-field": "adds choices to the field",
    "change-feature": "changes the feature", "change-runner": "changes the runner",
    "change-order": "changes the order", "own-choice": "owns the runner choice",
}
OVERLAY_STATE_DANGLING = "dangling"
OVERLAY_STATE_NOOP = "changes nothing"
OVERLAY_TABLE_TITLE = "What this platform changes"
OVERLAY_TABLE_HEADERS = ("Overlay", "Operation", "Id", "Changes", "Why", "Where", "State")


def overlay_table_intro(upstream: str, version: str) -> str:
    return (f"The matrix is {upstream} {version}, extended from upstream by these operations, in the order "
            "they apply; each cell they set is marked in the support table, with its reason in its note, and each "
            "requirement and adjustment they set in the capability and adjustments tables.")


# --- lane diff ---


def diff_words_said(how: str, words: str) -> str:
    """What `matrix diff` observes of the words a config is warned (*how* ``warned``) or refused
    with (a deprecation's, a removal's, a runner's own deprecation's): the words quoted."""
    return f"{how}: {words!r}"


#: What `matrix diff` observes where a config is not warned (`diff_words_said`), or not refused
#: for the feature asked about.
DIFF_NOT_WARNED = "not warned"
DIFF_NOT_REFUSED_FOR_IT = "not refused for it"


def diff_words(kind: str, name: str, old: str, new: str) -> str:
    """A change of `matrix.diff` of the words a config is told: a feature's deprecation warning
    (*kind* ``deprecation``) or removal refusal (``removal``), of the feature named *name*, or a
    runner's own deprecation warning (``runner-deprecation``, *name* the runner's)."""
    what = {"deprecation": f"Warning that {name} is deprecated", "removal": f"Refusal that {name} is removed",
            "runner-deprecation": f"Warning that {name} is deprecated"}[kind]
    return f"{what}: {old} → {new}"


def diff_config_lines(name: str, problems: Sequence[Tuple[int, str]]) -> str:
    """Every line of a JSON-lines fleet that is not a config, one each (the first alone as before)."""
    if len(problems) == 1:
        return diff_config_line(name, *problems[0])
    listed = "".join(f"\n  {name}:{line}: {problem}" for line, problem in problems)
    return f"--configs: {name}: {len(problems)} lines are not JSON configs{listed}"


def diff_config_files(name: str, problems: Sequence[str]) -> str:
    """Every config file of a fleet folder that cannot be read, one each."""
    if len(problems) == 1:
        return problems[0]
    return f"--configs: {name}: {len(problems)} config files cannot be read" + "".join(f"\n  {p}" for p in problems)


DIFF_CONFIG_TOO_DEEP = "nests too deeply"


def diff_accepted(reason: str) -> str:
    return f"accepted: {reason}"


def overlay_order_dropped(id: str) -> str:
    """A change of an upstream order in an overlay that owns the choice, which drops it."""
    return (f"The overlay owns the choice ([overlay.choice]), which drops upstream's order {id!r}: "
            f"a change of it would change nothing; remove [change.orders.{id}]")


# --- lane sglang ---


def exempt_not_first(kind: str) -> str:
    return (f"Requirement {kind!r} is a chain: the runners it exempts are its first clause's exempt, so a later "
            "clause takes none")


def required_refused(reasons: Sequence[str]) -> str:
    """A config that fails a matrix-wide requirement without ``exempt``, refused whatever the
    runner: the requirements' reasons alone, in the order of the kinds."""
    return "; ".join(reasons)


def wide_requirement(kind: str, reason: str, number: str) -> str:
    """A matrix-wide requirement as a finding names it."""
    clause = f", clause {number} ({reason})," if number.isdigit() else f" ({reason})"
    return f"The matrix-wide requirement {kind!r}{clause}"


def failing_clause(reason: str, condition: str, kind: str, number: str, owner: Optional[str]) -> str:
    """A failed requirement clause as a no-runner or inconclusive finding names it: its reason and
    condition, its number in a chain of *kind*, and *owner* (a runner's name) for a runner's own
    requirement, so that a matrix-wide clause and a runner's that read alike are told apart."""
    whose = f"{owner}'s requirement {kind!r}" if owner is not None else f"{kind!r}"
    if number.isdigit():
        return f"'{reason}' (failing {condition}, clause {number} of {whose})"
    return f"'{reason}' (failing {condition}" + (f", {whose})" if owner is not None else ")")


def wide_unmet(what: str, condition: str, exempt: Sequence[str]) -> str:
    who = "no runner" if not exempt else "no runner but " + listing(list(exempt))
    return f"{what} is met by no config: {condition} never holds, so {who} can serve any config"


def wide_idle(what: str, condition: str, chained: bool) -> str:
    after = " that meets the clauses before it" if chained else ""
    return f"{what} never fails: {condition} holds for every config{after}; delete it, or check its condition"


def wide_acknowledged(reason: str) -> str:
    return "a matrix-wide requirement, which refuses it whatever the runner"


def wide_refuses(reasons: Sequence[str]) -> str:
    return "every runner refuses it: " + "; ".join(reasons)


def order_after_final(id: str, final: str) -> str:
    return (f"Order {id!r} is never reached: the order {final!r} before it has no when, so it applies wherever "
            "no order before it does; give it a when, or put this order first")


#: The condition of an order without ``when`` (its ``when`` reads ``True``), as said.
ORDER_ALWAYS = "wherever no order before it does"


def order_applies(name: str, when: str) -> str:
    """Why an order applies, as explain() and ``matrix resolve`` say it."""
    return f"{name}, which applies {ORDER_ALWAYS}" if when == "True" else f"{name}, because {when} holds"


def order_not_read(name: str) -> str:
    """explain()'s heading of the runners where one was asked for and an order applies."""
    return f"Runners, in the order {name!r} gives automatic choice (a runner asked for does not read it):"


def notice_without_message(notice: bool) -> str:
    if notice:
        return ("An adjustment without set is a notice, said wherever its condition holds: give it a message (it "
                "changes nothing, so there is no change to describe)")
    return ("says = 'always' needs a message: it is said wherever the condition holds, also where nothing changes, "
            "and then there is no change to describe")


def adjustment_never_says(name: str, why: str) -> str:
    """An adjustment that says its message always (``says = "always"``, or a notice) never does."""
    if why.startswith("unreached:"):
        reason = (f"no config that automatic choice gives to {why.partition(':')[2]}, or that a request for it "
                  "leaves with it, makes its condition hold")
    else:
        reason = _NEVER_WHY[why]
    return f"{name} is never said: {reason}; delete it, or check its condition"


# --- lane overlay (2) ---


def overlay_copied_note(runner: str, overlay: str, why: str, link: Optional[str]) -> str:
    """The docs' note of a cell an added runner copied from its ``from`` *runner*."""
    return f"copied from {runner} by overlay {overlay!r}: {why}" + (f" ({link})" if link else "")


# --- lane overlay ---


def overlay_append_and_replace(runner: str) -> str:
    """A change of a feature that appends a statement to a cell it also replaces."""
    return (f"The cell of {runner!r} is both replaced and appended to in one operation: keep one (append.{runner} "
            "adds a statement to the cell; support, lift and block replace it whole)")


def overlay_append_without_since(runner: str, value: object) -> str:
    return (f"A statement appended to the cell of {runner!r} is a table with since, such as "
            f"{{ status = \"yes\", since = \"0.34.0\" }}; got {value!r}")


def overlay_append_order(runner: str, since: str, status: str, last: str) -> str:
    """An appended statement that does not come after the last statement of the cell (*status*
    from *last*; from the same since, only one saying the same status is let through: a no-op)."""
    return (f"The statement appended to the cell of {runner!r} does not come after the cell's last statement, "
            f"{status!r} from {last!r}: since {since!r} is not after {last!r}")


# Overlays: operations on adjustments (matrix._load_overlay, matrix._overlay_origin).
OVERLAY_KINDS.update({"add-adjustment": "adds the adjustment", "change-adjustment": "changes the adjustment"})
OVERLAY_KINDS["add-refusal"] = "adds the refusal"


def overlay_remove_alone(value: object, others: Sequence[str]) -> str:
    """``remove`` of a change of an adjustment: ``true``, and nothing beside it."""
    if value is not True:
        return f"remove = true removes the adjustment; got {value!r}"
    return f"remove = true removes the adjustment, so nothing else can change it: drop {quoted(others)}"


def overlay_adjustment_origin(added: bool) -> str:
    """The verb of the origin of an adjustment an overlay added or changed."""
    return "added" if added else "changed"


# Overlays: changes of a matrix-wide requirement ([change.requires.KIND], matrix._load_overlay).
OVERLAY_KINDS["change-requirement"] = "changes the matrix-wide requirement"


def overlay_order_unset_when(order: str, after: Sequence[str]) -> str:
    """``unset = ["when"]`` of an order that others follow (the file format's rule:
    `order_after_final`)."""
    return (f"Without when, order {order!r} would apply wherever no order before it does, so "
            f"{listing([repr(a) for a in after])} after it would never be reached: an order without when must be "
            "the last")


def overlay_no_wide_entry(kind: str, wide: Sequence[str]) -> str:
    """``exempt`` or ``unset`` of a matrix-wide requirement upstream's ``[requires]`` does not have."""
    return (f"Upstream's [requires] has no entry of kind {kind!r}{did_you_mean(kind, wide)}: give its entry = … "
            "to add one")


def overlay_append_dropped(kind: str, target: str, runner: str) -> str:
    """A statement an operation appends that is not appended: the cell already says its status."""
    return (f"The statement overlay operation {kind} on {target!r} appends to the cell of {runner!r} changes "
            "nothing: the cell's last statement already says its status; remove it")

# --- lane diff ---


def diff_warned(kind: str, feature: str, old: str, new: str) -> str:
    """A ``partial-*``, ``opt-in-*`` or ``preference-notice-*`` change of `matrix.diff`: whether
    configs are warned, on each side, of *feature*'s partial or opt-in support by the runner
    that serves them, or of its preference passed over."""
    what = {"partial": f"{feature} is supported partly", "opt-in": f"{feature} is opt-in",
            "preference": f"the preference of {feature} is passed over"}[kind]
    return f"Warning that {what}: {old} → {new}"


def diff_entry_named(parts: Sequence[object]) -> str:
    """An entry of a matrix named in words, by the parts of its place (``("features", "fp8")``
    for ``$.features.fp8``): what a reviewer reads beside its line (`matrix.diff.Entry`)."""
    parts = list(parts)
    head, rest = (parts[0], parts[1:]) if parts else ("", [])
    tables = {"features": "feature", "adjustments": "adjustment", "orders": "order",
              "requirements": "requirement kind", "requires": "requirement", "config": "config field",
              "roles": "role"}
    if head in tables and len(rest) == 1:
        return f"{tables[str(head)]} {rest[0]!r}"
    if head == "matrix" and rest == ["runners"]:
        return "the runners of [matrix]"
    if head == "runners" and rest:
        runner = f"runner {rest[0]!r}"
        key = rest[1:]
        if not key:
            return runner
        if key[0] == "redirects" and len(key) == 2 and isinstance(key[1], int):
            return f"redirect {key[1] + 1} of {runner}"
        if key[0] == "requires" and len(key) == 2:
            return f"requirement {key[1]!r} of {runner}"
        if len(key) == 1 and key[0] in ("priority", "candidate", "aliases"):
            what = {"priority": "the priority", "candidate": "the candidacy", "aliases": "the aliases"}[str(key[0])]
            return f"{what} of {runner}"
    return place(parts)


def diff_entry(where: str, named: str, side: str) -> str:
    """An entry that causes a change, where it stands (*where*: ``FILE:LINE``) and on which side
    (``old``: as the old side has it, the base; ``new``: as the new side has it)."""
    return f"{where}: {named} {'as it was' if side == 'old' else 'as it is now'}"


def diff_alias(former: str, runner: str, old: str, new: str) -> str:
    """An ``alias-warning-*`` change of `matrix.diff`: a request by the former id *former* of the
    runner named *runner*, warned that the id is deprecated on each side or not."""
    return f"Asking for {diff_by_former_id(runner, former)}: {old} → {new}"


def diff_runner_asked(runner: str, old: str, new: str) -> str:
    """A ``runner-removed`` or ``-added`` change of `matrix.diff`: a request for the runner named
    *runner*, which one side does not have."""
    return f"Asking for {runner}: {old} → {new}"


#: What `matrix diff` observes of a request for a runner only one side has (`diff_runner_asked`):
#: served, refused (a `ResolutionError`), or no runner of that id (a usage error).
DIFF_RUNNER_SERVED = "served"
DIFF_RUNNER_REFUSED = "refused"
DIFF_NO_RUNNER = "no such runner (a usage error)"


#: What `matrix diff` observes of a request by a former id (`diff_alias`).
DIFF_ALIAS_WARNED = "warned: a deprecated id"
DIFF_ALIAS_REFUSED = "refused: the id names no runner"


def diff_served(runner: str, notes: Sequence[str], preferred_by: Optional[str] = None) -> str:
    """An answer that serves, as `matrix diff` says it: the runner's name, then how it came to
    serve (*notes*: ``fallback``, ``override``, ``redirected``), and the feature whose preference
    chose it (*preferred_by*, its name: another feature's preference warns otherwise)."""
    said = [*notes, *([f"preference of {preferred_by}"] if preferred_by is not None else [])]
    return runner + "".join(f" ({note})" for note in sorted(said))


def diff_refused(way: Sequence[Tuple[str, str]]) -> str:
    """A request's refusal as `matrix diff` says it: the way it went first (a redirect to a
    runner, an override giving it to one: ``(how, runner's name)``), then refused."""
    return "refused" + (f" ({', '.join(f'{how} to {name}' for how, name in way)})" if way else "")


def diff_words_varying(name: str, paths: Sequence[str]) -> str:
    """What `matrix diff` does not compare of an adjustment's warning: its words where a config's
    own value fills them (they vary over the region; the witness's are said)."""
    return (f"the words of the warning of {name} where a config's own value fills them ({', '.join(paths)}: "
            "the witness's are said)")


def diff_kind_said(kind: Optional[str]) -> str:
    """The exception a refusal raises as `matrix diff` says it: a requirement's kind, or (None)
    the matrix's own error (`ResolutionError.kind`; `matrix.binding.raise_as_host` raises it)."""
    return kind if kind is not None else "ResolutionError (no kind)"


def diff_refusal_kind(old: str, new: str) -> str:
    """A ``refusal-kind-changed`` change of `matrix.diff`: the exception a refusal raises, on each side."""
    return f"a refusal raises {old} → {new}"


#: A role's runner none fills (a ``role-runner-changed`` change of `matrix.diff`).
DIFF_ROLE_NONE = "none"
#: How a ``role-runner-changed`` change names its role (`matrix._diff_roles.role_of` reads it back).
DIFF_ROLE_SAID = "Runner of role '"


def diff_role_runner(role: str, name: str, old: str, new: str) -> str:
    """A ``role-runner-changed`` change of `matrix.diff`: the runner that fills the role *role*
    (named *name*), on each side, the base role's runner the same."""
    return f"{DIFF_ROLE_SAID}{role}' ({name}): {old} → {new}"


def diff_said(name: str, old: str, new: str) -> str:
    """A ``adjustment-warning-*`` change of `matrix.diff`: what the adjustment *name* says, on each side."""
    return f"Warning of adjustment {name}: {old} → {new}"


def diff_unreproduced(question: str, witness: Mapping[str, Any]) -> str:
    """A line of ``undecided``: the witness the search found for *question* answers alike on both
    sides when resolved (the finding is not said)."""
    import json

    return f"A witness did not reproduce ({question}): {json.dumps(witness)}"


#: What a side of ``matrix diff`` answers for a config its ``[config]`` rejects: the start of
#: `diff_config_error`, read back to tell such an answer.
DIFF_CONFIG_ERROR = "a config error"


def diff_config_error(error: object) -> str:
    """A side's answer for a config its ``[config]`` rejects, with the error's words."""
    return f"{DIFF_CONFIG_ERROR}: {error}"


def diff_said_value(level: Optional[str], message: Optional[str]) -> str:
    """What an adjustment says to a config: its ``adjusted`` warning (level, text), or nothing."""
    return "not warned" if message is None else f"warned ({level}): {message}"


def role_field(field: str, what: str) -> str:
    return (f"{field!r} holds a role's runner: it must be a nullable str whose choices are runner ids or former "
            f"ids ({what})")


def role_field_choice(choice: object, field: str) -> str:
    return f"{choice!r}, a choice of {field!r}, is not a runner id or a former id: a role's field names runners"


def role_field_twice(field: str, role: str) -> str:
    return f"{field!r} is already the field of role {role!r}: each role has its own field"


def role_base_follows(role: str) -> str:
    return f"Role {role!r} is the base (the first declared), which automatic choice fills: it follows no role"


def role_cycle(cycle: Sequence[str]) -> str:
    return "Roles that follow each other in a cycle: " + " → ".join(repr(r) for r in cycle)


def roles_not_first(kind: str) -> str:
    return (f"Requirement {kind!r} is a chain: the roles it applies in are its first clause's roles, so a later "
            "clause takes none")


def role_unknown(path: str, declared: Sequence[str]) -> str:
    role = path.split(".", 1)[1]
    if not declared:
        return f"Unknown role {role!r} in {path!r}: features.toml declares no [roles]"
    return f"Unknown role {role!r} in {path!r}{did_you_mean(role, declared)} (expected {quoted(declared)})"


def adjustment_role(path: str) -> str:
    return (f"{path!r} is the runner that fills a role, which an adjustment neither sets nor copies: set or "
            "copy the role's field")


def role_never_none(path: str) -> str:
    return f"{path!r} is never None: a runner fills it wherever a role is read (it is the base, or follows it)"


def role_before_choice(path: str) -> str:
    return (f"{path} is known only after the choice, and this is read before it or to make it: a role is read "
            "only by an adjustment after the choice (its when and message), a requirement staged after the choice "
            "or whose roles leave out the base (its condition and reason)")


def no_roles_declared(role: str) -> str:
    return (f"Unknown role {role!r}: features.toml declares no [roles], so a requirement applies wherever its "
            "runner serves")


# --- issue 30, F6: stages ---


def stages_without_choice(choice: str) -> str:
    return (f"The stages must include {choice!r}, the stage at which the runner is chosen (the others come "
            "before or after it)")


def stage_twice(stage: str) -> str:
    return f"Stage {stage!r} is listed twice: each stage is one step of the host, in order"


def stage_without_stages(stage: str) -> str:
    return f"Stage {stage!r} is not declared: [matrix] declares no stages (stages = [\"…\", \"choice\", \"…\"])"


def in_role(runner: str, role: Optional[str]) -> str:
    """A runner (by name) as a refusal of it says it where it fills *role*, a role other than the
    base (None: the base, or no role), so that the error names the role that refused (a user
    trial: "Paged is not valid for this config" named only the runner)."""
    return runner if role is None else f"{runner} in role {role!r}"


def role_refusal_said(role: str, runner: str, reason: str) -> str:
    """Where the runner filling a role other than the base refused (`Resolution.explain`)."""
    return f"Refused in role {role!r} (filled by {runner}): {reason}"


def staged_refusal_said(stage: str, runner: Optional[str], reasons: Sequence[str], role: Optional[str] = None) -> str:
    """Where a staged requirement refused (`Resolution.explain`): its stage, the runner it was
    checked for (None: before the choice) and the role it refused in (None: the base), its reasons."""
    of = "" if runner is None else f" for {in_role(runner, role)}"
    return f"Refused at stage {stage!r}{of}: {'; '.join(reasons)}"


def staged_idle(what: str, stage: str) -> str:
    return (f"{what}, at stage {stage!r}, never refuses: it holds for every config checked there; delete it, or "
            "check its condition")


def staged_unchecked(what: str, stage: str) -> str:
    return (f"{what}, at stage {stage!r}, is not searched: the conditions read through the adjustments before it "
            "grow too large to search, so whether it never refuses, or refuses every config it is checked on, is "
            "not said")


def staged_unmet(what: str, stage: str, runners: Sequence[str],
                 filling: Optional[Tuple[str, Sequence[str]]] = None) -> str:
    where = f" where {listing(list(runners))} serves" if runners else ""
    if filling is not None:  # a requirement of roles: (its runner's name, its roles)
        where += f" and {filling[0]} fills the {listing(list(filling[1]))} role"
    return f"{what}, at stage {stage!r}, refuses every config that reaches that stage{where}"


def stage_not_first(kind: str) -> str:
    return (f"Requirement {kind!r} is a chain: the stage it is checked at is its first clause's stage, so a later "
            "clause takes none")


def role_requirement_before_choice(stage: str, choice: str) -> str:
    return (f"A requirement of roles cannot be checked at stage {stage!r}, before {choice!r}: no runner fills a role "
            f"yet (give it {choice!r} or a later stage)")


def runner_requirement_before_choice(stage: str, choice: str) -> str:
    return (f"A runner's requirement cannot be checked at stage {stage!r}, before {choice!r}: no runner serves the "
            f"config yet (give it {choice!r} or a later stage, or make it matrix-wide: [requires] of features.toml)")


def exempting_requirement_before_choice(stage: str, choice: str) -> str:
    return (f"A matrix-wide requirement at stage {stage!r}, before {choice!r}, cannot exempt runners: no runner is "
            f"known yet (give it {choice!r} or a later stage, or leave out exempt)")


def redirect_stage_not_after_choice(stage: str, choice: str) -> str:
    return (f"A redirect at stage {stage!r} must come after {choice!r}: it acts on the runner that serves, chosen "
            f"or asked for (leave out stage for a redirect of the request, at {choice!r})")


def staged_redirect_applies(stage: str) -> str:
    return (f"A redirect at stage {stage!r} acts on whichever runner serves, chosen automatically or asked for: "
            "leave out applies")


def _served_by(runner: str, how: str) -> str:
    return {"chosen": f"Chose {runner!r} automatically", "asked": f"Asked for {runner!r}"}.get(how, f"Served by {runner!r}")


def redirected_at(runner: str, to: str, stage: str, because: str, how: str) -> str:
    """A redirect at a stage after the choice (issue 30, F6) that sent *runner* (*how* it came to
    serve: ``chosen`` automatically, ``asked`` for, or ``served`` for a request a feature
    overrode) to *to*: *because*, the values its condition read there."""
    return f"{_served_by(runner, how)}, redirected to {to!r} at stage {stage!r}: {because}"


def redirected_at_refused(runner: str, to: str, stage: str, refusal: str, how: str) -> str:
    return f"{_served_by(runner, how)}, redirected to {to!r} at stage {stage!r}; {refusal}"


def runner_adjustment_before_choice(stage: str, choice: str) -> str:
    return (f"A runner's adjustment cannot apply at stage {stage!r}, before {choice!r}: no runner serves the config "
            f"yet (give it {choice!r} or a later stage, or leave out runners)")


def staged_redirect_undecided(what: str, redirects: Sequence[str]) -> str:
    """``inconclusive``: a question that a redirect at a stage after the choice changes (issue 30,
    F6), which check does not read yet."""
    return (f"Could not decide {what}: a redirect at a stage after the choice sends the runner that serves to "
            f"another, which serves from that stage on ({', '.join(redirects)}), and these questions do not "
            "read it yet")


def staged_redirect_unread(what: str, redirect: str, role: bool) -> str:
    """``inconclusive``: a redirect at a stage after the choice (issue 30, F6) whose condition
    check cannot read at its stage: it reads a role (*role*), or the conditions read through the
    adjustments grow too large to search."""
    why = ("its condition reads a role, which check does not read at a stage yet" if role else
           "the conditions read through the adjustments before its stage grow too large to search there")
    return f"Could not decide {what}: a redirect at a stage after the choice ({redirect}) is read where {why}"


def staged_redirect_unconfirmed(what: str, redirect: str) -> str:
    """``inconclusive``: a question about a redirect at a stage after the choice (issue 30, F6)
    whose search found a config that resolving did not confirm."""
    return (f"Could not decide {what}: a config the search found where a redirect at a stage after the choice "
            f"({redirect}) holds at its stage and its runner serves did not confirm when resolved (an earlier "
            "redirect at a stage, a staged refusal, or a request redirected or overridden to its runner may stand "
            "before it)")


def always_redirect_undecided(what: str, redirects: Sequence[str]) -> str:
    """``inconclusive``: a question about automatic choice that redirects with ``applies =
    "always"`` change (issue 30, F6), which check does not read yet."""
    return (f"Could not decide {what}: a redirect that applies always sends automatic choice to a runner "
            f"validated as asked for ({', '.join(redirects)}), which these questions do not read yet")


def always_redirect_adjusted(what: str, redirects: Sequence[str]) -> str:
    """``inconclusive``: never-chosen, no-runner and the refusals where a redirect with ``applies
    = "always"`` sends automatic choice to a runner with adjustments of its own or staged
    requirements after the choice (issue 30, F6)."""
    return (f"Could not decide {what}: a redirect that applies always sends automatic choice to a runner "
            f"validated as asked for on its effective config, after the stages, which its own adjustments change, or "
            f"its staged requirements may refuse or its redirects at a stage send on first ({', '.join(redirects)}), and these questions read the config "
            "of choice")


#: How a no-runner finding says a runner a redirect that applies always passed over (issue 30, F6).
REDIRECT_PASSER = "a redirect that applies always"


def redirect_passes(runner: str, reached: str, to: str) -> str:
    """A runner of a no-runner set that a redirect with ``applies = "always"`` passed over: the
    choice reached *reached* and was sent to *to*, which the set refuses (issue 30, F6)."""
    if runner == reached:
        return f"{runner} is reached and redirected to {to}"
    return f"{runner} is passed over: automatic choice reaches {reached} first, redirected to {to}"


# --- matrix diff: the command's own words ([tool.matrix.diff], the report's lines: matrix._diff_cli)

def diff_settings_place(path: str) -> str:
    """Where ``[tool.matrix.diff]`` is, as its messages name it."""
    return f"{path}: [tool.matrix.diff]"


def diff_unknown_change_id(where: str, change_id: str, ids: Iterable[str]) -> str:
    return f"{where}: unknown change id {change_id!r}{did_you_mean(change_id, ids)}"


def diff_bad_level(where: str, change_id: Optional[str], level: str, levels: Sequence[str]) -> str:
    """A level that is none of *levels*: of *change_id*, or of the whole diff (None: fail-on's)."""
    what = f"the level of {change_id!r}" if change_id is not None else "the level"
    return f"{where}: {what} must be one of {quoted(levels)}, not {level!r}{did_you_mean(level, levels)}"


def diff_settings_unknown_key(where: str, key: str, keys: Sequence[str], entry: object = None) -> str:
    """A key ``[tool.matrix.diff]`` does not read: of the table, or of the accept entry of *entry* (an id)."""
    of = "" if entry is None else f" in the accept entry of {entry!r}"
    return f"{where}: unknown key {key!r}{of}{did_you_mean(key, keys)}"


def diff_accept_entry_shape(where: str, entry: object) -> str:
    return f"{where}: each accept entry is {{ id = ID, features = [GATE, …], reason = \"…\" }}, not {entry!r}"


def diff_accept_unknown_gate(where: str, entry: str, gate: str, known: Sequence[str]) -> str:
    return (f"{where}: the accept entry of {entry!r} names {gate!r}, no feature, "
            f"gate or adjustment of either matrix{did_you_mean(gate, known)}")


def diff_change_said(message: str, accepted: Optional[str]) -> str:
    """A change's message, with the accept entry's reason where one accepts it."""
    return message + (f" ({diff_accepted(accepted)})" if accepted else "")


def diff_same_cause(also: Sequence[str]) -> str:
    """The other change ids of a change's cause (the text report's ``also:`` line)."""
    return f"{', '.join(also)} (the same cause)"


def diff_verdict(failed: bool, fail_on: str) -> str:
    """The text report's last line."""
    return ("failed" if failed else "passed") + f" (--fail-on {fail_on})"


def diff_markdown_headline(headline: str) -> str:
    return f"**matrix diff**: {headline}"


def diff_markdown_more(count: int) -> str:
    """The summary of the folded rows of a Markdown comment."""
    return f"<details><summary>{count} more</summary>"


def diff_config_not_a_table(data: object) -> str:
    """A line of a JSON-lines fleet that is JSON, but not a table."""
    return f"not a table: {data!r}"


# --- lane-cli: matrix diff's formats and CI plumbing (issue 28) ---------------------------------


def diff_level_twice(change_id: str, first: str, second: str) -> str:
    """``--level ID=A --level ID=B`` with A and B different: neither is taken over the other."""
    return f"--level: {change_id!r} is given two levels, {first!r} and {second!r}: give one"


#: The SARIF rule ``undecided`` of ``matrix diff --format sarif``.
DIFF_SARIF_UNDECIDED = ("what the diff did not compare or could not decide: the answers of the configs it names "
                        "may differ unseen")


def diff_new_at(path: str, revision: str) -> str:
    """``matrix diff --base REV`` (or ``REV:PATH NEW``) where the revision has no file PATH: the
    matrix is new, and no config was served by it there."""
    return f"{path!r} is new at {revision!r}: nothing to compare"
