"""An action's arguments as the rules see them: ``act_*`` facts, the ids ``as:`` names for the tokens it
creates, what ``choose:`` gives for each decision, and how many options a decision takes (ChoiceMode).

>>> argument_facts({"do": "declare_blockers", "blockers": {"bears": "wurm"}}, lambda spec: "new")
[('action', 'declare_blockers'), ('act_map', 'blockers', 'bears', 'wurm')]
>>> token_ids(["soldier_1", "soldier_2"]), given_choice({"mode": "a"}, "mode", 2), unused_choices("x", set())
(['soldier_1', 'soldier_2'], ('a', True), ['choose'])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .errors import ActionError, RuleError, UsageError, made_by_the_action
from .words import ACTION_ARGUMENTS

if TYPE_CHECKING:  # pragma: no cover
    from .ast import Span
    from .protocols import Board

__all__ = [
    "ChoiceMode",
    "introduced_ids",
    "shown_choice",
    "ChoiceNeeded",
    "checked_choice",
    "TRANSIENT",
    "RESERVED",
    "NONE",
    "action_object",
    "argument_facts",
    "default_facts",
    "flatten",
    "leaves",
    "token_ids",
    "given_choice",
    "unused_choices",
    "action_from_text",
    "made_by_the_action_ids",
]

# the facts the runtime asserts for one action (its arguments, steps, choices, events) and drops after it
TRANSIENT = (
    "action",
    *ACTION_ARGUMENTS,
    "step",
    "resolving",
    "chosen",
    "chose_nothing",
    "created",
    "pending_object",
    "recent_event",
)

# the keys any action takes besides its own arguments: do, choose, order, targets, expect_error, as
RESERVED = ("do", "choose", "order", "targets", "expect_error", "as")
NONE = "none"


class ChoiceMode(StrEnum):
    """How many options a choice takes (``choice_mode/2``; ``one`` when the rules give none)."""

    ONE = "one"  # exactly one
    MAY = "may"  # one or none
    ANY = "any"  # any number, none included
    UP_TO = "up_to"  # at most choice_max
    EXACTLY = "exactly"  # choice_max of them, or every option when there are fewer ("sacrifices N permanents")

    @classmethod
    def of(cls, name: str, mode: object) -> ChoiceMode:
        """The mode the rules give choice ``name``; a mode the runtime does not know is an error of the rules."""
        try:
            return cls(str(mode))
        except ValueError:
            known = ", ".join(cls)
            raise RuleError(f"choice {name!r} has an unknown mode {mode!r}", hint=f"one of {known}") from None


class ChoiceNeeded(Exception):
    """Raised in probe mode at the first choice the caller did not make (for ``judgelog choices``)."""

    def __init__(
        self,
        name: str,
        options: list[Any],
        mode: ChoiceMode,
        limit: int | None,
        cr: str | None,
        text: str | None = None,
    ) -> None:
        super().__init__(name)
        self.name, self.options, self.mode, self.limit, self.cr = name, options, mode, limit, cr
        self.text = text  # what the choice decides, in the rules' words (choice_text/2)


def checked_choice(
    kind: object,
    name: str,
    options: list[Any],
    mode: ChoiceMode,
    limit: int | None,
    cr: str | None,
    given: object,
    present: bool,
    *,
    probe: bool = False,
    misnamed: Sequence[str] = (),
    text: str | None = None,
) -> list[Any]:
    """The options chosen for decision ``name`` of action ``kind``: what the caller gave (``present``), checked
    against the legal ``options``, the ``mode`` and its ``limit`` (``choice_max``); the only option or, for
    ``exactly``, every option when there are no more than it takes, when the caller gave none. Raises
    :class:`ActionError` (or, with ``probe``, :class:`ChoiceNeeded` for a choice left to make); ``text``: what the
    choice decides (choice_text/2), said when it is missing.

    >>> checked_choice("annihilator", "sacrifice", ["a", "b"], ChoiceMode.EXACTLY, 2, None, None, False)
    ['a', 'b']
    >>> try:
    ...     checked_choice("annihilator", "sacrifice", ["a", "b", "c"], ChoiceMode.EXACTLY, 2, None, ["a"], True)
    ... except ActionError as exc:
    ...     print(exc.message)
    annihilator: choose exactly 2 for sacrifice
    >>> checked_choice("populate", "token", [], ChoiceMode.ONE, None, None, "none", True)
    []
    """
    shown = [str(o) for o in options] + ([NONE] if mode is ChoiceMode.MAY else [])
    count = min(limit if limit is not None else len(options), len(options))  # how many "exactly" takes
    if not present and mode is ChoiceMode.EXACTLY and count == len(options):
        return list(options)  # every option: nothing to choose
    if not present and probe and (options or mode is not ChoiceMode.ONE):
        raise ChoiceNeeded(name, options, mode, limit, cr, text)
    what = f": {text}" if text else ""  # what the choice decides, said when it is missing or refused
    if not present:
        if not options:
            return []
        if mode is ChoiceMode.ONE and len(options) == 1:
            return [options[0]]
        hint = f"add choose: {{{name}: ...}}"
        if misnamed:
            hint = f"choose: names {misnamed[0]!r}, but the choice is called {name!r}: choose: {{{name}: ...}}"
        raise ActionError(f"{kind}: a choice is required for {name}{what}", cr=cr, options=shown, hint=hint)
    values = given if isinstance(given, list) else ([] if given in (None, NONE) else [given])
    if not values and not options:
        return []  # none given where there is nothing to choose (populate with no creature token, 701.36b)
    if mode is ChoiceMode.ONE and len(values) > 1 and sum(v in options for v in values) == 1:
        # a choice the rules ask again, round after round, with other options (the legend rule, one name at a
        # time, 704.5j) may be given once for all the rounds: each takes the one listed option legal in it
        values = [v for v in values if v in options]
    for v in values:
        if v not in options:
            raise ActionError(f"{kind}: {v!r} is not a legal choice for {name}{what}", cr=cr, options=shown)
    if len(set(values)) != len(values):
        raise ActionError(f"{kind}: {name} lists the same option twice", cr=cr)
    if mode is ChoiceMode.ONE and len(values) != 1:
        raise ActionError(f"{kind}: choose exactly one {name}", cr=cr, options=shown)
    if mode is ChoiceMode.MAY and len(values) > 1:
        raise ActionError(f"{kind}: choose at most one {name}", cr=cr, options=shown)
    if limit is not None and len(values) > limit:
        raise ActionError(f"{kind}: choose at most {limit} for {name}", cr=cr, options=shown)
    if mode is ChoiceMode.EXACTLY and len(values) != count:
        raise ActionError(f"{kind}: choose exactly {count} for {name}", cr=cr, options=shown)
    return values


def made_by_the_action_ids(state: Board, options: Sequence[object]) -> tuple[str, ...]:
    """The options that name no constant of ``state`` nor a word of the rules: what the action being taken
    made itself (a token it created in an earlier step, whose id the state before it does not have). A word
    the rules offer (``choice(cumulative_upkeep, pay)``, a color a Treasure's mana may be) was never an object
    to make."""
    from .constants import known_words

    known = {a for f in state.facts for a in f[1:]} | known_words(state)
    return tuple(o for o in options if isinstance(o, str) and o not in known)


def argument_facts(action: dict, new_object: Callable[[dict], str]) -> list[tuple]:
    """``action(KIND)`` and the ``act_*`` facts of the arguments; ``new_object(spec)`` reads an ``object:``
    the action brings and gives its id."""
    out: list[tuple] = [("action", action.get("do"))]
    for key, value in action.items():
        if key in RESERVED:
            continue
        if key == "object" and isinstance(value, dict):
            out.append(("act_arg", key, new_object(value)))
            continue
        if key == "object" and isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            # several objects at once (they enter at the same time, each seeing the others: 603.6a)
            out.extend(("act_list", key, i, new_object(v)) for i, v in enumerate(value))
            continue
        out.extend(flatten(key, value))
    return out


def default_facts(action: dict, defaults: Iterable[tuple[object, object]]) -> set[tuple]:
    """The ``act_arg`` facts of the arguments the action leaves out, from the (key, value) defaults the rules
    give (``action_param_default/3``); two defaults for one key are an error of the rules.

    >>> sorted(default_facts({"do": "bolster", "n": 2}, [("player", "alice"), ("n", 1)]))
    [('act_arg', 'player', 'alice')]
    """
    out: dict[object, object] = {}
    for key, value in defaults:
        if key in action:
            continue
        if key in out and out[key] != value:
            raise RuleError(
                f"{action.get('do')}: two defaults for {key!r} ({out[key]!r} and {value!r})",
                hint="action_param_default/3 gives at most one value per argument",
            )
        out[key] = value
    return {("act_arg", key, value) for key, value in out.items()}


def token_ids(value: object) -> list[str]:
    """The `as:` of an action: one id or a list of ids for the tokens it creates, in order."""
    if value is None:
        return []
    ids = value if isinstance(value, list) else [value]
    for oid in ids:
        if not isinstance(oid, str) or not re.match(r"^[a-z][a-z0-9_]*$", oid):
            raise UsageError(
                f"as: {oid!r} is not an object id", hint="write lower_snake ids, e.g. as: [token1, token2]"
            )
    if len(set(ids)) != len(ids):
        raise UsageError("as: names the same id twice", hint="give each token its own id")
    return list(ids)


def flatten(key: str, value: object) -> list[tuple]:
    """The ``act_*`` facts of one argument: a scalar, a list, a mapping, a list of lists or a mapping of
    lists or mappings (``none`` for an empty value)."""

    def scalar(v: object) -> str | int:
        if isinstance(v, bool) or not isinstance(v, (str, int)) and v is not None:
            raise UsageError(f"argument {key!r}: expected ids or numbers, got {v!r}")
        return NONE if v is None else v

    out: list[tuple] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict):
                out += [("act_map2", key, scalar(k), scalar(k2), scalar(v2)) for k2, v2 in v.items()]
            elif isinstance(v, list):
                out += [("act_map_list", key, scalar(k), i, scalar(x)) for i, x in enumerate(v)]
            else:
                out.append(("act_map", key, scalar(k), scalar(v)))
        return out
    if isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, list):
                out += [("act_list2", key, i, j, scalar(x)) for j, x in enumerate(v)]
            else:
                out.append(("act_list", key, i, scalar(v)))
        return out
    return [("act_arg", key, scalar(value))]


def leaves(value: object) -> list[object]:
    """The scalars of an argument, in order."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in leaves(v)]
    return [value]


def given_choice(choose: object, name: str, nchoices: int, *, used: Collection[str] = ()) -> tuple[object, bool]:
    """(what ``choose:`` gives for the decision ``name``, whether it gives anything); a bare value answers
    the only decision of a step, the first the action asks (``used``: the decisions answered so far): not
    one a later step asks too, such as a state-based action's after it (704.5w, a battle's protector).

    >>> given_choice(["giant"], "recipients", 1), given_choice(["giant"], "protector", 1, used={"recipients"})
    ((['giant'], True), (None, False))
    """
    if isinstance(choose, dict):
        if name in choose:
            return choose[name], True
        return None, False
    if choose is not None and nchoices == 1 and (not used or name in used):
        return choose, True
    return None, False


def unused_choices(choose: object, used: set[str]) -> list[str]:
    """The ``choose:`` keys no step asked for."""
    if isinstance(choose, dict):
        return sorted(k for k in choose if k not in used)
    if choose is not None and not used:
        return ["choose"]
    return []


def action_object(state: Board, kind: str, span: Span | None, spec: dict) -> tuple[str, list[tuple]]:
    """The id and facts of an object an action brings (``object: {card: ..., ...}`` of ``enter`` or
    ``create_token``), read like a scenario's objects; a bad one is an :class:`ActionError` naming the action."""
    from .change import Change
    from .scenario_objects import compile_object
    from .scenario_reader import ScenarioReader

    engine = state.engine
    ctx = ScenarioReader.for_action(spec, span, engine.catalog, engine.interface)
    players = sorted(f[1] for f in state.facts if f[0] == "player")
    oid = spec.get("id")
    if oid is None:
        name = spec.get("name") or spec.get("card") or "object"
        oid = Change(state.facts, {}).fresh_id(str(name))
    if ctx.ident(oid, ("object", "id"), "an object id") is None:
        raise ActionError(f"invalid object for {kind}: {ctx.diags[0].message}", hint=ctx.diags[0].hint)
    if any(len(f) > 1 and f[1] == oid for f in state.facts if f[0] in ("permanent", "player")):
        raise ActionError(f"id {oid!r} is already in use", hint="give the new object another id")
    spec = {k: v for k, v in spec.items() if k != "id"}
    facts = [f for f, _ in compile_object(ctx, oid, spec, ("object",), players)]
    if ctx.diags:
        d = ctx.diags[0]
        raise ActionError(f"invalid object for {kind}: {d.message}", hint=d.hint)
    return str(oid), facts


def action_from_text(what: str) -> dict | None:
    """``what`` written as an action with its arguments, a YAML flow mapping such as ``"{do: activate, object:
    cayth, ability: cayth}"``; None for a decision's name.

    >>> action_from_text("{do: activate, object: x, ability: outlast}"), action_from_text("blocks")
    ({'do': 'activate', 'object': 'x', 'ability': 'outlast'}, None)
    """
    if not what.lstrip().startswith("{"):
        return None
    import yaml

    try:
        action = yaml.safe_load(what)
    except yaml.YAMLError as exc:
        raise UsageError(
            f"cannot read the action {what!r}: {exc.problem if hasattr(exc, 'problem') else exc}",
            hint='write it as a scenario\'s action: "{do: activate, object: cayth, ability: cayth}"',
        ) from None
    if not isinstance(action, dict) or not isinstance(action.get("do"), str):
        raise UsageError(
            f"an action is a mapping with do: and the action's name, got {what!r}",
            hint='e.g. "{do: activate, object: cayth, ability: cayth}"',
        )
    return action


def introduced_ids(action: dict[str, Any]) -> set[str]:
    """Ids an action creates by name (``object: {id: ...}``, ``as:``)."""
    out: set[str] = set()
    objects = action.get("object")
    for spec in objects if isinstance(objects, list) else [objects]:
        if isinstance(spec, dict) and isinstance(spec.get("id"), str):
            out.add(spec["id"])
    named = action.get("as")
    out |= {x for x in (named if isinstance(named, list) else [named]) if isinstance(x, str)}
    return out


def shown_choice(
    needed: ChoiceNeeded, what: str, kind: str, made: Sequence[str], *, given: object = None
) -> tuple[dict, str]:
    """How ``judgelog choices`` shows the choose: choice an action of ``kind`` asks for (the decision ``what``):
    its data and text; ``made``: the options the action itself makes (named through as:); ``given``: the
    action's own choose: (kept in the example: a choice another one offers is given with it)."""
    options = [str(o) for o in needed.options]
    data = {
        "decision": what,
        "choice": needed.name,
        "mode": needed.mode.value,
        "cr": needed.cr,
        "options": options,
        "max": needed.limit,
        "made_by_the_action": list(made),
    }
    mode = {
        ChoiceMode.ONE: "choose exactly one",
        ChoiceMode.MAY: "choose one or none",
        ChoiceMode.ANY: "choose any number (none allowed)",
        ChoiceMode.UP_TO: f"choose up to {needed.limit}",
        ChoiceMode.EXACTLY: f"choose {needed.limit} (all of them if there are fewer)",
    }[needed.mode]
    data["text"] = needed.text
    lines = [f"{what}: {needed.name} — {mode}" + (f" (CR {needed.cr})" if needed.cr else "")]
    lines += [f"  {needed.text}"] if needed.text else []
    lines += [f"  {o}" for o in options] or ["  (no legal option)"]
    only = needed.mode is ChoiceMode.ONE and len(options) == 1
    lines += [f"  ({made_by_the_action(made, needed.name, only=only)})"] if made else []
    lines += {ChoiceMode.MAY: ["  none"], ChoiceMode.ANY: ["  []  (none of them)"]}.get(needed.mode, [])
    example, other = f"{needed.name}: {options[0] if options else NONE}", "another option"
    if needed.mode in (ChoiceMode.ANY, ChoiceMode.UP_TO, ChoiceMode.EXACTLY) and needed.limit != 1:
        # a choice of several is a list: as many as "exactly" takes, else one
        taken = options[: needed.limit or 1] if needed.mode is ChoiceMode.EXACTLY else options[:1]
        example, other = f"{needed.name}: [{', '.join(taken)}]", "other options"
    if isinstance(given, dict):
        before = [f"{k}: [{', '.join(map(str, v))}]" if isinstance(v, list) else f"{k}: {v}" for k, v in given.items()]
        example = ", ".join([*before, example])
    if not (options and options[0] in made):  # (an option the action makes is named through as:, said above)
        lines.append(
            f"give it as: {{do: {kind}, choose: {{{example}}}}}"
            + (f" (or {other})" if len(options) > 1 or needed.mode is ChoiceMode.MAY else "")
        )
    return data, "\n".join(lines)
