"""State-based actions, for the runtime (judgelog.runtime): performed whenever a player would receive
priority (704.3), which is after every action, or after its last part when the parts of an action come
before any player would receive priority (``follow_up_before_priority/0``, rules/core/runtime.dl).

Whether any state-based action applies, and what it does, is said by the rules only (``state_based/5``,
with the standing designations ``standing/5`` applied before each round). Bob's Grizzly Bears, 0/0 once the
effect "until your next turn" that kept them alive has ended as his turn began, untap in his untap step and die
only in his upkeep (502.4: no player receives priority in the untap step):

>>> from judgelog import Engine
>>> from judgelog.runtime import run_actions
>>> engine = Engine()
>>> start = engine.load(engine.example("untap_step_no_state_based_actions_until_the_upkeep.yaml"))
>>> _, events = run_actions(start)
>>> [(e.kind, e.subject) for e in events if e.kind in ("untapped", "upkeep_began", "dies")]
[('untapped', 'bears'), ('untapped', 'giant'), ('upkeep_began', 'bob'), ('dies', 'bears')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .action_args import TRANSIENT
from .errors import ActionError

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

    from .change import Event
    from .factview import WorkingFacts
    from .step_facts import StepFacts

__all__ = ["StateBasedSteps", "MAX_SBA_ROUNDS"]

MAX_SBA_ROUNDS = 100


class StateBasedSteps:
    """The runtime's state-based actions (a part of judgelog.runtime's ``_Run``, which gives the state below:
    its events so far, how to ask the rules, make choices and apply effects)."""

    events: list[Event]
    steps: StepFacts
    pending_triggers: list[tuple[int, tuple, list[tuple]]]  # (seq, (source, kind, subject, ...), args): judgelog.stack

    def ask(self, facts: Iterable[tuple], text: str) -> list[dict[str, Any]]:  # pragma: no cover - the runtime's
        raise NotImplementedError

    def _choices(self, facts: WorkingFacts, choose: object, used: set[str]) -> set[tuple]:  # pragma: no cover
        raise NotImplementedError

    def _effects(self, facts: WorkingFacts, query: str, *, rule_prefix: str = "") -> WorkingFacts:  # pragma: no cover
        raise NotImplementedError

    def _state_based(
        self, facts: WorkingFacts, choose: object = None, used_choices: set[str] | None = None
    ) -> WorkingFacts:
        """Apply standing designations and state-based actions until none applies (704.3). A choice a
        state-based action needs (the legend rule, 704.5j) is an action choice: the runtime asserts
        ``state_check`` while it asks, and takes the value from the action's ``choose:``. The abilities that
        have triggered and wait to be put on the stack are ``trigger_waiting(Source, Kind, Subject)`` while it
        asks (704.5s: a Saga that is the source of a chapter ability that has triggered but not yet left the
        stack is not sacrificed)."""
        used_choices = set() if used_choices is None else used_choices
        for _ in range(MAX_SBA_ROUNDS):
            recent = {("recent_event", e.seq) for e in self.events}
            probe = facts | recent | {f for e in self.events for f in e.facts()} | {("state_check",)}
            probe |= {("trigger_waiting", *t[1][:3]) for t in self.pending_triggers}
            probe |= self._choices(probe, choose, used_choices)
            rows = self.ask(probe, "state_based(I, P, A, B, C)") or self.ask(probe, "standing(I, P, A, B, C)")
            if not rows:
                return self.steps.without(facts, ("state_check",))
            before = len(self.events)
            facts = self._effects(self._effects(probe, "standing(I, P, A, B, C)"), "state_based(I, P, A, B, C)")
            facts = self.steps.without(facts, TRANSIENT + ("state_check", "trigger_waiting"))
            if len(self.events) == before:
                return facts  # nothing changed: stop rather than loop
        raise ActionError(f"state-based actions did not settle in {MAX_SBA_ROUNDS} rounds")
