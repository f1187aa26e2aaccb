"""Loading a matrix: TOML text → strict shapes (cattrs) → cross-checked model (`schema`).

Every problem is collected before anything is raised: one `LoadError` lists them all, sorted,
each with its file, line and column where the text shows it, and its ``$.path`` always. One
bad feature never hides another.
"""

from __future__ import annotations

import functools
import os
import re
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Set, Tuple, Union

import attrs
from packaging.version import InvalidVersion, Version

from . import _access, _format, _load_adjustments, _messages, _toml_errors
from ._files import toml
from ._nodes import Compare, ListLiteral, Literal, Path, walk
from .errors import ConfigError, LoadError, Problem, excerpt
from .predicates import Predicate
from .schema import (APPLIES, CLASS_SPEC, FIELD_TYPES, NOTHING, STATUSES, Deprecation, Feature, Field, Forces, Matrix, Order,
                     Prefers, Refusal, Requirement, RequirementKind, Runner, Schema, Statement, Window, window_text)

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import DeprecationSpec, ForcesSpec, MatrixSpec, Place
    from ._locate import Locations

__all__ = ["load", "loads", "default", "MAX_FILE_BYTES", "MAX_FEATURES"]


def __dir__() -> List[str]:
    return __all__


MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_FEATURES = 10_000

_ID = _format.ID_RE
_PATH = _format.PATH_RE

_NUMERIC = frozenset({"int", "float"})

RunnersArg = Union[str, "os.PathLike[str]", Mapping[str, Union[Runner, Mapping[str, object], str]]]


def _overlap(a: Feature, b: Feature) -> bool:
    """Whether two gates are in force at some version together."""
    return ((a.until is None or b.since is None or b.since < a.until)
            and (b.until is None or a.since is None or a.since < b.until))


def _covers(outer: Window, inner: Window) -> bool:
    """Whether every version of *inner* is in *outer*."""
    return ((outer[0] is None or (inner[0] is not None and inner[0] >= outer[0]))
            and (outer[1] is None or (inner[1] is not None and inner[1] <= outer[1])))


def _live_text(window: Window) -> str:
    return "at every version" if window == (None, None) else window_text(window)


def load(path: Union[str, os.PathLike[str], None] = None) -> Matrix:
    """Load ``features.toml`` at *path* and the runner files of the folder it names; without
    *path*, the packaged default matrix (`default`: Python never looks for a file, unlike the
    command line, so an import answers the same from any folder).

    :raises LoadError: with every problem found, in either file.
    """
    if path is None:
        return default()
    name = os.fspath(path)
    text = _read(name, name)
    return _built(text, name, os.path.dirname(name))


def loads(text: str, *, runners: RunnersArg, path: Optional[str] = None) -> Matrix:
    """Load a matrix from *text*.

    :param runners: a folder of ``<id>.toml`` runner files, or a mapping from runner id to a
        `Runner`, a table (``{"name": …, "priority": …}``) or the TOML text of a runner file.
    :param path: the name to show in messages (and the base of a relative runner folder).
    :raises LoadError: with every problem found.
    """
    name = path if path is not None else "<string>"
    base = os.path.dirname(path) if path is not None else os.getcwd()
    return _Builder().build(text, name, runners=runners, base=base)


def _default_file() -> str:
    """Where the packaged default matrix's features.toml is (its runner files are in the
    ``runners`` folder beside it): the names `default` gives its files are relative to here."""
    here = os.path.dirname(os.path.realpath(__file__))
    packaged = os.path.join(here, "_default", "features.toml")
    return packaged if os.path.isfile(packaged) else os.path.join(os.path.dirname(here), "features.toml")


@functools.cache
def default() -> Matrix:
    """The packaged default matrix: vLLM's model runners."""
    path = _default_file()
    text = _read("features.toml", path)
    return _built(text, "features.toml", os.path.dirname(path), shipped=True)


def _built(text: str, name: str, base: str, *, shipped: bool = False) -> Matrix:
    """The matrix of a file, from the cache when an entry is fresh (see `matrix._cache`), else
    built and saved there. *shipped*: the wheel may hold the entry (the default matrix)."""
    from . import _cache

    key = _cache.key(name, text)
    cached = _cache.get(key, base, path=_cache.SHIPPED, trusted=True) if shipped else None
    if cached is None:
        cached = _cache.get(key, base)
    if cached is not None:
        return cached
    builder = _Builder()
    matrix = builder.build(text, name, runners=None, base=base)
    if builder.runners_read_from is not None:
        _cache.put(key, matrix, base, builder.runners_read_from)
    return matrix


_toml = toml  # the tomllib module (read by the CLI and `matrix check`'s ignore list too)


def _read(name: str, path: str) -> str:
    try:
        size = os.stat(path).st_size
        if size <= MAX_FILE_BYTES:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise LoadError(name, [Problem(_messages.cannot_read(exc), "$", name)]) from None
    if size > MAX_FILE_BYTES:
        raise LoadError(name, [Problem(
            _messages.file_too_big(size, MAX_FILE_BYTES), "$", name)])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(name, [Problem(_messages.not_utf8(exc), "$", name)]) from None


class _Source:
    """One file's name and text; where its keys stand is worked out on first need."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self._locations: Optional[Locations] = None

    @property
    def locations(self) -> Locations:
        if self._locations is None:
            from ._locate import Locations

            self._locations = Locations(self.text)
        return self._locations


class _Builder:
    def __init__(self) -> None:
        # cattrs is imported on first load, not by `import matrix` (see benchmarks/).
        from . import _converter

        self.shapes = _converter
        self.problems: List[Problem] = []
        self.runners_read_from: Optional[str] = None  # the folder of the runner files read
        # What failed to load, reported once: it is known to exist for the rest of the checks.
        self.broken: Set[str] = set()  # config paths
        self.broken_runners: Dict[str, Optional[int]] = {}  # runner id: its priority, where readable
        self.runner_specs: Dict[str, Tuple[_Source, Any]] = {}  # runner id: its file and RunnerSpec
        self.matrix_version: Optional[Version] = None  # [matrix] version, once the header is read
        #: [matrix] default_support: what a runner a support table leaves out says of the feature.
        self.default_support: Optional[Tuple[Statement, ...]] = None

    # --- reporting -------------------------------------------------------------------------

    def problem(self, source: _Source, path: Place, message: str, *,
                at: Optional[Tuple[int, int]] = None, detail: Optional[str] = None) -> None:
        where = at or source.locations.key(path)
        line, column = where if where else (None, None)
        self.problems.append(Problem(message, _messages.place(path), source.name, line, column, detail))

    def shaped(self, source: _Source, value: object, cls: type, path: Place) -> Tuple[Any, Set[object]]:
        spec, errors = self.shapes.structure(value, cls, path)
        for where, message in errors:
            self.problem(source, where, self.version_as_number(source, where, value, path) or message)
        return spec, {w[len(path)] for w, _ in errors if len(w) > len(path)}

    def version_as_number(self, source: _Source, where: Place, value: object, path: Place) -> Optional[str]:
        """The "quote it" hint for a version written as a TOML number (``version = 2.10``, which
        TOML reads as the float 2.1), as the predicate language gives it; None for another mistake."""
        if not where or where[-1] not in self.shapes.VERSION_KEYS or (len(where) == 2 and where[0] == "config"):
            return None  # ("config", "version") is a field named version, not a version
        for key in where[len(path):]:
            if isinstance(value, dict) and key in value:
                value = value[key]
            elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
                value = value[key]
            else:
                return None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return None
        offset = source.locations.values.get(tuple(where))
        number = re.compile(r"[-+0-9._eE]+").match(source.text, offset) if offset is not None else None
        written = number.group().replace("_", "") if number else repr(value)
        return _messages.version_as_number(type(value).__name__, value, written)

    def version(self, source: _Source, path: Place, text: object) -> Optional[Version]:
        if text is None:
            return None
        try:
            return Version(text)  # type: ignore[arg-type]  # not a str: InvalidVersion, reported below
        except InvalidVersion:
            self.problem(source, path, _messages.invalid_version(text))
            return None

    # --- the document ----------------------------------------------------------------------

    def build(self, text: str, name: str, *, runners: Optional[RunnersArg], base: str) -> Matrix:
        source = _Source(name, text)
        if len(text) > MAX_FILE_BYTES:
            raise LoadError(name, [Problem(
                _messages.text_too_long(len(text), MAX_FILE_BYTES), "$", name)])
        document = self.parse(source)
        tables = [a.name for a in attrs.fields(self.shapes.DocumentSpec)]
        for key in document:
            if key not in tables:
                self.problem(source, (key,), _messages.unknown_choice('table', key, tables))
        header = self.header(source, document.get("matrix"))
        if header is not None:
            self.matrix_version = Version(header.version)
        schema = self.schema(source, document.get("config", {}))
        if runners is None:
            folder = header.runners if header is not None else "runners"
            runner_list = self.runner_folder(source, os.path.join(base, folder), folder)
        elif isinstance(runners, Mapping):
            runner_list = self.runner_mapping(source, runners)
        else:
            folder = os.fspath(runners)
            runner_list = self.runner_folder(source, os.path.join(base, folder), folder)
        features = self.features(source, document.get("features", {}), schema, runner_list)
        refusals = self.refusals(source, document.get("refusals", {}), document.get("features", {}))
        kinds = self.requirement_kinds(source, document.get("requirements", {}))
        if runner_list is not None:
            runner_list = [self.requirements(r, kinds, schema) for r in runner_list]
        orders = self.orders(source, document.get("orders", {}), schema, runner_list)
        adjustments = _load_adjustments.adjustments(self, source, document.get("adjustments", {}), schema, runner_list)
        if "check" in document:
            self.check_table(source, document["check"], document.get("features"), runner_list)
        if self.problems:
            raise LoadError(name, self.problems)
        assert header is not None and runner_list is not None
        version = Version(header.version)
        return Matrix(
            name=header.name,
            version=version,
            runners=tuple(sorted(runner_list, key=lambda r: -r.priority)),
            features=tuple(features),
            schema=schema,
            file=name,
            text=text,
            config_class=header.config_class,
            refusals=tuple(refusals),
            requirement_kinds=tuple(kinds.values()),
            orders=tuple(orders),
            default_support=header.default_support,
            adjustments=tuple(adjustments),
        )

    def parse(self, source: _Source) -> Dict[str, Any]:
        tomllib = _toml()
        try:
            document: Dict[str, Any] = tomllib.loads(source.text)
            return document
        except tomllib.TOMLDecodeError as exc:
            raise LoadError(source.name, [_syntax_problem(source, exc)]) from None
        except RecursionError:
            raise LoadError(source.name, [Problem(_messages.nested_too_deeply(), "$", source.name)]) from None

    def header(self, source: _Source, raw: object) -> Optional[MatrixSpec]:
        if raw is None:
            self.problem(source, ("matrix",), _messages.missing_header())
            return None
        spec, bad = self.shaped(source, raw, self.shapes.MatrixSpec, ("matrix",))
        if spec is not None and self.version(source, ("matrix", "version"), spec.version) is None:
            return None
        if spec is not None and spec.config_class is not None and not CLASS_SPEC.match(spec.config_class):
            self.problem(source, ("matrix", "config_class"), _messages.bad_class_spec(spec.config_class))
            return None
        if spec is not None and spec.default_support is not None:
            # A bare status: 'partial' needs a note, which belongs to a feature's own cell.
            allowed = [s for s in STATUSES if s != "partial"]
            if spec.default_support not in allowed:
                self.problem(source, ("matrix", "default_support"),
                             _messages.unknown_choice("default_support", spec.default_support, allowed, one_of=True))
            # Even when refused, it stands for the cells left out: one mistake, said once.
            self.default_support = (Statement(spec.default_support if spec.default_support in allowed else "no"),)
        header: Optional[MatrixSpec] = spec
        if spec is not None:
            self.matrix_version = Version(spec.version)  # a default's history is read as of it
        return header

    # --- [config] --------------------------------------------------------------------------

    def schema(self, source: _Source, raw: object) -> Schema:
        if not isinstance(raw, dict):
            self.problem(source, ("config",), self.shapes.expected("a table", raw).args[0])
            return Schema({})
        declared: Dict[str, Field] = {}
        for path, value in raw.items():
            field = self.field(source, path, value)
            if field is not None:
                declared[path] = field
            else:
                # Reported already: predicates that read it are not told it is unknown too.
                self.broken.add(path)
        fields: Dict[str, Field] = {}
        for path, field in declared.items():
            parts = path.split(".")
            for end in range(1, len(parts)):
                prefix = ".".join(parts[:end])
                parent = declared.get(prefix)
                if parent is None:
                    fields.setdefault(prefix, Field(prefix, "section", implied=True))
                elif parent.type != "section":
                    self.problem(source, ("config", path),
                                 _messages.not_a_section(prefix, parent.type, path))
            fields[path] = field
        return Schema(_facts_inherited(fields))

    def field(self, source: _Source, path: str, raw: object) -> Optional[Field]:
        where = ("config", path)
        if not _PATH.match(path):
            self.problem(source, where, _messages.bad_config_path(path))
            return None
        if not _format.FIELD_PATH_RE.match(path):
            self.problem(source, where, _messages.underscore_segment(next(p for p in path.split(".") if p.startswith("_"))))
            return None
        if isinstance(raw, str):
            raw = {"type": raw}
        spec, bad = self.shaped(source, raw, self.shapes.FieldSpec, where)
        if spec is None:
            return None
        if spec.type not in FIELD_TYPES:
            self.problem(source, where + ("type",), _messages.unknown_type(spec.type, FIELD_TYPES))
            return None
        kind = spec.type
        choices, choice_windows = self.choices(source, where, spec.choices)
        ok = choices is not None or spec.choices is None
        if choices is not None:
            if kind not in ("str", "int", "float"):
                self.problem(source, where + ("choices",), _messages.no_choices_for(kind))
                ok = False
            elif not choices:
                self.problem(source, where + ("choices",), _messages.empty_choices())
                ok = False
            else:
                for index, choice in enumerate(choices):
                    try:
                        _access.check(Field(path, kind), choice)
                    except ConfigError:
                        self.problem(source, where + ("choices", index), _messages.choice_misfit(choice, kind))
                        ok = False
                if len(set(map(repr, choices))) != len(choices):
                    self.problem(source, where + ("choices",), _messages.repeated_choices())
                    ok = False
        for bound in ("min", "max"):
            value = getattr(spec, bound)
            if value is None:
                continue
            if kind not in _NUMERIC:
                self.problem(source, where + (bound,), _messages.no_bound_for(bound, kind))
                ok = False
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                self.problem(source, where + (bound,), _messages.not_a_number(value))
                ok = False
        if ok and spec.min is not None and spec.max is not None and spec.min > spec.max:
            self.problem(source, where + ("max",), _messages.max_below_min(spec.max, spec.min))
            ok = False
        if spec.classes and kind not in ("str", "list[str]"):
            self.problem(source, where + ("classes",), _messages.classes_for(kind))
            ok = False
        window = self.window(source, where, spec.since, spec.until)
        if not ok or window is None:
            return None
        field = Field(path, kind, nullable=spec.nullable, choices=choices,
                      min=spec.min, max=spec.max, doc=spec.doc)
        default = spec.default
        defaults: Tuple[Tuple[Optional[Version], object], ...] = ()
        if default is not NOTHING and kind == "section":
            self.problem(source, where + ("default",), _messages.section_default())
            return None
        if isinstance(default, list) and any(isinstance(item, dict) for item in default):
            history = self.default_history(source, where + ("default",), field, default)
            if history is None:
                return None
            defaults = history
            history_field = Field(path, kind, nullable=spec.nullable, defaults=defaults)
            default = history_field.default_at(self.matrix_version) if self.matrix_version is not None else defaults[-1][1]
        elif default is not NOTHING:
            try:
                default = self.default(field, default)
            except ConfigError as exc:
                self.problem(source, where + ("default",), _messages.default_misfit(spec.default, exc.reason))
                return None
        elif spec.nullable:
            default = None
        return Field(path, kind, nullable=spec.nullable, default=default, choices=choices,
                     min=spec.min, max=spec.max, doc=spec.doc, fact=spec.fact, since=window[0], until=window[1],
                     choice_windows=choice_windows, defaults=defaults,
                     classes=spec.classes)

    @staticmethod
    def default(field: Field, value: object) -> object:
        return _access.check(field, tuple(value) if isinstance(value, list) else value)

    def default_history(self, source: _Source, where: Place, field: Field,
                        raw: List[object]) -> Optional[Tuple[Tuple[Optional[Version], object], ...]]:
        """``default = [{ value = 4 }, { value = 8, since = "3.0" }]``: the default's history,
        oldest first; None (said) when it is malformed."""
        history: List[Tuple[Optional[Version], object]] = []
        ok = True
        for index, entry in enumerate(raw):
            at = where + (index,)
            unknown = sorted(set(entry) - {"value", "since"}) if isinstance(entry, dict) else []
            if not isinstance(entry, dict) or unknown or "value" not in entry:
                self.problem(source, at + ((unknown[0],) if unknown else ()),
                             _messages.default_entry(unknown[0] if unknown else None))
                ok = False
                continue
            since: Optional[Version] = None
            if "since" in entry:
                if not isinstance(entry["since"], str):
                    self.problem(source, at + ("since",), _messages.invalid_version(entry["since"]))
                    ok = False
                    continue
                since = self.version(source, at + ("since",), entry["since"])
                if since is None:
                    ok = False
                    continue
            try:
                value = self.default(field, entry["value"])
            except ConfigError as exc:
                self.problem(source, at + ("value",), _messages.default_misfit(entry["value"], exc.reason))
                ok = False
                continue
            if history and since is None:
                self.problem(source, at, _messages.since_left_out())
                ok = False
                continue
            previous = history[-1][0] if history else None
            if previous is not None and since is not None and since <= previous:
                self.problem(source, at + ("since",), _messages.history_order(since, history[-1][0]))
                ok = False
                continue
            history.append((since, value))
        return tuple(history) if ok else None

    def window(self, source: _Source, where: Place, since_text: Optional[str],
               until_text: Optional[str]) -> Optional[Window]:
        """``since`` and ``until`` of a field or a choice; None (said) when either is malformed."""
        since = self.version(source, where + ("since",), since_text)
        until = self.version(source, where + ("until",), until_text)
        if (since_text is not None and since is None) or (until_text is not None and until is None):
            return None
        if since is not None and until is not None and until <= since:
            self.problem(source, where + ("until",), _messages.not_after('until', until, 'since', since))
            return None
        return (since, until)

    def choices(self, source: _Source, where: Place, raw: Optional[Tuple[object, ...]]) -> Tuple[
            Optional[Tuple[object, ...]], Dict[object, Window]]:
        """The choices, each a value or ``{ value = …, since = …, until = … }``, and the windows
        of those that exist only from or until a version. (None, {}) when one is malformed."""
        if raw is None:
            return None, {}
        values: List[object] = []
        windows: Dict[object, Window] = {}
        ok = True
        for index, choice in enumerate(raw):
            if not isinstance(choice, dict):
                values.append(choice)
                continue
            at = where + ("choices", index)
            unknown = sorted(set(choice) - {a.name for a in attrs.fields(self.shapes.ChoiceSpec)})
            if unknown or "value" not in choice:
                self.problem(source, at + ((unknown[0],) if unknown else ()), _messages.choice_table(unknown[0] if unknown else None))
                ok = False
                continue
            since, until = choice.get("since"), choice.get("until")
            if not all(v is None or isinstance(v, str) for v in (since, until)):
                self.problem(source, at, _messages.choice_table(None))
                ok = False
                continue
            window = self.window(source, at, since, until)
            if window is None:
                ok = False
                continue
            values.append(choice["value"])
            if window != (None, None):
                windows[choice["value"]] = window
        return (tuple(values) if ok else None), windows

    # --- [refusals] ---

    def entries(self, source: _Source, raw: object, table: str, what: str, cls: type) -> Iterator[Tuple[str, Place, Any]]:
        """``(id, place, spec)`` for each well-formed entry of a table of named tables
        (``[refusals]``, ``[requirements]``, ``[orders]``); every other one is a problem."""
        if not isinstance(raw, dict):
            self.problem(source, (table,), self.shapes.expected("a table", raw).args[0])
            return
        for id, value in raw.items():
            where: Place = (table, id)
            if not _ID.match(id):
                self.problem(source, where, _messages.bad_feature_id(id, what))
                continue
            spec, _ = self.shaped(source, value, cls, where)
            if spec is not None:
                yield id, where, spec

    def refusals(self, source: _Source, raw: object, features: object) -> List[Refusal]:
        known = list(features) if isinstance(features, dict) else []
        out = []
        for id, where, spec in self.entries(source, raw, "refusals", "Refusal", self.shapes.RefusalSpec):
            lists = []
            ok = bool(spec.together)
            if not spec.together:
                self.problem(source, where + ("together",), _messages.refusal_shape())
            for index, part in enumerate(spec.together):
                if not isinstance(part, list) or not part or not all(isinstance(g, str) for g in part):
                    self.problem(source, where + ("together", index), _messages.refusal_shape())
                    ok = False
                    continue
                for position, gate in enumerate(part):
                    if gate not in known:
                        self.problem(source, where + ("together", index, position),
                                     _messages.unknown_choice("gate", gate, known))
                        ok = False
                lists.append(tuple(part))
            if ok:
                out.append(Refusal(id, spec.reason, tuple(lists), spec.links))
        return out

    def check_table(self, source: _Source, raw: object, features: object, runners: Optional[List[Runner]]) -> None:
        """``[check] ignore = [{ code, gate, reason }]``: findings `matrix check` is told to
        ignore, each with its reason (applied by `matrix._ignore`; checked here, so that a
        misspelt code or gate is a load error, not an entry that silently ignores nothing)."""
        from .check import CODES  # only for a file that has a [check] table

        if not isinstance(raw, dict):
            self.problem(source, ("check",), self.shapes.expected("a table", raw).args[0])
            return
        known = [a.name for a in attrs.fields(self.shapes.CheckSpec)]
        for key in raw:
            if key not in known:
                self.problem(source, ("check", key), _messages.unknown_choice("key", key, known))
        entries = raw.get("ignore", [])
        if not isinstance(entries, list):
            self.problem(source, ("check", "ignore"), self.shapes.expected("an array of tables", entries).args[0])
            return
        gates = (list(features) if isinstance(features, dict) else []) + [r.id for r in runners or ()]
        keys = [a.name for a in attrs.fields(self.shapes.IgnoreSpec)]
        required = [a.name for a in attrs.fields(self.shapes.IgnoreSpec) if a.default is attrs.NOTHING]
        for index, entry in enumerate(entries):
            where: Place = ("check", "ignore", index)
            if not isinstance(entry, dict):
                self.problem(source, where, self.shapes.expected("a table", entry).args[0])
                continue
            for key in entry:
                if key not in keys:
                    self.problem(source, where + (key,), _messages.unknown_choice("key", key, keys))
            for key in required:
                if key not in entry:
                    self.problem(source, where, _messages.missing_key(key))
            for key, value in entry.items():
                if key in keys and not isinstance(value, str):
                    self.problem(source, where + (key,), self.shapes.expected("a string", value).args[0])
            code, gate, reason = entry.get("code"), entry.get("gate"), entry.get("reason")
            if isinstance(code, str) and code not in CODES:
                self.problem(source, where + ("code",), _messages.unknown_finding_code(code, list(CODES)))
            if isinstance(gate, str) and gate not in gates:
                self.problem(source, where + ("gate",), _messages.unknown_choice("gate", gate, gates))
            if isinstance(reason, str) and not reason.strip():
                self.problem(source, where + ("reason",), _messages.ignore_without_reason())

    # --- requirements and orders -----------------------------------------------------------

    def requirement_kinds(self, source: _Source, raw: object) -> Dict[str, RequirementKind]:
        return {id: RequirementKind(id, spec.name, spec.reason)
                for id, _, spec in self.entries(source, raw, "requirements", "Requirement kind", self.shapes.KindSpec)}

    def requirements(self, runner: Runner, kinds: Dict[str, RequirementKind], schema: Schema) -> Runner:
        """*runner* with what its file says it requires (``[requires]``) and when it is a candidate."""
        found = self.runner_specs.get(runner.id)
        if found is None:
            return runner
        source, spec = found
        candidate = None
        if spec.candidate is not None:
            candidate = self.predicate(source, ("candidate",), spec.candidate, schema)
            self.everlasting(source, ("candidate",), candidate, schema)
        clauses: Dict[str, List[Requirement]] = {}
        for kind, value in spec.requires.items():
            where: Place = ("requires", kind)
            if kind not in kinds:
                self.problem(source, where, _messages.unknown_choice("requirement kind", kind, list(kinds)))
                continue
            items = value if isinstance(value, list) else [value]
            if not items:
                self.problem(source, where, _messages.empty_requirement(kind))
            for index, item in enumerate(items):
                at: Place = where + (index,) if isinstance(value, list) else where
                if isinstance(item, str):
                    item = {"condition": item}
                clause, _ = self.shaped(source, item, self.shapes.ClauseSpec, at)
                if clause is None:
                    continue
                condition = self.predicate(source, at + (("condition",) if isinstance(value, (dict, list)) else ()),
                                           clause.condition, schema)
                self.everlasting(source, at, condition, schema)
                reason = clause.reason or kinds[kind].reason
                if reason is None:
                    self.problem(source, at, _messages.requirement_without_reason(kind))
                    continue
                if condition is not None:
                    clauses.setdefault(kind, []).append(Requirement(runner.id, kind, condition, reason, clause.doc))
        ordered = tuple(c for kind in kinds for c in clauses.get(kind, ()))
        return attrs.evolve(runner, requires=ordered, candidate=candidate)

    def everlasting(self, source: _Source, where: Place, predicate: Optional[Predicate], schema: Schema) -> None:
        """Requirements, candidacies and orders apply at every version: what they read must exist
        at every version too."""
        if predicate is None or not schema.versioned:
            return
        for path in sorted(predicate.paths):
            field = schema.get(path)
            if field is not None and (field.since is not None or field.until is not None):
                self.problem(source, where, _messages.not_everlasting(path, window_text(field.window)))

    def orders(self, source: _Source, raw: object, schema: Schema, runners: Optional[List[Runner]]) -> List[Order]:
        known = [r.id for r in runners or ()] + list(self.broken_runners)
        out = []
        for id, where, spec in self.entries(source, raw, "orders", "Order", self.shapes.OrderSpec):
            when = self.predicate(source, where + ("when",), spec.when, schema)
            self.everlasting(source, where + ("when",), when, schema)
            ok = bool(spec.runners)
            if not spec.runners:
                self.problem(source, where + ("runners",), _messages.empty_order())
            for index, runner in enumerate(spec.runners):
                if runner not in known:
                    if runners is not None:
                        self.problem(source, where + ("runners", index), _messages.unknown_choice("runner", runner, known))
                    ok = False
                elif runner in spec.runners[:index]:
                    self.problem(source, where + ("runners", index), _messages.listed_twice(runner))
                    ok = False
            if ok and when is not None:
                out.append(Order(id, spec.name, when, tuple(spec.runners)))
        return out

    # --- runners ---------------------------------------------------------------------------

    def runner_folder(self, source: _Source, folder: str, shown: str) -> Optional[List[Runner]]:
        if "\0" in folder or not os.path.isdir(folder):
            self.problem(source, ("matrix", "runners"), _messages.no_runner_folder(shown, source.name))
            return None
        self.runners_read_from = folder
        runners = []
        sources: Dict[str, _Source] = {}
        for file in sorted(f for f in os.listdir(folder) if f.endswith(".toml")):
            stem = file[: -len(".toml")]
            name = os.path.join(os.path.dirname(source.name), shown, file) if source.name != "<string>" else os.path.join(shown, file)
            try:
                text = _read(name, os.path.join(folder, file))
            except LoadError as exc:
                self.problems.extend(exc.problems)
                continue
            sources[stem] = _Source(name, text)
            runner = self.runner(sources[stem], stem, None)
            if runner is not None:
                runners.append(runner)
        return self.runner_set(source, runners, sources, _messages.empty_runner_folder(shown))

    def runner_mapping(self, source: _Source, mapping: Mapping[str, object]) -> Optional[List[Runner]]:
        runners = []
        sources: Dict[str, _Source] = {}
        for id, value in mapping.items():
            name = f"runners/{id}.toml"
            sources[id] = _Source(name, value if isinstance(value, str) else "")
            if isinstance(value, Runner):
                runners.append(value)
                continue
            runner = self.runner(sources[id], id, None if isinstance(value, str) else value)
            if runner is not None:
                runners.append(runner)
        return self.runner_set(source, runners, sources, _messages.no_runners_given())

    def runner(self, source: _Source, id: object, raw: object) -> Optional[Runner]:
        if not isinstance(id, str) or not _ID.match(id) or id == "default":
            self.problem(source, (), _messages.bad_runner_id(id))
            return None
        if raw is None:
            tomllib = _toml()
            try:
                raw = tomllib.loads(source.text)
            except tomllib.TOMLDecodeError as exc:
                self.problems.append(_syntax_problem(source, exc))
                self.broken_runners[id] = None
                return None
            except RecursionError:
                self.problems.append(Problem(_messages.nested_too_deeply(), "$", source.name))
                self.broken_runners[id] = None
                return None
        spec, bad = self.shaped(source, raw, self.shapes.RunnerSpec, ())
        if spec is None:
            priority = raw.get("priority") if isinstance(raw, dict) and "priority" not in bad else None
            ok = isinstance(priority, int) and not isinstance(priority, bool)
            self.broken_runners[id] = priority if ok else None
            return None
        path = source.name if source.text else None
        self.runner_specs[id] = (source, spec)
        return Runner(id, spec.name, spec.priority, spec.description, spec.links, path)

    def runner_set(self, source: _Source, runners: List[Runner], sources: Dict[str, _Source],
                   empty: str) -> Optional[List[Runner]]:
        # Runners that failed to load still hold their priority, where it could be read.
        priorities = [(r.id, r.priority) for r in runners]
        priorities += [(id, p) for id, p in self.broken_runners.items() if p is not None]
        by_priority: Dict[int, str] = {}
        for id, priority in sorted(priorities):
            other = by_priority.setdefault(priority, id)
            if other != id:
                self.problem(sources.get(id, source), ("priority",), _messages.same_priority(id, priority, other))
        if not runners:
            if not self.problems:
                self.problem(source, ("matrix", "runners"), empty)
            return None
        return runners

    # --- [features] ------------------------------------------------------------------------

    def features(self, source: _Source, raw: object, schema: Schema,
                 runners: Optional[List[Runner]]) -> List[Feature]:
        if not isinstance(raw, dict):
            self.problem(source, ("features",), self.shapes.expected("a table", raw).args[0])
            return []
        if len(raw) > MAX_FEATURES:
            self.problem(source, ("features",), _messages.too_many_features(len(raw), MAX_FEATURES))
            return []
        runner_ids = [r.id for r in runners] if runners is not None else None
        if runners is not None:
            runner_ids = self.misnamed_runner_files(raw, runners)
        features = []
        # A display name belongs to one gate at a time: two gates may share it when they are
        # never in force at the same version (a condition that changed in a release).
        names: Dict[str, List[Feature]] = {}
        versioned = schema.versioned  # asked once, not once per gate
        for id, value in raw.items():
            feature = self.feature(source, id, value, schema, runner_ids)
            if feature is None:
                continue
            if versioned:
                self.lifetimes(source, ("features", id, "when"), feature, schema)
            clash = next((f for f in names.get(feature.name, ()) if _overlap(f, feature)), None)
            if clash is not None:
                self.problem(source, ("features", id, "name"), _messages.name_taken(feature.name, clash.id))
            names.setdefault(feature.name, []).append(feature)
            features.append(feature)
        return features

    def misnamed_runner_files(self, raw: Dict[str, object], runners: List[Runner]) -> List[str]:
        """The runner ids the features are checked against, less each runner file that looks
        misnamed: no feature names its id, while some name a close one that has no file. Such a
        file is reported once, as the likely mistake (not once per feature, each "did you mean"
        the typo), and the id the features name stands for it, known to be broken."""
        ids = [r.id for r in runners]
        named: Dict[str, int] = {}  # runner id: how many features name it
        for value in raw.values():
            if not isinstance(value, dict):
                continue
            support = value.get("support")
            mentioned = set(support) if isinstance(support, dict) else set()
            for key in ("prefers", "forces"):
                table = value.get(key)
                if isinstance(table, dict) and isinstance(table.get("runner"), str):
                    mentioned.add(table["runner"])
            for runner in mentioned:
                named[runner] = named.get(runner, 0) + 1
        unnamed = [r for r in runners if r.id not in named and r.file is not None]
        unknown = sorted((u for u in named if u not in ids and u != "default" and u not in self.broken_runners),
                         key=lambda u: (-named[u], u))
        import difflib

        for wanted in unknown:
            close = difflib.get_close_matches(wanted, [r.id for r in unnamed], n=1, cutoff=0.6)
            if not close:
                continue
            runner = next(r for r in unnamed if r.id == close[0])
            unnamed.remove(runner)
            ids.remove(runner.id)
            self.broken_runners[wanted] = runner.priority
            source = self.runner_specs[runner.id][0]
            self.problem(source, (), _messages.misnamed_runner_file(runner.id, wanted, named[wanted]), at=(1, 1))
        return ids

    def feature(self, source: _Source, id: str, raw: object, schema: Schema,
                runner_ids: Optional[List[str]]) -> Optional[Feature]:
        where = ("features", id)
        before = len(self.problems)
        if not _ID.match(id):
            self.problem(source, where, _messages.bad_feature_id(id))
        if not isinstance(raw, dict):
            self.problem(source, where, self.shapes.expected("a table", raw).args[0])
            return None
        spec, bad = self.shaped(source, raw, self.shapes.FeatureSpec, where)
        when = raw.get("when")
        predicate = None
        if "when" not in bad and isinstance(when, str):
            predicate = self.predicate(source, where + ("when",), when, schema)
        support = raw.get("support")
        history = None
        if "support" not in bad and isinstance(support, dict):
            history = self.support(source, where + ("support",), support, runner_ids)
        since = self.version(source, where + ("since",), raw.get("since")) if "since" not in bad else None
        until = self.version(source, where + ("until",), raw.get("until")) if "until" not in bad else None
        if since is not None and until is not None and until <= since:
            self.problem(source, where + ("until",), _messages.not_after('until', until, 'since', since))
        deprecation = None
        if spec is not None and spec.deprecated is not None:
            deprecation = self.deprecation(source, where + ("deprecated",), spec.deprecated)
        forces = None
        if spec is not None and spec.forces is not None and history is not None:
            forces = self.forces(source, where, spec.forces, history, runner_ids)
        prefers = None
        if spec is not None and spec.prefers is not None:
            if runner_ids is not None and spec.prefers.runner not in runner_ids:
                if spec.prefers.runner not in self.broken_runners:
                    self.problem(source, where + ("prefers", "runner"), _messages.unknown_runner(spec.prefers.runner, runner_ids))
            else:
                prefers = Prefers(spec.prefers.runner, spec.prefers.outright, spec.prefers.message)
        if spec is not None and spec.applies not in APPLIES:
            self.problem(source, where + ("applies",), _messages.unknown_choice("applies", spec.applies, APPLIES,
                                                                                 one_of=True))
        if len(self.problems) > before or spec is None or predicate is None or history is None:
            return None
        feature = Feature(id, spec.name, predicate, history, spec.note, spec.links, since, until, deprecation,
                          spec.group, forces, prefers, spec.applies)
        return feature

    def lifetimes(self, source: _Source, where: Place, feature: Feature, schema: Schema) -> None:
        """A gate may read a field, and compare it with a choice, only while they exist: from
        the gate's since to its until or its removal (a gate that records a removal reads what
        configs still set after it, when the field or the choice has gone)."""
        end = feature.until
        d = feature.deprecated
        if d is not None and d.remove_in is not None and (end is None or d.remove_in < end):
            end = d.remove_in
        live: Window = (feature.since, end)
        if live[0] is not None and live[1] is not None and live[1] <= live[0]:
            return  # removed from its start: a record of a removal only
        said: Set[str] = set()

        text = feature.when.source

        def need(what: str, window: Window, span: Tuple[int, int]) -> None:
            if not _covers(window, live) and what not in said:
                said.add(what)
                at = source.locations.in_string(where, span[0]) if source.text else None
                self.problem(source, where, _messages.outside_window(what, window_text(window), _live_text(live)),
                             at=at, detail=excerpt(text, span))

        for node in walk(feature.when.node):
            if isinstance(node, Path):
                parts = node.name.split(".")
                for end_index in range(1, len(parts) + 1):
                    field = schema.get(".".join(parts[:end_index]))
                    if field is not None:
                        need(f"[config] {field.path!r}", field.window, node.span)
            elif isinstance(node, Compare):
                for side, other in ((node.left, node.right), (node.right, node.left)):
                    field = schema.get(side.name) if isinstance(side, Path) else None
                    if field is None or not field.choice_windows:
                        continue
                    literals = [other] if isinstance(other, Literal) else list(other.items) if isinstance(
                        other, ListLiteral) else []
                    for literal in literals:
                        if literal.value in field.choice_windows:
                            need(f"The choice {literal.value!r} of {field.path!r}", field.choice_window(literal.value),
                                 literal.span)

    def forces(self, source: _Source, where: Place, spec: ForcesSpec, history: Mapping[str, Tuple[Statement, ...]],
               runner_ids: Optional[List[str]]) -> Optional[Forces]:
        """A forced runner: a known one, and every other runner says no to the feature at every
        version (automatic choice and `matrix check` then see the forcing in the statuses)."""
        if spec.runner in self.broken_runners:
            return None
        if runner_ids is not None and spec.runner not in runner_ids:
            self.problem(source, where + ("forces", "runner"), _messages.unknown_runner(spec.runner, runner_ids))
            return None
        for runner in runner_ids or sorted(history):
            if runner != spec.runner and any(s.status != "no" for s in history.get(runner, ())):
                self.problem(source, where + ("support", runner), _messages.forced_elsewhere(runner, spec.runner))
        return Forces(spec.runner, spec.override, spec.message)

    def predicate(self, source: _Source, where: Place, text: str, schema: Schema) -> Optional[Predicate]:
        predicate, errors = Predicate.checked(text, schema=schema)
        for error in errors:
            message = error.message
            unknown = error.unknown_path
            if unknown is not None and self.broken:
                if any(unknown == b or unknown.startswith(b + ".") for b in self.broken):
                    continue  # a field that failed to load: reported at its declaration
                message = _messages.unknown_path(unknown, [*schema.fields, *sorted(self.broken)])
            at = source.locations.in_string(where, error.span[0]) if source.text else None
            self.problem(source, where, message, at=at,
                         detail=excerpt(error.source, error.span, opened=error.opened))
        return predicate

    def support(self, source: _Source, where: Place, raw: Dict[str, object],
                runner_ids: Optional[List[str]]) -> Optional[Dict[str, Tuple[Statement, ...]]]:
        cells: Dict[str, Tuple[Statement, ...]] = {}
        ok = True
        for runner, cell in raw.items():
            if runner in self.broken_runners:
                ok = False  # its file failed to load, and said so
                continue
            if runner_ids is not None and runner != "default" and runner not in runner_ids:
                self.problem(source, where + (runner,), _messages.unknown_runner(runner, runner_ids + ["default"]))
                ok = False
                continue
            history = self.cell(source, where + (runner,), cell)
            if history is None:
                ok = False
            else:
                cells[runner] = history
        if runner_ids is None:
            return None
        missing = [r for r in runner_ids if r not in raw]
        if missing and "default" not in raw and self.default_support is None:
            for runner in missing:
                self.problem(source, where, _messages.missing_cell(runner))
            return None
        if not ok:
            return None
        fallback = cells["default"] if "default" in cells else self.default_support or ()
        return {r: cells[r] if r in cells else fallback for r in runner_ids}

    def cell(self, source: _Source, where: Place, raw: object) -> Optional[Tuple[Statement, ...]]:
        if isinstance(raw, list):
            if not raw:
                self.problem(source, where, _messages.empty_history())
                return None
            items = [(where + (i,), item) for i, item in enumerate(raw)]
        elif isinstance(raw, (str, dict)):
            items = [(where, raw)]
        else:
            self.problem(source, where, _messages.bad_cell(STATUSES, self.shapes.toml_type(raw), raw))
            return None
        history: List[Statement] = []
        ok = True
        for place, item in items:
            statement = self.statement(source, place, item)
            if statement is None:
                ok = False
                continue
            if history and statement.since is None:
                self.problem(source, place, _messages.since_left_out())
                ok = False
            elif history and history[-1].since is not None and statement.since is not None \
                    and statement.since <= history[-1].since:
                self.problem(source, place + ("since",), _messages.history_order(statement.since, history[-1].since))
                ok = False
            history.append(statement)
        return tuple(history) if ok else None

    def statement(self, source: _Source, where: Place, raw: object) -> Optional[Statement]:
        if isinstance(raw, str) and raw in STATUSES and raw != "partial":
            return Statement(raw)  # the common case, with nothing to check
        if isinstance(raw, str):
            raw = {"status": raw}
            status_place = where
        else:
            status_place = where + ("status",)
        spec, bad = self.shaped(source, raw, self.shapes.StatementSpec, where)
        if spec is None:
            return None
        if spec.status not in STATUSES:
            self.problem(source, status_place, _messages.unknown_choice('status', spec.status, STATUSES, one_of=True))
            return None
        if spec.status == "partial" and not spec.note:
            self.problem(source, where, _messages.partial_without_note())
            return None
        since = self.version(source, where + ("since",), spec.since)
        if spec.since is not None and since is None:
            return None
        return Statement(spec.status, spec.note, spec.links, since)

    def deprecation(self, source: _Source, where: Place, spec: DeprecationSpec) -> Optional[Deprecation]:
        since = self.version(source, where + ("since",), spec.since)
        remove_in = self.version(source, where + ("remove_in",), spec.remove_in)
        if since is None or (spec.remove_in is not None and remove_in is None):
            return None
        if remove_in is not None and remove_in < since:
            self.problem(source, where + ("remove_in",), _messages.not_before('remove_in', spec.remove_in, 'since', spec.since))
            return None
        if spec.removed and remove_in is None:
            self.problem(source, where + ("removed",), _messages.removed_without_version())
            return None
        if spec.removed and remove_in is not None and self.matrix_version is not None and remove_in > self.matrix_version:
            # A removal recorded before it happened would answer as deprecated at the file's own
            # version, and check would call it done (issue 24, item 7).
            self.problem(source, where + ("removed",),
                         _messages.removed_ahead(str(remove_in), str(self.matrix_version)))
            return None
        if remove_in is not None and remove_in == since and not spec.removed:
            self.problem(source, where + ("remove_in",), _messages.no_period_unrecorded(str(remove_in)))
            return None
        return Deprecation(since, remove_in, spec.message, spec.replacement, spec.removed)


def toml_syntax_problem(name: str, text: str, exc: Exception) -> Problem:
    """The problem a TOML syntax error *exc* in *text* (shown as *name*) is: for any TOML file
    matrix reads, config files too."""
    return _toml_errors.syntax_problem(name, text, exc)


def _syntax_problem(source: _Source, exc: Exception) -> Problem:
    return _toml_errors.syntax_problem(source.name, source.text, exc, source.locations)


def _facts_inherited(fields: Dict[str, Field]) -> Dict[str, Field]:
    """Every field below a fact section is a fact; an implied section is one when every field
    below it is (the host supplies all of it: vLLM's ``platform``)."""
    import attrs

    out = dict(fields)
    for path, field in fields.items():
        if not field.fact and not field.implied:
            parts = path.split(".")
            if any(fields[".".join(parts[:end])].fact for end in range(1, len(parts))):
                out[path] = attrs.evolve(field, fact=True)
    for path, field in fields.items():
        if field.implied:
            below = [f for p, f in out.items() if p.startswith(path + ".") and not f.implied]
            if below and all(f.fact for f in below):
                out[path] = attrs.evolve(field, fact=True)
    return out
