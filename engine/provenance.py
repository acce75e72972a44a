"""Building proofs (judgelog.proof): why an atom holds (a tree of rules and facts) and why it does not (which body
literals fail).

pyDatalog has no provenance of its own. For every rule the backend keeps a twin ``why`` clause whose head lists all
the rule's variables; it costs nothing until asked. To prove ``h(c...)`` we take each rule for ``h``, bind its head
to the constants, ask the twin for a full binding, and recurse into the instantiated premises. Leaves are scenario
facts (with their file:line), rule-file facts, comparisons and ``[absent]`` negations. Choices are deterministic:
rules in file order, bindings in sorted order.

When the proved atom's predicate is declared ``functional(key...)``, the proof also lists the *displaced defaults*:
rules for the same key whose positive premises hold but whose ``not ...`` fails, with the proof of what blocked them
(e.g. 510.1c displaced by 702.22j).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .ast import Aggregate, Atom, Comparison, Const, Literal, Negation, Rule, Span, Var, format_value
from .bindings import (
    Binding,
    eval_or_none,
    eval_term,
    ground,
    ground_or_none,
    partial,
    partial_lit,
    unify_head,
    var_names,
    vars_of,
)
from .deriving import DerivingRules
from .fact import Fact
from .proof import Displacement, Proof, ProofKind, WhyNot

if TYPE_CHECKING:  # pragma: no cover
    from .planning import Contributions
    from .protocols import Evaluator

# the proof values are judgelog.proof's; named here too, where they have always been importable from
__all__ = ["Proof", "ProofKind", "Displacement", "WhyNot", "Prover", "ground", "MAX_PROOF_DEPTH"]

MAX_PROOF_DEPTH = 200
HELD_OFF_DEPTH = 3  # how many rules deep an absent premise's reason is looked for (Prover._held_off)
HELD_OFF_TRIES = 4  # and for how many bindings of a rule's other premises (the first that has a reason is shown)

# a variable binding: variable name -> value


class Prover(DerivingRules):
    """Builds proofs for one materialised state (inside a backend session)."""

    def __init__(
        self,
        backend: Evaluator,
        view: Any,
        origins: Mapping[tuple, Span],
        causes: Mapping[tuple, str] | None = None,
        *,
        why_not_depth: int = 2,
    ) -> None:
        self.causes, self.why_not_depth = causes or {}, why_not_depth  # why_not: levels of an absent fact's rules
        self.backend, self.program, self.view, self.origins = backend, backend.program, view, origins
        self._rule_facts: dict[tuple, Rule] = self.program.fact_rules
        self._why_depth = 0  # how deep why_not has gone into an absent derived fact (up to why_not_depth)
        self.reasons = False  # whether an absent premise of a proof shows what keeps it absent (prove's)

    def sentence(self, fact: tuple) -> str:
        decl = self.program.decl(fact[0])
        return decl.sentence(fact[1:]) if decl is not None and decl.template else ""

    # -- proofs ----------------------------------------------------------
    def prove(self, fact: tuple, *, with_displaced: bool = True, reasons: bool = True) -> Proof | None:
        """The proof of ``fact``, or None when it does not hold; ``with_displaced``: a functional predicate's
        proof lists the defaults it displaced; ``reasons``: an absent premise lists the rules that would give
        it but for an exception that holds (:meth:`_held_off`)."""
        self.reasons = reasons
        return self._prove(fact, frozenset(), 0, with_displaced)

    def _prove(self, fact: tuple, path: frozenset, depth: int, with_displaced: bool = False) -> Proof | None:
        text = str(Fact(*fact))
        if fact in self.origins or fact in (self.view.facts or ()):
            made_by = self.program.rule_by_name.get(self.causes.get(fact, ""))
            return Proof(
                text,
                ProofKind.FACT,
                rule_obj=made_by,
                origin=self.origins.get(fact),
                sentence=self.sentence(fact),
                fact=fact,
            )
        rule_fact = self._rule_facts.get(fact)
        if rule_fact is not None:
            return Proof(
                text, ProofKind.FACT, rule_obj=rule_fact, origin=rule_fact.span, sentence=self.sentence(fact), fact=fact
            )
        if fact in path:
            return None
        if depth > MAX_PROOF_DEPTH:  # the atom holds (every premise asked for does); stop showing why
            return Proof(text, ProofKind.TRUNCATED, sentence=self.sentence(fact), fact=fact, cut_at=MAX_PROOF_DEPTH)
        contributions = self.backend.aggregate_contributions(self.view, fact)
        if contributions is not None and contributions.rule is not None and contributions.bindings:
            return self._prove_aggregate(fact, contributions, path | {fact}, depth)
        for rule, binding in self._derivations(fact):
            premises = self._premises(rule, binding, path | {fact}, depth)
            if premises is None:
                continue
            shown = tuple((k, v) for k, v in sorted(binding.items()) if not k.startswith("_"))
            return Proof(
                text,
                ProofKind.RULE,
                rule,
                shown,
                tuple(premises),
                sentence=self.sentence(fact),
                displaced=self._displaced(rule, fact, premises) if with_displaced else (),
                fact=fact,
            )
        return None

    def _derivations(self, fact: tuple) -> Iterator[tuple[Rule, dict]]:
        """The ways ``fact`` could be derived, in the order proofs try them: the backend's recorded first
        derivation of a recursive fact (its premises were derived before it), then each rule in file order
        with its body bindings in sorted order."""
        derivation = getattr(self.backend, "derivation", _none)(self.view, fact)
        if derivation is not None:
            yield derivation
        for rule in self.program.rules_by_head.get(fact[0], ()):
            if not rule.body or rule.aggregate is not None:
                continue
            fixed = unify_head(rule.head, fact[1:])
            if fixed is not None:
                for binding in self.backend.why_rows(self.view, rule, fixed):
                    yield rule, binding

    def _premises(self, rule: Rule, binding: dict, path: frozenset, depth: int) -> list[Proof] | None:
        out = []
        for lit in rule.body:
            if isinstance(lit, Atom):
                sub = self._prove(ground(lit, binding), path, depth + 1)
                if sub is None:
                    return None
                out.append(sub)
            elif isinstance(lit, Negation):
                atom = partial(lit.atom, binding)
                if self.backend.holds(self.view, atom):  # would make the proof cite a false premise
                    return None
                why = self._held_off(atom) if self.reasons else ()
                out.append(Proof(str(atom), ProofKind.ABSENT, sentence=self._neg_sentence(atom), displaced=why))
            else:
                left, right = eval_term(lit.left, binding), eval_term(lit.right, binding)
                out.append(Proof(f"{format_value(left)} {lit.op} {format_value(right)}", ProofKind.COMPARISON))
        return out

    def _neg_sentence(self, atom: Atom) -> str:
        decl = self.program.decl(atom.pred)
        if decl is None or not decl.template:
            return ""
        args = [a.value if isinstance(a, Const) else "any" for a in atom.args]
        return "not: " + decl.sentence(args)

    def _prove_aggregate(self, fact: tuple, contributions: Contributions, path: frozenset, depth: int) -> Proof:
        rule = contributions.rule
        assert rule is not None  # the caller asks only for contributions a rule made
        premises = []
        for binding in contributions.bindings[:20]:
            sub = self._premises(rule, binding, path, depth)
            if sub:
                premises.extend(sub)
        return Proof(
            str(Fact(*fact)),
            ProofKind.AGGREGATE,
            rule,
            (("over", f"{len(contributions.bindings)} binding(s)"),),
            tuple(premises),
            sentence=self.sentence(fact),
            fact=fact,
        )

    def _held_off(self, atom: Atom, depth: int = 0) -> tuple[Displacement, ...]:
        """Why an atom a proof needs absent is: each rule that would give it (its other premises hold for
        some binding) but for an exception that holds (one of its negated atoms), with a proof of that atom
        (``cannot_block(spider, angel)``: the flying rule would give ``block_restriction(spider, angel,
        flying)``, but ``blocks_fliers(spider)`` holds, by reach). A rule without an exception whose premises
        all hold but one derived atom is followed into that atom (HELD_OFF_DEPTH levels). The exceptions'
        proofs give no such reasons of their own."""
        out: list[Displacement] = []
        inner = Prover(self.backend, self.view, self.origins, self.causes)  # its proofs give no reasons
        for rule in self.program.rules_by_head.get(atom.pred, ()):
            if rule.aggregate is not None or not rule.body:
                continue
            start = unify_head(rule.head, [a.value if isinstance(a, Const) else None for a in atom.args])
            if start is None:
                continue
            if not any(isinstance(lit, Negation) for lit in rule.body):
                if depth + 1 < HELD_OFF_DEPTH:
                    out.extend(self._missing_premise(rule, start, depth))
                continue
            found = self._exception(rule, start, inner)
            if found is not None:
                out.append(found)
        return tuple(out)

    def _exception(self, rule: Rule, fixed: Binding, prover: Prover) -> Displacement | None:
        """The first exception (a negated atom of ``rule``) that holds where the rest of its body does, with
        its proof by ``prover``: what keeps the rule from giving its head."""
        for neg in [lit for lit in rule.body if isinstance(lit, Negation)]:
            flipped = tuple(neg.atom if lit is neg else lit for lit in rule.body)
            found = self._first_binding(flipped, fixed)
            if found is None:
                continue
            blocker = prover._prove(ground(neg.atom, found), frozenset(), 0)
            if blocker is None:
                continue
            would = str(Fact(rule.head.pred, *(eval_term(a, found) for a in rule.head.args)))
            return Displacement(rule, blocker, would)
        return None

    def _missing_premise(self, rule: Rule, start: Binding, depth: int) -> tuple[Displacement, ...]:
        """:meth:`_held_off` of the one derived premise of ``rule`` that fails when the others hold."""
        for lit in rule.body:
            if not isinstance(lit, Atom) or not self.program.derived(lit.pred):
                continue
            rest = [other for other in rule.body if other is not lit]
            # what only the left-out premise binds can't be asked of the others (a comparison on its count)
            bound = set(start) | {v.name for other in rest if isinstance(other, Atom) for v in vars_of(other)}
            rest = [other for other in rest if isinstance(other, Atom) or {v.name for v in vars_of(other)} <= bound]
            for found in self._solutions(rest, start, limit=HELD_OFF_TRIES) if rest else [dict(start)]:
                reasons = self._held_off(partial(lit, found), depth + 1)
                if reasons:
                    return reasons
        return ()

    def _displaced(self, used: Rule, fact: tuple, premises: Sequence[Proof]) -> tuple[Displacement, ...]:
        """The defaults ``used`` displaced in deriving ``fact``: another rule for the same key whose exception
        holds, where ``used`` holds because of that exception (its atom is in ``premises``' proofs). A rule
        that doesn't read the exception (no hook: it derives the predicate beside the default) displaced
        nothing, whatever else holds."""
        decl = self.program.decl(fact[0])
        if decl is None or not decl.functional:
            return ()
        hooks = {node.atom for p in premises for node in p.walk()}
        keys = set(decl.key_positions)
        out = []
        for rule in self.program.rules_by_head.get(fact[0], ()):
            if rule is used or not any(isinstance(lit, Negation) for lit in rule.body):
                continue
            partial = [a if i in keys else None for i, a in enumerate(fact[1:])]
            fixed = unify_head(rule.head, partial)
            if fixed is None:
                continue
            found = self._exception(rule, fixed, self)
            if found is not None and found.blocked_by.atom in hooks:
                out.append(found)
        return tuple(out)

    def _first_binding(self, body: Sequence[Literal], fixed: Binding) -> Binding | None:
        found = self._solutions(body, fixed, limit=1)
        return found[0] if found else None

    def _solutions(self, body: Sequence[Literal], fixed: Binding, *, limit: int) -> list[Binding]:
        """The first ``limit`` solutions of ``body`` (sorted), each with ``fixed``."""
        lits = [partial_lit(lit, fixed) for lit in body]
        names = sorted(
            {v.name for lit in lits for v in vars_of(lit) if not v.name.startswith("_")}
            - {v.name for lit in lits if isinstance(lit, Negation) for v in vars_of(lit)}
        )
        return [{**fixed, **dict(zip(names, row))} for row in self.backend.ask(self.view, lits, names)[:limit]]

    # -- why not ---------------------------------------------------------
    def why_not(self, fact: tuple) -> list[WhyNot]:
        out = []
        for rule in self.program.rules_by_head.get(fact[0], ()):
            # an aggregate's value is judged once its body is (_aggregate_value): the body binds the rest
            asked = [None if isinstance(a, Aggregate) else v for a, v in zip(rule.head.args, fact[1:])]
            fixed = unify_head(rule.head, asked)
            if fixed is None:
                continue
            literals: list[tuple[str, bool | None]] = []
            details: list[tuple[str, ...]] = []
            failing: tuple | None = None  # the first failing literal's atom, ground by the first binding
            prefix: list = []
            # the variables the literals that held bind, and those only a failing literal would: a literal
            # reading one of these can't be judged (it is not reached; judged alone, `Y != X` would "hold")
            held, failed = set(fixed), set[str]()
            for lit in rule.body:
                names = {n for n in var_names(lit) if not n.startswith("_")}
                if names & failed - held:
                    literals.append((str(partial_lit(lit, fixed)), None))
                    details.append(
                        (f"not judged: {', '.join(sorted(names & failed - held))} only a failing literal binds",)
                    )
                    failed |= names - held
                    continue
                prefix.append(lit)
                ok = self._satisfiable(prefix, fixed)
                literals.append((str(partial_lit(lit, fixed)), ok))
                if not ok:
                    prefix.pop()  # keep judging the next literals against what did hold
                    lines, ground_at = self._why_fails(lit, prefix, fixed)
                    details.append(tuple(lines))
                    if failing is None and not any(ok is False for _, ok in literals[:-1]):
                        failing = ground_at
                    failed |= names - held
                else:
                    details.append(())
                    held |= names if isinstance(lit, Atom) else set()
            if rule.aggregate is not None:
                value = self._aggregate_value(rule, fact, fixed)
                literals.append(value[0])
                details.append(value[1])
            out.append(WhyNot(rule, tuple(literals), tuple(details), failing))
        return out

    def _aggregate_value(self, rule: Rule, fact: tuple, fixed: Binding) -> tuple[tuple[str, bool], tuple[str, ...]]:
        """The value an aggregate rule gives for the fact's other arguments, against the one asked: a
        pseudo-literal ``count() = 2`` (holds when it is the value asked) and what was asked."""
        at = next(i for i, a in enumerate(rule.head.args) if isinstance(a, Aggregate))
        agg = rule.head.args[at]
        probe = Atom(rule.head.pred, tuple(Var("Value_") if i == at else a for i, a in enumerate(rule.head.args)))
        values = sorted({b["Value_"] for b in self._bindings([probe], fixed) if "Value_" in b}, key=str)
        asked = fact[1 + at] if at + 1 < len(fact) else None
        shown = ", ".join(format_value(v) for v in values) or "none: no match of the body"
        return (f"{agg} = {shown}", asked in values), (f"asked for {format_value(asked)}",)

    MAX_SHOWN = 5

    def _bindings(self, prefix: Sequence[Literal], fixed: Binding) -> list[Binding]:
        """Up to MAX_SHOWN bindings of the variables the literals that held (``prefix``) bind."""
        lits = [partial_lit(lit, fixed) for lit in prefix]
        if not lits:
            return [dict(fixed)]
        from .analysis import order_body

        _, unbound = order_body(lits)
        lits = [lit for lit in lits if isinstance(lit, Atom) or not (var_names(lit) & unbound)]
        names = sorted({v for lit in lits if isinstance(lit, Atom) for v in var_names(lit) if not v.startswith("_")})
        rows = self.backend.ask(self.view, lits, names) if lits else [()]
        return [dict(fixed, **dict(zip(names, row))) for row in rows[: self.MAX_SHOWN]]

    def _why_fails(self, lit: Literal, prefix: Sequence[Literal], fixed: Binding) -> tuple[list[str], tuple | None]:
        """What a failing literal met: each binding the earlier literals gave, with the values found; and its
        atom (a negation's) ground by the first binding, when that grounds it."""
        lines: list[str] = []
        first: tuple | None = None
        for binding in self._bindings(prefix, fixed):
            atom = lit.atom if isinstance(lit, Negation) else lit
            if first is None and isinstance(atom, Atom):
                first = ground_or_none(partial_lit(atom, binding))
            wanted = sorted(n for n in var_names(lit) if n in binding and n not in fixed and not n.startswith("_"))
            where = (" with " + ", ".join(f"{n} = {format_value(binding[n])}" for n in wanted)) if wanted else ""
            if isinstance(lit, Comparison):
                left, right = eval_or_none(lit.left, binding), eval_or_none(lit.right, binding)
                values = (
                    ""
                    if left is None or right is None
                    else f": {format_value(left)} {lit.op} {format_value(right)} is false"
                )
                lines.append(f"{partial_lit(lit, binding)}{where}{values}")
            elif isinstance(lit, Negation):
                negated = partial_lit(lit, binding)
                lines.append(f"{negated}{where}: {negated.atom} holds")
                ground = ground_or_none(negated.atom)
                if ground is not None and self.backend.holds(self.view, Fact(*ground).to_atom()):
                    proof = self.prove(ground)
                    # under a "because rule": the proof's first line (its rule); `explain` it for the rest
                    proved = proof.to_text().splitlines()[: 1 if self._why_depth else None] if proof else []
                    lines.extend("    " + text for text in proved)
            else:
                shown = partial_lit(lit, binding)
                lines.append(f"{shown}{where}: no such fact" + self._found(shown))
                ground = ground_or_none(shown)
                if ground is not None:
                    lines.extend(self._removed(ground))
                    lines.extend(self._why_absent(ground))
        return lines, first

    FOUND_DEPTH = 1  # and, when a fact of it holds for the same first value, this many
    WHY_NOT_LINES = 40  # an absent fact's rules taking more lines than this are left to their own --why-not

    def _why_absent(self, fact: tuple) -> list[str]:
        """Why an absent derived fact does not hold: its rules, each with what holds and what fails. Below
        the asked fact's own rules, one of whose first argument a fact holds (``has_keyword(pikemen,
        first_strike)`` for double_strike) is not gone into: the facts found are answer enough there. Rules
        taking more than WHY_NOT_LINES lines (``defending_player(wurm, alice)``'s seven) are only counted."""
        if not self.program.derived(fact[0]) or self._why_depth >= self.why_not_depth:
            return []
        rest = [Var(f"V{i}") for i in range(len(fact) - 2)]
        if self._why_depth >= self.FOUND_DEPTH and rest:
            if self.backend.ask(self.view, [Atom(fact[0], (Const(fact[1]), *rest))], [v.name for v in rest]):
                return []
        self._why_depth += 1
        try:
            reasons = self.why_not(fact)
        finally:
            self._why_depth -= 1
        lines = [line for r in reasons for line in r.to_lines("    ", lead="because rule")]
        if len(lines) <= self.WHY_NOT_LINES:
            return lines
        rules = f"{len(reasons)} rules" if len(reasons) > 1 else "1 rule"
        return [f'    {rules} could derive it: explain --why-not "{Fact(*fact)}" shows what fails']

    def _found(self, atom: Atom) -> str:
        """The facts of the predicate that share the atom's first argument (the values that were found)."""
        if not atom.args:
            return ""
        names = [f"V{i}" for i in range(len(atom.args))]
        rows: list[tuple] = []
        if isinstance(atom.args[0], Const) and len(atom.args) > 1:  # the same first argument, other values
            rows = [
                (atom.args[0].value,) + tuple(r)
                for r in self.backend.ask(
                    self.view, [Atom(atom.pred, (atom.args[0],) + tuple(Var(n) for n in names[1:]))], names[1:]
                )
            ]
        if not rows:
            rows = list(self.backend.ask(self.view, [Atom(atom.pred, tuple(Var(n) for n in names))], names))
        if not rows:
            return f"; no {atom.pred} fact holds"
        found = [str(Atom(atom.pred, tuple(Const(v) for v in row))) for row in rows[: self.MAX_SHOWN]]
        return "; found " + ", ".join(found) + (", ..." if len(rows) > self.MAX_SHOWN else "")

    def _removed(self, fact: tuple) -> list[str]:
        """An absent fact that an action removed: the event that removed it and the rule that caused it."""
        from .interface import interface_of

        text = str(Fact(*fact))
        rows = self.backend.ask(self.view, [Atom("event_detail", (Var("N"), Const("fact"), Const(text)))], ["N"])
        seqs = [r[0] for r in rows]
        face = interface_of(self.program)
        for f in [fact] + ([(fact[0], fact[2], fact[1])] if len(fact) == 3 and fact[0] in face.symmetric else []):
            declared = face.record_events.get((f[0], "forget"))
            if declared is not None and len(f) == 3:  # a declared event: kind of A with detail = B
                kind, detail = declared
                seqs += [
                    r[0]
                    for r in self.backend.ask(
                        self.view,
                        [
                            Atom("event", (Var("N"), Const(kind), Const(f[1]))),
                            Atom("event_detail", (Var("N"), Const(detail), Const(f[2]))),
                        ],
                        ["N"],
                    )
                ]
        seqs = sorted(set(seqs))
        lines = []
        for n in seqs:
            found = self.backend.ask(self.view, [Atom("event", (Const(n), Var("K"), Var("S")))], ["K", "S"])
            cause = self.backend.ask(self.view, [Atom("event_cause", (Const(n), Var("R")))], ["R"])
            rule = self.program.rule_by_name.get(cause[0][0]) if cause else None
            event = ("event", n) + tuple(found[0]) if found else None
            origin = self.origins.get(event) if event else None
            by = f" by rule {rule.name} [CR {', '.join(rule.cites)}] {rule.span.short()}" if rule else ""
            at = f" (the action at {origin.short()})" if origin else ""
            what = found[0][0] if found else "removed"
            lines.append(f"  {text} was {what} at event {n}{by}{at}")
        return lines

    def _satisfiable(self, body: Sequence[Literal], fixed: Binding) -> bool:
        from .analysis import order_body

        lits = [partial_lit(lit, fixed) for lit in body]
        _, unbound = order_body(lits)
        if unbound:
            # a negation or comparison not yet bound by the literals so far: judge it once bound
            lits = [lit for lit in lits if isinstance(lit, Atom) or not (var_names(lit) & unbound)]
        names = sorted({v for lit in lits if isinstance(lit, Atom) for v in var_names(lit)})
        return bool(self.backend.ask(self.view, lits, names)) if lits else True


# -- helpers ---------------------------------------------------------------
def _none(view: Any, fact: tuple) -> None:
    return None
