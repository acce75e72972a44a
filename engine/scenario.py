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
from typing import Any

from .analysis import suggest
from .ast import Span
from .catalog import CardCatalog, default_catalog
from .errors import Diagnostic, ScenarioError
from .interface import Interface, default_interface, with_keywords
from .safefiles import scenario_rules
from .yamlsrc import Located, load_path, load_text

__all__ = [
    "Scenario",
    "load_scenario",
    "compile_scenario",
    "compile_object",
    "ID_RE",
    "normalize_counter_kind",
    "CORE_KEYS",
    "OBJECT_KEYS",
    "top_keys",
]

ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
KIND_RE = re.compile(r"^[a-z][a-z0-9_]*$")
# the keys every scenario may have; the rules add the fields of their designations (scenario_field/4)
CORE_KEYS = (
    "name",
    "description",
    "players",
    "active",
    "objects",
    "life",
    "player_counters",
    "combat",
    "stack",
    "facts",
    "actions",
    "expect",
    "rules",
)
OBJECT_KEYS = (
    "card",
    "name",
    "types",
    "subtypes",
    "supertypes",
    "colors",
    "power",
    "toughness",
    "keywords",
    "controller",
    "owner",
    "token",
    "tapped",
    "counters",
    "damage",
    "id",
)
COUNTER_ALIASES = {"+1/+1": "p1p1", "-1/-1": "m1m1", "p1p1": "p1p1", "m1m1": "m1m1"}


def top_keys(face: Interface) -> tuple[str, ...]:
    """The keys a scenario may have with these rules: the core keys and the rules' top-level fields."""
    return CORE_KEYS + tuple(f.name for f in face.section_fields("top"))


def normalize_counter_kind(kind) -> str | None:
    if not isinstance(kind, str):
        return None
    kind = COUNTER_ALIASES.get(kind.strip(), kind.strip())
    return kind if KIND_RE.match(kind) else None


@dataclass
class Scenario:
    path: str
    name: str
    facts: frozenset[tuple]
    origins: dict[tuple, Span]
    actions: list[tuple[dict, Span]] = field(default_factory=list)
    expects: list[tuple[dict, Span]] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    doc: Located | None = None
    warnings: list[Diagnostic] = field(default_factory=list)  # e.g. S200: a card not modelled in full


class _Ctx:
    """Validation context: collects diagnostics with positions."""

    def __init__(self, doc: Located, catalog: CardCatalog, face: Interface) -> None:
        self.doc = doc
        self.catalog = catalog
        self.face = face
        self.keywords = tuple(sorted(face.keywords))
        self.diags: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.facts: dict[tuple, Span] = {}

    def error(self, path, message, hint=None, *, key: bool = False) -> None:
        span = self.doc.key_span(path) if key else self.doc.span(path)
        self.diags.append(Diagnostic("S100", message, span, hint=hint))

    def add(self, fact: tuple, path) -> None:
        """Add a fact and what recording it gives (record_symmetric, record_implies: the same table the
        record primitive uses, so a designation from a file and one made by an action agree)."""
        for made in self.face.recorded(fact):
            if made not in self.facts:
                self.facts[made] = self.doc.span(path)

    def check_keys(self, value: dict, allowed, path, what: str, *, fields: bool = False) -> None:
        for key in value:
            if key not in allowed:
                near = suggest(str(key), allowed)
                rest = f"allowed keys: {', '.join(allowed)}"
                if fields:  # a designation field exists only when a loaded rule file declares it
                    rest = f"no loaded rule file declares the scenario field {key!r} (scenario_field/4); " + rest
                self.error(
                    path + (key,),
                    f"unknown key {key!r} in {what}",
                    f"did you mean {near!r}?" if near else rest,
                    key=True,
                )

    def want(self, value, kind, path, what) -> bool:
        ok = {
            "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "str": lambda v: isinstance(v, str),
            "list": lambda v: isinstance(v, list),
            "map": lambda v: isinstance(v, dict),
            "bool": lambda v: isinstance(v, bool),
        }[kind](value)
        if not ok:
            names = {
                "int": "an integer",
                "str": "a string",
                "list": "a list",
                "map": "a mapping",
                "bool": "true or false",
            }
            hints = {
                "int": "write a whole number, e.g. 2",
                "str": 'write a word or a "quoted string"',
                "list": "write a list, e.g. [a, b]",
                "map": "write a mapping, e.g. {key: value}",
                "bool": "write true or false (yes, no, on and off are strings)",
            }
            self.error(path, f"{what} must be {names[kind]}, got {_show(value)}", hints[kind])
        return ok

    def ident(self, value, path, what) -> str | None:
        if not isinstance(value, str) or not ID_RE.match(value):
            self.error(
                path,
                f"{what} must be a lower_snake id, got {_show(value)}",
                "ids start with a lower-case letter and use a-z, 0-9 and _",
            )
            return None
        return value


def _show(value) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def _face(interface: Interface | None, keywords) -> Interface:
    face = interface if interface is not None else default_interface()
    return with_keywords(face, keywords) if keywords else face


def load_scenario(
    path: str, *, catalog: CardCatalog | None = None, interface: Interface | None = None, keywords=None
) -> Scenario:
    """Load and compile a scenario file. ``interface``: what the loaded rules declare (keywords, scenario
    fields; an engine passes its own, ``Engine.interface``); the shipped library's by default.
    ``keywords``: further keyword names to accept."""
    doc = load_path(path)
    return _compile(doc, catalog or default_catalog(), _face(interface, keywords))


def compile_scenario(
    data: Any,
    *,
    path: str = "<scenario>",
    catalog: CardCatalog | None = None,
    interface: Interface | None = None,
    keywords=None,
) -> Scenario:
    """Compile an already-parsed mapping (``Engine.state_from_dict``) or YAML text."""
    if isinstance(data, str):
        doc = load_text(data, path)
    else:
        doc = Located(data, path)
    return _compile(doc, catalog or default_catalog(), _face(interface, keywords))


def _compile(doc: Located, catalog: CardCatalog, face: Interface) -> Scenario:
    ctx = _Ctx(doc, catalog, face)
    data = doc.value
    if not isinstance(data, dict):
        raise ScenarioError(
            f"{doc.path}: a scenario is a mapping",
            diagnostics=[
                Diagnostic(
                    "S100", f"a scenario is a mapping of keys (players, objects, ...), got {_show(data)}", doc.span(())
                )
            ],
        )
    rules = scenario_rules(ctx, data)  # judgelog.safefiles: which files a scenario may name
    if rules and not ctx.diags:
        ctx = _Ctx(doc, catalog, face.with_rules(rules))  # the scenario's own rules may declare keywords
    ctx.check_keys(data, top_keys(ctx.face), (), "a scenario", fields=True)
    players = _players(ctx, data)
    objects = _objects(ctx, data, players)
    _life(ctx, data, players)
    _combat(ctx, data, players, objects)
    _fields(ctx, data, ctx.face.section_fields("top"), (), players, objects)
    _stack(ctx, data, players, objects)
    _raw_facts(ctx, data)
    actions = _entries(ctx, data, "actions", "do")
    expects = _entries(ctx, data, "expect", None)
    if ctx.diags:
        raise ScenarioError(f"{len(ctx.diags)} problem(s) in {doc.path}", diagnostics=ctx.diags)
    name = data.get("name") if isinstance(data.get("name"), str) else os.path.basename(doc.path)
    return Scenario(
        doc.path, name, frozenset(ctx.facts), dict(ctx.facts), actions, expects, rules, doc, warnings=list(ctx.warnings)
    )


def _players(ctx: _Ctx, data: dict) -> list[str]:
    players: list[str] = []
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
        ctx.error(
            ("active",),
            f"active player {active!r} is not a player",
            f"did you mean {near!r}?" if near else f"players: {', '.join(players)}",
        )
    else:
        ctx.add(("active_player", active), ("active",) if "active" in data else ("players", 0))
    return players


def _objects(ctx: _Ctx, data: dict, players: list[str]) -> dict[str, dict]:
    objects: dict[str, dict] = {}
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


def compile_object(ctx: _Ctx, oid: str, spec: dict, path: tuple, players: list[str]) -> list[tuple[tuple, tuple]]:
    """Facts of one permanent; also used by actions that put objects onto the battlefield."""
    out: list[tuple[tuple, tuple]] = []
    ctx.check_keys(spec, OBJECT_KEYS, path, f"object {oid!r}")
    chars: dict[str, Any] = {}
    if "card" in spec:
        card = spec["card"]
        entry = ctx.catalog.get(card) if isinstance(card, str) else None
        if entry is None:
            near = ctx.catalog.suggest(card) if isinstance(card, str) else None
            ctx.error(
                path + ("card",),
                f"unknown card {card!r}",
                f"did you mean {near!r}?"
                if near
                else "give the object inline (name, types, power, ...) or add the card to facts/cards.yaml",
            )
        else:
            chars.update(entry.characteristics())
            missing = [w for n, w in ctx.face.unmodelled if n == entry.name]
            if missing:
                ctx.warnings.append(
                    Diagnostic(
                        "S200",
                        f"card {entry.name!r} (object {oid!r}) is not modelled in full: " + "; ".join(missing),
                        ctx.doc.span(path + ("card",)),
                        severity="warning",
                        hint="answers about what the rules do not model may be wrong; see its file in rules/cards/",
                    )
                )
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
    for key, pred, allowed in (
        ("types", "card_type", ctx.face.card_types),
        ("subtypes", "subtype", None),
        ("supertypes", "supertype", None),
        ("colors", "color", ctx.face.colors),
    ):
        values = chars.get(key, [])
        vpath = path + (key,)
        if not ctx.want(values, "list", vpath, key):
            continue
        for i, v in enumerate(values):
            if not isinstance(v, str) or not ID_RE.match(v):
                ctx.error(vpath + (i,), f"{key} entries are lower_snake words, got {_show(v)}")
            elif allowed is not None and v not in allowed:
                near = suggest(v, allowed)
                ctx.error(
                    vpath + (i,),
                    f"unknown {key[:-1]} {v!r}",
                    f"did you mean {near!r}?" if near else f"one of: {', '.join(allowed)}",
                )
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
        ctx.error(
            path + ("controller",),
            f"controller {controller!r} is not a player",
            f"did you mean {near!r}?" if near else f"players: {', '.join(players)}",
        )
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


def _keywords(ctx: _Ctx, oid: str, values, path: tuple, inline: bool) -> list[tuple[tuple, tuple]]:
    out = []
    kpath = path + ("keywords",)
    if not ctx.want(values, "list", kpath, "keywords"):
        return out
    face = ctx.face
    seen: dict[str, int] = {}
    for i, kw in enumerate(values):
        ipath = kpath + (i,) if inline else path
        param = None
        if isinstance(kw, dict) and len(kw) == 1:
            ((kw, param),) = kw.items()
        elif not isinstance(kw, str):
            ctx.error(ipath, f"a keyword is a word or a one-key mapping, got {_show(kw)}")
            continue
        if not isinstance(kw, str) or not ID_RE.match(kw):
            ctx.error(ipath, f"keywords are lower_snake words, got {_show(kw)}", "lower-case words joined with _")
            continue
        if kw not in face.keywords:
            near = suggest(kw, ctx.keywords)
            ctx.error(
                ipath,
                f"unknown keyword {kw!r}",
                f"did you mean {near!r}?"
                if near
                else "no loaded rule file declares it (keyword/1 in "
                "rules/core/interface.dl); known keywords: " + ", ".join(ctx.keywords),
            )
            continue
        seen[kw] = seen.get(kw, 0) + 1
        instance = f"printed_{seen[kw]}" if seen[kw] > 1 else None
        if instance:  # instances are a multiset: a repeated entry is one more instance
            out.append((("printed_keyword_instance", oid, kw, instance), ipath))
        if param is None:
            if face.takes_param(kw):
                ctx.error(ipath, f"keyword {kw!r} needs a parameter", f"write {face.param_example(kw)}")
                continue
            out.append((("printed_keyword", oid, kw), ipath))
            continue
        if not face.takes_param(kw):
            with_param = sorted(k for k in face.keywords if face.takes_param(k))
            ctx.error(
                ipath,
                f"keyword {kw!r} takes no parameter",
                f"write {kw} alone; keywords with a parameter: {', '.join(with_param) or 'none'}",
            )
            continue
        params = _keyword_params(ctx, kw, param, ipath)
        if params is None:
            continue
        out.append((("printed_keyword", oid, kw), ipath))
        for key, value in params:  # a further instance keeps its own parameter ({bushido: 2}, {bushido: 1})
            out.append(
                (
                    ("printed_keyword_param", oid, kw, key, value)
                    if instance is None
                    else ("printed_keyword_instance_param", oid, kw, instance, key, value),
                    ipath,
                )
            )
    return out


def _keyword_params(ctx: _Ctx, name: str, param, path) -> list[tuple[str, Any]] | None:
    """The parameter of ``{name: param}``, read with the grammar the keyword's rule file declares."""
    face = ctx.face
    forms = face.keyword_forms.get(name, ())
    for form, key in forms:
        if form == "number" and isinstance(param, int) and not isinstance(param, bool) and param >= 1:
            return [(key, param)]
        if form == "word" and isinstance(param, str) and ID_RE.match(param):
            for prefix, pkey in face.keyword_prefixes.get(name, ()):
                if param.startswith(prefix) and len(param) > len(prefix):
                    return [(pkey, param[len(prefix) :])]
            return [(key, param)]
    keys = [key for form, key in forms if form == "mapping"]
    if keys and isinstance(param, dict) and len(param) == 1:
        ((kind, value),) = param.items()
        if kind in keys and isinstance(value, str):
            return [(kind, value)]
        if kind not in keys:
            near = suggest(str(kind), keys)
            ctx.error(
                path,
                f"unknown {name} quality {kind!r}",
                f"did you mean {near!r}?" if near else "one of " + ", ".join(keys),
            )
            return None
    wanted = {"number": "a positive number", "word": "a lower_snake word", "mapping": "one " + "/".join(keys)}
    kinds = " or ".join(dict.fromkeys(wanted[form] for form, _ in forms))
    ctx.error(path, f"{name} takes {kinds}, got {_show(param)}", f"e.g. {face.param_example(name)}")
    return None


def _counters(ctx: _Ctx, owner: str, counters: dict, path) -> list[tuple[tuple, tuple]]:
    out = []
    totals: dict[str, int] = {}
    for kind, n in counters.items():
        cpath = path + (kind,)
        norm = normalize_counter_kind(kind)
        if norm is None:
            ctx.error(
                cpath,
                f"invalid counter kind {kind!r}",
                "counter kinds are lower_snake words "
                '(p1p1, m1m1, loyalty, poison, ...; "+1/+1" and "-1/-1" are accepted)',
                key=True,
            )
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


def _life(ctx: _Ctx, data: dict, players: list[str]) -> None:
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
                ctx.error(
                    ("player_counters", p),
                    f"{p!r} is not a player",
                    f"did you mean {near!r}?" if near else None,
                    key=True,
                )
            elif ctx.want(counters, "map", ("player_counters", p), "counters"):
                for fact, fpath in _counters(ctx, p, counters, ("player_counters", p)):
                    ctx.add(fact, fpath)


def _ref(ctx: _Ctx, value, ids, path, what) -> str | None:
    if not isinstance(value, str) or value not in ids:
        names = [i for i in ids if isinstance(i, str)]
        near = suggest(str(value), names) if isinstance(value, str) else None
        ctx.error(
            path,
            f"{what} {_show(value)} does not exist",
            f"did you mean {near!r}?" if near else f"known: {', '.join(sorted(names)) or 'none'}",
        )
        return None
    return value


def _combat(ctx: _Ctx, data: dict, players: list[str], objects: dict[str, dict]) -> None:
    combat = data.get("combat")
    if combat is None:
        return
    if not ctx.want(combat, "map", ("combat",), "combat"):
        return
    fields = ctx.face.section_fields("combat")
    ctx.check_keys(combat, tuple(f.name for f in fields), ("combat",), "combat", fields=True)
    _fields(ctx, combat, fields, ("combat",), players, objects)


def _fields(ctx: _Ctx, data: dict, fields, base: tuple, players: list[str], objects: dict[str, dict]) -> None:
    """The designation fields the rules declare (scenario_field/4), each compiled by its shape."""
    keys: dict[str, set] = {}  # field -> the ids it lists first (what other fields may refer to)
    for f in sorted(fields, key=lambda f: _ref_depth(f, fields)):
        keys[f.name] = set()
        raw = data.get(f.name)
        if raw is None:
            continue
        path = base + (f.name,)

        def ref(value, pos, vpath, f=f):
            r = f.ref(pos)
            ids = {"object": objects, "player": players, "target": set(players) | set(objects)}.get(r.what)
            if ids is None:
                ids = keys.get(r.what, set())
            return _ref(ctx, value, ids, vpath, r.noun)

        if f.shape in ("map", "map_list"):
            if not ctx.want(raw, "map", path, f.name):
                continue
            for a, values in raw.items():
                vpath = path + (a,)
                if ref(a, 0, vpath) is None:
                    continue
                keys[f.name].add(a)
                if f.shape == "map":
                    if ref(values, 1, vpath) is not None:
                        ctx.add((f.pred, a, values), vpath)
                    continue
                if isinstance(values, str):
                    values = [values]
                if not ctx.want(values, "list", vpath, f"the entries {a} lists"):
                    continue
                for j, b in enumerate(values):
                    if ref(b, 1, vpath + (j,)) is not None:
                        ctx.add((f.pred, a, b), vpath + (j,))
        elif f.shape == "groups":
            if not ctx.want(raw, "list", path, f.name):
                continue
            seen: dict[str, int] = {}
            for i, group in enumerate(raw):
                gpath = path + (i,)
                if not ctx.want(group, "list", gpath, f"a group of {f.name}"):
                    continue
                for j, member in enumerate(group):
                    if ref(member, 0, gpath + (j,)) is None:
                        continue
                    if member in seen:
                        ctx.error(
                            gpath + (j,),
                            f"{member} is in two {f.name}",
                            f"each object may be in only one of the {f.name}",
                        )
                        continue
                    seen[member] = i
                    keys[f.name].add(member)
                    ctx.add((f.pred, member, f"{f.label or f.name}{i + 1}"), gpath + (j,))
        elif f.shape == "pairs":
            if not ctx.want(raw, "list", path, f.name):
                continue
            for i, pair in enumerate(raw):
                ppath = path + (i,)
                if not isinstance(pair, list) or len(pair) != 2:
                    ctx.error(ppath, f"an entry of {f.name} is a list of two ids, got {_show(pair)}")
                    continue
                a, b = pair
                if ref(a, 0, ppath + (0,)) and ref(b, 1, ppath + (1,)):
                    if a == b:
                        ctx.error(ppath, f"an entry of {f.name} names two different objects, got {_show(pair)}")
                        continue
                    keys[f.name] |= {a, b}
                    ctx.add((f.pred, a, b), ppath)


def _ref_depth(f, fields) -> int:
    """Fields that refer to another field's ids are compiled after it."""
    names = {g.name for g in fields}
    return sum(1 for r in f.refs if r.what in names)


def _stack(ctx: _Ctx, data: dict, players: list[str], objects: dict[str, dict]) -> None:
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
    from .ast import Atom, Const
    from .errors import QueryError
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


def _entries(ctx: _Ctx, data: dict, key: str, required: str | None) -> list[tuple[dict, Span]]:
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
            ctx.error(
                (key, i, required),
                f"{required}: takes the name of an action, got {_show(item[required])}",
                "e.g. {do: declare_blockers, blockers: {...}}",
            )
            continue
        out.append((item, ctx.doc.span((key, i))))
    return out
