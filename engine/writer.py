"""Writing a state back as a scenario file that loads to exactly the same facts.

Structured sections (players, objects, the designation fields the rules declare, stack) are written where
the facts have that shape, with the same table the loader reads (``Engine.interface``);
every other fact goes, as an atom, to ``facts:``. The writer checks the round trip itself: the written
scenario is compiled again and must give back the state's facts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import yaml

from .errors import ScenarioError, UsageError
from .fact import Fact

if TYPE_CHECKING:
    from .interface import Field, Interface
    from .protocols import Board

__all__ = ["state_to_scenario", "write_scenario"]


def _by(facts: Iterable[tuple], pred: str) -> list[tuple]:
    return sorted((f for f in facts if f[0] == pred), key=lambda f: tuple(map(str, f)))


def state_to_scenario(state: Board) -> dict:
    from .scenario import compile_scenario

    facts = state.facts
    face = state.engine.interface
    players = [f[1] for f in sorted(_by(facts, "turn_order"), key=lambda f: f[2])]
    data: dict = {"name": state.name or "state"}
    data["players"] = players
    active = [f[1] for f in _by(facts, "active_player")]
    if active:
        data["active"] = active[0]
    data["life"] = {f[1]: f[2] for f in _by(facts, "life")}
    pc: dict = {}
    for f in _by(facts, "counter"):
        if f[1] in players:
            pc.setdefault(f[1], {})[f[2]] = f[3]
    if pc:
        data["player_counters"] = pc
    objects: dict = {}
    for _, oid in _by(facts, "permanent"):
        spec: dict = {}
        name = [f[2] for f in _by(facts, "name") if f[1] == oid]
        if name:
            spec["name"] = name[0]
        for key, pred in (
            ("types", "card_type"),
            ("subtypes", "subtype"),
            ("supertypes", "supertype"),
            ("colors", "color"),
        ):
            values = [f[2] for f in _by(facts, pred) if f[1] == oid]
            if values:
                spec[key] = values
        for key, pred in (("power", "base_power"), ("toughness", "base_toughness")):
            values = [f[2] for f in _by(facts, pred) if f[1] == oid]
            if values:
                spec[key] = values[0]
        keywords: list = []
        for f in _by(facts, "printed_keyword"):
            if f[1] != oid:
                continue
            params = [p for p in _by(facts, "printed_keyword_param") if p[1] == oid and p[2] == f[2]]
            entry = f[2]
            if face.takes_param(f[2]) and (params or face.needs_param(f[2])):
                written = _keyword_param(face, f[2], params[0][3], params[0][4]) if len(params) == 1 else None
                if written is None:
                    continue
                entry = {f[2]: written}
            keywords.append(entry)
            for again in _by(facts, "printed_keyword_instance"):  # instances are a multiset
                if again[1] != oid or again[2] != f[2]:
                    continue
                own = [p for p in _by(facts, "printed_keyword_instance_param") if p[1:4] == again[1:4]]
                if face.takes_param(f[2]) and len(own) == 1:
                    keywords.append({f[2]: _keyword_param(face, f[2], own[0][4], own[0][5])})
                elif face.takes_param(f[2]) and not own and not face.needs_param(f[2]):
                    keywords.append(f[2])  # an instance written without its optional parameter
                else:
                    keywords.append(entry)
        if keywords:
            spec["keywords"] = keywords
        ctrl = [f[2] for f in _by(facts, "controller") if f[1] == oid]
        if ctrl:
            spec["controller"] = ctrl[0]
        own = [f[2] for f in _by(facts, "owner") if f[1] == oid]
        if own:
            spec["owner"] = own[0]
        if ("token", oid) in facts:
            spec["token"] = True
        if ("tapped", oid) in facts:
            spec["tapped"] = True
        counters = {f[2]: f[3] for f in _by(facts, "counter") if f[1] == oid}
        if counters:
            spec["counters"] = counters
        damage = [f[2] for f in _by(facts, "damage_marked") if f[1] == oid]
        if damage and damage[0] > 0:
            spec["damage"] = damage[0]
        objects[oid] = spec
    data["objects"] = objects
    ids = {"object": set(objects), "player": set(players)}
    ids["target"] = ids["object"] | ids["player"]
    ids["card"] = ids["object"]  # a card in another zone is written under facts:, and so is a designation naming it
    combat = _fields(facts, face.section_fields("combat"), ids)
    if combat:
        data["combat"] = combat
    data.update(_fields(facts, face.section_fields("top"), ids))
    stack = []
    for f in sorted(_by(facts, "stack_position"), key=lambda f: -f[2]):
        aid = f[1]
        entry = next((s for s in _by(facts, "on_stack") if s[1] == aid), None)
        holder = next((c[2] for c in _by(facts, "ability_controller") if c[1] == aid), None)
        if entry is None or holder is None:
            continue
        item = {"id": aid, "source": entry[2], "kind": entry[3], "controller": holder}
        args = {a[2]: a[3] for a in _by(facts, "ability_arg") if a[1] == aid}
        if args:
            item["args"] = args
        stack.append(item)
    positions = sorted(f[2] for f in _by(facts, "stack_position"))
    if stack and positions == list(range(1, len(positions) + 1)):
        data["stack"] = stack
    # an ability whose source has left the battlefield (a dies trigger's) names a card in a zone, or a token
    # that ceased to exist: its card_in_zone fact, or the events naming it, go under facts:, where the stack's
    # sources are looked for
    sources = {item["source"] for item in data.get("stack", ())} - set(objects)
    zoned = [str(Fact(*f)) for f in _by(facts, "card_in_zone") if f[1] in sources]
    zoned += [str(Fact(*f)) for f in _by(facts, "event") if f[3] in sources]
    if zoned:
        data["facts"] = zoned
    covered = compile_scenario(data, path="<written>", interface=face).facts
    extra = covered - facts
    if extra:
        raise ScenarioError(
            f"cannot write this state as a scenario: it would add {sorted(extra)[:3]}",
            hint="the scenario format gives these facts whenever it is loaded; the state lacks them",
        )
    rest = facts - covered
    if rest or zoned:
        data["facts"] = sorted({str(Fact(*f)) for f in rest} | set(zoned))
    return data


def _keyword_param(face: Interface, keyword: str, key: object, value: object) -> object:
    """How ``{keyword: ...}`` is written for one parameter, by the keyword's declared grammar."""
    for form, fkey in face.keyword_forms.get(keyword, ()):
        if key == fkey and form in ("number", "word"):
            return value
        if key == fkey and form == "mapping":
            return {key: value}
    for prefix, pkey in face.keyword_prefixes.get(keyword, ()):
        if key == pkey:
            return f"{prefix}{value}"
    return None


def _fields(facts: Iterable[tuple], fields: Sequence[Field], ids: dict[str, set]) -> dict:
    """The designation fields the rules declare (scenario_field/4), written back by their shapes. An entry
    that refers to another field's ids is written only when that field lists them, and one that refers to
    an object or a player only when the state still has it (else: facts:; e.g. a creature still attacking
    a planeswalker that left the battlefield, 506.4c)."""
    out: dict = {}
    listed: dict[str, set] = dict(ids)
    for f in sorted(fields, key=lambda f: sum(1 for r in f.refs if r.what in {g.name for g in fields})):
        rows = _by(facts, f.pred)
        rows = [
            r
            for r in rows
            if len(r) == 3
            and all(f.ref(pos).what not in listed or r[pos + 1] in listed[f.ref(pos).what] for pos in (0, 1))
        ]
        value: dict | list
        if f.shape == "map":
            value = {r[1]: r[2] for r in rows}
            listed[f.name] = set(value)
        elif f.shape == "map_list":
            lists: dict = {}
            for r in rows:
                lists.setdefault(r[1], []).append(r[2])
            value = lists
            listed[f.name] = set(value)
        elif f.shape == "groups":
            groups: dict = {}
            for r in rows:
                groups.setdefault(r[2], []).append(r[1])
            prefix = f.label or f.name
            labels = [f"{prefix}{i + 1}" for i in range(len(groups))]
            value = [groups[g] for g in labels] if sorted(groups, key=str) == sorted(labels) else []
            listed[f.name] = {m for g in value for m in g}
        else:  # pairs
            value = [[r[1], r[2]] for r in rows if str(r[1]) < str(r[2])]
            listed[f.name] = {x for p in value for x in p}
        if value:
            out[f.name] = value
    return out


def write_scenario(state: Board, path: str) -> None:
    data = state_to_scenario(state)
    scenario = state.meta.scenario
    if scenario is not None and scenario.rules:
        # the scenario's own rule files (its rules: key), relative to the written file, so that it loads
        # back with the same rules
        import os

        base = os.path.dirname(os.path.abspath(path))
        rules = [os.path.relpath(os.path.abspath(r), base) for r in scenario.rules]
        data = {"name": data.pop("name"), "rules": rules, **data}
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("# written by judgelog do: loads back to the same state\n" + text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None  # as graph -o: exit 2
