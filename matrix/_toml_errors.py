"""TOML syntax errors said as every other problem is: ``file:line:col: $.key: message``.

tomllib (tomli before Python 3.11) says where it stopped and what it expected there, in its own
words: ``Cannot overwrite a value (at line 9, column 1)``. This module finds the key that the
mistake belongs to and says what went wrong in the user's terms (the key set twice and where,
the bracket left open and where it opened), with the line and a caret.
"""

from __future__ import annotations

import functools
import json
import re
from typing import TYPE_CHECKING, Optional, Tuple

from . import _messages
from .errors import Problem, excerpt

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from ._locate import Locations

_TOML_PLACE = re.compile(r" \(at line (\d+), column (\d+)\)\Z| \(at end of document\)\Z")


def syntax_problem(name: str, text: str, exc: Exception, locations: Optional[Locations] = None) -> Problem:
    """The problem the TOML syntax error *exc* in *text* (the file *name*) is, naming the key
    the mistake belongs to; *locations*: those of *text*, where already worked out."""
    if locations is None:
        from ._locate import Locations

        locations = Locations(text)
    message, stopped = _parts(exc)
    if stopped is None:
        # The end of the document: said at what it left open, or after its last character.
        offset = len(text.rstrip())
        if locations.unclosed:
            path, opened = locations.unclosed[-1]
            wording = _messages.toml_unclosed(text[opened], *locations.line_column(opened))
        else:
            path = locations.at(offset)[0]
            if message in ("Unterminated string", 'Expected "\'"'):
                wording = _messages.toml_unterminated_string(at_end=True)
            elif message == "Invalid value":
                wording = _messages.toml_ends_early()
            else:
                wording = _messages.toml_as_said(message)
        line, column = locations.line_column(offset)
        return Problem(wording, _messages.place(path), name, line, column, excerpt(text, (offset, offset + 1)))
    offset = locations.offset(*stopped)
    path, start = locations.at(offset)
    dotted = functools.partial(_dotted, path)
    span = (offset, offset + 1)
    if message == "Cannot overwrite a value" and start is not None:
        for end in range(len(path), 0, -1):  # the key, or the nearest parent, set before
            earlier = locations.keys.get(path[:end])
            if earlier is not None and earlier < start:
                # `support.vaapi = …` and then `support = { … }`: the parent is the inline table
                # being read, set twice, not a value below which a key is set (a user trial).
                below = min((at for key, at in locations.keys.items()
                             if len(key) > end and key[:end] == path[:end] and at < earlier), default=None)
                if end == len(path):
                    wording = _messages.toml_set_twice(str(path[-1]), locations.line_column(earlier)[0])
                elif below is not None:
                    wording = _messages.toml_set_twice(dotted(end), locations.line_column(below)[0])
                    path, start = path[:end], earlier
                else:
                    wording = _messages.toml_set_below_value(dotted(), dotted(end), locations.line_column(earlier)[0])
                break
        else:
            wording = _messages.toml_as_said(message)
        span = _key_span(text, start)
    elif message.startswith("Cannot declare (") and start is not None:
        declared = locations.keys.get(path)
        first = locations.line_column(declared)[0] if declared is not None and declared < start else None
        wording = _messages.toml_table_twice(dotted(), first)
        span = _key_span(text, start)
    elif message.startswith("Cannot mutate immutable namespace ("):
        parent = _namespace(message)
        where = locations.values.get(parent) if parent else None
        inside = path[len(parent):] if parent and path[:len(parent)] == parent else path
        wording = (_messages.toml_inline_closed(_dotted(inside), ".".join(parent), locations.line_column(where)[0])
                   if parent and where is not None else _messages.toml_as_said(message))
    elif message in ("Illegal character '\\n'", 'Expected "\'"') and (offset >= len(text) or text[offset] in "\r\n"):
        wording = _messages.toml_unterminated_string()
    elif (message == "Expected newline or end of document after a statement" and offset > 0
          and text[offset - 1] in "\"'" and path in locations.values and text[locations.values[path]] == text[offset - 1]):
        # `when = "mode == "all""`: the string closed at the quote meant to open a literal.
        wording = _messages.toml_quote_inside(text[offset - 1])
    else:
        wording = _messages.toml_as_said(message)
    line, column = locations.line_column(span[0])
    return Problem(wording, _messages.place(path), name, line, column, excerpt(text, span))


def _parts(exc: Exception) -> Tuple[str, Optional[Tuple[int, int]]]:
    """The sentence of the TOML error *exc* and the line and column where the parser stopped,
    or None where it stopped at the end of the document.

    Python 3.11 to 3.13 and tomli 2.0 keep them only in the text: ``Invalid value (at end of
    document)``. Python 3.14 and tomli 2.1 on keep them as attributes too, and give the end of
    the document a line and column: there it is told by ``pos`` at the end of ``doc``.
    """
    message, doc, pos = getattr(exc, "msg", None), getattr(exc, "doc", None), getattr(exc, "pos", None)
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if isinstance(message, str) and isinstance(doc, str) and isinstance(pos, int):
        if pos >= len(doc) or not isinstance(line, int) or not isinstance(column, int):
            return message, None
        return message, (line, column)
    full = str(exc)
    match = _TOML_PLACE.search(full)
    message = full[: match.start()] if match else full
    return message, (int(match.group(1)), int(match.group(2))) if match and match.group(1) else None


def _dotted(path: Place, end: Optional[int] = None) -> str:
    """The TOML key of *path*: a part that is not a bare key in double quotes (``config."a.b"``)."""
    parts = [str(p) for p in path[:end] if not isinstance(p, int)]
    return ".".join(p if _BARE.fullmatch(p) else json.dumps(p, ensure_ascii=False) for p in parts)


_BARE = re.compile(r"[A-Za-z0-9_-]+")


_KEY_OR_HEADER = re.compile(r"\[\[?[^\]\n]*\]?\]?|[^=\n]*?(?=[ \t]*=)")


def _key_span(text: str, start: int) -> Tuple[int, int]:
    """The key (or ``[table]`` header) that starts at *start*."""
    match = _KEY_OR_HEADER.match(text, start)
    return (start, match.end()) if match and match.end() > start else (start, start + 1)


def _namespace(message: str) -> Optional[Tuple[str, ...]]:
    """The key path in tomllib's ``Cannot mutate immutable namespace ('a', 'b')``."""
    import ast

    try:
        value = ast.literal_eval(message[message.index("("):])
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, tuple) and all(isinstance(p, str) for p in value) else None
