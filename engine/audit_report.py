"""The ``audit`` reports as text and as Graphviz DOT: what judgelog.audit found, laid out for a reader.

>>> from judgelog import Engine
>>> from judgelog.audit import static_audit
>>> print(static_text(static_audit(Engine().program)).splitlines()[0])  # doctest: +ELLIPSIS
Static audit: ... rules, ... predicates, ... files
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from .ast import format_value

__all__ = ["dependency_dot", "static_text", "dynamic_text", "diff_text"]


def dependency_dot(graph: nx.DiGraph) -> str:
    """The rule/predicate dependency graph (judgelog.audit.dependency_graph) as deterministic Graphviz DOT,
    one cluster per rule file."""
    from .graph import to_dot

    clusters: dict[str, tuple[str, list]] = {}
    for node, d in graph.nodes(data=True):
        if d["kind"] == "rule":
            clusters.setdefault(d["file"], (d["file"], []))[1].append(node)
    return to_dot(
        graph,
        name="rules",
        graph_attrs={"rankdir": "LR"},
        clusters=clusters,
        node_style=lambda n, d: {"shape": "box" if d["kind"] == "rule" else "ellipse"},
        edge_style=lambda u, v, k, d: {"style": "dashed" if d.get("negative") else "solid"},
    )


def _rule_refs(title: str, refs: Sequence[dict]) -> list[str]:
    return ["", f"{title}: {len(refs)}"] + [f"  {r['rule']} [CR {', '.join(r['cites'])}] {r['at']}" for r in refs]


def static_text(data: dict) -> str:
    """The static audit as text; with ``keyword`` (``--keyword``) its rules first, with ``only`` (``--only``)
    only that part (judgelog.audit_filter)."""
    keyword, only = data.get("keyword"), data.get("only")
    head = f"Static audit: {data['rules']} rules, {data['predicates']} predicates, {data['file_count']} files"
    if keyword:
        head += f"; keyword {keyword}: {len(data['keyword_rules'])} rule(s) in {len(data['files'])} file(s)"
    lines = [head + (f"; only {only}" if only else "")]
    if keyword and not only:
        lines += _rule_refs(f"Rules of {keyword}", data["keyword_rules"])
        lines += _rule_refs(f"Rules of other keywords or areas naming {keyword}", data["naming_rules"])
    if not only:
        lines += ["", "Rule files (keywords / areas by @name prefix):"]
        lines += [f"  {f}  {e['rules']} rules  [{', '.join(e['groups'])}]" for f, e in data["files"].items()]
    if "reads" in data:
        lines += ["", "Interactions: which rule files read what other files derive:"]
        for reader, m in data["reads"].items():
            lines.append(f"  {reader} reads")
            lines += [f"    {src}: {', '.join(ps)}" for src, ps in m.items()]
        lines += ["", "By keyword (reader <- deriver: predicates):"]
        for reader, m in data["group_reads"].items():
            lines.append(f"  {reader} <- " + "; ".join(f"{g}: {', '.join(ps)}" for g, ps in m.items()))
    if "strata" in data:
        lines += ["", "Strata of negation (derived predicates):"]
        lines += [f"  {k}: {', '.join(v)}" for k, v in data["strata"].items()]
    if "defaults" in data:
        lines += ["", "Defaults and the exceptions that can displace them:"]
        for d in data["defaults"]:
            ex = ", ".join(f"{e['rule']} (CR {', '.join(e['cites'])})" for e in d["exceptions"])
            lines.append(
                f"  default {d['rule']} (CR {', '.join(d['cites'])}) {d['at']} can be displaced by {ex} "
                f"deriving {d['predicate']}"
            )
    if "unguarded_functional" in data:
        lines += _unguarded_lines(data["unguarded_functional"])
    if only:
        return "\n".join(lines)
    for title, key, why in (
        ("Rules without a CR citation", "uncited", ""),
        ("Rules that can never fire", "never_fire", "nothing can derive"),
        ("Rules waiting for an extension point (a card or keyword file derives it)", "waiting", "reads"),
    ):
        if key not in data:
            continue
        lines += ["", f"{title}: {len(data[key])}"]
        lines += [
            f"  {r['rule']} {r['at']}" + (f"  ({why} {', '.join(r['missing'])})" if r.get("missing") else "")
            for r in data[key]
        ]
    lines += [
        "",
        f"Declared, not input, never derived: {', '.join(data['never_derived']) or 'none'}",
        f"Extension points no loaded file derives: {', '.join(data.get('extension_points', ())) or 'none'}",
        f"Never read by a rule (outputs, or unused): {', '.join(data['never_read']) or 'none'}",
    ]
    return "\n".join(lines)


def _unguarded_lines(unguarded: Sequence[dict]) -> list[str]:
    lines = [
        "",
        f"Functional predicates derived without a guard (a CONFLICT where both rules apply): {len(unguarded)}",
    ]
    for u in unguarded:
        key, others = (
            ", ".join(u["functional"]),
            ", ".join(f"{o['rule']} [CR {', '.join(o['cites'])}]" for o in u["others"]),
        )
        lines += [
            f"  warning: {u['predicate']} is functional({key}) but {u['rule']} [CR {', '.join(u['cites'])}] {u['at']} "
            f"derives it with no guard against {others}: one {key} can get 2 values",
            "    hint: write it as an exception: "
            + (
                f"derive {' or '.join(u['hooks'])} under its condition, so that the default steps aside"
                if u["hooks"]
                else "negate what the other rules read, or read what they negate"
            ),
        ]
    return lines


def _conflict_lines(conflicts_: Sequence[dict]) -> list[str]:
    lines = []
    for c in conflicts_:
        key = ", ".join(f"{k} = {format_value(v)}" for k, v in c["key"].items())
        lines.append(
            f"  error: CONFLICT {c['predicate']} is functional({', '.join(c['functional'])}) but "
            f"{key} has {len(c['values'])} values:"
        )
        lines += [v["proof_text"] for v in c["values"]]
    return lines


def dynamic_text(data: dict) -> str:
    only = data.get("only")
    head = [
        f"Audit of {data['scenario']} ({data['name']}): {data['actions']} action(s), "
        f"{len(data['events'])} event(s)" + (f"; keyword {data['keyword']}" if data.get("keyword") else "")
    ]
    if only == "overrides":
        return "\n".join(head + [""] + _override_lines(data))
    if only == "interactions":
        return "\n".join(head + [""] + _interaction_lines(data))
    if only == "conflicts":
        return "\n".join(
            head + ["", f"Conflicts: {len(data['conflicts']) or 'none'}"] + _conflict_lines(data["conflicts"])
        )
    lines = head + [
        "",
        f"Rules that fired for the scenario's objects: {len(data['fired'])} of {data['rules_total']} "
        f"(facts derived; {len(data.get('library_only', []))} more only combined the library's own "
        f"facts, {len(data.get('keyword_not_in_play', []))} more belong to keywords no object has: "
        f"{', '.join(sorted({n.split('.')[0] for n in data.get('keyword_not_in_play', [])})) or 'none'})"
        ":",
    ]
    current = None
    for r in data["fired"]:
        if r["file"] != current:
            current = r["file"]
            lines.append(f"  {current}")
        lines.append(f"    {r['rule']} [CR {', '.join(r['cites'])}]  {r['facts']}")
    if data["event_rules"]:
        lines += ["", "Rules that caused events during the actions:"]
        lines += [f"  {name}  {n}" for name, n in sorted(data["event_rules"].items())]
    lines += [""] + _override_lines(data)
    lines += ["", f"Keywords whose rules fired: {', '.join(data['keywords'])}"] + _interaction_lines(data)
    lines += ["", f"Conflicts: {len(data['conflicts']) or 'none'}"] + _conflict_lines(data["conflicts"])
    return "\n".join(lines)


def _override_lines(data: dict) -> list[str]:
    lines = ["Defaults overridden:" if data["overrides"] else "Defaults overridden: none"]
    for o in data["overrides"]:
        by = o["by"]
        lines.append(
            f"  {o['default']} [CR {', '.join(o['cites'])}] would give {o['would_give']}, but "
            f"{o['because']} holds (by {by['rule']} [CR {', '.join(by['cites'])}])"
        )
        for inst in o.get("instead", []):
            lines.append(f"    instead: {inst['fact']} by {inst['rule']} [CR {', '.join(inst['cites'])}]")
    checks = data.get("internal_checks", [])
    if checks:
        lines += ["", f"Internal checks of the library (helpers declared with internal/1): {len(checks)}"]
        lines += [f"  {c['rule']} [CR {', '.join(c['cites'])}]: not {c['not']}, because {c['because']}" for c in checks]
    return lines


def _interaction_lines(data: dict) -> list[str]:
    return ["Interactions (reader <- deriver):"] + [
        f"  {i['reader']} <- {i['deriver']}  x{i['count']}  e.g. {i['example']}" for i in data["interactions"]
    ]


def diff_text(data: dict) -> str:
    def ref(e: dict) -> str:
        return (
            f"{e['fact']}  <- {e['rule']} [CR {', '.join(e['cites'])}] {e['at']}"
            if e["rule"]
            else f"{e['fact']}  [fact]"
        )

    lines = [f"Diff {data['a']} -> {data['b']}", "", "Input facts:"]
    lines += [f"  + {f}" for f in data["inputs"]["added"]] + [f"  - {f}" for f in data["inputs"]["removed"]]
    lines += ["", f"Derived facts that appear: {len(data['appeared'])}"] + [f"  + {ref(e)}" for e in data["appeared"]]
    lines += ["", f"Derived facts that disappear: {len(data['disappeared'])}"]
    lines += [f"  - {ref(e)}" for e in data["disappeared"]]
    if data["changed"]:
        lines += ["", "Changed values (functional predicates):"]
        for c in data["changed"]:
            key = ", ".join(f"{k} = {format_value(v)}" for k, v in c["key"].items())
            before = "; ".join(ref(e) for e in c["before"]) or "(none)"
            after = "; ".join(ref(e) for e in c["after"]) or "(none)"
            lines.append(f"  {c['predicate']} ({key}): {before}\n    => {after}")
    if data["conflicts"]:
        lines += ["", f"Conflicts: {len(data['conflicts'])}"] + _conflict_lines(data["conflicts"])
    return "\n".join(lines)
