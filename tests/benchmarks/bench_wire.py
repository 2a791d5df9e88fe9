"""The wire model over many scenarios, and evaluate() on the example."""

import numpy as np

from app.scenario_io import load_scenario
from app.paths import DEFAULT_EXAMPLE, resource_path
from models import wire
from solvers.evaluate import evaluate
from tests.benchmarks.timing import best_time

N = 1_000_000


def wire_goodput_rate():
    """wire.goodput over 1e6 random scenarios [scenarios/s]"""
    rng = np.random.default_rng(1)
    link = rng.choice([1.0, 10.0, 25.0, 100.0], N)
    mtu = rng.integers(1280, 9217, N)
    ip_version = rng.choice([4, 6], N)
    tags = rng.integers(0, 3, N)
    seconds = best_time(lambda: wire.goodput(link, mtu, ip_version,
                                             vlan_tags=tags))
    return N / seconds, "1/s", 2e6, True


def evaluate_example_time():
    """evaluate() on the built-in example, 5 variants [ms]"""
    scenario = load_scenario(resource_path(DEFAULT_EXAMPLE))
    return 1e3 * best_time(lambda: evaluate(scenario), 20), "ms", 50, False


BENCHMARKS = [wire_goodput_rate, evaluate_example_time]
