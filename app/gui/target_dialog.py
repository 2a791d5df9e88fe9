"""Analysis > Reach a target…: a metric, a bound and a value; for each
lever the smallest change that meets it (:func:`solvers.target.
seek_target`, off the GUI thread), applied to the base or added as a
variant, each an undoable edit."""

import concurrent.futures
import math
import types

from PySide6 import QtCore, QtWidgets

from solvers import metric_ids
from solvers.results import format_number
from solvers.target import (TargetError, describe_change, parse_target,
                            seek_target)

#: How often the dialog looks whether the search is done [ms].
POLL_MS = 50

#: The table's columns.
COLUMNS = ("Lever", "Smallest change that meets it", "After",
           "Binding limit after")


class TargetDialog(QtWidgets.QDialog):
    """Seeks a target on the base of ``scenario``; ``results`` (its
    evaluation) lists the metrics to choose from. ``apply_requested(
    recommendation, as_variant)`` asks the window to make a lever's change
    (an object with ``id`` and ``change`` as a recommendation has)."""

    apply_requested = QtCore.Signal(object, bool)

    def __init__(self, scenario, results, parent=None, goal_metric=None):
        super().__init__(parent)
        self.setWindowTitle("Reach a target")
        self.scenario = scenario
        self.result = None
        self._future = None
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="linkplan-target")
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

        layout = QtWidgets.QVBoxLayout(self)
        row = QtWidgets.QHBoxLayout()
        self.metric_choice = QtWidgets.QComboBox()
        self.metric_choice.setToolTip(
            "The metric the target bounds; a metric id may be typed, e.g. "
            "one the base has no value of (the total time of a migration "
            "that does not complete)")
        self.metric_choice.setEditable(True)
        self.metric_choice.setInsertPolicy(
            QtWidgets.QComboBox.InsertPolicy.NoInsert)
        base = results.variants[0] if results is not None else None
        for m in (base.metrics if base is not None else ()):
            self.metric_choice.addItem(f"{m.label} ({m.id})", m.id)
            self.metric_choice.setItemData(
                self.metric_choice.count() - 1, m.id,
                QtCore.Qt.ItemDataRole.ToolTipRole)
        self.metric_choice.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy
            .AdjustToMinimumContentsLengthWithIcon)
        self.metric_choice.setMinimumContentsLength(28)
        self.metric_choice.currentTextChanged.connect(self._metric_changed)
        self.operator = QtWidgets.QComboBox()
        for text, op in (("≥", ">="), ("≤", "<=")):
            self.operator.addItem(text, op)
        self.value = QtWidgets.QLineEdit()
        self.value.setPlaceholderText("value, with a unit if you like")
        self.value.returnPressed.connect(self.find)
        self.unit = QtWidgets.QLabel()
        self.find_button = QtWidgets.QPushButton("&Find")
        self.find_button.setDefault(True)
        self.find_button.clicked.connect(self.find)
        row.addWidget(self.metric_choice, 3)
        row.addWidget(self.operator)
        row.addWidget(self.value, 1)
        row.addWidget(self.unit)
        row.addWidget(self.find_button)
        layout.addLayout(row)
        self.summary = QtWidgets.QLabel(
            "For each lever (outstanding IO, VMs, NIC count or speed, "
            "streams, concurrency, MTU, transport) the smallest change that "
            "meets the target, re-solved by the model.")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(
            QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(
            QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(
            QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(
            QtWidgets.QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        # long changes and limits elide, whole in their tooltips
        self.table.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        for column, width in enumerate((210, 360, 100)):
            self.table.setColumnWidth(column, width)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        layout.addWidget(self.table, 1)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Close)
        self.apply_button = buttons.addButton(
            "&Apply to base", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.variant_button = buttons.addButton(
            "As &variant", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.apply_button.clicked.connect(lambda: self._apply(False))
        self.variant_button.clicked.connect(lambda: self._apply(True))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._selection_changed()
        index = self.metric_choice.findData(goal_metric) if goal_metric else -1
        self.metric_choice.setCurrentIndex(max(index, 0))
        self._metric_changed()
        self.resize(QtCore.QSize(1100, 440))

    def metric_id(self):
        """The metric chosen, or typed as an id."""
        text = self.metric_choice.currentText().strip()
        index = self.metric_choice.findText(text)
        return self.metric_choice.itemData(index) if index >= 0 else text

    def _metric_changed(self, *_):
        try:
            unit = metric_ids.info(self.metric_id())[0]
        except (KeyError, ValueError):
            unit = ""
        self.unit.setText("" if unit in ("1", "") else unit)

    def set_target(self, metric, op, value):
        """Fill in a target as a user would (tests, scripts)."""
        index = self.metric_choice.findData(metric)
        if index >= 0:
            self.metric_choice.setCurrentIndex(index)
        else:
            self.metric_choice.setEditText(metric)
        self.operator.setCurrentIndex(self.operator.findData(op))
        self.value.setText(value)

    def find(self):
        """Start the search for the target typed (off the GUI thread)."""
        text = (f"{self.metric_id()}{self.operator.currentData()}"
                f"{self.value.text()}")
        try:
            target = parse_target(text)
        except TargetError as err:
            self.summary.setText(f"Not searched: {err}")
            return
        self.table.setRowCount(0)
        self.result = None
        self._selection_changed()
        self.find_button.setEnabled(False)
        self.summary.setText(f"Searching the levers for {target}…")
        self._future = self._executor.submit(seek_target, self.scenario,
                                             target)
        self._timer.start()

    def wait(self, timeout=60):
        """Block until the search is done and shown (tests, scripts)."""
        if self._future is not None:
            concurrent.futures.wait([self._future], timeout)
            self._poll()

    def _poll(self):
        future = self._future
        if future is None or not future.done():
            return
        self._timer.stop()
        self._future = None
        self.find_button.setEnabled(True)
        try:
            result = future.result()
        except TargetError as err:
            self.summary.setText(f"Not searched: {err}")
            return
        except Exception as err:  # a bug must not take the window down
            self.summary.setText(f"The search failed: "
                                 f"{type(err).__name__}: {err}")
            return
        self.show_result(result)

    def show_result(self, result):
        """List each lever of a :class:`solvers.target.TargetResult`."""
        self.result = result
        unit = "" if result.unit in ("1", "") else f" {result.unit}"
        self.summary.setText(
            f"{result.target}{unit}: now {_number(result.base_value)}"
            f"{unit} ({'met' if result.met else 'not met'}). "
            f"{result.message[:1].upper()}{result.message[1:]}.")
        after = QtWidgets.QTableWidgetItem("After")
        after.setToolTip(f"{result.target.metric}, re-solved with the "
                         "change")
        self.table.setHorizontalHeaderItem(2, after)
        self.table.setRowCount(len(result.levers))
        for row, outcome in enumerate(result.levers):
            change = describe_change(outcome.change)
            if not outcome.reachable:
                change = "not reachable by this lever" + (
                    f" (best at {change})" if change else "")
            cells = (outcome.label, change,
                     f"{_number(outcome.value)}{unit}",
                     outcome.bottleneck)
            for column, text in enumerate(cells):
                item = QtWidgets.QTableWidgetItem(text)
                item.setToolTip(outcome.message if column == 1 else text)
                if not outcome.reachable:
                    item.setForeground(self.palette().color(
                        self.palette().ColorGroup.Disabled,
                        self.palette().ColorRole.Text))
                self.table.setItem(row, column, item)
        first = next((i for i, o in enumerate(result.levers)
                      if o.reachable), None)
        if first is not None:
            self.table.selectRow(first)
        self._selection_changed()

    def selected(self):
        """The reachable lever outcome selected, or None."""
        rows = self.table.selectionModel().selectedRows()
        if self.result is None or not rows:
            return None
        outcome = self.result.levers[rows[0].row()]
        return outcome if outcome.reachable else None

    def _selection_changed(self):
        on = self.selected() is not None
        self.apply_button.setEnabled(on)
        self.variant_button.setEnabled(on)

    def _apply(self, as_variant):
        outcome = self.selected()
        if outcome is None:
            return
        self.apply_requested.emit(types.SimpleNamespace(
            id=f"target.{outcome.lever}", change=outcome.change), as_variant)
        self.accept()

    def done(self, code):
        self._timer.stop()
        self._executor.shutdown(wait=False, cancel_futures=True)
        super().done(code)


def _number(value):
    """A number as every face shows it; '—' where the model has none (a
    migration that does not converge)."""
    return format_number(value) if math.isfinite(value) else "—"
