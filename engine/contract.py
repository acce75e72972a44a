"""The Python side of the interface contract, checked when an :class:`~judgelog.Engine` is made.

Every predicate the engine's Python reads or writes must be declared by the loaded library with the
arity and the argument kinds the engine uses (input predicates where the engine writes facts, integers
where it writes or reads numbers), and every effect a rule asks for must be a declared primitive. A
library that lacks one is refused with an error naming the predicate and where the engine needs it, rather
than failing later in the middle of an action.

>>> from judgelog.library import load_program
>>> contract_problems(load_program(()).program)
[]
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .analysis import INT_TYPES, suggest
from .ast import Atom, Const, Rule, Span
from .codes import I001, I002, I003, I004, I005, I006, I007, I009, I010, I011
from .errors import Diagnostic
from .program import Program
from .words import ACTION_ARGUMENTS, COUNTER_ALIASES, EFFECT_PREDICATES, EVENT_WORDS, RECORDED_ARITIES

__all__ = [
    "ENGINE_NEEDS",
    "EFFECT_PREDICATES",
    "contract_problems",
    "designation_problems",
    "keyword_typo_problems",
    "property_problems",
    "trigger_problems",
    "result_problems",
]

_SCENARIO = "the scenario loader and writer (engine/scenario.py, engine/writer.py)"
_EFFECTS = "the effect primitives (engine/effects.py)"
_RUNTIME = "the step machine (engine/runtime.py)"
_FACE = "the interface reader (engine/interface.py)"
_VIEW = "the combat graph (engine/view.py)"
_SPACES = "the choice enumerator (engine/choices.py)"

_SIGNATURE = re.compile(r"([a-z][a-z0-9_]*)\(([^()]*)\)")


def _needs(*, inputs: dict[str, str], read: dict[str, str]) -> dict[str, tuple[int, tuple[int, ...], bool, str]]:
    """predicate -> (arity, the positions that hold integers, whether it must be an input predicate, where the
    engine needs it), from the signatures (``name(_, int)``) of the input predicates and of the others by where
    the engine needs them.

    >>> _needs(inputs={"the runtime": "life(_, int) state_check()"}, read={"the view": "view_node(_, _)"})["life"]
    (2, (1,), True, 'the runtime')
    """
    needs: dict[str, tuple[int, tuple[int, ...], bool, str]] = {}
    for is_input, groups in ((True, inputs), (False, read)):
        for where, text in groups.items():
            if _SIGNATURE.sub("", text).strip():
                raise ValueError(f"not a signature: {_SIGNATURE.sub('', text).split()[0]!r}")
            for pred, args in _SIGNATURE.findall(text):
                kinds = [kind.strip() for kind in args.split(",")] if args.strip() else []
                if pred in needs or not set(kinds) <= {"_", "int"}:
                    raise ValueError(f"{pred}: listed twice, or a kind other than _ and int")
                ints = tuple(i for i, kind in enumerate(kinds) if kind == "int")
                needs[pred] = (len(kinds), ints, is_input, where)
    return needs


# every predicate the engine's Python reads or writes, by the part of the engine that needs it: the input
# predicates, whose facts it writes, and the others, which it only reads; each written as its signature, one
# kind per argument: int where the engine writes or reads a number there, _ where it takes any value
ENGINE_NEEDS: dict[str, tuple[int, tuple[int, ...], bool, str]] = _needs(
    inputs={
        _SCENARIO: """
            player(_) turn_order(_, int) active_player(_) life(_, int) permanent(_) name(_, _) card_type(_, _)
            subtype(_, _) supertype(_, _) color(_, _) base_power(_, int) base_toughness(_, int) printed_keyword(_, _)
            printed_keyword_param(_, _, _, _) printed_keyword_instance(_, _, _)
            printed_keyword_instance_param(_, _, _, _, _) controller(_, _) owner(_, _) token(_) tapped(_)
            counter(_, _, int) damage_marked(_, int) on_stack(_, _, _) stack_position(_, int) ability_controller(_, _)
            ability_arg(_, _, _)
        """,
        _EFFECTS: """
            added_subtype(_, _) granted_keyword(_, _) removed_keyword(_, _) lost_game(_) entered_this_turn(_)
            created(_, _) pending_object(_) token_in_zone(_, _) card_in_zone(_, _) card_value(_, _, _, _, _, _)
            last_known(_, _, _, _) continuous_effect(_, _, _, _) effect_timestamp(_, int) effect_value(_, _, _)
        """,
        _RUNTIME: """
            event(int, _, _) event_detail(int, _, _) event_cause(int, _) recent_event(int) action(_) act_arg(_, _)
            act_list(_, int, _) act_map(_, _, _) act_map_list(_, _, int, _) act_map2(_, _, _, _)
            act_list2(_, int, int, _) step(int) resolving(_) chosen(_, _) chose_nothing(_) state_check()
            trigger_waiting(_, _, _)
        """,
    },
    read={
        _SCENARIO: "board_problem(_, _)",
        _RUNTIME: """
            last_known_info(_, _, _, _) action_known(_) action_param(_, _) action_param_required(_, _)
            action_param_default(_, _, _) action_param_type(_, _, _) action_param_value(_, _, _) refusal_options(_, _)
            refusal_not_about_the_choice(_) refusal_alternative(_, _) refusal_alternatives(_)
            action_param_key_type(_, _, _) step_exists(int) follow_up(_, _) step_cannot_end(_) violation(_, _)
            violation_info(_, _, _) violation_value(_, _, _, _) follow_up_stopped(_) follow_up_before_priority()
            choice(_, _) choice_mode(_, _) choice_max(_, int) choice_cr(_, _) choice_unavailable(_, _, _, _)
            choice_text(_, _) effect(int, _, _, _, _) state_based(int, _, _, _, _) standing(int, _, _, _, _)
            event_result(int, _, _, _, _) token_spec(_, _, _) token_spec_param(_, _, _, _) triggers(_, _, _)
            activates(_, _, _) cannot_undergo(_, _) token_name_word(_, int, _) token_name_suffix(_, _)
            trigger_arg(_, _, _, _, _) top_of_stack(_) apnap_rank(_, int) ability_source_controller(_, _)
            leaves_stack(_) keyword_instance(_, _, _) keyword_instance_param(_, _, _, _, _) effect_spec(_, _, _)
            leaves_battlefield_instead(_, _, _, _) card_moves_instead(_, _, _, _) copy_exception(_, _, _)
            does_not_resolve(_)
        """,
        _FACE: """
            trigger_looks_back(_) keyword(_) keyword_param_form(_, _, _) keyword_param_prefix(_, _, _)
            keyword_instances(_, _) card_type_word(_) color_word(_) scenario_field(_, _, _, _)
            scenario_field_ref(_, int, _, _) scenario_group_label(_, _) record_symmetric(_) record_implies(_, int, _)
            record_event(_, _, _, _) record_event_repeats(_) primitive(_, _, _, _) ends_with_combat(_)
            event_result_kind(_) internal(_) extension_point(_) card_not_modelled(_, _)
        """,
        _VIEW: """
            view_node(_, _) view_node_look(_, _, _) view_role(_, _) view_column(_, int) view_column_title(int, _)
            view_attr(_, _, _) view_count(_, _, _, int) view_flag_name(_) view_flag(_, _) view_shown(_, int, _)
            view_edge(_, _, _) view_edge_text(_, _) view_variant(_, _) view_edge_variant(_, _, _, _)
            view_edge_proved(_) view_undirected(_) view_route(_, _) view_look(_, _, _, _) view_label_cr(_)
            view_legend(_, int, _) view_group(_, _) view_member(_, _) view_caption(_, _)
        """,
        _SPACES: """
            choice_space(_, _, _) choice_space_element(_, _) choice_space_option(_, _, _)
            choice_space_min_part(_, int) choice_space_size(_, int, int) choice_space_probe(_, _, _)
            choice_space_refused(_, _) choice_space_dead_end(_, _) choice_space_action(_, _)
            choice_space_field(_, _, _) choice_space_noun(_, _, _) choice_space_text(_, _, _)
        """,
    },
)


# the runtime asks triggers/3 after every step and every round of state-based actions, with recent_event
# holding for the events just applied (engine/runtime.py)
RECENT_EVENT = "recent_event"


# more undeclared predicates than this: the library's interface is missing (one error, not one per predicate)
_MANY_MISSING = 5


def contract_problems(program: Program) -> list[Diagnostic]:
    """Every way the program fails the engine's contract (empty when it keeps it)."""
    out: list[Diagnostic] = []
    nowhere = Span("<library>", 1, 1)
    missing = [f"{p}/{need[0]}" for p, need in sorted(ENGINE_NEEDS.items()) if program.decl(p) is None]
    if len(missing) > _MANY_MISSING:  # no core at all (--no-library), or most of it: say that, once
        needs = f"the {len(ENGINE_NEEDS)} predicates the engine reads and writes (rules/core/)"
        what = (
            f"declare none of {needs}"
            if len(missing) == len(ENGINE_NEEDS)
            else f"do not declare {len(missing)} of {needs}: {', '.join(missing[:3])} and {len(missing) - 3} more"
        )
        out.append(
            Diagnostic(
                I001,
                f"the library's interface is missing: the loaded rules {what}",
                nowhere,
                hint="load the library's core, rules/core/ (state.dl, runtime.dl, interface.dl): leave out "
                "--no-library, or give a folder laid out like rules/ with --library",
            )
        )
    for pred, (arity, ints, is_input, where) in sorted(ENGINE_NEEDS.items()):
        decl = program.decl(pred)
        if decl is None and len(missing) > _MANY_MISSING:
            continue
        if decl is None:
            near = suggest(pred, program.decls)
            out.append(
                Diagnostic(
                    I001,
                    f"the loaded rules do not declare {pred}/{arity}, which {where} needs",
                    nowhere,
                    hint=(f"did you mean {near!r}? " if near else "")
                    + "load rules/core/ (state.dl, runtime.dl, interface.dl) or declare it",
                )
            )
            continue
        span = decl.span
        if decl.arity != arity:
            out.append(
                Diagnostic(I001, f"{pred} is declared with {decl.arity} argument(s); {where} uses {arity}", span)
            )
            continue
        if is_input and not decl.is_input:
            out.append(
                Diagnostic(
                    I001,
                    f"{pred} must be an input predicate: {where} writes its facts",
                    span,
                    hint="add `input` at the end of its .decl",
                )
            )
        for pos in ints:
            if decl.params[pos].type not in INT_TYPES:
                out.append(
                    Diagnostic(
                        I001,
                        f"argument {decl.params[pos].name!r} of {pred} must be an int: {where} uses a number there",
                        span,
                    )
                )
    primitives = {
        rule.head.args[0].value
        for rule in program.rules
        if rule.head.pred == "primitive" and not rule.body and rule.head.args and isinstance(rule.head.args[0], Const)
    }
    for rule in program.rules:
        head = rule.head
        if head.pred in EFFECT_PREDICATES and len(head.args) > 1 and isinstance(head.args[1], Const):
            prim = head.args[1].value
            if prim not in primitives:
                near = suggest(str(prim), map(str, primitives))
                out.append(
                    Diagnostic(
                        I002,
                        f"{head.pred} asks for the effect primitive {prim!r}, which the interface does not declare",
                        head.args[1].span if head.args[1].span else rule.span,
                        hint=(f"did you mean {near!r}? " if near else "")
                        + "primitives: "
                        + ", ".join(sorted(map(str, primitives))),
                    )
                )
    return out


def designation_problems(program: Program) -> list[Diagnostic]:
    """Errors for an effect whose primitive names a predicate (the interface's ``primitive(P, predicate, A,
    B)``: record, forget, ...) that is not an input predicate of the arity it asserts or retracts: the runtime
    would stop the action only when the rule fires. A primitive that takes the fact's arguments (A is not
    ``none``) asserts a fact of one or two (RECORDED_ARITIES); one that doesn't (forget_all) any."""
    takes = {
        str(row[0]): str(row[2]) != "none"
        for row in program.ground_facts("primitive")
        if len(row) == 4 and str(row[1]) == "predicate"
    }
    out: list[Diagnostic] = []
    for rule in program.rules:
        head = rule.head
        if head.pred not in EFFECT_PREDICATES or len(head.args) < 3:
            continue
        prim, pred = head.args[1], head.args[2]
        if isinstance(prim, Const) and str(prim.value) in takes and isinstance(pred, Const):
            arities = RECORDED_ARITIES if takes[str(prim.value)] else None
            problem = _designation_problem(program, str(prim.value), str(pred.value), arities)
            if problem is not None:
                out.append(Diagnostic(I009, problem[0], pred.span or rule.span, hint=problem[1]))
    return out


# the predicates that name a property of judgelog verify by their first argument (rules/core/interface.dl)
PROPERTY_NAMING = ("property_violation", "property_cr", "property_stage")


def property_problems(program: Program) -> list[Diagnostic]:
    """Errors for a rule that names a property of ``judgelog verify`` (its violations, CR numbers or stage)
    that no ``property/2`` fact declares: verify checks only the declared properties, so a misspelt name is
    never checked."""
    if "property" not in program.decls:
        return []
    declared = {str(row[0]) for row in program.ground_facts("property") if row}
    out: list[Diagnostic] = []
    for rule in program.rules:
        head = rule.head
        if head.pred not in PROPERTY_NAMING or not head.args or not isinstance(head.args[0], Const):
            continue
        name = str(head.args[0].value)
        if name not in declared:
            near = suggest(name, declared)
            out.append(
                Diagnostic(
                    I010,
                    f"{head.pred} names the property {name!r}, which no property/2 declares: verify never checks it",
                    head.args[0].span or rule.span,
                    hint=(f"did you mean {near!r}? " if near else "")
                    + f'declare it: property({name}, "what holds, in words").',
                )
            )
    return out


def _designation_problem(
    program: Program, prim: str, pred: str, arities: tuple[int, ...] | None
) -> tuple[str, str] | None:
    """What is wrong with ``pred`` as the predicate ``prim`` records or forgets (an undeclared one, a derived
    one, one of another arity than ``arities``), with a hint; None if nothing."""
    need = "an input predicate" + (f" of arity {' or '.join(map(str, arities))}" if arities else "")
    decl = program.decls.get(pred)
    if decl is None:
        inputs = [p for p, d in program.decls.items() if d.is_input and (arities is None or d.arity in arities)]
        near = suggest(pred, inputs)
        return (
            f"{prim} names {pred!r}, which no .decl declares: it needs {need}",
            (f"did you mean {near!r}? " if near else "") + f'declare it: .decl {pred}(o: object, x: atom) "..." input',
        )
    if not decl.is_input:
        return f"{prim} names {pred}, a derived predicate: it needs {need}", "add `input` at the end of its .decl"
    if arities is not None and decl.arity not in arities:
        return f"{prim} names {pred}, of arity {decl.arity}: it needs {need}", "record a fact of one or two arguments"
    return None


def trigger_problems(program: Program) -> list[Diagnostic]:
    """Warnings for trigger rules that read no event just applied: the runtime asks ``triggers/3`` after
    every step of every action, so a rule whose body doesn't depend on ``recent_event`` (directly or through
    a predicate such as ``left_battlefield_to``) makes the ability trigger again after every later action.
    (``trigger_arg/5`` is asked only of an ability that triggered: it may read the state alone.)"""
    out: list[Diagnostic] = []
    for rule in program.rules:
        if rule.head.pred != "triggers" or not rule.body:
            continue
        reads = {lit.pred for lit in rule.body if isinstance(lit, Atom)}
        if RECENT_EVENT in program.dependencies(reads):
            continue
        out.append(
            Diagnostic(
                I003,
                f"{rule.head.pred} rule {rule.name or '(unnamed)'} reads no event just applied: "
                "it would trigger again after every action",
                rule.span,
                severity="warning",
                hint="read recent_event(N) with the event, e.g. recent_event(N), event(N, enters, X) "
                "(a state, rather than an event, is a state_based/5 rule)",
            )
        )
    return out


def _event_kinds(rules: list) -> set[str]:
    """The event kinds ``rules`` name in ``event(N, Kind, X)`` atoms of their bodies."""
    kinds: set[str] = set()
    for rule in rules:
        for lit in rule.body:
            if isinstance(lit, Atom) and lit.pred == "event" and len(lit.args) == 3:
                kind = lit.args[1]
                if isinstance(kind, Const) and isinstance(kind.value, str):
                    kinds.add(kind.value)
    return kinds


def result_problems(program: Program) -> list[Diagnostic]:
    """Warnings for ``event_result`` rules that read only events of kinds no ``event_result_kind`` fact
    declares: the runtime asks ``event_result/5`` only after an event of a declared kind, so such a rule never
    fires (an ``enters`` result for the counters a permanent enters with needs ``event_result_kind(enters).``)."""
    declared = {row[0] for row in program.ground_facts("event_result_kind") if row}
    out: list[Diagnostic] = []
    for rule in program.rules:
        if rule.head.pred != "event_result" or not rule.body:
            continue
        reads = {lit.pred for lit in rule.body if isinstance(lit, Atom)}
        below = [r for pred in program.dependencies(reads) for r in program.rules_by_head.get(pred, ())]
        kinds = _event_kinds([rule, *below])
        if not kinds or kinds & declared:
            continue
        shown = ", ".join(sorted(kinds))
        out.append(
            Diagnostic(
                I004,
                f"event_result rule {rule.name or '(unnamed)'} reads events of kind {shown}, which no "
                "event_result_kind fact declares: it never fires",
                rule.span,
                severity="warning",
                hint=f"declare the kind in the rule's file: event_result_kind({sorted(kinds)[0]}).",
            )
        )
    return out


def made_event_kinds(program: Program) -> frozenset[str]:
    """The event kinds the game can record with these rules: the engine's own (its primitives' and the
    runtime's: judgelog.effects.EVENT_WORDS), those ``record_event(Pred, Change, Kind, Key)`` facts give a
    recorded designation, and those rules ask for with the ``signal`` primitive."""
    kinds = set(EVENT_WORDS)
    kinds.update(str(row[2]) for row in program.ground_facts("record_event") if len(row) > 2)
    for rule in program.rules:
        head = rule.head
        if (
            head.pred in EFFECT_PREDICATES
            and len(head.args) > 2
            and isinstance(head.args[1], Const)
            and head.args[1].value == "signal"
            and isinstance(head.args[2], Const)
        ):
            kinds.add(str(head.args[2].value))
    return frozenset(kinds)


def event_kind_problems(program: Program) -> list[Diagnostic]:
    """Warnings for rules that read events of a kind nothing makes (``event(N, attack, A)`` for ``attacks``):
    such a body never holds, and a trigger written on it never triggers."""
    made = made_event_kinds(program)
    out: list[Diagnostic] = []
    for rule in program.rules:
        for lit in rule.body:
            atom = getattr(lit, "atom", lit)
            if not (isinstance(atom, Atom) and atom.pred == "event" and len(atom.args) == 3):
                continue
            kind = atom.args[1]
            if not isinstance(kind, Const) or not isinstance(kind.value, str) or kind.value in made:
                continue
            near = suggest(kind.value, sorted(made))
            out.append(
                Diagnostic(
                    I005,
                    f"rule {rule.name or '(unnamed)'} reads events of kind {kind.value!r}, which neither the engine, a "
                    "record_event fact nor a signal effect makes: it never sees one",
                    kind.span if kind.span else rule.span,
                    severity="warning",
                    hint=(f"did you mean {near!r}? " if near else "")
                    + "the kinds are listed in docs/authoring.md (Events); a rule file makes a kind of its own with "
                    "effect(I, signal, Kind, Subject, none)",
                )
            )
    return out


def keyword_problems(program: Program, *, library_files: Iterable[str] = ()) -> list[Diagnostic]:
    """Warnings for a keyword that two rule files play out (``triggers(A, flanking, B)`` in the library's
    rules/keywords/flanking.dl and in a designer's own flanking.dl): the rules of both apply, so its abilities
    trigger and do what they do twice (each flanking blocker gets -2/-2), and nothing else says so. A file
    that only repeats the keyword's declarations (``keyword(K).``, its parameter's form) is no problem: the
    same fact stated twice is one fact. The warning is given in each file but the library's (``library_files``,
    as rule spans name them)."""
    keywords = {str(row[0]) for row in program.ground_facts("keyword") if row}
    acting = ("triggers", *EFFECT_PREDICATES)
    played: dict[str, dict[str, Span]] = {}  # keyword -> file -> its first rule that plays the keyword out
    for rule in program.rules:
        if not rule.body or rule.head.pred not in acting:
            continue
        named = {a.value for a in rule.head.args if isinstance(a, Const)}
        for lit in rule.body:
            if isinstance(lit, Atom) and lit.pred in ("has_keyword", "keyword_param", "on_stack"):
                named.update(a.value for a in lit.args if isinstance(a, Const))
        for name in keywords & {str(v) for v in named if isinstance(v, str)}:
            played.setdefault(name, {}).setdefault(rule.span.file, rule.span)
    library = set(library_files)
    out: list[Diagnostic] = []
    for name, files in sorted(played.items()):
        spans = list(files.values())
        if len(spans) < 2:
            continue
        for span in spans:  # told in each file of the user's (the library's file is not what is to change)
            if span.file in library:
                continue
            other = next(s for s in spans if s is not span)
            out.append(
                Diagnostic(
                    I006,
                    f"the keyword {name} is played out by {other.file}:{other.line} too: the rules of both "
                    "files apply (each of its abilities triggers or acts twice)",
                    span,
                    severity="warning",
                    hint="to write your own version of a keyword the library has, give it another name, or use "
                    "--library with a copy of the library without its file (docs/authoring.md)",
                )
            )
    return out


def keyword_typo_problems(program: Program, *, library_files: Iterable[str] = ()) -> list[Diagnostic]:
    """Warnings for a keyword constant a rule body tests (``has_keyword(X, hast)``) that no ``keyword(K).`` fact
    declares and no rule head names, and that is close to a keyword that is known: a keyword the rules test
    counts as declared (rules/core/interface.dl), so a misspelt one is a new keyword that no card has, and the
    rule silently never holds. Known: the declared keywords, those rule heads name, those the library's rule
    bodies alone name (its ``haste``), and those other rule bodies alone name in more rules than this one. Told
    in the files but the library's (``library_files``, as rule spans name them): a keyword a user declares
    does not make the library's own words typos."""
    declared = {str(row[0]) for row in program.ground_facts("keyword") if row}
    in_heads: set[str] = set()
    in_bodies: dict[str, list[tuple[Rule, Const]]] = {}
    for rule in program.rules:
        in_heads.update(str(arg.value) for arg in program.keyword_args((rule.head,)))
        for arg in program.keyword_args(rule.body):
            in_bodies.setdefault(str(arg.value), []).append((rule, arg))
    known = declared | in_heads
    library = set(library_files)
    known |= {k for k, uses in in_bodies.items() if any(r.span.file in library for r, _ in uses)}
    out: list[Diagnostic] = []
    for name, uses in sorted(in_bodies.items()):
        mine = [(r, a) for r, a in uses if r.span.file not in library]
        if name in known or not mine:
            continue
        rules = {id(r) for r, _ in uses}
        busier = {k for k, u in in_bodies.items() if k not in known and len({id(r) for r, _ in u}) > len(rules)}
        near = suggest(name, (known | busier) - {name}, cutoff=0.8)
        if near is None:
            continue
        for rule, arg in mine:
            out.append(
                Diagnostic(
                    I011,
                    f"rule {rule.name or '(unnamed)'} tests the keyword {name!r}, which no keyword/1 fact declares "
                    "and no rule head names: a keyword no card has, so the literal never holds",
                    arg.span or rule.span,
                    severity="warning",
                    hint=f"did you mean {near!r}? a new keyword is declared by its rule file: keyword({name}).",
                )
            )
    return out


def counter_word_problems(program: Program) -> list[Diagnostic]:
    """Warnings for a counter kind written as printed (``"+1/+1"``) in a rule body: the state names it as the
    rules do (``p1p1``: a scenario's ``+1/+1`` and an effect's are read so), so the atom never holds. The
    action's arguments (``act_arg``, ``act_list``, ...) are as the scenario wrote them: a rule may read the
    printed form there."""
    printed = {k: v for k, v in COUNTER_ALIASES.items() if k != v}
    out: list[Diagnostic] = []
    for rule in program.rules:
        for lit in rule.body:
            atom = getattr(lit, "atom", lit)
            if not isinstance(atom, Atom) or atom.pred in ACTION_ARGUMENTS:
                continue
            for arg in atom.args:
                if isinstance(arg, Const) and arg.value in printed:
                    out.append(
                        Diagnostic(
                            I007,
                            f"rule {rule.name or '(unnamed)'} names the counter kind {arg.value!r} as printed: the "
                            f"state calls it {printed[arg.value]}, so {atom.pred}(...) never holds with it",
                            arg.span if arg.span else rule.span,
                            severity="warning",
                            hint=f"write {printed[arg.value]}",
                        )
                    )
    return out
