"""The ``[matrix]`` table: the matrix's name, version, runner folder, config class and the
status a support table's left-out runners stand for, and the host's order of steps (``stages``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional


from . import _messages
from ._stages import CHOICE
from ._versions import parsed
from .schema import CLASS_SPEC, STATUSES, Statement

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import MatrixSpec
    from .loader import _Builder, _Source


def header(b: _Builder, source: _Source, raw: object) -> Optional[MatrixSpec]:
    """The header, None (said) when it is missing or malformed; it sets the builder's
    ``matrix_version`` and ``default_support``, which the other sections read."""
    if raw is None:
        b.problem(source, ("matrix",), _messages.missing_header())
        return None
    spec, bad = b.shaped(source, raw, b.shapes.MatrixSpec, ("matrix",))
    if spec is None and isinstance(raw, dict) and "stages" in raw:
        b.stages_refused = True  # said once here: no stage named elsewhere is said again
    if spec is not None and b.version(source, ("matrix", "version"), spec.version) is None:
        return None
    if spec is not None and spec.config_class is not None and not CLASS_SPEC.match(spec.config_class):
        b.problem(source, ("matrix", "config_class"), _messages.bad_class_spec(spec.config_class))
        return None
    if spec is not None and spec.default_support is not None:
        # A bare status: 'partial' needs a note, which belongs to a feature's own cell.
        allowed = [s for s in STATUSES if s != "partial"]
        if spec.default_support not in allowed:
            b.problem(source, ("matrix", "default_support"),
                      _messages.unknown_choice("default_support", spec.default_support, allowed, one_of=True))
        # Even when refused, it stands for the cells left out: one mistake, said once.
        b.default_support = (Statement(spec.default_support if spec.default_support in allowed else "no"),)
    if spec is not None and spec.stages:
        b.stages = tuple(spec.stages)
        twice = sorted({s for s in spec.stages if spec.stages.count(s) > 1}, key=spec.stages.index)
        if twice:
            b.problem(source, ("matrix", "stages"), _messages.stage_twice(twice[0]))
        elif CHOICE not in spec.stages:
            b.problem(source, ("matrix", "stages"), _messages.stages_without_choice(CHOICE))
    found: Optional[MatrixSpec] = spec
    if spec is not None:
        b.matrix_version = parsed(spec.version)  # a default's history is read as of it
    return found
