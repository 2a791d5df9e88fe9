"""The published validation cases of resources/validation/, one test per
case: each data file names its source and justifies each tolerance, so the
assertions here come from the data (never widened to pass)."""

import json

import pytest

from app.cli import main
from app.validation_io import ValidationDataError, load_cases
from solvers.accuracy import Check, assess, judge, solve_case

CASES = load_cases()
SOLVED = [pytest.param(case, id=case.id, marks=pytest.mark.xfail(
              strict=True, reason=case.reason)
          if case.status == "known_miss" else ())
          for case in CASES if case.status != "not_modelled"]


@pytest.mark.parametrize("case", SOLVED)
def test_published_case(case):
    result = solve_case(case)
    assert not result.error, result.error
    misses = [f"{c.check.variant}: {c.check.metric or 'bottleneck'} = "
              f"{c.model!r}, measured {c.check.measured!r}, tolerance "
              f"{c.check}" for c in result.checks if not c.passed]
    assert not misses, misses


def test_every_case_names_source_model_and_area():
    for case in CASES:
        assert case.url and case.source and case.model and case.area
        assert case.status == "held" or case.reason


def test_not_modelled_cases_are_counted_apart_and_never_solved():
    report = assess(CASES)
    listed = [r.case.id for r in report.results
              if r.verdict == "not modelled"]
    assert report.total.not_modelled == len(listed) == sum(
        case.status == "not_modelled" for case in CASES)
    assert all(not r.checks for r in report.results
               if r.verdict == "not modelled")


@pytest.mark.parametrize("check, model, passed, error", [
    (Check(metric="m", measured=10.0, rel=0.1, justification="j"), 10.9,
     True, 9.0),
    (Check(metric="m", measured=10.0, rel=0.1, justification="j"), 11.1,
     False, 11.0),
    (Check(metric="m", measured=9.3, rel_range=(0.0, 0.025),
           justification="j"), 9.2, False, None),
    (Check(metric="m", measured=8.0, abs=5.0, justification="j"), 12.5,
     True, 56.25),
    (Check(metric="m", measured=0.1, band=(0.05, 0.2), justification="j"),
     0.05, True, None),
    (Check(bottleneck="host.link", justification="j"), "host.link", True,
     None),
    (Check(bottleneck_not="host.cpu_core", justification="j"),
     "host.cpu_core", False, None),
])
def test_judge_rules(check, model, passed, error):
    result = judge(check, model)
    assert result.passed is passed
    if error is None:
        assert result.error_pct is None or check.rel_range
    else:
        assert result.error_pct == pytest.approx(error)


def test_summary_percentiles_per_area():
    report = assess(CASES)
    for summary in report.areas:
        errors = sorted(abs(c.error_pct) for r in report.results
                        if r.case.area == summary.area for c in r.checks
                        if c.error_pct is not None)
        if errors:
            assert summary.median_error_pct <= summary.p90_error_pct
            assert errors[0] <= summary.median_error_pct <= errors[-1]


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_cli_accuracy_formats(fmt, capsys):
    assert main(["accuracy", "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        data = json.loads(out)
        assert data["summary"][-1]["area"] == "all"
        assert {row["case"] for row in data["checks"]} == \
            {case.id for case in CASES}
    elif fmt == "csv":
        assert out.splitlines()[0].startswith("case,area,verdict")
    else:
        assert "median |error|" in out and "S-HV-a" in out


def write_case(directory, text):
    (directory / "cases.toml").write_text(text, encoding="utf-8")
    (directory / "scenarios").mkdir(exist_ok=True)
    (directory / "scenarios" / "path.toml").write_text(
        'schema_version = 1\n[meta]\nname = "p"\n[[nics]]\nid = "a"\n'
        'speed_gbps = 10.0\n', encoding="utf-8")
    return directory


GOOD = """
[source]
title = "t"
url = "https://example.org"
[[cases]]
id = "X"
title = "x"
area = "wire"
model = "models.wire"
scenario = "scenarios/path.toml"
[[cases.checks]]
metric = "wire.goodput_gbps"
measured = 9.3
rel = 0.1
justification = "j"
"""


@pytest.mark.parametrize("old, new, fragments", [
    ('area = "wire"', 'area = "radio"', ["cases[0].area", "'radio'"]),
    ("rel = 0.1", "rel = -0.1", ["cases[0].checks[0].rel", "-0.1"]),
    ("rel = 0.1", "rel = 0.1\nabs = 1", ["exactly one of"]),
    ('justification = "j"', "", ["justification"]),
    ('scenario = "scenarios/path.toml"',
     'scenario = "../../../etc/passwd.toml"', ["points outside"]),
    ('scenario = "scenarios/path.toml"',
     'scenario = "scenarios/nothing.toml"', ["cases[0].scenario",
                                             "cannot read"]),
    ('url = "https://example.org"', "", ["needs a source"]),
    ('id = "X"', 'id = "X"\nstatus = "not_modelled"', ["reason"]),
    ("measured = 9.3", 'measured = "9.3"', ["measured", "'9.3'"]),
])
def test_bad_validation_data_names_field_and_value(tmp_path, old, new,
                                                    fragments):
    write_case(tmp_path, GOOD.replace(old, new))
    with pytest.raises(ValidationDataError) as err:
        load_cases(tmp_path)
    for fragment in fragments + ["cases.toml"]:
        assert fragment in str(err.value)


def test_cli_bad_validation_data_exits_2(tmp_path, capsys):
    write_case(tmp_path, GOOD.replace("rel = 0.1", "rel = 'x'"))
    assert main(["accuracy", "--cases", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "invalid validation data" in err and "Traceback" not in err


def test_cli_a_miss_exits_1(tmp_path, capsys):
    write_case(tmp_path, GOOD.replace("rel = 0.1", "rel = 0.0001"))
    assert main(["accuracy", "--cases", str(tmp_path)]) == 1
    assert "1 case(s) miss: X" in capsys.readouterr().err
