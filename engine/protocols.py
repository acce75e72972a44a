"""The façade's objects as the modules under them see them: structural types (:pep:`544`).

:class:`~judgelog.Engine` and :class:`~judgelog.state.State` sit at the top: an engine makes states, a state's
methods call the step machine, the writer, the combat graph and the choice lister. Those modules work *on*
a state and its engine but must not import them (that would be an import cycle), so they name what they
use of them here, and the real classes satisfy these types by their shape:

* :class:`Evaluator`: what an evaluation backend offers (judgelog.backend on pyDatalog,
  judgelog.clingo_backend on clingo);
* :class:`Rules`: what a state asks of the engine it belongs to (its program, interface, catalog, backend);
* :class:`Board`: what those modules ask of a state;
* :class:`StateMeta`: what a state knows besides its facts.

>>> from judgelog import Engine
>>> from judgelog.protocols import Board, Rules
>>> state = Engine().load(Engine.example("banding_blocked_by_one.yaml"))
>>> isinstance(state, Board), isinstance(state.engine, Rules)
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from .ast import Atom, Literal, Rule, Span
    from .catalog import CardCatalog
    from .fact import Fact
    from .interface import Interface
    from .planning import Contributions
    from .program import Program
    from .proof import Proof
    from .scenario import Scenario
    from .state_index import StateIndex

__all__ = ["Evaluator", "Rules", "Board", "StateMeta", "Progress"]


class Evaluator(Protocol):
    """What an evaluation backend offers. A view is the backend's own handle on one state's facts, opened by
    ``session`` and passed back to it."""

    program: Program

    def session(self, facts: frozenset) -> AbstractContextManager[Any]: ...

    def ask(self, view: Any, body: Sequence, names: Sequence[str]) -> list[tuple]: ...

    def holds(self, view: Any, atom: Atom) -> bool: ...

    def ask_atom(self, view: Any, atom: Atom) -> list[tuple]: ...

    def prepare(self, view: Any, preds: Iterable[str]) -> None: ...

    def why_rows(self, view: Any, rule: Rule, fixed: dict[str, object], limit: int = 64) -> list[dict]: ...

    def aggregate_contributions(self, view: Any, fact: tuple) -> Contributions | None: ...

    def aggregate_facts(self, view: Any, rule: Rule) -> set[tuple]: ...


@runtime_checkable
class Rules(Protocol):
    """What a state asks of the engine it belongs to."""

    program: Program
    interface: Interface
    catalog: CardCatalog
    backend: Evaluator

    def ask_again(self, facts: frozenset, body: Sequence[Literal], names: Sequence[str]) -> list[tuple]: ...


@dataclass(frozen=True)
class StateMeta:
    """What a state knows besides its facts: the scenario it was loaded from (None for a state made from a
    mapping or by a program), kept by the states actions make from it."""

    scenario: Scenario | None = None


@runtime_checkable
class Board(Protocol):
    """What the step machine, the writer, the combat graph, the choice lister and the expectation checker
    ask of a state (:class:`judgelog.state.State`)."""

    @property
    def engine(self) -> Rules: ...

    @property
    def facts(self) -> frozenset[Fact]: ...

    @property
    def meta(self) -> StateMeta: ...

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def index(self) -> StateIndex: ...

    def query(self, query: Any, *, limit: int = ...) -> list[dict[str, object]]: ...

    def holds(self, query: Any) -> bool: ...

    def derived(self, pred: str) -> list[Fact]: ...

    def derived_all(self, preds: Iterable[str] | None = None) -> dict[str, list[Fact]]: ...

    def explain(self, atom: Any) -> Proof | None: ...

    def with_facts(
        self,
        facts: Iterable[tuple],
        origins: dict[tuple, Span] | None = None,
        *,
        causes: dict[tuple, str] | None = None,
        events: tuple = (),
    ) -> Self: ...


class Progress(Protocol):
    """What reports progress through a long enumeration (the command line's progress line)."""

    def tick(self, i: int, label: str) -> None: ...

    def done(self) -> None: ...
