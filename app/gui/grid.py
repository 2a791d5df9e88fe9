"""A list of the scenario as a table (the editor's view of a list node):
one row per entry, one column per field, cells edited in place with pick
lists for choices and references; rows pasted from a spreadsheet or a
CSV file (with a count column: "40 × web VM"), filled down, sorted and
deleted many at a time.

The grid never changes the document: every operation (:mod:`app.grid_rows`,
Qt-free) yields the whole new list, emitted as ``edited(list_path,
entries, label)`` for the editor to apply as one undoable step.
"""

from PySide6 import QtCore, QtGui, QtWidgets

from app import grid_rows
from app.schema_fields import VALUE_LABELS, entry_name, show_value


class GridModel(QtCore.QAbstractTableModel):
    """The entries of one list, read-only: an edit of a cell goes out as
    ``cell_edited(row, column, text)``."""

    cell_edited = QtCore.Signal(int, object, str)

    def __init__(self, columns, parent=None):
        super().__init__(parent)
        self.columns = columns
        self.entries = []

    def set_entries(self, entries):
        self.beginResetModel()
        self.entries = list(entries)
        self.endResetModel()

    def rowCount(self, parent=QtCore.QModelIndex()):
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent=QtCore.QModelIndex()):
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index, role=QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        column = self.columns[index.column()]
        entry = self.entries[index.row()]
        if role in (QtCore.Qt.ItemDataRole.DisplayRole,
                    QtCore.Qt.ItemDataRole.EditRole):
            return grid_rows.cell_text(entry, column)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return column.spec.tooltip()
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and \
                column.spec.kind in ("int", "float"):
            return int(QtCore.Qt.AlignmentFlag.AlignRight |
                       QtCore.Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index, value, role=QtCore.Qt.ItemDataRole.EditRole):
        if role != QtCore.Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        self.cell_edited.emit(index.row(), self.columns[index.column()],
                              str(value))
        return True

    def headerData(self, section, orientation,
                   role=QtCore.Qt.ItemDataRole.DisplayRole):
        horizontal = orientation == QtCore.Qt.Orientation.Horizontal
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return self.columns[section].header if horizontal \
                else str(section + 1)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and horizontal:
            column = self.columns[section]
            return f"{column.header} ({column.path})\n\n" \
                   f"{column.spec.tooltip()}"
        return None

    def flags(self, index):
        return super().flags(index) | QtCore.Qt.ItemFlag.ItemIsEditable


class CheckList(QtWidgets.QComboBox):
    """A pick list of several values (a team's members, a transfer's
    NICs, the policies a team compares): the popup's entries tick on and
    off, the box shows the ticked ones comma-separated."""

    #: a value ticked on or off by the user: the values ticked now
    chosen_changed = QtCore.Signal(list)

    def __init__(self, names, chosen, parent=None, *, labels=None,
                 unset=None):
        super().__init__(parent)
        #: value -> the name shown for it (enumerated values)
        self.labels = labels or {}
        #: what the box shows while the value is None (its default)
        self.unset = unset
        self._none = False
        self.set_names(names, chosen)
        self.view().viewport().installEventFilter(self)

    def set_names(self, names, chosen):
        """Offer ``names`` with ``chosen`` ticked, first and in their order
        (the order means something: active uplinks, policies compared; a
        newly ticked one goes last); a chosen name no longer offered
        stays, so nothing is lost unseen. ``chosen`` None: the field's
        default, nothing ticked."""
        self._none = chosen is None
        chosen = list(chosen or [])
        model = QtGui.QStandardItemModel(self)
        for name in dict.fromkeys(chosen + list(names)):
            item = QtGui.QStandardItem(str(self.labels.get(name, name)))
            item.setData(name, QtCore.Qt.ItemDataRole.UserRole)
            item.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled |
                          QtCore.Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(QtCore.Qt.CheckState.Checked if name in chosen
                               else QtCore.Qt.CheckState.Unchecked)
            model.appendRow(item)
        self.setModel(model)
        self.update()

    def _items(self):
        model = self.model()
        return [model.item(i) for i in range(model.rowCount())]

    def chosen(self):
        return [item.data(QtCore.Qt.ItemDataRole.UserRole)
                for item in self._items()
                if item.checkState() == QtCore.Qt.CheckState.Checked]

    def _move_last_ticked(self, row):
        """A newly ticked entry goes after the ticked ones."""
        model = self.model()
        ticked = sum(item.checkState() == QtCore.Qt.CheckState.Checked
                     for item in self._items()[:row])
        if ticked < row:
            model.insertRow(ticked, model.takeRow(row))

    def shown_text(self):
        """What the box shows: the ticked names, or why none is."""
        if self._none and self.unset is not None:
            return self.unset
        return ", ".join(str(self.labels.get(v, v)) for v in self.chosen()) \
            or "(none)"

    def toggle(self, name):
        """Tick ``name`` on or off (a click on it; tests)."""
        for row, item in enumerate(self._items()):
            if item.data(QtCore.Qt.ItemDataRole.UserRole) == name:
                ticked = item.checkState() == QtCore.Qt.CheckState.Checked
                item.setCheckState(QtCore.Qt.CheckState.Unchecked if ticked
                                   else QtCore.Qt.CheckState.Checked)
                if not ticked:
                    self._move_last_ticked(row)
                break
        self._none = False
        self.update()
        self.chosen_changed.emit(self.chosen())

    def eventFilter(self, watched, event):
        # a click ticks an entry and keeps the popup open for the next
        if event.type() == QtCore.QEvent.Type.MouseButtonRelease:
            index = self.view().indexAt(event.position().toPoint())
            if index.isValid():
                self.toggle(index.data(QtCore.Qt.ItemDataRole.UserRole))
                return True
        return super().eventFilter(watched, event)

    def initStyleOption(self, option):
        super().initStyleOption(option)
        option.currentText = self.shown_text()

    def paintEvent(self, _event):
        painter = QtWidgets.QStylePainter(self)
        option = QtWidgets.QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QtWidgets.QStyle.ComplexControl.CC_ComboBox,
                                   option)
        painter.drawControl(QtWidgets.QStyle.ControlElement.CE_ComboBoxLabel,
                            option)


def enum_list(spec):
    """(values, labels) of a list of enumerated values (the policies a
    team compares), or None for other fields."""
    if spec.kind != "list" or spec.detail[0] != "enum":
        return None
    values = spec.detail[2]
    return list(values), {v: VALUE_LABELS.get(spec.name, {}).get(v, v)
                          for v in values}


class PickDelegate(QtWidgets.QStyledItemDelegate):
    """Cells of choices edited with pick lists: enumerated values by
    their names, on/off, and references to other lists' entries by
    name (one, or several ticked)."""

    def __init__(self, grid):
        super().__init__(grid)
        self._grid = grid

    def createEditor(self, parent, option, index):
        column = self._grid.model.columns[index.column()]
        spec = column.spec
        current = self._grid.model.entries[index.row()]
        value = grid_rows.cell(current, column)
        if column.reference is not None and spec.kind == "list":
            return CheckList(self._grid.reference_names(column), value or [],
                             parent)
        if enum_list(spec) is not None:
            values, labels = enum_list(spec)
            return CheckList(values, value, parent, labels=labels,
                             unset=spec.value_label(None))
        if column.reference is not None or spec.kind in ("enum", "bool"):
            box = QtWidgets.QComboBox(parent)
            if spec.optional:
                box.addItem("" if spec.kind != "enum"
                            else spec.value_label(None))
            if column.reference is not None:
                box.addItems(self._grid.reference_names(column))
            elif spec.kind == "bool":
                box.addItems([show_value(True), show_value(False)])
            else:
                box.addItems([spec.value_label(v) for v in spec.detail])
            return box
        return super().createEditor(parent, option, index)

    def setEditorData(self, editor, index):
        if isinstance(editor, CheckList):
            return
        if isinstance(editor, QtWidgets.QComboBox):
            text = index.data(QtCore.Qt.ItemDataRole.EditRole)
            found = editor.findText(text)
            if found < 0:
                editor.addItem(text)
                found = editor.count() - 1
            editor.setCurrentIndex(found)
            return
        super().setEditorData(editor, index)

    def setModelData(self, editor, model, index):
        if isinstance(editor, CheckList):
            model.setData(index, ", ".join(editor.chosen()))
        elif isinstance(editor, QtWidgets.QComboBox):
            model.setData(index, editor.currentText())
        else:
            super().setModelData(editor, model, index)


class GridPage(QtWidgets.QWidget):
    """The grid of the list at ``list_path`` (entries of ``model``).

    Parameters
    ----------
    model : type
        The pydantic model of the list's entries.
    list_path : str
        Where the list is in the document (``'workloads.flows'``).
    title : str
        The list's name in words, for undo steps.
    new_entry : callable
        ``new_entry(siblings, data)``: a valid new entry (the editor's).
    """

    #: list path, the whole new list, label: one undoable step
    edited = QtCore.Signal(str, list, str)
    #: a paste or a cell that could not be read: the message
    refused = QtCore.Signal(str)
    #: the list's grid asked for in a window of its own
    window_requested = QtCore.Signal(str)

    def __init__(self, model, list_path, title, new_entry, parent=None):
        super().__init__(parent)
        self.list_path, self.title = list_path, title
        self.entry_model = model
        self.fields = {}   # no field editors: the cells are the fields
        self._new_entry = new_entry
        self._data = None
        self._sorted = None   # (column index, descending) of the last sort
        self.model = GridModel(grid_rows.columns(model), self)
        self.model.cell_edited.connect(self._cell_edited)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        intro = QtWidgets.QLabel(
            f"{(model.__doc__ or '').strip().splitlines()[0]} Paste rows "
            "from a spreadsheet or CSV; “40 × web” makes 40.")
        intro.setToolTip(
            "One row per entry; type in a cell (choices and references "
            "from pick lists). Pasted rows with a header row (field names "
            "or labels) are added; a count column or a name “40 × web VM” "
            "adds web1 … web40. Without a header the cells overwrite the "
            "table from the current cell. Click a header to sort; Ctrl+D "
            "fills the selected cells down; Del deletes the selected rows. "
            "Each is one undoable step.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        actions = QtWidgets.QHBoxLayout()
        actions.setSpacing(2)
        self.buttons = {}
        for key, text, tip in (
                ("paste", "Paste rows", "Paste rows from a spreadsheet or "
                 "a CSV file (Ctrl+V in the table)"),
                ("fill", "Fill down", "The first selected row's values into "
                 "the rows selected below it (Ctrl+D); names number on"),
                ("delete", "Delete rows", "Delete the selected rows (Del)"),
                ("window", "Window…", "This table in a window of its own")):
            button = self.buttons[key] = QtWidgets.QToolButton()
            button.setText(text)
            button.setToolTip(f"{tip} (undoable)" if key != "window"
                              else tip)
            button.clicked.connect(getattr(self, f"_{key}_clicked"))
            actions.addWidget(button)
        actions.addStretch(1)
        layout.addLayout(actions)
        self.table = QtWidgets.QTableView()
        self.table.setModel(self.model)
        self.table.setItemDelegate(PickDelegate(self))
        self.table.setSelectionMode(
            QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(
            QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked |
            QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed |
            QtWidgets.QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(
            self.table.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setSectionsClickable(True)
        header.sectionClicked.connect(self._header_clicked)
        # five rows at least: the editor's pane at 1280x800 holds the
        # table without scrolling the page around it
        self.table.setMinimumHeight(6 * (self.table.fontMetrics().height()
                                         + 6))
        layout.addWidget(self.table, 1)
        # the table's own keys: a cell being edited keeps Del and Ctrl+V
        self.table.installEventFilter(self)

    def eventFilter(self, watched, event):
        if watched is self.table and \
                event.type() == QtCore.QEvent.Type.KeyPress:
            keys = QtGui.QKeySequence.StandardKey
            if event.matches(keys.Paste):
                self._paste_clicked()
            elif event.matches(keys.Copy):
                self.copy()
            elif event.matches(keys.Delete):
                self.delete_rows()
            elif event.key() == QtCore.Qt.Key.Key_D and \
                    event.modifiers() == \
                    QtCore.Qt.KeyboardModifier.ControlModifier:
                self.fill_down()
            else:
                return False
            return True
        return super().eventFilter(watched, event)

    def copy(self):
        """The selected cells to the clipboard, tab-separated as a
        spreadsheet takes them (and a paste here reads them back)."""
        indexes = self.table.selectedIndexes()
        if not indexes:
            return
        rows = sorted({i.row() for i in indexes})
        columns = sorted({i.column() for i in indexes})
        QtWidgets.QApplication.clipboard().setText("\n".join(
            "\t".join(grid_rows.cell_text(self.model.entries[r],
                                           self.model.columns[c])
                       for c in columns) for r in rows))

    # -- showing -----------------------------------------------------

    def load(self, data, _changed=None):
        """Show the list in the document's plain ``data``."""
        from models.scenario import get_path
        self._data = data
        try:
            entries = get_path(data, self.list_path) or []
        except KeyError:   # the list's owner was removed
            entries = []
        if entries == self.model.entries:
            return
        # a changed list keeps the current cell, not the selection
        current = self.table.currentIndex()
        self.model.set_entries(entries)
        self._fit_columns()
        if current.isValid() and current.row() < len(entries):
            self.table.setCurrentIndex(self.model.index(current.row(),
                                                        current.column()))

    def _fit_columns(self):
        """Each column as wide as its header and widest cell, within
        bounds: whole headers, never a column the width of a page."""
        metrics = self.table.fontMetrics()
        header_metrics = self.table.horizontalHeader().fontMetrics()
        for index, column in enumerate(self.model.columns):
            texts = [grid_rows.cell_text(e, column)
                     for e in self.model.entries[:200]]
            width = max([metrics.horizontalAdvance(t) for t in texts] +
                        [header_metrics.horizontalAdvance(column.header)])
            self.table.setColumnWidth(index, min(width + 24, 360))

    def reference_names(self, column):
        return grid_rows.reference_names(self._data or {}, column)

    def selected_rows(self):
        """Rows with a selected cell, in order."""
        return sorted({i.row() for i in self.table.selectedIndexes()})

    def column(self, name):
        """The index of the column of field path ``name`` (tests)."""
        return next(i for i, c in enumerate(self.model.columns)
                    if c.path == name)

    # -- edits ---------------------------------------------------------

    def _emit(self, entries, label):
        self.edited.emit(self.list_path, entries, label)

    def _new(self, siblings):
        return self._new_entry(siblings, self._data)

    def _cell_edited(self, row, column, text):
        entries = self.model.entries
        try:
            value = grid_rows.parse_cell(column, text)
        except ValueError as err:
            self.refused.emit(f"{column.header}: {err}")
            return
        if value == grid_rows.cell(entries[row], column):
            return
        changed = list(entries)
        changed[row] = grid_rows.with_cell(entries[row], column, value)
        name = entry_name(entries[row]) or f"row {row + 1}"
        self._emit(changed, f"Set {column.label} of {name} to "
                            f"{grid_rows.cell_text(changed[row], column)}")

    def paste(self, text):
        """Paste rows of ``text`` as one step (the clipboard's, or a
        test's): see :func:`app.grid_rows.pasted`."""
        current = self.table.currentIndex()
        at = (current.row(), current.column()) if current.isValid() \
            else None
        try:
            entries, count = grid_rows.pasted(
                self.model.entries, text, self.model.columns, self._new,
                at=at)
        except ValueError as err:
            self.refused.emit(f"Paste into {self.title}: {err}")
            return
        self._emit(entries, f"Paste {count} row{'s' * (count != 1)} into "
                            f"{self.title}")

    def _paste_clicked(self):
        self.paste(QtWidgets.QApplication.clipboard().text())

    def fill_down(self):
        """Fill every selected column down from its first selected row."""
        chosen = {}
        for index in self.table.selectedIndexes():
            chosen.setdefault(index.column(), set()).add(index.row())
        entries = self.model.entries
        filled = []
        for column_index, rows in sorted(chosen.items()):
            column = self.model.columns[column_index]
            changed = grid_rows.filled_down(entries, rows, column)
            if changed != entries:
                entries = changed
                filled.append(column.label)
        if filled:
            self._emit(entries, f"Fill down {', '.join(filled)} in "
                                f"{self.title}")

    def _fill_clicked(self):
        self.fill_down()

    def sort_by(self, column_index, descending=False):
        """Order the list by a column, as one step."""
        column = self.model.columns[column_index]
        entries = grid_rows.sorted_rows(self.model.entries, column,
                                        descending)
        self._sorted = (column_index, descending)
        self.table.horizontalHeader().setSortIndicatorShown(True)
        self.table.horizontalHeader().setSortIndicator(
            column_index, QtCore.Qt.SortOrder.DescendingOrder if descending
            else QtCore.Qt.SortOrder.AscendingOrder)
        if entries != self.model.entries:
            self._emit(entries, f"Sort {self.title} by {column.label}"
                                f"{' (descending)' if descending else ''}")

    def _header_clicked(self, column_index):
        # a second click on the same header reverses the order
        descending = self._sorted == (column_index, False)
        self.sort_by(column_index, descending)

    def delete_rows(self, rows=None):
        """Delete ``rows`` (the selected ones) as one step."""
        rows = self.selected_rows() if rows is None else sorted(rows)
        if not rows:
            return
        names = [entry_name(self.model.entries[r]) or f"row {r + 1}"
                 for r in rows]
        shown = ", ".join(names[:3]) + ("…" if len(names) > 3 else "")
        self._emit(grid_rows.without_rows(self.model.entries, rows),
                   f"Delete {shown} from {self.title}")

    def _delete_clicked(self):
        self.delete_rows()

    def _window_clicked(self):
        self.window_requested.emit(self.list_path)
