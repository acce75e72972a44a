"""The stack, for the runtime (judgelog.runtime): abilities put on it and taken off it.

A triggered ability waits from the moment it triggers (``triggers/3``) until a player would receive
priority, then goes on the stack in APNAP order (603.3b). An activated ability (``activates/3``, derived by
the rules of the action that activates it) goes on the stack as it is activated (602.2a), below the
triggered abilities that wait then. ``{do: resolve}`` resolves the top one (608.2), which then leaves the
stack (608.2n). Which ability triggers or is activated, and what it does, is said by the rules only; the
``put_on_stack`` event names the rule that made each (``trigger`` or ``activation``) and cites the rule
that put it there (603.3 and 603.3b for a triggered ability, the activating rule for an activated one).

>>> from judgelog import Engine
>>> from judgelog.runtime import run_actions
>>> engine = Engine()
>>> start = engine.load(engine.example("exalted_attacks_alone.yaml"))
>>> _, events = run_actions(start)
>>> [(e.details["kind"], e.rule) for e in events if e.kind == "put_on_stack"][:1]
[('exalted', 'stack.triggered')]
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from .ast import format_value as _q  # a value in rule syntax, for the queries built here
from .change import Event
from .errors import ActionError
from .stack_order import stack_order
from .stack_targets import StackTargets

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

    from .ast import Span
    from .factview import FactView, WorkingFacts
    from .step_facts import StepFacts

__all__ = ["StackSteps"]

Cause = tuple[str, tuple[str, ...]]  # a rule's name and its CR numbers
MAX_STACK_ROUNDS = 20  # abilities triggering on abilities put on the stack, round after round


class StackSteps:
    """The runtime's steps about the stack (a part of judgelog.runtime's ``_Run``, which gives the state
    below: the action, its events so far and how to ask the rules)."""

    state: Any
    engine: Any
    action: dict[str, Any]
    span: Span | None
    kind: Any
    events: list[Event]
    next_seq: int
    causes: dict[tuple, str]
    follow_up: dict[str, object]
    unresolved: set[object]  # the resolving abilities that don't resolve (608.2b)
    before_priority: bool  # the follow-up comes before any player would receive priority
    order_matched: set[int]  # the positions of the action's order: entries that named an ability
    order_waiting: list[str]  # the abilities stacked by the action, for an order: entry that named none
    stack_targets: StackTargets  # the action's targets: (601.2c), shared by its applications
    target_states: dict[tuple, frozenset | FactView]  # (source, kind) -> the facts its targets were legal in
    steps: StepFacts
    pending_triggers: list[tuple[int, tuple, list[tuple]]]
    trigger_rules: dict[tuple, str]  # (source, kind, subject) -> the rule deriving its triggers/3
    activations: dict[tuple, Cause]  # (source, kind, subject) -> the rule deriving its activates/3

    def ask(self, facts: Iterable[tuple], text: str) -> list[dict[str, Any]]:  # pragma: no cover - the runtime's
        raise NotImplementedError

    def cause(self, facts: Iterable[tuple], fact: tuple) -> Cause:  # pragma: no cover - the runtime's
        raise NotImplementedError

    def _causes_of(self, facts: Iterable[tuple], wanted: list[tuple]) -> list[Cause]:  # pragma: no cover
        raise NotImplementedError

    def _why_not_holds(self, facts: Iterable[tuple], wanted: tuple) -> str | None:  # pragma: no cover
        raise NotImplementedError

    def _collect_triggers(
        self, facts: WorkingFacts, *, seq: int | None = None, kinds: set[str] | None = None, activated: bool = True
    ) -> None:
        """Each triggered or activated ability waits with a stable identity: source, kind, subject and instance.
        A keyword whose declaration says each instance acts (keyword_instances(K, each)) triggers once per
        instance (keyword_instance/3), each instance with its own parameters (keyword_instance_param/5).
        ``kinds``: the kinds of the events just recorded; when no triggers rule reads any of them as recent
        (Interface.trigger_kinds), nothing can trigger and the rules are not asked (603.2). ``activated``:
        whether an ability may be being activated (not while abilities are put on the stack)."""
        face = self.engine.interface
        quiet = kinds is not None and face.trigger_kinds is not None and face.trigger_kinds.isdisjoint(kinds)
        found = [] if quiet else [(r["S"], r["K"], r["X"]) for r in self.ask(facts, "triggers(S, K, X)")]
        if any(k in face.stack_targeted for _, k, _ in found):
            found = self._without_targets(facts, found)
        # the rule that made each trigger (its keyword's, 702.79a for persist), told by its put_on_stack event;
        # proved once per trigger (a trigger seen again in this action is not proved again)
        new = [t for t in found if t not in self.trigger_rules]
        rules = self._causes_of(facts, [("triggers", *t) for t in new]) if new else []
        self.trigger_rules.update((key, rule) for key, (rule, _) in zip(new, rules))
        if activated:
            asked = [(r["S"], r["K"], r["X"]) for r in self.ask(facts, "activates(S, K, X)")]
            activations = [a for a in asked if a not in self.activations]  # activated once per action
            self.activations.update(zip(activations, self._causes_of(facts, [("activates", *a) for a in activations])))
        else:
            activations = []
        options = self._target_options(facts) if any(k in face.stack_targeted for _, k, _ in found) else {}
        if options:  # the state they were legal in, to say why another is not (a refused targets: entry)
            frozen = self.steps.freeze(facts)
            self.target_states.update(dict.fromkeys(options, frozen))
        for source, kind, subject in found + activations:
            args = [("ability_arg", "target_option", o) for o in options.get((source, kind), ())] + [
                ("ability_arg", k["K2"], k["V"])
                for k in self.ask(facts, f"trigger_arg({_q(source)}, {_q(kind)}, {_q(subject)}, K2, V)")
            ]
            # a trigger_arg named controller is the ability's controller (603.7d: a delayed triggered ability's is
            # the player who controlled the ability that made it); else its source's controller (113.8)
            controller = next((a[2] for a in args if a[1] == "controller"), None) or next(
                (c["P"] for c in self.ask(facts, f"ability_source_controller({_q(source)}, P)")), None
            )
            instances: list[object] = [None]
            if face.instances(kind) == "each" and kind in face.keywords:
                instances = [i["I"] for i in self.ask(facts, f"keyword_instance({_q(source)}, {_q(kind)}, I)")] or [
                    None
                ]
            for inst in instances:
                extra: list[tuple] = []
                if inst is not None:
                    given = {a[1] for a in args}
                    extra = [("ability_arg", "instance", inst)] + [
                        ("ability_arg", p["K2"], p["V"])
                        for p in self.ask(facts, f"keyword_instance_param({_q(source)}, {_q(kind)}, {_q(inst)}, K2, V)")
                        if p["K2"] not in given
                    ]
                at = self.next_seq if seq is None else seq
                self.pending_triggers.append((at, (source, kind, subject, controller, inst), args + extra))

    def _without_targets(self, facts: WorkingFacts, found: list[tuple]) -> list[tuple]:
        """603.3d: the triggers of ``found`` but those the rules say have no legal target as they would be put on
        the stack (trigger_without_target/2, rules/core/targets.dl): each of those is the event
        ``removed_from_stack`` of its source (once per action), citing the rule that says so."""
        gone = {(r["S"], r["K"]) for r in self.ask(facts, "trigger_without_target(S, K)")}
        removed = [t for t in found if t[:2] in gone]
        told = {
            (e.subject, e.details["kind"], e.details["subject"]) for e in self.events if e.kind == "removed_from_stack"
        }
        new = [t for t in removed if t not in told]
        causes = self._causes_of(facts, [("trigger_without_target", *t[:2]) for t in new]) if new else []
        for (source, kind, subject), (rule, cites) in zip(new, causes):
            details = {"kind": kind, "subject": subject}
            self.events.append(Event(self.next_seq, "removed_from_stack", source, details, rule, cites))
            self.next_seq += 1
        return [t for t in found if t[:2] not in gone]

    def _target_options(self, facts: WorkingFacts) -> dict[tuple, list]:
        """The legal targets of each triggering ability whose target is chosen as it is put on the stack
        (trigger_target_option/3, rules/core/targets.dl), by (source, kind), in the state it triggers in."""
        out: dict[tuple, list] = {}
        for r in self.ask(facts, "trigger_target_option(S, K, O)"):
            out.setdefault((r["S"], r["K"]), []).append(r["O"])
        return {key: sorted(found, key=str) for key, found in out.items()}

    def _why_not_target(self, source: object, kind: object, value: object) -> str | None:
        """Why ``value`` is not a legal target of ``source``'s ``kind`` ability as it triggered."""
        return self._why_not_holds(self.target_states[(source, kind)], ("trigger_target_option", source, kind, value))

    def _check_division(
        self, facts: WorkingFacts, aid: str, source: str, kind: str, parts: dict, options: list[object]
    ) -> None:
        """601.2d: the division of ``aid`` (the ``targets:`` entry ``parts``) as the rules judge it
        (division_refused/2, rules/core/targets.dl): an ActionError naming the code's violation_info if refused."""
        refused = sorted(str(r["C"]) for r in self.ask(facts, f"division_refused({_q(aid)}, C)"))
        if not refused:
            return
        info = {str(r["C"]): (str(r["R"]), str(r["T"])) for r in self.ask(facts, "violation_info(C, R, T)")}
        cr, text = info.get(refused[0], ("601.2d", refused[0]))
        amount = [r["N"] for r in self.ask(facts, f"divided_amount({_q(aid)}, N)")]
        given = ", ".join(f"{o}: {n}" for o, n in parts.items())
        what = f"the division {{{given}}} of {aid}" if parts else f"no division given for {aid}"
        raise ActionError(
            f"targets: {what} ({source}'s {kind} ability){' is refused' if parts else ''}: {text}",
            cr=cr,
            options=[str(o) for o in options],
            hint=f"it divides {amount[0] if amount else '?'} among its legal targets, each getting at least 1: "
            f"targets: {{{source}: {{target: n, ...}}}}",
        )

    def _stack_triggers(self, facts: WorkingFacts) -> WorkingFacts:
        """Put waiting abilities on the stack (:meth:`_stack_pending`). An ability put on the stack is an
        event (``put_on_stack``, with its ``target``) other abilities may trigger on (603.2: "whenever this
        becomes the target of an ability", ward): they are put on the stack in turn, above it."""
        readers = self.engine.interface.trigger_kinds
        for _ in range(MAX_STACK_ROUNDS):
            if not self.pending_triggers:
                return facts
            first = len(self.events)
            facts = self._stack_pending(facts)
            if readers is not None and "put_on_stack" not in readers:
                continue  # no rule triggers on an ability put on the stack: nothing is asked
            placed = self.events[first:]
            recent = {("recent_event", e.seq) for e in placed}
            event_facts = {f for e in placed for f in e.facts()}
            base = facts - self.steps.recent(facts, self.events)
            self._collect_triggers(base | event_facts | recent, kinds={"put_on_stack"}, activated=False)
        raise ActionError(f"abilities triggered on abilities put on the stack for more than {MAX_STACK_ROUNDS} rounds")

    def _stack_pending(self, facts: WorkingFacts) -> WorkingFacts:
        """Put the waiting abilities on the stack: the activated ones first (602.2a: as they are activated),
        then the triggered ones (603.3): in APNAP order (apnap_rank, 603.3b), each player's in the order they
        triggered unless ``order:`` names them (top of the stack first)."""
        ranks = {r["P"]: r["N"] for r in self.ask(facts, "apnap_rank(P, N)")}
        height = max([f[2] for f in facts if f[0] == "stack_position"] or [0])
        used = {a for f in facts for a in f[1:] if isinstance(a, str)}  # ids are never reused (events keep them)
        pending = sorted(self.pending_triggers, key=lambda t: (ranks.get(t[1][3], len(ranks)), t[0]))
        ids, k = [], 1
        for _ in pending:
            while f"ability_{k}" in used:
                k += 1
            ids.append(f"ability_{k}")
            used.add(ids[-1])
        named = dict(zip((id(t) for t in pending), ids))
        first = [t for t in pending if t[1][:3] in self.activations]
        rest = [t for t in pending if t not in first]
        placed = first + stack_order(rest, named, ranks, self.action.get("order"), matched=self.order_matched)
        self.order_waiting += [f"{named[id(t)]} ([{t[1][0]}, {t[1][1]}])" for t in rest]
        causes = dict(zip(ranks, self._causes_of(facts, [("apnap_rank", p, n) for p, n in ranks.items()])))
        for t in placed:
            _seq, (source, kind, subject, controller, _inst), args = t
            aid = named[id(t)]
            height += 1
            placing = (("on_stack", aid, source, kind), ("stack_position", aid, height))
            facts |= {*placing, ("ability_arg", aid, "subject", subject)}
            if controller is not None:
                facts.add(("ability_controller", aid, controller))
            facts |= {(f[0], aid) + f[1:] for f in args}
            choices = [f[2] for f in args if f[:2] == ("ability_arg", "target_option")]
            explain = partial(self._why_not_target, source, kind)
            if kind in self.engine.interface.divided:  # 601.2d: its targets and the division, checked by the rules
                parts = self.stack_targets.divide(aid, source, kind, choices, explain=explain)
                facts |= {("ability_arg", aid, "target", o) for o in parts}
                facts |= {("ability_target_amount", aid, o, n) for o, n in parts.items() if n is not None}
                self._check_division(facts, aid, source, kind, parts, choices)
                given = {r["O"] for r in self.ask(facts, f"target_amount({_q(aid)}, O, N)")}
                target = next(iter(given)) if len(given) == 1 else None  # the event names a single target
            else:
                target = self.stack_targets.choose(aid, source, kind, choices, explain=explain) if choices else None
            if target is not None:  # 601.2c: chosen as it goes on the stack
                facts.add(("ability_arg", aid, "target", target))
            # explain: made by stack.triggered (603.3, 603.3b), or by the rule that activates it (602.2a)
            rule, cites = self.activations.get((source, kind, subject)) or causes.get(controller, ("", ()))
            self.causes.update(dict.fromkeys(placing, rule))
            details = {"source": source, "kind": kind, "subject": subject}
            details.update({"controller": controller} if controller is not None else {})
            made = self.trigger_rules.get((source, kind, subject))
            details.update({"activation": rule} if (source, kind, subject) in self.activations else {})
            details.update({"trigger": made} if made else {})
            details.update({"target": target} if target is not None else {})
            self.events.append(Event(self.next_seq, "put_on_stack", aid, details, rule, cites))
            self.next_seq += 1
        self.pending_triggers = []
        return facts

    def _held_until_the_follow_up(self, facts: WorkingFacts) -> bool:
        """Whether the follow-up comes before any player would receive priority (``follow_up_before_priority``,
        asked as the last step began: 502.4, no player receives priority in the untap step): then no state-based
        action is performed (704.3) and the abilities that triggered are not put on the stack (117.5) until the
        last part; the next application takes them (:meth:`take_waiting`). Not when the follow-up won't come
        (``follow_up_stopped``) or the step can't end (``step_cannot_end``): a player receives priority now."""
        if self.before_priority and (self.ask(facts, "follow_up_stopped(R)") or self.ask(facts, "step_cannot_end(I)")):
            self.before_priority = False
        return self.before_priority

    def take_waiting(self, before: StackSteps) -> None:
        """The abilities that triggered (or were activated) in the application ``before``, held until the follow-up
        (:meth:`_held_until_the_follow_up`), wait in this one: put on the stack after it with its own, in APNAP
        order and each player's in the order they triggered (603.3b)."""
        self.pending_triggers = before.pending_triggers + self.pending_triggers
        self.trigger_rules.update(before.trigger_rules)
        self.activations.update(before.activations)
        self.target_states.update(before.target_states)

    def _wait_for_the_stack(self, facts: WorkingFacts) -> None:
        """A follow-up is the game moving on to a next step: while the rules say the step can't end
        (step_cannot_end/1: something is on the stack, 500.2) it is not applied, and the event ``step_waits``
        says what it waits for. Without a follow-up, nothing waits."""
        if not self.follow_up:
            return
        rows = self.ask(facts, "step_cannot_end(I)")
        if not rows:
            return
        top = rows[0]["I"]
        rule, cites = self.cause(facts, ("step_cannot_end", top))
        details = {**self.follow_up, "stack_top": top}
        self.events.append(Event(self.next_seq, "step_waits", self.kind, details, rule, cites))
        self.next_seq += 1
        self.follow_up = {}

    def _resolving(self, facts: WorkingFacts) -> set[tuple]:
        top = self.ask(facts, "top_of_stack(I)")
        if not top:
            raise ActionError("resolve: the stack is empty", cr="608.1")
        return {("resolving", top[0]["I"])}

    def _not_resolving(self, facts: WorkingFacts) -> bool:
        """608.2b: whether the resolving ability doesn't resolve (does_not_resolve/1, when the library declares it:
        every target it was given is illegal now); it then leaves the stack with no effect, its event
        ``left_stack`` citing that rule."""
        if "does_not_resolve" not in self.engine.program.decls:
            return False
        self.unresolved = {r["I"] for r in self.ask(facts, "does_not_resolve(I)")}
        return bool(self.unresolved)

    def _finish_resolve(self, facts: WorkingFacts) -> WorkingFacts:
        """608.2n: the ability leaves the stack (leaves_stack/1): every input fact about it goes. Another ability
        a rule removes with it (countered, 701.6a) leaves unresolved: its event is ``left_stack``, not
        ``resolved``. Each event cites the rule deriving its leaves_stack fact, asked before anything goes."""
        resolving = {r["I"] for r in self.ask(facts, "resolving(I)")}
        # the abilities countered first, then the resolving one (its own removal is the last part, 608.2n)
        leaving = sorted((r["I"] for r in self.ask(facts, "leaves_stack(I)")), key=lambda i: (i in resolving, str(i)))
        unresolved = self.unresolved
        wanted = [("does_not_resolve" if aid in unresolved else "leaves_stack", aid) for aid in leaving]
        causes = self._causes_of(facts, wanted) if leaving else []
        decls = self.engine.program.decls
        about = {p for p, d in decls.items() if d.is_input and d.params and d.params[0].type == "ability"}
        for aid, (rule, cites) in zip(leaving, causes):
            facts = facts.difference([f for f in facts if f[0] in about and f[1] == aid])
            kind = "resolved" if aid in resolving and aid not in unresolved else "left_stack"
            self.events.append(Event(self.next_seq, kind, aid, {}, rule, cites))
            self.next_seq += 1
        return facts
