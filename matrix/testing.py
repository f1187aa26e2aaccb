"""Test helpers for projects that adopt ``matrix``: show that the matrix answers as the code it replaces.

`assert_matches` is the migration harness: before deleting a hand-written gate function (vLLM's
``_get_v2_model_runner_unsupported_features``), compare it with ``resolve`` on many configs,
steered so that rare gates (and the constants the old code compares with) are reached. It needs
hypothesis, and nothing else; call it from a plain pytest test.

A sampled test cannot prove that two functions are equal: it finds the differences its examples
reach. `assert_matches` returns a `Reached`, which says how much of the legacy code they ran.
"""

from __future__ import annotations

import copy
import dis
import inspect
import json
import sys
import types
from typing import (TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Set, Tuple,
                    Type, Union)

import attrs

from . import _messages
from .errors import ConfigError, ResolutionError, UsageError
from ._versions import VersionLike, to_version
from .schema import Field, Matrix, Schema

if TYPE_CHECKING:  # pragma: no cover
    from packaging.version import Version

__all__ = ["assert_matches", "Choice", "Reached"]

#: A config as the strategies draw it: nested dicts.
Config = Dict[str, Any]


def __dir__() -> List[str]:
    return __all__


@attrs.frozen
class Choice:
    """What a legacy function may return when it chooses a runner too: *runner* is the runner
    it chose (None: none can serve the config), *unsupported*, if given, what each runner it
    names cannot do (display names), as the plain mapping form says, and *effective*, if given,
    values the chosen runner runs with, by config path (after the host's own adjustments: the
    paths it names are compared with `Resolution.effective`)."""

    runner: Optional[str]
    unsupported: Optional[Mapping[str, Iterable[str]]] = None
    effective: Optional[Mapping[str, object]] = None


@attrs.frozen
class Reached:
    """What the examples of one `assert_matches` run reached of the legacy code.

    ``lines`` are the executable lines of the legacy function and of the functions it calls
    by name (``(file, line)``), ``missed`` those no example ran; ``measured`` is False when
    another tracer (a coverage tool, a debugger) was running, since the harness does not
    replace it. ``constants`` are the literals read from that code and drawn for fields of
    their type. Line coverage, not branch coverage: a line such as ``if a or b:`` counts as
    run whichever operand decided.
    """

    examples: int
    constants: Tuple[object, ...]
    lines: Tuple[Tuple[str, int], ...]
    missed: Tuple[Tuple[str, int], ...]
    measured: bool

    @property
    def fraction(self) -> Optional[float]:
        """The share of ``lines`` the examples ran (None when not measured or no lines)."""
        if not self.measured or not self.lines:
            return None
        return (len(self.lines) - len(self.missed)) / len(self.lines)

    def __str__(self) -> str:
        return _messages.harness_reached(self.examples, len(self.lines), len(self.missed),
                                         [f"{_short(f)}:{n}" for f, n in self.missed], self.measured)


def assert_matches(matrix: Matrix, legacy: Callable[..., object], *, runner: Optional[str] = None,  # noqa: C901 — one hypothesis test body that compares each kind of legacy answer (names, mapping, Choice, refusal)
                   build: Optional[Callable[[Config], object]] = None, as_objects: bool = False,
                   refuses: Union[Type[BaseException], Tuple[Type[BaseException], ...]] = (),
                   version: Optional[VersionLike] = None, max_examples: int = 200) -> Reached:
    """Check that *legacy* and the matrix give the same answers, on many configs.

    Configs are drawn with ``matrix.strategies.configs(matrix, version=version,
    constants=...)``: steered toward every gate, and toward the literal constants of *legacy*'s
    code (and of the functions it calls by name) for the fields of their type. Each is handed
    to *legacy* as the nested dict drawn, as an attribute object with every default filled in
    (``as_objects=True``), or as ``build(config_dict)``; the matrix reads the same value.

    *legacy* returns one of:

    - the display names of what *runner* cannot do (vLLM's function), compared as a set with
      ``resolve(...).unsupported[runner]``;
    - a mapping from runner id to such names, each compared so;
    - a `Choice`: the runner it chose (None: none), compared with ``resolve(...).runner``
      (a `ResolutionError` is none), optionally such a mapping, and optionally the values the
      chosen runner runs with (``effective``, by config path), each compared with
      ``resolve(...).effective[path]`` where both choose that runner.

    *legacy* raising one of *refuses* says the config is refused; the matrix must then refuse
    it too (a `ResolutionError`). When *legacy* has a parameter ``runner``, it is called once
    with ``runner=None`` (automatic choice) and once with each runner id asked for, and each
    answer is compared with ``resolve(..., runner=...)``. When it has a parameter ``facts``, it
    is given the facts (``fact = true`` fields: flat dotted keys) that go to ``resolve``; when
    it has none, every fact is left at its default on both sides.

    :returns: a `Reached`: how many examples ran, and which lines of the legacy code they ran.
    :raises AssertionError: on the first disagreement, after hypothesis has shrunk it: the
        config, both answers, and what differs.
    :raises TypeError: *legacy* returned something else, or read an attribute of the dict it
        was given.
    :raises UsageError: *runner* is not a runner of *matrix*, *version* is not one the file
        can speak of, *legacy* returned names without *runner*, or an effective value of a path
        that is not a ``[config]`` field at the version.
    """
    from .strategies import as_object, configs  # first: says how to install hypothesis where it is missing

    from hypothesis import HealthCheck, given, settings

    if runner is not None:
        matrix.runner(runner)  # an unknown runner is a usage error, not a failed comparison
    at = matrix.release(version)  # past the newest release the file knows of: a UsageError
    schema = matrix.schema.at(at)
    takes_facts = _takes(legacy, "facts")
    asks = _takes(legacy, "runner")
    facts = [f for f in matrix.schema if f.fact and f.type != "section"]
    codes, docs = _legacy_code(legacy)
    constants = [c for c in _literals(codes) if c not in docs]
    tracer = _LineTracer(codes)
    examples = [0]

    def outcomes(config: Config) -> Iterator[Tuple[Optional[str], _Outcome, _Outcome]]:
        """(runner asked for, legacy's outcome, the matrix's) for each call compared."""
        given = {}
        for field in facts:
            value = _lookup(config, field.path)
            if value is _ABSENT and field.has_default:
                value = schema[field.path].default if field.path in schema else field.default
            if value is not _ABSENT:
                given[field.path] = value
        for asked in ([None, *(r.id for r in matrix.runners)] if asks else [None]):
            if build is not None:
                host = build(copy.deepcopy(config))
            elif as_objects:
                host = as_object(copy.deepcopy(config), schema)
            else:
                host = copy.deepcopy(config)
            kwargs: Dict[str, object] = {}
            if takes_facts:
                kwargs["facts"] = dict(given)
            if asks:
                kwargs["runner"] = asked
            theirs = _call(legacy, host, kwargs, refuses, tracer, dict_given=build is None and not as_objects)
            try:
                resolution = matrix.resolve(host, runner=asked, version=at, facts=given or None)
                effective = None if theirs.effective is None else resolution.effective
                ours = _Outcome(resolution.runner, _names(resolution), None, effective=effective)
            except ResolutionError as error:
                ours = _Outcome(None, _names(error.resolution), error)
            yield asked, theirs, ours

    def difference(config: Config) -> Optional[str]:
        for asked, theirs, ours in outcomes(config):
            found = _compare(matrix, runner, at, config, asked, theirs, ours)
            if found is not None:
                return found
        return None

    skip = {f.path for f in facts} if not takes_facts else set()

    def strip(config: Config) -> Config:
        # A legacy function that takes no facts sees none: both sides read their defaults.
        if takes_facts:
            return config
        out = copy.deepcopy(config)
        for field in facts:
            if field.has_default:
                _remove(out, field.path)
        return out

    # Generation cost is the solver's, not the host's; building objects and calling the legacy
    # function may be slow too: neither is what this harness checks. No example database: every
    # call's inner test has the same key, so one matrix's failure would be replayed on another.
    @settings(max_examples=max_examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(configs(matrix, version=at, constants=constants))
    def agree(config: Config) -> None:
        examples[0] += 1
        config = strip(config)
        if difference(config) is not None:
            config = _reduced(config, difference)
            raise AssertionError(difference(config))

    # First, configs solved for that make one gate active, or two of which one weighs in the
    # choice, and leave the rest out: how two preferences, or a refusal and a preference, are
    # ordered shows only where both hold, which random draws may never give alone.
    sweep = [*_gate_sweep(matrix, schema, at), *_sweep(schema, constants, skip)]
    # Each literal of the legacy code (and its neighbours), alone in each field of its type with
    # the rest left to defaults: a rule on a value no predicate mentions is reached for sure
    # when it needs only that value, whatever the random draws do.
    for config in sweep:
        config = strip(config)
        try:
            matrix.resolve(config, version=at)
        except ConfigError:  # a config the schema refuses (a required field left out)
            continue
        except ResolutionError:
            pass
        examples[0] += 1
        if difference(config) is not None:
            config = _reduced(config, difference)
            raise AssertionError(difference(config))
    agree()
    return Reached(examples[0], tuple(constants), tuple(sorted(tracer.lines)),
                   tuple(sorted(tracer.lines - tracer.run)), tracer.measured)


@attrs.frozen
class _Outcome:
    """One side's answer to one call: the runner chosen (None: none), the names each runner
    cannot do, and the refusal (an exception) or None. A legacy side that does not choose has
    ``chooses`` False; ``effective`` is the values the runner runs with, by path (the legacy
    side's, if it says them; the matrix's only then)."""

    runner: Optional[str]
    unsupported: Optional[Mapping[str, FrozenSet[str]]]
    refused: Optional[BaseException]
    chooses: bool = True
    effective: Optional[Mapping[str, object]] = None


_ABSENT = object()


def _names(resolution: Any) -> Dict[str, FrozenSet[str]]:
    return {r: frozenset(f.name for f in features) for r, features in resolution.unsupported.items()}


def _takes(legacy: Callable[..., object], name: str) -> bool:
    try:
        return name in inspect.signature(legacy).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False


def _call(legacy: Callable[..., object], host: object, kwargs: Mapping[str, object],
          refuses: Union[Type[BaseException], Tuple[Type[BaseException], ...]], tracer: _LineTracer,
          dict_given: bool) -> _Outcome:
    try:
        with tracer:
            answer = legacy(host, **kwargs)
    except refuses as error:
        return _Outcome(None, None, error)
    except AttributeError as error:
        if dict_given and isinstance(host, dict):
            raise TypeError(_messages.harness_read_attribute(f"{type(error).__name__}: {error}")) from error
        raise
    if isinstance(answer, Choice):
        if answer.runner is not None and not isinstance(answer.runner, str):
            raise TypeError(_messages.harness_bad_answer(answer.runner))
        mapping = None if answer.unsupported is None else _mapping(answer.unsupported)
        effective = answer.effective
        if effective is not None and (not isinstance(effective, Mapping)
                                      or not all(isinstance(k, str) for k in effective)):
            raise TypeError(_messages.harness_bad_effective(effective))
        return _Outcome(answer.runner, mapping, None, effective=effective)
    if isinstance(answer, Mapping):
        return _Outcome(None, _mapping(answer), None, chooses=False)
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        raise TypeError(_messages.harness_bad_answer(answer))
    return _Outcome(None, {"": frozenset(_checked_names(answer))}, None, chooses=False)


def _mapping(answer: Mapping[Any, Any]) -> Dict[str, FrozenSet[str]]:
    out = {}
    for key, names in answer.items():
        if not isinstance(key, str) or isinstance(names, str) or not isinstance(names, Iterable):
            raise TypeError(_messages.harness_bad_answer(answer))
        out[key] = frozenset(_checked_names(names))
    return out


def _checked_names(names: Iterable[object]) -> List[str]:
    out = list(names)
    if not all(isinstance(n, str) for n in out):
        raise TypeError(_messages.harness_bad_answer(out))
    return out  # type: ignore[return-value]


def _compare(matrix: Matrix, runner: Optional[str], at: object, config: Config, asked: Optional[str],
             theirs: _Outcome, ours: _Outcome) -> Optional[str]:
    """The report of how *theirs* and *ours* differ, or None."""
    shown = json.dumps(config, sort_keys=True, default=str)
    if theirs.refused is not None or theirs.chooses:
        # Refused, and no runner can serve, are one answer: the config gets no runner.
        chosen = None if theirs.refused is not None else theirs.runner
        if chosen != ours.runner:
            return _messages.harness_choice(at, shown, _asked(matrix, asked), _said(matrix, theirs),
                                            _said(matrix, ours))
    if theirs.effective is not None and theirs.runner is not None and ours.effective is not None:
        found = _effective_differences(at, theirs.effective, ours.effective)
        if found:
            return _messages.harness_effective(at, shown, _asked(matrix, asked), _said(matrix, ours), found)
    if theirs.unsupported is None:
        return None
    for key in sorted(theirs.unsupported):
        target = runner if key == "" else key
        if target is None:
            raise UsageError(_messages.harness_needs_runner())
        matrix.runner(target)
        expected = set(theirs.unsupported[key])
        actual = set((ours.unsupported or {}).get(target, frozenset()))
        if expected != actual:
            return _messages.harness_unsupported(target, matrix.runner(target).name, at, shown,
                                                 _asked(matrix, asked) if asked is not None else None,
                                                 sorted(expected), sorted(actual))
    return None


def _effective_differences(at: object, theirs: Mapping[str, object],
                           ours: Mapping[str, object]) -> List[Tuple[str, object, object]]:
    """(path, legacy's value, the matrix's) for each path *theirs* names whose values differ,
    sorted by path."""
    out = []
    for path in sorted(theirs):
        if path not in ours:
            raise UsageError(_messages.harness_effective_path(path, at, ours))
        if not _same(theirs[path], ours[path]):
            out.append((path, theirs[path], ours[path]))
    return out


def _same(a: object, b: object) -> bool:
    """Whether two config values are one: a version equals its text, a tuple its list, and
    True is not 1."""
    from packaging.version import Version

    a, b = (str(v) if isinstance(v, Version) else list(v) if isinstance(v, tuple) else v for v in (a, b))
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _asked(matrix: Matrix, asked: Optional[str]) -> str:
    return "nothing (automatic choice)" if asked is None else f"{asked!r} ({matrix.runner(asked).name})"


def _said(matrix: Matrix, outcome: _Outcome) -> str:
    if outcome.refused is not None:
        error = outcome.refused
        return f"refused: {type(error).__name__}: {error}"
    if outcome.runner is None:
        return "no runner"
    known = {r.id for r in matrix.runners}
    name = f" ({matrix.runner(outcome.runner).name})" if outcome.runner in known else ""
    return f"{outcome.runner!r}{name}"


def _reduced(config: Config, difference: Callable[[Config], Optional[str]]) -> Config:
    """*config* with every key left out (so that its default applies) whose absence keeps the
    disagreement: values the steering solver pinned do not shrink on their own."""

    def disagrees(candidate: Config) -> bool:
        try:
            return difference(candidate) is not None
        except Exception:  # a config the host or the matrix refuses says nothing here
            return False

    def paths(value: Mapping[str, object], prefix: Tuple[str, ...] = ()) -> List[Tuple[str, ...]]:
        out: List[Tuple[str, ...]] = []
        for key, inner in value.items():
            out.append(prefix + (key,))
            if isinstance(inner, Mapping):
                out.extend(paths(inner, prefix + (key,)))
        return out

    current = copy.deepcopy(config)
    changed = True
    while changed:
        changed = False
        for path in paths(current):
            candidate = copy.deepcopy(current)
            _remove(candidate, ".".join(path))
            if disagrees(candidate):
                current, changed = candidate, True
                break
    return current


def _remove(config: Config, path: str) -> None:
    holder: object = config
    parts = path.split(".")
    for key in parts[:-1]:
        if not isinstance(holder, dict) or not isinstance(holder.get(key), dict):
            return
        holder = holder[key]
    if isinstance(holder, dict):
        holder.pop(parts[-1], None)


def _lookup(config: Mapping[str, object], path: str) -> object:
    value: object = config
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _ABSENT
        value = value[part]
    return value


# --- the legacy code: its constants and its lines -------------------------------------------

#: Code the harness does not read for constants or lines: its own, and the standard library's.
_SKIPPED = ("matrix", "hypothesis", "attrs", "attr", "_pytest", "pytest", "pydantic")
#: At most this many functions are read (a legacy function calling into a large library).
_MOST_FUNCTIONS = 64


def _legacy_code(legacy: Callable[..., object]) -> Tuple[List[types.CodeType], Set[str]]:
    """The code of *legacy* and of the Python functions it names (globals, closure cells,
    attributes of modules it names), transitively, the standard library and matrix's own left
    out; nested code (lambdas, comprehensions) included."""
    seen: Set[int] = set()
    out: List[types.CodeType] = []
    docs: Set[str] = set()
    queue: List[object] = [legacy]
    while queue and len(seen) < _MOST_FUNCTIONS:
        obj = queue.pop(0)
        obj = getattr(obj, "__func__", obj)  # a bound method
        if not isinstance(obj, types.FunctionType) or id(obj) in seen or not _own(obj):
            if not isinstance(obj, types.FunctionType) and callable(obj) and not isinstance(obj, type):
                call = type(obj).__dict__.get("__call__")  # an instance of a class with __call__
                if isinstance(call, types.FunctionType) and id(call) not in seen:
                    queue.append(call)
            continue
        seen.add(id(obj))
        if obj.__doc__:
            docs.add(obj.__doc__)
        codes = list(_nested(obj.__code__))
        out.extend(codes)
        names = {n for c in codes for n in c.co_names}
        scope: Dict[str, object] = dict(obj.__globals__)
        for name, cell in zip(obj.__code__.co_freevars, obj.__closure__ or ()):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # an empty cell
                pass
        found = [scope[n] for n in names if n in scope]
        modules = [m for m in found if isinstance(m, types.ModuleType)]
        while modules:  # `host.gates.fn` names 'host', 'gates' and 'fn'
            module = modules.pop()
            for name in names:
                inner = getattr(module, name, None)
                if isinstance(inner, types.ModuleType) and inner not in found:
                    modules.append(inner)
                if inner is not None and inner not in found:
                    found.append(inner)
        queue.extend(f for f in found if isinstance(f, types.FunctionType) or hasattr(f, "__func__"))
    return out, docs


def _own(function: types.FunctionType) -> bool:
    module = (function.__module__ or "").split(".")[0]
    if module in _SKIPPED or module in getattr(sys, "stdlib_module_names", ()):
        return False
    filename = function.__code__.co_filename
    return not filename.startswith("<") or filename.startswith("<string>")


def _nested(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _nested(const)


def _literals(codes: Iterable[types.CodeType]) -> List[object]:
    """The int, float and str literals of *codes* (tuples of them flattened), in order, once."""
    out: List[object] = []
    seen: Set[Tuple[type, object]] = set()

    def add(value: object) -> None:
        if isinstance(value, tuple) or isinstance(value, frozenset):
            for inner in value:
                add(inner)
        elif isinstance(value, (int, float, str)) and not isinstance(value, bool):
            if isinstance(value, str) and len(value) > 200:  # a docstring, not a compared value
                return
            key = (type(value), value)
            if key not in seen:
                seen.add(key)
                out.append(value)

    for code in codes:
        for const in code.co_consts:
            if not isinstance(const, types.CodeType):
                add(const)
    return out


#: The sweep of gates solved for stops after this many questions, each with this budget.
_MOST_SOLVED = 600
_SOLVE_BUDGET = 2_000


def _gate_sweep(matrix: Matrix, schema: Schema, at: Version) -> Iterator[Config]:
    """A config for each gate, and each adjustment, that makes its condition hold, one for each
    near miss of a gate's ``and`` (every operand but one holds), then for each pair of gates of which one weighs in the choice (a preference, a forced runner, a
    removal, a runner's requirement, candidacy or order) that makes both active: the solver's
    first answer, which sets only the fields those conditions read (skipped where there is
    none, or the search gives up)."""
    from ._nodes import And, Node, Not
    from ._space import Inconclusive, Space
    from .strategies import _plain

    gates = [g for g in matrix.gates_at(at) if all(p in schema for p in g.when.paths)]
    adjustments = [a.when.node for a in matrix.adjustments_at(at) if all(p in schema for p in a.when.paths)]
    nodes = [g.when.node for g in gates] + adjustments
    choosing = [i for i, g in enumerate(gates) if g.prefers is not None or g.forces is not None
                or g.deprecated is not None or g.origin is not None]
    # The near misses of each gate's ``and``: every operand holds but one (a legacy function that
    # ignores a fact differs only there; random draws reached it in five runs of six).
    misses = [[*(o for o in g.when.node.operands if o is not miss), Not(miss)] for g in gates
              if isinstance(g.when.node, And) for miss in g.when.node.operands]
    space = Space(schema, nodes + [n for group in misses for n in group], budget=_SOLVE_BUDGET)
    groups: List[List[Node]] = [[n] for n in nodes] + misses
    groups += [[nodes[i], nodes[j]] for i in choosing for j in range(len(gates)) if j != i and (j not in choosing or j > i)]
    for group in groups[:_MOST_SOLVED]:
        try:
            found = space.solve(true=group)
        except Inconclusive:
            continue
        if found is None:
            continue
        config: Config = {}
        for path in sorted(found, key=lambda p: p.count(".")):
            value = found[path]
            parts = path.split(".")
            holder: Any = config
            for part in parts[:-1]:
                if not isinstance(holder.get(part), dict):
                    break
                holder = holder[part]
            else:
                field = schema.get(path)
                if field is not None and field.type == "section":
                    holder[parts[-1]] = None if value is None else {}
                else:
                    holder[parts[-1]] = _plain(value)
        yield config


#: The sweep of single-field configs stops after this many (a cheap, bounded first pass).
_MOST_SWEPT = 1_000


def _sweep(schema: Schema, constants: List[object], skip: Set[str]) -> Iterator[Config]:
    """One config per (field, literal or neighbour of its type): that field set, nothing else."""
    count = 0
    for field in schema:
        if field.choices is not None or field.type in ("bool", "section") or field.path in skip:
            continue
        for value in _candidates(field, constants):
            if count >= _MOST_SWEPT:
                return
            count += 1
            config: Config = {}
            holder = config
            parts = field.path.split(".")
            for part in parts[:-1]:
                holder = holder.setdefault(part, {})
            holder[parts[-1]] = value
            yield config


def _candidates(field: Field, constants: List[object]) -> Iterator[object]:
    seen: Set[Tuple[type, object]] = set()
    for c in constants:
        out: List[object] = []
        if field.type in ("int", "float", "list[int]") and isinstance(c, (int, float)) and not isinstance(c, bool):
            v: Union[int, float]
            for v in (c - 1, c, c + 1):
                if field.type != "float":
                    if v != int(v):
                        continue
                    v = int(v)
                if (field.min is None or v >= field.min) and (field.max is None or v <= field.max):
                    out.append([v] if field.type == "list[int]" else v)
        elif field.type in ("str", "list[str]") and isinstance(c, str):
            out.append([c] if field.type == "list[str]" else c)
        elif field.type == "version" and isinstance(c, str) and _is_version(c):
            out.append(c)
        for value in out:
            key = (type(value), repr(value))
            if key not in seen:
                seen.add(key)
                yield value


def _is_version(text: str) -> bool:
    return to_version(text) is not None


def _lines(code: types.CodeType) -> Set[Tuple[str, int]]:
    lines = {line for _, line in dis.findlinestarts(code) if line is not None}
    if code.co_name != "<lambda>":
        lines.discard(code.co_firstlineno)  # the `def` line, run on every call
    return {(code.co_filename, line) for line in lines}


class _LineTracer:
    """Records the lines of *codes* run while it is entered, with `sys.settrace`, only inside
    those functions (the tracer returns None for every other frame); it does nothing when
    another tracer is set, since replacing a coverage tool's would cost its measurement."""

    def __init__(self, codes: Iterable[types.CodeType]) -> None:
        self.codes = set(codes)
        self.lines: Set[Tuple[str, int]] = set()
        for code in self.codes:
            self.lines |= _lines(code)
        self.run: Set[Tuple[str, int]] = set()
        self.measured = True
        self.active = False

    def __enter__(self) -> None:
        if sys.gettrace() is not None:
            self.measured = False
            return
        self.active = True
        sys.settrace(self._call)  # type: ignore[arg-type]

    def __exit__(self, *exc: object) -> None:
        if self.active:
            sys.settrace(None)
            self.active = False

    def _call(self, frame: types.FrameType, event: str, arg: object) -> Optional[Callable[..., object]]:
        if frame.f_code not in self.codes:
            return None
        self.run.add((frame.f_code.co_filename, frame.f_lineno))
        return self._line

    def _line(self, frame: types.FrameType, event: str, arg: object) -> Optional[Callable[..., object]]:
        if event == "line":
            self.run.add((frame.f_code.co_filename, frame.f_lineno))
        return self._line


def _short(filename: str) -> str:
    import os

    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive
        return filename
    return filename if relative.startswith("..") else relative
