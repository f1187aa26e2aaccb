"""Versions as the API and configs give them: a `packaging` `Version`, or the text of one."""

from __future__ import annotations

import functools

from typing import Optional, Union

from packaging.version import InvalidVersion, Version

from . import _messages
from .errors import UsageError

#: What a ``version=`` argument of the API accepts.
VersionLike = Union[str, Version]


@functools.lru_cache(maxsize=4096)
def parsed(text: str) -> Version:
    """``Version(text)``, remembered: the one place text becomes a version (the compiled fast
    path reads version fields given as text, '9.0', at the cost of a dict look-up; predicates,
    configs and the API read theirs through `to_version`). Raises `InvalidVersion`."""
    return Version(text)


def to_version(value: object) -> Optional[Version]:
    """*value* as a `Version` when it is one or spells one (PEP 440), else None."""
    if isinstance(value, Version):
        return value
    if isinstance(value, str):
        try:
            return parsed(value)
        except InvalidVersion:
            return None
    return None


def as_version(value: object) -> Version:
    """*value* as a `Version`; raises `UsageError` for anything that is not one."""
    version = to_version(value)
    if version is None:
        raise UsageError(_messages.invalid_version(value))
    return version
