"""The main window's menus and its About text."""

import functools
from html import escape

from PySide6 import QtCore, QtGui

from app.gui import persistence
from app.paths import TEMPLATES
from solvers import __version__


def build_menus(window):
    """The window's menu bar: File, Edit, Analysis, Help; the actions the
    window updates later are its attributes (``recent_menu``,
    ``reopen_action``, ``undo_action``, ``redo_action``,
    ``make_variant_action``)."""
    keys = QtGui.QKeySequence.StandardKey
    file_menu = window.menuBar().addMenu("&File")
    for text, slot, key in (
            ("&New", window.ask_new_document, keys.New),
            ("NEW_FROM", None, None),
            ("&Open…", window.open_dialog, keys.Open),
            (None, None, None),
            ("&Save", window.save, keys.Save),
            ("Save &As…", window.save_as_dialog,
             QtGui.QKeySequence("Ctrl+Shift+S")),
            ("&Import…", window.import_dialog,
             QtGui.QKeySequence("Ctrl+I")),
            ("&Calibrate from measurements…", window.calibrate_dialog,
             QtGui.QKeySequence("Ctrl+Shift+K")),
            ("&Export PDF…", window.export_pdf_dialog,
             QtGui.QKeySequence("Ctrl+E")),
            ("&Quit", window.close, QtGui.QKeySequence("Ctrl+Q"))):
        if text == "NEW_FROM":   # one template per question
            templates = file_menu.addMenu("New from &Template")
            for number, (name, title) in enumerate(TEMPLATES, 1):
                templates.addAction(
                    title, functools.partial(window.ask_new_from_template,
                                             name)).setShortcut(
                    QtGui.QKeySequence(f"Ctrl+Shift+{number}"))
            continue
        if text is None:   # File > Open Recent sits after Open
            window.recent_menu = file_menu.addMenu("Open &Recent")
            window.recent_menu.aboutToShow.connect(window._fill_recent_menu)
            window.reopen_action = file_menu.addAction(
                "Reopen &Last File on Start")
            window.reopen_action.setCheckable(True)
            window.reopen_action.setChecked(persistence.reopens_last_file())
            window.reopen_action.toggled.connect(
                persistence.set_reopens_last_file)
            continue
        file_menu.addAction(text, slot).setShortcut(key)
    edit_menu = window.menuBar().addMenu("&Edit")
    window.undo_action = edit_menu.addAction("&Undo", window.undo)
    window.undo_action.setShortcut(keys.Undo)
    window.redo_action = edit_menu.addAction("&Redo", window.redo)
    window.redo_action.setShortcut(keys.Redo)
    edit_menu.addSeparator()
    window.make_variant_action = edit_menu.addAction(
        "Make Last Edit a &Variant", window.make_last_edit_a_variant)
    window.make_variant_action.setShortcut(
        QtGui.QKeySequence("Ctrl+Shift+V"))
    window.make_variant_action.setEnabled(False)
    analysis_menu = window.menuBar().addMenu("&Analysis")
    recommend = analysis_menu.addAction("&Recommend changes…",
                                        window.recommend_dialog)
    recommend.setShortcut(QtGui.QKeySequence("Ctrl+R"))
    analysis_menu.addAction("Reach a &target…", window.target_dialog
                            ).setShortcut(QtGui.QKeySequence(
                                "Ctrl+Shift+R"))
    analysis_menu.addAction("&Calibration…", window.calibration_dialog
                            ).setShortcut(QtGui.QKeySequence(
                                "Ctrl+Shift+L"))
    help_menu = window.menuBar().addMenu("&Help")
    help_menu.addAction("Model &accuracy…", window.accuracy_dialog
                        ).setShortcut(QtGui.QKeySequence("Ctrl+Shift+A"))
    help_menu.addAction("&About Linkplan…", window.about).setShortcut(
        QtGui.QKeySequence("F1"))


def about_html():
    """Help > About: version, licences, where to find the sources."""
    from PySide6 import __version__ as pyside_version
    import numpy
    import pyqtgraph
    import scipy
    libraries = ", ".join(f"{name} {version}" for name, version in (
        ("Qt", QtCore.qVersion()), ("PySide6", pyside_version),
        ("pyqtgraph", pyqtgraph.__version__), ("NumPy", numpy.__version__),
        ("SciPy", scipy.__version__)))
    return (f"<h3>Linkplan {escape(__version__)}</h3>"
            "<p>Capacity planning for the networks of virtualization "
            "hosts: teaming, transports, MTU, live migration, storage.</p>"
            "<p>Built with " + escape(libraries) + ". Qt and PySide6 are "
            "used under the GNU LGPL v3; pyqtgraph (MIT), NumPy and SciPy "
            "(BSD) under their own licences; the bundled DejaVu fonts "
            "under the Bitstream Vera licence.</p>")
