"""A scenario's facts: entries checked against the declarations (judgelog.given_facts): an id that names
nothing (S203) and a fact of a derived predicate (S202) are warned of at their entry, and answered as written;
counters of a kind no rule names are warned of too (S204)."""

from __future__ import annotations

from helpers import run_cli

from judgelog import Engine

BOARD = """\
name: facts entries
players: [alice, bob]
active: alice
objects:
  bears: {card: Grizzly Bears, controller: alice}
facts: ["tapped(baers)", "power(bears, 5)", "tapped(bears)", "life(bob, 7)"]
"""


def test_unknown_ids_and_derived_predicates_are_warned_of_at_their_entry(capsys, tmp_path):
    path = tmp_path / "facts.yaml"
    path.write_text(BOARD, encoding="utf-8")
    run = run_cli(capsys, ["query", path, "tapped(X)"])
    assert run.code == 0 and "baers" in run.out and "bears" in run.out  # answered as written
    # life(bob, 7) beside the board's 20 (life: not given): a second value (S205)
    assert [d[1:] for d in run.diagnostics()] == [
        (6, 9, "warning", "S203"),
        (6, 26, "warning", "S202"),
        (6, 62, "warning", "S205"),
    ]
    assert "did you mean 'bears'?" in run.err
    assert "power is derived by the rules (objects.power, objects.power_switched)" in run.err
    assert "life(bob, 7) is a second value beside life(bob, 20): both hold" in run.err


def test_known_ids_need_no_warning(engine):
    """Players, objects, cards kept in a zone and the subjects of the game's history are known."""
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
            "facts": [
                "card_in_zone(worker, graveyard)",
                "card_value(worker, owner, alice, none, none, none)",
                "event(1, dies, lions)",
                "divided_in_regular_step(lions, bob)",
                "tapped(bears)",
                "lost_game(bob)",
            ],
        }
    )
    assert state.meta.scenario.warnings == []


def test_a_board_from_do_output_loads_back_without_warnings(capsys, tmp_path):
    out = tmp_path / "after.yaml"
    source = Engine.example("combat_declare_and_damage.yaml")
    assert run_cli(capsys, ["do", source, "-o", out]).code == 0
    again = run_cli(capsys, ["query", out, "player(P)"])
    assert again.code == 0 and not [d for d in again.diagnostics() if d[4] in ("S202", "S203")], again.err


def test_counters_of_a_kind_no_rule_names_are_warned_of(capsys, tmp_path):
    """`counters: {p1p2: 1}`: a kind of its own, which counts for nothing (S204, with the nearest kind the
    rules name); the kinds the rules read give no warning."""
    path = tmp_path / "counters.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  bears: {card: Grizzly Bears, controller: alice, counters: {p1p2: 1}}\n"
        "  lions: {card: Savannah Lions, controller: alice, counters: {p1p1: 1, flying: 1}}\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["query", path, "power(bears, P)"])
    assert run.code == 0, run.err
    assert [d[1:] for d in run.diagnostics()] == [(4, 68, "warning", "S204")], run.err  # at the kind
    assert "'p1p2' counters on bears: no rule names this kind of counter" in run.err
    assert "did you mean 'p1p1'?" in run.err


def test_a_subtype_the_rules_do_not_know_is_warned_of_at_its_entry(capsys, tmp_path):
    """`subtypes: [golbin]` is a subtype of its own, which no goblin rule reads (S206, with the nearest subtype
    of the CR's lists); the CR's subtypes of every card type and a word a loaded rule writes give none."""
    path = tmp_path / "subtypes.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  gob: {name: Goblin Piker, types: [creature], subtypes: [golbin, warrior], power: 2, toughness: 1,\n"
        "    controller: alice}\n"
        "  gear: {name: Bonesplitter, types: [artifact], subtypes: [equipment], controller: alice}\n"
        "  land: {name: Dryad Arbor, types: [land, creature], subtypes: [forest, dryad], power: 1,\n"
        "    toughness: 1, controller: alice}\n"
        "  wolf: {name: Wolf, types: [creature], subtypes: [wolf], power: 2, toughness: 2, controller: bob,\n"
        "    keywords: [{protection: {subtype: goblin}}, {protection: {subtype: elfs}}]}\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["query", path, "has_subtype(gob, T)"])
    assert run.code == 0 and "golbin" in run.out, run.err  # answered as written
    codes = [d[1:] for d in run.diagnostics() if d[4] == "S206"]
    assert codes == [(4, 59, "warning", "S206"), (10, 49, "warning", "S206")], run.err  # at each misspelt entry
    assert "subtype 'golbin' of 'gob' is not a subtype the rules know" in run.err
    assert "did you mean 'goblin'?" in run.err
    assert "subtype 'elfs' in the parameter of protection is not a subtype the rules know" in run.err
    assert "did you mean 'elf'?" in run.err


def test_every_subtype_of_the_catalog_is_one_the_rules_know(engine):
    """The catalog's cards give no S206: each of their subtypes is in a subtype vocabulary (a typo in
    facts/cards.yaml would make every board with the card warn)."""
    known = engine.interface.subtype_words
    assert known and "goblin" in known and "equipment" in known and "golbin" not in known
    unknown = sorted(
        (name, sub)
        for name, card in engine.catalog.cards.items()
        for sub in card.characteristics().get("subtypes", ())
        if sub not in known
    )
    assert unknown == []
