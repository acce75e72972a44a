"""What the backends compute once from an analysed program, before they evaluate any state.

:class:`RuleIndex`, which both backends use (judgelog.backend on pyDatalog, judgelog.clingo_backend on
clingo): every rule's position in the program, which names what is compiled for it, and the body variables a
proof asks of each rule with a body.

:class:`CompiledProgram`, the pyDatalog backend's analysis of the program, immutable and shared by every thread
and state: the derived predicates pyDatalog evaluates top-down (through binding-pattern variants,
judgelog.variants) and those the backend computes itself (recursive components and aggregates, in dependency
order: judgelog.materialise); the *probes*, fact atoms of the rule bodies whose emptiness decides which rules
can fire in a state (judgelog.liveness), and the argument positions whose values are counted for them; the
predicates whose facts come with the rules; the unconnected bodies the join guard estimates
(judgelog.widejoins).

>>> from judgelog.analysis import analyze
>>> from judgelog.parser import parse_text
>>> program, _ = analyze([parse_text('''
... .decl edge(a: atom, b: atom) "" input
... .decl color(a: atom, c: atom) "" input
... .decl reach(a: atom, b: atom) ""
... .decl red(a: atom) ""
... .decl lonely(a: atom) ""
... reach(X, Y) :- edge(X, Y).
... reach(X, Z) :- reach(X, Y), edge(Y, Z).
... red(X) :- color(X, red).
... lonely(X) :- red(X), not reach(X, X).
... ''', "t.dl")], require_annotations=False)
>>> compiled = CompiledProgram.of(program)
>>> sorted(compiled.idb), sorted(compiled.recursive)
(['lonely', 'red'], ['reach'])
>>> compiled.probes, dict(compiled.probe_positions)
((('edge', ()), ('color', ((1, 'red'),))), {'color': frozenset({1})})
>>> [(info.rule.head.pred, info.probes, info.needs) for info in compiled.rule_probes[2:]]
[('red', (('color', ((1, 'red'),)),), ()), ('lonely', (), ('red',))]
>>> compiled.rule_index.why_names[id(program.rules[3])]
('X',)
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import ClassVar, NamedTuple

from .ast import Atom, Const, Negation, Rule, Var
from .factview import by_pred
from .memo import remember
from .planning import literal_terms, probe_alive, probe_of, why_vars
from .program import Program
from .recursion import Component, recursive_components
from .widejoins import JoinGuard, passed_positions

__all__ = ["RuleIndex", "RuleProbes", "CompiledProgram", "LivenessIndex"]

_LIVENESS_KEPT = 256  # liveness results remembered per program (judgelog.liveness asks once per new namespace)


@dataclass(frozen=True)
class RuleIndex:
    """Every rule's position in the program (compiled names and ASP rule numbers follow it), and, for each
    rule with a body and no aggregate, the body variables a proof binds (judgelog.planning.why_vars), both by
    ``id(rule)``."""

    position: Mapping[int, int]
    why_names: Mapping[int, tuple[str, ...]]

    @classmethod
    def of(cls, program: Program) -> RuleIndex:
        return cls(
            position={id(rule): i for i, rule in enumerate(program.rules)},
            why_names={
                id(rule): why_vars(rule, program) for rule in program.rules if rule.body and rule.aggregate is None
            },
        )


class RuleProbes(NamedTuple):
    """What one rule with a body (and no aggregate) needs to fire: the probes of its positive fact atoms
    and the derived predicates it reads positively."""

    rule: Rule
    probes: tuple[tuple, ...]
    needs: tuple[str, ...]


@dataclass(frozen=True)
class LivenessIndex:
    """The rules of :attr:`CompiledProgram.rule_probes` (by position) under the probes they need, for
    :meth:`CompiledProgram.liveness` to look at the rules whose fact atoms all have a match only."""

    by_probe: Mapping[tuple, tuple[int, ...]]  # probe -> the rules with it among their positive fact atoms
    probe_counts: tuple[int, ...]  # the distinct probes each rule needs
    free: tuple[int, ...]  # the rules that need no probe
    ids: tuple[int, ...]  # id() of each rule
    rule_ids: frozenset[int]
    probes_by_pred: Mapping[str, tuple[tuple, ...]]  # every probe, by its predicate

    @classmethod
    def of(cls, rule_probes: Sequence[RuleProbes], probes: Iterable[tuple]) -> LivenessIndex:
        by_probe: dict[tuple, list[int]] = {}
        for i, info in enumerate(rule_probes):
            for probe in set(info.probes):
                by_probe.setdefault(probe, []).append(i)
        ids = tuple(id(info.rule) for info in rule_probes)
        probes_by_pred: dict[str, list[tuple]] = {}
        for probe in probes:  # a catalog join's probe also changes with the catalog's own facts
            for pred in dict.fromkeys((probe[0], *(entry[2] for entry in probe[1] if len(entry) == 3))):
                probes_by_pred.setdefault(pred, []).append(probe)
        return cls(
            by_probe={probe: tuple(rules) for probe, rules in by_probe.items()},
            probe_counts=tuple(len(set(info.probes)) for info in rule_probes),
            free=tuple(i for i, info in enumerate(rule_probes) if not info.probes),
            ids=ids,
            rule_ids=frozenset(ids),
            probes_by_pred={pred: tuple(found) for pred, found in probes_by_pred.items()},
        )


@dataclass(frozen=True)
class CompiledProgram:
    """The pyDatalog backend's analysis of one program (see the module's text); build it with :meth:`of`."""

    program: Program
    rule_index: RuleIndex
    components: tuple[Component, ...]  # recursive components, computed bottom-up (judgelog.materialise)
    recursive: frozenset[str]  # their predicates
    idb: frozenset[str]  # derived predicates called through binding-pattern variants (not recursive)
    rules_for: Mapping[str, tuple[Rule, ...]]  # head predicate -> its rules without an aggregate
    rule_by_id: Mapping[int, Rule]
    rule_consts: frozenset  # constants written in rules: they name categories (banding, creature, p1p1)
    static_facts: frozenset[str]  # facts from the rule files, recursion and the other aggregates: always alive
    gated: frozenset[str]  # predicates derived by aggregates alone: alive where one of their bodies can be
    probes: tuple[tuple, ...]  # the fact atoms of rule bodies, reduced (judgelog.planning.probe_of)
    probe_set: frozenset[tuple]
    probe_positions: Mapping[str, frozenset[int]]  # pred -> argument positions whose values are counted
    rule_probes: tuple[RuleProbes, ...]
    catalog_joins: Mapping[int, tuple[tuple, ...]]  # place of a rule in the program -> its catalog joins' probes
    aggregate_rules: tuple[Rule, ...]
    materialise_order: tuple[Rule | Component, ...]  # aggregates and components, in dependency order
    computed_inputs: frozenset[str]  # a change of their facts computes the aggregates and components again
    computed_preds: frozenset[str]  # predicates judgelog computes itself (pyDatalog does not derive them)
    joins: JoinGuard  # bodies of unconnected parts that pyDatalog would enumerate (judgelog.widejoins)
    rule_fact_counts: Mapping[str, int]  # pred -> facts the rule files state (bodiless rules)
    edb_up_front: frozenset[str]  # derived predicates that may also be given facts: bridged up front

    # saved with its program in the library cache (judgelog.program.Program keeps what says so in its memo)
    kept_in_cache: ClassVar[bool] = True

    def __getstate__(self) -> dict:
        # ids do not survive pickling: the maps keyed by rule ids are saved by rule (the rules are pickled
        # with their program, once) and made again from the unpickled rules
        state = dict(self.__dict__)
        why = self.rule_index.why_names
        state["rule_index"] = [(rule, why.get(id(rule))) for rule in self.program.rules]
        state["rule_by_id"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        rules = state.pop("rule_index")
        state["rule_index"] = RuleIndex(
            position={id(rule): i for i, (rule, _) in enumerate(rules)},
            why_names={id(rule): names for rule, names in rules if names is not None},
        )
        state["rule_by_id"] = {id(rule): rule for rule, _ in rules}
        self.__dict__.update(state)

    @classmethod
    def of(cls, program: Program) -> CompiledProgram:
        """The analysis of ``program``, made once and kept with it (every engine of one program shares it)."""
        kept = program.memo.get("compiled")
        if isinstance(kept, cls):
            return kept
        compiled = cls._build(program)
        program.memo["compiled"] = compiled
        return compiled

    @classmethod
    def _build(cls, program: Program) -> CompiledProgram:
        components = tuple(recursive_components(program))
        recursive = frozenset(p for c in components for p in c.preds)
        idb = frozenset(r.head.pred for r in program.rules if r.body and r.aggregate is None) - recursive
        rules_for: dict[str, list[Rule]] = {}
        for rule in program.rules:
            if rule.aggregate is None:
                rules_for.setdefault(rule.head.pred, []).append(rule)
        # an aggregate's predicate holds only where its body does (an empty group gives no row): followed by
        # liveness like a rule's, unless it is recursive, derived by other rules too, stated or an input
        gated = frozenset(
            r.head.pred
            for r in program.rules
            if r.aggregate is not None
            and r.head.pred not in recursive
            and r.head.pred not in idb
            and not program.is_input(r.head.pred)
            and all(other.body and other.aggregate is not None for other in program.rules_by_head[r.head.pred])
        )
        static_facts = frozenset(r.head.pred for r in program.rules if not r.body or r.aggregate is not None)
        static_facts = (static_facts | recursive) - gated
        probes, positions, rule_probes, catalogs = _probes(program, idb | gated, static_facts)
        # where a constant asked of a derived predicate reaches the facts: counted by value there too, for
        # the join-size estimate (judgelog.widejoins.passed_positions)
        for pred, passed in passed_positions(program.rules, idb).items():
            positions.setdefault(pred, set()).update(passed)
        aggregate_rules = tuple(program.aggregate_rules())
        order: list[tuple[tuple[int, int, int], Rule | Component]] = [
            ((program.strata.get(r.head.pred, 0), 0, 0), r) for r in aggregate_rules
        ]
        order += [((max(program.strata.get(p, 0) for p in c.preds), 1, c.order), c) for c in components]
        computed_rules = aggregate_rules + tuple(r for c in components for r in c.rules)
        read = {
            lit.atom.pred if isinstance(lit, Negation) else lit.pred
            for r in computed_rules
            for lit in r.body
            if isinstance(lit, (Atom, Negation))
        }
        rule_fact_counts: dict[str, int] = {}
        for rule in program.rules:
            if not rule.body and rule.aggregate is None:
                rule_fact_counts[rule.head.pred] = rule_fact_counts.get(rule.head.pred, 0) + 1
        unique_probes = tuple(dict.fromkeys(probes))
        return cls(
            program=program,
            rule_index=RuleIndex.of(program),
            components=components,
            recursive=recursive,
            idb=idb,
            rules_for={pred: tuple(rules) for pred, rules in rules_for.items()},
            rule_by_id={id(r): r for r in program.rules},
            rule_consts=frozenset(
                a.value
                for r in program.rules
                for lit in (r.head,) + tuple(r.body)
                for a in literal_terms(lit)
                if isinstance(a, Const)
            ),
            static_facts=static_facts,
            gated=gated,
            probes=unique_probes,
            probe_set=frozenset(unique_probes),
            probe_positions={pred: frozenset(found) for pred, found in positions.items()},
            rule_probes=rule_probes,
            catalog_joins=catalogs,
            aggregate_rules=aggregate_rules,
            materialise_order=tuple(task for _, task in sorted(order, key=lambda item: item[0])),
            computed_inputs=frozenset({r.head.pred for r in computed_rules} | program.dependencies(read)),
            computed_preds=recursive | frozenset(r.head.pred for r in aggregate_rules),
            joins=JoinGuard((r for r in program.rules if r.aggregate is None and r.head.pred in idb), program.body),
            rule_fact_counts=rule_fact_counts,
            edb_up_front=frozenset(
                p
                for p in idb
                if program.is_input(p) or any(r.aggregate is not None for r in program.rules_by_head.get(p, ()))
            ),
        )

    @property
    def liveness_index(self) -> LivenessIndex:
        return self.program.kept("compiled.liveness_index", lambda: LivenessIndex.of(self.rule_probes, self.probes))

    def liveness(self, dead_probes: frozenset, with_facts: frozenset) -> tuple[frozenset, frozenset]:
        """Derived predicates that may hold, and the ids of the rules that cannot fire: a rule is dead when
        one of its positive atoms is a fact atom with no matching fact, or a derived predicate none of whose
        rules can fire (counted bottom-up, like Horn satisfiability). Only the rules whose fact atoms all
        have a match are looked at (on a small board, few). Remembered with the program for the last
        :data:`_LIVENESS_KEPT` arguments (every engine of the program, every thread, finds the same)."""
        memo: dict = self.program.kept("compiled.liveness", dict)
        key = (dead_probes, with_facts)
        found = memo.get(key)
        if found is None:  # (every thread shares the memo: judgelog.memo)
            found = remember(memo, key, self._liveness(dead_probes, with_facts), keep=_LIVENESS_KEPT)
        return found

    def _liveness(self, dead_probes: frozenset, with_facts: frozenset) -> tuple[frozenset, frozenset]:
        index = self.liveness_index
        rule_probes = self.rule_probes
        matched: dict[int, int] = {}  # rule -> its fact atoms with a match
        for probe in self.probe_set - dead_probes:
            for i in index.by_probe.get(probe, ()):
                matched[i] = matched.get(i, 0) + 1
        counts = index.probe_counts
        candidates = itertools.chain(index.free, (i for i, n in matched.items() if n == counts[i]))
        alive = set(self.static_facts & self.idb) | set(with_facts)
        queue = list(alive)
        missing: dict[int, int] = {}
        watchers: dict[str, list[int]] = {}
        live_rules = set()
        for i in candidates:
            rule, _, needs = rule_probes[i]
            need = [p for p in needs if p not in alive]
            if not need:
                live_rules.add(i)
                if rule.head.pred not in alive:
                    alive.add(rule.head.pred)
                    queue.append(rule.head.pred)
                continue
            missing[i] = len(need)
            for p in need:
                watchers.setdefault(p, []).append(i)
        while queue:
            pred = queue.pop()
            for i in watchers.pop(pred, ()):
                missing[i] -= 1
                if missing[i] == 0:
                    live_rules.add(i)
                    head = rule_probes[i].rule.head.pred
                    if head not in alive:
                        alive.add(head)
                        queue.append(head)
        return frozenset(alive), index.rule_ids - {index.ids[i] for i in live_rules}

    @property
    def probed_values(self) -> Mapping[str, tuple[tuple[int, frozenset], ...]]:
        """pred -> the places the probes test with constants, and the constants they test there."""

        def make() -> dict[str, tuple[tuple[int, frozenset], ...]]:
            found: dict[str, dict[int, set]] = {}
            for pred, consts in self.probes:
                for entry in consts:
                    values = entry[1] if len(entry) == 3 else (entry[1],)
                    found.setdefault(pred, {}).setdefault(entry[0], set()).update(values)
            return {pred: tuple((i, frozenset(v)) for i, v in places.items()) for pred, places in found.items()}

        return self.program.kept("compiled.probed_values", make)

    def dead_probes(self, facts: Iterable[tuple]) -> tuple[frozenset, frozenset]:
        """The probes no fact of ``facts`` matches, and the derived predicates ``facts`` give facts of (the
        two arguments of :meth:`liveness`), counted from a whole fact set (only the values a probe tests)."""
        # one pass sorting the facts by predicate, then the probed places read in C: about 1/2.5 of the time of
        # counting the probed values fact by fact (a state has tens of thousands of facts)
        grouped = by_pred(facts if isinstance(facts, (set, frozenset)) else set(facts))
        counts: Counter = Counter({pred: len(found) for pred, found in grouped.items()})
        for pred, places in self.probed_values.items():
            if (of_pred := grouped.get(pred)) is not None:
                for i, values in places:
                    counts.update((pred, i, value) for value in values.intersection(map(itemgetter(i + 1), of_pred)))
        positions = self.probe_positions
        dead = frozenset(p for p in self.probes if not probe_alive(counts, p, positions))
        return dead, frozenset(p for p in self.idb if counts.get(p, 0) > 0)


def _probes(
    program: Program, live: frozenset[str], static_facts: frozenset[str]
) -> tuple[list[tuple], dict[str, set[int]], tuple[RuleProbes, ...], dict[int, tuple[tuple, ...]]]:
    """The probes of every rule body (in order, repeated), the positions they test by predicate, what each
    rule with a body needs to fire (the derived predicates of ``live`` its positive atoms read), but the
    aggregates of a predicate ``live`` does not hold (always alive), and the catalog joins' probes by the
    rule's place in the program."""
    probes: list[tuple] = []
    positions: dict[str, set[int]] = {}
    rule_probes: list[RuleProbes] = []
    catalogs: dict[int, tuple[tuple, ...]] = {}
    for place, rule in enumerate(program.rules):
        if not rule.body or rule.aggregate is not None and rule.head.pred not in live:
            continue
        positive: list[tuple] = []
        needs: list[str] = []
        for lit in program.body(rule):
            atom = lit.atom if isinstance(lit, Negation) else lit
            if not isinstance(atom, Atom):
                continue
            if atom.pred in live:
                if atom is lit and atom.pred not in needs:
                    needs.append(atom.pred)
                continue
            if atom.pred in static_facts:
                continue
            probe = probe_of(atom)
            probes.append(probe)
            for i, _ in probe[1]:
                positions.setdefault(atom.pred, set()).add(i)
            if atom is lit:
                positive.append(probe)
        found = _catalog_probes(program, rule, live | static_facts)
        if found:
            catalogs[place] = tuple(found)
        for probe in found:
            probes.append(probe)
            positive.append(probe)
            for entry in probe[1]:
                positions.setdefault(probe[0], set()).add(entry[0])
        rule_probes.append(RuleProbes(rule, tuple(positive), tuple(needs)))
    return probes, positions, tuple(rule_probes), catalogs


_CATALOG_VALUES = 256  # a catalog join's probe lists at most this many values


def _catalog_probes(program: Program, rule: Rule, derived: frozenset[str]) -> list[tuple]:
    """The *catalog joins* of ``rule``'s body: a positive fact atom (a predicate not in ``derived``) shares a
    variable with a positive atom of a *catalog*, a predicate the rule files give as facts only (say
    ``name(O, Nm), leveler_stripe(Nm, L, ...)``). The rule can fire only where some fact has one of the
    catalog's values at that place: a probe ``(pred, ((i, values, catalog), ...))``, alive when one does or
    when the state gives facts of the catalog itself (judgelog.planning.probe_alive)."""
    body = [lit for lit in program.body(rule) if isinstance(lit, Atom)]
    columns: dict[str, list[tuple[frozenset, str]]] = {}  # variable -> the catalogs' values it must take
    for atom in body:
        rows = _catalog_rows(program, atom.pred)
        if rows is None:
            continue
        for j, arg in enumerate(atom.args):
            if isinstance(arg, Var) and not arg.anonymous:
                values = frozenset(row[j] for row in rows)
                if len(values) <= _CATALOG_VALUES and not any(isinstance(v, float) for v in values):
                    columns.setdefault(arg.name, []).append((values, atom.pred))
    found = []
    for atom in body:
        if atom.pred in derived or _catalog_rows(program, atom.pred) is not None:
            continue
        entries = tuple(
            (i, values, catalog)
            for i, arg in enumerate(atom.args)
            if isinstance(arg, Var) and not arg.anonymous
            for values, catalog in columns.get(arg.name, ())
        )
        if entries:
            found.append((atom.pred, entries))
    return found


def _catalog_rows(program: Program, pred: str) -> list[tuple] | None:
    """The rows of ``pred`` if the rule files give it as facts only (and no scenario is meant to: not an
    input), else None."""
    memo: dict = program.kept("compiled.catalogs", dict)
    if pred not in memo:
        rules = program.rules_by_head.get(pred, ())
        rows = None
        if (
            rules
            and not program.is_input(pred)
            and all(not r.body and r.aggregate is None for r in rules)
            and all(isinstance(a, Const) for r in rules for a in r.head.args)
        ):
            rows = program.ground_facts(pred)  # (every rule of it is one of these facts)
        memo[pred] = rows
    return memo[pred]
