"""``judgelog audit --keyword K`` and ``--only PART`` without a scenario: the static audit cut down to one
keyword's rules (its ``@name`` group) or to one part of the report.

A keyword's static picture is what an auditor asks of it before any board: which rules are its own, which
rules of other keywords or areas name it (a card granting it, a property reading it), which predicates its
rules read from others and which of its predicates others read, the defaults it can displace or that
displace it, and its rules that can never fire.

>>> from judgelog import Engine
>>> from judgelog.audit import static_audit, rules_of_group
>>> program = Engine().program
>>> own, naming = rules_of_group(program, "reach")
>>> data = filter_static(static_audit(program), own, naming, keyword="reach")
>>> [r["rule"] for r in data["keyword_rules"]]
['reach.reach_blocks_fliers']
>>> sorted(data["group_reads"]["flying"])
['reach']
"""

from __future__ import annotations

from typing import Any

from .ast import Rule

__all__ = ["filter_static", "STATIC_PARTS"]

# the sections of the static report each --only part keeps (the rest are dropped)
STATIC_PARTS = {
    "overrides": ("defaults",),
    "conflicts": ("unguarded_functional",),
    "interactions": ("reads", "group_reads"),
}
_SECTIONS = (
    "reads",
    "group_reads",
    "strata",
    "defaults",
    "unguarded_functional",
    "uncited",
    "never_fire",
    "waiting",
    "never_derived",
    "extension_points",
    "never_read",
)


def _group(name: str | None) -> str:
    return (name or "").split(".", 1)[0]


def _ref(rule: Rule) -> dict:
    return {"rule": rule.name, "cites": list(rule.cites), "at": rule.span.short()}


def filter_static(
    data: dict,
    own: list[Rule],
    naming: list[Rule],
    *,
    keyword: str | None = None,
    only: str | None = None,
    declared: frozenset[str] = frozenset(),
) -> dict:
    """``data`` (judgelog.audit.static_audit) with only what concerns ``keyword`` (``own``: the rules of its
    group; ``naming``: other rules whose atoms name it as a constant; ``declared``: the predicates declared in
    its rules' files), and only the part ``only``."""
    out: dict[str, Any] = dict(data)
    if keyword is not None:
        out.update(_by_keyword(data, own, naming, keyword, declared))
    if only is not None:
        for section in _SECTIONS:
            if section not in STATIC_PARTS[only]:
                out.pop(section, None)
        out["only"] = only
    return out


def _by_keyword(data: dict, own: list[Rule], naming: list[Rule], keyword: str, declared: frozenset[str]) -> dict:
    files = {r.span.file for r in own}
    derived = {r.head.pred for r in own}
    return {
        "keyword": keyword,
        "keyword_rules": [_ref(r) for r in own],
        "naming_rules": [_ref(r) for r in naming],
        "files": {f: e for f, e in data["files"].items() if f in files},
        # files the keyword's files read, and files reading them
        "reads": {
            reader: m if reader in files else {f: ps for f, ps in m.items() if f in files}
            for reader, m in data["reads"].items()
            if reader in files or files & set(m)
        },
        "group_reads": {
            reader: m if reader == keyword else {keyword: m[keyword]}
            for reader, m in data["group_reads"].items()
            if reader == keyword or keyword in m
        },
        "strata": {
            k: [p for p in preds if p in derived] for k, preds in data["strata"].items() if derived & set(preds)
        },
        "defaults": [
            d
            for d in data["defaults"]
            if _group(d["rule"]) == keyword or any(_group(e["rule"]) == keyword for e in d["exceptions"])
        ],
        "unguarded_functional": [
            u
            for u in data["unguarded_functional"]
            if _group(u["rule"]) == keyword or any(_group(o["rule"]) == keyword for o in u["others"])
        ],
        "uncited": [r for r in data["uncited"] if _group(r["rule"]) == keyword],
        "never_fire": [r for r in data["never_fire"] if _group(r["rule"]) == keyword],
        "waiting": [r for r in data["waiting"] if _group(r["rule"]) == keyword],
        "never_derived": [p for p in data["never_derived"] if p in declared],
        "extension_points": [p for p in data["extension_points"] if p in declared],
        "never_read": [p for p in data["never_read"] if p in derived],
    }
