"""``derive = "…"`` of ``[config]`` (issue 30, F3): each derived field's expression parsed,
typed as an int, ordered after the derived fields it reads (a cycle is a problem), with
``nullable`` where it can be None (it reads a path that can be, or divides by something whose
bounds do not exclude zero)."""

from __future__ import annotations

from typing import Dict, List, Set, Tuple

from ._derive import inlined
from ._nodes import Arith, Literal, Node, Path, walk
from ._operators import DIVIDING
from .errors import PredicateError
from .schema import Field, Schema


def may_be_none(node: Node, schema: Schema) -> bool:
    """Whether *node* (an int expression, derived fields in place) can be None: it reads a path
    that can be None, or divides by something whose bounds do not exclude zero."""
    for part in walk(node):
        if isinstance(part, Path) and _nullable(part.name, schema):
            return True
        if isinstance(part, Arith) and part.op in DIVIDING and _may_be_zero(part.right, schema):
            return True
    return False


def _nullable(path: str, schema: Schema) -> bool:
    parts = path.split(".")
    for end in range(1, len(parts) + 1):
        field = schema.get(".".join(parts[:end]))
        if field is not None and field.nullable:
            return True
    return False


def _may_be_zero(node: Node, schema: Schema) -> bool:
    if isinstance(node, Literal):
        return node.value == 0
    if isinstance(node, Path):
        field = schema.get(node.name)
        return field is None or not ((field.min is not None and field.min > 0)
                                     or (field.max is not None and field.max < 0))
    return True  # an expression: its range is not worked out, so zero is not excluded


def expressions(fields: Dict[str, Field], sources: Dict[str, str]
                ) -> Tuple[Dict[str, Field], List[Tuple[str, PredicateError]]]:
    """The derived fields of *sources* (path → ``derive`` text), over the config *fields*: each
    expression parsed, typed, with the derived fields it reads put in place, and ``nullable``
    where it can be None; and the problems found: (path, error)."""
    from . import _parser, _typecheck

    problems: List[Tuple[str, PredicateError]] = []
    parsed: Dict[str, Node] = {}
    for path, text in sources.items():
        try:
            parsed[path] = _parser.parse_expression(text)
        except PredicateError as error:
            problems.append((path, error))
    # Typed with every derived field an int (that may be None until its own expression is known).
    typing = Schema(fields, {p: Field(p, "int", nullable=True, derive=Literal(0)) for p in sources})
    for path, node in list(parsed.items()):
        errors = _typecheck.check_expression(node, typing, sources[path])
        if errors:
            problems.append((path, errors[0]))
            del parsed[path]
    out: Dict[str, Field] = {}
    for path in _ordered(parsed, sources, problems):
        current = Schema(fields, out)
        node = inlined(parsed[path], current)
        out[path] = Field(path, "int", nullable=may_be_none(node, current), derive=node)
    return {p: out[p] for p in sources if p in out}, problems


def _ordered(parsed: Dict[str, Node], sources: Dict[str, str],
             problems: List[Tuple[str, PredicateError]]) -> List[str]:
    """The derived fields, each after those it reads; one in a cycle is a problem."""
    from . import _messages

    reads = {p: {n.name for n in walk(node) if isinstance(n, Path) and n.name in parsed} for p, node in parsed.items()}
    done: List[str] = []
    state: Dict[str, int] = {}
    cyclic: Set[str] = set()

    def visit(path: str, trail: Tuple[str, ...]) -> bool:
        if state.get(path) == 2:
            return path not in cyclic
        if state.get(path) == 1:
            cycle = trail[trail.index(path):] + (path,)
            for p in cycle:
                cyclic.add(p)
            problems.append((path, PredicateError(_messages.derive_cycle(cycle), source=sources[path],
                                                  span=(0, len(sources[path])))))
            return False
        state[path] = 1
        ok = all([visit(q, trail + (path,)) for q in sorted(reads[path])])
        state[path] = 2
        if ok and path not in cyclic:
            done.append(path)
            return True
        cyclic.add(path)
        return False

    for path in parsed:
        visit(path, ())
    return done


