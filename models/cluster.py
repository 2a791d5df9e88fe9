"""Cluster fabric: the network traffic storage replication adds, the data a
failed host leaves to rebuild, and how the links between hosts and their
top-of-rack switches divide between traffic classes in normal operation and
in each failure or maintenance case.

Every function broadcasts over arrays of cases, hosts, links and classes.
"""

import numpy as np

from models._checks import require_choice, require_range
from models.teaming import bandwidth_shares

#: Storage layouts the replication model knows, with the platform that
#: uses each and its redundancy kind.
#:
#: - ``vsan_osa_raid1``, ``vsan_esa_raid1``: FTT + 1 mirrored replicas;
#: - ``vsan_osa_raid5``, ``vsan_osa_raid6``: 3+1 and 4+2 erasure coding,
#:   written in place (read-modify-write of the data and parity chunks);
#: - ``vsan_esa_raid5``, ``vsan_esa_raid6``: ESA's performance leg (an
#:   FTT + 1 mirror) then a full-stripe write of the capacity leg (2+1 on
#:   3-5 hosts, 4+1 from 6 hosts; 4+2);
#: - ``s2d_mirror``: two- or three-way mirror (FTT 1 or 2);
#: - ``s2d_parity``: dual parity (4+2 from 7 hosts, 2+2 below);
#: - ``ceph_replica``: a pool of size FTT + 1 (client to primary OSD, the
#:   primary to the others);
#: - ``ceph_ec``: an erasure-coded pool of ``data_chunks`` + FTT chunks.
LAYOUTS = ("vsan_osa_raid1", "vsan_osa_raid5", "vsan_osa_raid6",
           "vsan_esa_raid1", "vsan_esa_raid5", "vsan_esa_raid6",
           "s2d_mirror", "s2d_parity", "ceph_replica", "ceph_ec")


def minimum_hosts(layout, failures_to_tolerate, data_chunks=4):
    """The fewest hosts a storage layout can be placed on.

    Parameters
    ----------
    layout : str
        One of :data:`LAYOUTS`.
    failures_to_tolerate : int
        Host failures the data survives (vSAN FTT, S2D mirror copies - 1,
        Ceph pool size - 1 or EC coding chunks).
    data_chunks : int, default 4
        Data chunks of an erasure-coded Ceph pool (``k``).

    Returns
    -------
    int

    Notes
    -----
    vSAN RAID-1 places 2 FTT + 1 components (FTT + 1 replicas and FTT
    witnesses) on as many hosts; OSA RAID-5 needs 4 and RAID-6 6 hosts,
    ESA RAID-5 3 (2+1) and RAID-6 6. S2D needs 2 hosts for a two-way
    mirror, 3 for three-way and 4 for dual parity; Ceph with the host as
    failure domain needs a host per replica or chunk.

    References
    ----------
    .. [1] VMware, "vSAN Planning and Deployment" (vSAN 8): "Design
       Considerations for a vSAN Cluster", RAID-1/5/6 host minimums;
       "Adaptive RAID-5 erasure coding" (ESA, 2+1 and 4+1).
    .. [2] Microsoft Learn, "Fault tolerance and storage efficiency in
       Azure Local and Windows Server clusters" (minimum fault domains).
    .. [3] Ceph documentation, "Erasure code" and "Pools" (CRUSH failure
       domain ``host``).
    """
    require_choice("layout", layout, LAYOUTS)
    f = int(failures_to_tolerate)
    return {"vsan_osa_raid1": 2 * f + 1, "vsan_esa_raid1": 2 * f + 1,
            "vsan_osa_raid5": 4, "vsan_osa_raid6": 6,
            "vsan_esa_raid5": 3, "vsan_esa_raid6": 6,
            "s2d_mirror": f + 1, "s2d_parity": 4,
            "ceph_replica": f + 1, "ceph_ec": int(data_chunks) + f}[layout]


def erasure_width(layout, hosts, failures_to_tolerate, data_chunks=4):
    """Data and parity chunks per stripe of a layout on ``hosts`` hosts
    (``(1, FTT)`` for a mirror: one data copy and FTT more).

    Returns
    -------
    tuple of int
        ``(k, m)``.

    References
    ----------
    See :func:`minimum_hosts`. S2D dual parity uses 2+2 on 4-6 fault
    domains and 4+2 from 7 (Microsoft Learn, "Fault tolerance and storage
    efficiency").
    """
    require_choice("layout", layout, LAYOUTS)
    if layout in ("vsan_osa_raid1", "vsan_esa_raid1", "s2d_mirror",
                  "ceph_replica"):
        return 1, int(failures_to_tolerate)
    return {"vsan_osa_raid5": (3, 1), "vsan_osa_raid6": (4, 2),
            "vsan_esa_raid5": (4, 1) if hosts >= 6 else (2, 1),
            "vsan_esa_raid6": (4, 2),
            "s2d_parity": (4, 2) if hosts >= 7 else (2, 2),
            "ceph_ec": (int(data_chunks), int(failures_to_tolerate))}[layout]


def replication_traffic(read_gbps, write_gbps, layout, hosts,
                        failures_to_tolerate, *, data_chunks=4):
    """Network traffic a host's storage IO puts on its links.

    Parameters
    ----------
    read_gbps, write_gbps : array-like
        Front-end reads and writes of the VMs on one host. [Gbit/s]
    layout : str
        One of :data:`LAYOUTS`.
    hosts : int
        Hosts holding the data (the placement is spread over all of them).
    failures_to_tolerate : int
    data_chunks : int, default 4
        ``k`` of a Ceph erasure-coded pool.

    Returns
    -------
    numpy.ndarray
        Network traffic per host, each direction. [Gbit/s]

    Notes
    -----
    None of these platforms places data next to the VM that uses it, so a
    given copy or chunk is on the VM's own host with probability
    :math:`1/N` and crosses the network otherwise. With ``k`` data and
    ``m`` parity chunks (a mirror: ``k = 1``, ``m`` = FTT):

    - mirror: each write goes to :math:`m + 1` copies, each read to one:
      :math:`T = (1 - 1/N)(R + (m + 1) W)`;
    - in-place erasure coding (vSAN OSA RAID-5/6): a small write reads
      and rewrites its data chunk and the ``m`` parity chunks,
      :math:`2 (1 + m)` transfers: :math:`T = (1 - 1/N)(R + 2(1+m) W)`;
    - vSAN ESA: the performance leg (:math:`m + 1` mirrored copies), then
      a full stripe :math:`(k + m)/k`;
    - S2D dual parity: a full stripe :math:`(k + m)/k` per write;
    - Ceph: the client sends each write to the primary OSD, which sends
      it on to the :math:`m` replicas (cluster network), or the
      :math:`k + m - 1` other chunks of :math:`W/k`; an EC read gathers
      :math:`k - 1` chunks at the primary.

    Each host both sends and receives this traffic when the VMs and the
    data are spread evenly (the uniform placement every platform aims
    for), so the result is per direction.

    References
    ----------
    .. [1] VMware, "vSAN Network Design Guide" (vSAN 8), "vSAN traffic
       and its data flow"; "RAID-5/6 with the performance of RAID-1 using
       the vSAN Express Storage Architecture" (VMware blog, 2022).
    .. [2] Microsoft Learn, "Fault tolerance and storage efficiency".
    .. [3] Ceph documentation, "Data replication" (primary OSD writes to
       the secondaries) and "Erasure code".
    """
    require_choice("layout", layout, LAYOUTS)
    read = np.asarray(read_gbps, dtype=float)
    write = np.asarray(write_gbps, dtype=float)
    k, m = erasure_width(layout, hosts, failures_to_tolerate, data_chunks)
    remote = 1.0 - 1.0 / hosts
    if layout in ("vsan_osa_raid1", "vsan_esa_raid1", "s2d_mirror"):
        return remote * (read + (m + 1) * write)
    if layout in ("vsan_osa_raid5", "vsan_osa_raid6"):
        return remote * (read + 2 * (1 + m) * write)
    if layout in ("vsan_esa_raid5", "vsan_esa_raid6"):
        return remote * (read + (m + 1 + (k + m) / k) * write)
    if layout == "s2d_parity":
        return remote * (read + (k + m) / k * write)
    if layout == "ceph_replica":
        return remote * (read + write) + m * write
    return remote * (read + write) + (k + m - 1) / k * write \
        + (k - 1) / k * read


def rebuild_traffic(lost_tib, layout, hosts, failures_to_tolerate, *,
                    data_chunks=4):
    """Bytes the network carries to restore the redundancy a failed host
    held.

    Parameters
    ----------
    lost_tib : array-like
        Data (replicas or chunks) the failed host held. [TiB]
    layout, hosts, failures_to_tolerate, data_chunks
        As in :func:`replication_traffic`.

    Returns
    -------
    numpy.ndarray
        Network bytes of the rebuild. [TiB]

    Notes
    -----
    A mirror copies each lost replica from a surviving one: the lost
    bytes cross the network once. An erasure code reads ``k`` surviving
    chunks for each lost one and writes it on a new host:
    :math:`k + 1` transfers per lost chunk (vSAN and Ceph rebuild at a
    host other than the ones read; Ceph's primary reconstructs and pushes).

    References
    ----------
    .. [1] Ceph documentation, "Erasure code" (recovery reads ``k``
       chunks); VMware, "vSAN Planning and Deployment", "Resynchronizing
       components".
    """
    k, m = erasure_width(layout, hosts, failures_to_tolerate, data_chunks)
    lost = np.asarray(lost_tib, dtype=float)
    return lost if k == 1 else lost * (k + 1)


#: Share of a congested storage class that resync keeps (vSAN 6.7 U1+
#: Adaptive Resync: "resync I/O ... is guaranteed a minimum of 20 % of
#: the bandwidth" under contention; VMware, "Adaptive Resync in vSAN
#: 6.7", 2018). Ceph gives client ops priority over recovery
#: (osd_client_op_priority 63 against osd_recovery_op_priority 3,
#: mClock "high_client_ops" profile), S2D's repair runs as storage
#: traffic without a floor: both 0.
REBUILD_FLOOR = {"vsan": 0.2, "s2d": 0.0, "ceph": 0.0}


def split_storage_class(allocated, production, rebuild_want, floor):
    """Divide a storage class's allocation between production IO and a
    rebuild.

    Parameters
    ----------
    allocated : array-like
        The class's allocation on a link. [Gbit/s]
    production : array-like
        Production storage traffic wanted. [Gbit/s]
    rebuild_want : array-like
        Rebuild traffic wanted (its limit, or the link). [Gbit/s]
    floor : array-like
        Share of the allocation the rebuild keeps under contention, 0-1.

    Returns
    -------
    production_gbps, rebuild_gbps : numpy.ndarray

    Notes
    -----
    .. math:: r = \\min(w_r, \\max(A - p, \\phi A)), \\quad
              p' = \\min(p, A - r)

    Production comes first down to the rebuild's floor :math:`\\phi A`;
    a rebuild that wants less than its floor leaves the rest.
    """
    allocated, production, rebuild_want, floor = np.broadcast_arrays(
        *(np.asarray(a, dtype=float)
          for a in (allocated, production, rebuild_want, floor)))
    rebuild = np.minimum(rebuild_want,
                         np.maximum(allocated - production,
                                    floor * allocated))
    rebuild = np.maximum(rebuild, 0.0)
    return np.minimum(production, allocated - rebuild), rebuild


def link_allocation(demand, shares, capacity, *, reservation=0.0,
                    limit=np.inf):
    """Each class's bandwidth on each link (NIOC shares on a host's
    uplinks, DCB ETS weights on a switch's).

    Parameters
    ----------
    demand : array-like, shape (..., K)
        Traffic each class wants on the link. [Gbit/s]
    shares : array-like, shape (..., K)
        Relative shares or ETS weights.
    capacity : array-like, shape (...)
        Link speed; 0 for a link that is down. [Gbit/s]
    reservation, limit : array-like, optional
        Per class. [Gbit/s]

    Returns
    -------
    numpy.ndarray, shape (..., K)
        Allocation. [Gbit/s]

    Notes
    -----
    Weighted max-min: :func:`models.teaming.bandwidth_shares` (NIOC v3;
    ETS divides a congested port by weight the same way, IEEE 802.1Qaz).
    """
    capacity = np.asarray(capacity, dtype=float)
    up = capacity > 0
    allocated = bandwidth_shares(
        demand, shares, np.where(up, capacity, 1.0),
        reservation=reservation, limit=limit)
    return np.where(up[..., None], allocated, 0.0)


def out_of_rack_fraction(hosts, racks):
    """Share of a host's east-west traffic whose peer is in another rack.

    Parameters
    ----------
    hosts : int
        Hosts in the cluster, spread evenly over ``racks``.
    racks : int

    Returns
    -------
    float

    Notes
    -----
    .. math:: f = \\frac{N - N/R}{N - 1}

    with peers chosen uniformly among the other :math:`N - 1` hosts.
    """
    require_range("hosts", hosts, 2, np.inf)
    return (hosts - hosts / racks) / (hosts - 1)


#: Share of the link rate a rebuild or a data migration turns into moved
#: data: 0.70. Fitted once, as the geometric mean, on the four figures of
#: Red Hat's Ceph hardware guide (1 TB across 1 Gbit/s in 3 h and 3 TB in
#: 9 h: 0.741 of the link; 20 min and 1 h at 10 Gbit/s: 0.667), which
#: leaves each of them within 5.8 % (validation cases CLUSTER-CEPH-RH-1G
#: +5.8 % and -10G -4.8 %; the upstream Ceph documentation's 10 TB in 30 h
#: at 1 Gbit/s, not used in the fit: +5.8 %, CLUSTER-CEPH-DOCS-10TB-1G). TCP/IP
#: framing alone takes 5 % at MTU 1500
#: (:func:`models.wire.efficiency`); the rest is the recovery protocol's
#: per-object round trips and metadata. Ceph figures only: no vSAN or S2D
#: rebuild with its link and bytes stated was found, so the same share
#: stands for them.
REBUILD_EFFICIENCY = 0.70


def rebuild_time(rebuild_tib, rate_gbps, *, efficiency=1.0):
    """Seconds to move ``rebuild_tib`` at ``rate_gbps`` (inf where the
    rate is 0): a rebuild's or an evacuation's bytes.

    Parameters
    ----------
    rebuild_tib : array-like
        Bytes to move. [TiB]
    rate_gbps : array-like
        Link bandwidth the transfer has. [Gbit/s]
    efficiency : float, default 1.0
        Share of that bandwidth that moves data (a rebuild:
        :data:`REBUILD_EFFICIENCY`).

    Returns
    -------
    numpy.ndarray
        [s]

    Notes
    -----
    .. math:: t = \\frac{8 \\cdot 2^{40} B}{\\eta R \\cdot 10^9}
    """
    rate = np.asarray(rate_gbps, dtype=float) * efficiency
    bits = np.asarray(rebuild_tib, dtype=float) * 2.0 ** 40 * 8
    return np.divide(bits, rate * 1e9, out=np.full(np.broadcast(
        bits, rate).shape, np.inf), where=rate > 0)


#: Relative size below which traffic "not carried" is the rounding of
#: the sums of carried traffic, not a loss.
UNMET_RESOLUTION = 1e-9


def fabric_loads(demand, elastic, nic_speed, nic_up, nic_switch,
                 switch_uplink, switch_up, out_fraction, shares, *,
                 reservation=0.0, limit=np.inf, storage_class=None,
                 rebuild_floor=0.0):
    """What each host link and each switch uplink carries, class by class,
    in each case.

    Parameters
    ----------
    demand : array-like, shape (C, H, K)
        Traffic each host sends per class in each case (production: what
        is not carried is lost). [Gbit/s]
    elastic : array-like, shape (C, H, K)
        Traffic that takes whatever its share leaves (a rebuild, a host's
        evacuation): its cap, ``inf`` for none. On the storage class it
        is the rebuild beside production IO. [Gbit/s]
    nic_speed : array-like, shape (H, N)
        Speed of each host's NICs. [Gbit/s]
    nic_up : array-like of bool, shape (C, H, N)
    nic_switch : array-like of int, shape (H, N)
        Switch each NIC links to (index into the switch axis).
    switch_uplink : array-like, shape (S,)
        Uplink capacity of each switch. [Gbit/s]
    switch_up : array-like of bool, shape (C, S)
    out_fraction : array-like, shape (H, K)
        Share of each class's traffic that leaves the rack (or the
        cluster) through its switch's uplinks.
    shares : array-like, shape (K,)
        NIOC shares or ETS weights, the same on every link.
    reservation, limit : array-like, shape (K,), optional
        Per class and link. [Gbit/s]
    storage_class : int or None
        Index of the storage class, whose elastic part is the rebuild
        and keeps ``rebuild_floor`` of the class under contention
        (:func:`split_storage_class`).
    rebuild_floor : float, default 0

    Returns
    -------
    dict of numpy.ndarray
        ``link_load`` (C, H, N): production offered to each host link
        over its speed, 0 for a link down; ``uplink_load`` (C, S): the
        same for each switch's uplinks; ``unmet`` (C, K): production not
        carried, at the hosts and the uplinks [Gbit/s]; ``isolated``
        (C, H): hosts with no link up; ``elastic`` (C, H, K): elastic
        traffic carried by each host after the uplinks [Gbit/s].

    Notes
    -----
    A host spreads each class over its links in proportion to their
    speed (NIOC with load-based teaming, LACP, or SMB/vSAN multipathing
    over several vmknics; the per-host teaming analysis answers a pinned
    policy). Each link divides its speed by weighted max-min
    (:func:`link_allocation`); what the host links carry, times
    ``out_fraction``, is offered to the switch's uplinks, divided the
    same way. Elastic traffic is scaled by the share its uplink carried.
    """
    demand = np.asarray(demand, dtype=float)
    elastic = np.broadcast_to(np.asarray(elastic, dtype=float),
                              demand.shape)
    speed = np.asarray(nic_speed, dtype=float)
    up = np.asarray(nic_up, dtype=bool)
    capacity = np.where(up, speed, 0.0)
    total = capacity.sum(axis=-1, keepdims=True)
    share = np.divide(capacity, total, out=np.zeros_like(capacity),
                      where=total > 0)
    production = demand[:, :, None, :] * share[..., None]
    unbounded = np.isinf(elastic)[:, :, None, :]
    spread = share[..., None]
    extra = np.where(unbounded, np.where(spread > 0, np.inf, 0.0),
                     np.where(unbounded, 0.0, elastic[:, :, None, :])
                     * spread)
    allocated = link_allocation(production + extra, shares, capacity,
                                reservation=reservation, limit=limit)
    carried, elastic_carried = _production_first(
        allocated, production, extra, storage_class, rebuild_floor)
    link_load = np.divide(production.sum(-1), np.where(up, speed, 1.0),
                          out=np.zeros_like(capacity), where=up)
    onehot = (np.asarray(nic_switch)[..., None]
              == np.arange(len(switch_uplink))).astype(float)
    out = np.asarray(out_fraction, dtype=float)
    offered = np.einsum("chnk,hns,hk->csk", carried, onehot, out)
    offered_elastic = np.einsum("chnk,hns,hk->csk", elastic_carried,
                                onehot, out)
    uplink = np.where(np.asarray(switch_up, dtype=bool),
                      np.asarray(switch_uplink, dtype=float), 0.0)
    up_alloc = link_allocation(offered + offered_elastic, shares, uplink,
                               reservation=reservation, limit=limit)
    up_carried, up_elastic = _production_first(
        up_alloc, offered, offered_elastic, storage_class, rebuild_floor)
    uplink_load = np.divide(offered.sum(-1), np.where(uplink > 0, uplink,
                                                      1.0),
                            out=np.zeros_like(uplink), where=uplink > 0)
    # elastic traffic leaving through a switch goes at the rate its
    # uplinks let through
    ratio = np.divide(up_elastic, offered_elastic,
                      out=np.ones_like(up_elastic),
                      where=offered_elastic > 0)
    at_nic = np.einsum("csk,hns->chnk", ratio, onehot)
    through = (elastic_carried * (1.0 - out[:, None, :]
                                  + out[:, None, :] * at_nic)).sum(axis=2)
    unmet = (production.sum(axis=(1, 2)) - carried.sum(axis=(1, 2))
             + offered.sum(axis=1) - up_carried.sum(axis=1))
    lost = demand.sum(axis=1) - production.sum(axis=(1, 2))
    unmet = unmet + lost
    # what the sums leave of a fully carried class is rounding, not loss
    unmet = np.where(unmet > UNMET_RESOLUTION * demand.sum(axis=1),
                     unmet, 0.0)
    return {"link_load": link_load, "uplink_load": uplink_load,
            "unmet": unmet,
            "isolated": total[..., 0] <= 0,
            "elastic": through}


def _production_first(allocated, production, extra, storage_class, floor):
    """Split each class's allocation between its production part (first)
    and its elastic part; the storage class keeps ``floor`` for its
    rebuild (:func:`split_storage_class`)."""
    carried = np.minimum(production, allocated)
    elastic = allocated - carried
    if storage_class is not None:
        k = storage_class
        carried_k, elastic_k = split_storage_class(
            allocated[..., k], production[..., k], extra[..., k], floor)
        carried[..., k], elastic[..., k] = carried_k, elastic_k
    return carried, elastic
