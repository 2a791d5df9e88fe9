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




#: 1e7 scenarios through solvers.schedule.precopy (what sweeps call) in a
#: fresh process: prints the peak RSS above the inputs' own size.
_TEN_MILLION = """
import numpy as np
from solvers import schedule
from solvers.inputs import migration_row
from models.scenario import Migration
from tests.benchmarks.timing import peak_rss_kib
N = 10_000_000
row = migration_row(Migration(name="m", memory_gib=16,
                              dirty={"kind": "uniform", "rate_mib_s": 200}))
columns = {k: np.broadcast_to(np.asarray(v), (N,)) for k, v in row.items()}
rate = np.random.default_rng(3).uniform(0.2, 12, N) * 1e9
before = peak_rss_kib()
result = schedule.precopy(columns, rate)
assert result["total_time"].shape == (N,)
print((peak_rss_kib() - before) / 1024)
"""


def precopy_10m_memory():
    """pre-copy, 1e7 scenarios: peak memory above the inputs [MB]"""
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", _TEN_MILLION], check=True,
                          capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2])
    # the result columns themselves (8 of 1e7 rows) are ~0.6 GB: the
    # target is what the round loop adds on top of inputs and outputs
    return float(done.stdout.split()[-1]), "MB", 1000.0, False


BENCHMARKS = [precopy_rate, one_with_trace, precopy_10m_memory]
