"""The answer cache: the last answers of each whole-board question the runtime asks, kept for the next fact
set and asked again only where a change can reach them (the affected patterns of judgelog.incremental).

>>> from judgelog import Engine
>>> from judgelog.analysis import checked_question
>>> from judgelog.planning import row_sort_key
>>> engine = Engine()
>>> state = engine.load(engine.example("proliferate_kinds.yaml"))
>>> text = "counter(O, p1p1, N), permanent(O)"
>>> body, _ = checked_question(engine.program, text)
>>> cache, asked = AnswerCache(engine.program), []
>>> def ask(facts, body, names):
...     asked.append(body)
...     return engine.ask_rows(facts, body, names)
>>> rows = cache.ask(state.facts, tuple(body), ["O", "N"], ask, row_sort_key)
>>> after, _ = state.apply({"do": "tap", "object": rows[0][0]})
>>> cache.ask(after.facts, tuple(body), ["O", "N"], ask, row_sort_key) == rows, len(asked)  # tapping: kept
(True, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from .ast import Atom, Negation, Var
from .factview import as_frozenset, by_pred, difference
from .incremental import (
    Affected,
    Pattern,
    affected,
    matches,
    question_patterns,
    reached_preds,
)
from .memo import remember
from .program import Program
from .restrict import among_bindings, binding_literals

__all__ = ["AnswerCache", "QUESTION"]


Asker = Callable[[frozenset, tuple, list[str]], list[tuple]]  # the backend's question: facts, body, names -> rows
# the same with some variables bound to sets of values (the backend's ``ask`` with ``among``)
AmongAsker = Callable[[frozenset, tuple, list[str], dict[str, frozenset]], list[tuple]]
SortKey = Callable[[tuple], Any]
# the ids of the rules that cannot fire over a fact set (judgelog.liveness), or None when the backend can't tell
# (``now``: only if it can tell at once, without making the fact set its own)
DeadRules = Callable[[frozenset, bool], "frozenset[int] | None"]
# some of the rules that cannot fire over a fact set that adds some facts (by predicate) to one over which the
# rules of ``dead`` cannot (and removes any), found without making it the backend's own; or None
DeadAfter = Callable[[frozenset, Mapping[str, list[tuple]]], "frozenset[int] | None"]
QUESTION = "?question"  # the head predicate of a question followed as a rule (no declared name has a '?')
_MAX_CHANGE = 2000  # the least change of facts (besides a quarter of the state) found from differences
_KEPT = 64  # questions remembered per cache
_KEPT_PRED_CHANGES = 256  # one predicate's changed facts whose affected patterns are kept (see _Change)
_MAX_REASKED = 32  # more affected patterns than this: the question is asked again in full
# and at most one pattern per this many facts of the board: on a small board, asking the whole question again
# costs less than finding the patterns a change affects and asking it once per pattern (a board of fewer facts
# keeps a question's answers only when the change cannot reach it at all; bench/run.py, N=10 to 100)
_FACTS_PER_REASKED = 250
# fact sets remembered per question: the runtime asks some questions of two kinds of fact set by turns (a
# step's facts with and without what the action's first step recorded), each close to the one before last
_PER_QUESTION = 3
_Entry = tuple[frozenset, list[tuple], "frozenset[int] | None"]  # a fact set, the rows, its dead rules
_Diff = tuple[frozenset, frozenset]  # the facts added and removed


class _Askers(NamedTuple):
    """How a question is asked of the backend (see :meth:`AnswerCache.ask`)."""

    ask: Asker
    sort_key: SortKey
    ask_among: AmongAsker | None
    dead: DeadRules | None
    dead_after: DeadAfter | None


class _Change:
    """The change between two fact sets: the facts added and removed, the predicates they hold, and their
    affected patterns (:func:`judgelog.incremental.affected`), found only when a question's body reads a
    predicate the change reaches at all, and only for the changed facts whose predicates can reach it."""

    __slots__ = (
        "added",
        "removed",
        "preds",
        "size",
        "_program",
        "_among",
        "_found",
        "_dead",
        "_by_pred",
        "_added_by",
        "_pred_sets",
        "_guessed",
    )

    def __init__(self, program: Program, added: frozenset, removed: frozenset, among: bool, size: int) -> None:
        self.added, self.removed, self.size = added, removed, size  # size: the facts of the fact set after it
        self.preds = frozenset({f[0] for f in added} | {f[0] for f in removed})
        self._program, self._among = program, among
        self._found: dict[tuple, Affected | None] = {}  # by the changed predicates analysed and the rules left out
        self._dead: dict[tuple[int, int], tuple[frozenset, frozenset, frozenset]] = {}  # see dead_on_both_sides
        self._by_pred: dict[str, list[tuple]] | None = None  # the changed facts of each predicate (removed first)
        self._added_by: dict[str, list[tuple]] | None = None  # the facts added, by predicate
        self._pred_sets: dict[str, frozenset] = {}  # the same, as sets (see _pred_facts)
        self._guessed: dict[int, tuple[frozenset, frozenset | None]] = {}  # see dead_after

    def reaches(self, body: tuple) -> bool:
        """Can the change reach a predicate the body reads (through the rules, by predicate)?"""
        reached = reached_preds(self._program, self.preds)
        return not reached.isdisjoint(_read(body))

    def affected(self, body: tuple, dead: frozenset = frozenset()) -> Affected | None:
        """The affected patterns of the changed facts whose predicates can reach one the body reads: for the
        body's predicates they are the patterns every changed fact gives (a fact's patterns follow the rules
        from its own predicate), and the facts that cannot reach the body (an action's events, for a
        question that reads none) are not looked at. ``dead``: rules that fire on neither side of the change,
        not followed. Kept by the changed predicates analysed and ``dead``. None when those facts are a large
        part of the fact set (a quarter): asking the question again costs less then."""
        read = _read(body)
        program = self._program
        # (through the rules that can fire on either side: an action's events reach few of them)
        reading = frozenset(p for p in self.preds if not reached_preds(program, frozenset((p,)), dead).isdisjoint(read))
        key = (reading, dead)
        if key in self._found:
            return self._found[key]
        by_pred = self._changed_by_pred()
        found: Affected | None = None
        if 4 * sum(len(by_pred[p]) for p in reading) <= self.size:
            found = Affected()
            for pred in sorted(reading):
                found.merge(self._pred_affected(pred, dead))
        self._found[key] = found
        return found

    def _changed_by_pred(self) -> dict[str, list[tuple]]:
        if self._by_pred is None:
            self._by_pred = by_pred(self.removed)
            for pred, facts in self._added_by_pred().items():
                self._by_pred[pred] = self._by_pred.get(pred, []) + facts
        return self._by_pred

    def _added_by_pred(self) -> dict[str, list[tuple]]:
        if self._added_by is None:
            self._added_by = by_pred(self.added)
        return self._added_by

    def _pred_facts(self, pred: str) -> frozenset:
        """The changed facts of one predicate, as a set made once per change (a key of what is kept)."""
        found = self._pred_sets.get(pred)
        if found is None:
            found = self._pred_sets[pred] = frozenset(self._changed_by_pred()[pred])
        return found

    def _pred_affected(self, pred: str, dead: frozenset) -> Affected:
        """The affected patterns of the changed facts of one predicate, kept by those facts: the questions of
        one step compare several fact sets with the one asked about (each question its own), and the changes
        between them often share a predicate's facts (the counters proliferate gave, thousands of them)."""
        facts = self._pred_facts(pred)
        kept: dict[tuple, Affected] = self._program.kept("answer_cache.pred_affected", dict)
        key = (facts, self._among, dead)
        found = kept.get(key)
        if found is None:
            found = affected(self._program, facts, among=self._among, dead=dead)
            remember(kept, key, found, keep=_KEPT_PRED_CHANGES)
        return found

    def dead_after(self, before: frozenset, dead_after: DeadAfter) -> frozenset | None:
        """Some of the rules dead after the change, from those dead before it (``dead_after``: the backend's),
        found once per change and rules dead before."""
        found = self._guessed.get(id(before))
        if found is None or found[0] is not before:
            found = self._guessed[id(before)] = (before, dead_after(before, self._added_by_pred()))
        return found[1]

    def dead_on_both_sides(self, before: frozenset, after: frozenset) -> frozenset:
        """The rules dead both before and after the change (``before`` and ``after``: each side's dead rules)."""
        if before is after:
            return before
        key = (id(before), id(after))
        found = self._dead.get(key)
        if found is None or found[0] is not before or found[1] is not after:
            found = self._dead[key] = (before, after, before & after)
        return found[2]


def _read(body: tuple) -> frozenset:
    """The predicates a question's body reads (its atoms, negated or not)."""
    return frozenset(
        (lit.atom if isinstance(lit, Negation) else lit).pred for lit in body if isinstance(lit, (Atom, Negation))
    )


class AnswerCache:
    """The last answers of each whole-board question the runtime asks, for the next fact set it asks
    about: a question whose body the change of facts cannot reach keeps its answers; otherwise the old
    answers that match no affected pattern of the question are kept and the question is asked again only
    for the patterns (``X = value`` prepended to its body), so one counter on one creature re-asks about
    that creature alone. ``ask`` is the backend's own question (facts, body, names) -> sorted rows."""

    def __init__(self, program: Program) -> None:
        self.program = program
        # question -> the fact sets it was last asked about (newest first), each with its rows and the rules
        # dead over it (None: not known)
        self._last: dict[tuple, tuple[_Entry, ...]] = {}
        self._diffs: list[tuple[frozenset, frozenset, bool, _Change]] = []  # the last few changes analysed
        # each fact set seen lately, as its difference from one anchor fact set: the change between two of
        # them comes from their differences, so a fact set is compared with the whole anchor only once
        self._anchor: frozenset = frozenset()
        self._deltas: dict[int, tuple[frozenset, frozenset, frozenset]] = {}  # id -> (facts, added, removed)
        # the fact set asked about last, and how each fact set remembered relates to it (see _related)
        self._new: frozenset | None = None
        self._pairs: dict[int, tuple[frozenset, _Diff | None]] = {}
        # some of the rules dead over the fact set asked about last, when found without making it the backend's
        # own (see _update): remembered with a question's answers when the backend cannot tell them at once
        self._guess: tuple[frozenset | None, frozenset | None] = (None, None)

    def _related(self, old: frozenset, new: frozenset, limit: int | None = None) -> _Diff | None:
        """:func:`_related`, kept for the fact set asked about last (every question of a step relates the same
        few fact sets to it); ``limit``: None also when the paths to a common base change more facts."""
        if new is not self._new:
            self._new, self._pairs = new, {}
        found = self._pairs.get(id(old))
        if found is None or found[0] is not old:
            if limit is not None:
                return difference(old, new, limit)
            found = self._pairs[id(old)] = (old, _related(old, new))
        return found[1]

    def _delta(self, facts: frozenset) -> tuple[frozenset, frozenset] | None:
        """What ``facts`` adds to the anchor and removes from it; None when that is large (``facts`` then
        becomes the anchor, and the differences kept so far are dropped)."""
        hit = self._deltas.get(id(facts))
        if hit is not None and hit[0] is facts:
            return hit[1], hit[2]
        added, removed = facts - self._anchor, self._anchor - facts
        if len(added) + len(removed) > max(_MAX_CHANGE, len(facts) // 4):
            self._anchor, self._deltas = facts, {id(facts): (facts, frozenset(), frozenset())}
            return None
        remember(self._deltas, id(facts), (facts, added, removed), keep=_KEPT)  # (an engine's threads share it)
        return added, removed

    def _changes(
        self, old: frozenset, new: frozenset, known: tuple[frozenset, frozenset] | None, *, among: bool = False
    ) -> _Change | None:
        """The change from ``old`` to ``new`` (``known``: as :func:`_related` found it, if it did) and, when
        asked for, its affected patterns (``among``: a large change's objects as sets of values, see
        :func:`coarse_affected`); None when they are far apart (``old`` far from the anchor)."""
        for a, b, was_among, found in self._diffs:
            if a is old and b is new and was_among == among:
                return found
        # from their bases and differences (judgelog.factview); a large change is analysed by its coarse
        # shapes (judgelog.incremental.coarse_affected), so a question it cannot reach keeps its answers
        if known is not None:
            added, removed = known
        else:
            new_delta = self._delta(as_frozenset(new)) or (frozenset(), frozenset())  # None: ``new`` is the anchor
            old_delta = self._delta(as_frozenset(old))
            if old_delta is None:  # far from the anchor (perhaps ``new``): ``old`` is the anchor now
                return None
            (new_added, new_removed), (old_added, old_removed) = new_delta, old_delta
            removed = (old_added - new_added) | (new_removed - old_removed)
            added = (new_added - old_added) | (old_removed - new_removed)
        # a large change is analysed by its coarse shapes, at the cost of its distinct shapes, and only for the
        # facts that can reach a question (an action's events are most of a large change, and reach few)
        found = _Change(self.program, frozenset(added), frozenset(removed), among, len(new))
        self._diffs = [(old, new, among, found), *self._diffs[:7]]
        return found

    def ask(
        self,
        facts: frozenset,
        body: tuple,
        names: list[str],
        ask: Asker,
        sort_key: SortKey,
        ask_among: AmongAsker | None = None,
        dead: DeadRules | None = None,
        dead_after: DeadAfter | None = None,
    ) -> list[tuple]:
        """The rows of the question ``body`` over ``facts`` (``ask`` asks the backend; ``ask_among``, when
        the backend can, asks it with variables bound to sets of values: without it such a pattern is asked
        with those variables open; ``dead``, when the backend can tell, the rules that cannot fire over a fact
        set: a change is not followed through the rules dead on both of its sides; ``dead_after``, when the
        backend can tell, some of those rules without making the new fact set its own)."""
        key = (body, tuple(names))
        entries = self._last.pop(key, ())
        rows = None
        if entries:
            last, known = _nearest(entries, facts, self._related)
            rows = self._update(last, known, facts, body, names, _Askers(ask, sort_key, ask_among, dead, dead_after))
        if rows is None:
            rows = ask(facts, body, names)
        now = dead(facts, True) if dead is not None else None
        if now is None and self._guess[0] is facts:  # (some of the rules dead over them: see _update)
            now = self._guess[1]
        entry = (facts, rows, now)
        others = tuple(e for e in entries if e[0] is not facts)[: _PER_QUESTION - 1]
        remember(self._last, key, (entry, *others), keep=_KEPT)
        return rows

    def _update(
        self,
        last: _Entry,
        known: tuple[frozenset, frozenset] | None,
        facts: frozenset,
        body: tuple,
        names: list[str],
        askers: _Askers,
    ) -> list[tuple] | None:
        ask, sort_key, ask_among, dead, dead_after = askers
        old_facts, old_rows, old_dead = last
        if old_facts is facts:
            return old_rows
        if known is not None and not known[0] and not known[1] or known is None and old_facts == facts:
            return old_rows
        change = self._changes(old_facts, facts, known, among=ask_among is not None)
        if change is None:
            return None
        if not change.reaches(body):
            return old_rows
        limit = min(_MAX_REASKED, len(facts) // _FACTS_PER_REASKED)
        if not limit:
            return None
        head = Atom(QUESTION, tuple(Var(n) for n in names))
        # first through the rules that can fire on neither side as far as the change's predicates tell (an
        # action's events then reach few questions): without making ``facts`` the backend's own
        first: frozenset = frozenset()
        if old_dead and dead_after is not None:
            guess = change.dead_after(old_dead, dead_after)
            first = change.dead_on_both_sides(old_dead, guess) if guess else first
            self._guess = (facts, guess)
        changes = change.affected(body, first)
        if changes is None:
            return None
        found = question_patterns(changes, head, body)
        if (found.whole(QUESTION) or len(found.patterns(QUESTION)) > limit) and old_dead and dead is not None:
            # the whole question, or too much of it: not through the rules that fire on neither side (an
            # action's rules for declaring blockers, when it puts a counter)
            new_dead = dead(facts, False)
            if new_dead:
                changes = change.affected(body, change.dead_on_both_sides(old_dead, new_dead))
                if changes is None:
                    return None
                found = question_patterns(changes, head, body)
        if not found.touches(QUESTION):
            return old_rows
        if found.whole(QUESTION):
            return None
        patterns = _outermost(found.patterns(QUESTION))
        if len(patterns) > limit:
            return None
        kept = {row for row in old_rows if not any(matches(p, row) for p in patterns)}
        for pattern in patterns:
            fixed = binding_literals(head, pattern)
            if fixed is None:
                continue
            sets = among_bindings(head, pattern) if ask_among is not None else None
            if sets:
                kept.update(ask_among(facts, tuple(fixed) + tuple(body), names, sets))  # type: ignore[misc]
            else:
                kept.update(ask(facts, tuple(fixed) + tuple(body), names))
        return sorted(kept, key=sort_key)


def _related(old: frozenset, new: frozenset) -> tuple[frozenset, frozenset] | None:
    """What ``new`` adds to ``old`` and removes from it, from their common base (judgelog.factview), when the
    paths to it change no more facts than ``new`` holds (relating them costs no more than comparing them whole
    would); None otherwise. The change itself may be large: :meth:`AnswerCache._changes` judges that. (Two
    states on either side of a large step, such as the standing designations a first action records, are
    related through the step: a small change between the last fact set of one action and the first of the
    next keeps its answers.)"""
    return difference(old, new, max(_MAX_CHANGE, len(new)))


def _nearest(
    entries: tuple[_Entry, ...], facts: frozenset, related: Callable[[frozenset, frozenset, int | None], _Diff | None]
) -> tuple[_Entry, _Diff | None]:
    """The entry whose fact set is ``facts`` or differs from it least (of those related to it: see
    :func:`_related`), with that difference; the newest entry when none is related. The newest is related
    first, and an older one only by paths no longer than that difference (a fact set before a large step is
    not combined with it again)."""
    best: tuple[_Entry, _Diff | None] | None = None
    for entry in entries:
        if entry[0] is facts:
            return entry, (frozenset(), frozenset())
        known = related(entry[0], facts, _size(best[1]) if best is not None and best[1] is not None else None)
        if known is not None and (best is None or best[1] is None or _size(known) < _size(best[1])):
            best = (entry, known)
    return best if best is not None else (entries[0], None)


def _size(change: tuple[frozenset, frozenset]) -> int:
    return len(change[0]) + len(change[1])


def _outermost(patterns: list[Pattern]) -> list[Pattern]:
    """The patterns that no other one covers (a covered pattern's facts are asked again with the other's)."""
    return [p for p in patterns if not any(q != p and matches(q, p) for q in patterns)]
