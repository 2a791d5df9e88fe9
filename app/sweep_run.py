"""Sweeps the GUI runs (the Sweep tab, the report's chart of a
scenario's sweep): a request of axes and series, evaluated chunk by chunk
by :mod:`solvers.sweep` with progress and cancel, into points held in
memory (:class:`SweepData`), their CSV, and the knees and boundaries
along them. No Qt: the widget runs :func:`run_sweep` in a worker thread.
``linkplan sweep`` streams its points to files instead
(:mod:`app.sweep_cli`)."""

import csv
import io
import math
from dataclasses import dataclass, field

import numpy as np

from models.scenario import Axis, Sweep
from solvers import metric_ids, sweep
from solvers.analysis import REACHES, TURNS
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
    """Knees and boundaries along a 1-D sweep of one series, as the
    analyses declare them (:func:`solvers.metric_ids.sweep_marks`): ``(x,
    None, label)`` where a metric turns positive or back (a migration
    stops converging) or first reaches another (the outstanding IO its
    knee), and ``(None, y, label)`` lines at a metric's largest value on a
    chart of its unit (the line rate)."""
    x = data.axis_values(0)
    found = []
    for mark, shown, reached in metric_ids.sweep_marks():
        values = data.grid(name, shown)
        if mark.kind == TURNS:
            on = np.nan_to_num(values, nan=0) > 0
            found.extend((float((x[i] + x[i + 1]) / 2), None, mark.label)
                         for i in np.flatnonzero(np.diff(on.astype(int))))
        elif mark.kind == REACHES:
            above = np.flatnonzero(np.nan_to_num(
                values - data.grid(name, reached), nan=-1) >= 0)
            if above.size and above[0] > 0:
                found.append((float(x[above[0]]), None, mark.label))
        elif metric_ids.info(metric_id)[0] == metric_ids.info(shown)[0] \
                and np.isfinite(values).any():
            found.append((None, float(np.nanmax(values)), mark.label))
    return found
