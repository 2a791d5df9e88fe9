"""The variants panel: the base and its variants in order, with add,
duplicate, rename, delete and move; below, what the selected variant
changes against the base, each change with a way back."""

from PySide6 import QtCore, QtWidgets

from app.schema_fields import VALUE_LABELS, field_label, show_value


def path_text(path):
    """A parameter path in words: ``nics[1].speed_gbps`` -> 'nics[1] ›
    Speed'."""
    head, _, name = path.rpartition(".")
    return f"{head} › {field_label(name)}" if head else field_label(name)


class VariantsPanel(QtWidgets.QWidget):
    """Shows the variants of the window's scenario; every action is the
    window's (one undoable edit each)."""

    def __init__(self, window):
        super().__init__()
        self.window = window
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QtWidgets.QLabel("<b>Variants</b> — select one to "
                                          "edit it above"))
        self.list = QtWidgets.QListWidget()
        self.list.setToolTip("The base and its variants: named changes of "
                             "the base, compared side by side")
        # the editor above gets the room (issue 37: fields at 1280x800):
        # two rows in view at the least, the panel's splitter gives more
        rows = self.list.fontMetrics().height() + 4
        self.list.setMinimumHeight(2 * rows + 6)
        layout.addWidget(self.list, 2)
        buttons = QtWidgets.QHBoxLayout()
        buttons.setSpacing(2)
        self.buttons = {}
        for key, text, tip, slot in (
                ("add", "Add", "A new variant equal to the base",
                 window.add_variant),
                ("duplicate", "Duplicate", "A copy of the selected variant",
                 lambda: window.duplicate_variant(self.selected())),
                ("rename", "Rename…", "Rename the selected variant",
                 window.rename_variant_dialog),
                ("delete", "Delete", "Delete the selected variant",
                 lambda: window.delete_variant(self.selected())),
                ("up", "▲", "Move the selected variant left in the table",
                 lambda: window.move_variant(self.selected(), -1)),
                ("down", "▼", "Move the selected variant right in the table",
                 lambda: window.move_variant(self.selected(), 1))):
            button = self.buttons[key] = QtWidgets.QToolButton()
            button.setText(text)
            button.setToolTip(f"{tip} (undoable)")
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)

        self.changes = QtWidgets.QTreeWidget()
        self.changes.setColumnCount(3)
        self.changes.setHeaderLabels(["Changes against the base", "Variant",
                                      "Base"])
        self.changes.setRootIsDecorated(False)
        self.changes.setUniformRowHeights(True)
        self.changes.setToolTip("Only what the selected variant changes; "
                                "Back to base removes a change")
        header = self.changes.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(
            0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(
                column, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        # a few rows: the editor above shows the changes in place too
        self.changes.setMaximumHeight(
            7 * self.changes.fontMetrics().height())
        self.changes.setMinimumHeight(3 * rows)
        layout.addWidget(self.changes, 1)
        self.back = QtWidgets.QPushButton("Back to base")
        self.back.setToolTip("Remove the selected change from the variant "
                             "(undoable)")
        self.back.clicked.connect(self._back_to_base)
        layout.addWidget(self.back)

    def selected(self):
        """Index in ``scenario.variants`` of the selected row, or None
        (the base, or nothing, is selected)."""
        row = self.list.currentRow()
        return row - 1 if row >= 1 else None

    def load(self, scenario):
        """Show the variants; the selected row stays where it was."""
        selected = self.list.currentRow()
        rows = ["Base"] + [f"{v.name}  ({_count(len(v.set))})"
                           for v in scenario.variants]
        self.list.blockSignals(True)
        try:
            if [self.list.item(i).text() for i in
                    range(self.list.count())] != rows:
                self.list.clear()
                self.list.addItems(rows)
            for i, variant in enumerate(scenario.variants, start=1):
                self.list.item(i).setToolTip(
                    variant.description or variant.describe())
            self.list.setCurrentRow(max(0, min(selected,
                                               self.list.count() - 1)))
        finally:
            self.list.blockSignals(False)
        self.show_changes(scenario)

    def show_changes(self, scenario):
        """The selected variant's changes with the base's values."""
        index = self.selected()
        self.changes.clear()
        enabled = index is not None
        for key in ("duplicate", "rename", "delete", "up", "down"):
            self.buttons[key].setEnabled(enabled)
        if enabled:
            self.buttons["up"].setEnabled(index > 0)
            self.buttons["down"].setEnabled(
                index < len(scenario.variants) - 1)
        self.changes.setEnabled(enabled)
        self.back.setEnabled(False)
        if not enabled:
            return
        for path, value in scenario.variants[index].set.items():
            value = _choice(path, value)
            try:
                base = show_value(_choice(path, scenario.value_at(path)))
            except KeyError:
                base = "(not in the base)"
            item = QtWidgets.QTreeWidgetItem(
                [path_text(path), _short(value), _short(base)])
            item.setData(0, QtCore.Qt.ItemDataRole.UserRole, path)
            item.setToolTip(0, path)
            item.setToolTip(1, show_value(value))
            item.setToolTip(2, base)
            self.changes.addTopLevelItem(item)
        self.back.setEnabled(self.changes.topLevelItemCount() > 0)
        if self.changes.topLevelItemCount():
            self.changes.setCurrentItem(self.changes.topLevelItem(0))

    def _back_to_base(self):
        item = self.changes.currentItem()
        index = self.selected()
        if item is not None and index is not None:
            self.window.remove_override(
                index, item.data(0, QtCore.Qt.ItemDataRole.UserRole))


def _count(changes):
    return {0: "no change yet", 1: "1 change"}.get(changes,
                                                  f"{changes} changes")


def _choice(path, value):
    """An enumerated value in the words its box in the editor uses
    ('Route based on physical NIC load', not 'lbt')."""
    labels = VALUE_LABELS.get(path.rpartition(".")[2], {})
    return labels.get(value, value) if isinstance(value, str) else value


def _short(value, width=16):
    # the path keeps room beside both values; the tooltips are whole
    text = value if isinstance(value, str) else show_value(value)
    return text if len(text) <= width else text[:width - 1] + "…"
