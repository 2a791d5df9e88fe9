"""Sweeps on screen: one or two parameter paths over a range, computed
off the GUI thread by :mod:`app.sweep_run` (the column path where the
paths allow it) with progress and cancel; one axis draws a line per
variant, two a heatmap of the picked variant; knees and boundaries are
marked; the points export as CSV and go into the PDF."""

import threading

from PySide6 import QtCore, QtWidgets

from app.figures.charts import new_plot_widget
from app.figures.sweep import draw_sweep
from app.schema_fields import path_label
from app.sweep_run import SweepRequest, axis_points, run_sweep
from models.scenario import BASE_NAME, Sweep
from solvers import metric_ids

#: Points a sweep on screen may have: a 2-D heatmap of 200 x 200 is as
#: fine as a screen shows.
MAX_SCREEN_POINTS = 40_000


class _Signals(QtCore.QObject):
    progressed = QtCore.Signal(int, int, int)   # run, done, total
    finished = QtCore.Signal(int, object)       # run, SweepData


#: Name of the sweep the Sweep tab keeps in the document (``[[sweeps]]``):
#: ``linkplan sweep`` reruns it.
TAB_SWEEP_NAME = "Sweep tab"

def default_axis(scenario, paths):
    """The path a Sweep tab starts on: the input the goal's question turns
    on when the document has one (dirty rate for a migration, outstanding
    IO for storage, link speed for a transfer), else the first that the
    analyses declare (:func:`solvers.metric_ids.sweep_axes`, in the order
    advise picks a goal) the document has, else its first numeric path."""
    from models.scenario import GOALS
    candidates = metric_ids.sweep_axes()
    order = list(candidates)
    if scenario.goal is not None:
        family = GOALS[scenario.goal.kind][0].partition(".")[0]
        if family in order:   # the goal's family first
            order.remove(family)
            order.insert(0, family)
    for family in order:
        for path in candidates[family]:
            if path in paths:
                return path
    return paths[0] if paths else ""


def tab_sweep(request):
    """The document's ``[[sweeps]]`` entry for a Sweep tab request (its
    exact values, so ``linkplan sweep`` computes the same points)."""
    return {"name": TAB_SWEEP_NAME, "mode": "product",
            "axes": [{"path": path, "values": list(values)}
                     for path, values in request.axes]}


def variants_setting(scenario, paths):
    """Names of the variants that set one of the swept ``paths`` (their
    line is the base's: the sweep overrides what they change)."""
    return [v.name for v in scenario.variants
            if any(changed == path or changed.startswith(path + ".")
                   or path.startswith(changed + ".") or
                   path.startswith(changed + "[")
                   for changed in v.set for path in paths)]


def numeric_paths(scenario):
    """The base's numeric parameter paths, in document order (the
    picker's list); meta, variants and sweeps are not parameters."""
    def walk(data, prefix):
        if isinstance(data, dict):
            for key, value in data.items():
                if key not in ("meta", "variants", "sweeps",
                               "schema_version"):
                    yield from walk(value, f"{prefix}{key}.")
        elif isinstance(data, list):
            for index, value in enumerate(data):
                yield from walk(value, f"{prefix.rstrip('.')}[{index}].")
        elif isinstance(data, (int, float)) and not isinstance(data, bool):
            yield prefix.rstrip(".")
    return list(walk(scenario.model_dump(mode="json"), ""))


class _AxisRow:
    """A path picker with start, stop and number of points."""

    def __init__(self, layout, caption):
        self.path = QtWidgets.QComboBox()
        self.path.setEditable(True)
        self.path.setMinimumContentsLength(22)
        self.path.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy
            .AdjustToMinimumContentsLengthWithIcon)
        self.path.setToolTip("Parameter path to sweep (any numeric path "
                             "of the scenario)")
        self.start, self.stop = (QtWidgets.QDoubleSpinBox(),
                                 QtWidgets.QDoubleSpinBox())
        for box in (self.start, self.stop):
            box.setRange(-1e12, 1e12)
            box.setDecimals(3)
        self.num = QtWidgets.QSpinBox()
        self.num.setRange(2, 10_000)
        self.num.setValue(50)
        self.num.setToolTip("Number of points along this axis")
        row = QtWidgets.QHBoxLayout()
        row.addWidget(caption)
        row.addWidget(self.path, 1)
        for text, widget in (("from", self.start), ("to", self.stop),
                             ("points", self.num)):
            row.addWidget(QtWidgets.QLabel(text))
            row.addWidget(widget)
        layout.addLayout(row)
        self.path.currentTextChanged.connect(self._suggest_range)
        self.scenario = None

    def fill(self, paths):
        """List ``paths`` (of ``self.scenario``), keeping the one typed."""
        current = self.path.currentText()
        if paths != [self.path.itemText(i) for i in range(self.path.count())]:
            with QtCore.QSignalBlocker(self.path):
                self.path.clear()
                self.path.addItems(paths)
                if current:
                    self.path.setCurrentText(current)
        if not current:
            self._suggest_range(self.path.currentText())

    def _suggest_range(self, path):
        """Half to twice the base's value, a plain starting point."""
        try:
            value = float(self.scenario.value_at(path))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return
        self.start.setValue(value / 2 if value else 0.0)
        self.stop.setValue(value * 2 if value else 1.0)

    def axis(self):
        path = self.path.currentText().strip()
        return path, axis_points(self.scenario, path, self.start.value(),
                                 self.stop.value(), self.num.value())


class SweepPanel(QtWidgets.QWidget):
    """The Sweep tab: pick axes and a metric, Run (off the GUI thread),
    Cancel, Export CSV. A run is kept in the document as its
    ``[[sweeps]]`` entry :data:`TAB_SWEEP_NAME` (``saved`` asks the window
    to make that edit), and a document that has one opens on its axes."""

    #: the document's sweeps with this tab's run in them, and the edit's
    #: label
    saved = QtCore.Signal(list, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._shown_sweep = None   # the document sweep the pickers show
        self._note = ""   # what the status says of the run besides counts
        self.scenario, self.data = None, None
        self._pickers_stale = False   # paths and variants to list again
        self._signals = _Signals()
        self._signals.progressed.connect(self._progressed)
        self._signals.finished.connect(self._finished)
        self._cancel = threading.Event()
        self._worker = None
        self._run = 0   # the run shown; older runs' reports are dropped
        self._running = False
        layout = QtWidgets.QVBoxLayout(self)
        self.first = _AxisRow(layout, QtWidgets.QLabel("Axis 1"))
        self.two_axes = QtWidgets.QCheckBox("Axis 2")
        self.two_axes.setToolTip("Sweep a second path too: a heatmap of "
                                 "one variant")
        self.second = _AxisRow(layout, self.two_axes)
        self.second.num.setValue(30)
        controls = QtWidgets.QHBoxLayout()
        controls.addWidget(QtWidgets.QLabel("Metric"))
        self.metric = QtWidgets.QComboBox()
        self.metric.setToolTip("The metric charted")
        self.metric.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy
            .AdjustToMinimumContentsLengthWithIcon)
        self.metric.setMinimumContentsLength(24)
        self.metric.currentIndexChanged.connect(self.redraw)
        controls.addWidget(self.metric, 1)
        controls.addWidget(QtWidgets.QLabel("Heatmap of"))
        self.heat_variant = QtWidgets.QComboBox()
        self.heat_variant.setToolTip("Variant shown by a two-axis sweep")
        controls.addWidget(self.heat_variant)
        self.run_button = QtWidgets.QPushButton("Run")
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.export_button = QtWidgets.QPushButton("Export CSV…")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export_dialog)
        for button in (self.run_button, self.cancel_button,
                       self.export_button):
            controls.addWidget(button)
        layout.addLayout(controls)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setFormat("%v of %m points")
        self.status = QtWidgets.QLabel("")
        status_row = QtWidgets.QHBoxLayout()
        status_row.addWidget(self.progress, 1)
        status_row.addWidget(self.status, 1)
        layout.addLayout(status_row)
        self.plot = new_plot_widget()
        layout.addWidget(self.plot, 1)
        self.two_axes.toggled.connect(self._second_axis_toggled)
        self._second_axis_toggled(False)

    def _second_axis_toggled(self, on):
        for widget in (self.second.path, self.second.start, self.second.stop,
                       self.second.num, self.heat_variant):
            widget.setEnabled(on)

    def set_scenario(self, scenario):
        """Sweep ``scenario`` from now on. Its paths and variants are
        listed when the tab is shown (or a sweep is asked for): every
        edit sets the scenario, and an edit should not wait the
        milliseconds that listing them takes."""
        self.scenario = self.first.scenario = self.second.scenario = scenario
        self._pickers_stale = True
        if self.isVisible():
            self._fill_pickers()

    def showEvent(self, event):
        self._fill_pickers()
        super().showEvent(event)

    def _fill_pickers(self):
        if not self._pickers_stale or self.scenario is None:
            return
        self._pickers_stale = False
        paths = numeric_paths(self.scenario)
        if not self.first.path.currentText():
            self.first.path.setCurrentText(
                default_axis(self.scenario, paths))
        self.first.fill(paths)
        self.second.fill(paths)
        self._show_document_sweep()
        names = [BASE_NAME] + [v.name for v in self.scenario.variants]
        if names != [self.heat_variant.itemText(i)
                     for i in range(self.heat_variant.count())]:
            current = self.heat_variant.currentText()
            self.heat_variant.clear()
            self.heat_variant.addItems(names)
            if current in names:
                self.heat_variant.setCurrentText(current)

    def _show_document_sweep(self):
        """Set the pickers to the document's tab sweep when it is not the
        one they show (a document opened, an undo)."""
        stored = next((sw for sw in self.scenario.sweeps
                       if sw.name == TAB_SWEEP_NAME), None)
        if stored is None or stored == self._shown_sweep or \
                any(a.values is None for a in stored.axes):
            return
        self._shown_sweep = stored
        rows = (self.first, self.second)
        for row, axis in zip(rows, stored.axes[:2]):
            row.path.setCurrentText(axis.path)
            row.start.setValue(min(axis.values))
            row.stop.setValue(max(axis.values))
            row.num.setValue(max(2, len(axis.values)))
        self.two_axes.setChecked(len(stored.axes) > 1)

    def request(self):
        self._fill_pickers()
        axes = [self.first.axis()]
        if self.two_axes.isChecked():
            axes.append(self.second.axis())
        documents = self.scenario.variant_documents()
        if len(axes) == 2:   # a heatmap shows one variant
            documents = [d for d in documents
                         if d[0] == self.heat_variant.currentText()] or \
                documents[:1]
        return SweepRequest(axes, documents)

    @property
    def running(self):
        """Whether a run is under way (a cancelled one is not, even while
        its worker finishes its chunk)."""
        return self._running

    def start(self):
        """Start the sweep of the current settings in a worker thread."""
        if self._running or self.scenario is None:
            return
        request = self.request()
        if request.total > MAX_SCREEN_POINTS * len(request.series):
            self.status.setText(
                f"{request.total:,} points: at most "
                f"{MAX_SCREEN_POINTS:,} per variant on screen ('linkplan "
                "sweep' streams any number)")
            return
        self._save(request)
        self._cancel = threading.Event()
        self._run += 1
        self._running = True
        self.progress.setRange(0, request.total)
        self.progress.setValue(0)
        setting = variants_setting(self.scenario,
                                   [path for path, _ in request.axes])
        self._note = (f" Note: {', '.join(setting)} set"
                      f"{'s' if len(setting) == 1 else ''} the swept "
                      "field; the sweep overrides it, so their lines "
                      "follow the base's.") if setting else ""
        self.status.setText("Running…" + self._note)
        self._buttons()
        signals, cancel, run = self._signals, self._cancel, self._run
        self._worker = threading.Thread(
            target=lambda: signals.finished.emit(run, run_sweep(
                request, cancel, lambda done, total:
                signals.progressed.emit(run, done, total))),
            name="linkplan-sweep", daemon=True)
        self._worker.start()

    def _save(self, request):
        """Keep this run in the document (one undoable edit) unless it is
        the sweep stored there already."""
        entry = tab_sweep(request)
        sweeps = [sw.model_dump(mode="json", exclude_none=True)
                  for sw in self.scenario.sweeps]
        kept = [sw for sw in sweeps if sw["name"] != TAB_SWEEP_NAME]
        if entry in sweeps:
            return
        self._shown_sweep = Sweep.model_validate(entry)
        self.saved.emit(kept + [entry],
                        f"Keep the sweep of {path_label(self.scenario, request.axes[0][0])}")

    def cancel(self):
        """Drop the running sweep at once; its worker stops after the
        chunk it is on, and what it reports is ignored."""
        if not self._running:
            return
        self._cancel.set()
        self._run += 1
        self._running = False
        self._buttons()
        self.status.setText(f"Cancelled after {self.progress.value():,} "
                            f"of {self.progress.maximum():,} points")

    def _buttons(self):
        self.run_button.setEnabled(not self._running)
        self.cancel_button.setEnabled(self._running)

    def wait(self, timeout=None):
        """Block until the worker ends (tests, benchmarks); True if it
        did."""
        if self._worker is None:
            return True
        self._worker.join(timeout)
        return not self._worker.is_alive()

    def _progressed(self, run, done, total):
        if run == self._run:
            self.progress.setMaximum(total)
            self.progress.setValue(done)

    def _finished(self, run, data):
        if run != self._run:
            return   # cancelled
        self._running = False
        self._buttons()
        if data.error:
            self.status.setText(data.error)
            return
        self.data = data
        self.status.setText(f"{data.done:,} points{self._note}")
        self.export_button.setEnabled(True)
        previous = self.metric.currentData()
        with QtCore.QSignalBlocker(self.metric):
            self.metric.clear()
            for metric_id in data.metric_ids():
                self.metric.addItem(metric_ids.info(metric_id)[1],
                                    metric_id)
            index = self.metric.findData(previous)
            self.metric.setCurrentIndex(index if index >= 0 else 0)
        self.redraw()

    def redraw(self):
        if self.data is None or self.metric.currentData() is None:
            return
        draw_sweep(self.plot.getPlotItem(), self.data,
                   self.metric.currentData(),
                   self.heat_variant.currentText())

    def export_dialog(self):
        from app.gui import persistence
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export sweep as CSV",
            str(persistence.start_folder() / "sweep.csv"), "CSV (*.csv)")
        if path:
            self.export_to(path)

    def export_to(self, path):
        from app.scenario_io import atomic_write
        try:
            atomic_write(path, self.data.to_csv().encode())
        except OSError as err:
            QtWidgets.QMessageBox.warning(self, "Cannot export the sweep",
                                          str(err))
            return False
        return True

    def report_chart(self):
        """``(heading, draw(plot_item))`` of the last sweep for the PDF,
        or None when none was run."""
        if self.data is None or self.metric.currentData() is None:
            return None
        data, metric_id = self.data, self.metric.currentData()
        heat = self.heat_variant.currentText()
        paths = " × ".join(a[0] for a in data.request.axes)
        return (f"Sweep: {metric_ids.info(metric_id)[1]} over {paths}",
                lambda plot: draw_sweep(plot, data, metric_id, heat))
