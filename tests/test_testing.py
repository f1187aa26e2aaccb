import dataclasses
import pytest

import matrix
from matrix import UsageError
from matrix.testing import assert_matches

from . import vllm_reference

DEFAULT = matrix.default()


@pytest.mark.parametrize("version", ["0.30.0", "0.31.0", "0.32.0", "0.33.0"])
def test_the_default_matrix_matches_the_transcription_of_vllms_own_checks(version):
    assert_matches(DEFAULT, lambda c: vllm_reference.v2_blockers(c, version), runner="v2", version=version)
    assert_matches(DEFAULT, lambda c: vllm_reference.v1_blockers(c, version), runner="v1", version=version)


SMALL = matrix.loads("""
[matrix]
name = "jobs"
version = "1.0"
[config]
"job.gpus" = { type = "int", min = 0, default = 0 }
"job.os" = { type = "str", choices = ["linux", "windows"], default = "linux" }
"host.cuda" = { type = "bool", default = true, fact = true }
[features.gpu]
name = "GPU jobs"
when = "job.gpus > 0 and host.cuda"
support = { cpu = "no", gpu = "yes" }
[features.windows]
name = "Windows"
when = "job.os == 'windows'"
support = { cpu = "yes", gpu = "no" }
""", runners={"gpu": {"name": "GPU", "priority": 2}, "cpu": {"name": "CPU", "priority": 1}})


@dataclasses.dataclass
class Job:
    gpus: int = 0
    os: str = "linux"


@dataclasses.dataclass
class Host:
    job: Job = dataclasses.field(default_factory=Job)


def build(config: dict) -> Host:
    return Host(Job(**config.get("job", {})))


def legacy_gpu(host: Host) -> list:
    out = []
    if host.job.os == "windows":
        out.append("Windows")
    return out


def test_an_equivalent_legacy_function_passes_with_and_without_build():
    assert_matches(SMALL, legacy_gpu, runner="gpu", build=build)
    assert_matches(SMALL, lambda c: ["Windows"] if c.get("job", {}).get("os") == "windows" else [], runner="gpu")
    def with_facts(host, facts):
        return ["GPU jobs"] if host.job.gpus > 0 and facts["host.cuda"] else []

    assert_matches(SMALL, with_facts, runner="cpu", build=build)


def test_a_legacy_function_that_forgot_a_gate_fails_naming_it_with_the_shrunk_config():
    with pytest.raises(AssertionError) as info:
        assert_matches(SMALL, lambda h: [], runner="gpu", build=build)
    assert str(info.value) == "\n".join([
        "The legacy function and the matrix disagree on what gpu (GPU) cannot do at version 1.0",
        '  config: {"job": {"os": "windows"}}',
        "  legacy: []",
        "  matrix: ['Windows']",
        "  only the legacy function names: []",
        "  only the matrix names: ['Windows']",
    ])


def test_a_legacy_function_that_ignores_a_fact_fails():
    with pytest.raises(AssertionError) as info:
        assert_matches(SMALL, lambda h, facts: ["GPU jobs"] if h.job.gpus > 0 else [], runner="cpu", build=build)
    assert str(info.value).splitlines()[1:] == [
        '  config: {"host": {"cuda": false}, "job": {"gpus": 1}}',
        "  legacy: ['GPU jobs']",
        "  matrix: []",
        "  only the legacy function names: ['GPU jobs']",
        "  only the matrix names: []",
    ]


def test_bad_arguments():
    with pytest.raises(UsageError) as info:
        assert_matches(SMALL, legacy_gpu, runner="tpu")
    assert info.exconly() == "matrix.errors.UsageError: Unknown runner 'tpu' (expected one of 'cpu', 'gpu'), did you mean 'gpu'"
    with pytest.raises(TypeError) as info:
        assert_matches(SMALL, lambda c: "Windows", runner="gpu", max_examples=5)
    assert str(info.value) == "legacy() must return a collection of names, not the string 'Windows'"
