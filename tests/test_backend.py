"""The pyDatalog backend: isolation of states, engines, threads and a user's own pyDatalog database;
name mangling; stratified negation; aggregates.

pyDatalog keeps ONE database per thread (its Logic(handle) is a shallow copy, and a new thread starts with
none). judgelog must nevertheless let two states, two engines and two threads ask questions in any
interleaving without one seeing the other's facts, and must neither disturb nor be disturbed by a user who
uses pyDatalog directly.
"""

from __future__ import annotations

import threading

import pytest
from paths import TESTS
from pyDatalog import Logic, pyDatalog

from judgelog import Engine, QueryError, ScenarioError

BACKEND_RULES = str(TESTS / "rules" / "backend_test.dl")
FLY_RULES = str(TESTS / "rules" / "active_player_flies.dl")


def bears_state(engine, **extra):
    data = {
        "players": ["alice", "bob"],
        "objects": {
            "bear": {"card": "Grizzly Bears", "controller": "alice"},
            "bear2": {"card": "Grizzly Bears", "controller": "bob", "tapped": True},
        },
    }
    data.update(extra)
    return engine.state_from_dict(data)


def wurm_state(engine):
    return engine.state_from_dict(
        {
            "players": ["carol", "dave"],
            "objects": {
                "wurm": {"card": "Craw Wurm", "controller": "dave"},
                "hero": {"card": "Benalish Hero", "controller": "carol", "counters": {"p1p1": 2}},
            },
        }
    )


def names(answers, var="X"):
    return sorted(a[var] for a in answers)


@pytest.fixture(scope="module")
def test_engine():
    return Engine(rules=[BACKEND_RULES])


# -- states -------------------------------------------------------------------------------------------
def test_two_states_interleaved_never_see_each_other(engine):
    s1, s2 = bears_state(engine), wurm_state(engine)
    for _ in range(5):
        assert names(s1.query("creature(X)")) == ["bear", "bear2"]
        assert names(s2.query("creature(X)")) == ["hero", "wurm"]
        assert s1.query("player(X)") == [{"X": "alice"}, {"X": "bob"}]
        assert s2.query("player(X)") == [{"X": "carol"}, {"X": "dave"}]
        assert s1.holds("tapped(bear2)") and not s2.holds("tapped(_)")
        assert s2.query("power(hero, N)") == [{"N": 3}]
        assert "hero" not in names(s1.query("power(X, N)"))
        with pytest.raises(QueryError, match="unknown object 'hero'"):  # s1 has no hero: refused (Q001), not []
            s1.query("power(hero, N)")
        assert s1.explain("creature(wurm)") is None
        assert s2.explain("creature(wurm)") is not None


def test_a_derived_state_leaves_the_original_unchanged(engine):
    s1 = bears_state(engine)
    s2 = s1.with_facts(s1.facts - {("tapped", "bear2")} | {("tapped", "bear")})
    for _ in range(3):
        assert s1.query("tapped(X)") == [{"X": "bear2"}]
        assert s2.query("tapped(X)") == [{"X": "bear"}]
    assert s1.query("can_block(B, A)") == s1.query("can_block(B, A)")


def test_a_proofs_remembered_answers_never_outlive_their_facts():
    """A proof's ground questions are remembered for the facts they were asked in (the view's answers): asked
    again in that state they are not evaluated again, and a proof in another state, or back in the first after
    it, sees only its own facts."""
    engine = Engine()
    s1 = bears_state(engine)
    s2 = s1.with_facts(s1.facts - {("tapped", "bear2")} | {("tapped", "bear")})
    first = s1.explain("cannot_attack(bear2)")
    assert first is not None and first.to_text() == s1.explain("cannot_attack(bear2)").to_text()
    with engine.backend.session(s1.facts) as view:
        remembered = dict(view.answers)
        assert remembered  # the first proof's questions
        assert s1.explain("cannot_attack(bear2)").to_text() == first.to_text()
        assert view.answers == remembered  # asked nothing new
    for _ in range(3):
        assert s2.explain("cannot_attack(bear2)") is None and s2.explain("cannot_attack(bear)") is not None
        assert s2.explain("can_attack(bear)") is None and s1.explain("can_attack(bear)") is not None
        assert s1.explain("cannot_attack(bear)") is None
        assert s1.explain("cannot_attack(bear2)").to_text() == first.to_text()


def test_equal_states_answer_alike(engine):
    a, b = bears_state(engine), bears_state(engine)
    assert a == b and a is not b
    assert a.query("creature(X)") == b.query("creature(X)")


def test_a_dropped_namespace_forgets_its_variants_only(monkeypatch):
    """With room for two namespaces per thread, states that leave different rules dead drop the least
    recently used namespace: what was compiled for it goes, the others' stays, and every answer is the same
    as with room for all (judgelog.liveness)."""
    from judgelog import liveness

    states = [
        bears_state(Engine()),
        wurm_state(Engine()),
        bears_state(Engine(), combat={"attackers": {"bear": "bob"}}),
    ]
    questions = ("creature(X)", "can_block(B, A)", "power(X, N)", "attacked(X)")
    roomy = [[s.query(q) for q in questions] for s in states]
    monkeypatch.setattr(liveness, "_MAX_NAMESPACES", 2)
    engine = Engine()
    states = [engine.state_from_dict(s.to_scenario()) for s in states]
    for _ in range(2):
        assert [[s.query(q) for q in questions] for s in states] == roomy
    with engine.backend.session(states[-1].facts) as view:  # the state asked last: no namespace more
        assert len(view.namespaces) <= 2
        # every variant kept is used by a namespace kept, and every namespace's variants are kept
        assert all(code.users and code.users <= set(view.namespaces_by_id) for code in view.variants.values())
        assert all(ns.id in view.variants[key].users for ns in view.namespaces_by_id.values() for key in ns.used)


NAMED_RULES = """
.decl t_untapped_owned(o: object, p: player) "{p} owns {o}, an untapped permanent"

@name t.untapped_owned
@cr 108.3
t_untapped_owned(O, P) :- owner(O, P), permanent(O), not tapped(O).

.decl t_owns_untapped(p: player) "{p} owns an untapped permanent"

@name t.owns_untapped
@cr 108.3
t_owns_untapped(P) :- player(P), t_untapped_owned(_, P).
"""


@pytest.mark.slow
def test_namespaces_that_agree_on_what_a_predicate_reaches_share_its_variants(monkeypatch, tmp_path):
    """A counter on a creature makes another namespace (rules about counters may fire), but a predicate that
    cannot reach a counter (which untapped permanents each player owns) has the same signature in both: its
    variant is compiled once and used by both. Power reaches the counters (the aggregates that sum their
    bonuses): its signature differs. The questions are asked top-down (pyDatalog's variants; most are
    answered set-at-a-time otherwise, judgelog.setwise), on an engine of its own (with the session's, what
    other tests asked first decides what is compiled)."""
    import judgelog.backend as backend_module

    monkeypatch.setattr(backend_module.Backend, "_setwise", lambda self, *args: None)
    path = tmp_path / "named.dl"
    path.write_text(NAMED_RULES)
    engine = Engine(rules=[str(path)])
    plain = bears_state(engine)
    objects = {
        "bear": {"card": "Grizzly Bears", "controller": "alice", "counters": {"p1p1": 1}},
        "bear2": {"card": "Grizzly Bears", "controller": "bob", "tapped": True},
    }
    countered = bears_state(engine, objects=objects)
    questions = ("t_owns_untapped(P)", "power(X, N)")
    before = [plain.query(q) for q in questions]
    assert [countered.query(q) for q in questions] == [
        [{"P": "alice"}],
        [{"X": "bear", "N": 3}, {"X": "bear2", "N": 2}],
    ]
    assert [plain.query(q) for q in questions] == before
    variants, seen = engine.backend.variants, {}
    for state in (plain, countered):
        with engine.backend.session(state.facts) as view:
            seen[state] = (view.namespace.id, {p: variants._signature(view, p) for p in ("t_untapped_owned", "power")})
    (plain_ns, plain_sig), (countered_ns, countered_sig) = seen[plain], seen[countered]
    assert plain_ns != countered_ns
    assert plain_sig["t_untapped_owned"] == countered_sig["t_untapped_owned"]
    assert plain_sig["power"] != countered_sig["power"]
    with engine.backend.session(countered.facts) as view:
        shared = [c for k, c in view.variants.items() if k[0] == "t_untapped_owned"]
        assert shared and any(len(code.users) >= 2 for code in shared)  # compiled once, used by both


# -- engines ------------------------------------------------------------------------------------------
def test_two_engines_in_one_process():
    plain = Engine()
    flying = Engine(rules=[FLY_RULES])
    assert flying.backend.prefix != plain.backend.prefix
    p_state, f_state = bears_state(plain), bears_state(flying)
    for _ in range(3):
        # alice is active: with the extra rule her bear flies, and only in that engine
        assert f_state.query("has_keyword(X, flying)") == [{"X": "bear"}]
        assert p_state.query("has_keyword(X, flying)") == []
        assert not f_state.holds("can_block(bear2, bear)")  # no matter: bear2 is tapped anyway
        assert names(p_state.query("creature(X)")) == names(f_state.query("creature(X)")) == ["bear", "bear2"]
    proof = f_state.explain("has_keyword(bear, flying)")
    assert "test.active_player_creatures_fly" in {n.rule for n in proof.walk()}


def test_a_dropped_engine_leaves_nothing_in_the_thread_database(engine):
    """An Engine made and dropped (a long-lived process, a notebook, every in-process CLI call) takes its facts
    and compiled rules with it: its thread state is forgotten when it is collected and its predicates leave
    the thread's pyDatalog database the next time judgelog enters it. Before, each one stayed for good."""
    import gc
    import weakref

    from judgelog.database import THREAD

    # what the process held before is set aside (gc.freeze, as after every test: conftest.py): the collection
    # below looks only at what this test makes, not at every replay and proof the test process keeps
    gc.freeze()
    dropped = Engine(rules=[FLY_RULES])
    state = bears_state(dropped)
    assert state.query("has_keyword(X, flying)") == [{"X": "bear"}]
    prefix, backend = dropped.backend.prefix, weakref.ref(dropped.backend)
    assert any(name.startswith(prefix) for name in THREAD.logic.Db)
    del dropped, state
    gc.collect()
    assert backend() is None
    assert names(bears_state(engine).query("creature(X)")) == ["bear", "bear2"]  # judgelog enters the database
    assert not [name for name in THREAD.logic.Db if name.startswith(prefix)]


def test_an_engine_with_more_rules_knows_more_predicates(test_engine, engine):
    state = bears_state(test_engine)
    assert state.query("type(X, T)") == [{"X": "bear", "T": "creature"}, {"X": "bear2", "T": "creature"}]
    with pytest.raises(QueryError):
        bears_state(engine).query("type(X, T)")
    with pytest.raises(ScenarioError) as info:
        engine.state_from_dict({"players": ["alice"], "facts": ["ward(bear, wurm)"]})
    assert info.value.diagnostics[0].code == "S101"


# -- threads ------------------------------------------------------------------------------------------
def test_threads_load_and_query_different_states_concurrently(engine, test_engine):
    barrier = threading.Barrier(4)  # three workers and the main thread
    errors = []
    rounds = 15

    def worker(label, make, checks):
        try:
            barrier.wait(timeout=120)
            for i in range(rounds):
                state = make()  # loading inside the thread, too
                for query, expected in checks:
                    got = state.query(query)
                    if got != expected:
                        errors.append(f"{label} round {i}: {query} -> {got}, expected {expected}")
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(f"{label}: {type(exc).__name__}: {exc}")

    threads = [
        threading.Thread(
            target=worker,
            args=(
                "bears",
                lambda: bears_state(engine),
                [
                    ("creature(X)", [{"X": "bear"}, {"X": "bear2"}]),
                    ("tapped(X)", [{"X": "bear2"}]),
                    ("controller(bear, P)", [{"P": "alice"}]),
                ],
            ),
        ),
        threading.Thread(
            target=worker,
            args=(
                "wurm",
                lambda: wurm_state(engine),
                [("creature(X)", [{"X": "hero"}, {"X": "wurm"}]), ("tapped(X)", []), ("power(hero, N)", [{"N": 3}])],
            ),
        ),
        threading.Thread(
            target=worker,
            args=(
                "other engine",
                lambda: bears_state(test_engine),
                [
                    ("type(X, creature)", [{"X": "bear"}, {"X": "bear2"}]),
                    ("exit(X)", [{"X": "bear2"}]),
                    ("creature_count(P, N)", [{"P": "alice", "N": 1}, {"P": "bob", "N": 1}]),
                ],
            ),
        ),
    ]
    for t in threads:
        t.start()
    # the main thread keeps asking too, interleaved with the workers
    main_state = wurm_state(engine)
    barrier.wait(timeout=120)
    for _ in range(rounds):
        assert names(main_state.query("creature(X)")) == ["hero", "wurm"]
    for t in threads:
        t.join(timeout=300)
        assert not t.is_alive()
    assert errors == []


def test_a_fresh_thread_needs_no_setup(engine):
    """pyDatalog fails in a thread that never called Logic() (pitfall 8); judgelog sets it up itself."""
    result = {}

    def worker():
        try:
            result["answers"] = bears_state(engine).query("creature(X)")
        except Exception as exc:  # noqa: BLE001
            result["error"] = repr(exc)

    t = threading.Thread(target=worker)
    t.start()
    t.join(timeout=60)
    assert result == {"answers": [{"X": "bear"}, {"X": "bear2"}]}


# -- a user's own pyDatalog in the same thread ------------------------------------------------------------
def _user_rows(query):
    try:
        answer = pyDatalog.ask(query)
    except AttributeError as exc:  # pyDatalog: "Predicate without definition"
        assert "without definition" in str(exc)
        return []
    return sorted(answer.answers) if answer is not None else []


def test_user_pydatalog_and_judgelog_do_not_disturb_each_other(engine):
    state = bears_state(engine)
    before = state.query("creature(X)")
    pyDatalog.clear()  # the user's own, fresh database (Logic())
    pyDatalog.assert_fact("creature", "dragon")  # same name as a judgelog predicate, unmangled
    pyDatalog.assert_fact("tapped", "dragon")
    pyDatalog.load("flier(X) <= creature(X) & ~tapped(X)")
    assert _user_rows("creature(X)") == [("dragon",)]
    # judgelog does not see the user's facts...
    assert state.query("creature(X)") == before
    assert state.query("tapped(X)") == [{"X": "bear2"}]
    # ...and leaves the user's database in place
    assert _user_rows("creature(X)") == [("dragon",)]
    assert _user_rows("tapped(X)") == [("dragon",)]
    pyDatalog.assert_fact("creature", "roc")
    assert _user_rows("flier(X)") == [("roc",)]
    # interleave once more: a new state, then the user again
    assert names(wurm_state(engine).query("creature(X)")) == ["hero", "wurm"]
    assert _user_rows("creature(X)") == [("dragon",), ("roc",)]
    # the user resets their database: judgelog keeps its own
    pyDatalog.clear()
    assert state.query("creature(X)") == before
    assert _user_rows("creature(X)") == []


def test_user_pydatalog_after_judgelog_in_a_fresh_thread(engine):
    """judgelog is the first to use pyDatalog in a thread; the user starts afterwards, both ways."""
    result = {}

    def worker():
        try:
            state = bears_state(engine)
            first = state.query("creature(X)")
            pyDatalog.assert_fact("dragon", "smaug")  # without Logic(): the thread's current database
            result["judgelog"] = state.query("creature(X)") == first
            result["user"] = _user_rows("dragon(X)")
            # ...which is not judgelog's: its database holds only judgelog's (prefixed) predicates
            from judgelog import backend

            result["separate"] = backend.THREAD.logic is not Logic.tl.logic and not any(
                name.startswith("dragon") for name in backend.THREAD.logic.Db
            )
            pyDatalog.clear()
            pyDatalog.assert_fact("creature", "roc")
            result["after_clear"] = state.query("creature(X)") == first and wurm_state(engine).query("creature(X)") == [
                {"X": "hero"},
                {"X": "wurm"},
            ]
            result["user_after"] = _user_rows("creature(X)")
        except Exception as exc:  # noqa: BLE001
            result["error"] = repr(exc)

    t = threading.Thread(target=worker)
    t.start()
    t.join(timeout=60)
    assert result == {
        "judgelog": True,
        "user": [("smaug",)],
        "separate": True,
        "after_clear": True,
        "user_after": [("roc",)],
    }


def test_user_logic_handle_is_restored(engine):
    Logic()
    pyDatalog.assert_fact("mine", 1)
    handle = Logic(True)
    bears_state(engine).query("creature(X)")
    assert Logic(True) is handle
    assert _user_rows("mine(X)") == [(1,)]


# -- mangling -------------------------------------------------------------------------------------------
def test_predicates_named_after_python_builtins(test_engine):
    """type, id, exit and next would be *called* by raw pyDatalog (pitfall 2); judgelog mangles them."""
    state = bears_state(test_engine)
    assert state.query("type(bear, T)") == [{"T": "creature"}]
    assert state.query("id(X, N)") == [{"X": "bear", "N": 2}, {"X": "bear2", "N": 2}]
    assert state.query("exit(X)") == [{"X": "bear2"}]  # no SystemExit
    assert state.query("next(A, B)") == [{"A": "alice", "B": "bob"}]
    proof = state.explain("exit(bear2)")
    assert proof.rule == "test.exit"


def test_anonymous_variables_are_independent(engine):
    """``_`` is a fresh variable each time (raw pyDatalog would unify both, pitfall 3)."""
    state = bears_state(engine)
    assert names(state.query("controller(X, _), controller(_, alice)")) == ["bear", "bear2"]


# -- negation -------------------------------------------------------------------------------------------
def _ward_state(engine):
    return engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "bear": {"card": "Grizzly Bears", "controller": "alice"},
                "wurm": {"card": "Craw Wurm", "controller": "alice"},
                "spider": {
                    "name": "Spider",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 4,
                    "keywords": ["reach"],
                    "controller": "bob",
                },
            },
            "facts": ["ward(bear, wurm)"],
        }
    )


def test_stratified_negation_over_derived_predicates(test_engine):
    state = _ward_state(test_engine)
    # warded has two rules: a ward fact (bear) and reach (spider)
    assert names(state.query("warded(X)")) == ["bear", "spider"]
    assert names(state.query("exposed(X)")) == ["wurm"]
    # the same rule with `not` written first: evaluated after the binding atom (pitfall 5)
    assert names(state.query("exposed_late(X)")) == ["wurm"]
    # a second stratum: not exposed
    assert names(state.query("safe(X)")) == ["bear", "spider"]
    # negation in a query, also written first
    assert names(state.query("not warded(X), creature(X)")) == ["wurm"]
    proof = state.explain("exposed(wurm)")
    assert [p.kind for p in proof.premises] == ["rule", "absent"]
    assert proof.premises[1].atom == "warded(wurm)"


def test_negation_follows_the_state(test_engine):
    state = _ward_state(test_engine)
    later = state.with_facts(state.facts - {("ward", "bear", "wurm")})
    assert names(later.query("exposed(X)")) == ["bear", "wurm"]
    assert names(state.query("exposed(X)")) == ["wurm"]


# -- aggregates -----------------------------------------------------------------------------------------
def test_power_sums_two_pt_modifier_sources(test_engine):
    state = test_engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "bear": {"card": "Grizzly Bears", "controller": "alice"},
                "wurm": {"card": "Craw Wurm", "controller": "bob"},
            },
            "facts": ["anthem(bear, crusade, 1, 1)", "anthem(bear, glorious_anthem, 1, 1)"],
        }
    )
    # two sources of +1/+1 each (the same amounts): both count
    assert state.query("power_bonus(bear, N)") == [{"N": 2}]
    assert state.query("power(bear, N), toughness(bear, T)") == [{"N": 4, "T": 4}]
    assert state.query("power(wurm, N)") == [{"N": 6}]
    assert state.query("power_bonus(wurm, N)") == []  # an empty group gives no row
    proof = state.explain("power_bonus(bear, 2)")
    assert proof.kind == "aggregate" and proof.rule == "objects.power_bonus"


def test_count_sum_min_max(test_engine):
    state = test_engine.state_from_dict(
        {
            "players": ["alice", "bob", "carol"],
            "objects": {
                "bear": {"card": "Grizzly Bears", "controller": "alice"},
                "bear2": {"card": "Grizzly Bears", "controller": "alice"},
                "wurm": {"card": "Craw Wurm", "controller": "alice"},
                "hero": {"card": "Benalish Hero", "controller": "bob"},
                "forest": {"name": "Forest", "types": ["land"], "subtypes": ["forest"], "controller": "carol"},
            },
        }
    )
    assert state.query("creature_count(P, N)") == [{"P": "alice", "N": 3}, {"P": "bob", "N": 1}]
    # two creatures of equal power are both summed (no de-duplication on the value)
    assert state.query("total_power(P, N)") == [{"P": "alice", "N": 10}, {"P": "bob", "N": 1}]
    assert state.query("weakest(P, N)") == [{"P": "alice", "N": 2}, {"P": "bob", "N": 1}]
    assert state.query("strongest(P, N)") == [{"P": "alice", "N": 6}, {"P": "bob", "N": 1}]
    # carol controls no creature: no row at all, not 0
    assert state.query("creature_count(carol, N)") == []
    assert state.query("total_power(carol, N)") == []


def test_aggregates_follow_the_state(test_engine):
    state = test_engine.state_from_dict(
        {"players": ["alice"], "objects": {"bear": {"card": "Grizzly Bears", "controller": "alice"}}}
    )
    bigger = state.with_facts(state.facts | {("anthem", "bear", "crusade", 3, 0)})
    for _ in range(2):
        assert state.query("total_power(alice, N)") == [{"N": 2}]
        assert bigger.query("total_power(alice, N)") == [{"N": 5}]
        assert bigger.query("strongest(alice, N), weakest(alice, M)") == [{"N": 5, "M": 5}]


@pytest.mark.slow
@pytest.mark.parametrize("incremental", [False, True])
def test_a_variant_compiled_where_an_unfolded_call_could_not_hold_is_not_reused_where_it_can(incremental):
    """Unfolding `not has_counter(O, m1m1)` gives `not counter(O, m1m1, _)`, which the namespace a variant is
    compiled in may make true (no -1/-1 counter anywhere): the variant then has no such literal, and must not
    be shared with a namespace where a -1/-1 counter exists. The evolve scenario (no -1/-1 counters) ran first
    on the same engine made persist trigger for a creature that died with -1/-1 counters (702.79a)."""
    from judgelog.runtime import run_actions

    engine = Engine(incremental=incremental)
    run_actions(engine.load(engine.example("evolve_intervening_if.yaml")))
    _, events = run_actions(engine.load(engine.example("persist_counters_annihilate.yaml")))
    stacked = [e.details["source"] for e in events if e.kind == "put_on_stack"]
    assert stacked == ["finks"]  # the first Finks persists; the second dies with -1/-1 counters and doesn't


def test_a_thread_compiling_a_variant_does_not_lend_it_to_another(monkeypatch):
    """The variant a thread is compiling is that thread's own (its view's): another thread asking meanwhile
    must not adopt it into its namespaces, whose ids are its own (it read the first thread's namespace 3 in its
    own view: KeyError 3, seen once under load). The first thread is held inside a compilation while the
    second loads and asks."""
    from judgelog.variants import Variants

    engine = Engine(incremental=False)  # every body asked top-down: the variants are compiled in the action
    original = Variants._compile_variant
    armed, held, release = threading.Event(), threading.Event(), threading.Event()
    errors: list[str] = []
    was_held: list[tuple] = []

    def compile_held(self, view, code, key):
        if threading.current_thread().name == "first" and armed.is_set() and not held.is_set():
            was_held.append(key)
            held.set()
            release.wait(60)
        return original(self, view, code, key)

    monkeypatch.setattr(Variants, "_compile_variant", compile_held)

    def first():
        try:
            state = bears_state(engine)
            state.query("creature(X)")
            armed.set()  # the action makes a new namespace: its variants are compiled (and one held)
            state, _ = state.apply({"do": "tap", "object": "bear"})
            assert state.query("tapped(X)") == [{"X": "bear"}, {"X": "bear2"}]
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(f"first: {type(exc).__name__}: {exc}")
        finally:
            held.set()

    def second():
        try:
            held.wait(60)
            state = wurm_state(engine)
            assert state.query("creature(X)") == [{"X": "hero"}, {"X": "wurm"}]
            assert state.query("power(hero, N)") == [{"N": 3}]
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(f"second: {type(exc).__name__}: {exc}")
        finally:
            release.set()

    threads = [threading.Thread(target=first, name="first"), threading.Thread(target=second, name="second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert was_held and not errors, errors
