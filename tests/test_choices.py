"""judgelog choices: legal options derived from the rules, checked against independent references."""

import pytest
from helpers import creature, upkeep_board

from judgelog import Engine
from judgelog.choices import SpaceKind, list_choices
from judgelog.errors import ActionError, RuleError, UsageError


def _band_board(n_banding, n_plain, quality_wolves=0):
    objects = {}
    attackers = {}
    for i in range(n_banding):
        objects[f"b{i}"] = {"card": "Benalish Hero", "controller": "alice"}
        attackers[f"b{i}"] = "bob"
    for i in range(n_plain):
        objects[f"p{i}"] = {"card": "Grizzly Bears", "controller": "alice"}
        attackers[f"p{i}"] = "bob"
    return {"players": ["alice", "bob"], "objects": objects, "combat": {"attackers": attackers}}


def _partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1 :]


def _reference_count(n_banding, n_plain):
    """702.22c by hand: every group of 2+ has a banding creature and at most one without."""
    items = [("b", i) for i in range(n_banding)] + [("p", i) for i in range(n_plain)]
    total = 0
    for part in _partitions(items):
        ok = all(len(g) == 1 or (any(k == "b" for k, _ in g) and sum(k == "p" for k, _ in g) <= 1) for g in part)
        total += ok
    return total


@pytest.mark.parametrize("n_banding,n_plain", [(2, 1), (3, 2), (2, 3), (4, 2)])
def test_band_groupings_are_counted_exactly(engine, n_banding, n_plain):
    state = engine.state_from_dict(_band_board(n_banding, n_plain))
    data, text = list_choices(state, "bands", limit=5)
    assert data["count"] == _reference_count(n_banding, n_plain)
    assert len(data["groupings"]) == min(5, data["count"])
    assert text.splitlines()[0].startswith(f"bands: {data['count']} legal way(s)")
    for grouping in data["groupings"]:  # every listed grouping really is legal
        members = [a for band in grouping for a in band]
        assert len(members) == len(set(members))
        for band in grouping:
            assert len(band) >= 2 and any(a.startswith("b") for a in band)
            assert sum(a.startswith("p") for a in band) <= 1


def test_blocks_follow_can_block(engine):
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "pegasus": {"card": "Mesa Pegasus", "controller": "alice"},
                "bears": {"card": "Grizzly Bears", "controller": "alice"},
                "wall": {"card": "Grizzly Bears", "controller": "bob"},
                "spider": {"card": "Giant Spider", "controller": "bob"},
            },
            "combat": {"attackers": {"pegasus": "bob", "bears": "bob"}},
        }
    )
    data, _ = list_choices(state, "blocks")
    assert data["can_block"] == {"spider": ["bears", "pegasus"], "wall": ["bears"]}  # flying: only reach
    assert data["count"] == 3 * 2


def test_action_choice_probe(engine):
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "a1": {
                    "name": "Zombie Army",
                    "types": ["creature"],
                    "subtypes": ["zombie", "army"],
                    "power": 0,
                    "toughness": 0,
                    "controller": "alice",
                    "token": True,
                    "counters": {"p1p1": 1},
                },
                "a2": {"card": "Universal Automaton", "controller": "alice"},
                "a3": {"card": "Universal Automaton", "controller": "bob"},
            },
        }
    )
    data, text = list_choices(state, "amass")
    assert data["choice"] == "army" and data["options"] == ["a1", "a2"] and data["cr"].startswith("701.47")
    with pytest.raises(UsageError) as err:
        list_choices(state, "amas")
    assert "did you mean 'amass'" in str(err.value.hint)


ARMY_BOARD = {
    "players": ["alice", "bob"],
    "objects": {"a2": {"card": "Universal Automaton", "controller": "alice"}},
}


def test_the_choices_report_names_the_mode(engine):
    data, text = list_choices(engine.state_from_dict(ARMY_BOARD), "amass")
    assert data["mode"] == "one" and type(data["mode"]) is str  # the JSON output's word
    assert "army — choose exactly one" in text


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_a_space_kind_the_engine_does_not_know_is_an_error_of_the_rules(tmp_path):
    rules = tmp_path / "odd_space.dl"
    rules.write_text('@name odd.space\n@cr 702.22c\nchoice_space(odd, shuffle, "702.22c").\n', encoding="utf-8")
    state = Engine(rules=[str(rules)]).state_from_dict(ARMY_BOARD)
    with pytest.raises(RuleError, match="choice space 'odd' has an unknown kind 'shuffle'") as err:
        list_choices(state, "odd")
    assert err.value.hint == "one of " + ", ".join(k for k in SpaceKind if k is not SpaceKind.ACTION)


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_a_choice_mode_the_runtime_does_not_know_is_an_error_of_the_rules(tmp_path):
    rules = tmp_path / "odd_mode.dl"  # a_choice: asked before the army (decisions are asked in name order)
    rules.write_text(
        "@name odd.mode\n@cr 701.47a\nchoice_mode(a_choice, sometimes) :- amassing(_, _, _, 2).\n",
        encoding="utf-8",
    )
    state = Engine(rules=[str(rules)]).state_from_dict(ARMY_BOARD)
    with pytest.raises(RuleError, match="choice 'a_choice' has an unknown mode 'sometimes'"):
        list_choices(state, "amass")


def _menace_against_two(attacker: str, **more) -> dict:
    """Alice's 3/3 menace creature ``attacker`` and Bob's Grizzly Bears and Savannah Lions."""
    return {
        "players": ["alice", "bob"],
        "active": "alice",
        "objects": {
            attacker: creature(attacker.title(), 3, 3, "alice", "menace"),
            "bears": {"card": "Grizzly Bears", "controller": "bob"},
            "lions": {"card": "Savannah Lions", "controller": "bob"},
        },
        **more,
    }


def test_block_declarations_are_tried_as_declare_blockers(engine):
    """A menace attacker can't be blocked by one creature alone (702.111b), a restriction on the declaration
    as a whole that can_block/2 does not see: choices blocks tries each combination as declare_blockers and
    lists the ones it accepts (choice_space_check), not every combination of can_block."""
    state = engine.state_from_dict(_menace_against_two("brute")).apply(
        {"do": "declare_attackers", "attackers": {"brute": "bob"}}
    )[0]
    data, text = list_choices(state, "blocks")
    assert data["count"] == 2, text
    assert data["declarations"] == [{}, {"bears": "brute", "lions": "brute"}]
    assert "2 legal block declaration(s)" in text


def test_a_refusal_names_each_blockers_options_without_trying_the_declarations(engine, monkeypatch):
    """A refused declare_blockers lists what each creature may block (the space's options); it does not try
    every block declaration as the action to count the legal ones (up to MAX_TRIED runs of the action)."""
    import judgelog.choices as choices
    from judgelog.errors import ActionError

    state = engine.load(engine.example("protection_blocking.yaml"))
    state, _ = state.apply({"do": "declare_attackers", "attackers": {"knight": "bob", "hero": "bob", "warden": "bob"}})
    tried: list = []
    monkeypatch.setattr(choices, "_accepted", lambda *a: tried.append(a) or True)
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "declare_blockers", "blockers": {"wraith": ["knight"]}})
    assert "wraith -> hero" in refused.value.options and "bears -> hero, knight, warden" in refused.value.options
    assert not tried
    data, _ = list_choices(state, "blocks")  # the choices command still tries them
    assert tried and data["count"] == len(tried)


@pytest.mark.parametrize(
    "name", ["protection_blocking.yaml", "menace_two_blockers.yaml", "soulbond_three_creatures.yaml"]
)
def test_the_refusal_check_refuses_what_applying_refuses(engine, name):
    """judgelog.runtime.refusal (what choices asks of each candidate) refuses an action, with the same rules,
    exactly when applying it is refused for what the rules forbid."""
    from judgelog.errors import ActionError
    from judgelog.replay import replay
    from judgelog.runtime import refusal

    state = engine.load(engine.example(name))
    steps = list(replay(state, list(state.meta.scenario.actions)))
    before = [state] + [s.state for s in steps]
    assert steps
    for step, at in zip(steps, before):
        found = refusal(at, step.action)
        if isinstance(step.error, ActionError):
            assert found is not None and found.refused_by == step.error.refused_by, (name, step.index)
            assert found.cr == step.error.cr
            if found.refused_by:  # refused by rules: without the legal options a refusal lists
                assert found.options == () and str(found).startswith(str(step.error).split("; legal options")[0])
        else:
            assert step.error is None and found is None, (name, step.index, found)


def test_an_action_whose_arguments_are_a_decision_points_to_it(engine):
    """`choices S declare_blockers` asked for the action's `choose:` choice and said "nothing to choose now"
    while `choices S blocks` listed legal declarations: the action's blockers are the decision `blocks`
    (choice_space_check), and the answer says so."""
    state = engine.load(engine.example("combat_declare_and_damage.yaml"))
    state, _ = state.apply(state.meta.scenario.actions[2][0])  # attackers and a band declared
    data, text = list_choices(state, "declare_blockers")
    assert data["choice"] is None and data["see"] == ["blocks"]
    assert "its blockers: argument is the decision 'blocks': judgelog choices SCENARIO blocks" in text
    assert list_choices(state, "blocks")[0]["count"] > 1  # what it points to lists the legal declarations


def test_a_word_a_space_declares_as_its_alias_suggests_it(engine):
    """`choices S damage` suggested only deal_damage (the nearest name); the divisions of combat damage are the
    space `divisions`, which declares damage as an alias (choice_space_alias), so the hint names it too."""
    state = engine.load(engine.example("banding_blocked_by_one.yaml"))
    with pytest.raises(UsageError) as err:
        list_choices(state, "damage")
    assert err.value.message == "unknown decision 'damage'"
    assert str(err.value.hint).startswith("did you mean 'deal_damage' or 'divisions'? choices: ")


def test_a_refusal_whose_only_legal_declaration_is_the_empty_one_says_so(engine):
    """A lone creature without flying or reach declared as a blocker of a flier: no option is listed as legal
    but the empty declaration (each combination tried, judgelog.refusals.listed_options)."""
    from judgelog.errors import ActionError

    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "angel": creature("Angel", 2, 2, "alice", "flying"),
                "bears": {"card": "Grizzly Bears", "controller": "bob"},
            },
        }
    )
    state, _ = state.apply({"do": "declare_attackers", "attackers": {"angel": "bob"}})
    with pytest.raises(ActionError) as info:
        state.apply({"do": "declare_blockers", "blockers": {"bears": ["angel"]}})
    assert str(info.value).endswith("(bears; CR 702.9b); legal options: only the empty declaration")


# -- divisions: how each creature's combat damage may be divided (510.1c-d) -----------------------------------
def _splits(total: int, recipients: list[str]):
    """Every division of ``total`` among ``recipients`` (zeros left out), by hand."""
    if len(recipients) == 1:
        yield {recipients[0]: total} if total else {}
        return
    for n in range(total + 1):
        for rest in _splits(total - n, recipients[1:]):
            yield ({recipients[0]: n} if n else {}) | rest


@pytest.mark.slow
def test_divisions_are_the_ones_the_combat_damage_step_accepts():
    """A single blocked attacker: every division the space lists is applied without a refusal, and every
    other division of its power among its recipients is refused."""
    engine = Engine()
    board = {
        "players": ["alice", "bob"],
        "active": "alice",
        "objects": {
            "maw": {"card": "Colossal Dreadmaw", "controller": "alice"},  # 6/6 trample
            "bears": {"card": "Grizzly Bears", "controller": "bob"},
            "spider": {"card": "Giant Spider", "controller": "bob", "damage": 1},
        },
        "combat": {"attackers": {"maw": "bob"}, "blockers": {"bears": ["maw"], "spider": ["maw"]}},
    }
    state = engine.state_from_dict(board)
    data, text = list_choices(state, "divisions", limit=100)
    ((x, recipients),) = data["recipients"].items()
    assert (x, sorted(recipients)) == ("maw", ["bears", "bob", "spider"])
    listed = data["divisions"][x]
    assert data["count"][x] == len(listed) > 1
    everything = list(_splits(data["power"][x], recipients))
    assert len(everything) > len(listed)  # some are refused (the space is not every split)
    for split in everything:
        action = {"do": "combat_damage", "assign": {x: split}}
        if split in listed:
            state.apply(action)
        else:
            with pytest.raises(ActionError):
                state.apply(action)
    assert f"{x} ({data['power'][x]} among {', '.join(recipients)}; by alice)" in text
    assert data["choosers"] == {x: "alice"}  # 510.1c: the attacking player divides (damage_assigner)


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_divisions_say_which_combat_damage_step_they_are_for():
    """With a first striker in combat there are two combat damage steps (510.4): the listing says the step its
    divisions are for, the first-strike one, then, once it is over, the regular one; a combat with no first
    or double strike has one step, which the listing does not name."""
    engine = Engine()
    board = {
        "players": ["alice", "bob"],
        "active": "alice",
        "objects": {
            "knight": creature("Knight", 4, 4, "alice", "double_strike"),
            "bears": {"card": "Grizzly Bears", "controller": "bob"},
            "wall": {"card": "Wall of Stone", "controller": "bob"},
        },
        "combat": {"attackers": {"knight": "bob"}, "blockers": {"bears": ["knight"], "wall": ["knight"]}},
    }
    state = engine.state_from_dict(board)
    _, text = list_choices(state, "divisions", limit=5)
    assert "in the first-strike combat damage step (510.4)" in text.splitlines()[0], text
    after, _ = state.apply(
        {"do": "combat_damage", "step": "first_strike", "assign": {"knight": {"bears": 1, "wall": 3}}}
    )
    _, text = list_choices(after, "divisions", limit=5)
    assert "in the regular combat damage step (510.4)" in text.splitlines()[0], text
    board["objects"]["knight"]["keywords"] = []
    _, text = list_choices(engine.state_from_dict(board), "divisions", limit=5)
    assert "step" not in text.splitlines()[0] and "divided among what it may go to" in text, text


def test_divisions_of_tramplers_keep_lethal_damage_first_and_let_the_defender_keep_all_on_the_bander():
    engine = Engine()
    state = engine.load(engine.example("trample_with_and_without_banding.yaml"))
    data, text = list_choices(state, "divisions", limit=100)
    assert set(data["divisions"]) == {"maw1", "maw2", "maw4"}  # maw3: no blocker left, nothing to divide
    lethal = {"bears": 2, "spider": 3}  # the spider has 1 damage marked (702.19b)
    for split in data["divisions"]["maw1"]:
        if split.get("bob"):
            assert all(split.get(b, 0) >= n for b, n in lethal.items()), split
    assert {"bears": 2, "bob": 1, "spider": 3} in data["divisions"]["maw1"]
    assert {"bob": 6} not in data["divisions"]["maw2"]
    assert {"hero": 6} in data["divisions"]["maw2"]  # Bob divides (702.22j) and may keep it all on the Hero
    assert {"bob": 5, "spider2": 1} in data["divisions"]["maw4"]  # deathtouch: 1 is lethal (702.2c)
    assert "702.19b" in text  # the divisions are tried one creature at a time: said


def test_choices_of_a_refused_action_point_to_the_space_of_its_arguments():
    engine = Engine()
    state = engine.load(engine.example("trample_with_and_without_banding.yaml"))
    with pytest.raises(ActionError) as refused:
        list_choices(state, "combat_damage")
    assert "judgelog choices SCENARIO divisions" in (refused.value.hint or "")
    quiet = engine.load(engine.example("combat_declare_and_damage.yaml"))
    with pytest.raises(UsageError, match="no creature has combat damage to divide"):
        list_choices(quiet, "divisions")


def _menace_and_flier_board(engine):
    """Two attackers (menace; flying) and three blockers (one with reach): 4 x 2 x 2 = 16 combinations."""
    return engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "brute": creature("Brute", 3, 3, "alice", "menace"),
                "bird": creature("Bird", 1, 1, "alice", "flying"),
                "bears": {"card": "Grizzly Bears", "controller": "bob"},
                "lions": {"card": "Savannah Lions", "controller": "bob"},
                "spider": creature("Spider", 2, 4, "bob", "reach"),
            },
        }
    ).apply({"do": "declare_attackers", "attackers": {"brute": "bob", "bird": "bob"}})[0]


@pytest.mark.slow
def test_tries_cuts_the_combinations_tried_and_says_so_and_zero_tries_all(engine):
    """--tries N tries the first N combinations only, and the count says it is theirs; 0 tries every one, and
    the count is then that of every declaration declare_blockers accepts, tried here one by one."""
    import itertools

    state = _menace_and_flier_board(engine)
    data, _ = list_choices(state, "blocks", tries=0, limit=0)
    options = data["can_block"]
    elements = sorted(options)
    accepted = []
    for combo in itertools.product(*[[None] + options[x] for x in elements]):
        blockers = {x: [o] for x, o in zip(elements, combo) if o is not None}
        try:
            state.apply({"do": "declare_blockers", "blockers": blockers})
        except ActionError:
            continue
        accepted.append({x: o for x, o in zip(elements, combo) if o is not None})
    assert data["count"] == len(accepted) and data["declarations"] == accepted
    assert "tried" not in data
    cut, text = list_choices(state, "blocks", tries=5, limit=0)
    assert cut["tried"] == 5 and cut["count"] == len([a for a in accepted if a in cut["declarations"]]) < len(accepted)
    assert f"{cut['count']} legal block declaration(s) among the first 5 combinations" in text
    assert "--tries 0 tries them all" in text
    with pytest.raises(UsageError, match="--tries"):
        list_choices(state, "blocks", tries=-1)


def test_limit_zero_lists_every_declaration(engine):
    state = _menace_and_flier_board(engine)
    every, _ = list_choices(state, "blocks", limit=0)
    two, text = list_choices(state, "blocks", limit=2)
    assert len(every["declarations"]) == every["count"] > 2
    assert two["declarations"] == every["declarations"][:2] and "the first 2:" in text


def test_a_lone_possible_blocker_of_a_menace_creature_is_offered_nothing(engine):
    """702.111b, 509.1b: with one creature that could block a menace attacker, no legal declaration has it
    block: can_block fails and choices blocks offers it nothing for that attacker."""
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "brute": creature("Brute", 3, 3, "alice", "menace"),
                "bears": {"card": "Grizzly Bears", "controller": "bob"},
                "lions": {"card": "Savannah Lions", "controller": "bob", "tapped": True},
            },
        }
    ).apply({"do": "declare_attackers", "attackers": {"brute": "bob"}})[0]
    assert not state.query("can_block(bears, brute)")
    assert state.query("block_pair_allowed(bears, brute)")
    data, text = list_choices(state, "blocks")
    assert data["can_block"] == {} and data["declarations"] == [{}], text
    assert "(no creature can block any attacker now; explain --why-not can_block(B, A) says why for one pair)" in text


def test_attack_declarations_are_the_ones_declare_attackers_accepts(engine):
    """attacks (508.1a-d): each combination of can_attack x legal_attack_target tried as declare_attackers;
    compared with applying every combination (a Juggernaut must attack, a Wall can't, a tapped creature
    can't, a planeswalker may be attacked)."""
    import itertools

    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "jugg": {"card": "Juggernaut", "controller": "alice"},
                "wall": creature("Wall", 0, 4, "alice", "defender"),
                "bears": {"card": "Grizzly Bears", "controller": "alice"},
                "tapped": {"card": "Savannah Lions", "controller": "alice", "tapped": True},
                "walker": {
                    "name": "Walker",
                    "types": ["planeswalker"],
                    "controller": "bob",
                    "counters": {"loyalty": 3},
                },
            },
        }
    )
    data, text = list_choices(state, "attacks", limit=0)
    options = data["can_attack"]
    assert sorted(options) == ["bears", "jugg"] and options["jugg"] == ["bob", "walker"], text
    elements = sorted(options)
    accepted = []
    for combo in itertools.product(*[[None] + options[x] for x in elements]):
        attackers = {x: o for x, o in zip(elements, combo) if o is not None}
        try:
            state.apply({"do": "declare_attackers", "attackers": attackers})
        except ActionError:
            continue
        accepted.append(attackers)
    assert data["declarations"] == accepted and data["count"] == len(accepted) == 6
    assert all("jugg" in a for a in accepted)
    assert "{bears: bob, jugg: walker}" in text


def test_an_action_that_asks_for_no_choice_says_what_it_does_taken_now(engine):
    """`choices S populate` with no creature token to copy: nothing to choose, and taken now it does nothing
    (701.36b); an action that does something lists its events, and a refused one says why."""
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
        }
    )
    data, text = list_choices(state, "populate")
    assert data["choice"] is None and data["taken_now"] == []
    assert "taken now, it does nothing (no event)" in text
    data, text = list_choices(state, "end_turn")
    assert data["taken_now"] and data["taken_now"][-1].startswith(("turn_ended", "more event")), data
    assert "taken now, it does: " in text


def test_a_may_choice_says_what_it_decides_lists_none_and_how_to_give_it(engine):
    """Modular as it resolves: its target was chosen as it went on the stack, and the choice `target` is the
    "you may" (choice_text/2). The refusal of a bare resolve and `choices S resolve` say so, list `none`
    beside the options (it said "choose one or none" and listed only golem) and show how to give it."""
    from judgelog.errors import ActionError

    artifact = {"types": ["artifact", "creature"], "power": 0, "toughness": 0, "controller": "alice"}
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "worker": {**artifact, "name": "Arcbound Worker", "keywords": [{"modular": 1}]},
                "golem": {**artifact, "name": "Golem", "toughness": 2},
            },
        }
    )
    state, _ = state.apply({"do": "sacrifice", "object": "worker"})
    data, text = list_choices(state, "resolve")
    assert data["choice"] == "target" and data["options"] == ["golem"]
    assert data["text"] and data["text"].startswith("you may put the ability's +1/+1 counters on its target")
    assert text.splitlines()[1:] == [
        f"  {data['text']}",
        "  golem",
        "  none",
        "give it as: {do: resolve, choose: {target: golem}} (or another option)",
    ]
    with pytest.raises(ActionError, match=r"a choice is required for target: you may put the ability's \+1/\+1"):
        state.apply({"do": "resolve"})


def test_nothing_to_choose_says_how_to_take_it_and_why_an_option_is_not_offered(engine):
    """Cumulative upkeep of 2 life with 1 life: `pay` is not offered (119.4). `choices S resolve` said "nothing to
    choose now ...; the decisions of a board: attacks, bands, blocks, divisions"; it now says how to give the
    action and why `pay` is not there (choice_unavailable/4)."""
    state = upkeep_board(engine)
    data, text = list_choices(state, "resolve")
    assert data["choice"] is None and [(u["choice"], u["option"], u["cr"]) for u in data["unavailable"]] == [
        ("cumulative_upkeep", "pay", "119.4")
    ]
    assert text.startswith("resolve: nothing to choose now: give {do: resolve} with no choose:; taken now, it does:")
    assert "\n  pay can't be chosen for cumulative_upkeep (CR 119.4): a player can pay life only if" in text
    assert "the decisions of a board" not in text


def test_asking_for_an_ability_on_the_stack_by_its_kind_points_to_resolve(engine):
    """`choices S fabricate` with a fabricate ability on the stack: its choice is the decision `resolve`."""
    from judgelog.errors import UsageError

    state = engine.load(engine.example("fabricate_servos.yaml"))
    state, _ = state.apply(state.meta.scenario.actions[0][0])  # the Enthusiast enters: fabricate triggers
    with pytest.raises(UsageError) as info:
        list_choices(state, "fabricate")
    assert "fabricate is an ability on the stack" in str(info.value.hint) and "'resolve'" in str(info.value.hint)
    assert list_choices(state, "resolve")[0]["choice"] == "mode"


def test_a_board_with_its_blocks_declared_lists_what_else_was_legal(engine):
    """A menace attacker that a scenario's combat: has blocked by two creatures: the declarations listed are
    those legal on their own (choice_space_replaces: the board's blocks are left out as each is tried), not
    one blocker counted with the board's two."""
    combat = {"attackers": {"goblin": "bob"}, "blockers": {"bears": ["goblin"], "lions": ["goblin"]}}
    state = engine.state_from_dict(_menace_against_two("goblin", combat=combat))
    data, _ = list_choices(state, "blocks")
    assert data["count"] == 2 and data["declarations"] == [{}, {"bears": "goblin", "lions": "goblin"}], data


def test_nothing_to_decide_is_a_negative_answer(tmp_path, capsys):
    """`choices divisions` when no creature has damage to divide, and a decision with no legal option, exit 1
    (a negative answer, as the README says of "no answer"), not 2 (a usage error): the question was right."""
    from helpers import run_cli

    from judgelog.errors import NothingToChoose
    from judgelog.exits import EXIT_NEGATIVE, exit_code

    board = tmp_path / "unblocked.yaml"
    board.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  bears: {card: Grizzly Bears, controller: alice}\n  elves: {card: Llanowar Elves, controller: bob}\n"
        "actions:\n  - {do: declare_attackers, attackers: {bears: bob}}\n  - {do: declare_blockers, blockers: {}}\n"
    )
    run = run_cli(capsys, ["choices", str(board), "divisions"])
    assert run.code == 1 and "no creature has combat damage to divide" in run.err
    assert "first-strike step" not in run.err
    # before a first-strike step with nothing to divide, the hint says the others divide in the regular step
    banded = tmp_path / "first_strike_next.yaml"
    banded.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n  pikemen: {card: Pikemen, controller: alice}\n"
        "  wurm: {card: Craw Wurm, controller: alice}\n  bears: {card: Grizzly Bears, controller: bob}\n"
        "actions:\n  - {do: declare_attackers, attackers: {pikemen: bob, wurm: bob}, bands: [[pikemen, wurm]]}\n"
        "  - {do: declare_blockers, blockers: {bears: [wurm]}}\n"
    )
    run = run_cli(capsys, ["choices", str(banded), "divisions"])
    assert run.code == 1 and "hint: the next combat damage step is the first-strike step (510.4)" in run.err, run.err
    # in the declare attackers step (509.1h: nothing blocked or unblocked yet), the hint says to declare blockers,
    # not that an unblocked trampler over planeswalkers would have a division (the case of this board)
    early = tmp_path / "before_blocks.yaml"
    early.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  stomper: {name: Stomper, types: [creature], power: 5, toughness: 5,"
        " keywords: [trample_over_planeswalkers], controller: alice}\n"
        "  walker: {name: Walker, types: [planeswalker], counters: {loyalty: 2}, controller: bob}\n"
        "actions:\n  - {do: declare_attackers, attackers: {stomper: walker}}\n"
    )
    run = run_cli(capsys, ["choices", str(early), "divisions"])
    assert run.code == 1 and "hint: blockers are not declared yet" in run.err and "509.1h" in run.err, run.err
    assert "unless it has trample over planeswalkers" not in run.err
    early.write_text(early.read_text() + "  - {do: declare_blockers, blockers: {}}\n")
    run = run_cli(capsys, ["choices", str(early), "divisions"])
    assert run.code == 0 and "{bob: 3, walker: 2}" in run.out, run.out
    assert exit_code(NothingToChoose("x")) == EXIT_NEGATIVE and issubclass(NothingToChoose, UsageError)
    # a decision with a legal option exits 0, even when that option is to do nothing
    tapped = tmp_path / "tapped.yaml"
    tapped.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  bears: {card: Grizzly Bears, controller: alice, tapped: true}\n"
    )
    run = run_cli(capsys, ["choices", str(tapped), "attacks", "--format", "json"])
    assert run.json()["count"] == 1 and run.code == 0  # attacking with nothing is the one legal declaration


def test_block_declarations_obeying_as_many_requirements_as_can_be_obeyed(engine):
    """509.1c with menace: of two provoke requirements only one can be obeyed; the legal declarations are the
    three that obey one (a judge's trial found none listed: each was refused blocker by blocker)."""
    from paths import SCENARIOS

    from judgelog.replay import run_actions

    state = engine.load(str(SCENARIOS / "menace_two_block_requirements_that_cannot_both_be_obeyed.yaml"))
    state, _ = run_actions(state, limit=3)
    data, _text = list_choices(state, "blocks", limit=0)
    assert data["count"] == 3
    legal = sorted(sorted(d.items()) for d in data["declarations"])
    assert legal == [
        [("bears", "brute"), ("lions", "brute")],
        [("bears", "grappler"), ("lions", "grappler")],
        [("lions", "grappler")],
    ]


def _blocks_before_declaring(engine, scenario, **rules):
    """A bundled scenario's board right after its attackers are declared."""
    from paths import SCENARIOS

    from judgelog.replay import run_actions

    state = (Engine(**rules) if rules else engine).load(str(SCENARIOS / scenario))
    return run_actions(state, limit=1)[0]


@pytest.mark.parametrize(
    "scenario, legal",
    [
        ("lure_all_creatures_able_block.yaml", [{"bbears": "bears", "giant": "bears"}]),
        (
            "lure_two_lured_attackers_and_a_creature_that_blocks_an_additional_one.yaml",
            [{"dragon": ["bears", "lions"]}],
        ),
    ],
)
def test_blocks_once_declared_are_not_listed_again(engine, scenario, legal):
    """509.1c, Lure: before blockers are declared, the one declaration obeying the most requirements is listed;
    once declared (509.1: once per combat), every candidate would be refused for that alone, before the
    requirements are asked, so the listing says so instead of listing each combination (a trial found four
    listed on the Two-Headed Dragon board, nine on the other)."""
    from paths import SCENARIOS

    from judgelog.errors import NothingToChoose
    from judgelog.replay import run_actions

    before = _blocks_before_declaring(engine, scenario)
    data, _ = list_choices(before, "blocks", limit=0)
    assert data["declarations"] == legal, data
    after, _ = run_actions(engine.load(str(SCENARIOS / scenario)))
    with pytest.raises(NothingToChoose) as info:
        list_choices(after, "blocks")
    assert "already been declared" in str(info.value) and "509.1" in str(info.value), info.value


def test_a_creature_that_blocks_an_additional_attacker_is_offered_both_at_once(engine):
    """509.1a/509.1c: two lured attackers and Two-Headed Dragon, which can block an additional creature: the
    one legal declaration has it block both (choice_space_option_most); a judge's trial found none listed, and
    the refusal of a block of one said "legal options: none"."""
    state = _blocks_before_declaring(
        engine, "lure_two_lured_attackers_and_a_creature_that_blocks_an_additional_one.yaml"
    )
    data, text = list_choices(state, "blocks", limit=0)
    assert data["count"] == 1 and data["declarations"] == [{"dragon": ["bears", "lions"]}]
    assert "dragon (up to 2 at once): bears, lions" in text and "  {dragon: [bears, lions]}" in text
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "declare_blockers", "blockers": {"dragon": ["bears"]}})
    assert refused.value.cr == "509.1c" and refused.value.options == ("dragon -> [bears, lions]",)


def test_a_creature_blocks_at_most_as_many_attackers_as_the_rules_say(engine):
    """509.1a: Two-Headed Dragon against three attackers: none, one of them, or two (1 + 3 + 3); never the
    three (a block_limit of 2), which is not even tried."""
    state = _blocks_before_declaring(engine, "block_additional_two_headed_dragon_blocks_at_most_two.yaml")
    data, _text = list_choices(state, "blocks", limit=0)
    assert data["count"] == 7 and "tried" not in data
    sets = [d["dragon"] for d in data["declarations"] if isinstance(d.get("dragon"), list)]
    assert sets == [["bears", "lions"], ["bears", "vanguard"], ["lions", "vanguard"]]


def test_a_creature_that_blocks_any_number_is_offered_every_set_of_attackers(engine, tmp_path):
    """509.1a: a creature that can block any number of creatures (may_block_additional) may block every
    set of the attackers it can block: 2^3 declarations against three."""
    rules = tmp_path / "any_number.dl"
    rules.write_text(
        '@name test.any_number\n@cr 509.1a\nmay_block_additional(O) :- name(O, "Two-Headed Dragon"), creature(O).\n',
        encoding="utf-8",
    )
    state = _blocks_before_declaring(
        engine, "block_additional_two_headed_dragon_blocks_at_most_two.yaml", rules=[str(rules)]
    )
    data, _text = list_choices(state, "blocks", limit=0)
    assert data["count"] == 8 and {"dragon": ["bears", "lions", "vanguard"]} in data["declarations"]


def test_a_choice_with_no_legal_option_says_so(engine):
    """701.36a: populate chooses a creature token; with none (a noncreature Clue token only), the refusal of a
    named token says that no option is legal, not only that this one is not."""
    from judgelog.errors import ActionError

    board = {
        "players": ["alice", "bob"],
        "active": "alice",
        "objects": {"clue": {"name": "Clue", "types": ["artifact"], "token": True, "controller": "alice"}},
    }
    state = engine.state_from_dict(board)
    with pytest.raises(ActionError) as err:
        state.apply({"do": "populate", "player": "alice", "choose": {"token": "clue"}})
    assert str(err.value).endswith("'clue' is not a legal choice for token (CR 701.36a); legal options: none")
    assert err.value.no_options and err.value.options == () and err.value.to_dict()["options"] == []


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_the_command_exits_1_when_there_is_nothing_to_choose_or_no_legal_option(capsys, tmp_path):
    """docs/cli.md: `judgelog choices` exits 1 when the decision has no legal option or nothing to decide now
    (populate with no creature token; proliferate with no counter anywhere), 0 when it lists options."""
    from helpers import run_cli

    board = tmp_path / "board.yaml"
    board.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n  bears: {card: Grizzly Bears, controller: alice}\n",
        encoding="utf-8",
    )
    for what in ("populate", "proliferate"):
        run = run_cli(capsys, ["choices", board, what])
        assert run.code == 1, (what, run.out, run.err)
    counters = tmp_path / "counters.yaml"
    counters.write_text(board.read_text().replace("alice}", "alice, counters: {p1p1: 1}}"), encoding="utf-8")
    run = run_cli(capsys, ["choices", counters, "proliferate"])
    assert run.code == 0 and "bears" in run.out, run.out + run.err


def test_an_action_given_with_its_arguments_lists_the_choice_it_asks_for(engine):
    """`choices S "{do: activate, object: cayth, ability: cayth}"`: the mode of Cayth's modal ability (700.2a);
    `activate` alone, which can't be taken without its object and ability, says how to give them; a decision
    of its own written as an action, and an action that does not parse, are usage errors."""
    state = engine.load(engine.example("cards_cayth_modal_populate_or_proliferate.yaml"))
    data, text = list_choices(state, "{do: activate, object: cayth, ability: cayth}")
    assert data["choice"] == "mode" and data["options"] == ["populate", "proliferate"], data
    assert "CR 700.2a" in text
    with pytest.raises(UsageError) as info:
        list_choices(state, "activate")
    assert "needs ability and object" in info.value.message and "{do: activate, " in str(info.value.hint)
    for bad in ("{do: blocks}", "{do: activate", "{object: cayth}"):
        with pytest.raises(UsageError):
            list_choices(state, bad)


def test_an_option_the_action_creates_is_said_to_be_made_by_it(engine):
    """amass with no Army: the only option is the token the action creates, an id no object of the board has
    yet (choose: can't name it before it exists): choices says so and how to name it (as:), and lists the id
    the action creates, as: included."""
    board = {"players": ["alice", "bob"], "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}}}
    state = engine.state_from_dict(board)
    data, text = list_choices(state, "amass")
    assert data["options"] == ["zombie_army_1"] and data["made_by_the_action"] == ["zombie_army_1"]
    assert "zombie_army_1: made by this action, not on the board yet" in text
    assert "as: new_id, choose: {army: new_id}" in text and "the only option is taken" in text
    data, _ = list_choices(state, "{do: amass, n: 2, as: horde}")
    assert data["options"] == data["made_by_the_action"] == ["horde"]
    after, _ = state.apply({"do": "amass", "n": 2, "as": "horde"})
    assert after.query("army(O)") == [{"O": "horde"}]
    data, text = list_choices(engine.state_from_dict(ARMY_BOARD), "amass")  # an Army of the board: none made
    assert data["made_by_the_action"] == [] and "made by this action" not in text


def test_a_word_the_rules_offer_is_not_said_to_be_made_by_the_action(engine):
    """Cumulative upkeep's `pay` (a word of the rules, choice/2) names nothing of the board: `choices` and a
    refused `choose:` said "pay: made by this action, not on the board yet ... as: new_id" as if it were a
    token the action creates. Only ids that are neither the board's nor the rules' are made by the action."""
    state = upkeep_board(engine).apply({"do": "gain_life", "player": "alice", "n": 10})[0]
    data, text = list_choices(state, "resolve")
    assert data["options"] == ["pay"] and data["made_by_the_action"] == [], data
    assert "made by this action" not in text
    with pytest.raises(ActionError) as info:
        state.apply({"do": "resolve", "choose": {"cumulative_upkeep": "chasm"}})
    assert "legal options: pay, none" in str(info.value) and "made by this action" not in str(info.value)


def test_a_number_the_rules_offer_is_not_said_to_be_made_by_the_action(engine):
    """Riot twice (702.136b) asks how many instances put a counter, `riot_counters`: 0, 1 or 2. choices said
    "0, 1, 2: made by this action, not on the board yet" (the options, turned into text first, named nothing of
    the board): a number is no id an action makes."""
    board = {"players": ["alice", "bob"], "objects": {"rhythm": {"card": "Rhythm of the Wild", "controller": "alice"}}}
    state = engine.state_from_dict(board)
    brute = "{id: brute, name: Brute, types: [creature], power: 3, toughness: 3, keywords: [riot], controller: alice}"
    what = "{do: enter, object: " + brute + "}"
    data, text = list_choices(state, what)
    assert data["choice"] == "riot_counters" and data["options"] == ["0", "1", "2"], data
    assert data["made_by_the_action"] == [] and "made by this action" not in text


def test_a_choice_of_several_is_shown_as_a_list():
    """`judgelog choices` for proliferate (any number, 701.34a) writes its example as a list, the form the
    choice takes: {recipients: [alice]}, not a bare value."""
    state = Engine().load(Engine().example("proliferate_kinds.yaml"))
    data, text = list_choices(state, "proliferate")
    assert data["mode"] == "any" and len(data["options"]) > 1
    assert (
        text.splitlines()[-1]
        == f"give it as: {{do: proliferate, choose: {{recipients: [{data['options'][0]}]}}}} (or other options)"
    )


def test_a_choice_another_one_offers_is_shown_with_the_one_given():
    """Hardened Scales, Doubling Season and Corpsejack Menace on one event: once the first is named, `judgelog
    choices` for the action asks the second (616.1f), and its example keeps the first (without it the action
    would be refused again, asking for the first)."""
    state = Engine().load(Engine().example("cards_hardened_scales_doubling_season_corpsejack_menace_two_choices.yaml"))
    put = '{do: put_counters, target: bears, kind: "+1/+1", n: 1'
    first, _ = list_choices(state, put + "}")
    assert first["choice"] == "amount_replacement_first" and first["options"] == ["menace", "scales", "season"]
    data, text = list_choices(state, put + ", choose: {amount_replacement_first: season}}")
    assert data["choice"] == "amount_replacement_second" and data["options"] == ["menace", "scales"], data
    assert text.splitlines()[-1] == (
        "give it as: {do: put_counters, choose: {amount_replacement_first: season, amount_replacement_second: menace}}"
        " (or another option)"
    )


def test_a_refused_soulbond_pair_names_the_ability_that_is_resolving(engine):
    """Trusted Forcemage's second soulbond ability (702.95a: another creature entered) is resolving and Alice names
    a creature that is not the one that entered. The hint said "soulbond.choice_enters fails at
    soulbond_resolving(I, S, S, P)", the first ability's rule, as if that one were resolving; it names the second
    ability's rule, failing because the ability is not about that creature."""
    board = {
        "players": ["alice", "bob"],
        "objects": {
            "force": {"card": "Trusted Forcemage", "controller": "alice"},
            "bears": {"card": "Grizzly Bears", "controller": "alice"},
        },
    }
    state, _ = engine.state_from_dict(board).apply(
        {"do": "enter", "object": {"id": "lions", "card": "Savannah Lions", "controller": "alice"}}
    )
    with pytest.raises(ActionError) as info:
        state.apply({"do": "resolve", "choose": {"pair": "bears"}})
    assert info.value.options == ("lions", "none")
    hint = str(info.value.hint)
    assert hint.startswith("the rules don't offer it: soulbond.choice_another_enters"), hint
    assert "soulbond_resolving(I, S, bears, P)" in hint, hint
