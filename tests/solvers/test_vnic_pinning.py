"""Transfers whose sessions are VMs' vNICs on a switch-independent team
that pins each vNIC to a member (port ID, source MAC, LBT, Hyper-V Port,
Dynamic inbound): one member per vNIC, as many members as the vNICs land
on; a host vNIC keeps one member."""

import pytest

from models import wire
from models.scenario import scenario_from_dict
from solvers.evaluate import evaluate
from tests.conftest import minimal_document

#: TCP goodput of one 1 GbE member at MTU 1500 with timestamps: every
#: expectation below is a whole number of members, exact by construction.
ONE_MEMBER = 1.0 * wire.efficiency(1500)
FOUR = [{"id": f"e{i}", "speed_gbps": 1.0} for i in range(4)]


def _solve(policy, sessions, *, hypervisor="vsphere", vnics=True,
           direction="receive"):
    transfer = {"name": "t", "via": "team", "sessions": sessions,
                "direction": direction}
    host = {"hypervisor": hypervisor}
    if vnics and hypervisor == "vsphere":
        host["stack"] = "vm_guest"
    elif vnics:
        transfer["receive_queues"] = "vmq"
    document = minimal_document(
        host=host, nics=FOUR,
        teams=[{"name": "team", "members": [n["id"] for n in FOUR],
                "switch_mode": "independent", "policy": policy}],
        workloads={"transfers": [transfer]})
    return evaluate(scenario_from_dict(document)).variants[0]


def _throughput(policy, sessions, **options):
    return _solve(policy, sessions, **options).metric(
        "host.throughput_gbps").value


@pytest.mark.parametrize("direction", ["receive", "send"])
@pytest.mark.parametrize("policy, hypervisor", [
    ("port_id", "vsphere"), ("src_mac", "vsphere"), ("lbt", "vsphere"),
    ("hyperv_port", "hyperv")])
@pytest.mark.parametrize("sessions, members", [(1, 1), (3, 3), (4, 4),
                                               (6, 4)])
def test_each_vnic_is_pinned_to_a_member_both_ways(
        policy, hypervisor, direction, sessions, members):
    # teaming.md 2.2/2.3/5.1: the switch learns a vNIC's MAC on the member
    # it sends from, so it receives there too; consecutive ports take the
    # members in turn (port_id mod n): min(sessions, 4) members.
    # AnandTech 2010 (ANANDTECH-ESX4-4X1G-4VM/-8VM): four and eight VMs on
    # a port-ID team of 4 x 1 GbE receive almost 3.8 Gbit/s.
    assert _throughput(policy, sessions, hypervisor=hypervisor,
                       direction=direction) == pytest.approx(
        members * ONE_MEMBER, rel=1e-9)


@pytest.mark.parametrize("direction", ["receive", "send"])
@pytest.mark.parametrize("policy, hypervisor", [
    ("port_id", "vsphere"), ("hyperv_port", "hyperv")])
def test_a_host_vnic_stays_on_one_member(policy, hypervisor, direction):
    # a vmkernel port or the management OS's vNIC is one virtual port:
    # all its connections share one member (S-HV-g, seed 001)
    assert _throughput(policy, 4, hypervisor=hypervisor, vnics=False,
                       direction=direction) == pytest.approx(
        ONE_MEMBER, rel=1e-9)


def test_dynamic_receives_per_vnic_and_address_hash_on_the_primary():
    # New-NetLbfoTeam: switch independent, Dynamic distributes inbound
    # traffic per vSwitch port like Hyper-V Port; Address Hash receives
    # everything on the primary member (peers resolve the team's MAC)
    assert _throughput("dynamic", 4, hypervisor="hyperv") == \
        pytest.approx(4 * ONE_MEMBER, rel=1e-9)
    assert _throughput("address_hash", 4, hypervisor="hyperv") == \
        pytest.approx(ONE_MEMBER, rel=1e-9)


def test_failover_order_uses_one_member_whatever_the_vnics():
    assert _throughput("failover", 4) == pytest.approx(ONE_MEMBER,
                                                      rel=1e-9)


def test_the_pinning_is_an_assumption_shown_with_the_result():
    pinned = _solve("port_id", 6).assumptions
    assert any("6 sessions is a VM's vNIC, pinned by team 'team' "
               "(port_id)" in a and "4 of 4 members" in a for a in pinned)
    assert not any("pinned" in a
                   for a in _solve("port_id", 6, vnics=False).assumptions)


def test_unevenly_pinned_vnics_are_bound_per_member():
    # teaming.md 2.2: ports 0..5 on 4 uplinks take members 0,1,2,3,0,1;
    # members 0 and 1 carry two vNICs capped at 0.6 each (line rate binds),
    # members 2 and 3 one each: 2 x one member + 2 x 0.6
    document = minimal_document(
        host={"hypervisor": "vsphere", "stack": "vm_guest"}, nics=FOUR,
        teams=[{"name": "team", "members": [n["id"] for n in FOUR],
                "switch_mode": "independent", "policy": "port_id"}],
        workloads={"transfers": [{"name": "t", "via": "team", "sessions": 6,
                                  "stream_cap_gbps": 0.6}]})
    throughput = evaluate(scenario_from_dict(document)).variants[0].metric(
        "host.throughput_gbps").value
    assert throughput == pytest.approx(2 * ONE_MEMBER + 2 * 0.6, rel=1e-9)
