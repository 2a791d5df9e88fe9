"""Starting the GUI: the main window, error dialogs, self-test (the
QApplication itself comes from :mod:`app.figures.bootstrap`)."""

import os
import sys
import tempfile
import traceback
from pathlib import Path

from PySide6 import QtWidgets

from app.figures.bootstrap import application


def _show_unexpected_error(kind, value, tb):
    """Turn an exception that reached the event loop into a dialog: the
    window, and the user's document, stay."""
    traceback.print_exception(kind, value, tb)
    QtWidgets.QMessageBox.critical(
        None, "Unexpected error",
        f"{kind.__name__}: {value}\n\nYour scenario is still open; save it "
        "under a new name if in doubt.")


def show_example_window():
    """The application and a shown main window on the built-in example."""
    from app.gui.main_window import MainWindow

    app = application()
    window = MainWindow()
    window.open_example()
    window.show()
    # the tab on screen drawn; the others when first shown
    window.wait_for_results(all_views=False)
    app.processEvents()
    return app, window


def run_gui(path=None):
    """Open the main window on ``path`` or on the built-in example."""
    app, window = show_example_window()
    # unsaved work left by a crash comes first; else the file asked for;
    # else the last one, when the user wants it back
    if window.offer_recovery():
        pass
    elif path is not None:
        window.open_path(path)
    else:
        window.reopen_last_file()
    sys.excepthook = _show_unexpected_error
    return app.exec()


def self_test():
    """Build the main window offscreen, evaluate the example, write a PDF.

    Used to smoke-test the frozen build; prints one line and returns 0 when
    every step worked.
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _, window = show_example_window()
    if window.results is None or window.table_model.rowCount() == 0:
        print("self-test failed: the example did not evaluate",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        pdf = Path(folder) / "self-test.pdf"
        if not window.export_pdf_to(pdf):
            print("self-test failed: no PDF written", file=sys.stderr)
            return 1
        size = pdf.stat().st_size
        if not pdf.read_bytes().startswith(b"%PDF"):
            print("self-test failed: the report is not a PDF",
                  file=sys.stderr)
            return 1
    window.close()
    # the report's accuracy section solves the bundled validation set: a
    # build without it would still write a PDF
    from app.validation_io import ValidationDataError, accuracy_report
    try:
        accuracy = accuracy_report().total
    except ValidationDataError as err:
        print(f"self-test failed: {err}", file=sys.stderr)
        return 1
    print(f"self-test passed: {len(window.results.variants)} variants, "
          f"{window.table_model.rowCount()} metrics, PDF {size} bytes, "
          f"{accuracy.held} of {accuracy.cases} validation cases held")
    return 0
