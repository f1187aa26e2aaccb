"""A gate's life: its deprecation and removal, and the windows of the fields and choices its
condition reads (each must exist for as long as the gate does)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Set, Tuple

from . import _messages
from ._nodes import Compare, ListLiteral, Literal, Path, walk
from .errors import excerpt
from .schema import Deprecation, Feature, Schema, Window, covers, window_text

if TYPE_CHECKING:  # pragma: no cover
    from packaging.version import Version

    from ._converter import DeprecationSpec, Place
    from .loader import _Builder, _Source


def lifetimes(b: _Builder, source: _Source, where: Place, feature: Feature, schema: Schema) -> None:
    """A gate may read a field, and compare it with a choice, only while they exist: from
    the gate's since to its until or its removal (a gate that records a removal reads what
    configs still set after it, when the field or the choice has gone)."""
    end = feature.until
    d = feature.deprecated
    if d is not None and d.remove_in is not None and (end is None or d.remove_in < end):
        end = d.remove_in
    live: Window = (feature.since, end)
    if live[0] is not None and live[1] is not None and live[1] <= live[0]:
        return  # removed from its start: a record of a removal only
    said: Set[str] = set()

    text = feature.when.source

    def need(what: str, window: Window, span: Tuple[int, int]) -> None:
        if not covers(window, live) and what not in said:
            said.add(what)
            at = source.locations.in_string(where, span[0]) if source.text else None
            b.problem(source, where, _messages.outside_window(what, window_text(window), _live_text(live)),
                      at=at, detail=excerpt(text, span))

    for node in walk(feature.when.node):
        if isinstance(node, Path):
            parts = node.name.split(".")
            for end_index in range(1, len(parts) + 1):
                field = schema.get(".".join(parts[:end_index]))
                if field is not None:
                    need(f"[config] {field.path!r}", field.window, node.span)
        elif isinstance(node, Compare):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                field = schema.get(side.name) if isinstance(side, Path) else None
                if field is None or not field.choice_windows:
                    continue
                literals = [other] if isinstance(other, Literal) else list(other.items) if isinstance(
                    other, ListLiteral) else []
                for literal in literals:
                    if literal.value in field.choice_windows:
                        need(f"The choice {literal.value!r} of {field.path!r}", field.choice_window(literal.value),
                             literal.span)


def window(b: _Builder, source: _Source, where: Place, since_text: str,
           remove_in_text: Optional[str]) -> Optional[Tuple[Version, Optional[Version]]]:
    """A deprecation's ``since`` and ``remove_in`` (a gate's, a former id's, a runner's), read as
    versions, ``remove_in`` not before ``since``; None where either is not (each problem said)."""
    since = b.version(source, where + ("since",), since_text)
    remove_in = b.version(source, where + ("remove_in",), remove_in_text)
    if since is None or (remove_in_text is not None and remove_in is None):
        return None
    if remove_in is not None and remove_in < since:
        b.problem(source, where + ("remove_in",), _messages.not_before('remove_in', remove_in_text, 'since', since_text))
        return None
    return since, remove_in


def deprecation(b: _Builder, source: _Source, where: Place, spec: DeprecationSpec) -> Optional[Deprecation]:
    """A gate's ``deprecated`` table: since, the release it goes in and whether it has gone;
    None (said) when the versions disagree."""
    versions = window(b, source, where, spec.since, spec.remove_in)
    if versions is None:
        return None
    since, remove_in = versions
    if spec.removed and remove_in is None:
        b.problem(source, where + ("removed",), _messages.removed_without_version())
        return None
    if spec.removed and remove_in is not None and b.matrix_version is not None and remove_in > b.matrix_version:
        # A removal recorded before it happened would answer as deprecated at the file's own
        # version, and check would call it done (issue 24, item 7).
        b.problem(source, where + ("removed",),
                  _messages.removed_ahead(str(remove_in), str(b.matrix_version)))
        return None
    if remove_in is not None and remove_in == since and not spec.removed:
        b.problem(source, where + ("remove_in",), _messages.no_period_unrecorded(str(remove_in)))
        return None
    return Deprecation(since, remove_in, spec.message, spec.replacement, spec.removed)


def _live_text(window: Window) -> str:
    return "at every version" if window == (None, None) else window_text(window)
