"""The pyDatalog backend: compiles analysed rules to pyDatalog clauses and evaluates queries in isolation.

pyDatalog keeps one global database per thread. judgelog never hands it rule *text* (``load()`` executes
Python); it builds engine clauses from the syntax tree, with every predicate name mangled to
``j<engine id><random hex>_<name>`` so that builtins such as ``type`` are never called and several engines
share one database without seeing each other's predicates.

Isolation of states: each state is a Python value (a frozenset of fact tuples). Before any question the
backend *materialises* the asked state in the thread's database by a diff against what is there now, so
consecutive states (an action and the next) cost only their difference, and two states can never see each
other's facts. The database judgelog uses is its own: a user's ``Logic()`` calls in the same thread are
saved and restored around every operation.

Aggregates (``sum``, ``count``, ``min``, ``max`` in a head) are computed by the backend after the facts are
materialised, stratum by stratum, over the distinct bindings of the body, and asserted as facts.

Binding patterns: pyDatalog evaluates a rule body left to right, whatever the call. A rule such as
``blocked_by(A, B) :- band_mate(A, C), blocking(B, C)`` is fast when asked with A known and quadratic when
asked with B known (every band_mate pair is enumerated for each blocker). So every derived predicate is
compiled, on first use and once per thread, in one variant per *binding pattern* it is called with
(``j1_blocked_by@fb@1``: second argument known): the variant's rule bodies are reordered so that checks
(literals whose arguments are all known, negations once their variables are bound) come first, then the
literals with the fewest unknown arguments, otherwise as written. Queries, proofs and aggregates call
these variants. Facts given for a derived predicate live in ``<name>@edb``, bridged into every variant.

Pruning: a variant is compiled for a *namespace* (the last number of its name identifies what of the
namespace its predicate can reach: judgelog.variants). A namespace stands for the states in
which the same fact atoms of the rule bodies (predicate plus constant arguments, e.g.
``name(S, "Trusted Forcemage")``) have no matching fact: the rules such an atom makes impossible, and
the derived predicates left with no possible rule, are omitted, and ``not`` of them is dropped as true.
Counts of the facts per predicate (and per constant at the positions rules test) are kept up to date by
the diff, so finding a state's namespace costs one pass over those atoms; a board pays only for the
rules its facts can trigger. Within a namespace, a call to a derived predicate with one possible rule and
no facts of its own is replaced by that rule's body (unfolding; one subgoal less per call). At most
judgelog.liveness._MAX_NAMESPACES namespaces are kept per thread; when the least recently used one is dropped,
the variants no other namespace uses are retracted.
Measurements: docs/performance.md (bench/run.py).

Set-at-a-time questions: a question with a variable bound to a set of ``SETWISE_VALUES`` values or more, and
every question on a board of ``SETWISE_FACTS`` facts or more (now every board), is answered by
judgelog.setwise (each rule body evaluated once for the whole set of values it is called with, over the
state's facts by predicate and the computed facts) instead of pyDatalog's subgoal per value; a body it
cannot plan goes top-down as before.
``Backend(incremental=False)`` always asks top-down. Proofs (``why_rows``), ``ask_atom`` with a constant or a
repeated variable (``holds``) and the aggregates' and recursive components' bodies stay on pyDatalog; a whole
predicate (``ask_atom`` with distinct variables, ``State.derived_all``) is a question like any other.

Parts: a :class:`~judgelog.compiled.CompiledProgram`, built once from the program and immutable (which
predicates pyDatalog derives and which the backend computes, the probes, the rules' positions and proof
variables); a :class:`~judgelog.liveness.Liveness` (fact counts and namespaces) and a
:class:`~judgelog.variants.Variants` (names, planning, variants, unfolding) that read it. The backend itself
holds the sessions: one view per thread (judgelog.threadview), the diff that materialises a state, the
computed facts (judgelog.materialise, for which it is the ``Store``), and the questions.
"""

from __future__ import annotations

import itertools
import secrets
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pyDatalog.pyEngine as _E

from .analysis import order_body
from .ast import Atom, Const, Negation, Rule, Var
from .clauses import ask_literal, fact_clause, new_pred
from .compiled import CompiledProgram
from .database import THREAD, quiet_gc, release_later
from .database import our_database as _our_database
from .errors import UsageError, WordForNumber
from .estimate import counted_facts, enumerated
from .factview import as_frozenset, by_pred, difference
from .incremental import affected, reached_preds
from .liveness import Liveness
from .materialise import materialise, retract_affected, retract_computed
from .planning import Contributions, binding_pattern, checked_rows, sorted_rows
from .program import Program
from .recursion import DEFAULT_LIMITS, Limits
from .setwise import Base, Planner, Unsupported, answer
from .threadview import ThreadView
from .unread import Unread
from .variants import Variants
from .widejoins import StateCheck

__all__ = ["Backend", "quiet_gc"]

# the join checks of the last states a view held, which a new state's check may take its verdicts from: an
# action alternates between a few kinds of state (the board, the board with the action's arguments, ...)
_JOIN_CHECKS_KEPT = 4

_ENGINE_IDS = itertools.count(1)
# a question with a variable bound to a set of at least this many values is evaluated set-at-a-time
# (judgelog.setwise): one pass per rule body for the whole set, not a subgoal per value
SETWISE_VALUES = 64
# and so is every question on a board of at least this many facts: every board (replaying the bundled
# scenarios takes about a third less CPU than with pyDatalog's subgoal per value below 10,000 facts, the
# earlier setting; docs/performance.md)
SETWISE_FACTS = 0


class Backend:
    """One compiled program. Thread-safe: every thread gets its own materialisation."""

    takes_views = True  # a session's facts may be a judgelog.factview.FactView (synced by its difference)

    def __init__(self, program: Program, *, limits: Limits = DEFAULT_LIMITS, incremental: bool = True) -> None:
        self.program = program
        self.limits = limits
        self.incremental = incremental  # after a small change, recompute only what it can affect
        self.id = next(_ENGINE_IDS)
        # unguessable per engine: pyDatalog's resolvers (@pyDatalog.predicate) are process-wide and keyed by
        # name, so a predictable name would let a user's function answer for judgelog's predicates
        self.prefix = f"j{self.id}{secrets.token_hex(6)}_"
        self.compiled = CompiledProgram.of(program)
        self.liveness = Liveness(self.compiled)
        self.variants = Variants(self.compiled, self.liveness, prefix=self.prefix, limits=limits)
        self.aggregates: dict[int, dict[tuple, Contributions]] = {}  # per view (its id): fact -> contributions
        # what judgelog.materialise reads (its Store): the computed predicates in order, and where values are
        # counted (computed facts are counted there too)
        self.materialise_order = self.compiled.materialise_order
        self.count_positions = self.compiled.probe_positions
        # facts no rule reads wait outside pyDatalog until a question names their predicate (judgelog.unread);
        # Backend(incremental=False) asserts every fact, as before
        self.unread = Unread(program) if incremental else None
        self.planner = Planner(self.compiled, int_digits=limits.int_digits)  # set-at-a-time plans (judgelog.setwise)
        # facts computed or stated by the rule files, besides those given: their indexes are made again
        self._mixed = self.compiled.computed_preds | {f[0] for f in program.fact_rules}

    def pname(self, pred: str) -> str:
        return self.variants.pname(pred)

    def fact_pred(self, view: ThreadView, pred: str) -> Any:  # a pyDatalog predicate
        return self.variants.fact_pred(view, pred)

    # -- per-thread setup ------------------------------------------------
    def _view(self) -> ThreadView:
        view = THREAD.engines.get(self.id)
        if view is None:
            view = ThreadView()
            THREAD.engines[self.id] = view
            done = weakref.finalize(self, release_later, THREAD.engines, THREAD.released, self.id, self.prefix)
            done.atexit = False  # nothing to release when the process ends (and no work at its exit)
            self._install(view)
            view.ns = self.liveness.namespace(view)
        return view

    def _install(self, view: ThreadView) -> None:
        variants, idb = self.variants, self.compiled.idb
        for pred, decl in self.program.decls.items():
            view.preds[pred] = new_pred(variants.pname(pred), decl.arity)
            view.fact_preds[pred] = view.preds[pred]
        for pred in sorted(self.compiled.edb_up_front):
            variants.fact_pred(view, pred)
        preds = view.fact_preds
        for rule in self.program.rules:  # facts written in rule files; rules are compiled as variants, on demand
            head = rule.head
            if not rule.body and rule.aggregate is None and head.pred not in idb:
                values = [a.value for a in head.args if isinstance(a, Const)]
                if len(values) == len(head.args):  # a ground fact: its predicate as made above
                    _E.assert_(fact_clause(preds[head.pred], (head.pred, *values)))
                else:
                    _E.assert_(_E.Clause(variants.literal(head), []))

    # -- materialisation -------------------------------------------------
    @contextmanager
    def session(self, facts: frozenset) -> Iterator[ThreadView]:
        """Make ``facts`` the contents of this backend's predicates for the duration of the block."""
        if _E.Python_resolvers and any(key.startswith(self.prefix) for key in _E.Python_resolvers):
            raise UsageError(
                "a pyDatalog resolver (@pyDatalog.predicate) is registered under one of this "
                "engine's predicate names; judgelog will not let it answer for its rules",
                hint="register resolvers under names of your own",
            )
        with _our_database(), quiet_gc():
            view = self._view()
            if view.facts is not facts or not view.materialised:
                self._sync(view, facts)
            yield view

    def _sync(self, view: ThreadView, facts: frozenset) -> None:
        old = view.facts if view.facts is not None else frozenset()
        view.answers.clear()
        found = difference(old, facts)  # from their bases and differences (judgelog.factview), if related
        if found is not None:
            added, removed = found
        else:
            old, facts_now = as_frozenset(old), as_frozenset(facts)
            removed = old - facts_now
            # an equal set (a new frozenset of the same facts) costs one pass: old <= facts and same size
            added = facts_now - old if len(facts_now) != len(old) - len(removed) else frozenset()
        view.facts = facts
        if not removed and not added and view.materialised:
            return
        # one predicate at a time (an action's events are thousands of facts of a few predicates)
        removed_by, added_by = by_pred(removed), by_pred(added)
        if view.setwise is not None:
            view.setwise.update(added_by, removed_by)
        changed = removed_by.keys() | added_by.keys()
        compiled = self.compiled
        redo = not view.materialised or not changed.isdisjoint(compiled.computed_inputs)
        preds = view.fact_preds
        for pred in {p for p in changed if p in compiled.idb and p not in view.edb}:
            self.variants.fact_pred(view, pred)
        # the fact counts first: which rules can fire after the change (judgelog.liveness; the computed facts
        # are counted apart, so the namespace does not depend on them)
        count, unread, deferred = self.liveness.count, self.unread, view.deferred
        given = {p for p in changed if view.counts.get(p, 0)}  # (before the change: see retract_affected)
        for pred, group in removed_by.items():
            count(view, pred, group, -1)
        for pred, group in added_by.items():
            count(view, pred, group, 1)
        was = view.ns
        if view.ns_dirty:
            view.ns = self.liveness.namespace(view)
            view.ns_dirty = False
        only = None
        relevant: list[tuple] = []
        dead: frozenset = frozenset()
        if redo and self.incremental and view.materialised:
            # only the changed facts the computed predicates read (through the rules that can fire before or
            # after the change) can affect them: the others (an action's events, mostly) are neither counted
            # nor analysed
            if was is not None and view.ns is not None:
                dead = was.dead_rules & view.ns.dead_rules if was is not view.ns else was.dead_rules
            inputs = {p for p in changed if p in compiled.computed_inputs and self._reaches_computed(p, dead)}
            relevant = [f for by in (removed_by, added_by) for p in inputs for f in by.get(p, ())]
            redo = bool(relevant)  # (none: no computed fact can change)
        if relevant and 4 * len(relevant) <= len(facts):
            # recompute only the computed facts the change can affect (judgelog.incremental; a large change
            # by its coarse shapes): the predicates it cannot reach stay as they are. A change of more than
            # a quarter of the state (another board) recomputes them all, which costs less then
            only = affected(self.program, relevant, dead=dead)
            retract_affected(self, view, only, given=given)
            view.materialised = False
        elif redo:
            retract_computed(self, view)
            view.materialised = False
        for fact in removed:
            if not (deferred and fact[0] in deferred and self._unkept(view, fact)):
                _E.retract(fact_clause(preds[fact[0]], fact))
        if unread is None:
            for fact in added:
                _E.assert_(fact_clause(preds[fact[0]], fact))
        else:
            dead = view.namespace.dead_rules
            if view.ns is not was and deferred:  # other rules can fire now: assert what they read
                before = was.dead_rules if was is not None else None
                rejudged = [
                    p for p in deferred if before is None or unread.readers(p, dead) != unread.readers(p, before)
                ]
                self._read(view, rejudged, lambda key: not unread.unread(key, dead))
            for pred, group in added_by.items():
                kept_out, read = unread.split(pred, group, dead)
                if kept_out:
                    waiting = deferred.setdefault(pred, {})
                    for key, keyed in kept_out.items():
                        if key in waiting:
                            waiting[key] |= keyed
                        else:
                            waiting[key] = keyed
                for fact in read:
                    _E.assert_(fact_clause(preds[pred], fact))
        if redo:  # only when a fact they may depend on changed (their results stay otherwise)
            if view.setwise is not None:  # the computed facts that may change
                view.setwise.forget(p for p in compiled.computed_preds if only is None or only.touches(p))
            materialise(self, view, facts, self.limits, only)  # on an error, view.materialised stays False: the
            view.materialised = True  # next question retracts the partial results and computes them again

    def _reaches_computed(self, pred: str, dead: frozenset) -> bool:
        """Can a change of ``pred``'s facts reach a computed predicate through the rules outside ``dead``?"""
        return not reached_preds(self.program, frozenset((pred,)), dead).isdisjoint(self.compiled.computed_preds)

    @staticmethod
    def _read(view: ThreadView, preds: Iterable[str], which: Callable[[tuple], bool] | None = None) -> None:
        """Assert the facts of ``preds`` kept out of pyDatalog (no rule that can fire reads them,
        judgelog.unread): a question names their predicate; or those whose key is ``which``, when other
        rules can fire now."""
        deferred = view.deferred
        for pred in preds:
            waiting = deferred.get(pred)
            if waiting is None:
                continue
            Backend._assert_kept(view, pred, [k for k in waiting if which(k)] if which is not None else list(waiting))

    @staticmethod
    def _assert_kept(
        view: ThreadView, pred: str, keys: Iterable[tuple], joined: Sequence[tuple[int, set]] | None = None
    ) -> None:
        """Assert the facts of ``pred`` kept out of pyDatalog under ``keys``; with ``joined``, only those whose
        value at each place is one of the values given with it (:meth:`Unread.joined
        <judgelog.unread.Unread.joined>`), the others staying out."""
        waiting = view.deferred[pred]
        target = view.fact_preds[pred]
        for key in keys:
            if joined is None:
                chosen: Iterable[tuple] = waiting.pop(key)
            else:
                kept_out = waiting[key]
                chosen = [f for f in kept_out if all(f[i + 1] in values for i, values in joined)]
                kept_out.difference_update(chosen)
                if not kept_out:
                    del waiting[key]
            for fact in chosen:
                _E.assert_(fact_clause(target, fact))
        if not waiting:
            del view.deferred[pred]

    def _unkept(self, view: ThreadView, fact: tuple) -> bool:
        """Drop a removed fact from those kept out of pyDatalog; False when it was not kept out."""
        waiting = view.deferred[fact[0]]
        key = self.unread.key(fact) if self.unread is not None else None
        kept_out = waiting.get(key) if key is not None else None
        if kept_out is None or fact not in kept_out:
            return False
        kept_out.discard(fact)
        if not kept_out:
            del waiting[key]  # type: ignore[arg-type]  # (not None: kept_out was found by it)
            if not waiting:
                del view.deferred[fact[0]]
        return True

    def _read_for(self, view: ThreadView, atoms: Sequence[Atom], positive: Sequence[Atom] = ()) -> None:
        """Assert the facts kept out of pyDatalog that a question's atoms may match: of those, only the ones
        whose values its ``positive`` atoms over given facts can join (a question reading the events of
        attacks that are recent does not need the thousands of recent events of a proliferate)."""
        unread, deferred = self.unread, view.deferred
        for atom in atoms:
            waiting = deferred.get(atom.pred)
            if waiting is not None and unread is not None:
                keys = unread.fitting(waiting, atom, view.unfit)
                if not keys:
                    continue
                joined = None
                if positive:
                    joined = unread.joined(atom, positive, self._base(view))
                self._assert_kept(view, atom.pred, keys, joined)

    @staticmethod
    def prepare(view: ThreadView, preds: Iterable[str]) -> None:
        """Nothing to do: a session computes every predicate of the state (the clingo backend grounds the
        rules of ``preds`` here)."""

    def aggregate_contributions(self, view: ThreadView, fact: tuple) -> Contributions | None:
        return self.aggregates.get(id(view), {}).get(fact)

    def aggregate_facts(self, view: ThreadView, rule: Rule) -> set[tuple]:
        """The facts an aggregate rule derives in the materialised state."""
        return {f for f, contributions in self.aggregates.get(id(view), {}).items() if contributions.rule is rule}

    @staticmethod
    def derivation(view: ThreadView, fact: tuple) -> tuple[Rule, dict] | None:
        """The rule and body binding that first derived a fact of a recursive predicate."""
        return view.derivations.get(fact)

    # -- asking ----------------------------------------------------------
    def _check_joins(
        self, view: ThreadView, body: Sequence = (), preds: Sequence[str] = (), *, rule: Rule | None = None
    ) -> None:
        """Refuse (L004) a question whose body, or a rule it may reach, would enumerate more combinations
        of unconnected parts than the limit (judgelog.widejoins); ``rule``: ``body`` is that rule's (checked
        once per state)."""
        limit = self.limits.join_combinations
        if limit is None:
            return
        # once per state, and once more when its computed facts are complete (during judgelog's fixpoints,
        # the sizes of what they compute stay those of the round the check was made in: never larger)
        key = (view.facts, view.materialised)
        if view.joins is None or view.joins[0] is not key[0] or view.joins[1] != key[1]:
            # the sizes now: a fixpoint goes on computing (its counts are copied); a materialised state's stay
            counts = view.computed_counts if view.materialised else dict(view.computed_counts)
            compiled, given = self.compiled, view.counts

            def count(pred: str, values: tuple) -> int:  # the facts with the values, where counted
                return counted_facts(compiled, given, counts, pred, values)

            dead = view.ns.dead_rules if view.ns is not None else ()
            recent = view.joins[3] if view.joins is not None else ()
            check = StateCheck(compiled.joins, count, compiled.computed_preds, limit, dead, previous=recent)
            view.joins = (key[0], key[1], check, (check, *recent[: _JOIN_CHECKS_KEPT - 1]))
        check = view.joins[2]
        if rule is not None and id(rule) in check.rules_checked:
            return
        atoms = [lit.atom if isinstance(lit, Negation) else lit for lit in body]
        check.check(list(preds) + [a.pred for a in atoms if isinstance(a, Atom)], body=body)
        if rule is not None:
            check.rules_checked.add(id(rule))

    def ask_body(
        self, view: ThreadView, body: Sequence, names: Sequence[str], among: Mapping[str, frozenset] | None = None
    ) -> list[tuple]:
        """All distinct bindings of ``names`` satisfying ``body`` (already in evaluation order); ``among``:
        variables bound to one of a set of values each, before the body (pyDatalog's ``in``)."""
        if view.deferred:
            atoms = [lit.atom if isinstance(lit, Negation) else lit for lit in body]
            self._read_for(view, [a for a in atoms if isinstance(a, Atom)], [a for a in body if isinstance(a, Atom)])
        planned = self.variants.plan(view, body, tuple(among or ()), now=True)
        if planned is None:  # a positive literal cannot hold in this state (nothing is evaluated)
            return []
        self._check_joins(view, body)
        qname = f"{self.prefix}_q{next(view.query_ids)}"
        new_pred(qname, len(names))
        head = _E.Literal(qname, [_E.Var(n) for n in names])
        if among:
            planned = [_E.Literal("_pyD_in", [_E.Var(n), _E.Const(tuple(vs))]) for n, vs in among.items()] + planned
        clause = _E.Clause(head, planned)
        self.variants.compile_pending(view)
        _E.assert_(clause)
        try:
            result = ask_literal(head)
        finally:
            _E.retract(clause)
            _E.remove(_E.Pred(qname, len(names)))
        if result is True or result is None:
            return []
        return checked_rows([tuple(row) for row in result])

    def dead_rules(self, facts: frozenset, at_once: bool) -> frozenset[int] | None:
        """The ids of the rules that cannot fire over ``facts`` (judgelog.liveness); ``at_once``: only when
        this thread's database holds them now (None otherwise), else after making them its own."""
        if at_once:
            view = getattr(THREAD, "engines", {}).get(self.id)
            if view is None or view.facts is not facts or view.ns is None:
                return None
            return view.ns.dead_rules
        with self.session(facts) as view:
            return view.ns.dead_rules if view.ns is not None else None

    def dead_rules_after(self, dead: frozenset, added: Mapping[str, Sequence[tuple]]) -> frozenset[int] | None:
        """Some of the rules that cannot fire over a fact set that adds ``added`` (by predicate) to one (and
        removes any) over
        which the rules of ``dead`` cannot, found by this thread's database or by this method
        (:meth:`Liveness.dead_after <judgelog.liveness.Liveness.dead_after>`), without making it its own; None
        when ``dead`` is neither."""
        view = getattr(THREAD, "engines", {}).get(self.id)
        if view is None:
            return None
        ns = view.ns if view.ns is not None and view.ns.dead_rules is dead else None
        if ns is None:
            ns = next((n for n in view.namespaces.values() if n.dead_rules is dead), None)
        return self.liveness.dead_after(dead, added, ns)

    asks_among = True  # ask() takes ``among`` (judgelog.answer_cache.AnswerCache asks about a set of objects)

    def ask(
        self, view: ThreadView, body: Sequence, names: Sequence[str], among: Mapping[str, frozenset] | None = None
    ) -> list[tuple]:
        """Sorted distinct rows of ``names`` for ``body``; ``among``: variables bound to one of a set of values
        each. pyDatalog evaluates the body once per value then, so the sets are used only when they hold
        fewer values than the body would enumerate without them (:func:`judgelog.estimate.enumerated`):
        otherwise the body is asked with those variables open (its rows are still answers)."""
        if among:
            among = {v: vs for v, vs in among.items() if 2 * len(vs) < enumerated(self.compiled, view, body, v)} or None
        ordered, _ = order_body(body)
        if self.incremental and (
            len(view.facts or ()) >= SETWISE_FACTS or among and max(len(vs) for vs in among.values()) >= SETWISE_VALUES
        ):
            found = self._setwise(view, ordered, names, among)
            if found is not None:
                return found
        return sorted_rows(set(self.ask_body(view, ordered, names, among)))

    def ask_computing(self, view: ThreadView, body: Sequence, names: Sequence[str]) -> list:
        """The rows of a body asked while the computed facts are made (judgelog.materialise): set-at-a-time where
        it can be planned (the indexes take each fact as it is computed: judgelog.setwise.Base.computed), else
        top-down."""
        if any(isinstance(lit, Atom) and self.liveness.dead(view, lit, True) for lit in body):
            return []  # a positive literal can have no instance (as Variants.plan finds for ask_body)
        if self.incremental and len(view.facts or ()) >= SETWISE_FACTS:
            found = self._setwise(view, body, names, None)
            if found is not None:
                return found
        return self.ask_body(view, body, names)

    def _base(self, view: ThreadView) -> Base:
        """The view's facts by predicate (judgelog.setwise), made on first use and kept up to date by the sync."""
        if view.setwise is None:
            view.setwise = Base(view.facts or (), mixed=self._mixed)
        return view.setwise

    def _setwise(
        self, view: ThreadView, ordered: Sequence, names: Sequence[str], among: Mapping[str, frozenset] | None
    ) -> list[tuple] | None:
        """The rows of a body (in evaluation order) evaluated set-at-a-time (judgelog.setwise); None when it
        cannot plan the body (it is then asked top-down)."""
        self._check_joins(view, ordered)
        base = self._base(view)
        dead = view.ns.dead_rules if view.ns is not None else frozenset()
        try:
            found = answer(self.planner, base, view.computed_by, ordered, names, among, dead=dead)
        except (Unsupported, RecursionError):
            return None
        return sorted_rows(found)

    def holds(self, view: ThreadView, atom: Atom) -> bool:
        """Is an atom (constants, possibly anonymous variables) true?"""
        return bool(self.ask_atom(view, atom))

    def ask_atom(self, view: ThreadView, atom: Atom) -> list[tuple]:
        """Rows of full argument tuples matching ``atom`` (constants and variables)."""
        if self.liveness.dead(view, atom, True):
            return []
        key = ("atom", atom)
        if key in view.answers:
            return list(view.answers[key])
        names = [a.name for a in atom.args if isinstance(a, Var) and not a.anonymous]
        if self.incremental and len(names) == len(atom.args) and len(set(names)) == len(names):
            # a whole predicate (State.derived_all): set-at-a-time, as a question (Engine(incremental=False)
            # asks pyDatalog, which tests/test_incremental.py compares it with, state by state)
            found = self._setwise(view, (atom,), names, None)
            if found is not None:
                if view.materialised:
                    view.answers[key] = tuple(found)
                return found
        if view.deferred:
            self._read_for(view, [atom])
        self._check_joins(view, preds=[atom.pred])
        variants = self.variants
        name = variants.variant(view, atom.pred, binding_pattern(atom, set()))
        variants.compile_pending(view)
        result = ask_literal(_E.Literal(name, [variants.term(a) for a in atom.args]))
        rows = [] if not result or result is True else sorted_rows(set(tuple(r) for r in result))
        if view.materialised:
            view.answers[key] = tuple(rows)
        return rows

    def why_rows(self, view: ThreadView, rule: Rule, fixed: dict[str, object], limit: int = 64) -> list[dict]:
        """Bindings of all of ``rule``'s body variables given some of them (for proofs)."""
        names = self.compiled.rule_index.why_names[id(rule)]
        key = ("why", id(rule), tuple(sorted(fixed.items())), limit)
        rows = view.answers.get(key)
        if rows is None:
            self._check_joins(view, self.program.body(rule), rule=rule)
            name = self.variants.why_variant(view, rule, tuple(n in fixed for n in names))
            self.variants.compile_pending(view)
            terms = [_E.Const(fixed[n]) if n in fixed else _E.Var(n) for n in names]
            try:
                result = ask_literal(_E.Literal(name, terms))
            except WordForNumber:  # a word fixed where the rule compares numbers: it derives nothing with it
                if not any(isinstance(v, str) for v in fixed.values()):  # (an instance id asked of a rule
                    raise  # that numbers the instances); a word of the state itself is the rules' error
                result = None
            rows = () if not result or result is True else tuple(sorted_rows(set(tuple(r) for r in result))[:limit])
            if view.materialised:
                view.answers[key] = rows
        return [dict(zip(names, row)) for row in rows]
