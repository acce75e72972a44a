"""The registry of error codes: every code a diagnostic or a limit can carry, with its title and the anchor of
its section in ``docs/errors.md`` (the tests check the document against this registry, both ways).

A :class:`~judgelog.errors.Diagnostic` or :class:`~judgelog.errors.LimitError` with a code that is not here
is refused when it is made, so no code reaches a user undocumented.

>>> CODES["E003"].title, CODES["E003"].anchor
('arity mismatch', 'e003-arity-mismatch')
>>> lookup("E999")
Traceback (most recent call last):
  ...
ValueError: E999 is not a registered error code (judgelog.codes)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["ErrorCode", "CODES", "lookup", "doc_anchor"]


def doc_anchor(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a section heading: lower case, punctuation dropped,
    spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@dataclass(frozen=True)
class ErrorCode:
    """One code: ``code`` as printed (``E003``), its ``title`` and the ``anchor`` of its section in
    ``docs/errors.md``."""

    code: str
    title: str
    anchor: str

    def __str__(self) -> str:
        return self.code


def _code(code: str, title: str, *, section: str = "") -> ErrorCode:
    """A code documented under ``### {code} {title}``, or under the heading ``section`` it shares."""
    return ErrorCode(code, title, doc_anchor(section or f"{code} {title}"))


_LIMITS = "Limits (L001-L004)"

_ALL = (
    # rule files and queries
    _code("E001", "syntax error"),
    _code("E002", "undeclared predicate"),
    _code("E003", "arity mismatch"),
    _code("E004", "unsafe variable"),
    _code("E005", "negation cycle"),
    _code("E006", "duplicate name"),
    _code("E007", "missing @name"),
    _code("E008", "missing @cr"),
    _code("E009", "conflicting declarations"),
    _code("E010", "missing file"),
    _code("E011", "include loop"),
    _code("E012", "rule derives an input predicate"),
    _code("E013", "type mismatch"),
    _code("E014", "aggregate misuse"),
    _code("E015", "arithmetic on a word"),
    _code("E016", "unbounded recursive arithmetic"),
    # evaluation limits (judgelog.recursion.Limits)
    _code("L001", "facts derived by recursive rules", section=_LIMITS),
    _code("L002", "time spent deriving them", section=_LIMITS),
    _code("L003", "size of a computed integer", section=_LIMITS),
    _code("L004", "combinations of a body's unconnected parts", section=_LIMITS),
    # the engine's contract with the rules
    _code("I001", "the rules do not keep the engine's contract"),
    _code("I002", "undeclared effect primitive"),
    # scenario files and the card catalog
    _code("S000", "scenario could not be loaded"),
    _code("S001", "YAML syntax error"),
    _code("S002", "unreadable value or key"),
    _code("S003", "duplicate key"),
    _code("S100", "schema problem"),
    _code("S101", "unknown predicate in a fact"),
    _code("S102", "action problem"),
    _code("S103", "expectation problem"),
    _code("Q001", "unknown constant in a query"),
    _code("S200", "card not modelled in full (warning)"),
)

CODES: MappingProxyType[str, ErrorCode] = MappingProxyType({c.code: c for c in _ALL})


def lookup(code: str) -> ErrorCode:
    """The registered code, or ValueError (a code the registry lacks is a bug of the engine, not of input)."""
    found = CODES.get(code)
    if found is None:
        raise ValueError(f"{code} is not a registered error code (judgelog.codes)")
    return found
