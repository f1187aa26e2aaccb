"""``path % INT``: parsed, printed, typed, evaluated alike by the interpreter, the compiled fast
path and `matrix check`'s solver (exactly, by residue classes), and steered by the strategies."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import Predicate, PredicateError
from matrix._space import Space
from matrix.check import check
from matrix.schema import Field, Schema
from matrix.strategies import configs

SCHEMA = Schema({
    "s": Field("s", "section"),
    "s.block": Field("s.block", "int", min=1, nullable=True, default=None),
    "s.head": Field("s.head", "int", min=1, default=128),
    "s.ratio": Field("s.ratio", "float", default=0.5),
    "s.flag": Field("s.flag", "bool", default=False),
})


def error_of(text, schema=None):
    with pytest.raises(PredicateError) as excinfo:
        Predicate(text, schema=schema)
    return str(excinfo.value)


@pytest.mark.parametrize(("text", "canonical"), [
    ("a%16==0", "a % 16 == 0"),
    ("(a % 16) < 2 and b.c % 3 != 1", "a % 16 < 2 and b.c % 3 != 1"),
    ("not a % 2 == 0", "not a % 2 == 0"),
    ("a % +4 in [0, 1]", "a % 4 in [0, 1]"),
    ("0 == a % 7", "0 == a % 7"),
    # Since arithmetic across fields (issue 30, F3), '%' by anything but a positive literal is arithmetic.
    ("a % b == 0", "a % b == 0"),
    ("3 % 2 == 1", "3 % 2 == 1"),
    ("a % 2 % 3 == 0", "a % 2 % 3 == 0"),
    ("a % -2 == 0", "a % -2 == 0"),
])
def test_remainders_print_canonically_and_parse_back(text, canonical):
    predicate = Predicate(text)
    assert str(predicate) == canonical
    assert Predicate(canonical) == predicate


@pytest.mark.parametrize(("text", "message"), [
    ("a % 0 == 1", "Division by zero whatever the config: a % 0 (the divisor is the literal 0)\n    a % 0 == 1\n        ^"),
    ("a // 0 == 1", "Division by zero whatever the config: a // 0 (the divisor is the literal 0)"
                    "\n    a // 0 == 1\n         ^"),
    ("a %", "Expected a config path, a value, '(' or '[', found end of text\n    a %\n       ^"),
    ("a % % 2", "Expected a config path, a value, '(' or '[', found '%'\n    a % % 2\n        ^"),
])
def test_remainder_syntax_errors(text, message):
    assert error_of(text) == message


@pytest.mark.parametrize(("text", "message"), [
    ("s.ratio % 2 == 0", "'%' takes an int field, not float 's.ratio'\n    s.ratio % 2 == 0\n    ^^^^^^^"),
    ("s.flag % 2 == 0", "'%' takes an int field, not bool 's.flag'\n    s.flag % 2 == 0\n    ^^^^^^"),
    ("s.head % 8", "The remainder s.head % 8 cannot stand alone as a condition: compare it (only bool "
                   "fields, nullable sections and lists may stand alone)\n    s.head % 8\n    ^^^^^^^^^^"),
    ("s.head % 8 == 'x'", "Cannot compare the remainder s.head % 8 with str 'x' using '=='"
                          "\n    s.head % 8 == 'x'\n    ^^^^^^^^^^^^^^^^^"),
    ("s.head % 8 in ['a']", "Cannot compare the remainder s.head % 8 with the list ['a'] using 'in'"
                            "\n    s.head % 8 in ['a']\n    ^^^^^^^^^^^^^^^^^^^"),
    ("s.hed % 8 == 0", "Unknown config path 's.hed', did you mean 's.head'\n    s.hed % 8 == 0\n    ^^^^^"),
])
def test_remainder_type_errors(text, message):
    assert error_of(text, SCHEMA) == message


@pytest.mark.parametrize(("text", "config", "expected"), [
    ("s.block % 16 == 0", {"s": {"block": 32}}, True),
    ("s.block % 16 == 0", {"s": {"block": 24}}, False),
    ("s.block % 16 == 0", {"s": {"block": None}}, False),  # the remainder of None is None
    ("s.block % 16 != 0", {"s": {"block": None}}, True),  # != is the negation of ==
    ("s.block % 16 < 8", {"s": {}}, False),  # None orders with nothing
    ("s.block is None or s.block % 16 == 0", {"s": {}}, True),
    ("s.head % 8 == 0 and s.head <= 256", {"s": {}}, True),
    ("s.head % 3 in [1, 2]", {"s": {"head": 7}}, True),
])
def test_remainder_evaluation(text, config, expected):
    assert Predicate(text, schema=SCHEMA).evaluate(config, schema=SCHEMA) is expected


def test_without_a_schema_the_remainder_of_anything_but_an_int_is_none():
    predicate = Predicate("a % 4 == 0")
    assert [predicate.evaluate({"a": v}) for v in (8, 9, True, 8.0, "8", None)] == [True, False, False, False, False,
                                                                                     False]


def _matrix(tmp_path, when, support=None):
    (tmp_path / "runners").mkdir(exist_ok=True)
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 2\n')
    (tmp_path / "runners" / "b.toml").write_text('name = "B"\npriority = 1\n')
    gates = "".join(f'[features.g{i}]\nname = "gate {i}"\nwhen = {w!r}\nsupport = {{ a = "{s}", b = "yes" }}\n'
                    for i, (w, s) in enumerate(zip(when, support or ["no"] * len(when))))
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "t"\nversion = "1.0"\n[config]\n'
        '"s.block" = { type = "int", min = 1, nullable = true }\n"s.head" = { type = "int", min = 1, default = 128 }\n'
        + gates)
    return matrix.load(tmp_path / "features.toml")


_GATES = ["s.block % 16 == 0", "s.block is None or s.block % 64 != 0", "s.head % 8 == 0 and s.head > 256",
          "s.head % 3 == 2 or s.block % 6 >= 4", "s.head % 12 < 5 and s.head < 100"]


@settings(max_examples=300, deadline=None)
@given(block=st.none() | st.integers(1, 10 ** 6), head=st.integers(1, 10 ** 6), data=st.data())
def test_the_fast_path_agrees_with_the_interpreter(tmp_path_factory, block, head, data):
    m = _MATRICES.setdefault("m", _matrix(tmp_path_factory.mktemp("m"), _GATES))
    config = {"s": {"block": block, "head": head}}
    as_dicts = {f.id for f in m.resolve(config, runner="b").active}
    expected = {f.id for f in m.features if f.when.evaluate(config, schema=m.schema)}
    assert as_dicts == expected


_MATRICES: dict = {}


def test_the_solver_splits_int_domains_into_residue_classes():
    nodes = [Predicate(t, schema=SCHEMA).node for t in ("s.head % 8 == 0 and s.head <= 256", "s.head % 16 != 0")]
    space = Space(SCHEMA, nodes)
    # below 256: not a multiple of 8, a multiple of 8 but not of 16, a multiple of 16; then 256, then above.
    assert space.domains["s.head"] == [1, 2, 8, 16, 256, 257, 264, 272]


def test_check_is_exact_with_remainders(tmp_path):
    m = _matrix(tmp_path, ["s.head % 4 == 5", "s.head % 4 == 1 and s.head % 2 == 0", "s.head % 6 == 3",
                           "s.head % 2 == 1 and s.head % 3 == 0"], support=["no", "no", "yes", "yes"])
    messages = [f.message for f in check(m).findings]
    assert messages == [
        "gate 0 can never be active: no config satisfies s.head % 4 == 5",
        "gate 1 can never be active: no config satisfies s.head % 4 == 1 and s.head % 2 == 0",
        "gate 3 has a condition equivalent to that of gate 2 and the same support: merge the two",
        "B is never chosen automatically: A is never blocked",
    ]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_strategies_steer_toward_each_residue_class(tmp_path_factory, data):
    m = _MATRICES.setdefault("steer", _matrix(tmp_path_factory.mktemp("steer"), [
        "s.block % 64 == 0 and s.block > 1000", "s.head % 7 == 3 and s.head > 5000"]))
    gate = data.draw(st.sampled_from(["g0", "g1"]))
    config = data.draw(configs(m, active=[gate]))
    assert m.feature(gate).when.evaluate(config, schema=m.schema)
    config = data.draw(configs(m, inactive=[gate]))
    assert not m.feature(gate).when.evaluate(config, schema=m.schema)
