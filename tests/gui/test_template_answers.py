"""The five seed questions asked from File > New > template with the
template's defaults only (one field changed where the question needs it),
each answer checked against what the platform's own documentation says
(issue 32: answers an expert would sign)."""

import pytest

from app.gui.analysis_actions import goal_metrics
from app.paths import resource_path
from models.units import MIB


def answer(window, template, **changes):
    # a fresh template each time: the previous answer's edits are dropped
    window.open_path(resource_path("templates", template), as_template=True)
    for path, text in changes.items():
        field = window.editor.field(path)
        field.enter(text)
        assert not field.property("refused"), field.error.text()
    window.wait_for_results()
    return window.results.variant("Base")


def test_teaming_template_answers_with_the_configured_policy(window):
    # VMware, "Route based on originating virtual port": each VM port is
    # pinned to one uplink; the goal row is that policy's peak, with the
    # optimal placement beside it
    base = answer(window, "teaming.toml")
    assert goal_metrics(window.scenario) == (
        "teaming.configured.peak_util_pct", "teaming.optimal.peak_util_pct")
    assert base.metric("teaming.configured.peak_util_pct").value == \
        base.metric("teaming.port_id.peak_util_pct").value


def test_transport_template_smb_uses_multichannel_by_default(window):
    # Microsoft, "SMB Multichannel": 4 connections per RSS-capable NIC
    # (ConnectionCountPerRssNetworkInterface); Hyper-V live migration
    # with -VirtualMachineMigrationPerformanceOption SMB rides them over
    # both NICs: line rate of 2 x 10 GbE (seed 001, S-HV-h: 20 Gbit/s)
    tcp = answer(window, "transport.toml")
    smb = answer(window, "transport.toml", **{
        "workloads.transfers[0].transport": "SMB Multichannel (TCP)"})
    assert smb.bottleneck.id == "host.link"
    assert smb.metric("host.throughput_gbps").value == pytest.approx(
        20.0, rel=0.10)
    # TCP: one connection; on a current CPU (the default generation) its
    # core fills one 10 GbE link, SMB fills both
    assert tcp.bottleneck.id == "host.link"
    assert smb.metric("host.throughput_gbps").value == pytest.approx(
        2 * tcp.metric("host.throughput_gbps").value)
    # on the 2015 hosts of seed 001 (the clock-only preset) one core binds
    # TCP below the link, and the finding names the defaulted inputs that
    # decide it
    old = answer(window, "transport.toml",
                 **{"host.cpu": "As fitted (clock only)"})
    assert old.bottleneck.id == "host.cpu_core"
    assert smb.metric("host.throughput_gbps").value > \
        2 * old.metric("host.throughput_gbps").value
    assert any(f.id == "host.defaulted_input_binds" for f in old.findings)


def test_storage_template_on_vsan_has_no_iscsi_session_cap(window):
    # VMware, "vSAN Network Design Guide": vSAN moves IO with its own
    # RDT protocol over the vSAN vmknic, no initiator sessions; HCIBench's
    # diagnostics ask for more outstanding IO (seed 002)
    base = answer(window, "storage.toml", **{
        "workloads.storage[0].protocol": "vSAN",
        "workloads.storage[0].threads_per_disk": "128",
        "workloads.storage[0].backend.iops_max": "500000"})
    assert "one per session" not in base.bottleneck.message
    assert base.bottleneck.id != "storage.cpu"
    assert base.metric("storage.iops").value > 2 * 92_970


def test_migration_template_follows_vmotion(window):
    # One vMotion stream moves about 16 Gbit/s (Broadcom KB 323379): on
    # the template's 10 GbE the line binds; at 25 GbE the stream does,
    # and the verdict names it
    ten = answer(window, "migration.toml")
    assert ten.metric("migration.converged").value == 1
    assert ten.bottleneck.id == "host.link"
    fast = answer(window, "migration.toml", **{"nics[0].speed_gbps": "25"})
    assert fast.bottleneck.id == "host.stream_cap"
    assert "16.36 Gbit/s" in fast.bottleneck.message
    # SDPS (VMware KB 2141355): at 12 Gbit/s of dirtying it converges by
    # throttling, and says where throttling starts, not a convergence
    # limit below the rate it converges at
    rate = f"{12e9 / 8 / MIB:.1f}"
    hot = answer(window, "migration.toml", **{
        "workloads.migrations[0].dirty.rate_mib_s": rate})
    values = {m.id: m.value for m in hot.metrics}
    assert values["migration.converged"] == 1
    assert "migration.dirty_limit_gbps" not in values
    assert values["migration.throttle_from_gbps"] < 12


def test_jumbo_template_nfs_gains_little(window):
    # boche.net (seed 004): NFS on vSphere gains 0-3 % from jumbo frames
    # where the array binds; the NFS datastore is vSphere's (VMware, "NFS
    # Datastore Concepts")
    base = answer(window, "jumbo.toml")
    assert base.metric("storage.jumbo_gain_pct").value < 3
    box = window.editor.field("workloads.storage[0].protocol").input
    offered = {box.itemData(i): box.model().item(i).isEnabled()
               for i in range(box.count())}
    assert offered["nfs3"] and offered["vsan"] and not offered["smb3"] \
        and not offered["s2d"]
