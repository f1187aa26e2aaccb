"""The package's structure: module imports without cycles, one home per concept."""

import ast
import pathlib

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
