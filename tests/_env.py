"""The environment of a child process whose output a test compares: no colour, whatever the
machine or the CI sets (FORCE_COLOR made sphinx and pytest colour their messages)."""

import os


def plain_env():
    # Nor the pytest options of the run that starts it (.ci/run's -n auto and --durations): a
    # user's command runs with none.
    env = {key: value for key, value in os.environ.items()
           if key not in ("FORCE_COLOR", "PY_COLORS", "CLICOLOR_FORCE", "PYTEST_ADDOPTS")}
    env["NO_COLOR"] = "1"
    return env
