"""Linkplan's main window: editor on the left, analyses on the right."""

from html import escape
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.accuracy_dialog import show_accuracy
from app.gui.advice import AdviceDialog
from app.gui.charts import (HOST_BARS, MIGRATION_BARS, STORAGE_BARS,
                            draw_goodput_vs_mtu, draw_metric_bars,
                            draw_policy_peaks, draw_uplink_series, has_metric,
                            new_plot_widget, teaming_traces)
from app.gui.commands import SetScenarioCommand
from app.gui.comparison import ComparisonModel
from app.gui.editor import NetworkEditor
from app.gui.import_dialog import run_import_dialog
from app.gui.parameters import ParameterTable
from app.paths import DEFAULT_EXAMPLE, resource_path
from app.scenario_io import load_scenario, save_scenario
from models.scenario import ScenarioError, new_scenario
from solvers.advise import advise
from solvers.evaluate import evaluate

_FILE_FILTER = "Linkplan scenarios (*.toml *.json);;All files (*)"



class MainWindow(QtWidgets.QMainWindow):
    """One scenario document, its variants compared side by side."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.scenario = None
        self.path = None
        self.results = None
        self.undo_stack = QtGui.QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._update_title)

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

        self.plot = new_plot_widget()
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
        self.tabs.addTab(self.plot, "Wire && MTU")
        self.tabs.addTab(self._build_host_tab(), "Transport && CPU")
        self.tabs.addTab(self._build_migration_tab(), "Live migration")
        self.tabs.addTab(self._build_teaming_tab(), "Teaming")
        self.tabs.addTab(self._build_storage_tab(), "Storage")
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

    @staticmethod
    def _bar_tab(hint_text):
        """A tab of two bar charts side by side, with a hint shown instead
        when the scenario has nothing to chart."""
        tab = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(tab)
        hint = QtWidgets.QLabel(hint_text)
        hint.setWordWrap(True)
        layout.addWidget(hint)
        charts = QtWidgets.QHBoxLayout()
        plots = (new_plot_widget(), new_plot_widget())
        for plot in plots:
            charts.addWidget(plot)
        layout.addLayout(charts, 1)
        return tab, hint, plots

    def _build_host_tab(self):
        tab, self.host_hint, (self.throughput_plot, self.cpu_plot) = \
            self._bar_tab("This scenario defines no transfer "
                          "(workloads.transfers): add one to compare "
                          "transports, teaming and CPU.")
        return tab

    def _build_migration_tab(self):
        tab, self.migration_hint, (self.migration_time_plot,
                                   self.downtime_plot) = self._bar_tab(
            "This scenario defines no live migration (workloads.migrations):"
            " add one to see its time, downtime and convergence.")
        return tab

    def _build_storage_tab(self):
        tab, self.storage_hint, (self.iops_plot, self.latency_plot) = \
            self._bar_tab("This scenario defines no storage workload "
                          "(workloads.storage): add one to see IOPS, latency "
                          "and what limits them.")
        return tab

    def _build_teaming_tab(self):
        tab, self.teaming_hint, (self.uplink_plot, self.policy_plot) = \
            self._bar_tab("This scenario defines no flows on a team "
                          "(workloads.flows, teams): add them to compare "
                          "teaming policies, the optimum and N-1.")
        pickers = QtWidgets.QHBoxLayout()
        self.teaming_variant = QtWidgets.QComboBox()
        self.teaming_variant.setToolTip("Variant whose teaming is shown")
        self.teaming_policy = QtWidgets.QComboBox()
        self.teaming_policy.setToolTip("Policy whose uplink loads are "
                                       "shown over time")
        for label, combo in (("Variant", self.teaming_variant),
                             ("Policy", self.teaming_policy)):
            pickers.addWidget(QtWidgets.QLabel(label))
            pickers.addWidget(combo, 1)
        tab.layout().insertLayout(1, pickers)
        self.teaming_variant.currentIndexChanged.connect(
            self._draw_teaming_variant)
        self.teaming_policy.currentIndexChanged.connect(
            self._draw_teaming_policy)
        return tab

    def _draw_teaming(self):
        shown = any(teaming_traces(v)[0] for v in self.results.variants)
        self.teaming_hint.setVisible(not shown)
        for widget in (self.uplink_plot, self.policy_plot,
                       self.teaming_variant, self.teaming_policy):
            widget.setVisible(shown)
        if not shown:
            return
        previous = self.teaming_variant.currentIndex()
        with QtCore.QSignalBlocker(self.teaming_variant):
            self.teaming_variant.clear()
            self.teaming_variant.addItems(
                [v.name for v in self.results.variants])
            self.teaming_variant.setCurrentIndex(max(previous, 0) if
                                                 previous < len(
                                                     self.results.variants)
                                                 else 0)
        self._draw_teaming_variant()

    def _teaming_variant(self):
        return self.results.variants[max(self.teaming_variant.currentIndex(),
                                         0)]

    def _draw_teaming_variant(self):
        variant = self._teaming_variant()
        traces, _ = teaming_traces(variant)
        previous = self.teaming_policy.currentText()
        with QtCore.QSignalBlocker(self.teaming_policy):
            self.teaming_policy.clear()
            for trace in traces:
                self.teaming_policy.addItem(trace["label"], trace["policy"])
            index = self.teaming_policy.findText(previous)
            self.teaming_policy.setCurrentIndex(max(index, 0))
        draw_policy_peaks(self.policy_plot.getPlotItem(), variant)
        self._draw_teaming_policy()

    def _draw_teaming_policy(self):
        traces, _ = teaming_traces(self._teaming_variant())
        policy = self.teaming_policy.currentData()
        trace = next((t for t in traces if t["policy"] == policy), None)
        if trace is not None:
            draw_uplink_series(self.uplink_plot.getPlotItem(), trace)

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
        undo = self.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(keys.Undo)
        redo = self.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcut(keys.Redo)
        edit_menu.addAction(undo)
        edit_menu.addAction(redo)
        analysis_menu = self.menuBar().addMenu("&Analysis")
        recommend = analysis_menu.addAction("&Recommend changes…",
                                            self.recommend_dialog)
        recommend.setShortcut(QtGui.QKeySequence("Ctrl+R"))
        self.menuBar().addMenu("&Help").addAction(
            "Model &accuracy…", lambda: show_accuracy(self))

    def recommend_dialog(self):
        """Advise on the base scenario; apply the chosen change undoably."""
        dialog = self.advice_dialog()
        if dialog is not None and dialog.exec() and dialog.chosen:
            self.apply_recommendation(dialog.chosen)

    def advice_dialog(self):
        """The dialog for the current scenario, or None after telling the
        user why there is nothing to advise."""
        try:
            result = advise(self.scenario)
        except ValueError as err:
            self._warn("Nothing to recommend", str(err))
            return None
        return AdviceDialog(result, self.scenario, self)

    def apply_recommendation(self, recommendation):
        """Apply a recommendation's change as one undoable edit."""
        self.edit_many({path: c["new"]
                        for path, c in recommendation.change.items()},
                       f"Apply {recommendation.id.removeprefix('advice.')}")

    # -- document ------------------------------------------------------------

    def set_document(self, scenario, path=None):
        """Show a scenario as a fresh, unmodified document."""
        self.scenario, self.path = scenario, path
        self.undo_stack.clear()
        self._refresh()
        self._update_title()

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
        """Apply a user edit as an undoable command, if it is valid."""
        self.edit_many({path: value}, label)

    def edit_many(self, changes, label):
        """Apply several parameters that change together as one undoable
        command, if the result is valid."""
        if all(self.scenario.value_at(p) == v for p, v in changes.items()):
            return
        try:
            changed = self.scenario.with_values(changes)
        except ScenarioError as err:
            self.statusBar().showMessage(f"Not applied: {err}", 10000)
            self.editor.load(self.scenario)
            self.parameters.load(self.scenario)
            return
        self.undo_stack.push(SetScenarioCommand(self, self.scenario, changed,
                                                label))

    def apply_value(self, path, value):
        """Set one parameter and re-solve, without an undo step (scripts,
        tests and benchmarks)."""
        self.show_scenario(self.scenario.with_value(path, value))

    def show_scenario(self, scenario):
        """Make a validated scenario the current one and re-solve."""
        self.scenario = scenario
        self._refresh()

    def _refresh(self):
        self.editor.load(self.scenario)
        self.parameters.load(self.scenario)
        self.title.setText(self.scenario.meta.name)
        self.description.setText(self.scenario.meta.description)
        self.variants.clear()
        self.variants.addItem("Base")
        for variant in self.scenario.variants:
            self.variants.addItem(f"{variant.name}: {variant.describe()}")
        try:
            self.results = evaluate(self.scenario)
        except Exception as err:  # a model bug must not lose the document
            self._warn("Evaluation failed", f"{type(err).__name__}: {err}")
            return
        draw_goodput_vs_mtu(self.plot.getPlotItem(), self.results)
        for hint, plots, present, bars in (
                (self.host_hint, (self.throughput_plot, self.cpu_plot),
                 "host.throughput_gbps", HOST_BARS),
                (self.migration_hint, (self.migration_time_plot,
                                       self.downtime_plot),
                 "migration.converged", MIGRATION_BARS),
                (self.storage_hint, (self.iops_plot, self.latency_plot),
                 "storage.iops", STORAGE_BARS)):
            shown = has_metric(self.results, present)
            hint.setVisible(not shown)
            for plot, (metric_id, label, missing) in zip(plots, bars):
                plot.setVisible(shown)
                if shown:
                    draw_metric_bars(plot.getPlotItem(), self.results,
                                     metric_id, label, missing)
        self._draw_teaming()
        self.table_model.set_results(self.results)
        self.notes.setHtml(_notes_html(self.results))

    def _update_title(self):
        name = self.path.name if self.path else "untitled"
        self.setWindowTitle(f"{name}[*] — Linkplan")
        self.setWindowModified(not self.undo_stack.isClean())

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
        self.path = Path(path)
        self.undo_stack.setClean()
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
        from app.report.pdf import ReportTooLarge, write_report
        try:
            write_report(self.scenario, self.results, path)
        except (OSError, ReportTooLarge) as err:
            self._warn("Cannot write the PDF", str(err))
            return False
        self.statusBar().showMessage(f"Exported {path}", 5000)
        return True

    def _may_discard(self):
        """True when the document is saved or the user agrees to lose or
        save the changes."""
        if self.undo_stack.isClean():
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
