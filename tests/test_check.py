import io
import json
import pathlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

import matrix
from matrix import NoRunnerError, RemovedFeatureError
from matrix.check import CODES, check
from matrix.cli import run
from matrix.strategies import configs, matrices

DATA = pathlib.Path(__file__).parent / "data" / "check"
CORPUS = sorted(DATA.glob("*.toml"))


def call(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_check_corpus(path, monkeypatch):
    monkeypatch.chdir(DATA)
    expected = path.with_suffix(".txt").read_text()
    status, out, err = call("check", "--matrix", path.name)
    assert err == ""
    assert out + f"exit: {status}\n" == expected


def test_the_corpus_has_a_matrix_per_code():
    codes = {p.stem for p in CORPUS}
    assert codes == set(CODES) - {"inconclusive"}  # inconclusive: see the budget test
    for path in CORPUS:
        assert f"[{path.stem}]" in path.with_suffix(".txt").read_text()


def _shows(m, finding):
    """Re-resolve a finding's witness and check that it shows the finding."""
    config = finding.witness
    if finding.code == "no-runner":
        with pytest.raises(NoRunnerError) as excinfo:
            m.resolve(config)
        assert set(finding.features) <= {f.id for f in excinfo.value.resolution.active}
    elif finding.code == "implied-contradiction":
        narrow, broad = finding.features
        try:
            active = {f.id for f in m.resolve(config).active}
        except (NoRunnerError, RemovedFeatureError) as error:
            active = {f.id for f in error.resolution.active}
        assert {narrow, broad} <= active
    else:  # pragma: no cover - every code with a witness is listed above
        raise AssertionError(finding.code)


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_corpus_witnesses_really_show_their_findings(path):
    m = matrix.load(path)
    for finding in check(m).findings:
        if finding.witness is not None:
            _shows(m, finding)


def test_the_default_matrix_has_no_errors_and_lists_its_no_runner_combinations():
    m = matrix.default()
    report = check(m)
    assert report.failed is False
    assert report.counts()["error"] == 0
    assert {f.code for f in report.findings} == {"no-runner"}
    combo = next(f for f in report.findings if f.features == ("mamba_cache_all", "prefill_context_parallel"))
    assert str(combo) == (
        "features.toml:165:1: note[no-runner]: No runner can serve a config that uses mamba cache mode 'all' "
        "and prefill context parallel: Model Runner V2 does not support mamba cache mode 'all'; "
        "Model Runner V1 does not support prefill context parallel"
    )
    assert combo.witness == {"cache_config": {"mamba_cache_mode": "all"}, "parallel_config": {"prefill_context_parallel_size": 2}}
    for finding in report.findings:
        _shows(m, finding)
    assert check(m, strict=True).failed is True


def test_the_default_matrix_at_0_32_0_has_an_overdue_removal():
    report = check(matrix.default(), version="0.32.0")
    errors = [str(f) for f in report.findings if f.severity == "error"]
    assert errors == [
        "features.toml:170:34: error[removal-overdue]: mamba cache mode 'all' was due for removal in 0.32.0, "
        "and the matrix is checked as of 0.32.0: delete the gate or move remove_in"
    ]


def test_a_search_over_budget_is_inconclusive_never_a_guess():
    m = matrix.load(DATA / "no-runner.toml")
    report = check(m, budget=2)
    inconclusive = [f for f in report.findings if f.code == "inconclusive"]
    assert inconclusive
    assert all(f.severity == "warning" for f in inconclusive)
    assert inconclusive[0].message == "Could not decide within 2 steps whether a can be active and inactive"
    assert not any(f.code in ("never-active", "always-active") for f in report.findings)


def test_json_format_and_exit_codes(monkeypatch):
    monkeypatch.chdir(DATA)
    status, out, _ = call("check", "--matrix", "never-active.toml", "--format", "json")
    data = json.loads(out)
    assert status == 1 and data["failed"] is True
    assert data["counts"] == {"error": 2, "warning": 0, "note": 0}
    assert data["findings"][0] == {
        "code": "never-active", "severity": "error",
        "message": "impossible range can never be active: no config satisfies x > 4 and x < 2",
        "feature": "impossible", "runner": None, "path": "$.features.impossible",
        "file": "never-active.toml", "line": 11, "column": 1, "witness": None, "features": [],
        "config_path": None, "member": None,
    }
    assert call("check", "--matrix", "no-runner.toml")[0] == 0
    assert call("check", "--matrix", "no-runner.toml", "--strict")[0] == 1
    assert call("check", "--matrix", "missing.toml")[0] == 2


@given(st.data())
def test_every_config_without_a_runner_is_covered_by_a_reported_combination(data):
    m = data.draw(matrices(max_features=5))
    report = check(m)
    combos = [set(f.features) for f in report.findings if f.code == "no-runner"]
    assert not any(f.code == "inconclusive" for f in report.findings)
    for finding in report.findings:
        if finding.code == "no-runner":
            try:
                m.resolve(finding.witness)
            except RemovedFeatureError:
                continue  # removal is decided before runners; the combination still stands
            except NoRunnerError as error:
                assert set(finding.features) <= {f.id for f in error.resolution.active}
            else:
                raise AssertionError(f"witness {finding.witness} has a runner")
    for _ in range(5):
        config = data.draw(configs(m))
        try:
            m.resolve(config)
        except NoRunnerError as error:
            active = {f.id for f in error.resolution.active}
            assert any(combo <= active for combo in combos), (active, combos)
        except RemovedFeatureError:
            pass
