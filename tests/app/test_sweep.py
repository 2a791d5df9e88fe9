"""`linkplan sweep`: rows equal one-by-one evaluate(), reproducible bytes,
bad axes named, Ctrl-C leaves whole rows (issue 7)."""

import csv
import io
import json
import signal
import subprocess
import sys
import time

import pytest

from app.scenario_io import load_scenario
from models.scenario import dump_scenario
from solvers.evaluate import evaluate
from tests.app.test_cli import run
from tests.app.test_files import ctrl_c_as_at_a_terminal, unpublished_bytes
from tests.conftest import ROOT

EXAMPLE = "resources/examples/jumbo_10gbe.toml"


def test_sweep_rows_equal_one_by_one_evaluate():
    scenario = load_scenario(ROOT / EXAMPLE)
    process = run("sweep", EXAMPLE)
    assert process.returncode == 0
    rows = list(csv.DictReader(io.StringIO(process.stdout)))
    assert len(rows) == 80
    base = scenario.model_copy(update={"variants": [], "sweeps": []})
    for row in (rows[0], rows[37], rows[-1]):
        changed = base.with_values({
            "nics[0].speed_gbps": float(row["nics[0].speed_gbps"]),
            "network.mtu": int(row["network.mtu"])})
        result = evaluate(changed).variants[0]
        for metric in result.metrics:
            # repr() round-trips floats exactly
            assert float(row[f"{metric.id}[{metric.unit}]"]) == metric.value


def test_sweep_is_reproducible_and_stamped():
    first = run("sweep", EXAMPLE, "--format", "jsonl").stdout
    second = run("sweep", EXAMPLE, "--format", "jsonl", "--processes",
                 "2").stdout
    assert first == second
    header = json.loads(first.splitlines()[0])
    scenario = load_scenario(ROOT / EXAMPLE)
    assert header["scenario_sha256"] == scenario.sha256()
    assert header["points"] == 80 and header["units"]["wire.goodput_gbps"] \
        == "Gbit/s"


def test_sweep_output_file_replaces_only_when_complete(tmp_path):
    out = tmp_path / "points.csv"
    assert run("sweep", EXAMPLE, "-o", str(out)).returncode == 0
    assert out.read_text().count("\n") == 81
    assert not (tmp_path / "points.csv.partial").exists()


def write_sweep(tmp_path, axes, mode="product", name="s"):
    scenario = load_scenario(ROOT / EXAMPLE)
    data = scenario.model_dump(mode="json")
    data["sweeps"] = [{"name": name, "mode": mode, "axes": axes}]
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("axes, mode, fragment", [
    ([{"path": "network.mtux", "values": [1500]}], "product",
     "network.mtux"),
    ([{"path": "network.mtu", "values": [1500, 99999]}], "product",
     "network.mtu = 99999"),
    ([{"path": "network.mtu", "linspace": {"start": 1500, "stop": 1501,
                                           "num": 3}}], "product",
     "whole number"),
    ([{"path": "network.mtu", "values": [1500, 9000]},
      {"path": "nics[0].speed_gbps", "values": [1.0]}], "zip",
     "equal lengths"),
    ([{"path": "nics[5].speed_gbps", "values": [1.0]}], "product",
     "nics[5]"),
    ([{"path": "network.mtu", "values": ["jumbo"]}], "product",
     "network.mtu = 'jumbo'"),
    # column fields of issue 36 are refused as before
    ([{"path": "host.ghz", "values": [2.0, "fast"]}], "product",
     "host.ghz = 'fast'"),
    ([{"path": "workloads.transfers[7].sessions", "values": [1, 2]}],
     "product", "workloads.transfers[7]"),
    ([{"path": "host.ghz", "linspace": {"start": 1, "stop": 4,
                                        "num": 1_000_000}},
      {"path": "workloads.transfers[0].streams",
       "linspace": {"start": 1, "stop": 64, "num": 1_000}}],
     "product", "1,000,000,000 points (1,000,000 x 1,000)"),
    # 1e12 points: refused with the count before any value is validated
    ([{"path": "network.mtu", "linspace": {"start": 1500, "stop": 9000,
                                           "num": 1_000_000}},
      {"path": "nics[0].speed_gbps", "linspace": {"start": 1, "stop": 100,
                                                  "num": 1_000_000}}],
     "product", "1,000,000,000,000 points (1,000,000 x 1,000,000)"),
])
def test_bad_axis_is_named_with_exit_2(tmp_path, axes, mode, fragment):
    process = run("sweep", str(write_sweep(tmp_path, axes, mode)))
    assert process.returncode == 2
    assert fragment in process.stderr
    assert "Traceback" not in process.stderr


def test_unknown_sweep_name_and_no_sweep(tmp_path):
    process = run("sweep", EXAMPLE, "--sweep", "nope")
    assert process.returncode == 2 and "no sweep named 'nope'" in \
        process.stderr
    scenario = load_scenario(ROOT / "resources/examples/seed000_lbt.toml")
    assert scenario.sweeps == []
    process = run("sweep", "resources/examples/seed000_lbt.toml")
    assert process.returncode == 2 and "defines no sweep" in process.stderr


def test_ctrl_c_leaves_a_valid_partial_file(tmp_path):
    path = write_sweep(tmp_path, [
        {"path": "nics[0].speed_gbps", "linspace": {"start": 1, "stop": 100,
                                                    "num": 400}},
        {"path": "network.mtu", "linspace": {"start": 1500, "stop": 9000,
                                             "num": 751}}])
    out = tmp_path / "big.csv"
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "sweep", str(path), "-o", str(out),
         "--processes", "1"], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        preexec_fn=ctrl_c_as_at_a_terminal)
    partial = tmp_path / "big.csv.partial"
    deadline = time.monotonic() + 60
    while unpublished_bytes(process.pid, tmp_path) < 10_000 \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "interrupted after" in stderr and "Traceback" not in stderr
    assert not out.exists()           # nothing complete was claimed
    rows = list(csv.reader(partial.open()))
    assert rows[0][:3] == ["linkplan_version", "scenario_sha256", "point"]
    assert all(len(r) == len(rows[0]) for r in rows)
    assert [int(r[2]) for r in rows[1:]] == list(range(len(rows) - 1))
    assert 0 < len(rows) - 1 < 400 * 751
    # the workers' part files are gone
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["big.csv.partial", "sweep.json"]


def test_parquet_parts_hold_the_csv_numbers(tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "points.parquet"
    for processes in ("1", "2"):
        assert run("sweep", EXAMPLE, "--format", "parquet", "-o", str(out),
                   "--processes", processes).returncode == 0
        table = pq.read_table(out)
        rows = list(csv.DictReader(io.StringIO(run("sweep",
                                                   EXAMPLE).stdout)))
        assert table.num_rows == len(rows) == 80
        field = table.schema.field("wire.goodput_gbps")
        assert field.metadata[b"unit"] == b"Gbit/s"
        assert table.schema.metadata[b"scenario_sha256"].decode() == \
            rows[0]["scenario_sha256"]
        for row, point in zip(rows, table.to_pylist()):
            assert point["point"] == int(row["point"])
            assert point["network.mtu"] == int(row["network.mtu"])
            # both carry the same float64: repr() round-trips exactly
            assert point["wire.goodput_gbps"] == \
                float(row["wire.goodput_gbps[Gbit/s]"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["points.parquet"]


def test_parquet_needs_an_output_folder(tmp_path):
    process = run("sweep", EXAMPLE, "--format", "parquet")
    assert process.returncode == 2 and "-o" in process.stderr
    taken = tmp_path / "taken.parquet"
    taken.write_text("a file")
    process = run("sweep", EXAMPLE, "--format", "parquet", "-o", str(taken))
    assert process.returncode == 2 and "is a file" in process.stderr
    assert taken.read_text() == "a file"


def test_worker_parts_make_the_same_bytes_as_one_process(tmp_path):
    for kind in ("csv", "jsonl"):
        one, two = tmp_path / f"one.{kind}", tmp_path / f"two.{kind}"
        assert run("sweep", EXAMPLE, "--format", kind, "-o", str(one),
                   "--processes", "1").returncode == 0
        assert run("sweep", EXAMPLE, "--format", kind, "-o", str(two),
                   "--processes", "2").returncode == 0
        assert one.read_bytes() == two.read_bytes() == \
            run("sweep", EXAMPLE, "--format", kind).stdout.encode()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_dump_keeps_sweeps():
    scenario = load_scenario(ROOT / EXAMPLE)
    assert "mtu_by_link_speed" in dump_scenario(scenario, "toml")


def test_range_axis_steps_to_an_included_stop():
    from models.scenario import Axis
    from solvers.grid import axis_values
    axis = Axis(path="network.mtu",
                range={"start": 1500, "stop": 9000, "step": 1500})
    assert axis_values(axis) == [1500, 3000, 4500, 6000, 7500, 9000]
    axis = Axis(path="nics[0].speed_gbps",
                range={"start": 0.5, "stop": 1.6, "step": 0.5})
    assert axis_values(axis) == [0.5, 1, 1.5]


def test_range_that_never_arrives_is_refused(tmp_path):
    process = run("sweep", str(write_sweep(tmp_path, [
        {"path": "network.mtu", "range": {"start": 9000, "stop": 1500,
                                          "step": 500}}])))
    assert process.returncode == 2
    assert "never gets from 9000 to 1500" in process.stderr
