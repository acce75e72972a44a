"""Card rules live in rules/cards/ (one file per card); a card not modelled in full makes judgelog warn."""

from __future__ import annotations

import re

import pytest
from helpers import run_cli
from paths import ROOT

from judgelog import Engine
from judgelog.catalog import default_catalog

CARDS = ROOT / "rules" / "cards"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def test_one_rule_file_per_card_and_no_rules_in_the_catalog():
    catalog = default_catalog()
    slugs = {_slug(n): n for n in catalog.cards}
    for path in sorted(CARDS.glob("*.dl")):
        assert path.stem in slugs, f"{path.name} names no card of facts/cards.yaml"
        assert path.read_text().startswith(f"## {slugs[path.stem]} ("), path.name
    assert not [n for n, c in catalog.cards.items() if c.rules_text], "card rules belong in rules/cards/"


def test_unmodelled_text_names_catalog_cards():
    face = Engine().interface
    names = set(default_catalog().cards)
    assert face.unmodelled and all(n in names for n, _ in face.unmodelled)


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_scenario_using_an_unmodelled_card_warns(capsys):
    path = ROOT / "facts" / "scenarios" / "fabricate_mentor_of_the_meek.yaml"
    run = run_cli(capsys, ["query", path, "permanent(mentor)"])
    assert run.code == 0
    assert re.search(
        r"fabricate_mentor_of_the_meek\.yaml:\d+:\d+: warning\[S200\]: card 'Mentor of the Meek' "
        r"\(object 'mentor'\) is not modelled in full: you may pay",
        run.err,
    )
    fully = run_cli(capsys, ["query", ROOT / "docs" / "examples" / "band.yaml", "permanent(hero)"])
    assert fully.code == 0 and "S200" not in fully.err
    check = run_cli(capsys, ["check", path])
    assert check.code == 0 and "warning[S200]" in check.out + check.err


def test_a_card_an_action_brings_warns_too(capsys, tmp_path):
    """An unmodelled card that enters by an action (not in objects:) is warned of at the action's card: line,
    by `test` as by the other verbs."""
    path = tmp_path / "thorn.yaml"
    path.write_text(
        "name: Heart of Kiran enters by an action\nplayers: [alice, bob]\nactive: alice\nobjects: {}\n"
        "actions:\n  - {do: enter, object: {id: thorn, card: Heart of Kiran, controller: alice}}\n"
        'expect:\n  - {holds: "permanent(thorn)"}\n',
        encoding="utf-8",
    )
    for verb in (["test"], ["query", "--actions", "0"]):
        argv = [*verb, path] + (["player(P)"] if verb[0] == "query" else [])
        run = run_cli(capsys, argv)
        assert run.code == 0, run.err
        assert [d[1:] for d in run.diagnostics()] == [(6, 43, "warning", "S200")], run.err
        assert "(brought by action[0] enter) is not modelled in full" in run.err


def test_an_inline_object_named_after_a_card_warns_as_the_card_does(capsys, tmp_path):
    """A card's file applies to an object by its name, so an inline object named after a card gets its rules:
    it is warned of as `card:` is (S200), on the board and brought by an action; it had no warning at all."""
    path = tmp_path / "inline.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  m: {name: Mentor of the Meek, types: [creature], power: 2, toughness: 2, controller: alice}\n"
        "  g: {name: Goblin Raider, types: [creature], power: 2, toughness: 2, controller: alice}\n"
        "actions:\n"
        "  - {do: enter, object: {id: te, name: Heart of Kiran, types: [artifact], power: 4, toughness: 4, "
        "controller: alice}}\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["check", path])
    assert run.code == 0, run.err
    out = run.out + run.err
    assert [d[1:] for d in run.diagnostics()] == [(4, 13, "warning", "S200"), (7, 40, "warning", "S200")], out
    assert "card 'Mentor of the Meek' (object 'm', named so inline) is not modelled in full: you may pay" in out
    assert "card 'Heart of Kiran' (brought by action[0] enter, named so inline) is not modelled in full" in out


def test_a_keyword_not_modelled_in_full_warns_where_it_is_written(capsys, tmp_path):
    """A keyword whose rule file states what it does not model (keyword_not_modelled: ravenous's card draw)
    warns (S200) at the keyword, on an object of the board as on one an action brings; a board without it
    does not."""
    face = Engine().interface
    assert ("ravenous" in dict(face.unmodelled_keywords)) and all(
        k in face.keywords for k, _ in face.unmodelled_keywords
    )
    path = tmp_path / "ravenous.yaml"
    path.write_text(
        "name: ravenous twice\nplayers: [alice, bob]\nactive: alice\nobjects:\n"
        "  ooze: {name: Ooze, types: [creature], power: 1, toughness: 1, keywords: [trample, ravenous],"
        " controller: alice}\n"
        "actions:\n  - {do: enter, x: 2, object: {id: hydra, name: Hydra, types: [creature], power: 1,"
        " toughness: 1, keywords: [ravenous], controller: alice}}\n"
        'expect:\n  - {holds: "permanent(hydra)"}\n',
        encoding="utf-8",
    )
    run = run_cli(capsys, ["test", path])
    assert run.code == 0, run.err
    lines = path.read_text().splitlines()
    at = [(n, lines[n - 1].index("ravenous") + 1, "warning", "S200") for n in (5, 7)]  # the keyword's place
    assert [d[1:] for d in run.diagnostics()] == at, run.err
    assert "keyword 'ravenous' (object 'ooze') is not modelled in full: casting it" in run.err
    assert "keyword 'ravenous' (brought by action[0] enter) is not modelled in full" in run.err
    path.write_text(path.read_text().replace("ravenous", "haste").replace("x: 2, ", ""), encoding="utf-8")
    run = run_cli(capsys, ["test", path])
    assert run.code == 0 and "S200" not in run.err, run.err


MANA_COST = re.compile(r"\{(?:[0-9]+|[WUBRGCX])\}[^:.;\"]*:")  # a mana symbol in an activated ability's cost


def test_every_activated_ability_with_a_mana_cost_warns_that_the_mana_is_not_modelled():
    """S200 is told for every mana cost the library leaves unpaid (judgelog has no mana): a card whose printed
    text has an activated ability with a mana symbol in its cost (Drudge Skeletons' "{B}: Regenerate", not
    Royal Assassin's "{T}: Destroy" nor a mana ability's "{T}: add {G}"), and a keyword that is an activated
    ability (outlast's and ninjutsu's costs are mana), states it with card_not_modelled or
    keyword_not_modelled."""
    face = Engine().interface
    slugs = {_slug(n): n for n in default_catalog().cards}
    costly = [slugs[p.stem] for p in sorted(CARDS.glob("*.dl")) if MANA_COST.search(p.read_text().splitlines()[0])]
    assert "Drudge Skeletons" in costly and "Royal Assassin" not in costly and "Llanowar Elves" not in costly
    missing = [n for n in costly if not any(c == n and "mana" in w for c, w in face.unmodelled)]
    assert not missing, f"cards with a mana cost not warned of: {missing}"
    keywords = ROOT / "rules" / "keywords"
    activated = [p.stem for p in sorted(keywords.glob("*.dl")) if f"activated_ability(O, {p.stem}) :-" in p.read_text()]
    assert {"outlast", "ninjutsu", "crew"} <= set(activated)
    unmodelled = dict(face.unmodelled_keywords)
    # crew, saddle, station (702.122a, 702.171a, 702.184a): their whole cost is tapping other creatures, which is
    # paid (activate.dl's tap cost): the files that state activation_tap_cost for their keyword
    no_mana = {k for k in activated if f"activation_tap_cost(O, {k}," in (keywords / f"{k}.dl").read_text()}
    assert {"crew", "saddle"} <= no_mana
    assert not [k for k in activated if k not in no_mana and "mana" not in unmodelled.get(k, "")], unmodelled
    assert not no_mana & set(unmodelled), unmodelled
