"""RVTools .xlsx -> one scenario per host.

Layout: the RVTools documentation's tabs and columns (vHost "# CPU",
"Cores per CPU", "Speed" [MHz]; vNIC "Network Device", "Speed" [Mbit/s],
"Switch"; vSwitch "Policy" (vSphere API names such as
loadbalance_srcid), "MTU"; dvSwitch "Host members", "LACP Mode", "LACP
Load Balance Alg.", "Max MTU"; vPort "Port Group", "Switch", "Policy"
(a standard port group's override); dvPort "Policy"; vSC_VMK; vInfo "Memory"
[MiB]; vMetaData "RVTools version"). The samples are written by
tests/app/import_samples.py: esx01 has vmnic0-1 (10 GbE) on vSwitch0
(port ID, as its port groups), vmnic2-3 (25 GbE) on an LACP dvSwitch (srcDestIpTcpUdpPort),
vmnic4 with the link down; esx02 the same but 100 GbE on an LBT
dvSwitch and two of vSwitch0's three port groups on explicit failover; two powered-on VMs of 4 and 8 GiB per host, one powered off,
one template.
"""

import zipfile

import pytest

from app.importers import rvtools
from app.importers.common import run_import
from solvers.evaluate import evaluate
from tests.app.import_samples import (SAMPLES, rvtools_rows,
                                      write_rvtools)


@pytest.mark.parametrize("sample", ["rvtools_4_1.xlsx",
                                    "rvtools_4_4_renamed_headers.xlsx"])
def test_hosts_nics_teams_mtu_and_vms(sample):
    outcome = run_import("rvtools", [SAMPLES / sample])
    assert not outcome.problems
    esx01, esx02, cluster = outcome.scenarios
    assert esx01.meta.name.startswith("esx01.example")
    assert cluster.meta.name.startswith("Prod-cluster (vCenter cluster Prod")
    assert (esx01.host.sockets, esx01.host.cores_per_socket,
            esx01.host.ghz) == (2, 16, 2.6)
    assert [(n.id, n.speed_gbps) for n in esx01.nics] == [
        ("vmnic0", 10.0), ("vmnic1", 10.0), ("vmnic2", 25.0),
        ("vmnic3", 25.0)]
    assert [(t.name, t.policy, t.switch_mode, t.hash, t.members)
            for t in esx01.teams] == [
        ("vSwitch0", "port_id", "independent", None, ["vmnic0", "vmnic1"]),
        ("DSwitch-LACP", "lacp", "lacp", "srcDestIpTcpUdpPort",
         ["vmnic2", "vmnic3"])]
    # esx02's vPort tab: two of vSwitch0's three port groups override
    # port ID with explicit failover; the team follows its port groups
    assert [(t.name, t.policy) for t in esx02.teams] == [
        ("vSwitch0", "failover"), ("DSwitch-LBT", "lbt")]
    assert any("Port groups of vSwitch0 use different teaming policies "
               "(failover_explicit, loadbalance_srcid)" in a
               for a in esx02.meta.assumptions)
    assert "teams[0].policy = failover from" in esx02.meta.notes
    assert "vSwitch0 use different" not in " ".join(esx01.meta.assumptions)
    assert [n.speed_gbps for n in esx02.nics] == [10.0, 10.0, 100.0, 100.0]
    # switches at 1500 and 9000: the largest, said in the assumptions
    assert esx01.network.mtu == 9000
    assert any("different MTUs (1500, 9000)" in a
               for a in esx01.meta.assumptions)
    assert [(m.name, m.memory_gib) for m in esx01.workloads.migrations] \
        == [("vm-01-000", 4.0), ("vm-01-001", 8.0)]
    assert esx01.workloads.transfers[0].purpose == "live_migration"
    skipped = "\n".join(outcome.result.skipped)
    assert "vmnic4 has no link speed" in skipped
    assert "vm-01-002 is poweredOff" in skipped
    assert "template" not in skipped   # templates are not VMs to move
    # provenance: each value with its file and column
    assert f"Measured: nics[2].speed_gbps = 25 from {SAMPLES / sample}, " \
        f"vNIC!{'Speed (Mbps)' if 'renamed' in sample else 'Speed'}" \
        in esx01.meta.notes
    # the host's powered-on VMs are also its evacuation (maintenance
    # mode) over vMotion: vInfo "Folder" as each VM's group, "In Use MiB"
    # its disk, copied only when the evacuation says disks = 'copied'
    evacuation, = esx01.workloads.evacuations
    assert (evacuation.name, evacuation.platform, evacuation.transfer,
            evacuation.disks) == ("esx01", "vsphere", "vmotion", "shared")
    assert [(v.name, v.memory_gib, v.group, v.disk_gib)
            for v in evacuation.vms] == [
        ("vm-01-000", 4.0, "Prod/DB", 40.0),
        ("vm-01-001", 8.0, "Prod/App", 80.0)]
    assert "workloads.evacuations[0].vms[1].disk_gib = 80 from" in \
        esx01.meta.notes
    results = evaluate(esx01)
    base = results.variants[0]
    assert base.metric("migration.vm-01-001.converged").value == 1.0
    assert base.metric("evacuation.total_s").value > 0


def _write(tmp_path, name="x.xlsx", **kwargs):
    rows = kwargs.pop("rows", None) or rvtools_rows()
    path = tmp_path / name
    write_rvtools(path, rows, **kwargs)
    return path


def test_unknown_rvtools_version(tmp_path):
    path = _write(tmp_path, rows=rvtools_rows(version="9.0.1.0"))
    outcome = run_import("rvtools", [path])
    assert not outcome.scenarios
    assert outcome.problems == [
        f"{path}: row 2, column 'vMetaData!RVTools version': expected "
        "RVTools version 3.x or 4.x (other layouts are not known), got "
        "'9.0.1.0'"]


def test_missing_column_names_tab_and_spellings(tmp_path):
    path = _write(tmp_path, drop=[("vNIC", "Speed")])
    outcome = run_import("rvtools", [path])
    assert not outcome.scenarios
    (problem,) = outcome.problems
    assert problem.startswith(f"{path}: row 1, column 'vNIC!Host, ")
    assert "expected a column 'Speed' or 'Speed Mbps' or 'Speed (Mbps)' " \
        "or 'Link Speed' in tab 'vNIC'" in problem


def test_non_numeric_speed_skips_that_host_only(tmp_path):
    rows = rvtools_rows()
    rows["vNIC"][0][5] = "10 Gb"   # esx01 vmnic0
    path = _write(tmp_path, rows=rows)
    outcome = run_import("rvtools", [path])
    assert [s.meta.name.split()[0] for s in outcome.scenarios] == \
        ["esx02.example"]
    assert outcome.problems == [
        f"{path}: row 2, column 'vNIC!Speed': expected a link speed in "
        "Mbit/s, got '10 Gb' (host esx01.example skipped)"]


def test_decimal_comma_and_text_numbers(tmp_path):
    rows = rvtools_rows()
    rows["vHost"][0][6] = "2600,0"  # a German export's clock [MHz]
    rows["vInfo"][0][4] = "4096"   # a number stored as text
    outcome = run_import("rvtools", [_write(tmp_path, rows=rows)])
    assert outcome.scenarios[0].host.ghz == 2.6
    assert outcome.scenarios[0].workloads.migrations[0].memory_gib == 4.0


def test_wrong_file_type_and_truncated_workbook(tmp_path):
    csv_file = SAMPLES / "esxtop_batch.csv"
    outcome = run_import("rvtools", [csv_file])
    assert outcome.problems[0].startswith(
        f"{csv_file}: expected an RVTools export in .xlsx format")
    whole = (SAMPLES / "rvtools_4_1.xlsx").read_bytes()
    cut = tmp_path / "cut.xlsx"
    cut.write_bytes(whole[:len(whole) // 2])
    outcome = run_import("rvtools", [cut])
    assert not outcome.scenarios
    assert outcome.problems[0].startswith(
        f"{cut}: expected an RVTools export in .xlsx format")


def test_not_an_rvtools_workbook(tmp_path):
    import openpyxl
    path = tmp_path / "budget.xlsx"
    workbook = openpyxl.Workbook()
    workbook.active.title = "Budget"
    workbook.save(path)
    outcome = run_import("rvtools", [path])
    assert outcome.problems == [
        f"{path}: expected RVTools tabs vHost, vNIC (is this an RVTools "
        "export?), got 'Budget'"]
    assert zipfile.is_zipfile(path)


def test_unknown_policy_is_a_problem_but_the_host_imports(tmp_path):
    rows = rvtools_rows(hosts=1)
    rows["vSwitch"][0][6] = "loadbalance_magic"
    outcome = run_import("rvtools", [_write(tmp_path, rows=rows)])
    assert len(outcome.scenarios) == 1
    assert outcome.scenarios[0].teams[0].policy == "port_id"
    assert "expected one of loadbalance_srcid" in outcome.problems[0]
    assert "got 'loadbalance_magic'" in outcome.problems[0]


def test_large_inventory_imports_every_host(tmp_path):
    path = _write(tmp_path, rows=rvtools_rows(hosts=20, vms_per_host=10))
    result = rvtools.import_files([path])
    # one scenario per host and one for their vCenter cluster
    assert len(result.drafts) == 21 and not result.problems
    assert sum(len(d.document["workloads"]["migrations"])
               for d in result.drafts) == 20 * 9
    assert result.drafts[-1].document["cluster"]["host_groups"][0][
        "count"] == 20


def test_a_cluster_document_per_vcenter_cluster(tmp_path):
    """vHost "Cluster": the two hosts of Prod make one cluster document
    (the slowest NIC at each position, NICs alternating over two ToRs,
    the busiest host's VM memory for maintenance); its cases solve."""
    outcome = run_import("rvtools", [SAMPLES / "rvtools_4_1.xlsx"])
    cluster = outcome.scenarios[-1]
    assert [n.speed_gbps for n in cluster.nics] == [10.0, 10.0, 25.0, 25.0]
    group, = cluster.cluster.host_groups
    assert (group.count, group.links) == (2, ["tor-a", "tor-b"] * 2)
    # non-blocking: 2 hosts x (10 + 25) Gbit/s on each switch
    assert [s.uplink_gbps for s in cluster.cluster.switches] == [70.0, 70.0]
    assert [c.kind for c in cluster.cluster.classes] == [
        "vm", "management", "vmotion"]
    # esx01 and esx02 each run 4 + 8 GiB powered on
    assert cluster.cluster.memory_per_host_gib == 12.0
    assert any("slowest at each position" in a
               for a in cluster.meta.assumptions)
    assert "cluster.memory_per_host_gib = 12 from " in cluster.meta.notes
    assert "vInfo!Memory (the busiest host's powered-on VMs)" in \
        cluster.meta.notes
    values = {m.id: m.value for m in evaluate(cluster).variants[0].metrics}
    assert values["cluster.maintenance.Prod.evacuation_s"] > 0


def test_vsan_clusters_and_one_host_clusters(tmp_path):
    rows = rvtools_rows(hosts=5)
    for row in rows["vSC_VMK"]:
        if row[4] == "vmk1":
            row[9] = "vMotion, vSAN"
    # esx05 alone in its own cluster
    rows["vHost"][4][2] = "Edge"
    outcome = run_import("rvtools", [_write(tmp_path, rows=rows)])
    assert not outcome.problems
    cluster = outcome.scenarios[-1]
    assert cluster.cluster.host_groups[0].count == 4
    assert (cluster.cluster.storage_layout,
            cluster.cluster.failures_to_tolerate) == ("vsan_osa_raid1", 1)
    # powered-on VMs in use: 40 + 80 GiB per host, two copies over 4 hosts
    assert cluster.cluster.data_per_host_tib == pytest.approx(
        4 * 120 * 2 / 4 / 1024)
    assert "cluster Edge: one host" in "\n".join(outcome.result.skipped)
    values = {m.id: m.value for m in evaluate(cluster).variants[0].metrics}
    # 3 survivors still hold RAID-1 FTT 1: the lost copies are rebuilt
    assert values["cluster.host_down.Prod.rebuild_s"] > 0


def test_the_esxi_release_is_imported_and_decides_vmotion_streams():
    # vHost "ESX Version" "VMware ESXi 8.0.2": ESXi numbers its updates as
    # the third part, so 8.0 U2; from 7.0 U2 vMotion opens streams to fill
    # the NIC (N. Hagoort, "Auto-Tuning vMotion Streams", 2021), so the
    # imported vMotion is not held to one 16.36 Gbit/s stream
    outcome = run_import("rvtools", [SAMPLES / "rvtools_4_1.xlsx"])
    esx01 = outcome.scenarios[0]
    assert esx01.host.release == "8.0 U2"
    assert "Measured: host.release = 8.0 U2" in esx01.meta.notes
    assert rvtools._esxi_release("VMware ESXi 7.0.3 build-20328353") == \
        "7.0 U3"
    assert rvtools._esxi_release("VMware ESXi 6.7.0 build-8169922") == "6.7"
    assert rvtools._esxi_release(None) is None
    base = evaluate(esx01).variants[0]
    assert "one per vmknic" not in " ".join(base.assumptions)
