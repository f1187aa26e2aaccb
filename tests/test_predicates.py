import copy
import pickle
import weakref
import re
import sys
from types import SimpleNamespace

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import matrix
from matrix import ConfigError, Predicate, PredicateError
from matrix import _parser
from matrix.schema import Field, Schema
from packaging.version import Version

SCHEMA = Schema({
    "mode": Field("mode", "str", choices=("none", "align", "all"), default="none"),
    "size": Field("size", "int", min=1, default=1),
    "ratio": Field("ratio", "float", default=0.5),
    "flag": Field("flag", "bool", default=False),
    "spec": Field("spec", "section", nullable=True, default=None),
    "spec.method": Field("spec.method", "str", choices=("eagle", "ngram")),
    "names": Field("names", "list[str]", default=()),
    "torch": Field("torch", "version", default=Version("2.4.0")),
    "backend": Field("backend", "str", nullable=True, default=None),
})


def error_of(text, schema=None):
    with pytest.raises(PredicateError) as excinfo:
        Predicate(text, schema=schema)
    return str(excinfo.value)


def test_grammar_examples_in_the_module_docstring_parse():
    doc = _parser.__doc__
    examples = doc.split("Examples, each of which parses (a test reads them from here)::")[1]
    lines = [line.strip() for line in examples.strip().splitlines() if line.strip()]
    assert len(lines) == 8
    for line in lines:
        assert Predicate(str(Predicate(line))) == Predicate(line)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("a.b==1 and (c or d)", "a.b == 1 and (c or d)"),
        ("a and (b and c)", "a and b and c"),
        ("(a or b) or c", "a or b or c"),
        ("not not x", "not not x"),
        ("not x == 1", "not x == 1"),
        ("not (a and b)", "not (a and b)"),
        ("x in ('a', \"b\",)", "x in ['a', 'b']"),
        ("x not in [1, 2.5, True, None]", "x not in [1, 2.5, True, None]"),
        ("x is not None", "x is not None"),
        ("(x) == ('y')", "x == 'y'"),
        ("(a or b) == True", "(a or b) == True"),
        ("s == 'it\\'s'", "s == \"it's\""),
        ("s == \"tab\\there\"", "s == 'tab\\there'"),
        ("s == '\\u00e9'", "s == 'é'"),
        ("n >= -3 and f < .5e1", "n >= -3 and f < 5.0"),
    ],
)
def test_canonical_text(text, canonical):
    predicate = Predicate(text)
    assert str(predicate) == canonical
    assert Predicate(canonical) == predicate
    assert repr(predicate) == f"Predicate({canonical!r})"


def test_equality_is_by_meaning_not_spelling():
    assert Predicate("a==1") == Predicate("  a == 1 ")
    assert hash(Predicate("a==1")) == hash(Predicate("a == 1"))
    assert Predicate("x == True") != Predicate("x == 1")
    assert Predicate("x == 1") != Predicate("x == 1.0")
    assert Predicate("a and b") != Predicate("b and a")


def test_paths():
    predicate = Predicate("a.b == 1 and (c or d.e is None) and 'x' in f")
    assert predicate.paths == frozenset({"a.b", "c", "d.e", "f"})


SYNTAX_ERRORS = [
    (
        "tensor_parallel_size > 1 and (method == 'eagle'",
        "Expected ')' to close the '(' opened here\n"
        "    tensor_parallel_size > 1 and (method == 'eagle'\n"
        "                                 ~~~~~~~~~~~~~~~~~~^",
    ),
    ("a = 1", "Unknown operator '=': use '==' (a single '=' assigns; predicates compare)\n    a = 1\n      ^"),
    ("a && b", "Unknown operator '&&': use 'and'\n    a && b\n      ^^"),
    ("a || b", "Unknown operator '||': use 'or'\n    a || b\n      ^^"),
    ("!a", "Unknown operator '!': use 'not' or '!='\n    !a\n    ^"),
    ("a / b == 1", "Unknown operator '/': use '//' (the integer quotient: there is no '/')\n    a / b == 1\n      ^"),
    ("a & b", "Unknown operator '&': use 'and'\n    a & b\n      ^"),
    ("a | b", "Unknown operator '|': use 'or'\n    a | b\n      ^"),
    (
        "a < b < c",
        "Chained comparisons are not supported: join the two tests with 'and' before '<'\n    a < b < c\n          ^",
    ),
    ("", "Expected a condition, found end of text\n    \n    ^"),
    ("a ==", "Expected a config path, a value, '(' or '[', found end of text\n    a ==\n        ^"),
    ("x in [1,", "Expected ']' to close the '[' opened here\n    x in [1,\n         ~~~^"),
    ("x in [a]", "Expected a literal value or ']', found 'a'\n    x in [a]\n          ^"),
    ("x in [1 2]", "Expected ',' or ']', found '2'\n    x in [1 2]\n            ^"),
    (
        "_a == 1",
        "Path segment '_a' starts with an underscore; private attributes cannot be read\n    _a == 1\n    ^^",
    ),
    (
        "a.__class__",
        "Path segment '__class__' starts with an underscore; private attributes cannot be read\n"
        "    a.__class__\n      ^^^^^^^^^",
    ),
    ("x == 'abc", "Unterminated string: the ' opened here is never closed on its line\n    x == 'abc\n         ^"),
    ("a b", "Expected a comparison operator (==, !=, <, <=, >, >=, in, not in), found 'b'\n    a b\n      ^"),
    ("a == 1 b", "Expected 'and', 'or' or the end of the predicate, found 'b'\n    a == 1 b\n           ^"),
    ("x is 4", "Expected 'None' after 'is', found '4'\n    x is 4\n         ^"),
    ("x not 4", "Expected 'in' after 'not' in a comparison, found '4'\n    x not 4\n          ^"),
    ("x == 1e999", "Number '1e999' is out of range for a float\n    x == 1e999\n         ^^^^^"),
    ("x == 'a\\q'", "Unknown escape '\\\\q' in string (known: \\\\ \\' \\\" \\n \\r \\t \\xHH \\uHHHH \\UHHHHHHHH)\n    x == 'a\\q'\n           ^^"),
    ("x == 1 ; y", "Expected a path, a value, an operator or a bracket, found ';'\n    x == 1 ; y\n           ^"),
]


@pytest.mark.parametrize(("text", "message"), SYNTAX_ERRORS)
def test_syntax_errors(text, message):
    assert error_of(text) == message


def test_the_comparison_operator_message_is_generated_from_the_operator_table():
    # Every operator the interpreter knows parses, and the message for a missing one lists
    # exactly those, in the table's order.
    for op in matrix.predicates.OPERATORS:
        right = "[1]" if op in ("in", "not in") else "1"
        assert str(Predicate(f"a {op} {right}")) == f"a {op} {right}"
    spellings = ", ".join(matrix.predicates.OPERATORS)
    assert error_of("a b") == f"Expected a comparison operator ({spellings}), found 'b'\n    a b\n      ^"


def test_each_operator_is_one_record_of_the_table_that_every_consumer_reads():
    from matrix import _format, _operators, _tokenizer

    assert [op.spelling for op in _operators.TABLE] == [
        "and", "or", "not", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "is None", "is not None", "%", "+", "-", "*", "//"]
    # The parser, the interpreter, the grammar the docs show and the tokenizer's words.
    assert _parser.COMPARISONS == ("==", "!=", "<", "<=", ">", ">=", "in", "not in")
    assert tuple(matrix.predicates.OPERATORS) == _parser.COMPARISONS
    assert "\n    COMPARISON := '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not' 'in'\n" in _parser.__doc__
    assert _tokenizer.KEYWORDS == {"and", "or", "not", "in", "is", "None", "True", "False"}
    assert _tokenizer.RULES["OP"].pattern == "==|!=|<=|>=|<|>"
    # The steering of the strategies: the comparisons each type of field is drawn with.
    assert {kind: _operators.comparisons_for(kind) for kind in ("int", "float", "version", "str", "bool")} == {
        "int": ("==", "!=", "<", "<=", ">", ">="), "float": ("==", "!=", "<", "<=", ">", ">="),
        "version": ("==", "!=", "<", "<=", ">", ">="), "str": ("==", "!="), "bool": ("==", "!=")}
    # The editor's description of the language.
    assert _format.PREDICATE == (
        "A predicate over the config (Python-like: and, or, not, ==, in, is None, path % 16, a * b // c). "
        "Its syntax and types are checked by `matrix check`, not by this schema.")


def test_a_comparison_spelt_in_words_names_the_word_it_needs_next():
    assert error_of("a not 3") == (
        "Expected 'in' after 'not' in a comparison, found '3'\n"
        "    a not 3\n"
        "          ^"
    )


def test_limits_are_errors_not_crashes():
    deep = "not " * 100 + "x"
    message = error_of(deep)
    assert message.startswith("Predicate nests deeper than the limit of 64 levels\n")
    parens = "(" * 200 + "x" + ")" * 200
    assert error_of(parens).startswith("Predicate nests deeper than the limit of 64 levels\n")
    long_list = "x in [" + ",".join(["1"] * 1100) + "]"
    assert error_of(long_list).startswith("List literal has more than the limit of 1024 items\n")
    huge = "x == 1 or " * 500 + "x == 1"
    assert error_of(huge).startswith(f"Predicate is {len(huge)} characters long, more than the limit of 4096\n")


TYPE_ERRORS = [
    ("mode == 'alll'", "'alll' is not a choice of 'mode' (expected one of 'align', 'all', 'none'), did you mean 'all'\n    mode == 'alll'\n            ^^^^^^"),
    ("mod == 'all'", "Unknown config path 'mod', did you mean 'mode'\n    mod == 'all'\n    ^^^"),
    ("spec.methd == 'eagle'", "Unknown config path 'spec.methd', did you mean 'spec.method'\n    spec.methd == 'eagle'\n    ^^^^^^^^^^"),
    ("mode == 4", "Cannot compare str 'mode' with int 4 using '=='\n    mode == 4\n            ^"),
    ("size == 'x'", "Cannot compare int 'size' with str 'x' using '=='\n    size == 'x'\n            ^^^"),
    ("flag < True", "Cannot order bool 'flag' with '<': only int, float and version values are ordered\n    flag < True\n    ^^^^^^^^^^^"),
    ("mode > 'a'", "Cannot order str 'mode' with '>': only int, float and version values are ordered\n    mode > 'a'\n    ^^^^^^^^^^"),
    ("size", "int 'size' cannot stand alone as a condition: compare it (only bool fields, nullable sections and lists may stand alone)\n    size\n    ^^^^"),
    ("mode and flag", "str 'mode' cannot stand alone as a condition: compare it (only bool fields, nullable sections and lists may stand alone)\n    mode and flag\n    ^^^^"),
    ("'abc'", "The value 'abc' cannot stand alone as a condition: compare it (only bool fields, nullable sections and lists may stand alone)\n    'abc'\n    ^^^^^"),
    ("size is None", "'size' is never None: declare it nullable to test it with 'is None'\n    size is None\n    ^^^^^^^^^^^^"),
    ("mode == None", "'mode' is never None: declare it nullable to test it with 'is None'\n    mode == None\n            ^^^^"),
    ("mode in ['all', 'sum']", "'sum' is not a choice of 'mode' (expected one of 'align', 'all', 'none')\n    mode in ['all', 'sum']\n                    ^^^^^"),
    ("'x' in mode", "The right side of 'in' must be a list literal or a list field, not str 'mode'\n    'x' in mode\n           ^^^^"),
    ("1 in names", "Cannot compare int 1 with list[str] 'names' using 'in'\n    1 in names\n    ^^^^^^^^^^"),
    ("torch >= 'two'", "'two' is not a valid PEP 440 version, so it cannot be compared with 'torch'\n    torch >= 'two'\n             ^^^^^"),
    ("1 is None", "Only a config path can be tested with 'is None', not int 1\n    1 is None\n    ^"),
    ("torch < 20.10", "Cannot compare version 'torch' with float 20.1 using '<': write the version in quotes, "
                      "'20.10' (as a number, 20.10 is the float 20.1)\n    torch < 20.10\n            ^^^^^"),
    ("torch >= 2", "Cannot compare version 'torch' with int 2 using '>=': write the version in quotes, '2'"
                   "\n    torch >= 2\n             ^"),
    ("torch in [2.5, '3']", "Cannot compare version 'torch' with float 2.5 using 'in': write the version in quotes, '2.5'"
                            "\n    torch in [2.5, '3']\n              ^^^"),
    ("mode == 'ALL'", "'ALL' is not a choice of 'mode' (expected one of 'align', 'all', 'none'), did you mean 'all'"
                      "\n    mode == 'ALL'\n            ^^^^^"),
]


@pytest.mark.parametrize(("text", "message"), TYPE_ERRORS)
def test_type_errors(text, message):
    assert error_of(text, SCHEMA) == message


@pytest.mark.parametrize(
    "text",
    [
        "mode == 'all'",
        "size > 1 and ratio <= 0.75 and size == 2.0",
        "flag",
        "not flag or spec",
        "spec is None or spec.method == 'eagle'",
        "names",
        "'x' in names and 'y' not in names",
        "mode in ('all', 'align')",
        "torch >= '2.5' and torch < '3'",
        "backend is not None and backend == 'ray'",
        "(size > 1) == flag",
    ],
)
def test_well_typed_predicates(text):
    Predicate(text, schema=SCHEMA)


EVALUATIONS = [
    ("mode == 'all'", {"mode": "all"}, True),
    ("mode == 'all'", {}, False),
    ("size > 1", {"size": 2}, True),
    ("size > 1", {}, False),
    ("spec.method == 'eagle'", {"spec": None}, False),
    ("spec.method == 'eagle'", {}, False),
    ("spec.method != 'eagle'", {}, True),
    ("spec.method == 'eagle'", {"spec": {"method": "eagle"}}, True),
    ("spec", {"spec": {"method": "ngram"}}, True),
    ("spec", {}, False),
    ("names", {"names": []}, False),
    ("names", {"names": ["a"]}, True),
    ("'a' in names", {"names": ["a"]}, True),
    ("torch >= '2.10'", {"torch": "2.10.0"}, True),
    ("torch >= '2.10'", {}, False),
    ("torch == '2.4'", {}, True),
    ("backend in ['ray', 'mp']", {}, False),
    ("backend not in ['ray', 'mp']", {}, True),
    ("backend is None", {}, True),
]


@pytest.mark.parametrize(("text", "config", "expected"), EVALUATIONS)
def test_evaluation_with_schema(text, config, expected):
    assert Predicate(text, schema=SCHEMA).evaluate(config, schema=SCHEMA) is expected


def test_none_follows_python_and_type_errors_are_false_without_schema():
    config = {"x": None, "s": "a", "n": 4}
    assert Predicate("x == 4").evaluate(config) is False
    assert Predicate("x != 4").evaluate(config) is True
    assert Predicate("x < 4").evaluate(config) is False
    assert Predicate("x >= 4").evaluate(config) is False
    assert Predicate("x in ['a']").evaluate(config) is False
    assert Predicate("x not in ['a']").evaluate(config) is True
    assert Predicate("'a' in x").evaluate(config) is False
    assert Predicate("'a' not in x").evaluate(config) is True
    assert Predicate("s < 4").evaluate(config) is False
    assert Predicate("x.y.z == 1").evaluate(config) is False


def test_configs_of_every_kind():
    import dataclasses

    import attrs

    @dataclasses.dataclass
    class Spec:
        method: str

    @attrs.define
    class Root:
        spec: object
        mode: str

    for config in (
        {"spec": {"method": "eagle"}, "mode": "all"},
        SimpleNamespace(spec=SimpleNamespace(method="eagle"), mode="all"),
        Root(spec=Spec("eagle"), mode="all"),
        {"spec": Spec("eagle"), "mode": "all"},
    ):
        predicate = Predicate("spec.method == 'eagle' and mode == 'all'", schema=SCHEMA)
        assert predicate.evaluate(config, schema=SCHEMA) is True


def test_pydantic_models_are_configs():
    import pydantic

    class Spec(pydantic.BaseModel):
        method: str

    class Root(pydantic.BaseModel):
        spec: Spec
        other: int = 3

    predicate = Predicate("spec.method == 'ngram'", schema=SCHEMA)
    assert predicate.evaluate(Root(spec=Spec(method="ngram")), schema=SCHEMA) is True


def test_enums_read_as_names_or_values():
    import enum

    class Mode(enum.IntEnum):
        none = 0
        all = 1

    class StrMode(str, enum.Enum):
        ALL = "all"

    predicate = Predicate("mode == 'all'", schema=SCHEMA)
    assert predicate.evaluate({"mode": Mode.all}, schema=SCHEMA) is True
    assert predicate.evaluate({"mode": StrMode.ALL}, schema=SCHEMA) is True


CONFIG_ERRORS = [
    ("mode == 'all'", {"mode": 4}, "Config 'mode': Expected str, got int 4"),
    ("mode == 'all'", {"mode": "alll"}, "Config 'mode': 'alll' is not one of 'align', 'all', 'none', did you mean 'all'"),
    ("size > 1", {"size": 0}, "Config 'size': 0 is less than the minimum 1"),
    ("size > 1", {"size": True}, "Config 'size': Expected int, got bool True"),
    ("size > 1", {"size": "2"}, "Config 'size': Expected int, got str '2'"),
    ("flag", {"flag": 1}, "Config 'flag': Expected bool, got int 1: write True or False (1 and 0 are not read as booleans)"),
    ("spec.method == 'eagle'", {"spec": {}}, "Config 'spec.method': Missing, and the schema gives no default"),
    ("spec.method == 'eagle'", {"spec": 3}, "Config 'spec': Expected a section, got int 3"),
    ("names", {"names": "ab"}, "Config 'names': Expected list[str], got str 'ab'"),
    ("names", {"names": ["a", 1]}, "Config 'names': Expected list[str] items of type str, got int 1"),
    ("torch > '2'", {"torch": "two"}, "Config 'torch': Invalid version 'two': expected a PEP 440 version such as '0.31.0'"),
    ("mode == 'all'", {"mode": None}, "Config 'mode': Is None, but the schema does not declare it nullable"),
]


@pytest.mark.parametrize(("text", "config", "message"), CONFIG_ERRORS)
def test_config_errors(text, config, message):
    with pytest.raises(ConfigError) as excinfo:
        Predicate(text, schema=SCHEMA).evaluate(config, schema=SCHEMA)
    assert str(excinfo.value) == message
    assert isinstance(excinfo.value, KeyError)


def test_a_property_that_raises_is_a_config_error():
    class Hostile:
        @property
        def mode(self):
            raise RuntimeError("boom")

    with pytest.raises(ConfigError) as excinfo:
        Predicate("mode == 'all'").evaluate(Hostile())
    assert str(excinfo.value) == "Config 'mode': Reading it raised RuntimeError: boom"


def test_missing_without_schema_is_a_config_error():
    with pytest.raises(ConfigError) as excinfo:
        Predicate("a.b == 1").evaluate({"a": {}})
    assert str(excinfo.value) == "Config 'a.b': Missing, and the schema gives no default"


def test_predicate_takes_text_only():
    with pytest.raises(TypeError, match=re.escape("Predicate() takes a str, not int")):
        Predicate(3)


# --- properties ------------------------------------------------------------------------

_names = st.from_regex(r"[a-z][a-z0-9_]{0,5}(\.[a-z][a-z0-9_]{0,5}){0,2}", fullmatch=True).filter(
    lambda n: not any(part in {"and", "or", "not", "in", "is"} for part in n.split("."))
)
_literals = st.one_of(
    st.text(max_size=6), st.integers(-10**6, 10**6), st.booleans(), st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
)
_ops = st.sampled_from(list(matrix.predicates.OPERATORS))


def _tests():
    literal = _literals.map(repr)
    listing = st.lists(_literals.map(repr), min_size=1, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]")
    compare = st.builds(lambda a, op, b: f"{a} {op} {b}", _names, _ops, st.one_of(literal, listing, _names))
    is_none = st.builds(lambda a, neg: f"{a} is {'not ' if neg else ''}None", _names, st.booleans())
    remainder = st.builds(lambda a, d, op, b: f"{a} % {d} {op} {b}", _names, st.integers(1, 10 ** 6), _ops,
                          st.one_of(literal, _names))
    arith = st.builds(lambda a, op, b, c: f"{a} {op} {b} > {c}", _names, st.sampled_from(["+", "-", "*", "//", "%"]),
                      st.one_of(_names, st.integers(1, 9).map(str)), st.integers(-9, 9))
    call = st.builds(lambda f, a, b: f"{f}({a}, {b}) == 2", st.sampled_from(["min", "max"]), _names, _names)
    return st.one_of(_names, compare, is_none, remainder, arith, call)


def _each_node_is_a_value(predicate):
    """Every node of the tree (a `matrix._record.Record`) equals, hashes and prints as its copies,
    its pickle and ``replace()`` do, keeps its span, and refuses an edit as attrs' classes did."""
    from matrix._nodes import walk

    for node in walk(predicate.node):
        for other in (copy.copy(node), copy.deepcopy(node), pickle.loads(pickle.dumps(node)), node.replace()):
            assert (type(other), other, hash(other), repr(other), other.span) == (
                type(node), node, hash(node), repr(node), node.span)
        for edit, args in ((setattr, (node, "span", (1, 2))), (delattr, (node, "span"))):
            with pytest.raises(attrs.exceptions.FrozenInstanceError) as caught:
                edit(*args)
            assert caught.exconly() == "attr.exceptions.FrozenInstanceError: can't set attribute"
        assert weakref.ref(node)() is node  # as attrs' slotted classes


_sources = st.recursive(
    _tests(),
    lambda inner: st.one_of(
        st.builds(lambda a, b: f"{a} and {b}", inner, inner),
        st.builds(lambda a, b: f"({a}) or {b}", inner, inner),
        st.builds(lambda a: f"not ({a})", inner),
    ),
    max_leaves=8,
)


@given(_sources)
def test_printed_predicates_parse_back_to_equal_ones(source):
    predicate = Predicate(source)
    again = Predicate(str(predicate))
    assert again == predicate
    assert str(again) == str(predicate)
    assert hash(again) == hash(predicate)
    _each_node_is_a_value(predicate)


@given(st.text(max_size=60) | st.text(alphabet="ab.()[]'\"=!<> ,0123456789noti%", max_size=40)
       | st.lists(st.sampled_from(["size", "sise", "mode", "=", "=<", "==", "'all", "'", "and", "(", ")", "2", "max",
                                   ",", "#"]), max_size=8).map(" ".join))
def test_any_text_gives_a_predicate_or_a_predicate_error(text):
    try:
        predicate = Predicate(text)
    except PredicateError as error:
        assert error.message
        assert str(error).startswith(error.message + "\n    ")
    else:
        assert Predicate(str(predicate)) == predicate
    # Against a schema: a predicate, or errors in source order, at most one of them no unknown
    # path (the syntax error) where the text does not parse.
    checked, errors = Predicate.checked(text, schema=SCHEMA)
    assert (checked is None) == bool(errors)
    assert [e.span for e in errors] == sorted(e.span for e in errors)
    try:
        Predicate(text)
    except PredicateError:
        assert sum(not e.message.startswith("Unknown config path") for e in errors) <= 1


@given(st.data())
def test_typed_predicates_print_parse_and_evaluate_alike(data):
    from matrix.strategies import predicate_sources

    text = data.draw(predicate_sources(SCHEMA))
    predicate = Predicate(text, schema=SCHEMA)
    again = Predicate(str(predicate), schema=SCHEMA)
    assert again == predicate
    _each_node_is_a_value(predicate)
    config = {"mode": data.draw(st.sampled_from(["none", "align", "all"])), "size": data.draw(st.integers(1, 20)),
              "spec": data.draw(st.none() | st.just({"method": "eagle"})), "names": data.draw(st.lists(st.sampled_from("ab"))),
              "flag": data.draw(st.booleans()), "ratio": 0.25, "backend": None}
    assert predicate.evaluate(config, schema=SCHEMA) == again.evaluate(config, schema=SCHEMA)


@given(st.data())
def test_composed_predicates_are_the_predicates_of_the_joined_text(data):
    from matrix.strategies import predicates

    p, q = data.draw(predicates(SCHEMA)), data.draw(predicates(SCHEMA))
    for composed, text in ((p & q, f"({p}) and ({q})"), (p | q, f"({p}) or ({q})"), (~p, f"not ({p})")):
        parsed = Predicate(text, schema=SCHEMA)
        assert (composed, str(composed), composed.source, composed.paths) == (parsed, str(parsed), str(parsed), parsed.paths)


def test_predicates_compose_only_with_predicates_and_their_tree_is_read_only():
    p = Predicate("a and (b or c)")
    assert str(p & Predicate("d and e") | ~Predicate("not f")) == "a and (b or c) and d and e or not not f"
    with pytest.raises(TypeError) as caught:
        p & "d"
    assert caught.exconly() == "TypeError: unsupported operand type(s) for &: 'Predicate' and 'str'"
    assert p.node == Predicate("a and (b or c)").node and p.node.operands[1] == Predicate("b or c").node
    with pytest.raises(AttributeError) as caught:
        p.node = Predicate("d").node
    # Python's own words for a property without a setter, as each version says them.
    said = ("can't set attribute" if sys.version_info < (3, 10) else "can't set attribute 'node'"
            if sys.version_info < (3, 11) else "property 'node' of 'Predicate' object has no setter")
    assert caught.exconly() == f"AttributeError: {said}"


def test_the_nodes_print_their_fields_and_compare_without_their_spans():
    node = Predicate("a.b > 1 and not (c in [1, 'x', True]) or d % 4 == 0 or e is not None or max(f, 2) - g == 1").node
    assert repr(node) == (
        "Or(operands=(And(operands=(Compare(left=Path(name='a.b'), op='>', right=Literal(value=1)), "
        "Not(operand=Compare(left=Path(name='c'), op='in', right=ListLiteral(items=(Literal(value=1), "
        "Literal(value='x'), Literal(value=True))))))), Compare(left=Mod(path=Path(name='d'), divisor=4), op='==', "
        "right=Literal(value=0)), IsNone(operand=Path(name='e'), negated=True), Compare(left=Arith(left=Call(name='max', "
        "args=(Path(name='f'), Literal(value=2))), op='-', right=Path(name='g')), op='==', right=Literal(value=1))))")
    assert node.operands[2].operand.span == (55, 56)  # "e"
    assert node.operands[2].operand == matrix.Path("e") and hash(node.operands[2].operand) == hash(matrix.Path("e"))
    # True == 1 == 1.0 in Python; as literals of the language they differ.
    assert (matrix.Literal(True) == matrix.Literal(1), matrix.Literal(1) == matrix.Literal(1.0)) == (False, False)
    assert (matrix.Path("e") == matrix.Literal("e"), matrix.Path("e") != matrix.Path("f")) == (False, True)
    e, one = matrix.Path("e"), matrix.Literal(1)  # the same fields, not the same node
    assert (matrix.Arith(e, "+", one) == matrix.Compare(e, "+", one), matrix.And((e,)) == matrix.Or((e,))) == (False, False)
    assert node.replace(operands=node.operands[1:3]) == Predicate("d % 4 == 0 or e is not None").node
    assert (matrix.Path.__match_args__, matrix.Compare.__match_args__) == (("name", "span"), ("left", "op", "right", "span"))

    class Quoted(matrix.Literal):  # a subclass keeps the literals' own equality (True != 1)
        __slots__ = ()

    assert (Quoted(True) == Quoted(1), Quoted(1) == Quoted(1), Quoted(1) == matrix.Literal(1)) == (False, True, False)


def test_checked_returns_every_type_error_instead_of_raising():
    predicate, errors = Predicate.checked("size == 'a' or mode == 3", schema=SCHEMA)
    assert predicate is None
    assert [e.message for e in errors] == [
        "Cannot compare int 'size' with str 'a' using '=='", "Cannot compare str 'mode' with int 3 using '=='"]
    predicate, errors = Predicate.checked("size > 2", schema=SCHEMA)
    assert (predicate, errors) == (Predicate("size > 2"), [])


@pytest.mark.parametrize(("source", "said"), [
    # Trial 12: the syntax error hid the unknown paths around it.
    ("sise > 2 and mode =< 'all' or max(size, 2) > ratoi", [
        ((0, 4), "Unknown config path 'sise', did you mean 'size'"),
        ((18, 19), "Unknown operator '=': use '==' (a single '=' assigns; predicates compare)"),
        ((45, 50), "Unknown config path 'ratoi', did you mean 'ratio'")]),
    # The words of a string left open are no paths; nor is a name in an operator's place.
    ("mode == 'all and sise", [((8, 9), "Unterminated string: the ' opened here is never closed on its line")]),
    ("flag sise", [((5, 9), "Expected a comparison operator (==, !=, <, <=, >, >=, in, not in), found 'sise'")]),
    ("fleg and (flag", [((0, 4), "Unknown config path 'fleg', did you mean 'flag'"),
                        ((9, 15), "Expected ')' to close the '(' opened here")]),
])
def test_checked_returns_the_unknown_paths_beside_a_syntax_error(source, said):
    predicate, errors = Predicate.checked(source, schema=SCHEMA)
    assert predicate is None
    assert [(e.span, e.message) for e in errors] == said
    with pytest.raises(matrix.PredicateError) as excinfo:  # the first in source order
        Predicate(source, schema=SCHEMA)
    assert excinfo.value.message == said[0][1]


# --- semantics that the resolver, the interpreter and matrix check share ---------------------------

_SEMANTICS = """
[matrix]
name = "t"
version = "1"
[config]
"a" = { type = "bool", nullable = true }
"b" = { type = "bool", default = true }
"spec" = { type = "section", nullable = true }
"spec.method" = { type = "str", choices = ["x", "y"] }
[features.and_is_bool]
name = "and is a bool"
when = "(a and b) == False"
support = { r = "yes" }
[features.method_none]
name = "method is None"
when = "spec.method is None"
support = { r = "yes" }
"""


def test_and_or_yield_a_bool_everywhere_and_a_path_under_a_nullable_section_may_be_tested_for_none():
    import matrix
    from matrix._space import Space

    m = matrix.loads(_SEMANTICS, runners={"r": {"name": "R", "priority": 1}})
    gate, method = m.feature("and_is_bool"), m.feature("method_none")
    # Python would answer `(None and True) == False` with False; here `and` gives False, so True.
    assert gate.when.evaluate({"a": None, "b": True}) is True
    assert [f.id for f in m.resolve({"a": None}).active] == ["and_is_bool", "method_none"]
    space = Space(m.schema, [gate.when.node, method.when.node])
    assert space.truth(gate.when.node, {"a": None, "b": True}) is True
    # `spec.method is None` holds exactly when spec is None (method itself is never None).
    assert method.when.evaluate({"spec": None}) is True
    assert method.when.evaluate({"spec": {"method": "x"}}) is False
    assert m.resolve({"a": True, "spec": {"method": "x"}}).active == ()
