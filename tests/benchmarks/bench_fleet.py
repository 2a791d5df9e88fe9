"""A fleet study (issue 15, items 3 and 6): 1,000 scenario files and all
their variants solved by one `solve` run, which pays start-up once, and
swept (a 2 x 2 grid each) into Parquet by one `sweep` run. The hosts
cycle through the examples, each with its own clock, NIC speeds, MTU, VM
memory and dirty rates (tests.conftest.fleet_document): no two hosts of an
example are the same document. Each run is timed while another process
keeps one core busy (issue 36: the targets hold on a busy machine)."""

import contextlib
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.conftest import EXAMPLES, write_fleet

ROOT = Path(__file__).resolve().parents[2]
FILES = 1_000


@contextlib.contextmanager
def one_core_busy():
    """Another process spinning on one core for the block."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def _cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed_run(command, fleet, output_format, out):
    """Seconds one ``linkplan COMMAND FLEET`` process takes, start-up
    included, with one core kept busy by another process. Also printed:
    the CPU time that process used, and the load average, which tell a
    slow run from a machine busier than one competing process."""
    with one_core_busy():
        cpu = _cpu_of_children()
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "app", command, str(fleet),
                        "--format", output_format, "-o", str(out)],
                       cwd=ROOT, check=True, capture_output=True)
        seconds = time.perf_counter() - start
        # (the spinner is reaped after this: its CPU is not counted)
        cpu = _cpu_of_children() - cpu
    print(f"    {command}: CPU of the linkplan process {cpu:.1f} s (user + "
          f"system); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    return seconds


def fleet_solve_time():
    """solve: 1,000 files x variants, 1 core busy, start-up incl. [s]"""
    with tempfile.TemporaryDirectory() as folder:
        fleet = Path(folder) / "fleet"
        fleet.mkdir()
        variants = write_fleet(fleet, FILES)
        out = Path(folder) / "fleet.csv"
        seconds = _timed_run("solve", fleet, "csv", out)
        with open(out, newline="") as stream:
            solved = {(row["scenario"], row["variant"])
                      for row in csv.DictReader(stream)}
    assert len(solved) == variants, (len(solved), variants)
    return seconds, "s", 10.0, False


def fleet_sweep_time():
    """sweep: 1,000 files x 5 var. x 4 points, 1 core busy, Parquet [s]"""
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as folder:
        fleet = Path(folder) / "fleet"
        fleet.mkdir()
        variants = write_fleet(fleet, FILES,
                               examples=[EXAMPLES / "jumbo_10gbe.toml"])
        for path in fleet.iterdir():
            data = json.loads(path.read_text())
            data["sweeps"] = [{"name": "small", "mode": "product", "axes": [
                {"path": "nics[0].speed_gbps", "values": [10.0, 25.0]},
                {"path": "network.mtu", "values": [1500, 9000]}]}]
            path.write_text(json.dumps(data))
        out = Path(folder) / "fleet.parquet"
        seconds = _timed_run("sweep", fleet, "parquet", out)
        rows = pq.read_table(out).num_rows
    assert rows == 4 * variants, (rows, variants)
    return seconds, "s", 10.0, False


BENCHMARKS = [fleet_solve_time, fleet_sweep_time]
