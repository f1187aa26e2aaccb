import atexit
import os
import pathlib
import shutil
import tempfile

import pytest
from hypothesis import settings

settings.register_profile("dev", max_examples=50, deadline=None)
# CI draws the same 500 examples per test on every run (derandomize), so a landing never
# depends on luck; the dev profile stays random to keep finding new cases.
settings.register_profile("ci", max_examples=500, deadline=None, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# The cache of loaded matrices (matrix._cache) is on in the tests, as for users, but in a
# folder of this run's own: nothing from another run, and nothing left in the home folder.
os.environ["MATRIX_CACHE_DIR"] = tempfile.mkdtemp(prefix="matrix-test-cache-")
atexit.register(shutil.rmtree, os.environ["MATRIX_CACHE_DIR"], ignore_errors=True)

DATA = pathlib.Path(__file__).parent / "data"


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
