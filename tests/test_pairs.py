"""The feature pairs table (`matrix docs --table pairs`): exact both ways against resolve()."""

import functools
import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import RemovedFeatureError, UnsupportedFeatureError
from matrix._pairs import pair_gates, pairs
from matrix.render import TABLES, render
from matrix.strategies import configs, matrices
from tests.test_render import DATA, _validate_json, call

DEFAULT = matrix.default()
KITCHEN = matrix.load(DATA / "valid" / "kitchen_sink.toml")
CASES = [(DEFAULT, None), (DEFAULT, "0.31.0"), (KITCHEN, None), (KITCHEN, "1.1")]


@functools.cache
def _table(index):
    m, version = CASES[index]
    return {frozenset((p.first.id, p.second.id)): p for p in pairs(m, version)}


def _serves(m, config, runner, version):
    """Whether *runner*, asked for, serves the config (a forced runner that overrides the
    request serves it instead)."""
    try:
        return m.resolve(config, runner=runner, version=version).runner == runner
    except (UnsupportedFeatureError, RemovedFeatureError):
        return False


def _agrees(m, version, table, config):
    """Every pair of gates the config makes active is listed as possible together, and every
    runner that serves the config when asked for is listed as serving the pair."""
    try:  # the gates active when a runner is asked for (the same whichever is asked)
        active = m.resolve(config, version=version, runner=m.runners[0].id).active
    except UnsupportedFeatureError as error:
        active = error.resolution.active
    except RemovedFeatureError:
        return  # a removed feature is refused before any runner: no pair of the table is at stake
    paired = {g.id for g in pair_gates(m, version)}
    served = {r.id: _serves(m, config, r.id, version) for r in m.runners}
    for a, b in itertools.combinations([f for f in active if f.id in paired], 2):
        pair = table[frozenset((a.id, b.id))]
        assert pair.kind in ("all", "some", "none"), (a.id, b.id, pair.kind)
        for runner, serves in served.items():
            if serves:
                assert runner in pair.runners, (a.id, b.id, runner, config)


@settings(max_examples=60)
@given(st.data())
def test_pairs_agree_with_resolve_on_random_configs(data):
    index = data.draw(st.sampled_from(range(len(CASES))))
    m, version = CASES[index]
    _agrees(m, version, _table(index), data.draw(configs(m, version=version)))


def test_every_runner_said_to_serve_a_pair_serves_its_witness():
    for index, (m, version) in enumerate(CASES):
        for pair in _table(index).values():
            assert set(pair.witnesses) == set(pair.runners)
            assert (pair.kind == "all") == (len(pair.runners) == len(m.runners))
            for runner, witness in pair.witnesses.items():
                resolution = m.resolve(witness, runner=runner, version=version)
                assert {pair.first, pair.second} <= set(resolution.active), (pair, witness)


@settings(max_examples=30, deadline=None)
@given(matrices(max_features=4), st.data())
def test_random_matrices_pairs_are_exact_both_ways(m, data):
    table = {frozenset((p.first.id, p.second.id)): p for p in pairs(m)}
    gates = pair_gates(m)
    assert len(table) == len(gates) * (len(gates) - 1) // 2
    for pair in table.values():
        for runner, witness in pair.witnesses.items():
            assert {pair.first, pair.second} <= set(m.resolve(witness, runner=runner).active)
    for _ in range(5):
        _agrees(m, None, table, data.draw(configs(m)))


def rows_of(lines):
    return [line.split(" | ")[0][2:].split(". ", 1)[1] for line in lines if line.startswith("| ") and ". " in line]


def test_markdown_pairs_table_of_the_default_matrix():
    text = render(DEFAULT, format="markdown", tables=["pairs"], version="0.30.0")
    lines = text.splitlines()
    assert lines[2] == "### Feature pairs: vLLM model runners 0.30.0"
    assert lines[4] == ("Which runners serve a config that uses both features: derived from the conditions over every "
                        "config, exactly as `matrix check` does, each runner asked for explicitly, on the config as given "
                        "(adjustments are not applied: a runner that its own adjustment frees is not counted).")
    # No pair at 0.30.0 is served by both (dual batch overlap, which V2 serves when asked for, is
    # a gate of automatic choice only: the table, each runner asked for, pairs its "with …" rules).
    assert lines[6] == ("Legend: runner ids: only the runners named serve a config that uses both · ❌ none: no runner "
                        "serves a config that uses both · ➖ never: no config uses both")
    assert "dual batch overlap" not in rows_of(lines) and "dual batch overlap with LoRA" in rows_of(lines)
    rows = {line.split(" | ")[0][2:].split(". ", 1)[1]: line.split(" | ")[1:] for line in lines if line.startswith("| ") and ". " in line}
    number = {name: i for i, name in enumerate(rows)}
    mamba = rows["mamba cache mode 'all'"]
    refused = "❌ none [^refusal-v1_only_with_v2_only]"
    assert mamba[number["prefill context parallel"]] == refused
    assert mamba[number["stock torch.compile"]] == "v1"
    assert rows["speculative method 'ngram\\_gpu'"][number["speculative method 'ngram'"]] == "➖ never"
    assert lines[-1] == (
        "[^refusal-v1_only_with_v2_only]: Refused on purpose (`v1_only_with_v2_only`): a feature only Model Runner V1 "
        "serves cannot be combined with one only Model Runner V2 serves: vLLM raises the V1 error")
    # A pair both runners serve (at 0.31.0, where V2 took custom logits processors).
    later = render(DEFAULT, format="markdown", tables=["pairs"], version="0.31.0", symbols=False).splitlines()
    rows = {line.split(" | ")[0][2:].split(". ", 1)[1]: line.split(" | ")[1:] for line in later if line.startswith("| ") and ". " in line}
    number = {name: i for i, name in enumerate(rows)}
    assert rows["custom logits processors"][number["speculative method 'draft\\_model'"]] == "all"
    assert rows["prefill context parallel"][number["stock torch.compile"]] == "none [^refusal-v1_only_with_v2_only]"


def test_json_pairs_are_data():
    data = json.loads(render(DEFAULT, format="json", tables=["pairs"], version="0.31.0"))
    _validate_json(data)
    by_features = {tuple(p["features"]): p for p in data["pairs"]}
    assert by_features[("spec_draft_model", "custom_logits_processors")] == {
        "features": ["spec_draft_model", "custom_logits_processors"], "served": "all", "runners": ["v2", "v1"],
        "refusal": None}
    pcp = by_features[("stock_torch_compile", "prefill_context_parallel")]
    assert pcp["served"] == "none" and pcp["runners"] == []
    assert pcp["refusal"]["id"] == "v1_only_with_v2_only"
    gates = pair_gates(DEFAULT, "0.31.0")
    assert len(data["pairs"]) == len(gates) * (len(gates) - 1) // 2


def test_html_and_rst_pairs_link_the_refusal():
    page = render(DEFAULT, format="html", tables=["pairs"], version="0.30.0")
    assert ('<td class="status-no" title="prefill context parallel with stock torch.compile: no runner serves a config '
            'that uses both">❌ none <sup><a href="#refusal-v1_only_with_v2_only">why</a></sup></td>') in page
    assert '<li id="refusal-v1_only_with_v2_only">Refused on purpose (<code>v1_only_with_v2_only</code>): ' in page
    rst = render(DEFAULT, format="rst", tables=["pairs"], version="0.30.0")
    assert "     - ❌ none [#refusal-v1_only_with_v2_only]_" in rst.splitlines()
    assert ".. [#refusal-v1_only_with_v2_only] Refused on purpose (``v1_only_with_v2_only``): " in rst


def test_a_matrix_with_fewer_than_two_features_says_so():
    one = matrix.loads('[matrix]\nname = "one"\nversion = "1.0"\n[config]\n"a" = "bool"\n'
                       '[features.a]\nname = "a"\nwhen = "a"\nsupport = { r = "yes" }\n',
                       runners={"r": {"name": "R", "priority": 1}})
    assert render(one, format="markdown", tables=["pairs"]).splitlines()[2:5] == [
        "### Feature pairs: one 1.0", "", "No two features to pair at this version."]


def test_docs_leaves_the_pairs_out_unless_asked_and_table_all_gives_every_table():
    status, out, err = call("docs")
    headings = [line for line in out.splitlines() if line.startswith("### ")]
    assert (status, err) == (0, "")
    assert headings == ["### Support matrix: vLLM model runners 0.33.0", "### Runners: vLLM model runners",
                        "### Adjustments: vLLM model runners 0.33.0", "### Config reference: vLLM model runners",
                        "### Deprecations: vLLM model runners", "### Changes by release: vLLM model runners"]
    status, out, err = call("docs", "--table", "all")
    assert [line for line in out.splitlines() if line.startswith("### ")] == [
        *headings[:3], "### Feature pairs: vLLM model runners 0.33.0", *headings[3:],
        "### What changed for users: vLLM model runners"]
    assert out == render(DEFAULT, format="markdown", tables=TABLES)
    status, out, err = call("docs", "--table", "pairs")
    assert out == render(DEFAULT, format="markdown", tables=["pairs"])


def test_a_one_gate_refusal_is_linked_from_every_pair_it_explains():
    # A is served by no runner: every pair with A is served by none, for the reason of the
    # refusal of A alone (only a refusal of both together used to be linked).
    m = matrix.loads('[matrix]\nname = "p"\nversion = "1.0"\n[config]\n"x" = "bool"\n"y" = "bool"\n"z" = "bool"\n'
                     '[features.a]\nname = "A"\nwhen = "x"\nsupport = { r = "no", s = "no" }\n'
                     '[features.b]\nname = "B"\nwhen = "y"\nsupport = { r = "yes", s = "no" }\n'
                     '[features.c]\nname = "C"\nwhen = "z"\nsupport = { r = "no", s = "yes" }\n'
                     '[refusals.only_a]\nreason = "A is refused alone"\ntogether = [["a"]]\n'
                     '[refusals.b_with_c]\nreason = "B and C"\ntogether = [["b"], ["c"]]\n',
                     runners={"r": {"name": "R", "priority": 2}, "s": {"name": "S", "priority": 1}})
    assert render(m, format="markdown", tables=["pairs"]).splitlines()[8:] == [
        "| Feature | 1 | 2 |", "|---|---|---|",
        "| 1. A |  |  |",
        "| 2. B | ❌ none [^refusal-only_a] |  |",
        "| 3. C | ❌ none [^refusal-only_a] | ❌ none [^refusal-b_with_c] |",
        "",
        "[^refusal-only_a]: Refused on purpose (`only_a`): A is refused alone",
        "[^refusal-b_with_c]: Refused on purpose (`b_with_c`): B and C",
    ]
    assert {(p.first.id, p.second.id): p.refusal.id for p in pairs(m)} == {
        ("a", "b"): "only_a", ("a", "c"): "only_a", ("b", "c"): "b_with_c"}


def test_a_removed_gate_of_automatic_choice_only_does_not_hide_a_pair():
    # Z is removed, but only in force in automatic choice: a runner asked for serves a config
    # that makes Z's condition hold, so X and Y are active together (the table said "never").
    m = matrix.loads('[matrix]\nname = "p"\nversion = "1.0"\n[config]\n"a" = "bool"\n"b" = "bool"\n'
                     '[features.x]\nname = "X"\nwhen = "a"\nsupport = { r = "yes" }\n'
                     '[features.y]\nname = "Y"\nwhen = "b"\nsupport = { r = "yes" }\n'
                     '[features.z]\nname = "Z"\nwhen = "a"\napplies = "automatic"\nsupport = { r = "yes" }\n'
                     'deprecated = { since = "0.9", remove_in = "1.0", removed = true }\n',
                     runners={"r": {"name": "R", "priority": 1}})
    assert [(p.first.id, p.second.id, p.kind, p.runners, p.witnesses) for p in pairs(m)] == [
        ("x", "y", "all", ("r",), {"r": {"a": True, "b": True}})]
    assert [f.id for f in m.resolve({"a": True, "b": True}, runner="r").active] == ["x", "y"]
