"""The generic effect primitives: the only state changes the Python runtime knows.

Rules decide *what* happens (``effect(I, Prim, A, B, C)`` and ``state_based(...)`` facts); this module only
knows *how* to change a set of facts for each primitive, and which event each change is. No primitive knows
a keyword: "put counters", "create a token", "record a designation" are the vocabulary of the CR's general
rules, and each is declared in rules/core/interface.dl (``primitive/4``).

Primitives (A, B, C; ``none`` where unused):

=====================  ==============================================================================
put_counters X K N     put N counters of kind K on X (a permanent, a player, or a card in a zone other than the
                       battlefield: card_in_zone, CR 122.1; a card's go as it changes zones, 122.2, 400.7)
remove_counters X K N  remove up to N counters of kind K
mark_damage O N -      mark N damage on O
deal_damage S R N      S deals N damage to R (the event; what it does is said by rules/core/damage.dl,
                       CR 120.3)
prevent_damage S R N   the N damage S would deal to R is prevented (CR 615.1): the event only, nothing dealt
lose_life P N -        P loses N life;   gain_life P N -: P gains N life
move O Zone -          O leaves the battlefield to graveyard|exile|hand|library (a token is noted as
                       token_in_zone(O, Zone); a card is kept there as card_in_zone(O, Zone); both keep their
                       owner and copiable values as card_value facts, and what the rules' last_known_info
                       said it was as last_known facts: the last known information, 608.2h); into the zone
                       the rules' leaves_battlefield_instead says instead, if one does (614.1a)
return_to_battlefield O P Zone  the card O in Zone returns to the battlefield under P's control (nothing
                       if it is not there, CR 603.6)
cease_to_exist O - -   a token outside the battlefield ceases to exist (its token_in_zone fact goes)
destroy O - -          move the permanent O to its owner's graveyard (event: destroyed; nothing if O has left)
gain_control O P D    P gains control of O, a permanent or an object with a controller fact (removes it from
                       combat, 506.4); D: none, or its duration (the event's ``duration``: rules end it)
tap O / untap O        tap or untap O
add_subtype O T -      O becomes a T in addition to its other types
grant_keyword O K -    O gains K until end of turn;   remove_keyword O K -: O loses K until end of turn
set_type O T -         O's card types become T (repeat for several; the first clears the others)
remove_from_combat O   O leaves combat (CR 506.4): its facts of every ``ends_with_combat`` predicate go
create_token Spec P N  P creates N tokens from the token_spec (and token_spec_param) facts of Spec
create_copy O P N      P creates N tokens that copy O's copiable values (CR 707.2)
put_onto_battlefield O Flag -  the pending object O enters (Flag token makes it a token); a card of that id in
                       a zone leaves it (its card_in_zone and card_value facts go, 400.7)
lose_game P Why -      P loses the game
end_turn - - -         the turn ends (an event; rules forget what ends with it)
record P A B           assert P(A) or P(A, B) for an input predicate P the rules declare (a designation), with
                       what the interface says recording it gives (record_symmetric, record_implies) and
                       the event it is (record_event); a fact that already holds is no event, unless each
                       record of P is one (record_event_repeats)
record_plain P A B     the same, with the plain event recorded instead of the declared one (508.4: a creature
                       put onto the battlefield attacking is attacking but never attacked)
forget P A B           retract it (and its mirror when symmetric);   forget_all P - -: retract every fact of P
begin_effect Spec O D  start a continuous effect on O lasting D (rules/core/continuous.dl): a new id
                       effect_N, its timestamp (the number of its event; a Spec begun on several objects in
                       one step is one effect on a set, 611.2c: all share the first one's), and the
                       effect_spec values of Spec as they are now
end_effect E - -       the continuous effect E ends: every fact about it goes
signal Kind X -        the event Kind of X happens (e.g. combat_ended), for rules that wait for it
=====================  ==============================================================================
"""

from __future__ import annotations

from collections.abc import Callable

from .ast import format_value
from .change import Arg, Change, kept_values, object_facts
from .errors import ActionError
from .fact import Fact, fact_order
from .words import COUNTER_ALIASES, EVENT_WORDS, PREDICATE_SUBJECT_EVENTS, RECORDED_ARITIES, ZONES

__all__ = [
    "PRIMITIVES",
    "MOVES_THAT_KILL",
    "apply_primitive",
    "COPIABLE",
    "ZONES",
    "EVENT_WORDS",
    "PREDICATE_SUBJECT_EVENTS",
]

COPIABLE = (
    "name",
    "card_type",
    "subtype",
    "supertype",
    "color",
    "base_power",
    "base_toughness",
    "printed_keyword",
    "printed_keyword_param",
    "printed_keyword_instance",
    "printed_keyword_instance_param",
)


# what the move primitive keeps of a card that leaves the battlefield (its owner and copiable values), with
# each predicate's arity: card_value(O, Pred, A, B, C, D) pads the arguments after O with `none`
KEPT_IN_ZONE = {pred: 2 for pred in COPIABLE} | {
    "owner": 2,
    "printed_keyword_param": 4,
    "printed_keyword_instance": 3,
    "printed_keyword_instance_param": 5,
}


def _counters(change: Change, x: Arg, kind: str, delta: int) -> int:
    old = change.value("counter", x, kind, default=0)
    new = max(old + delta, 0)
    change.facts.discard(("counter", x, kind, old))
    if new > 0:
        change.facts.add(("counter", x, kind, new))
    return new - old


def _leave_combat(change: Change, o: Arg) -> bool:
    """Remove ``o`` from combat (CR 506.4): its facts of every predicate that ends with combat. What else
    lapses with it (a band, blocks on it) the rules say with state-based forgets."""
    gone = [f for pred in change.combat for f in change.facts.matching(pred, (o,))]
    for f in gone:
        change.facts.discard(f)
    return bool(gone)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ActionError(message)


def _counters_go(ch: Change, o: Arg) -> None:
    """A card that changes zones is a new object (400.7): the counters it had in the zone it left are gone
    (122.2; a suspended card's time counters as it is cast from exile)."""
    for f in ch.all("counter", o) + ch.all("counter_since", o):
        ch.facts.discard(f)


def p_put_counters(ch: Change, x: Arg, kind: Arg, n: Arg) -> None:
    _require(
        ch.is_permanent(x) or ch.is_player(x) or bool(ch.all("card_in_zone", x)),
        f"cannot put counters on {x}: not a permanent, a player or a card in a zone",
    )
    kind = COUNTER_ALIASES.get(kind, kind) if isinstance(kind, str) else kind  # "+1/+1" written in a rule
    if isinstance(n, int) and n > 0:
        _counters(ch, x, kind, n)
        if ch.face is not None and kind in ch.face.timed_counters:  # its time, for the layers (613.7)
            for old in ch.all("counter_since", x, kind):
                ch.facts.discard(old)
            ch.facts.add(("counter_since", x, kind, ch.next_seq + len(ch.events)))
        ch.emit("counters_put", x, kind=kind, n=n)


def p_remove_counters(ch: Change, x: Arg, kind: Arg, n: Arg) -> None:
    kind = COUNTER_ALIASES.get(kind, kind) if isinstance(kind, str) else kind
    if isinstance(n, int) and n > 0:
        removed = -_counters(ch, x, kind, -n)
        if removed:
            ch.emit("counters_removed", x, kind=kind, n=removed)


def p_mark_damage(ch: Change, o: Arg, n: Arg, _c: Arg) -> None:
    if isinstance(n, int) and n > 0 and ch.is_permanent(o):
        old = ch.value("damage_marked", o, default=0)
        ch.facts.discard(("damage_marked", o, old))
        ch.facts.add(("damage_marked", o, old + n))
        ch.emit("damage_marked", o, n=n)


def p_deal_damage(ch: Change, source: Arg, target: Arg, n: Arg) -> None:
    """``source`` deals ``n`` damage to ``target`` (a player or a permanent): the event only. What the damage
    does (life, loyalty, defense, marked damage; CR 120.3) the rules say as the event's results."""
    if not isinstance(n, int) or n <= 0 or not (ch.is_player(target) or ch.is_permanent(target)):
        return
    ch.emit("damage_dealt", source, to=target, n=n)


def p_prevent_damage(ch: Change, source: Arg, target: Arg, n: Arg) -> None:
    """The ``n`` damage ``source`` would deal to ``target`` is prevented (615.1): an event saying so, so that
    what was assigned and not dealt is on the record; nothing is dealt."""
    if not isinstance(n, int) or n <= 0 or not (ch.is_player(target) or ch.is_permanent(target)):
        return
    ch.emit("damage_prevented", source, to=target, n=n)


def _life(ch: Change, p: Arg, delta: int) -> None:
    old = ch.value("life", p, default=0)
    ch.facts.discard(("life", p, old))
    ch.facts.add(("life", p, old + delta))


def p_lose_life(ch: Change, p: Arg, n: Arg, _c: Arg) -> None:
    if isinstance(n, int) and n > 0 and ch.is_player(p):
        _life(ch, p, -n)
        ch.emit("life_lost", p, n=n)


def p_gain_life(ch: Change, p: Arg, n: Arg, _c: Arg) -> None:
    if isinstance(n, int) and n > 0 and ch.is_player(p):
        _life(ch, p, n)
        ch.emit("life_gained", p, n=n)


# the primitives that put a permanent into a graveyard: a creature that goes dies (700.4)
MOVES_THAT_KILL = frozenset({"move", "destroy"})


def p_move(ch: Change, o: Arg, zone: Arg, why: Arg = None, *, event: str = "moved") -> None:
    """``o`` leaves the battlefield: it becomes a new object (CR 400.7), so every fact about it goes; what
    other facts refer to it (a partner, a block) the rules forget with state-based forgets."""
    if not ch.is_permanent(o):
        _move_card(ch, o, zone, why, event)
        return
    _require(zone in ZONES, f"unknown zone {zone!r}; zones: {', '.join(ZONES)}")
    # 614.1a, 614.6: a replacement effect puts it into another zone instead (the event says where it went)
    would, (zone, by) = zone, ch.instead.get((o, zone), (zone, None))
    replaced = {"instead_of": would, "replacement": by} if by is not None else {}
    was_creature = o in ch.creatures if ch.creatures is not None else ("card_type", o, "creature") in ch.facts
    was_token = ("token", o) in ch.facts
    facts = object_facts(ch, o)
    for f in facts:
        ch.facts.discard(f)
    if not was_token:  # the card, a new object in its owner's zone (400.7)
        ch.facts.add(("card_in_zone", o, zone))
    # its owner and copiable values: a card's in its zone, a token's as its last known information, kept after
    # it ceases to exist for the abilities it left on the stack (608.2h, 113.7a)
    for f in kept_values(ch, facts, KEPT_IN_ZONE):  # off it, a characteristic may be another (718.4)
        ch.facts.add(f)
    # and what the rules said it was as it last existed on the battlefield, effects applied (last_known_info)
    for row in ch.last_known.get(o, ()):
        ch.facts.add(("last_known", o) + row)
    # why it left (sacrificed, a state-based action's reason): kept with the event, for "whenever you sacrifice"
    ch.emit(event, o, to=zone, **({"why": why} if why not in (None, "none") else {}), **replaced)
    if was_creature and zone == "graveyard":
        ch.emit("dies", o)
    if was_token:
        ch.facts.add(("token_in_zone", o, zone))  # it ceases to exist at the next check (rules: 704.5d)


def _move_card(ch: Change, o: Arg, zone: Arg, why: Arg, event: str) -> None:
    """A card in a zone other than the battlefield (``card_in_zone``) is put into another one (a discarded card,
    from a hand to its owner's graveyard, 701.9a): a new object there (400.7) with the same copiable values; its
    ``card_value`` facts stay. Nothing happens if it is in no such zone, or already in ``zone``; a replacement
    (the rules' card_moves_instead, 614.1a) puts it into another zone, as for a permanent."""
    here, would = ch.all("card_in_zone", o), zone
    zone, by = ch.instead.get((o, zone), (zone, None))  # (by: the kind of the replacement, or None)
    if not here or here[0][2] == zone:
        return
    _require(zone in ZONES, f"unknown zone {zone!r}; zones: {', '.join(ZONES)}")
    ch.facts.discard(here[0])
    _counters_go(ch, o)
    ch.facts.add(("card_in_zone", o, zone))
    details = {"from": here[0][2], **({"instead_of": would, "replacement": by} if by is not None else {})}
    ch.emit(event, o, to=zone, **({"why": why} if why not in (None, "none") else {}), **details)


def p_return_to_battlefield(ch: Change, o: Arg, p: Arg, zone: Arg) -> None:
    """The card ``o`` in ``zone`` returns to the battlefield under ``p``'s control, a new object (400.7) with
    its copiable values; if it is no longer in that zone, nothing happens (603.6)."""
    if ("card_in_zone", o, zone) not in ch.facts:
        return
    _require(ch.is_player(p), f"{p} is not a player")
    values = ch.all("card_value", o)
    ch.facts.discard(("card_in_zone", o, zone))
    _counters_go(ch, o)
    facts: list[tuple] = [("permanent", o), ("controller", o, p)]
    for f in values:
        ch.facts.discard(f)
        facts.append((f[2], o) + tuple(f[3 : 3 + KEPT_IN_ZONE.get(str(f[2]), 2) - 1]))
    _enter(ch, o, facts, controller=p)


def p_cease_to_exist(ch: Change, o: Arg, _b: Arg, _c: Arg) -> None:
    """A token outside the battlefield ceases to exist (the rules say when: CR 111.7, 704.5d); its last known
    values (card_value) stay, for an ability of it still on the stack (608.2h)."""
    gone = ch.all("token_in_zone", o)
    for f in gone:
        ch.facts.discard(f)
    if gone:
        ch.emit("ceased_to_exist", o)


def p_destroy(ch: Change, o: Arg, _b: Arg, _c: Arg) -> None:
    if ch.is_permanent(o):  # 701.8a: only a permanent is destroyed (once, when two effects of a step destroy it)
        p_move(ch, o, "graveyard", event="destroyed")


def p_gain_control(ch: Change, o: Arg, p: Arg, duration: Arg) -> None:
    old = ch.value("controller", o)  # a permanent, or an object the rules keep controlled while it is no permanent
    _require(ch.is_permanent(o) or old is not None, f"{o} is not a permanent on the battlefield")
    _require(ch.is_player(p), f"{p} is not a player")
    if old == p:  # (an effect giving control to the controller changes nothing, now or as it ends)
        return
    lasting = {} if duration in (None, "none") else {"duration": duration}
    ch.facts.discard(("controller", o, old))
    ch.facts.add(("controller", o, p))
    if _leave_combat(ch, o):
        ch.emit("removed_from_combat", o, because="control_change")
    ch.emit("control_changed", o, to=p, previous=old, **lasting)


def p_tap(ch: Change, o: Arg, _b: Arg, _c: Arg) -> None:
    if ch.is_permanent(o) and ("tapped", o) not in ch.facts:
        ch.facts.add(("tapped", o))
        ch.emit("tapped", o)


def p_untap(ch: Change, o: Arg, _b: Arg, _c: Arg) -> None:
    if ("tapped", o) in ch.facts:
        ch.facts.discard(("tapped", o))
        ch.emit("untapped", o)


def p_add_subtype(ch: Change, o: Arg, t: Arg, _c: Arg) -> None:
    if ch.is_permanent(o) and ("subtype", o, t) not in ch.facts:
        ch.facts.add(("subtype", o, t))
        ch.facts.add(("added_subtype", o, t))
        ch.emit("subtype_added", o, subtype=t)


def p_grant_keyword(ch: Change, o: Arg, k: Arg, _c: Arg) -> None:
    if ch.is_permanent(o):
        ch.facts.discard(("removed_keyword", o, k))
        ch.facts.add(("granted_keyword", o, k))
        ch.emit("ability_gained", o, keyword=k)


def p_remove_keyword(ch: Change, o: Arg, k: Arg, _c: Arg) -> None:
    if ch.is_permanent(o):
        ch.facts.discard(("granted_keyword", o, k))
        ch.facts.add(("removed_keyword", o, k))
        ch.emit("ability_lost", o, keyword=k)


def p_set_type(ch: Change, o: Arg, t: Arg, first: Arg) -> None:
    if not ch.is_permanent(o):
        return
    if first != "more":
        for f in ch.all("card_type", o):
            ch.facts.discard(f)
    ch.facts.add(("card_type", o, t))
    ch.emit("type_set", o, type=t)


def p_remove_from_combat(ch: Change, o: Arg, _b: Arg, _c: Arg) -> None:
    if _leave_combat(ch, o):
        ch.emit("removed_from_combat", o)


def _enter(ch: Change, oid: str, facts: list[tuple], controller: Arg = None, token: bool = False) -> None:
    for f in facts:
        ch.facts.add(f)
    if token:
        ch.facts.add(("token", oid))
    ch.facts.add(("entered_this_turn", oid))
    ch.created.append(("permanent", oid))
    ch.emit("enters", oid, controller=controller or ch.value("controller", oid), token=("token", oid) in ch.facts)


def p_put_onto_battlefield(ch: Change, oid: Arg, flag: Arg, _c: Arg) -> None:
    facts = ch.pending.get(oid)
    if facts is None:
        raise ActionError(f"no pending object {oid}")
    ch.facts.discard(("pending_object", oid))
    # a card put onto the battlefield from a zone (an id of a card_in_zone) is no longer there: it is a new
    # object (400.7), in one zone at a time (400.1); what was kept of it there goes, as return_to_battlefield's
    here = ch.all("card_in_zone", oid)
    if here:
        _counters_go(ch, oid)
    for f in here + ch.all("token_in_zone", oid) + ch.all("card_value", oid):
        ch.facts.discard(f)
    _enter(ch, oid, facts, token=flag == "token")
    if flag == "token":
        ch.emit("token_created", oid)  # CR 111.2: like create_token, a token put this way is created


def p_create_token(ch: Change, spec: Arg, controller: Arg, n: Arg, *, spec_facts: list[tuple]) -> None:
    count = n if isinstance(n, int) else 1
    fields = [f for f in spec_facts if f[0] == "token_spec" and f[1] == spec]
    words = [
        str(f[3])
        for f in sorted((f for f in spec_facts if f[0] == "token_name_word" and f[1] == spec), key=lambda f: f[2])
    ]
    suffix = [str(f[2]) for f in spec_facts if f[0] == "token_name_suffix" and f[1] == spec]
    given = next((f[3] for f in fields if f[2] == "name"), None)
    base = " ".join(w.replace("_", " ").capitalize() for w in words)  # the rules' name words (CR 111.4)
    name = given if given is not None else " ".join([base] + suffix[:1]) if words else None
    for _ in range(max(count, 0)):
        oid = ch.token_id(str(given) if given is not None else base or str(spec))
        facts = [("permanent", oid), ("controller", oid, controller), ("owner", oid, controller)]
        if given is None and name is not None:
            facts.append(("name", oid, name))
        for _p, _s, key, value in fields:
            pred = {
                "name": "name",
                "type": "card_type",
                "subtype": "subtype",
                "supertype": "supertype",
                "color": "color",
                "power": "base_power",
                "toughness": "base_toughness",
                "keyword": "printed_keyword",
            }.get(key)
            if pred is not None:
                facts.append((pred, oid, value))
        for f in spec_facts:  # a keyword with its parameter (token_spec_param(Spec, K, Key, Value))
            if f[0] == "token_spec_param" and f[1] == spec:
                facts += [("printed_keyword", oid, f[2]), ("printed_keyword_param", oid, f[2], f[3], f[4])]
        ch.facts.add(("created", spec, oid))
        _enter(ch, oid, facts, controller=controller, token=True)
        ch.emit("token_created", oid, spec=spec)


# copy_exception(Original, Field, Value) fields (707.9b): the value replaces the copied ones, or is added to them
COPY_EXCEPTIONS = {"color": ("color", True), "power": ("base_power", True), "toughness": ("base_toughness", True)}
COPY_EXCEPTIONS |= {"add_type": ("card_type", False), "add_subtype": ("subtype", False)}


def p_create_copy(ch: Change, original: Arg, controller: Arg, n: Arg, *, spec_facts: list[tuple] | None = None) -> None:
    """Tokens that copy ``original``'s copiable values (707.2); a card that has left the battlefield is copied
    as it last existed there (608.2h: the copiable values the move kept with it, card_value). The rules'
    copy_exception facts for ``original`` are exceptions to the copy, part of its copiable values (707.9b)."""
    count = n if isinstance(n, int) else 1
    if ch.is_permanent(original):
        added = {(f[1], f[2]) for f in ch.facts if f[0] == "added_subtype"}
        copiable = [
            f
            for f in object_facts(ch, original)
            if f[0] in COPIABLE and not (f[0] == "subtype" and (f[1], f[2]) in added)
        ]
    else:
        kept = [f for f in ch.all("card_value", original) if f[2] in COPIABLE]
        _require(
            bool(kept),
            f"{original} is not on the battlefield, and no copiable values of it are kept (a token that left, or "
            "no such object): it can't be copied (707.2, 608.2h)",
        )
        copiable = [(str(f[2]), original) + tuple(f[3 : 3 + KEPT_IN_ZONE[str(f[2])] - 1]) for f in kept]
    exceptions = [f[2:] for f in spec_facts or () if f[0] == "copy_exception" and f[1] == original]
    for field, _value in exceptions:
        _require(field in COPY_EXCEPTIONS, f"copy_exception field {field!r} is not one of {sorted(COPY_EXCEPTIONS)}")
    replaced = {COPY_EXCEPTIONS[field][0] for field, _value in exceptions if COPY_EXCEPTIONS[field][1]}
    copiable = [f for f in copiable if f[0] not in replaced]
    excepted = dict.fromkeys((COPY_EXCEPTIONS[field][0], original, value) for field, value in exceptions)
    copiable += [f for f in excepted if f not in copiable]
    name = next((f[2] for f in copiable if f[0] == "name"), str(original))
    for _ in range(max(count, 0)):
        oid = ch.token_id(name)
        facts = [("permanent", oid), ("controller", oid, controller), ("owner", oid, controller)]
        facts += [(f[0], oid) + f[2:] for f in copiable]
        ch.facts.add(("created", original, oid))
        _enter(ch, oid, facts, controller=controller, token=True)
        ch.emit("token_created", oid, copy_of=original)


def _recorded(ch: Change, pred: Arg, a: Arg, b: Arg) -> tuple:
    arity = ch.inputs.get(pred)
    _require(arity in RECORDED_ARITIES, f"record/forget need an input predicate of arity 1 or 2, not {pred!r}")
    return (pred, a) if arity == 1 else (pred, a, b)


def p_record(ch: Change, pred: Arg, a: Arg, b: Arg) -> None:
    """Assert a designation the rules declared as an input predicate (e.g. a block, who had first strike),
    with what the interface says recording it gives and the event it is."""
    fact = _recorded(ch, pred, a, b)
    if _assert_designation(ch, fact) or (ch.face is not None and fact[0] in ch.face.repeats):
        _record_event(ch, fact, "record")


def p_record_plain(ch: Change, pred: Arg, a: Arg, b: Arg) -> None:
    """Assert a designation as ``record`` does, with the plain event ``recorded`` whatever event a record of it
    is declared to be: a creature put onto the battlefield attacking (508.4) is attacking but was never
    declared as an attacker, so it doesn't "attack"."""
    fact = _recorded(ch, pred, a, b)
    if _assert_designation(ch, fact):
        ch.emit("recorded", fact[0], fact=str(Fact(*fact)))


def _assert_designation(ch: Change, fact: tuple) -> bool:
    """Assert ``fact`` and what the interface says recording it gives; False if it already held."""
    if fact in ch.facts:
        return False
    made = ch.face.recorded(fact) if ch.face is not None else [fact]
    for f in made:
        if f[0] in ch.inputs:
            ch.facts.add(f)
    return True


def p_forget(ch: Change, pred: Arg, a: Arg, b: Arg) -> None:
    fact = _recorded(ch, pred, a, b)
    if fact not in ch.facts:
        return
    for f in ch.face.forgotten(fact) if ch.face is not None else [fact]:
        ch.facts.discard(f)
    _record_event(ch, fact, "forget")


def _record_event(ch: Change, fact: tuple, change: str) -> None:
    declared = ch.face.record_events.get((fact[0], change)) if ch.face is not None else None
    if declared is not None:
        kind, detail = declared  # a designation of one object (renowned, saddled) is its event with no detail
        ch.emit(kind, fact[1], **({detail: fact[2]} if len(fact) == 3 else {}))
    else:
        ch.emit("recorded" if change == "record" else "forgotten", fact[0], fact=str(Fact(*fact)))


def p_forget_all(ch: Change, pred: Arg, _b: Arg, _c: Arg) -> None:
    """Remove every fact of an input predicate (e.g. "until end of turn" effects ending). The event ``ended``
    of the predicate says which facts ended (``facts``, e.g. ``damage_marked(bears, 3)``: the 3 damage
    marked on bears, not a count) and how many (``n``)."""
    _require(pred in ch.inputs, f"forget_all needs an input predicate, not {pred!r}")
    gone = sorted((f for f in ch.facts if f[0] == pred), key=fact_order)
    for f in gone:
        ch.facts.discard(f)
    if gone:
        ch.emit("ended", pred, n=len(gone), facts="; ".join(str(Fact(*f)) for f in gone))


def p_begin_effect(ch: Change, spec: Arg, o: Arg, duration: Arg, *, spec_facts: list[tuple]) -> None:
    """Start a continuous effect (CR 611.2) on ``o``: a fresh id, its timestamp (613.7b: the number of the
    event that starts it) and the values of ``effect_spec(spec, Key, Value)`` as they are now (608.2h)."""
    if not (ch.is_permanent(o) or ch.is_player(o)):
        return  # 611.2c: the affected objects are fixed as the effect begins; this one is gone
    values = [(f[2], f[3]) for f in spec_facts if f[0] == "effect_spec" and f[1] == spec]
    if not values:
        raise ActionError(
            f"begin_effect {format_value(spec)}: no effect_spec({format_value(spec)}, Key, Value) fact says what "
            "the effect does",
            hint="derive effect_spec facts under the same spec name as the begin_effect, holding in the same step "
            "(rules/core/continuous.dl lists the keys)",
        )
    numbers = ch.face.number_keys if ch.face is not None else frozenset()
    for key, value in values:
        if key in numbers and (not isinstance(value, int) or isinstance(value, bool)):
            raise ActionError(
                f"begin_effect {format_value(spec)}: effect_spec({format_value(spec)}, {key}, {format_value(value)}) "
                f"gives {key} a value that is not a number",
                hint=f"{key} is a number (effect_key_number); derive it with arithmetic or a count, e.g. "
                f"effect_spec({format_value(spec)}, {key}, X) :- ..., X = N * 2",
            )
    eid = ch.fresh_id("effect")
    ch.facts.add(("continuous_effect", eid, spec, o, duration))
    # 611.2c, 613.7b: the spec begun on several objects at once is one effect on a set: one timestamp for all
    ch.facts.add(("effect_timestamp", eid, ch.effect_stamps.setdefault(spec, ch.next_seq + len(ch.events))))
    for key, value in values:
        ch.facts.add(("effect_value", eid, key, value))
    ch.emit("effect_began", eid, spec=spec, object=o, duration=duration)


def p_end_effect(ch: Change, eid: Arg, _b: Arg, _c: Arg) -> None:
    gone = [f for f in ch.facts.matching("continuous_effect", (eid,))]
    if not gone:
        return
    for f in object_facts(ch, eid):
        ch.facts.discard(f)
    ch.emit("effect_ended", eid)


def p_signal(ch: Change, kind: Arg, subject: Arg, _c: Arg) -> None:
    ch.emit(str(kind), subject)


def p_lose_game(ch: Change, p: Arg, why: Arg, _c: Arg) -> None:
    """A player loses the game once: two state-based actions that make them lose at once (0 life and ten
    poison counters, 704.5a and 704.5c) give one event, with the first reason in the order they are applied."""
    if ("lost_game", p) in ch.facts:
        return
    ch.facts.add(("lost_game", p))
    ch.emit("loses_game", p, because=why)


def p_end_turn(ch: Change, _a: Arg, _b: Arg, _c: Arg) -> None:
    """The turn ends; which effects end with it is said by rules (forget_all effects of end_turn)."""
    ch.emit("turn_ended", "game")


PRIMITIVES: dict[str, Callable[[Change, Arg, Arg, Arg], None]] = {
    "put_counters": p_put_counters,
    "remove_counters": p_remove_counters,
    "mark_damage": p_mark_damage,
    "deal_damage": p_deal_damage,
    "prevent_damage": p_prevent_damage,
    "lose_life": p_lose_life,
    "gain_life": p_gain_life,
    "move": lambda ch, o, z, why: p_move(ch, o, z, why),
    "destroy": p_destroy,
    "gain_control": p_gain_control,
    "tap": p_tap,
    "untap": p_untap,
    "add_subtype": p_add_subtype,
    "grant_keyword": p_grant_keyword,
    "remove_keyword": p_remove_keyword,
    "set_type": p_set_type,
    "remove_from_combat": p_remove_from_combat,
    "put_onto_battlefield": p_put_onto_battlefield,
    "create_copy": p_create_copy,
    "lose_game": p_lose_game,
    "end_turn": p_end_turn,
    "record": p_record,
    "record_plain": p_record_plain,
    "forget": p_forget,
    "forget_all": p_forget_all,
    "end_effect": p_end_effect,
    "signal": p_signal,
    "cease_to_exist": p_cease_to_exist,
    "return_to_battlefield": p_return_to_battlefield,
}


def apply_primitive(ch: Change, prim: str, a: Arg, b: Arg, c: Arg, *, spec_facts: list[tuple]) -> None:
    if prim == "create_token":
        p_create_token(ch, a, b, c, spec_facts=spec_facts)
        return
    if prim in ("begin_effect", "create_copy"):
        (p_begin_effect if prim == "begin_effect" else p_create_copy)(ch, a, b, c, spec_facts=spec_facts)
        return
    func = PRIMITIVES.get(prim)
    if func is None:
        raise ActionError(
            f"the rules asked for an unknown effect primitive {prim!r}",
            hint="primitives: " + ", ".join(sorted(list(PRIMITIVES) + ["begin_effect", "create_token"])),
        )
    func(ch, a, b, c)
