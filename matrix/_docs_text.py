"""Markdown (GitHub and MkDocs) and reStructuredText (Sphinx, docutils) renderings of the model."""

from __future__ import annotations

import re
from typing import List, Sequence

from ._docs_model import Document, banner
from ._docs_tables import Piece, Pieces
from ._docs_tables import tables as docs_tables

# Markdown (GitHub and MkDocs) -----------------------------------------------------------------

def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    text = " ".join(text.split())
    for char in "\\`*_[]>|":
        text = text.replace(char, "\\" + char)
    # "<" as an entity: Python-Markdown (MkDocs) does not read "\<" as an escape and shows the
    # backslash (a user trial); an entity reads as "<" there and on GitHub alike.
    return text.replace("<", "&lt;")


def _md_code(text: str) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _spaced(text: str, rendered: str) -> str:
    return (" " if text[:1] == " " else "") + rendered + (" " if text[-1:] == " " else "")


def _md_link(label: str, url: str) -> str:
    return f"[{label}](<{url.replace('>', '%3E').replace(' ', '%20').replace('|', '%7C')}>)"


def _md_pieces(pieces: Pieces, labels: str) -> str:
    return "".join(_md_run(piece, labels) for piece in pieces)


def _md_run(piece: Piece, labels: str) -> str:
    if piece.kind in ("mark", "named"):
        # Footnotes, which GitHub and MkDocs (its footnotes extension) link both ways.
        return f" [^{labels}{piece.text}]"
    if piece.kind in ("raw", "status"):
        text = piece.text
    elif piece.kind == "code" and piece.text:
        text = _md_code(piece.text)
    else:
        text = _md(piece.text)
    text = _spaced(piece.text, text) if piece.spaced else text
    return _md_link(text, piece.url) if piece.url else text


def markdown(doc: Document, tables: Sequence[str], symbols: bool, labels: str = "") -> str:
    """*labels* goes before every footnote label (``[^m2-1]``), so that the notes of several
    renderings on one page do not take each other's labels (the MkDocs plugin gives each its own)."""
    out = [f"<!-- {banner(doc.source)} -->", ""]
    for table in docs_tables(doc, tables, symbols):
        out += [f"### {_md_pieces(table.heading, labels)}", ""]
        if not table.rows:
            out += [table.empty, ""]
            continue
        for paragraph in table.intro:
            out += [_md_pieces(paragraph, labels), ""]
        if table.legend:
            # The legend first: a reader meets it before a table of 30 rows, not after.
            out += ["Legend: " + " · ".join(f"{_md_run(e.label, labels)}: {_md(e.meaning)}" for e in table.legend), ""]
        header = [_md_pieces(cell.pieces, labels) for cell in table.header]
        out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for row in table.rows:
            if row.group is not None:
                out.append(f"| **{_md(row.group)}** |" + " |" * (len(header) - 1))
            else:
                out.append("| " + " | ".join(_md_pieces(cell.pieces, labels) for cell in row.cells) + " |")
        if table.notes:
            out.append("")
            out += [f"[^{labels}{note.key}]: {_md_pieces(note.pieces, labels)}" for note in table.notes]
        out.append("")
        for paragraph in table.after:
            out += [_md_pieces(paragraph, labels), ""]
    return "\n".join(out)


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


def _rst_pieces(pieces: Pieces, labels: str) -> str:
    return "".join(_rst_run(piece, labels) for piece in pieces)


def _rst_note(key: str, named: bool, labels: str) -> str:
    """A note's label: ``1`` (a numbered footnote), or with *labels*, or for a named note, an
    auto-numbered footnote's label (``#m2-1``, ``#refusal-x``)."""
    return f"#{labels}{key}" if labels or named else key


def _rst_run(piece: Piece, labels: str) -> str:
    if piece.kind in ("mark", "named"):
        return f" [{_rst_note(piece.text, piece.kind == 'named', labels)}]_"
    if piece.kind in ("raw", "status"):
        text = piece.text
    elif piece.kind == "code" and piece.text:
        text = _rst_literal(piece.text)
    else:
        text = _rst(piece.text)
    text = _spaced(piece.text, text) if piece.spaced else text
    return _rst_link(text, piece.url) if piece.url else text


def restructuredtext(doc: Document, tables: Sequence[str], symbols: bool, labels: str = "") -> str:
    """With *labels*, the notes are auto-numbered footnotes labelled with it (``[#m2-1]_``):
    footnote labels are names of the whole document, so several renderings on one page (the
    Sphinx directive gives each its own) must not share them; without, they are ``[1]_``."""
    out = [f".. {banner(doc.source)}", ""]
    for table in docs_tables(doc, tables, symbols):
        out += _heading(_rst_pieces(table.heading, labels), "-")
        if not table.rows:
            out += [table.empty, ""]
            continue
        for paragraph in table.intro:
            out += [_rst_pieces(paragraph, labels), ""]
        if table.legend:
            out += ["Legend: " + " · ".join(f"{_rst_run(e.label, labels)}: {_rst(e.meaning)}" for e in table.legend), ""]
        width = len(table.header)
        rows = [[f"**{_rst(row.group)}**", *([""] * (width - 1))] if row.group is not None
                else [_rst_pieces(cell.pieces, labels) for cell in row.cells] for row in table.rows]
        out += _rst_table(table.caption, [_rst_pieces(cell.pieces, labels) for cell in table.header], rows)
        out += [f".. [{_rst_note(note.key, note.kind == 'named', labels)}] {_rst_pieces(note.pieces, labels)}"
                for note in table.notes]
        if table.notes:
            out.append("")
        for paragraph in table.after:
            out += [_rst_pieces(paragraph, labels), ""]
    return "\n".join(out)
