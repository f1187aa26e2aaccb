"""The model of a loaded matrix: frozen values for the schema, runners, features and support.

These are what :func:`matrix.load` returns and what the resolver, the renderers and the linter
read. They are built by the loader from validated file contents; building them by hand is
possible but skips the cross-checks.
"""

from __future__ import annotations

from typing import (TYPE_CHECKING, Any, Collection, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, Sequence,
                    Set, Tuple, Union, get_args)

import attrs
from packaging.version import Version

from . import _messages
from ._frozen import FrozenMap, frozen_map
from ._given import PREFIX as GIVEN
from ._record import Model, Record, _set
from ._versions import VersionLike, as_version
from .errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from .predicates import Predicate
    from .resolver import Resolution

__all__ = [
    "CLASS_SPEC",
    "FieldType",
    "FIELD_TYPES",
    "Status",
    "STATUSES",
    "Applies",
    "APPLIES",
    "RedirectApplies",
    "REDIRECT_APPLIES",
    "NOTHING",
    "Field",
    "Schema",
    "Runner",
    "Statement",
    "Deprecation",
    "Feature",
    "Forces",
    "Prefers",
    "Order",
    "Role",
    "Requirement",
    "RequirementKind",
    "Refusal",
    "Alias",
    "Redirect",
    "Adjustment",
    "AdjustmentLevel",
    "AdjustmentSays",
    "From",
    "Column",
    "ColumnRow",
    "ADJUSTMENT_LEVELS",
    "Matrix",
]


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover
    from typing import Pattern

    #: ``package.module:Class.Nested``: how ``[matrix] config_class`` and ``--from`` name a class
    #: (compiled when first read: `matrix._format`).
    CLASS_SPEC: Pattern[str]


def __getattr__(name: str) -> Any:
    if name == "CLASS_SPEC":
        from . import _format  # the words of the file format: the loader's, not needed to resolve

        return _format.CLASS_SPEC_RE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: The type of a ``[config]`` path (`Field.type`).
FieldType = Literal["bool", "int", "float", "str", "version", "list[str]", "list[int]", "section"]
FIELD_TYPES: Tuple[FieldType, ...] = get_args(FieldType)
#: What a runner says of a feature (`Statement.status`).
Status = Literal["yes", "no", "partial", "opt-in"]
STATUSES: Tuple[Status, ...] = get_args(Status)
#: When a gate is in force (`Feature.applies`): always, only in automatic choice, or only when a
#: runner is asked for (vLLM checks dual batch overlap one way when VLLM_USE_V2_MODEL_RUNNER
#: is unset and another when it is set).
Applies = Literal["always", "automatic", "asked"]
APPLIES: Tuple[Applies, ...] = get_args(Applies)
#: When a redirect is in force (`Redirect.applies`): for a request only, or for the runner
#: automatic choice takes too (issue 30, F6: `matrix._choice`).
RedirectApplies = Literal["asked", "always"]
REDIRECT_APPLIES: Tuple[RedirectApplies, ...] = get_args(RedirectApplies)
#: The levels an adjustment's message is logged at (`Adjustment.level`).
AdjustmentLevel = Literal["info", "warning"]
ADJUSTMENT_LEVELS: Tuple[AdjustmentLevel, ...] = get_args(AdjustmentLevel)
#: The statuses that keep a runner from being chosen automatically.
BLOCKING = frozenset({"no", "opt-in"})


class _Nothing:
    """The default of a field that has none (None is a real default for nullable fields)."""

    _instance = None

    def __new__(cls) -> _Nothing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOTHING"

    def __bool__(self) -> bool:
        return False


NOTHING = _Nothing()


#: A half-open range of versions, ``since`` ≤ version < ``until``; None leaves a side open.
Window = Tuple[Optional[Version], Optional[Version]]


def in_window(window: Window, version: Version) -> bool:
    since, until = window
    return (since is None or version >= since) and (until is None or version < until)


def covers(outer: Window, inner: Window) -> bool:
    """Whether every version of *inner* is in *outer* (a thing declared through *inner* reads
    only what exists through it)."""
    return ((outer[0] is None or (inner[0] is not None and inner[0] >= outer[0]))
            and (outer[1] is None or (inner[1] is not None and inner[1] <= outer[1])))


def window_text(window: Window) -> str:
    """``from 0.33.0``, ``until 0.32.0``, ``from 0.31.0 until 0.33.0``, or ``always``."""
    since, until = window
    parts = ([f"from {since}"] if since is not None else []) + ([f"until {until}"] if until is not None else [])
    return " ".join(parts) or "always"


@attrs.frozen(eq=False, repr=False)
class Field(Model):
    """One declared config path: its type and what values it takes."""

    path: str
    type: FieldType = attrs.field(validator=attrs.validators.in_(FIELD_TYPES))
    nullable: bool = False
    default: object = NOTHING
    choices: Optional[Tuple[object, ...]] = None
    min: Optional[float] = None
    max: Optional[float] = None
    doc: Optional[str] = None
    #: True for a section that no `[config]` key declares, only its fields.
    implied: bool = False
    #: True for a fact the host computes rather than reads from its config object (declared
    #: ``fact = true``, or below a section that is): it may be passed to ``resolve(...,
    #: facts=...)``, an object that lacks it takes the default, and the drift check skips it.
    fact: bool = False
    #: The host's config has the field from ``since`` and until ``until`` (None: always).
    since: Optional[Version] = None
    until: Optional[Version] = None
    #: choice → (since, until), for the choices that exist only from or until a version.
    choice_windows: Mapping[object, Window] = attrs.field(factory=FrozenMap, converter=frozen_map)
    #: Set in the schema a version's plan reads with (`Schema.reading_at`): the host's config
    #: has no such member at that version, so an object need not have the attribute (it reads
    #: as the default; a gate recording the removal still sees a config that sets it).
    gone: bool = False
    #: The default's history, ``((since, value), …)`` oldest first (``default = [{ value = 4 },
    #: { value = 8, since = "3.0" }]``); empty for a plain default. ``default`` is the value in
    #: force at the matrix's own version; `at` and `Schema.reading_at` give each version's.
    defaults: Tuple[Tuple[Optional[Version], object], ...] = ()
    #: ``classes = true`` (``str`` and ``list[str]`` fields): the host may hold a class where
    #: a name is expected (vLLM's ``logits_processors: list[str | type[LogitsProcessor]]``); a
    #: class reads as its qualified name, ``module.Qualname``.
    classes: bool = False
    #: Set in the schema a version's plan reads with (`Schema.reading_at`): the choices the
    #: host has not got at that version (before their ``since``, from their ``until`` on) that
    #: no gate in force then reads, each with the reason a config that sets it is refused.
    refused: Mapping[object, str] = attrs.field(factory=FrozenMap, converter=frozen_map)
    #: ``derive = "…"``: a derived int field, its value this expression (a node of
    #: `matrix._nodes`, derived fields it reads already put in place), never read from a config.
    derive: Optional[Any] = None

    @property
    def has_default(self) -> bool:
        return self.default is not NOTHING

    def default_at(self, version: Version) -> object:
        """The default in force at *version*: the last of the history whose ``since`` ≤
        *version* (before the first ``since``, none: None for a nullable field)."""
        if not self.defaults:
            return self.default
        found: object = None if self.nullable else NOTHING
        for since, value in self.defaults:
            if since is None or since <= version:
                found = value
        return found

    @property
    def window(self) -> Window:
        return (self.since, self.until)

    def choice_window(self, choice: object) -> Window:
        return self.choice_windows.get(choice, (None, None))

    def at(self, version: Version) -> Optional[Field]:
        """This field as the host has it at *version*: None when it does not exist then, else
        with only the choices that exist then."""
        if not in_window(self.window, version):
            return None
        if not self.choice_windows or self.choices is None:
            return attrs.evolve(self, default=self.default_at(version)) if self.defaults else self
        choices = tuple(c for c in self.choices if in_window(self.choice_window(c), version))
        default = self.default_at(version)
        default = default if default in choices or default is NOTHING or default is None else NOTHING
        return attrs.evolve(self, choices=choices, default=default, choice_windows=FrozenMap())

    @property
    def item_type(self) -> Optional[str]:
        """``str`` for ``list[str]``; None for a type that is not a list."""
        return self.type[5:-1] if self.type.startswith("list[") else None


@attrs.frozen(eq=False, repr=False)
class Schema(Model):
    """What predicates may read: every declared path, and the sections they imply."""

    fields: Mapping[str, Field] = attrs.field(factory=FrozenMap, converter=frozen_map)
    #: The derived fields (``derive = "…"``: `Field.derive`), by path, in file order. They are
    #: not among `fields` (no config holds them: what reads a config's fields never sees them);
    #: a predicate reads them (`derived_field`), as its expression.
    derivations: Mapping[str, Field] = attrs.field(factory=FrozenMap, converter=frozen_map)
    #: The runner that fills each role (``role.<id>``, issue 30 F1: `matrix._roles`), by path: a
    #: str whose choices are the runner ids, None only for a role that may have no runner. Not
    #: among `fields` either: no config holds it, and only a rule read after the choice reads it.
    roles: Mapping[str, Field] = attrs.field(factory=FrozenMap, converter=frozen_map)

    @property
    def derived(self) -> Tuple[str, ...]:
        return tuple(self.derivations)

    def derived_field(self, path: str) -> Optional[Field]:
        """The derived field at *path*, if one is declared there; at ``given.PATH``, PATH's with
        its expression read as given (issue 30, F8: `matrix._given`)."""
        if not self.derivations:
            return None
        found = self.derivations.get(path)
        if found is None and path.startswith(GIVEN):
            from ._given import prefixed

            found = self.derivations.get(path[len(GIVEN):])
            if found is not None:
                assert found.derive is not None
                found = attrs.evolve(found, path=path, derive=prefixed(found.derive))
        return found

    def __contains__(self, path: object) -> bool:
        return path in self.fields

    def __getitem__(self, path: str) -> Field:
        return self.fields[path]

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields.values())

    def __len__(self) -> int:
        return len(self.fields)

    def get(self, path: str) -> Optional[Field]:
        """The field at *path*; at ``given.PATH`` (the value as given, issue 30 F8), PATH's, at
        that path (what is said of it names ``given.PATH``)."""
        found = self.fields.get(path)
        if found is None and path.startswith(GIVEN):
            read = self.fields.get(path[len(GIVEN):])
            return None if read is None else attrs.evolve(read, path=path)
        if found is None and self.roles:
            return self.roles.get(path)
        return found

    @property
    def declared(self) -> Tuple[Field, ...]:
        """The fields the file declares (implied sections left out), in file order."""
        return tuple(f for f in self.fields.values() if not f.implied)

    @property
    def versioned(self) -> bool:
        """Whether any field or choice exists only from or until a version."""
        return any(f.since is not None or f.until is not None or f.choice_windows or f.defaults for f in self)

    def reading_at(self, version: Version, gates: Iterable[Feature] = ()) -> Schema:
        """The schema the resolver reads configs with at *version*: every field ever declared,
        those the host has not got then marked `Field.gone`; a choice the host has not got
        then is refused (`Field.refused`), unless one of *gates* compares with it: the gates
        that record a removal at *version* (`matrix._compile`), which refuse the config
        themselves (`RemovedFeatureError`); the loader lets no other feature compare with a
        choice outside its window, and a runner's requirement that does opens none."""
        if not self.versioned:
            return self
        compared = _compared(gates)
        fields = {}
        for path, field in self.fields.items():
            if field.at(version) is None or field.defaults:
                # Each field with the default of *version* (a gone one reads as it).
                field = attrs.evolve(field, gone=field.at(version) is None, default=field.default_at(version))
            if field.choice_windows and field.choices is not None:
                now = tuple(c for c in field.choices if in_window(field.choice_window(c), version)
                            or (path, c) in compared)
                refused = {c: _messages.choice_outside_window(c, now, str(version), window_text(field.choice_window(c)))
                           for c in field.choices if c not in now}
                if refused:
                    field = attrs.evolve(field, choices=now, refused=refused)
            fields[path] = field
        return Schema(fields, self.derivations, self.roles)

    def at(self, version: Version) -> Schema:
        """The schema as the host has it at *version*: the fields and choices that exist then
        (strategies draw from it; the resolver reads every field ever declared, so that a gate
        recording a removal still sees what a config sets)."""
        if not self.versioned:
            return self
        now = {path: field.at(version) for path, field in self.fields.items()}
        fields = {}
        for path, field in now.items():
            parts = path.split(".")
            sections = (".".join(parts[:end]) for end in range(1, len(parts)))
            # A field exists when it does and so does every section above it that is declared.
            if field is not None and all(now.get(section, field) is not None for section in sections):
                fields[path] = field
        return Schema(fields, self.derivations, self.roles)


def _compared(gates: Iterable[Feature]) -> Set[Tuple[str, object]]:
    """``(path, value)`` for each literal *gates* compare a path with (``path == 'x'``,
    ``path in ['x', 'y']``, either side)."""
    from ._nodes import Compare, ListLiteral, Literal as Constant, Path, walk

    found: Set[Tuple[str, object]] = set()
    for gate in gates:
        for node in walk(gate.when.node):
            if not isinstance(node, Compare):
                continue
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(side, Path):
                    items = [other] if isinstance(other, Constant) else list(other.items) if isinstance(
                        other, ListLiteral) else []
                    found.update((side.name, item.value) for item in items if isinstance(item, Constant))
    return found


#: The runner of a matrix-wide requirement (``[requires]`` of features.toml), and the first part of
#: its gate ids (``*:KIND``): no runner id can be it.
WIDE = "*"


@attrs.frozen(eq=False, repr=False)
class RequirementKind(Model):
    """A kind of requirement (``[requirements.<id>]``): one row of the capability table, with
    the reason shown when a runner's requirement of this kind fails, unless the runner gives its own."""

    id: str
    name: str
    reason: Optional[str] = None
    #: ``kind = "ValueError"``: the built-in exception the host raises when a requirement of
    #: this kind fails (`matrix._error_kinds.ERROR_KINDS`), unless the clause names its own.
    error_kind: Optional[str] = None
    #: ``alone = true``: a runner's refusal by a requirement of this kind says its reason alone
    #: (the host's own sentence), not "NAME is not valid for this config: …".
    alone: bool = False


@attrs.frozen(eq=False, repr=False)
class Requirement(Model):
    """One clause of what a runner requires: *condition* must hold for the runner to serve a
    config, else *reason* is what the user reads. Clauses of one kind form a chain: only the
    first that fails is reported (vLLM's ``supports_combination`` returns one string)."""

    runner: str
    kind: str
    condition: Predicate
    reason: str
    doc: Optional[str] = None
    #: The built-in exception the host raises when this clause fails (``kind = "…"`` on the
    #: clause or its requirement kind; `ResolutionError.kind`), or None.
    error_kind: Optional[str] = None
    #: For a matrix-wide requirement (``[requires]`` of features.toml; *runner* is ``"*"``): the
    #: runners it is not required of (``exempt``), in the order given.
    exempt: Tuple[str, ...] = ()
    #: The roles (``[roles]``, issue 30 F1) it applies in, where its runner fills one of them
    #: (``roles`` on a runner file's clause; empty: every role). One that leaves out the base role
    #: is no gate: it is in `Runner.role_requires`.
    roles: Tuple[str, ...] = ()
    #: The stage of ``[matrix] stages`` it is checked at (``stage`` on a clause, a chain's first;
    #: issue 30, F6: `matrix._staged`), or None: at ``choice``, a gate. One at another stage is
    #: no gate: it is in `Matrix.staged`.
    stage: Optional[str] = None
    #: Its kind's ``alone``: a refusal by it says its reason alone (as a matrix-wide one exempting
    #: no runner always does).
    alone: bool = False

    @property
    def wide(self) -> bool:
        """Whether it is a matrix-wide requirement, required of every runner but the exempt."""
        return self.runner == WIDE


@attrs.frozen(eq=False, repr=False)
class Alias(Model):
    """A former id of *runner* (``aliases`` in its file) that a request may still use: from
    ``deprecation.since`` on with a warning of kind ``deprecated-alias``, refused from
    ``deprecation.remove_in`` on (`UsageError`, naming the new id)."""

    id: str
    runner: str
    deprecation: Deprecation


@attrs.frozen(eq=False, repr=False)
class Redirect(Model):
    """A request for *runner* that becomes a request for *to* where *when* holds (``redirects``
    in the runner's file), while ``since`` ≤ version < ``until``; a warning of kind
    ``redirected`` says so (*message*, or the default wording with the values read)."""

    runner: str
    to: str
    when: Predicate
    message: Optional[str] = None
    since: Optional[Version] = None
    until: Optional[Version] = None
    #: Its place in the runner's ``redirects`` (the first that holds applies).
    index: int = 0
    #: ``asked``: a request for *runner* only; ``always``: also where automatic choice takes it.
    applies: RedirectApplies = "asked"
    #: The stage after ``choice`` it acts at (issue 30, F6: `matrix._stages`), on whichever runner
    #: serves (so ``applies`` is ``always``), or None: at the choice, on the request.
    stage: Optional[str] = None

    @property
    def window(self) -> Window:
        return (self.since, self.until)


def asked_only(candidate: object) -> bool:
    """Whether a runner's candidacy (a `Predicate`, or its text) is ``False`` as written: a runner
    asked for only, as its file (or an overlay's ``choice = false``) says outright."""
    return candidate is not None and str(candidate) == "False"


@attrs.frozen(eq=False, repr=False)
class Runner(Model):
    """One runner (a backend, an executor, a model runner…) that features may be served by."""

    id: str
    name: str
    priority: int
    description: Optional[str] = None
    links: Tuple[str, ...] = ()
    #: The runner file it was loaded from, if any.
    file: Optional[str] = attrs.field(default=None, eq=False, repr=False)
    #: What it requires of a config (``[requires]`` in its file), in the order of the kinds.
    requires: Tuple[Requirement, ...] = ()
    #: When it is a candidate for automatic choice (None: always); asked for, it is tried anyway.
    candidate: Optional[Predicate] = None
    #: Its former ids (``aliases`` in its file).
    aliases: Tuple[Alias, ...] = ()
    #: Where a request for it goes to another runner (``redirects``), in declaration order.
    redirects: Tuple[Redirect, ...] = ()
    #: Its requirements that apply only in roles other than the base (``roles`` on a clause,
    #: issue 30 F1): checked where it fills one of those roles (`matrix._roles`), no gate of choice.
    role_requires: Tuple[Requirement, ...] = ()
    #: The text of its runner file, if any (where `matrix check` finds the line of a finding).
    text: Optional[str] = attrs.field(default=None, eq=False, repr=False)
    #: Its own deprecation (``deprecated`` in its file): from ``since`` on a resolution that ends
    #: on it warns (``deprecated-runner``); it serves all the same, until its file is removed.
    #: ``replacement`` is another runner's id or words, ``removed`` is always False.
    deprecated: Optional[Deprecation] = None


class Role(Record):
    """One selected value of a config (``[roles.<id>]``, issue 30 F1): the config field that holds
    the runner asked for in that role, and the role whose runner it takes where that field is
    None (`follows`). The first role a matrix declares is its base: automatic choice fills it.
    A plain slotted record, not an attrs class: `import matrix` creates it, and a matrix
    without roles (the default one) should not pay attrs' cost for it (`matrix._record`)."""

    __slots__ = ("id", "name", "field", "follows")
    id: str
    name: str
    #: The ``[config]`` field (a nullable str whose choices are runner ids or former ids).
    field: str
    #: The role whose runner this one takes where its field is None (None: it is then empty).
    follows: Optional[str]

    def __init__(self, id: str, name: str, field: str, follows: Optional[str] = None) -> None:
        _set(self, "id", id)
        _set(self, "name", name)
        _set(self, "field", field)
        _set(self, "follows", follows)


@attrs.frozen(eq=False, repr=False)
class Order(Model):
    """An order of automatic choice that applies when *when* holds (``[orders.<id>]``): the
    runners it lists first, in that order, then the others by priority. Without *fallback*
    (``fallback = false``) its first candidate is chosen and then validated: a refusal is the
    answer (`NoRunnerError`), never a move to the next runner."""

    id: str
    name: str
    when: Predicate
    runners: Tuple[str, ...]
    fallback: bool = True

    def tried(self, by_priority: Sequence[str]) -> Tuple[str, ...]:
        """The runner ids in the order automatic choice tries them under this order: those it
        lists, then the rest of *by_priority* (every runner id, highest priority first)."""
        return (*self.runners, *(r for r in by_priority if r not in self.runners))


class Column(Record):
    """A question the matrix's users ask of every runner (``[docs.columns.<id>]``): ``when``,
    the configs it is about, whose answers the columns table derives (`matrix._columns`); or
    ``declared``, row id → True / False, a fact no rule reads (a kernel's capability), shown
    as declared. Docs only: resolve never reads it. A plain slotted record, as `Role` is: a
    matrix without columns pays nothing for it at import."""

    __slots__ = ("id", "name", "when", "declared", "doc")
    id: str
    name: str
    when: Optional[Predicate]
    declared: Mapping[str, bool]
    doc: Optional[str]

    def __init__(self, id: str, name: str, when: Optional[Predicate] = None,
                 declared: Optional[Mapping[str, bool]] = None, doc: Optional[str] = None) -> None:
        _set(self, "id", id)
        _set(self, "name", name)
        _set(self, "when", when)
        _set(self, "declared", frozen_map(dict(declared or {})))
        _set(self, "doc", doc)


class ColumnRow(Record):
    """A row of the columns table (``[docs.rows.<id>]``): a runner asked for, on the configs
    ``where`` holds (its hardware, its kind of model); without ``[docs.rows]``, one per runner,
    every config."""

    __slots__ = ("id", "runner", "name", "where")
    id: str
    runner: str
    name: str
    where: Optional[Predicate]

    def __init__(self, id: str, runner: str, name: str, where: Optional[Predicate] = None) -> None:
        _set(self, "id", id)
        _set(self, "runner", runner)
        _set(self, "name", name)
        _set(self, "where", where)


@attrs.frozen(eq=False, repr=False)
class Statement(Model):
    """What one runner says of one feature from version ``since`` on (None: always)."""

    status: Status = attrs.field(validator=attrs.validators.in_(STATUSES))
    note: Optional[str] = None
    links: Tuple[str, ...] = ()
    since: Optional[Version] = None


@attrs.frozen(eq=False, repr=False)
class Deprecation(Model):
    """A gate's lifecycle: deprecated from ``since``, removed from ``remove_in``. ``removed``
    records that the host did remove it: the gate stays in the file as the record, and configs
    that use it are refused with the replacement. ``since == remove_in`` is a removal without a
    deprecation period."""

    since: Version
    remove_in: Optional[Version] = None
    message: Optional[str] = None
    replacement: Optional[str] = None
    removed: bool = False

    def is_removed(self, version: Version) -> bool:
        return self.remove_in is not None and version >= self.remove_in

    @property
    def without_period(self) -> bool:
        """Removed in the release that deprecated it: users had no release of warnings."""
        return self.remove_in is not None and self.remove_in == self.since


@attrs.frozen(eq=False, repr=False)
class Forces(Model):
    """A feature that only one runner may serve, whatever was asked: every other runner says
    ``no`` to it (so automatic choice takes *runner* or finds no runner), and a request for
    another runner is an error (*message*, or the default wording), or, with *override*, is
    overridden: *runner* serves, and a warning of kind ``override`` says so (hosts log it at
    info level, as vLLM does for watermarking)."""

    runner: str
    override: bool = False
    message: Optional[str] = None


@attrs.frozen(eq=False, repr=False)
class Prefers(Model):
    """A feature that changes the order of automatic choice: *runner* is tried first when the
    feature is active (a request for a runner still wins). With *outright*, *runner* is chosen
    whatever blocks it (and a blocked one is no runner); without, it is chosen when free, else
    the usual order applies. *message* is the notice shown when it is chosen (kind
    ``preference``, logged at info level), *skipped* the one shown when it is passed over;
    both are templates (`matrix._templates.PREFERENCE`) that may name the values the
    feature's condition reads."""

    runner: str
    outright: bool = False
    message: Optional[str] = None
    skipped: Optional[str] = None


@attrs.frozen(eq=False, repr=False)
class Refusal(Model):
    """Combinations no runner is meant to serve, acknowledged: any gate of each list of
    ``together``, active at once (``[refusals.<id>]`` in features.toml)."""

    id: str
    reason: str
    together: Tuple[Tuple[str, ...], ...]
    links: Tuple[str, ...] = ()

    def covers(self, gates: Iterable[str]) -> bool:
        """Whether the set of gate ids *gates* is one of these combinations: each gate is in a
        list, and each list has a gate."""
        members = set().union(*self.together)
        return all(g in members for g in gates) and all(any(g in part for g in gates) for part in self.together)


@attrs.frozen(eq=False, repr=False)
class From(Model):
    """An adjustment's value that copies another field's current value (``{ from = "path" }``),
    scaled by *times* when given (``{ from = "path", times = 0.85 }``: Python's product; a None
    stays None)."""

    path: str
    times: Union[int, float, None] = None


#: When an adjustment's message is said (``says``): where it changes a value, or always.
AdjustmentSays = Literal["changes", "always"]
ADJUSTMENT_SAYS: Tuple[AdjustmentSays, ...] = get_args(AdjustmentSays)


@attrs.frozen(eq=False, repr=False)
class Adjustment(Model):
    """A declared change of config values (``[adjustments.<id>]``): where *when* holds, each
    path of *set* takes its value (a constant, or `From` another path). With no *runners* it
    applies before the choice, to every config; else only once one of *runners* serves it.
    Without *override* a path is set only where it reads None. *message* is a template:
    ``{dotted.path}`` is that path's value as the adjustment found it (see `matrix._adjust`)."""

    id: str
    name: str
    when: Predicate
    set: Mapping[str, object] = attrs.field(converter=frozen_map)
    runners: Tuple[str, ...] = ()
    override: bool = True
    level: AdjustmentLevel = attrs.field(default="warning", validator=attrs.validators.in_(ADJUSTMENT_LEVELS))
    message: Optional[str] = None
    since: Optional[Version] = None
    until: Optional[Version] = None
    links: Tuple[str, ...] = ()
    #: When its message is said (`ADJUSTMENT_SAYS`): ``changes``, where it changes a value;
    #: ``always``, wherever its ``when`` holds on the config it finds (a notice, without *set*).
    says: AdjustmentSays = attrs.field(default="changes", validator=attrs.validators.in_(ADJUSTMENT_SAYS))
    #: The stage of ``[matrix] stages`` it applies at (issue 30, F6: `matrix._stages`); None: its
    #: place without stages (before the choice, or the runner's right after it).
    stage: Optional[str] = None

    def in_force(self, version: Version) -> bool:
        """Whether this adjustment exists at *version* (``since`` ≤ version < ``until``)."""
        return in_window((self.since, self.until), version)


_NEVER = Statement("no")


@attrs.frozen(eq=False, repr=False)
class Feature(Model):
    """One gate: a named feature, the condition under which a config uses it, its support."""

    id: str
    name: str
    when: Predicate
    #: runner id → history of statements, ordered by ``since`` (read-only).
    support: Mapping[str, Tuple[Statement, ...]] = attrs.field(converter=frozen_map)
    note: Optional[str] = None
    links: Tuple[str, ...] = ()
    since: Optional[Version] = None
    until: Optional[Version] = None
    deprecated: Optional[Deprecation] = None
    #: The heading the docs show the feature under ("Speculative decoding"), if any.
    group: Optional[str] = None
    #: The runner a config that uses this feature must run on (``forces`` in features.toml).
    forces: Optional[Forces] = None
    #: The runner automatic choice tries first for a config that uses it (``prefers``).
    prefers: Optional[Prefers] = None
    #: ``automatic``: the gate is in force only in automatic choice; ``asked``: only when a
    #: runner is asked for (including a request a forced runner overrides).
    applies: Applies = attrs.field(default="always", validator=attrs.validators.in_(APPLIES))
    #: For a gate derived from the runners rather than declared (see `Matrix.gates_at`): the
    #: `Requirement` that fails, the `Runner` that is a candidate, the `Order` that applies, the
    #: `Redirect` that holds, or the `Adjustment` that may apply.
    origin: Union[None, Requirement, Runner, Order, Redirect, Adjustment] = attrs.field(default=None, repr=False)

    def in_force(self, version: Version) -> bool:
        """Whether this gate exists at *version* (``since`` ≤ version < ``until``)."""
        return in_window((self.since, self.until), version)

    def removed_at(self, version: Version) -> bool:
        """Whether this gate only records a removal at *version*: configs that use it are
        refused before any runner is chosen."""
        return self.deprecated is not None and self.deprecated.is_removed(version)

    def statement(self, runner: str, version: Version) -> Statement:
        """The statement in force for *runner* at *version*: the last whose ``since`` ≤ it.

        Before the first ``since`` of a history, a runner does not support the feature.
        """
        found = _NEVER
        for statement in self.support[runner]:
            if statement.since is None or statement.since <= version:
                found = statement
            else:
                break
        return found

    def status(self, runner: str, version: Version) -> Status:
        return self.statement(runner, version).status


@attrs.frozen(eq=False, repr=False)
class Matrix(Model):
    """A loaded matrix: runners in priority order, features in declaration order. Two
    matrices are equal when everything loaded is (the text, names and paths included)."""

    name: str
    version: Version
    runners: Tuple[Runner, ...]
    features: Tuple[Feature, ...]
    schema: Schema
    #: The features.toml it was loaded from (as named to `load`), if any.
    file: Optional[str] = None
    #: The text of features.toml, when it was loaded from one (for line numbers).
    text: Optional[str] = attrs.field(default=None, repr=False)
    #: ``"MODULE:CLASS"``: the host's config class the ``[config]`` schema describes
    #: (``[matrix] config_class``), which ``matrix check`` compares the schema with.
    config_class: Optional[str] = None
    #: Combinations no runner is meant to serve (``[refusals]``): `matrix check` acknowledges them.
    refusals: Tuple[Refusal, ...] = ()
    #: The kinds of runner requirements (``[requirements]``), in the order they are checked.
    requirement_kinds: Tuple[RequirementKind, ...] = ()
    #: Orders of automatic choice that depend on the config (``[orders]``); the first that applies wins.
    orders: Tuple[Order, ...] = ()
    #: Matrix-wide requirements (``[requires]`` of features.toml): required of every runner but
    #: each clause's `Requirement.exempt`, in the order of the kinds.
    requires: Tuple[Requirement, ...] = ()
    #: ``[matrix] default_support``: the status of a runner a support table leaves out (already
    #: filled into each feature's `support`; kept for the editor schema).
    default_support: Optional[str] = None
    #: Declared changes of config values (``[adjustments]``), in declaration order.
    adjustments: Tuple[Adjustment, ...] = ()
    #: The selected values of one config (``[roles]``, issue 30 F1), the base first; empty: one
    #: implicit role, the runner.
    roles: Tuple[Role, ...] = ()
    #: ``[matrix] stages``, the host's order of steps (issue 30, F6: `matrix._stages`), one of them
    #: ``"choice"``; empty: today's order.
    stages: Tuple[str, ...] = ()
    #: The requirements staged at a stage other than ``choice`` (issue 30, F6: `matrix._staged`),
    #: runners' and matrix-wide ones, in the order they are checked: no gate of choice, each
    #: checked for the config at its stage.
    staged: Tuple[Requirement, ...] = ()
    #: The matrix's own sentences (``[messages]``), said instead of the engine's: template text
    #: by its place in the table (``fallback``, ``runners.v2.does_not_support``).
    messages: Mapping[str, str] = attrs.field(factory=FrozenMap, converter=frozen_map)
    #: The questions the columns table answers (``[docs.columns]``), and its rows
    #: (``[docs.rows]``; empty: one per runner): docs only (`matrix._columns`).
    columns: Tuple[Column, ...] = ()
    column_rows: Tuple[ColumnRow, ...] = ()
    #: The `matrix._overlay.Overlay` this matrix was composed by (None: not an overlay's).
    overlay: Any = attrs.field(default=None, eq=False, repr=False)
    # Derived from the fields above, so not part of equality.
    _runner_index: Dict[str, Runner] = attrs.field(init=False, repr=False, eq=False)
    _feature_index: Dict[str, Feature] = attrs.field(init=False, repr=False, eq=False)
    _alias_index: Dict[str, Alias] = attrs.field(init=False, repr=False, eq=False)
    _newest_release: Optional[Version] = attrs.field(init=False, repr=False, default=None, eq=False)
    #: The engine's slot: `matrix._derived` keeps what it derives from this matrix there (the
    #: compiled plans), for as long as the matrix lives; nothing here reads it.
    _engine: Any = attrs.field(init=False, repr=False, default=None, eq=False)
    #: Whether `resolve` takes its own path (roles, staged requirements or redirects): one test on its hot path.
    _branch: bool = attrs.field(init=False, repr=False, default=False, eq=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_branch", bool(self.roles or self.staged or any(
            d.stage is not None for r in self.runners for d in r.redirects)))
        object.__setattr__(self, "_runner_index", {r.id: r for r in self.runners})
        object.__setattr__(self, "_feature_index", {f.id: f for f in self.features})
        object.__setattr__(self, "_alias_index", {a.id: a for r in self.runners for a in r.aliases})

    # Pickled (a cache entry, a worker process) as the value alone: what is derived from it is
    # rebuilt where it is needed.
    def __getstate__(self) -> Dict[str, object]:
        return {f.name: getattr(self, f.name) for f in attrs.fields(Matrix) if f.init}

    def __setstate__(self, state: Dict[str, object]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_newest_release", None)
        object.__setattr__(self, "_engine", None)
        self.__attrs_post_init__()

    def runner(self, id: str) -> Runner:
        """The runner with this id; raises `UsageError` naming the known ones (for a former id,
        the runner it names now: `alias` reads a former id)."""
        try:
            return self._runner_index[id]
        except (KeyError, TypeError):
            alias = self.alias(id)
            if alias is not None:
                raise UsageError(_messages.former_id(id, alias.runner)) from None
            raise UsageError(_messages.unknown_runner(id, list(self._runner_index))) from None

    def alias(self, id: str) -> Optional[Alias]:
        """The `Alias` a former runner id is (None: *id* is not one)."""
        try:
            return self._alias_index.get(id)
        except TypeError:
            return None

    def feature(self, id: str) -> Feature:
        return self._feature_index[id]

    @property
    def newest_release(self) -> Version:
        """The newest release the file knows of: its ``version``, or a later version it
        already names (a planned ``remove_in``, a ``since`` to come)."""
        found = self._newest_release
        if found is None:
            found = max(named_versions(self))
            object.__setattr__(self, "_newest_release", found)
        return found

    def release(self, version: Optional[VersionLike] = None) -> Version:
        """*version* as a `Version` (the matrix's own by default), checked to be one the file
        can speak of: not past `newest_release`. A version before every ``since`` is answered
        by what held before them (the statements without ``since``, no gate that begins later).

        :raises UsageError: *version* is not a version, or is past the newest release the
            file knows of (what a later release does it cannot know).
        """
        if version is None:
            return self.version
        v = as_version(version)
        if v > self.newest_release:
            raise UsageError(_messages.version_past(str(v), str(self.newest_release), self.file))
        return v

    def features_at(self, version: Optional[VersionLike] = None) -> Tuple[Feature, ...]:
        """The gates in force at *version* (the matrix's own version by default)."""

        v = self.version if version is None else as_version(version)
        return tuple(f for f in self.features if f.in_force(v))

    def adjustments_at(self, version: Optional[VersionLike] = None) -> Tuple[Adjustment, ...]:
        """The adjustments in force at *version* (the matrix's own version by default), in
        declaration order."""
        v = self.version if version is None else as_version(version)
        return tuple(a for a in self.adjustments if a.in_force(v))

    def gates_at(self, version: Optional[VersionLike] = None) -> Tuple[Feature, ...]:
        """Every gate the resolver evaluates at *version*: the features in force, then one gate
        per runner requirement clause (active when the clause fails: its runner says ``no``, the
        others ``yes``), per runner with a ``candidate`` condition (active when it holds) and per
        order (active when it applies). Derived gates carry their `Feature.origin`."""
        v = self.version if version is None else as_version(version)
        return self.features_at(v) + tuple(g for g in _derived_gates(self) if g.in_force(v))

    # resolve() and is_supported() are `matrix.resolver.resolve` and `is_supported` themselves,
    # bound to this class by the resolver module, which `import matrix` imports. They cannot be
    # defined here: the resolver reads these values (`Requirement`, `Runner`, `Order`), so this
    # module importing it, even inside a method, would make an import cycle; and resolve() runs
    # at the speed of an if chain, which a forwarding method slows (issue 23, measured on the
    # benchmarks' configs: a method here calling a function the resolver registers, 1-3 %; one
    # forwarding its keywords, 2.5-3 %; one forwarding **kwargs, 10 %).
    if TYPE_CHECKING:  # pragma: no cover
        def resolve(self, config: object, *, runner: Optional[str] = None,
                    version: Optional[VersionLike] = None, facts: Optional[Mapping[str, object]] = None,
                    strict: bool = False) -> Resolution: ...

        def is_supported(self, config: object, runner: str, *, version: Optional[VersionLike] = None,
                         facts: Optional[Mapping[str, object]] = None) -> bool: ...


def named_versions(matrix: Matrix) -> Tuple[Version, ...]:
    """Every version *matrix* names (its own, each ``since``, ``until`` and ``remove_in``), oldest
    first: the releases it knows of (`Matrix.newest_release` is the last)."""
    named: List[Version] = [matrix.version]
    for feature in matrix.features:
        named += [v for v in (feature.since, feature.until) if v is not None]
        if feature.deprecated is not None:
            named += [v for v in (feature.deprecated.since, feature.deprecated.remove_in) if v is not None]
        named += [s.since for history in feature.support.values() for s in history if s.since is not None]
    for field in matrix.schema:
        windows = [field.window, *field.choice_windows.values()]
        named += [v for window in windows for v in window if v is not None]
        named += [since for since, _ in field.defaults if since is not None]
    for runner in matrix.runners:
        named += [v for a in runner.aliases for v in (a.deprecation.since, a.deprecation.remove_in)
                  if v is not None]
        named += [v for r in runner.redirects for v in r.window if v is not None]
        if runner.deprecated is not None:
            named += [v for v in (runner.deprecated.since, runner.deprecated.remove_in) if v is not None]
    for adjustment in matrix.adjustments:
        named += [v for v in (adjustment.since, adjustment.until) if v is not None]
    return tuple(sorted(set(named)))


def refusing(matrix: Matrix, runners: Collection[str]) -> Dict[str, Tuple[Statement, ...]]:
    """The support of a gate no feature declares (a failed requirement, a runner out of
    automatic choice): ``no`` for *runners*, ``yes`` for every other runner of *matrix*."""
    return {r.id: (Statement("no" if r.id in runners else "yes"),) for r in matrix.runners}


def requirement_chains(clauses: Iterable[Requirement]) -> Dict[str, List[Requirement]]:
    """*clauses* (one runner's, or the matrix-wide ones) by kind: each kind's chain, in order."""
    by_kind: Dict[str, List[Requirement]] = {}
    for clause in clauses:
        by_kind.setdefault(clause.kind, []).append(clause)
    return by_kind


def required_of(matrix: Matrix, runner: Runner) -> Tuple[Requirement, ...]:
    """What *runner* is required to meet: the matrix-wide requirements that do not exempt it,
    then its own, each group in the order of the kinds."""
    return tuple(c for c in matrix.requires if runner.id not in c.exempt) + runner.requires


def gate_ids(features: Iterable[str], orders: Iterable[str], wide: Sequence[Requirement],
             runners: Sequence[Tuple[Runner, Sequence[Requirement]]]) -> List[str]:
    """The gates a refusal may name (`matrix._load_refusals.refusals` states the grammar and
    checks a refusal's against them; `matrix.editor`'s schema lists them): the *features*,
    ``order:ID`` of the *orders* without fallback, and the gates derived from the matrix-wide
    requirements (*wide*) and from each runner with its requirement clauses, every one of its
    file's."""
    known = list(features) + [f"order:{id}" for id in orders]
    for owner, clauses in ((WIDE, wide), *((r.id, c) for r, c in runners)):
        for kind, chain in requirement_chains(clauses).items():
            length = len(chain)
            known += [f"{owner}:{kind}"] if length == 1 else [f"{owner}:{kind}:{n}" for n in range(1, length + 1)]
    for runner, _ in runners:
        if runner.candidate is not None:
            known.append(f"{runner.id}:not-candidate")
        # A redirect that applies always sends automatic choice to a runner that may refuse (issue 30, F6).
        known += [f"{runner.id}:redirect:{d.index + 1}" for d in runner.redirects if d.applies == "always"
                  and d.stage is None]
    return known


def _requirement_gates(matrix: Matrix, owner: str, clauses: Iterable[Requirement]) -> Iterator[Feature]:
    """One gate per clause of *owner*'s requirements (a runner id, or `WIDE`): active when the
    clause fails, refusing the runners it is required of (`refusing`)."""
    for kind, chain in requirement_chains(clauses).items():
        held: Optional[Predicate] = None  # every clause before this one holds
        for index, clause in enumerate(chain):
            # A clause fails when its condition does not hold and every one before it does: the
            # tree of ``not c_i and c_1 and … and c_(i-1)``, the clauses before it kept as they
            # grow (composing each gate clause by clause made a chain of n clauses cost n³).
            fails = ~clause.condition if held is None else ~clause.condition & held
            held = clause.condition if held is None else held & clause.condition
            suffix = f":{index + 1}" if len(chain) > 1 else ""
            refused = {owner} if owner != WIDE else {r.id for r in matrix.runners if r.id not in clause.exempt}
            yield Feature(f"{owner}:{kind}{suffix}", clause.reason, fails, refusing(matrix, refused), origin=clause)


def _derived_gates(matrix: Matrix) -> Tuple[Feature, ...]:
    # The matrix-wide requirements first: a runner's blockers say their reasons before its own.
    gates = list(_requirement_gates(matrix, WIDE, matrix.requires))
    for runner in matrix.runners:
        gates += _requirement_gates(matrix, runner.id, runner.requires)
    everyone = refusing(matrix, ())
    for runner in matrix.runners:
        if runner.candidate is not None:
            gates.append(Feature(f"{runner.id}:candidate", f"{runner.name} is a candidate", runner.candidate,
                                 everyone, origin=runner))
    for order in matrix.orders:
        gates.append(Feature(f"order:{order.id}", order.name, order.when, everyone, origin=order))
    for runner in matrix.runners:
        for redirect in runner.redirects:
            if redirect.stage is not None:
                continue  # acts after the choice, on the config at its stage: no gate (`matrix._stages`)
            # In force only when a runner is asked for (automatic choice ignores it), unless it
            # applies always (issue 30, F6: `matrix._choice`).
            gates.append(Feature(f"{runner.id}:redirect:{redirect.index + 1}",
                                 _messages.redirect_name(runner.name, matrix.runner(redirect.to).name,
                                                         redirect.applies == "always"),
                                 redirect.when, everyone, since=redirect.since, until=redirect.until,
                                 applies=redirect.applies, origin=redirect))
    return tuple(gates)
