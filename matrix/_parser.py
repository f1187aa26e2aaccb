"""A recursive-descent parser for the predicate language.

The grammar (each rule is one ``_parse_<rule>`` function whose docstring is its production)::

    expr       := or
    or         := and ('or' and)*
    and        := not ('and' not)*
    not        := 'not' not | test
    test       := operand (COMPARISON operand)?
                | operand 'is' ['not'] 'None'
    operand    := path ['%' INT] | literal | list | '(' expr ')' | tuple
    path       := NAME ('.' NAME)*
    literal    := STRING | NUMBER | 'True' | 'False' | 'None'
    list       := '[' literal (',' literal)* ','? ']'
    tuple      := '(' literal ',' (literal (',' literal)* ','?)? ')'

    COMPARISON := (the comparisons of matrix._operators.TABLE)

Examples, each of which parses (a test reads them from here)::

    cache_config.mamba_cache_mode == 'all'
    compilation_config.pass_config.enable_sp and parallel_config.tensor_parallel_size > 1
    speculative_config.method in ['ngram', 'ngram_gpu', 'draft_model']
    speculative_config.parallel_drafting and speculative_config.method not in ('dflash', 'dspark')
    lora_config is not None and not platform.has_triton
    (a == 1 or b != 2.5) and c <= -3 and d is None and e == True
    selector.block_size is None or selector.block_size % 16 == 0
"""

from __future__ import annotations

import math
from typing import List, NoReturn, Optional, Tuple, Type, Union

from . import _messages, _operators
from ._nodes import And, Compare, IsNone, ListLiteral, Literal, Mod, Node, Not, Or, Path
from ._tokenizer import Token, Tokenizer, decode_string
from .errors import PredicateError

MAX_LENGTH = 4096
MAX_DEPTH = 64
MAX_LIST_ITEMS = 1024

# The docstring's COMPARISON production is the table's, so that the grammar the docs show
# (docs/hooks/reference.py reads this docstring) cannot drift from the operators parsed.
__doc__ = (__doc__ or "").replace("(the comparisons of matrix._operators.TABLE)", _operators.production())

COMPARISONS = tuple(op.spelling for op in _operators.COMPARISONS)
EXPECTED_COMPARISON = "a comparison operator (" + ", ".join(COMPARISONS) + ")"
#: The first word of each comparison spelt in words (`in`, `not` of `not in`) → the spellings
#: that start with it.
_WORDS = {op.words[0]: tuple(o.words for o in _operators.COMPARISONS if o.words[0] == op.words[0])
          for op in _operators.COMPARISONS if op.spelling[0].isalpha()}
_AND, _OR, _NOT = _operators.AND.spelling, _operators.OR.spelling, _operators.NOT.spelling


def parse(source: str) -> Node:
    """Parse *source* into a tree of nodes; raises `PredicateError` with a caret."""
    if len(source) > MAX_LENGTH:
        raise PredicateError(
            _messages.too_long(len(source), MAX_LENGTH),
            source=source[:200],
            span=(0, min(len(source), 200)),
        )
    parser = _Parser(source)
    node = parser._parse_expr()
    if parser.tokens.next_token is not None:
        parser.tokens.raise_unexpected("'and', 'or' or the end of the predicate")
    return node


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = Tokenizer(source)
        self.depth = 0

    def _descend(self, token_span: Tuple[int, int]) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.tokens.raise_syntax_error(_messages.too_deep(MAX_DEPTH), span=token_span)

    def _parse_expr(self) -> Node:
        """expr := or"""
        if self.tokens.next_token is None:
            self.tokens.raise_unexpected("a condition")
        return self._parse_or()

    def _parse_or(self) -> Node:
        """or := and ('or' and)*"""
        operands = [self._parse_and()]
        while self.tokens.check(_OR):
            self.tokens.read()
            operands.append(self._parse_and())
        return _join(Or, operands)

    def _parse_and(self) -> Node:
        """and := not ('and' not)*"""
        operands = [self._parse_not()]
        while self.tokens.check(_AND):
            self.tokens.read()
            operands.append(self._parse_not())
        return _join(And, operands)

    def _parse_not(self) -> Node:
        """not := 'not' not | test"""
        if self.tokens.check(_NOT):
            token = self.tokens.read()
            self._descend(token.span)
            operand = self._parse_not()
            self.depth -= 1
            return Not(operand, span=(token.position, operand.span[1]))
        return self._parse_test()

    def _parse_test(self) -> Node:
        """test := operand (COMPARISON operand)? | operand 'is' ['not'] 'None'"""
        left = self._parse_operand()
        tokens = self.tokens
        if tokens.check("is"):
            tokens.read()
            negated = False
            if tokens.check("not"):
                tokens.read()
                negated = True
            end = tokens.expect("None", expected="'None' after 'is'")
            return IsNone(left, negated, span=(left.span[0], end.span[1]))
        op = self._parse_comparison()
        if op is None:
            return left
        right = self._parse_operand()
        following = tokens.next_token
        if following is not None and tokens.check("OP", "is", *_WORDS):
            tokens.raise_syntax_error(_messages.chained(following.text), span=following.span)
        return Compare(left, op, right, span=(left.span[0], right.span[1]))

    def _parse_comparison(self) -> Optional[str]:
        """COMPARISON := (the comparisons of matrix._operators.TABLE)"""
        tokens = self.tokens
        if tokens.check("OP"):
            return tokens.read().text
        first = tokens.next_token
        if first is not None and first.name in _WORDS:
            spellings = _WORDS[tokens.read().text]
            read: Tuple[str, ...] = (first.text,)
            while read not in spellings:
                following = sorted({s[len(read)] for s in spellings if s[:len(read)] == read and len(s) > len(read)})
                if not tokens.check(*following):
                    words = " or ".join(repr(word) for word in following)
                    tokens.raise_unexpected(f"{words} after {' '.join(read)!r} in a comparison")
                read += (tokens.read().text,)
            return " ".join(read)
        if tokens.check("MISSPELT"):
            tokens.read()  # raises, naming the right spelling
        if tokens.check("NAME", "STRING", "NUMBER", "True", "False", "None", "LPAREN", "LBRACKET"):
            tokens.raise_unexpected(EXPECTED_COMPARISON)
        if tokens.check("PERCENT"):
            tokens.raise_syntax_error(_messages.mod_of_non_path(), span=tokens.next_token.span)  # type: ignore[union-attr]
        return None

    def _parse_operand(self) -> Node:
        """operand := path ['%' INT] | literal | list | '(' expr ')' | tuple"""
        tokens = self.tokens
        if tokens.check("NAME"):
            path = self._parse_path()
            if not tokens.check("PERCENT"):
                return path
            tokens.read()
            divisor = tokens.next_token
            if divisor is None or not tokens.check("NUMBER") or type(_literal_value(divisor, self.source)) is not int \
                    or _literal_value(divisor, self.source) <= 0:  # type: ignore[operator]
                tokens.raise_unexpected(_messages.EXPECTED_DIVISOR)
            tokens.read()
            return Mod(path, int(divisor.text), span=(path.span[0], divisor.span[1]))
        if tokens.check("LBRACKET"):
            return self._parse_list()
        if tokens.check("LPAREN"):
            return self._parse_parenthesized()
        if tokens.check("STRING", "NUMBER", "True", "False", "None"):
            return self._parse_literal()
        tokens.raise_unexpected("a config path, a value, '(' or '['")

    def _parse_path(self) -> Path:
        """path := NAME ('.' NAME)*"""
        token = self.tokens.read()
        offset = token.position
        for segment in token.text.split("."):
            if segment.startswith("_"):
                self.tokens.raise_syntax_error(
                    _messages.underscore_segment(segment), span=(offset, offset + len(segment))
                )
            offset += len(segment) + 1
        return Path(token.text, span=token.span)

    def _parse_literal(self) -> Literal:
        """literal := STRING | NUMBER | 'True' | 'False' | 'None'"""
        token = self.tokens.read()
        return Literal(_literal_value(token, self.source), span=token.span)

    def _parse_list(self) -> ListLiteral:
        """list := '[' literal (',' literal)* ','? ']'"""
        opening = self.tokens.read()
        items = self._parse_items(opening, "RBRACKET", "]", first=None)
        return ListLiteral(tuple(items), span=(opening.position, self.tokens.position))

    def _parse_parenthesized(self) -> Node:
        """tuple := '(' literal ',' (literal (',' literal)* ','?)? ')'"""
        tokens = self.tokens
        opening = tokens.read()
        self._descend(opening.span)
        inner = self._parse_expr()
        if tokens.check("COMMA") and isinstance(inner, Literal):
            tokens.read()
            items = self._parse_items(opening, "RPAREN", ")", first=inner)
            self.depth -= 1
            return ListLiteral(tuple(items), span=(opening.position, tokens.position))
        self._close(opening, "RPAREN", ")")
        self.depth -= 1
        return inner

    def _parse_items(self, opening: Token, closer: str, closer_text: str, first: Optional[Literal]) -> List[Literal]:
        tokens = self.tokens
        items: List[Literal] = [] if first is None else [first]
        while not tokens.check(closer):
            if items and first is None:
                self._expect_comma_or_close(opening, closer, closer_text)
                if tokens.check(closer):
                    break
            first = None
            if not tokens.check("STRING", "NUMBER", "True", "False", "None"):
                if tokens.next_token is None:
                    self._raise_unclosed(opening, closer_text)
                tokens.raise_unexpected(f"a literal value or {closer_text!r}")
            items.append(self._parse_literal())
            if len(items) > MAX_LIST_ITEMS:
                tokens.raise_syntax_error(
                    _messages.list_too_long(MAX_LIST_ITEMS), span=items[-1].span
                )
        tokens.read()
        return items

    def _expect_comma_or_close(self, opening: Token, closer: str, closer_text: str) -> None:
        tokens = self.tokens
        if tokens.check("COMMA"):
            tokens.read()
            return
        if tokens.next_token is None:
            self._raise_unclosed(opening, closer_text)
        tokens.raise_unexpected(f"',' or {closer_text!r}")

    def _close(self, opening: Token, closer: str, closer_text: str) -> None:
        if not self.tokens.check(closer):
            self._raise_unclosed(opening, closer_text)
        self.tokens.read()

    def _raise_unclosed(self, opening: Token, closer_text: str) -> NoReturn:
        self.tokens.raise_syntax_error(
            _messages.unclosed(opening.text, closer_text),
            span=(opening.position, self.tokens.position + 1),
            opened=True,
        )


def _join(kind: Union[Type[And], Type[Or]], operands: List[Node]) -> Node:
    if len(operands) == 1:
        return operands[0]
    flat: List[Node] = []
    for operand in operands:
        # `a and (b and c)` means `a and b and c`: one canonical tree for both.
        flat.extend(operand.operands if isinstance(operand, (And, Or)) and type(operand) is kind else (operand,))
    joined: Node = kind(tuple(flat), span=(operands[0].span[0], operands[-1].span[1]))
    return joined


def _literal_value(token: Token, source: str) -> object:
    if token.name == "STRING":
        return decode_string(token, source)
    if token.name == "True":
        return True
    if token.name == "False":
        return False
    if token.name == "None":
        return None
    text = token.text
    if any(ch in text for ch in ".eE"):
        value = float(text)
        if not math.isfinite(value):
            raise PredicateError(_messages.float_out_of_range(text), source=source, span=token.span)
        return value
    return int(text)
