"""The releases a matrix file names: where its history changes, for ``matrix check --all-versions``."""

from __future__ import annotations

from typing import Iterator, List, Optional

from packaging.version import Version

from .schema import Matrix


def named(matrix: Matrix) -> List[Version]:
    """Every version the file names, up to its own ``[matrix] version`` (which is always one),
    sorted: the bounds of gates, of support statements, of deprecations and removals, and of
    ``[config]`` fields and their choices. Later versions (a planned ``remove_in``) are not
    releases the file describes yet."""
    found = {v for v in _bounds(matrix) if v is not None and v <= matrix.version}
    found.add(matrix.version)
    return sorted(found)


def _bounds(matrix: Matrix) -> Iterator[Optional[Version]]:
    for feature in matrix.features:
        yield feature.since
        yield feature.until
        for history in feature.support.values():
            for statement in history:
                yield statement.since
        if feature.deprecated is not None:
            yield feature.deprecated.since
            yield feature.deprecated.remove_in
    for field in matrix.schema:
        yield field.since
        yield field.until
        for since, until in field.choice_windows.values():
            yield since
            yield until
