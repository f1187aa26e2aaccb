"""``matrix check``'s findings about an overlay's operations (issue 31): each says its place
in the overlay file (file:line), from the record the load kept (`Matrix.overlay`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Tuple, Type

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
    "overlay-out-of-choice": ("note", "a runner an overlay removed from automatic choice (choice = false, or an "
                                      "owned choice that leaves it out): never a candidate, as the overlay says; "
                                      "asked for by name, it still serves"),
}


def findings(overlay: Overlay, cls: Type[Finding]) -> Iterator[Finding]:
    """The overlay findings of *overlay*'s operations, in the order the file writes them, as
    `matrix.check.Finding` *cls* (handed in: that module imports this one)."""
    version = parsed(overlay.upstream_version)
    for op in overlay.operations:
        found = _finding(cls, op, version, overlay.upstream_version)
        if found is not None:
            yield found
        yield from _dropped(cls, op)


def _dropped(cls: Type[Finding], op: Operation) -> Iterator[Finding]:
    """An ``overlay-noop`` for each statement *op* appends that is not appended, where *op*
    changes something else (`Operation.dropped`), at its ``append.RUNNER``."""
    if op.dangling or op.noop:
        return
    for runner, line, column in op.dropped:
        yield cls("overlay-noop", CODES["overlay-noop"][0], _messages.overlay_append_dropped(op.kind, op.target, runner),
                  place=f"{op.place}.append.{runner}", file=op.file, line=line, column=column, feature=op.target,
                  runner=runner)


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


class Where:
    """Where a finding on a composed matrix stands: in the overlay file where the overlay
    writes the key (``[features.X]`` added, or ``[change.features.X]`` changed), else in the
    upstream file (issue 31: an upstream feature's finding points at upstream's line), each
    as the load read it (`Overlay.upstream_texts`: a file edited or removed since changes nothing)."""

    def __init__(self, overlay: Overlay, text: Optional[str]) -> None:
        self.overlay = overlay
        # The texts the load read (`Overlay.upstream_texts`), never the files as they are now.
        self.texts: Dict[str, Optional[str]] = {**dict(overlay.upstream_texts), overlay.file: text}
        self.found: Dict[str, Any] = {}

    def _key(self, file: str, path: Tuple[object, ...]) -> Optional[Tuple[int, int]]:
        if file not in self.found:
            from ._locate import Locations

            text = self.texts.get(file)
            self.found[file] = None if text is None else Locations(text)
        locations = self.found[file]
        # The key or its nearest parent, but not above the entry (``features.X``, or under
        # ``change``, ``change.features.X``): an entry the file does not write is not in it.
        least = 3 if path[:1] == ("change",) else min(2, len(path)) if file == self.overlay.file else 1
        while locations is not None and len(path) >= least:
            if path in locations.keys:
                at: Tuple[int, int] = locations.line_column(locations.keys[path])
                return at
            path = path[:-1]
        return None

    def runner(self, id: str, key: Tuple[object, ...]) -> Tuple[str, Optional[int], Optional[int]]:
        """The file, line and column of *key* of runner *id*: where the overlay adds or changes
        it, else in upstream's runner file (its first line when the key is not written)."""
        for file, path in ((self.overlay.file, ("runners", id, *key)), (self.overlay.file, ("change", "runners", id, *key))):
            at = self._key(file, path)
            if at is not None:
                return file, at[0], at[1]
        file = os.path.join(self.overlay.runners_folder, f"{id}.toml")
        at = self._key(file, key) if key else None
        return file, at[0] if at else 1, at[1] if at else 1

    def __call__(self, path: Tuple[object, ...]) -> Tuple[str, Optional[int], Optional[int]]:
        """The file, line and column of *path* (a place of the composed features.toml)."""
        for file, key in ((self.overlay.file, path), (self.overlay.file, ("change", *path)),
                          (self.overlay.upstream_file, path)):
            at = self._key(file, key)
            if at is not None:
                return file, at[0], at[1]
        return self.overlay.file, None, None
