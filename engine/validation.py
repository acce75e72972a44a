"""Scenario files are checked when they load (:func:`scenario_problems`): action names, argument keys, their
declared types (``action_param_type/3``), the constants they name (judgelog.constants), ``choose:``, ``order:``
and ``targets:``, ``expect:`` keys, shapes and query syntax, all at once, with ``file:line:col`` and a hint.

>>> from judgelog import Engine
>>> state = Engine().load(Engine.example("banding_blocked_by_one.yaml"))
>>> scenario_problems(state)
[]
>>> [d.message for d in action_problems(state, {"do": "attak"})]  # doctest: +ELLIPSIS
["unknown action 'attak'..."]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Set
from typing import TYPE_CHECKING, Any

from .action_args import NONE, introduced_ids
from .action_args import RESERVED as RESERVED_ARGS  # do, choose, order, targets, expect_error, as: any action
from .analysis import check_query, suggest
from .argshapes import action_argument_shapes, argument_shapes, describe, fits
from .ast import Atom, Const, Span, unfilled
from .codes import S102, S103, S201
from .constants import (
    AUTO_ID_RE,
    add_hint,
    known_constants,
    known_words,
    never_made_hint,
    position_words,
    typed_ids,
    unknown_constants,
    unknown_message,
)
from .errors import Diagnostic, LimitError, QueryError, ScenarioError
from .parser import parse_body
from .scenario import EXPECT_KEYS, EXPECT_KINDS
from .stack_targets import shape_problems
from .state_index import Names

if TYPE_CHECKING:  # pragma: no cover
    from .analysis import Program
    from .protocols import Board
    from .yamlsrc import Located

__all__ = ["scenario_problems", "action_problems", "expect_problems", "choice_names", "raise_for"]

NEW_OBJECT = "new_object"
MAX_ACTION_NUMBER = 10**12  # a number of an action, at most
_NOT_A_VALUE = {  # what a value that is no id or whole number is, and the hint, by whether it is a fraction
    True: ("which is not a whole number", "write a whole number, e.g. 2 (CR 107.1a: no fractions)"),
    False: ("not an id or a number", "write ids (lower_snake words) and whole numbers"),
}


# -- choice names -----------------------------------------------------------------------------------------
_CHOICE_PREDS = ("choice", "choice_mode", "choice_max", "choice_cr")


def choice_names(program: Program) -> frozenset[str]:
    """The decisions any loaded rule offers (the first argument of choice/2 and its companions; kept per
    program)."""

    def make() -> frozenset[str]:
        heads = [r.head for r in program.rules if r.head.pred in _CHOICE_PREDS and r.head.args]
        return frozenset(str(h.args[0].value) for h in heads if isinstance(h.args[0], Const))

    return program.kept("validation.choice_names", make)


# -- actions ------------------------------------------------------------------------------------------------
class _Where:
    """Maps a path inside one action (or expect entry) to a span in its file."""

    def __init__(self, doc: Located | None, base: tuple, fallback: Span | None) -> None:
        self.doc, self.base, self.fallback = doc, base, fallback

    def at(self, *path: object, key: bool = False) -> Span | None:
        if self.doc is None:
            return self.fallback
        full = self.base + tuple(path)
        return self.doc.key_span(full) if key else self.doc.span(full)


def _walk(value: object, path: tuple = ()) -> Iterator[tuple[tuple, object, bool]]:
    """(path, leaf, is_key) for every scalar of an argument: mapping keys, then values, in order."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path + (k,), k, True
            yield from _walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, path + (i,))
    else:
        yield path, value, False


class _Facts:
    """What the rules say about actions, asked once per state."""

    def __init__(self, state: Board) -> None:
        self.state = state
        ask = _cached(state)
        # the answers are atoms of the rules (action names, argument keys, type words): strings
        self.known_actions = sorted({str(r["K"]) for r in ask("action_known(K)")})
        self.params: dict[str, set[str]] = {}
        for r in ask("action_param(A, K)"):
            self.params.setdefault(str(r["A"]), set()).add(str(r["K"]))
        self.required = {(str(r["A"]), str(r["K"])) for r in ask("action_param_required(A, K)")}
        self.types: dict[tuple[str, str], str] = {
            (str(r["A"]), str(r["K"])): str(r["T"]) for r in ask("action_param_type(A, K, T)")
        }
        self.key_types: dict[tuple[str, str], str] = {
            (str(r["A"]), str(r["K"])): str(r["T"]) for r in ask("action_param_key_type(A, K, T)")
        }
        self.values: dict[tuple[str, str], set[str]] = {}  # the words an argument may be, where declared
        for r in ask("action_param_value(A, K, V)"):
            self.values.setdefault((str(r["A"]), str(r["K"])), set()).add(str(r["V"]))
        self.choices = choice_names(state.engine.program)
        self.shapes = argument_shapes(state.engine.program)
        self.action_shapes = action_argument_shapes(state.engine.program)


def action_problems(
    state: Board,
    action: dict[str, Any],
    *,
    introduced: Set[str] = frozenset(),
    doc: Located | None = None,
    base: tuple = (),
    span: Span | None = None,
    lenient: bool = False,
    facts: _Facts | None = None,
    known: Set[str] | None = None,
    names: bool = True,
) -> list[Diagnostic]:
    """Every problem of one action in ``state``: its name, argument keys and types, the constants it names
    and its ``choose:``. ``introduced``: ids that earlier actions create by name; ``lenient``: accept an id
    of the form the engine gives created objects (at load time, before the earlier actions ran);
    ``names=False``: leave out the objects, players and other constants it names that are unknown (an action
    a scenario expects to be refused: its refusal says so when it is applied)."""
    facts = facts or _Facts(state)
    introduced = set(introduced) | introduced_ids(action)  # its own new ids may be named in its choose:
    where = _Where(doc, base, span)
    diags: list[Diagnostic] = []

    def problem(message: str, at: Span | None, hint: str | None = None) -> None:
        diags.append(Diagnostic(S102, message, at, hint=hint))

    kind = action.get("do")
    if kind not in facts.known_actions:
        near = suggest(str(kind), facts.known_actions)
        problem(
            f"unknown action {kind!r}",
            where.at("do"),
            f"did you mean {near!r}?" if near else "actions: " + ", ".join(facts.known_actions),
        )
        return diags
    kind = str(kind)  # a known action's name
    params = facts.params.get(kind, set())
    index = state.index  # the state's names, counted once per state (judgelog.state_index)
    if known is None:
        words = known_words(state)
        extra = set(introduced)
        given: Set[str] = Names(
            lambda v: v in index.values or v in words or v in extra, lambda: set(index.values) | words | extra
        )
    else:
        given = set(known) | set(introduced)
    known = given
    players = Names(index.players.__contains__, lambda: set(index.players))
    # before the earlier actions ran: the permanents, the cards the board keeps in a zone (a hand's card whose
    # ability is activated from there) and what those actions create by name; when the action is applied:
    # anything the state knows that is not a player (one that left the battlefield: the rules refuse it)
    objects = (
        ({f[1] for f in state.facts if f[0] in ("permanent", "card_in_zone")} | set(introduced))
        if lenient
        else index.objects(introduced)
    )
    keywords = set(state.engine.interface.keywords)
    missing = sorted(k for a, k in facts.required if a == kind and k not in action)
    if missing:  # action_param_required: the rules can't take the action without it
        problem(f"{kind} needs {' and '.join(missing)}", where.at("do"), f"e.g. {{do: {kind}, {missing[0]}: ...}}")
    for key, value in action.items():
        if key in RESERVED_ARGS:
            continue
        if params and key not in params:
            near = suggest(str(key), params)
            problem(
                f"{kind} takes no argument {key!r}",
                where.at(key, key=True),
                f"did you mean {near!r}?" if near else "arguments: " + ", ".join(sorted(params)),
            )
            continue
        declared = facts.types.get((kind, key))
        if declared == NEW_OBJECT:
            continue  # a new object's characteristics: checked like a scenario's objects when it is applied
        shapes = facts.action_shapes.get((kind, key)) or facts.shapes.get(key)
        if shapes and not fits(value, shapes):  # no rule would read it: the argument would be ignored
            problem(
                f"{kind}: {key} must be {describe(shapes)}, got {value!r}",
                where.at(key),
                _param_form_hint(state, kind, key, value, params)
                or (
                    f"{kind} takes one {key} at a time: write one action for each"
                    if isinstance(value, list) and shapes == {"one value"}
                    else f"the rules read {key} only written so; written otherwise it would be ignored"
                ),
            )
            continue
        if declared == "word":
            if not all(isinstance(leaf, str) for _p, leaf, _k in _walk(value)):
                problem(
                    f"{kind}: {key} must be a word, got {value!r}",
                    where.at(key),
                    "write a lower_snake word: a subtype such as orc, a counter kind, a new id",
                )
            continue
        key_type = facts.key_types.get((kind, key))
        for path, leaf, is_key in _walk(value):
            at = where.at(key, *path, key=is_key)
            declared = key_type if is_key else facts.types.get((kind, key))
            if leaf is None or isinstance(leaf, bool) or not isinstance(leaf, (str, int)):
                said, hint = _NOT_A_VALUE[isinstance(leaf, float)]  # a float: a number, but not a whole one
                problem(f"{kind}: {key} holds {leaf!r}, {said}", at, hint)
                continue
            if declared in ("int", "count"):
                if not isinstance(leaf, int):
                    problem(f"{kind}: {key} must be an integer, got {leaf!r}", at, "write a whole number, e.g. 2")
                elif declared == "count" and leaf < 0:
                    problem(f"{kind}: {key} must be 0 or more, got {leaf}", at, "no negative numbers (CR 107.1b)")
                elif abs(leaf) > MAX_ACTION_NUMBER:  # sums and products of such numbers stay within 18 digits
                    problem(
                        f"{kind}: {key} is larger than a game holds, got {leaf}", at, f"at most {MAX_ACTION_NUMBER:,}"
                    )
                continue
            if isinstance(leaf, int):
                continue
            if declared == "keyword":
                if leaf not in keywords:
                    near = suggest(leaf, keywords)
                    problem(
                        f"{kind}: unknown keyword {leaf!r}",
                        at,
                        (f"did you mean {near!r}? " if near else "") + "no loaded rule file declares it (keyword/1)",
                    )
                continue
            auto = lenient and AUTO_ID_RE.match(leaf)
            if not names:
                continue
            allowed_words = facts.values.get((kind, key)) if not is_key else None
            if allowed_words is not None:
                if leaf not in allowed_words:
                    near = suggest(leaf, allowed_words)
                    problem(
                        f"{kind}: {key} must be {' or '.join(sorted(allowed_words))}, got {leaf!r}",
                        at,
                        f"did you mean {near!r}?" if near else f"the rules read {key} only as one of these words",
                    )
                continue
            if declared in ("object", "player", "target") and not auto:
                allowed = {"object": objects, "player": players, "target": objects | players}[declared]
                if leaf not in allowed:
                    near = suggest(leaf, allowed)
                    noun = {"object": "an object", "player": "a player", "target": "an object or a player"}[declared]
                    problem(
                        f"{kind}: {key} must name {noun}; {leaf!r} is not one",
                        at,
                        f"did you mean {near!r}?" if near else f"{declared}s: " + ", ".join(sorted(allowed)),
                    )
                continue
            if leaf not in known and not auto:
                message, hint = unknown_message(leaf, state, known)
                if not hint.startswith("did you mean") and declared is None and not is_key:
                    # no near name: perhaps a new word, which the action's rule file would declare it takes
                    hint += (
                        f"; if {kind}'s {key} names something new, "
                        f"its rule file declares action_param_type({kind}, {key}, word)"
                    )
                problem(f"{kind}: {key}: {message}", at, hint)
    diags += [Diagnostic(S102, m, where.at(k), hint=h) for k, m, h in shape_problems(action)]  # order:, targets:
    diags.extend(_choose_problems(state, action, kind, where, facts, known, lenient))
    return diags


def _param_form_hint(state: Board, kind: str, key: str, value: object, params: Set[str]) -> str:
    """A keyword given with its parameter the way a scenario's keywords: entry writes it ({toxic: 1}), to an
    action that takes the parameter as an argument of its own: say how to write it (keyword: toxic, n: 1)."""
    if not (isinstance(value, dict) and len(value) == 1):
        return ""
    ((word, param),) = value.items()
    forms = state.engine.interface.keyword_forms.get(str(word), ())
    keys = [k for _form, k in forms if not params or k in params]
    if not keys or isinstance(param, (dict, list)):
        return ""
    return f"write the keyword's parameter as an argument of its own: {key}: {word}, {keys[0]}: {param}"


def _choose_problems(
    state: Board, action: dict[str, Any], kind: str, where: _Where, facts: _Facts, known: Set[str], lenient: bool
) -> list[Diagnostic]:
    choose = action.get("choose")
    diags: list[Diagnostic] = []
    if choose is None:
        return diags
    names = sorted(facts.choices)
    items = list(choose.items()) if isinstance(choose, dict) else [(None, choose)]
    for name, value in items:
        if name is not None and name not in facts.choices:
            near = suggest(str(name), names)
            diags.append(
                Diagnostic(
                    S102,
                    f"{kind}: choose: no rule offers a choice called {name!r}",
                    where.at("choose", name, key=True),
                    f"did you mean {near!r}?" if near else "choices the rules offer: " + ", ".join(names),
                )
            )
            continue
        for path, leaf, _is_key in _walk(value):
            at = where.at("choose", *((name,) if name is not None else ()), *path)
            if isinstance(leaf, int) and not isinstance(leaf, bool):
                continue
            if not isinstance(leaf, str):
                diags.append(
                    Diagnostic(
                        S102,
                        f"{kind}: choose: expected ids, got {leaf!r}",
                        at,
                        "choose the options `judgelog choices` lists",
                    )
                )
            elif leaf not in known and not (lenient and AUTO_ID_RE.match(leaf)):
                message, hint = unknown_message(leaf, state, known)
                if leaf.lower() in DECLINING:
                    hint = f"did you mean {NONE!r}? {NONE} chooses nothing where the choice allows it (may, any, up_to)"
                diags.append(Diagnostic(S102, f"{kind}: choose: {message}", at, hint))
    return diags


# words a user may write in choose: for "choose nothing", which is written `none`
DECLINING = frozenset({"no", "nothing", "skip", "pass", "decline", "false", "n", "nobody", "null"})


def _cached(state: Board) -> Callable[[str], list[dict[str, Any]]]:
    """``state.query`` through the engine's answer cache (judgelog.incremental), each question checked once per
    program: the rules' action declarations cost nothing when the change of facts does not reach them."""
    program, state_facts = state.engine.program, state.facts
    checked: dict[str, tuple] = program.kept("validation.questions", dict)  # text -> checked body, names

    def ask(text: str) -> list[dict[str, Any]]:
        if text not in checked:
            checked[text] = check_query(program, parse_body(text), text=text)
        body, names = checked[text]
        return [dict(zip(names, row)) for row in state.engine.ask_again(state_facts, body, names)]

    return ask


def _strings(value: object) -> set[str]:
    return {leaf for _p, leaf, _k in _walk(value) if isinstance(leaf, str)}


# -- expect entries ---------------------------------------------------------------------------------------
def _query_span(doc: Located, path: tuple, const_span: Span) -> Span:
    """Where a constant of a query written as a YAML string sits in the file (same line, one line strings)."""
    at = doc.span(path)
    text = getattr(doc, "text", "") or ""
    lines = text.splitlines()
    quote = 0
    if 0 < at.line <= len(lines) and 0 < at.col <= len(lines[at.line - 1]):
        quote = 1 if lines[at.line - 1][at.col - 1] in "\"'" else 0
    if const_span.line != 1:
        return at
    return Span(at.file, at.line, at.col + quote + const_span.col - 1)


def expect_problems(
    state: Board,
    entry: dict[str, Any],
    index: int,
    doc: Located | None,
    base: tuple,
    span: Span | None,
    known: Set[str],
    lenient: bool = True,
    ids: dict[str, set[str]] | None = None,
) -> list[Diagnostic]:
    where = _Where(doc, base, span)
    diags: list[Diagnostic] = []
    for key in entry:
        if key not in EXPECT_KEYS:
            near = suggest(str(key), EXPECT_KEYS)
            diags.append(
                Diagnostic(
                    S103,
                    f"unknown expect key {key!r}",
                    where.at(key, key=True),
                    f"did you mean {near!r}?" if near else "keys: " + ", ".join(EXPECT_KEYS),
                )
            )
    kinds = [k for k in EXPECT_KINDS if k in entry]
    if kinds == ["holds", "explain"] and isinstance(entry["holds"], bool) and isinstance(entry["explain"], str):
        # not a form of the language: explain proves an atom that holds; holds names a query, not a truth value
        query = entry["explain"]
        diags.append(
            Diagnostic(
                S103,
                f"holds: {str(entry['holds']).lower()} cannot qualify explain: an explain entry expects its "
                "atom to hold, with a proof",
                where.at("holds", key=True),
                f'to expect that it does not hold, write {{absent: "{query}"}}; that it holds, '
                f'{{explain: "{query}"}} (with cites: to name a CR number the proof must use)',
            )
        )
        return diags
    if len(kinds) != 1:
        diags.append(
            Diagnostic(
                S103,
                "an expect entry needs exactly one of: "
                + ", ".join(EXPECT_KINDS)
                + (f" (it has {', '.join(kinds)})" if kinds else ""),
                where.at(),
                'e.g. {holds: "blocked(hero)"}',
            )
        )
        return diags
    kind = kinds[0]
    text = entry[kind]
    if not isinstance(text, str):
        diags.append(
            Diagnostic(
                S103,
                f"{kind} must be a query written as text, got {text!r}",
                where.at(kind),
                'e.g. "damage_assigner(wurm, P)"',
            )
        )
        return diags
    if kind == "query" and not ("answers" in entry or "count" in entry) and not diags:
        diags.append(
            Diagnostic(
                S103,
                "a query expectation needs answers: or count:",
                where.at(kind),
                'e.g. {query: "controller(hero, P)", answers: [{P: alice}]}',
            )
        )
    if "count" in entry and (
        not isinstance(entry["count"], int) or isinstance(entry["count"], bool) or entry["count"] < 0
    ):
        diags.append(
            Diagnostic(
                S103,
                f"count must be a whole number, 0 or more, got {entry['count']!r}",
                where.at("count"),
                "e.g. count: 2",
            )
        )
    answers = entry.get("answers")
    if "answers" in entry and (
        not isinstance(answers, list)
        or not all(
            isinstance(a, dict) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in a.values())
            for a in answers
        )
    ):
        diags.append(
            Diagnostic(
                S103,
                "answers map variable names to words or numbers: a list of mappings",
                where.at("answers"),
                "e.g. answers: [{P: bob}], or answers: [] for none",
            )
        )
        answers = None
    try:
        body = parse_body(text, predicates=state.engine.program.decls)
        if kind == "explain" and (len(body) != 1 or not isinstance(body[0], Atom)):
            raise QueryError(f"explain: takes one ground atom, got {text!r}")
        _checked, names = check_query(state.engine.program, body, text=text)
    except QueryError as exc:
        for d in exc.diagnostics or [Diagnostic(S103, exc.message, None, hint=exc.hint)]:
            at = _query_span(doc, base + (kind,), d.span) if doc is not None and d.span else where.at(kind)
            diags.append(Diagnostic(d.code, f"{kind}: {d.message}", at, d.hint))
        return diags
    if isinstance(answers, list):
        missing = sorted({k for a in answers for k in a} - set(names))
        if missing:
            diags.append(
                Diagnostic(
                    S103,
                    f"answers: name {', '.join(map(repr, missing))}, which the query does not bind",
                    where.at("answers"),
                    "the query's variables: " + (", ".join(names) or "none"),
                )
            )
    for const, typ in unknown_constants(body, known, allow_auto=lenient, program=state.engine.program, ids=ids):
        here = position_words(state, body, const)
        message, hint = unknown_message(const.value, state, known, typ, ids, here=here)
        at = _query_span(doc, base + (kind,), const.span) if doc is not None else where.at(kind)
        diags.append(Diagnostic(S103, f"{kind}: {message}", at, add_hint(hint, never_made_hint(kind, entry))))
    return diags


# -- a whole scenario -----------------------------------------------------------------------------------------
def scenario_problems(state: Board) -> list[Diagnostic]:
    """Every problem of the scenario's ``actions:`` and ``expect:`` entries, checked before anything runs."""
    scenario = state.meta.scenario
    if scenario is None or not (scenario.actions or scenario.expects):
        return []
    doc = scenario.doc
    diags: list[Diagnostic] = []
    base_known = known_constants(state)
    introduced: set[str] = set()
    mentioned: set[str] = set()
    facts = _Facts(state) if scenario.actions else None
    types = facts.types if facts is not None else {}
    for i, (action, span) in enumerate(scenario.actions):
        diags.extend(
            action_problems(
                state,
                action,
                introduced=introduced,
                doc=doc,
                base=("actions", i),
                span=span,
                lenient=True,
                facts=facts,
                known=base_known,
                # an action expected to be refused may name what is not there: that is what it tests
                names=action.get("expect_error") is None,
            )
        )
        introduced |= introduced_ids(action)
        # the words a new object's characteristics give (its name, types): an expectation may ask for them
        mentioned |= _strings([v for k, v in action.items() if types.get((str(action.get("do")), k)) == NEW_OBJECT])
    known = base_known | introduced | mentioned
    ids = typed_ids(state, extra=introduced)
    for i, (entry, span) in enumerate(scenario.expects):
        diags.extend(expect_problems(state, entry, i, doc, ("expect", i), span, known, ids=ids))
    return diags


def raise_for(diags: list[Diagnostic], path: str) -> None:
    """Raise :class:`ScenarioError` (exit 3) listing every problem, if there are any."""
    if diags:
        raise ScenarioError(f"{len(diags)} problem(s) in {path}", diagnostics=diags)


def board_problems(state: Board) -> list[Diagnostic]:
    """What the rules say can't happen in the board as loaded (``board_problem(Code, Subject)``, told by the
    code's ``violation_info``): one warning (S201) each, placed at the first scenario fact its proof rests on.
    The board is still answered as written (judgelog.contract: every library declares board_problem). Asked
    by the verbs that print a scenario's warnings, not as a state loads; a board whose check reaches an
    evaluation limit or error gets no warning (the question asked of it will report that)."""
    try:
        rows = state.query("board_problem(C, X)")
        if not rows:
            return []
        info = {r["C"]: (r["R"], r["T"]) for r in state.query("board_problem(C, _), violation_info(C, R, T)")}
    except (LimitError, QueryError):
        return []
    scenario = state.meta.scenario
    path = scenario.path if scenario is not None else None
    found: list[Diagnostic] = []
    for row in rows:
        code, subject = row["C"], row["X"]
        cr, text = info.get(code, ("", str(code)))
        text = unfilled(str(text))  # no violation gives a board problem values (violation_value/4)
        proof = state.explain(("board_problem", code, subject))
        leaves = [n.origin for n in proof.walk() if n.origin is not None] if proof is not None else []
        rule = proof.rule if proof is not None else None
        found.append(
            Diagnostic(
                S201,
                f"the board as given: {text} ({subject}; CR {cr})" if cr else f"the board as given: {text} ({subject})",
                next((o for o in leaves if o.file == path), leaves[0] if leaves else None),
                severity="warning",
                hint=f"answers are for the board as written; `judgelog explain {path or 'SCENARIO'} "
                f'"board_problem({code}, {subject})"` shows why (rule {rule})',
            )
        )
    return found


def scenario_warnings(state: Board) -> list[Diagnostic]:
    """Every warning of a loaded scenario: what reading it found (S200 a card not modelled in full, S202 and
    S203 its facts: entries) and the board check (S201, :func:`board_problems`)."""
    scenario = state.meta.scenario
    return [*(scenario.warnings if scenario is not None else ()), *board_problems(state)]
