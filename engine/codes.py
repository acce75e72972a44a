"""The registry of error codes: every code a diagnostic or a limit can carry, with its title and the anchor of
its section in ``docs/errors.md`` (the tests check the document against this registry, both ways).

Each code is a constant of this module (``E003``), of type :data:`Code`: the code as printed, a ``str`` at
run time, which only this registry makes, so that mypy refuses a code written as a literal and an import
refuses a code that does not exist. :data:`CODES` maps each one to its :class:`ErrorCode`.

A :class:`~judgelog.errors.Diagnostic` or :class:`~judgelog.errors.LimitError` with a code that is not here
is also refused when it is made, so no code reaches a user undocumented.

>>> E003, CODES[E003].title, CODES[E003].anchor
('E003', 'arity mismatch', 'e003-arity-mismatch')
>>> lookup("E999")
Traceback (most recent call last):
  ...
ValueError: E999 is not a registered error code (judgelog.codes)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import NewType

__all__ = ["Code", "ErrorCode", "CODES", "lookup", "doc_anchor"]
# and the codes, each a constant below
__all__ += ["E001", "E002", "E003", "E004", "E005", "E006", "E007", "E008", "E009", "E010", "E011", "E012"]
__all__ += [
    "E013",
    "E014",
    "E015",
    "E016",
    "E017",
    "L001",
    "L002",
    "L003",
    "L004",
    "I001",
    "I002",
    "I003",
    "I004",
    "I005",
    "I006",
    "I007",
    "I008",
    "I009",
    "I010",
    "I011",
    "I012",
    "I013",
]
__all__ += [
    "S000",
    "S001",
    "S002",
    "S003",
    "S100",
    "S101",
    "S102",
    "S103",
    "S104",
    "Q001",
    "Q002",
    "A001",
    "S200",
    "S201",
    "S202",
    "S203",
    "S204",
    "S205",
    "S206",
]

Code = NewType("Code", str)


def doc_anchor(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a section heading: lower case, punctuation dropped,
    spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@dataclass(frozen=True)
class ErrorCode:
    """One code: ``code`` as printed (``E003``), its ``title`` and the ``anchor`` of its section in
    ``docs/errors.md``."""

    code: Code
    title: str
    anchor: str

    def __str__(self) -> str:
        return self.code


_REGISTRY: dict[str, ErrorCode] = {}


def _code(code: str, title: str, *, section: str = "") -> Code:
    """Register a code documented under ``### {code} {title}``, or under the heading ``section`` it shares."""
    if code in _REGISTRY:
        raise ValueError(f"{code} is registered twice")
    _REGISTRY[code] = ErrorCode(Code(code), title, doc_anchor(section or f"{code} {title}"))
    return Code(code)


_LIMITS = "Limits (L001-L004)"

# rule files and queries
E001 = _code("E001", "syntax error")
E002 = _code("E002", "undeclared predicate")
E003 = _code("E003", "arity mismatch")
E004 = _code("E004", "unsafe variable")
E005 = _code("E005", "negation cycle")
E006 = _code("E006", "duplicate name")
E007 = _code("E007", "missing @name")
E008 = _code("E008", "missing @cr")
E009 = _code("E009", "conflicting declarations")
E010 = _code("E010", "missing file")
E011 = _code("E011", "include loop")
E012 = _code("E012", "rule derives an input predicate")
E013 = _code("E013", "type mismatch")
E014 = _code("E014", "aggregate misuse")
E015 = _code("E015", "arithmetic on a word")
E016 = _code("E016", "unbounded recursive arithmetic")
E017 = _code("E017", "a word ordered against a number")
# evaluation limits (judgelog.recursion.Limits)
L001 = _code("L001", "facts derived by recursive rules", section=_LIMITS)
L002 = _code("L002", "time spent deriving them", section=_LIMITS)
L003 = _code("L003", "size of a computed integer", section=_LIMITS)
L004 = _code("L004", "combinations of a body's unconnected parts", section=_LIMITS)
# the engine's contract with the rules
I001 = _code("I001", "the rules do not keep the engine's contract")
I002 = _code("I002", "undeclared effect primitive")
I003 = _code("I003", "trigger rule reads no recent event")
I004 = _code("I004", "event result of an undeclared event kind")
I005 = _code("I005", "an event kind nothing makes")
I006 = _code("I006", "a keyword two rule files define")
I007 = _code("I007", "a counter kind as printed in a rule body")
I008 = _code("I008", "a numbered keyword whose abilities get no number")
I009 = _code("I009", "a recorded or forgotten predicate that is not an input")
I010 = _code("I010", "a property no property/2 declares")
I011 = _code("I011", "a keyword only a rule body names, near a known one")
I012 = _code("I012", "effects derived from effects")
I013 = _code("I013", "a refusal placeholder no rule fills")
# scenario files and the card catalog
S000 = _code("S000", "scenario could not be loaded")
S001 = _code("S001", "YAML syntax error")
S002 = _code("S002", "unreadable value or key")
S003 = _code("S003", "duplicate key")
S100 = _code("S100", "schema problem")
S101 = _code("S101", "unknown predicate in a fact")
S102 = _code("S102", "action problem")
S103 = _code("S103", "expectation problem")
S104 = _code("S104", "verify scope problem")
Q001 = _code("Q001", "unknown constant in a query")
Q002 = _code("Q002", "a variable where a ground atom is asked for")
A001 = _code("A001", "action refused")
S200 = _code("S200", "card or keyword not modelled in full (warning)")
S201 = _code("S201", "a board the rules would not allow (warning)")
S202 = _code("S202", "a fact of a derived predicate (warning)")
S203 = _code("S203", "an id in a fact that names nothing (warning)")
S204 = _code("S204", "a counter kind no rule names (warning)")
S205 = _code("S205", "a second value of a single-valued fact (warning)")
S206 = _code("S206", "a subtype the rules do not know (warning)")

CODES: MappingProxyType[str, ErrorCode] = MappingProxyType(_REGISTRY)


def lookup(code: str) -> ErrorCode:
    """The registered code, or ValueError (a code the registry lacks is a bug of the engine, not of input)."""
    found = CODES.get(code)
    if found is None:
        raise ValueError(f"{code} is not a registered error code (judgelog.codes)")
    return found
