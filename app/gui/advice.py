"""The recommendations dialog: each change with its predicted effect, and
a button that applies the chosen one as an undoable edit."""

from PySide6 import QtCore, QtGui, QtWidgets


class AdviceDialog(QtWidgets.QDialog):
    """Lists an :class:`solvers.advise.AdviceResult`; ``chosen`` holds the
    recommendation to apply after ``accept()``."""

    def __init__(self, result, scenario, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Recommended changes")
        self.result, self.chosen = result, None
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(QtWidgets.QLabel(
            f"Goal: {result.goal} ({result.metric} = "
            f"{result.base_value:.4g} now). Each effect is the model "
            "re-solved with the change."))
        self.list = QtWidgets.QListWidget()
        self.list.setWordWrap(True)
        for r in result.recommendations:
            changes = "; ".join(f"{path}: {c['old']!r} → {c['new']!r}"
                                for path, c in r.change.items())
            effects = "; ".join(
                f"{m} {e['before']:.4g} → {e['after']:.4g} {e['unit']}"
                for m, e in r.effect.items())
            item = QtWidgets.QListWidgetItem(
                f"{r.gain_pct:+.1f} %  {changes}\n    {effects}")
            item.setToolTip(r.message)
            self.list.addItem(item)
        if not result.recommendations:
            self.list.addItem("No change improves the goal.")
            self.list.setEnabled(False)
        self.list.setCurrentRow(0)
        self.list.setFont(QtGui.QFontDatabase.systemFont(
            QtGui.QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.list, 1)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Close)
        self.apply_button = buttons.addButton(
            "Apply selected change",
            QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole)
        self.apply_button.setEnabled(bool(result.recommendations))
        buttons.accepted.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(QtCore.QSize(860, 420))

    def _apply(self):
        row = self.list.currentRow()
        if 0 <= row < len(self.result.recommendations):
            self.chosen = self.result.recommendations[row]
            self.accept()
