"""What the host's config classes hold: every member, at every depth, in matrix's terms.

Reads stdlib dataclasses, attrs classes, pydantic v2 models and pydantic dataclasses (and, for
a path named explicitly, annotated properties). Each member's annotation is mapped to a field
type of the ``[config]`` schema the way `matrix._access` reads values: ``Literal`` values and
enum members become ``choices`` (an enum member as its value for ``str`` enums, else its name),
``Optional[X]`` is ``nullable``, a nested class is a ``section``, pydantic ``ge``/``le`` (and
``gt``/``lt`` on ints) are ``min``/``max``; ``str | type[X]``, and a list of those, is ``str`` or
``list[str]`` with ``classes = true`` (a class reads as its qualified name). A member that has
no such type says why.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import functools
import inspect
import sys
import textwrap
import types
import typing
from typing import Any, Dict, Iterator, List, Optional, Tuple

import attrs
from packaging.version import Version

from .schema import NOTHING

_NONE = type(None)
#: What `_map` says of an annotation: ``(type, nullable, choices, nested class, other types,
#: why not mapped)``.
Mapped = Tuple[Optional[str], bool, Optional[Tuple[object, ...]], Optional[type], Tuple[str, ...], Optional[str]]

_SCALARS = {bool: "bool", int: "int", float: "float", str: "str", Version: "version"}
_SEQUENCES: Tuple[Any, ...] = (list, tuple, typing.Sequence, typing.List, typing.Tuple)
try:
    from collections.abc import Sequence as _AbcSequence

    _SEQUENCES += (_AbcSequence,)
except ImportError:  # pragma: no cover
    pass


@attrs.frozen
class Member:
    """One member of a host config class, mapped to a schema field (``type`` None: not mapped,
    and ``why`` says why)."""

    path: str
    owner: str
    name: str
    annotation: str
    type: Optional[str] = None
    why: Optional[str] = None
    nullable: bool = False
    choices: Optional[Tuple[object, ...]] = None
    min: Optional[float] = None
    max: Optional[float] = None
    #: A bound the schema cannot state (``gt`` on a float): said, not dropped silently.
    lost_bound: Optional[str] = None
    default: object = NOTHING
    doc: Optional[str] = None
    #: The nested class of a section.
    cls: Optional[builtins.type] = attrs.field(default=None, eq=False, repr=False)  # `type` is a field here
    #: Other types the annotation allows beside ``type`` (``str | type`` → ``('type',)``).
    others: Tuple[str, ...] = ()
    #: Read through a property, not a field (only looked up by name).
    computed: bool = False
    #: A class may stand for a name (``str | type[X]``, or a list of those): ``classes = true``.
    classes: bool = False


def is_config_class(cls: object) -> bool:
    return isinstance(cls, type) and (
        _pydantic_fields(cls) is not None or attrs.has(cls) or dataclasses.is_dataclass(cls))


def members(cls: type, prefix: str = "", _stack: Tuple[type, ...] = ()) -> Iterator[Member]:
    """Every field of *cls* and of the classes nested in it, depth first, in class order."""
    stack = _stack + (cls,)
    for name, annotation, default, doc, bounds in _fields(cls):
        path = f"{prefix}.{name}" if prefix else name
        member = _member(cls, path, name, annotation, default, doc, bounds)
        if member.cls is not None and member.cls in stack:
            member = attrs.evolve(member, type=None, cls=None,
                                  why=f"refers back to {member.cls.__name__} (a recursive section)")
        yield member
        if member.cls is not None:
            yield from members(member.cls, path, stack)


def lookup(cls: type, path: str) -> Tuple[Optional[Member], Optional[type], List[str]]:
    """The member at *path*: ``(member, None, [])``, or ``(None, owner, its member names)``
    for the first part that *owner* does not have. Properties count, when looked up by name."""
    owner: Optional[type] = cls
    member = None
    parts = path.split(".")
    for index, name in enumerate(parts):
        if owner is None:
            return None, None, []
        found = {f[0]: f for f in _fields(owner)}
        prefix = ".".join(parts[: index + 1])
        if name in found:
            _, annotation, default, doc, bounds = found[name]
            member = _member(owner, prefix, name, annotation, default, doc, bounds)
        else:
            member = _computed(owner, prefix, name)
            if member is None:
                return None, owner, list(found) + _properties(owner)
        owner = member.cls
    return member, None, []


# --- reading a class ----------------------------------------------------------------------------

def _pydantic_fields(cls: type) -> Optional[Dict[str, Any]]:
    fields = cls.__dict__.get("__pydantic_fields__") if isinstance(cls, type) else None
    if fields is None and isinstance(cls, type):
        fields = getattr(cls, "__pydantic_fields__", None)
    return fields if isinstance(fields, dict) else None


@functools.cache
def _fields(cls: type) -> Tuple[Tuple[Any, ...], ...]:
    """``(name, annotation, default, doc, bounds)`` for each field of *cls*, in order."""
    docs = _attribute_docs(cls)
    hints = _hints(cls)
    out = []
    pydantic = _pydantic_fields(cls)
    if pydantic is not None:
        for name, info in pydantic.items():
            default = _pydantic_default(info)
            bounds = _bounds(getattr(info, "metadata", ()))
            doc = getattr(info, "description", None) or docs.get(name)
            # A config names an aliased field by its alias, as resolve reads it (`matrix._access.child`).
            out.append((getattr(info, "alias", None) or name, info.annotation, default, doc, bounds))
        return tuple(out)
    if attrs.has(cls):
        for a in attrs.fields(cls):
            default = a.default
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = NOTHING if default.takes_self else _call(default.factory)
            elif default is attrs.NOTHING:
                default = NOTHING
            doc = a.metadata.get("doc") or a.metadata.get("description") or docs.get(a.name)
            out.append((a.name, hints.get(a.name, a.type), default, doc, _bounds(())))
        return tuple(out)
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = _call(f.default_factory)
        else:
            default = NOTHING
        doc = f.metadata.get("doc") or f.metadata.get("description") or docs.get(f.name)
        annotation = hints.get(f.name, f.type)
        annotation, extra = _unannotated(annotation)
        out.append((f.name, annotation, default, doc, _bounds(extra)))
    return tuple(out)


def _call(factory: Any) -> object:
    try:
        return factory()
    except Exception:  # a factory that needs arguments or fails: no default to show
        return NOTHING


def _pydantic_default(info: Any) -> object:
    factory = getattr(info, "default_factory", None)
    if factory is not None:
        if getattr(info, "default_factory_takes_data", False):
            return NOTHING
        return _call(factory)
    default = info.default
    if type(default).__name__ == "PydanticUndefinedType":
        return NOTHING
    return default


def _hints(cls: type) -> Dict[str, Any]:
    module = sys.modules.get(cls.__module__)
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:
        # One annotation that cannot be resolved (a name imported only for type checkers)
        # must not cost the others: resolve them one by one.
        hints = {}
        namespace = dict(vars(module)) if module else {}
        for klass in reversed(cls.__mro__):
            for name, value in getattr(klass, "__annotations__", {}).items():
                if isinstance(value, str):
                    try:
                        value = _evaluate(value, namespace, dict(vars(klass)))
                    except Exception:
                        pass
                hints[name] = value
        return hints


class _Unions(ast.NodeTransformer):
    """``X | Y`` as ``Union[X, Y]``: PEP 604 unions, which ``from __future__ import annotations``
    lets a module write before Python 3.10 can evaluate them (type checkers read them so)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.BitOr):
            return node
        union = ast.Name(id="__matrix_Union__", ctx=ast.Load())
        pair = ast.Tuple(elts=[node.left, node.right], ctx=ast.Load())
        return ast.copy_location(ast.Subscript(value=union, slice=pair, ctx=ast.Load()), node)


def _evaluate(text: str, globalns: Dict[str, Any], localns: Dict[str, Any]) -> object:
    """A string annotation evaluated in its class's module, as a type checker reads it."""
    try:
        return eval(text, globalns, localns)
    except TypeError:
        if sys.version_info >= (3, 10):
            raise
        tree = ast.fix_missing_locations(_Unions().visit(ast.parse(text, mode="eval")))
        return eval(compile(tree, "<annotation>", "eval"), {**globalns, "__matrix_Union__": typing.Union}, localns)


def _attribute_docs(cls: type) -> Dict[str, str]:
    """The string literal under each annotated attribute (how vLLM documents its fields)."""
    docs: Dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is object:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except Exception:  # no source (built in, generated, frozen): no docstrings
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for statement, following in zip(body, body[1:]):
            if (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
                    and isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                    and isinstance(following.value.value, str)):
                docs[statement.target.id] = following.value.value
    return docs


def clean_doc(text: Optional[str]) -> Optional[str]:
    """The first paragraph of a docstring, on one line."""
    if not text or not isinstance(text, str):
        return None
    paragraph = inspect.cleandoc(text).split("\n\n")[0]
    return " ".join(paragraph.split()) or None


def _unannotated(annotation: Any) -> Tuple[Any, Tuple[Any, ...]]:
    if typing.get_origin(annotation) is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        return inner, tuple(extra)
    return annotation, ()


def _bounds(metadata: Any) -> Dict[str, Any]:
    """``ge``/``le``/``gt``/``lt`` from annotated-types constraints and pydantic ``Field``s."""
    found: Dict[str, object] = {}
    for item in metadata:
        for key in ("ge", "le", "gt", "lt"):
            value = getattr(item, key, None)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                found[key] = value
        inner = getattr(item, "metadata", None)
        if isinstance(inner, (list, tuple)) and inner is not metadata:
            found.update(_bounds(inner))
    return found


def _properties(cls: type) -> List[str]:
    return [n for n in dir(cls) if not n.startswith("_")
            and isinstance(inspect.getattr_static(cls, n, None), (property, functools.cached_property))]


def _computed(owner: type, path: str, name: str) -> Optional[Member]:
    """A property (or cached property) named *name*, typed by its return annotation."""
    if name.startswith("_"):
        return None
    found = inspect.getattr_static(owner, name, None)
    function = getattr(found, "fget", None) or getattr(found, "func", None)
    if function is None:
        return None
    try:
        annotation = typing.get_type_hints(function, include_extras=True).get("return", NOTHING)
    except Exception:
        annotation = function.__annotations__.get("return", NOTHING)
    doc = clean_doc(getattr(function, "__doc__", None))
    if annotation is NOTHING:
        return Member(path, owner.__name__, name, "(no annotation)", why="a property with no return annotation",
                      doc=doc, computed=True)
    member = _member(owner, path, name, annotation, NOTHING, doc, {})
    return attrs.evolve(member, computed=True)


# --- mapping an annotation ------------------------------------------------------------------------

def _member(owner: type, path: str, name: str, annotation: Any, default: object, doc: Optional[str],
            bounds: Dict[str, Any]) -> Member:
    annotation, extra = _unannotated(annotation)
    if extra:
        bounds = {**_bounds(extra), **bounds}
    shown = _show(annotation)
    base: Dict[str, Any] = dict(path=path, owner=owner.__name__, name=name, annotation=shown, doc=clean_doc(doc))
    kind, nullable, choices, cls, others, why = _map(annotation)
    if kind is None:
        return Member(**base, why=why, nullable=nullable)
    low = high = None
    lost = None
    if kind in ("int", "float"):
        low, high, lost = _limits(kind, bounds)
    value = _default(default, kind)
    return Member(**base, type=kind, nullable=nullable, choices=choices, min=low, max=high,
                  lost_bound=lost, default=value, cls=cls, others=others, why=why,
                  classes=kind in ("str", "list[str]") and _takes_classes(annotation))


def _is_class(annotation: Any) -> bool:
    """``type`` or ``type[X]``: an annotation whose values are classes."""
    return annotation is type or typing.get_origin(annotation) is type


def _union_arms(annotation: Any) -> Optional[List[Any]]:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or (hasattr(types, "UnionType") and isinstance(annotation, types.UnionType)):
        return [_unannotated(a)[0] for a in typing.get_args(annotation) if a is not _NONE]
    return None


def _names_or_classes(annotation: Any) -> bool:
    """``str | type[X]`` (None aside): a name, or a class standing for one."""
    arms = _union_arms(annotation)
    return arms is not None and str in arms and any(map(_is_class, arms)) and all(
        a is str or _is_class(a) for a in arms)


def _takes_classes(annotation: Any) -> bool:
    """Whether a ``str`` or ``list[str]`` member may hold classes for names."""
    if _names_or_classes(annotation):
        return True
    arms = _union_arms(annotation)
    if arms is not None and len(arms) == 1:
        annotation = arms[0]
    if typing.get_origin(annotation) in _SEQUENCES:
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        return len(args) == 1 and _names_or_classes(_unannotated(args[0])[0])
    return False


def _map(annotation: Any) -> Mapped:
    """``(type, nullable, choices, nested class, other types, why not)``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or (hasattr(types, "UnionType") and isinstance(annotation, types.UnionType)):
        arms = [a for a in typing.get_args(annotation) if a is not _NONE]
        nullable = len(arms) < len(typing.get_args(annotation))
        if all(typing.get_origin(_unannotated(a)[0]) is typing.Literal for a in arms):
            values = tuple(v for a in arms for v in typing.get_args(_unannotated(a)[0]))
            kind, lit_nullable, choices, _, _, why = _literal(values)
            return kind, nullable or lit_nullable, choices, None, (), why
        if _names_or_classes(annotation):  # classes read as names: `classes = true`
            return "str", nullable, None, None, (), None
        mapped = [_map(_unannotated(a)[0]) for a in arms]
        if len(mapped) == 1:
            kind, inner_nullable, choices, cls, others, why = mapped[0]
            return kind, nullable or inner_nullable, choices, cls, others, why
        # The first arm with a type is what the schema can declare; the others are what the
        # class allows beyond it (the drift check warns about them, `derive` leaves it out).
        first = next((m for m in mapped if m[0] is not None), None)
        why = f"{_show(annotation)} is a union of several types; a [config] field has one"
        if first is None:
            return None, nullable, None, None, (), why
        others = tuple(_show(a) for a, m in zip(arms, mapped) if m is not first)
        return first[0], nullable, first[2], first[3], others, why
    if origin is typing.Literal:
        return _literal(typing.get_args(annotation))
    if isinstance(annotation, type) and annotation in _SCALARS:  # an annotation need not be hashable
        return _SCALARS[annotation], False, None, None, (), None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        choices = tuple(m.value if isinstance(m, str) else m.name for m in annotation)
        return "str", False, choices, None, (), None
    if origin in _SEQUENCES or annotation in (list, tuple):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        if origin is tuple and len(typing.get_args(annotation)) != 2 and len(set(args)) > 1:
            return None, False, None, None, (), f"{_show(annotation)} is a fixed-shape tuple; a [config] list has one item type"
        item = set(args)
        if len(args) == 1 and _names_or_classes(_unannotated(args[0])[0]):
            return "list[str]", False, None, None, (), None
        if item in ({str}, {int}):
            return f"list[{next(iter(item)).__name__}]", False, None, None, (), None
        return None, False, None, None, (), f"{_show(annotation)}: a [config] list holds str or int items"
    if is_config_class(annotation):
        return "section", False, None, annotation, (), None
    return None, False, None, None, (), f"{_show(annotation)} has no [config] type (bool, int, float, str, version, list[str], list[int], or a nested config class)"


def _literal(values: Tuple[object, ...]) -> Mapped:
    nullable = None in values
    values = tuple(v for v in values if v is not None)
    values = tuple(v.value if isinstance(v, enum.Enum) and isinstance(v, str)
                   else v.name if isinstance(v, enum.Enum) else v for v in values)
    if values and all(type(v) is bool for v in values):
        return "bool", nullable, None, None, (), None
    for kind, accepted in (("str", (str,)), ("int", (int,)), ("float", (int, float))):
        if values and all(isinstance(v, accepted) and not isinstance(v, bool) for v in values):
            return kind, nullable, values, None, (), None
    shown = ", ".join(repr(v) for v in values)
    return None, nullable, None, None, (), f"Literal[{shown}] mixes types; [config] choices are all str, all int or all float"


def _limits(kind: str, bounds: Dict[str, Any]) -> Tuple[Optional[float], Optional[float], Optional[str]]:
    low: Optional[float] = _number(bounds.get("ge"))
    high: Optional[float] = _number(bounds.get("le"))
    lost = []
    for key, step in (("gt", 1), ("lt", -1)):
        if key not in bounds:
            continue
        value = bounds[key]
        if kind == "int" and isinstance(value, int):
            exact = value + step
            if key == "gt":
                low = exact if low is None else max(low, exact)
            else:
                high = exact if high is None else min(high, exact)
        else:
            lost.append(f"{key}={value!r}")
    why = None
    if lost:
        why = f"{', '.join(lost)} on a {kind} cannot be stated as an inclusive min/max"
    return low, high, why


def _number(value: object) -> Optional[float]:
    """A bound as given (an int or a float), or None for anything else."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _default(value: object, kind: str) -> object:
    if value is NOTHING or kind == "section":
        return NOTHING
    if isinstance(value, enum.Enum):
        return value.value if isinstance(value, str) else value.name
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, Version):
        return str(value)
    return value


def _show(annotation: Any) -> str:
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    text = repr(annotation)
    return text.replace("typing.", "")
