"""Evacuation schedules: the event simulation of a migration queue whose
migrations share one transfer, the named orders, the optimized order and
the concurrency sweep, all schedules of an evacuation in one pass (each
distinct one once: orders that only swap VMs of equal inputs are one
schedule).

Each schedule is a queue order and a concurrency. The simulation is a
fixed point: pre-copy of every VM (:func:`models.migration.precopy`, all
VMs of all schedules at once) at two rates, one for its first pass and one
for its later rounds, gives the time of each phase; the event simulation
of the queue (:func:`models.evacuation.shared_queue`) runs the platform's
set-up off the link and those phases with the link shared by whatever is
on it at each moment; each phase's rate becomes the share it got, until
the rates stop moving. A single VM runs alone at the one-session share, so
its result is the migration analysis' for the same rate, plus the set-up.
"""

from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from models import evacuation, migration, migration_costs, postcopy
from solvers.placement import EVALUATE_OPTIONS, place

#: Relative change of every rate below which the fixed point stops
#: (0.1 %: below what a plan can tell apart).
TOLERANCE = 1e-3
#: Relative change of an unsettled schedule's makespan at its last
#: iteration above which its answer is uncertain enough to say so (1 %:
#: below the models' median error, 2.5 %, across the published cases). A
#: VM whose rounds change by one as its share moves keeps the rates of a
#: short phase circling by more while the makespan barely moves; a VM
#: that converges at one iteration and not at the next always counts.
UNSETTLED_WARNING = 1e-2
#: Iterations before damping (averaging old and new rates) sets in, and
#: the most iterations run.
UNDAMPED_ITERATIONS, MAX_ITERATIONS = 4, 40
#: Local search of the optimized order: at most this many VMs (larger
#: queues keep the best constructed order: each round simulates its
#: neighbours, and the order comparison must stay within its 2 s
#: benchmark), this many rounds of best improvement.
LOCAL_SEARCH_VMS, LOCAL_SEARCH_ROUNDS = 100, 3


@dataclass(frozen=True)
class ScheduleResult:
    """Every schedule's simulated queue, ``scipy.optimize`` style.

    Arrays are schedules x VMs (VMs by index, not queue position), except
    ``makespan`` and ``not_converged`` (per schedule).

    Attributes
    ----------
    start, end : numpy.ndarray
        Migration intervals. [s]
    disk_start, disk_end : numpy.ndarray
        Each migration's disk copy, from the end of its set-up to where
        its memory starts to cross (equal where no disk is copied). [s]
    rate : numpy.ndarray
        Time-averaged rate each migration got. [B/s]
    head_rate, rest_rate : numpy.ndarray
        The fixed point's rates of each migration's first pass and of its
        later rounds (a start for a nearby schedule's). [B/s]
    converged : numpy.ndarray of bool
    rounds, downtime, throttle : numpy.ndarray
        Pre-copy rounds, downtime [s] (NaN without switchover), final
        guest throttle (0-1).
    outcome : numpy.ndarray of int
        Index into :data:`models.migration.OUTCOMES`.
    makespan : numpy.ndarray
        Time until the last migration ends. [s]
    not_converged : numpy.ndarray of int
    settled : numpy.ndarray of bool
        Per schedule: its rates moved less than :data:`TOLERANCE` (else
        its numbers are those of the last iteration).
    change : numpy.ndarray
        Per schedule: the relative change of its makespan at its last
        iteration (1 where the number of VMs that converge changed).
    iterations : int
    success : bool
        The fixed point was reached for every schedule.
    status : int
        0 reached, 1 iteration limit.
    message : str
    """

    start: np.ndarray
    end: np.ndarray
    disk_start: np.ndarray
    disk_end: np.ndarray
    rate: np.ndarray
    head_rate: np.ndarray
    rest_rate: np.ndarray
    converged: np.ndarray
    rounds: np.ndarray
    downtime: np.ndarray
    throttle: np.ndarray
    outcome: np.ndarray
    makespan: np.ndarray
    not_converged: np.ndarray
    settled: np.ndarray
    change: np.ndarray
    iterations: int
    success: bool
    status: int
    message: str


#: Rows per call of the pre-copy model without traces: its round loop
#: keeps about 40 arrays per row alive (330 B a row measured: 3.3 GB for
#: 1e7 rows in one call), so long columns go through in chunks of this
#: many rows and memory stays flat.
PRECOPY_CHUNK_ROWS = 65_536


def precopy(columns, rate, *, trace=False, first_rate=None):
    """:func:`models.migration.precopy` of pre-copy model columns
    (:func:`solvers.inputs.migration_row`) at ``rate`` [B/s], broadcast;
    round 0 at ``first_rate`` when given (an evacuated VM's first pass
    sees another share of the link than its later rounds).

    QEMU's max-bandwidth (the ``max_bandwidth`` column) caps the rate, and
    a capped migration thread sends in 100 ms windows instead of 50 ms
    iterations; the stop-and-copy phase runs uncapped (QEMU
    ``migration_completion_precopy``). Memory registration of QEMU's RDMA transport slows round
    0 (``register_s_per_byte``, on-demand) or precedes it (``setup_s``,
    pin-all). A post-copy ``switchover`` mode hands the migration to
    :func:`models.postcopy.postcopy` after its first pass or at its
    time budget. The result's ``rate`` is the rate used [B/s]. Without
    traces, rows are evaluated :data:`PRECOPY_CHUNK_ROWS` at a time."""
    shape = np.broadcast_shapes(np.shape(rate), np.shape(first_rate),
                                *(np.shape(v) for v in columns.values()))
    if trace or len(shape) != 1 or shape[0] <= PRECOPY_CHUNK_ROWS:
        return _precopy(columns, rate, trace, first_rate)
    rows = shape[0]
    rate = np.broadcast_to(rate, shape)
    if first_rate is not None:
        first_rate = np.broadcast_to(first_rate, shape)
    columns = {k: np.broadcast_to(v, shape) for k, v in columns.items()}
    results = {}
    for start in range(0, rows, PRECOPY_CHUNK_ROWS):
        part = slice(start, start + PRECOPY_CHUNK_ROWS)
        done = _precopy({k: v[part] for k, v in columns.items()},
                        rate[part], False,
                        None if first_rate is None else first_rate[part])
        for key, values in done.items():
            if key not in results:
                results[key] = np.empty(rows, dtype=np.asarray(values).dtype)
            results[key][part] = values
    return results


def _precopy(columns, rate, trace, first_rate):
    p = columns
    # QEMU's migration thread handles one page at a time
    page_rate = migration_costs.page_rate_cap(p["page_s"])
    capped = rate > p["max_bandwidth"]
    # QEMU lifts max-bandwidth for the stop-and-copy phase
    stop_rate = np.minimum(rate, page_rate)
    rate = np.minimum(np.minimum(rate, p["max_bandwidth"]), page_rate)
    first = rate if first_rate is None else np.minimum(np.minimum(
        first_rate, p["max_bandwidth"]), page_rate)
    first_rate = np.minimum(p["first_cap"], first)
    registering = p["register_s_per_byte"] > 0
    if registering.any():
        first_rate = np.where(registering, migration_costs.registered_rate(
            first_rate, p["register_s_per_byte"]), first_rate)
    mode = p["switchover"]
    result = migration.precopy(
        p["memory"], rate, p["cold_rate"], hot_set=p["hot_set"],
        hot_rate=p["hot_rate"], first_rate=first_rate,
        zero_fraction=p["zero_fraction"],
        downtime_limit=p["downtime_limit"], min_pages=p["min_pages"],
        fraction_left=p["fraction_left"],
        max_rounds=np.where(mode == migration.POSTCOPY_AFTER_FIRST_PASS,
                            np.minimum(p["max_rounds"], 1), p["max_rounds"]),
        max_factor=p["max_factor"], max_switchover=p["max_switchover"],
        time_budget=p["time_budget"], throttle=p["throttle"],
        fixed_downtime=p["fixed_downtime"], sync=p["sync"],
        iteration_s=np.where(capped, migration.QEMU_CAPPED_ITERATION_S,
                             migration.QEMU_ITERATION_S),
        sync_timer_s=p["sync_timer"], test_sent_pass=p["test_sent_pass"],
        final_live_pass=p["final_live_pass"],
        run_to_budget=mode == migration.POSTCOPY_AT_TIME_BUDGET,
        zero_page_s=p["zero_page_s"], pending_in_pages=p["pending_in_pages"],
        wire_share=p["wire_share"], stop_rate=stop_rate,
        trace=trace)
    nonzero = p["memory"] * (1 - p["zero_fraction"]) \
        * migration_costs.page_header_factor()
    result = postcopy.postcopy(result, rate, mode, p["fixed_downtime"],
                                ceiling=nonzero)
    result["total_time"] = result["total_time"] + p["setup_s"]
    result["rate"] = rate
    return result


#: Fields of the pre-copy model the fixed point reads; it also reads
#: round 0's time (``first_pass``) from the trace.
FIXED_POINT_FIELDS = ("converged", "total_time", "rounds", "downtime",
                      "throttle", "outcome")


def _distinct_precopy(table, offsets, rates):
    """:func:`precopy` with traces of the VMs of several evacuations'
    schedules in one call per :data:`PRECOPY_CHUNK_ROWS` distinct rows,
    each distinct (VM, first-pass rate, rate) once: the model gives a row
    the same numbers whatever the other rows of its call, and schedules of
    one search share most of their VMs' rates (the VMs a swap leaves
    alone keep their shares).

    ``table`` holds the model inputs of every evacuation's VMs, one after
    the other, evacuation ``e``'s from row ``offsets[e]``; ``rates`` its
    (first-pass, later-round) rates, schedules x its VMs [B/s]. Returns
    per evacuation :data:`FIXED_POINT_FIELDS` and ``first_pass`` (round
    0's time [s]), schedules x VMs."""
    shapes = [h.shape for h, _ in rates]
    keys = np.concatenate([np.stack(
        [np.broadcast_to(offset + np.arange(shape[1]), shape).ravel(),
         h.ravel(), r.ravel()], axis=1)
        for offset, shape, (h, r) in zip(offsets, shapes, rates)])
    first, inverse = _groups(keys)
    vm = keys[first, 0].astype(int)
    parts = []
    for begin in range(0, first.size, PRECOPY_CHUNK_ROWS):
        part = first[begin:begin + PRECOPY_CHUNK_ROWS]
        result = precopy({k: v[vm[begin:begin + part.size]]
                          for k, v in table.items()},
                         keys[part, 2], trace=True, first_rate=keys[part, 1])
        parts.append({"first_pass": result["round_seconds"][:, 0],
                      **{k: result[k] for k in FIXED_POINT_FIELDS}})
    unique = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    out, begin = [], 0
    for shape in shapes:
        rows = inverse[begin:begin + shape[0] * shape[1]]
        begin += rows.size
        out.append({k: v[rows].reshape(shape) for k, v in unique.items()})
    return out


def _phases(columns, result, rate, first_rate):
    """Time on the link of each migration's three phases at its rates:
    the disk copy and the first pass (round 0), both at the first-pass
    rate, and the rounds after it with the switch-over. A migration that
    never switches over holds its slot for its disk copy and one pass of
    its memory (then it is given up): no later rounds."""
    first = result["first_pass"]
    one_pass = columns["memory"] * (1 - columns["zero_fraction"]) / \
        first_rate
    converged = result["converged"]
    disk = np.broadcast_to(_disk_seconds(columns, first_rate),
                           np.shape(first))
    return (disk, np.where(converged, first, one_pass),
            np.where(converged, result["total_time"] - first, 0.0))


def _durations(columns, result, rate):
    """Slot time of each migration at one rate: its disk copy and its
    total time, or for one that never switches over one pass of its
    memory."""
    one_pass = columns["memory"] * (1 - columns["zero_fraction"]) / rate
    return _disk_seconds(columns, rate) + np.where(
        result["converged"], result["total_time"], one_pass)


def _disk_seconds(columns, rate):
    """Each migration's disk copy ahead of its memory at ``rate``, or at
    the storage's ``disk_cap`` where that is slower
    (:func:`models.evacuation.disk_copy_time`; shared storage, no
    ``disk`` column or only zeros: none, without a call in the fixed
    point's loop). [s]"""
    if not np.any(columns.get("disk", 0.0)):
        return 0.0
    return evacuation.disk_copy_time(
        columns["disk"], np.minimum(rate, columns["disk_cap"]),
        columns["disk_write"])


def _average(rate, work, seconds, fallback):
    """Time-average share a phase got: its work at the reference rate over
    the time it took (``fallback`` where it had none)."""
    ran = seconds > 0
    return np.where(ran, rate * work / np.where(ran, seconds, 1.0),
                    fallback)


class Schedules(NamedTuple):
    """Schedules of one evacuation, the arguments of :func:`simulate`
    (one entry of :func:`simulate_many`)."""

    columns: dict
    share: np.ndarray
    orders: np.ndarray
    concurrency: np.ndarray
    setup: float = 0.0
    serial_setup: float = 0.0
    start_rates: tuple = None


def simulate(columns, share, orders, concurrency, *, setup=0.0,
             serial_setup=0.0, start_rates=None):
    """Simulate schedules of one evacuation.

    Parameters
    ----------
    columns : dict of numpy.ndarray
        Pre-copy model inputs of the N VMs.
    share : array-like
        Rate of each migration while k run, k = 0..K
        (:func:`models.evacuation.share_per_migration`). [B/s]
    orders : array-like of int, shape (S, N)
        Queue orders.
    concurrency : array-like of int, shape (S,)
    setup : float, default 0
        Each migration's time off the link (the platform's set-up and
        switch-over work). [s]
    serial_setup : float, default 0
        Set-up work the host does for one migration at a time
        (:func:`models.evacuation.setup_work`). [s]
    start_rates : tuple of two numpy.ndarray, shape (S, N) or (N,), optional
        First-pass and later-round rates of each VM to start the fixed
        point from (a nearby schedule's ``head_rate`` and ``rest_rate``);
        by default every VM's share at the schedule's concurrency. [B/s]

    Returns
    -------
    ScheduleResult

    Notes
    -----
    Each migration is three phases on its slot: ``setup`` off the link,
    its disk copy (``disk`` and ``disk_write`` columns, where the disks
    are copied) with its first pass, and then its later rounds with the
    switch-over. The
    event simulation changes every running phase's rate whenever a phase
    starts or ends anywhere; pre-copy then runs round 0 at the share its
    first pass got and the later rounds (the ones that decide convergence
    and downtime) at the share of the moment they run, until those two
    rates of every VM stop moving.
    """
    return simulate_many([Schedules(columns, share, orders, concurrency,
                                    setup, serial_setup, start_rates)])[0]


def simulate_many(batch):
    """:func:`simulate` of the :class:`Schedules` of several evacuations,
    one :class:`ScheduleResult` each: their fixed points iterate together
    (:func:`_simulate_many`), each giving the numbers of simulating it
    alone."""
    distinct, spreads = [], []
    for entry in batch:
        share = np.asarray(entry.share, dtype=float)
        orders = np.atleast_2d(entry.orders)
        count = orders.shape[0]
        concurrency = np.broadcast_to(np.asarray(entry.concurrency),
                                      (count,))
        # schedules that differ only by swapping VMs of equal inputs are
        # the same schedule: each is simulated once and its VMs' results
        # are handed to the VMs at the same queue positions of its
        # equivalents (a copy does not move the fixed point's largest
        # change, so the iterations and every number stay those of
        # simulating them all)
        first, inverse = _groups(np.column_stack(
            [concurrency, _kinds(entry.columns)[orders]]))
        if first.size == count:
            distinct.append(entry._replace(share=share, orders=orders,
                                           concurrency=concurrency))
            spreads.append(None)
            continue
        rows = np.sort(first)
        position = np.empty_like(first)
        position[np.argsort(first)] = np.arange(first.size)
        row = position[inverse]
        distinct.append(Schedules(
            entry.columns, share, orders[rows], concurrency[rows],
            entry.setup, entry.serial_setup,
            None if entry.start_rates is None else tuple(
                np.broadcast_to(r, orders.shape)[rows]
                for r in entry.start_rates)))
        # VM orders[r, p] takes the result of VM orders[rows[row[r]], p]
        source = np.empty_like(orders)
        np.put_along_axis(source, orders, orders[rows][row], axis=1)
        spreads.append((row, source))
    return [result if spread is None else ScheduleResult(**{
        f.name: _spread(getattr(result, f.name), *spread)
        for f in fields(result)})
        for result, spread in zip(_simulate_many(distinct), spreads)]


def _groups(keys):
    """Rows of equal ``keys`` (a 2-D array) as groups: the index of each
    group's first row, and each row's group (``numpy.unique(keys, axis=0,
    return_index=True, return_inverse=True)`` up to the groups' order)."""
    count = keys.shape[0]
    if count == 0:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    order = np.lexsort(keys.T[::-1])
    ranked = keys[order]
    new = np.ones(count, dtype=bool)
    new[1:] = np.any(ranked[1:] != ranked[:-1], axis=1)
    inverse = np.empty(count, dtype=int)
    inverse[order] = np.cumsum(new) - 1
    # lexsort is stable: a group's first row in sorted order is its first
    return order[new], inverse


def _kinds(columns):
    """Index of each VM's kind: VMs whose pre-copy inputs are all equal
    share one."""
    names = sorted(columns)
    vms = columns["memory"].size
    rows = zip(*(np.broadcast_to(columns[k], (vms,)).tolist()
                 for k in names))
    seen = {}
    return np.array([seen.setdefault(r, len(seen)) for r in rows])


def _spread(values, row, source):
    """A :class:`ScheduleResult` field of the distinct schedules given to
    every schedule: per schedule by ``row``, per VM from ``source``."""
    if not isinstance(values, np.ndarray):
        return values
    values = values[row]
    if values.ndim == 1:
        return values
    return np.take_along_axis(values, source, axis=1)


def _simulate(columns, share, orders, concurrency, setup, serial_setup=0.0,
              start_rates=None):
    """:func:`simulate` of distinct schedules."""
    return _simulate_many([Schedules(columns, share, orders, concurrency,
                                     setup, serial_setup, start_rates)])[0]


def _simulate_many(batch):
    """:func:`simulate_many` of distinct schedules. Each schedule stops
    iterating once its own rates moved less than :data:`TOLERANCE` (its
    numbers are those of that iteration); the others go on alone. Every
    iteration runs the pre-copy of all evacuations' VMs that still move
    in one call (:func:`_distinct_precopy`: the model's cost is mostly
    per call, about 2 ms, against 1 us a row), then each evacuation's
    event simulation."""
    # every evacuation's VMs in one table, the pre-copy call's rows
    table = {k: np.concatenate([
        np.broadcast_to(entry.columns[k], entry.orders.shape[1:])
        for entry in batch]) for k in batch[0].columns} if batch else {}
    offsets = np.cumsum([0] + [entry.orders.shape[1] for entry in batch])
    points = [_FixedPoint(entry, offset)
              for entry, offset in zip(batch, offsets)]
    for iteration in range(1, MAX_ITERATIONS + 1):
        going = [p for p in points if p.going]
        if not going:
            break
        rates = [p.rates() for p in going]
        results = _distinct_precopy(table, [p.offset for p in going], rates)
        for point, (h, r), result in zip(going, rates, results):
            point.step(iteration, h, r, result)
    return [p.result() for p in points]


class _FixedPoint:
    """The fixed point of one evacuation's distinct schedules, iteration
    by iteration (:func:`_simulate_many`)."""

    def __init__(self, entry, offset):
        self.entry, self.offset = entry, offset   # its VMs' first table row
        count, vms = entry.orders.shape
        share = entry.share
        top = share.size - 1
        first = share[np.minimum(np.minimum(entry.concurrency, vms), top)]
        if entry.start_rates is None:
            self.rest = np.broadcast_to(first[:, None], (count, vms)).copy()
            self.head = self.rest.copy()
        else:
            self.head, self.rest = (np.broadcast_to(r, (count, vms)).copy()
                                    for r in entry.start_rates)
        self.fixed = evacuation.setup_work(entry.orders, entry.concurrency,
                                           entry.setup, entry.serial_setup)
        self.off_link = np.zeros((count, vms))
        self.done = {}    # each schedule's numbers at its last iteration
        self.active = np.arange(count)
        self.status, self.change, self.iterations = 1, np.inf, 0
        self.settled = np.zeros(count, dtype=bool)
        self.makespan_change = np.zeros(count)   # at its last iteration
        self.going = True

    def rates(self):
        """First-pass and later-round rates of the schedules still
        iterating. [B/s]"""
        return self.head[self.active], self.rest[self.active]

    def step(self, iteration, h, r, result):
        """One iteration: ``result`` is the pre-copy of the active
        schedules' VMs at rates ``h`` and ``r``."""
        entry, active, done = self.entry, self.active, self.done
        count, vms = entry.orders.shape
        before = (done["end"][active].max(axis=1),
                  np.count_nonzero(~done["converged"][active], axis=1)) \
            if done else None
        work_disk, work_first, work_rest = _phases(entry.columns, result,
                                                   r, h)
        start, end, bounds, moment = evacuation.shared_queue(
            np.stack([self.fixed[active], work_disk, work_first, work_rest],
                     axis=-1),
            np.stack([self.off_link[active], h, h, r], axis=-1),
            entry.orders[active], entry.concurrency[active], entry.share,
            phases=True)
        # the disk copy and the first pass run at the first-pass rate
        work_head = work_disk + work_first
        seconds_head = bounds[..., 2] - bounds[..., 0]
        seconds_rest = bounds[..., 3] - bounds[..., 2]
        for name, values in [
                ("start", start), ("end", end),
                ("disk_start", bounds[..., 0]), ("disk_end", bounds[..., 1]),
                ("work_head", work_head),
                ("work_rest", work_rest), ("seconds_head", seconds_head),
                ("seconds_rest", seconds_rest)] + [
                (k, result[k]) for k in ("converged", "rounds", "downtime",
                                         "throttle", "outcome")]:
            if name not in done:
                done[name] = np.empty((count, vms), dtype=values.dtype)
            done[name][active] = values
        got_head = _average(h, work_head, seconds_head, h)
        # a VM given up after its first pass: the rounds it would run next
        # see the share of the moment that pass ended
        got_rest = _average(r, work_rest, seconds_rest, moment[..., 2])
        moved = np.maximum(np.max(np.abs(got_head / h - 1), axis=1),
                           np.max(np.abs(got_rest / r - 1), axis=1))
        self.iterations, self.change = iteration, moved.max()
        going = moved >= TOLERANCE
        if before is not None:
            makespan = end.max(axis=1)
            self.makespan_change[active] = np.where(
                np.count_nonzero(~result["converged"], axis=1) != before[1],
                1.0, np.abs(makespan / before[0] - 1))
        self.settled[active[~going]] = True
        if not going.any():
            self.status, self.going = 0, False
            return
        if iteration == MAX_ITERATIONS:   # keep the rates simulated
            self.going = False
            return
        if iteration > UNDAMPED_ITERATIONS:
            got_head, got_rest = 0.5 * (got_head + h), 0.5 * (got_rest + r)
        self.active = active = active[going]
        self.head[active], self.rest[active] = got_head[going], \
            got_rest[going]

    def result(self):
        done, head, rest = self.done, self.head, self.rest
        converged = done["converged"]
        on_link = done["seconds_head"] + done["seconds_rest"]
        end = done["end"]
        success = self.status == 0
        return ScheduleResult(
            start=done["start"], end=end, disk_start=done["disk_start"],
            disk_end=done["disk_end"],
            rate=(head * done["work_head"] + rest * done["work_rest"]) /
            on_link,
            head_rate=head, rest_rate=rest,
            converged=converged,
            rounds=done["rounds"], downtime=done["downtime"],
            throttle=done["throttle"], outcome=done["outcome"],
            makespan=end.max(axis=1),
            not_converged=np.count_nonzero(~converged, axis=1),
            settled=self.settled.copy(), change=self.makespan_change.copy(),
            iterations=self.iterations, success=success, status=self.status,
            message="durations and shared rates agree" if success else
            f"rates of {np.count_nonzero(~self.settled)} of "
            f"{self.settled.size} schedules still moving after "
            f"{MAX_ITERATIONS} iterations (largest relative change "
            f"{self.change:.2g})")


def named_orders(columns, priority):
    """Queue orders by rule: VM indices for ``largest_first``,
    ``smallest_first``, ``hottest_last`` (least dirtying first) and
    ``priority`` (highest first); ties go to the larger VM."""
    memory = columns["memory"]
    dirtying = columns["hot_rate"] + columns["cold_rate"]
    return {
        "largest_first": np.argsort(-memory, kind="stable"),
        "smallest_first": np.argsort(memory, kind="stable"),
        "hottest_last": np.lexsort((-memory, dirtying)),
        "priority": np.lexsort((-memory, -np.asarray(priority))),
    }


def slot_order(slot_time, concurrency, method="lpt"):
    """Queue order of a placement of the VMs on ``concurrency`` identical
    slots that minimises the longest slot (``P||Cmax``,
    :func:`solvers.placement.place`: LPT with local search, with
    ``method='auto'`` a bin-completion search where LPT is not proven
    within 0.5 %), each slot running its VMs longest first; the queue
    takes them by planned start. Returns (order, proven lower bound on that
    placement problem [s], the method that placed them)."""
    placed = place(slot_time, np.ones(concurrency), method=method,
                   options=EVALUATE_OPTIONS)
    slot, time = placed.member, np.asarray(slot_time, dtype=float)
    begins = np.empty_like(time)
    for s in range(concurrency):   # a few slots; each sorted once
        mine = np.flatnonzero(slot == s)
        mine = mine[np.argsort(-time[mine], kind="stable")]
        begins[mine] = np.cumsum(time[mine]) - time[mine]
    return np.lexsort((-time, begins)), placed.lower_bound, placed.method


def candidate_orders(columns, priority, alone_time, fails_shared,
                     concurrency):
    """Orders the optimizer tries: the named ones, longest processing
    time first (LPT, a 4/3 approximation of the makespan on identical
    slots), LPT with the VMs that cannot converge at the shared rate
    moved to the end, least dirtying first (they then run with fewer
    others, at a larger share), and the slot placement of
    :func:`slot_order`."""
    dirtying = columns["hot_rate"] + columns["cold_rate"]
    lpt = np.argsort(-alone_time, kind="stable")
    hot_last = np.lexsort((-alone_time, dirtying, fails_shared))
    placed, _, _ = slot_order(alone_time, concurrency)
    return [*named_orders(columns, priority).values(), lpt, hot_last,
            placed]


def plan(columns, priority, share, concurrencies, *, setup=0.0,
         serial_setup=0.0):
    """Every candidate order at every concurrency, simulated together.

    Parameters
    ----------
    columns : dict of numpy.ndarray
        Pre-copy model inputs of the VMs.
    priority : array-like
    share : array-like
        Per-migration rate by number running, k = 0..K. [B/s]
    concurrencies : sequence of int
        Concurrencies to evaluate (each <= K).
    setup, serial_setup : float, default 0
        Each migration's time off the link, and the part the host does
        for one migration at a time (:func:`simulate`). [s]

    Returns
    -------
    dict
        ``result`` (:class:`ScheduleResult` over all schedules),
        ``concurrency`` and ``order`` (index into the candidates) of each
        schedule, ``schedules`` (its queue order), ``orders`` (the
        candidate orders by concurrency), and ``named`` (the order names
        of the first candidates).
    """
    return plan_many([PlanInputs(columns, priority, share, concurrencies,
                                 setup, serial_setup)])[0]


class PlanInputs(NamedTuple):
    """One evacuation's :func:`plan` arguments (an entry of
    :func:`plan_many`)."""

    columns: dict
    priority: np.ndarray
    share: np.ndarray
    concurrencies: tuple
    setup: float = 0.0
    serial_setup: float = 0.0


def plan_many(batch):
    """:func:`plan` of several evacuations (:class:`PlanInputs`), their
    pre-copy runs and simulations done together (:func:`simulate_many`);
    each plan is the one :func:`plan` gives it."""
    shares = [np.asarray(entry.share, dtype=float) for entry in batch]
    # each VM alone at its share at every concurrency, for all
    # evacuations in one pre-copy call (rows are independent)
    runs = [(entry, share, c) for entry, share in zip(batch, shares)
            for c in entry.concurrencies]
    alone = _alone_at_shares(runs)
    plans, schedules = [], []
    for entry, share in zip(batch, shares):
        orders, owner, slot = [], [], []
        by_concurrency = {}
        for c in entry.concurrencies:
            rate, shared = alone.pop(0)
            alone_time = entry.setup + entry.serial_setup + _durations(
                entry.columns, shared, rate)
            candidates = candidate_orders(entry.columns, entry.priority,
                                          alone_time, ~shared["converged"],
                                          c)
            by_concurrency[c] = candidates
            orders += candidates
            owner += [c] * len(candidates)
            slot += range(len(candidates))
        orders, owner = np.array(orders), np.array(owner)
        # candidates often coincide (LPT and largest first, every order at
        # concurrency 1 with equal VMs): simulate_many() runs each once
        schedules.append(Schedules(entry.columns, share, orders, owner,
                                   entry.setup, entry.serial_setup))
        plans.append({"concurrency": owner, "order": np.array(slot),
                      "orders": by_concurrency, "schedules": orders,
                      "named": tuple(named_orders(entry.columns,
                                                  entry.priority))})
    for plan_, result in zip(plans, simulate_many(schedules)):
        plan_["result"] = result
    return [{"result": p.pop("result"), **p} for p in plans]


def _alone_at_shares(runs):
    """For each (plan inputs, share, concurrency): every VM's rate at that
    concurrency's share and its :func:`precopy` result there, all runs in
    one call."""
    rates = [np.full(entry.columns["memory"].size,
                     share[min(c, entry.columns["memory"].size)])
             for entry, share, c in runs]
    if not runs:
        return []
    names = runs[0][0].columns
    table = {k: np.concatenate([np.broadcast_to(entry.columns[k], rate.shape)
                                for (entry, _, _), rate in zip(runs, rates)])
             for k in names}
    result = precopy(table, np.concatenate(rates))
    out, begin = [], 0
    for rate in rates:
        part = slice(begin, begin + rate.size)
        begin += rate.size
        out.append((rate, {k: v[part] for k, v in result.items()}))
    return out


def neighbours(order, concurrency):
    """Orders one swap away from ``order``: each queue position with the
    next one, and with the one a wave later (``concurrency`` positions on:
    the VM that would take the same slot next)."""
    n = order.size
    swaps = [(i, i + 1) for i in range(n - 1)] + \
        [(i, i + concurrency) for i in range(n - concurrency)
         if concurrency > 1]
    out = np.repeat(order[None, :], len(swaps), axis=0)
    rows = np.arange(len(swaps))
    first, second = np.array(swaps).T
    out[rows, first], out[rows, second] = order[second], order[first]
    return out


def improve(columns, share, plan_, row, *, setup=0.0, serial_setup=0.0):
    """Local search from schedule ``row`` of a plan: rounds of best
    improvement over :func:`neighbours` (all simulated together), keeping
    a neighbour only when it has no more VMs that fail and a shorter
    makespan. Returns the plan with the improved schedule appended as a
    new row (of the same concurrency, candidate index -1), and that row
    (``row`` itself when nothing improved or the queue is too long)."""
    return improve_many([SearchInputs(columns, share, plan_, row, setup,
                                      serial_setup)])[0]


class SearchInputs(NamedTuple):
    """One local search's :func:`improve` arguments (an entry of
    :func:`improve_many`)."""

    columns: dict
    share: np.ndarray
    plan: dict
    row: int
    setup: float = 0.0
    serial_setup: float = 0.0


def improve_many(batch):
    """:func:`improve` of several local searches (:class:`SearchInputs`),
    each round's neighbours of all of them simulated together
    (:func:`simulate_many`); each search ends as :func:`improve` ends
    it."""
    searches = [_Search(entry) for entry in batch]
    for _ in range(LOCAL_SEARCH_ROUNDS):
        going = [s for s in searches if s.going]
        if not going:
            break
        tried = simulate_many([s.neighbours() for s in going])
        for search, result in zip(going, tried):
            search.step(result)
    return [s.answer() for s in searches]


class _Search:
    """One local search of :func:`improve_many`, round by round."""

    def __init__(self, entry):
        self.entry = entry
        plan_, row = entry.plan, entry.row
        result = plan_["result"]
        self.concurrency = int(plan_["concurrency"][row])
        vms = entry.columns["memory"].size
        self.going = 2 <= vms <= LOCAL_SEARCH_VMS
        self.order = plan_["schedules"][row]
        self.key = (result.not_converged[row], result.makespan[row])
        # a neighbour's rates start from the incumbent's fixed point: one
        # swap moves few of them
        self.rates = (result.head_rate[row], result.rest_rate[row])
        self.found = None

    def neighbours(self):
        """This round's neighbours as :class:`Schedules`."""
        entry = self.entry
        self.candidates = neighbours(self.order, self.concurrency)
        # by queue position: a swapped VM takes the rates of the place it
        # moved to
        return Schedules(
            entry.columns, entry.share, self.candidates,
            np.full(len(self.candidates), self.concurrency), entry.setup,
            entry.serial_setup, tuple(_by_position(r[self.order],
                                                   self.candidates)
                                      for r in self.rates))

    def step(self, tried):
        """Move to the best neighbour of ``tried`` (their simulation), or
        stop where none is better."""
        pick = int(np.lexsort((tried.makespan, tried.not_converged))[0])
        if (tried.not_converged[pick], tried.makespan[pick]) >= self.key:
            self.going = False
            return
        self.order = self.candidates[pick]
        self.key = (tried.not_converged[pick], tried.makespan[pick])
        self.rates = (tried.head_rate[pick], tried.rest_rate[pick])
        self.found = (tried, pick)

    def answer(self):
        """The plan with the improved schedule appended and its row (the
        plan and the start row when nothing improved)."""
        plan_, row = self.entry.plan, self.entry.row
        if self.found is None:
            return plan_, row
        result = plan_["result"]
        tried, pick = self.found
        merged = {f.name: np.concatenate([getattr(result, f.name),
                                          getattr(tried, f.name)[
                                              pick:pick + 1]])
                  for f in fields(result)
                  if isinstance(getattr(result, f.name), np.ndarray)}
        scalars = {f.name: getattr(result, f.name) for f in fields(result)
                   if f.name not in merged}
        appended = dict(plan_, result=ScheduleResult(**merged, **scalars),
                        concurrency=np.append(plan_["concurrency"],
                                              self.concurrency),
                        order=np.append(plan_["order"], -1),
                        schedules=np.vstack([plan_["schedules"],
                                             self.order]))
        return appended, len(appended["concurrency"]) - 1


def _by_position(values, orders):
    """Per-VM arrays of ``orders`` whose VM at queue position p takes
    ``values[p]``."""
    out = np.empty(orders.shape)
    np.put_along_axis(out, orders, np.broadcast_to(values, orders.shape),
                      axis=1)
    return out


def best(plan_, rows):
    """Row of the best schedule among ``rows``: fewest VMs that do not
    converge, then the shortest makespan, then the lowest concurrency."""
    result = plan_["result"]
    rows = np.asarray(rows)
    key = np.lexsort((plan_["concurrency"][rows], result.makespan[rows],
                      result.not_converged[rows]))
    return int(rows[key[0]])


def lower_bound(columns, share, concurrency, *, setup=0.0, serial_setup=0.0,
                prove=True):
    """Lower bound on the makespan at a concurrency: every VM as if its
    guest were idle (one pass of its memory and of any disk it copies:
    dirtying adds rounds, throttling cannot remove that pass) and alone
    at the fastest share;
    the largest of :func:`models.evacuation.makespan_bound` (volume over
    the fastest aggregate rate up to ``concurrency``, the longest VM, the
    slot bounds) and the proven bound of the slot placement problem with
    those times (:func:`slot_order`: closed forms and the bound the
    search proved), each VM holding its slot ``setup + serial_setup`` more.
    Returns (bound [s], the placement method).

    With ``prove=False`` the search is not run where the closed forms
    already reach LPT's makespan: no bound of the placement problem
    exceeds a placement's makespan, so the search cannot raise the bound
    there (the same number; only the method named differs). """
    share = np.asarray(share, dtype=float)
    vms = columns["memory"].size
    top = min(concurrency, share.size - 1)
    fastest = share[1:top + 1].max()
    idle = dict(columns, cold_rate=np.zeros_like(columns["cold_rate"]),
                hot_rate=np.zeros_like(columns["hot_rate"]),
                hot_set=np.zeros_like(columns["hot_set"]))
    alone = precopy(idle, np.full(vms, fastest))
    # the disks cross at least once, with no guest writes to mirror
    disk = columns.get("disk", 0.0)
    on_link = alone["total_time"] + np.asarray(disk) / np.minimum(
        fastest, columns.get("disk_cap", np.inf))
    k = np.arange(1, top + 1)
    closed = evacuation.makespan_bound(
        alone["bytes_sent"] + disk, on_link,
        np.max(k * share[1:top + 1]), setup=setup + serial_setup,
        concurrency=min(concurrency, vms))
    # every migration holds its slot for its own set-up and one
    # serial set-up
    slot_time = setup + serial_setup + on_link
    slots = min(concurrency, vms)
    if not prove:
        lpt = place(slot_time, np.ones(slots), method="lpt")
        # a margin far above the 1e-12 capacity margin of the search
        if closed >= lpt.peak * (1 + 1e-6):
            return closed, lpt.method
    _, placed, method = slot_order(slot_time, slots, method="auto")
    return max(closed, placed), method
