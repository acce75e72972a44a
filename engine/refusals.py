"""Refusals: the :class:`~judgelog.errors.ActionError` an action's violations make, and the legal options it
lists.

The runtime (judgelog.runtime) asks the rules for ``violation(Code, Subject)`` at each step of an action and,
for each code, its ``violation_info(Code, CR, Text)`` and the rule that derived it; this module turns those
answers into the refusal a judge reads: every violated rule's sentence with its subject and CR number, the
rules that refused (name, file:line, CR, sentence), a hint when a code has no sentence, and the legal options
of the decision the rules name (``refusal_options/2``).

>>> err = violation_refusal("tap", [("no_such_object", "wurm")], {}, [("actions.tap_missing", ("701.26a",))],
...                         rule_at={}, untimely=False, options=[])
>>> str(err)
'tap refused: no_such_object (wurm)'
>>> err.refused_by
(('actions.tap_missing', '?', '701.26a', 'no_such_object'),)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .action_args import NONE
from .analysis import suggest
from .ast import PLACEHOLDER
from .errors import ActionError
from .stack_targets import HOLDS_BY

__all__ = ["violation_refusal", "listed_options", "nothing_to_choose", "unavailable_refusal", "why_not_holds"]


def violation_refusal(
    kind: str,
    violations: Sequence[tuple[object, object]],
    info: Mapping[object, tuple[str, str]],
    causes: Sequence[tuple[str, tuple[str, ...]]],
    *,
    rule_at: Mapping[str, str],
    untimely: bool,
    options: Iterable[str],
    alternatives: Sequence[str] | None = None,
    values: Mapping[tuple[object, object], Mapping[str, object]] | None = None,
) -> ActionError:
    """The refusal of action ``kind`` for its ``violations`` (code, subject), each with the (rule, cites) that
    derived it (``causes``). ``info``: code -> (CR, sentence) from violation_info; ``rule_at``: a rule's name
    -> where it is written (file:line); ``untimely``: every violation is about when the action is taken;
    ``alternatives``: the names the action could have given instead (refusal_alternative/2; an empty list:
    none), listed with the options and the closest to a violation's subject as the hint; ``values``: (code,
    subject) -> the values the rules give that violation (violation_value/4), each filling its ``{key}`` in the
    sentence."""
    crs, refused_by = [], []
    said: dict[tuple[str, str], list[str]] = {}  # (sentence, CR) -> its subjects: one sentence says them all
    for (code, subject), (rule, cites) in zip(violations, causes):
        cr, text = info.get(code, ("", str(code)))
        text = filled(text, (values or {}).get((code, subject), {}))
        by = (rule or str(code), rule_at.get(rule, "?"), cr or ", ".join(cites) or "?", text)
        if by not in refused_by:
            refused_by.append(by)
        subjects = said.setdefault((text, cr), [])
        if subject != NONE and str(subject) not in subjects:
            subjects.append(str(subject))
        if cr:
            crs.append(cr)
    messages = []
    for (text, cr), subjects in said.items():
        where = ([", ".join(subjects)] if subjects else []) + ([f"CR {cr}"] if cr else [])
        messages.append(f"{text} ({'; '.join(where)})" if where else text)
    bare = sorted({str(code) for code, _ in violations if code not in info})
    hint = (
        f'no violation_info fact describes {", ".join(bare)}: add violation_info({bare[0]}, "CR", "text") '
        "to the rule file that derives it, so the refusal says which rule it breaks"
        if bare
        else None
    )
    listed = list(options)
    if alternatives is not None:
        listed += [a for a in alternatives if a not in listed]
        near = next((n for _, s in violations if (n := suggest(str(s), alternatives, cutoff=0.6))), None)
        hint = hint or (f"did you mean {near!r}?" if near else None)
    return ActionError(
        f"{kind} refused: " + "; ".join(messages),
        cr=crs[0] if len(set(crs)) == 1 else None,
        refused_by=refused_by,
        # no option listed: no decision named, or none legal (not told apart); alternatives given: none
        options=listed if listed or alternatives is not None else None,
        hint=hint,
        untimely=untimely,
        violations=[(str(code), str(subject)) for code, subject in violations],
    )


def filled(text: str, values: Mapping[str, object]) -> str:
    """``text`` with each ``{key}`` a value is given for replaced by that value; other braces stay as written.

    >>> filled("total power {total}, crew {needed}: {tap: [...]}", {"total": 2, "needed": 3})
    'total power 2, crew 3: {tap: [...]}'
    """
    return PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], text)


def unavailable_refusal(
    kind: str, choose: object, used: set[str], unavailable: Sequence[tuple[str, str, str, str]]
) -> ActionError | None:
    """The refusal of a ``choose:`` entry naming an option the rules don't offer now and say why
    (choice_unavailable(Name, Option, CR, Text): a payment of more life than the player has, 119.4), or None.
    ``unavailable``: those (name, option, CR, text) rows of this step; ``used``: the ``choose:`` keys answered
    so far. ``none`` given for such a choice is what happens anyway: it is taken as given (added to ``used``).

    >>> rows = [("upkeep", "pay", "119.4", "a player can't pay more life than they have")]
    >>> print(unavailable_refusal("resolve", {"upkeep": "pay"}, set(), rows))
    resolve refused: pay can't be chosen for upkeep: a player can't pay more life than they have (CR 119.4)
    >>> used: set[str] = set()
    >>> unavailable_refusal("resolve", {"upkeep": "none"}, used, rows), used
    (None, {'upkeep'})
    """
    if not isinstance(choose, dict):
        return None
    for name, option, cr, text in unavailable:
        if name in used or name not in choose:
            continue
        given = choose[name]
        values = [str(v) for v in given] if isinstance(given, list) else [str(given)]
        if str(option) in values:
            return ActionError(
                f"{kind} refused: {option} can't be chosen for {name}: {text} (CR {cr})",
                cr=str(cr),
                hint=f"leave {name} out of choose: (or give {name}: none): the rules don't offer {option} now",
            )
        if values in ([NONE], []):
            used.add(name)  # declining what can't be done anyway
    return None


def why_not_holds(engine: Any, facts: frozenset, wanted: tuple) -> str | None:
    """Why ``wanted`` (``choice(name, value)``: the option a caller named) does not hold in ``facts``: the rule
    deriving it that gets furthest, at its first failing literal, followed into that literal's own rules
    while a rule derives it (a target with protection: the targeting rule fails at ``not
    untargetable(...)``, which protection gives)."""
    from .provenance import Prover

    steps: list[str] = []
    fact: tuple | None = wanted
    with engine.backend.session(facts) as view:
        prover = Prover(engine.backend, view, {}, why_not_depth=0)  # the literals, not the reasons under them
        while fact is not None and len(steps) < 4:
            best = max(prover.why_not(fact), key=lambda r: sum(1 for _, ok in r.literals if ok), default=None)
            literal = next((text for text, ok in best.literals if ok is False), None) if best else None
            if best is None or literal is None:
                break
            steps.append(f"{best.rule.name} [CR {', '.join(best.rule.cites)}] fails at {literal}")
            fact = best.failing if best.failing and engine.program.derived(best.failing[0]) else None
            if fact is not None and literal.startswith("not "):  # an exception that holds: which rule gives it
                rule = prover.deriving_rule(fact)
                if rule is not None:
                    steps.append(f"{literal[4:]}{HOLDS_BY}{rule.name} [CR {', '.join(rule.cites)}]")
                break
    return "the rules don't offer it: " + "; ".join(steps) if steps else None


# an assignment (each blocker -> the attackers it may block) with at most this many combinations has each tried
# as the action, so that a refusal lists only the options some legal declaration takes
TRIED_UP_TO = 16


def listed_options(
    decisions: Iterable[object], list_options: Callable[..., tuple[dict, str]], state: object
) -> list[str]:
    """The legal options of the ``decisions`` a refusal names (refusal_options/2), as text: a decision's
    ``options``, and each element's options of an assignment (a blocker -> the attackers it may block). An
    assignment of at most TRIED_UP_TO combinations has each tried as the action (judgelog.choices.list_choices):
    only the options some legal combination takes are listed (and the sets of options an element takes at once
    in one, ``dragon -> [bears, lions]``), and ``none`` says that every combination is
    refused (the rules' requirements and restrictions cannot all be met); a larger one lists each element's
    options without trying them together."""
    out: list[str] = []
    for decision in decisions:
        data, _text = list_options(state, decision, limit=20, try_each=False)
        if data.get("options"):
            out.extend(str(o) for o in data["options"])
        for value in data.values():
            if not isinstance(value, dict):
                continue
            assignment: dict = value  # e.g. blocker -> the attackers it may block
            total = data.get("combinations", 1)  # counting the ones where an element takes several options
            if "combinations" not in data:
                for options in assignment.values():
                    total *= 1 + len(options) if isinstance(options, list) else 2
            if total <= TRIED_UP_TO:
                tried, _ = list_options(state, decision, limit=total, try_each=True)
                legal = [d for v in tried.values() if isinstance(v, list) for d in v if isinstance(d, dict)]
                if tried.get("count") == 0:
                    out.append(f"none (each of the {total} possible combinations is refused too)")
                    continue
                taken: dict[str, list[str]] = {}  # each element -> what it takes in some legal declaration
                for d in legal:
                    for x, v in d.items():
                        shown = "[" + ", ".join(map(str, v)) + "]" if isinstance(v, list) else str(v)
                        if shown not in (seen := taken.setdefault(str(x), [])):
                            seen.append(shown)
                if not taken:  # only the combination in which no element takes an option is legal
                    out.append("only the empty declaration")
                    continue
                assignment = {  # its options in order, then the sets of them it takes at once (509.1a)
                    x: [o for o in (v if isinstance(v, list) else [v]) if str(o) in kept]
                    + [o for o in kept if o.startswith("[")]
                    for x, v in assignment.items()
                    if (kept := taken.get(str(x)))
                }
            out.extend(
                f"{k} -> {', '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in sorted(assignment.items())
            )
    return out


def nothing_to_choose(kind: str, unused: Sequence[str]) -> ActionError:
    """The refusal of an action whose choose: names decisions no rule offered (``unused``)."""
    return ActionError(
        f"{kind}: nothing to choose for {', '.join(unused)}: no rule offers it in this action now",
        hint="remove it from choose: (an ability whose object left the battlefield offers nothing on it, "
        "400.7); `judgelog choices SCENARIO ACTION` lists the choices offered",
    )
