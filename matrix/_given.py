"""The value as given (issue 30, F8): ``given.<path>`` reads the config as the user gave it.

A predicate, a message template or an adjustment's ``from`` may name ``given.PATH``: the value
PATH has in the config passed to ``resolve`` (and its facts), before any adjustment, alias or
redirect; typed as PATH's field (a derived field computed from the values as given). Where no
adjustment has set PATH, ``given.PATH`` and ``PATH`` read the same. ``given`` is the reserved
first part of a path: no ``[config]`` entry may be named so, and no adjustment sets a
``given.`` path.

The resolver reads it through `matrix._access.read` (an effective config's own config); the
compiled fast path reads it as PATH (its fast readers never read an effective config); the
searches of `matrix._space` read it as PATH (`plain`), which is exact over the config given
(the one they search), and ``matrix check`` says ``inconclusive`` of a condition read alone
that names ``given.PATH`` of a path an adjustment sets (`adjusted`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Optional, Set

from ._nodes import And, Arith, Call, Compare, DerivedField, IsNone, Mod, Node, Not, Or, Path, walk

if TYPE_CHECKING:  # pragma: no cover
    from .schema import Adjustment

#: The first part of a path that reads the config as given.
PREFIX = "given."
#: The name no ``[config]`` entry may take for the value as given.
RESERVED = "given"
#: The first part of a path that reads the runner filling a role (issue 30, F1: `matrix._roles`).
ROLE = "role."
#: The first parts of a path that no ``[config]`` entry may take, each with what it reads instead:
#: one table, which the loader, the editor schema and the messages read.
RESERVED_ROOTS = {
    RESERVED: "given.PATH reads PATH as the config was given, before any adjustment, alias or redirect",
    "role": "role.ID reads the runner that fills role ID, once the runner is chosen",
}


def base(path: str) -> Optional[str]:
    """The path ``given.PATH`` reads (PATH), or None for any other path."""
    return path[len(PREFIX):] if path.startswith(PREFIX) else None


def reads(node: Node) -> Set[str]:
    """The paths *node* reads as given (each PATH of a ``given.PATH``)."""
    return {b for b in (base(n.name) for n in walk(node) if isinstance(n, Path)) if b is not None}


def prefixed(node: Node) -> Node:
    """*node* (a derived field's expression) with every path read as given."""
    return _mapped(node, lambda name: PREFIX + name)


def plain(node: Node) -> Node:
    """*node* with each ``given.PATH`` read as PATH: the same value over the config given."""
    if not any(isinstance(n, Path) and n.name.startswith(PREFIX) for n in walk(node)):
        return node
    return _mapped(node, lambda name: base(name) or name)


def _mapped(node: Node, rename: Callable[[str], str]) -> Node:
    def go(n: Node) -> Node:  # each node built anew by its constructor, its span kept
        if isinstance(n, Path):
            return Path(rename(n.name), span=n.span)
        if isinstance(n, Mod):
            return Mod(Path(rename(n.path.name), span=n.path.span), n.divisor, span=n.span)
        if isinstance(n, Arith):
            return Arith(go(n.left), n.op, go(n.right), span=n.span)
        if isinstance(n, Call):
            return Call(n.name, tuple(go(a) for a in n.args), span=n.span)
        if isinstance(n, DerivedField):
            return DerivedField(Path(rename(n.path.name), span=n.path.span), go(n.expression), span=n.span)
        if isinstance(n, Compare):
            return Compare(go(n.left), n.op, go(n.right), span=n.span)
        if isinstance(n, IsNone):
            return IsNone(go(n.operand), n.negated, span=n.span)
        if isinstance(n, Not):
            return Not(go(n.operand), span=n.span)
        if isinstance(n, (And, Or)):
            return type(n)(tuple(go(o) for o in n.operands), span=n.span)
        return n

    return go(node)


def adjusted(node: Node, adjustments: Iterable[Adjustment]) -> Set[str]:
    """The paths *node* reads as given that one of *adjustments* sets (or sets a section above):
    there ``given.PATH`` and ``PATH`` may differ on the configs resolution reads."""
    given = reads(node)
    if not given:
        return set()
    set_paths = {p for a in adjustments for p in a.set}
    return {g for g in given if any(g == s or g.startswith(s + ".") for s in set_paths)}
