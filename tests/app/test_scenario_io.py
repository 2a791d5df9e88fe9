"""Scenario files: atomic saves and round trips."""

import os

import pytest

from app.scenario_io import atomic_write, load_scenario, save_scenario
from models.scenario import ScenarioError


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_save_and_load_round_trip(tmp_path, example_path, suffix):
    scenario = load_scenario(example_path)
    path = tmp_path / f"copy{suffix}"
    save_scenario(scenario, path)
    assert load_scenario(path) == scenario


def test_save_over_a_file_keeps_its_comments_and_written_defaults(
        tmp_path):
    # issue 16: Save dropped the file's comments and wrote every default
    from app.paths import resource_path
    source = resource_path("examples", "seed000_lbt.toml")
    path = tmp_path / "mine.toml"
    path.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    changed = load_scenario(path).with_values({"network.mtu": 9000,
                                               "nics[0].speed_gbps": 25.0})
    save_scenario(changed, path)
    assert load_scenario(path) == changed
    old = source.read_text(encoding="utf-8").splitlines()
    new = path.read_text(encoding="utf-8").splitlines()
    assert [line for line in old if line.startswith("#")] == \
        [line for line in new if line.startswith("#")]
    assert 'hypervisor = "vsphere"' in new   # a default the user wrote
    assert set(new) - set(old) == {"speed_gbps = 25.0", "[network]",
                                   "mtu = 9000"}
    assert "rss_queues" not in path.read_text()   # no default added


def test_a_new_file_holds_only_what_differs_from_the_defaults(tmp_path):
    from models.scenario import new_scenario
    path = tmp_path / "new.toml"
    save_scenario(new_scenario(), path)
    text = path.read_text()
    assert load_scenario(path) == new_scenario()
    for default in ("mtu", "rss_queues", "hypervisor", "tcp_timestamps"):
        assert default not in text


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "scenario.toml"
    path.write_text("old content")

    def disk_full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError):
        atomic_write(path, b"new content")
    assert path.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["scenario.toml"]


def test_save_keeps_file_permissions(tmp_path, example_path):
    path = tmp_path / "scenario.toml"
    path.write_text("")
    path.chmod(0o640)
    save_scenario(load_scenario(example_path), path)
    assert path.stat().st_mode & 0o777 == 0o640


def test_unknown_extension_is_refused_before_writing(tmp_path, example_path):
    with pytest.raises(ScenarioError, match="unknown file type"):
        save_scenario(load_scenario(example_path), tmp_path / "s.yaml")
    assert list(tmp_path.iterdir()) == []


# A child process rewrites one file in a loop and is killed (SIGKILL: no
# clean-up runs) at several moments; the file must hold one whole version.
# The payloads are large enough (8 MiB, with fsync) that a kill lands
# mid-write for most delays.
_REWRITE_LOOP = """
import sys
from app.scenario_io import atomic_write
target = sys.argv[1]
payloads = [bytes([65]) * 8 * 2**20, bytes([66]) * 8 * 2**20]
atomic_write(target, payloads[0])
print("ready", flush=True)
n = 1
while True:
    atomic_write(target, payloads[n % 2])
    n += 1
"""

_RECOVERY_LOOP = """
import sys
from app.recovery import write_recovery
from models.scenario import new_scenario
target = sys.argv[1]
versions = [new_scenario().with_value("network.mtu", mtu)
            for mtu in (1500, 9000)]
write_recovery(target, versions[0])
print("ready", flush=True)
n = 1
while True:
    write_recovery(target, versions[n % 2])
    n += 1
"""


def _kill_mid_write(script, target, delay):
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-c", script, str(target)],
                             cwd=root, stdout=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(root)})
    try:
        assert child.stdout.readline() == b"ready\n"
        time.sleep(delay)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("delay", [0.0, 0.005, 0.02, 0.05, 0.1, 0.2])
def test_killed_during_save_the_file_is_old_or_new(tmp_path, delay):
    target = tmp_path / "scenario.toml"
    _kill_mid_write(_REWRITE_LOOP, target, delay)
    content = target.read_bytes()
    assert content in (b"A" * 8 * 2**20, b"B" * 8 * 2**20)


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("delay", [0.0, 0.01, 0.05])
def test_killed_during_autosave_the_recovery_file_reads_back(tmp_path,
                                                              delay):
    from app.recovery import read_recovery
    target = tmp_path / "recovery-1.json"
    _kill_mid_write(_RECOVERY_LOOP, target, delay)
    assert read_recovery(target).scenario.network.mtu in (1500, 9000)
