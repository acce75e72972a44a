"""Proofs: why an atom holds (a tree of rules and facts) and why it does not (which body literals fail).

pyDatalog has no provenance of its own. For every rule the backend keeps a twin ``why`` clause whose head
lists all the rule's variables; it costs nothing until asked. To prove ``h(c...)`` we take each rule for
``h``, bind its head to the constants, ask the twin for a full binding, and recurse into the instantiated
premises. Leaves are scenario facts (with their file:line), rule-file facts, comparisons and ``[absent]``
negations. Choices are deterministic: rules in file order, bindings in sorted order.

When the proved atom's predicate is declared ``functional(key...)``, the proof also lists the *displaced
defaults*: rules for the same key whose positive premises hold but whose ``not ...`` fails, with the proof of
what blocked them (e.g. 510.1c displaced by 702.22j).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .ast import Atom, BinOp, Comparison, Const, Negation, Rule, Span, Var, arith, format_value
from .errors import QueryError

__all__ = ["Proof", "Displacement", "WhyNot", "Prover", "ground", "MAX_PROOF_DEPTH"]

MAX_PROOF_DEPTH = 200


def _atom_text(pred: str, args: Sequence) -> str:
    return f"{pred}({', '.join(format_value(a) for a in args)})"


@dataclass(frozen=True)
class Displacement:
    """A default rule that would have applied but for an exception."""

    rule: Rule
    blocked_by: Proof  # proof of the atom whose negation failed
    would_give: str  # the atom the default would have derived

    def to_dict(self) -> dict:
        return {
            "rule": self.rule.name,
            "cites": list(self.rule.cites),
            "at": self.rule.span.short(),
            "would_give": self.would_give,
            "blocked_by": self.blocked_by.to_dict(),
        }


@dataclass(frozen=True)
class Proof:
    """A node of a proof tree.

    ``kind`` is ``rule`` (derived by :attr:`rule_obj`), ``fact`` (a scenario or rule-file fact),
    ``absent`` (a negated atom that does not hold), ``comparison``, ``aggregate``, ``cycle`` or
    ``truncated`` (an atom that holds, deeper than :data:`MAX_PROOF_DEPTH` steps: its proof is cut).
    """

    atom: str
    kind: str
    rule_obj: Rule | None = None
    bindings: tuple[tuple[str, object], ...] = ()
    premises: tuple[Proof, ...] = ()
    origin: Span | None = None
    sentence: str = ""
    displaced: tuple[Displacement, ...] = ()
    fact: tuple | None = field(default=None, compare=False)

    @property
    def rule(self) -> str | None:
        return self.rule_obj.name if self.rule_obj is not None else None

    @property
    def cites(self) -> tuple[str, ...]:
        return self.rule_obj.cites if self.rule_obj is not None else ()

    def walk(self):
        """Every node of the tree, depth first (displacement proofs included)."""
        yield self
        for p in self.premises:
            yield from p.walk()
        for d in self.displaced:
            yield from d.blocked_by.walk()

    def all_cites(self) -> set[str]:
        return {c for node in self.walk() for c in node.cites}

    def to_dict(self) -> dict:
        data = {"atom": self.atom, "kind": self.kind}
        if self.fact is not None:
            data["term"] = {"pred": self.fact[0], "args": list(self.fact[1:])}
        if self.sentence:
            data["sentence"] = self.sentence
        if self.rule_obj is not None:
            data["rule"] = self.rule_obj.name
            data["cites"] = list(self.rule_obj.cites)
            data["at"] = self.rule_obj.span.short()
        if self.bindings:
            data["bindings"] = {k: v for k, v in self.bindings}
        if self.origin is not None:
            data["at"] = self.origin.short()
        if self.premises:
            data["premises"] = [p.to_dict() for p in self.premises]
        if self.displaced:
            data["displaces"] = [d.to_dict() for d in self.displaced]
        return data

    def to_text(self, indent: int = 0) -> str:
        return "\n".join(self._lines(indent))

    def _lines(self, indent: int) -> list[str]:
        pad = "  " * indent
        if self.kind == "rule" or self.kind == "aggregate":
            rule = self.rule_obj
            cites = ", ".join(rule.cites) if rule.cites else "no CR"
            head = f"{pad}{self.atom}  <- {rule.name or '(unnamed rule)'} [CR {cites}] {rule.span.short()}"
            lines = [head]
            if self.sentence:
                lines.append(f'{pad}   "{self.sentence}"')
            if self.bindings:
                lines.append(f"{pad}   with " + ", ".join(f"{k}={format_value(v)}" for k, v in self.bindings))
            premise_atoms = {p.atom for p in self.premises}
            for d in self.displaced:
                dc = ", ".join(d.rule.cites)
                lines.append(
                    f"{pad}   displaces {d.rule.name} [CR {dc}] {d.rule.span.short()}, which would give {d.would_give},"
                )
                if d.blocked_by.atom in premise_atoms:
                    lines.append(f"{pad}     because {d.blocked_by.atom} holds (proved below)")
                else:
                    lines.append(f"{pad}     because {d.blocked_by.atom} holds:")
                    lines.extend(d.blocked_by._lines(indent + 3))
        elif self.kind == "fact":
            where = self.origin.short() if self.origin else "?"
            made = ""
            if self.rule_obj is not None and self.rule_obj.body:
                made = f", made by {self.rule_obj.name} [CR {', '.join(self.rule_obj.cites)}]"
            lines = [f"{pad}{self.atom}  [fact] {where}{made}"]
        elif self.kind == "absent":
            lines = [f"{pad}not {self.atom}  [absent]"]
        elif self.kind == "comparison":
            lines = [f"{pad}{self.atom}  [comparison]"]
        elif self.kind == "truncated":
            lines = [f"{pad}{self.atom}  [holds; proof deeper than {MAX_PROOF_DEPTH} steps not shown]"]
        else:
            lines = [f"{pad}{self.atom}  [{self.kind}]"]
        for p in self.premises:
            lines.extend(p._lines(indent + 1))
        return lines


@dataclass(frozen=True)
class WhyNot:
    """For one rule whose head matches: which body literals hold and which fail."""

    rule: Rule
    literals: tuple[tuple[str, bool], ...]
    # for each literal: lines that show a failing one with values (bindings, facts found, the proof of a
    # negated atom that holds, the event that removed an absent fact); empty for a literal that holds
    details: tuple[tuple[str, ...], ...] = ()

    def to_dict(self) -> dict:
        details = self.details or tuple(() for _ in self.literals)
        return {
            "rule": self.rule.name,
            "cites": list(self.rule.cites),
            "at": self.rule.span.short(),
            "literals": [{"literal": t, "holds": ok, "details": list(d)} for (t, ok), d in zip(self.literals, details)],
        }


class Prover:
    """Builds proofs for one materialised state (inside a backend session)."""

    def __init__(self, backend, view, origins: dict[tuple, Span], causes: dict[tuple, str] | None = None) -> None:
        self.causes = causes or {}
        self.backend = backend
        self.program = backend.program
        self.view = view
        self.origins = origins
        self._rule_facts: dict[tuple, Rule] = self.program.fact_rules

    def sentence(self, fact: tuple) -> str:
        decl = self.program.decl(fact[0])
        return decl.sentence(fact[1:]) if decl is not None and decl.template else ""

    # -- proofs ----------------------------------------------------------
    def prove(self, fact: tuple, *, with_displaced: bool = True) -> Proof | None:
        return self._prove(fact, frozenset(), 0, with_displaced)

    def _prove(self, fact: tuple, path: frozenset, depth: int, with_displaced: bool = False) -> Proof | None:
        text = _atom_text(fact[0], fact[1:])
        if fact in self.origins or fact in (self.view.facts or ()):
            made_by = self.program.rule_by_name.get(self.causes.get(fact, ""))
            return Proof(
                text, "fact", rule_obj=made_by, origin=self.origins.get(fact), sentence=self.sentence(fact), fact=fact
            )
        rule_fact = self._rule_facts.get(fact)
        if rule_fact is not None:
            return Proof(
                text, "fact", rule_obj=rule_fact, origin=rule_fact.span, sentence=self.sentence(fact), fact=fact
            )
        if fact in path:
            return None
        if depth > MAX_PROOF_DEPTH:  # the atom holds (every premise asked for does); stop showing why
            return Proof(text, "truncated", sentence=self.sentence(fact), fact=fact)
        contributions = self.backend.aggregate_contributions(self.view, fact)
        if contributions is not None and contributions.bindings:
            return self._prove_aggregate(fact, contributions, path | {fact}, depth)
        for rule, binding in self._derivations(fact):
            premises = self._premises(rule, binding, path | {fact}, depth)
            if premises is None:
                continue
            shown = tuple((k, v) for k, v in sorted(binding.items()) if not k.startswith("_"))
            return Proof(
                text,
                "rule",
                rule,
                shown,
                tuple(premises),
                sentence=self.sentence(fact),
                displaced=self._displaced(rule, fact) if with_displaced else (),
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
            fixed = _unify_head(rule.head, fact[1:])
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
                atom = _partial(lit.atom, binding)
                if self.backend.holds(self.view, atom):  # would make the proof cite a false premise
                    return None
                out.append(Proof(str(atom), "absent", sentence=self._neg_sentence(atom)))
            else:
                left, right = _eval(lit.left, binding), _eval(lit.right, binding)
                out.append(Proof(f"{format_value(left)} {lit.op} {format_value(right)}", "comparison"))
        return out

    def _neg_sentence(self, atom: Atom) -> str:
        decl = self.program.decl(atom.pred)
        if decl is None or not decl.template:
            return ""
        args = ["any" if isinstance(a, Var) else a.value for a in atom.args]
        return "not: " + decl.sentence(args)

    def _prove_aggregate(self, fact, contributions, path, depth) -> Proof:
        rule = contributions.rule
        premises = []
        for binding in contributions.bindings[:20]:
            sub = self._premises(rule, binding, path, depth)
            if sub:
                premises.extend(sub)
        return Proof(
            _atom_text(fact[0], fact[1:]),
            "aggregate",
            rule,
            (("over", f"{len(contributions.bindings)} binding(s)"),),
            tuple(premises),
            sentence=self.sentence(fact),
            fact=fact,
        )

    def _displaced(self, used: Rule, fact: tuple) -> tuple[Displacement, ...]:
        decl = self.program.decl(fact[0])
        if decl is None or not decl.functional:
            return ()
        keys = {i for i, p in enumerate(decl.params) if p.name in decl.functional}
        out = []
        for rule in self.program.rules_by_head.get(fact[0], ()):
            if rule is used or not any(isinstance(lit, Negation) for lit in rule.body):
                continue
            partial = [a if i in keys else None for i, a in enumerate(fact[1:])]
            fixed = _unify_head(rule.head, partial)
            if fixed is None:
                continue
            for neg in [lit for lit in rule.body if isinstance(lit, Negation)]:
                flipped = tuple(neg.atom if lit is neg else lit for lit in rule.body)
                found = self._first_binding(flipped, fixed)
                if found is None:
                    continue
                blocker = self._prove(ground(neg.atom, found), frozenset(), 0)
                if blocker is None:
                    continue
                would = _atom_text(fact[0], [_eval(a, found) for a in rule.head.args])
                out.append(Displacement(rule, blocker, would))
                break
        return tuple(out)

    def _first_binding(self, body, fixed: dict) -> dict | None:
        lits = [_partial_lit(lit, fixed) for lit in body]
        names = sorted(
            {v.name for lit in lits for v in _vars_of(lit) if not v.name.startswith("_")}
            - {v.name for lit in lits if isinstance(lit, Negation) for v in _vars_of(lit)}
        )
        rows = self.backend.ask(self.view, lits, names)
        if not rows:
            return None
        found = dict(fixed)
        found.update(zip(names, rows[0]))
        return found

    def deriving_rule(self, fact: tuple) -> Rule | None:
        """The first rule (in file order) that derives ``fact`` in this state, without a full proof."""
        if fact in self._rule_facts:
            return self._rule_facts[fact]
        candidates = [
            r
            for r in self.program.rules_by_head.get(fact[0], ())
            if r.body and r.aggregate is None and _unify_head(r.head, fact[1:]) is not None
        ]
        if len(candidates) == 1:
            return candidates[0]
        for rule in candidates:
            if self.backend.why_rows(self.view, rule, _unify_head(rule.head, fact[1:]), limit=1):
                return rule
        return None

    # -- why not ---------------------------------------------------------
    def why_not(self, fact: tuple) -> list[WhyNot]:
        out = []
        for rule in self.program.rules_by_head.get(fact[0], ()):
            fixed = _unify_head(rule.head, fact[1:])
            if fixed is None:
                continue
            literals, details = [], []
            prefix: list = []
            for lit in rule.body:
                prefix.append(lit)
                ok = self._satisfiable(prefix, fixed)
                literals.append((str(_partial_lit(lit, fixed)), ok))
                if not ok:
                    prefix.pop()  # keep judging the next literals against what did hold
                    details.append(tuple(self._why_fails(lit, prefix, fixed)))
                else:
                    details.append(())
            out.append(WhyNot(rule, tuple(literals), tuple(details)))
        return out

    MAX_SHOWN = 5

    def _bindings(self, prefix, fixed) -> list[dict]:
        """Up to MAX_SHOWN bindings of the variables the literals that held (``prefix``) bind."""
        lits = [_partial_lit(lit, fixed) for lit in prefix]
        if not lits:
            return [dict(fixed)]
        from .analysis import order_body

        _, unbound = order_body(lits)
        lits = [lit for lit in lits if isinstance(lit, Atom) or not (_vars_names(lit) & unbound)]
        names = sorted({v for lit in lits if isinstance(lit, Atom) for v in _vars_names(lit) if not v.startswith("_")})
        rows = self.backend.ask(self.view, lits, names) if lits else [()]
        return [dict(fixed, **dict(zip(names, row))) for row in rows[: self.MAX_SHOWN]]

    def _why_fails(self, lit, prefix, fixed) -> list[str]:
        """What a failing literal met: each binding the earlier literals gave, with the values found."""
        lines: list[str] = []
        for binding in self._bindings(prefix, fixed):
            shown = _partial_lit(lit, binding)
            wanted = sorted(n for n in _vars_names(lit) if n in binding and n not in fixed and not n.startswith("_"))
            where = (" with " + ", ".join(f"{n} = {format_value(binding[n])}" for n in wanted)) if wanted else ""
            if isinstance(lit, Comparison):
                left, right = _eval_or_none(lit.left, binding), _eval_or_none(lit.right, binding)
                values = (
                    ""
                    if left is None or right is None
                    else f": {format_value(left)} {lit.op} {format_value(right)} is false"
                )
                lines.append(f"{shown}{where}{values}")
            elif isinstance(lit, Negation):
                lines.append(f"{shown}{where}: {shown.atom} holds")
                ground = _ground_or_none(shown.atom)
                if ground is not None and self.backend.holds(self.view, _const_atom(ground)):
                    proof = self.prove(ground)
                    lines.extend("    " + text for text in proof.to_text().splitlines())
            else:
                lines.append(f"{shown}{where}: no such fact" + self._found(shown))
                ground = _ground_or_none(shown)
                if ground is not None:
                    lines.extend(self._removed(ground))
        return lines

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

        text = _fact_text(fact)
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
            kind = self.backend.ask(self.view, [Atom("event", (Const(n), Var("K"), Var("S")))], ["K", "S"])
            cause = self.backend.ask(self.view, [Atom("event_cause", (Const(n), Var("R")))], ["R"])
            rule = self.program.rule_by_name.get(cause[0][0]) if cause else None
            event = ("event", n) + tuple(kind[0]) if kind else None
            origin = self.origins.get(event) if event else None
            by = f" by rule {rule.name} [CR {', '.join(rule.cites)}] {rule.span.short()}" if rule else ""
            at = f" (the action at {origin.short()})" if origin else ""
            what = kind[0][0] if kind else "removed"
            lines.append(f"  {text} was {what} at event {n}{by}{at}")
        return lines

    def _satisfiable(self, body, fixed) -> bool:
        from .analysis import order_body

        lits = [_partial_lit(lit, fixed) for lit in body]
        _, unbound = order_body(lits)
        if unbound:
            # a negation or comparison not yet bound by the literals so far: judge it once bound
            lits = [lit for lit in lits if isinstance(lit, Atom) or not (_vars_names(lit) & unbound)]
        names = sorted({v for lit in lits if isinstance(lit, Atom) for v in _vars_names(lit)})
        return bool(self.backend.ask(self.view, lits, names)) if lits else True


# -- helpers ---------------------------------------------------------------
def _none(view, fact):
    return None


def _unify_head(head: Atom, values: Sequence) -> dict | None:
    binding: dict = {}
    for arg, value in zip(head.args, values):
        if value is None:
            continue
        if isinstance(arg, Const):
            if arg.value != value or type(arg.value) is not type(value):
                return None
        elif isinstance(arg, Var):
            if arg.name in binding and binding[arg.name] != value:
                return None
            binding[arg.name] = value
        else:
            return None
    return binding


def _eval(term, binding):
    if isinstance(term, Var):
        return binding.get(term.name, term.name)
    if isinstance(term, Const):
        return term.value
    if isinstance(term, BinOp):
        left, right = _eval(term.left, binding), _eval(term.right, binding)
        if type(left) is int and type(right) is int and arith(term.op, left, right) is not None:
            return arith(term.op, left, right)
        return str(BinOp(term.op, Const(left), Const(right)))
    raise QueryError(f"cannot evaluate {term}")


def _eval_or_none(term, binding):
    try:
        value = _eval(term, binding)
    except QueryError:
        return None
    return None if isinstance(term, Var) and term.name not in binding else value


def _ground_or_none(atom: Atom) -> tuple | None:
    if not all(isinstance(a, Const) for a in atom.args):
        return None
    return (atom.pred,) + tuple(a.value for a in atom.args)


def _const_atom(fact: tuple) -> Atom:
    return Atom(fact[0], tuple(Const(v) for v in fact[1:]))


def _fact_text(fact: tuple) -> str:
    return f"{fact[0]}({', '.join(format_value(v) for v in fact[1:])})"


def ground(atom: Atom, binding: dict) -> tuple:
    """The fact ``atom`` stands for under ``binding`` (every variable bound; arithmetic evaluated)."""
    return (atom.pred,) + tuple(_eval(a, binding) for a in atom.args)


def _partial(atom: Atom, binding: dict) -> Atom:
    args = []
    for a in atom.args:
        if isinstance(a, Var) and a.name in binding:
            args.append(Const(binding[a.name]))
        else:
            args.append(a)
    return Atom(atom.pred, tuple(args), atom.span)


def _partial_term(term, binding):
    if isinstance(term, Var) and term.name in binding:
        return Const(binding[term.name])
    if isinstance(term, BinOp):
        return BinOp(term.op, _partial_term(term.left, binding), _partial_term(term.right, binding), term.span)
    return term


def _partial_lit(lit, binding):
    if isinstance(lit, Atom):
        return _partial(lit, binding)
    if isinstance(lit, Negation):
        return Negation(_partial(lit.atom, binding), lit.span)
    return Comparison(lit.op, _partial_term(lit.left, binding), _partial_term(lit.right, binding), lit.span)


def _vars_of(lit):
    atom = lit.atom if isinstance(lit, Negation) else lit
    if isinstance(atom, Atom):
        terms = atom.args
    else:
        terms = (lit.left, lit.right)
    out = []
    for t in terms:
        out.extend(_term_var_objs(t))
    return out


def _term_var_objs(t):
    if isinstance(t, Var):
        return [t]
    if isinstance(t, BinOp):
        return _term_var_objs(t.left) + _term_var_objs(t.right)
    return []


def _vars_names(lit) -> set:
    return {v.name for v in _vars_of(lit)}
