"""File > Calibrate from measurements…: pick benchmark outputs, give the
CPU clock the files do not carry, see what was fitted and the
predicted-vs-measured table, and open the calibrated scenario (the same
:func:`app.calibrate_cli.calibrate` as ``linkplan calibrate``)."""

from PySide6 import QtWidgets

from app.calibrate_cli import CalibrationError, calibrate, detect_format

_FILTER = ("Benchmark outputs (*.json *.jsonl *.xml *.txt);;All files (*)")


class CalibrationReport(QtWidgets.QDialog):
    """What was fitted, what not, and each run's prediction; Open takes
    the calibrated scenario."""

    def __init__(self, parent, done):
        super().__init__(parent)
        self.setWindowTitle("Calibrated from measurements")
        self.resize(980, 520)
        text = QtWidgets.QPlainTextEdit(readOnly=True)
        text.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        text.setPlainText("\n".join(
            done.lines + [f"note: {line}" for line in done.kept]
            + [f"set: {line}" for line in done.missing]))
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Open
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(buttons)
        self.text = text


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
    dialog = CalibrationReport(window, done)
    if dialog.exec():
        window.set_document(done.scenario)
    return dialog
