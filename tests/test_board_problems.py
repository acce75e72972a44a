"""A board the rules would not allow (board_problem/2, S201): warned of by every verb that loads a scenario
(test included, and in test's JSON document), at the scenario line its proof rests on, while the board is
still answered as written."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli

from judgelog import Engine
from judgelog.validation import board_problems

PAIRS_OF_TWO_CONTROLLERS = """\
name: A pair of two players' creatures
players: [alice, bob]
active: alice
objects:
  forcemage: {card: Trusted Forcemage, controller: alice}
  bears: {card: Grizzly Bears, controller: bob}
pairs: [[forcemage, bears]]
expect:
  - {holds: "paired(forcemage, bears)"}
"""

BOARDS = {
    # label -> (scenario text, subject); the label is the code, or the code after a colon
    "pair_of_two_controllers": (PAIRS_OF_TWO_CONTROLLERS, "forcemage"),
    "paired_twice": (
        """\
name: A creature in two pairs
players: [alice, bob]
active: alice
objects:
  forcemage: {card: Trusted Forcemage, controller: alice}
  bears: {card: Grizzly Bears, controller: alice}
  lions: {card: Savannah Lions, controller: alice}
pairs: [[forcemage, bears], [forcemage, lions]]
""",
        "forcemage",
    ),
    "band_lacks_banding_now": (
        """\
name: A band of two creatures without banding
players: [alice, bob]
active: alice
objects:
  wurm: {card: Craw Wurm, controller: alice}
  bears: {card: Grizzly Bears, controller: alice}
combat:
  attackers: {wurm: bob, bears: bob}
  bands: [[wurm, bears]]
""",
        "band1",
    ),
    "attacks_its_controller": (
        """\
name: A creature attacking its own controller
players: [alice, bob]
active: alice
objects:
  wurm: {card: Craw Wurm, controller: alice}
combat:
  attackers: {wurm: alice}
""",
        "wurm",
    ),
    "attacks_what_cant_be_attacked": (
        """\
name: A creature attacking a creature
players: [alice, bob]
active: alice
objects:
  wurm: {card: Craw Wurm, controller: alice}
  ogre: {card: Hill Giant, controller: bob}
combat:
  attackers: {wurm: ogre}
""",
        "wurm",
    ),
    "lethal_damage_and_zero_life:state_based_action_due": (
        """\
name: A creature with lethal damage and a player at 0 life
players: [alice, bob, carol]
active: alice
life: {carol: 0}
objects:
  bears: {card: Grizzly Bears, controller: alice, damage: 2}
""",
        "bears",
    ),
    "card_in_zone_without_owner": (
        """\
name: A persist trigger of a card in a graveyard with no owner (no card_value facts)
players: [alice, bob]
active: alice
objects:
  bears: {card: Grizzly Bears, controller: alice}
stack:
  - {id: ability_9, source: finks, kind: persist, controller: alice}
facts: ["card_in_zone(finks, graveyard)"]
""",
        "finks",
    ),
    "siege_protected_by_its_controller": (
        """\
name: A Siege its controller protects
players: [alice, bob]
active: alice
objects:
  siege: {name: Siege, types: [battle], subtypes: [siege], controller: alice, protector: alice,
          counters: {defense: 3}}
""",
        "siege",
    ),
    "attachment_illegal": (
        """\
name: An Equipment attached to a land
players: [alice, bob]
active: alice
objects:
  splitter: {card: Bonesplitter, controller: alice}
  forest: {card: Forest, controller: alice}
attachments: {splitter: forest}
""",
        "splitter",
    ),
    "both_kinds_of_counters:state_based_action_due": (
        """\
name: Both kinds of counters on one creature
players: [alice, bob]
active: alice
objects:
  giant: {card: Hill Giant, controller: alice, counters: {p1p1: 2, m1m1: 1}}
""",
        "giant",
    ),
    "phased_out_and_permanent": (
        """\
name: A phased-out creature that is a permanent too
players: [alice, bob]
active: alice
objects:
  breeze: {card: Breezekeeper, controller: alice}
facts: ["phased_out(breeze, alice)"]
""",
        "breeze",
    ),
}


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("label", sorted(BOARDS))
def test_each_board_problem_is_warned_of_with_its_cr(engine, tmp_path, label):
    text, subject = BOARDS[label]
    code = label.rsplit(":", 1)[-1]
    state = engine.load(_write(tmp_path, "board.yaml", text))
    warnings = [w for w in board_problems(state) if f"({subject}; CR " in w.message]
    assert [(w.code, w.severity) for w in warnings] == [("S201", "warning")], board_problems(state)
    assert len(board_problems(state)) == (2 if label.startswith("lethal_damage_and_zero_life") else 1)  # carol too
    # the proof the hint points at holds, and the line is one of the scenario's own
    assert state.explain(("board_problem", code, subject)) is not None
    assert warnings[0].span is not None and warnings[0].span.file.endswith("board.yaml")


def test_the_warning_points_at_the_pairs_entry_and_the_board_is_answered_as_written(engine, tmp_path):
    path = _write(tmp_path, "pairs.yaml", PAIRS_OF_TWO_CONTROLLERS)
    state = engine.load(path)
    (warning,) = board_problems(state)
    assert (warning.span.line, warning.code) == (7, "S201")
    assert state.holds("paired(forcemage, bears)")  # as written: the next action's checks break the pair
    after, _ = state.apply({"do": "tap", "object": "bears"})
    assert not after.holds("paired(forcemage, bears)")


def test_a_board_the_rules_allow_has_no_warning(engine):
    for name in ("soulbond_three_creatures.yaml", "banding_blocked_by_one.yaml", "proliferate_kinds.yaml"):
        assert board_problems(engine.load(Engine.example(name))) == [], name


def test_judgelog_test_prints_the_warning_and_json_lists_it(capsys, tmp_path):
    path = _write(tmp_path, "pairs.yaml", PAIRS_OF_TWO_CONTROLLERS)
    run = run_cli(capsys, ["test", path])
    assert run.code == 0 and "1 passed, 0 failed" in run.out
    assert [d[1:] for d in run.diagnostics()] == [(7, 9, "warning", "S201")]
    doc = run_cli(capsys, ["test", path, "--format", "json"])
    data = json.loads(doc.out)
    assert [(w["code"], w["line"]) for w in data["warnings"]] == [("S201", 7)]


def test_a_board_whose_check_reaches_a_limit_loads_and_gets_no_warning(tmp_path):
    from judgelog.recursion import Limits

    engine = Engine(limits=Limits(join_combinations=1))
    state = engine.load(_write(tmp_path, "pairs.yaml", PAIRS_OF_TWO_CONTROLLERS))
    assert board_problems(state) == []
