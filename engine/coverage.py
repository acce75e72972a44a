"""Rule coverage: which rules of the library fire in a set of test scenarios.

A rule is *used* when its body has a solution in some state the tests went through: each scenario's
state as loaded, every intermediate state its actions were evaluated in (action facts included, so the
rules of actions, choices and violations count), and its final state. The states are collected by the
observer the caller passes in (``run_scenario_file(engine, path, observer=states.append)``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .ast import Rule
    from .engine import Engine

__all__ = ["CoverageReport", "rules_used", "coverage_report"]


def rules_used(engine: Engine, states: Iterable[frozenset], candidates: Iterable[Rule]) -> set[int]:
    """ids of the ``candidates`` rules whose body has a solution in at least one of ``states``.

    Whether a body has a solution depends only on the state's facts of the predicates it reads, directly or
    through rules: a rule is not asked again in a state that agrees, on those predicates, with a state it
    was asked in already (the states a scenario's actions go through differ in a few predicates each)."""
    from .ast import Atom, Const, Negation

    backend = engine.backend
    program = engine.program
    left = [r for r in candidates if r.body]
    # a positive body atom of a predicate no rule derives holds only if the state has a fact of it that has
    # the atom's constants in their places: a state without one cannot fire the rule, and is not asked
    given = {
        id(r): {
            (lit.pred, tuple((i, arg.value) for i, arg in enumerate(lit.args, 1) if isinstance(arg, Const)))
            for lit in r.body
            if isinstance(lit, Atom) and not program.derived(lit.pred)
        }
        for r in left
    }
    # the predicates each rule's answer depends on (one tuple per distinct set, shared by its rules), and the
    # facts of them in each state a rule was asked in (by the tuple's id)
    reads: dict[frozenset[str], tuple[str, ...]] = {}
    depends: dict[int, tuple[str, ...]] = {}
    for rule in left:
        preds = {
            (lit.atom if isinstance(lit, Negation) else lit).pred
            for lit in rule.body
            if isinstance(lit, (Atom, Negation))
        }
        closure = frozenset(program.dependencies(preds))
        depends[id(rule)] = reads.setdefault(closure, tuple(sorted(closure)))
    asked: dict[int, set[tuple]] = {id(preds): set() for preds in reads.values()}
    used: set[int] = set()
    unique: dict[frozenset, None] = {}
    for facts in states:
        unique.setdefault(facts, None)
    # each distinct set of one predicate's facts met so far, by predicate, numbered: a state's facts of the
    # predicates a rule reads are compared as a tuple of these numbers (not set by set)
    numbers: dict[str, dict[frozenset, int]] = {}
    for facts in unique:
        if not left:
            break
        grouped: dict[str, set[tuple]] = {}
        for fact in facts:
            grouped.setdefault(fact[0], set()).add(fact)
        number = {}
        for pred, found in grouped.items():
            known = numbers.setdefault(pred, {})
            number[pred] = known.setdefault(frozenset(found), len(known))
        present: dict[tuple, bool] = {}  # (predicate, constants) -> whether a fact has them, in this state

        def has(pred: str, consts: tuple, grouped: dict[str, set[tuple]] = grouped, present: dict = present) -> bool:
            found = present.get((pred, consts))
            if found is None:
                found = present[(pred, consts)] = pred in grouped and (
                    not consts or any(all(f[i] == v for i, v in consts) for f in grouped[pred])
                )
            return found

        askable = []
        seen: dict[int, bool] = {}  # id of a rule's predicates -> whether this state's facts of them are new
        for rule in left:
            if not all(has(pred, consts) for pred, consts in given[id(rule)]):
                continue
            reading = depends[id(rule)]
            new = seen.get(id(reading))
            if new is None:
                key = tuple([number.get(pred, -1) for pred in reading])
                new = seen[id(reading)] = key not in asked[id(reading)]
                asked[id(reading)].add(key)
            if new:
                askable.append(rule)
        if not askable:
            continue
        with backend.session(facts) as view:
            for rule in askable:
                if rule.aggregate is not None:
                    fired = bool(backend.ask(view, program.body(rule), []))
                else:
                    fired = bool(backend.why_rows(view, rule, {}, limit=1))
                if fired:
                    used.add(id(rule))
        left = [rule for rule in left if id(rule) not in used]
    return used


@dataclass
class CoverageReport:
    per_file: dict[str, list[int]] = field(default_factory=dict)  # file -> [used, total]
    unused: list[tuple] = field(default_factory=list)  # (file, line, name)

    @property
    def used(self) -> int:
        return sum(u for u, _ in self.per_file.values())

    @property
    def total(self) -> int:
        return sum(t for _, t in self.per_file.values())

    @property
    def percent(self) -> float:
        return 100.0 * self.used / self.total if self.total else 100.0

    def to_dict(self) -> dict:
        return {
            "used": self.used,
            "total": self.total,
            "percent": round(self.percent, 1),
            "files": {f: {"used": u, "total": t} for f, (u, t) in sorted(self.per_file.items())},
            "unused": [{"file": f, "line": line, "rule": n} for f, line, n in self.unused],
        }

    def to_text(self) -> str:
        lines = ["Rule coverage (rules whose body held in some tested state):"]
        for f, (u, t) in sorted(self.per_file.items()):
            lines.append(f"  {f:<45} {u:>4}/{t:<4} {100.0 * u / t if t else 100.0:5.1f}%")
        lines.append(f"  {'total':<45} {self.used:>4}/{self.total:<4} {self.percent:5.1f}%")
        if self.unused:
            lines.append("Unused rules:")
            lines += [f"  {f}:{line}  {n}" for f, line, n in self.unused]
        return "\n".join(lines)


def coverage_report(engine: Engine, states: Iterable[frozenset], *, library_only: bool = True) -> CoverageReport:
    from .library import is_library_path

    rules = [r for r in engine.program.rules if r.body]
    if library_only:
        rules = [
            r
            for r in rules
            if r.span.file.startswith("rules/") or r.span.file == "facts/cards.yaml" or is_library_path(r.span.file)
        ]
    used = rules_used(engine, states, rules)
    report = CoverageReport()
    for rule in rules:
        counts = report.per_file.setdefault(rule.span.file, [0, 0])
        counts[1] += 1
        if id(rule) in used:
            counts[0] += 1
        else:
            report.unused.append((rule.span.file, rule.span.line, rule.name or "(unnamed)"))
    report.unused.sort()
    return report
