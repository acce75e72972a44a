"""The tokens of the rule language: words, numbers, strings and operators, each with its line and column.

Whitespace and ``#`` comments are dropped; ``##`` lines are kept (a file's header); a bad character or an
unterminated string is recorded as a diagnostic and skipped, so the parser still sees the rest of the file.

>>> diags = []
>>> [(t.kind, t.text) for t in tokenize('tapped(O) :- "x".', "demo.dl", diags)][:4]
[('atom', 'tapped'), ('op', '('), ('var', 'O'), ('op', ')')]
>>> glue(tokenize("702.22j", "demo.dl", diags)[:-1]), unquote('"a\\\\"b"'), diags
([('702.22j', 1)], 'a"b', [])
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .ast import Span
from .codes import E001
from .errors import Diagnostic

__all__ = ["Token", "tokenize", "glue", "unquote"]


def glue(tokens: list[Token]) -> list[tuple[str, int]]:
    """Words of adjacent tokens joined (``702.22j`` is several tokens), each with its first column."""
    words: list[tuple[str, int]] = []
    end = None
    for tok in tokens:
        if words and end == (tok.line, tok.col):
            words[-1] = (words[-1][0] + tok.text, words[-1][1])
        else:
            words.append((tok.text, tok.col))
        end = (tok.line, tok.col + len(tok.text))
    return words


def unquote(text: str) -> str:
    """The value of a string token (its quotes off, its escapes read)."""
    body = text[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), body)


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r]+)
  | (?P<nl>\n)
  | (?P<doc>\#\#[^\n]*)
  | (?P<comment>\#[^\n]*)
  | (?P<annot>@[a-z_]+)
  | (?P<directive>\.(?:decl|include)\b)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<badstring>"[^\n]*)
  | (?P<squoted>'[^'\n]*')
  | (?P<int>\d+)
  | (?P<var>[A-Z_][A-Za-z0-9_]*)
  | (?P<atom>[a-z][A-Za-z0-9_]*)
  | (?P<op>:-|!=|<=|>=|==|[<>=+\-*/(),.:\[\]])
  | (?P<other>.)
    """,
    re.VERBOSE,
)


_MISTAKES = ("badstring", "squoted", "other")  # the token kinds that are errors


def _mistake(kind: str, value: str) -> tuple[str, str]:
    """The message and the hint for a token of a kind in _MISTAKES, whose text is ``value``."""
    if kind == "badstring":
        return "unterminated string", 'close the string with " on the same line'
    if kind == "squoted":
        return (
            "a string in single quotes: strings are written in double quotes",
            f'write "{value[1:-1]}", or a bare word when it is an id: {value[1:-1] or "bob"}',
        )
    return (
        f"unexpected character {value!r}",
        "the rule language uses letters, digits, _ and ( ) , . :- = != < <= > >= + - * /",
    )


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    line: int
    col: int


def tokenize(text: str, path: str, diags: list[Diagnostic]) -> list[Token]:
    tokens: list[Token] = []
    line, line_start = 1, 0
    for match in _TOKEN_RE.finditer(text):
        kind = match.lastgroup
        value = match.group()
        col = match.start() - line_start + 1
        if kind == "nl":
            tokens.append(Token("nl", value, line, col))
            line += 1
            line_start = match.end()
            continue
        if kind in ("ws", "comment"):
            continue
        if kind in _MISTAKES:  # one error each, and read on
            message, hint = _mistake(kind, value)
            diags.append(Diagnostic(E001, message, Span(path, line, col), hint=hint))
            if kind == "squoted":  # 'bob': read on as the string it was meant to be
                tokens.append(Token("string", '"' + value[1:-1].replace('"', '\\"') + '"', line, col))
            continue
        tokens.append(Token(kind or "other", value, line, col))
    # the end of input is placed just after the last non-blank character, so that an error there ("expected a
    # term, found end of input") shows the line it is missing from, with a caret after its last character
    body = text.rstrip()
    end_line = body.count("\n") + 1
    end_col = len(body) - (body.rfind("\n") + 1) + 1
    tokens.append(Token("eof", "", end_line, end_col))
    return tokens
