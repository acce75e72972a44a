"""The clingo search of ``judgelog verify``: library + properties + a generator of boards, one solve per task.

The analysed rule program is compiled (:mod:`judgelog.asp`, from the syntax tree) once per *context*: every
atom gets the context as its first argument. A context is one state the reference enumerator
(:mod:`judgelog.verify`) would ask about: the board, each proposed declaration, each step of a declaring
action, each round of state-based actions after it, and the same for the follow-up action. A state is
reified: ``h(C, f_p(X, ...))`` is the fact ``p(X, ...)`` in context C, and ``j_p(C, X, ...)`` reads it.
The generator chooses the board (one creature spec per slot, slots in the order of the sorted specs, so
that renamings of creatures give one board), the designations the scope declares, and one follow-up
action or none. The step from one context to the next is what the runtime does (:mod:`judgelog.runtime`):
the effects the rules derive (``effect/5``, ``state_based/5``) applied by the primitives below, with
their events. Whether an action is refused is the rules' ``violation/2`` in its step contexts.

What the search cannot follow is said, never guessed: a primitive other than those below, a choice, an
amount a replacement effect changes (614.1a), a standing designation, a triggered ability, a third step, an
action the rules apply again (``follow_up/2``) or state-based actions that have not settled after
:data:`SBA_ROUNDS` rounds. A first solve of each task asks whether any board reaches one of them; if one does,
the task is checked by the reference enumerator instead and the report names what and where
(:func:`unsupported`).

The smallest counterexample is clingo's optimum (fewest keywords, then fewest steps; the number of
creatures is fixed by the task). Solving, and replaying every counterexample the solver proposes by the
reference semantics before it is reported, is :mod:`judgelog.verify_search`.

>>> from judgelog import Engine
>>> from judgelog.boards import shapes
>>> from judgelog.scope import load_scope
>>> from judgelog.verify import properties_of
>>> engine = Engine(properties=True)
>>> scope = load_scope({"creatures": 2, "keywords": ["banding"], "power": [1], "toughness": [1]}, engine)
>>> compiled = compile_search(engine, scope, shapes(scope)[-1], properties_of(engine))
>>> [(c.kind, c.group) for c in compiled.contexts][:3]
[('board', ''), ('proposal', 'declare_attackers'), ('step', 'declare_attackers')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .action_args import TRANSIENT
from .asp import CLINGO_INT_BOUND, check_rule_ints, compile_rule, value_text
from .ast import Atom, Negation, Rule, Var
from .boards import Shape, Spec, _specs, board_dict, creature_ids, players_of
from .fact import Fact
from .scope import Scope

if TYPE_CHECKING:
    from .engine import Engine
    from .interface import Field, Interface
    from .verify import Property

__all__ = ["Compiled", "compile_search", "SUPPORTED_PRIMITIVES", "SBA_ROUNDS"]

SUPPORTED_PRIMITIVES = ("record", "forget", "tap", "remove_from_combat", "gain_control", "remove_keyword", "signal")
SBA_ROUNDS = 3
# what the runtime drops between states, and the marker of a state-based check
TRANSIENT_PREDS: tuple[str, ...] = TRANSIENT + ("state_check",)
CTX = "Ctx_"


# -- the compiled search ---------------------------------------------------------------------------------
@dataclass
class _Ctx:
    index: int
    kind: str  # board | proposal | step | sba | check
    group: str = ""  # the action (or follow-up) the context belongs to


@dataclass
class Compiled:
    text: str
    contexts: list[_Ctx]
    specs: list[Spec]
    unsupported_static: list[str]


def _q(v: object) -> str:
    return value_text(v)


def _fact_term(pred: str, args: Sequence[str]) -> str:
    return f"f_{pred}({','.join(args)})" if args else f"f_{pred}"


def _with_ctx(rule: Rule) -> Rule:
    """The rule with the context as every atom's first argument (and ``verify_ctx(C)`` first in its body)."""
    ctx = Var(CTX)

    def atom(a: Atom) -> Atom:
        return Atom(a.pred, (ctx,) + tuple(a.args), a.span)

    body: list = [Atom("verify_ctx", (ctx,))]
    for lit in rule.body:
        if isinstance(lit, Atom):
            body.append(atom(lit))
        elif isinstance(lit, Negation):
            body.append(Negation(atom(lit.atom), lit.span))
        else:
            body.append(lit)
    return replace(rule, head=atom(rule.head), body=tuple(body))


def _needed_preds(program: Any, props: dict[str, Property]) -> set[str]:
    wanted = ["property_violation", "violation", "effect", "state_based", "standing", "step_exists", "choice"]
    wanted += ["follow_up", "amount_replacement"]  # an action the rules apply again, an amount replaced: unsupported
    wanted += ["board_problem"]  # a board the rules would not allow is not searched (judgelog.verify.run_task)
    wanted += ["action_param_default"]  # the arguments an action leaves out (_Builder.defaults)
    wanted += ["triggers"] + [p.name.split(":", 1)[1] for p in props.values() if p.functional]
    return program.dependencies([w for w in wanted if w in program.decls])


def _spec_facts(engine: Engine, scope: Scope, spec: Spec) -> list[Fact]:
    data = board_dict(scope, [spec])
    facts = engine.state_from_dict(data, path="<board>").facts
    return sorted((f for f in facts if "c1" in f[1:]), key=repr)


class _Builder:
    def __init__(
        self,
        engine: Engine,
        scope: Scope,
        shape: Shape,
        props: dict[str, Property],
        groups: list[tuple[str, list[Field]]],
        board_fields: list[Field],
    ) -> None:
        self.engine, self.scope, self.shape, self.props = engine, scope, shape, props
        self.face: Interface = engine.interface
        self.groups, self.board_fields = groups, board_fields
        self.lines: list[str] = []
        self.contexts: list[_Ctx] = []
        self.unsupported: list[str] = []
        self.players = players_of(scope)
        self.ids = creature_ids(range(shape.creatures))  # type: ignore[arg-type]
        self.inputs = {p: d.arity for p, d in engine.program.decls.items() if d.is_input}
        self.fact_preds: set[str] = set()

    def ctx(self, kind: str, group: str = "") -> int:
        c = _Ctx(len(self.contexts), kind, group)
        self.contexts.append(c)
        self.lines.append(f"j_verify_ctx({c.index}). ctx_kind({c.index},{_q(kind)}).")
        return c.index

    def emit(self, text: str) -> None:
        self.lines.append(text)

    # -- the board ---------------------------------------------------------------------------------------
    def board(self) -> int:
        c0 = self.ctx("board")
        scope, shape = self.scope, self.shape
        specs = _specs(scope)
        self.specs = specs
        base = self.engine.state_from_dict({"players": self.players}, path="<board>").facts
        self.fact_preds |= {f[0] for f in base}
        for f in sorted(base, key=repr):
            self.emit(f"h({c0},{_fact_term(f[0], [_q(v) for v in f[1:]])}).")
        owner = [p for p, k in enumerate(shape.split) for _ in range(k)]
        for i, oid in enumerate(self.ids):
            allowed = [s for s, spec in enumerate(specs) if spec.controller == owner[i]]
            self.emit(f"1 {{ spec({_q(oid)},S) : S = {allowed[0]}..{allowed[-1]} }} 1.")
            if i and owner[i] == owner[i - 1]:  # sorted specs: renamings of creatures give one board
                self.emit(f":- spec({_q(self.ids[i - 1])},S), spec({_q(oid)},T), T < S.")
            self.emit(f"slot_name({_q(oid)},{_q(f'Creature {i + 1}')}).")
            self.emit(f"slot({_q(oid)},{i}). ctrl({_q(oid)},{_q(self.players[owner[i]])}).")
        for s, spec in enumerate(specs):
            for k in spec.keywords:
                self.emit(f"spec_kw({s},{_q(scope.keywords[k].keyword)}).")
            self.emit(f"spec_kwn({s},{len(spec.keywords)}).")
            for f in _spec_facts(self.engine, scope, spec):
                if any(isinstance(v, str) and "c1" in v and v != "c1" for v in f[1:]):
                    self.unsupported.append(f"the fact {f[0]} the scenario loader makes with an id of its own")
                self.fact_preds.add(f[0])
                args = ["O" if v == "c1" else "N" if v == "Creature 1" else _q(v) for v in f[1:]]
                name = ", slot_name(O,N)" if "N" in args else ""
                self.emit(f"h({c0},{_fact_term(f[0], args)}) :- spec(O,{s}){name}.")
        self.emit("kw_on_board(K) :- spec(_,S), spec_kw(S,K).")
        self.emit("#minimize { N@2,O : spec(O,S), spec_kwn(S,N) }.")
        for board_field in self.board_fields:
            self.designation(board_field, c0, board=True)
        return c0

    # -- designations --------------------------------------------------------------------------------------
    def recorded_terms(self, pred: str, args: Sequence[str]) -> list[str]:
        out = [_fact_term(pred, args)]
        if pred in self.face.symmetric and len(args) == 2:
            out.append(_fact_term(pred, [args[1], args[0]]))
        for p, pos, implied in self.face.implies:
            if p == pred and pos < len(args):
                out.append(_fact_term(implied, [args[pos]]))
        return out

    def designation(self, field: Field, ctx: int, *, board: bool = False) -> None:
        """Choice rules for one field's value (the enumerator's candidates), as ``d_<field>`` atoms, and
        its recorded facts in ``ctx``."""
        name, shape = field.name, field.shape
        ref0, ref1 = field.ref(0).what, field.ref(1).what
        active = _q(self.players[0])
        d = f"d_{name}"
        if shape == "map" and ref1 in ("player", "target"):
            self.emit(f"{{ {d}(O,P) : player_id(P), P != {active} }} 1 :- ctrl(O,{active}).")
            self.emit(f"keyed({_q(name)},O) :- {d}(O,_).")
            body_args = ["O", "P"]
        elif shape == "groups":
            src = _q(ref0)
            self.emit(f"1 {{ {d}_lead(O,L) : keyed({src},L), slot(L,J), J <= I }} 1 :- keyed({src},O), slot(O,I).")
            self.emit(f":- {d}_lead(O,L), O != L, not {d}_lead(L,L).")
            self.emit(f"{d}_real(L) :- {d}_lead(O,L), O != L.")
            self.emit(f"{d}_rank(L,R) :- {d}_real(L), slot(L,J), R = #count{{ M : {d}_real(M), slot(M,K), K <= J }}.")
            self.emit(
                f"{d}_pos(O,P) :- {d}_lead(O,L), {d}_real(L), slot(O,I), "
                f"P = #count{{ X : {d}_lead(X,L), slot(X,K), K < I }}."
            )
            label = field.label or name
            for r in range(1, self.shape.creatures // 2 + 1):
                self.emit(f"{d}(O,{_q(f'{label}{r}')}) :- {d}_lead(O,L), {d}_rank(L,{r}).")
            self.emit(f"keyed({_q(name)},O) :- {d}(O,_).")
            body_args = ["O", "G"]
        elif shape in ("map_list", "map") and ref1 not in ("object", "player", "target"):
            src = _q(ref1)
            self.emit(f"{{ {d}(O,A) : keyed({src},A) }} 1 :- slot(O,_), ctrl(O,P), P != {active}, not keyed({src},O).")
            self.emit(f"keyed({_q(name)},O) :- {d}(O,_).")
            body_args = ["O", "A"]
        elif shape == "pairs":
            same = ", ctrl(A,P), ctrl(B,P)" if name in self.scope.same_controller else ""
            self.emit(f"{{ {d}(A,B) : slot(A,I), slot(B,J), I < J{same} }}.")
            self.emit(f":- slot(X,_), #count{{ A,B : {d}(A,B), X = A; A,B : {d}(A,B), X = B }} > 1.")
            body_args = ["A", "B"]
        else:
            self.unsupported.append(f"the designation field {name!r} (shape {shape})")
            return
        self.emit(f"declared({_q(name)}) :- {d}({','.join(body_args)}).")
        if board:
            self.emit(f'decl("board") :- declared({_q(name)}).')
        for term in self.recorded_terms(field.pred, body_args):
            self.emit(f"h({ctx},{term}) :- {d}({','.join(body_args)}).")
        self.emit(f"step_of({_q(name)}).")

    def arg_facts(self, field: Field, ctx: int, guard: str) -> None:
        """The action's ``act_*`` facts for the field's value (the runtime's ``_flatten``)."""
        d, key = f"d_{field.name}", _q(field.name)
        if field.shape == "map" and field.ref(1).what in ("player", "target"):
            self.emit(f"h({ctx},f_act_map({key},O,P)) :- {d}(O,P), {guard}.")
        elif field.shape == "groups":
            for r in range(1, self.shape.creatures // 2 + 1):
                self.emit(
                    f"h({ctx},f_act_list2({key},{r - 1},P,O)) :- {d}_lead(O,L), {d}_rank(L,{r}), {d}_pos(O,P), {guard}."
                )
        elif field.shape == "map_list":
            self.emit(f"h({ctx},f_act_map_list({key},O,0,A)) :- {d}(O,A), {guard}.")
        elif field.shape == "map":
            self.emit(f"h({ctx},f_act_map({key},O,A)) :- {d}(O,A), {guard}.")

    def defaults(self, ctx: int, kind: str, given: Sequence[str], guard: str) -> None:
        """The arguments the action leaves out, from the defaults the rules give (``action_param_default/3``,
        as the runtime's :func:`judgelog.action_args.default_facts`)."""
        if "action_param_default" not in self.engine.program.decls:
            return
        others = "".join(f", K != {_q(k)}" for k in given)
        self.emit(f"h({ctx},f_act_arg(K,V)) :- j_action_param_default({ctx},{_q(kind)},K,V){others}, {guard}.")

    # -- the runtime's steps -------------------------------------------------------------------------------
    def frame(self, src: int, dst: int, *, changes: bool) -> None:
        """``dst`` holds ``src``'s facts, less the transient ones (and less what effects at ``src`` remove)."""
        cond = f", not del({dst},F)" if changes else ""
        self.emit(f"h({dst},F) :- h({src},F), not transient(F){cond}.")
        if changes:
            self.emit(f"h({dst},F) :- add({dst},F).")

    def effects(self, at: int, dst: int, pred: str, guard: str) -> None:
        """The primitives of the effects ``pred`` (effect or state_based) derives in ``at``, into ``dst``."""
        e = f"j_{pred}({at},_,P,A,B,C)"
        self.emit(f"prim({at},{dst},P,A,B,C) :- {e}, {guard}.")
        self.emit(f"unsupported({at},P) :- prim({at},_,P,_,_,_), not supported_prim(P).")
        self.emit(f"effects_at({at}) :- prim({at},_,_,_,_,_).")
        if "amount_replacement" in self.engine.program.decls:  # 614.1a: an amount changed (judgelog.amounts)
            self.emit(
                f"unsupported({at},amount_replacement) :- prim({at},_,P,_,_,_), j_amount_replacement({at},_,P,_,_,_,_)."
            )

    def action(self, start: int, group: str, guard: str, arg_rules: Any) -> int:
        """Run one action from state ``start`` (the action's facts given by ``arg_rules(ctx)``) while
        ``guard`` holds; returns the context of the state after it (``start``'s facts when not run)."""
        prev = start
        g = _q(group)
        for step in (1, 2):
            sguard = guard if step == 1 else f"{guard}, more({g})"
            x = self.ctx("step", group)
            self.frame(prev, x, changes=False)
            self.emit(f"h({x},f_step({step})) :- {sguard}.")
            arg_rules(x)
            self.emit(f"h({x},f_recent_event(E)) :- h({x},f_event(E,_,_)), new_event({g},E).")
            self.emit(f"refused({g}) :- j_violation({x},_,_), {sguard}.")
            self.emit(f"unsupported({x},choice) :- j_choice({x},_,_), {sguard}.")
            self.emit(f"unsupported({x},triggered_ability) :- j_triggers({x},_,_,_), {sguard}.")
            self.emit(f"unsupported({x},follow_up) :- j_follow_up({x},_,_), {sguard}.")
            self.effects(x, x + 1, "effect", sguard)
            if step == 1:  # designations that last (standing/5) are applied as the action begins
                self.effects(x, x + 1, "standing", guard)
            if step == 1:
                self.emit(f"more({g}) :- j_step_exists({x},2), {guard}.")
            else:
                self.emit(f"unsupported({x},third_step) :- j_step_exists({x},3), {sguard}.")
            nxt = self.ctx("state", group)
            self.frame(x, nxt, changes=True)
            prev = nxt
        for r in range(SBA_ROUNDS):
            s = self.ctx("sba", group)
            self.frame(prev, s, changes=False)
            self.emit(f"h({s},f_state_check) :- {guard}.")
            self.emit(f"h({s},f_recent_event(E)) :- h({s},f_event(E,_,_)), new_event({_q(group)},E).")
            self.emit(f"unsupported({s},choice) :- j_choice({s},_,_), {guard}.")
            self.emit(f"unsupported({s},triggered_ability) :- j_triggers({s},_,_,_), {guard}.")
            self.effects(s, s + 1, "state_based", guard)
            self.effects(s, s + 1, "standing", guard)
            if r == SBA_ROUNDS - 1:
                n = s + 1
                self.emit(f"unsupported({s},state_based_actions_not_settled) :- event0({n},_,_,_), {guard}.")
                self.emit(f"unsupported({s},state_based_actions_not_settled) :- add({n},F), not h({s},F), {guard}.")
                self.emit(f"unsupported({s},state_based_actions_not_settled) :- del({n},F), h({s},F), {guard}.")
            nxt = self.ctx("state", group)
            self.frame(s, nxt, changes=True)
            prev = nxt
        self.emit(f"in_group({_q(group)},C) :- j_verify_ctx(C), C > {start}, C <= {prev}.")
        return prev

    def primitives(self) -> None:
        """What each supported primitive does (judgelog.effects), as add/del of facts and events."""
        for p in SUPPORTED_PRIMITIVES:
            self.emit(f"supported_prim({_q(p)}).")
        # every event is ev(Context, Kind, Object, Detail): one arity, so that clingo orders events as the runtime
        # numbers them, by the context they happen in (clingo orders terms of different arities by arity first)
        ev = "ev(D,{kind},O,{detail})"
        for pred, arity in sorted(self.inputs.items()):
            if arity not in (1, 2):
                continue
            args = ["A"] if arity == 1 else ["A", "B"]
            fact = _fact_term(pred, args)
            rec = self.face.record_events.get((pred, "record"))
            fgt = self.face.record_events.get((pred, "forget"))
            self.emit(f'rec_fact(C,D,{fact}) :- prim(C,D,"record",{_q(pred)},A,B){", B = B" if arity == 1 else ""}.')
            for term in self.recorded_terms(pred, args):
                if term.split("(")[0][2:] in self.inputs:
                    self.emit(f'add(D,{term}) :- prim(C,D,"record",{_q(pred)},A,B), not h(C,{fact}).')
            self.emit(f'del(D,{fact}) :- prim(C,D,"forget",{_q(pred)},A,B), h(C,{fact}).')
            if pred in self.face.symmetric and arity == 2:
                self.emit(f'del(D,f_{pred}(B,A)) :- prim(C,D,"forget",{_q(pred)},A,B), h(C,{fact}).')
            for change, declared in (("record", rec), ("forget", fgt)):
                guard = f", not h(C,{fact})" if change == "record" else f", h(C,{fact})"
                if change == "record" and pred in self.face.repeats:
                    guard = ""  # each record is an event, even of a fact that holds (record_event_repeats)
                if declared is not None and arity == 2:
                    kind, detail = declared
                    e = ev.format(kind=_q(kind), detail="B").replace("O", "A")
                    self.emit(
                        f'event(D,{e},{_q(kind)},A,{_q(detail)},B) :- prim(C,D,"{change}",{_q(pred)},A,B){guard}.'
                    )
                elif declared is not None:  # a designation of one object: its declared event, with no detail
                    kind = _q(declared[0])
                    self.emit(f'event0(D,ev(D,{kind},A,0),{kind},A) :- prim(C,D,"{change}",{_q(pred)},A,B){guard}.')
                else:
                    kind = "recorded" if change == "record" else "forgotten"
                    e = f"ev(D,{_q(kind)},{_q(pred)},{fact})"
                    self.emit(
                        f'event(D,{e},{_q(kind)},{_q(pred)},"fact",{fact}) :- '
                        f'prim(C,D,"{change}",{_q(pred)},A,B){guard}.'
                    )
        # tap
        self.emit('add(D,f_tapped(O)) :- prim(C,D,"tap",O,_,_), h(C,f_permanent(O)), not h(C,f_tapped(O)).')
        self.emit(
            'event0(D,ev(D,"tapped",O,0),"tapped",O) :- '
            'prim(C,D,"tap",O,_,_), h(C,f_permanent(O)), not h(C,f_tapped(O)).'
        )
        # leaving combat (remove_from_combat, gain_control)
        for pred in self.face.ends_with_combat:
            width = self.inputs.get(pred)
            if width is None:
                continue
            rest = ",".join(f"X{i}" for i in range(1, width))
            fact = f"f_{pred}(O{',' + rest if rest else ''})"
            self.emit(f"leaves(C,D,O,{fact}) :- leave(C,D,O), h(C,{fact}).")
        self.emit("del(D,F) :- leaves(_,D,_,F).")
        self.emit('leave(C,D,O) :- prim(C,D,"remove_from_combat",O,_,_).')
        self.emit(
            'event0(D,ev(D,"removed_from_combat",O,0),"removed_from_combat",O) :- '
            'prim(C,D,"remove_from_combat",O,_,_), leaves(C,D,O,_).'
        )
        # gain_control
        gc = 'prim(C,D,"gain_control",O,P,_), h(C,f_controller(O,Q)), Q != P, h(C,f_permanent(O)), h(C,f_player(P))'
        self.emit(f"del(D,f_controller(O,Q)) :- {gc}.")
        self.emit(f"add(D,f_controller(O,P)) :- {gc}.")
        self.emit(f"leave(C,D,O) :- {gc}.")
        self.emit(
            'event(D,ev(D,"removed_from_combat",O,0),"removed_from_combat",O,"because","control_change") :- '
            f"{gc}, leaves(C,D,O,_)."
        )
        self.emit(f'event(D,ev(D,"control_changed",O,0),"control_changed",O,"to",P) :- {gc}.')
        self.emit(f'event_detail(D,ev(D,"control_changed",O,0),"previous",Q) :- {gc}.')
        self.emit('unsupported(C,gain_control_refused) :- prim(C,_,"gain_control",O,P,_), not h(C,f_permanent(O)).')
        # remove_keyword
        rk = 'prim(C,D,"remove_keyword",O,K,_), h(C,f_permanent(O))'
        self.emit(f"del(D,f_granted_keyword(O,K)) :- {rk}.")
        self.emit(f"add(D,f_removed_keyword(O,K)) :- {rk}.")
        self.emit(f'event(D,ev(D,"ability_lost",O,K),"ability_lost",O,"keyword",K) :- {rk}.')
        # signal: an event of its kind, and nothing else
        self.emit('event0(D,ev(D,K,X,0),K,X) :- prim(C,D,"signal",K,X,_).')
        # events as facts
        self.emit("event0(D,E,K,O) :- event(D,E,K,O,_,_).")
        self.emit("add(D,f_event(E,K,O)) :- event0(D,E,K,O).")
        self.emit("add(D,f_event_detail(E,N,V)) :- event(D,E,_,_,N,V).")
        self.emit("add(D,f_event_detail(E,N,V)) :- event_detail(D,E,N,V).")
        self.emit('add(D,f_event_cause(E,"verify")) :- event0(D,E,_,_).')
        self.emit("new_event(G,E) :- event0(D,E,_,_), in_group(G,D).")
        for t in TRANSIENT_PREDS:
            if t in self.inputs:
                xs = ",".join(f"X{i}" for i in range(self.inputs[t]))
                term = f"f_{t}({xs})" if xs else f"f_{t}"
                self.emit(f"transient({term}) :- h(_,{term}).")


def compile_search(engine: Engine, scope: Scope, shape: Shape, props: dict[str, Property]) -> Compiled:
    from .verify import _declaring_actions

    groups, board_fields = _declaring_actions(engine, scope)
    b = _Builder(engine, scope, shape, props, groups, board_fields)
    b.emit("player_id(P) :- h(0,f_player(P)).")
    state = b.board()
    if "board_problem" in engine.program.decls:  # boards the rules would not allow (S201) are no boards
        b.emit(f":- j_board_problem({state},_,_).")
    b.emit("alive(0).")
    b.emit("#minimize { 1@1,G : decl(G) }.")
    stage = 0
    for kind, fields in groups:
        stage += 1
        g = _q(kind)
        names = [f.name for f in fields]
        prop = b.ctx("proposal", kind)
        b.frame(state, prop, changes=False)
        for f in fields:
            b.designation(f, prop)
        for n in names:
            b.emit(f"decl({g}) :- declared({_q(n)}).")
        b.emit(f"check({prop},declaration) :- decl({g}), alive({stage - 1}).")
        guard = f"decl({g})"

        def args(x: int, fields: list[Field] = fields, guard: str = guard, kind: str = kind) -> None:
            b.emit(f"h({x},f_action({_q(kind)})) :- {guard}.")
            for f in fields:
                b.arg_facts(f, x, guard)
            b.defaults(x, kind, [f.name for f in fields], guard)

        after = b.action(state, kind, guard, args)
        b.emit(f"alive({stage}) :- alive({stage - 1}), not refused({g}).")
        # a designation of a later action needs this one accepted
        b.emit(f":- decl({g}), not alive({stage - 1}).")
        state = after
    final = state
    b.emit(f"check({final},board) :- alive({stage}).")
    # the follow-up action: one of the templates, or none
    fills = {"$creature": "slot(V{i},_)", "$player": "player_id(V{i})", "$keyword": "kw_on_board(V{i})"}
    for t, template in enumerate(scope.follow_up):
        items = dict(template)
        conds, args_ = [], []
        for i, (key, value) in enumerate(sorted(items.items())):
            if key == "do":
                continue
            if isinstance(value, (dict, list)):  # an object the action brings (enter, create_token), a list
                b.unsupported.append(f"the follow-up action {items['do']}'s argument {key} (a mapping or a list)")
            if isinstance(value, str) and value in fills:
                conds.append(fills[value].format(i=i))
                args_.append(f"V{i}")
            else:
                args_.append(_q(value))
        body = ", ".join(conds) or "#true"
        b.emit(f"fu_cand(fu({t},{','.join(args_) or '0'})) :- {body}.")
    if scope.follow_up:
        b.emit(f"{{ follow(F) : fu_cand(F) }} 1 :- alive({stage}).")
        b.emit("#minimize { 1@1,F : follow(F) }.")

        def fargs(x: int) -> None:
            for t, template in enumerate(scope.follow_up):
                items = dict(template)
                keys = [k for k in sorted(items) if k != "do"]
                vs = [f"V{i}" for i in range(len(keys))]
                term = f"fu({t},{','.join(vs) or '0'})"
                b.emit(f"h({x},f_action({_q(items['do'])})) :- follow({term}).")
                for k, v in zip(keys, vs):
                    b.emit(f"h({x},f_act_arg({_q(k)},{v})) :- follow({term}).")
                b.defaults(x, str(items["do"]), keys, f"follow({term})")

        after = b.action(final, "follow_up", "follow(_)", fargs)
        b.emit(f'check({after},board) :- follow(_), alive({stage}), not refused("follow_up").')
    b.primitives()
    # properties
    for name, p in sorted(props.items()):
        b.emit(f"pstage({_q(name)},{p.stage}).")
        if p.functional:
            pred = name.split(":", 1)[1]
            arity = engine.program.decls[pred].arity
            xs = [f"X{i}" if i in p.functional else f"Y{i}" for i in range(arity)]
            zs = [f"X{i}" if i in p.functional else f"Z{i}" for i in range(arity)]
            for i in range(arity):
                if i in p.functional:
                    continue
                b.emit(
                    f"viol(C,{_q(name)}) :- check(C,board), j_{pred}(C,{','.join(xs)}), j_{pred}(C,{','.join(zs)}), "
                    f"Y{i} != Z{i}."
                )
    b.emit("viol(C,P) :- check(C,S), j_property_violation(C,P,_,_), pstage(P,S).")
    b.emit("vp(P) :- viol(_,P).")
    b.emit("vat(P,C) :- viol(C,P).")
    b.emit("new_viol :- vp(P), not found(P).")
    for name in sorted(props):
        b.emit(f"#external found({_q(name)}).")
    b.emit("#external want_unsupported.")
    b.emit("unsupported_any :- unsupported(C,_), in_group(_,C).")
    b.emit(":- want_unsupported, not unsupported_any.")
    b.emit(":- not want_unsupported, not new_viol.")
    b.emit(":- not want_unsupported, unsupported_any.")
    # the library and the properties, once per context
    program = engine.program
    wanted = _needed_preds(program, props)
    check_rule_ints((r for r in program.rules if r.head.pred in wanted), CLINGO_INT_BOUND)
    for index, rule in enumerate(program.rules):
        if rule.head.pred in wanted:
            b.emit(compile_rule(_with_ctx(rule), index))
    for pred, decl in sorted(program.decls.items()):
        if decl.is_input or pred in b.fact_preds:
            cols = ",".join(f"X{i}" for i in range(decl.arity))
            term = f"f_{pred}({cols})" if cols else f"f_{pred}"
            b.emit(f"j_{pred}(C{',' + cols if cols else ''}) :- h(C,{term}).")
    b.emit("#show spec/2. #show follow/1. #show vat/2. #show unsupported/2.")
    for _kind, fields in list(groups) + [("", board_fields)]:
        for f in fields:
            b.emit(f"#show d_{f.name}/2.")
    return Compiled("\n".join(x for x in b.lines if x), b.contexts, _specs(scope), b.unsupported)
