"""Defaults that follow the platform (issue 32, item 2)."""

import pytest

from app.paths import resource_path
from app.scenario_io import load_scenario
from solvers.evaluate import evaluate


def template(name, **changes):
    return load_scenario(resource_path("templates", name)).with_values(
        changes)


def test_smb_live_migration_opens_multichannel_connections_by_default():
    # Microsoft, "SMB Multichannel" / file-server tuning: the client opens
    # ConnectionCountPerRssNetworkInterface = 4 connections per RSS-capable
    # NIC, and Hyper-V's SMB live migration rides them: one VM "leverages
    # 8 cores" and fills 2 x 10 GbE (seed 001, S-HV-f/h: 19-20 Gbit/s,
    # +-10 % for screenshot readings). Before: 1 stream x 4.75 Gbit/s.
    smb = evaluate(template("transport.toml", **{
        "workloads.transfers[0].transport": "smb"})).variants[0]
    assert smb.bottleneck.id == "host.link"
    assert smb.metric("host.throughput_gbps").value == pytest.approx(
        20.0, rel=0.10)
    # an explicit stream count is the user's, kept as given
    one = evaluate(template("transport.toml", **{
        "workloads.transfers[0].transport": "smb",
        "workloads.transfers[0].streams": 1})).variants[0]
    assert one.bottleneck.id == "host.stream_cap"
    finding = next(f for f in one.findings
                   if f.id == "host.defaulted_input_binds")
    assert "workloads.transfers[0].stream_cap_gbps" in \
        finding.evidence["inputs"]
    assert "transfer 'transfer' stream cap gbps not set" in \
        finding.message and "S-HV-e" in finding.message


def test_a_defaulted_input_that_binds_is_named_with_its_source():
    # on a current CPU one stream fills the template's 10 GbE; on the
    # clock-only preset's hosts (host.cpu 'legacy', given) one core binds
    tcp = evaluate(template("transport.toml", **{
        "host.cpu": "legacy"})).variants[0]
    assert tcp.bottleneck.id == "host.cpu_core"
    finding = next(f for f in tcp.findings
                   if f.id == "host.defaulted_input_binds")
    assert finding.evidence["inputs"] == ["workloads.transfers[0].streams",
                                          "host.ghz"]
    assert "transfer 'transfer' streams not set" in finding.message
    assert "host ghz 2.6 (default): 2.6 GHz" in finding.message
    given = evaluate(template("transport.toml", **{
        "host.cpu": "legacy", "workloads.transfers[0].streams": 1,
        "host.ghz": 3.0})).variants[0]
    assert not [f for f in given.findings
                if f.id == "host.defaulted_input_binds"]


def test_vsan_is_not_capped_by_an_iscsi_session_per_core():
    # vSAN has no initiator sessions: the DOM client in the VMkernel sends
    # every VM's IO over the vSAN vmknic with vSAN's own RDT protocol
    # (VMware, "vSAN Network Design Guide"). HCIBench at 128 and 256
    # outstanding IO against a 500k-IOPS back end was held at 92,970 IOPS
    # by "1 core(s), one per session"; now the curve and the 10 GbE path
    # bind, and no session count is proposed (none exists to set).
    for threads in (128, 256):
        doc = template("storage.toml", **{
            "workloads.storage[0].protocol": "vsan",
            "workloads.storage[0].threads_per_disk": threads,
            "workloads.storage[0].backend.iops_max": 500_000.0})
        result = evaluate(doc).variants[0]
        assert "one per session" not in result.bottleneck.message
        assert result.bottleneck.id != "storage.cpu"
        assert result.metric("storage.iops").value > 2 * 92_970
    # iSCSI keeps its session rule, and the default that binds is named
    iscsi = evaluate(template("storage.toml", **{
        "workloads.storage[0].threads_per_disk": 128,
        "workloads.storage[0].backend.iops_max": 500_000.0})).variants[0]
    assert iscsi.bottleneck.id == "storage.cpu"
    assert any("workloads.storage[0].sessions_per_path"
               in f.evidence.get("inputs", ()) for f in iscsi.findings)


def test_storage_advice_offers_sessions_where_one_core_per_session_binds():
    from solvers.advise import advise
    doc = template("storage.toml", **{
        "workloads.storage[0].threads_per_disk": 128,
        "workloads.storage[0].backend.iops_max": 500_000.0})
    ids = [r.id for r in advise(doc, "max_iops").recommendations]
    assert ids[0] == "advice.storage.sessions_per_path"


def test_qemus_default_max_bandwidth_is_the_limit_it_is():
    # QEMU's migration parameter max-bandwidth defaults to 128 MiB/s
    # from 5.2 (MAX_THROTTLE; 32 MiB/s before): a bare QEMU migration
    # on 10 GbE runs at 1.07 Gbit/s, and the verdict and a finding say
    # it is that default, not the core or the link
    from models.scenario import scenario_from_dict
    from tests.conftest import minimal_document
    doc = scenario_from_dict(minimal_document(
        host={"hypervisor": "kvm"},
        workloads={"migrations": [{"name": "vm", "memory_gib": 16.0,
                                   "stop_rule": "qemu"}]}))
    variant = evaluate(doc).variants[0]
    assert variant.metric("migration.rate_gbps").value == pytest.approx(
        128 * 2**20 * 8 / 1e9)
    assert variant.bottleneck.id == "migration.max_bandwidth"
    finding = next(f for f in variant.findings
                   if f.id == "migration.defaulted_input_binds")
    assert finding.evidence["inputs"] == [
        "workloads.migrations[0].max_bandwidth_mib_s",
        "workloads.migrations[0].management"]
    lifted = evaluate(doc.with_values({
        "workloads.migrations[0].management": "libvirt"})).variants[0]
    assert lifted.bottleneck.id != "migration.max_bandwidth"


def test_a_throttled_vmotion_names_the_stop_rules_defaults():
    # SDPS and the 500 ms switchover goal are vMotion's defaults (VMware
    # KB 2141355): where they decide the answer, the finding says so
    doc = template("migration.toml", **{
        "workloads.migrations[0].dirty.rate_mib_s": 3000.0})
    variant = evaluate(doc).variants[0]
    assert variant.bottleneck.id == "migration.throttled"
    finding = next(f for f in variant.findings
                   if f.id == "migration.defaulted_input_binds")
    assert "KB 2141355" in finding.message
    assert finding.evidence["inputs"] == [
        "workloads.migrations[0].downtime_budget_ms",
        "workloads.migrations[0].throttling"]
