import inspect
import os
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

import matrix
from matrix import UsageError
from matrix.binding import compare, derive, import_class
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
# "backend" is not mapped: Union[str, type, NoneType] is a union of several types; a [config] field has one
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
    assert "settings" not in m.schema and "backend" not in m.schema
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
    config = JOB_CONFIG + '"backend" = { type = "str", nullable = true }\n"host.cuda" = "bool"\n"host.cuda_version" = "version"\n'
    m = _matrix(config.replace('"host.cuda" = "bool"', '"host" = { type = "section", fact = true }\n"host.cuda" = "bool"'), BOUND)
    assert _codes(m) == [
        ("class-wider", 37, "Job.backend also allows type, which [config] 'backend' refuses"),
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
    assert (info.value.problems[0].line, info.value.problems[0].path) == (4, "$.matrix.config_class")


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
