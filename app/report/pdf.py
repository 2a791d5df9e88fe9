"""The PDF comparison report, drawn with QPainter into QPdfWriter.

Text and tables are painted directly; the charts are the sections of the
GUI's analysis views (:mod:`app.gui.views`), each rendered from its
pyqtgraph scene, so they stay vector graphics.
The scenario (as TOML) and the results (as JSON) are attached to the PDF so
the report can be regenerated from itself.
"""

import dataclasses
import datetime
import hashlib
import math
import os
import re
import uuid
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from app.calibrate_cli import error_summary
from app.gui.advice import GOAL_LABELS
from app.gui.bootstrap import FONT_FAMILY, application
from app.gui.charts import new_plot_widget, variant_colour
from app.gui.comparison import row_label, shown_value
from app.gui.findings import effect_text, evidence_text
from app.gui.views import REPORT_CHART_WIDTH, VIEWS, ReportChart
from app.plain_text import results_as_shown, scenario_as_shown
from app.report.content import (NOISE_GAIN_PCT, SAME, accuracy,
                                biggest_changes, changes_text,
                                grouped_findings,
                                grouped_limits, is_gain, names_text,
                                table_rows, teaming_pivot, what_differs)
from app.report.summary import change_words, executive_summary, reason
from app.report.sweep import scenario_sweep_chart
from app.scenario_io import atomic_write
from models.scenario import dump_scenario
from solvers import metric_ids
from solvers.accuracy import AREA_LABELS
from solvers.results import format_change, format_number

#: Logical resolution of the PDF [dpi]: cosmetic (1 px) chart pens come out
#: about 0.26 mm wide, as on screen (Orange's PDF exporter does the same).
RESOLUTION = 96
MARGIN_MM = 15

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
        report = _Report(painter, writer, scenario.meta.name, pages,
                         breaks)
        report.draw(scenario, results, advice, content, checks)
    finally:
        painter.end()
    buffer.close()
    if pages is None:
        return Layout(report.page_number, tuple(report.fills),
                      tuple(report.headings), breaks)
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


def report_date():
    """When the report is made: now, or ``SOURCE_DATE_EPOCH`` when set
    (reproducible-builds.org), for byte-identical reruns."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None and epoch.isdigit():
        return datetime.datetime.fromtimestamp(int(epoch),
                                               datetime.timezone.utc)
    return datetime.datetime.now(datetime.timezone.utc)


#: Footer height at the bottom of each page [px]: "Page n of N".
FOOTER = 22

#: Variants drawn in a chart (base, recommended, then file order): beyond
#: a dozen, lines and legends overlap; the tables list every variant.
CHART_VARIANTS = 12

#: Variants whose per-variant charts (teaming, evacuation schedule) are
#: drawn when there are more: the base and the recommended one.
DETAILED_VARIANTS = 3

#: Variant columns of one comparison table; more variants continue in
#: further tables, each with the base again as the reference.
TABLE_COLUMNS = 6

#: Bars of the summary's goal chart (the best ranked, and the base).
SUMMARY_BARS = 12

#: Biggest changes listed on the summary page.
SUMMARY_CHANGES = 8

#: Least share of its height a chart keeps when shrunk to end a page.
SHRINK = 0.75

#: A page filled less than this (of its height) is "near-empty"; pages
#: before the last never are (tests check it via ``Layout.fills``).
NEAR_EMPTY = 0.3

_INK, _GREY, _ACCENT = "#000000", "#555555", "#1f3b5a"
_SEVERITY_COLOURS = {"critical": "#B00020", "warning": "#B35900"}


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


class _Measuring:
    """The dry pass's painter: it measures text like the real one and
    draws nothing."""

    def __init__(self, painter):
        self._painter = painter

    def __getattr__(self, name):
        return getattr(self._painter, name)

    def drawText(self, *args):
        pass

    def fillRect(self, *args):
        pass

    def drawLine(self, *args):
        pass


@dataclass(frozen=True)
class Layout:
    """How the report was laid out: its page count, how full each page is
    (0 to 1), where each section heading starts (page, fill) and the
    headings that start a page of their own (to balance the last page)."""

    pages: int
    fills: tuple
    headings: tuple = ()
    breaks: frozenset = frozenset()

    def balanced(self):
        """Headings to start on a new page so that the last page is not
        near-empty: the earliest heading on the page before it, past
        :data:`NEAR_EMPTY` of that page, whose content then fits on the
        last page. Empty when none does or none is needed."""
        if self.pages < 3 or self.fills[-1] >= NEAR_EMPTY:
            return self.breaks
        before = self.fills[-2]
        for index, (page, fill) in enumerate(self.headings):
            if page == self.pages - 1 and fill >= NEAR_EMPTY and \
                    before - fill + self.fills[-1] <= 0.95:
                return self.breaks | {index}
        return self.breaks


class _Report:
    """Page cursor: flowing text, tables and charts, page by page, with
    "Page n of N" in each page's footer.

    A report is drawn twice: first ``dry`` (charts only take their room)
    to count the pages, then for real with the count known.
    """

    def __init__(self, painter, writer, name, pages=None,
                 breaks=frozenset()):
        self.dry, self.pages, self.breaks = pages is None, pages, breaks
        self.painter = _Measuring(painter) if self.dry else painter
        self.writer, self.name = writer, name
        self.headings = []
        self.page = writer.pageLayout().paintRectPixels(RESOLUTION)
        self.width = self.page.width()
        self.bottom = self.page.height() - FOOTER
        self.y = 0.0
        self.page_number = 1
        self.fills = []

    # -- primitives --------------------------------------------------------

    def font(self, size, bold=False):
        font = QtGui.QFont(FONT_FAMILY)
        font.setPointSizeF(size)
        font.setBold(bold)
        return font

    def metrics(self, size, bold=False):
        return QtGui.QFontMetricsF(self.font(size, bold), self.writer)

    def footer(self):
        """The report's name and "Page n of N" at the page's foot."""
        self.fills.append(min(self.y / self.bottom, 1.0))
        self.painter.setFont(self.font(7.5))
        self.painter.setPen(QtGui.QColor(_GREY))
        box = QtCore.QRectF(0, self.page.height() - FOOTER + 6, self.width,
                            FOOTER - 6)
        self.painter.drawText(box, int(_Qt.AlignmentFlag.AlignLeft),
                              f"Linkplan report: {self.name}")
        total = "" if self.dry else f" of {self.pages}"
        self.painter.drawText(box, int(_Qt.AlignmentFlag.AlignRight),
                              f"Page {self.page_number}{total}")

    def new_page(self):
        self.footer()
        self.writer.newPage()
        self.page_number += 1
        self.y = 0.0

    def room(self):
        return self.bottom - self.y

    def ensure(self, height):
        if self.y + height > self.bottom and self.y > 0:
            self.new_page()

    def measure(self, text, size=9.5, bold=False, indent=0):
        """Height of wrapped text [px]."""
        self.painter.setFont(self.font(size, bold))
        flags = int(_Qt.TextFlag.TextWordWrap | _Qt.AlignmentFlag.AlignLeft)
        box = QtCore.QRectF(indent, 0, self.width - indent, 10_000)
        return self.painter.boundingRect(box, flags, text).height()

    def text(self, text, size=9.5, bold=False, colour=_INK, indent=0,
             gap=4, keep=0):
        """Wrapped text; with ``keep``, on the page of the ``keep`` px that
        follow it (a label never ends a page)."""
        height = self.measure(text, size, bold, indent)
        self.ensure(height + keep)
        self.painter.setFont(self.font(size, bold))
        self.painter.setPen(QtGui.QColor(colour))
        flags = int(_Qt.TextFlag.TextWordWrap | _Qt.AlignmentFlag.AlignLeft)
        self.painter.drawText(QtCore.QRectF(indent, self.y,
                                            self.width - indent, height),
                              flags, text)
        self.y += height + gap

    def line(self, text, size=9.5, bold=False, colour=_INK, indent=0,
             gap=2):
        """One line, cut with an ellipsis where it would wrap."""
        metrics = self.metrics(size, bold)
        shown = metrics.elidedText(text, _Qt.TextElideMode.ElideRight,
                                   self.width - indent - 2)
        self.text(shown, size, bold, colour, indent, gap)

    def heading(self, text, keep=60):
        """A section heading, on the page of the ``keep`` px that follow
        it (never orphaned at a page's foot)."""
        if len(self.headings) in self.breaks and self.y > 0:
            self.new_page()
        self.ensure(14 + self.measure(text, 12, True) + keep)
        self.headings.append((self.page_number, self.y / self.bottom))
        self.y += 8
        self.text(text, size=12, bold=True, colour=_ACCENT, gap=6)

    def subheading(self, text, colour=_ACCENT, keep=30):
        self.y += 2
        self.text(text, size=10, bold=True, colour=colour, gap=3, keep=keep)

    def rule(self):
        self.painter.setPen(QtGui.QPen(QtGui.QColor(_ACCENT), 1.5))
        self.painter.drawLine(QtCore.QPointF(0, self.y),
                              QtCore.QPointF(self.width, self.y))
        self.y += 8

    def labelled(self, label, text, size=10):
        """``label`` in bold, then its text, wrapped beside it."""
        label_width = 120
        height = max(self.measure(text, size, indent=label_width),
                     self.measure(label, size, True))
        self.ensure(height)
        self.painter.setFont(self.font(size, True))
        self.painter.setPen(QtGui.QColor(_ACCENT))
        flags = int(_Qt.TextFlag.TextWordWrap | _Qt.AlignmentFlag.AlignLeft)
        self.painter.drawText(QtCore.QRectF(0, self.y, label_width - 8,
                                            height), flags, label)
        self.painter.setFont(self.font(size))
        self.painter.setPen(QtGui.QColor(_INK))
        self.painter.drawText(QtCore.QRectF(label_width, self.y,
                                            self.width - label_width,
                                            height), flags, text)
        self.y += height + 6

    def cells(self, texts, widths, size, bold=False, colours=None,
              fill=None, aligns=None, height=None, least=0):
        """One table row: ``texts`` in columns of ``widths`` (the first
        left-aligned, the rest right-aligned unless ``aligns`` says);
        wraps within a cell; ``height`` fixed, or that of its text (at
        least ``least``). Returns the row's height."""
        flags = [int(a | _Qt.AlignmentFlag.AlignVCenter
                     | _Qt.TextFlag.TextWordWrap)
                 for a in aligns or [_Qt.AlignmentFlag.AlignLeft] +
                 [_Qt.AlignmentFlag.AlignRight] * (len(texts) - 1)]
        if height is None:
            height = self.cells_height(texts, widths, size, bold, least,
                                       flags)
        self.painter.setFont(self.font(size, bold))
        if fill:
            self.painter.fillRect(QtCore.QRectF(0, self.y, sum(widths),
                                                height), QtGui.QColor(fill))
        x = 0.0
        for index, (text, width, flag) in enumerate(zip(texts, widths,
                                                        flags)):
            self.painter.setPen(QtGui.QColor((colours or {}).get(index,
                                                                 _INK)))
            self.painter.drawText(QtCore.QRectF(x + 4, self.y, width - 8,
                                                height), flag, text)
            x += width
        self.y += height
        return height

    def cells_height(self, texts, widths, size, bold=False, least=0,
                     flags=None):
        """The height :meth:`cells` gives a row of its text."""
        flag = int(_Qt.TextFlag.TextWordWrap)
        self.painter.setFont(self.font(size, bold))
        return max(least, 6 + max(self.painter.boundingRect(
            QtCore.QRectF(0, 0, w - 8, 1000), f, t).height()
            for t, w, f in zip(texts, widths, flags or [flag] * len(texts))))

    # -- the report --------------------------------------------------------

    def draw(self, scenario, results, advice, content, checks=()):
        summary, changes, rows = content.summary, content.changes, \
            content.rows
        sections = content.sections
        self.rows = rows
        self.summary_page(scenario, results, summary, changes, sections)
        self.new_page()
        self.variants_section(scenario, changes)
        self.comparison_section(results, summary)
        self.limits_section(results)
        for _, heading, charts, caption, _ in sections:
            self.chart_section(heading, charts, caption)
        self.findings_section(results)
        if advice is not None:
            self.advice_section(advice, scenario)
        for check, rows in checks:
            self.check_section(check, rows)
        if scenario.calibration is not None:
            self.calibration_section(scenario.calibration)
        self.accuracy_section(content.accuracy, content.summary)
        self.assumptions_section(scenario, results)
        self.footer()

    # -- page 1 ------------------------------------------------------------

    def summary_page(self, scenario, results, summary, changes, sections):
        """Page 1: the question, the recommended choice, its margin and
        the binding limit; then the goal of every variant, what the
        choice changes, the findings and the variants, as far as the page
        holds them."""
        self.text("Linkplan comparison report · executive summary",
                  size=10, colour=_GREY, gap=2)
        self.text(scenario.meta.name, size=17, bold=True, gap=4)
        self.text(f"Linkplan {results.linkplan_version} · "
                  f"{report_date().date().isoformat()} · scenario SHA-256 "
                  f"{results.scenario_sha256[:16]}… · "
                  f"{len(results.variants)} variant(s) compared",
                  size=8, colour=_GREY)
        self.rule()
        self.labelled("Question", summary.question)
        for objective in scenario.meta.objectives:
            self.labelled("Objective", objective)
        if summary.goal is not None:
            self.labelled("Goal", summary.goal)
            self.labelled("Recommended", summary.best or "none")
            self.labelled("Margin", summary.margin)
        self.labelled("Binding limit", summary.binding_limit)
        if summary.next_step:
            self.labelled("Next step", summary.next_step)
        if summary.values:
            self.goal_bars(summary)
        if summary.goal is None:
            self.summary_results(results, summary)
        else:
            self.summary_changes(results, summary)
        self.summary_findings(results)
        key = _key_chart(sections, summary.best, summary.metric)
        if key is not None:
            # the variants' lines below keep a few lines' room
            lines = 30 + 14 * min(len(changes), 4) if changes else 0
            view, heading, charts = key
            first = charts[0].height * self.width / REPORT_CHART_WIDTH
            printed = min(first, self.room() - lines - 30)
            natural = QtCore.QSize(REPORT_CHART_WIDTH, charts[0].height)
            if view == "evacuation" and printed >= 150:
                # a Gantt keeps its rows legible on a shorter canvas
                self.subheading(heading, keep=printed)
                self.chart(charts[0].draw, QtCore.QSize(
                    REPORT_CHART_WIDTH,
                    int(printed * REPORT_CHART_WIDTH / self.width)))
            elif printed >= first * SHRINK:
                self.subheading(heading, keep=printed)
                self.chart(charts[0].draw, natural, printed)
                # the section's next charts (the N-1 view) where they fit
                for chart in charts[1:]:
                    height = chart.height * self.width / REPORT_CHART_WIDTH
                    if height > self.room() - lines:
                        break
                    self.chart(chart.draw, QtCore.QSize(REPORT_CHART_WIDTH,
                                                        chart.height))
        self.summary_variants(results, changes)

    def goal_bars(self, summary):
        """The goal of each variant as a bar, the recommended one marked;
        the best :data:`SUMMARY_BARS` (and the base) when there are more."""
        unit = "" if summary.unit in ("", "1") else f" [{summary.unit}]"
        shown = _goal_rows(summary, SUMMARY_BARS)
        bar = 17.0
        if self.room() < 40 + bar * len(shown):
            return
        self.subheading(f"{summary.goal}{unit}, every variant" +
                        ("" if len(shown) == len(summary.values) else
                         f" (the best {len(shown) - 1} of "
                         f"{len(summary.values)}, and the base)"))
        size = 8.5
        metrics = self.metrics(size, True)
        name_width = min(max(metrics.horizontalAdvance(n)
                             for n, _ in shown) + 12, self.width * 0.35)
        top = max((v for _, v in summary.values if v is not None),
                  default=0.0)
        texts = {}
        base = summary.values[0][1]
        for name, value in shown:
            text = "no value" if value is None else format_number(value)
            if value is not None and base and name != summary.values[0][0] \
                    and abs(value / base - 1) >= SAME:
                text += f" ({100 * (value / base - 1):+.1f} %)"
            if name == summary.best:
                text += "  ◀ recommended"
            texts[name] = text
        span = self.width - name_width - 8 - max(
            metrics.horizontalAdvance(t) for t in texts.values())
        for name, value in shown:
            best = name == summary.best
            colour = "#1f7a3a" if best else "#7f9bb8"
            if value is not None and top > 0 and value > 0:
                self.painter.fillRect(QtCore.QRectF(
                    name_width, self.y + 2, span * value / top, bar - 4),
                    QtGui.QColor(colour))
            text = texts[name]
            self.painter.setFont(self.font(size, best))
            self.painter.setPen(QtGui.QColor(_INK))
            elided = metrics.elidedText(name, _Qt.TextElideMode.ElideRight,
                                        name_width - 10)
            flags = int(_Qt.AlignmentFlag.AlignLeft
                        | _Qt.AlignmentFlag.AlignVCenter)
            self.painter.drawText(QtCore.QRectF(0, self.y, name_width - 8,
                                                bar), flags, elided)
            end = name_width + (span * value / top if value and top > 0
                                and value > 0 else 0)
            self.painter.drawText(QtCore.QRectF(end + 4, self.y,
                                                self.width - end - 4, bar),
                                  flags, text)
            self.y += bar
        self.y += 6

    def summary_changes(self, results, summary):
        """What the recommended variant changes against the base (or, when
        the base is best, what the runner-up would change)."""
        names = [v.name for v in results.variants]
        if len(names) < 2 or self.room() < 120:
            return
        ranked = [n for n, v in sorted(
            ((n, v) for n, v in summary.values if v is not None),
            key=lambda nv: nv[1], reverse=summary.maximise)] \
            if summary.values else []
        best = summary.best or names[-1]
        if best == names[0]:
            other = next((n for n in ranked if n != best), names[1])
            reference, heading = best, f"What {other} would change " \
                "against the recommended base"
            other_name = other
        else:
            reference, other_name = names[0], best
            heading = f"What {best} changes against the base"
        rows = biggest_changes(results, self.rows, reference, other_name,
                               SUMMARY_CHANGES)
        if not rows:
            return
        self.subheading(heading)
        size = 8.5
        widths = [self.width * 0.46, self.width * 0.18, self.width * 0.18,
                  self.width * 0.18]
        self.cells(["Metric [unit]", reference, other_name, "Change"],
                   widths, size, bold=True, fill="#e8eef4")
        for index, (metric_id, before, after) in enumerate(rows):
            metric = results.variant(other_name).metric(metric_id)
            earlier = results.variant(reference).metric(metric_id)
            if metric_id.endswith(".converged"):
                change = "converges" if after else "no longer converges"
            else:
                change = format_change(before, after, metric.unit,
                                       digits=1)
            self.cells([row_label(metric), shown_value(earlier),
                        shown_value(metric), change], widths, size,
                       fill="#f6f8fa" if index % 2 else None)
        self.y += 6

    def summary_results(self, results, summary):
        """Without a goal to rank by: the rows that differ most, for the
        first variants."""
        compared = self.rows.compared[:SUMMARY_CHANGES]
        if not compared or self.room() < 120:
            return
        names = [v.name for v in results.variants][:TABLE_COLUMNS]
        values = {v.name: {m.id: m for m in v.metrics}
                  for v in results.variants}
        self.subheading("Key results" + (
            "" if len(names) == len(results.variants) else
            f" (the first {len(names)} of {len(results.variants)} "
            "variants)"))
        self.table(results, summary, compared, names, values)
        # the first of them as bars, every variant
        first = compared[0]
        metric = values[_first_with(values, first)][first]
        self.goal_bars(dataclasses.replace(
            summary, goal=metric.label, unit=metric.unit, best=None,
            values=tuple((v.name, values[v.name][first].value
                          if first in values[v.name] else None)
                         for v in results.variants)))

    def summary_findings(self, results):
        groups = grouped_findings(results)
        if not groups or self.room() < 60:
            return
        counts = ", ".join(f"{len(items)} {severity}"
                           for severity, items in groups)
        self.subheading(f"Findings ({counts}; evidence further on)")
        all_names = [v.name for v in results.variants]
        listed = [(severity, message, names) for severity, items in groups
                  if severity in ("critical", "warning")
                  for message, _, names in items]
        for severity, message, names in listed[:4]:
            if self.room() < 40:
                break
            self.text(f"{severity.capitalize()}: {message} "
                      f"({names_text(names, all_names)})", size=8.5,
                      colour=_SEVERITY_COLOURS.get(severity, _INK),
                      indent=8, gap=2)
        if len(listed) > 4:
            self.line(f"… and {len(listed) - 4} more", size=8.5,
                      colour=_GREY, indent=8)
        self.y += 4

    def summary_variants(self, results, changes):
        if not changes or self.room() < 50:
            return
        self.subheading("Variants (what each changes against the base)")
        variants = list(changes.items())
        for index, (name, items) in enumerate(variants):
            if self.room() < 30 and index < len(variants) - 1:
                self.line(f"… and {len(variants) - index} more, listed on "
                          "page 2", size=8.5, colour=_GREY, indent=8)
                break
            self.line(f"{name}: {changes_text(items)}", size=8.5, indent=8)

    # -- the sections that follow ------------------------------------------

    def variants_section(self, scenario, changes):
        self.heading("Scenario and variants")
        host, network = scenario.host, scenario.network
        nics = ", ".join(f"{n.id} {n.speed_gbps:g} Gbit/s"
                         for n in scenario.nics)
        for line in (
                f"Host: {host.hypervisor}, {host.sockets} × "
                f"{host.cores_per_socket} cores at {host.ghz:g} GHz; "
                f"NICs: {nics}",
                f"Network: IP MTU {network.mtu} B, IPv{network.ip_version}, "
                f"{network.vlan_tags} VLAN tag(s), TCP timestamps "
                f"{'on' if network.tcp_timestamps else 'off'}, overlay "
                f"{network.encapsulation}"):
            self.text(line, size=9, gap=2)
        if not scenario.variants:
            return
        self.y += 4
        for variant in scenario.variants:
            items = changes_text(changes[variant.name])
            if variant.description:
                self.text(f"{variant.name} — {variant.description}",
                          size=9, bold=True, gap=1, keep=12)
                self.text(items, size=8.5, indent=12, gap=3)
            else:
                self.text(f"{variant.name}: {items}", size=8.5, gap=2)

    def comparison_section(self, results, summary):
        rows = self.rows
        names = [v.name for v in results.variants]
        others = names[1:]
        groups = max(1, -(-len(others) // (TABLE_COLUMNS - 1)))
        per_group = -(-len(others) // groups) if others else 0
        heading = "Comparison" if not others else \
            "Comparison (change against the base in brackets)"
        values = {v.name: {m.id: m for m in v.metrics}
                  for v in results.variants}
        for group in range(groups):
            shown = [names[0]] + others[group * per_group:
                                        (group + 1) * per_group]
            if groups > 1:
                self.heading(f"{heading}, table {group + 1} of {groups}",
                             keep=120)
            else:
                self.heading(heading, keep=120)
            self.table(results, summary, rows.compared, shown, values)
        if rows.same:
            self.same_section(results, rows.same, values)
        if rows.noise:
            self.text("Left out as noise: " + ", ".join(
                values[_first_with(values, m)][m].label
                for m in rows.noise) + f" (below {NOISE_GAIN_PCT:g} % in "
                "every variant).", size=7.5, colour=_GREY)

    def table(self, results, summary, metric_ids, shown, values):
        """Metrics as rows, the ``shown`` variants as columns, each value
        with its change against the base; the goal first; continues on new
        pages with the header repeated."""
        columns = len(shown)
        size = 8.5 if columns <= 4 else 7.5
        labels = {m: row_label(values[_first_with(values, m)][m])
                  for m in metric_ids}
        goal_label = None
        if summary.goal is not None and len(shown) > 1:
            unit = "" if summary.unit in ("", "1") else f" [{summary.unit}]"
            goal_label = f"Goal: {summary.goal}{unit}"
        metrics = self.metrics(size)
        widest = max([metrics.horizontalAdvance(t) for t in labels.values()]
                     + [metrics.horizontalAdvance(goal_label or "")] + [80])
        label_width = min(widest + 12, self.width * (0.42 if columns <= 4
                                                     else 0.3))
        column_width = (self.width - label_width) / columns
        widths = [label_width] + [column_width] * columns
        one_line = column_width > metrics.horizontalAdvance(
            "1,234,567 (+100.0 %)") + 10
        row_height = (1 if one_line else 2) * metrics.lineSpacing() + 6
        index_of = {v.name: i for i, v in enumerate(results.variants)}
        colours = {i + 1: variant_colour(index_of[n])
                   for i, n in enumerate(shown)}
        bold = self.metrics(size, True)
        header_height = 8 + max(bold.boundingRect(
            QtCore.QRectF(0, 0, column_width - 8, 1000),
            int(_Qt.TextFlag.TextWordWrap), n).height() for n in shown)

        def header():
            self.ensure(header_height + 3 * row_height)
            self.cells(["Metric [unit]"] + shown, widths, size, bold=True,
                       colours=colours, fill="#e8eef4",
                       height=header_height)

        goal_values = dict(summary.values)
        # a row none of these variants has is left to the other tables
        rows = ([None] if goal_label else []) + [
            m for m in metric_ids if any(m in values[n] for n in shown)]
        header()
        for row, metric_id in enumerate(rows):
            if metric_id is None:
                numbers = [goal_values.get(n) for n in shown]
                texts = [goal_label] + [
                    "no value" if x is None else format_number(x)
                    for x in numbers]
            else:
                found = [values[n].get(metric_id) for n in shown]
                numbers = [None if m is None or m.id.endswith(".converged")
                           else m.value for m in found]
                largest = max((abs(x) for x in numbers if x is not None),
                              default=0.0)
                texts = [labels[metric_id]] + [
                    "–" if m is None else
                    # float dust (1e-12 of the row's largest) reads as 0
                    "0" if n is not None and abs(n) < 1e-9 * largest
                    else shown_value(m) for m, n in zip(found, numbers)]
                if is_gain(metric_id):
                    # a change of a gain in per cent of it says nothing
                    numbers = [None] * len(numbers)
            reference = numbers[0]
            for index in range(1, len(shown)):
                number = numbers[index]
                if number is not None and reference and \
                        abs(number / reference - 1) >= SAME:
                    texts[index + 1] += (" " if one_line else "\n") + \
                        f"({100 * (number / reference - 1):+.1f} %)"
            height = self.cells_height(texts, widths, size,
                                       metric_id is None, row_height)
            if self.y + height > self.bottom:
                self.new_page()
                header()
            self.cells(texts, widths, size, bold=metric_id is None,
                       fill="#f6f8fa" if row % 2 else None, height=height)
        self.painter.setPen(QtGui.QPen(QtGui.QColor(_ACCENT), 1))
        self.painter.drawLine(QtCore.QPointF(0, self.y),
                              QtCore.QPointF(self.width, self.y))
        self.y += 6

    def same_section(self, results, metric_ids, values):
        """Metrics equal in every variant: the teaming policies as a
        table, the rest as label and value in two columns."""
        base = results.variants[0].name
        columns, policies, rest = teaming_pivot(metric_ids)
        title = "The same in every variant" if len(results.variants) > 1 \
            else "Results"
        if policies:
            self.heading(f"Teaming policies ({title.lower()})", keep=120)
            size = 7.5
            labels = [f"{metric_ids_info(policies, key)}" for key in columns]
            first = self.width * 0.22
            widths = [first] + [(self.width - first) / len(columns)] * \
                len(columns)
            header = ["Policy"] + labels
            height = self.cells_height(header, widths, size, True)
            self.ensure(height + 40)
            self.cells(header, widths, size, bold=True, fill="#e8eef4",
                       height=height)
            for row, (policy, by_key) in enumerate(policies):
                texts = [policy] + [
                    shown_value(values[base][by_key[key]])
                    if key in by_key else "–" for key in columns]
                height = self.cells_height(texts, widths, size)
                self.ensure(height)
                self.cells(texts, widths, size, height=height,
                           fill="#f6f8fa" if row % 2 else None)
            self.y += 6
        if not rest:
            return
        size = 7.5
        self.heading(title if not policies else f"{title}, other results",
                     keep=50)
        half = self.width / 2
        widths = [half * 0.72, half * 0.28]
        metrics = self.metrics(size)
        height = metrics.lineSpacing() + 4
        entries = [(row_label(values[base][m]), shown_value(values[base][m]))
                   for m in rest]
        while entries:
            rows = min(-(-len(entries) // 2), int(self.room() // height))
            if rows <= 0:
                self.new_page()
                continue
            top = self.y
            for column, chunk in enumerate((entries[:rows],
                                            entries[rows:2 * rows])):
                self.y = top
                self.painter.save()
                self.painter.translate(column * half, 0)
                for label, value in chunk:
                    self.cells([metrics.elidedText(
                        label, _Qt.TextElideMode.ElideRight,
                        widths[0] - 8), value], widths, size, height=height)
                self.painter.restore()
            self.y = top + rows * height + 4
            entries = entries[2 * rows:]

    def limits_section(self, results):
        self.heading("Binding limit")
        all_names = [v.name for v in results.variants]
        for message, names in grouped_limits(results):
            if len(all_names) == 1:
                self.text(message, gap=2)
            else:
                self.text(f"{names_text(names, all_names)}: {message}",
                          gap=2)

    def chart_section(self, heading, charts, caption=""):
        """A heading and its charts; a chart that does not fit the rest of
        the page is scaled down to it when that keeps :data:`SHRINK` of
        its size, else it starts the next page."""
        largest = (self.bottom - 60) * REPORT_CHART_WIDTH / self.width
        heights = [min(c.height, largest) * self.width / REPORT_CHART_WIDTH
                   for c in charts]
        self.heading(heading, keep=heights[0] * SHRINK + 6)
        for chart, height in zip(charts, heights):
            printed = None
            if self.y + height > self.bottom:
                if self.room() - 6 >= height * SHRINK:
                    printed = self.room() - 6
                else:
                    self.new_page()
                    self.text(f"{heading} (continued)", size=8,
                              colour=_GREY)
            self.chart(chart.draw, QtCore.QSize(
                REPORT_CHART_WIDTH,
                int(height * REPORT_CHART_WIDTH / self.width)), printed)
        if caption:
            self.text(caption, size=8, colour=_GREY)

    def findings_section(self, results):
        groups = grouped_findings(results)
        if not groups:
            return
        self.heading("Findings")
        all_names = [v.name for v in results.variants]
        for severity, items in groups:
            self.subheading(f"{severity.capitalize()} ({len(items)})",
                            colour=_SEVERITY_COLOURS.get(severity,
                                                         "#1f5a8a"))
            for message, finding, names in items:
                self.text(f"{message} ({names_text(names, all_names)})",
                          size=9, indent=12, gap=1, keep=12)
                evidence = evidence_text(finding.evidence)
                if evidence:
                    self.text(f"Evidence: {evidence}", size=8,
                              colour=_GREY, indent=24, gap=3)

    def advice_section(self, advice, scenario):
        self.heading("Recommended changes (base scenario)")
        try:
            unit, label = metric_ids.info(advice.metric)
        except (KeyError, ValueError):
            unit, label = "", advice.metric
        unit = "" if unit in ("", "1") else f" {unit}"
        now = "no value" if not math.isfinite(advice.base_value) \
            else f"{format_number(advice.base_value)}{unit}"
        self.text(f"Goal: {GOAL_LABELS.get(advice.goal, advice.goal)}; "
                  f"{label} is {now} now. Each effect below is the model "
                  "re-solved with the change.", gap=4)
        if not advice.recommendations:
            self.text("No change improves the goal.")
        for rank, r in enumerate(advice.recommendations, 1):
            self.text(f"{rank}. {change_words(r, scenario)} "
                      f"({r.gain_pct:+.1f} % on the goal)", bold=True,
                      size=9, gap=1, keep=24)
            if reason(r):
                self.text(f"Why: {reason(r)}", size=8.5, indent=16, gap=1)
            for line in effect_text(r):
                self.text(line, size=8.5, indent=16, gap=1)
            self.y += 4

    def check_section(self, check, rows):
        """Predicted vs measured for an imported, completed migration."""
        self.heading(f"Predicted vs measured: migration "
                     f"{check['migration']}", keep=100)
        self.text(f"Measured: {check['source']}", size=8, colour=_GREY)
        for row in rows:
            unit = f" {row['unit']}" if row["unit"] else ""
            predicted = "no value (does not converge)" \
                if row["predicted"] is None \
                else f"{format_number(row['predicted'])}{unit}"
            error = "" if row["error_pct"] is None \
                else f", error {row['error_pct']:+.1f} %"
            self.text(f"{row['label']}: predicted {predicted}, measured "
                      f"{format_number(row['measured'])}{unit}{error}",
                      indent=12, gap=1)

    def calibration_section(self, site):
        """The site preset: what was fitted to the user's runs, what the
        runs could not determine, and each run predicted (fitted on all
        runs, and held out: fitted on the others)."""
        self.heading(f"Calibrated on measurements: site preset "
                     f"{site.name}", keep=100)
        self.text(f"Fitted {site.date} on {len(site.sources)} file(s): "
                  + ", ".join(site.sources[:6])
                  + (" …" if len(site.sources) > 6 else ""), size=8,
                  colour=_GREY)
        for line in site.fitted:
            self.text(f"Fitted: {line}", size=8.5, indent=12, gap=1)
        for line in site.undetermined:
            self.text(f"Not determined: {line}", size=8.5, indent=12,
                      gap=1)
        if not site.checks:
            return
        self.y += 4
        size = 7.5
        widths = [self.width * share
                  for share in (0.46, 0.16, 0.1, 0.1, 0.08, 0.1)]
        header = ["Run", "Quantity", "Measured", "Predicted", "Error",
                  "Role"]
        self.cells(header, widths, size, bold=True, fill="#e8eef4")
        for row, check in enumerate(site.checks):
            texts = [check.run, check.quantity,
                     format_number(check.measured),
                     format_number(check.predicted),
                     f"{check.error_pct:+.1f} %",
                     check.role.replace("_", " ")]
            if self.room() < self.cells_height(texts, widths, size) + 4:
                self.new_page()   # the table goes on, its header repeated
                self.cells(header, widths, size, bold=True,
                           fill="#e8eef4")
            self.cells(texts, widths, size,
                       fill="#f6f8fa" if row % 2 else None)
        self.y += 4
        for line in error_summary(site.checks):
            self.text(line[0].upper() + line[1:], size=8.5, gap=1)
        self.y += 4

    def accuracy_section(self, found, summary):
        """How far the models behind these results were from published
        measurements: one row per validation area they come from, the
        whole set, and the cases behind the goal's quantity."""
        self.heading("Accuracy against published measurements", keep=90)
        if found.problem:
            self.text(found.problem, size=9)
            return
        self.text("The models behind these results solved against the "
                  "published measurements bundled with Linkplan "
                  "(linkplan accuracy lists every case with its source). "
                  "Error is model / measured − 1, over the checks with a "
                  "measured value; the median and p90 are of its size.",
                  size=8, colour=_GREY)
        size = 8
        widths = [self.width * share
                  for share in (0.44, 0.11, 0.09, 0.12, 0.12, 0.12)]
        self.cells(["Models", "Cases solved", "Held", "Not modelled",
                    "Median error", "p90 error"], widths, size, bold=True,
                   fill="#e8eef4")
        for row, area in enumerate(found.areas + (found.total,)):
            label = "All areas" if area is found.total \
                else AREA_LABELS[area.area]
            self.cells([label, str(area.cases), str(area.held),
                        str(area.not_modelled),
                        _error_text(area.median_error_pct),
                        _error_text(area.p90_error_pct)], widths, size,
                       bold=area is found.total,
                       fill="#f6f8fa" if row % 2 else None)
        self.y += 6
        if found.goal_backing:
            self.text(f"The cases behind the goal ({summary.goal}):",
                      size=8.5, gap=1, keep=12)
            for line in found.goal_backing.splitlines():
                self.text(line.replace("+-", "±"), size=8, indent=12, gap=1)

    def assumptions_section(self, scenario, results):
        """Each assumption once: the scenario's own, those every variant
        shares, then those of some variants with their names."""
        self.heading("Assumptions")
        all_names = [v.name for v in results.variants]
        # the scenario's own first: imported values name their file and
        # column ("Measured ... from FILE, COLUMN")
        for assumption in scenario.meta.assumptions:
            self.text(f"• {assumption}", size=8.5, gap=2)
        shared, specific = results.assumptions_by_scope()
        for assumption in shared:
            self.text(f"• {assumption}", size=8.5, gap=2)
        for names, assumption in specific:
            self.text(f"• {names_text(names, all_names)}: {assumption}",
                      size=8.5, gap=2)
        self.y += 6
        self.text("Attached to this PDF: scenario.toml (the scenario as "
                  "evaluated) and results.json (every number above).",
                  size=8, colour=_GREY)

    def chart(self, draw, size, printed=None):
        """Render a chart drawn by ``draw(plot_item)`` on a canvas of
        ``size``, at full width or scaled down to ``printed`` px high,
        centred (in the dry pass only its room is taken)."""
        natural = self.width * size.height() / size.width()
        height = natural if printed is None else min(printed, natural)
        width = self.width * height / natural
        self.ensure(height)
        if not self.dry:
            self._render(draw, size, QtCore.QRectF(
                (self.width - width) / 2, self.y, width, height))
        self.y += height + 6

    def _render(self, draw, size, target):
        widget = new_plot_widget()
        widget.setFixedSize(size)
        draw(widget.getPlotItem())
        # pyqtgraph lays items out only once shown (pyqtgraph issues #8,
        # #1997); never mapped on screen, so no window flashes by
        widget.setAttribute(_Qt.WidgetAttribute.WA_DontShowOnScreen)
        widget.show()
        QtWidgets.QApplication.processEvents()
        # Export mode makes pyqtgraph draw symbols as paths instead of cached
        # pixmaps, as its own exporters do, so the chart stays vector.
        scene = widget.scene()
        options = {"antialias": True, "background": QtGui.QColor("white"),
                   "painter": self.painter, "resolutionScale": 1.0}
        exportable = [item for item in scene.items()
                      if hasattr(item, "setExportMode")]
        for item in exportable:
            item.setExportMode(True, options)
        try:
            scene.render(self.painter, target,
                         QtCore.QRectF(widget.viewport().rect()))
        finally:
            for item in exportable:
                item.setExportMode(False)
        widget.close()
        widget.deleteLater()


def _error_text(percent):
    return "–" if percent is None else f"{percent:.1f} %"


def metric_ids_info(policies, key):
    """Column header of a teaming measure: its label and unit."""
    metric_id = next(by_key[key] for _, by_key in policies if key in by_key)
    unit, label = metric_ids.info(metric_id)
    label = label.rpartition(": ")[2]
    label = label[:1].upper() + label[1:]
    return label if unit in ("", "1") else f"{label} [{unit}]"


def _first_with(values, metric_id):
    """The first variant (name) that has the metric."""
    return next(name for name, metrics in values.items()
                if metric_id in metrics)


def _goal_rows(summary, most):
    """(name, value) of the goal chart: every variant, or the best
    ``most - 1`` and the base (in variant order)."""
    values = list(summary.values)
    if len(values) <= most:
        return values
    ranked = sorted((nv for nv in values[1:] if nv[1] is not None),
                    key=lambda nv: nv[1], reverse=summary.maximise)
    keep = {values[0][0]} | {n for n, _ in ranked[:most - 1]}
    return [nv for nv in values if nv[0] in keep]


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
    others = any(v.present(results) for v in VIEWS if v.key != "wire")
    same = set(rows.same)
    out = []
    for view in VIEWS:
        if view.key == "wire" and (others or len(results.variants) > 1) \
                and not _wire_differs(results):
            continue   # one curve for every variant
        bars = [bar[0] for bar in getattr(view, "bars", ())]
        if bars and all(metric_id in same for metric_id in bars):
            continue   # equal bars in every variant say nothing
        per_variant = view.key in ("teaming", "evacuation")
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


#: Views whose charts page 1 shows, by preference.
_KEY_VIEWS = ("teaming", "evacuation", "migration", "storage", "wire",
              "transfer")


def _key_chart(sections, best, goal_metric):
    """(view key, heading, charts) for page 1: the question's main section
    (of the recommended variant where charts are per variant) without the
    bars of the goal (page 1 has them already), or None."""
    for key in _KEY_VIEWS:
        found = [(key, h, tuple(c for c, m in zip(charts, bars)
                                if m != goal_metric))
                 for k, h, charts, _, bars in sections if k == key]
        found = [entry for entry in found if entry[2]]
        if found:
            return next((entry for entry in found
                         if best and entry[1].endswith(best)), found[0])
    return None


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
