"""Linkplan's main window: editor on the left, analyses on the right.

The window shows a :class:`app.session.Session`: edits go to the session,
whose worker evaluates them; results come back to the GUI thread through a
queued signal and only the newest document's are drawn.
"""

import functools
import sys

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from app.figures.charts import apply_theme, theme_of
from app.figures.views import VIEWS
from app.gui.appearance import chart_theme, system_scheme
from app.gui import persistence
from app.gui.analysis_actions import AnalysisActions, goal_metrics
from app.gui.comparison import ComparisonModel, ComparisonView
from app.gui.document_files import DocumentFiles
from app.gui.editor import ScenarioEditor
from app.gui.findings import FindingsPanel
from app.gui.menus import about_html, build_menus
from app.gui.sweep_panel import SweepPanel
from app.gui.variants import VariantsPanel
from app.gui.views import DeferredTab, tab_of
from app.paths import TEMPLATES
from app.presentation.content import NOISE_GAIN_PCT
from app.session import Session
from models.scenario import ScenarioError, new_scenario

#: Idle time after the last change before unsaved work is written to the
#: recovery file [ms]: long enough not to write on every keystroke, short
#: enough that a crash loses seconds of work.
AUTOSAVE_DELAY_MS = 3000

#: Workload lists that each ask a question of the model (a load profile
#: only shapes flows).
_QUESTION_WORKLOADS = ("flows", "transfers", "migrations", "evacuations",
                       "storage")

#: Idle time after new results before the findings panel's
#: recommendations are computed [ms].
ADVICE_DELAY_MS = 400


#: Longest a worker thread keeps the interpreter while the GUI thread
#: waits for it [s]. Measured (50 VMs on 4 uplinks, an edit while the
#: teaming evaluates): 5 ms (Python's default) 321 ms, 1 ms 190 ms,
#: 0.5 ms 157 ms longest GUI block, loaded machine; 1 ms keeps the
#: workers' own switching overhead small.
GUI_SWITCH_INTERVAL_S = 0.001


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


class MainWindow(DocumentFiles, AnalysisActions, QtWidgets.QMainWindow):
    """One scenario document, its variants compared side by side."""

    def __init__(self, parent=None, recovery_folder=None):
        super().__init__(parent)
        # the GUI thread takes the interpreter back from a busy worker (an
        # evaluation, a sweep) within this, not Python's default 5 ms: a
        # repaint calls back into Python dozens of times. Process-wide,
        # so set by the window, never by a headless use of Qt (the CLI's
        # PDF report), whose one thread has nobody to hand over to
        sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
        self.results = None   # the results shown
        self._advice_asked = None   # document version the user asked about
        self._advice_dialog = None  # the open recommendations dialog
        self._closed = False
        self.measured_checks = []
        self.recovery = persistence.RecoveryFiles(
            recovery_folder or persistence.recovery_folder())
        self._autosave_warned = False   # the failure's dialog, once
        self._disk_stamp = None   # the document's file as opened or saved
        self.autosave_timer = QtCore.QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self._gui_thread = _GuiThreadCalls(self)
        # an edit's evaluation starts once the window has redrawn the
        # edit (a zero timer fires after the pending repaints)
        self._evaluation_timer = QtCore.QTimer(self)
        self._evaluation_timer.setSingleShot(True)
        self._evaluation_timer.setInterval(0)
        self._evaluation_timer.timeout.connect(self._start_evaluation)
        self._evaluation_start = None
        self.session = Session(new_scenario(),
                               schedule=self._schedule_evaluation)

        self.editor = ScenarioEditor()
        self.editor.edited_many.connect(self.edit_shown)
        self.editor.reset_requested.connect(self.reset_field)
        self.title = QtWidgets.QLabel()
        self.title.setWordWrap(True)
        self.title.setStyleSheet("font-weight: bold; font-size: 13pt;")
        self.description = QtWidgets.QLabel()
        self.description.setWordWrap(True)
        self.description.linkActivated.connect(self._start_link)

        self.variants_panel = VariantsPanel(self)
        self.variants = self.variants_panel.list
        self.variant_buttons = self.variants_panel.buttons
        self.variants.currentRowChanged.connect(self._variant_selected)

        top = QtWidgets.QWidget()
        top_layout = QtWidgets.QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.title)
        top_layout.addWidget(self.description)
        top_layout.addWidget(self.editor, 1)
        left = self.left_splitter = QtWidgets.QSplitter(
            QtCore.Qt.Orientation.Vertical)
        left.addWidget(top)
        left.addWidget(self.variants_panel)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 1)
        left.setSizes([640, 120])

        self.table_model = ComparisonModel(self)
        self._text_widths = []   # the table's widest texts, per column
        self.table = ComparisonView()
        self.table.setModel(self.table_model)
        self.table.setAlternatingRowColors(True)
        # one line per row: a cell with its delta must not wrap and grow
        self.table.setWordWrap(False)
        # whole variant names, scrolling sideways when there are many
        # sized once per new results (resize_table), not on every repaint:
        # the automatic modes measure every cell at each layout pass
        self.table.verticalHeader().setSectionResizeMode(
            QtWidgets.QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(
            self.table.fontMetrics().height() + 6)
        self.findings = FindingsPanel()
        self.findings.setMinimumHeight(110)
        self.findings.apply_requested.connect(self._apply_from_panel)
        # recommendations re-solve the model many times: asked for once
        # the user paused, not on every keystroke
        self.advice_timer = QtCore.QTimer(self)
        self.advice_timer.setSingleShot(True)
        self.advice_timer.setInterval(ADVICE_DELAY_MS)
        self.advice_timer.timeout.connect(self._advise_panel)

        # charts in tabs; the table and the notes stay visible below them
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.currentChanged.connect(self._draw_shown_view)
        self._stale_views = set()   # tabs whose results are not drawn yet
        self.view_tabs = {}
        for view in VIEWS:
            tab = self.view_tabs[view.key] = DeferredTab(
                functools.partial(tab_of, view))
            self.tabs.addTab(tab.widget, view.title.replace("&", "&&"))
        self.sweep_panel = SweepPanel()
        self.sweep_panel.saved.connect(
            lambda sweeps, label: self.edit_many({"sweeps": sweeps}, label))
        self.tabs.addTab(self.sweep_panel, "Sweep")
        right = self.right_splitter = QtWidgets.QSplitter(
            QtCore.Qt.Orientation.Vertical)
        # the verdict beside the numbers it explains
        bottom = self.bottom_splitter = QtWidgets.QSplitter()
        bottom.addWidget(self._table_with_filter())
        bottom.addWidget(self.findings)
        bottom.setStretchFactor(0, 3)
        bottom.setStretchFactor(1, 2)
        # at 1280 px: the base and two variants in view, and a verdict
        # panel wide enough for its calculation's label and value
        bottom.setSizes([520, 360])
        right.addWidget(self.tabs)
        right.addWidget(bottom)
        right.setSizes([400, 400])

        splitter = self.splitter = QtWidgets.QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        # a wider screen widens the editor a little, the analyses more
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 5)
        # the editor's widest choices ("Route based on physical NIC
        # load") whole beside their labels
        splitter.setSizes([400, 880])
        self.setCentralWidget(splitter)
        self.solve_time = QtWidgets.QLabel()
        self.solve_time.setToolTip("How long the last evaluation took")
        self.statusBar().addPermanentWidget(self.solve_time)
        self.autosave_state = QtWidgets.QLabel("Autosave failed")
        self.autosave_state.setStyleSheet("color: #D55E00;")
        self.statusBar().addPermanentWidget(self.autosave_state)
        self.autosave_state.setVisible(self.recovery.problem is not None)
        self.autosave_state.setToolTip(self.recovery.problem or "")
        build_menus(self)
        self.resize(1280, 800)
        self._restore_layout()
        system_scheme()   # the palette follows the system's light or dark
        self._restyle_charts()

        session = self.session
        # no event may reach the window's widgets once Qt deleted them
        self.destroyed.connect(lambda *_: session.close())
        session.document_changed.connect(self._show_document)
        session.clean_changed.connect(self._clean_changed)
        for event, slot in ((session.results_ready, self._show_results),
                            (session.evaluation_failed,
                             self._show_evaluation_error),
                            (session.advice_ready, self._offer_advice)):
            event.connect(functools.partial(self._gui_thread.post, slot))
        self._show_document(session.scenario)
        if session.results is not None:   # ready before the subscription
            self._show_results(session.generation, session.results)

    def _schedule_evaluation(self, start):
        self._evaluation_start = start
        self._evaluation_timer.start()

    def _start_evaluation(self):
        self._evaluation_start()

    def _table_with_filter(self):
        """The comparison table under its row filter: the rows that differ
        between the variants, or all of them."""
        self.all_rows = QtWidgets.QCheckBox("Show all rows")
        self.all_rows.setToolTip(
            "Also the rows equal in every variant and gains below "
            f"{NOISE_GAIN_PCT:g} % (noise)")
        self.all_rows.toggled.connect(self._show_all_rows)
        self.rows_note = QtWidgets.QLabel()
        self.rows_note.setEnabled(False)   # greyed: a note, not a value
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(self.rows_note, 1)
        bar.addWidget(self.all_rows)
        box = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        return box

    def _show_all_rows(self, on):
        self.table_model.show_all_rows(on)
        self.table.resizeColumnsToContents()
        self._note_hidden_rows()

    def _note_hidden_rows(self):
        hidden = self.table_model.hidden_rows
        self.rows_note.setText(
            f"{hidden} row{'s' * (hidden != 1)} hidden: equal in every "
            "variant, or noise" if hidden else "")

    def about(self):
        QtWidgets.QMessageBox.about(self, "About Linkplan", about_html())

    # the importers' fit pulls in scipy.optimize, and the accuracy dialog
    # the validation set, neither needed to show the first window.
    def import_dialog(self):
        from app.gui.import_dialog import run_import_dialog
        run_import_dialog(self)

    def _apply_from_panel(self, recommendation, as_variant):
        if as_variant:
            self.add_variant_from(recommendation)
        else:
            self.apply_recommendation(recommendation)

    def add_variant_from(self, recommendation):
        """A new variant that makes a recommendation's change, as one
        undoable edit (the base stays as it is)."""
        self._select(self._run(self.session.add_variant_from,
                               recommendation))

    def apply_recommendation(self, recommendation):
        """Apply a recommendation's change as one undoable edit."""
        self._run(self.session.apply_recommendation, recommendation,
                  confirm_repair=self._accept_variant_repair,
                  refused=list(recommendation.change))

    # -- variants ------------------------------------------------------------

    def _selected_variant(self):
        """Index in ``scenario.variants`` of the selected row, or None
        (the base, or nothing, is selected)."""
        return self.variants_panel.selected()

    def _variant_selected(self, _row):
        """The editor shows the selected variant (or the base)."""
        self.variants_panel.show_changes(self.scenario)
        self.editor.load(self.scenario, self._selected_variant())

    # The session's commands change the document, each one undoable step;
    # the window shows a refusal and selects the variant they name.

    def _run(self, command, *args, refused=("variants",), **kwargs):
        """Run a session command; a refusal is shown on the fields of
        ``refused`` (paths). The command's result, None when refused."""
        try:
            result = command(*args, **kwargs)
        except ScenarioError as err:
            self._show_editor()
            self.editor.show_refusal(str(err), refused, err.problems)
            return None
        self.editor.clear_refusal()
        self.statusBar().clearMessage()   # no stale message survives
        return result

    def _select(self, index):
        """Select variant ``index`` (None: leave the selection)."""
        if index is not None:
            self.variants.setCurrentRow(index + 1)

    def move_variant(self, index, step):
        """Move a variant one place (its column in the table)."""
        self._select(self._run(self.session.move_variant, index, step))

    def remove_override(self, index, path):
        """Take one change of a variant back to the base's value."""
        self._select(self._run(self.session.remove_override, index, path))

    def edit_shown(self, changes, label):
        """An edit in the editor: to the base, or to the variant it shows
        (a value equal to the base's drops the variant's change)."""
        self._run(self.session.edit_in, self.editor.variant, changes, label,
                  confirm_repair=self._accept_variant_repair,
                  refused=changes)

    def reset_field(self, path):
        """A field's way back: the base's field to its schema default, a
        variant's change back to the base."""
        index = self.editor.variant
        if index is not None:
            self._select(self._run(self.session.reset_in_variant, index,
                                   path))
            return
        spec = self.editor.field(path).spec
        self.edit_many({path: spec.default},
                       f"Reset {spec.label} to its default")

    def make_last_edit_a_variant(self):
        """Turn the last edit of the base into a new variant: the base
        gets its old values back, the variant holds the new ones (one
        undoable step)."""
        self._select(self._run(self.session.make_last_edit_a_variant))

    def add_variant(self):
        """A new variant that changes nothing yet (edit it in the editor
        above or from a recommendation)."""
        self._select(self._run(self.session.add_variant))

    def duplicate_variant(self, index):
        self._select(self._run(self.session.duplicate_variant, index))

    def rename_variant(self, index, name):
        self._select(self._run(self.session.rename_variant, index, name))

    def rename_variant_dialog(self):
        index = self._selected_variant()
        if index is None:
            return
        name, ok = QtWidgets.QInputDialog.getText(
            self, "Rename variant", "Name:",
            text=self.scenario.variants[index].name)
        if ok and name.strip():
            self.rename_variant(index, name)

    def delete_variant(self, index):
        self._select(self._run(self.session.delete_variant, index))

    # -- document ------------------------------------------------------------

    @property
    def scenario(self):
        return self.session.scenario

    @property
    def path(self):
        return self.session.path

    def edit(self, path, value, label):
        """Apply a user edit as an undoable step, if it is valid."""
        self.edit_many({path: value}, label)

    def edit_many(self, changes, label, refused_paths=()):
        """Apply several parameters that change together as one undoable
        step, if the result is valid. When the base's change would leave
        a variant invalid, offer to update the variants too."""
        self._run(self.session.edit, changes, label,
                  confirm_repair=self._accept_variant_repair,
                  refused=refused_paths or changes)

    def _accept_variant_repair(self, repair):
        """Ask whether to update the variants a base edit would break
        (an :class:`app.variant_edits.VariantRepair`)."""
        buttons = QtWidgets.QMessageBox.StandardButton
        names = repair.broken
        fixes = "\n".join(f"• {name}: {change}"
                          for name, change in repair.fixes)
        answer = QtWidgets.QMessageBox.question(
            self, "Update the variants too?",
            f"This change of the base would make the variant"
            f"{'s' if len(names) > 1 else ''} {', '.join(names)} invalid:"
            f"\n\n{repair.error}\n\nEach variant sets its own team "
            "policy, and that policy needs another switch mode than the "
            "base's new one. Update the variants so they stay valid?"
            f"\n\n{fixes}",
            buttons.Yes | buttons.Cancel, buttons.Yes)
        return answer == buttons.Yes

    def _show_editor(self):
        self.editor.load(self.scenario, self._selected_variant())

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

    def wait_for_results(self, timeout=None, *, all_views=True):
        """Block until the current document's results (or its evaluation
        error) are shown: self-test, PDF export, tests, benchmarks. With
        ``all_views``, the tabs not on screen are drawn too."""
        done = self.session.wait(timeout)
        self._gui_thread.deliver()
        if all_views:
            for key in list(self._stale_views):
                self.view_tabs[key].show_results(self.results)
            self._stale_views.clear()
        return done

    def _draw_shown_view(self, *_):
        for key, tab in self.view_tabs.items():
            if key in self._stale_views and \
                    tab.widget is self.tabs.currentWidget():
                tab.show_results(self.results)
                self._stale_views.discard(key)

    def _show_document(self, scenario):
        if self._advice_asked not in (None, self.session.generation):
            self._advice_asked = None
            self.statusBar().showMessage(
                "Recommendations dropped: the scenario changed while they "
                "were computed; ask again (Ctrl+R).", 10000)
        self.variants_panel.load(scenario)
        self.editor.load(scenario, self._selected_variant())
        self.sweep_panel.set_scenario(scenario)
        self.make_variant_action.setEnabled(
            self.session.last_edit_can_be_variant)
        self.table_model.pinned = goal_metrics(scenario)
        self.title.setText(scenario.meta.name)
        self._show_description(scenario)
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
        if not self.session.history.is_clean:
            self.autosave_timer.start()   # restarted by every change

    def _show_results(self, generation, results):
        if generation != self.session.generation:
            return   # a newer edit's results are on their way
        self.results = results
        seconds = self.session.solve_seconds
        self.solve_time.setText("" if seconds is None else
                                f"Solved in {seconds * 1000:.0f} ms")
        # the tab on screen now, the others when they are shown: a hidden
        # chart is not worth the wait of an edit
        self._stale_views = set(self.view_tabs)
        self._draw_shown_view()
        self._fit_table(self.table_model.set_results(results))
        self._note_hidden_rows()
        # recommendations made for the previous results would apply
        # changes that were re-evaluated against another scenario
        self.findings.show_results(results, advice_note="computing…")
        self.advice_timer.start()

    def _fit_table(self, reset):
        """Whole names and values: every column fitted after a reset,
        after an in-place update only those whose widest text changed."""
        widths = self.table_model.text_widths(
            self.table.fontMetrics().horizontalAdvance)
        if reset:
            self.table.resizeColumnsToContents()
        else:
            for column, (old, new) in enumerate(zip(self._text_widths,
                                                    widths)):
                if old != new:
                    self.table.resizeColumnToContents(column)
        self._text_widths = widths

    def changeEvent(self, event):
        if event.type() == QtCore.QEvent.Type.PaletteChange:
            self._restyle_charts()
        super().changeEvent(event)

    def _restyle_charts(self):
        """Charts in the colours of the palette (light or dark), redrawn
        when they change."""
        theme = chart_theme()
        plots = [p for p in self.findChildren(pg.PlotWidget)
                 if theme_of(p.getPlotItem()) is not theme]
        if not plots:
            return
        for plot in plots:
            apply_theme(plot, theme)
        if self.results is not None:
            self._stale_views = set(self.view_tabs)
            self._draw_shown_view()
        self.sweep_panel.redraw()

    def _show_evaluation_error(self, generation, message):
        if generation == self.session.generation:
            self._warn("Evaluation failed", message)

    def _update_title(self):
        name = self.path.name if self.path else "untitled"
        self.setWindowTitle(f"{name}[*] — Linkplan")
        self.setWindowModified(not self.session.history.is_clean)

    def _show_description(self, scenario):
        """The scenario's description; for one that asks nothing yet (no
        description, no workload), where to start, with links."""
        if scenario.meta.description or any(
                getattr(scenario.workloads, name)
                for name in _QUESTION_WORKLOADS):
            self.description.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            self.description.setText(scenario.meta.description)
            return
        templates = ", ".join(
            f"<a href='template:{name}'>{title.replace('&', '')}"
            "</a>" for name, title in TEMPLATES)
        self.description.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.description.setText(
            "Only the wire is answered yet. Start from a question ("
            f"{templates}), <a href='import'>import</a> an RVTools or VM "
            "inventory export, or add a workload below.")

    def _start_link(self, link):
        if link == "import":
            self.import_dialog()
        elif link.startswith("template:"):
            self.new_from_template(link.partition(":")[2])

    def _restore_layout(self):
        store = persistence.settings()
        geometry = store.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = store.value("window/state")
        if state is not None:
            self.restoreState(state)
        # the default split is made for the width the window is first
        # shown at (showEvent), unless the user's is remembered
        self._default_split = store.value("window/splitter") is None
        for key, splitter in self._splitters():
            sizes = store.value(key)
            if sizes is not None:
                splitter.restoreState(sizes)

    def showEvent(self, event):
        if self._default_split:
            self._default_split = False
            # 400 px of editor at 1280 (its widest choices whole), a
            # quarter of a wider window up to 520 px
            # (the window's width: its splitters are not laid out yet)
            width = self.width()
            editor = max(400, min(width // 4, 520))
            self.splitter.setSizes([editor, width - editor])
            self.bottom_splitter.setSizes([(width - editor) * 3 // 5,
                                           (width - editor) * 2 // 5])
        super().showEvent(event)

    def _save_layout(self):
        store = persistence.settings()
        store.setValue("window/geometry", self.saveGeometry())
        store.setValue("window/state", self.saveState())
        for key, splitter in self._splitters():
            store.setValue(key, splitter.saveState())

    def _splitters(self):
        """Splitters whose sizes the user's settings keep, by key."""
        return (("window/splitter", self.splitter),
                ("window/right_splitter", self.right_splitter),
                ("window/bottom_splitter", self.bottom_splitter))

    def closeEvent(self, event):
        if self._may_discard():
            self._save_layout()
            persistence.set_last_file(self.path)
            self.autosave_timer.stop()
            self.advice_timer.stop()
            self.sweep_panel.cancel()
            self._closed = True
            # a recovery file left behind is offered at the next start
            self.recovery.release()
            self.session.close()
            event.accept()
        else:
            event.ignore()

    def _warn(self, title, text):
        QtWidgets.QMessageBox.warning(self, title, text)
