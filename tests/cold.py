"""Run a test file as a user's first run would: a new process, an empty hypothesis storage
folder (no example database, no cached Unicode tables), hypothesis's default settings (not its
CI profile, even on CI), no colour and no PYTEST_ADDOPTS of the run that starts it."""

from __future__ import annotations

import concurrent.futures
import os
import pathlib
import subprocess
import sys
from typing import List, Tuple

from tests._env import plain_env

# Where one of these is set, hypothesis takes itself to be on CI and loads its "ci" profile
# (derandomized, no database, the too_slow health check off): not a user's first run. The list
# is hypothesis's own (hypothesis._settings._CI_VARS).
_CI_VARIABLES = frozenset({"CI", "__TOX_ENVIRONMENT_VARIABLE_ORIGINAL_CI", "TF_BUILD", "bamboo.buildKey", "BUILDKITE",
                           "CIRCLECI", "CIRRUS_CI", "CODEBUILD_BUILD_ID", "GITHUB_ACTIONS", "GITLAB_CI",
                           "HEROKU_TEST_RUN_ID", "TEAMCITY_VERSION"})


def run_cold(folder: pathlib.Path, test_file: str, runs: int, scratch: pathlib.Path) -> List[Tuple[int, str]]:
    """``(exit code, the end of pytest's output)`` of each of *runs* runs, two at a time, or one
    at a time under pytest-xdist (``.ci/run``: the other workers already load every core, and a
    user's first run is timed by hypothesis's too_slow health check)."""
    env = {k: v for k, v in plain_env().items()
           if not k.startswith("HYPOTHESIS") and k != "PYTEST_ADDOPTS" and k not in _CI_VARIABLES}

    def run(index: int) -> Tuple[int, str]:
        storage = scratch / f"hypothesis-{index}"
        # A basetemp of its own: pytest prunes old numbered temporary folders, and a run that
        # shared them could remove those of the session that started it.
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={scratch / f'tmp-{index}'}",
             test_file],
            cwd=folder, env={**env, "HYPOTHESIS_STORAGE_DIRECTORY": str(storage)}, capture_output=True, text=True)
        return done.returncode, done.stdout[-3000:]

    with concurrent.futures.ThreadPoolExecutor(1 if os.environ.get("PYTEST_XDIST_WORKER") else 2) as pool:
        return list(pool.map(run, range(runs)))
