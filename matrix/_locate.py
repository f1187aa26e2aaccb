"""Finding where a key stands in a TOML text, so problems can say ``features.toml:42:8``.

tomllib returns plain dicts without positions, so this module walks the (already valid) text
once more and records, for every key path such as ``("features", "fp8", "support", "v2")``,
the offset of the key and of its value. It knows the TOML that matters for that: tables,
arrays of tables, dotted keys, inline tables and arrays (across lines), strings of every kind
and comments. Anything it cannot follow ends the walk: the places found so far still serve,
and a problem whose place is not found falls back to its nearest located parent.
"""

from __future__ import annotations

import bisect
import re
from typing import Dict, List, Optional, Tuple

KeyPath = Tuple[object, ...]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_WS = re.compile(r"[ \t]*")
_WS_NL = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\", "e": "\x1b"}


class _Stop(Exception):
    pass


class Locations:
    """Key paths of one TOML text, and their line and column numbers."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.keys: Dict[KeyPath, int] = {}
        self.values: Dict[KeyPath, int] = {}
        self.order: List[Tuple[int, KeyPath]] = []  # every key met, where it was met, in text order
        # The arrays and inline tables still open where the walk ended (for a text that is not
        # valid TOML: what its end left unclosed), innermost last, with where each opened.
        self.unclosed: List[Tuple[KeyPath, int]] = []
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        walker = _Walker(self)
        try:
            walker.document()
        except (_Stop, IndexError, ValueError, KeyError):
            # Where the text stops being TOML it can follow (a syntax error is located too).
            self.unclosed = walker.open

    def line_column(self, offset: int) -> Tuple[int, int]:
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def key(self, path: KeyPath) -> Optional[Tuple[int, int]]:
        """Line and column of the key at *path*, or of its nearest located parent."""
        while path:
            if path in self.keys:
                return self.line_column(self.keys[path])
            path = path[:-1]
        return None

    def offset(self, line: int, column: int) -> int:
        """The offset of 1-based *line* and *column* (clamped to the text)."""
        line = max(1, min(line, len(self._line_starts)))
        return min(len(self.text), self._line_starts[line - 1] + max(0, column - 1))

    def at(self, offset: int) -> Tuple[KeyPath, Optional[int]]:
        """The key being written at *offset* (the last key met at or before it: for a text that
        stops being TOML there, the key the mistake belongs to), and where that key was met."""
        for start, path in reversed(self.order):
            if start <= offset:
                return path, start
        return (), None

    def in_string(self, path: KeyPath, offset: int) -> Optional[Tuple[int, int]]:
        """Line and column of character *offset* of the string value at *path*.

        Exact for literal strings and for basic strings without escapes; otherwise the
        string's own start.
        """
        start = self.values.get(path)
        if start is None:
            return self.key(path)
        text = self.text
        quote = text[start : start + 3]
        if quote in ('"""', "'''"):
            body = start + 3
            if text.startswith("\r\n", body):
                body += 2
            elif text.startswith("\n", body):
                body += 1
            end = text.find(quote, body)
        else:
            quote = text[start]
            body = start + 1
            end = text.find(quote, body) if quote == "'" else _basic_end(text, body)
        if quote[0] == '"' and "\\" in text[body:end]:
            return self.line_column(start)
        return self.line_column(body + offset)


def _basic_end(text: str, pos: int) -> int:
    while text[pos] != '"':
        pos += 2 if text[pos] == "\\" else 1
    return pos


class _Walker:
    def __init__(self, locations: Locations) -> None:
        self.loc = locations
        self.text = locations.text
        self.pos = 0
        self.array_counts: Dict[KeyPath, int] = {}
        self.open: List[Tuple[KeyPath, int]] = []

    def skip(self, pattern: re.Pattern[str]) -> None:
        found = pattern.match(self.text, self.pos)
        assert found is not None  # every pattern passed here matches the empty string
        self.pos = found.end()

    def document(self) -> None:
        text = self.text
        table: KeyPath = ()
        while True:
            self.skip(_WS_NL)
            if self.pos >= len(text):
                return
            start = self.pos
            if text.startswith("[[", start):
                self.pos += 2
                path = self.key_path()
                index = self.array_counts.get(path, -1) + 1
                self.array_counts[path] = index
                table = path + (index,)
                self.loc.keys.setdefault(path, start)
                self.loc.keys[table] = start
                self.loc.order.append((start, table))
                self.pos = text.index("]]", self.pos) + 2
            elif text[start] == "[":
                self.pos += 1
                table = self.key_path()
                for end in range(1, len(table) + 1):
                    self.loc.keys.setdefault(table[:end], start)
                self.loc.order.append((start, table))
                self.pos = text.index("]", self.pos) + 1
            else:
                self.key_value(table)

    def key_value(self, table: KeyPath) -> None:
        start = self.pos
        path = table + self.key_path()
        self.skip(_WS)
        if self.text[self.pos] != "=":
            raise _Stop
        self.pos += 1
        self.skip(_WS)
        self.loc.keys.setdefault(path, start)
        self.loc.order.append((start, path))
        self.value(path)

    def key_path(self) -> KeyPath:
        parts = []
        while True:
            self.skip(_WS)
            parts.append(self.key_part())
            self.skip(_WS)
            if self.text[self.pos] != ".":
                return tuple(parts)
            self.pos += 1

    def key_part(self) -> str:
        text = self.text
        if text[self.pos] == '"':
            return self.basic_string()
        if text[self.pos] == "'":
            end = text.index("'", self.pos + 1)
            part = text[self.pos + 1 : end]
            self.pos = end + 1
            return part
        match = _BARE_KEY.match(text, self.pos)
        if not match:
            raise _Stop
        self.pos = match.end()
        return match.group()

    def basic_string(self) -> str:
        text = self.text
        pos = self.pos + 1
        out = []
        while text[pos] != '"':
            if text[pos] == "\\":
                code = text[pos + 1]
                if code in _SIMPLE_ESCAPES:
                    out.append(_SIMPLE_ESCAPES[code])
                    pos += 2
                    continue
                width = {"u": 4, "U": 8, "x": 2}[code]
                out.append(chr(int(text[pos + 2 : pos + 2 + width], 16)))
                pos += 2 + width
                continue
            out.append(text[pos])
            pos += 1
        self.pos = pos + 1
        return "".join(out)

    def value(self, path: KeyPath) -> None:  # noqa: C901 — one branch per TOML value syntax, a recursive-descent rule like tomli's
        text = self.text
        self.loc.values[path] = self.pos
        char = text[self.pos]
        if char == "{":
            self.open.append((path, self.pos))
            self.pos += 1
            while True:
                self.skip(_WS_NL)
                if text[self.pos] == "}":
                    self.pos += 1
                    self.open.pop()
                    return
                self.key_value(path)
                self.skip(_WS_NL)
                if text[self.pos] == ",":
                    self.pos += 1
        elif char == "[":
            self.open.append((path, self.pos))
            self.pos += 1
            index = 0
            while True:
                self.skip(_WS_NL)
                if text[self.pos] == "]":
                    self.pos += 1
                    self.open.pop()
                    return
                item = path + (index,)
                self.loc.keys[item] = self.pos
                self.loc.order.append((self.pos, item))
                self.value(item)
                index += 1
                self.skip(_WS_NL)
                if text[self.pos] == ",":
                    self.pos += 1
        elif text.startswith('"""', self.pos) or text.startswith("'''", self.pos):
            quote = text[self.pos : self.pos + 3]
            end = self.pos + 3
            while True:
                end = text.index(quote, end)
                if quote == '"""' and _escaped(text, end):
                    end += 1
                    continue
                break
            # A closing delimiter may carry up to two quotes of the content before it.
            while text.startswith(quote[0], end + 3):
                end += 1
            self.pos = end + 3
        elif char == '"':
            self.basic_string()
        elif char == "'":
            self.pos = text.index("'", self.pos + 1) + 1
        else:
            match = re.compile(r"[^,\]}\s#]+").match(text, self.pos)
            if not match:
                raise _Stop
            self.pos = match.end()


def _escaped(text: str, pos: int) -> bool:
    count = 0
    while pos - count - 1 >= 0 and text[pos - count - 1] == "\\":
        count += 1
    return count % 2 == 1
