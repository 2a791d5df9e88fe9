"""The comparison table: metrics as rows, variants as columns."""

import functools

from PySide6 import QtCore, QtGui

from app.gui.charts import variant_colour
from solvers.results import format_number

_Qt = QtCore.Qt
# views ask data() ~20 times per cell and repaint: compare against
# prebuilt constants, not freshly combined enums
_DISPLAY = _Qt.ItemDataRole.DisplayRole
_ALIGNMENT = _Qt.ItemDataRole.TextAlignmentRole
_TOOLTIP = _Qt.ItemDataRole.ToolTipRole
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
    """metric - base, or None when equal, not comparable or a flag."""
    if base is None or metric is base or _is_flag(metric):
        return None
    change = metric.value - base.value
    if abs(change) <= _SAME * max(abs(metric.value), abs(base.value)):
        return None
    return change


def delta_text(metric, base):
    """The change of a variant's metric against the base's, absolute and
    in per cent ("+0.4856, +5.158 %"); '' when there is none."""
    change = _change(metric, base)
    if change is None:
        return ""
    sign = "+" if change > 0 else "−"
    text = f"{sign}{format_number(abs(change))}"
    if base.value != 0:
        text += f", {sign}{format_number(abs(change / base.value) * 100)} %"
    return text


def _cell_text(metric, base):
    """The value, and its change against the base in per cent (one
    decimal: the cell stays narrow; the tooltip has both forms)."""
    if metric is None:
        return "–"
    shown = shown_value(metric)
    change = _change(metric, base)
    if change is None:
        return shown
    if base.value == 0:
        return f"{shown} ({'+' if change > 0 else '−'}" \
            f"{format_number(abs(change))})"
    percent = change / abs(base.value) * 100
    if abs(percent) < 0.05:
        return shown
    return f"{shown} ({'+' if percent > 0 else '−'}{abs(percent):.1f} %)"


def row_label(metric):
    """Row header: the label and its unit (none for flags)."""
    if _is_flag(metric):
        return metric.label.removesuffix(" (1 yes, 0 no)")
    return f"{metric.label} [{metric.unit}]"


@functools.lru_cache(maxsize=None)
def _variant_brush(index):
    # asked for at every repaint of the header: made once per colour
    return QtGui.QBrush(QtGui.QColor(variant_colour(index)))


class ComparisonModel(QtCore.QAbstractTableModel):
    """Read-only table model over a ``Results``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._results = None
        self._metric_ids = []
        self._cells = []    # [row][column] -> Metric or None
        self._display = []  # [row][column] -> formatted value
        self._labels = []   # row header text

    def set_results(self, results):
        """Show ``results``: cells update in place (``dataChanged``) when
        the rows and columns stay, the model resets when they do not."""
        metric_ids = results.metric_ids(unique_rows=True) if results else []
        names = [v.name for v in results.variants] if results else []
        in_place = self._results is not None and results is not None and \
            metric_ids == self._metric_ids and \
            names == [v.name for v in self._results.variants]
        if not in_place:
            self.beginResetModel()
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
        elif metric_ids:
            self.dataChanged.emit(
                self.index(0, 0),
                self.index(len(metric_ids) - 1, len(names) - 1))
            self.headerDataChanged.emit(_Qt.Vertical, 0, len(metric_ids) - 1)

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

    def headerData(self, section, orientation, role=_Qt.DisplayRole):
        if self._results is None:
            return None
        if orientation == _Qt.Horizontal:
            if role in (_Qt.DisplayRole, _Qt.ToolTipRole):
                return self._results.variants[section].name
            if role == _Qt.ForegroundRole:
                return _variant_brush(section)
            return None
        if role == _Qt.DisplayRole:
            return self._labels[section]
        if role == _Qt.ToolTipRole:
            metric_id = self._metric_ids[section]
            return f"{metric_id}\n{backing_text(metric_id)}"
        return None


def backing_text(metric_id):
    """Which validated cases back the model a metric comes from (the
    validation set is read once, on the first tooltip, and its module
    imported then: start-up does without it)."""
    from app.validation_io import ValidationDataError, provenance_index
    try:
        return provenance_index()(metric_id).text()
    except ValidationDataError as err:
        return f"Validation set unreadable: {err}"
