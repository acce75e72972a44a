"""``judgelog report``: one self-contained HTML page a judge can show at the table.

The page holds the combat graph (the same SVG ``judgelog graph`` writes, inline), the event log of the
scenario's actions, and for each chosen atom its proof tree as nested ``<details>`` elements: every node
shows the atom, the rule's ``@name``, its CR numbers and its file:line, and opens on a click. No script,
no network, no external file: the page works offline and prints as it looks.

>>> from judgelog import Engine
>>> state = Engine().load(Engine.example("banding_blocked_by_one.yaml"))
>>> page = report_html(state, [], atoms=["damage_assigner(bears, alice)"])
>>> page.startswith("<!DOCTYPE html>") and "702.22k" in page and "<details" in page
True
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .errors import QueryError

if TYPE_CHECKING:
    from .change import Event
    from .provenance import Proof
    from .state import State

__all__ = ["report_html", "write_report", "default_atoms"]

STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto; max-width: 72em;
       padding: 0 1em; color: #1d2330; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.sub { color: #5b6474; margin-top: 0; }
.graph { border: 1px solid #d5d9e0; border-radius: 6px; padding: .5em; overflow-x: auto; background: #fff; }
.graph svg { max-width: 100%; height: auto; }
table.events { border-collapse: collapse; width: 100%; font-size: .93em; }
table.events td, table.events th { border-bottom: 1px solid #e3e6eb; padding: .25em .5em; text-align: left;
                                   vertical-align: top; }
details { margin-left: 1.1em; border-left: 2px solid #e3e6eb; padding-left: .5em; }
details.proof { margin-left: 0; border-left: none; padding-left: 0; }
summary { cursor: pointer; padding: .15em 0; }
summary .atom, .leaf .atom { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-weight: 600; }
.rule { color: #2f5fa8; } .cr { background: #fdf1d6; border-radius: 3px; padding: 0 .3em; font-weight: 600; }
.at { color: #6b7483; font-family: ui-monospace, monospace; font-size: .9em; }
.sentence { color: #3b4252; font-style: italic; margin: .1em 0 .2em 1.2em; }
.leaf { margin-left: 1.1em; padding: .15em 0 .15em .5em; border-left: 2px solid #e3e6eb; }
.kind { color: #6b7483; font-size: .85em; } .displaced { color: #9a3b12; margin: .2em 0 .2em 1.2em; }
.none { color: #6b7483; }
"""


def default_atoms(state: State) -> list[str]:
    """Every ``damage_assigner`` fact that holds: who divides each creature's combat damage."""
    if state.engine.program.decl("damage_assigner") is None:
        return []
    return [str(f) for f in state.derived("damage_assigner")]


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _cr(cites: Iterable[str]) -> str:
    return " ".join(f'<span class="cr">CR {_e(c)}</span>' for c in cites)


def _node(proof: Proof, depth: int) -> str:
    """A proof node: a <details> when it has premises (or a displaced default), a plain line otherwise."""
    parts = [f'<span class="atom">{_e(proof.atom)}</span>']
    if proof.rule_obj is not None:
        rule = proof.rule_obj
        parts.append(
            f'&larr; <span class="rule">{_e(rule.name or "(unnamed rule)")}</span> {_cr(rule.cites)} '
            f'<span class="at">{_e(rule.span.short())}</span>'
        )
    else:
        parts.append(f'<span class="kind">[{_e(proof.kind)}]</span>')
        if proof.origin is not None:
            parts.append(f'<span class="at">{_e(proof.origin.short())}</span>')
    head = " ".join(parts)
    sentence = f'<div class="sentence">&ldquo;{_e(proof.sentence)}&rdquo;</div>' if proof.sentence else ""
    children = "".join(_node(p, depth + 1) for p in proof.premises)
    for d in proof.displaced:
        children += (
            f'<div class="displaced">displaces <span class="rule">{_e(d.rule.name)}</span> '
            f'{_cr(d.rule.cites)} <span class="at">{_e(d.rule.span.short())}</span>, which would give '
            f'<span class="atom">{_e(d.would_give)}</span>, because:</div>' + _node(d.blocked_by, depth + 1)
        )
    if not children:
        return f'<div class="leaf">{head}{sentence}</div>'
    cls = ' class="proof"' if depth == 0 else ""
    return f'<details{cls} data-depth="{depth}"><summary>{head}</summary>{sentence}{children}</details>'


def _events_table(events: Sequence[Event]) -> str:
    if not events:
        return '<p class="none">No actions: the state is the one the scenario describes.</p>'
    rows = []
    for e in events:
        details = ", ".join(f"{k}={v}" for k, v in sorted(e.details.items()))
        rule = (f'<span class="rule">{_e(e.rule)}</span> {_cr(e.cites)}') if e.rule else ""
        rows.append(
            f"<tr><td>{e.seq}</td><td>{_e(e.kind)}</td><td>{_e(e.subject)}</td><td>{_e(details)}</td>"
            f"<td>{rule}</td></tr>"
        )
    return (
        '<table class="events"><thead><tr><th>#</th><th>event</th><th>subject</th><th>details</th>'
        "<th>rule</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def report_html(
    state: State, events: Sequence[Event], *, atoms: Sequence[str] | None = None, title: str | None = None
) -> str:
    """The report page of ``state`` (after ``events``) as one HTML string."""
    from .drawing import render_svg
    from .view import combat_graph

    atoms = list(default_atoms(state) if atoms is None else atoms)
    svg = render_svg(combat_graph(state))
    svg = svg[svg.index("<svg") :] if "<svg" in svg else svg  # inline: no XML declaration
    proofs = []
    for atom in atoms:
        proof = state.explain(atom)
        if proof is None:
            proofs.append(
                f'<div class="leaf"><span class="atom">{_e(atom)}</span> <span class="kind">does not hold</span></div>'
            )
        else:
            proofs.append(_node(proof, 0))
    name = title or state.name or state.path
    scenario = state.meta.scenario
    source = _e(scenario.path) if scenario is not None else ""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_e(name)} &mdash; judgelog report</title>",
            f"<style>{STYLE}</style>",
            "</head>",
            "<body>",
            f"<h1>{_e(name)}</h1>",
            f'<p class="sub">{source} &middot; judgelog report</p>',
            "<h2>Combat</h2>",
            f'<div class="graph">{svg}</div>',
            "<h2>Events</h2>",
            _events_table(events),
            "<h2>Why</h2>",
            '<p class="sub">Each line is a fact and the rule that derives it, with its CR numbers '
            "and where it is written; click a line to open its premises.</p>",
            "".join(proofs) or '<p class="none">No atom to explain.</p>',
            "</body>",
            "</html>",
            "",
        ]
    )


def write_report(state: State, events: Sequence[Event], path: str, *, atoms: Sequence[str] | None = None) -> list[str]:
    """Write the page; returns the atoms explained."""
    from .errors import UsageError

    chosen = list(default_atoms(state) if atoms is None else atoms)
    for atom in chosen:
        if not isinstance(atom, str) or not atom.strip():
            raise QueryError("--explain takes a ground atom such as damage_assigner(wurm, bob)")
    page = report_html(state, events, atoms=chosen)
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(page)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return chosen
