"""Optimal placement of unsplittable flows (or ports) on team members:
minimise the peak member utilization.

The problem is makespan minimisation on uniform machines (``Q||Cmax``),
with allowed sets for pinning and anti-affinity groups; it is NP-hard even
for two equal members (shared/reference/teaming.md section 7). The method
of section 7.6: a closed-form lower bound and the LPT heuristic always,
then ``scipy.optimize.milp`` (HiGHS) when the gap is above tolerance and
the instance is small enough.
"""

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

#: Options of :func:`place` and their defaults.
DEFAULT_OPTIONS = {"tol": 0.005, "time_limit": 2.0, "mip_rel_gap": 1e-4}

#: The status codes of :class:`PlacementResult`, scipy style.
STATUS_MESSAGES = {
    0: "Optimal: the peak equals the lower bound or MILP proved it.",
    1: "Feasible, not proven optimal: the gap to the lower bound is "
       "reported.",
    2: "Infeasible: a unit has no allowed member left.",
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
        Proven lower bound on the optimal peak. [1]
    gap : float
        ``peak / lower_bound - 1``. [1]
    method : str
        ``'lpt'`` or ``'milp'``: what produced ``member``.
    success : bool
    status : int
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
        Demand of each unit. [Gbit/s]
    speed : array-like of float, shape (U,)
        Member speeds. [Gbit/s]
    allowed : array-like of bool, shape (F, U), optional
        Members each unit may use (pinning, active lists). Default: all.
    groups : array-like of int, shape (F,), optional
        Anti-affinity group of each unit; units of one group (>= 0) must sit
        on distinct members. -1 means no group.
    method : {'auto', 'lpt', 'milp'}, default 'auto'
        ``auto`` runs the MILP only when the LPT gap exceeds ``tol`` and
        the instance has at most ``MILP_MAX_BINARIES`` binaries.
    options : dict, optional
        ``tol`` (relative gap accepted without MILP, default 0.005),
        ``time_limit`` (s, default 2.0), ``mip_rel_gap`` (default 1e-4).
        Unknown keys raise an ``OptimizeWarning``, as in scipy.optimize.

    Returns
    -------
    PlacementResult
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
    options = {**DEFAULT_OPTIONS, **(options or {})}
    if method not in ("auto", "lpt", "milp"):
        raise ValueError(f"method must be 'auto', 'lpt' or 'milp', "
                         f"got {method!r}")
    demand = np.asarray(demand, dtype=float)
    speed = np.asarray(speed, dtype=float)
    units, members = demand.size, speed.size
    constrained = allowed is not None or groups is not None
    allowed = np.ones((units, members), dtype=bool) if allowed is None \
        else np.asarray(allowed, dtype=bool)
    groups = np.full(units, -1) if groups is None else np.asarray(groups)
    if units and not allowed.any(axis=1).all():
        return _infeasible(units)
    bound = _lower_bound(demand, speed, allowed, constrained)
    if units == 0 or bound == 0:
        return _result(np.zeros(units, dtype=int), demand, speed, bound,
                       "lpt", 1)
    member = lpt(demand, speed, allowed=allowed if constrained else None,
                 groups=groups if constrained else None)
    if (member < 0).any():
        member = None
    best = _result(member, demand, speed, bound, "lpt", 1) \
        if member is not None else None
    small = units * members <= MILP_MAX_BINARIES
    if method == "lpt" or (method == "auto" and best is not None
                           and (best.gap <= options["tol"] or not small)):
        return best if best is not None else _infeasible(units)
    return _milp(demand, speed, allowed, groups, bound, best, options)


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


def _lower_bound(demand, speed, allowed, constrained):
    bound = float(placement_lower_bound(demand, speed))
    if constrained and demand.size:
        reachable = np.where(allowed, speed, 0.0).max(axis=1)
        bound = max(bound, float((demand / reachable).max()))
    return bound


def _result(member, demand, speed, bound, method, status, message=None):
    load = np.bincount(member, weights=demand, minlength=speed.size)
    peak = float((load / speed).max()) if demand.size else 0.0
    gap = peak / bound - 1.0 if bound > 0 else 0.0
    if gap <= 1e-9:
        status = 0
    message = message or (
        STATUS_MESSAGES[status] if status != 0 or gap <= 1e-9 else
        f"Optimal within the MILP tolerance (gap {100 * gap:.3g} %).")
    return PlacementResult(member=member, peak=peak, lower_bound=bound,
                           gap=max(gap, 0.0), method=method,
                           success=status in (0, 1), status=status,
                           message=message)


def _infeasible(units):
    return PlacementResult(member=np.full(units, -1), peak=np.nan,
                           lower_bound=np.nan, gap=np.nan, method="lpt",
                           success=False, status=2,
                           message=STATUS_MESSAGES[2])


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
    upper_x = allowed.ravel().astype(float)
    # the incumbent's peak caps z (with slack for HiGHS' feasibility
    # tolerance), which prunes the search from the start
    z_cap = incumbent.peak * (1 + 1e-9) if incumbent is not None \
        else np.inf
    result = milp(
        cost,
        integrality=np.concatenate([np.ones(n_x), [0]]),
        bounds=Bounds(np.concatenate([np.zeros(n_x), [bound]]),
                      np.concatenate([upper_x, [z_cap]])),
        constraints=LinearConstraint(vstack(blocks).tocsr(),
                                     np.concatenate(lower),
                                     np.concatenate(upper)),
        options={"time_limit": options["time_limit"],
                 "mip_rel_gap": options["mip_rel_gap"]})
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
