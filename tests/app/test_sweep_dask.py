"""`linkplan sweep --engine dask` (issue 15, item 6): the chunks run on a
Dask cluster's workers, which write their own parts; the output has the
same bytes as the local engine's."""

import json
import subprocess
import sys

import pytest

from app import cli
from app.scenario_io import load_scenario
from tests.app.test_cli import assert_clean_failure, run
from tests.app.test_fleet import same_output, write_sweep_file
from tests.conftest import EXAMPLES, ROOT, write_fleet

#: The built-in example's own sweep, and sweeps over the other examples'
#: column and document axes (migrations, storage, teams, evacuations).
SWEEPS = {
    "jumbo_10gbe": None,
    "seed001_live_migration": [
        {"path": "network.mtu", "values": [1500, 4000, 9000]},
        {"path": "nics[0].speed_gbps", "values": [10.0, 25.0]}],
    "seed002_hcibench": [
        {"path": "workloads.storage[0].threads_per_disk",
         "range": {"start": 1, "stop": 64, "step": 3}},
        {"path": "network.mtu", "values": [1500, 9000]}],
    "evacuation_maintenance": [
        {"path": "network.mtu", "values": [1500, 9000]}],
}


@pytest.fixture(scope="module")
def scheduler():
    from distributed import LocalCluster

    # workers as threads of this process (quick to start), reached over
    # TCP by the CLI's own process as a remote cluster would be
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _scenario_file(tmp_path, name):
    path = EXAMPLES / f"{name}.toml"
    if SWEEPS[name] is None:
        return path
    data = load_scenario(path).model_dump(mode="json")
    data["sweeps"] = [{"name": "dask", "mode": "product",
                       "axes": SWEEPS[name]}]
    written = tmp_path / f"{name}.json"
    written.write_text(json.dumps(data))
    return written


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_dask_engine_writes_the_bytes_of_the_local_engine(tmp_path,
                                                          scheduler, name):
    scenario = _scenario_file(tmp_path, name)
    for kind in ("csv", "jsonl"):
        local, remote = tmp_path / f"local.{kind}", tmp_path / f"dask.{kind}"
        assert run("sweep", str(scenario), "--format", kind, "-o",
                   str(local)).returncode == 0
        process = run("sweep", str(scenario), "--format", kind, "-o",
                      str(remote), "--engine", "dask", "--scheduler",
                      scheduler)
        assert process.returncode == 0, process.stderr
        assert remote.read_bytes() == local.read_bytes()
    # nothing left of the workers' parts
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_fleet_on_dask_writes_the_bytes_of_the_local_engine(
        tmp_path, scheduler, monkeypatch):
    from solvers import sweep

    # 2 files of each of two examples (8 and 5 variants each, with other
    # metrics: the CSV header and the Parquet schema are the first
    # document's), 3 documents a task: 9 tasks over the 2 workers
    monkeypatch.setattr(sweep, "FLEET_TASK_DOCUMENTS", 3)
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    migrations = write_sweep_file(tmp_path, "migrations", [
        {"path": "nics[0].speed_gbps", "values": [10.0, 25.0]},
        {"path": "network.mtu", "values": [1500, 4000, 9000]}],
        example="seed001_live_migration")
    write_fleet(fleet, 4, examples=[EXAMPLES / "jumbo_10gbe.toml",
                                    migrations])
    for kind in ("csv", "jsonl", "parquet"):
        local, remote = tmp_path / f"local.{kind}", tmp_path / f"dask.{kind}"
        assert cli.main(["sweep", str(fleet), "--format", kind, "-o",
                         str(local)]) == 0
        assert cli.main(["sweep", str(fleet), "--format", kind, "-o",
                         str(remote), "--engine", "dask", "--scheduler",
                         scheduler]) == 0
        assert same_output(local, remote), kind
    assert len(list((tmp_path / "dask.parquet").glob("part-*"))) == 9
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_unreachable_scheduler_is_a_clear_failure(tmp_path):
    out = tmp_path / "out.csv"
    process = run("sweep", str(EXAMPLES / "jumbo_10gbe.toml"), "-o",
                  str(out), "--engine", "dask", "--scheduler",
                  "tcp://127.0.0.1:9")
    assert_clean_failure(process, "cannot be reached",
                         "tcp://127.0.0.1:9")
    assert list(tmp_path.iterdir()) == []


def test_unreachable_scheduler_of_a_fleet_is_a_clear_failure(tmp_path):
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    write_fleet(fleet, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    process = run("sweep", str(fleet), "--format", "parquet", "-o",
                  str(tmp_path / "out"), "--engine", "dask", "--scheduler",
                  "tcp://127.0.0.1:9")
    assert_clean_failure(process, "cannot be reached",
                         "tcp://127.0.0.1:9")
    assert [p.name for p in tmp_path.iterdir()] == ["fleet"]


def test_engine_and_scheduler_go_together():
    example = str(EXAMPLES / "jumbo_10gbe.toml")
    assert_clean_failure(run("sweep", example, "--engine", "dask"),
                         "--scheduler ADDRESS")
    assert_clean_failure(run("sweep", example, "--scheduler", "tcp://x:1"),
                         "--engine dask")


@pytest.mark.parametrize("fleet", [False, True])
def test_local_engine_imports_no_dask(tmp_path, fleet):
    inputs = [str(EXAMPLES / "jumbo_10gbe.toml")]
    if fleet:
        write_fleet(tmp_path, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
        inputs = [str(tmp_path)]
    code = ("import sys; from app.cli import main; "
            f"assert main(['sweep', *{inputs!r}, '--format', 'parquet', "
            f"'-o', {str(tmp_path.parent / f'{tmp_path.name}.out')!r}, "
            "'--processes', '2']) == 0; "
            "print(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('dask', 'distributed')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.strip() == "[]"
