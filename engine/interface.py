"""The rule-declared interface: what the loaded rules tell the engine about the game's vocabulary.

Everything here is read from facts of the predicates declared in ``rules/core/interface.dl`` (keywords
with their parameter grammars and instance semantics, card types and colors, the scenario fields that
list designations and the facts they give, how recording a fact propagates, the effect primitives).
Nothing here names a keyword or a keyword's predicate: a library without a rule file simply lacks what
that file declares.

>>> from judgelog import Engine
>>> face = Engine().interface
>>> face.keyword_forms["fabricate"], face.instances("fabricate")
((('number', 'n'),), 'each')
>>> face.field("blockers").pred
'blocking'
>>> "fabricate" in face.abilities.kinds, dict(face.abilities.needs["fabricate"])["n"]
(True, 'fabricate.resolving')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from .ast import Atom, Comparison, Const, Negation, Rule, Span, Var, literal_vars
from .codes import I008
from .errors import Diagnostic
from .program import Program
from .words import KEYWORD_TYPE

__all__ = [
    "Abilities",
    "Interface",
    "Field",
    "FieldRef",
    "interface_of",
    "keyword_constants",
    "KEYWORD_TYPE",
]


@dataclass(frozen=True)
class FieldRef:
    pos: int
    what: str  # object | player | target | the name of another field
    noun: str


@dataclass(frozen=True)
class Field:
    """A scenario field listing designations: ``section`` (top or combat), its shape and predicate."""

    section: str
    name: str
    shape: str  # map | map_list | groups | pairs
    pred: str
    refs: tuple[FieldRef, ...] = ()
    label: str | None = None  # groups: label prefix

    def ref(self, pos: int) -> FieldRef:
        for r in self.refs:
            if r.pos == pos:
                return r
        return FieldRef(pos, "object", "object")


@dataclass(frozen=True)
class Interface:
    keywords: frozenset[str]
    keyword_forms: dict[str, tuple[tuple[str, str], ...]]  # keyword -> ((form, key), ...)
    keyword_prefixes: dict[str, tuple[tuple[str, str], ...]]  # keyword -> ((prefix, key), ...)
    keyword_how: dict[str, str]
    card_types: tuple[str, ...]
    colors: tuple[str, ...]
    fields: tuple[Field, ...]
    symmetric: frozenset[str]
    implies: tuple[tuple[str, int, str], ...]  # (pred, pos, implied pred)
    record_events: dict[tuple[str, str], tuple[str, str]]  # (pred, record|forget) -> (event kind, detail)
    primitives: dict[str, tuple[str, str, str]]
    ends_with_combat: tuple[str, ...] = ()
    result_kinds: frozenset[str] = frozenset()  # event kinds with immediate results (event_result_kind)
    looks_back: frozenset[str] = frozenset()  # event kinds whose triggers see the state before (603.10a)
    preventable: frozenset[str] = frozenset()  # primitives a cannot_undergo(P, O) rule names ("*": P a variable)
    amount_replaced: frozenset[str] = frozenset()  # primitives an amount_replacement rule names ("*": a variable)
    # the event kinds a triggers/3 rule can read as recent (None: any kind): a batch of events of none of
    # these kinds can trigger nothing, so the runtime does not ask (trigger_event_kinds)
    trigger_kinds: frozenset[str] | None = None
    # the kinds of triggered ability whose target is chosen as it goes on the stack (targets_on_stack/1)
    stack_targeted: frozenset[str] = frozenset()
    divided: frozenset[str] = frozenset()  # those that divide an amount among their targets (divided_target/2)
    outlives: frozenset[str] = frozenset()  # records kept when their object leaves the battlefield (outlives_object)
    # (characteristic, carrier): off the battlefield, a card's characteristic is the carrier's (kept_off_battlefield_as)
    off_battlefield: tuple[tuple[str, str], ...] = ()
    unmodelled: tuple[tuple[str, str], ...] = ()  # (card name, rules text not modelled): card_not_modelled
    unmodelled_keywords: tuple[tuple[str, str], ...] = ()  # (keyword, what is not modelled): keyword_not_modelled
    abilities: Abilities | None = None  # the kinds of ability the rules put on the stack or read there
    # (keyword, parameter key) -> the vocabularies its values belong to (keyword_param_vocabulary)
    param_vocabularies: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    vocabularies: dict[str, tuple[str, ...]] = field(default_factory=dict)  # vocabulary -> its words
    # the subtypes a board may give without a warning (S206): the words of the vocabularies subtype_vocabulary
    # names, and every word a loaded rule writes (a designer's own subtype); empty: none is checked
    subtype_words: frozenset[str] = frozenset()
    subtype_vocabularies: tuple[str, ...] = ()  # the vocabularies whose words are subtypes (subtype_vocabulary)
    subtype_params: frozenset[tuple[str, str]] = frozenset()  # (keyword, key): a subtype (keyword_param_subtype)
    # (keyword, parameter key) -> the least whole number its value may be (keyword_param_number)
    param_minimums: dict[tuple[str, str], int] = field(default_factory=dict)
    optional_params: frozenset[str] = frozenset()  # keywords whose parameter may be left out
    together_params: frozenset[str] = frozenset()  # keywords whose mapping keys are written together
    number_keys: frozenset[str] = frozenset()  # effect keys whose values are numbers (effect_key_number)
    # counter kinds whose latest time put_counters keeps (counter_since): the keyword counters (122.1b)
    timed_counters: frozenset[str] = frozenset()
    action_params: tuple[tuple[str, str], ...] = ()  # (action, argument key): action_param/2
    repeats: frozenset[str] = frozenset()  # predicates each record of which is an event (record_event_repeats)
    # an engine's interface can give the interface of the engine with more rule files (a scenario's rules:)
    extend: Callable[[Sequence[str]], Interface] | None = field(default=None, compare=False, repr=False)
    # the program's interface (without extend: a value of the program's alone) is saved with it in the
    # library's cache (Program.memo), so that a start from the cache does not read it from the rules again
    kept_in_cache: ClassVar[bool] = True

    def with_rules(self, paths: Sequence[str]) -> Interface:
        return self.extend(paths) if self.extend is not None and paths else self

    # -- keywords -----------------------------------------------------------
    def instances(self, keyword: str) -> str:
        return self.keyword_how.get(keyword, "redundant")

    def takes_param(self, keyword: str) -> bool:
        return keyword in self.keyword_forms

    def needs_param(self, keyword: str) -> bool:
        """Whether the keyword must be written with its parameter (it has one, not declared optional)."""
        return keyword in self.keyword_forms and keyword not in self.optional_params

    def param_words(self, keyword: str, key: str) -> tuple[str, ...] | None:
        """The words the ``key`` of the keyword's parameter may be, or None when no vocabulary is declared."""
        names = self.param_vocabularies.get((keyword, key))
        if not names:
            return None
        # numbers first, then words: a vocabulary may hold both (vocabulary_word(v, 1))
        return tuple(sorted({w for v in names for w in self.vocabulary(v)}, key=lambda w: (isinstance(w, str), w)))

    def subtype_vocabulary_words(self) -> list[str]:
        """The words of the subtype vocabularies, sorted (what a misspelt subtype is compared with)."""
        return sorted({w for v in self.subtype_vocabularies for w in self.vocabulary(v)})

    def vocabulary(self, name: str) -> tuple[str, ...]:
        """The words of a vocabulary: color (color_word), card_type (card_type_word), or vocabulary_word's."""
        return {"color": self.colors, "card_type": self.card_types}.get(name) or self.vocabularies.get(name, ())

    def param_example(self, keyword: str) -> str:
        """An example of the keyword written with its parameter, from its grammar."""
        forms = self.keyword_forms.get(keyword, ())
        kinds = {f for f, _ in forms}
        if "number" in kinds:
            return f"{{{keyword}: 2}}"
        if "mapping" in kinds and keyword in self.together_params:
            return f"{{{keyword}: {{" + ", ".join(f"{k}: ..." for f, k in forms if f == "mapping") + "}}"
        if "mapping" in kinds:
            return " or ".join(f"{{{keyword}: {{{k}: ...}}}}" for f, k in forms if f == "mapping")
        return f"{{{keyword}: word}}"

    # -- scenario fields ------------------------------------------------------
    def section_fields(self, section: str) -> list[Field]:
        return [f for f in self.fields if f.section == section]

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    # -- recording --------------------------------------------------------------
    def recorded(self, fact: tuple) -> list[tuple]:
        """The facts recording ``fact`` gives: itself, its mirror when symmetric, and what it implies."""
        out = [fact]
        if fact[0] in self.symmetric and len(fact) == 3:
            out.append((fact[0], fact[2], fact[1]))
        for pred, pos, implied in self.implies:
            if pred == fact[0] and pos + 1 < len(fact):
                out.append((implied, fact[pos + 1]))
        return out

    def forgotten(self, fact: tuple) -> list[tuple]:
        """The facts forgetting ``fact`` removes: itself and its mirror when symmetric."""
        out = [fact]
        if fact[0] in self.symmetric and len(fact) == 3:
            out.append((fact[0], fact[2], fact[1]))
        return out


def _facts(program: Program, pred: str) -> list[tuple]:
    return program.ground_facts(pred)


def _head_constants(program: Program, pred: str, pos: int) -> frozenset[str]:
    """The constants at ``pos`` of the heads of ``pred``'s rules and facts; ``*`` if one has a variable there."""
    args = [r.head.args[pos] for r in program.rules if r.head.pred == pred and len(r.head.args) > pos]
    return frozenset(str(a.value) if isinstance(a, Const) else "*" for a in args)


@dataclass(frozen=True)
class Abilities:
    """What the rules say of the abilities on the stack: the kinds they trigger or read (``triggers(S, K,
    X)``, ``on_stack(I, S, K)`` with a constant K), every argument key a rule gives or reads (``trigger_arg``,
    ``ability_arg``, ``ability_arg_given``, a keyword's parameter keys) and, per kind, the keys a rule reading
    an ability of that kind needs (``ability_arg(I, key, V)`` beside ``on_stack(I, S, kind)``) with that
    rule's name. A scenario's ``stack:`` is checked against it."""

    kinds: frozenset[str]
    keys: frozenset[str]
    needs: dict[str, tuple[tuple[str, str], ...]]  # kind -> ((key, rule name), ...)


def _reads_key(rule: Rule, key: str) -> bool:
    """Whether the rule's body reads the ability argument ``key`` (a positive ``ability_arg(I, key, V)``)."""
    return any(
        isinstance(a, Atom)
        and a.pred == "ability_arg"
        and a.arity == 3
        and isinstance(a.args[1], Const)
        and a.args[1].value == key
        for a in rule.body
    )


def place_values(program: Program, pred: str, place: int, _seen: frozenset = frozenset()) -> frozenset[str] | None:
    """The constants argument ``place`` of ``pred`` can hold, as far as the rule files fix them: the values of
    its ground facts and of its rules' heads, a head variable taking the values of the narrowest body atom
    that binds it. ``None`` where a scenario may state the predicate, a rule leaves the place open, or the
    rules go round in a cycle.

    >>> from judgelog.analysis import analyze
    >>> from judgelog.parser import parse_text
    >>> program, _ = analyze([parse_text('''
    ... .decl k(a: atom) ""
    ... .decl s(a: atom) "" input
    ... .decl on(a: atom) ""
    ... k(a). k(b).
    ... on(X) :- k(X), s(X).
    ... on(c).
    ... ''', "t.dl")], require_annotations=False)
    >>> sorted(place_values(program, "on", 0)), place_values(program, "s", 0)
    (['a', 'b', 'c'], None)
    """
    if program.is_input(pred) or (pred, place) in _seen:
        return None
    seen = _seen | {(pred, place)}
    values = {str(row[place]) for row in program.ground_facts(pred) if len(row) > place}
    for rule in program.rules_by_head.get(pred, ()):
        if not rule.body or len(rule.head.args) <= place:
            continue
        arg = rule.head.args[place]
        found: frozenset[str] | None = frozenset((str(arg.value),)) if isinstance(arg, Const) else None
        if isinstance(arg, Var):
            found = var_values(program, rule, arg, seen)
        if found is None:
            return None
        values |= found
    return frozenset(values)


def var_values(program: Program, rule: Rule, var: Var, _seen: frozenset = frozenset()) -> frozenset[str] | None:
    """The constants a variable of a rule can hold: those of the narrowest positive body atom that binds it
    (:func:`place_values`); ``None`` when no atom of the body bounds it."""
    best: frozenset[str] | None = None
    for atom in rule.body:
        if not isinstance(atom, Atom):
            continue
        for j, arg in enumerate(atom.args):
            if arg == var:
                found = place_values(program, atom.pred, j, _seen)
                if found is not None and (best is None or len(found) < len(best)):
                    best = found
    return best


def abilities_of(program: Program, keyword_keys: Iterable[str] = ()) -> Abilities:
    """The :class:`Abilities` of the rules. A rule may read an ability's argument through a predicate of its
    own that carries abilities of one kind (``rampage_resolving(I, O) :- ..., on_stack(I, O, rampage)`` then
    ``rampage_n(I, N) :- rampage_resolving(I, _), ability_arg(I, n, N)``): the kinds an argument place of a
    derived predicate carries are followed through the rules, as far as they go."""
    kinds: set[str] = set()
    keys: set[str] = set(keyword_keys)
    needs: dict[str, dict[str, str]] = {}

    def const(arg: object) -> str | None:
        return arg.value if isinstance(arg, Const) and isinstance(arg.value, str) else None

    def var_kinds(rule: Rule, carried: dict[tuple[str, int], set[str]]) -> dict[object, set[str]]:
        """The kinds of ability each variable of the rule's body holds (through on_stack or a carrier)."""
        out: dict[object, set[str]] = {}
        for atom in rule.body:
            if not isinstance(atom, Atom):
                continue
            kind = const(atom.args[2]) if atom.pred == "on_stack" and atom.arity == 3 else None
            if kind is not None and isinstance(atom.args[0], Var):
                out.setdefault(atom.args[0], set()).add(kind)
            for i, arg in enumerate(atom.args):
                if isinstance(arg, Var) and (atom.pred, i) in carried:
                    out.setdefault(arg, set()).update(carried[(atom.pred, i)])
        return out

    reading: dict[tuple[str, str], list[tuple[Rule, str]]] = {}  # (kind, head predicate) -> (rule, key) read
    # the argument places of derived predicates that carry abilities of known kinds, to a fixpoint
    carried: dict[tuple[str, int], set[str]] = {}
    changed = True
    while changed:
        changed = False
        for rule in program.rules:
            if not rule.body:
                continue
            held = var_kinds(rule, carried)
            for i, arg in enumerate(rule.head.args):
                if isinstance(arg, Var) and arg in held and not held[arg] <= carried.get((rule.head.pred, i), set()):
                    carried.setdefault((rule.head.pred, i), set()).update(held[arg])
                    changed = True
    for rule in program.rules:
        head = rule.head
        if head.pred == "triggers" and head.arity == 3 and const(head.args[1]):
            kinds.add(str(const(head.args[1])))
        if head.pred == "trigger_arg" and head.arity == 5 and const(head.args[3]):
            keys.add(str(const(head.args[3])))
        if head.pred == "ability_arg_given" and head.arity == 1 and const(head.args[0]):
            keys.add(str(const(head.args[0])))
        positive = [lit for lit in rule.body if isinstance(lit, Atom)]
        reads = [(a.args[0], const(a.args[1])) for a in positive if a.pred == "ability_arg" and a.arity == 3]
        keys.update(k for _, k in reads if k)
        kinds.update(
            str(const(a.args[2])) for a in positive if a.pred == "on_stack" and a.arity == 3 and const(a.args[2])
        )
        # a kind a variable stands for, bound by a catalog of the rule files (cycling_kind(K), on_stack(I, O, K))
        open_kinds = [
            a.args[2] for a in positive if a.pred == "on_stack" and a.arity == 3 and isinstance(a.args[2], Var)
        ]
        if head.pred == "triggers" and head.arity == 3 and isinstance(head.args[1], Var):
            open_kinds.append(head.args[1])
        for var in open_kinds:
            kinds.update(var_values(program, rule, var) or ())
        held = var_kinds(rule, carried)
        for ident, key in reads:
            for kind in sorted(held.get(ident, ())) if key else ():
                reading.setdefault((kind, head.pred), []).append((rule, str(key)))
    # a key is needed when every rule of the kind that derives the same predicate reads it; one that derives it
    # without (a last known value, read only when the creature is gone) makes it optional
    for (kind, pred), found in sorted(reading.items()):
        same = [r for r in program.rules_by_head.get(pred, ()) if kind in set().union(*var_kinds(r, carried).values())]
        for rule, key in found:
            if all(_reads_key(r, key) for r in same):
                needs.setdefault(kind, {}).setdefault(key, rule.name or str(rule.head))
    return Abilities(frozenset(kinds), frozenset(keys), {k: tuple(sorted(v.items())) for k, v in sorted(needs.items())})


def mentioned_keywords(program: Program) -> frozenset[str]:
    """Keyword constants that rules write in an argument declared with type ``keyword``
    (``has_keyword(A, shadow)``): a rule that tests a keyword implements it."""
    return frozenset(keyword_constants(program, (lit for r in program.rules for lit in (r.head,) + tuple(r.body))))


def keyword_constants(program: Program, literals: Iterable) -> set[str]:
    """The constants ``literals`` write in an argument their predicate declares with type ``keyword``."""
    return {str(arg.value) for arg in program.keyword_args(literals)}


def interface_of(program: Program) -> Interface:
    """Read the interface from a program's facts (computed once per program)."""
    cached = program.memo.get("interface")
    if isinstance(cached, Interface):
        return cached
    forms: dict[str, list[tuple[str, str]]] = {}
    for k, form, key in _facts(program, "keyword_param_form"):
        forms.setdefault(k, []).append((form, key))
    vocabulary_of: dict[tuple[str, str], list[str]] = {}
    for k, key, v in _facts(program, "keyword_param_vocabulary"):
        vocabulary_of.setdefault((k, key), []).append(v)
    words: dict[str, list[str]] = {}
    for v, w in _facts(program, "vocabulary_word"):
        words.setdefault(v, []).append(w)
    prefixes: dict[str, list[tuple[str, str]]] = {}
    for k, prefix, key in _facts(program, "keyword_param_prefix"):
        prefixes.setdefault(k, []).append((prefix, key))
    refs: dict[str, list[FieldRef]] = {}
    for name, pos, what, noun in _facts(program, "scenario_field_ref"):
        refs.setdefault(name, []).append(FieldRef(pos, what, noun))
    labels = {name: prefix for name, prefix in _facts(program, "scenario_group_label")}
    fields = tuple(
        Field(section, name, shape, pred, tuple(sorted(refs.get(name, []), key=lambda r: r.pos)), labels.get(name))
        for section, name, shape, pred in _facts(program, "scenario_field")
    )
    declared = {k for (k,) in _facts(program, "keyword")}
    subtype_vocabularies = tuple(sorted(str(v) for (v,) in _facts(program, "subtype_vocabulary")))
    face = Interface(
        keywords=frozenset(declared | mentioned_keywords(program)),
        keyword_forms={k: tuple(v) for k, v in forms.items()},
        keyword_prefixes={k: tuple(v) for k, v in prefixes.items()},
        keyword_how={k: how for k, how in _facts(program, "keyword_instances")},
        card_types=tuple(sorted(t for (t,) in _facts(program, "card_type_word"))),
        colors=tuple(c for (c,) in _facts(program, "color_word")),
        fields=fields,
        symmetric=frozenset(p for (p,) in _facts(program, "record_symmetric")),
        implies=tuple(_facts(program, "record_implies")),
        record_events={(p, change): (kind, detail) for p, change, kind, detail in _facts(program, "record_event")},
        repeats=frozenset(p for (p,) in _facts(program, "record_event_repeats")),
        primitives={name: (a, b, c) for name, a, b, c in _facts(program, "primitive")},
        ends_with_combat=tuple(p for (p,) in _facts(program, "ends_with_combat")),
        result_kinds=frozenset(k for (k,) in _facts(program, "event_result_kind")),
        looks_back=frozenset(k for (k,) in _facts(program, "trigger_looks_back")),
        trigger_kinds=trigger_event_kinds(program),
        stack_targeted=frozenset(str(k) for (k,) in _facts(program, "targets_on_stack")),
        divided=frozenset(str(k) for (k, _) in _facts(program, "divided_target")),
        preventable=_head_constants(program, "cannot_undergo", 0),
        amount_replaced=_head_constants(program, "amount_replacement", 1),
        outlives=frozenset(p for (p,) in _facts(program, "outlives_object")),
        off_battlefield=tuple(sorted((str(w), str(c)) for w, c in _facts(program, "kept_off_battlefield_as"))),
        unmodelled=tuple(sorted((str(n), str(w)) for n, w in _facts(program, "card_not_modelled"))),
        unmodelled_keywords=tuple(sorted((str(k), str(w)) for k, w in _facts(program, "keyword_not_modelled"))),
        abilities=abilities_of(program, (key for pairs in forms.values() for _, key in pairs)),
        param_vocabularies={k: tuple(v) for k, v in vocabulary_of.items()},
        vocabularies={v: tuple(sorted(ws)) for v, ws in words.items()},
        subtype_words=_subtype_words(program, words, subtype_vocabularies),
        subtype_vocabularies=subtype_vocabularies,
        subtype_params=frozenset((str(k), str(key)) for k, key in _facts(program, "keyword_param_subtype")),
        param_minimums={(str(k), str(key)): least for k, key, least in _facts(program, "keyword_param_number")},
        optional_params=frozenset(k for (k,) in _facts(program, "keyword_param_optional")),
        together_params=frozenset(k for (k,) in _facts(program, "keyword_param_together")),
        number_keys=frozenset(k for (k,) in _facts(program, "effect_key_number")),
        timed_counters=frozenset(k for (k,) in _facts(program, "keyword_counter")),
        action_params=tuple(sorted((str(a), str(k)) for a, k in _facts(program, "action_param"))),
    )
    program.memo["interface"] = face
    return face


def _subtype_words(program: Program, words: dict[str, list[str]], named: Sequence[str]) -> frozenset[str]:
    """The words of the subtype vocabularies ``named`` (subtype_vocabulary/1) and the rules' own words; none when
    the rules name no subtype vocabulary (then a board's subtypes are not checked)."""
    if not named:
        return frozenset()
    return frozenset(str(w) for v in named for w in words.get(v, ())) | program.constants()


def with_keywords(face: Interface, keywords: Iterable[str]) -> Interface:
    return replace(face, keywords=face.keywords | frozenset(keywords))


def _recent_positions(program: Program, reached: set[str]) -> set[tuple[str, int]]:
    """The argument places of the predicates the triggers rules reach that a reader joins with a recent
    event's number (``recent_event(N)``, or a place of its own head that is such a place): an event read
    through such a place may be a recent one; one read through another place (a keyword counter's time,
    compared with an effect's) is not, and cannot make an ability trigger."""
    derived = program.rules_by_head
    carried: set[tuple[str, int]] = set()
    changed = True
    while changed:
        changed = False
        for pred in reached:
            for rule in derived.get(pred, ()):
                atoms = [lit.atom if isinstance(lit, Negation) else lit for lit in program.body(rule)]
                atoms = [a for a in atoms if isinstance(a, Atom)]
                joined = {a.args[0].name for a in atoms if a.pred == "recent_event" and isinstance(a.args[0], Var)}
                joined |= {t.name for i, t in enumerate(rule.head.args) if isinstance(t, Var) and (pred, i) in carried}
                for lit in program.body(rule):  # compared with such a number (M = N): as good as joined
                    names = literal_vars(lit) if isinstance(lit, Comparison) else set()
                    if names & joined:
                        joined |= names
                for atom in atoms:
                    if atom.pred not in derived:
                        continue
                    for i, arg in enumerate(atom.args):
                        if isinstance(arg, Var) and arg.name in joined and (atom.pred, i) not in carried:
                            carried.add((atom.pred, i))
                            changed = True
    return carried


def trigger_event_kinds(program: Program) -> frozenset[str] | None:
    """The event kinds that can make a ``triggers/3`` rule hold, read from the rules: the kind of every
    ``event(N, Kind, ...)`` atom, in the rules the triggers rules reach, whose N is joined with
    ``recent_event(N)`` or comes from the rule's head (a caller may join it); None when such an atom has a
    variable kind, when a ``recent_event(N)`` is joined with nothing, or when a triggers rule reaches no
    ``recent_event`` (any kind may then trigger). 603.2: an ability triggers on an event, so a batch of events
    none of whose kinds is here can trigger nothing.

    >>> from judgelog import Engine
    >>> kinds = trigger_event_kinds(Engine().program)
    >>> "enters" in kinds, "tapped" in kinds
    (True, False)
    """
    derived = program.rules_by_head
    reached, work = {"triggers"}, ["triggers"]
    while work:
        for rule in derived.get(work.pop(), ()):
            for lit in program.body(rule):
                atom = lit.atom if isinstance(lit, Negation) else lit
                if isinstance(atom, Atom) and atom.pred in derived and atom.pred not in reached:
                    reached.add(atom.pred)
                    work.append(atom.pred)
    carried = _recent_positions(program, reached)
    kinds: set[str] = set()
    for pred in reached:
        for rule in derived.get(pred, ()):
            atoms = [lit.atom if isinstance(lit, Negation) else lit for lit in program.body(rule)]
            atoms = [a for a in atoms if isinstance(a, Atom)]
            recent = {a.args[0].name for a in atoms if a.pred == "recent_event" and isinstance(a.args[0], Var)}
            passed = recent | {
                t.name for i, t in enumerate(rule.head.args) if isinstance(t, Var) and (pred, i) in carried
            }
            for var in recent:  # a recent event joined with nothing else: any kind
                if not any(a.pred != "recent_event" and Var(var) in a.args for a in atoms):
                    return None
            for atom in atoms:
                if atom.pred == "event" and isinstance(atom.args[0], Var) and atom.args[0].name in passed:
                    if not isinstance(atom.args[1], Const):
                        return None
                    kinds.add(str(atom.args[1].value))
    recent_preds: set[str] = set()
    changed = True
    while changed:  # the predicates whose every rule reads recent_event, directly or through another such one
        changed = False
        for pred in reached - recent_preds:
            rules = [r for r in derived.get(pred, ()) if r.body]
            reads = [[a.pred for a in program.body(r) if isinstance(a, Atom)] for r in rules]
            if rules and all("recent_event" in preds or recent_preds.intersection(preds) for preds in reads):
                recent_preds.add(pred)
                changed = True
    return frozenset(kinds) if "triggers" in recent_preds else None


def numbered_ability_problems(program: Program) -> list[Diagnostic]:
    """Warnings for a keyword written with a number (``keyword_param_form(K, number, n)``) whose abilities on
    the stack read that number (``ability_arg(I, n, N)``) but whose instances are ``redundant`` (the
    default): only a keyword declared ``keyword_instances(K, each)`` gives each ability its instance's N, so
    the ability resolves doing nothing, and nothing else says so."""
    face = interface_of(program)
    abilities = face.abilities
    if abilities is None:
        return []
    out: list[Diagnostic] = []
    for kind, needed in sorted(abilities.needs.items()):
        keys = {key for _, key in face.keyword_forms.get(kind, ())}
        read = [(key, rule) for key, rule in needed if key in keys]
        if not read or face.keyword_how.get(kind, "redundant") == "each":
            continue
        key, rule_name = read[0]
        rule = program.rule_by_name.get(rule_name)
        out.append(
            Diagnostic(
                I008,
                f"the abilities of {kind} read its number ({key}, rule {rule_name}), but its instances are "
                "redundant: an ability is given no number and does nothing",
                rule.span if rule is not None else Span("<rules>", 1, 1),
                severity="warning",
                hint=f"declare keyword_instances({kind}, each). (each instance triggers with its own {key})",
            )
        )
    return out
