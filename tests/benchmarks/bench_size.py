"""Large documents through the CLI (issue 19): 10,000 migrations,
transfers or variants are refused at once with the limit; the largest
documents the limits accept solve, advise and report within the targets.
Each run is a fresh process: its wall time and peak memory as a user sees
them."""

import sys
import tempfile
import time
import tomllib
from pathlib import Path

import tomli_w

from app.report.pdf import REPORT_MAX_VARIANTS
from models.scenario import (MAX_ENTRIES, MAX_STORAGE_WORKLOADS,
                             MAX_TRANSFERS)
from tests.benchmarks.timing import run_with_peak_rss
from tests.conftest import EXAMPLES, ROOT

#: Issue 19: 10,000 entries within 10 s and 1 GB, or refused at once.
ENTRIES = 10_000
SECONDS = 10.0
MEGABYTES = 1024.0


def _example(name):
    return tomllib.loads((EXAMPLES / name).read_text())


def _with_migrations(count):
    document = _example("seed001_live_migration.toml")
    item = document["workloads"]["migrations"][0]
    document["workloads"]["migrations"] = [dict(item, name=f"m{i}")
                                           for i in range(count)]
    document["variants"] = []  # each would solve them all again
    return document


def _with_transfers(count):
    document = _example("seed001_live_migration.toml")
    item = document["workloads"]["transfers"][0]
    document["workloads"]["transfers"] = [dict(item, name=f"t{i}")
                                          for i in range(count)]
    document["workloads"]["migrations"] = []
    document["variants"] = []
    return document


def _with_storage(count):
    document = _example("seed002_hcibench.toml")
    item = document["workloads"]["storage"][0]
    document["workloads"]["storage"] = [dict(item, name=f"s{i}")
                                        for i in range(count)]
    document["variants"] = []
    return document


#: Each list at the largest size the document accepts.
LARGEST = [(lambda: _with_migrations(MAX_ENTRIES)),
           (lambda: _with_transfers(MAX_TRANSFERS)),
           (lambda: _with_storage(MAX_STORAGE_WORKLOADS)),
           (lambda: _with_variants(MAX_ENTRIES))]


def _with_variants(count):
    document = _example("jumbo_10gbe.toml")
    document["sweeps"] = []
    document["variants"] = [{"name": f"v{i}",
                             "set": {"network.mtu": 1500 + i % 7000}}
                            for i in range(count)]
    return document


def _run(document, *args):
    """Wall time [s] and peak memory [MB] of one CLI run on ``document``;
    its exit code."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "big.toml"
        path.write_text(tomli_w.dumps(document))
        arguments = [a.replace("{dir}", directory) for a in args]
        start = time.perf_counter()
        process, peak = run_with_peak_rss(
            [sys.executable, "-m", "app", arguments[0], str(path),
             *arguments[1:]], cwd=ROOT)
        seconds = time.perf_counter() - start
    assert process.returncode == 0 or "Traceback" not in process.stderr
    return seconds, peak, process.returncode


_PEAKS = []


def _slowest(cases):
    worst = 0.0
    for document, args, code in cases:
        seconds, megabytes, returned = _run(document, *args)
        assert returned == code, (args, returned, len(document.get(
            "variants", [])))
        worst = max(worst, seconds)
        _PEAKS.append(megabytes)
    return worst


def refused_at_once():
    """10,000 migrations/transfers/storage/variants: refused [s]"""
    cases = [(build(ENTRIES), ("solve",), 2)
             for build in (_with_migrations, _with_transfers,
                           _with_storage, _with_variants)]
    return _slowest(cases), "s", SECONDS, False


def largest_accepted_solve():
    """largest accepted documents: solve, slowest [s]"""
    cases = [(build(), ("solve", "--format", "csv"), 0)
             for build in LARGEST]
    return _slowest(cases), "s", SECONDS, False


def largest_accepted_advise():
    """largest accepted documents: advise, slowest [s]"""
    cases = [(build(), ("advise",), 0) for build in LARGEST]
    return _slowest(cases), "s", SECONDS, False


def largest_accepted_report():
    """largest accepted documents: report (50 variants) [s]"""
    output = ("report", "-o", "{dir}/report.pdf")
    cases = [(build(), output, 0) for build in LARGEST[:-1]] \
        + [(_with_variants(REPORT_MAX_VARIANTS - 1), output, 0)]
    return _slowest(cases), "s", SECONDS, False


def peak_memory():
    """peak memory of all the runs above [MB]"""
    return max(_PEAKS), "MB", MEGABYTES, False


BENCHMARKS = [refused_at_once, largest_accepted_solve,
              largest_accepted_advise, largest_accepted_report, peak_memory]
