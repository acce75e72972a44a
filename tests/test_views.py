"""The combat graph and the choice spaces are declared by the rules (rules/core/views.dl,
rules/core/choice_spaces.dl and the view/space sections of keyword files): a keyword added by a rule file
alone is drawn and enumerated, and the picture reads at a glance (no division line crosses an attack
line, each label sits on its own edge, creatures out of combat are not drawn as attackers, damage steps,
counters and marked damage are shown, a state without combat says so). Golden files pin the SVG and DOT
text; regenerate one with the command its test names."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET

import pytest
from helpers import run_cli
from paths import ROOT, SCENARIOS

from judgelog import Engine
from judgelog.choices import list_choices
from judgelog.drawing import layout, render_svg
from judgelog.graph import combat_dot, combat_graph

RULES = ROOT / "tests" / "rules"
ANNIHILATOR = ROOT / "tests" / "scenarios" / "annihilator.yaml"
GOLDEN = ROOT / "tests" / "golden"
SVG = "{http://www.w3.org/2000/svg}"


# -- a new keyword from a rule file alone -----------------------------------------------------------------


@pytest.fixture(scope="module")
def annihilator():
    engine = Engine(rules=[str(RULES / "annihilator.dl")])
    return engine.load(str(ANNIHILATOR))


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_new_keyword_parameter_is_read_from_its_rule_file(annihilator):
    assert annihilator.engine.interface.keyword_forms["annihilator"] == (("number", "n"),)
    assert annihilator.query("annihilator_demand(A, P, N)") == [{"A": "crusher", "P": "bob", "N": 2}]


@pytest.mark.slow
def test_new_keyword_choice_space_is_enumerated(annihilator):
    data, text = list_choices(annihilator, "annihilate")
    permanents = sorted(r["O"] for r in annihilator.query("permanent(O)"))
    bobs = {r["O"] for r in annihilator.query("controller(O, bob), permanent(O)")}
    reference = [list(c) for c in itertools.combinations(permanents, 2) if set(c) <= bobs]  # 701.21a by hand
    assert data["permanents"] == permanents and data["sacrifices"] == reference and data["count"] == 3
    assert text.splitlines()[0] == "annihilate: 3 legal set(s) of 2 of 5 permanent(s) (CR 702.86a):"
    assert list_choices(annihilator, "annihilate", limit=1)[0]["sacrifices"] == reference[:1]


def test_new_keyword_graph_relation_is_drawn(annihilator, tmp_path):
    graph = combat_graph(annihilator)
    edge = graph.edges["crusher", "bob", "annihilates"]
    assert (edge["label"], edge["rule"], edge["cites"]) == ("makes sacrifice", "annihilator.demand", "702.86a")
    assert graph.nodes["crusher"]["annihilator"] == "sacrifices:2"
    root = ET.fromstring(render_svg(graph))
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    assert "annihilator: 2 sacrifices" in texts
    assert "annihilator: the defending player sacrifices (702.86a)" in texts
    (path,) = [g.find(SVG + "path") for g in root.iter(SVG + "g") if g.get("class") == "edge annihilates"]
    assert path.get("stroke") == "#202020" and path.get("stroke-dasharray") == "1,3"
    assert '"crusher" -> "bob"' in combat_dot(graph) and "annihilates" in combat_dot(graph)


def test_new_keyword_from_the_command_line(capsys, tmp_path):
    run = run_cli(capsys, ["choices", ANNIHILATOR, "annihilate"])
    assert run.code == 0 and "[bears, elves]" in run.out and "plains" not in run.out
    out = tmp_path / "a.dot"
    assert run_cli(capsys, ["graph", ANNIHILATOR, "-o", out]).code == 0
    assert "annihilates" in out.read_text()


def test_a_library_without_the_file_has_neither(engine):
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
            "combat": {"attackers": {"bears": "bob"}},
        }
    )
    from judgelog.errors import UsageError

    with pytest.raises(UsageError) as err:
        list_choices(state, "annihilate")
    assert "unknown decision" in err.value.message
    assert not [k for _, _, k in combat_graph(state).edges(keys=True) if k == "annihilates"]


# -- the picture reads at a glance --------------------------------------------------------------------------


def _points(segs, steps=24):
    """A polyline through the segments ("M" / "L" / "C") of a routed edge."""
    out, cur = [], None
    for op, *pts in segs:
        if op == "M":
            cur = pts[0]
            out.append(cur)
        elif op == "L":
            cur = pts[0]
            out.append(cur)
        else:
            p0, (p1, p2, p3) = cur, pts
            for i in range(1, steps + 1):
                t = i / steps
                m = 1 - t
                out.append(
                    (
                        m**3 * p0[0] + 3 * m * m * t * p1[0] + 3 * m * t * t * p2[0] + t**3 * p3[0],
                        m**3 * p0[1] + 3 * m * m * t * p1[1] + 3 * m * t * t * p2[1] + t**3 * p3[1],
                    )
                )
            cur = p3
    return out


def _cross(a, b, c, d) -> bool:
    def orient(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return (orient(a, b, c) * orient(a, b, d) < 0) and (orient(c, d, a) * orient(c, d, b) < 0)


def _crossings(line1, line2) -> int:
    return sum(_cross(a, b, c, d) for a, b in zip(line1, line1[1:]) for c, d in zip(line2, line2[1:]))


COMBATS = sorted(
    p for p in SCENARIOS.glob("*.yaml") if p.name.startswith(("banding_", "first_strike_", "trample_", "combat_"))
)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", COMBATS, ids=[p.stem for p in COMBATS])
def test_division_lines_never_cross_attack_lines(scenario):
    from judgelog.runtime import run_actions

    first = Engine().load(str(scenario))
    checked = 0
    for state in (first, run_actions(first)[0]):
        lay = layout(combat_graph(state))
        lines = {
            k: [_points(segs) for _, _, kind, _, segs, _ in lay["edges"] if kind == k] for k in ("attacks", "divides")
        }
        for division in lines["divides"]:
            for attack in lines["attacks"]:
                assert _crossings(division, attack) == 0
                checked += 1
    if not checked:
        pytest.skip("no attack and division lines in this scenario, before or after its actions")


def _distance(p, line) -> float:
    best = math.inf
    for a, b in zip(line, line[1:]):
        dx, dy = b[0] - a[0], b[1] - a[1]
        t = (
            0.0
            if dx == dy == 0
            else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
        )
        best = min(best, math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy))
    return best


def test_every_label_sits_on_its_own_edge():
    state = Engine().load(str(ROOT / "docs" / "examples" / "band.yaml"))
    graph = combat_graph(state)
    root = ET.fromstring(render_svg(graph))
    labels = [g for g in root.iter(SVG + "g") if g.get("class") == "label"]
    routed = {(u, v, k): _points(segs) for u, v, k, _, segs, _ in layout(graph)["edges"]}
    assert len(labels) == sum(
        1
        for _, _, d in graph.edges(data=True)
        if d.get("cites") and (d.get("kind") == "divides" or d.get("propagated"))
    )
    owners = {}
    for g in labels:
        text = g.find(SVG + "text")
        spot = (float(text.get("x")), float(text.get("y")) - 3)
        nearest = min(routed, key=lambda e: _distance(spot, routed[e]))
        assert _distance(spot, routed[nearest]) < 2.0
        assert text.text == f"CR {graph.edges[nearest]['cites']}"
        owners[nearest] = spot
    assert len(owners) == len(labels)  # one label per edge, none shared


def test_creatures_out_of_combat_counters_damage_and_steps(engine):
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "ace": {
                    "name": "Fencing Ace",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "keywords": ["double_strike"],
                    "controller": "alice",
                    "counters": {"+1/+1": 2},
                },
                "forcemage": {"card": "Trusted Forcemage", "controller": "alice"},
                "vanguard": {"card": "Elite Vanguard", "controller": "alice"},
                "bears": {"card": "Grizzly Bears", "controller": "bob", "damage": 1},
            },
            "combat": {"attackers": {"ace": "bob"}, "blockers": {"bears": ["ace"]}},
            "pairs": [["forcemage", "vanguard"]],
        }
    )
    graph = combat_graph(state)
    assert graph.nodes["forcemage"]["role"] == graph.nodes["vanguard"]["role"] == "not_in_combat"
    assert graph.nodes["ace"]["role"] == "attacker" and graph.nodes["bears"]["role"] == "blocker"
    lay = layout(graph)
    xs = {n: lay["pos"][n][0] for n in ("ace", "bears", "forcemage", "vanguard")}
    assert xs["forcemage"] == xs["vanguard"] > xs["bears"] > xs["ace"]
    root = ET.fromstring(render_svg(graph))
    titles = [t.text for t in root.iter(SVG + "text") if t.get("fill") == "#777"]
    assert titles == ["attacking player", "attackers", "blockers", "defending side", "not in combat"]
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    assert "counters: 2 p1p1" in texts and "damage: 1 marked" in texts
    assert "damage step: first_strike, regular" in texts and "damage step: regular" in texts
    caption = " ".join("".join(t.itertext()) for t in root.iter(SVG + "text") if t.get("class") == "caption")
    assert caption == "combat damage steps: first_strike, regular"


def test_a_state_without_combat_says_so(engine):
    state = engine.state_from_dict(
        {"players": ["alice", "bob"], "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}}}
    )
    graph = combat_graph(state)
    assert graph.graph["view"]["captions"] == [("no combat", "no creature is attacking or blocking")]
    root = ET.fromstring(render_svg(graph))
    caption = ["".join(t.itertext()) for t in root.iter(SVG + "text") if t.get("class") == "caption"]
    assert caption == ["no combat: no creature is attacking or blocking"]
    assert "no combat" in combat_dot(graph)


# -- golden text ------------------------------------------------------------------------------------------

GOLDEN_COMMANDS = {
    "banding_blocked_by_one.dot": "facts/scenarios/banding_blocked_by_one.yaml",
    "first_strike_pikemen.svg": "facts/scenarios/first_strike_pikemen.yaml --before-actions",
    "soulbond_bonus_while_paired.svg": "facts/scenarios/soulbond_bonus_while_paired.yaml",
    "annihilator.dot": "tests/scenarios/annihilator.yaml",
}


@pytest.mark.parametrize("name", sorted(GOLDEN_COMMANDS))
def test_golden_text(name, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    out = tmp_path / name
    args = GOLDEN_COMMANDS[name].split()
    assert run_cli(capsys, ["graph", *args, "-o", out]).code == 0
    assert out.read_text() == (GOLDEN / name).read_text(), (
        f"tests/golden/{name} differs; if the change is meant, regenerate it with\n"
        f"    judgelog graph {GOLDEN_COMMANDS[name]} -o tests/golden/{name}"
    )
