"""Proof trees as values: why an atom holds (:class:`Proof`, with the defaults it displaced) and why it
does not (:class:`WhyNot`); built by judgelog.provenance, shown as text, JSON and HTML.

>>> leaf = Proof("tapped(bear)", ProofKind.FACT)
>>> leaf.to_dict()
{'atom': 'tapped(bear)', 'kind': 'fact'}
>>> print(Proof("blocking(bear, hero)", ProofKind.ABSENT).to_text())
not blocking(bear, hero)  [absent]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .ast import Aggregate, Const, Rule, Span, Var, format_value

__all__ = ["Proof", "ProofKind", "Displacement", "WhyNot", "NearHead", "nearest_heads", "no_head_matches"]


class ProofKind(StrEnum):
    """What a node of a proof tree is; its value is the word the text and JSON outputs show."""

    RULE = "rule"  # derived by a rule (Proof.rule_obj)
    FACT = "fact"  # a scenario fact, a fact an action made, or a rule-file fact
    ABSENT = "absent"  # a negated atom that does not hold
    COMPARISON = "comparison"
    AGGREGATE = "aggregate"  # derived by an aggregate rule, over the bindings shown
    TRUNCATED = "truncated"  # holds, deeper than the prover goes (Proof.cut_at steps): its proof is cut


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

    ``kind`` (a :class:`ProofKind`) is ``rule`` (derived by :attr:`rule_obj`), ``fact`` (a scenario or
    rule-file fact), ``absent`` (a negated atom that does not hold), ``comparison``, ``aggregate`` or
    ``truncated`` (an atom that holds, deeper than ``cut_at`` steps, judgelog.provenance.MAX_PROOF_DEPTH: its
    proof is cut).
    """

    atom: str
    kind: ProofKind
    rule_obj: Rule | None = None
    bindings: tuple[tuple[str, object], ...] = ()
    premises: tuple[Proof, ...] = ()
    origin: Span | None = None
    sentence: str = ""
    displaced: tuple[Displacement, ...] = ()
    fact: tuple | None = field(default=None, compare=False)
    cut_at: int = field(default=0, compare=False, repr=False)  # truncated: the depth that cut the proof

    @property
    def rule(self) -> str | None:
        return self.rule_obj.name if self.rule_obj is not None else None

    @property
    def cites(self) -> tuple[str, ...]:
        return self.rule_obj.cites if self.rule_obj is not None else ()

    def walk(self) -> Iterator[Proof]:
        """Every node of the tree, depth first (displacement proofs included)."""
        yield self
        for p in self.premises:
            yield from p.walk()
        for d in self.displaced:
            yield from d.blocked_by.walk()

    def all_cites(self) -> set[str]:
        return {c for node in self.walk() for c in node.cites}

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"atom": self.atom, "kind": self.kind.value}
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
        if self.kind in (ProofKind.RULE, ProofKind.AGGREGATE) and self.rule_obj is not None:
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
        elif self.kind is ProofKind.FACT:
            where = self.origin.short() if self.origin else "?"
            made = ""
            if self.rule_obj is not None and self.rule_obj.body:
                made = f", made by {self.rule_obj.name} [CR {', '.join(self.rule_obj.cites)}]"
            lines = [f"{pad}{self.atom}  [fact] {where}{made}"]
        elif self.kind is ProofKind.ABSENT:
            lines = [f"{pad}not {self.atom}  [absent]"]
            for d in self.displaced:  # a rule that would give the atom but for an exception: what stops it
                dc = ", ".join(d.rule.cites)
                lines.append(f"{pad}   {d.rule.name} [CR {dc}] {d.rule.span.short()} would give {d.would_give},")
                lines.append(f"{pad}     but {d.blocked_by.atom} holds:")
                lines.extend(d.blocked_by._lines(indent + 3))
        elif self.kind is ProofKind.COMPARISON:
            lines = [f"{pad}{self.atom}  [comparison]"]
        elif self.kind is ProofKind.TRUNCATED:
            lines = [f"{pad}{self.atom}  [holds; proof deeper than {self.cut_at} steps not shown]"]
        else:
            lines = [f"{pad}{self.atom}  [{self.kind}]"]
        for p in self.premises:
            lines.extend(p._lines(indent + 1))
        return lines


@dataclass(frozen=True)
class WhyNot:
    """For one rule whose head matches: which body literals hold and which fail."""

    rule: Rule
    literals: tuple[tuple[str, bool | None], ...]  # True holds, False fails, None not judged (after a failure)
    # for each literal: lines that show a failing one with values (bindings, facts found, the proof of a
    # negated atom that holds, the event that removed an absent fact); empty for a literal that holds
    details: tuple[tuple[str, ...], ...] = ()
    # the first failing literal's atom (a negation's: the atom that holds), ground by the first binding of the
    # literals before it; None when that leaves it open
    failing: tuple | None = field(default=None, compare=False)

    def to_lines(self, indent: str = "", *, lead: str = "rule") -> list[str]:
        """The rule, then each literal of its body (``holds`` or ``FAILS``) with what a failing one met."""
        lines = [f"{indent}{lead} {self.rule.name} [CR {', '.join(self.rule.cites)}] {self.rule.span.short()}:"]
        for (text, ok), more in zip(self.literals, self.details or tuple(() for _ in self.literals)):
            lines.append(f"{indent}  {'--    ' if ok is None else 'holds ' if ok else 'FAILS '} {text}")
            lines.extend(f"{indent}           {line}" for line in more)
        return lines

    def to_dict(self) -> dict:
        details = self.details or tuple(() for _ in self.literals)
        return {
            "rule": self.rule.name,
            "cites": list(self.rule.cites),
            "at": self.rule.span.short(),
            "literals": [{"literal": t, "holds": ok, "details": list(d)} for (t, ok), d in zip(self.literals, details)],
        }


@dataclass(frozen=True)
class NearHead:
    """A rule deriving the predicate asked whose head does not match the atom asked: where it differs."""

    rule: Rule
    matched: int  # the head's constants that are the values asked
    differs: tuple[str, ...]  # each place the head can't give the value asked: "knight is not attacks_alone"

    def to_line(self, indent: str = "") -> str:
        cites = f" [CR {', '.join(self.rule.cites)}]" if self.rule.cites else ""
        lead = f"rule {self.rule.name}" if self.rule.name else "fact" if self.rule.is_fact else "rule"
        return f"{indent}{lead}{cites} {self.rule.span.short()}: {self.rule.head}: " + "; ".join(self.differs)

    def to_dict(self) -> dict:
        return {
            "rule": self.rule.name,
            "cites": list(self.rule.cites),
            "at": self.rule.span.short(),
            "head": str(self.rule.head),
            "differs": list(self.differs),
        }


def nearest_heads(rules: list[Rule], fact: tuple, *, shown: int = 5) -> tuple[list[NearHead], int]:
    """Of the rules deriving ``fact``'s predicate, none of whose heads matches it, the nearest: those whose
    head has the most of the values asked as constants, then the fewest differences; up to ``shown`` of
    them, in file order, and how many more there are as near.
    """
    found: list[NearHead] = []
    for rule in rules:
        matched, differs, seen = 0, [], dict[str, object]()
        for arg, value in zip(rule.head.args, fact[1:]):
            if isinstance(arg, Aggregate):
                continue
            if isinstance(arg, Const):
                if arg.value == value and type(arg.value) is type(value):
                    matched += 1
                else:
                    differs.append(f"{format_value(value)} is not {format_value(arg.value)}")
            elif isinstance(arg, Var) and not arg.name.startswith("_"):
                if arg.name in seen and seen[arg.name] != value:
                    differs.append(f"{arg.name} can't be both {format_value(seen[arg.name])} and {format_value(value)}")
                seen.setdefault(arg.name, value)
        found.append(NearHead(rule, matched, tuple(differs)))
    if not found:
        return [], 0
    best = max(n.matched for n in found)
    near = [n for n in found if n.matched == best]
    if best == 0:  # no head has any value asked: the ones that differ least
        fewest = min(len(n.differs) for n in near)
        near = [n for n in near if len(n.differs) == fewest]
    return near[:shown], max(0, len(near) - shown)


def no_head_matches(rules: list[Rule], fact: tuple) -> tuple[list[str], list[dict]]:
    """What ``--why-not`` says when ``rules`` derive the fact's predicate but none has a head that can give
    the values asked: the lines, and the nearest heads as JSON."""
    near, more = nearest_heads(rules, fact)
    facts = sum(1 for r in rules if r.is_fact)
    given = [f"{len(rules) - facts} rule(s) derive"] if len(rules) > facts else []
    given += [f"{facts} fact(s) of the rule files state"] if facts else []
    lines = [
        f"  {' and '.join(given)} {fact[0]}/{len(fact) - 1}, but none whose head matches these values; the nearest:"
    ]
    lines.extend(n.to_line("  ") for n in near)
    lines.extend([f"  and {more} more as near"] if more else [])
    return lines, [n.to_dict() for n in near]
