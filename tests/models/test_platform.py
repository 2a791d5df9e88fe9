"""The platform capability matrix (models.platform): a document asks only
what its hypervisor can do, and a refusal names the field and the value.

Sources of each rule are in models/platform.py; the ones asserted here:
vMotion runs over TCP between vmknics only (VMware, "vSphere vMotion
Networking Requirements"); Hyper-V's live-migration options are TCP/IP,
Compression and SMB (Set-VMHost
-VirtualMachineMigrationPerformanceOption); vSAN is vSphere's and Storage
Spaces Direct Windows Server's; the Windows iSCSI initiator has no iSER;
QEMU's multifd capability exists from 4.0.
"""

import pytest

from models import platform
from models.scenario import ScenarioError, scenario_from_dict
from tests.conftest import minimal_document


def problems_of(document):
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict(document)
    return str(err.value)


def live_migration(hypervisor, transport):
    return minimal_document(
        host={"hypervisor": hypervisor},
        nics=[{"id": "nic0", "speed_gbps": 10.0, "rdma": "roce_v2"}],
        workloads={"transfers": [{"name": "lm", "purpose": "live_migration",
                                  "transport": transport}]})


@pytest.mark.parametrize("hypervisor, transport", [
    ("vsphere", "smb"), ("vsphere", "smb_direct"), ("vsphere",
                                                    "compression"),
    ("hyperv", "rdma"), ("kvm", "smb"), ("xen", "compression")])
def test_a_migration_transport_the_hypervisor_lacks_is_refused(
        hypervisor, transport):
    message = problems_of(live_migration(hypervisor, transport))
    assert "workloads.transfers[0].transport" in message
    assert repr(transport) in message
    assert repr(hypervisor) in message


@pytest.mark.parametrize("hypervisor, transport", [
    ("vsphere", "tcp"), ("hyperv", "smb"), ("hyperv", "smb_direct"),
    ("hyperv", "compression"), ("kvm", "compression")])
def test_what_the_hypervisor_offers_is_accepted(hypervisor, transport):
    scenario_from_dict(live_migration(hypervisor, transport))


def test_a_guest_stack_runs_what_its_os_runs():
    # a Windows VM on ESXi copies over SMB: the guest's stack, not VMkernel
    document = minimal_document(
        host={"hypervisor": "vsphere", "stack": "vm_guest"},
        workloads={"transfers": [{"name": "copy", "transport": "smb"}]})
    scenario_from_dict(document)
    document["host"]["stack"] = "vmkernel"
    assert "'smb' is not offered" in problems_of(document)


@pytest.mark.parametrize("hypervisor, protocol", [
    ("hyperv", "vsan"), ("vsphere", "s2d"), ("vsphere", "smb3"),
    ("kvm", "vsan"), ("hyperv", "nfs3")])
def test_a_storage_protocol_the_hypervisor_lacks_is_refused(hypervisor,
                                                           protocol):
    message = problems_of(minimal_document(
        host={"hypervisor": hypervisor},
        workloads={"storage": [{"name": "io", "protocol": protocol,
                                "backend": {"iops_max": 1e5}}]}))
    assert f"workloads.storage[0].protocol: {protocol!r}" in message


def test_iser_is_refused_on_windows():
    message = problems_of(minimal_document(
        host={"hypervisor": "hyperv"},
        nics=[{"id": "nic0", "speed_gbps": 25.0, "rdma": "roce_v2"}],
        workloads={"storage": [{"name": "io", "protocol": "iscsi",
                                "transport": "rdma",
                                "backend": {"iops_max": 1e5}}]}))
    assert "workloads.storage[0].transport 'rdma'" in message


@pytest.mark.parametrize("protocol, hypervisor", [("vsan", "vsphere"),
                                                  ("s2d", "hyperv")])
def test_an_own_data_path_has_no_sessions_to_set(protocol, hypervisor):
    message = problems_of(minimal_document(
        host={"hypervisor": hypervisor},
        workloads={"storage": [{"name": "io", "protocol": protocol,
                                "sessions_per_path": 4,
                                "backend": {"iops_max": 1e5}}]}))
    assert "workloads.storage[0].sessions_per_path 4" in message


def test_a_qemu_release_without_the_option_is_refused():
    message = problems_of(minimal_document(
        host={"hypervisor": "kvm"},
        workloads={"migrations": [{"name": "vm", "memory_gib": 8.0,
                                   "stop_rule": "qemu", "multifd": True,
                                   "streams": 4, "qemu_version": "3.1"}]}))
    assert "workloads.migrations[0]: multifd exists from QEMU 4.0" in message
    assert "'3.1'" in message


def test_vmotion_auto_streams_is_vsphere_only():
    message = problems_of(minimal_document(
        host={"hypervisor": "hyperv", "vmotion_auto_streams": True}))
    assert "host.vmotion_auto_streams" in message


def test_every_capability_names_its_release_and_source():
    tables = [platform.MIGRATION_TRANSPORTS, platform.MIGRATION_OPTIONS,
              platform.HOST_TRANSPORTS]
    for table in tables:
        for hypervisor, entries in table.items():
            assert hypervisor in platform.HYPERVISORS
            for since, source in entries.values():
                assert since and len(source) > 10
    for entries in platform.STORAGE_PROTOCOLS.values():
        for over, since, source in entries.values():
            assert since and len(source) > 10


def test_the_editor_is_offered_only_the_platforms_choices():
    document = live_migration("vsphere", "tcp")
    assert platform.allowed_values(
        document, "workloads.transfers[0].transport") == ("tcp",)
    document["host"]["hypervisor"] = "hyperv"
    assert "smb" in platform.allowed_values(
        document, "workloads.transfers[0].transport")
    assert platform.allowed_values(document, "network.mtu") is None


@pytest.mark.parametrize("hypervisor, policy", [
    ("vsphere", "dynamic"), ("hyperv", "lbt"), ("kvm", "port_id"),
    ("hyperv", "ovs_balance_slb")])
def test_a_teaming_policy_the_hypervisor_lacks_is_refused(hypervisor,
                                                          policy):
    # LBT is vSphere's vDS (VMware, "Teaming and Failover Policy");
    # Dynamic is Windows LBFO/SET's (Microsoft, "NIC Teaming")
    message = problems_of(minimal_document(
        host={"hypervisor": hypervisor},
        nics=[{"id": "a", "speed_gbps": 10.0},
              {"id": "b", "speed_gbps": 10.0}],
        teams=[{"name": "t", "members": ["a", "b"], "policy": policy,
                "switch_mode": "independent"}]))
    assert f"teams[0].policy: {policy!r} is not offered" in message


def test_changing_the_hypervisor_carries_every_choice_with_it():
    # a Hyper-V host with SMB migration, an S2D pool, a Hyper-V Port team
    # and a Hyper-V evacuation, moved to vSphere: one valid edit
    from models.scenario import set_path
    document = minimal_document(
        host={"hypervisor": "hyperv", "stack": "windows_host"},
        nics=[{"id": "a", "speed_gbps": 10.0},
              {"id": "b", "speed_gbps": 10.0}],
        teams=[{"name": "t", "members": ["a", "b"],
                "policy": "hyperv_port"}],
        workloads={
            "transfers": [{"name": "lm", "purpose": "live_migration",
                           "transport": "smb"}],
            "storage": [{"name": "pool", "protocol": "s2d",
                         "backend": {"iops_max": 1e5}}],
            "evacuations": [{"name": "drain", "transfer": "lm",
                             "platform": "hyperv",
                             "vms": [{"name": "vm1", "memory_gib": 8.0}]}]})
    scenario_from_dict(document)
    changes = platform.follow_hypervisor(document, "vsphere")
    assert changes == {"host.stack": None, "teams[0].policy": "port_id",
                       "workloads.transfers[0].transport": "tcp",
                       "workloads.storage[0].protocol": "vsan",
                       "workloads.evacuations[0].platform": "vsphere"}
    for path, value in {**changes, "host.hypervisor": "vsphere"}.items():
        set_path(document, path, value)
    scenario_from_dict(document)


@pytest.mark.parametrize("host, sections, expected", [
    # vMotion's automatic streams came with vSphere 7.0 U2 (Hagoort 2021)
    ({"release": "6.7", "vmotion_auto_streams": True}, {},
     "host.vmotion_auto_streams: vmotion_auto_streams needs vSphere (ESXi) "
     "7.0 U2 or later, got host.release '6.7'"),
    # the SMB and Compression options came with Windows Server 2012 R2
    ({"hypervisor": "hyperv", "release": "2012"},
     {"workloads": {"transfers": [{"name": "lm", "purpose": "live_migration",
                                   "transport": "smb"}]}},
     "workloads.transfers[0].transport: smb needs Hyper-V 2012 R2"),
    # Storage Spaces Direct is Windows Server 2016's
    ({"hypervisor": "hyperv", "release": "2012 R2"},
     {"workloads": {"storage": [{"name": "pool", "protocol": "s2d",
                                 "backend": {"iops_max": 1e5}}]}},
     "s2d over tcp needs Hyper-V 2016"),
    # NVMe over TCP on ESXi from 7.0 U3 (VMware, "About VMware NVMe
    # Storage")
    ({"release": "7.0 U2"},
     {"workloads": {"storage": [{"name": "ns", "protocol": "nvmeof",
                                 "backend": {"iops_max": 1e5}}]}},
     "nvmeof over tcp needs vSphere (ESXi) 7.0 U3"),
    ({"release": "seven"}, {}, "host.release: not a vSphere (ESXi) release"),
])
def test_the_release_decides_what_the_platform_offers(host, sections,
                                                      expected):
    message = problems_of(minimal_document(host=host, **sections))
    assert expected in message


def test_vmotion_streams_follow_the_release_by_default():
    from solvers.evaluate import evaluate

    def rate(**host):
        doc = scenario_from_dict(minimal_document(
            host=host, nics=[{"id": "vmnic0", "speed_gbps": 25.0}],
            workloads={"migrations": [{"name": "vm", "memory_gib": 16.0}]}))
        return evaluate(doc).variants[0].metric("migration.rate_gbps").value

    # one stream (16.36 Gbit/s) up to 7.0 U1 and when the release is not
    # stated; 7.0 U2 and later fill the 25 GbE link (Hagoort 2021)
    assert rate() == pytest.approx(16.36)
    assert rate(release="7.0 U1") == pytest.approx(16.36)
    assert rate(release="8.0") > 20
    assert rate(release="8.0", vmotion_auto_streams=False) == \
        pytest.approx(16.36)


def test_a_stop_rule_of_another_hypervisor_is_refused():
    # vMotion's switchover rule (VMware KB 2141355) is not Hyper-V's
    message = problems_of(minimal_document(
        host={"hypervisor": "hyperv"},
        workloads={"migrations": [{"name": "vm", "memory_gib": 8.0,
                                   "stop_rule": "vmotion"}]}))
    assert "workloads.migrations[0].stop_rule 'vmotion' is vSphere " \
        "(ESXi)'s; host.hypervisor 'hyperv' migrates by 'hyperv' or " \
        "'fraction_left'" in message
