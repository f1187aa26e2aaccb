"""Remedies: the smallest changes to a config that make a given runner serve it.

The rules (docs/explanation/remedies.md explains them with examples):

- **The space searched** is the one ``matrix check`` searches (`matrix._space`): every path the
  gates in force read, each cut into the classes the constants of the gates tell apart, one
  representative per class, a section either None or present. The rules that are no gate (the
  adjustments, a role's requirements, staged requirements; those that read a role's runner left
  out) cut the paths they read too, and each role's field but the base's is one more path (a
  candidate may ask another runner for that role). Where fields are compared with each other,
  the user's own values of those fields are constants too, so that changing one of them alone
  is decided exactly against the others as the user has them. Every candidate is the user's
  whole config with the paths it changes changed: every other value stays as given.
- **What "serves" means** is the resolver's own answer, never a second reading of the rules:
  a candidate config serves runner R when ``resolve(config, runner=R)`` returns R (the runner
  was asked for), or when ``resolve(config)`` chooses R (automatic choice). Anything else (an
  error, another runner) does not serve.
- **What may change.** Every path the gates read but facts (``fact = true``): a user cannot
  change the GPU, so a fact that must differ is a *condition*, stated apart from the changes.
  A field the host no longer has at the version (``until``) may only go back to its default; a
  choice whose ``until`` has passed is never proposed; a value that uses a removed feature is
  refused by the resolver, so it never serves. Setting a field below a section that is None
  makes the section present (its other fields at their defaults); a section made None is
  ``unset``.
- **Asking for the runner by id.** For a runner chosen automatically, asking for it by id
  (``runner='x'``, ``--runner x``) is one more change: the search also asks for it, with every
  change of one path fewer, and a remedy that does says so first (`Remedy.ask`). Automatic
  choice may never take the runner after any change, or only after more: a runner used only on
  request (``candidate = "False"``), a candidacy that does not hold, or a higher priority, a
  preference or an order that takes another runner first wherever a change frees this one; a
  remedy that keeps automatic choice is said only where automatic choice then takes the runner.
  In a matrix with roles, the search varies each role's field but the
  base's (a former id never: its runner's id is offered), and a runner that fills another role
  and refuses the config leaves the remedy for the base role's runner to find.
- **The order.** A remedy's size is the number of paths it changes or conditions. The search
  tries sizes 1, 2, 3… up to `LIMIT` (asking for the runner counting as one path, tried first
  within a size), every path set of that size, those of fewest combinations
  of representatives first, every combination of representatives, keeping every other path at
  the user's value, and stops at the first size with solutions: every remedy given is of the
  smallest size there is. Among
  remedies of that size, those with fewer conditions come first, then the path sets in the
  order of the space, those that ask for the runner last. One path set's solutions are grouped into products, each a `Remedy` whose
  changes list every working value of their class (``one of 'eagle', 'eagle3'``; for a number
  outside related comparisons, the ranges the working classes make up: ``≥ 2``). A bounded int
  field whose every working value is known (enumerated value by value, or read modulo a number
  with every int of the working residue classes counted) says eight or more of them by the rule
  that admits exactly them: ranges, and ``a multiple of 3 from 3 to 1020`` or ``a value from 101
  to 1021 with remainder 0 or 1 when divided by 4`` (a divisor up to 64; between the numbers
  the field is compared with, where one rule does not fit them all).
- **Resolving only what can serve.** A candidate in which a gate that refuses the runner is
  still active (read by the plan's masks, adjustments applied as resolve applies them) cannot
  serve, and neither can any candidate that adds only paths that gate does not depend on: the
  search grows candidates from the paths such gates depend on and resolves only those where
  none is active (`matrix._prune`). This changes no answer, only how many configs are resolved.
- **Honesty.** A search stops once it has read `BUDGET` candidate configs (each one the pruning
  weighs by the gates, and each one it resolves). With remedies found within the size it was
  searching (the path sets of few combinations come first: a field of a thousand values does
  not spend the budget before a pair of small ones is tried), it gives them, saying that it was
  cut short and that other changes of that size may serve too; with none, it says it gave up
  and the largest size it searched in full. Where the partition of a path is not exact (`matrix._space.CAUSES`), a remedy
  found is still one (the resolver said so) but not proved the smallest, and none found proves
  nothing: both are said. An int field that arithmetic reads, too wide to enumerate, is searched
  over some of its values only (small ones and its bounds' neighbours), and one read modulo a
  number (``p % 7 == 3``) over a value of each residue, so the values a remedy says for either
  are "among the values tried; others may work too", never read as all that work, unless, as
  above, every int of the working classes is known (a bounded field, its partition exact, at
  most `matrix._space.MAX_COMBINATIONS` ints) and a rule or the values themselves say them.
  "No remedy found within N changes" is said only when every smaller
  set was tried.
"""

from __future__ import annotations

import bisect
import math
import typing
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, get_args

import attrs
from packaging.version import Version

from . import _choice, _derived, _messages, _prune
from ._given import ROLE, base
from ._nodes import Compare, IsNone, Literal, Node, Path, walk
from ._versions import to_version
from ._space import CAUSES, MAX_COMBINATIONS, PRESENT, Space, compared_constants, json_value, related
from .errors import MatrixError
from .schema import Field, in_window

if TYPE_CHECKING:  # pragma: no cover
    from ._compile import Plan

#: `matrix.resolver.resolve` (passed in: the resolver imports this module).
Resolve = Callable[..., Any]

#: The largest number of paths a remedy changes (or conditions) that is searched.
LIMIT = 3
#: The most candidate configs one search reads (weighs by the gates, or resolves).
BUDGET = 15_000
#: The most remedies one search returns (the others are counted in `Remedies.more`).
CAP = 6


#: What a `Change` does: ``set`` a path, ``unset`` a section, ``add`` a section, or ``where`` (a
#: condition on a fact, which the user cannot change).
ChangeAction = typing.Literal["set", "unset", "add", "where"]
CHANGE_ACTIONS: Tuple[str, ...] = get_args(ChangeAction)


@attrs.frozen
class Change:
    """One change to a config: ``set`` a path to one of ``values`` (a representative of each
    class of values that works), ``unset`` a section (None), or ``add`` a section that is None
    (its fields at their defaults). A condition (a fact that must differ) is a ``where``.
    ``spelled`` is how the values read (``one of 'a', 'b'``, ``≥ 2``); ``doc`` the field's."""

    path: str
    action: ChangeAction = attrs.field(validator=attrs.validators.in_(CHANGE_ACTIONS))
    values: Tuple[object, ...] = ()
    spelled: str = ""
    doc: Optional[str] = None

    def __str__(self) -> str:
        return _messages.remedy_change(self.action, self.path, self.spelled, self.doc)

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "action": self.action, "values": [json_value(v) for v in self.values],
                "text": str(self)}


@attrs.frozen
class Remedy:
    """One way to make ``runner`` serve a config: the ``changes`` to make, on a host (or model)
    where the ``conditions`` hold (facts, which the user does not set); with ``ask``, the runner
    asked for by id too (``runner='x'``), where automatic choice never takes it (a runner used
    only on request there)."""

    runner: str
    changes: Tuple[Change, ...] = ()
    conditions: Tuple[Change, ...] = ()
    ask: bool = False

    def __str__(self) -> str:
        return _messages.remedy_text([str(c) for c in self.changes], [str(c) for c in self.conditions],
                                     self.runner if self.ask else None)

    def to_dict(self) -> Dict[str, Any]:
        out = {"runner": self.runner, "changes": [c.to_dict() for c in self.changes],
               "conditions": [c.to_dict() for c in self.conditions], "text": str(self)}
        # Said only where it is so: every other option's data is as it was.
        return {**out, "ask": True} if self.ask else out


@attrs.frozen
class Remedies:
    """The answer of one search: the smallest `Remedy` values (``options``, at most `CAP`;
    ``more`` left out), for ``runner`` asked for (``asked``) or chosen automatically.

    ``served``: the runner serves the config as it is. ``size``: the number of paths every
    option changes or conditions, or, with no option, the largest size searched in full.
    ``gave_up``: why the search stopped short (None: it did not); with options, it stopped
    within their size, after the smaller sizes were searched in full. ``inexact``: causes (keys of
    `matrix._space.CAUSES`) the partition of a path searched is not exact for: options found
    are not proved the smallest, and none found proves nothing."""

    runner: str
    name: str
    asked: bool
    options: Tuple[Remedy, ...] = ()
    more: int = 0
    served: bool = False
    size: int = 0
    exhausted: bool = False
    gave_up: Optional[str] = None
    inexact: Tuple[str, ...] = ()
    #: For automatic choice (the runner not serving the config as it is): the search also asked
    #: for it by id, which counts as one change (`Remedy.ask`).
    asking: bool = False

    def __str__(self) -> str:
        return _messages.remedies_line(self.name, [str(o) for o in self.options], self.more, self.served,
                                       self.size, self.exhausted, self.gave_up,
                                       [CAUSES[c] for c in self.inexact], self.asking)

    def to_dict(self) -> Dict[str, Any]:
        return {"runner": self.runner, "asked": self.asked, "served": self.served,
                "options": [o.to_dict() for o in self.options], "more": self.more, "size": self.size,
                "exhausted": self.exhausted, "gave_up": self.gave_up, "inexact": list(self.inexact),
                "text": str(self)}


def search(plan: Plan, values: Mapping[str, object], runner: str, *, asked: bool, resolve: Resolve,
           given: Optional[Mapping[str, Any]] = None, limit: int = LIMIT, budget: int = BUDGET,
           cap: int = CAP) -> Remedies:
    """The smallest remedies for the config whose gate-read *values* are given (see the module
    docstring), for *runner* asked for (*asked*) or chosen automatically; *resolve* is
    `matrix.resolver.resolve`, the judge of every candidate; *given*, the whole config as given
    (plain), which every candidate keeps but for the paths it changes."""
    kept = dict(plan.decisions)
    try:
        return _search(plan, values, runner, asked, resolve, given or {}, limit, budget, cap)
    finally:
        # The candidates' decisions would crowd out the host's own (the cache is cleared when
        # full): resolve's cache is left as the search found it.
        plan.decisions.clear()
        plan.decisions.update(kept)


def _search(plan: Plan, values: Mapping[str, object], runner: str, asked: bool, resolve: Resolve,
            given: Mapping[str, Any], limit: int, budget: int, cap: int) -> Remedies:
    name = plan.matrix.runner(runner).name
    space, constants, user = _space(plan, {**_flat(given), **values})
    config = _config(space, user, given)
    if _serves(resolve, plan, config, runner, asked):
        return Remedies(runner, name, asked, served=True)
    # The base role's field asks for the runner (`matrix._roles`): changing it asks for another,
    # which is no way to get this one (a gate that reads the field is met by asking otherwise).
    request = plan.matrix.roles[0].field if plan.matrix.roles else None
    units = [(path, options) for path in space.paths if path != request
             for options in [_options(space, plan, path, user)] if options]
    inexact = tuple(dict.fromkeys(space.inexact[p] for p in space.paths if p in space.inexact))
    # The budget counts the configs the search reads: each candidate the pruning weighs and each
    # one it resolves.
    spent = _prune.Budget(budget)
    # Each search: whether it asks for the runner, and the paths that asking counts as (one).
    searches = [(asked, 0, _prune.Pruning(plan, config, runner, asked, units, _apply, spent))]
    if not asked:
        # Automatic choice may not take the runner after a change that lets it serve (not a
        # candidate, or another runner first: a higher priority, a preference, an order):
        # asking for it is one more change, tried first within a size (its candidates change one
        # path fewer).
        searches.insert(0, (True, 1, _prune.Pruning(plan, config, runner, True, units, _apply, spent)))
    most = len(units) + max(extra for _, extra, _ in searches)
    size = 0
    for size in range(1, min(limit, most) + 1):
        found: List[Tuple[Tuple[bool, Tuple[int, ...]], Tuple[str, ...], List[Tuple[object, ...]]]] = []
        gave_up = None
        try:
            for mode, extra, pruning in searches:
                ask = mode and not asked
                if size == extra:  # asking alone, the config as it is
                    spent.spend()
                    if _serves(resolve, plan, config, runner, mode):
                        found.append(((ask, ()), (), [()]))
                    continue
                for combo, choices in pruning.candidates(size - extra) if size - extra <= len(units) else ():
                    paths = tuple(units[i][0] for i in combo)
                    working = []
                    for picks in choices:
                        spent.spend()
                        choice = tuple(units[i][1][o] for i, o in zip(combo, picks))
                        if _serves(resolve, plan, _apply(config, paths, choice), runner, mode):
                            working.append(choice)
                    if working:
                        found.append(((ask, combo), paths, working))
        except _prune.OverBudget:
            gave_up = _messages.remedy_budget(budget, size)
            if not found:
                return Remedies(runner, name, asked, size=size - 1, exhausted=False, gave_up=gave_up, inexact=inexact,
                                asking=not asked)
        if found:
            # The path sets were searched cheapest first: said in the order of the space, those
            # that ask for the runner after those that leave it to automatic choice. Cut short,
            # the search keeps what it found (every one a remedy of the smallest size, the sizes
            # below searched in full) and says it was cut (`gave_up`).
            found.sort(key=lambda each: each[0])
            options = [attrs.evolve(o, ask=True) if key[0] else o for key, paths, working in found
                       for o in _products(space, constants, runner, paths, working)]
            options.sort(key=lambda o: len(o.conditions))
            return Remedies(runner, name, asked, tuple(options[:cap]), max(0, len(options) - cap), size=size,
                            gave_up=gave_up, inexact=inexact, asking=not asked)
    return Remedies(runner, name, asked, size=size, exhausted=size == most, inexact=inexact, asking=not asked)


def _serves(resolve: Resolve, plan: Plan, config: Dict[str, Any], runner: str, asked: bool) -> bool:
    try:
        resolution = resolve(plan.matrix, config, runner=runner if asked else None, version=plan.version)
    except MatrixError:
        return False
    if resolution.runner != runner:
        return False
    # The base role's field asks for the runner: a change after which an adjustment rewrites it
    # (SGLang's HPU forcing torch_native over the request) asks for another, as changing it would.
    request = plan.matrix.roles[0].field if plan.matrix.roles else None
    if request is None or not asked:
        return True
    now = resolution.effective[request]
    return now is None or _choice.named(plan.matrix, now) == runner


# --- the space and the user's place in it ---------------------------------------------------


def _space(plan: Plan, values: Mapping[str, object]) -> Tuple[Space, Dict[str, List[object]], Dict[str, object]]:
    """The space of the plan's gates and the constants each path is compared with, and the
    user's assignment in it. Cached on the matrix: the one of the user's values last asked
    about (the remedies of one error are searched for each runner on one config)."""
    spaces = _derived.of(plan.matrix).spaces
    cached = spaces.get(plan.version)
    if cached is None:
        nodes = [f.when.node for f in plan.features] + rule_atoms(plan.matrix)
        cached = spaces[plan.version] = [nodes, related(nodes), None]
    nodes, groups, last = cached
    # The user's values of related fields become constants of the group: changing one of them
    # alone is then decided exactly against the others as they are.
    # A list's items are constants too: with `s in l`, setting s alone to an item the user's l
    # holds is then tried (it was not: "set s and l" was given where "set s" serves).
    extra = tuple((p, _plain(values[p])) for p in sorted(groups)
                  if isinstance(values.get(p), (bool, int, float, str, Version)))
    items = tuple((p, item) for p in sorted(groups) if isinstance(values.get(p), (list, tuple))
                  for item in dict.fromkeys(typing.cast(Sequence[object], values[p]))
                  if isinstance(item, (bool, int, float, str)))
    seen = tuple((p, type(v), repr(v)) for p, v in (*extra, *items))
    if last is None or last[0] != seen:
        nodes = nodes + [Compare(Path(p), "==", Literal(v)) for p, v in extra] \
            + [Compare(Literal(v), "in", Path(p)) for p, v in items]
        last = cached[2] = (seen, Space(plan.matrix.schema, nodes), compared_constants(nodes))
    _, space, constants = last
    # The space reads given.PATH as PATH (`matrix._given`): the user's value of PATH is the value
    # a gate read as given, where no gate reads PATH itself (these are the values as given).
    read = {**{b: v for p, v in values.items() for b in [base(p)] if b is not None}, **values}
    return space, constants, _assignment(space, read)


def rule_atoms(matrix: Any) -> List[Node]:
    """The comparisons of the rules that are no gate, which resolve reads too (adjustments, a
    role's requirements, staged requirements), each a node of the space so that its constants
    cut the paths it reads, and the paths they read (those read as a truth value, ``b``, are in
    no comparison); those reading a role's runner (``role.ID``) left out, since no config holds
    one. And each role's field but the base's compared with each runner id: a
    candidate may ask another runner for that role (the base's field asks for the runner
    searched for: never changed)."""
    rules = [a.when for a in matrix.adjustments if a.when is not None]
    rules += [r.condition for runner in matrix.runners for r in runner.role_requires]
    rules += [r.condition for r in matrix.staged]
    # A path read as a truth value (``b``, ``not b``) is an atom too: it is in no comparison, and
    # a role's requirement ``b or role.d == 'b'`` left b out of the space, so no remedy set it.
    atoms: List[Node] = [part for rule in rules for part in walk(rule.node)
                         if isinstance(part, (Compare, IsNone))
                         and not any(isinstance(p, Path) and p.name.startswith(ROLE) for p in walk(part))
                         or isinstance(part, Path) and not part.name.startswith(ROLE)]
    atoms += [Compare(Path(role.field), "==", Literal(runner.id)) for role in matrix.roles[1:]
              for runner in matrix.runners]
    return atoms


def _flat(table: Mapping[str, Any], prefix: str = "") -> Dict[str, object]:
    """A plain config's values by path (a section present as `PRESENT`, None as None)."""
    out: Dict[str, object] = {}
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out[path] = PRESENT
            out.update(_flat(value, path + "."))
        else:
            out[path] = value
    return out


def _plain(value: object) -> object:
    return str(value) if isinstance(value, Version) else value


def _is_section(space: Space, path: str) -> bool:
    return PRESENT in space.domains[path]


def _assignment(space: Space, values: Mapping[str, object]) -> Dict[str, object]:
    """The user's config as an assignment of the space: every path the gates read, a section
    present or None (one not read itself is None only when a field below it that cannot be
    None reads None; every field below read None either way, so the gates cannot tell)."""
    out: Dict[str, object] = {}
    for path in space.paths:
        if space.lookup(out, path) is None:
            continue  # below a section that is None
        if not _is_section(space, path):
            value = values.get(path)
            out[path] = tuple(value) if isinstance(value, list) else value
            continue
        if path in values:
            out[path] = None if values[path] is None else PRESENT
            continue
        below = [(p, v) for p, v in values.items() if p.startswith(path + ".")]
        field = space.field(path)
        if field is not None and not field.nullable:
            out[path] = PRESENT
        elif any(v is not None for _, v in below):
            out[path] = PRESENT
        elif any((f := space.field(p)) is None or not f.nullable for p, _ in below):
            out[path] = None
        else:
            out[path] = PRESENT
    return out


def _options(space: Space, plan: Plan, path: str, user: Mapping[str, object]) -> List[object]:
    """The values a remedy may give *path*, in the order of the space."""
    field = space.field(path)
    if field is not None and field.fact and _is_section(space, path):
        return []
    current = user.get(path, _ABSENT)
    if _is_section(space, path):
        if current is None:
            return [PRESENT]
        return [None] if None in space.domains[path] and current is PRESENT else []
    if field is not None and field.at(plan.version) is None:
        # The host has no such field at this version: only back to its default.
        if field.has_default and not _same(field.default, current) and current is not _ABSENT:
            return [field.default]
        return []
    # A role's field: a former id asks for the runner its id names, which is offered itself.
    roles = {role.field for role in plan.matrix.roles}
    out = []
    for value in space.domains[path]:
        if _same(value, current):
            continue
        if field is not None and field.choices is not None and value is not None \
                and not in_window(field.choice_window(value), plan.version):
            continue  # a choice the host no longer has (or not yet)
        if path in roles and isinstance(value, str) and _choice.named(plan.matrix, value) != value:
            continue
        out.append(value)
    return out


_ABSENT = object()


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def _apply(config: Dict[str, Any], paths: Sequence[str], values: Sequence[object]) -> Dict[str, Any]:
    """*config* with each path set to its value, the tables on the way copied (the rest is
    shared): a field set below a section that is None makes the section present, its other
    fields at their defaults."""
    out = dict(config)
    copied: Dict[str, Dict[str, Any]] = {"": out}
    for path, value in zip(paths, values):
        parts = path.split(".")
        holder, prefix = out, ""
        for part in parts[:-1]:
            prefix = f"{prefix}.{part}" if prefix else part
            inner = copied.get(prefix)
            if inner is None:
                old = holder.get(part)
                inner = copied[prefix] = dict(old) if isinstance(old, dict) else {}
                holder[part] = inner
            holder = inner
        holder[parts[-1]] = json_value(value)
    return out


def _config(space: Space, assignment: Mapping[str, object], given: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """A plain config holding *assignment* over the config *given* (a section present as a
    table, keeping what *given* holds below it; fields neither holds at their defaults)."""
    given = given or {}
    config: Dict[str, Any] = _copied(given)
    holders: Dict[str, Dict[str, Any]] = {"": config}
    for path in space.paths:  # sections before their fields
        if path not in assignment:
            continue
        parent, _, name = path.rpartition(".")
        holder = holders.get(parent)
        if holder is None:
            continue  # below a section that is None
        value = assignment[path]
        if value is PRESENT:
            old = holder.get(name)
            holders[path] = holder[name] = old if isinstance(old, dict) else {}
        else:
            holder[name] = json_value(value)
    return config


def _copied(table: Mapping[str, Any]) -> Dict[str, Any]:
    """*table* with every table below it copied."""
    return {k: _copied(v) if isinstance(v, Mapping) else v for k, v in table.items()}


# --- remedies as the user would write them --------------------------------------------------


def _products(space: Space, constants: Dict[str, List[object]], runner: str, paths: Tuple[str, ...],
              working: List[Tuple[object, ...]]) -> Iterator[Remedy]:
    """The solutions of one path set as products: each a remedy whose changes may take any of
    their values together."""
    items: List[Tuple[Tuple[object, ...], ...]] = [tuple((v,) for v in w) for w in working]
    for i in reversed(range(len(paths))):
        merged: Dict[Tuple[object, ...], Tuple[Tuple[Tuple[object, ...], ...], List[object]]] = {}
        for item in items:
            key = tuple(_key(v) for v in item[:i] + item[i + 1:])
            first, values = merged.setdefault(key, (item, []))
            values.extend(item[i])
        items = [first[:i] + (tuple(values),) + first[i + 1:] for first, values in merged.values()]
    for item in items:
        changes, conditions = [], []
        for path, held in zip(paths, item):
            # A related field's constants are this one's too (`matrix._space` shares them): a
            # string one of them names is said as itself, not as "a value other than …".
            change = _change(space, _named(space, constants, path), path, held)
            field = space.field(path)
            if field is not None and field.fact:
                conditions.append(attrs.evolve(change, action="where"))
            else:
                changes.append(change)
        yield Remedy(runner, tuple(changes), tuple(conditions))


def _key(values: Tuple[object, ...]) -> Tuple[object, ...]:
    return tuple((type(v).__name__, repr(v)) for v in values)


def _change(space: Space, constants: List[object], path: str, values: Tuple[object, ...]) -> Change:
    field = space.field(path)
    doc = field.doc if field is not None else None
    if values == (None,) and _is_section(space, path):
        return Change(path, "unset", values, "", doc)
    if values == (PRESENT,):
        return Change(path, "add", values, "", doc)
    order = space.domains[path]
    values = tuple(sorted(values, key=lambda v: next(i for i, d in enumerate(order) if _same(d, v))))
    return Change(path, "set", values, _spell(space, constants, path, field, values), doc)


def _spell(space: Space, constants: List[object], path: str, field: Optional[Field],
           values: Tuple[object, ...]) -> str:
    """How *values* (representatives of the classes that work) read: each value, or, for a
    number not compared with another field, the ranges the classes make up."""
    pieces: List[str] = []
    spans = 0  # pieces that are ranges, not single values
    rest = list(values)
    # A field arithmetic reads has every value as its own class (or only some values tried):
    # the values that work are said one by one, never as ranges between constants.
    # So are those of a field read modulo a number (`p % 7 == 3`): a class is a residue within
    # a range, never the whole range (the ranges said "from 2 to 19" where 3, 10, 17 serve).
    # A constant is a class of its own: values that are all constants are said exactly.
    # (A field whose every value was tried, `Space.enumerated`, has no such classes.) So are
    # those of a field with choices: a range between its constants would hold values it refuses
    # (a user trial read "a value from 2 to 8" of choices [1, 3, 6, 9]).
    residues = bool(space.remainders.get(path)) and path not in space.enumerated and field is not None and any(
        _ordered(field, v) and not any(_same(v, c) for c in constants) for v in values)
    if field is not None and field.type in ("int", "float", "version") and len(space._groups.get(path, {path})) <= 1 \
            and field.choices is None and path not in space.enumerated and space.inexact.get(path) != "arithmetic" and not residues:
        ordered = [v for v in values if _ordered(field, v)]
        for piece, single in _ranges(space, path, field, ordered, constants):
            pieces.append(piece)
            spans += not single
        rest = [v for v in values if v is None]
    if field is not None and field.type == "int" and (path in space.enumerated or residues):
        # Every value of the field was tried, or every int of the residue classes that work is
        # known (a bounded field, its partition exact): those that work, exactly, and many of
        # them by the rule they follow (a multiple of 3 from 3 to 1020, a few ranges).
        ints = sorted(typing.cast(int, v) for v in values if _ordered(field, v))
        exact = ints if path in space.enumerated else space.members(path, ints, MAX_COMBINATIONS)
        rule = [] if exact is None else _progressions(exact, constants) if len(exact) >= COMPACT else [repr(v) for v in exact]
        if rule:
            pieces += rule
            spans += any(not p.lstrip("-").isdigit() for p in rule)
            rest = [v for v in values if not _ordered(field, v)]
            residues = False
    if field is not None and field.type == "str" and field.choices is None:
        # A free string's classes: each value the gates (or a related field) name, and one for
        # every other string. Where that one works, so does every named value that works: the
        # rest are said as "a value other than" the named ones that do not.
        named = [c for c in constants if isinstance(c, str)]
        strings = [v for v in rest if isinstance(v, str)]
        if any(v not in named for v in strings):
            pieces.append(_messages.remedy_other_string(sorted(n for n in named if n not in strings)))
            rest = [v for v in rest if not isinstance(v, str)]
    for value in rest:
        if isinstance(value, Version):
            pieces.append(repr(str(value)))
        elif isinstance(value, tuple):
            pieces.append(repr(list(value)))
        else:
            pieces.append(repr(value))
    # Several classes may read alike (each "a value other than 'a'", the classes a related
    # field's constants cut): said once.
    pieces = list(dict.fromkeys(pieces))
    said = pieces[0] if len(pieces) == 1 else _messages.remedy_one_of(pieces, ranges=spans > 0)
    # A field arithmetic reads whose values could not all be enumerated was searched over some
    # of them (`matrix._space`): the values said are those tried that work, never all that do.
    if space.inexact.get(path) == "arithmetic" and path not in space.enumerated or residues:
        return _messages.remedy_among_tried(said)
    return said


#: Fewer values that work than this are said one by one (`_progressions`).
COMPACT = 8
#: The largest divisor `_progressions` says values by.
PERIOD = 64


def _progressions(values: List[int], cuts: Sequence[object] = ()) -> List[str]:
    """*values* (sorted ints, at least `COMPACT`) said as the rule that admits exactly them:
    pieces, each every int from its first value to its last whose remainder by the smallest
    divisor that fits (at most `PERIOD`; at most three remainders) is one of its values' (a run
    of consecutive ints, ``a multiple of 3 from 3 to 1020``), or a single value. One piece where
    one fits all; else the values between two of the *cuts* (numbers the field is compared with:
    between two, the classes of a remainder repeat) and each cut are pieces, neighbours joined
    while one rule fits them. Nothing where that is not shorter than the values."""
    if len(values) < COMPACT:
        return []
    whole = _fit(values)
    if whole is not None:
        return [whole]
    marks = sorted({c for c in cuts if isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c)})
    groups: List[List[int]] = []
    for value in values:
        place = (value in marks, bisect.bisect_left(marks, value))
        if groups and not place[0] and groups[-1][0] not in marks \
                and bisect.bisect_left(marks, groups[-1][0]) == place[1]:
            groups[-1].append(value)
        else:
            groups.append([value])
    pieces: List[str] = []
    current: List[int] = []
    for group in groups:
        if current and _fit(current + group) is not None:
            current += group
            continue
        pieces += _said(current)
        current = list(group)
    pieces += _said(current)
    return pieces if 2 * len(pieces) <= len(values) else []


def _said(values: List[int]) -> List[str]:
    """A piece of `_progressions`: the rule, or the values one by one."""
    found = _fit(values) if values else None
    return [found] if found is not None else [repr(v) for v in values]


def _fit(values: List[int]) -> Optional[str]:
    """The one rule of `_progressions` that admits exactly *values* (sorted ints): a run of
    three or more, or four or more by a remainder."""
    low, high = values[0], values[-1]
    for divisor in range(1, min(PERIOD, high - low) + 1):
        if len(values) < (3 if divisor == 1 else 4):
            return None
        remainders = sorted({v % divisor for v in values})
        if len(remainders) > 3:
            continue
        # Every int in range with one of those remainders: as many as there are values.
        admitted = sum((high - r) // divisor - (low - r + divisor - 1) // divisor + 1 for r in remainders)
        if admitted == len(values):
            if divisor == 1:
                return _messages.remedy_range("int", low, True, high, True)
            return _messages.remedy_progression(divisor, remainders, low, high)
    return None


def _named(space: Space, constants: Mapping[str, List[object]], path: str) -> List[object]:
    """The values *path*'s classes are cut at: its constants and those of the fields related to
    it, and their choices (`matrix._space` shares them across a group)."""
    named: List[object] = []
    for peer in sorted(space._groups.get(path, {path})):
        field = space.field(peer)
        for value in [*constants.get(peer, []), *((field.choices or ()) if field is not None and peer != path else ())]:
            if not any(_same(value, n) for n in named):
                named.append(value)
    return named


def _ranges(space: Space, path: str, field: Field, working: List[Any],
            constants: List[object]) -> List[Tuple[str, bool]]:
    """Runs of consecutive working representatives, each spelled as the range of its classes,
    and whether that range is a single value."""
    domain = [v for v in space.domains[path] if _ordered(field, v)]
    bounds = [to_version(c) if field.type == "version" else c for c in [*constants, field.min, field.max]]
    cuts: List[Any] = sorted({c for c in bounds if _ordered(field, c) and _finite(c)})
    runs: List[List[Any]] = []
    previous = None
    for value in domain:
        if any(_same(value, w) for w in working):
            if runs and previous is not None and runs[-1][-1] is previous:
                runs[-1].append(value)
            else:
                runs.append([value])
        previous = value
    out = []
    for run in runs:
        low, low_closed = _class_low(run[0], cuts)
        high, high_closed = _class_high(run[-1], cuts)
        text = _messages.remedy_range(field.type, low, low_closed, high, high_closed)
        out.append((text, text == _messages.remedy_value(run[0])))
    return out


def _class_low(value: Any, cuts: List[Any]) -> Tuple[Optional[Any], bool]:
    if any(c == value for c in cuts):
        return value, True
    below = [c for c in cuts if c < value]
    return (below[-1], False) if below else (None, False)


def _class_high(value: Any, cuts: List[Any]) -> Tuple[Optional[Any], bool]:
    if any(c == value for c in cuts):
        return value, True
    above = [c for c in cuts if c > value]
    return (above[0], False) if above else (None, False)


def _ordered(field: Field, value: object) -> bool:
    """Whether *value* is one of the ordered values of *field* (a number, or a version) that a
    remedy says as ranges."""
    if field.type == "version":
        return isinstance(value, Version)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: object) -> bool:
    return not isinstance(value, float) or math.isfinite(value)
