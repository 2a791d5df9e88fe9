"""Every scalar parameter of the base scenario as an editable table: the
path (``workloads.storage[0].threads_per_disk``) and its value. An edit is
parsed to the parameter's current type and goes through the window's
validated, undoable edit path; a refused value is reported there."""

import json

from PySide6 import QtCore, QtWidgets


def scalar_parameters(data, prefix=""):
    """(path, value) of every scalar leaf of a scenario dump, in document
    order; lists of scalars are one parameter. The description (meta),
    variants and sweeps are not parameters of the base."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("meta", "variants", "sweeps", "schema_version"):
                continue
            yield from scalar_parameters(value, f"{prefix}{key}.")
    elif isinstance(data, list) and any(isinstance(v, (dict, list))
                                        for v in data):
        for index, value in enumerate(data):
            yield from scalar_parameters(value,
                                         f"{prefix.rstrip('.')}[{index}].")
    else:
        yield prefix.rstrip("."), data


def parse_like(text, current):
    """The text as a value of the same kind as ``current``.

    Raises
    ------
    ValueError
        With a message naming what was expected.
    """
    text = text.strip()
    if isinstance(current, bool):
        if text.lower() in ("true", "yes", "on", "1"):
            return True
        if text.lower() in ("false", "no", "off", "0"):
            return False
        raise ValueError(f"expected true or false, got {text!r}")
    if text.lower() in ("", "none", "null") and current is None:
        return None
    if isinstance(current, int) and not isinstance(current, bool):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"expected a whole number, got {text!r}") \
                from None
    if isinstance(current, float) or current is None:
        try:
            return float(text)
        except ValueError:
            if current is not None:
                raise ValueError(f"expected a number, got {text!r}") \
                    from None
    if isinstance(current, list) or text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise ValueError(f"expected a JSON list, got {text!r}") \
                from None
    return text


def show(value):
    """How a value is shown in the table (and parsed back)."""
    if isinstance(value, (list, bool)) or value is None:
        return json.dumps(value)
    return str(value)


class ParameterTable(QtWidgets.QTableWidget):
    """Emits ``edited(path, value, label)`` for a committed cell edit and
    ``refused(message)`` when the text does not parse."""

    edited = QtCore.Signal(str, object, str)
    refused = QtCore.Signal(str)

    def __init__(self, parent=None):
        super().__init__(0, 2, parent)
        self.setHorizontalHeaderLabels(["Parameter", "Value"])
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(22)
        self.setWordWrap(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(
            0, QtWidgets.QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.setColumnWidth(0, 190)
        self.setTextElideMode(QtCore.Qt.TextElideMode.ElideLeft)
        self.setToolTip("Every parameter of the base scenario: double-click "
                        "a value to change it (undoable)")
        self._values = {}
        self.itemChanged.connect(self._changed)

    def load(self, scenario):
        """Show the scenario's parameters without emitting anything."""
        rows = list(scalar_parameters(scenario.model_dump(mode="json")))
        self._values = dict(rows)
        self.blockSignals(True)
        try:
            self.setRowCount(len(rows))
            for row, (path, value) in enumerate(rows):
                name = QtWidgets.QTableWidgetItem(path)
                name.setFlags(name.flags() & ~QtCore.Qt.ItemFlag.ItemIsEditable)
                self.setItem(row, 0, name)
                self.setItem(row, 1, QtWidgets.QTableWidgetItem(show(value)))
        finally:
            self.blockSignals(False)

    def _changed(self, item):
        if item.column() != 1:
            return
        path = self.item(item.row(), 0).text()
        current = self._values[path]
        try:
            value = parse_like(item.text(), current)
        except ValueError as err:
            self.refused.emit(f"{path}: {err}")
            self.blockSignals(True)
            item.setText(show(current))
            self.blockSignals(False)
            return
        if value != current:
            self.edited.emit(path, value, f"Set {path} to {show(value)}")
