"""Ethernet framing, protocol overheads, goodput and packet rates.

Pure numpy functions: every argument may be a scalar or an array, and arrays
broadcast against each other, one element per scenario.

Conventions (``docs/reference/protocol-overheads.md``):

- sizes in bytes [B]; link rates in Gbit/s = 1e9 bit/s, the nominal Ethernet
  rate (line coding sits below it and is never subtracted);
- ``mtu`` is the IP MTU (the largest IP packet, IP header included); with an
  overlay it is the MTU seen by the inner (tenant) IP stack;
- wire bytes are every byte time a frame occupies on the link: preamble, SFD,
  header, payload, FCS and inter-frame gap.
"""

import numpy as np

from models._checks import (as_codes, pick, require_choice, require_positive,
                            require_range)
from models.units import gbps_to_bytes_per_s

#: Preamble 7 + start-of-frame delimiter 1 + inter-frame gap 12 [B]
#: (IEEE 802.3; protocol-overheads.md section 1).
L1_OVERHEAD_BYTES = 20
#: MAC header (destination 6, source 6, EtherType 2) + FCS 4 [B] (IEEE 802.3).
L2_OVERHEAD_BYTES = 18
#: One IEEE 802.1Q tag [B]; QinQ carries two.
VLAN_TAG_BYTES = 4
#: IPv4 header without options (RFC 791) and IPv6 fixed header (RFC 8200) [B].
IP_HEADER_BYTES = {4: 20, 6: 40}
#: TCP header without options [B] (RFC 9293).
TCP_HEADER_BYTES = 20
#: UDP header [B] (RFC 768).
UDP_HEADER_BYTES = 8
#: Smallest Ethernet frame, FCS included [B] (IEEE 802.3): shorter frames
#: (pure ACKs) are padded up to it.
MIN_FRAME_BYTES = 64
#: iWARP bytes per TCP segment for a tagged RDMA WRITE: DDP/RDMAP header 16
#: + MPA CRC 4 [B] (RFC 5041/5044; Linux ``drivers/infiniband/sw/siw/
#: iwarp.h``), without markers.
IWARP_WRITE_BYTES = 20
#: RoCEv2 per-packet headers after Ethernet: UDP 8 + BTH 12 + ICRC 4 [B]
#: (Linux ``include/rdma/ib_pack.h``); the IP header comes on top.
ROCE_HEADER_BYTES = 8 + 12 + 4
#: Header space Linux reserves below the Ethernet MTU for RoCE: GRH 40 +
#: UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 [B] (``iboe_get_mtu``).
ROCE_RESERVED_BYTES = 96
#: InfiniBand path MTUs [B].
IB_PATH_MTUS = (256, 512, 1024, 2048, 4096)
#: Bytes an InfiniBand packet adds to its payload on a native IB link:
#: Local Route Header 8 + Base Transport Header 12 + Invariant CRC 4 +
#: Variant CRC 2 [B] (IBTA, InfiniBand Architecture Specification vol. 1,
#: chapter 5 "Data packet format"; Linux ``include/rdma/ib_pack.h``
#: ``IB_LRH_BYTES``, ``IB_BTH_BYTES``, ``IB_ICRC_BYTES``). No Ethernet
#: preamble, gap or MAC header: the link's 64b/66b (FDR and later) or
#: 8b/10b (QDR and earlier) encoding is in its data rate, which is what a
#: NIC's ``speed_gbps`` gives (EDR 100, HDR 200, NDR 400; FDR 54.5, QDR
#: 32).
IB_HEADER_BYTES = 8 + 12 + 4 + 2
#: Protocols whose framing the wire model knows, and their codes.
PROTOCOLS = ("tcp", "udp", "iwarp", "roce_v2", "infiniband")
TCP, UDP, IWARP, ROCE, INFINIBAND = range(5)
#: TCP timestamps option as stacks send it, NOP-aligned [B]
#: (RFC 7323; Linux ``TCPOLEN_TSTAMP_ALIGNED``).
TCP_TIMESTAMPS_BYTES = 12
#: Bytes a VXLAN or Geneve tunnel adds inside the underlay MTU, by underlay
#: IP version: outer IP + UDP 8 + VXLAN/Geneve 8 + inner Ethernet 14 [B]
#: (RFC 7348, RFC 8926; Linux ``VXLAN_HEADROOM``/``VXLAN6_HEADROOM``).
TUNNEL_BYTES = {4: 50, 6: 70}
#: Encapsulations the wire model knows.
ENCAPSULATIONS = ("none", "vxlan", "geneve")

#: Default IP MTU limits [B]: 576 is the IPv4 minimum every host must accept
#: (RFC 791), 9216 the largest jumbo MTU common data-centre switches accept.
MTU_LIMITS = (576, 9216)
#: Largest IP MTU any limit may be raised to [B]: the IPv4 total-length
#: field (RFC 791) and the IPv6 payload-length field (RFC 8200) are 16 bits.
MTU_CEILING = 65535
#: The jumbo MTU jumbo-frame gains are predicted at [B]: the 9000 B that
#: vSphere, Hyper-V and Linux NICs call "jumbo" (protocol-overheads.md §6).
JUMBO_MTU = 9000

#: Delayed ACK: the receiver acknowledges about every second full-size
#: segment (RFC 1122 section 4.2.3.2; protocol-overheads.md section 6).
SEGMENTS_PER_ACK = 2
#: IPv6 requires every link to carry packets of at least 1280 B (RFC 8200).
IPV6_MIN_MTU = 1280


def ip_header_bytes(ip_version):
    """IP header size without options.

    Parameters
    ----------
    ip_version : numeric
        4 or 6.

    Returns
    -------
    numeric
        20 for IPv4, 40 for IPv6. [B]
    """
    ip_version = np.asarray(ip_version)
    six = ip_version == 6
    if not np.all(six | (ip_version == 4)):
        require_choice("ip_version", ip_version, IP_HEADER_BYTES)
    return IP_HEADER_BYTES[4] + six * (IP_HEADER_BYTES[6]
                                       - IP_HEADER_BYTES[4])


def frame_overhead_bytes(vlan_tags=0):
    """Per-frame Ethernet bytes outside the IP packet.

    Parameters
    ----------
    vlan_tags : numeric, default 0
        Number of 802.1Q tags: 0, 1 or 2 (QinQ).

    Returns
    -------
    numeric
        38 untagged, 42 with one tag, 46 with QinQ. [B]

    Notes
    -----
    .. math:: o = 20_{L1} + 18_{L2} + 4 n_{tags}
    """
    vlan_tags = require_choice("vlan_tags", vlan_tags, (0, 1, 2))
    return L1_OVERHEAD_BYTES + L2_OVERHEAD_BYTES + VLAN_TAG_BYTES * vlan_tags


def encapsulation_bytes(encapsulation, underlay_ip_version=4, *,
                        geneve_option_bytes=0):
    """Bytes an overlay adds to each inner IP packet inside the underlay MTU.

    Parameters
    ----------
    encapsulation : str or array-like of str
        ``'none'``, ``'vxlan'`` or ``'geneve'``.
    underlay_ip_version : numeric, default 4
        IP version of the outer (underlay) header.
    geneve_option_bytes : numeric, default 0
        Geneve option bytes, a multiple of 4 (RFC 8926). [B]

    Returns
    -------
    numeric
        0 without overlay; 50 (IPv4 underlay) or 70 (IPv6 underlay) for
        VXLAN; the same plus options for Geneve. [B]

    References
    ----------
    RFC 7348; RFC 8926; Linux ``include/net/vxlan.h``; cilium ``pkg/mtu``.
    """
    encapsulation = require_choice("encapsulation", encapsulation,
                                   ENCAPSULATIONS)
    underlay_ip_version = require_choice(
        "underlay_ip_version", underlay_ip_version, TUNNEL_BYTES)
    options = require_range("geneve_option_bytes", geneve_option_bytes,
                            0, 252, "B")
    if np.any(options % 4):
        raise ValueError("geneve_option_bytes must be a multiple of 4 [B], "
                         f"got {geneve_option_bytes!r}")
    tunnel = np.where(underlay_ip_version == 6, TUNNEL_BYTES[6],
                      TUNNEL_BYTES[4])
    return np.select(
        [encapsulation == "vxlan", encapsulation == "geneve"],
        [tunnel, tunnel + options], default=0)


def limits_covering(mtu_min, mtu_max):
    """MTU limits for one call over scenarios that each accept their own
    range.

    Parameters
    ----------
    mtu_min, mtu_max : array-like
        Each scenario's accepted MTU range. [B]

    Returns
    -------
    tuple of int
        The widest of the ranges, widened to take in :data:`JUMBO_MTU`,
        at which jumbo gains are predicted. [B]

    Notes
    -----
    Each scenario's own MTU is checked against its own range where the
    scenario is validated; this range only keeps the shared call from
    refusing a value one of them accepts.
    """
    return (int(np.min(mtu_min)), int(max(np.max(mtu_max), JUMBO_MTU)))


def _check_mtu(mtu, ip_version, mtu_limits):
    mtu = require_range("mtu", mtu, *mtu_limits, "B")
    ipv6_too_small = (np.asarray(ip_version) == 6) & (mtu < IPV6_MIN_MTU)
    if np.any(ipv6_too_small):
        bad = np.broadcast_to(mtu, ipv6_too_small.shape)[ipv6_too_small]
        raise ValueError(
            f"mtu must be at least {IPV6_MIN_MTU} B with IPv6 (RFC 8200), "
            f"got {bad.flat[0]!r}")
    return mtu


def roce_path_mtu(mtu):
    """Active InfiniBand path MTU of RoCE on an Ethernet MTU.

    Parameters
    ----------
    mtu : numeric
        Ethernet (IP) MTU. [B]

    Returns
    -------
    numeric
        The largest of 256, 512, 1024, 2048 and 4096 that does not exceed
        ``mtu - 96``. [B]

    Notes
    -----
    Linux reserves the worst-case header space (96 B) whatever the IP
    version, so MTU 1500 gives 1024 and 9000 gives 4096; the 4096 step
    needs an MTU of at least 4192.

    References
    ----------
    Linux ``include/rdma/ib_addr.h``, ``iboe_get_mtu``.
    """
    usable = np.asarray(mtu, dtype=float) - ROCE_RESERVED_BYTES
    if np.any(usable < IB_PATH_MTUS[0]):
        raise ValueError("mtu must leave at least 256 B for RoCE after 96 B "
                         f"of headers, got {mtu!r}")
    # the path MTUs are the powers of two from 256 to 4096: frexp's exponent
    # gives the largest power of two not above ``usable`` exactly
    power_of_two = np.ldexp(1.0, np.frexp(usable)[1] - 1)
    return np.minimum(power_of_two, IB_PATH_MTUS[-1])


def ib_path_mtu(mtu):
    """InfiniBand path MTU of a native IB link configured for ``mtu``.

    Parameters
    ----------
    mtu : numeric
        The MTU asked for (the scenario's network MTU). [B]

    Returns
    -------
    numeric
        The largest of 256, 512, 1024, 2048 and 4096 not above ``mtu``. [B]

    Notes
    -----
    IB carries at most 4096 B per packet whatever the IP MTU above it
    (IPoIB's 2044/65520 B are datagrams of its own); MTU 1500 gives 1024
    and 9000 gives 4096, as on RoCE.

    References
    ----------
    IBTA, InfiniBand Architecture Specification vol. 1, "MTU".
    """
    usable = np.asarray(mtu, dtype=float)
    if np.any(usable < IB_PATH_MTUS[0]):
        raise ValueError(f"mtu must be at least 256 B for InfiniBand, got "
                         f"{mtu!r}")
    return np.minimum(np.ldexp(1.0, np.frexp(usable)[1] - 1),
                      IB_PATH_MTUS[-1])


def payload_bytes(mtu, ip_version=4, *, protocol="tcp", timestamps=True,
                  mtu_limits=MTU_LIMITS):
    """Application bytes carried by one full-size packet.

    Parameters
    ----------
    mtu : numeric
        IP MTU. [B]
    ip_version : numeric, default 4
        4 or 6.
    protocol : str or array-like of str, default 'tcp'
        ``'tcp'``, ``'udp'``, ``'iwarp'`` (tagged RDMA WRITE over TCP),
        ``'roce_v2'`` or ``'infiniband'`` (native IB, :func:`ib_path_mtu`).
    timestamps : bool or array-like of bool, default True
        TCP timestamps negotiated (Linux default ``net.ipv4.tcp_timestamps=1``);
        applies to TCP and iWARP.
    mtu_limits : tuple of two numbers, default (576, 9216)
        Accepted MTU range. [B]

    Returns
    -------
    numeric
        Payload per full-size packet. [B]

    Notes
    -----
    .. math::

        p_{tcp} = \\mathrm{MTU} - h_{IP} - 20 - 12 \\cdot ts, \\quad
        p_{udp} = \\mathrm{MTU} - h_{IP} - 8, \\quad
        p_{iwarp} = p_{tcp} - 20, \\quad
        p_{roce} = \\mathrm{pmtu}(\\mathrm{MTU})

    At MTU 1500 over IPv4 TCP carries 1460 B without timestamps and 1448 B
    with them.

    References
    ----------
    RFC 9293; RFC 7323; RFC 768; RFC 5041/5044; protocol-overheads.md
    sections 2, 5 and 6 (blog.a2o.si 2015-06-26; kylehailey.com).
    """
    mtu = _check_mtu(mtu, ip_version, mtu_limits)
    code = as_codes("protocol", protocol, PROTOCOLS)
    options = np.asarray(timestamps, dtype=bool) * TCP_TIMESTAMPS_BYTES
    ip_header = ip_header_bytes(ip_version)
    tcp = mtu - ip_header - TCP_HEADER_BYTES - options
    if not code.any():
        return tcp  # all TCP: the common case, without the selects
    # byte counts are whole numbers, so adding each protocol's difference
    # from TCP where it applies is exact (and several times faster than
    # np.select over mixed protocols)
    udp = code == UDP
    payload = (tcp + udp * (TCP_HEADER_BYTES + options - UDP_HEADER_BYTES)
               - (code == IWARP) * IWARP_WRITE_BYTES)
    roce = code == ROCE
    if roce.any():
        payload = pick(roce, roce_path_mtu(_roce_only(mtu, roce)), payload)
    infiniband = code == INFINIBAND
    if infiniband.any():
        payload = pick(infiniband, ib_path_mtu(mtu), payload)
    return payload


def wire_bytes(mtu, ip_version=4, *, protocol="tcp", vlan_tags=0,
               encapsulation_bytes=0, mtu_limits=MTU_LIMITS):
    """Bytes on the wire for one full-size frame.

    Parameters
    ----------
    mtu : numeric
        IP MTU of the (inner) IP packet. [B]
    ip_version : numeric, default 4
        4 or 6 (sets the RoCEv2 frame size; other frames fill the MTU).
    protocol : str or array-like of str, default 'tcp'
        See :func:`payload_bytes`.
    vlan_tags : numeric, default 0
        Number of 802.1Q tags on the outer frame.
    encapsulation_bytes : numeric, default 0
        Overlay bytes, see :func:`encapsulation_bytes`. [B]
    mtu_limits : tuple of two numbers, default (576, 9216)
        Accepted MTU range. [B]

    Returns
    -------
    numeric
        Wire bytes per frame, preamble and inter-frame gap included. [B]

    Notes
    -----
    .. math:: w = \\mathrm{MTU} + 38 + 4 n_{tags} + e

    A RoCEv2 frame carries one path MTU, not a full Ethernet MTU:

    .. math:: w_{roce} = \\mathrm{pmtu} + h_{IP} + 24 + 38 + 4 n_{tags} + e

    and a native InfiniBand packet one IB path MTU with its own headers
    (:data:`IB_HEADER_BYTES`), no Ethernet framing:

    .. math:: w_{ib} = \\mathrm{pmtu}_{ib} + 26
    """
    mtu = require_range("mtu", mtu, *mtu_limits, "B")
    encap = require_range("encapsulation_bytes", encapsulation_bytes,
                          0, 1024, "B")
    code = as_codes("protocol", protocol, PROTOCOLS)
    ip_packet = mtu
    roce = code == ROCE
    if roce.any():
        roce_packet = (roce_path_mtu(_roce_only(mtu, roce))
                       + ip_header_bytes(ip_version) + ROCE_HEADER_BYTES)
        ip_packet = pick(roce, roce_packet, mtu)
    frame = ip_packet + frame_overhead_bytes(vlan_tags) + encap
    infiniband = code == INFINIBAND
    if infiniband.any():  # a native IB packet: no Ethernet framing
        frame = pick(infiniband, ib_path_mtu(mtu) + IB_HEADER_BYTES, frame)
    return frame


def _roce_only(mtu, roce):
    """The MTU on RoCE rows and at least the default largest MTU elsewhere,
    so RoCE's own lower limit cannot trip on other protocols' rows."""
    return np.maximum(mtu, ~roce * MTU_LIMITS[1])


def ack_wire_bytes(ip_version=4, *, timestamps=True, vlan_tags=0):
    """Wire bytes of a pure TCP ACK.

    Parameters
    ----------
    ip_version : numeric, default 4
        4 or 6.
    timestamps : bool or array-like of bool, default True
        TCP timestamps negotiated.
    vlan_tags : numeric, default 0
        Number of 802.1Q tags.

    Returns
    -------
    numeric
        IP + TCP (+ options) + MAC header and FCS, padded to the 64 B
        minimum frame, + 20 B preamble and gap. [B]

    Notes
    -----
    An IPv4 ACK without options (58 B) is padded to 64 B; one with
    timestamps (70 B) is not (protocol-overheads.md sections 1 and 6).
    """
    options = np.asarray(timestamps, dtype=bool) * TCP_TIMESTAMPS_BYTES
    frame = (ip_header_bytes(ip_version) + TCP_HEADER_BYTES + options
             + L2_OVERHEAD_BYTES + VLAN_TAG_BYTES * np.asarray(vlan_tags))
    return np.maximum(frame, MIN_FRAME_BYTES) + L1_OVERHEAD_BYTES


def efficiency(mtu, ip_version=4, *, protocol="tcp", timestamps=True,
               vlan_tags=0, encapsulation_bytes=0, mtu_limits=MTU_LIMITS):
    """Fraction of the link rate that carries TCP payload.

    Parameters
    ----------
    mtu : numeric
        IP MTU. [B]
    ip_version : numeric, default 4
        4 or 6.
    protocol : str or array-like of str, default 'tcp'
        See :func:`payload_bytes`.
    timestamps : bool or array-like of bool, default True
        TCP timestamps negotiated.
    vlan_tags : numeric, default 0
        Number of 802.1Q tags.
    encapsulation_bytes : numeric, default 0
        Overlay bytes per packet. [B]
    mtu_limits : tuple of two numbers, default (576, 9216)
        Accepted MTU range. [B]

    Returns
    -------
    numeric
        Payload bytes per wire byte for full-size segments. [unitless]

    Notes
    -----
    .. math:: \\eta = p / w

    Framing is always counted (preamble, IFG, MAC header, FCS): dividing the
    payload by the MTU alone understates the cost of small frames.

    References
    ----------
    protocol-overheads.md section 6.
    """
    payload = payload_bytes(mtu, ip_version, protocol=protocol,
                            timestamps=timestamps, mtu_limits=mtu_limits)
    frame = wire_bytes(mtu, ip_version, protocol=protocol,
                       vlan_tags=vlan_tags,
                       encapsulation_bytes=encapsulation_bytes,
                       mtu_limits=mtu_limits)
    return payload / frame


def goodput(link_speed, mtu, ip_version=4, *, protocol="tcp",
            timestamps=True, vlan_tags=0, encapsulation_bytes=0,
            mtu_limits=MTU_LIMITS):
    """Link-bound TCP goodput with full-size segments and no loss.

    Parameters
    ----------
    link_speed : numeric
        Nominal link rate. [Gbit/s]
    mtu : numeric
        IP MTU. [B]
    ip_version : numeric, default 4
        4 or 6.
    protocol : str or array-like of str, default 'tcp'
        See :func:`payload_bytes`.
    timestamps : bool or array-like of bool, default True
        TCP timestamps negotiated.
    vlan_tags : numeric, default 0
        Number of 802.1Q tags.
    encapsulation_bytes : numeric, default 0
        Overlay bytes per packet. [B]
    mtu_limits : tuple of two numbers, default (576, 9216)
        Accepted MTU range. [B]

    Returns
    -------
    numeric
        Application bytes per second, as a bit rate. [Gbit/s]

    Notes
    -----
    .. math:: G = R_{link} \\cdot \\eta

    An upper bound: packet loss is not modelled, and its effect dwarfs
    framing (validation case V16). Reverse-path ACKs use the other
    direction's capacity and do not reduce forward goodput.

    References
    ----------
    protocol-overheads.md section 6; fasterdata.es.net/network-tuning/
    mtu-issues/ (9.9 Gbit/s at MTU 9000 on 10 GbE).
    """
    link_speed = require_positive("link_speed", link_speed, "Gbit/s")
    return link_speed * efficiency(
        mtu, ip_version, protocol=protocol, timestamps=timestamps,
        vlan_tags=vlan_tags, encapsulation_bytes=encapsulation_bytes,
        mtu_limits=mtu_limits)


def packet_rate(goodput_gbps, payload):
    """Full-size packets per second needed to carry a goodput.

    Parameters
    ----------
    goodput_gbps : numeric
        Application data rate. [Gbit/s]
    payload : numeric
        Payload per packet, see :func:`payload_bytes`. [B]

    Returns
    -------
    numeric
        Packets per second in the data direction. [1/s]

    Notes
    -----
    .. math:: r = 10^9 G / (8 p)
    """
    goodput_gbps = np.asarray(goodput_gbps, dtype=float)
    if np.any(~np.isfinite(goodput_gbps) | (goodput_gbps < 0)):
        raise ValueError("goodput_gbps must be a finite number >= 0 "
                         f"[Gbit/s], got {goodput_gbps!r}")
    payload = require_positive("payload", payload, "B")
    return gbps_to_bytes_per_s(goodput_gbps) / payload


def frame_rate(link_speed, frame_bytes):
    """Frames per second a link carries at line rate.

    Parameters
    ----------
    link_speed : numeric
        Nominal link rate. [Gbit/s]
    frame_bytes : numeric
        Ethernet frame size from the MAC header to the FCS, as RFC 2544
        and RFC 5180 count it (64, 128, ... 1518, 9216); smaller frames are
        padded to the 64 B minimum. [B]

    Returns
    -------
    numpy.ndarray
        Frames per second. [1/s]

    Notes
    -----
    .. math:: r = \\frac{10^9 L}{8 (X + 20)}

    with the 20 B of preamble, start delimiter and inter-frame gap each
    frame also occupies (RFC 5180 Appendix A.1: 14,880,952 frames/s of
    64 B on 10 GbE, 812,743 of 1518 B).
    """
    link_speed = require_positive("link_speed", link_speed, "Gbit/s")
    frame = np.maximum(require_positive("frame_bytes", frame_bytes, "B"),
                       MIN_FRAME_BYTES)
    return gbps_to_bytes_per_s(link_speed) / (frame + L1_OVERHEAD_BYTES)


def udp_payload_bytes(frame_bytes, ip_version=4, *, vlan_tags=0):
    """UDP payload carried by an Ethernet frame of ``frame_bytes``.

    Parameters
    ----------
    frame_bytes : numeric
        Frame size from the MAC header to the FCS. [B]
    ip_version : numeric, default 4
        4 or 6.
    vlan_tags : numeric, default 0
        802.1Q tags inside the frame.

    Returns
    -------
    numpy.ndarray
        Payload after MAC header, tags, FCS, IP and UDP headers; 0 where
        the frame cannot hold the headers. [B]

    Notes
    -----
    A 64 B IPv4 frame carries 64 - 18 - 20 - 8 = 18 B of UDP data.
    """
    payload = (np.asarray(frame_bytes) - L2_OVERHEAD_BYTES
               - VLAN_TAG_BYTES * np.asarray(vlan_tags)
               - ip_header_bytes(ip_version) - UDP_HEADER_BYTES)
    return np.maximum(payload, 0)

