"""The Qt-free session: undo history, recompute off the calling thread with
stale work dropped, error and advice events."""

import threading

import pytest

import app.session as session_module
from app.scenario_io import load_scenario
from app.session import History, Session
from models.scenario import ScenarioError
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES


@pytest.fixture
def example():
    return load_scenario(EXAMPLES / "jumbo_10gbe.toml")


@pytest.fixture
def session(example):
    session = Session(example)
    yield session
    session.close()


def recorder(event):
    seen = []
    event.connect(lambda *args: seen.append(args))
    return seen


def test_history_undo_redo_texts_and_clean_state():
    history = History("a")
    assert (history.can_undo, history.can_redo, history.count) == \
        (False, False, 0)
    assert history.is_clean
    history.push("b", "to b")
    history.push("c", "to c")
    assert not history.is_clean
    assert (history.undo_text, history.redo_text) == ("to c", "")
    assert history.undo() == "b"
    assert (history.undo_text, history.redo_text) == ("to b", "to c")
    history.set_clean()
    assert history.undo() == "a" and not history.is_clean
    assert history.redo() == "b" and history.is_clean
    # a new step drops the undone one; the clean state is kept before it
    history.push("d", "to d")
    assert (history.count, history.can_redo) == (2, False)
    assert history.undo() == "b" and history.is_clean
    with pytest.raises(IndexError):
        History("a").undo()


def test_pushing_over_the_clean_state_loses_it():
    # QUndoStack's rule: the saved state can no longer be reached
    history = History("a")
    history.push("b", "to b")
    history.set_clean()
    history.undo()
    history.push("c", "to c")
    assert not history.is_clean
    history.undo()
    assert not history.is_clean


def test_results_arrive_from_the_worker_thread(session, example):
    assert session.wait(timeout=30)   # the constructor's evaluation
    threads = []
    session.results_ready.connect(
        lambda generation, results: threads.append(
            threading.current_thread().name))
    ready = recorder(session.results_ready)
    session.replace(example)
    assert session.wait(timeout=30)
    (generation, results), = ready
    assert generation == session.generation
    assert results.to_json() == evaluate(example).to_json()
    assert session.results is results
    assert threads[0].startswith("linkplan-evaluate")


def test_edit_undo_and_clean_events(session):
    changed = recorder(session.document_changed)
    clean = recorder(session.clean_changed)
    assert session.edit({"network.mtu": 9000}, "Set MTU to 9000")
    assert not session.edit({"network.mtu": 9000}, "again: no step")
    assert session.history.count == 1
    assert [s.network.mtu for s, in changed] == [9000]
    assert clean == [(False,)]
    session.wait()
    marker = session.results.variants[0].traces["goodput_vs_mtu"]["marker"]
    assert marker["x"] == 9000
    session.undo()
    assert session.scenario.network.mtu == 1500
    assert clean == [(False,), (True,)]
    session.redo()
    session.mark_saved("saved.toml")
    assert session.path == "saved.toml" and session.history.is_clean


def test_invalid_edit_raises_and_keeps_the_document(session):
    before = session.scenario
    with pytest.raises(ScenarioError, match="network.mtu"):
        session.edit({"network.mtu": 99999}, "Set MTU")
    assert session.scenario is before
    assert session.history.count == 0


def test_only_the_newest_documents_results_are_announced(session,
                                                          monkeypatch):
    # the first evaluation blocks until two newer edits are queued: the
    # running one is discarded, the queued middle one cancelled
    session.wait()
    started, release = threading.Event(), threading.Event()
    evaluated = []

    def slow_evaluate(scenario, *, cache):
        evaluated.append(scenario.network.mtu)
        if scenario.network.mtu == 2000:
            started.set()
            release.wait(30)
        return evaluate(scenario, cache=cache)

    monkeypatch.setattr(session_module, "evaluate", slow_evaluate)
    ready = recorder(session.results_ready)
    session.replace(session.scenario.with_value("network.mtu", 2000))
    assert started.wait(30)
    session.replace(session.scenario.with_value("network.mtu", 3000))
    session.replace(session.scenario.with_value("network.mtu", 4000))
    release.set()
    assert session.wait(30)
    assert evaluated == [2000, 4000]
    (generation, results), = ready
    assert generation == session.generation
    assert session.results is results


def test_an_evaluation_error_is_an_event_and_the_document_stays(
        session, monkeypatch):
    session.wait()

    def broken(scenario, *, cache):
        raise RuntimeError("model bug")

    monkeypatch.setattr(session_module, "evaluate", broken)
    failed = recorder(session.evaluation_failed)
    session.edit({"network.mtu": 4000}, "Set MTU to 4000")
    session.wait()
    assert failed == [(session.generation, "RuntimeError: model bug")]
    assert session.error == "RuntimeError: model bug"
    assert session.results is None
    assert session.scenario.network.mtu == 4000


def test_advice_for_another_goal_is_its_own_computation():
    session = Session(load_scenario(EXAMPLES / "seed002_hcibench.toml"))
    try:
        default = session.advice(timeout=60)
        latency = session.advice(timeout=60, goal="latency_target")
        assert session.advice(timeout=60, goal="latency_target") is latency
        assert default.goal is None and latency.goal == "latency_target"
        assert latency.advice.goal == "latency_target"
        assert default.advice.goal != "latency_target"
    finally:
        session.close()


def test_advice_is_computed_once_per_document_version(monkeypatch):
    calls = []
    advise = session_module.advise

    def counting_advise(scenario, goal=None, **options):
        calls.append(scenario)
        return advise(scenario, goal, **options)

    session = Session(load_scenario(EXAMPLES / "seed002_hcibench.toml"))
    try:
        monkeypatch.setattr(session_module, "advise", counting_advise)
        announced = recorder(session.advice_ready)
        outcome = session.advice(timeout=60)
        assert session.advice(timeout=60) is outcome
        assert len(calls) == 1 and announced == [(outcome,)]
        assert outcome.generation == session.generation
        assert outcome.advice.recommendations
        session.replace(session.scenario.with_values(
            {"variants": [], "workloads.storage": [],
             "workloads.transfers": [], "workloads.migrations": []}))
        nothing = session.advice(timeout=60)
        assert nothing.advice is None and not nothing.failed
        assert nothing.message
    finally:
        session.close()


def test_undo_and_redo_re_solve_nothing(session, example, monkeypatch):
    # the session keeps each analysis's results (solvers/analysis_cache.py):
    # going back to a document already solved runs no analysis again
    from solvers.analyses import registry
    assert session.wait(30)   # the opened document solved (not superseded)
    session.edit({"network.mtu": 4000}, "Set MTU to 4000")
    assert session.wait(30)
    edited = session.results
    original = evaluate(example).to_json()
    ran = []
    for analysis in registry():
        monkeypatch.setattr(analysis.code, "analyse", lambda *a, plain=(
            analysis.code.analyse), **k: (ran.append(1), plain(*a, **k))[1])
    session.undo()
    assert session.wait(30)
    assert session.results.to_json() == original
    session.redo()
    assert session.wait(30)
    assert ran == []
    assert session.results.to_json() == edited.to_json()
