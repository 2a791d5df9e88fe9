"""Every CLI command under ``python -W error`` (issue 19, item 2): no
warning is printed to a user, so none may be raised either; documents the
models cannot represent are refused with the field, exit code 2."""

import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES, ROOT

EXAMPLE_FILES = sorted(p.relative_to(ROOT).as_posix()
                       for p in EXAMPLES.glob("*.toml"))


def strict_run(*args):
    return subprocess.run([sys.executable, "-W", "error", "-m", "app",
                           *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def quiet(stderr):
    """Nothing on stderr but progress lines (a loaded machine may be slow
    enough for them)."""
    return [line for line in stderr.splitlines()
            if not line.startswith("linkplan: still working on ")] == []


@pytest.mark.parametrize("command", ["solve", "advise", "validate"])
def test_batch_commands_on_every_example_raise_no_warning(command):
    process = strict_run(command, *EXAMPLE_FILES)
    stderr = process.stderr
    if command == "advise":
        # examples without a workload to optimise are reported as such
        # (exit 1), the others advised
        told = [line for line in stderr.splitlines()
                if ": goal: the scenario has no " in line
                or " inputs failed: " in line]
        assert process.returncode == (1 if told else 0), stderr
        stderr = "\n".join(line for line in stderr.splitlines()
                            if line not in told)
    else:
        assert process.returncode == 0, stderr
    assert quiet(stderr), stderr


@pytest.mark.parametrize("args", [
    ["sweep", "resources/examples/jumbo_10gbe.toml"],
    ["schema"],
], ids=["sweep", "schema"])
def test_sweep_and_schema_raise_no_warning(args):
    process = strict_run(*args)
    assert process.returncode == 0, process.stderr
    assert quiet(process.stderr), process.stderr


def test_report_raises_no_warning(tmp_path):
    process = strict_run("report", "resources/examples/seed001_live_"
                         "migration.toml", "-o", str(tmp_path / "r.pdf"))
    assert process.returncode == 0, process.stderr
    assert quiet(process.stderr), process.stderr


# The documents of issue 19's attack (main at 000d043) that printed
# RuntimeWarnings and ended in "internal error".
ATTACKS = [
    ("resources/examples/seed002_hcibench.toml", "threads_per_disk = 1\n",
     "threads_per_disk = 1000000000\n",
     "workloads.storage[0]: vms x disks_per_vm x threads_per_disk"),
    ("resources/examples/seed002_hcibench.toml", "ghz = 2.6\n",
     "ghz = 5e-324\n", "host.ghz: is below the smallest magnitude"),
]


@pytest.mark.parametrize("command", ["solve", "advise", "report", "sweep"])
@pytest.mark.parametrize("source, old, new, message", ATTACKS,
                         ids=["oio", "ghz"])
def test_unrepresentable_documents_are_refused_without_warnings(
        command, source, old, new, message, tmp_path):
    path = tmp_path / "attack.toml"
    text = (ROOT / source).read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    extra = ["-o", str(tmp_path / "out.pdf")] if command == "report" else []
    process = strict_run(command, str(path), *extra)
    assert process.returncode == 2
    assert message in process.stderr
    assert "Traceback" not in process.stderr \
        and "internal error" not in process.stderr
