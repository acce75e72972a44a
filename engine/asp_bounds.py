"""Bounds on the numbers the rules of a clingo slice can make, so that overflow tests that cannot hold are left out.

clingo computes with 32-bit integers and wraps silently, so the clingo backend grounds, beside a rule computing
``N = B + P - M + X``, a rule that flags the question when the sum may pass 2**31 (judgelog.asp.overflow_rules).
That test joins the rule's whole body again. Where every operand is known to be small it cannot hold, and it is
left out. A fact's numbers are below ``CLINGO_INT_BOUND`` (10**7: the backend refuses a larger one, L003); a
derived predicate's numbers at a place are bounded by what its rules write there (a constant, a variable bound by
an atom of the body, arithmetic of those); a recursive predicate's and an aggregate's numbers are not bounded.

Only the rules that can fire in the state count (the others are never ground), and a specialised predicate
(judgelog.specialise) has the bounds of its own rules. The test of a rule is left out only when every term it
would test is bounded by the largest 32-bit integer; anything the analysis does not know keeps the test.

>>> from judgelog.ast import Atom, BinOp, Comparison, Const, Rule, Var
>>> N, A = Var("N"), Var("A")
>>> r = Rule(Atom("p", (N,)), (Atom("f", (A,)), Comparison("=", N, BinOp("+", A, Const(1)))))
>>> m = Magnitudes(lambda name: [r] if name == "p" else [], recursive=frozenset(), fact_bound=10**7)
>>> m.places("p"), m.safe(r)  # f's numbers are facts', p's at most one more
((10000001,), True)
>>> m.safe(Rule(Atom("q", (N,)), (Atom("p", (A,)), Comparison("=", N, BinOp("*", A, A)))))
False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .ast import Atom, BinOp, Comparison, Const, Rule, Var

__all__ = ["Magnitudes", "INT_MAX"]

INT_MAX = 2**31 - 1  # clingo's largest integer


class Magnitudes:
    """Upper bounds of the magnitude of the numbers at each place of each predicate, from the rules
    ``rules_of(name)`` gives (the rules that can fire, specialised names included); None where unknown."""

    def __init__(self, rules_of: Callable[[str], Sequence[Rule]], *, recursive: frozenset[str], fact_bound: int):
        self._rules_of = rules_of
        self._recursive = recursive
        self._fact_bound = fact_bound
        self._places: dict[str, tuple[int | None, ...] | None] = {}
        # by the id of a rule, with the rule (an unfolded rule is made again for each slice: an id may be reused)
        self._safe: dict[int, tuple[Rule, bool]] = {}

    def places(self, name: str) -> tuple[int | None, ...] | None:
        """The bound of each place of ``name`` (None: the predicate has no rules, facts only; every place is
        bounded by the facts' bound)."""
        if name in self._places:
            return self._places[name]
        rules = list(self._rules_of(name))
        if not rules:
            self._places[name] = None
            return None
        arity = len(rules[0].head.args)
        unknown: tuple[int | None, ...] = (None,) * arity
        if name in self._recursive:
            self._places[name] = unknown
            return unknown
        self._places[name] = unknown  # while its rules are read (a cycle through specialised names: unknown)
        out: list[int | None] = [self._fact_bound] * arity  # facts given for a derived predicate
        for rule in rules:  # an aggregate's value (an Aggregate in the head) is not bounded
            bounds = self._var_bounds(rule)
            for i, arg in enumerate(rule.head.args):
                got = out[i]
                if got is not None:
                    term = _term_bound(arg, bounds) if isinstance(arg, (Var, Const, BinOp)) else None
                    out[i] = None if term is None else max(got, term)
        found = tuple(out)
        self._places[name] = found
        return found

    def _place(self, name: str, i: int) -> int | None:
        found = self.places(name)
        return self._fact_bound if found is None else found[i]

    def _var_bounds(self, rule: Rule) -> dict[str, int]:
        bounds: dict[str, int] = {}
        for lit in rule.body:
            if isinstance(lit, Atom):
                for i, arg in enumerate(lit.args):
                    if isinstance(arg, Var):
                        b = self._place(lit.pred, i)
                        if b is not None and (arg.name not in bounds or b < bounds[arg.name]):
                            bounds[arg.name] = b
        assignments = [
            (side.name, other)
            for lit in rule.body
            if isinstance(lit, Comparison) and lit.op == "="
            for side, other in ((lit.left, lit.right), (lit.right, lit.left))
            if isinstance(side, Var)
        ]
        changed = True
        while changed:
            changed = False
            for name, term in assignments:
                if name not in bounds:
                    b = _term_bound(term, bounds)
                    if b is not None:
                        bounds[name] = b
                        changed = True
        return bounds

    def safe(self, rule: Rule) -> bool:
        """No sum, difference or product of ``rule`` can pass the largest 32-bit integer (the places
        judgelog.asp.overflow_rules tests: the head's arithmetic and both sides of every comparison)."""
        found = self._safe.get(id(rule))
        if found is None or found[0] is not rule:
            found = self._safe[id(rule)] = (rule, self._fits(rule))
        return found[1]

    def _fits(self, rule: Rule) -> bool:
        sides = [t for lit in rule.body if isinstance(lit, Comparison) for t in (lit.left, lit.right)]
        terms = [t for t in (*rule.head.args, *sides) if isinstance(t, BinOp)]
        if not terms:
            return True
        bounds = self._var_bounds(rule)
        for term in terms:
            b = _term_bound(term, bounds)
            if b is None or b > INT_MAX:
                return False
        return True


def _term_bound(term: object, bounds: dict[str, int]) -> int | None:
    """A bound of the magnitude of ``term`` and of every result inside it (None: unknown)."""
    if isinstance(term, Const):
        return abs(term.value) if isinstance(term.value, int) else 0
    if isinstance(term, Var):
        return bounds.get(term.name)
    if isinstance(term, BinOp):
        a, b = _term_bound(term.left, bounds), _term_bound(term.right, bounds)
        if a is None or b is None:
            return None
        if term.op == "*":
            return max(a * b, a, b)
        # + and -; a division (as compiled, (a - ((a mod b + b) mod b)) / b) and min or max (a + b -/+ |a - b|,
        # then / 2) make no intermediate result larger than 2 * (|a| + |b|)
        return a + b if term.op in ("+", "-") else 2 * (a + b)
    return None
