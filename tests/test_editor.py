"""The JSON Schemas of a matrix's files for editors (`matrix.editor`, ``matrix schema
--json-schema``): the real files validate, the structural mistakes of the maintainers' corpus are
rejected, the shipped generic schemas and the repository's own are current, and the real taplo
CLI reads the ``#:schema`` line."""

import io
import json
import textwrap
import pathlib
import re
import shutil
import subprocess
import sys
import typing

import attrs

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import _converter, _format, _messages, editor
from matrix.cli import run
from matrix.strategies import _matrix_texts
from tests._env import plain_env

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

ROOT = pathlib.Path(__file__).parent.parent
DATA = pathlib.Path(__file__).parent / "data"


def _errors(schema, document):
    key = json.dumps(schema, sort_keys=True)
    if key not in _CHECKED:  # each distinct schema is checked against the metaschema once
        jsonschema.Draft7Validator.check_schema(schema)
        _CHECKED.add(key)
    return sorted(e.message for e in jsonschema.Draft7Validator(schema).iter_errors(document))


_CHECKED = set()


def _call(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


VALID = [ROOT / "features.toml", *sorted(ROOT.glob("examples/*/features.toml")),
         *sorted((DATA / "valid").glob("*.toml"))]


@pytest.mark.parametrize("path", VALID, ids=[str(p.relative_to(ROOT)) for p in VALID])
def test_the_real_matrices_validate_against_their_schemas(path):
    m = matrix.load(path)
    assert _errors(editor.features_schema(m), tomllib.loads(path.read_text())) == []
    assert _errors(editor.features_schema(), tomllib.loads(path.read_text())) == []
    for runner in m.runners:
        document = tomllib.loads(pathlib.Path(runner.file).read_text())
        assert _errors(editor.runner_schema(m), document) == []
        assert _errors(editor.runner_schema(), document) == []


def test_the_per_matrix_schema_knows_the_runners_kinds_and_features():
    m = matrix.load(ROOT / "examples" / "vllm-attention" / "features.toml")
    schema = editor.features_schema(m)
    feature = schema["properties"]["features"]["additionalProperties"]
    assert sorted(feature["properties"]["support"]["properties"]) == sorted([r.id for r in m.runners] + ["default"])
    assert list(editor.runner_schema(m)["properties"]["requires"]["properties"])[:3] == [
        "head_size", "dtype", "kv_cache_dtype"]
    bad = {"name": "X", "priority": 1, "requires": {"head_sise": "selector.head_size > 1"}}
    assert _errors(editor.runner_schema(m), bad) == [
        "Additional properties are not allowed ('head_sise' was unexpected)"]


def test_a_refusal_names_derived_gates_in_both_schemas_as_the_loader_takes_them(tmp_path):
    """A user trial: ``together = [["async_errors"], ["nccl:device"], ["ucc:not-candidate"]]``,
    which the loader accepts, was refused by the per-matrix schema ("'nccl:device' is not one of
    [...]") and by the generic one (its pattern took an id alone)."""
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "nccl.toml").write_text(
        'name = "NCCL"\npriority = 40\n[requires]\ndevice = "device == \'cuda\'"\n')
    (tmp_path / "runners" / "ucc.toml").write_text(
        'name = "UCC"\npriority = 30\ncandidate = "False"\n[requires]\ndevice = "device != \'rocm\'"\n'
        'rdma = { condition = "rdma or not multinode", roles = ["inter"] }\n')
    (tmp_path / "runners" / "gloo.toml").write_text('name = "Gloo"\npriority = 20\n')
    text = textwrap.dedent('''\
        [matrix]
        name = "collectives"
        version = "1.0"

        [config]
        device = { type = "str", choices = ["cuda", "cpu", "rocm"], default = "cuda" }
        rdma = { type = "bool", default = false, fact = true }
        multinode = { type = "bool", default = false }
        async_errors = { type = "bool", default = false }
        world = { type = "int", default = 1 }
        backend = { type = "str", nullable = true, choices = ["nccl", "ucc", "gloo"] }
        inter = { type = "str", nullable = true, choices = ["nccl", "ucc", "gloo"] }

        [roles.intra]
        name = "Intra"
        field = "backend"

        [roles.inter]
        name = "Inter"
        field = "inter"
        follows = "intra"

        [requirements]
        device = { name = "Device", reason = "cannot run on a {device} device" }
        rdma = { name = "RDMA", reason = "UCC across nodes needs RDMA" }
        layout = { name = "Layout", reason = "world must be positive" }

        [requires]
        layout = "world > 0"

        [features.async_errors]
        name = "async error handling"
        when = "async_errors"
        support = { nccl = "yes", ucc = "yes", gloo = "no" }

        [orders.cpu]
        name = "CPU"
        when = "device == 'cpu'"
        runners = ["gloo"]
        fallback = false

        [refusals.async_on_cpu]
        reason = "async error handling is NCCL's"
        together = [["async_errors"], ["nccl:device"], ["ucc:not-candidate"]]
        ''')
    (tmp_path / "features.toml").write_text(text)
    m = matrix.load(tmp_path / "features.toml")
    schema = editor.features_schema(m)
    gates = schema["properties"]["refusals"]["additionalProperties"]["properties"]["together"]["items"]["items"]
    assert gates["enum"] == ["async_errors", "order:cpu", "*:layout", "nccl:device", "ucc:device", "ucc:rdma",
                             "ucc:not-candidate"]
    for gate in gates["enum"]:  # each one the loader takes, each one both schemas take
        written = text.replace('[["async_errors"], ["nccl:device"], ["ucc:not-candidate"]]', f'[["{gate}"]]')
        (tmp_path / "features.toml").write_text(written)
        matrix.load(tmp_path / "features.toml")
        assert _errors(schema, tomllib.loads(written)) == _errors(editor.features_schema(), tomllib.loads(written)) == []
    misspelt = tomllib.loads(text.replace('"nccl:device"', '"nccl:devise"'))
    assert _errors(schema, misspelt) == [f"'nccl:devise' is not one of {gates['enum']}"]
    assert _errors(editor.features_schema(), misspelt) == []  # a gate's shape: the generic schema knows no runner
    assert _errors(editor.features_schema(), tomllib.loads(text.replace('"nccl:device"', '"nccl:device:0"'))) == [
        f"'nccl:device:0' does not match {_format.anchored(_format.GATE)!r}"]


def _invalid(path):
    """The corpus case as TOML data, and the schemas of its matrix (its runners: the shared ones)."""
    file = path / "features.toml" if path.is_dir() else path
    document = tomllib.loads(file.read_text())
    folder = path / "runners" if (path / "runners").is_dir() else DATA / "runners"
    runners = sorted(p.stem for p in folder.glob("*.toml"))
    shell = matrix.loads('[matrix]\nname = "x"\nversion = "1"\n',
                         runners={r: {"name": r, "priority": i} for i, r in enumerate(runners)})
    errors = _errors(editor.features_schema(shell), document)
    if path.is_dir():
        for runner in folder.glob("*.toml"):
            try:
                errors += _errors(editor.runner_schema(shell), tomllib.loads(runner.read_text()))
            except tomllib.TOMLDecodeError:
                errors.append("TOML syntax")
    return errors


# What a JSON Schema cannot see, and the loader does, each with the reason; TOML that does not
# parse (SYNTAX) the editor says itself. Every other case of the corpus is structural: the schema
# generated from the loader's specs refuses it.
_IN_A_PREDICATE = "a mistake inside a predicate (when, condition, candidate): the predicate language is not a schema's"
UNSEEN = {
    **dict.fromkeys([
        "bang_for_not", "bare_int", "bare_string_condition", "bool_vs_string", "chained_comparison",
        "double_ampersand", "in_on_a_string", "int_literal_for_str_field", "is_none_on_non_nullable", "misspelt_path",
        "predicate_path_and_operator",
        "not_a_choice", "ordering_strings", "predicate_over_two_lines", "single_equals", "too_deep",
        "unbalanced_paren", "unterminated_string", "version_as_number"], _IN_A_PREDICATE),
    "choices_on_bool": "which types take choices depends on the field's type",
    "classes_on_int": "which types take classes depends on the field's type",
    "derived_fields": "a derive expression is the predicate language's, and which keys go with derive the loader's",
    "default_not_a_choice": "the default is checked against the field's own type and choices",
    "min_above_max": "two numbers compared",
    "duplicate_name": "two features' names compared (and their windows)",
    "history_out_of_order": "the since of two statements compared",
    "history_without_since": "a key required of every statement but the first",
    "no_period_unrecorded": "remove_in compared with since",
    "remove_before_since": "remove_in compared with since",
    "until_before_since": "until compared with since",
    "removed_before_remove_in": "remove_in compared with [matrix] version",
    "default_history_mistakes": "a default is any value to the schema: its history is the loader's to check",
    "prefers_templates": "a template's parts, and the paths a feature's condition reads, are the loader's to check",
    "order_after_final": "the place of an order without when among the orders: two orders compared",
    "adjustment_times": "a value an adjustment sets is any value to the schema: times is checked against the field",
    "roles": "a role's field is checked against its [config] entry and the runner ids, follows against the other roles",
    "role_paths_undeclared": _IN_A_PREDICATE,
    "adjustment_stages": "an adjustment's stage is checked against [matrix] stages, and a runner's against choice",
    "adjustment_stage_without_stages": "an adjustment's stage is checked against [matrix] stages",
    "redirect_stage_without_stages": "a redirect's stage is checked against [matrix] stages",
    "redirect_stages": "a redirect's stage is checked against [matrix] stages and choice, and applies beside it",
    "alias_message_bad": "the config paths a message template names are checked against [config]",
}
SYNTAX = {"toml_dotted_conflict", "toml_dotted_then_inline", "toml_duplicate_key", "toml_duplicate_quoted_table",
          "toml_duplicate_table", "toml_end_of_document",
          "toml_quote_inside_string", "toml_syntax", "toml_unterminated_string"}
CORPUS = sorted(p for p in (DATA / "invalid").iterdir() if p.suffix == ".toml" or p.is_dir())


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_every_structural_mistake_of_the_corpus_is_rejected_by_the_schema(path):
    if path.stem in SYNTAX:
        with pytest.raises(tomllib.TOMLDecodeError):
            _invalid(path)
        return
    errors = _invalid(path)
    if path.stem in UNSEEN:
        assert errors == [], errors  # the list above is exact: a case the schema learns to see moves out
    else:
        assert errors != []


# Where the schema built from the runner files' names sees a mistake the loader says another way:
# at the file (a misnamed runner file is said once, at it), or not at all (no runners were read).
ELSEWHERE = {
    "runner_file_misnamed": (["$.features.f0.support", "$.features.f1.support", "$.features.f2.support",
                              "$.features.g.prefers.runner", "$.features.g.support"],
                             "the loader says the misnamed runner file once, not each table naming its id"),
    "runners_is_a_string": (["$.features.f.support"],
                            "with no runner folder the loader checks no support table against runner ids"),
    "misspelt_support": (["$.features.f.support"],
                         "the loader says a near miss of support once, not also the cell it holds as missing"),
}


@pytest.mark.parametrize("path", [p for p in CORPUS if p.stem not in SYNTAX], ids=lambda p: p.stem)
def test_the_schema_refuses_nothing_the_loader_accepts(path, monkeypatch):
    # Each place the schema refuses in a corpus file is one the loader refuses too (or inside
    # it, or holding it): the schema is never stricter than the loader.
    file = path / "features.toml" if path.is_dir() else path
    folder = path / "runners" if (path / "runners").is_dir() else DATA / "runners"
    shell = matrix.loads('[matrix]\nname = "x"\nversion = "1"\n', runners={
        r: {"name": r, "priority": i} for i, r in enumerate(sorted(p.stem for p in folder.glob("*.toml")))})
    validator = jsonschema.Draft7Validator(editor.features_schema(shell))
    refused = {_messages.place(list(e.absolute_path)) for e in validator.iter_errors(tomllib.loads(file.read_text()))}
    monkeypatch.chdir(path.parent)
    with pytest.raises(matrix.LoadError) as caught:
        if path.is_dir():
            matrix.load(f"{path.name}/features.toml")
        else:
            matrix.loads(path.read_text(encoding="utf-8"), runners=(DATA / "runners").resolve(), path=path.name)
    name = f"{path.name}/features.toml" if path.is_dir() else path.name
    said = {p.place for p in caught.value.problems if p.file == name}  # not the runner files
    alone = sorted(r for r in refused if not any(r.startswith(p) or p.startswith(r) for p in said))
    assert alone == ELSEWHERE.get(path.stem, ([], ""))[0]


def _gates_written(document, runners):
    """docs/reference/file-format.md, Refusals, restated: the gates a refusal may name in a
    matrix written as *document* (features.toml's data) with runner tables *runners*: its
    features; each requirement kind of a runner file, RUNNER:KIND (RUNNER:KIND:N for clause N of a
    chain of several), and of [requires], *:KIND alike; RUNNER:not-candidate for a runner with a
    candidate condition; RUNNER:redirect:N for its N-th redirect where it applies always at no
    stage; order:ID for an order without fallback."""
    def kinds(owner, requires):
        for kind, spec in requires.items():
            chain = spec if isinstance(spec, list) else [spec]
            yield from [f"{owner}:{kind}"] if len(chain) == 1 else [f"{owner}:{kind}:{n + 1}" for n in range(len(chain))]

    gates = [*document.get("features", {}), *kinds("*", document.get("requires", {}))]
    gates += [f"order:{o}" for o, spec in document.get("orders", {}).items() if spec.get("fallback") is False]
    for r, table in runners.items():
        gates += [*kinds(r, table.get("requires", {})), *([f"{r}:not-candidate"] if "candidate" in table else [])]
        gates += [f"{r}:redirect:{n + 1}" for n, d in enumerate(table.get("redirects", ()))
                  if d.get("applies") == "always" and "stage" not in d]
    return gates


@settings(max_examples=settings.default.max_examples, deadline=None)
@given(_matrix_texts(6), st.data())
def test_random_matrices_validate_against_their_schemas(drawn, data):
    # Every shape the strategies draw (cells, histories, deprecations, windows, requirements'
    # kinds, orders) is one the loader accepts: the schemas must accept it too, the runner
    # files' as well as features.toml's. Besides, a refusal naming gates the file allows,
    # derived ones among them (a user trial: the schemas refused 'nccl:device', which the loader
    # takes).
    text, runners = drawn
    gates = _gates_written(tomllib.loads(text), runners)
    if gates:
        together = data.draw(st.lists(st.sampled_from(gates), min_size=1, max_size=3))
        text += f'\n[refusals.drawn]\nreason = "drawn"\ntogether = {json.dumps([[g] for g in together])}\n'
    m = matrix.loads(text, runners=runners)
    assert _errors(editor.features_schema(m), tomllib.loads(text)) == []
    assert _errors(editor.features_schema(), tomllib.loads(text)) == []
    for table in runners.values():
        assert _errors(editor.runner_schema(m), table) == []
        assert _errors(editor.runner_schema(), table) == []


def _loads(header):
    return matrix.loads(f'[matrix]\nname = "x"\n{header}\n', runners={"r": {"name": "R", "priority": 1}})


def _loader_accepts(header):
    try:
        _loads(header)
    except matrix.LoadError:
        return False
    return True


def _schema_accepts(header):
    return _errors(editor.features_schema(), tomllib.loads(f'[matrix]\nname = "x"\n{header}\n')) == []


@pytest.mark.parametrize("spec", ["a.b:C", "a..b:C", "a.:C", "a:b.C", "a:b..C", "a:b:C", "_a1.b_2:C3", "1a:C", "a:",
                                  "a b:C"])
def test_the_loader_and_the_schema_agree_on_a_config_class(spec):
    # The hand-written schema's pattern accepted 'a..b:C', which the loader refuses (issue 23).
    header = f'version = "1"\nconfig_class = {json.dumps(spec)}'
    assert _schema_accepts(header) == _loader_accepts(header)


def test_a_config_class_with_an_empty_segment_is_refused_by_both():
    header = 'version = "1"\nconfig_class = "a..b:C"'
    with pytest.raises(matrix.LoadError) as caught:
        _loads(header)
    assert caught.value.problems[0].message == (
        "Expected 'MODULE:CLASS' (such as 'vllm.config:VllmConfig'), got 'a..b:C'")
    pattern = editor.features_schema()["properties"]["matrix"]["properties"]["config_class"]["pattern"]
    assert _errors(editor.features_schema(), tomllib.loads(f'[matrix]\nname = "x"\n{header}\n')) == [
        f"'a..b:C' does not match {pattern!r}"]


@settings(max_examples=300, deadline=None)
@given(st.text("0123456789.!+-_ vVaAbBcCrRpPoOsStTdDeElLhHiIwWxX", max_size=14))
def test_the_schema_reads_versions_as_the_loader_does(text):
    # The pattern is packaging's own (the loader reads versions with packaging), so the
    # upper-case spellings it accepts ('1.0RC1', '2.0.POST1') are accepted by both.
    header = f"version = {json.dumps(text)}"
    assert _schema_accepts(header) == _loader_accepts(header)


@pytest.mark.parametrize("version", ["1.0RC1", "2.0.POST1", "V1.2", "1.0.DEV3", "1.0+UBUNTU.1", "1.0-1"])
def test_versions_packaging_accepts_in_any_case_are_accepted_by_the_schema(version):
    header = f"version = {json.dumps(version)}"
    assert (_loader_accepts(header), _schema_accepts(header)) == (True, True)


@settings(max_examples=300, deadline=None)
@given(st.text("aZ09_.-:é ", min_size=1, max_size=6))
def test_the_loader_and_the_schema_agree_on_feature_ids_and_config_paths(key):
    text = (f'[matrix]\nname = "x"\nversion = "1"\n[config]\n{json.dumps(key)} = "bool"\n'
            f'[features.{json.dumps(key)}]\nname = "F"\nwhen = "1 == 1"\nsupport.default = "yes"\n')
    schema = editor.features_schema()
    document = tomllib.loads(text)
    bad = {e.absolute_path and e.absolute_path[0] for e in jsonschema.Draft7Validator(schema).iter_errors(document)}
    try:
        matrix.loads(text, runners={"r": {"name": "R", "priority": 1}})
        refused = set()
    except matrix.LoadError as exc:
        refused = {re.match(r"\$\.(\w+)", p.place).group(1) for p in exc.problems}
    assert bad == refused


def _spec_tables(schema, cls, path="$"):
    """(path, spec class, the table's schema) for each table of *schema* a spec describes."""
    yield path, cls, schema
    for field in attrs.fields(cls):
        yield from _nested(schema["properties"][field.name], field.type, f"{path}.{field.name}")


def _nested(schema, kind, path):
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Annotated:
        yield from _nested(schema, args[0], path)
    elif attrs.has(kind):
        yield from _spec_tables(schema, kind, path)
    elif origin is typing.Union:
        shapes = [a for a in args if a is not type(None)]
        if len(shapes) == 1:
            yield from _nested(schema, shapes[0], path)
            return
        while list(schema.get("if", {})) == ["type"]:  # the shape of each JSON type, then the last
            kind_of = schema["if"]["type"]
            shape = next(a for a in shapes if _json_type(a) == kind_of)
            shapes.remove(shape)
            yield from _nested(schema["then"], shape, path)
            schema = schema["else"]
        (shape,) = shapes
        yield from _nested(schema, shape, path)
    elif origin is tuple:
        yield from _nested(schema["items"], args[0], path + "[]")
    elif origin is dict:
        # Any value (an adjustment's set: {}) has no table inside to check.
        values = schema["additionalProperties"] or next(iter(schema.get("properties", {}).values()), {})
        yield from _nested(values, args[1], path + "{}")


def _json_type(kind):
    kind = _converter.bare(kind)
    return "object" if attrs.has(kind) else "array" if typing.get_origin(kind) is tuple else "string"


@pytest.mark.parametrize("generic", [True, False], ids=["generic", "per-matrix"])
def test_every_key_of_every_spec_is_in_the_schemas_and_no_other(generic):
    # The schemas are generated from the specs the loader structures with: a key added to a
    # spec is in them without more, and each table takes only its spec's keys.
    m = None if generic else matrix.load(ROOT / "examples" / "vllm-attention" / "features.toml")
    seen = set()
    for root, cls in ((editor.features_schema(m), _converter.DocumentSpec),
                      (editor.runner_schema(m), _converter.RunnerSpec)):
        for path, spec, table in _spec_tables(root, cls):
            assert (table["type"], table["additionalProperties"]) == ("object", False), path
            assert list(table["properties"]) == [f.name for f in attrs.fields(spec)], path
            assert table.get("required", []) == [f.name for f in attrs.fields(spec) if f.default is attrs.NOTHING]
            seen.add(spec)
    assert seen == set(_converter.SPECS)


def test_the_shipped_generic_schemas_are_current():
    package = pathlib.Path(matrix.__file__).parent
    assert (package / "features.schema.json").read_text() == editor.text(editor.features_schema())
    assert (package / "runner.schema.json").read_text() == editor.text(editor.runner_schema())
    assert (package / "overlay.schema.json").read_text() == editor.text(editor.overlay_schema())


_OVERLAYS = ["examples/ascend-overlay/overlay.toml", "examples/openvino-overlay/overlay.toml",
             "examples/npu-overlay/vllm_npu_matrix/overlay.toml"]


def _toml_of(path):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    return tomllib.loads((ROOT / path).read_text())


def test_the_overlay_schema_accepts_the_example_overlays_and_says_a_mistake_at_its_key():
    validator = jsonschema.Draft7Validator(editor.overlay_schema())
    jsonschema.Draft7Validator.check_schema(validator.schema)
    for path in _OVERLAYS:
        assert [e.message for e in validator.iter_errors(_toml_of(path))] == [], path
    npu = _toml_of(_OVERLAYS[2])
    npu["change"]["runners"]["v2"]["choise"] = False  # a misspelt key
    del npu["change"]["features"]["pp_external_launcher"]["why"]  # an operation without its reason
    npu["runners"]["npu"]["priority"] = "30"
    npu["refusals"]["forced_v2_on_the_npu"]["together"][1] = ["v2 not candidate"]
    assert sorted((list(e.absolute_path), e.message) for e in validator.iter_errors(npu)) == [
        (["change", "features", "pp_external_launcher"], "'why' is a required property"),
        (["change", "runners", "v2"], "Additional properties are not allowed ('choise' was unexpected)"),
        (["refusals", "forced_v2_on_the_npu", "together", 1, 0],
         f"'v2 not candidate' does not match {_format.anchored(_format.GATE)!r}"),
        (["runners", "npu", "priority"], "'30' is not of type 'integer'")]
    # Each table and key the loader reads, no other: an unknown table, a change of an unknown kind.
    assert [e.message for e in validator.iter_errors({"overlay": {"extends": "default"}, "chnage": {}})] == [
        "Additional properties are not allowed ('chnage' was unexpected)"]
    assert [e.message for e in validator.iter_errors({"overlay": {"extends": "default"}, "change": {"feature": {}}})] == [
        "Additional properties are not allowed ('feature' was unexpected)"]
    # A runner added from another needs no name or priority of its own; one from none does.
    added = {"overlay": {"extends": "default"}, "runners": {"n": {"from": "v2", "why": "r"}}}
    assert list(validator.iter_errors(added)) == []
    del added["runners"]["n"]["from"]
    assert sorted(e.message for e in validator.iter_errors(added)) == [
        "'name' is a required property", "'priority' is a required property"]


def test_the_repositorys_own_schemas_are_current_and_named_by_its_files():
    m = matrix.load(ROOT / "features.toml")
    assert editor.stale(m) == []
    assert (ROOT / "features.toml").read_text().splitlines()[0] == "#:schema ./features.schema.json"
    for runner in ("v1", "v2"):
        assert (ROOT / "runners" / f"{runner}.toml").read_text().splitlines()[0] == "#:schema ./runner.schema.json"


def test_the_command_prints_writes_and_check_reports_stale(tmp_path):
    shutil.copytree(ROOT / "examples" / "vllm-attention", tmp_path / "m")
    path = tmp_path / "m" / "features.toml"
    status, out, err = _call("schema", "--json-schema", "--matrix", str(path))
    assert (status, err) == (0, "")
    assert json.loads(out)["title"] == "features.toml of a support matrix: vLLM attention backends (CUDA, non-MLA)"
    status, out, err = _call("schema", "--json-schema", "--runner-file", "--matrix", str(path))
    assert json.loads(out)["title"] == "A runner file of a support matrix: vLLM attention backends (CUDA, non-MLA)"
    status, out, err = _call("schema", "--json-schema", "--write", "--matrix", str(path))
    assert (status, err) == (0, "")
    assert out == f"wrote {tmp_path}/m/features.schema.json\nwrote {tmp_path}/m/runners/runner.schema.json\n"
    assert _call("check", "--matrix", str(path))[1].endswith("passed: 0 errors, 0 warnings, 17 notes\n")
    # A new requirement kind changes both schemas (a runner file's [requires] and features.toml's
    # matrix-wide [requires] name the kinds): check says both are stale.
    path.write_text(path.read_text().replace('combination = { name = "Combinations (supports_combination)" }',
                                             'combination = { name = "Combinations (supports_combination)" }\n'
                                             'extra = { name = "Extra", reason = "extra" }'))
    status, out, err = _call("check", "--matrix", str(path))
    assert [line for line in out.splitlines() if "schema-stale" in line] == [
        f"{path}:5:1: warning[schema-stale]: {tmp_path}/m/{name}, the JSON Schema editors check {described} with, is "
        "out of date (it is not what matrix generates now); regenerate it with matrix schema --json-schema --write"
        for name, described in (("features.schema.json", "features.toml"), ("runners/runner.schema.json",
                                                                             "the runner files"))]


@pytest.mark.parametrize(("args", "message"), [
    (["schema", "--runner-file", "--from", "host.config:X"], "matrix: error: --runner-file goes with --json-schema\n"),
    (["schema", "--json-schema", "a.b"], "matrix: error: matrix schema --json-schema takes no PATH: it describes the whole "
                                         "file\n"),
])
def test_the_command_refuses_what_does_not_go_together(args, message):
    status, out, err = _call(*args)
    assert (status, out, err) == (2, "", message)


def _taplo():
    found = shutil.which("taplo") or str(pathlib.Path(sys.executable).parent / "taplo")
    return found if pathlib.Path(found).exists() else None


@pytest.mark.skipif(_taplo() is None, reason="the taplo CLI is not installed (pip install taplo: the test extra has it)")
def test_taplo_validates_the_default_file_by_its_schema_line_and_flags_a_misspelt_key(tmp_path):
    for name in ("features.toml", "features.schema.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    done = subprocess.run([_taplo(), "check", "features.toml"], cwd=tmp_path, capture_output=True, text=True,
                          env=plain_env())
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "features.toml").read_text().replace('support.v1 = "yes"', 'suport.v1 = "yes"', 1)
    line = text.splitlines().index('suport.v1 = "yes"') + 1
    (tmp_path / "features.toml").write_text(text)
    done = subprocess.run([_taplo(), "check", "features.toml"], cwd=tmp_path, capture_output=True, text=True,
                          env=plain_env())
    assert done.returncode == 1
    assert "'suport' was unexpected" in done.stderr
    assert f"features.toml:{line}:" in done.stderr


def test_write_without_a_file_or_where_it_cannot_write_is_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _call("schema", "--json-schema", "--write", "--matrix", "default") == (
        2, "", "matrix: error: --write needs a matrix read from a file (--matrix FILE): the default matrix ships "
               "its schemas in the package\n")
    shutil.copytree(ROOT / "examples" / "vllm-attention", tmp_path / "m")
    (tmp_path / "m" / "features.schema.json").unlink()
    (tmp_path / "m" / "features.schema.json").mkdir()  # a folder where the file should go
    status, out, err = _call("schema", "--json-schema", "--write", "--matrix", "m/features.toml")
    assert (status, out) == (2, "")
    assert err == "matrix: error: Cannot write m/features.schema.json: Is a directory\n"


def test_the_api_refuses_to_place_schemas_for_a_matrix_without_a_file():
    m = matrix.loads('[matrix]\nname = "x"\nversion = "1"\n', runners={"r": {"name": "R", "priority": 1}})
    with pytest.raises(matrix.UsageError) as caught:
        editor.write(m)
    assert str(caught.value) == ("--write needs a matrix read from a file (--matrix FILE): the default matrix ships "
                                 "its schemas in the package")
    assert editor.stale(m) == []


@pytest.mark.skipif(_taplo() is None, reason="the taplo CLI is not installed (pip install taplo: the test extra has it)")
def test_taplo_says_an_unknown_config_type_once_at_the_type_as_check_does(tmp_path):
    # Each shape of a value (a type, a table; a status, a statement, a history) is chosen by its
    # JSON type: an anyOf of them made taplo repeat one "not valid under any of the schemas" blob
    # on every token of the table (7 times here), and never say which key was wrong.
    for name in ("features.toml", "features.schema.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    entry = '"parallel_config.use_ubatching" = { type = "bool", default = false, doc = "Dual batch overlap (DBO)" }'
    text = (tmp_path / "features.toml").read_text()
    line = text.splitlines().index(entry) + 1
    bad = text.replace(entry, entry.replace('"bool"', '"bol"'), 1).replace(
        '"parallel_config.enable_elastic_ep" = { type = "bool", default = false }',
        '"parallel_config.enable_elastic_ep" = "bol"', 1)
    (tmp_path / "features.toml").write_text(bad)
    done = subprocess.run([_taplo(), "check", "--no-auto-config", "features.toml"], cwd=tmp_path, capture_output=True,
                          text=True, env=plain_env())
    types = '["bool","int","float","str","version","list[str]","list[int]","section"]'
    assert done.returncode == 1
    assert [line for line in done.stderr.splitlines() if line.startswith(("error:", "   ┌─"))] == [
        f'error: "bol" is not one of {types}', f"   ┌─ {tmp_path}/features.toml:{line}:44",
        f'error: "bol" is not one of {types}', f"   ┌─ {tmp_path}/features.toml:{line + 1}:39"]
    status, out, err = _call("check", "--matrix", str(tmp_path / "features.toml"))
    expected = "(expected one of 'bool', 'float', 'int', 'list[int]', 'list[str]', 'section', 'str', 'version')"
    assert [line for line in err.splitlines() if "bol" in line] == [
        f"  {tmp_path}/features.toml:{line}:37: $.config[\"parallel_config.use_ubatching\"].type: Unknown type 'bol', "
        f"did you mean 'bool' {expected}",
        f"  {tmp_path}/features.toml:{line + 1}:1: $.config[\"parallel_config.enable_elastic_ep\"].type: Unknown type "
        f"'bol', did you mean 'bool' {expected}"]


def test_a_matrix_wide_default_support_lets_support_tables_leave_runners_out():
    runners = {"polars": {"name": "Polars", "priority": 2}, "pandas": {"name": "pandas", "priority": 1}}
    text = ('[matrix]\nname = "frames"\nversion = "1.0"\ndefault_support = "no"\n[config]\n"lazy" = "bool"\n'
            '[features.lazy]\nname = "lazy frames"\nwhen = "lazy"\nsupport = { polars = "yes" }\n')
    assert _errors(editor.features_schema(matrix.loads(text, runners=runners)), tomllib.loads(text)) == []
    # Without it, a cell for every runner (or support.default) is wanted, as the loader wants it.
    full = text.replace('default_support = "no"\n', "").replace('polars = "yes"', 'polars = "yes", pandas = "no"')
    schema = editor.features_schema(matrix.loads(full, runners=runners))
    assert _errors(schema, tomllib.loads(full.replace(', pandas = "no"', ""))) == [
        "{'polars': 'yes'} is not valid under any of the given schemas"]


@pytest.mark.parametrize("reason", ["", "   ", "\t", "v1 is asked for by name"])
def test_the_loader_and_the_schema_agree_on_an_ignore_reason(reason):
    # The hand-written schema wanted one character, where the loader wants one that is not blank.
    header = f'version = "1"\n[check]\nignore = [{{ code = "no-yes", reason = {json.dumps(reason)} }}]'
    assert _schema_accepts(header) == _loader_accepts(header) == bool(reason.strip())


def test_the_per_matrix_schema_names_its_stages():
    """Issue 30, F6: an adjustment's stage is one of the matrix's stages, which hold choice."""
    text = ('[matrix]\nname = "s"\nversion = "1"\nstages = ["device", "choice"]\n[config]\nx = "bool"\n'
            '[adjustments.a]\nname = "A"\nwhen = "x"\nset = { x = false }\nstage = "device"\n')
    m = matrix.loads(text, runners={"r": {"name": "R", "priority": 1}})
    schema = editor.features_schema(m)
    assert schema["properties"]["adjustments"]["additionalProperties"]["properties"]["stage"]["enum"] == [
        "device", "choice"]
    assert _errors(schema, tomllib.loads(text)) == []
    assert _errors(schema, tomllib.loads(text.replace('stage = "device"', 'stage = "devise"'))) == [
        "'devise' is not one of ['device', 'choice']"]
    assert _errors(editor.features_schema(), tomllib.loads(text.replace('"device", "choice"', '"device"'))) == [
        "None of ['device'] are valid under the given schema"]
