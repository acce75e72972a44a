"""The bundled scenarios replayed once per engine configuration and test process, shared by the tests that
read them (the backends compared, incremental steps against full recomputations, the ``do`` round trip,
the events' rules).

States are values (a refused action, or a test asking a question, cannot change one), so a test reading a
shared replay cannot disturb another; what the tests derive from a state (every declared predicate's facts,
a proof of each derived one) is computed once per state as well. The tests that read the replays carry one
``xdist_group`` by scenario (:func:`group_of`, :func:`scenario_param`): the scenarios are dealt into
:data:`GROUPS` groups (runs of :data:`SAMPLE`), and pytest-xdist runs the tests of one group on one worker,
which replays each of its scenarios once (one group of every scenario was a unit longer than the rest of the
suite on the other worker).
(The rule coverage of the bundled scenarios is CI's ``judgelog test --fail-under 90``, not a replay's.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from paths import SCENARIOS

from judgelog import Engine
from judgelog.recursion import recursive_components
from judgelog.replay import Step, replay

__all__ = [
    "CONFIGS",
    "NAMES",
    "SAMPLE",
    "GROUPS",
    "SCENARIO_GROUP",
    "Replay",
    "Replays",
    "group_of",
    "group_params",
    "sample",
    "scenario_param",
    "normal_proof",
]

NAMES = sorted(p.name for p in SCENARIOS.glob("*.yaml"))

# the engine configurations the tests compare, by name: Engine(**CONFIGS[name])
CONFIGS: dict[str, dict] = {
    "pydatalog": {},
    "clingo": {"backend": "clingo"},
    "full": {"incremental": False},
    # the reference every bundled scenario's replay on the default engine is compared with: the other backend,
    # every question asked whole (no incremental step in the backend, no answer kept by the runtime), so that
    # one comparison checks both the backend and the incremental steps against an evaluation sharing neither
    "reference": {"backend": "clingo", "incremental": False},
}


def _reference_available() -> bool:
    """Whether the reference's backend (clingo, the test extra) is installed."""
    from importlib.util import find_spec

    return find_spec("clingo") is not None


if not _reference_available():  # without clingo, the reference is pyDatalog asking every question whole
    CONFIGS["reference"] = CONFIGS["full"]


# the xdist_groups of the tests that read the bundled scenarios' replays are SCENARIO_GROUP-0 ... (one per
# worker of a 2-core machine: see the module's text)
SCENARIO_GROUP = "bundled-scenarios"
GROUPS = 2


# the comparisons that isolate one difference (incremental steps on the same backend, the runtime's kept answers
# on clingo) replay every SAMPLE-th bundled scenario: the comparison with the reference covers every one
SAMPLE = 8


def sample(offset: int) -> list[str]:
    """Every SAMPLE-th bundled scenario, from the ``offset``-th (the samples of two tests need not meet)."""
    return NAMES[offset::SAMPLE]


def _group(index: int) -> int:
    # runs of SAMPLE scenarios in name order are dealt to the groups in turn: each sample (every SAMPLE-th
    # scenario, replayed on more engines) falls into every group alike (dealt one by one, each sample would
    # fall into one group)
    return (index // SAMPLE) % GROUPS


def group_of(name: str) -> str:
    """The xdist_group of the tests that read a bundled scenario's replays."""
    return f"{SCENARIO_GROUP}-{_group(NAMES.index(name))}"


def group_params() -> list:
    """One test parameter per group (the names of its scenarios), in that group: a test over every bundled
    scenario that reads their replays runs as one test per worker that holds them."""
    return [
        pytest.param(
            [n for i, n in enumerate(NAMES) if _group(i) == g],
            id=f"{SCENARIO_GROUP}-{g}",
            marks=pytest.mark.xdist_group(f"{SCENARIO_GROUP}-{g}"),
        )
        for g in range(GROUPS)
    ]


def scenario_param(name: str, *marks) -> object:
    """A test parameter for a bundled scenario, in its replays' xdist group (the worker that holds them)."""
    return pytest.param(name, id=name, marks=[pytest.mark.xdist_group(group_of(name)), *marks])


EVERYDAY_EVERY = 100  # the everyday suite replays every 100th bundled scenario; CI's slow tier and `judgelog test` all


def everyday_scenario_params() -> list:
    """:func:`scenario_param` of every bundled scenario, all but every :data:`EVERYDAY_EVERY`-th marked slow
    (tests/sampling.py): replaying the scenarios is most of the everyday suite's time. CI runs both tiers, and
    ``judgelog test facts/scenarios`` (every expectation of every scenario) besides."""
    return [scenario_param(n, *(() if i % EVERYDAY_EVERY == 0 else (pytest.mark.slow,))) for i, n in enumerate(NAMES)]


def _skeleton(node: dict) -> list:
    """A proof's kinds and rules, depth first, without atoms and bindings."""
    return [(node.get("kind"), node.get("rule"))] + [x for p in node.get("premises", ()) for x in _skeleton(p)]


def normal_proof(node: dict, recursive: frozenset[str] | set[str]) -> dict:
    """A proof as JSON, where the proof of a fact of a recursive predicate is kept as its rules only: it
    shows the first derivation found, whose witnesses depend on the order facts were computed in (which
    differs between the two backends, and between an incremental step and a full recomputation)."""
    if node.get("term", {}).get("pred") in recursive:
        return {"atom": node.get("atom"), "skeleton": _skeleton(node)}
    return {k: ([normal_proof(p, recursive) for p in v] if k == "premises" else v) for k, v in node.items()}


@dataclass(frozen=True)
class Replay:
    """A bundled scenario loaded and its actions replayed (judgelog.replay) on one engine."""

    name: str
    start: object  # the state as loaded
    steps: tuple[Step, ...]

    @property
    def states(self) -> list:
        """The state as loaded, then the state after each step."""
        return [self.start] + [s.state for s in self.steps]

    @property
    def as_written(self) -> bool:
        """Whether every action went as the scenario says: applied, or refused where it says ``expect_error``."""
        return all(step.problem is None and not step.derails for step in self.steps)

    def final(self) -> tuple[object, list]:
        """``(final_state, events)`` as :func:`judgelog.runtime.run_actions` gives them; the scenario's
        actions must all go as written (each applied, or refused where it says ``expect_error``)."""
        for step in self.steps:
            assert step.problem is None and not step.derails, (self.name, step.index, step.problem, step.error)
        return self.states[-1], [e for s in self.steps for e in s.events]


@dataclass
class Replays:
    """The session's replays and what was derived from their states; see the module's docstring."""

    engines: dict[str, Engine] = field(default_factory=dict)
    _starts: dict[tuple[str, str], object] = field(default_factory=dict)
    _replays: dict[tuple[str, str], Replay] = field(default_factory=dict)
    # by id() of the state, with the state itself (kept alive: its id is not reused)
    _derived: dict[int, tuple[object, dict[str, list]]] = field(default_factory=dict)
    _proofs: dict[int, tuple[object, dict]] = field(default_factory=dict)
    # by id() of the program, with the program itself: the predicates of its recursive components
    _recursive: dict[int, tuple[object, frozenset[str]]] = field(default_factory=dict)

    def engine(self, config: str) -> Engine:
        if config not in self.engines:
            self.engines[config] = Engine(**CONFIGS[config])
        return self.engines[config]

    def start(self, config: str, name: str):
        """A bundled scenario's state as loaded."""
        key = (config, name)
        if key not in self._starts:
            engine = self.engine(config)
            self._starts[key] = engine.load(engine.example(name))
        return self._starts[key]

    def get(self, config: str, name: str) -> Replay:
        key = (config, name)
        if key not in self._replays:
            start = self.start(config, name)
            actions = list(start.meta.scenario.actions) if start.meta.scenario else []
            self._replays[key] = Replay(name, start, tuple(replay(start, actions)))
        return self._replays[key]

    def derived(self, state) -> dict[str, list]:
        """Every fact of every declared predicate in a state."""
        if id(state) not in self._derived:
            facts = state.derived_all()
            self._derived[id(state)] = (state, facts)
        return self._derived[id(state)][1]

    def proofs(self, state) -> dict:
        """The proof (:func:`normal_proof`) of the first fact of every derived predicate in a state."""
        if id(state) not in self._proofs:
            program = state.engine.program
            if id(program) not in self._recursive:
                preds = frozenset(p for c in recursive_components(program) for p in c.preds)
                self._recursive[id(program)] = (program, preds)
            recursive = self._recursive[id(program)][1]
            out: dict = {}
            for pred, found in self.derived(state).items():
                if program.derived(pred) and found:
                    proof = state.explain(found[0])
                    assert proof is not None, found[0]
                    out[found[0]] = normal_proof(proof.to_dict(), recursive)
            self._proofs[id(state)] = (state, out)
        return self._proofs[id(state)][1]
