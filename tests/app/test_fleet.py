"""Fleets (issue 15, item 3): ``solve`` over a directory evaluates the
files' documents together (solvers.evaluate.evaluate_many), and must give
every file exactly what solving it alone gives; bad files are reported
and the rest done."""

import csv
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


def test_a_file_the_models_refuse_is_reported_and_the_rest_done(
        tmp_path, monkeypatch, capsys):
    # a document that passes validation but that a model cannot represent
    # (a gap in the limits) fails its whole batch: each file is then
    # evaluated alone, and only the one that fails is reported
    import numpy as np

    from solvers.analyses import wire

    write_fleet(tmp_path, 3, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    analyse = wire.analyse

    def overflow_on_a_slow_clock(inputs, upstream, **kwargs):
        if any(doc.host.ghz == 2.1 for doc in inputs.documents):
            np.float64(1e308) * np.float64(10)   # raises FloatingPointError
        return analyse(inputs, upstream, **kwargs)

    monkeypatch.setattr(wire, "analyse", overflow_on_a_slow_clock)
    code, text = solve(tmp_path, tmp_path, fmt="csv")
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
    assert f"{tmp_path / 'bad_value.toml'}: nics[0].speed_gbps: must be " \
        "a number, got 'fast'" in process.stderr
    assert process.stderr.rstrip().endswith(
        f"2 of 3 inputs failed: {tmp_path / 'bad_value.toml'}, "
        f"{tmp_path / 'no_sweep.toml'}")
    rows = list(csv.DictReader(out.open()))
    assert {r["scenario"] for r in rows} == {"host 0000"}
    assert len(rows) == 5 * 80


def test_sweep_of_several_files_refuses_parquet_at_once(tmp_path):
    write_fleet(tmp_path, 2, examples=[EXAMPLES / "jumbo_10gbe.toml"])
    process = subprocess.run(
        [sys.executable, "-m", "app", "sweep", str(tmp_path), "--format",
         "parquet", "-o", str(tmp_path / "out")], cwd=ROOT,
        capture_output=True, text=True, timeout=120)
    assert process.returncode == 2
    assert "give one file for --format parquet" in process.stderr
    assert not (tmp_path / "out").exists()
