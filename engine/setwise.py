"""Set-at-a-time evaluation of a question: one pass per rule body for a whole set of bound values.

pyDatalog evaluates a question top-down with a subgoal (and a table) per bound value: a question asked for
a set of 3,000 objects (judgelog.incremental's ``Among``) runs the body, and every derived atom under it,
3,000 times. Here the same question is answered by *query-subquery* evaluation over sets, in Python: the
body's literals are taken in turn over the whole set of bindings; a derived atom collects the distinct
values its known arguments take over all the bindings and asks its rules once for that set (each rule body
seeded with the head values, in turn evaluated the same way), so a rule body is evaluated once per call
pattern and question, not once per value. What a predicate's rules gave for a call pattern is kept for the
question, so a second call asks only for the values not asked yet.

The facts come from the backend: the state's facts by predicate (:class:`Base`, kept in step with the state
by the backend's sync), the facts it computes itself (aggregates and recursive components,
judgelog.materialise, complete before any question) and those the rule files state. Only the derived
predicates pyDatalog would evaluate through variants (``CompiledProgram.idb``, never recursive) are
evaluated here, so the evaluation always ends, and ``not`` reads a predicate of a lower stratum that is
complete for the values asked. Comparisons and arithmetic follow the rule language (judgelog.ast.arith:
``/`` rounds down and a division by zero has no value, so the literal holds for no binding; ordering a
word against a number is refused; an integer beyond ``Limits.int_digits`` stops the question, L003).

The answers are the pyDatalog backend's (tests/test_setwise.py compares both, on every bundled scenario
and on boards where the bound sets are large); proofs are still found top-down, answer by answer.

>>> from judgelog import Engine
>>> from judgelog.analysis import checked_question
>>> engine = Engine()
>>> state = engine.load(engine.example("proliferate_kinds.yaml"))
>>> text = "toughness(O, T), not counter(O, m1m1, _)"
>>> body, names = checked_question(engine.program, text)
>>> backend = engine.backend
>>> with backend.session(state.facts) as view:
...     top_down = set(backend.ask_body(view, body, names))
...     objects = frozenset(f[1] for f in state.facts if f[0] == "permanent")
...     found = answer(backend.planner, Base(state.facts), view.computed_by, body, names, {"O": objects})
>>> found == top_down, len(found) > 0
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from itertools import chain, product
from operator import itemgetter
from typing import Any, NamedTuple

from .ast import Atom, BinOp, Comparison, Const, Negation, Rule, Term, Var, arith, term_vars
from .bounded import limit_error
from .compiled import CompiledProgram
from .joins import check_numbers, compare

__all__ = ["Base", "Planner", "Unsupported", "answer"]

Row = tuple
Key = tuple
Index = Mapping[Key, Collection[Row]]


class Unsupported(Exception):
    """A body this evaluator does not plan (a literal that never becomes ready): ask it top-down."""


class Base:
    """The state's facts by predicate, with indexes on argument positions made on first use. The backend
    updates it with each change of facts (:meth:`update`: the indexes of a predicate whose facts are all
    given are updated in place, the others dropped) and drops the indexes of the predicates whose computed
    facts may have changed (:meth:`forget`). ``mixed``: the predicates whose facts come from elsewhere too
    (computed, or stated by the rule files)."""

    __slots__ = ("by_pred", "_indexes", "_mixed")

    def __init__(self, facts: Iterable[tuple], *, mixed: Collection[str] = frozenset()) -> None:
        self.by_pred: dict[str, set[tuple]] = {}
        for fact in facts:
            self.by_pred.setdefault(fact[0], set()).add(fact)
        self._indexes: dict[str, dict[tuple[int, ...], dict[Key, set[Row]]]] = {}  # pred -> positions -> index
        self._mixed = mixed

    def update(self, added: Mapping[str, list[tuple]], removed: Mapping[str, list[tuple]]) -> None:
        """Apply a change of facts, given by predicate (judgelog.factview.by_pred): the facts removed, then
        those added. The indexes of a predicate whose facts also come from elsewhere are dropped, to be made
        again; the others take each row in or out."""
        by_pred, indexes = self.by_pred, self._indexes
        dropped = [p for p in chain(removed, added) if p in indexes and p in self._mixed]
        self.forget(dropped)
        for pred, facts in removed.items():
            found = by_pred.get(pred)
            if found is not None:
                found.difference_update(facts)
            for positions, index in indexes.get(pred, {}).items():
                for fact in facts:
                    row = fact[1:]
                    key = tuple([row[i] for i in positions])
                    rows = index.get(key)
                    if rows is not None:
                        rows.discard(row)
                        if not rows:
                            del index[key]
        for pred, facts in added.items():
            by_pred.setdefault(pred, set()).update(facts)
            if pred in indexes:
                for fact in facts:
                    _index_row(indexes[pred], fact[1:])

    def forget(self, preds: Iterable[str]) -> None:
        for pred in preds:
            self._indexes.pop(pred, None)

    def computed(self, fact: tuple) -> None:
        """A fact just computed (judgelog.materialise): put into the indexes made of its predicate so far, so
        that a question asked while the computed facts grow reads every one made before it."""
        indexes = self._indexes.get(fact[0])
        if indexes:
            _index_row(indexes, fact[1:])

    def index(
        self, pred: str, positions: tuple[int, ...], computed: Mapping[Any, Iterable[tuple]], stated: Iterable[tuple]
    ) -> dict[Key, set[Row]]:
        """The facts of ``pred`` (given, ``computed`` by first argument, ``stated`` by the rule files, as
        argument tuples) by their values at ``positions``."""
        by_positions = self._indexes.setdefault(pred, {})
        found = by_positions.get(positions)
        if found is None:
            rows = {f[1:] for f in self.by_pred.get(pred, ())}
            for facts in computed.values():
                rows.update(f[1:] for f in facts)
            rows.update(stated)
            found = {}
            for row in rows:
                found.setdefault(tuple([row[i] for i in positions]), set()).add(row)
            by_positions[positions] = found
        return found


def _index_row(indexes: dict[tuple[int, ...], dict[Key, set[Row]]], row: Row) -> None:
    """Put a row into each index of its predicate (by its values at that index's positions)."""
    for positions, index in indexes.items():
        index.setdefault(tuple([row[i] for i in positions]), set()).add(row)


Step = Callable[["_Question", list[Row]], list[Row]]
_MAX_PLANS = 4096  # plans of bodies kept (rule bodies and questions) before they are made again


class _RulePlan(NamedTuple):
    """How one rule is asked for a call pattern: the head's values at the pattern's positions seed the
    body's variables ``names`` (``checks``: what each key value must equal), then the steps, then the head."""

    names: tuple[str, ...]
    checks: tuple[tuple[int, str, Any], ...]  # (position in the key, "new" | "var" | "const", index or value)
    steps: tuple[Step, ...]
    head: Callable[[Row], tuple | None]


class _Question:
    """One question's evaluation: the answers of each derived predicate per call pattern, for the values
    asked so far."""

    def __init__(
        self,
        planner: Planner,
        base: Base,
        computed_by: Mapping[str, Mapping[Any, Iterable[tuple]]],
        dead: Collection[int],
    ) -> None:
        self.planner = planner
        self.compiled = planner.compiled
        self.program = planner.program
        self.base = base
        self.computed_by = computed_by
        self.dead = dead
        # (pred, positions) -> (the keys asked, key -> rows)
        self.tables: dict[tuple[str, tuple[int, ...]], tuple[set[Key], dict[Key, set[Row]]]] = {}

    # -- facts and derived predicates -------------------------------------------
    def facts_index(self, pred: str, positions: tuple[int, ...]) -> Index:
        return self.base.index(pred, positions, self.computed_by.get(pred, {}), self.program.ground_facts(pred))

    def solve(self, pred: str, positions: tuple[int, ...], keys: set[Key]) -> Index:
        """The rows of a derived ``pred`` whose values at ``positions`` are one of ``keys``, by key."""
        asked, table = self.tables.setdefault((pred, positions), (set(), {}))
        new = keys - asked
        if not new:
            return table
        asked |= new
        facts = self.facts_index(pred, positions)
        for key in new:
            rows = facts.get(key)
            if rows:
                table.setdefault(key, set()).update(rows)
        key_of = _maker([("i", i) for i in positions])
        for rule in self.compiled.rules_for.get(pred, ()):
            if rule.body and id(rule) not in self.dead:
                for row in self._rule_rows(rule, positions, new):
                    made = key_of(row)
                    if made in new:
                        table.setdefault(made, set()).add(row)
        return table

    def _rule_rows(self, rule: Rule, positions: tuple[int, ...], keys: set[Key]) -> list[Row]:
        """The head rows ``rule`` derives for the keys (its body seeded with the head's values there)."""
        plan = self.planner.rule_plan(rule, positions)
        width = len(plan.names)
        seeds: set[Row] = set()
        for key in keys:
            seed: list[Any] = [None] * width
            for k, kind, what in plan.checks:
                if kind == "new":
                    seed[what] = key[k]
                elif kind == "var":
                    if seed[what] != key[k]:
                        break
                elif what != key[k]:
                    break
            else:
                seeds.add(tuple(seed))
        rows = list(seeds)
        for step in plan.steps:
            if not rows:
                return []
            rows = step(self, rows)
        return [values for values in map(plan.head, rows) if values is not None]


class Planner:
    """The plans of one program's rule bodies and questions, by the variables known before them (made once
    and kept: a plan reads no state). ``int_digits``: the integer limit of arithmetic (L003)."""

    def __init__(self, compiled: CompiledProgram, *, int_digits: int | None = None) -> None:
        self.compiled = compiled
        self.program = compiled.program
        self.int_digits = int_digits
        self.plans: dict[tuple, tuple[tuple[Step, ...], list[str]]] = {}
        self.rule_plans: dict[tuple[int, tuple[int, ...]], _RulePlan] = {}

    def rule_plan(self, rule: Rule, positions: tuple[int, ...]) -> _RulePlan:
        found = self.rule_plans.get((id(rule), positions))
        if found is not None:
            return found
        names: list[str] = []
        checks: list[tuple[int, str, Any]] = []
        for k, i in enumerate(positions):
            arg = rule.head.args[i]
            if isinstance(arg, Var):
                if arg.name in names:
                    checks.append((k, "var", names.index(arg.name)))
                else:
                    names.append(arg.name)
                    checks.append((k, "new", len(names) - 1))
            elif isinstance(arg, Const):
                checks.append((k, "const", arg.value))
            # an expression in the head: the rows are filtered by their key afterwards
        steps, schema = self.plan(("rule", id(rule)), self.program.body(rule), names)
        head = _maker([self._part(a, schema) for a in rule.head.args])
        found = _RulePlan(tuple(names), tuple(checks), steps, head)
        self.rule_plans[(id(rule), positions)] = found
        return found

    # -- planning ---------------------------------------------------------------
    def plan(self, key: tuple, body: Sequence, bound: Sequence[str]) -> tuple[tuple[Step, ...], list[str]]:
        """The steps of ``body`` with the variables ``bound`` known (in that order in each row), and the
        variables of a row after them: checks first, bindings by ``=`` next, then an atom joined on a known
        variable before one that is not, and the one with the fewest unknown variables that the body reads
        elsewhere (anonymous ones bind nothing), then the fewest unknown arguments (the first of those as
        written)."""
        found = self.plans.get((key, tuple(bound)))
        if found is not None:
            return found
        if len(self.plans) >= _MAX_PLANS:  # questions differ by the values they name: forget the plans made
            self.plans.clear()
        schema = list(bound)
        known = set(bound)
        waiting = list(body)
        steps: list[Step] = []
        while waiting:
            lit = next((x for x in waiting if _check(x, known)), None)
            if lit is None:
                lit = next((x for x in waiting if _binds(x, known)), None)
            if lit is None:
                atoms = [x for x in waiting if isinstance(x, Atom) and _ready_atom(x, known)]
                if not atoms:
                    raise Unsupported(f"no literal of {', '.join(map(str, waiting))} can be evaluated next")
                # an atom joined on a known variable before one that is not (a product of unconnected parts:
                # has_keyword(S, deathtouch) then creature(R) would pair every S with every R), then the
                # fewest unknown named variables (an anonymous one binds nothing: needed(O,
                # _, _) before controlled_by(C, P)), then the fewest unknown arguments
                lit = min(
                    atoms,
                    key=lambda a: (
                        bool(known) and not any(term_vars(t) & known for t in a.args if not isinstance(t, Const)),
                        len({v for t in a.args for v in term_vars(t) if not v.startswith("_")} - known),
                        sum(1 for t in a.args if not term_vars(t) <= known),
                    ),
                )
            waiting.remove(lit)
            steps.append(self._step(lit, schema, known))
        found = (tuple(steps), schema)
        self.plans[(key, tuple(bound))] = found
        return found

    def _step(self, lit: Any, schema: list[str], known: set[str]) -> Step:
        """The step of one literal; ``schema`` and ``known`` are extended with the variables it binds."""
        if isinstance(lit, Comparison):
            return self._comparison(lit, schema, known)
        negated = isinstance(lit, Negation)
        atom: Atom = lit.atom if negated else lit
        consts: list[tuple[int, Any]] = []
        known_args: list[tuple[int, tuple[str, Any]]] = []
        new: list[int] = []  # argument positions whose values extend the row
        same: list[tuple[int, int]] = []  # (position, earlier position): a variable twice in the atom
        first: dict[str, int] = {}
        for i, arg in enumerate(atom.args):
            if isinstance(arg, Const):
                consts.append((i, arg.value))
            elif term_vars(arg) <= known:
                known_args.append((i, self._part(arg, schema)))
            elif isinstance(arg, Var):
                if arg.name in first:
                    same.append((i, first[arg.name]))
                else:
                    first[arg.name] = i
                    if not negated:
                        new.append(i)
            else:  # pragma: no cover - _ready_atom admits no other
                raise Unsupported(f"{arg} in {atom}")
        if not negated:
            for i in new:
                schema.append(atom.args[i].name)  # type: ignore[union-attr]
                known.add(atom.args[i].name)  # type: ignore[union-attr]
        # the key: the constants first, then the known arguments
        pos = tuple([i for i, _ in consts] + [i for i, _ in known_args])
        key_of = _maker([("c", v) for _, v in consts] + [part for _, part in known_args])
        extend = _maker([("i", i) for i in new])
        pred = atom.pred
        derived = pred in self.compiled.idb

        def lookup(q: _Question, keys: list) -> Index:
            if derived:
                return q.solve(pred, pos, {k for k in keys if k is not None})
            return q.facts_index(pred, pos)

        if negated:

            def step_not(q: _Question, rows: list[Row]) -> list[Row]:
                keys = list(map(key_of, rows))
                index = lookup(q, keys)
                out = []
                for row, key in zip(rows, keys):
                    if key is None:
                        continue
                    found = index.get(key)
                    if not found or same and not any(all(r[i] == r[j] for i, j in same) for r in found):
                        out.append(row)
                return out

            return step_not

        def step(q: _Question, rows: list[Row]) -> list[Row]:
            keys = list(map(key_of, rows))
            index = lookup(q, keys)
            out = []
            for row, key in zip(rows, keys):
                found = index.get(key) if key is not None else None
                if not found:
                    continue
                for r in found:
                    if same and not all(r[i] == r[j] for i, j in same):
                        continue
                    out.append(row + extend(r))  # type: ignore[operator]
            return out

        return step

    def _comparison(self, lit: Comparison, schema: list[str], known: set[str]) -> Step:
        left, right, op = lit.left, lit.right, lit.op
        if op == "=" and not term_vars(left) <= known:
            left, right = right, left
        if op == "=" and not term_vars(right) <= known:  # right is an unbound variable: bind it
            assert isinstance(right, Var)
            value = self.term(left, schema)
            schema.append(right.name)
            known.add(right.name)

            def bind(q: _Question, rows: list[Row]) -> list[Row]:
                out = []
                for row in rows:
                    v = value(row)
                    if v is not None:
                        out.append(row + (v,))
                return out

            return bind
        lf, rf = self.term(left, schema), self.term(right, schema)

        def check(q: _Question, rows: list[Row]) -> list[Row]:
            return [row for row in rows if compare(op, lf(row), rf(row))]

        return check

    def _part(self, term: Term, schema: list[str]) -> tuple[str, Any]:
        """``term`` as a part of a tuple made from a row (see :func:`_maker`)."""
        if isinstance(term, Const):
            return ("c", term.value)
        if isinstance(term, Var):
            return ("i", schema.index(term.name))
        return ("f", self.term(term, schema))

    def term(self, term: Term, schema: list[str]) -> Callable[[Row], Any]:
        """A function of a row giving ``term``'s value (None: no value, a division by zero)."""
        if isinstance(term, Const):
            value = term.value
            return lambda row: value
        if isinstance(term, Var):
            at = schema.index(term.name)
            return lambda row: row[at]
        if isinstance(term, BinOp):
            lf, rf, op, digits = self.term(term.left, schema), self.term(term.right, schema), term.op, self.int_digits

            def compute(row: Row) -> Any:
                a, b = lf(row), rf(row)
                if a is None or b is None:
                    return None
                check_numbers(op, a, b)
                value = arith(op, a, b)
                if digits is not None and type(value) is int and abs(value) >= 10**digits:
                    raise limit_error(digits, "arithmetic")
                return value

            return compute
        raise Unsupported(f"cannot evaluate {term}")


def _maker(parts: Sequence[tuple[str, Any]]) -> Callable[[Row], tuple | None]:
    """A function of a row making the tuple of ``parts``: ("i", a position of the row), ("c", a constant)
    or ("f", a function of the row, whose None makes the whole tuple None)."""
    kinds = {kind for kind, _ in parts}
    if not parts:
        return lambda row: ()
    if kinds == {"i"}:
        at = [p for _, p in parts]
        if len(at) == 1:
            i = at[0]
            return lambda row: (row[i],)
        return itemgetter(*at)
    if "f" not in kinds:
        spec = [(kind == "i", p) for kind, p in parts]
        return lambda row: tuple([row[p] if is_row else p for is_row, p in spec])
    funcs = [
        (lambda row, i=p: row[i]) if kind == "i" else (lambda row, c=p: c) if kind == "c" else p for kind, p in parts
    ]

    def make(row: Row) -> tuple | None:
        values = tuple([f(row) for f in funcs])
        return None if None in values else values

    return make


def _check(lit: Any, known: set[str]) -> bool:
    """A negation or comparison whose variables are all known (a negation's unknown ``_`` aside)."""
    if isinstance(lit, Negation):
        return all(v.startswith("_") or v in known for a in lit.atom.args for v in term_vars(a)) and all(
            isinstance(a, Var) or term_vars(a) <= known for a in lit.atom.args
        )
    if isinstance(lit, Comparison):
        return term_vars(lit.left) <= known and term_vars(lit.right) <= known
    return False


def _binds(lit: Any, known: set[str]) -> bool:
    """``X = expression`` with the expression's variables known and X not."""
    if not isinstance(lit, Comparison) or lit.op != "=":
        return False
    for side, other in ((lit.left, lit.right), (lit.right, lit.left)):
        if isinstance(side, Var) and side.name not in known and term_vars(other) <= known:
            return True
    return False


def _ready_atom(atom: Atom, known: set[str]) -> bool:
    """Every argument a variable, or known (an expression's variables are)."""
    return all(isinstance(a, Var) or term_vars(a) <= known for a in atom.args)


def answer(
    planner: Planner,
    base: Base,
    computed_by: Mapping[str, Mapping[Any, Iterable[tuple]]],
    body: Sequence,
    names: Sequence[str],
    among: Mapping[str, Collection] | None = None,
    *,
    dead: Collection[int] = (),
) -> set[tuple]:
    """The distinct bindings of ``names`` satisfying ``body``, with each variable of ``among`` bound to one
    of its values first; ``dead``: ids of rules that cannot fire in the state (skipped). Raises
    :class:`Unsupported` for a body it cannot plan."""
    question = _Question(planner, base, computed_by, dead)
    bound = list(among or ())
    steps, schema = planner.plan(("question", tuple(body)), body, bound)
    rows: list[Row] = list(product(*(among[v] for v in bound))) if among else [()]
    for step in steps:
        if not rows:
            return set()
        rows = step(question, rows)
    at = [schema.index(n) for n in names]
    return {tuple(row[i] for i in at) for row in rows}
