"""Every hostile file of tests/hostile_files.py through the command line,
in one child process limited to 2 GiB of address space: exit 0, 1 or 2,
never "internal error", each within a minute, with the message naming
file, row/column or key and the value. The corpus holds one file per
class of issue 38 ("49 hostile inputs", "tiny files that exhaust the
machine", "wrong numbers, exit 0"); a few mutated samples add breadth
(``make fuzz`` runs thousands)."""

import json
import os
import subprocess
import sys

import pytest

from tests.hostile_files import ROOT, corpus

#: Mutated samples in the test suite: about two seconds of the run.
MUTATIONS = 26
#: Longest a file may take here [s]: the gate's work is linear and the
#: slowest file takes about 2 s on a busy 2-core machine; main took 31 s
#: to 150 s on the sniffer line, 20,000 esxtop ports and the big vCenter
#: export (make fuzz allows the issue's 60 s).
SECONDS = 10


@pytest.fixture(scope="module")
def outcomes():
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1",
           "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run([sys.executable, "-m", "tests.hostile_files",
                          str(MUTATIONS), "--seed", "38", "--seconds",
                          str(SECONDS)], cwd=ROOT,
                         capture_output=True, text=True, timeout=1200,
                         env=env)
    found = {}
    for line in run.stdout.splitlines():
        outcome = json.loads(line)
        found[outcome["name"]] = outcome
    assert found, run.stderr[-2000:]
    return found


@pytest.mark.parametrize("name", [case.name for case in corpus()])
def test_hostile_file(outcomes, name):
    outcome = outcomes[name]
    assert not outcome["problems"], (outcome["problems"], outcome["output"])


def test_mutated_samples(outcomes):
    failed = {name: (o["problems"], o["output"][-500:])
              for name, o in outcomes.items()
              if name.startswith("mutation-") and o["problems"]}
    assert len([n for n in outcomes if n.startswith("mutation-")]) \
        == MUTATIONS
    assert not failed, failed
