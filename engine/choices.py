"""``judgelog choices``: the legal options of a decision now, enumerated from the choice spaces the rules
declare (``rules/core/choice_spaces.dl``). Nothing here names a keyword: a space says its kind, where
its elements and options come from and what refuses a candidate; this module enumerates any of them.

- ``action`` spaces (every action the rules know, and spaces declared with ``choice_space_action``): the
  first choice that action asks for, run with the active player (and ``n: 1`` when it takes an ``n``).
- ``assignment``: each element takes one of its options or none (or up to ``choice_space_option_most`` of
  them at once); counted exactly, a sample listed.
- ``set_partition``: the ways to group the elements into legal parts (each candidate part checked by
  the rules), the other elements staying alone; counted exactly, listed up to ``--limit``.
- ``subset``: the legal sets of elements within the declared sizes; counted, listed up to ``--limit``.
- ``division``: each element's amount (``choice_space_amount``) divided among its options, every element at
  once; each candidate tried as the action's argument ``{element: {option: n}}`` (``choice_space_check``).

>>> from judgelog import Engine
>>> state = Engine().load(Engine.example("banding_blocked_by_one.yaml"))
>>> data, text = list_choices(state, "blocks")
>>> data["count"], data["declarations"]
(3, [{}, {'bears': 'hero'}, {'bears': 'wurm'}])
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from .action_args import action_from_text, made_by_the_action_ids, shown_choice
from .ast import Atom, Const, format_value
from .combinatorics import compositions, count_partitions, enumerate_partitions
from .errors import ActionError, NothingToChoose, RuleError, UsageError

if TYPE_CHECKING:
    from .protocols import Board, Progress


__all__ = ["list_choices", "ChoiceSpace", "SpaceKind", "choice_spaces"]

MAX_TRIED = 512  # the candidates of an assignment or division tried as its action (choice_space_check), at most

MAX_ELEMENTS = 16
RESOLVE = "resolve"  # the runtime's own action: the top of the stack resolves


class SpaceKind(StrEnum):
    """How a choice space is enumerated (the second argument of ``choice_space/3``, or ``action``)."""

    ACTION = "action"
    ASSIGNMENT = "assignment"
    SET_PARTITION = "set_partition"
    SUBSET = "subset"
    DIVISION = "division"


@dataclass(frozen=True)
class ChoiceSpace:
    """A declared choice space, enumerated as its ``kind`` says."""

    name: str
    kind: SpaceKind
    cr: str = ""
    action: str = ""
    fields: dict[str, str] = field(default_factory=dict)  # elements/options/parts/sample -> JSON key
    texts: dict[str, str] = field(default_factory=dict)  # intro/nothing/empty/empty_hint -> text
    element: str = "element"
    part: str = "part"
    probe: tuple[str, str] | None = None  # (predicate, label) a candidate is asserted as
    check: tuple[str, str] | None = None  # (action, argument) a candidate is tried as (choice_space_check)
    single: bool = False  # an assignment's candidate is given as {x: option}, not {x: [option]}

    def key(self, what: str) -> str:
        return self.fields.get(what, what)


def _rows(state: Board, pred: str) -> list[tuple]:
    return [f[1:] for f in state.derived(pred)] if state.engine.program.decl(pred) is not None else []


def choice_spaces(state: Board) -> dict[str, ChoiceSpace]:
    """The spaces the loaded rules declare, by name."""
    fields: dict[str, dict[str, str]] = {}
    for space, what, key in _rows(state, "choice_space_field"):
        fields.setdefault(space, {})[str(what)] = str(key)
    texts: dict[str, dict[str, str]] = {}
    for space, what, text in _rows(state, "choice_space_text"):
        texts.setdefault(space, {})[str(what)] = str(text)
    nouns = {space: (str(e), str(p)) for space, e, p in _rows(state, "choice_space_noun")}
    probes = {space: (str(p), str(label)) for space, p, label in _rows(state, "choice_space_probe")}
    checks = {space: (str(a), str(key)) for space, a, key in _rows(state, "choice_space_check")}
    single = {space for space, shape in _rows(state, "choice_space_check_shape") if shape == "one"}
    out = {
        str(a): ChoiceSpace(str(a), SpaceKind.ACTION, action=str(a))
        for a in sorted(str(r["K"]) for r in state.query("action_known(K)"))
    }
    for space, action in _rows(state, "choice_space_action"):
        out[str(space)] = ChoiceSpace(str(space), SpaceKind.ACTION, action=str(action))
    for space, kind, cr in _rows(state, "choice_space"):
        element, part = nouns.get(space, ("element", "part"))
        out[str(space)] = ChoiceSpace(
            str(space),
            _space_kind(str(space), str(kind)),
            str(cr),
            fields=fields.get(space, {}),
            texts=texts.get(space, {}),
            element=element,
            part=part,
            probe=probes.get(space),
            check=checks.get(space),
            single=space in single,
        )
    return out


def _space_kind(space: str, kind: str) -> SpaceKind:
    try:
        return SpaceKind(kind)
    except ValueError:
        kinds = ", ".join(k for k in SpaceKind if k is not SpaceKind.ACTION)
        raise RuleError(f"choice space {space!r} has an unknown kind {kind!r}", hint=f"one of {kinds}") from None


def list_choices(
    state: Board,
    what: str,
    *,
    limit: int | None = 50,
    progress: Progress | None = None,
    try_each: bool = True,
    tries: int | None = MAX_TRIED,
) -> tuple[dict, str]:
    """``limit``: list at most this many (None or 0: all); ``progress``, when given, has ``tick(i, label)``
    and ``done()`` (the command line's progress line on stderr); spaces checked candidate by candidate tick
    it for every candidate. ``try_each=False`` lists an assignment space's options without trying its
    combinations as its action (choice_space_check): what a refusal names, which needs no count of the legal
    declarations. ``tries``: the combinations of an assignment or division tried as the action, at most
    (None or 0: every one; the count is then the whole space's)."""
    if limit is not None and limit < 0:
        raise UsageError("--limit must be 0 (all) or more")
    if tries is not None and tries < 0:
        raise UsageError("--tries must be 0 (all) or more")
    limit = limit or sys.maxsize
    tries = tries or sys.maxsize
    spaces = choice_spaces(state)
    given = action_from_text(what)
    if given is not None:  # an action with its arguments: the choose: choice it asks for with them
        what = given["do"]
    space = spaces.get(what)
    if space is None:
        from .analysis import suggest

        near = [n for n in [suggest(what, list(spaces))] if n]
        near += sorted(
            {str(s) for s, word in _rows(state, "choice_space_alias") if word == what and s in spaces} - set(near)
        )
        hint = (
            (f"did you mean {' or '.join(map(repr, near))}? " if near else "") + "choices: " + ", ".join(sorted(spaces))
        )
        if RESOLVE in spaces and _on_the_stack(state, what):
            hint = f"{what} is an ability on the stack: what it asks is chosen as it resolves, the decision {RESOLVE!r}"
        raise UsageError(f"unknown decision {what!r}", hint=hint)
    if given is not None and space.kind is not SpaceKind.ACTION:
        raise UsageError(
            f"{what!r} is a decision of its own: give its name alone", hint=f"judgelog choices SCENARIO {what}"
        )
    if space.kind is SpaceKind.ASSIGNMENT:
        return _assignment(state, space, limit, progress, try_each=try_each, tries=tries)
    if space.kind is SpaceKind.DIVISION:
        return _division(state, space, limit, progress, tries=tries)
    run = {SpaceKind.SET_PARTITION: _set_partition, SpaceKind.SUBSET: _subset}.get(space.kind)
    if run is None:
        return _action_choice(state, space, given or {})
    return run(state, space, limit, progress)


def _on_the_stack(state: Board, kind: str) -> bool:
    """Whether an ability of this kind is on the stack (``on_stack(I, S, kind)``)."""
    if "on_stack" not in state.engine.program.decls or not kind.isidentifier() or not kind.islower():
        return False
    return state.holds(f"on_stack(_, _, {kind})")  # holds: a kind no rule knows is "no", not refused (Q001)


def _taken_now(state: Board, action: dict, *, shown: int = 6) -> list[str]:
    """What ``action`` does taken in ``state`` as it stands: its first events (then how many more), or why it
    is refused."""
    from .runtime import apply_action

    try:
        _, events = apply_action(state, action)
    except ActionError as refused:
        return [f"refused: {refused.message}"]
    out = [f"{e.kind} {format_value(e.subject)}" for e in events[:shown]]
    return out + ([f"{len(events) - shown} more event(s)"] if len(events) > shown else [])


def _action_choice(state: Board, space: ChoiceSpace, given: dict) -> tuple[dict, str]:
    """The choose: choice ``space``'s action asks for now, taken with the arguments ``given`` (none: those
    every action of the kind takes by default)."""
    from .runtime import probe_choice

    what, kind = space.name, space.action
    action: dict = {"do": kind}
    needs = sorted(str(r["K"]) for r in state.query(f"action_param_required({kind}, K)")) if kind != RESOLVE else []
    if needs and not given:  # it can't be taken without them: say how to give them
        raise UsageError(
            f"{kind} needs {' and '.join(needs)}: give the action with its arguments",
            hint=f'judgelog choices SCENARIO "{{do: {kind}, ' + ", ".join(f"{k}: ..." for k in needs) + '}"',
        )
    if given:
        action = dict(given)
    elif kind != RESOLVE:
        params = {p["K"] for p in state.query(f"action_param({kind}, K)")}
        active = state.query("active_player(P)")
        if active and (not params or "player" in params):
            action["player"] = active[0]["P"]
        if "n" in params:
            action["n"] = 1

    def linked() -> tuple[dict, list, str]:
        # the action's arguments may be a decision of their own (the blockers of declare_blockers are the
        # assignment `blocks`, the assign: of combat_damage the division `divisions`: choice_space_check)
        others = {n: sp for n, sp in choice_spaces(state).items() if sp.kind is not SpaceKind.ACTION}
        pairs = sorted((n, sp.check[1]) for n, sp in others.items() if sp.check and sp.check[0] == kind)
        return (
            others,
            pairs,
            "; ".join(f"its {k}: argument is the decision {n!r}: judgelog choices SCENARIO {n}" for n, k in pairs),
        )

    unavailable: list[tuple] = []  # (name, option, CR, text): what the rules say can't be chosen now, and why
    try:
        needed = probe_choice(state, action, list_options=list_choices, unavailable=unavailable)
    except ActionError as refused:  # refused as it stands: say where its arguments' choices are listed
        where = linked()[2]
        if where:
            refused.hint = f"{refused.hint}; {where}" if refused.hint else where
        raise
    if needed is None:  # the action asks for no `choose:` choice now: say what it does, taken as it stands
        others, pairs, where = linked()
        see = [n for n, _ in pairs] or sorted(others)
        done = _taken_now(state, action)
        data: dict[str, object] = {"decision": what, "choice": None, "options": [], "see": see, "taken_now": done}
        data["unavailable"] = [{"choice": n, "option": o, "cr": r, "why": t} for n, o, r, t in unavailable]
        text = f"{what}: nothing to choose now: give {{do: {kind}}} with no choose:; taken now, " + (
            "it does nothing (no event)" if not done else "it does: " + "; ".join(done)
        )
        text += "".join(f"\n  {o} can't be chosen for {n} (CR {r}): {t}" for n, o, r, t in unavailable)
        if where:
            text += "; " + where
        elif others:
            text += "\n  (the other decisions judgelog choices lists: " + ", ".join(sorted(others)) + ")"
        return data, text
    made = made_by_the_action_ids(state, needed.options)  # a token the action made (a number is no id: 0, 1, 2)
    return shown_choice(needed, what, kind, made, given=action.get("choose"))


def _options(state: Board, space: ChoiceSpace) -> dict:
    """Each element of the space -> its options (choice_space_option), in order."""
    options: dict = {}
    for s, x, option in sorted(_rows(state, "choice_space_option"), key=repr):
        if s == space.name:
            options.setdefault(x, []).append(option)
    return options


def _choosers(state: Board, space: ChoiceSpace) -> dict:
    """Each element -> who makes its choice, where a rule says (choice_space_chooser)."""
    return {x: p for s, x, p in sorted(_rows(state, "choice_space_chooser"), key=repr) if s == space.name}


def _empty(space: ChoiceSpace) -> NothingToChoose:
    """The space has no element now: said in its own words (choice_space_text empty, empty_hint)."""
    return NothingToChoose(
        space.texts.get("empty", f"the {space.name} space has no {space.element} now"),
        hint=space.texts.get("empty_hint"),
    )


def _assignment(
    state: Board,
    space: ChoiceSpace,
    limit: int,
    progress: Progress | None = None,
    *,
    try_each: bool = True,
    tries: int = MAX_TRIED,
) -> tuple[dict, str]:
    options = _options(state, space)
    elements = sorted(options)
    most = {} if space.single else _most(state, space)
    values = {x: _values(options[x], most.get(x, 1), max(tries, limit)) for x in elements}
    total = math.prod(n for _, n in values.values())
    combos = itertools.product(*[values[x][0] for x in elements])
    candidates = ({x: o for x, o in zip(elements, combo) if o is not None} for combo in combos)
    tried, note = total, ""
    count: int | None
    if space.check is None:  # every combination is legal
        count, sample = total, list(itertools.islice(candidates, limit))
    elif not try_each:
        count, sample, tried = None, [], 0
        note = f"(the combinations not tried as {space.check[0]})"
    else:  # each tried as the action: those it refuses are not legal
        tried = min(total, tries)
        board = _without_replaced(state, space)
        _bare_refusal(board, space)
        legal = [c for c in itertools.islice(candidates, tried) if _accepted(board, space, c)]
        count, sample = len(legal), legal[:limit]
        note = f"(the first {tried} of {total} combinations tried as {space.check[0]}; --tries 0 tries them all)"
    data = {"decision": space.name, space.key("options"): options, "count": count, space.key("sample"): sample}
    lines = [
        f"{space.name}: {space.texts.get('intro', 'each ' + space.element + ' takes one option or none')}"
        + (f" (CR {space.cr})" if space.cr else "")
        + ":"
    ]
    up_to = {x: f" (up to {n} at once)" for x, n in most.items() if n > 1}
    lines += [f"  {x}{up_to.get(x, '')}: {', '.join(options[x])}" for x in elements] or [
        f"  ({space.texts.get('nothing', 'no ' + space.element + ' has an option')})"
    ]
    if tried < total:
        data["tried"] = tried
        lines.append(note)
    if count is None:  # not tried: how many combinations there are, for a refusal to decide whether to try them
        data["combinations"] = total
        return data, "\n".join(lines)
    among = f" among the first {tried} combinations" if tried < total else ""
    lines.append(
        f"{count} legal {space.part} declaration(s){among}"
        + (f"; the first {len(sample)}:" if count > len(sample) else ":")
    )
    for decl in sample:  # {x: o}, or {x: [o]}; {x: [o1, o2]} when x takes several options at once
        shown = {
            x: o if space.single else "[" + ", ".join(map(str, o if isinstance(o, list) else [o])) + "]"
            for x, o in decl.items()
        }
        lines.append("  {" + ", ".join(f"{x}: {o}" for x, o in shown.items()) + "}")
    return data, "\n".join(lines)


def _most(state: Board, space: ChoiceSpace) -> dict:
    """Each element that may take more than one of its options at once -> how many (choice_space_option_most)."""
    return {x: int(n) for s, x, n in _rows(state, "choice_space_option_most") if s == space.name and int(n) > 1}


def _values(options: list, most: int, cap: int) -> tuple[list, int]:
    """An element's values in a candidate, in order: none, each option, then each set of 2 to ``most`` options
    (a list); at most ``cap`` of them listed (a candidate past the first ``cap`` is never tried), and how many
    there are."""
    top = min(most, len(options))
    sets = (list(c) for k in range(2, top + 1) for c in itertools.combinations(options, k))
    listed = list(itertools.islice(itertools.chain([None], options, sets), cap))
    return listed, sum(math.comb(len(options), k) for k in range(top + 1))


def _division(
    state: Board, space: ChoiceSpace, limit: int, progress: Progress | None = None, *, tries: int = MAX_TRIED
) -> tuple[dict, str]:
    """Each element's amount divided among its options (a combat damage step's divisions, 510.1c-d): each
    candidate of an element is tried as the action's argument with the other elements left out, and is legal
    when the action refuses it for nothing but what it refuses with no argument at all about the others
    (their divisions missing). A refusal that one element's division causes about another (a blocker left
    without lethal damage) still counts; what another element's division would allow does not."""
    options = {str(x): [str(o) for o in found] for x, found in _options(state, space).items()}
    amounts = {str(x): n for s, x, n in _rows(state, "choice_space_amount") if s == space.name and str(x) in options}
    elements = sorted(x for x in options if isinstance(amounts.get(x), int) and amounts[x] >= 0)
    if not elements:
        raise _empty(space)
    if space.check is None:
        raise RuleError(f"choice space {space.name!r} is a division with no choice_space_check to try it as")
    action, key = space.check
    from .runtime import refusal

    bare = _bare_refusal(state, space)
    missing = set(bare.violations) if bare is not None else set()
    legal: dict[str, list[dict[str, int]]] = {}
    totals = {x: math.comb(amounts[x] + len(options[x]) - 1, len(options[x]) - 1) for x in elements}
    ticks = itertools.count()
    for x in elements:
        ignored = {v for v in missing if v[1] != x}
        found = legal[x] = []
        for split in itertools.islice(compositions(amounts[x], len(options[x])), tries):
            if progress is not None:
                progress.tick(next(ticks), f"{space.name} {x}")
            candidate = {r: n for r, n in zip(options[x], split) if n}
            refused = refusal(state, {"do": action, key: {x: candidate}}, explain=False)
            if refused is None or refused.untimely or not set(refused.violations) - ignored:
                found.append(candidate)
    if progress is not None:
        progress.done()
    data: dict[str, object] = {
        "decision": space.name,
        space.key("options"): {x: options[x] for x in elements},
        space.key("amounts"): {x: amounts[x] for x in elements},
        "count": {x: len(legal[x]) for x in elements},
        space.key("sample"): {x: legal[x][:limit] for x in elements},
    }
    choosers = _choosers(state, space)
    if choosers:
        data["choosers"] = {x: choosers[x] for x in elements if x in choosers}
    intro = space.texts.get("intro", f"each {space.element}'s amount divided among its options")
    lines = [f"{space.name}: {intro}" + (f" (CR {space.cr})" if space.cr else "") + ":"]
    cut = {x: tries for x in elements if totals[x] > tries}
    if cut:
        data["tried"] = cut
    for x in elements:
        found = legal[x]
        by = f"; by {choosers[x]}" if x in choosers else ""
        head = f"  {x} ({amounts[x]} among {', '.join(options[x])}{by}): {len(found)} legal {space.part}(s)"
        if x in cut:
            head += f" among the first {tries} of {totals[x]}"
        lines.append(head + (f"; the first {limit}:" if len(found) > limit else ":"))
        lines += ["    {" + ", ".join(f"{r}: {n}" for r, n in d.items()) + "}" for d in found[:limit]]
    if len(elements) > 1:
        note = space.texts.get("together")
        if note:
            lines.append(f"({note})")
    return data, "\n".join(lines)


def _without_replaced(state: Board, space: ChoiceSpace) -> Board:
    """The board a candidate is tried on: without the facts of a declaration it replaces
    (``choice_space_replaces``: the blocks a scenario's combat: already declares do not count with a
    candidate's own, as a menace attacker's second blocker)."""
    replaced = {str(p) for s, p in _rows(state, "choice_space_replaces") if s == space.name}
    if not replaced or not any(f[0] in replaced for f in state.facts):
        return state
    return state.with_facts(frozenset(f for f in state.facts if f[0] not in replaced))


def _bare_refusal(board: Board, space: ChoiceSpace) -> ActionError | None:
    """The refusal of the space's action given no candidate; NothingToChoose when it is about when it is taken
    (blockers declared already, 509.1): each candidate would be refused for that alone, its own rules unasked."""
    from .runtime import refusal

    assert space.check is not None
    bare = refusal(board, {"do": space.check[0], space.check[1]: {}}, explain=False)
    if bare is None or not bare.untimely:
        return bare
    hint = f"ask before the {space.check[0]} action (judgelog choices --actions N: the first N actions only)"
    raise NothingToChoose(f"{space.name}: nothing to choose now: {bare.message}", hint=hint)


def _accepted(state: Board, space: ChoiceSpace, candidate: dict) -> bool:
    """Does the space's action accept the candidate as its argument (``{x: option}`` as ``{x: [option]}``, or
    as it is with ``choice_space_check_shape(Space, one)``)? Only its refusal is asked (runtime.refusal): no
    triggers, no state-based actions, no listing of a refusal's options (which would enumerate this space)."""
    from .runtime import refusal

    assert space.check is not None
    action, key = space.check
    value = dict(candidate) if space.single else {x: o if isinstance(o, list) else [o] for x, o in candidate.items()}
    refused = refusal(state, {"do": action, key: value}, explain=False)
    return refused is None or refused.untimely  # refused for when it is taken only: not for the candidate


def _elements(state: Board, space: ChoiceSpace) -> list:
    elements = sorted({x for s, x in _rows(state, "choice_space_element") if s == space.name}, key=str)
    if not elements:
        raise _empty(space)
    if len(elements) > MAX_ELEMENTS:
        raise UsageError(f"{len(elements)} {space.element}s: too many to group (at most {MAX_ELEMENTS})")
    return elements


class _Probe:
    """Checks candidates: asserts each as the space's probe facts and asks the space's refusal relations."""

    def __init__(self, state: Board, space: ChoiceSpace, progress: Progress | None, label: str) -> None:
        self.state, self.space, self.progress, self.label = state, space, progress, label
        self.checked = itertools.count()
        pred = space.probe[0] if space.probe else None
        self.base = frozenset(f for f in state.facts if f[0] != pred)

    def legal(self, members: Sequence[object]) -> tuple[bool, bool]:
        """(legal, dead end) for a candidate."""
        if self.space.probe is None:
            return True, False
        if self.progress is not None:
            self.progress.tick(next(self.checked), self.label)
        pred, label = self.space.probe
        probe = self.state.with_facts(self.base | {(pred, x, label) for x in members})
        name = self.space.name
        if not probe.holds(f"choice_space_refused({name}, {label})"):
            return True, False
        return False, probe.holds(f"choice_space_dead_end({name}, {label})")

    def done(self) -> None:
        if self.progress is not None:
            self.progress.done()


def _solver_choice(state: Board, space: ChoiceSpace, elements: list, least: int, most: int) -> list[tuple] | None:
    """Every candidate of ``least`` to ``most`` elements the rules do not refuse, found by the backend's
    solver in one run (a choice rule over the probe facts, ``choice_space_refused`` as a constraint), or
    None when the backend has no solver (pyDatalog: candidates are checked one by one)."""
    enumerate_subsets = getattr(state.engine.backend, "enumerate_subsets", None)
    if enumerate_subsets is None:
        return None
    if space.probe is None:
        candidates = [c for n in range(least, most + 1) for c in itertools.combinations(elements, n)]
        return candidates
    pred, label = space.probe
    base = frozenset(f for f in state.facts if f[0] != pred)
    facts = {(pred, x, label): x for x in elements}
    refused = (Atom("choice_space_refused", (Const(space.name), Const(label))),)
    found = enumerate_subsets(base, list(facts), refused, min_size=least, max_size=most)
    return [tuple(x for x in elements if (pred, x, label) in subset) for subset in found]


def _min_part(state: Board, space: ChoiceSpace) -> int:
    sizes = [n for s, n in _rows(state, "choice_space_min_part") if s == space.name]
    return max(sizes) if sizes else 2


def _set_partition(state: Board, space: ChoiceSpace, limit: int, progress: Progress | None = None) -> tuple[dict, str]:
    elements = _elements(state, space)
    legal = _legal_parts(state, space, elements, _min_part(state, space), progress)
    index = {x: i for i, x in enumerate(elements)}
    masks = {sum(1 << index[x] for x in part): part for part in legal}
    full = (1 << len(elements)) - 1
    count = count_partitions(full, masks)
    sample: list[list[list[str]]] = []
    enumerate_partitions(full, masks, [], sample, limit)
    data = {
        "decision": space.name,
        space.key("elements"): elements,
        space.key("parts"): [list(p) for p in legal],
        "count": count,
        space.key("sample"): sample,
    }
    lines = [
        f"{space.name}: {count} legal way(s) to group {len(elements)} {space.element}(s) into {space.part}s"
        + (f" (CR {space.cr})" if space.cr else "")
        + (f"; the first {len(sample)}:" if count > len(sample) else ":")
    ]
    if space.texts.get("intro"):
        lines.append(f"  ({space.texts['intro']})")
    for grouping in sample:
        lines.append("  " + (", ".join("[" + ", ".join(p) + "]" for p in grouping) or f"(no {space.part}s)"))
    return data, "\n".join(lines)


def _legal_parts(
    state: Board, space: ChoiceSpace, elements: list, least: int, progress: Progress | None = None
) -> list[tuple]:
    """Every set of at least ``least`` elements that the rules accept as one part.

    Candidates grow one element at a time; a candidate the rules call a dead end
    (``choice_space_dead_end``) is not grown further.
    """
    chosen = _solver_choice(state, space, elements, least, len(elements))
    if chosen is not None:
        return sorted(chosen, key=lambda p: (len(p), p))
    probe = _Probe(state, space, progress, f"candidate {space.part}s of {len(elements)} {space.element}s")
    legal: list[tuple] = []

    def grow(part: tuple, start: int) -> None:
        for i in range(start, len(elements)):
            bigger = part + (elements[i],)
            if len(bigger) >= least:
                ok, dead = probe.legal(bigger)
                if ok:
                    legal.append(bigger)
                elif dead:
                    continue
            grow(bigger, i + 1)

    grow((), 0)
    probe.done()
    return sorted(legal, key=lambda p: (len(p), p))


def _subset(state: Board, space: ChoiceSpace, limit: int, progress: Progress | None = None) -> tuple[dict, str]:
    elements = _elements(state, space)
    sizes = [(lo, hi) for s, lo, hi in _rows(state, "choice_space_size") if s == space.name]
    lo, hi = (max(a for a, _ in sizes), min(b for _, b in sizes)) if sizes else (0, len(elements))
    lo, hi = max(lo, 0), min(hi, len(elements))
    legal = _solver_choice(state, space, elements, lo, hi)
    if legal is None:
        probe = _Probe(state, space, progress, f"candidate sets of {len(elements)} {space.element}s")
        legal = [c for n in range(lo, hi + 1) for c in itertools.combinations(elements, n) if probe.legal(c)[0]]
        probe.done()
    else:
        order = {x: i for i, x in enumerate(elements)}
        legal.sort(key=lambda c: (len(c), [order[x] for x in c]))  # the order combinations() gives
    sample = [list(c) for c in legal[:limit]]
    data = {"decision": space.name, space.key("elements"): elements, "count": len(legal), space.key("sample"): sample}
    size = f"{lo}" if lo == hi else f"{lo} to {hi}"
    lines = [
        f"{space.name}: {len(legal)} legal set(s) of {size} of {len(elements)} {space.element}(s)"
        + (f" (CR {space.cr})" if space.cr else "")
        + (f"; the first {len(sample)}:" if len(legal) > len(sample) else ":")
    ]
    lines += ["  [" + ", ".join(map(str, c)) + "]" for c in sample]
    if space.texts.get("intro"):
        lines.insert(1, f"  ({space.texts['intro']})")
    return data, "\n".join(lines)
