"""Before deleting host/gates.py: the matrix answers as it does, on steered random configs."""

import matrix
from matrix.testing import assert_matches

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
