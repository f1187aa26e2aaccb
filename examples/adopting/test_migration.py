"""Before deleting host/gates.py: the matrix answers as it does, on steered random configs."""

import matrix
from matrix.testing import Choice, assert_matches

from host import config as host
from host.gates import get_v2_unsupported_features

MATRIX = matrix.load("features.toml")


def build(values: dict) -> host.VllmConfig:
    """A config dict drawn from the schema, as the host's own objects."""
    compilation = dict(values.get("compilation_config", {}))
    if "mode" in compilation:
        compilation["mode"] = host.CompilationMode[compilation["mode"]]
    speculative = values.get("speculative_config")
    return host.VllmConfig(
        cache_config=host.CacheConfig(**values.get("cache_config", {})),
        parallel_config=host.ParallelConfig(**values.get("parallel_config", {})),
        compilation_config=host.CompilationConfig(**compilation),
        speculative_config=None if speculative is None else host.SpeculativeConfig(**speculative),
    )


def legacy(config: host.VllmConfig, facts: dict) -> list:
    return get_v2_unsupported_features(config, triton=facts["platform.has_triton"])


def test_the_matrix_answers_as_the_legacy_gate_function():
    assert_matches(MATRIX, legacy, runner="v2", build=build)


def legacy_choice(config: host.VllmConfig, facts: dict, runner=None) -> Choice:
    """The host's choice: V2 unless it cannot serve; a request for it that it cannot serve is refused."""
    blocked = get_v2_unsupported_features(config, triton=facts["platform.has_triton"])
    if runner is None:
        runner = "v1" if blocked else "v2"
    elif runner == "v2" and blocked:
        raise ValueError(f"Model Runner V2 does not support: {', '.join(blocked)}")
    return Choice(runner, {"v2": blocked, "v1": []})


def test_the_matrix_chooses_as_the_legacy_code():
    reached = assert_matches(MATRIX, legacy_choice, build=build, refuses=ValueError)
    assert reached.missed == (), str(reached)
