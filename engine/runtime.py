"""The generic step machine: applies actions whose meaning is given by rules.

For an action ``{do: KIND, ...}`` the runtime asserts ``action(KIND)`` and the arguments as ``act_*`` facts,
then for step 1, 2, ...: asks the rules for violations (refuse), the step's choices (check the caller's,
or take the only legal option), and the step's effects, which it applies with the primitives of
:mod:`judgelog.effects`. After each step it asks which triggered abilities the step's events triggered
(603.2; entering objects are seen as they entered, 603.6a). When no further step exists it applies
state-based actions and other immediate consequences until none applies (704.3), then puts waiting
triggered abilities on the stack in APNAP order (603.3b). ``{do: resolve}`` runs the top ability's own
steps the same way. What an action, step or effect means is read from the loaded rules only.

A refused action raises :class:`~judgelog.errors.ActionError` and the original state is untouched (states
are values).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .analysis import suggest
from .ast import Span
from .effects import Change, Event, apply_primitive
from .errors import ActionError, UsageError
from .replay import run_actions

__all__ = ["apply_action", "run_actions", "MAX_STEPS", "MAX_SBA_ROUNDS"]

MAX_STEPS = 50
STATE_OBSERVER: Callable[[frozenset], None] | None = (
    None  # set by judgelog.coverage to see every fact set the rules are evaluated on
)
MAX_SBA_ROUNDS = 100
RESERVED = ("do", "choose", "order", "expect_error", "as")
TRANSIENT = (
    "action",
    "act_arg",
    "act_list",
    "act_map",
    "act_map_list",
    "act_map2",
    "act_list2",
    "step",
    "resolving",
    "chosen",
    "chose_nothing",
    "created",
    "pending_object",
    "recent_event",
)
NONE = "none"


class ChoiceNeeded(Exception):
    """Raised in probe mode at the first choice the caller did not make (for ``judgelog choices``)."""

    def __init__(self, name: str, options: list, mode: str, limit, cr) -> None:
        super().__init__(name)
        self.name, self.options, self.mode, self.limit, self.cr = name, options, mode, limit, cr


class _Run:
    """One application of one action."""

    probe = False

    def __init__(self, state, action: dict, span: Span | None) -> None:
        self.state = state
        self.engine = state.engine
        self.action = action
        self.span = span
        self.kind = action.get("do")
        self.events: list[Event] = []
        self.pending_triggers: list[tuple[int, tuple, list[tuple]]] = []
        # event numbers are also the timestamps of continuous effects (613.7b): later than any given one
        self.next_seq = 1 + max(
            [f[1] if f[0] == "event" else f[2] for f in state.facts if f[0] == "event" or f[0] == "effect_timestamp"]
            or [0]
        )
        self.pending_objects: dict[str, list[tuple]] = {}
        self.inputs = {p: d.arity for p, d in self.engine.program.decls.items() if d.is_input}
        self.causes: dict[tuple, str] = {}  # fact made by this action -> the rule whose effect made it
        self.follow_up: dict[str, object] = {}  # rules ask for the action to be applied again with these args
        self.token_ids: list[str] = _token_ids(action.get("as"))  # ids for the tokens the action creates

    # -- asking the rules -------------------------------------------------
    def ask(self, facts, text: str) -> list[dict]:
        from .parser import parse_body

        body, names = self.engine.check_query(parse_body(text), text=text)
        frozen = frozenset(facts)
        if STATE_OBSERVER is not None:
            STATE_OBSERVER(frozen)
        with self.engine.backend.session(frozen) as view:
            rows = self.engine.backend.ask(view, body, names)
        return [dict(zip(names, r)) for r in rows]

    def cause(self, facts, fact: tuple) -> tuple[str, tuple[str, ...]]:
        """The rule (name, cites) that derives ``fact`` here."""
        return self._causes_of(facts, [fact])[0]

    def _causes_of(self, facts, wanted: list[tuple]) -> list[tuple[str, tuple[str, ...]]]:
        """The rules that derive each of ``wanted`` (all asked in one session)."""
        from .provenance import Prover

        with self.engine.backend.session(frozenset(facts)) as view:
            prover = Prover(self.engine.backend, view, {})
            rules = [prover.deriving_rule(f) for f in wanted]
        return [(r.name or "", r.cites) if r is not None else ("", ()) for r in rules]

    # -- arguments --------------------------------------------------------
    def arg_facts(self) -> list[tuple]:
        out = [("action", self.kind)]
        for key, value in self.action.items():
            if key in RESERVED:
                continue
            if key == "object" and isinstance(value, dict):
                out.append(("act_arg", key, self._pending(value)))
                continue
            if key == "object" and isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                # several objects at once (they enter at the same time, each seeing the others: 603.6a)
                out.extend(("act_list", key, i, self._pending(v)) for i, v in enumerate(value))
                continue
            out.extend(_flatten(key, value))
        return out

    def _pending(self, spec: dict) -> str:
        from .scenario import _Ctx, compile_object
        from .yamlsrc import Located

        doc = Located({"object": spec}, self.span.file if self.span else "<action>")
        if self.span:
            doc.marks[()] = self.span
        ctx = _Ctx(doc, self.engine.catalog, self.engine.interface)
        players = sorted(f[1] for f in self.state.facts if f[0] == "player")
        oid = spec.get("id")
        if oid is None:
            name = spec.get("name") or spec.get("card") or "object"
            oid = Change(self.state.facts, {}).fresh_id(str(name))
        if ctx.ident(oid, ("object", "id"), "an object id") is None:
            raise ActionError(f"invalid object for {self.kind}: {ctx.diags[0].message}", hint=ctx.diags[0].hint)
        if any(len(f) > 1 and f[1] == oid for f in self.state.facts if f[0] in ("permanent", "player")):
            raise ActionError(f"id {oid!r} is already in use", hint="give the new object another id")
        spec = {k: v for k, v in spec.items() if k != "id"}
        facts = [f for f, _ in compile_object(ctx, oid, spec, ("object",), players)]
        if ctx.diags:
            d = ctx.diags[0]
            raise ActionError(f"invalid object for {self.kind}: {d.message}", hint=d.hint)
        self.pending_objects[oid] = facts
        return oid

    # -- the loop -----------------------------------------------------------
    def run(self):
        self._validate()
        base = set(self.state.facts)
        args = self.arg_facts()
        self._check_params(base | set(args))
        facts = self._effects(base | set(args), "standing(I, P, A, B, C)")  # designations that last
        facts |= {("pending_object", o) for o in self.pending_objects}
        if self.kind == "resolve":
            facts |= self._resolving(facts)
        choose = self.action.get("choose")
        used_choices = set()
        step = 1
        while True:
            if step > MAX_STEPS:
                raise ActionError(f"{self.kind} did not finish in {MAX_STEPS} steps (do its rules loop?)")
            facts.add(("step", step))
            self._violations(facts)
            facts |= self._choices(facts, choose, used_choices)
            follow_up = {r["K"]: r["V"] for r in self.ask(facts, "follow_up(K, V)")}  # as the step begins
            facts = self._effects(facts, "effect(I, P, A, B, C)")
            more = self.ask(facts, f"step_exists({step + 1})")
            if not more:
                self.follow_up = follow_up
            facts.discard(("step", step))
            if not more:
                break
            step += 1
        if self.kind == "resolve":
            facts = self._finish_resolve(facts)
        facts = {f for f in facts if f[0] not in TRANSIENT}
        facts = self._state_based(facts, choose, used_choices)
        if self.token_ids:
            raise ActionError(
                f"{self.kind}: as: names {len(self.token_ids)} more token id(s) than tokens it "
                f"created ({', '.join(self.token_ids)})",
                hint="name one id per token the action creates",
            )
        unused = _unused_choices(choose, used_choices)
        if unused:
            raise ActionError(
                f"{self.kind}: nothing to choose for {', '.join(unused)}",
                hint="remove it from choose:, or check the step that offers it",
            )
        facts = self._stack_triggers(facts)
        event_facts = {f for e in self.events for f in e.facts()}
        final = frozenset(facts | event_facts)
        origins = {f: self.span for f in final if f not in self.state.facts} if self.span is not None else {}
        causes = {f: r for f, r in self.causes.items() if f in final and f not in self.state.facts}
        new = self.state.with_facts(final, origins, events=tuple(self.events), causes=causes)
        return new, list(self.events)

    def _validate(self) -> None:
        """The action's name, argument keys and types, the constants it names and its choose: keys, in this
        state (judgelog.validation): a typo is an input error, never a rules refusal."""
        from .validation import action_problems

        scenario = self.state.meta.get("scenario")
        doc, base = getattr(scenario, "doc", None), ()
        if doc is not None and self.span is not None:
            base = next((("actions", i) for i, (_a, s) in enumerate(scenario.actions) if s == self.span), ())
        diags = action_problems(self.state, self.action, doc=doc if base else None, base=base, span=self.span)
        if diags:
            raise UsageError("; ".join(d.message for d in diags), diagnostics=diags, hint=diags[0].hint)

    def _check_params(self, facts) -> None:
        keywords = self.engine.interface.keywords
        for r in self.ask(facts, f"action_param_type({self.kind}, K, T)"):
            value = self.action.get(r["K"])
            if (
                value is not None
                and r["T"] in ("int", "count")
                and not all(isinstance(v, int) and not isinstance(v, bool) for v in _leaves(value))
            ):
                raise UsageError(f"{self.kind}: {r['K']} must be an integer, got {value!r}")
            if value is not None and r["T"] == "count" and any(v < 0 for v in _leaves(value)):
                raise UsageError(f"{self.kind}: {r['K']} must be 0 or more, got {value!r}", hint="CR 107.1b")
            for v in _leaves(value) if value is not None and r["T"] == "keyword" else ():
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

    def _violations(self, facts) -> None:
        rows = self.ask(facts, "violation(C, S)")
        if not rows:
            return
        info = {r["C"]: (r["R"], r["T"]) for r in self.ask(facts, "violation(C, _), violation_info(C, R, T)")}
        messages, crs, refused_by = [], [], []
        causes = self._causes_of(facts, [("violation", r["C"], r["S"]) for r in rows])
        for r, (rule, cites) in zip(rows, causes):
            cr, text = info.get(r["C"], ("", str(r["C"])))
            found = self.engine.program.rule_by_name.get(rule)
            refused_by.append(
                (rule or str(r["C"]), found.span.short() if found else "?", cr or ", ".join(cites) or "?", text)
            )
            where = [str(r["S"])] if r["S"] != NONE else []
            if cr:
                crs.append(cr)
                where.append(f"CR {cr}")
            messages.append(f"{text} ({'; '.join(where)})" if where else text)
        cr = crs[0] if len(set(crs)) == 1 else None
        raise ActionError(
            f"{self.kind} refused: " + "; ".join(messages), cr=cr, refused_by=refused_by, options=self._legal_options()
        )

    def _legal_options(self) -> list[str]:
        """The legal options of the decision the rules name for a refused action (refusal_options/2)."""
        from .choices import list_choices

        out: list[str] = []
        for r in self.ask(self.state.facts, f"refusal_options({_q(self.kind)}, D)"):
            data, _text = list_choices(self.state, r["D"], limit=20)
            if data.get("options"):
                out.extend(str(o) for o in data["options"])
            for value in data.values():
                if isinstance(value, dict):  # e.g. blocker -> the attackers it may block
                    out.extend(
                        f"{k} -> {', '.join(map(str, v)) if isinstance(v, list) else v}"
                        for k, v in sorted(value.items())
                    )
        return out

    def _choices(self, facts, choose, used: set) -> set:
        rows = self.ask(facts, "choice(N, O)")
        names = sorted({r["N"] for r in rows} | {r["N"] for r in self.ask(facts, "choice_mode(N, _)")})
        names = [n for n in names if not any(f[0] in ("chosen", "chose_nothing") and f[1] == n for f in facts)]
        out = set()
        for name in names:
            options = [r["O"] for r in rows if r["N"] == name]
            mode = next((r["M"] for r in self.ask(facts, f"choice_mode({name}, M)")), "one")
            limit = next((r["X"] for r in self.ask(facts, f"choice_max({name}, X)")), None)
            cr = next((r["R"] for r in self.ask(facts, f"choice_cr({name}, R)")), None)
            given, present = _given(choose, name, len(names))
            if present:
                used.add(name)
            values = self._check_choice(name, options, mode, limit, cr, given, present)
            if not values:
                out.add(("chose_nothing", name))
            out |= {("chosen", name, v) for v in values}
            for v in values:
                rule, cites = self.cause(facts, ("choice", name, v))
                self.events.append(Event(self.next_seq, "chosen", v, {"choice": name}, rule, cites))
                self.next_seq += 1
        return out

    def _check_choice(self, name, options, mode, limit, cr, given, present) -> list:
        shown = [str(o) for o in options] + ([NONE] if mode in ("may",) else [])
        if not present and self.probe and (options or mode not in ("one",)):
            raise ChoiceNeeded(name, options, mode, limit, cr)
        if not present:
            if not options:
                return []
            if mode == "one" and len(options) == 1:
                return [options[0]]
            raise ActionError(
                f"{self.kind}: a choice is required for {name}",
                cr=cr,
                options=shown,
                hint=f"add choose: {{{name}: ...}}",
            )
        values = given if isinstance(given, list) else ([] if given in (None, NONE) else [given])
        for v in values:
            if v not in options:
                raise ActionError(f"{self.kind}: {v!r} is not a legal choice for {name}", cr=cr, options=shown)
        if len(set(values)) != len(values):
            raise ActionError(f"{self.kind}: {name} lists the same option twice", cr=cr)
        if mode == "one" and len(values) != 1:
            raise ActionError(f"{self.kind}: choose exactly one {name}", cr=cr, options=shown)
        if mode == "may" and len(values) > 1:
            raise ActionError(f"{self.kind}: choose at most one {name}", cr=cr, options=shown)
        if limit is not None and len(values) > limit:
            raise ActionError(f"{self.kind}: choose at most {limit} for {name}", cr=cr, options=shown)
        return values

    def _effects(self, facts, query: str, *, rule_prefix: str = "") -> set:
        rows = self.ask(facts, query)
        if not rows:
            return facts
        pred = query.split("(")[0]
        specs = [tuple(["token_spec", r["S"], r["F"], r["V"]]) for r in self.ask(facts, "token_spec(S, F, V)")]
        if any(r["P"] == "begin_effect" for r in rows):
            specs += [("effect_spec", r["S"], r["K"], r["V"]) for r in self.ask(facts, "effect_spec(S, K, V)")]
        if any(r["P"] == "create_token" for r in rows):
            specs += [("token_name_word", r["S"], r["I"], r["W"]) for r in self.ask(facts, "token_name_word(S, I, W)")]
            specs += [("token_name_suffix", r["S"], r["W"]) for r in self.ask(facts, "token_name_suffix(S, W)")]
        face = self.engine.interface
        change = Change(facts, self.pending_objects, self.inputs, face=face, combat=face.ends_with_combat)
        change.next_seq = self.next_seq
        change.token_ids = self.token_ids  # shared: each token created takes the next id named by `as:`
        ordered = sorted(rows, key=lambda r: (r["I"], repr((r["P"], r["A"], r["B"], r["C"]))))
        effect_facts = [(pred, r["I"], r["P"], r["A"], r["B"], r["C"]) for r in ordered]
        rules = self._causes_of(facts, effect_facts)  # before the primitives change anything
        causes = []
        for r, cause in zip(ordered, rules):
            before, logged = len(change.events), len(change.facts.log)
            apply_primitive(change, r["P"], r["A"], r["B"], r["C"], spec_facts=specs)
            if len(change.events) > before or len(change.facts.log) > logged:
                causes.append((before, len(change.events), cause))
                if cause[0]:
                    for made in change.facts.log[logged:]:
                        self.causes[made] = cause[0]
        return self._record(change, causes)

    def _record(self, change: Change, causes) -> set:
        recent = set()
        for i, (kind, subject, details) in enumerate(change.events):
            rule, cites = next(((c[0], c[1]) for lo, hi, c in causes if lo <= i < hi), ("", ()))
            event = Event(self.next_seq, kind, subject, details, rule, cites)
            self.next_seq += 1
            self.events.append(event)
            recent.add(("recent_event", event.seq))
        facts = change.facts
        if recent:
            event_facts = {f for e in self.events[-len(recent) :] for f in e.facts()}
            # only these events are recent for triggers: a state-based round's facts still hold the
            # recent_event facts of the whole action, which would make earlier events trigger again
            earlier = {f for f in facts if f[0] == "recent_event"}
            self._collect_triggers((facts - earlier) | event_facts | recent)
            facts = self._results(facts - earlier, self.events[-len(recent) :])
        return facts

    def _results(self, facts, events: list[Event]) -> set:
        """Apply what the events just recorded do at once (event_result/5, e.g. damage: CR 120.3)."""
        kinds = self.engine.interface.result_kinds
        if not any(e.kind in kinds for e in events):
            return facts
        added = {f for e in events for f in e.facts()} | {("recent_event", e.seq) for e in events}
        out = self._effects(set(facts) | added, "event_result(I, P, A, B, C)")
        return {f for f in out if f not in added or f[0] not in ("recent_event",)}

    # -- triggers and the stack -------------------------------------------------
    def _collect_triggers(self, facts) -> None:
        """Each triggered ability waits with a stable identity: source, kind, subject and instance. A keyword
        whose declaration says each instance acts (keyword_instances(K, each)) triggers once per instance
        (keyword_instance/3), each instance with its own parameters (keyword_instance_param/5)."""
        face = self.engine.interface
        for r in self.ask(facts, "triggers(S, K, X)"):
            source, kind, subject = r["S"], r["K"], r["X"]
            args = [
                ("ability_arg", k["K2"], k["V"])
                for k in self.ask(facts, f"trigger_arg({_q(source)}, {_q(kind)}, {_q(subject)}, K2, V)")
            ]
            controller = next((c["P"] for c in self.ask(facts, f"controller({_q(source)}, P)")), None)
            instances = [None]
            if face.instances(kind) == "each" and kind in face.keywords:
                found = [i["I"] for i in self.ask(facts, f"keyword_instance({_q(source)}, {_q(kind)}, I)")]
                # a trigger whose subject names one instance (fabricate) is that instance's already
                instances = [None] if not found or subject in found else found
            for inst in instances:
                extra = []
                if inst is not None:
                    given = {a[1] for a in args}
                    extra = [("ability_arg", "instance", inst)] + [
                        ("ability_arg", p["K2"], p["V"])
                        for p in self.ask(facts, f"keyword_instance_param({_q(source)}, {_q(kind)}, {_q(inst)}, K2, V)")
                        if p["K2"] not in given
                    ]
                self.pending_triggers.append((self.next_seq, (source, kind, subject, controller, inst), args + extra))

    def _stack_triggers(self, facts) -> set:
        """Put waiting triggered abilities on the stack (603.3): in APNAP order (apnap_rank, 603.3b), each
        player's in the order they triggered unless ``order:`` names them (top of the stack first)."""
        if not self.pending_triggers:
            return facts
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
        placed = self._ordered(pending, named, ranks)
        causes = dict(zip(ranks, self._causes_of(facts, [("apnap_rank", p, n) for p, n in ranks.items()])))
        for t in placed:
            _seq, (source, kind, subject, controller, _inst), args = t
            aid = named[id(t)]
            height += 1
            facts |= {
                ("on_stack", aid, source, kind),
                ("stack_position", aid, height),
                ("ability_arg", aid, "subject", subject),
            }
            if controller is not None:
                facts.add(("ability_controller", aid, controller))
            facts |= {(f[0], aid) + f[1:] for f in args}
            rule, cites = causes.get(controller, ("", ()))
            self.events.append(
                Event(
                    self.next_seq,
                    "put_on_stack",
                    aid,
                    {"source": source, "kind": kind, "subject": subject},
                    rule,
                    cites,
                )
            )
            self.next_seq += 1
        return facts

    def _ordered(self, pending, named, ranks) -> list:
        """The order abilities go on the stack (first = bottom). ``order:`` lists abilities top first: a
        source id (all its abilities), [source, kind], [source, kind, subject], or an ability id."""
        order = self.action.get("order")
        if order is None:
            return pending
        if not isinstance(order, list) or not all(_entry_shape(e) for e in order):
            raise UsageError(
                f"order: must be a list of abilities (a source id, [source, kind], [source, kind, "
                f"subject] or an ability id), top of the stack first, got {order!r}",
                hint="e.g. order: [[hero, my_trigger], ability_3, other_source]",
            )
        rank: dict[int, tuple[int, int]] = {}
        for j, entry in enumerate(order):
            hits = [t for t in pending if _names(entry, t, named[id(t)])]
            if not hits:
                shown = [f"{named[id(t)]} ([{t[1][0]}, {t[1][1]}])" for t in pending]
                where = self._order_where(j)
                raise ActionError(
                    f"{where}order: {entry!r} names no ability that triggered",
                    hint="abilities waiting: " + ", ".join(shown),
                )
            for t in hits:
                rank.setdefault(id(t), (j, t[0]))
        # within each player's group: unnamed first (in trigger order), then named, the first named on top
        return sorted(
            pending,
            key=lambda t: (
                ranks.get(t[1][3], len(ranks)),
                (0, t[0]) if id(t) not in rank else (1, -rank[id(t)][0], t[0]),
            ),
        )

    def _order_where(self, j: int) -> str:
        scenario = self.state.meta.get("scenario")
        doc = getattr(scenario, "doc", None)
        if doc is None or self.span is None:
            return f"{self.span.location()}: " if self.span is not None else ""
        for i, (_action, span) in enumerate(scenario.actions):
            if span == self.span:
                return f"{doc.span(('actions', i, 'order', j)).location()}: "
        return f"{self.span.location()}: "

    def _resolving(self, facts) -> set:
        top = self.ask(facts, "top_of_stack(I)")
        if not top:
            raise ActionError("resolve: the stack is empty", cr="608.1")
        return {("resolving", top[0]["I"])}

    def _finish_resolve(self, facts) -> set:
        """608.2n: the ability leaves the stack (leaves_stack/1): every input fact about it goes."""
        for r in self.ask(facts, "leaves_stack(I)"):
            aid = r["I"]
            about = {
                p
                for p, d in self.engine.program.decls.items()
                if d.is_input and d.params and d.params[0].type == "ability"
            }
            facts = {f for f in facts if not (f[0] in about and f[1] == aid)}
            rule, cites = self.cause(facts | {("resolving", aid)}, ("leaves_stack", aid))
            self.events.append(Event(self.next_seq, "resolved", aid, {}, rule, cites))
            self.next_seq += 1
        return facts

    def _state_based(self, facts, choose=None, used_choices: set | None = None) -> set:
        """Apply standing designations and state-based actions until none applies (704.3). A choice a
        state-based action needs (the legend rule, 704.5j) is an action choice: the runtime asserts
        ``state_check`` while it asks, and takes the value from the action's ``choose:``."""
        used_choices = set() if used_choices is None else used_choices
        for _ in range(MAX_SBA_ROUNDS):
            recent = {("recent_event", e.seq) for e in self.events}
            probe = facts | recent | {f for e in self.events for f in e.facts()} | {("state_check",)}
            probe |= self._choices(probe, choose, used_choices)
            rows = self.ask(probe, "state_based(I, P, A, B, C)") or self.ask(probe, "standing(I, P, A, B, C)")
            if not rows:
                return {f for f in facts if f[0] != "state_check"}
            before = len(self.events)
            facts = self._effects(self._effects(probe, "standing(I, P, A, B, C)"), "state_based(I, P, A, B, C)")
            facts = {f for f in facts if f[0] not in TRANSIENT and f[0] != "state_check"}
            if len(self.events) == before:
                return facts  # nothing changed: stop rather than loop
        raise ActionError(f"state-based actions did not settle in {MAX_SBA_ROUNDS} rounds")


def _entry_shape(entry) -> bool:
    if isinstance(entry, list):
        return 2 <= len(entry) <= 3 and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in entry)
    return isinstance(entry, (str, int)) and not isinstance(entry, bool)


def _names(entry, trigger, aid: str) -> bool:
    """Whether an ``order:`` entry names this waiting ability."""
    source, kind, subject = trigger[1][0], trigger[1][1], trigger[1][2]
    if isinstance(entry, (str, int)) and not isinstance(entry, bool):
        return entry in (source, aid)
    if isinstance(entry, list) and 2 <= len(entry) <= 3:
        return [source, kind, subject][: len(entry)] == entry
    return False


def _token_ids(value) -> list[str]:
    """The `as:` of an action: one id or a list of ids for the tokens it creates, in order."""
    if value is None:
        return []
    ids = value if isinstance(value, list) else [value]
    for oid in ids:
        if not isinstance(oid, str) or not re.match(r"^[a-z][a-z0-9_]*$", oid):
            raise UsageError(
                f"as: {oid!r} is not an object id", hint="write lower_snake ids, e.g. as: [token1, token2]"
            )
    if len(set(ids)) != len(ids):
        raise UsageError("as: names the same id twice", hint="give each token its own id")
    return list(ids)


def _q(value) -> str:
    from .ast import format_value

    return format_value(value)


def _flatten(key: str, value) -> list[tuple]:
    def scalar(v):
        if isinstance(v, bool) or not isinstance(v, (str, int)) and v is not None:
            raise UsageError(f"argument {key!r}: expected ids or numbers, got {v!r}")
        return NONE if v is None else v

    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            if isinstance(v, dict):
                out += [("act_map2", key, scalar(k), scalar(k2), scalar(v2)) for k2, v2 in v.items()]
            elif isinstance(v, list):
                out += [("act_map_list", key, scalar(k), i, scalar(x)) for i, x in enumerate(v)]
            else:
                out.append(("act_map", key, scalar(k), scalar(v)))
        return out
    if isinstance(value, list):
        out = []
        for i, v in enumerate(value):
            if isinstance(v, list):
                out += [("act_list2", key, i, j, scalar(x)) for j, x in enumerate(v)]
            else:
                out.append(("act_list", key, i, scalar(v)))
        return out
    return [("act_arg", key, scalar(value))]


def _leaves(value):
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _given(choose, name: str, nchoices: int):
    if isinstance(choose, dict):
        if name in choose:
            return choose[name], True
        return None, False
    if choose is not None and nchoices == 1:
        return choose, True
    return None, False


def _unused_choices(choose, used: set) -> list[str]:
    if isinstance(choose, dict):
        return sorted(k for k in choose if k not in used)
    if choose is not None and not used:
        return ["choose"]
    return []


def probe_choice(state, action: dict):
    """The first choice ``action`` would ask for, as a :class:`ChoiceNeeded`, or None if it needs none."""
    run = _Run(state, action, None)
    run.probe = True
    try:
        run.run()
    except ChoiceNeeded as needed:
        return needed
    return None


MAX_FOLLOW_UPS = 8


def apply_action(state, action, *, span: Span | None = None):
    """Apply one action to a state: ``(new_state, events)``; the state itself never changes.

    When the rules derive ``follow_up(Key, Value)`` as the last step begins, the same action is applied again,
    after state-based actions, with that argument (e.g. a combat damage action without ``step:`` goes on
    from the first-strike step to the regular one).
    """
    if not isinstance(action, dict) or not isinstance(action.get("do"), str):
        raise UsageError(f"an action is a mapping with do: and the action's name, got {action!r}")
    events: list[Event] = []
    for _ in range(MAX_FOLLOW_UPS):
        run = _Run(state, action, span)
        state, new = run.run()
        events.extend(new)
        if not run.follow_up:
            return state, events
        action = {**action, **run.follow_up}
    raise ActionError(f"{action['do']} asked to be applied again more than {MAX_FOLLOW_UPS} times")
