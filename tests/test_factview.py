"""Fact sets as a base plus a difference (judgelog.factview): the working copy behaves as a set, and the
difference of two fact sets found from their bases is the one a whole comparison gives."""

from hypothesis import given, settings
from hypothesis import strategies as st

from judgelog.factview import FactView, Overlay, as_frozenset, difference, made_from

FACTS = st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 6))
OPS = st.lists(
    st.tuples(st.sampled_from(["add", "discard", "or", "sub", "snap"]), st.lists(FACTS, max_size=4)), max_size=12
)


def _run(work: Overlay, model: set, ops) -> tuple[Overlay, set, list]:
    snaps = []
    for op, facts in ops:
        if op == "add":
            for f in facts:
                work.add(f)
                model.add(f)
        elif op == "discard":
            for f in facts:
                work.discard(f)
                model.discard(f)
        elif op == "or":
            work, model = work | facts, model | set(facts)
        elif op == "sub":
            work, model = work - facts, model - set(facts)
        else:
            snaps.append((work.snapshot(), frozenset(model)))
        assert len(work) == len(model) and set(work) == model and work == model
    snaps.append((work.snapshot(), frozenset(model)))
    return work, model, snaps


@settings(max_examples=150, deadline=None)
@given(st.frozensets(FACTS, max_size=10), OPS, OPS)
def test_an_overlay_is_the_set_it_stands_for_and_differences_match(base, first, second):
    work, model, snaps = _run(Overlay(base), set(base), first)
    # a state's facts made from the working copy, and a second action over them
    made = as_frozenset(work)
    made_from(made, base, frozenset(work.plus), frozenset(work.minus))
    assert made == frozenset(model)
    _, _, more = _run(Overlay(made), set(made), second)
    every = [(base, base), (made, made)] + snaps + more
    for old, old_model in every:
        for new, new_model in every:
            found = difference(old, new)
            assert found is not None
            assert found == (new_model - old_model, old_model - new_model)
            assert (old == new) == (old_model == new_model)


def test_unrelated_fact_sets_have_no_difference_without_a_whole_comparison():
    assert difference(frozenset({("a", 1)}), frozenset({("a", 1)})) is None
    view = FactView(frozenset({("a", 1)}), frozenset({("b", 2)}))
    assert view == frozenset({("a", 1), ("b", 2)}) and view.frozen() == {("a", 1), ("b", 2)}
