"""The targets of triggered abilities, chosen as they are put on the stack (601.2c, 603.3d).

A triggered ability whose rules declare ``targets_on_stack(Kind)`` is given, as it goes on the stack, every
target legal then (``ability_arg(I, target_option, O)``, from ``trigger_target_option/3`` in the state it
triggered in) and the one chosen (``ability_arg(I, target, O)``): the one the action's ``targets:`` names for
it, or the only legal one. With several legal and none named, the target is named as the ability resolves,
among those (rules/core/targets.dl). ``targets:`` maps an ability, by its source's id or its own id
(``ability_3``), to a target; a source with several targeting abilities put on the stack in one action takes a
list, one target per ability in the order they go on the stack (bottom first). An ability whose rules declare
``divided_target(Kind, Key)`` divides an amount among any number of targets (601.2d): its entry is a division,
target ids to their parts (``{bears: 2, wolf: 1}``), which :meth:`StackTargets.divide` takes; whether it is a
legal one the rules say (division_refused/2, rules/core/targets.dl).

>>> picks = StackTargets({"mentor1": "bears"})
>>> picks.choose("ability_1", "mentor1", "mentor", ["bears", "wolf"])
'bears'
>>> StackTargets(None).choose("ability_2", "hero", "mentor", ["wolf"])
'wolf'
>>> StackTargets(None).choose("ability_3", "hero", "mentor", ["bears", "wolf"]) is None
True
>>> StackTargets({"volley": {"bears": 2, "wolf": 1}}).divide("ability_4", "volley", "volley", ["bears", "wolf"])
{'bears': 2, 'wolf': 1}
>>> picks.unmatched()
[]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .errors import ActionError, UsageError
from .stack_order import check_order_shape

__all__ = ["StackTargets", "check_targets_shape", "HOLDS_BY"]

CR = "601.2c"
HOLDS_BY = " holds by "  # how a why-not step names the rule that gives an exception (judgelog.runtime)
Explain = Callable[[object], str | None] | None  # why a value named is no legal target, for a hint
Division = dict[object, int | None]  # the targets of an ability that divides an amount, each with its part


def check_targets_shape(targets: object) -> None:
    """An action's ``targets:`` is a mapping of abilities (a source id or an ability id) to a target id, a
    division (a mapping of target ids to whole numbers, 601.2d), or a list of those: a UsageError otherwise."""
    if targets is None:
        return
    ok = isinstance(targets, dict) and all(
        isinstance(k, str) and (_pick(v) or isinstance(v, list) and v and all(_pick(x) for x in v))
        for k, v in targets.items()
    )
    if not ok:
        raise UsageError(
            f"targets: must map an ability (its source's id or its own id) to a target id, a division "
            f"({{target: n, ...}}) or a list of them, got {targets!r}",
            hint="e.g. targets: {hero: bears} (one target for each ability hero puts on the stack: a list); "
            "an ability that divides an amount among its targets: targets: {hero: {bears: 2, wolf: 1}}",
        )


def _id(value: object) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _pick(value: object) -> bool:
    """A target id, or a division: target ids to whole numbers (601.2d)."""
    if isinstance(value, dict):
        return bool(value) and all(_id(k) and isinstance(n, int) and not isinstance(n, bool) for k, n in value.items())
    return _id(value)


class StackTargets:
    """The ``targets:`` of one action, consumed as its abilities go on the stack (shared by the action's
    applications when the rules apply it again, as ``order:`` is)."""

    def __init__(self, targets: object) -> None:
        check_targets_shape(targets)
        self.given: dict[str, object] = dict(targets) if isinstance(targets, dict) else {}
        self.used: dict[str, int] = {}  # key -> how many of its targets were taken
        self.stacked: list[str] = []  # the abilities that went on the stack with targets, for a hint

    def _take(self, aid: str, source: str, kind: str) -> object | None:
        """The entry of ``targets:`` for ability ``aid`` (``source``'s ``kind`` ability), or None."""
        self.stacked.append(f"{aid} ({source}'s {kind})")
        key = aid if aid in self.given else source if source in self.given else None
        if key is None:
            return None
        value = self.given[key]
        if isinstance(value, list):
            n = self.used.get(key, 0)
            if n >= len(value):
                return None
            value = value[n]
        self.used[key] = self.used.get(key, 0) + 1
        return value

    def choose(
        self,
        aid: str,
        source: str,
        kind: str,
        options: Sequence[object],
        *,
        explain: Callable[[object], str | None] | None = None,
    ) -> object | None:
        """The target of ability ``aid`` (``source``'s ``kind`` ability) among the legal ``options``: the one
        ``targets:`` names, the only legal one, or None (named as it resolves). Raises ActionError when the
        one named is not legal (``explain(value)``: why, for its hint)."""
        value = self._take(aid, source, kind)
        if value is None:
            return options[0] if len(options) == 1 else None
        if isinstance(value, dict):  # a division, for an ability that divides nothing (601.2d)
            raise ActionError(
                f"targets: {value!r} divides an amount among targets, and {aid} ({source}'s {kind} ability) "
                f"divides none: name its target alone",
                cr="601.2d",
                options=[str(o) for o in options],
            )
        _check(value, aid, source, kind, options, explain)
        return value

    def divide(
        self, aid: str, source: str, kind: str, options: Sequence[object], *, explain: Explain = None
    ) -> Division:
        """The targets of ability ``aid``, which divides an amount among them (601.2d), each with the part
        ``targets:`` gives it (None: a target named alone, which gets all of it). Nothing named: no target
        (the rules give the only legal one all of it, rules/core/targets.dl). Raises ActionError when one
        named is not among the legal ``options``; whether the parts are a legal division the rules say."""
        value = self._take(aid, source, kind)
        picked: Division = {}
        if isinstance(value, dict):
            picked.update(value)
        elif value is not None:
            picked[value] = None
        for target in picked:
            _check(target, aid, source, kind, options, explain)
        return picked

    def unmatched(self) -> list[str]:
        """The keys of ``targets:`` that named no ability put on the stack with a target (or fewer than the
        list they give)."""
        return [k for k, v in self.given.items() if self.used.get(k, 0) < (len(v) if isinstance(v, list) else 1)]

    def check_all_used(self) -> None:
        """Once the action is done: each key of ``targets:`` named an ability (ActionError otherwise)."""
        for key in self.unmatched():
            what = "fewer abilities than it lists targets" if key in self.used else "no ability"
            raise ActionError(
                f"targets: {key!r} names {what} put on the stack with a target during this action",
                cr=CR,
                hint=("abilities put on the stack with targets: " + ", ".join(self.stacked))
                if self.stacked
                else "targets: goes on the action during which the ability triggers",
            )


def _check(value: object, aid: str, source: str, kind: str, options: Sequence[object], explain: Explain) -> None:
    """ActionError when ``value``, named by ``targets:``, is not among the legal ``options`` of ability ``aid``."""
    if value in options:
        return
    hint = explain(value) if explain is not None else None
    # the exception that makes it no target, when the explanation ends at one (its last step reads
    # "untargetable(...) holds by RULE [CR ...]": protection, 702.16b): said in the message itself
    last = hint.rsplit("; ", 1)[-1] if hint else ""
    because = f": {last}" if HOLDS_BY in last else ""
    raise ActionError(
        f"targets: {value!r} is not a legal target for {aid} ({source}'s {kind} ability) as it is put on "
        f"the stack{because}",
        cr=CR,
        options=[str(o) for o in options],
        hint=hint,
    )


def shape_problems(action: dict) -> list[tuple[str, str, str | None]]:
    """``(key, message, hint)`` for an action's ``order:`` or ``targets:`` that is not written as it must be (the
    scenario's checks report them where they are written).

    >>> shape_problems({"do": "destroy", "targets": ["golem"]})[0][0]
    'targets'
    """
    out = []
    for key, check in (("order", check_order_shape), ("targets", check_targets_shape)):
        if action.get(key) is not None:
            try:
                check(action[key])
            except UsageError as exc:
                out.append((key, exc.message, exc.hint))
    return out
