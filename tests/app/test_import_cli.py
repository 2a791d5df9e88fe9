"""``linkplan import``: exit codes, output files, what it prints."""

import pytest

from app.cli import main
from app.scenario_io import load_scenario
from tests.app.import_samples import SAMPLES


def test_complete_import_writes_the_scenario_and_the_check(tmp_path,
                                                             capsys):
    out = tmp_path / "vm.toml"
    code = main(["import", "qemu",
                 str(SAMPLES / "qmp_query_migrate_rounds.jsonl"),
                 "-o", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert "took: dirty model fitted to 4 rounds" in printed
    assert "Predicted vs measured: migration 'qemu-migration'" in printed
    assert f"wrote {out}" in printed
    assert load_scenario(out).workloads.migrations[0].dirty.kind == \
        "hot_cold"


def test_one_file_per_host(tmp_path, capsys):
    out = tmp_path / "estate.toml"
    assert main(["import", "rvtools", str(SAMPLES / "rvtools_4_1.xlsx"),
                 "-o", str(out)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    # and one for the hosts' vCenter cluster
    assert written == ["estate-Prod-cluster.toml",
                       "estate-esx01.example.toml",
                       "estate-esx02.example.toml"]
    assert "skipped: " in capsys.readouterr().out
    # several scenarios need -o
    assert main(["import", "rvtools",
                 str(SAMPLES / "rvtools_4_1.xlsx")]) == 2


def test_partial_import_exits_1_and_lists_the_problems(tmp_path, capsys):
    out = tmp_path / "esx.json"
    code = main(["import", "esxtop", str(SAMPLES / "esxtop_batch.csv"),
                 "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 1 and out.exists()
    assert "linkplan import: " in captured.err
    assert "65 s between samples" in captured.err


def test_nothing_imported_exits_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "keep.toml"
    out.write_text("precious")
    code = main(["import", "esxtop", str(SAMPLES / "rvtools_4_1.xlsx"),
                 "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert out.read_text() == "precious"
    assert f"{SAMPLES / 'rvtools_4_1.xlsx'}: expected an esxtop batch " \
        "file" in err
    assert "nothing could be imported" in err
    assert "Traceback" not in err


def test_without_output_the_scenario_goes_to_stdout(capsys):
    assert main(["import", "libvirt", str(
        SAMPLES / "virsh_domjobinfo_completed_lm3.txt")]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("schema_version = 1")
    assert "Predicted vs measured" in captured.err


def test_help_has_an_example(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["import", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert "linkplan import rvtools RVTools_export.xlsx -o estate.toml" in \
        text


def test_unknown_format_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["import", "nagios", "x.csv"])
    assert exit_.value.code == 2
    assert "invalid choice: 'nagios'" in capsys.readouterr().err


@pytest.mark.parametrize("fmt, sample", [
    ("rvtools", "rvtools_4_4_renamed_headers.xlsx"),
    ("esxtop", "esxtop_batch.csv"),
    ("perfmon", "typeperf_german.csv"),
    ("vcenter", "vcenter_get_stat.csv"),
    ("sar", "sadf_net_dev.json"),
    ("qemu", "qmp_query_migrate_rounds.jsonl"),
    ("libvirt", "virsh_domjobinfo_polled.txt")])
def test_every_format_round_trips_to_solve(tmp_path, capsys, fmt, sample):
    out = tmp_path / "imported.toml"
    assert main(["import", fmt, str(SAMPLES / sample), "-o", str(out)]) \
        in (0, 1)   # 1: the sample's deliberate mess is reported
    written = sorted(tmp_path.glob("imported*.toml"))
    assert written
    capsys.readouterr()
    assert main(["solve", *map(str, written), "--format", "json"]) == 0
    assert '"metrics"' in capsys.readouterr().out


def _esxtop_without_link_speed(path):
    from tests.app.test_import_esxtop import _without_link_speed
    return _without_link_speed(path)


def test_esxtop_link_speed_option(tmp_path, capsys):
    source = _esxtop_without_link_speed(tmp_path / "nospeed.csv")
    out = tmp_path / "esx.toml"
    code = main(["import", "esxtop", str(source), "--link-speed", "25",
                 "-o", str(out)])
    printed = capsys.readouterr().out
    assert code == 1   # the sample's pause and missing sample
    assert "25 Gbit/s assumed, as given at import (--link-speed" in printed
    assert {n.speed_gbps for n in load_scenario(out).nics} == {25.0}


@pytest.mark.parametrize("value", ["fast", "0", "-10", "nan", "2000"])
def test_esxtop_bad_link_speed_exits_2(tmp_path, capsys, value):
    source = _esxtop_without_link_speed(tmp_path / "nospeed.csv")
    out = tmp_path / "keep.toml"
    out.write_text("precious")
    with pytest.raises(SystemExit) as stop:
        main(["import", "esxtop", str(source), f"--link-speed={value}",
              "-o", str(out)])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert f"argument --link-speed: must be a link speed in Gbit/s, > 0 " \
        f"and <= 1600 (10 for 10 GbE), got '{value}'" in err
    assert out.read_text() == "precious"


def test_link_speed_is_for_esxtop_only(tmp_path, capsys):
    code = main(["import", "qemu",
                 str(SAMPLES / "qmp_query_migrate_rounds.jsonl"),
                 "--link-speed", "25"])
    assert code == 2
    assert "--link-speed 25 is for esxtop files, not qemu" in \
        capsys.readouterr().err
