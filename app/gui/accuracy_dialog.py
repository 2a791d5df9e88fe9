"""Help > Model accuracy: the published validation cases solved by the
models, per area and per check, as ``linkplan accuracy`` prints them."""

import re

from PySide6 import QtCore, QtWidgets

from app.validation_io import ValidationDataError, accuracy_report


#: Widest a column of words grows [characters]; a longer text wraps onto
#: more lines of its row (Help > Model accuracy at 1280 px wide shows the
#: error and verdict columns without scrolling).
WRAP_CHARACTERS = 24


def _table(headers, rows, tooltips=None):
    table = QtWidgets.QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(
        QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QtWidgets.QTableWidgetItem(_breakable(text))
            if tooltips:
                item.setToolTip(tooltips[r])
            table.setItem(r, c, item)
    table.setWordWrap(True)
    table.resizeColumnsToContents()
    widest = table.fontMetrics().averageCharWidth() * WRAP_CHARACTERS
    for column in range(len(headers)):
        table.setColumnWidth(column, min(table.columnWidth(column), widest))
    table.resizeRowsToContents()
    return table


def _breakable(text):
    """``text`` with a line break allowed after each dot and underscore
    (a zero-width space): a metric id wraps in its cell, never elided."""
    return re.sub(r"([._])(?=\w)", "\\1\u200b", text)


def _content_width(table):
    """Pixels the table needs to show every column without scrolling."""
    return sum(table.columnWidth(c) for c in range(table.columnCount())) + \
        table.verticalHeader().width() * table.verticalHeader().isVisible() \
        + 2 * table.frameWidth() + \
        table.verticalScrollBar().sizeHint().width()


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
        # the error and the verdict beside the numbers they judge, the
        # tolerance after them
        self.checks = _table(
            ["case", "area", "variant", "quantity", "model", "measured",
             "unit", "error", "verdict", "tolerance"],
            [[row["case"], row["area"], row["variant"], row["quantity"],
              _value(row["model"]), _value(row["measured"]), row["unit"],
              _percent(row["error_pct"]),
              row["verdict"] if row["verdict"] != "pass" else row["check"],
              row["tolerance"]]
             for row in rows],
            [f"{row['title']}\n{row['source']}\n{row['url']}"
             + (f"\n{row['note']}" if row["note"] else "") for row in rows])
        layout.addWidget(self.checks, 1)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        screen = (self.screen() or
                  QtWidgets.QApplication.primaryScreen()).availableGeometry()
        self.fit_to(screen.size())

    def fit_to(self, available):
        """As wide as every column needs and as tall as the screen's
        ``available`` size allows (a QSize), the summary whole."""
        self.summary.setFixedHeight(
            self.summary.horizontalHeader().sizeHint().height() +
            sum(self.summary.rowHeight(r)
                for r in range(self.summary.rowCount())) +
            2 * self.summary.frameWidth())
        margins = self.layout().contentsMargins()
        width = max(_content_width(self.checks),
                    _content_width(self.summary)) + margins.left() + \
            margins.right()
        self.resize(min(width, available.width() - 40),
                    available.height() - 80)


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
