"""The shapes an action argument may be written in: the ones the loaded rules read.

The runtime gives an action's arguments to the rules as facts whose predicate follows the written shape
(judgelog.runtime): one value is ``act_arg(key, v)``, a list ``act_list(key, i, v)``, a list of lists
``act_list2``, a mapping ``act_map``, ``act_map_list`` or ``act_map2``. An argument written in a shape no
rule reads is ignored by every rule: ``attackers: hero`` for ``attackers: {hero: bob}`` would declare no
attack at all, silently. So an argument key that the rules read with a constant key in some shapes must be
written in one of those shapes; a key no rule names as a constant is not checked. Where the rules of one
action read a key (a rule whose body has ``action(KIND)``, directly or through the predicates it reads,
:func:`action_argument_shapes`), the shapes they read are the ones that action takes: ``destroy``'s rules read
``act_arg(object, O)`` alone, so ``object: [a, b]`` is refused there although ``leave_battlefield`` reads a
list of objects (through ``action_object/1``).

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
    from .ast import Rule
    from .program import Program

__all__ = ["argument_shapes", "action_argument_shapes", "shape_of", "fits", "describe"]

_SHAPE_OF_PRED = {
    "act_arg": "one value",
    "act_list": "list",
    "act_list2": "list of lists",
    "act_map": "mapping",
    "act_map_list": "mapping of lists",
    "act_map2": "mapping of mappings",
}
_EXAMPLE = {
    "one value": "one id or number",
    "list": "a list such as [a, b]",
    "list of lists": "a list of lists such as [[a, b]]",
    "mapping": "a mapping such as {a: b}",
    "mapping of lists": "a mapping of lists such as {a: [b, c]}",
    "mapping of mappings": "a mapping of mappings such as {a: {b: 1}}",
}
_VALUE_IN_MAPPING = {"one value": "mapping", "list": "mapping of lists", "mapping": "mapping of mappings"}
_ORDER = tuple(_EXAMPLE)
_CACHE: dict[int, tuple[Program, dict[str, frozenset[str]]]] = {}  # id(program) -> (program, shapes)


def argument_shapes(program: Program) -> dict[str, frozenset[str]]:
    """For each argument key a rule of ``program`` reads as a constant: the shapes it is read in."""
    hit = _CACHE.get(id(program))
    if hit is not None and hit[0] is program:
        return hit[1]
    shapes: dict[str, set[str]] = {}
    for rule in program.rules:
        for key, shape in _direct(rule):
            shapes.setdefault(key, set()).add(shape)
    result = {key: frozenset(found) for key, found in shapes.items()}
    _CACHE[id(program)] = (program, result)  # (a Program is not hashable: keyed by its id, checked by identity)
    return result


def _direct(rule: Rule) -> set[tuple[str, str]]:
    """The (key, shape) pairs a rule reads or writes with a constant key."""
    out = set()
    for lit in (rule.head,) + tuple(rule.body):
        atom = lit.atom if isinstance(lit, Negation) else lit
        if isinstance(atom, Atom) and atom.pred in _SHAPE_OF_PRED and atom.args:
            key = atom.args[0]
            if isinstance(key, Const) and isinstance(key.value, str):
                out.add((key.value, _SHAPE_OF_PRED[atom.pred]))
    return out


def action_argument_shapes(program: Program) -> dict[tuple[str, str], frozenset[str]]:
    """For each action kind and argument key its rules read: the shapes they read it in. An action's rules are
    the rules whose body holds ``action(KIND)`` with a constant kind; what they read through the predicates
    they depend on counts (``action_object/1`` reads a list of objects for every action that asks it). A rule
    that reads an argument without naming an action, and whose head no rule reads (a check of every action),
    counts for every action. Kept with the program."""
    return program.kept("argshapes.action", lambda: _action_argument_shapes(program))


def _action_argument_shapes(program: Program) -> dict[tuple[str, str], frozenset[str]]:
    own: dict[str, set[tuple[str, str]]] = {}  # predicate -> what its own rules read with a constant key
    for rule in program.rules:
        own.setdefault(rule.head.pred, set()).update(_direct(rule))
    read_by_rules = {pred for preds in program.index.reads.values() for pred in preds}
    per: dict[tuple[str, str], set[str]] = {}
    every: dict[str, set[str]] = {}
    for rule in program.rules:
        kinds = {
            str(lit.args[0].value)
            for lit in rule.body
            if isinstance(lit, Atom) and lit.pred == "action" and lit.args and isinstance(lit.args[0], Const)
        }
        if kinds:
            body = {
                (lit.atom if isinstance(lit, Negation) else lit).pred
                for lit in rule.body
                if isinstance(lit, (Atom, Negation))
            }
            found = set(_direct(rule)).union(*(own.get(p, ()) for p in program.dependencies(body)))
            for kind in kinds:
                for key, shape in found:
                    per.setdefault((kind, key), set()).add(shape)
        elif rule.head.pred not in read_by_rules:
            for key, shape in _direct(rule):
                every.setdefault(key, set()).add(shape)
    return {(kind, key): frozenset(found | every.get(key, set())) for (kind, key), found in per.items()}


def shape_of(value: object) -> str:
    """The shape an argument is written in (the act_* facts judgelog.runtime makes of it); a mapping by what
    its values are (the first one that is not one value)."""
    if isinstance(value, dict):
        inner = {shape_of(v) for v in value.values()} - {"one value"}
        return _VALUE_IN_MAPPING.get(min(inner), "mapping of mappings") if inner else "mapping"
    if isinstance(value, list):
        return "list of lists" if any(isinstance(v, list) for v in value) else "list"
    return "one value"


def fits(value: object, shapes: frozenset[str]) -> bool:
    """Is ``value`` written in one of ``shapes``? (An empty list is a list of lists too; a mapping fits when
    the shape of each of its values does: ``{a: b, c: [d]}`` where the rules read both.)

    >>> fits([], frozenset({"list of lists"})), fits("hero", frozenset({"mapping"}))
    (True, False)
    >>> fits({"wurm": 6}, frozenset({"mapping of mappings"}))
    False
    >>> fits({"b": "a", "c": ["a"]}, frozenset({"mapping", "mapping of lists"}))
    True
    """
    if value == [] and "list of lists" in shapes:
        return True
    if isinstance(value, dict) and value:
        return all(_VALUE_IN_MAPPING.get(shape_of(v), "") in shapes for v in value.values())
    if isinstance(value, dict):
        return any(s.startswith("mapping") for s in shapes)
    return shape_of(value) in shapes


def describe(shapes: frozenset[str]) -> str:
    """``shapes`` in words, with an example each: 'one id or number or a list such as [a, b]'."""
    return " or ".join(_EXAMPLE[s] for s in _ORDER if s in shapes)
