"""Goal seek on the live-migration model, vectorised over scenarios.

Each question is a monotone root-finding problem solved for all scenarios
at once with ``scipy.optimize.elementwise.find_root`` (Chandrupatla's
bracketing method), in the shape of scipy.optimize: a result with ``x``,
``success``, ``status`` and ``message`` per element.
"""

from dataclasses import dataclass

import numpy as np

from models import migration, migration_costs
from models._checks import as_codes
from models.migration_costs import DEFAULT_DOWNTIME_LIMIT_S

#: find_root's status codes, in words (scipy.optimize.elementwise).
STATUS_MESSAGES = {
    0: "converged",
    -1: "the goal is not reachable within the searched range",
    -2: "iteration limit reached",
    -3: "a non-finite value was met",
    -4: "stopped by the callback",
}

#: Stand-in for "never completes" so the functions stay finite [s].
_NEVER = 1e12


@dataclass(frozen=True)
class GoalSeekResult:
    """Per-scenario answers of a goal seek.

    Attributes
    ----------
    x : ndarray
        The answer (NaN where ``success`` is False), in the unit the
        function documents.
    success : ndarray of bool
    status : ndarray of int
        See :data:`STATUS_MESSAGES`.
    nit, nfev : ndarray of int
        Iterations and function evaluations.
    method : str
    """

    x: np.ndarray
    success: np.ndarray
    status: np.ndarray
    nit: np.ndarray
    nfev: np.ndarray
    method: str = "chandrupatla"

    @property
    def message(self):
        """One message per scenario."""
        return [STATUS_MESSAGES.get(int(s), "unknown status")
                for s in np.atleast_1d(self.status)]


def root_finder():
    """``scipy.optimize.elementwise``, imported on first use:
    scipy.optimize costs ~0.3 s of CPU, which only scenarios that seek a
    goal should pay (the CLI's start-up stays fast). A process about to
    fork workers calls it first, so they inherit the import instead of
    each paying it."""
    from scipy.optimize import elementwise

    return elementwise


def _solve(function, low, high, args, *, log=True, xtol=1e-4):
    """Root of ``function(x, *args)`` in [low, high] for every element,
    searched in log space when ``log`` (rates and sizes span decades).
    ``xtol`` 1e-4: a hundredth of a percent is finer than any input."""
    if log:
        wrapped = lambda y, *a: function(np.exp(y), *a)  # noqa: E731
        bracket = (np.log(low), np.log(high))
    else:
        wrapped, bracket = function, (low, high)
    shape = np.broadcast_shapes(np.shape(low), np.shape(high),
                                *(np.shape(a) for a in args))
    bracket = tuple(np.broadcast_to(b, shape) for b in bracket)
    # in log space an absolute tolerance on log(x) is a relative one on x
    tolerances = {"xatol": xtol, "xrtol": 0.0} if log else {"xrtol": xtol}
    result = root_finder().find_root(wrapped, bracket, args=args,
                                     tolerances=tolerances, maxiter=200)
    x = np.exp(result.x) if log else result.x
    return GoalSeekResult(x=np.where(result.success, x, np.nan),
                          success=result.success, status=result.status,
                          nit=result.nit, nfev=result.nfev)


def _total_time(rate, memory, cold_rate, hot_set, hot_rate, downtime_limit,
                fixed_downtime, throttle, first_rate_cap):
    result = migration.precopy(memory, rate, cold_rate, hot_set=hot_set,
                               hot_rate=hot_rate,
                               first_rate=np.minimum(first_rate_cap, rate),
                               downtime_limit=downtime_limit,
                               fixed_downtime=fixed_downtime,
                               throttle=throttle)
    return np.where(result["converged"], result["total_time"], _NEVER)


def rate_for_time(target_time, memory, *, cold_rate=0.0, hot_set=0.0,
                  hot_rate=0.0, downtime_limit=DEFAULT_DOWNTIME_LIMIT_S,
                  fixed_downtime=migration.FIXED_DOWNTIME, throttle=0,
                  first_rate_cap=np.inf, rate_range=(1e6, 1e12)):
    """Smallest migration rate that finishes within ``target_time``.

    Parameters
    ----------
    target_time : numeric
        Wanted total migration time. [s]
    memory, cold_rate, hot_set, hot_rate, downtime_limit, fixed_downtime
        As in :func:`models.migration.precopy`. [B, B/s, s]
    throttle : str, int or array-like, default 0
        Throttling (name or code of models.migration.THROTTLES).
    first_rate_cap : numeric, default inf
        Ceiling of round 0's rate (destination allocation). [B/s]
    rate_range : tuple, default (1e6, 1e12)
        Rates searched. [B/s]

    Returns
    -------
    GoalSeekResult
        ``x`` is the rate. [B/s]

    Notes
    -----
    Root of :math:`T(B) - T_{target}`, decreasing in B.
    """
    def excess(rate, target, *model):
        return _total_time(rate, *model) - target

    return _solve(excess, rate_range[0], rate_range[1],
                  (np.asarray(target_time, dtype=float),
                   np.asarray(memory, dtype=float),
                   np.asarray(cold_rate, dtype=float),
                   np.asarray(hot_set, dtype=float),
                   np.asarray(hot_rate, dtype=float),
                   np.asarray(downtime_limit, dtype=float),
                   np.asarray(fixed_downtime, dtype=float),
                   _throttle_codes(throttle),
                   np.asarray(first_rate_cap, dtype=float)))


def largest_memory(window, rate, *, cold_rate=0.0, hot_set=0.0,
                   hot_rate=0.0, downtime_limit=DEFAULT_DOWNTIME_LIMIT_S,
                   fixed_downtime=migration.FIXED_DOWNTIME, throttle=0,
                   first_rate_cap=np.inf, memory_range=(2 ** 20, 2 ** 45)):
    """Largest VM that migrates within a maintenance window.

    Returns
    -------
    GoalSeekResult
        ``x`` is the memory size. [B]

    Notes
    -----
    Root of :math:`T(M) - T_{window}`, increasing in M; a hot set larger
    than the memory is clipped to it.
    """
    def excess(memory, window, rate, cold, hot, hot_r, limit, fixed,
               throttle, cap):
        return _total_time(rate, memory, cold, np.minimum(hot, memory),
                           hot_r, limit, fixed, throttle, cap) - window

    return _solve(excess, memory_range[0], memory_range[1],
                  tuple(np.asarray(a, dtype=float) for a in (
                      window, rate, cold_rate, hot_set, hot_rate,
                      downtime_limit, fixed_downtime))
                  + (_throttle_codes(throttle),
                     np.asarray(first_rate_cap, dtype=float)))


def _throttle_codes(throttle):
    return as_codes("throttle", throttle, migration.THROTTLES)


def dirty_limit(rate, memory, *, cold_rate=0.0, hot_set=0.0, hot_rate=0.0,
                downtime_limit=DEFAULT_DOWNTIME_LIMIT_S,
                scale_range=(1e-6, 1e6)):
    """How far the guest's dirtying can scale before pre-copy stops
    converging (without throttling).

    Returns
    -------
    GoalSeekResult
        ``x`` is the largest factor on both dirty rates. [unitless]

    Notes
    -----
    Root of :math:`D_s(d)/d - B` in the scale s, where :math:`D_s` has
    both rates multiplied by s: the exact convergence condition of
    live-migration.md section 3.2. For the uniform model the limit is a
    dirty rate equal to B.
    """
    def margin(scale, rate, memory, cold, hot, hot_r, limit):
        return migration.dirty_bytes(limit, memory, scale * cold,
                                     hot_set=hot, hot_rate=scale * hot_r) \
            / limit - rate

    return _solve(margin, scale_range[0], scale_range[1],
                  tuple(np.asarray(a, dtype=float) for a in (
                      rate, memory, cold_rate, hot_set, hot_rate,
                      downtime_limit)))


def rate_for_downtime(downtime, memory, *, cold_rate=0.0, hot_set=0.0,
                      hot_rate=0.0, page_header=migration.PAGE_HEADER_BYTES):
    """Smallest rate at which pre-copy, unthrottled, switches over within a
    downtime budget.

    Returns
    -------
    GoalSeekResult
        ``x`` is the rate [B/s]; closed form, so ``nit`` is 0.

    Notes
    -----
    The convergence criterion is exact (live-migration.md section 3.2), so
    no root finding is needed:

    .. math:: B_{min} = h \\, D(d) / d,\\quad h = 1 + \\text{header}/P
    """
    downtime = np.asarray(downtime, dtype=float)
    header = migration_costs.page_header_factor(page_header)
    rate = header * migration.dirty_bytes(
        downtime, memory, cold_rate, hot_set=hot_set,
        hot_rate=hot_rate) / downtime
    ok = np.isfinite(rate) & (downtime > 0)
    zeros = np.zeros(np.shape(rate), dtype=int)
    return GoalSeekResult(x=np.where(ok, rate, np.nan), success=ok,
                          status=np.where(ok, 0, -3), nit=zeros,
                          nfev=zeros + 1, method="closed_form")
