"""The HTML rendering of the model: a standalone page or a fragment to inject."""

from __future__ import annotations

import html
from typing import List, Sequence

from ._docs_model import (CAPABILITIES_INTRO, DEPRECATION_HEADER, NO_GATES, NO_SCHEMA, PAIR_SYMBOLS, PAIRS_INTRO, Document, Step, absent, banner, cell_text,
                          deprecation_cells, group_rows, legend_label, named, pair_label, choice_text)

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


def _html_tables(doc: Document, tables: Sequence[str], symbols: bool) -> List[str]:
    out: List[str] = []
    if "support" in tables:
        out.append("<h2>Support matrix</h2>")
    if "support" in tables and not doc.rows:
        out.append(f"<p>{NO_GATES}</p>")
    elif "support" in tables:
        out.append("<p>Legend: " + " · ".join(
            f'<span class="status status-{_h(t)}">{_h(legend_label(s, t, symbols))}</span>: {_h(m)}'
            for s, t, m in doc.legend) + "</p>")
        out += ['<div class="scroll"><table>', "<thead>", "<tr>",
                '<th scope="col">Feature</th>', '<th scope="col">Condition</th>',
                *(f'<th scope="col">{_h(name)}</th>' for _, name in doc.runners),
                '<th scope="col">Lifecycle</th>', "</tr>", "</thead>", "<tbody>"]
        for heading, row in group_rows(doc.rows):
            if heading:
                out.append(f'<tr class="group"><th scope="rowgroup" colspan="{len(doc.runners) + 3}">{_h(heading)}</th></tr>')
            name = named(_h(row.name), row.links, lambda label, url: f'<a href="{_h(url)}">{label}</a>') + (
                f' <sup><a href="#note-{row.note}">{row.note}</a></sup>' if row.note else "")
            out.append("<tr>")
            out.append(f'<th scope="row" id="feature-{_h(row.id)}">{name}</th>')
            out.append(f"<td><code>{_h(row.condition)}</code></td>")
            for cell in row.cells:
                # The word is always there, so a page without an emoji font (or in greyscale)
                # still says every status; the cell is filled with the colour of its status.
                text = cell_text(cell, lambda step: _html_label(step, symbols),
                             lambda label, url: f'<a href="{_h(url)}">{label}</a>',
                             lambda n: f' <sup><a href="#note-{n}">{n}</a></sup>')
                out.append(f'<td class="cell status-{_h(cell.now.text)}">{text}</td>')
            out.append(f'<td class="lifecycle">{_h("; ".join(row.lifecycle))}</td>')
            out.append("</tr>")
        out += ["</tbody>", "</table></div>"]
        if doc.notes:
            out.append("<ol>")
            out += [f'<li id="note-{i}">{_h(note)}</li>' for i, note in enumerate(doc.notes, 1)]
            out.append("</ol>")
    if "runners" in tables:
        out.append("<h2>Runners</h2>")
        out += ['<div class="scroll"><table>', "<thead>", "<tr>",
                *(f'<th scope="col">{h}</th>' for h in ("Runner", "Name", "Priority", "Description", "Links")),
                "</tr>", "</thead>", "<tbody>"]
        for r in doc.runner_rows:
            links = ", ".join(f'<a href="{_h(url)}">link {i}</a>' for i, url in enumerate(r.links, 1))
            out.append(f'<tr><th scope="row"><code>{_h(r.id)}</code></th><td>{_h(r.name)}</td><td>{r.priority}</td>'
                       f"<td>{_h(r.description)}</td><td>{links}</td></tr>")
        out += ["</tbody>", "</table></div>",
                "<p>The runner of highest priority that nothing blocks is chosen.</p>"]
    if "capabilities" in tables and doc.candidates:
        out += ["<h2>Runner capabilities</h2>", f"<p>{_h(CAPABILITIES_INTRO)}</p>",
                '<div class="scroll"><table>', "<thead>", "<tr>", '<th scope="col">Requirement</th>',
                *(f'<th scope="col">{_h(name)}</th>' for _, name in doc.runners), '<th scope="col">Reason</th>',
                "</tr>", "</thead>", "<tbody>"]
        for capability in doc.capabilities:
            out.append(f'<tr><th scope="row">{_h(capability.name)}</th>'
                       + "".join(f"<td><code>{_h(text)}</code></td>" if code and text else f"<td>{_h(text)}</td>"
                                 for text, code in capability.cells)
                       + f"<td>{_h(capability.reason) or 'given per runner'}</td></tr>")
        out.append('<tr><th scope="row">Candidate for automatic choice</th>'
                   + "".join(f"<td><code>{_h(c)}</code></td>" if c else "<td>always</td>" for c in doc.candidates)
                   + "<td></td></tr>")
        out += ["</tbody>", "</table></div>"]
        out += ["<p>" + "".join(f"<code>{_h(text)}</code>" if code else _h(text) for text, code in line) + "</p>"
                for line in choice_text(doc)]
    if "pairs" in tables:
        out += _html_pairs(doc, symbols)
    if "config" in tables:
        out.append("<h2>Config reference</h2>")
    if "config" in tables and not doc.config:
        out.append(f"<p>{NO_SCHEMA}</p>")
    elif "config" in tables:
        out += ['<div class="scroll"><table>', "<thead>", "<tr>",
                *(f'<th scope="col">{h}</th>' for h in ("Path", "Type", "Choices", "Default", "Description")),
                "</tr>", "</thead>", "<tbody>"]
        for entry in doc.config:
            default = f"<code>{_h(entry.default)}</code>" if entry.default else absent(entry.type)
            out.append(f'<tr><th scope="row"><code>{_h(entry.path)}</code></th><td>{_h(entry.type)}</td>'
                       f"<td>{_h(entry.choices)}</td><td>{default}</td><td>{_h(entry.doc)}</td></tr>")
        out += ["</tbody>", "</table></div>"]
    if "deprecations" in tables:
        out.append("<h2>Deprecations</h2>")
        if doc.deprecations:
            out += ['<div class="scroll"><table>', "<thead>", "<tr>",
                    *(f'<th scope="col">{h}</th>' for h in DEPRECATION_HEADER),
                    "</tr>", "</thead>", "<tbody>"]
            for d in doc.deprecations:
                since, remove_in, state = deprecation_cells(d)
                out.append(f'<tr><th scope="row">{_h(d.feature)}</th><td>{_h(since)}</td>'
                           f'<td>{_h(remove_in)}</td><td>{_h(state)}</td><td>{_h(d.replacement)}</td><td>{_h(d.message)}</td></tr>')
            out += ["</tbody>", "</table></div>"]
        else:
            out.append("<p>No feature is deprecated.</p>")
        if doc.changes:
            out += ["<h2>Changes by release</h2>", '<div class="scroll"><table>', "<thead>", "<tr>",
                    *(f'<th scope="col">{h}</th>' for h in ("Release", "Feature", "Change")),
                    "</tr>", "</thead>", "<tbody>"]
            out += [f'<tr><th scope="row">{_h(c.version)}</th><td>{_h(c.name)}</td><td>{_h(c.text)}</td></tr>'
                    for c in doc.changes]
            out += ["</tbody>", "</table></div>"]
    return out


# The colour of a pair's cell: served by all, by some, by none, never together.
_PAIR_CLASS = {"all": "status-yes", "some": "status-partial", "none": "status-no", "never": "pair-never",
               "undecided": "pair-undecided"}


def _html_pairs(doc: Document, symbols: bool) -> List[str]:
    out = ["<h2>Feature pairs</h2>"]
    if len(doc.pairs) < 2:
        return out + ["<p>No two features to pair at this version.</p>"]
    intro = _h(PAIRS_INTRO)
    while intro.count("`") >= 2:  # `code` spans, as in the Markdown
        intro = intro.replace("`", "<code>", 1).replace("`", "</code>", 1)
    out.append(f"<p>{intro}</p>")
    out.append("<p>Legend: " + " · ".join(
        f'<span class="{_PAIR_CLASS[k]}">{_h(legend_label(s, t, symbols))}</span>: {_h(m)}'
        for k, (s, t, m) in PAIR_SYMBOLS.items() if (s, t, m) in doc.pair_legend) + "</p>")
    columns = len(doc.pairs) - 1
    runner_names = dict(doc.runners)
    out += ['<div class="scroll"><table class="pairs">', "<thead>", "<tr>", '<th scope="col">Feature</th>',
            *(f'<th scope="col"><abbr title="{_h(row.name)}">{j}</abbr></th>'
              for j, row in enumerate(doc.pairs[:columns], 1)),
            "</tr>", "</thead>", "<tbody>"]
    for i, row in enumerate(doc.pairs):
        out.append(f'<tr><th scope="row" id="pair-{_h(row.id)}">{i + 1}. {_h(row.name)}</th>')
        for j, c in enumerate(row.cells):
            title = f"{row.name} with {doc.pairs[j].name}: " + (
                "served by " + ", ".join(runner_names[r] for r in c.runners) if c.kind == "some"
                else PAIR_SYMBOLS[c.kind][2])
            text = _h(pair_label(c, symbols))
            if c.refusal:
                text += f' <sup><a href="#refusal-{_h(c.refusal)}">why</a></sup>'
            out.append(f'<td class="{_PAIR_CLASS[c.kind]}" title="{_h(title)}">{text}</td>')
        out += ["<td></td>"] * (columns - len(row.cells))
        out.append("</tr>")
    out += ["</tbody>", "</table></div>"]
    if doc.refusals:
        out.append("<ul>")
        for r in doc.refusals:
            links = "".join(f' <a href="{_h(url)}">link {i}</a>' for i, url in enumerate(r.links, 1))
            out.append(f'<li id="refusal-{_h(r.id)}">Refused on purpose (<code>{_h(r.id)}</code>): {_h(r.reason)}{links}</li>')
        out.append("</ul>")
    return out
