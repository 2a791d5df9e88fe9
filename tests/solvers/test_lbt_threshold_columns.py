"""A column sweep over LBT's threshold (issue 36): the teaming analysis
runs once per class of thresholds that make the same comparisons come out
alike, and every point still equals ``evaluate`` of its document."""

import json

import numpy as np

from models.scenario import parse_scenario
from solvers import sweep, teaming_dynamic
from solvers.analyses import teaming
from solvers.evaluate import evaluate
from tests.conftest import EXAMPLES
from tests.solvers.test_sweep_columns import assert_point_equals_evaluate

PATH = "teams[0].lbt_threshold_pct"


def _lbt_with_sweep(values):
    scenario = parse_scenario((EXAMPLES / "seed000_lbt.toml").read_text(),
                              "toml")
    data = json.loads(scenario.model_dump_json())
    data["variants"] = []
    data["sweeps"] = [{"name": "threshold", "mode": "product",
                       "axes": [{"path": PATH, "values": values}]}]
    return parse_scenario(json.dumps(data), "json")


def _thresholds():
    """Thresholds from 50 to 95 %, plus the utilizations the template's
    simulations compare with (as percent) and the floats either side of
    them: the edges of the classes, where a wrong class would show."""
    scenario = _lbt_with_sweep([75.0])
    with teaming_dynamic.threshold_comparisons() as seen:
        evaluate(scenario.model_copy(update={"sweeps": []}))
    edges = sorted({100 * u for u in seen if 0.5 < u < 0.95})[:8]
    assert edges, "seed 000's LBT compares utilizations of 50-95 %"
    around = [v for edge in edges for v in (
        np.nextafter(edge, 0.0), edge, np.nextafter(edge, 100.0))]
    return sorted({*np.linspace(50.0, 95.0, 1000).tolist(),
                   *map(float, around)}), set(map(float, around))


def test_every_threshold_equals_evaluate_and_classes_share_one_run(
        monkeypatch):
    values, edges = _thresholds()
    runs = []
    analyse = teaming.analyse

    def counted(inputs, *args, **kwargs):
        runs.append(len(inputs.documents))
        return analyse(inputs, *args, **kwargs)

    monkeypatch.setattr(teaming, "analyse", counted)
    scenario = _lbt_with_sweep(values)
    sweep_plan = sweep.plan(scenario)
    chunk = next(sweep.run(scenario, sweep_plan,
                           chunk_points=sweep_plan.total))
    documents = sum(runs)
    monkeypatch.setattr(teaming, "analyse", analyse)
    # (one run on the template, one per class; before: one per value)
    assert documents < len(values) / 10, (documents, len(values))
    # every point at and beside a class edge, and every 20th
    for index in range(sweep_plan.total):
        if values[index] in edges or index % 20 == 0:
            assert_point_equals_evaluate(scenario, sweep_plan, chunk, index)
    # the thresholds do change the answer: the classes are several
    peaks = {chunk.values(i)["teaming.lbt.peak_util_pct"]
             for i in range(sweep_plan.total)}
    assert len(peaks) > 1
