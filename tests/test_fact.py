"""judgelog.Fact: one value type for a ground atom, whose text is rule syntax and parses back to it.

The property test draws random predicates and arguments (words that need quoting: quotes, backslashes,
newlines, tabs, non-ASCII, empty, capitalised, digits, the language's own words; integers, negative and
large) and checks ``Fact.parse(str(fact)) == fact``. Hypothesis runs derandomized, without deadlines.
"""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgelog import Engine, Fact, QueryError
from judgelog.ast import Atom, Const
from judgelog.fact import fact_order
from judgelog.parser import MAX_INT_DIGITS

PREDICATE = st.from_regex(r"[a-z][A-Za-z0-9_]{0,12}", fullmatch=True)
WORDS = st.sampled_from(["", "a", "Bob", "_x", "X", "3", "-3", "not", "min", "max", "count", "sum", "é", 'a"b'])
TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list('"\\\n\t\r ,()._-:')),
        st.characters(codec="utf-8", exclude_categories=["Cs"]),
    ),
    max_size=12,
)
LIMIT = 10**MAX_INT_DIGITS  # the rule language reads integers of at most MAX_INT_DIGITS digits
INTEGER = st.one_of(st.integers(-1000, 1000), st.integers(-LIMIT + 1, LIMIT - 1))
VALUE = st.one_of(WORDS, TEXT, PREDICATE, INTEGER)


@settings(max_examples=400, derandomize=True, deadline=None, database=None)
@given(PREDICATE, st.lists(VALUE, max_size=5))
def test_the_text_of_a_fact_parses_back_to_it(pred, args):
    fact = Fact(pred, *args)
    text = str(fact)
    parsed = Fact.parse(text)
    assert parsed == fact and type(parsed) is Fact
    assert [type(v) for v in parsed.args] == [type(v) for v in args]  # 3 and "3" stay apart
    assert "\n" not in text  # one line, whatever the words hold
    assert eval(repr(fact), {"Fact": Fact}) == fact


def test_a_fact_is_the_tuple_it_stands_for():
    fact = Fact("counter", "bear", "p1p1", 2)
    assert fact == ("counter", "bear", "p1p1", 2) and hash(fact) == hash(("counter", "bear", "p1p1", 2))
    assert fact in {("counter", "bear", "p1p1", 2)} and ("counter", "bear", "p1p1", 2) in {fact}
    assert (fact.pred, fact.args, fact.arity, fact.signature) == ("counter", ("bear", "p1p1", 2), 3, "counter/3")
    assert Fact.of(("tapped", "bear")) == Fact("tapped", "bear") and Fact.of(fact) is fact
    assert pickle.loads(pickle.dumps(fact)) == fact and type(copy.deepcopy(fact)) is Fact
    with pytest.raises(AttributeError):
        fact.extra = 1  # type: ignore[attr-defined]  # no __dict__: as cheap as a tuple


def test_text_is_rule_syntax():
    assert str(Fact("name", "bear", "Grizzly Bears")) == 'name(bear, "Grizzly Bears")'
    assert str(Fact("say", 'a "b"\\ c\nd\te')) == r'say("a \"b\"\\ c\nd\te")'
    assert str(Fact("n", -3, "3", "X", "")) == 'n(-3, "3", "X", "")'
    assert str(Fact("turn")) == "turn()" and Fact.parse("turn") == Fact.parse("turn()") == Fact("turn")
    assert repr(Fact("tapped", "bear")) == "Fact('tapped', 'bear')"


def test_an_atom_of_constants_is_a_fact_and_back():
    atom = Atom("power", (Const("bear"), Const(3)))
    assert Fact.from_atom(atom) == ("power", "bear", 3)
    assert Fact.from_atom(atom).to_atom() == atom


@pytest.mark.parametrize(
    ("text", "col", "found"),
    [
        ("tapped(X)", 8, "expected a constant, found variable X"),
        ("tapped(bear, _)", 14, "expected a constant, found variable _"),
        ("tapped(bear), tapped(wolf)", 15, "expected one atom"),
        ("not tapped(bear)", 1, "expected one atom"),
        ("X = 1", 3, "expected one atom"),
        ("tapped(bear", 12, "expected ',' or ')', found end of input"),
        ("tapped(f(x))", 9, "expected ',' or ')'"),
        ("", 1, "expected a query, found end of input"),
    ],
)
def test_what_is_not_a_fact_is_refused_with_its_place(text, col, found):
    with pytest.raises(QueryError) as refused:
        Fact.parse(text, "facts.txt")
    (diagnostic,) = refused.value.diagnostics
    assert (diagnostic.code, diagnostic.span.file, diagnostic.span.line, diagnostic.span.col) == (
        "E001",
        "facts.txt",
        1,
        col,
    )
    assert diagnostic.message.startswith(found) and diagnostic.hint
    assert refused.value.render().startswith(f"facts.txt:1:{col}: error[E001]: ")


def test_too_large_an_integer_is_refused():
    with pytest.raises(QueryError) as refused:
        Fact.parse(str(Fact("n", 10**MAX_INT_DIGITS)))
    assert "integer too large" in refused.value.diagnostics[0].message


def test_fact_order_lists_a_fact_and_its_tuple_alike():
    facts = [Fact("b", 1), ("a", "x"), Fact("a", 2), ("a", 10)]
    assert sorted(facts, key=fact_order) == sorted((tuple(f) for f in facts), key=repr)


def test_a_state_answers_with_facts():
    state = Engine().state_from_dict(
        {"players": ["alice", "bob"], "objects": {"bear": {"card": "Grizzly Bears", "controller": "alice"}}}
    )
    (power,) = state.derived("power")
    assert type(power) is Fact and str(power) == "power(bear, 2)"
    assert state.explain(power) is not None and state.explain(Fact.parse("power(bear, 2)")) is not None
