"""Run-time hook for PySide6 in Linkplan's frozen build, in place of
PyInstaller's own (build.spec says why): point Qt at the collected
plug-ins, without importing Qt.

PyInstaller's hook also imports ``PySide6.QtCore`` at every start to
register a ``qt.conf`` for bindings that do not make one; that loaded Qt
for ``linkplan --version`` and every CLI command. PySide6's PyPI wheels
register their own when QtCore is first imported."""

import os
import sys

os.environ["QT_PLUGIN_PATH"] = os.path.join(
    sys._MEIPASS, "PySide6",
    *(() if sys.platform.startswith("win") else ("Qt",)), "plugins")
