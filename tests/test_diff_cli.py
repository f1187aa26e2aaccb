"""``matrix diff`` on the command line: its output formats and its CI plumbing (issue 28, a user
trial: what a format left out, paths as CI reads them, a matrix new at the base revision)."""

import io
import json
import subprocess

import pytest

from matrix.cli import run

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
