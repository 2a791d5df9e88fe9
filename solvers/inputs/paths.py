"""Where a transfer runs: links, spread over a team's members, flows and
streams, and the per-stream cap, decided from the scenario
(:class:`TransferPath`).
"""

from dataclasses import dataclass

import numpy as np

from models import cpu, pcie, platform, teaming, transport
from solvers.inputs.common import (fastest_speed, given, slowest_speed,
                                   stack_ghz)
from solvers.results import Finding


#: Transports that move data by RDMA: no TCP stack, no per-core path.
RDMA_TRANSPORTS = ("smb_direct", "rdma")


@dataclass(frozen=True)
class TransferPath:
    """Where one transfer runs, decided from the scenario (plain data)."""

    nics: tuple            # Nic documents carrying the traffic
    transport: str         # after fallbacks
    spread: str
    flows: int
    team_mode: str         # 'none', 'independent', 'static', 'lacp'
    notes: tuple           # findings about the path
    #: the peer switch's hash when it keeps the received connections
    #: together (MAC or IP fields only), else None
    switch_hash: str | None = None
    #: each session is a VM's vNIC pinned to one member of the team
    pinned: bool = False


def _smb_interfaces(nics, rdma):
    """SMB Multichannel picks the best kind, then the fastest of it."""
    if rdma:
        candidates = [n for n in nics if n.rdma != "none"]
        kind = "rdma"
    else:
        rss = [n for n in nics if n.rss_queues > 1]
        candidates, kind = (rss, "rss") if rss else (list(nics), "plain")
    fastest = fastest_speed(candidates)
    return [n for n in candidates if n.speed_gbps == fastest], kind


def transfer_path(doc, item):
    """Decide links, spread and flow count of one transfer."""
    notes = []
    kind = item.transport
    pinned = False
    if item.via is not None:
        team = next(t for t in doc.teams if t.name == item.via)
        nics = [n for n in doc.nics if n.id in team.members]
        mode = team.switch_mode
    else:
        wanted = set(item.nics) or {n.id for n in doc.nics}
        nics = [n for n in doc.nics if n.id in wanted]
        mode = "none"
    if kind == "smb_direct" and (mode != "none" or
                                 all(n.rdma == "none" for n in nics)):
        reason = ("a team hides RDMA from SMB" if mode != "none"
                  else "no NIC on the path is RDMA-capable")
        notes.append(Finding(
            id="host.smb_direct_unavailable", severity="warning",
            message=f"Transfer {item.name!r}: SMB Direct needs RDMA NICs "
                    f"used without a team ({reason}); SMB falls back to "
                    "Multichannel over TCP, which is what is modelled.",
            evidence={"metric": "transfer.transport", "value": kind,
                      "threshold": "rdma"}))
        kind = "smb"
    if kind == "rdma":
        # one RDMA connection (QEMU's migration transport) on an RDMA NIC
        nics = [n for n in nics if n.rdma != "none"][:1]
        return TransferPath(tuple(nics), kind, "one", 1, "none",
                            tuple(notes))
    if kind in ("smb", "smb_direct"):
        if mode == "none":
            nics, nic_kind = _smb_interfaces(nics, kind == "smb_direct")
            flows = int(transport.smb_connections(len(nics), nic_kind))
            spread = "all"
        else:  # the team is one interface to SMB
            rss = all(n.rss_queues > 1 for n in nics)
            flows = int(transport.smb_connections(1, "rss" if rss
                                                  else "plain"))
            spread = "one" if mode == "independent" else "hash"
    else:
        streams = given(item.streams, 1)
        if item.purpose == "live_migration" and \
                doc.host.hypervisor == "vsphere" and auto_streams(doc):
            streams = max(streams, int(transport.vmotion_auto_streams(
                slowest_speed(nics))))
        flows = item.sessions * streams
        spread = {"none": "one", "independent": "one"}.get(mode, "hash")
        if mode == "independent" and _sends_by_hash(doc, item):
            spread = "hash"
        elif mode == "independent" and _pinned_per_vnic(doc, item):
            spread, pinned = "all", True
            nics = nics[:_members_pinned(item.sessions, len(nics))]
        if mode == "none" and item.multipath:
            spread = "all"
            nics = nics[:flows]  # a session per NIC, round robin
        elif mode == "none":
            nics = nics[:1]  # one route: TCP uses a single interface
    together = _switch_keeps_together(doc, item)
    if together is not None and spread == "hash":
        spread = "one"   # one peer: every connection on one member
    else:
        together = None
    if spread == "hash" and _striped(doc, item):
        spread = "stripe"
    return TransferPath(tuple(nics), kind, spread, flows, mode, tuple(notes),
                        together, pinned)


def _sends_by_hash(doc, item):
    """A switch-independent LBFO team in Address Hash or Dynamic mode
    spreads what this host sends over all members by connection (inbound
    traffic arrives on one member): Microsoft, 'Windows Server 2012 R2 NIC
    Teaming (LBFO) Deployment and Management'; live migrations leaving a
    host through a Dynamic team use both members (WHI-DYNAMIC-SIX-LM)."""
    team = next(t for t in doc.teams if t.name == item.via)
    return item.direction == "send" and team.policy in ("address_hash",
                                                         "dynamic")


#: Switch-independent policies that tie each vNIC (its virtual switch port,
#: its MAC) to one member in both directions: the member it sends from is
#: where the physical switch learns its MAC, so what it receives arrives
#: there too. vSphere port ID and source MAC (teaming.md 2.2, 2.3), LBT
#: (places ports as port ID and moves whole ports, 2.6), Open vSwitch
#: balance-slb (source MAC + VLAN, 4.1), Hyper-V Port, and Dynamic, whose
#: inbound traffic is distributed per vSwitch port like Hyper-V Port
#: (New-NetLbfoTeam; SET, teaming.md 5.1-5.2).
PINNED_PER_VNIC = ("port_id", "src_mac", "lbt", "ovs_balance_slb",
                   "hyperv_port", "dynamic")
#: Host stacks whose connections end in VMs' vNICs, not in the host.
VNIC_STACKS = ("vm_guest", "esxi_vnic")


def _pinned_per_vnic(doc, item):
    """A switch-independent team that pins each vNIC to a member carries
    a transfer whose sessions are VMs (a VM's stack, or receive queues of
    a virtual switch: VMQ, vRSS, VMMQ, multi-queue vNICs) on as many
    members as the vNICs land on; a host vNIC (vmkernel, management OS)
    stays on one. AnandTech 2010 (ANANDTECH-ESX4-4X1G-4VM): four VMs on a
    port-ID team of 4 x 1 GbE receive almost 3.8 Gbit/s."""
    team = next(t for t in doc.teams if t.name == item.via)
    vnics = doc.host.stack in VNIC_STACKS or item.receive_queues != "rss"
    return vnics and team.policy in PINNED_PER_VNIC and not (
        item.direction == "send" and team.policy == "dynamic")


def _members_pinned(vnics, members):
    """Members carrying ``vnics`` consecutive virtual switch ports (ports
    and MACs are handed out in connect order): ``port_id mod n``."""
    return len(np.unique(teaming.port_id_member(np.arange(vnics), members)))


def _striped(doc, item):
    """A balance-rr team deals every packet to the next member: what this
    host sends, and what it receives from a peer that stripes too (back to
    back, or a switch given no hash of its own)."""
    team = next(t for t in doc.teams if t.name == item.via)
    return team.policy == "balance_rr" and (
        item.direction == "send" or team.switch_hash is None)


def _switch_keeps_together(doc, item):
    """The team's peer-switch hash when this host receives the transfer
    and the hash reads no ports: every connection from the one peer then
    arrives on one member (None otherwise)."""
    if item.via is None or item.direction != "receive":
        return None
    team = next(t for t in doc.teams if t.name == item.via)
    if team.switch_hash is None or team.switch_mode == "independent" \
            or teaming.switch_hash_separates_connections(team.switch_hash):
        return None
    return team.switch_hash


def stream_cap(doc, item, path):
    """Per-stream cap of a transfer [Gbit/s]: its own; for vMotion the
    stream model of :func:`models.transport.vmotion_stream_cap` (none with
    vSphere 7.0 U2+ automatic streams); else the hypervisor's migration
    stream preset scaled by clock."""
    if item.stream_cap_gbps is not None:
        return item.stream_cap_gbps
    if path.transport == "rdma":
        return rdma_slot_cap(path.nics[0])
    if item.purpose != "live_migration":
        return np.inf
    if doc.host.hypervisor == "vsphere":
        if auto_streams(doc):
            return np.inf
        return transport.vmotion_stream_cap(path.flows / len(path.nics))
    preset = transport.MIGRATION_STREAM_CAPS.get(doc.host.hypervisor)
    if preset is None or path.transport not in preset[2]:
        return np.inf
    cap, reference_ghz, _ = preset
    return cap if reference_ghz is None else cpu.clock_scaled(
        cap, stack_ghz(doc), reference_ghz)


def rdma_slot_cap(nic):
    """Ceiling of a single RDMA connection [Gbit/s]: the NIC moves the
    data by DMA, without a host core per byte, so its PCIe slot is the
    bound beyond the link (:func:`models.pcie.slot_bandwidth`; none when
    the slot is not given)."""
    if nic.pcie_gen is None:
        return np.inf
    return float(pcie.slot_bandwidth(
        nic.pcie_gen, nic.pcie_lanes,
        max_payload_bytes=nic.pcie_max_payload_bytes))


def application_streams(item, path):
    """Sending streams of a transfer (each bounded by the per-stream cap):
    ``sessions x streams`` when streams are given; by default one per
    session, and over SMB one per Multichannel connection. SMB hands the
    data to every connection it opens (4 per RSS-capable NIC, 2 per RDMA
    NIC: Microsoft, "SMB Multichannel", ConnectionCountPerRssNetwork
    Interface and ...PerRdmaNetworkInterface;
    models.transport.SMB_CONNECTIONS), each received on its own core
    through RSS: one large VM over SMB "leverages 8 cores and achieves
    19 Gbps" on 2 x 10 GbE (seed 001, case S-HV-f)."""
    if item.streams is not None:
        return item.sessions * item.streams
    if path.transport in ("smb", "smb_direct"):
        return max(item.sessions, path.flows)
    return item.sessions


def auto_streams(doc):
    """Whether vMotion opens its own streams on this host (its setting,
    else its release: models.platform.vmotion_auto_streams)."""
    host = doc.host
    return platform.vmotion_auto_streams(host.hypervisor, host.release,
                                         host.vmotion_auto_streams)
