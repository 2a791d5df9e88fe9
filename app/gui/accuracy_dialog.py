"""Help > Model accuracy: the published validation cases solved by the
models, per area and per check, as ``linkplan accuracy`` prints them."""

from PySide6 import QtCore, QtWidgets

from app.validation_io import ValidationDataError, accuracy_report


def _table(headers, rows, tooltips=None):
    table = QtWidgets.QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(
        QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QtWidgets.QTableWidgetItem(text)
            if tooltips:
                item.setToolTip(tooltips[r])
            table.setItem(r, c, item)
    table.resizeColumnsToContents()
    return table


class AccuracyDialog(QtWidgets.QDialog):
    """Shows an :class:`solvers.accuracy.AccuracyReport`: the summary per
    area on top, every check below (source and tolerance justification in
    each row's tooltip)."""

    def __init__(self, report, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Model accuracy")
        self.report = report
        layout = QtWidgets.QVBoxLayout(self)
        total = report.total
        layout.addWidget(QtWidgets.QLabel(
            f"{total.held} of {total.cases} published cases held; "
            f"{total.not_modelled} not modelled yet. Errors are model / "
            "measured − 1 over the checks with a measured value."))
        summary = report.summary_rows()
        self.summary = _table(
            ["area", "cases", "held", "not modelled", "median |error|",
             "p90 |error|"],
            [[s["area"], str(s["cases"]), str(s["held"]),
              str(s["not_modelled"]), _percent(s["median_error_pct"]),
              _percent(s["p90_error_pct"])] for s in summary])
        layout.addWidget(self.summary)
        rows = report.rows()
        self.checks = _table(
            ["case", "area", "variant", "quantity", "model", "measured",
             "unit", "error", "tolerance", "verdict"],
            [[row["case"], row["area"], row["variant"], row["quantity"],
              _value(row["model"]), _value(row["measured"]), row["unit"],
              _percent(row["error_pct"]), row["tolerance"],
              row["verdict"] if row["verdict"] != "pass" else row["check"]]
             for row in rows],
            [f"{row['title']}\n{row['source']}\n{row['url']}"
             + (f"\n{row['note']}" if row["note"] else "") for row in rows])
        layout.addWidget(self.checks, 1)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(QtCore.QSize(1000, 640))


def _value(value):
    if value is None:
        return "-"
    return value if isinstance(value, str) else f"{value:.4g}"


def _percent(value):
    return "-" if value is None else f"{value:+.1f} %"


def show_accuracy(parent):
    """Solve the bundled validation set and show the dialog (or say why
    the set cannot be read)."""
    QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
    try:
        report = accuracy_report()
    except ValidationDataError as err:
        report, problem = None, str(err)
    finally:
        QtWidgets.QApplication.restoreOverrideCursor()
    if report is None:
        QtWidgets.QMessageBox.warning(parent, "Model accuracy", problem)
        return None
    dialog = AccuracyDialog(report, parent)
    dialog.open()
    return dialog
