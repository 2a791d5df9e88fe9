"""Outputs under stress (issue 19, item 6): a full device, a missing
directory, the input itself, concurrent writers, and processes interrupted
or killed while writing. The target always holds the old or the new
content, complete, and no temporary file is left beside it."""

import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from tests.app.test_cli import EXAMPLE, run
from tests.conftest import ROOT

SWEEP_EXAMPLE = EXAMPLE  # the example with a [[sweeps]] table
OLD = b"old content, complete\n"


def unpublished_bytes(pid, directory):
    """Bytes process ``pid`` has written to files in ``directory`` that
    have no name yet (O_TMPFILE) or a temporary one."""
    total = 0
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in descriptors:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith(str(directory)) and (
                    "(deleted)" in target or target.endswith(".tmp")):
                total += os.stat(f"/proc/{pid}/fd/{fd}").st_size
        except OSError:
            continue
    return total


def big_sweep(directory):
    """A scenario whose sweep takes some seconds to write."""
    path = directory / "big.toml"
    text = (ROOT / SWEEP_EXAMPLE).read_text()
    head = text.split("[[sweeps]]")[0]
    path.write_text(head + """
[[sweeps]]
name = "big"
[[sweeps.axes]]
path = "nics[0].speed_gbps"
linspace = { start = 1, stop = 100, num = 400 }
[[sweeps.axes]]
path = "network.mtu"
linspace = { start = 1500, stop = 9000, num = 751 }
""")
    return path


def ctrl_c_as_at_a_terminal():
    """Run in a child before its exec: SIGINT back to its default, so
    Python installs its KeyboardInterrupt handler. A suite started in the
    background (``&`` without job control, nohup, some CI runners) hands
    its children SIGINT ignored, and Ctrl-C would then do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_and_wait(args, directory, written=10_000):
    process = subprocess.Popen([sys.executable, "-m", "app", *args],
                               cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_as_at_a_terminal)
    deadline = time.monotonic() + 60
    while unpublished_bytes(process.pid, directory) < written \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "finished before it could be stopped"
    return process


COMMANDS = {
    "solve": ["solve", EXAMPLE, "--format", "json"],
    "advise": ["advise", "resources/examples/seed002_hcibench.toml"],
    "sweep": ["sweep", SWEEP_EXAMPLE],
    "report": ["report", EXAMPLE],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_to_a_full_device_is_a_message(command):
    process = run(*COMMANDS[command], "-o", "/dev/full")
    assert process.returncode == 2, process.stderr
    assert f"linkplan {command}: cannot write /dev/full: No space left " \
        "on device" in process.stderr
    assert "Traceback" not in process.stderr
    # the device is written, never replaced by a file (we may be root)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_standard_output_to_a_full_device_is_a_message():
    with open("/dev/full", "w") as full:
        process = subprocess.run(
            [sys.executable, "-m", "app", *COMMANDS["solve"]], cwd=ROOT,
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert process.returncode == 2
    assert process.stderr == "linkplan solve: cannot write standard " \
        "output: No space left on device\n"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_in_a_missing_directory_is_a_message(command, tmp_path):
    target = tmp_path / "missing" / "out.txt"
    process = run(*COMMANDS[command], "-o", str(target))
    assert process.returncode == 2
    assert f"cannot write {target}: No such file or directory" in \
        process.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_naming_the_input_is_refused(command, tmp_path):
    source = tmp_path / "input.toml"
    arguments = COMMANDS[command]
    source.write_bytes((ROOT / arguments[1]).read_bytes())
    before = source.read_bytes()
    process = run(arguments[0], str(source), *arguments[2:], "-o",
                  str(source))
    assert process.returncode == 2
    assert "is the input" in process.stderr
    assert source.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["input.toml"]


def test_concurrent_writers_leave_one_complete_output(tmp_path):
    target = tmp_path / "out.csv"
    expected = run(*COMMANDS["sweep"]).stdout
    writers = [subprocess.Popen(
        [sys.executable, "-m", "app", *COMMANDS["sweep"], "-o",
         str(target)], cwd=ROOT, stderr=subprocess.PIPE)
        for _ in range(4)]
    for writer in writers:
        assert writer.wait(timeout=120) == 0
    assert target.read_text() == expected
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL],
                         ids=["SIGINT", "SIGKILL"])
def test_stopped_sweep_keeps_the_old_output_and_no_temporary(sig,
                                                             tmp_path):
    scenario = big_sweep(tmp_path)
    target = tmp_path / "out.csv"
    target.write_bytes(OLD)
    process = start_and_wait(["sweep", str(scenario), "-o", str(target),
                              "--processes", "1"], tmp_path)
    process.send_signal(sig)
    process.communicate(timeout=60)
    assert target.read_bytes() == OLD
    left = sorted(p.name for p in tmp_path.iterdir())
    # Ctrl-C publishes the rows so far (whole rows) as out.csv.partial
    assert left == (["big.toml", "out.csv", "out.csv.partial"]
                    if sig == signal.SIGINT else ["big.toml", "out.csv"])


# A save is too quick to interrupt from outside; this writer stops half-way
# (as a save of a large document would be, mid-write) and waits.
HALF_WRITER = """
import sys, time
from app.scenario_io import AtomicFile
output = AtomicFile(sys.argv[1])
try:
    output.stream.write(b"new content, first half\\n")
    output.stream.flush()
    print("half", flush=True)
    time.sleep(60)
    output.stream.write(b"second half\\n")
    output.publish()
finally:
    output.discard()
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL],
                         ids=["SIGINT", "SIGKILL"])
def test_stopped_save_keeps_the_old_file_and_no_temporary(sig, tmp_path):
    target = tmp_path / "plan.toml"
    target.write_bytes(OLD)
    process = subprocess.Popen([sys.executable, "-c", HALF_WRITER,
                                str(target)], cwd=ROOT,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_as_at_a_terminal)
    assert process.stdout.readline() == "half\n"
    process.send_signal(sig)
    process.communicate(timeout=60)
    assert target.read_bytes() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["plan.toml"]


def test_save_replaces_the_file_keeping_its_permissions(tmp_path):
    from app.scenario_io import load_scenario, save_scenario
    target = tmp_path / "plan.toml"
    target.write_bytes(OLD)
    target.chmod(0o640)
    save_scenario(load_scenario(ROOT / EXAMPLE), target)
    assert load_scenario(target) == load_scenario(ROOT / EXAMPLE)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["plan.toml"]
