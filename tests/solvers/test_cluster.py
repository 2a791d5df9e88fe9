"""The cluster analysis: each case's links against closed forms, the
findings, and the document's refusals."""

import copy

import pytest

from models.scenario import ScenarioError, scenario_from_dict
from solvers.analyses import cluster as analysis
from solvers.evaluate import evaluate


def document(**cluster):
    """Four hosts with 2 x 10 GbE, one NIC on each of two switches in one
    rack, one VM class of 6 Gbit/s per host."""
    base = {
        "host_groups": [{"name": "web", "count": 4,
                         "links": ["tor-a", "tor-b"]}],
        "switches": [{"name": "tor-a", "uplink_gbps": 100.0},
                     {"name": "tor-b", "uplink_gbps": 100.0}],
        "classes": [{"name": "vm", "kind": "vm", "demand_gbps": 6.0}]}
    base.update(cluster)
    return {"schema_version": 1, "meta": {"name": "cluster test"},
            "host": {"hypervisor": "vsphere"},
            "nics": [{"id": "vmnic0", "speed_gbps": 10.0},
                     {"id": "vmnic1", "speed_gbps": 10.0}],
            "cluster": base}


def metrics(data):
    result = evaluate(scenario_from_dict(data)).variants[0]
    return {m.id: m.value for m in result.metrics}, result


def test_each_case_loads_the_links_as_the_closed_form_says():
    values, _ = metrics(document())
    # 6 Gbit/s over two 10 GbE links
    assert values["cluster.normal.peak_util_pct"] == pytest.approx(30.0)
    # one link left on one host, or every host on one switch: 6 of 10
    assert values["cluster.link_down.web.vmnic0.peak_util_pct"] == \
        pytest.approx(60.0)
    assert values["cluster.switch_down.tor-a.peak_util_pct"] == \
        pytest.approx(60.0)
    # one of four hosts down: its VMs restart on three, 6 * 4/3 = 8
    assert values["cluster.host_down.web.peak_util_pct"] == \
        pytest.approx(40.0)
    assert values["cluster.two_hosts_down.web.peak_util_pct"] == \
        pytest.approx(60.0)
    # one rack, no north-south: the uplinks carry nothing
    assert values["cluster.uplink_util_pct"] == 0.0
    assert values["cluster.worst_unmet_gbps"] == 0.0


def test_a_class_loses_what_its_share_cannot_carry():
    data = document(classes=[
        {"name": "vm", "kind": "vm", "demand_gbps": 12.0, "shares": 50.0},
        {"name": "vmotion", "kind": "vmotion", "demand_gbps": 8.0,
         "shares": 50.0}])
    values, result = metrics(data)
    # switch down: 12 + 8 on one 10 GbE link, equal shares: vmotion keeps
    # 5, vm 5 of 12; four hosts lose 7 each
    assert values["cluster.switch_down.tor-a.unmet_gbps"] == \
        pytest.approx(4 * (7.0 + 3.0))
    assert values["cluster.class.vm.worst_unmet_pct"] == \
        pytest.approx(100 * 7 / 12)
    ids = [f.id for f in result.findings]
    assert "cluster.class_loses_share" in ids
    assert result.bottleneck.id == "cluster.link"


def test_uplinks_carry_the_traffic_that_leaves_the_rack():
    data = document(
        host_groups=[{"name": "r1", "count": 4, "links": ["a1", "b1"]},
                     {"name": "r2", "count": 4, "links": ["a2", "b2"]}],
        switches=[{"name": n, "rack": f"rack{n[1]}", "uplink_gbps": 10.0}
                  for n in ("a1", "b1", "a2", "b2")])
    values, _ = metrics(data)
    # per switch: 4 hosts x 3 Gbit/s x 4/7 of peers in the other rack
    assert values["cluster.uplink_util_pct"] == pytest.approx(
        100 * 4 * 3.0 * 4 / 7 / 10.0)


def test_the_rebuild_runs_at_what_the_surviving_links_leave():
    data = document(
        storage_layout="vsan_osa_raid1", data_per_host_tib=10.0,
        classes=[{"name": "vsan", "kind": "storage", "shares": 100.0}])
    values, result = metrics(data)
    # no production: each of 3 survivors rebuilds at 2 x 10 Gbit/s
    assert values["cluster.host_down.web.rebuild_gbps"] == \
        pytest.approx(60.0)
    # moving data at REBUILD_EFFICIENCY (0.70) of that rate
    assert values["cluster.rebuild_s"] == pytest.approx(
        10 * 2 ** 40 * 8 / (0.70 * 60e9))
    assert "cluster.rebuild_time" in [f.id for f in result.findings]


def test_maintenance_moves_the_memory_at_the_vmotion_share():
    data = document(memory_per_host_gib=1024.0, classes=[
        {"name": "vm", "kind": "vm", "demand_gbps": 6.0, "shares": 50.0},
        {"name": "vmotion", "kind": "vmotion", "shares": 50.0}])
    values, _ = metrics(data)
    # each 10 GbE link: vm keeps its 3, vMotion takes the other 7, of
    # which TCP payload at MTU 1500 with timestamps is 1448 / 1538
    assert values["cluster.maintenance.web.evacuation_s"] == \
        pytest.approx(1024 * 2 ** 30 * 8 / (14e9 * 1448 / 1538))


def test_a_full_data_migration_leaves_over_what_production_leaves():
    data = document(
        storage_layout="vsan_osa_raid1", data_per_host_tib=4.0,
        maintenance_moves_data=True, cases=["maintenance"],
        classes=[{"name": "vm", "kind": "vm", "demand_gbps": 6.0,
                  "shares": 50.0},
                 {"name": "vsan", "kind": "storage", "shares": 50.0}])
    values, _ = metrics(data)
    # the host's two 10 GbE links keep 3 + 3 for its VMs; its data leaves
    # over the other 14 at REBUILD_EFFICIENCY (0.70) of them
    assert values["cluster.maintenance.web.data_migration_s"] == \
        pytest.approx(4 * 2 ** 40 * 8 / (0.70 * 14e9))
    without = copy.deepcopy(data)
    without["cluster"]["maintenance_moves_data"] = False
    assert "cluster.maintenance.web.data_migration_s" not in \
        metrics(without)[0]


def test_hosts_on_one_switch_are_isolated_when_it_fails():
    data = document(host_groups=[
        {"name": "web", "count": 3, "links": ["tor-a", "tor-b"]},
        {"name": "lone", "count": 1, "links": ["tor-a"]}])
    _, result = metrics(data)
    critical = [f for f in result.findings if f.id == "cluster.hosts_isolated"]
    assert critical and "switch_down.tor-a" in critical[0].message


def test_a_second_failure_with_ftt_1_is_critical():
    data = document(storage_layout="vsan_osa_raid1", data_per_host_tib=1.0,
                    classes=[{"name": "vsan", "kind": "storage",
                              "read_gbps": 1.0, "write_gbps": 1.0}])
    _, result = metrics(data)
    assert "cluster.data_inaccessible" in [f.id for f in result.findings]


def test_solve_covers_every_single_failure():
    doc = scenario_from_dict(document())
    names = [case[0] for case in analysis.solve(doc)["cases"]]
    assert names == ["normal", "host_down.web", "two_hosts_down.web",
                     "maintenance.web", "link_down.web.vmnic0",
                     "link_down.web.vmnic1", "switch_down.tor-a",
                     "switch_down.tor-b"]


@pytest.mark.parametrize("change, message", [
    ({"host_groups": [{"name": "web", "count": 4,
                       "links": ["tor-a", "tor-z"]}]},
     r"cluster.host_groups\[0\].links\[1\] 'tor-z' is no switch"),
    ({"storage_layout": "vsan_osa_raid1", "failures_to_tolerate": 2,
      "classes": [{"name": "vsan", "kind": "storage"}]},
     "needs at least 5 hosts, the cluster has 4"),
    ({"classes": [{"name": "vm", "kind": "vm", "shares": 0.0}]},
     r"cluster.classes\[0\].shares"),
    ({"storage_layout": "ceph_replica"},
     "needs a class of kind 'storage'"),
    ({"storage_layout": "vsan_osa_raid5", "failures_to_tolerate": 2,
      "classes": [{"name": "vsan", "kind": "storage"}]},
     "tolerates exactly 1"),
])
def test_bad_cluster_documents_are_refused_with_the_path(change, message):
    with pytest.raises(ScenarioError, match=message):
        scenario_from_dict(document(**change))


def test_vsan_layout_on_a_hyperv_host_is_refused():
    data = document(storage_layout="vsan_esa_raid5",
                    classes=[{"name": "vsan", "kind": "storage"}])
    data["host"]["hypervisor"] = "hyperv"
    with pytest.raises(ScenarioError, match="runs on host.hypervisor "
                       "'vsphere'"):
        scenario_from_dict(data)


def test_a_study_too_large_is_refused_with_its_cells():
    data = document(host_groups=[{"name": f"g{g}", "count": 16,
                                  "links": ["tor-a", "tor-b"]}
                                 for g in range(64)])
    data["nics"] = [{"id": f"n{i}", "speed_gbps": 10.0} for i in range(64)]
    with pytest.raises(ScenarioError, match="cells"):
        scenario_from_dict(copy.deepcopy(data))


def test_a_layout_without_a_spare_host_cannot_reprotect():
    # EC 4+2 with the host as failure domain needs 6 hosts: on 6, a lost
    # host leaves its chunks degraded (Ceph "Erasure code": one chunk per
    # failure domain), so there is no rebuild to time
    data = document(storage_layout="ceph_ec", failures_to_tolerate=2,
                    data_per_host_tib=1.0,
                    host_groups=[{"name": "web", "count": 6,
                                  "links": ["tor-a", "tor-b"]}],
                    classes=[{"name": "ceph", "kind": "storage",
                              "read_gbps": 1.0, "write_gbps": 1.0}])
    data["host"]["hypervisor"] = "kvm"
    values, result = metrics(data)
    assert "cluster.host_down.web.rebuild_s" not in values
    stuck = [f for f in result.findings if f.id == "cluster.cannot_reprotect"]
    assert stuck and "host_down.web" in stuck[0].message
    data["cluster"]["host_groups"][0]["count"] = 7
    values, _ = metrics(data)
    assert values["cluster.host_down.web.rebuild_s"] > 0


def test_a_rebuild_starved_by_production_io_is_a_finding_not_inf():
    # found by the fuzzer (cluster_ceph_kvm with write_gbps 2 -> 20): Ceph
    # keeps no floor for recovery, so when production fills the storage
    # class the rebuild gets 0 Gbit/s and its time was inf, which a metric
    # refuses. Replica 2 of 10 Gbit/s writes: 10 * 3/4 + 10 = 17.5 Gbit/s
    # per host, x 4/3 after a host is lost = 23.3 over 2 x 10 GbE
    data = document(storage_layout="ceph_replica", failures_to_tolerate=1,
                    data_per_host_tib=1.0,
                    classes=[{"name": "ceph", "kind": "storage",
                              "write_gbps": 10.0}])
    data["host"]["hypervisor"] = "kvm"
    values, result = metrics(data)
    assert values["cluster.host_down.web.rebuild_gbps"] == 0.0
    assert "cluster.host_down.web.rebuild_s" not in values
    assert "cluster.rebuild_s" not in values
    starved = [f for f in result.findings
               if f.id == "cluster.rebuild_starved"]
    assert starved and "host_down.web" in starved[0].message \
        and "'ceph'" in starved[0].message
    # 8 Gbit/s of writes: 14 * 4/3 = 18.7 of 20 Gbit/s after one host,
    # the rest rebuilds; 14 * 4/2 = 28 after two starves it
    data["cluster"]["classes"][0]["write_gbps"] = 8.0
    values, result = metrics(data)
    assert values["cluster.host_down.web.rebuild_gbps"] > 0
    assert values["cluster.rebuild_s"] > 0
    starved = [f for f in result.findings
               if f.id == "cluster.rebuild_starved"]
    assert starved[0].message.startswith("After two_hosts_down.web, ")
