"""The façade: an :class:`Engine` is a loaded rule set; it makes :class:`~judgelog.state.State` values.

>>> from judgelog import Engine
>>> engine = Engine()
>>> state = engine.load(engine.example("banding_blocked_by_one.yaml"))
>>> state.query("damage_assigner(bears, P)")  # 702.22k: the active player divides the blocker's damage
[{'P': 'alice'}]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace

from .answer_cache import AnswerCache
from .ast import Literal, Span
from .backend import Backend
from .catalog import default_catalog, facts_dir
from .codes import S101
from .contract import contract_problems
from .errors import Diagnostic, RuleError, UsageError
from .interface import interface_of
from .library import load_program
from .planning import row_sort_key
from .program import Program
from .protocols import Evaluator, StateMeta
from .recursion import DEFAULT_LIMITS, Limits
from .safefiles import allowing
from .scenario import Scenario, compile_scenario, load_scenario
from .state import State
from .validation import raise_for, scenario_problems
from .words import KEYWORD_TYPE

__all__ = ["Engine", "BACKENDS"]

BACKENDS = ("pydatalog", "clingo")  # the first is the default; clingo needs the clingo extra


def _make_backend(name: str, program: Program, limits: Limits, incremental: bool) -> Evaluator:
    if name == "clingo":
        from .clingo_backend import ClingoBackend  # imports clingo, or says which extra to install

        return ClingoBackend(program, limits=limits)
    return Backend(program, limits=limits, incremental=incremental)


class Engine:
    """Rules (the shipped library plus ``rules=[files or folders]``) compiled for evaluation.

    ``library``: another folder laid out like rules/ to use as the library (e.g. one without a keyword's
    file). ``properties``: also load the library's properties/ folder (what ``judgelog verify`` checks).
    ``backend``: ``"pydatalog"`` (the default) or ``"clingo"`` (needs ``pip install "judgelog[clingo]"``);
    both give the same answers, proofs and events. Raises :class:`~judgelog.errors.RuleError` listing every
    error when the rules do not check, or when they do not keep the engine's interface contract
    (judgelog.contract). ``limits`` bound evaluation (judgelog.recursion.Limits: facts derived by recursive
    rules, time, integer size; a LimitError ends a question that reaches one). ``incremental=False``:
    after each change of facts, recompute everything derived instead of what the change can affect
    (judgelog.incremental) — the same answers, slower; the differential tests compare the two.
    """

    def __init__(
        self,
        *,
        rules: Iterable[str] = (),
        include_library: bool = True,
        library: str | None = None,
        properties: bool = False,
        backend: str = "pydatalog",
        limits: Limits = DEFAULT_LIMITS,
        incremental: bool = True,
    ) -> None:
        if backend not in BACKENDS:
            raise UsageError(f"unknown backend {backend!r}", hint="backends: " + ", ".join(BACKENDS))
        self.backend_name = backend
        self.rule_paths: tuple[str, ...] = tuple(str(r) for r in rules)
        self.include_library = include_library
        self.library = None if library is None else str(library)  # another folder used as the library
        self.properties = properties  # also the library's properties/ (judgelog verify)
        self.limits = limits
        self.incremental = incremental
        result = load_program(
            self.rule_paths, include_library=include_library, library=self.library, properties=properties
        )
        result.raise_for_errors()
        problems = contract_problems(result.program)  # what the engine's Python needs from the rules
        if problems:
            raise RuleError(
                f"{len(problems)} problem(s): the rules do not keep the engine's interface contract",
                diagnostics=problems,
            )
        self.load_result = result
        self.program = result.program
        self.backend = _make_backend(backend, self.program, limits, incremental)
        self.catalog = default_catalog()
        # what the rules declare (rules/core/interface.dl); a scenario's own rules: extend it
        self.interface = replace(interface_of(self.program), extend=lambda paths: self.with_rules(paths).interface)
        self.keywords = self.interface.keywords
        self._derived: dict[tuple[str, ...], Engine] = {}
        # the runtime's whole-board questions, kept across actions and asked again only where facts changed
        self.answers = AnswerCache(self.program) if incremental else None

    def __repr__(self) -> str:
        return f"<Engine {len(self.program.rules)} rules, {len(self.program.decls)} predicates>"

    # -- states ----------------------------------------------------------
    def load(self, path: str, *, allow_dirs: Sequence[str] = ()) -> State:
        """Load a scenario file (YAML or JSON) as a state (its actions are not applied; see runtime).
        ``allow_dirs``: folders besides the scenario's own whose rule files it may name (judgelog.safefiles)."""
        with allowing(allow_dirs):
            return self.state_from_scenario(load_scenario(str(path), catalog=self.catalog, interface=self.interface))

    def state_from_dict(self, data: dict, *, path: str = "<dict>") -> State:
        return self.state_from_scenario(
            compile_scenario(data, path=path, catalog=self.catalog, interface=self.interface)
        )

    def state_from_scenario(self, scenario: Scenario) -> State:
        engine = self.with_rules(scenario.rules) if scenario.rules else self
        if not engine.properties and _expects_properties(scenario) and not _derives_properties(engine):
            engine = engine.with_properties()  # a counterexample of judgelog verify names its property
        engine.check_facts(scenario)
        meta = StateMeta(scenario=scenario)
        state = State(engine, scenario.facts, scenario.origins, name=scenario.name, path=scenario.path, meta=meta)
        # actions and expectations are checked before anything runs: a typo is never a rules answer
        raise_for(scenario_problems(state), scenario.path)
        return state

    def with_rules(self, paths: Sequence[str]) -> Engine:
        """An engine with these extra rule files (cached)."""
        key = tuple(str(p) for p in paths)
        return self._derive(key, rules=key)

    def with_properties(self) -> Engine:
        """This engine with the library's properties/ loaded too (cached)."""
        return self._derive(("<properties>",), properties=True)

    def _derive(self, key: tuple[str, ...], *, rules: tuple[str, ...] = (), properties: bool | None = None) -> Engine:
        """An engine like this one (library, backend, limits, incremental) with more rule files or the
        properties, made once per ``key``."""
        if key not in self._derived:
            self._derived[key] = Engine(
                rules=self.rule_paths + rules,
                include_library=self.include_library,
                library=self.library,
                properties=self.properties if properties is None else properties,
                backend=self.backend_name,
                limits=self.limits,
                incremental=self.incremental,
            )
        return self._derived[key]

    def check_facts(self, scenario: Scenario) -> None:
        """Every scenario fact must use a declared input predicate with the right arity."""
        from .errors import ScenarioError
        from .fact import fact_order

        problems: dict[tuple, list[Diagnostic]] = {}
        int_places: dict[tuple[str, int], tuple[int, ...] | None] = {}  # by predicate and length, once
        for fact in scenario.facts:
            shape = (fact[0], len(fact))
            if shape not in int_places:
                int_places[shape] = self._int_places(*shape)
            places = int_places[shape]
            if places is None or any(type(fact[i]) is not int for i in places):  # then say what is wrong
                found = self._fact_problems(fact, scenario.origins.get(fact))
                if found:
                    problems[fact] = found
        for fact in scenario.given:  # a keyword its facts: entries name must be one the rules declare
            if fact not in problems:
                found = self._keyword_problems(fact, scenario.origins.get(fact))
                if found:
                    problems[fact] = found
        diags = [d for fact in sorted(problems, key=fact_order) for d in problems[fact]]  # in the facts' order
        if not diags:  # its facts: entries against the declarations, its counters' kinds (judgelog.given_facts)
            from .given_facts import counter_kind_problems, given_fact_problems

            warnings = counter_kind_problems(self.program, scenario.facts, scenario.origins)
            if scenario.given:
                warnings += given_fact_problems(self.program, scenario.facts, scenario.given, scenario.origins)
            scenario.warnings.extend(w for w in warnings if w not in scenario.warnings)
        if diags:
            raise ScenarioError(f"{len(diags)} problem(s) in {scenario.path}", diagnostics=diags)

    def _int_places(self, pred: str, length: int) -> tuple[int, ...] | None:
        """The places of a fact of ``pred`` and ``length`` that hold integers, or None if no such fact is
        declared."""
        from .analysis import INT_TYPES

        decl = self.program.decl(pred)
        if decl is None or decl.arity != length - 1:
            return None
        return tuple(i for i, param in enumerate(decl.params, 1) if param.type in INT_TYPES)

    def _fact_problems(self, fact: tuple, span: Span | None) -> list[Diagnostic]:
        from .analysis import INT_TYPES, suggest

        decl = self.program.decl(fact[0])
        if decl is None:
            near = suggest(fact[0], self.program.decls)
            hint = f"did you mean {near!r}?" if near else None
            return [Diagnostic(S101, f"unknown predicate {fact[0]!r} in a fact", span, hint=hint)]
        if decl.arity != len(fact) - 1:
            return [Diagnostic(S101, f"{fact[0]} takes {decl.arity} argument(s), given {len(fact) - 1}", span)]
        return [
            Diagnostic(
                S101,
                f"argument {param.name!r} of {fact[0]} is an integer, given {value!r}",
                span,
                hint="write a whole number",
            )
            for param, value in zip(decl.params, fact[1:])
            if param.type in INT_TYPES and (not isinstance(value, int) or isinstance(value, bool))
        ]

    def _keyword_problems(self, fact: tuple, span: Span | None) -> list[Diagnostic]:
        """S101 for each argument of a given fact declared as a keyword (``granted_keyword(hero, flyng)``) that
        no loaded rule file declares: checked as an object's ``keywords:`` entries are."""
        from .analysis import suggest

        decl = self.program.decl(fact[0])
        if decl is None or decl.arity != len(fact) - 1:
            return []
        known = sorted(self.interface.keywords)
        out = []
        for param, value in zip(decl.params, fact[1:]):
            if param.type == KEYWORD_TYPE and value not in self.interface.keywords:
                near = suggest(str(value), known)
                out.append(
                    Diagnostic(
                        S101,
                        f"unknown keyword {value!r} in {fact[0]} (its {param.name}: {KEYWORD_TYPE})",
                        span,
                        hint=(f"did you mean {near!r}? " if near else "")
                        + "no loaded rule file declares it (keyword/1 in rules/core/interface.dl)",
                    )
                )
        return out

    def ask_rows(self, facts: frozenset, body: Sequence[Literal], names: Sequence[str]) -> list[tuple]:
        """The backend's sorted rows of ``names`` for a checked body over ``facts``."""
        with self.backend.session(facts) as view:
            return self.backend.ask(view, body, names)

    def ask_again(self, facts: frozenset, body: Sequence[Literal], names: Sequence[str]) -> list[tuple]:
        """:meth:`ask_rows` for a question asked of one fact set after another (the runtime's whole-board
        questions): the last answers are kept and only what the change of facts can affect is asked again
        (judgelog.answer_cache.AnswerCache)."""
        if self.answers is None:
            return self.ask_rows(facts, body, names)
        among = self._ask_among if getattr(self.backend, "asks_among", False) else None
        dead = getattr(self.backend, "dead_rules", None)
        after = getattr(self.backend, "dead_rules_after", None)
        return self.answers.ask(facts, tuple(body), list(names), self.ask_rows, row_sort_key, among, dead, after)

    def _ask_among(
        self, facts: frozenset, body: Sequence[Literal], names: Sequence[str], among: dict[str, frozenset]
    ) -> list[tuple]:
        """:meth:`ask_rows` with variables bound to sets of values (a backend whose ``asks_among`` is true)."""
        with self.backend.session(facts) as view:
            return self.backend.ask(view, body, names, among=among)  # type: ignore[call-arg]

    # -- shipped examples ------------------------------------------------
    @staticmethod
    def example(name: str) -> str:
        """Path of a bundled scenario in facts/scenarios/."""
        path = facts_dir() / "scenarios" / name
        if not path.exists():
            raise UsageError(
                f"no bundled scenario {name!r}",
                hint="bundled: " + ", ".join(sorted(os.listdir(facts_dir() / "scenarios"))),
            )
        return str(path)


def _derives_properties(engine: Engine) -> bool:
    """Whether the loaded rules already derive property violations (a counterexample folder of judgelog
    verify carries copies of the property files it needs)."""
    return any(rule.head.pred == "property_violation" for rule in engine.program.rules if rule.body)


def _expects_properties(scenario: Scenario) -> bool:
    """Whether an expectation asks about a property's violations (then the properties must be loaded, or
    the expectation would hold for want of the rules that derive them)."""
    return any(
        isinstance(entry.get(key), str) and "property_violation" in entry[key]
        for entry, _span in scenario.expects
        for key in ("query", "holds", "absent", "explain")
    )
