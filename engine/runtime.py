"""The generic step machine: applies actions whose meaning is given by rules.

For an action ``{do: KIND, ...}`` the runtime asserts ``action(KIND)`` and the arguments as ``act_*`` facts,
then for step 1, 2, ...: asks the rules for violations (refuse), the step's choices (check the caller's,
or take the only legal option), and the step's effects, which it applies with the primitives of
:mod:`judgelog.effects`. After each step it asks which triggered abilities the step's events triggered
(603.2; entering objects are seen as they entered, 603.6a). When no further step exists it applies
state-based actions and other immediate consequences until none applies (704.3), then puts waiting
triggered abilities on the stack in APNAP order (603.3b), unless the rules say the action goes on before
any player would receive priority (``follow_up_before_priority``: then they wait for its last application).
``{do: resolve}`` runs the top ability's own steps the same way. What an action, step or effect means is
read from the loaded rules only.

A refused action raises :class:`~judgelog.errors.ActionError` and the original state is untouched (states
are values).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from .action_args import (
    RESERVED,
    TRANSIENT,
    ChoiceMode,
    ChoiceNeeded,
    action_object,
    argument_facts,
    checked_choice,
    default_facts,
    given_choice,
    leaves,
    made_by_the_action_ids,
    token_ids,
    unused_choices,
)
from .amounts import replace as replace_amount
from .amounts import swaps_of
from .analysis import checked_question, suggest
from .ast import Span
from .ast import format_value as _q  # a value in rule syntax, for the queries built here
from .change import Change, Event, spec_facts
from .database import quiet_gc
from .effects import apply_primitive
from .errors import ActionError, UsageError
from .factview import FactView, Overlay, WorkingFacts, as_frozenset
from .leaving import note_leaving
from .refusals import listed_options, nothing_to_choose, unavailable_refusal, violation_refusal, why_not_holds
from .replay import run_actions
from .stack import StackSteps
from .stack_order import check_order_named, check_order_shape, order_location
from .stack_targets import StackTargets
from .state_based import MAX_SBA_ROUNDS, StateBasedSteps
from .step_facts import StepFacts

if TYPE_CHECKING:  # pragma: no cover
    from .protocols import Board
    from .yamlsrc import Located

__all__ = ["apply_action", "run_actions", "MAX_STEPS", "MAX_SBA_ROUNDS"]

B = TypeVar("B", bound="Board")  # the state type: what an action is applied to, it gives back

MAX_STEPS = 50
# sees every fact set the rules are evaluated on (judgelog.coverage passes one in)
Observer = Callable[[frozenset], None]
# the legal options of a decision in a state, for a refusal (judgelog.choices.list_choices)
OptionLister = Callable[..., tuple[dict, str]]
# the kinds of a primitive's arguments (primitive/4) that name the object it acts on
ACTED_ON = frozenset({"object", "target", "recipient"})


class _Run(StackSteps, StateBasedSteps, Generic[B]):
    """One application of one action."""

    probe = False
    # only whether the action is refused: no triggers collected, no state-based actions, no new state
    legality_only = False
    explain_refusal = True  # a refusal names the rules that derived its violations (refused_by)

    def __init__(
        self,
        state: B,
        action: dict[str, Any],
        span: Span | None,
        *,
        observer: Observer | None = None,
        list_options: OptionLister | None = None,
    ) -> None:
        self.observer = observer
        self.list_options = list_options
        self.state = state
        self.engine = state.engine
        self.action = action
        self.span = span
        self.kind = action.get("do")
        self.events: list[Event] = []
        self.pending_triggers: list[tuple[int, tuple, list[tuple]]] = []
        self.trigger_rules: dict[tuple, str] = {}  # (source, kind, subject) -> the rule deriving it triggers/3
        self.activations: dict[tuple, tuple[str, tuple[str, ...]]] = {}  # the same for activates/3, with its CR
        # event numbers are also the timestamps of continuous effects (613.7b): later than any given one
        self.steps = StepFacts(state)  # what the state knows, counted once: a step costs its change
        self.next_seq = self.steps.first_seq()
        self.pending_objects: dict[str, list[tuple]] = {}
        self.inputs = {p: d.arity for p, d in self.engine.program.decls.items() if d.is_input}
        self.causes: dict[tuple, str] = {}  # fact made by this action -> the rule whose effect made it
        self.follow_up: dict[str, object] = {}  # rules ask for the action to be applied again with these args
        self.unresolved: set[object] = set()  # 608.2b: the resolving abilities that don't resolve (judgelog.stack)
        self.before_priority = False  # ... before any player would receive priority (follow_up_before_priority)
        self.order_matched: set[int] = set()  # shared by the applications of one action (apply_action)
        self.order_waiting: list[str] = []
        self.stack_targets = StackTargets(None)  # the action's targets: (apply_action shares one)
        self.target_states: dict[tuple, frozenset | FactView] = {}
        self.token_ids: list[str] = token_ids(action.get("as"))  # ids for the tokens the action creates
        self.used_choices: set[str] = set()  # the choose: keys answered (apply_action shares one)
        self.unavailable: list[tuple] = []  # (name, option, CR, text): choices the rules say can't be made now

    # -- asking the rules -------------------------------------------------
    def ask(self, facts: Iterable[tuple], text: str) -> list[dict[str, Any]]:
        body, names = checked_question(self.engine.program, text)
        frozen = self.steps.freeze(facts)
        if self.observer is not None:
            self.observer(as_frozenset(frozen))
        rows = self.engine.ask_again(cast(frozenset, frozen), body, names)  # a FactView answers as one
        return [dict(zip(names, r)) for r in rows]

    def cause(self, facts: Iterable[tuple], fact: tuple) -> tuple[str, tuple[str, ...]]:
        """The rule (name, cites) that derives ``fact`` here."""
        return self._causes_of(facts, [fact])[0]

    def _causes_of(self, facts: Iterable[tuple], wanted: list[tuple]) -> list[tuple[str, tuple[str, ...]]]:
        """The rules that derive each of ``wanted`` (all asked in one session)."""
        from .provenance import Prover

        with self.engine.backend.session(cast(frozenset, self.steps.freeze(facts))) as view:
            prover = Prover(self.engine.backend, view, {})
            rules = prover.deriving_rules(wanted)
        return [(r.name or "", r.cites) if r is not None else ("", ()) for r in rules]

    # -- arguments --------------------------------------------------------
    def _pending(self, spec: dict) -> str:
        oid, facts = action_object(self.state, str(self.kind), self.span, spec)
        self.pending_objects[oid] = facts
        return oid

    # -- the loop -----------------------------------------------------------
    def run(self) -> tuple[B, list[Event]]:
        self._validate()
        facts: WorkingFacts = Overlay(self.state.facts, plus=argument_facts(self.action, self._pending))
        self._check_params(facts)
        facts |= default_facts(
            self.action, ((r["K"], r["V"]) for r in self.ask(facts, f"action_param_default({self.kind}, K, V)"))
        )
        facts = self._effects(facts, "standing(I, P, A, B, C)")  # designations that last
        # an object about to enter shows its characteristics (not `permanent`) to the rules that choose as it
        # enters (614.1c, 614.12: riot, unleash); those of one that does not enter go again (below)
        facts |= {("pending_object", o) for o in self.pending_objects} | {
            f for o, fs in self.pending_objects.items() for f in fs if f != ("permanent", o)
        }
        if self.kind == "resolve":
            facts |= self._resolving(facts)
        choose = self.action.get("choose")
        step = 1
        while True:
            if step > MAX_STEPS:
                raise ActionError(f"{self.kind} did not finish in {MAX_STEPS} steps (do its rules loop?)")
            facts.add(("step", step))
            self._violations(facts)
            chosen = self._choices(facts, choose, self.used_choices)
            if self.probe or unused_choices(choose, self.used_choices):  # and those the rules say can't be made
                self._unavailable(facts, choose)
            while chosen:  # and what reads the choices just made (an effect that depends on a chosen target, or
                facts |= chosen  # a choice it offers: the order of replacements of an amount, 616.1)
                self._violations(facts)
                chosen = self._choices(facts, choose, self.used_choices)
            if self.kind == "resolve" and step == 1 and self._not_resolving(facts):  # 608.2b: no effect happens
                break
            follow_up = {r["K"]: r["V"] for r in self.ask(facts, "follow_up(K, V)")}  # as the step begins
            before_priority = bool(follow_up) and bool(self.ask(facts, "follow_up_before_priority()"))
            facts = self._effects(facts, "effect(I, P, A, B, C)")
            more = self.ask(facts, f"step_exists({step + 1})")
            if not more:
                self.follow_up, self.before_priority = follow_up, before_priority
            facts.discard(("step", step))
            if not more:
                break
            step += 1
        if self.legality_only:
            return self.state, []
        if self.kind == "resolve":
            facts = self._finish_resolve(facts)
        facts = self.steps.without(facts, TRANSIENT)
        pending = self.pending_objects.items()
        facts = facts.difference([f for o, fs in pending if ("permanent", o) not in facts for f in fs])
        # 117.5, 704.3: no player receives priority before the follow-up: no state-based actions, and the abilities
        # that triggered wait for the next part (take_waiting)
        held = self._held_until_the_follow_up(facts)
        facts = facts if held else self._state_based(facts, choose, self.used_choices)
        if self.token_ids:
            raise ActionError(
                f"{self.kind}: as: names {len(self.token_ids)} more token id(s) than tokens it "
                f"created ({', '.join(self.token_ids)})",
                hint="name one id per token the action creates",
            )
        if not held:
            facts = self._stack_triggers(facts)
            if self.follow_up and self.ask(facts, "follow_up_stopped(R)"):  # e.g. the game is over (104.2a)
                self.follow_up = {}
            self._wait_for_the_stack(facts)  # (no follow-up: nothing to wait for)
        unused = [] if self.follow_up else unused_choices(choose, self.used_choices)  # a later application may ask
        if unused:
            raise nothing_to_choose(str(self.kind), unused)
        event_facts = {f for e in self.events for f in e.facts()}
        final = facts | event_facts
        origins = {f: self.span for f in self.steps.added(final)} if self.span is not None else {}
        causes = {f: r for f, r in self.causes.items() if f in final and f not in self.state.facts}
        new = self.state.with_facts(final, origins, events=tuple(self.events), causes=causes)
        return new, list(self.events)

    def _validate(self) -> None:
        """The action's name, argument keys and types, the constants it names and its choose: keys, in this
        state (judgelog.validation): a typo is an input error, never a rules refusal."""
        from .validation import action_problems

        scenario = self.state.meta.scenario
        doc: Located | None = None
        base: tuple[str | int, ...] = ()
        if scenario is not None and scenario.doc is not None and self.span is not None:
            base = next((("actions", i) for i, (_a, s) in enumerate(scenario.actions) if s == self.span), ())
            doc = scenario.doc if base else None
        diags = action_problems(self.state, self.action, doc=doc, base=base, span=self.span)
        if diags:
            raise UsageError("; ".join(d.message for d in diags), diagnostics=diags, hint=diags[0].hint)

    def _check_params(self, facts: WorkingFacts) -> None:
        keywords = self.engine.interface.keywords
        for r in self.ask(facts, f"action_param_type({self.kind}, K, T)"):
            value = self.action.get(r["K"])
            if (
                value is not None
                and r["T"] in ("int", "count")
                and not all(isinstance(v, int) and not isinstance(v, bool) for v in leaves(value))
            ):
                raise UsageError(f"{self.kind}: {r['K']} must be an integer, got {value!r}")
            if value is not None and r["T"] == "count" and any(isinstance(v, int) and v < 0 for v in leaves(value)):
                raise UsageError(f"{self.kind}: {r['K']} must be 0 or more, got {value!r}", hint="CR 107.1b")
            for v in leaves(value) if value is not None and r["T"] == "keyword" else ():
                if v not in keywords:  # a keyword is valid exactly when a loaded rule file declares it
                    near = suggest(str(v), keywords)
                    raise UsageError(
                        f"{self.kind}: unknown keyword {v!r}",
                        hint=(f"did you mean {near!r}? " if near else "")
                        + "no loaded rule file declares it (keyword/1)",
                    )
        params = {r["K"] for r in self.ask(facts, f"action_param({self.kind}, K)")}
        if not params:
            return
        for key in self.action:
            if key not in RESERVED and key not in params:
                near = suggest(str(key), params)
                raise UsageError(
                    f"{self.kind} takes no argument {key!r}",
                    hint=(f"did you mean {near!r}? " if near else "") + "arguments: " + ", ".join(sorted(params)),
                )

    def _violations(self, facts: WorkingFacts) -> None:
        rows = self.ask(facts, "violation(C, S)")
        if not rows:
            return
        info = {r["C"]: (r["R"], r["T"]) for r in self.ask(facts, "violation(C, _), violation_info(C, R, T)")}
        values: dict[tuple, dict[str, object]] = {}  # (code, subject) -> key -> value (violation_value/4)
        for r in self.ask(facts, "violation(C, S), violation_value(C, S, K, V)"):
            values.setdefault((r["C"], r["S"]), {})[str(r["K"])] = r["V"]
        violations = [(r["C"], r["S"]) for r in rows]
        # refusal(explain=False) asks only whether it is refused: not which rules derived its violations
        wanted = [("violation", c, s) for c, s in violations]
        causes = self._causes_of(facts, wanted) if self.explain_refusal else [("", ())] * len(wanted)
        program = self.engine.program
        rule_at = {rule: program.rule_by_name[rule].span.short() for rule, _ in causes if rule in program.rule_by_name}
        untimely = {r["C"] for r in self.ask(facts, "refusal_not_about_the_choice(C)")} >= {c for c, _ in violations}
        options: list[str] = []
        if not untimely and self.list_options is not None:
            decisions = [r["D"] for r in self.ask(self.state.facts, f"refusal_options({_q(self.kind)}, D)")]
            options = listed_options(decisions, self.list_options, self.state)
        alternatives: list[str] | None = None  # the names the action could have given (refusal_alternative/2)
        if self.explain_refusal:
            codes = {c for c, _ in violations}
            found = sorted({str(r["V"]) for r in self.ask(facts, "violation(C, _), refusal_alternative(C, V)")})
            listing = found or any(r["C"] in codes for r in self.ask(facts, "refusal_alternatives(C)"))
            alternatives = found if listing else None
        raise violation_refusal(
            str(self.kind),
            violations,
            info,
            causes,
            rule_at=rule_at,
            untimely=untimely,
            options=options,
            alternatives=alternatives,
            values=values,
        )

    def _choices(self, facts: WorkingFacts, choose: object, used: set[str]) -> set[tuple]:
        rows = self.ask(facts, "choice(N, O)")
        names = sorted({r["N"] for r in rows} | {r["N"] for r in self.ask(facts, "choice_mode(N, _)")})
        names = [n for n in names if not self.steps.any_of(facts, ("chosen", "chose_nothing"), n)]
        out: set[tuple] = set()
        for name in names:
            options = [r["O"] for r in rows if r["N"] == name]
            mode = ChoiceMode.of(name, next((r["M"] for r in self.ask(facts, f"choice_mode({name}, M)")), "one"))
            limit = next((r["X"] for r in self.ask(facts, f"choice_max({name}, X)")), None)
            if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
                raise ActionError(
                    f"{self.kind}: the rules give {name} a choice_max of {_q(limit)}, not a number",
                    hint="declare the argument it comes from as a count: action_param_type(KIND, KEY, count)",
                )
            cr = next((r["R"] for r in self.ask(facts, f"choice_cr({name}, R)")), None)
            says = next((str(r["T"]) for r in self.ask(facts, f"choice_text({name}, T)")), None)  # what it decides
            given, present = given_choice(choose, name, len(names), used=used)
            if present:
                used.add(name)
            unknown = [k for k in choose if k not in names] if isinstance(choose, dict) else []
            odd = [k for k in unknown if suggest(str(k), [name])]  # a misnamed choose: key
            try:
                values = checked_choice(
                    self.kind, name, options, mode, limit, cr, given, present, probe=self.probe, misnamed=odd, text=says
                )
            except ActionError as refused:
                listed = given if isinstance(given, list) else [given]
                bad = next((v for v in listed if isinstance(v, (str, int)) and v not in options and v != "none"), None)
                if bad is not None and refused.hint is None:  # why the rules don't offer it, in this step
                    refused.hint = self._why_not_holds(facts, ("choice", name, bad))
                refused.made, refused.choice = made_by_the_action_ids(self.state, options), name  # a new token
                raise
            if not values:
                out.add(("chose_nothing", name))
            out |= {("chosen", name, v) for v in values}
            causes = self._causes_of(facts, [("choice", name, v) for v in values]) if values else []
            for v, (rule, cites) in zip(values, causes):
                self.events.append(Event(self.next_seq, "chosen", v, {"choice": name}, rule, cites))
                self.next_seq += 1
        return out

    def _unavailable(self, facts: WorkingFacts, choose: object) -> None:
        """A choose: entry naming an option the rules say can't be chosen now is refused with their reason
        (choice_unavailable/4); the options they say so of are kept for judgelog choices (``unavailable``)."""
        rows = [(r["N"], r["O"], r["R"], r["T"]) for r in self.ask(facts, "choice_unavailable(N, O, R, T)")]
        self.unavailable += [r for r in rows if r not in self.unavailable]
        refused = unavailable_refusal(str(self.kind), choose, self.used_choices, rows)
        if refused is not None:
            raise refused

    def _why_not_holds(self, facts: Iterable[tuple], wanted: tuple) -> str | None:
        """Why ``wanted`` (the option a caller named) does not hold here (judgelog.refusals.why_not_holds)."""
        return why_not_holds(self.engine, cast(frozenset, self.steps.freeze(facts)), wanted)

    def _effects(self, facts: WorkingFacts, query: str, *, rule_prefix: str = "") -> WorkingFacts:
        rows = self.ask(facts, query)
        if not rows:
            return facts
        pred = query.split("(")[0]
        if pred == "effect" and self.kind == "resolve":
            rows = self._on_known_objects(facts, rows)
        preventable = self.engine.interface.preventable  # "*": a cannot_undergo rule names a variable primitive
        if "*" in preventable or any(r["P"] in preventable for r in rows):
            rows = self._undergone(facts, rows)
        if not rows:
            return facts
        ask, causes_of = partial(self.ask, facts), partial(self._causes_of, facts)
        specs = spec_facts(rows, ask)
        face = self.engine.interface
        change = Change(
            facts, self.pending_objects, self.inputs, face=face, combat=face.ends_with_combat, base=self.steps.base()
        )
        change.next_seq = self.next_seq
        change.token_ids = self.token_ids  # shared: each token created takes the next id named by `as:`
        # what the rules say of the permanents a move takes away: creatures (700.4), last known information
        # (608.2h), a replacement of where they go (614.1a): judgelog.leaving
        note_leaving(change, rows, partial(self.ask, facts), self.engine.program.decls)
        ordered = sorted(rows, key=lambda r: (r["I"], repr((r["P"], r["A"], r["B"], r["C"]))))
        effect_facts = [(pred, r["I"], r["P"], r["A"], r["B"], r["C"]) for r in ordered]
        rules = self._causes_of(facts, effect_facts)  # before the primitives change anything
        # an effect's values are made by the rules that derived them as it began (608.2h), not by the rule beginning it
        begun = {r["A"] for r in rows if r["P"] == "begin_effect"}
        valued = [f for f in specs if f[0] == "effect_spec" and f[1] in begun]
        value_rules = dict(zip(valued, (name for name, _ in self._causes_of(facts, valued)))) if valued else {}
        prior = facts  # the state just before these effects (Change works on a copy): what look-back triggers see
        causes: list[tuple[int, int, tuple[str, tuple[str, ...]]]] = []
        # 614.1a, 616.1: an amount the rules' replacement effects change (judgelog.amounts)
        swaps = swaps_of(ordered, face.primitives, face.amount_replaced, ask, causes_of)
        for k, (r, cause) in enumerate(zip(ordered, rules)):
            args: tuple = (r["A"], r["B"], r["C"])
            for swap in swaps.get(k, ()):
                kind, subject, details = swap.event(args, face.primitives[r["P"]])
                change.emit(kind, subject, **details)
                causes.append((len(change.events) - 1, len(change.events), swap.cause))
            if k in swaps:
                args = replace_amount(args, face.primitives[r["P"]], swaps[k][-1].now)
            before, logged = len(change.events), len(change.facts.log)
            apply_primitive(change, r["P"], *args, spec_facts=specs)
            if len(change.events) > before or len(change.facts.log) > logged:
                causes.append((before, len(change.events), cause))
                for made in change.facts.log[logged:]:
                    by = value_rules.get(("effect_spec", r["A"], *made[2:])) if made[0] == "effect_value" else None
                    if by or cause[0]:
                        self.causes[made] = by or cause[0]
        return self._record(change, causes, prior=prior)

    def _undergone(self, facts: WorkingFacts, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The effects without those the rules say their object can't undergo (cannot_undergo/2: a destroy of
        an indestructible permanent does nothing, 702.12b); each one left out is the event ``unaffected``."""
        kinds, barred = (
            self.engine.interface.primitives,
            {(r["P"], r["O"]) for r in self.ask(facts, "cannot_undergo(P, O)")},
        )
        kept = []
        for r in rows:
            spared = [
                v
                for k, v in zip(kinds.get(r["P"], ()), (r["A"], r["B"], r["C"]))
                if k in ACTED_ON and (r["P"], v) in barred
            ]
            if not spared:
                kept.append(r)
            for o in spared:
                rule, cites = self.cause(facts, ("cannot_undergo", r["P"], o))
                self.events.append(Event(self.next_seq, "unaffected", o, {"primitive": r["P"]}, rule, cites))
                self.next_seq += 1
        return kept

    def _on_known_objects(self, facts: WorkingFacts, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """400.7: the effects of a resolving ability, without those on an object it knew as it triggered that
        has changed zones since (lost_to_the_ability/1, rules/core/runtime.dl): each one left out is the
        event ``ability_lost_object``."""
        lost = {r["O"] for r in self.ask(facts, "lost_to_the_ability(O)")}
        if not lost:
            return rows
        kinds, outlives = self.engine.interface.primitives, self.engine.interface.outlives
        kept: list[dict[str, Any]] = []
        gone: set[object] = set()  # the lost objects an effect left out acts on
        for r in rows:
            roles = list(zip(kinds.get(r["P"], ()), (r["A"], r["B"], r["C"])))
            # a record that outlives its object (outlives_object: a delayed ability's, 603.7) is not an act on it
            spared = any(k == "predicate" and str(v) in outlives for k, v in roles)
            acted_on = set() if spared else {v for k, v in roles if k in ACTED_ON} & lost
            gone |= acted_on
            if not acted_on:
                kept.append(r)
        missing = sorted(gone, key=str)
        causes = self._causes_of(facts, [("lost_to_the_ability", o) for o in missing])
        for o, (rule, cites) in zip(missing, causes):
            self.events.append(Event(self.next_seq, "ability_lost_object", o, {}, rule, cites))
            self.next_seq += 1
        return kept

    def _record(
        self, change: Change, causes: list[tuple[int, int, tuple[str, tuple[str, ...]]]], *, prior: WorkingFacts
    ) -> WorkingFacts:
        recent = set()
        by_event: dict[int, tuple[str, tuple[str, ...]]] = {}  # event index -> the first cause whose range holds it
        for lo, hi, c in reversed(causes):
            for i in range(lo, hi):
                by_event[i] = (c[0], c[1])
        for i, (kind, subject, details) in enumerate(change.events):
            rule, cites = by_event.get(i, ("", ()))
            event = Event(self.next_seq, kind, subject, details, rule, cites)
            self.next_seq += 1
            self.events.append(event)
            recent.add(("recent_event", event.seq))
        facts: WorkingFacts = change.facts
        if recent:
            event_facts = {f for e in self.events[-len(recent) :] for f in e.facts()}
            # only these events are recent for triggers: a state-based round's facts still hold the
            # recent_event facts of the whole action, which would make earlier events trigger again
            facts = facts - self.steps.recent(facts, self.events)
            # 603.10a: triggers on an event of a look-back kind (leaving the battlefield) are asked on the
            # state just before it, with the event added; the others on the state after it
            looks_back = self.engine.interface.looks_back
            recorded = self.events[-len(recent) :]
            back = {("recent_event", e.seq) for e in recorded if e.kind in looks_back}
            # 603.2, 614.1c: an event and what it does at once (event_result: damage's life loss, the counters
            # a permanent enters with) happen together: triggers look at the state after both; they wait in
            # the order the events happened, before those of the results' own events
            seq, mark = self.next_seq, len(self.pending_triggers)
            facts = self._results(facts, recorded)
            later = self.pending_triggers[mark:]
            del self.pending_triggers[mark:]
            if not self.legality_only:
                now = {e.kind for e in recorded if ("recent_event", e.seq) not in back}
                self._collect_triggers(facts | event_facts | (recent - back), seq=seq, kinds=now)
                if back:
                    self._collect_triggers(
                        (prior - self.steps.recent(prior, self.events)) | event_facts | back,
                        seq=seq,
                        kinds={e.kind for e in recorded if ("recent_event", e.seq) in back},
                    )
            self.pending_triggers.extend(later)
        return facts

    def _results(self, facts: WorkingFacts, events: list[Event]) -> WorkingFacts:
        """Apply what the events just recorded do at once (event_result/5, e.g. damage: CR 120.3)."""
        kinds = self.engine.interface.result_kinds
        if not any(e.kind in kinds for e in events):
            return facts
        added = {f for e in events for f in e.facts()} | {("recent_event", e.seq) for e in events}
        facts = facts | added  # 616.1: a choice the results offer is asked now (614.1c)
        facts |= self._choices(facts, self.action.get("choose"), self.used_choices)
        out = self._effects(facts, "event_result(I, P, A, B, C)")
        return out.difference([f for f in added if f[0] == "recent_event"])


def probe_choice(
    state: Board, action: dict[str, Any], *, list_options: OptionLister | None = None, unavailable: list | None = None
) -> ChoiceNeeded | None:
    """The first choice ``action`` would ask for, as a :class:`ChoiceNeeded`, or None if it needs none.
    ``list_options``: as for :func:`apply_action`; ``unavailable`` gets the (name, option, CR, text) the rules
    say can't be chosen (choice_unavailable/4) in the steps run."""
    run = _Run(state, action, None, list_options=list_options)
    run.probe, run.unavailable = True, unavailable if unavailable is not None else []
    try:
        run.run()
    except ChoiceNeeded as needed:
        return needed
    return None


def refusal(state: Board, action: dict[str, Any], *, explain: bool = True) -> ActionError | None:
    """Why the rules refuse ``action`` in ``state`` (the error :func:`apply_action` would raise, without
    the legal options it lists), or None if they accept it. Only the action's own steps are run: no
    triggered ability is collected and no state-based action checked, so it is cheaper than applying it.
    ``explain=False``: its ``refused_by`` names the violations' codes, not the rules that derived them (no
    proof is searched: the cheapest test, for trying many candidates)."""
    run = _Run(state, action, None)
    run.legality_only = True
    run.explain_refusal = explain
    try:
        run.run()
    except ActionError as refused:
        return refused
    return None


MAX_FOLLOW_UPS = 8


def apply_action(
    state: B,
    action: dict[str, Any],
    *,
    span: Span | None = None,
    observer: Observer | None = None,
    list_options: OptionLister | None = None,
) -> tuple[B, list[Event]]:
    """Apply one action to a state: ``(new_state, events)``; the state itself never changes.

    ``observer(facts)`` is called with every fact set the rules are evaluated on (rule coverage);
    ``list_options(state, decision, limit=N)`` lists the legal options a refusal names (refusal_options/2):
    :meth:`State.apply <judgelog.state.State.apply>` passes judgelog.choices.list_choices.

    When the rules derive ``follow_up(Key, Value)`` as the last step begins, the same action is applied again,
    after state-based actions, with that argument (e.g. a combat damage action without ``step:`` goes on
    from the first-strike step to the regular one). When they derive ``follow_up_before_priority()`` too, it
    is applied before any player would receive priority: before state-based actions, and the abilities that
    triggered wait for the last application.
    """
    if not isinstance(action, dict) or not isinstance(action.get("do"), str):
        raise UsageError(f"an action is a mapping with do: and the action's name, got {action!r}")
    events: list[Event] = []
    again: dict[str, Any] = {}  # the arguments the rules added for a follow-up application
    if action.get("order") is not None:
        check_order_shape(action["order"])
    matched: set[int] = set()  # the order: entries that named an ability, in any application
    held: StackSteps | None = None  # the application before, whose triggered abilities wait for this one
    used: set[str] = set()  # the choose: keys answered, in any application
    waiting: list[str] = []
    targets = StackTargets(action.get("targets"))  # 601.2c: the targets: of the abilities it stacks
    original = state
    for _ in range(MAX_FOLLOW_UPS):
        with quiet_gc():  # an action allocates many short-lived objects and no cycles worth collecting meanwhile
            run = _Run(state, action, span, observer=observer, list_options=list_options)
            run.order_matched, run.order_waiting, run.stack_targets, run.used_choices = matched, waiting, targets, used
            if held is not None:
                run.take_waiting(held)
            try:
                state, new = run.run()
            except ActionError as refused:
                if again:
                    raise refused.in_follow_up(again) from None
                raise
        events.extend(new)
        if not run.follow_up:
            check_order_named(action.get("order"), matched, waiting, partial(order_location, original, span))
            targets.check_all_used()
            return state, events
        held = run if run.before_priority else None
        again = dict(run.follow_up)
        action = {**action, **run.follow_up}
    raise ActionError(f"{action['do']} asked to be applied again more than {MAX_FOLLOW_UPS} times")
