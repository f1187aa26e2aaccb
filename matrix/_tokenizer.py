"""The tokenizer of the predicate language: a table of named regexes and a cursor."""

from __future__ import annotations

import re
from typing import Dict, Iterator, NoReturn, Optional, Tuple

import attrs

from . import _format, _messages, _operators
from .errors import PredicateError


@attrs.frozen
class Token:
    name: str
    text: str
    position: int

    @property
    def span(self) -> Tuple[int, int]:
        return (self.position, self.position + len(self.text))


KEYWORDS = _operators.KEYWORDS


def _either(spellings: Tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(spelling) for spelling in spellings))


# Order matters: the first rule that matches at the cursor wins.
RULES: Dict[str, re.Pattern[str]] = {
    "WS": re.compile(r"[ \t\r\n]+"),
    "LPAREN": re.compile(r"\("),
    "RPAREN": re.compile(r"\)"),
    "LBRACKET": re.compile(r"\["),
    "RBRACKET": re.compile(r"\]"),
    "COMMA": re.compile(r","),
    # Spellings from other languages, recognised only to say what to write instead.
    "MISSPELT": re.compile(r"===|&&|\|\||<>|!(?!=)|=(?!=)|(?<!/)/(?!/)|&|\|"),
    # The operators spelt with symbols, from the table (words are NAMEs that are KEYWORDS).
    "OP": _either(_operators.symbols("comparison", "membership")),
    # `*`, `//` and `%`; `+` and `-` come after NUMBER, which takes a sign written against its
    # digits (`x == -1`): the parser reads `a -1` as `a - 1`, as Python does.
    "PERCENT": _either(_operators.symbols("arithmetic", level=_operators.ARITH_LEVEL)),
    "STRING": re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*\""""),
    "OPEN_STRING": re.compile(r"""['"]"""),
    "NUMBER": re.compile(
        r"[+-]?(?:\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+)"
        r"(?![A-Za-z0-9_.])"
    ),
    "SUM": _either(_operators.symbols("arithmetic", level=_operators.SUM_LEVEL)),
    "NAME": re.compile(_format.PATH + r"(?![A-Za-z0-9_.])"),
}

# All rules in one pattern, tried in the order above, after any whitespace: one regex call
# per token.
_MASTER = re.compile("[ \t\r\n]*(?:" + "|".join(
    f"(?P<{name}>{pattern.pattern})" for name, pattern in RULES.items() if name != "WS") + ")")
_WS = RULES["WS"]

_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def every_token(source: str) -> Iterator[Token]:
    """The tokens of *source* as `Tokenizer` reads them (a keyword named by itself), going on
    where it would stop: past a character no rule matches, and past a misspelt operator or an
    open quote (each yielded as a token), for what a text that does not parse names besides its
    error (`matrix._typecheck.unknown_paths`)."""
    position = 0
    while True:
        match = _MASTER.match(source, position)
        if match is None:
            space = _WS.match(source, position)
            position = (space.end() if space else position) + 1
            if position > len(source):
                return
            continue
        name = match.lastgroup
        assert name is not None  # every alternative of the master pattern is a named group
        text = match.group(name)
        yield Token(text if name == "NAME" and text in KEYWORDS else name, text, match.start(name))
        position = match.end()


def describe(token: Optional[Token]) -> str:
    """Name a token as the user wrote it, for "Expected …, found …"."""
    if token is None:
        return "end of text"
    return repr(token.text)


class Tokenizer:
    """A cursor over the tokens of *source*; whitespace is skipped but positions are kept."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.position = 0
        self.next_token: Optional[Token] = None
        self._advance()

    def _advance(self) -> None:
        source = self.source
        match = _MASTER.match(source, self.position)
        if match:
            name = match.lastgroup
            assert name is not None  # every alternative of the master pattern is a named group
            pos = match.start(name)
            self.position = pos
            text = match.group(name)
            if name == "NAME" and text in KEYWORDS:
                name = text
            self.next_token = Token(name, text, pos)
            return
        space = _WS.match(source, self.position)
        pos = self.position = space.end() if space else self.position
        if pos >= len(source):
            self.next_token = None
            return
        bad = source[pos]
        self.raise_syntax_error(
            _messages.expected("a path, a value, an operator or a bracket", repr(bad)),
            span=(pos, pos + 1),
        )

    def check(self, *names: str) -> bool:
        """Whether the next token is one of *names* (rule names or keywords)."""
        token = self.next_token
        return token is not None and token.name in names

    def read(self) -> Token:
        token = self.next_token
        assert token is not None
        self.position = token.position + len(token.text)
        if token.name == "MISSPELT":
            self.raise_syntax_error(_messages.misspelt_operator(token.text), span=token.span)
        if token.name == "OPEN_STRING":
            self.raise_syntax_error(
                f"Unterminated string: the {token.text} opened here is never closed on its line",
                span=token.span,
            )
        self._advance()
        return token

    def expect(self, name: str, *, expected: str) -> Token:
        if not self.check(name):
            self.raise_unexpected(expected)
        return self.read()

    def raise_unexpected(self, expected: str) -> NoReturn:
        token = self.next_token
        if token is not None and token.name in ("MISSPELT", "OPEN_STRING"):
            self.read()  # raises its own, more precise message
        span = token.span if token is not None else (len(self.source), len(self.source) + 1)
        self.raise_syntax_error(_messages.expected(expected, describe(token)), span=span)

    def raise_syntax_error(
        self, message: str, *, span: Tuple[int, int], opened: bool = False
    ) -> NoReturn:
        raise PredicateError(message, source=self.source, span=span, opened=opened)


def decode_string(token: Token, source: str) -> str:
    """The value of a STRING token, with its escapes decoded (the ones Python's repr writes)."""
    body = token.text[1:-1]
    if "\\" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        code = body[i + 1]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
            continue
        width = _HEX_ESCAPES.get(code)
        digits = body[i + 2 : i + 2 + width] if width else ""
        start = token.position + 1 + i
        if width and len(digits) == width and re.fullmatch(r"[0-9A-Fa-f]+", digits):
            point = int(digits, 16)
            if point <= 0x10FFFF:
                out.append(chr(point))
                i += 2 + width
                continue
        bad = body[i : i + 2 + (width or 0)]
        raise PredicateError(
            _messages.bad_escape(bad), source=source, span=(start, start + len(bad))
        )
    return "".join(out)
