"""Running a scenario's ``expect:`` entries (and its actions' ``expect_error:``) as test cases.

Each entry is one case; ``judgelog test`` prints one line per case and ends with ``N passed, N failed``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .ast import format_value
from .cr import any_cites, check_edition, resolve, unrecorded
from .errors import ActionError, Diagnostic, JudgelogError
from .replay import Step, refusal_matches, replay
from .scenario import EXPECT_KEYS, EXPECT_KINDS, load_scenario
from .validation import scenario_warnings

if TYPE_CHECKING:
    from .coverage import Coverage
    from .engine import Engine
    from .state import State

__all__ = [
    "CaseResult",
    "run_scenario_file",
    "scenario_cases",
    "check_expect",
    "refusal_matches",
    "EXPECT_KINDS",
    "EXPECT_KEYS",
]


@dataclass(frozen=True)
class CaseResult:
    file: str
    case: str
    passed: bool
    message: str = ""
    kind: str = "expect"  # load (the file would not load), action (an expect_error), expect (an expect: entry)
    index: int | None = None  # the action's or the entry's index in its list
    line: int | None = None

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            "case": self.case,
            "passed": self.passed,
            "message": self.message,
            "kind": self.kind,
            "index": self.index,
            "line": self.line,
        }


def _label(entry: dict, index: int, line: int | None) -> str:
    for key in ("query", "holds", "absent", "explain"):
        if key in entry:
            return f"expect[{index}] (line {line}) {key}: {entry[key]}"
    return f"expect[{index}] (line {line})"


def check_expect(state: State, entry: dict) -> str | None:
    """None when the expectation holds, else a message saying what differed."""
    unknown = set(entry) - set(EXPECT_KEYS)
    if unknown:
        return (
            f"unknown expect key(s): {', '.join(sorted(unknown))} (use query+answers|count, holds, absent, "
            "explain+cites, cr_edition, unless_refused)"
        )
    for key in EXPECT_KINDS:
        if key in entry and not isinstance(entry[key], str):
            return f'{key} must be a query written as text, such as "controller(hero, P)", got {entry[key]!r}'
    from .constants import check_constants, never_made_hint

    for key in EXPECT_KINDS:  # a misspelled id is an input error, never a passing "absent"
        if isinstance(entry.get(key), str):
            check_constants(state, entry[key], also=never_made_hint(key, entry))
    if "query" in entry:
        answers = state.query(entry["query"])
        if "answers" in entry:
            wanted = entry["answers"]
            if not isinstance(wanted, list) or not all(isinstance(w, dict) for w in wanted):
                return "answers must be a list of mappings such as [{P: bob}]"
            if not all(isinstance(k, str) and isinstance(v, (str, int)) for w in wanted for k, v in w.items()):
                return "answers map variable names to words or numbers, such as [{P: bob}, {P: alice}]"
            names = sorted({k for w in wanted for k in w})
            unknown_vars = [n for n in names if answers and n not in answers[0]]
            if unknown_vars:
                return f"the query has no variable {', '.join(unknown_vars)}"
            got = {tuple((n, a.get(n)) for n in names) for a in answers}
            want = {tuple((n, w.get(n)) for n in names) for w in wanted}
            if got != want:
                return f"answers differ: expected {_fmt(want)}, got {_fmt(got)}"
            return None
        if "count" in entry:
            if type(entry["count"]) is not int:
                return f"count must be a whole number, got {entry['count']!r}"
            if len(answers) != entry["count"]:
                return f"expected {entry['count']} answer(s), got {len(answers)}: {_fmt_answers(answers)}"
            return None
        return "a query expectation needs answers: or count:"
    if "holds" in entry:
        return None if state.holds(entry["holds"]) else f"{entry['holds']} does not hold"
    if "absent" in entry:
        answers = state.query(entry["absent"])
        return (
            None
            if not answers and not state.holds(entry["absent"])
            else f"{entry['absent']} holds: {_fmt_answers(answers)}"
        )
    if "explain" in entry:
        proof = state.explain(entry["explain"])
        if proof is None:
            return f"{entry['explain']} does not hold"
        if "cites" in entry:
            wanted = str(entry["cites"])
            edition = check_edition(str(entry["cr_edition"])) if "cr_edition" in entry else None
            cites = sorted(proof.all_cites())
            if not any_cites(wanted, cites, edition):
                as_read = resolve(wanted, edition)
                if as_read is None and edition:
                    return f"the proof cites {', '.join(cites) or 'nothing'}; {unrecorded(wanted, edition)}"
                then = f" ({wanted} in CR {edition})" if edition and as_read != wanted else ""
                return f"the proof cites {', '.join(cites) or 'nothing'}, not {as_read}{then}"
        return None
    return "an expect entry needs one of: query, holds, absent, explain"


def _fmt(rows: Iterable[Iterable[tuple[str, object]]]) -> str:
    parts = ["{" + ", ".join(f"{k}: {format_value(v)}" for k, v in row) + "}" for row in sorted(rows, key=repr)]
    return "[" + ", ".join(parts) + "]"


def _fmt_answers(answers: Sequence[dict[str, object]]) -> str:
    return (
        "["
        + ", ".join("{" + ", ".join(f"{k}: {format_value(v)}" for k, v in a.items()) + "}" for a in answers[:10])
        + (", ..." if len(answers) > 10 else "")
        + "]"
    )


def run_scenario_file(
    engine: Engine,
    path: str,
    *,
    observer: Callable[[frozenset], None] | None = None,
    coverage: Coverage | None = None,
    warnings: list[Diagnostic] | None = None,
) -> list[CaseResult]:
    """All cases of one scenario file. A file that cannot load is one failed case. ``observer(facts)`` sees
    the state as loaded, every fact set the actions are evaluated on, and the final state (rule coverage);
    ``coverage`` gives the observer of the engine the scenario runs on (its own when it has ``rules:``);
    ``warnings`` receives the file's warnings (judgelog.validation.scenario_warnings)."""
    try:
        scenario = load_scenario(path, catalog=engine.catalog, interface=engine.interface)
        state = engine.state_from_scenario(scenario)
    except JudgelogError as exc:
        return [CaseResult(path, "load", False, exc.render(sources={}), kind="load")]
    if warnings is not None:
        warnings.extend(scenario_warnings(state))
    if coverage is not None:
        observer = coverage.observer(state.engine)
    if observer is not None:
        observer(state.facts)
    results, final = scenario_cases(path, state, replay(state, scenario.actions, observer=observer))
    if observer is not None:
        observer(final.facts)
    return results


def scenario_cases(path: str, state: State, steps: Iterable[Step]) -> tuple[list[CaseResult], State]:
    """The cases of a scenario loaded as ``state`` whose actions were replayed as ``steps``
    (:func:`judgelog.replay.replay`), and the state the actions left: each ``expect_error`` action, then each
    ``expect:`` entry, checked in that state (an entry after an action that went wrong fails, saying which)."""
    scenario = state.meta.scenario
    assert scenario is not None, "a state loaded from a scenario"
    results: list[CaseResult] = []
    failure: str | None = None  # why the actions stopped: told once, by the first case it fails
    refused: str | None = None  # the action refused that stopped them (an unless_refused entry then passes)
    unchecked = ""  # what the cases after that one say
    stopped: tuple[str, int, int, str] | None = None  # the refused action (label, index, line, why), until told
    events: list[str] = []
    done = 0
    for step in steps:
        done = step.index + 1
        label = f"action[{step.index}] (line {step.span.line}) {step.action.get('do')}"
        if step.expected is not None:
            problem = step.problem
            results.append(
                CaseResult(
                    path, label + " expect_error", problem is None, problem or "", "action", step.index, step.span.line
                )
            )
            if step.derails:
                failure = f"{label} was applied although a refusal was expected"
                unchecked = f"not checked: {failure}"
            continue  # refused: the state is unchanged
        if step.error is not None:
            if isinstance(step.error, ActionError):  # its explanation names the action, its line and why
                step.error.in_context(index=step.index, span=step.span, events=events)
                failure = f"not checked: an earlier action was refused: {step.error.explain()}"
                why = str(step.error).splitlines()[0] if str(step.error) else "refused"
                refused = f"not reached: {label} was refused ({why}); the entry is unless_refused"
                stopped = (label, step.index, step.span.line, step.error.explain())
            else:
                failure = f"not checked: an earlier action was refused: {label} was refused: {step.error}"
                told = step.error.render(sources={}) if step.error.diagnostics else str(step.error)
                stopped = (label, step.index, step.span.line, f"{label} was refused: {told}")
            unchecked = f"not checked: {label} was refused (the first failure of this file says why)"
            continue
        state = step.state
        events.extend(e.to_text() for e in step.events)
    if failure is not None:  # the expected refusals after the failure cannot be checked: each fails
        for index, (action, span) in list(enumerate(scenario.actions))[done:]:
            if action.get("expect_error") is not None:
                label = f"action[{index}] (line {span.line}) {action.get('do')} expect_error"
                results.append(CaseResult(path, label, False, failure, "action", index, span.line))
                failure, stopped = unchecked, None
    for index, (entry, span) in enumerate(scenario.expects):
        label = entry.get("name") or _label(entry, index, span.line)
        if refused is not None and entry.get("unless_refused") is True:
            results.append(CaseResult(path, label, True, refused, "expect", index, span.line))
            stopped = None  # the pass says why
            continue
        if failure is not None:
            results.append(CaseResult(path, label, False, failure, "expect", index, span.line))
            failure, stopped = unchecked, None
            continue
        try:
            message = check_expect(state, entry)
        except JudgelogError as exc:
            message = str(exc.render(sources={}))
        results.append(CaseResult(path, label, message is None, message or "", "expect", index, span.line))
    if stopped is not None:  # no case told the refusal that stopped the actions (no expect: entry): it fails itself
        label, index, line, why = stopped
        results.append(CaseResult(path, f"{label} refused", False, why, "action", index, line))
    return results, state
