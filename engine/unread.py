"""Facts that no rule reads: a given fact whose predicate no rule derives and that matches no atom (positive
or under ``not``) of a rule that can fire in the state can change no derived fact; only a question that names
its predicate itself can see it.

An action records an event per object it changes (``event(N, counters_put, X)``, its details and its cause):
proliferate over every permanent records thousands. The rules read events of a few kinds only
(``event(N, attacks, A)``, ``event_detail(N, attacker, A)``), and most rules that read every event (a
trigger of a keyword no permanent has) cannot fire on a given board (judgelog.liveness). So the pyDatalog
backend keeps such facts out of its database until a question names their predicate, or until the rules
that can fire change (:meth:`judgelog.backend.Backend.ask_body`, ``Backend._sync``): they are in the state
as always, and every question gives the same answers.

A fact is judged by its *key*: its predicate and its values at the positions where some rule's body atom
over the predicate has a constant (None for a derived predicate: never kept out).

>>> from judgelog import Engine
>>> unread = Unread(Engine().program)
>>> tapped = unread.key(("event", 7, "tapped", "bear"))
>>> attacks = unread.key(("event", 7, "attacks", "bear"))
>>> unread.unread(tapped, frozenset()), unread.unread(attacks, frozenset())
(False, False)
>>> any_kind = ("continuous.until_event_on_object", "continuous.until_event_on_source")  # read any event's kind
>>> dead = frozenset(id(r) for r in unread.program.rules if r.name in any_kind)
>>> unread.unread(tapped, dead), unread.unread(attacks, dead)
(True, False)
>>> unread.unread(unread.key(("counter", "bear", "p1p1", 1)), dead)  # counter_count(X, K, N) :- counter(X, K, N)
False
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from .ast import Const, Var
from .incremental import WILD, readers

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable, Sequence

    from .ast import Atom, Rule
    from .program import Program
    from .setwise import Base

__all__ = ["Unread"]

_KEPT = 4096  # keys judged, remembered per set of dead rules
_FAMILIES = 16  # sets of dead rules whose judgements are kept


class Unread:
    """Which facts no rule that can fire reads (see the module doc): :meth:`key` of a fact, then
    :meth:`unread` of the key given the ids of the rules that cannot fire (judgelog.liveness)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        # pred -> None (derived, or read by an atom with an argument that is neither a variable nor a
        # constant), or (the positions keys hold, the body atoms over it with their rules)
        self._shapes: dict[str, tuple[tuple[int, ...], list[tuple[Rule, Atom]]] | None] = {}
        self._families: dict[int, tuple[frozenset, dict[tuple, bool]]] = {}  # id(dead) -> (dead, key -> unread)
        self._readers: dict[tuple[str, int], tuple[frozenset, frozenset]] = {}  # (pred, id(dead)) -> (dead, ids)
        # (pred, id(dead)) -> (dead, the live atoms' patterns: by the constant at the first place, and the rest)
        self._indexed: dict[tuple[str, int], tuple[frozenset, tuple[dict[object, list[tuple]], list[tuple]]]] = {}

    def _shape(self, pred: str) -> tuple[tuple[int, ...], list[tuple[Rule, Atom]]] | None:
        if pred in self.program.rules_by_head:
            return None  # a derived predicate's own facts are read with it
        atoms = readers(self.program, pred)
        if not all(isinstance(a, (Const, Var)) for _rule, atom in atoms for a in atom.args):
            return None
        positions = tuple(sorted({i for _rule, atom in atoms for i, a in enumerate(atom.args) if isinstance(a, Const)}))
        return positions, atoms

    def _shape_of(self, pred: str) -> tuple[tuple[int, ...], list[tuple[Rule, Atom]]] | None:
        if pred in self._shapes:
            return self._shapes[pred]
        shape = self._shapes[pred] = self._shape(pred)
        return shape

    def key(self, fact: tuple) -> tuple | None:
        """The fact's predicate and values where the rules' atoms over it have constants (with their types:
        1 and True are other keys); None when it is always read."""
        pred = fact[0]
        shape = self._shape_of(pred)
        if shape is None:
            return None
        values = tuple(fact[i + 1] if i + 1 < len(fact) else WILD for i in shape[0])
        return (pred, values, tuple(map(type, values)))

    def split(self, pred: str, facts: Iterable[tuple], dead: frozenset) -> tuple[dict[tuple, set[tuple]], list[tuple]]:
        """``facts`` (all of ``pred``) as those no rule outside ``dead`` reads, by :meth:`key`, and the others
        (:meth:`key` and :meth:`unread` of each, for one predicate at once)."""
        shape = self._shape_of(pred)
        if shape is None:
            return {}, list(facts)
        positions = shape[0]
        kept_out: dict[tuple, set[tuple]] = {}
        read: list[tuple] = []
        judged: dict[tuple, bool] = {}  # (this call's: the keys of one predicate's facts repeat)
        for fact in facts:
            values = tuple([fact[i + 1] if i + 1 < len(fact) else WILD for i in positions])
            key = (pred, values, tuple(map(type, values)))
            found = judged.get(key)
            if found is None:
                found = judged[key] = self.unread(key, dead)
            if found:
                kept = kept_out.get(key)
                if kept is None:
                    kept_out[key] = {fact}
                else:
                    kept.add(fact)
            else:
                read.append(fact)
        return kept_out, read

    def unread(self, key: tuple, dead: frozenset) -> bool:
        """No rule outside ``dead`` has a body atom that a fact with this key matches."""
        family = self._families.get(id(dead))
        if family is None or family[0] is not dead:
            if len(self._families) >= _FAMILIES:
                self._families.clear()
            family = self._families[id(dead)] = (dead, {})
        judged = family[1]
        found = judged.get(key)
        if found is None:
            found = judged[key] = self._judge(key, dead)
            if len(judged) > _KEPT:
                judged.clear()
        return found

    def readers(self, pred: str, dead: frozenset) -> frozenset:
        """The ids of the rules outside ``dead`` that read ``pred`` (the facts kept out need judging again
        only when these change)."""
        found = self._readers.get((pred, id(dead)))
        if found is None or found[0] is not dead:
            if len(self._readers) >= _KEPT:
                self._readers.clear()
            found = self._readers[(pred, id(dead))] = (
                dead,
                frozenset(id(rule) for rule, _atom in readers(self.program, pred) if id(rule) not in dead),
            )
        return found[1]

    def fits(self, key: tuple, atom: Atom) -> bool:
        """Can a fact with this key match ``atom`` (a question's)?"""
        shape = self._shapes[key[0]]
        assert shape is not None  # a key is made only for a predicate with a shape
        return all(_fits(atom, i, v) for i, v in zip(shape[0], key[1]))

    def fitting(self, waiting: dict[tuple, set[tuple]], atom: Atom, unfit: dict[tuple, set[tuple]]) -> list[tuple]:
        """The keys of ``waiting`` (a predicate's facts kept out, by key) that a question's ``atom`` may match.

        Whether a key fits depends only on the atom's constants at the key's positions: ``unfit`` remembers,
        by those constants, the keys found not to fit (a view's, across questions), so that a question asked
        again judges only the keys kept out since (an action's events, each with its own detail, are
        thousands of keys)."""
        shape = self._shapes[atom.pred]
        assert shape is not None  # facts are kept out only for a predicate with a shape
        consts = tuple(
            (i, atom.args[i].value, type(atom.args[i].value))  # type: ignore[union-attr]
            for i in shape[0]
            if i < len(atom.args) and isinstance(atom.args[i], Const)
        )
        if not consts:
            return list(waiting)
        known = unfit.setdefault((atom.pred, consts), set())
        fresh = waiting.keys() - known
        found = []
        for key in fresh:
            if self.fits(key, atom):
                found.append(key)
            else:
                known.add(key)
        if len(known) > 2 * len(waiting) + 64:  # keys read or dropped since: forget them
            known.intersection_update(waiting.keys())
        return found

    def joined(self, atom: Atom, positive: Sequence[Atom], base: Base) -> list[tuple[int, set]] | None:
        """For the places of ``atom`` (a question's) whose variable one of the question's ``positive`` atoms
        over a predicate of given facts only also holds, the values that atom's facts hold there: ``(place,
        values)``. Every answer binds the variable to one of them, so a fact kept out with another value there
        cannot take part (whether ``atom`` is positive or negated). None when no place is so joined."""
        out: list[tuple[int, set]] = []
        for j, arg in enumerate(atom.args):
            if not isinstance(arg, Var) or arg.anonymous:
                continue
            for other in positive:
                if other is atom or not self._given_only(other.pred):
                    continue
                at = next((k for k, a in enumerate(other.args) if isinstance(a, Var) and a.name == arg.name), None)
                if at is None:
                    continue
                consts = tuple((k, a.value) for k, a in enumerate(other.args) if isinstance(a, Const))
                index = base.index(other.pred, tuple(k for k, _v in consts), {}, ())
                out.append((j, {row[at] for row in index.get(tuple(v for _k, v in consts), ())}))
                break
        return out or None

    def _given_only(self, pred: str) -> bool:
        """Are all of ``pred``'s facts the state's own (no rule derives it, no rule file states one)?"""
        return pred not in self.program.rules_by_head and not self.program.ground_facts(pred)

    def _judge(self, key: tuple, dead: frozenset) -> bool:
        pred, values, _types = key
        by_first, any_first = self._patterns(pred, dead)
        first = values[0] if values else WILD
        if first is WILD:  # a fact too short to hold the first place: only the other places can tell
            candidates: Iterable[tuple] = itertools.chain(*by_first.values(), any_first)
        else:
            candidates = itertools.chain(by_first.get(first, ()), any_first)
        rest = values[1:]
        for pattern in candidates:
            if all(p is WILD or v is WILD or p == v for p, v in zip(pattern, rest)):
                return False
        return True

    def _patterns(self, pred: str, dead: frozenset) -> tuple[dict[object, list[tuple]], list[tuple]]:
        """The distinct constant patterns of the body atoms over ``pred`` of the rules outside ``dead``, at the
        key's places (WILD where an atom has a variable or no argument): by their constant at the first place,
        and those with none there (a key is judged against the few that may match, not every atom)."""
        found = self._indexed.get((pred, id(dead)))
        if found is not None and found[0] is dead:
            return found[1]
        shape = self._shapes[pred]
        assert shape is not None  # a key is made only for a predicate with a shape
        positions, atoms = shape
        patterns = {tuple(_constant(atom, i) for i in positions) for rule, atom in atoms if id(rule) not in dead}
        by_first: dict[object, list[tuple]] = {}
        any_first: list[tuple] = []
        for pattern in patterns:
            if pattern and pattern[0] is not WILD:
                by_first.setdefault(pattern[0], []).append(pattern[1:])
            else:
                any_first.append(pattern[1:])
        if len(self._indexed) >= _KEPT:
            self._indexed.clear()
        self._indexed[(pred, id(dead))] = (dead, (by_first, any_first))
        return by_first, any_first


def _constant(atom: Atom, i: int) -> object:
    """The atom's constant at argument place ``i``, or WILD (a variable, or no such place)."""
    if i >= len(atom.args):
        return WILD
    arg = atom.args[i]
    return arg.value if isinstance(arg, Const) else WILD


def _fits(atom: Atom, i: int, value: object) -> bool:
    """Can a fact with ``value`` at position ``i`` match the atom there?"""
    if i >= len(atom.args) or value is WILD:
        return True
    arg = atom.args[i]
    return not isinstance(arg, Const) or arg.value == value
