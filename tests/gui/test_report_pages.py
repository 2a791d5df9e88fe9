"""The PDF report as a reader meets it (issue 16 item 9 and its PDF
defects), checked on the text of every example's pages: "Page n of N",
a reasonable page count with no near-empty page, the binding limit on
page 1, no raw paths there, no noise rows, charts only where they answer
the question, each assumption once; also 50 variants and the GUI's
export."""

import re
import unicodedata

import pytest
import tomli_w
from pypdf import PdfReader

from app.presentation.values import row_label
from app.presentation.content import table_rows
from app.report.layout import NEAR_EMPTY
from app.report.pdf import write_report
from app.presentation.summary import executive_summary
from app.scenario_io import load_scenario
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES

#: Most pages an example's report may take: the largest example (eight
#: variants, a migration and a team) needs five.
MOST_PAGES = 6

#: Least a last page holds (of its height): less is a page for a few
#: lines, which the layout moves a section onto.
LAST_PAGE_LEAST = 0.2


def _pages(path):
    # NFKC folds the typeset ligatures (fl, ffi) back into letters
    return [unicodedata.normalize("NFKC", " ".join(p.extract_text().split()))
            for p in PdfReader(path).pages]


def _words(text):
    return " ".join(unicodedata.normalize("NFKC", text).split())


@pytest.mark.parametrize("example", sorted(p.name for p in
                                           EXAMPLES.glob("*.toml")))
def test_every_example_reads_well(qapp, tmp_path, example):
    scenario = load_scenario(EXAMPLES / example)
    results = evaluate(scenario)
    path = tmp_path / "report.pdf"
    layout = write_report(scenario, results, path)
    pages = _pages(path)
    assert len(pages) == layout.pages <= MOST_PAGES
    for number, page in enumerate(pages, 1):
        assert f"Page {number} of {len(pages)}" in page
    # no near-empty page: each but the last at least NEAR_EMPTY full
    assert min(layout.fills[:-1], default=1.0) >= NEAR_EMPTY, layout.fills
    assert layout.fills[-1] >= LAST_PAGE_LEAST, layout.fills
    # page 1: the summary names the binding limit, in words, no raw path
    summary = executive_summary(scenario, results)
    assert "Binding limit" in pages[0]
    assert _words(summary.binding_limit) in pages[0]
    assert not re.search(r"\w\[\d+\]\.\w", pages[0]), pages[0]
    # no noise row in the comparison tables (they are named once as
    # left out)
    values = {m.id: m for v in results.variants for m in v.metrics}
    text = " ".join(pages)
    for metric_id in table_rows(results).noise:
        assert _words(row_label(values[metric_id])) not in text


@pytest.mark.parametrize("example", ["seed000_lbt.toml",
                                     "seed002_hcibench.toml",
                                     "seed004_jumbo_ip_storage.toml"])
def test_no_goodput_chart_for_storage_or_teaming(qapp, tmp_path, example):
    scenario = load_scenario(EXAMPLES / example)
    path = tmp_path / "report.pdf"
    write_report(scenario, evaluate(scenario), path)
    assert "Goodput versus MTU" not in " ".join(_pages(path))


def test_teaming_report_shows_the_policies_and_the_n1_view(qapp, tmp_path):
    scenario = load_scenario(EXAMPLES / "seed000_lbt.toml")
    path = tmp_path / "report.pdf"
    write_report(scenario, evaluate(scenario), path)
    text = " ".join(_pages(path))
    assert "Teaming policies (the same in every variant)" in text
    assert "N-1: dvUplink1 lost (worst case)" in text
    # page 1 answers "what if one uplink fails?" with the recommended
    # variant's chart
    assert "Teaming: Base" in _pages(path)[0]


def test_storage_noise_row_and_repeated_assumptions_are_gone(qapp,
                                                             tmp_path):
    # issue 16: "IOPS gain from MTU 9000 0.01549 %" printed as a row, and
    # the same assumptions repeated per variant (seed004, 8 workloads)
    scenario = load_scenario(EXAMPLES / "seed004_jumbo_ip_storage.toml")
    path = tmp_path / "report.pdf"
    write_report(scenario, evaluate(scenario), path)
    text = " ".join(_pages(path))
    assert "IOPS gain from MTU 9000 [%]" not in text
    assert "Left out as noise: Storage: IOPS gain from MTU 9000" in text
    assert text.count("No packet loss") == 1
    assert text.count("Delayed ACK: one ACK per 2 segments") == 1


def test_eight_variants_read_as_changes_in_words(qapp, tmp_path):
    scenario = load_scenario(EXAMPLES / "seed001_live_migration.toml")
    assert len(scenario.variants) >= 7
    path = tmp_path / "report.pdf"
    write_report(scenario, evaluate(scenario), path)
    pages = _pages(path)
    text = " ".join(pages)
    assert "NICs nic1, nic2 › RDMA: None → RoCE v2" in text
    assert "workloads.transfers[0]" not in text
    # the variant columns come in tables of at most six, each name whole
    comparison = " ".join(p for p in pages if "Comparison" in p)
    assert "table 1 of 2" in comparison and "table 2 of 2" in comparison
    for variant in scenario.variants:
        for word in variant.name.split():
            assert word in comparison


def test_fifty_variants(qapp, tmp_path):
    # the largest report accepted (tests/benchmarks/bench_size.py)
    from models.scenario import parse_scenario
    from tests.benchmarks.bench_size import _with_variants
    scenario = parse_scenario(tomli_w.dumps(_with_variants(49)), "toml")
    path = tmp_path / "report.pdf"
    layout = write_report(scenario, evaluate(scenario), path)
    pages = _pages(path)
    # ten tables of five variants and the base; one line per variant
    assert len(pages) == layout.pages <= 12
    for number, page in enumerate(pages, 1):
        assert f"Page {number} of {len(pages)}" in page
    comparison = " ".join(p for p in pages if "Comparison" in p)
    for variant in scenario.variants:
        assert re.search(rf"\b{variant.name}\b", comparison)
    assert min(layout.fills[:-1]) >= NEAR_EMPTY


def test_export_from_the_window_flashes_no_chart_window(window, tmp_path,
                                                        qapp):
    # issue 16: "Export PDF flashes stray chart windows on screen"; the
    # charts are drawn in widgets never mapped, so no window is shown
    from PySide6 import QtCore, QtGui

    class ShownWindows(QtCore.QObject):
        def __init__(self):
            super().__init__()
            self.shown = []

        def eventFilter(self, watched, event):
            if isinstance(watched, QtGui.QWindow) and event.type() in (
                    QtCore.QEvent.Type.Show, QtCore.QEvent.Type.Expose):
                self.shown.append(watched.objectName())
            return False

    spy = ShownWindows()
    qapp.installEventFilter(spy)
    try:
        assert window.export_pdf_to(tmp_path / "report.pdf")
    finally:
        qapp.removeEventFilter(spy)
    assert spy.shown == []
    pages = _pages(tmp_path / "report.pdf")
    assert f"Page 1 of {len(pages)}" in pages[0]
