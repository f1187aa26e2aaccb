"""The documentation site (mkdocs.yml, docs/): every command a page shows is run, in order, and
prints what the page shows; the site builds with `mkdocs build --strict`; the reference pages
are generated from the code."""

import io
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import pytest

from tests._env import plain_env

ROOT = pathlib.Path(__file__).parent.parent
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"

#: Each page that shows commands → the folder they run in (None: a new, empty folder).
PAGES = {
    "tutorial.md": None,
    "how-to/adopt.md": EXAMPLES / "adopting",
    "how-to/migrate.md": EXAMPLES / "adopting",
    "how-to/ci.md": EXAMPLES / "frames",
    "how-to/review-a-change.md": None,
    "reference/check.md": ROOT,
    "explanation/remedies.md": ROOT,
    "explanation/effective-config.md": ROOT,
    "reference/file-format.md": ROOT / "tests" / "data" / "invalid",
    "how-to/overlays.md": ROOT,
}

# A console block, or a file a page tells the reader to write: `<!-- file: PATH -->` on the line
# before a fenced block, whose text is the file's.
_STEP = re.compile(r"^```console\n(?P<console>.*?)^```$|^<!-- file: (?P<file>\S+) -->\n```\w*\n(?P<text>.*?)^```$",
                   re.S | re.M)


def page_text(page):
    return (DOCS / page).read_text()


def steps(text):
    """The page's steps in order: ("file", path, text), or ("run", command, output shown)."""
    for found in _STEP.finditer(text):
        if found.group("file"):
            yield "file", found.group("file"), found.group("text")
            continue
        command, output = None, []
        for line in found.group("console").splitlines():
            if line.startswith("$ "):
                if command is not None:
                    yield "run", command, "\n".join(output)
                command, output = line[2:], []
            else:
                output.append(line)
        yield "run", command, "\n".join(output)


def _pytest(words, folder):
    basetemp = tempfile.mkdtemp(prefix="matrix-example-")  # not pytest's numbered folders: see conftest
    try:
        return subprocess.run([sys.executable, *words[1:], "-p", "no:cacheprovider", f"--basetemp={basetemp}"],
                              capture_output=True, text=True, cwd=folder, env=plain_env())
    finally:
        shutil.rmtree(basetemp, ignore_errors=True)


def _same_pytest_result(done, shown):
    """pytest's first line and its result; the time it took is the one thing that differs run to run."""
    real, expected = done.stdout.splitlines(), shown.splitlines()
    return (done.returncode == 0 and real[0] == expected[0]
            and real[-1].split(" in ")[0] == expected[-1].split(" in ")[0])


def run_page(text, folder, monkeypatch):
    """Run every step of a page in *folder*; yield (command, shown, printed) for each command."""
    from matrix.cli import run

    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    for name in [m for m in sys.modules if m == "host" or m.startswith("host.")]:
        monkeypatch.delitem(sys.modules, name)
    status = None
    for kind, what, shown in steps(text):
        if kind == "file":
            path = pathlib.Path(what)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(shown)
            continue
        words = shlex.split(what)
        if words[0] == "matrix":
            out = io.StringIO()
            status = run(words[1:], stdout=out, stderr=out)
            printed = out.getvalue().rstrip("\n")
        elif words == ["echo", "$?"]:
            printed = str(status)
        elif words[0] == "cd" and len(words) == 2:
            monkeypatch.chdir(words[1])
            printed = ""
        elif words[0] == "rm":
            for name in words[1:]:
                os.remove(name)
            printed = ""
        elif words[:3] == ["python", "-m", "pytest"]:
            done = _pytest(words, os.getcwd())
            status = done.returncode
            printed = shown if _same_pytest_result(done, shown) else done.stdout + done.stderr
        else:
            raise AssertionError(f"{what!r}: a command the docs test does not know how to run")
        yield what, shown.rstrip("\n"), printed


def test_every_page_that_shows_commands_is_run():
    shown = {str(page.relative_to(DOCS)) for page in DOCS.rglob("*.md")
             if any(kind == "run" for kind, *_ in steps(page.read_text()))}
    assert shown == set(PAGES)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_command_of_the_page_prints_what_it_shows(page, monkeypatch, tmp_path):
    results = list(run_page(page_text(page), PAGES[page] or tmp_path, monkeypatch))
    assert results
    assert [(command, printed) for command, _, printed in results] == [(command, shown) for command, shown, _ in results]
    if page == "tutorial.md":  # the tutorial ends with the files of examples/frames, which the site embeds
        assert _tree(tmp_path / "frames") == _tree(EXAMPLES / "frames")


def _tree(folder):
    return {str(path.relative_to(folder)): path.read_text() for path in sorted(folder.rglob("*"))
            if path.is_file() and not {"__pycache__", ".hypothesis"} & set(path.relative_to(folder).parts)}


def test_the_property_test_example_runs(monkeypatch, tmp_path):
    import importlib.util

    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)
    code = page_text("how-to/property-test.md").split("```python\n", 1)[1].split("```", 1)[0]
    module_path = tmp_path / "docs_example.py"
    module_path.write_text(code)
    spec = importlib.util.spec_from_file_location("docs_example", module_path)
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
    code = page_text("how-to/property-test.md").split("```python\n", 1)[1].split("```", 1)[0]
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(root / "features.toml", folder / "features.toml")
    shutil.copytree(root / "runners", folder / "runners")
    (folder / "test_matrix.py").write_text(code)
    results = run_cold(folder, "test_matrix.py", 20, tmp_path)
    assert [out for code, out in results if code != 0] == []
    # Each run's closing line, less its time: no warning, nothing skipped.
    assert {out.splitlines()[-1].split(" in ")[0] for _, out in results} == {"2 passed"}


def test_the_migration_test_shown_is_the_examples():
    shown = page_text("how-to/migrate.md").split("`examples/adopting/test_migration.py`:\n\n```python\n", 1)[1]
    shown = shown.split("```", 1)[0]
    real = (EXAMPLES / "adopting" / "test_migration.py").read_text()
    chunks = shown.split("    ...\n")
    assert len(chunks) == 2
    for chunk in chunks:
        assert chunk.strip("\n") in real


def test_the_detailed_table_of_findings_has_every_code_once():
    from matrix.check import CODES

    rows = re.findall(r"^\| `([a-z-]+)` \| ", page_text("reference/check.md"), re.M)
    assert sorted(rows) == sorted(CODES)


def _hook():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_reference_hook", DOCS / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_is_generated_from_the_code():
    from matrix import _parser
    from matrix.check import CODES

    hook = _hook()
    grammar = hook.grammar()
    assert "    tuple      := '(' literal ',' (literal (',' literal)* ','?)? ')'\n" in _parser.__doc__
    assert "tuple      := '(' literal ',' (literal (',' literal)* ','?)? ')'\n\nCOMPARISON := " in grammar
    assert grammar.count("```") == 4
    codes = hook.codes().splitlines()
    assert codes[2:] == [f"| `{code}` | {severity} | {meaning} |" for code, (severity, meaning) in CODES.items()]
    cli = hook.cli()
    assert [line for line in cli.splitlines() if line.startswith("$ ")] == [
        "$ matrix --help", "$ matrix resolve --help", "$ matrix check --help", "$ matrix docs --help",
        "$ matrix schema --help", "$ matrix init --help"]
    assert "usage: matrix init [-h] [--name NAME] [FOLDER]\n" in cli
    shapes = hook.shapes()
    assert "### `prefers` of a feature\n\n| key | type | required |\n|---|---|---|\n| `runner` | string | yes |\n" \
           "| `outright` | boolean | no |\n| `message` | string | no |" in shapes
    assert "| `priority` | integer | yes |" in shapes
    choice = hook.choice()
    assert choice.startswith("1. **Removed features.** A config that uses a feature removed at the version is refused\n")
    assert "`matrix.schema.Matrix.gates_at`).\n\n    A redirect with ``applies = \"always\"`` acts" in choice
    assert "so they do not come before it.\n4. **Adjustments**" in choice
    assert "a runner asked for (a refusal is an `AdjustmentError` in automatic choice: the choice is made).\n5. " \
        "**A runner deprecated**" in choice
    assert choice.endswith("said (a role's refusal after the base's runner served keeps the base's warnings, its own too).")
    remedies = hook.remedies()  # docs/explanation/remedies.md: matrix/_remedy.py's rules
    assert remedies.startswith("- **The space searched** is the one ``matrix check`` searches (`matrix._space`): every path the\n")
    assert "values tried; others may work too\", never read as all that work, unless, as\n" in remedies
    assert remedies.endswith("\"No remedy found within N changes\" is said only when every smaller\n    set was tried.")


def test_a_spec_the_hook_does_not_place_fails_the_build(monkeypatch):
    import attrs
    from mkdocs.exceptions import PluginError

    from matrix import _converter

    @attrs.frozen
    class NewSpec:
        key: str

    monkeypatch.setattr(_converter, "NewSpec", NewSpec, raising=False)
    with pytest.raises(PluginError) as excinfo:
        _hook().shapes()
    assert excinfo.exconly() == ("mkdocs.exceptions.PluginError: docs/hooks/reference.py: say where each spec "
                                 "stands in the file: ['NewSpec']")


def test_an_unknown_reference_fails_the_build():
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    page = SimpleNamespace(file=SimpleNamespace(src_uri="reference/cli.md"))
    with pytest.raises(PluginError) as excinfo:
        _hook().on_page_markdown("# CLI\n\n<!-- reference clli -->\n", page, None, None)
    assert excinfo.exconly() == ("mkdocs.exceptions.PluginError: reference/cli.md: unknown reference 'clli' "
                                 "(expected one of 'choice', 'cli', 'codes', 'grammar', 'remedies', 'shapes')")


@pytest.mark.slow
def test_the_site_builds_with_strict(tmp_path):
    """`mkdocs build --strict`, as .ci/run builds it: the generated references, the tutorial's table
    from the project's own plugin, and every page of the nav."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, env=plain_env())
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    site = tmp_path / "site"
    assert "<!-- reference" not in "".join(page.read_text() for page in site.rglob("*.html"))
    tutorial = (site / "tutorial" / "index.html").read_text()
    assert "Support matrix: frames engines 0.2.0" in tutorial
    assert re.search(r"<td>SQL queries</td>\s*<td><code>query.sql</code></td>", tutorial)
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert "usage: matrix init [-h] [--name NAME] [FOLDER]" in cli
    pages = {str(page.relative_to(DOCS)) for page in DOCS.rglob("*.md")}
    built = {str(page.relative_to(site).parent) + ".md" for page in site.rglob("index.html")
             if page.parent != site and page.relative_to(site).parts[0] not in ("search",)}
    assert built | {"index.md"} == pages


def test_the_failure_the_migration_guide_shows_is_real(monkeypatch):
    """The guide's failure: the example's matrix without its `spill` gate, which the legacy
    function still names, fails assert_matches with exactly the message shown."""
    from matrix.testing import assert_matches

    import matrix

    folder = EXAMPLES / "adopting"
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    for name in [m for m in sys.modules if m == "host" or m.startswith("host.") or m == "test_migration"]:
        monkeypatch.delitem(sys.modules, name)
    import test_migration

    text = (folder / "features.toml").read_text()
    gate = '[features.spill]\nname = "spilling to disk"\nwhen = "spill is not None"\nsupport = { polars = "yes", pandas = "no" }\n\n'
    assert gate in text
    runners = {path.stem: path.read_text() for path in (folder / "runners").glob("*.toml")}
    without = matrix.loads(text.replace(gate, ""), runners=runners, path="features.toml")
    shown = page_text("how-to/migrate.md").split("(hypothesis shrinks it, then every key whose absence keeps the\n"
                                                 "difference is dropped):\n\n```\n", 1)[1].split("\n```", 1)[0]
    with pytest.raises(AssertionError) as excinfo:
        assert_matches(without, test_migration.legacy, runner="pandas", build=test_migration.build)
    # pytest prints the error's type before it; hypothesis adds the failing example as a note
    assert f"AssertionError: {excinfo.value}" == shown


def test_the_effective_value_failure_the_migration_guide_shows_is_real():
    from matrix.testing import assert_matches
    from tests.test_testing import GRAPHS, graphs_legacy

    shown = page_text("how-to/migrate.md").split("`UsageError`; a difference reads:\n\n```\n", 1)[1].split("\n```", 1)[0]
    with pytest.raises(AssertionError) as excinfo:
        assert_matches(GRAPHS, lambda c, runner=None: graphs_legacy(c, runner, adjusts=False), max_examples=50)
    assert f"AssertionError: {excinfo.value}" == shown


def test_the_adoption_guides_call_of_resolve_runs_on_the_hosts_object(monkeypatch, caplog):
    import logging

    import matrix

    folder = EXAMPLES / "adopting"
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    for name in [m for m in sys.modules if m == "host" or m.startswith("host.")]:
        monkeypatch.delitem(sys.modules, name)
    from host import config as host

    code = page_text("how-to/adopt.md").split("```python\n", 1)[1].split("```", 1)[0]
    assert code.startswith("resolution = MATRIX.resolve(frames_config, ")
    namespace = {"MATRIX": matrix.load("features.toml"), "has_pyarrow": lambda: True,
                 "frames_config": host.FramesConfig(query=host.QueryConfig(udf=True))}
    with caplog.at_level(logging.WARNING, logger="matrix"):
        exec(code, namespace)
    assert namespace["runner"] == "pandas"
    assert [record.getMessage() for record in caplog.records] == [
        "Polars does not support: Python row functions; using pandas instead"]


def test_every_page_is_in_the_nav():
    import yaml

    def pages(entries):
        for entry in entries:
            for value in entry.values():
                yield from pages(value) if isinstance(value, list) else [value]

    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    listed = list(pages(config["nav"]))
    assert sorted(listed) == sorted(str(page.relative_to(DOCS)) for page in DOCS.rglob("*.md"))


def _all_docs():
    return (ROOT / "README.md").read_text() + "".join(page.read_text() for page in sorted(DOCS.rglob("*.md")))


def test_every_file_of_the_repository_the_docs_name_exists():
    """The README cited a facts file that is not in the repository (issue 24, item 17)."""
    named = set(re.findall(r"`([\w.-]+(?:/[\w.-]+)+\.(?:md|py|toml|json))`", _all_docs()))
    # Files the docs name that are not this repository's: what `matrix init` writes, and the
    # layout of a project whose matrix lives below its root.
    elsewhere = {"runners/fast.toml", "runners/simple.toml", "src/pkg/features.toml", "src/pkg/runners/polars.toml"}
    missing = sorted(name for name in named - elsewhere
                     if not any((base / name).exists() for base in (ROOT, EXAMPLES / "frames", EXAMPLES / "adopting")))
    assert missing == []
    assert len(named) >= 20


def test_the_python_api_page_names_every_attribute_of_a_feature_and_every_warning_kind():
    import attrs

    from matrix.resolver import WARNING_KINDS
    from matrix.schema import Feature

    page = page_text("reference/python-api.md")
    sentence = page.split("A `Feature` has ", 1)[1].split("A `Resolution` is", 1)[0]
    named = set(re.findall(r"`(\w+)`", sentence))
    assert {field.name for field in attrs.fields(Feature)} - named == set()
    logging_section = page.split("**Warnings and logging.**", 1)[1].split("```", 1)[0]
    assert re.findall(r"`matrix\.([\w-]+)`", logging_section) == list(WARNING_KINDS)


def test_the_python_api_page_names_every_closed_set_matrix_exports():
    import typing

    import matrix

    page = page_text("reference/python-api.md")
    sentence = page.split("The closed sets of\nvalues are", 1)[1].split("\n\n", 1)[0]
    exported = [name for name in matrix.__all__ if typing.get_origin(getattr(matrix, name)) is typing.Literal]
    assert re.findall(r"`matrix\.(\w+)`", sentence) == exported

def test_the_cli_page_names_every_value_of_how():
    import matrix

    frames = matrix.load(EXAMPLES / "frames" / "features.toml")
    default = matrix.default()
    seen = {default.resolve({}).explanation()["how"],
            default.resolve({}, runner="v1").explanation()["how"],
            default.resolve({"watermark_config": {}}, runner="v1").explanation()["how"],
            frames.resolve({"query": {"sql": True}}).explanation()["how"]}
    redirecting = matrix.loads('[matrix]\nname = "r"\nversion = "1"\n[config]\nx = "bool"\n', runners={
        "a": {"name": "A", "priority": 2, "redirects": [{"to": "b", "when": "x"}]}, "b": {"name": "B", "priority": 1}})
    seen.add(redirecting.resolve({"x": True}, runner="a").explanation()["how"])
    assert seen == {"automatic", "requested", "overridden", "preferred", "redirected"}
    listed = page_text("reference/cli.md").split("`how` (", 1)[1].split("),\n", 1)[0]
    assert set(re.findall(r"`(\w+)`", listed)) == seen | {"prefers"}
