"""Optimal placement of unsplittable flows (or ports) on team members:
minimise the peak member utilization.

The problem is makespan minimisation on uniform machines (``Q||Cmax``),
with allowed sets for pinning and anti-affinity groups; it is NP-hard even
for two equal members (docs/reference/teaming.md section 7). The method
of section 7.6: closed-form lower bounds and the LPT heuristic polished by
a move/swap local search always; when the gap is above tolerance, a
bisection on the peak whose steps are decided by an exact bin-completion
search (:func:`fit_into`, after Korf's bin completion, section 7.6's
alternatives): a packing found lowers the incumbent, a packing proven
impossible raises the lower bound. On request, or above the search's size
limit, ``scipy.optimize.milp`` (HiGHS) instead: it takes no start, so the
incumbent enters as a cap on the objective; identical members are made
distinguishable by ordering them by their first (largest) unit, which
leaves one of their interchangeable placements feasible.
"""

import time
import warnings
from dataclasses import dataclass

import numpy as np

from models.teaming import placement_lower_bound

#: Solve with the MILP only up to this many binaries (flows x members);
#: above it HiGHS rarely closes the gap within the time limit, while the
#: LPT gap shrinks as units get many and small (teaming.md section 7.6).
MILP_MAX_BINARIES = 4000

#: Above this many units LPT places the largest ones one by one and fills
#: the many small rest in one vectorised water-filling pass.
LPT_EXACT_UNITS = 2000

#: The move/swap local search runs up to this many units (a swap scan is
#: quadratic in the units) and this many improving steps per unit.
LOCAL_SEARCH_UNITS = 1000
LOCAL_SEARCH_STEPS_PER_UNIT = 4

#: The bin-completion search runs up to this many units (its depth grows
#: with the units, and above it LPT's gap is far below any tolerance).
SEARCH_MAX_UNITS = 400

#: Relative margin on the capacities of a search step: a step proven
#: infeasible at ``peak * (1 + margin)`` proves the bound ``peak`` whatever
#: the rounding of its sums (~1e-16 relative).
SEARCH_CAPACITY_MARGIN = 1e-12

#: Smallest step of the bisection (relative): with ``mip_rel_gap=0`` it
#: proves the optimum to this resolution.
SEARCH_MIN_STEP = 1e-9

#: Relative rounding allowance of the search's pruning tests, on the sum
#: of capacities and demands (a sum of n terms errs by ~n * 1.1e-16).
SEARCH_ROUNDING = 1e-12

#: The search counts its steps and looks at the clock every this many
#: steps of a completion.
SEARCH_CLOCK_TICKS = 1024

#: Completions of a member are tried fullest first within batches of this
#: many (all of them sorted would enumerate every one before the first try).
SEARCH_COMPLETION_BATCH = 64

#: The counting bound looks at the ``COUNTING_UNITS_PER_MEMBER x members``
#: largest units: it is strongest with few units per member.
COUNTING_UNITS_PER_MEMBER = 8

#: Options of :func:`place` and their defaults.
DEFAULT_OPTIONS = {"tol": 0.005, "time_limit": 2.0, "step_limit": None,
                   "node_limit": None, "mip_rel_gap": 1e-4}

#: Limits of a placement inside ``evaluate()``: counted in steps of the
#: search (~0.25 s of one core at the ~850k steps/s measured on the
#: placement benchmark's instances, whose hardest takes 37k) and nodes of
#: HiGHS, so that an analysis gives the same numbers on a busy machine as
#: on an idle one; the clock only guards against a pathological instance.
EVALUATE_OPTIONS = {"step_limit": 200_000, "node_limit": 200,
                    "time_limit": 30.0}

#: The status codes of :class:`PlacementResult`, scipy style.
STATUS_MESSAGES = {
    0: "Optimal: the peak equals the lower bound.",
    1: "Feasible, not proven optimal within the tolerance: the gap to the "
       "lower bound is reported.",
    2: "Infeasible: a unit has no allowed member left (allowed sets and "
       "anti-affinity groups).",
}


@dataclass(frozen=True)
class PlacementResult:
    """Result of :func:`place`, in the style of ``scipy.optimize``.

    Attributes
    ----------
    member : numpy.ndarray of int
        Member index of each unit (-1 when infeasible).
    peak : float
        Peak utilization ``max_u load_u / speed_u`` of that placement. [1]
    lower_bound : float
        Proven lower bound on the optimal peak: the largest of the closed
        forms (:func:`lower_bound`) and the peak the search proved
        impossible to beat, or the MILP's dual bound. [1]
    gap : float
        ``(peak - lower_bound) / peak``, as scipy's ``mip_gap``: the
        proven relative distance to the optimum. [1]
    method : str
        ``'lpt'`` (LPT, then local search), ``'search'`` (bin completion)
        or ``'milp'``: what produced ``member``.
    success : bool
        True when ``member`` is a feasible placement.
    status : int
        0: proven optimal within the tolerance (``mip_rel_gap``); 1: the
        gap is open (time limit, or ``method='lpt'``), or no placement was
        found in time (``success`` False); 2: proven infeasible.
    message : str
    """

    member: np.ndarray
    peak: float
    lower_bound: float
    gap: float
    method: str
    success: bool
    status: int
    message: str


def place(demand, speed, *, allowed=None, groups=None, method="auto",
          options=None):
    """Place unsplittable units on members to minimise the peak utilization.

    Parameters
    ----------
    demand : array-like of float, shape (F,)
        Demand of each unit, finite and >= 0. [Gbit/s]
    speed : array-like of float, shape (U,)
        Member speeds, finite and > 0; at least one member. [Gbit/s]
    allowed : array-like of bool, shape (F, U), optional
        Members each unit may use (pinning, active lists). Default: all.
    groups : array-like of int, shape (F,), optional
        Anti-affinity group of each unit; units of one group (>= 0) must sit
        on distinct members. -1 means no group.
    method : {'auto', 'lpt', 'search', 'milp'}, default 'auto'
        ``lpt``: LPT and local search only. ``search``: then the bisection
        with the bin-completion search (up to ``SEARCH_MAX_UNITS`` units).
        ``milp``: then HiGHS. ``auto`` goes on from LPT only when its gap
        exceeds ``tol`` (or LPT placed nothing): to ``search`` up to
        ``SEARCH_MAX_UNITS`` units, else to ``milp`` up to
        ``MILP_MAX_BINARIES`` binaries.
    options : dict, optional
        ``tol`` (relative gap accepted without going on, default 0.005),
        ``time_limit`` (s, default 2.0), ``step_limit`` (steps of the
        search) and ``node_limit`` (branch-and-bound nodes of HiGHS), both
        default None (none; limits that, unlike the clock, give the same
        result on a busy machine, see ``EVALUATE_OPTIONS``),
        ``mip_rel_gap`` (where the search
        or HiGHS stops: default ``tol`` with ``auto``, whose aim is a proven
        gap within ``tol``, and 1e-4 otherwise, which asks for the
        optimum). Unknown keys raise an ``OptimizeWarning``, as in
        scipy.optimize.

    Returns
    -------
    PlacementResult

    Raises
    ------
    ValueError
        On a demand or speed that is negative, zero (speed), not finite or
        of the wrong shape, on no members, or on an unknown method.
    """
    unknown = set(options or {}) - set(DEFAULT_OPTIONS)
    if unknown:
        # as scipy.optimize does: a misspelt option must not pass silently
        # (imported here: scipy.optimize costs ~0.4 s of start-up)
        from scipy.optimize import OptimizeWarning
        warnings.warn(f"Unknown options of place: "
                      f"{', '.join(sorted(unknown))} (known: "
                      f"{', '.join(DEFAULT_OPTIONS)})", OptimizeWarning,
                      stacklevel=2)
    given = options or {}
    options = {**DEFAULT_OPTIONS, **given}
    if method == "auto" and "mip_rel_gap" not in given:
        options["mip_rel_gap"] = options["tol"]
    if method not in ("auto", "lpt", "search", "milp"):
        raise ValueError(f"method must be 'auto', 'lpt', 'search' or "
                         f"'milp', got {method!r}")
    demand, speed = _checked(demand, speed)
    units, members = demand.size, speed.size
    constrained = allowed is not None or groups is not None
    allowed = np.ones((units, members), dtype=bool) if allowed is None \
        else np.asarray(allowed, dtype=bool)
    groups = np.full(units, -1) if groups is None else np.asarray(groups)
    if allowed.shape != (units, members) or groups.shape != (units,):
        raise ValueError(f"allowed must have shape ({units}, {members}) and "
                         f"groups ({units},) for {units} units on {members} "
                         f"members, got {allowed.shape} and {groups.shape}")
    if units and not allowed.any(axis=1).all():
        return _infeasible(units)
    started = time.perf_counter()
    bound = lower_bound(demand, speed,
                        allowed=allowed if constrained else None)
    if units == 0 or bound == 0:
        return _result(np.zeros(units, dtype=int), demand, speed, bound,
                       "lpt", 1)
    member = lpt(demand, speed, allowed=allowed if constrained else None,
                 groups=groups if constrained else None)
    if (member < 0).any():
        member = None
    elif units <= LOCAL_SEARCH_UNITS:
        member = local_search(member, demand, speed,
                              allowed=allowed if constrained else None,
                              groups=groups if constrained else None)
    best = _result(member, demand, speed, bound, "lpt", 1) \
        if member is not None else None
    if method == "auto" and best is not None and best.gap <= options["tol"]:
        # proven within the tolerance asked for: optimal in scipy's sense
        return _result(best.member, demand, speed, bound, "lpt", 0)
    searchable = units <= SEARCH_MAX_UNITS
    if method == "search" and not searchable:
        raise ValueError(f"method 'search' takes at most {SEARCH_MAX_UNITS} "
                         f"units, got {units}")
    if method == "auto" and searchable:
        method = "search"
    if method == "search":
        return _bisect(demand, speed, bound, best, options,
                       SearchBudget(started + options["time_limit"],
                                    options["step_limit"]),
                       allowed=allowed if constrained else None,
                       groups=groups if constrained else None)
    small = units * members <= MILP_MAX_BINARIES
    if method == "lpt" or (method == "auto" and best is not None
                           and not small):
        return best if best is not None else _infeasible(units)
    return _milp(demand, speed, allowed, groups, bound, best, options)


def _checked(demand, speed):
    """Demand and speed as float arrays; a clear ValueError naming the
    argument and the offending value on anything else."""
    arrays = []
    for name, value, minimum in (("demand", demand, "0"),
                                 ("speed", speed, "positive")):
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numbers, got {value!r}") \
                from None
        if array.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (one value per "
                             f"{'unit' if name == 'demand' else 'member'}), "
                             f"got shape {array.shape}")
        bad = ~np.isfinite(array) | ((array < 0) if minimum == "0"
                                     else (array <= 0))
        if bad.any():
            index = int(np.flatnonzero(bad)[0])
            rule = ">= 0" if minimum == "0" else "> 0"
            raise ValueError(f"{name}[{index}] must be finite and {rule}, "
                             f"got {float(array[index])!r}")
        arrays.append(array)
    if not arrays[1].size:
        raise ValueError("speed is empty: a placement needs at least one "
                         "member")
    return arrays


#: Stack entry of the completion search that takes a unit back out.
_UNDO = -1


class SearchTimeout(Exception):
    """The bin-completion search reached its time or step limit: nothing
    proven."""


class SearchBudget:
    """What the search may spend: a ``time.perf_counter()`` deadline and a
    number of steps, shared by the steps of a bisection (either None:
    no limit)."""

    def __init__(self, deadline=None, steps=None):
        self.deadline, self.steps_left = deadline, steps

    def spend(self, steps):
        """Charge ``steps``; SearchTimeout once a limit is passed."""
        if self.steps_left is not None:
            self.steps_left -= steps
            if self.steps_left < 0:
                raise SearchTimeout
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise SearchTimeout


def fit_into(demand, capacity, *, allowed=None, groups=None, budget=None):
    """Decide whether the units fit on members of the given capacities
    (bin packing with one bin per member), exactly.

    Parameters
    ----------
    demand : array-like of float, shape (F,)
        Demand of each unit, >= 0. [Gbit/s]
    capacity : array-like of float, shape (U,)
        Load each member may carry, ``peak * speed`` for a peak. [Gbit/s]
    allowed : array-like of bool, shape (F, U), optional
        Members each unit may use. Default: all.
    groups : array-like of int, shape (F,), optional
        Anti-affinity groups, as in :func:`place`.
    budget : SearchBudget, optional
        Time and steps the search may spend. Default: no limit.

    Returns
    -------
    numpy.ndarray of int, shape (F,), or None
        A member of each unit with every load within its capacity, or
        None when the search proved that there is none.

    Raises
    ------
    SearchTimeout
        When the budget runs out first.

    Notes
    -----
    Bin completion (Korf 2003; Schreiber & Korf 2013, teaming.md section
    7.6): members are filled one at a time, smallest capacity first (the
    most constrained), each with a whole set of units. The sets tried are
    restricted by dominance among the packings that maximise the members'
    loads lexicographically in that order, one of which exists whenever
    any packing does [Derived]: in it no unit left for later members fits
    into a member's spare capacity (it would raise that load; with groups,
    only units of no group are counted), without allowed sets or groups no
    swap of a unit with a larger one left for later fits (likewise), and
    interchangeable members (equal capacity and allowed units) carry
    non-increasing loads (else exchanging their sets raises the earlier
    load). The capacity not used so far (the slack) bounds the spare
    capacity every member may leave; a member's spare capacity beyond what
    the units left that may go there can fill, summed, must stay within
    the slack, the k largest units left must fit on the k largest members
    left, and each unit left needs a member left that may take it.

    References
    ----------
    R. E. Korf, "An improved algorithm for optimal bin packing", IJCAI
    2003. E. L. Schreiber and R. E. Korf, "Improved bin completion for
    optimal bin packing and number partitioning", IJCAI 2013
    (http://ijcai.org/papers13/Abstracts/103.html).
    """
    demand = np.asarray(demand, dtype=float)
    capacity = np.asarray(capacity, dtype=float)
    by_size = np.argsort(-demand, kind="stable")
    by_capacity = np.argsort(capacity, kind="stable")
    size = demand[by_size].tolist()
    room = capacity[by_capacity].tolist()
    members = len(room)
    plain = allowed is None and groups is None
    # may[j][unit]: whether member j (by capacity) may take unit (by size)
    may = np.ones((members, len(size)), dtype=bool) if allowed is None \
        else np.asarray(allowed, dtype=bool)[by_size][:, by_capacity].T
    group = [-1] * len(size) if groups is None \
        else np.asarray(groups)[by_size].tolist()
    same_as_previous = [0 < j and room[j] == room[j - 1]
                        and (may[j] == may[j - 1]).all()
                        for j in range(members)]
    may = may.tolist()
    slack = sum(room) - sum(size)
    # the pruning tests compare sums taken in different orders: they allow
    # this much rounding, so that they only ever prune less
    rounding = SEARCH_ROUNDING * (sum(room) + sum(size))
    if not size:
        return np.zeros(0, dtype=int)
    if slack < -rounding:
        return None
    member = [-1] * len(size)
    failed = set()
    ticks = [0]

    def completions(pool, cap, need, most):
        """Sets of the units ``pool`` (sorted decreasing, all allowed) that
        fit within ``min(cap, most)``, load at least ``need`` and are not
        dominated; fullest first within each batch."""
        values = [size[unit] for unit in pool]
        after = [0.0] * (len(values) + 1)
        for k in range(len(values) - 1, -1, -1):
            after[k] = after[k + 1] + values[k]
        ceiling = min(cap, most + rounding)
        chosen, used = [], set()
        count = len(values)
        # depth-first over include / leave out, on an explicit stack: a
        # generator per level would pass every set found up through all
        # the levels above it. An entry is a node (k, load, need) or, for
        # k = UNDO, the unit to take back out of ``chosen``
        stack = [(0, 0.0, need)]
        batch = []
        while stack:
            k, load, need = stack.pop()
            if k == _UNDO:
                used.discard(group[pool[chosen.pop()]])
                continue
            if load + after[k] < need:
                continue
            ticks[0] += 1
            if budget is not None and not ticks[0] % SEARCH_CLOCK_TICKS:
                budget.spend(SEARCH_CLOCK_TICKS)
            if k == count:
                if not plain or not _swap_dominated(values, chosen,
                                                    cap - load):
                    batch.append((load, [pool[c] for c in chosen]))
                    if len(batch) == SEARCH_COMPLETION_BATCH:
                        yield from sorted(batch, key=lambda item: -item[0])
                        batch = []
                continue
            value, label = values[k], group[pool[k]]
            # leaving out a unit that fits means the spare capacity must
            # end below it (else the set is dominated)
            need_without = max(need, cap - value - rounding) \
                if load + value <= cap and label < 0 else need
            if load + value <= ceiling and label not in used:
                # equal units (of no group): leave out the whole run once
                skip = k + 1
                while label < 0 and skip < count \
                        and values[skip] == value and group[pool[skip]] < 0:
                    skip += 1
                stack.append((skip, load, need_without))
                stack.append((_UNDO, 0.0, 0.0))
                chosen.append(k)
                if label >= 0:
                    used.add(label)
                stack.append((k + 1, load + value, need))
            else:
                stack.append((k + 1, load, need_without))
        yield from sorted(batch, key=lambda item: -item[0])

    def fill(j, left, mask, slack, previous_load):
        if budget is not None:
            budget.spend(1)
        most = previous_load if same_as_previous[j] else np.inf
        if j == members - 1:
            load = sum(size[unit] for unit in left)
            labels = [group[unit] for unit in left if group[unit] >= 0]
            if load > room[j] or load > most + rounding \
                    or not all(may[j][unit] for unit in left) \
                    or len(labels) != len(set(labels)):
                return False
            for unit in left:
                member[unit] = j
            return True
        key = (j, mask, most)
        if key in failed or not _room_for(left, j, slack, rounding, size,
                                          room, may):
            return False
        cap = room[j]
        pool = [unit for unit in left if may[j][unit]]
        for load, taken in completions(pool, cap, cap - slack - rounding,
                                       most):
            taken_set = set(taken)
            rest = [unit for unit in left if unit not in taken_set]
            rest_mask = mask
            for unit in taken:
                rest_mask &= ~(1 << unit)
            if fill(j + 1, rest, rest_mask, slack - (cap - load), load):
                for unit in taken:
                    member[unit] = j
                return True
        failed.add(key)
        return False

    if not fill(0, list(range(len(size))), (1 << len(size)) - 1, slack,
                np.inf):
        return None
    placed = np.empty(len(size), dtype=int)
    placed[by_size] = by_capacity[np.array(member)]
    return placed


def _swap_dominated(values, chosen, spare):
    """Whether a unit left out (of ``values``, sorted decreasing) could
    replace a smaller chosen one within the spare capacity."""
    if not chosen or spare <= 0:
        return False
    taken = set(chosen)
    for k in chosen:
        # the smallest unit left out that is larger than unit k: scan up
        for larger in range(k - 1, -1, -1):
            if larger not in taken and values[larger] > values[k]:
                if values[larger] - values[k] <= spare:
                    return True
                break
    return False


def _room_for(left, j, slack, rounding, size, room, may):
    """Necessary conditions for the units ``left`` (sorted decreasing) on
    the members ``j..`` (capacities ``room``, increasing; ``may[j][unit]``
    whether member j may take the unit), up to ``rounding``: every unit
    has a member that may take it and is large enough, the k largest
    units fit on the k largest members, and the spare capacity that no
    unit left can fill stays within the slack."""
    spare = 0.0
    for b in range(j, len(room)):
        cap = room[b]
        fitting = sum(size[unit] for unit in left
                      if size[unit] <= cap and may[b][unit])
        spare += max(cap - fitting, 0.0)
    if spare > slack + rounding:
        return False
    for unit in left:
        if not any(may[b][unit] and size[unit] <= room[b] + rounding
                   for b in range(j, len(room))):
            return False
    units, caps = 0.0, 0.0
    for unit, cap in zip(left, reversed(room[j:])):
        units += size[unit]
        caps += cap
        if units > caps + rounding:
            return False
    return True


def _bisect(demand, speed, bound, incumbent, options, budget, *,
            allowed=None, groups=None):
    """Bisection on the peak from the incumbent down: each step asks
    :func:`fit_into` for a packing at ``peak * (1 - mip_rel_gap)``; a
    packing found is the new incumbent, a proof that none exists the new
    lower bound (and the end). Without an incumbent (LPT stuck on allowed
    sets or groups) the first step asks for any packing: every member
    able to take all the demand."""
    step = max(options["mip_rel_gap"], SEARCH_MIN_STEP)
    if incumbent is None:
        anything = np.full(speed.size, demand.sum()
                           * (1 + SEARCH_CAPACITY_MARGIN))
        try:
            member = fit_into(demand, anything, allowed=allowed,
                              groups=groups, budget=budget)
        except SearchTimeout:
            return _unplaced(demand.size, 1, "No placement found within "
                             "the time or step limit (LPT left a unit "
                             "without an allowed member).")
        if member is None:
            return _unplaced(demand.size, 2, STATUS_MESSAGES[2])
        incumbent = _result(member, demand, speed, bound, "search", 1)
    member, peak = incumbent.member, incumbent.peak
    proven = False
    while not proven:
        trial = peak * (1 - step)
        if trial <= bound:
            proven = True
            break
        try:
            packed = fit_into(demand, trial * speed
                              * (1 + SEARCH_CAPACITY_MARGIN),
                              allowed=allowed, groups=groups,
                              budget=budget)
        except SearchTimeout:
            break
        if packed is None:
            bound, proven = trial, True
        else:
            member = packed
            peak = float((np.bincount(member, weights=demand,
                                      minlength=speed.size) / speed).max())
    return _result(member, demand, speed, bound, "search",
                   0 if proven else 1)


def lpt(demand, speed, *, allowed=None, groups=None):
    """Longest-processing-time-first on uniform members: each unit, largest
    first, goes where it would finish earliest, ``argmin_u (L_u + d) /
    C_u`` (teaming.md section 7.3).

    Parameters
    ----------
    demand : array-like of float, shape (F,)
        [Gbit/s]
    speed : array-like of float, shape (U,)
        [Gbit/s]
    allowed : array-like of bool, shape (F, U), optional
    groups : array-like of int, shape (F,), optional
        Anti-affinity groups, as in :func:`place`.

    Returns
    -------
    numpy.ndarray of int, shape (F,)
        Member of each unit; -1 where no allowed member is left.
    """
    demand = np.asarray(demand, dtype=float)
    speed = np.asarray(speed, dtype=float)
    order = np.argsort(-demand, kind="stable")
    member = np.full(demand.size, -1)
    load = np.zeros(speed.size)
    if allowed is None and groups is None \
            and demand.size > LPT_EXACT_UNITS:
        head, tail = order[:LPT_EXACT_UNITS], order[LPT_EXACT_UNITS:]
    else:
        head, tail = order, order[:0]
    used_by_group = {}
    for unit in head:
        finish = (load + demand[unit]) / speed
        if allowed is not None:
            finish = np.where(allowed[unit], finish, np.inf)
        if groups is not None and groups[unit] >= 0:
            taken = used_by_group.setdefault(groups[unit],
                                             np.zeros(speed.size, bool))
            finish = np.where(taken, np.inf, finish)
        best = int(np.argmin(finish))
        if not np.isfinite(finish[best]):
            continue
        member[unit] = best
        load[best] += demand[unit]
        if groups is not None and groups[unit] >= 0:
            used_by_group[groups[unit]][best] = True
    if tail.size:
        member[tail] = _water_fill(demand[tail], speed, load)
    return member


def _water_fill(demand, speed, load):
    """Give each member a contiguous run of the (sorted, small) remaining
    units so that all finish near the same level: each member overshoots
    its level by at most one unit."""
    total = load.sum() + demand.sum()
    level = total / speed.sum()
    # members already above the level take nothing; raise the level over
    # the rest until the room matches the demand
    for _ in range(speed.size):
        room = np.maximum(level * speed - load, 0.0)
        open_ = room > 0
        level = (demand.sum() + load[open_].sum()) / speed[open_].sum()
    room = np.maximum(level * speed - load, 0.0)
    edges = np.cumsum(room)
    midpoints = np.cumsum(demand) - demand / 2
    return np.minimum(np.searchsorted(edges, midpoints), speed.size - 1)


def lower_bound(demand, speed, *, allowed=None):
    r"""Proven lower bound on the optimal peak utilization.

    Parameters
    ----------
    demand : array-like of float, shape (F,)
        [Gbit/s]
    speed : array-like of float, shape (U,)
        [Gbit/s]
    allowed : array-like of bool, shape (F, U), optional
        Members each unit may use.

    Returns
    -------
    float
        The largest of the preemptive bound
        (:func:`models.teaming.placement_lower_bound`), the counting bound
        and, with allowed sets, ``max_f d_f / max_{u in A_f} C_u``. [1]

    Notes
    -----
    Counting bound: at a peak ``T`` member u holds at most
    :math:`n_u(T)` of the k largest units, the most whose n smallest
    (:math:`S_k(n)`, the sum of the n smallest of the k largest) fit
    within :math:`T C_u`; all k are held, so :math:`\sum_u n_u(T) \ge k`
    and the least such ``T`` is the k-th smallest of
    :math:`\{S_k(n) / C_u\}_{n \le k, u}` (a pigeonhole argument,
    [Derived] as teaming.md section 7.2's LB2, which is its n = 1 case).
    It is what lifts the bound with few units per member, where the
    preemptive bound is loose (section 7.5).
    """
    demand = np.asarray(demand, dtype=float)
    speed = np.asarray(speed, dtype=float)
    bound = float(placement_lower_bound(demand, speed))
    if demand.size:
        bound = max(bound, _counting_bound(demand, speed))
    if allowed is not None and demand.size:
        reachable = np.where(allowed, speed, 0.0).max(axis=1)
        bound = max(bound, float((demand / reachable).max()))
    return bound


def _counting_bound(demand, speed):
    largest = -np.sort(-demand)[:COUNTING_UNITS_PER_MEMBER * speed.size]
    count = largest.size
    prefix = np.concatenate([[0.0], np.cumsum(largest)])
    rank = np.arange(1, count + 1)
    held = np.arange(1, count + 1)
    # smallest[k, n]: the n + 1 smallest of the k + 1 largest units
    # (inf where n > k); member u holds n + 1 of them only at a peak of
    # at least smallest / C_u, and the k + 1 must all be held
    smallest = prefix[rank][:, None] - prefix[np.maximum(
        rank[:, None] - held[None, :], 0)]
    smallest = np.where(held[None, :] <= rank[:, None], smallest, np.inf)
    peaks = (smallest[:, None, :] / speed[None, :, None]).reshape(count, -1)
    ranked = np.sort(peaks, axis=1)[np.arange(count), rank - 1]
    return float(ranked.max())


def local_search(member, demand, speed, *, allowed=None, groups=None):
    """Improve a placement by moving one unit off the busiest member, or
    swapping it with a smaller unit elsewhere (teaming.md section 7.6,
    step 5).

    Parameters
    ----------
    member : array-like of int, shape (F,)
        A feasible placement.
    demand, speed, allowed, groups
        As in :func:`place`.

    Returns
    -------
    numpy.ndarray of int, shape (F,)
        A placement whose peak is at most the given one's.

    Notes
    -----
    Each step takes the move or swap that leaves both members it touches
    below the current peak with the smallest larger of their two
    utilizations; it lowers the peak or the number of members at it, so
    the search ends.
    """
    member = np.array(member)
    demand = np.asarray(demand, dtype=float)
    speed = np.asarray(speed, dtype=float)
    units, members = demand.size, speed.size
    if allowed is None:
        allowed = np.ones((units, members), dtype=bool)
    if groups is None or (np.asarray(groups) < 0).all():
        group, occupied = None, None
    else:
        labels, group = np.unique(np.where(np.asarray(groups) >= 0,
                                           groups, -1), return_inverse=True)
        group = np.where(labels[group] >= 0, group, -1)
        occupied = np.zeros((labels.size, members), dtype=int)
        np.add.at(occupied, (group[group >= 0], member[group >= 0]), 1)
    load = np.bincount(member, weights=demand, minlength=members)
    for _ in range(LOCAL_SEARCH_STEPS_PER_UNIT * units):
        utilization = load / speed
        busiest = int(np.argmax(utilization))
        peak = utilization[busiest] * (1 - 1e-12)
        on = np.flatnonzero(member == busiest)
        off = np.flatnonzero(member != busiest)
        # moves: unit a (on the busiest) to member v
        after = np.maximum((load + demand[on, None]) / speed,
                           ((load[busiest] - demand[on]) / speed[busiest])
                           [:, None])
        legal = allowed[on].copy()
        legal[:, busiest] = False
        if group is not None:
            grouped = group[on] >= 0
            legal[grouped] &= occupied[group[on[grouped]]] == 0
        after = np.where(legal, after, np.inf)
        a, v = np.unravel_index(np.argmin(after), after.shape)
        if after[a, v] < peak:
            unit, target = on[a], v
            _shift(member, load, occupied, group, demand, unit, target)
            continue
        if not off.size:
            break
        # swaps: unit a (busiest) with a smaller unit b on member v
        there = member[off]
        delta = demand[on, None] - demand[off][None, :]
        after = np.maximum((load[busiest] - delta) / speed[busiest],
                           (load[there] + delta) / speed[there])
        legal = (delta > 0) & allowed[on][:, there] \
            & allowed[off, busiest][None, :]
        if group is not None:
            ga, gb = group[on][:, None], group[off][None, :]
            same = ga == gb
            free_a = (ga < 0) | (occupied[np.maximum(ga, 0), there[None, :]]
                                 - same == 0)
            free_b = (gb < 0) | (occupied[np.maximum(gb, 0), busiest]
                                 - same == 0)
            legal &= free_a & free_b
        after = np.where(legal, after, np.inf)
        a, b = np.unravel_index(np.argmin(after), after.shape)
        if not after[a, b] < peak:
            break
        target = there[b]
        _shift(member, load, occupied, group, demand, on[a], target)
        _shift(member, load, occupied, group, demand, off[b], busiest)
    return member


def _shift(member, load, occupied, group, demand, unit, target):
    load[member[unit]] -= demand[unit]
    load[target] += demand[unit]
    if group is not None and group[unit] >= 0:
        occupied[group[unit], member[unit]] -= 1
        occupied[group[unit], target] += 1
    member[unit] = target


def _result(member, demand, speed, bound, method, status, message=None):
    load = np.bincount(member, weights=demand, minlength=speed.size)
    peak = float((load / speed).max()) if demand.size else 0.0
    # no bound exceeds a placement's peak: HiGHS' dual bound may, by its
    # feasibility tolerance (~1e-9 relative measured on 7 x 3 instances)
    bound = min(bound, peak)
    gap = (peak - bound) / peak if peak > 0 else 0.0
    if gap <= SEARCH_MIN_STEP:
        status = 0
    message = message or (
        STATUS_MESSAGES[status] if status != 0 or gap <= SEARCH_MIN_STEP
        else f"Optimal within the tolerance: proven gap {100 * gap:.3g} %.")
    return PlacementResult(member=member, peak=peak, lower_bound=bound,
                           gap=max(gap, 0.0), method=method,
                           success=status in (0, 1), status=status,
                           message=message)


def _symmetry_rows(demand, speed, allowed):
    """Rows ``x[r, c_p] <= sum_{r' < r} x[r', c_{p-1}]`` over the units in
    decreasing demand (rank r) for consecutive members c of one class of
    identical members (equal speed, equal allowed column): a member of the
    class serves a unit only if the one before it serves a larger unit.
    Any placement can be relabelled within the class to satisfy them (sort
    its members by their largest unit, empty ones last), so the optimum
    stays; the ``p!`` mirror images of each placement do not.

    Returns the rows (a sparse matrix over ``[x, z]``, or None) and the
    upper bounds of ``x``, with ``x[r, c_p] = 0`` for ``r < p`` fixed."""
    from scipy.sparse import coo_matrix

    units, members = allowed.shape
    upper_x = allowed.astype(float)
    rank_order = np.argsort(-demand, kind="stable")
    signature = np.column_stack([speed, allowed.T])
    _, cls = np.unique(signature, axis=0, return_inverse=True)
    pairs = [(prev, cur) for c in np.unique(cls)
             for prev, cur in zip(np.flatnonzero(cls == c)[:-1],
                                  np.flatnonzero(cls == c)[1:])]
    if not pairs:
        return None, upper_x.ravel()
    later, earlier = np.tril_indices(units, -1)
    rows, cols, values = [], [], []
    for index, (prev, cur) in enumerate(pairs):
        position = np.flatnonzero(cls == cls[cur]).tolist().index(cur)
        upper_x[rank_order[:position], cur] = 0.0
        base = index * units
        rows += [base + np.arange(units), base + later]
        cols += [rank_order * members + cur, rank_order[earlier] * members
                 + prev]
        values += [np.ones(units), -np.ones(later.size)]
    matrix = coo_matrix((np.concatenate(values),
                         (np.concatenate(rows), np.concatenate(cols))),
                        shape=(len(pairs) * units, units * members + 1))
    return matrix, upper_x.ravel()


def _infeasible(units):
    return _unplaced(units, 2, STATUS_MESSAGES[2], method="lpt")


def _unplaced(units, status, message, method="search"):
    return PlacementResult(member=np.full(units, -1), peak=np.nan,
                           lower_bound=np.nan, gap=np.nan, method=method,
                           success=False, status=status, message=message)


def _milp(demand, speed, allowed, groups, bound, incumbent, options):
    # scipy.optimize pulls in HiGHS; imported here so that paths without a
    # placement never pay for it
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix, vstack

    units, members = allowed.shape
    n_x = units * members
    cost = np.zeros(n_x + 1)
    cost[-1] = 1.0
    rows = np.repeat(np.arange(units), members)
    one_member = coo_matrix((np.ones(n_x), (rows, np.arange(n_x))),
                            shape=(units, n_x + 1))
    cols = np.arange(n_x)
    capacity = coo_matrix(
        (np.concatenate([np.repeat(demand, members), -speed]),
         (np.concatenate([cols % members, np.arange(members)]),
          np.concatenate([cols, np.full(members, n_x)]))),
        shape=(members, n_x + 1))
    blocks = [one_member, capacity]
    lower = [np.ones(units), np.full(members, -np.inf)]
    upper = [np.ones(units), np.zeros(members)]
    for group in np.unique(groups[groups >= 0]):
        in_group = np.flatnonzero(groups == group)
        if in_group.size < 2:
            continue
        g_rows = np.tile(np.arange(members), in_group.size)
        g_cols = (in_group[:, None] * members
                  + np.arange(members)[None, :]).ravel()
        blocks.append(coo_matrix((np.ones(g_cols.size), (g_rows, g_cols)),
                                 shape=(members, n_x + 1)))
        lower.append(np.full(members, -np.inf))
        upper.append(np.ones(members))
    order_rows, upper_x = _symmetry_rows(demand, speed, allowed)
    if order_rows is not None:
        blocks.append(order_rows)
        lower.append(np.full(order_rows.shape[0], -np.inf))
        upper.append(np.zeros(order_rows.shape[0]))
    # HiGHS takes no start: the incumbent's peak caps z (with slack for
    # HiGHS' feasibility tolerance), and a unit too big for a member under
    # the cap cannot go there
    z_cap = np.inf
    if incumbent is not None:
        z_cap = incumbent.peak * (1 + 1e-9)
        upper_x = np.where((demand[:, None] / speed[None, :]).ravel()
                           > z_cap, 0.0, upper_x)
    result = milp(
        cost,
        integrality=np.concatenate([np.ones(n_x), [0]]),
        bounds=Bounds(np.concatenate([np.zeros(n_x), [bound]]),
                      np.concatenate([upper_x, [z_cap]])),
        constraints=LinearConstraint(vstack(blocks).tocsr(),
                                     np.concatenate(lower),
                                     np.concatenate(upper)),
        options={"time_limit": options["time_limit"],
                 "mip_rel_gap": options["mip_rel_gap"],
                 **({} if options["node_limit"] is None
                    else {"node_limit": options["node_limit"]})})
    dual = getattr(result, "mip_dual_bound", None)
    if dual is not None and np.isfinite(dual):
        bound = max(bound, float(dual))
    if result.x is None:
        if incumbent is None:
            return _infeasible(units)
        return _result(incumbent.member, demand, speed, bound, "lpt", 1,
                       f"MILP found nothing better ({result.message}); "
                       "LPT kept.")
    member = result.x[:n_x].reshape(units, members).argmax(axis=1)
    # status 0: optimal within mip_rel_gap, and the dual bound says so
    solved = _result(member, demand, speed, bound, "milp",
                     0 if result.status == 0 else 1)
    if incumbent is not None and incumbent.peak < solved.peak:
        return _result(incumbent.member, demand, speed, bound, "lpt",
                       solved.status)
    return solved
