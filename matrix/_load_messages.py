"""``[messages]``: the sentences a matrix says in its host's words (`matrix._templates`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence

from . import _messages, _templates

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from .loader import _Builder, _Source
    from .schema import Runner


def messages(b: _Builder, source: _Source, raw: object, runners: Optional[Sequence[Runner]]) -> Dict[str, str]:
    """The matrix's sentences by their place in the table (``fallback``,
    ``runners.v2.does_not_support``), each template checked against the parts of its sentence;
    a runner's own table names a runner of the matrix."""
    spec, wrong = b.shaped(source, raw, b.shapes.MessagesSpec, ("messages",))
    if spec is None and isinstance(raw, dict):  # a wrong key must not hide the templates of the others
        spec, _ = b.shapes.structure({k: v for k, v in raw.items() if k not in wrong}, b.shapes.MessagesSpec,
                                     ("messages",))
    if spec is None:
        return {}
    found = _sentences(b, source, spec, ("messages",), "")
    known = [r.id for r in runners] if runners is not None else None
    for runner, table in spec.runners.items():
        where: Place = ("messages", "runners", runner)
        if known is not None and runner not in known:
            b.problem(source, where, _messages.unknown_runner(runner, known))
            continue
        own, _ = b.shaped(source, table, b.shapes.SentencesSpec, where)
        if own is not None:
            found.update(_sentences(b, source, own, where, f"runners.{runner}."))
    return found


def _sentences(b: _Builder, source: _Source, spec: Any, where: Place, prefix: str) -> Dict[str, str]:
    out = {}
    for sentence, parts in _templates.SENTENCES.items():
        text = getattr(spec, sentence)
        if text is None:
            continue
        template, problems = _templates.parse(text, parts)
        for problem in problems:
            b.problem(source, where + (sentence,), problem)
        if template is not None:
            out[prefix + sentence] = text
    return out
