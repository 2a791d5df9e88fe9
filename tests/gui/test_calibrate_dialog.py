"""File > Calibrate from measurements…: the clock iperf3 does not report is
asked, the report shows what was fitted and predicted vs measured, Open
makes the calibrated scenario the document; bad files are refused with a
message naming them."""

import unicodedata

from PySide6 import QtWidgets

from app.gui import calibrate_dialog
from tests.app.import_samples import SAMPLES


def test_calibrate_asks_the_clock_and_opens_the_calibrated_scenario(
        window, monkeypatch):
    asked = []

    def get_double(parent, title, label, *args):
        asked.append(label)
        return 3.1, True

    monkeypatch.setattr(QtWidgets.QInputDialog, "getDouble", get_double)
    monkeypatch.setattr(calibrate_dialog.CalibrationReport, "exec",
                        lambda self: True)
    paths = [str(SAMPLES / "iperf3_l8k.json"),
             str(SAMPLES / "iperf3_l128k.json")]
    dialog = calibrate_dialog.run_calibrate_dialog(window, paths)
    assert asked and "no CPU model or clock" in asked[0]
    assert "c_pkt" in dialog.text.toPlainText()
    table = dialog.table
    roles = {table.item(r, 5).text() for r in range(table.rowCount())}
    assert roles == {"fitted", "held out"}
    assert table.item(0, 1).text() == "cycles/B"
    document = window.session.scenario
    assert document.calibration is not None
    assert document.host.ghz == 3.1
    # Analysis > Calibration… shows the open scenario's table again
    monkeypatch.setattr(calibrate_dialog.CalibrationReport, "exec",
                        lambda self: False)
    again = calibrate_dialog.show_calibration(window)
    assert again.table.rowCount() == table.rowCount()
    # the site preset is not a form of the editor, and edits keep it
    assert "calibration" not in window.editor._items
    window.editor.field("network.mtu").enter("9000")
    assert window.session.scenario.network.mtu == 9000
    assert window.session.scenario.calibration == document.calibration


def test_a_file_of_another_tool_is_refused(window, dialogs):
    before = window.session.scenario
    result = calibrate_dialog.run_calibrate_dialog(
        window, [str(SAMPLES / "sadf_net_dev.json")])
    assert result is None and window.session.scenario is before
    kind, _, text = dialogs[-1]
    assert kind == "warning" and "sadf_net_dev.json" in text \
        and "not an output" in text


def test_the_pdf_of_a_calibrated_scenario_shows_its_site_preset(tmp_path):
    from pypdf import PdfReader

    from app.calibrate_cli import calibrate
    from app.report.pdf import write_report_headless
    from solvers.evaluate import evaluate

    done = calibrate([SAMPLES / "iperf3_l8k.json",
                      SAMPLES / "iperf3_l128k.json"], ghz=2.6, name="rack12")
    path = tmp_path / "calibrated.pdf"
    write_report_headless(done.scenario, evaluate(done.scenario), str(path))
    text = unicodedata.normalize("NFKC", " ".join(
        " ".join(page.extract_text().split())
        for page in PdfReader(path).pages))
    assert "Calibrated on measurements: site preset rack12" in text
    assert "held out" in text and "cycles/B" in text
    assert "Not determined" in text
    assert "Held out: 2 run(s), largest error" in text


def test_an_uncalibrated_scenario_says_so(window, monkeypatch):
    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "information",
                        lambda *args: shown.append(args[2]))
    assert calibrate_dialog.show_calibration(window) is None
    assert "no site preset" in shown[0]
