"""``judgelog audit``: how the rules interact.

Static (no scenario): the predicate/rule dependency graph grouped by rule file and by keyword (the
``@name`` prefix), which files read what other files derive, the strata of negation, the defaults whose
``not P`` another file can make fail (the exceptions that override them), rules without a CR citation,
predicates declared but never derived or never read, and rules that can never fire.

Dynamic (a scenario, after its actions): which rules fired and for how many facts, which defaults were
displaced for which objects and by which rule, which keywords' rules fed each other, and CONFLICTS — a
predicate declared ``functional(key)`` with two values for one key (an error, exit code 1, with both
proofs). ``--diff A B``: the derived facts that appear or disappear between two scenarios, each with the
rule responsible.

>>> from judgelog import Engine
>>> report = static_audit(Engine().program)
>>> "rules/core/combat.dl" in report["reads"]["rules/keywords/banding.dl"]
True
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx

from .analysis import bound_after
from .ast import Atom, Const, Negation, Rule
from .audit_filter import filter_static
from .audit_report import dependency_dot, diff_text, dynamic_text, static_text
from .bindings import ground, head_text
from .defaults import default_exceptions, internal_predicates
from .defaults import derivers as _derivers
from .errors import UsageError
from .exits import EXIT_NEGATIVE, EXIT_OK
from .fact import Fact, natural_order
from .functional import unguarded_functional
from .program import Program

if TYPE_CHECKING:
    from .change import Event
    from .engine import Engine
    from .state import State

__all__ = [
    "run_audit",
    "static_audit",
    "dynamic_audit",
    "diff_audit",
    "dependency_graph",
    "group_of",
    "rule_count",
    "rules_of_group",
    "internal_predicates",
    "ONLY",
]

ONLY = ("overrides", "conflicts", "interactions")

MAX_ROWS = 500  # bindings looked at per rule (a scenario is small; this bounds pathological ones)


def run_audit(
    engine: Engine,
    *,
    scenario: str | None = None,
    diff: Sequence[str] | None = None,
    dot: str | None = None,
    format: str = "text",
    keyword: str | None = None,
    only: str | None = None,
) -> tuple[dict, str, int]:
    """The ``audit`` verb: returns (JSON document, text, exit code). ``diff`` is two scenario paths; ``dot``
    a file to write the dependency graph to; ``format`` ``dot`` returns the graph as the text."""
    if diff and scenario:
        raise UsageError("give either a SCENARIO or --diff A B, not both")
    if diff:
        data = diff_audit(engine, diff[0], diff[1])
        return data, diff_text(data), EXIT_NEGATIVE if data["conflicts"] else EXIT_OK
    if dot:
        try:
            handle = open(dot, "w", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {dot}: {exc.strerror or exc}") from None
        with handle:
            handle.write(dependency_dot(dependency_graph(engine.program)))
    if format == "dot":
        if scenario:
            raise UsageError("--format dot draws the rules' dependency graph; give no scenario")
        text = dependency_dot(dependency_graph(engine.program))
        return {"dot": text}, text, EXIT_OK
    if scenario:
        data = dynamic_audit(engine, scenario, keyword=keyword, only=only)
        return data, dynamic_text(data), EXIT_NEGATIVE if data["conflicts"] else EXIT_OK
    program = engine.program
    _check_filters(program, keyword, only)
    data = static_audit(program)
    if keyword is not None or only is not None:
        own, naming = rules_of_group(program, keyword) if keyword is not None else ([], [])
        files = {r.span.file for r in own}
        declared = frozenset(p for p, d in program.decls.items() if d.span.file in files)
        data = filter_static(data, own, naming, keyword=keyword, only=only, declared=declared)
    if dot:
        data["dot"] = dot
    return data, static_text(data), EXIT_OK


# -- static ------------------------------------------------------------------------------------------
def group_of(rule: Rule) -> str:
    """The keyword (or core area) a rule belongs to: its ``@name`` prefix, else its file's stem."""
    if rule.name and "." in rule.name:
        return rule.name.split(".", 1)[0]
    return os.path.splitext(os.path.basename(rule.span.file))[0]


def _check_filters(program: Program, keyword: str | None, only: str | None) -> None:
    """``--only`` names a part of the report and ``--keyword`` the ``@name`` group of some rule (UsageError)."""
    if only is not None and only not in ONLY:
        raise UsageError(f"--only takes one of {', '.join(ONLY)}, got {only!r}")
    groups = sorted({group_of(r) for r in _rules(program)})
    if keyword is not None and keyword not in groups:
        from .analysis import suggest

        near = suggest(keyword, groups)
        raise UsageError(
            f"no rules of a keyword or area called {keyword!r}",
            hint=f"did you mean {near!r}?" if near else "groups: " + ", ".join(groups),
        )


def _names(rule: Rule, value: str) -> bool:
    atoms = [rule.head] + [lit.atom if isinstance(lit, Negation) else lit for lit in rule.body]
    return any(isinstance(a, Atom) and any(isinstance(t, Const) and t.value == value for t in a.args) for a in atoms)


def rules_of_group(program: Program, group: str) -> tuple[list[Rule], list[Rule]]:
    """The rules of ``group`` (a keyword or area, judgelog.audit.group_of), and the other rules whose head or
    body names ``group`` as a constant (``has_keyword(B, reach)`` in flying's rules, a card granting it)."""
    own = [r for r in _rules(program) if group_of(r) == group]
    naming = [r for r in _rules(program) if group_of(r) != group and _names(r, group)]
    return own, naming


def _cr(rule: Rule) -> str:
    return ", ".join(rule.cites) or "no CR"


def _body_preds(rule: Rule) -> Iterator[tuple[str, bool]]:
    for lit in rule.body:
        if isinstance(lit, Atom):
            yield lit.pred, False
        elif isinstance(lit, Negation):
            yield lit.atom.pred, True


def _rules(program: Program) -> list[Rule]:
    return [r for r in program.rules if r.body]


def rule_count(program: Program) -> int:
    """The number of rules (facts of rule files not counted): what ``check`` and ``audit`` both report."""
    return len(_rules(program))


def dependency_graph(program: Program) -> nx.DiGraph:
    """Predicates and rules: pred -> rule (body use, ``negative`` for ``not``), rule -> pred (head): the
    program's :attr:`~judgelog.program.Program.rule_graph`, with what a reader of the drawing needs. Rule nodes
    are ``rule:NAME`` with ``file`` and ``group`` (keyword) attributes; every declared predicate is a node."""
    graph = nx.DiGraph()
    for pred, decl in sorted(program.decls.items()):
        graph.add_node(
            pred, kind="predicate", input=decl.is_input, file=decl.span.file, stratum=program.strata.get(pred, 0)
        )
    for node, data in program.rule_graph.nodes(data=True):
        if data["kind"] == "rule":
            rule = data["rule"]
            graph.add_node(
                node, kind="rule", file=rule.span.file, group=group_of(rule), cites=_cr(rule), line=rule.span.line
            )
    for pred, node, data in program.rule_graph.edges(data=True):
        graph.add_edge(
            pred, node, kind=data["kind"], **({"negative": data["negative"]} if data["kind"] == "body" else {})
        )
    return graph


def possible_predicates(program: Program, also: Iterable[str] = ()) -> set[str]:
    """Predicates that can hold given the declared inputs (negation ignored: it never makes a rule fire) and
    the predicates ``also`` (extension points, which card or keyword files derive)."""
    possible = {p for p, d in program.decls.items() if d.is_input} | set(also)
    possible |= {r.head.pred for r in program.rules if not r.body}
    changed = True
    while changed:
        changed = False
        for rule in _rules(program):
            if rule.head.pred not in possible and all(p in possible for p, neg in _body_preds(rule) if not neg):
                possible.add(rule.head.pred)
                changed = True
    return possible


def static_audit(program: Program) -> dict:
    rules = _rules(program)
    derivers = _derivers(program)
    reads: dict[str, dict[str, set[str]]] = {}
    group_reads: dict[str, dict[str, set[str]]] = {}
    for rule in rules:
        for pred, _ in _body_preds(rule):
            for other in derivers.get(pred, ()):
                if other.span.file != rule.span.file:
                    reads.setdefault(rule.span.file, {}).setdefault(other.span.file, set()).add(pred)
                if group_of(other) != group_of(rule):
                    group_reads.setdefault(group_of(rule), {}).setdefault(group_of(other), set()).add(pred)
    used = {p for p in program.graph if program.graph.out_degree(p)}  # read by some rule
    possible = possible_predicates(program)
    strata: dict[int, list[str]] = {}
    for pred in sorted(derivers):
        strata.setdefault(program.strata.get(pred, 0), []).append(pred)
    defaults: dict[tuple[str | None, str], dict] = {}
    for d, neg, by in default_exceptions(program, hooks_only=True):
        entry = defaults.setdefault(
            (d.name, neg.atom.pred),
            {
                "rule": d.name,
                "cites": list(d.cites),
                "at": d.span.short(),
                "negates": [],
                "predicate": neg.atom.pred,
                "exceptions": [{"rule": r.name, "cites": list(r.cites), "at": r.span.short()} for r in by],
            },
        )
        entry["negates"].append(str(neg.atom))
    files: dict[str, dict[str, Any]] = {}  # file -> {"rules": count, "groups": set of keywords}
    for rule in rules:
        entry = files.setdefault(rule.span.file, {"rules": 0, "groups": set()})
        entry["rules"] += 1
        entry["groups"].add(group_of(rule))
    hooks = internal_predicates(program, "extension_point")  # card or keyword files derive them: rules wait
    underived = [p for p, d in program.decls.items() if not d.is_input and p not in program.rules_by_head]
    unfired: list[dict[str, Any]] = [
        {"rule": r.name, "at": r.span.short(), "missing": missing}
        for r in rules
        if (missing := sorted({p for p, neg in _body_preds(r) if not neg and p not in possible}))
    ]
    with_hooks = possible_predicates(program, hooks)
    return {
        "mode": "static",
        "rules": len(rules),
        "predicates": len(program.decls),
        "file_count": len(files),
        "files": {f: {"rules": e["rules"], "groups": sorted(e["groups"])} for f, e in sorted(files.items())},
        "reads": {a: {b: sorted(ps) for b, ps in sorted(m.items())} for a, m in sorted(reads.items())},
        "group_reads": {a: {b: sorted(ps) for b, ps in sorted(m.items())} for a, m in sorted(group_reads.items())},
        "strata": {str(k): v for k, v in sorted(strata.items())},
        "defaults": list(defaults.values()),
        "unguarded_functional": unguarded_functional(program),
        "uncited": [{"rule": r.name, "at": r.span.short()} for r in rules if not r.cites],
        "never_derived": sorted(p for p in underived if p not in hooks),
        "extension_points": sorted(p for p in underived if p in hooks),
        "never_read": sorted(p for p in program.decls if p not in used),
        "never_fire": [r for r in unfired if not with_hooks.issuperset(r["missing"])],
        "waiting": [r for r in unfired if with_hooks.issuperset(r["missing"])],
    }


# -- dynamic -----------------------------------------------------------------------------------------
def _final_state(engine: Engine, path: str) -> tuple[State, list[Event]]:
    from .replay import run_actions

    state = engine.load(path)
    final, events = run_actions(state)
    return final, events


def _rule_ref(rule: Rule | None) -> dict:
    if rule is None:
        return {"rule": None, "cites": [], "at": None}
    return {"rule": rule.name, "cites": list(rule.cites), "at": rule.span.short()}


def _firings(state: State) -> tuple[dict[int, set[tuple]], dict[tuple, list[Rule]], dict[int, list[dict]]]:
    """For every rule: the head facts it derives in ``state`` and (some of) its body bindings."""
    program, backend = state.engine.program, state.engine.backend
    fired: dict[int, set[tuple]] = {}
    bindings: dict[int, list[dict]] = {}
    by_fact: dict[tuple, list[Rule]] = {}
    with backend.session(state.facts) as view:
        for rule in _rules(program):
            names = sorted(bound_after(rule.body, set()))
            rows = [dict(zip(names, row)) for row in backend.ask(view, rule.body, names)]
            if rule.aggregate is not None:
                facts = backend.aggregate_facts(view, rule)
            else:
                facts = {ground(rule.head, b) for b in rows}
            if facts:
                fired[id(rule)] = facts
                bindings[id(rule)] = rows[:MAX_ROWS]
                for fact in facts:
                    by_fact.setdefault(fact, []).append(rule)
    return fired, by_fact, bindings


def _functional_groups(state: State, pred: str) -> dict[tuple, list[tuple]]:
    decl = state.engine.program.decl(pred)
    assert decl is not None  # asked for declared functional predicates only
    keys = decl.key_positions
    groups: dict[tuple, list[tuple]] = {}
    for fact in state.derived(pred):
        groups.setdefault(tuple(fact[1 + i] for i in keys), []).append(fact)
    return groups


def conflicts(state: State) -> list[dict]:
    """Facts of a functional(key) predicate with two or more values for one key, with their proofs."""
    out = []
    program = state.engine.program
    for pred, decl in sorted(program.decls.items()):
        if not decl.functional:
            continue
        for key, facts in sorted(_functional_groups(state, pred).items(), key=repr):
            if len(facts) < 2:
                continue
            values = []
            for fact in facts:
                proof = state.explain(fact)
                values.append(
                    dict(
                        _rule_ref(proof.rule_obj if proof else None),
                        fact=str(Fact(*fact)),
                        proof=proof.to_dict() if proof else None,
                        proof_text=proof.to_text(2) if proof else "",
                    )
                )
            out.append(
                {
                    "predicate": pred,
                    "functional": list(decl.functional),
                    "key": dict(zip(decl.functional, key)),
                    "values": values,
                }
            )
    return out


def _about_the_scenario(rule: Rule, facts: Iterable[tuple], bindings: Iterable[dict[str, object]], ids: set) -> bool:
    """Whether a rule that fired did so for things of the scenario: an id of the state among its head facts
    or body bindings (a rule that only combines the library's own facts, e.g. token names, did not)."""
    if any(a in ids for f in facts for a in f[1:]):
        return True
    return any(v in ids for b in bindings for v in b.values())


def _groups_in_play(program: Program, keywords: set[str]) -> set[str]:
    """The keywords objects have, and the groups of the rules in the files that declare them
    (``keyword(K).``): a keyword declared with another's rules is a form of it (``bands_with_other`` in
    banding's file, 702.22b), whose rules are in play with it."""
    files = {
        r.span.file
        for r in program.rules
        if r.head.pred == "keyword" and not r.body and r.head.args and str(r.head.args[0]) in keywords
    }
    return keywords | {group_of(r) for r in program.rules if r.span.file in files}


def dynamic_audit(engine: Engine, path: str, *, keyword: str | None = None, only: str | None = None) -> dict:
    """The dynamic audit of a scenario (after its actions). ``keyword``: only what concerns that keyword's
    rules (its ``@name`` group); ``only``: one of ONLY."""
    from .constants import typed_ids

    _check_filters(engine.program, None, only)
    state, events = _final_state(engine, path)
    program, backend = state.engine.program, state.engine.backend
    _check_filters(program, keyword, None)  # the scenario's own rule files may name the group
    fired, by_fact, bindings = _firings(state)
    rules = _rules(program)
    ids = set().union(*typed_ids(state).values())
    internal = internal_predicates(program)
    library_only = [
        r for r in rules if id(r) in fired and not _about_the_scenario(r, fired[id(r)], bindings[id(r)], ids)
    ]
    for r in library_only:
        fired.pop(id(r))
    # a keyword's rules that fired although no object has the keyword (e.g. "unpaired" for every creature
    # when nothing has soulbond): listed apart, not as rules of the scenario
    in_play = _groups_in_play(program, {str(row["K"]) for row in state.query("has_keyword(O, K)")})
    idle = [
        r
        for r in rules
        if id(r) in fired and group_of(r) in state.engine.interface.keywords and group_of(r) not in in_play
    ]
    for r in idle:
        fired.pop(id(r))
    fired_rules = [r for r in rules if id(r) in fired]
    # keywords whose rules fed each other: a fired rule's premise derived by another group's rule
    interactions: dict[tuple[str, str], dict] = {}
    for rule in fired_rules:
        for binding in bindings[id(rule)]:
            for lit in rule.body:
                if not isinstance(lit, Atom):
                    continue
                fact = ground(lit, binding)
                for other in by_fact.get(fact, ()):
                    pair = (group_of(rule), group_of(other))
                    if pair[0] != pair[1]:
                        entry = interactions.setdefault(
                            pair,
                            {
                                "reader": pair[0],
                                "deriver": pair[1],
                                "count": 0,
                                "example": f"{rule.name} used {Fact(*fact)} from {other.name}",
                            },
                        )
                        entry["count"] += 1
    # defaults displaced: the positive part of a default holds, its `not P` fails because P was derived
    overrides: list[dict] = []
    checks: list[dict] = []  # internal helpers of a rule file whose `not` failed: not user-facing overrides
    seen = set()
    with backend.session(state.facts) as view:
        for default, neg, _ in default_exceptions(program):
            flipped = tuple(neg.atom if lit is neg else lit for lit in default.body)
            names = sorted(bound_after(flipped, set()))
            for row in backend.ask(view, flipped, names)[:MAX_ROWS]:
                binding = dict(zip(names, row))
                # the fact it would give; an aggregate's default, the term it would add (head_text)
                would_text, because = head_text(default.head, binding), ground(neg.atom, binding)
                if (default.name, would_text, because) in seen:
                    continue
                seen.add((default.name, would_text, because))
                by = next(iter(by_fact.get(because) or []), None)
                if default.head.pred in internal:
                    checks.append(
                        {
                            "rule": default.name,
                            "cites": list(default.cites),
                            "at": default.span.short(),
                            "not": would_text,
                            "because": str(Fact(*because)),
                        }
                    )
                    continue
                entry = {
                    "default": default.name,
                    "cites": list(default.cites),
                    "at": default.span.short(),
                    "would_give": would_text,
                    "because": str(Fact(*because)),
                    "by": _rule_ref(by),
                    "by_group": group_of(by) if by else None,
                }
                decl = program.decl(default.head.pred)
                if decl is not None and decl.functional and default.aggregate is None:
                    would = ground(default.head, binding)
                    keys = decl.key_positions
                    actual = [f for f in state.derived(would[0]) if all(f[1 + i] == would[1 + i] for i in keys)]
                    entry["instead"] = [
                        dict(_rule_ref(next(iter(by_fact.get(f) or []), None)), fact=str(Fact(*f)))
                        for f in actual
                        if f != would
                    ]
                overrides.append(entry)
                if by is not None and group_of(by) != group_of(default):
                    pair = (group_of(default), group_of(by))
                    interactions.setdefault(
                        pair,
                        {
                            "reader": pair[0],
                            "deriver": pair[1],
                            "count": 0,
                            "example": f"{by.name} displaced {default.name} ({Fact(*because)})",
                        },
                    )["count"] += 1
    event_rules: dict[str, int] = {}
    for event in events:
        # the rule an event names, and the keyword's rule that made a triggered ability put on the stack
        for name in (event.rule, event.details.get("trigger")):
            if isinstance(name, str) and name:
                event_rules[name] = event_rules.get(name, 0) + 1
    found_conflicts = conflicts(state)
    interactions_ = [interactions[k] for k in sorted(interactions)]
    if keyword is not None:
        fired_rules = [r for r in fired_rules if group_of(r) == keyword]
        event_rules = {name: n for name, n in event_rules.items() if name.split(".", 1)[0] == keyword}
        overrides = [o for o in overrides if o["default"].split(".")[0] == keyword or o["by_group"] == keyword]
        checks = [c for c in checks if c["rule"].split(".")[0] == keyword]
        interactions_ = [i for i in interactions_ if keyword in (i["reader"], i["deriver"])]
        found_conflicts = [
            c for c in found_conflicts if any((v.get("rule") or "").split(".")[0] == keyword for v in c["values"])
        ]
    data = {
        "mode": "scenario",
        "scenario": path,
        "name": state.name,
        "keyword": keyword,
        "only": only,
        "actions": len(state.meta.scenario.actions) if state.meta.scenario is not None else 0,
        "events": [e.to_dict() for e in events],
        "event_rules": event_rules,
        "rules_total": len(rules),
        "fired": [
            dict(_rule_ref(r), group=group_of(r), file=r.span.file, facts=len(fired[id(r)])) for r in fired_rules
        ],
        "library_only": [r.name for r in library_only],
        "keyword_not_in_play": [r.name for r in idle],
        "not_fired": [r.name for r in rules if id(r) not in fired and r not in library_only and r not in idle],
        "overrides": overrides,
        "internal_checks": checks,
        # a rule that fired only while an action ran (a trigger, a resolution, a result of damage) counts too
        "keywords": sorted({group_of(r) for r in fired_rules} | _event_groups(event_rules, keyword)),
        "interactions": interactions_,
        "conflicts": found_conflicts,
    }
    return data


def _event_groups(event_rules: dict[str, int], keyword: str | None) -> set[str]:
    """The keywords (``@name`` prefixes) of the rules that caused events during the actions."""
    groups = {name.split(".", 1)[0] for name in event_rules if "." in name}
    return {g for g in groups if keyword is None or g == keyword}


# -- diff --------------------------------------------------------------------------------------------
def diff_audit(engine: Engine, path_a: str, path_b: str) -> dict:
    (a, _), (b, _) = _final_state(engine, path_a), _final_state(engine, path_b)
    preds = sorted(set(_derivers(a.engine.program)) | set(_derivers(b.engine.program)))

    def facts(state: State) -> set[tuple]:
        out: set[tuple] = set()
        for pred in preds:
            if state.engine.program.decl(pred) is not None:
                out.update(state.derived(pred))
        return out

    fa, fb = facts(a), facts(b)

    def entry(state: State, fact: tuple) -> dict:
        proof = state.explain(fact)
        return dict(_rule_ref(proof.rule_obj if proof else None), fact=str(Fact(*fact)))

    changed = []
    for pred in preds:
        decl = a.engine.program.decl(pred) or b.engine.program.decl(pred)
        if decl is None or not decl.functional:
            continue
        ga = _functional_groups(a, pred) if a.engine.program.decl(pred) else {}
        gb = _functional_groups(b, pred) if b.engine.program.decl(pred) else {}
        for key in sorted(set(ga) | set(gb), key=natural_order):
            if sorted(ga.get(key, [])) != sorted(gb.get(key, [])):
                changed.append(
                    {
                        "predicate": pred,
                        "key": dict(zip(decl.functional, key)),
                        "before": [entry(a, f) for f in sorted(ga.get(key, []), key=natural_order)],
                        "after": [entry(b, f) for f in sorted(gb.get(key, []), key=natural_order)],
                    }
                )
    return {
        "mode": "diff",
        "a": path_a,
        "b": path_b,
        "inputs": {
            "added": [str(Fact(*f)) for f in sorted(b.facts - a.facts, key=natural_order)],
            "removed": [str(Fact(*f)) for f in sorted(a.facts - b.facts, key=natural_order)],
        },
        "appeared": [entry(b, f) for f in sorted(fb - fa, key=natural_order)],
        "disappeared": [entry(a, f) for f in sorted(fa - fb, key=natural_order)],
        "changed": changed,
        "conflicts": conflicts(a) + conflicts(b),
    }
