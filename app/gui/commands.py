"""Undo commands: thin Qt shells over immutable scenario snapshots."""

from PySide6 import QtGui


class SetScenarioCommand(QtGui.QUndoCommand):
    """Replace the window's scenario by an already validated one, undoably:
    undo and redo swap snapshots, so nothing is validated twice."""

    def __init__(self, window, before, after, label):
        super().__init__(label)
        self._window, self._before, self._after = window, before, after

    def redo(self):
        self._window.show_scenario(self._after)

    def undo(self):
        self._window.show_scenario(self._before)
