"""The exit codes of the command line, and the one table that says which error exits with which.

Errors (judgelog.errors) say what went wrong; only the command line turns them into exit codes, here.

>>> from judgelog.errors import QueryError, ScenarioError
>>> exit_code(QueryError("bad query")), exit_code(ScenarioError("bad file"))
(2, 3)
"""

from __future__ import annotations

from .errors import ActionError, JudgelogError, LimitError, LoadError, NothingToChoose, UsageError

__all__ = [
    "EXIT_OK",
    "EXIT_NEGATIVE",
    "EXIT_USAGE",
    "EXIT_LOAD",
    "EXIT_INTERNAL",
    "EXIT_LIMIT",
    "EXIT_INTERRUPTED",
    "EXIT_CODES",
    "exit_code",
]

EXIT_OK = 0
EXIT_NEGATIVE = 1
EXIT_USAGE = 2
EXIT_LOAD = 3
EXIT_INTERNAL = 4
EXIT_LIMIT = 5  # evaluation reached a configured limit (judgelog.recursion.Limits)
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT; 128 + 2, the shells' convention), or SIGTERM during verify

# an error exits with the code of the nearest class of its own that this table names (QueryError is a
# UsageError: 2; RuleError and ScenarioError are LoadErrors: 3); one it does not name is a bug: 4
EXIT_CODES: dict[type[JudgelogError], int] = {
    ActionError: EXIT_NEGATIVE,  # a refused action is the rules' answer
    NothingToChoose: EXIT_NEGATIVE,  # so is a decision with nothing to decide now
    UsageError: EXIT_USAGE,
    LoadError: EXIT_LOAD,
    LimitError: EXIT_LIMIT,
}


def exit_code(error: JudgelogError | type[JudgelogError]) -> int:
    """The exit code of an error (or of an error class)."""
    cls = error if isinstance(error, type) else type(error)
    return next((EXIT_CODES[c] for c in cls.__mro__ if c in EXIT_CODES), EXIT_INTERNAL)
