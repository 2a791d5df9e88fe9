"""Load-aware teaming policies as time simulations over a demand series:
vSphere Load-Based Teaming, Open vSwitch bond rebalancing, Linux
balance-tlb/alb and Windows Dynamic.

Each simulation loops over the policy's own epochs (30 s, 10 s...), never
over time steps or flows: within an epoch the placement is fixed and loads
come from whole-array sums. Each returns the member of every unit at every
time step, shape (T, units), from which the caller sums member loads.
Rules that the vendors do not publish are parameters with the defaults of
docs/reference/teaming.md and are labelled [Model] there.
"""

import contextlib
import contextvars

import numpy as np

from models.teaming import (LBT_MAX_MOVES_PER_UPLINK, LBT_PERIOD_S,
                            LBT_TARGET_RULES, LBT_THRESHOLD_PCT,
                            TLB_REBALANCE_S, member_loads)
from models.units import GBIT_BYTES, gbps_to_bytes_per_s
from solvers.placement import lpt


#: Open vSwitch bond constants (ovs ofproto/bond.c, lib/dpif.h; O1).
OVS_BUCKETS = 256
OVS_MIN_OVERLOAD_BYTES = 100_000

#: Linux balance-tlb/alb constants (include/net/bond_alb.h; T1).
TLB_BUCKETS = 256


#: While set (:func:`threshold_comparisons`), the list each :func:`lbt`
#: run appends the utilizations it compares with its threshold to.
_COMPARED = contextvars.ContextVar("lbt_compared", default=None)


@contextlib.contextmanager
def threshold_comparisons():
    """Collect the utilizations every :func:`lbt` run in the block compares
    with its threshold (``u <= threshold``), as a list of floats.

    A run decides only through those comparisons, so a threshold that
    gives each of them the same outcome makes the same moves: thresholds
    :math:`\\theta` with :math:`a \\le \\theta < b`, :math:`a` the
    largest compared value at most the run's threshold and :math:`b` the
    smallest above it, all simulate alike (what :func:`lbt_classes` does
    with them; its tests take the class edges from here)."""
    values = []
    token = _COMPARED.set(values)
    try:
        yield values
    finally:
        _COMPARED.reset(token)


def _epochs(steps, period_steps):
    """Start and end step of each epoch; the last one may be short."""
    starts = np.arange(0, steps, period_steps)
    return starts, np.minimum(starts + period_steps, steps)


def _epoch_means(rate, starts, ends):
    cumulative = np.concatenate([np.zeros((1,) + rate.shape[1:]),
                                 np.cumsum(rate, axis=0)])
    return (cumulative[ends] - cumulative[starts]) \
        / (ends - starts)[:, None]


def lbt(tx, rx, speed, initial, *, period_steps=round(LBT_PERIOD_S),
        threshold=LBT_THRESHOLD_PCT / 100, target_rule="stay_below",
        max_moves_per_uplink=LBT_MAX_MOVES_PER_UPLINK, allowed=None):
    """vSphere Load-Based Teaming ("Route based on physical NIC load").

    Parameters
    ----------
    tx, rx : array-like of float, shape (T, P)
        Transmit and receive rate of each virtual port per time step.
        [Gbit/s]
    speed : array-like of float, shape (U,)
        Uplink speeds. [Gbit/s]
    initial : array-like of int, shape (P,)
        Uplink of each port at the start (originating-port placement).
    period_steps : int, default 30
        Evaluation period in time steps (:data:`LBT_PERIOD_S` at 1 s
        steps). [Doc]
    threshold : float, default 0.75
        Mean utilization over a period above which an uplink sheds a port
        (:data:`LBT_THRESHOLD_PCT`). [Doc]
    target_rule : str, default 'stay_below'
        One of :data:`LBT_TARGET_RULES`. [Model]
    max_moves_per_uplink : int, default 1
        Ports moved from one uplink per period
        (:data:`LBT_MAX_MOVES_PER_UPLINK`). [Model]
    allowed : array-like of bool, shape (U,), optional
        Uplinks that may receive a port (failed ones excluded).

    Returns
    -------
    member : numpy.ndarray of int, shape (T, P)
        Uplink of each port at each step.
    moves : list of (int, int, int, int)
        ``(step, port, from, to)``: a move decided at the end of a period
        takes effect at ``step``.

    Notes
    -----
    At the end of each period, with :math:`u_k = \\max(\\bar{tx}_k,
    \\bar{rx}_k) / C_k` over the period, every uplink with
    :math:`u_k > threshold` (busiest first) moves its port with the largest
    :math:`\\max(\\bar{tx}, \\bar{rx})` to the uplink where the port's
    addition gives the lowest utilization, subject to the target rule
    (teaming.md section 2.6).
    """
    placement, first_step, moves, _ = lbt_classes(
        tx, rx, speed, initial, [threshold], period_steps=period_steps,
        target_rule=target_rule, max_moves_per_uplink=max_moves_per_uplink,
        allowed=allowed)
    steps = np.diff(np.append(first_step, np.shape(tx)[0]))
    return np.repeat(placement[0], steps, axis=0), moves[0]


def lbt_classes(tx, rx, speed, initial, thresholds, *, period_steps=30,
                target_rule="stay_below", max_moves_per_uplink=1,
                allowed=None):
    """:func:`lbt` at every threshold of ``thresholds`` at once, simulated
    once per class of thresholds that take the same decisions.

    Parameters
    ----------
    thresholds : array-like of float, shape (N,)
        Thresholds in ascending order. [1]
    tx, rx, speed, initial, period_steps, target_rule, \
max_moves_per_uplink, allowed
        As in :func:`lbt`.

    Returns
    -------
    placement : numpy.ndarray of int, shape (C, E, P)
        Uplink of each port in each period, per class.
    first_step : numpy.ndarray of int, shape (E,)
        Each period's first time step.
    moves : list of C lists
        Each class's moves, as :func:`lbt` gives them.
    first : numpy.ndarray of int, shape (C,)
        Class ``c`` holds ``thresholds[first[c]:first[c + 1]]`` (the
        last one up to the end).

    Notes
    -----
    LBT reads its threshold only in comparisons :math:`u \\le \\theta`.
    The simulation keeps one row per class, a run of consecutive
    thresholds, and steps all rows together; a comparison whose
    :math:`u` lies among a row's thresholds splits it in two (those below
    :math:`u` and the rest), each then going its own way. Every row does
    exactly the arithmetic :func:`lbt` does at any of its thresholds, so
    each threshold's result is bit for bit its own run's.
    """
    tx = np.asarray(tx, dtype=float)
    rx = np.asarray(rx, dtype=float)
    speed = np.asarray(speed, dtype=float)
    thresholds = np.asarray(thresholds, dtype=float)
    if target_rule not in LBT_TARGET_RULES:
        raise ValueError(f"lbt target_rule must be one of "
                         f"{LBT_TARGET_RULES}, got {target_rule!r}")
    barred = None if allowed is None else ~np.asarray(allowed, dtype=bool)
    steps, ports = tx.shape
    members = speed.size
    starts, ends = _epochs(steps, period_steps)
    tx_mean, rx_mean = _epoch_means(tx, starts, ends), \
        _epoch_means(rx, starts, ends)
    rates = np.stack([tx_mean, rx_mean], axis=1)   # (epochs, 2, ports)
    initial = np.array(initial, dtype=np.int64)
    if target_rule == "stay_below" and barred is not None \
            and (~barred).sum() <= 1 and not barred[initial].any():
        # a port moves only to another allowed uplink: there is none
        return (np.broadcast_to(initial, (1, starts.size, ports)).copy(),
                starts, [[]], np.zeros(1, dtype=np.int64))
    rows = {"current": initial[None, :],
            "lo": np.zeros(1, dtype=np.int64),
            "hi": np.full(1, thresholds.size, dtype=np.int64),
            "history": np.empty((1, starts.size, ports), dtype=np.int64)}
    moves = [[]]
    compared = _COMPARED.get()

    def at_most_threshold(value, asking, *carried):
        # ``value <= threshold`` for each row that asks (others: any),
        # splitting the rows whose thresholds lie on both sides; the
        # ``carried`` per-row arrays grow with them
        if compared is not None:
            compared.extend(value[asking].tolist())
        cut = thresholds.searchsorted(value)   # value <= from here on
        straddles = (rows["lo"] < cut) & (cut < rows["hi"]) & asking
        if straddles.any():
            split = straddles.nonzero()[0]
            for name, array in rows.items():
                rows[name] = np.concatenate([array, array[split]])
            rows["lo"][-split.size:] = cut[split]
            rows["hi"][split] = cut[split]
            moves.extend(list(moves[i]) for i in split)
            splits.extend(zip(split.tolist(),
                              range(cut.size, cut.size + split.size)))
            cut, *carried = (np.concatenate([a, a[split]])
                             for a in (cut, *carried))
        return (cut <= rows["lo"], *carried)

    idle = False   # the last period changed nothing
    for epoch, (start, end) in enumerate(zip(starts, ends)):
        rows["history"][:, epoch] = rows["current"]
        if end - start < period_steps or members < 2:
            continue   # a short last period is never evaluated
        if idle and (rates[epoch] == rates[epoch - 1]).all():
            continue   # the same rates on the same placements: idle again
        port_tx, port_rx = tx_mean[epoch], rx_mean[epoch]
        port_rate = np.maximum(port_tx, port_rx)
        count = rows["lo"].size
        moved_any = False
        splits = []   # (row, the row split off it) in this period
        # each row's bincount of its ports' transmit and receive rates,
        # summed in port order as lbt's
        index = (rows["current"] + members * np.arange(count)[:, None])
        loads = np.bincount(
            np.concatenate([index, index + members * count]).ravel(),
            np.broadcast_to(rates[epoch][:, None], (2, count, ports)).ravel(),
            2 * members * count).reshape(2, count, members)
        start_util = np.maximum(loads[0], loads[1]) / speed
        rows["loads"] = loads.transpose(1, 0, 2)   # row, tx/rx, uplink
        # only uplinks over the threshold when the period ends shed ports,
        # so a port is not moved back within the same cycle
        rows["order"] = np.argsort(-start_util, axis=1, kind="stable")
        rows["ranked_util"] = -np.sort(-start_util, axis=1)   # by order
        rows["shedding"] = np.ones(count, dtype=bool)
        for rank in range(members):
            stops, = at_most_threshold(rows["ranked_util"][:, rank],
                                       rows["shedding"])
            rows["shedding"] &= ~stops
            if not rows["shedding"].any():
                break
            rows["moving"] = rows["shedding"].copy()
            for _ in range(max_moves_per_uplink):
                every = np.arange(rows["lo"].size)
                source = rows["order"][:, rank]
                load_tx, load_rx = rows["loads"][:, 0], rows["loads"][:, 1]
                util = np.maximum(load_tx[every, source],
                                  load_rx[every, source]) / speed[source]
                on_source = rows["current"] == source[:, None]
                rows["moving"] &= on_source.any(axis=1)
                stops, util, on_source = at_most_threshold(
                    util, rows["moving"], util, on_source)
                rows["moving"] &= ~stops
                if not rows["moving"].any():
                    break
                every = np.arange(rows["lo"].size)
                source = rows["order"][:, rank]
                load_tx, load_rx = rows["loads"][:, 0], rows["loads"][:, 1]
                # the port with the largest rate, the first of equals
                port = np.where(on_source, port_rate, -np.inf).argmax(axis=1)
                after = np.maximum(load_tx + port_tx[port][:, None],
                                   load_rx + port_rx[port][:, None]) / speed
                after[every, source] = np.inf
                if barred is not None:
                    after[:, barred] = np.inf
                target = after.argmin(axis=1)
                if target_rule == "stay_below":
                    accepted, source, port, target = at_most_threshold(
                        after[every, target], rows["moving"], source, port,
                        target)
                else:
                    before = np.maximum(load_tx, load_rx) / speed
                    accepted = before[every, target] < util
                rows["moving"] &= accepted
                moved = rows["moving"].nonzero()[0]
                if not moved.size:
                    break
                moved_any = True
                p, s, t = port[moved], source[moved], target[moved]
                rows["current"][moved, p] = t
                for load, rate in ((rows["loads"][:, 0], port_tx),
                                   (rows["loads"][:, 1], port_rx)):
                    load[moved, s] -= rate[p]
                    load[moved, t] += rate[p]
                for i, row in enumerate(moved):
                    moves[row].append((int(end), int(p[i]), int(s[i]),
                                       int(t[i])))
        if splits:
            moves = _merge_alike(rows, moves, splits)
        idle = not moved_any and rows["lo"].size == count
    order = np.argsort(rows["lo"], kind="stable")
    return (rows["history"][order], starts, [moves[i] for i in order],
            rows["lo"][order])


def _merge_alike(rows, moves, splits):
    """Join again the :func:`lbt_classes` rows split in a period whose two
    sides came out of it alike (the same moves so far, so the same state),
    in place; the moves of the rows left. ``splits`` lists (row, the row
    split off its top), in order: undone last first, each side joins
    the neighbour it was cut from."""
    gone = []
    for row, off in reversed(splits):
        if rows["hi"][row] == rows["lo"][off] and moves[row] == moves[off] \
                and (rows["current"][row] == rows["current"][off]).all():
            rows["hi"][row] = rows["hi"][off]
            gone.append(off)
    if not gone:
        return moves
    keep = np.ones(rows["lo"].size, dtype=bool)
    keep[gone] = False
    for name, array in rows.items():
        rows[name] = array[keep]
    return [m for m, kept in zip(moves, keep) if kept]


def ovs_rebalance(bucket_bytes, bucket_member, enabled):
    """One run of Open vSwitch ``bond_rebalance()``, exactly as the code.

    Parameters
    ----------
    bucket_bytes : array-like of int, shape (256,)
        Each bucket's byte counter (bytes since the last run plus the
        halved history). [B]
    bucket_member : array-like of int, shape (256,)
        Member of each bucket, -1 for none.
    enabled : array-like of bool, shape (U,)
        Members that may carry traffic.

    Returns
    -------
    numpy.ndarray of int
        The new member of each bucket. The caller halves the counters
        afterwards (the EWMA of ``bond.c``).

    Notes
    -----
    Enabled members are kept in descending byte order, a (re)inserted
    member after those with equal bytes, as ``insert_bal`` and
    ``reinsert_bal`` do after each moved bucket. Heaviest and lightest
    enabled members are compared; the run stops when
    their difference is below ``to >> 5`` or 100 000 B. Otherwise buckets of
    the heavier member, heaviest first, are taken while they fit in the
    ideal delta ``(from + to) / 2 - to``, until the rest is under 10 % of
    it; the move stands only if the lighter side rises by at least that
    10 % (teaming.md section 4.3, cases O2-O4 and O6).

    References
    ----------
    .. [1] openvswitch/ovs: ofproto/bond.c, ``bond_rebalance``,
       ``choose_entries_to_migrate`` (commit 298d4151f, 2021).
    """
    bucket_bytes = np.asarray(bucket_bytes, dtype=np.int64)
    member = np.array(bucket_member, dtype=np.int64)
    enabled = np.asarray(enabled, dtype=bool)
    assigned = member >= 0
    tx = np.bincount(member[assigned], bucket_bytes[assigned],
                     enabled.size).astype(np.int64)
    entries = {m: sorted((b for b in np.flatnonzero(member == m)
                          if bucket_bytes[b] > 0),
                         key=lambda b: -bucket_bytes[b])
               for m in np.flatnonzero(enabled)}
    bals = []
    for m in entries:
        _insert_bal(bals, m, tx)
    while len(bals) >= 2:
        heavy, light = bals[0], bals[-1]
        overload = tx[heavy] - tx[light]
        if overload < tx[light] >> 5 or overload < OVS_MIN_OVERLOAD_BYTES:
            break
        picked = _ovs_choose(entries[heavy], bucket_bytes, tx[heavy],
                             tx[light])
        if not picked:
            bals.pop(0)
            continue
        for bucket in picked:
            member[bucket] = light
            tx[heavy] -= bucket_bytes[bucket]
            tx[light] += bucket_bytes[bucket]
            entries[heavy].remove(bucket)
            for moved in (heavy, light):  # reinsert_bal, per entry
                bals.remove(moved)
                _insert_bal(bals, moved, tx)
    return member


def _insert_bal(bals, member, tx):
    """bond.c ``insert_bal``: before the first member carrying less, so
    after every member with as many bytes (ties go last)."""
    position = next((i for i, other in enumerate(bals)
                     if tx[member] > tx[other]), len(bals))
    bals.insert(position, member)


def _ovs_choose(entries, bucket_bytes, from_tx, to_tx):
    if len(entries) <= 1:
        return []
    ideal = (from_tx + to_tx) // 2 - to_tx
    threshold = ideal // 10
    delta, picked = 0, []
    for bucket in entries:
        if delta + bucket_bytes[bucket] <= ideal:
            picked.append(bucket)
            delta += bucket_bytes[bucket]
        if ideal - delta < threshold:
            break
    if not picked:
        picked, delta = [entries[-1]], bucket_bytes[entries[-1]]
    new_low = min(from_tx - delta, to_tx + delta)
    return picked if new_low > to_tx and new_low - to_tx >= threshold \
        else []


def ovs_bond(rate, bucket, members, *, step_s=1.0,
             rebalance_interval_s=10.0, initial="round_robin", seed=0):
    """Open vSwitch balance-slb / balance-tcp over time.

    Parameters
    ----------
    rate : array-like of float, shape (T, F)
        Transmit rate of each flow per step. [Gbit/s]
    bucket : array-like of int, shape (F,)
        Bucket (0-255) of each flow: the hash of source MAC and VLAN
        (slb) or of the 5-tuple (tcp), seeded by ``bond-hash-basis``.
    members : int
        Enabled members.
    step_s : float, default 1
        Time step. [s]
    rebalance_interval_s : float, default 10
        ``bond-rebalance-interval``; 0 disables rebalancing, values below
        1 s are raised to 1 s (O1). [s]
    initial : {'round_robin', 'random'}, default 'round_robin'
        First assignment of a bucket: the next enabled member in turn
        (without recirculation, balance-slb) or a random member (with
        recirculation, balance-tcp).
    seed : int, default 0

    Returns
    -------
    numpy.ndarray of int, shape (T, F)
        Member of each flow at each step.
    """
    rate = np.asarray(rate, dtype=float)
    bucket = np.asarray(bucket, dtype=np.int64)
    steps = rate.shape[0]
    bucket_rate = member_loads(bucket, rate, OVS_BUCKETS)
    used = np.flatnonzero(bucket_rate.max(axis=0) > 0)
    bucket_member = np.full(OVS_BUCKETS, -1)
    if initial == "round_robin":
        bucket_member[used] = np.arange(used.size) % members
    else:
        bucket_member[used] = np.random.default_rng(seed).integers(
            0, members, used.size)
    per_bucket = np.empty((steps, OVS_BUCKETS), dtype=np.int64)
    if rebalance_interval_s == 0:
        per_bucket[:] = bucket_member
        return per_bucket[:, bucket]
    interval = max(1, round(max(rebalance_interval_s, 1.0) / step_s))
    counters = np.zeros(OVS_BUCKETS, dtype=np.int64)
    starts, ends = _epochs(steps, interval)
    byte_rate = bucket_rate * (GBIT_BYTES * step_s)
    enabled = np.ones(members, dtype=bool)
    for start, end in zip(starts, ends):
        per_bucket[start:end] = bucket_member
        counters += byte_rate[start:end].sum(axis=0).astype(np.int64)
        if end - start == interval:
            bucket_member = ovs_rebalance(counters, bucket_member, enabled)
            counters //= 2
    return per_bucket[:, bucket]


def tlb_assign(bucket_rate, speed, *, order="descending", first_epoch=False,
               seed=0):
    """One balance-tlb/alb epoch: greedy placement of buckets on the slave
    with the largest absolute spare capacity.

    Parameters
    ----------
    bucket_rate : array-like of float, shape (B,)
        Each bucket's rate in the previous epoch. [Gbit/s]
    speed : array-like of float, shape (U,)
        Slave speeds. [Gbit/s]
    order : {'descending', 'random'}, default 'descending'
        Order of the buckets' first packets in the epoch: rate-descending
        (an LPT-like best case) or random. [Model]
    first_epoch : bool, default False
        The first epoch after the bond comes up, when the table is zeroed
        and every bucket counts as 0 B/s, so all stack on one slave (T3).
    seed : int, default 0
        Seed of the random order.

    Returns
    -------
    numpy.ndarray of int, shape (B,)
        Slave of each bucket (-1 for buckets without traffic).

    Notes
    -----
    :math:`gap_s = speed_s[Mbit/s] \\cdot 2^{20} - 8\\,load_s[B/s]`; a
    bucket placed on slave s adds its history ``1 + bytes / 10`` (B/s) to
    ``load_s``. The criterion is absolute spare capacity, and the
    :math:`2^{20}` scaling credits each slave with 4.9 % more than nominal
    (teaming.md section 3.5, case T2).

    References
    ----------
    .. [1] gregkh/linux: drivers/net/bonding/bond_alb.c (``compute_gap``,
       ``tlb_get_least_loaded_slave``, ``__tlb_choose_channel``).
    """
    bucket_rate = np.asarray(bucket_rate, dtype=float)
    speed = np.asarray(speed, dtype=float)
    active = np.flatnonzero(bucket_rate > 0)
    if order == "descending":
        active = active[np.argsort(-bucket_rate[active], kind="stable")]
    else:
        active = np.random.default_rng(seed).permutation(active)
    history = np.zeros(bucket_rate.size) if first_epoch \
        else 1.0 + gbps_to_bytes_per_s(bucket_rate)   # as 1 + bytes / 10 s
    spare = speed * 1000 * 2 ** 20
    member = np.full(bucket_rate.size, -1)
    for bucket in active:
        slave = int(np.argmax(spare))
        member[bucket] = slave
        spare[slave] -= 8 * history[bucket]
    return member


def tlb(rate, bucket, speed, *, step_s=1.0, order="descending", seed=0):
    """Linux balance-tlb / balance-alb transmit placement over time.

    Parameters
    ----------
    rate : array-like of float, shape (T, F)
        [Gbit/s]
    bucket : array-like of int, shape (F,)
        Bucket of each flow: ``xmit_hash & 0xFF`` (tlb) or the XOR of the
        destination IP bytes (alb).
    speed : array-like of float, shape (U,)
        [Gbit/s]
    step_s : float, default 1
        [s]
    order, seed
        As in :func:`tlb_assign`.

    Returns
    -------
    numpy.ndarray of int, shape (T, F)
    """
    rate = np.asarray(rate, dtype=float)
    bucket = np.asarray(bucket, dtype=np.int64)
    steps = rate.shape[0]
    bucket_rate = member_loads(bucket, rate, TLB_BUCKETS)
    epoch = max(1, round(TLB_REBALANCE_S / step_s))
    starts, ends = _epochs(steps, epoch)
    means = _epoch_means(bucket_rate, starts, ends)
    member = np.empty(rate.shape, dtype=np.int64)
    # Before the first rebalance the table is zeroed; from then on each
    # epoch places buckets by the previous epoch's rates.
    previous = means[0]
    for index, (start, end) in enumerate(zip(starts, ends)):
        slaves = tlb_assign(previous, speed, order=order,
                            first_epoch=index == 0, seed=seed + index)
        member[start:end] = slaves[bucket]
        previous = means[index]
    return member


def windows_dynamic(rate, members, *, step_s=1.0, epoch_s=10.0):
    """Windows LBFO/SET Dynamic, approximated as a speed-unaware LPT
    re-placement of the flows every epoch on the previous epoch's rates
    [Model]: the flowlet gap and rebalancing rule are not published
    (teaming.md section 5.1).

    Parameters
    ----------
    rate : array-like of float, shape (T, F)
        [Gbit/s]
    members : int
    step_s, epoch_s : float
        Time step and re-placement epoch. [s]

    Returns
    -------
    numpy.ndarray of int, shape (T, F)
    """
    rate = np.asarray(rate, dtype=float)
    steps = rate.shape[0]
    epoch = max(1, round(epoch_s / step_s))
    starts, ends = _epochs(steps, epoch)
    means = _epoch_means(rate, starts, ends)
    member = np.empty(rate.shape, dtype=np.int64)
    equal = np.ones(members)
    placement = lpt(means[0], equal)
    for index, (start, end) in enumerate(zip(starts, ends)):
        member[start:end] = placement
        placement = lpt(means[index], equal)
    return member
