"""Arithmetic across fields (issue 30, F3): ``+ - * // %`` and ``min``/``max`` over ints, and
derived fields (``derive = "…"``), parsed, printed, typed, evaluated alike by the interpreter,
the compiled fast path and `matrix check`'s solver (exactly, by enumerating bounded fields, or
``inconclusive``), and steered by the strategies."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import Predicate, PredicateError
from matrix.check import check
from matrix.schema import Field, Schema
from matrix.strategies import configs

SCHEMA = Schema({
    "tp": Field("tp", "int", min=1, max=8, default=1),
    "dcp": Field("dcp", "int", min=0, max=4, nullable=True, default=None),
    "ratio": Field("ratio", "float", default=0.5),
    "name": Field("name", "str", default=""),
})


@pytest.mark.parametrize(("text", "canonical"), [
    ("tp%dcp==0", "tp % dcp == 0"),
    ("tp-1 == 2", "tp - 1 == 2"),
    ("(tp + 1) * 2 > dcp", "(tp + 1) * 2 > dcp"),
    ("tp - (dcp - 1) < 3", "tp - (dcp - 1) < 3"),
    ("tp - dcp - 1 < 3", "tp - dcp - 1 < 3"),
    ("max(1, tp // dcp) * 2 >= tp - -1", "max(1, tp // dcp) * 2 >= tp - -1"),
    ("min( tp , dcp , 3 ) in [1, 2]", "min(tp, dcp, 3) in [1, 2]"),
    ("not tp * dcp == 4", "not tp * dcp == 4"),
])
def test_arithmetic_prints_canonically_and_parses_back(text, canonical):
    predicate = Predicate(text)
    assert str(predicate) == canonical
    assert Predicate(canonical) == predicate


@pytest.mark.parametrize(("text", "message"), [
    ("tp // 0 == 1", "Division by zero whatever the config: tp // 0 (the divisor is the literal 0)"
                     "\n    tp // 0 == 1\n          ^"),
    ("abs(tp) == 1", "abs(...) is not a function of the language: only min(...) and max(...) are"
                     "\n    abs(tp) == 1\n    ^^^"),
    ("max(tp) == 1", "max(...) takes two or more arguments\n    max(tp) == 1\n    ^^^^^^^"),
    ("max(tp, 1 == 1", "Expected ',' or ')' to close the arguments, found '=='\n    max(tp, 1 == 1\n              ^^"),
])
def test_arithmetic_syntax_errors(text, message):
    with pytest.raises(PredicateError) as excinfo:
        Predicate(text)
    assert str(excinfo.value) == message


@pytest.mark.parametrize(("text", "message"), [
    ("tp * ratio > 1", "'*' takes ints (int fields, int literals, arithmetic), not float 'ratio'"
                       "\n    tp * ratio > 1\n         ^^^^^"),
    ("tp + 1.5 > 1", "'+' takes ints (int fields, int literals, arithmetic), not float 1.5\n    tp + 1.5 > 1\n         ^^^"),
    ("max(tp, name) > 1", "'max(...)' takes ints (int fields, int literals, arithmetic), not str 'name'"
                          "\n    max(tp, name) > 1\n            ^^^^"),
    ("tp + dcp", "The expression tp + dcp cannot stand alone as a condition: compare it (only bool fields, "
                 "nullable sections and lists may stand alone)\n    tp + dcp\n    ^^^^^^^^"),
    ("tp + 1 == 'x'", "Cannot compare the expression tp + 1 with str 'x' using '=='\n    tp + 1 == 'x'\n    ^^^^^^^^^^^^^"),
])
def test_arithmetic_type_errors(text, message):
    with pytest.raises(PredicateError) as excinfo:
        Predicate(text, schema=SCHEMA)
    assert str(excinfo.value) == message


@pytest.mark.parametrize(("text", "config", "expected"), [
    ("tp % dcp == 0", {"tp": 4, "dcp": 2}, True),
    ("tp % dcp == 0", {"tp": 4, "dcp": 3}, False),
    ("tp % dcp == 0", {"tp": 4, "dcp": 0}, False),  # by zero: None
    ("tp % dcp != 0", {"tp": 4, "dcp": 0}, True),  # != is the negation of ==
    ("tp % dcp != 0", {"tp": 4}, True),  # dcp is None: None
    ("tp // dcp < 9", {"tp": 4, "dcp": None}, False),  # None orders with nothing
    ("(0 - tp) // 2 == -2", {"tp": 3}, True),  # floor division, as Python's
    ("(0 - tp) % 2 == 1", {"tp": 3}, True),
    ("max(1, tp // 4) * 3 == 3", {"tp": 2}, True),
    ("min(tp, dcp) == 1", {"tp": 1, "dcp": None}, False),
    # Two Nones are equal, as in Python and as None paths are (docs/reference/predicates.md).
    ("tp // dcp == tp // dcp", {"tp": 4, "dcp": 0}, True),
    ("tp // dcp != tp // dcp", {"tp": 4, "dcp": 0}, False),
    ("tp // dcp == min(tp, dcp)", {"tp": 4, "dcp": None}, True),
])
def test_arithmetic_evaluation(text, config, expected):
    assert Predicate(text, schema=SCHEMA).evaluate(config, schema=SCHEMA) is expected


RUNNERS = {"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}}
HEAD = '''[matrix]
name = "t"
version = "1.0"
[config]
tp = { type = "int", min = 1, max = 8, default = 1 }
dcp = { type = "int", min = 1, max = 8, default = 1 }
heads = { type = "int", min = 1, max = 64, default = 8 }
free = { type = "int", default = 0 }
"par.kv" = { type = "int", derive = "max(1, heads // tp)" }
"par.q" = { type = "int", derive = "heads // tp * dcp // par.kv" }
"par.r" = { type = "int", derive = "heads // (tp - dcp)" }
'''


def _matrix(gates, adjustments=""):
    text = HEAD + "".join(f'[features.g{i}]\nname = "gate {i}"\nwhen = "{w}"\nsupport = {{ a = "no", b = "yes" }}\n'
                          for i, w in enumerate(gates)) + adjustments
    return matrix.loads(text, runners=RUNNERS)


def test_a_derived_field_is_held_to_the_length_a_predicate_is():
    # One check of a source's length, made by the parser for a predicate and an expression alike.
    text = HEAD.replace('derive = "max(1, heads // tp)"', 'derive = "' + "tp + " * 820 + 'tp"')
    with pytest.raises(matrix.LoadError) as excinfo:
        matrix.loads(text, runners=RUNNERS)
    assert str(excinfo.value).splitlines()[:2] == [
        "<string>: 1 problem",
        '  <string>:9:38: $.config["par.kv"].derive: Predicate is 4102 characters long, more than the limit of 4096']


def test_derived_fields_are_typed_from_their_expressions():
    m = _matrix(["par.q > 4"])
    assert m.schema.derived == ("par.kv", "par.q", "par.r")
    assert [m.schema.derivations[p].nullable for p in m.schema.derived] == [False, True, True]
    assert "par.kv" not in m.schema.fields  # no config holds it
    assert str(m.feature("g0").when) == "par.q > 4"
    assert m.feature("g0").when.paths == {"heads", "tp", "dcp"}
    assert repr(m.feature("g0").when.node.left).startswith("DerivedField(path=Path(name='par.q'), expression=")
    from tests.test_predicates import _each_node_is_a_value

    _each_node_is_a_value(m.feature("g0").when)  # the DerivedField node and its expression's
    with pytest.raises(PredicateError) as excinfo:
        Predicate("par.kv is None", schema=m.schema)
    assert excinfo.value.message == ("'par.kv' is never None: its expression reads no field that can be None and "
                                     "divides by nothing that can be zero")


@pytest.mark.parametrize(("config", "active"), [
    ({"tp": 4, "dcp": 3, "heads": 64}, []),  # kv 16, q 3
    ({"tp": 1, "dcp": 8, "heads": 64}, ["g0"]),  # kv 64, q 8
    ({"tp": 2, "dcp": 2, "heads": 8}, ["g1"]),  # r: a zero divisor
    ({"tp": 2, "dcp": 2, "heads": 8, "par": {"kv": 99}}, ["g1"]),  # a value a config holds there is not read
])
def test_derived_fields_resolve_alike_on_the_fast_path_and_the_interpreter(config, active):
    m = _matrix(["par.q > 4", "par.r is None"])
    assert [f.id for f in m.resolve(config).active] == active
    assert [f.id for f in m.features if f.when.evaluate(config, schema=m.schema)] == active


def test_an_adjustment_message_names_a_derived_field_as_the_adjustment_found_it():
    m = _matrix(["par.kv > 4"], '[adjustments.x]\nname = "x"\nwhen = "par.kv > 8"\nset = { tp = 8 }\n'
                                 'message = "{par.kv} KV heads per rank: tp raised to 8"\n')
    resolution = m.resolve({"heads": 64, "tp": 2})
    assert [a.message for a in resolution.adjustments] == ["32 KV heads per rank: tp raised to 8"]
    assert [f.id for f in resolution.active] == ["g0"]  # on the effective config: kv = 64 // 8 = 8


def test_check_decides_arithmetic_over_bounded_fields_exactly():
    # q = heads // tp * dcp // max(1, heads // tp) is dcp, or 0 where tp > heads: at most 8.
    m = _matrix(["tp % dcp == 9", "par.q > 8", "par.q > 7", "tp * dcp == 64 and tp < 8"])
    assert [f.message for f in check(m).findings if f.code in ("never-active", "always-active")] == [
        "gate 0 can never be active: no config satisfies tp % dcp == 9",
        "gate 1 can never be active: no config satisfies par.q > 8",
        "gate 3 can never be active: no config satisfies tp * dcp == 64 and tp < 8",
    ]


def test_check_says_inconclusive_where_a_field_arithmetic_reads_is_unbounded():
    m = _matrix(["free * 2 == 7", "free + tp == 3"])
    messages = [f.message for f in check(m).findings if f.feature == "g0"]
    why = ("Could not decide exactly (not every value of 'free' could be represented: a field that arithmetic across "
           "fields reads (a + b, a % b, a derived field), or that is compared with it, has no min and max or is not an "
           "int, or the fields read together take more than 20000 combinations of values) whether gate 0 can be active")
    assert messages == [why, why + " together; combinations that include them were not searched"]
    # g1 can be active and inactive: witnesses found among the values tried are decisions.
    assert [f.message for f in check(m).findings if f.feature == "g1"] == []


_MATRICES: dict = {}


@settings(max_examples=200, deadline=None)
@given(tp=st.integers(1, 8), dcp=st.integers(1, 8), heads=st.integers(1, 64))
def test_the_fast_path_agrees_with_the_interpreter(tp, dcp, heads):
    m = _MATRICES.setdefault("m", _matrix(["tp % dcp != 0", "par.q > 4", "par.r is None or par.r < 3",
                                           "max(tp, dcp) - min(tp, dcp) == heads % 5"]))
    config = {"tp": tp, "dcp": dcp, "heads": heads}
    assert {f.id for f in m.resolve(config, runner="b").active} == \
        {f.id for f in m.features if f.when.evaluate(config, schema=m.schema)}


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_strategies_steer_toward_and_away_from_arithmetic_gates(data):
    m = _MATRICES.setdefault("steer", _matrix(["par.q == 7", "tp % dcp == 3 and heads > 60"]))
    gate = data.draw(st.sampled_from(["g0", "g1"]))
    config = data.draw(configs(m, active=[gate]))
    assert m.feature(gate).when.evaluate(config, schema=m.schema)
    config = data.draw(configs(m, inactive=[gate]))
    assert not m.feature(gate).when.evaluate(config, schema=m.schema)


def test_a_config_key_naming_a_derived_field_is_refused_as_derived_where_undeclared_keys_are():
    """Found by review: strict resolve said "Not declared in the schema" of a key that names a
    derived field, which [config] declares (it is computed, never given)."""
    m = matrix.loads('[matrix]\nname = "x"\nversion = "1.0"\n[config]\ntp = { type = "int", default = 1 }\n'
                     '"par.kv" = { type = "int", derive = "tp * 2" }\n"kd" = { type = "int", derive = "tp * 3" }\n'
                     '[features.f]\nname = "F"\nwhen = "par.kv > 2 and kd > 2"\nsupport = { r = "yes" }\n',
                     runners={"r": {"name": "R", "priority": 1}})
    said = []
    for config in ({"tp": 2, "par": {"kv": 3}}, {"kd": 1}, {"kdd": 1}):
        with pytest.raises(matrix.ConfigError) as raised:
            m.resolve(config, strict=True)
        said.append(str(raised.value))
    assert said == [
        "Config 'par': Derived fields only (par.kv): computed from other fields by their derive, never given in a config",
        "Config 'kd': A derived field: computed from other fields by its derive, never given in a config",
        "Config 'kdd': Not declared in the schema"]
    assert m.resolve({"tp": 2, "kd": 1}).active[0].id == "f"  # not strict: not read, as any undeclared key
