"""A document that asks its platform for the impossible is bad input:
the CLI names the file, the field and the value, exit code 2."""

import subprocess
import sys

from tests.conftest import ROOT

VMOTION_OVER_SMB = """schema_version = 1
[meta]
name = "vMotion over SMB"
[host]
hypervisor = "vsphere"
[[nics]]
id = "vmnic0"
speed_gbps = 10.0
[[workloads.transfers]]
name = "vmotion"
purpose = "live_migration"
transport = "smb"
"""


def test_the_cli_refuses_what_the_platform_lacks(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(VMOTION_OVER_SMB)
    for command in ("validate", "solve"):
        run = subprocess.run([sys.executable, "-m", "app", command,
                              str(path)], cwd=ROOT, capture_output=True,
                             text=True)
        assert run.returncode == 2
        assert "bad.toml: workloads.transfers[0].transport" in run.stderr
        assert "'smb' is not offered by host.hypervisor 'vsphere'" in \
            run.stderr
        assert "Traceback" not in run.stderr
