"""The report of a resolution: the five answers of vLLM's RFC #57649 as data (`Resolution.report`).

Built on demand from what the `Resolution` already knows (`to_dict`, `explanation`, the
warnings, `remedies`): resolving costs nothing more. ``matrix/report.schema.json`` is the JSON
Schema of the dict, and docs/reference/report.md explains it with real output. The keys:

- ``supported``: with a runner asked for, whether that runner (the one a former id names)
  serves the config, neither redirected nor overridden; in automatic choice, whether a runner
  serves it.
- ``effective``: the ``runner`` that serves (None: refused), its ``name``, and ``settings``:
  every path an adjustment changed, with its value in the effective config.
- ``actions``: what resolution did, each at most once, in this order of precedence:

  1. ``refuse``: no runner serves the config (the resolver raised a `ResolutionError`);
  2. ``redirect``: the runner asked for (or the one automatic choice took, by a redirect with
     ``applies = "always"``) was replaced by another, by a redirect of its runner file or by a
     feature that forces a runner with ``override``;
  3. ``fall-back``: automatic choice passed over a runner it would have taken first: a
     candidate of the order before the chosen one is blocked (a ``fallback`` warning), or the
     runner of a preference that is not ``outright`` is not free (it is passed over);
  4. ``adjust``: an adjustment changed the config;
  5. ``run``: none of the above: the runner asked for, or the first candidate automatic
     choice tries (by priority, an order or a preference), runs the config as given. It is
     listed only alone.

  ``action`` is the first of ``actions``.
- ``why``: the deciding rules, in the order resolution meets them (`ROLES` says what each
  role means), each with its ``kind``, ``id`` and ``name`` (a failed requirement's: its reason
  filled, as `Resolution.explain` says it), the ``runner`` it is about, its
  ``predicate``, whether that predicate ``holds`` (a requirement blocks and a runner is not a
  candidate where theirs does not), the values it read (``because``: on the config of choice,
  but for the rules of the runner that serves, read on the effective config, and an
  adjustment's, read on the config as that adjustment found it, a ``role.<id>`` as the runner
  that filled the role there: `matrix._roles.At`), and where it is written
  (``file``, ``line``, ``column``, ``place``; a line of a runner file only where the names the
  matrix was loaded by still read its files, else None).
- ``remedy``: the remedies (`Resolution.remedies`, each as `Remedies.to_dict` gives it).
- ``warnings``: the warnings, as `Resolution.to_dict` gives them.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, get_args

from . import _messages, _roles

if TYPE_CHECKING:  # pragma: no cover
    from ._locate import Locations
    from .predicates import Predicate
    from .resolver import Resolution, ResolutionWarning
    from .schema import Feature, Runner

#: What resolution did with a config (`Resolution.report`'s ``action``), in order of precedence.
ResolutionAction = Literal["refuse", "redirect", "fall-back", "adjust", "run"]
ACTIONS: Tuple[str, ...] = get_args(ResolutionAction)

#: Why a rule is in a report's ``why``.
ROLES: Mapping[str, str] = {
    "adjusts": "an adjustment that changed the config",
    "removed": "a feature removed at the version is used: the config is refused",
    "redirects": "a redirect made the request one for another runner",
    "forbids": "a feature that forces another runner refuses the runner asked for",
    "overrides": "a feature that forces a runner replaced the runner asked for",
    "prefers": "a feature that prefers a runner (taken when that runner is free)",
    "orders": "the order of automatic choice that applied",
    "not-a-candidate": "a runner tried is not a candidate: its candidate condition does not hold",
    "blocks": "keeps the runner from serving: a feature it does not support, or a requirement it fails",
    "warns": "a feature used that is deprecated, or that the runner serving supports partly or as opt-in",
}

_Values = Mapping[str, object]


def report(resolution: Resolution, *, remedies: bool, json_value: Callable[[object], object]) -> Dict[str, Any]:
    """`Resolution.report` (the module docstring states the keys); *json_value* is how the
    resolver writes a config value as JSON (passed in: the resolver imports this module)."""
    data = resolution.to_dict()
    explained = resolution.explanation(remedies=False)
    rules = _Rules(resolution, json_value)
    chosen = resolution.runner
    settings: Dict[str, object] = {}
    for change in data["adjustments"]:
        settings[change["path"]] = data["effective"].get(change["path"], change["after"])
    actions = _actions(resolution, explained)
    return {
        "matrix": data["matrix"],
        "version": data["version"],
        "requested": resolution.requested,
        "supported": _supported(resolution, explained),
        "effective": {"runner": chosen, "name": None if chosen is None else resolution.matrix.runner(chosen).name,
                      "settings": settings},
        "action": actions[0],
        "actions": actions,
        "why": rules.why(explained),
        "remedy": [r.to_dict() for r in resolution.remedies()] if remedies else [],
        "warnings": data["warnings"],
    }


def json_schema() -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of `Resolution.report`: ``matrix/report.schema.json``."""
    import json

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.schema.json"), encoding="utf-8") as f:
        data: Dict[str, Any] = json.load(f)
    return data


def _supported(resolution: Resolution, explained: Mapping[str, Any]) -> bool:
    if resolution.runner is None:
        return False
    if resolution.requested is None:
        return True
    return explained["how"] == "requested" and resolution.runner in (resolution.requested, explained["alias_of"])


def _actions(resolution: Resolution, explained: Mapping[str, Any]) -> List[str]:
    kinds = [w.kind for w in resolution.warnings]
    done = {
        "refuse": resolution.runner is None,
        "redirect": explained["how"] in ("redirected", "overridden"),
        "fall-back": resolution.requested is None and ("fallback" in kinds or any(_passed_over(resolution, w)
                                                                                   for w in resolution.warnings)),
        "adjust": bool(resolution.adjustments),
    }
    return [a for a in ACTIONS if done.get(a)] or ["run"]


def _passed_over(resolution: Resolution, warning: ResolutionWarning) -> bool:
    """Whether *warning* says a preference was passed over (one that is not outright, for a
    runner that does not serve; an outright one refuses instead, and may say the preference)."""
    if warning.kind != "preference" or warning.feature is None or warning.runner == resolution.runner:
        return False
    prefers = resolution.matrix.feature(warning.feature).prefers
    return prefers is not None and not prefers.outright


class _Rules:
    """The deciding rules of one resolution, located in the files that declare them."""

    def __init__(self, resolution: Resolution, json_value: Callable[[object], object]) -> None:
        self.resolution = resolution
        self.json = json_value
        self.matrix = resolution.matrix
        self.version = resolution.version
        adjusting = resolution._adjusting
        served = None if adjusting is None else adjusting[0]
        self.served = served
        # The config of choice C: the values the statuses of a runner that does not serve read.
        self.choice: _Values = resolution._values_of("\0")
        self.final: _Values = resolution.values
        self._texts: Dict[Optional[str], Optional[Locations]] = {}
        self._gates: Optional[Dict[str, Feature]] = None

    # --- where ---------------------------------------------------------------------------------

    def _locations(self, file: Optional[str]) -> Optional[Locations]:
        """The located text of *file* (None: features.toml), where it can be read."""
        if file in self._texts:
            return self._texts[file]
        from ._locate import Locations

        found: Optional[Locations] = None
        if file is None:
            found = None if self.matrix.text is None else Locations(self.matrix.text)
        elif self._files_read_as_named():
            try:
                with open(file, encoding="utf-8") as handle:
                    found = Locations(handle.read())
            except (OSError, UnicodeDecodeError):
                found = None
        self._texts[file] = found
        return found

    def _files_read_as_named(self) -> bool:
        """Whether the names the matrix was loaded by still read its files (from this folder):
        only then is a runner file's text the one loaded (the matrix keeps only features.toml's)."""
        name = self.matrix.file
        if name is None or self.matrix.text is None or not os.path.isfile(name):
            return False
        try:
            with open(name, encoding="utf-8") as handle:
                return handle.read() == self.matrix.text
        except (OSError, UnicodeDecodeError):
            return False

    def _where(self, runner: Optional[Runner], key: Tuple[object, ...], role: str = "",
               about: Optional[str] = None) -> Dict[str, Any]:
        """Where *key* stands: in features.toml, or in *runner*'s file (None: given as a table);
        on a composed matrix, `_composed_where`."""
        if self.matrix.overlay is not None:
            return self._composed_where(runner, key, role, about)
        if runner is not None and runner.file is None:
            return {"file": None, "line": None, "column": None, "place": _messages.place(key)}
        file = None if runner is None else runner.file
        located = self._locations(file)
        line, column = (located.key(key) if located is not None else None) or (None, None)
        return {"file": self.matrix.file if file is None else file, "line": line, "column": column,
                "place": _messages.place(key)}

    def _composed_where(self, runner: Optional[Runner], key: Tuple[object, ...], role: str,
                        about: Optional[str]) -> Dict[str, Any]:
        """Where the rule at *key* of a composed matrix is written: at the overlay operation that
        decided it (`matrix._overlay_origin.deciding`), else in upstream's features.toml or
        runner file (a runner made ``from`` another: that one's), never the overlay's."""
        from . import _overlay_origin

        overlay = self.matrix.overlay
        assert overlay is not None
        place = _messages.place(key)
        op = _overlay_origin.deciding(self.matrix, key, role, about, None if runner is None else runner.id,
                                     self.version)
        if op is not None:
            return {"file": op.file, "line": op.line, "column": op.column, "place": place}
        file = overlay.upstream_file if runner is None else os.path.join(
            overlay.runners_folder, f"{_overlay_origin.upstream_runner(self.matrix, runner.id)}.toml")
        located = self._upstream_locations(file)
        line, column = (located.key(key) if located is not None else None) or (None, None)
        return {"file": file, "line": line, "column": column, "place": place}

    def _upstream_locations(self, file: str) -> Optional[Locations]:
        """The located text of an upstream file of a composed matrix (read where it is)."""
        if file not in self._texts:
            from ._locate import Locations

            try:
                with open(file, encoding="utf-8") as handle:
                    self._texts[file] = Locations(handle.read())
            except (OSError, UnicodeDecodeError):
                self._texts[file] = None
        return self._texts[file]

    # --- rules ---------------------------------------------------------------------------------

    def _rule(self, role: str, kind: str, id: str, name: str, runner: Optional[str], predicate: Optional[Predicate],
              holds: Optional[bool], values: _Values, declared: Optional[Runner], key: Tuple[object, ...]
              ) -> Dict[str, Any]:
        read = sorted(predicate.paths) if predicate is not None else []
        return {"role": role, "kind": kind, "id": id, "name": name, "runner": runner,
                "predicate": None if predicate is None else str(predicate), "holds": holds,
                "because": {p: self.json(values[p]) for p in read if p in values},
                **self._where(declared, key, role, runner)}

    def _feature(self, role: str, feature: Feature, runner: Optional[str], values: _Values) -> Dict[str, Any]:
        return self._rule(role, "feature", feature.id, feature.name, runner, feature.when, True, values, None,
                          ("features", feature.id, "when"))

    def _blocker(self, runner: Runner, blocker: Mapping[str, Any]) -> Dict[str, Any]:
        values = self.final if runner.id == self.served else self.choice
        gate = self._gate(blocker["id"])
        origin = gate.origin
        from .schema import Requirement

        if isinstance(origin, Requirement):
            # A matrix-wide requirement stands in features.toml, a runner's in its file.
            chain = [r for r in (self.matrix.requires if origin.wide else runner.requires) if r.kind == origin.kind]
            key: Tuple[object, ...] = ("requires", origin.kind)
            if len(chain) > 1:
                key += (chain.index(origin),)
            # Its name as explain() says it: the reason with the values it was read on (issue 30, F7).
            return self._rule("blocks", "requirement", gate.id, blocker["name"], runner.id, origin.condition, False,
                              values, None if origin.wide else runner, key)
        return self._feature("blocks", gate, runner.id, values)

    def _gate(self, id: str) -> Feature:
        if self._gates is None:
            self._gates = {g.id: g for g in self.matrix.gates_at(self.version)}
        return self._gates[id]

    def _not_candidate(self, runner: Runner) -> Dict[str, Any]:
        return self._rule("not-a-candidate", "candidate", f"{runner.id}:candidate", f"{runner.name} is a candidate",
                          runner.id, runner.candidate, False, self.choice, runner, ("candidate",))

    def _tried(self, entry: Mapping[str, Any], automatic: bool, only_no: bool = False) -> List[Dict[str, Any]]:
        """Why a runner of the explanation did not serve: not a candidate, or its blockers."""
        runner = self.matrix.runner(entry["id"])
        # A composed matrix's explanation says the overlay operations its answers depend on
        # (matrix._overlay_origin): each rule carries them as "origin".
        if automatic and not entry["candidate"]:
            return [dict(self._not_candidate(runner), **({"origin": entry["origin"]} if "origin" in entry else {}))]
        return [dict(self._blocker(runner, b), **({"origin": [b["origin"]] if b["origin"] else []} if "origin" in b else {}))
                for b in entry["blockers"] if not only_no or b["status"] == "no"]

    def _adjusts(self, before: bool) -> List[Dict[str, Any]]:
        """The adjustments that changed the config, before the choice or the runner's, each read
        on the config as it found it."""
        adjusted = self.resolution.adjustments
        out = []
        for index, change in enumerate(adjusted):
            if (change.runner is None) is not before or any(a.id == change.id and a.runner == change.runner
                                                             for a in adjusted[:index]):
                continue
            adjustment = next(a for a in self.matrix.adjustments_at(self.version) if a.id == change.id)
            read = _roles.reader(self.matrix, change.runner, functools.partial(self._as_found, index))
            found = {path: read(path) for path in sorted(adjustment.when.paths)}
            rule = self._rule("adjusts", "adjustment", adjustment.id, adjustment.name, change.runner,
                              adjustment.when, True, found, None, ("adjustments", adjustment.id, "when"))
            rule["sets"] = {a.path: self.json(a.after) for a in adjusted if a.id == change.id
                            and a.runner == change.runner}
            if self.matrix.overlay is not None:  # the overlay that added or changed it (matrix._overlay_origin)
                from . import _overlay_origin

                said = _overlay_origin.adjustment(self.matrix, adjustment.id, change.runner).get("origin")
                rule["origin"] = [said] if said is not None else []
            out.append(rule)
        return out

    def _as_found(self, index: int, path: str) -> object:
        """The value of *path* as the adjustment of the *index*-th change found it: the last
        change before it, else the first after it (its value before), else the config of choice,
        else the config as given (a path no gate reads: a role's field)."""
        adjusted = self.resolution.adjustments
        earlier = [a for a in adjusted[:index] if a.path == path]
        if earlier:
            return earlier[-1].after
        later = [a for a in adjusted[index:] if a.path == path]
        if later:
            return later[0].before
        if path in self.choice:
            return self.choice[path]
        return self.resolution._given_value(path)

    def _active_on_choice(self) -> Sequence[Feature]:
        """The features active on the config of choice, which the choice read (`Resolution.active`
        reads the effective config: the same config unless the runner serving, or the runner a
        no-runner error ends on because a feature forces it, adjusted it)."""
        if self.resolution._adjusting is None:
            return self.resolution.active
        from .predicates import truth

        values = self.choice
        return [f for f in self.matrix.features_at(self.version)
                if all(p in values for p in f.when.paths) and truth(f.when.node, values.__getitem__)]

    def _redirected(self) -> List[Dict[str, Any]]:
        """The redirect that sent the request (or automatic choice) to another runner, as a rule."""
        redirect = self.resolution.redirect
        if redirect is None:
            return []
        runner = self.matrix.runner(redirect.runner)
        # One at a stage (issue 30, F6) read the config its stage found: the values it read there.
        read = self.choice if redirect.stage is None else {**self.choice, **self.resolution._adjusting[5][1]}
        return [self._rule("redirects", "redirect", f"{runner.id}:redirect:{redirect.index + 1}",
                           _messages.redirect_name(runner.name, self.matrix.runner(redirect.to).name),
                           redirect.to, redirect.when, True, read, runner, ("redirects", redirect.index))]

    def why(self, explained: Mapping[str, Any]) -> List[Dict[str, Any]]:  # noqa: C901 — one branch per step of resolution, in its order
        resolution, v = self.resolution, self.version
        out = self._adjusts(before=True)
        removed = [f for f in resolution.active if f.deprecated is not None and v >= f.deprecated.since
                   and f.deprecated.is_removed(v)]
        if removed:
            return out + [self._feature("removed", f, None, self.choice) for f in removed]
        entries = {e["id"]: e for e in explained["runners"]}
        features = self._active_on_choice()
        if resolution.requested is not None:
            out += self._redirected()
            asked = resolution._asked()
            forbidding = [f for f in features if f.forces is not None and not f.forces.override
                          and f.forces.runner != asked]
            if forbidding:
                return out + [self._feature("forbids", f, f.forces.runner if f.forces else None, self.choice)
                              for f in forbidding]
            validated = asked
            for w in resolution.warnings:
                if w.kind == "override" and w.feature is not None:
                    out.append(self._feature("overrides", self.matrix.feature(w.feature), w.runner, self.choice))
                    validated = w.runner
            out += self._adjusts(before=False)  # the runner validated is validated after its adjustments
            if resolution.runner is None and validated in entries:
                out += self._tried(entries[validated], automatic=False, only_no=True)
        else:
            forcing = any(f.forces is not None for f in features)
            preferences = [f for f in features if f.prefers is not None and not forcing]
            for feature in preferences:
                assert feature.prefers is not None
                out.append(self._feature("prefers", feature, feature.prefers.runner, self.choice))
                target = feature.prefers.runner
                if target != resolution.runner and target in entries:
                    out += self._tried(entries[target], automatic=True)
            order = explained["order"]
            if order is not None:
                found = next(o for o in self.matrix.orders if o.id == order["id"])
                out.append(self._rule("orders", "order", found.id, found.name, None, found.when, True, self.choice,
                                      None, ("orders", found.id, "when")))
            out += self._redirected()  # a redirect with applies = "always" of the runner the choice reached
            chosen = self.served if resolution.runner is None else resolution.runner
            preferred = any(f.prefers is not None and f.prefers.runner == resolution.runner for f in preferences)
            if not preferred:
                said = {r["runner"] for r in out if r["role"] in ("blocks", "not-a-candidate")}
                for entry in explained["runners"]:
                    if entry["id"] == chosen:
                        break
                    if entry["id"] not in said:
                        out += self._tried(entry, automatic=True)
            out += self._adjusts(before=False)
            if resolution.runner is None and chosen is not None:  # AdjustmentError: blocked on F
                return out + self._tried(entries[chosen], automatic=False)
        for w in resolution.warnings:
            if w.kind in ("deprecated", "partial", "opt-in") and w.feature is not None:
                values = self.choice if w.kind == "deprecated" else self.final
                out.append(self._feature("warns", self.matrix.feature(w.feature), w.runner, values))
        return out
