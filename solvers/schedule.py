"""Evacuation schedules: the event simulation of a migration queue whose
migrations share one transfer, the named orders, the optimized order and
the concurrency sweep, all schedules of an evacuation in one vectorised
pass.

Each schedule is a queue order and a concurrency. The simulation is a
fixed point: pre-copy of every VM (:func:`models.migration.precopy`, all
VMs of all schedules at once) at a rate gives its duration at that rate;
the event simulation of the queue (:func:`models.evacuation.shared_queue`)
runs those durations with the link shared by whatever runs at each moment;
each VM's rate becomes the time-average of the share it got, until the
rates stop moving. A single VM runs alone at the one-session share, so its
result is the migration analysis' for the same rate.
"""

from dataclasses import dataclass

import numpy as np

from models import evacuation, migration

#: Relative change of every rate below which the fixed point stops
#: (0.1 %: below what a plan can tell apart).
TOLERANCE = 1e-3
#: Iterations before damping (averaging old and new rates) sets in, and
#: the most iterations run.
UNDAMPED_ITERATIONS, MAX_ITERATIONS = 4, 40


@dataclass(frozen=True)
class ScheduleResult:
    """Every schedule's simulated queue, ``scipy.optimize`` style.

    Arrays are schedules x VMs (VMs by index, not queue position), except
    ``makespan`` and ``not_converged`` (per schedule).

    Attributes
    ----------
    start, end : numpy.ndarray
        Migration intervals. [s]
    rate : numpy.ndarray
        Time-averaged rate each migration got. [B/s]
    converged : numpy.ndarray of bool
    rounds, downtime, throttle : numpy.ndarray
        Pre-copy rounds, downtime [s] (NaN without switchover), final
        guest throttle (0-1).
    outcome : numpy.ndarray of int
        Index into :data:`models.migration.OUTCOMES`.
    makespan : numpy.ndarray
        Time until the last migration ends. [s]
    not_converged : numpy.ndarray of int
    iterations : int
    success : bool
        The fixed point was reached.
    status : int
        0 reached, 1 iteration limit.
    message : str
    """

    start: np.ndarray
    end: np.ndarray
    rate: np.ndarray
    converged: np.ndarray
    rounds: np.ndarray
    downtime: np.ndarray
    throttle: np.ndarray
    outcome: np.ndarray
    makespan: np.ndarray
    not_converged: np.ndarray
    iterations: int
    success: bool
    status: int
    message: str


#: Rows per call of the pre-copy model without traces: its round loop
#: keeps about 40 arrays per row alive (330 B a row measured: 3.3 GB for
#: 1e7 rows in one call), so long columns go through in chunks of this
#: many rows and memory stays flat.
PRECOPY_CHUNK_ROWS = 65_536


def precopy(columns, rate, *, trace=False):
    """:func:`models.migration.precopy` of pre-copy model columns
    (:func:`solvers.inputs.migration_row`) at ``rate`` [B/s], broadcast.

    QEMU's max-bandwidth (the ``max_bandwidth`` column) caps the rate, and
    a capped migration thread sends in 100 ms windows instead of 50 ms
    iterations. The result's ``rate`` is the rate used [B/s]. Without
    traces, rows are evaluated :data:`PRECOPY_CHUNK_ROWS` at a time."""
    shape = np.broadcast_shapes(np.shape(rate),
                                *(np.shape(v) for v in columns.values()))
    if trace or len(shape) != 1 or shape[0] <= PRECOPY_CHUNK_ROWS:
        return _precopy(columns, rate, trace)
    rows = shape[0]
    rate = np.broadcast_to(rate, shape)
    columns = {k: np.broadcast_to(v, shape) for k, v in columns.items()}
    results = {}
    for start in range(0, rows, PRECOPY_CHUNK_ROWS):
        part = slice(start, start + PRECOPY_CHUNK_ROWS)
        done = _precopy({k: v[part] for k, v in columns.items()},
                        rate[part], False)
        for key, values in done.items():
            if key not in results:
                results[key] = np.empty(rows, dtype=np.asarray(values).dtype)
            results[key][part] = values
    return results


def _precopy(columns, rate, trace):
    p = columns
    capped = rate > p["max_bandwidth"]
    rate = np.minimum(rate, p["max_bandwidth"])
    result = migration.precopy(
        p["memory"], rate, p["cold_rate"], hot_set=p["hot_set"],
        hot_rate=p["hot_rate"], first_rate=np.minimum(p["first_cap"], rate),
        zero_fraction=p["zero_fraction"],
        downtime_limit=p["downtime_limit"], min_pages=p["min_pages"],
        fraction_left=p["fraction_left"], max_rounds=p["max_rounds"],
        max_factor=p["max_factor"], max_switchover=p["max_switchover"],
        time_budget=p["time_budget"], throttle=p["throttle"],
        fixed_downtime=p["fixed_downtime"], sync=p["sync"],
        iteration_s=np.where(capped, migration.QEMU_CAPPED_ITERATION_S,
                             migration.QEMU_ITERATION_S),
        sync_timer_s=p["sync_timer"], test_sent_pass=p["test_sent_pass"],
        final_live_pass=p["final_live_pass"], trace=trace)
    result["rate"] = rate
    return result


def _durations(columns, result, rate):
    """Slot time of each migration: its total time, or for one that never
    switches over one pass of its memory (then it is given up)."""
    one_pass = columns["memory"] * (1 - columns["zero_fraction"]) / rate
    return np.where(result["converged"], result["total_time"], one_pass)


def simulate(columns, share, orders, concurrency):
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

    Returns
    -------
    ScheduleResult
    """
    share = np.asarray(share, dtype=float)
    orders = np.atleast_2d(orders)
    count, vms = orders.shape
    concurrency = np.broadcast_to(np.asarray(concurrency), (count,))
    top = share.size - 1
    first = share[np.minimum(np.minimum(concurrency, vms), top)]
    rate = np.broadcast_to(first[:, None], (count, vms)).copy()
    status, change = 1, np.inf
    for iteration in range(1, MAX_ITERATIONS + 1):
        result = precopy(columns, rate)
        work = _durations(columns, result, rate)
        start, end = evacuation.shared_queue(work, rate, orders,
                                             concurrency, share)
        got = rate * work / (end - start)   # time-average of the share
        change = np.max(np.abs(got / rate - 1))
        if change < TOLERANCE:
            status = 0
            break
        if iteration < MAX_ITERATIONS:  # else keep the rates simulated
            rate = got if iteration <= UNDAMPED_ITERATIONS \
                else 0.5 * (got + rate)
    converged = result["converged"]
    return ScheduleResult(
        start=start, end=end, rate=rate, converged=converged,
        rounds=result["rounds"], downtime=result["downtime"],
        throttle=result["throttle"], outcome=result["outcome"],
        makespan=end.max(axis=1),
        not_converged=np.count_nonzero(~converged, axis=1),
        iterations=iteration, success=status == 0, status=status,
        message="durations and shared rates agree" if status == 0 else
        f"rates still moving after {MAX_ITERATIONS} iterations "
        f"(largest relative change {change:.2g})")


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


def candidate_orders(columns, priority, alone_time, fails_shared):
    """Orders the optimizer tries: the named ones, longest processing
    time first (LPT, a 4/3 approximation of the makespan on identical
    slots), and LPT with the VMs that cannot converge at the shared rate
    moved to the end, least dirtying first (they then run with fewer
    others, at a larger share)."""
    dirtying = columns["hot_rate"] + columns["cold_rate"]
    lpt = np.argsort(-alone_time, kind="stable")
    hot_last = np.lexsort((-alone_time, dirtying, fails_shared))
    return [*named_orders(columns, priority).values(), lpt, hot_last]


def plan(columns, priority, share, concurrencies):
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

    Returns
    -------
    dict
        ``result`` (:class:`ScheduleResult` over all schedules),
        ``concurrency`` and ``order`` (index into the candidates) of each
        schedule, ``orders`` (the candidate orders by concurrency), and
        ``named`` (the order names of the first candidates).
    """
    share = np.asarray(share, dtype=float)
    vms = columns["memory"].size
    orders, owner, slot = [], [], []
    by_concurrency = {}
    for c in concurrencies:
        rate = np.full(vms, share[min(c, vms)])
        shared = precopy(columns, rate)
        alone_time = _durations(columns, shared, rate)
        candidates = candidate_orders(columns, priority, alone_time,
                                      ~shared["converged"])
        by_concurrency[c] = candidates
        orders += candidates
        owner += [c] * len(candidates)
        slot += range(len(candidates))
    result = simulate(columns, share, np.array(orders), np.array(owner))
    return {"result": result, "concurrency": np.array(owner),
            "order": np.array(slot), "orders": by_concurrency,
            "named": tuple(named_orders(columns, priority))}


def best(plan_, rows):
    """Row of the best schedule among ``rows``: fewest VMs that do not
    converge, then the shortest makespan, then the lowest concurrency."""
    result = plan_["result"]
    rows = np.asarray(rows)
    key = np.lexsort((plan_["concurrency"][rows], result.makespan[rows],
                      result.not_converged[rows]))
    return int(rows[key[0]])


def lower_bound(columns, share, concurrency):
    """Lower bound on the makespan at a concurrency
    (:func:`models.evacuation.makespan_bound`): every VM as if its guest
    were idle (one pass of its memory: dirtying adds rounds, throttling
    cannot remove that pass), alone at the fastest share, and all those
    bytes at the fastest aggregate rate up to ``concurrency``. [s]"""
    share = np.asarray(share, dtype=float)
    top = min(concurrency, share.size - 1)
    fastest = share[1:top + 1].max()
    idle = dict(columns, cold_rate=np.zeros_like(columns["cold_rate"]),
                hot_rate=np.zeros_like(columns["hot_rate"]),
                hot_set=np.zeros_like(columns["hot_set"]))
    alone = precopy(idle, np.full(columns["memory"].size, fastest))
    k = np.arange(1, top + 1)
    return evacuation.makespan_bound(alone["bytes_sent"],
                                     alone["total_time"],
                                     np.max(k * share[1:top + 1]))
