"""solvers.calibrate: runs made by known host costs give those costs back;
what the runs do not vary is kept at the preset and said so."""

import numpy as np
import pytest

from models.host import STACK_PRESETS
from solvers.calibrate import (STACK_COEFFICIENTS, StackRun, fit_stack,
                               predict_cores, stack_checks)

PRESET = STACK_PRESETS["linux_host"]
GHZ = 2.5
#: The host the synthetic runs measure.
TRUE = {"c_byte_tx": 0.3, "c_byte_rx": 0.7, "c_pkt": 4000.0,
        "c_wire": 900.0}


def _runs(settings, loopback):
    """One run per (message bytes, MSS), each end's CPU from ``TRUE``."""
    runs = []
    for number, (message, mss) in enumerate(settings):
        rate = 1e9 + 1e8 * number
        ends = [(rate, rate, "both")] if loopback else \
            [(rate, 0.0, "client"), (0.0, rate, "server")]
        for tx, rx, end in ends:
            run = StackRun(f"run{number} {end}", f"run{number}.json",
                           loopback, message, mss, tx, rx, 0.0,
                           f"{message} {mss} {end}")
            cores = predict_cores([run], TRUE, GHZ)[0]
            runs.append(StackRun(*list(run.__dict__.values())[:7], cores,
                                 run.setting))
    return runs


def test_runs_between_hosts_give_every_coefficient_back():
    runs = _runs([(8192, 1448), (32768, 8948), (131072, 1448),
                  (16384, 8948)], loopback=False)
    fit = fit_stack(runs, PRESET, GHZ)
    assert set(fit.fitted) == set(STACK_COEFFICIENTS)
    assert fit.undetermined == []
    for name in STACK_COEFFICIENTS:
        assert fit.costs[name] == pytest.approx(TRUE[name], rel=1e-6)
    checks = stack_checks(runs, PRESET, GHZ, fit)
    assert max(abs(c.error_pct) for c in checks) < 1e-6
    assert {c.role for c in checks} == {"fitted", "held_out"}


def test_loopback_fits_one_per_byte_cost_for_both_ends():
    runs = _runs([(8192, 32768), (32768, 1448), (131072, 32768)],
                 loopback=True)
    fit = fit_stack(runs, PRESET, GHZ)
    assert fit.costs["c_byte_tx"] == fit.costs["c_byte_rx"] == \
        pytest.approx((TRUE["c_byte_tx"] + TRUE["c_byte_rx"]) / 2, rel=1e-6)
    assert fit.costs["c_pkt"] == pytest.approx(TRUE["c_pkt"], rel=1e-6)
    assert any(u.startswith("c_byte_tx vs c_byte_rx")
               for u in fit.undetermined)


def test_one_message_size_and_one_mss_keep_the_preset_split():
    """Here the preset's per-frame cost alone (2626 cycles / 1448 B = 1.8
    cycles/B) is more than the host spends in all (1.0 and 1.4): the
    preset's proportions, scaled, still meet the runs."""
    runs = _runs([(131072, 1448), (262144, 1448)], loopback=False)
    fit = fit_stack(runs, PRESET, GHZ)
    assert fit.fitted == ("c_byte_tx", "c_byte_rx")
    assert fit.scaled == ("c_pkt", "c_wire")
    scale = (fit.costs["c_byte_tx"] + fit.costs["c_byte_rx"]) \
        / (PRESET.c_byte_tx + PRESET.c_byte_rx)
    assert 0 < scale < 1
    assert fit.costs["c_pkt"] == pytest.approx(PRESET.c_pkt * scale)
    assert fit.costs["c_wire"] == pytest.approx(PRESET.c_wire * scale)
    assert [u.split(" ")[0] for u in fit.undetermined] == ["c_pkt",
                                                           "c_wire"]
    # the per-byte costs absorb the total: the runs are still met
    measured = np.array([r.cores_busy for r in runs])
    np.testing.assert_allclose(predict_cores(runs, fit.costs, GHZ),
                               measured, rtol=1e-6)
