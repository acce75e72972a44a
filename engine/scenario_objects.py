"""The objects of a scenario: what one ``objects:`` entry (or the ``object:`` an action brings) compiles to:
its characteristics from the card catalog or given inline, keywords with their parameters as the rule
files declare them, controller and owner, status, counters and damage.

>>> from judgelog.catalog import default_catalog
>>> from judgelog.library import default_interface
>>> from judgelog.yamlsrc import Located
>>> reader = ScenarioReader(Located({}, "demo.yaml"), default_catalog(), default_interface())
>>> facts = [f for f, _ in compile_object(reader, "bear", {"card": "Grizzly Bears"}, ("objects", "bear"), ["alice"])]
>>> ("base_power", "bear", 2) in facts, ("controller", "bear", "alice") in facts, reader.diags
(True, True, [])
>>> normalize_counter_kind("+1/+1")
'p1p1'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .analysis import suggest
from .codes import S200, S206
from .effects import KEPT_IN_ZONE
from .errors import Diagnostic
from .scenario_reader import ID_RE, ScenarioReader, kind_of, show
from .words import COUNTER_ALIASES

if TYPE_CHECKING:  # pragma: no cover
    from .interface import Interface

__all__ = ["compile_object", "normalize_counter_kind", "counter_facts", "warn_unmodelled", "OBJECT_KEYS"]

KIND_RE = re.compile(r"^[a-z][a-z0-9_]*$")
BATTLEFIELD = "battlefield"
BATTLE = "battle"  # the card type a protector: is given to (310.8)


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
    "zone",
    "protector",
)
# the keys that say what only a permanent has: refused for a card in a zone (its status, counters and damage
# are not kept there, 400.7; a token outside the battlefield ceases to exist, 111.7)
PERMANENT_ONLY = ("tapped", "counters", "damage", "token", "protector")


def normalize_counter_kind(kind: object) -> str | None:
    """A counter kind as the rules name it (``+1/+1`` is ``p1p1``), or None when it is no kind."""
    if not isinstance(kind, str):
        return None
    kind = COUNTER_ALIASES.get(kind.strip(), kind.strip())
    return kind if KIND_RE.match(kind) else None


def _warn_not_modelled(ctx: ScenarioReader, what: str, missing: list[str], at: tuple, folder: str) -> None:
    """S200: ``what`` (a card or a keyword, and where it comes from) is not modelled in full."""
    if missing:
        ctx.warnings.append(
            Diagnostic(
                S200,
                f"{what} is not modelled in full: " + "; ".join(missing),
                ctx.doc.span(at),
                severity="warning",
                hint=f"answers about what the rules do not model may be wrong; see its file in {folder}",
            )
        )


def _warn_unknown_subtype(ctx: ScenarioReader, what: str, subtype: str, at: tuple) -> None:
    """S206: a subtype in no subtype vocabulary and named by no rule (a misspelling is a subtype of its own);
    ``what``: where it is given (an object's subtypes, a keyword's parameter)."""
    near = suggest(subtype, ctx.face.subtype_vocabulary_words())
    ctx.warnings.append(
        Diagnostic(
            S206,
            f"subtype {subtype!r} {what} is not a subtype the rules know (CR 205.3), so nothing that reads a "
            "subtype counts it",
            ctx.doc.span(at),
            severity="warning",
            hint=f"did you mean {near!r}?"
            if near
            else f"if it is a real subtype, add vocabulary_word(creature_type, {subtype}). (or the vocabulary of "
            "its card type) to a rule file of yours",
        )
    )


def warn_unmodelled(ctx: ScenarioReader, card: str, what: str, path: tuple) -> None:
    """S200 for a catalog card whose rules text the library does not model in full (card_not_modelled)."""
    missing = [w for n, w in ctx.face.unmodelled if n == card]
    _warn_not_modelled(ctx, f"card {card!r} ({what})", missing, path, "rules/cards/")


def warn_unmodelled_keywords(
    ctx: ScenarioReader, keywords: object, what: str, path: tuple, *, indexed: bool = True
) -> None:
    """S200 for each keyword of ``keywords`` (an object's keywords, written at ``path``: a list, item by item
    when ``indexed``) whose rule file says a part of it is not modelled (keyword_not_modelled)."""
    for i, kw in enumerate(keywords if isinstance(keywords, list) else []):
        name = next(iter(kw), None) if isinstance(kw, dict) and len(kw) == 1 else kw
        missing = [w for k, w in ctx.face.unmodelled_keywords if k == name]
        at = path + (i,) if indexed else path
        _warn_not_modelled(ctx, f"keyword {name!r} ({what})", missing, at, "rules/keywords/")


_SHAPES = {
    "map": "{name}: {{{oid}: {noun}}}",
    "map_list": "{name}: {{{oid}: [{noun}, ...]}}",
    "groups": "{name}: [[{oid}, ...], ...]",
    "pairs": "{name}: [[{oid}, {noun}]]",
}


def _written_elsewhere(face: Interface, oid: str) -> dict[str, str]:
    """A designation field's name or predicate written as a key of an object (``attached_to: bears``,
    ``attacking: bob``), with the hint that says where the scenario takes it (scenario_field/4)."""
    out: dict[str, str] = {}
    for f in face.fields:
        where = "under `combat:`" if f.section == "combat" else "at the top of the scenario"
        written = _SHAPES.get(f.shape, "{name}:").format(name=f.name, oid=oid, noun=f.ref(1).noun)
        for key in (f.pred, f.name):
            out.setdefault(key, f"write it {where} as `{written}`")
    return out


def compile_object(
    ctx: ScenarioReader, oid: str, spec: dict, path: tuple, players: list[str], *, zones: tuple[str, ...] = ()
) -> list[tuple[tuple, tuple]]:
    """Facts of one permanent; also used by actions that put objects onto the battlefield. ``zones``: the zones
    other than the battlefield ``zone:`` may name; a card there is its ``card_in_zone`` fact with its owner
    and copiable values as ``card_value`` facts, as the move primitive keeps a card that left the battlefield."""
    out: list[tuple[tuple, tuple]] = []
    odd = any(key not in OBJECT_KEYS for key in spec)  # (the hints are made only for a board that needs them)
    ctx.check_keys(
        spec, OBJECT_KEYS, path, f"object {oid!r}", elsewhere=_written_elsewhere(ctx.face, oid) if odd else None
    )
    zone = _zone(ctx, spec, path, zones)
    if zone is not None:
        return _in_zone(ctx, oid, spec, path, players, zone) if zone else []
    chars: dict[str, Any] = {}
    if "card" in spec:
        card = spec["card"]
        entry = ctx.catalog.get(card) if isinstance(card, str) else None
        if entry is None and not isinstance(card, str):
            ctx.error(
                path + ("card",),
                f"card: takes the name of a catalog card, got {kind_of(card)}",
                "to describe the card here, give its characteristics beside controller: instead "
                "({name: Raider, types: [creature], power: 2, toughness: 2, controller: alice})",
            )
        elif entry is None:
            near = ctx.catalog.suggest(card)
            ctx.error(
                path + ("card",),
                f"unknown card {card!r}",
                f"did you mean {near!r}?"
                if near
                else "give the object inline (name, types, power, ...) or add the card to facts/cards.yaml",
            )
        else:
            chars.update(entry.characteristics())
            warn_unmodelled(ctx, entry.name, f"object {oid!r}", path + ("card",))
    for key in ("name", "types", "subtypes", "supertypes", "colors", "power", "toughness", "keywords"):
        if key in spec:
            chars[key] = spec[key]
    name = chars.get("name")
    if name is None:
        if "card" not in spec:  # (an unknown card is reported above)
            ctx.error(path, f"object {oid!r} needs a card or a name", "e.g. {card: Grizzly Bears, controller: alice}")
    elif ctx.want(name, "str", path + ("name",), "name"):
        out.append((("name", oid, name), path + ("name",) if "name" in spec else path + ("card",)))
        if "card" not in spec:  # a card's file applies by its name: an inline object so named is that card too
            warn_unmodelled(ctx, name, f"object {oid!r}, named so inline", path + ("name",))
    out.append((("permanent", oid), path))
    for key, pred, allowed in (
        ("types", "card_type", ctx.face.card_types),
        ("subtypes", "subtype", None),
        ("supertypes", "supertype", ctx.face.vocabulary("supertype") or None),
        ("colors", "color", ctx.face.colors),
    ):
        values = chars.get(key, [])
        vpath = path + (key,)
        if not ctx.want(values, "list", vpath, key):
            continue
        for i, v in enumerate(values):
            if not isinstance(v, str) or not ID_RE.match(v):
                ctx.error(vpath + (i,), f"{key} entries are lower_snake words, got {show(v)}")
            elif allowed is not None and v not in allowed:
                near = suggest(v, allowed)
                ctx.error(
                    vpath + (i,),
                    f"unknown {key[:-1]} {v!r}",
                    f"did you mean {near!r}?" if near else f"one of: {', '.join(allowed)}",
                )
            else:
                out.append(((pred, oid, v), vpath + (i,) if key in spec else path))
                if key == "subtypes" and ctx.face.subtype_words and v not in ctx.face.subtype_words:
                    _warn_unknown_subtype(ctx, f"of {oid!r}", v, vpath + (i,) if key in spec else path + ("card",))
    is_creature = isinstance(chars.get("types"), list) and "creature" in chars["types"]
    for key, pred in (("power", "base_power"), ("toughness", "base_toughness")):
        if key in chars:
            if ctx.want(chars[key], "int", path + (key,), key):
                out.append(((pred, oid, chars[key]), path + (key,) if key in spec else path))
        elif is_creature:
            ctx.error(path, f"creature {oid!r} needs {key}", f"add {key}: N or use a card from the catalog")
    out.extend(_keywords(ctx, oid, chars.get("keywords", []), path, "keywords" in spec))
    inline = "keywords" in spec
    where = path + ("keywords",) if inline else path + ("card",)
    warn_unmodelled_keywords(ctx, chars.get("keywords", []), f"object {oid!r}", where, indexed=inline)
    out.extend(_protector(ctx, oid, spec, chars, path, players))
    controller = spec.get("controller", players[0] if len(players) == 1 else None)
    if controller is None:
        ctx.error(path, f"object {oid!r} needs a controller", f"add controller: one of {', '.join(players)}")
    elif _a_player(ctx, path + ("controller",), "controller", controller, players):
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
        out.extend(counter_facts(ctx, oid, spec["counters"], path + ("counters",)))
    if "damage" in spec and ctx.want(spec["damage"], "int", path + ("damage",), "damage"):
        if spec["damage"] < 0:
            ctx.error(path + ("damage",), "damage cannot be negative")
        elif spec["damage"] > 0:
            out.append((("damage_marked", oid, spec["damage"]), path + ("damage",)))
    return out


def _zone(ctx: ScenarioReader, spec: dict, path: tuple, zones: tuple[str, ...]) -> str | None:
    """The zone other than the battlefield that ``zone:`` names (None: the battlefield; "": an error told)."""
    zone = spec.get("zone", BATTLEFIELD)
    if zone == BATTLEFIELD:
        return None
    if zone in zones:
        return str(zone)
    if not zones:
        ctx.error(
            path + ("zone",),
            f"an object an action brings is put onto the {BATTLEFIELD}, got zone: {show(zone)}",
            "leave zone: out; a card in another zone is written under the scenario's objects:",
        )
        return ""
    near = suggest(str(zone), (BATTLEFIELD, *zones)) if isinstance(zone, str) else None
    ctx.error(
        path + ("zone",),
        f"unknown zone {show(zone)}",
        f"did you mean {near!r}?" if near else f"zone: one of {', '.join((BATTLEFIELD, *zones))}",
    )
    return ""


def _in_zone(
    ctx: ScenarioReader, oid: str, spec: dict, path: tuple, players: list[str], zone: str
) -> list[tuple[tuple, tuple]]:
    """Facts of a card in ``zone``: ``card_in_zone`` and the ``card_value`` facts of its owner and copiable
    values (rules/core/state.dl), read from the same keys as a permanent's, and its counters (122.1: a
    suspended card's time counters in exile), which are its own ``counter`` facts as a permanent's."""
    for key in PERMANENT_ONLY:
        if key in spec and key != "counters":
            ctx.error(
                path + (key,),
                f"{key}: is for a permanent; object {oid!r} is a card in a zone (zone: {zone})",
                "leave it out, or write the object on the battlefield (no zone:)",
                key=True,
            )
    owner = spec.get("owner", spec.get("controller"))
    if "owner" in spec and "controller" in spec and spec["owner"] != spec["controller"]:
        ctx.error(
            path + ("controller",),
            f"a card in a zone (zone: {zone}) has no controller (108.4a: its owner stands for it)",
            "give its owner: alone",
            key=True,
        )
    # as a permanent of that owner, then kept as the move primitive keeps a card that leaves the battlefield
    rest = {k: v for k, v in spec.items() if k not in ("zone", "owner", "controller", *PERMANENT_ONLY)}
    if owner is not None and not _a_player(
        ctx, path + ("owner" if "owner" in spec else "controller",), "owner", owner, players
    ):
        return []
    if owner is not None:
        rest["controller"] = owner
    elif len(players) != 1:
        ctx.error(path, f"object {oid!r} (zone: {zone}) needs an owner", f"add owner: one of {', '.join(players)}")
        return []
    facts = compile_object(ctx, oid, rest, path, players)
    out: list[tuple[tuple, tuple]] = [(("card_in_zone", oid, zone), path + ("zone",))]
    if "counters" in spec and ctx.want(spec["counters"], "map", path + ("counters",), "counters"):
        out.extend(counter_facts(ctx, oid, spec["counters"], path + ("counters",)))
    for fact, fpath in facts:
        if fact[0] in KEPT_IN_ZONE:
            if fact[0] == "owner" and "owner" in spec:
                fpath = path + ("owner",)
            out.append((("card_value", oid, fact[0]) + fact[2:] + ("none",) * (6 - len(fact)), fpath))
    return out


def _protector(
    ctx: ScenarioReader, oid: str, spec: dict, chars: dict, path: tuple, players: list[str]
) -> list[tuple[tuple, tuple]]:
    """``protector: P`` of a battle (310.8): its ``protector`` fact; a player of the game, on a battle only."""
    if "protector" not in spec:
        return []
    who = spec["protector"]
    types = chars.get("types")
    if not (isinstance(types, list) and BATTLE in types):
        ctx.error(
            path + ("protector",),
            f"protector: is for a battle (310.8); object {oid!r} is no battle",
            f"add {BATTLE} to its types:, or leave protector: out",
            key=True,
        )
    elif _a_player(ctx, path + ("protector",), "protector", who, players):
        return [(("protector", oid, who), path + ("protector",))]
    return []


def _keywords(ctx: ScenarioReader, oid: str, values: object, path: tuple, inline: bool) -> list[tuple[tuple, tuple]]:
    out: list[tuple[tuple, tuple]] = []
    kpath = path + ("keywords",)
    if not isinstance(values, list):
        ctx.want(values, "list", kpath, "keywords")  # says what it is instead
        return out
    face = ctx.face
    seen: dict[str, int] = {}
    for i, kw in enumerate(values):
        ipath = kpath + (i,) if inline else path
        param = None
        if isinstance(kw, dict) and len(kw) == 1:
            ((kw, param),) = kw.items()
        elif not isinstance(kw, str):
            ctx.error(ipath, f"a keyword is a word or a one-key mapping, got {show(kw)}")
            continue
        if not isinstance(kw, str) or not ID_RE.match(kw):
            snake = "_".join(kw.lower().replace("-", " ").split()) if isinstance(kw, str) else ""
            near = suggest(snake, ctx.keywords) if snake else None
            ctx.error(
                ipath,
                f"keywords are lower_snake words, got {show(kw)}",
                f"did you mean {near!r}?" if near else "lower-case words joined with _",
            )
            continue
        if kw not in face.keywords:
            near = suggest(kw, ctx.keywords)
            ctx.error(
                ipath,
                f"unknown keyword {kw!r}",
                _not_a_keyword_hint(face.action_params, kw, oid)
                or (
                    f"did you mean {near!r}?"
                    if near
                    else "no loaded rule file declares it (keyword/1 in "
                    "rules/core/interface.dl); known keywords: " + ", ".join(ctx.keywords)
                ),
            )
            continue
        seen[kw] = seen.get(kw, 0) + 1
        instance = f"printed_{seen[kw]}" if seen[kw] > 1 else None
        if instance:  # instances are a multiset: a repeated entry is one more instance
            out.append((("printed_keyword_instance", oid, kw, instance), ipath))
        if param is None:
            if face.needs_param(kw):
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
        if params is not None and not _params_in_vocabulary(ctx, kw, params, ipath):
            params = None
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


def _not_a_keyword_hint(action_params: tuple[tuple[str, str], ...], word: str, oid: str) -> str | None:
    """The hint for a keyword name that is an argument of an action (action_param/2) instead: say which."""
    actions = [a for a, key in action_params if key == word]
    if not actions:
        return None
    return (
        f"{word!r} is not a keyword but an argument of the action {' and '.join(actions)} (action_param in "
        f"its rule file): name {oid} in it on the action ({{do: {actions[0]}, {word}: ...}}); docs/authoring.md "
        f"(search {word!r}) says which objects it is offered to"
    )


def _params_in_vocabulary(ctx: ScenarioReader, name: str, params: list[tuple[str, Any]], path: tuple) -> bool:
    """Whether each value is a word of a vocabulary the rules declare for its key (keyword_param_vocabulary),
    or a number at least the least the rules declare for it (keyword_param_number); an error for each that is
    not."""
    ok = True
    for key, value in params:
        if (name, key) in ctx.face.subtype_params and ctx.face.subtype_words and value not in ctx.face.subtype_words:
            _warn_unknown_subtype(ctx, f"in the parameter of {name}", str(value), path)  # a warning: it is kept
        words = ctx.face.param_words(name, key)
        least = ctx.face.param_minimums.get((name, key))
        if least is not None and not (isinstance(value, int) and not isinstance(value, bool) and value >= least):
            ctx.error(
                path,
                f"the {key} in the parameter of {name} is a whole number of at least {least}, got {show(value)}",
                f"e.g. {{{name}: {{{key}: {max(least, 2)}}}}} (keyword_param_number in its rule file)",
            )
            ok = False
            continue
        if words is None or value in words:
            continue
        shown = [str(w) for w in words]  # a vocabulary's words may be numbers (vocabulary_word(v, 1))
        near = suggest(str(value), shown)
        ctx.error(
            path,
            f"unknown {key} {value!r} in the parameter of {name}",
            (f"did you mean {near!r}? " if near else "") + f"the {key} is one of: {', '.join(shown)}",
        )
        ok = False
    return ok


def _keyword_params(ctx: ScenarioReader, name: str, param: object, path: tuple) -> list[tuple[str, Any]] | None:
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
    together = name in face.together_params  # keyword_param_together: {prototype: {power: 3, toughness: 2}}
    if keys and isinstance(param, dict) and (len(param) == 1 or (together and param)):
        out: list[tuple[str, Any]] = []
        for kind, value in param.items():
            if kind not in keys:
                near = suggest(str(kind), keys)
                ctx.error(
                    path,
                    f"unknown key {kind!r} in the parameter of {name}",
                    f"did you mean {near!r}?" if near else "one of " + ", ".join(keys),
                )
                return None
            if not (isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))):
                break
            out.append((kind, value))  # a word or a number: {protection: {subtype: wolf}}, {upkeep_cost: {life: 1}}
        else:
            return out
    mapping = " or ".join(f"{{{k}: a word or a number}}" for k in keys)
    if together:
        mapping = "{" + ", ".join(f"{k}: a word or a number" for k in keys) + "} (any of these keys)"
    wanted = {"number": "a positive number", "word": "a lower_snake word", "mapping": mapping}
    kinds = " or ".join(dict.fromkeys(wanted[form] for form, _ in forms))
    ctx.error(path, f"{name} takes {kinds}, got {show(param)}", f"e.g. {face.param_example(name)}")
    return None


def counter_facts(ctx: ScenarioReader, owner: str, counters: dict, path: tuple) -> list[tuple[tuple, tuple]]:
    """``counter`` facts of a ``counters:`` mapping (of an object or a player), kinds normalised."""
    out: list[tuple[tuple, tuple]] = []
    totals: dict[str, int] = {}
    spelt: dict[str, object] = {}  # a kind -> the key that gave it first
    for kind, n in counters.items():
        cpath = path + (kind,)
        norm = normalize_counter_kind(kind)
        if norm is not None and norm in spelt:  # "+1/+1" and p1p1 both: a total or two readings of one number?
            ctx.error(
                cpath,
                f"counters {show(spelt[norm])} and {show(kind)} are the same kind ({norm}), given twice",
                f"give the kind once, with the number of counters: {norm}: N",
                key=True,
            )
            continue
        if norm is None:
            ctx.error(
                cpath,
                f"invalid counter kind {kind!r}",
                "counter kinds are lower_snake words "
                '(p1p1, m1m1, loyalty, poison, ...; "+1/+1" and "-1/-1" are accepted)',
                key=True,
            )
            continue
        spelt[norm] = kind
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


def _a_player(ctx: ScenarioReader, path: tuple, what: str, value: object, players: list[str]) -> bool:
    """Whether ``value`` (an object's ``what``) names a player of the game; if not, an error at ``path``
    naming the nearest one."""
    if value in players:
        return True
    near = suggest(str(value), players)
    ctx.error(
        path,
        f"{what} {show(value)} is not a player",
        f"did you mean {near!r}?" if near else f"players: {', '.join(players)}",
    )
    return False
