"""Predicates: the typed conditions under which a config uses a feature.

A `Predicate` is a value: it parses from text (the grammar is in :mod:`matrix._parser`),
prints canonically (``Predicate(str(p)) == p``), compares and hashes by meaning, lists the
config paths it reads, and evaluates against any config object.

>>> p = Predicate("parallel_config.pipeline_parallel_size>1 and (x.y == 'a')")
>>> str(p)
"parallel_config.pipeline_parallel_size > 1 and x.y == 'a'"
>>> sorted(p.paths)
['parallel_config.pipeline_parallel_size', 'x.y']
>>> p.evaluate({"parallel_config": {"pipeline_parallel_size": 2}, "x": {"y": "a"}})
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Optional, Tuple, Type, Union

from . import _access, _operators
from ._derive import evaluate
from ._nodes import (ARITHMETIC_NODES, And, Arith, Call, Compare, DerivedField, IsNone, ListLiteral, Literal, Mod, Node,
                     Not, Or, Path, walk)
from ._operators import remainder, truthy
from .errors import PredicateError

if TYPE_CHECKING:  # pragma: no cover
    from .schema import Schema

__all__ = ["Predicate", "OPERATORS", "And", "Or", "Not", "Compare", "IsNone", "Mod", "Arith", "Call", "DerivedField", "Path",
           "Literal", "ListLiteral"]


def __dir__() -> List[str]:
    return __all__


#: The comparison operators: spelling → function, from the table of `matrix._operators`
#: (the parser's "Expected a comparison operator (…)" is generated from the same table).
OPERATORS: Dict[str, Callable[[object, object], bool]] = {
    op.spelling: op.evaluate for op in _operators.COMPARISONS if op.evaluate is not None}


def _restored(source: Optional[str], node: Node, paths: FrozenSet[str],
              kind: Optional[Type[Predicate]] = None) -> Predicate:
    # *source* is None for a composed predicate: its text is the tree's, written when first
    # asked for (`Predicate.source`). Writing it at every ``&`` made a chain of n clauses, whose
    # gates are built by n²/2 of them, cost n³ (150 clauses: 4 s to a first resolve).
    made = kind or Predicate
    self = made.__new__(made)
    self._node = node
    self._source = source
    self._paths = paths
    return self


def _parsed(source: str, *, whole: bool = False) -> Node:
    """The tree of *source* (`PredicateError` if it does not parse), within the length a
    predicate may be written in unless *whole*."""
    from . import _parser  # not imported by `import matrix`: a cached matrix is not parsed

    return _parser.parse(source, None) if whole else _parser.parse(source)


def _paths_of(node: Node) -> FrozenSet[str]:
    return frozenset(n.name for n in walk(node) if isinstance(n, Path))


def _unchecked(source: str, *, text: Optional[str] = None, kind: Optional[Type[Predicate]] = None) -> Predicate:
    """The predicate of text the package wrote itself (``matrix diff``'s regions), however long,
    not type-checked: `PredicateError` if it does not parse. *text*: its source as said (*source*
    is what is parsed); *kind*: a subclass of `Predicate` to make."""
    node = _parsed(source, whole=True)
    return _restored(source if text is None else text, node, _paths_of(node), kind)


def _joined(kind: Union[Type[And], Type[Or]], left: Predicate, right: Predicate) -> Predicate:
    # Flattened as the parser flattens `a and (b and c)`: one tree for the text and the value.
    operands: List[Node] = []
    for side in (left._node, right._node):
        operands.extend(side.operands if isinstance(side, (And, Or)) and type(side) is kind else (side,))
    return _restored(None, kind(tuple(operands)), left._paths | right._paths)


class Predicate:
    """A parsed condition over a config.

    Predicates compose without text: ``p & q``, ``p | q`` and ``~p`` are the predicates
    ``p and q``, ``p or q`` and ``not p`` (equal to those parsed from that text; the tree is
    built, not parsed again, so a composition of checked predicates needs no checking).

    >>> p = Predicate("a.b > 1") & ~Predicate("a.c or a.d")
    >>> p == Predicate("a.b > 1 and not (a.c or a.d)"), str(p)
    (True, 'a.b > 1 and not (a.c or a.d)')

    :param source: the predicate's text.
    :param schema: when given, the predicate is type-checked against it.
    :raises PredicateError: the text does not parse, or does not type-check.
    """

    __slots__ = ("_node", "_source", "_paths", "__weakref__")
    _source: Optional[str]

    def __init__(self, source: str, *, schema: Optional[Schema] = None) -> None:
        if not isinstance(source, str):
            raise TypeError(f"Predicate() takes a str, not {type(source).__name__}")
        checked, errors = self.checked(source, schema=schema)
        if errors or checked is None:
            raise errors[0]
        self._node: Node = checked._node
        self._source = source
        self._paths: FrozenSet[str] = checked._paths

    @classmethod
    def checked(cls, source: str, *, schema: Optional[Schema] = None) -> Tuple[Optional[Predicate], List[PredicateError]]:
        """Parse and type-check *source*, returning every error instead of raising the first:
        ``(predicate, [])``, or ``(None, errors)`` in source order (the loader reports them all):
        the type errors of a text that parses; of one that does not, its syntax error and each
        unknown config path it names besides (`matrix._typecheck.unknown_paths`).

        >>> Predicate.checked("a ==")[1][0].message
        "Expected a config path, a value, '(' or '[', found end of text"
        """
        from . import _typecheck

        try:
            node = _parsed(source)
        except PredicateError as error:
            # The paths it names are known or not whatever the syntax around them: said too.
            beside = _typecheck.unknown_paths(source, schema, error) if schema else []
            return None, sorted([error, *beside], key=lambda e: e.span or (0, 0))

        errors = _typecheck.check(node, schema, source) if schema else []
        if errors:
            return None, errors
        if schema is not None and schema.derivations:
            from ._derive import inlined

            node = inlined(node, schema)
        return _restored(source, node, _paths_of(node)), []

    @property
    def node(self) -> Node:
        """The parsed tree: frozen nodes of `matrix._nodes` (`And`, `Or`, `Not`, `Compare`,
        `IsNone`, `Path`, `Literal`, `ListLiteral`, `Mod`, `Arith`, `Call`, `DerivedField`). Read-only: nodes are values. Each
        node parsed carries the span of its text in the source it was parsed from (`source`,
        unless this predicate was composed); spans take no part in equality."""
        return self._node

    @property
    def source(self) -> str:
        """The text as written (``str(p)`` is the canonical form; a composed predicate's text
        is its canonical form)."""
        if self._source is None:
            self._source = str(self._node)
        return self._source

    @property
    def paths(self) -> FrozenSet[str]:
        """The config paths this predicate reads."""
        return self._paths

    def __str__(self) -> str:
        return str(self._node)

    def __repr__(self) -> str:
        return f"Predicate({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Predicate):
            return NotImplemented
        return self._node == other._node

    def __hash__(self) -> int:
        return hash(self._node)

    def __and__(self, other: object) -> Predicate:
        if not isinstance(other, Predicate):
            return NotImplemented
        return _joined(And, self, other)

    def __or__(self, other: object) -> Predicate:
        if not isinstance(other, Predicate):
            return NotImplemented
        return _joined(Or, self, other)

    def __invert__(self) -> Predicate:
        return _restored(None, Not(self._node), self._paths)

    def __copy__(self) -> Predicate:
        return self

    def __deepcopy__(self, memo: Dict[int, object]) -> Predicate:
        return self

    def __reduce__(self) -> Tuple[Any, Tuple[Optional[str], Node, FrozenSet[str]]]:
        # The parsed tree travels with the text, so unpickling (the cache of loaded matrices,
        # a worker process) does not parse again.
        return (_restored, (self._source, self._node, self._paths))

    def evaluate(self, config: object, *, schema: Optional[Schema] = None) -> bool:
        """Whether *config* satisfies this predicate.

        :param schema: checks the values read and supplies defaults for missing fields.
        :raises ConfigError: a value is missing with no default, or not allowed by *schema*.
        """
        cache: Dict[str, object] = {}

        def lookup(path: str) -> object:
            try:
                return cache[path]
            except KeyError:
                value = cache[path] = _access.read(config, path, schema)
                return value

        return truth(self._node, lookup)


def value(node: Node, lookup: Callable[[str], object]) -> object:
    """The value of an operand (the reference interpreter; the fast path must agree)."""
    if isinstance(node, Path):
        return lookup(node.name)
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, ListLiteral):
        return node.values
    if isinstance(node, Mod):
        return remainder(lookup(node.path.name), node.divisor)
    if isinstance(node, ARITHMETIC_NODES):
        return evaluate(node, lookup)
    return truth(node, lookup)


def truth(node: Node, lookup: Callable[[str], object]) -> bool:
    """Whether *node* holds, reading config values through *lookup*."""
    if isinstance(node, And):
        return all(truth(operand, lookup) for operand in node.operands)
    if isinstance(node, Or):
        return any(truth(operand, lookup) for operand in node.operands)
    if isinstance(node, Not):
        return not truth(node.operand, lookup)
    if isinstance(node, Compare):
        return OPERATORS[node.op](value(node.left, lookup), value(node.right, lookup))
    if isinstance(node, IsNone):
        return (value(node.operand, lookup) is None) is not node.negated
    return truthy(value(node, lookup))
