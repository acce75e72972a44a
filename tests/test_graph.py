"""``judgelog graph`` and ``State.graph()``: the combat graph is built from derived facts (so it agrees with
``query``/``explain``), and every export format (.json .graphml .dot .svg .png) writes it faithfully."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET

import networkx as nx
import pytest
from helpers import run_cli
from paths import SCENARIOS

from judgelog import Engine
from judgelog.errors import UsageError
from judgelog.graph import FORMATS, combat_graph, to_dot, write_graph

BANDING = SCENARIOS / "banding_blocked_by_one.yaml"
CREATURES = {"hero", "wurm", "bears"}


@pytest.fixture(scope="module")
def state():
    return Engine().load(str(BANDING))


@pytest.fixture(scope="module")
def graph(state):
    return state.graph()


def _same(a, b) -> bool:
    """Attribute match for nx.is_isomorphic (edges of a multigraph: key -> attributes)."""
    return dict(a) == dict(b)


def _edges(graph, key):
    return {(u, v): d for u, v, k, d in graph.edges(keys=True, data=True) if k == key}


def test_every_creature_and_player_is_a_node(graph):
    assert isinstance(graph, nx.MultiDiGraph)
    kinds = dict(graph.nodes(data="kind"))
    assert {n for n, k in kinds.items() if k == "creature"} == CREATURES
    assert kinds["alice"] == kinds["bob"] == "player"
    assert graph.nodes["alice"]["active"] is True and graph.nodes["bob"]["active"] is False
    wurm = graph.nodes["wurm"]
    assert (wurm["power"], wurm["toughness"], wurm["controller"], wurm["band"]) == (6, 4, "alice", "band1")
    assert graph.nodes["hero"]["keywords"] == "banding"
    assert graph.nodes["bears"]["role"] == "blocker" and graph.nodes["bears"]["band"] == ""


def test_blocks_include_propagation(graph, state):
    blocks = _edges(graph, "blocks")
    # every blocked_by fact is an edge blocker -> attacker, and nothing else is
    assert set(blocks) == {(b, a) for _, a, b in state.derived("blocked_by")} == {("bears", "hero"), ("bears", "wurm")}
    assert blocks["bears", "hero"]["declared"] is True and blocks["bears", "hero"]["propagated"] is False
    assert blocks["bears", "wurm"]["declared"] is False and blocks["bears", "wurm"]["propagated"] is True
    assert blocks["bears", "wurm"]["cites"] == "702.22h"
    assert blocks["bears", "wurm"]["rule"] == "banding.block_propagates_to_band"


def test_attacks_bands_and_damage_choosers(graph, state):
    assert set(_edges(graph, "attacks")) == {("hero", "bob"), ("wurm", "bob")}
    assert set(_edges(graph, "band")) == {("hero", "band:band1"), ("wurm", "band:band1")}
    assert graph.nodes["band:band1"]["kind"] == "band"
    divides = _edges(graph, "divides")
    assert set(divides) == {(p, s) for _, s, p in state.derived("damage_assigner")}
    assert divides["alice", "bears"]["cites"] == "702.22k"
    assert divides["alice", "bears"]["displaced"] == "combat.blocker_damage_divided_by_its_controller"
    assert divides["alice", "wurm"]["cites"] == divides["alice", "hero"]["cites"] == "510.1c"


def test_pairs_planeswalkers_and_banding_blocker():
    engine = Engine()
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "hero": {"card": "Benalish Hero", "controller": "alice"},
                "giant": {"card": "Hill Giant", "controller": "alice"},
                "guard": {"card": "Benalish Hero", "controller": "bob"},
                "forcemage": {"card": "Trusted Forcemage", "controller": "alice"},
                "vanguard": {"card": "Elite Vanguard", "controller": "alice"},
                "jace": {"name": "Jace", "types": ["planeswalker"], "controller": "bob"},
            },
            "combat": {
                "attackers": {"hero": "jace", "giant": "jace"},
                "bands": [["hero", "giant"]],
                "blockers": {"guard": ["giant"]},
            },
            "pairs": [["forcemage", "vanguard"]],
        }
    )
    graph = combat_graph(state)
    assert graph.nodes["jace"]["kind"] == "planeswalker"
    assert set(_edges(graph, "attacks")) == {("hero", "jace"), ("giant", "jace")}
    assert list(_edges(graph, "paired")) in ([("forcemage", "vanguard")], [("vanguard", "forcemage")])
    divides = _edges(graph, "divides")  # blocked by a creature with banding: the defending player (702.22j)
    assert divides["bob", "giant"]["cites"] == divides["bob", "hero"]["cites"] == "702.22j"
    assert divides["alice", "guard"]["cites"] == "702.22k"
    svg = ET.fromstring(_svg(graph))
    text = " ".join(t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text"))
    for node in ("hero", "giant", "guard", "forcemage", "vanguard", "jace"):
        assert node in text


def _svg(graph):
    from judgelog.graph import render_svg

    return render_svg(graph)


def test_svg_is_xml_with_every_creature_and_a_legend(state, tmp_path):
    path = tmp_path / "combat.svg"
    write_graph(state, str(path))
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text or "" for t in root.iter(ns + "text")]
    for creature in CREATURES:
        assert creature in texts
    ids = {g.get("id") for g in root.iter(ns + "g")}
    assert {"node-hero", "node-wurm", "node-bears", "node-alice", "node-bob", "band-band1", "legend"} <= ids
    # damage-chooser edges are dashed and colored apart from blocks; the propagated block too
    classes = {g.get("class"): g for g in root.iter(ns + "g") if (g.get("class") or "").startswith("edge")}
    divides = classes["edge divides"].find(ns + "path")
    assert divides.get("stroke-dasharray") and divides.get("stroke") != classes["edge blocks declared"].find(
        ns + "path"
    ).get("stroke")
    assert classes["edge blocks propagated"].find(ns + "path").get("stroke-dasharray")
    assert "CR 702.22k" in texts and "CR 702.22h" in texts


def test_json_round_trips(state, graph, tmp_path):
    path = tmp_path / "combat.json"
    write_graph(state, str(path))
    data = json.loads(path.read_text())
    back = nx.node_link_graph(data, edges="edges")
    assert isinstance(back, nx.MultiDiGraph)
    assert nx.is_isomorphic(back, graph, node_match=_same, edge_match=_same)
    assert set(back.edges(keys=True)) == set(graph.edges(keys=True))


def test_graphml_round_trips(state, graph, tmp_path):
    path = tmp_path / "combat.graphml"
    write_graph(state, str(path))
    back = nx.read_graphml(path, force_multigraph=True)
    assert back.is_directed() and back.is_multigraph()
    assert nx.is_isomorphic(back, graph, node_match=_same, edge_match=_same)
    assert back.nodes["wurm"]["power"] == 6 and back.edges["bears", "wurm", "blocks"]["propagated"] is True


def test_dot_is_deterministic(state, graph, tmp_path):
    a, b = tmp_path / "a.dot", tmp_path / "b.dot"
    write_graph(state, str(a))
    write_graph(Engine().load(str(BANDING)), str(b))
    assert a.read_bytes() == b.read_bytes()
    text = a.read_text()
    assert text.startswith("digraph ") and '"bears" -> "wurm"' in text and "cluster_band1" in text
    # the same graph built in another insertion order writes the same text
    shuffled = nx.MultiDiGraph(**graph.graph)
    shuffled.add_nodes_from(reversed(list(graph.nodes(data=True))))
    shuffled.add_edges_from(reversed(list(graph.edges(keys=True, data=True))))
    assert to_dot(shuffled) == to_dot(graph)


def test_png_needs_the_extra(state, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # as if it were not installed
    with pytest.raises(UsageError) as err:
        write_graph(state, str(tmp_path / "combat.png"))
    assert "judgelog[png]" in err.value.hint and "cairosvg" in err.value.message


def test_png_is_the_svg_rendered(state, tmp_path, monkeypatch):
    """The PNG is drawn from the very SVG text that .svg writes, never a second way."""
    cairosvg = pytest.importorskip("cairosvg")
    seen = []
    real = cairosvg.svg2png
    monkeypatch.setattr(cairosvg, "svg2png", lambda **kw: seen.append(kw["bytestring"]) or real(**kw))
    path, svg = tmp_path / "combat.png", tmp_path / "combat.svg"
    write_graph(state, str(path))
    write_graph(state, str(svg))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert seen == [svg.read_bytes()]


def test_cli(capsys, tmp_path):
    out = tmp_path / "combat.svg"
    run = run_cli(capsys, ["graph", BANDING, "-o", out])
    assert run.code == 0 and out.exists() and f"wrote {out}" in run.out
    run = run_cli(capsys, ["graph", BANDING, "-o", tmp_path / "combat.txt"])
    assert run.code == 2
    for ext in FORMATS:
        assert ext in run.err
