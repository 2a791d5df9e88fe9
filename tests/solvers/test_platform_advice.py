"""Advice an expert would sign: only what the platform can take, savings
at equal work, goals that measure what the user means."""

from models.scenario import scenario_from_dict
from solvers.advise import advise
from tests.conftest import minimal_document


def vsphere_vmotion():
    """What the RVTools import makes of a host: vMotion over its NICs."""
    return scenario_from_dict(minimal_document(
        host={"hypervisor": "vsphere"},
        nics=[{"id": "vmnic0", "speed_gbps": 10.0},
              {"id": "vmnic1", "speed_gbps": 10.0}],
        workloads={"transfers": [{"name": "vmotion",
                                  "purpose": "live_migration"}]}))


def test_vsphere_is_never_advised_a_transport_it_lacks():
    # vMotion runs over TCP between vmknics only (VMware, "vSphere vMotion
    # Networking Requirements"): SMB is Hyper-V's option
    for goal in ("max_throughput", "min_cpu"):
        result = advise(vsphere_vmotion(), goal)
        proposed = [change["new"] for r in result.recommendations
                    for path, change in r.change.items()
                    if path.endswith(".transport")]
        assert proposed == []
        # not even proposed and refused: the advice asks the matrix first
        assert not [c for c, _ in result.rejected
                    if c.startswith("advice.transport")]


def hyperv_transfer(**changes):
    from app.paths import resource_path
    from app.scenario_io import load_scenario
    return load_scenario(resource_path("templates", "transport.toml")
                         ).with_values(changes)


def test_min_cpu_compares_at_equal_work():
    # One SMB stream capped at 4.75 Gbit/s (seed 001, S-HV-e) moves 40 %
    # less than one TCP connection at 7.9 and costs 40 % less CPU: the
    # CPU per Gbit/s is the same, nothing is saved, so min_cpu must not
    # advise it (it did: "CPU -39.7 %").
    base = hyperv_transfer(**{"workloads.transfers[0].streams": 1})
    result = advise(base, "min_cpu")
    assert result.metric == "host.cpu_pct_per_gbps"
    assert "advice.transport.smb" not in [r.id for r in
                                          result.recommendations]
    for r in result.recommendations:
        per_gbps = r.effect["host.cpu_pct_per_gbps"]
        assert per_gbps["after"] < per_gbps["before"]
        # a saving never comes from moving less
        moved = r.effect["host.throughput_gbps"]
        assert moved["after"] >= moved["before"] * (1 - 1e-9) or \
            per_gbps["after"] < per_gbps["before"] * moved["after"] \
            / moved["before"]


def test_min_peak_util_is_each_variants_configured_policy():
    # seed 000 (VMware LBT performance post): LBT keeps the busiest
    # uplink near its 75 % threshold, originating port ID overloads one;
    # the optimum is the same placement for both and stays beside them
    from app.paths import resource_path
    from app.scenario_io import load_scenario
    from models.scenario import GOALS
    from solvers.advise import goal_value
    from solvers.evaluate import evaluate
    scenario = load_scenario(resource_path("examples", "seed000_lbt.toml"))
    results = evaluate(scenario)
    documents = dict(scenario.variant_documents())
    assert GOALS["min_peak_util"][0] == "teaming.configured.peak_util_pct"
    lbt = results.variant("Base")
    port = results.variant("Originating port ID")
    configured = "teaming.configured.peak_util_pct"
    assert lbt.metric(configured).value == \
        lbt.metric("teaming.lbt.peak_util_pct").value < 80
    assert port.metric(configured).value == \
        port.metric("teaming.port_id.peak_util_pct").value > 100
    assert lbt.metric("teaming.optimal.peak_util_pct").value == \
        port.metric("teaming.optimal.peak_util_pct").value
    assert lbt.metric(configured).label == \
        "Configured policy: peak uplink utilization"
    for variant in (lbt, port):
        assert goal_value(variant, documents[variant.name],
                          "min_peak_util") == variant.metric(configured).value


def two_storage_workloads(second_threads=1):
    return scenario_from_dict(minimal_document(
        goal={"kind": "max_iops"},
        host={"hypervisor": "vsphere"},
        workloads={"storage": [
            {"name": "first", "protocol": "iscsi", "threads_per_disk": 64,
             "backend": {"iops_max": 20_000.0}},
            {"name": "second", "protocol": "nfs3",
             "threads_per_disk": second_threads,
             "backend": {"iops_max": 40_000.0,
                         "service_time_ms": 0.5}}]}))


def test_storage_goals_and_verdict_cover_every_workload():
    from solvers.evaluate import evaluate
    doc = two_storage_workloads()
    variant = evaluate(doc).variants[0]
    first = variant.metric("storage.first.iops").value
    second = variant.metric("storage.second.iops").value
    assert variant.metric("storage.iops").value == first + second
    assert variant.metric("storage.latency_ms").value == max(
        variant.metric("storage.first.latency_ms").value,
        variant.metric("storage.second.latency_ms").value)
    # each workload's limit is named: the first's back end, the second's
    # too few outstanding IO
    message = variant.bottleneck.message
    assert "first: the storage back end" in message
    assert "second: the outstanding IO (1)" in message
    # the goal sees the second workload: more threads there are advised
    advice = advise(doc, "max_iops")
    assert any(path == "workloads.storage[1].threads_per_disk"
               for r in advice.recommendations for path in r.change)


def test_teaming_advice_proposes_only_the_platforms_policies():
    # a vSphere team asked to compare Hyper-V's and Linux's policies too
    # (a study may), but advised only vSphere's (VMware, "Teaming and
    # Failover Policy")
    from app.paths import resource_path
    from app.scenario_io import load_scenario
    from models import platform
    scenario = load_scenario(resource_path("examples", "seed000_lbt.toml"))
    data = scenario.model_dump(mode="json")
    data["variants"] = []
    data["teams"][0]["policy"] = "port_id"
    data["teams"][0]["compare"] = ["dynamic", "hyperv_port", "balance_tlb",
                                   "lbt", "failover"]
    result = advise(scenario_from_dict(data), "min_peak_util")
    proposed = [change["new"] for r in result.recommendations
                for path, change in r.change.items()
                if path.endswith(".policy")]
    assert proposed and set(proposed) <= set(
        platform.teaming_policies("vsphere"))


def test_more_streams_are_advised_only_where_the_platform_has_them():
    # QEMU moves one stream unless multifd (multifd-channels); Hyper-V
    # over TCP one connection per VM; vMotion adds vmknics (multi-NIC
    # vMotion) up to 7.0 U1
    def streams_advised(hypervisor, **migration):
        doc = scenario_from_dict(minimal_document(
            host={"hypervisor": hypervisor},
            goal={"kind": "min_migration_time"},
            nics=[{"id": "n0", "speed_gbps": 25.0},
                  {"id": "n1", "speed_gbps": 25.0}],
            workloads={"migrations": [{"name": "vm", "memory_gib": 64.0,
                                       **migration}]}))
        result = advise(doc, "min_migration_time")
        return [r for r in result.recommendations
                if r.id == "advice.migration.streams"] + [
            c for c, _ in result.rejected if c == "advice.migration.streams"]

    libvirt = {"stop_rule": "qemu", "management": "libvirt"}
    assert not streams_advised("kvm", **libvirt)
    assert not streams_advised("hyperv", stop_rule="hyperv")
    assert streams_advised("vsphere")
    assert streams_advised("kvm", multifd=True, **libvirt)
