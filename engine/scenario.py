"""Scenario files: strict loading, validation with positions and hints, compilation to facts.

A scenario describes a game state (players, permanents, combat, soulbond pairs, the stack) plus optional
``actions:`` and ``expect:`` entries. Every fact it compiles to remembers the file:line it came from, so
proofs can point back into the scenario.

>>> sc = compile_scenario({"players": ["alice", "bob"], "objects": {
...     "bear": {"card": "Grizzly Bears", "controller": "alice"}}})
>>> ("base_power", "bear", 2) in sc.facts, ("active_player", "alice") in sc.facts
(True, True)
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from .analysis import suggest
from .ast import Span
from .catalog import CardCatalog, default_catalog
from .errors import Diagnostic, ScenarioError
from .yamlsrc import Located, load_path, load_text

__all__ = ["Scenario", "load_scenario", "compile_scenario", "compile_object", "ID_RE", "KEYWORDS",
           "normalize_counter_kind", "TOP_KEYS", "OBJECT_KEYS"]

ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
KIND_RE = re.compile(r"^[a-z][a-z0-9_]*$")
TOP_KEYS = ("name", "description", "players", "active", "objects", "life", "player_counters", "combat",
            "pairs", "stack", "facts", "actions", "expect", "rules")
OBJECT_KEYS = ("card", "name", "types", "subtypes", "supertypes", "colors", "power", "toughness", "keywords",
               "controller", "owner", "token", "tapped", "counters", "damage", "id")
COMBAT_KEYS = ("attackers", "bands", "blockers")
TYPES = ("creature", "artifact", "enchantment", "land", "planeswalker", "battle", "instant", "sorcery")
COLORS = ("white", "blue", "black", "red", "green")
KEYWORDS = ("flying", "reach", "banding", "soulbond", "changeling", "trample", "first_strike", "double_strike",
            "vigilance", "lifelink", "haste", "deathtouch", "defender", "hexproof", "shroud", "indestructible",
            "menace", "landwalk", "bands_with_other", "fabricate", "shadow", "horsemanship", "fear",
            "intimidate", "skulk", "flanking", "protection")
PARAM_KEYWORDS = {"landwalk": "land type (swamp, island, forest, mountain, plains, basic, nonbasic, ...)",
                  "bands_with_other": "{subtype: X}, {supertype: X} or {name: \"X\"}",
                  "fabricate": "a number"}
COUNTER_ALIASES = {"+1/+1": "p1p1", "-1/-1": "m1m1", "p1p1": "p1p1", "m1m1": "m1m1"}


def normalize_counter_kind(kind) -> Optional[str]:
    if not isinstance(kind, str):
        return None
    kind = COUNTER_ALIASES.get(kind.strip(), kind.strip())
    return kind if KIND_RE.match(kind) else None


@dataclass
class Scenario:
    path: str
    name: str
    facts: FrozenSet[tuple]
    origins: Dict[tuple, Span]
    actions: List[Tuple[dict, Span]] = field(default_factory=list)
    expects: List[Tuple[dict, Span]] = field(default_factory=list)
    rules: List[str] = field(default_factory=list)
    doc: Optional[Located] = None


class _Ctx:
    """Validation context: collects diagnostics with positions."""

    def __init__(self, doc: Located, catalog: CardCatalog, keywords=None):
        self.doc = doc
        self.catalog = catalog
        self.keywords = tuple(sorted(set(KEYWORDS) | set(keywords or ())))  # the rules may add keywords
        self.diags: List[Diagnostic] = []
        self.facts: Dict[tuple, Span] = {}

    def error(self, path, message, hint=None, *, key=False):
        span = self.doc.key_span(path) if key else self.doc.span(path)
        self.diags.append(Diagnostic("S100", message, span, hint=hint))

    def add(self, fact: tuple, path) -> None:
        if fact not in self.facts:
            self.facts[fact] = self.doc.span(path)

    def check_keys(self, value: dict, allowed, path, what: str) -> None:
        for key in value:
            if key not in allowed:
                near = suggest(str(key), allowed)
                self.error(path + (key,), f"unknown key {key!r} in {what}",
                           f"did you mean {near!r}?" if near else f"allowed keys: {', '.join(allowed)}", key=True)

    def want(self, value, kind, path, what) -> bool:
        ok = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "str": lambda v: isinstance(v, str),
              "list": lambda v: isinstance(v, list),
              "map": lambda v: isinstance(v, dict),
              "bool": lambda v: isinstance(v, bool)}[kind](value)
        if not ok:
            names = {"int": "an integer", "str": "a string", "list": "a list", "map": "a mapping",
                     "bool": "true or false"}
            hints = {"int": "write a whole number, e.g. 2", "str": "write a word or a \"quoted string\"",
                     "list": "write a list, e.g. [a, b]", "map": "write a mapping, e.g. {key: value}",
                     "bool": "write true or false (yes, no, on and off are strings)"}
            self.error(path, f"{what} must be {names[kind]}, got {_show(value)}", hints[kind])
        return ok

    def ident(self, value, path, what) -> Optional[str]:
        if not isinstance(value, str) or not ID_RE.match(value):
            self.error(path, f"{what} must be a lower_snake id, got {_show(value)}",
                       "ids start with a lower-case letter and use a-z, 0-9 and _")
            return None
        return value


def _show(value) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def load_scenario(path: str, *, catalog: Optional[CardCatalog] = None, keywords=None) -> Scenario:
    """Load and compile a scenario file. ``keywords``: keyword names the loaded rules know, beyond the
    built-in list (an engine passes those its rule files mention, so a new keyword needs no Python)."""
    doc = load_path(path)
    return _compile(doc, catalog or default_catalog(), keywords)


def compile_scenario(data: Any, *, path: str = "<scenario>", catalog: Optional[CardCatalog] = None,
                     keywords=None) -> Scenario:
    """Compile an already-parsed mapping (``Engine.state_from_dict``) or YAML text."""
    if isinstance(data, str):
        doc = load_text(data, path)
    else:
        doc = Located(data, path)
    return _compile(doc, catalog or default_catalog(), keywords)


def _compile(doc: Located, catalog: CardCatalog, keywords=None) -> Scenario:
    ctx = _Ctx(doc, catalog, keywords)
    data = doc.value
    if not isinstance(data, dict):
        raise ScenarioError(f"{doc.path}: a scenario is a mapping", diagnostics=[Diagnostic(
            "S100", f"a scenario is a mapping of keys (players, objects, ...), got {_show(data)}", doc.span(()))])
    ctx.check_keys(data, TOP_KEYS, (), "a scenario")
    players = _players(ctx, data)
    objects = _objects(ctx, data, players)
    _life(ctx, data, players)
    _combat(ctx, data, players, objects)
    _pairs(ctx, data, objects)
    _stack(ctx, data, players, objects)
    _raw_facts(ctx, data)
    actions = _entries(ctx, data, "actions", "do")
    expects = _entries(ctx, data, "expect", None)
    rules = []
    if "rules" in data and ctx.want(data["rules"], "list", ("rules",), "rules"):
        base = os.path.dirname(doc.path) if doc.path and not doc.path.startswith("<") else "."
        for i, item in enumerate(data["rules"]):
            if ctx.want(item, "str", ("rules", i), "a rules entry"):
                rules.append(os.path.normpath(os.path.join(base, item)))
    if ctx.diags:
        raise ScenarioError(f"{len(ctx.diags)} problem(s) in {doc.path}", diagnostics=ctx.diags)
    name = data.get("name") if isinstance(data.get("name"), str) else os.path.basename(doc.path)
    return Scenario(doc.path, name, frozenset(ctx.facts), dict(ctx.facts), actions, expects, rules, doc)


def _players(ctx: _Ctx, data: dict) -> List[str]:
    players: List[str] = []
    raw = data.get("players", ["alice", "bob"] if "players" not in data else None)
    if "players" in data and not ctx.want(raw, "list", ("players",), "players"):
        return players
    for i, p in enumerate(raw):
        pid = ctx.ident(p, ("players", i), "a player id")
        if pid is None:
            continue
        if pid in players:
            ctx.error(("players", i), f"player {pid!r} is listed twice")
            continue
        players.append(pid)
        ctx.add(("player", pid), ("players", i))
        ctx.add(("turn_order", pid, i), ("players", i))
    if not players:
        ctx.error(("players",), "a scenario needs at least one player")
        return players
    active = data.get("active", players[0])
    if active not in players:
        near = suggest(str(active), players)
        ctx.error(("active",), f"active player {active!r} is not a player",
                  f"did you mean {near!r}?" if near else f"players: {', '.join(players)}")
    else:
        ctx.add(("active_player", active), ("active",) if "active" in data else ("players", 0))
    return players


def _objects(ctx: _Ctx, data: dict, players: List[str]) -> Dict[str, dict]:
    objects: Dict[str, dict] = {}
    raw = data.get("objects", {})
    if raw is None:
        return objects
    if not ctx.want(raw, "map", ("objects",), "objects"):
        return objects
    for oid, spec in raw.items():
        path = ("objects", oid)
        if ctx.ident(oid, path, "an object id") is None:
            continue
        if oid in players:
            ctx.error(path, f"object id {oid!r} is already a player id", "give the object another id", key=True)
            continue
        if not ctx.want(spec, "map", path, f"object {oid!r}"):
            continue
        facts = compile_object(ctx, oid, spec, path, players)
        objects[oid] = spec
        for fact, fpath in facts:
            ctx.add(fact, fpath)
    return objects


def compile_object(ctx: _Ctx, oid: str, spec: dict, path: tuple, players: List[str]) -> List[Tuple[tuple, tuple]]:
    """Facts of one permanent; also used by actions that put objects onto the battlefield."""
    out: List[Tuple[tuple, tuple]] = []
    ctx.check_keys(spec, OBJECT_KEYS, path, f"object {oid!r}")
    chars: Dict[str, Any] = {}
    if "card" in spec:
        card = spec["card"]
        entry = ctx.catalog.get(card) if isinstance(card, str) else None
        if entry is None:
            near = ctx.catalog.suggest(card) if isinstance(card, str) else None
            ctx.error(path + ("card",), f"unknown card {card!r}",
                      f"did you mean {near!r}?" if near else "give the object inline (name, types, power, ...)"
                      " or add the card to facts/cards.yaml")
        else:
            chars.update(entry.characteristics())
    for key in ("name", "types", "subtypes", "supertypes", "colors", "power", "toughness", "keywords"):
        if key in spec:
            chars[key] = spec[key]
    name = chars.get("name")
    if name is None:
        if "card" not in spec:  # (an unknown card is reported above)
            ctx.error(path, f"object {oid!r} needs a card or a name", "e.g. {card: Grizzly Bears, controller: alice}")
    elif ctx.want(name, "str", path + ("name",), "name"):
        out.append((("name", oid, name), path + ("name",) if "name" in spec else path + ("card",)))
    out.append((("permanent", oid), path))
    for key, pred, allowed in (("types", "card_type", TYPES), ("subtypes", "subtype", None),
                               ("supertypes", "supertype", None), ("colors", "color", COLORS)):
        values = chars.get(key, [])
        vpath = path + (key,)
        if not ctx.want(values, "list", vpath, key):
            continue
        for i, v in enumerate(values):
            if not isinstance(v, str) or not ID_RE.match(v):
                ctx.error(vpath + (i,), f"{key} entries are lower_snake words, got {_show(v)}")
            elif allowed is not None and v not in allowed:
                near = suggest(v, allowed)
                ctx.error(vpath + (i,), f"unknown {key[:-1]} {v!r}",
                          f"did you mean {near!r}?" if near else f"one of: {', '.join(allowed)}")
            else:
                out.append(((pred, oid, v), vpath + (i,) if key in spec else path))
    is_creature = isinstance(chars.get("types"), list) and "creature" in chars["types"]
    for key, pred in (("power", "base_power"), ("toughness", "base_toughness")):
        if key in chars:
            if ctx.want(chars[key], "int", path + (key,), key):
                out.append(((pred, oid, chars[key]), path + (key,) if key in spec else path))
        elif is_creature:
            ctx.error(path, f"creature {oid!r} needs {key}", f"add {key}: N or use a card from the catalog")
    out.extend(_keywords(ctx, oid, chars.get("keywords", []), path, "keywords" in spec))
    controller = spec.get("controller", players[0] if len(players) == 1 else None)
    if controller is None:
        ctx.error(path, f"object {oid!r} needs a controller", f"add controller: one of {', '.join(players)}")
    elif controller not in players:
        near = suggest(str(controller), players)
        ctx.error(path + ("controller",), f"controller {controller!r} is not a player",
                  f"did you mean {near!r}?" if near else f"players: {', '.join(players)}")
    else:
        out.append((("controller", oid, controller), path + ("controller",)))
        owner = spec.get("owner", controller)
        if owner not in players:
            ctx.error(path + ("owner",), f"owner {owner!r} is not a player")
        else:
            out.append((("owner", oid, owner), path + ("owner",) if "owner" in spec else path + ("controller",)))
    for key, pred in (("token", "token"), ("tapped", "tapped")):
        if key in spec and ctx.want(spec[key], "bool", path + (key,), key) and spec[key]:
            out.append(((pred, oid), path + (key,)))
    if "counters" in spec and ctx.want(spec["counters"], "map", path + ("counters",), "counters"):
        out.extend(_counters(ctx, oid, spec["counters"], path + ("counters",)))
    if "damage" in spec and ctx.want(spec["damage"], "int", path + ("damage",), "damage"):
        if spec["damage"] < 0:
            ctx.error(path + ("damage",), "damage cannot be negative")
        elif spec["damage"] > 0:
            out.append((("damage_marked", oid, spec["damage"]), path + ("damage",)))
    return out


def _keywords(ctx: _Ctx, oid: str, values, path: tuple, inline: bool) -> List[Tuple[tuple, tuple]]:
    out = []
    kpath = path + ("keywords",)
    if not ctx.want(values, "list", kpath, "keywords"):
        return out
    for i, kw in enumerate(values):
        ipath = kpath + (i,) if inline else path
        if isinstance(kw, str):
            if kw in PARAM_KEYWORDS:
                ctx.error(ipath, f"keyword {kw!r} needs a parameter", f"write {{{kw}: ...}}: {PARAM_KEYWORDS[kw]}")
                continue
            if not ID_RE.match(kw):
                ctx.error(ipath, f"keywords are lower_snake words, got {kw!r}", "e.g. first_strike")
                continue
            if kw not in ctx.keywords:
                near = suggest(kw, ctx.keywords)
                ctx.error(ipath, f"unknown keyword {kw!r}",
                          f"did you mean {near!r}?" if near else "known keywords: " + ", ".join(ctx.keywords)
                          + " (a rule file that mentions a new keyword adds it)")
                continue
            out.append((("printed_keyword", oid, kw), ipath))
            continue
        if not isinstance(kw, dict) or len(kw) != 1:
            ctx.error(ipath, f"a keyword is a word or a one-key mapping, got {_show(kw)}")
            continue
        (name, param), = kw.items()
        if name not in PARAM_KEYWORDS:
            near = suggest(str(name), list(PARAM_KEYWORDS))
            ctx.error(ipath, f"keyword {name!r} takes no parameter",
                      f"did you mean {near!r}?" if near else f"parameterised keywords: {', '.join(PARAM_KEYWORDS)}")
            continue
        params = _keyword_params(ctx, name, param, ipath)
        if params is None:
            continue
        out.append((("printed_keyword", oid, name), ipath))
        for key, value in params:
            out.append((("printed_keyword_param", oid, name, key, value), ipath))
    return out


def _keyword_params(ctx: _Ctx, name: str, param, path) -> Optional[List[Tuple[str, Any]]]:
    if name == "fabricate":
        if not isinstance(param, int) or isinstance(param, bool) or param < 1:
            ctx.error(path, f"fabricate takes a positive number, got {_show(param)}", "e.g. {fabricate: 2}")
            return None
        return [("n", param)]
    if name == "landwalk":
        if not isinstance(param, str) or not ID_RE.match(param):
            ctx.error(path, f"landwalk takes a land type, got {_show(param)}", "e.g. {landwalk: swamp}")
            return None
        if param.startswith("non") and len(param) > 3:
            return [("land_without", param[3:])]
        return [("land_with", param)]
    if not isinstance(param, dict) or len(param) != 1:
        ctx.error(path, f"bands_with_other takes one quality, got {_show(param)}",
                  "e.g. {bands_with_other: {subtype: wolf}} or {supertype: legendary} or {name: \"Wolves of the Hunt\"}")
        return None
    (kind, value), = param.items()
    if kind not in ("subtype", "supertype", "name") or not isinstance(value, str):
        near = suggest(str(kind), ["subtype", "supertype", "name"])
        ctx.error(path, f"unknown bands_with_other quality {kind!r}",
                  f"did you mean {near!r}?" if near else "one of subtype, supertype, name")
        return None
    return [(kind, value)]


def _counters(ctx: _Ctx, owner: str, counters: dict, path) -> List[Tuple[tuple, tuple]]:
    out = []
    totals: Dict[str, int] = {}
    for kind, n in counters.items():
        cpath = path + (kind,)
        norm = normalize_counter_kind(kind)
        if norm is None:
            ctx.error(cpath, f"invalid counter kind {kind!r}", "counter kinds are lower_snake words "
                      "(p1p1, m1m1, loyalty, poison, ...; \"+1/+1\" and \"-1/-1\" are accepted)", key=True)
            continue
        if not ctx.want(n, "int", cpath, f"the number of {kind} counters"):
            continue
        if n < 0:
            ctx.error(cpath, "a number of counters cannot be negative")
            continue
        totals[norm] = totals.get(norm, 0) + n
        if totals[norm] > 0:
            out = [o for o in out if o[0][:3] != ("counter", owner, norm)]
            out.append((("counter", owner, norm, totals[norm]), cpath))
    return out


def _life(ctx: _Ctx, data: dict, players: List[str]) -> None:
    life = data.get("life", {})
    if life is None or not ctx.want(life, "map", ("life",), "life"):
        life = {}
    for p in life:
        if p not in players:
            near = suggest(str(p), players)
            ctx.error(("life", p), f"{p!r} is not a player", f"did you mean {near!r}?" if near else None, key=True)
    for p in players:
        value = life.get(p, 20)
        if ctx.want(value, "int", ("life", p), f"life of {p}"):
            ctx.add(("life", p, value), ("life", p) if p in life else ("players",))
    pc = data.get("player_counters", {})
    if pc and ctx.want(pc, "map", ("player_counters",), "player_counters"):
        for p, counters in pc.items():
            if p not in players:
                near = suggest(str(p), players)
                ctx.error(("player_counters", p), f"{p!r} is not a player",
                          f"did you mean {near!r}?" if near else None, key=True)
            elif ctx.want(counters, "map", ("player_counters", p), "counters"):
                for fact, fpath in _counters(ctx, p, counters, ("player_counters", p)):
                    ctx.add(fact, fpath)


def _ref(ctx: _Ctx, value, ids, path, what) -> Optional[str]:
    if not isinstance(value, str) or value not in ids:
        names = [i for i in ids if isinstance(i, str)]
        near = suggest(str(value), names) if isinstance(value, str) else None
        ctx.error(path, f"{what} {_show(value)} does not exist",
                  f"did you mean {near!r}?" if near else f"known: {', '.join(sorted(names)) or 'none'}")
        return None
    return value


def _combat(ctx: _Ctx, data: dict, players: List[str], objects: Dict[str, dict]) -> None:
    combat = data.get("combat")
    if combat is None:
        return
    if not ctx.want(combat, "map", ("combat",), "combat"):
        return
    ctx.check_keys(combat, COMBAT_KEYS, ("combat",), "combat")
    attackers = combat.get("attackers", {}) or {}
    targets = set(players) | set(objects)
    if not ctx.want(attackers, "map", ("combat", "attackers"), "attackers"):
        attackers = {}
    else:
        for a, target in attackers.items():
            path = ("combat", "attackers", a)
            if _ref(ctx, a, objects, path, "attacker") and _ref(ctx, target, targets, path, "attack target"):
                ctx.add(("attacking", a, target), path)
    bands = combat.get("bands", []) or []
    if ctx.want(bands, "list", ("combat", "bands"), "bands"):
        seen: Dict[str, int] = {}
        for i, band in enumerate(bands):
            bpath = ("combat", "bands", i)
            if not ctx.want(band, "list", bpath, "a band"):
                continue
            for j, member in enumerate(band):
                if _ref(ctx, member, attackers, bpath + (j,), "band member (an attacker)") is None:
                    continue
                if member in seen:
                    ctx.error(bpath + (j,), f"{member} is in two bands", "CR 702.22c: each creature may be "
                              "a member of only one band")
                    continue
                seen[member] = i
                ctx.add(("in_band", member, f"band{i + 1}"), bpath + (j,))
    blockers = combat.get("blockers", {}) or {}
    if ctx.want(blockers, "map", ("combat", "blockers"), "blockers"):
        for b, blocked in blockers.items():
            path = ("combat", "blockers", b)
            if _ref(ctx, b, objects, path, "blocker") is None:
                continue
            if isinstance(blocked, str):
                blocked = [blocked]
            if not ctx.want(blocked, "list", path, "the attackers a blocker blocks"):
                continue
            for j, a in enumerate(blocked):
                if _ref(ctx, a, attackers, path + (j,), "blocked attacker") is not None:
                    ctx.add(("blocking", b, a), path + (j,))


def _pairs(ctx: _Ctx, data: dict, objects: Dict[str, dict]) -> None:
    pairs = data.get("pairs", []) or []
    if not ctx.want(pairs, "list", ("pairs",), "pairs"):
        return
    for i, pair in enumerate(pairs):
        path = ("pairs", i)
        if not isinstance(pair, list) or len(pair) != 2:
            ctx.error(path, f"a pair is a list of two object ids, got {_show(pair)}")
            continue
        a, b = pair
        if _ref(ctx, a, objects, path + (0,), "paired object") and _ref(ctx, b, objects, path + (1,),
                                                                         "paired object"):
            if a == b:
                ctx.error(path, "a creature cannot be paired with itself (CR 702.95d)")
                continue
            ctx.add(("paired", a, b), path)
            ctx.add(("paired", b, a), path)


def _stack(ctx: _Ctx, data: dict, players: List[str], objects: Dict[str, dict]) -> None:
    """``stack:`` lists abilities waiting to resolve, top first: {id, source, kind, controller, args}."""
    stack = data.get("stack", []) or []
    if not ctx.want(stack, "list", ("stack",), "stack"):
        return
    n = len(stack)
    for i, item in enumerate(stack):
        path = ("stack", i)
        if not ctx.want(item, "map", path, "a stack entry"):
            continue
        ctx.check_keys(item, ("id", "source", "kind", "controller", "args"), path, "a stack entry")
        sid = ctx.ident(item.get("id"), path + ("id",), "a stack id")
        kind = ctx.ident(item.get("kind"), path + ("kind",), "an ability kind")
        source = item.get("source")
        controller = item.get("controller")
        if sid is None or kind is None or not isinstance(source, str) or controller not in players:
            if controller not in players:
                ctx.error(path + ("controller",), f"stack controller {_show(controller)} is not a player")
            continue
        ctx.add(("on_stack", sid, source, kind), path)
        ctx.add(("stack_position", sid, n - i), path)
        ctx.add(("ability_controller", sid, controller), path + ("controller",))
        args = item.get("args", {}) or {}
        if ctx.want(args, "map", path + ("args",), "args"):
            for key, value in args.items():
                if isinstance(value, (str, int)) and not isinstance(value, bool):
                    ctx.add(("ability_arg", sid, key, value), path + ("args", key))
                else:
                    ctx.error(path + ("args", key), f"an ability argument is an id or a number, got {_show(value)}")


def _raw_facts(ctx: _Ctx, data: dict) -> None:
    """``facts:`` holds any other state facts as rule-language atoms, e.g. "granted_keyword(hero, flying)"."""
    from .errors import QueryError
    from .ast import Const, Atom
    from .parser import parse_body

    raw = data.get("facts", []) or []
    if not ctx.want(raw, "list", ("facts",), "facts"):
        return
    for i, text in enumerate(raw):
        path = ("facts", i)
        if not ctx.want(text, "str", path, "a fact"):
            continue
        try:
            body = parse_body(text, ctx.doc.path)
        except QueryError as exc:
            ctx.error(path, f"cannot parse fact {text!r}: {exc.diagnostics[0].message if exc.diagnostics else exc}")
            continue
        if len(body) != 1 or not isinstance(body[0], Atom) or not all(isinstance(a, Const) for a in body[0].args):
            ctx.error(path, f"a fact is one atom with constant arguments, got {text!r}")
            continue
        ctx.add((body[0].pred,) + tuple(a.value for a in body[0].args), path)


def _entries(ctx: _Ctx, data: dict, key: str, required: Optional[str]) -> List[Tuple[dict, Span]]:
    raw = data.get(key, []) or []
    out = []
    if not ctx.want(raw, "list", (key,), key):
        return out
    for i, item in enumerate(raw):
        if not ctx.want(item, "map", (key, i), f"an {key} entry"):
            continue
        if required and required not in item:
            ctx.error((key, i), f"an action needs '{required}:'", "e.g. {do: declare_blockers, blockers: {...}}")
            continue
        if required and not isinstance(item[required], str):
            ctx.error((key, i, required), f"{required}: takes the name of an action, got {_show(item[required])}",
                      "e.g. {do: declare_blockers, blockers: {...}}")
            continue
        out.append((item, ctx.doc.span((key, i))))
    return out
