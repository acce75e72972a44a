"""The card catalog (``facts/cards.yaml``) and where the shipped data lives.

A card entry holds characteristics (its copiable values, CR 707.2) and, for cards with unique text, an
optional ``rules:`` block in the rule language that uses generic hooks (``pt_modifier``,
``grants_keyword``, triggered-ability vocabulary). Those rules load with the library.

>>> cat = default_catalog()
>>> cat.get("Grizzly Bears").characteristics()["power"]
2
>>> cat.suggest("Grizly Bears")
'Grizzly Bears'
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import cache as user_cache
from .codes import S100
from .errors import Diagnostic, ScenarioError
from .yamlsrc import load_path

__all__ = ["Card", "CardCatalog", "default_catalog", "rules_dir", "facts_dir", "CARD_KEYS"]

CARD_KEYS = (
    "mana_cost",
    "mana_value",
    "types",
    "supertypes",
    "subtypes",
    "colors",
    "power",
    "toughness",
    "keywords",
    "text",
    "set",
    "year",
    "rules",
)


def _package_or_repo(name: str) -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / name, here.parent / name):
        if candidate.is_dir():
            return candidate
    return here / name


def rules_dir() -> Path:
    """The shipped rule library (inside the installed package)."""
    return _package_or_repo("rules")


def facts_dir() -> Path:
    """The shipped data: cards.yaml and scenarios/."""
    return _package_or_repo("facts")


@dataclass(frozen=True)
class Card:
    name: str
    data: dict
    line: int
    rules_text: str = ""
    rules_line: int = 0

    def characteristics(self) -> dict:
        out = {"name": self.name}
        for key in ("types", "supertypes", "subtypes", "colors", "power", "toughness", "keywords"):
            if key in self.data:
                out[key] = self.data[key]
        return out


class CardCatalog:
    def __init__(self, cards: dict[str, Card], path: str) -> None:
        self.cards = cards
        self.path = path
        self._folded = {name.casefold(): card for name, card in cards.items()}

    def get(self, name: str) -> Card | None:
        return self.cards.get(name) or self._folded.get(name.casefold())

    def suggest(self, name: str) -> str | None:
        match = difflib.get_close_matches(name, list(self.cards), n=1, cutoff=0.6)
        return match[0] if match else None

    def rule_sources(self) -> list[tuple]:
        """(path, text, first line) of each card's rules block."""
        return [(self.path, c.rules_text, c.rules_line) for c in self.cards.values() if c.rules_text]

    @classmethod
    def load(cls, path: str) -> CardCatalog:
        doc = load_path(path)
        data = doc.value
        if not isinstance(data, dict) or not isinstance(data.get("cards"), dict):
            raise ScenarioError(f"{path}: expected a mapping 'cards:' of card name -> characteristics")
        cards: dict[str, Card] = {}
        diags = []
        for name, entry in data["cards"].items():
            span = doc.key_span(("cards", name))
            if not isinstance(entry, dict):
                diags.append(Diagnostic(S100, f"card {name!r} must be a mapping", span))
                continue
            for key in entry:
                if key not in CARD_KEYS:
                    diags.append(
                        Diagnostic(
                            S100,
                            f"unknown key {key!r} in card {name!r}",
                            doc.key_span(("cards", name, key)),
                            hint="card keys: " + ", ".join(CARD_KEYS),
                        )
                    )
            rules_text = entry.get("rules", "") or ""
            rules_line = 0
            if rules_text:
                # a block scalar starts on the line after 'rules: |'
                rules_line = doc.key_span(("cards", name, "rules")).line
            cards[str(name)] = Card(str(name), entry, span.line, rules_text, rules_line)
        if diags:
            raise ScenarioError(f"{len(diags)} problem(s) in the card catalog {path}", diagnostics=diags)
        return cls(cards, path)


@cache
def _load_cached(path: str, mtime: float) -> CardCatalog:
    """From the user's cache folder when the same file was read before (judgelog.cache: addressed by its
    content): a start that finds it there reads no YAML."""
    key = user_cache.address("catalog", options=(path,), files=[path])
    found = user_cache.lookup(key)
    if isinstance(found, CardCatalog):
        return found
    catalog = CardCatalog.load(path)
    user_cache.store(key, catalog, depends={})
    return catalog


def default_catalog() -> CardCatalog:
    path = str(facts_dir() / "cards.yaml")
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return CardCatalog({}, path)
    return _load_cached(path, mtime)
