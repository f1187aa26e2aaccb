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
table or a malformed version is an error of the directive (``sphinx-build -W`` fails on it); a
change of features.toml or a runner file rebuilds the page.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from ._docs_embed import SCROLL_CLASS, embed, tables_option
from .errors import MatrixError

# Each table's box (`SCROLL_CLASS`) is styled by the stylesheet the extension adds to HTML builds.
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


def _add_static(app: Sphinx) -> None:
    app.config.html_static_path.append(_STATIC)


def setup(app: Sphinx) -> Dict[str, Any]:
    app.add_directive("support-matrix", SupportMatrixDirective)
    app.connect("builder-inited", _add_static)
    app.add_css_file("support-matrix.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
