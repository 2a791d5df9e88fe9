"""The comparison table: metrics as rows, variants as columns."""

import functools

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.appearance import chart_theme
from app.gui.charts import variant_colour
from app.report.content import table_rows
from solvers.metric_ids import parse as parse_metric_id
from solvers.metric_ids import repeating_headlines
from solvers.results import format_change, format_number

_Qt = QtCore.Qt
# views ask data() and headerData() ~20 times per cell and repaint:
# compare against prebuilt constants, not freshly combined enums
_DISPLAY = _Qt.ItemDataRole.DisplayRole
_ALIGNMENT = _Qt.ItemDataRole.TextAlignmentRole
_TOOLTIP = _Qt.ItemDataRole.ToolTipRole
_FOREGROUND = _Qt.ItemDataRole.ForegroundRole
_HORIZONTAL = _Qt.Orientation.Horizontal
_VERTICAL = _Qt.Orientation.Vertical
_RIGHT = int(_Qt.AlignmentFlag.AlignRight | _Qt.AlignmentFlag.AlignVCenter)
_ROOT = QtCore.QModelIndex()


#: Units of metrics that count things (shown without decimals when whole).
_COUNT_UNITS = ("1", "cores")


def _is_flag(metric):
    return metric.id.rsplit(".", 1)[-1] == "converged"


def shown_value(metric):
    """A metric's value as a person reads it: yes/no for a flag, whole
    counts without decimals, else the shared number format."""
    if _is_flag(metric):
        return "yes" if metric.value else "no"
    if metric.unit in _COUNT_UNITS and float(metric.value).is_integer():
        return f"{int(metric.value):,}"
    return format_number(metric.value)


#: Relative differences below this are float noise, not a change.
_SAME = 1e-9


def _change(metric, base):
    """metric - base, or None when equal (float noise included), not
    comparable or a flag."""
    if base is None or metric is base or _is_flag(metric):
        return None
    if not format_change(base.value, metric.value, metric.unit):
        return None
    return metric.value - base.value


def delta_text(metric, base):
    """The change of a variant's metric against the base's, absolute and
    relative ("+0.4856, +5.158 %"; a percentage in points: "+9.3 pp");
    '' when there is none."""
    change = _change(metric, base)
    if change is None:
        return ""
    sign = "+" if change > 0 else "\u2212"
    relative = format_change(base.value, metric.value, metric.unit)
    if metric.unit == "%" or base.value == 0:
        return relative
    return f"{sign}{format_number(abs(change))}, {relative}"


def _cell_text(metric, base):
    """The value, and its change against the base (one decimal: the cell
    stays narrow; the tooltip has both forms); a change that rounds to
    0.0 is not shown."""
    if metric is None:
        return "\u2013"
    shown = shown_value(metric)
    if _change(metric, base) is None:
        return shown
    change = format_change(base.value, metric.value, metric.unit,
                           digits=1)
    if change.lstrip("+\u2212").startswith("0.0 "):
        return shown
    return f"{shown} ({change})"


def row_label(metric):
    """Row header: the label and its unit (none for flags)."""
    if _is_flag(metric):
        return metric.label.removesuffix(" (1 yes, 0 no)")
    return f"{metric.label} [{metric.unit}]"


@functools.lru_cache(maxsize=None)
def _variant_brush(index, theme):
    # asked for at every repaint of the header: made once per colour
    return QtGui.QBrush(QtGui.QColor(variant_colour(index, theme)))


def _family_and_key(metric_id):
    try:
        parsed = parse_metric_id(metric_id)
    except ValueError:
        return None
    return parsed.family, parsed.key


def relevant_rows(results, pinned=()):
    """The rows worth reading and all rows, in table order (the goal's
    first): those whose
    value differs between the variants (all, with a single variant),
    without noise-level gains (:func:`app.report.content.table_rows`,
    as the report); always the convergence flags and the ``pinned``
    metrics (the goal's) of every item and policy: each workload's IOPS,
    each policy's peak (seed 000's variants differ only in which policy
    is configured)."""
    rows = table_rows(results)
    every = set(rows.compared + rows.same + rows.noise)
    kept = {_family_and_key(i) for i in pinned}
    # the goal's rows first, as in the report: the answer, then its causes
    every = sorted((i for i in results.metric_ids(
                        headlines=repeating_headlines())
                    if i in every),
                   key=lambda i: _family_and_key(i) not in kept)
    compared = set(rows.compared)
    return [i for i in every if i in compared or i.endswith(".converged")
            or _family_and_key(i) in kept], every


class ComparisonModel(QtCore.QAbstractTableModel):
    """Read-only table model over a ``Results``: the relevant rows
    (:func:`relevant_rows`), or all of them with ``all_rows``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.all_rows = False
        self.pinned = ()    # metric ids shown even when equal (the goal's)
        self.hidden_rows = 0
        self._every = None  # every row of the results shown
        self._results = None
        self._metric_ids = []
        self._cells = []    # [row][column] -> Metric or None
        self._display = []  # [row][column] -> formatted value
        self._labels = []   # row header text

    def set_results(self, results):
        """Show ``results``: cells update in place when the rows and
        columns stay (``dataChanged`` over the cells whose text changed,
        ``headerDataChanged`` only when a row's label did), the model
        resets when they do not.

        Returns
        -------
        bool
            True when the model was reset.
        """
        metric_ids = self._shown_rows(results)
        names = [v.name for v in results.variants] if results else []
        in_place = self._results is not None and results is not None and \
            metric_ids == self._metric_ids and \
            names == [v.name for v in self._results.variants]
        if not in_place:
            self.beginResetModel()
        old_display, old_labels = self._display, self._labels
        self._results = results
        self._metric_ids = metric_ids
        # looked up once here: views ask for every cell on each repaint
        by_variant = [{m.id: m for m in v.metrics}
                      for v in (results.variants if results else ())]
        self._cells = [[metrics.get(i) for metrics in by_variant]
                       for i in self._metric_ids]
        self._display = [[_cell_text(m, row[0]) for m in row]
                         for row in self._cells]
        self._labels = []
        for row in self._cells:
            first = next(m for m in row if m is not None)
            self._labels.append(row_label(first))
        if not in_place:
            self.endResetModel()
            return True
        changed = [(r, c) for r, (old, new) in enumerate(
            zip(old_display, self._display))
            for c, (a, b) in enumerate(zip(old, new)) if a != b]
        if changed:
            # tooltips may change with a value: one signal over the
            # changed cells' span, not one per cell
            rows, columns = zip(*changed)
            self.dataChanged.emit(self.index(min(rows), min(columns)),
                                  self.index(max(rows), max(columns)))
        relabelled = [r for r, (a, b) in enumerate(zip(old_labels,
                                                       self._labels))
                      if a != b]
        if relabelled:
            # the header re-measures every section on this signal
            self.headerDataChanged.emit(_VERTICAL, min(relabelled),
                                        max(relabelled))
        return False

    def text_widths(self, advance):
        """Per column, the width of its widest cell text by
        ``advance(text)`` (a font's ``horizontalAdvance``): a view resizes
        a column only when that width changed, as measuring every cell
        the way ``resizeColumnsToContents`` does takes longer than
        drawing the new values."""
        return [max((advance(row[c]) for row in self._display), default=0)
                for c in range(self.columnCount())]

    def _shown_rows(self, results):
        if results is None:
            self.hidden_rows = 0
            return []
        relevant, every = relevant_rows(results, self.pinned)
        if self.all_rows:
            shown = every
        else:
            relevant = set(relevant)
            # edits of the same document keep the rows shown so far: the
            # table does not jump while the user types (rows that start
            # to differ join)
            if self._results is not None and \
                    self._every == every and self._names(results) == \
                    self._names(self._results):
                relevant.update(self._metric_ids)
            shown = [i for i in every if i in relevant]
        self._every = every
        self.hidden_rows = len(every) - len(shown)
        return shown

    @staticmethod
    def _names(results):
        return [v.name for v in results.variants]

    def show_all_rows(self, on):
        """Every row, or only the relevant ones."""
        self.all_rows = bool(on)
        self._every = None   # chosen afresh
        if self._results is not None:
            self.set_results(self._results)

    def rowCount(self, parent=_ROOT):
        return 0 if parent.isValid() else len(self._metric_ids)

    def columnCount(self, parent=_ROOT):
        if parent.isValid() or self._results is None:
            return 0
        return len(self._results.variants)

    def data(self, index, role=_DISPLAY):
        if role == _DISPLAY:
            return self._display[index.row()][index.column()]
        if role == _ALIGNMENT:
            return _RIGHT
        metric = self._cells[index.row()][index.column()]
        if role == _TOOLTIP and metric is not None:
            delta = delta_text(metric, self._cells[index.row()][0])
            against = f"\nagainst the base: {delta}" if delta else ""
            return f"{row_label(metric)}: {shown_value(metric)}{against}" \
                   f"\nid: {metric.id}\n{backing_text(metric.id)}"
        return None

    def headerData(self, section, orientation, role=_DISPLAY):
        if self._results is None:
            return None
        if orientation == _HORIZONTAL:
            if role == _DISPLAY or role == _TOOLTIP:
                return self._results.variants[section].name
            if role == _FOREGROUND:
                return _variant_brush(section, chart_theme())
            return None
        if role == _DISPLAY:
            return self._labels[section]
        if role == _TOOLTIP:   # the whole name, when elided
            metric_id = self._metric_ids[section]
            return f"{self._labels[section]}\nid: {metric_id}\n" \
                   f"{backing_text(metric_id)}"
        return None


#: Share of the table's width the row names may take; longer names are
#: elided (whole in their tooltip), so the variants' columns stay in view.
ROW_NAMES_SHARE = 0.4

#: Widest a variant's column grows [characters]: a value with its change
#: ("3,250,975 (+12.5 %)"); a longer variant name is elided in the header
#: and whole in its tooltip.
COLUMN_CHARACTERS = 20


class ComparisonView(QtWidgets.QTableView):
    """The comparison table, fitted to its width: row names take at most
    :data:`ROW_NAMES_SHARE` of it, each column at most
    :data:`COLUMN_CHARACTERS`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        # long row and variant names wrap onto more lines, never elided
        # (issue 37: "the comparison table cuts the fourth column")
        for header, alignment in (
                (self.verticalHeader(),
                 _Qt.AlignmentFlag.AlignLeft | _Qt.AlignmentFlag.AlignVCenter),
                (self.horizontalHeader(), _Qt.AlignmentFlag.AlignCenter)):
            header.setTextElideMode(_Qt.TextElideMode.ElideNone)
            header.setDefaultAlignment(alignment | _Qt.TextFlag.TextWordWrap)

    def resizeEvent(self, event):
        self._fit_row_names()
        super().resizeEvent(event)

    def resizeColumnsToContents(self):
        """Columns as wide as their contents, up to the most."""
        super().resizeColumnsToContents()
        widest = self.fontMetrics().horizontalAdvance("0" *
                                                      COLUMN_CHARACTERS)
        for column in range(self.model().columnCount()):
            if self.columnWidth(column) > widest:
                self.setColumnWidth(column, widest)
        self._fit_row_names()

    def _fit_row_names(self):
        # the room the columns leave, and at least the share
        columns = sum(self.columnWidth(c)
                      for c in range(self.model().columnCount())) \
            if self.model() is not None else 0
        room = self.width() - columns - 2 * self.frameWidth() - \
            self.verticalScrollBar().sizeHint().width()
        self.verticalHeader().setMaximumWidth(max(
            self.fontMetrics().averageCharWidth() * 16,
            int(self.width() * ROW_NAMES_SHARE), room))
        self._fit_name_lines()
        self.updateGeometries()

    def _fit_name_lines(self):
        """Each row as tall as its name's wrapped lines, the variants'
        header as tall as its longest name's."""
        model = self.model()
        if model is None:
            return
        rows, columns = self.verticalHeader(), self.horizontalHeader()
        margin = 2 * self.style().pixelMetric(
            QtWidgets.QStyle.PixelMetric.PM_HeaderMargin, None, rows)
        width = min(rows.maximumWidth(), rows.sizeHint().width()) - margin

        def lines_height(header, section, room):
            text = str(model.headerData(section, header.orientation(),
                                        _DISPLAY) or "")
            return header.fontMetrics().boundingRect(
                QtCore.QRect(0, 0, max(room, 1), 100000),
                int(_Qt.TextFlag.TextWordWrap), text).height() + margin

        one_line = rows.defaultSectionSize()
        for row in range(model.rowCount()):
            height = max(one_line, lines_height(rows, row, width))
            if rows.sectionSize(row) != height:
                rows.resizeSection(row, height)
        columns.setMinimumHeight(max(
            [columns.fontMetrics().height() + margin] +
            [lines_height(columns, c, self.columnWidth(c) - margin)
             for c in range(model.columnCount())]))


def backing_text(metric_id):
    """Which validated cases back the model a metric comes from (the
    validation set is read once, on the first tooltip, and its module
    imported then: start-up does without it)."""
    from app.validation_io import ValidationDataError, provenance_index
    try:
        return provenance_index()(metric_id).text()
    except ValidationDataError as err:
        return f"Validation set unreadable: {err}"
