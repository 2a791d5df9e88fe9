"""Help > Model accuracy (pytest-qt, offscreen)."""

from PySide6 import QtWidgets

from app.gui.accuracy_dialog import AccuracyDialog
from app.validation_io import load_cases
from solvers.accuracy import assess


def test_dialog_shows_summary_and_every_check(qtbot):
    report = assess(load_cases())
    dialog = AccuracyDialog(report)
    qtbot.addWidget(dialog)
    assert dialog.summary.rowCount() == len(report.areas) + 1
    assert dialog.summary.item(dialog.summary.rowCount() - 1, 0).text() \
        == "all"
    assert dialog.checks.rowCount() == len(report.rows())
    first = report.rows()[0]
    assert first["url"] in dialog.checks.item(0, 0).toolTip()


def test_help_menu_opens_it(window, qtbot):
    menus = {a.text(): a.menu() for a in window.menuBar().actions()}
    action = [a for a in menus["&Help"].actions()
              if a.text() == "Model &accuracy…"][0]
    action.trigger()
    dialogs = [w for w in QtWidgets.QApplication.topLevelWidgets()
               if isinstance(w, AccuracyDialog) and w.isVisible()]
    assert dialogs and dialogs[0].checks.rowCount() > 0
    dialogs[0].close()
