"""Binding-pattern variants: how the backend (judgelog.backend) compiles a derived predicate for the way it
is called.

pyDatalog evaluates a rule body left to right, whatever the call. So every derived predicate is compiled, on
first use and once per thread, in one variant per *binding pattern* it is called with (``j1_blocked_by@fb@1``:
second argument known) and per namespace (judgelog.liveness): the variant's rule bodies are planned (checks
first, then the literals with the fewest unknown arguments, otherwise as written), the rules the namespace
makes impossible are left out, and calls to a predicate with one possible rule are unfolded into its body.
Facts given for a derived predicate live in ``<name>@edb``, bridged into every variant.

A variant depends on its namespace only through what its predicate can reach: which of the body fact atoms
below it have no fact, which of the derived predicates below it have facts of their own. Its name ends with
the id of that *signature* (``j1_blocked_by@fb@7``), so namespaces that agree there (a board before and
after an action that touches other rules, or another board) share it; it is retracted when the last
namespace using it is dropped.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import pyDatalog.pyEngine as _E

from .analysis import bound_after
from .analysis import ready as _ready
from .ast import Atom, Comparison, Const, Literal, Negation, Rule, Term, Var, literal_vars
from .clauses import bridge, compile_atom, compile_comparison, compile_term, new_pred
from .compiled import CompiledProgram
from .liveness import Liveness
from .planning import UNFOLD_DEPTH, Impossible, binding_pattern, divisors, probe_of, unfold, variant_name
from .recursion import Limits
from .threadview import Namespace, ThreadView, VariantCode

__all__ = ["Variants"]


class Variants:
    """Variants, planning and unfolding of one compiled program, for one backend (its engine names start with
    ``prefix``). Which rules can fire comes from ``liveness``; ``limits.int_digits`` bounds the arithmetic
    compiled (judgelog.bounded, L003)."""

    def __init__(self, compiled: CompiledProgram, liveness: Liveness, *, prefix: str, limits: Limits) -> None:
        self.compiled = compiled
        self.prefix = prefix  # of every engine name of this backend
        self.limits = limits
        self._liveness = liveness
        self._program = compiled.program
        # read for every literal planned: kept at hand
        self._idb = compiled.idb
        self._rule_consts = compiled.rule_consts
        index = compiled.rule_index
        # id(rule) -> (the engine name of its proof predicate, its body variables)
        self._why = {
            rule_id: (f"{prefix}_why{index.position[rule_id]}", names) for rule_id, names in index.why_names.items()
        }
        self._unfolds = itertools.count(1)
        # predicate, or id(rule) -> (the probes, the derived predicates) its bodies can reach (see _reach)
        self._reaches: dict[object, tuple[frozenset, frozenset[str]]] = {}

    # -- naming and compiling literals -----------------------------------------
    def pname(self, pred: str) -> str:
        return self.prefix + pred

    def term(self, term: Term) -> Any:
        return compile_term(term, int_digits=self.limits.int_digits)

    def literal(self, atom: Atom, negated: bool = False) -> Any:
        return compile_atom(("~" if negated else "") + self.pname(atom.pred), atom, int_digits=self.limits.int_digits)

    def _body_literal(self, lit: Literal) -> Any:
        if isinstance(lit, Atom):
            return self.literal(lit)
        if isinstance(lit, Negation):
            return self.literal(lit.atom, negated=True)
        return compile_comparison(lit, int_digits=self.limits.int_digits)

    # -- binding-pattern variants and pruning --------------------------------
    def variant(self, view: ThreadView, pred: str, pattern: tuple[bool, ...]) -> str:
        """The engine name to call ``pred`` with ``pattern`` known arguments in the current state's
        namespace (compiled before the next ask)."""
        if pred not in self._idb:
            return self.pname(pred)
        key = (pred, pattern, self._signature(view, pred))
        self._use(view, key)
        return variant_name(self.pname(pred), pattern, key[2])

    # -- what a variant depends on --------------------------------------------
    def _reach(self, of: object) -> tuple[frozenset, frozenset[str]]:
        """The probes and the derived predicates the bodies of ``of`` (a derived predicate's rules, or one
        rule given by its id) can reach. A variant's clauses depend on the namespace only through these:
        which of the probes have no fact, which of the predicates have facts of their own. Found bottom-up
        without recursion (a chain of derived predicates may be thousands long)."""
        reaches = self._reaches
        stack: list[tuple[object, bool]] = [(of, False)]
        while stack:
            node, below_done = stack.pop()
            if node in reaches:
                continue
            calls, probes = self._below(node)
            if not below_done:
                stack.append((node, True))
                stack.extend((p, False) for p in calls if p not in reaches)
                continue
            preds: set[str] = {node} if isinstance(node, str) else {node[0]} if isinstance(node, tuple) else set()
            found_probes = set(probes)
            for p in calls:
                name = str(p[0] if isinstance(p, tuple) else p)
                inner_probes, inner_preds = reaches.get(p, (frozenset(), frozenset({name})))  # (no cycle here)
                found_probes |= inner_probes
                preds |= inner_preds
            reaches[node] = (frozenset(found_probes), frozenset(preds))
        return reaches[of]

    def _below(self, of: object) -> tuple[list[object], list[tuple]]:
        """The derived predicates the bodies of ``of`` call, and the probes of their other atoms. ``of`` is a
        derived predicate, a rule's id, or a call of a predicate with constants, ``(pred, ((i, value), ...))``:
        unfolding such a call puts its constants into the rules' bodies (``not has_counter(O, m1m1)`` becomes
        ``not counter(O, m1m1, _)``), whose probes then decide too."""
        fixed: dict[int, Any] = {}
        if isinstance(of, str) and of in self.compiled.gated:  # an aggregate's: alive where its bodies can be
            rules: tuple = tuple(self._program.rules_by_head.get(of, ()))
        elif isinstance(of, str):
            rules = self.compiled.rules_for.get(of, ())
        elif isinstance(of, tuple):
            rules, fixed = self.compiled.rules_for.get(of[0], ()), dict(of[1])
        else:
            assert isinstance(of, int)
            rules = (self.compiled.rule_by_id[of],)
        calls: list[object] = []
        probes: list[tuple] = []
        catalogs, place = self.compiled.catalog_joins, self.compiled.rule_index.position
        for rule in rules:
            binding = _head_binding(rule.head, fixed)
            if binding is None:  # a constant of the head differs from the call's: the rule can't match it
                continue
            probes.extend(catalogs.get(place[id(rule)], ()))
            for lit in self._program.body(rule):
                atom = lit.atom if isinstance(lit, Negation) else lit
                if not isinstance(atom, Atom):
                    continue
                if atom.pred in self.compiled.gated:  # (what its body reads decides, whatever the call fixes)
                    calls.append(atom.pred)
                    continue
                consts = probe_of(_substituted(atom, binding) if binding else atom)[1]
                if atom.pred in self._idb:
                    calls.append((atom.pred, consts) if consts else atom.pred)
                else:
                    for probe in {probe_of(atom), (atom.pred, consts)}:
                        if probe in self.compiled.probe_set:
                            probes.append(probe)
        return calls, probes

    def _signature(self, view: ThreadView, of: object) -> int:
        """The id of what ``of`` can reach leaves dead in the current namespace: namespaces that agree on it
        share ``of``'s variants."""
        ns = view.namespace
        found = ns.signatures.get(of)
        if found is None:
            probes, preds = self._reach(of)
            signature = (of, ns.dead_probes & probes, ns.with_facts & preds)
            found = view.signatures.get(signature)
            if found is None:
                found = view.signatures[signature] = next(view.signature_ids)
                view.signature_of[found] = (signature, set())
            view.signature_of[found][1].add(ns.id)
            ns.signatures[of] = found
        return found

    def _use(self, view: ThreadView, key: tuple) -> None:
        """``key``'s variant is called in the current namespace (and by the variant being compiled, if any):
        named for compiling if it is new, and used by those namespaces with every variant it calls."""
        code = view.variants.get(key)
        if code is None:
            code = view.variants[key] = VariantCode()
            view.pending.append((key, view.namespace.id))
        parent = view.compiling  # (the thread's own: a backend is shared by threads, each with its view)
        if parent is not None:
            parent.calls.append(key)
            for ns_id in parent.users:
                _adopt(view, view.namespaces_by_id[ns_id], key)
        _adopt(view, view.namespace, key)

    def plan(self, view: ThreadView, body: Sequence, bound: Iterable[str], now: bool = False) -> list | None:
        """Compile ``body`` for evaluation with ``bound`` variables known: unfolding, order and variants.
        None when a positive literal can have no instance (the body cannot hold). ``now``: a query's body,
        compiled for the facts now rather than for the namespace."""
        bound = set(bound)
        dead, rank = self._liveness.dead, self._rank
        expanded = self._expand(view, body)
        if expanded is None:
            return None
        waiting = list(expanded)
        for lit in waiting:
            if isinstance(lit, Atom) and dead(view, lit, now):
                return None
        # a variable spelt as anonymous that the unfolded body joins on (the call's "_" passed to a head variable
        # its rule's body uses twice) is ranked as the named variable it is: read as known, the atom that binds
        # it would come first and enumerate every value
        seen = Counter(v for lit in waiting for v in literal_vars(lit))
        joined = frozenset(v for v, n in seen.items() if n > 1 and v.startswith("_"))
        traits = {id(lit): self._traits(lit, joined) for lit in waiting}  # what the ranking reads, once per literal
        out = []

        def emit(lit: Literal) -> None:
            if isinstance(lit, Comparison):
                for divisor in divisors(lit.left) + divisors(lit.right):  # no value when dividing by 0
                    out.append(self._body_literal(Comparison("!=", divisor, Const(0))))
                out.append(self._body_literal(lit))
            elif not (isinstance(lit, Negation) and dead(view, lit.atom, now)):  # "not" is true: drop it
                atom = lit.atom if isinstance(lit, Negation) else lit
                name = self.variant(view, atom.pred, binding_pattern(atom, bound))
                out.append(
                    _E.Literal(("~" if isinstance(lit, Negation) else "") + name, [self.term(a) for a in atom.args])
                )
            bound.update(bound_after([lit], bound))

        while waiting:
            progress = True
            while progress:  # comparisons as soon as their variables are bound
                progress = False
                for lit in list(waiting):
                    if isinstance(lit, Comparison) and _ready(lit, bound):
                        waiting.remove(lit)
                        emit(lit)
                        progress = True
            if not waiting:
                break
            index, best = min(enumerate(waiting), key=lambda item: rank(item[1], traits[id(item[1])], bound, item[0]))
            if rank(best, traits[id(best)], bound, index)[0] == 9:
                break
            waiting.remove(best)
            emit(best)
        for lit in waiting:  # never ready (an unsafe query): keep pyDatalog's own behaviour, last
            emit(lit)
        return out

    def _traits(self, lit: Literal, joined: frozenset[str] = frozenset()) -> tuple[frozenset[str], int, bool, bool]:
        """What :meth:`_rank` reads of a literal: its named variables (and the ``joined`` ones spelt as
        anonymous), whether it is derived, whether it has a constant the rules do not write (an object's id),
        and whether it has a constant at all."""
        if isinstance(lit, Comparison):
            return frozenset(), 0, False, False
        named = frozenset(v for v in literal_vars(lit) if not v.startswith("_") or v in joined)
        atom = lit.atom if isinstance(lit, Negation) else lit
        consts = [a.value for a in atom.args if isinstance(a, Const)]
        return named, int(atom.pred in self._idb), any(c not in self._rule_consts for c in consts), bool(consts)

    @staticmethod
    def _rank(lit: Literal, traits: tuple[frozenset[str], int, bool, bool], bound: set[str], index: int) -> tuple:
        """Smallest first: checks (every named argument known) before atoms that bind new variables;
        among those, atoms joined on a known variable, then atoms with only constants known (a constant
        such as ``banding`` selects a category, a known variable one object), then the rest as written;
        within a class, fewest unknown arguments, facts before derived, then as written."""
        if isinstance(lit, Comparison):
            return (9, 0, 0, index)
        named, derived, foreign_const, any_const = traits
        if isinstance(lit, Negation):
            return (1, 0, 0, index) if named <= bound else (9, 0, 0, index)
        unknown = named - bound
        if not unknown:
            return (derived, 0, 0, index)
        if len(unknown) < len(named) or foreign_const:
            return (2, len(unknown), derived, index)  # joined on a known object (a variable or an id)
        if any_const:
            return (3, len(unknown), derived, index)  # only a constant of the rules known (a category)
        return (4, 0, 0, index)  # nothing known: as written

    def compile_pending(self, view: ThreadView) -> None:
        """Compile the variants named since the last question (each in the namespace it was named in)."""
        current = view.ns
        try:
            while view.pending:
                key, ns_id = view.pending.pop()
                code = view.variants.get(key)
                if code is None or code.compiled:  # gone with its namespaces, or compiled already
                    continue
                # the namespace it was named in, or (that one dropped meanwhile) another that uses it
                view.ns = view.namespaces_by_id.get(ns_id) or view.namespaces_by_id[min(code.users)]
                code.compiled = True
                view.compiling = code
                try:
                    if isinstance(key[0], str):
                        self._compile_variant(view, code, key)
                    else:
                        self._compile_why_variant(view, code, key)
                finally:
                    view.compiling = None
        finally:
            view.ns = current

    def _compile_variant(self, view: ThreadView, code: VariantCode, key: tuple) -> None:
        pred, pattern, signature = key
        name = variant_name(self.pname(pred), pattern, signature)
        new_pred(name, len(pattern))
        code.preds.append((name, len(pattern)))
        if pred in view.edb:
            code.clauses.append(bridge(view.edb[pred], name, len(pattern)))
        for rule in self.compiled.rules_for.get(pred, ()):
            if rule.body and id(rule) in view.namespace.dead_rules:
                continue
            bound = {a.name for a, known in zip(rule.head.args, pattern) if known and isinstance(a, Var)}
            body = self.plan(view, self._program.body(rule), bound) if rule.body else []
            if body is not None:
                head = _E.Literal(name, [self.term(a) for a in rule.head.args])
                code.clauses.append(_E.assert_(_E.Clause(head, body)))

    def why_variant(self, view: ThreadView, rule: Rule, pattern: tuple[bool, ...]) -> str:
        """The engine name of ``rule``'s proof predicate (its head: the body variables) with ``pattern`` of
        them known, in the current namespace (compiled before the next ask)."""
        name, _ = self._why[id(rule)]
        key = (id(rule), pattern, self._signature(view, id(rule)))
        self._use(view, key)
        return variant_name(name, pattern, key[2])

    def _compile_why_variant(self, view: ThreadView, code: VariantCode, key: tuple) -> None:
        rule_id, pattern, signature = key
        rule = self.compiled.rule_by_id[rule_id]
        name, names = self._why[rule_id]
        vname = variant_name(name, pattern, signature)
        new_pred(vname, len(names))
        code.preds.append((vname, len(names)))
        if rule_id in view.namespace.dead_rules:
            return
        bound = {n for n, known in zip(names, pattern) if known}
        body = self.plan(view, self._program.body(rule), bound)
        if body is not None:
            code.clauses.append(_E.assert_(_E.Clause(_E.Literal(vname, [_E.Var(n) for n in names]), body)))

    def fact_pred(self, view: ThreadView, pred: str) -> Any:  # a pyDatalog predicate
        """The engine predicate that holds ``pred``'s facts: the predicate itself, or for a derived predicate
        its ``@edb`` predicate, bridged into the plain predicate and into every variant."""
        if pred not in self._idb:
            return view.fact_preds[pred]
        edb = view.edb.get(pred)
        if edb is None:
            arity = self._program.decls[pred].arity
            edb = new_pred(f"{self.pname(pred)}@edb", arity)
            view.edb[pred] = edb
            view.fact_preds[pred] = edb
            bridge(edb, self.pname(pred), arity)
            for key, code in view.variants.items():
                if key[0] == pred and code.compiled:
                    code.clauses.append(bridge(edb, variant_name(self.pname(pred), key[1], key[2]), arity))
        return edb

    # -- unfolding -----------------------------------------------------------
    def _single_rule(self, view: ThreadView, pred: str) -> Rule | None:
        """The one rule that can derive ``pred`` in the current namespace, if ``pred`` has no facts of its
        own there; calls to such a predicate are replaced by the rule's body (one subgoal less per call)."""
        cache = view.namespace.single
        if pred in cache:
            return cache[pred]
        rule = None
        ns = view.namespace
        if pred in self._idb and pred not in self.compiled.static_facts and pred not in ns.with_facts:
            live = [r for r in self.compiled.rules_for.get(pred, ()) if r.body and id(r) not in ns.dead_rules]
            if len(live) == 1 and all(isinstance(a, (Var, Const)) for a in live[0].head.args):
                rule = live[0]
        cache[pred] = rule
        return rule

    def _expand(
        self, view: ThreadView, body: Sequence, depth: int = 0, chain: frozenset[str] = frozenset()
    ) -> list | None:
        """``body`` with the atoms of single-rule predicates unfolded (positive atoms; negated atoms when the
        rule's body is one positive atom); None when an unfolded atom cannot hold."""
        out: list = []
        for lit in body:
            atom = lit.atom if isinstance(lit, Negation) else lit
            rule = None
            if isinstance(atom, Atom) and depth < UNFOLD_DEPTH and atom.pred not in chain:
                rule = self._single_rule(view, atom.pred)
            if rule is None:
                out.append(lit)
                continue
            negated = isinstance(lit, Negation)
            inner = unfold(atom, rule, self._program.body(rule), next(self._unfolds), negated)
            if inner is None:  # not unfoldable here: keep the call
                out.append(lit)
            elif isinstance(inner, Impossible):
                if not negated:
                    return None
                # not (an atom that cannot hold): true, dropped
            else:
                inner = [Negation(inner[0])] if negated and isinstance(inner[0], Atom) else inner  # one atom
                expanded = self._expand(view, inner, depth + 1, chain | {atom.pred})
                if expanded is None:
                    if not negated:
                        return None
                else:
                    out.extend(expanded)
        return out


def _adopt(view: ThreadView, ns: Namespace, key: tuple) -> None:
    """``ns`` uses the variant ``key`` and every variant it calls (kept until the last user is dropped)."""
    stack = [key]
    while stack:
        key = stack.pop()
        if key in ns.used:
            continue
        ns.used.add(key)
        code = view.variants[key]
        code.users.add(ns.id)
        stack.extend(code.calls)


def _head_binding(head: Atom, fixed: dict[int, Any]) -> dict[str, Const] | None:
    """The head's variables that a call's constants (by position) fix; None when a constant of the head
    differs from the call's."""
    out: dict[str, Const] = {}
    for i, value in fixed.items():
        arg = head.args[i] if i < len(head.args) else None
        if isinstance(arg, Const):
            if arg.value != value:
                return None
        elif isinstance(arg, Var) and not arg.name.startswith("_"):
            if arg.name in out and out[arg.name].value != value:
                return None
            out[arg.name] = Const(value)
    return out


def _substituted(atom: Atom, binding: dict[str, Const]) -> Atom:
    """``atom`` with the variables of ``binding`` replaced by their constants."""
    args = tuple(binding.get(a.name, a) if isinstance(a, Var) else a for a in atom.args)
    return Atom(atom.pred, args, atom.span)
