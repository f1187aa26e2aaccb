"""The releases a matrix file names: where its history changes, for ``matrix check --all-versions``."""

from __future__ import annotations

from typing import List

from packaging.version import Version

from .schema import Matrix, named_versions


def named(matrix: Matrix) -> List[Version]:
    """Every version the file names (`matrix.schema.named_versions`: the bounds of gates, of
    support statements, of deprecations and removals, of ``[config]`` fields, their choices and
    defaults, of former ids, redirects and adjustments) up to its own ``[matrix] version``, which
    is always one, sorted. Later versions (a planned ``remove_in``) are not releases the file
    describes yet."""
    return [v for v in named_versions(matrix) if v <= matrix.version]
