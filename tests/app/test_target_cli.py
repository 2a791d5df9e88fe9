"""``linkplan advise --target`` as a user runs it (issue 32 item 5)."""

import json

import pytest

from tests.app.test_cli import assert_clean_failure, run

HCIBENCH = "resources/examples/seed002_hcibench.toml"
MIGRATION = "resources/examples/seed001_live_migration.toml"


def test_target_table_lists_each_lever_re_solved():
    process = run("advise", HCIBENCH, "--target", "storage.iops>=12000")
    assert process.returncode == 0, process.stderr
    out = process.stdout
    assert "Target: storage.iops >= 12000 1/s; now 9,781 1/s (not met)" \
        in out
    # HCIBench's own recommendation, the smallest change that meets it
    assert "workloads.storage[0].threads_per_disk: 1 → 2" in out
    assert "storage.iops 9,781 → 12,475 1/s" in out
    assert "binding after: hcibench: the storage back end caps IOPS" in out
    assert "MTU: not reachable by this lever" in out


def test_target_json_with_a_unit_and_one_lever():
    process = run("advise", MIGRATION, "--target", "migration.total_s<=1 min",
                  "--lever", "concurrency", "--format", "json")
    assert process.returncode == 0, process.stderr
    data = json.loads(process.stdout)
    assert data["target"] == {"metric": "migration.total_s", "op": "<=",
                              "value": 60.0, "unit": "s"}
    (lever,) = data["levers"]
    assert lever["reachable"] and lever["change"] == {
        "workloads.migrations[0].concurrency": {"old": 4, "new": 3}}


@pytest.mark.parametrize("args, words", [
    (["--target", "storage.iops=>"], "is not of the form METRIC OP NUMBER"),
    (["--target", "storage.iops>=1 GB"], "is a data size, but the field"),
    (["--target", "storage.iopz>=1"],
     "target metric 'storage.iopz': no such metric; did you mean"),
    (["--target", "migration.total_s<=60"],
     "the scenario does not compute it"),
    (["--target", "storage.iops>=1", "--lever", "streams"],
     "lever 'streams' does not act on storage.iops"),
    (["--target", "storage.iops>=1", "--lever", "warp"],
     "lever 'warp' is not one Linkplan knows"),
    (["--lever", "mtu"], "--lever needs --target"),
    (["--target", "storage.iops>=1", "--goal", "max_iops"],
     "give one of them"),
])
def test_bad_targets_exit_2_with_a_message(args, words):
    assert_clean_failure(run("advise", HCIBENCH, *args), words)
