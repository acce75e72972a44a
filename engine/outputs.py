"""What the verbs print: the versioned JSON documents of ``--format json``, and the text table of answers.

Every document carries ``"schema": "judgelog/<verb>/<version>"`` and follows the JSON Schema shipped in the
package as ``schemas/<verb>-<version>.json`` (errors, printed on stderr, use the ``error`` schema). A change
that would break a reader gets a new version; adding an optional key does not.

>>> stamp("query", {"query": "player(P)"})["schema"]
'judgelog/query/1'
>>> load_schema("query")["properties"]["schema"]["const"]
'judgelog/query/1'
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

__all__ = ["VERSION", "SCHEMA_DIR", "schema_id", "stamp", "load_schema", "schema_names", "term", "table"]

VERSION = 1
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


def schema_id(verb: str) -> str:
    return f"judgelog/{verb}/{VERSION}"


def stamp(verb: str, data: dict) -> dict:
    """The document with its ``schema`` key first."""
    return {"schema": schema_id(verb), **{k: v for k, v in data.items() if k != "schema"}}


@cache
def load_schema(verb: str) -> dict:
    """The JSON Schema of a verb's document (``error`` for errors)."""
    path = SCHEMA_DIR / f"{verb}-{VERSION}.json"
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def schema_names() -> list[str]:
    """The verbs (and ``error``) that have a shipped schema."""
    return sorted(p.name.rsplit("-", 1)[0] for p in SCHEMA_DIR.glob(f"*-{VERSION}.json"))


def term(fact: tuple) -> dict:
    """A ground atom as structured JSON: ``{"pred": ..., "args": [...]}``."""
    return {"pred": fact[0], "args": list(fact[1:])}


def table(names: list[str], rows: list[dict]) -> str:
    """Answers as a text table, a column a variable (``yes``/``no`` for a question without variables).

    >>> print(table(["P"], [{"P": "alice"}, {"P": "bob"}]))
    P
    -----
    alice
    bob
    """
    from .ast import format_value

    if not names:
        return "yes" if rows else "no"
    cells = [[format_value(r[n]) for n in names] for r in rows]
    widths = [max([len(n)] + [len(c[i]) for c in cells]) for i, n in enumerate(names)]
    lines = ["  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip(), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)
