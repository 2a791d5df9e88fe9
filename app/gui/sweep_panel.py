"""Sweeps on screen: one or two parameter paths over a range, computed
off the GUI thread by :mod:`solvers.sweep` (the column path where the
paths allow it) with progress and cancel; one axis draws a line per
variant, two a heatmap of the picked variant; knees and boundaries are
marked; the points export as CSV and go into the PDF."""

import csv
import io
import math
import threading
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from app.gui.charts import new_plot_widget, theme_of, variant_colour
from app.schema_fields import path_label
from models.scenario import BASE_NAME, Axis, Sweep
from solvers import metric_ids, sweep
from solvers.columns import column_targets
from solvers.results import csv_cell

#: Points per chunk on the column path: about 10 ms of work each on the
#: built-in example, so the worker stops soon after a cancel.
COLUMN_CHUNK_POINTS = 256
#: Points per chunk when a path needs a document per point (several ms
#: to 100 ms each, with migrations); the window does not wait for the
#: chunk: a cancelled run is dropped at once and its worker stops after it.
#: One point per chunk stops no sooner: a migration's goal seeks cost per
#: call, not per point (Cancel to worker stopped, worst of 5, seed 003,
#: loaded machine: 2 points 403 and 359 ms, 1 point 535 and 548 ms).
DOCUMENT_CHUNK_POINTS = 2

#: Points a sweep on screen may have: a 2-D heatmap of 200 x 200 is as
#: fine as a screen shows.
MAX_SCREEN_POINTS = 40_000


@dataclass
class SweepRequest:
    """What to sweep: paths with their values, and the series (variant
    names and their documents)."""

    axes: list                       # (path, list of values)
    series: list                     # (variant name, Scenario)
    total: int = 0

    def __post_init__(self):
        self.total = math.prod(len(a[1]) for a in self.axes) * \
            len(self.series)


def axis_points(scenario, path, start, stop, num):
    """``num`` evenly spaced values from start to stop, whole numbers
    (rounded, repeats dropped) where the parameter is one (MTU, counts)."""
    values = np.linspace(start, stop, num).tolist()
    try:
        current = scenario.value_at(path)
    except (KeyError, IndexError, TypeError, ValueError):
        current = None
    if isinstance(current, int) and not isinstance(current, bool):
        values = list(dict.fromkeys(int(round(v)) for v in values))
    return values


@dataclass
class SweepData:
    """The swept points: per series, the axis values and each metric's
    values (NaN where a point has none), in point order (last axis
    fastest)."""

    request: SweepRequest
    values: dict = field(default_factory=dict)   # name -> {metric: list}
    combos: dict = field(default_factory=dict)   # name -> list of tuple
    done: int = 0
    cancelled: bool = False
    error: str | None = None

    def grid(self, name, metric_id):
        """The metric of a series as an array shaped like the axes."""
        shape = tuple(len(a[1]) for a in self.request.axes)
        return np.array(self.values[name].get(
            metric_id, [math.nan] * math.prod(shape)), float).reshape(shape)

    def axis_values(self, index):
        return np.array(self.request.axes[index][1], float)

    def metric_ids(self):
        ids = {}
        for metrics in self.values.values():
            ids.update(dict.fromkeys(metrics))
        return list(ids)

    def to_csv(self):
        """One row per (series, point): the axis values then every
        metric with its unit."""
        ids = self.metric_ids()
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["variant"] + [a[0] for a in self.request.axes] +
                        [f"{m}[{metric_ids.info(m)[0]}]" for m in ids])
        for name, combos in self.combos.items():
            metrics = self.values[name]
            for index, combo in enumerate(combos):
                row = [csv_cell(name)] + [repr(v) for v in combo]
                for m in ids:
                    value = metrics[m][index] if m in metrics else math.nan
                    row.append("" if math.isnan(value) else repr(value))
                writer.writerow(row)
        return out.getvalue()


def evaluation_order(axes):
    """Axis indices in the order the sweep evaluates them: column fields
    last, so they vary fastest and each template document is evaluated
    once for all its column values (:func:`solvers.evaluate.
    evaluate_points`)."""
    return sorted(range(len(axes)),
                  key=lambda i: column_targets(axes[i][0]) is not None)


def sweep_documents(request):
    """(series name, scenario with the sweep, plan) per series, the axes
    in :func:`evaluation_order`.

    Raises
    ------
    ValueError
        A path or value the scenario does not accept (named).
    """
    screen = Sweep(name="screen", axes=[
        Axis(path=request.axes[i][0], values=request.axes[i][1])
        for i in evaluation_order(request.axes)])
    out = []
    for name, document in request.series:
        swept = document.model_copy(update={"sweeps": [screen]})
        out.append((name, swept, sweep.plan(swept)))
    return out


def run_sweep(request, cancel, progress=None):
    """Evaluate a request in this thread; ``cancel`` (a threading.Event)
    ends it after the current chunk, ``progress(done, total)`` is called
    after each. Returns :class:`SweepData` (``cancelled`` when stopped,
    ``error`` when a path or value was refused)."""
    data = SweepData(request)
    try:
        planned = sweep_documents(request)
    except ValueError as err:
        data.error = str(err)
        return data
    order = evaluation_order(request.axes)
    column_points = math.prod(len(a[1]) for a in request.axes
                              if column_targets(a[0]) is not None)
    if any(column_targets(a[0]) is not None for a in request.axes):
        # whole templates per chunk; a template of more points (every
        # axis a column field) a chunk's worth at a time, so that the
        # worker still stops soon after a cancel
        chunk_points = column_points * (COLUMN_CHUNK_POINTS // column_points) \
            if column_points <= COLUMN_CHUNK_POINTS else COLUMN_CHUNK_POINTS
    else:
        chunk_points = DOCUMENT_CHUNK_POINTS
    for name, swept, plan in planned:
        metrics, combos = {}, []
        data.values[name], data.combos[name] = metrics, combos
        before = data.done

        def stop(p, before=before):
            data.done = before + p.done
            if progress is not None:
                progress(data.done, request.total)
            return cancel.is_set()
        try:
            for chunk in sweep.run(swept, plan, chunk_points=chunk_points,
                                   callback=stop):
                offset = len(combos)
                combos.extend(zip(*(
                    [values[i] for i in axis_indices.tolist()]
                    for values, axis_indices in zip(plan.values,
                                                    chunk.indices))))
                for metric_id, column in zip(chunk.metric_ids,
                                             chunk.columns):
                    series = metrics.setdefault(metric_id,
                                                [math.nan] * offset)
                    series.extend(column.tolist())   # NaN: no value
                for series in metrics.values():   # metrics this chunk lacks
                    series.extend([math.nan] * (len(combos) - len(series)))
        except ValueError as err:
            data.error = str(err)
            return data
        if cancel.is_set():
            data.cancelled = True
            return data
        _to_request_order(data, name, order)
    return data


def _to_request_order(data, name, order):
    """Points of a series from evaluation order back to the request's
    axis order (last axis fastest)."""
    if order == sorted(order):
        return
    shape = [len(data.request.axes[i][1]) for i in order]
    back = np.argsort(order)
    metrics = data.values[name]
    for metric_id, values in metrics.items():
        metrics[metric_id] = np.array(values).reshape(shape).transpose(
            back).ravel().tolist()
    combos = np.empty(len(data.combos[name]), dtype=object)
    combos[:] = [tuple(c[j] for j in back) for c in data.combos[name]]
    data.combos[name] = combos.reshape(shape).transpose(back).ravel() \
        .tolist()


def marks(data, name, metric_id):
    """Knees and boundaries along a 1-D sweep of one series: ``(x,
    label)`` where a migration stops converging (the convergence boundary,
    where the dirty rate over one round reaches the bandwidth), where the
    outstanding IO reaches the knee, and ``(None, y, label)`` lines at
    line rate for throughput metrics."""
    x = data.axis_values(0)
    found = []
    converged = data.grid(name, "migration.converged")
    flips = np.flatnonzero(np.diff(np.nan_to_num(converged, nan=0)) != 0)
    for i in flips:
        found.append((float((x[i] + x[i + 1]) / 2), None,
                      "convergence boundary"))
    # where the guest must be throttled to converge: beyond it the dirty
    # rate over a round outruns the bandwidth
    throttled = np.nan_to_num(data.grid(name, "migration.throttle_pct"),
                              nan=0) > 0
    for i in np.flatnonzero(np.diff(throttled.astype(int)) != 0):
        found.append((float((x[i] + x[i + 1]) / 2), None,
                      "throttling needed"))
    oio, knee = data.grid(name, "storage.oio"), data.grid(name,
                                                          "storage.knee_oio")
    above = np.flatnonzero(np.nan_to_num(oio - knee, nan=-1) >= 0)
    if above.size and above[0] > 0:
        found.append((float(x[above[0]]), None, "OIO knee"))
    if metric_ids.info(metric_id)[0] == "Gbit/s":
        line = data.grid(name, "wire.link_gbps")
        if np.isfinite(line).any():
            found.append((None, float(np.nanmax(line)), "line rate"))
    return found


def draw_sweep(plot_item, data, metric_id, heat_series=None):
    """A 1-D sweep as one line per series with its marks, or a 2-D sweep
    as a heatmap of ``heat_series`` with the convergence boundary."""
    theme = theme_of(plot_item)
    plot_item.clear()
    if plot_item.legend is not None:
        plot_item.legend.clear()
    colour_bar = getattr(plot_item, "_linkplan_colour_bar", None)
    if colour_bar is not None:
        colour_bar.setVisible(len(data.request.axes) == 2)
    unit, label = metric_ids.info(metric_id)
    unit_text = "" if unit == "1" else f" [{unit}]"
    scenario = data.request.series[0][1]
    paths = [path_label(scenario, a[0]) for a in data.request.axes]
    plot_item.setLabel("bottom", paths[0])
    plot_item.showGrid(x=True, y=True, alpha=0.25)
    if len(paths) == 1:
        plot_item.setLabel("left", f"{label}{unit_text}")
        if plot_item.legend is None:
            plot_item.addLegend(offset=(-10, -10), labelTextColor=theme.text)
        x = data.axis_values(0)
        shown = set()
        for index, (name, _) in enumerate(data.request.series):
            if name not in data.values:
                continue
            y = data.grid(name, metric_id)
            colour = variant_colour(index, theme)
            plot_item.plot(x, y, pen=pg.mkPen(colour, width=2), name=name,
                           connect="finite")
            for at_x, at_y, text in marks(data, name, metric_id):
                if (at_x, at_y, text) in shown:
                    continue
                # each kind of mark labelled once: the series' marks of
                # one kind sit close together and their labels would overlap
                labelled = text not in {t for _, _, t in shown}
                shown.add((at_x, at_y, text))
                plot_item.addItem(pg.InfiniteLine(
                    pos=at_x if at_y is None else at_y,
                    angle=90 if at_y is None else 0,
                    pen=pg.mkPen(colour, width=1,
                                 style=QtCore.Qt.PenStyle.DashLine),
                    label=text if labelled else None,
                    labelOpts={"position": 0.9, "color": theme.muted,
                               "anchors": [(0, 0), (0, 0)]}))
        plot_item.getViewBox().enableAutoRange()
        return
    name = heat_series or data.request.series[0][0]
    plot_item.setLabel("left", paths[1])
    plot_item.setTitle(f"{name}: {label}{unit_text}", size="9pt",
                       color=theme.text)
    grid = data.grid(name, metric_id)
    x, y = data.axis_values(0), data.axis_values(1)
    finite = grid[np.isfinite(grid)]
    image = pg.ImageItem(grid)
    low, high = (float(finite.min()), float(finite.max())) if finite.size \
        else (0.0, 1.0)
    high = high if high > low else low + 1
    colour_map = pg.colormap.get("viridis")
    image.setLookupTable(colour_map.getLookupTable())
    image.setLevels((low, high))
    dx = (x[-1] - x[0]) / max(len(x) - 1, 1) or 1.0
    dy = (y[-1] - y[0]) / max(len(y) - 1, 1) or 1.0
    image.setRect(QtCore.QRectF(x[0] - dx / 2, y[0] - dy / 2,
                                dx * len(x), dy * len(y)))
    plot_item.addItem(image)
    converged = data.grid(name, "migration.converged")
    if np.isfinite(converged).any() and np.nanmin(converged) < 1 <= \
            np.nanmax(converged):
        boundary = pg.IsocurveItem(np.nan_to_num(converged, nan=0), 0.5,
                                   pen=pg.mkPen("w", width=2))
        boundary.setParentItem(image)
    if colour_bar is None:
        colour_bar = pg.ColorBarItem(colorMap=colour_map, interactive=False,
                                     width=14)
        colour_bar.setImageItem(image, insert_in=plot_item)
        plot_item._linkplan_colour_bar = colour_bar
    else:
        colour_bar.setImageItem(image)
    colour_bar.axis.setTextPen(theme.text)
    colour_bar.axis.setPen(theme.text)
    colour_bar.setLevels((low, high))
    plot_item.getViewBox().autoRange(padding=0)


class _Signals(QtCore.QObject):
    progressed = QtCore.Signal(int, int, int)   # run, done, total
    finished = QtCore.Signal(int, object)       # run, SweepData


#: Name of the sweep the Sweep tab keeps in the document (``[[sweeps]]``):
#: ``linkplan sweep`` reruns it.
TAB_SWEEP_NAME = "Sweep tab"

#: The first axis a new document's Sweep tab offers, by the goal's family:
#: the input its question turns on (dirty rate for a migration,
#: outstanding IO for storage, link speed for a transfer); without a goal
#: in the order advise picks one (storage, transfer, migration ...).
GOAL_AXES = (
    ("storage", ("workloads.storage[0].threads_per_disk",
                 "workloads.storage[0].vms")),
    ("host", ("nics[0].speed_gbps",)),
    ("migration", ("workloads.migrations[0].dirty.rate_mib_s",
                   "workloads.migrations[0].memory_gib")),
    ("evacuation", ("workloads.evacuations[0].concurrency",)),
    ("teaming", ("nics[0].speed_gbps",)),
    ("cluster", ("nics[0].speed_gbps",)),
    ("wire", ("network.mtu",)),
)


def default_axis(scenario, paths):
    """The path a Sweep tab starts on: the goal's input when the document
    has one, else the first of :data:`GOAL_AXES` it has, else its first
    numeric path."""
    from models.scenario import GOALS
    order = [family for family, _ in GOAL_AXES]
    if scenario.goal is not None:
        family = GOALS[scenario.goal.kind][0].partition(".")[0]
        if family in order:   # the goal's family first
            order.remove(family)
            order.insert(0, family)
    candidates = dict(GOAL_AXES)
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
