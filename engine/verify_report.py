"""The ``judgelog verify`` verb: run the tasks, write the counterexamples as scenarios, print the report.

Text output ends with ``no counterexample among S boards`` (exit 0) or one line per broken property with
the scenario file that reproduces it (exit 1). ``--format json`` prints the same as one object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import yaml

from .errors import UsageError
from .exits import EXIT_INTERRUPTED, EXIT_NEGATIVE, EXIT_OK

if TYPE_CHECKING:
    from .engine import Engine
    from .verify import Property

__all__ = ["run_verify"]


def _rel(path: str, folder: str) -> str:
    return os.path.relpath(os.path.abspath(path), os.path.abspath(folder))


def run_verify(args: argparse.Namespace, progress_factory: Callable[[int], Any]) -> int:
    from .boards import shapes, tasks
    from .distribute import Interrupted, Job, default_workers, run_job
    from .engine import Engine
    from .scope import default_scope_path, load_scope, read_scope
    from .verify import merge, properties_of

    library = getattr(args, "library", None)
    if library:  # the reproduce lines name it: absolute, as the scenarios written (they run from anywhere)
        library = os.path.abspath(library)
    backend = getattr(args, "backend", "pydatalog")
    engine = Engine(
        rules=args.rules, include_library=not args.no_library, library=library, properties=True, backend=backend
    )
    scope_path = args.scope or default_scope_path()
    raw, doc = read_scope(scope_path)
    raw = raw or {}
    props = properties_of(engine)
    unknown = [p for p in args.property if p not in props]  # a scope file's own properties: load_scope's S104
    if unknown:
        from .analysis import suggest

        near = suggest(unknown[0], sorted(props))
        raise UsageError(
            f"unknown property {unknown[0]!r} (--property)",
            hint=f"did you mean {near!r}?" if near else "properties: " + ", ".join(sorted(props)),
        )
    if args.property:
        raw = dict(raw, properties=list(args.property))
    shown_scope = scope_path if args.scope else "default scope"
    scope = load_scope(raw, engine, source=shown_scope, doc=doc, properties=props)
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be 1 or more, got {args.workers}")
    limit = getattr(args, "limit", 0) or 0
    if limit < 0:
        raise UsageError(f"--limit must be 0 (all) or more, got {limit}")
    job = Job(
        rules=tuple(os.path.abspath(r) for r in args.rules),
        include_library=not args.no_library,
        library=library,
        backend=backend,
        scope=raw,
        scope_source=shown_scope,
        all_found=args.all,
        reference=args.reference,
    )
    todo: list = list(tasks(scope)) if args.reference else list(shapes(scope))
    progress = progress_factory(len(todo))
    logged = not getattr(args, "quiet", False) and not sys.stderr.isatty()  # a terminal has the progress line

    def finished(i: int, name: str, result: dict) -> None:
        progress.tick(i, name)
        if logged:  # a logged or batch run: one line per task, as it finishes
            boards = result.get("boards", 0)
            seconds = f", {result['seconds']:.1f} s" if "seconds" in result else ""
            sys.stderr.write(
                f"verify: task {name} done ({boards:,} board{'' if boards == 1 else 's'}{seconds}) — "
                f"{i + 1} of {len(todo)}\n"
            )
            sys.stderr.flush()

    interrupted = False
    try:
        results = run_job(
            job,
            todo,
            workers=default_workers(args.workers, len(todo)),
            scheduler=args.scheduler,
            folder=args.output,
            progress=finished,
        )
    except Interrupted as stop:  # Ctrl-C or SIGTERM: report what was checked, and the counterexamples so far
        results, interrupted = stop.results, True
    progress.done()
    result = merge(scope, results, all_found=args.all)
    total = len(result["counterexamples"])
    broken = len({c["property"] for c in result["counterexamples"]})
    if limit:  # the smallest first (merge's order): the rest are counted, not written
        result["counterexamples"] = result["counterexamples"][:limit]
    written = _write(engine, result["counterexamples"], props, args, library)
    checked = {k: v for k, v in props.items() if not scope.properties or k in scope.properties}
    data = {
        "scope": result["scope"],
        "properties": sorted(checked),
        "tasks": result["tasks"],
        "boards": result["boards"],
        "search": "reference enumerator" if args.reference else "clingo",
        # follow_ups: the follow-up actions the reference enumerator checked (the search the rest of the task);
        # empty: it checked the whole task
        "fallback": [{"task": t, "reason": why, "follow_ups": list(fu)} for t, why, fu in result["fallback"]],
        "found": total,  # counterexamples found; those written (--limit) are listed
        "interrupted": interrupted,  # the search is incomplete: only tasks_done of the tasks were checked
        "tasks_done": len(results),
        "counterexamples": [
            {
                "property": c["property"],
                "witnesses": c["witnesses"],
                "stage": c["stage"],
                "creatures": c["creatures"],
                "keywords": c["keywords"],
                "file": f,
            }
            for c, f in zip(result["counterexamples"], written)
        ],
    }
    kws = ", ".join(k.text() for k in scope.keywords) or "none"
    if scope.keywords and scope.keywords_per_creature == 0:  # listed, but no creature may have one
        kws = "none (keywords_per_creature: 0)"
    lines = [
        f"verify: {len(checked)} properties, {shown_scope}: {scope.players} players, "
        f"{scope.min_creatures}-{scope.creatures} creatures, keywords: {kws}"
    ]
    reasons: dict[tuple, list[str]] = {}  # one note a task: every reason, then what checked which part
    for task, why, follow_ups in result["fallback"]:
        reasons.setdefault((task, tuple(follow_ups)), []).append(why)
    for (task, follow_ups), whys in reasons.items():
        checked_by = (
            f"the follow-up action{'s' if len(follow_ups) > 1 else ''} {', '.join(follow_ups)} checked by the "
            "reference enumerator, the rest of the task by the search"
            if follow_ups
            else "checked by the reference enumerator"
        )
        lines.append(f"note: task {task}: the search cannot follow {'; '.join(whys)}; {checked_by}")
    for c, f in zip(result["counterexamples"], written):
        prop = props.get(c["property"])
        cites = f" (CR {', '.join(prop.cites)})" if prop and prop.cites else ""
        lines.append(f"COUNTEREXAMPLE {c['property']}{cites}: {prop.text if prop else ''}")
        lines.append(
            f"  {c['creatures']} creature(s), {c['keywords']} keyword(s), witnesses "
            f"{', '.join(c['witnesses'])} ({c['stage']}); written to {f}"
        )
        if library:
            lines.append(f"  reproduce with: judgelog test --library {library} {f}")
    if total > len(written):
        lines.append(
            f"note: --limit {limit}: wrote the {len(written)} smallest of {total} counterexamples "
            "(--limit 0 writes them all)"
        )
    if interrupted:
        lines.append(
            f"interrupted: the search is incomplete: {len(results)} of {len(todo)} tasks checked"
            + (f" (saved in {args.output}: the same command resumes from them)" if args.output else "")
        )
    tasks_text = f"{len(results)} of {len(todo)} tasks checked" if interrupted else f"{result['tasks']} tasks"
    if result["counterexamples"]:
        lines.append(
            f"{total} counterexample(s) to {broken} propert"
            f"{'y' if broken == 1 else 'ies'} among {result['boards']} boards ({tasks_text})"
        )
    else:
        lines.append(f"no counterexample among {result['boards']} boards ({tasks_text})")
    if args.format == "json":
        from .outputs import stamp

        sys.stdout.write(json.dumps(stamp("verify", data), indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write("\n".join(lines) + "\n")
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_NEGATIVE if result["counterexamples"] else EXIT_OK


def _copy_rules(
    folder: str,
    library: str | None,
    user_rules: Sequence[str],
    default_root: str | os.PathLike[str],
    properties_folder: str,
) -> list[str]:
    """Copy the rule files a counterexample needs into ``folder/rules/`` (a scenario's rules: must lie in its
    folder): the library's properties (an engine leaves them out) and the --rules files."""
    import shutil

    out: list[str] = []
    props_dir = os.path.join(str(library or default_root), properties_folder)
    sources = ([props_dir] if os.path.isdir(props_dir) else []) + [str(r) for r in user_rules]
    for src in sources:
        dest = os.path.join(folder, "rules", os.path.basename(os.path.normpath(src)))
        if os.path.isdir(src):
            shutil.copytree(src, dest, dirs_exist_ok=True)
        else:
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(src, dest)
        out.append("rules/" + os.path.basename(dest))
    return out


def _remove_earlier(folder: str, props: dict[str, Property]) -> None:
    """The counterexamples an earlier run wrote into the folder (PROPERTY.yaml, PROPERTY_N.yaml), which this
    run's would otherwise sit beside, as if found again."""
    import re

    if not os.path.isdir(folder):
        return
    names = "|".join(re.escape(p.replace(":", "_")) for p in props)
    written = re.compile(rf"(?:{names})(?:_\d+)?\.yaml") if names else None
    for entry in os.listdir(folder):
        if written is not None and written.fullmatch(entry) and os.path.isfile(os.path.join(folder, entry)):
            os.remove(os.path.join(folder, entry))


def _write(
    engine: Engine, found: list[dict], props: dict[str, Property], args: argparse.Namespace, library: str | None
) -> list[str]:
    from .catalog import rules_dir
    from .library import PROPERTIES_FOLDER
    from .verify import counterexample_scenario

    folder = args.output or "judgelog-verify"
    _remove_earlier(folder, props)
    if not found:
        return []
    os.makedirs(folder, exist_ok=True)
    out = []
    counts: dict[str, int] = {}
    rules = _copy_rules(folder, library, args.rules, rules_dir(), PROPERTIES_FOLDER)  # once for all
    for c in found:
        counts[c["property"]] = counts.get(c["property"], 0) + 1
        name = c["property"].replace(":", "_")
        if args.all:
            name += f"_{counts[c['property']]}"
        path = os.path.join(folder, name + ".yaml")
        data = counterexample_scenario(engine, c, props, rules=rules)
        if library:  # the scenario can't name the library it breaks: say how to run it again
            data["description"] += (
                f" Found with the rule library at {library}, which the scenario can't name: reproduce with "
                f"`judgelog test --library {library} {path}`."
            )
        with open(path, "w", encoding="utf-8") as fh:
            yaml.safe_dump(data, fh, sort_keys=False, default_flow_style=None, width=110)
        out.append(path)
    return out
