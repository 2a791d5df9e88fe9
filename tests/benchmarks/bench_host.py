"""The wire + CPU + transport chain over many scenarios, against a
plain-Python scalar version of the same formulas (kept here as the
reference the issue asks for, and checked to agree)."""

import math
import time

import numpy as np

from solvers.host_network import transfer_chain
from tests.benchmarks.timing import best_time

N = 1_000_000
SCALAR_N = 20_000
from models import transport, wire


def random_inputs(n, seed=7):
    rng = np.random.default_rng(seed)
    return {
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
    }


def scalar_chain(row):
    """The same formulas, one scenario at a time, in plain Python."""
    ip = 40 if row["ip_version"] == 6 else 20
    frame_extra = 38 + 4 * row["vlan_tags"] + row["encap"]
    rdma = row["transport"] == transport.SMB_DIRECT
    compressed = row["transport"] == transport.COMPRESSION
    if rdma and row["protocol"] == wire.ROCE:
        usable = row["mtu"] - 96
        payload = max(m for m in (256, 512, 1024, 2048, 4096) if m <= usable)
        frame = payload + ip + 24 + frame_extra
    else:
        payload = row["mtu"] - ip - 20 - (12 if row["timestamps"] else 0)
        frame = row["mtu"] + frame_extra
    efficiency = payload / frame
    traversal = 65536 if row["lro"] else payload
    cycles = row["rss_factor"] * (
        row["c_byte"] + (0.0 if row["checksum"] else row["c_checksum"])
        + row["c_pkt"] / traversal
        + (row["c_wire"] + row["c_encap"] + row["c_team"]) / payload)
    member = row["member_speed"] * efficiency
    members, flows = row["members"], row["flows"]
    if row["spread"] == transport.ONE:
        spread = 1.0
    elif row["spread"] == transport.HASH:
        spread = members * (1 - (1 - 1 / members) ** flows)
    else:
        spread = members
    queues = row["rss_queues"]
    per_member = queues * (1 - (1 - 1 / queues) ** (flows / spread))
    busy = min(spread * per_member, flows, row["cores"])
    ratio = row["ratio"] if compressed else 1.0
    core = 8 * row["ghz"] / cycles
    bounds = [members * member * ratio, spread * member * ratio,
              math.inf if rdma else flows * member * ratio,
              math.inf if rdma else busy * core * ratio,
              row["streams"] * row["stream_cap"],
              row["threads"] * row["compressor"] if compressed
              else math.inf]
    return min(bounds)


def _rows(inputs, n):
    keys = list(inputs)
    columns = [inputs[k][:n].tolist() for k in keys]
    return [dict(zip(keys, values)) for values in zip(*columns)]


def chain_rate():
    """wire+CPU+transport chain, 1e6 mixed scenarios [scenarios/s]"""
    inputs = random_inputs(N)
    seconds = best_time(lambda: transfer_chain(inputs), 3)
    return N / seconds, "1/s", 2e6, True


def chain_speedup():
    """same chain, vectorised vs plain-Python scalar [x faster]"""
    inputs = random_inputs(N)
    rows = _rows(inputs, SCALAR_N)
    vector = transfer_chain(inputs)["throughput"]
    scalar = [scalar_chain(row) for row in rows]
    np.testing.assert_allclose(vector[:SCALAR_N], scalar, rtol=1e-9)
    start = time.perf_counter()
    for row in rows:
        scalar_chain(row)
    scalar_rate = SCALAR_N / (time.perf_counter() - start)
    vector_rate = N / best_time(lambda: transfer_chain(inputs), 3)
    return vector_rate / scalar_rate, "x", 100, True


BENCHMARKS = [chain_rate, chain_speedup]
