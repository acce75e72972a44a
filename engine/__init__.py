"""judgelog: a declarative rules engine for Magic: The Gathering keyword rules.

Keyword rules are Datalog files (``rules/``) evaluated by pyDatalog; game states are facts; every answer
comes with a proof that cites the Comprehensive Rules.

>>> from judgelog import Engine
>>> state = Engine().load(Engine.example("banding_blocked_by_one.yaml"))
>>> state.query("damage_assigner(bears, P)")
[{'P': 'alice'}]
"""

from .errors import (
    ActionError,
    Diagnostic,
    JudgelogError,
    LimitError,
    LoadError,
    QueryError,
    RuleError,
    ScenarioError,
    UsageError,
)

# Engine, State, Proof and WhyNot import pyDatalog and the rule library (networkx only where a graph is drawn
# or rules are analysed); they (and Fact, which reads rule syntax) are loaded on first use (PEP 562) so that
# `judgelog --help` and the error classes don't pay for them.
_LAZY = {
    "Engine": ".engine",
    "State": ".state",
    "Proof": ".proof",
    "WhyNot": ".proof",
    "Limits": ".recursion",
    "Fact": ".fact",
}


def __getattr__(name: str) -> object:
    if name == "__version__":  # read from the installed metadata (pyproject.toml's version), on first use
        globals()[name] = value = _version()
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'judgelog' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


__all__ = ["Engine", "State", "Proof", "WhyNot", "Fact", "Limits", "__version__", "Diagnostic"]
__all__ += ["JudgelogError", "UsageError", "LoadError", "RuleError", "ScenarioError", "QueryError"]
__all__ += ["ActionError", "LimitError"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("judgelog")
    except PackageNotFoundError:  # imported from a folder that was never installed
        return "0+unknown"
