"""The comparison table: metrics as rows, variants as columns."""

from PySide6 import QtCore, QtGui

from app.gui.charts import variant_colour
from solvers.results import format_number

_Qt = QtCore.Qt


class ComparisonModel(QtCore.QAbstractTableModel):
    """Read-only table model over a ``Results``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._results = None
        self._metric_ids = []

    def set_results(self, results):
        self.beginResetModel()
        self._results = results
        self._metric_ids = results.metric_ids() if results else []
        self.endResetModel()

    def rowCount(self, parent=QtCore.QModelIndex()):
        return 0 if parent.isValid() else len(self._metric_ids)

    def columnCount(self, parent=QtCore.QModelIndex()):
        if parent.isValid() or self._results is None:
            return 0
        return len(self._results.variants)

    def _metric(self, index):
        variant = self._results.variants[index.column()]
        try:
            return variant.metric(self._metric_ids[index.row()])
        except KeyError:
            return None

    def data(self, index, role=_Qt.DisplayRole):
        if not index.isValid():
            return None
        metric = self._metric(index)
        if role == _Qt.DisplayRole:
            return "–" if metric is None else format_number(metric.value)
        if role == _Qt.TextAlignmentRole:
            return int(_Qt.AlignRight | _Qt.AlignVCenter)
        if role == _Qt.ToolTipRole and metric is not None:
            return f"{metric.label}: {metric.value!r} {metric.unit}\n" \
                   f"id: {metric.id}"
        return None

    def headerData(self, section, orientation, role=_Qt.DisplayRole):
        if self._results is None:
            return None
        if orientation == _Qt.Horizontal:
            if role in (_Qt.DisplayRole, _Qt.ToolTipRole):
                return self._results.variants[section].name
            if role == _Qt.ForegroundRole:
                return QtGui.QBrush(QtGui.QColor(variant_colour(section)))
            return None
        metric_id = self._metric_ids[section]
        metric = next((v.metric(metric_id) for v in self._results.variants
                       if metric_id in {m.id for m in v.metrics}), None)
        if role == _Qt.DisplayRole and metric is not None:
            return f"{metric.label} [{metric.unit}]"
        if role == _Qt.ToolTipRole:
            return metric_id
        return None
