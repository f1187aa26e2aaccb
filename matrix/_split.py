"""A question to a `Space`, split into independent parts before it is searched.

`Space.solve` searches every path a question reads in one depth-first search, so a question
whose parts read unrelated paths multiplies their searches: a contradiction between two goals
on one path is found again under every value of every path ordered before it. The questions of
a diff are of that kind (the rules of two decision lists, dozens of gates over dozens of
fields). Here, exactly as logic allows:

- goals are normalised: ``not`` flips what is wanted, a conjunction wanted true (a disjunction
  wanted false) is each of its operands, a disjunction wanted true (a conjunction wanted false)
  is a group "one of these holds";
- a node wanted both true and false ends the question; a group option wanted false is dropped,
  a group with one option left is a goal;
- goals and groups that share no path (nor a section that may be None) are independent: each
  part is searched alone, and the question holds when every part does;
- a part too large to search as one is branched on one of its groups: "the first option that
  holds is the i-th" (the others before it false), each branch split again.

The answer is the union of the parts' assignments (disjoint paths; a section that is always
present has one value). `Inconclusive` is raised, as `Space.solve` does, when the budget of the
whole question runs out, or when nothing is found and a part that found nothing was not exact.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from ._nodes import And, Node, Not, Or, Path, walk
from ._space import Assignment, Inconclusive, Space

#: Nodes are numbered once (`Split.number`): equal nodes of the two sides get one number.
Goal = Tuple[int, bool]
Group = Tuple[int, ...]
#: A part searched as one: its goals and groups.
Part = Tuple[FrozenSet[Goal], FrozenSet[Group]]

#: A part whose paths have at most this many combinations is searched as one, groups included.
_SMALL = 4096


class Contradiction(Exception):
    """The goals cannot all hold (found without a search)."""


class Split:
    """Searches of *space*, split into independent parts; parts already answered are kept."""

    def __init__(self, space: Space) -> None:
        self.space = space
        self.nodes: List[Node] = []
        self._numbers: Dict[Node, int] = {}
        self._by_id: Dict[int, int] = {}
        self._alive: List[Node] = []
        self._not: Dict[int, int] = {}
        self._reads: List[FrozenSet[str]] = []
        self._answers: Dict[Part, Optional[Assignment]] = {}
        self._answered: Dict[Tuple[FrozenSet[Goal], FrozenSet[Group]], Optional[Assignment]] = {}
        self._left = 0

    def number(self, node: Node) -> int:
        """The number of *node*: one per distinct node (hashed once per object)."""
        known = self._by_id.get(id(node))
        if known is None:
            known = self._numbers.setdefault(node, len(self.nodes))
            if known == len(self.nodes):
                self.nodes.append(node)
                self._reads.append(self._read(node))
            self._by_id[id(node)] = known
            self._alive.append(node)  # its id stays its own while it is known by it
        return known

    def solve(self, true: Iterable[Node] = (), false: Iterable[Node] = (),
              extra: Sequence[Tuple[str, Sequence[Node]]] = ()) -> Optional[Assignment]:
        """What `Space.solve` answers for the same question (an assignment, or None), in one
        budget (``space.budget``) for every part searched."""
        self._left = self.space.budget
        goals = [(self.number(node), True) for node in true] + [(self.number(node), False) for node in false]
        groups = [tuple(self.number(n) for n in nodes) for _, nodes in extra]
        # The same question is asked again (a diff narrows regions and their texts by many
        # questions that share goals): answered once. An assignment is shared: callers copy it.
        key = (frozenset(goals), frozenset(groups))
        if key in self._answered:
            return self._answered[key]
        found = self._solve({}, goals, groups)
        if len(self._answered) >= 4096:
            self._answered.clear()
        self._answered[key] = found
        return found

    def _solve(self, known: Dict[int, bool], goals: List[Goal], groups: List[Group]) -> Optional[Assignment]:
        """The question of the goals already normalised (*known*), more *goals*, and *groups*."""
        try:
            wanted, options = self._normalised(known, goals, groups)
        except Contradiction:
            return None
        found: Assignment = {}
        inexact: Optional[Inconclusive] = None
        for part in self._parts(wanted, options):
            try:
                answer = self._part(part)
            except Inconclusive as error:
                if not error.paths:
                    raise  # the budget: nothing more can be searched
                inexact = inexact or error
                continue
            if answer is None:
                return None  # one part cannot hold: exact, whatever the others say
            found.update(answer)
        if inexact is not None:
            raise inexact
        return found

    def _part(self, part: Part) -> Optional[Assignment]:
        if part in self._answers:
            return self._answers[part]
        goals, groups = part
        paths: Set[str] = set()
        for number, _ in goals:
            paths |= self._reads[number]
        for group in groups:
            for number in group:
                paths |= self._reads[number]
        size = 1
        for path in paths:
            size *= len(self.space.domains.get(path, (None,)))
        if not groups or size <= _SMALL:
            answer = self._search(goals, groups)
        else:
            answer = self._branch(goals, groups)
        self._answers[part] = answer
        return answer

    def _search(self, goals: FrozenSet[Goal], groups: FrozenSet[Group]) -> Optional[Assignment]:
        space, nodes = self.space, self.nodes
        budget = space.budget
        space.budget = self._left
        try:
            return space.solve(true=[nodes[n] for n, w in sorted(goals) if w],
                               false=[nodes[n] for n, w in sorted(goals) if not w],
                               extra=[("any", [nodes[n] for n in group]) for group in sorted(groups)])
        finally:
            self._left -= min(space.spent, self._left)
            space.budget = budget

    def _branch(self, goals: FrozenSet[Goal], groups: FrozenSet[Group]) -> Optional[Assignment]:
        # The group that ties most paths together: once one of its options is chosen, the part
        # tends to fall apart into independent ones (branching on small local groups first
        # multiplies the branches by choices that do not matter).
        group = max(groups, key=lambda g: (len(frozenset().union(*(self._reads[n] for n in g))), -len(g), g))
        rest = [g for g in groups if g != group]
        inexact: Optional[Inconclusive] = None
        for index, option in enumerate(group):
            branch = [(option, True), *((before, False) for before in group[:index])]
            try:
                found = self._solve(dict(goals), branch, rest)
            except Inconclusive as error:
                if not error.paths:
                    raise
                inexact = inexact or error
                continue
            if found is not None:
                return found
        if inexact is not None:
            raise inexact
        return None

    def _read(self, node: Node) -> FrozenSet[str]:
        """The paths *node* reads, and the sections above them that may be None: what ties it to
        the nodes that read the same."""
        out: Set[str] = set()
        for part in walk(node):
            if isinstance(part, Path):
                pieces = part.name.split(".")
                for end in range(1, len(pieces) + 1):
                    prefix = ".".join(pieces[:end])
                    if end == len(pieces) or len(self.space.domains.get(prefix, ())) != 1:
                        out.add(prefix)
        return frozenset(out)

    def _parts(self, goals: Set[Goal], groups: Set[Group]) -> List[Part]:
        """The goals and groups, in classes that share no path (union-find over paths)."""
        parent: Dict[str, str] = {}

        def find(path: str) -> str:
            while parent.setdefault(path, path) != path:
                parent[path] = parent[parent[path]]
                path = parent[path]
            return path

        goal_paths = [(goal, self._reads[goal[0]]) for goal in sorted(goals)]
        group_paths = [(group, frozenset().union(*(self._reads[n] for n in group))) for group in sorted(groups)]
        for paths in [p for _, p in goal_paths] + [p for _, p in group_paths]:
            ordered = sorted(paths)
            for path in ordered[1:]:
                parent[find(path)] = find(ordered[0])
        classes: Dict[Optional[str], Tuple[Set[Goal], Set[Group]]] = {}
        for goal, paths in goal_paths:
            classes.setdefault(find(min(paths)) if paths else None, (set(), set()))[0].add(goal)
        for group, paths in group_paths:
            classes.setdefault(find(min(paths)) if paths else None, (set(), set()))[1].add(group)
        return [(frozenset(g), frozenset(o)) for g, o in classes.values()]

    def _negated(self, number: int) -> int:
        if number not in self._not:
            self._not[number] = self.number(Not(self.nodes[number]))
        return self._not[number]

    def _normalised(self, wanted: Dict[int, bool], goals: List[Goal],
                    groups: List[Group]) -> Tuple[Set[Goal], Set[Group]]:
        """The same question with ``not`` pushed into what is wanted, conjunctions split and
        disjunctions made groups (*wanted*: goals already so, updated); raises `Contradiction`
        when it plainly cannot hold."""
        nodes = self.nodes
        options: List[List[int]] = [list(g) for g in groups]
        pending = list(goals)
        while True:
            while pending:
                number, want = pending.pop()
                node = nodes[number]
                while isinstance(node, Not):
                    node, want = node.operand, not want
                    number = self.number(node)
                if isinstance(node, And) and want or isinstance(node, Or) and not want:
                    pending.extend((self.number(operand), want) for operand in node.operands)
                elif isinstance(node, Or):
                    options.append([self.number(operand) for operand in node.operands])
                elif isinstance(node, And):
                    options.append([self._negated(self.number(operand)) for operand in node.operands])
                elif wanted.get(number, want) is not want:
                    raise Contradiction()
                else:
                    wanted[number] = want
            kept: List[List[int]] = []
            for group in options:
                said = [self._holds(wanted, n) for n in group]
                if True in said:
                    continue  # already made true by a goal
                left = [n for n, s in zip(group, said) if s is not False]
                if not left:
                    raise Contradiction()
                if len(left) == 1:
                    pending.append((left[0], True))
                else:
                    kept.append(left)
            options = kept
            if not pending:
                break
        return set(wanted.items()), {tuple(dict.fromkeys(g)) for g in options}

    def _holds(self, wanted: Dict[int, bool], number: int) -> Optional[bool]:
        """What the goals already say of a node (None: nothing), through ``not``, ``and`` and
        ``or``: a condition split into goals is known as a whole too."""
        said = wanted.get(number)
        if said is not None:
            return said
        node = self.nodes[number]
        if isinstance(node, Not):
            inner = self._holds(wanted, self.number(node.operand))
            return None if inner is None else not inner
        if isinstance(node, (And, Or)):
            values = [self._holds(wanted, self.number(operand)) for operand in node.operands]
            decisive = isinstance(node, Or)  # the value one operand decides it with
            if decisive in values:
                return decisive
            return not decisive if all(v is not None for v in values) else None
        return None
