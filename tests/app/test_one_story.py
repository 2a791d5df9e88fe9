"""One answer, one story (issue 32, item 4): the convergence answer and
the goal seek describe the same regime, and the binding limit of the
goal's quantity is the same in the CLI, the PDF summary and the GUI's
verdict (all of them read the variant's bottleneck)."""

import json
import subprocess
import sys

import pytest

from app.paths import resource_path
from app.presentation.summary import executive_summary
from app.scenario_io import load_scenario
from models.scenario import scenario_from_dict
from models.units import MIB
from solvers.evaluate import evaluate
from tests.conftest import ROOT, minimal_document

#: 12 Gbit/s of dirtying in MiB/s
TWELVE_GBPS_MIB_S = 12e9 / 8 / MIB


def vmotion(throttling=None):
    doc = load_scenario(resource_path("templates", "migration.toml"))
    changes = {"workloads.migrations[0].dirty.rate_mib_s":
               TWELVE_GBPS_MIB_S}
    if throttling is not None:
        changes["workloads.migrations[0].throttling"] = throttling
    return evaluate(doc.with_values(changes)).variants[0]


def test_a_throttled_migration_does_not_also_stop_converging():
    # vMotion's SDPS slows the guest's vCPUs until pre-copy converges
    # (VMware KB 2141355): at 12 Gbit/s of dirtying on 10 GbE it
    # converges, throttled. The unthrottled boundary (~9.4 Gbit/s, the
    # goodput) is where throttling starts, not where convergence stops.
    sdps = vmotion()
    assert sdps.metric("migration.converged").value == 1
    assert sdps.metric("migration.throttle_pct").value > 0
    with pytest.raises(KeyError):
        sdps.metric("migration.dirty_limit_gbps")
    start = sdps.metric("migration.throttle_from_gbps")
    assert start.value == pytest.approx(9.4, rel=0.02)
    assert "throttling" in start.label
    # without SDPS the same migration does not converge, and the limit
    # it crossed is named as such
    none = vmotion("none")
    assert none.metric("migration.converged").value == 0
    assert none.metric("migration.dirty_limit_gbps").value == \
        pytest.approx(start.value)


def test_converged_and_the_convergence_limit_agree_everywhere():
    for path in sorted(resource_path("examples").glob("*.toml")):
        for variant in evaluate(load_scenario(path)).variants:
            values = {m.id: m.value for m in variant.metrics}
            for metric_id, value in values.items():
                if metric_id.endswith(".throttle_pct") and value > 0:
                    stem = metric_id.removesuffix("throttle_pct")
                    if values.get(stem + "converged") == 1:
                        assert stem + "dirty_limit_gbps" not in values, (
                            path.name, variant.name, stem)


def vmotion_25g():
    """A vMotion on 25 GbE as File > New gives it (one stream per vmknic
    up to vSphere 7.0 U1), the migration building its own network."""
    return scenario_from_dict(minimal_document(
        meta={"name": "vMotion 25 GbE", "description": "vMotion at 25 GbE"},
        nics=[{"id": "vmnic0", "speed_gbps": 25.0}],
        goal={"kind": "min_migration_time"},
        workloads={"migrations": [{"name": "vm", "memory_gib": 16.0}]}))


def test_the_binding_limit_of_the_goal_is_the_same_in_every_face(tmp_path):
    # one vMotion stream moves about 16.36 Gbit/s (V7, Broadcom KB 323379):
    # at 25 GbE the stream, not the line rate, binds
    scenario = vmotion_25g()
    results = evaluate(scenario)
    base = results.variants[0]
    assert base.metric("migration.rate_gbps").value == pytest.approx(16.36)
    assert base.bottleneck.id == "host.stream_cap"
    assert "16.36 Gbit/s" in base.bottleneck.message
    assert "line rate" not in base.bottleneck.message
    summary = executive_summary(scenario, results)
    assert summary.binding_limit == base.bottleneck.message
    path = tmp_path / "vmotion.toml"
    from app.scenario_io import save_scenario
    save_scenario(scenario, path)
    cli = json.loads(subprocess.run(
        [sys.executable, "-m", "app", "solve", str(path), "--format",
         "json"], cwd=ROOT, check=True, capture_output=True,
        text=True).stdout)
    assert cli["variants"][0]["bottleneck"]["message"] == \
        base.bottleneck.message


def test_with_a_migration_goal_the_migrations_network_is_the_limit():
    # a bulk transfer listed first must not name the migration's limit
    doc = scenario_from_dict(minimal_document(
        goal={"kind": "min_migration_time"},
        nics=[{"id": "vmnic0", "speed_gbps": 25.0},
              {"id": "vmnic1", "speed_gbps": 10.0}],
        workloads={
            "transfers": [{"name": "backup", "nics": ["vmnic1"]},
                          {"name": "vmotion", "purpose": "live_migration",
                           "nics": ["vmnic0"]}],
            "migrations": [{"name": "vm", "memory_gib": 16.0,
                            "transfer": "vmotion"}]}))
    base = evaluate(doc).variants[0]
    assert base.bottleneck.message.startswith("vm: ")
    assert base.bottleneck.id == "host.stream_cap"


def test_the_verdict_is_the_limit_of_the_goals_quantity():
    # a host with a bulk transfer and a storage benchmark, asked for IOPS:
    # the verdict names the storage limit, not the transfer's
    doc = scenario_from_dict(minimal_document(
        goal={"kind": "max_iops"},
        workloads={"transfers": [{"name": "backup"}],
                   "storage": [{"name": "bench", "threads_per_disk": 64,
                                "backend": {"iops_max": 20_000.0}}]}))
    base = evaluate(doc).variants[0]
    assert base.bottleneck.id.startswith("storage.")
    assert "bench" in base.bottleneck.message
    summary = executive_summary(doc, evaluate(doc))
    assert summary.binding_limit == base.bottleneck.message
