"""The package's structure: module imports without cycles, one home per concept."""

import ast
import pathlib
import sys

import matrix
import matrix.render
import matrix.resolver
from matrix import _versions

PACKAGE = pathlib.Path(matrix.__file__).parent


def _top_level_imports(path: pathlib.Path) -> set:
    """The package modules a module imports when it is imported (not inside functions, not
    under ``if TYPE_CHECKING``)."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def test_the_modules_import_each_other_without_a_cycle():
    graph = {p.stem: _top_level_imports(p) & {q.stem for q in PACKAGE.glob("*.py")} for p in PACKAGE.glob("*.py")}
    done, active = set(), []

    def visit(name):
        if name in active:
            raise AssertionError(" -> ".join([*active[active.index(name):], name]))
        if name in done:
            return
        active.append(name)
        for other in sorted(graph.get(name, ())):
            visit(other)
        active.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)
    assert "resolver" not in graph["schema"]  # the resolver binds Matrix.resolve, not the other way round


def test_each_public_class_is_defined_in_one_module():
    homes = {}
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes.setdefault(node.name, []).append(path.stem)
    assert {name: modules for name, modules in homes.items() if len(modules) > 1} == {}
    # A check finding is about a matrix; an observation, about a config.
    assert (homes["Finding"], homes["Observation"]) == (["check"], ["resolver"])


def test_each_concept_has_one_home():
    assert matrix.resolver.as_version is _versions.as_version
    assert matrix.Matrix.resolve is matrix.resolver.resolve
    doc = matrix.render.document(matrix.default())
    assert type(doc.config[0]).__name__ == "ConfigRow" and doc.config[0].path == "cache_config.mamba_cache_mode"
    assert type(doc.deprecations[0]).__name__ == "DeprecationRow" and doc.deprecations[0].remove_in == "0.32.0"


def test_every_type_a_user_can_reach_from_the_public_api_is_exported():
    # Walk the annotations of every exported class (attrs fields, properties, methods) and of the
    # public functions; every class of the package they name must be importable from `matrix`.
    import inspect
    import typing

    import attrs

    import matrix
    import matrix.check
    import matrix.strategies
    import matrix.testing

    # Names some modules import only for type checking.
    import logging

    names = {}
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("matrix"):
            names.update(vars(module))
    names["logging"] = logging  # the standard one (matrix.sphinx imports Sphinx's under that name)

    def hints_of(thing):
        return list(typing.get_type_hints(thing, localns=names).values())

    def named(hint, out):
        if isinstance(hint, type) and hint.__module__.startswith("matrix"):
            out.add(hint)
        for arg in typing.get_args(hint):
            named(arg, out)

    reached = set()
    roots = [getattr(matrix, name) for name in matrix.__all__]
    seen = set()
    while roots:
        item = roots.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        hints = []
        if inspect.isclass(item):
            if attrs.has(item):
                hints += hints_of(item)
            for _, member in inspect.getmembers(item):
                function = member.fget if isinstance(member, property) else member
                if inspect.isfunction(function) and not function.__name__.startswith("_"):
                    hints += hints_of(function)
        elif inspect.isfunction(item):
            hints += hints_of(item)
        found = set()
        for hint in hints:
            named(hint, found)
        for cls in found - reached:
            reached.add(cls)
            roots.append(cls)
    missing = sorted(c.__qualname__ for c in reached
                     if c.__name__ not in matrix.__all__ or getattr(matrix, c.__name__) is not c)
    assert missing == []
