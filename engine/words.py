"""The words the engine itself writes into a state, which rules and questions may name before any state has
them: the zones, the event kinds and detail keys of the event log, the counter kinds as printed, and the
predicates that hold an action's arguments as written. A leaf module: the checks of rule files
(judgelog.contract) read it without importing what writes the words.

>>> "dies" in EVENT_WORDS and COUNTER_ALIASES["+1/+1"]
'p1p1'
"""

from __future__ import annotations

__all__ = [
    "ACTION_ARGUMENTS",
    "COUNTER_ALIASES",
    "EVENT_WORDS",
    "KEYWORD_TYPE",
    "PREDICATE_SUBJECT_EVENTS",
    "RECORDED_ARITIES",
    "ZONES",
]

# where a keyword name stands in atoms about keywords: any argument declared with this type
KEYWORD_TYPE = "keyword"
ZONES = ("graveyard", "exile", "hand", "library", "outside_the_game")  # the last: 400.11, 800.4a
# the events whose subject is a predicate's name, not an object (record, forget, forget_all)
PREDICATE_SUBJECT_EVENTS = frozenset({"recorded", "forgotten", "ended"})
# the arities of the designations record, record_plain and forget assert or retract: P(A) or P(A, B)
RECORDED_ARITIES = (1, 2)
# every event kind and detail key the primitives and the runtime write into the event log (a query may name
# them before they happen; tests/test_validation.py checks the list against this module and the runtime)
EVENT_WORDS = frozenset(
    ZONES
    + (
        "ability_gained",
        "ability_lost",
        "ability_lost_object",
        "ceased_to_exist",
        "control_changed",
        "counters_put",
        "counters_removed",
        "damage_dealt",
        "damage_prevented",
        "damage_marked",
        "dies",
        "ended",
        "enters",
        "life_gained",
        "life_lost",
        "loses_game",
        "recorded",
        "forgotten",
        "removed_from_combat",
        "removed_from_stack",
        "subtype_added",
        "tapped",
        "token_created",
        "turn_ended",
        "type_set",
        "untapped",
        "destroyed",
        "moved",
        "left",
        "true",
        "false",
        "effect_began",
        "effect_ended",
        "chosen",
        "put_on_stack",
        "resolved",
        "left_stack",
        "step_waits",
        "unaffected",
        "amount_replaced",
        "by",
        "was",
        "now",
        "primitive",
        "activation",
        "trigger",
        "target",
        "stack_top",
        "game",
        "object",
        "duration",
        "to",
        "n",
        "kind",
        "keyword",
        "because",
        "previous",
        "controller",
        "token",
        "spec",
        "copy_of",
        "subtype",
        "type",
        "fact",
        "facts",
        "choice",
        "source",
        "subject",
        "control_change",
        "instead_of",
        "replacement",
        "effect_began",
        "effect_ended",
        "object",
        "duration",
    )
)

# a counter kind as printed, and as the rules name it (122.1: +1/+1 and -1/-1 counters)
COUNTER_ALIASES = {"+1/+1": "p1p1", "-1/-1": "m1m1", "p1p1": "p1p1", "m1m1": "m1m1"}

# the facts that hold an action's arguments as the scenario wrote them (judgelog.action_args)
ACTION_ARGUMENTS = ("act_arg", "act_list", "act_map", "act_map_list", "act_map2", "act_list2")

# the predicates whose second argument names an effect primitive: what the runtime asks at every step
EFFECT_PREDICATES = ("effect", "state_based", "event_result", "standing")
