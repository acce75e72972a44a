"""judgelog: a declarative rules engine for Magic: The Gathering keyword rules.

Keyword rules are Datalog files (``rules/``) evaluated by pyDatalog; game states are facts; every answer
comes with a proof that cites the Comprehensive Rules.

>>> from judgelog import Engine
>>> state = Engine().load(Engine.example("banding_blocked_by_one.yaml"))
>>> state.query("damage_assigner(bears, P)")
[{'P': 'alice'}]
"""
from .engine import Engine
from .errors import (
    ActionError,
    Diagnostic,
    JudgelogError,
    LoadError,
    QueryError,
    RuleError,
    ScenarioError,
    UsageError,
)
from .provenance import Proof, WhyNot
from .state import State

__all__ = [
    "Engine",
    "State",
    "Proof",
    "WhyNot",
    "Diagnostic",
    "JudgelogError",
    "UsageError",
    "LoadError",
    "RuleError",
    "ScenarioError",
    "QueryError",
    "ActionError",
    "__version__",
]

__version__ = "0.1.0"
