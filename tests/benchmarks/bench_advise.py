"""Recommendations and grid search (issue 6 and 15 targets)."""

import json
import subprocess
import sys
from pathlib import Path

from app.paths import resource_path
from app.scenario_io import load_scenario
from solvers.advise import advise, search
from tests.benchmarks.timing import best_time


def advise_time():
    """advise() on the seed001 base (LACP transfer, migration) [ms]"""
    scenario = load_scenario(resource_path("examples",
                                           "seed001_live_migration.toml"))
    return 1e3 * best_time(lambda: advise(scenario)), "ms", 200, False


def search_time():
    """search(): 10,000 storage configurations + Pareto front [s]"""
    scenario = load_scenario(resource_path("examples",
                                           "seed002_hcibench.toml"))
    grid = {"workloads.storage[0].threads_per_disk": list(range(1, 101)),
            "workloads.storage[0].disks_per_vm": list(range(1, 101))}
    return best_time(lambda: search(scenario, grid,
                                    tradeoffs=("storage.latency_ms",)),
                     3), "s", 0.15, False


#: Runs a 1,000,000-point search in a fresh process and prints its wall
#: time and peak RSS: streaming keeps only the best point and the front.
_SEARCH_1M = """
import json, time
from app.paths import resource_path
from tests.benchmarks.timing import peak_rss_kib
from app.scenario_io import load_scenario
from solvers.advise import search
scenario = load_scenario(resource_path("examples", "seed002_hcibench.toml"))
grid = {"workloads.storage[0].threads_per_disk": list(range(1, 101)),
        "workloads.storage[0].disks_per_vm": list(range(1, 101)),
        "network.mtu": list(range(1500, 9000, 75))}
start = time.perf_counter()
result = search(scenario, grid, tradeoffs=("storage.latency_ms",))
assert result.evaluated == 1_000_000, result.message
print(json.dumps([time.perf_counter() - start,
                  peak_rss_kib()]))
"""

_MEASURED = {}


def search_1m_time():
    """search(): 1,000,000 storage configurations, streamed [s]"""
    done = subprocess.run([sys.executable, "-c", _SEARCH_1M], check=True,
                          capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2])
    seconds, peak_kb = json.loads(done.stdout.splitlines()[-1])
    _MEASURED["peak_mb"] = peak_kb / 1024
    return seconds, "s", 15.0, False


def search_1m_memory():
    """search(): peak RSS of that 1,000,000-point run [MB]"""
    if "peak_mb" not in _MEASURED:
        search_1m_time()
    return _MEASURED["peak_mb"], "MB", 300.0, False


BENCHMARKS = [advise_time, search_time, search_1m_time, search_1m_memory]
