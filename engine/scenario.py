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
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .analysis import suggest
from .ast import Span
from .catalog import CardCatalog, default_catalog
from .codes import S100, S103
from .errors import Diagnostic, ScenarioError
from .interface import Field, Interface, with_keywords
from .library import default_interface
from .named_files import scenario_rules
from .scenario_objects import compile_object, counter_facts, warn_unmodelled, warn_unmodelled_keywords
from .scenario_reader import ScenarioReader, show
from .words import ZONES
from .yamlsrc import Located, load_path, load_text

__all__ = [
    "Scenario",
    "load_scenario",
    "compile_scenario",
    "CORE_KEYS",
    "top_keys",
    "EXPECT_KINDS",
    "EXPECT_KEYS",
]

# the keys of an entry of a scenario's expect: list (docs/scenarios.md); the first four say what it asks
EXPECT_KINDS = ("query", "holds", "absent", "explain")
# unless_refused: true: the entry passes when an action is refused (the state it asks about is never reached)
EXPECT_KEYS = EXPECT_KINDS + ("answers", "count", "cites", "cr_edition", "name", "unless_refused")

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


def top_keys(face: Interface) -> tuple[str, ...]:
    """The keys a scenario may have with these rules: the core keys and the rules' top-level fields."""
    return CORE_KEYS + tuple(f.name for f in face.section_fields("top"))


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
    given: frozenset[tuple] = frozenset()  # the facts of its ``facts:`` entries (checked against the rules)


def _face(interface: Interface | None, keywords: Iterable[str] | None) -> Interface:
    face = interface if interface is not None else default_interface()
    return with_keywords(face, keywords) if keywords else face


def load_scenario(
    path: str,
    *,
    catalog: CardCatalog | None = None,
    interface: Interface | None = None,
    keywords: Iterable[str] | None = None,
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
    keywords: Iterable[str] | None = None,
) -> Scenario:
    """Compile an already-parsed mapping (``Engine.state_from_dict``) or YAML text."""
    if isinstance(data, str):
        doc = load_text(data, path)
    else:
        doc = Located(data, path)
    return _compile(doc, catalog or default_catalog(), _face(interface, keywords))


def _compile(doc: Located, catalog: CardCatalog, face: Interface) -> Scenario:
    ctx = ScenarioReader(doc, catalog, face)
    data = doc.value
    if doc.empty or data is None:  # no document, or an empty one (`---` alone)
        raise ScenarioError(
            f"{doc.path}: the scenario file is empty",
            diagnostics=[
                Diagnostic(
                    S100,
                    "the file holds no scenario (nothing but blank lines, comments or an empty document)",
                    Span(doc.path, 1, 1),
                    hint="write the board (players:, objects:, ...); `{}` is a board of the default players only",
                )
            ],
        )
    if not isinstance(data, dict):
        raise ScenarioError(
            f"{doc.path}: a scenario is a mapping",
            diagnostics=[
                Diagnostic(
                    S100, f"a scenario is a mapping of keys (players, objects, ...), got {show(data)}", doc.span(())
                )
            ],
        )
    rules = scenario_rules(ctx, data)  # judgelog.named_files: which files a scenario may name
    if rules and not ctx.diags:
        ctx = ScenarioReader(doc, catalog, face.with_rules(rules))  # the scenario's own rules may declare keywords
    ctx.check_keys(data, top_keys(ctx.face), (), "a scenario", fields=True)
    players = _players(ctx, data)
    objects, zoned = _objects(ctx, data, players)
    _life(ctx, data, players)
    _combat(ctx, data, players, objects, zoned)
    _fields(ctx, data, ctx.face.section_fields("top"), (), players, objects, zoned)
    given_facts = _raw_facts(ctx, data)
    # an ability's source may have left the battlefield (a dies trigger's): its card is in a zone, or it was a
    # token the event log names (facts:)
    left = {str(f[1]) for f in given_facts if f[0] == "card_in_zone"} | zoned
    left |= {str(f[3]) for f in given_facts if f[0] == "event" and len(f) == 4}
    _stack(ctx, data, players, set(objects) | left)
    actions = _entries(ctx, data, "actions", "do")
    for i, (action, _span) in enumerate(actions):  # a card an action brings (enter, create_token): S200 too
        for key, value in action.items():
            what = f"brought by action[{i}] {action['do']}"
            for j, spec in enumerate(value if isinstance(value, list) else [value]):
                at = ("actions", i, key) + ((j,) if isinstance(value, list) else ())
                if not isinstance(spec, dict):
                    continue
                card = ctx.catalog.get(spec["card"]) if isinstance(spec.get("card"), str) else None
                if card is not None:
                    warn_unmodelled(ctx, card.name, what, at + ("card",))
                elif "card" not in spec and isinstance(spec.get("name"), str):  # a card's file applies by name
                    warn_unmodelled(ctx, spec["name"], what + ", named so inline", at + ("name",))
                warn_unmodelled_keywords(ctx, spec.get("keywords"), what, at + ("keywords",))
    expects = _entries(ctx, data, "expect", None)
    if ctx.diags:
        raise ScenarioError(f"{len(ctx.diags)} problem(s) in {doc.path}", diagnostics=ctx.diags)
    given = data.get("name")
    name = given if isinstance(given, str) else os.path.basename(doc.path)
    return Scenario(
        doc.path,
        name,
        frozenset(ctx.facts),
        dict(ctx.facts),
        actions,
        expects,
        rules,
        doc,
        warnings=list(ctx.warnings),
        given=frozenset(given_facts),
    )


def _players(ctx: ScenarioReader, data: dict) -> list[str]:
    players: list[str] = []
    raw = data.get("players", ["alice", "bob"])
    if not isinstance(raw, list):
        ctx.want(raw, "list", ("players",), "players")  # says what it is instead
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


def _objects(ctx: ScenarioReader, data: dict, players: list[str]) -> tuple[dict[str, dict], set[str]]:
    """The permanents of ``objects:`` by id, and the ids of its cards in another zone (``zone: hand``)."""
    objects: dict[str, dict] = {}
    zoned: set[str] = set()
    raw = data.get("objects", {})
    if raw is None:
        return objects, zoned
    if not ctx.want(raw, "map", ("objects",), "objects"):
        return objects, zoned
    for oid, spec in raw.items():
        path = ("objects", oid)
        if ctx.ident(oid, path, "an object id", key=True) is None:
            continue
        if oid in players:
            ctx.error(path, f"object id {oid!r} is already a player id", "give the object another id", key=True)
            continue
        if not ctx.want(spec, "map", path, f"object {oid!r}"):
            continue
        facts = compile_object(ctx, oid, spec, path, players, zones=ZONES)
        if any(f[0] == "card_in_zone" for f, _ in facts):
            zoned.add(oid)  # not a permanent: a combat field or a pair does not take it
        else:
            objects[oid] = spec
        for fact, fpath in facts:
            ctx.add(fact, fpath)
    return objects, zoned


def _life(ctx: ScenarioReader, data: dict, players: list[str]) -> None:
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
                for fact, fpath in counter_facts(ctx, p, counters, ("player_counters", p)):
                    ctx.add(fact, fpath)


def _ref(
    ctx: ScenarioReader,
    value: object,
    ids: Collection[object],
    path: tuple,
    what: str,
    field: str = "",
    existing: Collection[object] = (),
    zoned: Collection[str] = (),
) -> str | None:
    """``value`` if it is one of ``ids``; else an error. ``field``: the field ``ids`` are listed in (a band
    member is an attacker): one of the ``existing`` objects and players that is not listed there is told so;
    a card of ``zoned`` (in a hand, a graveyard) is not a permanent, and a list is not one id."""
    if isinstance(value, (list, dict)):
        ctx.error(path, f"{what} is one id, got {show(value)}", f"name one {what} here")
        return None
    if isinstance(value, str) and value in zoned and value not in ids:
        ctx.error(
            path,
            f"{what} {value!r} is a card in a zone (its zone:), not a permanent on the battlefield",
            "a designation names permanents and players; give the card no zone: to put it on the battlefield",
        )
        return None
    if field and isinstance(value, str) and value not in ids and value in existing:
        ctx.error(path, f"{what} {show(value)} is not listed under {field}:", f"list it under {field}: first")
        return None
    if not isinstance(value, str) or value not in ids:
        names = [i for i in ids if isinstance(i, str)]
        near = suggest(str(value), names) if isinstance(value, str) else None
        ctx.error(
            path,
            f"{what} {show(value)} does not exist",
            f"did you mean {near!r}?" if near else f"known: {', '.join(sorted(names)) or 'none'}",
        )
        return None
    return value


def _combat(
    ctx: ScenarioReader, data: dict, players: list[str], objects: dict[str, dict], zoned: Collection[str] = ()
) -> None:
    combat = data.get("combat")
    if combat is None:
        return
    if not ctx.want(combat, "map", ("combat",), "combat"):
        return
    fields = ctx.face.section_fields("combat")
    ctx.check_keys(combat, tuple(f.name for f in fields), ("combat",), "combat", fields=True)
    _fields(ctx, combat, fields, ("combat",), players, objects, zoned)


def _fields(
    ctx: ScenarioReader,
    data: dict,
    fields: Sequence[Field],
    base: tuple,
    players: list[str],
    objects: dict[str, dict],
    zoned: Collection[str] = (),
) -> None:
    """The designation fields the rules declare (scenario_field/4), each compiled by its shape; ``zoned``: the
    cards of objects: in another zone, which only a designation of a ``card`` takes (the others tell so)."""
    keys: dict[str, set] = {}  # field -> the ids it lists first (what other fields may refer to)
    # built once; a "card" is any object of objects:, a permanent or a card in a zone (one in exile, say)
    known = {
        "object": objects,
        "player": players,
        "target": set(players) | set(objects),
        "card": set(objects) | set(zoned),
    }
    for f in sorted(fields, key=lambda f: _ref_depth(f, fields)):
        keys[f.name] = set()
        raw = data.get(f.name)
        if raw is None:
            continue
        path = base + (f.name,)

        def ref(value: object, pos: int, vpath: tuple, f: Field = f) -> str | None:
            r = f.ref(pos)
            ids = known.get(r.what)
            if ids is None:  # another field's ids (a band member is an attacker)
                return _ref(ctx, value, keys.get(r.what, set()), vpath, r.noun, r.what, known["target"], zoned)
            return _ref(ctx, value, ids, vpath, r.noun, zoned=zoned)

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
                    ctx.error(ppath, f"an entry of {f.name} is a list of two ids, got {show(pair)}")
                    continue
                a, b = pair
                if ref(a, 0, ppath + (0,)) and ref(b, 1, ppath + (1,)):
                    if a == b:
                        ctx.error(ppath, f"an entry of {f.name} names two different objects, got {show(pair)}")
                        continue
                    keys[f.name] |= {a, b}
                    ctx.add((f.pred, a, b), ppath)


def _ref_depth(f: Field, fields: Sequence[Field]) -> int:
    """Fields that refer to another field's ids are compiled after it."""
    names = {g.name for g in fields}
    return sum(1 for r in f.refs if r.what in names)


def _stack(ctx: ScenarioReader, data: dict, players: list[str], sources: set[str]) -> None:
    """``stack:`` lists abilities waiting to resolve, top first: {id, source, kind, controller, args}.
    ``sources``: the ids a source may be (the objects, the cards ``facts:`` put in a zone, what its events name),
    besides a player (a player's own triggered ability, docs/authoring.md)."""
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
                ctx.error(path + ("controller",), f"stack controller {show(controller)} is not a player")
            continue
        ctx.add(("on_stack", sid, source, kind), path)
        ctx.add(("stack_position", sid, n - i), path)
        ctx.add(("ability_controller", sid, controller), path + ("controller",))
        if source not in sources and source not in players:  # a player's own ability (a speed trigger)
            near = suggest(source, sources | set(players))
            ctx.error(
                path + ("source",),
                f"stack source {source!r} is neither an object nor a player of the scenario",
                f"did you mean {near!r}?"
                if near
                else "name an id of objects:, or a card that has left the battlefield, in its zone under facts: "
                f'"card_in_zone({source}, graveyard)" (a token: an event of the log naming it; judgelog do -o '
                "writes both)",
            )
        args = item.get("args", {}) or {}
        if ctx.want(args, "map", path + ("args",), "args"):
            for key, value in args.items():
                if isinstance(value, (str, int)) and not isinstance(value, bool):
                    ctx.add(("ability_arg", sid, key, value), path + ("args", key))
                else:
                    ctx.error(path + ("args", key), f"an ability argument is an id or a number, got {show(value)}")
            _stack_entry_known(ctx, path, kind, args, has_args="args" in item)


def _stack_entry_known(ctx: ScenarioReader, path: tuple, kind: str, args: dict, *, has_args: bool) -> None:
    """A stack entry's kind and argument keys are ones the loaded rules know, and it has each argument a
    rule reading an ability of its kind needs (Interface.abilities): otherwise the ability would resolve
    doing nothing. ``path``: the entry's."""
    known = ctx.face.abilities
    if known is None:
        return
    if kind not in known.kinds:
        near = suggest(kind, known.kinds)
        ctx.error(
            path + ("kind",),
            f"no loaded rule triggers or resolves an ability of kind {kind!r}",
            f"did you mean {near!r}?" if near else f"kinds the rules know: {', '.join(sorted(known.kinds))}",
        )
        return
    for key in args:
        if str(key) not in known.keys:
            near = suggest(str(key), known.keys)
            ctx.error(
                path + ("args", key),
                f"no loaded rule gives or reads an ability argument {key!r}",
                f"did you mean {near!r}?" if near else f"argument keys the rules use: {', '.join(sorted(known.keys))}",
                key=True,
            )
    missing = [(key, rule) for key, rule in known.needs.get(kind, ()) if key not in args]
    if missing:
        ctx.error(
            path + ("args",) if has_args else path,
            f"a {kind} ability needs the argument(s) {', '.join(k for k, _ in missing)}",
            "; ".join(f"rule {rule} reads {key}" for key, rule in missing) + ": give it under args:",
        )


def _raw_facts(ctx: ScenarioReader, data: dict) -> list[tuple]:
    """``facts:`` holds any other state facts as rule-language atoms, e.g. "granted_keyword(hero, flying)";
    returns them (the engine checks them against the rules' declarations: judgelog.engine.Engine.check_facts)."""
    from .errors import QueryError
    from .fact import Fact

    raw = data.get("facts", []) or []
    given: list[tuple] = []
    if not ctx.want(raw, "list", ("facts",), "facts"):
        return given
    for i, text in enumerate(raw):
        path = ("facts", i)
        if not ctx.want(text, "str", path, "a fact"):
            continue
        try:
            fact = Fact.parse(text, ctx.doc.path)
        except QueryError as exc:
            ctx.error(path, exc.message)
            continue
        ctx.add(fact, path)
        given.append(fact)
    return given


def _entries(ctx: ScenarioReader, data: dict, key: str, required: str | None) -> list[tuple[dict, Span]]:
    raw = data.get(key, []) or []
    out: list[tuple[dict, Span]] = []
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
                f"{required}: takes the name of an action, got {show(item[required])}",
                "e.g. {do: declare_blockers, blockers: {...}}",
            )
            continue
        if key == "expect" and not isinstance(item.get("unless_refused", False), bool):
            message = f"unless_refused: takes true or false, got {show(item['unless_refused'])}"
            hint = 'e.g. {absent: "blocked(hero)", unless_refused: true}'
            ctx.diags.append(Diagnostic(S103, message, ctx.doc.span((key, i, "unless_refused")), hint=hint))
            continue
        out.append((item, ctx.doc.span((key, i))))
    return out
