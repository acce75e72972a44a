"""Writing a state back as a scenario file that loads to exactly the same facts.

Structured sections (players, objects, combat, pairs, stack) are written where the facts have that shape;
every other fact goes, as an atom, to ``facts:``. The writer checks the round trip itself: the written
scenario is compiled again and must give back the state's facts.
"""
from __future__ import annotations

from typing import Dict, List

import yaml

from .ast import format_value
from .errors import JudgelogError, UsageError

__all__ = ["state_to_scenario", "write_scenario"]

_KEYWORD_PARAM = {"landwalk": ("land_with", "land_without"), "fabricate": ("n",),
                  "bands_with_other": ("subtype", "supertype", "name")}


def _by(facts, pred: str) -> List[tuple]:
    return sorted((f for f in facts if f[0] == pred), key=lambda f: tuple(map(str, f)))


def state_to_scenario(state) -> dict:
    from .scenario import compile_scenario

    facts = state.facts
    players = [f[1] for f in sorted(_by(facts, "turn_order"), key=lambda f: f[2])]
    data: Dict = {"name": state.name or "state"}
    data["players"] = players
    active = [f[1] for f in _by(facts, "active_player")]
    if active:
        data["active"] = active[0]
    data["life"] = {f[1]: f[2] for f in _by(facts, "life")}
    pc: Dict = {}
    for f in _by(facts, "counter"):
        if f[1] in players:
            pc.setdefault(f[1], {})[f[2]] = f[3]
    if pc:
        data["player_counters"] = pc
    objects: Dict = {}
    for (_, oid) in _by(facts, "permanent"):
        spec: Dict = {}
        name = [f[2] for f in _by(facts, "name") if f[1] == oid]
        if name:
            spec["name"] = name[0]
        for key, pred in (("types", "card_type"), ("subtypes", "subtype"), ("supertypes", "supertype"),
                          ("colors", "color")):
            values = [f[2] for f in _by(facts, pred) if f[1] == oid]
            if values:
                spec[key] = values
        for key, pred in (("power", "base_power"), ("toughness", "base_toughness")):
            values = [f[2] for f in _by(facts, pred) if f[1] == oid]
            if values:
                spec[key] = values[0]
        keywords: List = []
        for f in _by(facts, "printed_keyword"):
            if f[1] != oid:
                continue
            params = [p for p in _by(facts, "printed_keyword_param") if p[1] == oid and p[2] == f[2]]
            if f[2] in _KEYWORD_PARAM and len(params) == 1:
                _, _, kw, key, value = params[0]
                if kw == "fabricate":
                    keywords.append({kw: value})
                elif kw == "landwalk":
                    keywords.append({kw: value if key == "land_with" else "non" + value})
                else:
                    keywords.append({kw: {key: value}})
            elif f[2] not in _KEYWORD_PARAM:
                keywords.append(f[2])
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
    attackers = {f[1]: f[2] for f in _by(facts, "attacking")}
    if attackers:
        combat: Dict = {"attackers": attackers}
        bands: Dict[str, List[str]] = {}
        for f in _by(facts, "in_band"):
            bands.setdefault(f[2], []).append(f[1])
        ordered = sorted(bands.items(), key=lambda kv: _band_number(kv[0]))
        if ordered and [b for b, _ in ordered] == [f"band{i + 1}" for i in range(len(ordered))]:
            combat["bands"] = [members for _, members in ordered]
        blockers: Dict[str, List[str]] = {}
        for f in _by(facts, "blocking"):
            blockers.setdefault(f[1], []).append(f[2])
        if blockers:
            combat["blockers"] = blockers
        data["combat"] = combat
    pairs = [[f[1], f[2]] for f in _by(facts, "paired") if str(f[1]) < str(f[2])]
    if pairs:
        data["pairs"] = pairs
    stack = []
    for f in sorted(_by(facts, "stack_position"), key=lambda f: -f[2]):
        aid = f[1]
        entry = next((s for s in _by(facts, "on_stack") if s[1] == aid), None)
        ctrl = next((c[2] for c in _by(facts, "ability_controller") if c[1] == aid), None)
        if entry is None or ctrl is None:
            continue
        item = {"id": aid, "source": entry[2], "kind": entry[3], "controller": ctrl}
        args = {a[2]: a[3] for a in _by(facts, "ability_arg") if a[1] == aid}
        if args:
            item["args"] = args
        stack.append(item)
    positions = sorted(f[2] for f in _by(facts, "stack_position"))
    if stack and positions == list(range(1, len(positions) + 1)):
        data["stack"] = stack
    covered = compile_scenario(data, path="<written>", keywords=state.engine.keywords).facts
    extra = covered - facts
    if extra:
        raise JudgelogError(f"cannot write this state as a scenario: it would add {sorted(extra)[:3]}")
    rest = facts - covered
    if rest:
        data["facts"] = sorted(_atom(f) for f in rest)
    return data


def _band_number(band) -> int:
    text = str(band)
    return int(text[4:]) if text.startswith("band") and text[4:].isdigit() else 10**9


def _atom(fact: tuple) -> str:
    return f"{fact[0]}({', '.join(format_value(a) for a in fact[1:])})"


def write_scenario(state, path: str) -> None:
    data = state_to_scenario(state)
    scenario = state.meta.get("scenario")
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
