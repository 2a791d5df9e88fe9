"""Host evacuation: platform limits on concurrent live migrations, the
bandwidth concurrent migrations share, the schedule of a migration queue
and a lower bound on the time to empty a host.

Units: bytes [B], seconds [s], rates [B/s]. The schedule functions take
arrays of schedules x VMs. The event simulation of a queue is sequential
by nature (each event depends on the one before) and its state is a few
slots: it runs on Python scalars, one schedule after the other, because
numpy calls on arrays of 1-10 slots cost more per event than the
arithmetic they do (measured: 2-4x).
"""

import bisect
import heapq
import math
from dataclasses import dataclass

import numpy as np

from models._checks import require_positive, require_range
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
    setup_s : float
        Time each migration spends off the link: set-up before the
        memory copy (destination VM created, connection, device
        configuration) and clean-up after the switch-over. [s]
    serial_setup_s : float
        Part of each migration's set-up the host does for one migration
        at a time: migrations started together wait for each other's. [s]
    source : str
        The documentation the numbers come from.
    cluster_limit : float
        Migrations the whole cluster runs at once, so one host's too
        whatever its own setting (inf: none).
    smb_share : float
        Share of the SMB interfaces' line rate that live migration over
        SMB may take together, the cluster keeping the rest (1: all).
    disk_copy_limit : float
        Concurrent outbound migrations per host when each also copies its
        disks (vMotion without shared storage, shared-nothing live
        migration; inf: no limit beyond the others).
    disk_copy_source : str
        The documentation of ``disk_copy_limit``.
    """

    label: str
    concurrency_1g: float
    concurrency_10g: float
    bandwidth_per_migration: float
    stop_rule: str
    setup_s: float
    serial_setup_s: float
    source: str
    cluster_limit: float = math.inf
    smb_share: float = 1.0
    disk_copy_limit: float = math.inf
    disk_copy_source: str = ""


#: Hyper-V's time per live migration off the link that each migration
#: spends on its own [s]: set-up (the destination's skeleton VM and its
#: memory, the TCP connection, the configuration) and, after the
#: switch-over, the storage hand-over, the VM brought online and the
#: unsolicited ARP (the six phases of a Hyper-V live migration: Microsoft
#: Learn 'Live Migration Overview'; 'Live Migration Internals and
#: Optimization', thisismydemo.cloud). With :data:`HYPERV_SERIAL_SETUP_S`
#: calibrated once across the ten published Hyper-V cases (validation
#: files evacuation_hyperv_drains.toml, evacuation_workinghardinit_dynamic_
#: team.toml, evacuation_finn_ws2012r2_8gb.toml) as the smallest pair that
#: holds the most of them (tests/app/test_evacuation_calibration.py
#: re-solves them all on a grid of 0-3 s by 0-0.8 s): 2.0 s and 0.8 s hold
#: seven; no time off the link holds six, 3.0 s and 0.8 s six, any other
#: pair three to five. Finn's
#: 10 GbE drains grow 0.8 s per VM (5, 13, 21 s for 1, 10, 20 VMs, 20
#: allowed at once) with the link far from full, which only a start one
#: migration at a time explains; his one VM takes 7 s on 1 GbE against
#: 4.6 s of copy. Of the three drains it misses, Finn's two on 1 GbE finish
#: faster than their stated memory can cross the link at all, and so
#: does Holman's on 10 GbE, whose 18 set-ups in two slots add 25 s per
#: slot on top (the validation file gives the numbers). A measured time
#: goes in the scenario (evacuations[].setup_s, serial_setup_s).
HYPERV_SETUP_S = 2.0
#: Hyper-V's set-up work done for one migration at a time [s]
#: (migrations started together wait for each other's): see
#: :data:`HYPERV_SETUP_S`, calibrated with it.
HYPERV_SERIAL_SETUP_S = 0.8
#: vMotion's and KubeVirt's time off the link [s]: none modelled, serial
#: or not. The one published vMotion record that separates it, a vSphere 8
#: source host's result (hostd.log, virten.net 'New vMotion Performance
#: Counter in vSphere 8', Jan 2023), has srcMigrationTime 128,762,384 us
#: against memPrecopyTime 128,733,569 us: 29 ms of the host's migration
#: outside the memory copy (0.02 %). vCenter's own task steps before the
#: hosts start (checks, placement) are not published with times; KubeVirt
#: has no such measurement (the single-migration cases time the copy
#: only: QEMU 'total time').
VSPHERE_SETUP_S = KUBEVIRT_SETUP_S = 0.0

#: Hyper-V's limit on migrations that move storage, which a shared-nothing
#: live migration does besides the memory.
HYPERV_STORAGE_MIGRATIONS = (
    "Set-VMHost -MaximumStorageMigrations, default 2 simultaneous storage "
    "migrations; a shared-nothing live migration moves the VM's storage "
    "too (Microsoft Learn, Set-VMHost; 'Live Migration Overview')")

#: Platform presets; each names its documentation.
PLATFORMS = {
    "vsphere": PlatformLimits(
        "vSphere vMotion", 4, 8, np.inf, "vmotion", VSPHERE_SETUP_S, 0.0,
        "vCenter limits on simultaneous migrations: network cost 1 per "
        "vMotion against a maximum of 4 on 1GigE and 8 on 10GigE, host "
        "cost 1 against 8, datastore cost 1 against 128 per shared "
        "datastore, which one host's 8 never reach (docs.vmware.com "
        "vSphere 6.5/6.7 vcenterhost, "
        "GUID-25EA5833); vSphere 7 keeps 8 per host (16 host slots, 2 per "
        "vMotion; VMware performance blog, 'vCenter Limits for Concurrent "
        "vMotion', Feb 2021)",
        disk_copy_limit=2, disk_copy_source=(
            "vMotion without shared storage costs 4 of a host's 8 (and 16 "
            "of 128 per datastore): 2 per host (docs.vmware.com vSphere "
            "6.5/6.7 vcenterhost, GUID-25EA5833)")),
    "hyperv": PlatformLimits(
        "Hyper-V live migration", 2, 2, np.inf, "hyperv", HYPERV_SETUP_S,
        HYPERV_SERIAL_SETUP_S,
        "Set-VMHost -MaximumVirtualMachineMigrations, default 2 "
        "simultaneous live migrations (Microsoft Tech Community, Failover "
        "Clustering blog, 'Optimizing Hyper-V Live Migrations on an "
        "Hyperconverged Infrastructure', 4 Apr 2019)",
        disk_copy_limit=2, disk_copy_source=HYPERV_STORAGE_MIGRATIONS),
    "hyperv_cluster": PlatformLimits(
        "Hyper-V failover cluster (2022-09 update and later)", 1, 1, np.inf,
        "hyperv", HYPERV_SETUP_S, HYPERV_SERIAL_SETUP_S,
        "cluster property MaximumParallelMigrations, default 1 once the "
        "September 2022 cumulative update is installed (Windows Server 2022, "
        "Azure Stack HCI 21H2 and later; Microsoft Failover Clustering "
        "blog, 'New Cluster-Wide Control For Virtual Machine Live "
        "Migrations', 5 Jan 2023); SetSMBBandwidthLimit 1 with "
        "SMBBandwidthLimitFactor 2500 reserves 25 % of the SMB bandwidth "
        "for the cluster, so live migration over SMB takes at most 75 % "
        "(hciharrison.com, 'New Cluster Parameters for Live Migration', "
        "KB5017316, Sep 2022)", smb_share=0.75,
        disk_copy_limit=2, disk_copy_source=HYPERV_STORAGE_MIGRATIONS),
    "kubevirt": PlatformLimits(
        "KubeVirt", 2, 2, np.inf, "qemu", KUBEVIRT_SETUP_S, 0.0,
        "KubeVirt migration configuration: parallelOutboundMigrationsPerNode "
        "2, parallelMigrationsPerCluster 5, bandwidthPerMigration 0 = "
        "unlimited (OKD 4.22 'Configuring live migration')",
        cluster_limit=5),
    "kubevirt_legacy": PlatformLimits(
        "KubeVirt (64Mi per migration)", 2, 2, 64 * MIB, "qemu",
        KUBEVIRT_SETUP_S, 0.0,
        "kubevirt-config defaults parallelOutboundMigrationsPerNode 2, "
        "parallelMigrationsPerCluster 5, bandwidthPerMigration 64Mi "
        "(OpenShift Container Platform 4.3-4.7 'Live migration limits and "
        "timeouts')", cluster_limit=5),
    "qemu": PlatformLimits(
        "QEMU (bare)", np.inf, np.inf, 128 * MIB, "qemu", 0.0, 0.0,
        "QEMU migration/options.c: max-bandwidth MAX_THROTTLE 128 MiB/s per "
        "migration; no concurrency limit of its own"),
    "proxmox": PlatformLimits(
        "Proxmox VE", np.inf, np.inf, np.inf, "qemu", 0.0, 0.0,
        "Proxmox VE migrateall: parallel jobs from max-workers or "
        "datacenter.cfg max_workers (one must be set, no fixed default); "
        "bwlimit 'migration' unset = no per-migration cap (PVE API "
        "nodes/{node}/migrateall, datacenter.cfg bwlimit)"),
    "none": PlatformLimits(
        "no platform limit", np.inf, np.inf, np.inf, "qemu", 0.0, 0.0,
        "no platform limit modelled"),
}

#: Orders the evacuation queue can take; ``optimized`` is searched.
ORDERS = ("largest_first", "smallest_first", "hottest_last", "priority",
          "optimized")


def concurrency_limit(platform, link_gbps, *, host_limit=None,
                      cluster_limit=None, disks_copied=False):
    """Concurrent outbound migrations a platform allows on a link.

    Parameters
    ----------
    platform : str
        Key of :data:`PLATFORMS`.
    link_gbps : numeric
        Speed of the migration link (the fastest NIC carrying it). [Gbit/s]
    host_limit : numeric, optional
        The host's setting when changed from the preset's (Set-VMHost
        -MaximumVirtualMachineMigrations, parallelOutboundMigrationsPerNode,
        max_workers).
    cluster_limit : numeric, optional
        The cluster's setting when changed from the preset's
        (parallelMigrationsPerCluster).
    disks_copied : bool, default False
        Each migration also copies the VM's disks (no shared storage):
        the preset's ``disk_copy_limit`` applies too.

    Returns
    -------
    numeric
        The limit (inf where the platform sets none).

    Notes
    -----
    A host never runs more than the whole cluster may: KubeVirt's
    ``parallelOutboundMigrationsPerNode`` raised to 8 still runs 5 at once
    under the default ``parallelMigrationsPerCluster``.
    """
    preset = PLATFORMS[platform]
    host = np.where(np.asarray(link_gbps) >= 10, preset.concurrency_10g,
                    preset.concurrency_1g) if host_limit is None \
        else host_limit
    if disks_copied:
        host = np.minimum(host, preset.disk_copy_limit)
    return np.minimum(host, preset.cluster_limit if cluster_limit is None
                      else cluster_limit)


def disk_copy_time(disk, rate, write_rate=0.0):
    """Time a migration spends copying a VM's disk over the link while
    the guest keeps writing (vMotion without shared storage, shared-
    nothing live migration, QEMU drive-mirror).

    Parameters
    ----------
    disk : array-like
        Disk data to copy (allocated, not provisioned, size). [B]
    rate : array-like
        Rate the migration gets on the link. [B/s]
    write_rate : array-like, default 0
        Rate the guest writes to its disk during the copy. [B/s]

    Returns
    -------
    numpy.ndarray
        Copy time. [s]

    Notes
    -----
    The copy sweeps the disk once; a write to a part already copied is
    mirrored to the destination over the same link, a write ahead of the
    sweep is picked up by it. With the copied share growing evenly over
    the copy time T the mirrored bytes are :math:`w T / 2`, so
    :math:`R T = D + w T / 2` and

    .. math:: T = \\frac{D}{R - \\min(w, R) / 2}

    The mirror is synchronous (vSphere's mirror driver; QEMU drive-mirror
    in write-blocking mode): a guest writing faster than the link is
    slowed to it, so :math:`T \\le 2 D / R`.

    References
    ----------
    A. Mashtizadeh, E. Celebi, T. Garfinkel, M. Cai, "The Design and
    Evolution of Live Storage Migration in VMware ESX", USENIX ATC 2011
    (the mirror driver of Storage vMotion, ESX 5.0).
    """
    disk = require_range("disk", disk, 0.0, np.inf, "B")
    rate = require_positive("rate", rate, "B/s")
    write_rate = require_range("write_rate", write_rate, 0.0, np.inf, "B/s")
    return disk / (rate - 0.5 * np.minimum(write_rate, rate))


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


def shared_queue(work, rate, order, concurrency, share, *, phases=False):
    """Event simulation of migration queues whose migrations share a link.

    Each VM, in queue order, starts when a slot frees and runs its phases
    in turn. A phase on the link progresses at the share of the moment:
    while ``n`` migrations are on the link each gets ``share[n]``, so its
    work (seconds at its reference rate) goes down at ``share[n] / rate``
    per second, and every start or end of a phase changes the rate of all
    the others. A phase off the link (``rate`` 0: set-up and switch-over
    work of the platform) holds the slot and takes its work in seconds.

    Parameters
    ----------
    work : array-like, shape (S, N) or (S, N, P)
        Each migration's duration at its reference rate, per phase. [s]
    rate : array-like, same shape as ``work``
        The reference rate of each phase; 0 for a phase off the link.
        [B/s]
    order : array-like of int, shape (S, N)
        VM indices in queue order, per schedule.
    concurrency : array-like of int, shape (S,)
        Migrations running at once, per schedule.
    share : array-like, shape (K + 1,)
        Rate of each migration while k are on the link
        (:func:`share_per_migration`). [B/s]
    phases : bool, default False
        Also return when each phase ends.

    Returns
    -------
    start, end : numpy.ndarray, shape (S, N)
        Per VM (by index, not queue position). [s]
    phase_end, phase_share : numpy.ndarray, shape (S, N, P)
        With ``phases``: the end of each phase (a phase of no work ends
        where the one before it does) [s], and the share the VM would get
        on the link just after it, with the others running then and, when
        it leaves the link, those leaving with it (NaN for a phase of no
        work) [B/s].

    Notes
    -----
    Every migration on the link gets the same share, so one clock per
    schedule, the bytes :math:`B(t) = \\int s_{n(t)}\\,dt` each of them
    has been able to send since the start, orders all their phase ends:
    a phase of :math:`w_i r_i` bytes entered at :math:`B_0` ends when
    :math:`B(t) = B_0 + w_i r_i`, whatever starts or ends meanwhile.
    The next event is the earlier of the least such target (reached after
    :math:`(B_{min} - B)/s_n`) and the first end of a phase off the link;
    both wait in heaps, so an event costs O(log c) scalar operations
    rather than array operations over every slot. A VM alone at its
    reference rate ends after its work (to rounding).
    """
    work = np.asarray(work, dtype=float)
    rate = np.asarray(rate, dtype=float)
    if work.ndim == 2:
        work, rate = work[..., None], rate[..., None]
    work, rate = np.broadcast_arrays(work, rate)
    order = np.asarray(order)
    share = np.asarray(share, dtype=float)
    count, vms, stages = work.shape
    concurrency = np.broadcast_to(np.asarray(concurrency), (count,))
    has_work = work > 0
    on_link = rate > 0
    # what a phase takes: bytes on the link, seconds off it
    amount = np.where(on_link, work * rate, work)
    # each migration's rate with n on the link, n = 0..N + 1 (above the
    # table: its last aggregate split over more migrations)
    n = np.arange(vms + 2)
    level = np.minimum(n, share.size - 1)
    each = (share[level] * level / np.maximum(n, 1)).tolist()
    runs = [_queue(amounts, linked, queue, slots, each)
            for amounts, linked, queue, slots in zip(
                amount.tolist(), on_link.tolist(), order.tolist(),
                concurrency.tolist())]
    start, end, phase_end, phase_share = (
        np.array([r[i] for r in runs], dtype=float).reshape(shape)
        for i, shape in enumerate([(count, vms), (count, vms),
                                   work.shape, work.shape]))
    if phases:
        # a phase without work ends where the one before it ends
        before = start
        for p in range(stages):
            phase_end[..., p] = np.where(has_work[..., p], phase_end[..., p],
                                         before)
            before = phase_end[..., p]
        return start, end, phase_end, phase_share
    return start, end


def _queue(amount, linked, order, slots, each):
    """One schedule of :func:`shared_queue` on Python scalars: ``amount``
    and ``linked`` per VM and phase (bytes on the link, or seconds off
    it), the queue, the slots and each migration's rate by number on the
    link. Returns start, end, phase end and phase share lists (the
    phase lists flat, VM by VM)."""
    push, pop = heapq.heappush, heapq.heappop
    vms = len(order)
    stages = len(amount[0]) if vms else 0
    start, end = [math.nan] * vms, [math.nan] * vms
    phase_end = [math.nan] * (vms * stages)     # by vm * stages + phase
    phase_share = [math.nan] * (vms * stages)
    on_now = [False] * vms    # the VM is on the link
    link, off = [], []        # heaps of (clock at a run's end | end of an
    #                           off-link phase, vm, phase)
    inner = []                # (clock at a phase end inside a run, vm, phase)
    # the clock and the time at each event, the number on the link after
    clocks, times, counts = [0.0], [0.0], []
    now = clock = 0.0
    on = running = queued = 0
    ended = []
    while True:
        left = 0   # runs on the link that end at this event
        for _, vm, phase in ended:
            phase_end[vm * stages + phase] = now
            if on_now[vm]:
                on_now[vm] = False
                on -= 1
                left += 1
        # the ended go on to their next phase with work (or end), then
        # free slots take the next queued VMs
        moves = [(vm, phase + 1) for _, vm, phase in ended]
        k = 0
        while True:
            if k < len(moves):
                vm, phase = moves[k]
                k += 1
            elif running < slots and queued < vms:
                vm, phase = order[queued], 0
                queued += 1
                running += 1
                start[vm] = now
            else:
                break
            work, on_link = amount[vm], linked[vm]
            while phase < stages and not work[phase] > 0:
                phase += 1
            if phase == stages:   # no work left: it ends now
                end[vm] = now
                running -= 1
            elif on_link[phase]:
                # the phases on the link from here on are one run: one
                # event at its end, the ends inside it read off the clock
                target = clock + work[phase]
                following = phase + 1
                while True:
                    while following < stages and not work[following] > 0:
                        following += 1
                    if following == stages or not on_link[following]:
                        break
                    inner.append((target, vm, phase))
                    phase = following
                    target += work[phase]
                    following = phase + 1
                push(link, (target, vm, phase))
                on_now[vm] = True
                on += 1
            else:
                push(off, (now + work[phase], vm, phase))
        counts.append(on)
        # the share a phase after this one would get now: the VM on the
        # link with the others, and if it left, with every run that left
        # with it (migrations that end together, as equal ones do, would
        # run a next phase together)
        for _, vm, phase in ended:
            phase_share[vm * stages + phase] = each[
                on + (0 if on_now[vm] else max(left, 1))]
        if not (link or off):
            break
        pace = each[on]
        by_link = (link[0][0] - clock) / pace if link else math.inf
        by_off = off[0][0] - now if off else math.inf
        if by_link <= by_off:   # land exactly on the event
            clock = link[0][0]
            now = off[0][0] if by_link == by_off else now + by_link
        else:
            clock += pace * by_off
            now = off[0][0]
        clocks.append(clock)
        times.append(now)
        ended = []
        while link and link[0][0] <= clock:
            ended.append(pop(link))
        while off and off[0][0] <= now:
            ended.append(pop(off))
    for mark, vm, phase in inner:
        k = bisect.bisect_left(clocks, mark)
        at = vm * stages + phase
        if clocks[k] == mark:
            phase_end[at] = times[k]
        else:   # between events k - 1 and k, at that interval's share
            k -= 1
            phase_end[at] = times[k] + (mark - clocks[k]) / each[counts[k]]
        phase_share[at] = each[counts[k]]
    return start, end, phase_end, phase_share


def makespan_bound(bytes_alone, time_alone, aggregate_max, *, setup=0.0,
                   concurrency=np.inf):
    """Lower bound on the time to empty the host.

    Parameters
    ----------
    bytes_alone : array-like
        Bytes each VM sends at the least (one pass of its memory). [B]
    time_alone : array-like
        Each VM's shortest time on the link (that pass alone at the
        fastest share). [s]
    aggregate_max : numeric
        Fastest aggregate rate the transfer reaches at any concurrency.
        [B/s]
    setup : numeric, default 0
        Each migration's fixed time off the link (set-up and
        switch-over). [s]
    concurrency : numeric, default inf
        Migrations running at once.

    Returns
    -------
    float
        The largest of the volume, longest-VM and slot bounds. [s]

    Notes
    -----
    With :math:`p_i = F + T_i` the least time VM i holds a slot
    (:math:`p_{(1)} \\ge p_{(2)} \\ge ...`) and c slots:

    .. math:: C \\ge \\max\\left(F + \\frac{\\sum_i V_i}{R_{max}},\\;
              p_{(1)},\\; \\frac{\\sum_i p_i}{c},\\; p_{(c)} + p_{(c+1)}
              \\right)

    No byte leaves before the first set-up ends; the link never carries
    more than :math:`R_{max}`; a slot runs one migration at a time, so
    two of the c + 1 longest share one (Graham's bounds for identical
    machines).
    """
    held = np.sort(setup + np.asarray(time_alone, dtype=float))[::-1]
    bounds = [setup + np.sum(bytes_alone) / aggregate_max, held[0]]
    if np.isfinite(concurrency):
        c = int(concurrency)
        bounds.append(held.sum() / c)
        if held.size > c:
            bounds.append(held[c - 1] + held[c])
    return float(max(bounds))


def setup_work(order, concurrency, setup, serial_setup):
    """Each migration's time off the link before its copy.

    Parameters
    ----------
    order : array-like of int, shape (S, N)
        VM indices in queue order, per schedule.
    concurrency : array-like of int, shape (S,)
        Migrations running at once, per schedule.
    setup : float
        Set-up and switch-over work each migration does on its own. [s]
    serial_setup : float
        Set-up work the host does for one migration at a time. [s]

    Returns
    -------
    numpy.ndarray, shape (S, N)
        Per VM (by index, not queue position). [s]

    Notes
    -----
    The first :math:`c` of the queue start together and their starts
    queue: the one at position :math:`k < c` waits for :math:`k` others,

    .. math:: F_k = F + (k + 1)\\,F_s

    Later VMs take a slot as it frees, at moments a whole migration
    apart on each slot, so their starts are taken not to queue:
    :math:`F_k = F + F_s` (exact while slots free at least :math:`F_s`
    apart; slots freeing closer together would wait a little more).

    References
    ----------
    A. Finn, "Windows Server 2012 Hyper-V Concurrent Live Migration & NIC
    Teaming Speed Comparisons", aidanfinn.com/?p=12228 (2012): drains of
    1, 10 and 20 idle VMs with 20 allowed at once over 10 GbE take 5, 13
    and 21 s, 0.8 s more per VM with the link far from full.
    """
    order = np.atleast_2d(order)
    count, vms = order.shape
    concurrency = np.broadcast_to(np.asarray(concurrency), (count,))
    position = np.arange(vms)
    waits = np.where(position < concurrency[:, None], position + 1, 1)
    work = np.empty((count, vms))
    np.put_along_axis(work, order, setup + serial_setup * waits, axis=1)
    return work
