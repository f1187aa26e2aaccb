"""The README's commands and examples are the real ones."""

import pathlib
import re
import shutil

from tests._env import plain_env

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text()


def test_the_readme_starts_with_the_two_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).splitlines()
    assert first_block == [
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/matrix resolve --set speculative_config.method=suffix --explain",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
    ]
    # That CI runs the second as written: test_ci_runs_the_readmes_test_command_as_written_with_the_slow_tier.


def test_the_resolve_output_in_the_readme_is_real(monkeypatch):
    import io

    from matrix.cli import run

    # As the README's first command runs it: at the root of the repository, whose features.toml
    # is the default matrix (no matrix is used unless found or named).
    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)
    shown = README.split("$ matrix resolve --set speculative_config.method=suffix --explain\n", 1)[1].split("\n$ ", 1)[0]
    out = io.StringIO()
    assert run(["resolve", "--set", "speculative_config.method=suffix", "--explain"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == shown.rstrip("\n") + "\n"


def _console_blocks(text):
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    yield command, "\n".join(output)
                command, output = line[2:], []
            else:
                output.append(line)
        yield command, "\n".join(output)


def test_every_command_of_what_it_says_prints_what_the_readme_shows(monkeypatch):
    """The README's first console block, command by command (the default matrix at 0.33.0):
    removed settings, the release history, the watermarking override, no runner."""
    import io
    import shlex

    from matrix.cli import run

    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)  # where the README's commands run
    section = README.split("## What it says", 1)[1].split("\n## ", 1)[0]
    status = None
    blocks = list(_console_blocks(section))
    assert len(blocks) == 8
    for command, shown in blocks:
        if command == "echo $?":
            assert shown == str(status)
            continue
        args = shlex.split(command)
        assert args[0] == "matrix"
        out = io.StringIO()
        status = run(args[1:], stdout=out, stderr=out)
        assert out.getvalue().rstrip("\n") == shown.rstrip("\n"), command
    assert status == 1


def test_every_link_of_the_readme_names_a_file_of_the_repository():
    root = pathlib.Path(__file__).parent.parent
    links = re.findall(r"\]\(([^)#]+)\)", README)
    assert [link for link in links if not link.startswith("http") and not (root / link).exists()] == []
    assert len(links) >= 20


def test_a_cold_run_has_hypothesiss_default_settings_even_on_ci(tmp_path, monkeypatch):
    from tests.cold import run_cold

    monkeypatch.setenv("CI", "true")  # as .ci/run has it
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    (tmp_path / "test_settings.py").write_text(
        "from hypothesis import settings\n\n\ndef test_settings():\n"
        "    assert settings.default == settings.get_profile('default'), settings.default\n")
    [(code, out)] = run_cold(tmp_path, "test_settings.py", 1, tmp_path)
    assert (code, out.splitlines()[-1].split(" in ")[0]) == (0, "1 passed"), out


def test_the_suites_profiles_are_the_same_on_ci():
    """Hypothesis loads its own CI profile where CI is set; the suite's profiles do not inherit it."""
    import subprocess
    import sys

    code = ("import tests.conftest\nfrom hypothesis import settings\n"
            "print([(p.derandomize, p.suppress_health_check, p.database is None) "
            "for p in map(settings.get_profile, ['dev', 'ci', 'ci-quick'])])")
    done = [subprocess.run([sys.executable, "-c", code], cwd=pathlib.Path(__file__).parent.parent, capture_output=True,
                           text=True, env={**plain_env(), **ci}) for ci in ({}, {"CI": "true"})]
    assert [(d.returncode, d.stdout, d.stderr) for d in done] == [
        (0, "[(False, (), False), (True, (), True), (True, (), True)]\n", "")] * 2


def test_ci_runs_the_readmes_test_command_as_written_with_the_slow_tier():
    import subprocess

    root = pathlib.Path(__file__).parent.parent
    ci = (root / ".ci" / "run").read_text().splitlines()
    [extract] = [line for line in ci if line.startswith("test_command=$(")]
    done = subprocess.run(["bash", "-c", f'{extract}\nprintf "%s" "$test_command"'], cwd=root,
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest", "")
    [slow] = [i for i, line in enumerate(ci) if line.startswith("export MATRIX_SLOW=1 ")]
    assert slow < ci.index('bash -c "$test_command"')


def test_the_python_the_readme_promises_is_the_oldest_one_ci_tests():
    import subprocess

    from matrix.loader import _toml

    root = pathlib.Path(__file__).parent.parent
    requires = _toml().loads((root / "pyproject.toml").read_text())["project"]["requires-python"]
    promised = re.search(r"Both need only Python ≥ (\S+) on the machine", README).group(1)
    [oldest] = [line for line in (root / ".ci" / "run").read_text().splitlines() if line.startswith("oldest=$(")]
    done = subprocess.run(["bash", "-c", f'{oldest}\nprintf "%s" "$oldest"'], cwd=root, capture_output=True, text=True)
    assert (requires, done.stdout, done.stderr) == (f">={promised}", promised, "")


def test_the_readmes_test_command_leaves_the_slow_tier_out_unless_asked(tmp_path):
    """A whole-suite run leaves out the tests marked slow; MATRIX_SLOW=1 (set by .ci/run) or
    naming the tests brings them back (tests/README.md)."""
    import subprocess
    import sys

    from matrix.loader import _toml

    root = pathlib.Path(__file__).parent.parent
    markers = _toml().loads((root / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = ["--strict-markers"]\nmarkers = {markers!r}\n')
    (tmp_path / "tests").mkdir()
    shutil.copy(root / "tests" / "conftest.py", tmp_path / "tests" / "conftest.py")
    (tmp_path / "tests" / "test_tiers.py").write_text(
        "import pytest\n\n\n@pytest.mark.slow\ndef test_slow():\n    pass\n\n\ndef test_fast():\n    pass\n")
    env = {k: v for k, v in plain_env().items() if k not in ("MATRIX_SLOW", "PYTEST_ADDOPTS")}

    def closing(*args, **more):
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=tmp_path,
                              capture_output=True, text=True, env={**env, **more})
        assert done.returncode == 0, done.stdout + done.stderr
        return [line.split(" in ")[0] for line in done.stdout.splitlines()[-2:]]

    assert closing() == ["Left out the slow tier (1 deselected): MATRIX_SLOW=1 adds it, as .ci/run does; -m slow runs only it",
                         "1 passed, 1 deselected"]
    assert closing(MATRIX_SLOW="1")[-1] == "2 passed"
    assert closing("tests/test_tiers.py")[-1] == "2 passed"


def test_the_overlay_section_prints_what_the_readme_shows(monkeypatch):
    """"Overlays for out-of-tree platforms": each command of its console block, and the host's
    line its sh block runs (tests/test_overlay.py's slow test installs the plugin and runs it)."""
    import io
    import shlex

    from matrix.cli import run

    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)
    section = README.split("## Overlays for out-of-tree platforms\n", 1)[1].split("\n## ", 1)[0]
    blocks = list(_console_blocks(section))
    assert len(blocks) == 3
    for command, shown in blocks:
        args = shlex.split(command)
        assert args[0] == "matrix"
        out = io.StringIO()
        assert run(args[1:], stdout=out, stderr=out) == 0, command
        assert out.getvalue().rstrip("\n") == shown.rstrip("\n"), command
    [sh] = re.findall(r"```sh\n(.*?)```", section, re.S)
    from tests.test_overlay import HOST

    assert sh.splitlines() == [".venv/bin/pip install ./examples/npu-overlay", f'.venv/bin/python -c "{HOST}"']
    assert "prints `npu` (`v2` before the install)" in section


def test_the_reviewing_section_prints_what_the_readme_shows_and_its_comment_renders_as_shown(monkeypatch):
    """"Reviewing a change" (issue 28): each command of its console blocks, run at the root of the
    repository, prints what it shows (and the exit status), and the pull-request comment it
    shows as Markdown stands below it as it renders, the same lines."""
    import io
    import shlex

    from matrix.cli import run

    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)
    section = README.split("## Reviewing a change\n", 1)[1].split("\n## ", 1)[0]
    blocks = list(_console_blocks(section))
    assert [command for command, _ in blocks] == [
        "matrix diff --matrix examples/frames/features.toml --from-version 0.1.0 --to-version 0.2.0", "echo $?",
        "matrix diff --matrix examples/frames/features.toml --from-version 0.1.0 --to-version 0.2.0 --format markdown"]
    status = None
    for command, shown in blocks:
        if command == "echo $?":
            assert shown == str(status)
            continue
        out = io.StringIO()
        status = run(shlex.split(command)[1:], stdout=out, stderr=out)
        assert out.getvalue().rstrip("\n") == shown.rstrip("\n"), command
    comment = blocks[-1][1].rstrip("\n")
    rendered = section.split("which renders as\n\n", 1)[1].split("\n\n[Reviewing a change]", 1)[0]
    assert rendered == comment
    # The section ends on the table of a pull-request comment: one row per change, as shown.
    assert [line.split(" | ")[1] for line in comment.splitlines() if line.startswith("| behaviour")] == [
        "`runner-changed`", "`request-served`", "`blocker-lifted`", "`partial-lifted`", "`preference-notice-lifted`"]
