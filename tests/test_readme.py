"""The README's commands and examples are the real ones."""

import pathlib
import re

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text()


def test_the_readme_starts_with_the_two_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).splitlines()
    assert first_block == [
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/matrix resolve --set cache_config.mamba_cache_mode=all --explain",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
    ]
    ci = (pathlib.Path(__file__).parent.parent / ".ci" / "run").read_text()
    assert "sed -n 2p" in ci  # .ci/run runs the README's second command, as written


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


def test_the_resolve_output_in_the_readme_is_real(monkeypatch, tmp_path):
    import io

    from matrix.cli import run

    monkeypatch.chdir(tmp_path)
    shown = README.split("$ matrix resolve --set cache_config.mamba_cache_mode=all --explain\n", 1)[1].split("\n$ ", 1)[0]
    out = io.StringIO()
    assert run(["resolve", "--set", "cache_config.mamba_cache_mode=all", "--explain"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == shown.rstrip("\n") + "\n"
