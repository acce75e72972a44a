"""The ``judgelog`` command line. Every verb takes ``--rules PATH`` (repeatable) and ``--format text|json``.

Exit codes (judgelog.exits): 0 ok; 1 a negative result (a test failed, ``check`` found errors, an atom does not
hold, an action was refused); 2 usage error; 3 input could not be loaded; 4 internal error; 5 a limit was
reached. Bad input never prints a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .errors import JudgelogError
from .exits import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_LOAD, EXIT_OK, EXIT_USAGE, exit_code

__all__ = ["main", "build_parser"]


# verbs users reach for that are spelt otherwise here, with what to type instead
_VERB_HINTS = {
    "why-not": "judgelog explain SCENARIO ATOM --why-not",
    "whynot": "judgelog explain SCENARIO ATOM --why-not",
    "why": "judgelog explain SCENARIO ATOM",
    "prove": "judgelog explain SCENARIO ATOM",
    "run": "judgelog do SCENARIO (applies its actions and prints the events)",
    "apply": "judgelog do SCENARIO",
    "lint": "judgelog check RULES",
    "draw": "judgelog graph SCENARIO -o FILE.svg",
}


class _Parser(argparse.ArgumentParser):
    argv: Sequence[str] = ()  # the arguments parsed (main sets them), for a did-you-mean of a misspelt option

    def error(self, message: str) -> NoReturn:  # exit 2 with our wording, not argparse's
        import re

        hint = None
        verb = re.match(r"argument VERB: invalid choice: '([^']*)'", message)
        if verb:
            hint = _VERB_HINTS.get(verb.group(1).lower())
            if hint is None:
                import difflib

                near = difflib.get_close_matches(verb.group(1), re.findall(r"'(\w+)'", message[verb.end() :]), n=1)
                hint = f"judgelog {near[0]}" if near else None
            hint = f"did you mean: {hint}" if hint else None
        unknown = re.match(r"unrecognized arguments: (--?[\w-]+)", message)
        if unknown:  # a misspelt option: the nearest option of this verb (or of every verb)
            import difflib

            verbs = {
                n: p for a in self._actions if isinstance(a, argparse._SubParsersAction) for n, p in a.choices.items()
            }
            said = [verbs[w] for w in self.argv if w in verbs][:1]  # the verb given: its options, else every verb's
            parsers = [self, *(said or verbs.values())]
            options = sorted({o for p in parsers for a in p._actions for o in a.option_strings if o.startswith("--")})
            near = difflib.get_close_matches(unknown.group(1), options, n=1)
            hint = f"did you mean {near[0]}?" if near else None
        raise _UsageProblem(message, hint, self.format_usage())


class _UsageProblem(Exception):
    """A usage error found by the argument parser: main prints it as text, or as JSON with --format json."""

    def __init__(self, message: str, hint: str | None, usage: str) -> None:
        super().__init__(message)
        self.message, self.hint, self.usage = message, hint, usage


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether the command line asks for --format json (its last --format, or an abbreviation, wins), read
    from the raw arguments: a usage error is found before they are parsed."""
    wanted = "text"
    for i, word in enumerate(argv):
        name, eq, value = word.partition("=")
        if len(name) > 3 and "--format".startswith(name):
            wanted = value if eq else (argv[i + 1] if i + 1 < len(argv) else wanted)
    return wanted == "json"


def _usage_error(argv: Sequence[str], message: str, hint: str | None = None, usage: str = "") -> int:
    """Print a usage error (as the error document of --format json, or as text) and return exit code 2."""
    if _wants_json(argv):
        from .errors import UsageError

        _report(UsageError(message, hint=hint), argparse.Namespace(format="json"))
    else:
        sys.stderr.write(f"{usage}judgelog: error: {message}\n" + (f"  hint: {hint}\n" if hint else ""))
    return EXIT_USAGE


class _Version(argparse.Action):
    """``--version``: reads the installed version only when asked (importlib.metadata is slow to import)."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        default: Any = argparse.SUPPRESS,
        help: str | None = None,
    ) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        from . import __version__

        sys.stdout.write(f"judgelog {__version__}\n")
        parser.exit()


_ACTIONS_HELP = "apply only the file's first N actions (0 to their number; a file without actions: exit 2, saying so)"


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, got {text!r}")
    return int(text)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def _scenario_options(p: argparse.ArgumentParser) -> None:
    """The options of a verb that reads one scenario: how many of its actions to apply, and its warnings."""
    p.add_argument("--actions", type=int, metavar="N", help=_ACTIONS_HELP)
    _no_warnings_option(p, "the answers are the same")


def _no_warnings_option(p: argparse.ArgumentParser, same: str) -> None:
    p.add_argument(
        "--no-warnings",
        action="store_true",
        help="don't print the scenario's warnings on stderr (S200: a card not modelled in full; S201: a board the "
        f"rules would not allow); {same}",
    )


def _limit_option(p: argparse.ArgumentParser, default: int, what: str) -> None:
    """``--limit N``: at most N of what a verb shows or writes; the count it reports stays exact."""
    p.add_argument(
        "--limit",
        type=int,
        default=default,
        metavar="N",
        help=f"{what} (default {default}; 0: all); the count is always exact",
    )


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a percentage from 0 to 100, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="PATH",
        help="extra rule file or folder: every .dl file under it, subfolders too (repeatable)",
    )
    common.add_argument(
        "--format",
        choices=("text", "json", "dot"),
        default="text",
        help="output format (json: the result, or an error, usage errors too, as one JSON document; dot: audit only, "
        "the rule dependency graph)",
    )
    common.add_argument("--no-library", action="store_true", help="do not load the shipped rule library")
    common.add_argument(
        "--library",
        metavar="FOLDER",
        help="use this folder, laid out like rules/, as the library instead of the shipped one",
    )
    common.add_argument(
        "--allow-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="let scenarios name rule files in DIR too, besides their own folder and the --rules paths (repeatable)",
    )
    common.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the parsed rules in the user's cache folder"
    )
    evaluating = _Parser(add_help=False)
    evaluating.add_argument(
        "--backend",
        choices=("pydatalog", "clingo"),
        default="pydatalog",
        help='the evaluation engine (default pydatalog; clingo needs pip install "judgelog[clingo]")',
    )
    evaluating.add_argument(
        "--max-derived",
        type=_positive_int,
        metavar="N",
        help="stop (exit 5) after N facts derived by recursive rules (default 200000)",
    )
    evaluating.add_argument(
        "--max-join",
        type=_positive_int,
        metavar="N",
        help="refuse (exit 5) a rule or query whose unconnected parts make more than N combinations (default 10000000)",
    )
    evaluating.add_argument(
        "--time-limit",
        type=_positive_float,
        metavar="SECONDS",
        help="stop (exit 5) when deriving recursive facts takes longer (default 60)",
    )
    parser = _Parser(
        prog="judgelog",
        description="A rules engine for Magic: The Gathering keyword rules, "
        "written in Datalog, with proofs that cite the Comprehensive Rules.",
    )
    parser.add_argument("--version", action=_Version, help="show judgelog's version and exit")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    p = sub.add_parser("query", parents=[common, evaluating], help="answer a query in a scenario")
    p.add_argument("scenario", help="a scenario file (YAML or JSON)")
    p.add_argument("query", help='a rule body, e.g. "damage_assigner(wurm, P)"')
    p.add_argument("--before-actions", action="store_true", help="ask before the file's actions are applied")
    _limit_option(p, 1000, "show at most N answers")
    _scenario_options(p)
    p = sub.add_parser("explain", parents=[common, evaluating], help="prove a ground atom, down to scenario facts")
    p.add_argument("scenario", help="a scenario file (YAML or JSON)")
    p.add_argument("atom", help='a ground atom, e.g. "damage_assigner(wurm, bob)"')
    p.add_argument("--why-not", action="store_true", help="show which body literals of each rule fail")
    p.add_argument(
        "--cr-edition", metavar="YYYY-MM-DD", help="also show the proof's CR numbers as numbered in this CR edition"
    )
    p.add_argument("--before-actions", action="store_true", help="explain before the file's actions")
    _scenario_options(p)
    p = sub.add_parser("test", parents=[common, evaluating], help="run the expect: entries of scenario files")
    p.add_argument("paths", nargs="*", help="scenario files or folders (default: the bundled scenarios)")
    p.add_argument(
        "--coverage",
        action="store_true",
        help=(
            "report which rules (the library's in use, --rules files, the scenarios' own) had a body that held in"
            " some state the scenarios went through"
        ),
    )
    p.add_argument(
        "--fail-under",
        type=_percent,
        metavar="PERCENT",
        help="with --coverage (which it implies): exit 1 when under PERCENT percent of the rules were used, or"
        " a rule file had none of its rules used",
    )
    _no_warnings_option(p, "nor put them in the --format json document; the results are the same")
    p = sub.add_parser("check", parents=[common], help="lint rule files and scenario files")
    p.add_argument("paths", nargs="*", help=".dl files, folders, or scenario files (default: the library)")
    p = sub.add_parser("rules", parents=[common], help="list predicates and rules")
    p.add_argument("pred", nargs="?", help="a predicate name")
    p.add_argument(
        "--cr",
        help="only rules citing this CR number (read in the current edition; an old number "
        "also prints what it meant then and is now)",
    )
    p.add_argument("--cr-edition", metavar="YYYY-MM-DD", help="read --cr as numbered in this CR edition")
    p = sub.add_parser("do", parents=[common, evaluating], help="apply a scenario's actions; print the event log")
    p.add_argument("scenario", help="a scenario file (YAML or JSON)")
    p.add_argument("-o", "--output", help="write the resulting state as a scenario file")
    _scenario_options(p)
    p = sub.add_parser("choices", parents=[common, evaluating], help="legal options of a decision now")
    p.add_argument("scenario", help="a scenario file (YAML or JSON)")
    p.add_argument(
        "what",
        help="a decision the rules declare (choice_space: attacks, blocks, divisions, ...), resolve, or an "
        "action's name (the choose: choice it asks for now), or an action with its arguments as a YAML flow "
        'mapping ("{do: activate, object: cayth, ability: cayth}"); an unknown one is answered with the list',
    )
    p.add_argument("--limit", type=int, default=50, help="list at most this many (default 50; 0: all)")
    p.add_argument(
        "--tries",
        type=int,
        default=512,
        help="try at most this many candidates of a decision as its action (default 512; 0: all)",
    )
    p.add_argument("--before-actions", action="store_true", help="the decision before the file's actions")
    _scenario_options(p)
    p = sub.add_parser("graph", parents=[common, evaluating], help="draw the combat graph")
    p.add_argument("scenario", help="a scenario file (YAML or JSON)")
    p.add_argument("-o", "--output", required=True, help="FILE.svg|.png|.dot|.graphml|.json")
    p.add_argument("--before-actions", action="store_true", help="draw the state before the file's actions")
    _scenario_options(p)
    p = sub.add_parser(
        "report", parents=[common, evaluating], help="one self-contained HTML page: graph, events, proofs"
    )
    p.add_argument("scenario", help="a scenario file (YAML or JSON)")
    p.add_argument("-o", "--output", required=True, help="the page to write (FILE.html)")
    p.add_argument(
        "--explain",
        action="append",
        metavar="ATOM",
        help="a ground atom whose proof the page shows (repeatable; default: every damage_assigner)",
    )
    p.add_argument("--before-actions", action="store_true", help="the state before the file's actions")
    _scenario_options(p)
    p = sub.add_parser("audit", parents=[common, evaluating], help="rule interactions, overrides, conflicts")
    p.add_argument("scenario", nargs="?")
    p.add_argument("--diff", nargs=2, metavar=("A", "B"), help="facts that change between two scenarios")
    p.add_argument("--dot", metavar="FILE", help="also write the rule dependency graph as Graphviz DOT")
    p.add_argument(
        "--keyword",
        metavar="K",
        help="only what concerns the rules of keyword K (without a scenario: its rules, the rules naming it, "
        "what they read and what reads them, its defaults and exceptions)",
    )
    p.add_argument(
        "--only",
        choices=("overrides", "conflicts", "interactions"),
        help="only this part of the report (without a scenario: overrides are the defaults and their "
        "exceptions, conflicts the functional predicates derived without a guard)",
    )
    p = sub.add_parser("verify", parents=[common, evaluating], help="search every small board for a broken property")
    p.add_argument(
        "--scope",
        metavar="FILE",
        help="the boards to search, a scope YAML file (default: the shipped default scope; see docs/verify.md)",
    )
    p.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="NAME",
        help="check only this property (repeatable; default: all)",
    )
    p.add_argument("--all", action="store_true", help="every distinct counterexample, not only the smallest")
    _limit_option(p, 100, "write at most N counterexamples, the smallest first")
    p.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        help="folder for the counterexample scenarios and the finished tasks: a later run with the "
        "same rules and scope resumes from them (default: counterexamples only, in judgelog-verify)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="local Dask worker processes; 1: in this process (default: one per CPU when judgelog[dask] is "
        "installed and the scope has 8 tasks or more, else 1)",
    )
    p.add_argument(
        "--reference",
        action="store_true",
        help="check every state one by one with the reference enumerator instead of the clingo search (slow)",
    )
    p.add_argument("--scheduler", metavar="ADDRESS", help="an existing dask.distributed scheduler to run on")
    p.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress line per finished task on stderr (printed when stderr is not a terminal)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a name an ASCII terminal cannot show is escaped, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if isinstance(parser, _Parser):
        parser.argv = words
    try:
        args = parser.parse_args(words)
    except SystemExit as exc:
        return int(exc.code or 0)
    except _UsageProblem as problem:
        return _usage_error(words, problem.message, problem.hint, problem.usage)
    if not args.verb:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from . import cache, commands, safefiles

    handler = getattr(commands, "cmd_" + args.verb)
    if args.format == "dot" and args.verb != "audit":
        return _usage_error(words, "--format dot is for audit; graph writes .dot files with -o FILE.dot")
    try:
        # a rule file or folder given with --rules is one the user chose: a scenario may name it too (it is
        # loaded once), as it may name files of an --allow-dir folder
        with safefiles.allowing([*args.allow_dir, *getattr(args, "rules", [])]):
            if args.no_cache:
                with cache.disabled():
                    return handler(args)
            return handler(args)
    except JudgelogError as exc:
        _report(exc, args)
        return exit_code(exc)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    except RecursionError:
        sys.stderr.write("judgelog: error: input nested too deeply\n")
        return EXIT_LOAD
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence: report, never a raw traceback
        import traceback

        sys.stderr.write(f"judgelog: internal error (please report it): {type(exc).__name__}: {exc}\n")
        if os.environ.get("JUDGELOG_DEBUG"):
            traceback.print_exc()
        return EXIT_INTERNAL


def _report(exc: JudgelogError, args: argparse.Namespace) -> None:
    if getattr(args, "format", "text") == "json":
        from .outputs import stamp

        sys.stderr.write(json.dumps(stamp("error", exc.to_dict()), indent=2, sort_keys=True, default=str) + "\n")
    else:
        sys.stderr.write(exc.render(sources={}) + "\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
