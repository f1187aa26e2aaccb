"""Overlays (issue 31): an overlay file loaded with its upstream into one `Matrix`; typed
operations on stable ids with their reasons; the merge rules; `matrix check`'s overlay findings;
the examples; random overlays on random matrices against a hand merge of the documented rules."""

import copy
import functools
import io
import json
import pathlib
import re
import tempfile
import textwrap

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

import matrix
from matrix import LoadError, check
from matrix.cli import run
from matrix.strategies import configs

ROOT = pathlib.Path(__file__).parent.parent
ASCEND = ROOT / "examples" / "ascend-overlay" / "overlay.toml"
OPENVINO = ROOT / "examples" / "openvino-overlay" / "overlay.toml"
PP_EXTERNAL = {"parallel_config": {"pipeline_parallel_size": 2, "distributed_executor_backend": "external_launcher"}}


def _overlay(tmp_path, text, name="overlay.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def _findings(m):
    """The findings on the overlay's operations."""
    return [str(f) for f in check.iter_findings(m) if f.code in ("overlay-noop", "overlay-dangling", "overlay-ended")]


# --- the examples ---------------------------------------------------------------------------

@pytest.mark.parametrize(("example", "notes", "ignored", "refusals"), [
    ("ascend-overlay/overlay.toml", 2, "", ["v1_only_with_v2_only"]),
    ("openvino-overlay/overlay.toml", 3, "; 1 finding ignored by [check] ignore",
     ["v1_only_with_v2_only", "v2_only_without_v2"]),
    ("npu-overlay/vllm_npu_matrix/overlay.toml", 40, "",
     ["forced_v2_on_the_npu", "v1_only_with_v2_only", "v1_only_with_v2_only_off_the_allowlist",
      "v2_only_off_the_allowlist"]),
])
def test_every_example_overlay_passes_check_strict_each_refusal_and_ignore_used(example, notes, ignored, refusals):
    """As .ci/run checks them: every config no runner serves is acknowledged by a refusal with
    its reason (the overlay's own, or upstream's), and every acknowledgement is used."""
    path = ROOT / "examples" / example
    out = io.StringIO()
    assert run(["check", "--strict", "--matrix", str(path)], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue().splitlines()[-1] == (
        f"{path}: passed: 0 errors, 0 warnings, {notes} notes (strict: every finding fails but acknowledged "
        f"refusals){ignored}")
    findings = check.check(matrix.load(path), strict=True).findings
    assert sorted({f.refusal for f in findings if f.code == "no-runner"}) == refusals  # no None: each acknowledged


def test_the_ascend_overlay_lifts_the_pipeline_parallel_blocker_of_v2_by_id():
    upstream, m = matrix.load(), matrix.load(ASCEND)
    assert isinstance(m, matrix.Matrix)
    assert upstream.resolve(PP_EXTERNAL).runner == "v1"
    assert m.resolve(PP_EXTERNAL).runner == "v2"
    assert m.feature("pp_external_launcher").support["v2"] == (matrix.Statement(
        "yes", note="set by vLLM model runners on Ascend NPU: vllm-ascend lifts upstream's pipeline-parallelism "
        "blocker of V2 on the NPU (its patch filtered 'EAGLE3 with pipeline parallelism' by display text) "
        "(https://github.com/vllm-project/vllm-ascend/pull/16626)"),)
    # Everything the overlay does not touch is upstream's.
    others = [f for f in m.features if f.id != "pp_external_launcher"]
    assert [(f.id, f.support, f.when) for f in others] == [
        (f.id, f.support, f.when) for f in upstream.features if f.id != "pp_external_launcher"]
    assert [(r.id, r.priority) for r in m.runners] == [("v2", 20), ("v1", 10)]
    assert all(f.prefers is None for f in m.features)  # the overlay owns the choice
    assert _findings(m) == []


def test_renaming_a_feature_upstream_does_not_change_what_the_ascend_overlay_does(tmp_path):
    upstream = tmp_path / "upstream"
    (upstream / "runners").mkdir(parents=True)
    text = (ROOT / "features.toml").read_text().replace(
        'name = "pipeline parallelism with external_launcher"', 'name = "PP with the external launcher"')
    (upstream / "features.toml").write_text(text)
    for runner in ("v1", "v2"):
        (upstream / "runners" / f"{runner}.toml").write_text((ROOT / "runners" / f"{runner}.toml").read_text())
    overlay = ASCEND.read_text().replace('extends = "vLLM model runners"', 'extends = "upstream/features.toml"')
    m = matrix.load(_overlay(tmp_path, overlay))
    assert m.feature("pp_external_launcher").name == "PP with the external launcher"
    assert m.resolve(PP_EXTERNAL).runner == "v2"
    # Deleting the id upstream makes the operation a load error, with "did you mean".
    (upstream / "features.toml").write_text(re.sub(r"\bpp_external_launcher\b", "pp_external_launch", text))
    with pytest.raises(LoadError) as excinfo:
        matrix.load(str(tmp_path / "overlay.toml"))
    assert excinfo.exconly() == (
        f"matrix.errors.LoadError: {tmp_path}/overlay.toml: 1 problem\n"
        f"  {tmp_path}/overlay.toml:20:1: $.change.features.pp_external_launcher: Upstream has no feature "
        "'pp_external_launcher', did you mean 'pp_external_launch'")


def test_the_openvino_overlay_removes_v2_from_choice_and_a_request_still_gets_it():
    m = matrix.load(OPENVINO)
    assert matrix.load().resolve({}).runner == "v2"
    assert m.resolve({}).runner == "v1"
    assert m.resolve({}, runner="v2").runner == "v2"
    assert m.runner("v2").candidate == matrix.Predicate("False")
    assert m.runner("v2").description.endswith(
        "; set by vLLM model runners on OpenVINO: The OpenVINO plugin cannot ship Triton, which Model Runner V2 "
        "needs (https://github.com/vllm-project/vllm/issues/57684)")


def test_the_cli_takes_an_overlay_wherever_it_takes_a_matrix():
    out, err = io.StringIO(), io.StringIO()
    status = run(["resolve", "--matrix", str(OPENVINO)], stdout=out, stderr=err)
    assert (status, out.getvalue(), err.getvalue()) == (0, (
        "Chose v1 (Model Runner V1) automatically at version 0.33.0\n"
        "Not a candidate: v2 (Model Runner V2), removed from choice by overlay 'vLLM model runners on OpenVINO': "
        "The OpenVINO plugin cannot ship Triton, which Model Runner V2 needs\n"), "")


def test_the_docs_page_of_the_ascend_example_is_current():
    from matrix.render import render

    page = (ROOT / "docs" / "ascend-overlay.md").read_text()
    begin, end = page.index("<!-- matrix:begin -->\n"), page.index("<!-- matrix:end -->")
    assert page[begin + len("<!-- matrix:begin -->\n"):end].strip("\n") == render(
        matrix.load(str(ASCEND.relative_to(ROOT))), tables=("support",)).strip("\n")


# --- operations -----------------------------------------------------------------------------

def test_a_derived_runner_is_its_base_except_where_it_says_and_where_a_feature_forces_the_base(tmp_path):
    m = matrix.load(_overlay(tmp_path, """\
        [overlay]
        extends = "default"
        name = "npu"

        [config."platform.is_npu"]
        type = "bool"
        default = false
        fact = true
        why = "the platform's own fact"

        [runners.npu]
        from = "v2"
        name = "NPU runner"
        priority = 30
        why = "as V2, on the NPU"

        [features.aclgraph]
        name = "ACL graph"
        when = "platform.is_npu"
        support = { v1 = "no", v2 = "no", npu = "yes" }
        why = "only the NPU has ACL graphs"
        """))
    npu = m.runner("npu")
    assert (npu.name, npu.priority, npu.links) == ("NPU runner", 30, m.runner("v2").links)
    for feature in m.features:
        if feature.forces is not None:
            assert feature.support["npu"] == (matrix.Statement("no"),), feature.id
        elif feature.id != "aclgraph":
            assert feature.support["npu"] == feature.support["v2"], feature.id
    assert m.resolve({}, facts={"platform.is_npu": True}).runner == "npu"
    assert m.schema["platform.is_npu"].doc == "set by npu: the platform's own fact"


def test_unset_removes_a_note_and_links_and_a_star_sets_every_runner(tmp_path):
    m = matrix.load(_overlay(tmp_path, """\
        [overlay]
        extends = "default"
        name = "p"

        [change.features.pp_async_scheduling]
        support."*" = "no"
        unset = ["note", "links"]
        why = "no async scheduling here"
        """))
    feature = m.feature("pp_async_scheduling")
    assert feature.note == "set by p: no async scheduling here"
    assert feature.links == ()
    assert feature.support == {r: (matrix.Statement("no", note="set by p: no async scheduling here"),)
                               for r in ("v1", "v2")}


def test_check_says_noop_dangling_and_ended_operations_at_their_lines(tmp_path):
    path = _overlay(tmp_path, """\
        [overlay]
        extends = "default"

        [change.features.dbo]
        support.v1 = "yes"
        why = "upstream says so already"

        [change.features.eagle3_pipeline_parallel]
        lift = ["v2"]
        why = "vllm-ascend's patch of an entry upstream later dropped"
        upstream = "<0.33"

        [change.features.pp_external_launcher]
        lift = ["v2"]
        why = "the NPU supports it"
        until = "0.33.0"

        [change.features.dbo_lora]
        support.v1 = "yes"
        why = "the NPU supports it"
        until = "upstream supports it"

        [change.features.dbo_hybrid]
        lift = ["v2"]
        why = "the NPU supports it"
        until = "upstream supports it"
        """)
    m = matrix.load(path)
    assert _findings(m) == [
        f"{path}:4:1: warning[overlay-noop]: Overlay operation change-feature on 'dbo' changes nothing: upstream "
        "already says the same",
        f"{path}:8:1: warning[overlay-dangling]: Overlay operation change-feature on 'eagle3_pipeline_parallel' is "
        "dangling: upstream 0.33.0 has no such id, and the operation is written for upstream '<0.33'",
        f"{path}:13:1: warning[overlay-ended]: Overlay operation change-feature on 'pp_external_launcher' has ended: "
        "until 0.33.0, and upstream is 0.33.0; remove it",
        f"{path}:18:1: warning[overlay-ended]: Overlay operation change-feature on 'dbo_lora' has ended (until "
        "upstream supports it): upstream says the same now; remove it",
    ]
    out = io.StringIO()
    run(["check", "--matrix", path], stdout=out, stderr=out)
    assert f"{path}:4:1: warning[overlay-noop]:" in out.getvalue().splitlines()[0]


def test_the_overlay_owns_the_choice_upstream_preferences_and_orders_do_not_apply(tmp_path):
    m = matrix.load(_overlay(tmp_path, """\
        [overlay]
        extends = "default"
        name = "p"

        [overlay.choice]
        order = ["v1"]
        why = "the platform chooses"
        """))
    assert [(r.id, r.priority, r.candidate) for r in m.runners] == [
        ("v1", 20, None), ("v2", 10, matrix.Predicate("False"))]
    rocm = m.feature("rocm_v1_default")
    assert (rocm.prefers, rocm.note) == (None, "set by p: the platform chooses")


@pytest.mark.parametrize("body, message", [
    ('[change.features.dbo]\nlift = ["v2"]\nwhy = ""\n', "$.change.features.dbo: Expected why to be a sentence, got ''"),
    ('[features.dbo]\nname = "x"\nwhen = "True"\nsupport = { v1 = "yes", v2 = "yes" }\nwhy = "w"\n',
     "$.features.dbo: Upstream has feature 'dbo' already: change it under [change.features.dbo]"),
    ('[change.features.dbo]\nnote = "n"\nunset = ["note"]\nwhy = "w"\n',
     "$.change.features.dbo.unset: 'note' is both set and unset"),
    ('[change.features.dbo]\nlift = ["v2"]\nblock = ["v2"]\nwhy = "w"\n',
     "$.change.features.dbo.block: The cell of 'v2' is set twice in one operation"),
    ('[change.runners.v2]\nchoice = true\nwhy = "w"\n',
     "$.change.runners.v2.choice: choice = false removes a runner from automatic choice; got True"),
    ('[runners.v3]\nfrom = "v22"\nname = "V3"\npriority = 5\nwhy = "w"\n',
     "$.runners.v3.from: Upstream has no runner 'v22', did you mean 'v2'"),
    ('[change.config."parallel_config.distributed_executor_backend"]\nadd_choices = ["hccl", "mp"]\nwhy = "w"\n',
     '$.change.config["parallel_config.distributed_executor_backend"].add_choices: '
     "'mp' is a choice of 'parallel_config.distributed_executor_backend' already"),
    ('[change.config."parallel_config.distributed_executor_backend"]\nadd_choices = ["hccl", "hccl"]\nwhy = "w"\n',
     '$.change.config["parallel_config.distributed_executor_backend"].add_choices: '
     "'hccl' is a choice of 'parallel_config.distributed_executor_backend' already"),
    ('[change.config."parallel_config.distributed_executor_backend"]\nadd_choices = []\nwhy = "w"\n',
     '$.change.config["parallel_config.distributed_executor_backend"].add_choices: '
     "Expected add_choices to be a non-empty array of choices, got []"),
    # Read as [config]'s choices are, each at its add_choices[i]: a value of another type, a malformed table.
    ('[change.config."parallel_config.distributed_executor_backend"]\nadd_choices = [3]\nwhy = "w"\n',
     '$.change.config["parallel_config.distributed_executor_backend"].add_choices[0]: Choice 3 does not fit type str'),
    ('[change.config."parallel_config.distributed_executor_backend"]\nadd_choices = ["x", { since = "0.30.0" }]\nwhy = "w"\n',
     '$.change.config["parallel_config.distributed_executor_backend"].add_choices[1]: A choice given as a table: write '
     'the value alone, or { value = …, since = "V", until = "V" } (versions as strings)'),
    ('[change.config."model_config.architecture"]\nadd_choices = ["X"]\nwhy = "w"\n',
     '$.change.config["model_config.architecture"].add_choices: '
     "[config] field 'model_config.architecture' has no choices (any value of its type is accepted): "
     "add_choices extends a field's choices"),
    ('[change.config."parallel_config.distributed_executor_backnd"]\nadd_choices = ["x"]\nwhy = "w"\n',
     '$.change.config["parallel_config.distributed_executor_backnd"]: Upstream has no [config] field '
     "'parallel_config.distributed_executor_backnd', did you mean 'parallel_config.distributed_executor_backend'"),
])
def test_a_malformed_operation_is_a_load_error(tmp_path, body, message):
    path = _overlay(tmp_path, '[overlay]\nextends = "default"\n\n' + body)
    with pytest.raises(LoadError) as excinfo:
        matrix.load(path)
    (problem,) = excinfo.value.problems
    assert f"{problem.place}: {problem.message}" == message


def test_each_mistake_of_add_choices_is_said_at_its_own_place_and_line(tmp_path):
    # As [config]'s choices are read (the one reader): a value of another type, a malformed
    # table, a window that ends before it starts, each at its add_choices[i] (they were said at
    # the merged field's choices[N], a place the overlay does not write); beside them a value
    # the field has already.
    path = _overlay(tmp_path, '[overlay]\nextends = "default"\n\n'
                              '[change.config."parallel_config.distributed_executor_backend"]\n'
                              'add_choices = ["ok", 3, { value = "x", until = 2 }, { value = 1.5 }, '
                              '{ value = "y", since = "1", until = "0.5" }, "mp"]\nwhy = "w"\n')
    with pytest.raises(LoadError) as excinfo:
        matrix.load(path)
    at = f'{path}:5:{{}}: $.change.config["parallel_config.distributed_executor_backend"].add_choices'
    assert str(excinfo.value).split("\n") == [
        f"{path}: 5 problems",
        f"  {at.format(1)}: 'mp' is a choice of 'parallel_config.distributed_executor_backend' already",
        f"  {at.format(22)}[1]: Choice 3 does not fit type str",
        f"  {at.format(25)}[2]: A choice given as a table: write the value alone, or "
        '{ value = …, since = "V", until = "V" } (versions as strings)',
        f"  {at.format(53)}[3]: Choice 1.5 does not fit type str",
        f"  {at.format(98)}[4].until: until '0.5' must come after since '1'"]


def test_a_change_of_an_order_the_overlays_own_choice_drops_is_a_load_error_at_its_line(tmp_path):
    # Found by the random test: it was a KeyError of the composition, not a load error.
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r0.toml").write_text('name = "R0"\npriority = 10\n')
    (tmp_path / "runners" / "r1.toml").write_text('name = "R1"\npriority = 9\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "u"\nversion = "1.0"\n[config]\n"f0" = { type = "bool" }\n'
        '[features.g0]\nname = "g"\nwhen = "f0"\nsupport = { r0 = "yes", r1 = "yes" }\n'
        '[orders.o0]\nname = "o"\nwhen = "f0"\nrunners = ["r1", "r0"]\n')
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "features.toml"
        [overlay.choice]
        order = ["r0"]
        why = "r"
        [change.orders.o0]
        runners = ["r0"]
        why = "r"
        """)
    with pytest.raises(LoadError) as excinfo:
        matrix.load(path)
    assert [str(p) for p in excinfo.value.problems] == [
        f"{path}:7:1: $.change.orders.o0: The overlay owns the choice ([overlay.choice]), which drops upstream's "
        "order 'o0': a change of it would change nothing; remove [change.orders.o0]"]


def test_unset_when_of_the_last_order_makes_it_apply_wherever_none_before_it_does_and_of_another_is_a_load_error(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r0.toml").write_text('name = "R0"\npriority = 10\n')
    (tmp_path / "runners" / "r1.toml").write_text('name = "R1"\npriority = 9\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "u"\nversion = "1.0"\n[config]\n"f0" = { type = "bool", default = false }\n"f1" = { type = "bool", default = false }\n'
        '[features.g0]\nname = "g"\nwhen = "f0"\nsupport = { r0 = "yes", r1 = "yes" }\n'
        '[orders.o0]\nname = "first"\nwhen = "f0"\nrunners = ["r0"]\n'
        '[orders.o1]\nname = "last"\nwhen = "f1"\nrunners = ["r1", "r0"]\n')
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "features.toml"
        [change.orders.o1]
        unset = ["when"]
        why = "The platform tries R1 first wherever no order before it applies"
        """)
    m = matrix.load(path)
    assert [(o.id, str(o.when)) for o in m.orders] == [("o0", "f0"), ("o1", "True")]
    assert (m.resolve({}).runner, m.resolve({"f0": True}).runner) == ("r1", "r0")
    assert [(o.kind, o.target, o.keys) for o in m.overlay.operations] == [("change-order", "o1", ("when",))]
    with pytest.raises(LoadError) as excinfo:
        matrix.load(_overlay(tmp_path, """\
            [overlay]
            extends = "features.toml"
            [change.orders.o0]
            unset = ["when", "runners"]
            why = "r"
            [change.orders.o1]
            unset = ["when"]
            when = "f1"
            why = "r"
            """, "bad.toml"))
    bad = tmp_path / "bad.toml"
    assert [str(p) for p in excinfo.value.problems] == [
        f"{bad}:4:1: $.change.orders.o0.unset: Unknown key to unset 'runners' (expected 'when')",
        f"{bad}:7:1: $.change.orders.o1.unset: 'when' is both set and unset"]
    with pytest.raises(LoadError) as excinfo:
        matrix.load(_overlay(tmp_path, """\
            [overlay]
            extends = "features.toml"
            [change.orders.o0]
            unset = ["when"]
            why = "r"
            """, "first.toml"))
    assert [str(p) for p in excinfo.value.problems] == [
        f"{tmp_path / 'first.toml'}:4:1: $.change.orders.o0.unset: Without when, order 'o0' would apply wherever no "
        "order before it does, so 'o1' after it would never be reached: an order without when must be the last"]


def test_an_unknown_upstream_is_a_load_error_with_did_you_mean(tmp_path):
    path = _overlay(tmp_path, '[overlay]\nextends = "vLLM model runner"\n')
    with pytest.raises(LoadError) as excinfo:
        matrix.load(path)
    assert excinfo.exconly() == (
        f"matrix.errors.LoadError: {path}: 1 problem\n"
        f"  {path}:2:1: $.overlay.extends: Unknown upstream matrix 'vLLM model runner', did you mean 'vLLM model "
        "runners': name the packaged matrix ('vLLM model runners') or give the path of a features.toml")


def test_an_overlay_extending_a_host_matrix_by_name_alone_says_how_to_load_it_over_that_matrix(tmp_path, monkeypatch):
    """A user trial: a plugin's overlay says extends = "query engines" (its host's [matrix]
    name), which names the host when it is installed or given over it, but loaded alone it was
    told to name the packaged matrix. The error says what works, and that works."""
    (tmp_path / "host" / "runners").mkdir(parents=True)
    (tmp_path / "host" / "features.toml").write_text(
        '[matrix]\nname = "query engines"\nversion = "1.2"\n\n[config]\n"wide" = { type = "bool", default = false }\n\n'
        '[features.wide]\nname = "wide"\nwhen = "wide"\nsupport = { row = "no" }\n')
    (tmp_path / "host" / "runners" / "row.toml").write_text('name = "Row"\npriority = 1\n')
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "overlay.toml").write_text(
        '[overlay]\nname = "fpga"\nextends = "query engines"\n\n[runners.fpga]\nname = "FPGA"\npriority = 5\n'
        'why = "the FPGA engine"\n\n[change.features.wide]\nlift = ["fpga"]\nwhy = "64 lanes"\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(LoadError) as excinfo:
        matrix.load("plugin/overlay.toml")
    assert excinfo.exconly() == (
        "matrix.errors.LoadError: plugin/overlay.toml: 1 problem\n"
        "  plugin/overlay.toml:3:1: $.overlay.extends: Unknown upstream matrix 'query engines': loaded alone, an "
        "overlay finds by name only the packaged matrix ('vLLM model runners'); load it over the matrix named 'query "
        "engines' (--matrix PATH/features.toml --overlay plugin/overlay.toml, or matrix.load('PATH/features.toml', "
        "overlays=['plugin/overlay.toml'])), or give extends the path of that matrix's features.toml, relative to "
        "the overlay")
    # Each way it names works, as it is written.
    assert matrix.load("host/features.toml", overlays=["plugin/overlay.toml"]).resolve({"wide": True}).runner == "fpga"
    out = io.StringIO()
    assert run(["resolve", "--matrix", "host/features.toml", "--overlay", "plugin/overlay.toml", "--set", "wide=true"],
               stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == "Chose fpga (FPGA) automatically at version 1.2\nAlso blocked row (Row) because of: wide\n"
    (tmp_path / "plugin" / "overlay.toml").write_text((tmp_path / "plugin" / "overlay.toml").read_text().replace(
        '"query engines"', '"../host/features.toml"'))
    assert matrix.load("plugin/overlay.toml").resolve({"wide": True}).runner == "fpga"


def test_the_merge_rules_are_stated_once_the_how_to_page_prints_the_table_of_the_code():
    from matrix._overlay import MERGE_RULES

    page = (ROOT / "docs" / "how-to" / "overlays.md").read_text()
    rows = re.findall(r"^\| (.+) \| (.+) \|$", page.split("<!-- merge rules -->")[1], re.M)[1:]
    assert rows[:len(MERGE_RULES)] == list(MERGE_RULES)


# --- random overlays on random matrices, against a hand merge of the documented rules -------

def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return "{ " + ", ".join(f"{json.dumps(k)} = {_value(x)}" for k, x in v.items()) + " }"


def _toml(document):
    """A TOML text of *document*: each top-level table a header, its entries inline."""
    lines = []
    for table, entries in document.items():
        if isinstance(entries, dict):
            lines.append(f"[{json.dumps(table)}]")
            lines += [f"{json.dumps(k)} = {_value(v)}" for k, v in entries.items()]
        else:
            lines.insert(0, f"{json.dumps(table)} = {_value(entries)}")
    return "\n".join(lines) + "\n"


APPEND_SINCE = ["0.9", "1.0", "1.1", "1.2", "2.0", "3.0"]  # matrix.strategies' versions, and one after them
WORDS = "set by p: r"  # the provenance each operation appends: overlay "p", why "r"
FIRST = "set by q: r"  # that of the operations of a first overlay "q", which "p" extends


def _note(note, words):
    if words is None:
        return note
    return f"{note}; {words}" if note else words


def _cell(cell, words):
    """A cell set by an operation, its provenance after each statement's note (the rule)."""
    if words is None:
        return cell
    if isinstance(cell, str):
        return {"status": cell, "note": words}
    if isinstance(cell, list):
        return [_cell(s, words) for s in cell]
    return dict(cell, note=_note(cell.get("note"), words))


@st.composite
def _operations(draw, features, runners, upstream_doc):  # noqa: C901 — draws each kind of operation, one branch each
    """Random operations on upstream's ids, as (table, id, body), in the order they apply (the
    how-to's): an added [config] field, added runners (one made from another: "as r0, except
    …"), an owned choice, an added feature, then changes of features (cells, note, links,
    name, group, prefers, forces, unset), runners (choice = false, priority, candidate, name,
    unset), upstream's order, and an adjustment added (after an added feature) or upstream's changed,
    a matrix-wide requirement changed, and a refusal added (last: an overlay's come after its changes)."""
    ops = []
    field = draw(st.booleans())
    if field:
        ops.append(("config", "o0", {"type": "bool", "default": False}))
    # A choice added to an upstream field with choices (z; a: upstream's already, a load error),
    # which an added feature then reads.
    chosen = sorted(p for p, f in upstream_doc.get("config", {}).items() if "choices" in f)
    extended = draw(st.sampled_from(chosen)) if chosen and draw(st.booleans()) else None
    added = []
    for index in range(draw(st.integers(0, 2))):
        id = f"n{index}"
        body = {"name": f"Runner N{index}", "priority": draw(st.sampled_from([0, 5, 30]))}
        if draw(st.integers(0, 3)) != 3:  # mostly (hypothesis leans to 0): what it copies is held
            body["from"] = draw(st.sampled_from(runners))
            if draw(st.booleans()):
                del body["name"]  # the base's name, copied
        ops.append(("add-runners", id, body))
        added.append(id)
    every = [*runners, *added]
    if draw(st.booleans()):  # the overlay owns the choice
        ops.append(("choice", None, {"order": draw(st.lists(st.sampled_from(every), unique=True, min_size=1))}))
    if draw(st.booleans()):
        feature_ids = sorted(features)
        when = "o0" if field else f"{extended} == 'z'" if extended else \
            upstream_doc["features"][draw(st.sampled_from(feature_ids))]["when"]
        body = {"name": "added", "when": when,
                "support": {r: draw(st.sampled_from(["yes", "no"])) for r in every}}
        if draw(st.booleans()):
            body["prefers"] = {"runner": draw(st.sampled_from(every))}
        ops.append(("add-features", "x0", body))
    settable = _settable(upstream_doc)
    if settable and draw(st.booleans()):  # an adjustment added: after upstream's, for every runner or one
        path, value = draw(st.sampled_from(settable))
        body = {"name": "added adjustment", "when": upstream_doc["features"][sorted(features)[-1]]["when"],
                "set": {path: value}, "level": draw(st.sampled_from(["info", "warning"]))}
        if draw(st.booleans()):
            body["runners"] = [draw(st.sampled_from(every))]
        ops.append(("add-adjustments", "a1", body))
    if extended:  # the changes apply in their tables' order: [change.config] first
        added_choices = ["a" if draw(st.integers(0, 9)) == 9 else "z"]
        # Beside it, before or after, mostly nothing: a table (with a window, or one that ends
        # before it starts, or without a value) or a value of another type, read as choices are.
        extra = draw(st.sampled_from([None, {"value": "y"}, {"value": "y", "since": "1.0"}, 3,
                                      {"value": "y", "since": "2.0", "until": "1.0"}, {"since": "1.0"}]))
        if extra is not None:
            added_choices.insert(len(added_choices) if draw(st.booleans()) else 0, extra)
        ops.append(("config-choices", extended, {"add_choices": added_choices}))
    for id in draw(st.lists(st.sampled_from(sorted(features)), unique=True, max_size=3)):
        body = {}
        runner = draw(st.sampled_from(every))
        kind = draw(st.sampled_from(["lift", "block", "support", "star", "append"]))
        if kind in ("lift", "block"):
            body[kind] = [runner]
        elif kind == "support":
            body["support"] = {runner: draw(st.sampled_from(["yes", "no", "opt-in"]))}
        elif kind == "star":
            body["support"] = {"*": draw(st.sampled_from(["yes", "no"]))}
        else:  # a statement appended to the cell's history, from a since before, at or after its last
            status = draw(st.sampled_from(["yes", "no", "opt-in", "partial"]))
            statement = {"status": status, "since": draw(st.sampled_from(APPEND_SINCE))}
            if status == "partial" or draw(st.booleans()):
                statement["note"] = "from then"
            body["append"] = {runner: statement}
            if draw(st.integers(0, 3)) == 0:  # a cell replaced beside it: another's, or the same (a load error)
                body["support"] = {draw(st.sampled_from(every)): "no"}
        extra = draw(st.sampled_from(["", "note", "unset-note", "links", "unset-links", "name", "group",
                                      "prefers", "forces", "unset-prefers", "unset-forces"]))
        if extra == "note":
            body["note"] = "n"
        elif extra == "links":
            body["links"] = ["https://example.com/x"]
        elif extra == "name":
            body["name"] = f"renamed {id}"  # one name per feature: the Markdown's rows are told apart by it
        elif extra == "group":
            body["group"] = "G"
        elif extra == "prefers":
            body["prefers"] = {"runner": runner, **({"outright": True} if draw(st.booleans()) else {})}
        elif extra == "forces":  # every other runner says no (the loader's rule)
            body = {"support": {r: "yes" if r == runner else "no" for r in every},
                    "forces": {"runner": runner, **({"override": True} if draw(st.booleans()) else {})}}
        elif extra:
            body["unset"] = [extra[len("unset-"):]]
        ops.append(("features", id, body))
    kinds = list(upstream_doc.get("requirements", {}))
    for id in draw(st.lists(st.sampled_from(runners), unique=True, max_size=2)):
        changes = ["choice", "priority", "candidate", "unset-candidate", "name", *(["requires"] * 3 if kinds else []),
                   "deprecated", "unset-deprecated"]
        change = draw(st.sampled_from(changes))
        condition = upstream_doc["features"][sorted(features)[0]]["when"]
        # A runner deprecated from the overlay (a platform retiring an upstream runner first), its
        # replacement another runner, words, or itself (a load error); or upstream's deprecation unset.
        deprecated = {"since": draw(st.sampled_from(["0.1", "1.0"])), **draw(st.sampled_from(
            [{}, {"remove_in": "9.0"}, {"replacement": "the other runner"}, {"replacement": id},
             {"replacement": draw(st.sampled_from(runners))}]))}
        body = {"choice": {"choice": False}, "priority": {"priority": draw(st.sampled_from([1, 15, 40]))},
                "candidate": {"candidate": condition},
                "unset-candidate": {"unset": ["candidate"]}, "name": {"name": "Renamed"},
                "deprecated": {"deprecated": deprecated}, "unset-deprecated": {"unset": ["deprecated"]}}.get(change, {})
        if change == "requires":  # a requirement entry of a kind replaced, added or removed (kx: no such kind)
            kind = draw(st.sampled_from([*kinds, "kx"] if draw(st.integers(0, 9)) == 0 else kinds))
            entry = draw(st.sampled_from(["unset", "condition", "clause", "chain"]))
            if entry == "unset":
                body = {"unset": [f"requires.{kind}"]}
            else:
                body = {"requires": {kind: {
                    "condition": condition, "clause": {"condition": condition, "reason": "the overlay refuses it"},
                    "chain": [{"condition": condition, "reason": "first"}, {"condition": f"not ({condition})",
                                                                             "reason": "second"}]}[entry]}}
        ops.append(("runners", id, body))
    orders = upstream_doc.get("orders", {})
    if orders and draw(st.booleans()):
        change = draw(st.sampled_from(["runners", "name", "when", "unset-when"]))
        body = {"runners": {"runners": list(draw(st.permutations(runners)))[:draw(st.integers(1, len(runners)))]},
                "name": {"name": "order renamed"},
                "when": {"when": upstream_doc["features"][sorted(features)[0]]["when"]},
                "unset-when": {"unset": ["when"]}}[change]  # the last order: it applies wherever none before it does
        ops.append(("orders", "o0", body))
    upstream_adjustment = upstream_doc.get("adjustments", {}).get("a0")
    # A change of upstream's adjustment, mostly (where there is one; hypothesis leans to 0).
    drawn = draw(st.integers(0, 3))
    if drawn < 3 if upstream_adjustment else drawn == 3:
        id = "ax" if upstream_adjustment is None or draw(st.integers(0, 9)) == 9 else "a0"  # ax: none such, a load error
        change = draw(st.sampled_from(["name", "level", "set", "set", "runners", "runners", "unset-runners", "message",
                                       "remove", "when", "when", "unset-set"]))
        # Steered to take effect: another path set (where there is one), the when it did not hold
        # at, the runners it did not name.
        own = list((upstream_adjustment or {}).get("set", {}).items())
        others = [s for s in _settable(upstream_doc) if s[0] not in dict(own)] or _settable(upstream_doc)
        named = (upstream_adjustment or {}).get("runners", [])
        body = {"name": {"name": "renamed adjustment"}, "level": {"level": draw(st.sampled_from(["info", "warning"]))},
                "set": {"set": dict([draw(st.sampled_from(others))])} if others else {"level": "warning"},
                "runners": {"runners": [draw(st.sampled_from([r for r in every if r not in named] or every))]},
                "unset-runners": {"unset": ["runners"]},
                "message": {"message": "adjusted by the platform"}, "remove": {"remove": True},
                "when": {"when": f"not ({upstream_doc['features'][sorted(features)[0]]['when']})"},
                "unset-set": {"unset": ["set"]}}[change]
        ops.append(("adjustments", id, body))
    if kinds and draw(st.booleans()):  # a matrix-wide requirement's entry or exempt list (kx: no such kind)
        kind = draw(st.sampled_from([*kinds, "kx"] if draw(st.integers(0, 9)) == 0 else kinds))
        condition = upstream_doc["features"][sorted(features)[-1]]["when"]
        change = draw(st.sampled_from(["condition", "clause", "chain", "chain-exempt", "exempt", "unset-entry",
                                       "unset-exempt"]))
        body = {"condition": {"entry": condition},
                "clause": {"entry": {"condition": condition, "reason": "the platform refuses it"}},
                "chain": {"entry": [{"condition": condition, "reason": "first"},
                                    {"condition": f"not ({condition})", "reason": "second"}]},
                # An exempt list on a later clause: a load error, as in a file (the chain's is its first's).
                "chain-exempt": {"entry": [{"condition": condition, "reason": "first"},
                                           {"condition": f"not ({condition})", "reason": "second",
                                            "exempt": [draw(st.sampled_from(every))]}]},
                "exempt": {"exempt": [draw(st.sampled_from(every))]},
                "unset-entry": {"unset": ["entry"]}, "unset-exempt": {"unset": ["exempt"]}}[change]
        if change in ("condition", "clause", "chain", "chain-exempt") and draw(st.booleans()):
            body["exempt"] = [draw(st.sampled_from(every))]
        ops.append(("requires", kind, body))
    if draw(st.integers(0, 2)) == 2:  # a refusal, after every change (the file's order): the composed matrix's gates
        gates = sorted(features)
        if draw(st.integers(0, 3)) == 3:  # a runner's candidacy: a load error where it has none
            gates.append(f"{draw(st.sampled_from(every))}:not-candidate")
        together = [[g] for g in draw(st.lists(st.sampled_from(gates), min_size=1, max_size=2, unique=True))]
        ops.append(("add-refusals", "z0", {"reason": "r", "together": together}))
    return ops


IGNORED = ["no-runner", "never-chosen", "refusal-unused", "requirement-idle"]  # said alike by the composed matrix


@st.composite
def _ignores(draw, gates):
    """An overlay's ``[check] ignore`` entries (mostly none): a code the composed matrix says as
    the hand-written one does, and a gate of upstream's or none."""
    return [{"code": draw(st.sampled_from(IGNORED)), "reason": "r",
             **({"gate": draw(st.sampled_from(gates))} if draw(st.booleans()) else {})}
            for _ in range(draw(st.integers(0, 3)) // 2)]


def _settable(doc):
    """(path, value) pairs an adjustment may set in *doc*'s [config]: each field but a section,
    with a value of its type."""
    out = []
    for path, spec in sorted(doc.get("config", {}).items()):
        kind = spec.get("type")
        if kind == "section" or spec.get("fact"):
            continue
        value = {"bool": True, "int": 2, "float": 1.5, "version": "2.0", "list[str]": ["z"]}.get(kind)
        if kind == "str":
            # (the last choice of every release: one of some releases only is a table)
            value = next(c for c in reversed(spec["choices"]) if isinstance(c, str)) if "choices" in spec else "z"
        out.append((path, value))
    return out


def _upstream_adjustment(draw, doc):
    """An upstream adjustment ``a0`` for the random matrix *doc* (its text), or "" (none)."""
    settable = _settable(doc)
    # Mostly one, so that the overlay's changes of it are drawn (hypothesis leans to the least
    # value: 0 draws one).
    if not settable or draw(st.integers(0, 3)) == 3:
        return ""
    path, value = draw(st.sampled_from(settable))
    when = doc["features"][sorted(doc["features"])[0]]["when"]
    runners = f"runners = {_value(['r0'])}\n" if draw(st.integers(0, 3)) != 3 else ""  # mostly: a runner from r0 gets it
    return (f'\n[adjustments.a0]\nname = "upstream adjustment"\nwhen = {json.dumps(when)}\n'
            f"set = {{ {json.dumps(path)} = {_value(value)} }}\n{runners}level = \"info\"\n")


class _Refused(Exception):
    """The hand merge says the overlay is a load error (a change of an order its choice drops),
    with the problems it must say where the docs give them (``$.place: message``)."""

    def __init__(self, why, problems=()):
        super().__init__(why)
        self.problems = list(problems)


def _added_choices_problems(path, field, added):
    """The problems of an overlay's ``add_choices`` *added* to the field *path* (its table
    *field*), as the how-to says them: each entry read as a choice of [config] (a table holds
    value, since and until, the versions in order; the value is the field's type), said at its
    ``add_choices[i]``; a value the field has already (by value and type), or adds twice, at
    ``add_choices``."""
    at = "$.change.config" + (f"[{json.dumps(path)}]" if "." in path else f".{path}") + ".add_choices"
    problems, values = [], []
    for index, choice in enumerate(added):
        if isinstance(choice, dict):
            if "value" not in choice:
                problems.append(f"{at}[{index}]: A choice given as a table: write the value alone, or "
                                '{ value = …, since = "V", until = "V" } (versions as strings)')
                continue
            values.append(choice["value"])
            if "since" in choice and "until" in choice and Version(choice["until"]) <= Version(choice["since"]):
                problems.append(f"{at}[{index}].until: until {choice['until']!r} must come after since "
                                f"{choice['since']!r}")
                continue
            choice = choice["value"]
        else:
            values.append(choice)
        if type(choice) is not type(field["choices"][0]):
            problems.append(f"{at}[{index}]: Choice {choice!r} does not fit type {field['type']}")
    seen = [(type(v), v) for v in (c["value"] if isinstance(c, dict) else c for c in field["choices"])]
    for value in values:
        if (type(value), value) in seen:
            problems.append(f"{at}: {value!r} is a choice of {path!r} already")
        seen.append((type(value), value))
    return problems


def _hand_merged(features_doc, runners_doc, ops, first=0):  # noqa: C901 — one branch per documented merge rule
    """The documented rules, applied by hand: a cell replaces the cell ("*": every runner), a
    note, links, name, group, prefers or forces replace theirs, unset removes them, a
    feature-level change and each cell end with the provenance, choice = false makes the
    candidate "False", a runner's name, priority or candidate replace its own, an order's keys
    replace its own; an added field, feature or runner is added with the provenance in its doc,
    note or description, a runner ``from`` another copies its table (not aliases, redirects or
    deprecation), a runner's ``deprecated`` replaces its own
    and its cell in every feature, except where the feature forces it (there "no"). The *first*
    operations are a first overlay's, which the second extends: they apply first, with their
    own provenance."""
    features_doc, runners_doc = copy.deepcopy(features_doc), copy.deepcopy(runners_doc)
    for index, (table, id, body) in enumerate(ops):
        words = None if WORDS is None else FIRST if index < first else WORDS
        if table == "config":
            features_doc.setdefault("config", {})[id] = dict(body, doc=words)
            continue
        if table == "config-choices":  # appended after upstream's; the field's doc ends with the provenance
            field = features_doc["config"][id]
            problems = _added_choices_problems(id, field, body["add_choices"])
            if problems:
                raise _Refused("a choice the field has already, or one [config] would not read", problems)
            field["choices"] = [*field["choices"], *body["add_choices"]]
            field["doc"] = _note(field.get("doc"), words)
            continue
        if table == "add-runners":
            body = dict(body)
            base = body.pop("from", None)
            runner = {}
            if base is not None:
                runner = {k: copy.deepcopy(v) for k, v in runners_doc[base].items()
                          if k not in ("aliases", "redirects", "deprecated")}
                for feature in features_doc.get("features", {}).values():
                    if feature.get("forces", {}).get("runner") == base:
                        feature["support"][id] = "no"
                    elif base in feature.get("support", {}):
                        feature["support"][id] = copy.deepcopy(feature["support"][base])
                for adjustment in features_doc.get("adjustments", {}).values():  # and its adjustments
                    if base in adjustment.get("runners", []) and id not in adjustment["runners"]:
                        adjustment["runners"].append(id)
            runner.update(body)
            runner["description"] = _note(runner.get("description"), words)
            runners_doc[id] = runner
            continue
        if table == "add-features":
            features_doc.setdefault("features", {})[id] = dict(copy.deepcopy(body), note=words)
            continue
        if table == "add-adjustments":  # after upstream's; its message as written (no provenance)
            features_doc.setdefault("adjustments", {})[id] = copy.deepcopy(body)
            continue
        if table == "add-refusals":  # after upstream's (and an earlier overlay's); its reason as written
            if id in features_doc.get("refusals", {}):
                raise _Refused("an overlay adds refusals, it does not change them")
            features_doc.setdefault("refusals", {})[id] = copy.deepcopy(body)
            continue
        if table == "requires":  # a matrix-wide entry replaced, its first clause's exempt list replaced, unset
            wide = features_doc.setdefault("requires", {})
            if id not in features_doc.get("requirements", {}) or (
                    "entry" not in body and id not in wide and ("exempt" in body or "unset" in body)):
                raise _Refused("a kind upstream does not declare, or an entry upstream's [requires] has not")
            if "entry" in body:
                wide[id] = copy.deepcopy(body["entry"])
            if "entry" in body.get("unset", []):
                del wide[id]
            if id in wide and ("exempt" in body or "exempt" in body.get("unset", [])):
                entry = wide[id]
                clause = entry[0] if isinstance(entry, list) else entry
                clause = {"condition": clause} if isinstance(clause, str) else clause
                if isinstance(entry, list):
                    entry[0] = clause
                else:
                    wide[id] = clause
                if "exempt" in body:
                    clause["exempt"] = list(body["exempt"])
                else:
                    clause.pop("exempt", None)
            if not wide:
                del features_doc["requires"]
            continue
        if table == "adjustments":
            if id not in features_doc.get("adjustments", {}):
                raise _Refused("an adjustment upstream does not have")
            if body.get("remove"):
                del features_doc["adjustments"][id]
                continue
            features_doc["adjustments"][id].update(copy.deepcopy({k: v for k, v in body.items() if k != "unset"}))
            for key in body.get("unset", []):
                features_doc["adjustments"][id].pop(key, None)
            continue
        if table == "orders":
            if any(t == "choice" for t, _, _ in ops[:index]):
                raise _Refused("the owned choice dropped upstream's orders")  # the how-to's rule
            features_doc["orders"][id].update(copy.deepcopy({k: v for k, v in body.items() if k != "unset"}))
            for key in body.get("unset", []):
                features_doc["orders"][id].pop(key, None)
            continue
        if table == "choice":
            # Owned: upstream's prefers (the note says so) and orders dropped; priorities by the
            # order, first highest, then the others as they ranked; the runners left out, out of choice.
            order = body["order"]
            for feature in features_doc.get("features", {}).values():
                if "prefers" in feature:
                    del feature["prefers"]
                    feature["note"] = _note(feature.get("note"), words)
            features_doc.pop("orders", None)
            ranked = order + [r for r, t in sorted(runners_doc.items(), key=lambda p: -p[1].get("priority", 0))
                              if r not in order]
            for rank, runner in enumerate(ranked):
                runners_doc[runner]["priority"] = 10 * (len(ranked) - rank)
                if runner not in order:
                    runners_doc[runner]["candidate"] = "False"
            continue
        if table == "runners":
            runner = runners_doc[id]
            runner.update(copy.deepcopy({k: v for k, v in body.items() if k in ("name", "priority", "candidate",
                                                                                  "deprecated")}))
            if runner.get("deprecated", {}).get("replacement") == id:
                raise _Refused("a runner replaced by itself")
            if body.get("choice") is False:
                runner["candidate"] = "False"
            named = [*body.get("requires", {}), *(k[len("requires."):] for k in body.get("unset", []) if "." in k)]
            if any(k not in features_doc.get("requirements", {}) for k in named):
                raise _Refused("a requirement kind upstream does not declare")
            for kind, entry in body.get("requires", {}).items():  # an entry replaces the runner's of its kind
                runner.setdefault("requires", {})[kind] = copy.deepcopy(entry)
            for key in body.get("unset", []):
                if key.startswith("requires."):
                    runner.get("requires", {}).pop(key[len("requires."):], None)
                    if runner.get("requires") == {}:
                        del runner["requires"]
                else:
                    runner.pop(key, None)
            runner["description"] = _note(runner.get("description"), words)
            continue
        feature = features_doc["features"][id]
        cells = {}
        if "*" in body.get("support", {}):
            cells = {r: body["support"]["*"] for r in runners_doc}
        else:
            cells.update(body.get("support", {}))
        cells.update({r: "yes" for r in body.get("lift", [])})
        cells.update({r: "no" for r in body.get("block", [])})
        for runner, cell in cells.items():
            feature.setdefault("support", {})[runner] = _cell(cell, words)
        for runner, statement in body.get("append", {}).items():
            if runner in cells:
                raise _Refused("one operation both replaces and appends to the cell")  # the merge rule
            if _appends(features_doc, id, runner, statement):
                cell = _cell_of(features_doc, id, runner)
                history = cell if isinstance(cell, list) else [] if cell is None else [cell]
                feature.setdefault("support", {})[runner] = [*copy.deepcopy(history), _cell(statement, words)]
        values = {k: v for k, v in body.items() if k in ("note", "links", "name", "group", "prefers", "forces")}
        if values or "unset" in body:
            feature.update(copy.deepcopy(values))
            for key in body.get("unset", []):
                feature.pop(key, None)
            feature["note"] = _note(feature.get("note"), words)
    return features_doc, runners_doc


def _cell_of(features_doc, feature, runner):
    """The runner's cell as the file format reads it: its own, else the feature's support.default,
    else [matrix] default_support."""
    support = features_doc["features"][feature].get("support", {})
    return support.get(runner, support.get("default", features_doc["matrix"].get("default_support")))


def _appends(features_doc, feature, runner, statement):
    """Whether an appended statement is appended (the merge rule): not when the cell's last
    statement already says its status; a load error (refused) when its since does not come
    after the last statement's (the same since: only when that says the same status)."""
    cell = _cell_of(features_doc, feature, runner)
    last = cell[-1] if isinstance(cell, list) else cell
    last = {"status": last} if isinstance(last, str) else last or {}
    if "since" in last:
        before, since = Version(last["since"]), Version(statement["since"])
        if since < before or (since == before and last["status"] != statement["status"]):
            raise _Refused("the statement does not come after the cell's last")
    return last.get("status") != statement["status"]


def _appended(ops, upstream_doc, upstream_runners, first):
    """For each operation, runner → since of each statement it appends (not those the cell
    says already), on the hand merge of the operations before it."""
    out = []
    for index, (_table, id, body) in enumerate(ops):
        found = {}
        if body.get("append"):
            doc, _ = _hand_merged(upstream_doc, upstream_runners, ops[:index], first)
            found = {r: st_["since"] for r, st_ in body["append"].items() if _appends(doc, id, r, st_)}
        out.append(found)
    return out


def _resolution(m, config, **kwargs):
    """The resolution of *config*, a failed one too; None where the config is not one."""
    try:
        return m.resolve(config, **kwargs)
    except matrix.ResolutionError as error:
        return error.resolution
    except matrix.errors.ConfigError:
        return None


def _adjusted(ops, upstream_doc, upstream_runners, first):
    """For each operation, the adjustments a runner it adds ``from`` another gets from it (the
    merge rule: each whose ``runners`` names that one, and not the new runner yet), on the hand
    merge of the operations before it."""
    out = []
    for index, (table, id, body) in enumerate(ops):
        found = []
        if table == "add-runners" and "from" in body:
            doc, _ = _hand_merged(upstream_doc, upstream_runners, ops[:index], first)
            found = [a for a, t in doc.get("adjustments", {}).items()
                     if body["from"] in t.get("runners", []) and id not in t["runners"]]
        out.append(found)
    return out


def _write_upstream(folder, text, runners):
    (folder / "runners").mkdir(parents=True, exist_ok=True)
    (folder / "features.toml").write_text(text)
    for id, table in runners.items():
        (folder / "runners" / f"{id}.toml").write_text(_toml(table))


@functools.cache
def _docs_validator(jsonschema, json_schema):
    schema = json_schema()
    jsonschema.validators.validator_for(schema).check_schema(schema)
    return jsonschema.validators.validator_for(schema)(schema)


def _comparable(m):
    return attrs.evolve(m, file=None, text=None)


def _overlay_text(name, extends, ops, ignores, after=""):
    """The overlay file of the drawn operations *ops* and ``[check] ignore`` entries *ignores*."""
    lines = [f'[overlay]\nname = "{name}"\nextends = "{extends}"\n{after}']
    for table, id, body in ops:
        header = ("[overlay.choice]" if table == "choice" else f"[{table[len('add-'):]}.{id}]"
                  if table.startswith("add-") else f"[config.{id}]" if table == "config"
                  else f"[change.config.{json.dumps(id)}]" if table == "config-choices"
                  else f"[change.{table}.{id}]")
        written = body if table == "add-refusals" else dict(body, why="r")  # a refusal's reason is its why
        lines.append(f"{header}\n" + "".join(f"{json.dumps(k)} = {_value(v)}\n" for k, v in written.items()))
    if ignores:
        lines.append(f"[check]\nignore = {_value(ignores)}\n")
    return "\n".join(lines)


@given(data=st.data())
def test_a_random_overlay_equals_the_hand_merged_matrix_and_its_noops_are_exact(data):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib

    from matrix.strategies import _matrix_texts

    matrix_text, runners = data.draw(_matrix_texts(4))
    matrix_text += _upstream_adjustment(data.draw, tomllib.loads(matrix_text))
    if data.draw(st.integers(0, 2)) == 0:  # upstream deprecates a runner (which an overlay may unset)
        retired = data.draw(st.sampled_from(sorted(runners)))
        runners = {**runners, retired: {**runners[retired], "deprecated": {"since": "0.1", "remove_in": "9.0"}}}
    upstream_doc = tomllib.loads(matrix_text)
    ids = list(upstream_doc.get("features", {}))
    ops = data.draw(_operations(ids, list(runners), upstream_doc))
    # The first operations may be a first overlay's ("q"), which the overlay ("p") extends, or
    # which comes before it in a list (``matrix.load(upstream, overlays=[q, p])``).
    first = data.draw(st.integers(0, len(ops)))
    listed = data.draw(st.booleans())
    # Each overlay's [check] ignore (applied after upstream's, q's before p's); q may have nothing else.
    ignores = {name: data.draw(_ignores(sorted(ids) + sorted(runners))) for name in ("q", "p")}
    chained = bool(first or ignores["q"])

    def text(name, extends, ops, after=""):
        return _overlay_text(name, extends, ops, ignores[name], after)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="matrix-overlay-"))
    try:
        _write_upstream(folder / "upstream", matrix_text, runners)
        if chained:
            (folder / "q.toml").write_text(text("q", "upstream/features.toml", ops[:first]))
            extends = "upstream/features.toml" if listed else "q.toml"
            (folder / "overlay.toml").write_text(text("p", extends, ops[first:], 'after = ["q"]\n'))
        else:
            (folder / "overlay.toml").write_text(text("p", "upstream/features.toml", ops))

        def composed_matrix():
            if listed:
                files = [str(folder / "q.toml")] if chained else []
                return matrix.load(folder / "upstream" / "features.toml", [*files, str(folder / "overlay.toml")])
            return matrix.load(str(folder / "overlay.toml"))
        try:
            if first:  # the first overlay's matrix is a matrix too
                first_doc, first_runners = _hand_merged(upstream_doc, runners, ops[:first], first)
                matrix.loads(_toml(first_doc), runners=first_runners, path="hand.toml")
            expected_doc, expected_runners = _hand_merged(upstream_doc, runners, ops, first)
            expected_doc["matrix"]["name"] = "p"
            if ignores["q"] + ignores["p"]:  # upstream's (none) then the chain's, in its order
                expected_doc["check"] = {"ignore": ignores["q"] + ignores["p"]}
            expected = matrix.loads(_toml(expected_doc), runners=expected_runners, path="hand.toml")
        except (LoadError, _Refused) as refused:
            # The hand merge (or the first overlay's) is not a valid matrix (a 'partial' cell
            # lost its note, a forced runner's rival now says yes): the overlay must say so as a
            # load error too, with each problem the docs place.
            with pytest.raises(LoadError) as excinfo:
                composed_matrix()
            said = [f"{p.place}: {p.message}" for p in excinfo.value.problems]
            assert [p for p in (refused.problems if isinstance(refused, _Refused) else []) if p not in said] == []
            return
        composed = composed_matrix()
        assert _comparable(composed) == _comparable(expected)
        # The docs JSON: the hand merge's, and each cell a live operation set names its overlay.
        import jsonschema

        from matrix.render import json_schema, render

        # At the matrix's version, or another it knows of (a statement appended from a later
        # since is the overlay's from then on).
        version = data.draw(st.sampled_from(sorted(
            {str(composed.version), *(v for v in APPEND_SINCE if Version(v) <= composed.newest_release)})))
        appended = _appended(ops, upstream_doc, runners, first)
        adjusted = _adjusted(ops, upstream_doc, runners, first)
        docs, hand = (json.loads(render(x, format="json", tables=("support", "capabilities", "adjustments"),
                                        version=version)) for x in (composed, expected))
        # The overlay keys of a composed matrix's docs are the schema's (a validator made once:
        # jsonschema.validate would check the schema itself against its metaschema every time).
        _docs_validator(jsonschema, json_schema).validate(docs)
        marks, words = _marks(ops, composed.overlay.operations, [r.id for r in composed.runners], first,
                              upstream_doc, runners, appended, Version(version))
        _add_words(hand, words)
        found = {(f["id"], r): c.pop("overlay") for f in docs["features"] for r, c in f["support"].items()}
        # The features in force at the version, not removed (a removed one's cells all say removed).
        shown = {f["id"] for f in docs["features"] if not composed.feature(f["id"]).removed_at(Version(version))}
        assert {k: v for k, v in found.items() if v} == {k: v for k, v in marks.items() if k[0] in shown}
        # The capability table's cells and the adjustments an overlay set name it too (those shown).
        requirements, adjustments = _table_marks(ops, composed, first, adjusted)
        found_requirements = {(row["id"], r): by for row in docs.get("capabilities", []) for r, by in row.pop("overlay").items()}
        found_adjustments = {a["id"]: a.pop("overlay") for a in docs.get("adjustments", [])}
        assert ({k: v for k, v in found_requirements.items() if v}, {k: v for k, v in found_adjustments.items() if v}) == (
            {k: v for k, v in requirements.items() if k in found_requirements},
            {k: v for k, v in adjustments.items() if k in found_adjustments})
        for page in (docs, hand):
            page.pop("generated_by")
        assert docs == hand
        _markdown_marks(composed, version, {k: v for k, v in marks.items() if k[0] in shown}, words)
        kinds = {kind for kind, _ in found_requirements}
        _markdown_table_marks(composed, version,
                              {k for k in _table_marks(ops, composed, first, adjusted, wide_apart=True)[0] if k[0] in kinds},
                              {k for k, v in found_adjustments.items() if v})
        _origins_are_the_live_operations(composed, expected, ops, data.draw(configs(composed, version=version)), folder,
                                         appended, version, adjusted)
        _resolve_and_check_agree(composed, expected, ops, first)
        # Each statement an operation appends that is not appended is recorded (matrix check says
        # those of an operation that changes something else).
        for op, (_, _, body), found in zip(composed.overlay.operations, ops, appended):
            assert [r for r, _, _ in op.dropped] == [r for r in body.get("append", {}) if r not in found]
        # Each operation is a no-op exactly when the matrix without it, by hand and without the
        # provenance words, equals the matrix with it.
        for index, op in enumerate(composed.overlay.operations):
            before_doc, before_runners = _plain(upstream_doc, runners, ops[:index])
            after_doc, after_runners = _plain(upstream_doc, runners, ops[:index + 1])
            try:
                before = matrix.loads(_toml(before_doc), runners=before_runners, path="x.toml")
            except LoadError:
                continue
            try:
                after = matrix.loads(_toml(after_doc), runners=after_runners, path="x.toml")
            except LoadError:
                assert not op.noop
                continue
            assert op.noop == (_comparable(before) == _comparable(after)), (op, ops[index])
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def _origins_are_the_live_operations(composed, expected, ops, config, folder, appended, version, adjusted):  # noqa: C901 — one reference per origin and report role
    """explain()'s origins and the report's places, against the operations written: a runner's
    place in choice is said by each live operation on it (an owned choice ranks the runners of
    its order and removes the others; choice = false removes; a candidate or its unset sets its
    candidacy; a priority sets it; adding adds), a blocker's origin is the last live operation
    that set its cell (a change of the cell, the feature added, or the runner added from another:
    "copied from", except where the feature forces that one), and a report rule points at the
    operation that decided it (a cell: its change or the feature added; a prefers or forces: the
    change that wrote it or the feature added; a candidacy: the choice or change that set it, or
    the runner added; an order: its change), else at upstream's file (features.toml, or the
    runner's file: a runner made from another, that one's). A statement appended to a cell sets
    it from its since on: at *version* before it, the cell is what it was appended to."""
    live = [(table, id, dict(body, appended=a, adjusted=j), op)
            for (table, id, body), op, a, j in zip(ops, composed.overlay.operations, appended, adjusted) if not op.noop]

    def said(verb, op):
        return f"{verb} by overlay '{op.overlay}' ({op.file}:{op.line}): r"

    def sets_cell(table, id, body, feature, runner):
        support = body.get("support", {})
        since = body["appended"].get(runner)
        return (table == "add-features" and id == feature) or (table == "features" and id == feature and (
            "*" in support or runner in support or runner in body.get("lift", []) + body.get("block", [])
            or (since is not None and Version(since) <= Version(version))))

    def cell_op(feature, runner):
        found = None
        for table, id, body, op in live:
            if sets_cell(table, id, body, feature, runner):
                found = op
        return found

    def sets_requirement(table, id, body, gate, runner):
        owner, _, rest = gate.partition(":")  # a requirement's gate: RUNNER:KIND, or RUNNER:KIND:N
        kind = rest.partition(":")[0]
        return table == "runners" and id == runner == owner and bool(rest) and (
            kind in body.get("requires", {}) or f"requires.{kind}" in body.get("unset", []))

    def sets_wide(table, id, gate):  # a matrix-wide requirement's gate: *:KIND, or *:KIND:N
        owner, _, rest = gate.partition(":")
        return table == "requires" and owner == "*" and rest.partition(":")[0] == id

    def blocker_origin(feature, runner):
        found = None
        for table, id, body, op in live:
            if sets_requirement(table, id, body, feature, runner) or sets_wide(table, id, feature):
                found = said("blocked", op)
            if table == "add-runners" and id == runner and "from" in body:
                forces = expected.feature(feature).forces if feature in {f.id for f in expected.features} else None
                forced = forces is not None and forces.runner == body["from"]
                found = said("blocked" if forced else f"copied from {body['from']}", op)
            elif sets_cell(table, id, body, feature, runner):
                found = said("added" if table == "add-features" else "blocked", op)
        return found

    def sets_candidacy(table, id, body, runner):
        return ((table == "choice" and runner not in body["order"])
                or (table == "runners" and id == runner and ("choice" in body or "candidate" in body
                                                             or "candidate" in body.get("unset", [])))
                or (table == "add-runners" and id == runner and "from" not in body))

    def candidacy_op(runner):
        found = None
        for table, id, body, op in live:
            if sets_candidacy(table, id, body, runner):
                found = op
        return found

    def feature_op(feature, key):
        found = None
        for table, id, body, op in live:
            if id == feature and (table == "add-features" or (table == "features" and key in body)):
                found = op
        return found

    def base(runner):
        for table, id, body, _op in live:
            if table == "add-runners" and id == runner and "from" in body:
                return body["from"]
        return runner

    try:
        resolution = composed.resolve(config, version=version)
    except matrix.ResolutionError as error:
        resolution = error.resolution
    verbs = ("ranked by", "removed from choice by", "candidacy set by", "priority set by", "added by")
    for entry in resolution.explanation()["runners"]:
        runner = entry["id"]
        origin = []
        for table, id, body, op in live:
            if table == "choice":
                origin.append(said("ranked" if runner in body["order"] else "removed from choice", op))
            elif table == "runners" and id == runner:
                if "choice" in body:
                    origin.append(said("removed from choice", op))
                elif "candidate" in body or "candidate" in body.get("unset", []):
                    origin.append(said("candidacy set", op))
                if "priority" in body:
                    origin.append(said("priority set", op))
            elif table == "add-runners" and id == runner:
                origin.append(said("added", op))
        assert [o for o in entry["origin"] if o.startswith(verbs)] == origin
        for blocker in entry["blockers"]:
            assert blocker["origin"] == blocker_origin(blocker["id"], runner)

    def adjustment_op(id):  # the last live operation that added or changed the adjustment
        return next((o for t, i, _, o in reversed(live) if t in ("add-adjustments", "adjustments") and i == id), None)

    def adjustment_origin(id, runner):  # that, or a later runner made from one it names: "copied from R"
        found = None
        for table, target, body, op in live:
            if table in ("add-adjustments", "adjustments") and target == id:
                found = said("added" if op.kind == "add-adjustment" else "changed", op)
            elif table == "add-runners" and target == runner and id in body["adjusted"]:
                found = said(f"copied from {body['from']}", op)
        return found
    # And where a runner made from another is asked for, on a config for each adjustment.
    from matrix.testing import _gate_sweep

    asked = [] if not any(t == "add-runners" and b["adjusted"] for t, _, b, _ in live) else [
        (config, id) for config in _gate_sweep(composed, composed.schema, Version(version))
        for t, id, b, _ in live if t == "add-runners" and b["adjusted"]]
    for explained in [resolution, *(_resolution(composed, c, runner=r, version=version) for c, r in asked)]:
        for entry in [] if explained is None else explained.explanation()["adjustments"]:
            assert entry.get("origin") == adjustment_origin(entry["id"], entry["runner"])
    upstream = folder / "upstream"
    features_file = str(upstream / "features.toml")
    for rule in resolution.report()["why"]:
        if rule["role"] == "blocks" and rule["kind"] == "feature":
            op, file = cell_op(rule["id"], rule["runner"]), features_file
        elif rule["role"] == "blocks" and rule["kind"] == "requirement" and rule["id"].startswith("*:"):
            op = next((o for t, i, _, o in reversed(live) if sets_wide(t, i, rule["id"])), None)
            file = features_file  # matrix-wide: upstream's [requires], or the overlay's change of it
        elif rule["role"] == "blocks" and rule["kind"] == "requirement":
            op = next((o for t, i, b, o in reversed(live) if sets_requirement(t, i, b, rule["id"], rule["runner"])), None)
            file = str(upstream / "runners" / f"{base(rule['runner'])}.toml")
        elif rule["role"] == "not-a-candidate":
            op, file = candidacy_op(rule["runner"]), str(upstream / "runners" / f"{base(rule['runner'])}.toml")
        elif rule["role"] == "prefers":
            op, file = feature_op(rule["id"], "prefers"), features_file
        elif rule["role"] in ("forbids", "overrides"):
            op, file = feature_op(rule["id"], "forces"), features_file
        elif rule["role"] == "adjusts":
            op, file = adjustment_op(rule["id"]), features_file
            origin = adjustment_origin(rule["id"], rule["runner"])
            assert rule["origin"] == ([] if origin is None else [origin])
        elif rule["role"] == "orders":
            op, file = next(
                (o for t, i, _, o in reversed(live) if t == "orders" and i == rule["id"]), None), features_file
        else:
            continue
        assert rule["file"] == (file if op is None else op.file), rule
        if op is not None:
            assert rule["line"] == op.line


def test_check_ignore_entries_are_the_ones_loaded_not_the_files_as_they_are_later(tmp_path):
    """A composed matrix's ``[check] ignore`` entries (upstream's, then each overlay's of the
    chain) are read from the texts the loader read: an edit, a removal or a broken file after the
    load changes nothing (they were read from disk again, and a broken file raised)."""
    from matrix import _ignore

    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 1\n')
    upstream = tmp_path / "features.toml"
    upstream.write_text('[matrix]\nname = "m"\nversion = "1.0"\n\n[config]\n"x" = { type = "int", default = 0 }\n\n'
                        '[features.f]\nname = "F"\nwhen = "x > 1"\nsupport = { a = "yes" }\n\n'
                        '[check]\nignore = [{ code = "never-chosen", gate = "a", reason = "upstream" }]\n')
    first = _overlay(tmp_path, '[overlay]\nname = "q"\nextends = "features.toml"\n\n'
                               '[check]\nignore = [{ code = "always-active", reason = "q" }]\n', "q.toml")
    second = _overlay(tmp_path, '[overlay]\nname = "p"\nextends = "q.toml"\n\n'
                                '[check]\nignore = [{ code = "never-active", gate = "f", reason = "p" }]\n', "p.toml")
    m = matrix.load(second)

    def entries():
        return [(e.file, e.code, e.gate, e.reason, e.index) for e in _ignore.entries(m)]

    loaded = [(str(upstream), "never-chosen", "a", "upstream", 0), (first, "always-active", None, "q", 0),
              (second, "never-active", "f", "p", 0)]
    assert entries() == loaded
    upstream.write_text(upstream.read_text().replace('"upstream"', '"edited"'))
    pathlib.Path(first).unlink()
    pathlib.Path(second).write_text("[check\n")
    assert entries() == loaded


def _resolve_and_check_agree(composed, expected, ops, first):
    """resolve over the small config space (a config for each gate and pair of gates, one per
    field and literal, and the empty one) and matrix check's findings: the composed matrix's are
    the hand-written one's, but that a runner the overlay removes from choice (its last live
    operation on the runner's candidacy is an owned choice that leaves it out, or choice = false)
    is the note overlay-out-of-choice with the overlay's reason, not never-candidate."""
    from matrix import _ignore
    from matrix.testing import _gate_sweep, _sweep

    def outcome(m, config):
        try:
            r = m.resolve(config)
        except matrix.ResolutionError as error:
            r = error.resolution
            return type(error).__name__, r.runner, [w.kind for w in r.warnings], [f.id for f in r.active]
        except matrix.errors.ConfigError as error:  # the sweep's config may leave out a field without default
            return "ConfigError", str(error)
        return (None, r.runner, [w.kind for w in r.warnings], [f.id for f in r.active],
                [(a.id, a.runner, a.path, a.after) for a in r.adjustments])

    space = [{}, *_gate_sweep(expected, expected.schema, expected.version), *_sweep(expected.schema, [0, 1, "a", ""], set())]
    for config in space:
        assert outcome(composed, config) == outcome(expected, config), config
    removed = {}
    for index, ((table, id, body), op) in enumerate(zip(ops, composed.overlay.operations)):
        if op.noop:
            continue
        overlay = "q" if index < first else "p"
        if table == "choice":
            removed.update({r.id: None for r in composed.runners if r.id in body["order"]})
            removed.update({r.id: overlay for r in composed.runners if r.id not in body["order"]})
        elif table == "runners" and ("choice" in body or "candidate" in body or "candidate" in body.get("unset", [])):
            removed[id] = overlay if "choice" in body else None
        elif table == "add-runners":
            removed[id] = None

    findings = {"composed": list(check.iter_findings(composed)), "expected": list(check.iter_findings(expected))}

    def seen(m):
        return [(f.code, f.severity, f.message, f.feature, f.runner, f.place, f.features) for f in findings[m]
                if f.code not in ("overlay-noop", "overlay-dangling", "overlay-ended")]

    def ignoring(m, name):
        """The findings [check] ignore entries ignore, each with its entry, and the entries that
        ignore none (each said ignore-unused)."""
        report, ignored = _ignore.apply(m, check.Report(tuple(findings[name]), False))
        return ([(f.code, f.feature, f.runner, f.place, f.features, e.code, e.gate) for f, e in ignored],
                [f.message for f in report.findings if f.code == "ignore-unused"])
    assert ignoring(composed, "composed") == ignoring(expected, "expected")
    hand = []
    for code, severity, message, feature, runner, place, gates in seen("expected"):
        if code == "no-runner":
            message = _removed_in_words(message, gates, removed, {r.id: r.name for r in composed.runners})
        hand.append((code, severity, message, feature, runner, place, gates))
    # The hand-written matrix says candidate = "False" for a runner out of choice, of which check
    # says nothing (asked for only, as the file says); the composed matrix says the note
    # overlay-out-of-choice with the overlay's reason, one per runner, in their order (but for a
    # runner whose requirements check could not decide: inconclusive is said instead, on both).
    said = seen("composed")
    assert [f for f in said if f[0] != "overlay-out-of-choice"] == hand
    notes = [(f[4], f[1], f[2]) for f in said if f[0] == "overlay-out-of-choice"]
    expected = [(r.id, "note", f"{r.name} is never a candidate: removed from choice by overlay '{removed[r.id]}': r")
                for r in composed.runners if removed.get(r.id)]
    assert [n for n in expected if n in notes] == notes  # each said of a runner out of choice, in order
    undecided = {f[4] for f in said if f[0] == "inconclusive"}
    assert [n for n in expected if n[0] not in undecided and n not in notes] == []  # said where check decided


def _removed_in_words(message, gates, removed, names):
    """A no-runner *message* of the hand-written matrix as the composed matrix says it: each
    gate of a runner out of choice (``RUNNER:not-candidate``, in *gates*: the finding's gates in
    the order its message names them) said "removed from choice by overlay 'O': r" where
    *removed* names the overlay O that removed that runner. The gates are matched to their words
    by id and position, one after the other: two runners may have one name (a runner made
    ``from`` another without its own name), and which overlay removed each is its id's."""
    out, at = [], 0
    for gate in gates:
        runner, _, what = gate.partition(":")
        if what != "not-candidate":
            continue
        words = f"{names[runner]} not being a candidate"
        start = message.index(words, at)
        out.append(message[at:start])
        at = start + len(words)
        out.append(f"{names[runner]} removed from choice by overlay '{removed[runner]}': r"
                   if removed.get(runner) else words)
    return "".join(out) + message[at:]


def _add_words(docs, words):
    """End the note of each cell in *words* (and of each step of its history) with its words:
    what a copied cell's note adds, the words of the overlay that copied it (a removed feature's
    cells say removed, no note)."""
    for f in docs["features"]:
        for r, c in f["support"].items():
            if (f["id"], r) in words and c["status"] != "removed":
                w, before = words[(f["id"], r)]
                for step in [c, *c["history"]]:  # before a statement appended to the copy: its own words
                    if before is None or step["since"] is None or Version(step["since"]) < before:
                        step["note"] = f"{step['note']}; {w}" if step["note"] else w


def _marks(ops, operations, runners, first, upstream_doc, upstream_runners, appended, version):
    """(feature, runner) → the overlay ("q" for the *first* operations, else "p") of the last
    operation that set the cell and changed something: what the docs mark (a feature added:
    each of its cells; a runner added from another: each cell it copied, where that one had a
    cell or the feature forces it); and (feature, runner) → the words such a copied cell's note
    adds: "copied from R by overlay 'p': r", or where the feature forces R, "set by p: r". A
    statement appended (*appended*: each operation's) sets its cell at *version* from its since on."""
    marks, words = {}, {}
    for index, ((table, id, body), op) in enumerate(zip(ops, operations)):
        if op.noop:
            continue
        overlay = "q" if index < first else "p"
        if table in ("features", "add-features"):
            support = body.get("support", {})
            every = table == "add-features" or "*" in support
            since = [r for r, v in appended[index].items() if Version(v) <= version]
            replaced = [*(runners if every else support), *body.get("lift", []), *body.get("block", [])]
            for runner in [*replaced, *since]:
                marks[(id, runner)] = overlay
                if runner in replaced or (id, runner) not in words:
                    words.pop((id, runner), None)
                else:  # a statement appended to a copied cell: the statements before it keep the copy's words
                    w, before = words[(id, runner)]
                    at = Version(appended[index][runner])
                    words[(id, runner)] = (w, at if before is None else min(before, at))
        elif table == "add-runners" and "from" in body:
            base = body["from"]
            doc, _ = _hand_merged(upstream_doc, upstream_runners, ops[:index], first)
            for feature, table_ in doc.get("features", {}).items():
                forced = table_.get("forces", {}).get("runner") == base
                if forced or base in table_.get("support", {}):
                    marks[(feature, id)] = overlay
                    words[(feature, id)] = (f"set by {overlay}: r" if forced
                                            else f"copied from {base} by overlay '{overlay}': r", None)
    return marks, words


def _table_marks(ops, composed, first, adjusted, wide_apart=False):
    """(requirement kind, runner) → the overlay ("q" for the *first* operations, else "p") of
    the last live operation that set that cell of the capability table (a change of the runner
    writing or unsetting its entry of the kind; a change of the kind's matrix-wide entry, every
    runner's cell; the runner added, where it has an entry of its own of the kind), and
    adjustment id → that of the last that added or changed the adjustment, or added a runner
    from one it names (*adjusted*)."""
    requirements, adjustments = {}, {}
    for index, ((table, id, body), op) in enumerate(zip(ops, composed.overlay.operations)):
        if op.noop:
            continue
        overlay = "q" if index < first else "p"
        if table == "runners":
            named = [*body.get("requires", {}), *(k[len("requires."):] for k in body.get("unset", []) if "." in k)]
            requirements.update({(kind, id): overlay for kind in named})
        elif table == "requires" and wide_apart:  # the Markdown table says it once, under Every runner
            requirements[(id, "*")] = overlay
        elif table == "requires":
            requirements.update({(id, r.id): overlay for r in composed.runners})
        elif table == "add-runners":
            requirements.update({(c.kind, id): overlay for c in composed.runner(id).requires})
            adjustments.update({a: overlay for a in adjusted[index]})
        elif table in ("add-adjustments", "adjustments"):
            adjustments[id] = overlay
    return requirements, adjustments


def _markdown_table_marks(composed, version, requirements, adjustments):
    """The Markdown capability table marks 🧩 exactly the cells in *requirements* (rows by the
    kind's name, cells by the runners' order), and the adjustments table exactly the rows of
    *adjustments*, each with the mark's legend where it marks any."""
    from matrix.render import render

    page = render(composed, tables=("capabilities", "adjustments"), version=version)
    runners = [r.id for r in composed.runners]
    if "| Every runner |" in page:  # a matrix with matrix-wide requirements says each once, first
        runners = ["*", *runners]
    kinds = {k.name: k.id for k in composed.requirement_kinds}
    found, rows = set(), set()
    for line in page.splitlines():
        columns = line.split(" | ")
        if line.startswith("| ") and columns[0][2:] in kinds and len(columns) == len(runners) + 2:
            found |= {(kinds[columns[0][2:]], r) for r, cell in zip(runners, columns[1:-1]) if cell.endswith(" 🧩")}
        elif line.startswith("| `") and len(columns) == 9 and columns[1].endswith(" 🧩"):
            rows.add(columns[0][3:-1])
    assert (found, rows) == (requirements, adjustments), page
    legend = "Legend: 🧩 overlay: set by an overlay (its reason is in the table “What this platform changes”)"
    assert page.count(legend) == bool(requirements) + bool(adjustments), page


def _markdown_marks(composed, version, marks, words):
    """The Markdown support table marks 🧩 exactly the cells in *marks* (the rows by the feature's
    name, the cells by the runners' order), and the footnote of each copied cell in *words* says
    its words ("copied from R by overlay 'p': r", or "set by …" where the feature forces R)."""
    from matrix.render import render

    page = render(composed, tables=("support",), version=version)
    notes = dict(re.findall(r"^\[\^(\d+)\]: (.*)$", page, re.M))
    names = {f.name: f.id for f in composed.features}
    runners = [r.id for r in composed.runners]
    found, cells = set(), {}
    for line in page.splitlines():
        columns = line.split(" | ")
        if not line.startswith("| ") or len(columns) != len(runners) + 3 or not columns[1].startswith("`"):
            continue
        name = re.sub(r" \[\^\d+\]$", "", columns[0][2:])
        feature = names[re.sub(r"^\[(.*)\]\(<[^>]*>\)$", r"\1", name)]  # a feature with links: its name links the first
        for runner, cell in zip(runners, columns[2:-1]):
            cells[(feature, runner)] = cell
            if cell.endswith(" 🧩"):
                found.add((feature, runner))
    assert found == {k for k in marks if k in cells}, page
    for key, (said, _before) in words.items():
        if key in found:
            assert any(said in notes[n] for n in re.findall(r"\[\^(\d+)\]", cells[key])), (key, said, page)


def _plain(features_doc, runners_doc, ops):
    """The hand merge without the provenance words."""
    global WORDS
    saved, WORDS = WORDS, None
    try:
        doc, runners = _hand_merged(features_doc, runners_doc, ops)
    finally:
        WORDS = saved

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if not (k in ("note", "description", "doc") and v is None)}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value
    return clean(doc), clean(runners)



# --- a statement appended to a cell's history -----------------------------------------------

NGRAM = {"speculative_config": {"method": "ngram"}}


def test_a_statement_appended_to_a_history_holds_from_its_since_and_is_the_overlays_from_then(tmp_path):
    from matrix.render import render
    from matrix.schema import Statement

    path = _overlay(tmp_path, """\
        [overlay]
        name = "npu"
        extends = "default"

        [change.features.spec_ngram]
        append.v2 = { status = "no", since = "0.34.0", note = "the NPU drafter" }
        why = "the NPU drafter lacks ngram from 0.34.0"
        link = "https://example.com/2"
        """)
    m = matrix.load(path)
    words = "set by npu: the NPU drafter lacks ngram from 0.34.0 (https://example.com/2)"
    assert m.feature("spec_ngram").support["v2"] == (
        *matrix.load().feature("spec_ngram").support["v2"], Statement("no", f"the NPU drafter; {words}", (), Version("0.34.0")))
    (op,) = m.overlay.operations
    assert (op.keys, op.appends, op.noop) == (("append.v2",), (("v2", "0.34.0"),), False)
    # Before its since, the cell is upstream's: V2 serves, and no origin names the overlay.
    before = m.resolve(NGRAM)
    assert before.runner == "v2"
    assert [e.get("origin") for e in before.explanation()["runners"]] == [[], []]
    after = m.resolve(NGRAM, version="0.34.0")
    assert after.runner == "v1"
    (blocker,) = after.explanation()["runners"][0]["blockers"]
    assert blocker["origin"] == (f"blocked by overlay 'npu' ({path}:5): the NPU drafter lacks ngram from 0.34.0 "
                                 "(https://example.com/2)")
    (rule,) = [r for r in after.report()["why"] if r["role"] == "blocks"]
    assert (rule["file"], rule["line"]) == (path, 5)
    # The docs mark the cell from its since on; the overlay table says what it changes.
    for version, mark in (("0.33.0", None), ("0.34.0", "npu")):
        data = json.loads(render(m, format="json", version=version, tables=("support", "overlay")))
        (cell,) = [f["support"]["v2"] for f in data["features"] if f["id"] == "spec_ngram"]
        assert cell["overlay"] == mark
        assert data["overlay"]["operations"][0]["keys"] == ["append.v2"]
    assert (cell["status"], cell["note"], [s["since"] for s in cell["history"]]) == (
        "no", f"the NPU drafter; {words}", [None, "0.32.0", "0.34.0"])


def test_a_statement_appended_after_another_overlays_appends_to_its_history_and_each_is_the_origin_from_its_since(tmp_path):
    _overlay(tmp_path, """\
        [overlay]
        name = "a"
        extends = "default"

        [change.features.spec_ngram]
        append.v2 = { status = "no", since = "0.34.0" }
        why = "a's drafter"
        """, "a.toml")
    path = _overlay(tmp_path, """\
        [overlay]
        name = "b"
        extends = "a.toml"
        after = ["a"]

        [change.features.spec_ngram]
        append.v2 = { status = "yes", since = "0.35.0" }
        why = "b's drafter"
        """)
    m = matrix.load(path)
    assert [(s.status, s.note, str(s.since)) for s in m.feature("spec_ngram").support["v2"]] == [
        ("no", None, "None"), ("yes", None, "0.32.0"), ("no", "set by a: a's drafter", "0.34.0"),
        ("yes", "set by b: b's drafter", "0.35.0")]
    blocked = m.resolve(NGRAM, version="0.34.0").explanation()["runners"][0]
    assert blocked["blockers"][0]["origin"] == f"blocked by overlay 'a' ({tmp_path / 'a.toml'}:5): a's drafter"
    served = m.resolve(NGRAM, version="0.35.0").explanation()["runners"][0]
    assert (served["id"], served["blockers"], served["origin"]) == (
        "v2", [], [f"speculative method 'ngram': lifted by overlay 'b' ({path}:6): b's drafter"])


def test_a_statement_appended_to_a_cell_left_to_the_default_follows_the_default(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r1.toml").write_text('name = "R1"\npriority = 2\n')
    (tmp_path / "runners" / "r2.toml").write_text('name = "R2"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "up"\nversion = "1.0"\n\n[config]\n"b" = { type = "bool", default = false }\n\n'
        '[features.g]\nname = "g"\nwhen = "b"\nsupport = { default = { status = "yes", since = "0.5" }, r2 = "no" }\n')
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "features.toml"

        [change.features.g]
        append.r1 = { status = "no", since = "1.0" }
        why = "r1 stops serving g"
        """)
    assert [(s.status, str(s.since)) for s in matrix.load(path).feature("g").support["r1"]] == [("yes", "0.5"), ("no", "1.0")]
    (tmp_path / "overlay.toml").write_text((tmp_path / "overlay.toml").read_text().replace('"1.0" }', '"0.4" }'))
    with pytest.raises(LoadError) as excinfo:
        matrix.load(path)
    assert str(excinfo.value) == (
        f"{path}: 1 problem\n  {path}:6:30: $.change.features.g.append.r1.since: The statement appended to the cell "
        "of 'r1' does not come after the cell's last statement, 'yes' from '0.5': since '0.4' is not after '0.5'")


# --- a runner's requirement entries, by kind ------------------------------------------------

def _requiring_upstream(folder):
    (folder / "runners").mkdir()
    (folder / "features.toml").write_text(
        '[matrix]\nname = "up"\nversion = "1.0"\n\n[config]\n"h" = { type = "int", default = 64 }\n\n'
        '[requirements]\nhead = { name = "Head sizes", reason = "head size not supported" }\n'
        'block = { name = "Blocks", reason = "block not supported" }\n\n'
        '[features.g]\nname = "g"\nwhen = "h == 0"\nsupport = { r1 = "yes", r2 = "yes" }\n')
    (folder / "runners" / "r1.toml").write_text('name = "R1"\npriority = 2\n\n[requires]\nhead = "h in [64, 128]"\n')
    (folder / "runners" / "r2.toml").write_text('name = "R2"\npriority = 1\n')


def test_a_requirement_entry_is_replaced_or_removed_by_its_kind_and_explain_names_the_overlay(tmp_path):
    _requiring_upstream(tmp_path)
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "features.toml"

        [change.runners.r1]
        requires.head = { condition = "h in [64, 128, 256]", reason = "the NPU kernel takes 64, 128 and 256" }
        why = "the NPU kernel takes 256 too"

        [change.runners.r2]
        unset = ["requires.block"]
        why = "r2 has no block requirement to remove"
        upstream = ">=1.0"
        """)
    m = matrix.load(path)
    (requirement,) = m.runner("r1").requires
    assert (str(requirement.condition), requirement.reason) == ("h in [64, 128, 256]", "the NPU kernel takes 64, 128 and 256")
    assert m.resolve({"h": 256}).runner == "r1"
    refused = m.resolve({"h": 512})
    (blocker,) = refused.explanation()["runners"][0]["blockers"]
    assert blocker["origin"] == f"blocked by overlay 'p' ({path}:5): the NPU kernel takes 256 too"
    (rule,) = [r for r in refused.report()["why"] if r["kind"] == "requirement"]
    assert (rule["file"], rule["line"]) == (path, 5)
    assert [o.keys for o in m.overlay.operations] == [("requires.head",), ("requires.block",)]
    assert _findings(m) == [f"{path}:9:1: warning[overlay-noop]: Overlay operation change-runner on 'r2' changes "
                            "nothing: upstream already says the same"]
    # Removed by its kind: r1 then serves every head size.
    (tmp_path / "overlay.toml").write_text(textwrap.dedent("""\
        [overlay]
        name = "p"
        extends = "features.toml"

        [change.runners.r1]
        unset = ["requires.head"]
        why = "the NPU kernel takes every head size"
        """))
    m = matrix.load(path)
    assert (m.runner("r1").requires, m.resolve({"h": 512}).runner) == ((), "r1")


def test_a_change_of_a_requirement_kind_gone_upstream_is_dangling_in_its_window(tmp_path):
    _requiring_upstream(tmp_path)
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "features.toml"

        [change.runners.r1]
        requires.dtype = "h > 0"
        why = "a kind upstream 0.9 declared"
        upstream = "<1.0"
        """)
    m = matrix.load(path)
    assert m.runner("r1").requires == matrix.load(tmp_path / "features.toml").runner("r1").requires
    assert _findings(m) == [
        f"{path}:5:1: warning[overlay-dangling]: Overlay operation change-runner on 'r1' is dangling: upstream 1.0 "
        "has no such id, and the operation is written for upstream '<1.0'"]


def test_a_cell_the_feature_leaves_to_its_default_is_what_a_lift_to_the_same_status_says(tmp_path):
    # Found by the random test: upstream's `support.default = "yes"` says yes for r1 already.
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r1.toml").write_text('name = "R1"\npriority = 2\n')
    (tmp_path / "runners" / "r2.toml").write_text('name = "R2"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "up"\nversion = "1.0"\n\n[config]\n"b" = { type = "bool", default = false }\n\n'
        '[features.g]\nname = "g"\nwhen = "b"\nsupport = { default = "yes", r2 = "no" }\n')
    path = _overlay(tmp_path, """\
        [overlay]
        extends = "features.toml"

        [change.features.g]
        lift = ["r1"]
        why = "r1 serves g"
        """)
    assert _findings(matrix.load(path)) == [
        f"{path}:4:1: warning[overlay-noop]: Overlay operation change-feature on 'g' changes nothing: upstream "
        "already says the same"]


def test_explain_says_the_reason_of_a_blocker_the_overlay_added_and_the_record_keeps_its_place(tmp_path):
    path = _overlay(tmp_path, """\
        [overlay]
        extends = "default"
        name = "p"

        [change.features.spec_ngram]
        block = ["v2"]
        why = "the NPU drafter lacks ngram"
        link = "https://example.com/1"
        """)
    m = matrix.load(path)
    text = m.resolve({"speculative_config": {"method": "ngram"}}).explain()
    assert text.splitlines()[3:9] == [
        "    - speculative method 'ngram' [no]",
        "        when: speculative_config.method == 'ngram'",
        "        because: speculative_config.method = 'ngram'",
        "        note: set by p: the NPU drafter lacks ngram (https://example.com/1)",
        f"        origin: blocked by overlay 'p' ({path}:5): the NPU drafter lacks ngram (https://example.com/1)",
        "  v1 (Model Runner V1, priority 10): no blockers, chosen",
    ]
    (op,) = m.overlay.changes("spec_ngram")
    assert (op.kind, op.file, op.line, op.why, op.link, op.noop) == (
        "change-feature", path, 5, "the NPU drafter lacks ngram", "https://example.com/1", False)


# --- several overlays: a chain in a stated order --------------------------------------------

_FIRST = """\
    [overlay]
    name = "a"
    extends = "default"

    [change.features.spec_ngram]
    block = ["v2"]
    why = "A blocks ngram"
    """


def _second(after):
    return f"""\
    [overlay]
    name = "b"
    extends = "a.toml"
    {after}

    [change.features.spec_ngram]
    lift = ["v2"]
    why = "B lifts ngram"
    """


def test_an_overlay_extends_an_overlay_and_applies_after_it_when_it_says_so(tmp_path):
    first = _overlay(tmp_path, _FIRST, "a.toml")
    second = _overlay(tmp_path, _second('after = ["a"]'), "b.toml")
    m = matrix.load(second)
    assert [(o.overlay, o.file, o.line, o.keys) for o in m.overlay.operations] == [
        ("a", first, 5, ("support.v2",)), ("b", second, 6, ("support.v2",))]
    assert (m.name, m.overlay.extends) == ("b", "a")
    assert m.resolve({"speculative_config": {"method": "ngram"}}).runner == "v2"
    assert matrix.load(first).resolve({"speculative_config": {"method": "ngram"}}).runner == "v1"


def test_two_overlays_changing_the_same_cell_are_a_load_error_naming_both_places(tmp_path):
    first = _overlay(tmp_path, _FIRST, "a.toml")
    second = _overlay(tmp_path, _second(""), "b.toml")
    with pytest.raises(LoadError) as excinfo:
        matrix.load(second)
    assert excinfo.value.problems[0].message == (
        f"Overlays 'b' ({second}:6) and 'a' ({first}:5) both change support.v2 of 'spec_ngram' "
        "(change-feature): say after = ['a'] in [overlay] of 'b' to apply it after 'a'")
    assert len(excinfo.value.problems) == 1


def test_after_names_an_overlay_of_the_chain_with_did_you_mean(tmp_path):
    _overlay(tmp_path, _FIRST, "a.toml")
    second = _overlay(tmp_path, _second('after = ["A"]'), "b.toml")
    with pytest.raises(LoadError) as excinfo:
        matrix.load(second)
    assert [p.message for p in excinfo.value.problems][0] == (
        "after names 'A', which does not apply before this overlay, did you mean 'a'")


# --- origin: which overlay operation an answer depends on -----------------------------------

def test_explain_names_the_overlay_that_removed_a_runner_from_choice_and_upstream_says_no_origin():
    m = matrix.load(str(OPENVINO))
    resolution = m.resolve({})
    said = ("removed from choice by overlay 'vLLM model runners on OpenVINO' "
            f"({OPENVINO}:10): The OpenVINO plugin cannot ship Triton, which Model Runner V2 needs "
            "(https://github.com/vllm-project/vllm/issues/57684)")
    assert resolution.explain().splitlines()[2:4] == [
        "  v2 (Model Runner V2, priority 20): not a candidate (removed from choice by overlay 'vLLM model runners on "
        "OpenVINO': The OpenVINO plugin cannot ship Triton, which Model Runner V2 needs)",
        f"    origin: {said}"]
    assert [r["origin"] for r in resolution.explanation()["runners"]] == [[said], []]
    assert ["origin" in r for r in matrix.default().resolve({}).explanation()["runners"]] == [False, False]


def test_explain_names_the_overlay_that_blocked_a_cell_and_the_last_of_a_chain_that_set_it(tmp_path):
    first = _overlay(tmp_path, _FIRST, "a.toml")
    text = matrix.load(first).resolve({"speculative_config": {"method": "ngram"}}).explain()
    assert text.splitlines()[7] == f"        origin: blocked by overlay 'a' ({first}:5): A blocks ngram"
    second = _overlay(tmp_path, _second('after = ["a"]').replace('lift = ["v2"]', 'support = { v2 = "no" }'),
                      "b.toml")
    explained = matrix.load(second).resolve({"speculative_config": {"method": "ngram"}}).explanation()
    assert [[b["origin"] for b in r["blockers"]] for r in explained["runners"]] == [
        [f"blocked by overlay 'b' ({second}:6): B lifts ngram"], []]


def test_explain_names_the_owned_choice_and_the_lift_the_ascend_overlay_decided_by():
    m = matrix.load(str(ASCEND))
    (choice,) = m.overlay.changes("choice")
    (lift,) = m.overlay.changes("pp_external_launcher")
    ranked = (f"ranked by overlay 'vLLM model runners on Ascend NPU' ({ASCEND}:{choice.line}): {choice.why} "
              f"({choice.link})")
    lifted = (f"pipeline parallelism with external_launcher: lifted by overlay 'vLLM model runners on Ascend NPU' "
              f"({ASCEND}:{lift.line}): {lift.why} ({lift.link})")
    explained = m.resolve(PP_EXTERNAL).explanation()
    assert [(r["id"], r["origin"]) for r in explained["runners"]] == [("v2", [ranked, lifted]), ("v1", [ranked])]
    assert (choice.line, lift.line) == (15, 20)



def test_a_runner_an_owned_choice_ranks_keeps_its_own_candidacy_and_is_not_said_removed_by_it(tmp_path):
    # v2 ranked by the owned choice, then removed by its own change: each operation said as what it did.
    path = _overlay(tmp_path, """\
        [overlay]
        name = "o"
        extends = "default"

        [overlay.choice]
        order = ["v2", "v1"]
        why = "owns"

        [change.runners.v2]
        choice = false
        why = "no triton"
        """)
    m = matrix.load(path)
    assert [(op.kind, op.removes) for op in m.overlay.operations] == [("own-choice", ()), ("change-runner", ("v2",))]
    assert [r["origin"] for r in m.resolve({}).explanation()["runners"]] == [
        [f"ranked by overlay 'o' ({path}:5): owns", f"removed from choice by overlay 'o' ({path}:9): no triton"],
        [f"ranked by overlay 'o' ({path}:5): owns"]]
    # v2 left out of the owned choice, then given a candidacy again: removed, then set, and a candidate.
    again = _overlay(tmp_path, """\
        [overlay]
        name = "o"
        extends = "default"

        [overlay.choice]
        order = ["v1"]
        why = "owns"

        [change.runners.v2]
        candidate = "True"
        why = "back"
        """, "again.toml")
    explained = matrix.load(again).resolve({}).explanation()["runners"]
    assert [(r["id"], r["candidate"], r["origin"]) for r in explained] == [
        ("v1", True, [f"ranked by overlay 'o' ({again}:5): owns"]),
        ("v2", True, [f"removed from choice by overlay 'o' ({again}:5): owns", f"candidacy set by overlay 'o' ({again}:9): back"])]
    # A runner out of choice upstream that the owned choice ranks: upstream's, not the overlay's.
    upstream = tmp_path / "up"
    _write_upstream(upstream, '[matrix]\nname = "u"\nversion = "1.0.0"\n',
                    {"a": {"name": "A", "priority": 2, "candidate": "False"}, "b": {"name": "B", "priority": 1}})
    ranked = _overlay(tmp_path, """\
        [overlay]
        name = "o"
        extends = "up/features.toml"

        [overlay.choice]
        order = ["a", "b"]
        why = "owns"
        """, "ranked.toml")
    resolution = matrix.load(ranked).resolve({})
    assert resolution.explain().splitlines()[2:4] == [
        "  a (A, priority 20): not a candidate (asked for only: candidate = False)",
        f"    origin: ranked by overlay 'o' ({ranked}:5): owns"]


# --- line numbers: a finding on an upstream feature points at upstream's line ---------------

def _line_of(path, header):
    return pathlib.Path(path).read_text().splitlines().index(header) + 1


def test_check_findings_on_upstream_features_of_a_composed_matrix_point_at_the_upstream_line():
    m = matrix.load(str(ASCEND))
    upstream = m.overlay.upstream_file
    assert [(f.code, f.feature, f.file, f.line, f.column) for f in check.iter_findings(m)] == [
        ("no-runner", "prefill_context_parallel", upstream, _line_of(upstream, "[features.prefill_context_parallel]"), 1),
        ("no-runner", "dspark", upstream, _line_of(upstream, "[features.dspark]"), 1)]


def test_a_finding_on_a_feature_the_overlay_changes_points_at_its_change(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r1.toml").write_text('name = "R1"\npriority = 2\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "up"\nversion = "1.0"\n\n[config]\n"b" = { type = "bool", default = false }\n\n'
        '[features.g]\nname = "g"\nwhen = "b"\nsupport = { r1 = "yes" }\n')
    path = _overlay(tmp_path, """\
        [overlay]
        extends = "features.toml"

        [change.features.g]
        block = ["r1"]
        why = "r1 cannot"
        """)
    assert [(f.code, f.file, f.line) for f in check.iter_findings(matrix.load(path))
            if not f.code.startswith("overlay-")] == [
        ("no-yes", str(tmp_path / "runners" / "r1.toml"), 1), ("no-runner", path, 4)]


def _upstream_and_overlay(tmp_path):
    """An upstream whose check says findings at its features.toml's lines and a runner file's
    key, and an overlay (its path) with a finding at its own line."""
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r1.toml").write_text('name = "R1"\npriority = 2\n\naliases = [\n  { id = "old", since = "0.5" },\n]\n')
    (tmp_path / "runners" / "r2.toml").write_text('name = "R2"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "up"\nversion = "1.0"\n\n[config]\n"b" = { type = "bool", default = false }\n\n'
        '[features.g]\nname = "g"\nwhen = "b"\nsupport = { r1 = "no", r2 = "yes" }\n\n'
        '[features.h]\nname = "h"\nwhen = "b"\nsupport = { r1 = "yes", r2 = "no" }\n\n'
        '[features.k]\nname = "k"\nwhen = "not b"\nsupport = { r1 = "no", r2 = "no" }\n')
    path = _overlay(tmp_path, """\
        [overlay]
        extends = "features.toml"

        [change.features.g]
        block = ["r2"]
        why = "r2 cannot"
        """)
    return path


def test_a_finding_of_a_composed_matrix_points_where_the_load_read_the_files_edited_or_removed_since(tmp_path):
    # Where a finding stands is read from the texts the load read (Overlay.upstream_texts): an
    # upstream features.toml, runner file or overlay edited or removed after the load neither
    # moves a finding nor raises (Where read upstream's files from disk again).
    path = _upstream_and_overlay(tmp_path)
    m = matrix.load(path)
    upstream, r1, r2 = (str(tmp_path / name) for name in ("features.toml", "runners/r1.toml", "runners/r2.toml"))
    expected = [("implied-contradiction", upstream, 13, 1), ("alias-no-removal-version", r1, 5, 3),
                ("never-chosen", r1, 1, 1), ("no-yes", r2, 1, 1), ("never-chosen", r2, 1, 1),
                ("no-runner", path, 4, 1), ("no-runner", upstream, 18, 1)]

    def found():
        return [(f.code, f.file, f.line, f.column) for f in check.iter_findings(m) if not f.code.startswith("overlay-")]
    assert found() == expected
    for file in (upstream, r1, path):
        pathlib.Path(file).write_text("\n\n\n" + pathlib.Path(file).read_text())
    assert found() == expected
    for file in (upstream, r1, r2, path):
        pathlib.Path(file).unlink()
    assert found() == expected


def test_a_finding_of_an_overlay_read_from_git_points_at_that_revisions_lines(tmp_path, monkeypatch):
    # Upstream's files at REV are read with git show, never files on disk: their lines were lost
    # (the upstream feature's finding was said at the overlay, without a line; the runner's at 1:1).
    import subprocess

    _upstream_and_overlay(tmp_path)
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "m"]):
        subprocess.run(["git", *command], check=True, cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    assert run(["check", "--matrix", "HEAD:overlay.toml"], stdout=out, stderr=out) == 0
    assert [tuple(line.split(" ")[:2]) for line in out.getvalue().splitlines() if not line.startswith(" ")] == [
        ("HEAD:overlay.toml:4:1:", "note[no-runner]:"),
        ("HEAD:features.toml:13:1:", "warning[implied-contradiction]:"),
        ("HEAD:features.toml:18:1:", "note[no-runner]:"),
        ("HEAD:runners/r1.toml:1:1:", "warning[never-chosen]:"),
        ("HEAD:runners/r1.toml:5:3:", "warning[alias-no-removal-version]:"),
        ("HEAD:runners/r2.toml:1:1:", "warning[never-chosen]:"),
        ("HEAD:runners/r2.toml:1:1:", "warning[no-yes]:"),
        ("HEAD:overlay.toml:", "passed:")]


def test_a_problem_in_a_composed_runner_table_points_at_the_overlay_line_that_wrote_it(tmp_path):
    path = _overlay(tmp_path, """\
        [overlay]
        name = "c"
        extends = "default"

        [change.runners.v2]
        priority = "high"
        why = "V2 first"
        """)
    with pytest.raises(LoadError) as excinfo:
        matrix.load(path)
    assert [(p.file, p.line, p.column, p.message) for p in excinfo.value.problems if p.place == "$.priority"] == [
        (path, 6, 1, "Expected an integer, got a string 'high'")]


def test_report_why_names_the_overlay_that_removed_a_runner_from_choice_and_validates():
    import jsonschema

    from matrix import _report

    report = matrix.load(str(OPENVINO)).resolve({}).report()
    assert [(r["role"], r["runner"], r["origin"]) for r in report["why"]] == [
        ("not-a-candidate", "v2", ["removed from choice by overlay 'vLLM model runners on OpenVINO' "
                                   f"({OPENVINO}:10): The OpenVINO plugin cannot ship Triton, which Model Runner V2 "
                                   "needs (https://github.com/vllm-project/vllm/issues/57684)"])]
    jsonschema.validate(report, _report.json_schema())
    upstream = matrix.default().resolve(PP_EXTERNAL).report()["why"]
    assert [r["role"] for r in upstream] == ["blocks"] and all("origin" not in r for r in upstream)



def test_report_why_points_upstream_rules_at_upstream_and_the_overlays_at_the_overlay(tmp_path):
    path = _overlay(tmp_path, """\
        [overlay]
        extends = "default"
        name = "p"

        [change.features.spec_ngram]
        block = ["v2"]
        why = "the NPU drafter lacks ngram"

        [change.features.pp_external_launcher]
        note = "a note of the overlay's: the cells stay upstream's"
        why = "notes"
        """)
    m = matrix.load(path)
    config = dict(PP_EXTERNAL, speculative_config={"method": "ngram"})
    (upstream_rule,) = matrix.default().resolve(PP_EXTERNAL).report()["why"]
    upstream = m.overlay.upstream_file
    assert [(r["id"], r["file"], r["line"], r["place"]) for r in m.resolve(config).report()["why"]] == [
        ("pp_external_launcher", upstream, upstream_rule["line"], "$.features.pp_external_launcher.when"),
        ("spec_ngram", path, 5, "$.features.spec_ngram.when")]
    # A runner the overlay removes from choice: its change; one it adds: its table; a runner made
    # from V2 blocked by V2's cell: upstream's line, as upstream's V2.
    npu = matrix.load(None, overlays=[str(NPU)])
    suffix = {"model_config": {"architecture": "Qwen3ForCausalLM"}, "speculative_config": {"method": "suffix"}}
    (upstream_suffix,) = matrix.default().resolve(suffix).report()["why"][:1]
    assert [(r["id"], r["file"], r["line"]) for r in npu.resolve(suffix).report()["why"]] == [
        ("spec_suffix", npu.overlay.upstream_file, upstream_suffix["line"]), ("v2:candidate", str(NPU), 30)]
    assert [(r["id"], r["file"], r["line"]) for r in npu.resolve({}).report()["why"]] == [
        ("npu:candidate", str(NPU), 19), ("v2:candidate", str(NPU), 30)]



def test_a_runner_made_from_v2_says_each_copied_cell_and_adjustment_came_from_v2():
    m = matrix.load(None, overlays=[str(NPU)])
    (added,) = m.overlay.changes("npu")
    said = f"by overlay 'vllm-npu' ({NPU}:19): {added.why} ({added.link})"
    suffix = {"model_config": {"architecture": "Qwen3ForCausalLM"}, "speculative_config": {"method": "suffix"}}
    (npu, v2, v1) = m.resolve(suffix).explanation()["runners"]
    assert ([b["origin"] for b in npu["blockers"]], [b["origin"] for b in v2["blockers"]]) == (
        [f"copied from v2 {said}"], [None])
    assert m.resolve(suffix).report()["why"][0]["origin"] == [f"copied from v2 {said}"]
    # "as v2, except …": v2's adjustments adjust the NPU runner too.
    assert [(a.id, a.runners) for a in m.adjustments if "v2" in a.runners] == [
        ("stock_compile_cudagraphs", ("v2", "npu")), ("draft_max_model_len", ("v2", "npu"))]
    stock = {"model_config": {"architecture": "Qwen3ForCausalLM"},
             "compilation_config": {"mode": "STOCK_TORCH_COMPILE", "cudagraph_mode": "FULL"}}
    resolution = m.resolve(stock)
    assert (resolution.runner, [(a.id, a.path, a.before, a.after, a.runner) for a in resolution.adjustments]) == (
        "npu", [("stock_compile_cudagraphs", "compilation_config.cudagraph_mode", "FULL", "NONE", "npu")])
    # ... and explain() and the report say where the NPU runner's came from; V2's is upstream's own.
    (adjusts,) = [r for r in resolution.report()["why"] if r["role"] == "adjusts"]
    assert ([a["origin"] for a in resolution.explanation()["adjustments"]], adjusts["origin"], adjusts["line"]) == (
        [f"copied from v2 {said}"], [f"copied from v2 {said}"], _line_of(matrix.loader._default_file(), "[adjustments.stock_compile_cudagraphs]") + 2)  # its when, upstream's
    assert "origin" not in m.resolve(stock, runner="v2").explanation()["adjustments"][0]
    lines = resolution.explain().splitlines()
    assert lines[lines.index("Adjustments:") + 1:][:2] == [
        "  - stock_compile_cudagraphs (for npu): compilation_config.cudagraph_mode = 'FULL' -> 'NONE', overriding the "
        "config's value", f"    origin: copied from v2 {said}"]


# --- a list of overlays: matrix.load(upstream, overlays=[…]) and --overlay ----------------------

def test_a_list_of_overlays_applies_in_its_order_each_extending_upstream(tmp_path):
    first = _overlay(tmp_path, _FIRST, "a.toml")
    second = _overlay(tmp_path, _second('after = ["a"]').replace('"a.toml"', '"vLLM model runners"'), "b.toml")
    ngram = {"speculative_config": {"method": "ngram"}}
    m = matrix.load(None, overlays=[first, second])
    assert [(o.overlay, o.file, o.line, o.keys) for o in m.overlay.operations] == [
        ("a", first, 5, ("support.v2",)), ("b", second, 6, ("support.v2",))]
    assert (m.name, m.resolve(ngram).runner) == ("b", "v2")
    assert matrix.load(None, overlays=[first]).resolve(ngram).runner == "v1"
    # The list is the order: b first, then a (which does not say after) changes the same cell.
    with pytest.raises(LoadError) as excinfo:
        matrix.load(None, overlays=[second, first])
    assert excinfo.exconly() == (
        f"matrix.errors.LoadError: {second}: 1 problem\n"
        f"  {second}:4:1: $.overlay.after: after = ['a'] names no overlay: none applies before this one")
    # An empty list is upstream; upstream given by its file is the same matrix.
    assert matrix.load(None, overlays=[]) is matrix.default()
    assert _comparable(matrix.load(ROOT / "features.toml", [first])) == _comparable(matrix.load(first))


def test_an_overlay_of_a_list_extends_the_matrix_it_is_loaded_over(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r.toml").write_text('name = "R"\npriority = 1\n')
    (tmp_path / "features.toml").write_text('[matrix]\nname = "other"\nversion = "1.0"\n')
    first = _overlay(tmp_path, _FIRST, "a.toml")
    with pytest.raises(LoadError) as excinfo:
        matrix.load(tmp_path / "features.toml", overlays=[first])
    assert excinfo.exconly() == (
        f"matrix.errors.LoadError: {first}: 1 problem\n"
        f"  {first}:3:1: $.overlay.extends: The overlay extends 'default', and it is loaded over 'other': an "
        "overlay of a list extends the upstream matrix, or an overlay before it in the list")


def test_the_cli_takes_overlay_files_in_order_for_resolve_check_and_docs(tmp_path):
    first = _overlay(tmp_path, _FIRST, "a.toml")
    second = _overlay(tmp_path, _second('after = ["a"]').replace('"a.toml"', '"default"'), "b.toml")

    def cli(*args):
        out, err = io.StringIO(), io.StringIO()
        return run(list(args), stdout=out, stderr=err), out.getvalue(), err.getvalue()
    over = ("--matrix", "default", "--overlay", first, "--overlay", second)
    assert cli("resolve", *over, "--set", "speculative_config.method=ngram") == (0, (
        "Chose v2 (Model Runner V2) automatically at version 0.33.0\n"), "")
    assert cli("resolve", "--matrix", "default", "--overlay", first, "--set", "speculative_config.method=ngram")[1] == (
        "Chose v1 (Model Runner V1) automatically at version 0.33.0\n"
        "Skipped v2 (Model Runner V2) because of: speculative method 'ngram'\n"
        "Warning (fallback): Model Runner V2 does not yet support speculative method 'ngram'; using the V1 model "
        "runner instead.\n")
    status, out, _ = cli("check", *over, "--format", "json")
    assert status == 0 and json.loads(out)["matrix"] == "b"
    status, out, _ = cli("docs", *over, "--table", "support", "--format", "json")
    assert status == 0 and json.loads(out)["matrix"] == "b"
    # The editor's schema of the composed matrix: its name, and a support cell of each runner, the added one too.
    status, out, _ = cli("schema", "--json-schema", "--matrix", "default", "--overlay", str(NPU))
    schema = json.loads(out)
    assert (status, schema["title"], list(schema["properties"]["features"]["additionalProperties"]["properties"][
        "support"]["properties"])) == (0, "features.toml of a support matrix: vllm-npu", ["npu", "v2", "v1", "default"])
    assert cli("check", "features.toml", "--overlay", first) == (
        2, "", "matrix: error: " + matrix.cli._messages.check_files_and_matrix() + "\n")


# --- installed overlays: the entry-point group matrix.overlays --------------------------------

NPU_PACKAGE = ROOT / "examples" / "npu-overlay"
NPU = NPU_PACKAGE / "vllm_npu_matrix" / "overlay.toml"
QWEN3 = {"model_config": {"architecture": "Qwen3ForCausalLM"}}
#: The host's line of the README's overlay section (run by the slow test in a new environment).
HOST = "import matrix; print(matrix.load(installed=True).resolve({'model_config': {'architecture': 'Qwen3ForCausalLM'}}).runner)"


def _installed(tmp_path, monkeypatch, entries):
    """A distribution on sys.path (its .dist-info as pip writes it) declaring *entries* in
    matrix.overlays, with the example's package beside it."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(NPU_PACKAGE / "vllm_npu_matrix", site / "vllm_npu_matrix")
    info = site / "vllm_npu_matrix-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm-npu-matrix\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[matrix.overlays]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv("MATRIX_REFUSE_OVERLAYS", raising=False)
    return site


def test_an_installed_overlay_adjusts_the_matrix_a_host_loads_only_when_it_asks(tmp_path, monkeypatch):
    site = _installed(tmp_path, monkeypatch, {"vllm-npu": "vllm_npu_matrix"})
    file = str(site / "vllm_npu_matrix" / "overlay.toml")
    listed = matrix.installed_overlays()
    assert [attrs.astuple(o) for o in listed] == [
        ("vllm-npu", "vllm_npu_matrix", "vllm-npu-matrix 0.1.0", file, "vLLM model runners", "vllm-npu", (), False)]
    assert matrix.load().resolve(QWEN3).runner == "v2"  # not asked: upstream's
    composed = matrix.load(installed=True)
    assert (composed.name, composed.resolve(QWEN3).runner) == ("vllm-npu", "npu")
    assert [o.file for o in composed.overlay.operations] == [file] * 8
    assert "vllm_npu_matrix" not in __import__("sys").modules  # found by its spec, not imported
    # A host refuses by name (or "*"), or its environment does.
    assert matrix.load(installed=True, refuse=["vllm-npu"]).resolve(QWEN3).runner == "v2"
    assert matrix.load(installed=True, refuse=["*"]).overlay is None
    monkeypatch.setenv("MATRIX_REFUSE_OVERLAYS", " vllm-npu,")
    assert matrix.load(installed=True).resolve(QWEN3).runner == "v2"
    assert matrix.installed_overlays()[0].refused
    out = io.StringIO()
    assert run(["overlays", "--matrix", "default"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == "vllm-npu from vllm-npu-matrix 0.1.0: refused (MATRIX_REFUSE_OVERLAYS or refuse=), not read\n"
    monkeypatch.delenv("MATRIX_REFUSE_OVERLAYS")
    out = io.StringIO()
    assert run(["resolve", "--matrix", "default", "--installed-overlays", "--set",
                "model_config.architecture=Qwen3ForCausalLM"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == "Chose npu (NPU model runner) automatically at version 0.33.0\n"



def test_an_overlay_given_and_installed_too_is_applied_once(tmp_path, monkeypatch):
    site = _installed(tmp_path, monkeypatch, {"vllm-npu": "vllm_npu_matrix"})
    file = site / "vllm_npu_matrix" / "overlay.toml"
    # The installed file itself, its copy in the source tree, given explicitly: once, no conflict.
    for explicit in (file, NPU):
        composed = matrix.load(None, [explicit], installed=True)
        assert ([o.file for o in composed.overlay.operations], composed.resolve(QWEN3).runner) == (
            [str(explicit)] * 8, "npu")
    out = io.StringIO()
    assert run(["resolve", "--matrix", "default", "--overlay", str(NPU), "--installed-overlays", "--set",
                "model_config.architecture=Qwen3ForCausalLM"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == "Chose npu (NPU model runner) automatically at version 0.33.0\n"
    # Another version of it (a different text) is another overlay: the conflict stands.
    edited = tmp_path / "edited.toml"
    edited.write_text(NPU.read_text().replace('name = "vllm-npu"', 'name = "vllm-npu-dev"'))
    with pytest.raises(LoadError) as excinfo:
        matrix.load(None, [edited], installed=True)
    assert [(p.file, p.line, p.message) for p in excinfo.value.problems] == [
        (str(file), 10, "Upstream has [config] field 'platform.is_npu' already: an overlay adds fields, it does not change them"),
        (str(file), 19, "Upstream has runner 'npu' already: change it under [change.runners.npu]"),
        *((str(file), line, f"Upstream has refusal {id!r} already: an overlay adds refusals, it does not change them")
          for line, id in ((49, "v1_only_with_v2_only_off_the_allowlist"), (59, "v2_only_off_the_allowlist"),
                           (70, "forced_v2_on_the_npu")))]


def test_an_installed_overlay_of_another_matrix_is_not_listed_and_a_missing_one_is_a_load_error(tmp_path, monkeypatch):
    site = _installed(tmp_path, monkeypatch, {"vllm-npu": "vllm_npu_matrix", "gone": "no_such_module"})
    other = tmp_path / "other"
    (other / "runners").mkdir(parents=True)
    (other / "runners" / "r.toml").write_text('name = "R"\npriority = 1\n')
    (other / "features.toml").write_text('[matrix]\nname = "other"\nversion = "1.0"\n')
    with pytest.raises(LoadError) as excinfo:
        matrix.installed_overlays(other / "features.toml")
    assert excinfo.exconly() == (
        "matrix.errors.LoadError: entry point 'gone' = 'no_such_module' (matrix.overlays): 1 problem\n"
        "  entry point 'gone' = 'no_such_module' (matrix.overlays): $: The installed overlay cannot be found: "
        "ImportError: no_such_module")
    (site / "vllm_npu_matrix-0.1.0.dist-info" / "entry_points.txt").write_text("[matrix.overlays]\nvllm-npu = vllm_npu_matrix\n")
    assert matrix.installed_overlays(other / "features.toml") == ()
    out = io.StringIO()
    assert run(["overlays", "--matrix", str(other / "features.toml")], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == "No installed package declares an overlay of 'other' (entry points matrix.overlays)\n"



@pytest.mark.parametrize("extends, message", [
    ("../nowhere/features.toml", "Upstream features.toml '../nowhere/features.toml' does not exist next to {file}"),
    ("chain.toml", "The installed overlay 'vllm-npu' extends the overlay file 'chain.toml': an installed overlay "
                   "extends its upstream matrix (by name or by a path to its features.toml); give the chain with "
                   "overlays=[…] or --overlay instead")])
def test_an_installed_overlay_whose_extends_is_a_path_to_no_matrix_is_said_not_skipped(tmp_path, monkeypatch,
                                                                                     extends, message):
    site = _installed(tmp_path, monkeypatch, {"vllm-npu": "vllm_npu_matrix"})
    file = site / "vllm_npu_matrix" / "overlay.toml"
    (file.parent / "chain.toml").write_text('[overlay]\nname = "base"\nextends = "default"\n')
    file.write_text(file.read_text().replace('extends = "vLLM model runners"', f'extends = "{extends}"'))
    for ask in (matrix.installed_overlays, lambda: matrix.load(installed=True)):
        with pytest.raises(LoadError) as excinfo:
            ask()
        assert [(p.file, p.line, p.column, p.message) for p in excinfo.value.problems] == [
            (str(file), 7, 1, message.format(file=file))]
    # A path to upstream's own features.toml is upstream: listed and applied.
    file.write_text(file.read_text().replace(f'extends = "{extends}"',
                                             f'extends = "{matrix.loader._default_file()}"'))
    assert [o.name for o in matrix.installed_overlays()] == ["vllm-npu"]
    assert matrix.load(installed=True).resolve(QWEN3).runner == "npu"



def test_a_refused_name_no_installed_overlay_has_is_a_warning_with_did_you_mean(tmp_path, monkeypatch):
    _installed(tmp_path, monkeypatch, {"vllm-npu": "vllm_npu_matrix"})
    with pytest.warns(UserWarning) as caught:
        composed = matrix.load(installed=True, refuse=["vllm-nup"])
    assert [str(w.message) for w in caught] == [
        "refuse= refuses 'vllm-nup', which no installed package declares in matrix.overlays, did you mean "
        "'vllm-npu' (installed: 'vllm-npu')"]
    assert composed.resolve(QWEN3).runner == "npu"  # the slip refused nothing: said, not silent
    assert (caught[0].filename, caught[0].lineno) == (__file__, _line_of(__file__, '        composed = matrix.load(installed=True, refuse=["vllm-nup"])'))  # the user's line
    monkeypatch.setenv("MATRIX_REFUSE_OVERLAYS", "vllm_npu, vllm-npu")
    with pytest.warns(UserWarning) as caught:
        assert matrix.load(installed=True).resolve(QWEN3).runner == "v2"
    assert caught[0].filename == __file__
    assert [str(w.message) for w in caught] == [
        "MATRIX_REFUSE_OVERLAYS refuses 'vllm_npu', which no installed package declares in matrix.overlays, "
        "did you mean 'vllm-npu' (installed: 'vllm-npu')"]


def test_a_refused_overlay_is_not_read_and_a_broken_one_is_a_load_error(tmp_path, monkeypatch):
    # Review: a refused overlay was read (a broken one broke its host whatever it refused), a
    # TOML error escaped as tomllib's own, and refuse="name" refused its characters.
    site = _installed(tmp_path, monkeypatch, {"vllm-npu": "vllm_npu_matrix"})
    assert matrix.load(installed=True, refuse="vllm-npu").resolve(QWEN3).runner == "v2"
    overlay = site / "vllm_npu_matrix" / "overlay.toml"
    overlay.write_text("[overlay\n")
    assert matrix.load(installed=True, refuse=["vllm-npu"]).overlay is None
    monkeypatch.setenv("MATRIX_REFUSE_OVERLAYS", "*")
    assert [o.refused for o in matrix.installed_overlays()] == [True]
    monkeypatch.delenv("MATRIX_REFUSE_OVERLAYS")
    with pytest.raises(LoadError) as excinfo:
        matrix.load(installed=True)
    assert excinfo.value.problems[0].file == str(overlay) and excinfo.value.problems[0].line == 1


def test_import_and_resolve_read_no_entry_points():
    # Cold start (issue 31): entry points are read only when the host asks for installed overlays.
    import subprocess
    import sys

    code = ("import sys, matrix; matrix.resolve({}); matrix.load().resolve({}); "
            "print(sorted(m for m in sys.modules if m in ('importlib.metadata', 'matrix._overlay_installed')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


@pytest.mark.slow
def test_the_npu_plugin_installed_with_pip_changes_the_hosts_resolve(tmp_path):
    import subprocess
    import sysconfig
    import venv

    venv.create(tmp_path / "env", with_pip=True)
    python = str(tmp_path / "env" / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # The host (matrix and its dependencies) is this interpreter's: a .pth puts it on the new path.
    pathlib.Path(site, "host.pth").write_text(sysconfig.get_path("purelib") + "\n" + str(ROOT) + "\n")
    host = HOST
    assert subprocess.run([python, "-c", host], capture_output=True, text=True, check=True).stdout == "v2\n"
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(NPU_PACKAGE)], check=True,
                   capture_output=True)
    assert subprocess.run([python, "-c", host], capture_output=True, text=True, check=True).stdout == "npu\n"
    listed = subprocess.run([python, "-m", "matrix", "overlays", "--matrix", "default"], capture_output=True,
                            text=True, check=True).stdout
    assert listed == (f"vllm-npu: 'vllm-npu' from vllm-npu-matrix 0.1.0, {site}/vllm_npu_matrix/overlay.toml, "
                      "extends 'vLLM model runners'\n")
    refused = subprocess.run([python, "-c", host], capture_output=True, text=True, check=True,
                             env={**__import__("os").environ, "MATRIX_REFUSE_OVERLAYS": "vllm-npu"}).stdout
    assert refused == "v2\n"


# --- the NPU plugin's overlay (examples/npu-overlay) ----------------------------------------

NPU_PP = {**QWEN3, **PP_EXTERNAL}
NO_TRITON = {"platform.has_triton": False}


def test_the_npu_overlay_chooses_its_runner_for_allowlisted_architectures_and_says_why_v2_is_out():
    m = matrix.load(None, [NPU])
    assert [(r.id, r.priority, str(r.candidate)) for r in m.runners] == [
        ("npu", 30, str(m.runners[0].candidate)), ("v2", 20, "not platform.is_npu"), ("v1", 10, "None")]
    assert str(m.runners[0].candidate).startswith("platform.is_npu and model_config.architecture in [")
    assert m.resolve({}, facts=NO_TRITON).runner == "v1"  # not an allowlisted architecture
    assert m.resolve(NPU_PP, facts=NO_TRITON).runner == "npu"
    assert matrix.load().resolve(NPU_PP, facts=NO_TRITON).runner == "v1"
    assert m.resolve({}, runner="v2").runner == "v2"  # asked for by name, it still serves
    # Off the NPU (the plugin installed on a GPU machine) upstream's choice stands: V2 for what
    # upstream gives V2, whatever the architecture (choice = false removed it there too).
    off = {"platform.is_npu": False}
    for config in ({}, QWEN3, {"parallel_config": {"prefill_context_parallel_size": 2}}):
        assert (m.resolve(config, facts=off).runner, matrix.load().resolve(config).runner) == ("v2", "v2")
    assert m.resolve(NPU_PP, facts={**off, **NO_TRITON}).runner == "v1"
    assert [f.code for f in check.iter_findings(m) if f.code in ("never-candidate", "overlay-out-of-choice")] == []
    assert _findings(m) == []


def test_explain_on_the_npu_overlay_names_the_overlay_for_every_decision_it_made():
    m = matrix.load(None, [NPU])
    explained = m.resolve(NPU_PP, facts=NO_TRITON).explanation()
    at = f"overlay 'vllm-npu' ({NPU}"
    origins = {r["id"]: r.get("origin") for r in explained["runners"]}
    assert origins == {
        "npu": [f"added by {at}:19): vllm-ascend enables V2 on the NPU for an allowlist of verified architectures "
                "(https://github.com/vllm-project/vllm-ascend/pull/16626)",
                f"pipeline parallelism with external_launcher: lifted by {at}:42): The NPU runner serves pipeline "
                "parallelism with external_launcher (https://github.com/vllm-project/vllm-ascend/pull/16626)",
                f"missing Triton: lifted by {at}:35): The NPU runner runs on the NPU's own kernels, not Triton"],
        "v2": [f"candidacy set by {at}:30): The NPU has no Triton, which upstream's Model Runner V2 needs "
               "(https://github.com/vllm-project/vllm-ascend/pull/11389)"],
        "v1": []}
    # Every live operation but the added field (a fact, which decides nothing itself) and the
    # added refusals (which only matrix check reads) is named.
    named = {int(o.split(f"{NPU}:")[1].split(")")[0]) for r in origins.values() for o in r}
    assert named == {o.line for o in m.overlay.operations if o.kind not in ("add-field", "add-refusal")}
    assert "  v2 (Model Runner V2, priority 20): not a candidate (a candidate when not platform.is_npu), blocked by " \
           "2 features\n    origin: candidacy set by overlay 'vllm-npu'" in m.resolve(NPU_PP, facts=NO_TRITON).explain()


def _upstream_copy(tmp_path, edit):
    upstream = tmp_path / "upstream"
    (upstream / "runners").mkdir(parents=True, exist_ok=True)
    (upstream / "features.toml").write_text(edit((ROOT / "features.toml").read_text()))
    for runner in ("v1", "v2"):
        (upstream / "runners" / f"{runner}.toml").write_text((ROOT / "runners" / f"{runner}.toml").read_text())
    return upstream / "features.toml"


def test_renaming_a_feature_upstream_does_not_change_what_the_npu_overlay_does(tmp_path):
    renamed = _upstream_copy(tmp_path, lambda t: t.replace(
        'name = "pipeline parallelism with external_launcher"', 'name = "PP with the external launcher"'))
    m = matrix.load(renamed, [NPU])
    assert m.feature("pp_external_launcher").name == "PP with the external launcher"
    assert m.resolve(NPU_PP, facts=NO_TRITON).runner == "npu"
    baseline = matrix.load(None, [NPU])
    assert [(o.kind, o.target, o.keys, o.noop) for o in m.overlay.operations] == [
        (o.kind, o.target, o.keys, o.noop) for o in baseline.overlay.operations]


def test_deleting_a_feature_id_upstream_makes_the_npu_operation_a_load_error_or_dangling_in_its_window(tmp_path):
    gone = _upstream_copy(tmp_path, lambda t: re.sub(r"\bpp_external_launcher\b", "pp_external_launch", t))
    with pytest.raises(LoadError) as excinfo:
        matrix.load(gone, [NPU])
    assert excinfo.exconly() == (
        f"matrix.errors.LoadError: {NPU}: 1 problem\n"
        f"  {NPU}:42:1: $.change.features.pp_external_launcher: Upstream has no feature 'pp_external_launcher', "
        "did you mean 'pp_external_launch'")
    # Written for the releases before 0.33 (which had the id), the operation dangles instead.
    # (A refusal has no window: the example's, which name the id, are left out here.)
    windowed = _overlay(tmp_path, NPU.read_text().partition("\n# The configs no runner serves")[0].replace(
        'link = "https://github.com/vllm-project/vllm-ascend/pull/16626"\n',
        'link = "https://github.com/vllm-project/vllm-ascend/pull/16626"\nupstream = "<0.33"\n', 2)
        .replace('targets = ">=0.33.0,<0.34"', 'targets = ">=0.32"'), "npu.toml")
    m = matrix.load(gone, [windowed])
    assert m.resolve(NPU_PP, facts=NO_TRITON).runner == "v1"
    assert _findings(m) == [
        f"{windowed}:43:1: warning[overlay-dangling]: Overlay operation change-feature on 'pp_external_launcher' is "
        "dangling: upstream 0.33.0 has no such id, and the operation is written for upstream '<0.33'"]


# --- the docs of a composed matrix: each cell an overlay set marked, and its changes alone ------

def test_the_docs_page_of_the_npu_example_is_current_and_marks_every_cell_and_adjustment_the_overlay_set():
    from matrix.render import render

    m = matrix.load(None, [NPU.relative_to(ROOT)])
    page = (ROOT / "docs" / "npu-overlay.md").read_text()
    begin, end = page.index("<!-- matrix:begin -->\n"), page.index("<!-- matrix:end -->")
    assert page[begin + len("<!-- matrix:begin -->\n"):end].strip("\n") == render(
        m, tables=("support", "adjustments", "overlay")).strip("\n")
    rows = {line.split(" | ")[0].lstrip("| ").split(" [^")[0]: line.split(" | ")[2:5]
            for line in page.splitlines() if line.startswith("| ") and line.split(" | ")[1].startswith("`")}
    marked = sorted((name, m.runners[i].id) for name, cells in rows.items() for i, c in enumerate(cells) if "🧩" in c)
    # Every NPU cell is the overlay's: two it set, the rest copied from V2 (a removed feature's
    # cells say removed, and are not marked).
    shown = sorted((name, "npu") for name, cells in rows.items() if "removed" not in cells[0])
    assert (marked, len(marked)) == (shown, 35)
    assert [name for name, cells in rows.items() if "[^1]" in cells[0]] == [
        name for name, cells in rows.items() if "removed" not in cells[0] and name not in (
            "missing Triton", "pipeline parallelism with external\\_launcher", "watermarking", "HiSparse")]
    assert ("[^1]: copied from v2 by overlay 'vllm-npu': vllm-ascend enables V2 on the NPU for an allowlist of "
            "verified architectures (https://github.com/vllm-project/vllm-ascend/pull/16626)\n") in page
    assert (rows["watermarking"][0], rows["HiSparse"][0]) == ("❌ no [^11] 🧩",) * 2  # they force V2
    assert ("[^11]: set by vllm-npu: vllm-ascend enables V2 on the NPU for an allowlist of verified architectures "
            "(https://github.com/vllm-project/vllm-ascend/pull/16626)\n") in page
    assert "· 🧩 overlay: set by an overlay (its reason is in the cell's note)\n" in page
    # The adjustments the NPU runner got from V2 (they name V2): marked, the reason in the overlay table.
    assert [line.split(" | ")[:3] for line in page.splitlines() if line.startswith("| `")] == [
        ["| `mamba_cache_align`", "Mamba cache mode follows prefix caching (on)", "every config, before the choice"],
        ["| `mamba_cache_none`", "Mamba cache mode follows prefix caching (off)", "every config, before the choice"],
        ["| `stock_compile_cudagraphs`", "CUDA graphs off under stock torch.compile 🧩",
         "NPU model runner, Model Runner V2"],
        ["| `draft_max_model_len`", "max\\_model\\_len lowered to the draft model's 🧩", "NPU model runner, Model Runner V2"]]
    assert "Legend: 🧩 overlay: set by an overlay (its reason is in the table “What this platform changes”)\n" in page
    assert ("| vllm-npu | changes the runner | `v2` | `candidate` | The NPU has no Triton, which upstream's Model "
            "Runner V2 needs ([link](<https://github.com/vllm-project/vllm-ascend/pull/11389>)) | "
            "`examples/npu-overlay/vllm_npu_matrix/overlay.toml:30` |  |\n") in page


def test_the_json_docs_of_a_composed_matrix_name_the_overlay_of_each_cell_and_its_operations():
    import jsonschema

    from matrix.render import TABLES, json_schema, render

    data = json.loads(render(matrix.load(None, [NPU]), format="json", tables=TABLES))
    jsonschema.validate(data, json_schema())
    cells = {(f["id"], r): c["overlay"] for f in data["features"] for r, c in f["support"].items() if c["overlay"]}
    # Each NPU cell of a feature in force: the two the overlay set, and every one copied from V2.
    assert cells == {(f["id"], "npu"): "vllm-npu" for f in data["features"] if f["support"]["npu"]["status"] != "removed"}
    assert len(cells) == 35 and all(r == "npu" for _, r in cells)
    assert [(o["kind"], o["target"], o["keys"], o["state"]) for o in data["overlay"]["operations"]] == [
        ("add-field", "platform.is_npu", [], ""), ("add-runner", "npu", ["candidate", "name", "priority"], ""),
        ("change-feature", "missing_triton_detected", ["support.npu"], ""),
        ("change-feature", "pp_external_launcher", ["support.npu"], ""), ("change-runner", "v2", ["candidate"], ""),
        ("add-refusal", "v1_only_with_v2_only_off_the_allowlist", [], ""),
        ("add-refusal", "v2_only_off_the_allowlist", [], ""), ("add-refusal", "forced_v2_on_the_npu", [], "")]
    assert (data["overlay"]["extends"], data["overlay"]["version"]) == ("vLLM model runners", "0.33.0")
    # The adjustments the NPU runner got from V2 name the overlay that made it (V2's name it too).
    assert [(a["id"], a["runners"], a["overlay"]) for a in data["adjustments"]] == [
        ("mamba_cache_align", [], None), ("mamba_cache_none", [], None),
        ("stock_compile_cudagraphs", ["npu", "v2"], "vllm-npu"), ("draft_max_model_len", ["npu", "v2"], "vllm-npu")]
    # Upstream's docs have neither key, and no overlay table.
    upstream = json.loads(render(matrix.load(), format="json", tables=TABLES))
    assert "overlay" not in upstream and all("overlay" not in c for f in upstream["features"] for c in f["support"].values())
    assert all("overlay" not in a for a in upstream["adjustments"])


# --- operations on adjustments ---------------------------------------------------------------

_ADJUSTING = """\
    [overlay]
    name = "p"
    extends = "default"

    [adjustments.npu_len]
    name = "NPU max_model_len"
    when = "model_config.max_model_len is not None and model_config.max_model_len > 4096"
    set = { "model_config.max_model_len" = 4096 }
    message = "The NPU caps max_model_len at 4096"
    why = "The NPU has a small KV cache"

    [change.adjustments.draft_max_model_len]
    runners = ["v1", "v2"]
    why = "V1 lowers it too on the NPU"

    [change.adjustments.stock_compile_cudagraphs]
    remove = true
    why = "The NPU's stock compile keeps its graphs"

    [change.adjustments.mamba_cache_align]
    level = "info"
    why = "upstream says info already"

    [change.adjustments.gone_adjustment]
    level = "info"
    why = "an adjustment of older upstreams"
    upstream = "<0.33"
    """


def test_an_overlay_adds_changes_and_removes_adjustments_by_id_and_explain_names_it(tmp_path):
    path = _overlay(tmp_path, _ADJUSTING)
    m = matrix.load(path)
    upstream = matrix.load()
    assert [(a.id, a.runners) for a in m.adjustments] == [
        ("mamba_cache_align", ()), ("mamba_cache_none", ()), ("draft_max_model_len", ("v1", "v2")), ("npu_len", ())]
    assert [a for a in m.adjustments if a.id != "npu_len" and a.id != "draft_max_model_len"] == [
        a for a in upstream.adjustments if a.id.startswith("mamba")]
    assert [(o.kind, o.target, o.line, o.keys, o.noop, o.dangling) for o in m.overlay.operations] == [
        ("add-adjustment", "npu_len", 5, (), False, False),
        ("change-adjustment", "draft_max_model_len", 12, ("runners",), False, False),
        ("change-adjustment", "stock_compile_cudagraphs", 16, (
            "level", "links", "message", "name", "override", "runners", "says", "set", "since", "stage", "until", "when"),
         False, False),
        ("change-adjustment", "mamba_cache_align", 20, ("level",), True, False),
        ("change-adjustment", "gone_adjustment", 24, ("level",), False, True)]
    r = m.resolve({"model_config": {"max_model_len": 8192}})
    assert r.explain().splitlines()[5:7] == [
        "  - npu_len (before the choice): model_config.max_model_len = 8192 -> 4096, overriding the config's value",
        f"    origin: added by overlay 'p' ({path}:5): The NPU has a small KV cache"]
    rule = next(w for w in r.report()["why"] if w["role"] == "adjusts")
    assert (rule["id"], rule["file"], rule["line"], rule["origin"]) == (
        "npu_len", path, 5, [f"added by overlay 'p' ({path}:5): The NPU has a small KV cache"])
    # Upstream's own adjustment, unchanged by the overlay, says no origin: in JSON a None, in text no line.
    mamba = {"model_config": {"is_hybrid": True}, "cache_config": {"enable_prefix_caching": True}}
    explained = m.resolve(mamba).explanation()["adjustments"]
    assert [(a["id"], "origin" in a) for a in explained] == [("mamba_cache_align", False)]
    assert "origin" not in upstream.resolve(mamba).explanation()["adjustments"][0]
    assert _findings(m) == [
        f"{path}:20:1: warning[overlay-noop]: Overlay operation change-adjustment on 'mamba_cache_align' changes "
        "nothing: upstream already says the same",
        f"{path}:24:1: warning[overlay-dangling]: Overlay operation change-adjustment on 'gone_adjustment' is "
        "dangling: upstream 0.33.0 has no such id, and the operation is written for upstream '<0.33'"]


def test_two_overlays_changing_the_same_adjustment_are_a_conflict_unless_after(tmp_path):
    first = _overlay(tmp_path, """\
        [overlay]
        name = "a"
        extends = "default"

        [change.adjustments.draft_max_model_len]
        runners = ["v1", "v2"]
        why = "A"
        """, "a.toml")
    second = """\
        [overlay]
        name = "b"
        extends = "a.toml"
        {after}

        [change.adjustments.draft_max_model_len]
        remove = true
        why = "B"
        """
    with pytest.raises(LoadError) as excinfo:
        matrix.load(_overlay(tmp_path, second.format(after=""), "b.toml"))
    assert [p.message for p in excinfo.value.problems] == [
        f"Overlays 'b' ({tmp_path / 'b.toml'}:6) and 'a' ({first}:5) both change runners of 'draft_max_model_len' "
        "(change-adjustment): say after = ['a'] in [overlay] of 'b' to apply it after 'a'"]
    m = matrix.load(_overlay(tmp_path, second.format(after='after = ["a"]'), "b.toml"))
    assert "draft_max_model_len" not in [a.id for a in m.adjustments]


# --- operations on the matrix-wide [requires] ------------------------------------------------

def _wide_upstream(folder):
    (folder / "runners").mkdir(parents=True)
    (folder / "runners" / "r1.toml").write_text('name = "R1"\npriority = 2\n')
    (folder / "runners" / "r2.toml").write_text('name = "R2"\npriority = 1\n')
    (folder / "up.toml").write_text(textwrap.dedent("""\
        [matrix]
        name = "up"
        version = "1.0"

        [config]
        "h" = { type = "int", default = 64 }
        "b" = { type = "bool", default = false }

        [requirements]
        split = { name = "Split", reason = "h must be even" }
        xpu = { name = "XPU", reason = "b needs r2" }

        [requires]
        split = "h % 2 == 0"
        xpu = { condition = "not b", exempt = ["r2"] }

        [features.g]
        name = "g"
        when = "b"
        support = { r1 = "yes", r2 = "yes" }
        """))


def test_an_overlay_replaces_a_matrix_wide_entry_and_its_exempt_list_by_kind_and_explain_names_it(tmp_path):
    _wide_upstream(tmp_path)
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "up.toml"

        [change.requires.xpu]
        exempt = ["r1"]
        why = "R1 serves it on the NPU"

        [change.requires.split]
        entry = { condition = "h % 4 == 0", reason = "h must be a multiple of 4" }
        why = "The NPU splits by 4"

        [change.requires.gone]
        unset = ["entry"]
        why = "a kind of older upstreams"
        upstream = "<1.0"
        """)
    m = matrix.load(path)
    assert [(r.kind, str(r.condition), r.reason, r.exempt) for r in m.requires] == [
        ("split", "h % 4 == 0", "h must be a multiple of 4", ()), ("xpu", "not b", "b needs r2", ("r1",))]
    assert [(o.kind, o.target, o.keys, o.dangling) for o in m.overlay.operations] == [
        ("change-requirement", "xpu", ("exempt",), False), ("change-requirement", "split", ("entry", "exempt"), False),
        ("change-requirement", "gone", ("entry", "exempt"), True)]
    with pytest.raises(matrix.ResolutionError) as excinfo:
        m.resolve({"h": 6})
    assert str(excinfo.value).splitlines()[0] == "h must be a multiple of 4"
    said = f"blocked by overlay 'p' ({path}:9): The NPU splits by 4"
    assert [b["origin"] for r in excinfo.value.resolution.explanation()["runners"] for b in r["blockers"]] == [said] * 2
    assert [(w["id"], w["file"], w["line"], w["origin"]) for w in excinfo.value.resolution.report()["why"]] == [
        ("*:split", path, 9, [said])] * 2
    r = m.resolve({"b": True})
    assert r.runner == "r1"
    assert r.explain().splitlines()[4:9] == [
        "    - b needs r2 (requirement 'xpu')", "        requires: not b", "        because: b = True",
        f"        origin: blocked by overlay 'p' ({path}:5): R1 serves it on the NPU", "Active features: g"]
    # The capability table says each matrix-wide entry once, under Every runner, marked as the overlay's.
    from matrix.render import render

    assert [line for line in render(m, tables=("capabilities",)).splitlines() if line.startswith("| ")][1:3] == [
        "| Split | `h % 4 == 0` 🧩 |  |  | h must be even |", "| XPU | `not b` (not R1) 🧩 |  |  | b needs r2 |"]
    assert _findings(m) == [
        f"{path}:13:1: warning[overlay-dangling]: Overlay operation change-requirement on 'gone' is dangling: "
        "upstream 1.0 has no such id, and the operation is written for upstream '<1.0'"]
    unset = matrix.load(_overlay(tmp_path, """\
        [overlay]
        extends = "up.toml"

        [change.requires.xpu]
        unset = ["exempt"]
        why = "every runner refuses b on the NPU"

        [change.requires.split]
        unset = ["entry"]
        why = "the NPU splits any h"
        """, "unset.toml"))
    assert [(r.kind, r.exempt) for r in unset.requires] == [("xpu", ())]
    # Every matrix-wide entry unset: the Every runner column stays, to mark what the overlay
    # removed (the overlay brute force found the mark lost once no matrix-wide entry was left).
    bare = matrix.load(_overlay(tmp_path, """\
        [overlay]
        extends = "up.toml"

        [change.requires.xpu]
        unset = ["entry"]
        why = "the NPU serves b"

        [change.requires.split]
        unset = ["entry"]
        why = "the NPU splits any h"
        """, "bare.toml"))
    assert bare.requires == ()
    assert [line for line in render(bare, tables=("capabilities",)).splitlines() if line.startswith("| ")][:3] == [
        "| Requirement | Every runner | R1 | R2 | Reason |", "| Split |  🧩 |  |  | h must be even |",
        "| XPU |  🧩 |  |  | b needs r2 |"]


def test_a_statement_appended_to_a_copied_cell_keeps_the_copied_from_words_on_the_statements_before_it(tmp_path):
    _wide_upstream(tmp_path)
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "up.toml"

        [runners.n0]
        from = "r1"
        name = "N0"
        priority = 0
        why = "as R1"

        [change.features.g]
        append.n0 = { status = "no", since = "1.0", note = "from then" }
        why = "N0 drops g"
        """)
    from matrix.render import render

    m = matrix.load(path)
    page = render(m, tables=("support",))
    assert "| g | `b` | ✅ yes | ✅ yes | ✅ yes [^1] → ❌ no [^2] since 1.0 🧩 |  |\n" in page
    assert page.endswith("[^1]: copied from r1 by overlay 'p': as R1\n[^2]: from then; set by p: N0 drops g\n")
    earlier = render(m, tables=("support",), version="0.9")
    assert "| g | `b` | ✅ yes | ✅ yes | ✅ yes [^1] 🧩 |  |\n" in earlier
    assert earlier.endswith("[^1]: copied from r1 by overlay 'p': as R1\n")


def test_a_statement_not_appended_is_said_where_its_operation_changes_something_else(tmp_path):
    _wide_upstream(tmp_path)
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "up.toml"

        [change.features.g]
        note = "the platform's note"
        append.r1 = { status = "yes", since = "1.0" }
        append.r2 = { status = "no", since = "1.0" }
        why = "R2 drops g"
        """)
    m = matrix.load(path)
    assert [(o.noop, o.appends, o.dropped) for o in m.overlay.operations] == [(False, (("r2", "1.0"),), (("r1", 7, 1),))]
    assert _findings(m) == [
        f"{path}:7:1: warning[overlay-noop]: The statement overlay operation change-feature on 'g' appends to the "
        "cell of 'r1' changes nothing: the cell's last statement already says its status; remove it"]



def test_exempt_of_a_matrix_wide_chain_replaces_the_chains_one_list_which_exempts_from_every_clause(tmp_path):
    """A chain has one exempt list, written on its first clause (a later clause's is a load
    error): exempt replaces it, and the runners it names are exempt from every clause."""
    _wide_upstream(tmp_path)
    up = tmp_path / "up.toml"
    up.write_text(up.read_text().replace('xpu = { condition = "not b", exempt = ["r2"] }', (
        'xpu = [{ condition = "not b", exempt = ["r2"] }, { condition = "h > 0", reason = "h must be positive" }]')))
    m = matrix.load(_overlay(tmp_path, """\
        [overlay]
        extends = "up.toml"

        [change.requires.xpu]
        exempt = ["r1"]
        why = "R1 serves b and any h on the NPU"
        """))
    assert [(r.kind, str(r.condition), r.exempt) for r in m.requires] == [
        ("split", "h % 2 == 0", ()), ("xpu", "not b", ("r1",)), ("xpu", "h > 0", ("r1",))]
    assert m.resolve({"b": True, "h": -2}, runner="r1").runner == "r1"
    with pytest.raises(matrix.UnsupportedFeatureError) as excinfo:
        m.resolve({"h": -2}, runner="r2")
    assert str(excinfo.value).splitlines()[0] == "R2 is not valid for this config: h must be positive"


def test_an_overlay_moves_an_upstream_adjustment_to_another_stage(tmp_path):
    """`[change.adjustments.ID] stage = …` (found by review: 'stage' was an unknown key there).
    Upstream fills y after the choice, so R1 is chosen on y = 0 and then refused on y = 1; the
    overlay moves the fill before the choice, where it makes R2 the choice."""
    import matrix

    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r1.toml").write_text('name = "R1"\npriority = 2\n')
    (tmp_path / "runners" / "r2.toml").write_text('name = "R2"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(textwrap.dedent("""\
        [matrix]
        name = "staged host"
        version = "1.0"
        stages = ["device", "choice", "pages"]
        [config]
        y = { type = "int", min = 0, max = 3, default = 0 }
        [features.one]
        name = "One"
        when = "y == 1"
        support = { r1 = "no", r2 = "yes" }
        [adjustments.fill]
        name = "fill"
        when = "y == 0"
        set = { y = 1 }
        stage = "pages"
        """))
    (tmp_path / "overlay.toml").write_text(textwrap.dedent("""\
        [overlay]
        name = "plug"
        extends = "features.toml"
        [change.adjustments.fill]
        stage = "device"
        why = "the plugin fills it before the choice"
        """))
    with pytest.raises(matrix.AdjustmentError):
        matrix.load(str(tmp_path / "features.toml")).resolve({})
    resolution = matrix.load(str(tmp_path / "overlay.toml")).resolve({})
    assert (resolution.runner, [(a.id, a.runner, a.after) for a in resolution.adjustments]) == ("r2", [("fill", None, 1)])
    (tmp_path / "overlay.toml").write_text((tmp_path / "overlay.toml").read_text().replace('stage = "device"', 'stage = "devic"'))
    with pytest.raises(matrix.LoadError) as caught:
        matrix.load(str(tmp_path / "overlay.toml"))
    assert [p.message for p in caught.value.problems] == [
        "Unknown stage 'devic', did you mean 'device' (expected one of 'choice', 'device', 'pages')"]


def test_an_overlay_deprecates_an_upstream_runner_or_lifts_upstream_s_deprecation(tmp_path):
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "default"

        [change.runners.v1]
        deprecated = { since = "0.33.0", remove_in = "0.35.0", replacement = "v2", message = "the NPU drops V1" }
        why = "The platform retires V1 before upstream does"

        [runners.npu]
        from = "v1"
        name = "NPU runner"
        priority = 5
        why = "V1 on the NPU"
        """)
    m = matrix.load(path)
    said = ("Model Runner V1 is deprecated since 0.33.0 and will be removed in 0.35.0; use Model Runner V2 instead "
            "(the NPU drops V1)")
    assert [(w.kind, w.message) for w in m.resolve({}, runner="v1").warnings] == [("deprecated-runner", said)]
    # A runner made from it is not deprecated with it: the deprecation is about v1 itself.
    assert (m.runner("npu").deprecated, m.resolve({}, runner="npu").warnings) == (None, ())
    assert [o.keys for o in m.overlay.operations if o.target == "v1"] == [("deprecated",)]
    # A mistake in it is a load error at the operation's line.
    (tmp_path / "overlay.toml").write_text((tmp_path / "overlay.toml").read_text().replace('"v2"', '"v9"'))
    with pytest.raises(LoadError) as refused:
        matrix.load(path)
    assert str(refused.value) == (f"{path}: 1 problem\n  {path}:6:56: $.deprecated.replacement: Unknown runner "
                                  "'v9' (expected one of 'npu', 'v1', 'v2')")
    # Upstream's deprecation unset: the platform keeps the runner without the warning.
    folder = tmp_path / "up"
    _write_upstream(folder, '[matrix]\nname = "up"\nversion = "1.0"\n',
                    {"r1": {"name": "R1", "priority": 2, "deprecated": {"since": "0.5", "remove_in": "2.0"}},
                     "r2": {"name": "R2", "priority": 1}})
    assert [w.kind for w in matrix.load(folder / "features.toml").resolve({}).warnings] == ["deprecated-runner"]
    path = _overlay(tmp_path, """\
        [overlay]
        name = "p"
        extends = "up/features.toml"

        [change.runners.r1]
        unset = ["deprecated"]
        why = "The platform keeps R1"
        """)
    m = matrix.load(path)
    assert (m.runner("r1").deprecated, m.resolve({}).warnings) == (None, ())
