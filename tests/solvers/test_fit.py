"""solvers.fit: the hot-set + cold-rate dirty model fitted to windows.

The observations are made with models.migration.dirty_bytes itself, so the
fit must return the parameters that made them (an identity check of the
procedure; the accuracy on measured files is in tests/app)."""

import numpy as np
import pytest

from models.migration import dirty_bytes
from solvers.fit import TOO_FEW_POINTS, fit_dirty_model

GIB, MIB = 2 ** 30, 2 ** 20


def _windows(t, *, hot_set, hot_rate, cold_rate, memory=np.inf):
    return dirty_bytes(t, memory, cold_rate, hot_set=hot_set,
                       hot_rate=hot_rate)


@pytest.mark.parametrize("hot_set, hot_rate, cold_rate", [
    (1 * GIB, 400 * MIB, 20 * MIB),      # a database's buffer pool
    (8 * GIB, 2000 * MIB, 200 * MIB),    # a busy in-memory cache
    (256 * MIB, 50 * MIB, 0.0),          # a hot set only
])
def test_recovers_the_parameters_from_exact_windows(hot_set, hot_rate,
                                                    cold_rate):
    t = np.array([0.25, 0.5, 1, 2, 4, 8, 16, 32, 64])
    y = _windows(t, hot_set=hot_set, hot_rate=hot_rate, cold_rate=cold_rate)
    fit = fit_dirty_model(t, y)
    assert fit.success and fit.status > 0 and fit.kind == "hot_cold"
    # exact data: only the solver tolerances (1e-12) and rounding remain
    assert fit.hot_set == pytest.approx(hot_set, rel=1e-5)
    assert fit.hot_rate == pytest.approx(hot_rate, rel=1e-5)
    assert fit.cold_rate == pytest.approx(cold_rate, rel=1e-5, abs=1e-3 * MIB)
    assert fit.rms_relative < 1e-6
    assert fit.residual.shape == t.shape


def test_residual_reports_noise():
    # 2 % multiplicative noise must show as a residual of that order and
    # still give the parameters to within a few per cent
    rng = np.random.default_rng(7)
    t = np.geomspace(0.25, 120, 25)
    y = _windows(t, hot_set=2 * GIB, hot_rate=500 * MIB, cold_rate=30 * MIB)
    fit = fit_dirty_model(t, y * (1 + 0.02 * rng.standard_normal(t.size)))
    assert 0.005 < fit.rms_relative < 0.04
    assert fit.hot_set == pytest.approx(2 * GIB, rel=0.05)
    assert fit.cold_rate == pytest.approx(30 * MIB, rel=0.1)


def test_fewer_than_three_window_lengths_fit_a_uniform_rate():
    # one window length cannot separate a hot set from a rate: the
    # least-squares uniform rate of y = r t is the mean of y / t here
    fit = fit_dirty_model([10, 10, 10], [1.0e9, 1.1e9, 1.2e9])
    assert fit.kind == "uniform" and fit.success
    assert fit.cold_rate == pytest.approx(1.1e8, rel=1e-6)
    assert "uniform rate only" in fit.message
    assert fit.dirty_model() == {"kind": "uniform",
                                 "rate_mib_s": pytest.approx(1.1e8 / MIB)}


def test_memory_ceiling_is_respected():
    t = np.array([1, 2, 4, 8, 16, 32.0])
    memory = 3 * GIB
    y = _windows(t, hot_set=1 * GIB, hot_rate=300 * MIB,
                 cold_rate=100 * MIB, memory=memory)
    fit = fit_dirty_model(t, y, nonzero_memory=memory)
    assert np.abs(fit.residual).max() < 1e-4 * memory


def test_no_observation_is_a_result_not_an_error():
    fit = fit_dirty_model([], [])
    assert not fit.success and fit.status == TOO_FEW_POINTS


@pytest.mark.parametrize("window, dirtied, text", [
    ([1, 2], [1], "window has 2 values"),
    ([0, 1, 2], [1, 2, 3], "window lengths"),
    ([1, 2, 3], [1, -2, 3], "dirtied bytes"),
    ([1, 2, 3], [1, np.nan, 3], "dirtied bytes"),
])
def test_bad_input_is_named(window, dirtied, text):
    with pytest.raises(ValueError, match=text):
        fit_dirty_model(window, dirtied)
