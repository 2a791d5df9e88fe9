"""solvers/goalseek.py: the inverse questions of pre-copy (the rate that
meets a time or a downtime, the largest memory a window moves, the dirty
rate that still converges) against analytical answers of the model."""

import math

import numpy as np
import pytest

from models import migration as mig
from solvers import goalseek

GIB = 2 ** 30
#: Bytes on the wire per byte of guest memory: each page with its header.
HEADER = 1 + mig.PAGE_HEADER_BYTES / mig.PAGE_BYTES


def test_rate_for_time_matches_the_idle_oracle():
    # idle guest: T = M h / B + T_fixed, so B = M h / (T - T_fixed)
    target = np.array([60.0, 30.0, 10.0])
    result = goalseek.rate_for_time(target, 4 * GIB)
    expected = 4 * GIB * HEADER / (target - mig.FIXED_DOWNTIME)
    # the solver stops within 1e-4 relative (goalseek._solve's xtol)
    np.testing.assert_allclose(result.x, expected, rtol=1e-4)
    assert result.success.all()


def test_unreachable_goal_is_reported_not_invented():
    result = goalseek.rate_for_time(0.01, 4 * GIB)  # below T_fixed
    assert not result.success[()] if np.ndim(result.success) == 0 \
        else not result.success.any()
    assert np.isnan(result.x).all()
    assert result.message == ["the goal is not reachable within the "
                              "searched range"]


def test_largest_memory_matches_the_idle_oracle():
    window = np.array([60.0, 600.0])
    result = goalseek.largest_memory(window, 1.18e9)
    np.testing.assert_allclose(
        result.x, (window - mig.FIXED_DOWNTIME) * 1.18e9 / HEADER, rtol=1e-4)


def test_dirty_limit_uniform_is_the_rate_and_hot_sets_allow_more():
    uniform = goalseek.dirty_limit(np.array([1e8, 1e9]), 8 * GIB,
                                   cold_rate=1e7)
    np.testing.assert_allclose(uniform.x * 1e7, [1e8, 1e9], rtol=1e-4)
    # a hot set saturates, so its initial rate may exceed B: solving
    # H (1 - exp(-r d / H)) / d = B for d = 0.3 s gives r = 1.17 B
    hot = goalseek.dirty_limit(1e9, 8 * GIB, hot_set=GIB, hot_rate=1e9,
                               downtime_limit=0.3)
    expected = -GIB / 0.3 * np.log(1 - 0.3 * 1e9 / GIB)
    assert hot.x * 1e9 == pytest.approx(expected, rel=1e-4)
    assert hot.x > 1
    # and a hot set below B d can never break convergence: no limit
    saturating = goalseek.dirty_limit(1e9, 8 * GIB, hot_set=GIB,
                                      hot_rate=1e9, downtime_limit=5.0)
    assert not saturating.success


def test_goal_seek_answers_change_the_outcome_as_promised():
    # feeding the answer back gives the goal (to the solver's tolerance)
    memory, dirty = 32 * GIB, 50e6
    rate = goalseek.rate_for_time(120.0, memory, cold_rate=dirty).x
    result = mig.precopy(memory, rate, dirty)
    assert result["total_time"] == pytest.approx(120.0, rel=2e-4)
    assert math.isfinite(float(rate))


def test_rate_for_downtime_is_the_convergence_boundary():
    # just above the closed-form rate pre-copy converges within the
    # budget, just below it does not (live-migration.md section 3.2)
    kwargs = dict(hot_set=2 * GIB, hot_rate=3e9, cold_rate=5e7)
    boundary = goalseek.rate_for_downtime(0.3, 16 * GIB, **kwargs).x
    above = mig.precopy(16 * GIB, 1.01 * boundary, downtime_limit=0.3,
                        **kwargs)
    below = mig.precopy(16 * GIB, 0.99 * boundary, downtime_limit=0.3,
                        **kwargs)
    assert above["converged"] and not below["converged"]

