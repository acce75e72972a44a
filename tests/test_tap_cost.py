"""The generic activation cost "tap any number of other untapped creatures you control with total power N or
greater" (rules/actions/activate.dl, 601.2h) serves a keyword the library doesn't have: harness, a made-up
saddle (tests/rules/harness.dl), declares it alone, with no refusal code of its own and no Python."""

from __future__ import annotations

import pytest
from paths import TESTS

from judgelog import Engine
from judgelog.errors import ActionError

BOARD = {
    "players": ["alice", "bob"],
    "active": "alice",
    "objects": {
        "mount": {
            "name": "Mount",
            "types": ["creature"],
            "subtypes": ["horse"],
            "power": 3,
            "toughness": 3,
            "keywords": [{"harness": 3}],
            "controller": "alice",
        },
        "bears": {"card": "Grizzly Bears", "controller": "alice"},
        "elves": {"card": "Llanowar Elves", "controller": "alice"},
        "giant": {"card": "Hill Giant", "controller": "bob"},
    },
}


@pytest.fixture(scope="module")
def state():
    return Engine(rules=[TESTS / "rules" / "harness.dl"]).state_from_dict(BOARD)


def _harness(state, tap):
    return state.apply({"do": "activate", "object": "mount", "ability": "harness", "choose": {"tap": tap}})


def test_a_cost_short_of_n_is_refused_with_the_default_code_and_changes_nothing(state):
    with pytest.raises(ActionError) as refused:
        _harness(state, ["bears"])
    assert "(mount; CR 601.2h)" in str(refused.value) and refused.value.cr == "601.2h"
    assert state.query("tapped(X)") == []


def test_the_options_are_the_other_untapped_creatures_of_its_controller(state):
    for wrong in (["mount", "bears"], ["giant", "bears"]):
        with pytest.raises(ActionError, match=r"legal options: bears, elves"):
            _harness(state, wrong)


def test_paid_the_creatures_are_tapped_as_it_is_activated(state):
    new, events = _harness(state, ["bears", "elves"])
    assert new.query("tapped(X)") == [{"X": "bears"}, {"X": "elves"}]
    assert [e.rule for e in events if e.kind == "tapped"] == ["activate.tap_creatures"] * 2
    assert new.query("activation_tap_power(O, K, N)") == []  # the action's facts are gone
    done, _ = new.apply({"do": "resolve"})
    assert done.query("harnessed(O)") == [{"O": "mount"}] and done.query("tapped(mount)") == []
