"""What the MkDocs plugin (`matrix.mkdocs`) and the Sphinx extension (`matrix.sphinx`) share:
find the matrix a page names, render the tables it asks for, and list the files to watch."""

from __future__ import annotations

import difflib
import os
from typing import List, Optional, Sequence, Tuple

from . import _messages
from .errors import UsageError
from .render import DEFAULT_TABLES, TABLES
from .schema import Matrix


#: The class of the box each rendered table scrolls in (sideways, so that a wide table never
#: widens the page): the MkDocs plugin and the Sphinx directive both use it.
SCROLL_CLASS = "support-matrix-scroll"


def almost_marker(word: str) -> bool:
    """Whether *word* (a comment's first word) is "support-matrix" misspelt or itself: another
    case, another separator or none, a letter or two wrong. A page's marker misspelt would be
    a comment, silently: the page without its table."""
    word = word.lower()
    return (word.replace("_", "-").replace("-", "") == "supportmatrix"
            or difflib.SequenceMatcher(None, word, "support-matrix").ratio() >= 0.85)


def tables_option(text: str) -> Tuple[str, ...]:
    """``support pairs`` or ``support,pairs`` → the tables; ``all`` → every table; empty → the
    default tables."""
    names = tuple(name for name in text.replace(",", " ").split() if name)
    if not names:
        return DEFAULT_TABLES
    if "all" in names:
        return TABLES
    for name in names:
        if name not in TABLES:
            raise UsageError(_messages.unknown_option("table", name, (*TABLES, "all")))
    return names


def load(where: str, base: str) -> Tuple[Matrix, str]:
    """The matrix *where* names (``default`` for the packaged one, else a ``features.toml``
    path relative to *base*) and the folder the names of its files are relative to."""
    from .loader import default, _default_file, load

    if where == "default":
        # The packaged matrix names its files "features.toml" and "runners/v1.toml", for
        # messages: they are in the package, not beside the page or mkdocs.yml.
        return default(), os.path.dirname(_default_file())
    return load(os.path.join(base, where)), ""


def watched(matrix: Matrix, folder: str = "") -> List[str]:
    """The files whose change changes the tables: features.toml and every runner file, their
    names (as the matrix gives them) relative to *folder*."""
    files = [matrix.file] + [runner.file for runner in matrix.runners]
    return [os.path.join(folder, f) for f in files if f]


def embed(where: str, base: str, *, format: str, tables: Sequence[str] = DEFAULT_TABLES,
          version: Optional[str] = None, symbols: bool = True, labels: str = "") -> Tuple[str, List[str]]:
    """The rendered tables (*format* ``markdown`` or ``rst``, *tables* as `tables_option` gives
    them) and the files they were read from. *labels* goes before each note's label: one page
    may embed several tables, and a label names one note on the whole page.

    :raises LoadError: the matrix does not load.
    :raises UsageError: a malformed version.
    """
    from ._docs_model import document
    from ._docs_text import markdown, restructuredtext

    matrix, folder = load(where, base)
    doc = document(matrix, version=version, pairs="pairs" in tables, releases="release-notes" in tables,
                   columns="columns" in tables)
    text = (markdown if format == "markdown" else restructuredtext)(doc, tables, symbols, labels)
    return text, watched(matrix, folder)
