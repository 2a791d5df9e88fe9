"""The scenario's own sweep, charted for the report when the app has
shown none: the goal's metric over the sweep's axis, one line per
variant; with two axes, one line per value of the shorter one."""

import threading

import numpy as np

from app.gui.sweep_panel import SweepRequest, draw_sweep, run_sweep
from app.report.content import path_words, value_text
from models.scenario import GOALS
from solvers import metric_ids, sweep
from solvers.advise import resolve_goal

#: Lines of a sweep chart (variants, or values of a second axis).
SWEEP_LINES = 8

#: Points along the chart's axis: a printed line shows no more.
SWEEP_POINTS = 200


def _spread(values, most):
    """At most ``most`` of ``values``, evenly spread, first and last kept."""
    if len(values) <= most:
        return list(values)
    return [values[int(i)] for i in np.linspace(0, len(values) - 1, most)]


def scenario_sweep_chart(scenario, results):
    """``(heading, draw(plot_item), caption)`` of the scenario's first
    sweep, or
    None when it has none the report can draw (zipped axes, more than
    two axes, a metric the sweep does not give)."""
    if not scenario.sweeps:
        return None
    try:
        planned = sweep.plan(scenario)
        goal = resolve_goal(scenario)
    except ValueError:
        return None
    if len(planned.paths) > 2 or (planned.mode == "zip" and
                                  len(planned.paths) > 1):
        return None
    metric_id = GOALS[goal][0]
    documents = scenario.variant_documents()
    longest = int(np.argmax([len(v) for v in planned.values]))
    path = planned.paths[longest]
    axis = (path, _spread(planned.values[longest], SWEEP_POINTS))
    if len(planned.paths) == 1:
        series = documents[:SWEEP_LINES]
        lines = "One line per variant."
    else:
        other = 1 - longest
        other_path = planned.paths[other]
        name = other_path.rpartition(".")[2]
        series = []
        for value in _spread(planned.values[other], SWEEP_LINES):
            try:
                series.append((value_text(name, value),
                               documents[0][1].with_value(other_path,
                                                          value)))
            except ValueError:
                continue
        lines = f"One line per value of {path_words(scenario, other_path)}" \
            ", on the base scenario."
    data = run_sweep(SweepRequest([axis], series), threading.Event())
    if data.error or metric_id not in data.metric_ids():
        return None
    label = metric_ids.info(metric_id)[1]
    heading = f"Sweep {planned.name}: {label} against " \
        f"{path_words(scenario, path)}"
    return heading, lambda plot: draw_sweep(plot, data, metric_id), lines
