"""The search space of ``judgelog verify``, declared in a scope file (``--scope FILE.yaml``).

A scope says how many players and creatures a board has, which keywords (with which parameters) a
creature may have, its power, toughness, subtypes and counters, which designations are declared (the
combat fields and the other designation fields the rules declare, ``scenario_field/4``) and which
follow-up actions may come after them. Nothing here names a keyword: the default keywords are the ones
the loaded rules mention in the rules the properties depend on (:func:`property_keywords`), less those
``without:`` lists, with the parameters their grammars (``keyword_param_form``) allow from the scope's words.

>>> from judgelog import Engine
>>> engine = Engine(properties=True)
>>> scope = load_scope({"creatures": 2, "keywords": ["trample"]}, engine)
>>> scope.creatures, [k.text() for k in scope.keywords]
(2, ['trample'])
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from .analysis import suggest
from .ast import Span
from .catalog import facts_dir
from .codes import S001, S104, Code
from .errors import Diagnostic, LoadError
from .interface import Interface, keyword_constants
from .program import Program

if TYPE_CHECKING:
    from .engine import Engine
    from .located import Located

__all__ = [
    "Scope",
    "KeywordChoice",
    "load_scope",
    "load_scope_file",
    "read_scope",
    "ScopeError",
    "default_scope_path",
    "property_keywords",
    "SCOPE_KEYS",
    "FOLLOW_UP_VARIABLES",
    "placeholders",
    "with_values",
]

FOLLOW_UP_VARIABLES = ("$creature", "$player", "$keyword")  # what a follow-up action's value may stand for

SCOPE_KEYS = (
    "players",
    "creatures",
    "min_creatures",
    "keywords",
    "without",
    "keywords_per_creature",
    "power",
    "toughness",
    "subtypes",
    "colors",
    "types",
    "supertypes",
    "names",
    "words",
    "counters",
    "declare",
    "same_controller",
    "follow_up",
    "properties",
)

# keys a scope might be expected to take, and why it does not (accepted and ignored before: never read)
NOT_SCOPE_KEYS = {
    "blockers_per_attacker": "verify declares every block the rules accept (each other creature blocks one "
    "attacker or none, any number of them the same attacker); to search fewer blocks, give fewer creatures",
}


@dataclass(frozen=True, order=True)
class KeywordChoice:
    """One keyword a creature may have, with its parameter (``key``, ``value``) when its grammar takes one."""

    keyword: str
    form: str = ""  # number | word | mapping (keyword_param_form), empty without a parameter
    key: str = ""
    value: Any = ""

    def text(self) -> str:
        return self.keyword if not self.key else f"{self.keyword}({self.key}={self.value})"

    def yaml(self) -> object:
        """As a scenario's ``keywords:`` entry."""
        if not self.key:
            return self.keyword
        return {self.keyword: {self.key: self.value}} if self.form == "mapping" else {self.keyword: self.value}


@dataclass(frozen=True)
class Scope:
    players: int = 2
    creatures: int = 2
    min_creatures: int = 1
    keywords: tuple[KeywordChoice, ...] = ()
    keywords_per_creature: int = 1
    power: tuple[int, ...] = (1, 2)
    toughness: tuple[int, ...] = (1, 2)
    subtypes: tuple[str, ...] = ()
    colors: tuple[str, ...] = ()  # each creature has one of these colors, or none (colorless)
    types: tuple[str, ...] = ()  # each creature is also one of these card types (artifact), or none
    counters: tuple[tuple[str, tuple[int, ...]], ...] = ()
    declare: tuple[str, ...] = ()  # designation fields declared on a board
    same_controller: tuple[str, ...] = ()  # fields whose two objects have one controller
    follow_up: tuple[tuple[tuple[str, Any], ...], ...] = ()  # action templates, items sorted
    properties: tuple[str, ...] = ()  # empty: all
    source: str = field(default="<scope>", compare=False)

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "creatures": self.creatures,
            "min_creatures": self.min_creatures,
            "keywords": [k.text() for k in self.keywords],
            "keywords_per_creature": self.keywords_per_creature,
            "power": list(self.power),
            "toughness": list(self.toughness),
            "subtypes": list(self.subtypes),
            "colors": list(self.colors),
            "types": list(self.types),
            "counters": {k: list(v) for k, v in self.counters},
            "declare": list(self.declare),
            "same_controller": list(self.same_controller),
            "follow_up": [dict(a) for a in self.follow_up],
            "properties": list(self.properties),
        }


def default_scope_path() -> str:
    return str(facts_dir() / "verify" / "default.yaml")


def property_keywords(program: Program) -> frozenset[str]:
    """Keywords the properties can see: the keyword constants written in the rules that property_violation
    and the functional predicates depend on (positively or through negation), transitively."""
    start = ["property_violation"] + [name for name, d in program.decls.items() if d.functional]
    # a keyword a rule tests (its body), not one it gives (its head)
    rules = [r for pred in program.dependencies(start) for r in program.rules_by_head.get(pred, ())]
    tested = (lit for r in rules for lit in r.body)
    return frozenset(keyword_constants(program, tested))


class ScopeError(LoadError):
    """A scope the verifier can't use (an input that could not be loaded, exit 3): ``where: detail``;
    ``key``, the path of the value at fault, which load_scope turns into its line and column (``span``: a
    diagnostic S104 there, printed with the line of the file)."""

    def __init__(
        self,
        where: str,
        detail: str,
        *,
        hint: str | None = None,
        key: tuple = (),
        span: Span | None = None,
        code: Code = S104,
    ) -> None:
        diagnostics = [Diagnostic(code, detail, span, hint=hint)] if span is not None else []
        super().__init__(f"{where}: {detail}", hint=hint, diagnostics=diagnostics)
        self.detail, self.key = detail, key


def _err(source: str, message: str, hint: str | None = None, *, key: tuple | str = ()) -> NoReturn:
    path = tuple(key.split(".")) if isinstance(key, str) else key
    raise ScopeError(source, message, hint=hint, key=path)


def _ints(value: object, what: str, source: str, *, low: int = 0) -> tuple[int, ...]:
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) and v >= low for v in values):
        _err(
            source,
            f"{what} must be a whole number >= {low} or a list of them, got {value!r}",
            f"e.g. {low + 1} or [{low}, {low + 1}]",
            key=what,
        )
    return tuple(sorted(set(values)))


def _words(value: object, what: str, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        _err(source, f"{what} must be a list of words, got {value!r}", "e.g. [wolf]", key=what)
    return tuple(value)


def _vocabulary(data: dict, key: str, known: Sequence[str], source: str) -> tuple[str, ...]:
    """``colors`` or ``types``: words the rules know (``color_word``, ``card_type_word``), each checked."""
    values = _words(data.get(key, []) or [], key, source)
    for i, value in enumerate(values):
        _one_of(
            source,
            value,
            sorted(known),
            f"unknown {key[:-1]} {value!r} in {key}",
            f"{key}: " + ", ".join(sorted(known)),
            key=(key, i),
        )
    return values


def _keyword_choices(
    entry: str, face: Interface, scope_words: dict[str, tuple], source: str, at: int | None = None
) -> list[KeywordChoice]:
    """A scope's keyword entry (``k`` or ``{k: param}``) as the choices it stands for. ``at``: the entry's
    place in a ``keywords:`` list the scope wrote (then an entry that stands for no choice is an error; a
    keyword of ``default`` whose parameter no word of the scope gives is left out)."""
    param = None
    if isinstance(entry, dict) and len(entry) == 1:
        ((entry, param),) = entry.items()
    if not isinstance(entry, str) or entry not in face.keywords:
        near = suggest(str(entry), sorted(face.keywords))
        _err(
            source,
            f"unknown keyword {entry!r} in keywords",
            f"did you mean {near!r}?" if near else "known keywords: " + ", ".join(sorted(face.keywords)),
            key="keywords",
        )
    forms = face.keyword_forms.get(entry, ())
    if not forms:
        if param is not None:
            _err(source, f"keyword {entry!r} takes no parameter", key="keywords")
        return [KeywordChoice(entry)]
    if param is not None:
        if isinstance(param, dict) and len(param) == 1:
            ((key, value),) = param.items()
            return [KeywordChoice(entry, "mapping", str(key), value)]
        plain = next(((f, k) for f, k in forms if f in ("number", "word")), None)
        if plain is None:
            _err(
                source,
                f"keyword {entry!r} takes a mapping parameter",
                f"e.g. {face.param_example(entry)}",
                key="keywords",
            )
        return [KeywordChoice(entry, plain[0], plain[1], param)]
    out = []
    for form, key in forms:  # every value the scope's words allow for this grammar
        if form == "number":
            out.append(KeywordChoice(entry, form, key, 1))
        else:
            out.extend(KeywordChoice(entry, form, key, v) for v in scope_words.get(key, ()))
    if not out and at is not None:  # listed by name, but no value to give it: nothing to search for it
        keys = sorted({key for _, key in forms})
        sources = [_WORD_KEYS.get(k, f"words: {{{k}: [...]}}") for k in keys]
        named = ", ".join(keys[:-1]) + " or " + keys[-1] if len(keys) > 1 else keys[0]
        _err(
            source,
            f"keyword {entry!r} takes a parameter ({named}) and the scope gives it no value: no board would have it",
            f"give it one, as in {face.param_example(entry).split(' or ')[0]}, or give the scope values for it: "
            + ", ".join(dict.fromkeys(sources)),
            key=("keywords", at),
        )
    return out


# the scope key that lists the values of a keyword parameter kept under this key (others: words: {KEY: [...]})
_WORD_KEYS = {"subtype": "subtypes: [...]", "supertype": "supertypes: [...]", "name": "names: [...]"}


def load_scope(
    data: Any,
    engine: Engine,
    *,
    source: str = "<scope>",
    doc: Located | None = None,
    properties: Collection[str] | None = None,
) -> Scope:
    """A scope from a mapping (a scope file's content); missing keys take the defaults. ``doc``: the file
    read with positions (:func:`read_scope`), so that an error names the line and column of its value;
    ``properties``: the properties the loaded rules declare (:func:`judgelog.verify.properties_of`), which
    the scope's ``properties:`` must name (unchecked when not given)."""
    try:
        return _load_scope(data, engine, source, properties)
    except ScopeError as exc:
        if doc is None:
            raise
        span = doc.span(exc.key)
        raise ScopeError(span.location(), exc.detail, hint=exc.hint, key=exc.key, span=span) from None


def _load_scope(data: Any, engine: Engine, source: str, declared_properties: Collection[str] | None) -> Scope:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        _err(source, "a scope is a mapping of keys", "keys: " + ", ".join(SCOPE_KEYS))
    for key in data:
        if key in NOT_SCOPE_KEYS:
            _err(source, f"{key!r} is not a scope key: {NOT_SCOPE_KEYS[key]}", key=(key,))
        if key not in SCOPE_KEYS:
            near = suggest(str(key), SCOPE_KEYS)
            _err(
                source,
                f"unknown key {key!r} in a scope",
                f"did you mean {near!r}?" if near else "keys: " + ", ".join(SCOPE_KEYS),
                key=(key,),
            )
    face = engine.interface
    players = _ints(data.get("players", 2), "players", source, low=2)
    creatures = _ints(data.get("creatures", 2), "creatures", source, low=1)
    min_creatures = _ints(data.get("min_creatures", 1), "min_creatures", source, low=1)
    if min(min_creatures) > max(creatures):
        _err(
            source,
            f"min_creatures ({min(min_creatures)}) is more than creatures ({max(creatures)}): no board has that many",
            f"give creatures: {min(min_creatures)} or more, or a smaller min_creatures",
            key="min_creatures",
        )
    subtypes = _words(data.get("subtypes", []), "subtypes", source)
    colors = _vocabulary(data, "colors", face.colors, source)
    types = _vocabulary(data, "types", tuple(t for t in face.card_types if t != "creature"), source)
    # the words a keyword parameter may take, by the key its grammar keeps it under
    words: dict[str, tuple] = {
        "subtype": subtypes,
        "supertype": _words(data.get("supertypes", []), "supertypes", source),
        "name": _words(data.get("names", []), "names", source),
    }
    raw_words = data.get("words", {}) or {}
    if not isinstance(raw_words, dict):
        _err(source, "words must map a parameter key to a list of words", "e.g. {land_with: [swamp]}", key="words")
    for key, values in raw_words.items():
        words[str(key)] = _words(values, f"words.{key}", source)
    raw_keywords = data.get("keywords", "default")
    listed = raw_keywords != "default"
    if not listed:
        raw_keywords = sorted(property_keywords(engine.program) & face.keywords)
    if not isinstance(raw_keywords, list):
        _err(source, f"keywords must be a list or 'default', got {raw_keywords!r}", key="keywords")
    without = _words(data.get("without", []) or [], "without", source)
    for name in without:
        if name not in face.keywords:
            near = suggest(name, sorted(face.keywords))
            _err(
                source,
                f"unknown keyword {name!r} in without",
                f"did you mean {near!r}?" if near else None,
                key="without",
            )
    choices: list[KeywordChoice] = []
    for i, entry in enumerate(raw_keywords):
        if (next(iter(entry)) if isinstance(entry, dict) and len(entry) == 1 else entry) in without:
            continue
        at = i if listed else None
        choices.extend(c for c in _keyword_choices(entry, face, words, source, at) if c not in choices)
    counters = data.get("counters", {}) or {}
    if not isinstance(counters, dict):
        _err(source, "counters must map a counter kind to numbers", "e.g. {p1p1: [0, 1]}", key="counters")
    fields = [f.name for f in face.fields]
    declare = data.get("declare", "default")
    if declare == "default":
        declare = [f.name for f in face.section_fields("combat")] + [
            f.name for f in face.section_fields("top") if f.shape == "pairs"
        ]
    declare = _words(declare, "declare", source)
    for name in declare + _words(data.get("same_controller", []), "same_controller", source):
        _one_of(
            source,
            name,
            fields,
            f"no loaded rule file declares the scenario field {name!r}",
            "fields: " + ", ".join(fields),
            key="declare" if name in declare else "same_controller",
        )
    follow = data.get("follow_up", []) or []
    if not isinstance(follow, list) or not all(isinstance(a, dict) and isinstance(a.get("do"), str) for a in follow):
        _err(
            source,
            "follow_up must be a list of actions such as {do: remove_from_combat, object: $creature}",
            key="follow_up",
        )
    known: set[str] = set()
    if follow:
        state = engine.state_from_dict({"players": ["p1", "p2"]})
        known = {str(a["K"]) for a in state.query("action_known(K)")}
    for action in follow:
        _one_of(
            source, action["do"], sorted(known), f"unknown follow-up action {action['do']!r}", None, key="follow_up"
        )
    for i, action in enumerate(follow):
        for place, value in placeholders(action):
            if value.startswith("$") and value not in FOLLOW_UP_VARIABLES:
                near = suggest(value, FOLLOW_UP_VARIABLES)
                _err(
                    source,
                    f"unknown variable {value!r} in follow-up action {action['do']!r}",
                    (f"did you mean {near!r}? " if near else "")
                    + "$creature, $player and $keyword stand for each creature, player and keyword on the board",
                    key=("follow_up", i, *place),
                )
    _check_follow_ups(follow, engine, max(players), max(creatures), source)
    properties = data.get("properties", [])
    if properties == "all":
        properties = []
    properties = _words(properties, "properties", source)
    if properties and declared_properties is not None:
        declared = sorted(declared_properties)
        for i, name in enumerate(properties):
            message = f"unknown property {name!r}: no loaded rule file declares it"
            _one_of(source, name, declared, message, "properties: " + ", ".join(declared), key=("properties", i))
    return Scope(
        players=max(players),
        creatures=max(creatures),
        min_creatures=min(min_creatures),
        keywords=tuple(choices),
        keywords_per_creature=max(_ints(data.get("keywords_per_creature", 1), "keywords_per_creature", source)),
        power=_ints(data.get("power", [1, 2]), "power", source),
        toughness=_ints(data.get("toughness", [1, 2]), "toughness", source, low=1),
        subtypes=subtypes,
        colors=colors,
        types=types,
        counters=tuple(sorted((str(k), _ints(v, f"counters.{k}", source)) for k, v in counters.items())),
        declare=declare,
        same_controller=_words(data.get("same_controller", []), "same_controller", source),
        follow_up=tuple(tuple(sorted(a.items())) for a in follow),
        properties=properties,
        source=source,
    )


def _one_of(source: str, name: str, choices: Sequence[str], message: str, listing: str | None, *, key: Any) -> None:
    """An error at ``key`` unless ``name`` is one of ``choices``: a did-you-mean, else ``listing``."""
    if name not in choices:
        near = suggest(name, choices)
        _err(source, message, f"did you mean {near!r}?" if near else listing, key=key)


def placeholders(action: dict) -> list[tuple[tuple, str]]:
    """The words of a follow-up action that may be placeholders, with their places: each argument's value
    ``(arg,)``, each item of a list ``(arg, i)`` (``object: [$creature, $creature]``), and the same inside a
    mapping, by key (``choose: {recipients: [$creature]}``: ``(choose, recipients, 0)``).

    >>> placeholders({"do": "gain_control", "object": ["$creature", "c2"], "player": "$player"})
    [(('do',), 'gain_control'), (('object', 0), '$creature'), (('object', 1), 'c2'), (('player',), '$player')]
    >>> placeholders({"do": "populate", "choose": {"token": "$creature"}})
    [(('do',), 'populate'), (('choose', 'token'), '$creature')]
    """
    out: list[tuple[tuple, str]] = []

    def walk(value: object, place: tuple) -> None:
        if isinstance(value, str):
            out.append((place, value))
        elif isinstance(value, list):
            for j, v in enumerate(value):
                walk(v, (*place, j))
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, (*place, k))

    for arg, value in action.items():
        walk(value, (arg,))
    return out


def with_values(action: dict, places: Sequence[tuple], values: Sequence[object]) -> dict:
    """A copy of ``action`` with each of ``places`` (from :func:`placeholders`) given its value."""
    out = copy.deepcopy(action)
    for place, value in zip(places, values):
        inner = out
        for key in place[:-1]:
            inner = inner[key]
        inner[place[-1]] = value
    return out


def _check_follow_ups(follow: list[dict], engine: Engine, players: int, creatures: int, source: str) -> None:
    """Each follow-up action as the runtime would take it on the scope's largest board (its arguments, the
    ids it names), with $creature, $player and $keyword standing for one of each: a wrong one is the scope's
    error, at its place, not an action's error of no file when a board first applies it."""
    if not follow:
        return
    from .validation import action_problems

    players_ = [f"p{i + 1}" for i in range(players)]
    objects = {
        f"c{i + 1}": {
            "name": f"Creature {i + 1}",
            "types": ["creature"],
            "power": 1,
            "toughness": 1,
            "controller": "p1",
        }
        for i in range(creatures)
    }
    state = engine.state_from_dict({"players": players_, "objects": objects}, path="<scope>")
    keyword = min(engine.interface.keywords, default="")
    fixed = {"$player": players_[-1], "$keyword": keyword}
    for i, action in enumerate(follow):
        slots = [(place, v) for place, v in placeholders(action) if v in FOLLOW_UP_VARIABLES]
        # the n-th $creature stands for c<n> (as far as the board goes): a list of them names several
        creature = iter(range(1, len(slots) + 1))
        values = [f"c{min(next(creature), creatures)}" if v == "$creature" else fixed[v] for _, v in slots]
        taken = with_values(action, [place for place, _ in slots], values)
        problems = action_problems(state, taken)
        if problems:
            _err(source, problems[0].message, problems[0].hint, key=("follow_up", i))


def read_scope(path: str) -> tuple[Any, Located | None]:
    """A scope file's YAML, and where each value is when it reads as judgelog's strict YAML too (for errors;
    None otherwise, e.g. a duplicate key PyYAML takes). A regular file under the scenario cap (a FIFO or a
    device given as ``--scope`` never blocks or reads for ever), refused with a LoadError otherwise (exit 3,
    as any input that could not be loaded)."""
    import yaml

    from .errors import ScenarioError
    from .safefiles import UnsafeFile, read_text
    from .yamlsrc import MAX_YAML_BYTES, load_text

    # an input that could not be loaded (exit 3), as a scenario file that is missing, a folder or a FIFO
    hint = "--scope FILE.yaml (see docs/verify.md)"
    try:
        text = read_text(path, limit=MAX_YAML_BYTES)
    except FileNotFoundError:
        raise LoadError(f"no such scope file: {path}", hint=hint) from None
    except IsADirectoryError:
        raise LoadError(f"{path} is a folder, not a scope file", hint=hint) from None
    except UnsafeFile as exc:
        raise LoadError(f"cannot read the scope file {path}: {exc}", hint=hint) from None
    except OSError as exc:
        raise LoadError(f"cannot read the scope file {path}: {exc.strerror or exc}", hint=hint) from None
    except ValueError as exc:  # not UTF-8, or a NUL in the name
        raise LoadError(f"cannot read the scope file {path}: {exc}", hint=hint) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        span = Span(path, mark.line + 1, mark.column + 1) if mark else None
        where = span.location() if span else path
        detail = f"the scope is not valid YAML: {getattr(exc, 'problem', exc)}"
        raise ScopeError(where, detail, span=span, code=S001) from None
    try:
        return data, load_text(text, path)
    except ScenarioError:
        return data, None


def load_scope_file(path: str | None, engine: Engine, *, properties: Collection[str] | None = None) -> Scope:
    """A scope file (YAML), or the shipped default scope (``properties``: as :func:`load_scope`)."""
    path = path or default_scope_path()
    data, doc = read_scope(path)
    return load_scope(data, engine, source=path, doc=doc, properties=properties)
