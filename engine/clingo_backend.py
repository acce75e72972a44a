"""The clingo backend: the same analysed program evaluated by clingo (``Engine(backend="clingo")``).

It answers the same questions as the pyDatalog backend (:mod:`judgelog.backend`), with the same results
and order, so states, proofs, why-not, the runtime, ``choices``, ``audit``, ``graph`` and ``test`` run on
either. The rules are compiled by :mod:`judgelog.asp`.

Evaluation: one clingo ``Control`` per state (the last few are kept). The state's facts are ground first;
each question then grounds, in the same control, only the rules of the predicates it depends on that are
not ground yet (a program slice; clingo grounds bottom-up, and some predicates of the library pair every
two creatures, so grounding the whole library for a question about one creature would cost the square of
the board). The rules are stratified (judgelog's analysis refuses any other program), so grounding alone
decides every atom: relations are read from the ground atoms that are facts (a solve is needed only if
one is not), and the question itself, a conjunction, is joined over them (:mod:`judgelog.joins`): a
ground step per question would cost milliseconds each, in proportion to the program.

Aggregates are clingo's (``#sum``, ``#count``, ``#min``, ``#max`` over the distinct bindings of the body);
the bindings that make one value (shown in proofs) are asked as an ordinary question.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from itertools import islice
from typing import TYPE_CHECKING

from .analysis import bound_after, order_body
from .asp import (
    CLINGO_INT_BOUND,
    OVERFLOW_PRED,
    AspNames,
    bridge,
    check_rule_ints,
    compile_constraint,
    compile_facts,
    compile_rule,
    derived_with_facts,
    overflow_refused,
    overflow_rules,
)
from .asp_bounds import Magnitudes
from .ast import Aggregate, Atom, Comparison, Const, Negation, Rule, Var
from .clingo_atoms import atom_texts, every_atom_text
from .codes import L001
from .compiled import CompiledProgram
from .database import quiet_gc
from .errors import LimitError
from .extras import require
from .joins import Relations, answers
from .planning import Contributions, aggregate_value, group_by_head, sorted_rows
from .program import Program
from .project import narrow, projected_body, projected_head, projected_name, single_places
from .recursion import DEFAULT_LIMITS, Limits, growing_values
from .specialise import Request, Specialiser
from .unfold import unfold

if TYPE_CHECKING:
    import clingo

__all__ = ["ClingoBackend"]

_KEPT_STATES = 4  # controls kept (the runtime asks about a state and the next one in turn)
_FACTS_PER_ADD = 4096  # facts given to clingo in one piece of text (judgelog.asp.compile_facts)
_KEPT_FACT_TEXTS = 500_000  # facts whose ASP text is kept
_KEPT_SLICES = 64  # slices' texts kept (by the question's predicates, the dead rules and what is ground)
_READ_ALL_FROM = 16  # prepare reads every atom in one pass for this many predicates or more
_UNFOLD_RULES = 4  # a predicate read at one place is unfolded into its reader if it has at most this many rules
# a rule as written in a slice: the rule, its number, its text and its overflow tests' (None: to compile; "": none)
_Written = tuple[Rule, int, "str | None", "str | None"]


class _View:
    """One state in one clingo control."""

    __slots__ = ("facts", "ctl", "names", "ground", "serial", "answers", "contributions", "relations", "dead")

    def __init__(self, facts: frozenset, ctl: clingo.Control, names: AspNames) -> None:
        self.facts = facts
        self.ctl = ctl
        self.names = names
        self.ground: set[str] = set()  # predicates whose rules are ground in ctl
        self.serial = 0
        self.answers: dict[tuple, list[tuple]] = {}
        self.contributions: dict[tuple, Contributions | None] = {}
        self.relations: Relations | None = None
        self.dead: frozenset[int] | None = None  # ids of the rules that cannot fire in the state (found once)


class ClingoBackend:
    """One compiled program evaluated with clingo. Thread-safe (one question at a time per backend)."""

    name = "clingo"

    def __init__(self, program: Program, *, limits: Limits = DEFAULT_LIMITS) -> None:
        self._clingo = require("clingo", extra="clingo", purpose="the clingo backend (--backend clingo)")
        check_rule_ints(program.rules, CLINGO_INT_BOUND)
        self.program = program
        self.limits = limits  # a query's arithmetic is Python's (judgelog.joins): Limits.int_digits bounds it
        self.compiled = CompiledProgram.of(program)  # which rules can fire in a state (judgelog.liveness)
        self.rule_index = self.compiled.rule_index  # rule numbers and proof variables, as the pyDatalog backend's
        # id of a rule (or of the rule it is specialised from, and the specialised name) -> the rule in ASP and
        # its overflow tests, what it reads specialised and what whole
        self._text: dict[int | tuple[int, str], tuple[str, str, Rule, list[Request], list[str]]] = {}
        # recursive rules making new numbers (N = M + 1): ground with a bound on them, GROWTH_BOUND (clingo
        # grounds a recursion whole and can't be stopped midway, as the default backend's Limits stop it)
        self._growing = growing_values(program)
        self._fact_texts: dict[tuple, str] = {}  # a fact -> its arguments in ASP (states share most facts)
        # a body atom with a constant reads a predicate specialised to it (clingo would derive it whole)
        self._special = Specialiser(program, eligible=lambda pred: pred not in self.compiled.recursive)
        self._lock = threading.RLock()
        self._views: OrderedDict[frozenset, _View] = OrderedDict()
        self._bounds: OrderedDict[frozenset[int], Magnitudes] = OrderedDict()  # by the rules that cannot fire
        # by question, dead rules and what is ground: a slice's text, the predicates it grounds, those it leaves
        # to a later question (see _slice)
        self._slices: OrderedDict[tuple, tuple[str, frozenset[str], frozenset[str]]] = OrderedDict()

    # -- states ------------------------------------------------------------
    @contextmanager
    def session(self, facts: frozenset) -> Iterator[_View]:
        # no cyclic collection while a state is evaluated, as on the pyDatalog backend: reading atoms back
        # and joining them makes many short-lived objects and no cycles worth collecting meanwhile
        with self._lock, quiet_gc():
            view = self._views.pop(facts, None)
            if view is None:
                view = self._new_view(facts)
            self._views[facts] = view
            while len(self._views) > _KEPT_STATES:
                self._views.popitem(last=False)
            yield view

    def clear(self) -> None:
        """Forget every state's ground program (the next question about a state grounds it again)."""
        with self._lock:
            self._views.clear()

    def _new_view(self, facts: frozenset) -> _View:
        ctl = self._clingo.Control(["--warn=none"])
        names = AspNames(derived_with_facts=derived_with_facts(self.program, facts))
        if len(self._fact_texts) > _KEPT_FACT_TEXTS:  # a long-lived process seeing many boards: start again
            self._fact_texts.clear()
        # "#show.": atoms are read from the grounder's atom base (judgelog.clingo_atoms), never from a model's
        # shown symbols; showing nothing spares every ground call the output table (about a fifth of its time)
        # the facts handed over in slices: a large board's whole text is never held at once
        ctl.add("base", [], "#show.")
        it = iter(facts)
        while chunk := list(islice(it, _FACTS_PER_ADD)):
            ctl.add("base", [], compile_facts(chunk, names=names, texts=self._fact_texts, int_bound=CLINGO_INT_BOUND))
        ctl.ground([("base", [])])
        view = _View(facts, ctl, names)
        arity = {pred: decl.arity for pred, decl in self.program.decls.items()}
        view.relations = Relations(
            lambda pred: self._read(view, names.pred(pred), arity[pred]), int_digits=self.limits.int_digits
        )
        return view

    def _rule_text(self, rule: Rule, key: int | tuple[int, str]) -> tuple[str, str, Rule, list[Request], list[str]]:
        """``rule`` (an original, or one specialised from it) in ASP, its overflow tests, the rule with its
        body's atoms with constants specialised; the specialised predicates it reads, and those it reads whole
        (cached under ``key``)."""
        found = self._text.get(key)
        if found is None:
            index = self.rule_index.position[key if isinstance(key, int) else key[0]]
            grown = self._growing.get(id(rule), ())
            rewritten, wanted, whole = self._special.rewrite(rule)
            text = "\n".join(
                t
                for t in (
                    compile_rule(_bounded(rewritten, grown), index, overflow_test=True),
                    *(compile_rule(past, index) for var in grown for past in _past(rewritten, var, index)),
                )
                if t
            )
            found = self._text[key] = (text, overflow_rules(rewritten, index), rewritten, wanted, whole)
        return found

    def _live_rules(self, name: str, dead: frozenset[int]) -> list[tuple[Rule, Rule, int | tuple[int, str]]]:
        """The rules of ``name`` (a predicate, or one specialised) but the ``dead`` ones: each original, the
        rule for ``name`` and the key of its text."""
        pred, consts = self._special.request(name)
        live = [rule for rule in self.program.rules_by_head.get(pred, ()) if id(rule) not in dead]
        if not consts:
            return [(rule, rule, id(rule)) for rule in live]
        return [(original, rule, (id(original), name)) for original, rule in self._special.rules(pred, consts, live)]

    def _magnitudes(self, dead: frozenset[int]) -> Magnitudes:
        """Bounds of the numbers of the rules that can fire (``dead`` left out), for leaving out overflow
        tests that cannot hold (judgelog.asp_bounds)."""
        found = self._bounds.pop(dead, None)
        if found is None:
            found = Magnitudes(
                lambda name: [self._rule_text(rule, key)[2] for _, rule, key in self._live_rules(name, dead)],
                recursive=self.compiled.recursive,
                fact_bound=CLINGO_INT_BOUND,
            )
        self._bounds[dead] = found
        while len(self._bounds) > _KEPT_STATES:
            self._bounds.popitem(last=False)
        return found

    def _rules_of(self, name: str, live: list, bounds: Magnitudes, unfolded: Callable) -> list[_Written]:
        """The ``live`` rules of ``name`` as they are written: with the atoms of the predicates ``unfolded``
        gives rules for unfolded (judgelog.unfold); each with its number, its text if nothing was unfolded,
        and its overflow tests where ``bounds`` leave some doubt."""
        out: list[_Written] = []
        for _, rule, key in live:
            text, overflow, rewritten, _, _ = self._rule_text(rule, key)
            index = self.rule_index.position[key if isinstance(key, int) else key[0]]
            made = unfold(rewritten, unfolded) if rewritten.aggregate is None else [rewritten]
            if len(made) == 1 and made[0] is rewritten:  # nothing unfolded
                out.append((rewritten, index, text, overflow if overflow and not bounds.safe(rewritten) else ""))
            else:
                out.extend((one, index, None, "" if bounds.safe(one) else None) for one in made)
        return out

    def _dead(self, view: _View) -> frozenset[int]:
        """The rules that cannot fire in the view's state: one of their positive atoms has no matching fact,
        or reads a derived predicate none of whose rules can fire (as the pyDatalog backend prunes). clingo
        grounds bottom-up whatever it is given, so a question leaves these out, and what only they read."""
        if view.dead is None:
            view.dead = self.compiled.liveness(*self.compiled.dead_probes(view.facts))[1]
        return view.dead

    def _slice(self, view: _View, preds: Iterable[str]) -> str:
        """The rules not ground yet of every predicate ``preds`` depend on through rules that can fire in the
        state (those predicates are marked ground). Kept for the next state asked the same with the same rules
        dead (the runtime asks each new state its questions again)."""
        wanted, dead = frozenset(preds), self._dead(view)
        key = (wanted, dead, view.names.derived_with_facts, frozenset(view.ground))
        found = self._slices.pop(key, None)
        if found is None:
            before = set(view.ground)
            text = self._closure_text(sorted(wanted), view.names, dead, view.ground)
            found = (text, frozenset(view.ground - before), frozenset(before - view.ground))
        else:
            view.ground.difference_update(found[2])
            view.ground.update(found[1])
        self._slices[key] = found
        while len(self._slices) > _KEPT_SLICES:
            self._slices.popitem(last=False)
        return found[0]

    def _closure_text(self, preds: Iterable[str], names: AspNames, dead: frozenset[int], done: set[str]) -> str:
        """The rules of ``preds`` and of every predicate they read through rules not ``dead``, but those
        ``done`` (which gains them); where a rule reads a predicate with constants, that predicate's rules
        specialised to them (judgelog.specialise). A predicate of the slice read at one place only, by a
        plain rule, or whose few rules are narrow and read only by plain rules, is unfolded into its readers
        (judgelog.unfold), and not ground; one whose readers all leave some of its places unused is ground
        projected to the others (judgelog.project)."""
        preds = list(preds)
        todo: list[tuple[str, str, tuple]] = [(p, p, ()) for p in preds]
        bounds = self._magnitudes(dead)
        found: dict[str, tuple[str, tuple, list]] = {}
        reads: Counter[str] = Counter({p: 2 for p in preds})  # a question's own predicate is ground
        while todo:
            name, pred, consts = todo.pop()
            if name in done:
                continue
            done.add(name)
            live = found.setdefault(name, (pred, consts, self._live_rules(name, dead)))[2]
            for _, rule, key in live:
                _, _, rewritten, wanted, whole = self._rule_text(rule, key)
                todo.extend(wanted)
                todo.extend((p, p, ()) for p in whole)
                plain = self._plain(rewritten)
                for lit in rewritten.body:
                    if isinstance(lit, (Atom, Negation)):  # read under not, or by an aggregate: ground
                        reads[lit.pred if isinstance(lit, Atom) else lit.atom.pred] += (
                            1 if plain and isinstance(lit, Atom) else 2
                        )
        shapes = single_places(
            (self._rule_text(rule, key)[2] for _, _, live in found.values() for _, rule, key in live), self._plain
        )
        once = {
            name
            for name, (pred, _, live) in found.items()
            if name not in preds
            and self._unfoldable(pred, live, names)
            and (reads[name] == 1 or shapes.get(name) is not None and all(narrow(r) for _, r, _ in live))
        }
        made: dict[str, list[Rule] | None] = {}

        def unfolded(name: str) -> list[Rule] | None:
            if name not in once:
                return None
            if name not in made:
                made[name] = None  # (no cycle: an unfoldable predicate is not recursive)
                rules = [self._rule_text(rule, key)[2] for _, rule, key in found[name][2]]
                made[name] = [one for rule in rules for one in unfold(rule, unfolded)]
            return made[name]

        written = {name: self._rules_of(name, found[name][2], bounds, unfolded) for name in found if name not in once}
        needed = _still_read(written.values(), once)  # unfolding stopped short (too many rules): ground it
        while needed:
            for name in needed:
                written[name] = self._rules_of(name, found[name][2], bounds, unfolded)
            once -= needed
            needed = _still_read(written.values(), once)
        done.difference_update(once)  # not ground: a later question about one of them grounds it
        return self._write(written, found, names, done, preds)

    def _write(
        self, written: dict[str, list[_Written]], found: dict, names: AspNames, done: set[str], preds: Iterable[str]
    ) -> str:
        """The text of the ``written`` rules (of the predicates ``found``), a predicate read by none of them
        but with some of its places unused projected to the others (judgelog.project; ``done`` gains the
        projected name instead of the predicate's)."""
        shapes = single_places((r[0] for rules in written.values() for r in rules), self._plain)
        projected: dict[str, tuple[str, tuple[int, ...]]] = {}
        for name in set(written) - set(preds):
            pred, _, live = found[name]
            single = shapes.get(name)
            if single and self._projectable(pred, live, names):
                kept = tuple(i for i in range(len(live[0][1].head.args)) if i not in single)
                projected[name] = (projected_name(name, kept), kept)
        parts: list[str] = []
        for name, rules in written.items():
            pred, consts, _ = found[name]
            target = projected.get(name)
            if target is not None:
                done.discard(name)
                if target[0] in done:  # ground by an earlier question: read only
                    continue
                done.add(target[0])
            for rule, index, text, tests in rules:
                one = projected_body(rule if target is None else projected_head(rule, *target), projected)
                if one is not rule:
                    text, tests = None, None if tests is None or tests else ""
                parts.append(compile_rule(one, index) if text is None else text)
                parts.append(overflow_rules(one, index) if tests is None else tests)
            if pred in names.derived_with_facts:
                parts.append(bridge(pred, self.program.decls[pred].arity, names=names, consts=consts, name=name))
        return "\n".join(p for p in parts if p)

    def _plain(self, rule: Rule) -> bool:
        """No aggregate, not recursive: a rule whose positive atoms may be unfolded or projected."""
        return rule.aggregate is None and rule.head.pred not in self.compiled.recursive

    def _projectable(self, pred: str, live: list, names: AspNames) -> bool:
        """A predicate whose rules can be ground projected: plain rules, not recursive, no facts given for it."""
        return (
            bool(live)
            and pred not in self.compiled.recursive
            and pred not in names.derived_with_facts
            and all(r.aggregate is None and all(isinstance(a, (Var, Const)) for a in r.head.args) for _, r, _ in live)
        )

    def _unfoldable(self, pred: str, live: list, names: AspNames) -> bool:
        """A predicate whose rules can take the place of its atom in a rule's body: a few plain rules, not
        recursive, no facts given for it."""
        return (
            pred not in self.compiled.recursive
            and pred not in names.derived_with_facts
            and 1 <= len(live) <= _UNFOLD_RULES
            and all(r.aggregate is None and all(isinstance(a, (Var, Const)) for a in r.head.args) for _, r, _ in live)
        )

    def _ground(self, view: _View, preds: Iterable[str]) -> None:
        text = self._slice(view, preds)
        if not text:
            return
        view.serial += 1
        part = f"p{view.serial}"
        view.ctl.add(part, [], text)
        view.ctl.ground([(part, [])])
        # a recursive rule's new numbers passed the bound (what it would ground has no end in sight), or a sum
        # or product passed 32 bits, which clingo wraps (the answers would be wrong): refused, naming the rule
        for flag, refused in ((GROWN_PRED, grown_refused), (OVERFLOW_PRED, overflow_refused)):
            flagged, _ = atom_texts(view.ctl, flag, 1)
            if flagged:
                self.clear()
                raise refused(self.program.rules[int(flagged[0].split("(")[1].rstrip(")"))])  # by its position

    def prepare(self, view: _View, preds: Iterable[str]) -> None:
        """Ground, in one go, the rules of every predicate the questions about ``preds`` will read: each ground
        call costs clingo time in proportion to what is ground already, so a caller about to ask about many
        predicates of one state (every declared predicate's facts, a combat graph) saves a call per
        predicate."""
        with self._lock:
            wanted = list(preds)
            self._ground(view, wanted)
            if len(wanted) >= _READ_ALL_FROM:  # every atom in one pass, not one signature at a time
                assert view.relations is not None  # set by _new_view
                found = every_atom_text(view.ctl)
                for pred in wanted:
                    texts = found.get(view.names.pred(pred), [])
                    if texts is not None:  # else some atom is undecided: read (and solved) on its own
                        view.relations.provide(pred, AspNames.rows(texts))

    def _read(self, view: _View, name: str, arity: int) -> list[tuple]:
        value = AspNames.value
        texts, undecided = atom_texts(view.ctl, name, arity)
        rows = AspNames.rows(texts)
        if undecided:  # not expected of a stratified program: let the solver decide
            rows = []
            with view.ctl.solve(yield_=True) as handle:
                for model in handle:
                    rows = [
                        tuple(value(a) for a in s.arguments)
                        for s in model.symbols(atoms=True)
                        if s.name == name and len(s.arguments) == arity
                    ]
                    break
        return rows

    # -- questions ---------------------------------------------------------
    def ask(self, view: _View, body: Sequence, names: Sequence[str]) -> list[tuple]:
        """All distinct bindings of ``names`` satisfying ``body``, sorted as the pyDatalog backend does."""
        key = (tuple(body), tuple(names))
        rows = view.answers.get(key)
        if rows is None:
            self._ground(
                view,
                {
                    (lit.atom if isinstance(lit, Negation) else lit).pred
                    for lit in body
                    if isinstance(lit, (Atom, Negation))
                },
            )
            ordered, _ = order_body(body)
            assert view.relations is not None  # set by _new_view
            rows = sorted_rows(answers(view.relations, ordered, names))
            view.answers[key] = rows
        return list(rows)

    def holds(self, view: _View, atom: Atom) -> bool:
        return bool(self.ask(view, (atom,), []))

    def ask_atom(self, view: _View, atom: Atom) -> list[tuple]:
        """Rows of full argument tuples matching ``atom`` (constants and variables)."""
        named = [a.name for a in atom.args if isinstance(a, Var) and not a.name.startswith("_")]
        if len(named) == len(set(named)) and all(isinstance(a, Var) for a in atom.args):
            # the whole relation (every declared predicate's facts, as State.derived_all asks): no join
            if atom.pred not in view.ground:  # (derived_all prepared them all at once)
                self._ground(view, (atom.pred,))
            assert view.relations is not None  # set by _new_view
            return sorted_rows(set(view.relations.rows(atom.pred)))
        names = [f"V{i}" for i in range(atom.arity)]
        pattern = Atom(atom.pred, tuple(Var(n) for n in names))
        test = tuple(
            Comparison("=", Var(n), a)
            for n, a in zip(names, atom.args)
            if not isinstance(a, Var) or not a.name.startswith("_")
        )
        return self.ask(view, (pattern,) + test, names)

    def why_rows(self, view: _View, rule: Rule, fixed: dict[str, object], limit: int = 64) -> list[dict]:
        """Bindings of all of ``rule``'s body variables given some of them (for proofs)."""
        names = self.rule_index.why_names[id(rule)]
        rows = self.ask(view, _fixed(self.program.body(rule), fixed), names)[:limit]
        return [dict(zip(names, row)) for row in rows]

    # -- choices -------------------------------------------------------------
    def enumerate_subsets(
        self,
        facts: frozenset,
        candidates: Sequence[tuple],
        forbidden: Sequence,
        *,
        min_size: int = 0,
        max_size: int | None = None,
    ) -> list[frozenset[tuple]]:
        """Every subset of the ``candidates`` facts (``min_size`` to ``max_size`` of them) that, added to
        ``facts``, leaves the body ``forbidden`` without a solution: one clingo choice rule and one
        constraint, solved for all models, instead of a question per candidate subset."""
        program = self.program
        names = AspNames(derived_with_facts=derived_with_facts(program, set(facts) | set(candidates)))
        preds = {
            (lit.atom if isinstance(lit, Negation) else lit).pred
            for lit in forbidden
            if isinstance(lit, (Atom, Negation))
        }
        # a rule that cannot fire with every candidate added cannot fire with any subset of them
        dead = self.compiled.liveness(*self.compiled.dead_probes(set(facts) | set(candidates)))[1]
        chosen = [compile_facts([c], names=names)[:-1] for c in candidates]
        parts = [
            compile_facts(sorted(facts - set(candidates), key=repr), names=names),
            self._closure_text(sorted(preds), names, dead, set()),
            "{ " + "; ".join(chosen) + " }.",
            compile_constraint(tuple(forbidden)),
        ]
        count = "#count{ " + "; ".join(f"{i} : {c}" for i, c in enumerate(chosen)) + " }"
        if min_size:
            parts.append(f":- {count} < {min_size}.")
        if max_size is not None:
            parts.append(f":- {count} > {max_size}.")
        parts += ["#show."] + [f"#show {c} : {c}." for c in chosen]
        ctl = self._clingo.Control(["--warn=none", "--models=0"])
        ctl.add("base", [], "\n".join(parts))
        ctl.ground([("base", [])])
        by_symbol = {self._clingo.parse_term(c): fact for c, fact in zip(chosen, candidates)}
        out: list[frozenset[tuple]] = []
        ctl.solve(on_model=lambda model: out.append(frozenset(by_symbol[s] for s in model.symbols(shown=True))))
        return out

    # -- aggregates ----------------------------------------------------------
    def _groups(self, view: _View, rule: Rule, fixed: dict[str, object]) -> dict[tuple, list[dict]]:
        body = self.program.body(rule)
        names = sorted(bound_after(body, set()))
        return group_by_head(rule, names, self.ask(view, _fixed(body, fixed), names))

    def aggregate_contributions(self, view: _View, fact: tuple) -> Contributions | None:
        """The body bindings an aggregate fact was computed from, and the first rule that derives it."""
        if fact in view.contributions:
            return view.contributions[fact]
        out: list[dict] = []
        first: Rule | None = None
        for rule in self.program.rules_by_head.get(fact[0], ()):
            agg = rule.aggregate
            if agg is None or len(rule.head.args) != len(fact) - 1:
                continue
            fixed: dict[str, object] = {}
            for arg, value in zip(rule.head.args, fact[1:]):
                if isinstance(arg, Var):
                    if fixed.setdefault(arg.name, value) != value:
                        break
                elif isinstance(arg, Const) and arg.value != value:
                    break
            else:
                for key, bindings in self._groups(view, rule, fixed).items():
                    it = iter(key)
                    args = tuple(
                        aggregate_value(agg, bindings) if isinstance(a, Aggregate) else next(it) for a in rule.head.args
                    )
                    if (rule.head.pred,) + args == fact:
                        first = rule if first is None else first
                        out.extend(bindings)
        found = Contributions(first, out) if out else None
        view.contributions[fact] = found
        return found

    def aggregate_facts(self, view: _View, rule: Rule) -> set[tuple]:
        """The facts an aggregate rule derives in this state."""
        out = set()
        for key, bindings in self._groups(view, rule, {}).items():
            it = iter(key)
            out.add(
                (rule.head.pred,)
                + tuple(aggregate_value(a, bindings) if isinstance(a, Aggregate) else next(it) for a in rule.head.args)
            )
        return out


def _body_preds(rules: Iterable[Rule]) -> set[str]:
    """The predicates the bodies of ``rules`` read."""
    return {
        lit.pred if isinstance(lit, Atom) else lit.atom.pred
        for r in rules
        for lit in r.body
        if isinstance(lit, (Atom, Negation))
    }


def _still_read(written: Iterable[list[_Written]], names: set[str]) -> set[str]:
    """Those of ``names`` (predicates) that some of the rules ``written`` still read."""
    return {n for rules in written for n in _body_preds(r[0] for r in rules) if n in names}


def _const(value: object) -> Const:
    if not isinstance(value, (str, int)):
        raise TypeError(f"not a value of the rule language: {value!r}")
    return Const(value)


def _fixed(body: Sequence, fixed: dict[str, object]) -> tuple:
    """``body`` with some variables given values (as ``X = value`` first), in evaluation order."""
    if not fixed:
        return tuple(body)
    given = tuple(Comparison("=", Var(name), _const(value)) for name, value in sorted(fixed.items()))
    ordered, _ = order_body(given + tuple(body))
    return ordered


GROWTH_BOUND = 100_000  # a number a recursive rule makes, at most, on the clingo backend (in absolute value)
GROWN_PRED = "j__grown"  # AspNames.pred("_grown"): no judgelog predicate is spelled so


def _bounded(rule: Rule, grown: tuple[str, ...]) -> Rule:
    """The rule, its new numbers kept within GROWTH_BOUND."""
    if not grown:
        return rule
    bounds = [
        Comparison(op, Var(v), Const(b)) for v in grown for op, b in (("<=", GROWTH_BOUND), (">=", -GROWTH_BOUND))
    ]
    return replace(rule, body=rule.body + tuple(bounds))


def _past(rule: Rule, var: str, index: int) -> list[Rule]:
    """Rules deriving ``j__grown(index)`` when the rule would make a number beyond ±GROWTH_BOUND."""
    head = Atom("_grown", (Const(index),))
    tests = (Comparison(">", Var(var), Const(GROWTH_BOUND)), Comparison("<", Var(var), Const(-GROWTH_BOUND)))
    return [replace(rule, head=head, body=rule.body + (test,)) for test in tests]


def grown_refused(rule: Rule) -> LimitError:
    """L001 for a recursive rule whose new numbers have no end in sight on the clingo backend."""
    return LimitError(
        L001,
        f"rule {rule.name or rule.head.pred} ({rule.span.short()}) makes numbers past {GROWTH_BOUND:,} in a "
        "recursion: the clingo backend grounds a recursion whole, and this one may make new values for ever",
        hint="a recursive rule may make new values for ever (X = Y + 1); bound it with a comparison (e.g. "
        "X < 100), or use the default backend, which stops it after --max-derived facts",
    )
