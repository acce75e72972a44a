"""The order triggered abilities go on the stack: APNAP order (603.3b), each player's abilities in the order
they triggered unless the action's ``order:`` names them, top of the stack first.

>>> a = (1, ("hero", "exalted", "hero", "alice", None), [])
>>> b = (2, ("bird", "exalted", "hero", "alice", None), [])
>>> named = {id(a): "ability_1", id(b): "ability_2"}
>>> matched = set()
>>> [named[id(t)] for t in stack_order([a, b], named, {"alice": 0}, [["hero", "exalted"]], matched=matched)]
['ability_2', 'ability_1']
>>> matched
{0}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import ActionError, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from .ast import Span
    from .protocols import Board

__all__ = ["check_order_named", "check_order_shape", "order_location", "stack_order"]


def stack_order(
    pending: list[tuple], named: dict[int, str], ranks: dict[Any, int], order: object, *, matched: set[int]
) -> list[tuple]:
    """The order abilities go on the stack (first = bottom). ``order:`` lists abilities top first: a
    source id (all its abilities), [source, kind], [source, kind, subject], or an ability id.

    ``pending``: (sequence number, (source, kind, subject, controller, instance), args) in trigger order;
    ``named``: id() of each -> its ability id; ``ranks``: player -> APNAP rank; ``order``: the action's
    ``order:``. The positions of the entries that name an ability are added to ``matched``: an action the
    rules apply again (follow_up: a combat damage action passing through the declare blockers step, or going
    on from the first-strike step to the regular one) stacks abilities at the end of each application, and
    an entry that names none in any of them is refused once it is done (:func:`check_order_named`)."""
    if order is None:
        return pending
    check_order_shape(order)
    assert isinstance(order, list)
    rank: dict[int, tuple[int, int]] = {}
    for j, entry in enumerate(order):
        hits = [t for t in pending if _names(entry, t, named[id(t)])]
        if hits:
            matched.add(j)
        for t in hits:
            rank.setdefault(id(t), (j, t[0]))
    # within each player's group: unnamed first (in trigger order), then named, the first named on top
    return sorted(
        pending,
        key=lambda t: (
            ranks.get(t[1][3], len(ranks)),
            (0, t[0]) if id(t) not in rank else (1, -rank[id(t)][0], t[0]),
        ),
    )


def check_order_shape(order: object) -> None:
    """An ``order:`` is a list of abilities: a UsageError otherwise."""
    if not isinstance(order, list) or not all(_entry_shape(e) for e in order):
        raise UsageError(
            f"order: must be a list of abilities (a source id, [source, kind], [source, kind, "
            f"subject] or an ability id), top of the stack first, got {order!r}",
            hint="e.g. order: [[hero, my_trigger], ability_3, other_source]",
        )


def check_order_named(order: object, matched: set[int], waiting: list[str], where: Callable[[int], str]) -> None:
    """Once an action is done: each entry of its ``order:`` named an ability that triggered during it
    (``matched``, from :func:`stack_order`); ``waiting``: the abilities it stacked, for the hint."""
    if not isinstance(order, list):
        return
    for j, entry in enumerate(order):
        if j not in matched:
            raise ActionError(
                f"{where(j)}order: {entry!r} names no ability that triggered",
                hint=("abilities waiting: " + ", ".join(waiting))
                if waiting
                else "nothing triggered during this action: order: goes on the action during which they trigger",
            )


def _entry_shape(entry: object) -> bool:
    if isinstance(entry, list):
        return 2 <= len(entry) <= 3 and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in entry)
    return isinstance(entry, (str, int)) and not isinstance(entry, bool)


def _names(entry: object, trigger: tuple, aid: str) -> bool:
    """Whether an ``order:`` entry names this waiting ability."""
    source, kind, subject = trigger[1][0], trigger[1][1], trigger[1][2]
    if isinstance(entry, (str, int)) and not isinstance(entry, bool):
        return entry in (source, aid)
    if isinstance(entry, list) and 2 <= len(entry) <= 3:
        return [source, kind, subject][: len(entry)] == entry
    return False


def order_location(state: Board, span: Span | None, j: int) -> str:
    """Where the j-th entry of the ``order:`` of the action at ``span`` is written ("file:line:col: "), for an
    error about it; the action's own place when the scenario's text is not at hand."""
    scenario = state.meta.scenario
    doc = scenario.doc if scenario is not None else None
    if scenario is None or doc is None or span is None:
        return f"{span.location()}: " if span is not None else ""
    for i, (_action, at) in enumerate(scenario.actions):
        if at == span:
            return f"{doc.span(('actions', i, 'order', j)).location()}: "
    return f"{span.location()}: "
