"""The pre-copy model over a million mixed scenarios, and one scenario
with its per-round trace (what the GUI computes on every edit)."""

import numpy as np

from models import migration
from tests.benchmarks.timing import best_time

N = 1_000_000
GIB = 2 ** 30


def precopy_rate():
    """pre-copy, 1e6 mixed scenarios incl. throttled ones [s]"""
    rng = np.random.default_rng(3)
    memory = rng.uniform(1, 512, N) * GIB
    rate = rng.uniform(0.1, 12, N) * 1e9
    kwargs = dict(cold_rate=rng.uniform(0, 2, N) * 1e9,
                  hot_set=rng.uniform(0, 8, N) * GIB,
                  hot_rate=rng.uniform(0, 5, N) * 1e9,
                  throttle=rng.integers(0, 3, N).astype(np.int8),
                  downtime_limit=rng.choice([0.03, 0.3, 0.5], N))
    seconds = best_time(lambda: migration.precopy(memory, rate, **kwargs),
                        2)
    return seconds, "s", 3.0, False


def one_with_trace():
    """pre-copy, one scenario with its per-round trace [ms]"""
    seconds = best_time(lambda: migration.precopy(
        48 * GIB, 4.3e9, 0.0, hot_set=48 * GIB, hot_rate=40e9,
        first_rate=1.9e9, downtime_limit=0.5, throttle="sdps", trace=True),
        50)
    return 1e3 * seconds, "ms", 1.0, False


BENCHMARKS = [precopy_rate, one_with_trace]
