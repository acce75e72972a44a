"""``judgelog verify``: search every board of a scope for a broken property (the reference enumerator).

The properties are rules (``rules/properties/``, declared in ``rules/core/interface.dl``): a state breaks
property P when ``property_violation(P, A, B)`` holds in it, and every derived predicate declared
``functional(...)`` is a property too. For each board of the scope (:mod:`judgelog.boards`) this module
proposes every designation the scope declares, asks the rules' own actions whether they accept it, and
checks the properties: those marked ``property_stage(P, declaration)`` on each proposed declaration,
the others on the board after its declarations and after each follow-up action. Each task of
:func:`judgelog.boards.tasks` is checked on its own (:func:`run_task`), so tasks can be spread over
workers (:mod:`judgelog.distribute`) and merged in a fixed order (:func:`merge`).

>>> from judgelog import Engine
>>> from judgelog.scope import load_scope
>>> engine = Engine(properties=True)
>>> scope = load_scope({"creatures": 2, "keywords": ["banding"], "power": [1], "toughness": [1],
...                     "declare": ["attackers", "bands"]}, engine)
>>> result = merge(scope, [run_task(engine, scope, t) for t in tasks(scope)])
>>> result["counterexamples"], result["states"]
([], 45)
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .ast import format_value
from .boards import (
    Spec,
    Task,
    automorphisms,
    board_dict,
    board_keywords,
    boards,
    candidates,
    canonical_key,
    creature_ids,
    players_of,
    tasks,
)
from .errors import ActionError
from .runtime import apply_action
from .scope import Scope, placeholders, with_values

if TYPE_CHECKING:
    from .engine import Engine
    from .interface import Field, Interface
    from .state import State

__all__ = [
    "Property",
    "properties_of",
    "run_task",
    "merge",
    "violations",
    "tasks",
    "counterexample_scenario",
    "canonical",
]

DECLARATION = "declaration"


@dataclass(frozen=True)
class Property:
    name: str
    text: str
    cites: tuple[str, ...]
    stage: str = "board"  # board | declaration
    functional: tuple[int, ...] = ()  # a functional(...) declaration: the key positions


def properties_of(engine: Engine) -> dict[str, Property]:
    """The properties the loaded rules declare, and one per functional(...) predicate the rules derive."""
    state = engine.state_from_dict({"players": ["p1", "p2"]})
    cites: dict[str, list[str]] = {}
    for row in state.query("property_cr(P, C)"):
        cites.setdefault(str(row["P"]), []).append(str(row["C"]))
    stages = {str(row["P"]): str(row["S"]) for row in state.query("property_stage(P, S)")}
    out = {}
    for row in state.query("property(P, T)"):
        name = str(row["P"])
        out[name] = Property(name, str(row["T"]), tuple(sorted(cites.get(name, []))), stages.get(name, "board"))
    for pred, decl in sorted(engine.program.decls.items()):
        # a functional input (life, counter) is kept single-valued by the effect primitives, not by rules
        if decl.functional and not decl.is_input:
            keys = decl.key_positions
            shown = ", ".join(p.name for p in decl.params)
            out[f"functional:{pred}"] = Property(
                f"functional:{pred}",
                f"{pred}({shown}) has one value for each {', '.join(decl.functional)} (declared functional)",
                (),
                "board",
                keys,
            )
    return out


def witness_text(value: object) -> str:
    """A witness as judgelog writes values (``c1``, ``3``, ``"Servo Token"``); a value of several arguments
    (a functional predicate's) as ``(a, b)``."""
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v) for v in value) + ")"
    return format_value(value)


_WITNESS_WORD = re.compile(r'"(?:[^"\\]|\\.)*"|[a-z][a-z0-9_]*')  # a quoted string is one word, never renamed


def _rename_witness(text: str, mapping: dict[str, str]) -> str:
    return _WITNESS_WORD.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)


def violations(state: State, props: dict[str, Property], stage: str) -> list[tuple[str, tuple]]:
    """The violations of the properties of ``stage`` in a state: (property, witnesses)."""
    out: list[tuple[str, tuple]] = []
    for row in state.query("property_violation(P, A, B)", limit=10**6):
        prop = props.get(str(row["P"]))
        if prop is not None and prop.stage == stage:
            out.append((prop.name, (row["A"], row["B"])))
    if stage != DECLARATION:
        for prop in props.values():
            if not prop.functional or prop.stage != stage:
                continue
            pred = prop.name.split(":", 1)[1]
            decl = state.engine.program.decl(pred)
            if decl is None:  # a functional property names a declared predicate
                continue
            names = [f"V{i}" for i in range(decl.arity)]
            groups: dict[tuple, set] = {}
            for row in state.query(f"{pred}({', '.join(names)})", limit=10**6):
                key = tuple(row[names[i]] for i in prop.functional)
                groups.setdefault(key, set()).add(
                    tuple(row[n] for i, n in enumerate(names) if i not in prop.functional)
                )
            for key, values in groups.items():
                if len(values) > 1:  # the key, then two of its values (a value of one argument: that argument)
                    two = tuple(v[0] if len(v) == 1 else v for v in sorted(values, key=repr)[:2])
                    out.append((prop.name, key + two))
    return sorted(set(out), key=repr)


# -- the steps of one board ----------------------------------------------------------------------------
def _declaring_actions(engine: Engine, scope: Scope) -> tuple[list[tuple[str, list[Field]]], list[Field]]:
    """The declared fields grouped by the action that takes them, in declaration order, and the fields
    that no action takes (they are part of the board, e.g. pairs)."""
    face = engine.interface
    state = engine.state_from_dict({"players": ["p1", "p2"]})
    taken: dict[str, str] = {}
    for row in state.query("action_param(K, F)"):
        taken.setdefault(str(row["F"]), str(row["K"]))
    fields = [f for n in scope.declare if (f := face.field(n)) is not None]  # the scope names declared fields
    names = {f.name for f in fields}

    def depth(f: Field) -> int:
        return sum(1 for r in f.refs if r.what in names)

    groups: list[tuple[str, list[Field]]] = []
    board_fields: list[Field] = []
    for f in sorted(fields, key=lambda f: (depth(f), scope.declare.index(f.name))):
        action = taken.get(f.name)
        if action is None:
            board_fields.append(f)
            continue
        for kind, members in groups:
            if kind == action:
                members.append(f)
                break
        else:
            groups.append((action, [f]))
    return groups, board_fields


def _facts_of(face: Interface, field: Field, value: Any) -> list[tuple]:
    """The facts a designation field's value gives (the scenario loader's shapes)."""
    raw = []
    if field.shape in ("map", "map_list") and isinstance(value, dict):
        for a, b in value.items():
            for x in b if isinstance(b, list) else [b]:
                raw.append((field.pred, a, x))
    elif field.shape == "groups":
        for i, group in enumerate(value):
            raw.extend((field.pred, m, f"{field.label or field.name}{i + 1}") for m in group)
    elif field.shape == "pairs":
        raw.extend((field.pred, a, b) for a, b in value)
    return [made for fact in raw for made in face.recorded(fact)]


def _follow_ups(scope: Scope, board: Sequence[Spec], base: State) -> Iterator[dict]:
    """Each follow-up action of the scope on a board: every occurrence of ``$creature``, ``$player`` or
    ``$keyword``, an argument's value or an item of a list (``object: [$creature, $creature]``), ranges over
    the board's creatures, players or keywords on its own (the same creature twice too)."""
    ids = creature_ids(board)
    players = players_of(scope)
    kws = sorted({scope.keywords[i].keyword for s in board for i in s.keywords})
    fill: dict[str, Sequence[object]] = {"$creature": ids, "$player": players, "$keyword": kws}
    for template in scope.follow_up:
        action = dict(template)
        slots = [(place, value) for place, value in placeholders(action) if value in fill]
        for values in _product([fill[value] for _, value in slots]):
            yield with_values(action, [place for place, _ in slots], values)


def _product(lists: Sequence[Sequence[object]]) -> Iterator[tuple[object, ...]]:
    import itertools

    return itertools.product(*lists)


@dataclass
class _Run:
    engine: Engine
    scope: Scope
    props: dict[str, Property]
    groups: list
    board_fields: list
    states: int = 0
    found: list[dict] = field(default_factory=list)
    follow_ups_only: bool = False  # check only the states after a follow-up action (the search checks the rest)


def _record(
    run: _Run, board: Sequence[Spec], steps: list[dict], stage: str, state: State, proposed: dict | None = None
) -> None:
    run.states += 1
    for name, witnesses in violations(state, run.props, stage):
        run.found.append(
            {
                "property": name,
                "witnesses": [witness_text(w) for w in witnesses],
                "stage": stage,
                "creatures": len(board),
                "keywords": board_keywords(board),
                "board": board_dict(run.scope, board),
                "steps": [dict(s) for s in steps],
                "proposed": proposed,
            }
        )


def _declare(
    run: _Run,
    board: Sequence[Spec],
    state: State,
    steps: list[dict],
    declared: dict,
    level: int,
    seen: set,
    autos: list[dict[str, str]],
) -> None:
    """Declare the fields of action group ``level`` (every candidate), then the next groups; at the end,
    check the board and each follow-up action."""
    face = run.engine.interface
    if level == len(run.groups):
        key = canonical_key(steps, autos)
        if key in seen:
            return
        seen.add(key)
        if not run.follow_ups_only:
            _record(run, board, steps, "board", state)
        for action in _follow_ups(run.scope, board, state):
            key = canonical_key(steps + [action], autos)
            if key in seen:
                continue
            seen.add(key)
            try:
                after, _ = apply_action(state, action)  # only whether it applies: no refusal's options listed
            except ActionError:
                continue
            _record(run, board, steps + [action], "board", after)
        return
    kind, fields = run.groups[level]
    for values in _assignments(run, board, fields, dict(declared)):
        if not any(values.values()):  # nothing declared: no action, the next group sees nothing either
            _declare(run, board, state, steps, {**declared, **values}, level + 1, seen, autos)
            continue
        action = {"do": kind, **values}
        key = canonical_key(steps + [{"proposed": action}], autos)
        if key in seen:
            continue
        seen.add(key)
        proposed = [fact for f in fields for fact in _facts_of(face, f, values[f.name])]
        if not run.follow_ups_only:
            proposal = state.with_facts(state.facts | frozenset(proposed))
            _record(run, board, steps, DECLARATION, proposal, proposed=action)
        try:
            after, _ = apply_action(state, action)  # only whether it applies: no refusal's options listed
        except ActionError:
            continue
        _declare(run, board, after, steps + [action], {**declared, **values}, level + 1, seen, autos)


def _assignments(run: _Run, board: Sequence[Spec], fields: Sequence[Field], declared: dict) -> Iterator[dict]:
    """Every combination of values of the fields of one action (a field may refer to an earlier one)."""
    if not fields:
        yield {}
        return
    first, rest = fields[0], fields[1:]
    for value in candidates(first, run.scope, board, declared):
        for more in _assignments(run, board, rest, {**declared, first.name: value}):
            yield {first.name: value, **more}


def run_task(
    engine: Engine, scope: Scope, task: Task, *, all_found: bool = False, follow_ups_only: bool = False
) -> dict:
    """Check every board of one task. Returns the number of states checked and the counterexamples, least
    first (only the least of each property unless ``all_found``). ``follow_ups_only``: only the states after
    the scope's follow-up actions (the search checked the boards and their declarations)."""
    groups, board_fields = _declaring_actions(engine, scope)
    run = _Run(engine, scope, properties_of(engine), groups, board_fields, found=[], follow_ups_only=follow_ups_only)
    if scope.properties:
        run.props = {k: v for k, v in run.props.items() if k in scope.properties}
    nboards = 0
    for board in boards(scope, task):
        nboards += 1
        autos = automorphisms(board, scope.players)
        base = board_dict(scope, board)
        for designations in _assignments(run, board, board_fields, {}):
            data = dict(base)
            data.update({k: v for k, v in designations.items() if v})
            state = engine.state_from_dict(data, path="<board>")
            if state.holds("board_problem(_, _)"):  # a board the rules would not allow (S201): not a board
                continue
            seen: set = set()
            steps = [{"board": designations}] if any(designations.values()) else []
            _declare(run, board, state, steps, {}, 0, seen, autos)
    found = sorted((canonical(c, board_of(run.scope, c), scope.players) for c in run.found), key=order_key)
    if not all_found:
        least: dict[str, dict] = {}
        for c in found:
            least.setdefault(c["property"], c)
        found = sorted(least.values(), key=order_key)
    return {"task": task.name, "states": run.states, "boards": nboards, "counterexamples": found}


def board_of(scope: Scope, c: dict) -> tuple[Spec, ...]:
    """The board of a counterexample, back from its scenario form."""
    from .boards import _specs

    wanted = c["board"]
    by_dict = {repr(board_dict(scope, [s])["objects"]["c1"]): s for s in _specs(scope)}
    out = []
    for obj in wanted["objects"].values():
        one = dict(obj, name="Creature 1")
        out.append(by_dict[repr(one)])
    return tuple(out)


def order_key(c: dict) -> tuple:
    """Smallest first: fewest creatures, then fewest keywords, then fewest steps, then by text."""
    return (
        c["creatures"],
        c["keywords"],
        len(c["steps"]),
        repr(c["board"]),
        repr(c["steps"]),
        c["property"],
        c["witnesses"],
    )


def merge(scope: Scope, results: Sequence[dict], *, all_found: bool = False) -> dict:
    """One result from the tasks' results, whatever order they finished in."""
    found = sorted((c for r in results for c in r["counterexamples"]), key=order_key)
    if not all_found:
        least: dict[str, dict] = {}
        for c in found:
            least.setdefault(c["property"], c)
        found = sorted(least.values(), key=order_key)
    return {
        "scope": scope.to_dict(),
        "tasks": len(results),
        "boards": sum(r.get("boards", 0) for r in results),
        "states": sum(r.get("states", 0) for r in results),
        "counterexamples": found,
        # each note once (two follow-up actions can give one reason); with the follow-up actions the reference
        # enumerator checked, when the search checked the rest of the task
        "fallback": list(
            dict.fromkeys(
                (r["task"], what, tuple(r.get("referenced", ()))) for r in results for what in r.get("fallback", ())
            )
        ),
    }


def counterexample_scenario(engine: Engine, c: dict, props: dict[str, Property], *, rules: Sequence[str] = ()) -> dict:
    """A scenario that reproduces a counterexample: the board, its declarations and follow-up action as
    ``actions:``, and an ``expect:`` entry that fails (``judgelog test``) while the violation holds and passes
    once it does not: the property holds (``unless_refused``: an action refused reaches no such state)."""
    prop = props.get(c["property"])
    data: dict = {"name": f"verify: {c['property']}"}
    cites = f" (CR {', '.join(prop.cites)})" if prop and prop.cites else ""
    data["description"] = (
        f"Counterexample to property {c['property']}{cites}: {prop.text if prop else ''}. Found by judgelog verify."
    )
    if rules:
        data["rules"] = list(rules)
    data.update(c["board"])
    actions = []
    for step in c["steps"]:
        if "board" in step:
            data.update({k: v for k, v in step["board"].items() if v})
        else:
            actions.append(step)
    # the board as a scenario writes it (active player, life, owners)
    state = engine.state_from_dict({k: v for k, v in data.items() if k != "rules"}, path="<counterexample>")
    if c["stage"] == DECLARATION:
        # the proposed declaration is written as the state it proposes (the action would be judged)
        combat = {k: v for k, v in c["proposed"].items() if k != "do" and v}
        for action in actions:
            state, _ = state.apply(action)
        face = engine.interface
        facts = [
            fact
            for k, v in combat.items()
            if (field := face.field(k)) is not None  # a declared field: the scope took its name from them
            for fact in _facts_of(face, field, v)
        ]
        state = state.with_facts(state.facts | frozenset(facts))
    written = state.to_scenario()
    written.pop("name", None)
    data = {**{k: data[k] for k in _HEADER if k in data}, **written}
    if actions and c["stage"] != DECLARATION:
        data["actions"] = actions
    kind, _, pred = c["property"].partition(":")
    decl = engine.program.decl(pred) if kind == "functional" else None
    if decl is not None:
        keys = prop.functional if prop else (0,)
        wit = list(c["witnesses"])
        args = [wit[keys.index(i)] if i in keys else f"V{i}" for i in range(decl.arity)]
        data["expect"] = [{"query": f"{pred}({', '.join(args)})", "count": 1}]
    else:
        a, b = c["witnesses"]
        data["expect"] = [{"absent": f"property_violation({c['property']}, {a}, {b})"}]
    if data.get("actions"):  # the property asks only about the states the rules' actions reach: a library
        # fixed by refusing one of the actions (a block it allowed) keeps it too
        data["expect"][0]["unless_refused"] = True
    return data


_HEADER = ("name", "description", "rules")  # what a counterexample says of itself, beside its board


def _slot(oid: str) -> int:
    return int(oid[1:]) if oid[1:].isdigit() else 0


def _rename(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        renamed = {_rename(k, mapping): _rename(v, mapping) for k, v in value.items()}
        if not all(k in mapping for k in value):  # an action: its keys keep their order
            return renamed
        return {k: renamed[k] for k in sorted(renamed, key=_slot)}
    if isinstance(value, list):
        items = [_rename(v, mapping) for v in value]
        if items and all(isinstance(v, list) for v in items):  # groups and pairs: order-free
            items = sorted((sorted(v, key=_slot) for v in items), key=lambda v: [_slot(x) for x in v])
        return items
    return value


def canonical(c: dict, board: Sequence[Spec], players: int = 2) -> dict:
    """The counterexample renamed by the automorphism of its board (identical creatures swapped, players
    with the same creatures swapped) that makes it least, so that symmetric counterexamples are written
    one way."""
    best = None
    for mapping in automorphisms(board, players):
        cand = dict(c)
        cand["steps"] = _rename(c["steps"], mapping)
        cand["proposed"] = _rename(c["proposed"], mapping)
        cand["witnesses"] = [_rename_witness(w, mapping) for w in c["witnesses"]]
        key = (repr(cand["steps"]), repr(cand["proposed"]), cand["witnesses"])
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1] if best else c
