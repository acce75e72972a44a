"""``judgelog verify`` by search: each board shape is one clingo task (:mod:`judgelog.verify_asp`); what
the solver proposes is replayed by the reference semantics before it is reported.

A task whose boards the search cannot follow (:func:`search_task` says what) is checked
by the reference enumerator (:func:`judgelog.verify.run_task`) instead, and the result says so.

>>> from judgelog import Engine
>>> from judgelog.scope import load_scope
>>> from judgelog.boards import shapes
>>> engine = Engine(properties=True)
>>> scope = load_scope({"creatures": 1, "keywords": ["trample"], "power": [1], "toughness": [1]}, engine)
>>> [(r["task"], r["boards"], r["counterexamples"]) for r in (search_shape(engine, scope, s) for s in shapes(scope))]
[('n1-s01', 2, []), ('n1-s10', 2, [])]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .boards import Spec, board_dict, count_boards, tasks
from .errors import ActionError, JudgelogError
from .extras import require
from .runtime import apply_action
from .scope import Scope
from .verify import _slot, canonical

if TYPE_CHECKING:
    from .boards import Shape
    from .engine import Engine
    from .interface import Field
    from .verify import Property
    from .verify_asp import _Ctx

__all__ = ["search_shape", "search_task", "Found", "replay", "canonical_board", "SearchDisagrees"]


class SearchDisagrees(JudgelogError):
    """The search proposed a counterexample that the rules, replayed, do not confirm (a bug of the search)."""


_MODEL_CAP = 400  # optimal models read per property (ties in keywords and steps)


# what an ``unsupported(C, What)`` atom's What stands for (verify_asp.py writes them), in words
_UNSUPPORTED_WORDS = {
    "choice": "a choice",
    "triggered_ability": "a triggered ability",
    "follow_up": "an action the rules apply again (follow_up/2)",
    "third_step": "a third step",
    "state_based_actions_not_settled": "state-based actions that have not settled after three rounds",
    "gain_control_refused": "a gain_control of an object that is not a permanent",
}


def _unsupported_text(symbol: Any, contexts: Sequence[_Ctx], follow_do: str = "") -> str:
    """``unsupported(C, What)`` in words: what the search cannot follow, and where (``follow_do``: the
    follow-up action of the model, named when the place is that action)."""
    ctx, what = symbol.arguments
    where = contexts[ctx.number]
    if where.group == "follow_up":
        group = f"the follow-up action {follow_do}" if follow_do else "the follow-up action"
    else:
        group = where.group
    place = f"in the state-based actions after {group}" if where.kind == "sba" else f"in a step of {group}"
    if what.type.name == "String":
        return f"the effect primitive {what.string} {place}"
    return f"{_UNSUPPORTED_WORDS.get(str(what), str(what).replace('_', ' '))} {place}"


def _unsupported_texts(model: Any, contexts: Sequence[_Ctx], scope: Scope) -> tuple[list[str], int | None]:
    """What a model says the search cannot follow, in words, with the follow-up action it chose (``follow(fu(T,
    ...))``, T its place in the scope) named where that is the place; and T when everything it cannot follow is
    in that follow-up action or the state-based actions after it (None otherwise: the task as a whole)."""
    symbols = model.symbols(shown=True)
    places = [s.arguments[0].arguments[0].number for s in symbols if s.name == "follow"]
    follow = [str(dict(scope.follow_up[t])["do"]) for t in places]
    unsupported = [s for s in symbols if s.name == "unsupported"]
    texts = sorted({_unsupported_text(s, contexts, follow[0] if follow else "") for s in unsupported})
    in_follow_up = bool(places) and all(contexts[s.arguments[0].number].group == "follow_up" for s in unsupported)
    return texts, places[0] if in_follow_up else None


# -- solving -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Found:
    """One model's board, designations and follow-up, and the properties it violates."""

    specs: tuple[int, ...]
    designations: tuple[tuple[str, tuple], ...]
    follow: tuple | None
    properties: tuple[tuple[str, int], ...]  # (property, context)


def _value(a: Any) -> Any:
    kind = a.type.name
    return a.string if kind == "String" else a.number if kind == "Number" else str(a)


def _read(model: Any, nslots: int) -> Found:
    specs = [0] * nslots
    des: dict[str, list] = {}
    follow = None
    props = []
    for s in model.symbols(shown=True):
        args = [_value(a) for a in s.arguments]
        if s.name == "spec":
            specs[int(args[0][1:]) - 1] = args[1]
        elif s.name.startswith("d_"):
            des.setdefault(s.name[2:], []).append(tuple(args))
        elif s.name == "follow":
            t = s.arguments[0]
            follow = tuple(_value(a) for a in t.arguments)
        elif s.name == "vat":
            props.append((args[0], args[1]))
    return Found(
        tuple(specs), tuple(sorted((k, tuple(sorted(v))) for k, v in des.items())), follow, tuple(sorted(props))
    )


def search_task(
    engine: Engine, scope: Scope, shape: Shape, props: dict[str, Property], *, all_found: bool = False
) -> dict:
    """One shape's boards searched by clingo. Returns the boards covered, the counterexamples (replayed by
    the reference semantics; least of each property unless ``all_found``) and what the search could not
    follow (then the caller checks the task with the reference enumerator)."""
    from .verify_asp import compile_search

    clingo = require("clingo", extra="clingo", purpose="judgelog verify's search")
    compiled = compile_search(engine, scope, shape, props)
    result: dict = {"task": shape.name, "boards": count_boards(scope, shape), "counterexamples": [], "unsupported": []}
    if compiled.unsupported_static:
        result["unsupported"] = compiled.unsupported_static
        return result
    ctl = clingo.Control(
        ["--warn=none", "--opt-mode=optN", f"--models={_MODEL_CAP}" if not all_found else "--models=0"]
    )
    ctl.add("base", [], compiled.text)
    ctl.ground([("base", [])])
    found_props: set[str] = set()

    def assume(unsup: bool) -> list:
        """Set the externals (an assumption cannot make an external true: assign them)."""
        ctl.assign_external(clingo.Function("want_unsupported"), unsup)
        for p in props:
            ctl.assign_external(clingo.Function("found", [clingo.String(p)]), p in found_props)
        return []

    # 1. can the search follow every board of the task?
    ctl.configuration.solve.opt_mode = "ignore"
    ctl.configuration.solve.models = 1
    hit: list = []
    ctl.solve(
        assumptions=assume(True),
        on_model=lambda m: hit.append(_unsupported_texts(m, compiled.contexts, scope)),
    )
    if hit:
        result["unsupported"], result["unsupported_follow_up"] = hit[0]
        return result
    # 2. the smallest violation of each property not found yet
    models: list[Found] = []
    if all_found:
        ctl.configuration.solve.opt_mode = "ignore"
        ctl.configuration.solve.models = 0
        ctl.solve(assumptions=assume(False), on_model=lambda m: models.append(_read(m, shape.creatures)))
    else:
        ctl.configuration.solve.opt_mode = "optN"
        ctl.configuration.solve.models = _MODEL_CAP
        while True:
            batch: list[Found] = []

            def on_model(m: Any, batch: list = batch) -> None:
                if m.optimality_proven:
                    batch.append(_read(m, shape.creatures))

            ctl.solve(assumptions=assume(False), on_model=on_model)
            if not batch:
                break
            models.extend(batch)
            new = {p for f in batch for p, _ in f.properties} - found_props
            if not new:
                break
            found_props |= new
    result["models"] = models
    result["contexts"] = compiled.contexts
    return result


# -- replaying ---------------------------------------------------------------------------------------------
def _values(found: Found, fields: Sequence[Any], board: Sequence[Spec], scope: Scope) -> dict:
    """The fields' values in the enumerator's form (candidates() of judgelog.boards)."""
    des = dict(found.designations)
    out: dict = {}
    for f in fields:
        rows = des.get(f.name, ())
        if f.shape == "map" and f.ref(1).what in ("player", "target"):
            out[f.name] = {o: t for o, t in sorted(rows)}
        elif f.shape == "groups":
            groups: dict[str, list] = {}
            for o, g in sorted(rows):
                groups.setdefault(g, []).append(o)
            out[f.name] = [
                sorted(groups[g], key=_slot)
                for g in sorted(groups, key=lambda g: int(g.lstrip("abcdefghijklmnopqrstuvwxyz_") or 0))
            ]
        elif f.shape == "map_list":
            out[f.name] = {o: [a] for o, a in sorted(rows, key=lambda r: _slot(r[0]))}
        elif f.shape == "map":
            out[f.name] = {o: a for o, a in sorted(rows, key=lambda r: _slot(r[0]))}
        elif f.shape == "pairs":
            out[f.name] = [[a, b] for a, b in sorted(rows, key=lambda r: _slot(r[0]))]
    return out


def canonical_board(found: Found, scope: Scope) -> Found:
    """The model renamed so that its board is the one :func:`judgelog.boards.boards` lists for its orbit
    (the search breaks the symmetry of identical creatures but not that of the non-active players)."""
    from .boards import _specs, creature_ids, is_canonical, players_of

    if scope.players <= 2:
        return found
    specs = _specs(scope)
    index = {s: i for i, s in enumerate(specs)}
    board = [specs[i] for i in found.specs]
    ids, names = creature_ids(board), players_of(scope)
    for perm in itertools.permutations(range(1, scope.players)):
        mapping = (0,) + perm
        renamed = [replace(s, controller=mapping[s.controller]) for s in board]
        order = sorted(range(len(board)), key=lambda i: (renamed[i], i))
        new = tuple(renamed[i] for i in order)
        split = [sum(1 for s in new if s.controller == p) for p in range(1, scope.players)]
        if split != sorted(split, reverse=True) or not is_canonical(new, scope.players):
            continue
        m = {ids[old]: ids[pos] for pos, old in enumerate(order)}
        m.update({names[p]: names[mapping[p]] for p in range(1, scope.players)})

        def ren(row: tuple, m: dict = m) -> tuple:
            return tuple(m.get(v, v) if isinstance(v, str) else v for v in row)

        designations = tuple((k, tuple(sorted(ren(r) for r in rows))) for k, rows in found.designations)
        follow = ren(found.follow) if found.follow is not None else None
        return Found(tuple(index[s] for s in new), designations, follow, found.properties)
    return found


def replay(
    engine: Engine,
    scope: Scope,
    props: dict[str, Property],
    found: Found,
    groups: list[tuple[str, list[Field]]],
    board_fields: list[Field],
) -> list[dict]:
    """The counterexamples along the one path a model describes, found by the reference semantics (the
    same records as the enumerator's ``_record``)."""
    from .boards import _specs
    from .verify import DECLARATION, _facts_of, _record, _Run

    specs = _specs(scope)
    board = tuple(specs[i] for i in found.specs)
    run = _Run(engine, scope, props, list(groups), list(board_fields), found=[])
    designations = _values(found, board_fields, board, scope)
    data = dict(board_dict(scope, board))
    data.update({k: v for k, v in designations.items() if v})
    state = engine.state_from_dict(data, path="<board>")
    steps: list[dict] = [{"board": designations}] if any(designations.values()) else []
    face = engine.interface
    for kind, fields in groups:
        values = _values(found, fields, board, scope)
        if not any(values.values()):
            continue
        action = {"do": kind, **values}
        proposed = [fact for f in fields for fact in _facts_of(face, f, values[f.name])]
        _record(run, board, steps, DECLARATION, state.with_facts(state.facts | frozenset(proposed)), proposed=action)
        try:
            state, _ = apply_action(state, action)  # only whether it applies: no refusal's options listed
        except ActionError:
            return run.found
        steps = steps + [action]
    _record(run, board, steps, "board", state)
    if found.follow is not None:
        template = dict(scope.follow_up[found.follow[0]])
        keys = [k for k in sorted(template) if k != "do"]
        action = {"do": template["do"], **dict(zip(keys, found.follow[1:]))}
        action = {k: action[k] for k in template}  # the template's key order (the enumerator's)
        try:
            after, _ = apply_action(state, action)  # only whether it applies: no refusal's options listed
        except ActionError:
            return run.found
        _record(run, board, steps + [action], "board", after)
    return run.found


def _brings(template: tuple) -> str | None:
    """The argument of a follow-up action that is a mapping or a list (an object it brings: ``enter``,
    ``create_token``; a list of objects), which the search does not follow; None if there is none."""
    return next((k for k, v in template if k != "do" and isinstance(v, (dict, list))), None)


def follow_up_text(template: tuple) -> str:
    """A follow-up action of the scope as its file writes it: ``{do: tap, object: $creature}``."""
    items = dict(template)
    return "{" + ", ".join(f"{k}: {_flow(items[k])}" for k in ["do"] + [k for k in items if k != "do"]) + "}"


def _flow(value: object) -> str:
    """A value as YAML's flow style writes it: ``{recipients: [$creature]}`` (not Python's ``{'recipients': ...}``)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return str(value)


def search_shape(engine: Engine, scope: Scope, shape: Shape, *, all_found: bool = False) -> dict:
    """One board shape searched by clingo. A follow-up action the search cannot follow is checked by the
    reference enumerator (only the states after it), the rest of the shape by the search; anything else it
    cannot follow sends the whole shape to the reference enumerator."""
    from .boards import _specs
    from .verify import _declaring_actions, order_key, properties_of, run_task

    props = properties_of(engine)
    if scope.properties:
        props = {k: v for k, v in props.items() if k in scope.properties}
    groups, board_fields = _declaring_actions(engine, scope)
    kept = [t for t in scope.follow_up if _brings(t) is None]
    referenced = [t for t in scope.follow_up if _brings(t) is not None]
    reasons = [
        f"the follow-up action {dict(t)['do']}'s argument {_brings(t)} (a mapping or a list)" for t in referenced
    ]
    while True:  # each follow-up action a model shows the search cannot follow goes to the reference enumerator
        searched = replace(scope, follow_up=tuple(kept))
        raw = search_task(engine, searched, shape, props, all_found=all_found)
        place = raw.get("unsupported_follow_up")
        if not raw["unsupported"] or place is None:
            break
        reasons.extend(raw["unsupported"])
        referenced.append(kept.pop(place))
    out: dict = {"task": shape.name, "boards": raw["boards"], "counterexamples": [], "fallback": []}
    subtasks = [t for t in tasks(scope) if (t.creatures, t.split) == (shape.creatures, shape.split)]
    if raw["unsupported"]:
        # the reference enumerator checks this shape's boards (every task of the same size and split)
        out["fallback"] = list(dict.fromkeys(reasons + list(raw["unsupported"])))
        results = [run_task(engine, scope, t, all_found=all_found) for t in subtasks]
        out["counterexamples"] = sorted((c for r in results for c in r["counterexamples"]), key=order_key)
        out["boards"] = sum(r.get("boards", 0) for r in results)
        return _least(out, all_found)
    specs = _specs(scope)
    found: list[dict] = []
    seen = set()
    for model in raw["models"]:
        model = canonical_board(model, searched)
        board = tuple(specs[i] for i in model.specs)
        got = [canonical(c, board, scope.players) for c in replay(engine, searched, props, model, groups, board_fields)]
        names = {c["property"] for c in got}
        missing = sorted({p for p, _ in model.properties} - names)
        if missing:
            raise SearchDisagrees(
                f"verify: the search found {missing[0]} violated on a board of {shape.name} that the rules, "
                "replayed, do not confirm",
                hint="a bug of judgelog's search (judgelog.verify_asp); --reference checks the scope by enumeration",
            )
        for c in got:
            key = repr(order_key(c))
            if key not in seen:
                seen.add(key)
                found.append(c)
    if referenced:  # the states after these follow-up actions, one by one (the search checked the others)
        rest = replace(scope, follow_up=tuple(referenced))
        for t in subtasks:
            found.extend(run_task(engine, rest, t, all_found=all_found, follow_ups_only=True)["counterexamples"])
        out["fallback"] = list(dict.fromkeys(reasons))
        out["referenced"] = [follow_up_text(t) for t in scope.follow_up if t in referenced]
    out["counterexamples"] = sorted(found, key=order_key)
    return _least(out, all_found)


def _least(out: dict, all_found: bool) -> dict:
    from .verify import order_key

    if not all_found:
        least: dict[str, dict] = {}
        for c in sorted(out["counterexamples"], key=order_key):
            least.setdefault(c["property"], c)
        out["counterexamples"] = sorted(least.values(), key=order_key)
    return out
