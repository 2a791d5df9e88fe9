"""The desktop GUI (PySide6 + pyqtgraph).

PySide6 is imported before pyqtgraph, and pyqtgraph is told to use it, so
that pyqtgraph never binds another Qt binding (style-anchors.md section 4.2).
"""

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import PySide6.QtWidgets  # noqa: E402,F401  (must precede pyqtgraph)
