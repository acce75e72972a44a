"""Unit tests of every effect primitive (judgelog.effects), on small sets of facts without rules.

Each primitive is applied to a working copy (``Change``) through ``apply_primitive``, as the runtime does;
the tests check the facts it leaves and the events it emits. ``test_every_primitive_has_a_test`` keeps the
table of tested primitives in step with the module.
"""

import pytest

from judgelog import Engine
from judgelog.change import Change, object_facts
from judgelog.effects import PRIMITIVES, apply_primitive
from judgelog.errors import ActionError
from judgelog.interface import Interface

BOARD = [
    ("player", "p1"),
    ("player", "p2"),
    ("life", "p1", 20),
    ("life", "p2", 20),
    ("permanent", "bear"),
    ("card_type", "bear", "creature"),
    ("controller", "bear", "p1"),
    ("owner", "bear", "p1"),
    ("name", "bear", "Grizzly Bears"),
    ("base_power", "bear", 2),
    ("base_toughness", "bear", 2),
    ("subtype", "bear", "bear"),
    ("permanent", "wall"),
    ("card_type", "wall", "creature"),
    ("controller", "wall", "p2"),
    ("owner", "wall", "p2"),
]

TESTED = set()


def covers(*names):
    """Mark a test as the test of the primitives ``names``."""
    TESTED.update(names)
    return lambda func: func


def change(*extra, inputs=None, face=None, combat=(), pending=None) -> Change:
    return Change(BOARD + list(extra), pending or {}, inputs, face=face, combat=combat)


def apply(ch: Change, prim: str, a="none", b="none", c="none", spec_facts=()) -> Change:
    apply_primitive(ch, prim, a, b, c, spec_facts=list(spec_facts))
    return ch


def events(ch: Change):
    return [(kind, subject, details) for kind, subject, details in ch.events]


def face(*, symmetric=(), implies=(), record_events=None, repeats=()) -> Interface:
    return Interface(
        keywords=frozenset(),
        keyword_forms={},
        keyword_prefixes={},
        keyword_how={},
        card_types=(),
        colors=(),
        fields=(),
        symmetric=frozenset(symmetric),
        implies=tuple(implies),
        record_events=dict(record_events or {}),
        primitives={},
        repeats=frozenset(repeats),
    )


@covers("put_counters", "remove_counters")
def test_counters_are_put_added_up_and_removed_down_to_none():
    ch = apply(change(), "put_counters", "bear", "p1p1", 2)
    apply(ch, "put_counters", "bear", "p1p1", 1)
    assert ch.all("counter", "bear") == [("counter", "bear", "p1p1", 3)]
    apply(ch, "remove_counters", "bear", "p1p1", 5)  # up to N: only the three there are removed
    assert ch.all("counter", "bear") == []
    assert events(ch) == [
        ("counters_put", "bear", {"kind": "p1p1", "n": 2}),
        ("counters_put", "bear", {"kind": "p1p1", "n": 1}),
        ("counters_removed", "bear", {"kind": "p1p1", "n": 3}),
    ]
    apply(ch, "remove_counters", "bear", "p1p1", 1)
    apply(ch, "put_counters", "p2", "poison", 0)
    assert len(ch.events) == 3  # removing none and putting none are no events


def test_counters_go_only_on_permanents_players_and_cards_in_zones():
    with pytest.raises(ActionError, match="not a permanent, a player or a card in a zone"):
        apply(change(), "put_counters", "ghost", "p1p1", 1)


def test_a_cards_counters_in_a_zone_go_as_it_changes_zones():
    # 122.1: a card in exile can have counters (suspend's time counters); 122.2, 400.7: they go as it moves on,
    # to another zone or to the battlefield
    bolt = [("card_in_zone", "bolt", "exile"), ("card_value", "bolt", "owner", "p1", "none", "none", "none")]
    ch = apply(change(*bolt), "put_counters", "bolt", "time", 2)
    assert ch.all("counter", "bolt") == [("counter", "bolt", "time", 2)]
    apply(ch, "remove_counters", "bolt", "time", 1)
    assert ch.all("counter", "bolt") == [("counter", "bolt", "time", 1)]
    apply(ch, "move", "bolt", "graveyard")
    assert ch.all("counter", "bolt") == [] and ("card_in_zone", "bolt", "graveyard") in ch.facts
    ch = apply(change(*bolt), "put_counters", "bolt", "time", 1)
    apply(ch, "return_to_battlefield", "bolt", "p1", "exile")
    assert ch.is_permanent("bolt") and ch.all("counter", "bolt") == []


@covers("mark_damage")
def test_marked_damage_adds_up_on_permanents_only():
    ch = apply(change(), "mark_damage", "bear", 1)
    apply(ch, "mark_damage", "bear", 2)
    apply(ch, "mark_damage", "p1", 2)  # a player has no marked damage
    apply(ch, "mark_damage", "bear", 0)
    assert ch.all("damage_marked", "bear") == [("damage_marked", "bear", 3)]
    assert ch.all("damage_marked", "p1") == []
    assert [e[2]["n"] for e in events(ch)] == [1, 2]


@covers("deal_damage")
def test_dealing_damage_is_an_event_only():
    ch = apply(change(), "deal_damage", "bear", "p2", 2)
    apply(ch, "deal_damage", "bear", "ghost", 2)  # no such target: nothing happens
    apply(ch, "deal_damage", "bear", "wall", 0)
    assert ch.facts == set(BOARD)  # what damage does, the rules say (CR 120.3)
    assert events(ch) == [("damage_dealt", "bear", {"to": "p2", "n": 2})]


@covers("prevent_damage")
def test_prevented_damage_is_an_event_and_nothing_is_dealt():
    ch = apply(change(), "prevent_damage", "bear", "wall", 3)
    apply(ch, "prevent_damage", "bear", "ghost", 2)  # no such recipient: nothing happens
    apply(ch, "prevent_damage", "bear", "p2", 0)
    assert ch.facts == set(BOARD)
    assert events(ch) == [("damage_prevented", "bear", {"to": "wall", "n": 3})]


@covers("lose_life", "gain_life")
def test_life_is_lost_and_gained_by_players():
    ch = apply(change(), "lose_life", "p1", 3)
    apply(ch, "gain_life", "p1", 1)
    apply(ch, "gain_life", "bear", 1)  # not a player
    apply(ch, "lose_life", "p2", -4)  # not a positive amount
    assert ch.value("life", "p1") == 18 and ch.value("life", "p2") == 20
    assert events(ch) == [("life_lost", "p1", {"n": 3}), ("life_gained", "p1", {"n": 1})]


@covers("move")
def test_a_moved_permanent_loses_every_fact_about_it():
    ch = apply(change(("tapped", "bear"), ("blocking", "wall", "bear")), "move", "bear", "exile", "none")
    kept = {f for f in object_facts(ch, "bear") if f[0] in ("card_in_zone", "card_value")}
    assert set(object_facts(ch, "bear")) == kept  # as a permanent it is gone (400.7) ...
    assert ("card_in_zone", "bear", "exile") in kept  # ... the card is in exile, with its owner and copiable
    assert ("card_value", "bear", "owner", "p1", "none", "none", "none") in kept  # values (not tapped)
    assert ("card_value", "bear", "base_power", 2, "none", "none", "none") in kept
    assert ("blocking", "wall", "bear") in ch.facts  # facts naming it elsewhere: the rules forget them
    assert events(ch) == [("moved", "bear", {"to": "exile"})]


def test_a_move_keeps_what_the_rules_said_the_permanent_was_as_its_last_known_information():
    ch = change(("tapped", "bear"))
    ch.last_known = {"bear": [("keyword", "lifelink", "none"), ("controller", "p1", "none")]}
    apply(ch, "move", "bear", "graveyard", "none")
    assert set(ch.all("last_known", "bear")) == {  # 608.2h: kept beside the card's copiable values
        ("last_known", "bear", "keyword", "lifelink", "none"),
        ("last_known", "bear", "controller", "p1", "none"),
    }
    apply(ch, "return_to_battlefield", "bear", "p1", "graveyard")
    ch.last_known = {"bear": [("controller", "p2", "none")]}  # the new object, under another player's control
    apply(ch, "move", "bear", "exile", "none")  # it leaves again: the first object's record goes with it
    assert ch.all("last_known", "bear") == [("last_known", "bear", "controller", "p2", "none")]


def test_a_creature_moved_to_a_graveyard_dies_and_a_token_is_noted_in_its_zone():
    ch = apply(change(("token", "bear")), "move", "bear", "graveyard", "none")
    assert [e[0] for e in events(ch)] == ["moved", "dies"]
    assert ("token_in_zone", "bear", "graveyard") in ch.facts  # it ceases to exist when the rules say
    with pytest.raises(ActionError, match="unknown zone 'moon'"):
        apply(change(), "move", "wall", "moon", "none")
    assert apply(change(), "move", "ghost", "moon", "none").events == []  # not on the battlefield: no-op


def test_a_move_the_rules_replace_puts_the_permanent_into_the_other_zone_once_and_says_so():
    ch = change(("token", "bear"))
    ch.instead = {("bear", "graveyard"): ("exile", "rest_in_peace"), ("bear", "exile"): ("hand", "other")}
    apply(ch, "move", "bear", "graveyard", "sacrificed")  # 614.1a: exiled instead; 614.5: not asked again
    assert events(ch) == [
        (
            "moved",
            "bear",
            {"to": "exile", "why": "sacrificed", "instead_of": "graveyard", "replacement": "rest_in_peace"},
        )
    ]  # 614.6: the event is the one that happened: no dies (700.4), as it did not go to a graveyard
    assert ("token_in_zone", "bear", "exile") in ch.facts  # a token: it ceases to exist when the rules say
    ch = apply(change(), "destroy", "bear", "none", "none")  # no replacement: as ever
    assert [e[0] for e in events(ch)] == ["destroyed", "dies"] and ("card_in_zone", "bear", "graveyard") in ch.facts
    ch = change()
    ch.instead = {("bear", "graveyard"): ("exile", "unearth")}
    apply(ch, "destroy", "bear", "none", "none")  # a destruction's move is replaced the same way
    assert events(ch) == [("destroyed", "bear", {"to": "exile", "instead_of": "graveyard", "replacement": "unearth"})]


def test_a_card_in_a_zone_moves_to_another_zone_keeping_its_copiable_values():
    ch = apply(change(("tapped", "bear")), "move", "bear", "hand", "none")  # say, bounced to its owner's hand
    values = ch.all("card_value", "bear")
    apply(ch, "move", "bear", "graveyard", "discarded")  # a discard (701.9a): from the hand to the graveyard
    assert ch.all("card_in_zone", "bear") == [("card_in_zone", "bear", "graveyard")]
    assert ch.all("card_value", "bear") == values and values != []
    assert events(ch)[-1] == ("moved", "bear", {"to": "graveyard", "why": "discarded", "from": "hand"})
    n = len(ch.events)
    apply(ch, "move", "bear", "graveyard", "none")  # already there: nothing happens
    assert len(ch.events) == n
    with pytest.raises(ActionError, match="unknown zone 'moon'"):
        apply(ch, "move", "bear", "moon", "none")


@covers("return_to_battlefield")
def test_a_card_returns_from_its_zone_as_a_new_permanent():
    ch = change(
        ("tapped", "bear"),
        ("counter", "bear", "p1p1", 2),
        ("printed_keyword_param", "bear", "landwalk", "land_with", "swamp"),
    )
    apply(ch, "move", "bear", "graveyard", "none")
    apply(ch, "return_to_battlefield", "bear", "p1", "exile")  # not in exile: nothing happens (603.6)
    assert ch.is_permanent("bear") is False and len(ch.events) == 2
    apply(ch, "return_to_battlefield", "bear", "p2", "graveyard")
    assert ch.is_permanent("bear") and ch.value("controller", "bear") == "p2" and ch.value("owner", "bear") == "p1"
    assert ("printed_keyword_param", "bear", "landwalk", "land_with", "swamp") in ch.facts
    assert ch.all("counter", "bear") == [] and ("tapped", "bear") not in ch.facts  # a new object (400.7)
    assert ch.all("card_in_zone") == [] and ch.all("card_value") == []
    assert events(ch)[-1] == ("enters", "bear", {"controller": "p2", "token": "false"})
    apply(ch, "move", "bear", "graveyard", "none")
    with pytest.raises(ActionError, match="not a player"):
        apply(ch, "return_to_battlefield", "bear", "bear", "graveyard")


@covers("cease_to_exist")
def test_a_token_outside_the_battlefield_ceases_to_exist():
    ch = apply(change(("token", "bear")), "move", "bear", "exile", "none")
    apply(ch, "cease_to_exist", "bear")
    apply(ch, "cease_to_exist", "bear")  # gone already: no second event
    assert ch.all("token_in_zone") == []
    assert [e[0] for e in events(ch)] == ["moved", "ceased_to_exist"]


def test_a_move_keeps_why_and_a_token_keeps_its_last_known_values():
    """why (sacrificed) is a detail of the moved event; a token that ceased to exist keeps its card_value facts,
    its last known information for an ability of it still on the stack (608.2h)."""
    ch = apply(change(("token", "bear")), "move", "bear", "graveyard", "sacrificed")
    assert events(ch)[0] == ("moved", "bear", {"to": "graveyard", "why": "sacrificed"})
    apply(ch, "cease_to_exist", "bear")
    assert ("card_value", "bear", "card_type", "creature", "none", "none", "none") in ch.facts
    assert ch.all("card_in_zone") == [] and not ch.is_permanent("bear")


@covers("destroy")
def test_destroy_moves_to_the_graveyard_as_the_event_destroyed():
    ch = apply(change(), "destroy", "wall")
    assert not ch.is_permanent("wall")
    assert events(ch) == [("destroyed", "wall", {"to": "graveyard"}), ("dies", "wall", {})]


@covers("gain_control")
def test_gaining_control_removes_from_combat():
    ch = change(("attacking", "bear", "p2"), combat=("attacking",))
    apply(ch, "gain_control", "bear", "p2")
    assert ch.value("controller", "bear") == "p2" and ch.all("attacking", "bear") == []
    assert events(ch) == [
        ("removed_from_combat", "bear", {"because": "control_change"}),
        ("control_changed", "bear", {"to": "p2", "previous": "p1"}),
    ]
    apply(ch, "gain_control", "bear", "p2")
    assert len(ch.events) == 2  # already its controller: nothing changes
    with pytest.raises(ActionError, match="not a player"):
        apply(ch, "gain_control", "bear", "bear")
    with pytest.raises(ActionError, match="not a permanent"):
        apply(ch, "gain_control", "p1", "p2")


@covers("tap", "untap")
def test_tap_and_untap_change_only_what_is_not_so_already():
    ch = apply(change(), "tap", "bear")
    apply(ch, "tap", "bear")
    apply(ch, "untap", "wall")
    assert ("tapped", "bear") in ch.facts and ("tapped", "wall") not in ch.facts
    apply(ch, "untap", "bear")
    assert ("tapped", "bear") not in ch.facts
    assert [e[0] for e in events(ch)] == ["tapped", "untapped"]


@covers("add_subtype")
def test_an_added_subtype_is_remembered_as_added():
    ch = apply(change(), "add_subtype", "bear", "wolf")
    apply(ch, "add_subtype", "bear", "bear")  # has it already
    assert {("subtype", "bear", "wolf"), ("added_subtype", "bear", "wolf")} <= ch.facts
    assert ("added_subtype", "bear", "bear") not in ch.facts
    assert events(ch) == [("subtype_added", "bear", {"subtype": "wolf"})]


@covers("grant_keyword", "remove_keyword")
def test_granting_and_removing_a_keyword_replace_each_other():
    ch = apply(change(), "grant_keyword", "bear", "flying")
    assert ("granted_keyword", "bear", "flying") in ch.facts
    apply(ch, "remove_keyword", "bear", "flying")
    assert ("granted_keyword", "bear", "flying") not in ch.facts
    assert ("removed_keyword", "bear", "flying") in ch.facts
    apply(ch, "grant_keyword", "bear", "flying")
    assert ("removed_keyword", "bear", "flying") not in ch.facts
    assert [e[0] for e in events(ch)] == ["ability_gained", "ability_lost", "ability_gained"]


@covers("set_type")
def test_set_type_replaces_the_card_types_unless_more():
    ch = apply(change(), "set_type", "bear", "artifact", "first")
    apply(ch, "set_type", "bear", "enchantment", "more")
    assert ch.all("card_type", "bear") == [("card_type", "bear", "artifact"), ("card_type", "bear", "enchantment")]
    apply(ch, "set_type", "bear", "land", "first")
    assert ch.all("card_type", "bear") == [("card_type", "bear", "land")]


@covers("remove_from_combat")
def test_removal_from_combat_takes_every_combat_fact_of_the_object():
    ch = change(
        ("attacking", "bear", "p2"), ("in_band", "bear", "g1"), ("tapped", "bear"), combat=("attacking", "in_band")
    )
    apply(ch, "remove_from_combat", "bear")
    assert ch.all("attacking", "bear") == [] and ch.all("in_band", "bear") == []
    assert ("tapped", "bear") in ch.facts
    apply(ch, "remove_from_combat", "bear")
    assert events(ch) == [("removed_from_combat", "bear", {})]  # not in combat any more: no event


@covers("put_onto_battlefield")
def test_a_pending_object_enters():
    pending = {"spirit": [("permanent", "spirit"), ("controller", "spirit", "p1")]}
    ch = apply(change(("pending_object", "spirit"), pending=pending), "put_onto_battlefield", "spirit", "token")
    assert {("permanent", "spirit"), ("token", "spirit"), ("entered_this_turn", "spirit")} <= ch.facts
    assert ("pending_object", "spirit") not in ch.facts
    assert events(ch) == [("enters", "spirit", {"controller": "p1", "token": "true"}), ("token_created", "spirit", {})]
    with pytest.raises(ActionError, match="no pending object ghost"):
        apply(ch, "put_onto_battlefield", "ghost")


def test_a_card_put_onto_the_battlefield_from_a_zone_leaves_it():
    """400.7, 400.1: a card in exile put onto the battlefield (enter with its id) is a new object there, no longer
    in exile; what was kept of it in the zone (card_value) goes with it, as return_to_battlefield's."""
    ch = apply(change(), "move", "bear", "exile")
    pending = {"bear": [("permanent", "bear"), ("controller", "bear", "p2"), ("name", "bear", "Grizzly Bears")]}
    assert ("card_in_zone", "bear", "exile") in ch.facts  # the card is in exile ...
    ch = apply(Change([*ch.facts, ("pending_object", "bear")], pending), "put_onto_battlefield", "bear", "card")
    assert ch.is_permanent("bear") and ch.value("controller", "bear") == "p2"
    assert ch.all("card_in_zone") == [] and ch.all("card_value") == []  # ... and is no longer there (400.1)


@covers("create_token")
def test_tokens_are_made_from_their_spec_with_fresh_ids():
    spec = [
        ("token_spec", "soldier", "name", "Soldier"),
        ("token_spec", "soldier", "power", 1),
        ("token_spec", "soldier", "type", "creature"),
        ("token_spec", "other", "power", 9),
    ]
    ch = apply(change(("permanent", "soldier_1")), "create_token", "soldier", "p2", 2, spec_facts=spec)
    assert ch.created == [("permanent", "soldier_2"), ("permanent", "soldier_3")]
    assert object_facts(ch, "soldier_2") == sorted(
        [
            ("base_power", "soldier_2", 1),
            ("card_type", "soldier_2", "creature"),
            ("controller", "soldier_2", "p2"),
            ("entered_this_turn", "soldier_2"),
            ("name", "soldier_2", "Soldier"),
            ("owner", "soldier_2", "p2"),
            ("permanent", "soldier_2"),
            ("token", "soldier_2"),
        ],
        key=repr,
    )
    assert ("created", "soldier", "soldier_3") in ch.facts
    assert [e[0] for e in events(ch)] == ["enters", "token_created"] * 2


def test_a_token_spec_param_gives_the_token_a_keyword_with_its_parameter():
    """token_spec_param(Spec, K, Key, Value): the token has K with that parameter (printed_keyword and
    printed_keyword_param, as {K: {Key: Value}} gives a scenario's object); another spec's does not count."""
    spec = [
        ("token_spec", "wolves", "name", "Wolves"),
        ("token_spec_param", "wolves", "kw", "name", "Wolves"),
        ("token_spec_param", "other", "kw", "name", "Other"),
    ]
    ch = apply(change(), "create_token", "wolves", "p1", 1, spec_facts=spec)
    (wolf,) = [oid for _, oid in ch.created]
    assert ch.all("printed_keyword", wolf) == [("printed_keyword", wolf, "kw")]
    assert ch.all("printed_keyword_param", wolf) == [("printed_keyword_param", wolf, "kw", "name", "Wolves")]


@covers("create_copy")
def test_a_copy_takes_copiable_values_but_not_added_subtypes_or_status():
    ch = apply(
        change(("tapped", "bear"), ("subtype", "bear", "wolf"), ("added_subtype", "bear", "wolf")),
        "create_copy",
        "bear",
        "p2",
        1,
    )
    (copy,) = [oid for _, oid in ch.created]
    assert copy == "grizzly_bears_1"
    assert ch.value("name", copy) == "Grizzly Bears" and ch.value("controller", copy) == "p2"
    assert ch.all("subtype", copy) == [("subtype", copy, "bear")]
    assert ("tapped", copy) not in ch.facts and ("token", copy) in ch.facts
    assert events(ch)[-1] == ("token_created", copy, {"copy_of": "bear"})
    with pytest.raises(ActionError, match="not on the battlefield, and no copiable values of it are kept"):
        apply(ch, "create_copy", "ghost", "p1", 1)


@covers("create_copy")
def test_a_card_that_left_is_copied_as_it_last_existed():
    """608.2h, 707.2: a myriad ability resolving after its creature died still makes copies of it, from the
    copiable values the move kept with the card (card_value); its owner is not copied."""
    ch = apply(change(), "move", "bear", "graveyard")
    ch = apply(ch, "create_copy", "bear", "p2", 1)
    (copy,) = [oid for _, oid in ch.created]
    assert ch.value("name", copy) == "Grizzly Bears" and ch.value("base_power", copy) == 2
    assert ch.value("owner", copy) == "p2" and ("token", copy) in ch.facts


@covers("create_copy")
def test_a_copys_exceptions_replace_or_add_to_its_copiable_values():
    """707.9b: "a copy, except it's a 4/4 black Zombie" (eternalize): the colors and base power and toughness
    given replace the copied ones, a subtype is added; only copies of that original take them, and a field the
    primitive doesn't know refuses the action, naming the fields."""
    exceptions = [("copy_exception", "bear", f, v) for f, v in [("color", "black"), ("power", 4), ("toughness", 4)]]
    exceptions += [("copy_exception", "bear", "add_subtype", "zombie"), ("copy_exception", "other", "power", 9)]
    ch = apply(change(("color", "bear", "green")), "create_copy", "bear", "p1", 1, spec_facts=exceptions)
    (copy,) = [oid for _, oid in ch.created]
    assert ch.all("color", copy) == [("color", copy, "black")]
    assert (ch.value("base_power", copy), ch.value("base_toughness", copy)) == (4, 4)
    assert sorted(f[2] for f in ch.all("subtype", copy)) == ["bear", "zombie"]
    bad = [("copy_exception", "bear", "mana_cost", "none")]
    with pytest.raises(ActionError, match="copy_exception field 'mana_cost' is not one of"):
        apply(change(), "create_copy", "bear", "p1", 1, spec_facts=bad)


@covers("record", "forget")
def test_record_and_forget_follow_the_declared_interface():
    declared = face(
        symmetric=["paired_with"],
        implies=[("blocking", 1, "blocked")],
        record_events={("paired_with", "record"): ("paired", "partner")},
    )
    inputs = {"paired_with": 2, "blocking": 2, "blocked": 1, "marked": 1}
    ch = change(inputs=inputs, face=declared)
    apply(ch, "record", "paired_with", "bear", "wall")
    assert {("paired_with", "bear", "wall"), ("paired_with", "wall", "bear")} <= ch.facts
    apply(ch, "record", "blocking", "wall", "bear")
    assert ("blocked", "bear") in ch.facts
    apply(ch, "record", "marked", "bear")
    assert ("marked", "bear") in ch.facts
    apply(ch, "record", "marked", "bear")  # there already: no second event
    apply(ch, "forget", "paired_with", "wall", "bear")
    assert ch.all("paired_with") == []
    assert events(ch) == [
        ("paired", "bear", {"partner": "wall"}),
        ("recorded", "blocking", {"fact": "blocking(wall, bear)"}),
        ("recorded", "marked", {"fact": "marked(bear)"}),
        ("forgotten", "paired_with", {"fact": "paired_with(wall, bear)"}),
    ]
    with pytest.raises(ActionError, match="input predicate of arity 1 or 2"):
        apply(ch, "record", "life", "p1", 3)  # not an input predicate


@covers("record")
def test_record_of_a_fact_that_holds_is_an_event_again_only_when_declared_to_repeat():
    """702.122b: a creature crews a Vehicle each time it is tapped for its crew cost, though the fact holds once."""
    declared = face(
        record_events={
            ("crews_vehicle", "record"): ("crews", "vehicle"),
            ("blocking", "record"): ("blocks", "attacker"),
        },
        repeats=["crews_vehicle", "marked"],
    )
    ch = change(inputs={"crews_vehicle": 2, "blocking": 2, "marked": 1}, face=declared)
    for _ in range(2):
        apply(ch, "record", "crews_vehicle", "bear", "copter")
        apply(ch, "record", "blocking", "wall", "bear")  # not declared to repeat: one event
        apply(ch, "record", "marked", "bear")  # repeats with the plain event when no event is declared
        apply(ch, "record_plain", "crews_vehicle", "bear", "copter")  # record_plain: no event for a fact that holds
    assert ch.all("crews_vehicle") == [("crews_vehicle", "bear", "copter")]
    crews = ("crews", "bear", {"vehicle": "copter"})
    marked = ("recorded", "marked", {"fact": "marked(bear)"})
    assert events(ch) == [crews, ("blocks", "wall", {"attacker": "bear"}), marked, crews, marked]


@covers("record", "forget")
def test_a_declared_event_of_a_one_object_designation_has_no_detail():
    """702.171b: recording saddled(O), a designation of one object, is the event record_event declares (it was
    the plain `recorded` event, the declaration silently ignored); its detail word names nothing."""
    declared = face(record_events={("saddled", "record"): ("becomes_saddled", "none")})
    ch = change(inputs={"saddled": 1}, face=declared)
    apply(ch, "record", "saddled", "bear")
    apply(ch, "forget", "saddled", "bear")  # no forget event declared: the plain one
    assert events(ch) == [("becomes_saddled", "bear", {}), ("forgotten", "saddled", {"fact": "saddled(bear)"})]


@covers("record_plain")
def test_record_plain_records_like_record_with_the_plain_event():
    declared = face(
        implies=[("attacking", 0, "in_combat_marker")],
        record_events={("attacking", "record"): ("attacks", "target")},
    )
    ch = change(inputs={"attacking": 2, "in_combat_marker": 1}, face=declared)
    apply(ch, "record_plain", "attacking", "angel", "p2")  # 508.4: attacking, but it never attacked
    apply(ch, "record_plain", "attacking", "angel", "p2")  # there already: no second event
    apply(ch, "record", "attacking", "geist", "p2")  # a declared attacker: the declared event
    assert {("attacking", "angel", "p2"), ("in_combat_marker", "angel"), ("in_combat_marker", "geist")} <= ch.facts
    assert events(ch) == [
        ("recorded", "attacking", {"fact": "attacking(angel, p2)"}),
        ("attacks", "geist", {"target": "p2"}),
    ]
    with pytest.raises(ActionError, match="input predicate of arity 1 or 2"):
        apply(ch, "record_plain", "life", "p1", 3)


@covers("forget_all")
def test_forget_all_clears_an_input_predicate():
    ch = change(
        ("granted_keyword", "bear", "flying"), ("granted_keyword", "wall", "reach"), inputs={"granted_keyword": 2}
    )
    apply(ch, "forget_all", "granted_keyword")
    apply(ch, "forget_all", "granted_keyword")
    assert ch.all("granted_keyword") == []
    facts = "granted_keyword(bear, flying); granted_keyword(wall, reach)"
    assert events(ch) == [("ended", "granted_keyword", {"n": 2, "facts": facts})]
    with pytest.raises(ActionError, match="needs an input predicate"):
        apply(ch, "forget_all", "life")


@covers("begin_effect", "end_effect")
def test_a_continuous_effect_begins_with_its_values_then_ends():
    spec = [("effect_spec", "giant_growth", "power", 3), ("effect_spec", "other", "power", 1)]
    ch = change()
    ch.next_seq = 7
    apply(ch, "tap", "bear")
    apply(ch, "begin_effect", "giant_growth", "bear", "end_of_turn", spec_facts=spec)
    apply(ch, "begin_effect", "giant_growth", "ghost", "end_of_turn", spec_facts=spec)  # 611.2c: gone
    assert object_facts(ch, "effect_1") == [
        ("continuous_effect", "effect_1", "giant_growth", "bear", "end_of_turn"),
        ("effect_timestamp", "effect_1", 8),
        ("effect_value", "effect_1", "power", 3),
    ]
    apply(ch, "end_effect", "effect_1")
    apply(ch, "end_effect", "effect_1")
    assert object_facts(ch, "effect_1") == []
    assert [e[0] for e in events(ch)] == ["tapped", "effect_began", "effect_ended"]


@covers("signal", "lose_game", "end_turn")
def test_signal_lose_game_and_end_turn_are_events():
    ch = apply(change(), "signal", "combat_ended", "game")
    apply(ch, "lose_game", "p2", "no_life")
    apply(ch, "end_turn")
    assert ("lost_game", "p2") in ch.facts
    assert events(ch) == [
        ("combat_ended", "game", {}),
        ("loses_game", "p2", {"because": "no_life"}),
        ("turn_ended", "game", {}),
    ]


def test_an_unknown_primitive_is_refused_with_the_list():
    with pytest.raises(ActionError, match="unknown effect primitive 'explode'") as info:
        apply(change(), "explode", "bear")
    assert "create_token" in info.value.hint and "tap" in info.value.hint


def test_every_primitive_has_a_test():
    assert TESTED == set(PRIMITIVES) | {"create_token", "begin_effect"}


@pytest.mark.slow
def test_a_counter_kind_written_plus_one_plus_one_in_a_rule_is_a_p1p1_counter(tmp_path):
    """Scenarios accept "+1/+1" for p1p1; a rule's put_counters or remove_counters effect does too, so that the
    counters it puts change power and toughness (613.4c) instead of making a kind of their own."""
    from helpers import creature

    rules = tmp_path / "pump.dl"
    rules.write_text(
        "action_known(pump). action_param(pump, object).\n"
        "@name pump.counters\n@cr 122.1a\n"
        'effect(1, put_counters, O, "+1/+1", 2) :- action(pump), act_arg(object, O).\n'
        "@name pump.remove\n@cr 122.1a\n"  # (put_counters comes first in the step: effects by primitive name)
        'effect(1, remove_counters, O, "+1/+1", 1) :- action(pump), act_arg(object, O).\n'
    )
    state = Engine(rules=[str(rules)]).state_from_dict(
        {"players": ["alice", "bob"], "objects": {"bear": creature("Bear", 2, 2, "alice")}}
    )
    after, _ = state.apply({"do": "pump", "object": "bear"})
    assert after.query("counter(bear, K, N)") == [{"K": "p1p1", "N": 1}]
    assert after.query("power(bear, P)") == [{"P": 3}]
