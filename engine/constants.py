"""What a constant may name: every constant of a query, an atom, an action or a choice must name something.

A typo (``worm`` for ``wurm``, ``pairs:`` for ``pair:``) must never read as a rules answer ("no", "does not
hold", a CR refusal). A constant is *known* when it names an object or player of the state, appears in any
fact of the state, or appears anywhere in the loaded rules and declarations (so a continuous effect's layer
name, a keyword's parameter or a zone is known exactly when a loaded rule file uses it), or is a word the
engine's own primitives write into the event log. Integers are always known.

>>> from judgelog import Engine
>>> state = Engine().load(Engine.example("banding_blocked_by_one.yaml"))
>>> check_constants(state, "damage_assigner(bears, P)")
>>> try:
...     check_constants(state, "damage_assigner(baers, P)")
... except QueryError as exc:
...     print(exc.diagnostics[0].message, "|", exc.diagnostics[0].hint)
unknown object 'baers': no object, player or ability of the state is called that | did you mean 'bears'?
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence, Set
from typing import TYPE_CHECKING

from .analysis import suggest
from .ast import Aggregate, Atom, BinOp, Comparison, Const, Literal, Negation, Span, Term
from .codes import Q001
from .effects import PREDICATE_SUBJECT_EVENTS
from .errors import Diagnostic, QueryError
from .planning import literal_terms

if TYPE_CHECKING:  # pragma: no cover
    from .analysis import Program
    from .protocols import Board

__all__ = [
    "known_words",
    "program_constants",
    "known_constants",
    "typed_ids",
    "unknown_constants",
    "position_words",
    "check_constants",
    "AUTO_ID_RE",
    "NEVER_MADE",
    "never_made_hint",
    "add_hint",
    "ID_TYPES",
    "unknown_message",
]


# ids the engine makes up for what an action creates: fresh_id gives "<name>_<k>", abilities "ability_<k>"
AUTO_ID_RE = re.compile(r"^[a-z][a-z0-9_]*_[0-9]+$")


ID_LIKE_RE = re.compile(r"^[a-z][a-z0-9_]*$")  # the constants checked: ids and words, not quoted names


# -- the known constants ---------------------------------------------------------------------------------
def program_constants(program: Program) -> frozenset[str]:
    """Every constant written in the loaded rules and declarations (:meth:`Program.constants`)."""
    return program.constants()


def _engine_words() -> frozenset[str]:
    from .effects import EVENT_WORDS

    return EVENT_WORDS


def known_words(state: Board) -> frozenset[str]:
    """The constants a question may name whatever the facts: the rules' own, the keywords, the engine's
    event words."""
    engine = state.engine  # the same for every state of a program (its interface is the program's)
    return engine.program.kept(
        "constants.known_words",
        lambda: program_constants(engine.program) | engine.interface.keywords | _engine_words(),
    )


def known_constants(state: Board, *, extra: Iterable[object] = ()) -> set[str]:
    """The string constants a question about ``state`` may name (see the module's text)."""
    known = set(known_words(state))
    known |= {a for f in state.facts for a in f[1:] if isinstance(a, str)}
    known.update(v for v in extra if isinstance(v, str))
    return known


def _ids(state: Board) -> list[str]:
    return sorted({f[1] for f in state.facts if f[0] in ("permanent", "player") and isinstance(f[1], str)})


# the declared argument types whose constants name things of the state (not words of the rules)
ID_TYPES = ("object", "player", "ability")


def typed_ids(state: Board, *, extra: Iterable[object] = ()) -> dict[str, set[str]]:
    """The ids of the state by declared type: every constant at an ``object``/``player``/``ability`` position
    of a fact (an object that left the battlefield stays known through its events), plus ``extra`` objects."""
    program = state.engine.program
    out: dict[str, set[str]] = {t: set() for t in ID_TYPES}
    for fact in state.facts:
        decl = program.decl(fact[0])
        if decl is None:
            continue
        if fact[0] == "event" and len(fact) == 4 and fact[2] in PREDICATE_SUBJECT_EVENTS:
            continue  # "recorded combat_step": its subject is a predicate, not an object
        for param, value in zip(decl.params, fact[1:]):
            if param.type in out and isinstance(value, str):
                out[param.type].add(value)
        if fact[0] == "event" and len(fact) == 4 and isinstance(fact[3], str):
            out["object"].add(fact[3])
    out["object"] |= {v for v in extra if isinstance(v, str)}
    out["object"] -= out["player"]
    return out


def unknown_constants(
    body: Sequence[Literal],
    known: Set[str],
    *,
    allow_auto: bool = False,
    program: Program | None = None,
    ids: dict[str, set[str]] | None = None,
) -> list[tuple[Const, str]]:
    """The string constants of a query body (or one atom) that name nothing known, each with the declared
    type of its position. With ``program`` and ``ids``, a constant at an object, player or ability position
    must be such an id of the state (``worm`` is a creature type, but no object is called that)."""
    found: list[tuple[Const, str]] = []

    def visit(term: Term, typ: str) -> None:
        if isinstance(term, Const):
            value = term.value
            if not isinstance(value, str) or (allow_auto and AUTO_ID_RE.match(value)):
                return
            if not ID_LIKE_RE.match(value):
                return  # quoted text (a name such as "Servo Token"): rules derive new names (111.4)
            if ids is not None and typ in ids:
                # declarations say `object` where a player may stand too (counter/3): any id of the state
                if not any(value in ids[t] for t in ID_TYPES):
                    found.append((term, typ))
            elif value not in known:
                found.append((term, typ))
        elif isinstance(term, BinOp):
            visit(term.left, "")
            visit(term.right, "")

    for lit in body:
        atom = lit.atom if isinstance(lit, Negation) else lit
        if isinstance(atom, Atom):
            decl = program.decl(atom.pred) if program is not None else None
            types = [p.type for p in decl.params] if decl is not None and decl.arity == atom.arity else []
            for i, arg in enumerate(atom.args):
                if not isinstance(arg, Aggregate):
                    visit(arg, types[i] if i < len(types) else "")
        elif isinstance(atom, Comparison):
            visit(atom.left, "")
            visit(atom.right, "")
    return found


def position_words(state: Board, body: Sequence[Literal], const: Const) -> set[str]:
    """The words that stand where ``const`` stands in ``body`` (an atom's argument): those the rules write
    there and those the state's facts hold there (event kinds in ``event(N, Kind, X)``). A did-you-mean
    looks among them first: ``lost_game`` there is nearer ``loses_game`` than the primitive ``lose_game``."""
    place = next(
        (
            (atom.pred, i)
            for lit in body
            for atom in [lit.atom if isinstance(lit, Negation) else lit]
            if isinstance(atom, Atom)
            for i, arg in enumerate(atom.args)
            if arg is const
        ),
        None,
    )
    if place is None:
        return set()
    program = state.engine.program

    def written() -> dict[tuple[str, int], set[str]]:
        out: dict[tuple[str, int], set[str]] = {}
        for rule in program.rules:
            for lit in (rule.head, *rule.body):
                atom = lit.atom if isinstance(lit, Negation) else lit
                if isinstance(atom, Atom):
                    for i, arg in enumerate(atom.args):
                        if isinstance(arg, Const) and isinstance(arg.value, str):
                            out.setdefault((atom.pred, i), set()).add(arg.value)
        return out

    pred, i = place
    held = {f[i + 1] for f in state.facts if f[0] == pred and len(f) > i + 1 and isinstance(f[i + 1], str)}
    if place == ("event", 1):  # the event log's kinds: the runtime's and the primitives' (judgelog.effects)
        held |= _engine_words()
    return program.kept("constants.position_words", written).get(place, set()) | held


def unknown_message(
    value: object,
    state: Board,
    known: Set[str],
    typ: str = "",
    ids: dict[str, set[str]] | None = None,
    *,
    here: Set[str] = frozenset(),
) -> tuple[str, str]:
    """The message and hint for an unknown constant: the nearest id or known word, else a list of ids.
    ``here``: the words that stand at its place (:func:`position_words`), looked among first."""
    if ids is not None and typ in ids:
        pool = sorted(ids[typ])
        near = suggest(str(value), pool) or suggest(str(value), set().union(*ids.values()))
        message = f"unknown {typ} {value!r}: no object, player or ability of the state is called that"
        many = typ[:-1] + "ies" if typ.endswith("y") and typ[-2:-1] not in "aeiou" else typ + "s"  # abilities
        hint = (
            f"did you mean {near!r}?"
            if near
            else (f"{many}: " + ", ".join(pool[:20]) + (", ..." if len(pool) > 20 else ""))
            if pool
            else f"the state has no {typ} now"
            + (" (an ability gets its id as it goes on the stack: judgelog do shows it)" if typ == "ability" else "")
        )
        return message, hint
    ids_ = _ids(state)
    near = suggest(str(value), here & set(known)) or suggest(str(value), ids_) or suggest(str(value), known)
    message = f"unknown constant {value!r}: no object, player or value of the state or the rules is called that"
    hint = (
        f"did you mean {near!r}?"
        if near
        else ("objects and players: " + ", ".join(ids_[:20]) + (", ..." if len(ids_) > 20 else ""))
    )
    return message, hint


# the hint of an unknown id in an expectation that something does not hold
NEVER_MADE = (
    "an id no object has is refused, so that a misspelling cannot pass: to check that an object was never "
    """made, ask about what it would be, e.g. absent: 'token(X), name(X, "Servo Token")'"""
)


def never_made_hint(kind: str, entry: dict) -> str | None:
    """:data:`NEVER_MADE` for an expectation that something does not hold (``absent``, a query of count 0)."""
    return NEVER_MADE if kind == "absent" or kind == "query" and entry.get("count") == 0 else None


def add_hint(hint: str | None, more: str | None) -> str | None:
    """``hint`` and then ``more``, unless ``hint`` already names the likely fix (a did-you-mean)."""
    if not hint or not more:
        return hint or more
    return hint if hint.startswith("did you mean") else f"{hint}; {more}"


def check_constants(
    state: Board,
    query: str | Atom | Sequence[Literal],
    *,
    extra: Iterable[object] = (),
    span_of: Callable[[Const], Span] | None = None,
    also: str | None = None,
) -> None:
    """Raise :class:`QueryError` (exit 2) when the query (text, parsed body or atom) names an unknown constant.

    ``span_of(const)`` may map each constant to its place in a file (for queries written in scenarios);
    ``also``: a sentence added to each hint."""
    from .parser import parse_body

    body = parse_body(query) if isinstance(query, str) else (query,) if isinstance(query, Atom) else tuple(query)
    if not any(_names_a_word(term) for lit in body for term in literal_terms(lit)):
        return  # no string constant to look up (the state's constants are not gathered: a whole-board pass)
    known, ids = _names_of(state) if not extra else (known_constants(state, extra=extra), typed_ids(state, extra=extra))
    diags = []
    for const, typ in unknown_constants(body, known, program=state.engine.program, ids=ids):
        message, hint = unknown_message(const.value, state, known, typ, ids, here=position_words(state, body, const))
        full = add_hint(hint, also)
        diags.append(Diagnostic(Q001, message, span_of(const) if span_of else const.span, hint=full))
    if diags:
        raise QueryError(
            f"unknown constant(s) in {query if isinstance(query, str) else 'the query'}", diagnostics=diags
        )


def _names_of(state: Board) -> tuple[set[str], dict[str, set[str]]]:
    """:func:`known_constants` and :func:`typed_ids` of a state, made once per state (a state is a value that
    an action never changes): every ``State.query`` checks its constants (a query asked in a loop)."""
    names = getattr(state, "_constant_names", None)
    if names is None:
        names = (known_constants(state), typed_ids(state))
        try:
            setattr(state, "_constant_names", names)  # noqa: B010 - a Board protocol does not declare it
        except AttributeError:  # a board that keeps no attributes: made again next time
            pass
    return names


def _names_a_word(term: object) -> bool:
    """Whether a term holds a string constant (in an operation's operands too)."""
    if isinstance(term, Const):
        return isinstance(term.value, str)
    if isinstance(term, BinOp):
        return _names_a_word(term.left) or _names_a_word(term.right)
    return False
