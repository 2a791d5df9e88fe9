"""The inputs layer: resolved scenario documents -> typed model inputs.

Every analysis reads its inputs from one :class:`Inputs`, built once per
evaluation: each family (wire, transfers, storage, migrations, teams) is
gathered into numpy columns the first time an analysis asks for it, with
every unit conversion (:mod:`models.units`) and preset lookup (CPU cost
presets, stop rules, stream caps) done here and nowhere else. Sweeps and
searches reuse the same builders.
"""

import functools
import ipaddress
import math
from dataclasses import dataclass, replace

import numpy as np

from models import (compression, cpu, evacuation, host, migration,
                    migration_costs, pcie, platform, qemu_ram, storage,
                    teaming, transport, wire)
from models.scenario import Migration, Transfer
from models.units import GIB, KIB, MIB, gbps_to_bytes_per_s
from solvers.results import Finding


def stack_preset(doc):
    """Name of the CPU cost preset a document's host uses."""
    return doc.host.stack or host.DEFAULT_STACK[doc.host.hypervisor]


def stack_costs(doc):
    """The :class:`models.host.StackCosts` of a document's host: its preset,
    with the coefficients a calibration fitted (``doc.calibration.stack``)
    in place of the preset's."""
    preset = host.STACK_PRESETS[stack_preset(doc)]
    fitted = doc.calibration.stack if doc.calibration else None
    if fitted is None:
        return preset
    return replace(preset, **{
        name: value for name, value in fitted.model_dump().items()
        if name != "base" and value is not None})


def stack_ghz(doc):
    """Clock at which the stack presets' cycle counts run on a document's
    host: its clock times its CPU generation's per-clock speed
    (:func:`models.cpu.stack_ghz`) [GHz]."""
    return _generation_clock(doc.host.ghz, doc.host.cpu)


@functools.lru_cache(maxsize=1024)
def _generation_clock(ghz, generation):
    """:func:`models.cpu.stack_ghz` of one clock and generation, kept: a
    sweep asks for the same few pairs for every row."""
    return float(cpu.stack_ghz(ghz, cpu.stack_speed(generation)))


def given(value, default):
    """``value``, or ``default`` where the field is not set (None): not
    ``value or default``, so that a column sweep's array of values
    (:mod:`solvers.columns`) passes through the builders."""
    return default if value is None else value


def total_cores(doc):
    """Physical cores of a document's host."""
    return doc.host.sockets * doc.host.cores_per_socket


def encapsulation_bytes(network):
    """Overlay bytes per packet of one network section [B]."""
    return int(wire.encapsulation_bytes(
        network.encapsulation, network.underlay_ip_version,
        geneve_option_bytes=network.geneve_option_bytes))


# -- wire ---------------------------------------------------------------------

@dataclass(frozen=True)
class WireColumns:
    """The network section and link rate of every document, as columns.

    Attributes
    ----------
    mtu, ip_version, vlan_tags, timestamps, encap : numpy.ndarray
        IP MTU [B], 4 or 6, tags per frame, TCP timestamps on, overlay
        bytes per packet [B].
    link_gbps : numpy.ndarray
        Sum of the NICs' nominal rates [Gbit/s].
    frame_size : numpy.ndarray
        Frame size of the packet-rate question [B]; NaN where not asked.
    limits : tuple of int
        MTU range covering every document's accepted range [B].
    ghz, c_wire, c_byte_rx : numpy.ndarray
        Core clock [GHz] and the host preset's per-frame [cycles] and
        per-byte receive [1/B] costs, for the per-packet cost of frames
        of ``frame_size``.
    """

    mtu: np.ndarray
    ip_version: np.ndarray
    vlan_tags: np.ndarray
    timestamps: np.ndarray
    encap: np.ndarray
    link_gbps: np.ndarray
    frame_size: np.ndarray
    limits: tuple
    ghz: np.ndarray
    c_wire: np.ndarray
    c_byte_rx: np.ndarray


def wire_columns(documents):
    networks = [doc.network for doc in documents]
    costs = [stack_costs(doc) for doc in documents]
    return WireColumns(
        ghz=np.array([stack_ghz(doc) for doc in documents]),
        c_wire=np.array([c.c_wire for c in costs]),
        c_byte_rx=np.array([c.c_byte_rx for c in costs]),
        mtu=np.array([n.mtu for n in networks]),
        ip_version=np.array([n.ip_version for n in networks]),
        vlan_tags=np.array([n.vlan_tags for n in networks]),
        timestamps=np.array([n.tcp_timestamps for n in networks]),
        encap=wire.encapsulation_bytes(
            np.array([n.encapsulation for n in networks]),
            np.array([n.underlay_ip_version for n in networks]),
            geneve_option_bytes=np.array([n.geneve_option_bytes
                                          for n in networks])),
        link_gbps=np.array([sum(nic.speed_gbps for nic in doc.nics)
                            for doc in documents]),
        frame_size=np.array([np.nan if n.frame_size_bytes is None
                             else n.frame_size_bytes for n in networks]),
        limits=wire.limits_covering([n.mtu_min for n in networks],
                                    [n.mtu_max for n in networks]))


# -- transfers ----------------------------------------------------------------

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
    fastest = max(n.speed_gbps for n in candidates)
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
                min(n.speed_gbps for n in nics))))
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


def migration_carrier(item, ghz=None):
    """The transfer a migration without a named one rides: its own
    transport fields over all NICs (one session per concurrent migration,
    spread over the NICs like multi-NIC vMotion). With QEMU multifd every
    channel (stream) has its own compression thread; ``ghz`` resolves a
    named compressor (:func:`resolve_compression`)."""
    streams = migration_streams(item)
    carrier = Transfer(
        name=f"{item.name}-network", purpose="live_migration",
        transport=item.transport, sessions=item.concurrency,
        streams=streams, multipath=True,
        compression_ratio=item.compression_ratio,
        compressor_gbps=item.compressor_gbps,
        compression_threads=streams if item.multifd
        else item.compression_threads,
        compressor=item.compressor, compression_data=item.compression_data,
        qat_devices=item.qat_devices,
        data_path="qemu_multifd" if item.multifd and item.stop_rule == "qemu"
        else "socket")
    legacy = item.stop_rule == "qemu" and not item.multifd
    return resolve_compression(
        carrier, ghz, efficiency=compression.QEMU_LEGACY_COMPRESS_EFFICIENCY
        if legacy else 1.0)


def resolve_compression(item, ghz, *, efficiency=1.0):
    """``item`` (a Transfer) with its named compressor turned into the
    numbers the transport chain reads: ``compressor_gbps`` per thread at
    ``ghz`` [GHz] (:func:`models.compression.thread_rate`; for an offload
    such as QAT what each thread gets from ``qat_devices``,
    :func:`models.compression.offload_thread_rate`) and
    ``compression_ratio`` from ``compression_data``. Unchanged without a
    compressor; ``ghz`` None resolves the ratio only."""
    if item.compressor is None:
        return item
    named = compression.preset(
        item.compressor, "silesia" if item.compression_data == "ratio"
        else item.compression_data)
    update = {}
    if item.compression_data != "ratio":
        update["compression_ratio"] = named["ratio"]
    if named["offload"]:
        update["compressor_gbps"] = float(compression.offload_thread_rate(
            item.compression_threads, item.qat_devices,
            named["channel_gbps"], named["device_gbps"]))
    elif ghz is not None:
        update["compressor_gbps"] = float(compression.thread_rate(
            named["mb_s"], ghz, efficiency=efficiency))
    return item.model_copy(update=update)


def compression_note(doc, item):
    """Assumption line of a transfer with a named compressor."""
    if item.compressor in compression.OFFLOAD:
        return (f"Compression offloaded to {item.qat_devices} "
                f"{item.compressor} device(s): {item.compression_threads} "
                f"thread(s) at {item.compressor_gbps:.3g} Gbit/s each "
                "(models.compression.OFFLOAD: a cap per thread and one "
                "per device), no host cores; ratio "
                f"{item.compression_ratio:.3g}")
    return (f"Compressor {item.compressor}: {item.compressor_gbps:.3g} "
            f"Gbit/s per thread at {doc.host.ghz:g} GHz (lzbench rate at "
            f"{compression.REFERENCE_GHZ:g} GHz scaled by clock), "
            f"{item.compression_threads} thread(s), ratio "
            f"{item.compression_ratio:.3g} ({item.compression_data})")


@dataclass(frozen=True)
class TransferRows:
    """Every transfer to run through the chain, as columns.

    Rows are the documents' transfers (``carried_by`` None) followed by
    the carriers of migrations that name no transfer (``carried_by``
    ``("migration", name)``) and the copies of each evacuation's transfer
    with k sessions, one per concurrency it may run at (``carried_by``
    ``("evacuation", name, k)``).

    Attributes
    ----------
    owners : list of (int, Transfer, tuple or None)
        Document index, the transfer, and the key of the rate it carries
        for a migration or an evacuation.
    paths : list of TransferPath
    columns : dict of numpy.ndarray
        The chain's inputs (see :func:`transfer_columns`).
    vrss_fallback : numpy.ndarray of bool
        Rows where vRSS was asked for but cannot engage.
    """

    owners: list
    paths: list
    columns: dict
    vrss_fallback: np.ndarray

    @property
    def transfers(self):
        """Number of leading rows that are the documents' own
        transfers."""
        return sum(1 for *_, carried in self.owners if carried is None)


def transfer_rows(documents):
    owners = transfer_owners(documents)
    if not owners:
        return TransferRows([], [], {}, np.zeros(0, dtype=bool))
    paths = [transfer_path(documents[d], item) for d, item, _ in owners]
    columns = transfer_columns(
        [(documents[d], item, path)
         for (d, item, _), path in zip(owners, paths)])
    return TransferRows(owners, paths, columns,
                        columns.pop("vrss_fallback"))


def transfer_owners(documents):
    """The ``owners`` of :class:`TransferRows`: each document's
    transfers, its migrations' carriers, its evacuations' copies."""
    owners = [(d, resolve_compression(item, doc.host.ghz), None)
              for d, doc in enumerate(documents)
              for item in doc.workloads.transfers]
    owners += [(d, migration_carrier(item, doc.host.ghz),
                ("migration", item.name))
               for d, doc in enumerate(documents)
               for item in doc.workloads.migrations if item.transfer is None]
    owners += [(d, resolve_compression(transfer, doc.host.ghz).model_copy(
                update={"sessions": k}),
                ("evacuation", item.name, k))
               for d, doc in enumerate(documents)
               for item, transfer, limit in evacuation_transfers(doc)
               for k in range(1, sessions_to_rate(item, limit) + 1)]
    return owners


def transfer_columns(rows):
    """Model inputs of ``(document, transfer, path)`` rows, as arrays;
    categorical inputs are the models' codes."""
    columns = {k: [] for k in (
        "transport", "member_speed", "members", "spread", "flows",
        "rss_queues", "cores", "ghz", "mtu", "ip_version", "timestamps",
        "vlan_tags", "encapsulation", "underlay_ip_version",
        "geneve_option_bytes", "protocol", "lro", "checksum", "c_byte",
        "c_pkt", "c_wire", "c_checksum", "c_encap", "c_team", "c_io",
        "rss_factor", "stream_cap", "streams", "ratio", "compressor",
        "threads", "offload", "queue_mode", "vnics", "vcpus",
        "vmmq_queue_pairs", "vnic_queues", "mtu_min", "mtu_max", "soft_agg",
        "c_soft_agg", "frame", "stream_pps", "own_thread",
        "pinned_sessions", "thread_c_byte", "sender_threads", "aggregate")}
    for doc, item, path in rows:
        network = doc.network
        costs = stack_costs(doc)
        offloads = [getattr(n.offloads, f"ipv{network.ip_version}")
                    for n in path.nics]
        # encapsulated traffic keeps TSO/LRO/checksum offloads only where
        # the NIC also offers them for tunnels
        software_tunnel = network.encapsulation != "none" and \
            not all(o.tunnel for o in offloads)
        rdma_kinds = {n.rdma for n in path.nics} - {"none"}
        udp = path.transport == "udp"
        stream_pps = given(item.stream_cap_pps, np.inf)
        add = {
            "transport": transport.TRANSPORTS.index(path.transport),
            # np.minimum: a column sweep passes speeds as arrays
            "member_speed": functools.reduce(
                np.minimum, (n.speed_gbps for n in path.nics)),
            "members": len(path.nics),
            "spread": transport.SPREADS.index(path.spread),
            "flows": path.flows,
            "rss_queues": min(n.rss_queues for n in path.nics),
            "cores": total_cores(doc),
            "ghz": stack_ghz(doc),
            "mtu": network.mtu,
            "mtu_min": network.mtu_min,
            "mtu_max": network.mtu_max,
            "ip_version": network.ip_version,
            "timestamps": network.tcp_timestamps,
            "vlan_tags": network.vlan_tags,
            "encapsulation": network.encapsulation,
            "underlay_ip_version": network.underlay_ip_version,
            "geneve_option_bytes": network.geneve_option_bytes,
            "protocol": wire.PROTOCOLS.index(
                sorted(rdma_kinds)[0] if path.transport in RDMA_TRANSPORTS
                else "udp" if udp else "tcp"),
            # TSO aggregates on the sending side, LRO on the receiving
            # side; datagram senders use neither (one pass per datagram)
            "lro": not udp and not software_tunnel and all(
                o.lro if item.direction == "receive" else o.tso
                for o in offloads),
            # GSO/GRO (or the VMkernel's software TSO/LRO) where the NIC
            # does not aggregate; not modelled for software tunnels (V10)
            # nor for datagrams (one pass each)
            "soft_agg": costs.soft_aggregation and not udp
            and not software_tunnel
            and all(o.gro if item.direction == "receive" else o.gso
                    for o in offloads),
            "c_soft_agg": costs.c_soft_agg,
            # datagrams fill frames of network.frame_size_bytes when asked,
            # else the MTU; TCP always sends full-size segments
            "frame": network.frame_size_bytes
            if udp and network.frame_size_bytes is not None else np.nan,
            "stream_pps": stream_pps,
            # this host's sending thread is the generator whose packet
            # rate is given: its own core, not the stack model, binds it
            "own_thread": np.isfinite(stream_pps)
            & (item.direction == "send"),
            "checksum": not software_tunnel and
            all(o.checksum for o in offloads),
            "c_byte": costs.c_byte_rx if item.direction == "receive"
            else host.zero_copy_send_cost(costs.c_byte_tx)
            if item.zero_copy_send else costs.c_byte_tx,
            "c_pkt": transport.UDP_DATAGRAM_CYCLES if udp else costs.c_pkt,
            "c_wire": costs.c_wire,
            "c_checksum": costs.c_checksum,
            "c_encap": costs.c_encap if software_tunnel else 0.0,
            "c_team": costs.c_team if path.team_mode in ("static", "lacp")
            else 0.0,
            "c_io": costs.c_io,
            "rss_factor": 1.0 if all(n.rss_tuned for n in path.nics)
            else costs.untuned_rss_factor,
            "stream_cap": stream_cap(doc, item, path),
            "streams": application_streams(item, path),
            "ratio": item.compression_ratio,
            "compressor": item.compressor_gbps,
            "threads": item.compression_threads,
            "offload": item.compressor in compression.OFFLOAD,
            "queue_mode": item.receive_queues,
            # a session is one receiving vNIC (SMB's connections may be
            # fewer than its sessions)
            "vnics": np.minimum(item.sessions, path.flows),
            "vcpus": item.vm_vcpus,
            "vmmq_queue_pairs": item.vmmq_queue_pairs,
            "vnic_queues": item.vnic_queues,
            "pinned_sessions": item.sessions if path.pinned else 0,
            # QEMU multifd: the channel threads copy, apart from the queue
            # cores (models.qemu_ram.multifd_channel_cap)
            "thread_c_byte": (costs.c_byte_rx if item.direction == "receive"
                              else costs.c_byte_tx)
            if item.data_path == "qemu_multifd"
            and path.transport not in RDMA_TRANSPORTS else 0.0,
            "sender_threads": item.sender_threads or np.inf,
            # BIG TCP: larger aggregates, fewer traversals (all NICs')
            "aggregate": min(o.aggregate_kib for o in offloads) * KIB,
        }
        for key, value in add.items():
            columns[key].append(value)
    inputs = {k: np.array(v) for k, v in columns.items()}
    inputs["rss_queues"], inputs["flows_per_queue"], \
        inputs["vrss_fallback"] = host.receive_queues(
            inputs.pop("queue_mode"), inputs["rss_queues"],
            inputs.pop("vnics"), inputs["flows"], inputs["member_speed"],
            inputs.pop("vcpus"),
            vmmq_queue_pairs=inputs.pop("vmmq_queue_pairs"),
            vnic_queues=inputs.pop("vnic_queues"))
    _encapsulation_column(inputs)
    return inputs


def _encapsulation_column(columns):
    """Replace the overlay fields of ``columns`` by ``encap``, the overlay
    bytes per packet [B], in one vectorised call for all rows."""
    columns["encap"] = wire.encapsulation_bytes(
        columns.pop("encapsulation"), columns.pop("underlay_ip_version"),
        geneve_option_bytes=columns.pop("geneve_option_bytes"))


# -- storage ------------------------------------------------------------------

@dataclass(frozen=True)
class StorageRows:
    """Every storage workload, as columns (see :func:`storage_columns`).

    Attributes
    ----------
    owners : list of (int, StorageWorkload)
    columns : dict of numpy.ndarray
    """

    owners: list
    columns: dict


def storage_rows(documents):
    owners = [(d, item) for d, doc in enumerate(documents)
              for item in doc.workloads.storage]
    columns = storage_columns([(documents[d], item) for d, item in owners]) \
        if owners else {}
    return StorageRows(owners, columns)


def storage_row(doc, item):
    """Model inputs of one storage workload (see
    :func:`models.storage.storage_chain`); without ``nics`` it uses the
    first NIC."""
    used = [n for n in doc.nics if n.id in item.nics] or [doc.nics[0]]
    backend = item.backend
    service = backend.service_time_ms / 1e3 \
        if backend.service_time_ms is not None \
        else (1.0 / backend.device_iops if backend.devices is not None
              else storage.DEFAULT_SERVICE_S)
    preset = stack_costs(doc)
    rdma = storage_rdma(item, used)
    net = doc.network
    cores = total_cores(doc)
    return {
        "protocol": item.protocol, "block": item.block_kib * KIB,
        "read": item.read_pct / 100, "random": item.random_pct / 100,
        "vms": item.vms, "disks_per_vm": item.disks_per_vm,
        "threads_per_disk": item.threads_per_disk,
        "link_bytes": gbps_to_bytes_per_s(sum(n.speed_gbps for n in used)),
        "serving_cores": cores if item.protocol == "local" else min(
            len(used) * sessions_per_path(item, used, rdma, cores), cores),
        "device_servers": device_servers(backend, service - (
            float(storage.host_wakeup_share(service, storage.HOST_WAKEUP_S))
            if item.protocol == "local" else 0.0)),
        # random reads wait for the die that holds their page
        "placed": (item.read_pct / 100) * (item.random_pct / 100)
        if backend.kind == "nvme" else 0.0,
        "mtu": net.mtu, "mtu_min": net.mtu_min, "mtu_max": net.mtu_max,
        "ip_version": net.ip_version,
        "timestamps": net.tcp_timestamps, "vlan_tags": net.vlan_tags,
        "encapsulation": net.encapsulation,
        "underlay_ip_version": net.underlay_ip_version,
        "geneve_option_bytes": net.geneve_option_bytes,
        "iops_max": given(backend.iops_max, np.inf),
        "mbps_max": given(backend.mbps_max, np.inf),
        "devices": given(backend.devices, 0),
        "device_iops": backend.device_iops,
        "device_mbps": backend.device_mbps,
        "penalty": storage.WRITE_PENALTY[backend.raid],
        "service_s": service, "encrypted": item.smb_encryption,
        "rdma": rdma,
        "c_io": preset.c_io * storage.PROTOCOL_CPU_FACTOR[item.protocol],
        "c_byte": preset.c_byte_rx, "c_pkt": preset.c_pkt,
        "c_wire": preset.c_wire,
        "hz": stack_ghz(doc) * 1e9,
        "cores": cores,
    }


def storage_rdma(item, nics):
    """Whether a storage workload runs over RDMA: its ``transport``, else
    the protocol's default (SMB3 and the S2D storage bus use SMB Direct
    when every NIC is RDMA-capable)."""
    if item.transport is not None:
        return item.transport == "rdma"
    return item.protocol in ("smb3", "s2d") \
        and all(n.rdma != "none" for n in nics)


def device_servers(backend, service_s):
    """IOs the back end serves at once (see ``device_servers`` of
    :func:`models.storage.storage_chain`): 0 for an array, the NVMe
    device's channels (else what Little's law needs to reach its rating,
    iops_max x service time), inf for a cloud volume."""
    if backend.kind == "array":
        return 0.0
    if backend.kind == "cloud_volume":
        return np.inf
    if backend.channels is not None:
        return float(backend.channels)
    return storage.device_servers(backend.iops_max, service_s)


def sessions_per_path(item, nics, rdma, cores):
    """Connections a storage workload opens per path: its own, else the
    protocol's default (SMB Multichannel: 4 per RSS NIC, 2 per RDMA NIC,
    models.transport.SMB_CONNECTIONS; NVMe-oF one IO queue per core,
    models.storage.EVERY_CORE_PROTOCOLS; one iSCSI session or NFS
    connection per path)."""
    if item.sessions_per_path is not None:
        return item.sessions_per_path
    if item.protocol in storage.EVERY_CORE_PROTOCOLS:
        return cores
    if item.protocol not in ("smb3", "s2d"):
        return 1
    kind = "rdma" if rdma else "rss" if all(n.rss_queues > 1 for n in nics) \
        else "plain"
    return int(transport.smb_connections(1, kind))


def storage_columns(pairs):
    rows = [storage_row(doc, item) for doc, item in pairs]
    columns = {key: np.array([r[key] for r in rows]) for key in rows[0]}
    _encapsulation_column(columns)
    return columns


# -- migrations ---------------------------------------------------------------

@dataclass(frozen=True)
class MigrationRows:
    """Every migration, as columns of the pre-copy model's inputs.

    Attributes
    ----------
    owners : list of (int, Migration)
    columns : dict of numpy.ndarray
        Memory [B], dirty rates [B/s], hot set [B], limits [s], codes;
        see :func:`migration_row`.
    concurrency : numpy.ndarray
        Migrations sharing the carrier's rate.
    """

    owners: list
    columns: dict
    concurrency: np.ndarray


def migration_row(item, carrier=None, ghz=None, c_byte_tx=0.0):
    """The pre-copy model's inputs of one migration, in SI units;
    ``carrier`` is the transfer it rides (default: its own); ``ghz`` the
    host's reference-generation clock [GHz] (:func:`stack_ghz`) and
    ``c_byte_tx`` its preset's send copy [1/B], which time QEMU's RAM path
    per page (none when ``ghz`` is None)."""
    rule = migration.STOP_RULES[item.stop_rule]
    dirty = item.dirty
    hot = dirty.kind == "hot_cold"
    budget = rule.downtime_limit if item.downtime_budget_ms is None \
        else item.downtime_budget_ms / 1e3
    throttle = item.throttling or rule.throttle
    qemu = migration.qemu_settings(
        item.qemu_version, item.management, throttle=throttle) \
        if rule.sync == "qemu" else None
    if qemu and item.max_bandwidth_mib_s is not None:
        # an explicit max-bandwidth wins (as in qemu_settings), set here
        # so that a column sweep's array of them passes
        qemu["max_bandwidth"] = item.max_bandwidth_mib_s * MIB
    return {
        "memory": item.memory_gib * GIB,
        "cold_rate": (dirty.cold_rate_mib_s if hot else dirty.rate_mib_s)
        * MIB,
        "hot_set": dirty.hot_set_gib * GIB if hot else 0.0,
        "hot_rate": dirty.rate_mib_s * MIB if hot else 0.0,
        "first_cap": given(item.first_round_rate_cap_mib_s, math.inf) * MIB,
        # zero pages cross as data where QEMU does not look for them
        "zero_fraction": 0.0 if rule.sync == "qemu" and ghz is not None
        and qemu_ram.zero_page_detection(
            item.zero_page_detection, item.qemu_version,
            item.multifd) == "none" else item.zero_page_pct / 100,
        "downtime_limit": budget,
        "min_pages": rule.min_pages,
        "fraction_left": item.fraction_left_pct / 100
        if item.stop_rule == "fraction_left" else 0.0,
        "max_rounds": rule.max_rounds,
        "max_factor": rule.max_factor,
        "max_switchover": given(item.max_switchover_s, rule.max_switchover),
        "time_budget": given(item.time_budget_s, math.inf),
        "throttle": migration.THROTTLES.index(throttle),
        "fixed_downtime": rule.fixed_downtime,
        "sync": migration.SYNC_RULES.index(rule.sync),
        # QEMU's rate limit counts the bytes it writes: compressed ones
        "max_bandwidth": qemu["max_bandwidth"] * _wire_ratio(
            carrier or migration_carrier(item)) if qemu else math.inf,
        "sync_timer": qemu["sync_timer_s"] if qemu else math.inf,
        "test_sent_pass": rule.test_sent_pass,
        "final_live_pass": rule.final_live_pass,
        "switchover": migration.SWITCHOVER_MODES.index(item.switchover),
        **rdma_registration(item),
        **qemu_page_path(item, ghz if rule.sync == "qemu" else None,
                         c_byte_tx),
        # QEMU's switch-over threshold counts written (compressed) bytes
        "wire_share": 1.0 / _wire_ratio(carrier or migration_carrier(item))
        if qemu else 1.0,
    }


def qemu_page_path(item, ghz, c_byte_tx=0.0):
    """QEMU's RAM path per page (:mod:`models.qemu_ram`): ``page_s`` [s]
    the migration thread's time per page, ``zero_page_s`` [s] a zero
    page's on its slowest thread and ``pending_in_pages`` QEMU's
    switch-over test on page bytes. Without multifd the migration thread
    also writes each data page to its socket (``c_byte_tx`` [1/B], the
    host preset's). All off for other hypervisors (``ghz`` None)."""
    if ghz is None:
        return {"page_s": 0.0, "zero_page_s": 0.0,
                "pending_in_pages": False}
    page_s, zero_s = _qemu_page_times(
        ghz, qemu_ram.zero_page_detection(
            item.zero_page_detection, item.qemu_version, item.multifd),
        migration_streams(item) if item.multifd else 1,
        0.0 if item.multifd else c_byte_tx * migration.PAGE_BYTES)
    return {"page_s": page_s, "zero_page_s": zero_s,
            "pending_in_pages": True}


@functools.lru_cache(maxsize=1024)
def _qemu_page_times(ghz, detection, channels, copy_cycles):
    """:func:`models.qemu_ram.page_times` as floats, kept: an evacuation's
    VMs ask for the same few settings."""
    page_s, zero_s = qemu_ram.page_times(ghz, detection, channels,
                                         copy_cycles=copy_cycles)
    return float(page_s), float(zero_s)


def rdma_registration(item):
    """Registration cost of QEMU's RDMA transport (zero for others):
    ``setup_s`` [s] to pin all guest memory before round 0
    (``rdma-pin-all``), or ``register_s_per_byte`` [s/B] added to round 0
    for registering each 1 MiB chunk the first time it is sent."""
    if item.transport != "rdma":
        return {"setup_s": 0.0, "register_s_per_byte": 0.0}
    setup_s, per_byte = migration_costs.rdma_registration(
        item.memory_gib * GIB, item.rdma_pin_all)
    return {"setup_s": setup_s, "register_s_per_byte": per_byte}


def _wire_ratio(transfer):
    return transfer.compression_ratio \
        if transfer.transport == "compression" else 1.0


def migration_rows(documents):
    owners = [(d, item) for d, doc in enumerate(documents)
              for item in doc.workloads.migrations]
    if not owners:
        return MigrationRows([], {}, np.zeros(0))
    rows = [migration_row(item, next(
        (resolve_compression(t, None)
         for t in documents[d].workloads.transfers
         if t.name == item.transfer), None), stack_ghz(documents[d]),
        stack_costs(documents[d]).c_byte_tx)
        for d, item in owners]
    return MigrationRows(
        owners, {k: np.array([r[k] for r in rows]) for k in rows[0]},
        np.array([item.concurrency for _, item in owners]))


# -- evacuations ---------------------------------------------------------------

#: Largest concurrency an 'auto' evacuation tries on a platform without a
#: limit of its own.
UNLIMITED_SWEEP = 16


def evacuation_transfers(doc):
    """Each evacuation of ``doc`` with its transfer and the platform's
    concurrency limit on that transfer's link (inf: none)."""
    transfers = {t.name: t for t in doc.workloads.transfers}
    for item in doc.workloads.evacuations:
        transfer = transfers[item.transfer]
        link = max(n.speed_gbps for n in transfer_path(doc, transfer).nics)
        yield item, transfer, float(evacuation.concurrency_limit(
            item.platform, link, host_limit=item.platform_limit,
            cluster_limit=item.cluster_limit,
            disks_copied=item.disks == "copied"))


def sessions_to_rate(item, limit):
    """Concurrencies an evacuation is evaluated at: 1 to the most it may
    run (its own setting, or the platform limit for 'auto'), at most one
    per VM."""
    top = UNLIMITED_SWEEP if math.isinf(limit) else int(limit)
    if item.concurrency != "auto":
        top = max(top, item.concurrency)
    return min(top, len(item.vms))


@dataclass(frozen=True)
class EvacuationRows:
    """Every evacuation, its VMs as pre-copy model columns.

    Attributes
    ----------
    owners : list of (int, Evacuation)
    columns : list of dict of numpy.ndarray
        Per evacuation, :func:`migration_row` columns over its VMs, with
        ``disk`` [B] and ``disk_write`` [B/s] of the disks each copies
        (zero on shared storage) and ``disk_cap``, the storage's rate for
        one copy [B/s] (inf: none given).
    limits : list of float
        The platform's concurrency limit on each evacuation's link.
    per_migration_cap : list of float
        Ceiling of one migration's rate (setting, else platform). [B/s]
    aggregate_cap : list of float
        Ceiling of all migrations together (inf: none). [B/s]
    """

    owners: list
    columns: list
    limits: list
    per_migration_cap: list
    aggregate_cap: list


def evacuation_vm_migration(item, vm):
    """The migration one evacuated VM is: the fields the pre-copy model
    reads, as a :class:`Migration` of the evacuation's settings."""
    preset = evacuation.PLATFORMS[item.platform]
    # the platform's per-migration bandwidth is the management layer's
    # max-bandwidth setting (evacuation_rows' caps), not QEMU's default
    return Migration(name=vm.name, memory_gib=vm.memory_gib,
                     zero_page_pct=vm.zero_page_pct, dirty=vm.dirty,
                     transfer=item.transfer, management="unlimited",
                     stop_rule=item.stop_rule or preset.stop_rule,
                     downtime_budget_ms=vm.downtime_budget_ms
                     if vm.downtime_budget_ms is not None
                     else item.downtime_budget_ms,
                     throttling=item.throttling,
                     time_budget_s=item.time_budget_s)


def evacuation_rows(documents):
    owners, columns, limits, caps, totals = [], [], [], [], []
    for d, doc in enumerate(documents):
        for item, _, limit in evacuation_transfers(doc):
            rows = [migration_row(evacuation_vm_migration(item, vm),
                                  ghz=stack_ghz(doc),
                                  c_byte_tx=stack_costs(doc).c_byte_tx)
                    for vm in item.vms]
            copied = item.disks == "copied"
            owners.append((d, item))
            columns.append({
                **{k: np.array([r[k] for r in rows]) for k in rows[0]},
                # the disk copy ahead of the memory (solvers.schedule)
                "disk": np.array([vm.disk_gib * GIB if copied else 0.0
                                  for vm in item.vms]),
                "disk_write": np.array([vm.disk_write_mib_s * MIB
                                        if copied else 0.0
                                        for vm in item.vms]),
                "disk_cap": np.full(len(item.vms), math.inf
                                    if item.disk_copy_mib_s is None
                                    else item.disk_copy_mib_s * MIB)})
            limits.append(limit)
            caps.append(item.bandwidth_per_migration_mib_s * MIB
                        if item.bandwidth_per_migration_mib_s is not None
                        else evacuation.PLATFORMS[
                            item.platform].bandwidth_per_migration)
            totals.append(item.total_bandwidth_mib_s * MIB
                          if item.total_bandwidth_mib_s is not None
                          else _smb_reserve_cap(doc, item))
    return EvacuationRows(owners, columns, limits, caps, totals)


def _smb_reserve_cap(doc, item):
    """What live migration over SMB may take together where the platform
    reserves part of the SMB interfaces' line rate for the cluster [B/s]
    (inf: no reservation, or not over SMB)."""
    share = evacuation.PLATFORMS[item.platform].smb_share
    transfer = next(t for t in doc.workloads.transfers
                    if t.name == item.transfer)
    path = transfer_path(doc, transfer)
    if share >= 1 or path.transport not in ("smb", "smb_direct"):
        return math.inf
    return gbps_to_bytes_per_s(share * sum(n.speed_gbps for n in path.nics))


# -- teams --------------------------------------------------------------------

def _mac(text):
    return int(text.replace("-", ":").replace(":", ""), 16) if text else 0


def _ip(text):
    if not text:
        return 0
    value = int(ipaddress.ip_address(text))
    if value >= 1 << 32:     # IPv6: XOR of the four words (ipv6_addr_hash)
        value = (value ^ (value >> 32) ^ (value >> 64) ^ (value >> 96)) \
            & 0xFFFFFFFF
    return value


def _words(text):
    value = int(ipaddress.ip_address(text)) if text else 0
    return [(value >> shift) & 0xFFFFFFFF for shift in (96, 64, 32, 0)]


def team_flows(doc):
    """Each team with the flows that ride it, in team order; teams
    without flows are left out."""
    first = doc.teams[0].name if doc.teams else None
    return [(team, mine) for team in doc.teams
            if (mine := [f for f in doc.workloads.flows
                         if (f.team or first) == team.name])]


class FlowColumns:
    """Column view of a team's flows over the simulated time axis.

    Parameters
    ----------
    doc : Scenario
    team : Team
    flows : list of Flow
    uplinks : list of str
        The team's uplinks, active members first.
    steady_s : float
        Horizon of constant demand (flows without time profiles) [s].
    """

    def __init__(self, doc, team, flows, uplinks, steady_s):
        self.count = len(flows)
        step = doc.workloads.time_step_s
        profiles = {p.name: p for p in doc.workloads.profiles}
        horizon = max((profiles[f.profile].t_s[-1] for f in flows
                       if f.profile), default=0.0)
        if horizon > 0:
            self.t = np.arange(0.0, horizon + step / 2, step)
        else:
            self.t = np.arange(0.0, steady_s, step)
        self.step = step
        scale = np.ones((self.t.size, self.count))
        for i, flow in enumerate(flows):
            if flow.profile:
                p = profiles[flow.profile]
                scale[:, i] = np.interp(self.t, p.t_s, p.scale)
        self.tx = scale * np.array([f.tx_gbps for f in flows])
        self.rx = scale * np.array([f.rx_gbps for f in flows])
        self.smac = np.array([_mac(f.mac) for f in flows], dtype=np.uint64)
        self.dmac = np.array([_mac(f.dst_mac) for f in flows],
                             dtype=np.uint64)
        self.sip = np.array([_ip(f.src_ip) for f in flows], dtype=np.uint32)
        self.dip = np.array([_ip(f.dst_ip) for f in flows], dtype=np.uint32)
        # the four 32-bit words of each address: OVS hashes IPv6 whole,
        # vSphere IP hash reads the last word (its low byte: the last octet)
        self.sip_words = np.array([_words(f.src_ip) for f in flows],
                                  dtype=np.uint32).reshape(-1, 4)
        self.dip_words = np.array([_words(f.dst_ip) for f in flows],
                                  dtype=np.uint32).reshape(-1, 4)
        self.sport = np.array([f.src_port or 0 for f in flows])
        self.dport = np.array([f.dst_port or 0 for f in flows])
        self.has_ports = np.array([f.src_port is not None
                                   and f.dst_port is not None
                                   for f in flows])
        self.vlan = np.array([f.vlan or 0 for f in flows])
        # the whole tag control field of tagged frames (PCP << 13 | VID)
        self.vlan_tci = np.array([0 if f.vlan is None
                                  else f.vlan_pcp << 13 | f.vlan
                                  for f in flows])
        self.proto = np.array([6 if f.protocol == "tcp" else 17
                               for f in flows])
        self.ethertype = np.array(
            [teaming.ETHERTYPE_IPV6 if f.src_ip and ":" in f.src_ip
             else teaming.ETHERTYPE_IPV4 for f in flows])
        self.traffic_class = [f.traffic_class for f in flows]
        self.ids = [f.id for f in flows]
        # vNIC ports: the flows of one VM share one port
        # (a position per name, not list.index per flow: linear in flows)
        position = {}
        for f in flows:
            position.setdefault(f.vm or f.id, len(position))
        owners = list(position)
        self.owners = owners
        self.unit = np.array([position[f.vm or f.id] for f in flows])
        self.units = len(owners)
        port_ids = {}
        for f in flows:
            if f.port_id is not None:
                port_ids.setdefault(f.vm or f.id, f.port_id)
        self.connect_order = len(port_ids) < len(owners)
        self.port_id = np.arange(len(owners)) if self.connect_order \
            else np.array([port_ids[o] for o in owners])
        self.allowed = np.ones((self.count, len(uplinks)), dtype=bool)
        for i, f in enumerate(flows):
            if f.pin:
                self.allowed[i] = [u in f.pin for u in uplinks]
        groups = {}
        for f in flows:
            if f.anti_affinity:
                groups.setdefault(f.anti_affinity, len(groups))
        self.group = np.array([groups[f.anti_affinity]
                               if f.anti_affinity else -1 for f in flows])
        self.constrained = bool(groups) or not self.allowed.all()

    @functools.cached_property
    def unit_rates(self):
        """(T, units) transmit and receive rate of each vNIC port, summed
        once: LBT (per failure set) and the port optimum both use it."""
        return (teaming.member_loads(self.unit, self.tx, self.units),
                teaming.member_loads(self.unit, self.rx, self.units))


# -- all of it ----------------------------------------------------------------

class Inputs:
    """The model inputs of a set of resolved documents, each family built
    once, on first use.

    Parameters
    ----------
    documents : list of (str, Scenario)
        Resolved variants (or sweep points), base first.
    cache : solvers.analysis_cache.AnalysisCache, optional
    """

    #: Where steps of the analyses are kept between evaluations (an
    #: editing session's :class:`solvers.analysis_cache.AnalysisCache`),
    #: or None.
    cache = None

    def __init__(self, documents, cache=None):
        self.names = [name for name, _ in documents]
        self.documents = [doc for _, doc in documents]
        self.cache = cache

    def reuse(self, name, arrays, compute):
        """``compute()``, a function of the numpy ``arrays`` alone: kept
        by :attr:`cache` for equal arrays, computed when there is none."""
        if self.cache is None:
            return compute()
        return self.cache.reuse(name, arrays, compute)

    @functools.cached_property
    def wire(self):
        """:class:`WireColumns` of every document."""
        return wire_columns(self.documents)

    @functools.cached_property
    def transfers(self):
        """:class:`TransferRows` of every document."""
        return transfer_rows(self.documents)

    @functools.cached_property
    def storage(self):
        """:class:`StorageRows` of every document."""
        return storage_rows(self.documents)

    @functools.cached_property
    def migrations(self):
        """:class:`MigrationRows` of every document."""
        return migration_rows(self.documents)

    @functools.cached_property
    def evacuations(self):
        """:class:`EvacuationRows` of every document."""
        return evacuation_rows(self.documents)


#: QEMU's default number of multifd channels (migration parameter
#: ``multifd-channels``, default 2: QEMU qapi/migration.json).
QEMU_MULTIFD_CHANNELS = 2


def migration_streams(item):
    """Streams of a migration that builds its own carrier: its own; by
    default QEMU multifd's channel count, else None (the carrier's
    platform default, :func:`application_streams`)."""
    if item.streams is not None:
        return item.streams
    return QEMU_MULTIFD_CHANNELS if item.multifd else None


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
