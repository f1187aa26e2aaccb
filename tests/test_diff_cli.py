"""``matrix diff`` on the command line: its output formats and its CI plumbing (issue 28, a user
trial: what a format left out, paths as CI reads them, a matrix new at the base revision)."""

import io
import json
import subprocess

import pytest

from matrix.cli import run
from tests.test_check import sarif_schema  # noqa: F401 (a fixture: the official SARIF 2.1.0 schema)

SMALL = '''[matrix]
name = "small"
version = "2.0"
[config]
x = { type = "bool", default = false }
y = { type = "bool", default = false }
[features.fx]
name = "feature x"
when = "x"
support = { a = "no", b = "yes" }
[features.fy]
name = "feature y"
when = "y"
support = { a = "yes", b = "no" }
'''
FLIPPED = SMALL.replace('support = { a = "yes", b = "no" }', 'support = { a = "no", b = "no" }')
#: A matrix whose runner's requirement reason says a config value: a diff of it says it did not
#: compare those reasons (one ``undecided`` line), whatever the other side.
REASONED = '''[matrix]
name = "reasoned"
version = "2.0"
[config]
h = { type = "int", min = 0, max = 10, default = 0 }
[requirements]
max_h = { name = "Maximum h", reason = "h {h} is too high" }
'''
NOT_COMPARED = ("Not compared: requirement reasons that say config values (the answers for a config whose values a "
                "reason says may differ unseen)")
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 2\n')
    (tmp_path / "runners" / "b.toml").write_text('name = "B"\npriority = 1\n')
    (tmp_path / "old.toml").write_text(SMALL)
    (tmp_path / "new.toml").write_text(FLIPPED)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _git(folder, *words):
    subprocess.run([*GIT, *words], check=True, cwd=folder, capture_output=True)


# --- B10: --level given twice -----------------------------------------------------------------


def test_a_change_id_given_two_levels_is_a_usage_error_naming_both(folder):
    # Before: the last --level won silently.
    assert _run("diff", "old.toml", "new.toml", "--level", "served-refused=cosmetic",
                "--level", "served-refused=behaviour") == (
        2, "", "matrix: error: --level: 'served-refused' is given two levels, 'cosmetic' and 'behaviour': give one\n")
    # The same level twice says one thing: it is taken.
    status, out, err = _run("diff", "old.toml", "new.toml", "--level", "served-refused=cosmetic",
                            "--level", "served-refused=cosmetic", "--level", "request-refused=cosmetic")
    assert (status, out.splitlines()[0], err) == (
        0, "3 changes (both at 2.0): 0 breaking, 1 behaviour, 2 cosmetic", "")


@pytest.fixture
def reasoned(folder, monkeypatch):
    """A folder ``reasoned`` beside *folder*'s matrices, the current folder."""
    (folder / "reasoned" / "runners").mkdir(parents=True)
    (folder / "reasoned" / "runners" / "a.toml").write_text(
        'name = "A"\npriority = 2\n[requires]\nmax_h = { condition = "h <= 5", reason = "A reads up to 5, not {h}" }\n')
    (folder / "reasoned" / "features.toml").write_text(REASONED)
    monkeypatch.chdir(folder / "reasoned")
    return folder / "reasoned"


# --- B1: every format says what it did not compare --------------------------------------------


def test_every_format_lists_what_the_diff_did_not_compare(reasoned):
    assert _run("diff", "features.toml", "features.toml") == (
        0, f"No change found where compared (both at 2.0); 1 undecided\nundecided: {NOT_COMPARED}\n", "")
    status, out, err = _run("diff", "features.toml", "features.toml", "--format", "json")
    assert (status, json.loads(out)["undecided"], err) == (0, [NOT_COMPARED], "")
    assert _run("diff", "features.toml", "features.toml", "--format", "github") == (
        0, f"::notice title=matrix diff undecided::{NOT_COMPARED}\n", "")
    # Before: "results": [] (a user trial).
    status, out, err = _run("diff", "features.toml", "features.toml", "--format", "sarif")
    run = json.loads(out)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert (status, err, run["results"], rules[run["results"][0]["ruleIndex"]]) == (0, "", [
        {"ruleId": "undecided", "ruleIndex": len(rules) - 1, "level": "note", "message": {"text": NOT_COMPARED},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "features.toml"},
                                             "region": {"startLine": 1, "startColumn": 1}}}]}],
        {"id": "undecided", "shortDescription": {"text": "what the diff did not compare or could not decide: the "
                                                         "answers of the configs it names may differ unseen"},
         "defaultConfiguration": {"level": "note"}})


def test_the_sarif_of_a_diff_validates_against_the_sarif_schema(reasoned, sarif_schema):
    import jsonschema

    (reasoned / "pyproject.toml").write_text(
        '[tool.matrix.diff]\naccept = [{ id = "request-refused", reason = "y needs a new runner" }]\n')
    for sides in (["features.toml", "features.toml"], ["../old.toml", "../new.toml"]):
        status, out, err = _run("diff", *sides, "--format", "sarif")
        log = json.loads(out)
        jsonschema.validators.validator_for(sarif_schema)(sarif_schema).validate(log)
        assert (status, err, [r["ruleId"] for r in log["runs"][0]["results"]]) == (
            (0, "", ["undecided"]) if sides[0] == "features.toml" else
            (1, "", ["served-refused", "request-refused", "blocker-added"]))
