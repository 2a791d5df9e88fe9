"""The document's limits (issue 19): what the models cannot represent is
refused where the document is validated, with the fields and the limit;
what is accepted solves and saves back unchanged."""

import copy
import importlib
import math
import warnings

import pytest
from hypothesis import HealthCheck, given, settings

from models.scenario import (LARGEST_MAGNITUDE, MAX_CONNECTIONS, MAX_ENTRIES,
                             MAX_OIO, MAX_SOLVED_ENTRIES, MAX_TEAMING_CELLS,
                             SMALLEST_MAGNITUDE, ScenarioError,
                             dump_scenario, parse_scenario,
                             scenario_from_dict)
from solvers.evaluate import evaluate
from tests.conftest import minimal_document
from tests.fuzzing import DOCUMENTS, mutated_documents


def example(name):
    return copy.deepcopy(DOCUMENTS[name])


def refusal(document):
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict(document)
    return str(err.value)


def solves(document):
    """Validate and evaluate with every warning an error; all finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = evaluate(scenario_from_dict(document))
    assert all(math.isfinite(m.value) for v in results.variants
               for m in v.metrics)
    return results


def storage(**fields):
    return {"storage": [{"name": "s", "backend": {"iops_max": 1e5},
                         **fields}]}


# The cases found by the attack of issue 19 (main at 000d043), each once
# an "internal error".
@pytest.mark.parametrize("threads", [10**9, 2**62])
def test_outstanding_io_beyond_the_model_is_refused_naming_the_product(
        threads):
    text = refusal(minimal_document(workloads=storage(
        vms=1, disks_per_vm=10, threads_per_disk=threads)))
    assert "workloads.storage[0]" in text
    assert ("vms x disks_per_vm x threads_per_disk" in text
            and f"{MAX_OIO:,}" in text) or "threads_per_disk" in text


def test_outstanding_io_at_the_limit_solves():
    solves(minimal_document(workloads=storage(
        vms=10, disks_per_vm=100, threads_per_disk=MAX_OIO // 1000)))


@pytest.mark.parametrize("field", ["ghz"])
def test_denormal_host_clock_is_refused(field):
    document = minimal_document(host={field: 5e-324})
    assert "host.ghz: is below the smallest magnitude the models " \
        f"represent ({SMALLEST_MAGNITUDE:g}" in refusal(document)


@pytest.mark.parametrize("section", ["migrations", "transfers"])
def test_denormal_compressor_rate_is_refused(section):
    document = example("seed001_live_migration")
    document["workloads"][section][0]["compressor_gbps"] = 5e-324
    assert f"workloads.{section}[0].compressor_gbps: is below" in \
        refusal(document)


@pytest.mark.parametrize("value", [SMALLEST_MAGNITUDE, LARGEST_MAGNITUDE])
@pytest.mark.parametrize("section", ["migrations", "transfers"])
def test_compressor_rate_at_either_end_solves(section, value):
    document = example("seed001_live_migration")
    for item in document["workloads"][section]:
        item["compressor_gbps"] = value
    solves(document)


def test_smallest_clock_and_speeds_solve():
    document = example("seed001_live_migration")
    document["host"]["ghz"] = SMALLEST_MAGNITUDE
    for nic in document["nics"]:
        nic["speed_gbps"] = SMALLEST_MAGNITUDE
    solves(document)


def test_too_many_connections_are_refused_naming_sessions_and_streams():
    document = minimal_document(workloads={"transfers": [
        {"name": "t", "sessions": 1024, "streams": 256}]})
    text = refusal(document)
    assert "workloads.transfers[0]: sessions x streams = 262,144 " \
        f"connections, more than {MAX_CONNECTIONS:,}" in text


def test_team_simulation_beyond_its_cells_is_refused():
    document = example("seed000_lbt")
    document["workloads"]["time_step_s"] = 1e-3
    text = refusal(document)
    assert "time steps" in text and f"{MAX_TEAMING_CELLS:,}" in text


def test_lists_longer_than_the_limit_are_refused_with_the_count():
    item = {"name": "m", "memory_gib": 4.0}
    migrations = [dict(item, name=f"m{i}") for i in range(MAX_ENTRIES + 1)]
    text = refusal(minimal_document(workloads={"migrations": migrations}))
    assert f"workloads.migrations: has {MAX_ENTRIES + 1:,} entries, more " \
        f"than the {MAX_ENTRIES:,}" in text


def test_variants_times_entries_beyond_the_limit_are_refused():
    item = {"name": "m", "memory_gib": 4.0}
    document = minimal_document(
        workloads={"migrations": [dict(item, name=f"m{i}")
                                  for i in range(100)]},
        variants=[{"name": f"v{i}", "set": {"network.mtu": 9000}}
                  for i in range(MAX_SOLVED_ENTRIES // 100)])
    assert f"more than {MAX_SOLVED_ENTRIES:,}" in refusal(document)


def test_flows_do_not_count_against_the_solved_entries():
    # a teaming study of 400 VM ports over 8 variants is a real question
    # (1.2 s to evaluate); its bound is the team's simulated cells
    flows = [{"id": f"vm{i}", "tx_gbps": 0.05, "rx_gbps": 0.05,
              "port_id": i} for i in range(400)]
    document = minimal_document(
        nics=[{"id": f"n{i}", "speed_gbps": 10.0} for i in range(4)],
        teams=[{"name": "t", "members": [f"n{i}" for i in range(4)],
                "policy": "lbt"}],
        workloads={"flows": flows},
        variants=[{"name": f"v{i}",
                   "set": {"teams[0].lbt_threshold_pct": 50.0 + i}}
                  for i in range(7)])
    assert len(scenario_from_dict(document).variants) == 7


@pytest.mark.parametrize("where, value, message", [
    ("set", {"network.mtu": None},
     'variants[0].set: "network.mtu": null has no TOML form'),
    ("set", {"meta.objectives": ["a", None]},
     'variants[0].set: "meta.objectives"[1]: null has no TOML form'),
    ("set", {"nics[0].speed_gbps": float("nan")},
     'variants[0].set: "nics[0].speed_gbps": must be a finite number'),
])
def test_variant_values_without_a_saved_form_are_refused(where, value,
                                                         message):
    document = minimal_document(variants=[{"name": "v", where: value}])
    assert message in refusal(document)


@pytest.mark.parametrize("value, message", [
    (None, "sweeps[0].axes[0].values: values[1]: null has no TOML form"),
    (float("nan"), "sweeps[0].axes[0].values: [1]: must be a finite number"),
])
def test_sweep_values_without_a_saved_form_are_refused(value, message):
    document = minimal_document(sweeps=[{"name": "s", "axes": [
        {"path": "network.mtu", "values": [1500, value]}]}])
    assert message in refusal(document)


def test_lone_surrogates_are_refused_as_text_that_cannot_be_saved():
    # a JSON file may spell one (\ud800); UTF-8 cannot encode it
    assert refusal(minimal_document(meta={"name": "bad \ud800"})) \
        .startswith("meta.name: ")
    document = minimal_document(variants=[
        {"name": "v", "set": {"meta.name": "bad \ud800"}}])
    assert 'variants[0].set: "meta.name": is not valid Unicode text' in \
        refusal(document)


def test_logspace_exponents_beyond_the_magnitudes_are_refused():
    document = minimal_document(sweeps=[{"name": "s", "axes": [
        {"path": "nics[0].speed_gbps",
         "logspace": {"start": 0, "stop": 400, "num": 3}}]}])
    assert "logspace: exponents must be between -9 and 12, got 400" in \
        refusal(document)


# Property: an accepted document saves and loads back unchanged, in both
# formats, and saving it again gives the same bytes.
@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(mutated_documents(max_list=20))
def test_accepted_documents_round_trip_through_toml_and_json(named):
    try:
        scenario = scenario_from_dict(named[1])
    except ScenarioError:
        return
    for fmt in ("toml", "json"):
        text = dump_scenario(scenario, fmt)
        again = parse_scenario(text, fmt)
        assert again == scenario
        assert dump_scenario(again, fmt) == text


def test_sweep_axis_with_a_list_value_names_the_axis():
    # issue 19: "TypeError: unhashable type: 'list'" from solvers.sweep
    from solvers import sweep
    scenario = scenario_from_dict(minimal_document(sweeps=[
        {"name": "s", "axes": [{"path": "network.mtu",
                                "values": [[1500], 9000]}]}]))
    with pytest.raises(ValueError) as err:
        sweep.plan(scenario)
    assert "sweeps[0] ('s'): network.mtu = [1500]: network.mtu: must be " \
        "a whole number, got [1500]" in str(err.value)


def test_a_floating_point_error_in_a_model_is_a_refusal_not_a_warning(
        monkeypatch):
    # a gap in the limits must not print a RuntimeWarning and go on with
    # inf: evaluate raises it and refuses the scenario with numpy's words
    import numpy as np

    module = importlib.import_module("solvers.evaluate")

    def divide_by_zero(*args, **kwargs):
        return np.float64(1.0) / np.float64(0.0)

    monkeypatch.setattr(module, "analyse_all", divide_by_zero)
    with pytest.raises(ScenarioError, match=r"the models cannot represent "
                       r"this scenario \(numpy: divide by zero"):
        evaluate(scenario_from_dict(minimal_document()))
