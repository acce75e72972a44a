"""Replaying a scenario's ``actions:``: the one loop that ``do``, ``test``, the other verbs and the API share.

Each action is applied to the state the previous ones left; an action marked ``expect_error`` must be
refused with a message that mentions its text (or the CR number it names), and then changes nothing.
:func:`replay` yields one :class:`Step` per action and stops at the first one that went wrong;
:func:`run_actions` raises for that step, and ``judgelog test`` records it as a failed case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .ast import Span
from .change import Event
from .errors import ActionError, JudgelogError, QueryError, UsageError

__all__ = ["Step", "replay", "run_actions", "refusal_matches"]


def refusal_matches(expected: object, text: str) -> bool:
    """Does a refusal's message match an action's ``expect_error:`` (its text, or the CR it names)?

    >>> refusal_matches("legal options", "bolster: a choice is required; Legal options: elves, lions")
    True
    >>> refusal_matches("701.39", "bolster: bears is not a player (CR 701.39a)")
    True
    >>> refusal_matches("no such reason", "bolster: a choice is required (CR 701.39a)")
    False
    """
    from .cr import resolve

    return str(expected).lower() in text.lower() or (resolve(str(expected)) or "") in text


@dataclass(frozen=True)
class Step:
    """One replayed action: the state after it (the state before it when it was refused) and its events."""

    index: int
    action: dict
    span: Span
    state: Any
    events: tuple[Event, ...] = ()
    error: JudgelogError | None = None  # the refusal, when the action was refused

    @property
    def expected(self) -> str | None:
        value = self.action.get("expect_error")
        return None if value is None else str(value)

    @property
    def problem(self) -> str | None:
        """What went wrong with an action marked ``expect_error`` (None: refused as expected, or unmarked)."""
        if self.expected is None:
            return None
        if self.error is None:
            return f"expected a refusal mentioning {self.expected!r}, but it was applied"
        plain = isinstance(self.error, UsageError) and not isinstance(self.error, QueryError)
        told = self.error.message if plain else str(self.error)
        if refusal_matches(self.expected, told):  # what the refusal says, not the hint of a usage error
            return None
        return f"refused, but the message does not mention {self.expected!r}: {self.error}"

    @property
    def derails(self) -> bool:
        """Whether the states after this step no longer follow the scenario: an action refused that was to be
        applied, or one applied that was to be refused (a refusal with another message changes nothing)."""
        return (self.error is None) == (self.expected is not None)


def replay(
    state: Any, actions: Sequence[tuple[dict, Span]], *, observer: Callable[[frozenset], None] | None = None
) -> Iterator[Step]:
    """Apply ``(action, span)`` pairs in order, yielding a :class:`Step` each; stop after the first one that
    :attr:`~Step.derails`. ``observer``: passed to every :meth:`~judgelog.state.State.apply`."""
    for index, (action, span) in enumerate(actions):
        plain = {k: v for k, v in action.items() if k != "expect_error"}
        try:
            after, events = state.apply(plain, span=span, observer=observer)
        except JudgelogError as exc:
            step = Step(index, action, span, state, error=exc)
        else:
            step = Step(index, action, span, after, tuple(events))
        yield step
        if step.derails:
            return
        state = step.state


def run_actions(state: Any, *, limit: int | None = None) -> tuple[Any, list[Event]]:
    """Apply a scenario's ``actions:`` (the first ``limit`` of them) in order: ``(final_state, events)``.
    An unexpected refusal is raised as it is, with the action's place and the events before it; an
    ``expect_error`` that does not hold is an :class:`ActionError`."""
    scenario = state.meta.scenario
    actions = list(scenario.actions if scenario else [])[:limit]
    events: list[Event] = []
    for step in replay(state, actions):
        before = [e.to_text() for e in events]
        if step.problem is not None:
            raise ActionError(f"action at line {step.span.line} {step.problem}").in_context(
                index=step.index, span=step.span, events=before
            )
        if step.derails:  # refused, and no refusal was expected
            assert step.error is not None
            if isinstance(step.error, ActionError):
                raise step.error.in_context(index=step.index, span=step.span, events=before) from None
            raise step.error
        state = step.state
        events.extend(step.events)
    return state, events
