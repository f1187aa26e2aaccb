import atexit
import os
import pathlib
import shutil
import tempfile

import pytest
from hypothesis import settings

# Each profile is hypothesis's defaults and what it says: with CI=true in the environment
# hypothesis loads its own "ci" profile first (the too_slow health check off, no database),
# which profiles without a parent would inherit, so CI would not run what a developer runs.
_DEFAULTS = settings.get_profile("default")
settings.register_profile("dev", _DEFAULTS, max_examples=50, deadline=None)
# CI draws the same 300 examples per test on every run (derandomize), so a landing never
# depends on luck; the dev profile stays random to keep finding new cases. CI's whole run must
# stay under 20 minutes on a 2-core machine: at 500 the main run took 1,157 s of CPU idle and
# 19 minutes of wall time beside the fast tier (issue 28's brute forces had grown it).
settings.register_profile("ci", _DEFAULTS, max_examples=300, deadline=None, derandomize=True)
# The fast tier that CI runs on other Pythons (.ci/fast-tier): 10 examples, drawn alike. It proves
# the code runs there (syntax, the standard library, the parsers): every test runs, and what a
# property finds is the main run's (300 examples) and a developer's (50, random) to find; at 50
# it cost CI 2 × 390 s of CPU on this 2-core machine, at 10, 2 × 260 s.
settings.register_profile("ci-quick", _DEFAULTS, max_examples=10, deadline=None, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# The cache of loaded matrices (matrix._cache) is on in the tests, as for users, but in a
# folder of this run's own: nothing from another run, and nothing left in the home folder.
os.environ["MATRIX_CACHE_DIR"] = tempfile.mkdtemp(prefix="matrix-test-cache-")
atexit.register(shutil.rmtree, os.environ["MATRIX_CACHE_DIR"], ignore_errors=True)

DATA = pathlib.Path(__file__).parent / "data"

_SLOW_LEFT_OUT = pytest.StashKey[int]()  # how many slow tests a run left out


def pytest_collection_modifyitems(config, items):
    """The slow tier (``@pytest.mark.slow``: tests that start many processes) is left out of a
    whole-suite run unless MATRIX_SLOW=1; tests named on the command line, and any ``-m``
    expression, decide for themselves (tests/README.md)."""
    if (os.environ.get("MATRIX_SLOW") == "1" or config.option.markexpr
            or config.args_source is pytest.Config.ArgsSource.ARGS):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
        config.stash[_SLOW_LEFT_OUT] = len(slow)


def pytest_terminal_summary(terminalreporter, config):
    if _SLOW_LEFT_OUT in config.stash:
        terminalreporter.write_line(f"Left out the slow tier ({config.stash[_SLOW_LEFT_OUT]} deselected): MATRIX_SLOW=1 "
                                    "adds it, as .ci/run does; -m slow runs only it")


def pytest_configure(config):
    # A temporary folder of this session's own, outside pytest's numbered folders: pytest keeps
    # only the newest 3 of those, so the pytest runs some tests start (the README's examples,
    # cold starts) or another session on the machine could delete this one's while it runs.
    if not config.option.basetemp:
        config.option.basetemp = tempfile.mkdtemp(prefix="matrix-pytest-")
        atexit.register(shutil.rmtree, config.option.basetemp, ignore_errors=True)


@pytest.fixture
def data() -> pathlib.Path:
    return DATA


@pytest.fixture(scope="session")
def sarif_schema(tmp_path_factory):
    """The official SARIF 2.1.0 schema, as Microsoft's @microsoft/jest-sarif package ships it
    (from the npm registry, with the machine's npm): test_check's and test_diff_cli's."""
    import json as _json
    import shutil
    import subprocess
    import tarfile

    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the SARIF schema comes from the npm package @microsoft/jest-sarif")
    folder = tmp_path_factory.mktemp("sarif")
    done = subprocess.run([npm, "pack", "@microsoft/jest-sarif@1.0.0-beta.0", "--pack-destination", str(folder)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"npm pack @microsoft/jest-sarif failed: {done.stderr.strip().splitlines()[-1:]}")
    archive = next(folder.glob("*.tgz"))
    with tarfile.open(archive) as tar:
        member = tar.extractfile("package/lib/schemas/sarif-2.1.0-rtm.5.json")
        return _json.load(member)
