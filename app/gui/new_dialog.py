"""File > New asks what the document is for: its name and the question it
answers (the title of the window and of the PDF, "Question: ..." on the
report's first page), prefilled from the template."""

from PySide6 import QtWidgets


class NewDocumentDialog(QtWidgets.QDialog):
    """Name and question of a new document; ``answers()`` after ``exec``."""

    def __init__(self, parent, name, question):
        super().__init__(parent)
        self.setWindowTitle("New scenario")
        form = QtWidgets.QFormLayout(self)
        self.name = QtWidgets.QLineEdit(name)
        self.name.setToolTip("Title of the window and of the report")
        self.question = QtWidgets.QPlainTextEdit(question)
        self.question.setToolTip("What the study answers; the report's "
                                 "first page opens with it")
        self.question.setTabChangesFocus(True)
        self.question.setFixedHeight(
            self.question.fontMetrics().lineSpacing() * 4)
        form.addRow("Name", self.name)
        form.addRow("Question", self.question)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.name.selectAll()
        self.resize(max(self.sizeHint().width(), 520),
                    self.sizeHint().height())

    def answers(self):
        """(name, question) as typed, stripped; empty ones left out."""
        return self.name.text().strip(), \
            self.question.toPlainText().strip()
