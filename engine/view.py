"""The combat graph as the rules declare it: a networkx graph built from the ``view_*`` relations of
``rules/core/views.dl`` (and the view sections of keyword files). Nothing here names a keyword: which
nodes, edges, groups, attributes and looks there are comes from the rules.

>>> from judgelog import Engine
>>> engine = Engine()
>>> g = engine.load(engine.example("banding_blocked_by_one.yaml")).graph()
>>> g.edges["bears", "wurm", "blocks"]["propagated"], g.edges["bears", "wurm", "blocks"]["cites"]
(True, '702.22h')
>>> g.edges["alice", "bears", "divides"]["cites"]
'702.22k'

Nodes carry ``kind`` (``view_node``), ``label``, ``role`` (``view_role``; the lowest column wins), one
boolean per declared flag, every ``view_attr`` (several values joined with commas) and ``view_count``
(``what:count`` joined with commas). A group (``view_group``) is a node ``kind:id`` with ``members``;
each member carries the group's id under the group's kind and has an edge of that kind to it. Edge keys
are their kinds; each edge carries ``label`` (``view_edge_text``), one boolean per declared variant and,
for a proved kind, the ``rule``, ``cites`` and ``displaced`` defaults of the fact it draws. How the
drawing looks (columns, shapes, colors, legend, captions) is kept in ``graph.graph["view"]``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import networkx as nx

from .proof import ProofKind

if TYPE_CHECKING:
    from .protocols import Board

__all__ = ["combat_graph", "view_spec"]


# the view relations this module reads, derived together (judgelog.state.State.derived_all: the clingo
# backend grounds their rules in one call)
_VIEW_PREDS = (
    "view_attr",
    "view_caption",
    "view_column",
    "view_column_title",
    "view_count",
    "view_edge",
    "view_edge_proved",
    "view_edge_text",
    "view_edge_variant",
    "view_flag",
    "view_flag_name",
    "view_group",
    "view_label_cr",
    "view_legend",
    "view_look",
    "view_member",
    "view_node",
    "view_node_look",
    "view_role",
    "view_route",
    "view_shown",
    "view_undirected",
    "view_variant",
)


def _view_rows(state: Board) -> Callable[[str], list[tuple]]:
    """The facts (without the name) of a view relation, sorted; none when the loaded rules do not declare it.
    Every declared view relation is derived on the first call."""
    found: dict[str, list[tuple]] = {}

    def rows(pred: str) -> list[tuple]:
        if not found:
            program = state.engine.program
            derived = state.derived_all([p for p in _VIEW_PREDS if program.decl(p) is not None])
            found.update({p: sorted((f[1:] for f in derived.get(p, ())), key=repr) for p in _VIEW_PREDS})
        return found[pred]

    return rows


def _joined(values: list) -> object:
    if len(values) == 1:
        return values[0]
    return ",".join(sorted(str(v) for v in values))


def view_spec(state: Board) -> dict:
    """How the drawing looks, from the view declarations: columns, node looks, edge looks, legend,
    shown attributes, routes, undirected kinds and captions."""
    return _spec(_view_rows(state))


def _spec(rows: Callable[[str], list[tuple]]) -> dict:
    captions: dict[str, list] = {}
    for label, value in rows("view_caption"):
        captions.setdefault(str(label), []).append(value)
    return {
        "columns": {str(r): int(i) for r, i in rows("view_column")},
        "titles": {int(i): str(t) for i, t in rows("view_column_title")},
        "node_looks": {str(k): (str(s), str(f)) for k, s, f in rows("view_node_look")},
        "looks": {str(k): (str(c), str(d), float(w)) for k, c, d, w in rows("view_look")},
        "label_cr": sorted(str(k) for (k,) in rows("view_label_cr")),
        "legend": [(str(k), str(t)) for k, _, t in sorted(rows("view_legend"), key=lambda r: (r[1], str(r[0])))],
        "shown": [(str(k), str(h)) for k, _, h in sorted(rows("view_shown"), key=lambda r: (r[1], str(r[0])))],
        "routes": {str(k): str(lane) for k, lane in rows("view_route")},
        "undirected": sorted(str(k) for (k,) in rows("view_undirected")),
        "captions": [(label, ", ".join(str(v) for v in values)) for label, values in sorted(captions.items())],
    }


def _proof_of_premise(state: Board, fact: tuple) -> tuple[str, str, str]:
    """The rule, CR numbers and displaced defaults of the first premise of the view rule deriving ``fact``."""
    proof = state.explain(fact)
    if proof is None:
        return "", "", ""
    first = next((p for p in proof.premises if p.kind in (ProofKind.RULE, ProofKind.FACT)), None)
    if first is None or first.rule_obj is None or first.fact is None:
        return "", "", ""
    first = state.explain(first.fact) or first
    return (first.rule or "", ", ".join(first.cites), ",".join(d.rule.name or "" for d in first.displaced))


def combat_graph(state: Board) -> nx.MultiDiGraph:
    """The combat graph of ``state`` (a :class:`networkx.MultiDiGraph`; see the module doc)."""
    rows = _view_rows(state)
    spec = _spec(rows)
    active = [p for p, f in rows("view_flag") if f == "active"]
    graph = nx.MultiDiGraph(
        name=state.name or os.path.basename(state.path or "") or "combat",
        active_player=", ".join(map(str, active)),
        view=spec,
    )
    kinds: dict[object, str] = {}
    for n, kind in rows("view_node"):
        kinds.setdefault(n, str(kind))
    roles: dict[object, str] = {}
    for n, role in sorted(rows("view_role"), key=lambda r: (spec["columns"].get(str(r[1]), 99), str(r[1]))):
        roles.setdefault(n, str(role))
    attrs: dict[object, dict[str, list]] = {}
    for n, key, value in rows("view_attr"):
        attrs.setdefault(n, {}).setdefault(str(key), []).append(value)
    for n, key, what, count in rows("view_count"):
        attrs.setdefault(n, {}).setdefault(str(key), []).append(f"{what}:{count}")
    flags = sorted(str(f) for (f,) in rows("view_flag_name"))
    flagged = {(n, str(f)) for n, f in rows("view_flag")}
    groups = rows("view_group")
    group_kinds = sorted({str(k) for _, k in groups})
    member_of: dict[object, list] = {}
    for n, g in rows("view_member"):
        member_of.setdefault(n, []).append(g)
    group_kind = {g: str(k) for g, k in groups}

    for n in sorted(kinds, key=str):
        data: dict[str, object] = {"kind": kinds[n], "label": str(n), "role": roles.get(n, "")}
        data.update({f: (n, f) in flagged for f in flags})
        for k in group_kinds:
            data[k] = ""
        for g in member_of.get(n, []):
            data[group_kind.get(g, "group")] = str(g)
        data.update({k: _joined(v) for k, v in sorted(attrs.get(n, {}).items())})
        graph.add_node(n, **data)

    variants: dict[str, list[str]] = {}
    for kind, variant in rows("view_variant"):
        variants.setdefault(str(kind), []).append(str(variant))
    has_variant = {(u, v, str(k), str(x)) for u, v, k, x in rows("view_edge_variant")}
    texts = {str(k): str(t) for k, t in rows("view_edge_text")}
    proved = {str(k) for (k,) in rows("view_edge_proved")}
    undirected = set(spec["undirected"])
    for u, v, kind in rows("view_edge"):
        kind = str(kind)
        if kind in undirected and graph.has_edge(v, u, kind):
            continue
        for end in (u, v):
            if end not in graph:
                graph.add_node(end, kind="", label=str(end), role="")
        data = {"kind": kind, "label": texts.get(kind, kind)}  # graph attributes: words and flags
        data.update({x: (u, v, kind, x) in has_variant for x in sorted(variants.get(kind, []))})
        if kind in proved:
            rule, cites, displaced = _proof_of_premise(state, ("view_edge", u, v, kind))
            data.update(rule=rule, cites=cites, displaced=displaced)
        graph.add_edge(u, v, key=kind, **data)

    for g, kind in sorted(groups, key=lambda r: (str(r[1]), str(r[0]))):
        kind = str(kind)
        node = f"{kind}:{g}"
        members = sorted((n for n, gs in member_of.items() if g in gs), key=str)
        graph.add_node(node, kind=kind, label=f"{kind} {g}", **{kind: str(g)}, members=",".join(map(str, members)))
        for n in members:
            graph.add_edge(n, node, key=kind, kind=kind, label=texts.get(kind, kind))
    return graph
