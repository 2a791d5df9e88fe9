"""The recommendations dialog: each change with its predicted effect, and
a button that applies the chosen one as an undoable edit."""

from PySide6 import QtCore, QtGui, QtWidgets

from app.presentation.goals import GOAL_LABELS
from models.scenario import GOALS
from solvers.results import format_number


class AdviceDialog(QtWidgets.QDialog):
    """Lists an :class:`solvers.advise.AdviceResult`; ``chosen`` holds the
    recommendation to apply after ``accept()``. Picking another goal emits
    ``goal_chosen(goal)``; the owner answers with :meth:`show_result` (or
    :meth:`show_message`)."""

    goal_chosen = QtCore.Signal(str)

    def __init__(self, result, scenario, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Recommended changes")
        self.result, self.chosen = result, None
        layout = QtWidgets.QVBoxLayout(self)
        self.goal = QtWidgets.QComboBox()
        for goal in GOALS:
            self.goal.addItem(GOAL_LABELS[goal], goal)
        self.goal.setToolTip("The metric the changes are ranked by (the "
                             "CLI's --goal)")
        self.goal.activated.connect(self._goal_activated)
        goal_row = QtWidgets.QFormLayout()
        goal_row.addRow("&Goal", self.goal)
        layout.addLayout(goal_row)
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.list = QtWidgets.QListWidget()
        self.list.setWordWrap(True)
        self.list.setFont(QtGui.QFontDatabase.systemFont(
            QtGui.QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.list, 1)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Close)
        self.apply_button = buttons.addButton(
            "Apply selected change",
            QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(QtCore.QSize(860, 420))
        self.show_result(result)

    def _goal_activated(self, index):
        self.list.clear()
        self.list.setEnabled(False)
        self.apply_button.setEnabled(False)
        self.summary.setText("Computing recommendations for "
                             f"“{self.goal.itemText(index)}”…")
        self.goal_chosen.emit(self.goal.itemData(index))

    def show_message(self, goal, message):
        """No advice for ``goal``: say why, offer nothing to apply."""
        self.result = None
        self.goal.setCurrentIndex(self.goal.findData(goal))
        self.list.clear()
        self.list.setEnabled(False)
        self.apply_button.setEnabled(False)
        self.summary.setText(message)

    def show_result(self, result):
        """List ``result``'s recommendations."""
        self.result = result
        self.goal.setCurrentIndex(self.goal.findData(result.goal))
        self.summary.setText(
            f"{result.metric} = {format_number(result.base_value)} now. "
            "Each effect is the model re-solved with the change.")
        self.list.clear()
        self.list.setEnabled(True)
        for r in result.recommendations:
            changes = "; ".join(f"{path}: {c['old']!r} → {c['new']!r}"
                                for path, c in r.change.items())
            effects = "; ".join(
                f"{m} {format_number(e['before'])} → "
                f"{format_number(e['after'])} {e['unit']}"
                for m, e in r.effect.items())
            item = QtWidgets.QListWidgetItem(
                f"{r.gain_pct:+.1f} %  {changes}\n    {effects}")
            item.setToolTip(r.message)
            self.list.addItem(item)
        if not result.recommendations:
            self.list.addItem("No change improves the goal.")
            self.list.setEnabled(False)
        self.list.setCurrentRow(0)
        self.apply_button.setEnabled(bool(result.recommendations))

    def _apply(self):
        row = self.list.currentRow()
        if self.result is not None and \
                0 <= row < len(self.result.recommendations):
            self.chosen = self.result.recommendations[row]
            self.accept()
