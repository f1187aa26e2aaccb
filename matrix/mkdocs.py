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

A matrix that does not load, an unknown table or option, or a malformed version fails the build
with the error (so ``mkdocs build --strict`` never publishes a page without its table), and
``mkdocs serve`` rebuilds when features.toml or a runner file changes.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any, List, Set

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from ._docs_embed import embed, tables_option
from .errors import MatrixError

#: The marker a page writes where the tables go.
MARKER = re.compile(r"^[ \t]*<!--[ \t]*support-matrix\b(?P<arguments>[^\n]*?)-->[ \t]*$", re.MULTILINE)
_OPTIONS = ("table", "version", "text-only")


class SupportMatrixPlugin(BasePlugin):  # type: ignore[type-arg,no-untyped-call]
    """Replaces every ``<!-- support-matrix PATH … -->`` line with the tables of that matrix."""

    def __init__(self) -> None:
        self.watch: Set[str] = set()

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        base = os.path.dirname(os.path.abspath(config.config_file_path or "mkdocs.yml"))

        def replace(match: re.Match[str]) -> str:
            where = f"{page.file.src_uri}: <!-- support-matrix{match.group('arguments')}-->"
            try:
                text, read = self._render(match.group("arguments"), base)
            except (MatrixError, ValueError) as error:
                raise PluginError(f"{where}: {error}") from None
            self.watch.update(read)
            return text

        return MARKER.sub(replace, markdown)

    def _render(self, arguments: str, base: str) -> tuple[str, List[str]]:
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
        return embed(path, base, format="markdown", tables=tables, version=version, symbols=symbols)

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        for path in sorted(self.watch):
            server.watch(path)
        return server
