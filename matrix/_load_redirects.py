"""The loader's unit for a runner file's ``aliases`` and ``redirects`` (issue 27, item 3), and
the place its ``deprecated`` table is read (`matrix._load_runner_lifecycle`), once every alias is
known.

A runner file may list its former ids, each with a deprecation shaped as a feature's
``deprecated`` table (the replacement is the runner itself)::

    aliases = [{ id = "nsa", since = "0.5", remove_in = "0.7", message = "renamed" }]

and the requests for it that go to another runner::

    redirects = [{ to = "triton", when = "kv_cache_dtype == 'fp8_e5m2'" }]

An alias is an id (the pattern of runner ids) that no runner has and no other alias is; a
redirect goes to a runner by its id (not an alias, not itself), and reads only fields that
exist through its ``since``/``until`` window. The semantics are in `matrix._choice`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from packaging.version import Version

import attrs

from . import _format, _load_lifecycle, _load_runner_lifecycle, _messages
from ._stages import CHOICE
from .schema import REDIRECT_APPLIES, Alias, Deprecation, Redirect, Runner, Schema, covers, window_text

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import AliasSpec, Place, RedirectSpec
    from .loader import _Builder, _Source


def runners(builder: _Builder, runner_list: List[Runner], schema: Schema) -> List[Runner]:
    """*runner_list* with each runner's aliases and redirects, every problem reported."""
    ids = [r.id for r in runner_list]
    # id → the runner whose alias it is (None: a runner's own id).
    taken: Dict[str, Optional[str]] = {id: None for id in [*ids, *builder.broken_runners]}
    aliases: Dict[str, Alias] = {}
    read: List[Tuple[Runner, Any]] = []  # each runner with its aliases, and its (file, RunnerSpec)
    for runner in runner_list:
        found = builder.runner_specs.get(runner.id)
        if found is not None:
            source, spec = found
            mine = []
            for index, item in enumerate(spec.aliases):
                alias = _alias(builder, source, ("aliases", index), runner.id, item, taken, schema)
                if alias is not None:
                    taken[alias.id] = runner.id
                    aliases[alias.id] = alias
                    mine.append(alias)
            runner = attrs.evolve(runner, aliases=tuple(mine))
        read.append((runner, found))
    # A redirect to an alias is refused: the redirects are read once every alias is known.
    out = []
    for runner, found in read:
        if found is not None:
            source, spec = found
            redirects = (_redirect(builder, source, ("redirects", index), runner.id, index, item, ids, aliases, schema)
                         for index, item in enumerate(spec.redirects))
            runner = attrs.evolve(runner, redirects=tuple(r for r in redirects if r is not None))
            if spec.deprecated is not None:  # its replacement, a runner's id, is read once every alias is known
                runner = attrs.evolve(runner, deprecated=_load_runner_lifecycle.deprecation(
                    builder, source, runner.id, spec.deprecated, ids, aliases))
        out.append(runner)
    return out


def _alias(builder: _Builder, source: _Source, where: Place, runner: str, spec: AliasSpec,
           taken: Dict[str, Optional[str]], schema: Schema) -> Optional[Alias]:
    ok = True
    if not _format.ID_RE.match(spec.id) or spec.id == "default":
        builder.problem(source, where + ("id",), _messages.bad_alias_id(spec.id))
        ok = False
    elif spec.id in taken:
        builder.problem(source, where + ("id",), _messages.alias_taken(spec.id, taken[spec.id]))
        ok = False
    versions = _load_lifecycle.window(builder, source, where, spec.since, spec.remove_in)
    if versions is None:
        return None
    since, remove_in = versions
    if spec.removed and remove_in is None:
        builder.problem(source, where + ("removed",), _messages.removed_without_version())
        return None
    version = builder.matrix_version
    if spec.removed and remove_in is not None and version is not None and remove_in > version:
        builder.problem(source, where + ("removed",), _messages.removed_ahead(str(remove_in), str(version)))
        return None
    if remove_in is not None and remove_in == since and not spec.removed:
        builder.problem(source, where + ("remove_in",), _messages.no_period_unrecorded(str(remove_in)))
        return None
    message = spec.message
    if message is not None and not _message(builder, source, where + ("message",), message, schema,
                                            since, remove_in, _messages.alias_message_window):
        message = None  # said; the former id stays known, so that what names it is not refused too
    if not ok:
        return None
    return Alias(spec.id, runner, Deprecation(since, remove_in, message, runner, spec.removed))


def _message(builder: _Builder, source: _Source, where: Place, text: str, schema: Schema,
             since: Optional[Version], until: Optional[Version], said: Callable[[str, str], str]) -> bool:
    """Whether a former id's or a redirect's message is a template of config paths (issue 30,
    F7) that reads only fields that exist while it is said, from *since* to *until* (said with
    *said*, else)."""
    template = builder.template(source, where, text, schema)
    if template is None:
        return False
    for path in template.paths:
        field = schema.get(path)
        if field is not None and not covers(field.window, (since, until)):
            builder.problem(source, where, said(path, window_text(field.window)))
            return False
    return True


def _redirect(builder: _Builder, source: _Source, where: Place, runner: str, index: int, spec: RedirectSpec,
              ids: List[str], aliases: Dict[str, Alias], schema: Schema) -> Optional[Redirect]:
    to = spec.to
    ok = True
    if to in builder.broken_runners:
        ok = False  # its file failed to load, and said so
    elif to in aliases:
        builder.problem(source, where + ("to",), _messages.redirect_to_alias(to, aliases[to].runner))
        ok = False
    elif to not in ids:
        builder.problem(source, where + ("to",), _messages.unknown_runner(to, ids))
        ok = False
    elif to == runner:
        builder.problem(source, where + ("to",), _messages.redirect_to_self(runner))
        ok = False
    applies = spec.applies or ("always" if spec.stage is not None else "asked")
    if spec.applies is not None and spec.applies not in REDIRECT_APPLIES:
        builder.problem(source, where + ("applies",), _messages.unknown_choice("applies", spec.applies,
                                                                               REDIRECT_APPLIES, one_of=True))
        ok = False
    elif spec.stage is not None and not _stage(builder, source, where, spec):
        ok = False
    when = builder.predicate(source, where + ("when",), spec.when, schema)
    window = builder.window(source, where, spec.since, spec.until)
    if when is None or window is None or not ok:
        return None
    for path in sorted(when.paths):
        field = schema.get(path)
        if field is not None and not covers(field.window, window):
            builder.problem(source, where + ("when",), _messages.redirect_not_everlasting(path, window_text(field.window)))
            return None
    if spec.message is not None and not _message(builder, source, where + ("message",), spec.message, schema,
                                                 *window, _messages.redirect_message_window):
        return None
    return Redirect(runner, to, when, spec.message, window[0], window[1], index, applies,  # type: ignore[arg-type]
                    spec.stage)


def _stage(builder: _Builder, source: _Source, where: Place, spec: RedirectSpec) -> bool:
    """Whether a redirect's ``stage`` (issue 30, F6: `matrix._stages`) is one of ``[matrix]
    stages`` after ``choice`` (it acts on whichever runner serves, so ``applies`` is left out)."""
    assert spec.stage is not None
    if spec.applies is not None:
        builder.problem(source, where + ("applies",), _messages.staged_redirect_applies(spec.stage))
        return False
    if not builder.stage(source, where + ("stage",), spec.stage):
        return False
    stages = builder.stages
    if CHOICE in stages and stages.index(spec.stage) <= stages.index(CHOICE):
        builder.problem(source, where + ("stage",), _messages.redirect_stage_not_after_choice(spec.stage, CHOICE))
        return False
    return True
