"""Parser of the rule language (``.dl`` files) and of queries.

A recursive-descent parser over the tokens of judgelog.lexer that keep line and column of everything, recover after an
error at the end of the statement, and so report every syntax error of a file at once.

>>> f = parse_text('''
... .decl tapped(o: object) "{o} is tapped" input
... @name demo.untapped
... @cr 302.6
... untapped(O) :- permanent(O), not tapped(O).
... ''', "demo.dl")
>>> [type(item).__name__ for item in f.items]
['Decl', 'Rule']
>>> rule = f.items[1]
>>> rule.name, rule.cites, rule.span.line
('demo.untapped', ('302.6',), 5)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Literal as TypingLiteral
from typing import NoReturn, overload

from .ast import (
    Aggregate,
    Atom,
    BinOp,
    Comparison,
    Const,
    Decl,
    Include,
    Literal,
    Negation,
    Param,
    Rule,
    RuleFile,
    Span,
    Term,
    Var,
)
from .codes import E001, E014
from .errors import Diagnostic, QueryError, RuleError
from .lexer import Token, glue, tokenize, unquote

__all__ = ["parse_text", "parse_file", "parse_body", "parse_atom", "ParseResult", "MAX_DEPTH"]

MAX_DEPTH = 64  # nesting of parentheses in arithmetic
MAX_INT_DIGITS = 100  # longer integers are refused (Python refuses to convert very long ones at all)
AGGREGATES = ("sum", "count", "min", "max")
_CR_RE = re.compile(r"^\d{3}(\.\d+[a-z]?)?$")
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")


class _Stop(Exception):
    """Raised inside a statement after its error was recorded; parsing resumes at the next statement."""


MAX_OPERATORS = 200  # arithmetic operators in one expression


class _Parser:
    def __init__(self, text: str, path: str, *, query: bool = False, predicates: Collection[str] = ()) -> None:
        self.path = path
        self.predicates = predicates  # the known predicate names, for a hint
        self.diags: list[Diagnostic] = []
        toks = tokenize(text, path, self.diags)
        self.query = query
        self.tokens = [t for t in toks if t.kind != "nl"] if query else toks
        self.pos = 0
        self._anon = 0
        self.depth = 0

    # -- token helpers -------------------------------------------------
    def peek(self, skip_nl: bool = True) -> Token:
        pos = self.pos
        while skip_nl and self.tokens[pos].kind == "nl":
            pos += 1
        return self.tokens[pos]

    def next(self) -> Token:
        while self.tokens[self.pos].kind == "nl":
            self.pos += 1
        tok = self.tokens[self.pos]
        if tok.kind != "eof":
            self.pos += 1
        return tok

    def span(self, tok: Token) -> Span:
        return Span(self.path, tok.line, tok.col)

    def fail(self, tok: Token, expected: str, hint: str | None = None) -> NoReturn:
        found = "end of input" if tok.kind == "eof" else repr(tok.text)
        self.diags.append(Diagnostic(E001, f"expected {expected}, found {found}", self.span(tok), hint=hint))
        raise _Stop()

    def expect(self, text: str, expected: str | None = None, hint: str | None = None) -> Token:
        tok = self.peek()
        if tok.text != text or tok.kind in ("string", "eof"):
            self.fail(tok, expected or repr(text), hint)
        return self.next()

    def recover(self) -> None:
        """Skip to just after the '.' that ends the statement, or to the next line that starts one."""
        while True:
            tok = self.tokens[self.pos]
            if tok.kind == "eof":
                return
            self.pos += 1
            if tok.kind == "op" and tok.text == ".":
                return
            if tok.kind == "nl":
                nxt = self.peek(skip_nl=True)
                if nxt.kind in ("annot", "directive", "doc", "eof"):
                    return

    # -- terms ---------------------------------------------------------
    def term(self, *, allow_aggregate: bool = False) -> Term:
        tok = self.peek()
        if tok.kind == "var":
            self.next()
            if tok.text == "_":
                self._anon += 1
                return Var(f"_#{self._anon}", self.span(tok))  # "#": no written variable is spelt so
            return Var(tok.text, self.span(tok))
        if tok.kind == "atom":
            self.next()
            if tok.text in ("min", "max") and self.peek().text == "(" and self._two_args():
                self.next()
                left = self.expr()
                self.expect(",")
                right = self.expr()
                self.expect(")", "')'", f"{tok.text}(A, B) takes two values")
                return BinOp(tok.text, left, right, self.span(tok))
            if allow_aggregate and tok.text in AGGREGATES and self.peek().text == "(":
                self.next()
                var = None
                if self.peek().kind == "var":
                    vt = self.next()
                    var = Var(vt.text, self.span(vt))
                elif tok.text != "count":
                    self.fail(self.peek(), "a variable", f"{tok.text}(V) aggregates the values of V")
                self.expect(")")
                return Aggregate(tok.text, var, self.span(tok))
            if self.peek().text == "(":
                if tok.text in AGGREGATES:
                    self.diags.append(
                        Diagnostic(
                            E014,
                            f"aggregate {tok.text}(...) outside a rule head",
                            self.span(tok),
                            hint="aggregates (sum, count, min, max) may appear only as an argument of a rule head",
                        )
                    )
                    raise _Stop()
                self.fail(self.peek(), "',' or ')'", "an argument is a variable or a constant; atoms cannot be nested")
            return Const(tok.text, self.span(tok))
        if tok.kind == "string":
            self.next()
            return Const(unquote(tok.text), self.span(tok))
        if tok.kind == "int":
            self.next()
            return Const(self.integer(tok), self.span(tok))
        if tok.text == "-" and self.peek_after().kind == "int":
            self.next()
            num = self.next()
            return Const(-self.integer(num), self.span(tok))
        if tok.text == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                self.fail(tok, "a shallower expression", f"at most {MAX_DEPTH} nested parentheses")
            self.next()
            inner = self.expr()
            self.expect(")")
            self.depth -= 1
            return inner
        self.fail(
            tok,
            "a variable, a constant or a number",
            'variables are Capitalised, constants are lower_snake, "quoted" or integers',
        )

    def integer(self, tok: Token) -> int:
        if len(tok.text) > MAX_INT_DIGITS:
            self.diags.append(
                Diagnostic(
                    E001,
                    f"integer too large ({len(tok.text)} digits, at most {MAX_INT_DIGITS})",
                    self.span(tok),
                    hint="write a smaller whole number",
                )
            )
            raise _Stop()
        return int(tok.text)

    def peek_after(self) -> Token:
        pos = self.pos
        while self.tokens[pos].kind == "nl":
            pos += 1
        pos += 1
        while pos < len(self.tokens) and self.tokens[pos].kind == "nl":
            pos += 1
        return self.tokens[min(pos, len(self.tokens) - 1)]

    def _function_first(self, tok: Token) -> bool:
        """Does a comparison start with min(A, B) or max(A, B) (rather than an atom named min or max), or with
        an aggregate (``count() = N``: refused by :meth:`term` as outside a head, not read as an atom)?"""
        if tok.text not in AGGREGATES:
            return False
        pos = self.pos
        while self.tokens[pos].kind == "nl":
            pos += 1
        for nxt, depth in self._nesting(pos + 1):
            if nxt.kind == "eof":
                return False
            if depth == 0 and nxt.kind != "nl" and not (nxt.kind == "op" and nxt.text in ("(", ")")):
                return nxt.kind == "op" and nxt.text in ("=", "!=", "<", "<=", ">", ">=", "==", "+", "-", "*", "/")
        return False

    def _two_args(self) -> bool:
        """After ``min``/``max``: is the parenthesis a list of two values (not the aggregate ``min(V)``)?"""
        for tok, depth in self._nesting(self.pos):
            if tok.kind == "eof" or (tok.kind == "op" and tok.text == "." and depth == 1):
                return False
            if tok.kind == "op" and tok.text == ")" and depth == 0:
                return False
            if tok.kind == "op" and tok.text == "," and depth == 1:
                return True
        return False

    def _nesting(self, pos: int) -> Iterator[tuple[Token, int]]:
        """The tokens from ``pos`` on, each with the number of parentheses open after it."""
        depth = 0
        for tok in self.tokens[pos:]:
            if tok.kind == "op" and tok.text == "(":
                depth += 1
            elif tok.kind == "op" and tok.text == ")":
                depth -= 1
            yield tok, depth

    def expr(self) -> Term:
        return self._chain(("+", "-"), self.product)

    def product(self) -> Term:
        return self._chain(("*", "/"), self.term)

    def _chain(self, ops: tuple[str, ...], operand: Callable[[], Term]) -> Term:
        """Operands joined by operators of one precedence level, left-associative."""
        left = operand()
        while self.peek().text in ops and self.peek().kind == "op":
            op = self._operator()
            left = BinOp(op.text, left, operand(), self.span(op))
        return left

    def _operator(self) -> Token:
        """The next arithmetic operator; more than MAX_OPERATORS in one expression is refused (deeper trees
        would exhaust Python's recursion later)."""
        op = self.next()
        self._operators = getattr(self, "_operators", 0) + 1
        if self._operators > MAX_OPERATORS:
            self.diags.append(
                Diagnostic(
                    E001,
                    f"arithmetic too long (more than {MAX_OPERATORS} operators in one expression)",
                    self.span(op),
                    hint="compute it in steps: N = A + B, M = N + C",
                )
            )
            raise _Stop()
        return op

    def atom(self, *, head: bool = False) -> Atom:
        tok = self.peek()
        if tok.kind != "atom":
            if tok.kind == "var":
                self.fail(tok, "a predicate name", self.capitalised(tok.text))
            self.fail(tok, "a predicate name")
        self.next()
        args = []
        if self.peek().text == "(" and self.peek().kind == "op":
            self.next()
            if self.peek().text != ")":
                while True:
                    args.append(self.term(allow_aggregate=head))
                    if self.peek().text == ",":
                        self.next()
                        continue
                    break
            hint = f"close the argument list of {tok.text}(...) with ')'"
            after = self.tokens[min(self.pos + 1, len(self.tokens) - 1)]  # on the same line: a.b, not a.\nb
            if self.peek().text == "." and after.kind == "atom":
                hint = 'a dotted name (a rule\'s @name) is a quoted string: "persist.return"'
            self.expect(")", "',' or ')'", hint)
        return Atom(tok.text, tuple(args), self.span(tok))

    def capitalised(self, word: str) -> str:  # the hint for a Capitalised word where a predicate name belongs
        hint = f"{word} is a variable (a Capitalised word); predicate names are lower_snake"
        return hint + (f": did you mean {word.lower()}(...)?" if word.lower() in self.predicates else "")

    def literal(self) -> Literal:
        tok = self.peek()
        if tok.kind == "var" and self.peek_after().text == "(":  # Damage_assigner(wurm, P): a predicate misspelt
            self.fail(tok, "a predicate name", self.capitalised(tok.text))
        if tok.kind == "atom" and tok.text == "not":
            nxt = self.peek_after()
            if nxt.kind == "atom":
                self.next()
                return Negation(self.atom(), self.span(tok))
        if (
            tok.kind == "atom"
            and self.peek_after().text not in ("=", "!=", "<", "<=", ">", ">=", "==", "+", "-", "*", "/")
            and not self._function_first(tok)
        ):
            return self.atom()
        self._operators = 0  # counted per comparison, both sides together
        left = self.expr()
        op = self.peek()
        if op.text not in ("=", "!=", "<", "<=", ">", ">=", "=="):
            self.fail(op, "a comparison operator (= != < <= > >=)")
        self.next()
        right = self.expr()
        return Comparison("=" if op.text == "==" else op.text, left, right, self.span(op))

    def body(self) -> tuple:
        lits = [self.literal()]
        while self.peek().text == "," and self.peek().kind == "op":
            self.next()
            lits.append(self.literal())
        return tuple(lits)

    # -- statements ----------------------------------------------------
    def decl(self, tok: Token, doc: str) -> Decl:
        name = self.peek()
        if name.kind != "atom":
            self.fail(name, "a predicate name after .decl")
        self.next()
        params = []
        self.expect("(", "'(' and the argument list", 'write .decl pred(arg: type, ...) "sentence"')
        if self.peek().text != ")":
            while True:
                pname = self.peek()
                if pname.kind not in ("atom", "var"):
                    self.fail(pname, "an argument name")
                self.next()
                self.expect(":", "':' and a type", "each argument is written name: type")
                ptype = self.peek()
                if ptype.kind != "atom":
                    self.fail(ptype, "a type name (object, player, int, atom, ...)")
                self.next()
                params.append(Param(pname.text.lower(), ptype.text))
                if self.peek().text == ",":
                    self.next()
                    continue
                break
        self.expect(")", "',' or ')'")
        template = ""
        if self.peek().kind == "string":
            template = unquote(self.next().text)
        is_input = False
        functional: tuple[str, ...] = ()
        while self.peek().kind == "atom" and self.peek().line == tok.line:
            flag = self.next()
            if flag.text == "input":
                is_input = True
            elif flag.text == "functional":
                self.expect("(")
                keys = []
                while True:
                    k = self.peek()
                    if k.kind not in ("atom", "var"):
                        self.fail(k, "an argument name")
                    self.next()
                    keys.append(k.text.lower())
                    if self.peek().text == ",":
                        self.next()
                        continue
                    break
                self.expect(")")
                functional = tuple(keys)
            else:
                self.diags.append(
                    Diagnostic(
                        E001,
                        f"unknown declaration flag {flag.text!r}",
                        self.span(flag),
                        hint="flags are 'input' and 'functional(arg, ...)'",
                    )
                )
        if self.peek().text == "." and self.peek().kind == "op":
            self.next()
        return Decl(name.text, tuple(params), template, is_input, functional, doc, self.span(name))

    def include(self, tok: Token) -> Include:
        path = self.peek()
        if path.kind != "string":
            self.fail(path, "a quoted file name", '.include "other.dl"')
        self.next()
        if self.peek().text == "." and self.peek().kind == "op":
            self.next()
        return Include(unquote(path.text), self.span(tok))

    def parse_file(self) -> tuple[list[Decl | Rule | Include], str]:
        items: list[Decl | Rule | Include] = []
        pending_name: str | None = None
        pending_cites: list[str] = []
        pending_doc: list[str] = []
        file_doc: list[str] = []
        seen_statement = False
        while True:
            tok = self.peek()
            if tok.kind == "eof":
                break
            try:
                if tok.kind == "doc":
                    self.next()
                    text = tok.text[2:].strip()
                    if not seen_statement and pending_name is None and not pending_cites:
                        file_doc.append(text)
                    pending_doc.append(text)
                    continue
                if tok.kind == "annot":
                    self.next()
                    pending_name, pending_cites = self.annotation(tok, pending_name, pending_cites)
                    continue
                if tok.kind == "directive":
                    self.next()
                    seen_statement = True
                    doc = "\n".join(pending_doc).strip()
                    pending_doc = []
                    if tok.text == ".decl":
                        items.append(self.decl(tok, doc))
                    else:
                        items.append(self.include(tok))
                    continue
                seen_statement = True
                head = self.atom(head=True)
                body: tuple = ()
                nxt = self.peek()
                if nxt.text == ":-":
                    self.next()
                    body = self.body()
                    nxt = self.peek()
                if nxt.text != "." or nxt.kind != "op":
                    self.fail(
                        nxt,
                        "'.' at the end of the rule" if body else "':-' or '.'",
                        "every rule and fact ends with a full stop",
                    )
                self.next()
                items.append(
                    Rule(head, body, pending_name, tuple(pending_cites), "\n".join(pending_doc).strip(), head.span)
                )
            except _Stop:
                self.recover()
            pending_name, pending_cites, pending_doc = None, [], []
        if pending_name is not None or pending_cites:
            self.diags.append(
                Diagnostic(
                    E001,
                    "annotation not followed by a rule",
                    Span(self.path, tok.line, 1),
                    hint="@name and @cr go on the lines just above the rule they describe",
                )
            )
        return items, "\n".join(file_doc).strip()

    def annotation(self, tok: Token, name: str | None, cites: list[str]) -> tuple[str | None, list[str]]:
        kind = tok.text[1:]
        values = []
        while True:
            nxt = self.tokens[self.pos]
            if nxt.kind in ("nl", "eof"):
                break
            self.pos += 1
            if nxt.text == ",":
                continue
            values.append(nxt)
        # values were split by the tokenizer ("702.22j" -> 702 . 22j); glue tokens that touch
        words = glue(values)
        span = self.span(tok)
        if kind == "name":
            if len(words) != 1 or not _NAME_RE.match(words[0][0]):
                self.diags.append(
                    Diagnostic(
                        E001,
                        "@name needs one dotted lower_snake identifier",
                        span,
                        hint="e.g. @name myfile.what_it_does (the file's name, then what the rule does)",
                    )
                )
                return name, cites
            if name is not None:
                self.diags.append(Diagnostic(E001, "two @name annotations for one rule", span))
            return words[0][0], cites
        if kind == "cr":
            if not words:
                self.diags.append(Diagnostic(E001, "@cr needs a rule number", span, hint="e.g. @cr 702.22j"))
            for word, col in words:
                if not _CR_RE.match(word):
                    self.diags.append(
                        Diagnostic(
                            E001,
                            f"{word!r} is not a Comprehensive Rules number",
                            Span(self.path, tok.line, col),
                            hint="e.g. 702.22j, 510.1c or 704",
                        )
                    )
                else:
                    cites = cites + [word]
            return name, cites
        self.diags.append(
            Diagnostic(E001, f"unknown annotation {tok.text!r}", span, hint="annotations are @name and @cr")
        )
        return name, cites


@dataclass(frozen=True)
class ParseResult:
    file: RuleFile
    diagnostics: tuple[Diagnostic, ...]


@overload
def parse_text(
    text: str, path: str = ..., *, strict: TypingLiteral[True] = ..., line_offset: int = ...
) -> RuleFile: ...
@overload
def parse_text(text: str, path: str = ..., *, strict: TypingLiteral[False], line_offset: int = ...) -> ParseResult: ...
@overload
def parse_text(text: str, path: str = ..., *, strict: bool, line_offset: int = ...) -> RuleFile | ParseResult: ...


def parse_text(
    text: str, path: str = "<input>", *, strict: bool = True, line_offset: int = 0
) -> RuleFile | ParseResult:
    """Parse rule-file text. With ``strict`` raise :class:`RuleError` on syntax errors, else return both."""
    if line_offset:
        text = "\n" * line_offset + text
    parser = _Parser(text, path)
    items, doc = parser.parse_file()
    rule_file = RuleFile(path, tuple(items), doc)
    if strict:
        if parser.diags:
            raise RuleError(f"{len(parser.diags)} syntax error(s) in {path}", diagnostics=parser.diags)
        return rule_file
    return ParseResult(rule_file, tuple(parser.diags))


@overload
def parse_file(path: str, *, strict: TypingLiteral[True] = ...) -> RuleFile: ...
@overload
def parse_file(path: str, *, strict: TypingLiteral[False]) -> ParseResult: ...
@overload
def parse_file(path: str, *, strict: bool) -> RuleFile | ParseResult: ...


def parse_file(path: str, *, strict: bool = True) -> RuleFile | ParseResult:
    from .safefiles import MAX_RULE_BYTES, read_text

    try:
        text = read_text(path, limit=MAX_RULE_BYTES)
    except FileNotFoundError:
        raise RuleError(f"rule file not found: {path}", hint="check the path given to --rules") from None
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or a NUL in the name
        raise RuleError(f"cannot read rule file {path}: {exc}") from None
    return parse_text(text, path, strict=strict)


def parse_body(text: str, path: str = "<query>", *, predicates: Collection[str] = ()) -> tuple:
    """Parse a query: literals joined by commas (an optional final '.'); ``predicates``: names a hint may suggest."""
    parser = _Parser(text, path, query=True, predicates=predicates)
    try:
        if parser.peek().kind == "eof":
            parser.fail(parser.peek(), "a query", "e.g. damage_assigner(craw_wurm, P)")
        body = parser.body()
        if parser.peek().text == ".":
            parser.next()
        if parser.peek().kind != "eof":
            parser.fail(parser.peek(), "',' or the end of the query")
    except _Stop:
        pass
    if parser.diags:
        raise QueryError(f"cannot parse query {text!r}", diagnostics=parser.diags)
    return body


def parse_atom(text: str, path: str = "<atom>", *, predicates: Collection[str] = ()) -> Atom:
    """Parse one atom (as given to ``explain``)."""
    body = parse_body(text, path, predicates=predicates)
    if len(body) == 1 and isinstance(body[0], Atom):
        return body[0]
    extra = body[1] if len(body) > 1 else body[0]
    found = f"{len(body)} literals" if len(body) > 1 else f"a {type(extra).__name__.lower()}"
    hint = f'explain proves one atom; to ask this as a query: judgelog query SCENARIO "{text}"'
    if isinstance(extra, Negation) and len(body) == 1:
        hint = f'to see why {extra.atom} does not hold: judgelog explain SCENARIO "{extra.atom}" --why-not'
    message = f"expected one atom such as damage_assigner(wurm, bob), found {found}"
    raise QueryError(message, diagnostics=[Diagnostic(E001, message, extra.span, hint=hint)])
