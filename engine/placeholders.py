"""The ``{key}`` placeholders of a refusal's sentence: how a sentence is shown where no violation fills it, and
the check that each placeholder a ``violation_info`` text names has a ``violation_value`` rule that can give it.

A refusal fills each ``{key}`` of its code's ``violation_info(Code, CR, Text)`` with the value a rule gives
that violation, ``violation_value(Code, Subject, Key, Value)`` (judgelog.refusals). Anywhere the sentence is
shown without a violation (a board warning, an explanation), a placeholder reads ``<key>`` (judgelog.ast.unfilled);
a key is a word, so a brace around anything else (``{T}``, a mana symbol; ``{tap: [...]}``, a scenario's
syntax) is text, not a placeholder.

>>> placeholders("total {total}, crew {needed} needs {needed} (choose: {tap: [...]})")
['total', 'needed']
>>> placeholders("its cost includes {T}: {G/U}, {2}")
[]
"""

from __future__ import annotations

from .ast import PLACEHOLDER, Const, Rule, Span, Var, unfilled
from .codes import I013
from .errors import Diagnostic
from .program import Program

__all__ = ["PLACEHOLDER", "placeholders", "unfilled", "placeholder_problems"]


def placeholders(text: str) -> list[str]:
    """The keys ``text`` names as ``{key}``, each once, in order."""
    return list(dict.fromkeys(PLACEHOLDER.findall(text)))


def placeholder_problems(program: Program) -> list[Diagnostic]:
    """Warnings (I013) for a ``violation_info`` text naming a ``{key}`` that no ``violation_value`` rule for
    its code gives (the refusal would print the placeholder as written), and for a ``violation_value`` rule
    giving a key that its code's text never names (the value is never shown). A rule whose code (or key) is
    a variable may give its key to any code (or any key to its code): it clears the first warning and is
    never told of the second."""
    texts: dict[str, list[tuple[str, Rule]]] = {}  # code -> (text, the violation_info fact)
    given: dict[str, list[tuple[str, Rule]]] = {}  # code -> (key, the violation_value rule); code "" : any
    any_key: set[str] = set()  # codes a rule with a variable key gives values to
    for rule in program.rules:
        head = rule.head
        if head.pred == "violation_info" and len(head.args) == 3:
            c, _, t = head.args
            if isinstance(c, Const) and isinstance(t, Const) and isinstance(t.value, str):
                texts.setdefault(str(c.value), []).append((t.value, rule))
        elif head.pred == "violation_value" and len(head.args) == 4:
            c, _, k, _ = head.args
            name = str(c.value) if isinstance(c, Const) else ""
            if isinstance(k, Var):
                any_key.add(name)
            elif isinstance(k, Const):
                given.setdefault(name, []).append((str(k.value), rule))
    anywhere = {k for k, _ in given.get("", [])}
    out: list[Diagnostic] = []
    for code, entries in sorted(texts.items()):
        if code in any_key or "" in any_key:
            continue
        keys = anywhere | {k for k, _ in given.get(code, [])}
        for text, rule in entries:
            for key in placeholders(text):
                if key not in keys:
                    out.append(_warning(code, key, _at(text, key, rule.head.args[2].span or rule.span), named=True))
    for code, rows in sorted(given.items()):
        if not code or code not in texts:
            continue
        named = {k for text, _ in texts[code] for k in placeholders(text)}
        for key, rule in rows:
            if key not in named:
                out.append(_warning(code, key, rule.head.args[2].span or rule.span, named=False, rule=rule.name))
    return out


def _at(text: str, key: str, span: Span) -> Span:
    """Where ``{key}`` is written in the string literal ``text`` that starts at ``span`` (its opening quote),
    when the text before it has nothing written as an escape; else the literal's start."""
    before = text[: text.index("{" + key + "}")]
    return span if any(c in before for c in '"\\\n\r\t') else Span(span.file, span.line, span.col + 1 + len(before))


def _warning(code: str, key: str, span: Span, *, named: bool, rule: str | None = None) -> Diagnostic:
    if named:
        return Diagnostic(
            I013,
            f"the violation_info text of {code} names {{{key}}}, which no violation_value rule gives for "
            f"{code}: its refusal would print {{{key}}} as written",
            span,
            severity="warning",
            hint=f"add a rule violation_value({code}, Subject, {key}, Value) :- ... (docs/authoring.md), or "
            f"write the text without {{{key}}}",
        )
    return Diagnostic(
        I013,
        f"rule {rule or '(unnamed)'} gives {code} the value {key!r}, which its violation_info text never names: "
        "the value is never shown",
        span,
        severity="warning",
        hint=f"name it in the text as {{{key}}}, or drop the rule",
    )
