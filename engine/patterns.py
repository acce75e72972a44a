"""Patterns of facts: a tuple of argument values in which a position may be :data:`WILD` (any value) or an
:class:`Among` (any of a set of values). The affected patterns of a change (judgelog.incremental), the
restriction of a question to them (judgelog.restrict) and the questions kept out (judgelog.unread) are
written with them.

>>> matches(("toughness", WILD), ("toughness", "a17")), matches((Among(frozenset({"a", "b"})),), ("c",))
(True, False)
>>> meet(Among(frozenset({"a", "b"})), Among(frozenset({"b", "c"}))), meet("a", Among(frozenset({"b"})))
('b', None)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["WILD", "Among", "Pattern", "matches", "meet"]


class _Wild:
    __slots__ = ()

    def __repr__(self) -> str:
        return "*"


WILD: Any = _Wild()

Pattern = tuple


class Among:
    """A set of values at one position of a pattern: the pattern stands for each of them. A large change's
    analysis (:func:`judgelog.incremental.coarse_affected` with ``among``) names the objects it changed this way,
    so that a question is asked again for those objects only (proliferate: the creatures given a counter, not
    every creature)."""

    __slots__ = ("values", "_hash")

    def __init__(self, values: frozenset) -> None:
        self.values = values
        self._hash = hash(("among", values))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Among) and other.values == self.values

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"<among {len(self.values)}>"


def meet(a: Any, b: Any) -> Any:
    """The values a variable may take when bound to ``a`` and to ``b`` (concrete values or Among); None
    when none."""
    if a == b:
        return a
    among_a, among_b = type(a) is Among, type(b) is Among
    if among_a and among_b:
        both = a.values & b.values
        return None if not both else Among(both) if len(both) > 1 else next(iter(both))
    if among_a:
        return b if b in a.values else None
    if among_b:
        return a if a in b.values else None
    return None


def matches(pattern: Pattern, args: Sequence) -> bool:
    """Does ``args`` (values, possibly WILD or Among) fall under ``pattern``?"""
    for p, a in zip(pattern, args):
        if p is WILD:
            continue
        if type(p) is Among:
            if type(a) is Among:
                if not a.values <= p.values:
                    return False
            elif a is WILD or a not in p.values:
                return False
        elif p != a:
            return False
    return True
