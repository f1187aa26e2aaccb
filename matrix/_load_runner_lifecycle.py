"""The loader's unit for a runner file's ``deprecated`` table: the runner's own deprecation,
shaped as a feature's (docs/reference/file-format.md, "A runner deprecated")::

    deprecated = { since = "0.34.0", remove_in = "0.36.0", replacement = "v2", message = "…" }

Its versions follow a feature's rules (``remove_in`` not before ``since``), but a runner has no
``removed``: its removal is its file's, so ``remove_in`` equal to ``since`` (a removal without a
deprecation period, which a feature records with ``removed = true``) is refused too. A
replacement written as an id (the pattern of runner ids) names a runner by its id (not its own,
not a former id); words with anything else in them are said as written. The semantics are in
`matrix._choice.serve` (the ``deprecated-runner`` warning) and `matrix.check` (``runner-overdue``,
``runner-no-removal-version``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional

from . import _format, _load_lifecycle, _messages
from .schema import Alias, Deprecation

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import RunnerDeprecationSpec
    from .loader import _Builder, _Source


def deprecation(builder: _Builder, source: _Source, runner: str, spec: RunnerDeprecationSpec, ids: List[str],
                aliases: Dict[str, Alias]) -> Optional[Deprecation]:
    """*runner*'s ``deprecated`` table, every problem said; None where one is."""
    where = ("deprecated",)
    versions = _load_lifecycle.window(builder, source, where, spec.since, spec.remove_in)
    ok = versions is not None
    since, remove_in = versions if versions is not None else (None, None)
    if since is not None and remove_in is not None and remove_in == since:
        builder.problem(source, where + ("remove_in",), _messages.runner_removal_without_period(str(remove_in)))
        ok = False
    replacement = spec.replacement
    if replacement is not None and _format.ID_RE.match(replacement):
        if replacement in builder.broken_runners:
            ok = False  # its file failed to load, and said so
        elif replacement in aliases:
            builder.problem(source, where + ("replacement",),
                            _messages.runner_replacement_alias(replacement, aliases[replacement].runner))
            ok = False
        elif replacement == runner:
            builder.problem(source, where + ("replacement",), _messages.runner_replaced_by_itself(runner))
            ok = False
        elif replacement not in ids:
            builder.problem(source, where + ("replacement",), _messages.unknown_runner(replacement, ids))
            ok = False
    if not ok or since is None:
        return None
    return Deprecation(since, remove_in, spec.message, replacement)


def without_removed(builder: _Builder, source: _Source, raw: object) -> object:
    """A runner file's table without its deprecation's ``removed``, said where it stands: a
    feature's deprecation records a removal so, a runner's is its file's removal (the strict
    shape would say only "did you mean 'remove_in'")."""
    table = raw.get("deprecated") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or not isinstance(table, dict) or "removed" not in table:
        return raw
    builder.problem(source, ("deprecated", "removed"), _messages.runner_removed_key())
    return {**raw, "deprecated": {k: v for k, v in table.items() if k != "removed"}}
