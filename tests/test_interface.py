"""The rule-declared interface (rules/core/interface.dl): keywords with their parameter grammars, the
scenario fields and what recording a designation gives, read by the loader, the writer and the primitives
from one table, so they cannot disagree.
"""
from __future__ import annotations

import pytest

from judgelog import Engine
from judgelog.errors import ScenarioError

from paths import ROOT


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


BOARD = {"players": ["alice", "bob"], "active": "alice", "objects": {
    "wurm": {"card": "Craw Wurm", "controller": "alice"},
    "bears": {"card": "Grizzly Bears", "controller": "bob"}}}


def _blocked_then_removed(state):
    state, _ = state.apply({"do": "remove_from_combat", "object": "bears"})
    return {q: state.holds(q) for q in ("blocked(wurm)", "unblocked(wurm)", "blocking(bears, wurm)")}


def test_a_block_from_a_file_and_a_declared_block_agree_509_1h(engine):
    """509.1h: an attacker whose only blocker is removed from combat stays blocked, whether the block was
    listed in the scenario's combat: blockers: or declared with declare_blockers."""
    from_file = engine.state_from_dict({**BOARD, "combat": {"attackers": {"wurm": "bob"},
                                                            "blockers": {"bears": ["wurm"]}}})
    declared = engine.state_from_dict({**BOARD, "combat": {"attackers": {"wurm": "bob"}}})
    declared, _ = declared.apply({"do": "declare_blockers", "blockers": {"bears": ["wurm"]}})
    assert from_file.holds("became_blocked(wurm)") and declared.holds("became_blocked(wurm)")
    expected = {"blocked(wurm)": True, "unblocked(wurm)": False, "blocking(bears, wurm)": False}
    assert _blocked_then_removed(from_file) == expected
    assert _blocked_then_removed(declared) == expected


def test_the_writer_uses_the_same_table(engine, tmp_path):
    """A state written by `do -o` loads back to the same facts (fields from the interface table)."""
    state = engine.state_from_dict({**BOARD, "combat": {"attackers": {"wurm": "bob"},
                                                        "blockers": {"bears": ["wurm"]}}})
    data = state.to_scenario()
    assert data["combat"] == {"attackers": {"wurm": "bob"}, "blockers": {"bears": ["wurm"]}}
    assert "facts" not in data  # became_blocked(wurm) is given by the blockers: field again
    assert engine.state_from_dict(data).facts == state.facts


def test_keyword_grammar_comes_from_the_rule_files(engine):
    face = engine.interface
    assert face.keyword_forms["fabricate"] == (("number", "n"),)
    assert ("non", "land_without") in face.keyword_prefixes["landwalk"]
    assert {k for f, k in face.keyword_forms["bands_with_other"]} == {"subtype", "supertype", "name"}
    assert face.instances("fabricate") == "each" and face.instances("flying") == "redundant"


def test_a_keyword_with_a_parameter_from_a_rule_file_alone(tmp_path):
    """bushido N (CR 702.45) declared by a user's rule file: {bushido: 2} loads, and its parameter is read."""
    rules = tmp_path / "bushido.dl"
    rules.write_text(
        "## Bushido N (CR 702.45), declared as data.\n"
        "keyword(bushido).\nkeyword_param_form(bushido, number, n).\nkeyword_instances(bushido, each).\n"
        ".decl bushido_n(o: object, n: int) \"{o} has bushido {n}\"\n"
        "@name bushido.n\n@cr 702.45a\n"
        "bushido_n(O, N) :- keyword_param(O, bushido, n, N).\n")
    engine = Engine(rules=[str(rules)])
    state = engine.state_from_dict({"players": ["alice"], "objects": {"samurai": {
        "name": "Samurai", "types": ["creature"], "power": 2, "toughness": 2, "keywords": [{"bushido": 2}]}}})
    assert state.query("bushido_n(samurai, N)") == [{"N": 2}]
    with pytest.raises(ScenarioError) as err:
        engine.state_from_dict({"players": ["alice"], "objects": {"samurai": {
            "name": "Samurai", "types": ["creature"], "power": 2, "toughness": 2, "keywords": ["bushido"]}}})
    assert "keyword 'bushido' needs a parameter" in err.value.render()
    assert "{bushido: 2}" in err.value.render()


def test_an_undeclared_keyword_is_an_error_not_ignored(engine):
    with pytest.raises(ScenarioError) as err:
        engine.state_from_dict({"players": ["alice"], "objects": {"x": {
            "name": "X", "types": ["creature"], "power": 1, "toughness": 1, "keywords": ["menace_typo"]}}})
    assert "unknown keyword 'menace_typo'" in err.value.render()


def test_the_interface_file_is_in_the_library():
    assert (ROOT / "rules" / "core" / "interface.dl").is_file()


def test_what_damage_does_is_said_by_rules(engine):
    """deal_damage only records the event; rules/core/damage.dl says what it does (CR 120.3), each result
    attributed to its rule; deathtouch damage destroys a creature (704.5h)."""
    state = engine.state_from_dict({"players": ["alice", "bob"], "active": "alice", "objects": {
        "wurm": {"card": "Craw Wurm", "controller": "alice"},
        "snake": {"name": "Snake", "types": ["creature"], "power": 1, "toughness": 1,
                  "keywords": ["deathtouch"], "controller": "bob"},
        "walker": {"name": "Walker", "types": ["planeswalker"], "controller": "bob",
                   "counters": {"loyalty": 5}}},
        "combat": {"attackers": {"wurm": "walker"}, "blockers": {"snake": ["wurm"]}}})
    after, events = state.apply({"do": "combat_damage", "assign": {"wurm": {"snake": 6}}})
    causes = {(e.kind, e.subject): e.rule for e in events}
    assert causes[("damage_marked", "wurm")] == "damage.to_creature"
    assert causes[("destroyed", "wurm")] == "deathtouch.destroy"
    assert not after.holds("permanent(wurm)") and not after.holds("permanent(snake)")
    loyal = engine.state_from_dict({"players": ["alice", "bob"], "active": "alice", "objects": {
        "wurm": {"card": "Craw Wurm", "controller": "alice"},
        "walker": {"name": "Walker", "types": ["planeswalker"], "controller": "bob",
                   "counters": {"loyalty": 9}}},
        "combat": {"attackers": {"wurm": "walker"}}})
    after, events = loyal.apply({"do": "combat_damage"})
    assert after.query("counter(walker, loyalty, N)") == [{"N": 3}]
    assert [e.rule for e in events if e.kind == "counters_removed"] == ["damage.to_planeswalker"]
