"""Static analysis of a rule program: declarations, arity, safety, stratification, names, citations.

:func:`analyze` returns a :class:`Program` plus every diagnostic of the run (it does not stop at the first).
The program also carries what the backend needs: a body order in which every comparison and negation
is evaluated with its variables bound, and the strata of negation.

>>> from judgelog.parser import parse_text
>>> f = parse_text('''
... .decl d(x: atom) "" input
... .decl p(x: atom) ""
... .decl q(x: atom) ""
... @name t.p
... @cr 100.1
... p(X) :- d(X), not q(X).
... @name t.q
... @cr 100.1
... q(X) :- d(X), not p(X).
... ''', "t.dl")
>>> program, diags = analyze([f])
>>> [d.code for d in diags]
['E005']
>>> print(diags[0].message)
negation cycle: p -> not q -> not p (not stratifiable)
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from .ast import (
    Aggregate,
    Atom,
    BinOp,
    Comparison,
    Const,
    Decl,
    Literal,
    Negation,
    Rule,
    RuleFile,
    Span,
    Term,
    Var,
    literal_vars,
    term_vars,
)
from .codes import E001, E002, E003, E004, E005, E006, E007, E008, E009, E012, E013, E014
from .errors import Diagnostic, QueryError
from .parser import AGGREGATES
from .program import Program
from .recursion import unbounded_arithmetic
from .typecheck import arithmetic_problems

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["analyze", "check_query", "checked_question", "suggest", "ready", "order_body", "bound_after", "INT_TYPES"]

INT_TYPES = {"int", "integer", "number", "n"}


def suggest(word: str, choices: Iterable[str], *, cutoff: float = 0.7) -> str | None:
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return match[0] if match else None


def bound_after(literals: Sequence, bound: set[str]) -> set[str]:
    bound = set(bound)
    for lit in literals:
        if isinstance(lit, Atom):
            bound |= literal_vars(lit)
        elif isinstance(lit, Comparison) and lit.op == "=":
            for side, other in ((lit.left, lit.right), (lit.right, lit.left)):
                if isinstance(side, Var) and term_vars(other) <= bound:
                    bound.add(side.name)
    return bound


def ready(lit: Literal, bound: set[str]) -> bool:
    """Can a comparison or negation be evaluated once the variables ``bound`` are known?"""
    if isinstance(lit, Negation):
        named = {v for v in literal_vars(lit) if not v.startswith("_")}
        return named <= bound
    if isinstance(lit, Comparison):
        left, right = term_vars(lit.left), term_vars(lit.right)
        if lit.op == "=":
            if left <= bound and right <= bound:
                return True
            return (isinstance(lit.left, Var) and right <= bound) or (isinstance(lit.right, Var) and left <= bound)
        return (left | right) <= bound
    return True


def order_body(body: Sequence, bound: Iterable[str] = ()) -> tuple[tuple, set[str]]:
    """Evaluation order: positive atoms as written; each comparison or negation as soon as its variables
    are bound. Returns the order and the variables never bound (for the safety check)."""
    bound = set(bound)
    waiting = [lit for lit in body if not isinstance(lit, Atom)]
    out = []

    def flush() -> None:
        progress = True
        while progress:
            progress = False
            for lit in list(waiting):
                if ready(lit, bound):
                    waiting.remove(lit)
                    out.append(lit)
                    bound.update(bound_after([lit], bound))
                    progress = True

    flush()
    for lit in body:
        if isinstance(lit, Atom):
            out.append(lit)
            bound.update(literal_vars(lit))
            flush()
    unbound: set[str] = set()
    for lit in waiting:
        out.append(lit)
        unbound |= {v for v in literal_vars(lit) if not (isinstance(lit, Negation) and v.startswith("_"))} - bound
    return tuple(out), unbound


def analyze(
    files: Sequence[RuleFile],
    *,
    require_annotations: bool | Callable[[str], bool] = True,
    sources: dict | None = None,
    builtin_decls: Sequence[Decl] = (),
) -> tuple[Program, list[Diagnostic]]:
    """Analyse ``files`` together. ``require_annotations`` (a bool, or a function of the file path) makes a
    missing @name/@cr on a rule an error (else a warning). Bodiless facts need no annotations."""
    strict = require_annotations if callable(require_annotations) else (lambda _path: require_annotations)
    prog = Program(files=list(files), sources=dict(sources or {}))
    diags: list[Diagnostic] = []
    for decl in builtin_decls:
        prog.decls[decl.pred] = decl
    for rf in files:
        for item in rf.items:
            if isinstance(item, Decl):
                old = prog.decls.get(item.pred)
                if old is not None and (old.params != item.params or old.is_input != item.is_input):
                    diags.append(
                        Diagnostic(
                            E009,
                            f"predicate {item.pred!r} is declared twice, differently",
                            item.span,
                            hint=f"first declared at {old.span.location()}",
                        )
                    )
                    continue
                param_names = [p.name for p in item.params]
                twice = sorted({n for n in param_names if param_names.count(n) > 1})
                if twice:
                    diags.append(
                        Diagnostic(
                            E001,
                            f"parameter {twice[0]!r} of {item.pred} is named twice",
                            item.span,
                            hint="give every parameter its own name",
                        )
                    )
                if old is None:
                    prog.decls[item.pred] = item
                for key in item.functional:
                    if key not in {p.name for p in item.params}:
                        diags.append(Diagnostic(E001, f"functional({key}) names no argument of {item.pred}", item.span))
            elif isinstance(item, Rule):
                prog.rules.append(item)

    names: dict[str, Rule] = {}
    for rule in prog.rules:
        diags.extend(_check_atoms(rule, prog))
        diags.extend(_check_safety(rule, prog))
        diags.extend(arithmetic_problems(rule.body, prog.decls, INT_TYPES))
        if rule.name is not None:
            first = names.get(rule.name)
            if first is not None:
                diags.append(
                    Diagnostic(
                        E006,
                        f"duplicate rule name {rule.name!r}",
                        rule.span,
                        hint=f"first used at {first.span.location()}; @name must be unique",
                    )
                )
            else:
                names[rule.name] = rule
        severity = "error" if strict(rule.span.file) else "warning"
        if rule.name is None and rule.body:
            diags.append(
                Diagnostic(
                    E007,
                    "rule has no @name",
                    rule.span,
                    severity=severity,
                    hint="add a line '@name file.what_it_does' above the rule",
                )
            )
        if not rule.cites and rule.body:
            diags.append(
                Diagnostic(
                    E008,
                    "rule cites no Comprehensive Rules number",
                    rule.span,
                    severity=severity,
                    hint="add a line '@cr 702.22j' above the rule",
                )
            )
        prog.rules_by_head.setdefault(rule.head.pred, []).append(rule)
        ordered, _ = order_body(rule.body)
        prog.ordered_bodies[id(rule)] = ordered
    prog.rule_by_name = names

    for rule in prog.rules:
        head_decl = prog.decls.get(rule.head.pred)
        if head_decl is not None and head_decl.is_input and rule.body:
            diags.append(
                Diagnostic(
                    E012,
                    f"{rule.head.pred!r} is an input predicate but a rule derives it",
                    rule.span,
                    severity="warning",
                    hint="input predicates hold scenario facts; derive a new predicate instead",
                )
            )
    diags.extend(_stratify(prog))
    diags.extend(unbounded_arithmetic(prog))
    return prog, diags


def _declaration_problem(
    atom: Atom, program: Program, *, unknown: tuple[str, str], arity_hint: Callable[[Decl], str]
) -> Diagnostic | None:
    """E002 when ``atom``'s predicate is not declared (``unknown``: the message, and the hint when no declared
    name is near), E003 when its arity is not the declared one (``arity_hint`` of the declaration)."""
    decl = program.decls.get(atom.pred)
    if decl is None:
        message, fallback = unknown
        near = suggest(atom.pred, program.decls)
        return Diagnostic(E002, message, atom.span, hint=f"did you mean {near!r}?" if near else fallback)
    if decl.arity != atom.arity:
        message = f"{atom.pred} takes {decl.arity} argument(s), given {atom.arity}"
        return Diagnostic(E003, message, atom.span, hint=arity_hint(decl))
    return None


_AGG_HINT = "aggregates (sum, count, min, max) may appear only as an argument of a rule head"


def _check_atoms(rule: Rule, prog: Program) -> list[Diagnostic]:
    out = []
    atoms = [rule.head] + [
        lit.atom if isinstance(lit, Negation) else lit for lit in rule.body if isinstance(lit, (Atom, Negation))
    ]
    for i, atom in enumerate(atoms):
        problem = _declaration_problem(
            atom,
            prog,
            unknown=(f"undeclared predicate {atom.pred!r}", f'declare it: .decl {atom.pred}(...) "sentence"'),
            arity_hint=lambda d: (
                f"declared at {d.span.location()}: {d.pred}({', '.join(p.name + ': ' + p.type for p in d.params)})"
            ),
        )
        if problem is not None and problem.code == E002 and i != 0 and atom.pred in AGGREGATES:
            problem = Diagnostic(E014, f"aggregate {atom.pred}(...) outside a rule head", atom.span, hint=_AGG_HINT)
        if problem is not None:
            out.append(problem)
            continue
        decl = prog.decls[atom.pred]
        for param, arg in zip(decl.params, atom.args):
            if isinstance(arg, Aggregate):
                if i != 0:
                    out.append(
                        Diagnostic(
                            E014,
                            "aggregates are allowed only in a rule head",
                            arg.span,
                            hint=_AGG_HINT,
                        )
                    )
                continue
            if isinstance(arg, Const):
                if param.type in INT_TYPES and not isinstance(arg.value, int):
                    out.append(
                        Diagnostic(
                            E013,
                            f"argument {param.name!r} of {atom.pred} is an integer, given {arg.value!r}",
                            arg.span,
                            hint=f"declared at {decl.span.location()} as {param.name}: "
                            f"{param.type}; write a whole number or a variable",
                        )
                    )
            elif isinstance(arg, BinOp):
                out.append(
                    Diagnostic(
                        E001,
                        "arithmetic is allowed only in comparisons",
                        arg.span,
                        hint="bind a variable first: N = M + 1",
                    )
                )
    aggs = [a for a in rule.head.args if isinstance(a, Aggregate)]
    if len(aggs) > 1:
        out.append(
            Diagnostic(
                E014, "a rule head may hold at most one aggregate", aggs[1].span, hint="write one rule per aggregate"
            )
        )
    if aggs and not rule.body:
        out.append(
            Diagnostic(
                E014,
                "an aggregate needs a rule body",
                aggs[0].span,
                hint="aggregate over the bindings of a body: total(O, sum(N)) :- bonus(O, _, N).",
            )
        )
    return out


def _check_safety(rule: Rule, prog: Program) -> list[Diagnostic]:
    out = []
    bound = bound_after([lit for lit in rule.body if isinstance(lit, Atom)], set())
    # comparisons may bind by assignment, in any order
    bound = bound_after(list(rule.body) * 2, bound)
    reported = set()
    for lit in rule.body:
        if isinstance(lit, Negation):
            for arg in lit.atom.args:
                if isinstance(arg, Var) and not arg.anonymous and arg.name not in bound and arg.name not in reported:
                    reported.add(arg.name)
                    out.append(
                        Diagnostic(
                            E004,
                            f"unsafe variable {arg.name} in a negated atom",
                            arg.span,
                            hint=f"bind {arg.name} in a positive atom of the body, or write _ if you mean 'any value'",
                        )
                    )
        elif isinstance(lit, Comparison):
            for name in sorted(literal_vars(lit) - bound):
                if name in reported:
                    continue
                reported.add(name)
                out.append(
                    Diagnostic(
                        E004,
                        f"unsafe variable {_show(name)} in a comparison",
                        lit.span,
                        hint="every variable of a comparison must be bound by a positive atom "
                        "(or assigned with = from bound values)",
                    )
                )
    for arg in rule.head.args:
        names = term_vars(arg)
        for name in sorted(names):
            if name.startswith("_"):
                out.append(
                    Diagnostic(
                        E004,
                        "anonymous variable _ in a rule head",
                        arg.span,
                        hint="a head argument must be a named variable or a constant",
                    )
                )
            elif name not in bound and name not in reported:
                reported.add(name)
                out.append(
                    Diagnostic(
                        E004,
                        f"unsafe variable {name} in the head of {rule.head.pred}",
                        getattr(arg, "span", rule.span),
                        hint=f"{name} must appear in a positive atom of the body",
                    )
                )
    return out


def _show(name: str) -> str:
    return "_" if name.startswith("_") else name


def _stratify(prog: Program) -> list[Diagnostic]:
    """Compute strata; report every negative (or aggregate) edge inside a recursive component."""
    graph = prog.graph  # body pred -> head pred
    neg_edges: dict[tuple[str, str], tuple[Rule, Literal]] = {}
    for rule in prog.rules:
        for lit in rule.body:
            if isinstance(lit, (Atom, Negation)) and (isinstance(lit, Negation) or rule.aggregate is not None):
                atom = lit.atom if isinstance(lit, Negation) else lit
                neg_edges.setdefault((rule.head.pred, atom.pred), (rule, lit))
    comps = prog.components()  # dependencies first
    comp = {pred: number for number, members in enumerate(comps) for pred in members}
    out = []
    seen_cycles = set()
    for (head, body_pred), (rule, lit) in sorted(
        neg_edges.items(), key=lambda kv: (kv[1][0].span.file, kv[1][0].span.line)
    ):
        if comp[head] != comp[body_pred]:
            continue
        cycle = _path(graph, body_pred, head, comp) or [body_pred, head]
        key = frozenset(cycle)
        if key in seen_cycles:
            continue
        seen_cycles.add(key)
        text = _cycle_text(head, body_pred, cycle, neg_edges)
        out.append(
            Diagnostic(
                E005,
                f"negation cycle: {text} (not stratifiable)",
                getattr(lit, "span", rule.span),
                hint="a predicate must not depend on its own negation; break the cycle "
                "with an input fact or split the predicate",
                notes=_cycle_rules(prog, [head, body_pred, *cycle[1:]]),
            )
        )
    # strata: longest chain of negative edges below each predicate (on the condensation)
    strata: dict[int, int] = {}
    for number, members in enumerate(comps):
        level = 0
        for pred in members:
            for dep in graph.predecessors(pred):
                if comp[dep] == number:
                    continue
                negative = graph.edges[dep, pred]["negative"]
                level = max(level, strata.get(comp[dep], 0) + (1 if negative else 0))
        strata[number] = level
    prog.strata = {pred: strata[c] for pred, c in comp.items()}
    return out


def _cycle_rules(prog: Program, preds: list[str]) -> tuple[str, ...]:
    """For each step of a cycle (a predicate, then the one it reads), the rules that make it, with their
    places: the rule that closed the cycle may be in another file than the one the error points at."""
    notes = []
    for head, read in zip(preds, preds[1:]):
        rules = [
            r
            for r in prog.rules_by_head.get(head, ())
            if any(
                isinstance(x, (Atom, Negation)) and (x.atom if isinstance(x, Negation) else x).pred == read
                for x in r.body
            )
        ]
        where = ", ".join(f"{r.name or 'a rule'} ({r.span.short()})" for r in rules[:3]) + (
            ", ..." if len(rules) > 3 else ""
        )
        notes.append(f"{head} reads {read}: {where}")
    return tuple(notes)


def _cycle_text(head: str, body_pred: str, cycle: list[str], neg_edges: Collection[tuple[str, str]]) -> str:
    # cycle: body_pred ... head (a path in "depends on" direction from body_pred back to head)
    parts = [head, f"not {body_pred}"]
    prev = body_pred
    for pred in cycle[1:]:
        parts.append(f"not {pred}" if (prev, pred) in neg_edges else pred)
        prev = pred
    return " -> ".join(parts)


def _path(graph: nx.DiGraph, start: str, goal: str, comp: dict[str, int]) -> list[str] | None:
    """A dependency path start -> ... -> goal inside one component (each step to a predicate the previous
    one reads; breadth first, deterministic)."""
    from collections import deque

    queue = deque([[start]])
    seen = {start}
    while queue:
        path = queue.popleft()
        if path[-1] == goal and len(path) > 1 or (path[-1] == goal and start == goal):
            return path
        for nxt in sorted(graph.predecessors(path[-1])):
            if comp.get(nxt) != comp[start]:
                continue
            if nxt == goal:
                return path + [nxt]
            if nxt not in seen:
                seen.add(nxt)
                queue.append(path + [nxt])
    return None


def check_query(program: Program, body: Sequence, *, text: str | None = None) -> tuple[tuple, list[str]]:
    """Validate a query body against the program; return it and its answer variables (in order)."""
    diags: list[Diagnostic] = []
    span = Span("<query>", 1, 1)
    for lit in body:
        atom = lit.atom if isinstance(lit, Negation) else lit
        if not isinstance(atom, Atom):
            continue
        problem = _declaration_problem(
            atom,
            program,
            unknown=(f"unknown predicate {atom.pred!r}", "list them with: judgelog rules"),
            arity_hint=lambda d: f"{d.pred}({', '.join(p.name for p in d.params)})",
        )
        if problem is not None:
            diags.append(problem)
    diags.extend(arithmetic_problems(body, program.decls, INT_TYPES))
    positive = bound_after(body, set())
    positive = bound_after(list(body) * 2, positive)
    for lit in body:
        if isinstance(lit, (Negation, Comparison)):
            for name in sorted(literal_vars(lit)):
                # '_' means "any value" in a negation; in a comparison it can never be bound
                anonymous = name.startswith("_")
                if (not anonymous or isinstance(lit, Comparison)) and name not in positive:
                    shown = "_" if anonymous else name
                    diags.append(
                        Diagnostic(
                            E004,
                            f"variable {shown} is not bound by a positive atom",
                            getattr(lit, "span", span),
                            hint="add an atom that binds it"
                            + ("" if isinstance(lit, Comparison) else ", or write _ for 'any value'"),
                        )
                    )
    if diags:
        raise QueryError(f"invalid query {text or ''}".strip(), diagnostics=diags)
    names: list[str] = []
    for lit in body:
        for name in _ordered_vars(lit):
            if not name.startswith("_") and name not in names and name in positive:
                names.append(name)
    ordered, _ = order_body(body)
    return ordered, names


def _ordered_vars(lit: Literal) -> list[str]:
    out: list[str] = []

    def visit(term: Term) -> None:
        if isinstance(term, Var):
            out.append(term.name)
        elif isinstance(term, BinOp):
            visit(term.left)
            visit(term.right)

    if isinstance(lit, Atom):
        for a in lit.args:
            visit(a)
    elif isinstance(lit, Negation):
        for a in lit.atom.args:
            visit(a)
    else:
        visit(lit.left)
        visit(lit.right)
    return out


_QUESTIONS_KEPT = 1024


def checked_question(program: Program, text: str) -> tuple[tuple, list[str]]:
    """:func:`check_query` of a question's text, parsed once per program (kept in Program.memo): the runtime
    asks the same few dozen questions at every step of every action."""
    kept: dict[str, tuple[tuple, list[str]]] = program.kept("runtime.questions", dict)
    found = kept.get(text)
    if found is None:
        from .parser import parse_body

        found = check_query(program, parse_body(text), text=text)
        if len(kept) >= _QUESTIONS_KEPT:
            kept.clear()
        kept[text] = found
    return found
