"""Another revision's package, exported beside this checkout for side-by-side benchmarks."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def export(rev: str, *, package: str = "matrix") -> str:
    """A new folder holding REV's ``matrix`` package (named *package*), ``features.toml`` and
    ``runners/`` (``git archive``); put the folder first on the path to import it."""
    folder = tempfile.mkdtemp(prefix="matrix-revision-")
    archive = subprocess.run(["git", "archive", rev, "matrix", "features.toml", "runners"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder)
    if package != "matrix":
        os.rename(os.path.join(folder, "matrix"), os.path.join(folder, package))
    return folder
