"""Sweeps from the command line (issues 7 and 15): 100,000 and 1,000,040
points streamed to CSV (and Parquet), wall time including start-up and
the peak memory of the largest process; and the in-process column path
against the bare transport chain in the same run."""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from app.paths import DEFAULT_EXAMPLE, resource_path
from app.scenario_io import load_scenario
from solvers import sweep
from models.chain import transfer_chain
from tests.benchmarks import bench_host
from tests.benchmarks.timing import best_time, run_with_peak_rss

ROOT = Path(__file__).resolve().parents[2]


def _sweep_file(folder, speeds=40):
    """The built-in example with a sweep of ``speeds`` link speeds x 2,501
    MTUs (40: 100,040 points; 400: 1,000,400)."""
    scenario = load_scenario(resource_path(DEFAULT_EXAMPLE))
    data = scenario.model_dump(mode="json")
    data["variants"] = []
    data["sweeps"] = [{"name": "grid", "mode": "product", "axes": [
        {"path": "nics[0].speed_gbps",
         "linspace": {"start": 1, "stop": 100, "num": speeds}},
        {"path": "network.mtu",
         "linspace": {"start": 1500, "stop": 9000, "num": 2501}}]}]
    path = Path(folder) / "sweep.json"
    path.write_text(json.dumps(data))
    return path


_MEASURED = {}


def _run(processes, speeds=40, output="out.csv", *options):
    """Wall time of the sweep [s] and the peak RSS of its largest
    process [MB]; checks the row count."""
    with tempfile.TemporaryDirectory() as folder:
        path = _sweep_file(folder, speeds)
        out = Path(folder) / output
        start = time.perf_counter()
        process, peak = run_with_peak_rss(
            [sys.executable, "-m", "app", "sweep", str(path), "-o",
             str(out), "--processes", str(processes), *options], cwd=ROOT)
        seconds = time.perf_counter() - start
        process.check_returncode()
        rows = _rows(out)
    assert rows == speeds * 2501, rows
    return seconds, peak


def _rows(out):
    if out.suffix == ".csv":
        with open(out, "rb") as stream:
            return sum(block.count(b"\n") for block in
                       iter(lambda: stream.read(1 << 20), b"")) - 1
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(part).metadata.num_rows
               for part in out.glob("*.parquet"))


def sweep_100k_time():
    """sweep: 100,040 points to CSV, default processes, start-up incl. [s]"""
    seconds, _MEASURED["peak_mb"] = _run(
        sweep.default_processes(100_040, os.cpu_count()))
    return seconds, "s", 10.0, False


def sweep_100k_memory():
    """sweep: peak RSS of the largest process of that run [MB]"""
    if "peak_mb" not in _MEASURED:
        sweep_100k_time()
    return _MEASURED["peak_mb"], "MB", 500.0, False


def sweep_1m_csv_time():
    """sweep: 1,000,400 points to CSV, 2 processes, start-up incl. [s]"""
    seconds, _MEASURED["1m_peak_mb"] = _run(2, 400)
    return seconds, "s", 8.0, False


def sweep_1m_csv_memory():
    """sweep: peak RSS of the largest process of that run [MB]"""
    if "1m_peak_mb" not in _MEASURED:
        sweep_1m_csv_time()
    return _MEASURED["1m_peak_mb"], "MB", 300.0, False


def sweep_1m_parquet_time():
    """sweep: 1,000,400 points to Parquet, 2 processes, start-up incl. [s]"""
    seconds, _ = _run(2, 400, "out.parquet", "--format", "parquet")
    return seconds, "s", 5.0, False


def sweep_rate_ratio():
    """sweep points/s in-process over chain scenarios/s, same run [x]"""
    with tempfile.TemporaryDirectory() as folder:
        scenario = load_scenario(_sweep_file(folder, 40))
    sweep_plan = sweep.plan(scenario)

    def points():
        for _ in sweep.run(scenario, sweep_plan):
            pass

    rate = sweep_plan.total / best_time(points, 3)
    inputs = bench_host.random_inputs(bench_host.N)
    chain = bench_host.N / best_time(lambda: transfer_chain(inputs), 3)
    return rate / chain, "x", 0.1, True


BENCHMARKS = [sweep_100k_time, sweep_100k_memory, sweep_1m_csv_time,
              sweep_1m_csv_memory, sweep_1m_parquet_time, sweep_rate_ratio]
