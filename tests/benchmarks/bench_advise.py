"""Recommendations and grid search (issue 6 targets)."""

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
                     3), "s", 1.0, False


BENCHMARKS = [advise_time, search_time]
