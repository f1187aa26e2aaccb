"""The exception kind a refusal raises (`ResolutionError.kind`, issue 30 F5) as conditions of the
diff's search (`matrix.diff`: ``refusal-kind-changed``).

`ResolutionError.kind` reads the refusal's words: among the runners they name, in the order they
name them, the first failed requirement with a kind that they give as a reason (then the
matrix-wide requirements whose reasons they give). In the engine's own words (no ``[messages]``
sentence, no reason that says config values) each refusal names runners in an order its rule
fixes, each with its blockers, so the kind is the kind of the first of a list of gates that is
active, the list fixed by the rule that refuses (`cases`):

- a matrix-wide requirement that exempts no runner refuses with its reasons alone (automatic
  choice before any rule, a runner validated on the config it reads): the first of those with a
  kind;
- automatic choice with no runner free names every candidate of the order that applies, in that
  order, each with its blockers; an outright preference or an order without fallback names its
  runner; a runner refused on its effective config F names it, read on F;
- a request names the runner validated (the one asked for, a redirect's, or an override's), with
  the gates it says no to; a redirect's words come first (``Asked for 'x', redirected to 'y';``):
  a runner whose name they hold is named before it, and its requirements count where a reason of
  the same words is said (`_refusal`);
- a removal, a request refused by a feature that forces another runner, and a runner that is no
  candidate give no reason: no kind.

That reading holds only where a runner's name, or a reason with a kind, is part of no other text a
refusal says (a feature's name, an order's, another reason, the engine's own words), and where
reasons of the same words have the same kind: `unmodelled` says where it does not, and the diff
says it did not compare the kinds there.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from . import _messages
from ._diff_types import ROLE_REFUSAL
from ._nodes import Node
from ._substitute import TRUE, conjoin, constant, disjoin, negate
from .schema import Feature, Order, Requirement

#: Exclusive conditions over the config as given, each with the kind a refusal raises there
#: (None: no kind).
Kinds = List[Tuple[Node, Optional[str]]]


def kind_of(gate: Feature) -> Optional[str]:
    """The exception kind of a requirement's gate (None: no kind, or no requirement)."""
    origin = gate.origin
    return origin.error_kind if isinstance(origin, Requirement) else None


def kinded(side: Any) -> bool:
    """Whether a requirement of *side* has a kind."""
    return any(kind_of(g) is not None for g in side.plan.features)


def _engine_words() -> List[str]:
    """The engine's own words of a refusal, between the names and reasons it says (those before
    a runner's refusal, a redirect's and an adjustment's, are read as they stand: `_refusal`),
    and the words of a value an adjustment's warning may say."""
    x = "\0"
    texts = [_messages.no_runner([x]), _messages.no_candidate(), _messages.does_not_support(x, [x], [x]),
             _messages.does_not_support(x, [], [x]), _messages.preferred_blocked(x, x), _messages.not_a_candidate(x),
             _messages.order_refused(x, x, None, x), _messages.forced(x, x, x), _messages.removed(x, x, x, x),
             _messages.required_refused([x, x]), _messages.adjusted(x, x, x, x)]
    return [part for text in texts for part in text.split(x) if part] + ["True", "False", "None", "inf", "nan", "e+"]


def _unmodelled_construct(side: Any) -> Optional[str]:
    """The construct of *side* whose refusals `cases` does not read (None: none)."""
    plan, matrix = side.plan, side.matrix
    if matrix.messages:
        return "the matrix says refusals in its own words ([messages])"
    if plan.templated or matrix.staged or not side.exact:
        return "a reason says config values, or a requirement is staged"
    if any(r.applies == "always" for found in plan.redirects.values() for _, r in found):
        return "a redirect applies always (automatic choice's refusal after it is not read by kind)"
    if any(getattr(g.origin, "alone", False) for g in plan.features):
        return "a requirement's kind says its reason alone (alone = true)"
    if any(f.forces is not None and plan.adjustments.get(f.forces.runner) for f in plan.features):
        return "a runner a feature forces has adjustments of its own"
    return None


def unmodelled(side: Any) -> Optional[str]:
    """Why the kinds of *side*'s refusals are not read as `cases` reads them (None: they are)."""
    plan, matrix = side.plan, side.matrix
    found = _unmodelled_construct(side)
    if found is not None:
        return found
    adjustments = _adjustments(plan)
    # The names a refusal may say: features', requirements' reasons and orders' (not a runner's
    # candidacy, a redirect's or an adjustment's gate).
    texts = [g.name for g in plan.features if g.origin is None or isinstance(g.origin, (Requirement, Order))]
    texts += [a.name for a in adjustments] + [a.message for a in adjustments if a.message]
    texts += [p for a in adjustments for p in a.set]
    texts += [g.forces.message for g in plan.features if g.forces is not None and g.forces.message]
    texts += [d.message or "" for g in plan.features for d in (g.deprecated,) if d is not None]
    texts += [d.replacement or "" for g in plan.features for d in (g.deprecated,) if d is not None]
    names = [r.name for r in matrix.runners]
    words = _engine_words()
    for name in names:
        if any(name in t for t in [*texts, *words, *(n for n in names if n != name)]):
            return f"the runner name {name!r} is part of another text a refusal may say"
    for runner, own in plan.adjustments.items():
        # Its refusal on F says what its own adjustments did, with the values: a string value
        # may spell a runner's name.
        if any(kind_of(g) for g in plan.active(plan.blocking[runner])) and any(
                (matrix.schema.get(p) is None or matrix.schema.get(p).type == "str") for a in own
                for p in (*a.set, *_message_paths(a))):
            return f"what {matrix.runner(runner).name}'s own adjustments say may spell a runner's name"
    by_text: Dict[str, Set[Optional[str]]] = {}
    for g in plan.features:
        if isinstance(g.origin, Requirement):
            by_text.setdefault(g.name, set()).add(g.origin.error_kind)
    for g in plan.features:
        if kind_of(g) is None:
            continue
        if len(by_text[g.name]) > 1:
            return f"reasons {g.name!r} of requirements of different kinds"
        if any(g.name in t and t != g.name for t in [*texts, *words]) or \
                any(f.name == g.name and not isinstance(f.origin, Requirement) for f in plan.features):
            return f"the reason {g.name!r} is part of another text a refusal may say"
    return None


def _message_paths(adjustment: Any) -> Tuple[str, ...]:
    if adjustment.message is None:
        return ()
    from ._templates import paths_only

    return tuple(paths_only(adjustment.message).paths)


def _adjustments(plan: Any) -> List[Any]:
    return [*plan.pre_adjustments, *(a for own in plan.adjustments.values() for a in own)]


def first(options: Sequence[Tuple[Node, Optional[str]]]) -> Kinds:
    """The kind of the first of *options* that holds (None where none does), as exclusive
    conditions, one per kind."""
    by_kind: Dict[Optional[str], List[Node]] = {}
    earlier: List[Node] = []
    for node, kind in options:
        by_kind.setdefault(kind, []).append(conjoin([node, *(negate(e) for e in earlier)]))
        earlier.append(node)
    by_kind.setdefault(None, []).append(conjoin([negate(e) for e in earlier]))
    out = [(disjoin(nodes), kind) for kind, nodes in by_kind.items()]
    return [(node, kind) for node, kind in out if constant(node) is not False]


def _dead(side: Any, asked: bool) -> Any:
    return (side.asked if asked else side.automatic).dead


def _listed(side: Any, runner: str, asked: bool) -> List[Feature]:
    """The gates a refusal of *runner* says (those it says no to for a request, those that block
    it in automatic choice), in the plan's order."""
    plan = side.plan
    mask = plan.no[runner] if asked else plan.blocking[runner]
    return [g for g in plan.active(mask) if g.id not in _dead(side, asked)]


def _named_first(side: Any, asked: bool, words: Optional[str], said: Sequence[Tuple[Feature, Node]],
                 stop: Optional[str], validated: Optional[str], read: Any) -> List[Tuple[Node, Optional[str]]]:
    """The requirements that decide the kind before those the refusal says for its runner: of
    each runner whose name the words before the refusal (*words*) hold, in their order (up to
    *stop*, whose requirements that count are all said after), those it fails (read on C, those
    of the runner *validated* by *read*) whose reason the refusal says (a gate of *said*, with
    where it is said, of the same words)."""
    if words is None:
        return []
    options: List[Tuple[Node, Optional[str]]] = []
    named = sorted((words.find(r.name), r.id) for r in side.matrix.runners if r.name in words)
    for _, other in named:
        if other == stop:
            break
        for g in side.plan.active(side.plan.blocking[other]):
            if kind_of(g) is None or g.id in _dead(side, asked):
                continue
            where = [node for h, node in said if h.name == g.name]
            if where:
                mine = read(g.when.node) if other == validated else side.on_c(g.when.node)
                options.append((conjoin([mine, disjoin(where)]), kind_of(g)))
    return options


def _refusal(side: Any, runner: Optional[str], asked: bool, read: Any, own: Sequence[Tuple[Node, Optional[str]]] = (),
             words: Optional[str] = None, required_words: Optional[str] = None) -> Kinds:
    """The kinds of a refusal of *runner* (the runner validated: its gates read by *read*, the
    refusal saying them after *words*, a redirect's or an adjustment's: `_named_first`), or, with
    no runner, one that says *own* (the first that holds decides). Where a matrix-wide
    requirement that exempts no runner fails, the refusal says those reasons alone (after
    *required_words*), and the first with a kind decides, but for a runner those words name."""
    plan = side.plan
    options = list(own)
    if runner is not None:
        listed = [(g, read(g.when.node)) for g in _listed(side, runner, asked)]
        options = _named_first(side, asked, words, listed, runner, runner, read) + \
            [(n, kind_of(g)) for g, n in listed if kind_of(g)]
    required = [(g, read(g.when.node)) for g in plan.active(plan.required) if g.id not in _dead(side, asked)]
    if not required:
        return first(options)
    failing = disjoin([n for _, n in required])
    wide = _named_first(side, asked, required_words, required, None, runner, read) + \
        [(n, kind_of(g)) for g, n in required if kind_of(g)]
    out = [(conjoin([failing, node]), kind) for node, kind in first(wide)]
    out += [(conjoin([negate(failing), node]), kind) for node, kind in first(options)]
    return [(node, kind) for node, kind in out if constant(node) is not False]


def _redirect(side: Any, asked: str, literals: Sequence[Any]) -> Optional[Tuple[str, str]]:
    """The redirect a rule of a request for *asked* follows (its literals hold its gate), as the
    id asked for and the redirect's runner."""
    local = side.local(asked) or asked
    for bit, redirect in side.plan.redirects.get(local, ()):
        if (bit, True) in literals:
            return local, redirect.to
    return None


def _words(side: Any, asked: str, step: Any) -> Optional[str]:
    """The words a request's refusal says before its runner's: a redirect's, where the rule
    follows one."""
    redirected = _redirect(side, asked, step.literals)
    return None if redirected is None else _messages.redirected_refused(redirected[0], redirected[1], "")


def _automatic(side: Any, step: Any) -> Kinds:
    """The kinds of a refusing rule of automatic choice, read on the config of choice C."""
    plan = side.plan
    if step.kind == "prefer-blocked":
        return _refusal(side, step.gate_of(plan).prefers.runner, False, side.on_c)
    if step.kind == "order-refused":
        return _refusal(side, step.blocked, False, side.on_c)
    options: List[Tuple[Node, Optional[str]]] = []
    if step.kind == "none":  # every candidate of the order that applies, in its order
        tried = next((rs for bit, _, rs in plan.orders if bit == step.gate), plan.order)
        for runner, _ in tried:
            bit = plan.candidate.get(runner)
            candidate = disjoin([side.on_c(g.when.node) for g in plan.active(bit)]) if bit else TRUE
            options += [(conjoin([candidate, side.on_c(g.when.node)]), kind_of(g))
                        for g in _listed(side, runner, False) if kind_of(g)]
    return _refusal(side, None, False, side.on_c, options)


def cases(search: Any, side: Any, asked: Optional[str]) -> List[Tuple[Dict[str, Any], Kinds]]:
    """Each case of *side* (automatic choice, or a request for *asked*) in which it refuses, as
    a search question, with the kinds its refusal raises there (`Kinds`)."""
    request = asked is not None
    choice = side.asked if request else side.automatic
    removed = side.removed(request)
    out: List[Tuple[Dict[str, Any], Kinds]] = []
    if removed:  # (automatic choice where the base role's field names no runner: `Side.unasked`)
        out.append(({"true": [] if request else list(side.unasked), "false": [], "extra": [("any", removed)]},
                    [(TRUE, None)]))
    rules = list(side.requested_rules(asked) if asked is not None else side.automatic_rules())
    for step, split, outcome in rules:
        question = search._decides(choice, step, split)
        if question is None:
            continue
        question["false"] += removed
        if outcome[0] == "served":  # refused on the runner's F, where it has adjustments of its own
            runner = outcome[1]
            for variant, said in side.on_its_f(question, outcome, request):
                if said[0] != "refused" or said[2] == ROLE_REFUSAL:
                    continue  # a role's refusal raises its runner's kind: not read (`_diff_unread` says so)
                on_f = functools.partial(side.on_f, runner)
                if asked is None:  # an AdjustmentError: what the runner's adjustments did is said first
                    words = _messages.adjustment_blocks([], "")
                    out.append((variant, _refusal(side, runner, False, on_f, words=words, required_words=words)))
                else:
                    out.append((variant, _refusal(side, runner, True, on_f, words=_words(side, asked, step))))
            continue
        if not request:
            out.append((question, _automatic(side, step)))
        elif step.kind == "forced":
            out.append((question, [(TRUE, None)]))
        else:  # the runner validated: an override's, or the one asked for (after a redirect)
            assert asked is not None
            redirected = _redirect(side, asked, step.literals)
            if step.kind == "override-blocked":
                forces = side.plan.features[step.gate.bit_length() - 1].forces
                runner = forces.runner
            else:
                runner = redirected[1] if redirected is not None else (side.local(asked) or asked)
            out.append((question, _refusal(side, runner, True, side.on_c, words=_words(side, asked, step))))
    return out


def deciding(side: Any, config: Dict[str, Any], asked: Optional[str]) -> Optional[Feature]:
    """The gate of the requirement whose kind *config*'s refusal on *side* raises (in automatic
    choice, or a request for *asked*), or None (served, refused without a kind, a config error)."""
    from .errors import ConfigError, ResolutionError
    from .resolver import resolve

    try:
        resolve(side.matrix, config, runner=side.local(asked), version=side.version)
    except ResolutionError as error:
        gate: Optional[Feature] = error._kind_gate()
        return gate
    except ConfigError:
        return None
    return None
