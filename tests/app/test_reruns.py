"""Byte-identical reruns (issue 19): the same inputs give the same bytes
from solve, sweep and report, so outputs can be diffed and cached."""

import os
import subprocess
import sys

import pytest

from tests.app.test_cli import EXAMPLE
from tests.conftest import ROOT


def output_bytes(args, env=None):
    process = subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT,
                             capture_output=True, timeout=120,
                             env={**os.environ, **(env or {})})
    assert process.returncode == 0, process.stderr
    return process.stdout


@pytest.mark.parametrize("args", [
    ["solve", EXAMPLE, "resources/examples/seed001_live_migration.toml",
     "--format", "json"],
    ["solve", EXAMPLE, "--format", "csv"],
    ["solve", "resources/examples/seed000_lbt.toml", "--format", "table"],
    ["advise", "resources/examples/seed002_hcibench.toml", "--format",
     "json"],
    ["sweep", EXAMPLE, "--format", "csv"],
    ["sweep", EXAMPLE, "--format", "jsonl"],
], ids=["solve-json", "solve-csv", "solve-table", "advise", "sweep-csv",
        "sweep-jsonl"])
def test_reruns_give_identical_bytes(args):
    assert output_bytes(args) == output_bytes(args)


def test_sweep_with_workers_gives_the_bytes_of_one_process():
    args = ["sweep", EXAMPLE, "--format", "csv"]
    assert output_bytes(args + ["--processes", "2"]) == \
        output_bytes(args + ["--processes", "1"])


def test_report_reruns_give_identical_pdfs(tmp_path):
    # the creation date is the only moving part: pinned the
    # reproducible-builds way (SOURCE_DATE_EPOCH)
    env = {"SOURCE_DATE_EPOCH": "1700000000"}
    pdfs = []
    for name in ("a.pdf", "b.pdf"):
        output_bytes(["report", EXAMPLE, "-o", str(tmp_path / name)], env)
        pdfs.append((tmp_path / name).read_bytes())
    assert pdfs[0] == pdfs[1]
    assert b"(D:20231114221320Z)" in pdfs[0]
