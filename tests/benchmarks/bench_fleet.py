"""A fleet study (issue 15, item 3): 1,000 scenario files and all their
variants solved by one `solve` run, which pays start-up once. The hosts
cycle through the examples, each with its own clock, NIC speeds, MTU, VM
memory and dirty rates (tests.conftest.fleet_document): no two hosts of an
example are the same document."""

import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.conftest import write_fleet

ROOT = Path(__file__).resolve().parents[2]
FILES = 1_000


def fleet_solve_time():
    """solve: 1,000 files x their variants, one run, start-up incl. [s]"""
    with tempfile.TemporaryDirectory() as folder:
        fleet = Path(folder) / "fleet"
        fleet.mkdir()
        variants = write_fleet(fleet, FILES)
        out = Path(folder) / "fleet.csv"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "app", "solve", str(fleet),
                        "--format", "csv", "-o", str(out)], cwd=ROOT,
                       check=True, capture_output=True)
        seconds = time.perf_counter() - start
        with open(out, newline="") as stream:
            solved = {(row["scenario"], row["variant"])
                      for row in csv.DictReader(stream)}
    assert len(solved) == variants, (len(solved), variants)
    return seconds, "s", 10.0, False


BENCHMARKS = [fleet_solve_time]
