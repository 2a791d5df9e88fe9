"""Start-up of the CLI as a user sees it: a fresh process each time."""

import subprocess
import sys

from tests.benchmarks.timing import best_time
from tests.conftest import ROOT


def _run(*args):
    subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT,
                   check=True, capture_output=True)


def version_time():
    """python -m app --version, whole process [s]"""
    return best_time(lambda: _run("--version")), "s", 0.5, False


def solve_time():
    """python -m app solve example --format json, whole process [s]"""
    return best_time(lambda: _run("solve", "resources/examples/"
                                  "jumbo_10gbe.toml", "--format",
                                  "json")), "s", 2.0, False


BENCHMARKS = [version_time, solve_time]
