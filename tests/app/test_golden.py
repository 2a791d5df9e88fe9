"""Golden files: the CLI's output for fixed inputs.

Any change to a number, a label or the layout shows up here. Text and
structure must match exactly; numbers to 1e-12 relative, because numpy's
SIMD paths for exp and pow may differ in the last bit between CPUs (the
same machine gives the same bytes: test_same_input_same_bytes). When a
change is intended, regenerate with ``LINKPLAN_REGENERATE_GOLDEN=1 make
test-app`` and review the diff of tests/data/golden/ before committing it.
"""

import csv
import io
import json
import os

import pytest

from tests.app.test_cli import run
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "data" / "golden"
CASES = [("jumbo_10gbe", "json"), ("jumbo_10gbe", "csv"),
         ("jumbo_10gbe", "table"), ("seed003_vmotion", "csv"),
         ("seed000_lbt", "json")]


@pytest.mark.parametrize("example, fmt", CASES,
                         ids=[f"{e}-{f}" for e, f in CASES])
def test_solve_output_matches_golden_file(example, fmt):
    process = run("solve", f"resources/examples/{example}.toml", "--format",
                  fmt)
    expected = golden_text(f"solve-{example}", fmt, process)
    if fmt == "json":
        assert_same(json.loads(process.stdout), json.loads(expected))
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(process.stdout)))
        golden_rows = list(csv.reader(io.StringIO(expected)))
        assert len(rows) == len(golden_rows)
        value = rows[0].index("value")
        for row, golden_row in zip(rows, golden_rows):
            assert row[:value] + row[value + 1:] == \
                golden_row[:value] + golden_row[value + 1:]
            if row is not rows[0]:
                assert float(row[value]) == pytest.approx(
                    float(golden_row[value]), rel=1e-12)
    else:
        assert process.stdout == expected


def golden_text(stem, fmt, process):
    """The golden file's text for a successful run; rewritten from the run
    when LINKPLAN_REGENERATE_GOLDEN is set."""
    assert process.returncode == 0, process.stderr
    golden = GOLDEN / f"{stem}.{'txt' if fmt == 'table' else fmt}"
    if os.environ.get("LINKPLAN_REGENERATE_GOLDEN"):
        golden.write_text(process.stdout)
    return golden.read_text()


def assert_same(actual, expected, where="$"):
    """Equal structure and text; floats equal to 1e-12 relative."""
    assert type(actual) is type(expected), where
    if isinstance(expected, dict):
        assert list(actual) == list(expected), where
        for key in expected:
            assert_same(actual[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(actual) == len(expected), where
        for index, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{index}]")
    elif isinstance(expected, float):
        assert actual == pytest.approx(expected, rel=1e-12), where
    else:
        assert actual == expected, where


def test_same_input_same_bytes():
    # issue 7: reproducible output, run twice in fresh processes
    first = run("solve", "resources/examples/seed001_live_migration.toml",
                "--format", "json").stdout
    second = run("solve", "resources/examples/seed001_live_migration.toml",
                 "--format", "json").stdout
    assert first == second


# sweep and advise: JSON Lines compared record by record, tables and CSV
# cell by cell with numbers to 1e-12 (same rationale as above)
OTHER_CASES = [("sweep", "jumbo_10gbe", "csv"),
               ("sweep", "jumbo_10gbe", "jsonl"),
               ("advise", "seed002_hcibench", "table"),
               ("advise", "seed001_live_migration", "json")]


@pytest.mark.parametrize("command, example, fmt", OTHER_CASES,
                         ids=[f"{c}-{e}-{f}" for c, e, f in OTHER_CASES])
def test_command_output_matches_golden_file(command, example, fmt):
    process = run(command, f"resources/examples/{example}.toml", "--format",
                  fmt)
    expected = golden_text(f"{command}-{example}", fmt, process)
    if fmt in ("json", "jsonl"):
        lines, golden_lines = process.stdout.splitlines(), \
            expected.splitlines()
        assert len(lines) == len(golden_lines)
        for line, golden_line in zip(lines, golden_lines):
            assert_same(json.loads(line), json.loads(golden_line))
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(process.stdout)))
        golden_rows = list(csv.reader(io.StringIO(expected)))
        assert rows[0] == golden_rows[0] and len(rows) == len(golden_rows)
        for row, golden_row in zip(rows[1:], golden_rows[1:]):
            assert row[:3] == golden_row[:3]
            assert [float(c) for c in row[3:]] == pytest.approx(
                [float(c) for c in golden_row[3:]], rel=1e-12)
    else:
        assert process.stdout == expected


@pytest.mark.parametrize("args, name", [
    (("schema",), "schema.json"),
    (("validate", "resources/examples"), "validate-examples.txt"),
])
def test_schema_and_validate_match_golden_files(args, name):
    process = run(*args)
    stem, suffix = name.rsplit(".", 1)
    assert process.stdout == golden_text(stem, suffix, process)
