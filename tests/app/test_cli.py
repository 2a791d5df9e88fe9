"""The CLI as a user runs it: a real process, its output and exit code."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.paths import TEMPLATES
from tests.conftest import ROOT

EXAMPLE = "resources/examples/jumbo_10gbe.toml"


def run(*args, timeout=60, **kwargs):
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def assert_clean_failure(process, *fragments):
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr
    for fragment in fragments:
        assert fragment in process.stderr


def test_version():
    process = run("--version")
    assert process.returncode == 0
    assert process.stdout.startswith("linkplan 0.")


@pytest.mark.parametrize("fmt, check", [
    ("json", lambda out: json.loads(out)["variants"][0]["name"] == "Base"),
    ("csv", lambda out: out.startswith("scenario,scenario_sha256,")),
    ("table", lambda out: "wire.goodput_gbps" in out and "9.900" in out),
])
def test_solve_formats(fmt, check):
    process = run("solve", EXAMPLE, "--format", fmt)
    assert process.returncode == 0, process.stderr
    assert check(process.stdout)


def test_solve_to_file(tmp_path):
    out = tmp_path / "results.json"
    assert run("solve", EXAMPLE, "--format", "json", "-o",
               str(out)).returncode == 0
    assert json.loads(out.read_text())["scenario"]


def test_bad_value_names_file_field_and_value(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('schema_version = 1\n[meta]\nname = "x"\n[[nics]]\n'
                   'id = "a"\nspeed_gbps = 10\n[[nics]]\nid = "b"\n'
                   'speed_gbps = -10\n')
    assert_clean_failure(run("solve", str(bad)),
                         f"{bad}: nics[1].speed_gbps: must be > 0, got -10")


def test_bad_input_overwrites_nothing(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    out = tmp_path / "results.json"
    out.write_text("previous results")
    assert_clean_failure(run("solve", str(bad), "-o", str(out)),
                         "malformed JSON")
    assert out.read_text() == "previous results"


@pytest.mark.parametrize("name, content, fragment", [
    ("missing.toml", None, "cannot read file"),
    ("scenario.yaml", "a: 1", "unknown file type '.yaml'"),
    ("latin1.toml", b"name = '\xe9'", "not UTF-8 text"),
    ("nan.json", '{"schema_version": 1, "meta": {"name": "x"}, "nics": '
                 '[{"id": "a", "speed_gbps": NaN}]}',
     "nics[0].speed_gbps: must be a finite number, got nan"),
])
def test_unreadable_files(tmp_path, name, content, fragment):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert_clean_failure(run("solve", str(path)), fragment)


def test_oversized_file_is_refused_without_reading_it(tmp_path):
    huge = tmp_path / "huge.toml"
    with open(huge, "wb") as stream:
        stream.truncate(100 * 1024 * 1024)  # sparse 100 MB file
    assert_clean_failure(run("solve", str(huge)),
                         "file is 100.0 MiB; scenario files are limited to "
                         "10 MiB")


def test_empty_directory_is_named(tmp_path):
    folder = tmp_path / "dir.toml"
    folder.mkdir()
    assert_clean_failure(run("solve", str(folder)),
                         "no .toml or .json file below this directory")


def test_usage_errors_exit_2():
    assert_clean_failure(run("frobnicate"), "invalid choice")
    assert_clean_failure(run("solve", EXAMPLE, "--format", "xml"),
                         "invalid choice")
    assert run("solve", "--help").stdout.count("example:") == 1


def test_validate_reports_each_file_and_goes_on(tmp_path):
    # issue 7: a bad scenario is reported with its file and field, the
    # batch goes on, failures are listed at the end, exit code 1
    bad = tmp_path / "bad.toml"
    bad.write_text("schema_version = 1\n")
    process = run("validate", str(bad), EXAMPLE)
    assert process.returncode == 1
    assert f"{bad}: meta: required field is missing" in process.stderr
    assert f"{EXAMPLE}: valid" in process.stdout
    assert process.stderr.rstrip().endswith(f"1 of 2 inputs failed: {bad}")
    assert "Traceback" not in process.stderr


def test_directories_and_globs(tmp_path):
    (tmp_path / "a.toml").write_text((ROOT / EXAMPLE).read_text())
    (tmp_path / "b.json").write_text(json.dumps(
        {"schema_version": 1, "meta": {"name": "j"},
         "nics": [{"id": "n", "speed_gbps": 1}]}))
    (tmp_path / "notes.txt").write_text("not a scenario")
    process = run("validate", str(tmp_path))
    assert process.returncode == 0
    assert process.stdout.splitlines() == [f"{tmp_path / 'a.toml'}: valid",
                                           f"{tmp_path / 'b.json'}: valid"]
    process = run("validate", str(tmp_path / "*.toml"))
    assert process.stdout.splitlines() == [f"{tmp_path / 'a.toml'}: valid"]
    missing = run("validate", str(tmp_path / "*.yaml"), EXAMPLE)
    assert missing.returncode == 1
    assert "no file matches this pattern" in missing.stderr


def test_solve_batch_gives_one_csv_and_json_lines():
    examples = "resources/examples/seed00*.toml"
    csv_text = run("solve", examples, "--format", "csv").stdout
    lines = csv_text.splitlines()
    assert lines[0].startswith("scenario,scenario_sha256,")
    assert sum(line.startswith("scenario,") for line in lines) == 1
    files = len(list(ROOT.glob(examples)))
    names = {next(csv.reader([line]))[0] for line in lines[1:]}
    assert len(names) == files
    jsonl = run("solve", examples, "--format", "json").stdout.splitlines()
    assert len(jsonl) == files
    assert all(json.loads(line)["scenario_sha256"] for line in jsonl)


def test_schema_is_json():
    process = run("schema")
    assert process.returncode == 0
    assert json.loads(process.stdout)["title"] == "Scenario"


@pytest.mark.parametrize("field, value, fragment", [
    ("transport", '"nfs"', "workloads.transfers[0].transport: must be "
                           "'tcp', 'compression', 'smb', 'smb_direct', "
                           "'udp' or 'rdma', got 'nfs'"),
    ("via", '"no-such-team"', "via names team 'no-such-team'"),
    ("sessions", "0", "workloads.transfers[0].sessions: must be >= 1, "
                      "got 0"),
])
def test_bad_transfer_fields_exit_2(tmp_path, field, value, fragment):
    # issue 3, bad input: unknown transport or a zero count names the
    # field and the value, exit code 2, no traceback.
    path = tmp_path / "bad.toml"
    path.write_text('schema_version = 1\n[meta]\nname = "x"\n[[nics]]\n'
                    'id = "a"\nspeed_gbps = 10\n[[workloads.transfers]]\n'
                    f'name = "t"\n{field} = {value}\n')
    assert_clean_failure(run("solve", str(path)), fragment)


@pytest.mark.parametrize("section, fragment", [
    ('[host]\ncores_per_socket = 0\n', "host.cores_per_socket: must be >= 1"),
    ('[host]\nghz = -2.6\n', "host.ghz: must be > 0, got -2.6"),
    ('[host]\nstack = "mainframe"\n', "host.stack: must be"),
    ('[network]\nmtu = 9300\n',
     "network.mtu: must be <= 9216 (network.mtu_max), got 9300"),
])
def test_bad_host_fields_exit_2(tmp_path, section, fragment):
    path = tmp_path / "bad.toml"
    path.write_text('schema_version = 1\n[meta]\nname = "x"\n[[nics]]\n'
                    f'id = "a"\nspeed_gbps = 10\n{section}')
    assert_clean_failure(run("solve", str(path)), fragment)


def test_solve_schedule_csv_has_one_row_per_vm_and_variant(tmp_path):
    out = tmp_path / "schedule.csv"
    process = run("solve", "resources/examples/evacuation_maintenance.toml",
                  "--schedule", "-o", str(out))
    assert process.returncode == 0, process.stderr
    rows = list(csv.DictReader(out.open()))
    # 34 VMs in each of the example's three variants
    assert len(rows) == 3 * 34
    base = [r for r in rows if r["variant"] == "Base"]
    assert {r["evacuation"] for r in base} == {"esx01"}
    assert all(float(r["end_s"]) > float(r["start_s"]) for r in base)
    assert {r["destination"] for r in base} <= {"esx02", "esx03", "esx04"}
    # shared storage: no disk crosses the link
    assert {r["disk_gib"] for r in base} == {"0.0"}


def test_evacuation_bad_input_is_a_clean_failure(tmp_path):
    bad = tmp_path / "bad.toml"
    text = (ROOT / "resources/examples/evacuation_maintenance.toml"
            ).read_text().replace('name = "app02"', 'name = "app01"', 1)
    bad.write_text(text)
    assert_clean_failure(run("solve", str(bad)), "bad.toml",
                         "workloads.evacuations[0]", "'app01' is used twice")


def test_long_commands_say_they_are_still_working(monkeypatch, capsys):
    # a command quiet for longer than PROGRESS_AFTER_S says so on stderr,
    # then every PROGRESS_EVERY_S, and stops when it is done; thresholds
    # shortened so the test does not depend on how fast this machine is
    import time

    from app import cli_common
    monkeypatch.setattr(cli_common, "PROGRESS_AFTER_S", 0.05)
    monkeypatch.setattr(cli_common, "PROGRESS_EVERY_S", 0.05)
    said = ""
    with cli_common._Working("report many.toml"):
        deadline = time.monotonic() + 20
        while said.count("still working") < 2 \
                and time.monotonic() < deadline:
            time.sleep(0.02)
            said += capsys.readouterr().err
    assert "linkplan: still working on report many.toml (0 s)" in said
    assert said.count("still working") >= 2
    time.sleep(0.2)
    assert "still working" not in capsys.readouterr().err


def test_report_of_more_variants_than_it_shows_is_refused_at_once(tmp_path):
    from app.report.pdf import REPORT_MAX_VARIANTS
    path = tmp_path / "many.toml"
    text = (ROOT / EXAMPLE).read_text().split("[[variants]]")[0] \
        .split("[[sweeps]]")[0]
    path.write_text(text + "".join(
        f'[[variants]]\nname = "v{i}"\nset = {{ "network.mtu" = '
        f'{1500 + i} }}\n' for i in range(REPORT_MAX_VARIANTS)))
    process = run("report", str(path), "-o", str(tmp_path / "r.pdf"))
    assert_clean_failure(
        process, f"linkplan report: variants: a report compares at most "
        f"{REPORT_MAX_VARIANTS} variants (the base included), this scenario "
        f"has {REPORT_MAX_VARIANTS + 1}")
    assert not (tmp_path / "r.pdf").exists()


def test_report_leaves_the_interpreter_switch_interval_alone(tmp_path):
    # the GUI's 1 ms thread switching (app.gui.main_window) is for a window
    # with workers; the report imports GUI pieces but has no window
    script = ("import sys; from app.cli import main; "
              "before = sys.getswitchinterval(); "
              f"code = main(['report', {EXAMPLE!r}, '-o', "
              f"{str(tmp_path / 'r.pdf')!r}]); "
              "print(code, before, sys.getswitchinterval())")
    process = subprocess.run([sys.executable, "-c", script], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    code, before, after = process.stdout.splitlines()[-1].split()
    assert (code, after) == ("0", before), process.stderr
    assert (tmp_path / "r.pdf").exists()


def test_new_writes_each_template_that_then_solves(tmp_path):
    # the same templates as File > New from Template: each one solves
    for name, _ in TEMPLATES:
        target = tmp_path / f"{Path(name).stem}.json"
        process = run("new", Path(name).stem, "-o", str(target))
        assert process.returncode == 0, process.stderr
        assert run("solve", str(target)).returncode == 0, name


def test_new_keeps_the_templates_comments():
    process = run("new", "evacuation")
    assert process.returncode == 0, process.stderr
    assert process.stdout.startswith("# File > New > Host evacuation")


def test_new_never_overwrites(tmp_path):
    mine = tmp_path / "plan.toml"
    mine.write_text("my unsaved plan")
    assert_clean_failure(run("new", "jumbo", "-o", str(mine)),
                         f"{mine} already exists; nothing overwritten")
    assert mine.read_text() == "my unsaved plan"


def test_new_refuses_unknown_questions_and_file_types(tmp_path):
    assert_clean_failure(run("new", "fibre_channel"),
                         "invalid choice: 'fibre_channel'")
    assert_clean_failure(run("new", "jumbo", "-o", str(tmp_path / "a.txt")),
                         "unknown file type '.txt'")
    assert not (tmp_path / "a.txt").exists()


def test_accuracy_may_replace_an_earlier_output(tmp_path):
    # -o onto an existing file of a command without input files (no input
    # to protect) is a plain atomic replace, not an internal error
    earlier = tmp_path / "accuracy.csv"
    earlier.write_text("earlier run\n")
    process = run("accuracy", "--format", "csv", "-o", str(earlier),
                  timeout=600)
    assert process.returncode in (0, 1), process.stderr
    assert "internal error" not in process.stderr
    assert earlier.read_text().startswith("case,area,verdict")


def test_offload_the_cpu_lacks_exits_2(tmp_path):
    # Sapphire Rapids' IAA asked for on an AMD host: no silent fallback to
    # the host's cores
    text = (ROOT / "resources/examples/kvm_multifd_postcopy.toml").read_text()
    path = tmp_path / "genoa.toml"
    path.write_text(text.replace("ghz = 3.0", 'ghz = 3.0\ncpu = "amd_genoa"',
                                 1))
    for command in ("validate", "solve"):
        assert_clean_failure(
            run(command, str(path)),
            "workloads.migrations[0].compressor 'qpl'",
            "host.cpu 'amd_genoa' lacks",
            "intel_sapphire_rapids, intel_emerald_rapids")
