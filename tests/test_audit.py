"""``judgelog audit``: the static report on the rule library, the dynamic report on a scenario (rules
fired, defaults displaced, keyword interactions), conflicts of functional predicates (exit code 1, both
derivations named) and ``--diff A B``."""

from __future__ import annotations

import re

import pytest
import yaml
from helpers import run_cli
from paths import SCENARIOS, TESTS

from judgelog import Engine
from judgelog.audit import dependency_graph, run_audit, static_audit
from judgelog.errors import UsageError

BANDING = SCENARIOS / "banding_blocked_by_one.yaml"
CONFLICT = TESTS / "rules" / "conflict.dl"


@pytest.fixture(scope="module")
def static():
    return static_audit(Engine().program)


def test_static_cli_exits_0_and_names_file_interactions(capsys):
    run = run_cli(capsys, ["audit"])
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    reader = lines.index("  rules/keywords/banding.dl reads")
    feeds = [line.strip() for line in lines[reader + 1 :] if line.startswith("    ")]
    assert any(line.startswith("rules/core/combat.dl: ") and "blocked_by" in line for line in feeds)
    run = run_cli(capsys, ["audit", "--format", "json"])
    assert run.code == 0 and "blocked_by" in run.json()["reads"]["rules/keywords/banding.dl"]["rules/core/combat.dl"]


def test_static_defaults_and_their_exceptions(static):
    # a rule with two hooks is listed once per hook (510.1c's default: banding's hook, and 510.1a's zero power)
    defaults = {(d["rule"], d["predicate"]): d for d in static["defaults"]}
    assert ("combat.attacker_damage_divided_by_active_player", "assigns_no_combat_damage") in defaults
    attacker = defaults["combat.attacker_damage_divided_by_active_player", "attacker_division_overridden"]
    assert attacker["cites"] == ["510.1c"]
    assert "banding.blocked_by_banding" in {e["rule"] for e in attacker["exceptions"]}
    blocker = defaults["combat.blocker_damage_divided_by_its_controller", "blocker_division_overridden"]
    assert {"702.22k"} == {c for e in blocker["exceptions"] for c in e["cites"]}


def test_static_defaults_are_hooks_not_conditions(static):
    """A `not P` is a default and its exceptions when P exists to be negated (an exception hook: read by no
    rule but under `not`) or the exception gives the functional head another value (banding); a `not P` that
    tests a condition another file derives (`not creature(X)`, `not lost_all_abilities(O)`) is no such pair."""
    by_pred = {d["predicate"] for d in static["defaults"]}
    assert {"blocks_fliers", "untap_replaced", "lethal_assignment_overridden"} <= by_pred  # hooks
    assert {"attacker_division_overridden", "blocker_division_overridden"} <= by_pred  # read once, positively
    assert not by_pred & {"creature", "lost_all_abilities", "has_keyword", "changed_zones_since", "blocked"}


UNGUARDED = TESTS / "broken_rules" / "unguarded_functional.dl"


@pytest.mark.slow
def test_static_audit_warns_of_a_functional_predicate_derived_without_a_guard(capsys, tmp_path, static):
    """The scenario audit reports a CONFLICT once two values of damage_assigner (functional(s)) hold; the static
    audit said nothing of the rule that makes it. It names the rule, the others it has no guard against and
    the hooks to derive instead (exit 0: a warning, the rules may exclude each other in ways it can't see)."""
    assert static["unguarded_functional"] == []  # the library's rules are defaults and exceptions
    run = run_cli(capsys, ["audit", "--rules", UNGUARDED])
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    at = lines.index("Functional predicates derived without a guard (a CONFLICT where both rules apply): 1")
    # the file as judgelog shows it: relative to the library's checkout, or the path given (an installed library)
    warning = re.sub(r"\S*(?=tests/broken_rules/unguarded_functional\.dl:)", "", lines[at + 1], count=1)
    assert warning.startswith(
        "  warning: damage_assigner is functional(s) but broken.owner_divides [CR 510.1c] "
        "tests/broken_rules/unguarded_functional.dl:8 derives it with no guard against "
        "combat.attacker_damage_divided_by_active_player [CR 510.1c], "
    ), lines[at + 1]
    assert lines[at + 1].endswith(": one s can get 2 values")
    assert lines[at + 2] == (
        "    hint: write it as an exception: derive assigns_no_combat_damage or attacker_division_overridden or "
        "blocker_division_overridden "
        "under its condition, so that the default steps aside"
    )
    (entry,) = run_cli(capsys, ["audit", "--rules", UNGUARDED, "--format", "json"]).json()["unguarded_functional"]
    assert entry["rule"] == "broken.owner_divides" and entry["predicate"] == "damage_assigner"
    assert "banding.defending_player_divides" in {o["rule"] for o in entry["others"]}
    # the scenario audit finds the conflict it warns of
    defender_divides = SCENARIOS / "banding_blocker_defender_divides.yaml"  # 702.22j: bob; the owner: alice
    scenario = run_cli(capsys, ["audit", "--rules", UNGUARDED, "--only", "conflicts", defender_divides])
    assert scenario.code == 1 and "CONFLICT damage_assigner is functional(s)" in scenario.out
    # written as an exception (it reads the hook the default negates), the rule is guarded
    guarded = tmp_path / "guarded.dl"
    guarded.write_text(
        "@name mine.overridden\n@cr 510.1c\nattacker_division_overridden(A) :- blocked(A), owner(A, _).\n"
        "@name mine.owner_divides\n@cr 510.1c\n"
        "damage_assigner(A, P) :- attacker_division_overridden(A), owner(A, P).\n"
    )
    assert run_cli(capsys, ["audit", "--rules", guarded, "--format", "json"]).json()["unguarded_functional"] == []


def test_static_strata_and_dependency_graph(static):
    strata = {p: int(k) for k, preds in static["strata"].items() for p in preds}
    # damage_assigner reads `not attacker_division_overridden`, so it sits in a higher stratum
    assert strata["damage_assigner"] > strata["attacker_division_overridden"] > strata["blocked_by"] - 1
    graph = dependency_graph(Engine().program)
    node = "rule:combat.attacker_damage_divided_by_active_player"
    assert graph.nodes[node]["file"] == "rules/core/combat.dl" and graph.nodes[node]["group"] == "combat"
    assert graph.edges["attacker_division_overridden", node]["negative"] is True
    assert graph.has_edge(node, "damage_assigner")
    assert static["uncited"] == []  # every library rule cites the CR


def test_static_finds_unfireable_uncited_and_undeclared(tmp_path):
    extra = tmp_path / "ghosts.dl"
    extra.write_text(
        '.decl ghost(o: object) "{o} is a ghost"\n'
        '.decl haunted(o: object) "{o} is haunted"\n'
        "@name ghosts.haunted\n"
        "haunted(O) :- ghost(O), creature(O).\n"
    )
    report = static_audit(Engine(rules=[str(extra)]).program)
    assert {"rule": "ghosts.haunted", "at": f"{extra}:4"} in report["uncited"]
    assert {"rule": "ghosts.haunted", "at": f"{extra}:4", "missing": ["ghost"]} in report["never_fire"]
    assert "ghost" in report["never_derived"] and "haunted" in report["never_read"]
    assert all(r["rule"] != "ghosts.haunted" for r in report["waiting"])


@pytest.mark.slow
def test_a_rule_reading_an_extension_point_waits_for_it_and_does_not_count_as_never_firing(tmp_path):
    """extension_point(P) (rules/core/interface.dl): the rules reading P, and those that need what they derive,
    wait for a card or keyword file to derive it; P is not 'declared, never derived' (a mistake) either."""
    extra = tmp_path / "hooks.dl"
    extra.write_text(
        '.decl haunts(o: object) "a card file says {o} haunts"\nextension_point(haunts).\n'
        '.decl haunted(o: object) "{o} is haunted"\n.decl spooky(o: object) "{o} is spooky"\n'
        "@name hooks.haunted\n@cr 100.1\nhaunted(O) :- haunts(O), creature(O).\n"
        "@name hooks.spooky\n@cr 100.1\nspooky(O) :- haunted(O).\n"
    )
    report = static_audit(Engine(rules=[str(extra)]).program)
    waiting = {r["rule"]: r["missing"] for r in report["waiting"]}
    assert waiting["hooks.haunted"] == ["haunts"] and waiting["hooks.spooky"] == ["haunted"]
    assert not any(r["rule"].startswith("hooks.") for r in report["never_fire"])
    assert "haunts" in report["extension_points"] and "haunts" not in report["never_derived"]


def test_dot_option(tmp_path):
    out = tmp_path / "rules.dot"
    data, _, code = run_audit(Engine(), dot=str(out), format="text")
    first = out.read_bytes()
    run_audit(Engine(), dot=str(out), format="text")
    assert code == 0 and data["dot"] == str(out) and out.read_bytes() == first
    assert b'"rule:banding.blocked_by_banding"' in first and b"cluster_rules/keywords/banding.dl" in first


def test_dynamic_rules_fired_and_defaults_overridden(capsys):
    run = run_cli(capsys, ["audit", BANDING, "--format", "json"])
    assert run.code == 0, run.err
    data = run.json()
    fired = {r["rule"]: r["facts"] for r in data["fired"]}
    assert fired["banding.block_propagates_to_band"] == 1  # blocked_by(wurm, bears)
    assert fired["combat.blocked_by_declared"] == 1
    assert "banding.defending_player_divides" not in fired
    assert "banding.defending_player_divides" in data["not_fired"]
    [override] = [o for o in data["overrides"] if o["default"] == "combat.blocker_damage_divided_by_its_controller"]
    assert override["would_give"] == "damage_assigner(bears, bob)"
    assert override["because"] == "blocker_division_overridden(bears)"
    assert override["by"]["rule"] == "banding.blocking_banding" and override["by"]["cites"] == ["702.22k"]
    assert [(i["fact"], i["rule"]) for i in override["instead"]] == [
        ("damage_assigner(bears, alice)", "banding.active_player_divides")
    ]
    assert {"banding", "combat"} <= set(data["keywords"])
    assert ("combat", "banding") in {(i["reader"], i["deriver"]) for i in data["interactions"]}
    assert data["conflicts"] == []
    text = run_cli(capsys, ["audit", BANDING]).out
    assert "Conflicts: none" in text and "combat.blocker_damage_divided_by_its_controller" in text


@pytest.mark.slow
def test_a_displaced_aggregate_default_is_shown_as_the_term_it_would_add(capsys):
    """A default whose head is an aggregate (power_bonus(O, sum(DP)) unless the source lost all its abilities)
    would add a term to a sum, not give a fact: the audit shows that term (it stopped on it: "cannot evaluate
    sum(DP)", exit 2)."""
    run = run_cli(capsys, ["audit", SCENARIOS / "loses_all_abilities_layers.yaml", "--format", "json"])
    assert run.code == 0, run.err
    [override] = [o for o in run.json()["overrides"] if o["default"] == "objects.power_bonus"]
    assert override["would_give"] == "power_bonus(bears, sum(1))"
    assert override["because"] == "lost_all_abilities(angel)"
    assert "instead" not in override


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_conflicting_rule_file_is_an_error_naming_both_derivations(capsys):
    run = run_cli(capsys, ["audit", "--rules", CONFLICT, BANDING])
    assert run.code == 1
    assert "CONFLICT damage_assigner is functional(s)" in run.out
    assert "s = wurm has 2 values" in run.out
    assert "damage_assigner(wurm, alice)  <- combat.attacker_damage_divided_by_active_player [CR 510.1c]" in run.out
    assert "damage_assigner(wurm, bob)  <- test.attacked_player_divides [CR 510.1c]" in run.out
    data = run_cli(capsys, ["audit", "--rules", CONFLICT, BANDING, "--format", "json"]).json()
    wurm = [c for c in data["conflicts"] if c["key"] == {"s": "wurm"}][0]
    assert {v["rule"] for v in wurm["values"]} == {
        "combat.attacker_damage_divided_by_active_player",
        "test.attacked_player_divides",
    }
    assert all(v["proof"]["atom"] == v["fact"] for v in wurm["values"])


NO_HOOK_AUDIT = (
    "audit --only conflicts --rules tests/rules/no_hook.dl facts/scenarios/banding_blocker_defender_divides.yaml"
)


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_displaces_is_said_only_of_the_rule_that_reads_the_exception(capsys, chdir_root):
    """Banding's 702.22j displaces the default 510.1c (its rule reads attacker_division_overridden); a rule with
    no exception hook (tests/rules/no_hook.dl: the controller divides) was said to displace 510.1c too, though
    it would give the very value 510.1c gives and reads no hook. Golden text: tests/golden/no_hook_conflict.txt."""
    run = run_cli(capsys, NO_HOOK_AUDIT.split())
    assert run.code == 1
    assert run.out == (chdir_root / "tests" / "golden" / "no_hook_conflict.txt").read_text(), (
        f"tests/golden/no_hook_conflict.txt differs; if the change is meant, regenerate it with\n"
        f"    judgelog {NO_HOOK_AUDIT} > tests/golden/no_hook_conflict.txt"
    )
    assert run.out.count("displaces combat.attacker_damage_divided_by_active_player") == 1
    values = run_cli(capsys, [*NO_HOOK_AUDIT.split(), "--format", "json"]).json()["conflicts"][0]["values"]
    assert {v["rule"]: "displaces" in v["proof"] for v in values} == {
        "test.controller_divides": False,
        "banding.defending_player_divides": True,
    }


def _without_banding(tmp_path):
    data = yaml.safe_load(BANDING.read_text())
    data.pop("expect", None)
    data["facts"] = ["removed_keyword(hero, banding)"]
    path = tmp_path / "hero_lost_banding.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_diff_shows_the_damage_assigner_changing(capsys, tmp_path):
    other = _without_banding(tmp_path)
    run = run_cli(capsys, ["audit", "--diff", BANDING, other, "--format", "json"])
    assert run.code == 0, run.err
    data = run.json()
    assert data["inputs"] == {"added": ["removed_keyword(hero, banding)"], "removed": []}
    appeared = {e["fact"]: e for e in data["appeared"]}
    disappeared = {e["fact"]: e for e in data["disappeared"]}
    assert appeared["damage_assigner(bears, bob)"]["rule"] == "combat.blocker_damage_divided_by_its_controller"
    assert appeared["damage_assigner(bears, bob)"]["cites"] == ["510.1d"]
    assert disappeared["damage_assigner(bears, alice)"]["rule"] == "banding.active_player_divides"
    assert "has_keyword(hero, banding)" in disappeared
    [change] = [c for c in data["changed"] if c["predicate"] == "damage_assigner"]
    assert change["key"] == {"s": "bears"}
    assert [e["fact"] for e in change["before"]] == ["damage_assigner(bears, alice)"]
    assert [e["fact"] for e in change["after"]] == ["damage_assigner(bears, bob)"]
    text = run_cli(capsys, ["audit", "--diff", BANDING, other]).out
    assert "+ damage_assigner(bears, bob)  <- combat.blocker_damage_divided_by_its_controller [CR 510.1d]" in text
    assert "- damage_assigner(bears, alice)  <- banding.active_player_divides [CR 702.22k]" in text


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_diff_lists_numbers_in_numeric_order(capsys):
    """`event(10, ...)` came before `event(2, ...)`: the diff sorted facts as text. Numbers sort as numbers,
    in words too (effect_2 before effect_10)."""
    a, b = SCENARIOS / "exalted_attacks_alone.yaml", SCENARIOS / "exalted_granted_twice.yaml"
    data = run_cli(capsys, ["audit", "--diff", a, b, "--format", "json"]).json()
    events = [f for f in data["inputs"]["added"] if f.startswith("event(")]
    numbers = [int(f[len("event(") :].split(",")[0]) for f in events]
    assert len(numbers) > 10 and numbers == sorted(numbers)
    assert events.index("event(2, effect_began, effect_2)") < events.index("event(10, effect_began, effect_4)")
    text = run_cli(capsys, ["audit", "--diff", a, b]).out
    assert text.index("+ event(9, resolved, ability_2)") < text.index("+ event(10, effect_began, effect_4)")


def test_scenario_and_diff_together_is_a_usage_error(capsys, tmp_path):
    with pytest.raises(UsageError):
        run_audit(Engine(), scenario=str(BANDING), diff=[str(BANDING), str(BANDING)])
    assert run_cli(capsys, ["audit", BANDING, "--diff", BANDING, BANDING]).code == 2


# -- without noise: only the scenario's rules, internal checks apart, filters, counts that agree -------------
def test_only_rules_that_fired_for_the_scenario(capsys):
    data = run_cli(capsys, ["audit", BANDING, "--format", "json"]).json()
    fired = {r["rule"] for r in data["fired"]}
    groups = {r["group"] for r in data["fired"]}
    assert not groups & {"amass", "soulbond"}  # a pure combat scenario: no amass or soulbond rule
    assert "tokens.default_name" in data["library_only"]  # fired over the library's own facts only (111.4)
    assert "soulbond.unpaired" in data["keyword_not_in_play"]  # every creature is unpaired; none has soulbond
    assert "banding.block_propagates_to_band" in fired
    assert not set(data["library_only"]) & fired and not set(data["keyword_not_in_play"]) & fired


BANDS_WITH_OTHER = """\
name: Only "bands with other Wolves" in play
players: [alice, bob]
active: alice
objects:
  wurm: {card: Craw Wurm, controller: alice}
  alpha: {name: Pack Leader, types: [creature], subtypes: [wolf], power: 2, toughness: 2, controller: bob,
          keywords: [{bands_with_other: {subtype: wolf}}]}
  beta: {name: Pack Leader, types: [creature], subtypes: [wolf], power: 2, toughness: 2, controller: bob,
         keywords: [{bands_with_other: {subtype: wolf}}]}
combat:
  attackers: {wurm: bob}
  blockers: {alpha: [wurm], beta: [wurm]}
"""


def test_a_form_of_a_keyword_puts_its_rules_in_play(capsys, tmp_path):
    """702.22b: "bands with other" is a form of banding, declared in banding's file: with only it in play, the
    banding rules that decide who divides (702.22j) are the scenario's, not "keywords no object has"."""
    board = tmp_path / "bands_with_other.yaml"
    board.write_text(BANDS_WITH_OTHER, encoding="utf-8")
    data = run_cli(capsys, ["audit", str(board), "--format", "json"]).json()
    fired = {r["rule"] for r in data["fired"]}
    assert "banding.blocked_by_bands_with_other" in fired
    assert not any(name.startswith("banding.") for name in data["keyword_not_in_play"])
    assert any(name.startswith("soulbond.") for name in data["keyword_not_in_play"])  # still set apart


def test_internal_checks_are_not_defaults_overridden(capsys):
    data = run_cli(capsys, ["audit", BANDING, "--format", "json"]).json()
    defaults = {o["default"] for o in data["overrides"]}
    assert not {"banding.band_two_without_banding", "banding.member_without_quality"} & defaults
    assert {c["rule"] for c in data["internal_checks"]} == {
        "banding.band_two_without_banding",
        "banding.member_without_quality",
        "main.main_phase",  # where the turn is (in combat: no main phase), not a default a keyword overrides
        "combat.in_combat_not_a_creature",  # 506.4: a creature in combat stays (it is one), not a default
    }
    assert not {"combat.in_combat_not_a_creature", "combat.noncreature_removed_from_combat"} & defaults
    text = run_cli(capsys, ["audit", BANDING]).out
    assert "Internal checks of the library (helpers declared with internal/1)" in text


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_keyword_and_only_filters(capsys):
    data = run_cli(capsys, ["audit", BANDING, "--keyword", "banding", "--format", "json"]).json()
    assert {r["group"] for r in data["fired"]} == {"banding"}
    assert all("banding" in (i["reader"], i["deriver"]) for i in data["interactions"])
    assert all(o["default"].startswith("banding.") or o["by_group"] == "banding" for o in data["overrides"])
    run = run_cli(capsys, ["audit", BANDING, "--only", "interactions"])
    assert "Interactions (reader <- deriver):" in run.out
    assert "Defaults overridden" not in run.out and "Rules that fired" not in run.out
    run = run_cli(capsys, ["audit", BANDING, "--only", "conflicts"])
    assert run.out.strip().endswith("Conflicts: none")
    run = run_cli(capsys, ["audit", BANDING, "--keyword", "bandng"])
    assert run.code == 2 and "did you mean 'banding'?" in run.err


def test_keyword_and_only_filter_the_static_audit(capsys, static):
    """Without a scenario, --keyword K keeps K's rules and what touches them: reach derives blocks_fliers, which
    flying's 702.9b default negates, so flying reads reach and the default is reach's; --only keeps one part."""
    run = run_cli(capsys, ["audit", "--keyword", "reach", "--format", "json"])
    data = run.json()
    assert run.code == 0 and [r["rule"] for r in data["keyword_rules"]] == ["reach.reach_blocks_fliers"]
    assert data["group_reads"]["flying"] == {"reach": ["blocks_fliers"]}
    assert "banding" not in data["group_reads"] and set(data["files"]) == {"rules/keywords/reach.dl"}
    assert [d["rule"] for d in data["defaults"]] == ["flying.only_flying_or_reach_blocks"]
    assert data["never_fire"] == [] and data["file_count"] == static["file_count"]
    granted = run_cli(capsys, ["audit", "--keyword", "banding", "--format", "json"]).json()["naming_rules"]
    assert all(not r["rule"].startswith("banding.") for r in granted) and granted  # Helm of Chatzuk grants it
    run = run_cli(capsys, ["audit", "--only", "overrides"])
    assert run.code == 0 and "Defaults and the exceptions that can displace them:" in run.out
    assert "Strata of negation" not in run.out and "Rules that can never fire" not in run.out
    assert run_cli(capsys, ["audit", "--keyword", "reachh"]).code == 2
    assert run_cli(capsys, ["audit", "--only", "everything"]).code == 2


@pytest.mark.slow
def test_a_keyword_whose_rules_fired_only_during_the_actions_is_listed(capsys):
    """Prowess's trigger and resolution rules fire only while an action runs (no fact of the final state
    comes from them), yet its effect is why the creatures are bigger: it is among the keywords."""
    prowess = str(SCENARIOS / "prowess_noncreature_spells.yaml")
    data = run_cli(capsys, ["audit", prowess, "--format", "json"]).json()
    assert "prowess.pump" in data["event_rules"] and "prowess" not in {r["group"] for r in data["fired"]}
    assert "prowess" in data["keywords"]
    only = run_cli(capsys, ["audit", prowess, "--keyword", "cast", "--format", "json"]).json()
    assert only["keywords"] == ["cast"]


def test_rule_counts_agree_between_check_and_audit(capsys):
    check = run_cli(capsys, ["check", "--format", "json"]).json()
    audit = run_cli(capsys, ["audit", BANDING, "--format", "json"]).json()
    assert check["rules"] == audit["rules_total"]
    assert f"in {check['rules']} rules" in run_cli(capsys, ["check"]).out


@pytest.mark.slow
def test_a_triggered_keyword_is_credited_with_the_abilities_it_put_on_the_stack(capsys):
    """Persist triggered and its ability went on the stack, but the audit named only stack.triggered for the
    event (and --keyword persist listed every other keyword's event rules too): the put_on_stack event now
    names the rule that derived its triggers/3 (detail trigger), which the audit counts and filters."""
    path = SCENARIOS / "persist_returns_with_counter.yaml"
    run = run_cli(capsys, ["do", path])
    assert run.code == 0 and "kind=persist, source=" in run.out and 'trigger="persist.trigger")' in run.out, run.out
    data = run_cli(capsys, ["audit", path, "--format", "json"]).json()
    assert data["event_rules"].get("persist.trigger", 0) >= 1 and "stack.triggered" in data["event_rules"]
    only = run_cli(capsys, ["audit", path, "--keyword", "persist", "--format", "json"]).json()
    assert only["event_rules"] and all(name.startswith("persist.") for name in only["event_rules"]), only
    assert "persist" in only["keywords"]
