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


# -- commands: each one undoable step with a label in words -------------

def names(session):
    return [v.name for v in session.scenario.variants]


def test_variants_are_added_duplicated_renamed_moved_and_deleted(session):
    start = names(session)
    assert start == ["MTU 9000", "IPv6", "802.1Q tagged", "VXLAN overlay"]
    assert session.add_variant() == 4
    assert names(session)[4] == "Variant 5"
    assert session.scenario.variants[4].set == {}
    assert session.history.undo_text == "Add variant Variant 5"
    assert session.duplicate_variant(1) == 2
    assert names(session)[1:3] == ["IPv6", "IPv6 copy"]
    assert session.scenario.variants[2].set == {"network.ip_version": 6}
    assert session.history.undo_text == "Duplicate variant IPv6"
    assert session.rename_variant(2, " IPv6, jumbo ") == 2
    assert names(session)[2] == "IPv6, jumbo"
    assert session.history.undo_text == \
        "Rename variant IPv6 copy to IPv6, jumbo"
    assert session.move_variant(2, -1) == 1
    assert names(session)[1:3] == ["IPv6, jumbo", "IPv6"]
    assert session.history.undo_text == "Move variant IPv6, jumbo left"
    assert session.move_variant(0, -1) is None   # already first: no step
    assert session.delete_variant(5) == 4   # the last: its left neighbour
    assert session.history.undo_text == "Delete variant Variant 5"
    for _ in range(5):
        session.undo()
    assert names(session) == start and not session.history.can_undo


def test_no_variant_selected_records_no_step(session):
    for command in (session.duplicate_variant, session.delete_variant):
        assert command(None) is None
    assert session.rename_variant(None, "x") is None
    assert session.move_variant(None, 1) is None
    assert session.history.count == 0


def test_a_taken_variant_name_is_refused(session):
    with pytest.raises(ScenarioError):
        session.rename_variant(1, "MTU 9000")
    assert names(session)[1] == "IPv6" and session.history.count == 0


def test_free_names_number_the_stem(session):
    session.add_variant("IPv6")
    session.duplicate_variant(0)
    assert names(session)[1] == "MTU 9000 copy"
    assert names(session)[-1] == "IPv6 2"


def test_an_edit_in_a_variant_changes_only_its_differences(session):
    session.edit_in(1, {"network.mtu": 9000}, "Set MTU to 9000")
    assert session.scenario.variants[1].set == {"network.ip_version": 6,
                                                "network.mtu": 9000}
    assert session.scenario.network.mtu == 1500   # the base untouched
    assert session.history.undo_text == "Set MTU to 9000 in IPv6"
    # the base's value takes the variant's change back
    session.edit_in(1, {"network.mtu": 1500}, "Set MTU to 1500")
    assert session.scenario.variants[1].set == {"network.ip_version": 6}
    assert session.remove_override(1, "network.ip_version") == 1
    assert session.scenario.variants[1].set == {}
    assert session.history.undo_text == \
        "Back to base: Network › IP version in IPv6"   # words, no path


def test_a_none_in_a_variant_sets_the_entry_whole_without_it(session):
    # TOML has no null: the variant's nic is the base's, minus the slot
    session.edit({"nics[0].pcie_slot": "slot1"}, "Set slot")
    session.edit_in(0, {"nics[0].pcie_slot": None}, "Clear slot")
    nic = session.scenario.variants[0].set["nics[0]"]
    assert "pcie_slot" not in nic and nic["id"] == \
        session.scenario.nics[0].id
    _, variant = session.scenario.variant_documents()[1]
    assert variant.nics[0].pcie_slot is None
    assert session.scenario.nics[0].pcie_slot == "slot1"
    # a field inside the entry set whole changes that entry
    session.edit_in(0, {"nics[0].speed_gbps": 25.0}, "Set speed")
    variant = session.scenario.variants[0]
    assert "nics[0].speed_gbps" not in variant.set
    assert variant.set["nics[0]"]["speed_gbps"] == 25.0
    # resetting a field held by the whole entry takes the entry back
    assert session.reset_in_variant(0, "nics[0].speed_gbps") == 0
    assert session.scenario.variants[0].set == {"network.mtu": 9000}
    assert session.reset_in_variant(0, "nics[0].speed_gbps") is None


def test_a_new_hypervisor_takes_the_platforms_choices_along():
    # seed000's team uses LBT, which Hyper-V lacks: the hypervisor edit
    # carries the team to Hyper-V's first policy in the same step
    from models.platform import teaming_policies
    session = Session(load_scenario(EXAMPLES / "seed000_lbt.toml"))
    try:
        session.delete_variant(0)   # port ID: vSphere's alone
        with pytest.raises(ScenarioError):   # LBT alone is refused
            session.edit({"host.hypervisor": "hyperv"}, "Set hypervisor")
        session.edit_in(None, {"host.hypervisor": "hyperv"},
                        "Set hypervisor")
        assert session.scenario.host.hypervisor == "hyperv"
        assert session.scenario.teams[0].policy == \
            teaming_policies("hyperv")[0]
        assert session.history.count == 2
    finally:
        session.close()


def test_the_last_base_edit_becomes_a_variant_in_one_step(session):
    assert not session.last_edit_can_be_variant
    session.edit({"network.vlan_tags": 1}, "Set VLAN tags to 1")
    assert session.last_edit_can_be_variant
    assert session.make_last_edit_a_variant() == 4
    assert session.scenario.network.vlan_tags == 0
    assert session.scenario.variants[4].name == "VLAN tags to 1"
    assert session.scenario.variants[4].set == {"network.vlan_tags": 1}
    assert session.history.undo_text == \
        "Make “Set VLAN tags to 1” a variant"
    assert not session.last_edit_can_be_variant   # a variants edit
    session.undo()
    assert session.scenario.network.vlan_tags == 1
    assert len(session.scenario.variants) == 4
    session.open(session.scenario)   # another document: nothing to turn
    assert not session.last_edit_can_be_variant


def test_a_recommendation_is_applied_or_added_as_a_variant(session):
    class Recommendation:
        id = "advice.network.mtu"
        change = {"network.mtu": {"old": 1500, "new": 9000}}
    assert session.add_variant_from(Recommendation) == 4
    assert session.scenario.variants[4].name == "network mtu"
    assert session.scenario.variants[4].set == {"network.mtu": 9000}
    session.apply_recommendation(Recommendation)
    assert session.scenario.network.mtu == 9000
    assert session.history.undo_text.startswith("Apply ")
    assert "network.mtu" not in session.history.undo_text   # words


def test_a_base_policy_change_repairs_the_variants_when_accepted():
    # issue 16: seed000's "port ID" variant would inherit LACP's switch
    # mode; the repair gives it the mode its own policy needs
    session = Session(load_scenario(EXAMPLES / "seed000_lbt.toml"))
    try:
        asked = []
        with pytest.raises(ScenarioError):
            session.edit({"teams[0].policy": "lacp",
                          "teams[0].switch_mode": "lacp"}, "Set policy",
                         confirm_repair=lambda r: asked.append(r))
        assert session.scenario.teams[0].policy == "lbt"
        (repair,) = asked
        assert repair.fixes == (("Originating port ID",
                                 "teams[0].switch_mode = independent"),)
        assert repair.broken and "Originating port ID" in repair.broken[0]
        assert session.edit({"teams[0].policy": "lacp",
                             "teams[0].switch_mode": "lacp"}, "Set policy",
                            confirm_repair=lambda r: True)
        assert session.scenario.variants[0].set == {
            "teams[0].policy": "port_id",
            "teams[0].switch_mode": "independent"}
        assert session.history.undo_text == "Set policy (variants updated)"
        session.undo()
        assert session.scenario.teams[0].policy == "lbt"
    finally:
        session.close()


# -- closing never waits for the workers --------------------------------

#: A session whose advice takes a minute (a big fleet's candidates), closed
#: while it runs; the process then ends.
_CLOSE_DURING_ADVICE = """
import threading, time
import app.session as session_module
from app.scenario_io import load_scenario
started = threading.Event()
def minute_long_advice(scenario, goal=None, callback=None):
    started.set()
    time.sleep(60)   # evaluating candidates: no callback meanwhile
session_module.advise = minute_long_advice
session = session_module.Session(load_scenario({example!r}))
session.request_advice()
assert started.wait(30)
begun = time.perf_counter()
session.close()
print(f"{{time.perf_counter() - begun:.3f}}")
"""


def test_closing_during_a_long_advice_neither_waits_nor_holds_the_exit():
    # ThreadPoolExecutor's workers are joined at exit: closing the last
    # window during advice ended the process when the advice did
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT
    begun = time.perf_counter()
    process = subprocess.run(
        [sys.executable, "-c", _CLOSE_DURING_ADVICE.format(
            example=str(EXAMPLES / "jumbo_10gbe.toml"))],
        cwd=ROOT, capture_output=True, text=True, timeout=50)
    assert process.returncode == 0, process.stderr
    assert float(process.stdout) < 1.0   # close() returns at once
    # start-up and one evaluation, never the minute of advice
    assert time.perf_counter() - begun < 30


def test_a_closed_sessions_advice_stops_at_its_next_callback(monkeypatch):
    asked, answers = threading.Event(), []
    closed = threading.Event()

    def advice_with_a_callback(scenario, goal=None, callback=None):
        asked.set()
        assert closed.wait(30)
        answers.append(callback(None))   # True: stop
        raise ValueError("stopped")
    monkeypatch.setattr(session_module, "advise", advice_with_a_callback)
    session = Session(load_scenario(EXAMPLES / "jumbo_10gbe.toml"))
    future = session.request_advice()
    assert asked.wait(30)
    session.close()
    closed.set()
    future.exception(timeout=30)
    assert answers == [True]
    with pytest.raises(RuntimeError):   # no new work after close
        session.request_advice(goal="min_cpu")


def test_work_queued_at_close_is_cancelled_and_waiters_wake(monkeypatch):
    running, release = threading.Event(), threading.Event()

    def held_evaluation(scenario, cache=None):
        running.set()
        assert release.wait(30)
        return evaluate(scenario)
    monkeypatch.setattr(session_module, "evaluate", held_evaluation)
    session = Session(load_scenario(EXAMPLES / "jumbo_10gbe.toml"))
    assert running.wait(30)
    queued = session._evaluator.submit(lambda: "never")
    session.close()   # the queued call is cancelled, not awaited
    import concurrent.futures
    done, _ = concurrent.futures.wait([queued], timeout=5)
    assert queued in done and queued.cancelled()
    release.set()
