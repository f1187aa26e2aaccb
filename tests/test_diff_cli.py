"""``matrix diff`` on the command line: its output formats and its CI plumbing (issue 28, a user
trial: what a format left out, paths as CI reads them, a matrix new at the base revision)."""

import json
import subprocess

import pytest
from hypothesis import given, settings

from tests import test_diff
# The diff tests' small matrix and its flip, the runner of the command, and the brute force's random edits.
from tests.test_diff import FLIPPED, SMALL, _edited, _run

folder = test_diff.folder  # their folder of old.toml and new.toml (a fixture: assigned, not imported)
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
    # The same matrix but the reason's words: the construct differs, so the diff says it does not
    # compare it (of a matrix against itself it says nothing: the sides decide alike).
    (folder / "reworded" / "runners").mkdir(parents=True)
    (folder / "reworded" / "runners" / "a.toml").write_text(
        'name = "A"\npriority = 2\n[requires]\nmax_h = { condition = "h <= 5", reason = "A reads up to 5, h is {h}" }\n')
    (folder / "reworded" / "features.toml").write_text(REASONED)
    monkeypatch.chdir(folder / "reasoned")
    return folder / "reasoned"


# --- B1: every format says what it did not compare --------------------------------------------


def test_every_format_lists_what_the_diff_did_not_compare(reasoned):
    assert _run("diff", "../reworded/features.toml", "features.toml") == (
        0, f"No change found where compared (both at 2.0); 1 undecided\nundecided: {NOT_COMPARED}\n", "")
    status, out, err = _run("diff", "../reworded/features.toml", "features.toml", "--format", "json")
    assert (status, json.loads(out)["undecided"], err) == (0, [NOT_COMPARED], "")
    assert _run("diff", "../reworded/features.toml", "features.toml", "--format", "github") == (
        0, f"::notice title=matrix diff undecided::{NOT_COMPARED}\n", "")
    # Before: "results": [] (a user trial).
    status, out, err = _run("diff", "../reworded/features.toml", "features.toml", "--format", "sarif")
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
    for sides in (["../reworded/features.toml", "features.toml"], ["../old.toml", "../new.toml"]):
        status, out, err = _run("diff", *sides, "--format", "sarif")
        log = json.loads(out)
        jsonschema.validators.validator_for(sarif_schema)(sarif_schema).validate(log)
        assert (status, err, [r["ruleId"] for r in log["runs"][0]["results"]]) == (
            (0, "", ["undecided"]) if sides[1] == "features.toml" else
            (1, "", ["served-refused", "request-refused", "blocker-added"]))


# --- B5: paths from the top of the repository ---------------------------------------------------


@pytest.fixture
def nested(tmp_path, monkeypatch):
    """A repository whose matrix is in the subfolder ``enc``, committed, then flipped in the
    working tree; the current folder ``enc``."""
    enc = tmp_path / "enc"
    (enc / "runners").mkdir(parents=True)
    (enc / "runners" / "a.toml").write_text('name = "A"\npriority = 2\n')
    (enc / "runners" / "b.toml").write_text('name = "B"\npriority = 1\n')
    (enc / "features.toml").write_text(SMALL)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    (enc / "features.toml").write_text(FLIPPED)
    (enc / "old.toml").write_text(SMALL)
    monkeypatch.chdir(enc)
    return tmp_path


SERVED_REFUSED = ("title=matrix diff served-refused::Automatic choice: A → refused%0Aconfigs: y and not x%0Awitness: "
                  '{"y": true}')


def test_github_annotations_and_sarif_locations_name_files_from_the_top_of_the_repository(nested, monkeypatch,
                                                                                         sarif_schema):
    import jsonschema

    # Before: file=features.toml from enc/ (GitHub reads it from the top: no such file there).
    for where, sides in ((nested / "enc", ["--base", "HEAD"]), (nested / "enc", ["old.toml", "features.toml"]),
                         (nested, ["enc/old.toml", "enc/features.toml"]), (nested / "enc", ["HEAD:enc/features.toml",
                                                                                           "features.toml"])):
        monkeypatch.chdir(where)
        status, out, err = _run("diff", *sides, "--format", "github")
        assert (status, out.splitlines()[0], err) == (1, f"::error file=enc/features.toml,line=11,{SERVED_REFUSED}", "")
        status, out, err = _run("diff", *sides, "--format", "sarif")
        jsonschema.validators.validator_for(sarif_schema)(sarif_schema).validate(json.loads(out))
        run = json.loads(out)["runs"][0]
        assert (status, run["results"][0]["locations"][0]["physicalLocation"], run["originalUriBaseIds"]) == (1, {
            "artifactLocation": {"uri": "enc/features.toml", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 11, "startColumn": 1}}, {"%SRCROOT%": {"uri": nested.resolve().as_uri() + "/"}})
    # What was removed is annotated on the base file's line, from the top too.
    (nested / "enc" / "features.toml").write_text(SMALL.replace('[features.fy]\nname = "feature y"\nwhen = "y"\n'
                                                                'support = { a = "yes", b = "no" }\n', ""))
    monkeypatch.chdir(nested / "enc")
    status, out, err = _run("diff", "--base", "HEAD", "--format", "github")
    assert [line.partition(",title=")[::2][0] for line in out.splitlines()] == [
        "::warning file=enc/features.toml,line=11"] * 3


def test_outside_a_repository_files_are_named_as_given(folder):
    status, out, err = _run("diff", "old.toml", "new.toml", "--format", "github")
    assert (status, out.splitlines()[0], err) == (1, f"::error file=new.toml,line=11,{SERVED_REFUSED}", "")
    status, out, err = _run("diff", "old.toml", "new.toml", "--format", "sarif")
    run = json.loads(out)["runs"][0]
    assert (status, run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"],
            "originalUriBaseIds" in run) == (1, {"uri": "new.toml"}, False)


# --- B4: a matrix new at the base revision ------------------------------------------------------


@pytest.fixture
def adding(folder):
    """A repository with one commit without the matrix, the matrix added in the working tree."""
    (folder / "README").write_text("x\n")
    _git(folder, "init", "-q")
    _git(folder, "add", "README")
    _git(folder, "commit", "-q", "-m", "init")
    _git(folder, "update-ref", "refs/remotes/origin/main", "HEAD")
    (folder / "features.toml").write_text(SMALL)
    _git(folder, "add", "features.toml", "runners")  # as pre-commit sees the commit that adds it
    return folder


NEW_AT = "'features.toml' is new at 'HEAD': nothing to compare"


def test_a_matrix_new_at_the_base_revision_has_nothing_to_compare_in_every_format(adding):
    # Before: exit 2, "Cannot read 'HEAD:features.toml' from git: fatal: path 'features.toml'
    # exists on disk, but not in 'HEAD'" (the pre-commit hook, on the commit that adds the matrix).
    assert _run("diff", "--base", "HEAD") == (0, NEW_AT + "\n", "")
    assert _run("diff", "--base", "HEAD", "--format", "markdown") == (0, f"**matrix diff**: {NEW_AT}\n", "")
    assert _run("diff", "--base", "HEAD", "--format", "github") == (
        0, f"::notice title=matrix diff undecided::{NEW_AT}\n", "")
    status, out, err = _run("diff", "--base", "HEAD", "--format", "json")
    assert (status, json.loads(out), err) == (0, {
        "old_version": "2.0", "new_version": "2.0", "failed": False, "fail_on": "breaking",
        "counts": {"breaking": 0, "behaviour": 0, "cosmetic": 0}, "changes": [], "undecided": [NEW_AT]}, "")
    status, out, err = _run("diff", "--base", "HEAD", "--format", "sarif")
    assert (status, [(r["ruleId"], r["level"], r["message"]["text"], r["locations"][0]["physicalLocation"])
                     for r in json.loads(out)["runs"][0]["results"]], err) == (0, [
        ("undecided", "note", NEW_AT, {"artifactLocation": {"uri": "features.toml", "uriBaseId": "%SRCROOT%"},
                                       "region": {"startLine": 1, "startColumn": 1}})], "")
    # The documented CI step, on the pull request that adds the matrix.
    assert _run("diff", "--base", "origin/main", "--fail-on", "breaking") == (
        0, "'features.toml' is new at 'origin/main': nothing to compare\n", "")
    # OLD named as REV:PATH where PATH is not there may be misspelt: still said (test_diff).
    said = subprocess.run(["git", "show", "HEAD:features.toml"], cwd=adding, capture_output=True, text=True).stderr
    assert _run("diff", "HEAD:features.toml", "features.toml") == (
        2, "", f"matrix: error: Cannot read 'HEAD:features.toml' from git: {said.strip()}\n")


def test_a_matrix_new_before_the_first_commit_has_nothing_to_compare(folder):
    (folder / "features.toml").write_text(SMALL)
    _git(folder, "init", "-q")
    assert _run("diff", "--base", "HEAD") == (0, NEW_AT + "\n", "")


def test_a_revision_git_does_not_know_or_a_broken_side_is_still_exit_2(adding):
    assert _run("diff", "--base", "nope") == (
        2, "", "matrix: error: Cannot read 'nope:features.toml' from git: no revision 'nope'\n")
    # The new side is read, whatever the old: a broken one is said.
    (adding / "features.toml").write_text(SMALL.replace('when = "y"', 'when = "y and"'))
    status, out, err = _run("diff", "--base", "HEAD")
    assert (status, out, err.splitlines()[0]) == (2, "", "matrix: error: features.toml: 1 problem")
    # A file at the base revision that is broken is not new.
    (adding / "features.toml").write_text(SMALL.replace('when = "y"', 'when = "y and"'))
    _git(adding, "commit", "-q", "-am", "broken")
    (adding / "features.toml").write_text(SMALL)
    status, out, err = _run("diff", "--base", "HEAD")
    assert (status, out, err.splitlines()[0]) == (2, "", "matrix: error: HEAD:features.toml: 1 problem")


# --- B9: the documented GitHub Actions steps ------------------------------------------------------


def test_the_documented_workflow_steps_set_up_python_and_diff_against_the_pull_requests_base(folder):
    import pathlib
    import re
    import shlex

    import yaml

    docs = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "how-to" / "ci.md").read_text()
    workflows = [yaml.safe_load(block) for block in re.findall(r"^```yaml\n(.*?)^```", docs, re.M | re.S)
                 if "- run: " in block]

    def uses(steps):
        return [s["uses"] if "uses" in s else "run: " + s["run"].split()[0] for s in steps]

    # Before: no actions/setup-python (pip refuses the runner's system Python, PEP 668), and a
    # hard-coded origin/main.
    assert [uses(steps) for steps in workflows] == [
        ["actions/setup-python@v5", "run: pip", "run: matrix", "run: matrix"],
        ["actions/checkout@v4", "actions/setup-python@v5", "run: pip", "run: matrix"]]
    checkout, python, _, step = workflows[1]
    assert (checkout["with"], python["with"], workflows[0][0]["with"], step["run"]) == (
        {"fetch-depth": 0}, {"python-version": "3.12"}, {"python-version": "3.12"},
        "matrix diff --base origin/${{ github.base_ref }} --format github --fail-on breaking")
    # As GitHub runs it on a pull request to a base branch not named main.
    (folder / "features.toml").write_text(SMALL)
    _git(folder, "init", "-q")
    _git(folder, "add", "features.toml", "runners")
    _git(folder, "commit", "-q", "-m", "base")
    _git(folder, "update-ref", "refs/remotes/origin/trunk", "HEAD")
    (folder / "features.toml").write_text(FLIPPED)
    program, *words = shlex.split(step["run"].replace("${{ github.base_ref }}", "trunk"))
    status, out, err = _run(*words)
    assert (program, status, out.splitlines()[0], err) == (
        "matrix", 1, f"::error file=features.toml,line=11,{SERVED_REFUSED}", "")


# --- B8: every region the diff says is read by region_predicate ------------------------------------


#: A field removed, a choice narrowed to one of seven, a bound lowered, a feature renamed: the
#: regions ``label set to any value``, seven values, a range and ``no config``.
NARROWED = '''[matrix]
name = "r"
version = "1.0"
[config]
codec = { type = "str", choices = ["a", "b", "c", "d", "e", "f", "g"], default = "a" }
n = { type = "int", min = 0, max = 100, default = 0 }
label = { type = "str", nullable = true }
[features.fb]
name = "feature b"
when = "n > 5"
support = { a = "yes" }
'''
NARROWED_NEW = (NARROWED.replace('["a", "b", "c", "d", "e", "f", "g"]', '["a"]').replace("max = 100", "max = 10")
                .replace('label = { type = "str", nullable = true }\n', "").replace('"feature b"', '"feature B"'))


def _regions_read(report, *schemas):
    """Each change's region read by `matrix.diff.region_predicate` (never a `PredicateError`),
    with whether its witness lies in it, read with either side's schema (None: no witness, or
    one that neither side reads: a value it leaves out, or one a side refuses)."""
    from matrix import ConfigError
    from matrix.diff import region_predicate

    def holds(predicate, config, schema):
        try:
            return predicate.evaluate(config, schema=schema)
        except ConfigError:
            return None

    out = []
    for change in report.changes:
        predicate = region_predicate(change.region)
        seen = [] if change.witness is None else [holds(predicate, change.witness, s) for s in schemas]
        out.append((change.id, change.region, True if True in seen else False if False in seen else None))
    return out


def test_the_regions_said_in_words_are_read_by_region_predicate():
    import matrix
    from matrix.diff import diff

    old, new = (matrix.loads(t, runners={"a": {"name": "A", "priority": 1}}) for t in (NARROWED, NARROWED_NEW))
    # Before: "no config" and "label set to any value" raised PredicateError, and the seven
    # values were said "... or codec == 'e' and 2 more conditions (the whole region: --format
    # json)", in the JSON too.
    assert _regions_read(diff(old, new), old.schema, new.schema) == [
        ("config-rejected", "codec == 'b' or codec == 'c' or codec == 'd' or codec == 'e' or codec == 'f' or "
                            "codec == 'g'", True),
        ("config-rejected", "n > 10 and n <= 100", True),
        ("config-field-removed", "label set to any value", True),
        ("renamed", "no config", False)]
    from matrix.diff import region_predicate

    assert [region_predicate(r).evaluate(c) for r in ("label set to any value", "every config", "no config")
            for c in ({}, {"label": None}, {"label": "x"})] == [False, True, True] + [True] * 3 + [False] * 3


@settings(max_examples=40, deadline=None)
@given(_edited())
def test_every_region_of_a_random_edit_is_read_and_holds_its_witness(case):
    import matrix
    from matrix.diff import diff

    text, runners, new_text, new_runners, _, overlay = case
    if overlay is not None:
        return  # an overlay's edit: its regions are of the same kinds
    try:
        old, new = matrix.loads(text, runners=runners), matrix.loads(new_text, runners=new_runners)
    except matrix.LoadError:
        return
    for change_id, region, inside in _regions_read(diff(old, new), old.schema, new.schema):
        assert inside is not False or region == "no config", (change_id, region)
