"""A fleet study (issue 15, item 3): 1,000 scenario files and all their
variants solved by one `solve` run, which pays start-up once."""

import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.scenario_io import load_scenario
from tests.conftest import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
FILES = 1_000


def _fleet(folder):
    """The examples cycled to ``FILES`` hosts, each with its own clock;
    returns the number of variants (base included)."""
    documents = [load_scenario(p).model_dump(mode="json")
                 for p in sorted(EXAMPLES.glob("*.toml"))]
    variants = 0
    for i in range(FILES):
        data = json.loads(json.dumps(documents[i % len(documents)]))
        data["meta"]["name"] = f"host {i:04d}"
        data["host"]["ghz"] = round(2.0 + (i % 17) * 0.1, 2)
        (Path(folder) / f"host{i:04d}.json").write_text(json.dumps(data))
        variants += 1 + len(data["variants"])
    return variants


def fleet_solve_time():
    """solve: 1,000 files x their variants, one run, start-up incl. [s]"""
    with tempfile.TemporaryDirectory() as folder:
        fleet = Path(folder) / "fleet"
        fleet.mkdir()
        variants = _fleet(fleet)
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
