"""The README's commands and examples are the real ones."""

import pathlib
import re
import shutil
import tempfile

import pytest

from tests._env import plain_env

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text()


def test_the_readme_starts_with_the_two_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).splitlines()
    assert first_block == [
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/matrix resolve --set speculative_config.method=suffix --explain",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
    ]


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


def test_the_property_test_example_runs(monkeypatch, tmp_path):
    import importlib.util

    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)
    code = README.split("## Property-test your matrix", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    module_path = tmp_path / "readme_example.py"
    module_path.write_text(code)
    spec = importlib.util.spec_from_file_location("readme_example", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [value for name, value in vars(module).items() if name.startswith("test_")]
    assert len(tests) == 2
    for test in tests:
        test()


@pytest.mark.slow
def test_the_property_test_example_passes_20_cold_runs_in_an_empty_folder(tmp_path):
    """A user's first run: the example in a folder of its own with a copy of the matrix, run by
    pytest with hypothesis's default settings and health checks, each run in a new process with
    a new, empty hypothesis storage folder (no example database, no cached Unicode tables)."""
    import shutil

    from tests.cold import run_cold

    root = pathlib.Path(__file__).parent.parent
    code = README.split("## Property-test your matrix", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(root / "features.toml", folder / "features.toml")
    shutil.copytree(root / "runners", folder / "runners")
    (folder / "test_matrix.py").write_text(code)
    results = run_cold(folder, "test_matrix.py", 20, tmp_path)
    assert [out for code, out in results if code != 0] == []
    # Each run's closing line, less its time: no warning, nothing skipped.
    assert {out.splitlines()[-1].split(" in ")[0] for _, out in results} == {"2 passed"}


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


ADOPTING = README.split("## Adopting matrix in an existing project", 1)[1].split("\n## ", 1)[0]
EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "adopting"


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


def test_the_adoption_walkthrough_shows_real_commands_and_output(monkeypatch):
    import io
    import shlex
    import subprocess
    import sys

    from matrix.cli import run

    monkeypatch.chdir(EXAMPLE)
    monkeypatch.syspath_prepend(str(EXAMPLE))
    for name in [m for m in sys.modules if m == "host" or m.startswith("host.")]:
        monkeypatch.delitem(sys.modules, name)
    seen = []
    for command, shown in _console_blocks(ADOPTING):
        words = shlex.split(command)
        seen.append(words[:2])
        if words[0] == "matrix":
            out, err = io.StringIO(), io.StringIO()
            run(words[1:], stdout=out, stderr=err)
            assert out.getvalue() + err.getvalue() == shown + "\n", command
        else:
            assert words[:3] == ["python", "-m", "pytest"]
            basetemp = tempfile.mkdtemp(prefix="matrix-example-")  # not pytest's numbered folders: see conftest
            done = subprocess.run([sys.executable, *words[1:], "-p", "no:cacheprovider", f"--basetemp={basetemp}"],
                                  capture_output=True, text=True, cwd=EXAMPLE, env=plain_env())
            shutil.rmtree(basetemp, ignore_errors=True)
            assert done.returncode == 0, done.stdout + done.stderr
            assert done.stdout.splitlines()[0] == shown.splitlines()[0]
            # The same result; the time it took is the one thing that differs run to run.
            assert done.stdout.splitlines()[-1].split(" in ")[0] == shown.splitlines()[-1].split(" in ")[0]
    assert seen == [["matrix", "schema"], ["matrix", "check"], ["matrix", "check"], ["python", "-m"]]


def test_the_walkthroughs_migration_test_is_the_examples():
    shown = ADOPTING.split("[test_migration.py](examples/adopting/test_migration.py):\n\n```python\n", 1)[1]
    shown = shown.split("```", 1)[0]
    real = (EXAMPLE / "test_migration.py").read_text()
    for chunk in shown.split("    ...\n"):
        assert chunk.strip("\n") in real


def test_the_check_output_in_the_readme_is_real(monkeypatch):
    import io

    from matrix.cli import run

    section = README.split("## Checking a matrix", 1)[1].split("\n## ", 1)[0]
    (command, shown), = list(_console_blocks(section))
    assert command == "matrix check"
    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)
    out = io.StringIO()
    assert run(["check"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == shown + "\n"


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
