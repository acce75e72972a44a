"""Proofs (``explain``) and refutations (``why_not``).

A proof names, at every derived node, the rule's @name, its CR numbers and its file:line; its leaves are
scenario facts pointing at the line of the scenario file they came from, rule-file facts, comparisons and
``[absent]`` negations; for a functional predicate it also lists the default the answer displaced. A
property test checks on random combat scenarios that every premise of every proof holds in its state.
"""

from __future__ import annotations

import json

import pytest
from helpers import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import ROOT, SCENARIOS

from judgelog import Engine
from judgelog.ast import format_value

SCENARIO = SCENARIOS / "banding_blocked_by_one.yaml"
LINES = SCENARIO.read_text(encoding="utf-8").splitlines()


def line_of(text: str) -> int:
    """1-based number of the only line of the scenario file that starts with ``text`` (after indent)."""
    found = [i + 1 for i, line in enumerate(LINES) if line.strip().startswith(text)]
    assert len(found) == 1, (text, found)
    return found[0]


@pytest.fixture(scope="module")
def state(engine):
    return engine.load(str(SCENARIO))


@pytest.fixture(scope="module")
def proof(state):
    result = state.explain("damage_assigner(bears, alice)")
    assert result is not None
    return result


def _rule_text_at(span) -> str:
    return (ROOT / span.file).read_text(encoding="utf-8").splitlines()[span.line - 1]


def test_root_is_the_banding_rule(proof):
    assert proof.kind == "rule"
    assert proof.atom == "damage_assigner(bears, alice)"
    assert proof.rule == "banding.active_player_divides"
    assert "702.22k" in proof.cites
    assert proof.rule_obj.span.short() == "rules/keywords/banding.dl:" + str(proof.rule_obj.span.line)
    assert "702.22k" in proof.all_cites()


def test_every_derived_node_names_rule_cr_and_location(proof):
    text = proof.to_text()
    derived = [n for n in proof.walk() if n.kind == "rule"]
    assert len(derived) >= 5
    for node in derived:
        rule = node.rule_obj
        assert node.rule and "." in node.rule, node
        assert node.cites, f"{node.rule} cites nothing"
        assert rule.span.file.startswith("rules/") and rule.span.file.endswith(".dl")
        # file:line points at the rule's head in the rule file
        assert _rule_text_at(rule.span).startswith(rule.head.pred + "("), (rule.span, node.rule)
        header = f"{node.atom}  <- {node.rule} [CR {', '.join(node.cites)}] {rule.span.short()}"
        assert header in text
        assert node.sentence  # the .decl sentence, filled in
        assert node.premises


def test_leaves_point_at_lines_of_the_scenario(proof):
    leaves = {n.atom: n for n in proof.walk() if n.kind == "fact"}
    expected = {
        "blocking(bears, hero)": line_of("blockers:"),
        "attacking(hero, bob)": line_of("attackers:"),
        "permanent(hero)": line_of("hero:"),
        "printed_keyword(hero, banding)": line_of("hero:"),
        "active_player(alice)": line_of("active:"),
    }
    # the lines, read off the file text: the object lines come after players/active, combat after objects
    assert (
        expected["active_player(alice)"]
        < expected["permanent(hero)"]
        < expected["attacking(hero, bob)"]
        < expected["blocking(bears, hero)"]
    )
    assert LINES[expected["blocking(bears, hero)"] - 1].strip() == "blockers: {bears: [hero]}"
    text = proof.to_text()
    for atom, line in expected.items():
        node = leaves[atom]
        assert node.origin.file == str(SCENARIO)
        assert node.origin.line == line, (atom, node.origin)
        assert f"{atom}  [fact] {SCENARIO}:{line}" in text
    for node in leaves.values():  # every scenario leaf: the line names the fact's first argument
        assert node.origin.file == str(SCENARIO)
        assert node.fact[1] in LINES[node.origin.line - 1], node


def test_negations_are_absent_leaves(proof, state):
    absent = [n for n in proof.walk() if n.kind == "absent"]
    assert absent
    assert "keyword_removed(hero, banding)" in {n.atom for n in absent}
    assert "not keyword_removed(hero, banding)  [absent]" in proof.to_text()
    for node in absent:
        assert not node.premises
        assert not state.holds(node.atom)


def test_the_displaced_default_is_listed(proof):
    assert len(proof.displaced) == 1
    displaced = proof.displaced[0]
    assert displaced.rule.name == "combat.blocker_damage_divided_by_its_controller"
    assert "510.1d" in displaced.rule.cites
    assert displaced.would_give == "damage_assigner(bears, bob)"
    assert displaced.blocked_by.atom == "blocker_division_overridden(bears)"
    text = proof.to_text()
    assert (
        "displaces combat.blocker_damage_divided_by_its_controller [CR 510.1d] "
        f"rules/core/combat.dl:{displaced.rule.span.line}, which would give damage_assigner(bears, bob)"
    ) in text
    data = proof.to_dict()
    assert data["displaces"][0]["rule"] == "combat.blocker_damage_divided_by_its_controller"
    assert "510.1d" in data["displaces"][0]["cites"]


def test_to_dict_is_json_and_mirrors_the_tree(proof):
    data = json.loads(json.dumps(proof.to_dict()))
    assert data["atom"] == "damage_assigner(bears, alice)"
    assert data["rule"] == "banding.active_player_divides" and "702.22k" in data["cites"]
    assert data["at"].startswith("rules/keywords/banding.dl:")
    assert data["bindings"] == {"B": "bears", "P": "alice"}

    def leaves(node):
        if "premises" not in node:
            yield node
        for p in node.get("premises", []):
            yield from leaves(p)

    kinds = {leaf["kind"] for leaf in leaves(data)}
    assert kinds <= {"fact", "absent", "comparison"}
    blockers = line_of("blockers:")
    assert any(leaf["kind"] == "fact" and leaf["at"] == f"{SCENARIO}:{blockers}" for leaf in leaves(data))


def test_comparisons_are_leaves(state):
    proof = state.explain("band_mate(hero, wurm)")
    assert [p.kind for p in proof.premises][-1] == "comparison"
    assert proof.premises[-1].atom == "hero != wurm"


def test_explain_of_a_false_atom_is_none(state):
    assert state.explain("damage_assigner(bears, bob)") is None


def test_why_not_lists_failing_literals(state):
    reasons = {r.rule.name: r for r in state.why_not("damage_assigner(bears, bob)")}
    default = reasons["combat.blocker_damage_divided_by_its_controller"]
    assert "510.1d" in default.rule.cites
    assert default.literals == (
        ("blocks(bears, _)", True),
        ("controller(bears, bob)", True),
        ("not blocker_division_overridden(bears)", False),
        ("not assigns_no_combat_damage(bears)", True),  # 510.1a: power above 0
    )
    banding = reasons["banding.active_player_divides"]
    assert dict(banding.literals) == {
        "blocker_division_overridden(bears)": True,
        "active_player(bob)": False,
        "not assigns_no_combat_damage(bears)": True,
    }
    for reason in reasons.values():  # the atom does not hold: every rule has a failing literal
        assert any(not ok for _, ok in reason.literals), reason
    failing = default.to_dict()["literals"][2]
    assert (failing["literal"], failing["holds"]) == ("not blocker_division_overridden(bears)", False)
    # a failing `not p` shows the proof of p
    assert failing["details"][0] == "not blocker_division_overridden(bears): blocker_division_overridden(bears) holds"
    assert any("banding.blocking_banding [CR 702.22k]" in line for line in failing["details"])
    assert default.to_dict()["literals"][0]["details"] == []  # a literal that holds needs none
    found = dict(zip([t for t, _ in banding.literals], banding.details))["active_player(bob)"]
    assert found == ("active_player(bob): no such fact; found active_player(alice)",)  # the value found


def test_explain_and_why_not_on_the_command_line(capsys):
    run = run_cli(capsys, ["explain", SCENARIO, "damage_assigner(bears, alice)"])
    assert run.code == 0, run.err
    assert run.out.startswith("damage_assigner(bears, alice)  <- banding.active_player_divides [CR 702.22k")
    assert f"blocking(bears, hero)  [fact] {SCENARIO}:{line_of('blockers:')}" in run.out
    run = run_cli(capsys, ["explain", SCENARIO, "damage_assigner(bears, alice)", "--format", "json"])
    data = run.json()
    assert data["holds"] is True and data["proof"]["rule"] == "banding.active_player_divides"
    run = run_cli(capsys, ["explain", SCENARIO, "damage_assigner(bears, bob)"])
    assert run.code == 1
    assert run.out.startswith("damage_assigner(bears, bob) does not hold.")
    assert "  FAILS  not blocker_division_overridden(bears)" in run.out
    run = run_cli(capsys, ["explain", SCENARIO, "damage_assigner(bears, alice)", "--why-not"])
    assert run.code == 0
    assert run.out.startswith("damage_assigner(bears, alice) holds.")
    run = run_cli(capsys, ["explain", SCENARIO, "damage_assigner(bears, P)"])
    assert run.code == 2  # not a ground atom: a usage error
    assert "explain needs a ground atom" in run.err


def test_old_cr_numbers_in_cites(state):
    from judgelog.cr import any_cites

    proof = state.explain("damage_assigner(bears, alice)")
    assert any_cites("702.19k", proof.all_cites(), "2010-07-01")  # the seeds' number for 702.22k, CR 2009-2011
    assert not any_cites("702.19k", proof.all_cites())  # read today, 702.19 is trample


# -- property: every premise of every proof holds ------------------------------------------------------
KEYWORDS = ["banding", "flying", "reach", "trample"]
PREDICATES = ["damage_assigner", "blocked_by", "damage_recipient", "can_block"]


@st.composite
def combat_scenarios(draw):
    """A small, schema-valid combat: alice attacks bob (or bob's planeswalker) with bands and blocks."""
    objects = {}

    def creature(controller):
        return {
            "name": "Test Creature",
            "types": ["creature"],
            "controller": controller,
            "power": draw(st.integers(0, 4)),
            "toughness": draw(st.integers(1, 4)),
            "keywords": draw(st.lists(st.sampled_from(KEYWORDS), unique=True, max_size=3)),
            "tapped": draw(st.booleans()),
        }

    ours = [f"a{i}" for i in range(draw(st.integers(2, 4)))]
    theirs = [f"d{i}" for i in range(draw(st.integers(1, 3)))]
    for oid in ours:
        objects[oid] = creature("alice")
    for oid in theirs:
        objects[oid] = creature("bob")
    targets = ["bob"]
    if draw(st.booleans()):
        objects["jace"] = {"name": "Jace", "types": ["planeswalker"], "controller": "bob", "counters": {"loyalty": 3}}
        targets.append("jace")
    attackers = ours[: draw(st.integers(1, len(ours)))]
    combat = {"attackers": {a: draw(st.sampled_from(targets)) for a in attackers}}
    groups = {}
    for a in attackers:
        group = draw(st.sampled_from([0, 1, None]))
        if group is not None:
            groups.setdefault(group, []).append(a)
    bands = [members for _, members in sorted(groups.items()) if len(members) >= 2]
    if bands:
        combat["bands"] = bands
    blockers = {}
    for b in theirs:
        blocked = draw(st.lists(st.sampled_from(attackers), unique=True, max_size=2))
        if blocked:
            blockers[b] = blocked
    if blockers:
        combat["blockers"] = blockers
    return {"players": ["alice", "bob"], "active": "alice", "objects": objects, "combat": combat}


def _atom(fact) -> str:
    return f"{fact[0]}({', '.join(format_value(v) for v in fact[1:])})"


@settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=combat_scenarios())
def test_every_premise_of_every_proof_holds(engine, data):
    state = engine.state_from_dict(data)
    rule_facts = {(r.head.pred,) + tuple(a.value for a in r.head.args) for r in engine.program.rules if r.is_fact}
    holds = {}

    def true(atom: str) -> bool:
        if atom not in holds:
            holds[atom] = state.holds(atom)
        return holds[atom]

    checked = 0
    for pred in PREDICATES:
        for fact in state.derived(pred):
            proof = state.explain(_atom(fact))
            assert proof is not None, f"{_atom(fact)} is derived but has no proof"
            assert proof.fact == fact and proof.kind == "rule"
            for node in proof.walk():
                checked += 1
                if node.kind == "fact":
                    assert node.fact in state.facts or node.fact in rule_facts, node
                    if node.fact in state.facts:
                        assert node.rule_obj is None
                elif node.kind in ("rule", "aggregate"):
                    assert node.rule_obj is not None and node.cites, node
                    assert true(node.atom), f"{node.atom} is a premise but does not hold"
                elif node.kind == "absent":
                    assert not true(node.atom), f"not {node.atom} is a premise but {node.atom} holds"
                elif node.kind == "comparison":
                    assert true(node.atom), f"comparison {node.atom} is false"
                else:
                    pytest.fail(f"unexpected proof node kind {node.kind}: {node}")
            for displaced in proof.displaced:
                assert true(displaced.blocked_by.atom)
                assert not true(displaced.would_give) or displaced.would_give == proof.atom
    assert checked or not any(state.derived(p) for p in PREDICATES)
    # an answer that does not hold has no proof, and why_not finds a failing literal in every rule
    for atom in ("damage_assigner(a0, bob)", "damage_assigner(d0, alice)"):
        if not true(atom):
            assert state.explain(atom) is None
            for reason in state.why_not(atom):
                assert any(not ok for _, ok in reason.literals), reason


@pytest.mark.parametrize(
    "name", ["banding_blocked_by_one.yaml", "proliferate_kinds.yaml", "trample_with_and_without_banding.yaml"]
)
def test_the_rules_deriving_many_facts_at_once_are_those_found_one_by_one(engine, monkeypatch, name):
    """Prover.deriving_rules asks a rule once for the facts of a predicate it may derive (the runtime's
    causes of an effect or a choice over many objects); it names the rule deriving_rule names for each."""
    _many_facts_at_once(engine, monkeypatch, name)


def test_the_rules_deriving_many_facts_at_once_on_clingo(monkeypatch):
    """The same on the clingo backend (its own questions of a rule's body)."""
    pytest.importorskip("clingo")
    clingo_engine = Engine(backend="clingo")
    for name in ("banding_blocked_by_one.yaml", "proliferate_kinds.yaml"):
        _many_facts_at_once(clingo_engine, monkeypatch, name)


def _many_facts_at_once(engine, monkeypatch, name):
    import judgelog.deriving as deriving
    import judgelog.provenance as provenance

    state = engine.load(str(SCENARIOS / name))
    program = engine.program
    several = [p for p in program.decls if sum(1 for r in program.rules_by_head.get(p, ()) if r.body) > 1]
    wanted = [f for p in several for f in state.derived(p)]
    objects = sorted({f[1] for f in state.facts if f[0] == "permanent"})
    # and facts that do not hold: another object in place of the first argument
    other = {o: objects[(i + 1) % len(objects)] for i, o in enumerate(objects)}
    wanted += [(f[0], other[f[1]]) + tuple(f[2:]) for f in wanted if len(f) > 1 and f[1] in other]
    assert len(wanted) > 8
    monkeypatch.setattr(deriving, "_BULK", 1)  # every group asked together, however small
    with engine.backend.session(state.facts) as view:
        prover = provenance.Prover(engine.backend, view, {})
        one_by_one = [prover.deriving_rule(f) for f in wanted]
        assert prover.deriving_rules(wanted) == one_by_one
        assert any(r is None for r in one_by_one) and any(r is not None for r in one_by_one)


def test_why_not_goes_into_an_absent_derived_fact(capsys, tmp_path):
    """`--why-not` stopped at "attacker_division_overridden(ds): no such fact": the reason a judge needs (no
    creature with banding blocks it any more: the Benalish Hero died in the first-strike step, 702.22j) was
    one rule deeper. An absent derived fact of which nothing holds for its first value is now explained by
    its own rules, two levels down; one with a fact for its first value (defending_player(wurm, bob)) is not."""
    from helpers import run_cli
    from paths import ROOT

    board = tmp_path / "b.yaml"
    board.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  ds: {name: Duelist, types: [creature], power: 2, toughness: 4, keywords: [double_strike],"
        " controller: alice}\n"
        "  hero: {card: Benalish Hero, controller: bob}\n  bears: {card: Grizzly Bears, controller: bob}\n"
        "actions:\n  - {do: declare_attackers, attackers: {ds: bob}}\n"
        "  - {do: declare_blockers, blockers: {hero: [ds], bears: [ds]}}\n"
        "  - {do: combat_damage, step: first_strike, assign: {ds: {hero: 1, bears: 1}}}\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["explain", str(board), "damage_assigner(ds, bob)", "--why-not"])
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    at = lines.index(
        "           attacker_division_overridden(ds): no such fact; no attacker_division_overridden fact holds"
    )
    assert lines[at + 1].strip().startswith("because rule banding.blocked_by_banding [CR 702.22j]")
    assert any("FAILS  has_keyword(B, banding)" in line for line in lines[at + 1 : at + 6]), run.out
    assert any("has_keyword(bears, banding) with B = bears: no such fact" in line for line in lines), run.out
    tutorial = run_cli(
        capsys, ["explain", str(ROOT / "docs" / "examples" / "band.yaml"), "damage_assigner(wurm, alice)", "--why-not"]
    )
    found = tutorial.out.splitlines().index(
        "           defending_player(wurm, alice): no such fact; found defending_player(wurm, bob)"
    )
    # its nine rules would take some 75 lines for an answer the fact found gives: they are only counted
    assert tutorial.out.splitlines()[found + 1].strip() == (
        '9 rules could derive it: explain --why-not "defending_player(wurm, alice)" shows what fails'
    )


def test_why_not_goes_into_a_derived_fact_found_for_another_value(capsys):
    """`--why-not "deals_combat_damage_in(pikemen, regular)"` stopped at "in_damage_step(pikemen, regular): no
    such fact; found in_damage_step(pikemen, first_strike)"; a creature can be in both steps (the double
    striker is), so the value found is no answer. The rules for the regular step are shown, each failing on
    its reason (510.4, 702.7b, 702.7c, 702.4b); below them, the fact found for pikemen's other keywords is."""
    board = str(SCENARIOS / "first_strike_pikemen.yaml")
    run = run_cli(capsys, ["explain", board, "deals_combat_damage_in(pikemen, regular)", "--why-not"])
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    at = lines.index(
        "           in_damage_step(pikemen, regular): no such fact; found in_damage_step(pikemen, first_strike)"
    )
    because = [line.split(" [CR")[0].strip() for line in lines[at + 1 :] if "because rule" in line]
    assert because == [
        "because rule combat.single_step_assigners",  # not first_strike_step_needed() fails: 510.4
        "because rule combat.second_step_assigners",  # not first_striker(pikemen) fails: 702.7b
        "because rule combat.second_step_assigners_recorded",  # first_step_began() fails, two levels down
        "because rule combat.first_step_began",
        "because rule combat.first_step_began_done",
        "because rule double_strike.second_step",  # has_keyword(pikemen, double_strike) fails: 702.4b
    ]
    failing = [line.strip() for line in lines[at + 1 :] if line.strip().startswith("FAILS")]
    for literal in ["not first_strike_step_needed()", "not first_striker(pikemen)", "first_step_began()"]:
        assert f"FAILS  {literal}" in failing, run.out
    # a negated atom that holds shows its rule only, down here; a fact found for pikemen's keywords is answer enough
    proof = lines.index("                          not first_striker(pikemen): first_striker(pikemen) holds")
    assert lines[proof + 1].strip().startswith("first_striker(pikemen)  <- first_strike.has_first_strike [CR 702.7b]")
    assert lines[proof + 2].strip().startswith("because rule combat.second_step_assigners_recorded")
    keyword = next(i for i, line in enumerate(lines) if "has_keyword(pikemen, double_strike): no such fact" in line)
    assert lines[keyword + 1] == "  holds  power(pikemen, N)"
    assert len(lines) < 60


def test_why_not_does_not_judge_a_literal_whose_variable_only_a_failing_one_binds(engine):
    """After `blocks(wurm, X)` fails, `Y != X` is neither true nor false: it is marked not judged (None, `--`),
    while a later literal that binds its own variables (`blocks(wurm, Y)`) is judged as usual."""
    band = engine.load(str(ROOT / "docs" / "examples" / "band.yaml"))
    (reason,) = [
        r for r in band.why_not("blocker_division_overridden(wurm)") if r.rule.name.endswith("bands_with_other")
    ]
    assert reason.literals == (
        ("blocks(wurm, X)", False),
        ("quality_bander(X, K, V)", None),
        ("blocks(wurm, Y)", False),
        ("Y != X", None),
        ("has_quality(Y, K, V)", None),
    )
    shown = dict(zip([t for t, _ in reason.literals], reason.details))
    assert shown["Y != X"] == ("not judged: X, Y only a failing literal binds",)
    lines = reason.to_lines()
    assert "  --     Y != X" in lines and "  FAILS  blocks(wurm, Y)" in lines
    assert reason.to_dict()["literals"][3]["holds"] is None


def test_an_absent_premise_says_what_keeps_it_absent(engine):
    """`not cannot_block(spider, angel)` in the proof that a Giant Spider can block a Serra Angel: the flying
    rule would give a restriction, but the Spider can block fliers (reach); the reason is proved, and every
    premise of it holds."""
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "angel": {"card": "Serra Angel", "controller": "alice"},
                "spider": {"card": "Giant Spider", "controller": "bob"},
            },
            "combat": {"attackers": {"angel": "bob"}},
        }
    )
    proof = state.explain("can_block(spider, angel)")
    text = proof.to_text()
    assert "not cannot_block(spider, angel)  [absent]" in text
    assert "would give block_restriction(spider, angel, flying)," in text and "but blocks_fliers(spider) holds:" in text
    absent = next(p for p in proof.walk() if p.atom == "cannot_block(spider, angel)")
    (reason,) = absent.displaced
    assert "702.9b" in reason.rule.cites and reason.blocked_by.atom == "blocks_fliers(spider)"
    assert all(state.holds(str(p.atom)) for p in reason.blocked_by.walk() if p.kind in ("rule", "fact"))
    assert "702.17b" in {c for p in proof.walk() for c in p.cites}  # reach's rule, through the reason


def test_why_not_of_an_input_predicate_tells_what_happened_to_its_object(capsys):
    """card_in_zone(forest, exile) after the animated Forest was destroyed: no rule derives it; the answer
    says its facts come from the scenario and from actions, and lists the Forest's latest events."""
    scenario = SCENARIOS / "dies_as_the_rules_say_it_is_a_creature.yaml"
    run = run_cli(capsys, ["explain", scenario, "card_in_zone(forest, exile)", "--why-not"])
    assert run.code == 1
    assert "no rule derives this predicate: its facts come from the scenario and from what actions" in run.out
    assert "  what happened to forest:" in run.out and "  event 4: dies forest" in run.out


def test_why_not_of_a_derived_predicate_no_head_matches_names_the_nearest_rules(capsys):
    """triggers(squire, exalted, knight): 27 rules derive triggers/3, none whose head has knight for its
    subject; the why-not said "no rule derives this predicate". It says rules derive it, and which head is
    nearest (exalted's) and where it differs."""
    scenario = SCENARIOS / "exalted_attacks_alone.yaml"
    run = run_cli(capsys, ["explain", scenario, "triggers(squire, exalted, knight)", "--why-not"])
    assert run.code == 1
    assert "no rule derives" not in run.out
    assert "rule(s) derive triggers/3, but none whose head matches these values; the nearest:" in run.out
    assert "rule exalted.trigger [CR 702.83a" in run.out
    assert "triggers(S, exalted, attacks_alone): knight is not attacks_alone" in run.out
    doc = run_cli(capsys, ["explain", scenario, "triggers(squire, exalted, knight)", "--why-not", "--format", "json"])
    [near] = doc.json()["nearest"]
    assert near["rule"] == "exalted.trigger" and near["differs"] == ["knight is not attacks_alone"]
    # facts of the rule files are facts, not rules named None
    facts = run_cli(capsys, ["explain", scenario, "keyword(haste)", "--why-not"]).out
    assert "fact(s) of the rule files state keyword/1, but none whose head matches" in facts
    assert "\n  fact rules/keywords/" in facts and "rule None" not in facts
    # no head has any value asked: those that differ least, a variable taking two values counted too
    from judgelog.parser import parse_text
    from judgelog.proof import nearest_heads

    rules = [r for r in parse_text("t(S, a, S) :- p(S). t(S, b, c) :- p(S). t(S, d, X) :- p(S, X).").items]
    near_rules, more = nearest_heads(rules, ("t", "x", "z", "y"))
    assert [n.differs for n in near_rules] == [("z is not d",)] and more == 0
    [far] = [n for n in nearest_heads(rules[:1], ("t", "x", "a", "y"))[0]]
    assert far.differs == ("S can't be both x and y",)


def test_why_not_of_an_aggregate_judges_its_body_then_its_value(capsys):
    """An aggregate's rule (count(), sum(V)) is judged like any other, its value last: "no rule derives this
    predicate" was said of every aggregate, whose head could not be unified with the value asked."""
    menace = SCENARIOS / "menace_two_blockers.yaml"
    run = run_cli(capsys, ["explain", menace, "menace_declared_blockers(brute, 7)", "--why-not", "--format", "json"])
    assert run.code == 1
    [rule] = run.json()["rules"]
    assert rule["rule"] == "menace.declared_blockers"
    *body, value = rule["literals"]
    assert body and all(lit["holds"] for lit in body)
    assert value["literal"] == "count() = 1" and value["holds"] is False
    assert value["details"] == ["asked for 7"]
    # the count it does give holds, and its why-not says so
    holds = run_cli(capsys, ["explain", menace, "menace_declared_blockers(brute, 1)", "--why-not", "--format", "json"])
    assert holds.code == 0 and holds.json()["rules"][0]["literals"][-1]["holds"] is True
    layers = SCENARIOS / "loses_all_abilities_layers.yaml"
    text = run_cli(capsys, ["explain", layers, "power_bonus(bears, 1)", "--why-not"]).out
    assert "FAILS  not lost_all_abilities(S)" in text and "sum(DP) = none: no match of the body" in text


def test_why_not_an_instance_named_by_a_word_where_counters_are_numbered(engine):
    """keyword_instance names a printed instance by its object and a counter's by a number: asking why the
    Squire's printed exalted is not an instance (a later loss took it, 613.7) judges the counter rule too,
    whose number arithmetic must not compare the word `squire` with a number (it fails, it is no error)."""
    state, _ = engine.load(str(SCENARIOS / "judge7_exalted_lost_then_gained_again_is_one_instance.yaml")).run_actions()
    reasons = {r.rule.name: r for r in state.why_not("keyword_instance(squire, exalted, squire)")}
    assert ("not keyword_instance_taken(squire, exalted, squire)", False) in reasons[
        "objects.keyword_instance_printed"
    ].literals
    assert ("keyword_counter_instance(squire, exalted, squire)", False) in reasons[
        "objects.keyword_instance_counter"
    ].literals


def test_a_proof_that_judges_an_instance_named_by_a_word_in_a_rule_that_numbers_instances(engine):
    """The Angel's granted flying (instance `until_end_of_turn`) is proved with the reason it is not taken:
    the rules that number instances (counters, gains after the first) are asked with that word bound, and
    with pyDatalog their comparisons raised "a comparison mixes numbers and words". Such a rule derives
    nothing with a word where it computes a number, as on clingo: the proof is given."""
    path = SCENARIOS / "judge7_loses_all_abilities_then_gains_flying_counter_lifelink_gone.yaml"
    state, _ = engine.load(str(path)).run_actions()
    proof = state.explain("keyword_instance(angel, flying, until_end_of_turn)")
    assert proof is not None and proof.rule == "objects.keyword_instance_granted"
