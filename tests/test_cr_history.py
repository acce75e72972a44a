"""The CR renumbering history (facts/cr_history.yaml) and reading numbers in a named edition."""

from __future__ import annotations

import re

import pytest
from helpers import run_cli
from paths import ROOT

from judgelog.cr import any_cites, check_edition, meanings, numbered_in, resolve, shipped_history, topic_of
from judgelog.errors import UsageError
from judgelog.library import load_program
from judgelog.testing import check_expect


def _cited_rule_numbers():
    program = load_program([]).program
    cited = {c for r in program.rules for c in r.cites}
    return {re.match(r"^(\d{3}\.\d+)", c).group(1) for c in cited if re.match(r"^\d{3}\.\d+", c)}


def test_every_cited_rule_has_a_history_entry():
    nows = {t.now.rstrip("abcdefghijklmnopqrstuvwxyz") for t in shipped_history().topics}
    missing = sorted(_cited_rule_numbers() - nows)
    assert not missing, f"add these to facts/cr_history.yaml: {missing}"


def test_histories_are_ordered_and_end_before_the_current_number():
    for topic in shipped_history().topics:
        starts = [n.start for n in topic.was] + ([topic.since] if topic.since else [])
        assert starts == sorted(starts), topic.name
        assert all(n.number != topic.now for n in topic.was), topic.name


def test_a_number_is_read_in_the_current_edition_unless_an_edition_is_named():
    assert resolve("702.19") == "702.19"
    assert resolve("702.19j", "2010-07-01") == "702.22j"
    assert resolve("702.21k", "2020-01-24") == "702.22k"
    assert resolve("702.19b", "2015-01-01") == "702.19b"  # trample had the number by then
    assert resolve("701.44a", "2024-01-01") == "701.47a"
    assert numbered_in("702.22k", "2012-05-01") == "702.20k"
    assert numbered_in("510.1c", "2012-05-01") == "510.1c"
    assert {m.topic for m in meanings("702.19")} >= {"banding"}
    assert topic_of("702.19b").name == "trample"


def test_editions_are_checked():
    with pytest.raises(UsageError, match="not a date"):
        check_edition("last year")
    with pytest.raises(UsageError, match="older than"):
        check_edition("1994-04-01")
    with pytest.raises(UsageError, match="not a date"):
        check_edition("2099-13-45")
    assert check_edition("2012-05") == "2012-05" and check_edition("2012-05-01") == "2012-05-01"


def test_cites_of_a_banding_proof_do_not_match_trample_number(state_band):
    proof = state_band.explain("damage_assigner(wurm, bob)")
    assert not any_cites("702.19", proof.all_cites())
    assert any_cites("702.19", proof.all_cites(), "2010-07-01")
    assert check_expect(state_band, {"explain": "damage_assigner(wurm, bob)", "cites": "702.19j"}) is not None
    assert (
        check_expect(
            state_band, {"explain": "damage_assigner(wurm, bob)", "cites": "702.19j", "cr_edition": "2010-07-01"}
        )
        is None
    )


@pytest.fixture
def state_band():
    from judgelog import Engine

    return Engine().load(str(ROOT / "docs" / "examples" / "band.yaml"))


def test_rules_cr_lists_trample_for_702_19_and_says_what_it_was(capsys):
    run = run_cli(capsys, ["rules", "--cr", "702.19"])
    assert run.code == 0
    names = re.findall(r"^  (\S+)  \[CR", run.out, re.MULTILINE)
    # read as trample (the current CR): trample's rules and the combat rules trample's check asks (lethal
    # damage, rules/core/combat.dl), never banding's
    assert any(n.startswith("trample.") for n in names), names
    # (and the combat rule by which a blocked trampler with no blockers left deals its damage, 702.19d, and the
    # one refusing a blocker's damage to a player, trample being an attacking creature's, 702.19a)
    allowed = ("trample.", "combat.lethal_", "combat.deal_damage_with_no_", "combat.blocker_division_bad_recipient")
    assert all(n.startswith(allowed) for n in names), names
    assert "702.19 was banding in CR 2009-07-11 to 2011-05-01 (now 702.22)" in run.out
    # the list is of the current CR's 702.19: said first, so that the old meaning does not read as a warning
    assert run.out.startswith("CR 702.19 is read as numbered in the current CR (2026-01-16, where it is trample).")


def test_rules_cr_of_a_number_that_meant_another_rule_once_says_it_is_read_now(capsys):
    # 702.70 is poisonous in the current CR and was changeling in 2009-2011: the old meaning alone read as
    # "you cited the wrong rule" to a designer citing poisonous
    run = run_cli(capsys, ["rules", "--cr", "702.70a"])
    first, second = run.out.splitlines()[:2]
    assert first == "CR 702.70a is read as numbered in the current CR (2026-01-16, where it is poisonous)."
    assert second == "  In older editions CR 702.70 was changeling in CR 2009-07-11 to 2011-05-01 (now 702.73)."
    assert "--cr-edition" in run.out


def test_rules_cr_in_an_old_edition(capsys):
    run = run_cli(capsys, ["rules", "--cr", "702.21k", "--cr-edition", "2020-01-24"])
    assert run.code == 0
    assert "CR 702.21k as numbered in CR 2020-01-24 is 702.22k now: banding." in run.out
    names = re.findall(r"^  (\S+)  \[CR", run.out, re.MULTILINE)
    # banding's rules, and the record of a division made by another player than the controller (702.22j-k)
    assert "banding.blocking_banding" in names
    # (and who divides, and a refusal that says so, when it is another player than the controller: 702.22j-k)
    combat = (
        "combat.record_another_divider_",
        "combat.divided_by_another_player",
        "combat.division_required_of_",
        "combat.blocker_division_required_of_",
    )
    assert all(n.startswith(("banding.", *combat)) for n in names), names
    bad = run_cli(capsys, ["rules", "--cr", "702.21k", "--cr-edition", "2020-1-24"])
    assert bad.code == 2 and "not a date" in bad.err and "Traceback" not in bad.err


def test_a_number_that_meant_another_rule_then_is_not_read_as_the_same_rule(capsys):
    # in 2015 soulbond was 702.94: 702.95 named a rule the history does not record, not soulbond
    assert resolve("702.95", "2015-01-01") is None
    assert resolve("702.94", "2015-01-01") == "702.95"
    assert resolve("702.22", "2010-07-01") is None and resolve("701.34", "2021-01-01") is None
    assert resolve("702.2c", "2012-05-01") == "702.2c"  # deathtouch: the same number in every edition
    assert resolve("510.1c", "2012-05-01") is None  # its history is kept for the current edition only
    run = run_cli(capsys, ["rules", "--cr", "702.95", "--cr-edition", "2015-01-01"])
    assert run.code == 1
    assert "soulbond, 702.95 now, was 702.94 in that edition" in run.out
    assert "same number" not in run.out and "soulbond." not in run.out
    none = run_cli(capsys, ["rules", "--cr", "702.19j"])
    assert none.code == 1 and "Rules citing CR 702.19j:\n  (none)" in none.out


def test_a_cites_expectation_in_an_edition_where_the_number_meant_another_rule_fails(state_band):
    wanted = {"explain": "damage_assigner(wurm, bob)", "cites": "702.22j", "cr_edition": "2010-07-01"}
    message = check_expect(state_band, wanted)
    assert message is not None and "banding, 702.22 now, was 702.19 in that edition" in message


def test_explain_shows_the_numbers_of_an_old_edition(capsys):
    run = run_cli(
        capsys,
        [
            "explain",
            str(ROOT / "docs" / "examples" / "band.yaml"),
            "damage_assigner(wurm, bob)",
            "--cr-edition",
            "2012-05-01",
        ],
    )
    assert run.code == 0
    # 506.2 and 508.5 are recorded in the current edition only: not claimed to be the same then
    assert run.out.rstrip().endswith(
        "As numbered in CR 2012-05-01: 702.22j was 702.20j, 506.2, 508.5 not recorded in that edition."
    )


def test_a_sub_rule_letter_of_a_rule_whose_letters_shifted_is_not_read_in_an_old_edition(capsys):
    """122.1, 603.2 and 704.5 kept their numbers while letters were inserted among their sub-rules: 122.1d was
    the loyalty-counter rule in July 2022 (stun counters became 122.1d in September), 704.5v the commander
    damage rule in 2020. Such a sub-rule is unknown in an old edition unless it has an entry of its own."""
    assert resolve("122.1d", "2022-07-08") is None
    assert resolve("122.1d", "2023-01-01") == "122.1d"  # stun counters' own entry: since 2022-09
    assert resolve("704.5v", "2020-01-22") is None
    assert resolve("704.5g", "2020-01-22") == "704.5g"  # lethal damage: its own stable entry
    assert resolve("122.1", "2020-01-22") == "122.1"  # the rule itself is stable
    assert resolve("509.5", "2021-01-01") == "509.3"  # becoming blocked, renumbered 2024-11-08
    run = run_cli(capsys, ["rules", "--cr", "603.2h", "--cr-edition", "2024-11-08"])
    assert "the letters of 603.2's sub-rules (triggered abilities) changed across editions" in run.out
    state = run_cli(capsys, ["rules", "--cr", "122.1d", "--cr-edition", "2022-07-08"]).out
    assert "has had that number since CR 2022-09" in state
    # explain names the cites it cannot number in that edition instead of calling them the same
    scenario = ROOT / "facts" / "scenarios" / "stun_counter_untap_step.yaml"
    out = run_cli(capsys, ["explain", scenario, "untap_replaced(elves)", "--cr-edition", "2022-07-08"]).out
    assert "122.1d, 614.1a not recorded in that edition" in out and "the same numbers" not in out


def test_rules_cr_with_something_that_is_not_a_rule_number_is_a_usage_error(capsys):
    run = run_cli(capsys, ["rules", "--cr", "abc"])
    assert run.code == 2 and "--cr 'abc' is not a CR rule number" in run.err
    assert run_cli(capsys, ["rules", "--cr", "702.22k."]).code == 0  # a trailing full stop, as the CR writes it
