"""Undo commands: thin Qt shells over the Qt-free scenario edits."""

from PySide6 import QtGui


class SetValueCommand(QtGui.QUndoCommand):
    """Set one parameter path of the window's scenario, undoably."""

    def __init__(self, window, path, old, new, label):
        super().__init__(label)
        self._window, self._path = window, path
        self._old, self._new = old, new

    def redo(self):
        self._window.apply_value(self._path, self._new)

    def undo(self):
        self._window.apply_value(self._path, self._old)
