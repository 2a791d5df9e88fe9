"""`linkplan` is a command of the virtualenv the README's setup makes
(issue 37 item 7): it runs from any folder, not only the repository's."""

import subprocess
import sys
from pathlib import Path

from solvers import __version__
from tests.conftest import ROOT

COMMAND = Path(sys.executable).parent / "linkplan"


def test_linkplan_runs_from_any_folder(tmp_path):
    version = subprocess.run([str(COMMAND), "--version"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=60)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"linkplan {__version__}"
    example = ROOT / "resources" / "examples" / "jumbo_10gbe.toml"
    solved = subprocess.run([str(COMMAND), "validate", str(example)],
                            cwd=tmp_path, capture_output=True, text=True,
                            timeout=60)
    assert solved.returncode == 0, solved.stderr
    assert "valid" in solved.stdout
