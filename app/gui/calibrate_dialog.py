"""File > Calibrate from measurements…: pick benchmark outputs, give the
CPU clock the files do not carry, see what was fitted and the
predicted-vs-measured table, and open the calibrated scenario (the same
:func:`app.calibrate_cli.calibrate` as ``linkplan calibrate``).
Analysis > Calibration… shows the open scenario's table again."""

from PySide6 import QtCore, QtWidgets

from app.calibrate_cli import (CalibrationError, calibrate, detect_format,
                               error_summary)

_FILTER = ("Benchmark outputs (*.json *.jsonl *.xml *.txt);;All files (*)")


class CalibrationReport(QtWidgets.QDialog):
    """What was fitted, what not, and each run's prediction (a table:
    fitted on all runs, and held out); Open takes the calibrated
    scenario."""

    COLUMNS = ("Run", "Quantity", "Measured", "Predicted", "Error", "Role")

    def __init__(self, parent, site, notes=(), *, opens=True):
        super().__init__(parent)
        self.setWindowTitle(f"Calibration: site preset {site.name}")
        self.resize(1000, 620)
        text = QtWidgets.QPlainTextEdit(readOnly=True)
        text.setPlainText("\n".join(
            [f"Site preset {site.name!r}, fitted {site.date} on: "
             + ", ".join(site.sources)]
            + [f"Fitted: {line}" for line in site.fitted]
            + [f"Not determined: {line}" for line in site.undetermined]
            + list(notes) + error_summary(site.checks)))
        table = QtWidgets.QTableWidget(len(site.checks), len(self.COLUMNS))
        table.setHorizontalHeaderLabels(self.COLUMNS)
        table.setEditTriggers(
            QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        right = (QtCore.Qt.AlignmentFlag.AlignRight
                 | QtCore.Qt.AlignmentFlag.AlignVCenter)
        for row, check in enumerate(site.checks):
            cells = (check.run, check.quantity, f"{check.measured:.5g}",
                     f"{check.predicted:.5g}", f"{check.error_pct:+.1f} %",
                     check.role.replace("_", " "))
            for column, value in enumerate(cells):
                item = QtWidgets.QTableWidgetItem(value)
                if 2 <= column <= 4:
                    item.setTextAlignment(right)
                table.setItem(row, column, item)
        table.resizeColumnsToContents()
        table.horizontalHeader().setSectionResizeMode(
            0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Open
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel if opens
            else QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(text, 1)
        layout.addWidget(QtWidgets.QLabel(
            "Predicted vs measured (fitted: fit on all runs; held out: fit "
            "on the other runs)"))
        layout.addWidget(table, 2)
        layout.addWidget(buttons)
        self.text, self.table = text, table


def ask_clock(window, paths):
    """The measured host's clock [GHz]: asked when an iperf3 file is among
    ``paths`` (iperf3 reports no CPU clock), else None; False when the
    user cancels."""
    if not any(_format(p) == "iperf3" for p in paths):
        return None
    current = window.session.scenario.host.ghz \
        if getattr(window, "session", None) else 2.6
    ghz, ok = QtWidgets.QInputDialog.getDouble(
        window, "CPU clock of the measured host",
        "iperf3 reports no CPU model or clock (system_info is uname -a).\n"
        "Core clock of the host the runs measured [GHz]:", current, 0.1,
        10.0, 2)
    return ghz if ok else False


def _format(path):
    try:
        return detect_format(path)
    except CalibrationError:
        return None   # calibrate() reports it


def run_calibrate_dialog(window, paths=None):
    """Ask for files (unless given), calibrate, show the report; open the
    calibrated scenario on Open. Returns the dialog (None when cancelled
    or the files are refused)."""
    if paths is None:
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(
            window, "Calibrate from measurements", "", _FILTER)
    if not paths:
        return None
    ghz = ask_clock(window, paths)
    if ghz is False:
        return None
    try:
        done = calibrate(paths, ghz=ghz)
    except (CalibrationError, ValueError) as err:
        QtWidgets.QMessageBox.warning(window, "Cannot calibrate", str(err))
        return None
    dialog = CalibrationReport(
        window, done.scenario.calibration,
        [f"Note: {line}" for line in done.kept]
        + [f"Set: {line}" for line in done.missing])
    if dialog.exec():
        window.set_document(done.scenario)
    return dialog


def show_calibration(window):
    """Analysis > Calibration: the open scenario's site preset and its
    predicted-vs-measured table (a message when it has none)."""
    site = window.session.scenario.calibration
    if site is None:
        QtWidgets.QMessageBox.information(
            window, "Not calibrated", "This scenario has no site preset: "
            "File > Calibrate from measurements… fits one to iperf3, fio, "
            "DiskSpd, HCIBench or QMP outputs.")
        return None
    dialog = CalibrationReport(window, site, opens=False)
    dialog.exec()
    return dialog
