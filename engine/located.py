"""A document's value and where each of its values was written (judgelog.yamlsrc reads YAML and JSON into
one), and the limits every reader keeps to.

>>> doc = Located({"players": ["alice"]}, "s.yaml")
>>> doc.marks[("players", 0)] = Span("s.yaml", 1, 11)
>>> doc.span(("players", 0, "deeper")).location(), doc.span(("active",)).location()
('s.yaml:1:11', 's.yaml:1:1')
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .ast import Span
from .codes import S001, S002
from .errors import Diagnostic, ScenarioError

__all__ = [
    "Located",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_VALUES",
    "MAX_INT_DIGITS",
    "too_deep",
    "nested_too_deeply",
]


MAX_YAML_BYTES = 20_000_000
MAX_YAML_DEPTH = 100
MAX_YAML_VALUES = 500_000  # values after expanding aliases (a few aliases can expand exponentially)
MAX_INT_DIGITS = 100  # as in rule files (judgelog.parser)
_SCANNING = threading.Lock()  # a JSON document's positions are scanned by one thread at a time


@dataclass
class Located:
    """A document's value and where each of its values was written: :attr:`marks` maps a path (a tuple of
    keys and indexes; ``("<key>",) + path`` for a key) to its :class:`Span`. A JSON document's positions are
    scanned the first time they are asked for (:meth:`deferred_span` names one without asking)."""

    value: Any
    path: str
    _marks: dict[tuple, Span] = field(default_factory=dict, repr=False)
    text: str = ""
    empty: bool = False  # the text holds no document at all (blank lines and comments): its value is {}
    _scan: Callable[[Located], None] | None = field(default=None, repr=False, compare=False)

    @property
    def marks(self) -> dict[tuple, Span]:
        if self._scan is not None:
            with _SCANNING:  # one thread scans; another asking meanwhile waits for every position
                if self._scan is not None:
                    self._scan(self)
                    self._scan = None
        return self._marks

    def span(self, path: tuple) -> Span:
        """The span of the value at ``path`` (or of its nearest ancestor)."""
        marks = self.marks
        path = tuple(path)
        while path:
            if path in marks:
                return marks[path]
            path = path[:-1]
        found = marks.get(())
        if found is None:  # no mark at all (a document built in Python): its first line, one value for all
            found = marks[()] = Span(self.path, 1, 1)
        return found

    def key_span(self, path: tuple) -> Span:
        return self.marks.get(("<key>",) + tuple(path), self.span(path))

    def deferred_span(self, path: tuple) -> Span:
        """:meth:`span`, or, while the positions are not scanned yet, a span that finds its place when one of
        its fields is first read (a large JSON board is answered without ever scanning its positions)."""
        return self.span(path) if self._scan is None else _DeferredSpan(self, tuple(path))


class _DeferredSpan(Span):
    """The span of the value at a path of a document whose positions are not scanned yet: equal to, hashed
    and pickled as the :class:`Span` it stands for, found the first time a field is read."""

    _doc: Located | None
    _path: tuple
    _found: Span | None

    def __new__(cls, doc: Located, path: tuple) -> _DeferredSpan:  # its fields are found later
        self = tuple.__new__(cls, ("<not scanned>", 0, 0))
        self._doc, self._path, self._found = doc, path, None
        return self

    def resolved(self) -> Span:
        found = self._found
        if found is None:
            assert self._doc is not None
            found = self._found = self._doc.span(self._path)
            self._doc = None  # the document is not kept alive by its facts' spans
        return found

    file = property(lambda self: self.resolved().file)
    line = property(lambda self: self.resolved().line)
    col = property(lambda self: self.resolved().col)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Span):
            return (self.file, self.line, self.col) == (other.file, other.line, other.col)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self.resolved())

    def __iter__(self) -> Iterator[object]:
        return iter(self.resolved())

    def __getitem__(self, index: Any) -> Any:
        return self.resolved()[index]

    def __repr__(self) -> str:
        return repr(self.resolved())

    def __reduce__(self) -> tuple:
        found = self.resolved()
        return (Span, (found.file, found.line, found.col))


def nested_too_deeply(path: str, syntax: str) -> ScenarioError:
    """The parser itself ran out of stack (``syntax``: YAML or JSON)."""
    return ScenarioError(
        f"invalid {syntax} in {path}: nested too deeply (at most {MAX_YAML_DEPTH} levels)",
        diagnostics=[
            Diagnostic(S001, f"{syntax} nested too deeply (at most {MAX_YAML_DEPTH} levels)", Span(path, 1, 1))
        ],
    )


def too_deep(path: str, span: Span) -> ScenarioError:
    return ScenarioError(
        f"{path}: nesting deeper than {MAX_YAML_DEPTH} levels",
        diagnostics=[
            Diagnostic(
                S002,
                f"nesting deeper than {MAX_YAML_DEPTH} levels",
                span,
                hint="a scenario needs a few levels of nesting; is an alias (*name) inside its own anchor?",
            )
        ],
    )
