"""The package's structure: module imports without cycles, one home per concept."""

import ast
import pathlib
import sys

import matrix
import matrix.render
import matrix.resolver
from matrix import _versions

PACKAGE = pathlib.Path(matrix.__file__).parent


def _imports(path: pathlib.Path) -> set:
    """The package modules a module imports at run time: at its top level and inside every
    function and class (a function-level import is a dependency too, taken later), not under
    ``if TYPE_CHECKING`` (which type checkers follow and Python does not)."""
    tree = ast.parse(path.read_text())
    typing_only = {id(inner) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for statement in node.body for inner in ast.walk(statement)}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and id(node) not in typing_only:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def _cycle(graph: dict):
    """One import cycle of *graph* (module → modules it imports), as a list of modules, or None."""
    done, active = set(), []

    def visit(name):
        if name in active:
            return [*active[active.index(name):], name]
        if name in done:
            return None
        active.append(name)
        for other in sorted(graph.get(name, ())):
            found = visit(other)
            if found:
                return found
        active.pop()
        done.add(name)
        return None

    for name in sorted(graph):
        found = visit(name)
        if found:
            return found
    return None


def _graph() -> dict:
    modules = {q.stem for q in PACKAGE.glob("*.py")}
    return {p.stem: _imports(p) & modules for p in PACKAGE.glob("*.py")}


def test_the_modules_import_each_other_without_a_cycle_even_inside_functions():
    assert _cycle(_graph()) is None
    assert "resolver" not in _graph()["schema"]  # the values know nothing of the engine


def test_each_section_of_a_matrix_file_is_built_by_a_unit_the_loader_hands_its_builder():
    # loader.py orchestrates; each section is a `_load_*` module of functions taking the
    # builder. Only the loader (or another unit) imports a unit, and a unit imports nothing of
    # the loader at run time (the builder's type only, under TYPE_CHECKING).
    graph = _graph()
    units = {name for name in graph if name.startswith("_load_")}
    assert {"_load_header", "_load_config", "_load_features", "_load_runners", "_load_choice",
            "_load_refusals", "_load_lifecycle"} <= units
    assert sorted(name for name in graph if graph[name] & units and name not in units) == ["loader"]
    assert sorted(name for name in units if "loader" in graph[name]) == []


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    (tmp_path / "values.py").write_text("def later():\n    from .engine import run\n")
    (tmp_path / "engine.py").write_text("from typing import TYPE_CHECKING\nfrom .values import later\n"
                                        "if TYPE_CHECKING:\n    from .more import Thing\n")
    (tmp_path / "more.py").write_text("from .engine import run\n")
    graph = {p.stem: _imports(p) for p in tmp_path.glob("*.py")}
    assert graph == {"values": {"engine"}, "engine": {"values"}, "more": {"engine"}}
    assert _cycle(graph) == ["engine", "values", "engine"]


def test_no_module_outside_predicates_reads_a_private_attribute_of_a_predicate():
    private = {name for name in dir(matrix.Predicate) if name.startswith("_") and not name.startswith("__")}
    private |= set(matrix.Predicate.__slots__) - {"__weakref__"}
    assert private == {"_node", "_source", "_paths"}
    folders = [PACKAGE, PACKAGE.parent / "tests", PACKAGE.parent / "benchmarks", PACKAGE.parent / "examples"]
    readers = sorted(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} .{node.attr}"
                     for folder in folders for path in folder.rglob("*.py") if path != PACKAGE / "predicates.py"
                     for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Attribute) and node.attr in private)
    assert readers == []


def test_each_public_class_is_defined_in_one_module():
    homes = {}
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes.setdefault(node.name, []).append(path.stem)
    assert {name: modules for name, modules in homes.items() if len(modules) > 1} == {}
    # A check finding is about a matrix; an observation, about a config.
    assert (homes["Finding"], homes["Observation"]) == (["check"], ["resolver"])


def test_text_becomes_a_version_in_one_place():
    """Every ``Version(x)`` of the package whose argument is not written in the source (a
    constant, an f-string) is `matrix._versions.parsed`'s: one helper turns text into a
    version."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Version" \
                    and not all(isinstance(arg, (ast.Constant, ast.JoinedStr)) for arg in node.args):
                found.append((path.stem, ast.unparse(node)))
    assert found == [("_versions", "Version(text)")]


def test_a_matrix_value_carries_no_plan_and_lives_no_longer_than_its_users_keep_it():
    """The compiled plans are the engine's (`matrix._derived`, in the matrix's one engine slot,
    which schema.py never reads): no field of the value holds a plan; and though every plan
    refers back to its matrix, a matrix nobody holds is freed with its plans (issue 23)."""
    import gc
    import weakref

    import attrs

    from matrix import _derived
    from matrix._compile import Plan, plan

    m = matrix.loads('[matrix]\nname = "m"\nversion = "1.0"\n[config]\nx = { type = "int", default = 0 }\n'
                     '[features.f]\nname = "F"\nwhen = "x > 1"\nsupport = { a = "no", b = "yes" }\n',
                     runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    assert (m.resolve({"x": 2}).runner, m.resolve({"x": 0}, version="1.0").runner) == ("b", "a")
    derived = _derived.of(m)
    assert type(derived) is _derived.Derived and derived.plans == {None: plan(m, m.version), "1.0": plan(m, m.version),
                                                                    m.version: plan(m, m.version)}
    assert [f.name for f in attrs.fields(matrix.Matrix) if f.name.startswith("_")] == [
        "_runner_index", "_feature_index", "_alias_index", "_newest_release", "_engine", "_branch"]
    assert [f.name for f in attrs.fields(matrix.Matrix) if f.name != "_engine"
            and (isinstance(getattr(m, f.name), Plan) or isinstance(getattr(m, f.name), dict)
                 and any(isinstance(v, Plan) for v in getattr(m, f.name).values()))] == []
    reads = sorted({node.attr for node in ast.walk(ast.parse((PACKAGE / "schema.py").read_text()))
                    if isinstance(node, ast.Attribute) and node.attr in ("_engine", "plans", "_caches")})
    assert reads == []  # the slot is set by name in __setstate__ only ("_engine", a string)
    alive = weakref.ref(m)
    del m, derived
    gc.collect()
    assert alive() is None


def test_each_concept_has_one_home():
    assert matrix.resolver.as_version is _versions.as_version
    assert matrix.Matrix.resolve is matrix.resolver.resolve
    doc = matrix.render.document(matrix.default())
    assert type(doc.config[0]).__name__ == "ConfigRow" and doc.config[0].path == "cache_config.mamba_cache_mode"
    assert type(doc.deprecations[0]).__name__ == "DeprecationRow" and doc.deprecations[0].remove_in == "0.32.0"


def test_every_type_a_user_can_reach_from_the_public_api_is_exported():  # noqa: C901 — one walk over every annotation the public API reaches
    # Walk the annotations of every exported class (attrs fields, properties, methods) and of the
    # public functions; every class of the package they name must be importable from `matrix`.
    import inspect
    import typing

    import attrs

    import matrix
    import matrix._remedy  # Resolution.remedy's answer: imported when first asked for
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
        try:  # the names of the thing's own module first
            return list(typing.get_type_hints(thing).values())
        except NameError:
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



def test_every_closed_set_a_user_can_reach_is_an_exported_literal_type():
    # A field that takes one of a few strings (an `in_` validator) is annotated with a
    # `typing.Literal` type that `matrix` exports, and its values are the validator's.
    import typing

    import attrs

    import matrix
    import matrix.check

    exported = {name: getattr(matrix, name) for name in matrix.__all__}
    names = {}  # what some modules import only for type checking
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("matrix"):
            names.update(vars(module))
    closed = {}
    for name, cls in exported.items():
        if not (isinstance(cls, type) and attrs.has(cls)):
            continue
        try:  # the names of the class's own module first
            hints = typing.get_type_hints(cls)
        except NameError:
            hints = typing.get_type_hints(cls, localns=names)
        for field in attrs.fields(cls):
            options = getattr(field.validator, "options", None)
            if options is not None:
                hint = hints[field.name]
                aliases = [n for n, value in exported.items()
                           if typing.get_origin(hint) is typing.Literal and value == hint]
                closed[f"{name}.{field.name}"] = (aliases, typing.get_args(hint) == tuple(options))
    assert closed == {
        "Statement.status": (["Status"], True),
        "Field.type": (["FieldType"], True),
        "Feature.applies": (["Applies"], True),
        "ResolutionWarning.kind": (["WarningKind"], True),
        "Change.action": (["ChangeAction"], True),
        "Adjustment.level": (["AdjustmentLevel"], True),
        "Adjustment.says": (["AdjustmentSays"], True),
    }
    # Closed sets without a validator (the engine makes every value).
    assert ([typing.get_type_hints(matrix.Finding)["severity"], typing.get_type_hints(matrix.Observation)["kind"],
             typing.get_type_hints(matrix.Observation)["status"]]
            == [matrix.Severity, matrix.ObservationKind, typing.Optional[matrix.Status]])
    assert [typing.get_args(matrix.Status), typing.get_args(matrix.FieldType), typing.get_args(matrix.Applies),
            typing.get_args(matrix.WarningKind), typing.get_args(matrix.ObservationKind),
            typing.get_args(matrix.Severity)] == [
        matrix.schema.STATUSES, matrix.schema.FIELD_TYPES, matrix.schema.APPLIES,
        matrix.resolver.WARNING_KINDS, matrix.resolver.OBSERVATION_KINDS, matrix.check.SEVERITIES]


def test_the_diagnostic_records_are_the_ones_errors_documents_with_their_fields():
    # The "Diagnostic records" section of matrix.errors states each record's fields and why
    # they differ; a field added or renamed without that section saying so fails here.
    import re

    import attrs

    import matrix.binding
    import matrix.check
    import matrix.errors
    import matrix.resolver

    section = matrix.errors.__doc__.split("Diagnostic records\n")[1]
    documented = {name: [f.strip() for f in " ".join(fields.split()).split(",")]
                  for name, fields in re.findall(r"^- `([\w.]+)` \(([^)]*)\)", section, re.M)}
    records = {"Problem": matrix.errors.Problem, "matrix.check.Finding": matrix.check.Finding,
               "matrix.resolver.Observation": matrix.resolver.Observation,
               "matrix.binding.Drift": matrix.binding.Drift}
    assert documented == {name: [f.name for f in attrs.fields(cls)] for name, cls in records.items()}
    # One meaning of place: the same fields, of the same types, where a record has a place.
    shared = ("message", "place", "file", "line", "column")
    problem, finding = attrs.fields_dict(matrix.errors.Problem), attrs.fields_dict(matrix.check.Finding)
    assert [problem[name].type for name in shared] == [finding[name].type for name in shared]

def test_every_message_is_said_somewhere():
    """Each wording in `matrix._messages` is used by the package: a message nothing says is
    dead code that drifts from the behaviour it once described."""
    messages = PACKAGE / "_messages.py"
    defined = [n.name for n in ast.parse(messages.read_text()).body if isinstance(n, ast.FunctionDef)]
    used = set()
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "_messages":
                used.add(node.attr)
            elif isinstance(node, ast.ImportFrom) and node.module == "_messages":
                used.update(alias.name for alias in node.names)
            elif path == messages and isinstance(node, ast.Name):
                used.add(node.id)  # one message built from another
    assert [name for name in defined if name not in used] == []


def test_ruff_bounds_complexity_and_every_function_above_the_bound_says_why():
    # Issue 23: ruff runs mccabe's C901 with a limit (pyproject.toml says why that one); a
    # function above it names the rule and its reason in a noqa comment on its def line (ruff's
    # RUF100 flags one that is no longer needed, so a reason cannot outlive its cause).
    import io
    import re
    import tokenize

    import tomli

    root = PACKAGE.parent
    lint = tomli.loads((root / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert ("C901" in lint["select"], lint.get("mccabe", {}).get("max-complexity")) == (True, 15)
    exemptions, bare = [], []
    for folder in ("matrix", "tests", "benchmarks", "examples", "docs/hooks"):
        for path in sorted((root / folder).rglob("*.py")):
            if "data" in path.relative_to(root).parts:
                continue  # test data, which ruff does not read
            text = path.read_text()
            lines = text.splitlines()
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type == tokenize.COMMENT and re.match(r"# noqa:.*C901", token.string):
                    number = token.start[0]
                    where = f"{path.relative_to(root)}:{number}"
                    if re.match(r"\s*def \w+\(", lines[number - 1]) and re.fullmatch(r"# noqa: C901 — \w.{20,}", token.string):
                        exemptions.append(where)
                    else:
                        bare.append(where)
    # (How many are exempt changes as functions do; ruff's C901 itself fails on one without.)
    assert (bool(exemptions), bare) == (True, [])


def test_the_package_cites_only_files_and_names_that_exist():
    # Issue 23: predicates.py once cited a DESIGN.md the repository does not have, and
    # _messages.py a STYLE.md; a comment that points nowhere goes stale unnoticed.
    import importlib
    import re

    root = PACKAGE.parent
    missing = []
    for path in sorted(PACKAGE.glob("*.py")):
        for name in re.findall(r"[\w/.-]+\.md\b", path.read_text()):
            if not (root / name).exists():
                missing.append(f"{path.name}: {name}")
    # In a docstring `matrix.x` is a cross-reference (``matrix.x`` is literal text, such as a
    # logger's name); in Markdown both are code, so only the package is read here.
    for path in sorted(PACKAGE.glob("*.py")):
        for dotted in sorted(set(re.findall(r"(?<!`)`(matrix(?:\.\w+)+)`(?!`)", path.read_text()))):
            parts = dotted.split(".")
            for end in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
                try:
                    found = importlib.import_module(".".join(parts[:end]))
                    break
                except ImportError:
                    continue
            for part in parts[end:]:
                found = getattr(found, part, None)
            if found is None:
                missing.append(f"{path.relative_to(root)}: {dotted}")
    assert missing == []


def test_no_function_is_a_copy_of_another():
    """Two functions with the same body (docstrings aside) are one helper written twice: the
    copies drift apart."""
    bodies: dict = {}
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
                if len(body) > 1:
                    bodies.setdefault(ast.dump(ast.Module(body=body, type_ignores=[])), []).append(
                        f"{path.stem}.{node.name}")
    assert [names for names in bodies.values() if len(names) > 1] == []


def _worded(source: str) -> list:
    """The wording of the module *source* that is not `matrix._messages`'s: each error it raises
    with words of its own, each f-string part that holds two words in a row (a GitHub workflow
    command's syntax, ``::notice title=``, aside), and each plain string that holds two words in
    a row (or a word and one in brackets: ``refused (removed)``), but for docstrings, argparse's
    help (a call's keyword argument), a string compared with (read, not said: ``region != "no
    config"``) and the command's own name (``matrix diff``, a title)."""
    import re

    tree = ast.parse(source)
    worded, skipped = [], set()
    two_words = re.compile(r"[A-Za-z]+ \(?[A-Za-z]+")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            skipped.add(id(node.body[0].value))
        elif isinstance(node, ast.Call):
            skipped.update(id(k.value) for k in node.keywords)
        elif isinstance(node, ast.Compare):
            skipped.update(id(side) for side in (node.left, *node.comparators))
        elif isinstance(node, ast.JoinedStr):
            skipped.update(id(part) for part in node.values)
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            for arg in node.exc.args:
                said = arg.func if isinstance(arg, ast.Call) else arg
                if not (isinstance(said, ast.Attribute) and isinstance(said.value, ast.Name)
                        and said.value.id == "_messages"):
                    worded.append(f"{node.lineno}: {ast.unparse(arg)}")
        elif isinstance(node, ast.JoinedStr):
            worded += [f"{node.lineno}: {part.value!r}" for part in node.values if isinstance(part, ast.Constant)
                       and not part.value.startswith("::") and re.search(r"[A-Za-z]+ [A-Za-z]+", part.value)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped \
                and not node.value.startswith("matrix diff") and two_words.search(node.value):
            worded.append(f"{node.lineno}: {node.value!r}")
    return sorted(set(worded))  # an error's own words are a plain string too: said once


def test_the_diff_command_takes_its_words_from_messages():
    """`matrix._diff_cli` says nothing in its own words (`matrix._messages` is the one place for
    wording): what is left are the report's labels and layout (`_worded`)."""
    assert _worded((PACKAGE / "_diff_cli.py").read_text()) == []


def test_the_words_check_finds_a_plain_string_an_f_string_and_an_error_in_words_of_their_own():
    # The fleet's cells were plain strings of _diff_cli.py ("refused (removed)", unseen by the
    # f-string rule); argparse's help, a string compared with and a docstring are not said.
    source = ('def answer(removed, region):\n    """A cell, in words."""\n'
              '    parser.add_argument("--x", help="the help of x")\n'
              '    if region != "no config":\n        raise UsageError("no such thing")\n'
              '    return ("refused (removed)" if removed else "refused"), f"{region} changes here"\n')
    assert _worded(source) == ["5: 'no such thing'", "6: ' changes here'", "6: 'refused (removed)'"]
