"""Rule coverage: which rules of the library fire in a set of test scenarios.

A rule is *used* when its body has a solution in some state the tests went through: each scenario's
state as loaded, every intermediate state its actions were evaluated in (action facts included, so the
rules of actions, choices and violations count), and its final state. A :class:`RuleUse` is shown them as
the runtime evaluates them (``run_scenario_file(engine, path, observer=use.observe)``), which asks in each
state while the backend holds it, and reports by file (:meth:`RuleUse.report`); :func:`coverage_report`
does the same for states collected first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .ast import Rule
    from .engine import Engine
    from .protocols import Rules

__all__ = ["Coverage", "CoverageReport", "Recent", "RuleUse", "coverage_report", "library_rules", "rules_used"]


class Recent:
    """The ``size`` keys met most recently, each with the value it was first met with: a memo whose size does
    not grow with the number of keys it is shown (the one met least recently is forgotten first)."""

    __slots__ = ("_items", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, object] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def recall(self, key: Hashable, value: object) -> object:
        """The value ``key`` is held with, else ``value``, held with it from now on (as the most recent key)."""
        items = self._items
        if key in items:
            items.move_to_end(key)
            return items[key]
        items[key] = value
        if len(items) > self.size:
            items.popitem(last=False)
        return value

    def remember(self, key: Hashable) -> bool:
        """Whether ``key`` is new (not among those held); it is held from now on."""
        marker = object()
        return self.recall(key, marker) is marker


class RuleUse:
    """Which of the ``candidates`` rules have a body with a solution in some state :meth:`observe` is shown.

    A state is asked about as it is shown: an observer of a scenario run (``observer=use.observe``) asks in
    the state the runtime is about to ask about, so that the backend readies each state once for both.
    Whether a body has a solution depends only on the state's facts of the predicates it reads, directly or
    through rules: a rule is not asked again in a state that agrees, on those predicates, with a state it
    was asked in already (the states a scenario's actions go through differ in a few predicates each).

    What is remembered of the states shown is bounded (:class:`Recent`): the last ``RECENT`` distinct
    agreements of each set of predicates (a state agrees with the states just before it far more often than
    with older ones), the last ``RECENT_SETS`` distinct sets of each predicate's facts, the last ``RECENT``
    states. A state forgotten only makes a rule asked again in a state like it: the rules found used are the
    same, however many states are shown."""

    RECENT = 8
    RECENT_SETS = 64

    def __init__(self, engine: Rules, candidates: Iterable[Rule]) -> None:
        from .ast import Atom, Const, Negation

        self.engine = engine
        self.used: set[int] = set()  # ids of the rules found used
        program = engine.program
        self.candidates = [r for r in candidates if r.body]
        self._left = list(self.candidates)
        # a positive body atom of a predicate no rule derives holds only if the state has a fact of it that
        # has the atom's constants in their places: a state without one cannot fire the rule, and is not asked
        self._given = {
            id(r): {
                (lit.pred, tuple((i, arg.value) for i, arg in enumerate(lit.args, 1) if isinstance(arg, Const)))
                for lit in r.body
                if isinstance(lit, Atom) and not program.derived(lit.pred)
            }
            for r in self._left
        }
        # each positive body atom of a derived predicate: asked once per state (shared by the rules that have
        # it, up to its variables' names), a rule is not asked where one of them has no fact (a rule never used
        # is asked in every new state: most have a premise that holds nowhere in it, found so at once)
        self._probes = {
            id(r): [lit for lit in r.body if isinstance(lit, Atom) and program.derived(lit.pred)] for r in self._left
        }
        # the predicates each rule's answer depends on (one tuple per distinct set, shared by its rules), and
        # the facts of them in each state a rule was asked in (by the tuple's id)
        reads: dict[frozenset[str], tuple[str, ...]] = {}
        self._depends: dict[int, tuple[str, ...]] = {}
        for rule in self._left:
            preds = {
                (lit.atom if isinstance(lit, Negation) else lit).pred
                for lit in rule.body
                if isinstance(lit, (Atom, Negation))
            }
            closure = frozenset(program.dependencies(preds))
            self._depends[id(rule)] = reads.setdefault(closure, tuple(sorted(closure)))
        self._asked = {id(preds): Recent(self.RECENT) for preds in reads.values()}
        self._seen = Recent(self.RECENT)
        # each distinct set of one predicate's facts met lately, by predicate, numbered (a number is never given
        # twice): a state's facts of the predicates a rule reads are compared as a tuple of these numbers
        self._numbers: dict[str, Recent] = {}
        self._count = count()

    def observe(self, facts: frozenset) -> None:  # noqa: C901
        """Ask, in the state of ``facts``, the rules not found used yet that this state may fire."""
        from .ast import Atom, Const

        if not self._left or not self._seen.remember(facts):
            return
        grouped: dict[str, set[tuple]] = {}
        for fact in facts:
            grouped.setdefault(fact[0], set()).add(fact)
        number: dict[str, object] = {}
        for pred, found in grouped.items():
            known = self._numbers.setdefault(pred, Recent(self.RECENT_SETS))
            number[pred] = known.recall(frozenset(found), next(self._count))
        present: dict[tuple, bool] = {}  # (predicate, constants) -> whether a fact has them, in this state

        def has(pred: str, consts: tuple) -> bool:
            found = present.get((pred, consts))
            if found is None:
                found = present[(pred, consts)] = pred in grouped and (
                    not consts or any(all(f[i] == v for i, v in consts) for f in grouped[pred])
                )
            return found

        askable = []
        seen: dict[int, bool] = {}  # id of a rule's predicates -> whether this state's facts of them are new
        for rule in self._left:
            if not all(has(pred, consts) for pred, consts in self._given[id(rule)]):
                continue
            reading = self._depends[id(rule)]
            new = seen.get(id(reading))
            if new is None:
                key = tuple([number.get(pred, -1) for pred in reading])
                new = seen[id(reading)] = self._asked[id(reading)].remember(key)
            if new:
                askable.append(rule)
        if not askable:
            return
        backend, program = self.engine.backend, self.engine.program
        with backend.session(facts) as view:
            probed: dict[object, bool] = {}

            def holds(atom: Atom) -> bool:
                # the same atom up to its variables' names: a variable by the place it first appears in
                key = (atom.pred, tuple(a.value if isinstance(a, Const) else atom.args.index(a) for a in atom.args))
                if key not in probed:
                    probed[key] = bool(backend.ask(view, [atom], []))
                return probed[key]

            for rule in askable:
                if not all(holds(atom) for atom in self._probes[id(rule)]):
                    continue
                if rule.aggregate is not None:
                    fired = bool(backend.ask(view, program.body(rule), []))
                else:
                    fired = bool(backend.why_rows(view, rule, {}, limit=1))
                if fired:
                    self.used.add(id(rule))
        self._left = [rule for rule in self._left if id(rule) not in self.used]

    def remembered(self) -> int:
        """How many states, agreements and fact sets are remembered: at most a number set by the program (its
        predicates and rules), however many states are shown."""
        return len(self._seen) + sum(map(len, self._asked.values())) + sum(map(len, self._numbers.values()))

    def report(self) -> CoverageReport:
        """The coverage of the candidate rules by the states shown so far, by file."""
        return CoverageReport.of(dict(self.uses()))

    def uses(self) -> Iterator[tuple[tuple[str, int, str], bool]]:
        """Each candidate rule (file, line, name) and whether it was found used."""
        for rule in self.candidates:
            yield (rule.span.file, rule.span.line, rule.name or "(unnamed)"), id(rule) in self.used


class Coverage:
    """The coverage of every rule (with a body) that the engines of a test run loaded: the library in use
    (the shipped one, or ``--library``'s folder), ``--rules`` files and each scenario's own ``rules:``. A scenario
    with rule files of its own runs on an engine of its own: :meth:`observer` gives the observer of the states
    of one engine, and :meth:`report` counts a rule used when it held in a state of any engine that loaded it
    (a rule is known by its file, line and name)."""

    def __init__(self) -> None:
        self._uses: dict[int, tuple[Rules, RuleUse]] = {}  # by id() of the engine, with the engine

    def observer(self, engine: Rules) -> Callable[[frozenset], None]:
        """What observes the states a scenario goes through on ``engine`` (``run_scenario_file(observer=...)``)."""
        if id(engine) not in self._uses:
            self._uses[id(engine)] = (engine, RuleUse(engine, library_rules(engine, library_only=False)))
        return self._uses[id(engine)][1].observe

    def report(self) -> CoverageReport:
        rules: dict[tuple[str, int, str], bool] = {}  # (file, line, name) -> used by some engine
        for _, use in self._uses.values():
            for key, used in use.uses():
                rules[key] = rules.get(key, False) or used
        return CoverageReport.of(rules)


def rules_used(engine: Engine, states: Iterable[frozenset], candidates: Iterable[Rule]) -> set[int]:
    """ids of the ``candidates`` rules whose body has a solution in at least one of ``states`` (:class:`RuleUse`)."""
    use = RuleUse(engine, candidates)
    for facts in states:
        use.observe(facts)
    return use.used


@dataclass
class CoverageReport:
    per_file: dict[str, list[int]] = field(default_factory=dict)  # file -> [used, total]
    unused: list[tuple] = field(default_factory=list)  # (file, line, name)

    @classmethod
    def of(cls, rules: dict[tuple[str, int, str], bool]) -> CoverageReport:
        """The report of rules (file, line, name) each found used or not."""
        report = cls()
        for (file, line, name), used in rules.items():
            counts = report.per_file.setdefault(file, [0, 0])
            counts[1] += 1
            counts[0] += used
            if not used:
                report.unused.append((file, line, name))
        report.unused.sort()
        return report

    @property
    def used(self) -> int:
        return sum(u for u, _ in self.per_file.values())

    @property
    def total(self) -> int:
        return sum(t for _, t in self.per_file.values())

    @property
    def percent(self) -> float:
        return 100.0 * self.used / self.total if self.total else 100.0

    def shortfalls(self, percent: float) -> list[str]:
        """What falls short of ``judgelog test --coverage --fail-under percent``: the share of the rules used
        under ``percent``, and each rule file none of whose rules was used (a file the tests never reach).

        >>> used = {("a.dl", 1, "a.one"): True, ("a.dl", 2, "a.two"): False, ("b.dl", 1, "b"): False}
        >>> report = CoverageReport.of(used)
        >>> report.shortfalls(30)
        ['b.dl: none of its 1 rule(s) used']
        >>> report.shortfalls(50)
        ['33.3% of the rules used', 'b.dl: none of its 1 rule(s) used']
        """
        out = [f"{self.percent:.1f}% of the rules used"] if self.percent < percent else []
        out += [f"{f}: none of its {t} rule(s) used" for f, (u, t) in sorted(self.per_file.items()) if u == 0]
        return out

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


def library_rules(engine: Rules, *, library_only: bool = True) -> list[Rule]:
    """The rules coverage is reported of: those with a body, of the shipped library only by default."""
    from .library import is_library_path

    rules = [r for r in engine.program.rules if r.body]
    if library_only:
        rules = [
            r
            for r in rules
            if r.span.file.startswith("rules/") or r.span.file == "facts/cards.yaml" or is_library_path(r.span.file)
        ]
    return rules


def coverage_report(engine: Engine, states: Iterable[frozenset], *, library_only: bool = True) -> CoverageReport:
    """The coverage of the library's rules (``library_only``) by ``states`` (:meth:`RuleUse.report`)."""
    use = RuleUse(engine, library_rules(engine, library_only=library_only))
    for facts in states:
        use.observe(facts)
    return use.report()
