"""Teaming: static hashes over many flows, the LBT simulation, and the
optimal placement (issue 4 targets)."""

import numpy as np

from app.scenario_io import load_scenario
from app.paths import resource_path
from models import teaming
from solvers import teaming_dynamic
from solvers.evaluate import evaluate
from solvers.placement import place
from tests.benchmarks.timing import best_time, median_time

FLOWS = 1_000_000
MIXED_SPEEDS = np.array([10, 10, 25, 25, 40, 40, 100, 100.0])


def static_hash_time():
    """layer3+4 hash + member loads, 1e6 flows on 4 members [s]"""
    rng = np.random.default_rng(1)
    src_ip = rng.integers(0, 2**32, FLOWS, dtype=np.uint64)
    dst_ip = rng.integers(0, 2**32, FLOWS, dtype=np.uint64)
    ports = rng.integers(1024, 65536, (2, FLOWS))
    rate = rng.lognormal(-3, 1, FLOWS)

    def run():
        h = teaming.linux_xmit_hash("layer3+4", 0, 0, src_ip, dst_ip,
                                    ports[0], ports[1])
        return teaming.member_loads(h % np.uint32(4), rate, 4)
    return best_time(run), "s", 0.2, False


def lbt_simulation_time():
    """LBT: 1000 ports, one hour at 1 s, 8 x 10 GbE [s]"""
    rng = np.random.default_rng(2)
    tx = rng.uniform(0, 0.1, (3600, 1000))
    rx = rng.uniform(0, 0.05, (3600, 1000))
    speed = np.full(8, 10.0)
    initial = np.arange(1000) % 8

    def run():
        member, _ = teaming_dynamic.lbt(tx, rx, speed, initial)
        index = np.arange(3600)[:, None] * 8 + member   # per-uplink series
        return np.bincount(index.ravel(), tx.ravel(), 3600 * 8)
    return best_time(run), "s", 1.0, False


def placement_200_time():
    """Placement: 200 flows, 8 mixed uplinks, gap <= 0.5 % (median) [s]"""
    rng = np.random.default_rng(3)
    instances = [rng.lognormal(0, 1, 200) for _ in range(7)]
    gaps = []

    def run(demand=iter(instances * 10)):
        result = place(next(demand), MIXED_SPEEDS)
        gaps.append(result.gap)
    seconds = median_time(run, 7)
    if max(gaps) > 0.005:
        return max(gaps), "gap", 0.005, False
    return seconds, "s", 2.0, False


def placement_100k_time():
    """Placement: 100 000 flows, 8 uplinks, heuristic within 1 % [s]"""
    demand = np.random.default_rng(4).lognormal(-2, 1, 100_000)
    result = place(demand, MIXED_SPEEDS, method="lpt")
    if result.gap > 0.01:
        return result.gap, "gap", 0.01, False
    return best_time(lambda: place(demand, MIXED_SPEEDS, method="lpt")), \
        "s", 0.5, False


def seed000_evaluate_time():
    """evaluate() on seed000_lbt (6 policies, N-1, 1201 steps) [ms]"""
    scenario = load_scenario(resource_path("examples", "seed000_lbt.toml"))
    return 1e3 * best_time(lambda: evaluate(scenario), 5), "ms", 200, False


BENCHMARKS = [static_hash_time, lbt_simulation_time, placement_200_time,
              placement_100k_time, seed000_evaluate_time]
