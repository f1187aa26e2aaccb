"""The documentation tables as generic tables (`tables`): header cells, rows of cells (each a
run of pieces: text, code, a status, a note mark, any of them a link), row groups, a legend,
paragraphs before and after, notes. Every display format (`_docs_text`, `_docs_html`) renders
any `Table` the same way, so a new docs table is a new function here, and no format changes.
JSON is data, not display: `_docs_json` reads the `Document` itself."""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import attrs

from . import _docs_overlay, _messages
from ._docs_adjustments import (ADJUSTMENTS_INTRO, GENERATED_MESSAGE, NO_ADJUSTMENTS, NOTICE_SETS, SAYS_ALWAYS,
                                AdjustmentRow)
from ._docs_release import NO_RELEASE_NOTES, RELEASE_NOTES_INTRO, gaps_said
from .schema import asked_only
from ._docs_model import (CAPABILITIES_EVERY, CAPABILITIES_INTRO, DEPRECATION_HEADER, NO_GATES, NO_SCHEMA, PAIR_SYMBOLS, PAIRS_INTRO,
                          REDIRECTS_ALWAYS_AFTER, REDIRECTS_STAGE_AFTER, Document, RunnerRow, Step, absent, choice_after, choice_text, redirects_after, deprecation_cells,
                          group_rows, label, legend_label, pair_label)


@attrs.frozen
class Piece:
    """One run of a cell's or a paragraph's content.

    ``kind`` is ``text`` (escaped by each format), ``raw`` (fixed words, numbers and versions,
    which the text formats write as they are), ``code`` (a condition, a path, a value: an empty
    one is plain text), ``status`` (a statement: ``text`` is its label, ``step`` the statement),
    or a note mark, ``mark`` of a numbered note or ``named`` of a named one (``text`` is the
    note's `Note.key`)."""

    text: str
    kind: str = "text"
    url: Optional[str] = None  # the piece is a link
    step: Optional[Step] = None
    #: A space the text starts or ends with is kept (pieces of a sentence are joined); elsewhere
    #: the text formats collapse it.
    spaced: bool = False


Pieces = Tuple[Piece, ...]


@attrs.frozen
class TableCell:
    pieces: Pieces = ()
    header: bool = False  # the row's header (HTML: th scope="row")
    anchor: str = ""  # an id to link to (HTML)
    css: str = ""  # the class that colours it by its status (HTML)
    title: str = ""  # what the cell means in words, shown on hover (HTML); on a column header, its full name


@attrs.frozen
class TableRow:
    cells: Tuple[TableCell, ...] = ()
    group: Optional[str] = None  # a row group's heading row instead of cells


@attrs.frozen
class LegendEntry:
    label: Piece
    meaning: str
    css: str  # the class of its status (HTML)


@attrs.frozen
class Note:
    """A note the table's marks link to: ``numbered`` notes have the keys 1, 2, …; ``named``
    ones a key of their own (``refusal-<id>``)."""

    kind: str
    key: str
    pieces: Pieces


@attrs.frozen
class Table:
    name: str  # "Support matrix": the heading (HTML), which the text formats follow with the title
    heading: Pieces  # the heading of the text formats
    caption: str  # reStructuredText's list-table title
    header: Tuple[TableCell, ...]
    rows: Tuple[TableRow, ...]
    intro: Tuple[Pieces, ...] = ()  # paragraphs before the table
    legend: Tuple[LegendEntry, ...] = ()
    notes: Tuple[Note, ...] = ()
    after: Tuple[Pieces, ...] = ()  # paragraphs after the table (after its notes)
    empty: str = ""  # said instead of the table (and its intro, legend, notes) when it has no rows
    css: str = ""  # the table's class (HTML)
    #: How HTML lays its rows out: ``line`` (a row per line), ``cells`` (a cell per line), or
    #: ``header`` (the row's header on the line of <tr>, then a cell per line).
    layout: str = "line"


def _text(text: str, url: Optional[str] = None) -> Piece:
    return Piece(text, url=url)


def _raw(text: str, url: Optional[str] = None) -> Piece:
    return Piece(text, "raw", url=url)


def _code(text: str) -> Piece:
    return Piece(text, "code")


def _cell(*pieces: Piece, header: bool = False, anchor: str = "", css: str = "", title: str = "") -> TableCell:
    return TableCell(pieces, header, anchor, css, title)


def _headers(*names: str) -> Tuple[TableCell, ...]:
    return tuple(_cell(_text(name)) for name in names)


def _heading(name: str, doc: Document, versioned: bool) -> Pieces:
    return (_raw(f"{name}: "), _text(doc.title), *((_raw(f" {doc.version}"),) if versioned else ()))


def _sentence(pieces: Sequence[Tuple[str, bool]]) -> Pieces:
    """Pieces of a sentence, (text, whether it is code), their spaces kept."""
    return tuple(Piece(text, "code" if code else "text", spaced=True) for text, code in pieces)


def _links(links: Sequence[str], separator: str, *, before: bool = False) -> List[Piece]:
    """``link 1``, ``link 2``, … each a link, *separator* between them (and before the first)."""
    out: List[Piece] = []
    for i, url in enumerate(links, 1):
        out += [*((_raw(separator),) if before or i > 1 else ()), _raw(f"link {i}", url)]
    return out


def _mark(key: str, *, named: bool = False) -> Piece:
    return Piece(key, "named" if named else "mark")


def tables(doc: Document, names: Sequence[str], symbols: bool) -> List[Table]:
    """The tables *names* asks for, in the order of `TABLES`."""
    return [table for name, build in BUILDERS.items() if name in names for table in build(doc, symbols)]


def _support(doc: Document, symbols: bool) -> Table:
    rows = []
    for heading, row in group_rows(doc.rows):
        if heading:
            rows.append(TableRow(group=heading))
        name = [_text(row.name, row.links[0] if row.links else None)]
        name += [piece for i, url in enumerate(row.links[1:], 2) for piece in (_raw(" ("), _raw(str(i), url), _raw(")"))]
        name += [_mark(str(row.note))] if row.note else []
        cells = [_cell(*name, header=True, anchor=f"feature-{row.id}"), _cell(_code(row.condition))]
        for cell in row.cells:
            pieces: List[Piece] = []
            for step in cell.history:
                pieces += [_raw(" → ")] if pieces else []
                pieces.append(Piece(label(step, symbols), "status", url=step.link, step=step))
                pieces += [_mark(str(step.note))] if step.note else []
                pieces += [_raw(f" since {step.since}")] if step.since else []
            if cell.overlay is not None:  # the reason is in the note: the mark says that an overlay set it
                pieces.append(_overlay_mark(symbols))
            cells.append(_cell(*pieces, css=f"cell status-{cell.now.text}"))
        cells.append(_cell(_text("; ".join(row.lifecycle)), css="lifecycle"))
        rows.append(TableRow(tuple(cells)))
    return Table("Support matrix", _heading("Support matrix", doc, True), "Support",
                 _headers("Feature", "Condition", *(name for _, name in doc.runners), "Lifecycle"), tuple(rows),
                 legend=tuple(LegendEntry(_raw(legend_label(s, t, symbols)), m, f"status status-{t}")
                              for s, t, m in doc.legend)
                 + _overlay_legend(any(cell.overlay for row in doc.rows for cell in row.cells), symbols),
                 notes=tuple(Note("numbered", str(i), (_text(note),)) for i, note in enumerate(doc.notes, 1)),
                 empty=NO_GATES, layout="cells")


def _runners(doc: Document) -> Table:
    # Former ids and redirects are columns, and said after the table, only for a matrix that has
    # any, each for itself.
    former = any(r.aliases for r in doc.runner_rows)
    redirected = any(r.redirects for r in doc.runner_rows)
    deprecated = any(r.deprecated for r in doc.runner_rows)
    rows = tuple(TableRow((_cell(_code(r.id), header=True), _cell(_text(r.name)), _cell(_raw(str(r.priority))),
                           _cell(_text(r.description)), _cell(*_links(r.links, ", ")),
                           *((_cell(*_former_ids(r)),) if former else ()),
                           *((_cell(*_redirects(r)),) if redirected else ()),
                           *((_cell(*_runner_deprecation(r)),) if deprecated else ())))
                 for r in doc.runner_rows)
    after: Tuple[Pieces, ...] = ((_text(choice_after(any(row.prefers is not None for row in doc.rows), any(doc.candidates),
                                                     bool(doc.orders), any(not o.fallback for o in doc.orders))),),)
    always = any(d.applies == "always" and d.stage is None for r in doc.runner_rows for d in r.redirects)
    staged = any(d.stage is not None for r in doc.runner_rows for d in r.redirects)
    if former or redirected:  # of automatic choice, what it reads of redirects, never "it ignores redirects"
        marks = " or ".join(m for m, used in (('"automatic choice too"', always), ('"at stage S"', staged)) if used)
        after += ((_text(redirects_after(former, redirected, marks)),),)
    if always:
        after += ((_text(REDIRECTS_ALWAYS_AFTER),),)
    if staged:
        after += ((_text(REDIRECTS_STAGE_AFTER),),)
    if deprecated:
        after += ((_text(_messages.RUNNERS_DEPRECATED_AFTER),),)
    return Table("Runners", _heading("Runners", doc, False), "Runners",
                 _headers("Runner", "Name", "Priority", "Description", "Links",
                          *(("Former ids",) if former else ()), *(("Redirects",) if redirected else ()),
                          *(("Deprecation",) if deprecated else ())), rows,
                 after=after)


def _runner_deprecation(row: RunnerRow) -> List[Piece]:
    """deprecated since 0.34.0, to be removed in 0.36.0; use Model Runner V2 instead (V1 is frozen)."""
    d = row.deprecated
    if d is None:
        return []
    return [_text(d.lifecycle + (f" ({d.message})" if d.message else ""))]


def _former_ids(row: RunnerRow) -> List[Piece]:
    """``nsa`` (deprecated since 0.5, removed in 0.7), … for each former id."""
    out: List[Piece] = []
    for i, alias in enumerate(row.aliases):
        out += [*((_raw("; "),) if i else ()), _code(alias.id), _raw(f" ({alias.lifecycle})")]
    return out


def _redirects(row: RunnerRow) -> List[Piece]:
    """to ``triton`` when ``kv == 'fp8'`` (from 0.9), … for each redirect in force."""
    out: List[Piece] = []
    for i, redirect in enumerate(row.redirects):
        window = ", ".join(filter(None, [" ".join([*([f"from {redirect.since}"] if redirect.since else []),
                                                   *([f"until {redirect.until}"] if redirect.until else [])]),
                                         f"at stage {redirect.stage}" if redirect.stage is not None
                                         else "automatic choice too" if redirect.applies == "always" else ""]))
        out += [*((_raw("; "),) if i else ()), _raw("to "), _code(redirect.to), _raw(" when "), _code(redirect.when),
                *((_raw(f" ({window})"),) if window else ())]
    return out


def _capabilities(doc: Document, symbols: bool) -> Table:
    # A cell an overlay set is marked; the reason is in the overlay table (the operation's row).
    # A Stage column for a matrix with staged requirements (issue 30, F6), and only there.
    staged = any(c.stages for c in doc.capabilities)
    # An "Every runner" column where a matrix-wide requirement is said once (issue 30, item 4),
    # for a matrix with them only.
    every = any(c.every[0] or c.every_overlay is not None for c in doc.capabilities)  # or an overlay removed one
    rows = [TableRow((_cell(_text(c.name), header=True),
                      *((_cell(*_sentence([c.every, *((f" (not {', '.join(c.exempt)})", False),) * bool(c.exempt)]),
                               *([_overlay_mark(symbols)] if c.every_overlay is not None else [])),)
                        if every else ()),
                      # A runner's cell is marked where an overlay set its own entry (the matrix-wide one
                      # is marked under Every runner).
                      # A clause that names roles says so (issue 30, F1): "in role decode".
                      *(_cell(*_sentence([cell, *((_messages.in_roles(roles), False),) * bool(cell[0] and roles)]),
                              *([_overlay_mark(symbols)] if by is not None else []))
                        for cell, by, roles in zip(c.cells, c.own_overlays or [None] * len(c.cells),
                                                   c.roles or [()] * len(c.cells))),
                      *((_cell(_text(", ".join(c.stages))),) if staged else ()),
                      _cell(_text((c.reason or "given per runner")
                                  + (f" (raises {', '.join(c.error_kinds)})" if c.error_kinds else "")))))
            for c in doc.capabilities]
    rows.append(TableRow((_cell(_text("Candidate for automatic choice"), header=True),
                          *((_cell(_text("")),) if every else ()),
                          *(_cell(_text(_messages.asked_only_cell()) if asked_only(c) else _code(c) if c else _text("always"))
                            for c in doc.candidates),
                          *((_cell(_text("choice")),) if staged else ()), _cell(_text("")))))
    return Table("Runner capabilities", _heading("Runner capabilities", doc, False), "Runner capabilities",
                 _headers("Requirement", *(("Every runner",) if every else ()), *(name for _, name in doc.runners),
                          *(("Stage",) if staged else ()), "Reason"),
                 tuple(rows),
                 intro=((_text(CAPABILITIES_INTRO + (CAPABILITIES_EVERY if every else "")),),), after=tuple(_sentence(line) for line in choice_text(doc)),
                 legend=_overlay_legend(any(by is not None for c in doc.capabilities
                                            for by in (*c.own_overlays, c.every_overlay)),
                                        symbols,
                                        _messages.OVERLAY_MARK_ELSEWHERE))


def _adjustments(doc: Document, symbols: bool) -> Table:
    # A Stage column for a matrix that declares stages (issue 30, F6), and only there.
    staged = any(a.stage is not None for a in doc.adjustments)
    rows = tuple(TableRow((_cell(_code(a.id), header=True, anchor=f"adjustment-{a.id}"),
                           _cell(*_named(a), *([_overlay_mark(symbols)] if a.overlay is not None else [])),
                           *((_cell(_code(a.stage or "")),) if staged else ()),
                           _cell(_text(a.applies)), _cell(_code(a.when)), _cell(*_sets(a)),
                           _cell(_raw("yes") if a.override else _text("no (fills only where None)")),
                           _cell(_raw(a.level)), _cell(_text((a.message if a.message is not None else GENERATED_MESSAGE)
                                        + (SAYS_ALWAYS if a.says == "always" else ""))),
                           _cell(_text(a.lifecycle), css="lifecycle")))
                 for a in doc.adjustments)
    return Table("Adjustments", _heading("Adjustments", doc, True), "Adjustments",
                 _headers("Adjustment", "Name", *(("Stage",) if staged else ()), "Applies to", "When", "Sets", "Override",
                          "Level", "Message", "Lifecycle"),
                 rows, intro=((_text(ADJUSTMENTS_INTRO),),), empty=NO_ADJUSTMENTS, layout="cells",
                 legend=_overlay_legend(any(a.overlay is not None for a in doc.adjustments), symbols,
                                        _messages.OVERLAY_MARK_ELSEWHERE))


def _named(a: AdjustmentRow) -> List[Piece]:
    """The name, a link on it, and each further link as `` (2)``."""
    return [_text(a.name, a.links[0] if a.links else None),
            *(piece for i, url in enumerate(a.links[1:], 2) for piece in (_raw(" ("), _raw(str(i), url), _raw(")")))]


def _sets(a: AdjustmentRow) -> List[Piece]:
    """``path = value``, ``path`` from ``other`` (times N), unset ``path``; ``; `` between them."""
    out: List[Piece] = [] if a.sets else [_raw(NOTICE_SETS)]
    for i, s in enumerate(a.sets):
        out += [_raw("; ")] if i else []
        if s.source is not None:
            out += [_code(s.path), _raw(" from "), _code(s.source)]
            out += [_raw(" times "), _code(repr(s.times))] if s.times is not None else []
        elif s.value is None:
            out += [_raw("unset "), _code(s.path)]
        else:
            out.append(_code(f"{s.path} = {s.value_text}"))
    return out


# The colour of a pair's cell: served by all, by some, by none, never together.
_PAIR_CLASS = {"all": "status-yes", "some": "status-partial", "none": "status-no", "never": "pair-never",
               "undecided": "pair-undecided"}


def _pairs(doc: Document, symbols: bool) -> Table:
    heading = _heading("Feature pairs", doc, True)
    if len(doc.pairs) < 2:
        return Table("Feature pairs", heading, "Feature pairs", (), (), empty="No two features to pair at this version.")
    intro = PAIRS_INTRO.split("`")  # `code` spans
    columns = len(doc.pairs) - 1
    runner_names = dict(doc.runners)
    rows = []
    for i, row in enumerate(doc.pairs):
        cells = [_cell(_text(f"{i + 1}. {row.name}"), header=True, anchor=f"pair-{row.id}")]
        for j, c in enumerate(row.cells):
            title = f"{row.name} with {doc.pairs[j].name}: " + (
                "served by " + ", ".join(runner_names[r] for r in c.runners) if c.kind == "some"
                else PAIR_SYMBOLS[c.kind][2])
            # Runner ids are text; the fixed labels (``❌ none``) are written as they are.
            text = pair_label(c, symbols)
            cells.append(_cell(_text(text) if c.kind == "some" else _raw(text),
                               *((_mark(f"refusal-{c.refusal}", named=True),) if c.refusal else ()),
                               css=_PAIR_CLASS[c.kind], title=title))
        cells += [TableCell()] * (columns - len(row.cells))
        rows.append(TableRow(tuple(cells)))
    kinds: Dict[Tuple[str, str, str], str] = {value: kind for kind, value in PAIR_SYMBOLS.items()}
    notes = tuple(Note("named", f"refusal-{r.id}", (_raw("Refused on purpose ("), _code(r.id), _raw("): "), _text(r.reason),
                                                    *_links(r.links, " ", before=True)))
                  for r in doc.refusals)
    return Table("Feature pairs", heading, "Feature pairs",
                 (_cell(_text("Feature")), *(_cell(_raw(str(j)), title=row.name)
                                             for j, row in enumerate(doc.pairs[:columns], 1))),
                 tuple(rows), intro=(_sentence([(text, i % 2 == 1) for i, text in enumerate(intro)]),),
                 legend=tuple(LegendEntry(_text(legend_label(s, t, symbols)), m, _PAIR_CLASS[kinds[(s, t, m)]])
                              for s, t, m in doc.pair_legend),
                 notes=notes, css="pairs", layout="header")


def _config(doc: Document) -> Table:
    rows = tuple(TableRow((_cell(_code(e.path), header=True), _cell(_text(e.type)), _cell(_text(e.choices)),
                           _cell(_code(e.default) if e.default else _raw(absent(e.type))), _cell(_text(e.doc))))
                 for e in doc.config)
    return Table("Config reference", _heading("Config reference", doc, False), "Config",
                 _headers("Path", "Type", "Choices", "Default", "Description"), rows, empty=NO_SCHEMA)


def _deprecations(doc: Document) -> List[Table]:
    rows = []
    for d in doc.deprecations:
        since, remove_in, state = deprecation_cells(d)
        rows.append(TableRow((_cell(_text(d.feature), header=True), _cell(_raw(since)), _cell(_raw(remove_in)),
                              _cell(_raw(state)), _cell(_text(d.replacement)), _cell(_text(d.message)))))
    out = [Table("Deprecations", _heading("Deprecations", doc, False), "Deprecations", _headers(*DEPRECATION_HEADER),
                 tuple(rows), empty="No feature is deprecated.")]
    if doc.changes:
        out.append(Table("Changes by release", _heading("Changes by release", doc, False), "Changes by release",
                         _headers("Release", "Feature", "Change"),
                         tuple(TableRow((_cell(_raw(c.version), header=True), _cell(_text(c.name)), _cell(_text(c.text))))
                               for c in doc.changes)))
    return out


def _overlay_mark(symbols: bool) -> Piece:
    return _raw(f" {_docs_overlay.SYMBOL}" if symbols else f" ({_messages.OVERLAY_MARK_WORD})")


def _overlay_legend(marked: bool, symbols: bool, meaning: str = _messages.OVERLAY_MARK_MEANING
                    ) -> Tuple[LegendEntry, ...]:
    """The legend of the overlay's mark, for a table that has one (*marked*)."""
    if not marked:
        return ()
    word = _messages.OVERLAY_MARK_WORD
    label = legend_label(_docs_overlay.SYMBOL, word, True) if symbols else f"({word})"
    return (LegendEntry(_raw(label), meaning, "overlay"),)


def _overlay(doc: Document) -> Table:
    rows = tuple(TableRow((_cell(_text(o.overlay), header=True), _cell(_raw(_messages.OVERLAY_KINDS[o.kind])), _cell(_code(o.target)),
                           _cell(_code(", ".join(o.keys))), _cell(_text(o.why), _raw(" ("), _raw("link", o.link), _raw(")"))
                           if o.link else _cell(_text(o.why)), _cell(_code(o.place)), _cell(_raw(o.state))))
                 for o in doc.overlay_rows)
    assert doc.extends is not None
    intro = ((_text(_messages.overlay_table_intro(doc.extends[0], doc.extends[1])),),)
    title = _messages.OVERLAY_TABLE_TITLE
    return Table(title, _heading(title, doc, False), title, _headers(*_messages.OVERLAY_TABLE_HEADERS), rows,
                 intro=intro)


def _release_notes(doc: Document) -> Table:
    from .diff import brief  # a long region said by its first conditions (the whole in the JSON)

    rows = tuple(TableRow((_cell(_raw(n.version), header=True), _cell(_raw(n.level)), _cell(_code(n.id)),
                           _cell(_text(n.message)), _cell(_code(brief(n.region))), _cell(_code(n.witness_text))))
                 for n in doc.release_notes)
    after = tuple((_raw(f"{releases}: "), _text(text)) for releases, text in gaps_said(doc.release_gaps, doc.releases))
    return Table("What changed for users", _heading("What changed for users", doc, False), "What changed for users",
                 _headers("Release", "Level", "Change", "What", "Configs", "Witness"), rows,
                 intro=((_text(RELEASE_NOTES_INTRO),),), after=after, empty=NO_RELEASE_NOTES)


def _columns(doc: Document, symbols: bool) -> Table:
    from . import _columns as columns

    where = any(r.where is not None for r in doc.column_rows)
    used = {k for line in doc.column_cells for c in line for k in columns.symbol_of(c)}
    rows = tuple(TableRow((_cell(_text(r.name), header=True),
                           *((_cell(_code(str(r.where)) if r.where is not None else _text("every config")),) if where else ()),
                           *(_cell(_text(columns.cell_text(c, symbols))) for c in line)))
                 for r, line in zip(doc.column_rows, doc.column_cells))
    header = (_cell(_text("Runner")), *((_cell(_text("Where")),) if where else ()),
              *(_cell(_text(c.name), title=str(c.when) if c.when is not None else "declared") for c in doc.columns))
    conditions = tuple((Piece(f"{c.name}: ", spaced=True), _code(str(c.when)) if c.when is not None else _text("declared"),
                        *((Piece(f" ({c.doc})", spaced=True),) if c.doc else ())) for c in doc.columns)
    legend = tuple(LegendEntry(_raw(legend_label(symbol, word, symbols)), meaning, "")
                   for key, (symbol, word, meaning) in columns.SYMBOLS.items() if key in used)
    return Table("Columns", _heading("Columns", doc, True), "Columns", header, rows,
                 intro=((_text(columns.INTRO),), *conditions), legend=legend)


#: Every docs table by name, in the order they are rendered: a new table is one entry here (and
#: its builder above); `matrix.render.TABLES`, the CLI's choices and ``--table all`` read it.
BUILDERS: Dict[str, Callable[[Document, bool], List[Table]]] = {
    "support": lambda doc, symbols: [_support(doc, symbols)],
    "runners": lambda doc, symbols: [_runners(doc)],
    # Left out of a matrix whose runners state no requirement, candidacy or order.
    "capabilities": lambda doc, symbols: [_capabilities(doc, symbols)] if doc.candidates else [],
    # Left out of a matrix that declares no adjustment (at any version).
    "adjustments": lambda doc, symbols: [_adjustments(doc, symbols)] if doc.adjusts else [],
    # Left out of a matrix that declares no column (`[docs.columns]`).
    "columns": lambda doc, symbols: [_columns(doc, symbols)] if doc.columns else [],
    "pairs": lambda doc, symbols: [_pairs(doc, symbols)],
    "config": lambda doc, symbols: [_config(doc)],
    "deprecations": lambda doc, symbols: _deprecations(doc),
    # Beside the changes by release: what they did for users (a diff per pair of releases).
    "release-notes": lambda doc, symbols: [_release_notes(doc)],
    # Only of a matrix composed by overlays: what they change, alone (issue 31).
    "overlay": lambda doc, symbols: [_overlay(doc)] if doc.extends is not None else [],
}
