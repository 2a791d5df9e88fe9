"""models.evacuation: platform presets against their documentation, fair
sharing, the shared-link queue against hand-worked processor-sharing
schedules, and the makespan bound."""

import numpy as np
import pytest

from models import evacuation as ev

MIB = 2 ** 20


@pytest.mark.parametrize("platform, link_gbps, limit", [
    # vCenter network limits: 4 vMotions on 1GigE, 8 on 10GigE
    # (docs.vmware.com vSphere 6.5/6.7 GUID-25EA5833), 8 per host on
    # faster links (VMware performance blog, Feb 2021)
    ("vsphere", 1, 4), ("vsphere", 10, 8), ("vsphere", 100, 8),
    # Hyper-V: 2 simultaneous live migrations by default (Microsoft Tech
    # Community Failover Clustering blog, 4 Apr 2019)
    ("hyperv", 10, 2),
    # KubeVirt: parallelOutboundMigrationsPerNode 2 (OKD/OpenShift docs)
    ("kubevirt", 25, 2), ("kubevirt_legacy", 10, 2),
    ("proxmox", 10, np.inf),
])
def test_concurrency_limits_are_the_documented_defaults(platform, link_gbps,
                                                        limit):
    assert ev.concurrency_limit(platform, link_gbps) == limit


@pytest.mark.parametrize("platform, link_gbps, limit", [
    # vMotion without shared storage costs 4 of a host's 8 (and 16 of 128
    # per datastore): 2 per host whatever the link (GUID-25EA5833)
    ("vsphere", 1, 2), ("vsphere", 10, 2),
    # Hyper-V: 2 simultaneous storage migrations by default (Set-VMHost
    # -MaximumStorageMigrations)
    ("hyperv", 10, 2), ("hyperv_cluster", 10, 1),
    # KubeVirt and Proxmox put no separate limit on migrations that copy
    ("kubevirt", 25, 2), ("proxmox", 10, np.inf),
])
def test_copying_disks_applies_the_storage_migration_limit(platform,
                                                           link_gbps, limit):
    assert ev.concurrency_limit(platform, link_gbps,
                                disks_copied=True) == limit
    assert all(p.disk_copy_source for p in ev.PLATFORMS.values()
               if np.isfinite(p.disk_copy_limit))


def test_disk_copy_time_mirrors_writes_to_the_copied_part():
    disk, rate = 100 * 2 ** 30, 1e9
    # no writes: one sweep at the link's rate
    assert ev.disk_copy_time(disk, rate) == pytest.approx(disk / rate)
    # writes at w: the link carries the disk and, on average over the
    # sweep, half the writes (those landing behind it): R T = D + w T / 2
    w = 200e6
    copy = ev.disk_copy_time(disk, rate, w)
    assert rate * copy == pytest.approx(disk + w * copy / 2)
    # a guest writing faster than the link is held to it by the
    # synchronous mirror: never more than twice the idle copy
    np.testing.assert_allclose(
        ev.disk_copy_time(disk, rate, [1e9, 5e9]), 2 * disk / rate)
    # broadcasts over VMs; nothing to copy takes no time
    np.testing.assert_allclose(ev.disk_copy_time([0.0, disk], rate),
                               [0.0, disk / rate])
    with pytest.raises(ValueError, match="write_rate must be between 0"):
        ev.disk_copy_time(disk, rate, -1.0)
    with pytest.raises(ValueError, match="rate must be a finite number > 0"):
        ev.disk_copy_time(disk, 0.0)


def test_per_migration_bandwidth_presets():
    # bandwidthPerMigration 64Mi in kubevirt-config up to OpenShift 4.7;
    # QEMU MAX_THROTTLE 128 MiB/s (migration/options.c)
    assert ev.PLATFORMS["kubevirt_legacy"].bandwidth_per_migration == \
        64 * MIB
    assert ev.PLATFORMS["qemu"].bandwidth_per_migration == 128 * MIB
    assert all(p.source for p in ev.PLATFORMS.values())


def test_share_splits_the_aggregate_and_respects_caps():
    # a link that gives 1000 B/s to one session and 1500 to two or more
    share = ev.share_per_migration([1000.0, 1500.0, 1500.0])
    np.testing.assert_allclose(share, [0, 1000, 750, 500])
    # a platform ceiling per migration
    capped = ev.share_per_migration([1000.0, 1500.0],
                                    per_migration_cap=600.0)
    np.testing.assert_allclose(capped, [0, 600, 600])
    # two sessions never give one migration more than one session alone
    assert ev.share_per_migration([1000.0, 3000.0])[2] == 1000.0
    # a ceiling on all of them together (an SMB bandwidth limit)
    total = ev.share_per_migration([1000.0, 1500.0], aggregate_cap=800.0)
    np.testing.assert_allclose(total, [0, 800, 400])


def test_single_vm_ends_after_exactly_its_work():
    start, end = ev.shared_queue([[37.25]], [[123.0]], [[0]], [1],
                                 [0.0, 123.0])
    assert start[0, 0] == 0 and end[0, 0] == 37.25


def test_processor_sharing_schedule_by_hand():
    # link R = 100 B/s split equally; works A = 10 s and B = 20 s at R.
    # Together each progresses at 1/2: A ends at 20 s, B then has 10 s
    # left alone: ends at 30 s (work conserving: 10 + 20).
    share = [0.0, 100.0, 50.0]
    work = [[10.0, 20.0]]
    rate = [[100.0, 100.0]]
    start, end = ev.shared_queue(work, rate, [[0, 1]], [2], share)
    np.testing.assert_allclose(start, [[0, 0]])
    np.testing.assert_allclose(end, [[20, 30]])
    # one at a time: sequential sums, in queue order
    start, end = ev.shared_queue(work, rate, [[1, 0]], [1], share)
    np.testing.assert_allclose(start, [[20, 0]])
    np.testing.assert_allclose(end, [[30, 20]])


def test_queue_starts_the_next_vm_when_a_slot_frees():
    # three equal VMs, two slots, a link that does not grow with sessions:
    # the first two share it and end together at 2 w; the third runs alone
    work = np.full((1, 3), 5.0)
    rate = np.full((1, 3), 10.0)
    start, end = ev.shared_queue(work, rate, [[0, 1, 2]], [2],
                                 [0.0, 10.0, 5.0])
    np.testing.assert_allclose(start, [[0, 0, 10]])
    np.testing.assert_allclose(end, [[10, 10, 15]])


def test_schedules_are_simulated_side_by_side():
    work = np.array([[10.0, 20.0], [10.0, 20.0]])
    rate = np.full((2, 2), 100.0)
    start, end = ev.shared_queue(work, rate, [[0, 1], [0, 1]], [2, 1],
                                 [0.0, 100.0, 50.0])
    np.testing.assert_allclose(end, [[20, 30], [10, 30]])


def test_makespan_bound_is_the_larger_of_volume_and_longest_vm():
    assert ev.makespan_bound([100.0, 300.0], [1.0, 2.0], 100.0) == 4.0
    assert ev.makespan_bound([100.0, 300.0], [1.0, 9.0], 100.0) == 9.0


def test_setup_holds_the_slot_off_the_link():
    # link R = 100 B/s, one session 100, two 50 each. A: 5 s of set-up,
    # then 10 s of work at R; B: no set-up, 10 s of work. Both start at 0:
    # B is alone on the link for 5 s (5 s of work done), then both share:
    # B's remaining 5 s take 10 s (ends 15); A has done 5 s by then and
    # ends alone 5 s later (20 = 5 + 10 + 5: the link never idles).
    share = [0.0, 100.0, 50.0]
    work = [[[5.0, 10.0], [0.0, 10.0]]]
    rate = [[[0.0, 100.0], [0.0, 100.0]]]
    start, end, phase_end, moment = ev.shared_queue(
        work, rate, [[0, 1]], [2], share, phases=True)
    np.testing.assert_allclose(start, [[0, 0]])
    np.testing.assert_allclose(end, [[20, 15]])
    # B's empty set-up ends where it starts; A's set-up ends at 5 s
    np.testing.assert_allclose(phase_end, [[[5, 20], [0, 15]]])
    # the share a next phase would get: after A's set-up, with B (50 B/s);
    # had B gone on at 15 s, with A (50 B/s); A at the end alone (100 B/s)
    np.testing.assert_allclose(moment, [[[50, 100], [np.nan, 50]]])
    # one slot: set-ups add up in series with the copies
    _, end = ev.shared_queue(work, rate, [[0, 1]], [1], share)
    np.testing.assert_allclose(end, [[15, 25]])


def test_serial_setups_queue_in_the_first_wave_only():
    # set-up 1 s of each migration's own, 0.5 s one at a time. Queue
    # VM 2, VM 0, VM 1 on 2 slots: the first two start together, the
    # second waits for the first's serial part (1 + 2 x 0.5); VM 1 takes a
    # slot when one frees and waits for none (1 + 0.5).
    np.testing.assert_allclose(
        ev.setup_work([[2, 0, 1]], [2], 1.0, 0.5), [[2.0, 1.5, 1.5]])
    # all at once: the k-th of the queue waits for k serial set-ups
    np.testing.assert_allclose(
        ev.setup_work([[0, 1, 2], [2, 1, 0]], [3, 5], 0.0, 0.5),
        [[0.5, 1.0, 1.5], [1.5, 1.0, 0.5]])


def test_serial_setups_hide_on_a_full_link_and_show_on_a_fast_one():
    # three VMs of 10 s of copy at 100 B/s, all started together, 1 s of
    # serial set-up each (none of their own): starts at 1, 2 and 3 s.
    fixed = ev.setup_work([[0, 1, 2]], [3], 0.0, 1.0)
    work = np.stack([fixed, np.full((1, 3), 10.0)], axis=-1)
    rate = np.stack([np.zeros((1, 3)), np.full((1, 3), 100.0)], axis=-1)
    # a link of 100 B/s shared fairly: busy from the first start on, the
    # 3000 B take 30 s: only the first set-up shows (31 s)
    _, end = ev.shared_queue(work, rate, [[0, 1, 2]], [3],
                             [0.0, 100.0, 50.0, 100 / 3])
    assert end.max() == pytest.approx(31.0)
    # a link ten times faster (100 B/s each, whatever the count): every
    # copy runs alone-fast and the last starts after three set-ups (13 s)
    _, end = ev.shared_queue(work, rate, [[0, 1, 2]], [3],
                             [0.0, 100.0, 100.0, 100.0])
    np.testing.assert_allclose(end, [[11.0, 12.0, 13.0]])


def test_makespan_bound_with_setup_and_slots():
    # setup 1 s; VMs alone 4, 3, 3 s on the link, 100 B/s at most.
    # volume: 1 + 600/100 = 7; slots (c = 2): held 5, 4, 4: sum/2 = 6.5,
    # p(2) + p(3) = 8 (two of the three share a slot): 8.
    assert ev.makespan_bound([200.0, 200.0, 200.0], [4.0, 3.0, 3.0], 100.0,
                             setup=1.0, concurrency=2) == 8.0
    # without a slot limit only the volume and longest VM bounds apply
    assert ev.makespan_bound([200.0, 200.0, 200.0], [4.0, 3.0, 3.0], 100.0,
                             setup=1.0) == 7.0


def _stepped_queue(work, rate, order, concurrency, share):
    """The event simulation stepped the plain way, one schedule and one
    event at a time: every running phase's time left at the shares of the
    moment, the least of them ends (what shared_queue's byte clock and
    heaps must reproduce)."""
    count, vms, stages = work.shape
    start, end = np.full((count, vms), np.nan), np.full((count, vms), np.nan)
    phase_end = np.full(work.shape, np.nan)
    phase_share = np.full(work.shape, np.nan)

    def each(n):
        level = min(n, len(share) - 1)
        return share[level] * level / max(n, 1)

    for s in range(count):
        queue, running, now = list(order[s]), {}, 0.0

        def next_phase(vm, p):
            while p < stages and work[s, vm, p] <= 0:
                p += 1
            return p

        def admit():
            while len(running) < concurrency[s] and queue:
                vm = queue.pop(0)
                start[s, vm] = now
                p = next_phase(vm, 0)
                if p == stages:
                    end[s, vm] = now
                else:
                    running[vm] = [p, work[s, vm, p]]

        def on_link():
            return sum(rate[s, vm, p] > 0 for vm, (p, _) in running.items())

        admit()
        while running:
            rate_now = each(on_link())
            speed = {vm: rate_now / rate[s, vm, p] if rate[s, vm, p] > 0
                     else 1.0 for vm, (p, _) in running.items()}
            step = min(left / speed[vm] for vm, (_, left) in running.items())
            now += step
            done = [(vm, p) for vm, (p, left) in running.items()
                    if left / speed[vm] <= step]
            for vm, state in running.items():
                state[1] -= speed[vm] * step
            for vm, p in done:
                phase_end[s, vm, p] = now
                q = next_phase(vm, p + 1)
                if q == stages:
                    del running[vm]
                    end[s, vm] = now
                else:
                    running[vm] = [q, work[s, vm, q]]
            admit()
            for vm, p in done:
                away = vm not in running or rate[s, vm, running[vm][0]] <= 0
                phase_share[s, vm, p] = each(on_link() + away)
        before = start[s]
        for p in range(stages):
            phase_end[s, :, p] = np.where(work[s, :, p] > 0,
                                          phase_end[s, :, p], before)
            before = phase_end[s, :, p]
    return start, end, phase_end, phase_share


@pytest.mark.parametrize("seed", range(6))
def test_shared_queue_equals_the_stepped_simulation(seed):
    # random queues of set-up off the link (some without), a first pass
    # and later rounds on it (some without), concurrency 1 to all VMs and
    # a share table shorter than the concurrency (its last aggregate split
    # further). The two procedures add the same times in another order:
    # they agree to rounding over ~100 events (1e-9 is far above that and
    # far below any time the model resolves).
    rng = np.random.default_rng(seed)
    count, vms = 5, 9
    setup = rng.uniform(0, 3, (count, vms)) * (rng.random((count, vms)) < .6)
    work = np.stack([setup, rng.uniform(1, 20, (count, vms)),
                     rng.uniform(0, 6, (count, vms))
                     * (rng.random((count, vms)) < 0.7)], axis=-1)
    rate = np.stack([np.zeros((count, vms)),
                     rng.uniform(40, 100, (count, vms)),
                     rng.uniform(40, 100, (count, vms))], axis=-1)
    order = np.array([rng.permutation(vms) for _ in range(count)])
    concurrency = rng.integers(1, vms + 1, count)
    share = np.concatenate([[0.0], 100 / np.arange(1, 6)
                            * np.array([1.0, 1.7, 2.2, 2.4, 2.5])])
    fast = ev.shared_queue(work, rate, order, concurrency, share,
                           phases=True)
    for mine, theirs in zip(fast, _stepped_queue(work, rate, order,
                                                 concurrency, share)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-9)
