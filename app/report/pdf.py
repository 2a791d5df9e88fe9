"""The PDF comparison report, drawn with QPainter into QPdfWriter.

Text and tables are painted directly; the charts are the sections of the
GUI's analysis views (:mod:`app.gui.views`), each rendered from its
pyqtgraph scene, so they stay vector graphics.
The scenario (as TOML) and the results (as JSON) are attached to the PDF so
the report can be regenerated from itself.
"""

import datetime
import hashlib
import os
import re
import uuid

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.bootstrap import FONT_FAMILY, application
from app.gui.charts import new_plot_widget, variant_colour
from app.gui.views import REPORT_CHART_WIDTH, VIEWS
from app.scenario_io import atomic_write
from models.scenario import dump_scenario
from solvers.results import format_number

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


def write_report(scenario, results, path, advice=None):
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
        _Report(painter, writer).draw(scenario, results, advice)
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


class _Report:
    """Page cursor: flowing text, tables and the chart, page by page."""

    def __init__(self, painter, writer):
        self.painter, self.writer = painter, writer
        self.page = writer.pageLayout().paintRectPixels(RESOLUTION)
        self.width = self.page.width()
        self.y = 0.0

    # -- primitives --------------------------------------------------------

    def font(self, size, bold=False):
        font = QtGui.QFont(FONT_FAMILY)
        font.setPointSizeF(size)
        font.setBold(bold)
        return font

    def new_page(self):
        self.writer.newPage()
        self.y = 0.0

    def ensure(self, height):
        if self.y + height > self.page.height():
            self.new_page()

    def text(self, text, size=9.5, bold=False, colour="#000000", indent=0,
             gap=4):
        self.painter.setFont(self.font(size, bold))
        self.painter.setPen(QtGui.QColor(colour))
        flags = int(_Qt.TextFlag.TextWordWrap | _Qt.AlignmentFlag.AlignLeft)
        box = QtCore.QRectF(indent, 0, self.width - indent, 10_000)
        height = self.painter.boundingRect(box, flags, text).height()
        self.ensure(height)
        self.painter.drawText(QtCore.QRectF(indent, self.y,
                                            self.width - indent, height),
                              flags, text)
        self.y += height + gap

    def heading(self, text):
        self.ensure(60)
        self.y += 8
        self.text(text, size=12, bold=True, colour="#1f3b5a", gap=6)

    def rule(self):
        self.painter.setPen(QtGui.QPen(QtGui.QColor("#1f3b5a"), 1.5))
        self.painter.drawLine(QtCore.QPointF(0, self.y),
                              QtCore.QPointF(self.width, self.y))
        self.y += 8

    # -- sections ----------------------------------------------------------

    def draw(self, scenario, results, advice):
        self.text("Linkplan comparison report", size=10, colour="#555555",
                  gap=2)
        self.text(scenario.meta.name, size=17, bold=True, gap=4)
        self.text(f"Linkplan {results.linkplan_version} · "
                  f"{report_date().date().isoformat()} · scenario SHA-256 "
                  f"{results.scenario_sha256[:16]}…", size=8,
                  colour="#555555")
        self.rule()
        if scenario.meta.description:
            self.text(scenario.meta.description)
        for objective in scenario.meta.objectives:
            self.text(f"Objective: {objective}", indent=0)

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
        self.y += 4
        self.text("Variants (changes to the base):", bold=True, gap=2)
        for variant in scenario.variants:
            self.text(f"{variant.name}: {variant.describe()}", indent=12,
                      gap=2)

        self.heading("Comparison")
        self.table(results)

        self.heading("Binding limit")
        for variant in results.variants:
            self.text(f"{variant.name}: {variant.bottleneck.message}", gap=2)

        self.new_page()
        for view in VIEWS:
            for section in view.report_sections(results):
                self.heading(section.heading)
                for chart in section.charts:
                    self.chart(chart.draw, QtCore.QSize(REPORT_CHART_WIDTH,
                                                        chart.height))
                if section.caption:
                    self.text(section.caption, size=8, colour="#555555")

        if advice is not None:
            self.heading("Recommended changes (base scenario)")
            self.text(f"Goal {advice.goal}: {advice.metric} = "
                      f"{advice.base_value:.4g} now. Each effect is the "
                      "model re-solved with the change.", gap=4)
            if not advice.recommendations:
                self.text("No change improves the goal.")
            for rank, r in enumerate(advice.recommendations, 1):
                self.text(f"{rank}. {r.message}", gap=3)

        findings = [(v.name, f) for v in results.variants
                    for f in v.findings]
        if findings:
            self.heading("Findings")
            for name, finding in findings:
                self.text(f"{name} · {finding.severity}: {finding.message}")

        self.heading("Assumptions")
        # the scenario's own (imported values name their file and column)
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
        """Metrics as rows, variants as columns; continues on new pages
        with the header repeated."""
        metric_ids = results.metric_ids(unique_rows=True)
        columns = len(results.variants)
        size = 8.5 if columns <= 5 else 7
        row_height = 20
        labels = {}
        for metric_id in metric_ids:
            first = next(v.metric(metric_id) for v in results.variants
                         if metric_id in {m.id for m in v.metrics})
            labels[metric_id] = f"{first.label} [{first.unit}]"
        metrics = QtGui.QFontMetricsF(self.font(size), self.writer)
        widest = max(metrics.horizontalAdvance(t) for t in labels.values())
        label_width = min(widest + 16, self.width * 0.55)
        column_width = (self.width - label_width) / columns
        header_height = 2 * row_height
        flags_right = int(_Qt.AlignmentFlag.AlignRight
                          | _Qt.AlignmentFlag.AlignVCenter
                          | _Qt.TextFlag.TextWordWrap)
        flags_left = int(_Qt.AlignmentFlag.AlignLeft
                         | _Qt.AlignmentFlag.AlignVCenter)

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
                    QtCore.QRectF(label_width + index * column_width, self.y,
                                  column_width - 4, header_height),
                    flags_right, variant.name)
            self.y += header_height
            self.painter.setFont(self.font(size))

        header()
        for row, metric_id in enumerate(metric_ids):
            if self.y + row_height > self.page.height():
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
            for index, variant in enumerate(results.variants):
                try:
                    value = format_number(variant.metric(metric_id).value)
                except KeyError:
                    value = "–"
                self.painter.drawText(
                    QtCore.QRectF(label_width + index * column_width,
                                  self.y, column_width - 4, row_height),
                    flags_right, value)
            self.y += row_height
        self.painter.setPen(QtGui.QPen(QtGui.QColor("#1f3b5a"), 1))
        self.painter.drawLine(QtCore.QPointF(0, self.y),
                              QtCore.QPointF(self.width, self.y))
        self.y += 6

    def chart(self, draw, size):
        """Render a chart drawn by ``draw(plot_item)`` at full width."""
        widget = new_plot_widget()
        widget.setFixedSize(size)
        draw(widget.getPlotItem())
        # pyqtgraph lays items out only once shown (pyqtgraph issues #8,
        # #1997); offscreen, showing costs nothing.
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
