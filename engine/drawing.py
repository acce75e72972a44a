"""Drawing the combat graph: a layered layout and its SVG (the PNG is this SVG, rendered by cairosvg).

Columns, looks, legend and captions come from the view declarations kept in ``graph.graph["view"]``
(see :mod:`judgelog.view`). Nodes go in the column of their role; members of a group are kept together
and boxed. An edge between neighbouring columns is a curve between the facing sides; one that crosses
columns runs in a lane under them (its ends on the facing sides) or, for a kind routed ``over``, in a
lane above them with its ends on the sides away from each other, so the two kinds of lanes never meet.
Each label sits on its own edge (on the lane of a lane edge), moved along the edge when it would cover
another label.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from xml.sax.saxutils import escape, quoteattr

import networkx as nx

Node = Hashable  # a node of the combat graph
Point = tuple[float, float]

__all__ = ["layout", "render_svg", "node_lines", "edge_look"]

NODE_W, NODE_H, GAP, COL_GAP, MARGIN, TOP = 180, 58, 22, 120, 40, 112
LINE, LANE, WIDTH = 15, 12, 34
BG = "#fcfcfa"
DEFAULT_LOOK = ("#555555", "", 1.5)


def _spec(graph: nx.MultiDiGraph) -> dict:
    spec = graph.graph.get("view") or {}
    return {
        "columns": {},
        "titles": {},
        "node_looks": {},
        "looks": {},
        "label_cr": [],
        "legend": [],
        "shown": [],
        "routes": {},
        "undirected": [],
        "captions": [],
        **spec,
    }


def edge_look(spec: dict, kind: str, data: dict) -> tuple[str, str, float]:
    """The look of an edge: that of its first variant that has one, else its kind's."""
    looks = spec["looks"]
    for key, value in sorted(data.items()):
        if value is True and key in looks:
            return tuple(looks[key])
    return tuple(looks.get(kind, DEFAULT_LOOK))


def _look_name(spec: dict, kind: str, data: dict) -> str:
    return next((k for k, v in sorted(data.items()) if v is True and k in spec["looks"]), kind)


def edge_label(spec: dict, kind: str, data: dict) -> str:
    return (
        f"CR {data.get('cites', '')}" if _look_name(spec, kind, data) in spec["label_cr"] and data.get("cites") else ""
    )


def _value_text(value: object) -> str:
    parts = [p for p in str(value).split(",") if p]
    out = []
    for p in parts:
        what, _, count = p.rpartition(":")
        out.append(f"{count} {what}" if what and count.lstrip("-").isdigit() else p)
    return ", ".join(out)


def node_lines(spec: dict, n: Node, d: dict) -> list[str]:
    """The text lines of a node: its id with its set flags, its name with power/toughness, then every
    shown attribute it has."""
    flags = [k for k, v in sorted(d.items()) if v is True]
    lines = [str(n) + (f" ({', '.join(flags)})" if flags else "")]
    pt = f" {d['power']}/{d['toughness']}" if "power" in d and "toughness" in d else ""
    if d.get("name") or pt:
        lines.append((str(d.get("name", "")) + pt).strip()[:30])
    for key, heading in spec["shown"]:
        if d.get(key) not in (None, ""):
            lines += _wrap(((heading + ": ") if heading else "") + _value_text(d[key]))
    return [line if len(line) <= WIDTH else line[: WIDTH - 1] + "\u2026" for line in lines]


def _wrap(text: str) -> list[str]:
    """A shown attribute on lines of at most WIDTH characters, broken after commas."""
    out = [""]
    for word in text.split(" "):
        if out[-1] and len(out[-1]) + 1 + len(word) > WIDTH:
            out.append("  " + word)
        else:
            out[-1] = (out[-1] + " " + word) if out[-1] else word
    return out


def _partners_together(col: list[Node], undirected: nx.Graph) -> list[Node]:
    """The column's order, each node followed by its not yet placed neighbours in the same column."""
    inside, out, seen = set(col), [], set()
    for n in col:
        if n in seen:
            continue
        out.append(n)
        seen.add(n)
        for m in sorted((m for m in undirected.neighbors(n) if m in inside and m not in seen), key=col.index):
            out.append(m)
            seen.add(m)
    return out


def _height(spec: dict, n: Node, d: dict) -> float:
    return max(NODE_H, 10 + LINE * len(node_lines(spec, n, d)))


def layout(graph: nx.MultiDiGraph) -> dict:
    """Positions, group boxes and routed edges. Returns {"pos": node -> top-left (x, y), "size": node ->
    (w, h), "groups": group -> (x, y, w, h), "edges": [(u, v, key, data, segments, label_xy)], "columns":
    [index, ...], "w", "h", "top"}."""
    spec = _spec(graph)
    group_kinds = {d.get("kind") for _, d in graph.nodes(data=True) if "members" in d}
    placed = {n: d for n, d in graph.nodes(data=True) if "members" not in d}
    last = max(list(spec["columns"].values()) or [0])  # a node without a role: the last column
    col_of = {n: spec["columns"].get(d.get("role", ""), last) for n, d in placed.items()}
    filled = set(col_of.values())  # an empty column is drawn when an edge passes over it
    spans = [sorted((col_of[u], col_of[v])) for u, v in graph.edges() if u in col_of and v in col_of]
    used = sorted(filled | {c for lo, hi in spans for c in range(lo + 1, hi)})
    slot = {c: i for i, c in enumerate(used)}
    cols: dict[int, list] = {c: [] for c in used}
    for n in sorted(placed, key=str):
        cols[col_of[n]].append(n)

    def group(n: Node) -> str:
        return next((str(placed[n][k]) for k in sorted(group_kinds) if placed[n].get(k)), "")

    def round_first(n: Node) -> bool:
        return spec["node_looks"].get(placed[n].get("kind"), ("box",))[0] != "ellipse"

    order: dict = {}
    undirected = graph.to_undirected(as_view=True)
    for c in used:

        def bary(n: Node, c: int = c) -> float:
            near = [order[m] for a, b in undirected.edges(n) for m in (a, b) if m in order and col_of.get(m, c) < c]
            return sum(near) / len(near) if near else float(len(order))

        cols[c].sort(key=lambda n: (round_first(n), group(n) == "", group(n), bary(n), str(n)))
        cols[c] = _partners_together(cols[c], undirected)
        for i, n in enumerate(cols[c]):
            order[n] = i

    size = {n: (NODE_W, _height(spec, n, placed[n])) for n in placed}
    pos, heights = {}, {}
    for c in used:
        y, prev = 0.0, ""
        for n in cols[c]:
            g = group(n)
            y += 26 if g and g != prev else 12 if prev and g != prev else 0
            pos[n], prev = (MARGIN + slot[c] * (NODE_W + COL_GAP), y), g
            y += size[n][1] + GAP
        heights[c] = y - GAP if cols[c] else 0
    tallest = max(list(heights.values()) + [NODE_H])
    over = _count_over(graph, spec, col_of)
    top = TOP + LINE * len(spec["captions"]) + LANE * over
    extent = {}
    for c in used:
        shift = top + (tallest - heights[c]) / 2
        for n in cols[c]:
            pos[n] = (pos[n][0], pos[n][1] + shift)
        extent[c] = (shift - 26, shift + heights[c]) if cols[c] else (top + tallest / 2, top + tallest / 2)
    boxes = {}
    for n, d in graph.nodes(data=True):
        members = [m for m in d.get("members", "").split(",") if m in pos]
        if members:
            ys = [pos[m][1] for m in members]
            bottom = max(pos[m][1] + size[m][1] for m in members)
            boxes[n] = (pos[members[0]][0] - 10, min(ys) - 24, NODE_W + 20, bottom - min(ys) + 32)
    edges, low = _route(graph, spec, pos, size, col_of, slot, extent)
    legend_h = 20 * len(spec["legend"]) + 50
    return {
        "pos": pos,
        "size": size,
        "groups": boxes,
        "edges": edges,
        "columns": used,
        "top": top,
        "w": MARGIN * 2 + len(used) * NODE_W + (len(used) - 1) * COL_GAP,
        "h": max(low, top + tallest) + 40 + legend_h,
        "slot": slot,
    }


def _crosses(col_of: dict[Node, int], u: Node, v: Node) -> bool:
    return abs(col_of[u] - col_of[v]) >= 2


def _count_over(graph: nx.MultiDiGraph, spec: dict, col_of: dict[Node, int]) -> int:
    return sum(
        1
        for u, v, k in graph.edges(keys=True)
        if u in col_of and v in col_of and _crosses(col_of, u, v) and spec["routes"].get(k) == "over"
    )


def _route(
    graph: nx.MultiDiGraph,
    spec: dict,
    pos: Mapping[Node, Point],
    size: Mapping[Node, Point],
    col_of: dict[Node, int],
    slot: dict[int, int],
    extent: dict[int, Point],
) -> tuple[list, float]:
    """Segments ("M"|"L"|"C", points...) of every drawn edge, and the lowest lane."""
    x_of = lambda c: MARGIN + slot[c] * (NODE_W + COL_GAP)  # noqa: E731
    edges = sorted(
        ((u, v, k, d) for u, v, k, d in graph.edges(keys=True, data=True) if u in pos and v in pos),
        key=lambda e: (str(e[0]), str(e[1]), str(e[2])),
    )
    plan: list[tuple[Node, Node, str, dict, str, str, str, int]] = []  # lane: 0 when the edge takes none
    lanes = {"over": 0, "under": 0}
    for u, v, k, d in edges:
        cu, cv = col_of[u], col_of[v]
        if cu == cv:
            side = "L" if slot[cu] <= 1 else "R"
            plan.append((u, v, k, d, "same", side, side, 0))
            continue
        s = 1 if cv > cu else -1
        if not _crosses(col_of, u, v):
            plan.append((u, v, k, d, "next", "R" if s > 0 else "L", "L" if s > 0 else "R", 0))
            continue
        way = spec["routes"].get(k, "under")
        lanes[way] += 1
        if way == "over":
            plan.append((u, v, k, d, "over", "L" if s > 0 else "R", "R" if s > 0 else "L", lanes[way]))
        else:
            plan.append((u, v, k, d, "under", "R" if s > 0 else "L", "L" if s > 0 else "R", lanes[way]))
    top_all = min(e[0] for e in extent.values())
    low_all = max(e[1] for e in extent.values())
    lane_y: dict[int, float] = {}
    for i, (_u, _v, _k, _d, how, _su, _sv, lane) in enumerate(plan):
        if how == "over":
            lane_y[i] = top_all - LANE * lane
        elif how == "under":
            lane_y[i] = low_all + 14 * lane
    sides: dict[tuple, list] = {}
    for i, (u, v, _k, _d, _how, su, sv, _lane) in enumerate(plan):
        toward_u = lane_y.get(i, pos[v][1] + size[v][1] / 2)
        toward_v = lane_y.get(i, pos[u][1] + size[u][1] / 2)
        sides.setdefault((u, su), []).append((toward_u, i, "u"))
        sides.setdefault((v, sv), []).append((toward_v, i, "v"))
    anchor = {}
    for (n, side), items in sides.items():
        x = pos[n][0] + (NODE_W if side == "R" else 0)
        h = size[n][1]
        for j, (_, i, end) in enumerate(sorted(items)):
            anchor[(i, end)] = (x, pos[n][1] + h * (j + 1) / (len(items) + 1))
    out, bottom = [], low_all
    for i, (u, v, k, d, how, su, sv, lane) in enumerate(plan):
        (x1, y1), (x2, y2) = anchor[(i, "u")], anchor[(i, "v")]
        if how == "same":
            b = -50 if su == "L" else 50
            segs = [("M", (x1, y1)), ("C", (x1 + b, y1), (x2 + b, y2), (x2, y2))]
            labels = [(x1 + b * 0.75, (y1 + y2) / 2)]
        elif how == "next":
            dx = (x2 - x1) / 2
            segs = [("M", (x1, y1)), ("C", (x1 + dx, y1), (x2 - dx, y2), (x2, y2))]
            labels = [_bezier((x1, y1), (x1 + dx, y1), (x2 - dx, y2), (x2, y2), t) for t in (0.5, 0.35, 0.65, 0.2, 0.8)]
        elif how == "over":  # out of the far sides, up, across above the columns, down
            yl = lane_y[i]
            o1 = -1 if su == "L" else 1
            o2 = -1 if sv == "L" else 1
            xo1, xo2 = x1 + o1 * (14 + 5 * min(lane, 5)), x2 + o2 * (14 + 5 * min(lane, 5))
            segs = [
                ("M", (x1, y1)),
                ("L", (xo1, y1)),
                ("L", (xo1, yl)),
                ("L", (xo2, yl)),
                ("L", (xo2, y2)),
                ("L", (x2, y2)),
            ]
            labels = [((xo1 + xo2) / 2 + dx, yl) for dx in (0, -60, 60, -120, 120)]
        else:  # under: into the gap next to the first crossed column, along a lane below them, up again
            lo, hi = sorted((col_of[u], col_of[v]))
            inner = [c for c in slot if lo < c < hi]
            yc = lane_y[i]
            bottom = max(bottom, yc)
            s = 1 if x2 > x1 else -1
            first, last_c = (min(inner), max(inner)) if s > 0 else (max(inner), min(inner))
            xa = x_of(first) - s * 20 + (0 if s > 0 else NODE_W)
            xb = x_of(last_c) + s * 45 + (NODE_W if s > 0 else 0)
            segs = [
                ("M", (x1, y1)),
                ("C", (x1 + s * 40, y1), (xa - s * 40, yc), (xa, yc)),
                ("L", (xb, yc)),
                ("C", (xb + s * 40, yc), (x2 - s * 40, y2), (x2, y2)),
            ]
            labels = [((xa + xb) / 2 + dx, yc) for dx in (0, -60, 60)]
        out.append((u, v, k, d, segs, labels))
    return out, bottom


def _bezier(p0: Point, p1: Point, p2: Point, p3: Point, t: float) -> Point:
    m = 1 - t
    return (
        m**3 * p0[0] + 3 * m * m * t * p1[0] + 3 * m * t * t * p2[0] + t**3 * p3[0],
        m**3 * p0[1] + 3 * m * m * t * p1[1] + 3 * m * t * t * p2[1] + t**3 * p3[1],
    )


def _edge_title(u: Node, v: Node, k: str, d: dict) -> str:
    rule = f" [{d['rule']}, CR {d.get('cites', '')}]" if d.get("rule") else ""
    return f"{u} {d.get('label', k)} {v}{rule}"


def _dash(dash: str) -> str:
    return f' stroke-dasharray="{dash}"' if dash else ""


def render_svg(graph: nx.MultiDiGraph) -> str:
    """An SVG drawing (our own layered layout; no Graphviz needed)."""
    spec = _spec(graph)
    lay = layout(graph)
    w, h = lay["w"], lay["h"]
    name = escape(str(graph.graph.get("name", "combat")))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h:.0f}" viewBox="0 0 {w} {h:.0f}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f"<title>{name}</title>",
        "<defs>",
    ]
    looks = dict(spec["looks"])
    for kind, (color, _, _) in sorted(looks.items()):
        out.append(
            f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
        )
    out += [
        "</defs>",
        f'<rect width="{w}" height="{h:.0f}" fill="{BG}"/>',
        f'<text x="{MARGIN}" y="28" font-size="16" font-weight="bold">{name}</text>',
    ]
    for i, (label, value) in enumerate(spec["captions"]):
        out.append(
            f'<text class="caption" x="{MARGIN}" y="{50 + i * LINE}" font-size="13">'
            f'<tspan font-weight="bold">{escape(label)}:</tspan> {escape(value)}</text>'
        )
    title_y = 50 + LINE * len(spec["captions"]) + 12
    for c in lay["columns"]:
        x = MARGIN + lay["slot"][c] * (NODE_W + COL_GAP) + NODE_W / 2
        out.append(
            f'<text x="{x}" y="{title_y}" text-anchor="middle" fill="#777">{escape(spec["titles"].get(c, ""))}</text>'
        )
    for g, (x, y, bw, bh) in sorted(lay["groups"].items(), key=lambda i: str(i[0])):
        d = graph.nodes[g]
        kind = d.get("kind", "")
        color, dash, _ = looks.get(kind, DEFAULT_LOOK)
        fill = spec["node_looks"].get(kind, ("box", "#eeeeee"))[1]
        out.append(
            f"<g id={quoteattr(kind + '-' + str(d.get(kind, g)))} class={quoteattr('group ' + kind)}>"
            f'<rect x="{x}" y="{y:.1f}" width="{bw}" height="{bh:.1f}" rx="10" fill="{fill}" '
            f'stroke="{color}" stroke-dasharray="5,3"/><text x="{x + 8}" y="{y + 16:.1f}" '
            f'fill="{color}" font-weight="bold">{escape(str(d.get("label", g)))}</text></g>'
        )
    labels: list[str] = []
    boxes: list[tuple[float, float, float]] = []
    for u, v, k, d, segs, spots in lay["edges"]:
        color, dash, width = edge_look(spec, k, d)
        look = _look_name(spec, k, d)
        path = " ".join(op + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) for op, *pts in segs)
        variants = "".join(f" {key}" for key, value in sorted(d.items()) if value is True)
        marker = "" if k in spec["undirected"] else f' marker-end="url(#arrow-{look if look in looks else k})"'
        out.append(
            f"<g class={quoteattr('edge ' + k + variants)}><title>{escape(_edge_title(u, v, k, d))}</title>"
            f'<path d="{path}" fill="none" stroke="{color}" stroke-width="{width}"{_dash(dash)}{marker}/></g>'
        )
        text = edge_label(spec, k, d)
        if text:
            tw = 6.3 * len(text) + 6
            lx, ly = next((p for p in spots if not any(_overlap(p, tw, b) for b in boxes)), spots[0])
            boxes.append((lx, ly, tw))
            labels.append(
                f'<g class="label"><rect x="{lx - tw / 2:.1f}" y="{ly - 9:.1f}" width="{tw:.1f}" '
                f'height="15" rx="3" fill="{BG}" fill-opacity="0.9" stroke="{color}" stroke-width="0.6"/>'
                f'<text x="{lx:.1f}" y="{ly + 3:.1f}" text-anchor="middle" fill="{color}" '
                f'font-size="11">{escape(text)}</text></g>'
            )
    for n in sorted(lay["pos"], key=str):
        (x, y), (nw, nh), d = lay["pos"][n], lay["size"][n], graph.nodes[n]
        kind = d.get("kind", "")
        shape, fill = spec["node_looks"].get(kind, ("box", "#ffffff"))
        out.append(f"<g id={quoteattr('node-' + str(n))} class={quoteattr('node ' + kind)}>")
        if shape == "ellipse":
            out.append(
                f'<ellipse cx="{x + nw / 2}" cy="{y + nh / 2:.1f}" rx="{nw / 2}" ry="{nh / 2}" fill="{fill}" '
                f'stroke="#8a6d00" stroke-width="{2.5 if any(v is True for v in d.values()) else 1.2}"/>'
            )
        else:
            out.append(
                f'<rect x="{x}" y="{y:.1f}" width="{nw}" height="{nh:.1f}" rx="6" fill="{fill}" '
                'stroke="#333" stroke-width="1.2"/>'
            )
        lines = node_lines(spec, n, d)
        y0 = y + nh / 2 - LINE * (len(lines) - 1) / 2 + 4
        for i, line in enumerate(lines):
            extra = ' font-weight="bold"' if i == 0 else ' font-size="10" fill="#555"' if i >= 2 else ""
            out.append(
                f'<text x="{x + nw / 2}" y="{y0 + i * LINE:.1f}" text-anchor="middle"{extra}>{escape(line)}</text>'
            )
        out.append("</g>")
    out += labels
    out += _legend(spec, h)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _overlap(p: Point, tw: float, box: tuple[float, float, float]) -> bool:
    (x, y), (bx, by, bw) = p, box
    return abs(x - bx) < (tw + bw) / 2 and abs(y - by) < 15


def _legend(spec: dict, h: float) -> list[str]:
    entries = spec["legend"]
    y0 = h - 20 * len(entries) - 30
    out = [
        '<g id="legend" class="legend">',
        f'<rect x="{MARGIN - 10}" y="{y0 - 22:.1f}" width="440" '
        f'height="{20 * len(entries) + 32}" fill="#ffffff" stroke="#bbb" rx="6"/>',
        f'<text x="{MARGIN}" y="{y0 - 5:.1f}" font-weight="bold">Legend</text>',
    ]
    for i, (style, text) in enumerate(entries):
        color, dash, width = spec["looks"].get(style, DEFAULT_LOOK)
        y = y0 + 12 + i * 20
        if style in spec["node_looks"]:  # a group kind: its box
            out.append(
                f'<rect x="{MARGIN}" y="{y - 7:.1f}" width="50" height="14" '
                f'fill="{spec["node_looks"][style][1]}" stroke="{color}" stroke-dasharray="5,3"/>'
            )
        else:
            out.append(
                f'<line x1="{MARGIN}" y1="{y:.1f}" x2="{MARGIN + 50}" y2="{y:.1f}" stroke="{color}" '
                f'stroke-width="{width}"{_dash(dash)}/>'
            )
        out.append(f'<text x="{MARGIN + 60}" y="{y + 4:.1f}">{escape(text)}</text>')
    out.append("</g>")
    return out
