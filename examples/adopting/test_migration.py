"""Before deleting host/gates.py: the matrix answers as it does, on steered random configs."""

import matrix
from matrix.testing import Choice, assert_matches

from host import config as host
from host.gates import pandas_unsupported

MATRIX = matrix.load("features.toml")


def build(values: dict) -> host.FramesConfig:
    """A config dict drawn from the schema, as the host's own objects."""
    query = dict(values.get("query", {}))
    if "join" in query:
        query["join"] = host.Join(query["join"])
    spill = values.get("spill")
    return host.FramesConfig(
        io=host.IoConfig(**values.get("io", {})),
        query=host.QueryConfig(**query),
        spill=None if spill is None else host.SpillConfig(**spill),
    )


def legacy(config: host.FramesConfig, facts: dict) -> list:
    return pandas_unsupported(config, pyarrow=facts["platform.has_pyarrow"])


def test_the_matrix_answers_as_the_legacy_gate_function():
    assert_matches(MATRIX, legacy, runner="pandas", build=build)


def legacy_choice(config: host.FramesConfig, facts: dict, runner=None) -> Choice:
    """frames' choice: Polars unless a row function needs pandas; a request an engine cannot serve is refused."""
    pandas = pandas_unsupported(config, pyarrow=facts["platform.has_pyarrow"])
    polars = ["Python row functions"] if config.query.udf else []
    if runner is None:
        runner = "pandas" if polars else "polars"
        if polars and pandas:
            raise ValueError("No engine can run this query")
    elif {"polars": polars, "pandas": pandas}[runner]:
        raise ValueError(f"{runner} cannot run this query")
    return Choice(runner, {"polars": polars, "pandas": pandas})


def test_the_matrix_chooses_as_the_legacy_code():
    reached = assert_matches(MATRIX, legacy_choice, build=build, refuses=ValueError)
    assert reached.missed == (), str(reached)
