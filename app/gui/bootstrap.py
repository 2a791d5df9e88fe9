"""The one QApplication with Linkplan's settings (fonts, Qt messages,
pyqtgraph's look), shared by the GUI and the PDF report. Imports no window,
so the report can start Qt without the GUI."""

import sys

from PySide6 import QtCore, QtGui, QtWidgets
import pyqtgraph as pg

from app.paths import resource_path
from solvers import __version__

#: The bundled font family (resources/fonts), used by the GUI and the PDF so
#: text renders the same everywhere, headless included.
FONT_FAMILY = "DejaVu Sans"


#: Longest a worker thread keeps the interpreter while the GUI thread
#: waits for it [s]. Measured (50 VMs on 4 uplinks, an edit while the
#: teaming evaluates): 5 ms (Python's default) 321 ms, 1 ms 190 ms,
#: 0.5 ms 157 ms longest GUI block, loaded machine; 1 ms keeps the
#: workers' own switching overhead small.
GUI_SWITCH_INTERVAL_S = 0.001


def application():
    """The process's QApplication, created once with Linkplan's settings."""
    app = QtWidgets.QApplication.instance()
    if app is not None:
        return app
    app = QtWidgets.QApplication([sys.argv[0]])
    # the GUI thread takes the interpreter back from a busy worker (an
    # evaluation, a sweep) within this, not Python's default 5 ms: a
    # repaint calls back into Python dozens of times
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    app.setApplicationName("Linkplan")
    app.setApplicationVersion(__version__)
    for font_file in sorted(resource_path("fonts").glob("*.ttf")):
        QtGui.QFontDatabase.addApplicationFont(str(font_file))
    font = QtGui.QFont(FONT_FAMILY)
    font.setPointSizeF(app.font().pointSizeF())
    # Unhinted glyph advances are the ones the PDF uses, so text laid out on
    # screen (chart legends, axes) fits the same way in the report.
    font.setHintingPreference(QtGui.QFont.HintingPreference.PreferNoHinting)
    app.setFont(font)
    QtCore.qInstallMessageHandler(_qt_message)
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    return app


#: Qt warnings that say nothing to a user (the offscreen platform cannot
#: resize windows to their size hints).
_SILENCED_QT_MESSAGES = ("propagateSizeHints",)


def _qt_message(mode, context, message):
    if not any(text in message for text in _SILENCED_QT_MESSAGES):
        print(message, file=sys.stderr)
