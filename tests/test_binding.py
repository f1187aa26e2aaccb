import inspect
import os
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import UsageError
from matrix import binding
from matrix.binding import compare, derive
from matrix.check import check

from .hosts import shapes

HOSTS = os.path.join(os.path.dirname(__file__), "hosts")
RUNNERS = {"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}}

JOB_CONFIG = """\
# Derived from tests.hosts.shapes:Job by `matrix schema --from`: edit freely; `matrix check` compares it with the class
[config]
"flag" = { type = "bool", default = false }
"count" = { type = "int", default = 0 }
"scale" = { type = "float", default = 1.5 }
"name" = { type = "str", default = "job" }
"version" = { type = "version", default = "1.2" }
"policy" = { type = "str", choices = ["fifo", "lifo"], default = "fifo" }
"priority" = { type = "int", choices = [1, 2, 3], default = 1 }
"mode" = { type = "str", choices = ["FAST", "SAFE"], default = "FAST" }
"color" = { type = "str", choices = ["red", "blue"], default = "red" }
"maybe" = { type = "int", nullable = true }
"either" = { type = "str", nullable = true, default = "x" }
"branch" = { type = "section" }
"branch.leaf" = { type = "section" }
"branch.leaf.depth" = { type = "int", default = 3, doc = "How deep the leaf is." }
"branch.tags" = { type = "list[str]", default = ["a"] }
"limits" = { type = "section", nullable = true }
"limits.gpus" = { type = "int", default = 1, doc = "GPUs per node" }
"limits.ids" = { type = "list[int]", default = [1, 2] }
"tuning" = { type = "section" }
"tuning.ratio" = { type = "float", min = 0.0, max = 1.0, default = 0.5, doc = "A fraction" }
"tuning.workers" = { type = "int", min = 1, max = 64, default = 4 }
# "tuning.margin": gt=0.0 on a float cannot be stated as an inclusive min/max
"tuning.margin" = { type = "float", default = 1.0 }
"tuning.label" = { type = "str", nullable = true }
"extras" = { type = "section" }
"extras.level" = { type = "int", min = 1, default = 2 }
# "settings" is not mapped: Dict[str, Any] has no [config] type (bool, int, float, str, version, list[str], list[int], or a nested config class)
"backend" = { type = "str", nullable = true, classes = true }
# "weights" is not mapped: List[float]: a [config] list holds str or int items
"required" = { type = "int", default = 0, doc = "From metadata" }
"""

HEADER = '[matrix]\nname = "jobs"\nversion = "1.0"\n'
GATES = """
[features.big]
name = "big jobs"
when = "count > 10 and tuning.ratio > 0.5 and policy == 'fifo'"
support = { a = "yes", b = "no" }

[features.named]
name = "named jobs"
when = "name == 'special'"
support = { a = "no", b = "yes" }
"""


def _matrix(config: str, header: str = HEADER, gates: str = GATES) -> matrix.Matrix:
    return matrix.loads(header + config + gates, runners=RUNNERS, path="features.toml")


def test_derive_maps_every_kind_of_member():
    assert derive(shapes.Job) == JOB_CONFIG
    assert derive("tests.hosts.shapes:Job") == JOB_CONFIG


def test_the_derived_schema_loads_and_equals_the_class_member_by_member():
    m = _matrix(JOB_CONFIG)
    expected = {
        "flag": ("bool", False, None, None, None, False),
        "count": ("int", False, None, None, None, 0),
        "scale": ("float", False, None, None, None, 1.5),
        "name": ("str", False, None, None, None, "job"),
        "version": ("version", False, None, None, None, None),
        "policy": ("str", False, ("fifo", "lifo"), None, None, "fifo"),
        "priority": ("int", False, (1, 2, 3), None, None, 1),
        "mode": ("str", False, ("FAST", "SAFE"), None, None, "FAST"),
        "color": ("str", False, ("red", "blue"), None, None, "red"),
        "maybe": ("int", True, None, None, None, None),
        "either": ("str", True, None, None, None, "x"),
        "branch": ("section", False, None, None, None, None),
        "branch.leaf.depth": ("int", False, None, None, None, 3),
        "branch.tags": ("list[str]", False, None, None, None, ("a",)),
        "limits": ("section", True, None, None, None, None),
        "limits.ids": ("list[int]", False, None, None, None, (1, 2)),
        "tuning.ratio": ("float", False, None, 0.0, 1.0, 0.5),
        "tuning.workers": ("int", False, None, 1, 64, 4),
        "tuning.label": ("str", True, None, None, None, None),
        "extras.level": ("int", False, None, 1, None, 2),
    }
    for path, (kind, nullable, choices, low, high, default) in expected.items():
        field = m.schema[path]
        got = (field.type, field.nullable, field.choices, field.min, field.max)
        assert got == (kind, nullable, choices, low, high), path
        if path == "version":
            assert str(field.default) == "1.2"
        elif kind != "section":
            assert field.default == default, path
    assert m.schema["branch.leaf.depth"].doc == "How deep the leaf is."
    assert m.schema["tuning.ratio"].doc == "A fraction"
    assert "settings" not in m.schema and m.schema["backend"].classes  # str | type: a class reads as its name
    # ... and the class itself passes the drift check: nothing to report.
    assert compare(m.schema, shapes.Job) == ()


def test_derive_with_paths_keeps_those_and_the_sections_above_them():
    assert derive(shapes.Job, ["tuning.workers", "is_big", "limits"]) == textwrap.dedent("""\
        # Derived from tests.hosts.shapes:Job by `matrix schema --from`: edit freely; `matrix check` compares it with the class
        [config]
        "limits" = { type = "section", nullable = true }
        "limits.gpus" = { type = "int", default = 1, doc = "GPUs per node" }
        "limits.ids" = { type = "list[int]", default = [1, 2] }
        "tuning" = { type = "section" }
        "tuning.workers" = { type = "int", min = 1, max = 64, default = 4 }
        "is_big" = { type = "bool", doc = "Whether the job is big." }
        """)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("tests.hosts.shapes:Job", ["branch.leaf.deep"]),
         "Cannot derive 'branch.leaf.deep': Leaf has no member 'deep', did you mean 'depth'"),
        (("tests.hosts.shapes:Job", ["settings"]),
         "Cannot derive 'settings': Dict[str, Any] has no [config] type (bool, int, float, str, version, "
         "list[str], list[int], or a nested config class)"),
        (("tests.hosts.shapes:Jobs", []), "tests.hosts.shapes has no class 'Jobs', did you mean 'Job'"),
        (("tests.hosts.nothere:Job", []),
         "Cannot import 'tests.hosts.nothere': ModuleNotFoundError: No module named 'tests.hosts.nothere'"),
        (("tests.hosts.shapes:Mode", []),
         "tests.hosts.shapes:Mode is a class that is not a dataclass, an attrs class or a pydantic model: "
         "matrix reads the fields of those"),
        (("tests.hosts.shapes", []),
         "Expected 'MODULE:CLASS' (such as 'vllm.config:VllmConfig'), got 'tests.hosts.shapes'"),
    ],
)
def test_derive_refuses_with_one_clear_line(args, message):
    with pytest.raises(UsageError) as info:
        derive(*args)
    assert str(info.value) == message


def test_a_recursive_class_stops_at_the_loop():
    assert derive(shapes.Node).splitlines()[2:] == [
        '"name" = { type = "str", default = "n" }',
        '# "child" is not mapped: refers back to Node (a recursive section)',
    ]


# --- drift ---------------------------------------------------------------------------------------

BOUND = HEADER + 'config_class = "tests.hosts.shapes:Job"\n'


def _codes(m, against=None):
    return [(f.code, f.line, f.message) for f in check(m, against=against).findings if f.code.startswith("class-")]


def test_a_matrix_in_step_with_its_class_passes_check():
    m = _matrix(JOB_CONFIG + '"host.cuda" = { type = "bool", default = true, fact = true }\n', BOUND)
    report = check(m, strict=True)
    assert [f.code for f in report.findings] == ["no-runner"]  # the only finding: no drift at all
    assert report.findings[0].features == ("big", "named")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('"count" = { type = "int", default = 0 }', '"counts" = { type = "int", default = 0 }',
         [("class-missing", 8, "[config] declares 'counts', but Job has no member 'counts', did you mean 'count'")]),
        ('"scale" = { type = "float", default = 1.5 }', '"scale" = { type = "int", default = 1 }',
         [("class-type", 9, "[config] declares 'scale' as int, but Job.scale is float")]),
        ('"maybe" = { type = "int", nullable = true }', '"maybe" = { type = "int", default = 0 }',
         [("class-default", 16, "[config] 'maybe' defaults to 0, but Job.maybe defaults to None"),
          ("class-nullable", 16, "Job.maybe is Optional[int], which may be None, but [config] 'maybe' is not nullable")]),
        ('"flag" = { type = "bool", default = false }', '"flag" = { type = "bool", nullable = true }',
         [("class-default", 7, "[config] 'flag' defaults to None, but Job.flag defaults to False"),
          ("class-nullable", 7, "[config] declares 'flag' nullable, but Job.flag (bool) is never None")]),
        ('choices = ["fifo", "lifo"]', 'choices = ["fifo", "lifo", "random"]',
         [("class-choices", 12, "[config] 'policy' has choices Job.policy cannot hold: 'random'")]),
        ('choices = ["fifo", "lifo"]', 'choices = ["fifo"]',
         [("class-wider", 12, "Job.policy also allows 'lifo', which [config] 'policy' does not list")]),
        ('"name" = { type = "str", default = "job" }', '"name" = { type = "str", choices = ["job", "special"], default = "job" }',
         [("class-wider", 10, "Job.name takes any str, but [config] 'name' allows only its choices: another value is a ConfigError at resolve time")]),
        ('min = 1, max = 64', 'min = 2, max = 64',
         [("class-wider", 27, "[config] 'tuning.workers' has min = 2, but Tuning.workers allows 1")]),
        ('"branch.tags" = { type = "list[str]", default = ["a"] }', '"branch.tags" = { type = "list[int]", default = [] }',
         [("class-type", 21, "[config] declares 'branch.tags' as list[int], but Branch.tags is List[str]")]),
        ('"either" = { type = "str", nullable = true, default = "x" }', '"either" = { type = "str", nullable = true, default = "y" }',
         [("class-default", 17, "[config] 'either' defaults to 'y', but Job.either defaults to 'x'")]),
    ],
)
def test_each_kind_of_drift_is_found_at_its_entry(old, new, expected):
    assert old in JOB_CONFIG
    config = JOB_CONFIG.replace(old, new)
    gates = GATES.replace("count > 10", "counts > 10") if "counts" in new else GATES
    m = _matrix(config, BOUND, gates)
    found = _codes(m)
    assert found == expected
    assert check(m).failed is any(code in ("class-missing", "class-type", "class-nullable", "class-choices")
                                  for code, _, _ in expected)


def test_a_union_the_schema_narrows_is_a_warning_and_facts_are_exempt():
    config = JOB_CONFIG.replace('"backend" = { type = "str", nullable = true, classes = true }',
                                '"backend" = { type = "str", nullable = true }')
    config += '"host.cuda" = "bool"\n"host.cuda_version" = "version"\n'
    m = _matrix(config.replace('"host.cuda" = "bool"', '"host" = { type = "section", fact = true }\n"host.cuda" = "bool"'), BOUND)
    assert _codes(m) == [
        ("class-wider", 34, "Job.backend is Union[str, type, NoneType], which may hold classes, but [config] "
                            "'backend' refuses them: declare classes = true to read a class as its qualified name"),
    ]


def test_against_does_the_same_for_a_matrix_without_config_class():
    m = _matrix(JOB_CONFIG.replace('"count" = ', '"counts" = '), gates=GATES.replace("count > 10", "counts > 10"))
    assert _codes(m) == []
    assert _codes(m, against="tests.hosts.shapes:Job") == [
        ("class-missing", 7, "[config] declares 'counts', but Job has no member 'counts', did you mean 'count'")]
    assert _codes(m, against=shapes.Job) == _codes(m, against="tests.hosts.shapes:Job")


def test_a_class_that_cannot_be_imported_is_one_finding_and_the_check_goes_on():
    m = _matrix(JOB_CONFIG, HEADER + 'config_class = "tests.hosts.gone:Job"\n')
    report = check(m)
    assert [(f.code, f.severity, f.line, f.message) for f in report.findings] == [
        ("class-unavailable", "warning", 4,
         "The config class was not compared with [config]: Cannot import 'tests.hosts.gone': "
         "ModuleNotFoundError: No module named 'tests.hosts.gone'"),
        ("no-runner", "note", 38, "No runner can serve a config that uses big jobs and named jobs: "
                                  "A does not support named jobs; B does not support big jobs"),
    ]
    assert not report.failed


def test_a_malformed_config_class_is_a_load_error():
    with pytest.raises(matrix.LoadError) as info:
        _matrix(JOB_CONFIG, HEADER + 'config_class = "tests.hosts.shapes.Job"\n')
    assert info.value.problems[0].message == (
        "Expected 'MODULE:CLASS' (such as 'vllm.config:VllmConfig'), got 'tests.hosts.shapes.Job'")
    assert (info.value.problems[0].line, info.value.problems[0].place) == (4, "$.matrix.config_class")


# --- properties -------------------------------------------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8"), max_size=20)


@given(_TEXT, st.lists(_TEXT, min_size=1, max_size=4, unique=True), st.integers(), st.floats(allow_nan=False))
def test_any_doc_choices_and_default_survive_the_round_trip_through_toml(doc, choices, number, real):
    import dataclasses
    from typing import Literal

    Choice = Literal[tuple(choices)]  # type: ignore[valid-type]
    cls = dataclasses.make_dataclass("Random", [
        ("pick", Choice, dataclasses.field(default=choices[0], metadata={"doc": doc})),
        ("number", int, dataclasses.field(default=number)),
        ("real", float, dataclasses.field(default=real)),
    ])
    text = derive(cls)
    m = matrix.loads(HEADER + text + '[features.f]\nname = "f"\nwhen = "number > 0"\nsupport.a = "yes"\nsupport.b = "yes"\n',
                     runners=RUNNERS)
    assert m.schema["pick"].choices == tuple(choices)
    assert m.schema["pick"].default == choices[0]
    first_paragraph = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    assert m.schema["pick"].doc == (first_paragraph or None)
    assert m.schema["number"].default == number
    assert m.schema["real"].default == real
    assert compare(m.schema, cls) == ()


# --- random class shapes ------------------------------------------------------------------------

import dataclasses as _dc  # noqa: E402
import enum as _enum  # noqa: E402
from typing import List as _List, Literal as _Literal, Optional as _Optional  # noqa: E402

import attrs as _attrs  # noqa: E402
import pydantic as _pydantic  # noqa: E402

# Names a class can have: no keywords, nothing pydantic reserves (model_*, its methods).
_NAMES = st.from_regex(r"f[a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: not __import__("keyword").iskeyword(n))


@st.composite
def _leaf(draw):
    """``(annotation, default, a value the annotation allows)``."""
    kind = draw(st.sampled_from(["bool", "int", "float", "str", "list[str]", "list[int]", "literal", "enum"]))
    if kind == "bool":
        annotation, values = bool, st.booleans()
    elif kind == "int":
        annotation, values = int, st.integers(-5, 5)
    elif kind == "float":
        annotation, values = float, st.floats(-5, 5)
    elif kind == "str":
        annotation, values = str, st.text(max_size=3)
    elif kind == "list[str]":
        annotation, values = _List[str], st.lists(st.text(max_size=2), max_size=2)
    elif kind == "list[int]":
        annotation, values = _List[int], st.lists(st.integers(0, 3), max_size=2)
    elif kind == "literal":
        choices = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3, unique=True))
        annotation, values = _Literal[tuple(choices)], st.sampled_from(choices)
    else:
        members = draw(st.lists(_NAMES.map(str.upper), min_size=1, max_size=3, unique=True))
        as_str = draw(st.booleans())
        Enum = _enum.Enum("E", {m: m.lower() for m in members}, type=str if as_str else None)
        annotation, values = Enum, st.sampled_from(list(Enum))
    if draw(st.booleans()):
        annotation, values = _Optional[annotation], st.none() | values
    return annotation, draw(values), values


@st.composite
def _class(draw, depth=0):
    """A random config class (dataclass, attrs or pydantic) and a strategy of its instances."""
    flavour = draw(st.sampled_from(["dataclass", "attrs", "pydantic"]))
    names = draw(st.lists(_NAMES, min_size=1, max_size=4, unique=True))
    fields, makers = [], {}
    for name in names:
        if depth < 2 and draw(st.integers(0, 3)) == 0:
            inner, instances = draw(_class(depth + 1))
            optional = draw(st.booleans())
            annotation = _Optional[inner] if optional else inner
            fields.append((name, annotation, inner))
            makers[name] = (st.none() | instances) if optional else instances
        else:
            annotation, default, values = draw(_leaf())
            fields.append((name, annotation, default))
            makers[name] = values
    cls = _make(flavour, f"C{depth}{draw(st.integers(0, 999))}", fields)
    return cls, st.builds(cls, **{n: makers[n] for n in names})


def _make(flavour, name, fields):
    if flavour == "dataclass":
        spec = []
        for n, annotation, default in fields:
            if isinstance(default, type):
                spec.append((n, annotation, _dc.field(default_factory=default)))
            elif isinstance(default, list):
                spec.append((n, annotation, _dc.field(default_factory=lambda d=default: list(d))))
            else:
                spec.append((n, annotation, _dc.field(default=default)))
        return _dc.make_dataclass(name, spec)
    if flavour == "attrs":
        namespace = {}
        for n, annotation, default in fields:
            if isinstance(default, type):
                namespace[n] = _attrs.field(type=annotation, factory=default)
            elif isinstance(default, list):
                namespace[n] = _attrs.field(type=annotation, factory=lambda d=default: list(d))
            else:
                namespace[n] = _attrs.field(type=annotation, default=default)
        return _attrs.make_class(name, namespace)
    spec = {}
    for n, annotation, default in fields:
        if isinstance(default, type):
            spec[n] = (annotation, _pydantic.Field(default_factory=default))
        else:
            spec[n] = (annotation, default)
    # A pydantic model may hold an attrs class: pydantic has no schema for it, matrix reads it.
    return _pydantic.create_model(name, __config__=_pydantic.ConfigDict(arbitrary_types_allowed=True), **spec)


def _as_dict(obj):
    """An instance as the nested dict a JSON config would hold, with enums spelt as read."""
    import enum

    if obj is None or isinstance(obj, (bool, int, float, str)):
        if isinstance(obj, enum.Enum):
            return obj.value if isinstance(obj, str) else obj.name
        return obj
    if isinstance(obj, enum.Enum):
        return obj.name
    if isinstance(obj, (list, tuple)):
        return [_as_dict(v) for v in obj]
    names = [f.name for f in _dc.fields(obj)] if _dc.is_dataclass(obj) else (
        [a.name for a in _attrs.fields(type(obj))] if _attrs.has(type(obj)) else list(type(obj).model_fields))
    return {n: _as_dict(getattr(obj, n)) for n in names}


def _test_of(field):
    if field.nullable:
        return f"{field.path} is None"
    if field.type in ("bool", "list[str]", "list[int]"):
        return field.path
    if field.choices:
        return f"{field.path} == {field.choices[0]!r}"
    return f"{field.path} == ''" if field.type == "str" else f"{field.path} > 0"


@settings(max_examples=150)  # each example builds classes: the CI profile's 500 would take minutes
@given(_class(), st.data())
def test_random_classes_derive_a_schema_in_step_that_reads_instances_as_their_dicts(shape, data):
    cls, instances = shape
    text = derive(cls)
    m = matrix.loads(HEADER + text, runners=RUNNERS)
    assert compare(m.schema, cls) == ()
    leaves = [f for f in m.schema.declared if f.type != "section"]
    # One gate per leaf, so that every value is read and checked.
    gates = "".join(
        f'\n[features.g{i}]\nname = "g{i}"\nwhen = "{_test_of(f)}"\nsupport = {{ a = "yes", b = "no" }}\n'
        for i, f in enumerate(leaves))
    # Besides, a declared section holding only facts, which the class lacks (a user trial: refused
    # with the fact given): each fact reads facts= where given, else its default, on the instance
    # and its dict alike (the section is a fact: docs/reference/file-format.md).
    probed = (f'"probe" = {{ type = "section", {data.draw(st.sampled_from(["", "nullable = true, "]))}'
              'doc = "probed by the host" }\n'
              '"probe.on" = { type = "bool", default = false, fact = true }\n'
              '"probe.n" = { type = "int", default = 1, fact = true }\n')
    gates += ('\n[features.probe_on]\nname = "probe on"\nwhen = "probe.on"\nsupport = { a = "yes", b = "no" }\n'
              '\n[features.probe_n]\nname = "probe n"\nwhen = "probe.n > 1"\nsupport = { a = "yes", b = "no" }\n')
    m = matrix.loads(HEADER + text + probed + gates, runners=RUNNERS)
    facts = data.draw(st.fixed_dictionaries({}, optional={"probe.on": st.booleans(), "probe.n": st.integers(0, 3)}))
    instance = data.draw(instances)
    resolution = m.resolve(instance, facts=facts)
    assert resolution.to_dict() == m.resolve(_as_dict(instance), facts=facts).to_dict()
    assert [f.id for f in resolution.active if f.id.startswith("probe")] == [
        g for g, on in (("probe_on", facts.get("probe.on", False)), ("probe_n", facts.get("probe.n", 1) > 1)) if on]


@pytest.mark.skipif(__import__("sys").version_info < (3, 10), reason="X | None needs Python 3.10 to evaluate")
def test_pep_604_unions_are_nullable_too():
    namespace = {}
    exec(textwrap.dedent("""
        import dataclasses

        @dataclasses.dataclass
        class Inner:
            size: int | None = None

        @dataclasses.dataclass
        class Outer:
            inner: Inner | None = None
            label: "str | None" = "x"
    """), namespace)
    assert derive(namespace["Outer"]).splitlines()[2:] == [
        '"inner" = { type = "section", nullable = true }',
        '"inner.size" = { type = "int", nullable = true }',
        '"label" = { type = "str", nullable = true, default = "x" }',
    ]


def test_odd_annotations_are_said_not_mapped_never_a_traceback():
    import dataclasses
    from typing import Callable

    @dataclasses.dataclass
    class Odd:
        listed: [1, 2] = None  # an annotation need not be hashable
        call: Callable[[int], int] = None
        broken: int = dataclasses.field(default_factory=lambda: 1 / 0)

    assert derive(Odd).splitlines()[2:] == [
        '# "listed" is not mapped: [1, 2] has no [config] type (bool, int, float, str, version, list[str], '
        'list[int], or a nested config class)',
        '# "call" is not mapped: Callable[[int], int] has no [config] type (bool, int, float, str, version, '
        'list[str], list[int], or a nested config class)',
        '"broken" = { type = "int" }',
    ]


def test_pep_604_unions_under_postponed_annotations_read_as_the_classs_module_means_them(tmp_path, monkeypatch):
    # On Python 3.9 `int | None` cannot be evaluated: it was commented out by `schema --from`
    # ("has no [config] type") and a class-type error in check, on 3.9 only.
    (tmp_path / "future_host.py").write_text(textwrap.dedent("""
        from __future__ import annotations

        import dataclasses
        from typing import List, Optional

        @dataclasses.dataclass
        class Inner:
            threads: int | None = None
            tags: List[str] | None = None

        @dataclasses.dataclass
        class Outer:
            inner: Inner = dataclasses.field(default_factory=Inner)
            spare: Optional[Inner] | None = None
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    derived = matrix.binding.derive("future_host:Outer")
    assert derived.splitlines()[1:] == [
        "[config]",
        '"inner" = { type = "section" }',
        '"inner.threads" = { type = "int", nullable = true }',
        '"inner.tags" = { type = "list[str]", nullable = true }',
        '"spare" = { type = "section", nullable = true }',
        '"spare.threads" = { type = "int", nullable = true }',
        '"spare.tags" = { type = "list[str]", nullable = true }',
    ]
    m = _matrix(derived.split("\n", 1)[1], header=HEADER + 'config_class = "future_host:Outer"\n',
                gates='[features.t]\nname = "t"\nwhen = "inner.threads == 2"\nsupport = { a = "yes", b = "no" }\n')
    assert _codes(m) == []


# --- error kinds (issue 30, F5): the built-in a host raises, kept by raise_as_host --------------

_KINDS_MATRIX = '''[matrix]
name = "t"
version = "1.0"
[config]
tp = { type = "int", min = 1, max = 8, default = 1 }
dcp = { type = "int", min = 1, max = 8, default = 1 }
[requirements]
split = { name = "DCP split", reason = "tp_size must be divisible by dcp_size", kind = "ValueError" }
fast = { name = "Fast", reason = "needs tp 1" }
[features.g]
name = "g"
when = "tp > 7"
support = { a = "no", b = "no" }
'''
_KINDS_RUNNERS = {"a": {"name": "A", "priority": 2, "requires": {"split": "tp % dcp == 0"}},
                  "b": {"name": "B", "priority": 1, "requires": {"fast": {"condition": "tp == 1",
                                                                          "kind": "AssertionError"}}}}


@pytest.mark.parametrize(("config", "runner", "error", "kind", "reason"), [
    ({"tp": 4, "dcp": 3}, "a", matrix.UnsupportedFeatureError, "ValueError",
     "A is not valid for this config: tp_size must be divisible by dcp_size"),
    ({"tp": 2}, "b", matrix.UnsupportedFeatureError, "AssertionError", "B is not valid for this config: needs tp 1"),
    # Automatic choice: the first runner its message names with a failed requirement of a kind.
    ({"tp": 4, "dcp": 3}, None, matrix.NoRunnerError, "ValueError",
     "No runner can serve this config: A is not valid for this config: tp_size must be divisible by dcp_size; "
     "B is not valid for this config: needs tp 1"),
    ({"tp": 8}, "a", matrix.UnsupportedFeatureError, None, "A does not support: g"),  # a feature: no kind
])
def test_a_refusal_carries_the_kind_of_the_requirement_it_says_and_raise_as_host_raises_it(config, runner, error,
                                                                                            kind, reason):
    m = matrix.loads(_KINDS_MATRIX, runners=_KINDS_RUNNERS)
    with pytest.raises(error) as excinfo:
        m.resolve(config, runner=runner)
    assert (excinfo.value.kind, excinfo.value.reason) == (kind, reason)
    data = excinfo.value.to_dict()  # the CLI's JSON error: the class, and the built-in the host raises
    assert (data["kind"], data["raises"], data["reason"]) == (error.__name__, kind, reason)
    with pytest.raises(BaseException) as hosted:
        binding.raise_as_host(excinfo.value)
    if kind is None:
        assert hosted.value is excinfo.value
    else:
        assert type(hosted.value).__name__ == kind and hosted.value.args == (reason,)
        assert hosted.value.__cause__ is excinfo.value


def test_raise_as_host_takes_a_resolution_error_only():
    with pytest.raises(TypeError) as excinfo:
        binding.raise_as_host(ValueError("x"))  # type: ignore[arg-type]
    assert excinfo.exconly() == "TypeError: raise_as_host() takes a matrix.ResolutionError, not ValueError"


def test_the_error_kinds_are_built_in_exceptions_that_take_a_message():
    import builtins

    from matrix._error_kinds import ERROR_KINDS, builtin

    assert list(ERROR_KINDS) == sorted(ERROR_KINDS)
    for kind in ERROR_KINDS:
        assert builtin(kind) is getattr(builtins, kind)
        assert builtin(kind)("why").args == ("why",)


def test_a_missing_member_is_never_said_to_be_one_the_schema_maps_already():
    # tests.hosts.shapes.Tuning is a pydantic model: 'tuning.worker' beside 'tuning.workers' is no
    # typo of 'workers' (another entry maps it), so no "did you mean"; 'tuning.margn', whose near
    # miss 'margin' no entry maps once 'tuning.margin' is renamed, is one.
    config = JOB_CONFIG.replace('"tuning.workers" = { type = "int", min = 1, max = 64, default = 4 }\n',
                                '"tuning.workers" = { type = "int", min = 1, max = 64, default = 4 }\n'
                                '"tuning.worker" = { type = "int", default = 4 }\n')
    config = config.replace('"tuning.margin" = ', '"tuning.margn" = ')
    assert _codes(_matrix(config, BOUND)) == [
        ("class-missing", 28, "[config] declares 'tuning.worker', but Tuning has no member 'worker'"),
        ("class-missing", 30, "[config] declares 'tuning.margn', but Tuning has no member 'margn', did you mean 'margin'"),
    ]


def test_a_pydantic_field_is_read_and_checked_by_its_alias():
    """A user trial: a field `json` shadows `BaseModel.json`, so the model calls it `json_columns`
    with `alias="json"`; resolve read the bound method ("Expected bool, got method …") while
    `check --against` said the class has no member 'json'."""
    import pydantic

    class Query(pydantic.BaseModel):
        window: bool = False
        json_columns: bool = pydantic.Field(False, alias="json")

    class Config(pydantic.BaseModel):
        query: Query = Query()

    m = matrix.loads(
        '[matrix]\nname = "q"\nversion = "1.0"\n[config]\n"query" = { type = "section" }\n'
        '"query.window" = { type = "bool", default = false }\n"query.json" = { type = "bool", default = false }\n'
        '[features.json]\nname = "JSON columns"\nwhen = "query.json"\nsupport = { gpu = "no", cpu = "yes" }\n',
        runners={"gpu": {"name": "GPU", "priority": 2}, "cpu": {"name": "CPU", "priority": 1}})
    assert m.resolve(Config(query=Query(json=True))).runner == "cpu"
    assert m.resolve(Config(query=Query(json=False))).runner == "gpu"
    assert m.resolve(Config(query=Query(json=True))).effective["query.json"] is True
    assert _codes(m, against=Config) == []


def test_a_declared_section_of_facts_only_is_a_fact_an_object_need_not_have():
    """A user trial: ``net`` declared as a section, its one field a fact, and a pydantic job
    config without ``net``: resolve refused it ("JobConfig object has no attribute 'net'") even
    with the fact given. Facts win over what the config holds, a None section too."""

    class Dist(_pydantic.BaseModel):
        world_size: int = 1
        nproc_per_node: int = 1

    class JobConfig(_pydantic.BaseModel):
        dist: Dist = Dist()

    for nullable in ("", "nullable = true, "):
        m = matrix.loads(HEADER + textwrap.dedent(f'''\
            [config]
            "dist" = {{ type = "section" }}
            "dist.world_size" = {{ type = "int", default = 1 }}
            "dist.nproc_per_node" = {{ type = "int", default = 1 }}
            "net" = {{ type = "section", {nullable}doc = "The interconnect" }}
            "net.gpudirect_rdma" = {{ type = "bool", default = false, fact = true }}

            [features.no_rdma_multinode]
            name = "multi-node without GPU-direct RDMA"
            when = "dist.world_size > dist.nproc_per_node and not net.gpudirect_rdma"
            support = {{ a = {{ status = "partial", note = "TCP between nodes" }}, b = "yes" }}
            '''), runners=RUNNERS)
        assert m.schema.fields["net"].fact is True
        job = JobConfig(dist=Dist(world_size=16, nproc_per_node=8))
        said = [[f.id for f in m.resolve(config, facts=facts).active]
                for config in (job, {"dist": {"world_size": 16, "nproc_per_node": 8}})
                for facts in (None, {"net.gpudirect_rdma": True}, {"net.gpudirect_rdma": False})]
        assert said == [["no_rdma_multinode"], [], ["no_rdma_multinode"]] * 2, nullable
    assert [f.id for f in m.resolve({"dist": {"world_size": 16}, "net": None}, facts={"net.gpudirect_rdma": True}).active
            ] == []
    # Without the fact given, a None section holds None (which `not` reads as false).
    assert [f.id for f in m.resolve({"dist": {"world_size": 16}, "net": None}).active] == ["no_rdma_multinode"]
