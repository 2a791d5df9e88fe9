"""Host evacuation: 500 mixed VMs scheduled and simulated at one
concurrency, and the whole analysis (five orders at every concurrency up
to vSphere's 8, the lower bound) through evaluate()."""

import numpy as np

from models.scenario import scenario_from_dict
from solvers import schedule
from solvers.evaluate import evaluate
from solvers.inputs import Inputs
from tests.benchmarks.timing import best_time

VMS = 500
GIB = 2 ** 30


def _vms():
    rng = np.random.default_rng(18)
    return [{"name": f"vm{i}",
             "memory_gib": float(rng.choice([2, 4, 8, 16, 32, 64, 128])),
             "dirty": {"rate_mib_s": float(rng.uniform(0, 150))},
             "priority": int(rng.integers(0, 3))} for i in range(VMS)]


def _scenario(concurrency):
    return scenario_from_dict({
        "schema_version": 1, "meta": {"name": "bench"},
        "nics": [{"id": f"nic{i}", "speed_gbps": 25.0} for i in range(2)],
        "workloads": {
            "transfers": [{"name": "vmotion", "purpose": "live_migration",
                           "multipath": True}],
            "evacuations": [{"name": "maint", "transfer": "vmotion",
                             "concurrency": concurrency, "vms": _vms()}]}})


def one_schedule():
    """evacuation, 500 VMs scheduled + simulated (one order) [s]"""
    inputs = Inputs([("Base", _scenario(8))])
    columns = inputs.evacuations.columns[0]
    # a link whose aggregate peaks near 2.4 GB/s with two migrations
    share = np.array([0.0, 1.2e9, 1.1e9, 0.8e9, 0.6e9, 0.5e9, 0.4e9,
                      0.35e9, 0.3e9])
    order = np.argsort(-columns["memory"])[None, :]
    seconds = best_time(lambda: schedule.simulate(columns, share, order,
                                                  [8]), 3)
    return seconds, "s", 1.0, False


def orders_and_sweep():
    """evacuation, 500 VMs: 5 orders x concurrency 1-8, evaluate() [s]"""
    scenario = _scenario("auto")
    seconds = best_time(lambda: evaluate(scenario), 3)
    return seconds, "s", 2.0, False


BENCHMARKS = [one_schedule, orders_and_sweep]
