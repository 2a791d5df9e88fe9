"""The analysis contract (solvers/analysis.py, solvers/analyses/) and the
PCIe slot analysis that proves a new analysis needs no hand registration.
The metric-id grammar is tested in test_metric_ids.py, the slot model in
tests/models/test_pcie.py."""

import copy
import dataclasses
import importlib

import numpy as np
import pytest

from app.scenario_io import load_scenario
from models import storage
from models.scenario import (GOALS, ScenarioError, dump_scenario,
                             scenario_from_dict)
from solvers import metric_ids
from solvers.advise import advise
from solvers.analyses import registry, validate
from solvers.analysis import COUNT, FLAG, Goal, Metric
from solvers.evaluate import evaluate
from tests.conftest import ROOT


def example(name):
    return load_scenario(ROOT / "resources" / "examples" / f"{name}.toml")


def test_registry_runs_every_analysis_in_order_after_what_it_requires():
    # every module of solvers/analyses/ is found (no list to keep), once,
    # in order
    modules = sorted(p.stem for p in (ROOT / "solvers" / "analyses")
                     .glob("*.py") if p.stem != "__init__")
    assert sorted(a.module.rpartition(".")[2] for a in registry()) \
        == modules
    names = [a.name for a in registry()]
    assert len(set(names)) == len(names)
    orders = [a.order for a in registry()]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    for analysis in registry():
        assert set(analysis.requires) <= set(
            names[:names.index(analysis.name)])


def declaration(**changes):
    """The PCIe analysis's declaration with ``changes``."""
    pcie_analysis = next(a for a in registry() if a.name == "pcie")
    return dataclasses.replace(pcie_analysis, **changes)


@pytest.mark.parametrize("changes, message", [
    ({"metrics": (Metric("slot_gbps", "Gb/s", "slot"),)},
     "unit 'Gb/s', not one of"),
    ({"headline": "ports_gbps", "metrics": (Metric("slot_gbps", "Gbit/s",
                                                   "slot"),)},
     "headline 'ports_gbps' is not in its metrics"),
    ({"metrics": (Metric("a", "s", "x"), Metric("a", "s", "x")),
      "headline": "a"}, r"metric key\(s\) \['a'\] declared twice"),
    ({"metrics": (Metric("a", "s", "x", kind="amount"),), "headline": "a"},
     "kind 'amount'"),
])
def test_a_declaration_is_checked_when_made(changes, message):
    with pytest.raises(ValueError, match=message):
        declaration(**changes)


@pytest.mark.parametrize("changes, message", [
    # a second analysis of the same name
    ({"order": 99}, "both declare name 'pcie'"),
    # requires one that runs after it
    ({"name": "early", "order": -5, "requires": ("host",),
      "items": ()}, r"'early' requires \['host'\]"),
    # a key another analysis declares in another unit, or as another
    # kind of number
    ({"name": "other", "order": 99, "items": (),
      "metrics": (Metric("total_s", "ms", "total time"),),
      "headline": "total_s"}, "metric key 'total_s'"),
    ({"name": "other", "order": 99, "items": (),
      "metrics": (Metric("total_s", "s", "total time", kind=COUNT),),
      "headline": "total_s"}, "metric key 'total_s'"),
    # a goal models.scenario.GOALS does not know
    ({"name": "other", "order": 99, "items": (), "goals": (
        Goal("min_slots", "other.slot_gbps", "min", bool),)},
     "differ from models.scenario.GOALS"),
])
def test_the_registry_checks_declarations_together(changes, message):
    with pytest.raises(ValueError, match=message):
        validate(sorted(registry() + (declaration(**changes),),
                        key=lambda a: a.order))


def test_catalogue_labels_are_the_public_ones():
    # ids, units and labels are public (batch users script against them):
    # a headline with its own label, one with its analysis's prefix, an
    # item, a teaming policy, an evacuation order
    assert metric_ids.info("host.cpu_pct") == ("%", "Host: CPU")
    assert metric_ids.info("migration.total_s") == ("s",
                                                   "Migration: total time")
    assert metric_ids.info("transfer.lm.throughput_gbps") == (
        "Gbit/s", "lm: throughput")
    assert metric_ids.info("teaming.lbt.peak_util_pct") == (
        "%", "LBT (NIC load): peak uplink utilization")
    assert metric_ids.info("evacuation.smallest_first_s") == (
        "s", "Evacuation: total time, smallest first order")
    assert metric_ids.declared("migration.m.converged").kind == FLAG
    assert metric_ids.headline_of().items() >= {
        "transfer": "host", "migration": "migration", "storage": "storage",
        "evacuation": "evacuation"}.items()
    # a storage headline sums its workloads: tables keep the items
    assert "storage" not in metric_ids.repeating_headlines()


def test_declared_goals_are_the_schema_goals():
    assert {kind: (g.metric, g.sense)
            for kind, g in metric_ids.goals().items()} == GOALS
    assert list(metric_ids.goals()) == list(GOALS)


def two_team_layer2_bonds():
    """explain_layer2_gateway's bond, twice: flows split over two teams,
    so every teaming id carries its team's name."""
    data = copy.deepcopy(example("explain_layer2_gateway").model_dump(
        mode="json", exclude_defaults=True))
    data["nics"] += [{"id": "eno3", "speed_gbps": 10.0},
                     {"id": "eno4", "speed_gbps": 10.0}]
    second = dict(data["teams"][0], name="bond1", members=["eno3", "eno4"])
    data["teams"].append(second)
    for i, flow in enumerate(data["workloads"]["flows"]):
        # bond0 carries the heavier half, so it sets the host's peak
        flow["team"] = "bond0" if i % 2 == 0 else "bond1"
        flow["tx_gbps"] = 2.0 if i % 2 == 0 else 1.0
    data["variants"], data["sweeps"] = [], []
    return scenario_from_dict(data)


def test_two_teams_are_advised_like_one():
    # Bug of 000d043: with flows on two teams advise looked up
    # teaming.<policy>.peak_util_pct, found none, returned NaN as the base
    # value and no recommendation. Each bond sends its four flows through
    # one member (layer2 behind a router, teaming.md section 8 row 1); the
    # goal is the host's worst uplink, on bond0, so layer3+4 on bond0 is
    # the change that lowers it.
    scenario = two_team_layer2_bonds()
    ids = {m.id for m in evaluate(scenario).variants[0].metrics}
    assert "teaming.bond1.balance_xor.peak_util_pct" in ids
    result = advise(scenario)
    assert np.isfinite(result.base_value)
    assert result.metric == "teaming.bond0.balance_xor.peak_util_pct"
    top = result.recommendations[0]
    assert top.change == {"teams[0].hash": {"old": "layer2",
                                            "new": "layer3+4"}}
    assert top.gain_pct > 0


def test_pcie_analysis_names_the_slot_that_binds():
    # A dual-port 100 GbE adapter needs 200 Gbit/s per direction; Gen3 x16
    # moves ~117 (the example's header), Gen4 x16 twice that.
    results = evaluate(example("explain_pcie_slot"))
    base, gen4, x8 = results.variants
    assert base.metric("pcie.slot2.slot_gbps").value == pytest.approx(
        116.898, abs=1e-3)
    assert base.bottleneck.id == "pcie.slot"
    assert "pcie.slot_too_slow" in {f.id for f in base.findings}
    assert gen4.bottleneck.id == "wire.line_rate"
    assert gen4.metric("pcie.slot2.slot_headroom_pct").value > 0
    assert x8.metric("pcie.slot2.slot_gbps").value == pytest.approx(
        base.metric("pcie.slot2.slot_gbps").value / 2)


def test_pcie_fields_are_checked_with_their_path():
    data = example("explain_pcie_slot").model_dump(mode="json")
    data["nics"][0]["pcie_lanes"] = None
    with pytest.raises(ScenarioError, match="pcie_gen and pcie_lanes"):
        scenario_from_dict(data)
    data = example("explain_pcie_slot").model_dump(mode="json")
    data["nics"][1]["pcie_gen"] = 4
    data["variants"] = []
    with pytest.raises(ScenarioError, match=r"nics\[1\].pcie_slot 'slot2'"):
        scenario_from_dict(data)
    data = example("explain_pcie_slot").model_dump(mode="json")
    data["nics"][0]["pcie_lanes"] = 12
    with pytest.raises(ScenarioError, match=r"nics\[0\]\.pcie_lanes"):
        scenario_from_dict(data)


def test_pcie_round_trips_through_toml():
    scenario = example("explain_pcie_slot")
    again = load_scenario_text(dump_scenario(scenario, "toml"))
    assert again == scenario


def load_scenario_text(text):
    from models.scenario import parse_scenario
    return parse_scenario(text, "toml")


def test_callbacks_stop_search_advise_and_sweep(monkeypatch):
    advise_module = importlib.import_module("solvers.advise")
    from solvers import sweep

    scenario = example("seed002_hcibench")
    seen = []

    def stop(progress):
        seen.append((progress.done, progress.total))
        return True

    monkeypatch.setattr(advise_module, "SEARCH_CHUNK_POINTS", 2)
    result = advise_module.search(
        scenario, {"workloads.storage[0].threads_per_disk": [1, 2, 4, 8]},
        callback=stop)
    assert result.status == 1 and result.evaluated == 2
    assert seen == [(2, 4)]
    stopped = advise(scenario, callback=stop)
    assert stopped.status == 1 and stopped.recommendations == ()
    jumbo = example("jumbo_10gbe")
    plan = sweep.plan(jumbo)
    chunks = list(sweep.run(jumbo, plan, chunk_points=5, callback=stop))
    assert len(chunks) == 1 and len(chunks[0]) == 5


def storage_scenario(protocol, cores=16, rdma="none", **workload):
    """One 25 GbE path to a fast all-flash back end, 4 KiB random reads at
    256 outstanding IO: the host's cores are what can bind."""
    from tests.conftest import minimal_document
    item = {"name": "w", "protocol": protocol, "block_kib": 4.0,
            "read_pct": 100.0, "vms": 4, "disks_per_vm": 8,
            "threads_per_disk": 8,
            "backend": {"iops_max": 2_000_000, "service_time_ms": 0.1},
            **workload}
    return scenario_from_dict(minimal_document(
        # SMB 3 datastores are Hyper-V's (models.platform)
        host={"sockets": 1, "cores_per_socket": cores, "ghz": 2.6,
              "hypervisor": "hyperv" if protocol == "smb3" else "vsphere"},
        nics=[{"id": "nic0", "speed_gbps": 25.0, "rss_queues": 8,
               "rdma": rdma}],
        workloads={"storage": [item]}))


def test_storage_cpu_ceiling_grows_with_connections_until_cores_bind():
    # Each connection is one core's work (protocol-overheads.md 8.4-8.5):
    # an iSCSI session per path is CPU-bound on one core; four sessions
    # give four cores' ceiling; SMB Multichannel opens 4 connections per
    # RSS NIC by default (Barreto 2012); local NVMe (blk-mq) uses every
    # core, so the back end binds.
    one = evaluate(storage_scenario("iscsi")).variants[0]
    four = evaluate(storage_scenario("iscsi", sessions_per_path=4)
                    ).variants[0]
    smb = evaluate(storage_scenario("smb3")).variants[0]
    local = evaluate(storage_scenario("local")).variants[0]
    assert one.bottleneck.id == "storage.cpu"
    assert "1 core(s), one per session" in one.bottleneck.message
    assert four.metric("storage.iops").value == pytest.approx(
        4 * one.metric("storage.iops").value, rel=0.02)
    assert smb.bottleneck.message.count("4 core(s)") == 1
    assert local.bottleneck.id == "storage.backend"
    # more connections than cores: a 2-core host's cores bind
    many = evaluate(storage_scenario("iscsi", cores=2, sessions_per_path=64)
                    ).variants[0]
    assert "2 core(s), one per session" in many.bottleneck.message


def test_capped_volume_follows_littles_law_up_to_its_cap():
    # A cloud volume with a documented cap (AWS EBS gp3: 3,000 IOPS
    # baseline) and a fixed service time: at queue depth 1 the IOPS are
    # 1 / R0 (Little's law, storage-io.md section 1); deep queues reach the
    # cap and only add latency.
    def at(depth):
        return evaluate(storage_scenario(
            "iscsi", vms=1, disks_per_vm=1, threads_per_disk=depth,
            backend={"iops_max": 3000, "service_time_ms": 1.0})).variants[0]

    shallow, deep = at(1), at(64)
    latency_s = shallow.metric("storage.latency_ms").value / 1e3
    assert shallow.metric("storage.iops").value == pytest.approx(
        1 / latency_s, rel=1e-9)
    assert shallow.metric("storage.iops").value < 1000
    assert deep.metric("storage.iops").value == pytest.approx(3000,
                                                              rel=0.01)
    assert deep.metric("storage.latency_ms").value == pytest.approx(
        64 / 3000 * 1e3, rel=0.01)


def test_vmotion_auto_streams_saturate_a_fast_nic():
    # vSphere 7.0 U2 and later: "a single vmknic saturates 25, 40 and
    # 100 GbE" (docs.vmware.com vSphere 7.0, live-migration.md 5.3); up to
    # 7.0 U1 one stream binds near 16 Gbit/s on 40 GbE (V7, KB 323379).
    from tests.conftest import minimal_document
    data = minimal_document(
        host={"hypervisor": "vsphere"},
        nics=[{"id": "vmnic0", "speed_gbps": 40.0}],
        workloads={"transfers": [{"name": "vmotion",
                                  "purpose": "live_migration"}]})
    old = evaluate(scenario_from_dict(data)).variants[0]
    data["host"]["vmotion_auto_streams"] = True
    new = evaluate(scenario_from_dict(data)).variants[0]
    assert old.bottleneck.id == "host.stream_cap"
    assert old.metric("host.throughput_gbps").value == pytest.approx(16.36)
    assert new.bottleneck.id == "host.link"
    assert new.metric("host.throughput_gbps").value == pytest.approx(
        new.metric("wire.goodput_gbps").value, rel=0.01)


def test_nvme_of_opens_a_queue_per_core_and_iser_beats_iscsi_on_latency():
    # The Linux NVMe-oF host opens one IO queue per CPU (nvme-cli
    # --nr-io-queues defaults to the CPU count), so 4 cores serve a 4-core
    # host where one iSCSI session is one core. iSER (iSCSI over RDMA)
    # lowers both the latency (5 vs 50 us round trip, no TCP stack time on
    # the path, less its own two RDMA messages at both ends) and the
    # cycles per IO at the same outstanding IO.
    nvme = evaluate(storage_scenario("nvmeof", cores=4)).variants[0]
    assert nvme.bottleneck.id == "storage.cpu"
    assert "4 core(s), every core serving IO" in nvme.bottleneck.message

    def iscsi(transport):
        return evaluate(storage_scenario(
            "iscsi", rdma="roce_v2", vms=1, disks_per_vm=1,
            threads_per_disk=4, transport=transport)).variants[0]

    tcp, iser = iscsi("tcp"), iscsi("rdma")
    rdma_messages_ms = 2 * storage.RDMA_MESSAGES_PER_IO \
        * storage.RDMA_MESSAGE_CYCLES / 2.6e9 * 1e3
    assert iser.metric("storage.latency_ms").value \
        < tcp.metric("storage.latency_ms").value - (0.045 - rdma_messages_ms)
    assert iser.metric("storage.iops_per_cpu_pct").value \
        > tcp.metric("storage.iops_per_cpu_pct").value
