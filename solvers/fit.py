"""Fitting the dirty-memory model to measurements.

The model is :func:`models.migration.dirty_bytes`: a hot working set that
saturates plus a linear cold rate. Observations are windows that start from
a clean dirty log and the unique bytes dirtied in each: a pre-copy round
(its duration, and what was left to send when it ended) or a dirty-rate
sample (its calculation period, and rate x period). The fit is a bounded
non-linear least squares (``scipy.optimize.least_squares``); the result has
the shape of a scipy.optimize result (``success``, ``status``,
``message``) plus the residual.
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from models import migration
from models.units import GIB, MIB

#: Fewest distinct window lengths that identify the three parameters of
#: the hot/cold model; with fewer, only a uniform rate is fitted.
MIN_WINDOWS_HOT_COLD = 3

#: Stopping tolerances of least_squares: tighter than its 1e-8 defaults,
#: which stop early when a parameter sits on its bound (no cold rate).
_TOLERANCES = {"ftol": 1e-12, "xtol": 1e-12, "gtol": 1e-12}

#: Status codes besides scipy's own (least_squares: 0 to 4, -1).
TOO_FEW_POINTS = -2


@dataclass(frozen=True)
class DirtyFit:
    """A fitted dirty model.

    Attributes
    ----------
    kind : {'hot_cold', 'uniform'}
    hot_set : float
        Hot writable working set. [B]
    hot_rate : float
        Initial dirtying rate of the hot set. [B/s]
    cold_rate : float
        Linear rate of the cold remainder (the rate of the uniform
        model). [B/s]
    residual : ndarray
        Model minus observation per window. [B]
    rms_relative : float
        Root mean square of the residuals divided by the observations.
    success : bool
    status : int
        scipy.optimize.least_squares's status, or :data:`TOO_FEW_POINTS`.
    message : str
    """

    kind: str
    hot_set: float
    hot_rate: float
    cold_rate: float
    residual: np.ndarray
    rms_relative: float
    success: bool
    status: int
    message: str

    def dirty_model(self):
        """The fit as a scenario's ``dirty`` table (models.scenario.DirtyModel
        fields, in MiB/s and GiB)."""
        if self.kind == "uniform":
            return {"kind": "uniform", "rate_mib_s": self.cold_rate / MIB}
        return {"kind": "hot_cold", "rate_mib_s": self.hot_rate / MIB,
                "hot_set_gib": self.hot_set / GIB,
                "cold_rate_mib_s": self.cold_rate / MIB}


def fit_dirty_model(window, dirtied, *, nonzero_memory=np.inf):
    """Fit the hot-set + cold-rate dirty model to observed windows.

    Parameters
    ----------
    window : array_like
        Length of each observation window, > 0. [s]
    dirtied : array_like
        Unique bytes dirtied in each window, >= 0. [B]
    nonzero_memory : float, default inf
        Non-zero guest memory, the ceiling of the curve. [B]

    Returns
    -------
    DirtyFit
        ``kind`` 'hot_cold' when the windows have at least
        :data:`MIN_WINDOWS_HOT_COLD` distinct lengths, else 'uniform'.

    Notes
    -----
    Minimises :math:`\\sum_i (D(t_i) - y_i)^2 / s^2` over
    :math:`H, r_h, r_c \\ge 0` with :math:`D` from
    :func:`models.migration.dirty_bytes` and :math:`s` the largest
    observation (so the cost does not depend on the byte scale). The hot
    rate is searched at least as high as the cold rate: a hot set that
    dirties slower than the remainder is the uniform model.
    """
    window = np.asarray(window, dtype=float).ravel()
    dirtied = np.asarray(dirtied, dtype=float).ravel()
    if window.shape != dirtied.shape:
        raise ValueError(f"window has {window.size} values but dirtied has "
                         f"{dirtied.size}")
    if not np.all(np.isfinite(window)) or np.any(window <= 0):
        raise ValueError("window lengths must be finite and > 0")
    if not np.all(np.isfinite(dirtied)) or np.any(dirtied < 0):
        raise ValueError("dirtied bytes must be finite and >= 0")
    if window.size == 0:
        return DirtyFit("uniform", 0.0, 0.0, 0.0, np.zeros(0), np.nan,
                        False, TOO_FEW_POINTS, "no observation to fit")
    scale = max(dirtied.max(), 1.0)
    distinct = np.unique(window).size
    if distinct < MIN_WINDOWS_HOT_COLD:
        return _fit_uniform(window, dirtied, nonzero_memory, scale,
                            distinct)

    def model(p):
        hot_set, hot_rate, cold_rate = p[0] * GIB, p[1] * MIB, p[2] * MIB
        return migration.dirty_bytes(window, nonzero_memory, cold_rate,
                                     hot_set=hot_set,
                                     hot_rate=hot_rate + cold_rate)

    # start: the longest windows give the cold slope, its intercept the
    # hot set, the shortest window's rate the hot rate
    order = np.argsort(window)
    t_long, y_long = window[order[-2:]], dirtied[order[-2:]]
    slope = max((y_long[1] - y_long[0]) / max(t_long[1] - t_long[0], 1e-9),
                0.0)
    hot0 = max(y_long[1] - slope * t_long[1], 0.0)
    rate0 = dirtied[order[0]] / window[order[0]]
    start = np.array([hot0 / GIB + 1e-3, max(rate0 - slope, 0.0) / MIB
                      + 1e-3, slope / MIB])
    result = least_squares(lambda p: (model(p) - dirtied) / scale, start,
                           bounds=(0.0, np.inf), x_scale="jac", **_TOLERANCES)
    hot_set, hot_extra, cold = result.x
    residual = model(result.x) - dirtied
    return DirtyFit("hot_cold", float(hot_set) * GIB,
                    float(hot_extra + cold) * MIB,
                    float(cold) * MIB, residual,
                    _rms_relative(residual, dirtied),
                    bool(result.success), int(result.status),
                    result.message)


def _fit_uniform(window, dirtied, nonzero_memory, scale, distinct):
    def model(p):
        return migration.dirty_bytes(window, nonzero_memory, p[0] * MIB)

    start = np.array([np.mean(dirtied / window) / MIB])
    result = least_squares(lambda p: (model(p) - dirtied) / scale, start,
                           bounds=(0.0, np.inf), **_TOLERANCES)
    residual = model(result.x) - dirtied
    message = (f"{result.message} (uniform rate only: {distinct} distinct "
               f"window length(s), the hot/cold model needs "
               f"{MIN_WINDOWS_HOT_COLD})")
    return DirtyFit("uniform", 0.0, 0.0, float(result.x[0]) * MIB, residual,
                    _rms_relative(residual, dirtied), bool(result.success),
                    int(result.status), message)


def _rms_relative(residual, observed):
    relative = residual / np.where(observed > 0, observed, 1.0)
    return float(np.sqrt(np.mean(relative ** 2)))
