"""The kept analysis results of an editing session
(solvers/analysis_cache.py): an analysis re-runs when an edit changes a
field it reads, and a kept result is the one a fresh evaluation gives."""

import pytest

from app.scenario_io import load_scenario
from app.validation_io import load_cases
from models.scenario import Scenario, Workloads
from solvers.analyses import registry
from solvers.analysis_cache import AnalysisCache
from solvers.evaluate import analyse_all, evaluate
from solvers.inputs import Inputs
from tests.conftest import EXAMPLES


def example(name):
    return load_scenario(EXAMPLES / f"{name}.toml")


def corpus():
    """Every example and validation scenario, and an evacuation whose
    vMotion rides a team (a path no file takes: the transfer's NICs are
    then read from the team)."""
    documents = [load_scenario(path) for path in sorted(
        EXAMPLES.glob("*.toml"))]
    documents += list({id(case.scenario): case.scenario
                       for case in load_cases()
                       if case.scenario is not None}.values())
    evacuation = example("evacuation_maintenance")
    documents.append(evacuation.with_values({
        "teams": [{"name": "vmotion", "members": ["vmnic0", "vmnic1"],
                   "switch_mode": "lacp", "policy": "lacp"}],
        "workloads.transfers[0].via": "vmotion",
        "workloads.transfers[0].nics": []}))
    return documents


def _field_of(path):
    """The READS entry a parameter path falls in."""
    parts = path.replace("[", ".").split(".")
    return ".".join(parts[:2]) if parts[0] == "workloads" else parts[0]


def test_each_analysis_reads_only_the_fields_it_declares(monkeypatch):
    # a field read but not declared would let an edit of it hand back a
    # stale result: record every document field each analysis (with the
    # Inputs families it builds) touches, over every file we have
    touched = set()

    def recording(cls, prefix):
        plain = cls.__getattribute__

        def get(self, name):
            if name in cls.model_fields:
                touched.add(prefix + name)
            return plain(self, name)
        monkeypatch.setattr(cls, "__getattribute__", get)

    documents = [scenario.variant_documents() for scenario in corpus()]
    upstreams = {(i, details): dict(analyse_all(pairs, details=details))
                 for i, pairs in enumerate(documents)
                 for details in (True, False)}
    recording(Scenario, "")
    recording(Workloads, "workloads.")
    for analysis in registry():
        undeclared = set()
        for (i, details), upstream in upstreams.items():
            touched.clear()
            analysis.analyse(
                Inputs(documents[i]),
                {name: upstream[next(a for a in upstream
                                     if a.name == name)]
                 for name in analysis.requires}, details=details)
            # "workloads" itself is the way to its fields, no input
            undeclared |= touched - set(analysis.reads) - {"workloads"}
        assert not undeclared, (analysis.name, undeclared)


def test_declared_fields_are_fields_of_the_document():
    for analysis in registry():
        for path in analysis.reads:
            owner, _, name = path.rpartition(".")
            model = Workloads if owner == "workloads" else Scenario
            assert owner in ("", "workloads") and name in model.model_fields


def _spied(monkeypatch):
    """The names of the analyses run from now on, in order."""
    ran = []
    for analysis in registry():
        def spy(*args, analysis=analysis, plain=analysis.code.analyse,
                **kwargs):
            ran.append(analysis.name)
            return plain(*args, **kwargs)
        monkeypatch.setattr(analysis.code, "analyse", spy)
    return ran


def _readers(field):
    """The analyses an edit of ``field`` must re-run: those reading it and
    those requiring one of them."""
    again = set()
    for analysis in registry():   # in order: requirements first
        if field in analysis.reads or again & set(analysis.requires):
            again.add(analysis.name)
    return again


#: An edit of each kind of input: (example, {path: value}).
EDITS = [
    ("jumbo_10gbe", {"network.mtu": 4000}),
    ("seed001_live_migration", {"host.ghz": 3.1}),
    ("seed000_lbt", {"nics[1].speed_gbps": 25.0}),
    ("seed000_lbt", {"teams[0].policy": "port_id"}),
    ("seed000_lbt", {"workloads.flows[0].tx_gbps": 2.9}),
    ("seed000_lbt", {"workloads.time_step_s": 2.0}),
    ("seed001_live_migration", {"workloads.transfers[0].streams": 2}),
    ("seed003_vmotion", {"workloads.migrations[0].memory_gib": 40.0}),
    ("seed002_hcibench", {"workloads.storage[0].vms": 3}),
    ("seed002_hcibench", {"goal": {"kind": "latency_target",
                                     "latency_target_ms": 2.0}}),
    ("evacuation_maintenance",
     {"workloads.evacuations[0].order": "smallest_first"}),
    ("explain_pcie_slot", {"nics[0].pcie_lanes": 8, "nics[1].pcie_lanes": 8}),
]


@pytest.mark.parametrize("name, changes", EDITS,
                         ids=[next(iter(c)) for _, c in EDITS])
def test_an_edit_re_runs_exactly_the_analyses_reading_it(monkeypatch, name,
                                                          changes):
    before = example(name)
    after = before.with_values(changes)
    assert after != before   # an edit, not a value already set
    cache = AnalysisCache()
    evaluate(before, cache=cache)
    ran = _spied(monkeypatch)
    edited = evaluate(after, cache=cache)
    assert set(ran) == set.union(*(_readers(_field_of(path))
                                   for path in changes))
    monkeypatch.undo()
    assert edited.to_json() == evaluate(after).to_json()


def test_names_and_descriptions_re_run_nothing(monkeypatch):
    # no analysis reads the meta section or a variant's name
    before = example("seed001_live_migration")
    cache = AnalysisCache()
    evaluate(before, cache=cache)
    ran = _spied(monkeypatch)
    evaluate(before.with_values({"meta.name": "renamed",
                                 "variants[0].name": "renamed too"}),
             cache=cache)
    assert ran == []


def test_a_variant_override_re_runs_what_reads_its_field(monkeypatch):
    before = example("jumbo_10gbe")
    after = before.with_values({"variants[0].set": {"network.mtu": 4000}})
    cache = AnalysisCache()
    evaluate(before, cache=cache)
    ran = _spied(monkeypatch)
    edited = evaluate(after, cache=cache)
    assert set(ran) == _readers("network")
    monkeypatch.undo()
    assert edited.to_json() == evaluate(after).to_json()


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")),
                         ids=lambda p: p.stem)
def test_kept_results_are_the_fresh_ones(monkeypatch, path):
    scenario = load_scenario(path)
    edited = scenario.with_value("network.mtu", 2000)
    cache = AnalysisCache()
    evaluate(scenario, cache=cache)
    evaluate(edited, cache=cache)
    # undo, then redo: every analysis kept
    ran = _spied(monkeypatch)
    undone = evaluate(scenario, cache=cache)
    redone = evaluate(edited, cache=cache)
    assert ran == []
    monkeypatch.undo()
    assert undone.to_json() == evaluate(scenario).to_json()
    assert redone.to_json() == evaluate(edited).to_json()
    # numbers only (details=False) are kept apart from full results
    pairs = edited.variant_documents()
    assert [r for _, r in analyse_all(pairs, details=False, cache=cache)] \
        == [r for _, r in analyse_all(pairs, details=False)]


def test_the_least_recently_used_results_go_first(monkeypatch):
    scenario = example("jumbo_10gbe")
    mtus = (1500, 2000, 3000)
    cache = AnalysisCache(entries=2)
    for mtu in mtus:
        evaluate(scenario.with_value("network.mtu", mtu), cache=cache)
    ran = _spied(monkeypatch)
    evaluate(scenario.with_value("network.mtu", 3000), cache=cache)
    assert "wire" not in ran          # kept: among the last two
    evaluate(scenario.with_value("network.mtu", 1500), cache=cache)
    assert "wire" in ran              # dropped: the oldest of three


def test_an_mtu_edit_keeps_the_migration_time_budget_search(monkeypatch):
    # the rate a migration needs for its time budget reads its own columns,
    # not the transfer rate an MTU edit moves: searched once, while the
    # migration itself (at the new rate) is solved again
    from solvers import goalseek
    scenario = example("seed003_vmotion")
    edited = scenario.with_value("network.mtu", 4000)
    searched = []
    plain = goalseek.rate_for_time
    monkeypatch.setattr(goalseek, "rate_for_time", lambda *a, **k: (
        searched.append(1), plain(*a, **k))[1])
    cache = AnalysisCache()
    evaluate(scenario, cache=cache)
    assert searched
    searched.clear()
    ran = _spied(monkeypatch)
    kept = evaluate(edited, cache=cache)
    assert "migration" in ran and not searched
    assert kept.to_json() == evaluate(edited).to_json()
    # a time budget edit searches again
    evaluate(scenario.with_value("workloads.migrations[0].time_budget_s",
                                 30.0), cache=cache)
    assert searched
