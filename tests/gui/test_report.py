"""The PDF report: pages, text, the vector chart and the attachments."""

import json
import os
import subprocess
import sys
import unicodedata

import pytest
from pypdf import PdfReader

from app.report.pdf import write_report
from app.scenario_io import load_scenario
from models.scenario import parse_scenario
from solvers.evaluate import evaluate


@pytest.fixture
def report(qapp, example_path, tmp_path):
    scenario = load_scenario(example_path)
    results = evaluate(scenario)
    path = tmp_path / "report.pdf"
    write_report(scenario, results, path)
    return scenario, results, PdfReader(path)


def test_pages_and_their_sections(report):
    scenario, results, reader = report
    pages = [" ".join(p.extract_text().split()) for p in reader.pages]
    assert len(pages) == 5
    # page 1: the executive summary alone (issue 16 item 9); jumbo_10gbe's
    # goal is throughput, which MTU 9000 raises most (9.900 Gbit/s)
    for text in (scenario.meta.name, "executive summary", "Question",
                 "Recommended MTU 9000", "Margin 9.900 Gbit/s",
                 "Binding limit", "What MTU 9000 changes against the base",
                 "Network › MTU: 1500 B → 9000 B"):
        assert text in pages[0]
    assert "Comparison" not in pages[0]
    for text in ("Comparison", "Link-bound TCP goodput", "9.900", "VXLAN",
                 "(+5.2 %)"):
        assert text in pages[1]
    rest = " ".join(pages[1:])
    assert "Goodput versus MTU" in rest
    assert "Transfer throughput and host CPU" in rest
    # the scenario's own sweep, as the app's sweep tab draws it
    assert "Sweep mtu_by_link_speed" in rest
    assert "Accuracy against published measurements" in rest
    assert "Assumptions" in rest and "No packet loss" in rest
    for number, page in enumerate(pages, 1):
        assert f"Page {number} of {len(pages)}" in page
    assert reader.metadata.title == f"Linkplan report: {scenario.meta.name}"


def test_chart_is_vector_graphics(report):
    # the chart page draws paths; a rasterised chart would be an image XObject
    page = next(p for p in report[2].pages
                if "Goodput versus MTU" in " ".join(p.extract_text().split()))
    resources = page["/Resources"]
    xobjects = resources.get("/XObject", {})
    images = [k for k, v in xobjects.items()
              if v.get_object().get("/Subtype") == "/Image"]
    assert images == []
    assert len(page.get_contents().get_data()) > 20_000


def test_scenario_and_results_are_attached(report):
    scenario, results, reader = report
    attachments = reader.attachments
    assert set(attachments) == {"scenario.toml", "results.json"}
    attached = parse_scenario(attachments["scenario.toml"][0].decode(),
                              "toml")
    assert attached == scenario
    assert json.loads(attachments["results.json"][0]) == \
        json.loads(results.to_json())


def test_unwritable_target_raises_and_leaves_nothing(qapp, example_path,
                                                     tmp_path):
    scenario = load_scenario(example_path)
    with pytest.raises(OSError):
        write_report(scenario, evaluate(scenario),
                     tmp_path / "missing" / "r.pdf")
    assert list(tmp_path.iterdir()) == []


def test_transport_section_when_transfers_exist(qapp, tmp_path):
    from tests.conftest import EXAMPLES
    scenario = load_scenario(EXAMPLES / "seed001_live_migration.toml")
    path = tmp_path / "seed001.pdf"
    write_report(scenario, evaluate(scenario), path)
    # NFKC folds the typeset ligatures (fl, ffi) back into letters
    text = unicodedata.normalize("NFKC", " ".join(
        " ".join(page.extract_text().split())
        for page in PdfReader(path).pages))
    assert "Transfer throughput and host CPU" in text
    assert "h no team, SMB Multichannel" in text
    assert "the team hash puts 4 flow(s)" in text


def _text(path):
    # NFKC folds the typeset ligatures (fl, ffi) back into letters
    return unicodedata.normalize("NFKC", " ".join(
        " ".join(page.extract_text().split())
        for page in PdfReader(path).pages))


def test_recommendations_are_the_advice_passed_in(qapp, tmp_path):
    # the report computes nothing: without advice it has no such section
    from solvers.advise import advise
    from tests.conftest import EXAMPLES
    scenario = load_scenario(EXAMPLES / "seed002_hcibench.toml")
    results = evaluate(scenario)
    advice = advise(scenario)
    write_report(scenario, results, tmp_path / "with.pdf", advice)
    write_report(scenario, results, tmp_path / "without.pdf")
    assert "Recommended changes (base scenario)" in _text(
        tmp_path / "with.pdf")
    # the change in words, its reason and its re-evaluated effect
    assert "Storage workload hcibench › Threads per disk: 1 → 2 " \
        "(+27.5 % on the goal)" in _text(tmp_path / "with.pdf")
    assert "Why: outstanding IO 10 is below the knee" in _text(
        tmp_path / "with.pdf")
    assert "Recommended changes" not in _text(tmp_path / "without.pdf")


def test_cli_report_lists_the_recommendations(tmp_path):
    from tests.conftest import EXAMPLES, ROOT
    path = tmp_path / "cli.pdf"
    subprocess.run([sys.executable, "-m", "app", "report",
                    str(EXAMPLES / "seed002_hcibench.toml"), "-o",
                    str(path)], cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
                   timeout=120)
    assert "Threads per disk: 1 → 2" in _text(path)


def test_evacuation_gantt_and_advice_when_the_host_is_evacuated(qapp,
                                                                 tmp_path):
    from solvers.advise import advise
    from tests.conftest import EXAMPLES
    scenario = load_scenario(EXAMPLES / "evacuation_maintenance.toml")
    path = tmp_path / "evacuation.pdf"
    write_report(scenario, evaluate(scenario), path, advise(scenario))
    text = unicodedata.normalize("NFKC", " ".join(
        " ".join(page.extract_text().split())
        for page in PdfReader(path).pages))
    for variant in ("Base", "Concurrency 2",
                    "Auto concurrency, optimized order"):
        assert f"Evacuation esx01: {variant}" in text
    # each variant's Gantt has its concurrency sweep beneath it
    assert text.count("Total time by concurrency") == 3
    # the recommendation, re-evaluated: concurrency 8 -> 4
    assert "Evacuation esx01 › Concurrency: 8 → 4" in text


def test_the_report_states_the_accuracy_of_its_models(qapp, tmp_path):
    # the bundled validation set solved (app.validation_io.
    # accuracy_report): a row for each area whose models give these
    # results, the whole set, and the cases behind the goal's quantity
    from app.validation_io import accuracy_report
    from solvers.accuracy import AREA_LABELS
    from tests.conftest import EXAMPLES
    scenario = load_scenario(EXAMPLES / "evacuation_maintenance.toml")
    path = tmp_path / "evacuation.pdf"
    write_report(scenario, evaluate(scenario), path)
    section = _text(path).split("Accuracy against published measurements",
                                1)[1].split("Assumptions", 1)[0]
    report = accuracy_report()
    # an evacuation's times are pre-copy migrations over the host's path;
    # no storage workload and no cluster, so no storage or cluster row
    for area in report.areas:
        row = (f"{AREA_LABELS[area.area]} {area.cases} {area.held} "
               f"{area.not_modelled} {area.median_error_pct:.1f} %")
        assert (row in section) == (area.area not in ("storage",
                                                      "cluster")), row
    total = report.total
    assert f"All areas {total.cases} {total.held} {total.not_modelled} " \
        f"{total.median_error_pct:.1f} % {total.p90_error_pct:.1f} %" \
        in section
    assert "The cases behind the goal (Shortest host evacuation)" in section
    assert "EVAC-HOLMAN-10G (±15 %): known miss" in section


def test_an_unreadable_validation_set_is_said_and_the_report_written(
        qapp, tmp_path, monkeypatch):
    import app.validation_io
    from app.validation_io import ValidationDataError

    def unreadable():
        raise ValidationDataError("cases.toml: [[cases]][0].id: missing")
    monkeypatch.setattr(app.validation_io, "accuracy_report", unreadable)
    from tests.conftest import EXAMPLES
    scenario = load_scenario(EXAMPLES / "seed002_hcibench.toml")
    write_report(scenario, evaluate(scenario), tmp_path / "r.pdf")
    assert "The validation set cannot be read: cases.toml: [[cases]][0].id: " \
        "missing" in _text(tmp_path / "r.pdf")
