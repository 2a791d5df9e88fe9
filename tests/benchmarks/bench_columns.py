"""Column sweeps on every axis people sweep (issue 36): per family, a
sweep over each of its column fields against a sweep of as many points
over the MTU of the same example, both timed in this run, in turn (best
CPU time of five each, in this process), so that load on the machine
slows both alike and the ratio still shows a regression. Each benchmark gives the worst of its
family's fields and prints every field's ratio below its line."""

import json
import time

import numpy as np

from app.paths import resource_path
from app.scenario_io import load_scenario
from models.scenario import parse_scenario
from solvers import sweep

#: Points of each sweep: one chunk (solvers.sweep.CHUNK_POINTS).
POINTS = sweep.CHUNK_POINTS
#: Most a field's sweep may cost against the MTU sweep of as many points.
TARGET = 1.5


def span(start, stop):
    """The values of an axis of ``points`` points (a function of them):
    as many distinct values from ``start`` to ``stop``."""
    return lambda points: np.linspace(start, stop, points).tolist()


def cycle(values):
    """The values of an axis of ``points`` points: ``values`` over and
    over, a field of few settings swept over as many points as others."""
    return lambda points: [values[i % len(values)] for i in range(points)]


#: The KVM example's guest dirtying 200 MiB/s, where it converges in a
#: few rounds: the pre-copy model's rounds then cost about the same at
#: every point, and the ratio measures the column path, not them (at
#: 2,000 MiB/s on 10 GbE some points converge in hundreds of rounds).
CONVERGING = {"workloads.migrations[0].dirty.rate_mib_s": 200.0}

#: Family -> (example, points, [(field, values[, settings])]), values a
#: function of the points (:func:`span`, :func:`cycle`): a field
#: that turns on more of a model (a time budget: the goal seeks that
#: answer it) is swept, and its MTU sweep run, with ``settings`` (path
#: -> value) set in the example, so that both compute the same metrics;
#: values span the example's regime (a dirty rate around its own).
#: Points: at least a tenth of a second of sweeping (the cheap examples
#: sweep more chunks); evacuations plan a schedule per point (about 0.1 s
#: each, the same on either path), so their sweeps are short.
FAMILIES = {
    "host": ("jumbo_10gbe.toml", 4 * POINTS, [
        ("host.ghz", span(1.5, 4.0)),
        ("host.sockets", cycle(list(range(1, 17)))),
        ("host.cores_per_socket", cycle(list(range(1, 513)))),
        ("nics[0].speed_gbps", span(1.0, 100.0))]),
    "transfers": ("seed001_live_migration.toml", POINTS, [
        ("workloads.transfers[0].sessions", cycle(list(range(1, 65)))),
        ("workloads.transfers[0].streams", cycle(list(range(1, 65)))),
        # caps at which the migration riding the transfer converges in
        # as many rounds as without one
        ("workloads.transfers[0].stream_cap_gbps", span(5.0, 40.0),
         {"workloads.transfers[0].stream_cap_gbps": 20.0})]),
    "migrations": ("kvm_multifd_postcopy.toml", POINTS, [
        ("workloads.migrations[0].memory_gib", span(16.0, 128.0),
         CONVERGING),
        ("workloads.migrations[0].dirty.rate_mib_s", span(100.0, 300.0),
         CONVERGING),
        ("workloads.migrations[0].downtime_budget_ms", span(50.0, 1000.0),
         CONVERGING),
        ("workloads.migrations[0].time_budget_s", span(450.0, 750.0),
         {**CONVERGING, "workloads.migrations[0].time_budget_s": 600.0}),
        ("workloads.migrations[0].max_bandwidth_mib_s",
         span(800.0, 4000.0),
         {**CONVERGING,
          "workloads.migrations[0].max_bandwidth_mib_s": 1000.0}),
        ("workloads.migrations[0].count", cycle(list(range(1, 65))),
         CONVERGING),
        # (concurrent migrations share the link: at 16, each converges
        # in a few rounds while dirtying 5 MiB/s)
        ("workloads.migrations[0].concurrency", cycle(list(range(1, 17))),
         {"workloads.migrations[0].dirty.rate_mib_s": 5.0}),
        ("workloads.migrations[0].streams", cycle(list(range(1, 65))),
         CONVERGING)]),
    "storage": ("seed002_hcibench.toml", 2 * POINTS, [
        ("workloads.storage[0].block_kib", span(4.0, 1024.0)),
        ("workloads.storage[0].read_pct", span(0.0, 100.0)),
        ("workloads.storage[0].random_pct", span(0.0, 100.0)),
        ("workloads.storage[0].threads_per_disk", cycle(list(range(1, 65)))),
        ("workloads.storage[0].sessions_per_path", cycle(list(range(1, 9)))),
        ("workloads.storage[0].backend.iops_max", span(1e4, 1e6)),
        ("workloads.storage[0].backend.mbps_max", span(100.0, 20000.0))]),
    "evacuation": ("evacuation_maintenance.toml", 16, [
        ("workloads.evacuations[0].vms[0].memory_gib", span(2.0, 256.0)),
        ("workloads.evacuations[0].bandwidth_per_migration_mib_s",
         span(100.0, 2000.0)),
        ("workloads.evacuations[0].concurrency",
         cycle(list(range(1, 9))))]),
    "pcie": ("explain_pcie_slot.toml", 8 * POINTS, [
        ("nics[0].speed_gbps", span(1.0, 200.0))]),
    # every point its own threshold: the teaming analysis runs once, LBT
    # (and its N-1 states) once for all thresholds, a row per class of
    # thresholds that take the same decisions
    "teaming": ("seed000_lbt.toml", POINTS, [
        ("teams[0].lbt_threshold_pct", span(50.0, 95.0))]),
}


def _swept(example, path, values, settings=None):
    """The example without variants, ``settings`` set, with one sweep
    over ``path``."""
    scenario = load_scenario(resource_path("examples", example))
    if settings:
        scenario = scenario.with_values(settings)
    data = scenario.model_dump(mode="json")
    data["variants"] = []
    data["sweeps"] = [{"name": "bench", "mode": "product",
                       "axes": [{"path": path, "values": values}]}]
    return parse_scenario(json.dumps(data), "json")


def sweep_run(example, path, values, settings=None):
    """A function that runs a one-axis sweep in this process (planned,
    its values validated, before)."""
    scenario = _swept(example, path, values, settings)
    sweep_plan = sweep.plan(scenario)

    def run():
        for _ in sweep.run(scenario, sweep_plan):
            pass
    return run


def paired_ratio(run, baseline, repeat=5):
    """Best CPU time of ``run`` over best CPU time of ``baseline`` (this
    process's: both run in one thread, and a busy machine delays a
    process more than it slows it), the two timed in turn so that what
    load still slows meets both."""
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for k, function in enumerate((run, baseline)):
            start = time.process_time()
            function()
            best[k] = min(best[k], time.process_time() - start)
    return best[0] / best[1]


def mtu_values(points):
    """``points`` MTUs from 1500 to 9000 B."""
    return [int(v) for v in np.round(np.linspace(1500, 9000, points))]


def family_ratios(family):
    """Field -> its sweep's time over the MTU sweep's, same run."""
    example, points, fields = FAMILIES[family]
    ratios = {}
    for path, values, *settings in fields:
        settings = settings[0] if settings else {}
        ratios[path] = paired_ratio(
            sweep_run(example, path, values(points), settings),
            sweep_run(example, "network.mtu", mtu_values(points), settings))
    return ratios


def _worst(family):
    ratios = family_ratios(family)
    for path, ratio in ratios.items():
        print(f"    {path:56} {ratio:10.3g} x")
    return max(ratios.values()), "x", TARGET, False


def host_columns():
    """column sweep, host + NIC fields / MTU sweep (worst field) [x]"""
    return _worst("host")


def transfer_columns():
    """column sweep, transfer fields / MTU sweep (worst field) [x]"""
    return _worst("transfers")


def migration_columns():
    """column sweep, migration fields / MTU sweep (worst field) [x]"""
    return _worst("migrations")


def storage_columns():
    """column sweep, storage fields / MTU sweep (worst field) [x]"""
    return _worst("storage")


def evacuation_columns():
    """column sweep, evacuation fields / MTU sweep (worst field) [x]"""
    return _worst("evacuation")


def pcie_columns():
    """column sweep, PCIe (NIC speed) / MTU sweep [x]"""
    return _worst("pcie")


def teaming_columns():
    """column sweep, LBT threshold / MTU sweep [x]"""
    return _worst("teaming")


BENCHMARKS = [host_columns, transfer_columns, migration_columns,
              storage_columns, evacuation_columns, pcie_columns,
              teaming_columns]
