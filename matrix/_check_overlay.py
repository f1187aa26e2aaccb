"""``matrix check``'s findings about an overlay's operations (issue 31): each says its place
in the overlay file (file:line), from the record the load kept (`Matrix.overlay`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, Optional, Tuple, Type

from packaging.version import Version

from . import _messages
from ._overlay import UPSTREAM_SUPPORTS_IT, Operation, Overlay
from ._versions import parsed

if TYPE_CHECKING:  # pragma: no cover
    from .check import Finding, Severity

#: code → (severity, what it means): merged into `matrix.check.CODES`.
CODES: Dict[str, Tuple[Severity, str]] = {
    "overlay-noop": ("warning", "an overlay operation that changes nothing: upstream already says the same"),
    "overlay-dangling": ("warning", "an overlay operation on an id upstream no longer has, written for other "
                                    "upstream versions"),
    "overlay-ended": ("warning", "an overlay operation whose until has passed (or whose until upstream "
                                 "supports it holds)"),
}


def findings(overlay: Overlay, cls: Type[Finding]) -> Iterator[Finding]:
    """The overlay findings of *overlay*'s operations, in the order the file writes them, as
    `matrix.check.Finding` *cls* (handed in: that module imports this one)."""
    version = parsed(overlay.upstream_version)
    for op in overlay.operations:
        found = _finding(cls, op, version, overlay.upstream_version)
        if found is not None:
            yield found


def _finding(cls: Type[Finding], op: Operation, version: Version, shown: str) -> Optional[Finding]:
    def finding(code: str, message: str) -> Finding:
        return cls(code, CODES[code][0], message, place=op.place, file=op.file, line=op.line,
                       column=op.column, feature=op.target if op.kind.endswith("feature") else None,
                       runner=op.target if op.kind.endswith("runner") else None)

    if op.dangling:
        return finding("overlay-dangling", _messages.overlay_dangling(op.kind, op.target, str(op.upstream), shown))
    if op.until is not None and op.until != UPSTREAM_SUPPORTS_IT and version >= parsed(op.until):
        return finding("overlay-ended", _messages.overlay_ended(op.kind, op.target, op.until, shown))
    if op.noop:
        if op.until == UPSTREAM_SUPPORTS_IT:
            return finding("overlay-ended", _messages.overlay_ended_supported(op.kind, op.target))
        return finding("overlay-noop", _messages.overlay_noop(op.kind, op.target))
    return None
