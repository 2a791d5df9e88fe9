"""Transfer inputs: every transfer, migration carrier and evacuation
copy as the transport chain's columns (:class:`TransferRows`).
"""

from dataclasses import dataclass

import numpy as np

from models import compression, host, transport, wire
from models.units import KIB
from solvers.inputs.carriers import migration_carrier, resolve_compression
from solvers.inputs.common import (_encapsulation_column, given, mtu_limits,
                                   network_row, slowest_speed, stack_costs,
                                   stack_ghz, total_cores)
from solvers.inputs.evacuations import evacuation_transfers, sessions_to_rate
from solvers.inputs.paths import (RDMA_TRANSPORTS, application_streams,
                                  stream_cap, transfer_path)


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
    def mtu_limits(self):
        """MTU range covering every row's accepted range [B]."""
        return mtu_limits(self.columns)

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
        "pinned_sessions", "thread_c_byte", "sender_threads", "aggregate",
        "slots", "slot_gen", "slot_lanes", "slot_mps", "slot_transmit")}
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
            "member_speed": slowest_speed(path.nics),
            "members": len(path.nics),
            "spread": transport.SPREADS.index(path.spread),
            "flows": path.flows,
            "rss_queues": min(n.rss_queues for n in path.nics),
            "cores": total_cores(doc),
            "ghz": stack_ghz(doc),
            **network_row(network),
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
            **_slot_columns(item, path),
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


def _slot_columns(item, path):
    """The path's PCIe slots for :func:`models.pcie.nic_slot_goodput`:
    distinct slots (0: a NIC's slot is not given, or RDMA, which
    :func:`rdma_slot_cap` bounds), the slowest one's generation, width and
    MPS, and whether the host sends."""
    nics = path.nics
    known = all(n.pcie_gen is not None for n in nics) \
        and path.transport not in RDMA_TRANSPORTS
    return {"slots": len({n.pcie_slot or n.id for n in nics}) if known
            else 0,
            "slot_gen": min(n.pcie_gen or 1 for n in nics),
            "slot_lanes": min(n.pcie_lanes or 1 for n in nics),
            "slot_mps": min(n.pcie_max_payload_bytes for n in nics),
            "slot_transmit": item.direction == "send"}
