"""A 100,000-point sweep streamed to CSV from the command line (issue 7):
wall time including start-up, and peak memory of the process tree."""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.paths import DEFAULT_EXAMPLE, resource_path
from app.scenario_io import load_scenario
from solvers import sweep

ROOT = Path(__file__).resolve().parents[2]


def _sweep_file(folder):
    scenario = load_scenario(resource_path(DEFAULT_EXAMPLE))
    data = scenario.model_dump(mode="json")
    data["variants"] = []
    data["sweeps"] = [{"name": "100k", "mode": "product", "axes": [
        {"path": "nics[0].speed_gbps",
         "linspace": {"start": 1, "stop": 100, "num": 40}},
        {"path": "network.mtu",
         "linspace": {"start": 1500, "stop": 9000, "num": 2501}}]}]
    path = Path(folder) / "sweep.json"
    path.write_text(json.dumps(data))
    return path


#: Runs the sweep in a small launcher process and prints the peak RSS of
#: its process tree: measured from this (large) benchmark process, a forked
#: child would count the parent's pages as its own.
_LAUNCHER = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""

_MEASURED = {}


def _run(processes):
    with tempfile.TemporaryDirectory() as folder:
        path = _sweep_file(folder)
        start = time.perf_counter()
        launcher = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, sys.executable, "-m", "app",
             "sweep", str(path), "-o", str(Path(folder) / "out.csv"),
             "--processes", str(processes)],
            cwd=ROOT, check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        rows = (Path(folder) / "out.csv").read_text().count("\n") - 1
    assert rows == 100_040, rows
    _MEASURED["peak_mb"] = int(launcher.stdout.split()[-1]) / 1024
    return seconds


def sweep_100k_time():
    """sweep: 100,040 points to CSV, default processes, start-up incl. [s]"""
    return _run(sweep.default_processes(100_040, os.cpu_count())), "s", \
        10.0, False


def sweep_100k_memory():
    """sweep: peak RSS of the largest process of that run [MB]"""
    if "peak_mb" not in _MEASURED:
        sweep_100k_time()
    return _MEASURED["peak_mb"], "MB", 500.0, False


BENCHMARKS = [sweep_100k_time, sweep_100k_memory]
