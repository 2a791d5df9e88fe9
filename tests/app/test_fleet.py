"""Fleets (issue 15, item 3): ``solve`` over a directory evaluates the
files' documents together (solvers.evaluate.evaluate_many), and must give
every file exactly what solving it alone gives; bad files are reported
and the rest done."""

import csv
import importlib
import io
import json
import subprocess
import sys

import pytest

from app import cli
from tests.conftest import EXAMPLES, ROOT, write_fleet

#: Two hosts of every example, all in one batch (documents of every
#: structure together), hosts differing in clock, NIC speed, MTU, VM
#: memory and dirty rates.
HOSTS = 2 * len(list(EXAMPLES.glob("*.toml")))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fleet")
    write_fleet(folder, HOSTS)
    return folder


def solve(tmp_path, *inputs, fmt):
    out = tmp_path / f"out.{fmt}"
    code = cli.main(["solve", *map(str, inputs), "--format", fmt,
                     "-o", str(out)])
    return code, out.read_text(encoding="utf-8")


def rows_by_scenario(text):
    rows = {}
    for row in csv.DictReader(io.StringIO(text)):
        rows.setdefault(row["scenario"], []).append(row)
    return rows


def test_solve_of_a_directory_gives_each_file_its_own_rows(fleet, tmp_path):
    # exact equality, not a tolerance: the batch must not move a number
    # by an ulp (CSV cells are repr of the float)
    code, text = solve(tmp_path, fleet, fmt="csv")
    assert code == 0
    together = rows_by_scenario(text)
    files = sorted(fleet.glob("*.json"))
    assert len(together) == len(files) == HOSTS
    for path in files:
        code, alone = solve(tmp_path, path, fmt="csv")
        assert code == 0
        (name, rows), = rows_by_scenario(alone).items()
        assert together[name] == rows, path.name


def test_json_lines_of_a_directory_equal_each_file_alone(fleet, tmp_path):
    # the evacuation's too: its placement bound is limited in steps, not
    # time (solvers.placement.EVALUATE_OPTIONS), so load cannot change it
    files = sorted(fleet.glob("*.json"))
    code, text = solve(tmp_path, *files, fmt="json")
    assert code == 0
    lines = text.splitlines()
    assert len(lines) == len(files)
    for path, line in zip(files, lines):
        code, alone = solve(tmp_path, path, fmt="json")
        assert json.loads(line) == json.loads(alone), path.name


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_solve_on_several_processes_gives_the_bytes_of_one(fleet, tmp_path,
                                                          fmt):
    # forked workers solve shares of the files (the default from
    # cli.PARALLEL_FROM_FILES files): the output must be the same bytes
    outputs = []
    for processes in ("1", "3"):
        out = tmp_path / f"out{processes}.{fmt}"
        assert cli.main(["solve", str(fleet), "--format", fmt, "-o",
                         str(out), "--processes", processes]) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_a_worker_that_dies_has_its_share_solved_here(tmp_path,
                                                      monkeypatch):
    import os

    write_fleet(tmp_path, 3, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    monkeypatch.setattr(cli, "_solve_worker", lambda *args: os._exit(1))
    out = tmp_path / "out.csv"
    assert cli.main(["solve", str(tmp_path), "--format", "csv", "-o",
                     str(out), "--processes", "2"]) == 0
    assert set(rows_by_scenario(out.read_text())) == {
        "host 0000", "host 0001", "host 0002"}


def test_directory_with_bad_files_reports_them_and_does_the_rest(tmp_path):
    write_fleet(tmp_path, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    (tmp_path / "bad_value.toml").write_text(
        'schema_version = 1\n[meta]\nname = "x"\n[[nics]]\nid = "a"\n'
        'speed_gbps = -10\n')
    (tmp_path / "broken.json").write_text("{not json")
    out = tmp_path / "out.csv"
    process = subprocess.run(
        [sys.executable, "-m", "app", "solve", str(tmp_path), "--format",
         "csv", "-o", str(out)], cwd=ROOT, capture_output=True, text=True,
        timeout=120)
    assert process.returncode == 1, process.stderr
    assert "Traceback" not in process.stderr
    assert (f"{tmp_path / 'bad_value.toml'}: nics[0].speed_gbps: must be "
            "> 0, got -10") in process.stderr
    assert f"{tmp_path / 'broken.json'}: malformed JSON" in process.stderr
    assert process.stderr.rstrip().endswith(
        f"2 of 4 inputs failed: {tmp_path / 'bad_value.toml'}, "
        f"{tmp_path / 'broken.json'}")
    solved = {row["scenario"] for row in csv.DictReader(out.open())}
    assert solved == {"host 0000", "host 0001"}


@pytest.mark.parametrize("processes", ["1", "3"])
def test_a_file_the_models_refuse_is_reported_and_the_rest_done(
        tmp_path, monkeypatch, capsys, processes):
    # a document that passes validation but that a model cannot represent
    # (a gap in the limits) fails its whole batch: each file is then
    # evaluated alone, and only the one that fails is reported (by the
    # process that solved it: a forked worker sends the refusal back)
    import numpy as np

    from solvers.analyses import wire

    write_fleet(tmp_path, 3, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    analyse = wire.analyse

    def overflow_on_a_slow_clock(inputs, upstream, **kwargs):
        if any(doc.host.ghz == 2.1 for doc in inputs.documents):
            np.float64(1e308) * np.float64(10)   # raises FloatingPointError
        return analyse(inputs, upstream, **kwargs)

    monkeypatch.setattr(wire, "analyse", overflow_on_a_slow_clock)
    out = tmp_path / "out.csv"
    code = cli.main(["solve", str(tmp_path), "--format", "csv", "-o",
                     str(out), "--processes", processes])
    text = out.read_text(encoding="utf-8")
    assert code == 1
    err = capsys.readouterr().err
    bad = tmp_path / "host0001.json"     # ghz 2.0 + 1 x 0.1
    assert f"{bad}: the models cannot represent this scenario (numpy: " \
        "overflow" in err
    assert err.rstrip().endswith(f"1 of 3 inputs failed: {bad}")
    assert set(rows_by_scenario(text)) == {"host 0000", "host 0002"}


def sweep(tmp_path, *inputs, fmt="csv"):
    out = tmp_path / f"sweep.{fmt}"
    code = cli.main(["sweep", *map(str, inputs), "--format", fmt,
                     "-o", str(out)])
    return code, out.read_text(encoding="utf-8") if out.exists() else ""


def test_sweep_of_a_directory_sweeps_every_variant_of_every_file(tmp_path):
    from app.scenario_io import load_scenario
    from models.scenario import dump_scenario

    fleet = tmp_path / "fleet"
    fleet.mkdir()
    write_fleet(fleet, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    code, text = sweep(tmp_path, fleet)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(text)))
    seen = {}
    for row in rows:
        seen.setdefault((row["scenario"], row["variant"]), []).append(row)
    for path in sorted(fleet.glob("*.json")):
        scenario = load_scenario(path)
        for name, document in scenario.variant_documents():
            # the variant alone, as a file with the scenario's sweep: what
            # a user would sweep one by one
            alone = tmp_path / "variant.json"
            alone.write_text(dump_scenario(document.model_copy(
                update={"sweeps": scenario.sweeps}), "json"))
            code, single = sweep(tmp_path, alone)
            assert code == 0
            expected = list(csv.DictReader(io.StringIO(single)))
            got = seen.pop((scenario.meta.name, name))
            assert len(got) == len(expected) == 80
            for mine, theirs in zip(got, expected):
                assert {k: mine[k] for k in theirs
                        if k != "scenario_sha256"} == \
                    {k: v for k, v in theirs.items()
                     if k != "scenario_sha256"}
                assert mine["scenario_sha256"] == scenario.sha256()
    assert not seen


def test_sweep_of_a_directory_in_json_lines_heads_each_variant(tmp_path):
    write_fleet(tmp_path, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    code, text = sweep(tmp_path, tmp_path, fmt="jsonl")
    assert code == 0
    heads = [json.loads(line) for line in text.splitlines()
             if line.startswith('{"linkplan_version"')]
    assert [(h["scenario"], h["variant"]) for h in heads][:2] == [
        ("host 0000", "Base"), ("host 0000", "MTU 9000")]
    assert len(heads) == 2 * 5 and all(h["points"] == 80 for h in heads)
    assert len(text.splitlines()) == len(heads) * 81


def test_sweep_of_a_directory_with_bad_files_does_the_rest(tmp_path):
    write_fleet(tmp_path, 1, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    (tmp_path / "no_sweep.toml").write_text(
        'schema_version = 1\n[meta]\nname = "x"\n[[nics]]\nid = "a"\n'
        'speed_gbps = 10\n')
    (tmp_path / "bad_value.toml").write_text(
        'schema_version = 1\n[meta]\nname = "y"\n[[nics]]\nid = "a"\n'
        'speed_gbps = "fast"\n')
    out = tmp_path.parent / "fleet-sweep.csv"
    process = subprocess.run(
        [sys.executable, "-m", "app", "sweep", str(tmp_path), "-o",
         str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert process.returncode == 1, process.stderr
    assert "Traceback" not in process.stderr
    assert f"{tmp_path / 'no_sweep.toml'}: sweeps: the scenario defines " \
        "no sweep" in process.stderr
    assert f"{tmp_path / 'bad_value.toml'}: nics[0].speed_gbps: expected " \
        "a number in Gbit/s or with a unit, got 'fast'" in process.stderr
    assert process.stderr.rstrip().endswith(
        f"2 of 3 inputs failed: {tmp_path / 'bad_value.toml'}, "
        f"{tmp_path / 'no_sweep.toml'}")
    rows = list(csv.DictReader(out.open()))
    assert {r["scenario"] for r in rows} == {"host 0000"}
    assert len(rows) == 5 * 80


def fleet_csv_and_parquet(tmp_path, folder, *options):
    """The CSV rows and the Parquet folder of the same fleet sweep."""
    code, text = sweep(tmp_path, folder)
    assert code == 0
    out = tmp_path / "sweep.parquet"
    assert cli.main(["sweep", str(folder), "--format", "parquet", "-o",
                     str(out), *options]) == 0
    return list(csv.DictReader(io.StringIO(text))), out


def test_parquet_of_a_directory_holds_the_csv_rows(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from solvers import sweep as sweeps

    # 2 files x 5 variants x 80 points, 4 documents a task: parts of
    # 320, 320 and 160 rows, named after their first row
    monkeypatch.setattr(sweeps, "FLEET_TASK_DOCUMENTS", 4)
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    write_fleet(fleet, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    rows, out = fleet_csv_and_parquet(tmp_path, fleet)
    assert sorted(p.name for p in out.iterdir()) == [
        "_linkplan_output", "part-000000000000000.parquet",
        "part-000000000000320.parquet", "part-000000000000640.parquet"]
    assert [pq.read_metadata(p).num_rows
            for p in sorted(out.glob("part-*"))] == [320, 320, 160]
    table = pq.read_table(out)
    header = list(rows[0])
    metrics = [h.rsplit("[", 1)[0] for h in header[7:]]
    # the CSV's columns, version in the metadata, units in the fields
    assert table.column_names == header[1:7] + metrics
    assert table.schema.metadata[b"variants"] == b"10"
    assert table.schema.field("wire.goodput_gbps").metadata[b"unit"] == \
        b"Gbit/s"
    assert table.num_rows == len(rows) == 2 * 5 * 80
    for row, point in zip(rows, table.to_pylist()):
        assert row["linkplan_version"] == \
            table.schema.metadata[b"linkplan_version"].decode()
        for name in ("scenario_sha256", "scenario", "variant"):
            assert point[name] == row[name]
        assert point["point"] == int(row["point"])
        assert point["network.mtu"] == int(row["network.mtu"])
        assert point["nics[0].speed_gbps"] == \
            float(row["nics[0].speed_gbps"])
        for metric, cell in zip(metrics, header[7:]):
            # the same float64: repr() round-trips exactly; an empty
            # cell is a null
            assert point[metric] == (float(row[cell]) if row[cell]
                                     else None), (metric, row["point"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fleet", "sweep.csv", "sweep.parquet"]


def test_parquet_of_files_whose_axes_differ_in_type_is_one_table(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from solvers import sweep as sweeps

    # one file's speed axis has whole numbers, the other's floats: one
    # schema (float) for every part
    for i, speeds in enumerate(([10, 25], [1.0, 2.5])):
        path = write_sweep_file(tmp_path, f"host{i}", [
            {"path": "nics[0].speed_gbps", "values": speeds},
            {"path": "network.mtu", "values": [1500, 9000]}])
        data = json.loads(path.read_text())
        data["variants"] = []
        path.write_text(json.dumps(data))
    out = tmp_path / "out.parquet"
    old = sweeps.FLEET_TASK_DOCUMENTS
    try:
        sweeps.FLEET_TASK_DOCUMENTS = 1   # a part per file
        assert cli.main(["sweep", str(tmp_path / "host0.json"),
                         str(tmp_path / "host1.json"), "--format",
                         "parquet", "-o", str(out)]) == 0
    finally:
        sweeps.FLEET_TASK_DOCUMENTS = old
    assert len(list(out.glob("part-*"))) == 2
    table = pq.read_table(out)
    assert table.schema.field("nics[0].speed_gbps").type == pa.float64()
    assert table.column("nics[0].speed_gbps").to_pylist() == \
        [10.0, 10.0, 25.0, 25.0, 1.0, 1.0, 2.5, 2.5]


def write_sweep_file(folder, name, axes, example="jumbo_10gbe"):
    """An example as ``folder/name.json`` with one sweep."""
    from app.scenario_io import load_scenario

    data = load_scenario(EXAMPLES / f"{example}.toml").model_dump(
        mode="json")
    data["meta"]["name"] = name
    data["sweeps"] = [{"name": "s", "mode": "product", "axes": axes}]
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def test_worker_processes_write_the_bytes_of_one_process(tmp_path,
                                                         monkeypatch):
    from solvers import sweep as sweeps

    monkeypatch.setattr(sweeps, "FLEET_TASK_DOCUMENTS", 3)
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    write_fleet(fleet, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    for kind in ("csv", "jsonl", "parquet"):
        one, two = tmp_path / f"one.{kind}", tmp_path / f"two.{kind}"
        for out, processes in ((one, "1"), (two, "2")):
            assert cli.main(["sweep", str(fleet), "--format", kind, "-o",
                             str(out), "--processes", processes]) == 0
        assert same_output(one, two), kind
    # nothing left of the workers' parts
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def same_output(first, second):
    """Two sweep outputs (files, or folders of parts) are the same bytes,
    part by part."""
    if first.is_file():
        return first.read_bytes() == second.read_bytes()
    parts = sorted(p.name for p in first.iterdir())
    return parts == sorted(p.name for p in second.iterdir()) and all(
        (first / p).read_bytes() == (second / p).read_bytes() for p in parts)


def test_parquet_of_a_directory_with_bad_files_does_the_rest(tmp_path):
    import pyarrow.parquet as pq

    write_fleet(tmp_path, 1, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    (tmp_path / "broken.json").write_text("{not json")
    # a 1e12-point grid: refused at once with its count, the rest swept
    write_sweep_file(tmp_path, "huge", [
        {"path": "network.mtu", "linspace": {"start": 1500, "stop": 9000,
                                             "num": 1_000_000}},
        {"path": "nics[0].speed_gbps", "linspace": {"start": 1, "stop": 100,
                                                    "num": 1_000_000}}])
    out = tmp_path.parent / f"{tmp_path.name}.parquet"
    process = subprocess.run(
        [sys.executable, "-m", "app", "sweep", str(tmp_path), "--format",
         "parquet", "-o", str(out)], cwd=ROOT, capture_output=True,
        text=True, timeout=120)
    assert process.returncode == 1, process.stderr
    assert "Traceback" not in process.stderr
    assert f"{tmp_path / 'broken.json'}: malformed JSON" in process.stderr
    assert f"{tmp_path / 'huge.json'}: sweeps[0] ('s'): " \
        "1,000,000,000,000 points (1,000,000 x 1,000,000)" in process.stderr
    assert process.stderr.rstrip().endswith(
        f"2 of 3 inputs failed: {tmp_path / 'broken.json'}, "
        f"{tmp_path / 'huge.json'}")
    table = pq.read_table(out)
    assert set(table.column("scenario").to_pylist()) == {"host 0000"}
    assert table.num_rows == 5 * 80


def test_ctrl_c_in_a_fleet_sweep_keeps_the_rows_so_far(tmp_path, monkeypatch,
                                                        capsys):
    # the fleet's Ctrl-C is the one-scenario sweep's (app.cli's
    # _write_sweep): whole rows so far in OUT.partial, OUT untouched
    from models.scenario import BASE_NAME
    from solvers import sweep as sweeps

    fleet = tmp_path / "fleet"
    fleet.mkdir()
    write_fleet(fleet, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    run_fleet = sweeps.run_fleet

    def stopped_after_one_task(*args, **kwargs):
        results = run_fleet(*args, **kwargs)
        yield next(results)
        results.close()
        raise KeyboardInterrupt

    monkeypatch.setattr(sweeps, "run_fleet", stopped_after_one_task)
    monkeypatch.setattr(sweeps, "FLEET_TASK_DOCUMENTS", 1)   # a task each
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    code = cli.main(["sweep", str(fleet), "-o", str(out), "--processes",
                     "1"])
    assert code == 130
    assert out.read_text() == "old\n"
    rows = list(csv.DictReader((tmp_path / "out.csv.partial").open()))
    # the first task: the first file's base over its 80-point sweep
    assert len(rows) == 80
    assert {(r["scenario"], r["variant"]) for r in rows} == {
        ("host 0000", BASE_NAME)}
    err = capsys.readouterr().err
    assert "interrupted after 80 points; the rows so far are in " \
        f"{out}.partial" in err


def test_files_of_equal_text_are_parsed_and_solved_once(tmp_path,
                                                        monkeypatch):
    # a fleet of copies of one host (issue 36, item 3): one parse, one
    # evaluation, and each copy still gets its own rows
    from app import loading_gate
    evaluate = importlib.import_module("solvers.evaluate")

    text = (EXAMPLES / "seed001_live_migration.toml").read_text()
    for i in range(3):
        (tmp_path / f"host{i}.toml").write_text(text)
    (tmp_path / "other.toml").write_text(
        (EXAMPLES / "jumbo_10gbe.toml").read_text())
    parses, solved = [], []
    parse = loading_gate.scenario_from_text
    monkeypatch.setattr(loading_gate, "scenario_from_text",
                        lambda *a, **k: parses.append(1) or parse(*a, **k))
    many = evaluate.evaluate_many
    monkeypatch.setattr(evaluate, "evaluate_many", lambda scenarios, **k:
                        many(solved.extend(scenarios) or scenarios, **k))
    out = tmp_path / "out.csv"
    assert cli.main(["solve", str(tmp_path), "--format", "csv", "-o",
                     str(out), "--processes", "1"]) == 0
    assert len(parses) == 2 and len(solved) == 2
    alone = tmp_path / "alone.csv"
    assert cli.main(["solve", str(tmp_path / "host0.toml"), "--format",
                     "csv", "-o", str(alone)]) == 0
    rows = out.read_text().splitlines()
    one = alone.read_text().splitlines()[1:]
    assert rows[1:1 + 3 * len(one)] == one * 3


def test_fleet_solve_loads_and_evaluates_with_the_collector_paused(
        tmp_path, monkeypatch):
    # issue 36, item 3: the cyclic collector's full collections over a
    # fleet's documents and results cost 0.6 s of CPU on 1,000 files;
    # loading and evaluating make next to no cycles, so it is paused (and
    # running again afterwards)
    import gc

    from app import cli_common
    evaluate = importlib.import_module("solvers.evaluate")

    write_fleet(tmp_path, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    collecting = []
    load = cli_common._load_or_report
    monkeypatch.setattr(cli, "_load_or_report", lambda *a: collecting.append(
        ("load", gc.isenabled())) or load(*a))
    many = evaluate.evaluate_many
    monkeypatch.setattr(evaluate, "evaluate_many", lambda scenarios, **k:
                        collecting.append(("evaluate", gc.isenabled()))
                        or many(scenarios, **k))
    assert gc.isenabled()
    assert cli.main(["solve", str(tmp_path), "--format", "csv", "-o",
                     str(tmp_path / "out.csv"), "--processes", "1"]) == 0
    assert collecting == [("load", False), ("load", False),
                          ("evaluate", False)]
    assert gc.isenabled()


def test_forked_workers_inherit_the_goal_seek_root_finder(tmp_path):
    # issue 36, item 3: scipy.optimize (the goal seeks' root finder, ~0.3 s
    # of CPU to import) is imported before the workers fork, not once in
    # each; a fresh interpreter, as the CLI runs
    write_fleet(tmp_path, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    script = f"""
import sys
import multiprocessing.context as context
start = context.ForkProcess.start
def recording(self):
    print("at fork:", "scipy.optimize" in sys.modules, flush=True)
    start(self)
context.ForkProcess.start = recording
from app import cli
sys.exit(cli.main(["solve", {str(tmp_path)!r}, "--format", "csv", "-o",
                   {str(tmp_path / "out.csv")!r}, "--processes", "2"]))
"""
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["at fork: True"]


def test_fleet_sweep_runs_with_the_collector_paused(tmp_path, monkeypatch):
    # issue 36, item 3: the same for a local fleet sweep (0.3 s of CPU in
    # full collections on 1,000 files, all before the workers start)
    import gc

    from app import sweep_cli
    from solvers import sweep

    write_fleet(tmp_path, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    collecting = []
    load = sweep_cli._load_or_report
    monkeypatch.setattr(sweep_cli, "_load_or_report", lambda *a: (
        collecting.append(("load", gc.isenabled())) or load(*a)))
    run = sweep.run_fleet
    monkeypatch.setattr(sweep, "run_fleet", lambda *a, **k: (
        collecting.append(("run", gc.isenabled())) or run(*a, **k)))
    assert cli.main(["sweep", str(tmp_path), "--format", "csv", "-o",
                     str(tmp_path / "out.csv"), "--processes", "1"]) == 0
    assert collecting == [("load", False), ("load", False), ("run", False)]
    assert gc.isenabled()
