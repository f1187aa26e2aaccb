"""A Sphinx extension: the ``support-matrix`` directive renders support tables into a page.

``conf.py``::

    extensions = ["matrix.sphinx"]

and, in a page (the path relative to the page, ``/…`` relative to the source folder, or
``default`` for the packaged matrix)::

    .. support-matrix:: ../features.toml
       :table: support runners pairs
       :version: 0.31.0
       :text-only:

The tables come as sections (one per table) at the level below the section the directive
stands in, each table in a box that scrolls sideways. A matrix that does not load, an unknown
table or a malformed version is an error of the directive (``sphinx-build -W`` fails on it), a
comment that is the directive with one colon or none is a warning, and a change of
features.toml or a runner file rebuilds the page.
"""

from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from . import _messages
from ._docs_embed import SCROLL_CLASS, almost_marker, embed, tables_option
from .errors import MatrixError

# Each table's box (`SCROLL_CLASS`) is styled by the stylesheet the extension adds to HTML builds.
_LOG = logging.getLogger(__name__)
_STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_sphinx_static")


class SupportMatrixDirective(SphinxDirective):
    required_arguments = 1
    optional_arguments = 0
    has_content = False
    option_spec = {
        "table": directives.unchanged,
        "version": directives.unchanged_required,
        "text-only": directives.flag,
    }

    def run(self) -> List[nodes.Node]:
        where = self.arguments[0]
        if where == "default":
            base = ""
        elif where.startswith("/"):
            base, where = str(self.env.srcdir), where.lstrip("/")
        else:
            base = os.path.dirname(self.env.doc2path(self.env.docname))
        # Footnote labels are names of the whole document: each directive's are its own
        # (temp_data is the document's, cleared when it is read).
        document = self.env.temp_data
        embedded = document["support-matrix-embedded"] = int(document.get("support-matrix-embedded") or 0) + 1
        try:
            text, read = embed(where, base, format="rst", tables=tables_option(self.options.get("table", "")),
                               version=self.options.get("version"), symbols="text-only" not in self.options,
                               labels=f"m{embedded}-")
        except MatrixError as error:
            raise self.error(f"support-matrix {self.arguments[0]}: {error}") from None
        for path in read:
            self.env.note_dependency(path)
        container = nodes.section()
        container.document = self.state.document
        nested_parse_with_titles(self.state, StringList(text.splitlines(), source=self.arguments[0]), container)
        for table in list(container.findall(nodes.table)):
            box = nodes.container(classes=[SCROLL_CLASS])
            table.replace_self(box)
            box += table
        return list(container.children)


def _misspelt(app: Sphinx, doctree: nodes.document) -> None:
    # A directive misspelt is docutils' error; written with one colon (or none) it is a comment,
    # which would leave the page without its table and the build without a word.
    for comment in doctree.findall(nodes.comment):
        text = comment.astext().split("\n", 1)[0].strip()
        word = re.match(r"[A-Za-z][\w-]*", text)
        if word is not None and almost_marker(word.group(0)):
            comment.line = _comment_line(comment, text)
            _LOG.warning(_messages.comment_not_directive(text), location=comment)


def _comment_line(comment: nodes.comment, text: str) -> Optional[int]:
    """The line a comment starts on: docutils gives one at or after it (one more under a title)."""
    given: Optional[int] = comment.line
    try:
        with open(comment.source or "", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return given
    for number in range(min(given or 0, len(lines)), 0, -1):
        if lines[number - 1].strip().startswith("..") and lines[number - 1].strip()[2:].strip() == text:
            return number
    return given


def _add_static(app: Sphinx) -> None:
    app.config.html_static_path.append(_STATIC)


def setup(app: Sphinx) -> Dict[str, Any]:
    app.add_directive("support-matrix", SupportMatrixDirective)
    app.connect("builder-inited", _add_static)
    app.connect("doctree-read", _misspelt)
    app.add_css_file("support-matrix.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
