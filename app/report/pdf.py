"""The PDF comparison report, drawn with QPainter into QPdfWriter.

Text and tables are painted directly; the charts are the sections of the
GUI's analysis views (:mod:`app.gui.views`), each rendered from its
pyqtgraph scene, so they stay vector graphics.
The scenario (as TOML) and the results (as JSON) are attached to the PDF so
the report can be regenerated from itself.
"""

import datetime
import hashlib
import json
import os
import re
import uuid

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.bootstrap import FONT_FAMILY, application
from app.gui.charts import new_plot_widget, variant_colour
from app.gui.findings import effect_text, evidence_text
from app.gui.views import REPORT_CHART_WIDTH, VIEWS, ReportChart
from app.report.summary import executive_summary
from app.scenario_io import atomic_write
from models.scenario import dump_scenario
from solvers.results import NOISE_GAIN_PCT, format_number, noise_rows

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
        A sweep shown in the app: its heading and ``draw(plot_item)``.
    checks : sequence of (dict, list of dict)
        Imported migration measurements (``ImportResult.checks``) with
        their :func:`app.importers.migration.predicted_vs_measured` rows,
        printed as "predicted vs measured" tables.

    Raises
    ------
    OSError
        The file cannot be written; an existing file is left as it was.
    ReportTooLarge
        More variants than a report shows.
    """
    check_report_size(scenario)
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
    writer.addFileAttachment("scenario.toml",
                             dump_scenario(scenario, "toml").encode(),
                             "application/toml")
    writer.addFileAttachment("results.json", results.to_json().encode(),
                             "application/json")
    painter = QtGui.QPainter(writer)
    try:
        report = _Report(painter, writer, scenario.meta.name)
        report.draw(scenario, results, advice, sweep_chart, checks)
        report.footer()
    finally:
        painter.end()
    buffer.close()
    atomic_write(path, _dated(bytes(buffer.data())))


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


#: Footer height at the bottom of each page [px]: the page number.
FOOTER = 22

#: Variant changes listed per variant in the scenario section; the rest
#: are counted (the full list is in the attached scenario.toml).
CHANGES_LISTED = 3

#: Severities in the order the findings are listed.
SEVERITY_ORDER = ("critical", "warning", "info")


def grouped_findings(results):
    """Findings by severity, each message once with the variants that
    have it: ``[(severity, [(message, evidence, names)])]``."""
    groups = {}
    for variant in results.variants:
        for finding in variant.findings:
            entry = groups.setdefault(finding.severity, {}).setdefault(
                finding.message, [finding, []])
            entry[1].append(variant.name)
    order = [s for s in SEVERITY_ORDER if s in groups] + \
        [s for s in groups if s not in SEVERITY_ORDER]
    return [(severity, [(message, finding, names) for message,
                        (finding, names) in groups[severity].items()])
            for severity in order]


class _Report:
    """Page cursor: flowing text, tables and the chart, page by page, with
    the page number in each page's footer."""

    def __init__(self, painter, writer, name):
        self.painter, self.writer, self.name = painter, writer, name
        self.page = writer.pageLayout().paintRectPixels(RESOLUTION)
        self.width = self.page.width()
        self.bottom = self.page.height() - FOOTER
        self.y = 0.0
        self.page_number = 1

    # -- primitives --------------------------------------------------------

    def font(self, size, bold=False):
        font = QtGui.QFont(FONT_FAMILY)
        font.setPointSizeF(size)
        font.setBold(bold)
        return font

    def footer(self):
        """The page number and the report's name at the page's foot."""
        self.painter.setFont(self.font(7.5))
        self.painter.setPen(QtGui.QColor("#555555"))
        box = QtCore.QRectF(0, self.page.height() - FOOTER + 6, self.width,
                            FOOTER - 6)
        self.painter.drawText(box, int(_Qt.AlignmentFlag.AlignLeft),
                              f"Linkplan report: {self.name}")
        self.painter.drawText(box, int(_Qt.AlignmentFlag.AlignRight),
                              f"Page {self.page_number}")

    def new_page(self):
        self.footer()
        self.writer.newPage()
        self.page_number += 1
        self.y = 0.0

    def ensure(self, height):
        if self.y + height > self.bottom and self.y > 0:
            self.new_page()

    def measure(self, text, size=9.5, bold=False, indent=0):
        """Height of wrapped text [px]."""
        self.painter.setFont(self.font(size, bold))
        flags = int(_Qt.TextFlag.TextWordWrap | _Qt.AlignmentFlag.AlignLeft)
        box = QtCore.QRectF(indent, 0, self.width - indent, 10_000)
        return self.painter.boundingRect(box, flags, text).height()

    def text(self, text, size=9.5, bold=False, colour="#000000", indent=0,
             gap=4):
        height = self.measure(text, size, bold, indent)
        self.ensure(height)
        self.painter.setFont(self.font(size, bold))
        self.painter.setPen(QtGui.QColor(colour))
        flags = int(_Qt.TextFlag.TextWordWrap | _Qt.AlignmentFlag.AlignLeft)
        self.painter.drawText(QtCore.QRectF(indent, self.y,
                                            self.width - indent, height),
                              flags, text)
        self.y += height + gap

    def heading(self, text, keep=60):
        """A section heading, on the page of the ``keep`` px that follow
        it (never orphaned at a page's foot)."""
        self.ensure(14 + self.measure(text, 12, True) + keep)
        self.y += 8
        self.text(text, size=12, bold=True, colour="#1f3b5a", gap=6)

    def rule(self):
        self.painter.setPen(QtGui.QPen(QtGui.QColor("#1f3b5a"), 1.5))
        self.painter.drawLine(QtCore.QPointF(0, self.y),
                              QtCore.QPointF(self.width, self.y))
        self.y += 8

    def labelled(self, label, text, size=10):
        """``label`` in bold, then its text, wrapped beside it."""
        label_width = 130
        height = max(self.measure(text, size, indent=label_width),
                     self.measure(label, size, True))
        self.ensure(height)
        self.painter.setFont(self.font(size, True))
        self.painter.setPen(QtGui.QColor("#1f3b5a"))
        flags = int(_Qt.TextFlag.TextWordWrap | _Qt.AlignmentFlag.AlignLeft)
        self.painter.drawText(QtCore.QRectF(0, self.y, label_width - 8,
                                            height), flags, label)
        self.painter.setFont(self.font(size))
        self.painter.setPen(QtGui.QColor("#000000"))
        self.painter.drawText(QtCore.QRectF(label_width, self.y,
                                            self.width - label_width,
                                            height), flags, text)
        self.y += height + 8

    # -- sections ----------------------------------------------------------

    def draw(self, scenario, results, advice, sweep_chart=None, checks=()):
        self.summary_page(scenario, results, advice)
        self.new_page()
        self.scenario_section(scenario)
        self.heading("Comparison (change against the base in brackets)",
                     keep=120)
        self.table(results)
        self.heading("Binding limit")
        for variant in results.variants:
            self.text(f"{variant.name}: {variant.bottleneck.message}", gap=2)
        for view in VIEWS:
            for section in view.report_sections(results):
                self.chart_section(section.heading, section.charts,
                                   section.caption)
        if sweep_chart is not None:
            heading, draw = sweep_chart
            self.chart_section(heading, (ReportChart(draw, 380),))
        self.findings_section(results)
        if advice is not None:
            self.advice_section(advice)
        for check, rows in checks:
            self.check_section(check, rows)
        self.assumptions_section(scenario, results)

    def summary_page(self, scenario, results, advice):
        """Page 1: the question, the recommended choice, its margin and
        the binding limit."""
        summary = executive_summary(scenario, results, advice)
        self.text("Linkplan comparison report · executive summary",
                  size=10, colour="#555555", gap=2)
        self.text(scenario.meta.name, size=17, bold=True, gap=4)
        self.text(f"Linkplan {results.linkplan_version} · "
                  f"{report_date().date().isoformat()} · scenario SHA-256 "
                  f"{results.scenario_sha256[:16]}…", size=8,
                  colour="#555555")
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
            self.y += 6
            unit = {"1": "", "": ""}.get(summary.unit, f" [{summary.unit}]")
            self.text(f"{summary.goal}{unit}, every variant:", bold=True,
                      gap=2)
            base = summary.values[0][1]
            for name, value in summary.values:
                shown = "no value" if value is None else format_number(value)
                if value is not None and base and name != \
                        summary.values[0][0] and \
                        abs(value / base - 1) >= 5e-4:
                    shown += f" ({100 * (value / base - 1):+.1f} %)"
                marker = "  ◀ recommended" if name == summary.best else ""
                self.text(f"{name}: {shown}{marker}", indent=12, gap=1,
                          bold=name == summary.best)
        counts = {severity: len(items)
                  for severity, items in grouped_findings(results)}
        if counts:
            self.y += 6
            self.text("Findings: " + ", ".join(
                f"{count} {severity}" for severity, count in counts.items())
                + " (listed with their evidence further on)", gap=2)

    def scenario_section(self, scenario):
        self.heading("Scenario")
        host, network = scenario.host, scenario.network
        nics = ", ".join(f"{n.id} {n.speed_gbps:g} Gbit/s"
                         for n in scenario.nics)
        for line in (
                f"Host: {host.hypervisor}, {host.sockets} × "
                f"{host.cores_per_socket} cores at {host.ghz:g} GHz",
                f"NICs: {nics}",
                f"Network: IP MTU {network.mtu} B, IPv{network.ip_version}, "
                f"{network.vlan_tags} VLAN tag(s), TCP timestamps "
                f"{'on' if network.tcp_timestamps else 'off'}, overlay "
                f"{network.encapsulation}"):
            self.text(line, gap=2)
        if scenario.variants:
            self.y += 4
            self.text("Variants (changes to the base):", bold=True, gap=2)
        for variant in scenario.variants:
            self.text(f"{variant.name}: {describe_briefly(variant)}",
                      size=8.5, indent=12, gap=2)

    def chart_section(self, heading, charts, caption=""):
        first = charts[0].height * self.width / REPORT_CHART_WIDTH
        self.heading(heading, keep=first)
        for chart in charts:
            self.chart(chart.draw, QtCore.QSize(REPORT_CHART_WIDTH,
                                                chart.height))
        if caption:
            self.text(caption, size=8, colour="#555555")

    def findings_section(self, results):
        groups = grouped_findings(results)
        if not groups:
            return
        self.heading("Findings")
        all_names = len(results.variants)
        for severity, items in groups:
            self.text(f"{severity.capitalize()} ({len(items)})", bold=True,
                      colour={"critical": "#B00020",
                              "warning": "#B35900"}.get(severity,
                                                        "#1f5a8a"), gap=2)
            for message, finding, names in items:
                where = "all variants" if len(names) == all_names \
                    else ", ".join(names)
                self.text(f"{message} ({where})", indent=12, gap=1)
                evidence = evidence_text(finding.evidence)
                if evidence:
                    self.text(f"Evidence: {evidence}", size=8,
                              colour="#555555", indent=24, gap=3)

    def advice_section(self, advice):
        self.heading("Recommended changes (base scenario)")
        self.text(f"Goal {advice.goal}: {advice.metric} = "
                  f"{format_number(advice.base_value)} now. Each effect is "
                  "the model re-solved with the change.", gap=4)
        if not advice.recommendations:
            self.text("No change improves the goal.")
        for rank, r in enumerate(advice.recommendations, 1):
            self.text(f"{rank}. {r.message}", gap=1)
            for line in effect_text(r):
                self.text(line, size=8.5, indent=16, gap=1)
            self.y += 3

    def check_section(self, check, rows):
        """Predicted vs measured for an imported, completed migration."""
        self.heading(f"Predicted vs measured: migration "
                     f"{check['migration']}", keep=100)
        self.text(f"Measured: {check['source']}", size=8, colour="#555555")
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

    def assumptions_section(self, scenario, results):
        self.heading("Assumptions")
        # the scenario's own first: imported values name their file and
        # column ("Measured ... from FILE, COLUMN")
        for assumption in scenario.meta.assumptions:
            self.text(f"• {assumption}", gap=2)
        shared, specific = results.assumptions_by_scope()
        for assumption in shared:
            self.text(f"• {assumption}", gap=2)
        for names, assumption in specific:
            self.text(f"• {', '.join(names)}: {assumption}", gap=2)
        self.y += 8
        self.text("Attached to this PDF: scenario.toml (the scenario as "
                  "evaluated) and results.json (every number above).",
                  size=8, colour="#555555")

    def table(self, results):
        """Metrics as rows, variants as columns, each value with its change
        against the base; variant names wrap in the header; continues on
        new pages with the header repeated."""
        metric_ids = results.metric_ids(unique_rows=True)
        noisy = set(noise_rows(results, metric_ids))
        metric_ids = [m for m in metric_ids if m not in noisy]
        columns = len(results.variants)
        size = 8.5 if columns <= 4 else 7 if columns <= 7 else 6.2
        labels = {}
        for metric_id in metric_ids:
            first = next(v.metric(metric_id) for v in results.variants
                         if metric_id in {m.id for m in v.metrics})
            labels[metric_id] = f"{first.label} [{first.unit}]"
        metrics = QtGui.QFontMetricsF(self.font(size), self.writer)
        widest = max(metrics.horizontalAdvance(t) for t in labels.values())
        label_width = min(widest + 16, self.width * (0.45 if columns <= 4
                                                     else 0.3))
        column_width = (self.width - label_width) / columns
        # the change against the base beside the value where it fits,
        # else on a second line
        one_line = column_width > metrics.horizontalAdvance(
            "1,234,567 (+100.0 %)") + 8
        row_height = (1 if one_line else 2) * metrics.lineSpacing() + 8
        flags_right = int(_Qt.AlignmentFlag.AlignRight
                          | _Qt.AlignmentFlag.AlignVCenter
                          | _Qt.TextFlag.TextWordWrap)
        flags_left = int(_Qt.AlignmentFlag.AlignLeft
                         | _Qt.AlignmentFlag.AlignVCenter
                         | _Qt.TextFlag.TextWordWrap)
        bold = QtGui.QFontMetricsF(self.font(size, bold=True), self.writer)

        def name_flags(name):
            # whole words on their own lines; a word wider than the column
            # (rare) breaks anywhere rather than being clipped
            widest_word = max(bold.horizontalAdvance(w)
                              for w in name.split() or [""])
            return flags_right | (int(_Qt.TextFlag.TextWrapAnywhere)
                                  if widest_word > column_width - 4 else 0)
        header_height = 8 + max(
            bold.boundingRect(QtCore.QRectF(0, 0, column_width - 4, 1000),
                              name_flags(v.name), v.name).height()
            for v in results.variants)
        base = results.variants[0]

        def header():
            self.ensure(header_height + 3 * row_height)
            self.painter.setFont(self.font(size, bold=True))
            self.painter.fillRect(QtCore.QRectF(0, self.y, self.width,
                                                header_height),
                                  QtGui.QColor("#e8eef4"))
            self.painter.setPen(QtGui.QColor("#000000"))
            self.painter.drawText(QtCore.QRectF(4, self.y, label_width,
                                                header_height),
                                  flags_left, "Metric [unit]")
            for index, variant in enumerate(results.variants):
                self.painter.setPen(QtGui.QColor(variant_colour(index)))
                self.painter.drawText(
                    QtCore.QRectF(label_width + index * column_width,
                                  self.y + 4, column_width - 4,
                                  header_height - 8),
                    name_flags(variant.name), variant.name)
            self.y += header_height
            self.painter.setFont(self.font(size))

        header()
        for row, metric_id in enumerate(metric_ids):
            if self.y + row_height > self.bottom:
                self.new_page()
                header()
            if row % 2:
                self.painter.fillRect(QtCore.QRectF(0, self.y, self.width,
                                                    row_height),
                                      QtGui.QColor("#f6f8fa"))
            self.painter.setPen(QtGui.QColor("#000000"))
            self.painter.drawText(
                QtCore.QRectF(4, self.y, label_width - 4, row_height),
                flags_left, labels[metric_id])
            try:
                reference = base.metric(metric_id).value
            except KeyError:
                reference = None
            for index, variant in enumerate(results.variants):
                try:
                    number = variant.metric(metric_id).value
                    value = format_number(number)
                except KeyError:
                    number, value = None, "–"
                if index and number is not None and reference and \
                        abs(number / reference - 1) >= 5e-4:
                    value += (" " if one_line else "\n") + \
                        f"({100 * (number / reference - 1):+.1f} %)"
                self.painter.drawText(
                    QtCore.QRectF(label_width + index * column_width,
                                  self.y, column_width - 4, row_height),
                    flags_right, value)
            self.y += row_height
        self.painter.setPen(QtGui.QPen(QtGui.QColor("#1f3b5a"), 1))
        self.painter.drawLine(QtCore.QPointF(0, self.y),
                              QtCore.QPointF(self.width, self.y))
        self.y += 6
        if noisy:
            self.text("Left out: " + ", ".join(sorted(labels_of(
                results, noisy))) + f" (below {NOISE_GAIN_PCT:g} % in "
                "every variant).", size=7.5, colour="#555555")

    def chart(self, draw, size):
        """Render a chart drawn by ``draw(plot_item)`` at full width."""
        widget = new_plot_widget()
        widget.setFixedSize(size)
        draw(widget.getPlotItem())
        # pyqtgraph lays items out only once shown (pyqtgraph issues #8,
        # #1997); never mapped on screen, so no window flashes by
        widget.setAttribute(_Qt.WidgetAttribute.WA_DontShowOnScreen)
        widget.show()
        QtWidgets.QApplication.processEvents()
        height = self.width * size.height() / size.width()
        self.ensure(height)
        target = QtCore.QRectF(0, self.y, self.width, height)
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
        self.y += height + 6


def labels_of(results, metric_ids):
    """The labels of some metrics (the first variant that has each)."""
    found = {}
    for variant in results.variants:
        for metric in variant.metrics:
            if metric.id in metric_ids:
                found.setdefault(metric.id, metric.label)
    return found.values()


def describe_briefly(variant):
    """A variant's changes, the first :data:`CHANGES_LISTED` of them."""
    changes = list(variant.set.items())
    text = ", ".join(f"{path} = {_shortened(json.dumps(value, ensure_ascii=False))}"
                     for path, value in changes[:CHANGES_LISTED])
    if len(changes) > CHANGES_LISTED:
        text += f" … and {len(changes) - CHANGES_LISTED} more"
    return text or "no change"


def _shortened(text, most=60):
    """Long values (a whole list of flows) cut to ``most`` characters."""
    return text if len(text) <= most else text[:most - 1] + "…"
