"""Game states as values: a frozen set of facts, where each came from, and questions about them.

>>> from judgelog import Engine
>>> state = Engine().state_from_dict({"players": ["alice", "bob"], "objects": {
...     "bear": {"card": "Grizzly Bears", "controller": "alice", "counters": {"+1/+1": 1}}}})
>>> state.query("power(bear, P)")
[{'P': 3}]
>>> state.holds("creature(bear)"), state.holds("tapped(bear)")
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, cast

from .analysis import check_query, suggest
from .ast import Atom, Comparison, Const, Literal, Negation, Span, Var
from .codes import Q002
from .constants import check_constants
from .errors import Diagnostic, QueryError, ScenarioError, UsageError, WordForNumber
from .fact import Fact, fact_set
from .factview import ChainedMap, Overlay, as_frozenset, chained
from .parser import parse_atom, parse_body
from .protocols import Rules, StateMeta
from .provenance import Proof, Prover, WhyNot
from .state_index import StateIndex

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from .change import Event

# a query: its text, or the literals of a parsed body
Query = str | Sequence[Literal]

__all__ = ["State", "StateMeta", "MAX_ANSWERS"]

MAX_ANSWERS = 100_000


class State:
    """An immutable game state bound to an :class:`~judgelog.Engine`'s rules; ``facts`` is a set of
    :class:`~judgelog.Fact` values that reads as a frozenset (a state an action makes keeps them as its change
    over a root fact set, :class:`judgelog.factview.Chained`, so that a step costs its change)."""

    def __init__(
        self,
        engine: Rules,
        facts: Iterable[tuple],
        origins: dict[tuple, Span],
        *,
        name: str = "",
        path: str = "",
        meta: StateMeta | None = None,
        events: tuple = (),
        causes: dict[tuple, str] | None = None,
    ) -> None:
        self.engine = engine
        self.facts = fact_set(facts)
        self._origins: Mapping[tuple, Span] = ChainedMap(dict(origins))
        self._causes: Mapping[tuple, str] = ChainedMap(dict(causes or {}))  # fact made by an action -> its rule
        self.name = name
        self.path = path
        self.meta = meta or StateMeta()
        self.events = tuple(events)
        self._index: StateIndex | None = None  # the names its facts mention (judgelog.state_index), on demand

    # -- identity --------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and other.facts == self.facts and other.engine is self.engine

    def __hash__(self) -> int:
        return hash(as_frozenset(self.facts))

    def __repr__(self) -> str:
        return f"<State {self.name or self.path or 'unnamed'}: {len(self.facts)} facts>"

    def origin(self, fact: tuple) -> Span | None:
        return self._origins.get(fact)

    @property
    def origins(self) -> dict[tuple, Span]:
        return dict(self._origins)

    @property
    def index(self) -> StateIndex:
        """The names the state's facts mention, counted (judgelog.state_index): built once, on demand, or
        handed down by the state an action made this one from."""
        if self._index is None:
            self._index = StateIndex.build(self.engine.program, self.facts)
        return self._index

    # -- questions -------------------------------------------------------
    def _session(self) -> AbstractContextManager[Any]:
        backend = self.engine.backend
        # a backend that takes no base and difference (clingo) is given a frozenset, made once per state
        return backend.session(self.facts if getattr(backend, "takes_views", False) else as_frozenset(self.facts))

    def query(self, query: Query, *, limit: int = MAX_ANSWERS) -> list[dict[str, object]]:
        """All distinct answers of a query (a rule body), sorted; each a dict of its named variables.

        A constant that names nothing of the state or the rules (a misspelt object id) raises
        :class:`QueryError` (Q001, with a did-you-mean), as ``judgelog query`` refuses it: never a silent []."""
        body, names = self._prepare(query)
        check_constants(self, body)
        with self._session() as view:
            rows = self.engine.backend.ask(view, body, names)
        return [dict(zip(names, row)) for row in rows[:limit]]

    def holds(self, query: Query) -> bool:
        body, _ = self._prepare(query)
        with self._session() as view:
            return bool(self.engine.backend.ask(view, body, []))

    def explain(self, atom: str | Atom | tuple) -> Proof | None:
        """The proof tree of a ground atom (its text, a :class:`~judgelog.Fact` or an atom of the syntax tree),
        or ``None`` when it does not hold (see :meth:`why_not`)."""
        fact = self._ground(atom)
        with self._session() as view:
            # no proof when it does not hold: every premise of one is asked of the backend (none is assumed)
            return Prover(self.engine.backend, view, self._origins, self._causes).prove(fact)

    def why_not(self, atom: str | Atom | tuple) -> list[WhyNot]:
        """For each rule whose head matches the atom: which body literals hold and which fail."""
        fact = self._ground(atom)
        with self._session() as view:
            return Prover(self.engine.backend, view, self._origins, self._causes).why_not(fact)

    def derived(self, pred: str) -> list[Fact]:
        """Every fact of ``pred`` that holds (each a :class:`~judgelog.Fact`, a tuple ``(pred, arg, ...)``)."""
        return self.derived_all([pred])[pred]

    def derived_all(self, preds: Iterable[str] | None = None) -> dict[str, list[Fact]]:
        """:meth:`derived` of each of ``preds`` (every declared predicate by default), by predicate, in one
        session: the backend readies them together (clingo grounds their rules at once, not one by one)."""
        program, backend = self.engine.program, self.engine.backend
        arity: dict[str, int] = {}
        for pred in sorted(program.decls) if preds is None else preds:
            decl = program.decl(pred)
            if decl is None:  # as `judgelog rules PRED` says it
                near = suggest(str(pred), program.decls)
                raise QueryError(f"unknown predicate {pred!r}", hint=f"did you mean {near!r}?" if near else None)
            arity[pred] = decl.arity
        out: dict[str, list[Fact]] = {}
        with self._session() as view:
            backend.prepare(view, arity)
            for pred, n in arity.items():
                rows = backend.ask_atom(view, Atom(pred, tuple(Var(f"V{i}") for i in range(n))))
                out[pred] = [Fact(pred, *row) for row in rows]
        return out

    def run_actions(self, *, limit: int | None = None) -> tuple[State, list[Event]]:
        """The scenario's own ``actions:`` (the first ``limit`` of them) applied in order, as ``judgelog do``
        and the other verbs answer after them: ``(final_state, events)``. A refusal the file does not expect
        is raised (an :class:`~judgelog.errors.ActionError` with the action's place and the events before it)."""
        from .replay import run_actions

        return run_actions(self, limit=limit)

    def apply(
        self,
        action: dict[str, Any],
        *,
        span: Span | None = None,
        observer: Callable[[frozenset], None] | None = None,
    ) -> tuple[State, list[Event]]:
        """Apply an action (a mapping with ``do:``); returns ``(new_state, events)``. See judgelog.runtime.
        ``observer(facts)`` sees every fact set the rules are evaluated on (rule coverage)."""
        from .choices import list_choices
        from .runtime import apply_action

        try:
            return apply_action(self, action, span=span, observer=observer, list_options=list_choices)
        except WordForNumber as exc:  # a word of the board where a rule wants a number: bad input, not usage
            raise word_for_number(self, action, span, exc) from None

    def graph(self) -> nx.MultiDiGraph:
        """The combat graph (networkx MultiDiGraph) built from derived facts; see judgelog.graph."""
        from .graph import combat_graph

        return combat_graph(self)

    def to_scenario(self) -> dict:
        """This state as a scenario mapping that loads back to the same facts."""
        from .writer import state_to_scenario

        return state_to_scenario(self)

    def with_facts(
        self,
        facts: Iterable[tuple],
        origins: dict[tuple, Span] | None = None,
        *,
        events: tuple = (),
        causes: dict[tuple, str] | None = None,
    ) -> State:
        """The state with these facts instead (its meta carried over): ``origins`` for facts that are new,
        ``events`` what made them, ``causes`` the rule that made each new fact."""
        # an action's working copy over these facts: only its change is looked at
        over = facts if isinstance(facts, Overlay) and facts.base is self.facts else None
        new = State(  # its facts made Facts once, here; its origins and causes are filled in below
            self.engine,
            () if over is not None else facts,
            {},
            name=self.name,
            path=self.path,
            meta=self.meta,
            events=self.events + tuple(events),
        )
        if over is not None:
            added, removed = fact_set(over.plus), frozenset(over.minus)
            new.facts = self.facts
            if added or removed:  # the state's facts as a difference over their root (judgelog.factview)
                new.facts = cast(frozenset, chained(self.facts, added, removed))
        else:
            removed = self.facts - new.facts
            added = new.facts - self.facts
        facts = new.facts
        # handed down as their change over a root mapping (judgelog.factview.ChainedMap): a step costs its change
        new._origins = _chain_map(self._origins).updated(
            removed, {f: s for f, s in origins.items() if f in facts} if origins else {}
        )
        new._causes = _chain_map(self._causes).updated(removed, causes or {})
        if self._index is not None:  # handed down: the new state's names cost only the change
            new._index = self._index.updated(self.engine.program, removed, added)
        return new

    # -- query preparation -------------------------------------------------
    def _prepare(self, query: Query) -> tuple[tuple, list[str]]:
        if isinstance(query, str):
            body: tuple = parse_body(query, predicates=self.engine.program.decls)
        elif isinstance(query, (list, tuple)) and all(isinstance(lit, _LITERALS) for lit in query):
            body = tuple(query)
        else:
            raise UsageError(
                f"a query is a rule body written as text, or a sequence of its literals, got {_shown(query)}",
                hint='e.g. state.query("blocked_by(A, B)")',
            )
        return check_query(self.engine.program, body, text=query if isinstance(query, str) else None)

    def _ground(self, atom: str | Atom | tuple) -> Fact:
        if not isinstance(atom, (str, Atom, tuple)):
            raise UsageError(
                f"an atom is its text, a Fact or an Atom, got {_shown(atom)}", hint='e.g. state.explain("tapped(wurm)")'
            )
        parsed = parse_atom(atom, predicates=self.engine.program.decls) if isinstance(atom, str) else atom
        if isinstance(parsed, tuple):
            return Fact.of(parsed)
        check_query(self.engine.program, (parsed,), text=str(parsed))
        values = []
        for arg in parsed.args:
            if not isinstance(arg, Const):
                message = f"explain needs a ground atom; {arg} is a variable"
                hint = f'ask first which values it takes: judgelog query SCENARIO "{parsed}"'
                raise QueryError(message, hint=hint, diagnostics=[Diagnostic(Q002, message, arg.span, hint=hint)])
            values.append(arg.value)
        return Fact(parsed.pred, *values)


_LITERALS = (Atom, Negation, Comparison)  # the literals a query's body is made of (judgelog.ast.Literal)


def _shown(value: object) -> str:
    """A value as an error shows it: its type and, cut short, its text."""
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + ('...' if len(text) > 60 else '')}"


def _chain_map(found: Mapping) -> ChainedMap:
    return found if isinstance(found, ChainedMap) else ChainedMap(dict(found))


def word_for_number(state: State, action: Mapping[str, Any], span: Span | None, exc: WordForNumber) -> ScenarioError:
    """The board's error for a rule that met a word where it wants a number as ``action`` was applied: at the
    action (S102), with the facts of the board that hold the word, where they were written."""
    from .codes import S102
    from .errors import Diagnostic

    holders = sorted(
        (f for f in state.facts if exc.word is not None and exc.word in f[1:] and f in state.origins),
        key=lambda f: (state.origins[f].line, state.origins[f].col),
    )
    notes = tuple(f"{Fact(*f)} holds {exc.word!r} ({state.origins[f].location()})" for f in holders[:3])
    message = (
        f"{action.get('do')} could not be applied: {exc.message}: a value of the board is a word where a rule "
        "wants a number"
    )
    hint = "give a number there (a keyword's parameter, a facts: entry, an action's argument)"
    diag = Diagnostic(S102, message, span, hint=hint, notes=notes)
    return ScenarioError(message, diagnostics=[diag])
