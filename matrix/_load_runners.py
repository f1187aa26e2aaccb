"""The runners: one file each in the header's folder (``runners/<id>.toml``), or a mapping given
to `matrix.loads`; ids, priorities (one runner per priority), and what failed to load, kept in
the builder's ``broken_runners`` so that the features naming it are not told it is unknown."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional

from . import _format, _load_runner_lifecycle, _messages
from .errors import LoadError
from .schema import Runner

if TYPE_CHECKING:  # pragma: no cover
    from .loader import _Builder, _Source


def folder(b: _Builder, source: _Source, folder: str, shown: str) -> Optional[List[Runner]]:
    """The runners of the files in *folder* (*shown* as the header names it)."""
    if "\0" in folder or not os.path.isdir(folder):
        b.problem(source, ("matrix", "runners"), _messages.no_runner_folder(shown, source.name))
        return None
    b.runners_read_from = folder
    runners = []
    sources: Dict[str, _Source] = {}
    for file in sorted(f for f in os.listdir(folder) if f.endswith(".toml")):
        stem = file[: -len(".toml")]
        name = os.path.join(os.path.dirname(source.name), shown, file) if source.name != "<string>" else os.path.join(shown, file)
        try:
            sources[stem] = b.read(name, os.path.join(folder, file))
        except LoadError as exc:
            b.problems.extend(exc.problems)
            continue
        runner = _runner(b, sources[stem], stem, None)
        if runner is not None:
            runners.append(runner)
    return _runner_set(b, source, runners, sources, _messages.empty_runner_folder(shown))


def mapping(b: _Builder, source: _Source, mapping: Mapping[str, object]) -> Optional[List[Runner]]:
    """The runners of a mapping from id to a `Runner`, a table or a runner file's text."""
    runners = []
    sources: Dict[str, _Source] = {}
    for id, value in mapping.items():
        name = f"runners/{id}.toml"
        sources[id] = b.source(name, value if isinstance(value, str) else "")
        if isinstance(value, Runner):
            runners.append(value)
            continue
        runner = _runner(b, sources[id], id, None if isinstance(value, str) else value)
        if runner is not None:
            runners.append(runner)
    return _runner_set(b, source, runners, sources, _messages.no_runners_given())


def _runner(b: _Builder, source: _Source, id: object, raw: object) -> Optional[Runner]:
    if not isinstance(id, str) or not _format.ID_RE.match(id) or id == "default":
        b.problem(source, (), _messages.bad_runner_id(id))
        return None
    if raw is None:
        try:
            raw = b.parse(source)
        except LoadError as exc:  # not TOML: said, and known to be broken
            b.problems.extend(exc.problems)
            b.broken_runners[id] = None
            return None
    raw = _load_runner_lifecycle.without_removed(b, source, raw)
    spec, bad = b.shaped(source, raw, b.shapes.RunnerSpec, ())
    if spec is None:
        priority = raw.get("priority") if isinstance(raw, dict) and "priority" not in bad else None
        ok = isinstance(priority, int) and not isinstance(priority, bool)
        b.broken_runners[id] = priority if ok else None
        return None
    path = source.name if source.text else None
    b.runner_specs[id] = (source, spec)
    return Runner(id, spec.name, spec.priority, spec.description, spec.links, path, text=source.text or None)


def _runner_set(b: _Builder, source: _Source, runners: List[Runner], sources: Dict[str, _Source],
                empty: str) -> Optional[List[Runner]]:
    # Runners that failed to load still hold their priority, where it could be read.
    priorities = [(r.id, r.priority) for r in runners]
    priorities += [(id, p) for id, p in b.broken_runners.items() if p is not None]
    by_priority: Dict[int, str] = {}
    for id, priority in sorted(priorities):
        other = by_priority.setdefault(priority, id)
        if other != id:
            b.problem(sources.get(id, source), ("priority",), _messages.same_priority(id, priority, other))
    if not runners:
        if not b.problems:
            b.problem(source, ("matrix", "runners"), empty)
        return None
    return runners
