"""One error hierarchy for everything judgelog refuses.

Every error a user can cause is a :class:`JudgelogError`; the command line turns it into a message and an
exit code (judgelog.exits), never a traceback.  Errors that point into a file carry :class:`Diagnostic`
objects, each with a source span, a registered code (judgelog.codes, documented in ``docs/errors.md``) and,
where we can, a hint.

>>> from judgelog.ast import Span
>>> d = Diagnostic("E003", "arity mismatch", Span("x.dl", 3, 5), hint="declared with 2 arguments")
>>> print(d.render(source_line="p(a) :- q(a, b, c)."))
x.dl:3:5: error[E003]: arity mismatch
    p(a) :- q(a, b, c).
        ^
  hint: declared with 2 arguments
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .codes import A001, Code, lookup

if TYPE_CHECKING:  # pragma: no cover
    from .ast import Span

__all__ = [
    "Diagnostic",
    "JudgelogError",
    "UsageError",
    "LoadError",
    "RuleError",
    "ScenarioError",
    "QueryError",
    "WordForNumber",
    "NothingToChoose",
    "ActionError",
    "LimitError",
    "render_diagnostics",
]


@dataclass(frozen=True)
class Diagnostic:
    """A message about a place in a file: ``file:line:col: severity[CODE]: message``."""

    code: Code  # a constant of judgelog.codes
    message: str
    span: Span | None = None
    hint: str | None = None
    severity: str = "error"
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        lookup(self.code)  # a code the registry lacks would reach a user undocumented

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def location(self) -> str:
        return self.span.location() if self.span is not None else "<input>"

    def render(self, *, source_line: str | None = None, caret: int | None = None) -> str:
        """Render as text; ``source_line`` adds the line and a caret under the column (or under ``caret``, a
        1-based column of ``source_line`` when it is a piece of the line)."""
        out = [f"{self.location()}: {self.severity}[{self.code}]: {self.message}"]
        if source_line is not None and self.span is not None:
            text = source_line.rstrip("\n").expandtabs(1)
            out.append("    " + text)
            out.append("    " + " " * max((caret or self.span.col) - 1, 0) + "^")
        for note in self.notes:
            out.append(f"  note: {note}")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "severity": self.severity, "message": self.message}
        if self.span is not None:
            data.update(file=self.span.file, line=self.span.line, col=self.span.col)
        if self.hint:
            data["hint"] = self.hint
        if self.notes:
            data["notes"] = list(self.notes)
        return data


class JudgelogError(Exception):
    """Base class of every error judgelog reports to a user; raise one of its subclasses, which say what
    kind of problem it is (the command line's exit code follows from the class: judgelog.exits)."""

    def __init__(self, message: str, *, diagnostics: Sequence[Diagnostic] = (), hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.diagnostics = tuple(diagnostics)
        self.hint = hint

    def render(self, *, sources: dict | None = None) -> str:
        """The full message: each diagnostic with its source line when ``sources`` maps file -> text."""
        if not self.diagnostics:
            text = f"error: {self.message}"
            return text + (f"\n  hint: {self.hint}" if self.hint else "")
        return "\n".join(render_diagnostics(self.diagnostics, sources=sources))

    def to_dict(self) -> dict:
        data: dict[str, Any] = {"error": type(self).__name__, "message": self.message}
        if self.hint:
            data["hint"] = self.hint
        if self.diagnostics:
            data["diagnostics"] = [d.to_dict() for d in self.diagnostics]
        return data


class UsageError(JudgelogError):
    """The command or API was called with arguments that make no sense. Its text (``str``) is the message and
    its hint, on a line of its own, as a :class:`LoadError`'s: a Python traceback shows only ``str(error)``
    (``unknown action 'destory'`` and ``hint: did you mean 'destroy'?``); ``message`` is the message alone."""

    def __str__(self) -> str:
        return _with_hint(self)


class NothingToChoose(UsageError):
    """A decision has nothing to decide now (no creature has combat damage to divide): a negative answer."""


class LoadError(JudgelogError):
    """An input could not be loaded: missing file, syntax error, schema error.

    Its text (``str``) is the message and its first :attr:`SHOWN` diagnostics, so that a program printing the
    exception sees what is wrong; the command line prints :meth:`~JudgelogError.render` (every diagnostic).
    """

    SHOWN = 3

    def __str__(self) -> str:
        return _with_diagnostics(self, self.SHOWN)


class RuleError(LoadError):
    """A rule file is malformed or fails static analysis."""


class ScenarioError(LoadError):
    """A scenario file is malformed or names things that do not exist."""


class QueryError(UsageError):
    """A query does not parse or uses predicates wrongly. Its text (``str``) is the message and its first
    diagnostics with their hints, as a :class:`LoadError`'s (``invalid query ...: <query>:1:1: error[E002]:
    unknown predicate ... hint: did you mean ...``)."""

    def __str__(self) -> str:
        return _with_diagnostics(self, LoadError.SHOWN)


def _with_diagnostics(error: JudgelogError, shown: int) -> str:
    """An error's message and its first ``shown`` diagnostics, rendered (each with its hint)."""
    if not error.diagnostics:
        return _with_hint(error)
    lines = [f"{error.message}:", *render_diagnostics(error.diagnostics[:shown])]
    if len(error.diagnostics) > shown:
        lines.append(f"and {len(error.diagnostics) - shown} more")
    return "\n".join(lines)


def _with_hint(error: JudgelogError) -> str:
    """An error's message and its hint on a line of its own: a Python traceback shows only ``str(error)``."""
    return error.message + (f"\n  hint: {error.hint}" if error.hint else "")


def made_by_the_action(made: Iterable[str], choice: str, *, only: bool = False) -> str:
    """What options no object of the state had yet are: objects the action itself makes (the token amass
    creates), whose ids a choose: can't name before they exist, but the action's ``as:`` can. ``only``: the
    choice's only option, taken when choose: leaves the choice out."""
    text = (
        f"{', '.join(made)}: made by this action, not on the board yet (the id is the action's as: when given, "
        f"else a fresh one); choose: names it only through as: (as: new_id, choose: {{{choice}: new_id}})"
    )
    return text + ("; without choose:, the only option is taken" if only else "")


class WordForNumber(QueryError):
    """A rule compared a number with a word, or computed with a word (``word``: the word, when known). Met while
    an action is applied, the word came from the board (a fact, a parameter): State.apply reports it as the
    board's error (a ScenarioError at the action, naming the facts that hold the word)."""

    def __init__(self, message: str, *, word: object = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.word = word


class ActionError(JudgelogError):
    """An action was refused; the state is unchanged.

    ``cr`` names the rule that refuses it and ``options`` lists the legal choices, when there are any (an
    empty list given: there are none, and the refusal says so);
    ``refused_by`` the rules that refused it as (rule @name, file:line, CR, sentence); ``violations`` the
    ``violation(Code, Subject)`` facts that refused it, as text pairs; ``untimely``: every
    one of them is about when the action is taken, not about what it chooses (refusal_not_about_the_choice/1:
    blockers declared already, an ability on the stack). Whoever applies a
    scenario's actions adds where the action is (``index``, ``span``) and the events up to it (``events``,
    as text) with :meth:`in_context`.
    """

    def __init__(
        self,
        message: str,
        *,
        cr: str | None = None,
        options: Iterable | None = None,
        hint: str | None = None,
        refused_by: Iterable[tuple] = (),
        untimely: bool = False,
        violations: Iterable[tuple[str, str]] = (),
    ) -> None:
        super().__init__(message, hint=hint)
        self.cr = cr
        self.options = tuple(options or ())
        self.no_options = options is not None and not self.options  # the choice had no legal option at all
        self.refused_by = tuple(refused_by)
        self.untimely = untimely
        self.violations = tuple(violations)
        self.index: int | None = None
        self.span: Span | None = None
        self.events: tuple = ()
        self.made: tuple[str, ...] = ()  # options no object of the state had: made by the action (a new token)
        self.choice = ""  # the choice whose options these are

    def in_follow_up(self, args: dict) -> ActionError:
        """The same refusal, saying it came when the action was applied again with ``args`` (follow_up/2: the
        rules go on, e.g. from the first-strike combat damage step to the regular one)."""
        given = ", ".join(f"{k}: {v}" for k, v in sorted(args.items()))
        self.message = f"{self.message} [when applied again with {given}, as the rules ask (follow_up)]"
        if self.hint is None:
            self.hint = f"to give that application arguments of its own, apply the action again yourself with {given}"
        return self

    def in_context(self, *, index: int, span: Span | None, events: Iterable[str]) -> ActionError:
        """The same refusal, saying which action of a file it was and what happened before it."""
        self.index, self.span, self.events = index, span, tuple(events)
        return self

    def render(self, *, sources: dict | None = None) -> str:
        """``FILE:LINE:COL: error[A001]: action[N] ...`` with the action's line, when the refusal is of an action
        of a file; the rules that refused it, the events before it and the hint follow."""
        hint = f"\n  hint: {self.hint}" if self.hint else ""
        if self.index is None or self.span is None:
            return "error: " + self.explain() + hint
        lines = self.explain(located=False).split("\n")
        (head,) = render_diagnostics([Diagnostic(A001, lines[0], self.span)], sources=sources)
        return "\n".join([head, *lines[1:]]) + hint

    def explain(self, *, located: bool = True) -> str:
        """The refusal with everything a judge needs: which action (and, ``located``, where: file:line:col),
        the rules and CR sentences that refused it, the legal options and the events so far."""
        head = str(self)
        if self.index is not None:
            where = f" ({self.span.location()})" if self.span is not None and located else ""
            head = f"action[{self.index}]{where}: {head}"
        lines = [head]
        for name, at, cr, sentence in self.refused_by:
            lines.append(f"  refused by rule {name} [CR {cr}] {at}: {sentence}")
        if self.index is not None:
            lines.append("  events before it:" + ("" if self.events else " none"))
            lines.extend(f"    {e}" for e in self.events)
        return "\n".join(lines)

    def __str__(self) -> str:
        text = self.message
        if self.cr and f"CR {self.cr}" not in text:
            text += f" (CR {self.cr})"
        if self.options:
            text += "; legal options: " + ", ".join(str(o) for o in self.options)
            if self.made:
                text += " (" + made_by_the_action(self.made, self.choice or "...") + ")"
        elif self.no_options:
            text += "; legal options: none"
        return text

    def to_dict(self) -> dict:
        data = super().to_dict()
        data["message"] = str(self)
        if self.cr:
            data["cr"] = self.cr
        if self.options or self.no_options:
            data["options"] = [str(o) for o in self.options]
        if self.refused_by:
            data["refused_by"] = [{"rule": n, "at": at, "cr": cr, "sentence": s} for n, at, cr, s in self.refused_by]
        if self.index is not None:
            data["action"] = self.index
            if self.span is not None:
                data.update(file=self.span.file, line=self.span.line, col=self.span.col, code=A001)
            data["events"] = list(self.events)
        return data


class LimitError(JudgelogError):
    """Evaluation reached a configured limit (judgelog.recursion.Limits); ``code`` says which: L001 derived
    facts, L002 time, L003 the size of a computed integer, L004 the combinations of a body's unconnected
    parts (then positioned at the rule)."""

    def __init__(self, code: Code, message: str, *, hint: str | None = None, span: Span | None = None) -> None:
        diagnostics = (Diagnostic(code, message, span, hint=hint),) if span is not None else ()
        super().__init__(f"[{lookup(code)}] {message}", hint=hint, diagnostics=diagnostics)
        self.code = code

    def to_dict(self) -> dict:
        data = super().to_dict()
        data["code"] = self.code
        return data


def render_diagnostics(diagnostics: Iterable[Diagnostic], *, sources: dict | None = None) -> list:
    """Render diagnostics, showing the source line when its file's text is known."""
    out = []
    for diag in diagnostics:
        line, caret = None, None
        if sources is not None and diag.span is not None:
            text = sources.get(diag.span.file)
            if text is None:
                text = _read_quietly(diag.span.file)
            if text is not None and "\0" not in text:  # never quote what is not rule or scenario text
                lines = text.splitlines()
                if 0 < diag.span.line <= len(lines):
                    line, caret = _cut(lines[diag.span.line - 1], diag.span.col)
        out.append(diag.render(source_line=line, caret=caret))
    return out


def _cut(line: str, col: int, width: int = 200) -> tuple[str, int]:
    """At most ``width`` characters of a quoted line, around the column, and the caret's column in them.

    >>> _cut("x" * 300 + "!", 301, width=40)
    ('... xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx!', 35)
    """
    if len(line) <= width:
        return line, col
    if col <= width - 20:
        return line[:width] + " ...", col
    start = max(col - 1 - (width - 10), 0)
    piece = line[start : start + width - 6]
    return "... " + piece + (" ..." if start + width - 6 < len(line) else ""), col - start + 4


def _read_quietly(path: str) -> str | None:
    """A file's text to quote a line of: a regular UTF-8 text file under the rule-file cap, else None."""
    from .safefiles import MAX_RULE_BYTES, read_text

    try:
        text = read_text(path, limit=MAX_RULE_BYTES)
    except (OSError, ValueError):
        return None
    return None if "\0" in text else text
