"""An MkDocs plugin that renders support tables into pages at build time.

``mkdocs.yml``::

    plugins:
      - search
      - support-matrix
    markdown_extensions:
      - footnotes        # note marks link to their notes
      - tables

and, in a page, one line where the tables go (the path relative to ``mkdocs.yml``, or
``default`` for the packaged matrix)::

    <!-- support-matrix features.toml table=support,runners,pairs version=0.31.0 text-only -->

Each table scrolls sideways in its own box, so a wide one never widens the page. A matrix that
does not load, an unknown table or option, or a malformed version fails the build with the
error (so ``mkdocs build --strict`` never publishes a page without its table), a marker
misspelt (``<!-- support_matrix … -->``) is a warning, and ``mkdocs serve`` rebuilds when
features.toml or a runner file changes.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
from typing import Any, List, Set

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from . import _messages
from ._docs_embed import SCROLL_CLASS, almost_marker, embed, tables_option
from .errors import MatrixError

#: The marker a page writes where the tables go.
MARKER = re.compile(r"^[ \t]*<!--[ \t]*support-matrix\b(?P<arguments>[^\n]*?)-->[ \t]*$", re.MULTILINE)
# A comment on a line of its own, as a marker stands: one whose first word is almost
# "support-matrix" (support_matrix, supportmatrix, support-matrx, Support-Matrix) is a marker
# misspelt, which would leave the page without its table and the build without a word.
_COMMENT = re.compile(r"^[ \t]*<!--[ \t]*(?P<word>[A-Za-z][\w-]*)(?P<arguments>[^\n]*?)-->[ \t]*$", re.MULTILINE)
_LOG = logging.getLogger("mkdocs.plugins.support-matrix")  # mkdocs build --strict fails on its warnings

# The rendered Markdown sits between these comments, which Markdown passes through, so that the
# HTML of its tables can be found again and each table put in a box that scrolls sideways: a
# wide table then never makes the whole page scroll (themes such as MkDocs' own do not do it).
_BEGIN, _END = "<!-- support-matrix:begin -->", "<!-- support-matrix:end -->"
_RENDERED = re.compile(re.escape(_BEGIN) + "(.*?)" + re.escape(_END), re.DOTALL)
_TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)
SCROLL_BOX = f'<div class="{SCROLL_CLASS}" style="overflow-x: auto; max-width: 100%">'
# A note the pairs table marks in many cells gets one back link per mark, which the footnotes
# extension writes with nothing between them: a line that cannot wrap. A space lets it wrap.
_BACKLINKS = re.compile(r'(</a>)(?=<a class="footnote-backref")')


class SupportMatrixPlugin(BasePlugin):  # type: ignore[type-arg,no-untyped-call]
    """Replaces every ``<!-- support-matrix PATH … -->`` line with the tables of that matrix."""

    def __init__(self) -> None:
        self.watch: Set[str] = set()

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        base = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))

        embedded = 0

        def replace(match: re.Match[str]) -> str:
            nonlocal embedded
            embedded += 1
            where = f"{page.file.src_uri}: <!-- support-matrix{match.group('arguments')}-->"
            try:
                # Footnote labels name one note on the whole page: each marker's are its own.
                text, read = self._render(match.group("arguments"), base, labels=f"m{embedded}-")
            except (MatrixError, ValueError) as error:
                raise PluginError(f"{where}: {error}") from None
            self.watch.update(read)
            return f"{_BEGIN}\n\n{text}\n\n{_END}"

        for comment in _COMMENT.finditer(markdown):
            word = comment.group("word")
            if word != "support-matrix" and almost_marker(word):
                _LOG.warning(f"{page.file.src_uri}: <!-- {word}{comment.group('arguments')}-->: "
                             + _messages.misspelt_marker(word, "support-matrix"))
        return MARKER.sub(replace, markdown)

    def on_page_content(self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        def boxed(rendered: re.Match[str]) -> str:
            return _TABLE.sub(lambda table: f"{SCROLL_BOX}{table.group(0)}</div>", rendered.group(1))

        if _BEGIN not in html:
            return html
        return _BACKLINKS.sub(r"\1 ", _RENDERED.sub(boxed, html))

    def _render(self, arguments: str, base: str, *, labels: str) -> tuple[str, List[str]]:
        words = shlex.split(arguments)
        if not words:
            raise ValueError("name the matrix: a features.toml path relative to mkdocs.yml, or 'default'")
        path, options = words[0], words[1:]
        tables, version, symbols = tables_option(""), None, True
        for option in options:
            name, has_value, value = option.partition("=")
            if name == "table" and has_value:
                tables = tables_option(value)
            elif name == "version" and has_value:
                version = value
            elif name == "text-only" and not has_value:
                symbols = False
            else:
                raise ValueError(f"unknown option {option!r} (expected table=NAME,NAME, version=V or text-only)")
        return embed(path, base, format="markdown", tables=tables, version=version, symbols=symbols, labels=labels)

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        for path in sorted(self.watch):
            server.watch(path)
        return server

