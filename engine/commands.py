"""Implementations of the ``judgelog`` verbs (argument parsing lives in :mod:`judgelog.cli`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .analysis import check_query
from .codes import S000
from .outputs import table

if TYPE_CHECKING:
    from .change import Event
    from .engine import Engine
    from .recursion import Limits
    from .state import State
from .constants import check_constants
from .errors import ActionError, Diagnostic, JudgelogError, NothingToChoose, QueryError, UsageError, render_diagnostics
from .exits import EXIT_LOAD, EXIT_NEGATIVE, EXIT_OK
from .replay import run_actions
from .yamlsrc import scenario_files

__all__ = [
    "cmd_query",
    "cmd_explain",
    "cmd_test",
    "cmd_check",
    "cmd_rules",
    "cmd_do",
    "cmd_choices",
    "cmd_graph",
    "cmd_audit",
    "cmd_verify",
    "cmd_report",
]


def _engine(args: argparse.Namespace) -> Engine:
    from .engine import Engine

    return Engine(
        rules=args.rules,
        include_library=not args.no_library,
        library=getattr(args, "library", None),
        backend=getattr(args, "backend", "pydatalog"),
        limits=_limits(args),
    )


def _limits(args: argparse.Namespace) -> Limits:
    from .recursion import DEFAULT_LIMITS

    changes = {
        k: v
        for k, v in (
            ("derived_facts", getattr(args, "max_derived", None)),
            ("seconds", getattr(args, "time_limit", None)),
            ("join_combinations", getattr(args, "max_join", None)),
        )
        if v is not None
    }
    return replace(DEFAULT_LIMITS, **changes)


def _emit(args: argparse.Namespace, data: dict | None, text: str | Callable[[], str]) -> None:
    """``data`` as JSON with ``--format json``, else ``text`` (a caller in text mode may give no data; a
    function that writes it, when writing it costs: it is called only for text)."""
    if args.format == "json" and data is not None:
        from .outputs import stamp

        # every verb's document names its schema (judgelog/<verb>/1, shipped in judgelog/schemas/)
        sys.stdout.write(json.dumps(stamp(args.verb, data), indent=2, sort_keys=True, default=str) + "\n")
    else:
        text = text() if callable(text) else text
        sys.stdout.write(text + ("\n" if text and not text.endswith("\n") else ""))


def _warn(state: State) -> None:
    """Print the scenario's warnings to stderr: S200, a card whose rules text is not modelled in full; S201, a
    board the rules would not allow."""
    from .validation import scenario_warnings

    for w in scenario_warnings(state):
        sys.stderr.write(w.render() + "\n")


def _state(args: argparse.Namespace, engine: Engine, *, apply_actions: bool = True) -> State:
    """The scenario's state after its actions (or the first ``--actions N`` of them, or none)."""
    return _run(args, engine, apply_actions=apply_actions)[0]


def _run(args: argparse.Namespace, engine: Engine, *, apply_actions: bool = True) -> tuple[State, list[Event]]:
    """The scenario's state after its actions (or the first ``--actions N``, or none) and their events."""
    state = engine.load(args.scenario)
    if not getattr(args, "no_warnings", False):
        _warn(state)
    limit = getattr(args, "actions", None)
    if limit is not None and limit < 0:
        raise UsageError("--actions takes a number of actions, 0 or more")
    actions = state.meta.scenario.actions if state.meta.scenario is not None else []
    if limit is not None and limit > len(actions):
        raise UsageError(
            f"--actions {limit}: {args.scenario} has " + (f"{len(actions)} action(s)" if actions else "no actions"),
            hint=f"give a number from 0 to {len(actions)}"
            if actions
            else "its actions would be a top-level `actions:` list of the scenario file (docs/scenarios.md); "
            "without --actions the verb answers about the board as written",
        )
    if apply_actions and not getattr(args, "before_actions", False):
        return run_actions(state, limit=limit)
    return state, []


def _asked_after(args: argparse.Namespace, state: State, *, line: bool = True) -> str:
    """What to say of a negative answer asked after the file's actions (the board as written may be meant): a
    line in parentheses under the answer, or with ``line=False`` the sentence alone (for a hint); else nothing."""
    actions = state.meta.scenario.actions if state.meta.scenario is not None else []
    n = len(actions) if getattr(args, "actions", None) is None else args.actions
    if getattr(args, "before_actions", False) or not n:
        return ""
    said = f"asked after the file's {n} action{'s' if n != 1 else ''}: --before-actions asks the board as written"
    return f"\n({said})" if line else said


def cmd_query(args: argparse.Namespace) -> int:
    from .parser import parse_body

    engine = _engine(args)
    body = parse_body(args.query, predicates=engine.program.decls)
    state = _state(args, engine)
    _, names = check_query(state.engine.program, body, text=args.query)  # the scenario's own rules: declare more
    if args.limit < 0:
        raise UsageError(f"--limit must be 0 (all answers) or more, got {args.limit}")
    answers = state.query(body, limit=sys.maxsize)  # a misspelt id is refused there (Q001), never a "no"
    shown = answers[: args.limit] if args.limit else answers
    total = len(answers)
    data = {"query": args.query, "variables": names, "answers": shown, "count": total, "truncated": len(shown) < total}

    def text() -> str:  # a table of thousands of rows costs: written only for text output
        out = table(names, shown) + (f"\n({total} answer{'s' if total != 1 else ''})" if names else "")
        if len(shown) < total:
            out += f"\n(showing the first {len(shown)}; --limit N shows more, --limit 0 all)"
        return out + ("" if answers else _asked_after(args, state))

    _emit(args, data, text)
    return EXIT_OK if answers else EXIT_NEGATIVE


def cmd_explain(args: argparse.Namespace) -> int:
    from .cr import check_edition, numbered_in, recorded_in
    from .parser import parse_atom

    check_edition(getattr(args, "cr_edition", None))
    engine = _engine(args)
    state = _state(args, engine)
    atom = parse_atom(args.atom, predicates=state.engine.program.decls)
    check_query(state.engine.program, (atom,), text=args.atom)
    check_constants(state, atom)  # a misspelled id is an input error, never "does not hold"
    if args.why_not:
        return _why_not(args, state)
    proof = state.explain(args.atom)
    if proof is None:
        _why_not(args, state)
        return EXIT_NEGATIVE
    data, text = {"atom": args.atom, "term": _term(args.atom), "holds": True, "proof": proof.to_dict()}, proof.to_text()
    edition = check_edition(getattr(args, "cr_edition", None))
    if edition:
        cites = sorted(proof.all_cites())
        renumbered = {c: numbered_in(c, edition) for c in cites}
        renumbered = {c: o for c, o in renumbered.items() if o != c}
        unknown = [c for c in cites if not recorded_in(c, edition)]
        data["cr_edition"] = {"edition": edition, "numbered_then": renumbered, "not_recorded": unknown}
        then = [f"{c} was {o}" for c, o in renumbered.items()]
        then += [f"{', '.join(unknown)} not recorded in that edition"] if unknown else []
        text += f"\nAs numbered in CR {edition}: {', '.join(then) or 'the same numbers'}."
    _emit(args, data, text)
    return EXIT_OK


def _why_not(args: argparse.Namespace, state: State) -> int:
    holds = state.explain(args.atom) is not None
    reasons = state.why_not(args.atom)
    lines = [f"{args.atom} {'holds' if holds else 'does not hold'}."]
    data = {"atom": args.atom, "term": _term(args.atom), "holds": holds, "rules": [r.to_dict() for r in reasons]}
    deriving = state.engine.program.rules_by_head.get(_term(args.atom)["pred"], [])
    if not reasons and deriving:
        from .proof import no_head_matches

        more_lines, data["nearest"] = no_head_matches(deriving, (data["term"]["pred"], *data["term"]["args"]))
        lines.extend(more_lines)
    elif not reasons:
        lines.append(
            "  no rule derives this predicate: its facts come from the scenario and from what actions and "
            "state-based actions did (`judgelog do` shows the events)"
        )
        lines.extend(_events_of(state, args.atom))
    for r in reasons:
        lines.extend(r.to_lines())
    _emit(args, data, "\n".join(lines) + ("" if holds else _asked_after(args, state)))
    return EXIT_OK if holds else EXIT_NEGATIVE


def _events_of(state: State, atom: str, *, shown: int = 8) -> list[str]:
    """The latest events of the game whose subject is the atom's first argument (what was done to it)."""
    term = _term(atom)
    first = term["args"][0] if term.get("args") else None
    if not isinstance(first, str) or "event" not in state.engine.program.decls:
        return []
    from .ast import format_value

    try:  # a word that is no object (explain "keyword_instances(flying, redundant)" --why-not) has no events
        rows = state.query(f"event(N, K, {format_value(first)})")
    except QueryError:
        return []
    found = sorted((int(str(r["N"])), str(r["K"])) for r in rows)
    if not found:
        return []
    earlier = [f"  ... {len(found) - shown} earlier"] if len(found) > shown else []
    return [f"  what happened to {first}:", *earlier, *(f"  event {n}: {k} {first}" for n, k in found[-shown:])]


def _term(text: str) -> dict:
    from .ast import Const
    from .parser import parse_atom

    atom = parse_atom(text)
    return {"pred": atom.pred, "args": [a.value if isinstance(a, Const) else str(a) for a in atom.args]}


def cmd_test(args: argparse.Namespace) -> int:
    from .catalog import facts_dir
    from .testing import run_scenario_file

    engine = _engine(args)
    paths = args.paths or [str(facts_dir() / "scenarios")]
    files = scenario_files(paths)
    results = []
    progress = _Progress(len(files))
    from .coverage import Coverage

    # --coverage: every state the rules are evaluated on is asked about as it comes, on the scenario's engine
    use = Coverage() if args.coverage or args.fail_under is not None else None
    warnings: list[Diagnostic] = []  # S200, S201: told on stderr (text) or in the document (json)
    for i, path in enumerate(files):
        progress.tick(i, path)
        results.extend(run_scenario_file(engine, path, coverage=use, warnings=None if args.no_warnings else warnings))
    progress.done()
    report = use.report() if use is not None else None
    # --fail-under: what the coverage falls short of (the run fails as a failed case does)
    short = report.shortfalls(args.fail_under) if report is not None and args.fail_under is not None else []
    passed = sum(1 for r in results if r.passed)
    failed = len(results) - passed
    if args.format == "json":
        data = {"passed": passed, "failed": failed, "cases": [r.to_dict() for r in results]}
        if warnings:
            data["warnings"] = [w.to_dict() for w in warnings]
        if report is not None:
            coverage = report.to_dict()
            if args.fail_under is not None:
                coverage |= {"fail_under": args.fail_under, "shortfalls": short}
            data["coverage"] = coverage
        _emit(args, data, "")
    else:
        for w in warnings:
            sys.stderr.write(w.render() + "\n")
        lines = []
        for r in results:
            lines.append(f"{'PASS' if r.passed else 'FAIL'} {r.file}: {r.case}")
            if not r.passed or r.message:  # a pass says why only when it was not checked (unless_refused)
                lines.extend("     " + text for text in r.message.splitlines())
        if report is not None:
            lines.append(report.to_text())
        lines.extend(f"coverage under --fail-under {args.fail_under:g}: {text}" for text in short)
        lines.append(f"{passed} passed, {failed} failed")
        _emit(args, None, "\n".join(lines))
    if any(r.case == "load" and not r.passed for r in results):
        return EXIT_LOAD  # a file that would not load: its problems are input errors, not failed cases
    return EXIT_OK if failed == 0 and results and not short else EXIT_NEGATIVE


class _Progress:
    """A progress line on stderr for long runs, only when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        import time

        self.total = total
        self.start = time.monotonic()
        self.shown = False
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def tick(self, i: int, label: str) -> None:
        import time

        now = time.monotonic()
        if self.tty and now - self.start > 1.0 and now - self.last >= 0.1:  # after 1 s, at most 10 lines/s
            self.last = now
            count = f"{i + 1}/{self.total}" if self.total else f"{i + 1}"  # total 0: not known in advance
            sys.stderr.write(f"\r[{count}] {label[-60:]:<60}")
            sys.stderr.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 72 + "\r")


def cmd_check(args: argparse.Namespace) -> int:
    from .library import collect_files, is_library_path, library_root_of, load_program
    from .scenario import load_scenario

    rule_paths: list[str] = []
    scenario_paths: list[str] = []
    library = getattr(args, "library", None)  # --library FOLDER: that folder is the library checked
    for path in args.paths:
        root = library_root_of(path) if not path.endswith((".yaml", ".yml", ".json")) else None
        if root is not None and not is_library_path(path):
            # a source checkout's rules/ (or a file or folder in it): check that folder as the library,
            # once, instead of loading the library and the file beside it (which names every rule twice)
            if library is not None and os.path.realpath(library) != os.path.realpath(root):
                raise UsageError(
                    f"{path} belongs to the rule library at {root}, but {library} is checked too",
                    hint="check one library at a time",
                )
            library = root
            continue
        if os.path.isdir(path):
            sub, _ = collect_files([path])
            if sub:
                rule_paths.append(path)
            scenario_paths.extend(p for p in scenario_files([path], required=False) if not p.endswith("cards.yaml"))
        elif path.endswith((".yaml", ".yml", ".json")):
            scenario_paths.append(path)
        else:
            rule_paths.append(path)
    user_rules = [p for p in args.rules + rule_paths if not is_library_path(p)]
    result = load_program(user_rules, include_library=not args.no_library, library=library, properties=True)
    diags: list[Diagnostic] = list(result.diagnostics)
    if not args.no_library and not result.errors:  # what every other verb refuses too (I001, I002)
        from .contract import contract_problems

        diags.extend(contract_problems(result.program))
    if not result.errors:
        from .interface import numbered_ability_problems

        diags.extend(numbered_ability_problems(result.program))
    scenario_errors = 0
    if scenario_paths and not result.errors:
        from .engine import Engine
        from .validation import scenario_warnings

        engine = Engine(rules=user_rules, include_library=not args.no_library, library=library, limits=_limits(args))
        for path in scenario_paths:
            try:
                scenario = load_scenario(path, catalog=engine.catalog, interface=engine.interface)
                diags.extend(scenario_warnings(engine.state_from_scenario(scenario)))
            except JudgelogError as exc:
                scenario_errors += 1
                diags.extend(exc.diagnostics or [Diagnostic(S000, exc.message, None, hint=exc.hint)])
    errors = [d for d in diags if d.is_error]
    warnings = [d for d in diags if not d.is_error]
    from .audit import rule_count
    from .library import PROPERTIES_FOLDER

    # the count audit reports: rules, not the facts of rule files; the properties (judgelog verify) apart
    total = rule_count(result.program)
    nprops = sum(1 for r in result.program.rules if r.body and f"/{PROPERTIES_FOLDER}/" in f"/{r.span.file}")
    nrules = total - nprops
    summary = (
        f"{len(errors)} error(s), {len(warnings)} warning(s) in {nrules} rules"
        + (f" and {nprops} property rules" if nprops else "")
        + (f" and {len(scenario_paths)} scenario file(s)" if scenario_paths else "")
    )
    if args.format == "json":
        _emit(
            args,
            {
                "errors": len(errors),
                "warnings": len(warnings),
                "rules": nrules,
                "property_rules": nprops,
                "scenarios": len(scenario_paths),
                "diagnostics": [d.to_dict() for d in diags],
            },
            "",
        )
    else:
        text = "\n".join(render_diagnostics(sorted(diags, key=_diag_key), sources=result.sources))
        if text:
            sys.stderr.write(text + "\n")
        sys.stdout.write(summary + "\n")
    if scenario_errors:
        return EXIT_LOAD  # a scenario that would not load (a typo in an action, a choice, an expectation)
    return EXIT_NEGATIVE if errors else EXIT_OK


def _diag_key(d: Diagnostic) -> tuple:
    return (d.span.file if d.span else "", d.span.line if d.span else 0, d.span.col if d.span else 0, d.code)


def cmd_rules(args: argparse.Namespace) -> int:
    from .cr import any_cites, check_edition, is_rule_number, meanings, resolve, shipped_history, topic_of, unrecorded
    from .library import load_program

    result = load_program(args.rules, include_library=not args.no_library, library=getattr(args, "library", None))
    result.raise_for_errors()
    prog = result.program
    rules = prog.rules
    if args.pred:
        if args.pred not in prog.decls:
            from .analysis import suggest

            near = suggest(args.pred, prog.decls)
            hint = f"did you mean {near!r}?" if near else None
            if args.pred in {r.name.split(".", 1)[0] for r in rules if r.name}:  # a keyword's @name group
                hint = f"{args.pred} names a keyword's rules, not a predicate: judgelog audit --keyword {args.pred}"
            raise UsageError(f"unknown predicate {args.pred!r}", hint=hint)
        rules = prog.rules_by_head.get(args.pred, [])
    edition = check_edition(getattr(args, "cr_edition", None))
    if edition and not args.cr:
        raise UsageError("--cr-edition names the edition of a --cr number", hint="add --cr NUMBER")
    if args.cr:
        rules = [r for r in rules if any_cites(args.cr, r.cites, edition)]
    data: dict[str, Any] = {
        "rules": [
            {"name": r.name, "cites": list(r.cites), "at": r.span.short(), "text": str(r), "doc": r.doc}
            for r in rules
            if r.body
        ]
    }
    lines = []
    if args.pred:
        decl = prog.decls[args.pred]
        sig = ", ".join(f"{p.name}: {p.type}" for p in decl.params)
        kind = "input" if decl.is_input else "derived"
        lines.append(f"{decl.pred}({sig})  [{kind}] {decl.span.short()}")
        if decl.template:
            lines.append(f'  "{decl.template}"')
        data["predicate"] = {
            "name": decl.pred,
            "params": [[p.name, p.type] for p in decl.params],
            "sentence": decl.template,
            "input": decl.is_input,
            "at": decl.span.short(),
        }
    elif not args.cr:
        lines.append("Predicates:")
        for name in sorted(prog.decls):
            decl = prog.decls[name]
            params = ", ".join(p.name for p in decl.params)  # the argument order, which the sentence may not follow
            lines.append(f"  {name}({params})  {decl.template}")
        data["predicates"] = [
            {"name": n, "arity": prog.decls[n].arity, "sentence": prog.decls[n].template} for n in sorted(prog.decls)
        ]
        lines.append("")
        lines.append("Rules:")
    if args.cr and not is_rule_number(args.cr):
        raise UsageError(
            f"--cr {args.cr!r} is not a CR rule number",
            hint="a rule (510.1), a sub-rule (510.1c) or a section (510), as the Comprehensive Rules number them",
        )
    if args.cr:
        typed, reading = args.cr.strip().rstrip("."), resolve(args.cr, edition)
        current = typed if reading is None else reading
        topic = topic_of(current) if reading is not None else None
        named = f": {topic.name.replace('_', ' ')}" if topic else ""
        if edition and reading is None:
            lines.append(unrecorded(typed, edition) + ".")
        elif edition and current != typed:
            lines.append(f"CR {typed} as numbered in CR {edition} is {current} now{named}.")
        elif edition:
            lines.append(f"CR {typed} as numbered in CR {edition} is the same number now{named}.")
        old = meanings(typed)
        if edition:
            lines.extend(f"CR {m.text()}." for m in old)
        elif old:  # the number meant another rule once: say which edition it is read in
            now = f", where it is {topic.name.replace('_', ' ')}" if topic else ""
            lines.append(f"CR {typed} is read as numbered in the current CR ({shipped_history().current}{now}).")
            lines.extend(f"  In older editions CR {m.text()}." for m in old)
            lines.append("  (--cr-edition DATE reads a number as that edition numbered it.)")
        data["cr"] = {
            "typed": typed,
            "edition": edition,
            "current": reading,
            "rule": topic.name if topic else None,
            "earlier": [
                {"number": m.number, "rule": m.topic, "from": m.start, "until": m.last_seen or m.until, "now": m.now}
                for m in old
            ],
        }
        if reading is not None:
            lines.append(f"Rules citing CR {current}:")
            if not any(r.body for r in rules):
                lines.append("  (none)")
    for r in rules:
        if not r.body:
            continue
        lines.append(f"  {r.name}  [CR {', '.join(r.cites)}]  {r.span.short()}")
        if args.pred or args.cr:
            if r.doc:
                lines.extend("    ## " + text for text in r.doc.splitlines())
            lines.append("    " + str(r))
    _emit(args, data, "\n".join(lines))
    return EXIT_OK if rules or not args.cr else EXIT_NEGATIVE


def cmd_do(args: argparse.Namespace) -> int:
    engine = _engine(args)
    final, events = _run(args, engine)
    if args.output:
        from .writer import write_scenario

        write_scenario(final, args.output)
    lines = [e.to_text() for e in events] or ["(no events)"]
    if args.output:
        lines.append(f"wrote {args.output}")
    _emit(args, {"events": [e.to_dict() for e in events], "output": args.output}, "\n".join(lines))
    return EXIT_OK


def cmd_choices(args: argparse.Namespace) -> int:
    from .choices import list_choices

    engine = _engine(args)
    state = _state(args, engine)
    try:
        data, text = list_choices(state, args.what, limit=args.limit, progress=_Progress(0), tries=args.tries)
    except (ActionError, NothingToChoose) as refused:  # after the file's actions: the board as written may be meant
        refused.hint = "; ".join(h for h in (refused.hint, _asked_after(args, state, line=False)) if h) or None
        raise
    none = data.get("count") == 0 or data.get("options") == []
    _emit(args, data, text + (_asked_after(args, state) if none and isinstance(text, str) else ""))
    return EXIT_NEGATIVE if none else EXIT_OK  # none: a negative answer


def cmd_graph(args: argparse.Namespace) -> int:
    from .graph import write_graph

    engine = _engine(args)
    state = _state(args, engine)
    write_graph(state, args.output)
    _emit(args, {"output": args.output}, f"wrote {args.output}")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .parser import parse_atom
    from .report import default_atoms, write_report

    engine = _engine(args)
    state, events = _run(args, engine)
    atoms = args.explain if args.explain else default_atoms(state)
    for text in atoms:  # every atom checked before the page is written: a typo is an input error
        atom = parse_atom(text)
        check_query(state.engine.program, (atom,), text=text)
        check_constants(state, atom)
    write_report(state, events, args.output, atoms=atoms)
    not_holding = [text for text in atoms if not state.holds(text)]  # said, and exit 1 (as explain)
    lines = [f"wrote {args.output} ({len(atoms) - len(not_holding)} proof(s), {len(events)} event(s))"]
    lines += [
        f"{text} does not hold: no proof on the page (judgelog explain --why-not shows why)" for text in not_holding
    ]
    _emit(
        args,
        {"output": args.output, "atoms": list(atoms), "events": len(events), "not_holding": not_holding},
        "\n".join(lines),
    )
    return EXIT_NEGATIVE if not_holding else EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    from .audit import run_audit

    engine = _engine(args)
    data, text, code = run_audit(
        engine,
        scenario=args.scenario,
        diff=args.diff,
        dot=args.dot,
        format=args.format,
        keyword=args.keyword,
        only=args.only,
    )
    _emit(args, data, text)
    return code


def cmd_verify(args: argparse.Namespace) -> int:
    from .verify_report import run_verify

    return run_verify(args, _Progress)
