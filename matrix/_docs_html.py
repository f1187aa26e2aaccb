"""The HTML rendering of the model: a standalone page or a fragment to inject."""

from __future__ import annotations

import html
from typing import List, Sequence

from ._docs_model import Document, Step, banner
from ._docs_tables import Piece, Pieces, TableCell
from ._docs_tables import tables as docs_tables

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1b1b1b; }
table { border-collapse: collapse; margin-bottom: 1.5rem; }
th, td { border: 1px solid #ccc; padding: 0.35rem 0.6rem; text-align: left; vertical-align: top; }
thead th { position: sticky; top: 0; background: #f3f3f3; z-index: 1; }
td.cell { text-align: center; white-space: nowrap; }
.status-yes { background: #e3f4e3; }
.status-no { background: #fbe4e4; }
.status-partial { background: #fdf0d9; }
.status-opt-in { background: #e6eefb; }
.status-removed { background: #efefef; color: #555; }
code { font-size: 0.9em; }
.lifecycle { font-size: 0.9em; color: #8a4b00; }
tr.group th { background: #f3f3f3; font-size: 0.95em; }
.pair-never { background: #efefef; color: #555; }
table.pairs td { white-space: nowrap; }
abbr { text-decoration: none; }
p { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; margin-bottom: 1.5rem; }
.scroll table { margin-bottom: 0; }
tbody th[scope="row"] { position: sticky; left: 0; background: #fff; z-index: 1; }
@media (max-width: 600px) {
  body { margin: 0.75rem; }
  tbody th[scope="row"] { min-width: 8rem; max-width: 40vw; overflow-wrap: anywhere; }
}
@media print {
  body { margin: 0; }
  .scroll { overflow: visible; }
  thead th, tbody th[scope="row"] { position: static; }
  a { color: inherit; }
}
"""


def _html_label(step: Step, symbols: bool) -> str:
    word = f'<span class="word">{_h(step.text)}</span>'
    if not symbols:
        return f'<span title="{_h(step.meaning)}">{word}</span>'
    return f'<span title="{_h(step.text)}: {_h(step.meaning)}"><span aria-hidden="true">{step.symbol}</span> {word}</span>'


def _h(text: str) -> str:
    return html.escape(text, quote=True)


def html_page(doc: Document, tables: Sequence[str], symbols: bool) -> str:
    title = f"{doc.title} {doc.version}"
    body = _html_tables(doc, tables, symbols)
    return "\n".join([
        "<!DOCTYPE html>",
        f"<!-- {_h(banner(doc.source))} -->",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8" />',
        '<meta name="viewport" content="width=device-width, initial-scale=1" />',
        f"<title>{_h(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{_h(title)}</h1>",
        *body,
        "</body>",
        "</html>",
        "",
    ])


def html_fragment(doc: Document, tables: Sequence[str], symbols: bool) -> str:
    """The tables alone, for injection into a page of one's own."""
    return "\n".join([f"<!-- {_h(banner(doc.source))} -->", *_html_tables(doc, tables, symbols), ""])


def _html_run(piece: Piece, symbols: bool) -> str:
    if piece.kind == "mark":
        return f' <sup><a href="#note-{_h(piece.text)}">{_h(piece.text)}</a></sup>'
    if piece.kind == "named":
        return f' <sup><a href="#{_h(piece.text)}">why</a></sup>'
    if piece.kind == "status" and piece.step is not None:
        # The word is always there, so a page without an emoji font (or in greyscale) still
        # says every status; the cell is filled with the colour of its status.
        text = _html_label(piece.step, symbols)
    elif piece.kind == "code" and piece.text:
        text = f"<code>{_h(piece.text)}</code>"
    else:
        text = _h(piece.text)
    return f'<a href="{_h(piece.url)}">{text}</a>' if piece.url else text


def _html_pieces(pieces: Pieces, symbols: bool) -> str:
    return "".join(_html_run(piece, symbols) for piece in pieces)


def _html_cell(cell: TableCell, symbols: bool) -> str:
    content = _html_pieces(cell.pieces, symbols)
    if cell.header:
        anchor = f' id="{_h(cell.anchor)}"' if cell.anchor else ""
        return f'<th scope="row"{anchor}>{content}</th>'
    css = f' class="{_h(cell.css)}"' if cell.css else ""
    title = f' title="{_h(cell.title)}"' if cell.title else ""
    return f"<td{css}{title}>{content}</td>"


def _html_header(cell: TableCell, symbols: bool) -> str:
    content = _html_pieces(cell.pieces, symbols)
    if cell.title:  # a short header (a number) stands for the full name
        content = f'<abbr title="{_h(cell.title)}">{content}</abbr>'
    return f'<th scope="col">{content}</th>'


def _html_tables(doc: Document, tables: Sequence[str], symbols: bool) -> List[str]:
    out: List[str] = []
    for table in docs_tables(doc, tables, symbols):
        out.append(f"<h2>{_h(table.name)}</h2>")
        if not table.rows:
            out.append(f"<p>{_h(table.empty)}</p>")
            continue
        out += [f"<p>{_html_pieces(paragraph, symbols)}</p>" for paragraph in table.intro]
        if table.legend:
            out.append("<p>Legend: " + " · ".join(
                f'<span class="{_h(e.css)}">{_html_run(e.label, symbols)}</span>: {_h(e.meaning)}'
                for e in table.legend) + "</p>")
        css = f' class="{_h(table.css)}"' if table.css else ""
        out += [f'<div class="scroll"><table{css}>', "<thead>", "<tr>",
                *(_html_header(cell, symbols) for cell in table.header), "</tr>", "</thead>", "<tbody>"]
        for row in table.rows:
            if row.group is not None:
                out.append(f'<tr class="group"><th scope="rowgroup" colspan="{len(table.header)}">{_h(row.group)}</th></tr>')
                continue
            cells = [_html_cell(cell, symbols) for cell in row.cells]
            if table.layout == "cells":
                out += ["<tr>", *cells, "</tr>"]
            elif table.layout == "header":
                out += ["<tr>" + cells[0], *cells[1:], "</tr>"]
            else:
                out.append("<tr>" + "".join(cells) + "</tr>")
        out += ["</tbody>", "</table></div>"]
        if table.notes:
            numbered = table.notes[0].kind == "numbered"
            out.append("<ol>" if numbered else "<ul>")
            out += [f'<li id="{"note-" if note.kind == "numbered" else ""}{_h(note.key)}">'
                    f"{_html_pieces(note.pieces, symbols)}</li>" for note in table.notes]
            out.append("</ol>" if numbered else "</ul>")
        out += [f"<p>{_html_pieces(paragraph, symbols)}</p>" for paragraph in table.after]
    return out
