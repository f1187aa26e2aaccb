"""Resolution: which features a config uses, what each runner cannot do, which runner to use.

Everything is derived from one generator, :func:`iter_findings`, that evaluates every gate in
force (never stopping at the first) and yields what it finds; :func:`resolve` and
:func:`is_supported` are two ways of reading it (as jsonschema's ``iter_errors`` serves
``validate`` and ``is_valid``).
"""

from __future__ import annotations

import logging
import threading
from typing import Dict, Iterator, List, Mapping, Optional, Tuple

import attrs
from packaging.version import InvalidVersion, Version

from . import _access, _messages
from .errors import (ConfigError, NoRunnerError, RemovedFeatureError, UnsupportedFeatureError,
                     UsageError)
from .schema import BLOCKING, Feature, Matrix

__all__ = [
    "Finding",
    "Resolution",
    "ResolutionWarning",
    "WARNING_KINDS",
    "iter_findings",
    "resolve",
    "is_supported",
    "as_version",
]


def __dir__() -> List[str]:
    return __all__


WARNING_KINDS = ("deprecated", "fallback", "opt-in", "partial")


def as_version(value: object) -> Version:
    """*value* as a `Version`; raises `UsageError` for anything that is not one."""
    if isinstance(value, Version):
        return value
    if isinstance(value, str):
        try:
            return Version(value)
        except InvalidVersion:
            pass
    raise UsageError(_messages.invalid_version(value))


@attrs.frozen
class Finding:
    """One thing found about a config: a feature is ``active``, ``deprecated`` or ``removed``,
    or a runner's ``status`` for an active feature is not ``yes``."""

    kind: str
    feature: Feature
    runner: Optional[str] = None
    status: Optional[str] = None


def iter_findings(matrix: Matrix, config: object, *, version: Optional[Version] = None,
                  values: Optional[Dict[str, object]] = None) -> Iterator[Finding]:
    """Evaluate every gate in force at *version* against *config*, yielding what holds.

    :param values: filled with every config value read, by path (for explanations).
    :raises ConfigError: naming the path and the feature whose gate read it.
    """
    v = matrix.version if version is None else version
    schema = matrix.schema
    read = values if values is not None else {}

    def lookup(path: str) -> object:
        try:
            return read[path]
        except KeyError:
            value = read[path] = _access.read(config, path, schema)
            return value

    from .predicates import truth

    gates = _gates(matrix, v)
    # Every value any gate in force reads is checked, whatever the evaluation order skips:
    # a wrong value must not pass unnoticed because an earlier test was False.
    for path, reader in gates.paths:
        try:
            lookup(path)
        except ConfigError as error:
            error.feature = reader
            raise
    for feature in gates.features:
        if not truth(feature.when._node, lookup):
            continue
        yield Finding("active", feature)
        deprecation = feature.deprecated
        if deprecation is not None and v >= deprecation.since:
            yield Finding("removed" if deprecation.is_removed(v) else "deprecated", feature)
        for runner in matrix.runners:
            status = feature.status(runner.id, v)
            if status != "yes":
                yield Finding("status", feature, runner.id, status)


@attrs.frozen
class _Gates:
    features: Tuple[Feature, ...]
    #: (path, id of the first feature that reads it), in declaration order.
    paths: Tuple[Tuple[str, str], ...]


def _gates(matrix: Matrix, version: Version) -> _Gates:
    """The gates in force at *version* and the paths they read (cached on the matrix)."""
    key = ("gates", version)
    try:
        return matrix._caches[key]
    except KeyError:
        pass
    features = tuple(f for f in matrix.features if f.in_force(version))
    paths: Dict[str, str] = {}
    for feature in features:
        for path in sorted(feature.when.paths):
            paths.setdefault(path, feature.id)
    gates = matrix._caches[key] = _Gates(features, tuple(paths.items()))
    return gates


@attrs.frozen
class ResolutionWarning:
    """Something the user should be told: ``kind`` is one of `WARNING_KINDS`."""

    kind: str = attrs.field(validator=attrs.validators.in_(WARNING_KINDS))
    feature: Optional[str]
    runner: Optional[str]
    message: str

    def __str__(self) -> str:
        return self.message


_EMITTED: set = set()
_EMIT_LOCK = threading.Lock()


@attrs.frozen(eq=False)
class Resolution:
    """The answer for one config: a frozen value (its errors carry it too)."""

    runner: Optional[str]
    version: Version
    active: Tuple[Feature, ...]
    unsupported: Mapping[str, Tuple[Feature, ...]]
    warnings: Tuple[ResolutionWarning, ...]
    requested: Optional[str] = None
    matrix: Matrix = attrs.field(default=None, repr=False)
    values: Mapping[str, object] = attrs.field(factory=dict, repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resolution):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict:
        """A JSON-ready dict with stable keys."""
        version = self.version
        return {
            "matrix": self.matrix.name if self.matrix is not None else None,
            "version": str(version),
            "requested": self.requested,
            "runner": self.runner,
            "active": [{"id": f.id, "name": f.name} for f in self.active],
            "unsupported": {
                runner: [{"id": f.id, "name": f.name, "status": f.status(runner, version)}
                         for f in features]
                for runner, features in self.unsupported.items()
            },
            "warnings": [
                {"kind": w.kind, "feature": w.feature, "runner": w.runner, "message": w.message}
                for w in self.warnings
            ],
        }

    def explain(self) -> str:
        """Why this runner: every runner's blockers, with the gate and the values that made
        it true, then the warnings."""
        matrix = self.matrix
        lines = []
        how = f"asked for {self.requested!r}" if self.requested else "chosen automatically"
        if self.runner is not None:
            chosen = matrix.runner(self.runner)
            lines.append(f"Runner: {chosen.id} ({chosen.name}), {how}, at version {self.version}")
        else:
            lines.append(f"Runner: none ({how}), at version {self.version}")
        lines.append("Runners, highest priority first:")
        for runner in matrix.runners:
            blockers = self.unsupported[runner.id]
            if self.requested == runner.id:
                blockers = tuple(f for f in blockers if f.status(runner.id, self.version) == "no")
            mark = ", chosen" if runner.id == self.runner else ""
            head = f"  {runner.id} ({runner.name}, priority {runner.priority})"
            if not blockers:
                lines.append(f"{head}: no blockers{mark}")
                continue
            count = len(blockers)
            lines.append(f"{head}: blocked by {count} feature{'s' if count != 1 else ''}{mark}")
            for feature in blockers:
                statement = feature.statement(runner.id, self.version)
                lines.append(f"    - {feature.name} [{statement.status}]")
                lines.extend(self._why(feature, indent="        "))
                if statement.note:
                    lines.append(f"        note: {statement.note}")
        names = ", ".join(f.name for f in self.active) or "none"
        lines.append(f"Active features: {names}")
        if self.warnings:
            lines.append("Warnings:")
            lines.extend(f"  - {w.kind}: {w.message}" for w in self.warnings)
        return "\n".join(lines)

    def _why(self, feature: Feature, indent: str) -> List[str]:
        lines = [f"{indent}when: {feature.when}"]
        read = [p for p in sorted(feature.when.paths) if p in self.values]
        if read:
            shown = ", ".join(f"{p} = {_show(self.values[p])}" for p in read)
            lines.append(f"{indent}because: {shown}")
        return lines

    def emit(self, logger: Optional[logging.Logger] = None) -> None:
        """Log each warning once per process (thread-safe), like vLLM's ``warning_once``."""
        log = logger if logger is not None else logging.getLogger("matrix")
        for warning in self.warnings:
            key = (warning.kind, warning.feature, warning.runner, warning.message)
            with _EMIT_LOCK:
                if key in _EMITTED:
                    continue
                _EMITTED.add(key)
            log.warning("%s", warning.message)


def _show(value: object) -> str:
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, Version):
        return repr(str(value))
    if isinstance(value, tuple):
        return repr(list(value))
    return "<section>"


def _blockers(runner_name: str, features: Tuple[Feature, ...], runner: str, version: Version) -> str:
    names = [f.name + (" (opt-in)" if f.status(runner, version) == "opt-in" else "") for f in features]
    return _messages.does_not_support(runner_name, names)


def resolve(matrix: Matrix, config: object, *, runner: Optional[str] = None,
            version: Optional[object] = None) -> Resolution:
    """Resolve *config* against *matrix*.

    :param runner: the runner the user asked for; None chooses automatically by priority.
    :param version: resolve as of this version (the matrix's own by default).
    :raises ConfigError: the config does not fit the schema.
    :raises RemovedFeatureError: the config uses a feature removed at *version*.
    :raises NoRunnerError: automatic choice found every runner blocked.
    :raises UnsupportedFeatureError: the runner asked for cannot serve the config.
    :raises UsageError: *runner* or *version* is not valid.
    """
    v = matrix.version if version is None else as_version(version)
    requested = matrix.runner(runner) if runner is not None else None
    values: Dict[str, object] = {}
    active: List[Feature] = []
    unsupported: Dict[str, List[Feature]] = {r.id: [] for r in matrix.runners}
    partial: Dict[str, List[Feature]] = {r.id: [] for r in matrix.runners}
    deprecated: List[Feature] = []
    removed: List[Feature] = []
    for finding in iter_findings(matrix, config, version=v, values=values):
        kind = finding.kind
        if kind == "active":
            active.append(finding.feature)
        elif kind == "status":
            if finding.status in BLOCKING:
                unsupported[finding.runner].append(finding.feature)
            else:
                partial[finding.runner].append(finding.feature)
        elif kind == "deprecated":
            deprecated.append(finding.feature)
        else:
            removed.append(finding.feature)
    frozen = {r: tuple(fs) for r, fs in unsupported.items()}
    warnings = [
        ResolutionWarning("deprecated", f.id, None, _messages.deprecated(
            f.name, str(f.deprecated.since), _str(f.deprecated.remove_in),
            f.deprecated.replacement, f.deprecated.message))
        for f in deprecated
    ]

    def result(chosen: Optional[str]) -> Resolution:
        return Resolution(chosen, v, tuple(active), frozen, tuple(warnings),
                          requested.id if requested else None, matrix, values)

    if removed:
        message = "; ".join(
            _messages.removed(f.name, str(f.deprecated.remove_in), f.deprecated.replacement,
                              f.deprecated.message) for f in removed)
        raise RemovedFeatureError(message, result(None))
    if requested is None:
        chosen = next((r for r in matrix.runners if not frozen[r.id]), None)
        if chosen is None:
            blockers = [_blockers(r.name, frozen[r.id], r.id, v) for r in matrix.runners]
            raise NoRunnerError(_messages.no_runner(blockers), result(None))
        skipped = matrix.runners[: matrix.runners.index(chosen)]
        if skipped:
            warnings.append(ResolutionWarning("fallback", None, chosen.id, _messages.fallback(
                [_blockers(r.name, frozen[r.id], r.id, v) for r in skipped], chosen.name)))
    else:
        chosen = requested
        refused = tuple(f for f in frozen[chosen.id] if f.status(chosen.id, v) == "no")
        if refused:
            raise UnsupportedFeatureError(
                _messages.does_not_support(chosen.name, [f.name for f in refused]), result(None))
        for feature in frozen[chosen.id]:
            note = feature.statement(chosen.id, v).note
            warnings.append(ResolutionWarning(
                "opt-in", feature.id, chosen.id, _messages.opt_in(feature.name, chosen.name, note)))
    for feature in partial[chosen.id]:
        note = feature.statement(chosen.id, v).note
        warnings.append(ResolutionWarning(
            "partial", feature.id, chosen.id, _messages.partial(feature.name, chosen.name, note)))
    return result(chosen.id)


def is_supported(matrix: Matrix, config: object, runner: str, *,
                 version: Optional[object] = None) -> bool:
    """Whether *runner*, asked for explicitly, can serve *config* (stops at the first ``no``)."""
    v = matrix.version if version is None else as_version(version)
    matrix.runner(runner)
    for finding in iter_findings(matrix, config, version=v):
        if finding.kind == "removed":
            return False
        if finding.kind == "status" and finding.runner == runner and finding.status == "no":
            return False
    return True


def _str(value: Optional[Version]) -> Optional[str]:
    return None if value is None else str(value)
