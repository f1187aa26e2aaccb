"""A recursive-descent parser for the predicate language.

The grammar (each rule is one ``_parse_<rule>`` function whose docstring is its production)::

    expr       := or
    or         := and ('or' and)*
    and        := not ('and' not)*
    not        := 'not' not | test
    test       := operand (COMPARISON operand)?
                | operand 'is' ['not'] 'None'
    operand    := sum | list
    sum        := product (('+' | '-') product)*
    product    := factor (('*' | '//' | '%') factor)*
    factor     := call | path | literal | '(' expr ')' | tuple
    call       := ('min' | 'max') '(' sum (',' sum)+ ')'
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
    tp_size % dcp_size != 0 and max(1, kv_heads // tp_size) * 2 >= heads - 1
"""

from __future__ import annotations

import math
from typing import List, NoReturn, Optional, Tuple, Type, Union

from . import _messages, _operators
from ._nodes import And, Arith, Call, Compare, IsNone, ListLiteral, Literal, Mod, Node, Not, Or, Path
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


def parse(source: str, limit: Optional[int] = MAX_LENGTH) -> Node:
    """Parse *source* into a tree of nodes; raises `PredicateError` with a caret. *limit*: the
    most characters a source may have (None: any, for text the package wrote itself, as
    ``matrix diff``'s regions)."""
    parser = _Parser(source, limit)
    node = parser._parse_expr()
    if parser.tokens.next_token is not None:
        parser.tokens.raise_unexpected("'and', 'or' or the end of the predicate")
    return node


def parse_expression(source: str) -> Node:
    """Parse *source* as an int expression (a derived field's ``derive``: ``sum`` of the
    grammar); raises `PredicateError` with a caret."""
    parser = _Parser(source, MAX_LENGTH)
    if parser.tokens.next_token is None:
        parser.tokens.raise_unexpected("an int expression")
    node = parser._parse_sum()
    if parser.tokens.next_token is not None:
        parser.tokens.raise_unexpected("an arithmetic operator (+, -, *, //, %) or the end of the expression")
    return node


class _Parser:
    def __init__(self, source: str, limit: Optional[int]) -> None:
        # The one check of a source's length, before it is read (*limit* None: any length).
        if limit is not None and len(source) > limit:
            raise PredicateError(_messages.too_long(len(source), limit), source=source[:200],
                                 span=(0, min(len(source), 200)))
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
        return None

    def _parse_operand(self) -> Node:
        """operand := sum | list"""
        if self.tokens.check("LBRACKET"):
            return self._parse_list()
        return self._parse_sum()

    def _signed(self) -> bool:
        """A NUMBER written against its sign after an operand (``a -1``): ``a - 1``."""
        token = self.tokens.next_token
        return token is not None and token.name == "NUMBER" and token.text[0] in "+-"

    def _parse_sum(self) -> Node:
        """sum := product (('+' | '-') product)*"""
        tokens = self.tokens
        depth = self.depth
        left = self._parse_product()
        while tokens.check("SUM") or self._signed():
            token = tokens.read()
            # Each operator is a level of the tree: a long chain is as deep as its length.
            self._descend(token.span)
            if token.name == "SUM":
                right = self._parse_product()
            else:
                digits = Token("NUMBER", token.text[1:], token.position + 1)
                right = self._parse_product(Literal(_literal_value(digits, self.source), span=digits.span))
            left = Arith(left, token.text[0], right, span=(left.span[0], right.span[1]))
        self.depth = depth
        return left

    def _parse_product(self, first: Optional[Node] = None) -> Node:
        """product := factor (('*' | '//' | '%') factor)*"""
        tokens = self.tokens
        depth = self.depth
        left = self._parse_factor() if first is None else first
        while tokens.check("PERCENT"):
            token = tokens.read()
            self._descend(token.span)
            right = self._parse_factor()
            span = (left.span[0], right.span[1])
            if isinstance(right, Literal) and type(right.value) is int and right.value == 0 and token.text != "*":
                tokens.raise_syntax_error(_messages.divides_by_zero(f"{left} {token.text} 0"), span=right.span)
            if token.text == "%" and isinstance(left, Path) and isinstance(right, Literal) \
                    and type(right.value) is int and right.value > 0:
                left = Mod(left, right.value, span=span)
            else:
                left = Arith(left, token.text, right, span=span)
        self.depth = depth
        return left

    def _parse_factor(self) -> Node:
        """factor := call | path | literal | '(' expr ')' | tuple"""
        tokens = self.tokens
        if tokens.check("NAME"):
            path = self._parse_path()
            if tokens.check("LPAREN"):
                return self._parse_call(path)
            return path
        if tokens.check("LPAREN"):
            return self._parse_parenthesized()
        if tokens.check("STRING", "NUMBER", "True", "False", "None"):
            return self._parse_literal()
        tokens.raise_unexpected("a config path, a value, '(' or '['")

    def _parse_call(self, name: Path) -> Node:
        """call := ('min' | 'max') '(' sum (',' sum)+ ')'"""
        tokens = self.tokens
        if name.name not in _operators.FUNCTIONS:
            tokens.raise_syntax_error(_messages.unknown_function(name.name), span=name.span)
        opening = tokens.read()
        self._descend(opening.span)
        args = [self._parse_sum()]
        while tokens.check("COMMA"):
            tokens.read()
            args.append(self._parse_sum())
        if not tokens.check("RPAREN"):
            if tokens.next_token is None:
                self._raise_unclosed(opening, ")")
            tokens.raise_unexpected(_messages.EXPECTED_ARITH_END)
        end = tokens.read()
        self.depth -= 1
        if len(args) < 2:
            tokens.raise_syntax_error(_messages.function_arity(name.name), span=(name.span[0], end.span[1]))
        return Call(name.name, tuple(args), span=(name.span[0], end.span[1]))

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
