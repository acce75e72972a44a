"""Reading a scenario document: typed values, ids and keys checked with their positions, every problem
collected (not only the first), and the facts read, each with the place it came from.

>>> from judgelog.catalog import default_catalog
>>> from judgelog.library import default_interface
>>> reader = ScenarioReader(Located({"players": [1]}, "demo.yaml"), default_catalog(), default_interface())
>>> reader.want([1], "list", ("players",), "players"), reader.ident(1, ("players", 0), "a player id")
(True, None)
>>> print(reader.diags[0].message)
a player id must be a lower_snake id, got 1
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .analysis import suggest
from .ast import Span
from .catalog import CardCatalog
from .codes import S100
from .errors import Diagnostic
from .interface import Interface
from .yamlsrc import Located

__all__ = ["ScenarioReader", "ID_RE", "show", "kind_of"]

ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")


# what ScenarioReader.want checks (made once: it is called for most values of a board)
_IS = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "list": lambda v: isinstance(v, list),
    "map": lambda v: isinstance(v, dict),
    "bool": lambda v: isinstance(v, bool),
}
_KINDS = {  # kind -> (what it is called, how to write one)
    "int": ("an integer", "write a whole number, e.g. 2"),
    "str": ("a string", 'write a word or a "quoted string"'),
    "list": ("a list", "write a list, e.g. [a, b]"),
    "map": ("a mapping", "write a mapping, e.g. {key: value}"),
    "bool": ("true or false", "write true or false (yes, no, on and off are strings)"),
}


class ScenarioReader:
    """Reads one scenario document (or an object entry of an action): collects diagnostics with positions
    and the facts read with their origins."""

    def __init__(self, doc: Located, catalog: CardCatalog, face: Interface) -> None:
        self.doc = doc
        self.catalog = catalog
        self.face = face
        self.keywords = tuple(sorted(face.keywords))
        self.diags: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.facts: dict[tuple, Span] = {}

    @classmethod
    def for_action(cls, spec: dict, span: Span | None, catalog: CardCatalog, face: Interface) -> ScenarioReader:
        """A reader of the ``object:`` an action brings, read as an object entry at path ``("object",)``;
        its problems point at the action (``span``)."""
        doc = Located({"object": spec}, span.file if span else "<action>")
        if span:
            doc.marks[()] = span
        return cls(doc, catalog, face)

    def error(self, path: tuple, message: str, hint: str | None = None, *, key: bool = False) -> None:
        span = self.doc.key_span(path) if key else self.doc.span(path)
        self.diags.append(Diagnostic(S100, message, span, hint=hint))

    def add(self, fact: tuple, path: tuple) -> None:
        """Add a fact and what recording it gives (record_symmetric, record_implies: the same table the
        record primitive uses, so a designation from a file and one made by an action agree)."""
        for made in self.face.recorded(fact):
            if made not in self.facts:
                self.facts[made] = self.doc.deferred_span(path)

    def check_keys(
        self,
        value: dict,
        allowed: Sequence[str],
        path: tuple,
        what: str,
        *,
        fields: bool = False,
        elsewhere: Mapping[str, str] | None = None,
    ) -> None:
        """Every key of ``value`` must be ``allowed``; ``elsewhere``: keys written at another place of the
        scenario, with the hint that says where."""
        for key in value:
            if key not in allowed:
                near = suggest(str(key), allowed)
                rest = f"allowed keys: {', '.join(allowed)}"
                if fields:  # a designation field exists only when a loaded rule file declares it
                    rest = f"no loaded rule file declares the scenario field {key!r} (scenario_field/4); " + rest
                moved = (elsewhere or {}).get(str(key))
                self.error(
                    path + (key,),
                    f"unknown key {key!r} in {what}",
                    moved or (f"did you mean {near!r}?" if near else rest),
                    key=True,
                )

    def want(self, value: object, kind: str, path: tuple, what: str) -> bool:
        """Whether ``value`` is of ``kind`` (int, str, list, map, bool); if not, the problem is told."""
        if _IS[kind](value):
            return True
        name, hint = _KINDS[kind]
        self.error(path, f"{what} must be {name}, got {show(value)}", hint)
        return False

    def ident(self, value: object, path: tuple, what: str, *, key: bool = False) -> str | None:
        """``value`` if it is a lower_snake id, else None and the problem told (``key``: at the mapping key
        ``path`` ends with, as an object's id is written, not at its value)."""
        if not isinstance(value, str) or not ID_RE.match(value):
            snake = "_".join(value.lower().split()) if isinstance(value, str) else ""
            self.error(
                path,
                f"{what} must be a lower_snake id, got {show(value)}",
                (f"write {snake!r}; " if snake and ID_RE.match(snake) else "")
                + "ids start with a lower-case letter and use a-z, 0-9 and _",
                key=key,
            )
            return None
        return value


def kind_of(value: object) -> str:
    """What a value is, in the words of :meth:`ScenarioReader.want` ("a mapping", "an integer", ...).

    >>> kind_of({"name": "Raider"}), kind_of(True), kind_of(None)
    ('a mapping', 'true or false', 'nothing')
    """
    found = next((_KINDS[kind][0] for kind, test in _IS.items() if test(value)), None)
    return found or ("nothing" if value is None else "another value")


def show(value: object) -> str:
    """A value as a problem quotes it (cut short)."""
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."
