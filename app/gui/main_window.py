"""Linkplan's main window: editor on the left, analyses on the right.

The window shows a :class:`app.session.Session`: edits go to the session,
whose worker evaluates them; results come back to the GUI thread through a
queued signal and only the newest document's are drawn.
"""

import functools
from html import escape
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.accuracy_dialog import show_accuracy
from app.gui.advice import AdviceDialog
from app.gui.comparison import ComparisonModel
from app.gui.editor import NetworkEditor
from app.gui.import_dialog import run_import_dialog
from app.gui.parameters import ParameterTable
from app.gui.views import VIEWS
from app.paths import DEFAULT_EXAMPLE, resource_path
from app.scenario_io import load_scenario, save_scenario
from app.session import Session
from models.scenario import ScenarioError, new_scenario

_FILE_FILTER = "Linkplan scenarios (*.toml *.json);;All files (*)"


class _GuiThreadCalls(QtCore.QObject):
    """Runs calls handed over from worker threads in the thread this
    object lives in (the GUI thread), in the order they were posted."""

    _posted = QtCore.Signal(object)

    def __init__(self, parent):
        super().__init__(parent)
        self._posted.connect(self._run,
                             QtCore.Qt.ConnectionType.QueuedConnection)

    def post(self, function, *args):
        """Call ``function(*args)`` in the GUI thread (from any thread)."""
        self._posted.emit(functools.partial(function, *args))

    def deliver(self):
        """Run the calls posted so far, now."""
        QtCore.QCoreApplication.sendPostedEvents(
            self, QtCore.QEvent.Type.MetaCall)

    @QtCore.Slot(object)
    def _run(self, call):
        call()


class MainWindow(QtWidgets.QMainWindow):
    """One scenario document, its variants compared side by side."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.results = None   # the results shown
        self._advice_asked = None   # document version the user asked about
        self._gui_thread = _GuiThreadCalls(self)
        self.session = Session(new_scenario())

        self.editor = NetworkEditor()
        self.editor.edited.connect(self.edit)
        self.editor.edited_many.connect(self.edit_many)
        self.title = QtWidgets.QLabel()
        self.title.setWordWrap(True)
        self.title.setStyleSheet("font-weight: bold; font-size: 13pt;")
        self.description = QtWidgets.QLabel()
        self.description.setWordWrap(True)
        self.variants = QtWidgets.QListWidget()
        self.variants.setToolTip("Variants: named overrides of the base")
        self.variants.setWordWrap(True)

        left = QtWidgets.QWidget()
        left_layout = QtWidgets.QVBoxLayout(left)
        left_layout.addWidget(self.title)
        left_layout.addWidget(self.description)
        left_layout.addWidget(self.editor)
        self.parameters = ParameterTable()
        self.parameters.edited.connect(self.edit)
        self.parameters.refused.connect(
            lambda message: self.statusBar().showMessage(
                f"Not applied: {message}", 10000))
        lists = QtWidgets.QTabWidget()
        lists.addTab(self.variants, "Variants")
        lists.addTab(self.parameters, "All parameters")
        left_layout.addWidget(lists, 1)

        self.table_model = ComparisonModel(self)
        self.table = QtWidgets.QTableView()
        self.table.setModel(self.table_model)
        self.table.setAlternatingRowColors(True)
        # whole variant names, scrolling sideways when there are many
        self.table.horizontalHeader().setSectionResizeMode(
            QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setSectionResizeMode(
            QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.notes = QtWidgets.QTextBrowser()
        self.notes.setMinimumHeight(110)

        # charts in tabs; the table and the notes stay visible below them
        self.tabs = QtWidgets.QTabWidget()
        self.view_tabs = {}
        for view in VIEWS:
            tab = self.view_tabs[view.key] = view.tab()
            self.tabs.addTab(tab.widget, view.title.replace("&", "&&"))
        right = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        right.addWidget(self.tabs)
        right.addWidget(self.table)
        right.addWidget(self.notes)
        right.setSizes([380, 260, 160])

        splitter = QtWidgets.QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([300, 900])
        self.setCentralWidget(splitter)
        self._build_menus()
        self.resize(1280, 800)

        session = self.session
        # no event may reach the window's widgets once Qt deleted them
        self.destroyed.connect(lambda *_: session.close())
        session.document_changed.connect(self._show_document)
        session.clean_changed.connect(lambda clean: self._update_title())
        for event, slot in ((session.results_ready, self._show_results),
                            (session.evaluation_failed,
                             self._show_evaluation_error),
                            (session.advice_ready, self._offer_advice)):
            event.connect(functools.partial(self._gui_thread.post, slot))
        self._show_document(session.scenario)
        if session.results is not None:   # ready before the subscription
            self._show_results(session.generation, session.results)

    # -- menus ---------------------------------------------------------------

    def _build_menus(self):
        keys = QtGui.QKeySequence.StandardKey
        file_menu = self.menuBar().addMenu("&File")
        for text, slot, key in (
                ("&New", self.new_document, keys.New),
                ("&Open…", self.open_dialog, keys.Open),
                ("&Save", self.save, keys.Save),
                ("Save &As…", self.save_as_dialog, keys.SaveAs),
                ("&Import…", lambda: run_import_dialog(self), None),
                ("&Export PDF…", self.export_pdf_dialog, None),
                ("&Quit", self.close, keys.Quit)):
            action = file_menu.addAction(text, slot)
            if key is not None:
                action.setShortcut(key)
        edit_menu = self.menuBar().addMenu("&Edit")
        self.undo_action = edit_menu.addAction("&Undo", self.undo)
        self.undo_action.setShortcut(keys.Undo)
        self.redo_action = edit_menu.addAction("&Redo", self.redo)
        self.redo_action.setShortcut(keys.Redo)
        analysis_menu = self.menuBar().addMenu("&Analysis")
        recommend = analysis_menu.addAction("&Recommend changes…",
                                            self.recommend_dialog)
        recommend.setShortcut(QtGui.QKeySequence("Ctrl+R"))
        self.menuBar().addMenu("&Help").addAction(
            "Model &accuracy…", lambda: show_accuracy(self))

    def recommend_dialog(self):
        """Advise on the base scenario (computed off the GUI thread); the
        dialog opens when the advice is ready, and the chosen change is
        applied undoably."""
        self._advice_asked = self.session.generation
        self.statusBar().showMessage("Computing recommendations…")
        self.session.request_advice()

    def _offer_advice(self, outcome):
        if outcome.generation != self._advice_asked:
            return   # computed for the report, or for an older document
        self._advice_asked = None
        self.statusBar().clearMessage()
        dialog = self.advice_dialog(outcome)
        if dialog is not None and dialog.exec() and dialog.chosen:
            self.apply_recommendation(dialog.chosen)

    def advice_dialog(self, outcome):
        """The dialog for a :class:`app.session.AdviceOutcome`, or None
        after telling the user why there is nothing to advise."""
        if outcome.advice is None:
            self._warn("Recommendations failed" if outcome.failed
                       else "Nothing to recommend", outcome.message)
            return None
        return AdviceDialog(outcome.advice, self.scenario, self)

    def apply_recommendation(self, recommendation):
        """Apply a recommendation's change as one undoable edit."""
        self.edit_many({path: c["new"]
                        for path, c in recommendation.change.items()},
                       f"Apply {recommendation.id.removeprefix('advice.')}")

    # -- document ------------------------------------------------------------

    @property
    def scenario(self):
        return self.session.scenario

    @property
    def path(self):
        return self.session.path

    def set_document(self, scenario, path=None):
        """Show a scenario as a fresh, unmodified document."""
        self.session.open(scenario, path)

    def open_example(self):
        self.open_path(resource_path(DEFAULT_EXAMPLE), as_template=True)

    def open_path(self, path, *, as_template=False):
        """Load a file; on failure explain why and keep the current
        document. ``as_template`` opens it without a file to save back to
        (the bundled examples stay untouched)."""
        try:
            scenario = load_scenario(path)
        except ScenarioError as err:
            self._warn("Cannot open scenario", str(err))
            return False
        self.set_document(scenario, None if as_template else Path(path))
        return True

    def edit(self, path, value, label):
        """Apply a user edit as an undoable step, if it is valid."""
        self.edit_many({path: value}, label)

    def edit_many(self, changes, label):
        """Apply several parameters that change together as one undoable
        step, if the result is valid."""
        try:
            self.session.edit(changes, label)
        except ScenarioError as err:
            self.statusBar().showMessage(f"Not applied: {err}", 10000)
            self.editor.load(self.scenario)
            self.parameters.load(self.scenario)

    def undo(self):
        if self.session.history.can_undo:
            self.session.undo()

    def redo(self):
        if self.session.history.can_redo:
            self.session.redo()

    def apply_value(self, path, value):
        """Set one parameter and re-solve, without an undo step (scripts,
        tests and benchmarks)."""
        self.show_scenario(self.scenario.with_value(path, value))

    def show_scenario(self, scenario):
        """Make a validated scenario the current one and re-solve."""
        self.session.replace(scenario)

    def wait_for_results(self, timeout=None):
        """Block until the current document's results (or its evaluation
        error) are shown: self-test, PDF export, tests, benchmarks."""
        done = self.session.wait(timeout)
        self._gui_thread.deliver()
        return done

    def _show_document(self, scenario):
        if self._advice_asked not in (None, self.session.generation):
            self._advice_asked = None
            self.statusBar().showMessage(
                "Recommendations dropped: the scenario changed while they "
                "were computed; ask again (Ctrl+R).", 10000)
        self.editor.load(scenario)
        self.parameters.load(scenario)
        self.title.setText(scenario.meta.name)
        self.description.setText(scenario.meta.description)
        self.variants.clear()
        self.variants.addItem("Base")
        for variant in scenario.variants:
            self.variants.addItem(f"{variant.name}: {variant.describe()}")
        history = self.session.history
        # the texts QUndoStack's actions show ("&Undo Set MTU to 9000")
        for action, prefix, possible, text in (
                (self.undo_action, "&Undo", history.can_undo,
                 history.undo_text),
                (self.redo_action, "&Redo", history.can_redo,
                 history.redo_text)):
            action.setEnabled(possible)
            action.setText(f"{prefix} {text}" if text else prefix)
        self._update_title()

    def _show_results(self, generation, results):
        if generation != self.session.generation:
            return   # a newer edit's results are on their way
        self.results = results
        for tab in self.view_tabs.values():
            tab.show_results(results)
        self.table_model.set_results(results)
        self.notes.setHtml(_notes_html(results))

    def _show_evaluation_error(self, generation, message):
        if generation == self.session.generation:
            self._warn("Evaluation failed", message)

    def _update_title(self):
        name = self.path.name if self.path else "untitled"
        self.setWindowTitle(f"{name}[*] — Linkplan")
        self.setWindowModified(not self.session.history.is_clean)

    # -- file actions ----------------------------------------------------

    def new_document(self):
        if self._may_discard():
            self.set_document(new_scenario())

    def open_dialog(self):
        if not self._may_discard():
            return
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Open scenario", "", _FILE_FILTER)
        if path:
            self.open_path(path)

    def save(self):
        if self.path is None:
            return self.save_as_dialog()
        return self.save_to(self.path)

    def save_as_dialog(self):
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Save scenario as", "scenario.toml", _FILE_FILTER)
        if not path:
            return False
        if Path(path).suffix.lower() not in (".toml", ".json"):
            path += ".toml"
        return self.save_to(path)

    def save_to(self, path):
        """Save atomically; on failure the old file and the document stay."""
        try:
            save_scenario(self.scenario, path)
        except (OSError, ScenarioError) as err:
            self._warn("Cannot save scenario", str(err))
            return False
        self.session.mark_saved(Path(path))
        self._update_title()
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def export_pdf_dialog(self):
        stem = self.path.stem if self.path else "linkplan-report"
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export PDF report", f"{stem}.pdf", "PDF (*.pdf)")
        if path:
            self.export_pdf_to(path)

    def export_pdf_to(self, path):
        """Write the report of the current document, its recommendations
        included (both computed off the GUI thread; this waits for them)."""
        from app.report.pdf import ReportTooLarge, write_report
        self.wait_for_results()
        results = self.session.results
        if results is None:
            self._warn("Cannot write the PDF", "The scenario did not "
                       f"evaluate: {self.session.error}")
            return False
        try:
            write_report(self.scenario, results, path,
                         self.session.advice().advice)
        except (OSError, ReportTooLarge) as err:
            self._warn("Cannot write the PDF", str(err))
            return False
        self.statusBar().showMessage(f"Exported {path}", 5000)
        return True

    def _may_discard(self):
        """True when the document is saved or the user agrees to lose or
        save the changes."""
        if self.session.history.is_clean:
            return True
        buttons = QtWidgets.QMessageBox.StandardButton
        answer = QtWidgets.QMessageBox.question(
            self, "Unsaved changes",
            "The scenario has unsaved changes. Save them first?",
            buttons.Save | buttons.Discard | buttons.Cancel, buttons.Save)
        if answer == buttons.Save:
            return bool(self.save())
        return answer == buttons.Discard

    def closeEvent(self, event):
        if self._may_discard():
            self.session.close()
            event.accept()
        else:
            event.ignore()

    def _warn(self, title, text):
        QtWidgets.QMessageBox.warning(self, title, text)


def _notes_html(results):
    """Binding limit, findings and assumptions of every variant."""
    lines = ["<b>Binding limit</b><ul>"]
    lines += [f"<li><b>{escape(v.name)}</b>: {escape(v.bottleneck.message)}"
              "</li>" for v in results.variants]
    lines.append("</ul>")
    findings = [(v.name, f) for v in results.variants for f in v.findings]
    if findings:
        lines.append("<b>Findings</b><ul>")
        lines += [f"<li><b>{escape(name)}</b> ({escape(f.severity)}): "
                  f"{escape(f.message)}</li>" for name, f in findings]
        lines.append("</ul>")
    shared, specific = results.assumptions_by_scope()
    lines.append("<b>Assumptions</b><ul>")
    lines += [f"<li>{escape(a)}</li>" for a in shared]
    lines += [f"<li><b>{escape(', '.join(names))}</b>: {escape(a)}</li>"
              for names, a in specific]
    lines.append("</ul>")
    return "".join(lines)
