"""Charts and analysis views drawn with pyqtgraph, shared by the GUI's
tabs and the PDF report (which renders the same charts as vector
graphics), and the one QApplication they need. Imports no window: the
report draws without :mod:`app.gui` (import-linter checks it)."""
