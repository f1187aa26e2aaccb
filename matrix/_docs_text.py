"""Markdown (GitHub and MkDocs) and reStructuredText (Sphinx, docutils) renderings of the model."""

from __future__ import annotations

import re
from typing import List, Sequence, Tuple

from ._docs_model import (CAPABILITIES_INTRO, DEPRECATION_HEADER, NO_GATES, NO_SCHEMA, PAIRS_INTRO, Document, absent, banner,
                          cell_text, deprecation_cells, group_rows, label, legend_label, named, pair_label, choice_text)

# Markdown (GitHub and MkDocs) -----------------------------------------------------------------

def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    text = " ".join(text.split())
    for char in "\\`*_[]<>|":
        text = text.replace(char, "\\" + char)
    return text


def _md_code(text: str) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_piece(piece: Tuple[str, bool]) -> str:
    """Text, or a condition (code), keeping the spaces around it: pieces are joined."""
    text, code = piece
    return _spaced(text, _md_code(text) if code and text else _md(text))


def _rst_piece(piece: Tuple[str, bool]) -> str:
    text, code = piece
    return _spaced(text, _rst_literal(text) if code and text else _rst(text))


def _spaced(text: str, rendered: str) -> str:
    return (" " if text[:1] == " " else "") + rendered + (" " if text[-1:] == " " else "")


def _md_link(label: str, url: str) -> str:
    return f"[{label}](<{url.replace('>', '%3E').replace(' ', '%20').replace('|', '%7C')}>)"


def markdown(doc: Document, tables: Sequence[str], symbols: bool, labels: str = "") -> str:
    """*labels* goes before every footnote label (``[^m2-1]``), so that the notes of several
    renderings on one page do not take each other's labels (the MkDocs plugin gives each its own)."""
    out = [f"<!-- {banner(doc.source)} -->", ""]
    if "support" in tables:
        out += [f"### Support matrix: {_md(doc.title)} {doc.version}", ""]
    if "support" in tables and not doc.rows:
        out += [NO_GATES, ""]
    elif "support" in tables:
        # The legend first: a reader meets it before a table of 30 rows, not after.
        out.append("Legend: " + " · ".join(f"{legend_label(s, t, symbols)}: {_md(m)}" for s, t, m in doc.legend))
        out.append("")
        header = ["Feature", "Condition", *(_md(name) for _, name in doc.runners), "Lifecycle"]
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        for heading, row in group_rows(doc.rows):
            if heading:
                out.append(f"| **{_md(heading)}** |" + " |" * (len(header) - 1))
            name = named(_md(row.name), row.links, _md_link) + (f" [^{labels}{row.note}]" if row.note else "")
            cells = [cell_text(cell, lambda step: label(step, symbols), _md_link, lambda n: f" [^{labels}{n}]")
                     for cell in row.cells]
            lifecycle = _md("; ".join(row.lifecycle))
            out.append("| " + " | ".join([name, _md_code(row.condition), *cells, lifecycle]) + " |")
        if doc.notes:
            out.append("")
            # Footnotes, which GitHub and MkDocs (its footnotes extension) link both ways.
            out += [f"[^{labels}{i}]: {_md(note)}" for i, note in enumerate(doc.notes, 1)]
        out.append("")
    if "runners" in tables:
        out += [f"### Runners: {_md(doc.title)}", "", "| Runner | Name | Priority | Description | Links |",
                "|---|---|---|---|---|"]
        for r in doc.runner_rows:
            links = ", ".join(_md_link(f"link {i}", url) for i, url in enumerate(r.links, 1))
            out.append(f"| {_md_code(r.id)} | {_md(r.name)} | {r.priority} | {_md(r.description)} | {links} |")
        out += ["", "The runner of highest priority that nothing blocks is chosen.", ""]
    if "capabilities" in tables and doc.candidates:
        out += [f"### Runner capabilities: {_md(doc.title)}", "", _md(CAPABILITIES_INTRO), ""]
        header = ["Requirement", *(_md(name) for _, name in doc.runners), "Reason"]
        out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for capability in doc.capabilities:
            out.append("| " + " | ".join([_md(capability.name), *(_md_piece(c) for c in capability.cells),
                                          _md(capability.reason) or "given per runner"]) + " |")
        out.append("| " + " | ".join(["Candidate for automatic choice",
                                      *(_md_code(c) if c else "always" for c in doc.candidates), ""]) + " |")
        out.append("")
        for line in choice_text(doc):
            out += ["".join(_md_piece(piece) for piece in line), ""]
    if "pairs" in tables:
        out += _markdown_pairs(doc, symbols, labels)
    if "config" in tables:
        out += [f"### Config reference: {_md(doc.title)}", ""]
    if "config" in tables and not doc.config:
        out += [NO_SCHEMA, ""]
    elif "config" in tables:
        out += ["| Path | Type | Choices | Default | Description |", "|---|---|---|---|---|"]
        for entry in doc.config:
            default = _md_code(entry.default) if entry.default else (
                "required" if not entry.type.startswith("section") else "present")
            out.append(f"| {_md_code(entry.path)} | {_md(entry.type)} | {_md(entry.choices)} | {default} | "
                       f"{_md(entry.doc)} |")
        out.append("")
    if "deprecations" in tables:
        out += [f"### Deprecations: {_md(doc.title)}", ""]
        if doc.deprecations:
            out += ["| " + " | ".join(DEPRECATION_HEADER) + " |", "|" + "---|" * len(DEPRECATION_HEADER)]
            for d in doc.deprecations:
                since, remove_in, state = deprecation_cells(d)
                out.append(f"| {_md(d.feature)} | {since} | {remove_in} | {state} | {_md(d.replacement)} | "
                           f"{_md(d.message)} |")
        else:
            out.append("No feature is deprecated.")
        out.append("")
        if doc.changes:
            out += [f"### Changes by release: {_md(doc.title)}", "", "| Release | Feature | Change |", "|---|---|---|"]
            out += [f"| {c.version} | {_md(c.name)} | {_md(c.text)} |" for c in doc.changes]
            out.append("")
    return "\n".join(out)


def _markdown_pairs(doc: Document, symbols: bool, labels: str) -> List[str]:
    out = [f"### Feature pairs: {_md(doc.title)} {doc.version}", ""]
    if len(doc.pairs) < 2:
        return out + ["No two features to pair at this version.", ""]
    out += [_md(PAIRS_INTRO).replace("\\`", "`"), "",
            "Legend: " + " · ".join(f"{_md(legend_label(s, t, symbols))}: {_md(m)}" for s, t, m in doc.pair_legend), ""]
    columns = len(doc.pairs) - 1
    out.append("| Feature | " + " | ".join(str(j) for j in range(1, columns + 1)) + " |")
    out.append("|---|" + "---|" * columns)
    for i, row in enumerate(doc.pairs):
        cells = [_md(pair_label(c, symbols)) + (f" [^{labels}refusal-{c.refusal}]" if c.refusal else "") for c in row.cells]
        cells += [""] * (columns - len(cells))
        out.append(f"| {i + 1}. {_md(row.name)} | " + " | ".join(cells) + " |")
    if doc.refusals:
        out.append("")
        out += [f"[^{labels}refusal-{r.id}]: Refused on purpose ({_md_code(r.id)}): {_md(r.reason)}"
                + "".join(f" {_md_link(f'link {i}', url)}" for i, url in enumerate(r.links, 1)) for r in doc.refusals]
    return out + [""]


# reStructuredText ---------------------------------------------------------------------------------

_RST_BLOCK_START = re.compile(r"([^A-Za-z\\]|[A-Za-z]{1,4}[.)](\s|$))")


def _rst(text: str) -> str:
    text = " ".join(text.split())
    for char in "\\`*_|[]<>:":
        text = text.replace(char, "\\" + char)
    # A cell or title that starts like a list item, a transition or other block markup is
    # read as text when its first character is escaped.
    if _RST_BLOCK_START.match(text):
        text = "\\" + text
    elif len(set(text)) == 1 and not text[0].isalnum():
        text = "\\ " + text  # one repeated mark would read as a transition; "\ " is nothing
    return text


def _rst_literal(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    if "``" in text or text.startswith("`") or text.endswith("`") or text.startswith(" "):
        return _rst(text)
    return f"``{text}``"


def _rst_link(label: str, url: str) -> str:
    return f"`{label} <{url.replace('>', '%3E').replace(' ', '%20').replace('`', '%60')}>`__"


def _rst_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> List[str]:
    out = [f".. list-table:: {title}", "   :header-rows: 1", ""]
    for cells in [header, *rows]:
        out.append(f"   * - {cells[0] or ' '}")
        out += [f"     - {cell or ' '}" for cell in cells[1:]]
    return out + [""]


def _heading(text: str, char: str) -> List[str]:
    # An underline may be longer than its title, never shorter: wide characters count twice.
    width = sum(1 if ord(c) < 128 else 2 for c in text)
    return [text, char * max(width, 3), ""]


def restructuredtext(doc: Document, tables: Sequence[str], symbols: bool, labels: str = "") -> str:
    """With *labels*, the notes are auto-numbered footnotes labelled with it (``[#m2-1]_``):
    footnote labels are names of the whole document, so several renderings on one page (the
    Sphinx directive gives each its own) must not share them; without, they are ``[1]_``."""
    note_label = (lambda n: f"#{labels}{n}") if labels else str
    out = [f".. {banner(doc.source)}", ""]
    if "support" in tables:
        out += _heading(f"Support matrix: {_rst(doc.title)} {doc.version}", "-")
    if "support" in tables and not doc.rows:
        out += [NO_GATES, ""]
    elif "support" in tables:
        out.append("Legend: " + " · ".join(f"{legend_label(s, t, symbols)}: {_rst(m)}" for s, t, m in doc.legend))
        out.append("")
        rows = []
        width = len(doc.runners) + 3
        for heading, row in group_rows(doc.rows):
            if heading:
                rows.append([f"**{_rst(heading)}**", *([""] * (width - 1))])
            name = named(_rst(row.name), row.links, _rst_link) + (f" [{note_label(row.note)}]_" if row.note else "")
            cells = [cell_text(cell, lambda step: label(step, symbols), _rst_link, lambda n: f" [{note_label(n)}]_")
                     for cell in row.cells]
            rows.append([name, _rst_literal(row.condition), *cells, _rst("; ".join(row.lifecycle))])
        out += _rst_table("Support", ["Feature", "Condition", *(_rst(n) for _, n in doc.runners), "Lifecycle"], rows)
        out += [f".. [{note_label(i)}] {_rst(note)}" for i, note in enumerate(doc.notes, 1)]
        if doc.notes:
            out.append("")
    if "runners" in tables:
        out += _heading(f"Runners: {_rst(doc.title)}", "-")
        out += _rst_table("Runners", ["Runner", "Name", "Priority", "Description", "Links"],
                          [[_rst_literal(r.id), _rst(r.name), str(r.priority), _rst(r.description),
                            ", ".join(_rst_link(f"link {i}", url) for i, url in enumerate(r.links, 1))]
                           for r in doc.runner_rows])
        out += ["The runner of highest priority that nothing blocks is chosen.", ""]
    if "capabilities" in tables and doc.candidates:
        out += _heading(f"Runner capabilities: {_rst(doc.title)}", "-")
        out += [_rst(CAPABILITIES_INTRO), ""]
        rows = [[_rst(c.name), *(_rst_piece(cell) for cell in c.cells), _rst(c.reason) or "given per runner"]
                for c in doc.capabilities]
        rows.append(["Candidate for automatic choice", *(_rst_literal(c) if c else "always" for c in doc.candidates),
                     ""])
        out += _rst_table("Runner capabilities", ["Requirement", *(_rst(n) for _, n in doc.runners), "Reason"], rows)
        for line in choice_text(doc):
            out += ["".join(_rst_piece(piece) for piece in line), ""]
    if "pairs" in tables:
        out += _rst_pairs(doc, symbols, labels)
    if "config" in tables:
        out += _heading(f"Config reference: {_rst(doc.title)}", "-")
    if "config" in tables and not doc.config:
        out += [NO_SCHEMA, ""]
    elif "config" in tables:
        out += _rst_table("Config", ["Path", "Type", "Choices", "Default", "Description"],
                          [[_rst_literal(e.path), _rst(e.type), _rst(e.choices),
                            _rst_literal(e.default) or absent(e.type), _rst(e.doc)] for e in doc.config])
    if "deprecations" in tables:
        out += _heading(f"Deprecations: {_rst(doc.title)}", "-")
        if doc.deprecations:
            out += _rst_table("Deprecations", list(DEPRECATION_HEADER),
                              [[_rst(d.feature), *deprecation_cells(d), _rst(d.replacement), _rst(d.message)]
                               for d in doc.deprecations])
        else:
            out += ["No feature is deprecated.", ""]
        if doc.changes:
            out += _heading(f"Changes by release: {_rst(doc.title)}", "-")
            out += _rst_table("Changes by release", ["Release", "Feature", "Change"],
                              [[c.version, _rst(c.name), _rst(c.text)] for c in doc.changes])
    return "\n".join(out)


def _rst_pairs(doc: Document, symbols: bool, labels: str) -> List[str]:
    out = _heading(f"Feature pairs: {_rst(doc.title)} {doc.version}", "-")
    if len(doc.pairs) < 2:
        return out + ["No two features to pair at this version.", ""]
    out += [_rst(PAIRS_INTRO).replace("\\`", "``"), "",
            "Legend: " + " · ".join(f"{_rst(legend_label(s, t, symbols))}: {_rst(m)}" for s, t, m in doc.pair_legend), ""]
    columns = len(doc.pairs) - 1
    rows = []
    for i, row in enumerate(doc.pairs):
        # Runner ids are escaped; the fixed labels (``❌ none``) need not be, and a symbol escaped
        # at the start of a cell would only add a backslash to the source.
        cells = [(_rst(pair_label(c, symbols)) if c.kind == "some" else pair_label(c, symbols))
                 + (f" [#{labels}refusal-{c.refusal}]_" if c.refusal else "") for c in row.cells]
        rows.append([_rst(f"{i + 1}. {row.name}"), *cells, *([""] * (columns - len(cells)))])
    out += _rst_table("Feature pairs", ["Feature", *(str(j) for j in range(1, columns + 1))], rows)
    for r in doc.refusals:
        links = "".join(f" {_rst_link(f'link {i}', url)}" for i, url in enumerate(r.links, 1))
        out += [f".. [#{labels}refusal-{r.id}] Refused on purpose ({_rst_literal(r.id)}): {_rst(r.reason)}{links}"]
    if doc.refusals:
        out.append("")
    return out
