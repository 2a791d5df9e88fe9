"""Host evacuation: platform limits on concurrent live migrations, the
bandwidth concurrent migrations share, the schedule of a migration queue
and a lower bound on the time to empty a host.

Units: bytes [B], seconds [s], rates [B/s]. The schedule functions take
arrays of schedules x VMs and treat every schedule at once (a loop over the
queue position, never over schedules).
"""

from dataclasses import dataclass

import numpy as np

from models.units import MIB


@dataclass(frozen=True)
class PlatformLimits:
    """Concurrency and bandwidth limits a platform puts on live migrations
    leaving one host.

    Attributes
    ----------
    label : str
    concurrency_1g : float
        Concurrent outbound migrations per host on links below 10 Gbit/s
        (inf: no limit of the platform's own).
    concurrency_10g : float
        The same on links of 10 Gbit/s and more.
    bandwidth_per_migration : float
        Ceiling of one migration's rate (inf: none). [B/s]
    stop_rule : str
        Key of :data:`models.migration.STOP_RULES` the platform uses.
    source : str
        The documentation the numbers come from.
    """

    label: str
    concurrency_1g: float
    concurrency_10g: float
    bandwidth_per_migration: float
    stop_rule: str
    source: str


#: Platform presets; each names its documentation.
PLATFORMS = {
    "vsphere": PlatformLimits(
        "vSphere vMotion", 4, 8, np.inf, "vmotion",
        "vCenter limits on simultaneous migrations: network cost 1 per "
        "vMotion against a maximum of 4 on 1GigE and 8 on 10GigE, host "
        "limit 8 (docs.vmware.com vSphere 6.5/6.7 vcenterhost, "
        "GUID-25EA5833); vSphere 7 keeps 8 per host (16 host slots, 2 per "
        "vMotion; VMware performance blog, 'vCenter Limits for Concurrent "
        "vMotion', Feb 2021)"),
    "hyperv": PlatformLimits(
        "Hyper-V live migration", 2, 2, np.inf, "hyperv",
        "Set-VMHost -MaximumVirtualMachineMigrations, default 2 "
        "simultaneous live migrations (Microsoft Tech Community, Failover "
        "Clustering blog, 'Optimizing Hyper-V Live Migrations on an "
        "Hyperconverged Infrastructure', 4 Apr 2019)"),
    "kubevirt": PlatformLimits(
        "KubeVirt", 2, 2, np.inf, "qemu",
        "KubeVirt migration configuration: parallelOutboundMigrationsPerNode "
        "2, parallelMigrationsPerCluster 5, bandwidthPerMigration 0 = "
        "unlimited (OKD 4.22 'Configuring live migration')"),
    "kubevirt_legacy": PlatformLimits(
        "KubeVirt (64Mi per migration)", 2, 2, 64 * MIB, "qemu",
        "kubevirt-config defaults parallelOutboundMigrationsPerNode 2, "
        "parallelMigrationsPerCluster 5, bandwidthPerMigration 64Mi "
        "(OpenShift Container Platform 4.3-4.7 'Live migration limits and "
        "timeouts')"),
    "qemu": PlatformLimits(
        "QEMU (bare)", np.inf, np.inf, 128 * MIB, "qemu",
        "QEMU migration/options.c: max-bandwidth MAX_THROTTLE 128 MiB/s per "
        "migration; no concurrency limit of its own"),
    "proxmox": PlatformLimits(
        "Proxmox VE", np.inf, np.inf, np.inf, "qemu",
        "Proxmox VE migrateall: parallel jobs from max-workers or "
        "datacenter.cfg max_workers (one must be set, no fixed default); "
        "bwlimit 'migration' unset = no per-migration cap (PVE API "
        "nodes/{node}/migrateall, datacenter.cfg bwlimit)"),
    "none": PlatformLimits(
        "no platform limit", np.inf, np.inf, np.inf, "qemu",
        "no platform limit modelled"),
}

#: Orders the evacuation queue can take; ``optimized`` is searched.
ORDERS = ("largest_first", "smallest_first", "hottest_last", "priority",
          "optimized")


def concurrency_limit(platform, link_gbps):
    """Concurrent outbound migrations a platform allows on a link.

    Parameters
    ----------
    platform : str
        Key of :data:`PLATFORMS`.
    link_gbps : numeric
        Speed of the migration link (the fastest NIC carrying it). [Gbit/s]

    Returns
    -------
    numeric
        The limit (inf where the platform sets none).
    """
    preset = PLATFORMS[platform]
    return np.where(np.asarray(link_gbps) >= 10, preset.concurrency_10g,
                    preset.concurrency_1g)


def share_per_migration(aggregate, *, per_migration_cap=np.inf,
                        aggregate_cap=np.inf):
    """Rate each of ``k`` concurrent migrations gets, for k = 1, 2, ...

    Parameters
    ----------
    aggregate : array-like
        Rate the transfer reaches with k sessions, for k = 1..K (the whole
        transport chain: NICs, teaming, RSS, per-stream caps,
        compression). [B/s]
    per_migration_cap : numeric, default inf
        Platform ceiling of one migration. [B/s]
    aggregate_cap : numeric, default inf
        Ceiling of all migrations together (an SMB bandwidth limit on the
        live-migration category). [B/s]

    Returns
    -------
    numpy.ndarray
        Shape K + 1: entry k is the rate of each migration while k run
        (entry 0 is 0). [B/s]

    Notes
    -----
    Fair sharing: :math:`s_k = \\min(\\min(R_k, C) / k, R_1, c)`; one
    migration never gets more than one session reaches alone.
    """
    aggregate = np.minimum(np.asarray(aggregate, dtype=float), aggregate_cap)
    k = np.arange(1, aggregate.size + 1)
    share = np.minimum(np.minimum(aggregate / k, aggregate[0]),
                       per_migration_cap)
    return np.concatenate([[0.0], share])


def shared_queue(work, rate, order, concurrency, share):
    """Event simulation of migration queues whose migrations share a link.

    Each VM, in queue order, starts when a slot frees; while ``n``
    migrations run each progresses at ``share[n]``, so its work (seconds
    at its reference rate) goes down at ``share[n] / rate`` per second.

    Parameters
    ----------
    work : array-like, shape (S, N)
        Each migration's duration at its reference rate. [s]
    rate : array-like, shape (S, N)
        The reference rate of each. [B/s]
    order : array-like of int, shape (S, N)
        VM indices in queue order, per schedule.
    concurrency : array-like of int, shape (S,)
        Migrations running at once, per schedule.
    share : array-like, shape (K + 1,)
        Rate of each migration while k run (:func:`share_per_migration`).
        [B/s]

    Returns
    -------
    start, end : numpy.ndarray, shape (S, N)
        Per VM (by index, not queue position). [s]

    Notes
    -----
    Between two events the number running is constant, so the next event
    is the running migration with the least remaining time
    :math:`w_i r_i / s_n`; every step ends at least one migration in every
    busy schedule, so N steps finish all of them. A VM alone at its
    reference rate ends after exactly its work.
    """
    work = np.asarray(work, dtype=float)
    rate = np.asarray(rate, dtype=float)
    order = np.asarray(order)
    share = np.asarray(share, dtype=float)
    count, vms = work.shape
    concurrency = np.broadcast_to(np.asarray(concurrency), (count,))
    width = int(min(concurrency.max(), vms))
    # the running migrations only, one column per slot: each step costs
    # schedules x slots, not schedules x VMs
    slot_vm = np.full((count, width), -1)
    slot_left = np.zeros((count, width))     # remaining work [s]
    slot_rate = np.ones((count, width))      # reference rate [B/s]
    usable = np.arange(width) < concurrency[:, None]
    start = np.full((count, vms), np.nan)
    end = start.copy()
    queued = np.zeros(count, dtype=int)   # queue position of the next VM
    now = np.zeros(count)
    top = share.size - 1

    def fill(which, slot):
        """Start the next queued VMs of schedules ``which`` on the free
        ``slot``s (rows sorted, as np.nonzero gives them)."""
        several = which.size > 1   # one slot frees at a time, mostly
        position = queued[which]
        if several:  # the k-th free slot of a schedule takes its k-th next
            position = position + np.arange(which.size) - \
                np.searchsorted(which, which)
        go = position < vms
        which, slot, position = which[go], slot[go], position[go]
        vm = order[which, position]
        slot_vm[which, slot] = vm
        slot_left[which, slot] = work[which, vm]
        slot_rate[which, slot] = rate[which, vm]
        start[which, vm] = now[which]
        if several:
            np.add.at(queued, which, 1)
        else:
            queued[which] += 1

    fill(*np.nonzero(usable))
    while True:
        occupied = slot_vm >= 0
        active = np.count_nonzero(occupied, axis=1)
        busy = active > 0
        if not busy.any():
            break
        # above the table: its last aggregate split over more migrations
        level = np.minimum(active, top)
        each = np.where(busy, share[level] * level / np.maximum(active, 1),
                        1.0)
        speed = each[:, None] / slot_rate
        left = np.where(occupied, slot_left / speed, np.inf)
        step = np.where(busy, left.min(axis=1), 0.0)
        done = occupied & (left <= step[:, None])
        slot_left = slot_left - speed * step[:, None]
        now = now + step
        which, slot = np.nonzero(done)
        end[which, slot_vm[which, slot]] = now[which]
        slot_vm[which, slot] = -1
        fill(which, slot)
    return start, end


def makespan_bound(bytes_alone, time_alone, aggregate_max):
    """Lower bound on the time to empty the host.

    Parameters
    ----------
    bytes_alone : array-like
        Bytes each VM sends at the least (one pass of its memory). [B]
    time_alone : array-like
        Each VM's shortest migration time (that pass alone at the fastest
        share). [s]
    aggregate_max : numeric
        Fastest aggregate rate the transfer reaches at any concurrency.
        [B/s]

    Returns
    -------
    float
        :math:`\\max(\\sum_i V_i / R_{max}, \\max_i T_i)` [s]
    """
    return float(max(np.sum(bytes_alone) / aggregate_max,
                     np.max(time_alone)))
