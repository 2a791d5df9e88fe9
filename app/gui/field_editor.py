"""One field of the scenario editor's form: its input (a line, a choice,
a switch or a pick list), unit, tooltip with the meaning and the default,
the "changed" mark with its way back, and a refused value shown in place
until it is corrected (:mod:`app.gui.editor` lays the fields out)."""

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.appearance import colour
from app.gui.grid import CheckList, enum_list
from app.schema_fields import parse_text, show_value


class FieldEditor(QtWidgets.QWidget):
    """One field: its input, unit, changed mark and way back, and the
    message of a refused value beneath it."""

    committed = QtCore.Signal(str, object)
    reset_clicked = QtCore.Signal(str)

    def __init__(self, spec, path, parent=None, reference=None):
        super().__init__(parent)
        self.spec, self.path = spec, path
        #: the list whose entries' names the field takes (a pick list)
        self.reference = reference
        self._choices = []
        self._value = None
        self._shown_pending = None
        layout = QtWidgets.QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setHorizontalSpacing(4)
        layout.setVerticalSpacing(1)
        tip = spec.tooltip()
        if reference is not None and spec.kind == "list":
            self.input = CheckList([], [])
            self.input.chosen_changed.connect(
                lambda names: self.committed.emit(self.path, names))
        elif enum_list(spec) is not None:   # the policies a team compares
            values, labels = enum_list(spec)
            self._choices = values
            self.input = CheckList(values, spec.default, labels=labels,
                                   unset=spec.value_label(None))
            self.input.chosen_changed.connect(
                lambda values: self.committed.emit(self.path, values))
        elif reference is not None:
            self.input = QtWidgets.QComboBox()
            self.input.activated.connect(
                lambda i: self.committed.emit(self.path,
                                              self.input.itemData(i)))
        elif spec.kind == "bool":
            self.input = QtWidgets.QCheckBox()
            self.input.clicked.connect(
                lambda on: self.committed.emit(self.path, bool(on)))
        elif spec.kind == "enum":
            self.input = QtWidgets.QComboBox()
            if spec.optional:
                self.input.addItem(spec.value_label(None), None)
            for value in spec.detail:
                self.input.addItem(spec.value_label(value), value)
            # vendors' names are long: elide in the box, whole in the list
            self.input.setSizeAdjustPolicy(
                QtWidgets.QComboBox.SizeAdjustPolicy
                .AdjustToMinimumContentsLengthWithIcon)
            self.input.setMinimumContentsLength(12)
            self.input.view().setMinimumWidth(
                self.input.view().sizeHintForColumn(0) + 24)
            # the whole choice where the box elides it
            self.input.currentTextChanged.connect(
                lambda text: self.input.setToolTip(f"{text}\n\n{tip}"))
            self.input.activated.connect(
                lambda i: self.committed.emit(self.path,
                                              self.input.itemData(i)))
        else:
            self.input = QtWidgets.QLineEdit()
            if spec.optional:
                self.input.setPlaceholderText("default")
            if spec.kind == "list":
                self.input.setPlaceholderText("comma-separated")
            self.input.editingFinished.connect(self._text_done)
        self.input.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding,
                                 QtWidgets.QSizePolicy.Policy.Fixed)
        self.input.setToolTip(tip)
        self._tooltip = tip
        layout.addWidget(self.input, 0, 0)
        self.unit = QtWidgets.QLabel(spec.unit)
        self.unit.setMinimumWidth(self.unit.fontMetrics().horizontalAdvance(
            "Gbit/s"))
        layout.addWidget(self.unit, 0, 1)
        self.reset = QtWidgets.QToolButton()
        self.reset.setText("↺")
        self.reset.setAutoRaise(True)
        self.reset.setToolTip("Back to the default" if spec.default is not
                              None or spec.optional else "Back")
        self.reset.clicked.connect(lambda: self.reset_clicked.emit(self.path))
        # keeps its room when hidden: the fields do not jump
        policy = self.reset.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.reset.setSizePolicy(policy)
        self.reset.hide()
        layout.addWidget(self.reset, 0, 2)
        self.error = QtWidgets.QLabel()
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        layout.addWidget(self.error, 1, 0, 1, 3)
        layout.setColumnStretch(0, 1)

    def set_choices(self, names):
        """The names a reference field picks from (before its value)."""
        self._choices = list(names)
        if isinstance(self.input, CheckList):
            return   # ticked by set_value
        self.input.blockSignals(True)
        self.input.clear()
        if self.spec.optional or self.spec.default == "":
            self.input.addItem("", self.spec.default)
        for name in names:
            self.input.addItem(name, name)
        self.input.blockSignals(False)

    def text(self):
        """What the field shows (the combo's label, the check state)."""
        if isinstance(self.input, QtWidgets.QCheckBox):
            return show_value(self.input.isChecked())
        if isinstance(self.input, CheckList):
            return show_value(self.input.chosen())
        if isinstance(self.input, QtWidgets.QComboBox):
            return self.input.currentText()
        return self.input.text()

    def value(self):
        return self._value

    def set_value(self, value, changed=False, resettable=True):
        """Show ``value`` without emitting anything."""
        self._value = value
        self.input.blockSignals(True)
        try:
            if isinstance(self.input, QtWidgets.QCheckBox):
                self.input.setChecked(bool(value))
            elif isinstance(self.input, CheckList):
                self.input.set_names(self._choices, value)
            elif isinstance(self.input, QtWidgets.QComboBox):
                index = self.input.findData(value)
                if index < 0:   # a value the schema does not list
                    self.input.addItem(str(value), value)
                    index = self.input.count() - 1
                self.input.setCurrentIndex(index)
                self.input.setToolTip(f"{self.input.currentText()}\n\n"
                                      f"{self._tooltip}")
            else:
                text = show_value(value)
                if self.input.text() != text:
                    self.input.setText(text)
                    self.input.setCursorPosition(0)
        finally:
            self.input.blockSignals(False)
        self.reset.setVisible(changed and resettable)
        self.setProperty("changed", changed)

    def enter(self, text):
        """Type ``text`` and commit it, as a user would (tests, scripts)."""
        if isinstance(self.input, CheckList):
            wanted = parse_text(self.spec, text)
            for name in set(wanted) ^ set(self.input.chosen()):
                self.input.blockSignals(True)
                self.input.toggle(name)
                self.input.blockSignals(False)
            self.committed.emit(self.path, self.input.chosen())
        elif isinstance(self.input, QtWidgets.QLineEdit):
            self.input.setText(text)
            self._text_done()
        elif isinstance(self.input, QtWidgets.QComboBox):
            index = self.input.findText(text)
            if index < 0:
                index = next(i for i in range(self.input.count())
                             if str(self.input.itemData(i)) == text)
            self.input.setCurrentIndex(index)
            self.input.activated.emit(index)
        else:
            if parse_text(self.spec, text) != self.input.isChecked():
                self.input.click()

    def show_pending(self, value):
        """Show a value the document does not hold (yet)."""
        if isinstance(self.input, QtWidgets.QLineEdit):
            self.input.setText(show_value(value))
            self._shown_pending = self.input.text()

    def _text_done(self):
        text = self.input.text()
        if text.strip() == show_value(self._value) or \
                self.property("refused") and self._shown_pending == text:
            return   # focus left without a change
        try:
            value = parse_text(self.spec, text)
        except ValueError as err:
            self.show_error(str(err))
            return
        self.committed.emit(self.path, value)

    def offer(self, values):
        """Grey out the choices the platform does not offer (``values``;
        None: every choice); the value held stays shown."""
        if not isinstance(self.input, QtWidgets.QComboBox):
            return
        model = self.input.model()
        for i in range(self.input.count()):
            data = self.input.itemData(i)
            allowed = values is None or data is None or data in values
            model.item(i).setEnabled(allowed)
            model.item(i).setToolTip(
                "" if allowed else "Not offered by this host's hypervisor "
                "(models.platform)")

    def show_error(self, message):
        """Refuse: the message beneath the field, the field tinted."""
        self.error.setText(f"Not applied: {message}")
        self.error.setStyleSheet(f"color: {colour('error')};")
        self.error.show()
        # a tint of the charts' vermilion behind the field; a palette
        # keeps the platform's look of the field
        palette = self.input.palette()
        for role in (QtGui.QPalette.ColorRole.Base,
                     QtGui.QPalette.ColorRole.Button):
            palette.setColor(role, QtGui.QColor(colour("refused")))
        self.input.setPalette(palette)
        self.input.setToolTip(f"Not applied: {message}")
        self.setProperty("refused", True)

    def clear_error(self):
        if not self.property("refused"):
            return
        self.error.clear()
        self.error.hide()
        self.input.setPalette(QtGui.QPalette())   # the application's again
        self.input.setToolTip(self._tooltip)
        self.setProperty("refused", False)
