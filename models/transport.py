"""Bulk transfers (live migration, file copy, storage streams) over a host's
links: plain TCP, compression, SMB Multichannel, SMB Direct (RDMA) and UDP
(datagram senders such as iperf3 -u and traffic generators).

One vectorised function evaluates any mix of transports, one element per
scenario; it gives the receive-side throughput, the CPU it costs and the
limit that binds. Which interfaces and how many connections a transport
uses is decided before the call (see :func:`smb_connections`).
"""

import numpy as np

from models._checks import as_codes, pick, require_choice, require_positive
from models.host import core_ceiling, cores_busy, expected_distinct

#: ``rdma``: one RDMA connection carrying the data without TCP (QEMU's
#: RDMA migration transport), on the RDMA NICs only.
TRANSPORTS = ("tcp", "compression", "smb", "smb_direct", "udp", "rdma")
TCP, COMPRESSION, SMB, SMB_DIRECT, UDP, RDMA = range(6)

#: Cycles one UDP datagram costs its sending (or receiving) thread besides
#: the host preset's per-frame driver cost and per-byte copy: one
#: ``sendmsg``/``recvmsg`` system call and one pass through the UDP/IP
#: path, with no TSO/GSO or GRO aggregation (iperf3 and most datagram
#: senders use neither). Fitted once on two published single-sender runs
#: with the ``linux_host`` preset's ``c_wire`` (2626) and ``c_byte_tx``
#: (0.558): ESnet's 22 Gbit/s of 8972-byte datagrams on one 2.9 GHz core
#: (fasterdata "UDP tuning", case ESNET-UDP-40G) and 5.8 Gbit/s of
#: 1472-byte datagrams at MTU 1500 (Super User 1757563, case
#: UDP-IPERF3-10G-1500, clock not stated: 2.6 GHz assumed): 1829 and 1832
#: cycles reproduce each exactly, so one constant meets both within
#: 0.2 %. Refit it with the preset when ``linux_host``'s ``c_wire`` or
#: ``c_byte_tx`` change. [cycles]
UDP_DATAGRAM_CYCLES = 1_830.0

#: Cycles one traffic-generator thread spends per byte of each frame it
#: sends, beyond its per-packet work: the copy of the frame from the
#: generator's buffer into the kernel's socket buffer (libpcap's
#: ``pcap_sendpacket`` on a packet socket). Fitted once, minimax, on
#: Ostinato's one-stream rates on 40 GbE from 128 to 4096 B (753 to 574
#: kpps against 755 kpps at 64 B; srivatsp.com, cases OSTINATO-40G-1518
#: and -JUMBO; clock not stated, the schema's 2.6 GHz taken): 0.22
#: cycles/B reproduces every size within 4.7 %, a copy at about 12 GB/s.
#: [cycles/B]
GENERATOR_BYTE_CYCLES = 0.22

#: Frame size at which a generator's packet rate per thread is quoted
#: (``stream_cap_pps``): the minimum Ethernet frame. [B]
GENERATOR_REFERENCE_FRAME = 64


def generator_packet_rate(packet_rate, frame_bytes, ghz, *,
                          byte_cycles=GENERATOR_BYTE_CYCLES,
                          reference_frame=GENERATOR_REFERENCE_FRAME):
    """Packets per second one traffic-generator thread sends at a size.

    Parameters
    ----------
    packet_rate : numeric
        The thread's rate at ``reference_frame`` (minimum-size frames);
        inf where no generator paces the stream. [1/s]
    frame_bytes : numeric
        Frame size it sends, MAC header to FCS. [B]
    ghz : numeric
        Core clock. [GHz]
    byte_cycles : numeric, default :data:`GENERATOR_BYTE_CYCLES`
        Cycles per byte of frame the thread copies. [cycles/B]
    reference_frame : numeric, default 64
        Frame size ``packet_rate`` is quoted at. [B]

    Returns
    -------
    numeric
        Packet rate at ``frame_bytes``. [1/s]

    Notes
    -----
    The thread's time per packet is its time at the reference size plus
    the copy of the extra bytes:

    .. math::

        r(B) = \\left(\\frac{1}{r_{64}} + \\frac{c_B (B - 64)}{f}\\right)^{-1}

    A rate quoted without its size dependence (the 64 B figure) would
    overstate what the thread sends at jumbo sizes: 755 kpps at 64 B
    falls to 574 kpps at 4096 B (Ostinato on 40 GbE).

    References
    ----------
    Srivats P, "Ostinato throughput on a 40G NIC" (srivatsp.com).
    """
    rate = np.asarray(packet_rate, dtype=float)
    if not np.all(rate > 0):   # inf is allowed: no generator, no cap
        raise ValueError("packet_rate must be > 0 [1/s] (inf for none), "
                         f"got {rate[~(rate > 0)].flat[0]!r}")
    ghz = require_positive("ghz", ghz, "GHz")
    extra = np.maximum(np.asarray(frame_bytes, dtype=float)
                       - reference_frame, 0.0)
    paced = np.isfinite(rate)
    per_packet = 1.0 / np.where(paced, rate, 1.0) \
        + byte_cycles * extra / (ghz * 1e9)
    return np.where(paced, 1.0 / per_packet, np.inf)


#: How receive traffic spreads over the links a transfer may use:
#: ``one`` member only (switch-independent team, a single route), ``hash``
#: flows hashed onto members (static/LACP team), ``all`` members evenly
#: (SMB Multichannel over separate NICs), ``stripe`` every flow's packets
#: dealt over all members in turn (Linux balance-rr).
SPREADS = ("one", "hash", "all", "stripe")
ONE, HASH, ALL, STRIPE = range(4)

#: Share of the team's goodput one TCP stream reaches when its packets are
#: striped over all members (balance-rr): the receiver sees segments out
#: of order, duplicate ACKs trigger spurious fast retransmits, and each
#: halves the congestion window. Fitted once, minimax, on the two
#: published single-stream figures: a four-member bond carries "no more
#: than approximately 2.3 interface's worth" (kernel
#: ``Documentation/networking/bonding.txt``, section 13.1.1: 0.575) and
#: Linux 6.8 with CUBIC over 2 x 1 GbE moves 1.19 Gbit/s where one member
#: moves 0.94 (ibug.io 2026, "BanD Width! It's MyBOND!!": 0.633); 0.604
#: is within 5 % of both. Datagrams are not penalised (the same
#: documentation: UDP "scales near linearly"). [unitless]
TCP_STRIPE_EFFICIENCY = 0.604

#: Binding limits, in the order of the codes :func:`bulk_transfer` returns.
LIMITS = ("link", "member_spread", "flow_per_member", "cpu_core",
          "stream_cap", "compressor", "pcie_slot")

#: SMB client defaults: connections per interface by kind and the
#: per-session maximum (Windows ``ConnectionCountPerNetworkInterface`` 1,
#: ``...PerRssNetworkInterface`` 4, ``...PerRdmaNetworkInterface`` 2,
#: ``MaximumConnectionCountPerServer`` 32; Microsoft file-server
#: performance tuning; protocol-overheads.md section 8.5).
SMB_CONNECTIONS = {"plain": 1, "rss": 4, "rdma": 2}
SMB_MAX_CONNECTIONS = 32

#: Ceiling of one live-migration stream by hypervisor other than vSphere
#: (see :func:`vmotion_stream_cap`), as (Gbit/s, clock it was measured at
#: in GHz or None when it does not scale with clock, transports it applies
#: to): a Hyper-V migration over SMB reaches 4.5-5 Gbit/s per VM on one
#: core, "depending on the speed of your CPU" (seed 001, case S-HV-e; host
#: clock not published, 2.6 GHz assumed), while one VM over TCP reaches 10
#: Gbit/s (S-HV-g), so no cap applies there. Nor over SMB Direct, where the
#: NIC places the data: one VM fills a 10 GbE iWARP NIC ("Nearly 10 Gbps
#: over a single NIC", A. Finn 2013, case FINN-LM-SMBD-10G) and 2 x 10 GbE
#: (S-HV-i). QEMU and Xen: no published figure, no cap.
MIGRATION_STREAM_CAPS = {"hyperv": (4.75, 2.6, ("smb",))}

#: What one vMotion stream (one vmknic's worker thread, one core) moves
#: alone on a NIC [Gbit/s]: the minimax fit of "about 15" (V7: core.vmware
#: .com "Faster vMotion", ``Migrate.MigrateStreamHelperBwUtilMax`` =
#: 15000) and 18 (Broadcom KB 323379, one vmknic on 40 GbE), +-9 % to
#: both; neither source names the CPU.
VMOTION_STREAM_GBPS = 16.36

#: How streams sharing one NIC scale: n streams move ``n ** 0.74`` times
#: one stream's rate, fitted once on KB 323379's two and three vmknics on
#: one 40 GbE NIC (28 and 36 Gbit/s, +-2.4 %).
VMOTION_STREAMS_EXPONENT = 0.74


def vmotion_stream_cap(streams_per_nic, *, single=VMOTION_STREAM_GBPS,
                       exponent=VMOTION_STREAMS_EXPONENT):
    """Ceiling of each vMotion stream when several share one NIC.

    Parameters
    ----------
    streams_per_nic : numeric
        vMotion streams (vmknics, one worker thread each) on one NIC;
        fractional for an uneven spread.
    single : numeric, default :data:`VMOTION_STREAM_GBPS`
        What one stream moves alone. [Gbit/s]
    exponent : numeric, default :data:`VMOTION_STREAMS_EXPONENT`
        Scaling of n streams on one NIC, ``n ** exponent``.

    Returns
    -------
    numpy.ndarray
        Per-stream ceiling. [Gbit/s]

    Notes
    -----
    .. math:: c = S \\, n^{\\alpha - 1}, \\qquad n c = S n^{\\alpha}

    Streams on one NIC share its receive queues and interrupt cores, so
    they scale sub-linearly: one 40 GbE NIC gave 18, 28 and 36 Gbit/s with
    one, two and three vmknics (vSphere 6.x; KB 323379). This is the
    behaviour up to vSphere 7.0 U1, where streams are the vmknics the
    administrator creates; from 7.0 U2 vMotion adds streams to match the
    NIC's bandwidth and one vmknic saturates 25, 40 and 100 GbE, which
    :mod:`solvers.inputs` models as no per-stream ceiling.

    References
    ----------
    Broadcom KB 323379, "Improving performance for vMotion when using
    40GbE NICs"; N. Hagoort, "Auto-Tuning vMotion Streams" (2021);
    validation case V7.
    """
    streams = require_positive("streams_per_nic", streams_per_nic)
    return single * streams ** (exponent - 1.0)


def vmotion_auto_streams(link_speed, *, single=VMOTION_STREAM_GBPS):
    """Streams vSphere 7.0 U2 and later open on one vmknic.

    Parameters
    ----------
    link_speed : numeric
        Speed of the vmknic's NIC. [Gbit/s]
    single : numeric, default :data:`VMOTION_STREAM_GBPS`
        What one stream moves. [Gbit/s]

    Returns
    -------
    numpy.ndarray of int
        ``ceil(link_speed / single)``: enough streams to fill the NIC
        (one on 10 GbE, two on 25 GbE, three on 40 GbE, seven on 100 GbE).

    Notes
    -----
    VMware states the count follows "the bandwidth of the physical NICs"
    and that one vmknic then saturates 25, 40 and 100 GbE without tuning
    (N. Hagoort, "Auto-Tuning vMotion Streams", 2021); the exact rule is
    not published, so the smallest count that can fill the link is taken.
    """
    link = require_positive("link_speed", link_speed, "Gbit/s")
    return np.ceil(link / single).astype(int)


def sender_thread_cap(threads, streams, core_gbps):
    """Per-stream ceiling when a transfer's streams share sending threads.

    Parameters
    ----------
    threads : numeric
        Threads sending all the streams (inf: one per stream).
    streams : numeric
        The transfer's streams.
    core_gbps : numeric
        What one core moves for one stream, its per-core ceiling
        (:func:`models.host.core_ceiling`). [Gbit/s]

    Returns
    -------
    numpy.ndarray
        Ceiling of each stream: the threads' cores shared by the streams
        (inf with a thread per stream). [Gbit/s]

    Notes
    -----
    .. math:: c = \\min(k, n)\\, T_{core} / n, \\qquad n c = \\min(k, n) T_{core}

    A thread serves its streams in turn on its one core, so however many
    streams it opens they move one core's worth together: iperf3 ran
    every stream of a client in one thread until 3.16 (ESnet iperf3 3.16
    release notes, 2023: "multi-threaded"; before, "-P" streams "will all
    be in the same thread", iperf3 FAQ), where several connections only
    spread the receiver's load over queues.

    References
    ----------
    ESnet, iperf3 FAQ and 3.16 release notes (2023).
    """
    threads = np.asarray(threads, dtype=float)
    streams = require_positive("streams", streams)
    if np.any(~(threads >= 1)):
        raise ValueError("threads must be >= 1 (inf: one per stream), got "
                         f"{threads[~(threads >= 1)].flat[0]!r}")
    shared = np.minimum(threads, streams) * np.asarray(core_gbps) / streams
    return np.where(np.isfinite(threads), shared, np.inf)


#: Bytes moved per SMB Direct message (the SMB3 default maximum read/write
#: size, 1 MiB), over which the per-message CPU cost is spread [B].
SMB_DIRECT_MESSAGE_BYTES = 1 << 20

#: Slack below an integer that still rounds down when flows are shared out
#: over an expected (fractional) number of queues. [flows]
CEIL_TOLERANCE = 1e-9


def smb_connections(interfaces, kind, *, per_interface=None,
                    max_per_session=SMB_MAX_CONNECTIONS):
    """TCP (or RDMA) connections one SMB Multichannel session opens.

    Parameters
    ----------
    interfaces : numeric
        Interfaces of the winning class (SMB uses only the fastest
        interfaces of the best kind: RDMA, then RSS-capable, then others).
    kind : str or array-like of str
        ``'rdma'``, ``'rss'`` or ``'plain'``.
    per_interface : dict, optional
        Connections per interface by kind; Windows defaults when omitted.
    max_per_session : numeric, default 32
        ``MaximumConnectionCountPerServer``.

    Returns
    -------
    numeric
        Connections, each one flow for RSS and team hashing.

    Notes
    -----
    A NIC with a single RSS queue counts as non-RSS and gets one
    connection (Barreto 2012, protocol-overheads.md section 8.5).
    """
    per_interface = SMB_CONNECTIONS if per_interface is None \
        else per_interface
    kind = require_choice("kind", kind, per_interface)
    count = np.select([kind == k for k in per_interface],
                      list(per_interface.values()))
    return np.minimum(np.asarray(interfaces) * count, max_per_session)


def bulk_transfer(transport, member_speed, members, spread, flows,
                  rss_queues, cores, ghz, cycles_per_byte, efficiency, *,
                  stream_cap=np.inf, streams=1, compression_ratio=1.0,
                  compressor_speed=np.inf, compression_threads=1,
                  compression_offload=False, flows_per_queue=1.0,
                  c_io=20_000.0, message_bytes=SMB_DIRECT_MESSAGE_BYTES,
                  own_thread=False, pinned_sessions=0,
                  stripe_efficiency=TCP_STRIPE_EFFICIENCY,
                  slot_goodput=np.inf):
    """Receive-side throughput, CPU and binding limit of a bulk transfer.

    Parameters
    ----------
    transport : str or array-like of str
        ``'tcp'``, ``'compression'`` (TCP carrying compressed data),
        ``'smb'`` (SMB Multichannel over TCP), ``'smb_direct'`` (RDMA),
        ``'udp'`` (datagrams) or ``'rdma'`` (one RDMA connection, QEMU's
        RDMA migration);
        or their codes (index into :data:`TRANSPORTS`).
    member_speed : numeric
        Nominal rate of each usable link. [Gbit/s]
    members : numeric
        Usable links (team members or SMB interfaces).
    spread : str or array-like of str
        ``'one'``, ``'hash'``, ``'all'`` or ``'stripe'``, see
        :data:`SPREADS` (or codes).
    flows : numeric
        TCP connections (ignored for SMB Direct).
    rss_queues : numeric
        Receive queues of each member; a member hashes its own flows onto
        its own queues, each served by one core.
    cores : numeric
        Cores the host has for them.
    ghz : numeric
        Core clock. [GHz]
    cycles_per_byte : numeric
        Receive-side stack cost per payload byte. [1/B]
    efficiency : numeric
        Payload share of the wire for the transport's framing. [unitless]
    stream_cap : numeric, default inf
        Ceiling of one application stream (e.g. a vMotion stream helper, a
        migration worker on one core, or a single-threaded traffic
        generator's packet rate times its payload). [Gbit/s]
    streams : numeric, default 1
        Application streams (sessions x threads).
    compression_ratio : numeric, default 1.0
        Logical bytes per transmitted byte (compression only).
    compressor_speed : numeric, default inf
        Logical rate one compression thread sustains. [Gbit/s]
    compression_threads : numeric, default 1
        Compression threads (offload devices with ``compression_offload``).
    compression_offload : bool or array-like of bool, default False
        The compressor is a device (QAT): its work costs no host cores.
    flows_per_queue : numeric, default 1
        Connections that always share one queue and so one core (a vNIC's
        connections with VMQ alone); see
        :func:`models.host.receive_queues`.
    c_io : numeric, default 20000
        Host cycles per RDMA message. [cycles]
    message_bytes : numeric, default 1 MiB
        Payload per RDMA message. [B]
    own_thread : bool or array-like of bool, default False
        Each stream is a sending thread whose rate ``stream_cap`` already
        is (a traffic generator with a published packet rate per thread):
        the host stack's per-core ceiling does not bound it a second time.
    pinned_sessions : numeric, default 0
        Sessions (VMs' vNICs) a switch-independent team pins to members in
        turn, ``port_id mod n`` (``spread='all'``); 0 when the flows are
        not pinned. Members then carry whole sessions, some one more than
        others, and each member is bounded by its own sessions.
    stripe_efficiency : numeric, default :data:`TCP_STRIPE_EFFICIENCY`
        Share of the members' goodput one striped TCP flow reaches
        (``spread='stripe'``; UDP is not penalised). [unitless]
    slot_goodput : numeric, default inf
        Payload rate the members' PCIe slots let through in the data
        direction (:func:`models.pcie.nic_slot_goodput`); inf when the
        slots are not given. [Gbit/s]

    Returns
    -------
    dict of numeric
        ``throughput`` logical payload rate [Gbit/s]; ``wire_payload`` rate
        on the wire [Gbit/s]; ``cores`` busy cores for the network stack
        and compression [cores], of which ``compression_cores`` compress
        (none on an offload device); ``busiest_core`` load of the most loaded
        core [fraction]; ``busy_queues`` cores the flows land on; ``limit``
        index into :data:`LIMITS`; ``spread_members`` expected members
        carrying traffic; ``core_ceiling`` one core's rate for one flow
        [Gbit/s].

    Notes
    -----
    .. math::

        T = \\min\\big(r (E_{members} S_m \\eta,\\; F S_m \\eta,\\;
            E_{queues} T_{core}),\\; n_{thr} C,\\; n_{str} S_{str},\\;
            r G_{slot}\\big)

    where :math:`E` is :func:`models.host.expected_distinct`, one flow never
    exceeds one member nor one core, and RDMA has no per-core ceiling.
    Striped (``stripe``) flows use every member, so one flow's bound is
    :math:`n\\,S_m \\eta\\,e_{rr}` instead of :math:`S_m \\eta`, with
    :math:`e_{rr}` the reordering efficiency for TCP and 1 for UDP.
    UDP is costed per datagram by the caller (no aggregation; see
    :data:`UDP_DATAGRAM_CYCLES`) and otherwise bounded like TCP; it sends
    no ACKs.
    Sessions pinned in turn (``pinned_sessions`` :math:`s > 0` on
    :math:`n` members) put :math:`q + 1` sessions on :math:`r = s - q n`
    members and :math:`q = \\lfloor s/n \\rfloor` on the others; the
    ``member_spread`` bound is then the sum over members,

    .. math::

        T_{spread} = r \\min(S_m \\eta, (q + 1) u)
            + (n - r) \\min(S_m \\eta, q u)

    with :math:`u` one session's share of the stream and core bounds
    (teaming.md 2.2: six ports on four uplinks take members 0, 1, 2, 3, 0,
    1).
    Queues are taken by groups of :math:`F_q` flows (``flows_per_queue``):

    .. math::

        E_{queues} = \\min(E_m E(Q, F / (F_q E_m)), F / F_q, n_{cores})

    References
    ----------
    protocol-overheads.md sections 8.2, 8.4-8.6; validation cases S-HV-a..i
    (seed 001).
    """
    transport = as_codes("transport", transport, TRANSPORTS)
    spread = as_codes("spread", spread, SPREADS)
    member_speed = require_positive("member_speed", member_speed, "Gbit/s")
    members = require_positive("members", members)
    rss_queues = require_positive("rss_queues", rss_queues)
    cores = require_positive("cores", cores)
    flows = require_positive("flows", flows)
    flows_per_queue = require_positive("flows_per_queue", flows_per_queue)
    if np.any(flows_per_queue > flows):
        raise ValueError("flows_per_queue must not exceed flows, got "
                         f"{flows_per_queue!r} for {flows!r} flows")
    rdma = (transport == SMB_DIRECT) | (transport == RDMA)
    compressed = transport == COMPRESSION

    member_goodput = member_speed * efficiency
    # exact selection by arithmetic (each row has exactly one mask set)
    striped = spread == STRIPE
    spread_members = ((spread == ONE)
                      + (spread == HASH) * expected_distinct(members, flows)
                      + ((spread == ALL) | striped) * members)
    # a striped flow spans every member; TCP loses to reordering
    members_per_flow = pick(striped, members * pick(
        transport == UDP, 1.0, stripe_efficiency), 1.0)
    queue_groups = flows / flows_per_queue
    per_member = expected_distinct(rss_queues, queue_groups / spread_members)
    busy_queues = np.minimum(np.minimum(spread_members * per_member,
                                        queue_groups), cores)
    ratio = pick(compressed, compression_ratio, 1.0)
    scaled = member_goodput * ratio
    per_core = core_ceiling(ghz, cycles_per_byte)
    not_for_rdma = np.where(rdma, np.inf, 0.0)  # +inf removes a bound
    no_core_bound = np.where(rdma | np.asarray(own_thread, dtype=bool),
                             np.inf, 0.0)
    core_bound = busy_queues * per_core * ratio + no_core_bound
    stream_bound = streams * np.asarray(stream_cap, dtype=float)
    bounds = (  # in the order of LIMITS
        members * scaled,
        _pinned_spread(pinned_sessions, members, scaled,
                       np.minimum(core_bound, stream_bound),
                       spread_members * scaled),
        flows * members_per_flow * scaled + not_for_rdma,
        core_bound,
        stream_bound,
        compression_threads * compressor_speed
        + np.where(compressed, 0.0, np.inf),
        slot_goodput * ratio)
    # running minimum: the first of equal bounds names the limit
    throughput = bounds[0] + np.zeros(np.broadcast_shapes(
        *(np.shape(b) for b in bounds)))
    limit = np.zeros(throughput.shape, dtype=np.int8)
    for code, bound in enumerate(bounds[1:], start=1):
        tighter = bound < throughput
        throughput = np.minimum(bound, throughput)
        limit += tighter * (code - limit)
    wire_payload = throughput / ratio

    rdma_cores = wire_payload * c_io / ghz / (8.0 * message_bytes)
    stack_cores = pick(rdma, rdma_cores,
                       cores_busy(wire_payload, cycles_per_byte, ghz))
    compression_cores = compressed * ~np.asarray(compression_offload) \
        * (throughput / compressor_speed)
    # the fullest queue holds ceil(groups / busy) groups of the average
    # rate; the tolerance keeps pow's last-bit error (48 flows on
    # 1.99999999999999 expected queues) from adding a whole group
    per_queue = np.ceil(queue_groups / busy_queues - CEIL_TOLERANCE) \
        * wire_payload / queue_groups
    busiest = pick(rdma, stack_cores,
                   cores_busy(per_queue, cycles_per_byte, ghz))
    return {"throughput": throughput, "wire_payload": wire_payload,
            "cores": stack_cores + compression_cores,
            "compression_cores": compression_cores,
            "busiest_core": np.minimum(busiest, 1.0),
            "busy_queues": ~rdma * busy_queues,
            "limit": limit, "spread_members": spread_members,
            "core_ceiling": per_core}


def _pinned_spread(sessions, members, member_goodput, sessions_bound,
                   unpinned):
    """Sum over members of each member's goodput or its sessions' share of
    ``sessions_bound``, for sessions pinned in turn (``unpinned`` where
    ``sessions`` is 0)."""
    sessions = np.asarray(sessions, dtype=float)
    pinned = sessions > 0
    sessions = np.where(pinned, sessions, 1.0)
    used = np.minimum(members, sessions)
    fewer = np.floor(sessions / used)       # sessions on most members
    more = sessions - fewer * used          # members with one more
    per_session = sessions_bound / sessions
    total = (more * np.minimum(member_goodput, (fewer + 1) * per_session)
             + (used - more) * np.minimum(member_goodput,
                                          fewer * per_session))
    return np.where(pinned, total, unpinned)
