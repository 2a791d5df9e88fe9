"""The wire + CPU + transport chain over many scenarios. (Its old target,
vectorised against a plain-Python version of the same formulas, is
retired (issue 36): the chain runs within 3x of a compiled kernel, and
the timing's ratio to the run's reference sweep is what shows a
regression.)"""

import numpy as np

from models import wire
from models.chain import transfer_chain
from tests.benchmarks.timing import best_time

N = 1_000_000


def random_inputs(n, seed=7):
    rng = np.random.default_rng(seed)
    inputs = {
        "transport": rng.integers(0, 4, n).astype(np.int8),
        "member_speed": rng.choice([1.0, 10.0, 25.0, 100.0], n),
        "members": rng.integers(1, 5, n).astype(float),
        "spread": rng.integers(0, 3, n).astype(np.int8),
        "flows": rng.integers(1, 33, n).astype(float),
        "rss_queues": rng.choice([1, 4, 8, 16], n).astype(float),
        "cores": rng.choice([8, 16, 32, 64], n).astype(float),
        "ghz": rng.uniform(2.0, 3.5, n),
        "mtu": rng.integers(1280, 9001, n),
        "ip_version": rng.choice([4, 6], n),
        "timestamps": rng.random(n) < 0.5,
        "vlan_tags": rng.integers(0, 3, n),
        "encap": rng.choice([0, 50], n),
        "protocol": np.where(rng.random(n) < 0.5, wire.ROCE,
                             wire.TCP).astype(np.int8),
        "lro": rng.random(n) < 0.8,
        "soft_agg": rng.random(n) < 0.5,
        "c_soft_agg": rng.choice([0.0, 500.0], n),
        "checksum": rng.random(n) < 0.9,
        "c_byte": rng.uniform(0.4, 4.0, n),
        "c_pkt": rng.uniform(2_000, 20_000, n),
        "c_wire": rng.uniform(300, 1_500, n),
        "c_checksum": np.ones(n),
        "c_encap": rng.choice([0.0, 5_000.0], n),
        "c_team": rng.choice([0.0, 1_000.0], n),
        "c_io": np.full(n, 20_000.0),
        "rss_factor": rng.choice([1.0, 2.3], n),
        "stream_cap": rng.choice([np.inf, 4.75, 15.0], n),
        "streams": rng.integers(1, 9, n).astype(float),
        "ratio": rng.uniform(1.0, 4.0, n),
        "compressor": rng.uniform(0.5, 4.0, n),
        "threads": rng.integers(1, 9, n).astype(float),
        # a tenth compressed on an offload device (QAT): no host cores
        "offload": rng.random(n) < 0.1,
    }
    # a quarter received through one vNIC with VMQ: all flows on one queue
    inputs["flows_per_queue"] = np.where(rng.random(n) < 0.25,
                                         inputs["flows"], 1.0)
    return inputs


def chain_rate():
    """wire+CPU+transport chain, 1e6 mixed scenarios [scenarios/s]"""
    inputs = random_inputs(N)
    seconds = best_time(lambda: transfer_chain(inputs), 3)
    return N / seconds, "1/s", 2e6, True


BENCHMARKS = [chain_rate]
