"""The shapes an action argument may be written in: the ones the loaded rules read.

The runtime gives an action's arguments to the rules as facts whose predicate follows the written shape
(judgelog.runtime): one value is ``act_arg(key, v)``, a list ``act_list(key, i, v)``, a list of lists
``act_list2``, a mapping ``act_map``, ``act_map_list`` or ``act_map2``. An argument written in a shape no
rule reads is ignored by every rule: ``attackers: hero`` for ``attackers: {hero: bob}`` would declare no
attack at all, silently. So an argument key that the rules read with a constant key in some shapes must be
written in one of those shapes; a key no rule names as a constant is not checked.

>>> from judgelog.parser import parse_text
>>> from judgelog.analysis import analyze
>>> f = parse_text('''
... .decl act_arg(key: atom, value: atom) "" input
... .decl act_map(key: atom, k: atom, value: atom) "" input
... .decl attack(a: atom, t: atom) ""
... attack(A, T) :- act_map(attackers, A, T).
... ''', "t.dl")
>>> program, _ = analyze([f], require_annotations=False)
>>> shapes = argument_shapes(program)
>>> shapes["attackers"], shape_of("hero"), shape_of({"hero": "bob"})
(frozenset({'mapping'}), 'one value', 'mapping')
>>> describe(shapes["attackers"])
'a mapping such as {a: b}'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .ast import Atom, Const, Negation

if TYPE_CHECKING:  # pragma: no cover
    from .program import Program

__all__ = ["argument_shapes", "shape_of", "fits", "describe"]

_SHAPE_OF_PRED = {
    "act_arg": "one value",
    "act_list": "list",
    "act_list2": "list of lists",
    "act_map": "mapping",
    "act_map_list": "mapping",
    "act_map2": "mapping",
}
_EXAMPLE = {
    "one value": "one id or number",
    "list": "a list such as [a, b]",
    "list of lists": "a list of lists such as [[a, b]]",
    "mapping": "a mapping such as {a: b}",
}
_ORDER = tuple(_EXAMPLE)
_CACHE: dict[int, tuple[Program, dict[str, frozenset[str]]]] = {}  # id(program) -> (program, shapes)


def argument_shapes(program: Program) -> dict[str, frozenset[str]]:
    """For each argument key a rule of ``program`` reads as a constant: the shapes it is read in."""
    hit = _CACHE.get(id(program))
    if hit is not None and hit[0] is program:
        return hit[1]
    shapes: dict[str, set[str]] = {}
    for rule in program.rules:
        for lit in (rule.head,) + tuple(rule.body):
            atom = lit.atom if isinstance(lit, Negation) else lit
            if isinstance(atom, Atom) and atom.pred in _SHAPE_OF_PRED and atom.args:
                key = atom.args[0]
                if isinstance(key, Const) and isinstance(key.value, str):
                    shapes.setdefault(key.value, set()).add(_SHAPE_OF_PRED[atom.pred])
    result = {key: frozenset(found) for key, found in shapes.items()}
    _CACHE[id(program)] = (program, result)  # (a Program is not hashable: keyed by its id, checked by identity)
    return result


def shape_of(value: object) -> str:
    """The shape an argument is written in (the act_* facts judgelog.runtime makes of it)."""
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list of lists" if any(isinstance(v, list) for v in value) else "list"
    return "one value"


def fits(value: object, shapes: frozenset[str]) -> bool:
    """Is ``value`` written in one of ``shapes``? (An empty list is a list of lists too.)

    >>> fits([], frozenset({"list of lists"})), fits("hero", frozenset({"mapping"}))
    (True, False)
    """
    if value == [] and "list of lists" in shapes:
        return True
    return shape_of(value) in shapes


def describe(shapes: frozenset[str]) -> str:
    """``shapes`` in words, with an example each: 'one id or number or a list such as [a, b]'."""
    return " or ".join(_EXAMPLE[s] for s in _ORDER if s in shapes)
