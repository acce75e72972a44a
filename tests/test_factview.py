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


CHANGES = st.lists(st.tuples(st.lists(FACTS, max_size=4), st.lists(FACTS, max_size=4)), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.frozensets(FACTS, max_size=10), CHANGES, st.integers(0, 6))
def test_a_states_facts_chained_over_their_root_are_the_sets_they_stand_for(base, changes, limit):
    """States made one from another (chained) hold their facts, relate to each other and to the working
    copies over them by their differences, and are made whole past the chain's limit."""
    import judgelog.factview as fv

    saved, fv.CHAIN_MAX = fv.CHAIN_MAX, limit
    try:
        states, models = [base], [base]
        for add, remove in changes:
            parent, model = states[-1], models[-1]
            plus = frozenset(f for f in add if f not in model)
            minus = frozenset(f for f in remove if f in model) - plus
            states.append(fv.chained(parent, plus, minus))
            models.append((model | plus) - minus)
        work = Overlay(states[-1])
        work.add(("c", 9))
        work.discard(next(iter(models[-1]), ("z", 0)))
        every = list(zip(states, models)) + [(work.snapshot(), frozenset(work))]
        for facts, model in every:
            assert len(facts) == len(model) and set(facts) == model and facts == model
            assert all(f in facts for f in model) and ("z", 1) not in facts
            assert as_frozenset(facts) == model and (facts | {("z", 1)}) == model | {("z", 1)}
        for old, old_model in every:
            for new, new_model in every:
                found = difference(old, new)
                if found is not None:
                    assert found == (new_model - old_model, old_model - new_model)
                assert (old == new) == (old_model == new_model)
        # neighbours are related by their change, whatever the limit made whole
        for (old, old_model), (new, new_model) in zip(every, every[1:]):
            assert difference(old, new) == (new_model - old_model, old_model - new_model)
    finally:
        fv.CHAIN_MAX = saved


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(FACTS, st.integers(0, 3), max_size=8), CHANGES, st.integers(0, 6))
def test_a_chained_map_is_the_mapping_it_stands_for(root, changes, limit):
    import judgelog.factview as fv

    saved, fv.CHAIN_MAX = fv.CHAIN_MAX, limit
    try:
        mapping, model = fv.ChainedMap(dict(root)), dict(root)
        for i, (add, remove) in enumerate(changes):
            mapping = mapping.updated(remove, {f: i for f in add})
            for f in remove:
                model.pop(f, None)
            model.update({f: i for f in add})
            assert dict(mapping) == model and len(mapping) == len(model) and bool(mapping) == bool(model)
            assert all(mapping.get(f) == model.get(f) and (f in mapping) == (f in model) for f in root)
    finally:
        fv.CHAIN_MAX = saved


def test_views_on_either_side_of_a_large_step_are_related_by_their_small_change():
    """The last snapshot of an action that changed many facts and the first of the next one differ by a few
    facts; their paths to the common base (the state before the large step, which the state after it was
    made whole from) are long. They are related through that base, at the cost of the paths: within the
    limit the change is found, beyond it None (compare them whole)."""
    import judgelog.factview as fv

    saved, fv.CHAIN_MAX = fv.CHAIN_MAX, 10
    try:
        base = frozenset(("a", i) for i in range(50))
        step = Overlay(base)
        for i in range(30):
            step.add(("b", i))
        step.discard(("a", 0))
        last = step.snapshot()  # the large step's last snapshot: its base with 31 facts changed
        state = fv.chained(base, frozenset(step.plus), frozenset(step.minus))
        assert type(state) is frozenset  # past CHAIN_MAX: made whole, related to ``base`` by made_from
        after = Overlay(state)
        after.add(("c", 1))
        after.discard(("b", 3))
        first = after.snapshot()
        exact = (frozenset(first) - frozenset(last), frozenset(last) - frozenset(first))
        assert exact == ({("c", 1)}, {("b", 3)})
        assert difference(last, first, 100) == exact
        assert difference(first, last, 100) == (exact[1], exact[0])
        assert difference(last, first, 100) == exact  # kept by the two fact sets' identity: the same answer
        fv._FOUND.clear()
        assert difference(last, first, 20) is None  # each path changes 31 facts or more
    finally:
        fv.CHAIN_MAX = saved


def test_the_cheapest_common_base_is_chosen():
    """Two snapshots over the same state are related through that state, not through a base further up
    whose paths change more facts (the answer is the same either way; the search looks at identities
    first and combines only the two paths it chose)."""
    root = frozenset(("a", i) for i in range(20))
    mid = frozenset(("a", i) for i in range(1, 20)) | {("b", 1)}
    made_from(mid, root, frozenset({("b", 1)}), frozenset({("a", 0)}))
    one, two = FactView(mid, frozenset({("c", 1)})), FactView(mid, frozenset({("c", 2)}))
    assert difference(one, two, 2) == ({("c", 2)}, {("c", 1)})  # via mid: one fact on each path
    assert difference(one, FactView(root), 10) == ({("a", 0)}, {("b", 1), ("c", 1)})
