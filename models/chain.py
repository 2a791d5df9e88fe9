"""The transfer chain: wire framing, host CPU and transport of bulk
transfers, for columns of transfers at once.

One call puts every row (a transfer of a scenario, at its MTU) through
the framing of :mod:`models.wire`, the per-byte and per-packet costs of
:mod:`models.host` and the transport ceilings of :mod:`models.transport`
(with QEMU multifd channels, :mod:`models.qemu_ram`), then derives what the
reverse direction carries (the receiver's ACKs) and how busy each link
is. Rows are plain numpy columns whose categorical inputs are the models'
codes (``transport.TRANSPORTS``, ``transport.SPREADS``,
``wire.PROTOCOLS``); all arguments broadcast.
"""

import numpy as np

from models import host, pcie, qemu_ram, transport, wire
from models.units import bytes_per_s_to_gbps, gbps_to_bytes_per_s

#: Rows per chunk of :func:`transfer_chain`: small enough for every
#: intermediate array to stay in the CPU cache, large enough to amortise
#: numpy's call cost [rows]. A performance setting: the numbers do not
#: depend on it.
CHUNK_ROWS = 16_384

#: Transport codes that bring their own framing (RDMA's, UDP's) instead
#: of TCP's.
OWN_FRAMING = (transport.SMB_DIRECT, transport.RDMA, transport.UDP)


def transfer_chain(columns, *, mtu_limits=wire.MTU_LIMITS,
                   chunk_rows=CHUNK_ROWS):
    """Wire, CPU and transport of every row of ``columns`` at once.

    Parameters
    ----------
    columns : dict of numpy.ndarray
        The chain's inputs per row (see
        :func:`solvers.inputs.transfer_columns`): link and queue layout,
        IP MTU [B], framing fields, the host preset's cycle costs
        [cycles], clock [GHz], stream caps [Gbit/s], compression.
    mtu_limits : tuple of two numbers, default (576, 9216)
        Accepted MTU range. [B]
    chunk_rows : int, default :data:`CHUNK_ROWS`
        Rows per vectorised step (memory only, not the result). [rows]

    Returns
    -------
    dict of numpy.ndarray
        :func:`models.transport.bulk_transfer`'s results per row
        (``throughput`` [Gbit/s], ``cores``, ``limit`` ...) with
        ``ack_bytes`` [B] (one ACK frame on the wire), ``efficiency``
        (payload per wire byte) and ``payload`` [B] per packet.

    Notes
    -----
    Per row, with payload :math:`p` and wire bytes :math:`w` of one
    full-size packet (:func:`datagram_frames` for datagrams of a given
    frame size),

    .. math:: \\eta = p / w

    and the cycles per payload byte of :func:`models.host.cycles_per_byte`
    feed :func:`models.transport.bulk_transfer`. The per-stream cap is the
    least of the transfer's own, a QEMU multifd channel thread's copy
    (:func:`models.qemu_ram.multifd_channel_cap`), a sender thread pool
    (:func:`models.transport.sender_thread_cap`) and a packet generator's
    rate (:func:`models.transport.generator_packet_rate`).

    References
    ----------
    protocol-overheads.md sections 6 and 8.2.
    """
    rows = len(columns["mtu"])
    results = {}
    for start in range(0, rows, chunk_rows):
        part = _chain_chunk({k: v[start:start + chunk_rows]
                             for k, v in columns.items()}, mtu_limits)
        for key, values in part.items():
            if key not in results:
                results[key] = np.empty(rows, dtype=values.dtype)
            results[key][start:start + chunk_rows] = values
    return results


def _chain_chunk(inputs, mtu_limits):
    # RDMA framing where the transport is RDMA, UDP's where UDP
    own_framing = np.isin(inputs["transport"], OWN_FRAMING)
    protocol = np.where(own_framing, inputs["protocol"], wire.TCP)
    payload = wire.payload_bytes(inputs["mtu"], inputs["ip_version"],
                                 protocol=protocol,
                                 timestamps=inputs["timestamps"],
                                 mtu_limits=mtu_limits)
    frame = wire.wire_bytes(
        inputs["mtu"], inputs["ip_version"], protocol=protocol,
        vlan_tags=inputs["vlan_tags"], encapsulation_bytes=inputs["encap"],
        mtu_limits=mtu_limits)
    payload, frame = datagram_frames(
        payload, frame, inputs.get("frame"), inputs["ip_version"],
        vlan_tags=inputs["vlan_tags"], encapsulation_bytes=inputs["encap"])
    efficiency = payload / frame
    soft = inputs["soft_agg"] & ~inputs["lro"]  # the NIC's comes first
    # QEMU multifd's channel threads copy on cores of their own; the
    # queue's core keeps the per-frame and per-traversal work
    thread_c_byte = inputs.get("thread_c_byte", 0.0)
    cycles = host.cycles_per_byte(
        payload, host.stack_traversal_bytes(
            payload, inputs["lro"], software=soft,
            aggregate_bytes=inputs.get("aggregate", host.AGGREGATE_BYTES)),
        inputs["c_byte"] - thread_c_byte, inputs["c_pkt"], inputs["c_wire"],
        checksum_offload=inputs["checksum"], c_checksum=inputs["c_checksum"],
        c_encap=inputs["c_encap"], c_team=inputs["c_team"],
        rss_factor=inputs["rss_factor"], soft_aggregated=soft,
        c_soft_agg=inputs["c_soft_agg"])
    stream_cap = inputs["stream_cap"]
    channel = np.asarray(thread_c_byte) > 0
    if channel.any():
        stream_cap = np.minimum(stream_cap, np.where(
            channel, qemu_ram.multifd_channel_cap(
                inputs["ghz"], np.where(channel, thread_c_byte, 1.0)),
            np.inf))
    threads = inputs.get("sender_threads")
    if threads is not None and np.isfinite(threads).any():
        stream_cap = np.minimum(stream_cap, transport.sender_thread_cap(
            threads, inputs["streams"],
            host.core_ceiling(inputs["ghz"], cycles)))
    own_thread = inputs.get("own_thread", False)
    stream_pps = inputs.get("stream_pps")
    if stream_pps is not None and np.isfinite(stream_pps).any():
        # a packet rate per stream is a bit rate at this payload; a
        # generator thread on this host spends its core on each packet
        # and on copying each frame's bytes
        generator_gbps = bytes_per_s_to_gbps(transport.generator_packet_rate(
            stream_pps, frame - wire.L1_OVERHEAD_BYTES, inputs["ghz"])
            * payload)
        stream_cap = np.minimum(stream_cap, generator_gbps)
        cycles = np.where(own_thread, 8.0 * inputs["ghz"]
                           / np.where(own_thread, generator_gbps, 1.0),
                           cycles)
    result = transport.bulk_transfer(
        inputs["transport"], inputs["member_speed"], inputs["members"],
        inputs["spread"], inputs["flows"], inputs["rss_queues"],
        inputs["cores"], inputs["ghz"], cycles, efficiency,
        stream_cap=stream_cap, streams=inputs["streams"],
        compression_ratio=inputs["ratio"],
        compressor_speed=inputs["compressor"],
        compression_threads=inputs["threads"],
        compression_offload=inputs["offload"],
        flows_per_queue=inputs["flows_per_queue"], c_io=inputs["c_io"],
        own_thread=own_thread,
        pinned_sessions=inputs.get("pinned_sessions", 0),
        slot_goodput=_slot_goodput(inputs, payload, frame))
    if channel.any():  # the channel threads' copies cost cores too
        result["cores"] = result["cores"] + host.cores_busy(
            result["wire_payload"], thread_c_byte, inputs["ghz"])
    result["ack_bytes"] = wire.ack_wire_bytes(
        inputs["ip_version"], timestamps=inputs["timestamps"],
        vlan_tags=inputs["vlan_tags"])
    result["efficiency"] = efficiency
    result["payload"] = payload
    return result


def _slot_goodput(inputs, payload, frame):
    """Payload the path's PCIe slots let through in the data direction
    [Gbit/s]: each distinct slot once (inf where a NIC's slot is not
    given, and for RDMA, whose connection the slot caps as its stream)."""
    slots = inputs.get("slots")
    if slots is None or not np.any(slots):
        return np.inf
    known = slots > 0
    rate = pcie.nic_slot_goodput(
        np.where(known, inputs["slot_gen"], 1),
        np.where(known, inputs["slot_lanes"], 1), frame, payload,
        inputs["slot_transmit"],
        max_payload_bytes=np.where(known, inputs["slot_mps"], 256))
    return np.where(known, slots * rate, np.inf)


def datagram_frames(payload, frame, frame_size, ip_version=4, *,
                    vlan_tags=0, encapsulation_bytes=0):
    """Payload and wire bytes of datagrams that fill frames of a given
    size instead of the MTU's.

    Parameters
    ----------
    payload, frame : numpy.ndarray
        Payload and wire bytes of one full-size (MTU) packet. [B]
    frame_size : numpy.ndarray or None
        Frame size asked, MAC header to FCS; NaN (or None for all rows):
        the MTU's full frames. [B]
    ip_version : numeric, default 4
        4 or 6.
    vlan_tags : numeric, default 0
        Number of 802.1Q tags.
    encapsulation_bytes : numeric, default 0
        Overlay bytes per packet. [B]

    Returns
    -------
    payload, frame : numpy.ndarray
        Per row: the datagram's payload inside the overlay and its bytes
        on the wire, preamble and inter-frame gap included. [B]

    Notes
    -----
    .. math:: p = p_{UDP}(s) - e,\\quad w = \\max(s, 64) + 20

    with :math:`p_{UDP}` of :func:`models.wire.udp_payload_bytes`, and
    frames padded to the 64 B minimum (IEEE 802.3 clause 3.2.8).

    References
    ----------
    IEEE 802.3 clause 3; RFC 2544 section 9 (frame sizes).
    """
    if frame_size is None or np.isnan(frame_size).all():
        return payload, frame
    asked = ~np.isnan(frame_size)
    size = np.where(asked, frame_size, wire.MIN_FRAME_BYTES)
    inner = wire.udp_payload_bytes(size, ip_version, vlan_tags=vlan_tags) \
        - encapsulation_bytes
    return (np.where(asked, inner, payload),
            np.where(asked, np.maximum(size, wire.MIN_FRAME_BYTES)
                     + wire.L1_OVERHEAD_BYTES, frame))


def ack_rate(wire_payload, payload, ack_bytes, *,
             segments_per_ack=wire.SEGMENTS_PER_ACK):
    """Bit rate of the ACKs a TCP receiver sends back.

    Parameters
    ----------
    wire_payload : numeric
        Payload rate of the data direction. [Gbit/s]
    payload : numeric
        Payload per data segment. [B]
    ack_bytes : numeric
        One ACK frame on the wire (:func:`models.wire.ack_wire_bytes`). [B]
    segments_per_ack : numeric, default 2
        Data segments acknowledged per ACK (delayed ACK, RFC 1122 section
        4.2.3.2).

    Returns
    -------
    numeric
        ACK rate on the reverse direction. [Gbit/s]

    Notes
    -----
    .. math:: R_{ack} = \\frac{G}{p} \\cdot \\frac{a}{k}

    RDMA and UDP send no ACKs of this kind; callers leave them out.

    References
    ----------
    RFC 1122 section 4.2.3.2; protocol-overheads.md section 6.
    """
    packets = gbps_to_bytes_per_s(wire_payload) / payload
    return bytes_per_s_to_gbps(packets / segments_per_ack * ack_bytes)


def link_utilisation(rate, link_speed, share=1.0):
    """Expected utilisation of one link carrying a share of a rate.

    Parameters
    ----------
    rate : numeric
        Rate of the whole transfer in one direction, framing included.
        [Gbit/s]
    link_speed : numeric
        The link's nominal rate. [Gbit/s]
    share : numeric, default 1.0
        Fraction of the transfer this link carries (1 on the one member a
        transfer pinned to one link uses, 1/n when spread over n).

    Returns
    -------
    numeric
        Utilisation. [%]

    Notes
    -----
    .. math:: U = 100 \\cdot s \\cdot R / R_{link}
    """
    return 100.0 * share * rate / link_speed


def datagram_frames_per_core(datagram_bytes, ghz, c_wire, c_byte, *,
                             c_datagram=transport.UDP_DATAGRAM_CYCLES):
    """Datagrams one core of a kernel receiver takes per second.

    Parameters
    ----------
    datagram_bytes : numeric
        UDP payload per frame. [B]
    ghz : numeric
        Core clock the cycle costs refer to. [GHz]
    c_wire : numeric
        The host preset's driver cost per frame. [cycles]
    c_byte : numeric
        The host preset's receive copy per byte. [cycles/B]
    c_datagram : numeric, default 1830
        One pass of the UDP stack and one system call per datagram
        (:data:`models.transport.UDP_DATAGRAM_CYCLES`, fitted on cases
        ESNET-UDP-40G and UDP-IPERF3-10G-1500). [cycles]

    Returns
    -------
    numeric
        Frames per second one core handles. [1/s]

    Notes
    -----
    No GRO for datagrams: every frame is one stack pass.

    .. math:: r = \\frac{f}{c_{dgram} + c_{wire} + c_{byte}\\, p}
    """
    cycles = c_datagram + c_wire + c_byte * datagram_bytes
    return ghz * 1e9 / cycles
