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


def application():
    """The process's QApplication, created once with Linkplan's settings."""
    app = QtWidgets.QApplication.instance()
    if app is not None:
        return app
    app = QtWidgets.QApplication([sys.argv[0]])
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
