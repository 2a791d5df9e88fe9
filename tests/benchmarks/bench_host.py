"""The wire + CPU + transport chain over many scenarios, against a
plain-Python scalar version of the same formulas (kept here as the
reference the issue asks for). The reference computes every output the
chain returns, with the same argument checks, and the benchmark checks that
all of them agree before timing either."""

import math

import numpy as np

from models import transport, wire
from solvers.analyses.host import transfer_chain
from tests.benchmarks.timing import best_time

N = 1_000_000
SCALAR_N = 20_000


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


def _positive(name, value):
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def _one_of(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def scalar_chain(row):
    """The same formulas and checks, one scenario at a time, in plain
    Python; returns every output of ``transfer_chain``."""
    mtu = row["mtu"]
    ip_version = _one_of("ip_version", row["ip_version"], (4, 6))
    if not 576 <= mtu <= 9216 or (ip_version == 6 and mtu < 1280):
        raise ValueError(f"mtu out of range, got {mtu!r}")
    if not 0 <= row["encap"] <= 1024:
        raise ValueError(f"encapsulation_bytes out of range, got "
                         f"{row['encap']!r}")
    vlan_tags = _one_of("vlan_tags", row["vlan_tags"], (0, 1, 2))
    code = _one_of("transport", row["transport"], (0, 1, 2, 3))
    spread_code = _one_of("spread", row["spread"], (0, 1, 2))
    member_speed = _positive("member_speed", row["member_speed"])
    members = _positive("members", row["members"])
    queues = _positive("rss_queues", row["rss_queues"])
    cores = _positive("cores", row["cores"])
    flows = _positive("flows", row["flows"])
    ghz = _positive("ghz", row["ghz"])
    if _positive("flows_per_queue", row["flows_per_queue"]) > flows:
        raise ValueError("flows_per_queue must not exceed flows")

    ip = 40 if ip_version == 6 else 20
    options = 12 if row["timestamps"] else 0
    frame_extra = 38 + 4 * vlan_tags + row["encap"]
    rdma = code == transport.SMB_DIRECT
    compressed = code == transport.COMPRESSION
    if rdma and row["protocol"] == wire.ROCE:
        usable = mtu - 96
        payload = max(m for m in (256, 512, 1024, 2048, 4096) if m <= usable)
        frame = payload + ip + 24 + frame_extra
    else:
        payload = mtu - ip - 20 - options
        frame = mtu + frame_extra
    efficiency = payload / frame
    soft = row["soft_agg"] and not row["lro"]
    traversal = 65536 if row["lro"] or soft else payload
    cycles = _positive("cycles_per_byte", row["rss_factor"] * (
        row["c_byte"] + (0.0 if row["checksum"] else row["c_checksum"])
        + row["c_pkt"] / traversal
        + (row["c_wire"] + row["c_encap"] + row["c_team"]
           + (row["c_soft_agg"] if soft else 0.0)) / payload))

    member = member_speed * efficiency
    if spread_code == transport.ONE:
        spread = 1.0
    elif spread_code == transport.HASH:
        spread = members * (1 - (1 - 1 / members) ** flows)
    else:
        spread = members
    groups = flows / row["flows_per_queue"]
    per_member = queues * (1 - (1 - 1 / queues) ** (groups / spread))
    busy = min(spread * per_member, groups, cores)
    ratio = row["ratio"] if compressed else 1.0
    core = 8 * ghz / cycles
    bounds = (members * member * ratio, spread * member * ratio,
              math.inf if rdma else flows * member * ratio,
              math.inf if rdma else busy * core * ratio,
              row["streams"] * row["stream_cap"],
              row["threads"] * row["compressor"] if compressed
              else math.inf)
    throughput = min(bounds)
    wire_payload = throughput / ratio
    if rdma:
        stack = wire_payload * row["c_io"] / ghz / (8 * (1 << 20))
        busiest = stack
    else:
        stack = wire_payload * cycles / (8 * ghz)
        per_queue = (math.ceil(groups / busy - 1e-9) * wire_payload
                     / groups)
        busiest = per_queue * cycles / (8 * ghz)
    compression = throughput / row["compressor"] \
        if compressed and not row["offload"] else 0.0
    return {"throughput": throughput, "wire_payload": wire_payload,
            "cores": stack + compression, "compression_cores": compression,
            "busiest_core": min(busiest, 1.0),
            "busy_queues": 0.0 if rdma else busy,
            "limit": bounds.index(throughput), "spread_members": spread,
            "core_ceiling": core,
            "ack_bytes": max(ip + 20 + options + 18 + 4 * vlan_tags, 64) + 20,
            "efficiency": efficiency, "payload": payload}


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
    vector = transfer_chain(inputs)
    scalar = [scalar_chain(row) for row in rows]
    for key, values in vector.items():  # every output, not only throughput
        np.testing.assert_allclose(values[:SCALAR_N],
                                   [result[key] for result in scalar],
                                   rtol=1e-9, err_msg=key)
    # best of three on both sides, so machine load does not favour either
    scalar_rate = SCALAR_N / best_time(
        lambda: [scalar_chain(row) for row in rows], 3)
    vector_rate = N / best_time(lambda: transfer_chain(inputs), 3)
    return vector_rate / scalar_rate, "x", 100, True


BENCHMARKS = [chain_rate, chain_speedup]
