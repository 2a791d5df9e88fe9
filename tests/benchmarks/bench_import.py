"""Importing big exports: a 500 MB esxtop batch file (time and peak
memory of the importing process) and a 5,000-VM RVTools workbook. The
files are generated into a temporary folder on first use."""

import atexit
import functools
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.app.import_samples import (ESXTOP_PORTS, esxtop_header,
                                      esxtop_sample_rows, rvtools_rows,
                                      write_rvtools)
from tests.conftest import ROOT

ESXTOP_BYTES = 500 * 2 ** 20
#: Unrelated counters per row, as in a full esxtop export of a big host.
ESXTOP_EXTRA_COLUMNS = 51_000


@functools.cache
def _folder():
    folder = Path(tempfile.mkdtemp(prefix="linkplan-bench-import-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # 500 MB
    return folder


@functools.cache
def _esxtop_file():
    """A batch file of ESXTOP_BYTES: the sample's ports, then 51,000 other
    counters, rows repeating the sample's values with a clock that runs
    on (the file ends at the first row past the size)."""
    path = _folder() / "esxtop_500MB.csv"
    header = esxtop_header("esx01.example", ESXTOP_PORTS,
                           ESXTOP_EXTRA_COLUMNS)
    tail = "," + ",".join(f'"{i % 97}.{i % 10}"'
                          for i in range(ESXTOP_EXTRA_COLUMNS)) + "\n"
    base = esxtop_sample_rows()
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(",".join(f'"{h}"' for h in header) + "\n")
        size, i = 0, 0
        while size < ESXTOP_BYTES:
            row = list(base[i % len(base)])
            seconds = 5 * i
            row[0] = (f"11/{20 + seconds // 86400}/2026 "
                      f"{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}"
                      f":{seconds % 60:02d}")
            line = ",".join(f'"{c}"' for c in row) + tail
            stream.write(line)
            size += len(line)
            i += 1
    return path


@functools.cache
def _esxtop_run():
    """Import the big file in a fresh process: (wall s, peak RSS MiB)."""
    code = ("import time\n"
            "from app.importers.common import run_import\n"
            "from tests.benchmarks.timing import peak_rss_kib\n"
            "start = time.perf_counter()\n"
            f"outcome = run_import('esxtop', [{str(_esxtop_file())!r}])\n"
            "assert len(outcome.scenarios) == 1, outcome.problems\n"
            "print(time.perf_counter() - start, "
            "peak_rss_kib())\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]) / 1024


def esxtop_time():
    """import esxtop, 500 MB batch file with 51,000 columns [s]"""
    return _esxtop_run()[0], "s", 60.0, False


def esxtop_memory():
    """import esxtop, 500 MB batch file: peak memory [MiB]"""
    return _esxtop_run()[1], "MiB", 500.0, False


def rvtools_time():
    """import rvtools, 100 hosts and 5,000 VMs, incl. validation [s]"""
    from app.importers.common import run_import

    path = _folder() / "rvtools_5000.xlsx"
    write_rvtools(path, rvtools_rows(hosts=100, vms_per_host=50))
    start = time.perf_counter()
    outcome = run_import("rvtools", [path])
    seconds = time.perf_counter() - start
    assert len(outcome.scenarios) == 100, outcome.problems
    return seconds, "s", 10.0, False


BENCHMARKS = [esxtop_time, esxtop_memory, rvtools_time]
