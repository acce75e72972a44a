"""The combat graph and its files: :func:`combat_graph` (built from the rules' view relations, see
:mod:`judgelog.view`) and :func:`write_graph`, which exports .json .graphml .dot .svg and .png. The .png
is the .svg rendered by cairosvg (the ``png`` extra), so the two pictures never differ.

>>> from judgelog import Engine
>>> engine = Engine()
>>> g = engine.load(engine.example("banding_blocked_by_one.yaml")).graph()
>>> sorted({k for _, _, k in g.edges(keys=True)})
['attacks', 'band', 'blocks', 'divides']
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

import networkx as nx

from .drawing import edge_look, node_lines, render_svg
from .errors import UsageError
from .view import combat_graph

if TYPE_CHECKING:
    from .protocols import Board

__all__ = ["combat_graph", "write_graph", "to_dot", "combat_dot", "render_svg", "render_png", "FORMATS"]

FORMATS = (".svg", ".png", ".dot", ".graphml", ".json")


# -- exports ----------------------------------------------------------------------------------------
def write_graph(state: Board, path: str) -> None:
    """Write the combat graph of ``state``; the format follows the extension of ``path``."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in FORMATS:
        raise UsageError(
            f"cannot write a graph as {ext or 'a file without extension'!r}", hint="formats: " + " ".join(FORMATS)
        )
    graph = combat_graph(state)
    if ext in (".svg", ".png", ".graphml"):
        graph = xml_safe(graph)
    try:
        if ext == ".png":
            return render_png(graph, str(path))
        text = {
            ".json": lambda: json.dumps(node_link(graph), indent=2, sort_keys=True, default=str) + "\n",
            ".graphml": lambda: "\n".join(nx.generate_graphml(graphml_ready(graph))) + "\n",
            ".dot": lambda: combat_dot(graph),
            ".svg": lambda: render_svg(graph),
        }[ext]()
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


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_safe(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy in which characters XML 1.0 cannot hold (control characters in a name) are written as
    ``\\xNN``, so that SVG and GraphML stay well-formed."""

    def text(value: object) -> object:
        return _XML_BAD.sub(lambda m: f"\\x{ord(m.group()):02x}", value) if isinstance(value, str) else value

    def fix(value: Any) -> Any:  # the same shape, its text made XML-safe
        if isinstance(value, dict):
            return {text(k): fix(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(fix(v) for v in value)
        return text(value)

    copy = nx.MultiDiGraph(**fix(dict(graph.graph)))
    for n, d in graph.nodes(data=True):
        copy.add_node(text(n), **fix(d))
    for u, v, k, d in graph.edges(keys=True, data=True):
        copy.add_edge(text(u), text(v), key=text(k), **fix(d))
    return copy


def graphml_ready(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy whose attribute values are all GraphML scalars (str, int, float, bool)."""

    def fix(attrs: dict) -> dict:
        return {
            k: v if isinstance(v, (str, int, float, bool)) else json.dumps(v, sort_keys=True, default=str)
            for k, v in attrs.items()
            if v is not None
        }

    copy = nx.MultiDiGraph(**fix(graph.graph))
    for n, d in graph.nodes(data=True):
        copy.add_node(n, **fix(d))
    for u, v, k, d in graph.edges(keys=True, data=True):
        copy.add_edge(u, v, key=k, **fix(d))
    return copy


def _dot_id(value: object) -> str:
    text = str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_attrs(attrs: dict) -> str:
    parts = [f"{k}={_dot_id(str(v).lower() if isinstance(v, bool) else v)}" for k, v in sorted(attrs.items())]
    return " [" + ", ".join(parts) + "]" if parts else ""


def to_dot(
    graph: nx.Graph,
    *,
    name: str = "G",
    graph_attrs: dict | None = None,
    node_style: Callable | None = None,
    edge_style: Callable | None = None,
    clusters: dict[str, tuple[str, list]] | None = None,
) -> str:
    """A deterministic DOT text (sorted nodes, edges and attributes) of any networkx graph.

    ``node_style(n, data)`` / ``edge_style(u, v, key, data)`` return extra Graphviz attributes;
    ``clusters`` maps a cluster id to (label, member nodes)."""
    directed = graph.is_directed()
    lines = [f"{'digraph' if directed else 'graph'} {_dot_id(name)} {{"]
    if graph_attrs:
        lines.append("  graph" + _dot_attrs(graph_attrs) + ";")
    for cid, (label, members) in sorted((clusters or {}).items()):
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


def combat_dot(graph: nx.MultiDiGraph) -> str:
    """Graphviz DOT of the combat graph, with the looks the view declares and one cluster per group."""
    spec = graph.graph.get("view") or {}
    looks, node_looks = spec.get("looks", {}), spec.get("node_looks", {})
    full = {"shown": [], "looks": looks, "label_cr": spec.get("label_cr", []), **spec}

    def node_style(n: Hashable, d: dict[str, Any]) -> dict[str, object]:
        shape, fill = node_looks.get(d.get("kind"), ("box", "#ffffff"))
        label = "\n".join(node_lines(full, n, d)) if "members" not in d else d.get("label", str(n))
        return {"shape": shape, "style": "filled,rounded", "fillcolor": fill, "label": label}

    def edge_style(u: Hashable, v: Hashable, k: str, d: dict[str, Any]) -> dict[str, object]:
        color, dash, width = edge_look(full, k, d)
        out = {"color": color, "penwidth": width, "style": "dashed" if dash else "solid"}
        look = next((x for x, val in sorted(d.items()) if val is True and x in looks), k)
        if look in full["label_cr"] and d.get("cites"):
            out["label"] = f"{d.get('label', k).split()[0]} (CR {d['cites']})"
        if k in spec.get("undirected", []):
            out["dir"] = "none"
        return out

    groups = {
        str(d.get(d.get("kind"), n)): (d["label"], [m for m in d["members"].split(",") if m] + [n])
        for n, d in graph.nodes(data=True)
        if "members" in d
    }
    captions = "; ".join(f"{label}: {value}" for label, value in spec.get("captions", []))
    plain = nx.MultiDiGraph(**{k: v for k, v in graph.graph.items() if k != "view"})
    plain.add_nodes_from(graph.nodes(data=True))
    plain.add_edges_from(graph.edges(keys=True, data=True))
    title = graph.graph.get("name", "")
    return to_dot(
        plain,
        name=graph.graph.get("name", "combat"),
        graph_attrs={"rankdir": "LR", "label": title + (f"\n{captions}" if captions else "")},
        node_style=node_style,
        edge_style=edge_style,
        clusters=groups,
    )


def render_png(graph: nx.MultiDiGraph, path: str) -> None:
    """The SVG drawing rendered as PNG by cairosvg (the optional ``png`` extra)."""
    from .extras import require

    cairosvg = require("cairosvg", extra="png", purpose="writing .png")
    cairosvg.svg2png(bytestring=render_svg(graph).encode("utf-8"), write_to=str(path))
