"""Host CPU cost of networking, per-core flow ceilings and RSS queues.

Pure numpy functions that broadcast over scenarios. The cost structure is
that of ``docs/reference/protocol-overheads.md`` section 8.2: cycles per
payload byte (copies, software checksum), per stack traversal (once per
TSO/LRO aggregate when offloaded, else per packet), per wire frame (driver,
interrupts) and per IO or RDMA message. One preset per platform class
(Windows, the ESXi VMkernel, an ESXi VM's vNIC path, Linux) is fitted on that
platform's own published figures; an OS that aggregates in software (Linux
GRO/GSO, the VMkernel's software LRO/TSO) keeps one traversal per aggregate
when the NIC does not.
"""

from dataclasses import dataclass

import numpy as np

from models._checks import as_codes, pick, require_positive

#: Largest TSO/LSO send and LRO/GRO receive aggregate [B] (64 KiB IP
#: datagram limit; protocol-overheads.md section 8.2, ``TSO_max``). Linux
#: BIG TCP lifts the limit per device (``gso_max_size``/``gro_max_size``
#: up to 512 KiB, a hop-by-hop jumbo payload option for IPv6 from 5.19 and
#: IPv4 from 6.3; E. Dumazet, C. Li, "BIG TCP", netdev 0x15, 2022, with
#: 185 KB at Google), which :func:`stack_traversal_bytes` takes as
#: ``aggregate_bytes``: fewer traversals, the same frames.
AGGREGATE_BYTES = 65536

#: Write size at which MSG_ZEROCOPY's page pinning, accounting and
#: completion notification cost what the copy it saves costs: "generally
#: only effective at writes over around 10 KB" (kernel
#: ``Documentation/networking/msg_zerocopy.rst``; W. de Bruijn, E.
#: Dumazet, "sendmsg copy avoidance with MSG_ZEROCOPY", netdev 2.1,
#: 2017). [B]
ZEROCOPY_BREAKEVEN_BYTES = 10 * 1024

#: Bytes an application hands the socket per send call: iperf3's default
#: TCP buffer (``-l``, 128 KiB). [B]
SEND_CALL_BYTES = 128 * 1024


def zero_copy_send_cost(c_byte_tx, *, call_bytes=SEND_CALL_BYTES,
                        breakeven_bytes=ZEROCOPY_BREAKEVEN_BYTES):
    """Cycles per byte a zero-copy sender still spends instead of its copy.

    Parameters
    ----------
    c_byte_tx : numeric
        The copy's cycles per byte. [1/B]
    call_bytes : numeric, default :data:`SEND_CALL_BYTES`
        Bytes per send call. [B]
    breakeven_bytes : numeric, default :data:`ZEROCOPY_BREAKEVEN_BYTES`
        Write size at which zero copy costs what the copy did. [B]

    Returns
    -------
    numeric
        Cycles per payload byte with MSG_ZEROCOPY. [1/B]

    Notes
    -----
    .. math:: c_{zc} = c_{byte,tx}\\, B_{even} / B_{call}

    The per-call overhead (pinning, accounting, the completion
    notification) equals the copy of :math:`B_{even}` bytes, spread over
    the call's bytes: 128 KiB writes keep 8 % of the copy's cost.

    References
    ----------
    Linux ``Documentation/networking/msg_zerocopy.rst``.
    """
    return np.asarray(c_byte_tx) * breakeven_bytes / require_positive(
        "call_bytes", call_bytes, "B")


#: How received connections reach cores: ``rss`` (the NIC's RSS queues, a
#: queue per connection hash), ``vmq`` (behind a virtual switch, one queue
#: per vNIC: Hyper-V VMQ, vSphere NetQueue), ``vrss`` (VMQ plus virtual
#: RSS spreading each vNIC over the VM's vCPUs) and ``vmmq`` (several
#: hardware queues per vNIC), all Hyper-V's; and ``multiqueue`` (vSphere
#: 6.0+ vmxnet3 fed by several NetQueue RSS queues, KVM virtio-net
#: multiqueue). See :func:`receive_queues`.
QUEUE_MODES = ("rss", "vmq", "vrss", "vmmq", "multiqueue")
RSS, VMQ, VRSS, VMMQ, MULTIQUEUE = range(5)

#: Hypervisors each queue mode exists on (``rss``: any host stack).
QUEUE_MODE_HYPERVISORS = {
    "rss": ("vsphere", "hyperv", "kvm", "xen"), "vmq": ("hyperv",),
    "vrss": ("hyperv",), "vmmq": ("hyperv",),
    "multiqueue": ("vsphere", "kvm")}

#: vRSS needs adapters of at least 10 Gbit/s and VMs with at least 2
#: logical processors; below that a vNIC stays on its VMQ's core
#: (MSDOCS ``networking/technologies/vrss/vrss-top.md``; teaming.md 5.4).
VRSS_MIN_LINK_GBPS = 10.0
VRSS_MIN_VCPUS = 2

#: Hardware queue pairs a vNIC gets with VMMQ (Hyper-V virtual switch
#: ``DefaultQueueVmmqQueuePairs`` = 16, WMI
#: ``Msvm_EthernetSwitchHardwareOffloadSettingData``; protocol-overheads.md
#: section 8.4).
VMMQ_QUEUE_PAIRS = 16

#: Receive queues one multi-queue vNIC gets at most: the vmxnet3 driver
#: opens one per vCPU, up to 8 (VMware KB 2020567, "RSS and multiqueue
#: support in Linux driver for VMXNET3"); vSphere 6.0 lets several hardware
#: queues push to one vNIC (VROOM! blog, Mehta 2015).
VNIC_QUEUES = 8


@dataclass(frozen=True)
class StackCosts:
    """CPU cost coefficients of one platform class (see STACK_PRESETS).

    Attributes
    ----------
    c_byte_tx, c_byte_rx : float
        Cycles per payload byte sent / received with offloads on. [1/B]
    c_pkt : float
        Cycles per stack traversal (per aggregate when TSO/LRO). [cycles]
    c_wire : float
        Cycles per wire frame in the driver path. [cycles]
    c_checksum : float
        Extra cycles per byte when checksum offload is missing. [1/B]
    c_encap : float
        Extra cycles per packet for tunnel encap/decap in software. [cycles]
    c_team : float
        Extra cycles per frame in a static/LACP team driver. [cycles]
    c_io : float
        Cycles per RDMA message or storage IO. [cycles]
    untuned_rss_factor : float
        Cost multiplier when RSS queues are left at their defaults (shared
        cores, hyperthread siblings, the remote NUMA node). [unitless]
    soft_aggregation : bool
        The OS aggregates in software when the NIC does not: Linux GRO and
        GSO, the VMkernel's software LRO and TSO. Windows' RSC and LSO need
        the NIC, so without them every packet traverses the stack.
    c_soft_agg : float
        Extra cycles per wire frame to merge (GRO, software LRO) or split
        (GSO) it in software instead of in the NIC. [cycles]
    source : str
        Where the numbers come from.
    """

    c_byte_tx: float
    c_byte_rx: float
    c_pkt: float
    c_wire: float
    c_checksum: float
    c_encap: float
    c_team: float
    c_io: float
    untuned_rss_factor: float
    soft_aggregation: bool
    c_soft_agg: float
    source: str


#: Clock assumed where a source does not publish one [GHz]: the V5 fit's.
ASSUMED_GHZ = 3.0

#: Cost coefficients by platform class. Each was fitted once, on the cases
#: its source names (all of that platform's, none of another's), and is
#: never re-fitted per case.
STACK_PRESETS = {
    "windows_host": StackCosts(
        c_byte_tx=0.55, c_byte_rx=0.65, c_pkt=10_000.0, c_wire=500.0,
        c_checksum=1.0, c_encap=5_000.0, c_team=1_000.0, c_io=20_000.0,
        untuned_rss_factor=2.3, soft_aggregation=False, c_soft_agg=0.0,
        source=(
            "Fitted once on seed 001 (workinghardinit 2015, Hyper-V live "
            "migration on 2 x 10 GbE; validation cases S-HV-a..i): c_byte_rx "
            "from SMB Multichannel without a team (S-HV-h, 6-7 % CPU at 20 "
            "Gbit/s), c_team from the LACP runs with tuned RSS (S-HV-b,d), "
            "untuned_rss_factor from the default-RSS runs (S-HV-a,c); "
            "c_pkt and c_wire split by the order of magnitude of driver and "
            "stack costs (Clark et al. 1988: < 200 instructions per packet "
            "fast path, plus interrupt and buffer handling); c_checksum ~1 "
            "cycle/B (software Internet checksum); c_io keeps RDMA CPU near "
            "zero (S-HV-i). Windows has no software receive coalescing for "
            "its own stack (RSC and LSO are NIC features), so without them "
            "every packet traverses the stack")),
    "vmkernel": StackCosts(
        c_byte_tx=0.27, c_byte_rx=0.27, c_pkt=900.0, c_wire=1_265.0,
        c_checksum=1.0, c_encap=5_000.0, c_team=0.0, c_io=20_000.0,
        untuned_rss_factor=1.0, soft_aggregation=True, c_soft_agg=0.0,
        source=(
            "ESXi VMkernel (vMotion, IP storage), anchored on ESXi's own "
            "single-core figure: one vMotion worker thread is CPU-saturated "
            "at 18 Gbit/s on 40 GbE (Broadcom KB 323379; MTU 1500 and the "
            "default 2.6 GHz taken, neither is published), so one core "
            "moves 18 Gbit/s at MTU 1500 (1.16 cycles/B). No ESXi "
            "single-stream measurement at two MTUs was found: the split "
            "between per-byte, per-traversal and per-frame work is the one "
            "measured on Linux (linux_host, 23 %/1 %/76 % at MTU 1500), "
            "scaled to that total. The VMkernel aggregates in software "
            "(software LRO and TSO are on by default, vSphere Performance "
            "Best Practices); ESXi teams add no driver cost and RSS is not "
            "user-tuned")),
    "linux_host": StackCosts(
        c_byte_tx=0.558, c_byte_rx=0.558, c_pkt=1_870.0, c_wire=2_626.0,
        c_checksum=1.0, c_encap=20_000.0, c_team=0.0, c_io=20_000.0,
        untuned_rss_factor=1.0, soft_aggregation=True, c_soft_agg=0.0,
        source=(
            "Linux/KVM host, fitted once, minimax, on the Linux "
            "single-stream measurements at an assumed 3.0 GHz where no "
            "source publishes its clock: one TCP stream on 40 GbE reaches "
            "10 Gbit/s at MTU 1500 (ESnet fasterdata, \"MTU issues\"; "
            "FASTERDATA-40G-1500) and, with GRO off, 6.55 Gbit/s on 10 GbE "
            "(E. Cree, Linux netdev 2019, \"net: batched receive in GRO "
            "path\"; LINUX-GRO-OFF-1S), both met exactly, which split c_pkt "
            "from c_byte + c_wire/1448; at MTU 9000 one stream moves 25 "
            "Gbit/s on ESnet's 40 GbE pair (FASTERDATA-40G-9000), 30 on "
            "Google's hosts (GRO-ONE-FLOW-40G) and 25 per flow at 2.5 GHz "
            "on ESnet's 100G DTN design (30 at 3.0; ESNET-DTN-25G-PER-FLOW): "
            "c_wire and c_byte put one core at 27.3 Gbit/s, within 9.1 % of "
            "all three (the hosts' spread). Corroborated by the UDP senders "
            "(transport.UDP_DATAGRAM_CYCLES): with this split one "
            "per-datagram constant meets both ESNET-UDP-40G and "
            "UDP-IPERF3-10G-1500 within 0.2 %, where the earlier split "
            "(c_byte 0.65, c_wire 2490, all three at the ESnet pair) left "
            "them 4.6 % apart. Transmit taken equal to receive (no separate "
            "figure). The Linux figures are GRO's: c_wire includes GRO's "
            "per-segment merge and c_soft_agg = 0 (hardware LRO is not "
            "separately measured). Hosts that run the application on the "
            "interrupt's core with aRFS and DDIO move a flow faster still "
            "(42 Gbit/s per core, Cai et al. 2021, CAI-100G-ONE-FLOW, a "
            "known miss). c_encap (Open vSwitch VXLAN in software) set so "
            "that jumbo frames triple tenant throughput without inner "
            "offloads, as Red Hat OSP 7 reports (validation case V10)")),
    "vm_guest": StackCosts(
        c_byte_tx=2.28, c_byte_rx=3.87, c_pkt=1_940.0, c_wire=1_000.0,
        c_checksum=1.0, c_encap=5_000.0, c_team=0.0, c_io=20_000.0,
        untuned_rss_factor=1.0, soft_aggregation=False, c_soft_agg=0.0,
        source=(
            "A VM's virtual NIC path on ESXi, fitted once on VMware's ESX "
            "3.5 U1 10 GbE paper (validation case V5: one vCPU transmits ~8 "
            "Gbit/s at MTU 1500 and fills 10 GbE with jumbo frames; "
            "receive gains +40 % to 5.7 Gbit/s) at an assumed 3.0 GHz: "
            "c_wire is the smallest value that lets jumbo transmit reach "
            "line rate. ESX 3.5 had no software LRO for VMs. For vSphere "
            "6.0 and later see esxi_vnic")),
    "esxi_vnic": StackCosts(
        c_byte_tx=0.82, c_byte_rx=1.39, c_pkt=698.0, c_wire=360.0,
        c_checksum=1.0, c_encap=5_000.0, c_team=0.0, c_io=20_000.0,
        untuned_rss_factor=1.0, soft_aggregation=True, c_soft_agg=0.0,
        source=(
            "A VM's vmxnet3 path on vSphere 6.0 and later (one receive "
            "queue per vCPU, several hardware queues per vNIC: "
            "receive_queues = 'multiqueue'): vm_guest's ESX cost structure "
            "scaled by 0.36, the largest factor at which 4 TCP streams "
            "hashed onto a 4-vCPU VM's 4 queues fill 40 GbE at 2.9 GHz, as "
            "VMware reports (\"a single vNIC to achieve line-rate "
            "performance with 40GbE\", > 35 Gbit/s; R. Mehta, VROOM! blog "
            "2015; case VROOM-40G-1VM). The VMkernel gives vmxnet3 software "
            "LRO and TSO when the NIC lacks them (vSphere Performance Best "
            "Practices)")),
}

#: Hypervisors each platform class exists on.
STACK_HYPERVISORS = {"windows_host": ("hyperv",),
                     "vmkernel": ("vsphere",), "vm_guest": ("vsphere",),
                     "esxi_vnic": ("vsphere",),
                     "linux_host": ("kvm", "xen")}

#: Platform class used when the scenario does not name one.
DEFAULT_STACK = {"hyperv": "windows_host", "vsphere": "vmkernel",
                 "kvm": "linux_host", "xen": "linux_host"}


def stack_traversal_bytes(payload, offload, *, software=False,
                          aggregate_bytes=AGGREGATE_BYTES):
    """Bytes handled per pass through the stack.

    Parameters
    ----------
    payload : numeric
        Payload per wire packet. [B]
    offload : bool or array-like of bool
        TSO/LSO (send side) or LRO/RSC (receive side) in the NIC.
    software : bool or array-like of bool, default False
        The OS aggregates in software instead (GSO on the send side; GRO
        or a software LRO on the receive side).
    aggregate_bytes : numeric, default 65536
        Aggregate size with either. [B]

    Returns
    -------
    numeric
        ``aggregate_bytes`` with either aggregation, else ``payload``. [B]

    Notes
    -----
    Software aggregation saves the stack traversals as the NIC's does; what
    it still costs per frame is :func:`cycles_per_byte`'s ``c_soft_agg``.

    References
    ----------
    J. Corbet, "JLS2009: Generic receive offload", LWN (2009); kernel.org
    ``Documentation/networking/segmentation-offloads.rst``.
    """
    aggregated = np.asarray(offload, dtype=bool) | np.asarray(software,
                                                             dtype=bool)
    return pick(aggregated, aggregate_bytes, payload)


def cycles_per_byte(payload, traversal_bytes, c_byte, c_pkt, c_wire, *,
                    checksum_offload=True, c_checksum=1.0, c_encap=0.0,
                    c_team=0.0, rss_factor=1.0, soft_aggregated=False,
                    c_soft_agg=0.0):
    """CPU cycles spent per payload byte by one side of a TCP stream.

    Parameters
    ----------
    payload : numeric
        Payload per wire packet. [B]
    traversal_bytes : numeric
        Bytes per stack traversal, see :func:`stack_traversal_bytes`. [B]
    c_byte, c_pkt, c_wire : numeric
        Per-byte [1/B], per-traversal and per-frame [cycles] costs.
    checksum_offload : bool or array-like of bool, default True
        Checksums computed by the NIC.
    c_checksum : numeric, default 1.0
        Extra per-byte cost without checksum offload. [1/B]
    c_encap : numeric, default 0.0
        Extra per-packet cost of software encapsulation. [cycles]
    c_team : numeric, default 0.0
        Extra per-frame cost of a team driver. [cycles]
    rss_factor : numeric, default 1.0
        Multiplier for untuned RSS placement. [unitless]
    soft_aggregated : bool or array-like of bool, default False
        Frames are merged or split in software (GRO/GSO, software LRO)
        because the NIC does not.
    c_soft_agg : numeric, default 0.0
        Extra per-frame cost of that software aggregation. [cycles]

    Returns
    -------
    numeric
        Cycles per payload byte. [1/B]

    Notes
    -----
    .. math::

        c = k_{rss} \\left(c_{byte} + c_{cs}[\\neg cs] + \\frac{c_{pkt}}{S}
            + \\frac{c_{wire} + c_{encap} + c_{team}
            + c_{soft}[soft]}{p}\\right)

    One flow is served by one core, so its ceiling is :math:`8 f / c`: at
    40 GbE and above a single stream is bound by the per-frame term, and
    the jumbo-frame gain of one stream is the ratio of :math:`c` at the two
    payloads, far above the framing gain (ESnet: 10 -> 25 Gbit/s on 40 GbE).

    References
    ----------
    protocol-overheads.md section 8.2; Menon and Zwaenepoel (2008): per-byte
    and per-packet costs; ESnet fasterdata, "MTU issues".
    """
    checksum = c_checksum * ~np.asarray(checksum_offload, dtype=bool)
    per_frame = np.asarray(c_wire) + c_encap + c_team \
        + c_soft_agg * np.asarray(soft_aggregated, dtype=bool)
    return rss_factor * (c_byte + checksum + c_pkt / traversal_bytes
                         + per_frame / payload)


def core_ceiling(ghz, cycles_per_byte):
    """Throughput one core sustains for one flow.

    Parameters
    ----------
    ghz : numeric
        Core clock. [GHz]
    cycles_per_byte : numeric
        See :func:`cycles_per_byte`. [1/B]

    Returns
    -------
    numeric
        Per-core (and so per-flow) ceiling. [Gbit/s]

    Notes
    -----
    .. math:: T_{core} = 8 f / c
    """
    ghz = require_positive("ghz", ghz, "GHz")
    return 8.0 * ghz / require_positive("cycles_per_byte", cycles_per_byte,
                                        "1/B")


def cores_busy(throughput, cycles_per_byte, ghz):
    """Cores' worth of CPU a data rate costs.

    Parameters
    ----------
    throughput : numeric
        Payload rate. [Gbit/s]
    cycles_per_byte : numeric
        See :func:`cycles_per_byte`. [1/B]
    ghz : numeric
        Core clock. [GHz]

    Returns
    -------
    numeric
        Busy cores. [cores]

    Notes
    -----
    .. math:: n = T \\, c / (8 f)
    """
    return np.asarray(throughput) * cycles_per_byte / (8.0 * ghz)


def expected_distinct(bins, items):
    """Expected number of distinct bins hit when items hash uniformly.

    Used for flows hashed onto RSS queues and onto team members alike.

    Parameters
    ----------
    bins : numeric
        Queues or members, >= 1.
    items : numeric
        Flows, >= 0.

    Returns
    -------
    numeric
        Expected busy bins, between min(1, items) and min(bins, items).

    Notes
    -----
    .. math:: E = Q \\left(1 - (1 - 1/Q)^F\\right)

    References
    ----------
    protocol-overheads.md section 8.2 (``distinct_q``); kernel.org
    ``Documentation/networking/scaling.rst`` (one flow, one queue).
    """
    bins = np.asarray(bins, dtype=float)
    items = np.asarray(items)
    single = bins == 1
    if not single.any():
        return bins * (1.0 - (1.0 - 1.0 / bins) ** items)
    # one bin takes every item; its zero base is the slow path of numpy's
    # vectorised pow (3x), so those rows raise 1/2 instead and are replaced
    missed = (1.0 - 1.0 / (bins + single)) ** items
    return pick(single, items > 0, bins * (1.0 - missed))


def receive_queues(mode, nic_queues, vnics, flows, link_speed, vcpus, *,
                   vmmq_queue_pairs=VMMQ_QUEUE_PAIRS, vnic_queues=VNIC_QUEUES,
                   vrss_min_link=VRSS_MIN_LINK_GBPS,
                   vrss_min_vcpus=VRSS_MIN_VCPUS):
    """Queues a transfer's connections hash onto, and how many share one.

    Parameters
    ----------
    mode : str or array-like of str
        One of :data:`QUEUE_MODES` (or its code).
    nic_queues : numeric
        Hardware receive queues per NIC (RSS queues, or VMQs).
    vnics : numeric
        Receiving vNICs (one per VM session) for ``vmq``/``vrss``/``vmmq``.
    flows : numeric
        TCP connections of the transfer, >= vnics.
    link_speed : numeric
        Speed of the receiving NICs. [Gbit/s]
    vcpus : numeric
        Logical processors of each receiving VM.
    vmmq_queue_pairs : numeric, default 16
        Queue pairs per vNIC with VMMQ.
    vnic_queues : numeric, default 8
        Receive queues per vNIC with ``multiqueue``.
    vrss_min_link : numeric, default 10
        Slowest adapter vRSS works on. [Gbit/s]
    vrss_min_vcpus : numeric, default 2
        Fewest VM processors vRSS works with.

    Returns
    -------
    queues : numeric
        Queues (each served by one core) per member the connections hash
        onto, for :func:`models.transport.bulk_transfer`'s ``rss_queues``.
    flows_per_queue : numeric
        Connections that always share one queue: 1 when each connection is
        hashed on its own, a vNIC's connections with VMQ alone.
    vrss_fallback : bool or array of bool
        ``vrss`` asked for but the link or the VM is too small, so the vNIC
        stays on one queue.

    Notes
    -----
    With ``rss`` every connection is hashed onto the NIC's queues. With
    ``vmq`` a vNIC is one queue, so its connections share one core
    (:math:`Q = q_{nic}`, :math:`F_q = F / n_{vnic}`). vRSS spreads each
    vNIC over up to its VM's processors in software
    (:math:`Q = n_{vnic} v`); VMMQ gives each vNIC up to
    :math:`\\min(v, p)` hardware queues, within the NIC's
    (:math:`Q = \\min(q_{nic}, n_{vnic} \\min(v, p))`); ``multiqueue`` does
    the same with :math:`p` the vNIC's queues (vmxnet3, virtio-net).
    Connections then
    hash uniformly over :math:`Q` (expected values, see
    :func:`expected_distinct`).

    References
    ----------
    protocol-overheads.md section 8.4 ("before vRSS, a VM's network
    processing was confined to one virtual processor"); teaming.md 5.4
    ("per-vNIC rate with VMQ only <= one core"); MSDOCS ``vrss-top.md``,
    ``vrss-faq.md``; VMware KB 2020567; R. Mehta, "Network Improvements in
    vSphere 6 Boost Performance for 40G NICs", VROOM! blog (2015).
    """
    code = as_codes("mode", mode, QUEUE_MODES)
    nic_queues = require_positive("nic_queues", nic_queues)
    vnics = require_positive("vnics", vnics)
    flows = require_positive("flows", flows)
    link_speed = require_positive("link_speed", link_speed, "Gbit/s")
    vcpus = require_positive("vcpus", vcpus)
    if np.any(vnics > flows):
        raise ValueError(f"vnics must not exceed flows, got {vnics!r} vNICs "
                         f"for {flows!r} flows")
    vrss_fallback = (code == VRSS) & ((link_speed < vrss_min_link)
                                      | (vcpus < vrss_min_vcpus))
    one_per_vnic = (code == VMQ) | vrss_fallback
    spread_by_vrss = (code == VRSS) & ~vrss_fallback
    per_vnic = np.where(code == VMMQ, vmmq_queue_pairs, vnic_queues)
    queues = np.select(
        [spread_by_vrss, (code == VMMQ) | (code == MULTIQUEUE)],
        [vnics * vcpus,
         np.minimum(nic_queues, vnics * np.minimum(vcpus, per_vnic))],
        default=nic_queues)
    flows_per_queue = np.where(one_per_vnic, flows / vnics, 1.0)
    return queues, flows_per_queue, vrss_fallback
