"""The PDF report's layout engine: a page cursor that flows wrapped text,
headings, labelled lines, table rows and charts down A4 pages, breaks
pages (a heading never ends one), writes each page's footer, and is drawn
twice: dry to count the pages and see how full each is, then for real.

The report's sections (:mod:`app.report.summary_page`,
:mod:`app.report.tables`, :mod:`app.report.sections`) say what goes on
the pages; :mod:`app.report.pdf` puts the document together.
"""

import datetime
import os
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from app.figures.bootstrap import FONT_FAMILY
from app.figures.charts import new_plot_widget

#: Logical resolution of the PDF [dpi]: cosmetic (1 px) chart pens come out
#: about 0.26 mm wide, as on screen (Orange's PDF exporter does the same).
RESOLUTION = 96
MARGIN_MM = 15

#: Footer height at the bottom of each page [px]: "Page n of N".
FOOTER = 22

#: Least share of its height a chart keeps when shrunk to end a page.
SHRINK = 0.75

#: A page filled less than this (of its height) is "near-empty"; pages
#: before the last never are (tests check it via ``Layout.fills``).
NEAR_EMPTY = 0.3

#: Colours of body text, muted text (captions, footers) and the accent
#: (headings, rules, table header text), and of findings by severity.
INK, GREY, ACCENT = "#000000", "#555555", "#1f3b5a"
SEVERITY_COLOURS = {"critical": "#B00020", "warning": "#B35900"}

_Qt = QtCore.Qt


def report_date():
    """When the report is made: now, or ``SOURCE_DATE_EPOCH`` when set
    (reproducible-builds.org), for byte-identical reruns."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None and epoch.isdigit():
        return datetime.datetime.fromtimestamp(int(epoch),
                                               datetime.timezone.utc)
    return datetime.datetime.now(datetime.timezone.utc)


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


class Page:
    """Page cursor: flowing text, tables and charts, page by page, with
    "Page n of N" in each page's footer.

    A report is drawn twice: first ``dry`` (charts only take their room)
    to count the pages, then for real with the count known. The sections
    draw through it: its primitives below are their whole vocabulary.
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
        self.painter.setPen(QtGui.QColor(GREY))
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

    def text(self, text, size=9.5, bold=False, colour=INK, indent=0,
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

    def line(self, text, size=9.5, bold=False, colour=INK, indent=0,
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
        self.text(text, size=12, bold=True, colour=ACCENT, gap=6)

    def subheading(self, text, colour=ACCENT, keep=30):
        self.y += 2
        self.text(text, size=10, bold=True, colour=colour, gap=3, keep=keep)

    def rule(self):
        self.painter.setPen(QtGui.QPen(QtGui.QColor(ACCENT), 1.5))
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
        self.painter.setPen(QtGui.QColor(ACCENT))
        flags = int(_Qt.TextFlag.TextWordWrap | _Qt.AlignmentFlag.AlignLeft)
        self.painter.drawText(QtCore.QRectF(0, self.y, label_width - 8,
                                            height), flags, label)
        self.painter.setFont(self.font(size))
        self.painter.setPen(QtGui.QColor(INK))
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
                                                                 INK)))
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

