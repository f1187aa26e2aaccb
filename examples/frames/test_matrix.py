"""The matrix answers as the gate function frames used to keep by hand, for its Polars engine."""

import pathlib

import matrix
from matrix.testing import assert_matches

MATRIX = matrix.load(pathlib.Path(__file__).with_name("features.toml"))


def unsupported_by_polars(config: dict) -> list:
    """The hand-written gate function the matrix replaces: what Polars cannot do."""
    query = config.get("query") or {}
    return ["Python row functions"] if query.get("udf", False) else []


def test_the_matrix_answers_as_the_legacy_gate_function():
    assert_matches(MATRIX, unsupported_by_polars, runner="polars")
