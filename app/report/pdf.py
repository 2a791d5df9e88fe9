"""The PDF comparison report, drawn with QPainter into QPdfWriter.

Text and tables are painted directly; the charts are the sections of the
analysis views (:mod:`app.figures.views`), each rendered from its
pyqtgraph scene, so they stay vector graphics.
The scenario (as TOML) and the results (as JSON) are attached to the PDF so
the report can be regenerated from itself.
"""

import dataclasses
import hashlib
import os
import re
import uuid
from dataclasses import dataclass

from PySide6 import QtCore, QtGui

from app.figures.bootstrap import application
from app.figures.views import VIEWS, ReportChart
from app.plain_text import results_as_shown, scenario_as_shown
from app.presentation.content import accuracy, table_rows, what_differs
from app.presentation.summary import executive_summary
from app.report.layout import (MARGIN_MM, RESOLUTION, Layout, Page,
                               report_date)
from app.report.sections import (accuracy_section, advice_section,
                                 assumptions_section, calibration_section,
                                 chart_section, check_section,
                                 findings_section)
from app.report.summary_page import summary_page
from app.report.sweep import scenario_sweep_chart
from app.report.tables import (comparison_section, limits_section,
                               variants_section)
from app.scenario_io import atomic_write
from models.scenario import dump_scenario

#: Variants one report compares. Measured (CLI, 2 cores): 50 variants take
#: 6.8 s, 1,000 took 112 s and 0.97 GB; beyond a few dozen the tables and
#: charts are unreadable anyway (solve --format csv lists any number).
REPORT_MAX_VARIANTS = 50

_Qt = QtCore.Qt


class ReportTooLarge(ValueError):
    """The scenario has more variants than one report compares."""


def check_report_size(scenario):
    """Raise :class:`ReportTooLarge` when the report cannot show the
    scenario (more than REPORT_MAX_VARIANTS variants)."""
    count = 1 + len(scenario.variants)
    if count > REPORT_MAX_VARIANTS:
        raise ReportTooLarge(
            f"variants: a report compares at most {REPORT_MAX_VARIANTS} "
            f"variants (the base included), this scenario has {count:,}; "
            "'linkplan solve --format csv' lists them all")


def write_report_headless(scenario, results, path, advice=None):
    """Write the report from a process without a window (CLI): offscreen
    unless a display is available."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    application()
    write_report(scenario, results, path, advice)


def write_report(scenario, results, path, advice=None, sweep_chart=None,
                 checks=()):
    """Write the PDF report atomically (needs a QApplication).

    Parameters
    ----------
    scenario : models.scenario.Scenario
    results : solvers.results.Results
        ``evaluate(scenario)``.
    path : str or pathlib.Path
    advice : solvers.advise.AdviceResult, optional
        ``advise(scenario)``, listed as recommended changes; None leaves
        the section out.
    sweep_chart : (str, callable), optional
        A sweep shown in the app: its heading and ``draw(plot_item)``;
        None charts the scenario's first sweep, if it has one.
    checks : sequence of (dict, list of dict)
        Imported migration measurements (``ImportResult.checks``) with
        their :func:`app.importers.migration.predicted_vs_measured` rows,
        printed as "predicted vs measured" tables.

    Returns
    -------
    Layout
        The page count and how full each page is.

    Raises
    ------
    OSError
        The file cannot be written; an existing file is left as it was.
    ReportTooLarge
        More variants than a report shows.
    """
    check_report_size(scenario)
    attached = scenario, results
    scenario, results = scenario_as_shown(scenario), \
        results_as_shown(results)
    if sweep_chart is None:
        sweep_chart = scenario_sweep_chart(scenario, results)
    content = _Content.of(scenario, results, advice, sweep_chart)
    # dry passes count the pages for "Page n of N" and move a section to
    # the last page when it would be near-empty; the last pass draws
    layout = _drawn(scenario, results, advice, content, checks)
    breaks = layout.balanced()
    if breaks != layout.breaks:
        moved = _drawn(scenario, results, advice, content, checks,
                       breaks=breaks)
        if moved.pages <= layout.pages:
            layout = moved
    pdf = _drawn(scenario, results, advice, content, checks, layout.pages,
                 layout.breaks, attached=attached)
    atomic_write(path, _dated(pdf))
    return layout


def _drawn(scenario, results, advice, content, checks, pages=None,
           breaks=frozenset(), attached=None):
    """The report's PDF bytes, or with ``pages`` None its
    :class:`Layout` (charts not rendered); ``breaks``: the headings that
    start a page; ``attached``: the scenario and results as given, which
    the PDF carries (``scenario`` and ``results`` are as shown)."""
    buffer = QtCore.QBuffer()
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    writer = QtGui.QPdfWriter(buffer)
    writer.setTitle(f"Linkplan report: {scenario.meta.name}")
    writer.setCreator(f"Linkplan {results.linkplan_version}")
    writer.setResolution(RESOLUTION)
    # same scenario and build, same results and document ID: reruns are
    # identical
    writer.setDocumentId(QtCore.QUuid(str(uuid.UUID(hashlib.sha256(
        (results.scenario_sha256 + results.linkplan_version).encode())
        .hexdigest()[:32]))))
    writer.setPageLayout(QtGui.QPageLayout(
        QtGui.QPageSize(QtGui.QPageSize.PageSizeId.A4),
        QtGui.QPageLayout.Orientation.Portrait,
        QtCore.QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM),
        QtGui.QPageLayout.Unit.Millimeter))
    if pages is not None:
        given, answers = attached or (scenario, results)
        writer.addFileAttachment("scenario.toml",
                                 dump_scenario(given, "toml").encode(),
                                 "application/toml")
        writer.addFileAttachment("results.json",
                                 answers.to_json().encode(),
                                 "application/json")
    painter = QtGui.QPainter(writer)
    try:
        page = Page(painter, writer, scenario.meta.name, pages, breaks)
        _draw(page, scenario, results, advice, content, checks)
    finally:
        painter.end()
    buffer.close()
    if pages is None:
        return Layout(page.page_number, tuple(page.fills),
                      tuple(page.headings), breaks)
    return bytes(buffer.data())


def _dated(pdf):
    """The PDF with the creation date of ``report_date()``: QPdfWriter
    always writes the current time, here replaced in place (same length,
    so the cross-reference offsets stay right)."""
    when = report_date()
    # the info dictionary's two dates and the XMP packet's three come
    # before any attachment, whose text must stay as it is
    pdf = re.sub(rb"\(D:\d{14}Z\)", when.strftime("(D:%Y%m%d%H%M%SZ)")
                 .encode(), pdf, count=2)
    return re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00",
                  when.strftime("%Y-%m-%dT%H:%M:%S+00:00").encode(), pdf,
                  count=3)


#: Variants drawn in a chart (base, recommended, then file order): beyond
#: a dozen, lines and legends overlap; the tables list every variant.
CHART_VARIANTS = 12

#: Variants whose per-variant charts (teaming, evacuation schedule) are
#: drawn when there are more: the base and the recommended one.
DETAILED_VARIANTS = 3


@dataclass(frozen=True)
class _Content:
    """What the report says, worked out once for all its passes."""

    summary: object
    changes: dict
    rows: object
    sections: list
    accuracy: object

    @classmethod
    def of(cls, scenario, results, advice, sweep_chart):
        summary = executive_summary(scenario, results, advice)
        rows = table_rows(results)
        return cls(summary, what_differs(scenario), rows,
                   _sections(results, rows, summary, sweep_chart),
                   accuracy(results, summary.metric))


def _draw(page, scenario, results, advice, content, checks=()):
    """Every section of the report, in order, on ``page``."""
    summary, changes, rows = content.summary, content.changes, \
        content.rows
    summary_page(page, scenario, results, summary, changes,
                 content.sections, rows)
    page.new_page()
    variants_section(page, scenario, changes)
    comparison_section(page, results, summary, rows)
    limits_section(page, results)
    for _, heading, charts, caption, _ in content.sections:
        chart_section(page, heading, charts, caption)
    findings_section(page, results)
    if advice is not None:
        advice_section(page, advice, scenario)
    for check, check_rows in checks:
        check_section(page, check, check_rows)
    if scenario.calibration is not None:
        calibration_section(page, scenario.calibration)
    accuracy_section(page, content.accuracy, content.summary)
    assumptions_section(page, scenario, results)
    page.footer()


def _wire_differs(results):
    """Whether goodput against MTU differs between the variants (else
    its chart says nothing about the question)."""
    def curve(variant):
        trace = variant.traces.get("goodput_vs_mtu")
        return None if trace is None else (
            list(trace["y"]["values"]), trace["marker"]["x"])
    base = curve(results.variants[0])
    return any(curve(v) != base for v in results.variants[1:])


def _sections(results, rows, summary, sweep_chart):
    """The chart sections, ``[(view key, heading, charts, caption,
    metric ids)]`` (the metric each chart bars, or None):
    each view's for the variants it draws, the goodput chart only where
    the wire is the question, then the sweep."""
    charted = _charted(results, summary.best, CHART_VARIANTS)
    detailed = _charted(results, summary.best, DETAILED_VARIANTS)
    note = "" if len(charted.variants) == len(results.variants) else \
        f" Drawn: {len(charted.variants)} of {len(results.variants)} " \
        "variants (the base, the recommended one, then in order)."
    others = any(v.present(results) for v in VIEWS if not v.background)
    same = set(rows.same)
    out = []
    for view in VIEWS:
        if view.background and (others or len(results.variants) > 1) \
                and not _wire_differs(results):
            continue   # one curve for every variant
        bars = [bar[0] for bar in getattr(view, "bars", ())]
        if bars and all(metric_id in same for metric_id in bars):
            continue   # equal bars in every variant say nothing
        per_variant = view.per_variant
        shown = detailed if per_variant else charted
        if per_variant and len(shown.variants) < len(results.variants):
            drawn = ", ".join(v.name for v in shown.variants)
            note_here = f" Drawn for {drawn} of the " \
                f"{len(results.variants)} variants."
        else:
            note_here = "" if per_variant else note
        for section in view.report_sections(shown):
            out.append((view.key, section.heading, section.charts,
                        (section.caption + note_here).strip(),
                        tuple(bars) or (None,) * len(section.charts)))
    if sweep_chart is not None:
        heading, draw, *caption = sweep_chart
        out.append(("sweep", heading, (ReportChart(draw, 380),),
                    " ".join(caption), (None,)))
    return out


def _charted(results, best, most):
    """The results of the variants a chart draws: all, or the base, the
    recommended one and the next in order up to ``most``."""
    if len(results.variants) <= most:
        return results
    names = [results.variants[0].name] + ([best] if best else [])
    for variant in results.variants:
        if len(names) >= most:
            break
        if variant.name not in names:
            names.append(variant.name)
    return dataclasses.replace(results, variants=tuple(
        v for v in results.variants if v.name in names))
