"""Generate the command-line reference (``docs/cli.md``) from the argument parser itself.

``python -m judgelog.clidoc > docs/cli.md`` regenerates the page; ``tests/test_docs.py`` checks that the
committed page is exactly what this prints, so the reference cannot drift from ``judgelog --help``.
The output does not depend on the terminal width or the Python version.

>>> text = render()
>>> text.startswith("# Command-line reference") and "## judgelog explain" in text
True
"""

from __future__ import annotations

import argparse
import sys

from . import errors, exits
from .cli import build_parser

__all__ = ["render", "main", "EXIT_MEANINGS", "NEGATIVE"]

EXIT_MEANINGS = {  # every EXIT_* constant of judgelog.exits, in words
    "EXIT_OK": "success",
    "EXIT_NEGATIVE": "a negative result: no answer, an atom that does not hold, a failed test, errors found "
    "by `check`, a refused action, a conflict found by `audit`",
    "EXIT_USAGE": "usage error: unknown verb or option, a query that does not parse, an unknown action",
    "EXIT_LOAD": "an input could not be loaded: a missing file, a syntax or schema error in a rule file or "
    "scenario (the diagnostics are printed)",
    "EXIT_INTERNAL": "internal error (a bug: please report it; `JUDGELOG_DEBUG=1` prints the traceback)",
    "EXIT_LIMIT": "evaluation reached a limit (`--max-derived`, `--time-limit`, `--max-join`, integer size; "
    "docs/errors.md, L001-L004)",
    "EXIT_INTERRUPTED": "interrupted: Ctrl-C (SIGINT), or SIGTERM while `verify` runs; the work is incomplete "
    "(`verify` first prints what it had checked and the counterexamples found so far)",
}

NEGATIVE = {  # when each verb exits 1 (EXIT_NEGATIVE)
    "query": "the query has no answer",
    "explain": "the atom does not hold (the why-not report is printed instead)",
    "test": "a case failed, or no case was found (a path that does not exist, or a folder with no .yaml, .yml or "
    ".json file, exits 3)",
    "check": "at least one error was found in a rule file (warnings alone exit 0; a scenario that would not "
    "load exits 3)",
    "rules": "`--cr` matches no rule",
    "do": "an action was refused (the message names the CR rule and lists the legal options)",
    "choices": "an action of the scenario was refused, the action named (what) would be refused now, or the "
    "decision has no legal option or nothing to decide now",
    "graph": "an action of the scenario was refused",
    "audit": "it finds a conflict: a `functional` predicate with two values for one key",
    "report": "an action of the scenario was refused, or an atom given with `--explain` does not hold (the page "
    "and the output say so)",
    "verify": "it finds a counterexample to a property (written as a scenario that `judgelog test` fails); "
    "interrupted (Ctrl-C, SIGTERM), it prints what it had checked and exits 130",
}

DEFAULT_HELP = {  # positional arguments the parser gives no help for
    "scenario": "a scenario file, YAML or JSON (see [scenarios.md](scenarios.md))",
    "atom": 'a ground atom, e.g. "damage_assigner(bears, alice)"',
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _metavar(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None and action.metavar is None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    metavar = action.metavar or (action.dest if not action.option_strings else action.dest.upper())
    if isinstance(metavar, tuple):
        return " ".join(metavar)
    return {"?": f"[{metavar}]", "*": f"[{metavar} ...]", "+": f"{metavar} [{metavar} ...]"}.get(
        str(action.nargs), metavar
    )


def _flag(action: argparse.Action, *, usage: bool = False) -> str:
    names = action.option_strings[0] if usage else ", ".join(action.option_strings)
    return f"{names} {_metavar(action)}".rstrip()


def _usage(prog: str, actions: list[argparse.Action]) -> str:
    parts = [prog]
    for action in actions:
        if action.option_strings:
            flag = _flag(action, usage=True)
            parts.append(flag if action.required else f"[{flag}]")
    parts += [_metavar(a) for a in actions if not a.option_strings]
    return " ".join(parts)


def _help(action: argparse.Action) -> str:
    text = action.help or DEFAULT_HELP.get(action.dest, "")
    if "%(" in text:
        text = text % dict(vars(action), prog="judgelog")
    default = action.default
    if (
        action.option_strings
        and action.nargs != 0
        and default not in (None, [], argparse.SUPPRESS)
        and "default" not in text
    ):
        text += f" (default: {default})"
    return text


def _table(head: str, rows: list[tuple]) -> list[str]:
    out = [f"| {head} | meaning |", "|---|---|"]
    out += [f"| `{_cell(name)}` | {_cell(text)} |" for name, text in rows]
    return out + [""]


def render() -> str:
    """The whole reference page as markdown."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    verbs = [(c.dest, c.help or "", sub.choices[c.dest]) for c in sub._choices_actions]
    own = {
        name: [a for a in p._actions if a.dest != "help" and a.help is not argparse.SUPPRESS] for name, _, p in verbs
    }
    common = [
        a
        for a in own[verbs[0][0]]
        if a.option_strings and all(any(b.option_strings == a.option_strings for b in acts) for acts in own.values())
    ]
    common_flags = {tuple(a.option_strings) for a in common}
    out = [
        "# Command-line reference",
        "",
        "<!-- Generated from judgelog.cli.build_parser() by `python -m judgelog.clidoc > docs/cli.md`;",
        "     do not edit by hand (tests/test_docs.py checks it is up to date). -->",
        "",
        parser.description or "",
        "",
        "```text",
        "judgelog [--version] VERB [OPTIONS] ARGUMENTS",
        "```",
        "",
        "| verb | what it does |",
        "|---|---|",
    ]
    out += [f"| [`{name}`](#judgelog-{name}) | {_cell(text)} |" for name, text, _ in verbs]
    out += [
        "",
        "`judgelog --version` prints the version; `judgelog VERB --help` the options of a verb.",
        "",
        "## Options of every verb",
        "",
    ]
    out += _table("option", [(_flag(a), _help(a)) for a in common])
    out += ["## Exit codes", "", "| code | name | meaning | errors (`judgelog.errors`) |", "|---|---|---|---|"]
    classes: dict[int, list[str]] = {}
    for cls in vars(errors).values():  # the error classes of judgelog.errors, in the order they are defined
        if isinstance(cls, type) and issubclass(cls, errors.JudgelogError) and cls is not errors.JudgelogError:
            classes.setdefault(exits.exit_code(cls), []).append(cls.__name__)
    for name in sorted(
        (n for n in dir(exits) if n.startswith("EXIT_") and n != "EXIT_CODES"), key=lambda n: getattr(exits, n)
    ):
        code = getattr(exits, name)
        raised = ", ".join(f"`{c}`" for c in classes.get(code, []))
        out.append(f"| {code} | `{name}` | {_cell(EXIT_MEANINGS[name])} | {raised} |")
    out.append("")
    for name, text, _ in verbs:
        actions = own[name]
        out += [
            f"## judgelog {name}",
            "",
            text[:1].upper() + text[1:] + ".",
            "",
            "```text",
            _usage(f"judgelog {name}", actions),
            "```",
            "",
        ]
        positionals = [a for a in actions if not a.option_strings]
        if positionals:
            out += ["Arguments:", ""] + _table("argument", [(_metavar(a), _help(a)) for a in positionals])
        options = [a for a in actions if a.option_strings and tuple(a.option_strings) not in common_flags]
        besides = "[those of every verb](#options-of-every-verb)"
        out += (
            [f"Options (besides {besides}):", ""] + _table("option", [(_flag(a), _help(a)) for a in options])
            if options
            else [f"No options besides {besides}.", ""]
        )
        out += [f"Exit code 1 when {NEGATIVE[name]}.", ""]
    return "\n".join(out)


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
