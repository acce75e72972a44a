"""The combat graph: who attacks what, who blocks whom, bands, soulbond pairs and who divides each
creature's combat damage — built from DERIVED facts, so it agrees with ``query`` and ``explain``.

>>> from judgelog import Engine
>>> engine = Engine()
>>> g = engine.load(engine.example("banding_blocked_by_one.yaml")).graph()
>>> g.edges["bears", "wurm", "blocks"]["propagated"], g.edges["bears", "wurm", "blocks"]["cites"]
(True, '702.22h')
>>> g.edges["alice", "bears", "divides"]["cites"]
'702.22k'

Node kinds: ``player``, ``creature``, ``planeswalker``/``battle`` (an attacked permanent), ``band``.
Edge keys (= their ``kind``): ``attacks`` (attacker -> target), ``blocks`` (blocker -> attacker;
``declared`` or ``propagated`` by 702.22h), ``band`` (member -> band node), ``paired`` (one edge per
soulbond pair), ``divides`` (player -> creature: the player divides its combat damage; ``rule``/``cites``
name the rule that decided it). :func:`write_graph` exports .json .graphml .dot .svg and .png.
"""
from __future__ import annotations

import json
import os
from typing import Callable, Dict, List, Optional, Tuple
from xml.sax.saxutils import escape, quoteattr

import networkx as nx

from .errors import UsageError

__all__ = ["combat_graph", "write_graph", "to_dot", "FORMATS"]

FORMATS = (".svg", ".png", ".dot", ".graphml", ".json")


# -- building ----------------------------------------------------------------------------------------
def _rows(state, pred: str) -> List[tuple]:
    """Facts of ``pred`` (without the name); none when the loaded rules do not declare it."""
    decl = state.engine.program.decl(pred)
    return [f[1:] for f in state.derived(pred)] if decl is not None else []


def _root(state, fact: tuple) -> Tuple[str, str]:
    """The rule that derives ``fact`` (the root of its proof) and its CR numbers."""
    proof = state.explain(fact)
    return (proof.rule or "", ", ".join(proof.cites)) if proof is not None and proof.rule_obj else ("", "")


def combat_graph(state) -> nx.MultiDiGraph:
    """The combat graph of ``state`` (a :class:`networkx.MultiDiGraph`; see the module doc)."""
    attacking = _rows(state, "attacking")
    blocking = set(_rows(state, "blocking"))
    blocked_by = _rows(state, "blocked_by")
    in_band = [(a, g) for a, g in _rows(state, "in_band") if any(a == x for x, _ in attacking)]
    paired = sorted({tuple(sorted(p, key=str)) for p in _rows(state, "paired")})
    assigners = _rows(state, "damage_assigner")
    players = [p for (p,) in _rows(state, "player")]
    active = [p for (p,) in _rows(state, "active_player")]

    graph = nx.MultiDiGraph(name=state.name or os.path.basename(state.path or "") or "combat",
                            active_player=", ".join(map(str, active)))
    for p in players:
        life = [n for q, n in _rows(state, "life") if q == p]
        graph.add_node(p, kind="player", label=str(p), active=p in active,
                       **({"life": life[0]} if life else {}))

    involved = {a for a, _ in attacking} | {s for s, _ in assigners}
    involved |= {x for pair in list(blocking) + blocked_by + paired for x in pair}
    targets = {t for _, t in attacking if t not in players}

    def values(pred: str) -> Dict[object, List]:
        out: Dict[object, List] = {}
        for row in _rows(state, pred):
            out.setdefault(row[0], []).append(row[1] if len(row) == 2 else row[1:])
        return out

    power, toughness, keywords = values("power"), values("toughness"), values("has_keyword")
    controller, names, types = values("controller"), values("name"), values("card_type")
    creatures = {c for (c,) in _rows(state, "creature")}
    tapped = {t for (t,) in _rows(state, "tapped")}
    bands = dict(in_band)
    status = {a: "blocked" for (a,) in _rows(state, "blocked")}
    status.update({a: "unblocked" for (a,) in _rows(state, "unblocked")})
    recipients = values("damage_recipient")
    attackers = {a for a, _ in attacking}
    blockers = {b for b, _ in blocking} | {b for _, b in blocked_by}

    for obj in sorted(involved | targets, key=str):
        if obj in graph:  # a player id cannot also be an object id; keep the player
            continue
        kind = "creature" if obj in creatures or obj in involved else "permanent"
        if obj in targets and obj not in creatures:
            kind = next((t for t in ("planeswalker", "battle") if t in types.get(obj, [])), "permanent")
        attrs = {"kind": kind, "label": str(obj), "name": str((names.get(obj) or [obj])[0]),
                 "controller": str((controller.get(obj) or [""])[0]), "tapped": obj in tapped}
        if obj in involved:
            role = ("attacker" if obj in attackers else "blocker" if obj in blockers else "paired")
            attrs.update(role=role, band=str(bands.get(obj, "")), status=status.get(obj, ""),
                         keywords=",".join(sorted(str(k) for k in keywords.get(obj, []))),
                         recipients=",".join(sorted(str(r) for r in recipients.get(obj, []))))
            if obj in power:
                attrs["power"] = power[obj][0]
            if obj in toughness:
                attrs["toughness"] = toughness[obj][0]
        graph.add_node(obj, **attrs)

    for a, t in attacking:
        graph.add_edge(a, t, key="attacks", kind="attacks", label="attacks", status=status.get(a, ""))
    for a, b in blocked_by:
        rule, cites = _root(state, ("blocked_by", a, b))
        declared = (b, a) in blocking
        graph.add_edge(b, a, key="blocks", kind="blocks", label="blocks", declared=declared,
                       propagated=not declared, rule=rule, cites=cites)
    for g in sorted({g for _, g in in_band}, key=str):
        node = f"band:{g}"
        members = sorted((a for a, h in in_band if h == g), key=str)
        graph.add_node(node, kind="band", label=f"band {g}", band=str(g), members=",".join(map(str, members)))
        for a in members:
            graph.add_edge(a, node, key="band", kind="band", label="in band")
    for a, b in paired:  # soulbond pairs are symmetric: one edge per pair
        graph.add_edge(a, b, key="paired", kind="paired", label="paired")
    for s, p in assigners:  # labelled with the rule that decided (510.1c/d, or 702.22j/k displacing them)
        proof = state.explain(("damage_assigner", s, p))
        if p not in graph:
            graph.add_node(p, kind="player", label=str(p), active=p in active)
        graph.add_edge(p, s, key="divides", kind="divides", label="divides the combat damage of",
                       rule=(proof and proof.rule) or "", cites=", ".join(proof.cites) if proof else "",
                       displaced=",".join(d.rule.name or "" for d in proof.displaced) if proof else "")
    return graph


# -- exports ----------------------------------------------------------------------------------------
def write_graph(state, path: str) -> None:
    """Write the combat graph of ``state``; the format follows the extension of ``path``."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in FORMATS:
        raise UsageError(f"cannot write a graph as {ext or 'a file without extension'!r}",
                         hint="formats: " + " ".join(FORMATS))
    graph = combat_graph(state)
    try:
        if ext == ".png":
            return render_png(graph, str(path))
        text = {".json": lambda: json.dumps(node_link(graph), indent=2, sort_keys=True, default=str) + "\n",
                ".graphml": lambda: "\n".join(nx.generate_graphml(graphml_ready(graph))) + "\n",
                ".dot": lambda: combat_dot(graph), ".svg": lambda: render_svg(graph)}[ext]()
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def node_link(graph: nx.MultiDiGraph) -> dict:
    """networkx node-link data, with edges under ``edges`` (read back with ``nx.node_link_graph(d,
    edges="edges")``)."""
    try:
        return nx.node_link_data(graph, edges="edges")
    except TypeError:  # networkx < 3.4
        return nx.node_link_data(graph, link="edges")


def graphml_ready(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy whose attribute values are all GraphML scalars (str, int, float, bool)."""
    def fix(attrs: dict) -> dict:
        return {k: v if isinstance(v, (str, int, float, bool)) else json.dumps(v, sort_keys=True, default=str)
                for k, v in attrs.items() if v is not None}

    copy = nx.MultiDiGraph(**fix(graph.graph))
    for n, d in graph.nodes(data=True):
        copy.add_node(n, **fix(d))
    for u, v, k, d in graph.edges(keys=True, data=True):
        copy.add_edge(u, v, key=k, **fix(d))
    return copy


def _dot_id(value) -> str:
    text = str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_attrs(attrs: dict) -> str:
    parts = [f"{k}={_dot_id(str(v).lower() if isinstance(v, bool) else v)}" for k, v in sorted(attrs.items())]
    return " [" + ", ".join(parts) + "]" if parts else ""


def to_dot(graph, *, name: str = "G", graph_attrs: Optional[dict] = None,
           node_style: Optional[Callable] = None, edge_style: Optional[Callable] = None,
           clusters: Optional[Dict[str, Tuple[str, List]]] = None) -> str:
    """A deterministic DOT text (sorted nodes, edges and attributes) of any networkx graph.

    ``node_style(n, data)`` / ``edge_style(u, v, key, data)`` return extra Graphviz attributes;
    ``clusters`` maps a cluster id to (label, member nodes)."""
    directed = graph.is_directed()
    lines = [f"{'digraph' if directed else 'graph'} {_dot_id(name)} {{"]
    if graph_attrs:
        lines.append("  graph" + _dot_attrs(graph_attrs) + ";")
    for cid in sorted(clusters or {}):
        label, members = clusters[cid]
        lines.append(f"  subgraph {_dot_id('cluster_' + str(cid))} {{")
        lines.append("    graph" + _dot_attrs({"label": label, "style": "rounded,dashed", "color": "#3b6fb6"}) + ";")
        lines += [f"    {_dot_id(m)};" for m in sorted(members, key=str)]
        lines.append("  }")
    for n in sorted(graph.nodes, key=str):
        data = dict(graph.nodes[n])
        if node_style:
            data.update(node_style(n, data))
        lines.append(f"  {_dot_id(n)}{_dot_attrs(data)};")
    arrow = "->" if directed else "--"
    if graph.is_multigraph():
        edges = [(u, v, k, d) for u, v, k, d in graph.edges(keys=True, data=True)]
    else:
        edges = [(u, v, None, d) for u, v, d in graph.edges(data=True)]
    for u, v, k, d in sorted(edges, key=lambda e: (str(e[0]), str(e[1]), str(e[2]))):
        data = dict(d)
        if k is not None:
            data["key"] = k
        if edge_style:
            data.update(edge_style(u, v, k, data))
        lines.append(f"  {_dot_id(u)} {arrow} {_dot_id(v)}{_dot_attrs(data)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# Edge looks shared by the DOT, SVG and PNG renderers: (color, dash pattern or "", width).
STYLE = {
    "attacks": ("#555555", "", 1.5),
    "blocks": ("#b3261e", "", 2.5),
    "propagated": ("#e8710a", "7,4", 2.5),
    "divides": ("#7b1fa2", "3,3", 1.8),
    "paired": ("#2e7d32", "", 3.0),
    "band": ("#3b6fb6", "2,2", 1.0),
}
NODE_FILL = {"player": "#fff5cc", "creature": "#ffffff", "planeswalker": "#e0f2f1", "battle": "#e0f2f1",
             "permanent": "#eeeeee", "band": "#dde8f7"}


def _edge_look(kind: str, data: dict) -> Tuple[str, str, float]:
    return STYLE["propagated" if kind == "blocks" and data.get("propagated") else kind]


def combat_dot(graph: nx.MultiDiGraph) -> str:
    def node_style(n, d):
        shape = {"player": "ellipse", "band": "note"}.get(d.get("kind"), "box")
        label = d.get("label", str(n))
        if d.get("kind") == "creature":
            pt = f"{d['power']}/{d['toughness']}" if "power" in d and "toughness" in d else ""
            label = f"{n}\n{d.get('name', '')} {pt}".rstrip() + (f"\n{d['keywords']}" if d.get("keywords") else "")
        return {"shape": shape, "style": "filled,rounded", "fillcolor": NODE_FILL.get(d.get("kind"), "#ffffff"),
                "label": label}

    def edge_style(u, v, k, d):
        color, dash, width = _edge_look(d.get("kind", ""), d)
        out = {"color": color, "penwidth": width, "style": "dashed" if dash else "solid"}
        if d.get("kind") == "divides":
            out["label"] = f"divides (CR {d.get('cites', '')})"
        elif d.get("propagated"):
            out["label"] = f"blocks (CR {d.get('cites', '')})"
        if d.get("kind") == "paired":
            out["dir"] = "none"
        return out

    bands = {d["band"]: (d["label"], [n for n in d["members"].split(",") if n] + [n])
             for n, d in graph.nodes(data=True) if d.get("kind") == "band"}
    return to_dot(graph, name=graph.graph.get("name", "combat"), graph_attrs={"rankdir": "LR",
                  "label": graph.graph.get("name", "")}, node_style=node_style, edge_style=edge_style,
                  clusters=bands)


# -- layered layout (shared by SVG and PNG) -----------------------------------------------------------
NODE_W, NODE_H, GAP, COL_GAP, MARGIN, TOP = 180, 58, 22, 120, 30, 110
COLUMNS = ("attacking player", "attackers", "blockers", "defending side")
LEGEND = (("attacks", "attacks (attacker \u2192 what it attacks)"), ("blocks", "blocks (declared)"),
          ("propagated", "blocks by band propagation (702.22h)"),
          ("divides", "divides the combat damage of (label: the CR that decided)"), ("paired", "soulbond pair"))


def layout(graph: nx.MultiDiGraph) -> dict:
    """Columns attacking player | attackers | blockers | defending side, band members kept together, and
    every edge routed around the columns it crosses. Returns {"pos": node -> top-left (x, y), "bands":
    band -> (x, y, w, h), "edges": [(u, v, key, data, segments, label_xy)], "w", "h"}."""
    attackers_of = {graph.nodes[u].get("controller") for u, _, k in graph.edges(keys=True) if k == "attacks"}
    side0 = {n for n, d in graph.nodes(data=True) if d.get("kind") == "player" and (d.get("active") or
                                                                                     n in attackers_of)}
    cols: List[List] = [[], [], [], []]
    for n, d in sorted(graph.nodes(data=True), key=lambda nd: str(nd[0])):
        kind, role = d.get("kind"), d.get("role")
        if kind != "band":
            ci = (0 if n in side0 else 3) if kind == "player" else 1 if role == "attacker" else \
                2 if role == "blocker" else 3 if role is None else 1 if d.get("controller") in side0 else 2
            cols[ci].append(n)
    cols[1].sort(key=lambda n: (graph.nodes[n].get("role") != "attacker", graph.nodes[n].get("band", "") == "",
                                str(graph.nodes[n].get("band", "")), str(n)))
    index = {n: i for i, n in enumerate(cols[1])}

    def bary(n):
        near = [index[m] for a, b in graph.to_undirected(as_view=True).edges(n) for m in (a, b) if m in index]
        return (sum(near) / len(near) if near else len(index), str(n))

    cols[2].sort(key=bary)
    cols[3].sort(key=lambda n: (graph.nodes[n].get("kind") != "player", bary(n)))
    pos, heights = {}, []
    for ci, col in enumerate(cols):
        y, prev = 0, ""
        for n in col:
            band = graph.nodes[n].get("band", "") if ci == 1 else ""
            y += 26 if band and band != prev else 12 if prev and band != prev else 0
            pos[n], prev = (MARGIN + ci * (NODE_W + COL_GAP), y), band
            y += NODE_H + GAP
        heights.append(y - GAP if col else 0)
    tallest = max(heights + [NODE_H])
    extent = {}
    for ci, col in enumerate(cols):  # center each column on the tallest
        shift = TOP + (tallest - heights[ci]) / 2
        for n in col:
            pos[n] = (pos[n][0], pos[n][1] + shift)
        extent[ci] = (shift - 26, shift + heights[ci]) if col else (TOP + tallest / 2, TOP + tallest / 2)
    bands = {}
    for n, d in graph.nodes(data=True):
        members = [m for m in d.get("members", "").split(",") if m in pos] if d.get("kind") == "band" else []
        if members:
            ys = [pos[m][1] for m in members]
            bands[n] = (pos[members[0]][0] - 10, min(ys) - 24, NODE_W + 20, max(ys) - min(ys) + NODE_H + 32)
    edges, bottom = _route(graph, pos, extent)
    return {"pos": pos, "bands": bands, "edges": edges, "w": MARGIN * 2 + 4 * NODE_W + 3 * COL_GAP,
            "h": max(bottom, TOP + tallest) + 50 + 20 * len(LEGEND) + 50}


def _route(graph, pos, extent):
    """Segments ("M"|"L"|"C", points...) of every drawn edge; anchors spread along each box side."""
    col = {n: round((x - MARGIN) / (NODE_W + COL_GAP)) for n, (x, _) in pos.items()}
    edges = sorted(((u, v, k, d) for u, v, k, d in graph.edges(keys=True, data=True)
                    if k != "band" and u in pos and v in pos), key=lambda e: (str(e[0]), str(e[1]), str(e[2])))
    sides: Dict[Tuple, List] = {}
    for i, (u, v, k, d) in enumerate(edges):
        same = "L" if col[u] <= 1 else "R"
        su, sv = (same, same) if col[u] == col[v] else ("R", "L") if col[u] < col[v] else ("L", "R")
        sides.setdefault((u, su), []).append((pos[v][1], i, "u"))
        sides.setdefault((v, sv), []).append((pos[u][1], i, "v"))
    anchor = {}
    for (n, side), items in sides.items():
        x = pos[n][0] + (NODE_W if side == "R" else 0)
        for j, (_, i, end) in enumerate(sorted(items)):
            anchor[(i, end)] = (x, pos[n][1] + NODE_H * (j + 1) / (len(items) + 1))
    out, lanes, bottom = [], {"up": 0, "down": 0}, 0.0
    for i, (u, v, k, d) in enumerate(edges):
        (x1, y1), (x2, y2) = anchor[(i, "u")], anchor[(i, "v")]
        if col[u] == col[v]:
            b = -50 if x1 == pos[u][0] else 50
            segs = [("M", (x1, y1)), ("C", (x1 + b, y1), (x2 + b, y2), (x2, y2))]
            label = (x1 + b * 0.75, (y1 + y2) / 2)
        elif abs(col[u] - col[v]) == 1:
            dx = (x2 - x1) / 2
            segs = [("M", (x1, y1)), ("C", (x1 + dx, y1), (x2 - dx, y2), (x2, y2))]
            label = ((x1 + x2) / 2, (y1 + y2) / 2)
        else:  # crossing columns: run in a lane above or below them
            lo, hi = sorted((col[u], col[v]))
            top = min(extent[c][0] for c in range(lo + 1, hi))
            low = max(extent[c][1] for c in range(lo + 1, hi))
            way = "up" if abs((y1 + y2) / 2 - top) <= abs((y1 + y2) / 2 - low) else "down"
            lanes[way] += 1
            yc = top - 12 * lanes[way] if way == "up" else low + 14 * lanes[way]
            bottom = max(bottom, yc)
            s = 1 if x2 > x1 else -1
            xa = MARGIN + (lo + 1 if s > 0 else hi - 1) * (NODE_W + COL_GAP) - s * 20 + (0 if s > 0 else NODE_W)
            xb = MARGIN + (hi - 1 if s > 0 else lo + 1) * (NODE_W + COL_GAP) + s * 20 + (NODE_W if s > 0 else 0)
            segs = [("M", (x1, y1)), ("C", (x1 + s * 40, y1), (xa - s * 40, yc), (xa, yc)), ("L", (xb, yc)),
                    ("C", (xb + s * 40, yc), (x2 - s * 40, y2), (x2, y2))]
            label = ((xa + xb) / 2, yc)
        out.append((u, v, k, d, segs, label))
    return out, bottom


def _edge_label(k: str, d: dict) -> str:
    return f"CR {d.get('cites', '')}" if k == "divides" or d.get("propagated") else ""


def _edge_title(u, v, k, d) -> str:
    rule = f" [{d['rule']}, CR {d.get('cites', '')}]" if d.get("rule") else ""
    return f"{u} {d.get('label', k)} {v}{rule}"


def _node_lines(n, d) -> List[str]:
    if d.get("kind") == "player":
        return [str(n) + (" (active)" if d.get("active") else "")] + ([f"life {d['life']}"] if "life" in d else [])
    pt = f" {d['power']}/{d['toughness']}" if "power" in d and "toughness" in d else ""
    extra = [d["keywords"].replace(",", ", ")[:34]] if d.get("keywords") else []
    return [str(n) + (" (tapped)" if d.get("tapped") else ""), (d.get("name", "") + pt).strip()[:30]] + extra


def render_svg(graph: nx.MultiDiGraph) -> str:
    """An SVG drawing (our own layered layout; no Graphviz needed)."""
    lay = layout(graph)
    w, h = lay["w"], lay["h"]
    bg = "#fcfcfa"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h:.0f}" viewBox="0 0 {w} {h:.0f}" '
           'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f"<title>{escape(str(graph.graph.get('name', 'combat')))}</title>", "<defs>"]
    for kind, (color, _, _) in sorted(STYLE.items()):
        out.append(f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>')
    out += ["</defs>", f'<rect width="{w}" height="{h:.0f}" fill="{bg}"/>',
            f'<text x="{MARGIN}" y="28" font-size="16" font-weight="bold">'
            f"{escape(str(graph.graph.get('name', '')))}</text>"]
    for ci, title in enumerate(COLUMNS):
        x = MARGIN + ci * (NODE_W + COL_GAP) + NODE_W / 2
        out.append(f'<text x="{x}" y="58" text-anchor="middle" fill="#777">{title}</text>')
    for band, (x, y, bw, bh) in sorted(lay["bands"].items()):
        out.append(f'<g id={quoteattr("band-" + band.split(":", 1)[1])} class="band">'
                   f'<rect x="{x}" y="{y:.1f}" width="{bw}" height="{bh:.1f}" rx="10" fill="{NODE_FILL["band"]}" '
                   f'stroke="{STYLE["band"][0]}" stroke-dasharray="5,3"/><text x="{x + 8}" y="{y + 16:.1f}" '
                   f'fill="{STYLE["band"][0]}" font-weight="bold">{escape(graph.nodes[band]["label"])}</text></g>')
    labels = []
    for u, v, k, d, segs, (lx, ly) in lay["edges"]:
        color, dash, width = _edge_look(k, d)
        path = " ".join(op + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) for op, *pts in segs)
        style = "propagated" if d.get("propagated") else k
        out.append(f'<g class="edge {k}{" propagated" if d.get("propagated") else ""}">'
                   f"<title>{escape(_edge_title(u, v, k, d))}</title>"
                   f'<path d="{path}" fill="none" stroke="{color}" stroke-width="{width}"'
                   + (f' stroke-dasharray="{dash}"' if dash else "")
                   + ("" if k == "paired" else f' marker-end="url(#arrow-{style})"') + "/></g>")
        text = _edge_label(k, d)
        if text:
            tw = 6.3 * len(text) + 6
            labels.append(f'<g class="label"><rect x="{lx - tw / 2:.1f}" y="{ly - 9:.1f}" width="{tw:.1f}" '
                          f'height="15" rx="3" fill="{bg}" fill-opacity="0.9"/><text x="{lx:.1f}" y="{ly + 3:.1f}" '
                          f'text-anchor="middle" fill="{color}" font-size="11">{escape(text)}</text></g>')
    for n in sorted(lay["pos"], key=str):
        (x, y), d = lay["pos"][n], graph.nodes[n]
        kind = d.get("kind", "")
        out.append(f'<g id={quoteattr("node-" + str(n))} class="node {kind}">')
        if kind == "player":
            out.append(f'<ellipse cx="{x + NODE_W / 2}" cy="{y + NODE_H / 2:.1f}" rx="{NODE_W / 2}" '
                       f'ry="{NODE_H / 2}" fill="{NODE_FILL[kind]}" stroke="#8a6d00" '
                       f'stroke-width="{2.5 if d.get("active") else 1.2}"/>')
        else:
            out.append(f'<rect x="{x}" y="{y:.1f}" width="{NODE_W}" height="{NODE_H}" rx="6" '
                       f'fill="{NODE_FILL.get(kind, "#ffffff")}" stroke="#333" stroke-width="1.2"/>')
        for i, line in enumerate(_node_lines(n, d)):
            extra = ' font-weight="bold"' if i == 0 else ' font-size="10" fill="#555"' if i == 2 else ""
            out.append(f'<text x="{x + NODE_W / 2}" y="{y + 17 + i * 15:.1f}" text-anchor="middle"{extra}>'
                       f"{escape(line)}</text>")
        out.append("</g>")
    out += labels
    y0 = h - 20 * len(LEGEND) - 50
    out += ['<g id="legend" class="legend">', f'<rect x="{MARGIN - 10}" y="{y0 - 22:.1f}" width="440" '
            f'height="{20 * len(LEGEND) + 52}" fill="#ffffff" stroke="#bbb" rx="6"/>',
            f'<text x="{MARGIN}" y="{y0 - 5:.1f}" font-weight="bold">Legend</text>']
    for i, (kind, text) in enumerate(LEGEND):
        color, dash, width = STYLE[kind]
        y = y0 + 12 + i * 20
        out.append(f'<line x1="{MARGIN}" y1="{y:.1f}" x2="{MARGIN + 50}" y2="{y:.1f}" stroke="{color}" '
                   f'stroke-width="{width}"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>"
                   f'<text x="{MARGIN + 60}" y="{y + 4:.1f}">{escape(text)}</text>')
    y = y0 + 12 + len(LEGEND) * 20
    out += [f'<rect x="{MARGIN}" y="{y - 7:.1f}" width="50" height="14" fill="{NODE_FILL["band"]}" '
            f'stroke="{STYLE["band"][0]}" stroke-dasharray="5,3"/><text x="{MARGIN + 60}" y="{y + 4:.1f}">'
            "attacking band (members boxed together)</text>", "</g>", "</svg>"]
    return "\n".join(out) + "\n"


def render_png(graph: nx.MultiDiGraph, path: str) -> None:
    """Draw the same layout with matplotlib (the optional ``png`` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Ellipse, FancyArrowPatch, FancyBboxPatch
        from matplotlib.path import Path
    except ImportError:
        raise UsageError("writing .png needs matplotlib, which is not installed",
                         hint='pip install "judgelog[png]"  (or write .svg, which needs nothing)') from None
    lay = layout(graph)
    w, h = lay["w"], lay["h"]
    fig = plt.figure(figsize=(w / 100, h / 100), dpi=100)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, w)
    ax.set_ylim(h, 0)
    ax.axis("off")
    ax.text(MARGIN, 28, str(graph.graph.get("name", "")), fontsize=13, weight="bold")
    for ci, title in enumerate(COLUMNS):
        ax.text(MARGIN + ci * (NODE_W + COL_GAP) + NODE_W / 2, 58, title, ha="center", color="#777")
    for band, (x, y, bw, bh) in sorted(lay["bands"].items()):
        ax.add_patch(FancyBboxPatch((x, y), bw, bh, boxstyle="round,pad=0,rounding_size=10",
                                    fc=NODE_FILL["band"], ec=STYLE["band"][0], ls="--"))
        ax.text(x + 8, y + 16, graph.nodes[band]["label"], color=STYLE["band"][0], weight="bold")
    codes = {"M": [Path.MOVETO], "L": [Path.LINETO], "C": [Path.CURVE4] * 3}
    for u, v, k, d, segs, (lx, ly) in lay["edges"]:
        color, dash, width = _edge_look(k, d)
        verts = [p for _, *pts in segs for p in pts]
        kinds = [c for op, *_ in segs for c in codes[op]]
        ax.add_patch(FancyArrowPatch(path=Path(verts, kinds), color=color, lw=width, ls="--" if dash else "-",
                                     arrowstyle="-" if k == "paired" else "-|>", mutation_scale=12, zorder=1))
        if _edge_label(k, d):
            ax.text(lx, ly, _edge_label(k, d), color=color, fontsize=8, ha="center", va="center", zorder=4,
                    bbox={"fc": "#fcfcfa", "ec": "none", "pad": 1})
    for n, (x, y) in lay["pos"].items():
        d = graph.nodes[n]
        if d.get("kind") == "player":
            ax.add_patch(Ellipse((x + NODE_W / 2, y + NODE_H / 2), NODE_W, NODE_H, fc=NODE_FILL["player"],
                                 ec="#8a6d00", lw=2.5 if d.get("active") else 1.2, zorder=2))
        else:
            ax.add_patch(FancyBboxPatch((x, y), NODE_W, NODE_H, boxstyle="round,pad=0,rounding_size=6",
                                        fc=NODE_FILL.get(d.get("kind"), "#fff"), ec="#333", zorder=2))
        for i, line in enumerate(_node_lines(n, d)):
            ax.text(x + NODE_W / 2, y + 17 + i * 15, line, ha="center", va="center", zorder=3,
                    fontsize=9 if i < 2 else 8, weight="bold" if i == 0 else "normal")
    y0 = h - 20 * len(LEGEND) - 50
    ax.text(MARGIN, y0 - 5, "Legend", weight="bold")
    for i, (kind, text) in enumerate(LEGEND):
        color, dash, width = STYLE[kind]
        ax.plot([MARGIN, MARGIN + 50], [y0 + 12 + i * 20] * 2, color=color, lw=width, ls="--" if dash else "-")
        ax.text(MARGIN + 60, y0 + 16 + i * 20, text, fontsize=9)
    fig.savefig(path, dpi=100)
    plt.close(fig)
