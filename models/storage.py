"""Storage IO: outstanding IO, IOPS against outstanding IO (Little's law and
the closed-queue curve, with a single-server array, a multi-channel NVMe
device or a capped cloud volume at the bottleneck), protocol bytes per IO
for iSCSI, NFSv3, SMB3 (and the S2D storage bus) and NVMe/TCP, per-IO
latency and CPU over TCP or RDMA, and the backend, network and CPU
ceilings on IOPS.

Every function broadcasts over arrays of scenarios. References:
docs/reference/storage-io.md (sections 1-3 and 7) and
protocol-overheads.md section 7 (per-IO bytes).
"""

import numpy as np

from models import wire
from models.host import AGGREGATE_BYTES
from models.units import MB
from models._checks import as_codes, require_positive, require_range

PROTOCOLS = ("nfs3", "iscsi", "smb3", "vsan", "local", "nvmeof", "s2d")
NFS3, ISCSI, SMB3, VSAN, LOCAL, NVMEOF, S2D = range(7)

#: Transports under a storage protocol: TCP, or RDMA (SMB Direct, iSER,
#: NVMe-oF/RDMA, NFS over RDMA, vSAN over RDMA, the S2D storage bus over
#: SMB Direct).
STORAGE_TRANSPORTS = ("tcp", "rdma")

#: Kinds of back end: an ``array`` known by its ceiling, an ``nvme``
#: multi-queue device with internal parallelism, a ``cloud_volume`` with a
#: documented IOPS cap (see :func:`storage_chain`, ``device_servers``).
BACKEND_KINDS = ("array", "nvme", "cloud_volume")

#: What set the IOPS ceiling, in the order of the codes returned by
#: :func:`iops_ceiling`.
LIMITS = ("backend", "network", "cpu")

#: RAID write penalty: back-end IOs per random host write (RAID 1/10 write
#: both mirrors; RAID 5 reads data and parity and writes both; RAID 6 adds
#: a second parity; industry rule, e.g. storage-io planning guides).
WRITE_PENALTY = {"none": 1.0, "raid0": 1.0, "raid1": 2.0, "raid10": 2.0,
                 "raid5": 4.0, "raid6": 6.0}

#: Random IOPS of one 15K rpm spindle: 1 / (3.5 ms average seek + 2 ms half
#: rotation) ~ 180 [Derived from the drive's mechanics].
SPINDLE_15K_IOPS = 180.0

#: Sequential rate of one 15K rpm spindle [MB/s] (2011-era 146 GB SAS
#: drives stream 100-150 MB/s; the lower end is taken).
SPINDLE_15K_MBPS = 100.0

#: Protocol header bytes per message (protocol-overheads.md section 7):
#: iSCSI basic header segment 48; NFSv3 over RPC with AUTH_SYS; SMB2/3
#: NetBIOS 4 + SMB2 header 64 + command body.
ISCSI_BHS = 48
#: NVMe/TCP PDUs (NVMe/TCP transport specification 1.0, section 3.6): a
#: command capsule is an 8 B common header and a 64 B submission queue
#: entry; data travels in C2HData/H2CData PDUs with a 24 B header; the
#: response capsule is 8 B + a 16 B completion queue entry.
NVME_TCP_COMMAND = 8 + 64
NVME_TCP_DATA_HEADER = 24
NVME_TCP_RESPONSE = 8 + 16
NFS_AUTH_SYS_BODY = 32       # AUTH_SYS with a short host name, one gid
NFS_FILE_HANDLE = 32         # bytes; servers use 32-64
SMB_ENCRYPTION = 52          # SMB3 transform header

#: Host CPU per IO relative to iSCSI, by protocol: NFS costs about twice
#: iSCSI's CPU in TPC-C/TPC-H runs (Radkov et al., FAST 2004; a shape
#: check in storage-io.md section 8, applied to c_io); SMB3, vSAN and
#: NVMe-oF are taken equal to iSCSI for want of a measurement; local IO
#: skips the network stack but keeps the block layer. Storage Spaces
#: Direct runs a heavier stack per host IO (CSVFS, ReFS, Spaces, and a
#: mirror that writes every block to three nodes): 3.5 x, fitted once on
#: the RDMA run of Microsoft's S2D comparison (16,300 IOPS per % kernel
#: CPU of 44 cores at 2.8 GHz: 75,600 cycles per IO, less two RDMA
#: messages; validation case S2D-RDMA-IOPS-PER-CPU, whose TCP run the
#: model then predicts).
PROTOCOL_CPU_FACTOR = {"nfs3": 2.0, "iscsi": 1.0, "smb3": 1.0, "vsan": 1.0,
                       "local": 1.0, "nvmeof": 1.0, "s2d": 3.5}

#: Protocols served by every core of the host by default: blk-mq gives
#: each core its own submission queue, the Linux NVMe-oF host driver
#: opens one IO queue per online CPU (nvme-cli ``connect``,
#: ``--nr-io-queues`` defaults to the CPU count), the S2D stack runs
#: on the core that issues the IO, its storage bus over SMB Multichannel
#: on every RSS/RDMA queue, and vSAN is not an initiator with sessions:
#: its distributed object manager (DOM) client runs in the VMkernel for
#: every VM's IO and sends it to the component owners over the vSAN
#: vmknic with vSAN's own RDT protocol (VMware, "vSAN Network Design
#: Guide", "vSAN Architecture"), so no one-core-per-session iSCSI rule
#: binds it (models.platform.OWN_DATA_PATHS).
EVERY_CORE_PROTOCOLS = ("local", "nvmeof", "s2d", "vsan")

#: Network round trip added to the device service time in the unloaded
#: latency R0 over TCP [s]: a switched LAN round trip with interrupt
#: moderation is tens of microseconds [Model default]; the TCP stack's own
#: CPU time per IO is added to it by :func:`storage_chain`. With RDMA's
#: constants below it reproduces the RDMA/TCP IOPS ratio of Microsoft's
#: S2D comparison (validation case S2D-RDMA-IOPS, not fitted on it).
NETWORK_ROUND_TRIP_S = 50e-6

#: The same over RDMA [s]: the NIC places the message and its data in
#: memory and signals one completion, with no interrupt moderation and no
#: stack traversal. A RoCE/InfiniBand send round trip between ConnectX-3
#: class NICs through one switch is about 2-3 us (Mellanox ConnectX-3 Pro
#: brief: 1 us one-way application latency; perftest ib_send_lat); the
#: completion interrupt and its deferred procedure call at each end add
#: about 1 us each: 5 us [Derived].
RDMA_ROUND_TRIP_S = 5e-6

#: Host cycles per RDMA message (post a work request, reap its completion
#: through an interrupt and DPC) [cycles]. Kalia et al. (USENIX ATC 2016)
#: measure a few hundred cycles per verb posted and polled; an interrupt
#: per completion adds ~2,000 (Windows SMB Direct and the Linux iSER and
#: NVMe-oF initiators run interrupt-driven) [Derived: 3,000].
RDMA_MESSAGE_CYCLES = 3_000.0

#: RDMA messages per IO: the request and the response (the data moves by
#: RDMA read or write inside them).
RDMA_MESSAGES_PER_IO = 2

#: Time a lone local IO's completion waits for the idle host [s]: with one
#: IO in flight the core halts between IOs and must leave its idle state
#: (C1 exit 2 us on Intel server cores: Linux drivers/idle/intel_idle.c,
#: the C1 entries of skx_cstates, icx_cstates, spr_cstates) and take the
#: interrupt before the waiting thread runs; with other IOs in flight
#: the host is busy and pays none of it. The one-IO latency a benchmark
#: measures (a local device's service_time_ms) carries it, the device's
#: service time does not: KitGuru's CrystalDiskMark runs show four
#: threads at QD1 each 1.7-3.6 us faster than one thread alone
#: (validation cases KG-*-4T-QD1). Calibrated once across every storage
#: validation case as the smallest value that holds the most checks
#: (tests/app/test_storage_calibration.py: 0-4 us; 1.5 and 2 us hold 30,
#: none 29). AnandTech's 2014 testbed loses about 8 us (P3700-QD8), a
#: deeper idle state than this default.
HOST_WAKEUP_S = 1.5e-6


def total_oio(vms, disks_per_vm, threads_per_disk):
    """Outstanding IO of a benchmark: VMs × data disks per VM × threads per
    disk (HCIBench/Vdbench; storage-io.md section 5.1).

    Parameters
    ----------
    vms, disks_per_vm, threads_per_disk : array-like of int

    Returns
    -------
    numpy.ndarray
        Total outstanding IO. [1]
    """
    return np.asarray(vms) * np.asarray(disks_per_vm) \
        * np.asarray(threads_per_disk)


def iops_bound(oio, iops_max, unloaded_latency):
    """Asymptotic bound on IOPS of a closed system without think time:
    :math:`\\min(N / R_0, \\mu)` (Little's law below the knee, the
    bottleneck above it; storage-io.md section 2).

    Parameters
    ----------
    oio : array-like
        Outstanding IO. [1]
    iops_max : array-like
        Bottleneck rate. [1/s]
    unloaded_latency : array-like
        R0. [s]

    Returns
    -------
    numpy.ndarray
        [1/s]
    """
    return np.minimum(np.asarray(oio, dtype=float)
                      / require_positive("unloaded_latency",
                                         unloaded_latency, "s"),
                      require_positive("iops_max", iops_max, "1/s"))


#: Largest finite number of servers accepted [1].
LARGE_COUNT = 1e9


def units_in_service(ios, servers, placed_fraction=0.0):
    """Expected device units busy with ``ios`` IOs in the device, when a
    share of them must go to the unit that holds their data.

    Parameters
    ----------
    ios : array-like of float
        IOs in the device, n >= 1. [1]
    servers : array-like of float
        Units that each serve one IO at a time c (an NVMe device's dies;
        ``inf`` for no limit). [1]
    placed_fraction : array-like of float, default 0
        Share of IOs whose unit is fixed by their address p: random reads
        (the flash translation layer put each page on one die when it was
        written); the rest (writes, which the FTL steers to a free die, and
        sequential reads, striped over the dies) take any free unit. [1]

    Returns
    -------
    numpy.ndarray
        Units busy. [1]

    Notes
    -----
    A pooled IO waits only when every unit is busy, :math:`\\min(n, c)`.
    IOs at independent uniformly random units occupy on average

    .. math:: c \\left[1 - (1 - 1/c)^n\\right]

    of them (the occupancy problem: n balls in c cells), so random reads
    collide on a die before the device is full and latency rises from
    QD1 on. The two mix linearly in p [Model]. Both give 1 for c = 1 and n
    for c = inf.

    References
    ----------
    .. [1] W. Feller, An Introduction to Probability Theory and Its
       Applications, vol. 1, 3rd ed., 1968, section II.5 (occupancy).
    """
    ios = np.asarray(ios, dtype=float)
    servers = np.asarray(servers, dtype=float)
    placed = np.asarray(placed_fraction, dtype=float)
    pooled = np.minimum(ios, servers)
    if not placed.any():
        return pooled
    with np.errstate(divide="ignore", invalid="ignore"):
        # c (1 - (1 - 1/c)^n) without cancellation; c = 1 gives 1
        occupied = -servers * np.expm1(ios * np.log1p(-1.0 / servers))
    occupied = np.where(np.isposinf(servers), ios, occupied)
    return placed * occupied + (1.0 - placed) * pooled


def closed_queue_iops(oio, iops_max, unloaded_latency, *, servers=1,
                      service_time=None, placed_fraction=0.0):
    """IOPS of a closed single-class queue with ``oio`` requests in flight:
    the machine-repairman model with ``servers`` repairmen (M/M/c//N).

    Parameters
    ----------
    oio : array-like of int
        Outstanding IO, N >= 1. [1]
    iops_max : array-like of float
        Bottleneck rate μ: no number of IOs in service is served faster.
        [1/s]
    unloaded_latency : array-like of float
        Latency of one IO alone, R0 >= the service time. [s]
    servers : array-like of float, default 1
        IOs the bottleneck serves at once c (an NVMe device's channels and
        dies; ``inf`` for a volume that serves every IO in flight in
        parallel up to its cap). [1]
    service_time : array-like of float, optional
        Time one IO holds a server S. [s] Default ``servers / iops_max``:
        the c servers together give exactly μ (with c = 1, a single
        server at the bottleneck rate).
    placed_fraction : array-like of float, default 0
        Share of IOs that must go to one given server (random reads on an
        NVMe device's dies, :func:`units_in_service`); 0: any free server
        takes any IO (M/M/c//N). [1]

    Returns
    -------
    numpy.ndarray
        IOPS; latency follows from Little's law as ``oio / iops``. [1/s]

    Notes
    -----
    IOs not in service spend :math:`Z = R_0 - S` elsewhere (network,
    host). With :math:`n` IOs at the bottleneck it completes them at
    :math:`\\mu(n) = \\min(b(n)/S, \\mu)`, with :math:`b(n) = \\min(n, c)`
    busy servers when any server takes any IO and the occupancy of
    :func:`units_in_service` when IOs are placed: a load-dependent service
    centre (Lazowska et al. ch. 8, a flow-equivalent server). The
    birth-death chain of the finite source gives

    .. math:: p(n) = p(n-1) \\frac{N - n + 1}{Z \\, \\mu(n)}, \\qquad
              X(N) = \\sum_n p(n) \\, \\mu(n),

    summed in log space. Latency stays at :math:`R_0` while
    :math:`N \\lesssim c` and :math:`N \\lesssim \\mu R_0` (Little's law),
    then the curve bends to μ. With c = 1 and S = 1/μ this is the M/M/1//N
    repairman: :math:`X = \\mu (1 - B(N, \\mu Z))` with Erlang's B
    formula, whose worked example in storage-io.md section 3 it
    reproduces exactly.

    References
    ----------
    .. [1] E. D. Lazowska et al., Quantitative System Performance, 1984,
       sections 8.2-8.3 (load-dependent service centres).
    .. [2] L. Kleinrock, Queueing Systems vol. 1, 1975, section 3.9
       (M/M/m//K, the finite-source multi-server queue).
    """
    oio = np.asarray(oio, dtype=float)
    iops_max = require_positive("iops_max", iops_max, "1/s")
    latency = require_positive("unloaded_latency", unloaded_latency, "s")
    servers = np.asarray(servers, dtype=float)
    # inf is allowed: every IO in flight in service at once
    require_range("servers", np.where(np.isposinf(servers), 1.0, servers),
                  1, LARGE_COUNT)
    require_range("oio", oio, 1, 1e7)
    service = servers / iops_max if service_time is None \
        else require_positive("service_time", service_time, "s")
    placed = require_range("placed_fraction", placed_fraction, 0, 1)
    oio, iops_max, latency, servers, service, placed = np.broadcast_arrays(
        oio, iops_max, latency, servers, service, placed)
    think = np.maximum(latency - service, 0.0)
    # no think time: every IO always waits at the bottleneck
    busy = think <= 1e-12 * service
    log_think = np.log(np.where(busy, 1.0, think))
    at_bottleneck = np.minimum(
        units_in_service(oio, servers, placed) / service, iops_max)
    # X = mu(N) - sum p(n) (mu(N) - mu(n)): states at the full rate add
    # nothing, so far past the knee X is mu(N) to the last bit, like 1 - B
    log_total = np.zeros(oio.size)
    log_deficit = np.log(at_bottleneck).ravel()        # n = 0 serves nothing
    # one vectorised step per outstanding IO over the elements still
    # summing: every 16 steps the finished ones leave the arrays
    live = np.flatnonzero(~busy)
    state = [a.ravel()[live] for a in (oio, servers, service, iops_max,
                                       log_think, at_bottleneck, placed)]
    any_placed = bool(placed.any())
    weight, total, deficit = (np.zeros(live.size), np.zeros(live.size),
                              log_deficit[live])
    with np.errstate(divide="ignore"):
        for n in range(1, int(oio.max(initial=0)) + 1):
            if not live.size:
                break
            count, parallel, hold, cap, log_z, top, share = state
            in_service = units_in_service(n, parallel, share) \
                if any_placed else np.minimum(n, parallel)
            rate = np.minimum(in_service / hold, cap)
            step = np.log(np.maximum(count - n + 1, 1.0)) - log_z \
                - np.log(rate)
            summing = n <= count
            weight = np.where(summing, weight + step, weight)
            total = np.where(summing, np.logaddexp(total, weight), total)
            deficit = np.where(summing, np.logaddexp(
                deficit, weight + np.log(np.maximum(top - rate, 0.0))),
                deficit)
            if n % 16:
                continue
            # done: past its N; past the mode with weights 40 e-folds below
            # the total; or at the full rate to rounding (later states add
            # no deficit; placed IOs approach it geometrically) with the
            # deficit below rounding (e^-37 ~ 1e-16 of mu(N))
            done = (n >= count) | ((step < 0) & (weight < total - 40)) \
                | ((top - rate <= 1e-15 * top)
                   & (deficit - total < np.log(top) - 37))
            log_total[live[done]] = total[done]
            log_deficit[live[done]] = deficit[done]
            keep = ~done
            live, weight, total, deficit = (live[keep], weight[keep],
                                            total[keep], deficit[keep])
            state = [a[keep] for a in state]
    log_total[live] = total
    log_deficit[live] = deficit
    log_total = log_total.reshape(oio.shape)
    log_deficit = log_deficit.reshape(oio.shape)
    iops = at_bottleneck - np.exp(log_deficit - log_total)
    # X <= N / R0 holds exactly; the log-space sums round
    return np.where(busy, at_bottleneck, np.minimum(iops, oio / latency))


def io_message_bytes(protocol, block_bytes, read, *, encrypted=False):
    """Upper-layer bytes of one IO in each direction.

    Parameters
    ----------
    protocol : array-like of str or int
        One of :data:`PROTOCOLS`.
    block_bytes : array-like of float
        IO size. [B]
    read : array-like of bool
        True for a read, False for a write.
    encrypted : array-like of bool, default False
        SMB3 encryption (adds a 52 B transform header per message).

    Returns
    -------
    to_target, from_target : numpy.ndarray
        Bytes sent to the storage target and received from it. [B]

    Notes
    -----
    iSCSI: command PDU 48 (+ immediate data on writes), Data-In PDUs of 48
    + data on reads with the status on the last one, a 48 B response on
    writes. NFSv3: record mark, RPC call header, AUTH_SYS credential,
    verifier, file handle and arguments; data padded to 4 B. SMB2/3 (and
    the S2D storage bus, which is SMB3): 4 + 64 + 48 (read/write
    request), 4 + 64 + 16 (responses). NVMe/TCP: a 72 B command capsule
    (with the data of a write), a 24 B data PDU header before read data
    and a 24 B response capsule. vSAN's protocol is not published and is
    modelled like iSCSI [Model]. Over RDMA the same messages travel as
    sends and the data as RDMA reads/writes, about the same bytes.
    (protocol-overheads.md section 7.)
    """
    codes = as_codes("protocol", protocol, PROTOCOLS)
    block = np.asarray(block_bytes, dtype=float)
    read = np.asarray(read, dtype=bool)
    padded = np.ceil(block / 4) * 4
    nfs_call = 4 + 24 + (8 + NFS_AUTH_SYS_BODY) + 8 + (4 + NFS_FILE_HANDLE)
    smb_extra = np.where(encrypted, SMB_ENCRYPTION, 0)
    smb = (codes == SMB3) | (codes == S2D)
    kinds = [codes == NFS3, smb, codes == NVMEOF, codes == LOCAL]
    # (read request, read response, write request, write response); NVMe/
    # TCP writes carry their data in the command capsule (in-capsule data)
    table = np.stack(np.broadcast_arrays(
        np.select(kinds, [nfs_call + 12, 4 + 64 + 48 + smb_extra,
                          NVME_TCP_COMMAND, 0], ISCSI_BHS),
        np.select(kinds, [4 + 16 + 8 + 104 + padded,
                          4 + 64 + 16 + block + smb_extra,
                          NVME_TCP_DATA_HEADER + block + NVME_TCP_RESPONSE,
                          0], ISCSI_BHS + block),
        np.select(kinds, [nfs_call + 20 + padded,
                          4 + 64 + 48 + block + smb_extra,
                          NVME_TCP_COMMAND + block, 0], ISCSI_BHS + block),
        np.select(kinds, [4 + 16 + 8 + 136, 4 + 64 + 16 + smb_extra,
                          NVME_TCP_RESPONSE, 0], ISCSI_BHS)))
    to_target = np.where(read, table[0], table[2])
    from_target = np.where(read, table[1], table[3])
    return to_target, from_target


def io_wire_bytes(message_bytes, payload_bytes, frame_overhead_bytes,
                  ack_frame_bytes=84.0, *, reverse_messages=1.0,
                  segments_per_ack=2):
    """Wire bytes of one direction of an IO, and of the ACKs it causes.

    Parameters
    ----------
    message_bytes : array-like of float
        Upper-layer bytes in this direction. [B]
    payload_bytes : array-like of float
        TCP payload per full segment. [B]
    frame_overhead_bytes : array-like of float
        Wire bytes per frame beyond the payload (headers, preamble, gap).
        [B]
    ack_frame_bytes : float, default 84
        A pure ACK on the wire (minimum frame + preamble + gap). [B]
    reverse_messages : array-like of float, default 1
        Messages the other direction sends anyway, which carry ACKs.
    segments_per_ack : int, default 2
        Delayed ACK.

    Returns
    -------
    wire, ack_wire : numpy.ndarray
        Wire bytes in this direction, and pure-ACK bytes it causes in the
        other. [B]

    Notes
    -----
    Each message starts a new segment (low outstanding IO, the
    conservative case): :math:`n = \\lceil bytes / payload \\rceil`.
    """
    message = np.asarray(message_bytes, dtype=float)
    segments = np.ceil(message / np.asarray(payload_bytes, dtype=float))
    wire = message + segments * np.asarray(frame_overhead_bytes)
    acks = np.maximum(np.ceil(segments / segments_per_ack)
                      - np.asarray(reverse_messages), 0.0)
    return wire, acks * ack_frame_bytes


def backend_iops(block_bytes, read_fraction, random_fraction, *,
                 iops_max=np.inf, mbps_max=np.inf, devices=0,
                 device_iops=SPINDLE_15K_IOPS, device_mbps=SPINDLE_15K_MBPS,
                 write_penalty=1.0):
    """IOPS the storage back end sustains for a block size and IO mix.

    Parameters
    ----------
    block_bytes : array-like of float
        [B]
    read_fraction, random_fraction : array-like of float
        Shares of reads and of random IO, 0-1. [1]
    iops_max, mbps_max : array-like of float, default inf
        Published limits of the array or cluster. [1/s], [MB/s]
    devices : array-like of int, default 0
        Spindles or devices behind the data (0: no device limit).
    device_iops, device_mbps : array-like of float
        Random IOPS and sequential MB/s of one device (defaults: a 15K rpm
        spindle). [1/s], [MB/s]
    write_penalty : array-like of float, default 1
        Back-end IOs per random host write (:data:`WRITE_PENALTY`).

    Returns
    -------
    numpy.ndarray
        [1/s]

    Notes
    -----
    Random IO costs :math:`r + p\\,w` device operations per host IO, so
    :math:`IOPS_{rand} = n \\, IOPS_{dev} / (r + p w)`; sequential IO is
    bandwidth-bound, :math:`IOPS_{seq} = n \\, MB/s_{dev} \\cdot 10^6 /
    block` (full-stripe writes, no penalty). The mix is the harmonic
    combination, then capped by the published limits.
    """
    block = require_positive("block_bytes", block_bytes, "B")
    read = require_range("read_fraction", read_fraction, 0, 1)
    random = require_range("random_fraction", random_fraction, 0, 1)
    devices = np.asarray(devices, dtype=float)
    with np.errstate(divide="ignore"):
        rand = np.where(devices > 0, devices * np.asarray(device_iops)
                        / (read + np.asarray(write_penalty) * (1 - read)),
                        np.inf)
        seq = np.where(devices > 0, devices * np.asarray(device_mbps) * MB
                       / block, np.inf)
        mixed = 1.0 / (random / rand + (1 - random) / seq)
    return np.minimum(np.minimum(mixed, np.asarray(iops_max, dtype=float)),
                      np.asarray(mbps_max, dtype=float) * MB / block)


def iops_ceiling(backend, network, cpu):
    """The lowest of the three IOPS ceilings and which one it is.

    Returns
    -------
    ceiling : numpy.ndarray
        [1/s]
    limit : numpy.ndarray of int
        Index into :data:`LIMITS`.
    """
    stacked = np.stack(np.broadcast_arrays(np.asarray(backend, float),
                                           np.asarray(network, float),
                                           np.asarray(cpu, float)))
    limit = np.argmin(stacked, axis=0)
    return np.take_along_axis(stacked, limit[None], 0)[0], limit


def host_wakeup_share(one_io_latency, host_wakeup):
    """Part of a local device's one-IO latency that is the host waking
    for the completion: :data:`HOST_WAKEUP_S`, at most half of it. [s]"""
    return np.minimum(host_wakeup, np.asarray(one_io_latency) / 2)


def storage_chain(protocol, block_bytes, read_fraction, oio, backend,
                  service_time, link_bytes, serving_cores, mtu, ip_version, hz,
                  cores, *, device_servers=0.0, placed_fraction=0.0,
                  timestamps=True, vlan_tags=0,
                  encapsulation_bytes=0, encrypted=False, rdma=False,
                  c_io=20_000.0, c_byte=0.65, c_pkt=10_000.0, c_wire=500.0,
                  aggregate_bytes=AGGREGATE_BYTES,
                  round_trip=NETWORK_ROUND_TRIP_S,
                  rdma_round_trip=RDMA_ROUND_TRIP_S,
                  rdma_message_cycles=RDMA_MESSAGE_CYCLES,
                  host_wakeup=None,
                  mtu_limits=wire.MTU_LIMITS):
    """IOPS, latency and host CPU of storage workloads on the closed-queue
    curve below the back-end, network and CPU ceilings.

    Parameters
    ----------
    protocol : array-like of str or int
        One of :data:`PROTOCOLS` (or its code).
    block_bytes : numeric
        IO size. [B]
    read_fraction : numeric
        Share of reads, 0 to 1.
    oio : numeric
        Outstanding IO (:func:`total_oio`).
    backend : numeric
        IOPS the back end sustains (:func:`backend_iops`). [1/s]
    service_time : numeric
        Unloaded service time of one IO in the back end. [s]
    link_bytes : numeric
        Line rate of the paths together. [B/s]
    serving_cores : numeric
        Cores that serve IO at once: one per connection (iSCSI session,
        SMB or NFS connection, NVMe-oF IO queue) over all paths, at most
        the host's cores; for local IO every core (blk-mq gives each its
        own queue).
    mtu : numeric
        IP MTU; broadcasts against the other inputs (e.g. a column of two
        MTUs per workload). [B]
    ip_version : numeric
        4 or 6.
    hz : numeric
        Core clock. [Hz]
    cores : numeric
        Physical cores of the host.
    device_servers : numeric, default 0
        IOs the back end serves at once, each for ``service_time``: an
        NVMe device's internal parallelism, ``inf`` for a cloud volume
        that serves whatever is in flight up to its cap. 0: an array known
        only by its ceiling, one server at that rate (M/M/1//N). [1]
    placed_fraction : numeric, default 0
        Share of IOs bound to the device unit that holds their data
        (:func:`units_in_service`): the random reads of an NVMe device,
        ``read_fraction × random share``; 0: any free unit serves any IO.
        [1]
    timestamps, vlan_tags, encapsulation_bytes
        Framing, as :func:`models.wire.wire_bytes`.
    encrypted : bool, default False
        SMB3 encryption (adds the transform header).
    rdma : bool, default False
        RDMA transport (SMB Direct, iSER, NVMe-oF/RDMA): the NIC moves the
        data, leaving the per-IO cost and two RDMA messages.
    c_io : numeric, default 20000
        Host cycles per IO, protocol factor included
        (:data:`PROTOCOL_CPU_FACTOR`; models.host presets). [cycles]
    c_byte, c_pkt, c_wire : numeric
        Cycles per payload byte, per stack traversal and per frame
        (models.host presets). [cycles]
    aggregate_bytes : numeric, default :data:`models.host.AGGREGATE_BYTES`
        Largest TSO/LRO aggregate: one stack traversal per this many bytes
        of a message (protocol-overheads.md section 8.2). [B]
    round_trip, rdma_round_trip : numeric
        Network round trip and stack latency over TCP
        (:data:`NETWORK_ROUND_TRIP_S`) and over RDMA
        (:data:`RDMA_ROUND_TRIP_S`). [s]
    rdma_message_cycles : numeric, default :data:`RDMA_MESSAGE_CYCLES`
        Host cycles per RDMA message. [cycles]
    host_wakeup : numeric, optional
        Default :data:`HOST_WAKEUP_S`. Part of a local device's one-IO latency ``service_time`` that is
        the idle host waking for the completion, paid only while one IO is
        in flight (at most half the one-IO latency). [s]
    mtu_limits : tuple of int, default :data:`models.wire.MTU_LIMITS`
        Accepted MTU range. [B]

    Returns
    -------
    dict of numpy.ndarray
        ``iops`` [1/s], ``latency_s`` [s], ``mbps`` [MB/s], ``knee`` (the
        outstanding IO N* = R0 × ceiling), ``ceiling`` [1/s], ``limit``
        (index into :data:`LIMITS`), ``cpu_pct`` [% of the host's cores],
        ``iops_per_cpu_pct`` [IOPS per % of the host's cores].

    Notes
    -----
    Per IO, the request and response messages (:func:`io_message_bytes`)
    cost wire bytes ``W`` each way (:func:`io_wire_bytes`); the network
    ceiling is ``link_bytes / max(W_to, W_from)``. Over TCP the host spends
    ``t = t_s + t_p`` cycles of transport work per IO, the streaming part
    ``t_s = block × c_byte + frames × c_wire`` and the per-traversal part
    ``t_p = traversals × c_pkt``; over RDMA ``t = t_p = 2 ×
    rdma_message_cycles``; and ``c_io`` of storage work either way (local
    IO: ``t = 0``). The CPU ceiling is ``serving_cores × hz / (c_io + t)``,
    one core per connection. The transport work is on the IO's path at
    both ends: the per-byte and per-frame work is done frame by frame as
    the frames cross the wire (the sender copies and hands segments to the
    NIC while earlier ones are on the wire; the receiver takes each
    interrupt batch as it lands), so it overlaps the wire time and only
    the slower of the two counts, while each traversal of the stack waits
    for its whole aggregate. With the round trip ``RTT`` of the transport

    .. math:: R_0 = S + RTT + \\max\\big((W_{to} + W_{from}) / B,\\;
              t_s / f\\big) + 2 t_p / f,

    which is why RDMA lowers latency as well as CPU: at an outstanding IO
    below the knee IOPS follow Little's law ``N / R0``, and the RDMA/TCP
    ratios of IOPS and of IOPS per CPU come from different terms. With the
    lowest ceiling ``X`` the curve is :func:`closed_queue_iops` with the
    back end's ``device_servers`` (or one server at ``X``), and latency
    Little's law ``N / IOPS``. When the network sets ``X`` the bottleneck
    is the wire, whose service time per IO is constant (its bytes at the
    line rate): IOPS are then the asymptotic bound
    :func:`iops_bound`, ``min(N / R0, X)``, exact for a deterministic
    server (validation case NCT-NFS-10G-QD2: two 128 KiB reads in flight
    fill 10 GbE, where the exponential-service curve gives 13 % less).

    References
    ----------
    docs/reference/storage-io.md sections 1-3; protocol-overheads.md
    sections 7 and 8.2.
    """
    protocol = as_codes("protocol", protocol, PROTOCOLS)
    payload = wire.payload_bytes(mtu, ip_version, timestamps=timestamps,
                                 mtu_limits=mtu_limits)
    overhead = wire.wire_bytes(mtu, ip_version, vlan_tags=vlan_tags,
                               encapsulation_bytes=encapsulation_bytes,
                               mtu_limits=mtu_limits) - payload
    read = np.asarray(read_fraction, dtype=float)
    directions = []
    for is_read in (True, False):
        to_bytes, from_bytes = io_message_bytes(protocol, block_bytes,
                                                is_read, encrypted=encrypted)
        to_wire, to_acks = io_wire_bytes(to_bytes, payload, overhead)
        from_wire, from_acks = io_wire_bytes(from_bytes, payload, overhead)
        # every frame costs the driver path; TSO/LRO turn each message
        # into one stack traversal per aggregate
        messages = [np.maximum(b, 1) for b in (to_bytes, from_bytes)]
        directions.append((
            to_wire + from_acks, from_wire + to_acks,
            sum(np.ceil(m / payload) for m in messages),
            sum(np.ceil(m / aggregate_bytes) for m in messages)))
    (r_to, r_from, r_frames, r_passes), (w_to, w_from, w_frames,
                                         w_passes) = directions
    to_target = read * r_to + (1 - read) * w_to
    from_target = read * r_from + (1 - read) * w_from
    frames = read * r_frames + (1 - read) * w_frames
    passes = read * r_passes + (1 - read) * w_passes
    local = protocol == LOCAL
    rdma = np.asarray(rdma, dtype=bool) & ~local
    with np.errstate(divide="ignore"):
        network = np.where(local, np.inf,
                           link_bytes / np.maximum(to_target, from_target))
    streamed = np.where(local | rdma, 0.0,
                        block_bytes * c_byte + frames * c_wire)
    per_traversal = np.select(
        [local, rdma], [0.0, RDMA_MESSAGES_PER_IO * rdma_message_cycles],
        passes * c_pkt)
    transport = streamed + per_traversal
    cycles = c_io + transport
    cpu = serving_cores * hz / cycles
    servers = np.asarray(device_servers, dtype=float)
    parallel = servers > 0
    service_time = np.asarray(service_time, dtype=float)
    wakeup = np.where(local, host_wakeup_share(
        service_time, HOST_WAKEUP_S if host_wakeup is None else host_wakeup),
        0.0)
    service_time = service_time - wakeup
    with np.errstate(divide="ignore", invalid="ignore"):
        device = np.where(parallel, servers / service_time, np.inf)
    ceiling, limit = iops_ceiling(np.minimum(backend, device), network, cpu)
    path = np.where(local, 0.0,
                    np.maximum((to_target + from_target) / link_bytes,
                               streamed / hz)
                    + np.where(rdma, rdma_round_trip, round_trip)
                    + 2 * per_traversal / hz)
    unloaded = np.maximum(service_time + path
                          + np.where(np.asarray(oio) <= 1, wakeup, 0.0),
                          1.0 / ceiling)
    # the wire serialises each IO's bytes at the line rate, a constant
    # service time: N IOs keep it busy as soon as N >= mu R0, the
    # asymptotic bound, where the exponential-service curve bends early
    iops = np.where(
        limit == LIMITS.index("network"),
        iops_bound(oio, ceiling, unloaded),
        closed_queue_iops(
            oio, ceiling, unloaded, servers=np.where(parallel, servers, 1.0),
            service_time=np.where(parallel, service_time, 1.0 / ceiling),
            placed_fraction=placed_fraction))
    cpu_pct = 100 * iops * cycles / (cores * hz)
    return {"iops": iops, "latency_s": oio / iops,
            "mbps": iops * block_bytes / MB, "knee": unloaded * ceiling,
            "limit": limit, "ceiling": ceiling, "cpu_pct": cpu_pct,
            "iops_per_cpu_pct": iops / cpu_pct}


#: Unloaded service time of an array known only by its ceiling (no
#: devices, no published service time) [s]: a write acknowledged from an
#: all-flash array's write cache. No published figure stands behind it:
#: a [Model] assumption, stated with the results wherever it is used
#: (the storage analysis's assumptions); give ``service_time_ms`` to
#: replace it.
DEFAULT_SERVICE_S = 0.5e-3


def device_servers(iops_max, service_s):
    """IOs a multi-queue device must serve at once to reach its rating.

    Parameters
    ----------
    iops_max : numeric
        The device's rated IOPS. [1/s]
    service_s : numeric
        Service time of one IO. [s]

    Returns
    -------
    numeric
        IOs in service at once, at least one. [unitless]

    Notes
    -----
    Little's law, :math:`L = \\lambda W`, rounded up to whole servers:

    .. math:: n = \\max(1, \\lceil \\lambda_{max} \\, t_s \\rceil)

    References
    ----------
    J. D. C. Little, "A proof for the queuing formula L = lambda W",
    Operations Research 9(3), 1961, doi:10.1287/opre.9.3.383.
    """
    return np.maximum(1.0, np.ceil(iops_max * service_s))
